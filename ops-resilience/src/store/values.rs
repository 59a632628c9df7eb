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
use super::wire::{check_queries, decode_queries, encode_queries, ValueRecord};
use super::{LoggedQuery, StoreError};

/// The values handed to the program (reduction results, fetched boxes), in order, kept as
/// the value log file's records: about 30 bytes per reduction result where a decoded
/// [`LoggedQuery`] takes some 120 and two allocations.
///
/// A checkpoint takes the whole log as its history, and a run checkpoints many times: the
/// records are kept in pieces of about 64 kB that, once full, never change and are
/// shared by the log and every history taken from it. Taking a history (a clone) copies the
/// list of pieces and the unfilled last one; nothing a checkpoint does with its history
/// (telling that it extends an older one, its checksum) reads the shared pieces again, so a
/// checkpoint costs the same at the end of a long run as at its start.
///
/// ```
/// use ops_core::ElemType;
/// use ops_resilience::store::{LoggedQuery, QueryLog};
///
/// let mut log = QueryLog::default();
/// log.push_reduction("dt", ElemType::F64, &0.5f64.to_le_bytes());
/// let history = log.clone();
/// log.push_fetch("grid/u", &[0; 16]);
/// assert_eq!((history.len(), log.len()), (1, 2));
/// assert!(log.extends(&history));
/// assert_eq!(
///     history.decode().unwrap(),
///     vec![LoggedQuery::Reduction {
///         name: "dt".into(),
///         elem: ElemType::F64,
///         bytes: 0.5f64.to_le_bytes().to_vec(),
///     }]
/// );
/// ```
#[derive(Clone, Default)]
pub struct QueryLog {
    /// Full pieces, whole records each, in order.
    full: Vec<Piece>,
    /// The records after the full pieces (fewer than `PIECE` bytes between pushes).
    tail: Vec<u8>,
    /// Bytes in the full pieces.
    full_len: usize,
    count: usize,
}

/// Bytes after which the last piece of a [`QueryLog`] is full and shared from then on.
const PIECE: usize = 64 << 10;

/// A full piece of a [`QueryLog`]: shared, never changed.
#[derive(Clone)]
struct Piece {
    /// Where the piece starts in the log.
    start: usize,
    /// (Not an `Arc<[u8]>`: converting the filled vector into one would copy it.)
    bytes: std::sync::Arc<Vec<u8>>,
    /// CRC-32 of the log from its start to this piece's end, so that a history's checksum
    /// reads its tail only, however long the log.
    upto: crc32fast::Hasher,
}

impl Piece {
    /// The piece after `before` (the log's last full piece, if any).
    fn new(before: Option<&Piece>, bytes: Vec<u8>) -> Piece {
        let (start, mut upto) = before.map_or((0, crc32fast::Hasher::new()), |p| {
            (p.start + p.bytes.len(), p.upto.clone())
        });
        upto.update(&bytes);
        Piece {
            start,
            bytes: std::sync::Arc::new(bytes),
            upto,
        }
    }
}

impl std::fmt::Debug for QueryLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "QueryLog({} values, {} bytes)",
            self.count,
            self.byte_len()
        )
    }
}

/// Two logs are equal when they hold the same records.
impl PartialEq for QueryLog {
    fn eq(&self, other: &Self) -> bool {
        self.count == other.count && self.byte_len() == other.byte_len() && other.extends(self)
    }
}

impl Eq for QueryLog {}

impl QueryLog {
    /// The log of `queries`.
    pub fn of(queries: &[LoggedQuery]) -> QueryLog {
        QueryLog::from_checked(encode_queries(queries), queries.len())
    }

    /// The log whose records are `records` (the bytes of a value log file's prefix), checked to
    /// hold exactly `count` whole records; the error says what is wrong where.
    pub fn from_records(records: Vec<u8>, count: usize) -> Result<QueryLog, String> {
        check_queries(&records, count)?;
        Ok(QueryLog::from_checked(records, count))
    }

