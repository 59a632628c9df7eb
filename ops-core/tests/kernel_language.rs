//! The kernel language beyond plain arithmetic: kernel functions (across modules, calling each
//! other), constants inside and outside kernels, `std::f64::consts`, arrays, `match`, `clamp`,
//! math written as `f64::max(a, b)`. Each kernel runs on the sequential backend and is compared
//! with the same computation written in plain Rust; its WGSL validates with naga and contains
//! the functions it calls.

// The reference computations spell out what the kernels do, index by index.
#![allow(clippy::needless_range_loop, clippy::manual_clamp)]

use ops_backends::prelude::*;
use ops_core::kernel::Kernel;

/// Kernel functions and constants in another module, used by path and by import.
mod limiters {
    use ops_core::prelude::*;

    /// The minmod limiter.
    #[kernel_fn]
    pub fn minmod(a: f64, b: f64) -> f64 {
        if a * b <= 0.0 {
            0.0
        } else if a.abs() < b.abs() {
            a
        } else {
            b
        }
    }

    /// van Leer's limiter, through `minmod`'s sign test and an early return.
    #[kernel_fn]
    pub fn van_leer(a: f64, b: f64) -> f64 {
        if minmod(a, b) == 0.0 {
            return 0.0;
        }
        2.0 * a * b / (a + b)
    }

    #[kernel_const]
    pub const THIRD: f64 = 1.0 / 3.0;

    #[kernel_const]
    pub const WEIGHTS: [f64; 3] = [0.25, 0.5, 0.25];
}

use limiters::van_leer as vl;

#[kernel_const]
const TWO_PI: f64 = 2.0 * std::f64::consts::PI;

#[kernel_const]
const STEPS: i32 = 3;

#[kernel_const]
const SCALE: f32 = 0.1;

/// A private kernel function with a mutable parameter, a loop and an array.
#[kernel_fn]
fn smooth3(mut centre: f64, left: f64, right: f64) -> f64 {
    let w = [left, centre, right];
    let mut acc = 0.0;
    for k in 0..STEPS {
        acc += limiters::WEIGHTS[k] * w[k];
    }
    centre = acc;
    centre
}

#[kernel_fn]
fn band(i: i32) -> i32 {
    match i % 7 {
        0 => 10,
        1 | 2 => 20,
        3..=4 => 30,
        _ => 40,
    }
}

#[kernel]
fn limited(u: Read<f64>, out: Write<f64>) {
    let l = u[(0, 0)] - u[(-1, 0)];
    let r = u[(1, 0)] - u[(0, 0)];
    out[(0, 0)] = limiters::minmod(l, r) + vl(l, r) * limiters::THIRD;
}

#[kernel]
fn language(u: Read<f64>, out: Write<f64>, idx: Idx, hits: Sum<i32>) {
    const HALF: f64 = 0.5;
    const TABLE: [i32; 4] = [3, 1, 4, 1];
    let x = u[(0, 0)];
    let s = smooth3(x, u[(-1, 0)], u[(1, 0)]);
    let turn = x * TWO_PI;
    let mut acc = [0.0; 2];
    for k in 0..2 {
        acc[k] = x * (k as f64) + HALF;
        acc[k] += f64::max(acc[k], 0.25);
    }
    let b = band(idx[0]);
    let pick = match idx[1] {
        0 => acc[0],
        1 => {
            let t = acc[1] * 2.0;
            t - 1.0
        }
        _ => std::f64::consts::E,
    };
    match b {
        10 => hits += 1,
        20 | 30 => {
            hits += TABLE[STEPS - 2];
        }
        _ => {}
    }
    out[(0, 0)] = s + turn + pick + (b as f64) + x.clamp(-0.5, 0.5) + (SCALE as f64);
}

/// The same computations in plain Rust.
mod reference {
    pub fn minmod(a: f64, b: f64) -> f64 {
        if a * b <= 0.0 {
            0.0
        } else if a.abs() < b.abs() {
            a
        } else {
            b
        }
    }

    pub fn van_leer(a: f64, b: f64) -> f64 {
        if minmod(a, b) == 0.0 {
            0.0
        } else {
            2.0 * a * b / (a + b)
        }
    }

    pub fn limited(l: f64, c: f64, r: f64) -> f64 {
        let (dl, dr) = (c - l, r - c);
        minmod(dl, dr) + van_leer(dl, dr) * (1.0 / 3.0)
    }

