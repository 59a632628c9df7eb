//! Repeated passes of the decided time step, tracked whole.
//!
//! A pass is the loops from an occurrence of the chosen location to the next. Once a pass
//! tracked loop by loop on the steady path repeated one of the two passes before it call shape
//! for call shape, it becomes a template. A later pass that starts from the state the template
//! needs (the verification state it started from; at each of its locations the latest call
//! shape its first call took for the previous one, and writes that change nothing) and calls
//! the same shapes does what the template did, shifted by the loops in between: the tracker
//! is deterministic. Such a pass logs each call as it comes (the log must hold every call in
//! order, with its constants) and defers the rest: the locations' counts, gaps and footprints,
//! the decision's check and the write record are applied once, when the pass ends, from the
//! template's summary; for a template whose pass leaves the state it needs, once for a whole
//! run of its passes, when something reads the state. A pass that departs from the template
//! goes on with a spare one that made the same calls so far, if one fits; else (another
//! shape, a longer or shorter pass, anything else happening) it has its deferred loops
//! tracked one by one, as the steady path would have, before the loop that differs: nothing
//! is ever guessed. The runtime runs the loops of such passes without the hook, across the
//! chosen location, and across the switches of templates taking turns in a fixed order
//! ([`cycle`]).

use std::sync::Arc;

use ops_core::{LoopPlan, Runtime, Scalar};

use super::Resilience;
use crate::calls::{CallLog, Recorded};
use crate::learn::VerifyState;
use crate::track::Footprint;
use cycle::{Cycle, RunOf};

mod cycle;

/// The longest pass tracked whole (a longer one is tracked loop by loop).
const MAX_PASS: usize = 4096;

/// Templates kept besides the one tried first.
const MAX_SPARE: usize = 3;

/// The most occurrences of the chosen location one expectation runs across
/// ([`Resilience::expect_rest`]; passes are timed two in [`super::checkpoint::PASS_TIMED`]).
const CROSSED: usize = 6;

/// The longest pass whose template is expected across occurrences of the chosen location.
const MAX_CROSSED_PASS: usize = 512;

/// Runs of pending passes kept before they are applied ([`Passes::pending`]).
const MAX_PENDING: usize = 64;

/// The longest period, in runs, of pending runs applied a period at a time.
const MAX_PERIOD: usize = 4;

/// A run of passes of one lazy template, one after another from loop `start`, not yet
/// applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    template: u64,
    start: u64,
    n: u64,
}

/// The shortest period (at most [`MAX_PERIOD`] runs) with which `runs` repeat, each run one
/// period on the same as the run a period before, moved on by the period's loops; with
/// those loops.
fn period_of(runs: &[Run]) -> Option<(usize, u64)> {
    (1..=MAX_PERIOD.min(runs.len() / 2)).find_map(|p| {
        let len = runs[p].start - runs[0].start;
        let repeats = runs.windows(p + 1).all(|w| {
            let (a, b) = (w[0], w[p]);
            a.template == b.template && a.n == b.n && b.start == a.start + len
        });
        repeats.then_some((p, len))
    })
}

/// A loop of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Step {
    /// The runtime's number of the call's shape.
    shape: u32,
    /// Its location.
    loc: u32,
    /// The location's previous call had the same logged shape.
    same: bool,
}

/// A location of a template pass.
struct PassLoc {
    loc: u32,
    /// Occurrences, and the offsets of the first and last from the pass's first loop.
    k: u64,
    first: u64,
    last: u64,
    /// Most loops between two of its occurrences in the pass.
    gap: u64,
    /// The logged shape its latest call must have at the pass's start (its first call in the
    /// pass is logged as one of that shape, after one of that shape), if any.
    requires: Option<u32>,
    /// The footprint of its last call in the pass.
    fp_end: Arc<Footprint>,
    /// Some call of it writes (its writes must be unchanged ones).
    writes: bool,
}

/// A loop of a template pass, with how its call is logged.
#[derive(Clone, Copy)]
struct Call {
    step: Step,
    /// What the call log knows of the shape.
    logged: Recorded,
    /// The logged shape if the call is logged by it alone (no constants, its location's
    /// previous shape).
    plain: Option<u32>,
}

