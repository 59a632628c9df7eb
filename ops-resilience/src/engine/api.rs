//! What the program asks of the engine (reached through
//! [`ResilienceExt`](crate::ResilienceExt)): location and dataset hints, the fast-forward
//! payload, checkpoints on request, views (transient, read-only, aliases), resilient regions
//! and fast-forward restarts.

use std::time::Instant;

use ops_core::{DatId, Ops, Runtime};

use super::phase::Phase;
use super::{region_bound, Resilience, Target};
use crate::diags::human_bytes;
use crate::error::ResilienceError;
use crate::meta::{FastForwardMeta, ResilientMeta};

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

impl Resilience {
    /// Fixes the checkpoint location: a loop name, `name@file:line`, a full
    /// `name@file:line:col`, or `*` (whatever loop comes next).
    pub fn set_location(&mut self, spec: &str) {
        self.interrupt_pass();
        self.target = if spec == "*" {
            Target::Any
        } else {
            Target::Fixed {
                spec: spec.to_string(),
                matches: Vec::new(),
            }
        };
        self.report.location.chosen = Some(spec.to_string());
        self.report.location.reason = "fixed by the program (checkpoint_location)".into();
    }

    /// Restricts checkpoints to these datasets (by index).
    pub fn set_datasets(&mut self, ops: &Ops, ids: &[DatId]) {
        self.interrupt_pass();
        self.track.sync(ops);
        self.track.list_set = true;
        for d in &mut self.track.dats {
            d.listed = false;
        }
        for id in ids {
            if let Some(d) = self.track.dats.get_mut(id.index()) {
                d.listed = true;
            }
        }
    }

    /// The fast-forward payload stored with the next checkpoints.
    pub fn set_payload(&mut self, bytes: &[u8]) {
        self.ck.payload = bytes.to_vec();
    }

    /// Declares one of the program's inputs (its deck, its parameters) by its bytes: stored in
    /// every checkpoint, and when this run restarts, compared with the checkpoint's: a restart
    /// whose input differs is refused (it would mix two computations), naming the input.
    pub fn declare_input(&mut self, label: &str, bytes: &[u8]) -> Result<(), ResilienceError> {
        let print = crate::meta::InputPrint::of(label, bytes);
        if let Some(saved) = &self.restored_inputs {
            match saved.iter().find(|p| p.label == label) {
                Some(p) if p.hash != print.hash => {
                    let dir = self.cfg.dir.as_ref().map_or_else(
                        || "the checkpoint directory".into(),
                        |d| d.display().to_string(),
                    );
                    // The restart is abandoned: nothing more is said about its replay.
                    self.phase = super::Phase::Normal;
                    return Err(ResilienceError::Mismatch(format!(
                        "--ops-restart: the input `{label}` is not the one the checkpoint in \
                         {dir} was taken with (fingerprint {:016x} then, {:016x} now): \
                         continuing would mix two computations. Restore the {label} to continue \
                         that run, or start afresh (without --ops-restart, or with another \
                         --ops-checkpoint-dir)",
                        p.hash, print.hash
                    )));
                }
                Some(_) => {}
                None => self.report.warnings.push(format!(
                    "the checkpoint restored has no fingerprint of the {label} (written before \
                     inputs were declared): it is not checked"
                )),
            }
        }
        self.inputs.retain(|p| p.label != label);
        self.inputs.push(print);
        Ok(())
    }

    /// The payload of the checkpoint this run restarts from.
    pub fn restart_payload(&self) -> Option<&[u8]> {
        self.restart_payload.as_deref()
    }

    /// Asks for a checkpoint at the next occurrence of the checkpoint location (before the
    /// location is decided: at the best boundary measured so far, or the very next loop).
    pub fn request_checkpoint(&mut self) {
        self.interrupt_pass();
        self.ck.manual = true;
    }

    /// End of initialisation: every point loops wrote so far is recomputed at restore (by
    /// re-executing the loops before this call that produced it) rather than saved, and no
    /// later loop write is recomputable.
    pub fn end_of_init(&mut self) {
        self.interrupt_pass();
        if self.phase.replaying() {
            // The state at the checkpoint is restored from it; nothing to do.
            self.track.drop_init_history();
            self.track.pure_writes = false;
            return;
        }
        if !self.track.end_of_init() {
            self.report.warnings.push(format!(
                "end_of_init after more than {} loops: ignored (the data are saved instead of \
                 recomputed)",
                crate::track::MAX_INIT_HISTORY
            ));
        }
    }

