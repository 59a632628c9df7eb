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
//! [`LoopObserver::skip_unvalidated`] and [`LoopObserver::after_loop`] are optional: an
//! observer that needs them only now and then (the resilience layer, while replaying) says so
//! with [`Runtime::set_hooks`], and the other loops are spared the calls.
//!
//! An observer that knows which loops come next can say so ([`Runtime::expect`]): loops of
//! the call shapes it expects, in order, then run without calling it, and the runtime tells
//! it how many did, with the global constants they were given and, if it asked, the reduction
//! results handed out meanwhile ([`LoopObserver::ran_as_expected`]), before it next calls it.
//! A time step whose tracking the observer has summarised costs a comparison per loop instead
//! of a call.
//!
//! Observers are `Any`, so code that installed one can reach it again through
//! [`Ops::observer_mut`] and [`Ops::with_observer`] (the resilience layer's user API does
//! this).
//!
//! The hooks receive a [`Runtime`] rather than the plain [`Ops`]: besides everything a program
//! may do, it can copy data in and out without anyone being told (snapshots and restores) and
//! set reductions' running values. Only the runtime makes one, for its observer, so an
//! application cannot change data behind the tracker's back.

use std::any::Any;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use crate::backend::{ArgPlan, LoopCall, LoopPlan, PendingBytes};
use crate::handles::{DatId, IterRange, ReductionId};
use crate::kernel::Scalar;
use crate::{Ops, OpsError, Result};

/// The runtime as an observer's hooks see it: [`Ops`] (through `Deref`) plus the operations that
/// exist only for observers.
pub struct Runtime<'a> {
    ops: &'a mut Ops,
}

impl<'a> Runtime<'a> {
    /// Only the runtime hands one out, to its observer.
    pub(crate) fn new(ops: &'a mut Ops) -> Self {
        Runtime { ops }
    }

    /// Copies the points of `range` (any box inside the dataset, halo included) of dataset
    /// `id` into `out` as bytes (components interleaved, x fastest; `out` must have exactly the
    /// box's size). Not reported to the observer: this is how an observer snapshots data.
    pub fn download_bytes(&mut self, id: DatId, range: &IterRange, out: &mut [u8]) -> Result<()> {
        self.ops.download_bytes(id, range, out)
    }

    /// Copies `bytes` (the points of `range`, components interleaved, x fastest) into dataset
    /// `id`. Not reported to the observer: this is how an observer restores data.
    pub fn upload_bytes(&mut self, id: DatId, range: &IterRange, bytes: &[u8]) -> Result<()> {
        self.ops.upload_bytes(id, range, bytes)
    }

    /// Copies the points of `range`, inside this process's [owned part](Ops::owned_part), of
    /// dataset `id` into `out` without talking to other processes: what a checkpoint saves.
    pub fn download_owned_bytes(
        &mut self,
        id: DatId,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        self.ops.download_owned_bytes(id, range, out)
    }

    /// Starts copying the points of `range` of dataset `id` to the host without waiting
    /// ([`Backend::begin_download`](crate::Backend::begin_download)); `None` when the backend
    /// has no transfer to overlap (use [`Runtime::download_owned_bytes`]).
    pub fn begin_download_bytes(
        &mut self,
        id: DatId,
        range: &IterRange,
    ) -> Result<Option<PendingBytes>> {
        self.ops.begin_download_bytes(id, range)
    }

    /// Every reduction's running value (what loops folded in since its last result), with its
    /// name, in declaration order. A checkpoint taken between a loop and the
    /// `reduction_result` that reads it must carry these.
    pub fn reduction_values(&self) -> Vec<(&str, Scalar)> {
        self.ops.reduction_values()
    }

    /// Sets the running value of the reduction declared `index`-th (restoring a checkpoint).
    /// The value must have the reduction's type.
    pub fn set_reduction_value(&mut self, index: usize, value: Scalar) -> Result<()> {
        self.ops.set_reduction_value(index, value)
    }

    /// Says which optional hooks to call from the next loop on (all, until an observer says
    /// otherwise; installing an observer calls all again). An observer that needs
    /// [`LoopObserver::skip_unvalidated`] or [`LoopObserver::after_loop`] only now and then
    /// spares every other loop the calls.
    pub fn set_hooks(&mut self, hooks: Hooks) {
        self.ops.hooks = hooks;
    }

