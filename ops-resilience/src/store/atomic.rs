//! Atomic publication of a file: fsync the temporary, rename it to its final name, fsync the
//! directory. After a crash either the old state (no final file) or the complete new file exists.

use super::StoreError;
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Wraps an I/O error with the path it happened on.
pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Makes a finished temporary file durable and gives it its final name.
pub(crate) fn publish(tmp: &Path, dest: &Path) -> Result<(), StoreError> {
    File::open(tmp)
        .and_then(|f| f.sync_all())
        .map_err(io_err(tmp))?;
    std::fs::rename(tmp, dest).map_err(io_err(dest))?;
    sync_dir(dest)
}

/// Writes `bytes` to `tmp` and publishes it as `dest`.
pub(crate) fn write_file(tmp: &Path, dest: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    File::create(tmp)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(io_err(tmp))?;
    publish(tmp, dest)
}

/// Fsyncs the directory holding `path`, so a rename or unlink in it is durable.
pub(crate) fn sync_dir(path: &Path) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}

/// Starts writing a file's dirty pages to the device without waiting for them, so that the
/// fsync making the file durable finds most of it already written: the disk works while the
/// writer goes on producing the rest. Linux only (`sync_file_range`); elsewhere it does
/// nothing. Errors are ignored here: the fsync in [`publish`] reports them.
pub(crate) struct EarlyWriteback(Option<File>);

impl EarlyWriteback {
    /// Opens `path` (being written by someone else, e.g. HDF5) for starting its writeback.
    pub(crate) fn open(path: &Path) -> Self {
        EarlyWriteback(File::open(path).ok())
    }

    /// Starts the writeback of every page written so far.
    pub(crate) fn start(&self) {
        #[cfg(target_os = "linux")]
        if let Some(file) = &self.0 {
            use std::os::fd::AsRawFd;
            // SAFETY: a plain syscall on a descriptor this value owns; no memory is passed.
            unsafe {
                libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
            }
        }
    }
}
