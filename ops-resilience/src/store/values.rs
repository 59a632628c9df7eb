//! The value log, kept once per store directory and shared by its checkpoints.
//!
//! A restart replays the program from its start and hands it, instead of computing them, every
//! value it was handed before the checkpoint (reduction results, fetched boxes): a checkpoint's
//! history is the whole log up to its loop. Stored in every checkpoint file, the log made files
//! grow with the run's length. Instead, `DIR/APP.values.rankR.G` holds the records one after
//! another (the message encoding of [`super::wire`]), and each checkpoint records which file,
//! how many records and bytes of it are its history, and their CRC-32. A run's log only grows,
//! so every checkpoint's history is a prefix of the file: new records are appended and synced
//! before the checkpoint that needs them is committed. A run's first write (and a history that
//! does not extend the file, which the runtime never commits but a store's user may) starts a
//! new generation `G`, written whole and atomically, so the files older checkpoints name are
//! never changed; a generation no kept checkpoint names is deleted with them.
//!
//! Reading checks the prefix's length and CRC-32 before decoding, so a damaged or truncated log
//! rejects exactly the checkpoints whose history it no longer holds.

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::atomic::{io_err, write_file};
use super::wire::{decode_queries, encode_queries};
use super::{LoggedQuery, StoreError};

/// The values handed to the program so far, in memory, kept as the log file's records: about
/// 30 bytes per reduction result where a decoded [`LoggedQuery`] takes some 120 and two
/// allocations, so logging a value costs a few stores and a long run's log stays small.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct QueryLog {
    records: Vec<u8>,
    count: usize,
}

impl QueryLog {
    /// The log of `queries`.
    pub fn of(queries: &[LoggedQuery]) -> QueryLog {
        QueryLog {
            records: encode_queries(queries),
            count: queries.len(),
        }
    }

    /// Logs a reduction result (`value`: the little-endian bytes of `elem`).
    pub fn push_reduction(&mut self, name: &str, elem: ops_core::ElemType, value: &[u8]) {
        super::wire::encode_reduction(&mut self.records, name, elem, value);
        self.count += 1;
    }

    /// Logs a fetched box of dataset `dat`.
    pub fn push_fetch(&mut self, dat: &str, value: &[u8]) {
        super::wire::encode_fetch(&mut self.records, dat, value);
        self.count += 1;
    }

    /// Values logged.
    pub fn len(&self) -> usize {
        self.count
    }

    /// The values, decoded.
    pub fn decode(&self) -> Vec<LoggedQuery> {
        decode_queries(&self.records, self.count)
            .expect("the in-memory value log holds only records it encoded itself")
    }
}

/// What a checkpoint keeps of the value log: the file (beside the checkpoint) and the prefix
/// of it that is the checkpoint's history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ValuesRef {
    /// File name of the log, in the checkpoint's directory.
    pub file: String,
    /// Records in the history.
    pub count: u64,
    /// Bytes of the file the history fills.
    pub len: u64,
    /// CRC-32 of those bytes.
    pub crc32: u32,
}

/// The value log of one store directory, application and rank, as this process writes it.
#[derive(Debug)]
pub(crate) struct ValueLog {
    dir: PathBuf,
    /// `APP.values.rankR.`: the generations' common prefix.
    prefix: String,
    /// What this run has written, `None` before its first write (or after a failed one: the
    /// next write then starts a new generation).
    written: Mutex<Option<Written>>,
}

#[derive(Clone, Debug)]
struct Written {
    /// The generation's file name.
    file: String,
    /// The records in it (a checkpoint's history must extend them to be appended).
    history: Vec<LoggedQuery>,
    len: u64,
    crc: crc32fast::Hasher,
}

impl ValueLog {
    /// The log `DIR/APP.values.rankR.G`, `G` its generation.
    pub fn new(dir: &Path, app: &str, rank: usize) -> ValueLog {
        ValueLog {
            dir: dir.to_path_buf(),
            prefix: format!("{app}.values.rank{rank}."),
            written: Mutex::new(None),
        }
    }

