//! [`Resilience`]: the observer that tracks every loop and query, takes checkpoints and
//! restarts by replay.
//!
//! Per loop, in normal operation (before the loop runs):
//!
//! 1. count it (loop index from 0) and its location's occurrence;
//! 2. take its footprint (what it reads and writes, [`Footprint`]);
//! 3. close the open checkpoint region if it reached its bound; open one if a checkpoint is due
//!    and this loop is at the checkpoint location;
//! 4. feed the loop to the open region (which snapshots what the loop is about to overwrite
//!    and a checkpoint still needs) and to the learning phase's dry regions;
//! 5. update the per-dataset state (written, impure, pure; [`DatTrack`]).
//!
//! While replaying (a restart), loops below the checkpoint's index are skipped, except those
//! the checkpoint lists for re-execution (they recompute pure data such as mesh geometry);
//! values handed to user space come from the checkpoint's log; at the checkpoint's loop the
//! saved boxes are uploaded, the tracker's state is restored from the checkpoint, and the run
//! continues normally.

use std::collections::HashSet;
use std::time::{Duration, Instant, SystemTime};

use ops_core::{
    DatId, ElemType, IterRange, LoopAction, LoopObserver, LoopPlan, Ops, OpsError, Query, Scalar,
};

use crate::boxes::{BoxList, Bx};
use crate::config::{kill_self, sigterm_self, Interval, ResilienceConfig};
use crate::diags::{
    human_bytes, Candidate, CheckpointReport, Decision, RejectedReport, Report, RestoreFile,
    RestoreReport, SavedReport,
};
use crate::location::{spec_matches, LocTable};
use crate::meta::{
    frame, unframe, CkptMeta, DatState, FastForwardMeta, PendingReduction, ResilientMeta,
    TrackerState, META_VERSION,
};
use crate::pool::BufPool;
use crate::region::{EntryKind, Region, SnapFn};
use crate::store::dist::{partner_of, Search};
use crate::store::{
    wire, Checkpoint, CheckpointMeta, CheckpointStore, Found, LoggedQuery, PendingRegion, Rejected,
    SavedDat, SavedRegion,
};
use crate::track::{backward_slice, DatTrack, Footprint, HistEntry, MAX_HISTORY, MAX_INIT_HISTORY};

/// Smallest number of loops a checkpoint region (or a dry one) may span.
pub const MIN_REGION_LOOPS: u64 = 64;

/// Loops after the first recurrence after which the location is chosen with whatever the
/// statistics hold, settled or not.
pub const LEARN_LIMIT: u64 = 20_000;

/// Most times per run the learnt location is dropped because a new location appeared.
pub const MAX_RELEARN: u32 = 3;

/// Where checkpoint regions open.
#[derive(Clone, Debug, PartialEq)]
enum Target {
    /// Still learning.
    Learn,
    /// Fixed by the user: a spec matched against location keys.
    Fixed(String),
    /// Any loop (`*`).
    Any,
    /// Chosen by the statistics.
    Chosen(u32),
}

struct Replay {
    ck: Checkpoint,
    meta: CkptMeta,
    user_payload: Vec<u8>,
    k: u64,
    exec_cursor: usize,
    q_cursor: usize,
    executed: u64,
    skipped: u64,
}

struct ResilientWait {
    ck: Checkpoint,
    meta: CkptMeta,
    label: String,
    iteration: u64,
}

enum Mode {
    Normal,
    Replay(Box<Replay>),
    ResilientWait(Box<ResilientWait>),
    /// Restarting from a fast-forward checkpoint: loops run normally (start-up) until the
    /// first `fast_forward` call, which restores the checkpoint.
    FastForward(Box<Replay>),
}

struct Open {
    region: Region,
    sequence: u64,
    loop_index: u64,
    location: String,
    queries: Vec<LoggedQuery>,
    payload: Vec<u8>,
    state: TrackerState,
    history: Vec<HistEntry>,
    reductions: Vec<PendingReduction>,
    stall: Duration,
    time_unix: f64,
    resilient: Option<ResilientMeta>,
    fast_forward: Option<FastForwardMeta>,
    /// Distributed runs: the first snapshot that failed on this process. The region goes on
    /// (every process must close it at the same loop and exchange partner copies), then is
    /// abandoned here.
    failed: Option<String>,
    /// Snapshots still on their way from the device (see [`download`]).
    deferred: Vec<PendingRegion>,
}

/// What [`Resilience::resilient_enter`] decided for one iteration of a resilient region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enter {
    /// Run the closure.
    Run,
    /// Do not run it: a restart skips iterations up to the last saved one.
    Skip,
    /// Restore the saved data first ([`Resilience::resilient_restore`]), then run it.
    Restore,
}

/// The resilience observer. Install it with [`install`](crate::install) (from flags) or
/// build it with [`Resilience::new`] and `ops.set_observer(Some(Box::new(r)))`.
pub struct Resilience {
    cfg: ResilienceConfig,
    app: String,
    store: Option<Box<dyn CheckpointStore>>,
    mode: Mode,
    index: u64,
    dats: Vec<DatTrack>,
    ids: Vec<DatId>,
    locs: LocTable,
    fixed_match: Vec<Option<bool>>,
    seen: HashSet<(u32, u32), crate::track::FastState>,
    pure_writes: bool,
    /// Times the learnt location was dropped for a new location ([`MAX_RELEARN`]).
    relearns: u32,
    history: Vec<HistEntry>,
    init_history: Option<Vec<HistEntry>>,
    queries: Vec<LoggedQuery>,
    fp: Footprint,
    target: Target,
    reason: String,
    target_occ: u64,
    last_ckpt_occ: u64,
    dry: Vec<(u32, u64, Region)>,
    region: Option<Box<Open>>,
    manual: bool,
    manual_any: bool,
    last_end: Instant,
    last_cost: Option<Duration>,
    /// When the checkpoint location last occurred, and the stall time accumulated by then.
    last_pass_mark: Option<(Instant, Duration)>,
    /// Computing time between the last two occurrences of the checkpoint location (one pass
    /// of the time loop), the yardstick for stalls.
    last_pass: Option<Duration>,
    payload: Vec<u8>,
    list_set: bool,
    resilient_used: bool,
    in_closure: bool,
    closure_start: u64,
    closure_loops: u64,
    restart_payload: Option<Vec<u8>>,
    report: Report,
    error: Option<OpsError>,
    started: Instant,
    read_time: Duration,
    hook_time: Duration,
    /// Time the loops re-executed during a replay took (the replay's necessary work).
    replay_exec: Duration,
    /// When the re-executed loop now running started.
    replay_loop_started: Option<Instant>,
    stall_time: Duration,
    pool: BufPool,
    /// This process's rank and the number of processes (0 and 1 for a single process).
    rank: usize,
    ranks: usize,
    /// True once `rank`/`ranks` were given ([`Resilience::set_distribution`]) or read from the
    /// runtime at the first loop.
    dist_known: bool,
    /// Distributed runs: where this process keeps its copies of rank `rank - 1`'s checkpoints.
    partner: Option<Box<dyn CheckpointStore>>,
    /// The lowest sequence number the next checkpoint may carry; in a distributed run, the
    /// next checkpoint's number (agreed at start-up, the same on every process).
    next_seq: u64,
    /// The `fast_forward` call site that is the checkpoint location (once called).
    ff_key: Option<String>,
    /// Loops executed at the first `fast_forward` call (the start-up).
    ff_first: Option<u64>,
    /// Loop index at the last `fast_forward` call, and the largest gap between two calls.
    ff_last: Option<u64>,
    ff_gap: u64,
    /// Warned about a second `fast_forward` call site.
    ff_warned: bool,
    /// The program ended (in [`LoopObserver::finish`]).
    finishing: bool,
}

fn scalar_bytes(s: Scalar) -> (ElemType, Vec<u8>) {
    match s {
        Scalar::F64(v) => (ElemType::F64, v.to_le_bytes().to_vec()),
        Scalar::F32(v) => (ElemType::F32, v.to_le_bytes().to_vec()),
        Scalar::I32(v) => (ElemType::I32, v.to_le_bytes().to_vec()),
    }
}

fn scalar_from(elem: ElemType, b: &[u8]) -> Option<Scalar> {
    Some(match elem {
        ElemType::F64 => Scalar::F64(f64::from_le_bytes(b.try_into().ok()?)),
        ElemType::F32 => Scalar::F32(f32::from_le_bytes(b.try_into().ok()?)),
        ElemType::I32 => Scalar::I32(i32::from_le_bytes(b.try_into().ok()?)),
    })
}

fn describe(q: &LoggedQuery) -> String {
    match q {
        LoggedQuery::Reduction { name, elem, .. } => format!("reduction `{name}` ({elem})"),
        LoggedQuery::Fetch { dat, bytes } => format!("fetch of `{dat}` ({} bytes)", bytes.len()),
    }
}

/// Copies the part of one box of dataset `id` that this process owns out of the backend (the
/// whole box for a single process; nothing when it owns none of it): no communication.
///
/// With `deferred` (single processes), a backend with a device-to-host transfer to overlap
/// only starts it: the region comes back without bytes and the transfer joins `deferred`, to
/// be waited for by whoever writes the checkpoint.
fn download(
    ops: &mut Ops,
    pool: &BufPool,
    id: DatId,
    t: &DatTrack,
    b: &Bx,
    deferred: Option<&mut Vec<PendingRegion>>,
) -> Result<Option<SavedRegion>, String> {
    let range = b.to_range(t.layout.dims);
    let err = |e: OpsError| format!("snapshot of `{}` {b}: {e}", t.name);
    if let Some(deferred) = deferred {
        if let Some(bytes) = ops.begin_download_bytes(id, &range).map_err(err)? {
            deferred.push(PendingRegion {
                dat: t.name.clone(),
                lo: b.lo,
                bytes,
            });
            return Ok(Some(SavedRegion {
                lo: b.lo,
                hi: b.hi,
                bytes: Vec::new(),
            }));
        }
    }
    let own = ops.owned_part(id, &range).map_err(err)?;
    if own.is_empty() {
        return Ok(None);
    }
    let ob = if own == range {
        *b
    } else {
        Bx::from_range(&own)
    };
    let mut out = pool.take(ob.points() as usize * t.point_bytes() as usize);
    ops.download_owned_bytes(id, &own, &mut out).map_err(err)?;
    Ok(Some(SavedRegion {
        lo: ob.lo,
        hi: ob.hi,
        bytes: out,
    }))
}

