//! Execution backends for `ops-core`: [`seq`] (the sequential reference) and [`rayon`] (threads),
//! both keeping datasets in 64-byte-aligned host memory ([`host`]) and running loops through the
//! shared host executor, so their reductions agree bitwise for every thread count; and, with the
//! `wgpu` cargo feature (on by default), [`wgpu`] (the GPU, through WebGPU).
//!
//! `--ops-backend auto` picks `wgpu` when a real GPU offering f64 is present and `rayon`
//! otherwise, and says which on stderr.
//!
//! Applications build their runtime here, from the `--ops-*` flags:
//!
//! ```
//! use clap::Parser;
//! use ops_backends::prelude::*;
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     ops: OpsArgs,
//! }
//!
//! let cli = Cli::parse_from(["app", "--ops-backend", "seq"]);
//! let ops = ops_from_args(&cli.ops)?;
//! assert_eq!(ops.backend_name(), "seq");
//! # Ok::<(), OpsError>(())
//! ```

#![warn(missing_docs)]

// `#[kernel]` reaches the runtime through this when `ops-backends` is the only dependency.
#[doc(hidden)]
pub use ops_core;

pub mod host;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod rayon;
pub mod seq;
#[cfg(feature = "wgpu")]
pub mod wgpu;

use ops_core::{Backend, BackendKind, Ops, OpsArgs, OpsConfig, Result};

#[cfg(feature = "wgpu")]
pub use crate::wgpu::WgpuBackend;
pub use host::{HostBackend, HostBuf};
pub use rayon::{RayonBackend, RayonRunner};
pub use seq::SeqBackend;

/// The backend `config` asks for. `Auto` reports its choice on stderr. With the `mpi` feature,
/// a process started by `mpirun` gets it wrapped in the distributed `mpi::MpiBackend` (one
/// rayon thread per core share unless `--ops-threads` says otherwise).
pub fn backend_from_config(config: &OpsConfig) -> Result<Box<dyn Backend>> {
    #[cfg(feature = "mpi")]
    if mpi::launched_under_mpi() {
        let mut local = config.clone();
        if local.threads.is_none() {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            local.threads = Some((cores / mpi::local_processes()).max(1));
        }
        let inner = local_backend(&local)?;
        return Ok(Box::new(mpi::MpiBackend::new(inner)?));
    }
    local_backend(config)
}

/// The single-process backend `config` asks for.
fn local_backend(config: &OpsConfig) -> Result<Box<dyn Backend>> {
    config.validate()?;
    let inline = config
        .inline_points
        .unwrap_or(ops_core::exec::INLINE_POINTS);
    let rayon = || -> Result<Box<dyn Backend>> {
        Ok(Box::new(
            RayonBackend::new(config.threads)?.with_inline_points(inline),
        ))
    };
    Ok(match config.backend {
        BackendKind::Seq => Box::new(SeqBackend::new().with_inline_points(inline)),
        BackendKind::Rayon => rayon()?,
        BackendKind::Wgpu => wgpu_backend()?,
        BackendKind::Auto => match auto_gpu() {
            Ok(b) => b,
            Err(why) => {
                eprintln!("ops: --ops-backend auto: {why}; using rayon");
                rayon()?
            }
        },
    })
}

/// The wgpu backend, once every kernel of the program is known to run on it.
#[cfg(feature = "wgpu")]
fn wgpu_backend() -> Result<Box<dyn Backend>> {
    let b = WgpuBackend::new()?;
    b.check_kernels(ops_core::kernel::registered_kernels())?;
    Ok(Box::new(b))
}

#[cfg(not(feature = "wgpu"))]
fn wgpu_backend() -> Result<Box<dyn Backend>> {
    Err(ops_core::OpsError::InvalidConfig(
        "--ops-backend wgpu: ops-backends was built without its `wgpu` feature".into(),
    ))
}

#[cfg(feature = "wgpu")]
fn auto_gpu() -> std::result::Result<Box<dyn Backend>, String> {
    let b = WgpuBackend::on_gpu()?;
    b.check_kernels(ops_core::kernel::registered_kernels())
        .map_err(|e| e.to_string())?;
    eprintln!("ops: --ops-backend auto: using wgpu on {}", b.adapter());
    Ok(Box::new(b))
}

#[cfg(not(feature = "wgpu"))]
fn auto_gpu() -> std::result::Result<Box<dyn Backend>, String> {
    Err("built without the `wgpu` feature".into())
}

/// A runtime configured by `config`, with the backend it names.
pub fn ops_from_config(config: OpsConfig) -> Result<Ops> {
    let backend = backend_from_config(&config)?;
    Ok(Ops::new(config, backend))
}

/// A runtime configured by the `--ops-*` flags (flatten [`OpsArgs`] into the application's clap
/// parser).
pub fn ops_from_args(args: &OpsArgs) -> Result<Ops> {
    ops_from_config(OpsConfig::from(args))
}

/// `ops_core::prelude::*` plus the backend constructors: `use ops_backends::prelude::*;`.
pub mod prelude {
    pub use crate::{ops_from_args, ops_from_config};
    pub use ops_core::prelude::*;
}
