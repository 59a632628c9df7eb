//! Benchmark workloads shared by the criterion benches in `benches/`.
//!
//! Each workload sets up its datasets once and exposes one step as a method, so a bench times only
//! the loops. Bytes moved per step count every dataset read or written once per point (the usual
//! "effective bandwidth" convention, as STREAM counts its arrays).

use ops_backends::prelude::*;

/// Bytes of the last-level cache (`/sys/devices/system/cpu/cpu0/cache/index*/size`, the largest
/// level listed), or `None` where the system does not say.
pub fn last_level_cache_bytes() -> Option<u64> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut best: Option<(u32, u64)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        let (Some(level), Some(size)) = (read("level"), read("size")) else {
            continue;
        };
        let Ok(level) = level.trim().parse::<u32>() else {
            continue;
        };
        let size = size.trim();
        let (digits, unit) = size.split_at(
            size.find(|c: char| !c.is_ascii_digit())
                .unwrap_or(size.len()),
        );
        let Ok(n) = digits.parse::<u64>() else {
            continue;
        };
        let bytes = n * match unit {
            "K" => 1 << 10,
            "M" => 1 << 20,
            "G" => 1 << 30,
            _ => 1,
        };
        if best.is_none_or(|(l, _)| level > l) {
            best = Some((level, bytes));
        }
    }
    best.map(|(_, b)| b)
}

/// A STREAM-style triad `a[i] = b[i] + s * c[i]` measured on this machine with `threads`
/// threads, in bytes per second counted as STREAM counts them (24 bytes per element: two
/// arrays read, one written). Each array holds `max(16 x the last-level cache, 128 MiB)` (so the
/// data come from memory, not cache), is split into one contiguous part per thread, and is
/// first touched by the thread that uses it; the best of `reps` timed passes counts, after one
/// untimed pass.
///
/// The stencil benchmarks report their bandwidth as a share of this figure.
pub fn stream_triad(threads: usize, reps: usize) -> f64 {
    let llc = last_level_cache_bytes().unwrap_or(32 << 20);
    let bytes_per_array = (16 * llc).max(128 << 20);
    let n = (bytes_per_array / 8) as usize;
    let threads = threads.max(1);
    let part = n.div_ceil(threads);
    let mut a = vec![0.0f64; 0];
    let mut b = vec![0.0f64; 0];
    let mut c = vec![0.0f64; 0];
    // Allocated without touching; each thread writes its part first (first touch).
    a.reserve_exact(n);
    b.reserve_exact(n);
    c.reserve_exact(n);
    let (sa, sb, sc) = (
        a.spare_capacity_mut(),
        b.spare_capacity_mut(),
        c.spare_capacity_mut(),
    );
    std::thread::scope(|scope| {
        for ((pa, pb), pc) in sa
            .chunks_mut(part)
            .zip(sb.chunks_mut(part))
            .zip(sc.chunks_mut(part))
        {
            scope.spawn(move || {
                for x in pa.iter_mut() {
                    x.write(0.0);
                }
                for x in pb.iter_mut() {
                    x.write(1.0);
                }
                for x in pc.iter_mut() {
                    x.write(2.0);
                }
            });
        }
    });
    // SAFETY: every element was written above.
    unsafe {
        a.set_len(n);
        b.set_len(n);
        c.set_len(n);
    }
    let s = 3.0;
    let mut best = f64::INFINITY;
    for rep in 0..=reps.max(1) {
        let t = std::time::Instant::now();
        std::thread::scope(|scope| {
            for ((pa, pb), pc) in a.chunks_mut(part).zip(b.chunks(part)).zip(c.chunks(part)) {
                scope.spawn(move || {
                    for ((x, y), z) in pa.iter_mut().zip(pb).zip(pc) {
                        *x = y + s * z;
                    }
                });
            }
        });
        let dt = t.elapsed().as_secs_f64();
        if rep > 0 {
            best = best.min(dt);
        }
    }
    std::hint::black_box(&a);
    24.0 * n as f64 / best
}

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
