//! The tracker's own part of a checkpoint, stored in front of the application's payload.
//!
//! Stores treat [`Checkpoint::payload`](crate::store::Checkpoint::payload) as opaque bytes. The
//! tracker frames it as `OPSRMETA` (8 bytes), the length of a JSON document (u64, little
//! endian), the JSON document ([`CkptMeta`]: the loops a replay re-executes, the tracker's
//! state when the region opened, resilient-region details), then the application's fast-forward
//! payload. A restart restores the tracker's state from it instead of recomputing it during
//! the replay, which keeps the replay down to counting loops.

use serde::{Deserialize, Serialize};

use crate::boxes::BoxList;
use crate::calls::CallLog;
use crate::learn::Learner;
use crate::location::LocInfo;
use crate::track::HistEntry;

/// Format version of [`CkptMeta`] (5: the learner's state after the liveness rewrite; 6: what
/// checkpoints counted in passes count while a review doubts the decision; 7: a location is one
/// per block its call site runs on).
pub const META_VERSION: u32 = 7;
const MAGIC: &[u8; 8] = b"OPSRMETA";
/// Largest call log a checkpoint may inflate to (a damaged or hostile file cannot ask for more).
const MAX_CALL_LOG: usize = 1 << 32;

/// One dataset's tracker state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatState {
    /// `block/dat`.
    pub name: String,
    /// Points written by loops.
    pub written: BoxList,
    /// Points a replay does not reproduce.
    pub impure: BoxList,
    /// Points a replay recomputes.
    pub pure: BoxList,
    /// Points written inside resilient regions.
    pub closure: BoxList,
    /// Last loop that wrote it.
    pub last_write: Option<u64>,
}

/// The tracker's state when a region opened (before the region's first loop).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TrackerState {
    /// Per dataset, in declaration order (history entries refer to these indices).
    pub dats: Vec<DatState>,
    /// Every location (ids are positions; occurrences include the region's first loop).
    pub locations: Vec<LocInfo>,
    /// The loop at which start-up ended for the purity rule.
    pub first_pass_recur: Option<u64>,
    /// `(location key, dataset index)` pairs that have written: their next writes are impure.
    pub seen: Vec<(String, u32)>,
    /// The pure history (loop indices and accesses; dataset indices as in `dats`).
    pub history: Vec<HistEntry>,
    /// Whether loop writes can still be pure.
    pub pure_writes: bool,
    /// The location learner, whole: a restarted run decides as the run it continues.
    pub learner: Learner,
    /// Occurrences of the checkpoint location counted towards `--ops-checkpoint-every`.
    pub target_occ: u64,
    /// The last loop whose writes were recomputable: the learner measures only once a pass
    /// has gone by since (a restarted run must measure when the run it continues did).
    #[serde(default)]
    pub last_pure_write: u64,
    /// Every loop's call before the checkpoint's loop (its records are framed after the
    /// JSON document): a replay checks the restarted program against it.
    #[serde(default)]
    pub calls: CallLog,
}

/// A reduction's running value when the region opened: loops may have folded into it before
/// the checkpoint's loop while the program reads the result only after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingReduction {
    /// The reduction's name.
    pub name: String,
    /// `f64`, `f32` or `i32`.
    pub ty: String,
    /// The value's bits (f64/f32 bit patterns, or the i32 as unsigned).
    pub bits: u64,
}

impl PendingReduction {
    /// Captures a value.
    pub fn new(name: &str, v: ops_core::Scalar) -> PendingReduction {
        use ops_core::Scalar;
        let (ty, bits) = match v {
            Scalar::F64(x) => ("f64", x.to_bits()),
            Scalar::F32(x) => ("f32", x.to_bits() as u64),
            Scalar::I32(x) => ("i32", x as u32 as u64),
        };
        PendingReduction {
            name: name.to_string(),
            ty: ty.into(),
            bits,
        }
    }

    /// The value, if the type is known.
    pub fn value(&self) -> Option<ops_core::Scalar> {
        use ops_core::Scalar;
        Some(match self.ty.as_str() {
            "f64" => Scalar::F64(f64::from_bits(self.bits)),
            "f32" => Scalar::F32(f32::from_bits(self.bits as u32)),
            "i32" => Scalar::I32(self.bits as u32 as i32),
            _ => return None,
        })
    }
}

