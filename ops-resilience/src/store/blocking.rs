//! The blocking HDF5 store: one file per checkpoint (and process), committed atomically, the
//! last K kept; and the verifying search for the newest good checkpoint that every store uses.

use super::atomic::{io_err, publish, sync_dir, write_file};
use super::manifest::{file_crc, Manifest};
use super::naming::{file_name, Kind, Naming};
use super::values::ValueLog;
use super::{
    h5file, inject, Checkpoint, CheckpointStore, CommitStats, Found, PendingRegion, Rejected,
    StoreError,
};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// Writes each checkpoint to its own HDF5 file before `commit` returns.
///
/// Files are `DIR/APP.ckpt.NNNNNN.rank0.h5` (sequence zero-padded to six digits) with a JSON
/// manifest `DIR/APP.ckpt.NNNNNN.rank0.json`. A commit writes `NAME.h5.tmp`, closes and fsyncs
/// it, renames it to `NAME.h5`, fsyncs the directory, then writes the manifest the same way (its
/// presence marks the checkpoint complete); then a helper thread deletes all but the newest K
/// complete checkpoints and the leftovers of older incomplete writes (unlinking a large file
/// takes milliseconds the run need not wait for; `flush` and the next commit wait for it).
///
/// Layout of the HDF5 file:
/// ```text
/// /meta                       group; attributes format_version (u32), app, sequence (u64),
///                             loop_index (u64), location, backend, time_unix (f64);
///                             rank, ranks (u64) only in checkpoints of several processes
///                             values_file, values_count (u64), values_len (u64),
///                             values_crc32 (u32): the checkpoint's history in the
///                             directory's value log (`APP.values.rankR.G`, shared by its
///                             checkpoints: records and bytes of its prefix, and their CRC-32)
/// /payload                    u8 dataset: the application's fast-forward payload
/// /dats/<name, '/' -> '__'>   group per saved dataset; attributes name, elem, components (u64)
///     r0, r1, ...             one dataset per saved box, of the element type (f64/f32/i32);
///                             shape [hi-lo] reversed (x fastest; dimensions above the last
///                             one that is not 0..1 dropped), components appended if > 1;
///                             attributes lo, hi (i32[3]), components (u64), crc32 (u32)
/// ```
/// Strings are variable-length UTF-8, so h5dump prints them as text.
///
/// The manifest records the format version, app, sequence, loop index, file name and size, each
/// region's path, byte count and CRC-32, and a CRC-32 of the queries and payload (and, for
/// checkpoints of several processes, `rank` and `ranks`).
#[derive(Clone, Debug)]
pub struct Hdf5Store {
    naming: Naming,
    keep: usize,
    label: String,
    /// The deletion of older checkpoints still running (shared by clones: one directory).
    pruning: Arc<Mutex<Option<JoinHandle<()>>>>,
    /// The directory's value log (shared by clones).
    values: Arc<ValueLog>,
}

impl Hdf5Store {
    /// A store writing into `dir` (created if missing) for application `app`, keeping the newest
    /// `keep` (at least 1) complete checkpoints. Fails on a malformed `OPS_INJECT_FAILURE`.
    pub fn new(dir: &Path, app: &str, keep: usize) -> Result<Self, StoreError> {
        Self::for_rank(dir, app, keep, 0)
    }

    /// [`Hdf5Store::new`] for the files of rank `rank` (`APP.ckpt.NNNNNN.rankR.h5`): a
    /// distributed run's own store in `DIR/rank-R/`, or its partner store in
    /// `DIR/rank-R/partner/` holding rank `R-1`'s copies (see [`super::dist`]). Checkpoints
    /// committed to it must carry `meta.rank == rank`.
    pub fn for_rank(dir: &Path, app: &str, keep: usize, rank: usize) -> Result<Self, StoreError> {
        if keep == 0 {
            return Err(StoreError::Invalid(
                "checkpoints to keep must be at least 1".into(),
            ));
        }
        if app.is_empty() || app.contains(['/', '\0']) {
            return Err(StoreError::Invalid(format!(
                "application name {app:?} cannot start a file name"
            )));
        }
        inject::injected_write_failure().map_err(StoreError::Invalid)?;
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        Ok(Hdf5Store {
            naming: Naming {
                dir: dir.to_path_buf(),
                app: app.to_owned(),
                rank,
            },
            keep,
            label: String::new(),
            pruning: Arc::default(),
            values: Arc::new(ValueLog::new(dir, app, rank)),
        })
    }

