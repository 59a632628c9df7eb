//! Loops, reductions, data movement and backends, with hand-written kernels.
#![allow(clippy::reversed_empty_ranges)] // inverted ranges are tested on purpose

mod common;

use common::*;
use ops_backends::prelude::*;
use ops_backends::{RayonBackend, SeqBackend};
use ops_core::kernel::{Access as A, ElemType, ReduceOp as R};
use ops_core::{LoopAction, LoopObserver, LoopPlan, Query, Runtime};

fn seq() -> Ops {
    ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap()
}

fn rayon(threads: usize) -> Ops {
    ops_from_config(OpsConfig::new(BackendKind::Rayon).with_threads(Some(threads))).unwrap()
}

/// A small deterministic pseudo-random generator (xorshift).
fn random(n: usize, mut seed: u64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 0.7
        })
        .collect()
}

#[test]
fn average5_matches_reference_on_both_backends() {
    let (nx, ny) = (37usize, 300usize);
    let input = random(nx * ny, 42);
    let mut results = Vec::new();
    for mut ops in [seq(), rayon(2)] {
        let grid = ops.block("grid", 2).unwrap();
        let h = Halo::new([-1, -1], [1, 1]);
        let a = ops
            .dat_with(
                &grid,
                "a",
                DatSpec::<f64, 2>::new([nx, ny]).halo(h).init(&input),
            )
            .unwrap();
        let b = ops.dat::<f64, 2>(&grid, "b", [nx, ny], h).unwrap();
        let five = ops
            .stencil("S2D_5PT", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])
            .unwrap();
        let pt = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
        ops.par_loop(
            Average5,
            "avg",
            &grid,
            [0..nx as i32, 0..ny as i32],
            &[a.arg(&five, Read), b.arg(&pt, Write)],
        )
        .unwrap();
        let out = ops.fetch_data(&b).unwrap();
        let at = |x: i64, y: i64| {
            if x < 0 || y < 0 || x >= nx as i64 || y >= ny as i64 {
                0.0
            } else {
                input[y as usize * nx + x as usize]
            }
        };
        for y in 0..ny as i64 {
            for x in 0..nx as i64 {
                let want =
                    0.2 * (at(x, y) + at(x + 1, y) + at(x - 1, y) + at(x, y + 1) + at(x, y - 1));
                assert_eq!(out[y as usize * nx + x as usize], want, "at ({x}, {y})");
            }
        }
        results.push(out);
    }
    assert_eq!(results[0], results[1]);
}

#[test]
fn idx_kernel_writes_indices_including_halo_in_3d() {
    for mut ops in [seq(), rayon(3)] {
        let b = ops.block("cube", 3).unwrap();
        let d = ops
            .dat::<i32, 3>(&b, "ids", [4, 5, 40], Halo::new([-1, -1, -1], [1, 1, 1]))
            .unwrap();
        let pt = ops.stencil("S3D_000", &[[0, 0, 0]]).unwrap();
        ops.par_loop(
            IdxWrite,
            "ids",
            &b,
            [-1..5, -1..6, -1..41],
            &[Arg::idx(), d.arg(&pt, Write)],
        )
        .unwrap();
        let all = ops.fetch_range(&d, [-1..5, -1..6, -1..41]).unwrap();
        let mut i = 0;
        for z in -1..41 {
            for y in -1..6 {
                for x in -1..5 {
                    assert_eq!(all[i], x + 100 * y + 10000 * z);
                    i += 1;
                }
            }
        }
        // A sub-box, fetched on its own.
        assert_eq!(
            ops.fetch_range(&d, [2..4, 0..1, 39..41]).unwrap(),
            vec![2 + 390000, 3 + 390000, 2 + 400000, 3 + 400000]
        );
    }
}