/// A pass that repeated an earlier one, with what tracking it did and the state it needs at
/// its start.
struct Template {
    /// Its number among the templates made (pending runs name it by that).
    id: u64,
    calls: Vec<Call>,
    /// The calls' runtime shapes, as the runtime is told to expect them
    /// ([`Resilience::expect_rest`]): those of [`CROSSED`] + 1 passes, one after another, for
    /// a lazy template whose every call the runtime may run without the hook.
    shapes: Arc<[u32]>,
    /// For each call (and the pass's end), the first call from it on not logged as one of its
    /// location's previous shape ([`Step::same`]): the runtime runs the others without the
    /// hook, keeping their constants' values for the call log.
    expect_end: Vec<usize>,
    /// The call log's records of the calls logged as their locations' previous shapes, one
    /// after another, and where each call's begins (and the last's ends): what the plain
    /// loops ([`Call::plain`]) run without the hook log, and the calls with constants if
    /// they pass the values their shapes' previous calls passed (else their records hold
    /// the values).
    records: Vec<u8>,
    record_at: Vec<usize>,
    /// For each call (and the pass's end), the first call from it on that is not plain.
    next_with_values: Vec<usize>,
    /// A pass of it leaves what it requires at its start (it can follow itself without
    /// checking its locations again).
    self_repeating: bool,
    /// Self-repeating, and leaving the decision's verification state as it found it: a run
    /// of its passes can be applied at once, when something reads the state
    /// ([`Passes::pending`]).
    lazy: bool,
    locs: Vec<PassLoc>,
    /// Datasets written, with the offset of the last write.
    writes: Vec<(u32, u64)>,
    /// The decision's verification state at the pass's start and end.
    verify_start: VerifyState,
    verify_end: VerifyState,
}

impl Template {
    /// Logs calls `from..to`, run without the hook, with their constants' values the first of
    /// `values` (moved past them).
    #[inline]
    fn log_expected(&self, log: &mut CallLog, from: usize, to: usize, values: &mut &[Scalar]) {
        // Every call with constants has one at least: with none, all are plain.
        match values.is_empty() {
            true => {
                let records = &self.records[self.record_at[from]..self.record_at[to]];
                log.record_plain_run(records, to - from);
            }
            false => self.log_expected_values(log, from, to, values),
        }
    }

    /// [`Template::log_expected`] of calls some of which may pass constants.
    #[inline(never)]
    fn log_expected_values(
        &self,
        log: &mut CallLog,
        from: usize,
        to: usize,
        values: &mut &[Scalar],
    ) {
        // Calls passing the constants their shapes' previous calls passed (a time step's
        // size, in every inner iteration but the first) are recorded as the template holds
        // them: one copy for each stretch between calls whose constants changed.
        let (mut at, mut run) = (from, from);
        loop {
            let k = self.next_with_values[at];
            if k >= to {
                break;
            }
            let known = self.calls[k].logged;
            match log.passes_as_before(known, values) {
                Some(rest) => *values = rest,
                None => {
                    let before = &self.records[self.record_at[run]..self.record_at[k]];
                    log.record_plain_run(before, k - run);
                    log.record_changed(known, values);
                    run = k + 1;
                }
            }
            at = k + 1;
        }
        let rest = &self.records[self.record_at[run]..self.record_at[to]];
        log.record_plain_run(rest, to - run);
    }

    /// Whether `pass` calls the template's shapes at its locations, loop for loop.
    fn repeats(&self, pass: &[Step]) -> bool {
        self.calls.len() == pass.len() && self.calls.iter().zip(pass).all(|(c, s)| c.step == *s)
    }

    /// Whether the template made the calls `t` made before its `k`th, and makes one of shape
    /// `shape` next: a pass of `t` that calls `shape` there may go on as one of it.
    fn same_so_far(&self, t: &Template, k: usize, shape: u32) -> bool {
        self.calls.get(k).is_some_and(|c| c.step.shape == shape)
            && t.calls.get(..k).is_some_and(|before| {
                self.calls[..k]
                    .iter()
                    .zip(before)
                    .all(|(a, b)| a.step == b.step)
            })
    }

    /// A lazy template whose every call is logged as its location's previous shape: its
    /// passes may run without the hook across the chosen location ([`Template::shapes`]).
    fn crosses(&self) -> bool {
        self.shapes.len() > self.calls.len()
    }
}