    /// Says that the next loops will have the call shapes `shapes[from..to]`
    /// ([`LoopPlan::shape`]), in order: while they do, they run without
    /// [`LoopObserver::before_loop`] (nor any other hook but
    /// [`LoopObserver::skip_unvalidated`], asked before the shape is known), and the runtime
    /// tells the observer what ran, with their global constants' values (a shape fixes the
    /// arguments but not those), ([`LoopObserver::ran_as_expected`]) before it next calls any
    /// of its hooks or hands it out ([`Ops::observer_mut`], [`Ops::with_observer`]). With
    /// `keep_results`, the reduction results the program asks for until then are handed out
    /// without [`LoopObserver::on_query`] and told with the loops (for an observer that only
    /// logs them: it can neither see them first nor change them).
    ///
    /// A loop run while the observer is out of the runtime (by one of its own hooks) is not
    /// counted, as it is not shown to the observer either, and ends the expectation. It ends
    /// at the first loop of another shape (that loop is shown to `before_loop` as usual), at
    /// `to`, and before any other hook that is given a `Runtime` runs, but the `after_loop`
    /// of the loop whose hook set it (each may set another; an empty range expects nothing);
    /// the hooks given none ([`LoopObserver::on_query`], [`LoopObserver::on_set`],
    /// `skip_unvalidated`) leave it, so what an observer expects must not depend on what they
    /// see. `to` is clamped to `shapes.len()`.
    pub fn expect(&mut self, shapes: &Arc<[u32]>, from: usize, to: usize, keep_results: bool) {
        self.ops.expected.set(shapes, from, to, keep_results);
    }
}

/// What the observer expects of the next loops ([`Runtime::expect`]), and how far they went.
pub(crate) struct Expected {
    shapes: Arc<[u32]>,
    /// The next loop expected, and the end.
    next: usize,
    end: usize,
    /// Where the observer was last told the loops had got to.
    told: usize,
    /// The global constants of the loops run since, in order.
    pub(crate) globals: Vec<Scalar>,
    /// Reduction results are kept until the telling ([`Runtime::expect`]), and those kept.
    pub(crate) keep_results: bool,
    pub(crate) results: Vec<(ReductionId, Scalar)>,
}

impl Default for Expected {
    fn default() -> Self {
        Expected {
            shapes: Arc::from([]),
            next: 0,
            end: 0,
            told: 0,
            globals: Vec::new(),
            keep_results: false,
            results: Vec::new(),
        }
    }
}

impl Expected {
    fn set(&mut self, shapes: &Arc<[u32]>, from: usize, to: usize, keep_results: bool) {
        if !Arc::ptr_eq(&self.shapes, shapes) {
            self.shapes = Arc::clone(shapes);
        }
        self.end = to.min(shapes.len());
        self.next = from.min(self.end);
        self.told = self.next;
        self.keep_results = keep_results;
    }

    /// Whether loop `plan` is the next one expected (it is then counted, and its global
    /// constants kept for the telling).
    #[inline(always)]
    pub(crate) fn take(&mut self, plan: &LoopPlan<'_>) -> bool {
        let hit = self.next < self.end && plan.shape == Some(self.shapes[self.next]);
        self.next += usize::from(hit);
        if hit && plan.has_globals {
            self.keep_globals(plan);
        }
        hit
    }

    #[inline(never)]
    fn keep_globals(&mut self, plan: &LoopPlan<'_>) {
        self.globals
            .extend(plan.args().iter().filter_map(ArgPlan::global));
    }

    /// The loops that ran as expected since the observer was last told, and whether the
    /// expectation ends here (`end`).
    #[inline]
    pub(crate) fn untold(&mut self, end: bool) -> usize {
        let n = self.next - self.told;
        self.told = self.next;
        if end {
            self.end = self.next;
            self.keep_results = false;
        }
        n
    }
}

/// What ran as the observer expected ([`Runtime::expect`]) since it was last told
/// ([`LoopObserver::ran_as_expected`]).
pub struct Ran<'a> {
    /// Loops run.
    pub loops: usize,
    /// Their global constants' values, loop after loop, each loop's in argument order.
    pub globals: &'a [Scalar],
    pub(crate) results: &'a [(ReductionId, Scalar)],
    pub(crate) reductions: &'a [crate::ops::ReductionInfo],
}