#[test]
fn set_fetch_round_trips_with_halo_base_and_components() {
    let mut ops = seq();
    let g = ops.block("g", 2).unwrap();
    let spec = DatSpec::<f32, 2>::new([3, 2])
        .halo(Halo::new([-2, -1], [1, 2]))
        .base([5, -3])
        .components(2);
    let d = ops.dat_with(&g, "v", spec).unwrap();
    let l = ops.dat_layout(&d).unwrap();
    assert_eq!((l.lo()[0], l.hi()[0], l.lo()[1], l.hi()[1]), (3, 9, -4, 1));
    // Interior: x in 5..8, y in -3..-1.
    let vals: Vec<f32> = (0..12).map(|v| v as f32).collect();
    ops.set_data(&d, &vals).unwrap();
    assert_eq!(ops.fetch_data(&d).unwrap(), vals);
    assert_eq!(ops.fetch_range(&d, [5..8, -3..-1]).unwrap(), vals);
    // Whole extent: halo zero, interior where set.
    let all = ops.fetch_range(&d, [3..9, -4..1]).unwrap();
    assert_eq!(all.len(), 6 * 5 * 2);
    assert_eq!(all.iter().filter(|v| **v != 0.0).count(), 11);
    // Halo corner.
    ops.set_range(&d, [3..4, 0..1], &[7.0, 8.0]).unwrap();
    assert_eq!(ops.fetch_range(&d, [3..4, 0..1]).unwrap(), vec![7.0, 8.0]);
    assert_eq!(ops.fetch_data(&d).unwrap(), vals);
    // Empty box.
    assert!(ops.fetch_range(&d, [4..4, 0..1]).unwrap().is_empty());
    // Errors: outside, wrong dims, wrong length, inverted.
    assert!(matches!(
        ops.fetch_range(&d, [2..4, 0..1]),
        Err(OpsError::DataRangeOutside { .. })
    ));
    assert!(matches!(
        ops.fetch_range(&d, 3..4),
        Err(OpsError::DataRangeOutside { .. })
    ));
    assert!(matches!(
        ops.fetch_range(&d, [5..4, 0..1]),
        Err(OpsError::DataRangeOutside { .. })
    ));
    let e = ops.set_range(&d, [3..4, 0..1], &[1.0]).unwrap_err();
    assert!(matches!(
        e,
        OpsError::DataLength {
            expected: 2,
            got: 1,
            ..
        }
    ));
    assert!(e.to_string().contains("`v`"), "{e}");
    let e = ops.set_data(&d, &[1.0; 3]).unwrap_err();
    assert!(matches!(
        e,
        OpsError::DataLength {
            expected: 12,
            got: 3,
            ..
        }
    ));
}

