//! # ops-core: a structured-mesh parallel-loop EDSL
//!
//! The runtime of an OPS-like embedded language: applications declare **blocks** (1-3-D index
//! spaces), **datasets** on them (with halos), **stencils** (the offsets a loop may access) and
//! **reductions**, and express every computation as a [`par_loop`](Ops::par_loop) of a
//! [`#[kernel]`](macro@kernel) function over a range of a block. The runtime ([`Ops`]) owns all data:
//! values enter and leave only through its calls, and every loop is validated before it runs,
//! so the generated kernel code needs no bounds checks and every change to every dataset is
//! seen by the runtime (which is what the resilience layer's automatic checkpointing builds on,
//! see [`observer`]).
//!
//! ```
//! use ops_backends::prelude::*;
//!
//! #[kernel]
//! fn ideal_gas(density: Read<f64>, energy: Read<f64>, pressure: Write<f64>, gamma: Global<f64>) {
//!     pressure[(0, 0)] = (gamma - 1.0) * density[(0, 0)] * energy[(0, 0)];
//! }
//!
//! let mut ops = ops_from_args(&OpsArgs::default())?;
//! let grid = ops.block("grid", 2)?;
//! let halo = Halo::new([-2, -2], [2, 2]);
//! let dens = ops.dat::<f64, 2>(&grid, "density0", [64, 64], halo)?;
//! let ener = ops.dat::<f64, 2>(&grid, "energy0", [64, 64], halo)?;
//! let pres = ops.dat::<f64, 2>(&grid, "pressure", [64, 64], halo)?;
//! let point = ops.stencil("S2D_00", &[[0, 0]])?;
//! ops.par_loop(ideal_gas, "ideal_gas", &grid, [0..64, 0..64], &[
//!     dens.arg(&point, Read),
//!     ener.arg(&point, Read),
//!     pres.arg(&point, Write),
//!     Arg::global(1.4_f64),
//! ])?;
//! let p = ops.fetch_data(&pres)?;
//! # Ok::<(), OpsError>(())
//! ```
//!
//! Modules: [`kernel`](mod@kernel) is the contract with generated code, [`backend`] the interface to
//! execution backends (the `ops-backends` crate provides `seq` and `rayon`), [`exec`] the shared
//! host executor that makes reductions bitwise reproducible, [`observer`] the hook point for
//! resilience, [`config`] the `--ops-*` flags.

#![warn(missing_docs)]
// Loops over the (at most three) dimensions index several arrays at once.
#![allow(clippy::needless_range_loop)]

// Generated code names the runtime `::ops_core` (or `::ops::ops_core`); this makes the first
// form resolve inside this crate too.
extern crate self as ops_core;

pub mod backend;
mod boundary;
pub mod config;
mod digest;
pub mod error;
pub mod exec;
mod handles;
pub mod kernel;
pub mod observer;
mod ops;
mod plan_cache;
pub mod profile;
pub mod testing;
pub mod units;
mod validate;

pub use backend::{ArgPlan, Backend, Comm, DatArgPlan, DatLayout, LoopCall, LoopPlan};
pub use boundary::{Boundary, Centring, Face};
pub use config::{BackendKind, OpsArgs, OpsConfig};
pub use error::{OpsError, Result};
pub use handles::{
    Arg, ArgView, Block, BlockId, Dat, DatId, DatSpec, Halo, IterRange, Reduction, ReductionId,
    Stencil, StencilId,
};
pub use kernel::{Access, ElemType, Element, ReduceOp, Scalar};
pub use observer::{Hooks, LoopAction, LoopObserver, ObserverError, Query, Ran, Runtime};
pub use ops::{DatDesc, Ops};
pub use ops_macros::{kernel, kernel_const, kernel_fn};
pub use profile::LoopProfile;

/// Access modes as values, for [`Dat::arg`]: `dens.arg(&point, Read)`.
///
/// They share their names with the kernel parameter marker types ([`kernel::Read`], ...), which
/// live in the type namespace only, so one import brings both: `Read` is a value in
/// `dens.arg(&s, Read)` and a type in `fn k(d: Read<f64>)`.
pub mod access {
    pub use crate::kernel::Access;

    /// Read only, at any offset of the stencil.
    #[allow(non_upper_case_globals)]
    pub const Read: Access = Access::Read;
    /// Written at the centre point, never read.
    #[allow(non_upper_case_globals)]
    pub const Write: Access = Access::Write;
    /// Read and written at the centre point.
    #[allow(non_upper_case_globals)]
    pub const ReadWrite: Access = Access::ReadWrite;
    /// Incremented at the centre point.
    #[allow(non_upper_case_globals)]
    pub const Inc: Access = Access::Inc;
}

/// Everything an application needs: `use ops_core::prelude::*;` (or `ops_backends::prelude`,
/// which adds the backend constructors).
pub mod prelude {
    pub use crate::access::{Inc, Read, ReadWrite, Write};
    pub use crate::kernel::{Global, Idx, Inc, Max, Min, Read, ReadWrite, Sum, Write};
    pub use crate::{
        kernel, kernel_const, kernel_fn, Access, Arg, BackendKind, Block, Boundary, Centring, Dat,
        DatSpec, Element, Face, Halo, IterRange, Ops, OpsArgs, OpsConfig, OpsError, ReduceOp,
        Reduction, Result, Stencil,
    };
}
