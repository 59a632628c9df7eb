//! The wgpu backend against the sequential reference: set/fetch round trips (halos, sub-boxes,
//! every element type, several components, 1-D to 3-D), reductions (every operation and type,
//! sizes around the workgroup width, a 2-D dispatch), strided stencils, a dataset read and
//! written by one loop, batching, and reproducibility.

use ops_backends::prelude::*;

mod wgpu_support;

fn seq() -> Ops {
    ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap()
}

/// Deterministic pseudo-random numbers (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: i32) -> i32 {
        (self.next() % n as u64) as i32
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    /// A box (possibly empty) inside `lo..hi` in each of `dims` dimensions.
    fn boxed(&mut self, dims: usize, lo: [i32; 3], hi: [i32; 3]) -> IterRange {
        let mut a = [0; 3];
        let mut b = [1; 3];
        for d in 0..dims {
            let n = hi[d] - lo[d];
            let x = lo[d] + self.below(n + 1);
            let y = lo[d] + self.below(n + 1);
            a[d] = x.min(y);
            b[d] = x.max(y);
            if self.below(4) != 0 && b[d] == a[d] && b[d] < hi[d] {
                b[d] += 1;
            }
        }
        IterRange::new(dims, a, b).unwrap()
    }
}

/// Random uploads and fetches of random boxes (halos included) on one dataset per element type
/// and dimension count, replayed on seq: every fetch must agree bitwise.
#[test]
fn set_and_fetch_round_trips_match_seq() {
    let Some(mut gpu) = wgpu_support::ops() else {
        return;
    };
    let mut cpu = seq();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for dims in 1..=3usize {
        let bg = gpu.block("b", dims).unwrap();
        let bc = cpu.block("b", dims).unwrap();
        let size = [13usize, 7, 5];
        let neg = [-2, -1, -3];
        let pos = [1, 2, 0];
        macro_rules! mk {
            ($ops:expr, $b:expr, $t:ty, $name:expr, $comps:expr) => {
                match dims {
                    1 => $ops.dat_with::<$t, 1>(
                        &$b,
                        $name,
                        DatSpec::new([size[0]])
                            .halo(Halo::new([neg[0]], [pos[0]]))
                            .base([3])
                            .components($comps),
                    ),
                    2 => $ops.dat_with::<$t, 2>(
                        &$b,
                        $name,
                        DatSpec::new([size[0], size[1]])
                            .halo(Halo::new([neg[0], neg[1]], [pos[0], pos[1]]))
                            .components($comps),
                    ),
                    _ => $ops.dat_with::<$t, 3>(
                        &$b,
                        $name,
                        DatSpec::new(size)
                            .halo(Halo::new(neg, pos))
                            .base([0, -4, 2])
                            .components($comps),
                    ),
                }
                .unwrap()
            };
        }
        let f64g = mk!(gpu, bg, f64, "f64", 1);
        let f64c = mk!(cpu, bc, f64, "f64", 1);
        let f32g = mk!(gpu, bg, f32, "f32", 3);
        let f32c = mk!(cpu, bc, f32, "f32", 3);
        let i32g = mk!(gpu, bg, i32, "i32", 2);
        let i32c = mk!(cpu, bc, i32, "i32", 2);
        let ext = gpu.dat_layout(&f64g).unwrap().extent();
        let (lo, hi) = (ext.lo(), ext.hi());
        for round in 0..60 {
            let r = rng.boxed(dims, lo, hi);
            let n = r.points();
            match round % 3 {
                0 => {
                    let v: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
                    gpu.set_range(&f64g, r, &v).unwrap();
                    cpu.set_range(&f64c, r, &v).unwrap();
                }
                1 => {
                    let v: Vec<f32> = (0..3 * n).map(|_| rng.unit() as f32).collect();
                    gpu.set_range(&f32g, r, &v).unwrap();
                    cpu.set_range(&f32c, r, &v).unwrap();
                }
                _ => {
                    let v: Vec<i32> = (0..2 * n).map(|_| rng.next() as i32).collect();
                    gpu.set_range(&i32g, r, &v).unwrap();
                    cpu.set_range(&i32c, r, &v).unwrap();
                }
            }
            let f = rng.boxed(dims, lo, hi);
            let a: Vec<u64> = gpu
                .fetch_range(&f64g, f)
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            let b: Vec<u64> = cpu
                .fetch_range(&f64c, f)
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert_eq!(a, b, "{dims}-D f64 fetch of {f}");
            let a: Vec<u32> = gpu
                .fetch_range(&f32g, f)
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            let b: Vec<u32> = cpu
                .fetch_range(&f32c, f)
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert_eq!(a, b, "{dims}-D f32 fetch of {f}");
            assert_eq!(
                gpu.fetch_range(&i32g, f).unwrap(),
                cpu.fetch_range(&i32c, f).unwrap(),
                "{dims}-D i32 fetch of {f}"
            );
        }
        // Whole datasets, halos included, at the end.
        assert_eq!(
            gpu.fetch_range(&i32g, ext).unwrap(),
            cpu.fetch_range(&i32c, ext).unwrap()
        );
        assert_eq!(
            gpu.fetch_data(&f64g).unwrap(),
            cpu.fetch_data(&f64c).unwrap()
        );
    }
}