#[test]
fn dat_declaration_errors() {
    let mut ops = seq();
    let g = ops.block("g", 2).unwrap();
    assert!(matches!(
        ops.block("b4", 4),
        Err(OpsError::InvalidBlockDims { dims: 4, .. })
    ));
    assert!(matches!(
        ops.block("b0", 0),
        Err(OpsError::InvalidBlockDims { .. })
    ));
    assert!(matches!(
        ops.dat::<f64, 3>(&g, "x", [1, 2, 3], Halo::none()),
        Err(OpsError::DatDimsMismatch {
            given: 3,
            block_dims: 2,
            ..
        })
    ));
    assert!(matches!(
        ops.dat::<f64, 2>(&g, "x", [2, 2], Halo::new([1, 0], [0, 0])),
        Err(OpsError::InvalidHalo { dim: 0, .. })
    ));
    assert!(matches!(
        ops.dat::<f64, 2>(&g, "x", [2, 2], Halo::new([0, 0], [0, -1])),
        Err(OpsError::InvalidHalo { dim: 1, .. })
    ));
    assert!(matches!(
        ops.dat::<f64, 2>(&g, "x", [0, 2], Halo::none()),
        Err(OpsError::InvalidDatSize { .. })
    ));
    assert!(matches!(
        ops.dat::<f64, 2>(&g, "x", [usize::MAX, 2], Halo::none()),
        Err(OpsError::InvalidDatSize { .. })
    ));
    assert!(matches!(
        ops.dat_with(&g, "x", DatSpec::<f64, 2>::new([2, 2]).components(0)),
        Err(OpsError::InvalidComponents { .. })
    ));
    let e = ops
        .dat_with(&g, "x", DatSpec::<f64, 2>::new([2, 2]).init(&[1.0; 3]))
        .unwrap_err();
    assert!(matches!(
        e,
        OpsError::DataLength {
            expected: 4,
            got: 3,
            ..
        }
    ));
    assert!(e.to_string().contains("`x`"));
    ops.dat::<f64, 2>(&g, "x", [2, 2], Halo::none()).unwrap();
    let e = ops
        .dat::<f64, 2>(&g, "x", [2, 2], Halo::none())
        .unwrap_err();
    assert!(matches!(e, OpsError::DuplicateDat { .. }));
    assert!(e.to_string().contains("`x`") && e.to_string().contains("`g`"));
    // Same name on another block is fine.
    let g2 = ops.block("g2", 2).unwrap();
    ops.dat::<f64, 2>(&g2, "x", [2, 2], Halo::none()).unwrap();
    // Stencils.
    assert!(matches!(
        ops.stencil::<2>("empty", &[]),
        Err(OpsError::InvalidStencil { .. })
    ));
    assert!(matches!(
        ops.strided_stencil("s", &[[0, 0]], [1, 2]),
        Err(OpsError::InvalidStencil { .. })
    ));
    assert!(matches!(
        ops.stencil::<4>("s", &[[0, 0, 0, 0]]),
        Err(OpsError::InvalidStencil { .. })
    ));
    // Handles from another runtime.
    let mut other = seq();
    let og = other.block("g", 2).unwrap();
    let od = other.dat::<f64, 2>(&og, "x", [2, 2], Halo::none()).unwrap();
    assert!(matches!(
        ops.fetch_data(&od),
        Err(OpsError::ForeignHandle { .. })
    ));
    assert!(matches!(
        ops.dat::<f64, 2>(&og, "y", [2, 2], Halo::none()),
        Err(OpsError::ForeignHandle { .. })
    ));
    // Freed datasets.
    let f = ops
        .dat::<f64, 2>(&g, "freed", [2, 2], Halo::none())
        .unwrap();
    ops.free_dat(&f).unwrap();
    assert!(matches!(
        ops.fetch_data(&f),
        Err(OpsError::ForeignHandle { .. })
    ));
    ops.dat::<f64, 2>(&g, "freed", [2, 2], Halo::none())
        .unwrap();
}

fn sum_min_on(mut ops: Ops, data: &[f64], nx: usize, ny: usize) -> (f64, f64) {
    let g = ops.block("g", 2).unwrap();
    let d = ops
        .dat_with(&g, "d", DatSpec::<f64, 2>::new([nx, ny]).init(data))
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let s = ops.reduction::<f64>("sum", ReduceOp::Sum);
    let m = ops.reduction::<f64>("min", ReduceOp::Min);
    ops.par_loop(
        SumMin,
        "sum_min",
        &g,
        [0..nx as i32, 0..ny as i32],
        &[d.arg(&pt, Read), s.arg(), m.arg()],
    )
    .unwrap();
    (
        ops.reduction_result(&s).unwrap(),
        ops.reduction_result(&m).unwrap(),
    )
}