    /// The generation number of a file name of this log.
    fn generation(&self, file_name: &str) -> Option<u64> {
        let g = file_name.strip_prefix(&self.prefix)?;
        g.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| g.parse().ok())
            .flatten()
    }

    /// Every generation file of this log in the directory, with its number.
    fn generations(&self) -> std::io::Result<Vec<(u64, PathBuf)>> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            if let Some(g) = entry.file_name().to_str().and_then(|n| self.generation(n)) {
                found.push((g, entry.path()));
            }
        }
        Ok(found)
    }

    /// Makes `queries` (the whole history of a checkpoint about to be committed) durable in
    /// the log and returns the reference the checkpoint stores. A history that extends what
    /// this run wrote is appended; any other (the run's first, or one that is not an
    /// extension) starts a new generation file, so the histories older checkpoints name stay
    /// as they are.
    pub fn record(&self, queries: &[LoggedQuery]) -> Result<ValuesRef, StoreError> {
        let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
        let w = match written.take() {
            Some(mut w) if queries.starts_with(&w.history) => {
                let bytes = encode_queries(&queries[w.history.len()..]);
                if !bytes.is_empty() {
                    let path = self.dir.join(&w.file);
                    OpenOptions::new()
                        .append(true)
                        .open(&path)
                        .and_then(|mut f| {
                            f.write_all(&bytes)?;
                            f.sync_data()
                        })
                        .map_err(io_err(&path))?;
                    w.crc.update(&bytes);
                    w.len += bytes.len() as u64;
                    w.history.extend_from_slice(&queries[w.history.len()..]);
                }
                w
            }
            _ => {
                let newest = self
                    .generations()
                    .map_err(io_err(&self.dir))?
                    .into_iter()
                    .map(|(g, _)| g)
                    .max()
                    .unwrap_or(0);
                let file = format!("{}{}", self.prefix, newest + 1);
                let path = self.dir.join(&file);
                let tmp = self.dir.join(format!("{file}.tmp"));
                let bytes = encode_queries(queries);
                write_file(&tmp, &path, &bytes).inspect_err(|_| {
                    let _ = std::fs::remove_file(&tmp);
                })?;
                let mut crc = crc32fast::Hasher::new();
                crc.update(&bytes);
                Written {
                    file,
                    history: queries.to_vec(),
                    len: bytes.len() as u64,
                    crc,
                }
            }
        };
        let r = ValuesRef {
            file: w.file.clone(),
            count: w.history.len() as u64,
            len: w.len,
            crc32: w.crc.clone().finalize(),
        };
        *written = Some(w);
        Ok(r)
    }

    /// Deletes the generations older than the one being written that no checkpoint in
    /// `referenced` (the value files the kept checkpoints name) needs.
    pub fn prune(&self, referenced: &[String]) -> std::io::Result<bool> {
        let current = {
            let written = self.written.lock().unwrap_or_else(|e| e.into_inner());
            match written.as_ref().and_then(|w| self.generation(&w.file)) {
                Some(g) => g,
                None => return Ok(false),
            }
        };
        let mut removed = false;
        for (g, path) in self.generations()? {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if g < current && !referenced.iter().any(|r| r == name) {
                match std::fs::remove_file(&path) {
                    Ok(()) => removed = true,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(removed)
    }
}

/// Reads the history `r` names from the log in `dir`. The error is the reason to reject the
/// checkpoint (naming the log file).
pub(crate) fn read(dir: &Path, r: &ValuesRef) -> Result<Vec<LoggedQuery>, String> {
    if r.file.is_empty() || r.file.contains(['/', '\\']) || r.file.starts_with('.') {
        return Err(format!("value log name {:?}: not a file name", r.file));
    }
    let path = dir.join(&r.file);
    let at = |e: &dyn std::fmt::Display| format!("value log {}: {e}", path.display());
    let mut f = std::fs::File::open(&path).map_err(|e| at(&e))?;
    let size = f.metadata().map_err(|e| at(&e))?.len();
    if size < r.len {
        return Err(at(&format!(
            "{size} bytes, the checkpoint's history fills {}",
            r.len
        )));
    }
    // `r.len` is at most the file's size: no allocation beyond what is on disk.
    let mut bytes = vec![0u8; r.len as usize];
    f.read_exact(&mut bytes).map_err(|e| at(&e))?;
    let crc = crc32fast::hash(&bytes);
    if crc != r.crc32 {
        return Err(at(&format!(
            "crc32 {crc:#010x} of its first {} bytes, the checkpoint says {:#010x}",
            r.len, r.crc32
        )));
    }
    let count = usize::try_from(r.count).map_err(|_| at(&"record count too large"))?;
    decode_queries(&bytes, count).map_err(|e| at(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ops_core::ElemType;

    fn q(k: u8) -> LoggedQuery {
        if k.is_multiple_of(2) {
            LoggedQuery::Reduction {
                name: format!("r{k}"),
                elem: ElemType::F64,
                bytes: (k as f64).to_le_bytes().to_vec(),
            }
        } else {
            LoggedQuery::Fetch {
                dat: format!("grid/d{k}"),
                bytes: vec![k; 3 * k as usize],
            }
        }
    }

    #[test]
    fn the_in_memory_log_holds_the_records_of_the_file() {
        let queries: Vec<LoggedQuery> = (0..7).map(q).collect();
        let mut log = QueryLog::default();
        for x in &queries {
            match x {
                LoggedQuery::Reduction { name, elem, bytes } => {
                    log.push_reduction(name, *elem, bytes)
                }
                LoggedQuery::Fetch { dat, bytes } => log.push_fetch(dat, bytes),
            }
        }
        assert_eq!(log.len(), 7);
        assert_eq!(log.decode(), queries);
        assert_eq!(log, QueryLog::of(&queries));
        assert_eq!(log.records, encode_queries(&queries));
        assert!(QueryLog::default().decode().is_empty());
    }

    #[test]
    fn every_history_is_a_prefix_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let log = ValueLog::new(dir.path(), "app", 0);
        let all: Vec<LoggedQuery> = (0..9).map(q).collect();
        let refs: Vec<ValuesRef> = [2, 2, 5, 9]
            .iter()
            .map(|&n| log.record(&all[..n]).unwrap())
            .collect();
        for (r, n) in refs.iter().zip([2, 2, 5, 9]) {
            assert_eq!(read(dir.path(), r).unwrap(), all[..n]);
        }
        assert!(
            refs.iter().all(|r| r.file == "app.values.rank0.1"),
            "one file, appended"
        );
        // A new run (a restart) starts a new generation; the older histories stay readable,
        // and so does a history that does not extend the log.
        let again = ValueLog::new(dir.path(), "app", 0);
        let r = again.record(&all[..7]).unwrap();
        assert_eq!(r.file, "app.values.rank0.2");
        let other: Vec<LoggedQuery> = (20..23).map(q).collect();
        let r3 = again.record(&other).unwrap();
        assert_eq!(r3.file, "app.values.rank0.3");
        assert_eq!(read(dir.path(), &r).unwrap(), all[..7]);
        assert_eq!(read(dir.path(), &r3).unwrap(), other);
        assert_eq!(read(dir.path(), &refs[3]).unwrap(), all);
        // Pruning keeps the generation being written and those still named.
        assert!(again.prune(std::slice::from_ref(&r.file)).unwrap());
        assert!(read(dir.path(), &refs[3])
            .unwrap_err()
            .contains("app.values.rank0.1"));
        assert_eq!(read(dir.path(), &r).unwrap(), all[..7]);
        assert_eq!(read(dir.path(), &r3).unwrap(), other);
    }

    #[test]
    fn a_damaged_log_rejects_the_histories_it_no_longer_holds() {
        let dir = tempfile::tempdir().unwrap();
        let log = ValueLog::new(dir.path(), "app", 3);
        let all: Vec<LoggedQuery> = (0..6).map(q).collect();
        let early = log.record(&all[..2]).unwrap();
        let late = log.record(&all).unwrap();
        let path = dir.path().join("app.values.rank3.1");
        let mut bytes = std::fs::read(&path).unwrap();
        let at = early.len as usize + 3;
        bytes[at] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read(dir.path(), &early).unwrap(), all[..2]);
        let e = read(dir.path(), &late).unwrap_err();
        assert!(e.contains("crc32"), "{e}");
        let bad_name = ValuesRef {
            file: "../etc".into(),
            ..early
        };
        assert!(read(dir.path(), &bad_name)
            .unwrap_err()
            .contains("not a file name"));
    }
}
