//! The tutorial's program (docs/tutorial.md): the 2-D heat equation on a plate held at 1 on its
//! left edge and 0 on its right edge, insulated top and bottom, stepped explicitly until it stops
//! changing. Its steady state is known (linear from wall to wall), so the run checks itself.
//!
//! `cargo run --release -p ops-examples --bin heat-tutorial -- --n 64 --ops-threads 2`

use clap::Parser;
use ops::prelude::*;
use std::process::ExitCode;

/// The plate starts cold.
#[kernel]
fn cold(t: Write<f64>) {
    t[(0, 0)] = 0.0;
}

/// One explicit step of `dT/dt = laplacian(T)` (grid spacing 1, `nu = dt / h^2`).
#[kernel]
fn diffuse(t: Read<f64>, next: Write<f64>, nu: Global<f64>) {
    next[(0, 0)] =
        t[(0, 0)] + nu * (t[(1, 0)] + t[(-1, 0)] + t[(0, 1)] + t[(0, -1)] - 4.0 * t[(0, 0)]);
}

/// The largest change of a step, for the convergence check.
#[kernel]
fn change(t: Read<f64>, next: Read<f64>, biggest: Max<f64>) {
    biggest.update((next[(0, 0)] - t[(0, 0)]).abs());
}

/// Copies the new temperature back.
#[kernel]
fn copy(next: Read<f64>, t: Write<f64>) {
    t[(0, 0)] = next[(0, 0)];
}

/// How far the temperature is from the steady state: linear between the walls' halo cells
/// (1 at cell -1, 0 at cell n), which the discrete equation holds exactly.
#[kernel]
fn error(idx: Idx, t: Read<f64>, cells: Global<f64>, worst: Max<f64>) {
    let x = (idx[0] as f64 + 1.0) / (cells + 1.0);
    worst.update((t[(0, 0)] - (1.0 - x)).abs());
}

#[derive(Parser)]
#[command(about = "The tutorial's 2-D heat equation, stepped to its steady state")]
struct Cli {
    /// Cells per side.
    #[arg(long, default_value_t = 32)]
    n: i32,
    /// Stop once no cell changes by more than this in a step.
    #[arg(long, default_value_t = 1e-7)]
    tol: f64,
    /// Stop after this many steps at most.
    #[arg(long, default_value_t = 1_000_000)]
    max_steps: u64,
    /// Draw the final temperature (colour-mapped, with a colour bar) as a PNG to this file.
    #[arg(long, value_name = "FILE")]
    snapshot_png: Option<std::path::PathBuf>,
    #[command(flatten)]
    ops: OpsArgs,
}

fn run(cli: &Cli) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let n = cli.n;
    let mut ops = ops_from_args(&cli.ops)?;
    // What decides the answer: a restart with another mesh or tolerance is refused.
    ops.input_fingerprint("parameters", format!("n={n} tol={}", cli.tol).as_bytes())?;

    let plate = ops.block("plate", 2)?;
    let t = ops.dat::<f64, 2>(&plate, "temperature", [n as usize; 2], Halo::uniform(1))?;
    let next = ops.dat::<f64, 2>(&plate, "next", [n as usize; 2], Halo::uniform(1))?;
    let here = ops.stencil("here", &[[0, 0]])?;
    let cross = ops.stencil("cross", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let biggest = ops.reduction::<f64>("biggest_change", ReduceOp::Max);
    let worst = ops.reduction::<f64>("worst_error", ReduceOp::Max);
    let inside = [0..n, 0..n];

    ops.par_loop(
        cold,
        "cold",
        &plate,
        [-1..n + 1, -1..n + 1],
        &[t.arg(&here, Write)],
    )?;
    let nu = 0.2; // below 1/4: the explicit scheme is stable
    let mut steps = 0;
    loop {
        // Boundaries into the halo: hot left wall, cold right wall, insulated top and bottom.
        ops.fill_halo(&t, Face::X_LO, 1, Boundary::Fixed(1.0))?;
        ops.fill_halo(&t, Face::X_HI, 1, Boundary::Fixed(0.0))?;
        ops.fill_halo(&t, Face::Y_LO, 1, Boundary::Copy)?;
        ops.fill_halo(&t, Face::Y_HI, 1, Boundary::Copy)?;
        // The step.
        ops.par_loop(
            diffuse,
            "diffuse",
            &plate,
            inside.clone(),
            &[t.arg(&cross, Read), next.arg(&here, Write), Arg::global(nu)],
        )?;
        ops.par_loop(
            change,
            "change",
            &plate,
            inside.clone(),
            &[t.arg(&here, Read), next.arg(&here, Read), biggest.arg()],
        )?;
        ops.par_loop(
            copy,
            "copy",
            &plate,
            inside.clone(),
            &[next.arg(&here, Read), t.arg(&here, Write)],
        )?;
        steps += 1;
        let moved = ops.reduction_result(&biggest)?;
        if moved < cli.tol || steps == cli.max_steps {
            break;
        }
    }
    ops.par_loop(
        error,
        "error",
        &plate,
        inside,
        &[
            Arg::idx(),
            t.arg(&here, Read),
            Arg::global(f64::from(n)),
            worst.arg(),
        ],
    )?;
    let err = ops.reduction_result(&worst)?;
    if let Some(path) = &cli.snapshot_png {
        let how = ops::plot::Snapshot::new().title(format!("after {steps} steps"));
        ops::plot::snapshot_png(&mut ops, &t, path, &how)?;
    }
    ops.finish()?;
    // Under mpirun every process computes the same answer; one says it.
    if ops.rank() == 0 {
        println!(
            "{n} x {n} cells, backend {}: steady after {steps} steps, largest error {err:.3e}",
            ops.backend_name()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = run(&cli);
    print_diagnostics();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("heat-tutorial: error: {e}");
            ExitCode::FAILURE
        }
    }
}
