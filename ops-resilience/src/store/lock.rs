//! One run per checkpoint directory: an advisory lock (`flock`) on `DIR/APP.lock`, taken when
//! checkpointing is installed and held for the run, so that two runs never prune each other's
//! checkpoints and a restart never reads a directory another run is still writing. The file
//! says who holds it (pid, host, start time) for the refusal message.

use super::StoreError;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// A held directory lock; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct DirLock {
    path: PathBuf,
    _file: File,
}

impl DirLock {
    /// Takes the lock of application `app` in `dir` (created if missing), or says who holds it.
    pub fn acquire(dir: &Path, app: &str) -> Result<DirLock, StoreError> {
        let io = |path: &Path, source: std::io::Error| StoreError::Io {
            path: path.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let path = dir.join(format!("{app}.lock"));
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        if !try_lock(&file).map_err(|e| io(&path, e))? {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(StoreError::Invalid(format!(
                "{} is in use by another run ({}): two runs on one checkpoint directory would \
                 delete each other's checkpoints; wait for it to end, or give this run another \
                 --ops-checkpoint-dir",
                dir.display(),
                if holder.is_empty() {
                    "holder unknown".to_string()
                } else {
                    holder.to_string()
                }
            )));
        }
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let me = format!(
            "pid {} on host {}, started at unix time {started}\n",
            std::process::id(),
            hostname()
        );
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(me.as_bytes()))
            .map_err(|e| io(&path, e))?;
        Ok(DirLock { path, _file: file })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: true when taken, false when another open file holds it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain syscall on a descriptor `file` owns; no memory is passed.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// This machine's host name (or `?`).
fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "?".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_free_again_once_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(tmp.path(), "app").unwrap();
        let err = DirLock::acquire(tmp.path(), "app").unwrap_err().to_string();
        assert!(
            err.contains(&format!("pid {}", std::process::id())) && err.contains("in use"),
            "{err}"
        );
        // Another application's lock in the same directory is its own.
        let other = DirLock::acquire(tmp.path(), "other").unwrap();
        drop(first);
        let again = DirLock::acquire(tmp.path(), "app").unwrap();
        assert!(again.path().ends_with("app.lock"));
        drop((other, again));
    }
}