impl<'a> Ran<'a> {
    /// The reduction results handed to the program meanwhile without
    /// [`LoopObserver::on_query`] (kept, as the observer asked), in order, with their
    /// reductions' names.
    pub fn results(&self) -> impl Iterator<Item = (ReductionId, &'a str, Scalar)> + 'a {
        let reductions = self.reductions;
        self.results
            .iter()
            .map(move |&(id, v)| (id, reductions[id.index()].name.as_str(), v))
    }
}

/// The optional hooks of a [`LoopObserver`] the runtime calls ([`Runtime::set_hooks`]); the
/// others are always called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hooks {
    /// [`LoopObserver::skip_unvalidated`], first in every `par_loop`.
    pub skip_unvalidated: bool,
    /// [`LoopObserver::after_loop`], after every loop.
    pub after_loop: bool,
}

/// Every hook called.
impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            skip_unvalidated: true,
            after_loop: true,
        }
    }
}

impl Deref for Runtime<'_> {
    type Target = Ops;
    fn deref(&self) -> &Ops {
        self.ops
    }
}

impl DerefMut for Runtime<'_> {
    fn deref_mut(&mut self) -> &mut Ops {
        self.ops
    }
}

/// An observer's refusal ([`OpsError::Observer`]): the observer's own error, kept whole as the
/// source, so callers can tell its kinds apart (`error.downcast_ref::<TheObserversError>()`).
#[derive(Debug, Clone)]
pub struct ObserverError(Arc<dyn std::error::Error + Send + Sync + 'static>);

impl ObserverError {
    /// Wraps the observer's error.
    pub fn new(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        ObserverError(Arc::new(e))
    }

    /// An error that is only a message.
    pub fn msg(message: impl Into<String>) -> Self {
        #[derive(Debug)]
        struct Message(String);
        impl std::fmt::Display for Message {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl std::error::Error for Message {}
        ObserverError::new(Message(message.into()))
    }

    /// The observer's error, if it is an `E`.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.0.downcast_ref::<E>()
    }
}

impl std::fmt::Display for ObserverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for ObserverError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Two refusals are equal when they say the same.
impl PartialEq for ObserverError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for ObserverError {}

/// What to do with a loop, as decided by [`LoopObserver::before_loop`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LoopAction {
    /// Run the loop normally.
    #[default]
    Run,
    /// Do not run the loop (its reductions receive nothing); `after_loop` is still called.
    Skip,
    /// The hook refused the loop: it does not run, and the `par_loop` call fails with
    /// [`LoopObserver::take_error`]'s error (asked only then, not after every loop).
    Refuse,
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
    fn before_loop(&mut self, rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        let _ = (rt, plan);
        LoopAction::Run
    }

    /// Called first in every `par_loop`, before validation. Returning true drops the call: it
    /// is not validated, not shown to [`before_loop`](LoopObserver::before_loop) or
    /// [`after_loop`](LoopObserver::after_loop), not run and not profiled, and `par_loop`
    /// returns `Ok(())`. An observer replaying a restarted run uses it to pass over the loops it
    /// skips anyway at almost no cost (it counts them, and checks each call against its log).
    /// `call` is the loop's call as the application made it. The default keeps every loop.
    fn skip_unvalidated(&mut self, call: &LoopCall<'_>) -> bool {
        let _ = call;
        false
    }

    /// Called after a loop ran (or was skipped), with its reductions already folded in.
    fn after_loop(&mut self, rt: &mut Runtime<'_>, plan: &LoopPlan<'_>, action: LoopAction) {
        let _ = (rt, plan, action);
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
    fn before_set(&mut self, rt: &mut Runtime<'_>, dat: DatId, range: &IterRange) {
        let _ = (rt, dat, range);
    }

    /// Called once when the program is done with the runtime: by [`Ops::finish`], or when the
    /// runtime is dropped without it. A checkpointing observer flushes its store here.
    fn finish(&mut self, rt: &mut Runtime<'_>) {
        let _ = rt;
    }

    /// Loops ran as the observer expected ([`Runtime::expect`]) since it was last called, or
    /// reduction results were handed out without it: told before any other hook, and before
    /// the runtime hands the observer out.
    fn ran_as_expected(&mut self, ran: &Ran<'_>) {
        let _ = ran;
    }

    /// Asked after every hook but `before_loop` (and after `before_loop` only when it answers
    /// [`LoopAction::Refuse`]): an error here makes the runtime call that ran the hook fail
    /// with it (a refused loop does not run, and `after_loop` is not called).
    fn take_error(&mut self) -> Option<OpsError> {
        None
    }
}
