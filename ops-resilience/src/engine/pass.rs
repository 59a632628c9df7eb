//! Repeated passes of the decided time step, tracked whole.
//!
//! A pass is the loops between two occurrences of the chosen location. Once a pass tracked
//! loop by loop on the steady path repeated the pass before it call shape for call shape (its
//! template), a later pass that starts from the same state as the template did (the same
//! verification state, the same latest call shape, footprint and unchanged writes at each of
//! its locations) and calls the same shapes does what the template did, shifted by the loops
//! in between: the tracker is deterministic. Such a pass logs each call as it comes (the log
//! must hold every call in order, with its constants) and defers the rest: the locations'
//! counts, the decision's check and the write record are applied once, when the pass ends,
//! from the template's summary. A pass that turns out otherwise (another shape, a longer or
//! shorter pass, anything else happening) has its deferred loops tracked one by one, as the
//! steady path would have, before the loop that differs: nothing is ever guessed.

use std::sync::Arc;

use ops_core::LoopPlan;

use super::Resilience;
use crate::calls::Recorded;
use crate::learn::VerifyState;
use crate::track::Footprint;

/// The longest pass tracked whole (a longer one is tracked loop by loop).
const MAX_PASS: usize = 4096;

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
    /// The logged shape of its latest call, and its footprint, at the pass's end (and start).
    latest: Option<u32>,
    fp: Option<Arc<Footprint>>,
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

/// A pass that repeated its predecessor, with what tracking it did.
struct Template {
    calls: Vec<Call>,
    locs: Vec<PassLoc>,
    /// Datasets written, with the offset of the last write.
    writes: Vec<(u32, u64)>,
    /// The decision's verification state at the pass's start and end.
    verify_start: VerifyState,
    verify_end: VerifyState,
}

