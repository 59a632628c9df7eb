//! The runtime's calls into the engine ([`LoopObserver`]): every loop, on the steady path
//! that most loops of a long run take (a loop of the decided time step, of a call shape seen
//! before, with nothing else going on) or the full path (any phase, any loop); the values
//! handed to the program; data set by the program; the end of the run.

use std::sync::Arc;
use std::time::Instant;

use ops_core::{
    DatId, IterRange, LoopAction, LoopCall, LoopObserver, LoopPlan, OpsError, Query, Ran, Runtime,
};

use super::{checkpoint, region_bound, replay, Phase, Resilience, Target};
use super::{HOOK_EXACT, HOOK_SAMPLE, UNDECIDED_WARNING};
use crate::calls::Call;
use crate::config::{kill_self, sigterm_self};
use crate::error::ResilienceError;
use crate::track::Footprint;

/// Shape numbers beyond this are looked up as any other call (the runtime numbers shapes
/// afresh when it forgets its plans: a program whose ranges change call after call).
pub(super) const MAX_SHAPES: usize = 1 << 16;

/// Where [`Resilience::steady_loop`] left a loop.
enum Steady {
    /// Done: the loop runs.
    Run,
    /// At the chosen location, with a checkpoint due: the full path takes it, its pass counted
    /// and the checkpoint found due ([`Resilience::anchor_boundary`]).
    Due,
    /// Not a steady loop: the full path takes it.
    No,
}

/// What a call shape's first call taught ([`Resilience::new_shape`]).
pub(super) struct SeenShape {
    pub loc: u32,
    pub logged: crate::calls::Recorded,
    pub fp: Arc<Footprint>,
}

impl Resilience {
    /// A failure injected for tests (`OPS_INJECT_FAILURE=loop:N|sigterm:N`).
    #[inline(always)]
    pub(super) fn inject(&self, index: u64, plan: &LoopPlan<'_>) {
        let at = &self.cfg.inject;
        if at.loop_index == Some(index) || at.sigterm_at == Some(index) {
            self.inject_now(index, plan);
        }
    }

    /// [`Resilience::inject`] at the loop it names.
    #[cold]
    #[inline(never)]
    fn inject_now(&self, index: u64, plan: &LoopPlan<'_>) {
        if self.cfg.inject.loop_index == Some(index) {
            eprintln!(
                "ops-resilience: OPS_INJECT_FAILURE=loop:{index}: killing the process before \
                 loop `{}`",
                plan.name
            );
            kill_self();
        }
        if self.cfg.inject.sigterm_at == Some(index) {
            eprintln!(
                "ops-resilience: OPS_INJECT_FAILURE=sigterm:{index}: SIGTERM before loop `{}`",
                plan.name
            );
            sigterm_self();
        }
    }

    /// Counts an occurrence of the suspect that paces checkpoints counted in passes, if `loc` is
    /// it. When pacing begins (or another suspect takes over), its occurrences since the latest
    /// checkpoint count too: the analysis that finds a suspect comes a few loops after it ran.
    pub(super) fn count_suspect(&mut self, loc: u32) {
        let paced = self.learner.pacing();
        if paced != self.ck.paced_by {
            self.ck.paced_by = paced;
            if let Some(x) = paced {
                let since = self.ck.last_ckpt_loop.unwrap_or(0);
                self.ck.suspect_occ = self.learner.occurrences_since(x, since);
            }
        }
        if paced == Some(loc) {
            self.ck.suspect_occ += 1;
        }
    }

    /// What an earlier call of the plan's shape taught, if the runtime numbered it.
    #[inline]
    fn seen(&self, plan: &LoopPlan<'_>) -> Option<&SeenShape> {
        self.shapes.get(plan.shape? as usize)?.as_ref()
    }

    /// A call whose shape the runtime numbered and an earlier call of that number taught:
    /// its location, whether the location's previous call had its shape, and its footprint,
    /// with its call recorded, without looking anything up.
    #[inline]
    fn seen_shape(&mut self, plan: &LoopPlan<'_>) -> Option<(u32, bool, Arc<Footprint>)> {
        let seen = self.seen(plan)?;
        let (loc, logged, fp) = (seen.loc, seen.logged, Arc::clone(&seen.fp));
        let same = self.track.calls.record_known(loc, logged, plan);
        Some((loc, same, fp))
    }