    /// Marks a dataset transient: never saved.
    pub fn mark_transient(&mut self, ops: &Ops, id: DatId) {
        self.interrupt_pass();
        self.track.sync(ops);
        if let Some(d) = self.track.dats.get_mut(id.index()) {
            d.transient = true;
        }
    }

    /// Marks a dataset read-only: never saved, and writing it later is an error.
    pub fn mark_read_only(&mut self, ops: &Ops, id: DatId) {
        self.interrupt_pass();
        self.track.sync(ops);
        let replaying = self.phase.replaying();
        let Some(d) = self.track.dats.get_mut(id.index()) else {
            return;
        };
        d.read_only = true;
        self.track.any_read_only = true;
        if !d.impure.is_empty() && !replaying {
            let w = format!(
                "dataset `{}` was marked read-only but holds values from recurring loops ({}); \
                 it is not saved, so a restart relies on the program recomputing it",
                d.name,
                human_bytes(d.bytes_of(&d.impure))
            );
            self.warn(w);
        }
    }

    /// Declares two datasets the halves of a double buffer: a checkpoint saves at most one of
    /// them (the one written last before the checkpoint).
    pub fn mark_aliases(&mut self, ops: &Ops, a: DatId, b: DatId) {
        self.interrupt_pass();
        self.track.sync(ops);
        let n = self.track.dats.len();
        if a == b || a.index() >= n || b.index() >= n {
            return;
        }
        self.track.dats[a.index()].alias = Some(b.index() as u32);
        self.track.dats[b.index()].alias = Some(a.index() as u32);
    }

    /// Decides what to do with iteration `iteration` of resilient region `label`.
    pub fn resilient_enter(&mut self, label: &str, iteration: u64) -> Enter {
        self.interrupt_pass();
        self.views.used = true;
        let decision = match &self.phase {
            Phase::ResilientWait(w) if w.label == label => {
                if iteration <= w.iteration {
                    Enter::Skip
                } else {
                    Enter::Restore
                }
            }
            _ => Enter::Run,
        };
        if decision != Enter::Skip {
            self.views.in_closure = true;
            self.views.closure_start = self.index;
        }
        decision
    }

    /// True while a resilient region's body runs.
    pub fn in_resilient(&self) -> bool {
        self.views.in_closure
    }

    /// A resilient region's body failed: leave it without checkpointing.
    pub fn resilient_abort(&mut self) {
        self.interrupt_pass();
        self.views.in_closure = false;
    }

    /// Restores a resilient region's checkpoint before its first iteration that runs.
    pub fn resilient_restore(&mut self, rt: &mut Runtime<'_>) -> Result<(), ResilienceError> {
        self.interrupt_pass();
        self.restore_resilient(rt)
    }

