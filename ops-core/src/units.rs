//! Quantities in words, for messages and reports.

/// Bytes in words: `29.8 MB`, `512 B`.
///
/// ```
/// assert_eq!(ops_core::units::human_bytes(29_800_000), "29.8 MB");
/// assert_eq!(ops_core::units::human_bytes(512), "512 B");
/// ```
pub fn human_bytes(b: u64) -> String {
    let f = b as f64;
    if f >= 1e9 {
        format!("{:.2} GB", f / 1e9)
    } else if f >= 1e6 {
        format!("{:.1} MB", f / 1e6)
    } else if f >= 1e3 {
        format!("{:.1} kB", f / 1e3)
    } else {
        format!("{b} B")
    }
}

/// The memory this machine can still give (`MemAvailable` in `/proc/meminfo`), in bytes;
/// `None` where that is unknown (another OS).
pub fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}
