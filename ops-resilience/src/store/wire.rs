//! A checkpoint as one byte message: what a process sends its partner (`ring_shift`) so the
//! partner can keep a copy of it (see [`super::dist`]).
//!
//! The encoding is little endian and length prefixed, independent of HDF5 (the receiver writes
//! the copy with the same store, checksums and atomic commit as its own checkpoints):
//!
//! ```text
//! "OPSRCKPT"  u32 version
//! meta        str app, u64 sequence, u64 loop_index, str location, str backend,
//!             u64 time_unix bits, u64 rank, u64 ranks
//! queries     u64 count; per query u8 kind (0 reduction, 1 fetch), str name,
//!             [u8 elem (0 f64, 1 f32, 2 i32), reductions only], bytes value
//! payload     bytes
//! dats        u64 count; per dataset str name, u8 elem, u64 components, u64 regions;
//!             per region i32 lo[3], i32 hi[3], bytes data
//! u32         CRC-32 of everything before it
//! ```
//!
//! `str` and `bytes` are a u64 length, then the bytes. Decoding checks every length against what
//! is left, the CRC and that nothing trails, so a damaged message is an error, never a panic
//! or a huge allocation.

use super::{Checkpoint, CheckpointMeta, LoggedQuery, QueryLog, SavedDat, SavedRegion, StoreError};
use ops_core::ElemType;

const MAGIC: &[u8; 8] = b"OPSRCKPT";
/// Version of the message encoding.
pub const WIRE_VERSION: u32 = 1;

fn elem_code(e: ElemType) -> u8 {
    match e {
        ElemType::F64 => 0,
        ElemType::F32 => 1,
        ElemType::I32 => 2,
    }
}

fn elem_of(code: u8) -> Option<ElemType> {
    match code {
        0 => Some(ElemType::F64),
        1 => Some(ElemType::F32),
        2 => Some(ElemType::I32),
        _ => None,
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn query(&mut self, q: &LoggedQuery) {
        match q {
            LoggedQuery::Reduction { name, elem, bytes } => {
                encode_reduction(&mut self.0, name, *elem, bytes)
            }
            LoggedQuery::Fetch { dat, bytes } => encode_fetch(&mut self.0, dat, bytes),
        }
    }
}

/// Appends the record of a reduction result `name` = `value` (little-endian bytes of `elem`).
#[inline(always)]
pub(crate) fn encode_reduction(out: &mut Vec<u8>, name: &str, elem: ElemType, value: &[u8]) {
    // Every reduction result a run hands out passes here: one reservation for the record,
    // and the fixed-size parts copied as such (the name is the only copy of a length known
    // at run time).
    out.reserve(18 + name.len() + value.len());
    let mut head = [0u8; 9];
    head[1..].copy_from_slice(&(name.len() as u64).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(name.as_bytes());
    match <[u8; 8]>::try_from(value) {
        Ok(v) => {
            let mut tail = [0u8; 17];
            tail[0] = elem_code(elem);
            tail[1..9].copy_from_slice(&8u64.to_le_bytes());
            tail[9..].copy_from_slice(&v);
            out.extend_from_slice(&tail);
        }
        Err(_) => {
            out.push(elem_code(elem));
            out.extend_from_slice(&(value.len() as u64).to_le_bytes());
            out.extend_from_slice(value);
        }
    }
}

/// Appends the record of a box of dataset `dat` fetched as `value`.
pub(crate) fn encode_fetch(out: &mut Vec<u8>, dat: &str, value: &[u8]) {
    let mut w = Writer(std::mem::take(out));
    w.u8(1);
    w.bytes(dat.as_bytes());
    w.bytes(value);
    *out = w.0;
}

/// Queries encoded one after another as in a message (no count, no checksum): the records of
/// the value log file ([`super::values`]).
pub(crate) fn encode_queries(queries: &[LoggedQuery]) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    for q in queries {
        w.query(q);
    }
    w.0
}

/// Decodes exactly `count` queries of [`encode_queries`] filling `bytes`; the error says what
/// is wrong where.
pub(crate) fn decode_queries(bytes: &[u8], count: usize) -> Result<Vec<LoggedQuery>, String> {
    let mut r = Reader { buf: bytes, at: 0 };
    let mut queries = Vec::with_capacity(count.min(bytes.len() / 17 + 1));
    for i in 0..count {
        queries.push(r.query(i)?);
    }
    if r.at != bytes.len() {
        return Err(format!(
            "{} bytes after the {count} records",
            bytes.len() - r.at
        ));
    }
    Ok(queries)
}

/// One logged value, read in place from its record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ValueRecord<'a> {
    /// The reduction's or the dataset's name.
    pub name: &'a str,
    /// The element type of a reduction result; `None` for a fetched box.
    pub elem: Option<ElemType>,
    /// The value's bytes.
    pub bytes: &'a [u8],
    /// Where the next record starts.
    pub next: usize,
}