impl Template {
    /// Whether `pass` calls the template's shapes at its locations, loop for loop.
    fn repeats(&self, pass: &[Step]) -> bool {
        self.calls.len() == pass.len() && self.calls.iter().zip(pass).all(|(c, s)| c.step == *s)
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
    /// The previous whole pass.
    prev: Vec<Step>,
    template: Option<Template>,
    /// The pass in progress repeats the template: loops deferred so far.
    pub active: bool,
    deferred: usize,
    /// The template's locations are as the template left them (the latest pass repeated it,
    /// or is it), at tracker epoch `clean_epoch`.
    clean: bool,
    clean_epoch: u64,
    /// Passes tracked whole, and passes cut short with loops deferred (tests and reports).
    pub repeated: u64,
    pub cut: u64,
}

impl Passes {
    pub fn new() -> Passes {
        Passes {
            start: u64::MAX,
            ..Passes::default()
        }
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
    /// next begins after it.
    pub(super) fn end_pass(&mut self, index: u64) {
        let p = &mut self.passes;
        let complete = p.active
            && p.template
                .as_ref()
                .is_some_and(|t| t.calls.len() == p.deferred);
        if complete {
            self.apply_template();
            self.passes.clean = true;
        } else {
            self.settle_pass();
            self.conclude_pass();
        }
        let p = &mut self.passes;
        p.clean_epoch = self.track.epoch();
        p.cur.clear();
        p.whole = !p.off;
        p.start = index + 1;
    }

    /// [`Resilience::end_pass`] of a pass not repeated whole: a whole pass equal to the one
    /// before becomes the template.
    fn conclude_pass(&mut self) {
        let p = &mut self.passes;
        let whole = p.whole && !p.cur.is_empty() && p.cur.len() <= MAX_PASS;
        let known = whole && p.template.as_ref().is_some_and(|t| t.repeats(&p.cur));
        let repeated = whole && p.cur == p.prev;
        if repeated && !known {
            let t = self.template_of_pass();
            self.passes.template = t;
        }
        let p = &mut self.passes;
        // A whole pass of the template's steps leaves its locations as the template did.
        p.clean = known || (repeated && p.template.is_some());
        std::mem::swap(&mut p.prev, &mut p.cur);
        if !p.whole {
            p.prev.clear();
        }
    }

    /// The template of the pass just observed whole, which repeated the one before it (so its
    /// locations' latest shapes and footprints are what they were at its start too).
    fn template_of_pass(&self) -> Option<Template> {
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
                    latest: None,
                    fp: None,
                    writes: false,
                });
                at[l] = locs.len() as u32;
            }
            let pl = &mut locs[at[l] as usize - 1];
            pl.gap = pl.gap.max(i - pl.last);
            pl.last = i;
            pl.k += 1;
            pl.writes |= !seen.fp.writes.is_empty();
        }
        for pl in &mut locs {
            pl.latest = self.track.calls.latest_shape(pl.loc);
            pl.fp = self.fps.get(pl.loc as usize)?.clone();
        }
        Some(Template {
            calls,
            locs,
            writes,
            verify_start: p.verify_start.clone(),
            verify_end,
        })
    }

    /// At the first loop of a pass: whether it starts from the state the template started
    /// from (then its loops are deferred while they repeat it, [`Resilience::repeat_loop`]);
    /// else the state is noted for the pass's own observation.
    pub(super) fn start_pass(&mut self) -> bool {
        let p = &self.passes;
        if p.active || p.off || !p.whole || self.index != p.start {
            return false;
        }
        let fits = p.template.as_ref().is_some_and(|t| {
            !self.views.in_closure
                && self.track.locs.first_pass_recur.is_some()
                && self.learner.verify_state_is(&t.verify_start)
                && ((p.clean && p.clean_epoch == self.track.epoch())
                    || t.locs.iter().all(|pl| {
                        let fp = self.fps.get(pl.loc as usize).and_then(Option::as_ref);
                        self.track.calls.latest_shape(pl.loc) == pl.latest
                            && fp.map(Arc::as_ptr) == pl.fp.as_ref().map(Arc::as_ptr)
                            && (!pl.writes || self.track.unchanged_now(pl.loc))
                    }))
        });
        let p = &mut self.passes;
        if fits {
            p.active = true;
            p.deferred = 0;
        } else if !self.learner.verify_state_into(&mut p.verify_start) {
            p.whole = false;
        }
        fits
    }

    /// A loop of a pass repeating the template, taken before anything else when its shape is
    /// the template's next: its call is logged, the rest deferred (false, nothing done, for any
    /// other loop).
    #[inline(always)]
    pub(super) fn repeat_loop(&mut self, plan: &LoopPlan<'_>) -> bool {
        let p = &self.passes;
        let Some(c) = p.template.as_ref().and_then(|t| t.calls.get(p.deferred)) else {
            return false;
        };
        if plan.shape != Some(c.step.shape) {
            return false;
        }
        let plain = c.plain;
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
        self.settle_pass();
        self.steady_loops += 1;
        let fp = match self.shapes.get(shape as usize) {
            Some(Some(seen)) => Arc::clone(&seen.fp),
            _ => unreachable!("a template's shapes were seen"),
        };
        let quiet = self.track_steady(loc, index, fp, same);
        self.observe_step(shape, loc, same, quiet);
        false
    }

    /// Tracks the deferred loops of the pass in progress as the steady path would have, if
    /// any: the pass no longer repeats the template.
    pub(super) fn settle_pass(&mut self) {
        let p = &mut self.passes;
        if !p.active {
            return;
        }
        p.active = false;
        let n = std::mem::take(&mut p.deferred);
        let Some(t) = p.template.take() else {
            return;
        };
        if n == t.calls.len() {
            // Longer than the template: its loops so far did what the template's did.
            self.passes.cur.extend(t.calls.iter().map(|c| c.step));
            self.passes.template = Some(t);
            self.apply_template();
            return;
        }
        self.passes.cut += 1;
        self.steady_loops += n as u64;
        let start = self.passes.start;
        let mut whole = true;
        for (i, s) in t.calls[..n].iter().map(|c| c.step).enumerate() {
            let fp = match self.shapes.get(s.shape as usize) {
                Some(Some(seen)) => Arc::clone(&seen.fp),
                _ => unreachable!("a deferred loop's shape was seen"),
            };
            whole &= self.track_steady(s.loc, start + i as u64, fp, s.same);
        }
        let p = &mut self.passes;
        p.cur.extend(t.calls[..n].iter().map(|c| c.step));
        p.whole &= whole;
        p.template = Some(t);
    }

    /// What the template's loops did, applied once to the pass that repeated it whole.
    fn apply_template(&mut self) {
        let p = &mut self.passes;
        p.active = false;
        p.deferred = 0;
        p.repeated += 1;
        let start = p.start;
        let t = p.template.as_ref().expect("a template");
        self.steady_loops += t.calls.len() as u64;
        for pl in &t.locs {
            self.track
                .locs
                .count_repeat(pl.loc, start + pl.first, pl.k, start + pl.last, pl.gap);
        }
        for &(d, off) in &t.writes {
            self.track.dats[d as usize].last_write = Some(start + off);
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
    use crate::engine::hooks::tests::run_and_keep;
    use crate::engine::testing::{cfg, Kept, Prog};

    /// Passes repeated whole leave what tracking every loop leaves (checkpoints with their
    /// regions and value logs, locations with counts and gaps, the learner, the datasets'
    /// last writes, the call log, the report), in a program whose steps are all alike and in
    /// one whose steps differ now and then (passes cut short in their middle, and passes
    /// longer than the template).
    #[test]
    fn passes_repeated_whole_leave_what_tracking_every_loop_leaves() {
        for varied in [false, true] {
            let by_loop = run_and_keep(true, false, varied);
            assert_eq!(
                run_and_keep(true, true, varied),
                by_loop,
                "varied: {varied}"
            );
            let store = Kept::default();
            let mut p = Prog::new(cfg(7), &store, |_| {});
            match varied {
                true => p.run_varied(3000),
                false => p.run(3000),
            }
            .unwrap();
            let r = p.ops.observer_mut::<crate::Resilience>().unwrap();
            let (repeated, cut) = (r.passes.repeated, r.passes.cut);
            assert!(
                repeated > 500,
                "varied {varied}: {repeated} passes repeated"
            );
            if varied {
                assert!(cut > 50, "{cut} passes cut short");
            }
        }
    }
}
