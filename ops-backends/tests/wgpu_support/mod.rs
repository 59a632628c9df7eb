//! Shared by the `wgpu_*` tests: a runtime on the wgpu backend, or a skip.
//!
//! With no usable adapter the tests print a note and pass, except under CI (`CI` set to `true`
//! or `1`), where a missing adapter is a failure: CI installs Mesa's software Vulkan device
//! (`scripts/install-deps.sh`), so the GPU code paths are always exercised there.
#![allow(dead_code)]

use ops_backends::prelude::*;
use ops_backends::WgpuBackend;

/// True when running under CI.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The wgpu backend, or `None` (with a note on stderr) when this machine has no adapter offering
/// f64. Panics under CI instead of skipping.
pub fn backend() -> Option<WgpuBackend> {
    match WgpuBackend::new() {
        Ok(b) => Some(b),
        Err(e) => {
            if in_ci() {
                panic!("CI must run the wgpu tests, but: {e}");
            }
            eprintln!("note: skipping a wgpu test: {e}");
            None
        }
    }
}

/// A runtime on the wgpu backend, or `None` as [`backend`].
pub fn ops() -> Option<Ops> {
    backend().map(|b| Ops::new(OpsConfig::new(BackendKind::Wgpu), Box::new(b)))
}

/// Relative difference, with `scale` as the floor of the denominator.
pub fn rel(a: f64, b: f64, scale: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / a.abs().max(b.abs()).max(scale)
    }
}