    /// [`Resilience::seen_shape`] of any other call: looks up its location and records its
    /// call by comparison, reusing the location's previous footprint if the shape is the same,
    /// and learns the shape's number if the runtime gave one.
    #[inline(never)]
    fn new_shape(
        &mut self,
        plan: &LoopPlan<'_>,
        rt: &Runtime<'_>,
        index: u64,
    ) -> (u32, bool, Arc<Footprint>) {
        let loc = self.track.locs.id_of(plan, index);
        let logged = self.track.calls.record_call(loc, &Call::plan(plan), rt);
        let l = loc as usize;
        if self.fps.len() <= l {
            self.fps.resize_with(l + 1, || None);
        }
        let fp = match self.fps[l].take() {
            Some(fp) if logged.same => fp,
            other => {
                let mut fp = other.unwrap_or_default();
                Arc::make_mut(&mut fp).fill(plan);
                fp
            }
        };
        if let Some(s) = plan.shape.map(|s| s as usize).filter(|&s| s < MAX_SHAPES) {
            if self.shapes.len() <= s {
                self.shapes.resize_with(s + 1, || None);
            }
            self.shapes[s] = Some(SeenShape {
                loc,
                logged,
                fp: Arc::clone(&fp),
            });
        }
        (loc, logged.same, fp)
    }