/// A resilient region's checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResilientMeta {
    /// The region's label.
    pub label: String,
    /// The iteration after which it was taken.
    pub iteration: u64,
}

/// A fast-forward checkpoint's details: taken at the application's
/// [`fast_forward`](crate::ResilienceExt::fast_forward) call, restored at that call in a
/// restarted run (after the start-up loops ran normally) instead of by replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FastForwardMeta {
    /// The call site's key, `fast_forward@file:line:col`.
    pub location: String,
    /// Loops the run had executed at its first `fast_forward` call (its start-up).
    pub first_call_loop: u64,
    /// Largest number of loops between two `fast_forward` calls (one pass of the time loop).
    pub gap: u64,
}

/// The tracker's part of a checkpoint.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CkptMeta {
    /// [`META_VERSION`].
    pub version: u32,
    /// Loop indices (ascending) a replay executes to recompute the pure points still needed.
    pub replay: Vec<u64>,
    /// Index of the loop before which the region closed.
    pub region_end: u64,
    /// The tracker's state at the checkpoint's loop.
    pub state: TrackerState,
    /// Set for checkpoints of resilient regions.
    pub resilient: Option<ResilientMeta>,
    /// Every reduction's running value at the checkpoint's loop, in declaration order.
    #[serde(default)]
    pub reductions: Vec<PendingReduction>,
    /// Set for fast-forward checkpoints (absent in older files and in replay checkpoints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_forward: Option<FastForwardMeta>,
    /// Fingerprints of the program's inputs (its deck, its parameters) as it declared them
    /// ([`ResilienceExt::input_fingerprint`](crate::ResilienceExt::input_fingerprint)): a
    /// restart with other inputs is refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<InputPrint>,
}

/// One declared input: its label and a 64-bit FNV-1a hash of its bytes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputPrint {
    /// What the program called it (`deck`).
    pub label: String,
    /// FNV-1a (64-bit) of the bytes.
    pub hash: u64,
}

impl InputPrint {
    /// The fingerprint of `bytes` under `label`.
    pub fn of(label: &str, bytes: &[u8]) -> InputPrint {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        InputPrint {
            label: label.to_owned(),
            hash: h,
        }
    }
}

/// Frames the meta (the JSON document, then the call log's records, deflated) and the
/// application's payload into one payload.
pub fn frame(meta: &CkptMeta, user: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec(meta).expect("meta serialises");
    // A time loop's calls repeat pass after pass: deflated, the log is a small fraction.
    let records = &meta.state.calls.deflated_records();
    let mut out = Vec::with_capacity(24 + json.len() + records.len() + user.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&(records.len() as u64).to_le_bytes());
    out.extend_from_slice(records);
    out.extend_from_slice(user);
    out
}