/// The record at byte `pos` of `bytes` (query number `i`, for messages).
pub(crate) fn query_at(bytes: &[u8], pos: usize, i: usize) -> Result<ValueRecord<'_>, String> {
    let mut r = Reader {
        buf: bytes,
        at: pos.min(bytes.len()),
    };
    r.query_ref(i)
}

/// Checks that `bytes` holds exactly `count` whole records of [`encode_queries`], decoding
/// nothing; the error says what is wrong where.
pub(crate) fn check_queries(bytes: &[u8], count: usize) -> Result<(), String> {
    let mut r = Reader { buf: bytes, at: 0 };
    for i in 0..count {
        r.query_ref(i)?;
    }
    if r.at != bytes.len() {
        return Err(format!(
            "{} bytes after the {count} records",
            bytes.len() - r.at
        ));
    }
    Ok(())
}

/// The size of [`encode`]'s message for `ck`, to allocate it at once.
fn encoded_len(ck: &Checkpoint) -> usize {
    let m = &ck.meta;
    let mut n = 8 + 4 + 8 * 7 + m.app.len() + m.location.len() + m.backend.len() + 8;
    n += 8 + ck.queries.byte_len();
    n += 8 + ck.payload.len() + 8;
    for d in &ck.dats {
        n += 8 + d.name.len() + 1 + 8 + 8;
        for r in &d.regions {
            n += 24 + 8 + r.bytes.len();
        }
    }
    n + 4
}

/// Encodes a checkpoint as one message (layout in the module documentation).
pub fn encode(ck: &Checkpoint) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(encoded_len(ck)));
    w.0.extend_from_slice(MAGIC);
    w.u32(WIRE_VERSION);
    let m = &ck.meta;
    w.bytes(m.app.as_bytes());
    w.u64(m.sequence);
    w.u64(m.loop_index);
    w.bytes(m.location.as_bytes());
    w.bytes(m.backend.as_bytes());
    w.u64(m.time_unix.to_bits());
    w.u64(m.rank as u64);
    w.u64(m.ranks as u64);
    // The records are the queries' encodings one after another.
    w.u64(ck.queries.len() as u64);
    for piece in ck.queries.pieces() {
        w.0.extend_from_slice(piece);
    }
    w.bytes(&ck.payload);
    w.u64(ck.dats.len() as u64);
    for d in &ck.dats {
        w.bytes(d.name.as_bytes());
        w.u8(elem_code(d.elem));
        w.u64(d.components as u64);
        w.u64(d.regions.len() as u64);
        for r in &d.regions {
            for v in r.lo.iter().chain(&r.hi) {
                w.i32(*v);
            }
            w.bytes(&r.bytes);
        }
    }
    let crc = crc32fast::hash(&w.0);
    w.u32(crc);
    w.0
}

struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