#[test]
fn sum_reduction_is_bitwise_identical_across_backends_and_threads() {
    for (nx, ny, seed) in [(301, 257, 1), (50, 3, 2), (1000, 100, 3), (7, 70, 4)] {
        let data: Vec<f64> = random(nx * ny, seed)
            .into_iter()
            .map(|v| v * 1e6_f64.powf(v))
            .collect();
        let reference = sum_min_on(seq(), &data, nx, ny);
        for t in 1..=3 {
            let r = sum_min_on(rayon(t), &data, nx, ny);
            assert_eq!(
                reference.0.to_bits(),
                r.0.to_bits(),
                "{nx}x{ny}, {t} threads"
            );
            assert_eq!(reference.1.to_bits(), r.1.to_bits());
        }
        let naive: f64 = data.iter().sum();
        assert!((naive - reference.0).abs() <= 1e-6 * data.iter().map(|v| v.abs()).sum::<f64>());
        assert_eq!(
            reference.1,
            data.iter().cloned().fold(f64::INFINITY, f64::min)
        );
    }
}

#[test]
fn reductions_accumulate_over_loops_and_reset_after_result() {
    let mut ops = rayon(2);
    let g = ops.block("g", 1).unwrap();
    let d = ops
        .dat_with(&g, "d", DatSpec::<f64, 1>::new([10]).init(&[1.0; 10]))
        .unwrap();
    let pt = ops.stencil("pt", &[[0]]).unwrap();
    let s = ops.reduction::<f64>("sum", ReduceOp::Sum);
    let m = ops.reduction::<f64>("min", ReduceOp::Min);
    let args = [d.arg(&pt, Read), s.arg(), m.arg()];
    ops.par_loop(SumMin, "sm", &g, 0..10, &args).unwrap();
    ops.par_loop(SumMin, "sm", &g, 0..4, &args).unwrap();
    assert_eq!(ops.reduction_result(&s).unwrap(), 14.0);
    assert_eq!(ops.reduction_result(&m).unwrap(), 1.0);
    assert_eq!(ops.reduction_result(&s).unwrap(), 0.0);
    assert_eq!(ops.reduction_result(&m).unwrap(), f64::INFINITY);
    // An empty range contributes nothing.
    ops.par_loop(SumMin, "sm", &g, 3..3, &args).unwrap();
    assert_eq!(ops.reduction_result(&s).unwrap(), 0.0);
    ops.par_loop(SumMin, "sm", &g, 0..2, &args).unwrap();
    assert_eq!(ops.reduction_result(&s).unwrap(), 2.0);
}

#[test]
fn integer_and_max_reductions_with_generic_kernel() {
    let k = Generic::new(
        "imax",
        vec![
            dat("a", A::Read, ElemType::I32, &[[0, 0, 0]], 0),
            red("mx", R::Max, ElemType::I32),
            red("s", R::Sum, ElemType::I32),
        ],
    );
    for mut ops in [seq(), rayon(2)] {
        let g = ops.block("g", 2).unwrap();
        let vals: Vec<i32> = (0..200 * 100).map(|i| (i * 7919) % 1013).collect();
        let d = ops
            .dat_with(&g, "d", DatSpec::<i32, 2>::new([200, 100]).init(&vals))
            .unwrap();
        let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
        let mx = ops.reduction::<i32>("mx", ReduceOp::Max);
        let s = ops.reduction::<i32>("s", ReduceOp::Sum);
        ops.par_loop(
            &k,
            "imax",
            &g,
            [0..200, 0..100],
            &[d.arg(&pt, Read), mx.arg(), s.arg()],
        )
        .unwrap();
        assert_eq!(
            ops.reduction_result(&mx).unwrap(),
            *vals.iter().max().unwrap()
        );
        assert_eq!(ops.reduction_result(&s).unwrap(), vals.iter().sum::<i32>());
    }
}

