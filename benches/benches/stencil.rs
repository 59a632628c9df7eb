//! Stencil bandwidth and par_loop call overhead, per backend.
//!
//! `cargo bench -p ops-benches` prints criterion's throughput (effective bandwidth: bytes read and
//! written once per point) and, after each group, the figure as a share of the machine's 2-thread
//! STREAM triad (21.5 GB/s, `../shared/reference/README.md`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ops_benches::{runtime, Stencil2d, Stencil3d, STREAM_TRIAD_2T};
use ops_core::BackendKind;
use std::time::Instant;

const THREADS: usize = 2;

fn report(label: &str, bytes: u64, mut step: impl FnMut()) {
    // A direct measurement beside criterion's, to print the ratio to STREAM.
    step();
    let reps = 10;
    let t = Instant::now();
    for _ in 0..reps {
        step();
    }
    let rate = bytes as f64 * reps as f64 / t.elapsed().as_secs_f64();
    println!(
        "{label}: {:.2} GB/s = {:.0} % of STREAM triad ({} threads)",
        rate / 1e9,
        100.0 * rate / STREAM_TRIAD_2T,
        THREADS
    );
}

fn stencils(c: &mut Criterion) {
    for backend in [BackendKind::Rayon, BackendKind::Seq] {
        let mut s2 = Stencil2d::new(runtime(backend, THREADS).unwrap(), 4096).unwrap();
        let mut g = c.benchmark_group(format!("stencil_2d_4096/{backend}"));
        g.throughput(Throughput::Bytes(s2.bytes_per_step()));
        g.sample_size(20);
        g.bench_function("5-point", |b| b.iter(|| s2.step().unwrap()));
        g.finish();
        report(
            &format!("stencil_2d_4096/{backend}"),
            s2.bytes_per_step(),
            || s2.step().unwrap(),
        );
        drop(s2);

        let mut s3 = Stencil3d::new(runtime(backend, THREADS).unwrap(), 256).unwrap();
        let mut g = c.benchmark_group(format!("stencil_3d_256/{backend}"));
        g.throughput(Throughput::Bytes(s3.bytes_per_step()));
        g.sample_size(20);
        g.bench_function("7-point", |b| b.iter(|| s3.step().unwrap()));
        g.finish();
        report(
            &format!("stencil_3d_256/{backend}"),
            s3.bytes_per_step(),
            || s3.step().unwrap(),
        );
    }
}

fn overhead(c: &mut Criterion) {
    for backend in [BackendKind::Rayon, BackendKind::Seq] {
        let mut s = Stencil2d::new(runtime(backend, THREADS).unwrap(), 64).unwrap();
        c.bench_function(&format!("par_loop_8x8/{backend}"), |b| {
            b.iter(|| s.small_loop().unwrap())
        });
    }
}

criterion_group!(benches, stencils, overhead);
criterion_main!(benches);
