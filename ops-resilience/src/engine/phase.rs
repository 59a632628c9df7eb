//! [`Phase`]: what the engine is doing with the program right now. Exactly one phase at a time;
//! every other piece of state is about recording ([`Tracker`](super::record::Tracker)),
//! learning ([`Learner`](crate::learn::Learner)) or checkpointing, and means the same in every
//! phase.

use ops_core::{LoopPlan, Ops};

use crate::calls::Call;
use crate::error::ResilienceError;
use crate::meta::CkptMeta;
use crate::store::Checkpoint;

/// A restart replaying towards its checkpoint.
pub(crate) struct Replay {
    /// The checkpoint.
    pub ck: Checkpoint,
    /// Its tracker metadata.
    pub meta: CkptMeta,
    /// The application's fast-forward payload stored with it.
    pub user_payload: Vec<u8>,
    /// The loop index the checkpoint was taken at.
    pub k: u64,
    /// Next entry of `meta.replay` (loops re-executed to recompute pure data).
    pub exec_cursor: usize,
    /// Next logged value to hand to the program.
    pub q_cursor: usize,
    /// Where its record starts in the checkpoint's value log.
    pub q_pos: usize,
    /// Loops re-executed so far.
    pub executed: u64,
    /// Loops skipped so far.
    pub skipped: u64,
    /// The loop locations this run has met during the replay, in first-seen order: matched
    /// with the checkpoint's by name and order, so code that only moved keeps its checkpoints.
    pub locs: crate::location::LocTable,
    /// Where the replay is in the checkpoint's call log.
    pub calls: crate::calls::Reader,
}

impl Replay {
    /// A replay towards `ck`.
    pub fn new(ck: Checkpoint, meta: CkptMeta, user_payload: Vec<u8>) -> Box<Replay> {
        Box::new(Replay {
            k: ck.meta.loop_index,
            ck,
            meta,
            user_payload,
            exec_cursor: 0,
            q_cursor: 0,
            q_pos: 0,
            executed: 0,
            skipped: 0,
            locs: crate::location::LocTable::default(),
            calls: crate::calls::Reader::default(),
        })
    }

    /// Checks loop `index`'s call against the checkpoint's call log (moving past it when they
    /// agree); the error names the loop, the argument, the value now and then.
    pub fn check_call(
        &mut self,
        index: u64,
        plan: &LoopPlan<'_>,
        ops: &Ops,
    ) -> Result<(), ResilienceError> {
        let call = Call::plan(plan);
        let log = &self.meta.state.calls;
        log.check(&mut self.calls, &call).map_err(|d| {
            let key = crate::location::key_of(plan);
            ResilienceError::Diverged(log.describe(&d, index, &key, &call, ops))
        })
    }

    /// True when loop `index` (below the checkpoint's) is one a replay re-executes.
    pub fn reexecutes(&mut self, index: u64) -> bool {
        let ex = &self.meta.replay;
        while self.exec_cursor < ex.len() && ex[self.exec_cursor] < index {
            self.exec_cursor += 1;
        }
        ex.get(self.exec_cursor) == Some(&index)
    }
}

/// A restart waiting for the resilient region its checkpoint was taken in.
pub(crate) struct ResilientWait {
    /// The checkpoint.
    pub ck: Checkpoint,
    /// Its tracker metadata.
    pub meta: CkptMeta,
    /// The region's label.
    pub label: String,
    /// The iteration after which it was taken.
    pub iteration: u64,
}

/// What the engine is doing.
pub(crate) enum Phase {
    /// Tracking, learning and checkpointing a running program.
    Normal,
    /// Replaying towards a checkpoint: loops are skipped (or re-executed to recompute pure
    /// data), values come from the log.
    Replay(Box<Replay>),
    /// Waiting for a resilient region's iteration to restore its checkpoint.
    ResilientWait(Box<ResilientWait>),
    /// Restarting from a fast-forward checkpoint: loops run normally (start-up) until the
    /// first `fast_forward` call, which restores the checkpoint.
    FastForward(Box<Replay>),
}

impl Phase {
    /// True while replaying towards a checkpoint.
    pub fn replaying(&self) -> bool {
        matches!(self, Phase::Replay(_))
    }

    /// True in normal operation.
    pub fn normal(&self) -> bool {
        matches!(self, Phase::Normal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{cfg, reference};
    use crate::meta::unframe;

    #[test]
    fn a_replay_reexecutes_exactly_the_listed_loops() {
        let (_, cks) = reference(cfg(1), 6, |r| r.set_location("smooth"));
        let ck = cks.last().expect("checkpoints").clone();
        let (mut meta, user) = unframe(&ck.payload).unwrap();
        meta.replay = vec![1, 5, 9];
        let mut r = Replay::new(ck, meta, user);
        let run: Vec<u64> = (0..12).filter(|&i| r.reexecutes(i)).collect();
        assert_eq!(run, vec![1, 5, 9]);
        assert!(!Phase::Replay(r).normal());
    }
}