/// Splits a framed payload into the meta and the application's payload.
pub fn unframe(payload: &[u8]) -> Result<(CkptMeta, Vec<u8>), String> {
    if payload.len() < 16 || &payload[..8] != MAGIC {
        return Err(
            "the checkpoint has no tracker metadata (not written by ops-resilience)".into(),
        );
    }
    let len = u64::from_le_bytes(payload[8..16].try_into().expect("8 bytes")) as usize;
    let end = 16usize
        .checked_add(len)
        .filter(|&e| e <= payload.len())
        .ok_or("the checkpoint's tracker metadata is truncated")?;
    // The version first: another version's fields need not parse as this one's.
    #[derive(Deserialize)]
    struct Versioned {
        version: u32,
    }
    let versioned: Versioned = serde_json::from_slice(&payload[16..end])
        .map_err(|e| format!("the checkpoint's tracker metadata does not parse: {e}"))?;
    if versioned.version != META_VERSION {
        return Err(format!(
            "the checkpoint's tracker metadata has version {}, this program reads {META_VERSION}",
            versioned.version
        ));
    }
    let mut meta: CkptMeta = serde_json::from_slice(&payload[16..end])
        .map_err(|e| format!("the checkpoint's tracker metadata does not parse: {e}"))?;
    let truncated = || "the checkpoint's call log is truncated".to_string();
    let n = payload
        .get(end..end + 8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .ok_or_else(truncated)?;
    let start = end + 8;
    let stop = usize::try_from(n)
        .ok()
        .and_then(|n| start.checked_add(n))
        .filter(|&e| e <= payload.len())
        .ok_or_else(truncated)?;
    meta.state.calls.records =
        miniz_oxide::inflate::decompress_to_vec_with_limit(&payload[start..stop], MAX_CALL_LOG)
            .map_err(|e| format!("the checkpoint's call log does not inflate: {e:?}"))?;
    Ok((meta, payload[stop..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_round_trips() {
        let meta = CkptMeta {
            version: META_VERSION,
            replay: vec![1, 5, 9],
            region_end: 12,
            state: TrackerState {
                dats: vec![],
                locations: vec![],
                first_pass_recur: Some(4),
                seen: vec![("a@x:1:1".into(), 0)],
                history: vec![],
                pure_writes: true,
                learner: Learner::default(),
                target_occ: 3,
                last_pure_write: 0,
                calls: CallLog::default(),
            },
            resilient: None,
            inputs: vec![InputPrint::of("deck", b"x_cells 10")],
            reductions: vec![PendingReduction::new("dt", ops_core::Scalar::F64(0.25))],
            fast_forward: None,
        };
        assert_eq!(
            meta.reductions[0].value(),
            Some(ops_core::Scalar::F64(0.25))
        );
        let p = frame(&meta, b"step=42");
        let (m, user) = unframe(&p).unwrap();
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            serde_json::to_string(&meta).unwrap()
        );
        assert_eq!(user, b"step=42");
        assert!(unframe(b"step=42").is_err());
        assert!(unframe(&p[..20]).is_err());
        // Replay checkpoints keep the old format; a fast-forward one round-trips its details.
        assert!(!String::from_utf8_lossy(&p).contains("fast_forward"));
        let ff = CkptMeta {
            fast_forward: Some(FastForwardMeta {
                location: "fast_forward@app.rs:3:9".into(),
                first_call_loop: 4,
                gap: 7,
            }),
            ..meta
        };
        let (m, _) = unframe(&frame(&ff, b"")).unwrap();
        assert_eq!(m.fast_forward, ff.fast_forward);
        // Another version is told as such, whatever its fields: an older learner's state
        // (here, one field of another type) does not parse as this one's.
        let json = serde_json::to_string(&ff).unwrap();
        let old = json
            .replacen(&format!("\"version\":{META_VERSION}"), "\"version\":4", 1)
            .replacen("\"learner\":{", "\"learner\":{\"levels\":7,", 1);
        let mut p = MAGIC.to_vec();
        p.extend_from_slice(&(old.len() as u64).to_le_bytes());
        p.extend_from_slice(old.as_bytes());
        let e = unframe(&p).unwrap_err();
        assert!(e.contains("has version 4, this program reads"), "{e}");
    }

    #[test]
    fn a_call_log_deflated_as_it_grows_frames_its_records() {
        let mut meta = CkptMeta {
            version: META_VERSION,
            replay: vec![],
            region_end: 0,
            state: TrackerState::default(),
            resilient: None,
            inputs: vec![],
            reductions: vec![],
            fast_forward: None,
        };
        let mut live = CallLog::default();
        for checkpoint in 0..6u32 {
            for i in 0..20_000 * checkpoint {
                live.records.push((i % 13) as u8 ^ (checkpoint as u8 & 1));
            }
            live.deflate_new_records();
            // The checkpoint takes a copy, as the engine does, and frames it later.
            meta.state.calls = live.clone();
            let (m, _) = unframe(&frame(&meta, b"")).unwrap();
            assert_eq!(
                m.state.calls.records, live.records,
                "checkpoint {checkpoint}"
            );
        }
        // Records added after the last deflation are framed too (deflated whole).
        live.records.extend_from_slice(b"more");
        meta.state.calls = live.clone();
        let (m, _) = unframe(&frame(&meta, b"")).unwrap();
        assert_eq!(m.state.calls.records, live.records);
    }
}