    /// The same store with `label` in front of the messages its writers print on their own
    /// (the memory store's signal handler, the writer thread at exit): `"rank 1: "` in a
    /// distributed run.
    pub fn with_label(mut self, label: &str) -> Self {
        self.label = label.to_owned();
        self
    }

    /// The label given by [`Hdf5Store::with_label`] (empty by default).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The rank whose files this store writes and reads (0 for a single process).
    pub fn rank(&self) -> usize {
        self.naming.rank
    }

    /// The directory the files go to.
    pub fn dir(&self) -> &Path {
        &self.naming.dir
    }

    /// The application name the files carry.
    pub fn app(&self) -> &str {
        &self.naming.app
    }

    /// Complete checkpoints kept.
    pub fn keep(&self) -> usize {
        self.keep
    }

    /// The HDF5 file checkpoint `sequence` is (or would be) written to.
    pub fn path_for(&self, sequence: u64) -> PathBuf {
        self.naming.path(sequence, Kind::H5)
    }

    /// The sequence number the next checkpoint must carry: one past the highest of any file of
    /// this application in the directory, complete or not (1 for an empty directory). A
    /// restarted run numbers on from here, so it never overwrites or shadows older files.
    pub fn next_sequence(&self) -> Result<u64, StoreError> {
        self.naming
            .next_sequence()
            .map_err(io_err(&self.naming.dir))
    }

