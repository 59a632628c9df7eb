//! In-memory store: the newest checkpoint stays in RAM; it goes to disk (through an
//! [`Hdf5Store`], same atomic commit) at normal exit (`flush`, or drop) and when the process
//! gets SIGINT or SIGTERM, e.g. from a batch scheduler ending the job. The signal handler then
//! exits with status 128 + signal, as the default action's shells report it.

use super::{
    Checkpoint, CheckpointStore, CommitStats, Found, Hdf5Store, PendingRegion, StoreError,
};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::Instant;

struct State {
    newest: Option<Checkpoint>,
    /// Regions of `newest` still on their way from the device: waited for only when the
    /// checkpoint is written out, so the computation never waits for a readback.
    pending: Vec<PendingRegion>,
    /// Sequence of the newest checkpoint already on disk (not written twice).
    written: Option<u64>,
    /// Sequence of the newest checkpoint whose write-out was attempted: a failed one is
    /// reported once, not retried at drop.
    attempted: Option<u64>,
    disk: Hdf5Store,
    done: Vec<(u64, CommitStats)>,
}

/// What the signal thread and the store share.
struct Shared(Mutex<State>);

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes the newest checkpoint to disk unless it is there already; its stats if written.
    fn write_out(&self) -> Result<Option<CommitStats>, StoreError> {
        let mut state = self.lock();
        let state = &mut *state;
        let Some(ck) = &mut state.newest else {
            return Ok(None);
        };
        let sequence = ck.meta.sequence;
        if state.written == Some(sequence) || state.attempted == Some(sequence) {
            return Ok(None);
        }
        state.attempted = Some(sequence);
        ck.fill_in(std::mem::take(&mut state.pending))?;
        let stats = state.disk.write(ck)?;
        // Written out at exit: leave the directory pruned before the process ends.
        state.disk.wait_for_pruning();
        state.written = Some(sequence);
        state.done.push((sequence, stats.clone()));
        Ok(Some(stats))
    }
}

/// Live memory stores, for the signal thread.
fn registry() -> &'static Mutex<Vec<Weak<Shared>>> {
    static REGISTRY: OnceLock<Mutex<Vec<Weak<Shared>>>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(Vec::new()))
}

/// Starts, once per process, the thread that waits for SIGINT/SIGTERM, writes every live memory
/// store's newest checkpoint and exits with 128 + signal.
fn install_signal_thread() -> Result<(), StoreError> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
                .map_err(|e| format!("cannot install SIGINT/SIGTERM handlers: {e}"))?;
            std::thread::Builder::new()
                .name("ops-checkpoint-signals".into())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        on_signal(signal);
                    }
                })
                .map(drop)
                .map_err(|e| format!("cannot start the signal thread: {e}"))
        })
        .clone()
        .map_err(StoreError::Invalid)
}

fn on_signal(signal: i32) -> ! {
    let name = if signal == SIGINT {
        "SIGINT"
    } else {
        "SIGTERM"
    };
    let stores: Vec<Arc<Shared>> = registry()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    for store in stores {
        let label = store.lock().disk.label().to_owned();
        match store.write_out() {
            Ok(Some(stats)) => eprintln!(
                "ops-resilience: {label}{name}: checkpoint written to {} ({} bytes in {:.3} s)",
                stats.path.as_deref().unwrap_or(Path::new("?")).display(),
                stats.bytes_written,
                stats.write.as_secs_f64()
            ),
            Ok(None) => {}
            Err(e) => {
                eprintln!("ops-resilience: {label}{name}: writing the checkpoint failed: {e}")
            }
        }
    }
    std::process::exit(128 + signal)
}

/// Keeps the newest checkpoint in memory; writes it to disk at `flush` (and drop) and on
/// SIGINT/SIGTERM.
pub struct MemoryStore {
    shared: Arc<Shared>,
    reader: Hdf5Store,
}

impl MemoryStore {
    /// A memory store whose checkpoints go to `Hdf5Store::new(dir, app, keep)` when written
    /// out. Installs the signal handlers on first use in the process.
    pub fn new(dir: &Path, app: &str, keep: usize) -> Result<Self, StoreError> {
        Self::with_store(Hdf5Store::new(dir, app, keep)?)
    }

    /// A memory store whose checkpoints are written out through `disk` (every process of a
    /// distributed run has its own, and one for its partner copies: each writes its newest
    /// checkpoint at exit and on SIGINT/SIGTERM). Installs the signal handlers on first use in
    /// the process.
    pub fn with_store(disk: Hdf5Store) -> Result<Self, StoreError> {
        install_signal_thread()?;
        let shared = Arc::new(Shared(Mutex::new(State {
            newest: None,
            pending: Vec::new(),
            written: None,
            attempted: None,
            disk: disk.clone(),
            done: Vec::new(),
        })));
        let mut live = registry().lock().unwrap_or_else(PoisonError::into_inner);
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&shared));
        Ok(MemoryStore {
            shared,
            reader: disk,
        })
    }

    /// The store checkpoints are written out through.
    pub fn store(&self) -> &Hdf5Store {
        &self.reader
    }

    /// Sequence of the checkpoint held in memory, if any.
    pub fn newest_sequence(&self) -> Option<u64> {
        self.shared.lock().newest.as_ref().map(|c| c.meta.sequence)
    }
}

impl CheckpointStore for MemoryStore {
    fn commit_deferred(
        &mut self,
        checkpoint: Checkpoint,
        pending: Vec<PendingRegion>,
    ) -> Result<CommitStats, StoreError> {
        let start = Instant::now();
        let old = {
            let mut state = self.shared.lock();
            let old_pending = std::mem::replace(&mut state.pending, pending);
            (state.newest.replace(checkpoint), old_pending)
        };
        if old.0.is_some() {
            // Unmapping a large checkpoint's buffers takes milliseconds: not on the compute
            // thread's stall.
            if let Err(e) = std::thread::Builder::new()
                .name("ops-ckpt-free".into())
                .spawn(move || drop(old))
            {
                eprintln!("ops-resilience: freeing the previous checkpoint in place: {e}");
            }
        }
        Ok(CommitStats {
            stall: start.elapsed(),
            ..CommitStats::default()
        })
    }

    fn completed(&mut self) -> Vec<(u64, CommitStats)> {
        std::mem::take(&mut self.shared.lock().done)
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        self.shared.write_out().map(drop)
    }

    fn find_latest(&self) -> Result<Found, StoreError> {
        self.reader.find_latest()
    }

    fn next_sequence(&self) -> Result<u64, StoreError> {
        let on_disk = self.reader.next_sequence()?;
        Ok(self
            .newest_sequence()
            .map_or(on_disk, |s| on_disk.max(s + 1)))
    }
}

impl Drop for MemoryStore {
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            eprintln!(
                "ops-resilience: {}writing the in-memory checkpoint at exit failed: {e}",
                self.reader.label()
            );
        }
    }
}
