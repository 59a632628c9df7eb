//! # ops: the structured-mesh EDSL with automatic checkpointing
//!
//! One import for applications: `use ops::prelude::*;` brings the EDSL (`ops_core`), the
//! backends (`ops_backends`) and the resilience layer's user API (`ops_resilience`). The
//! command line is [`OpsArgs`] (flatten it into the application's clap parser): the runtime's
//! `--ops-backend`/`--ops-threads` and the checkpoint flags (`--ops-checkpoint-dir`,
//! `--ops-checkpoint-interval`, `--ops-checkpoint-every`, `--ops-checkpoint-mode`,
//! `--ops-checkpoint-keep`, `--ops-restart`, `--ops-mtbf`, `--ops-diags`, `--ops-diags-json`;
//! each also an `OPS_*` variable). [`ops_from_args`] builds the runtime and, when a checkpoint
//! or diagnostics flag is given, installs the resilience observer: the application checkpoints
//! and restarts with no checkpoint code. With none of those flags nothing is installed.
//!
//! ```
//! use clap::Parser;
//! use ops::prelude::*;
//!
//! #[kernel]
//! fn fill(idx: Idx, out: Write<f64>) {
//!     out[(0, 0)] = (idx[0] + idx[1]) as f64;
//! }
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     ops: OpsArgs,
//! }
//!
//! let cli = Cli::parse_from(["app", "--ops-backend", "seq"]);
//! let mut ops = ops_from_args(&cli.ops)?;
//! let grid = ops.block("grid", 2)?;
//! let u = ops.dat::<f64, 2>(&grid, "u", [4, 4], Halo::uniform(1))?;
//! let pt = ops.stencil("S2D_00", &[[0, 0]])?;
//! ops.par_loop(fill, "fill", &grid, [0..4, 0..4], &[Arg::idx(), u.arg(&pt, Write)])?;
//! assert_eq!(ops.fetch_data(&u)?[5], 2.0);
//! ops.finish()?;
//! # Ok::<(), OpsError>(())
//! ```

#![warn(missing_docs)]

pub use ops_backends;
pub use ops_core;
/// Datasets to and from files: [`io::dat_from_hdf5`] (declare a dataset from an HDF5 array),
/// [`io::Dump`] (write datasets to HDF5 with an XDMF companion) and [`io::Series`] (an XDMF time
/// series), in global index space, under MPI too.
pub use ops_io as io;
/// Pictures of datasets: [`plot::snapshot_png`] (a colour-mapped PNG of a 2-D field or a plane
/// of a 3-D one) and [`plot::candidates_png`] (the checkpoint candidates as a bar chart).
pub use ops_plot as plot;
pub use ops_resilience;

use ops_core::{Ops, OpsConfig, OpsError, Result};
use ops_resilience::{ResilienceArgs, ResilienceConfig};

/// The full command line of an ops application: the runtime's flags and the checkpoint flags.
///
/// ```
/// use clap::Parser;
/// #[derive(Parser, Debug)]
/// struct Cli {
///     #[command(flatten)]
///     ops: ops::OpsArgs,
/// }
/// let cli = Cli::parse_from(["app", "--ops-checkpoint-dir", "ck", "--ops-checkpoint-every", "5"]);
/// assert_eq!(cli.ops.resilience.checkpoint_every, Some(5));
/// let e = Cli::try_parse_from(["app", "--ops-checkpoint-mode", "tape"]).unwrap_err();
/// assert!(e.to_string().contains("--ops-checkpoint-mode"));
/// let e = Cli::try_parse_from(["app", "--ops-checkpoint-every", "0"]).unwrap_err();
/// assert!(e.to_string().contains("--ops-checkpoint-every"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, clap::Args)]
#[group(id = "ops-facade-args")]
// The program's own description, not this rustdoc, is what `--help` shows first.
#[command(about = None, long_about = None)]
pub struct OpsArgs {
    /// Runtime flags (`--ops-backend`, `--ops-threads`).
    #[command(flatten)]
    pub runtime: ops_core::OpsArgs,
    /// Checkpoint and diagnostics flags.
    #[command(flatten)]
    pub resilience: ResilienceArgs,
}

/// Builds the runtime from the command line: the backend, and the resilience observer when a
/// checkpoint or diagnostics flag is set (with `--ops-restart`, positioned to replay towards
/// the newest complete checkpoint). Bad flag values are errors naming the flag.
pub fn ops_from_args(args: &OpsArgs) -> Result<Ops> {
    let cfg = args
        .resilience
        .to_config()
        .map_err(OpsError::InvalidConfig)?;
    ops_with_resilience(OpsConfig::from(&args.runtime), &cfg)
}

/// [`ops_from_args`] from configurations built in code. (`ops_from_config`, from the
/// backends, builds a runtime without resilience.)
pub fn ops_with_resilience(config: OpsConfig, resilience: &ResilienceConfig) -> Result<Ops> {
    print_diagnostics();
    let mut ops = ops_backends::ops_from_config(config)?;
    if ops_resilience::install(&mut ops, resilience)? {
        if let Some(r) = ops.observer_mut::<ops_resilience::Resilience>() {
            r.set_report_picture(draw_candidates);
        }
    }
    Ok(ops)
}

/// `--ops-diags-png`: the report's candidate locations as a bar chart.
fn draw_candidates(
    report: &ops_resilience::diags::Report,
    path: &std::path::Path,
) -> std::result::Result<(), String> {
    let loc = &report.location;
    let mut in_pass_order: Vec<_> = loc.candidates.iter().collect();
    in_pass_order.sort_by_key(|c| c.position);
    let bars: Vec<plot::Candidate<'_>> = in_pass_order
        .into_iter()
        .map(|c| plot::Candidate {
            location: &c.location,
            bytes_min: c.bytes_min,
            bytes_max: c.bytes_max,
            chosen: loc.chosen.as_deref() == Some(c.location.as_str()),
        })
        .collect();
    let title = format!(
        "{}: bytes a checkpoint would save at each loop boundary of the time step",
        report.app
    );
    plot::candidates_png(&bars, &title, path).map_err(|e| e.to_string())
}

/// Prints the runtime's diagnostics on stderr, each message as it is: the `tracing` events of
/// the `ops` crates (checkpoint lines at `--ops-diags N`, restores, warnings). Does nothing if
/// the program installed a `tracing` subscriber of its own (it then receives them instead).
/// [`ops_from_args`] calls it.
pub fn print_diagnostics() {
    use tracing_subscriber::layer::{Layer, SubscriberExt};
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let fmt = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .without_time()
            .with_level(false)
            .with_target(false)
            .with_ansi(false);
        let only_ops = tracing_subscriber::filter::filter_fn(|m| {
            m.target().starts_with("ops") && *m.level() <= tracing::Level::INFO
        });
        let subscriber = tracing_subscriber::registry().with(fmt.with_filter(only_ops));
        // An error means another subscriber was installed first: that one gets the events.
        let _ = tracing::subscriber::set_global_default(subscriber);
    });
}

/// The README's code examples compile and run as doctests (they use only this crate).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// Everything an application needs: the EDSL, the backends, [`OpsArgs`], [`ops_from_args`] and
/// the resilience methods on `Ops` ([`ResilienceExt`](ops_resilience::ResilienceExt)).
pub mod prelude {
    pub use crate::{ops_from_args, ops_with_resilience, print_diagnostics, OpsArgs};
    pub use ops_backends::prelude::*;
    pub use ops_core::DatId;
    pub use ops_resilience::prelude::*;
    pub use ops_resilience::ResilienceConfig;
}
