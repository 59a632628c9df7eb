//! Random stencil programs for the backend agreement tests (`seq_rayon_bitwise.rs`,
//! `wgpu_bitwise.rs`): a program is a random sequence of loops drawn from the kernels below,
//! over random datasets, ranges and global constants.
#![allow(dead_code)]

use ops_backends::prelude::*;
use proptest::prelude::*;

#[kernel]
fn weighted5(a: Read<f64>, b: Write<f64>, w0: Global<f64>, w1: Global<f64>) {
    b[(0, 0)] = w0 * a[(0, 0)] + w1 * (a[(1, 0)] - a[(-1, 0)]) + 0.5 * (a[(0, 1)] + a[(0, -1)]);
}

#[kernel]
fn axpy(a: Read<f64>, b: ReadWrite<f64>, g: Global<f64>) {
    b[(0, 0)] = b[(0, 0)] * 0.75 + g * a[(1, 1)];
}

#[kernel]
fn accumulate(a: Read<f64>, c: Inc<f64>) {
    c[(0, 0)] += a[(-1, -1)] * a[(0, 0)] - (a[(0, 0)] * 0.1).sqrt().min(3.0);
}

#[kernel]
fn sums(a: Read<f64>, b: Read<f64>, s: Sum<f64>, lo: Min<f64>, hi: Max<f64>, count: Sum<i32>) {
    let v = a[(0, 0)] * b[(0, 0)] + 1.0e-3 * a[(1, 0)];
    s += v;
    lo.update(v);
    hi.update(a[(0, -1)] - b[(0, 0)]);
    if v > 0.5 {
        count += 1;
    }
}

#[kernel]
fn from_index(b: Write<f64>, g: Global<f64>, idx: Idx) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    b[(0, 0)] = if (idx[0] + idx[1]) % 3 == 0 {
        g * x - y
    } else {
        (x * y + 1.0).sqrt()
    };
}

#[kernel]
fn with_columns(a: Read<f64>, col: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = a[(0, 0)] * col[(0, 0)] + col[(1, 0)] - col[(-1, 0)];
}

/// A per-row array (stride 0 along x) takes the broadcast path of the generated row loop.
#[kernel]
fn with_rows(a: Read<f64>, row: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = a[(0, 0)] * row[(0, 0)] + row[(0, 1)] - 0.5 * row[(0, -1)];
}

/// Mesh size of every program.
pub const N: i32 = 37;

/// A runtime on `backend` with `threads` workers that sends every loop, however small, to its
/// thread pool: this file's meshes are far below the default size for that
/// ([`ops_core::exec::INLINE_POINTS`]), and a comparison of the inline path with itself would
/// prove nothing about threads.
pub fn ops_parallel(backend: BackendKind, threads: usize) -> Ops {
    ops_from_config(
        OpsConfig::new(backend)
            .with_threads(Some(threads))
            .with_inline_points(Some(0)),
    )
    .unwrap()
}

/// A failing random program, shrunk: its steps and its global values.
pub type PropertyFailure = proptest::test_runner::TestError<(Vec<Step>, Vec<f64>)>;

/// The seq-vs-rayon property on `cases` random programs drawn from the fixed `seed`: every
/// dataset and reduction result of `seq` equals `rayon`'s with 1, 2 and 3 threads, bitwise.
/// Returns the most threads any rayon runtime used for a program (the property says nothing
/// unless loops really ran on several threads), or the smallest failing program (shrunk).
pub fn seq_rayon_property(cases: u32, seed: u64) -> Result<usize, PropertyFailure> {
    use proptest::test_runner::{Config, RngSeed, TestRunner};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let config = Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    };
    let most_threads = AtomicUsize::new(0);
    let strategy = (
        prop::collection::vec(step(), 1..14),
        prop::collection::vec(-1.0..1.0f64, (N * N) as usize),
    );
    TestRunner::new(config).run(&strategy, |(program, seed)| {
        let reference = run(&program, &seed, ops_parallel(BackendKind::Seq, 1));
        for threads in [1, 2, 3] {
            let mut ops = ops_parallel(BackendKind::Rayon, threads);
            let got = run_on(&program, &seed, &mut ops);
            most_threads.fetch_max(ops.threads_used(), Ordering::Relaxed);
            prop_assert!(
                got.1 == reference.1,
                "reductions differ with {} threads",
                threads
            );
            prop_assert!(
                got.0 == reference.0,
                "datasets differ with {} threads",
                threads
            );
        }
        Ok(())
    })?;
    Ok(most_threads.into_inner())
}

