//! Small programs written against the EDSL.
//!
//! [`laplace`] solves Laplace's equation on the unit square with Jacobi iteration: every grid
//! computation is a `par_loop` of a `#[kernel]`, boundary values enter through `set_range`, and the
//! convergence test is a `Max` reduction. With `u = sin(pi x)` on the top edge and zero elsewhere
//! the exact solution is `sin(pi x) sinh(pi y) / sinh(pi)`, so the answer can be checked.

use ops_backends::prelude::*;
use std::f64::consts::PI;

#[kernel]
fn jacobi_sweep(u: Read<f64>, u_new: Write<f64>, change: Max<f64>) {
    let v = 0.25 * (u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)]);
    u_new[(0, 0)] = v;
    change.update((v - u[(0, 0)]).abs());
}

#[kernel]
fn error_vs_exact(u: Read<f64>, exact: Read<f64>, err: Max<f64>) {
    err.update((u[(0, 0)] - exact[(0, 0)]).abs());
}

/// The exact solution at grid point `(i, j)` of an `n` x `n` interior grid.
pub fn exact(n: usize, i: i32, j: i32) -> f64 {
    let h = 1.0 / (n as f64 + 1.0);
    let (x, y) = ((i + 1) as f64 * h, (j + 1) as f64 * h);
    (PI * x).sin() * (PI * y).sinh() / PI.sinh()
}

/// What a solve produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// Sweeps performed.
    pub iterations: usize,
    /// Largest change in the last sweep.
    pub last_change: f64,
    /// Largest difference from the exact solution.
    pub max_error: f64,
    /// The interior values, x fastest.
    pub u: Vec<f64>,
}

/// Jacobi iteration on an `n` x `n` interior grid until the largest change in a sweep is below
/// `tol` or `max_iters` sweeps are done.
pub fn laplace(ops: &mut Ops, n: usize, tol: f64, max_iters: usize) -> Result<Solution> {
    let grid = ops.block("square", 2)?;
    let halo = Halo::new([-1, -1], [1, 1]);
    let mut u = ops.dat::<f64, 2>(&grid, "u", [n, n], halo)?;
    let mut u_new = ops.dat::<f64, 2>(&grid, "u_new", [n, n], halo)?;
    let exact_values: Vec<f64> = (0..n * n)
        .map(|p| exact(n, (p % n) as i32, (p / n) as i32))
        .collect();
    let exact_dat = ops.dat_with(&grid, "exact", DatSpec::new([n, n]).init(&exact_values))?;
    let five = ops.stencil("S2D_5PT", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let point = ops.stencil("S2D_00", &[[0, 0]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let err = ops.reduction::<f64>("error", ReduceOp::Max);

    // Dirichlet data in the top halo row of both buffers: sin(pi x).
    let h = 1.0 / (n as f64 + 1.0);
    let top: Vec<f64> = (0..n).map(|i| (PI * (i + 1) as f64 * h).sin()).collect();
    let nn = n as i32;
    for dat in [&u, &u_new] {
        ops.set_range(dat, [0..nn, nn..nn + 1], &top)?;
    }

    let mut iterations = 0;
    let mut last_change = f64::INFINITY;
    while iterations < max_iters && last_change >= tol {
        ops.par_loop(
            jacobi_sweep,
            "jacobi_sweep",
            &grid,
            [0..nn, 0..nn],
            &[u.arg(&five, Read), u_new.arg(&point, Write), change.arg()],
        )?;
        std::mem::swap(&mut u, &mut u_new);
        last_change = ops.reduction_result(&change)?;
        iterations += 1;
    }
    ops.par_loop(
        error_vs_exact,
        "error_vs_exact",
        &grid,
        [0..nn, 0..nn],
        &[u.arg(&point, Read), exact_dat.arg(&point, Read), err.arg()],
    )?;
    Ok(Solution {
        iterations,
        last_change,
        max_error: ops.reduction_result(&err)?,
        u: ops.fetch_data(&u)?,
    })
}
