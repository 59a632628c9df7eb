//! The multi-threaded host backend on a dedicated rayon thread pool.

use std::sync::atomic::{AtomicU64, Ordering};

use ops_core::exec::{ChunkRunner, Partials};
use ops_core::{OpsError, Result};
use rayon::prelude::*;

use crate::host::HostBackend;

/// Runs chunks on a rayon thread pool owned by the runtime.
pub struct RayonRunner {
    pool: rayon::ThreadPool,
    /// Bit `i` set once worker `i` (modulo 64) ran a chunk: evidence that loops really ran
    /// on several threads.
    workers_seen: AtomicU64,
}

impl RayonRunner {
    /// A pool of `threads` workers (`None`: rayon's default, one per core).
    pub fn new(threads: Option<usize>) -> Result<Self> {
        if threads == Some(0) {
            return Err(OpsError::InvalidConfig(
                "--ops-threads must be at least 1".into(),
            ));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.unwrap_or(0))
            .thread_name(|i| format!("ops-rayon-{i}"))
            .build()
            .map_err(|e| OpsError::Backend {
                backend: "rayon".into(),
                message: format!("cannot start the thread pool: {e}").into(),
            })?;
        Ok(RayonRunner {
            pool,
            workers_seen: AtomicU64::new(0),
        })
    }
}

impl ChunkRunner for RayonRunner {
    fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    fn threads_used(&self) -> usize {
        (self.workers_seen.load(Ordering::Relaxed).count_ones() as usize).max(1)
    }

    fn run_chunks(&self, bufs: &mut [Partials], f: &(dyn Fn(usize, &mut Partials) + Sync)) {
        self.pool.install(|| {
            bufs.par_iter_mut()
                .enumerate()
                .with_max_len(1)
                .for_each(|(i, b)| {
                    if let Some(w) = rayon::current_thread_index() {
                        let bit = 1u64 << (w % 64);
                        // A load first: the bit is set once, not written on every chunk.
                        if self.workers_seen.load(Ordering::Relaxed) & bit == 0 {
                            self.workers_seen.fetch_or(bit, Ordering::Relaxed);
                        }
                    }
                    f(i, b)
                })
        });
    }
}

/// The rayon backend: loops of at least [`INLINE_POINTS`](ops_core::exec::INLINE_POINTS) points
/// run their chunks in parallel on the backend's own thread pool.
pub type RayonBackend = HostBackend<RayonRunner>;

impl RayonBackend {
    /// A rayon backend with `threads` workers (`None`: one per core).
    pub fn new(threads: Option<usize>) -> Result<Self> {
        Ok(HostBackend::with_runner(
            "rayon",
            RayonRunner::new(threads)?,
        ))
    }
}
