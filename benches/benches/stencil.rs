//! Stencil bandwidth and par_loop call overhead, per backend.
//!
//! `cargo bench -p ops-benches` prints criterion's throughput (effective bandwidth: bytes read and
//! written once per point) and, after each group, the figure as a share of this machine's
//! 2-thread STREAM triad, measured first by `ops_benches::stream_triad` (arrays 16 x the
//! last-level cache, best of 10).
//!
//! Backends: rayon, seq and wgpu. A sample is a batch of steps followed by one `synchronize`, so
//! the wgpu figures include the device finishing its work. Without an adapter offering f64 the
//! wgpu groups are skipped with a note; on Mesa's llvmpipe (a CPU pretending to be a GPU) they
//! measure that emulation, not a GPU, and the sizes shrink to what its 128 MiB buffers hold.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ops_benches::{runtime, stream_triad, Stencil2d, Stencil3d};
use ops_core::{BackendKind, Ops, Result};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const THREADS: usize = 2;

/// Every backend; `wgpu` is skipped with a note when the machine has no adapter offering f64
/// (on Mesa's software llvmpipe its figures measure a CPU emulating a GPU, not a GPU).
const BACKENDS: [BackendKind; 3] = [BackendKind::Rayon, BackendKind::Seq, BackendKind::Wgpu];

/// This machine's 2-thread STREAM triad, measured once per run (bytes per second).
fn stream() -> f64 {
    static STREAM: OnceLock<f64> = OnceLock::new();
    *STREAM.get_or_init(|| {
        let rate = stream_triad(THREADS, 10);
        println!(
            "STREAM triad on this machine: {:.1} GB/s ({THREADS} threads)",
            rate / 1e9
        );
        rate
    })
}

fn report(label: &str, bytes: u64, mut step: impl FnMut(), mut sync: impl FnMut()) {
    // A direct measurement beside criterion's, to print the ratio to STREAM.
    step();
    sync();
    // Best of five timings of ten steps each (the machine may be shared).
    let reps = 10;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            step();
        }
        sync();
        best = best.min(t.elapsed().as_secs_f64());
    }
    let rate = bytes as f64 * reps as f64 / best;
    println!(
        "{label}: {:.2} GB/s = {:.0} % of STREAM triad ({} threads)",
        rate / 1e9,
        100.0 * rate / stream(),
        THREADS
    );
}

/// The workload `make` builds for the first size in `sizes` the backend can hold (a software
/// device may allow smaller buffers than the CPU benchmark sizes need), or `None` with a note.
fn build<W>(
    backend: BackendKind,
    sizes: &[usize],
    make: impl Fn(Ops, usize) -> Result<W>,
) -> Option<(usize, W)> {
    for &n in sizes {
        let ops = match runtime(backend, THREADS) {
            Ok(o) => o,
            Err(e) => {
                println!("{backend}: skipped: {e}");
                return None;
            }
        };
        match make(ops, n) {
            Ok(w) => return Some((n, w)),
            Err(e) => println!("{backend} at n = {n}: {e}"),
        }
    }
    None
}

/// `iters` steps, then one synchronize: what a sample costs on every backend.
fn timed(iters: u64, step: &mut dyn FnMut(), sync: &mut dyn FnMut()) -> Duration {
    let t = Instant::now();
    for _ in 0..iters {
        step();
    }
    sync();
    t.elapsed()
}

fn stencils(c: &mut Criterion) {
    stream();
    for backend in BACKENDS {
        let sizes: &[usize] = match backend {
            BackendKind::Wgpu => &[4096, 2048],
            _ => &[4096],
        };
        if let Some((n, s2)) = build(backend, sizes, Stencil2d::new) {
            let label = format!("stencil_2d_{n}/{backend}");
            let mut g = c.benchmark_group(&label);
            g.throughput(Throughput::Bytes(s2.bytes_per_step()));
            g.sample_size(20);
            let bytes = s2.bytes_per_step();
            let s2 = std::cell::RefCell::new(s2);
            g.bench_function("5-point", |b| {
                b.iter_custom(|iters| {
                    timed(iters, &mut || s2.borrow_mut().step().unwrap(), &mut || {
                        s2.borrow_mut().ops().synchronize().unwrap()
                    })
                })
            });
            g.finish();
            report(
                &label,
                bytes,
                || s2.borrow_mut().step().unwrap(),
                || s2.borrow_mut().ops().synchronize().unwrap(),
            );
        }

        let sizes: &[usize] = match backend {
            BackendKind::Wgpu => &[256, 192],
            _ => &[256],
        };
        if let Some((n, s3)) = build(backend, sizes, Stencil3d::new) {
            let label = format!("stencil_3d_{n}/{backend}");
            let mut g = c.benchmark_group(&label);
            g.throughput(Throughput::Bytes(s3.bytes_per_step()));
            g.sample_size(20);
            let bytes = s3.bytes_per_step();
            let s3 = std::cell::RefCell::new(s3);
            g.bench_function("7-point", |b| {
                b.iter_custom(|iters| {
                    timed(iters, &mut || s3.borrow_mut().step().unwrap(), &mut || {
                        s3.borrow_mut().ops().synchronize().unwrap()
                    })
                })
            });
            g.finish();
            report(
                &label,
                bytes,
                || s3.borrow_mut().step().unwrap(),
                || s3.borrow_mut().ops().synchronize().unwrap(),
            );
        }
    }
}

fn overhead(c: &mut Criterion) {
    for backend in BACKENDS {
        let Some((_, s)) = build(backend, &[64], Stencil2d::new) else {
            continue;
        };
        let s = std::cell::RefCell::new(s);
        // Per call, amortised over a batch (on wgpu: recording, not waiting).
        c.bench_function(&format!("par_loop_8x8/{backend}"), |b| {
            b.iter_custom(|iters| {
                timed(
                    iters,
                    &mut || s.borrow_mut().small_loop().unwrap(),
                    &mut || s.borrow_mut().ops().synchronize().unwrap(),
                )
            })
        });
        if backend == BackendKind::Wgpu {
            // A loop the host waits for: the round trip to the device.
            c.bench_function("par_loop_8x8_synchronized/wgpu", |b| {
                b.iter(|| {
                    let mut s = s.borrow_mut();
                    s.small_loop().unwrap();
                    s.ops().synchronize().unwrap();
                })
            });
        }
    }
}

criterion_group!(benches, stencils, overhead);
criterion_main!(benches);