    /// Most loops of a long run: a loop of the decided time step, of a shape seen before,
    /// with nothing else going on (no replay, no region open, nothing pacing checkpoints but
    /// the chosen location, nothing refused). It does what [`Resilience::before_loop_inner`]
    /// would (count, record the call, verify the decision, record the writes), without the
    /// checks that would all find nothing to do, or defers all but the call record while its
    /// pass repeats the template ([`super::pass`]). The chosen location ends a pass and begins
    /// the next; it counts the pass and asks whether a checkpoint is due first, and takes the
    /// full path if one is.
    #[inline(always)]
    fn steady_loop(&mut self, rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> Steady {
        let quiet = self.steady_path
            && self.phase.normal()
            && self.error.is_none()
            && self.ck.region.is_none()
            && self.ck.paced_by.is_none()
            && self.target == Target::Learn
            && !self.views.used
            && self.ff.key.is_none()
            && self.dist.known
            && !self.track.any_read_only
            && !self.learner.recording();
        // Decided: nothing to warn about at UNDECIDED_WARNING either.
        if !quiet {
            return Steady::No;
        }
        let (Some(anchor), Some(seen), Some(shape)) =
            (self.learner.location(), self.seen(plan), plan.shape)
        else {
            return Steady::No;
        };
        let (loc, logged) = (seen.loc, seen.logged);
        if self.fps.len() <= loc as usize {
            return Steady::No;
        }
        self.steady_known(rt, plan, (loc, logged, shape), loc == anchor)
    }

    /// [`Resilience::steady_loop`] of a loop found steady, of location `loc` (`anchor`: the
    /// chosen one), logged shape `logged` and runtime shape `shape`.
    #[inline(always)]
    fn steady_known(
        &mut self,
        rt: &mut Runtime<'_>,
        plan: &LoopPlan<'_>,
        (loc, logged, shape): (u32, crate::calls::Recorded, u32),
        anchor: bool,
    ) -> Steady {
        let index = self.index;
        if anchor {
            self.end_pass(index);
            if self.anchor_boundary(rt, loc) {
                return Steady::Due;
            }
        }
        if self.start_pass(shape) && self.repeat_loop(plan) {
            return Steady::Run;
        }
        self.inject(index, plan);
        self.track.sync(rt);
        let same = self.track.calls.record_known(loc, logged, plan);
        self.index += 1;
        self.track_logged(shape, loc, index, same);
        Steady::Run
    }

    /// The chosen location on the steady path: counts the pass it ends (as the full path
    /// does) and tells whether a checkpoint is due before it.
    #[inline(never)]
    fn anchor_boundary(&mut self, rt: &mut Runtime<'_>, loc: u32) -> bool {
        self.ck.count_pass(self.clock.stall);
        self.count_suspect(loc);
        self.due(rt, true, loc)
    }

    /// [`LoopObserver::before_loop`] of any loop but an untimed one of a pass repeating the
    /// template: the steady or full path, timed one loop in [`HOOK_SAMPLE`].
    #[inline(never)]
    fn before_loop_timed(&mut self, rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        // The hook's own time is sampled after start-up, one loop in HOOK_SAMPLE scaled up
        // (checkpoint stalls left out): two clock reads per loop would be a good part of what
        // they measure on small loops. The first loops, which set things up, are all timed, and
        // so are the loops at which the learner analyses its recording (sampling would count
        // such a loop HOOK_SAMPLE times or not at all).
        let exact = self.index < HOOK_EXACT || self.learner.analyses_at(self.index);
        let scale = if exact { 1 } else { HOOK_SAMPLE };
        let t0 = (exact || self.index.is_multiple_of(HOOK_SAMPLE)).then(Instant::now);
        let stall0 = self.clock.stall;
        let a = if self.passes.active && self.repeat_loop(plan) {
            LoopAction::Run
        } else {
            let steady = self.steady_loop(rt, plan);
            self.after_steady(rt, plan, steady)
        };
        if let Some(t0) = t0 {
            let stall = self.clock.stall.saturating_sub(stall0);
            let own = t0.elapsed().saturating_sub(stall);
            self.clock.hook += own * scale as u32;
        }
        self.hook_done(rt, a)
    }

    /// Where [`Resilience::steady_loop`] left a loop: done, or to the full path.
    fn after_steady(&mut self, rt: &mut Runtime<'_>, plan: &LoopPlan<'_>, s: Steady) -> LoopAction {
        match s {
            Steady::Run => LoopAction::Run,
            Steady::Due | Steady::No => {
                self.interrupt_pass();
                self.before_loop_inner(rt, plan, matches!(s, Steady::Due))
            }
        }
    }

    /// The end of a hook that did more than defer a loop: the runtime's optional hooks for the
    /// next loop, and the action (refused if a hook failed).
    fn hook_done(&mut self, rt: &mut Runtime<'_>, a: LoopAction) -> LoopAction {
        let replaying = self.phase.replaying();
        if replaying && a == LoopAction::Run {
            self.clock.replay_loop_started = Some(Instant::now());
        }
        // Both hooks serve the replay only (passing over skipped loops, timing re-executed
        // ones): other loops are spared the calls.
        rt.set_hooks(ops_core::Hooks {
            skip_unvalidated: replaying,
            after_loop: replaying,
        });
        // Refused here or by an earlier hook (`take_error` tells why).
        match self.error {
            Some(_) => LoopAction::Refuse,
            None => a,
        }
    }

    /// The chosen location after a pass that repeated a lazy template whole
    /// ([`super::pass::Passes::run_goes_on`]): the steady path without its checks, which
    /// hold all through such a pass and a run of them (whatever could change them ends the
    /// pass, and applies the run first). `None` for any other loop.
    #[inline(never)]
    fn next_pass_of_run(
        &mut self,
        rt: &mut Runtime<'_>,
        plan: &LoopPlan<'_>,
    ) -> Option<LoopAction> {
        let shape = plan.shape.filter(|&s| self.passes.run_goes_on(s))?;
        let seen = self.seen(plan)?;
        let known = (seen.loc, seen.logged, shape);
        let steady = self.steady_known(rt, plan, known, true);
        let a = self.after_steady(rt, plan, steady);
        Some(self.hook_done(rt, a))
    }

    /// Any loop, in any phase. `due`: at the chosen location, the steady path counted its pass
    /// and found a checkpoint due ([`Resilience::anchor_boundary`]).
    fn before_loop_inner(
        &mut self,
        rt: &mut Runtime<'_>,
        plan: &LoopPlan<'_>,
        due: bool,
    ) -> LoopAction {
        let index = self.index;
        self.index += 1;
        let mut restored = false;
        match &mut self.phase {
            Phase::Replay(r) if index < r.k => {
                r.locs.id_of(plan, index);
                if let Err(e) = r.check_call(index, plan, rt) {
                    self.fail(e);
                    return LoopAction::Skip;
                }
                return if r.reexecutes(index) {
                    r.executed += 1;
                    LoopAction::Run
                } else {
                    r.skipped += 1;
                    LoopAction::Skip
                };
            }
            Phase::Replay(_) => restored = true,
            Phase::FastForward(r) => {
                let first = r
                    .meta
                    .fast_forward
                    .as_ref()
                    .map_or(0, |f| f.first_call_loop);
                if index >= first {
                    let msg = format!(
                        "restart from fast-forward checkpoint {}: this run reached loop {index} \
                         (`{}`) without calling fast_forward, which the checkpointed run called \
                         after {first} loops: the start-up differs, or the program does not call \
                         `fast_forward` (at the top of its time loop) as the checkpointed run did",
                        r.ck.meta.sequence, plan.name
                    );
                    self.fail(ResilienceError::Diverged(msg));
                    return LoopAction::Skip;
                }
                // The start-up runs again: it must be the checkpointed run's.
                if let Err(e) = r.check_call(index, plan, rt) {
                    self.fail(e);
                    return LoopAction::Skip;
                }
            }
            Phase::Normal | Phase::ResilientWait(_) => {}
        }
        if restored {
            if let Err(e) = self.restore_replay(rt, plan) {
                self.fail(e);
                return LoopAction::Skip;
            }
            // The checkpoint restored opened before this loop.
            self.ck.last_ckpt_loop = Some(index);
        }
        if !self.dist.known {
            self.learn_distribution(rt);
        }
        self.inject(index, plan);
        self.track.sync(rt);
        let (loc, same_shape, fp) = match self.seen_shape(plan) {
            Some(seen) => seen,
            None => self.new_shape(plan, rt, index),
        };
        let l = loc as usize;
        if !restored {
            self.track.locs.count(loc, index);
        }
        let read_only_write = match self.track.any_read_only {
            true => fp
                .writes
                .iter()
                .find(|(d, _)| self.track.dats[*d as usize].read_only),
            false => None,
        };
        if let Some((d, _)) = read_only_write {
            let msg = format!(
                "par_loop `{}` writes dataset `{}`, which was marked read-only",
                plan.name, self.track.dats[*d as usize].name
            );
            self.fail(ResilienceError::Usage(msg));
            self.fps[l] = Some(fp);
            return LoopAction::Skip;
        }
        let at = self.at_location(loc);
        if at && !restored && !due {
            self.ck.count_pass(self.clock.stall);
        }
        if !restored && !due {
            self.count_suspect(loc);
        }
        // A region spans at most one pass: it closes when its location recurs (saving what is
        // still undecided), exactly as the learner measured it.
        let recurs = |o: &checkpoint::Open| {
            at && o.resilient.is_none() && o.fast_forward.is_none() && !o.provisional
        };
        if self
            .ck
            .region
            .as_ref()
            .is_some_and(|o| o.region.expired() || recurs(o))
        {
            self.close_region(rt);
        }
        if !restored
            && self.phase.normal()
            && self.ck.region.is_none()
            && (due || self.due(rt, at, loc))
        {
            let bound = region_bound(self.track.locs.locs[loc as usize].max_gap);
            let key = self.track.locs.key(loc).to_string();
            self.track.refresh_live(rt);
            self.open_region(rt, index, key, bound, None, !at);
        }
        if self.ck.region.is_some() {
            self.feed_region(rt, &fp);
        }
        if self.target == Target::Learn && !self.views.used && self.ff.key.is_none() {
            if self.index == UNDECIDED_WARNING && self.counting_undecided() {
                self.warn_undecided();
            }
            let tag = match self.learner.recording() {
                true => crate::calls::globals_tag(plan),
                false => 0,
            };
            let event = self
                .learner
                .on_loop(loc, index, &fp, tag, &self.track.locs, &self.track);
            if let Some(e) = event {
                self.on_learner_event(e, index);
            }
        }
        self.track
            .update(loc, index, &fp, self.views.in_closure, same_shape);
        self.fps[l] = Some(fp);
        LoopAction::Run
    }
}

impl LoopObserver for Resilience {
    fn skip_unvalidated(&mut self, call: &LoopCall<'_>) -> bool {
        let Phase::Replay(r) = &mut self.phase else {
            return false;
        };
        let index = self.index;
        if index >= r.k || r.reexecutes(index) {
            return false; // restored or re-executed: validated and run as usual
        }
        // A call that differs from the log is validated and reported by `before_loop`, which
        // can name what differs.
        if r.meta
            .state
            .calls
            .check(&mut r.calls, &Call::raw(call))
            .is_err()
        {
            return false;
        }
        r.locs.id_of_site(
            call.name,
            call.location,
            call.block.index() as u32,
            call.kernel,
            index,
        );
        self.index += 1;
        r.skipped += 1;
        true
    }