    /// `out` and whether (and how much) the point adds to `hits`.
    pub fn language(l: f64, x: f64, r: f64, i: i32, j: i32) -> (f64, i32) {
        let w = [0.25, 0.5, 0.25];
        let v = [l, x, r];
        let mut s = 0.0;
        for k in 0..3 {
            s += w[k] * v[k];
        }
        let turn = x * (2.0 * std::f64::consts::PI);
        let mut acc = [0.0f64; 2];
        for k in 0..2 {
            acc[k] = x * (k as f64) + 0.5;
            let m = if 0.25 > acc[k] { 0.25 } else { acc[k] };
            acc[k] += m;
        }
        let b = match i % 7 {
            0 => 10,
            1 | 2 => 20,
            3..=4 => 30,
            _ => 40,
        };
        let pick = match j {
            0 => acc[0],
            1 => acc[1] * 2.0 - 1.0,
            _ => std::f64::consts::E,
        };
        let hits = match b {
            10 => 1,
            20 | 30 => 1,
            _ => 0,
        };
        let clamped = if x < -0.5 {
            -0.5
        } else if x > 0.5 {
            0.5
        } else {
            x
        };
        (s + turn + pick + b as f64 + clamped + 0.1f32 as f64, hits)
    }
}

const N: usize = 23;

fn field() -> Vec<f64> {
    (0..N * 3)
        .map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0)
        .collect()
}

#[test]
fn kernels_with_functions_constants_arrays_and_match_run_as_written() {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let grid = ops.block("grid", 2).unwrap();
    let halo = Halo::new([-1, 0], [1, 0]);
    let init = field();
    let u = ops
        .dat_with(&grid, "u", DatSpec::new([N, 3]).halo(halo).init(&init))
        .unwrap();
    let out = ops.dat::<f64, 2>(&grid, "out", [N, 3], halo).unwrap();
    let s3 = ops.stencil("S3", &[[-1, 0], [0, 0], [1, 0]]).unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let range = [1..N as i32 - 1, 0..3];
    ops.par_loop(
        limited,
        "limited",
        &grid,
        range.clone(),
        &[u.arg(&s3, Read), out.arg(&pt, Write)],
    )
    .unwrap();
    let got = ops.fetch_range(&out, range.clone()).unwrap();
    let at = |i: usize, j: usize| init[j * N + i];
    let mut k = 0;
    for j in 0..3 {
        for i in 1..N - 1 {
            let want = reference::limited(at(i - 1, j), at(i, j), at(i + 1, j));
            assert_eq!(got[k].to_bits(), want.to_bits(), "limited at ({i}, {j})");
            k += 1;
        }
    }

    let hits = ops.reduction::<i32>("hits", ReduceOp::Sum);
    ops.par_loop(
        language,
        "language",
        &grid,
        range.clone(),
        &[
            u.arg(&s3, Read),
            out.arg(&pt, Write),
            Arg::idx(),
            hits.arg(),
        ],
    )
    .unwrap();
    let got = ops.fetch_range(&out, range).unwrap();
    let (mut k, mut want_hits) = (0, 0);
    for j in 0..3 {
        for i in 1..N - 1 {
            let (want, h) =
                reference::language(at(i - 1, j), at(i, j), at(i + 1, j), i as i32, j as i32);
            assert_eq!(got[k].to_bits(), want.to_bits(), "language at ({i}, {j})");
            want_hits += h;
            k += 1;
        }
    }
    assert_eq!(ops.reduction_result(&hits).unwrap(), want_hits);
}

#[test]
fn kernel_function_wgsl_is_part_of_the_kernel_shader() {
    let src = limited.wgsl().unwrap();
    // Each function once, callees first, then the entry point.
    let minmod = src.find("fn kf_minmod_").expect("minmod's WGSL");
    let vl = src.find("fn kf_van_leer_").expect("van_leer's WGSL");
    let main = src.find("@compute").expect("entry point");
    assert!(minmod < vl && vl < main, "{src}");
    assert_eq!(src.matches("fn kf_minmod_").count(), 1, "{src}");
    ops_core::kernel::validate_wgsl(&limited).unwrap();
    ops_core::kernel::validate_wgsl(&language).unwrap();
    assert!(language.wgsl().unwrap().contains("fn kf_smooth3_"));
}

/// The Rust functions stay callable from host code, with their source parameter names.
#[test]
fn kernel_functions_and_constants_stay_ordinary_rust_items() {
    assert_eq!(limiters::minmod(1.0, 2.0), 1.0);
    assert_eq!(limiters::minmod(-1.0, 2.0), 0.0);
    assert_eq!(smooth3(1.0, 0.0, 2.0), 1.0);
    assert_eq!(band(8), 20);
    assert_eq!(limiters::THIRD, 1.0 / 3.0);
    assert_eq!(TWO_PI, 2.0 * std::f64::consts::PI);
    assert_eq!(limiters::WEIGHTS, [0.25, 0.5, 0.25]);
}

#[kernel_fn]
fn growth(x: f64) -> f64 {
    x.exp()
}

#[kernel]
fn grows(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = growth(a[(0, 0)]);
}

/// A kernel whose function has no WGSL form has none either, and says which function and why.
#[test]
fn a_function_without_wgsl_takes_its_callers_off_the_gpu() {
    let why = grows.wgsl().unwrap_err();
    assert!(
        why.contains("`grows`") && why.contains("`growth`") && why.contains("exp"),
        "{why}"
    );
}