#[kernel]
fn reduce_all(
    a: Read<f64>,
    b: Read<f32>,
    c: Read<i32>,
    s: Sum<f64>,
    lo: Min<f64>,
    hi: Max<f64>,
    sf: Sum<f32>,
    lof: Min<f32>,
    hif: Max<f32>,
    si: Sum<i32>,
    loi: Min<i32>,
    hii: Max<i32>,
) {
    s += a[(0, 0)];
    lo.update(a[(0, 0)]);
    hi.update(a[(1, 0)] - a[(0, 0)]);
    sf += b[(0, 0)];
    lof.update(b[(0, 0)]);
    hif.update(b[(0, 0)]);
    si += c[(0, 0)];
    loi.update(c[(0, 0)]);
    hii.update(c[(0, 0)]);
}

/// Updates only where the value is above 2: over data in -1..1 the reductions stay at their
/// identities (infinities, i32::MIN), which WGSL cannot spell.
#[kernel]
fn reduce_none(a: Read<f64>, lo: Min<f64>, hi: Max<f64>, m: Max<i32>) {
    if a[(0, 0)] > 2.0 {
        lo.update(a[(0, 0)]);
        hi.update(a[(0, 0)]);
        m.update(1);
    }
}

struct RedSetup {
    ops: Ops,
    grid: Block,
    a: Dat<f64>,
    b: Dat<f32>,
    c: Dat<i32>,
    st: Stencil,
    pt: Stencil,
}

fn red_setup(mut ops: Ops, nx: usize, ny: usize, seed: u64) -> RedSetup {
    let mut rng = Rng(seed);
    let grid = ops.block("grid", 2).unwrap();
    let n = nx * ny;
    let av: Vec<f64> = (0..n).map(|_| rng.unit() * 100.0).collect();
    let bv: Vec<f32> = (0..n).map(|_| rng.unit() as f32).collect();
    let cv: Vec<i32> = (0..n).map(|_| rng.below(2001) - 1000).collect();
    let h = Halo::new([0, 0], [1, 0]);
    let a = ops
        .dat_with(&grid, "a", DatSpec::new([nx, ny]).halo(h).init(&av))
        .unwrap();
    let b = ops
        .dat_with(&grid, "b", DatSpec::new([nx, ny]).init(&bv))
        .unwrap();
    let c = ops
        .dat_with(&grid, "c", DatSpec::new([nx, ny]).init(&cv))
        .unwrap();
    let st = ops.stencil("st", &[[0, 0], [1, 0]]).unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    RedSetup {
        ops,
        grid,
        a,
        b,
        c,
        st,
        pt,
    }
}

/// Every reduction of `reduce_all` over `range`, as bits.
fn reduce_over(s: &mut RedSetup, range: [std::ops::Range<i32>; 2]) -> Vec<u64> {
    let ops = &mut s.ops;
    let rs = ops.reduction::<f64>("s", ReduceOp::Sum);
    let rlo = ops.reduction::<f64>("lo", ReduceOp::Min);
    let rhi = ops.reduction::<f64>("hi", ReduceOp::Max);
    let rsf = ops.reduction::<f32>("sf", ReduceOp::Sum);
    let rlof = ops.reduction::<f32>("lof", ReduceOp::Min);
    let rhif = ops.reduction::<f32>("hif", ReduceOp::Max);
    let rsi = ops.reduction::<i32>("si", ReduceOp::Sum);
    let rloi = ops.reduction::<i32>("loi", ReduceOp::Min);
    let rhii = ops.reduction::<i32>("hii", ReduceOp::Max);
    ops.par_loop(
        reduce_all,
        "reduce_all",
        &s.grid,
        range,
        &[
            s.a.arg(&s.st, Read),
            s.b.arg(&s.pt, Read),
            s.c.arg(&s.pt, Read),
            rs.arg(),
            rlo.arg(),
            rhi.arg(),
            rsf.arg(),
            rlof.arg(),
            rhif.arg(),
            rsi.arg(),
            rloi.arg(),
            rhii.arg(),
        ],
    )
    .unwrap();
    vec![
        ops.reduction_result(&rs).unwrap().to_bits(),
        ops.reduction_result(&rlo).unwrap().to_bits(),
        ops.reduction_result(&rhi).unwrap().to_bits(),
        ops.reduction_result(&rsf).unwrap().to_bits() as u64,
        ops.reduction_result(&rlof).unwrap().to_bits() as u64,
        ops.reduction_result(&rhif).unwrap().to_bits() as u64,
        ops.reduction_result(&rsi).unwrap() as u32 as u64,
        ops.reduction_result(&rloi).unwrap() as u32 as u64,
        ops.reduction_result(&rhii).unwrap() as u32 as u64,
    ]
}