/// The passes the engine has seen (see the module docs).
#[derive(Default)]
pub(super) struct Passes {
    /// Off in tests that compare with tracking loop by loop.
    pub off: bool,
    /// Index of the first loop after the latest occurrence of the chosen location on the
    /// steady path (`u64::MAX` before one).
    start: u64,
    /// The pass in progress, loop by loop, while every loop of it took the steady path with
    /// nothing but its indices changing (`whole`).
    cur: Vec<Step>,
    whole: bool,
    /// The verification state at its start.
    verify_start: VerifyState,
    /// The previous whole pass, and the one before.
    prev: Vec<Step>,
    prev2: Vec<Step>,
    /// The template tried first (the latest repeated or made), and the others.
    /// (Boxed: switching between templates moves pointers, not templates.)
    template: Option<Box<Template>>,
    #[allow(clippy::vec_box)]
    spare: Vec<Box<Template>>,
    /// The pass in progress repeats the template: loops deferred so far.
    pub active: bool,
    deferred: usize,
    /// The template's locations are as the template left them (the latest pass repeated it,
    /// or is it; they are as it requires if it is self-repeating), at tracker epoch
    /// `clean_epoch`.
    clean: bool,
    clean_epoch: u64,
    /// Passes of lazy templates that repeated them whole, one after another, not yet applied,
    /// in runs of one template each (a time step taking turns between templates is runs of
    /// each in turn): the engine's state is what it was before them but for the call log (and
    /// the verification state, which they leave as they found it). Any reader of the state
    /// settles the pass first ([`Resilience::settle_pass`]), which applies them, a period at
    /// a time where the runs repeat ([`Resilience::apply_pending`]).
    pending: Vec<Run>,
    /// The latest runs of passes of lazy templates repeated whole one after another (the
    /// last perhaps still going on), applied or not: what predicts the templates of the next
    /// passes where templates take turns ([`Passes::cycle_at`]).
    recent: Vec<RunOf>,
    /// The cycle of templates the latest runs repeat, as the runtime is told to expect it.
    cycle: Option<Box<Cycle>>,
    /// The position in `cycle` of the pass in progress, while passes follow it.
    cycle_pos: Option<usize>,
    /// That position while the runtime runs loops of the cycle as told (moved on at each
    /// chosen location the telling crosses).
    told: Option<usize>,
    /// Templates made.
    made: u64,
    /// Passes tracked whole, passes applied in runs of more than one and in periods of runs
    /// applied at once (tests), and passes cut short with loops deferred (tests and reports).
    pub repeated: u64,
    pub applied_in_runs: u64,
    pub applied_by_period: u64,
    pub cut: u64,
    /// Occurrences of the chosen location run without the hook, and switches from one
    /// template to another (tests).
    pub crossed: u64,
    pub switched_told: u64,
}

impl Passes {
    pub fn new() -> Passes {
        Passes {
            start: u64::MAX,
            ..Passes::default()
        }
    }

    /// The template numbered `id` (a pending run's: templates stay while runs name them).
    fn template_by_id(&self, id: u64) -> &Template {
        match self.find(id) {
            Some(t) => t,
            None => unreachable!("a pending run's template is kept"),
        }
    }

    /// The template numbered `id`, if it is kept.
    fn find(&self, id: u64) -> Option<&Template> {
        self.templates().find(|t| t.id == id)
    }

    /// The templates kept, the one tried first first.
    fn templates(&self) -> impl Iterator<Item = &Template> {
        self.template.iter().chain(&self.spare).map(|t| &**t)
    }

    /// Makes spare template `i` the one tried first (the other becomes a spare).
    fn promote(&mut self, i: usize) {
        let t = self.spare.swap_remove(i);
        let old = self.template.replace(t);
        self.spare.extend(old);
    }

    /// Whether a loop of runtime shape `shape` is the chosen location after a pass that
    /// repeated a lazy template whole, of the template's shapes: the run goes on (or begins,
    /// if the pass was its first). Whatever the steady path checks at the chosen location
    /// held when that pass began, and nothing that could change it has happened since (that
    /// would have ended the pass).
    #[inline]
    pub fn run_goes_on(&self, shape: u32) -> bool {
        self.template.as_ref().is_some_and(|t| {
            t.lazy && self.deferred == t.calls.len() && t.calls[0].step.shape == shape
        })
    }

    /// Forgets every pass (a restart restores other locations and shapes).
    pub fn forget(&mut self) {
        let off = self.off;
        *self = Passes::new();
        self.off = off;
    }
}

impl Resilience {
    /// The chosen location occurs at loop `index` on the steady path: the pass before it ends
    /// (applied whole if it repeated the template; else it may become the template), and the
    /// next begins with it.
    pub(super) fn end_pass(&mut self, index: u64) {
        let p = &mut self.passes;
        let complete = p.active
            && p.template
                .as_ref()
                .is_some_and(|t| t.calls.len() == p.deferred);
        if complete {
            let p = &mut self.passes;
            p.active = false;
            p.deferred = 0;
            let start = p.start;
            let (id, lazy) = match p.template.as_ref() {
                Some(t) => (t.id, t.lazy),
                None => unreachable!("a complete pass repeated a template"),
            };
            match lazy {
                true => {
                    p.note_recent(id);
                    match p.pending.last_mut().filter(|r| r.template == id) {
                        Some(r) => r.n += 1,
                        None => {
                            if p.pending.len() >= MAX_PENDING {
                                self.apply_pending();
                            }
                            let run = Run {
                                template: id,
                                start,
                                n: 1,
                            };
                            self.passes.pending.push(run);
                        }
                    }
                }
                false => {
                    p.forget_recent();
                    self.apply_pending();
                    self.apply_template(id, start, 1);
                }
            }
            self.passes.clean = true;
        } else {
            self.passes.forget_recent();
            self.settle_pass();
            self.conclude_pass();
        }
        let p = &mut self.passes;
        p.clean_epoch = self.track.epoch();
        p.cur.clear();
        p.whole = !p.off;
        p.start = index;
    }