#[derive(Clone, Debug)]
pub enum Step {
    Weighted5 {
        src: usize,
        dst: usize,
        range: [i32; 4],
        w0: f64,
        w1: f64,
    },
    Axpy {
        src: usize,
        dst: usize,
        range: [i32; 4],
        g: f64,
    },
    Accumulate {
        src: usize,
        dst: usize,
        range: [i32; 4],
    },
    Sums {
        a: usize,
        b: usize,
        range: [i32; 4],
    },
    FromIndex {
        dst: usize,
        range: [i32; 4],
        g: f64,
    },
    WithColumns {
        src: usize,
        dst: usize,
        range: [i32; 4],
    },
    WithRows {
        src: usize,
        dst: usize,
        range: [i32; 4],
    },
}

/// A range inside `-1..N+1` in both dimensions (stencils reach one more point into the halo of 2).
fn range() -> impl Strategy<Value = [i32; 4]> {
    (-1..=N, -1..=N, -1..=N, -1..=N)
        .prop_map(|(a, b, c, d)| [a.min(b), a.max(b) + 1, c.min(d), c.max(d) + 1])
}

fn two_distinct() -> impl Strategy<Value = (usize, usize)> {
    (0usize..3, 1usize..3).prop_map(|(a, d)| (a, (a + d) % 3))
}

/// A random loop of a program.
pub fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (two_distinct(), range(), -2.0..2.0f64, -1.0..1.0f64).prop_map(
            |((src, dst), range, w0, w1)| Step::Weighted5 {
                src,
                dst,
                range,
                w0,
                w1
            }
        ),
        (two_distinct(), range(), -1.0..1.0f64).prop_map(|((src, dst), range, g)| Step::Axpy {
            src,
            dst,
            range,
            g
        }),
        (two_distinct(), range()).prop_map(|((src, dst), range)| Step::Accumulate {
            src,
            dst,
            range
        }),
        (0usize..3, 0usize..3, range()).prop_map(|(a, b, range)| Step::Sums { a, b, range }),
        (0usize..3, range(), -3.0..3.0f64).prop_map(|(dst, range, g)| Step::FromIndex {
            dst,
            range,
            g
        }),
        (two_distinct(), range()).prop_map(|((src, dst), range)| Step::WithColumns {
            src,
            dst,
            range
        }),
        (two_distinct(), range()).prop_map(|((src, dst), range)| Step::WithRows {
            src,
            dst,
            range
        }),
    ]
}

/// Runs `program` on `ops` and returns every dataset's bits (halos included) and every
/// reduction result (s, lo, hi, count per `Sums` step).
pub fn run(program: &[Step], seed: &[f64], mut ops: Ops) -> (Vec<u64>, Vec<u64>) {
    run_on(program, seed, &mut ops)
}