    /// Writes `ck` atomically: the HDF5 file under a temporary name, fsync, rename, fsync the
    /// directory, then the manifest the same way; then drops checkpoints beyond the newest K
    /// and leftovers of incomplete writes older than this one. `stall` and `write` are both the
    /// whole time taken.
    pub(crate) fn write(&self, ck: &Checkpoint) -> Result<CommitStats, StoreError> {
        let start = Instant::now();
        let sequence = ck.meta.sequence;
        if ck.meta.rank != self.naming.rank || ck.meta.rank >= ck.meta.ranks.max(1) {
            return Err(StoreError::Invalid(format!(
                "checkpoint {sequence} holds the data of rank {} of {}, this store in {} writes \
                 rank {}'s files",
                ck.meta.rank,
                ck.meta.ranks,
                self.naming.dir.display(),
                self.naming.rank
            )));
        }
        let next = self.next_sequence()?;
        if sequence < next {
            return Err(StoreError::Invalid(format!(
                "checkpoint sequence {sequence} is not newer than the files in {} (next is \
                 {next}): a restarted run numbers on from next_sequence()",
                self.naming.dir.display()
            )));
        }
        let h5 = self.naming.path(sequence, Kind::H5);
        let h5_tmp = self.naming.path(sequence, Kind::H5Tmp);
        // A failed write leaves nothing behind: its partial file would fill the disk further.
        let remove_tmp = |e: StoreError| {
            let _ = std::fs::remove_file(&h5_tmp);
            e
        };
        let values = self.values.record(&ck.queries)?;
        let (dats, queries_crc32) = h5file::write(&h5_tmp, ck, &values, |file| {
            inject::maybe_die(sequence, file)
        })
        .map_err(remove_tmp)?;
        let file_crc32 = file_crc(&h5_tmp)
            .map_err(io_err(&h5_tmp))
            .map_err(remove_tmp)?;
        publish(&h5_tmp, &h5).map_err(remove_tmp)?;
        let file_size = std::fs::metadata(&h5).map_err(io_err(&h5))?.len();
        let manifest = Manifest {
            format_version: super::FORMAT_VERSION,
            app: ck.meta.app.clone(),
            sequence,
            loop_index: ck.meta.loop_index,
            file: file_name(&h5),
            file_size,
            dats,
            queries_crc32,
            file_crc32,
            manifest_crc32: 0,
            rank: (ck.meta.ranks > 1).then_some(ck.meta.rank as u64),
            ranks: (ck.meta.ranks > 1).then_some(ck.meta.ranks as u64),
            values_file: Some(values.file.clone()),
        }
        .seal();
        let manifest_tmp = self.naming.path(sequence, Kind::ManifestTmp);
        write_file(
            &manifest_tmp,
            &self.naming.path(sequence, Kind::Manifest),
            &manifest.to_bytes(),
        )
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&manifest_tmp);
        })?;
        self.prune_in_background(sequence);
        let took = start.elapsed();
        Ok(CommitStats {
            stall: took,
            write: took,
            bytes_written: file_size,
            path: Some(h5),
        })
    }

    /// Starts deleting older checkpoints (see [`Hdf5Store::prune`]) on a helper thread, after
    /// the previous deletion has finished.
    fn prune_in_background(&self, newest: u64) {
        let mut pruning = self.pruning.lock().unwrap_or_else(|e| e.into_inner());
        join_pruning(&mut pruning);
        let store = Hdf5Store {
            pruning: Arc::default(),
            ..self.clone()
        };
        let prune = move || {
            if let Err(e) = store.prune(newest) {
                tracing::warn!("checkpoint {newest} written, but pruning older ones failed: {e}");
            }
        };
        match std::thread::Builder::new()
            .name("ops-ckpt-prune".into())
            .spawn(prune.clone())
        {
            Ok(handle) => *pruning = Some(handle),
            Err(_) => prune(),
        }
    }

    /// Waits for the deletion of older checkpoints started by the last commit.
    pub(crate) fn wait_for_pruning(&self) {
        join_pruning(&mut self.pruning.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// Deletes every checkpoint older than `newest` except the newest K complete ones (a
    /// manifest before its file, so an interrupted prune leaves no manifest without file).
    fn prune(&self, newest: u64) -> Result<(), StoreError> {
        let entries = self.naming.scan().map_err(io_err(&self.naming.dir))?;
        // A damaged checkpoint is no copy to fall back on: it does not count among the K.
        let kept: Vec<u64> = entries
            .iter()
            .rev()
            .filter(|(s, e)| e.manifest.is_some() && intact(&self.naming, **s))
            .take(self.keep)
            .map(|(s, _)| *s)
            .collect();
        let mut removed = false;
        for (_, entry) in entries.range(..newest).filter(|(s, _)| !kept.contains(s)) {
            for path in entry.files() {
                match std::fs::remove_file(path) {
                    Ok(()) => removed = true,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io_err(path)(e)),
                }
            }
        }
        // Value log generations no kept checkpoint names (nor any newer one: `entries` from
        // `newest` on are kept whatever they are).
        let named: Vec<String> = entries
            .range(newest..)
            .map(|(s, _)| *s)
            .chain(kept.iter().copied())
            .filter_map(|s| {
                let bytes = std::fs::read(self.naming.path(s, Kind::Manifest)).ok()?;
                Manifest::parse(&bytes).ok()?.values_file
            })
            .collect();
        removed |= self
            .values
            .prune(&named)
            .map_err(io_err(&self.naming.dir))?;
        if removed {
            sync_dir(&self.naming.path(newest, Kind::H5))?;
        }
        Ok(())
    }

    /// The newest checkpoint in the directory that is complete and verifies; see
    /// [`CheckpointStore::find_latest`].
    pub fn find_latest(&self) -> Result<Found, StoreError> {
        let start = Instant::now();
        let entries = self.naming.scan().map_err(io_err(&self.naming.dir))?;
        let mut rejected = Vec::new();
        for entry in entries.values().rev() {
            let Some(manifest) = &entry.manifest else {
                let (path, reason) = match (&entry.h5, &entry.h5_tmp, &entry.manifest_tmp) {
                    (Some(h5), _, _) => (h5, "incomplete write: file without manifest"),
                    (None, Some(tmp), _) => {
                        (tmp, "incomplete write: temporary file, never renamed")
                    }
                    (None, None, Some(tmp)) => (tmp, "incomplete write: manifest never renamed"),
                    (None, None, None) => continue,
                };
                rejected.push(Rejected {
                    path: path.clone(),
                    reason: reason.into(),
                });
                continue;
            };
            match self.verify(manifest) {
                Ok(checkpoint) => {
                    return Ok(Found {
                        checkpoint: Some(checkpoint),
                        rejected,
                        read: start.elapsed(),
                    })
                }
                Err(r) => rejected.push(r),
            }
        }
        Ok(Found {
            checkpoint: None,
            rejected,
            read: start.elapsed(),
        })
    }

    /// Reads a checkpoint through its manifest and verifies everything the manifest records.
    fn verify(&self, manifest_path: &Path) -> Result<Checkpoint, Rejected> {
        verify(&self.naming, manifest_path)
    }
}

/// Joins a finished or running deletion of older checkpoints.
fn join_pruning(pruning: &mut Option<JoinHandle<()>>) {
    if let Some(handle) = pruning.take() {
        // The thread only logs its failures; a panic in it leaves files, not damage.
        let _ = handle.join();
    }
}

