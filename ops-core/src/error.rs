//! Errors the runtime reports.
//!
//! Every check `par_loop` performs has its own variant, so callers (and tests) can tell exactly
//! what was wrong; each message names the loop, the argument position, the kernel parameter and
//! the dataset and stencil involved.

use crate::kernel::{Access, ElemType, ParamKind, ReduceOp};

/// The runtime's result type; the error defaults to [`OpsError`].
pub type Result<T, E = OpsError> = std::result::Result<T, E>;

/// Everything that can go wrong in a runtime call.
///
/// Loop-validation variants carry `loop_name` (the name given to `par_loop`), `arg` (the argument
/// position, counted from 0) and `param` (the kernel parameter's name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OpsError {
    /// A floating-point reduction's result is NaN or infinite (with `--ops-check-finite`).
    #[error(
        "reduction `{reduction}`: the result is {value} (--ops-check-finite): the computation \
         has broken down before this point"
    )]
    NotFinite {
        /// The reduction's name.
        reduction: Box<str>,
        /// The value.
        value: Box<str>,
    },

    /// A block must have 1, 2 or 3 dimensions.
    #[error("block `{block}`: {dims} dimensions requested, blocks have 1, 2 or 3")]
    InvalidBlockDims {
        /// Block name.
        block: Box<str>,
        /// Requested dimension count.
        dims: usize,
    },

    /// A handle (block, dataset, stencil, reduction) was made by another runtime instance or
    /// refers to something freed.
    #[error("{what}: handle does not belong to this runtime (made by another `Ops`, or freed)")]
    ForeignHandle {
        /// Which kind of handle, and its name where known.
        what: Box<str>,
    },

    /// A dataset's size (or halo, or base) has a different dimension count than its block.
    #[error(
        "dataset `{dat}`: {given}-dimensional size on {block_dims}-dimensional block `{block}`"
    )]
    DatDimsMismatch {
        /// Dataset name.
        dat: Box<str>,
        /// Block name.
        block: Box<str>,
        /// The block's dimension count.
        block_dims: usize,
        /// The dimension count given.
        given: usize,
    },

    /// A dataset's size is zero, or too large to index with `i32`/`isize`.
    #[error("dataset `{dat}`: invalid size {size:?}: {reason}")]
    InvalidDatSize {
        /// Dataset name.
        dat: Box<str>,
        /// The size given.
        size: Vec<usize>,
        /// Why it is invalid.
        reason: &'static str,
    },

    /// A halo depth has the wrong sign (negative side must be ≤ 0, positive side ≥ 0).
    #[error(
        "dataset `{dat}`: halo in dimension {dim} is [{neg}, {pos}]; the negative side must be ≤ 0 \
         and the positive side ≥ 0 (e.g. Halo::new([-2, -2], [2, 2]))"
    )]
    InvalidHalo {
        /// Dataset name.
        dat: Box<str>,
        /// Dimension.
        dim: usize,
        /// Negative-side depth given.
        neg: i32,
        /// Positive-side depth given.
        pos: i32,
    },

    /// A dataset has zero components per point.
    #[error("dataset `{dat}`: {components} components per point; at least 1 is needed")]
    InvalidComponents {
        /// Dataset name.
        dat: Box<str>,
        /// The count given.
        components: usize,
    },

    /// Another dataset of the same name already exists on the block.
    #[error("dataset `{dat}` already exists on block `{block}`")]
    DuplicateDat {
        /// Dataset name.
        dat: Box<str>,
        /// Block name.
        block: Box<str>,
    },

    /// A data slice (initial values, `set_data`, `set_range`) has the wrong length.
    #[error("dataset `{dat}`: {what} has {got} elements, expected {expected}")]
    DataLength {
        /// Dataset name.
        dat: Box<str>,
        /// Which call or argument.
        what: &'static str,
        /// Elements expected (points × components).
        expected: usize,
        /// Elements given.
        got: usize,
    },

    /// A `set_range`/`fetch_range` box is not inside the dataset (including its halo), has the
    /// wrong dimension count or is inverted.
    #[error("dataset `{dat}`: range {range} is not inside its extent {extent} (halo included)")]
    DataRangeOutside {
        /// Dataset name.
        dat: Box<str>,
        /// The range given.
        range: Box<str>,
        /// The dataset's extent, halo included.
        extent: Box<str>,
    },

    /// A stencil definition is invalid (no points, bad dimension count or stride).
    #[error("stencil `{stencil}`: {reason}")]
    InvalidStencil {
        /// Stencil name.
        stencil: Box<str>,
        /// What is wrong.
        reason: Box<str>,
    },

    /// A boundary fill ([`Ops::fill_halo`](crate::Ops::fill_halo)) cannot be done as asked.
    #[error("boundary fill of dataset `{dat}` on face {face}: {reason}")]
    InvalidBoundary {
        /// Dataset name.
        dat: Box<str>,
        /// The face (`x-`, `y+`, ...).
        face: Box<str>,
        /// What is wrong, and what to do instead.
        reason: Box<str>,
    },

    /// A configuration value is invalid.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),

    /// The number of `par_loop` arguments differs from the kernel's parameter count.
    #[error("par_loop `{loop_name}`: kernel `{kernel}` takes {expected} parameters, {got} arguments given")]
    ArgCount {
        /// Loop name.
        loop_name: Box<str>,
        /// Kernel name.
        kernel: Box<str>,
        /// Parameter count.
        expected: usize,
        /// Argument count.
        got: usize,
    },

    /// An argument is of the wrong kind (dataset where a global is expected, etc.).
    #[error("par_loop `{loop_name}`: argument {arg} (`{param}`) expects a {expected}, got {got}")]
    ArgKind {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// What the parameter takes.
        expected: ParamKind,
        /// What was given, in words.
        got: Box<str>,
    },

    /// A dataset argument's access mode differs from the kernel parameter's.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): dataset `{dat}` passed with access \
         {got}, the kernel declares {expected}"
    )]
    AccessMismatch {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// The kernel's access mode.
        expected: Access,
        /// The access mode given.
        got: Access,
    },

    /// An argument's element type differs from the kernel parameter's.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): {what} holds {got}, the kernel \
         expects {expected}"
    )]
    TypeMismatch {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// The dataset, global or reduction, in words.
        what: Box<str>,
        /// The kernel's element type.
        expected: ElemType,
        /// The argument's element type.
        got: ElemType,
    },

    /// A reduction argument's operation differs from the kernel parameter's.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): reduction `{reduction}` is a {got} \
         reduction, the kernel declares {expected}"
    )]
    ReduceOpMismatch {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Reduction name.
        reduction: Box<str>,
        /// The kernel's operation.
        expected: ReduceOp,
        /// The reduction's operation.
        got: ReduceOp,
    },

    /// A dataset argument lives on another block than the loop's.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): dataset `{dat}` is on block \
         `{dat_block}`, the loop runs over block `{loop_block}`"
    )]
    DatOnOtherBlock {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// The dataset's block.
        dat_block: Box<str>,
        /// The loop's block.
        loop_block: Box<str>,
    },

    /// A stencil's dimension count differs from the block's.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): stencil `{stencil}` is \
         {stencil_dims}-dimensional, block `{block}` is {block_dims}-dimensional"
    )]
    StencilDims {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Stencil name.
        stencil: Box<str>,
        /// Stencil dimension count.
        stencil_dims: usize,
        /// Block name.
        block: Box<str>,
        /// Block dimension count.
        block_dims: usize,
    },

    /// The kernel body's offsets have a different dimension count than the block.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): the kernel uses {offset_dims}-dimensional \
         offsets, the block is {block_dims}-dimensional"
    )]
    OffsetDims {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// The kernel's offset dimension count.
        offset_dims: usize,
        /// Block dimension count.
        block_dims: usize,
    },

    /// The kernel body uses an offset the declared stencil does not contain.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): the kernel reads dataset `{dat}` at \
         offset {offset}, which stencil `{stencil}` does not contain"
    )]
    OffsetNotInStencil {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// Stencil name.
        stencil: Box<str>,
        /// The offending offset, e.g. `(1, 0)`.
        offset: Box<str>,
    },

    /// The kernel writes a dataset at an offset other than the centre point (writes at other
    /// points would race between iteration points).
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): the kernel accesses dataset `{dat}` \
         ({access}) at offset {offset}; written datasets may only be accessed at the centre"
    )]
    WriteOffCentre {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// The access mode.
        access: Access,
        /// The offending offset.
        offset: Box<str>,
    },

    /// The kernel touches more components than the dataset has.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): the kernel uses {needed} components \
         of dataset `{dat}`, which has {has}"
    )]
    Components {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// Components the kernel uses.
        needed: u32,
        /// Components the dataset has.
        has: usize,
    },

    /// The iteration range has a different dimension count than the block.
    #[error(
        "par_loop `{loop_name}`: {range_dims}-dimensional range on {block_dims}-dimensional block `{block}`"
    )]
    RangeDims {
        /// Loop name.
        loop_name: Box<str>,
        /// Block name.
        block: Box<str>,
        /// The range's dimension count.
        range_dims: usize,
        /// The block's dimension count.
        block_dims: usize,
    },

    /// The iteration range is inverted (lo > hi) in some dimension.
    #[error("par_loop `{loop_name}`: range is inverted in dimension {dim}: {lo}..{hi}")]
    RangeInverted {
        /// Loop name.
        loop_name: Box<str>,
        /// Dimension.
        dim: usize,
        /// Lower bound.
        lo: i32,
        /// Upper bound.
        hi: i32,
    },

    /// The iteration range itself (before any stencil offset) leaves a dataset's extent, halo
    /// included: the range is wrong.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): the range {lo}..{hi} in dimension \
         {dim} leaves dataset `{dat}`, whose extent there is {ext_lo}..{ext_hi} (halo included)"
    )]
    RangeOutsideDat {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// Dimension.
        dim: usize,
        /// Range lower bound.
        lo: i64,
        /// Range upper bound (exclusive).
        hi: i64,
        /// Dataset extent lower bound.
        ext_lo: i64,
        /// Dataset extent upper bound (exclusive).
        ext_hi: i64,
    },

    /// The range is inside the dataset, but the range grown by the stencil's offsets reaches
    /// beyond its halo: the stencil (or the halo depth) is wrong.
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`): stencil `{stencil}` reaches \
         {lo}..{hi} in dimension {dim}, beyond the halo of dataset `{dat}` ({ext_lo}..{ext_hi})"
    )]
    StencilBeyondHalo {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// Stencil name.
        stencil: Box<str>,
        /// Dimension.
        dim: usize,
        /// Lowest point touched.
        lo: i64,
        /// One past the highest point touched.
        hi: i64,
        /// Dataset extent lower bound (halo included).
        ext_lo: i64,
        /// Dataset extent upper bound (exclusive, halo included).
        ext_hi: i64,
    },

    /// A dataset written by the loop also appears in another argument (a race).
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`) writes dataset `{dat}` ({access}), \
         which argument {other_arg} (`{other_param}`) also uses"
    )]
    Aliased {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position of the writing argument.
        arg: usize,
        /// Its kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// The writing access mode.
        access: Access,
        /// The other argument's position.
        other_arg: usize,
        /// The other argument's parameter name.
        other_param: Box<str>,
    },

    /// A dataset is written through a strided stencil whose stride is zero in a dimension the
    /// range spans more than one point of (several iteration points would write one element).
    #[error(
        "par_loop `{loop_name}`: argument {arg} (`{param}`) writes dataset `{dat}` through strided \
         stencil `{stencil}`, whose stride is 0 in dimension {dim}: iteration points would race"
    )]
    StridedWrite {
        /// Loop name.
        loop_name: Box<str>,
        /// Argument position.
        arg: usize,
        /// Kernel parameter name.
        param: Box<str>,
        /// Dataset name.
        dat: Box<str>,
        /// Stencil name.
        stencil: Box<str>,
        /// Dimension with zero stride.
        dim: usize,
    },

    /// The backend could not allocate a dataset's storage (too large for the device, out of
    /// memory); `source` is the backend's error.
    #[error("dataset `{dat}`: cannot allocate its storage ({declared}): {source}")]
    DatAlloc {
        /// Dataset name.
        dat: Box<str>,
        /// What the program had declared before it (total, largest datasets).
        declared: Box<str>,
        /// Why the backend refused.
        source: Box<OpsError>,
    },

    /// A backend failed.
    #[error("backend `{backend}`: {message}")]
    Backend {
        /// Backend name.
        backend: Box<str>,
        /// What failed.
        message: Box<str>,
    },

    /// The installed [`LoopObserver`](crate::LoopObserver) refused a call (reported through
    /// [`LoopObserver::take_error`](crate::LoopObserver::take_error)); for example a write to a
    /// dataset marked read-only, or a restarted run whose queries diverge from the log it
    /// replays.
    #[error("{0}")]
    Observer(#[source] crate::observer::ObserverError),
}
