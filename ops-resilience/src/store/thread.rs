//! Thread offload: `commit` hands the (already copied) checkpoint to a background writer thread
//! that writes it with an [`Hdf5Store`]; the run goes on computing meanwhile.

use super::{
    Checkpoint, CheckpointStore, CommitStats, Found, Hdf5Store, PendingRegion, StoreError,
};
use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Checkpoints that may wait for the writer besides the one it is writing; a commit beyond that
/// blocks until the writer takes the next one (the time blocked is the commit's stall).
const QUEUE: usize = 1;

enum Job {
    /// A checkpoint and its regions still on their way from the device.
    Write(Box<Checkpoint>, Vec<PendingRegion>),
    /// Answered once every job before it is done.
    Flush(mpsc::Sender<()>),
}

/// The writer's report of one checkpoint.
type Report = (u64, Result<CommitStats, StoreError>);

/// Writes checkpoints on a background thread: at most two in flight (one being written, one
/// waiting). A failed write is reported by [`CheckpointStore::failed`] with its own sequence
/// number and does not stop the next commits; dropping the store flushes it.
pub struct ThreadStore {
    reader: Hdf5Store,
    jobs: Option<SyncSender<Job>>,
    reports: Receiver<Report>,
    writer: Option<JoinHandle<()>>,
    /// Stall of each checkpoint handed over and not yet reported.
    stalls: HashMap<u64, Duration>,
    done: Vec<(u64, CommitStats)>,
    errors: Vec<(u64, StoreError)>,
    last_sequence: Option<u64>,
}

impl ThreadStore {
    /// A thread-offload store over `Hdf5Store::new(dir, app, keep)`.
    pub fn new(dir: &Path, app: &str, keep: usize) -> Result<Self, StoreError> {
        Self::with_store(Hdf5Store::new(dir, app, keep)?)
    }

    /// A thread-offload store whose writer thread writes through `store`.
    pub fn with_store(store: Hdf5Store) -> Result<Self, StoreError> {
        let (jobs, job_rx) = mpsc::sync_channel::<Job>(QUEUE);
        let (report_tx, reports) = mpsc::channel::<Report>();
        let disk = store.clone();
        let writer = std::thread::Builder::new()
            .name("ops-checkpoint-writer".into())
            .spawn(move || {
                for job in job_rx {
                    match job {
                        Job::Write(mut ck, pending) => {
                            let sequence = ck.meta.sequence;
                            let start = Instant::now();
                            let result = ck.fill_in(pending).and_then(|()| disk.write(&ck));
                            // The wait for the device counts as writing.
                            let result = result.map(|stats| CommitStats {
                                write: start.elapsed(),
                                ..stats
                            });
                            drop(ck);
                            if report_tx.send((sequence, result)).is_err() {
                                return;
                            }
                        }
                        Job::Flush(ack) => {
                            disk.wait_for_pruning();
                            let _ = ack.send(());
                        }
                    }
                }
            })
            .map_err(|e| StoreError::Writer(format!("cannot start the writer thread: {e}")))?;
        Ok(ThreadStore {
            reader: store,
            jobs: Some(jobs),
            reports,
            writer: Some(writer),
            stalls: HashMap::new(),
            done: Vec::new(),
            errors: Vec::new(),
            last_sequence: None,
        })
    }

    /// The store the writer writes through (directory, naming, reading).
    pub fn store(&self) -> &Hdf5Store {
        &self.reader
    }

    /// Takes the writer's reports in: stats to `done`, errors to `errors`.
    fn collect(&mut self) {
        while let Ok((sequence, result)) = self.reports.try_recv() {
            let stall = self.stalls.remove(&sequence).unwrap_or_default();
            match result {
                Ok(stats) => self.done.push((sequence, CommitStats { stall, ..stats })),
                Err(e) => self.errors.push((sequence, e)),
            }
        }
    }

    /// The error for a writer thread that is no longer there, with its panic message if any.
    fn writer_gone(&mut self) -> StoreError {
        self.jobs = None;
        let why = match self.writer.take().map(JoinHandle::join) {
            Some(Err(panic)) => {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                format!("panicked: {msg}")
            }
            _ => "is gone".into(),
        };
        StoreError::Writer(why)
    }

    fn send(&mut self, job: Job) -> Result<(), StoreError> {
        let sent = match &self.jobs {
            Some(jobs) => jobs.send(job).is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            Err(self.writer_gone())
        }
    }
}

impl CheckpointStore for ThreadStore {
    fn commit_deferred(
        &mut self,
        checkpoint: Checkpoint,
        pending: Vec<PendingRegion>,
    ) -> Result<CommitStats, StoreError> {
        // Earlier failures are reported by `failed`, under their own numbers: this checkpoint
        // is tried regardless (a full disk may have room again).
        self.collect();
        let sequence = checkpoint.meta.sequence;
        let path = self.reader.path_for(sequence);
        let start = Instant::now();
        self.send(Job::Write(Box::new(checkpoint), pending))?;
        let stall = start.elapsed();
        self.stalls.insert(sequence, stall);
        self.last_sequence = Some(sequence);
        Ok(CommitStats {
            stall,
            write: Duration::ZERO,
            bytes_written: 0,
            path: Some(path),
        })
    }

    fn completed(&mut self) -> Vec<(u64, CommitStats)> {
        self.collect();
        std::mem::take(&mut self.done)
    }

    fn failed(&mut self) -> Vec<(u64, StoreError)> {
        self.collect();
        std::mem::take(&mut self.errors)
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        let (ack, done) = mpsc::channel();
        self.send(Job::Flush(ack))?;
        if done.recv().is_err() {
            return Err(self.writer_gone());
        }
        self.collect();
        Ok(())
    }

    fn find_latest(&self) -> Result<Found, StoreError> {
        self.reader.find_latest()
    }

    fn next_sequence(&self) -> Result<u64, StoreError> {
        let on_disk = self.reader.next_sequence()?;
        Ok(self.last_sequence.map_or(on_disk, |s| on_disk.max(s + 1)))
    }
}

impl Drop for ThreadStore {
    fn drop(&mut self) {
        if self.writer.is_none() {
            return;
        }
        let flushed = self.flush();
        let failed = self.failed();
        for e in flushed
            .err()
            .into_iter()
            .chain(failed.into_iter().map(|f| f.1))
        {
            eprintln!(
                "ops-resilience: {}checkpoint writer: {e}",
                self.reader.label()
            );
        }
        self.jobs = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}
