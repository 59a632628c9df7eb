//! Steps with more than one inner level, or an inner level with one of its own: a conjugate
//! gradient solve preconditioned by a fixed number of Jacobi sweeps (a helper called before
//! the solve and in every iteration), Jacobi sweeps whose convergence is checked only every
//! few sweeps, a CG solve that recomputes its true residual every fifth iteration, and a
//! split-explicit step (fixed fast sub-steps, then an implicit solve to a tolerance).

use ops_backends::prelude::*;

use crate::cg::Cg;
use crate::jacobi::Jacobi;
use crate::kernels::*;
use crate::oracle::Ctx;

const N: i32 = 16;

/// The datasets a preconditioner application reads and writes.
struct Precond<'a> {
    kx: &'a Dat<f64>,
    z: &'a Dat<f64>,
    scratch: &'a Dat<f64>,
    pt: &'a Stencil,
    five: &'a Stencil,
}

/// z = M^-1 r: the diagonal guess, then two Jacobi sweeps of A z = r (z's halo stays zero).
fn precondition(cx: &mut Ctx, grid: &Block, m: &Precond<'_>, r: &Dat<f64>) -> Result<()> {
    let inner = [0..N, 0..N];
    cx.ops.par_loop(
        precond_diag2,
        "precond_diag",
        grid,
        inner.clone(),
        &[
            r.arg(m.pt, Read),
            m.kx.arg(m.pt, Read),
            m.z.arg(m.pt, Write),
        ],
    )?;
    for _ in 0..2 {
        cx.ops.par_loop(
            precond_sweep2,
            "precond_sweep",
            grid,
            inner.clone(),
            &[
                r.arg(m.pt, Read),
                m.z.arg(m.five, Read),
                m.kx.arg(m.pt, Read),
                m.scratch.arg(m.pt, Write),
            ],
        )?;
        cx.ops.par_loop(
            copy2,
            "precond_copy",
            grid,
            inner.clone(),
            &[m.scratch.arg(m.pt, Read), m.z.arg(m.pt, Write)],
        )?;
    }
    Ok(())
}