    /// [`QueryLog::from_records`] for records already checked.
    pub(crate) fn from_checked(records: Vec<u8>, count: usize) -> QueryLog {
        let mut log = QueryLog {
            count,
            ..QueryLog::default()
        };
        if !records.is_empty() {
            log.full_len = records.len();
            log.full.push(Piece::new(None, records));
        }
        log
    }

    /// Logs a reduction result (`value`: the little-endian bytes of `elem`).
    #[inline]
    pub fn push_reduction(&mut self, name: &str, elem: ops_core::ElemType, value: &[u8]) {
        super::wire::encode_reduction(&mut self.tail, name, elem, value);
        self.pushed();
    }

    /// Logs a fetched box of dataset `dat`.
    pub fn push_fetch(&mut self, dat: &str, value: &[u8]) {
        super::wire::encode_fetch(&mut self.tail, dat, value);
        self.pushed();
    }

    /// A record was appended to the tail: counts it, and shares the tail once it is full.
    fn pushed(&mut self) {
        self.count += 1;
        if self.tail.len() >= PIECE {
            let full = std::mem::replace(&mut self.tail, Vec::with_capacity(PIECE + 64));
            self.full_len += full.len();
            let piece = Piece::new(self.full.last(), full);
            self.full.push(piece);
        }
    }

    /// Values logged.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when nothing was logged.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes of the records.
    pub fn byte_len(&self) -> usize {
        self.full_len + self.tail.len()
    }

