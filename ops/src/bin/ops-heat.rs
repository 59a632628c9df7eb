//! `ops-heat`: a small heat-diffusion program on the `ops` facade, with no checkpoint code;
//! the `--ops-checkpoint-*` flags are its whole resilience interface. The tests of the facade
//! kill it and restart it.
//!
//! Each step computes a stable time step from a reduction, smooths the temperature a data-
//! dependent number of times (until the change falls below a tolerance, at most 4), applies
//! reflective boundaries by halo copies, and records the total energy. The output file holds
//! every value the program saw, as bit patterns, so two runs compare exactly.

use std::io::Write as _;

use clap::Parser;
use ops::prelude::*;

#[kernel]
fn init_temp(idx: Idx, t: Write<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    t[(0, 0)] = if (x - 20.0) * (x - 20.0) + (y - 12.0) * (y - 12.0) < 40.0 {
        10.0
    } else {
        0.1 * x
    };
}

#[kernel]
fn init_cond(idx: Idx, k: Write<f64>) {
    k[(0, 0)] = 0.5 + 0.01 * ((idx[0] * 3 + idx[1] * 5) % 17) as f64;
}

#[kernel]
fn max_cond(k: Read<f64>, m: Max<f64>) {
    m.update(k[(0, 0)]);
}

#[kernel]
fn diffuse(t: Read<f64>, k: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = t[(0, 0)]
        + dt * k[(0, 0)] * (t[(1, 0)] + t[(-1, 0)] + t[(0, 1)] + t[(0, -1)] - 4.0 * t[(0, 0)]);
}

#[kernel]
fn change(a: Read<f64>, b: Read<f64>, m: Max<f64>) {
    m.update((a[(0, 0)] - b[(0, 0)]).abs());
}

#[kernel]
fn copy(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, 0)];
}

#[kernel]
fn reflect_x(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(1, 0)];
}

#[kernel]
fn reflect_mx(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(-1, 0)];
}

#[kernel]
fn reflect_y(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, 1)];
}

#[kernel]
fn reflect_my(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, -1)];
}

#[kernel]
fn energy(t: Read<f64>, s: Sum<f64>) {
    s += t[(0, 0)];
}

/// Command line.
#[derive(Parser, Debug)]
#[command(
    name = "ops-heat",
    about = "Heat diffusion on the ops EDSL (a resilience demo)"
)]
struct Cli {
    /// Cells per side.
    #[arg(long, default_value_t = 48)]
    n: i32,
    /// Time steps.
    #[arg(long, default_value_t = 30)]
    steps: u32,
    /// Each step's inner solve sweeps (4 at most) until the largest change is below this: 0
    /// always sweeps 4 times (30 loops per step instead of 9 on 64x64).
    #[arg(long, default_value_t = 0.05, value_parser = parse_tol)]
    tol: f64,
    /// Write every value the program saw (bit patterns, one per line) to this file.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Runtime and checkpoint flags.
    #[command(flatten)]
    ops: OpsArgs,
}

/// `--tol`: a finite number, not negative.
fn parse_tol(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        Ok(_) => Err(format!(
            "{s} is not a tolerance (a finite number, 0 or more)"
        )),
        Err(e) => Err(format!("{s}: {e}")),
    }
}