#[test]
fn strided_stencil_reads_per_column_and_per_row_arrays() {
    for mut ops in [seq(), rayon(2)] {
        let (nx, ny) = (6usize, 2000usize);
        let g = ops.block("g", 2).unwrap();
        let cellx = ops
            .dat_with(
                &g,
                "cellx",
                DatSpec::<f64, 2>::new([nx, 1])
                    .halo(Halo::new([-2, 0], [2, 0]))
                    .init(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            )
            .unwrap();
        let celly_vals: Vec<f64> = (0..ny).map(|y| 10.0 * y as f64).collect();
        let celly = ops
            .dat_with(
                &g,
                "celly",
                DatSpec::<f64, 2>::new([1, ny]).init(&celly_vals),
            )
            .unwrap();
        let out = ops
            .dat::<f64, 2>(&g, "out", [nx, ny], Halo::none())
            .unwrap();
        let sx = ops
            .strided_stencil("S2D_STRIDE_X", &[[0, 0], [-1, 0]], [1, 0])
            .unwrap();
        let sy = ops
            .strided_stencil("S2D_STRIDE_Y", &[[0, 0]], [0, 1])
            .unwrap();
        let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
        let k = Generic::new(
            "strided",
            vec![
                dat("cx", A::Read, ElemType::F64, &[[0, 0, 0], [-1, 0, 0]], 2),
                dat("cy", A::Read, ElemType::F64, &[[0, 0, 0]], 2),
                dat("o", A::Write, ElemType::F64, &[[0, 0, 0]], 2),
            ],
        );
        ops.par_loop(
            &k,
            "strided",
            &g,
            [0..nx as i32, 0..ny as i32],
            &[
                cellx.arg(&sx, Read),
                celly.arg(&sy, Read),
                out.arg(&pt, Write),
            ],
        )
        .unwrap();
        let o = ops.fetch_data(&out).unwrap();
        for y in 0..ny {
            for x in 0..nx {
                let left = if x == 0 { 0.0 } else { x as f64 };
                assert_eq!(o[y * nx + x], (x + 1) as f64 + left + 10.0 * y as f64);
            }
        }
    }
}

#[test]
fn strided_2d_array_in_3d_loop() {
    let mut ops = rayon(2);
    let b = ops.block("b", 3).unwrap();
    let plane: Vec<f64> = (0..12).map(|v| v as f64).collect();
    let p = ops
        .dat_with(&b, "plane", DatSpec::<f64, 3>::new([3, 4, 1]).init(&plane))
        .unwrap();
    let out = ops
        .dat::<f64, 3>(&b, "out", [3, 4, 5], Halo::none())
        .unwrap();
    let s = ops
        .strided_stencil("S3D_XY", &[[0, 0, 0]], [1, 1, 0])
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0, 0]]).unwrap();
    ops.par_loop(
        Copy,
        "bcast",
        &b,
        [0..3, 0..4, 0..5],
        &[p.arg(&s, Read), out.arg(&pt, Write)],
    )
    .unwrap();
    let o = ops.fetch_data(&out).unwrap();
    for z in 0..5 {
        assert_eq!(&o[z * 12..(z + 1) * 12], &plane[..]);
    }
}

#[test]
fn inc_readwrite_and_globals() {
    let k = Generic::new(
        "incs",
        vec![
            Param {
                components: 2,
                ..dat("a", A::Read, ElemType::F64, &[[0, 0, 0]], 0)
            },
            dat("g", A::Read, ElemType::F64, &[], 0).with_kind(ParamKind::Global),
            Param {
                components: 2,
                ..dat("i", A::Inc, ElemType::F64, &[[0, 0, 0]], 0)
            },
            dat("rw", A::ReadWrite, ElemType::F32, &[[0, 0, 0]], 0),
        ],
    );
    let mut ops = seq();
    let g = ops.block("g", 1).unwrap();
    let a = ops
        .dat_with(
            &g,
            "a",
            DatSpec::<f64, 1>::new([3])
                .components(2)
                .init(&[1., 2., 3., 4., 5., 6.]),
        )
        .unwrap();
    let i = ops
        .dat_with(
            &g,
            "i",
            DatSpec::<f64, 1>::new([3]).components(2).init(&[1.0; 6]),
        )
        .unwrap();
    let rw = ops
        .dat_with(&g, "rw", DatSpec::<f32, 1>::new([3]).init(&[0.5; 3]))
        .unwrap();
    let pt = ops.stencil("pt", &[[0]]).unwrap();
    let args = [
        a.arg(&pt, Read),
        Arg::global(100.0f64),
        i.arg(&pt, Inc),
        rw.arg(&pt, ReadWrite),
    ];
    ops.par_loop(&k, "incs", &g, 0..3, &args).unwrap();
    assert_eq!(
        ops.fetch_data(&i).unwrap(),
        vec![104., 104., 108., 108., 112., 112.]
    );
    assert_eq!(ops.fetch_data(&rw).unwrap(), vec![103.5, 107.5, 111.5]);
    let p = ops.profile();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].name, "incs");
    assert_eq!(p[0].calls, 1);
    // a: 3 points x 8 B x 2 comps; i: x2 (Inc); rw: 3 x 4 B x 2 (ReadWrite).
    assert_eq!(p[0].bytes, 48 + 96 + 24);
}

