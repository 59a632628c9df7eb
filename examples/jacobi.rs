//! Jacobi iteration for Laplace's equation on the unit square, checked against the exact solution.
//!
//! `cargo run --release -p ops-examples --example jacobi -- --n 128 --ops-threads 2`

use clap::Parser;
use ops_backends::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "2-D Jacobi solver for Laplace's equation, written against the ops EDSL")]
struct Cli {
    /// Interior points per side.
    #[arg(long, default_value_t = 128)]
    n: usize,
    /// Stop when the largest change in a sweep is below this.
    #[arg(long, default_value_t = 1e-9)]
    tol: f64,
    /// Stop after this many sweeps at most.
    #[arg(long, default_value_t = 200_000)]
    max_iters: usize,
    #[command(flatten)]
    ops: OpsArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let run = || -> Result<()> {
        let mut ops = ops_from_args(&cli.ops)?;
        let start = Instant::now();
        let s = ops_examples::laplace(&mut ops, cli.n, cli.tol, cli.max_iters)?;
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{} x {} grid, backend {} ({} threads): {} sweeps in {:.3} s, last change {:.3e}",
            cli.n,
            cli.n,
            ops.backend_name(),
            ops.threads(),
            s.iterations,
            secs,
            s.last_change
        );
        let h = 1.0 / (cli.n as f64 + 1.0);
        println!(
            "max error vs the exact solution: {:.3e} (h^2 = {:.3e})",
            s.max_error,
            h * h
        );
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
