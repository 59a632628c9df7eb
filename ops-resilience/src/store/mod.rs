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

use ops_core::ElemType;
use std::path::PathBuf;
use std::time::Duration;

/// Version of the checkpoint file format; readers reject files of another version.
pub const FORMAT_VERSION: u32 = 1;

/// Where and when a checkpoint was taken.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointMeta {
    /// Application name (e.g. `cloverleaf`).
    pub app: String,
    /// Sequence number of this checkpoint in the run that wrote it (1, 2, ...).
    pub sequence: u64,
    /// Index of the loop before which the saved state was taken (loops counted from 0).
    pub loop_index: u64,
    /// The loop location the region was entered at (`name@file:line:col`).
    pub location: String,
    /// Backend that computed the data (`seq`, `rayon`, ...).
    pub backend: String,
    /// Seconds since the Unix epoch when the checkpoint was opened.
    pub time_unix: f64,
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
    pub queries: Vec<LoggedQuery>,
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
}

/// Where checkpoints go: blocking HDF5, thread offload, or in memory.
pub trait CheckpointStore: Send {
    /// Takes a finished checkpoint. Blocking stores write it before returning; asynchronous ones
    /// return after handing it over.
    fn commit(&mut self, checkpoint: Checkpoint) -> Result<CommitStats, StoreError>;

    /// Stats of checkpoints whose asynchronous writes finished since the last call, by sequence.
    fn completed(&mut self) -> Vec<(u64, CommitStats)> {
        Vec::new()
    }

    /// Waits until every committed checkpoint is durably on disk (memory mode: writes the newest
    /// one out). Called at normal exit.
    fn flush(&mut self) -> Result<(), StoreError>;

    /// The newest complete, verified checkpoint in the store's directory.
    fn find_latest(&self) -> Result<Found, StoreError>;
}
