//! The stencil benchmarks' headline figures without criterion, in seconds: this machine's
//! STREAM triad and the 2-D and 3-D stencils on the rayon backend as a share of it (three
//! rounds of each in turn, best of each).
//!
//! `cargo run --release -p ops-benches --example bandwidth [-- THREADS]`

use ops_benches::{runtime, stream_triad, Stencil2d, Stencil3d};
use ops_core::{BackendKind, Result};
use std::time::Instant;

/// Best of five timings of ten steps: bytes per second.
fn rate(bytes: u64, mut step: impl FnMut() -> Result<()>) -> Result<f64> {
    step()?;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..10 {
            step()?;
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(bytes as f64 * 10.0 / best)
}

fn main() -> Result<()> {
    let threads: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    // This machine's bandwidth drifts (neighbours share its memory): STREAM and the stencils
    // are measured in turns, three rounds, and the best of each counts.
    let mut s3 = Stencil3d::new(runtime(BackendKind::Rayon, threads)?, 256)?;
    let mut s2 = Stencil2d::new(runtime(BackendKind::Rayon, threads)?, 4096)?;
    let (mut stream, mut r3, mut r2) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..3 {
        stream = stream.max(stream_triad(threads, 5));
        let bytes = s3.bytes_per_step();
        r3 = r3.max(rate(bytes, || s3.step())?);
        let bytes = s2.bytes_per_step();
        r2 = r2.max(rate(bytes, || s2.step())?);
    }
    println!("STREAM triad: {:.1} GB/s ({threads} threads)", stream / 1e9);
    for (label, r) in [("stencil_3d_256/rayon", r3), ("stencil_2d_4096/rayon", r2)] {
        println!(
            "{label}: {:.1} GB/s = {:.0} % of STREAM",
            r / 1e9,
            100.0 * r / stream
        );
    }
    Ok(())
}
