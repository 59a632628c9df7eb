//! When a checkpoint is due, and its region from open to commit: the snapshots a region takes
//! as later loops overwrite what it still needs, the decisions and the committed checkpoint.

use std::time::{Duration, Instant, SystemTime};

use ops_core::{DatId, OpsError, Runtime};

use super::Resilience;
use crate::boxes::{BoxList, Bx};
use crate::config::Interval;
use crate::diags::{CheckpointReport, Decision, Report, SavedReport};
use crate::error::ResilienceError;
use crate::learn::Counting;
use crate::meta::{
    frame, CkptMeta, FastForwardMeta, PendingReduction, ResilientMeta, TrackerState, META_VERSION,
};
use crate::pool::BufPool;
use crate::region::{EntryKind, Region, SnapFn};
use crate::store::{
    wire, Checkpoint, CheckpointMeta, CheckpointStore, PendingRegion, SavedDat, SavedRegion,
};
use crate::track::{backward_slice, DatTrack, Footprint, HistEntry};

/// An open checkpoint region and what its checkpoint will carry.
pub(super) struct Open {
    pub region: Region,
    pub sequence: u64,
    pub loop_index: u64,
    pub location: String,
    pub queries: crate::store::QueryLog,
    pub payload: Vec<u8>,
    pub state: TrackerState,
    pub history: Vec<HistEntry>,
    pub reductions: Vec<PendingReduction>,
    pub stall: Duration,
    pub time_unix: f64,
    pub resilient: Option<ResilientMeta>,
    pub fast_forward: Option<FastForwardMeta>,
    /// Opened before the location was decided (a checkpoint asked for by time or by the
    /// program, at the best boundary known then).
    pub provisional: bool,
    /// Distributed runs: the first snapshot that failed on this process. The region goes on
    /// (every process must close it at the same loop and exchange partner copies), then is
    /// abandoned here.
    pub failed: Option<String>,
    /// Snapshots still on their way from the device (see [`download`]).
    pub deferred: Vec<PendingRegion>,
}

/// Where checkpoints go and when they are due.
pub(super) struct Checkpointing {
    pub store: Option<Box<dyn CheckpointStore>>,
    /// Distributed runs: where this process keeps its copies of rank `rank - 1`'s checkpoints.
    pub partner: Option<Box<dyn CheckpointStore>>,
    pub region: Option<Box<Open>>,
    pub pool: BufPool,
    /// The lowest sequence number the next checkpoint may carry; in a distributed run, the
    /// next checkpoint's number (agreed at start-up, the same on every process).
    pub next_seq: u64,
    /// The program asked for a checkpoint (`checkpoint_now`), or the interval elapsed before
    /// the location was decided.
    pub manual: bool,
    /// Occurrences of the checkpoint location (counted towards `--ops-checkpoint-every`).
    pub target_occ: u64,
    /// `target_occ` at the latest checkpoint.
    pub last_ckpt_occ: u64,
    /// The loop the latest checkpoint opened before.
    pub last_ckpt_loop: Option<u64>,
    /// The next occurrence of the checkpoint location is not counted: the location moved,
    /// and that occurrence ends the pass the latest checkpoint opened in, not a whole one.
    pub align: bool,
    /// Occurrences since the latest checkpoint of the suspect that paces checkpoints counted in
    /// passes while the learner doubts its decision ([`Counting::Suspect`]).
    pub suspect_occ: u64,
    /// The suspect `suspect_occ` counts (`None` while none paces).
    pub paced_by: Option<u32>,
    /// When the latest checkpoint ended, and what it cost.
    pub last_end: Instant,
    pub last_cost: Option<Duration>,
    /// When the checkpoint location occurred at the start of the pass being timed, and the
    /// stall time accumulated by then.
    pub last_pass_mark: Option<(Instant, Duration)>,
    /// Computing time between two occurrences of the checkpoint location (one pass of the
    /// outer iteration), the yardstick for stalls: every pass of the first [`PASS_TIMED`], then
    /// one in [`PASS_TIMED`].
    pub last_pass: Option<Duration>,
    /// Occurrences of the checkpoint location counted.
    pub occurrences: u64,
    /// The application's fast-forward payload stored with the next checkpoints.
    pub payload: Vec<u8>,
    /// The latest committed checkpoint's location and bytes, told to the learner when the next
    /// one opens ([`Learner::observe`](crate::learn::Learner::observe)).
    pub unobserved: Option<(String, u64)>,
}