/// Implicit diffusion solved by preconditioned CG in every step: the preconditioner (a helper
/// of five loops, two of them a fixed sub-cycle) runs once before the iterations and once in
/// each; the iterations stop on the residual's norm, checked after the update; the total is
/// fetched every third step.
pub fn preconditioned_cg(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let cg = Cg::new(cx, N)?;
    let ops = &mut cx.ops;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let z = ops.dat::<f64, 2>(&cg.grid, "z", n, h)?;
    let scratch = ops.dat::<f64, 2>(&cg.grid, "z_next", n, h)?;
    let rz = ops.reduction::<f64>("rz", ReduceOp::Sum);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let (grid, pt) = (&cg.grid, &cg.pt);
    let all = [-1..N + 1, -1..N + 1];
    ops.par_loop(zero_halo2, "zero_z", grid, all, &[z.arg(pt, Write)])?;
    let m = Precond {
        kx: &cg.kx,
        z: &z,
        scratch: &scratch,
        pt,
        five: &cg.five,
    };
    // r.z, the preconditioned residual's norm.
    let dot_rz = |cx: &mut Ctx, name: &str| -> Result<f64> {
        cx.ops.par_loop(
            dot2,
            name,
            grid,
            cg.inner(),
            &[cg.r.arg(pt, Read), z.arg(pt, Read), rz.arg()],
        )?;
        cx.result(&rz)
    };
    for step in 0..12u32 {
        cx.step();
        let mut res = cg.start(cx)?;
        precondition(cx, grid, &m, &cg.r)?;
        cx.ops.par_loop(
            copy2,
            "p_from_z",
            grid,
            cg.inner(),
            &[z.arg(pt, Read), cg.p.arg(pt, Write)],
        )?;
        let mut rho = dot_rz(cx, "rz_first")?;
        let mut it = 0;
        while res > 1e-8 && it < 40 {
            cg.apply_p(cx)?;
            res = cg.step(cx, rho)?;
            it += 1;
            if res <= 1e-8 {
                break;
            }
            precondition(cx, grid, &m, &cg.r)?;
            let next = dot_rz(cx, "rz")?;
            cg.direction(cx, &z, next / rho)?;
            rho = next;
        }
        if step % 3 == 2 {
            cx.ops.par_loop(
                total2,
                "total",
                grid,
                cg.inner(),
                &[cg.u.arg(pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    let mut dats = cg.dats();
    dats.extend([z, scratch]);
    Ok(dats)
}

/// Implicit diffusion with a source switched on at step 4: every step adds the source, saves
/// the field and runs Jacobi sweeps (buffers swapped by handle, periodic in x), checking the
/// change only every fourth sweep; the peak is fetched every fifth step.
pub fn jacobi_checked_every_few_sweeps(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let ops = &mut cx.ops;
    let grid = ops.block("plate", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut un = ops.dat::<f64, 2>(&grid, "u_next", n, h)?;
    let old = ops.dat::<f64, 2>(&grid, "u_old", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let xp = ops.stencil("xp", &[[1, 0]])?;
    let xm = ops.stencil("xm", &[[-1, 0]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let peak = ops.reduction::<f64>("peak", ReduceOp::Max);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    ops.par_loop(
        nl_init2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    ops.par_loop(
        nl_conductivity2,
        "conductivity",
        &grid,
        all.clone(),
        &[u.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
    // Both buffers hold the fixed boundary values in y.
    ops.par_loop(
        nl_init2,
        "init_next",
        &grid,
        all,
        &[Arg::idx(), un.arg(&pt, Write)],
    )?;
    for step in 0..14u32 {
        cx.step();
        let strength = if step >= 4 { 2.0 } else { 0.0 };
        let ops = &mut cx.ops;
        ops.par_loop(
            disc_source2,
            "source",
            &grid,
            inner.clone(),
            &[Arg::idx(), u.arg(&pt, ReadWrite), Arg::global(strength)],
        )?;
        ops.par_loop(
            copy2,
            "save_old",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), old.arg(&pt, Write)],
        )?;
        let mut sweeps = 0;
        loop {
            let ops = &mut cx.ops;
            ops.par_loop(
                periodic_xm2,
                "periodic_lo",
                &grid,
                [-1..0, 0..N],
                &[u.arg(&xp, Read), u.arg(&pt, Write)],
            )?;
            ops.par_loop(
                periodic_xp2,
                "periodic_hi",
                &grid,
                [N..N + 1, 0..N],
                &[u.arg(&xm, Read), u.arg(&pt, Write)],
            )?;
            ops.par_loop(
                nl_sweep2,
                "sweep",
                &grid,
                inner.clone(),
                &[
                    u.arg(&five, Read),
                    old.arg(&pt, Read),
                    k.arg(&pt, Read),
                    un.arg(&pt, Write),
                ],
            )?;
            sweeps += 1;
            let done = if sweeps % 4 == 0 {
                cx.ops.par_loop(
                    nl_change2,
                    "change",
                    &grid,
                    inner.clone(),
                    &[u.arg(&pt, Read), un.arg(&pt, Read), change.arg()],
                )?;
                cx.result(&change)? < 1e-6 || sweeps >= 60
            } else {
                false
            };
            std::mem::swap(&mut u, &mut un);
            if done {
                break;
            }
        }
        if step % 5 == 4 {
            cx.ops.par_loop(
                peak2,
                "peak",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), peak.arg()],
            )?;
            cx.result(&peak)?;
        }
    }
    cx.end();
    Ok(vec![u, un, old, k])
}

/// Implicit diffusion by CG, the residual recomputed from the operator every fifth iteration
/// (against round-off drift), which adds two loops to those iterations; the field's total is
/// fetched after every step.
pub fn cg_with_residual_replacement(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let cg = Cg::new(cx, N)?;
    let total = cx.ops.reduction::<f64>("total", ReduceOp::Sum);
    let (grid, pt) = (&cg.grid, &cg.pt);
    for _ in 0..12u32 {
        cx.step();
        let mut rho = cg.start(cx)?;
        let mut it = 0;
        while rho > 1e-10 && it < 60 {
            cg.apply_p(cx)?;
            let mut next = cg.step(cx, rho)?;
            it += 1;
            if it % 5 == 0 {
                cx.ops.par_loop(
                    apply2,
                    "apply_replace",
                    grid,
                    cg.inner(),
                    &[
                        cg.u.arg(&cg.five, Read),
                        cg.kx.arg(pt, Read),
                        cg.w.arg(pt, Write),
                    ],
                )?;
                cx.ops.par_loop(
                    true_residual2,
                    "replace_residual",
                    grid,
                    cg.inner(),
                    &[
                        cg.rhs.arg(pt, Read),
                        cg.w.arg(pt, Read),
                        cg.r.arg(pt, Write),
                        cg.rr.arg(),
                    ],
                )?;
                next = cx.result(&cg.rr)?;
            }
            cg.direction(cx, &cg.r, next / rho)?;
            rho = next;
        }
        cx.ops.par_loop(
            total2,
            "total",
            grid,
            cg.inner(),
            &[cg.u.arg(pt, Read), total.arg()],
        )?;
        cx.result(&total)?;
    }
    cx.end();
    Ok(cg.dats())
}

/// A split-explicit step: the slow tendency once, three fast sub-steps with it (each a step
/// into a scratch buffer and a copy back, periodic in x), then implicit smoothing solved by
/// Jacobi sweeps to a tolerance (buffers swapped by handle), the field's peak fetched after
/// every step.
pub fn split_explicit_then_implicit(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let ops = &mut cx.ops;
    let grid = ops.block("channel", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut un = ops.dat::<f64, 2>(&grid, "u_next", n, h)?;
    let old = ops.dat::<f64, 2>(&grid, "u_old", n, h)?;
    let tend = ops.dat::<f64, 2>(&grid, "tendency", n, h)?;
    let fast = ops.dat::<f64, 2>(&grid, "fast", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let xp = ops.stencil("xp", &[[1, 0]])?;
    let xm = ops.stencil("xm", &[[-1, 0]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let peak = ops.reduction::<f64>("peak", ReduceOp::Max);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    for d in [&u, &un] {
        ops.par_loop(
            nl_init2,
            "init",
            &grid,
            all.clone(),
            &[Arg::idx(), d.arg(&pt, Write)],
        )?;
    }
    ops.par_loop(
        nl_conductivity2,
        "conductivity",
        &grid,
        all.clone(),
        &[u.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
    let periodic = |cx: &mut Ctx, q: &Dat<f64>| -> Result<()> {
        cx.ops.par_loop(
            periodic_xm2,
            "periodic_lo",
            &grid,
            [-1..0, 0..N],
            &[q.arg(&xp, Read), q.arg(&pt, Write)],
        )?;
        cx.ops.par_loop(
            periodic_xp2,
            "periodic_hi",
            &grid,
            [N..N + 1, 0..N],
            &[q.arg(&xm, Read), q.arg(&pt, Write)],
        )
    };
    for _ in 0..12u32 {
        cx.step();
        periodic(cx, &u)?;
        cx.ops.par_loop(
            slow_tendency2,
            "slow",
            &grid,
            inner.clone(),
            &[u.arg(&five, Read), tend.arg(&pt, Write)],
        )?;
        for _ in 0..3 {
            cx.ops.par_loop(
                fast_step2,
                "fast_step",
                &grid,
                inner.clone(),
                &[
                    u.arg(&five, Read),
                    tend.arg(&pt, Read),
                    fast.arg(&pt, Write),
                    Arg::global(0.1),
                ],
            )?;
            cx.ops.par_loop(
                copy2,
                "fast_copy",
                &grid,
                inner.clone(),
                &[fast.arg(&pt, Read), u.arg(&pt, Write)],
            )?;
            periodic(cx, &u)?;
        }
        cx.ops.par_loop(
            copy2,
            "save_old",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), old.arg(&pt, Write)],
        )?;
        let mut sweeps = 0;
        loop {
            cx.ops.par_loop(
                nl_sweep2,
                "sweep",
                &grid,
                inner.clone(),
                &[
                    u.arg(&five, Read),
                    old.arg(&pt, Read),
                    k.arg(&pt, Read),
                    un.arg(&pt, Write),
                ],
            )?;
            periodic(cx, &un)?;
            cx.ops.par_loop(
                nl_change2,
                "change",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), un.arg(&pt, Read), change.arg()],
            )?;
            std::mem::swap(&mut u, &mut un);
            sweeps += 1;
            if cx.result(&change)? < 1e-7 || sweeps >= 80 {
                break;
            }
        }
        cx.ops.par_loop(
            peak2,
            "peak",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), peak.arg()],
        )?;
        cx.result(&peak)?;
    }
    cx.end();
    Ok(vec![u, un, old, tend, fast, k])
}

/// Two Jacobi solves per step through one helper (its own call sites, run on two fields): the
/// temperature's iterates on data; the correction's right-hand side stays zero, so it
/// converges in one sweep every step. The correction is added to the field, whose total is
/// fetched every third step.
pub fn a_second_solve_that_always_converges_at_once(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let ops = &mut cx.ops;
    let grid = ops.block("plate", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut un = ops.dat::<f64, 2>(&grid, "u_next", n, h)?;
    let old = ops.dat::<f64, 2>(&grid, "u_old", n, h)?;
    let mut c = ops.dat::<f64, 2>(&grid, "correction", n, h)?;
    let mut cn = ops.dat::<f64, 2>(&grid, "correction_next", n, h)?;
    let rhs = ops.dat::<f64, 2>(&grid, "correction_rhs", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    for d in [&u, &un] {
        ops.par_loop(
            nl_init2,
            "init",
            &grid,
            all.clone(),
            &[Arg::idx(), d.arg(&pt, Write)],
        )?;
    }
    for d in [&c, &cn, &rhs] {
        ops.par_loop(zero_halo2, "zero", &grid, all.clone(), &[d.arg(&pt, Write)])?;
    }
    ops.par_loop(
        nl_conductivity2,
        "conductivity",
        &grid,
        all,
        &[u.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
    // One helper for both solves: its call sites run on the two fields.
    let solve = Jacobi {
        grid: &grid,
        k: &k,
        pt: &pt,
        five: &five,
        change: &change,
        inner: inner.clone(),
        names: ["sweep", "change"],
        tol: 1e-8,
        max: 60,
    };
    for step in 0..14u32 {
        cx.step();
        cx.ops.par_loop(
            copy2,
            "save_old",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), old.arg(&pt, Write)],
        )?;
        solve.solve(cx, &mut u, &mut un, &old)?;
        solve.solve(cx, &mut c, &mut cn, &rhs)?;
        cx.ops.par_loop(
            blend2,
            "correct",
            &grid,
            inner.clone(),
            &[c.arg(&pt, Read), u.arg(&pt, ReadWrite), Arg::global(0.5)],
        )?;
        if step % 3 == 2 {
            cx.ops.par_loop(
                total2,
                "total",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    Ok(vec![u, un, old, c, cn, rhs, k])
}

/// An IMEX Runge-Kutta step of three stages, each an explicit update from the stage's slow
/// tendency (the stage's coefficients passed as global constants) and an implicit diffusion
/// solve by Jacobi sweeps to a tolerance (buffers swapped by handle): a fixed inner loop of
/// stages around an inner loop that iterates on data. The total is fetched after each step.
pub fn imex_stages_each_with_a_solve(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let ops = &mut cx.ops;
    let grid = ops.block("column", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut un = ops.dat::<f64, 2>(&grid, "u_next", n, h)?;
    let old = ops.dat::<f64, 2>(&grid, "u_old", n, h)?;
    let stage = ops.dat::<f64, 2>(&grid, "stage_rhs", n, h)?;
    let tend = ops.dat::<f64, 2>(&grid, "tendency", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    for d in [&u, &un] {
        ops.par_loop(
            nl_init2,
            "init",
            &grid,
            all.clone(),
            &[Arg::idx(), d.arg(&pt, Write)],
        )?;
    }
    ops.par_loop(
        zero_halo2,
        "zero",
        &grid,
        all.clone(),
        &[tend.arg(&pt, Write)],
    )?;
    ops.par_loop(
        nl_conductivity2,
        "conductivity",
        &grid,
        all,
        &[u.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
    let (a, b) = ([0.0, 0.75, 1.0 / 3.0], [1.0, 0.25, 2.0 / 3.0]);
    let stage_solve = Jacobi {
        grid: &grid,
        k: &k,
        pt: &pt,
        five: &five,
        change: &change,
        inner: inner.clone(),
        names: ["stage_sweep", "stage_change"],
        tol: 1e-7,
        max: 60,
    };
    for _ in 0..12u32 {
        cx.step();
        cx.ops.par_loop(
            copy2,
            "save_old",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), old.arg(&pt, Write)],
        )?;
        for s in 0..3 {
            cx.ops.par_loop(
                slow_tendency2,
                "tendency",
                &grid,
                inner.clone(),
                &[u.arg(&five, Read), tend.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                copy2,
                "stage_start",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), stage.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                rk_update2,
                "stage_explicit",
                &grid,
                inner.clone(),
                &[
                    old.arg(&pt, Read),
                    tend.arg(&pt, Read),
                    stage.arg(&pt, ReadWrite),
                    Arg::global(a[s]),
                    Arg::global(b[s]),
                ],
            )?;
            stage_solve.solve(cx, &mut u, &mut un, &stage)?;
        }
        cx.ops.par_loop(
            total2,
            "total",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), total.arg()],
        )?;
        cx.result(&total)?;
    }
    cx.end();
    Ok(vec![u, un, old, stage, tend, k])
}