    fn before_loop(&mut self, rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        // A loop of a pass repeating the template, or the chosen location continuing a run of
        // them, of those `before_loop_timed` leaves untimed: nothing else to do (no replay, so
        // the runtime's optional hooks stay off; nothing refused).
        let untimed = self.index >= HOOK_EXACT && !self.index.is_multiple_of(HOOK_SAMPLE);
        let fast = self.passes.active && untimed && self.error.is_none();
        let quick = match fast {
            true if self.repeat_loop(plan) => Some(LoopAction::Run),
            true => self.next_pass_of_run(rt, plan),
            false => None,
        };
        let a = match quick {
            Some(a) => a,
            None => self.before_loop_timed(rt, plan),
        };
        // The rest of a pass repeating the template: the runtime compares the shapes.
        if self.passes.active && a == LoopAction::Run && self.error.is_none() {
            self.expect_rest(rt);
        }
        a
    }

    fn ran_as_expected(&mut self, ran: &Ran<'_>) {
        if ran.loops > 0 {
            self.repeat_expected(ran.loops, ran.globals);
        }
        for (_, name, value) in ran.results() {
            self.log_result(name, value);
            self.kept_results += 1;
        }
    }

    fn after_loop(&mut self, _rt: &mut Runtime<'_>, _plan: &LoopPlan<'_>, _action: LoopAction) {
        if let Some(t) = self.clock.replay_loop_started.take() {
            self.clock.replay_exec += t.elapsed();
        }
    }