#[test]
fn reductions_match_seq_and_repeat_bitwise() {
    let (nx, ny) = (203usize, 67usize);
    let Some(g1) = wgpu_support::ops() else {
        return;
    };
    let mut gpu = red_setup(g1, nx, ny, 7);
    let mut gpu2 = red_setup(wgpu_support::ops().unwrap(), nx, ny, 7);
    let mut cpu = red_setup(seq(), nx, ny, 7);
    // Sizes around the workgroup width (64) and its powers, and the whole grid.
    let ranges = [
        [0..1, 0..1],
        [5..6, 3..4],
        [0..63, 0..1],
        [0..64, 0..1],
        [0..65, 0..1],
        [1..130, 2..3],
        [0..64, 0..64],
        [3..200, 1..66],
        [0..nx as i32, 0..ny as i32],
    ];
    for r in ranges {
        let want = reduce_over(&mut cpu, r.clone());
        let got = reduce_over(&mut gpu, r.clone());
        let again = reduce_over(&mut gpu2, r.clone());
        assert_eq!(got, again, "two wgpu runs differ over {r:?}");
        // Min, max and integer sums are exact. Float sums are added in another order (fixed
        // trees of 64): within 1e-13 (f64) and 1e-6 (f32) of the host's, relative to
        // max(|sum|, 1); measured at most 4.4e-15 and 2.0e-7 over these ranges on llvmpipe.
        for k in [1, 2, 4, 5, 6, 7, 8] {
            assert_eq!(got[k], want[k], "reduction {k} over {r:?}");
        }
        let (g, w) = (f64::from_bits(got[0]), f64::from_bits(want[0]));
        assert!(
            wgpu_support::rel(g, w, 1.0) < 1e-13,
            "sum {g} vs {w} over {r:?}"
        );
        let (g, w) = (
            f32::from_bits(got[3] as u32) as f64,
            f32::from_bits(want[3] as u32) as f64,
        );
        assert!(
            wgpu_support::rel(g, w, 1.0) < 1e-6,
            "f32 sum {g} vs {w} over {r:?}"
        );
    }
    // Reductions accumulate across loops until read, as on the host backends.
    let rs = gpu.ops.reduction::<f64>("acc", ReduceOp::Sum);
    let pt = gpu.pt;
    for _ in 0..3 {
        gpu.ops
            .par_loop(
                reduce_none_sum,
                "sum",
                &gpu.grid,
                [0..4, 0..1],
                &[gpu.a.arg(&pt, Read), rs.arg()],
            )
            .unwrap();
    }
    let a = gpu.ops.fetch_range(&gpu.a, [0..4, 0..1]).unwrap();
    let one: f64 = a.iter().fold(0.0, |x, y| x + y);
    let got = gpu.ops.reduction_result(&rs).unwrap();
    assert!(wgpu_support::rel(got, 3.0 * one, 1.0) < 1e-12);
}

#[kernel]
fn reduce_none_sum(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)];
}