/// Checkpoint `sequence` of `naming`'s rank in its directory, read and verified: the reason to
/// reject it when its manifest is missing (an incomplete write, or no file at all) or anything
/// fails to verify.
pub(crate) fn load(naming: &Naming, sequence: u64) -> Result<Checkpoint, Rejected> {
    let manifest = naming.path(sequence, Kind::Manifest);
    if manifest.exists() {
        return verify(naming, &manifest);
    }
    let h5 = naming.path(sequence, Kind::H5);
    let h5_tmp = naming.path(sequence, Kind::H5Tmp);
    let manifest_tmp = naming.path(sequence, Kind::ManifestTmp);
    let (path, reason) = if h5.exists() {
        (h5, "incomplete write: file without manifest")
    } else if h5_tmp.exists() {
        (h5_tmp, "incomplete write: temporary file, never renamed")
    } else if manifest_tmp.exists() {
        (manifest_tmp, "incomplete write: manifest never renamed")
    } else {
        (h5, "missing")
    };
    Err(Rejected {
        path,
        reason: reason.into(),
    })
}

/// Checks a checkpoint of `naming` before HDF5 reads a byte of it: its manifest (and the
/// manifest's own checksum), the file's name, size and whole-file checksum. The manifest and
/// the file's path when all hold.
fn check_unparsed(naming: &Naming, manifest_path: &Path) -> Result<(Manifest, PathBuf), Rejected> {
    let reject = |path: &Path, reason: String| Rejected {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = std::fs::read(manifest_path)
        .map_err(|e| reject(manifest_path, format!("cannot read the manifest: {e}")))?;
    let manifest = Manifest::parse(&bytes).map_err(|r| reject(manifest_path, r))?;
    let h5 = naming.path(manifest.sequence, Kind::H5);
    if naming.path(manifest.sequence, Kind::Manifest) != manifest_path
        || manifest.file != file_name(&h5)
    {
        return Err(reject(
            manifest_path,
            format!(
                "manifest of sequence {} names the file {:?}",
                manifest.sequence, manifest.file
            ),
        ));
    }
    let size = match std::fs::metadata(&h5) {
        Ok(m) => m.len(),
        Err(e) => {
            return Err(reject(
                &h5,
                format!("missing though its manifest exists: {e}"),
            ))
        }
    };
    if size != manifest.file_size {
        let what = if size < manifest.file_size {
            "truncated"
        } else {
            "wrong size"
        };
        return Err(reject(
            &h5,
            format!(
                "{what}: {size} bytes, the manifest says {}",
                manifest.file_size
            ),
        ));
    }
    // Every byte is checked before HDF5 parses any: a damaged file can crash the library.
    let crc = file_crc(&h5).map_err(|e| reject(&h5, format!("cannot read it: {e}")))?;
    if crc != manifest.file_crc32 {
        return Err(reject(
            &h5,
            format!(
                "damaged: crc32 {crc:#010x}, the manifest says {:#010x}",
                manifest.file_crc32
            ),
        ));
    }
    Ok((manifest, h5))
}

/// Reads a checkpoint of `naming` through its manifest and verifies everything the manifest
/// records.
fn verify(naming: &Naming, manifest_path: &Path) -> Result<Checkpoint, Rejected> {
    let (manifest, h5) = check_unparsed(naming, manifest_path)?;
    h5file::read(&h5, &manifest).map_err(|reason| Rejected { path: h5, reason })
}

/// Whether checkpoint `sequence` of `naming` is complete and verifies up to what HDF5 would
/// read ([`check_unparsed`]).
fn intact(naming: &Naming, sequence: u64) -> bool {
    check_unparsed(naming, &naming.path(sequence, Kind::Manifest)).is_ok()
}

impl CheckpointStore for Hdf5Store {
    fn commit_deferred(
        &mut self,
        mut checkpoint: Checkpoint,
        pending: Vec<PendingRegion>,
    ) -> Result<CommitStats, StoreError> {
        checkpoint.fill_in(pending)?;
        self.write(&checkpoint)
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        self.wait_for_pruning();
        Ok(())
    }

    fn find_latest(&self) -> Result<Found, StoreError> {
        Hdf5Store::find_latest(self)
    }

    fn next_sequence(&self) -> Result<u64, StoreError> {
        Hdf5Store::next_sequence(self)
    }
}
