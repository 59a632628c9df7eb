//! Restarts: preparing one from what the store found, replaying towards the checkpoint
//! (answering the program from the log), and restoring (by replay, at the first `fast_forward`
//! call, or before a resilient region's first iteration that runs).

use std::time::{Duration, Instant};

use ops_core::{ElemType, LoopPlan, Query, Runtime, Scalar};

use super::phase::{Phase, Replay, ResilientWait};
use super::{Resilience, Target};
use crate::boxes::Bx;
use crate::diags::{RejectedReport, Report, RestoreFile, RestoreReport};
use crate::error::ResilienceError;
use crate::location::LocTable;
use crate::meta::{unframe, CkptMeta, TrackerState};
use crate::store::dist::Search;
use crate::store::{Checkpoint, Found, Rejected};
use crate::track::DatTrack;

fn scalar_from(elem: ElemType, b: &[u8]) -> Option<Scalar> {
    Some(match elem {
        ElemType::F64 => Scalar::F64(f64::from_le_bytes(b.try_into().ok()?)),
        ElemType::F32 => Scalar::F32(f32::from_le_bytes(b.try_into().ok()?)),
        ElemType::I32 => Scalar::I32(i32::from_le_bytes(b.try_into().ok()?)),
    })
}

fn describe(name: &str, elem: Option<ElemType>, bytes: &[u8]) -> String {
    match elem {
        Some(elem) => format!("reduction `{name}` ({elem})"),
        None => format!("fetch of `{name}` ({} bytes)", bytes.len()),
    }
}

fn rejected_reports(rejected: &[Rejected]) -> Vec<RejectedReport> {
    rejected
        .iter()
        .map(|r| RejectedReport {
            path: r.path.display().to_string(),
            reason: r.reason.clone(),
        })
        .collect()
}

/// Answers a value handed to user space during a replay from the checkpoint's log.
pub(super) fn answer(
    r: &mut Replay,
    dats: &[DatTrack],
    query: &mut Query<'_>,
) -> Result<(), ResilienceError> {
    let logged =
        r.ck.queries
            .at(r.q_pos, r.q_cursor)
            .map_err(|e| ResilienceError::Metadata(format!("its value log: {e}")))?;
    let Some(crate::store::ValueRecord {
        name: ln,
        elem,
        bytes: lb,
        next,
    }) = logged
    else {
        return Err(ResilienceError::Diverged(format!(
            "the program asks for more values before loop {} than the checkpoint logged ({})",
            r.k,
            r.ck.queries.len()
        )));
    };
    let ok = match (&mut *query, elem) {
        (Query::Reduction { name, value, .. }, Some(elem))
            if *name == ln && value.elem_type() == elem =>
        {
            match scalar_from(elem, lb) {
                Some(s) => {
                    **value = s;
                    true
                }
                None => false,
            }
        }
        (Query::Fetch { dat, bytes, .. }, None)
            if bytes.len() == lb.len()
                && dats.get(dat.index()).map(|d| d.name == ln).unwrap_or(true) =>
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
        return Err(ResilienceError::Diverged(format!(
            "value {} handed to the program is {got}, the checkpoint logged {}",
            r.q_cursor + 1,
            describe(ln, elem, lb)
        )));
    }
    r.q_cursor += 1;
    r.q_pos = next;
    Ok(())
}

impl Resilience {
    /// Logs a value handed to the program (normal operation); a fetch is also a read the open
    /// region and the learner's recording see.
    /// Logs the reduction result `name` = `value` handed to the program.
    #[inline]
    pub(super) fn log_result(&mut self, name: &str, value: Scalar) {
        let log = &mut self.track.queries;
        match value {
            Scalar::F64(v) => log.push_reduction(name, ElemType::F64, &v.to_le_bytes()),
            Scalar::F32(v) => log.push_reduction(name, ElemType::F32, &v.to_le_bytes()),
            Scalar::I32(v) => log.push_reduction(name, ElemType::I32, &v.to_le_bytes()),
        }
        self.learner.on_value();
    }

