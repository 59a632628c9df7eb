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
use crate::location::LocInfo;
use crate::track::HistEntry;

/// Format version of [`CkptMeta`].
pub const META_VERSION: u32 = 1;
const MAGIC: &[u8; 8] = b"OPSRMETA";

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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrackerState {
    /// Per dataset, in declaration order (history entries refer to these indices).
    pub dats: Vec<DatState>,
    /// Every location's statistics (occurrences include the region's first loop).
    pub locations: Vec<LocInfo>,
    /// `(location key, dataset index)` pairs that have written: their next writes are impure.
    pub seen: Vec<(String, u32)>,
    /// The pure history (loop indices and accesses; dataset indices as in `dats`).
    pub history: Vec<HistEntry>,
    /// Whether loop writes can still be pure.
    pub pure_writes: bool,
    /// The chosen or fixed location (`None`: still learning).
    pub chosen: Option<String>,
    /// Why it was chosen.
    pub reason: String,
    /// Occurrences of the checkpoint location counted towards `--ops-checkpoint-every`.
    pub target_occ: u64,
}

/// A resilient region's checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResilientMeta {
    /// The region's label.
    pub label: String,
    /// The iteration after which it was taken.
    pub iteration: u64,
}

/// The tracker's part of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
}

/// Frames the meta and the application's payload into one payload.
pub fn frame(meta: &CkptMeta, user: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec(meta).expect("meta serialises");
    let mut out = Vec::with_capacity(16 + json.len() + user.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(&json);
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
    let meta: CkptMeta = serde_json::from_slice(&payload[16..end])
        .map_err(|e| format!("the checkpoint's tracker metadata does not parse: {e}"))?;
    if meta.version != META_VERSION {
        return Err(format!(
            "the checkpoint's tracker metadata has version {}, this program reads {META_VERSION}",
            meta.version
        ));
    }
    Ok((meta, payload[end..].to_vec()))
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
                seen: vec![("a@x:1:1".into(), 0)],
                history: vec![],
                pure_writes: true,
                chosen: Some("a@x:1:1".into()),
                reason: "fixed".into(),
                target_occ: 3,
            },
            resilient: None,
        };
        let p = frame(&meta, b"step=42");
        let (m, user) = unframe(&p).unwrap();
        assert_eq!(m, meta);
        assert_eq!(user, b"step=42");
        assert!(unframe(b"step=42").is_err());
        assert!(unframe(&p[..20]).is_err());
    }
}