/// Passes are timed one in this many, once this many were all timed.
pub const PASS_TIMED: u64 = 8;

impl Checkpointing {
    pub fn new(store: Option<Box<dyn CheckpointStore>>) -> Self {
        Checkpointing {
            store,
            partner: None,
            region: None,
            pool: BufPool::default(),
            next_seq: 1,
            manual: false,
            target_occ: 0,
            last_ckpt_occ: 0,
            last_ckpt_loop: None,
            align: false,
            suspect_occ: 0,
            paced_by: None,
            last_end: Instant::now(),
            last_cost: None,
            last_pass_mark: None,
            last_pass: None,
            occurrences: 0,
            payload: Vec::new(),
            unobserved: None,
        }
    }

    /// True when `n` passes have ended since the latest checkpoint opened (or since counting
    /// began): N passes from the latest checkpoint, whatever opened it (a count in the passes of
    /// a suspected time step, a time interval, `checkpoint_now`), not at multiples of N.
    pub fn passes_due(&self, n: u64) -> bool {
        self.target_occ >= self.last_ckpt_occ + n
    }

    /// An occurrence of the checkpoint location: one more pass, and its computing time
    /// (stalls excluded).
    pub fn count_pass(&mut self, stall_so_far: Duration) {
        // Unless it only ends the pass the latest checkpoint opened in (`align`).
        if !std::mem::take(&mut self.align) {
            self.target_occ += 1;
        }
        // Two clock reads per pass would be a good part of what a short pass's tracking costs.
        self.occurrences += 1;
        let k = self.occurrences % PASS_TIMED;
        if self.occurrences > PASS_TIMED && k > 1 {
            return;
        }
        let now = Instant::now();
        if let Some((at, stalled)) = self.last_pass_mark.take() {
            self.last_pass = Some((now - at).saturating_sub(stall_so_far - stalled));
        }
        if self.occurrences < PASS_TIMED || k == 0 {
            self.last_pass_mark = Some((now, stall_so_far));
        }
    }

    /// Waits for every write in flight (own and partner stores).
    pub fn flush(&mut self) -> Result<(), ResilienceError> {
        if let Some(p) = self.partner.as_mut() {
            if let Err(e) = p.flush() {
                // The own checkpoints are safe; only the second level is missing.
                tracing::warn!("ops-resilience: flushing partner copies: {e}");
            }
        }
        match self.store.as_mut() {
            Some(s) => s
                .flush()
                .map_err(|e| ResilienceError::store("flushing checkpoints", e)),
            None => Ok(()),
        }
    }

    /// True when the interval since the last checkpoint elapsed (this process's view).
    pub fn interval_due(&self, interval: Option<Interval>, mtbf: Option<Duration>) -> bool {
        match interval {
            Some(Interval::Every(d)) => self.last_end.elapsed() >= d,
            Some(Interval::Auto) => match self.last_cost {
                None => true,
                Some(c) => {
                    let mtbf = mtbf.unwrap_or(Duration::from_secs(86400));
                    let young = (2.0 * c.as_secs_f64() * mtbf.as_secs_f64()).sqrt();
                    self.last_end.elapsed().as_secs_f64() >= young
                }
            },
            None => false,
        }
    }
}

