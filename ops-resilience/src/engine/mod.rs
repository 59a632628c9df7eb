//! [`Resilience`]: the observer that tracks every loop and query, takes checkpoints and
//! restarts by replay. One module per concern:
//!
//! - [`phase`]: what the engine is doing (running normally, replaying, waiting for a resilient
//!   region, fast-forwarding);
//! - [`record`]: what it records of the program in every phase (datasets, locations, the pure
//!   history, the value log);
//! - [`crate::learn`]: where checkpoints open (the outer iteration and its cheapest boundary);
//! - `checkpoint`: when a checkpoint is due, and its region from open to commit;
//! - `replay`: restarts (replay, fast-forward, resilient regions) and answering the program
//!   from the log;
//! - `api`: what the program asks for (hints, views, resilient regions, fast-forward);
//! - `dist`: what processes of a distributed run exchange;
//! - `report`: diagnostics (through `tracing`) and the JSON report.
//!
//! Per loop, in normal operation (before the loop runs):
//!
//! 1. count it (loop index from 0) and its location's occurrence;
//! 2. take its footprint (what it reads and writes, [`Footprint`]);
//! 3. close the open checkpoint region if it reached its bound; open one if a checkpoint is due
//!    and this loop is at the checkpoint location;
//! 4. feed the loop to the open region (which snapshots what the loop is about to overwrite
//!    and a checkpoint still needs) and to the learner;
//! 5. record its writes ([`record::Tracker::update`]).

mod api;
mod checkpoint;
mod dist;
pub(crate) mod phase;
pub(crate) mod record;
mod replay;
mod report;
#[cfg(test)]
pub(crate) mod testing;

use std::time::{Duration, Instant};

use ops_core::{
    DatId, IterRange, LoopAction, LoopCall, LoopObserver, LoopPlan, OpsError, Query, Runtime,
};

use crate::calls::Call;
use crate::config::{kill_self, sigterm_self, ResilienceConfig};
use crate::diags::Report;
use crate::error::ResilienceError;
use crate::learn::Learner;
use crate::store::CheckpointStore;
use crate::track::Footprint;
use std::sync::Arc;

pub use api::Enter;
use checkpoint::Checkpointing;
use phase::Phase;
use record::Tracker;

/// Smallest number of loops a checkpoint region may span.
pub const MIN_REGION_LOOPS: u64 = 64;

/// The most loops a checkpoint region spans when what it opens at recurs every `gap` loops at
/// most: twice that, and at least [`MIN_REGION_LOOPS`]. The learner measures regions with the
/// same bound, so that its figures are what the checkpoints save.
pub fn region_bound(gap: u64) -> u64 {
    MIN_REGION_LOOPS.max(2 * gap)
}

/// Where checkpoint regions open.
#[derive(Clone, Debug, PartialEq)]
enum Target {
    /// Where the learner decides.
    Learn,
    /// Fixed by the program: a spec matched against location keys (answers cached by id).
    Fixed {
        spec: String,
        matches: Vec<Option<bool>>,
    },
    /// Any loop (`*`).
    Any,
}

/// Kokkos-style resilient regions in use.
#[derive(Default)]
struct Views {
    /// The program uses resilient regions: checkpoints are theirs only.
    used: bool,
    /// A region's body is running.
    in_closure: bool,
    /// Loop index at which it started.
    closure_start: u64,
    /// Most loops one body ran.
    closure_loops: u64,
}

/// Shape numbers beyond this are looked up as any other call (the runtime numbers shapes
/// afresh when it forgets its plans: a program whose ranges change call after call).
const MAX_SHAPES: usize = 1 << 16;

/// What a call shape's first call taught ([`Resilience::new_shape`]).
struct SeenShape {
    loc: u32,
    logged: crate::calls::Recorded,
    fp: Arc<Footprint>,
}

/// The application's `fast_forward` call site.
#[derive(Default)]
struct FastForwardSite {
    /// The call site that is the checkpoint location (once called).
    key: Option<String>,
    /// Loops executed at the first call (the start-up).
    first: Option<u64>,
    /// Loop index at the last call.
    last: Option<u64>,
    /// Largest gap between two calls.
    gap: u64,
    /// Warned about a second call site.
    warned: bool,
}

/// This process in a distributed run.
struct Dist {
    rank: usize,
    ranks: usize,
    /// Given by [`Resilience::set_distribution`], or read from the runtime at the first loop.
    known: bool,
}

/// Where the time went.
/// One loop in this many has its hook timed (see `before_loop`)...
const HOOK_SAMPLE: u64 = 16;
/// ... after this many loops, all timed.
const HOOK_EXACT: u64 = 1024;
/// Loops after which a learner that has not decided where checkpoints counted in time steps
/// open says so (and again at the end of the run, if it never did).
const UNDECIDED_WARNING: u64 = 10_000;

struct Clock {
    started: Instant,
    /// In loop hooks, checkpoint stalls not included (tracking and learning).
    hook: Duration,
    /// Checkpoint stalls.
    stall: Duration,
    /// Reading the checkpoint a restart uses.
    read: Duration,
    /// Re-executed loops during a replay.
    replay_exec: Duration,
    /// When the re-executed loop now running started.
    replay_loop_started: Option<Instant>,
}

