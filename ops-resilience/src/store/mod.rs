//! Checkpoint stores: where a finished checkpoint goes and where a restart finds it.
//!
//! A [`Checkpoint`] is plain data in the global index space: metadata, the log of values handed
//! to user space before the checkpoint's loop, an optional fast-forward payload, and the saved
//! boxes of each dataset. Stores only move it; they know nothing of loops.
//!
//! Every store commits atomically (write to a temporary name, fsync, rename, then a manifest with
//! per-dataset checksums, fsync, rename), keeps the last K checkpoints, and on restart returns the
//! newest checkpoint that is complete and whose checksums and format version verify, reporting
//! each corrupt or truncated one by name.
//!
//! Three stores implement [`CheckpointStore`]: [`Hdf5Store`] (blocking), [`ThreadStore`] (a
//! background writer thread) and [`MemoryStore`] (RAM, written out at exit and on
//! SIGINT/SIGTERM); [`open_store`] picks one by [`StoreMode`]. Files are
//! `DIR/APP.ckpt.NNNNNN.rank0.h5` (layout in the `h5file` module's documentation) with a JSON
//! manifest `DIR/APP.ckpt.NNNNNN.rank0.json` written after the file is durable.
//!
//! A distributed run (more than one process) writes per rank: rank `R` into `DIR/rank-R/`
//! (`APP.ckpt.NNNNNN.rankR.h5`), and a partner copy of rank `R-1`'s checkpoint into
//! `DIR/rank-R/partner/`; [`dist`] has the layout, [`open_rank_stores`] opens both stores of a
//! rank, [`Layout::newest_complete`] finds what a restart with any number of processes can use,
//! and [`wire`] is the message a checkpoint travels to the partner in.
//!
//! `OPS_INJECT_FAILURE=write:N` kills the process with SIGKILL in the middle of writing
//! checkpoint N (see [`injected_write_failure`]), for testing restarts.

mod atomic;
mod blocking;
pub mod dist;
mod h5file;
mod inject;
mod kept;
mod lock;
mod manifest;
mod memory;
mod naming;
mod thread;
mod values;
pub mod wire;

pub use blocking::Hdf5Store;
pub use dist::{open_rank_stores, partner_dir, rank_dir, Layout, RankStores};
pub use inject::{injected_write_failure, INJECT_FAILURE_VAR};
pub use kept::KeptInMemory;
pub use lock::DirLock;
pub use memory::MemoryStore;
pub use thread::ThreadStore;
pub use values::QueryLog;
pub(crate) use wire::ValueRecord;

use ops_core::ElemType;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Version of the checkpoint file format; readers reject files of another version.
pub const FORMAT_VERSION: u32 = 4;

/// Where and when a checkpoint was taken.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointMeta {
    /// Application name (e.g. `cloverleaf`).
    pub app: String,
    /// Sequence number of this checkpoint (1, 2, ...). Numbering continues across restarts:
    /// take the first from [`CheckpointStore::next_sequence`]; stores refuse a sequence that is
    /// not newer than every checkpoint file already in their directory.
    pub sequence: u64,
    /// Index of the loop before which the saved state was taken (loops counted from 0).
    pub loop_index: u64,
    /// The loop location the region was entered at (`name@file:line:col`).
    pub location: String,
    /// Backend that computed the data (`seq`, `rayon`, ...).
    pub backend: String,
    /// Seconds since the Unix epoch when the checkpoint was opened.
    pub time_unix: f64,
    /// The process whose data this file holds (`0..ranks`; 0 for a single process).
    pub rank: usize,
    /// Processes that took the checkpoint together, one file each (1 for a single process).
    /// Files of single-process checkpoints record neither (they read back as rank 0 of 1).
    pub ranks: usize,
}

/// One value handed to user space, in program order.
#[derive(Clone, Debug, PartialEq)]
pub enum LoggedQuery {
    /// A reduction result: reduction name and the value's bytes (little endian).
    Reduction {
        /// Reduction name.
        name: String,
        /// Element type of the value.
        elem: ElemType,
        /// The value, little-endian bytes.
        bytes: Vec<u8>,
    },
    /// Fetched dataset data: dataset name and the bytes returned.
    Fetch {
        /// Dataset name (`block/dat`).
        dat: String,
        /// The bytes returned to the caller.
        bytes: Vec<u8>,
    },
}