#[test]
fn untouched_reductions_return_the_identities() {
    let Some(ops) = wgpu_support::ops() else {
        return;
    };
    for mut ops in [ops, seq()] {
        let grid = ops.block("g", 2).unwrap();
        let a = ops
            .dat_with(&grid, "a", DatSpec::new([70, 3]).init(&[0.5; 210]))
            .unwrap();
        let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
        let lo = ops.reduction::<f64>("lo", ReduceOp::Min);
        let hi = ops.reduction::<f64>("hi", ReduceOp::Max);
        let m = ops.reduction::<i32>("m", ReduceOp::Max);
        ops.par_loop(
            reduce_none,
            "reduce_none",
            &grid,
            [0..70, 0..3],
            &[a.arg(&pt, Read), lo.arg(), hi.arg(), m.arg()],
        )
        .unwrap();
        assert_eq!(ops.reduction_result(&lo).unwrap(), f64::INFINITY);
        assert_eq!(ops.reduction_result(&hi).unwrap(), f64::NEG_INFINITY);
        assert_eq!(ops.reduction_result(&m).unwrap(), i32::MIN);
    }
}

#[kernel]
fn fill_1d(b: Write<f64>, idx: Idx) {
    // 2^-10: exact products, so a compiler fusing `a * b + c` (GPUs do) rounds the same.
    b[0] = ((idx[0] % 1000) as f64) * 0.0009765625 - 0.25;
}

#[kernel]
fn sum_1d(a: Read<f64>, s: Sum<f64>, m: Max<f64>, lo: Min<i32>) {
    s += a[0];
    m.update(a[0]);
    lo.update(1);
}

/// More workgroups than one dispatch dimension allows (65535 x 64 points): the 2-D grid, its
/// idle tail, and the combine passes over many partials.
#[test]
fn large_loop_uses_a_two_dimensional_grid() {
    let Some(mut gpu) = wgpu_support::ops() else {
        return;
    };
    let n = 65_535usize * 64 + 1_000;
    let mut cpu = seq();
    let mut out = Vec::new();
    for ops in [&mut gpu, &mut cpu] {
        let line = ops.block("line", 1).unwrap();
        let d = ops.dat::<f64, 1>(&line, "d", [n], Halo::none()).unwrap();
        let pt = ops.stencil("pt", &[[0]]).unwrap();
        ops.par_loop(
            fill_1d,
            "fill",
            &line,
            0..n as i32,
            &[d.arg(&pt, Write), Arg::idx()],
        )
        .unwrap();
        let s = ops.reduction::<f64>("s", ReduceOp::Sum);
        let m = ops.reduction::<f64>("m", ReduceOp::Max);
        let lo = ops.reduction::<i32>("lo", ReduceOp::Min);
        ops.par_loop(
            sum_1d,
            "sum",
            &line,
            0..n as i32,
            &[d.arg(&pt, Read), s.arg(), m.arg(), lo.arg()],
        )
        .unwrap();
        let tail = ops.fetch_range(&d, n as i32 - 3..n as i32).unwrap();
        out.push((
            ops.reduction_result(&s).unwrap(),
            ops.reduction_result(&m).unwrap(),
            ops.reduction_result(&lo).unwrap(),
            tail,
        ));
    }
    let (g, c) = (&out[0], &out[1]);
    assert!(
        wgpu_support::rel(g.0, c.0, 1.0) < 1e-12,
        "{} vs {}",
        g.0,
        c.0
    );
    assert_eq!((g.1, g.2, &g.3), (c.1, c.2, &c.3));
}

#[kernel]
fn reflect_bottom(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = -src[(0, 1)];
}

/// A dataset read and written by one loop (disjoint boxes): bound `read_write` twice.
#[test]
fn disjoint_read_and_write_of_one_dataset() {
    let Some(mut ops) = wgpu_support::ops() else {
        return;
    };
    let grid = ops.block("grid", 2).unwrap();
    let init: Vec<f64> = (0..16).map(f64::from).collect();
    let d = ops
        .dat_with(
            &grid,
            "d",
            DatSpec::new([4, 4])
                .halo(Halo::new([-1, -1], [1, 1]))
                .init(&init),
        )
        .unwrap();
    let up = ops.stencil("S2D_0P1", &[[0, 1]]).unwrap();
    let point = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    ops.par_loop(
        reflect_bottom,
        "reflect_bottom",
        &grid,
        [0..4, -1..0],
        &[d.arg(&up, Read), d.arg(&point, Write)],
    )
    .unwrap();
    assert_eq!(
        ops.fetch_range(&d, [0..4, -1..0]).unwrap(),
        vec![-0.0, -1.0, -2.0, -3.0]
    );
    // The same kernel on two datasets uses the read-only variant of the pipeline.
    let e = ops
        .dat::<f64, 2>(&grid, "e", [4, 4], Halo::new([-1, -1], [1, 1]))
        .unwrap();
    ops.par_loop(
        reflect_bottom,
        "reflect_bottom",
        &grid,
        [0..4, -1..0],
        &[d.arg(&up, Read), e.arg(&point, Write)],
    )
    .unwrap();
    assert_eq!(
        ops.fetch_range(&e, [0..4, -1..0]).unwrap(),
        vec![-0.0, -1.0, -2.0, -3.0]
    );
}