/// Copies the part of one box of dataset `id` that this process owns out of the backend (the
/// whole box for a single process; nothing when it owns none of it): no communication.
///
/// With `deferred` (single processes), a backend with a device-to-host transfer to overlap
/// only starts it: the region comes back without bytes and the transfer joins `deferred`, to
/// be waited for by whoever writes the checkpoint.
fn download(
    rt: &mut Runtime<'_>,
    pool: &BufPool,
    id: DatId,
    t: &DatTrack,
    b: &Bx,
    deferred: Option<&mut Vec<PendingRegion>>,
) -> Result<Option<SavedRegion>, String> {
    let range = b.to_range(t.layout.dims);
    let err = |e: OpsError| format!("snapshot of `{}` {b}: {e}", t.name);
    if let Some(deferred) = deferred {
        if let Some(bytes) = rt.begin_download_bytes(id, &range).map_err(err)? {
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
    let own = rt.owned_part(id, &range).map_err(err)?;
    if own.is_empty() {
        return Ok(None);
    }
    let ob = if own == range {
        *b
    } else {
        Bx::from_range(&own)
    };
    let mut out = pool.take(ob.points() as usize * t.point_bytes() as usize);
    rt.download_owned_bytes(id, &own, &mut out).map_err(err)?;
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

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

impl Resilience {
    /// [`Checkpointing::interval_due`], the same on every process: in a distributed run the
    /// processes gather their answers and it is due when any says so (clocks and checkpoint
    /// costs differ between processes). Only called where every process is at the same loop;
    /// no communication without an interval, or for a single process.
    pub(super) fn interval_due_agreed(&mut self, rt: &mut Runtime<'_>) -> bool {
        if self.cfg.interval.is_none() {
            return false;
        }
        let mine = self.ck.interval_due(self.cfg.interval, self.cfg.mtbf);
        if self.dist.ranks <= 1 {
            return mine;
        }
        match crate::collective::any(rt, mine) {
            Ok(any) => any,
            Err(e) => {
                self.fail(ResilienceError::Collective(format!(
                    "agreeing on the checkpoint interval: {e}"
                )));
                false
            }
        }
    }

    /// True when a checkpoint region should open before this loop (at location `loc`, `at`
    /// when that is the checkpoint location). By count (`--ops-checkpoint-every N`: every N-th
    /// pass of the outer iteration) only at the decided location; a checkpoint asked for by
    /// the program or by time before the location is decided opens at the best boundary
    /// measured so far, or at the next loop if none is.
    pub(super) fn due(&mut self, rt: &mut Runtime<'_>, at: bool, loc: u32) -> bool {
        if self.ck.store.is_none() {
            return false;
        }
        let deciding = self.deciding();
        // Before the decision, time is checked at loops every process reaches alike.
        if deciding
            && !self.ck.manual
            && self.index.is_multiple_of(64)
            && self.interval_due_agreed(rt)
        {
            self.ck.manual = true;
        }
        if self.ck.manual {
            return at || (deciding && self.learner.provisional().is_none_or(|best| best == loc));
        }
        if !at {
            return false;
        }
        // A decision in doubt counts the passes of what may enclose it, or waits.
        let every = self
            .cfg
            .effective_every()
            .is_some_and(|n| match self.learner.counting() {
                Counting::Chosen => self.ck.passes_due(n) && self.learner.ends_pass(),
                Counting::Suspect(_) => self.ck.suspect_occ >= n,
                Counting::Paused => false,
            });
        every || self.interval_due_agreed(rt)
    }

    /// The location is learnt and not decided yet.
    pub(super) fn deciding(&self) -> bool {
        self.target == super::Target::Learn && self.learner.location().is_none()
    }

    /// How many of the next occurrences of the chosen location (at most `max`), each ending a
    /// pass of a run of a lazy template, are sure to find no checkpoint due ([`Resilience::due`]
    /// false: no store, or none counted by passes due then, no time interval, nothing asked
    /// for) and their pass untimed ([`Checkpointing::count_pass`] reads no clock): what the
    /// hook there would do is then known ahead, and the runtime may run them without it.
    pub(super) fn passes_without_checkpoint(&self, max: u64) -> u64 {
        let ck = &self.ck;
        let counted = match ck.store.is_some() {
            false => None,
            true => {
                if self.deciding() || ck.manual || self.cfg.interval.is_some() {
                    return 0;
                }
                match (self.cfg.effective_every(), self.learner.counting()) {
                    (None, _) | (_, Counting::Paused) => None,
                    (Some(n), Counting::Chosen) => Some(n),
                    (Some(_), Counting::Suspect(_)) => return 0,
                }
            }
        };
        let (mut occ, mut target, mut align) = (ck.occurrences, ck.target_occ, ck.align);
        let mut k = 0;
        while k < max {
            occ += 1;
            target += u64::from(!std::mem::take(&mut align));
            let timed = occ <= PASS_TIMED || occ % PASS_TIMED <= 1;
            if timed || counted.is_some_and(|n| target >= ck.last_ckpt_occ + n) {
                break;
            }
            k += 1;
        }
        k
    }

    /// The tracker's state for a checkpoint opening now.
    fn tracker_state(&self) -> TrackerState {
        TrackerState {
            dats: self.track.dat_states(),
            locations: self.track.locs.locs.clone(),
            first_pass_recur: self.track.locs.first_pass_recur,
            seen: self
                .track
                .seen
                .iter()
                .map(|(l, d)| (self.track.locs.locs[*l as usize].key.clone(), *d))
                .collect(),
            history: Vec::new(),
            pure_writes: self.track.pure_writes,
            learner: self.learner.clone(),
            target_occ: self.ck.target_occ,
            last_pure_write: self.track.last_pure_write,
            calls: self.track.calls.clone(),
        }
    }

    /// Opens a checkpoint region before loop `index` (at `location`), closing after at most
    /// `bound` loops.
    pub(super) fn open_region(
        &mut self,
        rt: &mut Runtime<'_>,
        index: u64,
        location: String,
        bound: u64,
        resilient: Option<ResilientMeta>,
        provisional: bool,
    ) {
        let t0 = Instant::now();
        if self.ck.store.is_none() {
            return;
        }
        self.poll_completed();
        let sequence = if self.dist.ranks > 1 {
            // Every process numbers the same: no directory scan that could differ.
            self.ck.next_seq
        } else {
            match self.ck.store.as_ref().map(|s| s.next_sequence()) {
                Some(Ok(s)) => s.max(self.ck.next_seq),
                Some(Err(e)) => {
                    self.warn(format!("checkpoint skipped: {e}"));
                    return;
                }
                None => return,
            }
        };
        self.ck.next_seq = sequence + 1;
        self.observe_last_checkpoint(index);
        let mut region = Region::new(bound, true);
        self.track
            .add_targets(&mut region, resilient.is_some(), true);
        self.ck.last_ckpt_occ = self.ck.target_occ;
        self.ck.last_ckpt_loop = Some(index);
        self.ck.suspect_occ = 0;
        self.ck.manual = false;
        // The log is deflated as it grows, here, so the checkpoint deflates only what is new.
        self.track.calls.deflate_new_records();
        let open = Open {
            region,
            sequence,
            loop_index: index,
            location,
            queries: self.track.queries.clone(),
            payload: self.ck.payload.clone(),
            state: self.tracker_state(),
            history: self.track.history.clone(),
            reductions: rt
                .reduction_values()
                .into_iter()
                .map(|(n, v)| PendingReduction::new(n, v))
                .collect(),
            stall: Duration::ZERO,
            time_unix: unix_now(),
            resilient,
            fast_forward: None,
            provisional,
            failed: None,
            deferred: Vec::new(),
        };
        let mut open = Box::new(open);
        open.stall = t0.elapsed();
        self.ck.region = Some(open);
        self.clock.stall += t0.elapsed();
    }

    /// Tells the learner what the latest checkpoint saved (before the next one's state is
    /// taken, so a restarted run, told at its restore, learns it at the same loop).
    fn observe_last_checkpoint(&mut self, index: u64) {
        let Some((key, bytes)) = self.ck.unobserved.take() else {
            return;
        };
        let Some(loc) = self.track.locs.find_key(&key) else {
            return;
        };
        self.learner.observe(loc, bytes, index);
    }

    /// The snapshot function of the open region (whose failure note and pending transfers are
    /// `failed` and `deferred`): copies one box of a dataset out of the backend, or, in a
    /// single process, starts its transfer ([`download`]); see [`snap_or_defer`] for failures.
    fn snapshots<'a, 'r>(
        &'a self,
        rt: &'a mut Runtime<'r>,
        failed: &'a mut Option<String>,
        deferred: &'a mut Vec<PendingRegion>,
    ) -> impl FnMut(u32, &Bx) -> Result<Option<SavedRegion>, String> + use<'a, 'r> {
        let distributed = self.dist.ranks > 1;
        move |dat: u32, b: &Bx| {
            let i = dat as usize;
            let deferred = (!distributed).then_some(&mut *deferred);
            let r = download(
                rt,
                &self.ck.pool,
                self.track.ids[i],
                &self.track.dats[i],
                b,
                deferred,
            );
            snap_or_defer(r, distributed, failed)
        }
    }

    /// Feeds a loop (or a set, as a write-only footprint) to the open region, copying what it
    /// is about to overwrite; closes the region when everything is decided.
    pub(super) fn feed_region(&mut self, rt: &mut Runtime<'_>, fp: &Footprint) {
        let Some(mut open) = self.ck.region.take() else {
            return;
        };
        let t0 = Instant::now();
        let res = {
            let mut snap = self.snapshots(rt, &mut open.failed, &mut open.deferred);
            open.region.on_loop(fp, &mut snap as &mut SnapFn<'_>)
        };
        open.stall += t0.elapsed();
        self.clock.stall += t0.elapsed();
        if let Err(e) = res {
            self.warn(format!("checkpoint {} abandoned: {e}", open.sequence));
            return;
        }
        let done = open.region.all_decided();
        self.ck.region = Some(open);
        if done {
            self.close_region(rt);
        }
    }

    /// The program is about to set `b` of dataset `dat`: the open region sees a write (a set
    /// is no loop: it does not count towards the region's bound).
    pub(super) fn set_in_region(&mut self, rt: &mut Runtime<'_>, dat: u32, b: Bx) {
        if self.ck.region.is_none() {
            return;
        }
        if let Some(o) = self.ck.region.as_mut() {
            o.region.loops = o.region.loops.saturating_sub(1);
        }
        let fp = Footprint {
            reads: Vec::new(),
            writes: vec![(dat, b)],
        };
        self.feed_region(rt, &fp);
    }

    /// The decisions of a closing region, dataset by dataset, with the saved data and the
    /// points a restart recomputes.
    fn decide(
        &self,
        open: &mut Open,
    ) -> (Vec<SavedDat>, Vec<SavedReport>, Vec<Decision>, Vec<BoxList>) {
        let distributed = self.dist.ranks > 1;
        let drops = self.track.alias_drops(&open.region);
        let mut dropped_alias: Vec<Option<u32>> = vec![None; open.region.entries.len()];
        for (e, other) in &drops {
            dropped_alias[*e] = Some(*other);
        }
        let dats = &self.track.dats;
        let mut saved: Vec<SavedDat> = Vec::new();
        let mut saved_reports = Vec::new();
        let mut decisions = Vec::new();
        let mut live: Vec<BoxList> = vec![BoxList::new(); dats.len()];
        let mut save_e: Vec<Option<usize>> = vec![None; dats.len()];
        let mut rec_e: Vec<Option<usize>> = vec![None; dats.len()];
        for (k, e) in open.region.entries.iter().enumerate() {
            match e.kind {
                EntryKind::Save => save_e[e.dat as usize] = Some(k),
                EntryKind::Recompute => rec_e[e.dat as usize] = Some(k),
            }
        }
        for (i, d) in dats.iter().enumerate() {
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
                        reasons.push(format!("alias of {}", dats[other as usize].name));
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
                    let excluded = !self.track.saveable(d);
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
        (saved, saved_reports, decisions, live)
    }

    /// Closes the open region and commits its checkpoint.
    pub(super) fn close_region(&mut self, rt: &mut Runtime<'_>) {
        let Some(mut open) = self.ck.region.take() else {
            return;
        };
        let t0 = Instant::now();
        let distributed = self.dist.ranks > 1;
        let closed = {
            let mut snap = self.snapshots(rt, &mut open.failed, &mut open.deferred);
            open.region.close(&mut snap as &mut SnapFn<'_>)
        };
        if let Some(e) = closed.err().or(open.failed.take()) {
            self.warn(format!("checkpoint {} abandoned: {e}", open.sequence));
            // The other processes still send their copies and wait for ours.
            self.exchange_partner(rt, open.sequence, Vec::new());
            return;
        }
        let t_copied = t0.elapsed();
        let (saved, saved_reports, decisions, live) = self.decide(&mut open);
        let replay = if open.resilient.is_some() {
            Vec::new()
        } else {
            backward_slice(&open.history, live)
        };
        let mut state = std::mem::take(&mut open.state);
        state.history = std::mem::take(&mut open.history);
        let meta = CkptMeta {
            version: META_VERSION,
            replay,
            region_end: open.loop_index + open.region.loops,
            state,
            resilient: open.resilient.clone(),
            reductions: std::mem::take(&mut open.reductions),
            fast_forward: open.fast_forward.take(),
            inputs: self.inputs.clone(),
        };
        let recompute_loops = meta.replay.len();
        let payload = frame(&meta, &open.payload);
        let ck = Checkpoint {
            meta: CheckpointMeta {
                app: self.app.clone(),
                sequence: open.sequence,
                loop_index: open.loop_index,
                location: open.location.clone(),
                backend: rt.backend_name().to_string(),
                time_unix: open.time_unix,
                rank: self.dist.rank,
                ranks: self.dist.ranks,
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
        let Some(store) = self.ck.store.as_mut() else {
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
            let path = self.exchange_partner(rt, open.sequence, w);
            (path, t.elapsed())
        });
        let stall = open.stall + t0.elapsed();
        self.clock.stall += t0.elapsed();
        // The next checkpoint here will save boxes of the same sizes.
        self.ck.pool.refill(sizes);
        self.ck.last_end = Instant::now();
        self.ck.last_cost = Some(stall);
        let mut rep = CheckpointReport {
            sequence: open.sequence,
            loop_index: open.loop_index,
            closed_at_loop: self.closing_loop(),
            location: open.location.clone(),
            provisional: open.provisional,
            region_loops: open.region.loops,
            bytes,
            datasets: saved_reports,
            decisions,
            recompute_loops,
            stall_s: stall.as_secs_f64(),
            copy_s: (open.stall + t_copied).as_secs_f64(),
            commit_s: (t_committed - t_built).as_secs_f64(),
            pass_s: self.ck.last_pass.map(|d| d.as_secs_f64()),
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
        // The report's figure for the location is the largest checkpoint it measured or took
        // (the decision itself stands on the measurements only, so a restarted run decides
        // alike).
        let at_chosen = self.report.location.chosen.as_deref() == Some(rep.location.as_str());
        if !rep.provisional && open.resilient.is_none() {
            self.ck.unobserved = Some((rep.location.clone(), rep.bytes));
        }
        if !rep.provisional && at_chosen {
            let b = &mut self.report.location.bytes;
            *b = Some(b.unwrap_or(0).max(rep.bytes));
        }
        self.say(1, &Report::checkpoint_text(&rep, self.cfg.diags));
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

    /// Collects write times of asynchronous commits that finished.
    pub(super) fn poll_completed(&mut self) {
        if let Some(p) = self.ck.partner.as_mut() {
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
        let Some(store) = self.ck.store.as_mut() else {
            return;
        };
        let failed = store.failed();
        let completed = store.completed();
        for (seq, e) in failed {
            // Not on disk: it no longer counts among the checkpoints taken.
            self.report.checkpoints.retain(|r| r.sequence != seq);
            self.warn(format!("checkpoint {seq} failed: {e}"));
        }
        for (seq, stats) in completed {
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
}

#[cfg(test)]
mod tests {
    use crate::engine::testing::{cfg, reference, STEP_LOOPS};

    /// At a fixed location with `--ops-checkpoint-every 2`: a checkpoint at every second
    /// occurrence, saving what the step reads before it overwrites it (`u`), never the mesh (a
    /// replay recomputes it) nor `v` (overwritten first). The first step's writes are the first
    /// of their loops, from start-up data: a replay recomputes them too, so a checkpoint before
    /// the second step's end saves nothing.
    #[test]
    fn checkpoints_come_every_nth_occurrence_and_save_only_live_data() {
        let (_, cks) = reference(cfg(2), 10, |r| r.set_location("smooth"));
        let at: Vec<u64> = cks.iter().map(|c| c.meta.loop_index).collect();
        assert!(at.len() >= 3, "{at:?}");
        assert!(
            at.iter().all(|l| (l - 2) % STEP_LOOPS == 0),
            "at smooth: {at:?}"
        );
        assert!(
            at.windows(2).all(|w| w[1] - w[0] == 2 * STEP_LOOPS),
            "{at:?}"
        );
        for c in &cks {
            let saved: Vec<&str> = c
                .dats
                .iter()
                .filter(|d| !d.regions.is_empty())
                .map(|d| d.name.as_str())
                .collect();
            let k = c.meta.loop_index;
            let want: &[&str] = if k > 2 + 2 * STEP_LOOPS {
                &["grid/u"]
            } else {
                &[]
            };
            assert_eq!(saved, want, "checkpoint at loop {k}");
        }
    }
}