    /// [`Resilience::end_pass`] of a pass not repeated whole: a whole pass equal to one of
    /// the two before (a time step alternating two kinds of pass, as directional sweeps that
    /// swap their order) becomes a template, unless one repeats it already.
    fn conclude_pass(&mut self) {
        let p = &mut self.passes;
        let whole = p.whole && !p.cur.is_empty() && p.cur.len() <= MAX_PASS;
        if whole {
            if let Some(i) = p.spare.iter().position(|t| t.repeats(&p.cur)) {
                p.promote(i);
            }
        }
        let known = whole && p.template.as_ref().is_some_and(|t| t.repeats(&p.cur));
        let repeated = whole && (p.cur == p.prev || p.cur == p.prev2);
        let made = repeated && !known && {
            let t = self.template_of_pass();
            let p = &mut self.passes;
            match t {
                Some(t) => {
                    p.made += 1;
                    // A cycle's switches hold among the templates it was made with.
                    p.cycle = None;
                    p.cycle_pos = None;
                    let old = p.template.replace(t);
                    p.spare.extend(old);
                    if p.spare.len() > MAX_SPARE {
                        p.spare.remove(0);
                    }
                    true
                }
                None => false,
            }
        };
        let p = &mut self.passes;
        // A whole pass of the template's steps leaves its locations as the template did.
        p.clean = known || made;
        std::mem::swap(&mut p.prev2, &mut p.prev);
        std::mem::swap(&mut p.prev, &mut p.cur);
        if !p.whole {
            p.prev.clear();
        }
    }

    /// The template of the pass just observed whole.
    fn template_of_pass(&self) -> Option<Box<Template>> {
        let p = &self.passes;
        let mut verify_end = VerifyState::default();
        if !self.learner.verify_state_into(&mut verify_end) {
            return None;
        }
        let mut at: Vec<u32> = Vec::new(); // by location: 1 + its index in `locs`
        let mut locs: Vec<PassLoc> = Vec::new();
        let mut writes: Vec<(u32, u64)> = Vec::new();
        let mut calls = Vec::with_capacity(p.cur.len());
        for (i, s) in p.cur.iter().enumerate() {
            let i = i as u64;
            let seen = self.shapes.get(s.shape as usize)?.as_ref()?;
            calls.push(Call {
                step: *s,
                logged: seen.logged,
                plain: seen.logged.plain().filter(|_| s.same),
            });
            for (d, _) in &seen.fp.writes {
                match writes.iter_mut().find(|(w, _)| w == d) {
                    Some(w) => w.1 = i,
                    None => writes.push((*d, i)),
                }
            }
            let l = s.loc as usize;
            if at.len() <= l {
                at.resize(l + 1, 0);
            }
            if at[l] == 0 {
                locs.push(PassLoc {
                    loc: s.loc,
                    k: 0,
                    first: i,
                    last: i,
                    gap: 0,
                    requires: calls
                        .last()
                        .filter(|c| c.step.same)
                        .map(|c| c.logged.shape()),
                    fp_end: Arc::clone(&seen.fp),
                    writes: false,
                });
                at[l] = locs.len() as u32;
            }
            let pl = &mut locs[at[l] as usize - 1];
            pl.gap = pl.gap.max(i - pl.last);
            pl.last = i;
            pl.k += 1;
            pl.writes |= !seen.fp.writes.is_empty();
            if !Arc::ptr_eq(&pl.fp_end, &seen.fp) {
                pl.fp_end = Arc::clone(&seen.fp);
            }
        }
        // What each location's latest call is now, as the pass left it.
        let self_repeating = locs.iter().all(|pl| {
            pl.requires
                .is_none_or(|r| self.track.calls.latest_shape(pl.loc) == Some(r))
        });
        let lazy = self_repeating && verify_end == p.verify_start;
        let mut expect_end = vec![calls.len(); calls.len() + 1];
        let mut next_with_values = expect_end.clone();
        for (i, c) in calls.iter().enumerate().rev() {
            expect_end[i] = if c.step.same { expect_end[i + 1] } else { i };
            next_with_values[i] = match c.plain {
                Some(_) => next_with_values[i + 1],
                None => i,
            };
        }
        let mut records = Vec::new();
        let mut record_at = vec![0];
        for c in &calls {
            if c.step.same {
                crate::calls::encode_plain(&mut records, c.logged.shape());
            }
            record_at.push(records.len());
        }
        Some(Box::new(Template {
            id: p.made,
            next_with_values,
            records,
            record_at,
            shapes: {
                let one = calls.iter().map(|c| c.step.shape);
                let crossing =
                    lazy && calls.len() <= MAX_CROSSED_PASS && expect_end[0] == calls.len();
                let times = if crossing { CROSSED + 1 } else { 1 };
                (0..times).flat_map(|_| one.clone()).collect()
            },
            expect_end,
            calls,
            self_repeating,
            lazy,
            locs,
            writes,
            verify_start: p.verify_start.clone(),
            verify_end,
        }))
    }

