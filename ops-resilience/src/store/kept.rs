//! [`KeptInMemory`]: a store that keeps every committed checkpoint in memory and writes nothing,
//! for tests of programs (restart a program from any checkpoint its run took, in-process).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{Checkpoint, CheckpointStore, CommitStats, Found, PendingRegion, StoreError};

/// Keeps every committed checkpoint, in order; clones share them, so a test keeps one clone
/// and hands another to the runtime.
///
/// ```
/// use ops_resilience::store::{CheckpointStore, KeptInMemory};
/// let kept = KeptInMemory::default();
/// let store: Box<dyn CheckpointStore> = Box::new(kept.clone());
/// assert_eq!(store.next_sequence().unwrap(), 1);
/// assert!(kept.all().is_empty());
/// ```
#[derive(Clone, Default)]
pub struct KeptInMemory(Arc<Mutex<Vec<Checkpoint>>>);

impl KeptInMemory {
    /// Every checkpoint committed so far, in order.
    pub fn all(&self) -> Vec<Checkpoint> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl CheckpointStore for KeptInMemory {
    fn commit_deferred(
        &mut self,
        mut ck: Checkpoint,
        pending: Vec<PendingRegion>,
    ) -> Result<CommitStats, StoreError> {
        ck.fill_in(pending)?;
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(ck);
        Ok(CommitStats {
            write: Duration::from_nanos(1),
            bytes_written: 1,
            ..CommitStats::default()
        })
    }
    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
    fn find_latest(&self) -> Result<Found, StoreError> {
        Ok(Found {
            checkpoint: self.all().pop(),
            rejected: Vec::new(),
            read: Duration::ZERO,
        })
    }
    fn next_sequence(&self) -> Result<u64, StoreError> {
        Ok(self.0.lock().unwrap_or_else(|e| e.into_inner()).len() as u64 + 1)
    }
}
