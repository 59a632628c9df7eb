//! Execution backends for `ops-core`: [`seq`] (the sequential reference) and [`rayon`] (threads),
//! both keeping datasets in 64-byte-aligned host memory ([`host`]) and running loops through the
//! shared host executor, so their reductions agree bitwise for every thread count.
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

pub mod host;
pub mod rayon;
pub mod seq;

use ops_core::{Backend, BackendKind, Ops, OpsArgs, OpsConfig, Result};

pub use host::{HostBackend, HostBuf};
pub use rayon::{RayonBackend, RayonRunner};
pub use seq::SeqBackend;

/// The backend `config` asks for.
pub fn backend_from_config(config: &OpsConfig) -> Result<Box<dyn Backend>> {
    config.validate()?;
    Ok(match config.backend {
        BackendKind::Seq => Box::new(SeqBackend::new()),
        BackendKind::Rayon => Box::new(RayonBackend::new(config.threads)?),
    })
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