trait WithKind {
    fn with_kind(self, k: ParamKind) -> Self;
}
impl WithKind for Param {
    fn with_kind(mut self, k: ParamKind) -> Self {
        self.kind = k;
        self
    }
}
use ops_core::kernel::{Param, ParamKind};

#[test]
fn profile_table_lists_loops() {
    let mut ops = seq();
    let g = ops.block("g", 1).unwrap();
    let a = ops.dat::<f64, 1>(&g, "a", [100], Halo::none()).unwrap();
    let b = ops.dat::<f64, 1>(&g, "b", [100], Halo::none()).unwrap();
    let pt = ops.stencil("pt", &[[0]]).unwrap();
    for _ in 0..3 {
        ops.par_loop(
            Copy,
            "copy_ab",
            &g,
            0..100,
            &[a.arg(&pt, Read), b.arg(&pt, Write)],
        )
        .unwrap();
    }
    ops.par_loop(
        Copy,
        "copy_ba",
        &g,
        0..100,
        &[b.arg(&pt, Read), a.arg(&pt, Write)],
    )
    .unwrap();
    let p = ops.profile();
    assert_eq!(p[0].calls, 3);
    assert_eq!(p[0].bytes, 3 * 1600);
    assert_eq!(p[1].calls, 1);
    let t = ops.profile_table();
    println!("{t}");
    assert!(
        t.contains("copy_ab") && t.contains("copy_ba") && t.contains("total"),
        "{t}"
    );
    assert!(t.contains("GB/s") && t.contains("share"));
    ops.reset_profile();
    assert!(ops.profile().is_empty());
}

struct Recorder {
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    skip: &'static str,
}

impl LoopObserver for Recorder {
    fn before_loop(&mut self, ops: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        let mut s = format!("loop {}", plan.name);
        for a in plan.args() {
            if let ops_core::ArgPlan::Dat(d) = a {
                s += &format!(" #{}:{}:{}", d.dat.index(), d.access, d.touched);
            }
        }
        self.log.lock().unwrap().push(s);
        assert_eq!(ops.backend_name(), "seq");
        if plan.name == self.skip {
            LoopAction::Skip
        } else {
            LoopAction::Run
        }
    }
    fn on_query(&mut self, q: &mut Query<'_>) {
        match q {
            Query::Reduction { name, value, .. } => {
                self.log
                    .lock()
                    .unwrap()
                    .push(format!("result {name} {value:?}"));
                **value = ops_core::Scalar::F64(-1.0);
            }
            Query::Fetch { name, range, .. } => self
                .log
                .lock()
                .unwrap()
                .push(format!("fetch {name} {range}")),
        }
    }
    fn on_set(&mut self, dat: ops_core::DatId, range: &IterRange) {
        self.log
            .lock()
            .unwrap()
            .push(format!("set #{} {range}", dat.index()));
    }
}