    pub(super) fn log_query(&mut self, query: &mut Query<'_>) {
        match query {
            Query::Reduction { name, value, .. } => self.log_result(name, **value),
            Query::Fetch {
                dat, range, bytes, ..
            } => {
                let d = dat.index() as u32;
                match self.track.dats.get(dat.index()) {
                    Some(t) => self.track.queries.push_fetch(&t.name, bytes),
                    None => self.track.queries.push_fetch(&format!("#{d}"), bytes),
                }
                let b = Bx::from_range(range);
                if let Some(o) = self.ck.region.as_mut() {
                    o.region.read(d, &b);
                }
                self.learner.on_read(d, &b);
            }
        }
    }

    /// Prepares a restart from what [`CheckpointStore::find_latest`](crate::store::CheckpointStore::find_latest)
    /// found: reports rejected files, and either says there is nothing to restart from or
    /// enters replay (or, for a resilient region's checkpoint, waits for that region).
    pub fn restart_with(&mut self, found: Found) -> Result<(), ResilienceError> {
        self.clock.read = found.read;
        let rejected = rejected_reports(&found.rejected);
        for r in &rejected {
            self.say(
                0,
                &format!(
                    "ops-resilience: rejected checkpoint {}: {}\n",
                    r.path, r.reason
                ),
            );
        }
        match found.checkpoint {
            None => {
                let dir = self
                    .cfg
                    .dir
                    .as_ref()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                self.say(
                    0,
                    &format!(
                    "ops-resilience: no complete checkpoint in {dir}; starting from the beginning\n"
                ),
                );
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
    pub fn restart_with_search(&mut self, search: Search) -> Result<(), ResilienceError> {
        let found = Found {
            checkpoint: None,
            rejected: search.rejected.clone(),
            read: search.read,
        };
        let Some(set) = search.complete else {
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
        // An own file a partner copy stands in for is said once, below.
        let replaced: Vec<&Rejected> = set
            .parts
            .iter()
            .filter_map(|p| p.own_rejected.as_ref())
            .collect();
        let mut lines = String::new();
        for r in found.rejected.iter().filter(|r| !replaced.contains(r)) {
            lines.push_str(&format!(
                "ops-resilience: rejected checkpoint {}: {}\n",
                r.path.display(),
                r.reason
            ));
        }
        for p in set.parts.iter().filter(|p| p.partner) {
            let why = p
                .own_rejected
                .as_ref()
                .map(|r| format!("{}: {}", r.path.display(), r.reason))
                .unwrap_or_default();
            lines.push_str(&format!(
                "ops-resilience: checkpoint {sequence}, rank {}: own file not usable ({why}); \
                 using the partner copy {}\n",
                p.rank,
                p.path.display()
            ));
        }
        self.say(0, &lines);
        let ck = set
            .merge()
            .map_err(|e| ResilienceError::Mismatch(format!("merging the ranks' files: {e}")))?;
        self.clock.read = found.read;
        self.restart_from(ck)?;
        if let Some(r) = self.report.restore.as_mut() {
            r.rejected = rejected_reports(&found.rejected);
            r.read_s = found.read.as_secs_f64();
            r.ranks = Some(ranks);
            r.files = files;
        }
        Ok(())
    }

    /// Enters replay towards `ck` (or waits for its resilient region).
    pub fn restart_from(&mut self, ck: Checkpoint) -> Result<(), ResilienceError> {
        let (meta, user) = unframe(&ck.payload).map_err(ResilienceError::Metadata)?;
        if ck.meta.app != self.app && self.cfg.app.is_some() {
            // Names only decide file names; a mismatch is worth a word, not a failure.
            self.report.warnings.push(format!(
                "restarting from a checkpoint of `{}` as `{}`",
                ck.meta.app, self.app
            ));
        }
        self.restart_payload = Some(user.clone());
        self.restored_inputs = Some(meta.inputs.clone());
        self.report.restore = Some(RestoreReport {
            sequence: Some(ck.meta.sequence),
            loop_index: Some(ck.meta.loop_index),
            location: Some(ck.meta.location.clone()),
            bytes: ck.data_bytes() as u64,
            fast_forward: meta.fast_forward.is_some() && meta.resilient.is_none(),
            ..RestoreReport::default()
        });
        self.phase = match &meta.resilient {
            Some(r) => Phase::ResilientWait(Box::new(ResilientWait {
                label: r.label.clone(),
                iteration: r.iteration,
                ck,
                meta,
            })),
            None if meta.fast_forward.is_some() => Phase::FastForward(Replay::new(ck, meta, user)),
            None => Phase::Replay(Replay::new(ck, meta, user)),
        };
        Ok(())
    }

    /// Uploads a checkpoint's saved boxes and its pending reductions; the time it took.
    pub(super) fn upload_checkpoint(
        &mut self,
        rt: &mut Runtime<'_>,
        ck: &Checkpoint,
        meta: &CkptMeta,
    ) -> Result<Duration, ResilienceError> {
        let t0 = Instant::now();
        self.track.sync(rt);
        self.upload(rt, ck)?;
        restore_reductions(rt, meta)?;
        Ok(t0.elapsed())
    }

    /// Uploads a checkpoint's saved boxes, by dataset name.
    fn upload(&mut self, rt: &mut Runtime<'_>, ck: &Checkpoint) -> Result<(), ResilienceError> {
        for sd in &ck.dats {
            let Some(i) = self
                .track
                .dats
                .iter()
                .position(|d| d.live && d.name == sd.name)
            else {
                return Err(ResilienceError::Mismatch(format!(
                    "the checkpoint saves dataset `{}`, which this run has not declared",
                    sd.name
                )));
            };
            let d = &self.track.dats[i];
            if d.layout.ty != sd.elem || d.layout.components != sd.components {
                return Err(ResilienceError::Mismatch(format!(
                    "dataset `{}`: the checkpoint holds {} x {}, this run declares {} x {}",
                    sd.name, sd.components, sd.elem, d.layout.components, d.layout.ty
                )));
            }
            for r in &sd.regions {
                let b = Bx::new(r.lo, r.hi);
                let range = b.to_range(d.layout.dims);
                if !d.layout.contains(&range) {
                    return Err(ResilienceError::Mismatch(format!(
                        "dataset `{}`: saved box {b} lies outside its extent {}",
                        sd.name,
                        d.layout.extent()
                    )));
                }
                rt.upload_bytes(self.track.ids[i], &range, &r.bytes)
                    .map_err(|e| {
                        ResilienceError::runtime(format!("restoring `{}` {b}", sd.name), e)
                    })?;
            }
        }
        Ok(())
    }

    /// Takes over a restored checkpoint's tracker state, query log and payload, so the run
    /// goes on as the checkpointed run would have.
    fn resume_from(&mut self, r: Replay) -> Result<(), ResilienceError> {
        let Replay {
            ck,
            meta,
            user_payload,
            locs,
            ..
        } = r;
        let moved = self.restore_state(meta.state, &locs)?;
        // The run being continued told the learner this checkpoint's size when the next one
        // opened; so does this one.
        let at = moved
            .get(&ck.meta.location)
            .cloned()
            .unwrap_or_else(|| ck.meta.location.clone());
        self.ck.unobserved = Some((at, ck.data_bytes() as u64));
        self.track.queries = ck.queries;
        self.ck.payload = user_payload;
        Ok(())
    }

    /// The tracker's, the learner's and the schedule's state from a checkpoint. `current`: the
    /// loop locations this run met before the checkpoint's loop, in first-seen order. The
    /// checkpoint's locations are matched with them by order and name (the program runs the same
    /// loops in the same order), so a location whose call site moved (code reformatted, a line
    /// added above it) takes its new site and keeps its id; a different name is a different
    /// program. Returns the moved keys, old to new.
    fn restore_state(
        &mut self,
        st: TrackerState,
        current: &LocTable,
    ) -> Result<std::collections::HashMap<String, String>, ResilienceError> {
        self.track.restore_dats(&st.dats)?;
        let mut locations = st.locations;
        let mut moved = std::collections::HashMap::new();
        for (i, now) in current.locs.iter().enumerate() {
            let Some(saved) = locations.get_mut(i) else {
                return Err(ResilienceError::Diverged(format!(
                    "this run met loop `{}` before the checkpoint's loop, which the checkpointed \
                     run never ran: the program changed",
                    now.key
                )));
            };
            if saved.name != now.name || saved.block != now.block {
                return Err(ResilienceError::Diverged(format!(
                    "the {} loop location this run met is `{}`, the checkpointed run's was `{}`: \
                     the program changed",
                    ordinal(i + 1),
                    now.key,
                    saved.key
                )));
            }
            if saved.key != now.key {
                moved.insert(saved.key.clone(), now.key.clone());
                saved.key.clone_from(&now.key);
                saved.file.clone_from(&now.file);
                (saved.line, saved.col) = (now.line, now.col);
            }
        }
        if !moved.is_empty() {
            self.warn(format!(
                "{} loop location(s) moved in the source since the checkpoint was taken (e.g. \
                 `{}` is now `{}`); matched by name and order",
                moved.len(),
                moved.keys().next().map_or("", String::as_str),
                moved.values().next().map_or("", String::as_str)
            ));
        }
        self.track.locs = LocTable::from_infos(locations, st.first_pass_recur);
        // Locations are numbered as the checkpointed run numbered them.
        self.shapes.clear();
        self.passes.forget();
        self.track.seen = st
            .seen
            .iter()
            .map(|(k, d)| (moved.get(k).unwrap_or(k), d))
            .filter_map(|(k, d)| self.track.locs.find_key(k).map(|l| (l, *d)))
            .collect();
        self.track.history = st.history;
        self.track.pure_writes = st.pure_writes;
        self.track.drop_init_history();
        self.learner = st.learner;
        self.learner.rebuild_bits();
        self.track.calls = st.calls;
        self.track.last_pure_write = st.last_pure_write;
        self.ck.target_occ = st.target_occ;
        self.ck.last_ckpt_occ = st.target_occ;
        self.ck.suspect_occ = 0;
        // As the checkpointed run had it when the checkpoint opened.
        self.ck.paced_by = self.learner.pacing();
        if let Target::Fixed { matches, .. } = &mut self.target {
            matches.clear();
        }
        self.report_location();
        Ok(moved)
    }

    /// Reached the checkpoint's loop while replaying: restore and go on normally.
    pub(super) fn restore_replay(
        &mut self,
        rt: &mut Runtime<'_>,
        plan: &LoopPlan<'_>,
    ) -> Result<(), ResilienceError> {
        let Phase::Replay(mut r) = std::mem::replace(&mut self.phase, Phase::Normal) else {
            return Ok(());
        };
        // By name: its call site may have moved (see `restore_state`).
        let saved_name = r.ck.meta.location.split('@').next().unwrap_or_default();
        if plan.name != saved_name {
            return Err(ResilienceError::Diverged(format!(
                "loop {} is `{}` in this run but `{}` in the checkpoint",
                r.k,
                crate::location::key_of(plan),
                r.ck.meta.location
            )));
        }
        r.locs.id_of(plan, r.k);
        if r.q_cursor != r.ck.queries.len() {
            return Err(ResilienceError::Diverged(format!(
                "the program asked for {} value(s) before loop {}, the checkpoint logged {}",
                r.q_cursor,
                r.k,
                r.ck.queries.len()
            )));
        }
        let upload = self.upload_checkpoint(rt, &r.ck, &r.meta)?;
        let (executed, skipped, replayed) = (r.executed, r.skipped, r.q_cursor as u64);
        self.resume_from(*r)?;
        self.report_restore(upload, |rep| {
            rep.executed_loops = executed;
            rep.skipped_loops = skipped;
            rep.replayed_queries = replayed;
        });
        Ok(())
    }

    /// The first `fast_forward` call of a run restarting from a fast-forward checkpoint: the
    /// start-up loops ran; upload the saved boxes, restore reductions and the tracker's state,
    /// jump to the checkpoint's loop index, and hand back the application's payload.
    pub(super) fn restore_fast_forward(
        &mut self,
        rt: &mut Runtime<'_>,
        key: &str,
    ) -> Result<Vec<u8>, ResilienceError> {
        let Phase::FastForward(r) = std::mem::replace(&mut self.phase, Phase::Normal) else {
            unreachable!("called in fast-forward mode");
        };
        let seq = r.ck.meta.sequence;
        let ff = r
            .meta
            .fast_forward
            .clone()
            .ok_or_else(|| ResilienceError::Metadata("not a fast-forward checkpoint".into()))?;
        if key != ff.location {
            return Err(ResilienceError::Diverged(format!(
                "restart from fast-forward checkpoint {seq}: fast_forward is called at `{key}` \
                 in this run, the checkpoint was taken at `{}`",
                ff.location
            )));
        }
        let startup = self.index;
        if startup != ff.first_call_loop {
            return Err(ResilienceError::Diverged(format!(
                "restart from fast-forward checkpoint {seq}: this run called fast_forward first \
                 after {startup} loops, the checkpointed run after {}: the start-up differs",
                ff.first_call_loop
            )));
        }
        if let Some(late) = r.meta.replay.iter().find(|&&i| i >= startup) {
            return Err(ResilienceError::Mismatch(format!(
                "cannot fast-forward to checkpoint {seq}: it recomputes data by re-executing \
                 loop {late}, which comes after the start-up (the {startup} loops before the \
                 first fast_forward call) and does not run again; restart by replay instead \
                 (a run without fast_forward calls)"
            )));
        }
        let upload = self.upload_checkpoint(rt, &r.ck, &r.meta)?;
        let loop_index = r.ck.meta.loop_index;
        let user_payload = r.user_payload.clone();
        self.resume_from(*r)?;
        self.index = loop_index;
        self.ff.key = Some(key.to_string());
        self.ff.first = Some(ff.first_call_loop);
        self.ff.last = Some(self.index);
        self.ff.gap = ff.gap;
        self.report_restore(upload, |rep| {
            rep.fast_forward = true;
            rep.executed_loops = startup;
            rep.skipped_loops = loop_index.saturating_sub(startup);
            rep.replayed_queries = 0;
        });
        Ok(user_payload)
    }

    /// Restores a resilient region's checkpoint before its first iteration that runs.
    pub(super) fn restore_resilient(
        &mut self,
        rt: &mut Runtime<'_>,
    ) -> Result<(), ResilienceError> {
        let Phase::ResilientWait(w) = std::mem::replace(&mut self.phase, Phase::Normal) else {
            return Ok(());
        };
        let upload = self.upload_checkpoint(rt, &w.ck, &w.meta)?;
        // The loops of the skipped iterations were never seen here: what they wrote is what
        // the checkpoint says resilient regions wrote.
        self.track.add_closure(&w.meta.state.dats);
        self.report_restore(upload, |_| {});
        Ok(())
    }

    /// The end of every restore: the report's timings, what `fill` adds for this kind of
    /// restore, and the line a restart always prints to say where it restarted from.
    fn report_restore(&mut self, upload: Duration, fill: impl FnOnce(&mut RestoreReport)) {
        self.ck.last_end = Instant::now();
        if let Some(rep) = self.report.restore.as_mut() {
            rep.replay_s = self.clock.started.elapsed().as_secs_f64();
            rep.upload_s = upload.as_secs_f64();
            rep.reexec_s = self.clock.replay_exec.as_secs_f64();
            fill(rep);
        }
        if let Some(text) = self.report.restore.as_ref().map(Report::restore_text) {
            self.say(0, &text);
        }
    }

    /// At the end of the program: a replay or fast-forward that never reached its checkpoint
    /// means the program did not run as the checkpointed one.
    pub(super) fn check_finished_replay(&mut self) {
        let msg = match &self.phase {
            Phase::Replay(r) => format!(
                "the program ended after {} loops, before the checkpoint's loop {}",
                self.index, r.k
            ),
            Phase::FastForward(r) => format!(
                "restart from fast-forward checkpoint {}: the program ended after {} loops \
                 without calling fast_forward",
                r.ck.meta.sequence, self.index
            ),
            _ => return,
        };
        self.fail(ResilienceError::Diverged(msg));
    }
}

/// Restores the reductions' running values recorded in a checkpoint.
fn restore_reductions(rt: &mut Runtime<'_>, meta: &CkptMeta) -> Result<(), ResilienceError> {
    let names: Vec<String> = rt
        .reduction_values()
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    for (i, pr) in meta.reductions.iter().enumerate() {
        if names.get(i) != Some(&pr.name) {
            return Err(ResilienceError::Mismatch(format!(
                "the checkpoint's reduction {} is `{}`, this run declared {} by then",
                i + 1,
                pr.name,
                names
                    .get(i)
                    .map(|n| format!("`{n}`"))
                    .unwrap_or_else(|| "none".into())
            )));
        }
        let v = pr.value().ok_or_else(|| {
            ResilienceError::Metadata(format!("reduction `{}`: unknown type {}", pr.name, pr.ty))
        })?;
        rt.set_reduction_value(i, v).map_err(|e| {
            ResilienceError::runtime(format!("restoring reduction `{}`", pr.name), e)
        })?;
    }
    Ok(())
}

/// `1st`, `2nd`, `3rd`, `4th`, ...
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use crate::engine::testing::{cfg, reference, Kept, Prog};

    /// A restart skips the loops before the checkpoint (re-executing only start-up loops whose
    /// data the step needs), restores, and ends bitwise as the uninterrupted run.
    #[test]
    fn a_restart_replays_to_the_checkpoint_and_continues_bitwise() {
        let (sums, cks) = reference(cfg(1), 8, |r| r.set_location("smooth"));
        let ck = cks[cks.len() / 2].clone();
        let k = ck.meta.loop_index;
        let mut c = cfg(1);
        c.restart = true;
        let mut p = Prog::new(c, &Kept::default(), |r| {
            r.set_location("smooth");
            r.restart_from(ck).unwrap()
        });
        assert_eq!(p.run(8).unwrap(), sums);
        // The tracker's state goes on as the uninterrupted run's: the last recomputable write
        // (start-up and the first step, before the checkpoint), which times the learner's
        // measurements, included.
        let mut q = Prog::new(cfg(1), &Kept::default(), |r| r.set_location("smooth"));
        q.run(8).unwrap();
        let last_pure = |p: &mut Prog| {
            p.ops
                .observer_mut::<crate::Resilience>()
                .unwrap()
                .track
                .last_pure_write
        };
        assert!(last_pure(&mut q) > 0);
        assert_eq!(last_pure(&mut p), last_pure(&mut q));
        let rep = p.report().restore.expect("restored");
        assert_eq!(rep.loop_index, Some(k));
        assert_eq!(rep.skipped_loops + rep.executed_loops, k);
        assert!(rep.executed_loops <= 2, "only start-up loops: {rep:?}");
    }
}
