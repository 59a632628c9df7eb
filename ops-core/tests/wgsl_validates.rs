//! The WGSL of every kernel in this test program parses and validates with naga (f64 enabled).

use ops_core::kernel::Kernel;
use ops_core::prelude::*;

#[kernel]
fn ideal_gas(density: Read<f64>, energy: Read<f64>, pressure: Write<f64>, soundspeed: Write<f64>) {
    let v = 1.0 / density[(0, 0)];
    let p = (1.4 - 1.0) * density[(0, 0)] * energy[(0, 0)];
    pressure[(0, 0)] = p;
    let pe = (1.4 - 1.0) * density[(0, 0)];
    let pv = -density[(0, 0)] * p * v;
    soundspeed[(0, 0)] = (v * v * (p * pe - pv)).sqrt();
}

#[kernel]
fn everything(
    a: Read<f64>,
    b: Write<f64>,
    w: Global<f64>,
    n: Global<i32>,
    r: Sum<f64>,
    m: Min<f64>,
    mx: Max<i32>,
    idx: Idx,
) {
    let s = w * (a[(1, 0)] + a[(-1, 0)] + a[(0, 1)] + a[(0, -1)]) - 4 * a[(0, 0)];
    let t = if s > 0.0 {
        let q = s * 2.0;
        q
    } else if s < -1.0 {
        s.abs()
    } else {
        -s
    };
    let mut acc: f64 = 0.0;
    for k in 0..3 {
        if k == 1 && s < 0.0 || !(t >= 2.0) {
            acc += 1.0;
        } else {
            acc -= (k as f64).powi(3);
        }
    }
    b[(0, 0)] = t + (idx[0] as f64) + acc.max(0.5).min(10.0).floor() + acc.ceil().signum();
    b[(0, 0)] = acc.copysign(s) + (t % 3.0) + ((idx[1] / n) % 2) as f64;
    r += s;
    m.update(t.powf(1.0).sqrt());
    mx.update(idx[1].abs().max(n));
}

#[kernel]
fn components(v: ReadWrite<f32>, c: Inc<i32>, e: Read<f32>) {
    for k in 0..2 {
        v.comp(k)[(0, 0, 0)] = v.comp(k)[(0, 0, 0)] * 2.0 + (k as f32) + e[(0, 0, -1)].exp().ln();
    }
    c[(0, 0, 0)] += 1;
}

#[kernel]
fn one_d(a: Read<f64>, b: Write<f64>, s: Max<f64>) {
    b[0] = a[-1] + a[(1,)];
    s.update(a[0]);
}

/// Exercises a value `if` whose branch has `let`s, nested inside an expression.
#[kernel]
fn b_value_kernel(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = 1.0
        + if a[(0, 0)] > 0.5 {
            let h = a[(0, 0)] * 0.5;
            h * h
        } else {
            0.0
        };
}

/// `mul_add` is one fused multiply-add: WGSL `fma`, and on the CPU a single rounding.
#[kernel]
fn fused(a: Read<f64>, b: Write<f64>, w: Global<f64>) {
    b[(0, 0)] = a[(0, 0)].mul_add(w, a[(1, 0)]);
}

#[kernel]
fn uses_f64_exp(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = a[(0, 0)].exp();
}

#[test]
fn every_registered_kernel_validates() {
    let mut names: Vec<&str> = Vec::new();
    for k in ops_core::kernel::registered_kernels() {
        ops_core::kernel::validate_wgsl(k).unwrap_or_else(|e| panic!("{e}"));
        names.push(k.name());
    }
    names.sort();
    assert_eq!(
        names,
        [
            "b_value_kernel",
            "components",
            "conditional",
            "everything",
            "fused",
            "ideal_gas",
            "one_d",
            "uses_f64_exp"
        ]
    );
}

#[test]
fn f64_exp_has_no_wgsl_form_and_says_why() {
    let why = uses_f64_exp.wgsl().unwrap_err();
    assert!(
        why.contains("uses_f64_exp") && why.contains("exp") && why.contains("f64"),
        "{why}"
    );
}

#[test]
fn f32_exp_lowers() {
    assert!(components.wgsl().unwrap().contains("exp("));
}

#[test]
fn signature_records_access_and_offsets() {
    use ops_core::kernel::{Access, ParamKind};
    let p = everything.params();
    assert_eq!(p[0].kind, ParamKind::Dat(Access::Read));
    assert_eq!(
        p[0].offsets,
        &[[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 0]]
    );
    assert_eq!(p[0].offset_dims, 2);
    assert_eq!(p[1].kind, ParamKind::Dat(Access::Write));
    assert_eq!(p[1].offsets, &[[0, 0, 0]]);
    let c = components.params();
    assert_eq!(c[0].components, 2);
    assert_eq!(c[0].kind, ParamKind::Dat(Access::ReadWrite));
    assert_eq!(c[1].kind, ParamKind::Dat(Access::Inc));
    assert_eq!(c[2].offsets, &[[0, 0, -1]]);
}

#[kernel]
fn conditional(a: Read<f64>, b: Write<f64>, v: Write<f64>, w: Write<f64>) {
    if a[(0, 0)] > 0.0 {
        b[(0, 0)] = 1.0;
        w[(0, 0)] = 1.0;
    } else {
        w[(0, 0)] = 2.0;
    }
    for k in 0..2 {
        v.comp(k)[(0, 0)] = 3.0;
    }
}

#[test]
fn full_write_needs_every_path_and_component() {
    let p = conditional.params();
    assert!(!p[1].full_write, "b is written on one branch only");
    assert!(
        p[2].full_write,
        "v's two components are written by the loop"
    );
    assert!(p[3].full_write, "w is written on both branches");
    assert!(ideal_gas.params()[2].full_write);
}

#[test]
fn mul_add_rounds_once() {
    use ops_backends::prelude::*;
    assert!(fused.wgsl().unwrap().contains("fma("));
    // (1 + 2^-30)^2 - (1 + 2^-29) is 2^-60 exactly; rounding the product first gives 0.
    let x = 1.0 + 2f64.powi(-30);
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let grid = ops.block("grid", 2).unwrap();
    let init = [x, -(1.0 + 2f64.powi(-29))];
    let a = ops
        .dat_with(&grid, "a", DatSpec::<f64, 2>::new([2, 1]).init(&init))
        .unwrap();
    let b = ops.dat::<f64, 2>(&grid, "b", [2, 1], Halo::none()).unwrap();
    let pts = ops.stencil("S2D_00_P10", &[[0, 0], [1, 0]]).unwrap();
    let pt = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    ops.par_loop(
        fused,
        "fused",
        &grid,
        [0..1, 0..1],
        &[a.arg(&pts, Read), b.arg(&pt, Write), Arg::global(x)],
    )
    .unwrap();
    assert_eq!(ops.fetch_data(&b).unwrap()[0], 2f64.powi(-60));
}