type R<T> = Result<T, String>;

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> R<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| {
                format!(
                    "{what}: {n} bytes at offset {}, the message has {}",
                    self.at,
                    self.buf.len()
                )
            })?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> R<u8> {
        Ok(self.take(1, what)?[0])
    }
    fn u32(&mut self, what: &str) -> R<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
    fn u64(&mut self, what: &str) -> R<u64> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
    fn usize(&mut self, what: &str) -> R<usize> {
        let v = self.u64(what)?;
        usize::try_from(v).map_err(|_| format!("{what}: {v} does not fit this machine"))
    }
    fn i32(&mut self, what: &str) -> R<i32> {
        let b = self.take(4, what)?;
        Ok(i32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
    fn bytes(&mut self, what: &str) -> R<&'a [u8]> {
        let n = self.usize(what)?;
        self.take(n, what)
    }
    fn string(&mut self, what: &str) -> R<String> {
        let b = self.bytes(what)?;
        String::from_utf8(b.to_vec()).map_err(|_| format!("{what}: not UTF-8 text"))
    }
    /// Query number `i`, borrowed from the message. The error names the query only when there
    /// is one (no text is built per query).
    fn query_ref(&mut self, i: usize) -> R<ValueRecord<'a>> {
        let mut parse = || -> R<ValueRecord<'a>> {
            let what = "record";
            let kind = self.u8(what)?;
            let name = std::str::from_utf8(self.bytes(what)?)
                .map_err(|_| format!("{what}: name not UTF-8 text"))?;
            let elem = match kind {
                0 => {
                    let code = self.u8(what)?;
                    Some(elem_of(code).ok_or_else(|| format!("unknown element type {code}"))?)
                }
                1 => None,
                k => return Err(format!("unknown kind {k}")),
            };
            let bytes = self.bytes(what)?;
            Ok(ValueRecord {
                name,
                elem,
                bytes,
                next: self.at,
            })
        };
        parse().map_err(|e| format!("query {i}: {e}"))
    }
    /// Query number `i`.
    fn query(&mut self, i: usize) -> R<LoggedQuery> {
        let v = self.query_ref(i)?;
        Ok(match v.elem {
            Some(elem) => LoggedQuery::Reduction {
                name: v.name.to_string(),
                elem,
                bytes: v.bytes.to_vec(),
            },
            None => LoggedQuery::Fetch {
                dat: v.name.to_string(),
                bytes: v.bytes.to_vec(),
            },
        })
    }
    /// A count of items each at least `min_bytes` long: never more than what is left allows.
    fn count(&mut self, what: &str, min_bytes: usize) -> R<usize> {
        let n = self.usize(what)?;
        let left = self.buf.len() - self.at;
        if n.saturating_mul(min_bytes) > left {
            return Err(format!(
                "{what}: {n} items cannot fit in the {left} bytes left"
            ));
        }
        Ok(n)
    }
}

/// Decodes a message of [`encode`]. Errors ([`StoreError::Corrupt`]) say what is wrong where.
pub fn decode(msg: &[u8]) -> Result<Checkpoint, StoreError> {
    decode_inner(msg).map_err(|e| StoreError::Corrupt(format!("checkpoint message: {e}")))
}

