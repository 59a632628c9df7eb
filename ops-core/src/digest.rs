//! `--ops-digest FILE`: a checksum of every dataset at the end of a run, so two runs can be
//! compared field by field, not only by what they print (a restarted run against an
//! uninterrupted one, one backend against another).
//!
//! The file is JSON: `{"datasets": [{"name": "block/dat", "interior": "<hex>", "extent":
//! "<hex>"}, ...]}`, one entry per live dataset in declaration order, each an FNV-1a 64 hash of
//! the dataset's bytes (components interleaved, x fastest) over its interior and over its whole
//! extent (halos included). In a distributed run every process takes part and rank 0 writes.

use std::path::Path;

use crate::{Ops, OpsError, Result};

/// FNV-1a, 64 bits: small, dependency-free, and plenty to tell two fields apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Minimal JSON string escaping for dataset names.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Computes every live dataset's digest and (on rank 0) writes them to `path`.
pub(crate) fn write(ops: &mut Ops, path: &Path) -> Result<()> {
    let mut lines = Vec::new();
    for i in 0..ops.dat_count() {
        let Some(id) = ops.dat_id(i) else { continue };
        let (name, layout) = match ops.dat_desc(id) {
            Some(d) if d.live => (format!("{}/{}", d.block_name, d.name), d.layout),
            _ => continue,
        };
        let mut hash = |range: crate::IterRange| -> Result<u64> {
            let mut bytes = vec![0u8; range.points() * layout.components * layout.ty.size()];
            ops.download_bytes(id, &range, &mut bytes)?;
            Ok(fnv1a(&bytes))
        };
        let interior = hash(layout.interior())?;
        let extent = hash(layout.extent())?;
        lines.push(format!(
            "    {{\"name\": {}, \"interior\": \"{interior:016x}\", \"extent\": \"{extent:016x}\"}}",
            json_string(&name)
        ));
    }
    if ops.rank() != 0 {
        return Ok(());
    }
    let text = format!("{{\"datasets\": [\n{}\n]}}\n", lines.join(",\n"));
    std::fs::write(path, text).map_err(|e| {
        OpsError::InvalidConfig(format!(
            "--ops-digest {}: cannot write: {e}",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(super::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(super::json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
    }
}
