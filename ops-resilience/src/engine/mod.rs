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
//! - `hooks`: the runtime's calls ([`LoopObserver`](ops_core::LoopObserver)): each loop, on
//!   the steady path most loops of a long run take or the full path;
//! - `pass`: passes of the decided time step that repeat a template, tracked whole;
//! - `api`: what the program asks for (hints, views, resilient regions, fast-forward);
//! - `dist`: what processes of a distributed run exchange;
//! - `report`: diagnostics (through `tracing`) and the JSON report.
//!
//! Per loop, in normal operation (before the loop runs):
//!
//! 1. count it (loop index from 0) and its location's occurrence, and log its call (a call
//!    whose shape the runtime numbered before, [`LoopPlan::shape`](ops_core::LoopPlan::shape),
//!    finds its location, logged shape and footprint by that number);
//! 2. take its footprint (what it reads and writes, [`Footprint`]);
//! 3. close the open checkpoint region if it reached its bound; open one if a checkpoint is due
//!    and this loop is at the checkpoint location;
//! 4. feed the loop to the open region (which snapshots what the loop is about to overwrite
//!    and a checkpoint still needs) and to the learner;
//! 5. record its writes ([`record::Tracker::update`]).
//!
//! Most loops of a long run (of the decided time step, away from the chosen location, with no
//! region open) have nothing to do in 3 and only the decision's check in 4: they take the
//! steady path, which skips those checks; and while a pass repeats the template, its loops
//! only log their calls, the rest applied once per pass.

mod api;
mod checkpoint;
mod dist;
mod hooks;
mod pass;
pub(crate) mod phase;
pub(crate) mod record;
mod replay;
mod report;
#[cfg(test)]
pub(crate) mod testing;

use std::time::{Duration, Instant};

use ops_core::Runtime;

use crate::config::ResilienceConfig;
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
const HOOK_SAMPLE: u64 = 64;
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
    shapes: Vec<Option<hooks::SeenShape>>,
    /// Loops of a decided time step take [`Resilience::steady_loop`] (tests compare it with
    /// the full path).
    steady_path: bool,
    /// Loops that took it.
    steady_loops: u64,
    /// Loops of repeated passes run without the hook ([`Resilience::expect_rest`]; off in
    /// tests that compare with the hook's path), how many, and the reduction results handed
    /// out meanwhile without the hook.
    expect: bool,
    expected_loops: u64,
    kept_results: u64,
    /// The passes of the decided time step, and the one they repeat.
    passes: pass::Passes,
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
            steady_path: true,
            steady_loops: 0,
            expect: true,
            expected_loops: 0,
            kept_results: 0,
            passes: pass::Passes::new(),
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
}