/// One saved box of a dataset: global indices `lo..hi` (halo points included where saved), the
/// elements in the runtime's order (components interleaved, x fastest).
#[derive(Clone, Debug, PartialEq)]
pub struct SavedRegion {
    /// First index in each dimension (unused dimensions are `0..1`).
    pub lo: [i32; 3],
    /// One past the last index in each dimension.
    pub hi: [i32; 3],
    /// The elements, little-endian bytes.
    pub bytes: Vec<u8>,
}

/// Everything saved of one dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedDat {
    /// Unique name across the program: `block/dat`.
    pub name: String,
    /// Element type.
    pub elem: ElemType,
    /// Components per point.
    pub components: usize,
    /// The saved boxes (disjoint).
    pub regions: Vec<SavedRegion>,
}

impl SavedDat {
    /// Bytes of data saved.
    pub fn bytes(&self) -> usize {
        self.regions.iter().map(|r| r.bytes.len()).sum()
    }
}

/// A complete checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Metadata.
    pub meta: CheckpointMeta,
    /// Values handed to user space before `meta.loop_index`, in order.
    pub queries: QueryLog,
    /// Opaque fast-forward payload given by the application (may be empty).
    pub payload: Vec<u8>,
    /// Saved datasets.
    pub dats: Vec<SavedDat>,
}

impl Checkpoint {
    /// Bytes of dataset data in the checkpoint.
    pub fn data_bytes(&self) -> usize {
        self.dats.iter().map(SavedDat::bytes).sum()
    }

    /// Waits for regions still on their way from the device and puts their bytes in place.
    pub fn fill_in(&mut self, pending: Vec<PendingRegion>) -> Result<(), StoreError> {
        for p in pending {
            let sequence = self.meta.sequence;
            let region = self
                .dats
                .iter_mut()
                .find(|d| d.name == p.dat)
                .and_then(|d| d.regions.iter_mut().find(|r| r.lo == p.lo));
            let Some(region) = region else {
                return Err(StoreError::Invalid(format!(
                    "checkpoint {sequence}: a device transfer of `{}` at {:?} matches no saved \
                     region",
                    p.dat, p.lo
                )));
            };
            region.bytes = p.bytes.wait().map_err(|e| {
                StoreError::Writer(format!(
                    "checkpoint {sequence}: reading back a region of `{}`: {e}",
                    p.dat
                ))
            })?;
        }
        Ok(())
    }
}

/// One saved region's bytes still on their way from the device: the region of dataset
/// `dat` whose box starts at `lo`.
#[derive(Debug)]
pub struct PendingRegion {
    /// The dataset's name in the checkpoint ([`SavedDat::name`]).
    pub dat: String,
    /// The saved box's first point.
    pub lo: [i32; 3],
    /// The transfer.
    pub bytes: ops_core::backend::PendingBytes,
}

/// What committing a checkpoint cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommitStats {
    /// Time the caller was blocked in `commit`.
    pub stall: Duration,
    /// Time spent writing to disk (zero until known for asynchronous stores; see
    /// [`CheckpointStore::completed`]).
    pub write: Duration,
    /// Bytes written to disk (file size), zero for memory until written out.
    pub bytes_written: u64,
    /// The file the checkpoint went to, if any yet.
    pub path: Option<PathBuf>,
}

/// A checkpoint that failed verification on restart, reported by name and skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    /// The file (or manifest) that failed.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// Result of looking for the checkpoint to restart from.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The newest complete, verified checkpoint, if any.
    pub checkpoint: Option<Checkpoint>,
    /// Newer candidates that were rejected (corrupt, truncated, wrong version), newest first.
    pub rejected: Vec<Rejected>,
    /// Time spent reading and verifying.
    pub read: Duration,
}

