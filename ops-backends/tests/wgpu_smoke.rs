use ops_backends::prelude::*;
mod wgpu_support;

#[kernel]
fn fill(b: Write<f64>, g: Global<f64>, idx: Idx) {
    b[(0, 0)] = g * (idx[0] as f64) + (idx[1] as f64);
}

#[kernel]
fn total(a: Read<f64>, s: Sum<f64>, m: Min<f64>) {
    s += a[(0, 0)];
    m.update(a[(0, 0)]);
}

#[test]
fn smoke() {
    let Some(mut ops) = wgpu_support::ops() else {
        return;
    };
    let grid = ops.block("g", 2).unwrap();
    let d = ops
        .dat::<f64, 2>(&grid, "d", [100, 70], Halo::new([-1, -1], [1, 1]))
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    ops.par_loop(
        fill,
        "fill",
        &grid,
        [0..100, 0..70],
        &[d.arg(&pt, Write), Arg::global(1000.0), Arg::idx()],
    )
    .unwrap();
    let v = ops.fetch_data(&d).unwrap();
    assert_eq!(v[0], 0.0);
    assert_eq!(v[101], 1000.0 + 1.0);
    let s = ops.reduction::<f64>("s", ReduceOp::Sum);
    let m = ops.reduction::<f64>("m", ReduceOp::Min);
    ops.par_loop(
        total,
        "total",
        &grid,
        [0..100, 0..70],
        &[d.arg(&pt, Read), s.arg(), m.arg()],
    )
    .unwrap();
    let exp: f64 = v.iter().sum();
    let got = ops.reduction_result(&s).unwrap();
    assert!((got - exp).abs() < 1e-9 * exp, "{got} {exp}");
    assert_eq!(ops.reduction_result(&m).unwrap(), 0.0);
    let sub = ops.fetch_range(&d, [3..5, 2..4]).unwrap();
    assert_eq!(sub, vec![3002.0, 4002.0, 3003.0, 4003.0]);
    ops.set_range(&d, [-1..1, -1..0], &[7.0, 8.0]).unwrap();
    assert_eq!(
        ops.fetch_range(&d, [-1..2, -1..0]).unwrap(),
        vec![7.0, 8.0, 0.0]
    );
}