/// [`run`] on a runtime the caller keeps (to ask it afterwards how many threads ran loops).
pub fn run_on(program: &[Step], seed: &[f64], ops: &mut Ops) -> (Vec<u64>, Vec<u64>) {
    let grid = ops.block("grid", 2).unwrap();
    let n = N as usize;
    let halo = Halo::new([-2, -2], [2, 2]);
    let dats: Vec<Dat<f64>> = (0..3)
        .map(|d| {
            let init: Vec<f64> = seed.iter().map(|v| v * (d as f64 + 1.0)).collect();
            ops.dat_with(
                &grid,
                &format!("d{d}"),
                DatSpec::new([n, n]).halo(halo).init(&init),
            )
            .unwrap()
        })
        .collect();
    let cols: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 / 7.0).collect();
    let col = ops
        .dat_with(
            &grid,
            "col",
            DatSpec::new([n, 1])
                .halo(Halo::new([-2, 0], [2, 0]))
                .init(&cols),
        )
        .unwrap();
    let rows: Vec<f64> = (0..n).map(|j| 2.0 - j as f64 / 11.0).collect();
    let row = ops
        .dat_with(
            &grid,
            "row",
            DatSpec::new([1, n])
                .halo(Halo::new([0, -2], [0, 2]))
                .init(&rows),
        )
        .unwrap();
    let row_st = ops
        .strided_stencil("row_y", &[[0, 0], [0, 1], [0, -1]], [0, 1])
        .unwrap();
    let all = ops
        .stencil(
            "all",
            &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1]],
        )
        .unwrap();
    let point = ops.stencil("point", &[[0, 0]]).unwrap();
    let col_st = ops
        .strided_stencil("col_x", &[[0, 0], [1, 0], [-1, 0]], [1, 0])
        .unwrap();
    let s = ops.reduction::<f64>("s", ReduceOp::Sum);
    let lo = ops.reduction::<f64>("lo", ReduceOp::Min);
    let hi = ops.reduction::<f64>("hi", ReduceOp::Max);
    let count = ops.reduction::<i32>("count", ReduceOp::Sum);
    let mut results = Vec::new();
    let r = |x: [i32; 4]| [x[0]..x[1], x[2]..x[3]];
    for st in program {
        match *st {
            Step::Weighted5 {
                src,
                dst,
                range,
                w0,
                w1,
            } => ops.par_loop(
                weighted5,
                "weighted5",
                &grid,
                r(range),
                &[
                    dats[src].arg(&all, Read),
                    dats[dst].arg(&point, Write),
                    Arg::global(w0),
                    Arg::global(w1),
                ],
            ),
            Step::Axpy { src, dst, range, g } => ops.par_loop(
                axpy,
                "axpy",
                &grid,
                r(range),
                &[
                    dats[src].arg(&all, Read),
                    dats[dst].arg(&point, ReadWrite),
                    Arg::global(g),
                ],
            ),
            Step::Accumulate { src, dst, range } => ops.par_loop(
                accumulate,
                "accumulate",
                &grid,
                r(range),
                &[dats[src].arg(&all, Read), dats[dst].arg(&point, Inc)],
            ),
            Step::Sums { a, b, range } => {
                ops.par_loop(
                    sums,
                    "sums",
                    &grid,
                    r(range),
                    &[
                        dats[a].arg(&all, Read),
                        dats[b].arg(&all, Read),
                        s.arg(),
                        lo.arg(),
                        hi.arg(),
                        count.arg(),
                    ],
                )
                .unwrap();
                results.push(ops.reduction_result(&s).unwrap().to_bits());
                results.push(ops.reduction_result(&lo).unwrap().to_bits());
                results.push(ops.reduction_result(&hi).unwrap().to_bits());
                results.push(ops.reduction_result(&count).unwrap() as u64);
                Ok(())
            }
            Step::FromIndex { dst, range, g } => ops.par_loop(
                from_index,
                "from_index",
                &grid,
                r(range),
                &[dats[dst].arg(&point, Write), Arg::global(g), Arg::idx()],
            ),
            // The strided stencil holds the column array at y = 0 whatever the loop's y.
            Step::WithColumns { src, dst, range } => ops.par_loop(
                with_columns,
                "with_columns",
                &grid,
                r(range),
                &[
                    dats[src].arg(&point, Read),
                    col.arg(&col_st, Read),
                    dats[dst].arg(&point, Write),
                ],
            ),
            Step::WithRows { src, dst, range } => ops.par_loop(
                with_rows,
                "with_rows",
                &grid,
                r(range),
                &[
                    dats[src].arg(&point, Read),
                    row.arg(&row_st, Read),
                    dats[dst].arg(&point, Write),
                ],
            ),
        }
        .unwrap();
    }
    let mut bits = Vec::new();
    for d in &dats {
        let v = ops.fetch_range(d, [-2..N + 2, -2..N + 2]).unwrap();
        bits.extend(v.iter().map(|x| x.to_bits()));
    }
    (bits, results)
}