/// Errors of the stores.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An I/O error on a path.
    #[error("checkpoint store: {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An HDF5 error on a file.
    #[error("checkpoint store: {path}: HDF5: {message}")]
    Hdf5 {
        /// The file.
        path: PathBuf,
        /// HDF5's message.
        message: String,
    },
    /// The background writer failed or is gone.
    #[error("checkpoint writer thread: {0}")]
    Writer(String),
    /// A bad argument or setting: a checkpoint that cannot be written as given (region sizes,
    /// names, a sequence number already used), `keep` of 0, a malformed `OPS_INJECT_FAILURE`.
    #[error("checkpoint store: {0}")]
    Invalid(String),
    /// Bytes that should hold a checkpoint and do not decode (a damaged partner message, see
    /// [`wire`]).
    #[error("checkpoint store: {0}")]
    Corrupt(String),
}

/// Where checkpoints go: blocking HDF5, thread offload, or in memory.
pub trait CheckpointStore: Send {
    /// Takes a finished checkpoint. Blocking stores write it before returning; asynchronous ones
    /// return after handing it over.
    fn commit(&mut self, checkpoint: Checkpoint) -> Result<CommitStats, StoreError> {
        self.commit_deferred(checkpoint, Vec::new())
    }

    /// [`CheckpointStore::commit`] for a checkpoint some of whose regions are still on their
    /// way from the device (`pending`; those regions' `bytes` are empty until then, see
    /// [`Checkpoint::fill_in`]). The blocking store waits for them here; the thread store lets
    /// its writer wait and the memory store waits when it writes the checkpoint out, so with
    /// those the computation never waits for a device-to-host transfer.
    fn commit_deferred(
        &mut self,
        checkpoint: Checkpoint,
        pending: Vec<PendingRegion>,
    ) -> Result<CommitStats, StoreError>;

    /// Stats of checkpoints whose asynchronous writes finished since the last call, by sequence.
    fn completed(&mut self) -> Vec<(u64, CommitStats)> {
        Vec::new()
    }

    /// Checkpoints whose asynchronous writes failed since the last call, by sequence, with why
    /// (they are not on disk; later commits are still tried). Blocking stores report failures
    /// from `commit` instead.
    fn failed(&mut self) -> Vec<(u64, StoreError)> {
        Vec::new()
    }

    /// Waits until every committed checkpoint is durably on disk (memory mode: writes the newest
    /// one out). Called at normal exit.
    fn flush(&mut self) -> Result<(), StoreError>;

    /// The newest complete, verified checkpoint in the store's directory.
    fn find_latest(&self) -> Result<Found, StoreError>;

    /// The sequence number the next committed checkpoint must carry: one past every checkpoint
    /// file in the directory and every checkpoint committed to this store. The default (for
    /// stores without a directory) is 1.
    fn next_sequence(&self) -> Result<u64, StoreError> {
        Ok(1)
    }
}

/// How checkpoints are written (`--ops-checkpoint-mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum StoreMode {
    /// [`Hdf5Store`]: `commit` writes the file before returning.
    #[default]
    #[value(help = "the HDF5 file is written before the program goes on")]
    Blocking,
    /// [`ThreadStore`]: a background thread writes; `commit` only hands over.
    #[value(help = "a background thread writes the HDF5 file while the program goes on")]
    Thread,
    /// [`MemoryStore`]: kept in RAM, written at exit and on SIGINT/SIGTERM.
    #[value(help = "kept in RAM, written to HDF5 at exit and on SIGINT/SIGTERM")]
    Memory,
}

impl std::fmt::Display for StoreMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StoreMode::Blocking => "blocking",
            StoreMode::Thread => "thread",
            StoreMode::Memory => "memory",
        })
    }
}

/// Opens the store of the given mode on `dir` for application `app`, keeping the newest `keep`
/// (at least 1) checkpoints.
pub fn open_store(
    mode: StoreMode,
    dir: &Path,
    app: &str,
    keep: usize,
) -> Result<Box<dyn CheckpointStore>, StoreError> {
    Ok(match mode {
        StoreMode::Blocking => Box::new(Hdf5Store::new(dir, app, keep)?),
        StoreMode::Thread => Box::new(ThreadStore::new(dir, app, keep)?),
        StoreMode::Memory => Box::new(MemoryStore::new(dir, app, keep)?),
    })
}