#[kernel]
fn blend(a: Read<f64>, row: Read<f64>, col: Read<f64>, b: Write<f64>) {
    b[(0, 0)] =
        a[(0, 0)] * row[(0, 0)] + row[(0, 1)] - 0.5 * row[(0, -1)] + col[(1, 0)] - col[(-1, 0)];
}

#[kernel]
fn stencil7(a: Read<f64>, v: ReadWrite<f32>, c: Inc<i32>, out: Write<f64>, idx: Idx) {
    out[(0, 0, 0)] = a[(1, 0, 0)] - a[(0, 0, -1)]
        + 0.25 * a[(0, -1, 0)] * a[(0, 0, 1)]
        + (v.comp(1)[(0, 0, 0)] as f64);
    for k in 0..2 {
        v.comp(k)[(0, 0, 0)] = v.comp(k)[(0, 0, 0)] * 0.5 + (k as f32);
    }
    c[(0, 0, 0)] += idx[2] * 3 - idx[0];
}

/// Strided stencils (per-row and per-column arrays) in 2-D, and a 3-D stencil with a
/// two-component f32 dataset and an i32 increment: bitwise equal to seq.
#[test]
fn strided_and_3d_stencils_match_seq() {
    let Some(gpu) = wgpu_support::ops() else {
        return;
    };
    let mut results = Vec::new();
    for mut ops in [gpu, seq()] {
        let (nx, ny) = (37usize, 29usize);
        let grid = ops.block("grid", 2).unwrap();
        // Inputs of few significant bits: every product and sum of the kernels is exact, so
        // the results are bitwise seq's on any device, also one whose compiler fuses
        // `a * b + c` into one rounding (real GPUs do; Mesa's llvmpipe does not).
        let av: Vec<f64> = (0..nx * ny)
            .map(|i| ((i * 37) % 64) as f64 / 16.0 - 2.0)
            .collect();
        let a = ops
            .dat_with(&grid, "a", DatSpec::new([nx, ny]).init(&av))
            .unwrap();
        let rows: Vec<f64> = (0..ny).map(|j| 3.0 + j as f64 / 8.0).collect();
        let row = ops
            .dat_with(
                &grid,
                "row",
                DatSpec::new([1, ny])
                    .halo(Halo::new([0, -1], [0, 1]))
                    .init(&rows),
            )
            .unwrap();
        let cols: Vec<f64> = (0..nx).map(|i| (i % 7) as f64 * 0.125).collect();
        let col = ops
            .dat_with(
                &grid,
                "col",
                DatSpec::new([nx, 1])
                    .halo(Halo::new([-1, 0], [1, 0]))
                    .init(&cols),
            )
            .unwrap();
        ops.set_range(&row, [0..1, -1..0], &[-1.0]).unwrap();
        ops.set_range(&col, [nx as i32..nx as i32 + 1, 0..1], &[9.0])
            .unwrap();
        let b = ops
            .dat::<f64, 2>(&grid, "b", [nx, ny], Halo::none())
            .unwrap();
        let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
        let rst = ops
            .strided_stencil("row", &[[0, 0], [0, 1], [0, -1]], [0, 1])
            .unwrap();
        let cst = ops
            .strided_stencil("col", &[[1, 0], [-1, 0]], [1, 0])
            .unwrap();
        ops.par_loop(
            blend,
            "blend",
            &grid,
            [0..nx as i32, 0..ny as i32 - 1],
            &[
                a.arg(&pt, Read),
                row.arg(&rst, Read),
                col.arg(&cst, Read),
                b.arg(&pt, Write),
            ],
        )
        .unwrap();
        let mut bits: Vec<u64> = ops
            .fetch_data(&b)
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect();

        let cube = ops.block("cube", 3).unwrap();
        let n3 = [11usize, 9, 7];
        let pts = n3[0] * n3[1] * n3[2];
        let av: Vec<f64> = (0..pts)
            .map(|i| ((i * 7) % 32) as f64 / 8.0 - 2.0)
            .collect();
        let a3 = ops
            .dat_with(
                &cube,
                "a3",
                DatSpec::new(n3).halo(Halo::uniform(1)).init(&av),
            )
            .unwrap();
        let vv: Vec<f32> = (0..2 * pts).map(|i| i as f32 * 0.5).collect();
        let v3 = ops
            .dat_with(&cube, "v3", DatSpec::new(n3).components(2).init(&vv))
            .unwrap();
        let c3 = ops.dat::<i32, 3>(&cube, "c3", n3, Halo::none()).unwrap();
        let o3 = ops.dat::<f64, 3>(&cube, "o3", n3, Halo::none()).unwrap();
        let s7 = ops
            .stencil(
                "s7",
                &[[0, 0, 0], [1, 0, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]],
            )
            .unwrap();
        let p3 = ops.stencil("p3", &[[0, 0, 0]]).unwrap();
        for _ in 0..2 {
            ops.par_loop(
                stencil7,
                "stencil7",
                &cube,
                [1..11, 0..9, 0..7],
                &[
                    a3.arg(&s7, Read),
                    v3.arg(&p3, ReadWrite),
                    c3.arg(&p3, Inc),
                    o3.arg(&p3, Write),
                    Arg::idx(),
                ],
            )
            .unwrap();
        }
        bits.extend(ops.fetch_data(&o3).unwrap().iter().map(|x| x.to_bits()));
        bits.extend(
            ops.fetch_data(&v3)
                .unwrap()
                .iter()
                .map(|x| x.to_bits() as u64),
        );
        bits.extend(
            ops.fetch_data(&c3)
                .unwrap()
                .iter()
                .map(|x| *x as u32 as u64),
        );
        results.push(bits);
    }
    assert_eq!(results[0], results[1]);
}