/// The snapshot function's answer in a region: a single process abandons the checkpoint on the
/// first failed copy; a process of a distributed run notes it and goes on without the box, so
/// that it closes the region at the same loop as every other process (and exchanges partner
/// copies with them), then abandons its checkpoint.
fn snap_or_defer(
    r: Result<Option<SavedRegion>, String>,
    distributed: bool,
    failed: &mut Option<String>,
) -> Result<Option<SavedRegion>, String> {
    match r {
        Err(e) if distributed => {
            failed.get_or_insert(e);
            Ok(None)
        }
        r => r,
    }
}

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
            store,
            mode: Mode::Normal,
            index: 0,
            dats: Vec::new(),
            ids: Vec::new(),
            locs: LocTable::default(),
            fixed_match: Vec::new(),
            seen: HashSet::default(),
            pure_writes: true,
            relearns: 0,
            history: Vec::new(),
            init_history: Some(Vec::new()),
            queries: Vec::new(),
            fp: Footprint::default(),
            target: Target::Learn,
            reason: String::new(),
            target_occ: 0,
            last_ckpt_occ: 0,
            dry: Vec::new(),
            region: None,
            manual: false,
            manual_any: false,
            last_end: Instant::now(),
            last_cost: None,
            last_pass_mark: None,
            last_pass: None,
            payload: Vec::new(),
            list_set: false,
            resilient_used: false,
            in_closure: false,
            closure_start: 0,
            closure_loops: 0,
            restart_payload: None,
            report,
            error: None,
            started: Instant::now(),
            read_time: Duration::ZERO,
            replay_exec: Duration::ZERO,
            replay_loop_started: None,
            hook_time: Duration::ZERO,
            stall_time: Duration::ZERO,
            pool: BufPool::default(),
            rank: 0,
            ranks: 1,
            dist_known: false,
            partner: None,
            next_seq: 1,
            ff_key: None,
            ff_first: None,
            ff_last: None,
            ff_gap: 0,
            ff_warned: false,
            finishing: false,
            cfg,
        }
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
        self.rank = rank;
        self.ranks = ranks.max(1);
        self.dist_known = true;
        self.partner = partner;
        self.report.rank = self.rank;
        self.report.ranks = self.ranks;
    }

    /// The sequence number the next checkpoint carries at least (a single process takes the
    /// larger of this and its store's [`CheckpointStore::next_sequence`]); in a distributed
    /// run exactly this, then one more per checkpoint, the same on every process.
    /// [`install`](crate::install) sets it to one past every checkpoint file in the directory
    /// tree, agreed by all processes.
    pub fn set_next_sequence(&mut self, sequence: u64) {
        self.next_seq = sequence.max(1);
    }

    /// This process's rank (0 for a single process).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of processes (1 for a single process).
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// `"rank R: "` in a distributed run, nothing otherwise: what warnings and errors start with.
    fn prefix(&self) -> String {
        if self.ranks > 1 {
            format!("rank {}: ", self.rank)
        } else {
            String::new()
        }
    }

    /// True on the process that prints diagnostics (rank 0).
    fn speaks(&self) -> bool {
        self.rank == 0
    }

    /// The configuration.
    pub fn config(&self) -> &ResilienceConfig {
        &self.cfg
    }

    /// The report so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Every loop location seen so far, with its statistics.
    pub fn locations(&self) -> &[crate::location::LocInfo] {
        &self.locs.locs
    }

    /// Loops seen so far (the next loop's index).
    pub fn loop_index(&self) -> u64 {
        self.index
    }

    /// True while replaying towards a checkpoint.
    pub fn replaying(&self) -> bool {
        matches!(self.mode, Mode::Replay(_))
    }

    /// The store, if checkpoints are written.
    pub fn store(&self) -> Option<&dyn CheckpointStore> {
        self.store.as_deref()
    }

    /// Prepares a restart from what [`CheckpointStore::find_latest`] found: reports rejected
    /// files, and either says there is nothing to restart from or enters replay (or, for a
    /// resilient region's checkpoint, waits for that region).
    pub fn restart_with(&mut self, found: Found) -> Result<(), String> {
        self.read_time = found.read;
        let dir = self
            .cfg
            .dir
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let rejected: Vec<RejectedReport> = found
            .rejected
            .iter()
            .map(|r| RejectedReport {
                path: r.path.display().to_string(),
                reason: r.reason.clone(),
            })
            .collect();
        if self.speaks() {
            for r in &rejected {
                eprintln!(
                    "ops-resilience: rejected checkpoint {}: {}",
                    r.path, r.reason
                );
            }
        }
        match found.checkpoint {
            None => {
                if self.speaks() {
                    eprintln!(
                        "ops-resilience: no complete checkpoint in {dir}; starting from the \
                         beginning"
                    );
                }
                self.report.restore = Some(RestoreReport {
                    rejected,
                    read_s: found.read.as_secs_f64(),
                    ..RestoreReport::default()
                });
                Ok(())
            }
            Some(ck) => {
                self.restart_from(ck)?;
                if let Some(r) = self.report.restore.as_mut() {
                    r.rejected = rejected;
                    r.read_s = found.read.as_secs_f64();
                }
                Ok(())
            }
        }
    }

    /// Prepares a restart from what [`Layout::newest_complete`](crate::store::Layout) found
    /// (and the processes agreed on): reports rejected files and, per rank, whether its own
    /// file or its partner copy is used; merges the ranks' files
    /// ([`CompleteSet::merge`](crate::store::dist::CompleteSet::merge)) and enters replay, or
    /// says there is nothing to restart from.
    pub fn restart_with_search(&mut self, search: Search) -> Result<(), String> {
        let rejected: Vec<Rejected> = search.rejected.clone();
        let set = search.complete;
        let found = Found {
            checkpoint: None,
            rejected,
            read: search.read,
        };
        let Some(set) = set else {
            return self.restart_with(found);
        };
        let (sequence, ranks) = (set.sequence, set.ranks);
        let files: Vec<RestoreFile> = set
            .parts
            .iter()
            .map(|p| RestoreFile {
                rank: p.rank,
                path: p.path.display().to_string(),
                partner: p.partner,
            })
            .collect();
        if self.speaks() {
            // An own file a partner copy stands in for is said once, below.
            let replaced: Vec<&Rejected> = set
                .parts
                .iter()
                .filter_map(|p| p.own_rejected.as_ref())
                .collect();
            for r in found.rejected.iter().filter(|r| !replaced.contains(r)) {
                eprintln!(
                    "ops-resilience: rejected checkpoint {}: {}",
                    r.path.display(),
                    r.reason
                );
            }
            for p in set.parts.iter().filter(|p| p.partner) {
                let why = p
                    .own_rejected
                    .as_ref()
                    .map(|r| format!("{}: {}", r.path.display(), r.reason))
                    .unwrap_or_default();
                eprintln!(
                    "ops-resilience: checkpoint {sequence}, rank {}: own file not usable ({why}); \
                     using the partner copy {}",
                    p.rank,
                    p.path.display()
                );
            }
        }
        let ck = set.merge()?;
        self.read_time = found.read;
        self.restart_from(ck)?;
        if let Some(r) = self.report.restore.as_mut() {
            r.rejected = found
                .rejected
                .iter()
                .map(|r| RejectedReport {
                    path: r.path.display().to_string(),
                    reason: r.reason.clone(),
                })
                .collect();
            r.read_s = found.read.as_secs_f64();
            r.ranks = Some(ranks);
            r.files = files;
        }
        Ok(())
    }

    /// Enters replay towards `ck` (or waits for its resilient region).
    pub fn restart_from(&mut self, ck: Checkpoint) -> Result<(), String> {
        let (meta, user) = unframe(&ck.payload)?;
        if ck.meta.app != self.app && self.cfg.app.is_some() {
            // Names only decide file names; a mismatch is worth a word, not a failure.
            self.report.warnings.push(format!(
                "restarting from a checkpoint of `{}` as `{}`",
                ck.meta.app, self.app
            ));
        }
        self.restart_payload = Some(user.clone());
        self.report.restore = Some(RestoreReport {
            sequence: Some(ck.meta.sequence),
            loop_index: Some(ck.meta.loop_index),
            location: Some(ck.meta.location.clone()),
            bytes: ck.data_bytes() as u64,
            ..RestoreReport::default()
        });
        if let Some(r) = self.report.restore.as_mut() {
            r.fast_forward = meta.fast_forward.is_some() && meta.resilient.is_none();
        }
        let replay = |ck: Checkpoint, meta: CkptMeta, user: Vec<u8>| {
            Box::new(Replay {
                k: ck.meta.loop_index,
                ck,
                meta,
                user_payload: user,
                exec_cursor: 0,
                q_cursor: 0,
                executed: 0,
                skipped: 0,
            })
        };
        self.mode = match &meta.resilient {
            Some(r) => Mode::ResilientWait(Box::new(ResilientWait {
                label: r.label.clone(),
                iteration: r.iteration,
                ck,
                meta,
            })),
            None if meta.fast_forward.is_some() => Mode::FastForward(replay(ck, meta, user)),
            None => Mode::Replay(replay(ck, meta, user)),
        };
        Ok(())
    }

    // ----------------------------------------------------------------------------------------
    // User API (reached through `ResilienceExt`)
    // ----------------------------------------------------------------------------------------

    /// Fixes the checkpoint location: a loop name, `name@file:line`, a full
    /// `name@file:line:col`, or `*` (whatever loop comes next).
    pub fn set_location(&mut self, spec: &str) {
        self.target = if spec == "*" {
            Target::Any
        } else {
            Target::Fixed(spec.to_string())
        };
        self.fixed_match.clear();
        self.reason = "fixed by the program (checkpoint_location)".into();
        self.dry.clear();
        self.report.location.chosen = Some(spec.to_string());
        self.report.location.reason = self.reason.clone();
    }

    /// Restricts checkpoints to these datasets (by index).
    pub fn set_datasets(&mut self, ops: &Ops, ids: &[DatId]) {
        self.sync(ops);
        self.list_set = true;
        for d in &mut self.dats {
            d.listed = false;
        }
        for id in ids {
            if let Some(d) = self.dats.get_mut(id.index()) {
                d.listed = true;
            }
        }
    }

    /// The fast-forward payload stored with the next checkpoints.
    pub fn set_payload(&mut self, bytes: &[u8]) {
        self.payload = bytes.to_vec();
    }

    /// The payload of the checkpoint this run restarts from.
    pub fn restart_payload(&self) -> Option<&[u8]> {
        self.restart_payload.as_deref()
    }

    /// Asks for a checkpoint at the next occurrence of the checkpoint location (choosing one
    /// now if still learning; the very next loop if nothing recurs yet).
    pub fn request_checkpoint(&mut self) {
        self.manual = true;
        if self.target == Target::Learn {
            self.try_choose(self.index, true);
            if self.target == Target::Learn {
                self.manual_any = true;
            }
        }
    }

    /// End of initialisation: every point loops wrote so far is recomputed at restore (by
    /// re-executing the loops before this call that produced it) rather than saved, and no
    /// later loop write is recomputable.
    pub fn end_of_init(&mut self) {
        if self.replaying() {
            // The state at the checkpoint is restored from it; nothing to do.
            self.init_history = None;
            self.pure_writes = false;
            return;
        }
        match self.init_history.take() {
            Some(h) => {
                self.history = h;
                for d in &mut self.dats {
                    let imp = std::mem::take(&mut d.impure);
                    d.pure.add_list(&imp);
                    if d.pure.len() > 4 * crate::track::MAX_BOXES {
                        // Keep it exact or keep it impure; never approximate a pure set.
                        d.impure = d.pure.clone();
                        d.pure.clear();
                    }
                }
            }
            None => self.report.warnings.push(format!(
                "end_of_init after more than {MAX_INIT_HISTORY} loops: ignored (the data are \
                 saved instead of recomputed)"
            )),
        }
        self.pure_writes = false;
    }

    /// Marks a dataset transient: never saved.
    pub fn mark_transient(&mut self, ops: &Ops, id: DatId) {
        self.sync(ops);
        if let Some(d) = self.dats.get_mut(id.index()) {
            d.transient = true;
        }
    }

    /// Marks a dataset read-only: never saved, and writing it later is an error.
    pub fn mark_read_only(&mut self, ops: &Ops, id: DatId) {
        self.sync(ops);
        let replaying = self.replaying();
        let prefix = self.prefix();
        if let Some(d) = self.dats.get_mut(id.index()) {
            d.read_only = true;
            if !d.impure.is_empty() && !replaying {
                let w = format!(
                    "dataset `{}` was marked read-only but holds values from recurring loops \
                     ({}); it is not saved, so a restart relies on the program recomputing it",
                    d.name,
                    human_bytes(d.bytes_of(&d.impure))
                );
                eprintln!("ops-resilience: {prefix}warning: {w}");
                self.report.warnings.push(w);
            }
        }
    }

    /// Declares two datasets the halves of a double buffer: a checkpoint saves at most one of
    /// them (the one written last before the checkpoint).
    pub fn mark_aliases(&mut self, ops: &Ops, a: DatId, b: DatId) {
        self.sync(ops);
        if a == b || a.index() >= self.dats.len() || b.index() >= self.dats.len() {
            return;
        }
        self.dats[a.index()].alias = Some(b.index() as u32);
        self.dats[b.index()].alias = Some(a.index() as u32);
    }

    /// Decides what to do with iteration `iteration` of resilient region `label`.
    pub fn resilient_enter(&mut self, label: &str, iteration: u64) -> Enter {
        self.resilient_used = true;
        let decision = match &self.mode {
            Mode::ResilientWait(w) if w.label == label => {
                if iteration <= w.iteration {
                    Enter::Skip
                } else {
                    Enter::Restore
                }
            }
            _ => Enter::Run,
        };
        if decision != Enter::Skip {
            self.in_closure = true;
            self.closure_start = self.index;
        }
        decision
    }

    /// True while a resilient region's body runs.
    pub fn in_resilient(&self) -> bool {
        self.in_closure
    }

    /// A resilient region's body failed: leave it without checkpointing.
    pub fn resilient_abort(&mut self) {
        self.in_closure = false;
    }

    /// Restores a resilient region's checkpoint before its first iteration that runs.
    pub fn resilient_restore(&mut self, ops: &mut Ops) -> Result<(), String> {
        let Mode::ResilientWait(w) = std::mem::replace(&mut self.mode, Mode::Normal) else {
            return Ok(());
        };
        let upload = self.upload_checkpoint(ops, &w.ck, &w.meta)?;
        // The loops of the skipped iterations were never seen here: what they wrote is what
        // the checkpoint says resilient regions wrote.
        for ds in &w.meta.state.dats {
            if let Some(i) = self.dats.iter().position(|d| d.name == ds.name) {
                let d = &mut self.dats[i];
                d.closure.add_list(&ds.closure);
                d.written.add_list(&ds.closure);
                d.impure.add_list(&ds.closure);
                d.pure.remove_list(&ds.closure);
                d.impure.coarsen_over(crate::track::MAX_BOXES);
                d.written.coarsen_over(crate::track::MAX_BOXES);
            }
        }
        self.report_restore(upload, |_| {});
        Ok(())
    }

    /// After an iteration of a resilient region ran: checkpoints what resilient regions wrote
    /// when one is due (every N-th iteration: `iteration % N == 0`, or the interval elapsed).
    ///
    /// In a distributed run every process must call it for the same iterations (it may agree
    /// with the others on whether the interval elapsed).
    pub fn resilient_exit(&mut self, ops: &mut Ops, label: &str, iteration: u64) {
        self.in_closure = false;
        self.closure_loops = self.closure_loops.max(self.index - self.closure_start);
        if self.store.is_none() || !matches!(self.mode, Mode::Normal) || self.region.is_some() {
            return;
        }
        let mut due = self.manual;
        if let Some(n) = self.cfg.effective_every() {
            due |= iteration.is_multiple_of(n);
        }
        if !due {
            due = self.interval_due_agreed(ops);
        }
        if !due {
            return;
        }
        self.manual = false;
        self.refresh_live(ops);
        let bound = MIN_REGION_LOOPS.max(2 * self.closure_loops);
        self.open_region(
            ops,
            self.index,
            format!("resilient:{label}@{iteration}"),
            bound,
            Some(ResilientMeta {
                label: label.to_string(),
                iteration,
            }),
        );
    }

    /// The application's `fast_forward` call at `key` (`fast_forward@file:line:col`) with its
    /// own state `payload`: in a normal run the call site is the checkpoint location (a region
    /// opens here when a checkpoint is due, storing `payload`) and the answer is `None`; in a
    /// run restarting from a fast-forward checkpoint the first call restores it and answers
    /// the checkpoint's payload. During a replay (and in runs using resilient regions) it does
    /// nothing.
    pub fn fast_forward(
        &mut self,
        ops: &mut Ops,
        key: &str,
        payload: &[u8],
    ) -> Result<Option<Vec<u8>>, String> {
        let t0 = Instant::now();
        let out = self.fast_forward_inner(ops, key, payload);
        self.hook_time += t0.elapsed();
        if let Err(e) = &out {
            // Loops after a failed restore must not run as if restored.
            self.fail(e.clone());
        }
        out
    }

    fn fast_forward_inner(
        &mut self,
        ops: &mut Ops,
        key: &str,
        payload: &[u8],
    ) -> Result<Option<Vec<u8>>, String> {
        match &self.mode {
            Mode::Replay(_) => {
                // The replayed run's first call, for checkpoints this run takes later.
                if self.ff_first.is_none() {
                    self.ff_first = Some(self.index);
                }
                return Ok(None);
            }
            Mode::ResilientWait(_) => return Ok(None),
            Mode::FastForward(_) => return self.restore_fast_forward(ops, key).map(Some),
            Mode::Normal => {}
        }
        if self.resilient_used {
            return Ok(None);
        }
        match self.ff_key.as_deref() {
            Some(k) if k == key => {}
            Some(k) => {
                if !self.ff_warned {
                    self.ff_warned = true;
                    let w = format!(
                        "fast_forward called at `{key}` too; only the first call site, `{k}`, \
                         takes checkpoints"
                    );
                    self.warn_from_rank0(w);
                }
                return Ok(None);
            }
            None => {
                self.sync(ops);
                if self.ff_first.is_none() {
                    self.ff_first = Some(self.index);
                }
                // What the loops before the first call wrote is recomputed by running them
                // again (a restarted run runs its start-up normally); later writes are saved.
                if self.init_history.is_some() {
                    self.end_of_init();
                } else {
                    self.pure_writes = false;
                }
                self.ff_key = Some(key.to_string());
                self.target = Target::Fixed(key.to_string());
                self.fixed_match.clear();
                self.dry.clear();
                self.manual_any = false;
                self.reason = "the fast_forward call site".into();
                self.target_occ = 0;
                self.last_ckpt_occ = 0;
                self.report.location.chosen = Some(key.to_string());
                self.report.location.reason = self.reason.clone();
                self.report.location.chosen_at_loop = Some(self.index);
            }
        }
        if let Some(prev) = self.ff_last {
            self.ff_gap = self.ff_gap.max(self.index - prev);
        }
        self.ff_last = Some(self.index);
        self.payload.clear();
        self.payload.extend_from_slice(payload);
        self.target_occ += 1;
        if self.store.is_none() {
            return Ok(None);
        }
        if self.region.as_ref().is_some_and(|o| o.region.expired()) {
            self.close_region(ops);
        }
        if self.region.is_none() && self.due(ops) {
            self.sync(ops);
            self.refresh_live(ops);
            let bound = MIN_REGION_LOOPS.max(2 * self.ff_gap);
            self.open_region(ops, self.index, key.to_string(), bound, None);
            let ff = FastForwardMeta {
                location: key.to_string(),
                first_call_loop: self.ff_first.unwrap_or(0),
                gap: self.ff_gap,
            };
            if let Some(o) = self.region.as_mut() {
                o.fast_forward = Some(ff);
            }
        }
        Ok(None)
    }

    /// The first `fast_forward` call of a run restarting from a fast-forward checkpoint: the
    /// start-up loops ran; upload the saved boxes, restore reductions and the tracker's state,
    /// jump to the checkpoint's loop index, and hand back the application's payload.
    fn restore_fast_forward(&mut self, ops: &mut Ops, key: &str) -> Result<Vec<u8>, String> {
        let Mode::FastForward(r) = std::mem::replace(&mut self.mode, Mode::Normal) else {
            unreachable!("called in fast-forward mode");
        };
        let seq = r.ck.meta.sequence;
        let ff = r
            .meta
            .fast_forward
            .clone()
            .ok_or("not a fast-forward checkpoint")?;
        if key != ff.location {
            return Err(format!(
                "restart from fast-forward checkpoint {seq}: fast_forward is called at `{key}` \
                 in this run, the checkpoint was taken at `{}`",
                ff.location
            ));
        }
        let startup = self.index;
        if startup != ff.first_call_loop {
            return Err(format!(
                "restart from fast-forward checkpoint {seq}: this run called fast_forward first \
                 after {startup} loops, the checkpointed run after {}: the start-up differs",
                ff.first_call_loop
            ));
        }
        if let Some(late) = r.meta.replay.iter().find(|&&i| i >= startup) {
            return Err(format!(
                "cannot fast-forward to checkpoint {seq}: it recomputes data by re-executing \
                 loop {late}, which comes after the start-up (the {startup} loops before the \
                 first fast_forward call) and does not run again; restart by replay instead \
                 (a run without fast_forward calls)"
            ));
        }
        let upload = self.upload_checkpoint(ops, &r.ck, &r.meta)?;
        let loop_index = r.ck.meta.loop_index;
        let user_payload = r.user_payload.clone();
        self.resume_from(*r)?;
        self.index = loop_index;
        self.ff_key = Some(key.to_string());
        self.ff_first = Some(ff.first_call_loop);
        self.ff_last = Some(self.index);
        self.ff_gap = ff.gap;
        self.report_restore(upload, |rep| {
            rep.fast_forward = true;
            rep.executed_loops = startup;
            rep.skipped_loops = loop_index.saturating_sub(startup);
            rep.replayed_queries = 0;
        });
        Ok(user_payload)
    }

    /// Uploads a checkpoint's saved boxes and its pending reductions; the time it took.
    fn upload_checkpoint(
        &mut self,
        ops: &mut Ops,
        ck: &Checkpoint,
        meta: &CkptMeta,
    ) -> Result<Duration, String> {
        let t0 = Instant::now();
        self.sync(ops);
        self.upload(ops, ck)?;
        Self::restore_reductions(ops, meta)?;
        Ok(t0.elapsed())
    }

    /// Takes over a restored checkpoint's tracker state, query log and payload, so the run
    /// goes on as the checkpointed run would have.
    fn resume_from(&mut self, r: Replay) -> Result<(), String> {
        let Replay {
            ck,
            meta,
            user_payload,
            ..
        } = r;
        let history = meta.state.history.clone();
        self.restore_state(meta.state, history)?;
        self.queries = ck.queries;
        self.payload = user_payload;
        Ok(())
    }

    /// The end of every restore: the report's timings, what `fill` adds for this kind of
    /// restore, and the line a restart always prints to say where it restarted from.
    fn report_restore(&mut self, upload: Duration, fill: impl FnOnce(&mut RestoreReport)) {
        self.last_end = Instant::now();
        if let Some(rep) = self.report.restore.as_mut() {
            rep.replay_s = self.started.elapsed().as_secs_f64();
            rep.upload_s = upload.as_secs_f64();
            rep.reexec_s = self.replay_exec.as_secs_f64();
            fill(rep);
        }
        if let Some(rep) = self.report.restore.as_ref().filter(|_| self.speaks()) {
            eprint!("{}", Report::restore_text(rep));
        }
    }

    // ----------------------------------------------------------------------------------------
    // Bookkeeping
    // ----------------------------------------------------------------------------------------

    /// Learns about datasets declared since the last call.
    fn sync(&mut self, ops: &Ops) {
        let n = ops.dat_count();
        if n == self.dats.len() {
            return;
        }
        while self.dats.len() < n {
            let i = self.dats.len();
            let id = ops.dat_id(i).expect("index below dat_count");
            let d = ops.dat_desc(id).expect("valid id");
            self.dats.push(DatTrack::new(
                format!("{}/{}", d.block_name, d.name),
                d.layout,
                d.live,
            ));
            self.ids.push(id);
        }
    }

    /// Refreshes which datasets are still allocated (before regions pick their targets).
    fn refresh_live(&mut self, ops: &Ops) {
        for (i, d) in self.dats.iter_mut().enumerate() {
            if d.live {
                d.live = ops.dat_desc(self.ids[i]).map(|x| x.live).unwrap_or(false);
            }
        }
    }

    fn target_matches(&mut self, loc: u32) -> bool {
        if self.ff_key.is_some() {
            // Regions open at the `fast_forward` call, never at a loop.
            return false;
        }
        if self.manual_any {
            return true;
        }
        match &self.target {
            Target::Learn => false,
            Target::Any => true,
            Target::Chosen(id) => *id == loc,
            Target::Fixed(spec) => {
                let i = loc as usize;
                if self.fixed_match.len() <= i {
                    self.fixed_match.resize(i + 1, None);
                }
                *self.fixed_match[i]
                    .get_or_insert_with(|| spec_matches(spec, &self.locs.locs[i].key))
            }
        }
    }

    fn interval_due(&self) -> bool {
        match self.cfg.interval {
            Some(Interval::Every(d)) => self.last_end.elapsed() >= d,
            Some(Interval::Auto) => match self.last_cost {
                None => true,
                Some(c) => {
                    let mtbf = self.cfg.mtbf.unwrap_or(Duration::from_secs(86400));
                    let young = (2.0 * c.as_secs_f64() * mtbf.as_secs_f64()).sqrt();
                    self.last_end.elapsed().as_secs_f64() >= young
                }
            },
            None => false,
        }
    }

    /// [`Resilience::interval_due`], the same on every process: in a distributed run the
    /// processes gather their answers and it is due when any says so (clocks and checkpoint
    /// costs differ between processes). Only called where every process is at the same loop;
    /// no communication without an interval, or for a single process.
    fn interval_due_agreed(&mut self, ops: &mut Ops) -> bool {
        if self.cfg.interval.is_none() {
            return false;
        }
        let mine = self.interval_due();
        if self.ranks <= 1 {
            return mine;
        }
        match crate::collective::any(ops, mine) {
            Ok(any) => any,
            Err(e) => {
                self.fail(format!("agreeing on the checkpoint interval: {e}"));
                false
            }
        }
    }

    fn due(&mut self, ops: &mut Ops) -> bool {
        if self.manual || self.manual_any {
            return true;
        }
        let every = self
            .cfg
            .effective_every()
            .map(|n| self.target_occ.is_multiple_of(n) && self.target_occ > self.last_ckpt_occ)
            .unwrap_or(false);
        every || self.interval_due_agreed(ops)
    }

    /// Chooses the location from the statistics if they suffice (or, `forced`, if anything
    /// is measured at all).
    fn try_choose(&mut self, now: u64, forced: bool) {
        if self.target != Target::Learn || (!forced && !self.locs.ready(now)) {
            return;
        }
        let Some((id, why)) = self.locs.choose(now) else {
            return;
        };
        self.target = Target::Chosen(id);
        self.reason = why;
        if self.store.is_some() && self.ranks <= 1 {
            // Prepare buffers for the first checkpoint's copies. (The dry regions measured
            // global boxes; a process of a distributed run copies only its part of them.)
            let sizes = self.locs.locs[id as usize].last_sizes.clone();
            self.pool.refill(sizes);
        }
        self.target_occ = self.locs.locs[id as usize].count;
        self.last_ckpt_occ = self.target_occ;
        let mut cands: Vec<Candidate> = self
            .locs
            .locs
            .iter()
            .filter_map(|l| {
                l.stats().map(|(min, mean, max)| Candidate {
                    location: l.key.clone(),
                    occurrences: l.count,
                    samples: l.sampled as usize,
                    bytes_min: min,
                    bytes_mean: mean,
                    bytes_max: max,
                })
            })
            .collect();
        cands.sort_by(|a, b| a.bytes_mean.total_cmp(&b.bytes_mean));
        self.report.location.candidates = cands;
        self.report.location.chosen = Some(self.locs.locs[id as usize].key.clone());
        self.report.location.reason = self.reason.clone();
        self.report.location.chosen_at_loop = Some(now);
        if self.cfg.diags >= 2 && self.speaks() {
            eprint!("{}", self.report.location_text(self.cfg.diags >= 3));
        }
    }

    /// Adds the entries of a region: save entries for what may need saving, recompute entries
    /// (real loop-level regions) for what a replay recomputes.
    fn add_targets(&self, r: &mut Region, resilient: bool, recompute: bool) {
        for (i, d) in self.dats.iter().enumerate() {
            if !d.live {
                continue;
            }
            let save_ok = !d.transient && !d.read_only && (!self.list_set || d.listed);
            let pb = d.point_bytes();
            if save_ok {
                let target = if resilient { &d.closure } else { &d.impure };
                r.add(i as u32, EntryKind::Save, target.clone(), pb);
            }
            if recompute && !resilient && !d.transient {
                r.add(i as u32, EntryKind::Recompute, d.pure.clone(), pb);
            }
        }
    }

    /// Save entries dropped as the older half of an alias pair (both would save something).
    fn alias_drops(&self, r: &Region) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        let save_of = |dat: u32| {
            r.entries
                .iter()
                .position(|e| e.dat == dat && e.kind == EntryKind::Save)
        };
        for (i, d) in self.dats.iter().enumerate() {
            let Some(b) = d.alias else { continue };
            if (b as usize) < i {
                continue;
            }
            let (Some(ea), Some(eb)) = (save_of(i as u32), save_of(b)) else {
                continue;
            };
            if r.entries[ea].save_points() == 0 || r.entries[eb].save_points() == 0 {
                continue;
            }
            let (la, lb) = (d.last_write, self.dats[b as usize].last_write);
            if la >= lb {
                out.push((eb, i as u32));
            } else {
                out.push((ea, b));
            }
        }
        out
    }

    fn state(&self) -> TrackerState {
        TrackerState {
            dats: self
                .dats
                .iter()
                .map(|d| DatState {
                    name: d.name.clone(),
                    written: d.written.clone(),
                    impure: d.impure.clone(),
                    pure: d.pure.clone(),
                    closure: d.closure.clone(),
                    last_write: d.last_write,
                })
                .collect(),
            locations: self.locs.locs.clone(),
            seen: self
                .seen
                .iter()
                .map(|(l, d)| (self.locs.locs[*l as usize].key.clone(), *d))
                .collect(),
            history: Vec::new(),
            pure_writes: self.pure_writes,
            chosen: match &self.target {
                Target::Learn => None,
                Target::Any => Some("*".into()),
                Target::Fixed(s) => Some(format!("fixed:{s}")),
                Target::Chosen(id) => Some(self.locs.locs[*id as usize].key.clone()),
            },
            reason: self.reason.clone(),
            target_occ: self.target_occ,
        }
    }

    fn restore_state(&mut self, st: TrackerState, history: Vec<HistEntry>) -> Result<(), String> {
        for (i, ds) in st.dats.iter().enumerate() {
            let Some(d) = self.dats.get_mut(i) else {
                return Err(format!(
                    "the checkpoint knows dataset `{}` (declared {}th), which this run has not \
                     declared by the checkpoint's loop",
                    ds.name,
                    i + 1
                ));
            };
            if d.name != ds.name {
                return Err(format!(
                    "dataset {} is `{}` in the checkpoint but `{}` in this run: the program \
                     declares its datasets differently",
                    i + 1,
                    ds.name,
                    d.name
                ));
            }
            d.written = ds.written.clone();
            d.impure = ds.impure.clone();
            d.pure = ds.pure.clone();
            d.closure = ds.closure.clone();
            d.last_write = ds.last_write;
        }
        self.locs = LocTable::from_infos(st.locations);
        for l in &mut self.locs.locs {
            l.sampling = false;
        }
        self.fixed_match.clear();
        self.seen = st
            .seen
            .iter()
            .filter_map(|(k, d)| self.locs.find_key(k).map(|l| (l, *d)))
            .collect();
        self.history = history;
        self.pure_writes = st.pure_writes;
        self.init_history = None;
        self.dry.clear();
        self.reason = st.reason;
        self.target_occ = st.target_occ;
        self.last_ckpt_occ = st.target_occ;
        if !matches!(self.target, Target::Fixed(_) | Target::Any) {
            self.target = match st.chosen.as_deref() {
                None => Target::Learn,
                Some("*") => Target::Any,
                Some(k) => match k.strip_prefix("fixed:") {
                    Some(spec) => Target::Fixed(spec.to_string()),
                    None => match self.locs.find_key(k) {
                        Some(id) => Target::Chosen(id),
                        None => Target::Learn,
                    },
                },
            };
        }
        if let Target::Chosen(id) = self.target {
            self.report.location.chosen = Some(self.locs.locs[id as usize].key.clone());
            self.report.location.reason = format!("{} (restored)", self.reason);
        }
        Ok(())
    }

    /// Restores the reductions' running values recorded in a checkpoint.
    fn restore_reductions(ops: &mut Ops, meta: &CkptMeta) -> Result<(), String> {
        let names: Vec<String> = ops
            .reduction_values()
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
        for (i, pr) in meta.reductions.iter().enumerate() {
            if names.get(i) != Some(&pr.name) {
                return Err(format!(
                    "the checkpoint's reduction {} is `{}`, this run declared {} by then",
                    i + 1,
                    pr.name,
                    names
                        .get(i)
                        .map(|n| format!("`{n}`"))
                        .unwrap_or_else(|| "none".into())
                ));
            }
            let v = pr
                .value()
                .ok_or_else(|| format!("reduction `{}`: unknown type {}", pr.name, pr.ty))?;
            ops.set_reduction_value(i, v)
                .map_err(|e| format!("restoring reduction `{}`: {e}", pr.name))?;
        }
        Ok(())
    }

    /// Uploads a checkpoint's saved boxes, by dataset name.
    fn upload(&mut self, ops: &mut Ops, ck: &Checkpoint) -> Result<(), String> {
        for sd in &ck.dats {
            let Some(i) = self.dats.iter().position(|d| d.live && d.name == sd.name) else {
                return Err(format!(
                    "the checkpoint saves dataset `{}`, which this run has not declared",
                    sd.name
                ));
            };
            let d = &self.dats[i];
            if d.layout.ty != sd.elem || d.layout.components != sd.components {
                return Err(format!(
                    "dataset `{}`: the checkpoint holds {} x {}, this run declares {} x {}",
                    sd.name, sd.components, sd.elem, d.layout.components, d.layout.ty
                ));
            }
            for r in &sd.regions {
                let b = Bx::new(r.lo, r.hi);
                let range = b.to_range(d.layout.dims);
                if !d.layout.contains(&range) {
                    return Err(format!(
                        "dataset `{}`: saved box {b} lies outside its extent {}",
                        sd.name,
                        d.layout.extent()
                    ));
                }
                ops.upload_bytes(self.ids[i], &range, &r.bytes)
                    .map_err(|e| format!("restoring `{}` {b}: {e}", sd.name))?;
            }
        }
        Ok(())
    }

    /// Reached the checkpoint's loop while replaying: restore and go on normally.
    fn restore_replay(&mut self, ops: &mut Ops, plan: &LoopPlan<'_>) -> Result<(), String> {
        let Mode::Replay(r) = std::mem::replace(&mut self.mode, Mode::Normal) else {
            return Ok(());
        };
        let key = crate::location::key_of(plan);
        if key != r.ck.meta.location {
            return Err(format!(
                "restart diverged: loop {} is `{key}` in this run but `{}` in the checkpoint",
                r.k, r.ck.meta.location
            ));
        }
        if r.q_cursor != r.ck.queries.len() {
            return Err(format!(
                "restart diverged: the program asked for {} value(s) before loop {}, the \
                 checkpoint logged {}",
                r.q_cursor,
                r.k,
                r.ck.queries.len()
            ));
        }
        let upload = self.upload_checkpoint(ops, &r.ck, &r.meta)?;
        let (executed, skipped, replayed) = (r.executed, r.skipped, r.q_cursor as u64);
        self.resume_from(*r)?;
        self.report_restore(upload, |rep| {
            rep.executed_loops = executed;
            rep.skipped_loops = skipped;
            rep.replayed_queries = replayed;
        });
        Ok(())
    }

    fn open_region(
        &mut self,
        ops: &Ops,
        index: u64,
        location: String,
        bound: u64,
        resilient: Option<ResilientMeta>,
    ) {
        let t0 = Instant::now();
        if self.store.is_none() {
            return;
        }
        self.poll_completed();
        let sequence = if self.ranks > 1 {
            // Every process numbers the same: no directory scan that could differ.
            self.next_seq
        } else {
            match self.store.as_ref().map(|s| s.next_sequence()) {
                Some(Ok(s)) => s.max(self.next_seq),
                Some(Err(e)) => {
                    self.warn(format!("checkpoint skipped: {e}"));
                    return;
                }
                None => return,
            }
        };
        self.next_seq = sequence + 1;
        let mut region = Region::new(index, bound, true);
        self.add_targets(&mut region, resilient.is_some(), true);
        let mut state = self.state();
        state.history.clear();
        self.last_ckpt_occ = self.target_occ;
        self.manual = false;
        self.manual_any = false;
        self.region = Some(Box::new(Open {
            region,
            sequence,
            loop_index: index,
            location,
            queries: self.queries.clone(),
            payload: self.payload.clone(),
            state,
            history: self.history.clone(),
            reductions: ops
                .reduction_values()
                .into_iter()
                .map(|(n, v)| PendingReduction::new(n, v))
                .collect(),
            stall: Duration::ZERO,
            time_unix: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0),
            resilient,
            fast_forward: None,
            failed: None,
            deferred: Vec::new(),
        }));
        if let Some(o) = self.region.as_mut() {
            o.stall = t0.elapsed();
        }
        self.stall_time += t0.elapsed();
    }

    /// A warning every process has (the same text): printed by rank 0, recorded by all.
    pub(crate) fn warn_from_rank0(&mut self, w: String) {
        if self.speaks() {
            eprintln!("ops-resilience: {w}");
        }
        self.report.warnings.push(w);
    }

    fn warn(&mut self, w: String) {
        eprintln!("ops-resilience: {}{w}", self.prefix());
        self.report.warnings.push(w);
    }

    /// The snapshot function of the open region (whose failure note and pending transfers are
    /// `failed` and `deferred`): copies one box of a dataset out of the backend, or, in a
    /// single process, starts its transfer ([`download`]); see [`snap_or_defer`] for failures.
    fn snapshots<'a>(
        &'a self,
        ops: &'a mut Ops,
        failed: &'a mut Option<String>,
        deferred: &'a mut Vec<PendingRegion>,
    ) -> impl FnMut(u32, &Bx) -> Result<Option<SavedRegion>, String> + 'a {
        let distributed = self.ranks > 1;
        move |dat: u32, b: &Bx| {
            let i = dat as usize;
            let deferred = (!distributed).then_some(&mut *deferred);
            let r = download(ops, &self.pool, self.ids[i], &self.dats[i], b, deferred);
            snap_or_defer(r, distributed, failed)
        }
    }

    /// Feeds a loop (or a set, as a write-only footprint) to the open region, copying what it
    /// is about to overwrite; closes the region when everything is decided.
    fn feed_region(&mut self, ops: &mut Ops, fp: &Footprint) {
        let Some(mut open) = self.region.take() else {
            return;
        };
        let t0 = Instant::now();
        let res = {
            let mut snap = self.snapshots(ops, &mut open.failed, &mut open.deferred);
            open.region.on_loop(fp, &mut snap as &mut SnapFn<'_>)
        };
        open.stall += t0.elapsed();
        self.stall_time += t0.elapsed();
        if let Err(e) = res {
            self.warn(format!("checkpoint {} abandoned: {e}", open.sequence));
            return;
        }
        let done = open.region.all_decided();
        self.region = Some(open);
        if done {
            self.close_region(ops);
        }
    }

    /// Closes the open region and commits its checkpoint.
    fn close_region(&mut self, ops: &mut Ops) {
        let Some(mut open) = self.region.take() else {
            return;
        };
        let t0 = Instant::now();
        let distributed = self.ranks > 1;
        let closed = {
            let mut snap = self.snapshots(ops, &mut open.failed, &mut open.deferred);
            open.region.close(&mut snap as &mut SnapFn<'_>)
        };
        if let Some(e) = closed.err().or(open.failed.take()) {
            self.warn(format!("checkpoint {} abandoned: {e}", open.sequence));
            // The other processes still send their copies and wait for ours.
            self.exchange_partner(ops, open.sequence, Vec::new());
            return;
        }
        let t_copied = t0.elapsed();
        let drops = self.alias_drops(&open.region);
        let mut dropped_alias: Vec<Option<u32>> = vec![None; open.region.entries.len()];
        for (e, other) in &drops {
            dropped_alias[*e] = Some(*other);
        }
        // Decisions and saved data.
        let mut saved: Vec<SavedDat> = Vec::new();
        let mut saved_reports = Vec::new();
        let mut decisions = Vec::new();
        let mut live: Vec<BoxList> = vec![BoxList::new(); self.dats.len()];
        let mut save_e: Vec<Option<usize>> = vec![None; self.dats.len()];
        let mut rec_e: Vec<Option<usize>> = vec![None; self.dats.len()];
        for (k, e) in open.region.entries.iter().enumerate() {
            match e.kind {
                EntryKind::Save => save_e[e.dat as usize] = Some(k),
                EntryKind::Recompute => rec_e[e.dat as usize] = Some(k),
            }
        }
        for (i, d) in self.dats.iter().enumerate() {
            if !d.live {
                continue;
            }
            // Datasets declared after the region opened hold nothing from before it.
            let Some(st) = open.state.dats.get(i) else {
                continue;
            };
            let mut reasons: Vec<String> = Vec::new();
            let mut saved_b = 0u64;
            let mut recomputed_b = 0u64;
            let dropped_b;
            let target = if open.resilient.is_some() {
                &st.closure
            } else {
                &st.impure
            };
            if let Some(k) = rec_e[i] {
                let e = &open.region.entries[k];
                let mut l = e.snapped.clone();
                l.add_list(&e.uncovered);
                recomputed_b = d.bytes_of(&l);
                live[i] = l;
            }
            match save_e[i] {
                Some(k) => {
                    let e = &mut open.region.entries[k];
                    let all = e.target.points() * e.point_bytes;
                    if let Some(other) = dropped_alias[k] {
                        e.saved.clear();
                        reasons.push(format!("alias of {}", self.dats[other as usize].name));
                        dropped_b = all;
                    } else {
                        // What this process saved (its part); what the checkpoint saves, for
                        // the decision that is the same everywhere.
                        saved_b = e
                            .saved
                            .iter()
                            .map(|r| Bx::new(r.lo, r.hi).points() * e.point_bytes)
                            .sum();
                        let global = if distributed {
                            e.save_points() * e.point_bytes
                        } else {
                            saved_b
                        };
                        dropped_b = all.saturating_sub(global);
                        if global > 0 {
                            reasons.push("saved".into());
                        }
                        if dropped_b > 0 {
                            reasons.push("overwritten first".into());
                        }
                    }
                    if !e.saved.is_empty() {
                        let regions: Vec<SavedRegion> = std::mem::take(&mut e.saved);
                        saved_reports.push(SavedReport {
                            name: d.name.clone(),
                            bytes: saved_b,
                            boxes: regions.len(),
                        });
                        saved.push(SavedDat {
                            name: d.name.clone(),
                            elem: d.layout.ty,
                            components: d.layout.components,
                            regions,
                        });
                    }
                }
                None => {
                    dropped_b = d.bytes_of(target);
                    let excluded = d.transient || d.read_only || (self.list_set && !d.listed);
                    if excluded && !st.written.is_empty() {
                        reasons.push(
                            if d.transient {
                                "transient"
                            } else if d.read_only {
                                "read-only"
                            } else {
                                "not in dataset list"
                            }
                            .into(),
                        );
                    }
                }
            }
            if recomputed_b > 0 {
                reasons.push("recomputed at restore".into());
            }
            if reasons.is_empty() {
                reasons.push(
                    if st.written.is_empty() {
                        "never written"
                    } else if !st.pure.is_empty() {
                        "overwritten first"
                    } else {
                        "set by the program"
                    }
                    .into(),
                );
            }
            decisions.push(Decision {
                name: d.name.clone(),
                reason: reasons.join(" + "),
                saved_bytes: saved_b,
                dropped_bytes: dropped_b,
                recomputed_bytes: recomputed_b,
            });
        }
        let replay = if open.resilient.is_some() {
            Vec::new()
        } else {
            backward_slice(&open.history, live)
        };
        let mut state = std::mem::replace(
            &mut open.state,
            TrackerState {
                dats: Vec::new(),
                locations: Vec::new(),
                seen: Vec::new(),
                history: Vec::new(),
                pure_writes: false,
                chosen: None,
                reason: String::new(),
                target_occ: 0,
            },
        );
        state.history = std::mem::take(&mut open.history);
        let meta = CkptMeta {
            version: META_VERSION,
            replay,
            region_end: open.loop_index + open.region.loops,
            state,
            resilient: open.resilient.clone(),
            reductions: std::mem::take(&mut open.reductions),
            fast_forward: open.fast_forward.take(),
        };
        let recompute_loops = meta.replay.len();
        let payload = frame(&meta, &open.payload);
        let backend = ops.backend_name().to_string();
        let ck = Checkpoint {
            meta: CheckpointMeta {
                app: self.app.clone(),
                sequence: open.sequence,
                loop_index: open.loop_index,
                location: open.location.clone(),
                backend,
                time_unix: open.time_unix,
                rank: self.rank,
                ranks: self.ranks,
            },
            queries: std::mem::take(&mut open.queries),
            payload,
            dats: saved,
        };
        let deferred = std::mem::take(&mut open.deferred);
        let bytes =
            (ck.data_bytes() + deferred.iter().map(|p| p.bytes.len()).sum::<usize>()) as u64;
        let sizes: Vec<usize> = ck
            .dats
            .iter()
            .flat_map(|d| d.regions.iter().map(|r| r.bytes.len()))
            .filter(|n| *n > 0)
            .collect();
        let Some(store) = self.store.as_mut() else {
            return;
        };
        let t_built = t0.elapsed();
        // The partner's copy, encoded before the store takes the checkpoint.
        let wire = distributed.then(|| wire::encode(&ck));
        let result = if deferred.is_empty() {
            store.commit(ck)
        } else {
            store.commit_deferred(ck, deferred)
        };
        let t_committed = t0.elapsed();
        let partner = wire.map(|w| {
            let t = Instant::now();
            let path = self.exchange_partner(ops, open.sequence, w);
            (path, t.elapsed())
        });
        let stall = open.stall + t0.elapsed();
        self.stall_time += t0.elapsed();
        // The next checkpoint here will save boxes of the same sizes.
        self.pool.refill(sizes);
        self.last_end = Instant::now();
        self.last_cost = Some(stall);
        let mut rep = CheckpointReport {
            sequence: open.sequence,
            loop_index: open.loop_index,
            closed_at_loop: self.closing_loop(),
            location: open.location.clone(),
            region_loops: open.region.loops,
            bytes,
            datasets: saved_reports,
            decisions,
            recompute_loops,
            stall_s: stall.as_secs_f64(),
            copy_s: (open.stall + t_copied).as_secs_f64(),
            commit_s: (t_committed - t_built).as_secs_f64(),
            pass_s: self.last_pass.map(|d| d.as_secs_f64()),
            partner_s: partner.as_ref().map(|(_, t)| t.as_secs_f64()),
            partner: partner.and_then(|(p, _)| p),
            ..CheckpointReport::default()
        };
        match result {
            Ok(stats) => {
                if !stats.write.is_zero() {
                    rep.write_s = Some(stats.write.as_secs_f64());
                    rep.bytes_written = stats.bytes_written;
                    rep.write_gbs =
                        Some(stats.bytes_written as f64 / stats.write.as_secs_f64() / 1e9);
                }
                rep.path = stats.path.map(|p| p.display().to_string());
            }
            Err(e) => {
                self.warn(format!("checkpoint {} failed: {e}", open.sequence));
                return;
            }
        }
        if self.cfg.diags >= 1 && self.speaks() {
            eprint!("{}", Report::checkpoint_text(&rep, self.cfg.diags));
        }
        self.report.checkpoints.push(rep);
    }

    /// The loop during whose hook a checkpoint closing now is committed: the loop about to run
    /// (its index was counted on entry), or the number of loops at the end of the run.
    fn closing_loop(&self) -> u64 {
        if self.finishing {
            self.index
        } else {
            self.index.saturating_sub(1)
        }
    }

    /// Distributed runs, at every checkpoint's close on every process: sends this process's
    /// checkpoint (`mine`, [`wire::encode`]d; empty when it was abandoned here) to rank
    /// `rank + 1` and commits the copy received from rank `rank - 1` to the partner store. The
    /// partner copy's path, once known. Failures are warnings: the own checkpoint stands.
    fn exchange_partner(&mut self, ops: &mut Ops, sequence: u64, mine: Vec<u8>) -> Option<String> {
        if self.ranks <= 1 {
            return None;
        }
        let got = match ops.comm() {
            Some(c) => c.ring_shift(&mine).map_err(|e| e.to_string()),
            None => Err("the runtime has no communicator".into()),
        };
        drop(mine);
        let from = partner_of(self.rank, self.ranks);
        let got = match got {
            Ok(b) if b.is_empty() => {
                self.warn(format!(
                    "checkpoint {sequence}: no partner copy from rank {from} (its checkpoint was \
                     abandoned)"
                ));
                return None;
            }
            Ok(b) => b,
            Err(e) => {
                self.warn(format!(
                    "checkpoint {sequence}: exchanging partner copies failed: {e}"
                ));
                return None;
            }
        };
        let ck = match wire::decode(&got) {
            Ok(ck) => ck,
            Err(e) => {
                self.warn(format!(
                    "checkpoint {sequence}: the partner copy from rank {from} is damaged: {e}"
                ));
                return None;
            }
        };
        drop(got);
        if (ck.meta.sequence, ck.meta.rank, ck.meta.ranks) != (sequence, from, self.ranks) {
            self.warn(format!(
                "checkpoint {sequence}: rank {from} sent checkpoint {} of rank {} of {}: not kept",
                ck.meta.sequence, ck.meta.rank, ck.meta.ranks
            ));
            return None;
        }
        let partner = self.partner.as_mut()?;
        match partner.commit(ck) {
            Ok(stats) => stats.path.map(|p| p.display().to_string()),
            Err(e) => {
                self.warn(format!(
                    "checkpoint {sequence}: writing the partner copy of rank {from} failed: {e}"
                ));
                None
            }
        }
    }

    /// Collects write times of asynchronous commits that finished.
    fn poll_completed(&mut self) {
        if let Some(p) = self.partner.as_mut() {
            for (seq, stats) in p.completed() {
                if let Some(r) = self
                    .report
                    .checkpoints
                    .iter_mut()
                    .find(|r| r.sequence == seq)
                {
                    if let Some(path) = stats.path {
                        r.partner = Some(path.display().to_string());
                    }
                }
            }
        }
        let Some(store) = self.store.as_mut() else {
            return;
        };
        for (seq, stats) in store.completed() {
            if let Some(r) = self
                .report
                .checkpoints
                .iter_mut()
                .find(|r| r.sequence == seq)
            {
                r.write_s = Some(stats.write.as_secs_f64());
                r.bytes_written = stats.bytes_written;
                if !stats.write.is_zero() {
                    r.write_gbs =
                        Some(stats.bytes_written as f64 / stats.write.as_secs_f64() / 1e9);
                }
                if let Some(p) = stats.path {
                    r.path = Some(p.display().to_string());
                }
            }
        }
    }

    /// The location statistics: advance dry regions, start new ones, choose when ready, and
    /// revise the choice when later samples show a clearly cheaper location.
    fn learn(&mut self, loc: u32, index: u64, fp: &Footprint) {
        let mut never = |_: u32, _: &Bx| -> Result<Option<SavedRegion>, String> {
            unreachable!("dry regions copy nothing")
        };
        let best = match self.target {
            Target::Chosen(id) => self.locs.locs[id as usize].stats().map(|s| s.1),
            _ => None,
        };
        if self.locs.wants_sample(loc, best) && self.locs.steady(index) {
            let bound = MIN_REGION_LOOPS.max(2 * self.locs.locs[loc as usize].max_gap);
            let mut r = Region::new(index, bound, false);
            self.add_targets(&mut r, false, false);
            self.dry.push((loc, self.locs.epoch, r));
            self.locs.start_sample(loc, index);
        }
        let mut finished = false;
        let mut k = 0;
        while k < self.dry.len() {
            let r = &mut self.dry[k].2;
            let _ = r.on_loop(fp, &mut never as &mut SnapFn<'_>);
            if r.all_decided() || r.expired() {
                let (l, epoch, mut r) = self.dry.swap_remove(k);
                let _ = r.close(&mut never as &mut SnapFn<'_>);
                if epoch != self.locs.epoch {
                    continue;
                }
                let mut bytes = r.save_bytes();
                for (e, _) in self.alias_drops(&r) {
                    let e = &r.entries[e];
                    bytes -= e.save_points() * e.point_bytes;
                }
                self.locs.sample(l, bytes);
                self.locs.locs[l as usize].last_sizes = std::mem::take(&mut r.sizes);
                self.locs.locs[l as usize].sampling = false;
                finished = true;
            } else {
                k += 1;
            }
        }
        if finished {
            match self.target {
                Target::Learn => self.try_choose(index, false),
                Target::Chosen(_) => self.maybe_revise(index),
                _ => {}
            }
        }
    }

    /// A new location appeared after the learnt choice: the program had not reached its time
    /// loop (an inner solver's iterations looked periodic during the first time step), so
    /// learn again, at most [`MAX_RELEARN`] times per run (a rare loop appearing late in a
    /// long run must not keep the program without checkpoints).
    fn relearn_on_new_location(&mut self, loc: u32) {
        let Target::Chosen(cur) = self.target else {
            return;
        };
        if self.relearns >= MAX_RELEARN || self.replaying() {
            return;
        }
        self.relearns += 1;
        let msg = format!(
            "location `{}` appeared after `{}` was chosen: the program was not in its time loop \
             yet; learning again",
            self.locs.locs[loc as usize].key, self.locs.locs[cur as usize].key
        );
        if self.cfg.diags >= 2 && self.speaks() {
            eprintln!("ops-resilience: {msg}");
        }
        self.target = Target::Learn;
        self.report.location.revisions += 1;
        self.report.location.chosen = None;
        self.locs.forget_samples();
    }

    /// Switches to a clearly cheaper location (mean at least 10 % smaller), or away from one
    /// that stopped being a candidate.
    fn maybe_revise(&mut self, now: u64) {
        let Target::Chosen(cur) = self.target else {
            return;
        };
        let Some((best, why)) = self.locs.choose(now) else {
            return;
        };
        if best == cur {
            return;
        }
        let mean = |id: u32| self.locs.locs[id as usize].stats().map(|s| s.1);
        let better = match (mean(cur), mean(best)) {
            _ if !self.locs.is_candidate(cur, now) => true,
            (Some(c), Some(b)) => b < 0.9 * c,
            (None, Some(_)) => true,
            _ => false,
        };
        if !better {
            return;
        }
        self.target = Target::Learn;
        self.report.location.revisions += 1;
        self.try_choose(now, true);
        if self.target == Target::Chosen(best) {
            self.reason = format!("{why} (revised from {})", self.locs.locs[cur as usize].key);
            self.report.location.reason = self.reason.clone();
        } else {
            self.target = Target::Chosen(cur);
        }
    }

    /// Updates the per-dataset state with a loop's writes (after the regions saw it).
    fn update(&mut self, loc: u32, index: u64, fp: &Footprint) {
        if fp.writes.is_empty() {
            return;
        }
        let reads_pure = fp
            .reads
            .iter()
            .all(|(d, b)| !self.dats[*d as usize].impure.overlaps(b));
        let mut any_pure = false;
        // During start-up (until some location recurs with other loops in between) a location
        // may write a dataset several times and stay recomputable (e.g. one start-up loop run
        // back to back per initial state); afterwards only a location's first write is.
        let start_up = self.locs.first_pass_recur.is_none();
        for (d, w) in &fp.writes {
            let first = self.seen.insert((loc, *d));
            let pure = self.pure_writes && reads_pure && (first || start_up);
            self.dats[*d as usize].write(w, pure, self.in_closure, index);
            any_pure |= pure;
        }
        if any_pure {
            self.history.push(HistEntry::Loop {
                index,
                fp: fp.clone(),
            });
            if self.history.len() >= MAX_HISTORY {
                self.pure_writes = false;
            }
        }
        if let Some(h) = self.init_history.as_mut() {
            h.push(HistEntry::Loop {
                index,
                fp: fp.clone(),
            });
            if h.len() > MAX_INIT_HISTORY {
                self.init_history = None;
            }
        }
    }

    fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(OpsError::Observer(format!(
                "ops-resilience: {}{msg}",
                self.prefix()
            )));
        }
    }

    /// Writes the report: stderr summary at level ≥ 1, JSON file if asked.
    fn write_report(&mut self) {
        self.report.loops = self.index;
        self.report.tracking_s = self.hook_time.saturating_sub(self.stall_time).as_secs_f64();
        self.report.run_s = self.started.elapsed().as_secs_f64();
        self.report.rank = self.rank;
        self.report.ranks = self.ranks;
        if self.cfg.diags >= 1 && self.speaks() {
            eprintln!(
                "ops-resilience: {} loops, {} checkpoint(s); tracking took {:.3} s of {:.3} s ({:.2} %)",
                self.index,
                self.report.checkpoints.len(),
                self.report.tracking_s,
                self.report.run_s,
                100.0 * self.report.tracking_s / self.report.run_s.max(1e-9)
            );
        }
        self.report.queries = self.queries.len() as u64;
        if self.cfg.diags >= 1
            && self.speaks()
            && self.report.location.chosen.is_none()
            && self.cfg.enabled()
        {
            eprintln!(
                "ops-resilience: no checkpoint location was chosen ({} loops, {} locations seen)",
                self.index,
                self.locs.locs.len()
            );
        }
        if let Some(path) = &self.cfg.diags_json {
            let path = crate::diags::json_path(path, self.rank);
            let text = serde_json::to_string_pretty(&self.report).expect("report serialises");
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!(
                    "ops-resilience: {}cannot write diagnostics to {}: {e}",
                    self.prefix(),
                    path.display()
                );
            }
        }
    }
}