fn run(cli: &Cli) -> Result<Vec<u64>> {
    let n = cli.n;
    let mut ops = ops_from_args(&cli.ops)?;
    // What decides the computation (not --steps: a restart may run further).
    ops.input_fingerprint("parameters", format!("n={n} tol={}", cli.tol).as_bytes())?;
    let grid = ops.block("plate", 2)?;
    let h = Halo::uniform(1);
    let t = ops.dat::<f64, 2>(&grid, "temperature", [n as usize; 2], h)?;
    let tn = ops.dat::<f64, 2>(&grid, "temperature_new", [n as usize; 2], h)?;
    let k = ops.dat::<f64, 2>(&grid, "conductivity", [n as usize; 2], h)?;
    let pt = ops.stencil("S00", &[[0, 0]])?;
    let five = ops.stencil("S5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let (px, mx) = (
        ops.stencil("SP10", &[[1, 0]])?,
        ops.stencil("SM10", &[[-1, 0]])?,
    );
    let (py, my) = (
        ops.stencil("S0P1", &[[0, 1]])?,
        ops.stencil("S0M1", &[[0, -1]])?,
    );
    let kmax = ops.reduction::<f64>("kmax", ReduceOp::Max);
    let dmax = ops.reduction::<f64>("dmax", ReduceOp::Max);
    let total = ops.reduction::<f64>("energy", ReduceOp::Sum);
    let all = [-1..n + 1, -1..n + 1];
    let inner = [0..n, 0..n];
    let mut seen = Vec::new();

    ops.par_loop(
        init_cond,
        "init_cond",
        &grid,
        all.clone(),
        &[Arg::idx(), k.arg(&pt, Write)],
    )?;
    ops.par_loop(
        init_temp,
        "init_temp",
        &grid,
        all,
        &[Arg::idx(), t.arg(&pt, Write)],
    )?;
    for step in 0..cli.steps {
        ops.par_loop(
            max_cond,
            "max_cond",
            &grid,
            inner.clone(),
            &[k.arg(&pt, Read), kmax.arg()],
        )?;
        let km = ops.reduction_result(&kmax)?;
        let dt = 0.2 / km * (1.0 + 0.1 * (step % 3) as f64);
        seen.push(dt.to_bits());
        for _ in 0..4 {
            ops.par_loop(
                diffuse,
                "diffuse",
                &grid,
                inner.clone(),
                &[
                    t.arg(&five, Read),
                    k.arg(&pt, Read),
                    tn.arg(&pt, Write),
                    Arg::global(dt),
                ],
            )?;
            ops.par_loop(
                change,
                "change",
                &grid,
                inner.clone(),
                &[t.arg(&pt, Read), tn.arg(&pt, Read), dmax.arg()],
            )?;
            ops.par_loop(
                copy,
                "copy_back",
                &grid,
                inner.clone(),
                &[tn.arg(&pt, Read), t.arg(&pt, Write)],
            )?;
            // Reflective boundaries: halo strips copied from inside the same dataset.
            ops.par_loop(
                reflect_x,
                "halo_left",
                &grid,
                [-1..0, 0..n],
                &[t.arg(&px, Read), t.arg(&pt, Write)],
            )?;
            ops.par_loop(
                reflect_mx,
                "halo_right",
                &grid,
                [n..n + 1, 0..n],
                &[t.arg(&mx, Read), t.arg(&pt, Write)],
            )?;
            ops.par_loop(
                reflect_y,
                "halo_bottom",
                &grid,
                [-1..n + 1, -1..0],
                &[t.arg(&py, Read), t.arg(&pt, Write)],
            )?;
            ops.par_loop(
                reflect_my,
                "halo_top",
                &grid,
                [-1..n + 1, n..n + 1],
                &[t.arg(&my, Read), t.arg(&pt, Write)],
            )?;
            let d = ops.reduction_result(&dmax)?;
            seen.push(d.to_bits());
            if d < cli.tol {
                break;
            }
        }
        ops.par_loop(
            energy,
            "energy",
            &grid,
            inner.clone(),
            &[t.arg(&pt, Read), total.arg()],
        )?;
        seen.push(ops.reduction_result(&total)?.to_bits());
    }
    let field = ops.fetch_range(&t, [-1..n + 1, -1..n + 1])?;
    seen.extend(field.iter().map(|v| v.to_bits()));
    ops.finish()?;
    Ok(seen)
}

fn main() {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(seen) => {
            if let Some(path) = &cli.out {
                let text: String = seen.iter().map(|v| format!("{v:016x}\n")).collect();
                if let Err(e) =
                    std::fs::File::create(path).and_then(|mut f| f.write_all(text.as_bytes()))
                {
                    eprintln!("ops-heat: error: --out {}: {e}", path.display());
                    std::process::exit(1);
                }
            }
        }
        Err(e) => {
            eprintln!("ops-heat: error: {e}");
            std::process::exit(1);
        }
    }
}
