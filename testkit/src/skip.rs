//! Tests that cannot do their work on this machine (no GPU adapter, no `h5dump`, no `mpirun`)
//! say so instead of passing.
//!
//! [`skip`] panics when `OPS_REQUIRE_ALL` is set to `1` (`.ci/run` sets it: CI installs every
//! tool, so a missing one is a failure there). Otherwise it prints `SKIPPED <test>: <why>` on
//! stderr and appends the same line to the file named by `OPS_SKIP_LOG`, from which
//! `scripts/test.sh` prints how many tests were skipped and why. The caller returns right after.
//!
//! ```no_run
//! fn h5dump_reads_a_checkpoint() {
//!     if std::process::Command::new("h5dump").arg("--version").output().is_err() {
//!         return ops_testkit::skip("h5dump is not installed (apt-get install hdf5-tools)");
//!     }
//!     // ... the test itself
//! }
//! ```

use std::io::Write;

/// True when a skip is a failure (`OPS_REQUIRE_ALL=1`, set by `.ci/run`).
pub fn required() -> bool {
    std::env::var("OPS_REQUIRE_ALL").is_ok_and(|v| v == "1" || v == "true")
}

/// Reports the running test as skipped because of `why` (see the module docs); panics instead
/// when every test is required to run.
#[track_caller]
pub fn skip(why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if required() {
        panic!("{test} cannot run here, and OPS_REQUIRE_ALL=1 makes that a failure: {why}");
    }
    let line = format!("SKIPPED {test}: {why}");
    eprintln!("{line}");
    if let Some(path) = std::env::var_os("OPS_SKIP_LOG") {
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = appended {
            eprintln!("cannot record the skip in {}: {e}", path.to_string_lossy());
        }
    }
}

/// The wgpu backend on the adapter `--ops-backend wgpu` picks, or `None` after reporting the
/// running test as skipped ([`skip`]) when no adapter offers 64-bit floats.
pub fn wgpu_or_skip() -> Option<ops::ops_backends::WgpuBackend> {
    match ops::ops_backends::WgpuBackend::new() {
        Ok(b) => Some(b),
        Err(e) => {
            skip(&format!("no wgpu adapter offering f64: {e}"));
            None
        }
    }
}