#[kernel]
fn step(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = 0.25 * (a[(1, 0)] + a[(-1, 0)] + a[(0, 1)] + a[(0, -1)]);
}

/// Loops are batched: 100 loops without reductions are one submission and no wait; a
/// reduction, a fetch and synchronize each wait once.
#[test]
fn loops_are_batched_and_synchronise_only_when_needed() {
    let Some(backend) = wgpu_support::backend() else {
        return;
    };
    let stats = backend.stats();
    let pipelines_before = backend.pipelines();
    assert_eq!(pipelines_before, 0);
    let mut ops = Ops::new(OpsConfig::new(BackendKind::Wgpu), Box::new(backend));
    let grid = ops.block("g", 2).unwrap();
    let h = Halo::new([-1, -1], [1, 1]);
    let init: Vec<f64> = (0..32 * 32).map(|i| (i % 7) as f64).collect();
    let mut a = ops
        .dat_with(&grid, "a", DatSpec::new([32, 32]).halo(h).init(&init))
        .unwrap();
    let mut b = ops.dat::<f64, 2>(&grid, "b", [32, 32], h).unwrap();
    let five = ops
        .stencil("5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    ops.synchronize().unwrap();
    let (d0, s0, w0, _, _) = stats.snapshot();
    for _ in 0..100 {
        ops.par_loop(
            step,
            "step",
            &grid,
            [0..32, 0..32],
            &[a.arg(&five, Read), b.arg(&pt, Write)],
        )
        .unwrap();
        std::mem::swap(&mut a, &mut b);
    }
    let (d1, s1, w1, _, _) = stats.snapshot();
    assert_eq!(d1 - d0, 100);
    assert_eq!(
        s1 - s0,
        0,
        "nothing is submitted before the host needs a result"
    );
    assert_eq!(w1 - w0, 0);
    let s = ops.reduction::<f64>("s", ReduceOp::Sum);
    ops.par_loop(
        reduce_none_sum,
        "sum",
        &grid,
        [0..32, 0..32],
        &[a.arg(&pt, Read), s.arg()],
    )
    .unwrap();
    let (_, s2, w2, _, _) = stats.snapshot();
    assert_eq!(s2 - s1, 1, "the reduction submits the 100 loops with it");
    assert_eq!(w2 - w1, 1);
    let total = ops.reduction_result(&s).unwrap();
    let field = ops.fetch_data(&a).unwrap();
    let (_, s3, _, _, down) = stats.snapshot();
    assert_eq!(s3 - s2, 1);
    assert_eq!(down, 32 * 32 * 8);
    let host: f64 = field.iter().sum();
    assert!(wgpu_support::rel(total, host, 1.0) < 1e-12);
    // The loops ran ahead of the device: the profile says its times are the host's.
    let table = ops.profile_table();
    assert!(
        table.contains(ops_core::profile::RUNS_AHEAD_NOTE),
        "{table}"
    );
}
