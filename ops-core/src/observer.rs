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
//!
//! Besides those, [`LoopObserver::before_set`] runs before user data overwrites a dataset (so
//! an observer can save the old values first), [`LoopObserver::finish`] runs once at the end
//! ([`Ops::finish`], or when the runtime is dropped), and after every hook the runtime asks
//! [`LoopObserver::take_error`] whether the hook refused the call: if so, the runtime call
//! (`par_loop`, `reduction_result`, `fetch_*`, `set_*`, `finish`) returns that error.
//!
//! Observers are `Any`, so code that installed one can reach it again through
//! [`Ops::observer_mut`] (the resilience layer's user API does this).

use std::any::Any;

use crate::backend::LoopPlan;
use crate::handles::{DatId, IterRange, ReductionId};
use crate::kernel::Scalar;
use crate::{Ops, OpsError};

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
pub trait LoopObserver: Any + Send {
    /// Called for every validated loop before it runs. `plan` lists each argument with its
    /// dataset id, access mode and the box it may touch (range grown by the stencil).
    fn before_loop(&mut self, ops: &mut Ops, plan: &LoopPlan<'_>) -> LoopAction {
        let _ = (ops, plan);
        LoopAction::Run
    }

    /// Called first in every `par_loop`, before validation. Returning true drops the call: it
    /// is not validated, not shown to [`before_loop`](LoopObserver::before_loop) or
    /// [`after_loop`](LoopObserver::after_loop), not run and not profiled, and `par_loop`
    /// returns `Ok(())`. An observer replaying a restarted run uses it to pass over the loops it
    /// skips anyway at almost no cost (it counts them itself). The default keeps every loop.
    fn skip_unvalidated(&mut self) -> bool {
        false
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

    /// Called before user data overwrites `range` of `dat` (`set_data`, `set_range`, a dataset's
    /// initial values), while the old values are still there.
    fn before_set(&mut self, ops: &mut Ops, dat: DatId, range: &IterRange) {
        let _ = (ops, dat, range);
    }

    /// Called once when the program is done with the runtime: by [`Ops::finish`], or when the
    /// runtime is dropped without it. A checkpointing observer flushes its store here.
    fn finish(&mut self, ops: &mut Ops) {
        let _ = ops;
    }

    /// Asked after every hook: an error here makes the runtime call that ran the hook fail with
    /// it (a loop refused in `before_loop` does not run, and `after_loop` is not called).
    fn take_error(&mut self) -> Option<OpsError> {
        None
    }
}