    /// The records, as the value log file holds them, in pieces (each whole records).
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        self.full
            .iter()
            .map(|p| &p.bytes[..])
            .chain(std::iter::once(&self.tail[..]))
            .filter(|b| !b.is_empty())
    }

    /// The records from byte `offset` on, in pieces.
    pub(crate) fn pieces_from(&self, offset: usize) -> impl Iterator<Item = &[u8]> {
        let first = self
            .full
            .partition_point(|p| p.start + p.bytes.len() <= offset);
        self.full[first..]
            .iter()
            .map(|p| (p.start, &p.bytes[..]))
            .chain(std::iter::once((self.full_len, &self.tail[..])))
            .filter(move |(s, b)| s + b.len() > offset)
            .map(move |(s, b)| &b[offset.saturating_sub(s)..])
    }

    /// The records, in one piece (copied).
    pub fn to_records(&self) -> Vec<u8> {
        self.pieces().collect::<Vec<_>>().concat()
    }

    /// Feeds the records to `h`: the last full piece's checksum of the log up to its end
    /// (crc32fast combines it without reading the bytes again), then the tail.
    pub(crate) fn hash_into(&self, h: &mut crc32fast::Hasher) {
        if let Some(p) = self.full.last() {
            h.combine(&p.upto);
        }
        h.update(&self.tail);
    }

    /// True when `older`'s values are the first values of this log (the encoding is length
    /// prefixed, so a byte prefix is a prefix of whole records). Pieces the two share are not
    /// read.
    pub fn extends(&self, older: &QueryLog) -> bool {
        if older.count > self.count || older.byte_len() > self.byte_len() {
            return false;
        }
        let shared = self
            .full
            .iter()
            .zip(&older.full)
            .take_while(|(a, b)| std::sync::Arc::ptr_eq(&a.bytes, &b.bytes))
            .count();
        let from = older.full.get(shared).map_or(older.full_len, |p| p.start);
        let mut mine = self.pieces_from(from);
        let mut left: &[u8] = &[];
        for mut theirs in older.pieces_from(from) {
            while !theirs.is_empty() {
                if left.is_empty() {
                    match mine.next() {
                        Some(b) => left = b,
                        None => return false,
                    }
                }
                let n = left.len().min(theirs.len());
                if left[..n] != theirs[..n] {
                    return false;
                }
                (left, theirs) = (&left[n..], &theirs[n..]);
            }
        }
        true
    }

    /// Value number `i`, whose record starts at byte `pos`; `None` past the end. For reading
    /// the values in order without decoding them all.
    pub(crate) fn at(&self, pos: usize, i: usize) -> Result<Option<ValueRecord<'_>>, String> {
        if i >= self.count {
            return Ok(None);
        }
        // Records never straddle pieces: the piece holding `pos` holds the record.
        let (start, piece) = if pos >= self.full_len {
            (self.full_len, &self.tail[..])
        } else {
            let k = self.full.partition_point(|p| p.start <= pos) - 1;
            (self.full[k].start, &self.full[k].bytes[..])
        };
        let mut r = super::wire::query_at(piece, pos - start, i)?;
        r.next += start;
        Ok(Some(r))
    }

    /// The values, decoded (an error only for a log built from damaged records, which
    /// [`QueryLog::from_records`] refuses).
    pub fn decode(&self) -> Result<Vec<LoggedQuery>, String> {
        decode_queries(&self.to_records(), self.count)
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
    history: QueryLog,
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
    pub fn record(&self, queries: &QueryLog) -> Result<ValuesRef, StoreError> {
        let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
        let w = match written.take() {
            Some(mut w) if queries.extends(&w.history) => {
                let old = w.history.byte_len();
                if queries.byte_len() > old {
                    let path = self.dir.join(&w.file);
                    OpenOptions::new()
                        .append(true)
                        .open(&path)
                        .and_then(|mut f| {
                            for bytes in queries.pieces_from(old) {
                                f.write_all(bytes)?;
                            }
                            f.sync_data()
                        })
                        .map_err(io_err(&path))?;
                    w.history = queries.clone();
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
                write_file(&tmp, &path, &queries.to_records()).inspect_err(|_| {
                    let _ = std::fs::remove_file(&tmp);
                })?;
                Written {
                    file,
                    history: queries.clone(),
                }
            }
        };
        // The file holds exactly the history's records: its length and checksum are theirs
        // (the checksum from the history's last full piece and its tail).
        let mut crc = crc32fast::Hasher::new();
        w.history.hash_into(&mut crc);
        let r = ValuesRef {
            file: w.file.clone(),
            count: w.history.len() as u64,
            len: w.history.byte_len() as u64,
            crc32: crc.finalize(),
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
pub(crate) fn read(dir: &Path, r: &ValuesRef) -> Result<QueryLog, String> {
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
    QueryLog::from_records(bytes, count).map_err(|e| at(&e))
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
        assert_eq!(log.decode().unwrap(), queries);
        assert_eq!(log, QueryLog::of(&queries));
        assert_eq!(log.to_records(), encode_queries(&queries));
        assert!(QueryLog::default().decode().unwrap().is_empty());
        assert!(log.extends(&QueryLog::of(&queries[..3])));
        assert!(!log.extends(&QueryLog::of(&queries[1..3])));
        assert_eq!(QueryLog::from_records(log.to_records(), 7), Ok(log.clone()));
        let e = QueryLog::from_records(log.to_records()[..20].to_vec(), 7).unwrap_err();
        assert!(e.starts_with("query "), "{e}");
    }

    #[test]
    fn histories_share_the_full_pieces_and_read_as_the_records() {
        let mut log = QueryLog::default();
        let mut all = Vec::new();
        let mut histories = Vec::new();
        for k in 0..40_000u32 {
            let x = q((k % 9) as u8);
            match &x {
                LoggedQuery::Reduction { name, elem, bytes } => {
                    log.push_reduction(name, *elem, bytes)
                }
                LoggedQuery::Fetch { dat, bytes } => log.push_fetch(dat, bytes),
            }
            all.push(x);
            if k % 7_000 == 0 {
                histories.push((log.clone(), all.len()));
            }
        }
        assert!(log.full.len() > 4, "{} pieces", log.full.len());
        let bytes = encode_queries(&all);
        assert_eq!(log.to_records(), bytes);
        for (h, n) in &histories {
            // The history's full pieces are the log's, not copies; only its tail is its own.
            assert!(h.full.len() <= log.full.len() && h.tail.len() < PIECE);
            for (a, b) in h.full.iter().zip(&log.full) {
                assert!(std::sync::Arc::ptr_eq(&a.bytes, &b.bytes));
            }
            assert!(log.extends(h) && !h.extends(&log));
            assert_eq!(h.to_records(), encode_queries(&all[..*n]));
            let mut crc = crc32fast::Hasher::new();
            h.hash_into(&mut crc);
            assert_eq!(crc.finalize(), crc32fast::hash(&h.to_records()));
        }
        // The same records built apart (no piece shared) still extend, and one byte changed
        // does not.
        let (h, n) = &histories[3];
        let apart = QueryLog::of(&all[..*n]);
        assert!(log.extends(&apart) && apart == *h);
        let mut changed = apart.to_records();
        let at = changed.len() - 5;
        changed[at] ^= 1;
        let changed = QueryLog::from_checked(changed, *n);
        assert!(!log.extends(&changed) && changed != *h);
        // Read in order, record by record, across the pieces.
        let (mut pos, mut read) = (0, 0);
        while let Some(r) = log.at(pos, read).unwrap() {
            let want = match &all[read] {
                LoggedQuery::Reduction { name, bytes, .. } => (name, bytes),
                LoggedQuery::Fetch { dat, bytes } => (dat, bytes),
            };
            assert_eq!((r.name, r.bytes), (want.0.as_str(), want.1.as_slice()));
            (pos, read) = (r.next, read + 1);
        }
        assert_eq!((pos, read), (bytes.len(), all.len()));
        for offset in [
            0,
            1,
            PIECE - 1,
            PIECE,
            PIECE + 1,
            bytes.len() - 1,
            bytes.len(),
        ] {
            let tail: Vec<u8> = log.pieces_from(offset).collect::<Vec<_>>().concat();
            assert_eq!(tail, bytes[offset..], "from {offset}");
        }
    }

    #[test]
    fn every_history_is_a_prefix_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let log = ValueLog::new(dir.path(), "app", 0);
        let all: Vec<LoggedQuery> = (0..9).map(q).collect();
        let refs: Vec<ValuesRef> = [2, 2, 5, 9]
            .iter()
            .map(|&n| log.record(&QueryLog::of(&all[..n])).unwrap())
            .collect();
        for (r, n) in refs.iter().zip([2, 2, 5, 9]) {
            assert_eq!(read(dir.path(), r).unwrap().decode().unwrap(), all[..n]);
        }
        assert!(
            refs.iter().all(|r| r.file == "app.values.rank0.1"),
            "one file, appended"
        );
        // A new run (a restart) starts a new generation; the older histories stay readable,
        // and so does a history that does not extend the log.
        let again = ValueLog::new(dir.path(), "app", 0);
        let r = again.record(&QueryLog::of(&all[..7])).unwrap();
        assert_eq!(r.file, "app.values.rank0.2");
        let other: Vec<LoggedQuery> = (20..23).map(q).collect();
        let r3 = again.record(&QueryLog::of(&other)).unwrap();
        assert_eq!(r3.file, "app.values.rank0.3");
        assert_eq!(read(dir.path(), &r).unwrap().decode().unwrap(), all[..7]);
        assert_eq!(read(dir.path(), &r3).unwrap().decode().unwrap(), other);
        assert_eq!(read(dir.path(), &refs[3]).unwrap().decode().unwrap(), all);
        // Pruning keeps the generation being written and those still named.
        assert!(again.prune(std::slice::from_ref(&r.file)).unwrap());
        assert!(read(dir.path(), &refs[3])
            .unwrap_err()
            .contains("app.values.rank0.1"));
        assert_eq!(read(dir.path(), &r).unwrap().decode().unwrap(), all[..7]);
        assert_eq!(read(dir.path(), &r3).unwrap().decode().unwrap(), other);
    }

    #[test]
    fn a_damaged_log_rejects_the_histories_it_no_longer_holds() {
        let dir = tempfile::tempdir().unwrap();
        let log = ValueLog::new(dir.path(), "app", 3);
        let all: Vec<LoggedQuery> = (0..6).map(q).collect();
        let early = log.record(&QueryLog::of(&all[..2])).unwrap();
        let late = log.record(&QueryLog::of(&all)).unwrap();
        let path = dir.path().join("app.values.rank3.1");
        let mut bytes = std::fs::read(&path).unwrap();
        let at = early.len as usize + 3;
        bytes[at] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            read(dir.path(), &early).unwrap().decode().unwrap(),
            all[..2]
        );
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