    /// At the first loop of a pass, of shape `shape`: whether it starts from the state a
    /// template requires (then that template is tried first, and the pass's loops are
    /// deferred while they repeat it, [`Resilience::repeat_loop`]); else the state is noted
    /// for the pass's own observation.
    pub(super) fn start_pass(&mut self, shape: u32) -> bool {
        let p = &self.passes;
        if p.active || p.off || !p.whole || self.index != p.start {
            return false;
        }
        let steady = !self.views.in_closure && self.track.locs.first_pass_recur.is_some();
        let clean = p.clean && p.clean_epoch == self.track.epoch();
        let first = |t: &Template| t.calls.first().is_some_and(|c| c.step.shape == shape);
        // A pass after pending ones of a lazy template finds the state they found.
        let run = |t: &Template| clean && t.lazy && !p.pending.is_empty();
        let found = match p.template.as_ref() {
            _ if !steady => None,
            Some(t) if first(t) && (run(t) || self.fits(t, clean, 0)) => Some(None),
            _ => p
                .spare
                .iter()
                .position(|t| first(t) && self.fits(t, false, 0))
                .map(Some),
        };
        match found {
            Some(spare) => {
                // Pending runs of other templates stay: `fits` reads nothing they change.
                if let Some(i) = spare {
                    self.passes.promote(i);
                }
                let p = &mut self.passes;
                p.active = true;
                p.deferred = 0;
                true
            }
            None => {
                let p = &mut self.passes;
                if !self.learner.verify_state_into(&mut p.verify_start) {
                    p.whole = false;
                }
                false
            }
        }
    }

    /// Whether the state now is what template `t` requires at its start (`clean`: the latest
    /// pass left what `t` left), but for the call shapes of the locations its first `from`
    /// calls make (a pass that made those calls as `t` does, deferred, is switching to `t`:
    /// they were checked at its start for the template it tried first, and deferred loops
    /// change nothing else).
    fn fits(&self, t: &Template, clean: bool, from: usize) -> bool {
        self.learner.verify_state_is(&t.verify_start)
            && ((clean && t.self_repeating)
                || t.locs.iter().all(|pl| {
                    (pl.first < from as u64
                        || pl
                            .requires
                            .is_none_or(|r| self.track.calls.latest_shape(pl.loc) == Some(r)))
                        && (!pl.writes || self.track.unchanged_now(pl.loc))
                }))
    }

    /// A loop of a pass repeating the template, taken before anything else when its shape is
    /// the template's next (or a spare's that made the same calls so far,
    /// [`Resilience::switch_template`]): its call is logged, the rest deferred (false,
    /// nothing done, for any other loop).
    #[inline(always)]
    pub(super) fn repeat_loop(&mut self, plan: &LoopPlan<'_>) -> bool {
        let p = &self.passes;
        let Some(t) = p.template.as_ref() else {
            return false;
        };
        match t.calls.get(p.deferred) {
            Some(c) if plan.shape == Some(c.step.shape) => self.repeat_call(c.plain, plan),
            // The first call's shape is one of the chosen location's, which begins a pass and
            // occurs nowhere else in one: the pass in progress ends here.
            _ if p.spare.is_empty() || plan.shape == Some(t.calls[0].step.shape) => false,
            _ => self.repeat_switched(plan),
        }
    }

    /// [`Resilience::repeat_loop`] of a call that is not the template's next.
    #[inline(never)]
    fn repeat_switched(&mut self, plan: &LoopPlan<'_>) -> bool {
        match self.switch_template(plan).map(|c| c.plain) {
            Some(plain) => self.repeat_call(plain, plan),
            None => false,
        }
    }

    /// [`Resilience::repeat_loop`] of the template's next call (`plain`: [`Call::plain`]).
    #[inline(always)]
    fn repeat_call(&mut self, plain: Option<u32>, plan: &LoopPlan<'_>) -> bool {
        let index = self.index;
        self.index += 1;
        self.inject(index, plan);
        // Datasets declared since are learnt by the next loop tracked: none of the template's
        // footprints names them.
        match plain {
            Some(s) => self.track.calls.record_plain(s),
            None if !self.repeat_logged(index, plan) => return true,
            None => {}
        }
        self.passes.deferred += 1;
        true
    }

    /// Tells the runtime which loops come next while a pass repeats the template: the
    /// template's next calls logged as one of their location's previous shape (by the shape
    /// alone, or with their constants' values), up to the loop a failure is injected at. While the loops have those shapes the runtime runs them without the hook, and
    /// [`Resilience::repeat_expected`] does for them what [`Resilience::repeat_call`] would
    /// have.
    pub(super) fn expect_rest(&mut self, rt: &mut Runtime<'_>) {
        self.passes.told = None;
        if !(self.passes.active && self.expect && !self.phase.replaying()) {
            return;
        }
        // Loops before the one a failure is injected at.
        let mut room = usize::MAX;
        let inject = &self.cfg.inject;
        for at in [inject.loop_index, inject.sigterm_at].into_iter().flatten() {
            if at >= self.index {
                room = room.min(usize::try_from(at - self.index).unwrap_or(usize::MAX));
            }
        }
        if self.expect_cycle(rt, room) {
            return;
        }
        let p = &self.passes;
        let Some(t) = p.template.as_ref() else {
            return;
        };
        let from = p.deferred;
        let Some(&end) = t.expect_end.get(from) else {
            return;
        };
        let len = t.calls.len();
        // Across the chosen location, where the hook would only end and count the pass.
        let to = match t.crosses() && end == len {
            true => end + len * self.passes_without_checkpoint(CROSSED as u64) as usize,
            false => end,
        };
        let to = to.min(from.saturating_add(room));
        if to > from {
            // Results are logged in order whenever they are told, unless the learner records
            // where they come.
            rt.expect(&t.shapes, from, to, !self.learner.recording());
        }
    }