/// The resilience observer. Install it with [`install`](crate::install) (from flags) or
/// build it with [`Resilience::new`] and `ops.set_observer(Some(Box::new(r)))`.
pub struct Resilience {
    cfg: ResilienceConfig,
    app: String,
    phase: Phase,
    /// Loops seen so far (the next loop's index).
    index: u64,
    track: Tracker,
    learner: Learner,
    target: Target,
    /// By location id: the footprint of its latest call, reused while its calls keep their
    /// shape (the call log tells).
    fps: Vec<Option<Arc<Footprint>>>,
    /// By the runtime's number of a call shape ([`LoopPlan::shape`]): what the shape's first
    /// call taught (forgotten when a restart restores another location table).
    shapes: Vec<Option<SeenShape>>,
    ck: Checkpointing,
    views: Views,
    ff: FastForwardSite,
    dist: Dist,
    report: Report,
    clock: Clock,
    /// The payload of the checkpoint this run restarted from.
    restart_payload: Option<Vec<u8>>,
    /// The first refusal not yet handed to the runtime.
    error: Option<ResilienceError>,
    /// The program ended (in [`LoopObserver::finish`]).
    finishing: bool,
    /// This run's lock on its checkpoint directory, held until the run finishes.
    lock: Option<crate::store::DirLock>,
    /// The inputs this run declared (stored in every checkpoint).
    inputs: Vec<crate::meta::InputPrint>,
    /// The inputs of the checkpoint this run restarts from.
    restored_inputs: Option<Vec<crate::meta::InputPrint>>,
    /// Draws the report as a picture (`--ops-diags-png`), installed by the `ops` crate.
    report_picture: Option<ReportPicture>,
}

/// Draws a [`Report`] to a file (the candidates' chart of `--ops-diags-png`); the error says
/// what failed.
pub type ReportPicture = fn(&Report, &std::path::Path) -> Result<(), String>;

impl Resilience {
    /// A tracker with `cfg`, writing checkpoints to `store` (`None`: tracking and diagnostics
    /// only).
    pub fn new(cfg: ResilienceConfig, store: Option<Box<dyn CheckpointStore>>) -> Resilience {
        let app = cfg.app_name();
        let report = Report {
            app: app.clone(),
            mode: if store.is_some() {
                cfg.mode.to_string()
            } else {
                "none".into()
            },
            dir: cfg.dir.as_ref().map(|d| d.display().to_string()),
            ranks: 1,
            ..Report::default()
        };
        Resilience {
            app,
            phase: Phase::Normal,
            index: 0,
            track: Tracker::new(),
            learner: Learner::default(),
            target: Target::Learn,
            fps: Vec::new(),
            shapes: Vec::new(),
            ck: Checkpointing::new(store),
            views: Views::default(),
            ff: FastForwardSite::default(),
            dist: Dist {
                rank: 0,
                ranks: 1,
                known: false,
            },
            report,
            clock: Clock {
                started: Instant::now(),
                hook: Duration::ZERO,
                stall: Duration::ZERO,
                read: Duration::ZERO,
                replay_exec: Duration::ZERO,
                replay_loop_started: None,
            },
            restart_payload: None,
            error: None,
            finishing: false,
            lock: None,
            inputs: Vec::new(),
            restored_inputs: None,
            report_picture: None,
            cfg,
        }
    }

    /// Holds `lock` (this run's lock on its checkpoint directory, see
    /// [`DirLock`](crate::store::DirLock)) until the run finishes (or the tracker is dropped).
    pub fn hold_lock(&mut self, lock: crate::store::DirLock) {
        self.lock = Some(lock);
    }

    /// Makes this the tracker of rank `rank` of `ranks` processes (a distributed run; `0, 1`
    /// for a single process) with `partner`, the store for the copies of rank `rank - 1`'s
    /// checkpoints ([`open_rank_stores`](crate::store::open_rank_stores) opens both of a
    /// rank's stores). [`install`](crate::install) calls it. Without it the tracker reads the
    /// rank from the runtime at the first loop and refuses to checkpoint a distributed run (its
    /// store would not be the rank's).
    pub fn set_distribution(
        &mut self,
        rank: usize,
        ranks: usize,
        partner: Option<Box<dyn CheckpointStore>>,
    ) {
        self.dist = Dist {
            rank,
            ranks: ranks.max(1),
            known: true,
        };
        self.ck.partner = partner;
        self.report.rank = rank;
        self.report.ranks = ranks.max(1);
    }

    /// The sequence number the next checkpoint carries at least (a single process takes the
    /// larger of this and its store's [`CheckpointStore::next_sequence`]); in a distributed
    /// run exactly this, then one more per checkpoint, the same on every process.
    /// [`install`](crate::install) sets it to one past every checkpoint file in the directory
    /// tree, agreed by all processes.
    pub fn set_next_sequence(&mut self, sequence: u64) {
        self.ck.next_seq = sequence.max(1);
    }

    /// This process's rank (0 for a single process).
    pub fn rank(&self) -> usize {
        self.dist.rank
    }

