//! Runtime configuration and the `--ops-*` command-line flags.

/// Which execution backend runs the loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, clap::ValueEnum)]
pub enum BackendKind {
    /// Sequential reference backend: every loop on the calling thread.
    Seq,
    /// Multi-threaded host backend on a dedicated rayon thread pool.
    #[default]
    Rayon,
    /// GPU backend (WebGPU through wgpu; needs an adapter offering f64, such as a GPU's Vulkan
    /// driver or Mesa's software llvmpipe). `OPS_WGPU_ADAPTER=<name part>` picks an adapter.
    #[value(
        help = "GPU backend (WebGPU through wgpu; needs an adapter offering f64, such as a GPU's Vulkan driver or Mesa's software llvmpipe); OPS_WGPU_ADAPTER=<part of its name> picks an adapter"
    )]
    Wgpu,
    /// `wgpu` when a real GPU offering f64 is present (not a CPU/software adapter), else
    /// `rayon`; the choice is reported on stderr.
    #[value(
        help = "wgpu when a real GPU offering f64 is present (not a CPU/software adapter) and every kernel has a GPU form, else rayon; the choice is reported on stderr"
    )]
    Auto,
}

impl BackendKind {
    /// The backend's flag value (`"seq"`, `"rayon"`, `"wgpu"`, `"auto"`).
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Seq => "seq",
            BackendKind::Rayon => "rayon",
            BackendKind::Wgpu => "wgpu",
            BackendKind::Auto => "auto",
        }
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a thread count: {e}")),
    }
}

/// The runtime's command-line flags, to flatten into an application's own clap parser; each flag
/// can also be given as an `OPS_*` environment variable.
///
/// ```
/// use clap::Parser;
/// use ops_core::prelude::*;
///
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     ops: OpsArgs,
///     #[arg(long, default_value_t = 10)]
///     steps: usize,
/// }
///
/// let cli = Cli::parse_from(["app", "--ops-backend", "seq", "--ops-threads", "2"]);
/// assert_eq!(cli.ops.backend, BackendKind::Seq);
/// assert_eq!(cli.ops.threads, Some(2));
/// assert!(Cli::try_parse_from(["app", "--ops-threads", "0"]).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
// The program's own description, not this rustdoc, is what `--help` shows first.
#[command(about = None, long_about = None)]
pub struct OpsArgs {
    /// Execution backend: seq, rayon, wgpu (GPU), or auto (wgpu on a real GPU, else rayon).
    #[arg(
        long = "ops-backend",
        env = "OPS_BACKEND",
        value_enum,
        default_value = "rayon"
    )]
    pub backend: BackendKind,
    /// Worker threads for the rayon backend (at least 1; default: one per core; the wgpu
    /// backend ignores it).
    #[arg(long = "ops-threads", env = "OPS_THREADS", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Loops over fewer points than this run on one thread (default 8192: spreading a small
    /// loop over threads costs more than it saves); 0 sends every loop to the thread pool.
    /// Results do not depend on it.
    #[arg(long = "ops-inline-points", env = "OPS_INLINE_POINTS")]
    pub inline_points: Option<usize>,
    /// At the end of the run, write a checksum of every dataset (interior and whole extent) to
    /// this JSON file: two runs computed the same fields exactly when their digests are equal.
    #[arg(long = "ops-digest", env = "OPS_DIGEST", value_name = "FILE")]
    pub digest: Option<std::path::PathBuf>,
    /// Stop with an error naming the reduction when a floating-point reduction's result is NaN
    /// or infinite (the quantities that steer a program's control flow: time steps,
    /// residuals, sums), instead of computing on with it.
    #[arg(long = "ops-check-finite", env = "OPS_CHECK_FINITE")]
    pub check_finite: bool,
}

impl Default for OpsArgs {
    fn default() -> Self {
        OpsArgs {
            backend: BackendKind::Rayon,
            threads: None,
            inline_points: None,
            digest: None,
            check_finite: false,
        }
    }
}

/// The runtime's configuration, usually built from [`OpsArgs`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct OpsConfig {
    /// Execution backend.
    pub backend: BackendKind,
    /// Worker threads (`None`: the backend's default).
    pub threads: Option<usize>,
    /// Host backends run loops over fewer points on the calling thread (`None`:
    /// [`INLINE_POINTS`](crate::exec::INLINE_POINTS)).
    pub inline_points: Option<usize>,
    /// Where [`Ops::finish`](crate::Ops::finish) writes every dataset's checksum
    /// (`--ops-digest`).
    pub digest: Option<std::path::PathBuf>,
    /// [`Ops::reduction_result`](crate::Ops::reduction_result) refuses NaN and infinite
    /// floating-point results (`--ops-check-finite`).
    pub check_finite: bool,
}

impl OpsConfig {
    /// The configuration for `backend` with default settings.
    pub fn new(backend: BackendKind) -> Self {
        OpsConfig {
            backend,
            threads: None,
            inline_points: None,
            digest: None,
            check_finite: false,
        }
    }

    /// Makes non-finite floating-point reduction results errors (`--ops-check-finite`).
    pub fn with_check_finite(mut self, on: bool) -> Self {
        self.check_finite = on;
        self
    }

    /// Sets the worker thread count.
    pub fn with_threads(mut self, threads: Option<usize>) -> Self {
        self.threads = threads;
        self
    }

    /// Sets the size under which host backends run a loop on the calling thread (0: every
    /// loop on the pool; tests use it to exercise the parallel path on small meshes).
    pub fn with_inline_points(mut self, points: Option<usize>) -> Self {
        self.inline_points = points;
        self
    }

    /// Checks the values (a thread count must be at least 1).
    pub fn validate(&self) -> crate::Result<()> {
        if self.threads == Some(0) {
            return Err(crate::OpsError::InvalidConfig(
                "--ops-threads must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

impl From<&OpsArgs> for OpsConfig {
    fn from(a: &OpsArgs) -> Self {
        OpsConfig {
            backend: a.backend,
            threads: a.threads,
            inline_points: a.inline_points,
            digest: a.digest.clone(),
            check_finite: a.check_finite,
        }
    }
}

impl From<OpsArgs> for OpsConfig {
    fn from(a: OpsArgs) -> Self {
        OpsConfig::from(&a)
    }
}