    fn on_query(&mut self, query: &mut Query<'_>) {
        if let Phase::Replay(r) = &mut self.phase {
            if let Err(e) = replay::answer(r, &self.track.dats, query) {
                self.fail(e);
            }
            return;
        }
        self.log_query(query);
    }

    fn before_set(&mut self, rt: &mut Runtime<'_>, dat: DatId, range: &IterRange) {
        self.interrupt_pass();
        if self.phase.replaying() {
            return;
        }
        self.track.sync(rt);
        let d = dat.index();
        if self.track.dats.get(d).is_some_and(|t| t.read_only) {
            let msg = format!(
                "set_data writes dataset `{}`, which was marked read-only",
                self.track.dats[d].name
            );
            self.fail(ResilienceError::Usage(msg));
            return;
        }
        let b = crate::boxes::Bx::from_range(range);
        self.set_in_region(rt, d as u32, b);
        self.learner.on_set(d as u32, &b);
    }

    fn on_set(&mut self, dat: DatId, range: &IterRange) {
        if self.phase.replaying() {
            return;
        }
        self.track
            .on_set(dat.index(), crate::boxes::Bx::from_range(range));
    }

    fn finish(&mut self, rt: &mut Runtime<'_>) {
        self.interrupt_pass();
        self.finishing = true;
        self.check_finished_replay();
        if self.ck.region.is_some() {
            self.close_region(rt);
        }
        // A checkpoint that could not be written leaves the results right: a warning, and the
        // same exit status in every mode (the report counts the checkpoints on disk only).
        if let Err(e) = self.ck.flush() {
            self.warn(format!("{e}"));
        }
        self.poll_completed();
        self.write_report();
        // The run's writes are over: the directory is free for the next run.
        self.lock = None;
    }

