//! Shared by the `wgpu_*` tests: a runtime on the wgpu backend, or a skip.
//!
//! With no usable adapter a test reports itself skipped (`ops_testkit::skip`: a `SKIPPED` line
//! that `scripts/test.sh` counts) and returns; under `OPS_REQUIRE_ALL=1`, which `.ci/run` sets
//! after installing Mesa's software Vulkan device, the skip is a failure instead, so CI always
//! exercises the GPU code.
#![allow(dead_code)]

use ops_backends::prelude::*;
use ops_backends::WgpuBackend;

/// The wgpu backend, or `None` after reporting the test as skipped when this machine has no
/// adapter offering f64 (a failure under `OPS_REQUIRE_ALL=1`).
pub fn backend() -> Option<WgpuBackend> {
    match WgpuBackend::new() {
        Ok(b) => Some(b),
        Err(e) => {
            ops_testkit::skip(&format!("no wgpu adapter offering f64: {e}"));
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