    /// `n` loops ran as [`Resilience::expect_rest`] told the runtime to expect, with the
    /// constants `globals`: the template's next calls, each logged as one of its location's
    /// previous shape, the rest deferred; across the chosen location, its pass counted as its
    /// hook would have.
    pub(super) fn repeat_expected(&mut self, n: usize, globals: &[Scalar]) {
        let (mut left, mut values) = (n, globals);
        loop {
            // In a cycle told, up to the call where the pass switches to its own template.
            let upto = self.passes.switch_told();
            let p = &mut self.passes;
            let from = p.deferred;
            let to = match p.template.as_ref() {
                // Up to the end of the pass, where the runtime crossed the chosen location.
                Some(t) if p.active && (t.expect_end[from] > from || from == t.calls.len()) => {
                    let to = t.expect_end[from].min(from + left).min(upto);
                    t.log_expected(&mut self.track.calls, from, to, &mut values);
                    to
                }
                _ => unreachable!("loops ran as expected only while a pass repeats the template"),
            };
            p.deferred = to;
            self.index += (to - from) as u64;
            left -= to - from;
            if left == 0 {
                break;
            }
            if to == upto {
                continue; // the pass switches to its own template
            }
            if p.template.as_ref().is_none_or(|t| to != t.calls.len()) {
                unreachable!("loops run as expected cross the chosen location only after a pass");
            }
            self.cross_chosen_location();
            if let Some(q) = self.passes.told.as_mut() {
                *q += 1;
            }
        }
        self.expected_loops += n as u64;
    }

    /// The chosen location, run without the hook after a complete pass of a run of a lazy
    /// template ([`Resilience::passes_without_checkpoint`]): what the hook would do there
    /// ([`Resilience::next_pass_of_run`]) with no checkpoint due and the pass untimed.
    fn cross_chosen_location(&mut self) {
        let (loc, shape) = match self.passes.template.as_ref() {
            Some(t) => (t.calls[0].step.loc, t.calls[0].step.shape),
            None => unreachable!("a pass repeats a template"),
        };
        self.end_pass(self.index);
        self.ck.count_pass(self.clock.stall);
        self.count_suspect(loc);
        let started = self.start_pass(shape);
        debug_assert!(
            started,
            "a pass of a run of a lazy template starts repeating it"
        );
        self.passes.crossed += 1;
    }

    /// A pass repeating the template calls another shape than the template's next (or one
    /// more): a spare template that made the same calls so far and makes this one next takes
    /// the template's place if the state at the pass's start fits it (a time step taking turns
    /// between kinds that differ after their first loop); its next call, if one does.
    #[inline(never)]
    fn switch_template(&mut self, plan: &LoopPlan<'_>) -> Option<&Call> {
        let p = &self.passes;
        let (t, k, shape) = (p.template.as_ref()?, p.deferred, plan.shape?);
        if !p.active || k == 0 {
            return None;
        }
        let i = p
            .spare
            .iter()
            .position(|s| s.same_so_far(t, k, shape) && self.fits(s, false, k))?;
        self.passes.promote(i);
        self.passes.template.as_ref()?.calls.get(k)
    }

    /// [`Resilience::repeat_loop`] of a call logged with its constants or after another
    /// shape: logs it; false (and the loop tracked as the steady path would) if its
    /// location's previous call was not as in the template.
    #[inline(never)]
    fn repeat_logged(&mut self, index: u64, plan: &LoopPlan<'_>) -> bool {
        let p = &self.passes;
        let c = match p.template.as_ref() {
            Some(t) => t.calls[p.deferred],
            None => unreachable!("a pass repeats a template"),
        };
        let Step { shape, loc, .. } = c.step;
        let same = self.track.calls.record_known(loc, c.logged, plan);
        if same == c.step.same {
            return true;
        }
        self.track_logged(shape, loc, index, same);
        false
    }

    /// A loop on the steady path whose call is logged, not deferred: the pass's deferred
    /// loops tracked first, then this one, noted in the pass's observation.
    pub(super) fn track_logged(&mut self, shape: u32, loc: u32, index: u64, same: bool) {
        self.settle_pass();
        self.steady_loops += 1;
        let fp = self.shape_fp(shape);
        let quiet = self.track_steady(loc, index, fp, same);
        self.observe_step(shape, loc, same, quiet);
    }