#[test]
fn observer_sees_loops_queries_and_can_skip() {
    let mut ops = seq();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    ops.set_observer(Some(Box::new(Recorder {
        log: log.clone(),
        skip: "skipped",
    })));
    let g = ops.block("g", 2).unwrap();
    let h = Halo::new([-1, -1], [1, 1]);
    let a = ops
        .dat_with(
            &g,
            "a",
            DatSpec::<f64, 2>::new([4, 4]).halo(h).init(&[1.0; 16]),
        )
        .unwrap();
    let b = ops.dat::<f64, 2>(&g, "b", [4, 4], h).unwrap();
    let five = ops
        .stencil("five", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    ops.par_loop(
        Average5,
        "ran",
        &g,
        [0..4, 0..4],
        &[a.arg(&five, Read), b.arg(&pt, Write)],
    )
    .unwrap();
    ops.par_loop(
        Copy,
        "skipped",
        &g,
        [0..4, 0..4],
        &[a.arg(&pt, Read), b.arg(&pt, Write)],
    )
    .unwrap();
    let got = ops.fetch_range(&b, [0..1, 0..1]).unwrap();
    assert_eq!(got, vec![0.2 * 3.0]);
    let s = ops.reduction::<f64>("s", ReduceOp::Sum);
    let m = ops.reduction::<f64>("m", ReduceOp::Min);
    ops.par_loop(
        SumMin,
        "skipped",
        &g,
        [0..4, 0..4],
        &[a.arg(&pt, Read), s.arg(), m.arg()],
    )
    .unwrap();
    assert_eq!(ops.reduction_result(&s).unwrap(), -1.0);
    let log = log.lock().unwrap().clone();
    assert_eq!(
        log,
        vec![
            "set #0 [0..4, 0..4]".to_string(),
            "loop ran #0:Read:[-1..5, -1..5] #1:Write:[0..4, 0..4]".into(),
            "loop skipped #0:Read:[0..4, 0..4] #1:Write:[0..4, 0..4]".into(),
            "fetch b [0..1, 0..1]".into(),
            "loop skipped #0:Read:[0..4, 0..4]".into(),
            "result s F64(0.0)".into(),
        ]
    );
}

#[test]
fn backends_report_names_and_threads() {
    assert_eq!(seq().backend_name(), "seq");
    assert_eq!(seq().threads(), 1);
    let r = rayon(3);
    assert_eq!(r.backend_name(), "rayon");
    assert_eq!(r.threads(), 3);
    assert!(ops_from_config(OpsConfig::new(BackendKind::Rayon).with_threads(Some(0))).is_err());
    // Direct construction.
    let _ = Ops::new(OpsConfig::default(), Box::new(SeqBackend::new()));
    let _ = Ops::new(
        OpsConfig::default(),
        Box::new(RayonBackend::new(Some(1)).unwrap()),
    );
}

#[test]
fn host_storage_is_64_byte_aligned() {
    let l = ops_core::DatLayout {
        ty: ElemType::F32,
        dims: 1,
        components: 1,
        size: [3, 1, 1],
        base: [0; 3],
        neg: [0; 3],
        pos: [0; 3],
    };
    for _ in 0..10 {
        let b = ops_backends::HostBuf::new(&l).unwrap();
        assert_eq!(b.as_ptr() as usize % 64, 0);
        assert_eq!(b.as_bytes(), &[0u8; 12]);
    }
}

/// `--ops-check-finite`: a NaN or infinite floating-point reduction result is an error naming
/// the reduction; without it the value is handed over as computed.
#[test]
fn check_finite_refuses_nan_and_infinite_reduction_results() {
    for (poison, shown) in [(f64::NAN, "NaN"), (f64::INFINITY, "inf")] {
        let mut data = vec![1.0; 12];
        data[5] = poison;
        let (sum, _) = sum_min_on(seq(), &data, 4, 3);
        assert_eq!(sum.to_bits(), (poison + 11.0).to_bits(), "unchecked");

        let config = OpsConfig::new(BackendKind::Seq).with_check_finite(true);
        let mut ops = ops_from_config(config).unwrap();
        let g = ops.block("g", 2).unwrap();
        let d = ops
            .dat_with(&g, "d", DatSpec::<f64, 2>::new([4, 3]).init(&data))
            .unwrap();
        let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
        let s = ops.reduction::<f64>("sum", ReduceOp::Sum);
        let m = ops.reduction::<f64>("min", ReduceOp::Min);
        ops.par_loop(
            SumMin,
            "sum_min",
            &g,
            [0..4, 0..3],
            &[d.arg(&pt, Read), s.arg(), m.arg()],
        )
        .unwrap();
        let err = ops.reduction_result(&s).unwrap_err();
        assert!(
            matches!(&err, OpsError::NotFinite { reduction, value }
                if &**reduction == "sum" && &**value == shown),
            "{err}"
        );
        // The minimum ignores NaN (or is finite): it is handed over.
        assert_eq!(ops.reduction_result(&m).unwrap(), 1.0);
    }
}

/// A dataset larger than the memory this machine has left is refused before anything is
/// touched (with overcommit the kernel would otherwise kill the process later), naming it, what
/// it needs, and what the program declared before it.
#[test]
fn a_dataset_beyond_the_available_memory_is_refused_naming_it() {
    let Some(free) = ops_core::units::memory_available() else {
        return ops_testkit::skip("no /proc/meminfo on this system");
    };
    for mut ops in [seq(), rayon(2)] {
        let g = ops.block("g", 3).unwrap();
        ops.dat::<f64, 3>(&g, "small", [8, 8, 8], Halo::none())
            .unwrap();
        // Twice what is free, in f64 points over a cube.
        let side = ((2 * free / 8) as f64).cbrt().ceil() as usize;
        let err = ops
            .dat::<f64, 3>(&g, "huge", [side; 3], Halo::none())
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, OpsError::DatAlloc { .. })
                && msg.contains("dataset `huge`")
                && msg.contains("available")
                && msg.contains("declared before it: 1 datasets")
                && msg.contains("small 4.1 kB"),
            "{msg}"
        );
        // Nothing was half-made: the runtime goes on.
        ops.dat::<f64, 3>(&g, "after", [8, 8, 8], Halo::none())
            .unwrap();
    }
}

