//! Error messages of the wgpu backend: a kernel without a WGSL form, a shader that fails to
//! compile, and a loop's arguments that the kernel cannot bind.

use ops_backends::prelude::*;
use ops_core::kernel::{Access, ElemType, ExecCtx, Kernel, Param, ParamKind, Scalar};

mod wgpu_support;

#[kernel]
fn decay(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = (-a[(0, 0)]).exp();
}

#[test]
fn kernel_without_wgsl_says_why_and_what_to_do() {
    let Some(mut ops) = wgpu_support::ops() else {
        return;
    };
    let g = ops.block("g", 2).unwrap();
    let a = ops.dat::<f64, 2>(&g, "a", [4, 4], Halo::none()).unwrap();
    let b = ops.dat::<f64, 2>(&g, "b", [4, 4], Halo::none()).unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let err = ops
        .par_loop(
            decay,
            "decay_loop",
            &g,
            [0..4, 0..4],
            &[a.arg(&pt, Read), b.arg(&pt, Write)],
        )
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, OpsError::Backend { .. }), "{msg}");
    for part in [
        "wgpu",
        "decay_loop",
        "`decay`",
        "exp",
        "f64",
        "--ops-backend rayon",
    ] {
        assert!(msg.contains(part), "`{part}` missing from: {msg}");
    }
    // The runtime stays usable.
    assert_eq!(ops.fetch_data(&b).unwrap(), vec![0.0; 16]);
}

/// A hand-written kernel whose WGSL uses an undefined name.
struct Broken;

static BROKEN_PARAMS: [Param; 1] = [Param {
    name: "b",
    kind: ParamKind::Dat(Access::Write),
    ty: ElemType::F64,
    offsets: &[[0, 0, 0]],
    offset_dims: 2,
    components: 1,
    full_write: true,
}];

const BROKEN_WGSL: &str = "// kernel broken
@group(0) @binding(1) var<storage, read_write> d_0: array<f64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = ops_point(0u, i32(gid.x), 0, 0);
    d_0[p] = 2.0lf * no_such_value;
}
";

impl Kernel for Broken {
    fn name(&self) -> &'static str {
        "broken"
    }
    fn params(&self) -> &'static [Param] {
        &BROKEN_PARAMS
    }
    fn wgsl(&self) -> Result<&'static str, &'static str> {
        Ok(BROKEN_WGSL)
    }
    unsafe fn run(&self, _: &ExecCtx, _: [i32; 3], _: [i32; 3], _: &mut [Scalar]) {}
}

#[test]
fn shader_that_fails_to_compile_names_the_kernel_and_the_line() {
    let Some(mut ops) = wgpu_support::ops() else {
        return;
    };
    let g = ops.block("g", 2).unwrap();
    let b = ops.dat::<f64, 2>(&g, "b", [4, 4], Halo::none()).unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let run = |ops: &mut Ops| {
        ops.par_loop_dyn(
            &Broken,
            "broken_loop",
            &g,
            [0..4, 0..4].into(),
            &[b.arg(&pt, Write)],
        )
        .unwrap_err()
        .to_string()
    };
    let msg = run(&mut ops);
    for part in [
        "wgpu",
        "broken_loop",
        "`broken`",
        "no_such_value",
        "d_0[p] = 2.0lf",
    ] {
        assert!(msg.contains(part), "`{part}` missing from: {msg}");
    }
    // The failure is cached: the same message again, without recompiling.
    assert_eq!(run(&mut ops), msg);
    ops.synchronize().unwrap();
}

#[kernel]
fn log_ratio(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = (a[(0, 0)] / 2.0).ln();
}

/// Choosing the backend checks every kernel linked into the program and reports all that cannot
/// run (here `decay` and `log_ratio`), before any loop runs.
#[test]
fn choosing_wgpu_reports_every_kernel_without_wgsl_at_once() {
    if wgpu_support::backend().is_none() {
        return;
    }
    let err = ops_from_config(OpsConfig::new(BackendKind::Wgpu)).unwrap_err();
    let msg = err.to_string();
    for part in [
        "2 kernel(s)",
        "kernel `decay`",
        "`exp`",
        "kernel `log_ratio`",
        "`ln`",
        "--ops-backend rayon",
    ] {
        assert!(msg.contains(part), "`{part}` missing from: {msg}");
    }
    // `auto` does not pick a GPU those kernels cannot run on.
    let ops = ops_from_config(OpsConfig::new(BackendKind::Auto)).unwrap();
    assert_eq!(ops.backend_name(), "rayon");
}