    /// The footprint of a call shape seen before.
    fn shape_fp(&self, shape: u32) -> Arc<Footprint> {
        match self.shapes.get(shape as usize) {
            Some(Some(seen)) => Arc::clone(&seen.fp),
            _ => unreachable!("a steady loop's shape was seen"),
        }
    }

    /// Tracks the deferred loops of the pass in progress as the steady path would have, if
    /// any: the pass no longer repeats the template.
    pub(super) fn settle_pass(&mut self) {
        self.apply_pending();
        let p = &mut self.passes;
        if !p.active {
            return;
        }
        p.active = false;
        let n = std::mem::take(&mut p.deferred);
        let Some(t) = p.template.take() else {
            return;
        };
        // The pass goes on loop by loop from the state the template found at its start.
        p.verify_start.clone_from(&t.verify_start);
        if n == t.calls.len() {
            // Longer than the template: its loops so far did what the template's did.
            self.passes.cur.extend(t.calls.iter().map(|c| c.step));
            let id = t.id;
            self.passes.template = Some(t);
            self.apply_template(id, self.passes.start, 1);
            return;
        }
        self.passes.cut += 1;
        self.steady_loops += n as u64;
        let start = self.passes.start;
        let mut whole = true;
        for (i, s) in t.calls[..n].iter().map(|c| c.step).enumerate() {
            let fp = self.shape_fp(s.shape);
            whole &= self.track_steady(s.loc, start + i as u64, fp, s.same);
        }
        let p = &mut self.passes;
        p.cur.extend(t.calls[..n].iter().map(|c| c.step));
        p.whole &= whole;
        p.template = Some(t);
    }

    /// The pending passes ([`Passes::pending`]), applied. Runs that repeat with a period of
    /// a few runs (a time step taking turns between templates) are applied a period at a
    /// time: the first two periods one run after another, then each further whole period
    /// only adds its counts and moves the last occurrences and writes on by its length (the
    /// gaps between its occurrences are the second period's again), then the rest.
    fn apply_pending(&mut self) {
        let mut runs = std::mem::take(&mut self.passes.pending);
        if runs.is_empty() {
            return;
        }
        let p = &mut self.passes;
        p.applied_in_runs += runs.iter().filter(|r| r.n > 1).map(|r| r.n).sum::<u64>();
        let mut at = 0;
        if let Some((period, len)) = period_of(&runs) {
            let whole = runs.len() / period;
            if whole >= 3 {
                for r in &runs[..2 * period] {
                    self.apply_template(r.template, r.start, r.n);
                }
                self.advance_periods(&runs[period..2 * period], whole as u64 - 2, len);
                at = whole * period;
            }
        }
        for r in &runs[at..] {
            self.apply_template(r.template, r.start, r.n);
        }
        runs.clear();
        self.passes.pending = runs;
    }

    /// [`Resilience::apply_pending`] of `k` more periods like `period` (pending runs, `len`
    /// loops in all), after two applied run by run.
    fn advance_periods(&mut self, period: &[Run], k: u64, len: u64) {
        let p = &mut self.passes;
        let by = k * len;
        let mut counts: Vec<(u32, u64)> = Vec::new();
        let mut written: Vec<u32> = Vec::new();
        let mut passes = 0;
        for r in period {
            let t = p.template_by_id(r.template);
            passes += k * r.n;
            self.steady_loops += k * r.n * t.calls.len() as u64;
            for pl in &t.locs {
                match counts.iter_mut().find(|(l, _)| *l == pl.loc) {
                    Some(c) => c.1 += pl.k * r.n,
                    None => counts.push((pl.loc, pl.k * r.n)),
                }
            }
            for &(d, _) in &t.writes {
                if !written.contains(&d) {
                    written.push(d);
                }
            }
        }
        p.repeated += passes;
        p.applied_by_period += passes;
        for (loc, n) in counts {
            self.track.locs.advance(loc, k * n, by);
        }
        for d in written {
            if let Some(w) = self.track.dats[d as usize].last_write.as_mut() {
                *w += by;
            }
        }
    }

    /// What template `id`'s loops did, applied once to `n` passes that repeated it whole one
    /// after another from loop `start`.
    fn apply_template(&mut self, id: u64, start: u64, n: u64) {
        let p = &mut self.passes;
        p.repeated += n;
        let t = p.template_by_id(id);
        let len = t.calls.len() as u64;
        self.steady_loops += len * n;
        let last_start = start + (n - 1) * len;
        for pl in &t.locs {
            // From its last call in a pass to its first in the next.
            let gap = match n {
                1 => pl.gap,
                _ => pl.gap.max(len - pl.last + pl.first),
            };
            self.track.locs.count_repeat(
                pl.loc,
                start + pl.first,
                pl.k * n,
                last_start + pl.last,
                gap,
            );
            let fp = &mut self.fps[pl.loc as usize];
            if !fp.as_ref().is_some_and(|f| Arc::ptr_eq(f, &pl.fp_end)) {
                *fp = Some(Arc::clone(&pl.fp_end));
            }
        }
        for &(d, off) in &t.writes {
            self.track.dats[d as usize].last_write = Some(last_start + off);
        }
        self.learner.set_verify_state(&t.verify_end);
    }

