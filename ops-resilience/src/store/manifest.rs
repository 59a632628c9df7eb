//! The manifest written next to each checkpoint file once the file is complete: what the file
//! should contain and the checksums to verify it by. Its presence marks the checkpoint complete.

use super::{QueryLog, FORMAT_VERSION};
use serde::{Deserialize, Serialize};

/// Checksum of one dataset of the HDF5 file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DatasetSum {
    /// Path inside the file (`/dats/block__dat/r0`).
    pub path: String,
    /// Bytes of data.
    pub bytes: u64,
    /// CRC-32 of the data bytes (little endian, in the runtime's order).
    pub crc32: u32,
}

/// The regions of one saved dataset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DatSum {
    /// The dataset's group (`/dats/block__dat`).
    pub group: String,
    /// Its region datasets in order.
    pub regions: Vec<DatasetSum>,
}

/// The manifest: one JSON object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Application name.
    pub app: String,
    /// Checkpoint sequence number.
    pub sequence: u64,
    /// Loop index of the checkpoint.
    pub loop_index: u64,
    /// File name of the HDF5 file (same directory).
    pub file: String,
    /// Size of the HDF5 file in bytes.
    pub file_size: u64,
    /// Every saved dataset in the checkpoint's order, with its regions' checksums.
    pub dats: Vec<DatSum>,
    /// CRC-32 of the logged queries and the payload (see [`queries_crc`]).
    pub queries_crc32: u32,
    /// CRC-32 of the whole HDF5 file, verified before HDF5 opens it: a damaged file (header,
    /// names, attributes, data) is rejected without HDF5 ever parsing it.
    pub file_crc32: u32,
    /// CRC-32 of this manifest's canonical JSON with this field 0 (see [`Manifest::seal`]).
    pub manifest_crc32: u32,
    /// The rank whose data the file holds; only in checkpoints of more than one process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    /// The number of processes that took the checkpoint; only when more than one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<u64>,
    /// The value log file holding the checkpoint's history (same directory; its prefix, length
    /// and checksum are in the HDF5 file's `/meta`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_file: Option<String>,
}

impl Manifest {
    /// The CRC-32 of the manifest's canonical JSON (compact, fields in declaration order) with
    /// `manifest_crc32` 0.
    fn own_crc(&self) -> u32 {
        let unsealed = Manifest {
            manifest_crc32: 0,
            ..self.clone()
        };
        crc32fast::hash(&serde_json::to_vec(&unsealed).expect("a manifest always serialises"))
    }

    /// Sets `manifest_crc32`: the manifest's own checksum.
    pub fn seal(mut self) -> Manifest {
        self.manifest_crc32 = self.own_crc();
        self
    }

    /// Pretty JSON.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).expect("a manifest always serialises");
        v.push(b'\n');
        v
    }

    /// Parses a manifest, checking the format version before anything else (a manifest of
    /// another version may have other fields). Errors are reasons for a rejection.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, String> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| format!("manifest is not JSON: {e}"))?;
        match value.get("format_version").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(FORMAT_VERSION) => {}
            Some(v) => return Err(version_mismatch(v)),
            None => return Err("manifest has no format_version".into()),
        }
        let m: Manifest =
            serde_json::from_value(value).map_err(|e| format!("manifest is malformed: {e}"))?;
        let crc = m.own_crc();
        if crc != m.manifest_crc32 {
            return Err(format!(
                "manifest damaged: its contents have crc32 {crc:#010x}, it says {:#010x}",
                m.manifest_crc32
            ));
        }
        Ok(m)
    }
}

/// The rejection reason for a file of another format version.
pub(crate) fn version_mismatch(found: u64) -> String {
    format!("format version {found}, this build reads version {FORMAT_VERSION}")
}

/// CRC-32 over the query log and the payload: the number of values (u64 LE), the log's
/// records as the value log file holds them, the payload's length (u64 LE), the payload.
pub(crate) fn queries_crc(queries: &QueryLog, payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&(queries.len() as u64).to_le_bytes());
    queries.hash_into(&mut h);
    h.update(&(payload.len() as u64).to_le_bytes());
    h.update(payload);
    h.finalize()
}

/// CRC-32 of the file at `path`, read in pieces.
pub(crate) fn file_crc(path: &std::path::Path) -> std::io::Result<u32> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut h = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(h.finalize());
        }
        h.update(&buf[..n]);
    }
}