fn decode_inner(msg: &[u8]) -> R<Checkpoint> {
    if msg.len() < MAGIC.len() + 8 || &msg[..MAGIC.len()] != MAGIC {
        return Err("not a checkpoint message (no OPSRCKPT header)".into());
    }
    let (body, tail) = msg.split_at(msg.len() - 4);
    let want = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
    let crc = crc32fast::hash(body);
    if crc != want {
        return Err(format!(
            "crc32 {crc:#010x} of {} bytes, the message says {want:#010x}",
            body.len()
        ));
    }
    let mut r = Reader {
        buf: body,
        at: MAGIC.len(),
    };
    let version = r.u32("version")?;
    if version != WIRE_VERSION {
        return Err(format!(
            "encoding version {version}, this build reads version {WIRE_VERSION}"
        ));
    }
    let meta = CheckpointMeta {
        app: r.string("app")?,
        sequence: r.u64("sequence")?,
        loop_index: r.u64("loop_index")?,
        location: r.string("location")?,
        backend: r.string("backend")?,
        time_unix: f64::from_bits(r.u64("time_unix")?),
        rank: r.usize("rank")?,
        ranks: r.usize("ranks")?,
    };
    let nq = r.count("queries", 17)?;
    let start = r.at;
    for i in 0..nq {
        r.query_ref(i)?;
    }
    let queries = QueryLog::from_checked(body[start..r.at].to_vec(), nq);
    let payload = r.bytes("payload")?.to_vec();
    let nd = r.count("datasets", 25)?;
    let mut dats = Vec::with_capacity(nd);
    for i in 0..nd {
        let what = format!("dataset {i}");
        let name = r.string(&what)?;
        let code = r.u8(&what)?;
        let elem = elem_of(code).ok_or_else(|| format!("{what}: unknown element type {code}"))?;
        let components = r.usize(&what)?;
        let nr = r.count(&what, 32)?;
        let mut regions = Vec::with_capacity(nr);
        for _ in 0..nr {
            let mut lo = [0i32; 3];
            let mut hi = [0i32; 3];
            for v in lo.iter_mut().chain(hi.iter_mut()) {
                *v = r.i32(&what)?;
            }
            regions.push(SavedRegion {
                lo,
                hi,
                bytes: r.bytes(&what)?.to_vec(),
            });
        }
        dats.push(SavedDat {
            name,
            elem,
            components,
            regions,
        });
    }
    if r.at != body.len() {
        return Err(format!("{} bytes trail the checkpoint", body.len() - r.at));
    }
    Ok(Checkpoint {
        meta,
        queries,
        payload,
        dats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            meta: CheckpointMeta {
                app: "app".into(),
                sequence: 7,
                loop_index: 1234,
                location: "loop@src/main.rs:1:2".into(),
                backend: "mpi+seq".into(),
                time_unix: 1.5e9,
                rank: 1,
                ranks: 3,
            },
            queries: QueryLog::of(&[
                LoggedQuery::Reduction {
                    name: "dt".into(),
                    elem: ElemType::F64,
                    bytes: 0.25f64.to_le_bytes().to_vec(),
                },
                LoggedQuery::Fetch {
                    dat: "b/d".into(),
                    bytes: vec![1, 2, 3],
                },
                LoggedQuery::Reduction {
                    name: "n".into(),
                    elem: ElemType::I32,
                    bytes: 5i32.to_le_bytes().to_vec(),
                },
            ]),
            payload: vec![9; 17],
            dats: vec![
                SavedDat {
                    name: "b/d".into(),
                    elem: ElemType::F32,
                    components: 2,
                    regions: vec![
                        SavedRegion {
                            lo: [-1, 0, 0],
                            hi: [3, 2, 1],
                            bytes: (0..64).collect(),
                        },
                        SavedRegion {
                            lo: [3, 0, 0],
                            hi: [3, 2, 1],
                            bytes: Vec::new(),
                        },
                    ],
                },
                SavedDat {
                    name: "b/e".into(),
                    elem: ElemType::F64,
                    components: 1,
                    regions: Vec::new(),
                },
            ],
        }
    }

    #[test]
    fn round_trip() {
        let ck = sample();
        let msg = encode(&ck);
        assert_eq!(msg.len(), encoded_len(&ck));
        assert_eq!(decode(&msg).unwrap(), ck);
        let empty = Checkpoint {
            queries: QueryLog::default(),
            payload: Vec::new(),
            dats: Vec::new(),
            ..sample()
        };
        assert_eq!(decode(&encode(&empty)).unwrap(), empty);
    }

    #[test]
    fn damage_is_an_error() {
        let msg = encode(&sample());
        // Every truncation, and a flipped bit anywhere.
        for n in 0..msg.len() {
            assert!(decode(&msg[..n]).is_err(), "truncated to {n}");
        }
        for i in (0..msg.len()).step_by(7) {
            let mut bad = msg.clone();
            bad[i] ^= 0x10;
            let e = decode(&bad).unwrap_err();
            assert!(matches!(e, StoreError::Corrupt(_)), "{e}");
        }
        let mut long = msg.clone();
        long.push(0);
        assert!(decode(&long).is_err());
    }

    #[test]
    fn lengths_are_checked_even_with_a_matching_crc() {
        // Huge counts and lengths with a recomputed CRC: rejected without allocating them.
        let bare = Checkpoint {
            queries: QueryLog::default(),
            payload: Vec::new(),
            dats: Vec::new(),
            ..sample()
        };
        let msg = encode(&bare);
        // The tail is: query count, payload length, dataset count (u64 each), CRC.
        let end = msg.len() - 4;
        for field in [end - 24, end - 16, end - 8] {
            for huge in [u64::MAX, 1 << 40, 3] {
                let mut bad = msg[..end].to_vec();
                bad[field..field + 8].copy_from_slice(&huge.to_le_bytes());
                let crc = crc32fast::hash(&bad);
                bad.extend_from_slice(&crc.to_le_bytes());
                assert!(decode(&bad).is_err(), "field at {field} = {huge}");
            }
        }
    }
}
