//! The wgpu backend at the device's limits: datasets larger than one binding (128 MiB on
//! llvmpipe) run through bound windows and slabs and agree bitwise with `seq`; a dataset beyond
//! the adapter's largest buffer is refused with an error naming it; a wait longer than the
//! timeout fails instead of blocking.

use ops_backends::prelude::*;
use ops_backends::wgpu::WgpuError;
use ops_backends::WgpuBackend;

mod wgpu_support;

// Exact arithmetic (integers, power-of-two weights): the GPU's compiler may fuse or reorder
// float operations (docs/gpu.md), and this test is about where values land, not rounding.
#[kernel]
fn fill(idx: Idx, a: Write<f64>) {
    a[(0, 0)] = (idx[0] + 8 * (idx[1] % 7)) as f64 - 16.0;
}

#[kernel]
fn smooth(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = 0.5 * a[(0, 0)] + 0.125 * (a[(1, 0)] + a[(-1, 0)] + a[(0, 1)] + a[(0, -1)]);
}

#[kernel]
fn total(b: Read<f64>, s: Sum<f64>, m: Max<f64>) {
    s += b[(0, 0)];
    m.update(b[(0, 0)]);
}

/// A 2-D program over `n` points per side (halo 1): fill, smooth, reduce, a column read, a
/// strided write of a non-contiguous box, and the whole result.
fn program(mut ops: Ops, n: usize) -> (Vec<f64>, Vec<f64>, f64, f64) {
    let g = ops.block("g", 2).unwrap();
    let halo = Halo::uniform(1);
    let a = ops.dat::<f64, 2>(&g, "big_a", [n, n], halo).unwrap();
    let b = ops.dat::<f64, 2>(&g, "big_b", [n, n], halo).unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let five = ops
        .stencil("five", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])
        .unwrap();
    let all = 0..n as i32;
    ops.par_loop(
        fill,
        "fill",
        &g,
        [-1..n as i32 + 1, -1..n as i32 + 1],
        &[Arg::idx(), a.arg(&pt, Write)],
    )
    .unwrap();
    ops.par_loop(
        smooth,
        "smooth",
        &g,
        [all.clone(), all.clone()],
        &[a.arg(&five, Read), b.arg(&pt, Write)],
    )
    .unwrap();
    // A non-contiguous box, written and read back through row copies.
    let patch: Vec<f64> = (0..3 * 40).map(|i| i as f64).collect();
    ops.set_range(&b, [5..8, 100..140], &patch).unwrap();
    let s = ops.reduction::<f64>("s", ReduceOp::Sum);
    let m = ops.reduction::<f64>("m", ReduceOp::Max);
    ops.par_loop(
        total,
        "total",
        &g,
        [all.clone(), all],
        &[b.arg(&pt, Read), s.arg(), m.arg()],
    )
    .unwrap();
    let column = ops.fetch_range(&b, [7..8, -1..n as i32 + 1]).unwrap();
    let whole = ops.fetch_data(&b).unwrap();
    (
        whole,
        column,
        ops.reduction_result(&s).unwrap(),
        ops.reduction_result(&m).unwrap(),
    )
}

#[test]
fn datasets_beyond_one_binding_run_in_windows_and_agree_with_seq() {
    let Some(backend) = wgpu_support::backend() else {
        return;
    };
    let binding = backend.limits().max_storage_buffer_binding_size;
    // The smallest square f64 dataset (halo 1) larger than one binding.
    let n = ((binding as f64 / 8.0).sqrt() as usize) + 8;
    assert!(((n + 2) * (n + 2) * 8) as u64 > binding);
    let gpu = program(
        Ops::new(OpsConfig::new(BackendKind::Wgpu), Box::new(backend)),
        n,
    );
    let cpu = program(
        ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap(),
        n,
    );
    assert!(gpu.0 == cpu.0, "datasets differ from seq");
    assert_eq!(gpu.1, cpu.1, "the column read differs");
    assert_eq!(gpu.3, cpu.3, "max differs");
    // Exact values in eighths, far below 2^53: the sum is exact in any order.
    assert_eq!(gpu.2, cpu.2, "sum differs");
}

#[test]
fn a_dataset_beyond_the_largest_buffer_is_refused_by_name() {
    let Some(mut ops) = wgpu_support::ops() else {
        return;
    };
    let max = WgpuBackend::new().unwrap().limits().max_buffer_size;
    let side = ((max as f64 / 8.0).sqrt() as usize) + 16;
    let g = ops.block("g", 2).unwrap();
    let err = ops
        .dat::<f64, 2>(&g, "pressure", [side, side], Halo::none())
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, OpsError::DatAlloc { .. }), "{msg}");
    for part in [
        "`pressure`",
        &format!("{max} bytes"),
        "wgpu",
        "--ops-backend rayon",
    ] {
        assert!(msg.contains(part), "`{part}` missing from: {msg}");
    }
    // The runtime stays usable.
    ops.dat::<f64, 2>(&g, "small", [4, 4], Halo::none())
        .unwrap();
}

#[test]
fn a_wait_longer_than_the_timeout_fails_and_says_how_to_change_it() {
    let Some(mut backend) = wgpu_support::backend() else {
        return;
    };
    backend.set_timeout(std::time::Duration::from_nanos(1));
    let mut ops = Ops::new(OpsConfig::new(BackendKind::Wgpu), Box::new(backend));
    let g = ops.block("g", 2).unwrap();
    let a = ops
        .dat::<f64, 2>(&g, "a", [2048, 2048], Halo::none())
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let mut failure = None;
    // Enough work that the device cannot finish within a nanosecond.
    for _ in 0..8 {
        ops.par_loop(
            fill,
            "fill",
            &g,
            [0..2048, 0..2048],
            &[Arg::idx(), a.arg(&pt, Write)],
        )
        .unwrap();
    }
    if let Err(e) = ops.synchronize() {
        failure = Some(e.to_string());
    }
    let msg = failure.expect("a wait of 1 ns for 32M points should time out");
    assert!(msg.contains(ops_backends::wgpu::TIMEOUT_ENV), "{msg}");
    assert!(msg.contains("did not finish"), "{msg}");
    let typed = WgpuError::Timeout {
        during: "x".into(),
        timeout: std::time::Duration::from_secs(2),
    };
    assert!(typed.to_string().contains("within 2 s"), "{typed}");
}
