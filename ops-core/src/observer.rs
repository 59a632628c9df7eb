//! The hook point for layers that watch the runtime (the resilience layer's tracker).
//!
//! Every `par_loop` passes, after validation, through one dispatch function that tells the
//! installed [`LoopObserver`] about the loop *before* it runs ([`LoopObserver::before_loop`],
//! which may answer [`LoopAction::Skip`], e.g. while replaying a restarted run) and after it ran
//! ([`LoopObserver::after_loop`]). Every value that leaves the runtime (a reduction result, fetched
//! data) passes through [`LoopObserver::on_query`], which may inspect or replace it, and every
//! `set_data`/`set_range` is reported to [`LoopObserver::on_set`].
//!
//! While a hook runs, the observer is taken out of the runtime, so the hook may call back into
//! [`Ops`] (fetch data to snapshot it, for example) without being re-entered.

use crate::backend::LoopPlan;
use crate::handles::{DatId, IterRange, ReductionId};
use crate::kernel::Scalar;
use crate::Ops;

/// What to do with a loop, as decided by [`LoopObserver::before_loop`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LoopAction {
    /// Run the loop normally.
    #[default]
    Run,
    /// Do not run the loop (its reductions receive nothing); `after_loop` is still called.
    Skip,
}

/// A value about to leave the runtime. The observer may read it or replace it.
#[derive(Debug)]
pub enum Query<'a> {
    /// `reduction_result`: the value about to be returned (the running value was just reset).
    Reduction {
        /// The reduction.
        id: ReductionId,
        /// Its name.
        name: &'a str,
        /// The value returned to the caller.
        value: &'a mut Scalar,
    },
    /// `fetch_data`/`fetch_range`: the bytes about to be returned.
    Fetch {
        /// The dataset.
        dat: DatId,
        /// Its name.
        name: &'a str,
        /// The box fetched.
        range: IterRange,
        /// The data (components interleaved, x fastest), as bytes.
        bytes: &'a mut [u8],
    },
}

/// Watches loops and queries. Every method has a no-op default.
pub trait LoopObserver: Send {
    /// Called for every validated loop before it runs. `plan` lists each argument with its
    /// dataset id, access mode and the box it may touch (range grown by the stencil).
    fn before_loop(&mut self, ops: &mut Ops, plan: &LoopPlan<'_>) -> LoopAction {
        let _ = (ops, plan);
        LoopAction::Run
    }

    /// Called after a loop ran (or was skipped), with its reductions already folded in.
    fn after_loop(&mut self, ops: &mut Ops, plan: &LoopPlan<'_>, action: LoopAction) {
        let _ = (ops, plan, action);
    }

    /// Called for every value handed to user space.
    fn on_query(&mut self, query: &mut Query<'_>) {
        let _ = query;
    }

    /// Called after user data was written into a dataset (`set_data`, `set_range`, or a
    /// dataset's initial values).
    fn on_set(&mut self, dat: DatId, range: &IterRange) {
        let _ = (dat, range);
    }
}
