//! Benchmark workloads shared by the criterion benches in `benches/`.
//!
//! Each workload sets up its datasets once and exposes one step as a method, so a bench times only
//! the loops. Bytes moved per step count every dataset read or written once per point (the usual
//! "effective bandwidth" convention, as STREAM counts its arrays).

use ops_backends::prelude::*;

/// STREAM-style triad bandwidth with 2 threads, in bytes per second, as measured once on the
/// machine these benchmarks were first run on (not measured where they run: a share of it means
/// something only on that machine).
pub const STREAM_TRIAD_2T: f64 = 21.5e9;

#[kernel]
fn stencil_2d(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = 0.2 * (a[(0, 0)] + a[(1, 0)] + a[(-1, 0)] + a[(0, 1)] + a[(0, -1)]);
}

#[kernel]
fn stencil_3d(a: Read<f64>, b: Write<f64>) {
    b[(0, 0, 0)] = (1.0 / 7.0)
        * (a[(0, 0, 0)]
            + a[(1, 0, 0)]
            + a[(-1, 0, 0)]
            + a[(0, 1, 0)]
            + a[(0, -1, 0)]
            + a[(0, 0, 1)]
            + a[(0, 0, -1)]);
}

#[kernel]
fn scale(a: ReadWrite<f64>) {
    a[(0, 0)] = a[(0, 0)] * 1.000001;
}

/// Builds a runtime on `backend` with `threads` threads (`BackendKind::Wgpu`: fails when the
/// machine has no adapter offering f64; the thread count does not apply).
///
/// The wgpu backend records loops and returns before they ran: time a batch of steps followed
/// by [`Ops::synchronize`] (a no-op on the host backends).
pub fn runtime(backend: BackendKind, threads: usize) -> Result<Ops> {
    ops_from_config(OpsConfig::new(backend).with_threads(Some(threads)))
}

/// A 2-D 5-point stencil over an `n` x `n` grid, ping-ponging between two datasets.
pub struct Stencil2d {
    ops: Ops,
    grid: Block,
    a: Dat<f64>,
    b: Dat<f64>,
    five: Stencil,
    point: Stencil,
    n: i32,
}

impl Stencil2d {
    /// Declares the grid and its two datasets (one-point halos).
    pub fn new(mut ops: Ops, n: usize) -> Result<Self> {
        let grid = ops.block("grid", 2)?;
        let halo = Halo::new([-1, -1], [1, 1]);
        let init: Vec<f64> = (0..n * n).map(|i| (i % 17) as f64).collect();
        let a = ops.dat_with(&grid, "a", DatSpec::new([n, n]).halo(halo).init(&init))?;
        let b = ops.dat(&grid, "b", [n, n], halo)?;
        let five = ops.stencil("S2D_5PT", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
        let point = ops.stencil("S2D_00", &[[0, 0]])?;
        Ok(Stencil2d {
            ops,
            grid,
            a,
            b,
            five,
            point,
            n: n as i32,
        })
    }

    /// One sweep a -> b, then the datasets swap roles.
    pub fn step(&mut self) -> Result<()> {
        let n = self.n;
        self.ops.par_loop(
            stencil_2d,
            "stencil_2d",
            &self.grid,
            [0..n, 0..n],
            &[self.a.arg(&self.five, Read), self.b.arg(&self.point, Write)],
        )?;
        std::mem::swap(&mut self.a, &mut self.b);
        Ok(())
    }

    /// Bytes one step moves: one read and one write per point.
    pub fn bytes_per_step(&self) -> u64 {
        2 * 8 * (self.n as u64).pow(2)
    }

    /// A tiny loop over `0..8 x 0..8`, for the per-call overhead.
    pub fn small_loop(&mut self) -> Result<()> {
        self.ops.par_loop(
            scale,
            "scale",
            &self.grid,
            [0..8, 0..8],
            &[self.a.arg(&self.point, ReadWrite)],
        )
    }

    /// The runtime, to read results or the profile.
    pub fn ops(&mut self) -> &mut Ops {
        &mut self.ops
    }
}

/// A 3-D 7-point stencil over an `n`^3 grid, ping-ponging between two datasets.
pub struct Stencil3d {
    ops: Ops,
    grid: Block,
    a: Dat<f64>,
    b: Dat<f64>,
    seven: Stencil,
    point: Stencil,
    n: i32,
}

impl Stencil3d {
    /// Declares the grid and its two datasets (one-point halos).
    pub fn new(mut ops: Ops, n: usize) -> Result<Self> {
        let grid = ops.block("grid", 3)?;
        let halo = Halo::new([-1, -1, -1], [1, 1, 1]);
        let init: Vec<f64> = (0..n * n * n).map(|i| (i % 13) as f64).collect();
        let a = ops.dat_with(&grid, "a", DatSpec::new([n, n, n]).halo(halo).init(&init))?;
        let b = ops.dat(&grid, "b", [n, n, n], halo)?;
        let seven = ops.stencil(
            "S3D_7PT",
            &[
                [0, 0, 0],
                [1, 0, 0],
                [-1, 0, 0],
                [0, 1, 0],
                [0, -1, 0],
                [0, 0, 1],
                [0, 0, -1],
            ],
        )?;
        let point = ops.stencil("S3D_000", &[[0, 0, 0]])?;
        Ok(Stencil3d {
            ops,
            grid,
            a,
            b,
            seven,
            point,
            n: n as i32,
        })
    }

    /// One sweep a -> b, then the datasets swap roles.
    pub fn step(&mut self) -> Result<()> {
        let n = self.n;
        self.ops.par_loop(
            stencil_3d,
            "stencil_3d",
            &self.grid,
            [0..n, 0..n, 0..n],
            &[
                self.a.arg(&self.seven, Read),
                self.b.arg(&self.point, Write),
            ],
        )?;
        std::mem::swap(&mut self.a, &mut self.b);
        Ok(())
    }

    /// Bytes one step moves: one read and one write per point.
    pub fn bytes_per_step(&self) -> u64 {
        2 * 8 * (self.n as u64).pow(3)
    }

    /// The runtime, to read results or the profile.
    pub fn ops(&mut self) -> &mut Ops {
        &mut self.ops
    }
}