    fn take_error(&mut self) -> Option<OpsError> {
        // Called after most hooks: the usual answer without moving the (large) error out.
        self.error.as_ref()?;
        self.error.take().map(OpsError::from)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::engine::testing::{cfg, Kept, Prog};
    use crate::ResilienceExt;

    #[test]
    fn a_loop_writing_a_read_only_dataset_is_refused_naming_it() {
        let mut p = Prog::new(cfg(1), &Kept::default(), |_| {});
        let u = p.u;
        p.ops.mark_read_only(&u).unwrap();
        let e = p.start().unwrap_err().to_string();
        assert!(
            e.contains("`init` writes dataset `grid/u`, which was marked read-only"),
            "{e}"
        );
    }

    /// What a run leaves behind: its checkpoints (all but the time they were taken), the
    /// observer's locations (with their counts and gaps), its call log and its report's
    /// counts. `passes`: passes repeating a template are tracked whole; `expect`: and the
    /// runtime runs their plain loops without the hook.
    pub(crate) fn run_and_keep(steady_path: bool, passes: bool, expect: bool, kind: u8) -> String {
        run_and_keep_every(steady_path, passes, expect, kind, 7)
    }

    /// [`run_and_keep`] checkpointing every `every` occurrences of the location.
    pub(crate) fn run_and_keep_every(
        steady_path: bool,
        passes: bool,
        expect: bool,
        kind: u8,
        every: u64,
    ) -> String {
        let store = Kept::default();
        let mut p = Prog::new(cfg(every), &store, |r| {
            r.steady_path = steady_path;
            r.passes.off = !passes;
            r.expect = expect;
        });
        let sums = p.run_kind(kind, 3000).unwrap();
        let report = p.report();
        let r = p.ops.observer_mut::<crate::Resilience>().unwrap();
        let cks: Vec<String> = store
            .all()
            .iter()
            .map(|c| {
                let m = &c.meta;
                let dats: Vec<_> = c.dats.iter().map(|d| (&d.name, &d.regions)).collect();
                format!(
                    "{} {} {} {:?} {:?} {:?}",
                    m.sequence, m.loop_index, m.location, c.queries, c.payload, dats
                )
            })
            .collect();
        let last_writes: Vec<_> = r.track.dats.iter().map(|d| d.last_write).collect();
        let mut values = crc32fast::Hasher::new();
        r.track.queries.pieces().for_each(|p| values.update(p));
        format!(
            "{sums:?}\n{cks:#?}\n{:?}\n{:?}\n{last_writes:?}\n{:?}\n{} loops {} queries {} \
             call log bytes {:?} {:?} value log crc {:08x}",
            r.locations(),
            r.learner(),
            r.track.calls.records,
            report.loops,
            report.queries,
            report.call_log_bytes,
            report.location,
            report
                .checkpoints
                .iter()
                .map(|c| (c.loop_index, c.bytes))
                .collect::<Vec<_>>(),
            values.finalize()
        )
    }

    #[test]
    fn the_steady_path_leaves_what_the_full_path_leaves() {
        let full = run_and_keep(false, false, false, 0);
        assert_eq!(run_and_keep(true, false, false, 0), full);
        // It was taken: after the start (timed loop by loop) and the decision's confirmation
        // (at least 2,048 loops), most of the 12,000 loops.
        let store = Kept::default();
        let mut p = Prog::new(cfg(7), &store, |r| r.passes.off = true);
        p.run(3000).unwrap();
        let r = p.ops.observer_mut::<crate::Resilience>().unwrap();
        assert!(r.steady_loops > 6000, "{} steady loops", r.steady_loops);
    }

    #[test]
    fn a_fixed_location_matches_by_name_and_opens_regions_there_only() {
        let store = Kept::default();
        let mut p = Prog::new(cfg(1), &store, |r| r.set_location("copy_back"));
        p.run(5).unwrap();
        let cks = store.all();
        assert_eq!(cks.len(), 5);
        assert!(cks
            .iter()
            .all(|c| c.meta.location.starts_with("copy_back@")));
    }
}
