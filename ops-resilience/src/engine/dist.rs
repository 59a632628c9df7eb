//! What the processes of a distributed run exchange at a checkpoint: each sends its own
//! checkpoint to the next rank, which keeps it as a partner copy.

use ops_core::Runtime;

use super::Resilience;
use crate::store::dist::partner_of;
use crate::store::wire;

impl Resilience {
    /// Distributed runs, at every checkpoint's close on every process: sends this process's
    /// checkpoint (`mine`, [`wire::encode`]d; empty when it was abandoned here) to rank
    /// `rank + 1` and commits the copy received from rank `rank - 1` to the partner store. The
    /// partner copy's path, once known. Failures are warnings: the own checkpoint stands.
    pub(super) fn exchange_partner(
        &mut self,
        rt: &mut Runtime<'_>,
        sequence: u64,
        mine: Vec<u8>,
    ) -> Option<String> {
        if self.dist.ranks <= 1 {
            return None;
        }
        let got = match rt.comm() {
            Some(c) => c.ring_shift(&mine).map_err(|e| e.to_string()),
            None => Err("the runtime has no communicator".into()),
        };
        drop(mine);
        let from = partner_of(self.dist.rank, self.dist.ranks);
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
        if (ck.meta.sequence, ck.meta.rank, ck.meta.ranks) != (sequence, from, self.dist.ranks) {
            self.warn(format!(
                "checkpoint {sequence}: rank {from} sent checkpoint {} of rank {} of {}: not kept",
                ck.meta.sequence, ck.meta.rank, ck.meta.ranks
            ));
            return None;
        }
        let partner = self.ck.partner.as_mut()?;
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
}