    /// The number of processes (1 for a single process).
    pub fn ranks(&self) -> usize {
        self.dist.ranks
    }

    /// The configuration.
    pub fn config(&self) -> &ResilienceConfig {
        &self.cfg
    }

    /// Installs what draws the report at the end of the run when `--ops-diags-png` is given.
    pub fn set_report_picture(&mut self, draw: ReportPicture) {
        self.report_picture = Some(draw);
    }

    /// The report so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Every loop location seen so far.
    pub fn locations(&self) -> &[crate::location::LocInfo] {
        &self.track.locs.locs
    }

    /// The location learner.
    pub fn learner(&self) -> &Learner {
        &self.learner
    }

    /// Loops seen so far (the next loop's index).
    pub fn loop_index(&self) -> u64 {
        self.index
    }

    /// True while replaying towards a checkpoint.
    pub fn replaying(&self) -> bool {
        self.phase.replaying()
    }

    /// The store, if checkpoints are written.
    pub fn store(&self) -> Option<&dyn CheckpointStore> {
        self.ck.store.as_deref()
    }

    /// Records the first refusal (later ones are consequences of it).
    fn fail(&mut self, e: ResilienceError) {
        if self.error.is_none() {
            self.error = Some(e.on_rank(self.dist.rank, self.dist.ranks));
        }
    }

    /// True when loop location `loc` is where checkpoint regions open.
    fn at_location(&mut self, loc: u32) -> bool {
        if self.ff.key.is_some() || self.views.used {
            // Regions open at the `fast_forward` call or after resilient iterations.
            return false;
        }
        match &mut self.target {
            Target::Learn => self.learner.location() == Some(loc),
            Target::Any => true,
            Target::Fixed { spec, matches } => {
                let i = loc as usize;
                if matches.len() <= i {
                    matches.resize(i + 1, None);
                }
                let key = &self.track.locs.locs[i].key;
                *matches[i].get_or_insert_with(|| crate::location::spec_matches(spec, key))
            }
        }
    }

    /// The first loop of a distributed run's process: learns the rank from the runtime when
    /// [`Resilience::set_distribution`] was not called, and refuses to checkpoint a distributed
    /// run without per-rank stores.
    fn learn_distribution(&mut self, rt: &mut Runtime<'_>) {
        self.dist.known = true;
        let (rank, ranks) = (rt.rank(), rt.ranks());
        if ranks <= 1 {
            return;
        }
        self.dist.rank = rank;
        self.dist.ranks = ranks;
        self.report.rank = rank;
        self.report.ranks = ranks;
        if self.ck.store.is_some() {
            self.ck.store = None;
            self.fail(ResilienceError::Config(
                "this is a distributed run, but the resilience observer was installed without \
                 its rank's stores: use ops_resilience::install (or Resilience::set_distribution \
                 with open_rank_stores)"
                    .into(),
            ));
        }
    }

    /// A failure injected for tests (`OPS_INJECT_FAILURE=loop:N|sigterm:N`).
    fn inject(&self, index: u64, plan: &LoopPlan<'_>) {
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
    fn count_suspect(&mut self, loc: u32) {
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

    /// A call whose shape the runtime numbered and an earlier call of that number taught:
    /// its location, whether the location's previous call had its shape, and its footprint,
    /// with its call recorded, without looking anything up.
    #[inline]
    fn seen_shape(&mut self, plan: &LoopPlan<'_>) -> Option<(u32, bool, Arc<Footprint>)> {
        let seen = self.shapes.get(plan.shape? as usize)?.as_ref()?;
        let loc = seen.loc;
        let same = self
            .track
            .calls
            .record_known(loc, seen.logged, &Call::plan(plan));
        Some((loc, same, Arc::clone(&seen.fp)))
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

    fn before_loop_inner(&mut self, rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
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
        if at && !restored {
            self.ck.count_pass(self.clock.stall);
        }
        if !restored {
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
        if !restored && self.phase.normal() && self.ck.region.is_none() && self.due(rt, at, loc) {
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
        // The hook's own time is sampled after start-up, one loop in HOOK_SAMPLE scaled up
        // (checkpoint stalls left out): two clock reads per loop would be a good part of what
        // they measure on small loops. The first loops, which set things up, are all timed, and
        // so are the loops at which the learner analyses its recording (sampling would count
        // such a loop sixteen times or not at all).
        let exact = self.index < HOOK_EXACT || self.learner.analyses_at(self.index);
        let scale = if exact { 1 } else { HOOK_SAMPLE };
        let t0 = (exact || self.index.is_multiple_of(HOOK_SAMPLE)).then(Instant::now);
        let stall0 = self.clock.stall;
        let a = self.before_loop_inner(rt, plan);
        if let Some(t0) = t0 {
            let stall = self.clock.stall.saturating_sub(stall0);
            let own = t0.elapsed().saturating_sub(stall);
            self.clock.hook += own * scale as u32;
        }
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
        // Called after every loop: the usual answer without moving the (large) error out.
        self.error.as_ref()?;
        self.error.take().map(OpsError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{cfg, Kept, Prog};
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