    /// Ends the observation of the pass in progress (something other than the steady path
    /// ran, or the program reaches the engine), tracking its deferred loops first: what the
    /// engine holds is then what tracking every loop would hold.
    pub(crate) fn interrupt_pass(&mut self) {
        self.settle_pass();
        self.passes.whole = false;
    }

    /// A loop on the steady path, tracked loop by loop: counted, checked against the decision,
    /// its writes recorded. True when nothing but indices changed (no learner event, writes
    /// unchanged).
    pub(super) fn track_steady(
        &mut self,
        loc: u32,
        index: u64,
        fp: Arc<Footprint>,
        same: bool,
    ) -> bool {
        self.track.locs.count(loc, index);
        let event = self
            .learner
            .on_loop(loc, index, &fp, 0, &self.track.locs, &self.track);
        let quiet = event.is_none();
        if let Some(e) = event {
            self.on_learner_event(e, index);
        }
        let unchanged = self
            .track
            .update(loc, index, &fp, self.views.in_closure, same);
        self.fps[loc as usize] = Some(fp);
        quiet && unchanged
    }

    /// Notes a loop tracked on the steady path in the pass in progress.
    #[inline]
    pub(super) fn observe_step(&mut self, shape: u32, loc: u32, same: bool, quiet: bool) {
        let p = &mut self.passes;
        if p.whole {
            p.whole = quiet && p.cur.len() < MAX_PASS;
            p.cur.push(Step { shape, loc, same });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::hooks::tests::run_and_keep_every;
    use crate::engine::testing::{cfg, Kept, Prog};

    /// Passes repeated whole leave what tracking every loop leaves (checkpoints with their
    /// regions and value logs, locations with counts and gaps, the learner, the datasets'
    /// last writes, the call log, the report), in a program whose steps are all alike, in one
    /// whose steps differ now and then (passes cut short in their middle, passes longer than
    /// the template, another call shape at a location), in one whose steps take turns
    /// between two kinds (repeated by switching templates at their first difference), in
    /// one with a loop more every fourth step, and in one with a loop more every other step
    /// (two templates taking turns, their switches told to the runtime), checkpointing every
    /// 7 passes, and the last also every 60.
    #[test]
    fn passes_repeated_whole_leave_what_tracking_every_loop_leaves() {
        for (kind, every) in [(0, 7), (1, 7), (2, 7), (3, 7), (4, 7), (4, 60)] {
            let by_loop = run_and_keep_every(true, false, false, kind, every);
            assert_eq!(
                run_and_keep_every(true, true, false, kind, every),
                by_loop,
                "program {kind}"
            );
            assert_eq!(
                run_and_keep_every(true, true, true, kind, every),
                by_loop,
                "program {kind}"
            );
            let store = Kept::default();
            let mut p = Prog::new(cfg(every), &store, |_| {});
            p.run_kind(kind, 3000).unwrap();
            let r = p.ops.observer_mut::<crate::Resilience>().unwrap();
            let (repeated, cut) = (r.passes.repeated, r.passes.cut);
            assert!(repeated > 500, "program {kind}: {repeated} passes repeated");
            // The loops of the passes repeated but their first (4 per pass: 3 in a pass
            // repeating one template, 2 or more in one switching) ran without the hook.
            let expected = r.expected_loops;
            assert!(
                expected >= 2 * repeated,
                "program {kind}: {expected} loops ran as expected"
            );
            // The result of each pass repeated was handed out without the hook.
            let kept = r.kept_results;
            assert!(kept >= repeated, "program {kind}: {kept} results kept");
            // Most chosen locations between a timed pass and the next, and a checkpoint's,
            // ran without the hook (none where passes take turns between templates).
            let crossed = r.passes.crossed;
            if kind != 2 {
                assert!(
                    crossed > 200,
                    "program {kind}: {crossed} chosen locations crossed"
                );
            }
            let runs = r.passes.applied_in_runs;
            // Passes taking turns between two templates are runs of one, applied a period of
            // two runs at a time.
            let by_period = r.passes.applied_by_period;
            match kind {
                2 | 4 => assert!(by_period > 300, "{by_period} passes applied by period"),
                _ => assert!(runs > 300, "program {kind}: {runs} passes applied in runs"),
            }
            if kind == 1 {
                assert!(cut > 50, "{cut} passes cut short");
            }
            // Passes taking turns between templates whose calls all cross the chosen
            // location ran without the hook across the switches from one to the other.
            let switched = r.passes.switched_told;
            match (kind, every) {
                (4, 7) => assert!(switched > 40, "{switched} switches of template told"),
                (4, _) => assert!(switched > 1000, "{switched} switches of template told"),
                _ => assert_eq!(switched, 0, "program {kind}"),
            }
        }
    }
}