/// Answers a value handed to user space during a replay from the checkpoint's log.
fn answer(r: &mut Replay, dats: &[DatTrack], query: &mut Query<'_>) -> Result<(), String> {
    let Some(logged) = r.ck.queries.get(r.q_cursor) else {
        return Err(format!(
            "restart diverged: the program asks for more values before loop {} than the \
             checkpoint logged ({})",
            r.k,
            r.ck.queries.len()
        ));
    };
    let ok = match (&mut *query, logged) {
        (
            Query::Reduction { name, value, .. },
            LoggedQuery::Reduction {
                name: ln,
                elem,
                bytes,
            },
        ) if *name == ln.as_str() && value.elem_type() == *elem => {
            match scalar_from(*elem, bytes) {
                Some(s) => {
                    **value = s;
                    true
                }
                None => false,
            }
        }
        (Query::Fetch { dat, bytes, .. }, LoggedQuery::Fetch { dat: ln, bytes: lb })
            if bytes.len() == lb.len()
                && dats.get(dat.index()).map(|d| d.name == *ln).unwrap_or(true) =>
        {
            bytes.copy_from_slice(lb);
            true
        }
        _ => false,
    };
    if !ok {
        let got = match &*query {
            Query::Reduction { name, value, .. } => {
                format!("reduction `{name}` ({})", value.elem_type())
            }
            Query::Fetch { name, bytes, .. } => {
                format!("fetch of `{name}` ({} bytes)", bytes.len())
            }
        };
        return Err(format!(
            "restart diverged: value {} handed to the program is {got}, the checkpoint logged {}",
            r.q_cursor + 1,
            describe(logged)
        ));
    }
    r.q_cursor += 1;
    Ok(())
}