    /// After an iteration of a resilient region ran: checkpoints what resilient regions wrote
    /// when one is due (every N-th iteration: `iteration % N == 0`, or the interval elapsed).
    ///
    /// In a distributed run every process must call it for the same iterations (it may agree
    /// with the others on whether the interval elapsed).
    pub fn resilient_exit(&mut self, rt: &mut Runtime<'_>, label: &str, iteration: u64) {
        self.interrupt_pass();
        self.views.in_closure = false;
        self.views.closure_loops = self
            .views
            .closure_loops
            .max(self.index - self.views.closure_start);
        if self.ck.store.is_none() || !self.phase.normal() || self.ck.region.is_some() {
            return;
        }
        let mut due = self.ck.manual;
        if let Some(n) = self.cfg.effective_every() {
            due |= iteration.is_multiple_of(n);
        }
        if !due {
            due = self.interval_due_agreed(rt);
        }
        if !due {
            return;
        }
        self.track.refresh_live(rt);
        let bound = region_bound(self.views.closure_loops);
        self.open_region(
            rt,
            self.index,
            format!("resilient:{label}@{iteration}"),
            bound,
            Some(ResilientMeta {
                label: label.to_string(),
                iteration,
            }),
            false,
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
        rt: &mut Runtime<'_>,
        key: &str,
        payload: &[u8],
    ) -> Result<Option<Vec<u8>>, ResilienceError> {
        self.interrupt_pass();
        let (t0, stall0) = (Instant::now(), self.clock.stall);
        let out = self.fast_forward_inner(rt, key, payload);
        let stall = self.clock.stall.saturating_sub(stall0);
        self.clock.hook += t0.elapsed().saturating_sub(stall);
        if let Err(e) = &out {
            // Loops after a failed restore must not run as if restored.
            self.fail(ResilienceError::Diverged(e.to_string()));
        }
        out
    }

    fn fast_forward_inner(
        &mut self,
        rt: &mut Runtime<'_>,
        key: &str,
        payload: &[u8],
    ) -> Result<Option<Vec<u8>>, ResilienceError> {
        match &self.phase {
            Phase::Replay(_) => {
                // The replayed run's first call, for checkpoints this run takes later.
                self.ff.first.get_or_insert(self.index);
                return Ok(None);
            }
            Phase::ResilientWait(_) => return Ok(None),
            Phase::FastForward(_) => return self.restore_fast_forward(rt, key).map(Some),
            Phase::Normal => {}
        }
        if self.views.used {
            return Ok(None);
        }
        match self.ff.key.as_deref() {
            Some(k) if k == key => {}
            Some(k) => {
                if !self.ff.warned {
                    self.ff.warned = true;
                    let w = format!(
                        "fast_forward called at `{key}` too; only the first call site, `{k}`, \
                         takes checkpoints"
                    );
                    self.warn_from_rank0(w);
                }
                return Ok(None);
            }
            None => {
                self.track.sync(rt);
                self.ff.first.get_or_insert(self.index);
                // What the loops before the first call wrote is recomputed by running them
                // again (a restarted run runs its start-up normally); later writes are saved.
                self.track.end_of_init();
                self.ff.key = Some(key.to_string());
                self.ck.target_occ = 0;
                self.ck.last_ckpt_occ = 0;
                self.report.location.chosen = Some(key.to_string());
                self.report.location.reason = "the fast_forward call site".into();
                self.report.location.chosen_at_loop = Some(self.index);
            }
        }
        if let Some(prev) = self.ff.last {
            self.ff.gap = self.ff.gap.max(self.index - prev);
        }
        self.ff.last = Some(self.index);
        self.ck.payload.clear();
        self.ck.payload.extend_from_slice(payload);
        self.ck.target_occ += 1;
        if self.ck.store.is_none() {
            return Ok(None);
        }
        if self.ck.region.as_ref().is_some_and(|o| o.region.expired()) {
            self.close_region(rt);
        }
        let at_every = self
            .cfg
            .effective_every()
            .is_some_and(|n| self.ck.passes_due(n));
        if self.ck.region.is_none() && (self.ck.manual || at_every || self.interval_due_agreed(rt))
        {
            self.track.sync(rt);
            self.track.refresh_live(rt);
            let bound = region_bound(self.ff.gap);
            self.open_region(rt, self.index, key.to_string(), bound, None, false);
            let ff = FastForwardMeta {
                location: key.to_string(),
                first_call_loop: self.ff.first.unwrap_or(0),
                gap: self.ff.gap,
            };
            if let Some(o) = self.ck.region.as_mut() {
                o.fast_forward = Some(ff);
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::testing::{cfg, Kept, Prog};
    use crate::ResilienceExt;

    #[test]
    fn a_restart_with_another_input_is_refused_naming_it() {
        let store = Kept::default();
        let mut p = Prog::new(cfg(1), &store, |r| r.set_location("smooth"));
        p.ops.input_fingerprint("deck", b"n=8").unwrap();
        p.run(4).unwrap();
        let ck = store.all().pop().expect("a checkpoint");
        let restart = |deck: &[u8]| {
            let ck = ck.clone();
            let mut c = cfg(1);
            c.restart = true;
            let mut q = Prog::new(c, &Kept::default(), |r| r.restart_from(ck).unwrap());
            q.ops.input_fingerprint("deck", deck)
        };
        restart(b"n=8").unwrap();
        let e = restart(b"n=9").unwrap_err().to_string();
        assert!(e.contains("the input `deck` is not the one"), "{e}");
    }
}