/// Reductions gather over every loop until read; `reset_reduction` starts afresh without
/// reading (the semantics `Ops::reduction_result` documents).
#[test]
fn reset_reduction_discards_what_loops_gathered() {
    let mut ops = seq();
    let g = ops.block("g", 1).unwrap();
    let d = ops
        .dat_with(&g, "d", DatSpec::<f64, 1>::new([10]).init(&[1.0; 10]))
        .unwrap();
    let pt = ops.stencil("pt", &[[0]]).unwrap();
    let s = ops.reduction::<f64>("sum", ReduceOp::Sum);
    let m = ops.reduction::<f64>("min", ReduceOp::Min);
    let sweep = |ops: &mut Ops| {
        ops.par_loop(
            SumMin,
            "sum_min",
            &g,
            0..10,
            &[d.arg(&pt, Read), s.arg(), m.arg()],
        )
        .unwrap()
    };
    sweep(&mut ops);
    ops.reset_reduction(&s).unwrap();
    sweep(&mut ops);
    assert_eq!(
        ops.reduction_result(&s).unwrap(),
        10.0,
        "only the second sweep"
    );
    assert_eq!(ops.reduction_result(&m).unwrap(), 1.0);
    // Reset and nothing gathered: the identity.
    ops.reset_reduction(&m).unwrap();
    assert_eq!(ops.reduction_result(&m).unwrap(), f64::INFINITY);
}