impl Resilience {
    fn before_loop_inner(&mut self, ops: &mut Ops, plan: &LoopPlan<'_>) -> LoopAction {
        let index = self.index;
        self.index += 1;
        let mut restored = false;
        if let Mode::Replay(r) = &mut self.mode {
            if index < r.k {
                let ex = &r.meta.replay;
                while r.exec_cursor < ex.len() && ex[r.exec_cursor] < index {
                    r.exec_cursor += 1;
                }
                return if ex.get(r.exec_cursor) == Some(&index) {
                    r.executed += 1;
                    LoopAction::Run
                } else {
                    r.skipped += 1;
                    LoopAction::Skip
                };
            }
            restored = true;
        }
        if let Mode::FastForward(r) = &self.mode {
            let first = r
                .meta
                .fast_forward
                .as_ref()
                .map_or(0, |f| f.first_call_loop);
            if index >= first {
                let msg = format!(
                    "restart from fast-forward checkpoint {}: this run reached loop {index} (`{}`) \
                     without calling fast_forward, which the checkpointed run called after {first} \
                     loops: the start-up differs, or the program does not call `fast_forward` (at \
                     the top of its time loop) as the checkpointed run did",
                    r.ck.meta.sequence, plan.name
                );
                self.fail(msg);
                return LoopAction::Skip;
            }
        }
        if restored {
            if let Err(e) = self.restore_replay(ops, plan) {
                self.fail(e);
                return LoopAction::Skip;
            }
        }
        if !self.dist_known {
            self.dist_known = true;
            let (rank, ranks) = (ops.rank(), ops.ranks());
            if ranks > 1 {
                self.rank = rank;
                self.ranks = ranks;
                self.report.rank = rank;
                self.report.ranks = ranks;
                if self.store.is_some() {
                    self.store = None;
                    self.fail(
                        "this is a distributed run, but the resilience observer was installed \
                         without its rank's stores: use ops_resilience::install (or \
                         Resilience::set_distribution with open_rank_stores)"
                            .into(),
                    );
                }
            }
        }
        if self.cfg.inject.loop_index == Some(index) {
            eprintln!(
                "ops-resilience: OPS_INJECT_FAILURE=loop:{index}: killing the process before loop \
                 `{}`",
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
        self.sync(ops);
        self.locs.forget_on_new = self.target == Target::Learn;
        let known = self.locs.locs.len();
        let loc = self.locs.id_of(plan, index);
        if self.locs.locs.len() > known && !restored {
            self.relearn_on_new_location(loc);
        }
        if !restored {
            self.locs.count(loc, index);
        }
        let mut fp = std::mem::take(&mut self.fp);
        fp.fill(plan);
        for (d, _) in &fp.writes {
            let t = &self.dats[*d as usize];
            if t.read_only {
                let msg = format!(
                    "par_loop `{}` writes dataset `{}`, which was marked read-only",
                    plan.name, t.name
                );
                self.fail(msg);
                self.fp = fp;
                return LoopAction::Skip;
            }
        }
        let matched = !self.resilient_used && self.target_matches(loc);
        if matched && !restored {
            self.target_occ += 1;
            let now = Instant::now();
            if let Some((at, stalled)) = self.last_pass_mark {
                self.last_pass = Some((now - at).saturating_sub(self.stall_time - stalled));
            }
            self.last_pass_mark = Some((now, self.stall_time));
        }
        if self.region.as_ref().is_some_and(|o| o.region.expired()) {
            self.close_region(ops);
        }
        if matched
            && !restored
            && self.region.is_none()
            && matches!(self.mode, Mode::Normal)
            && self.due(ops)
        {
            let bound = MIN_REGION_LOOPS.max(2 * self.locs.locs[loc as usize].max_gap);
            let key = self.locs.locs[loc as usize].key.clone();
            self.refresh_live(ops);
            self.open_region(ops, index, key, bound, None);
        }
        if self.region.is_some() {
            self.feed_region(ops, &fp);
        }
        if matches!(self.target, Target::Learn | Target::Chosen(_)) && !self.resilient_used {
            self.learn(loc, index, &fp);
            // Statistics that never settle (new loops keep appearing) must not keep the run
            // from being checkpointed: choose with what is measured once a checkpoint is due by
            // time, or after LEARN_LIMIT loops of recurrence.
            if self.target == Target::Learn && self.store.is_some() && index.is_multiple_of(256) {
                let long = self
                    .locs
                    .first_recur
                    .is_some_and(|f| index > f + LEARN_LIMIT);
                if long || self.interval_due_agreed(ops) {
                    self.try_choose(index, true);
                }
            }
        }
        self.update(loc, index, &fp);
        self.fp = fp;
        LoopAction::Run
    }
}

impl LoopObserver for Resilience {
    fn skip_unvalidated(&mut self) -> bool {
        let Mode::Replay(r) = &mut self.mode else {
            return false;
        };
        let index = self.index;
        if index >= r.k {
            return false;
        }
        let ex = &r.meta.replay;
        while r.exec_cursor < ex.len() && ex[r.exec_cursor] < index {
            r.exec_cursor += 1;
        }
        if ex.get(r.exec_cursor) == Some(&index) {
            return false; // re-executed: validated and run as usual
        }
        self.index += 1;
        r.skipped += 1;
        true
    }

    fn before_loop(&mut self, ops: &mut Ops, plan: &LoopPlan<'_>) -> LoopAction {
        let t0 = Instant::now();
        let a = self.before_loop_inner(ops, plan);
        let now = Instant::now();
        self.hook_time += now - t0;
        if matches!(self.mode, Mode::Replay(_)) && a == LoopAction::Run {
            self.replay_loop_started = Some(now);
        }
        a
    }

    fn after_loop(&mut self, _ops: &mut Ops, _plan: &LoopPlan<'_>, _action: LoopAction) {
        if let Some(t) = self.replay_loop_started.take() {
            self.replay_exec += t.elapsed();
        }
    }

    fn on_query(&mut self, query: &mut Query<'_>) {
        if let Mode::Replay(r) = &mut self.mode {
            if let Err(msg) = answer(r, &self.dats, query) {
                self.fail(msg);
            }
            return;
        }
        match query {
            Query::Reduction { name, value, .. } => {
                let (elem, bytes) = scalar_bytes(**value);
                self.queries.push(LoggedQuery::Reduction {
                    name: name.to_string(),
                    elem,
                    bytes,
                });
            }
            Query::Fetch {
                dat, range, bytes, ..
            } => {
                let d = dat.index() as u32;
                let name = self
                    .dats
                    .get(dat.index())
                    .map(|t| t.name.clone())
                    .unwrap_or_else(|| format!("#{d}"));
                self.queries.push(LoggedQuery::Fetch {
                    dat: name,
                    bytes: bytes.to_vec(),
                });
                let b = Bx::from_range(range);
                if let Some(o) = self.region.as_mut() {
                    o.region.read(d, &b);
                }
                for (_, _, r) in &mut self.dry {
                    r.read(d, &b);
                }
            }
        }
    }

    fn before_set(&mut self, ops: &mut Ops, dat: DatId, range: &IterRange) {
        if matches!(self.mode, Mode::Replay(_)) {
            return;
        }
        self.sync(ops);
        let d = dat.index();
        if self.dats.get(d).is_some_and(|t| t.read_only) {
            let msg = format!(
                "set_data writes dataset `{}`, which was marked read-only",
                self.dats[d].name
            );
            self.fail(msg);
            return;
        }
        let b = Bx::from_range(range);
        if self.region.is_some() {
            let fp = Footprint {
                reads: Vec::new(),
                writes: vec![(d as u32, b)],
            };
            // A set is no loop: do not count it towards the region's bound.
            if let Some(o) = self.region.as_mut() {
                o.region.loops = o.region.loops.saturating_sub(1);
            }
            self.feed_region(ops, &fp);
        }
        let mut never = |_: u32, _: &Bx| -> Result<Option<SavedRegion>, String> {
            unreachable!("dry regions copy nothing")
        };
        for (_, _, r) in &mut self.dry {
            let _ = r.write(d as u32, &b, &mut never as &mut SnapFn<'_>);
        }
    }

    fn on_set(&mut self, dat: DatId, range: &IterRange) {
        if matches!(self.mode, Mode::Replay(_)) {
            return;
        }
        let d = dat.index();
        let b = Bx::from_range(range);
        if let Some(t) = self.dats.get_mut(d) {
            t.set(&b);
        }
        let e = HistEntry::Set {
            dat: d as u32,
            bx: b,
        };
        if self.pure_writes {
            self.history.push(e.clone());
        }
        if let Some(h) = self.init_history.as_mut() {
            h.push(e);
        }
    }

    fn finish(&mut self, ops: &mut Ops) {
        self.finishing = true;
        if let Mode::Replay(r) = &self.mode {
            let msg = format!(
                "restart diverged: the program ended after {} loops, before the checkpoint's \
                 loop {}",
                self.index, r.k
            );
            self.fail(msg);
        }
        if let Mode::FastForward(r) = &self.mode {
            let msg = format!(
                "restart from fast-forward checkpoint {}: the program ended after {} loops \
                 without calling fast_forward",
                r.ck.meta.sequence, self.index
            );
            self.fail(msg);
        }
        if self.region.is_some() {
            self.close_region(ops);
        }
        if let Some(store) = self.store.as_mut() {
            if let Err(e) = store.flush() {
                let msg = format!("flushing checkpoints: {e}");
                self.warn(msg.clone());
                self.fail(msg);
            }
        }
        if let Some(store) = self.partner.as_mut() {
            if let Err(e) = store.flush() {
                // The own checkpoints are safe; only the second level is missing.
                self.warn(format!("flushing partner copies: {e}"));
            }
        }
        self.poll_completed();
        self.write_report();
    }

    fn take_error(&mut self) -> Option<OpsError> {
        self.error.take()
    }
}
