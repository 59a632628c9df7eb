//! Programs whose time step holds a solve: Jacobi sweeps or conjugate gradients to a
//! tolerance, Picard iterations of a solve, two solves per step, a solve that opens the step,
//! time steps retried on their error, and a CG solve written with helpers.

use ops_backends::prelude::*;

use crate::boundary::Sides;
use crate::cg::Cg;
use crate::jacobi::Jacobi;
use crate::kernels::*;
use crate::oracle::Ctx;
use crate::scratch::Diffusion;

/// A 3-D implicit heat solver: conductivity computed once, every step saves the temperature
/// and solves for the new one by Jacobi sweeps to a tolerance (the trip count comes from a
/// residual reduction), the two buffers swapped by handles, reflective boundaries on every
/// face, the total energy every step, a weighted total at the end.
pub fn implicit_heat(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 10;
    let ops = &mut cx.ops;
    let grid = ops.block("cube", 3)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 3];
    let k = ops.dat::<f64, 3>(&grid, "conductivity", n, h)?;
    let mut u = ops.dat::<f64, 3>(&grid, "u", n, h)?;
    let mut un = ops.dat::<f64, 3>(&grid, "u_new", n, h)?;
    let old = ops.dat::<f64, 3>(&grid, "u_old", n, h)?;
    let pt = ops.stencil("p000", &[[0, 0, 0]])?;
    let seven = ops.stencil(
        "s7",
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
    let face = |d: usize, s: i32| {
        let mut o = [0; 3];
        o[d] = s;
        o
    };
    let sx = [
        ops.stencil("xp", &[face(0, 1)])?,
        ops.stencil("xm", &[face(0, -1)])?,
        ops.stencil("yp", &[face(1, 1)])?,
        ops.stencil("ym", &[face(1, -1)])?,
        ops.stencil("zp", &[face(2, 1)])?,
        ops.stencil("zm", &[face(2, -1)])?,
    ];
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let energy = ops.reduction::<f64>("energy", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N, 0..N];
    ops.par_loop(
        cond3,
        "conductivity",
        &grid,
        all.clone(),
        &[Arg::idx(), k.arg(&pt, Write)],
    )?;
    ops.par_loop(
        temp3,
        "initial_temperature",
        &grid,
        all,
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    for _ in 0..16 {
        cx.step();
        let ops = &mut cx.ops;
        ops.par_loop(
            copy3,
            "save_old",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), old.arg(&pt, Write)],
        )?;
        let mut sweeps = 0;
        loop {
            cx.ops.par_loop(
                jacobi3,
                "jacobi",
                &grid,
                inner.clone(),
                &[
                    u.arg(&seven, Read),
                    old.arg(&pt, Read),
                    k.arg(&pt, Read),
                    un.arg(&pt, Write),
                    Arg::global(0.4),
                ],
            )?;
            // The six faces, each over the face's whole halo layer.
            let layer = |d: usize, hi: bool| {
                let mut r = [-1..N + 1, -1..N + 1, -1..N + 1];
                r[d] = if hi { N..N + 1 } else { -1..0 };
                r
            };
            cx.ops.par_loop(
                mirror_xm,
                "bc_xm",
                &grid,
                layer(0, false),
                &[un.arg(&sx[0], Read), un.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                mirror_xp,
                "bc_xp",
                &grid,
                layer(0, true),
                &[un.arg(&sx[1], Read), un.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                mirror_ym,
                "bc_ym",
                &grid,
                layer(1, false),
                &[un.arg(&sx[2], Read), un.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                mirror_yp,
                "bc_yp",
                &grid,
                layer(1, true),
                &[un.arg(&sx[3], Read), un.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                mirror_zm,
                "bc_zm",
                &grid,
                layer(2, false),
                &[un.arg(&sx[4], Read), un.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                mirror_zp,
                "bc_zp",
                &grid,
                layer(2, true),
                &[un.arg(&sx[5], Read), un.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                change3,
                "change",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), un.arg(&pt, Read), change.arg()],
            )?;
            std::mem::swap(&mut u, &mut un);
            sweeps += 1;
            let c = cx.result(&change)?;
            if c < 0.02 || sweeps >= 30 {
                break;
            }
        }
        cx.ops.par_loop(
            total3,
            "energy",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), energy.arg()],
        )?;
        cx.result(&energy)?;
    }
    cx.end();
    cx.ops.par_loop(
        weighted3,
        "weighted_total",
        &grid,
        inner,
        &[u.arg(&pt, Read), k.arg(&pt, Read), energy.arg()],
    )?;
    cx.result(&energy)?;
    Ok(vec![k, u, un, old])
}

/// An implicit diffusion step by conjugate gradients: the right-hand side is the current
/// field, the solve runs until the residual falls below a tolerance (a varying number of
/// iterations), and the solution becomes the field.
pub fn conjugate_gradient(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let cg = Cg::new(cx, 16)?;
    for _ in 0..12u32 {
        cx.step();
        let mut rho = cg.start(cx)?;
        let mut it = 0;
        while rho > 1e-6 && it < 40 {
            cg.apply_p(cx)?;
            rho = cg.update(cx, rho)?;
            it += 1;
        }
    }
    cx.end();
    Ok(cg.dats())
}

/// Nonlinear implicit diffusion, three loops deep: every step saves the field and runs Picard
/// iterations until the iterate settles; each Picard iteration computes the conductivity of
/// the current iterate and solves the linearised step by Jacobi sweeps to a tolerance (both
/// trip counts come from reductions); the four mirror boundaries run from one call site (a
/// kernel, stencil and range per side); the field's peak is fetched every 4 steps; the total
/// after the time loop.
pub fn nonlinear_diffusion(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let grid = ops.block("plate", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut un = ops.dat::<f64, 2>(&grid, "u_next", n, h)?;
    let old = ops.dat::<f64, 2>(&grid, "u_old", n, h)?;
    let picard = ops.dat::<f64, 2>(&grid, "u_picard", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let mirror = Sides::new(ops, N)?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    ops.par_loop(
        nl_init2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    ops.par_loop(zero_halo2, "clear_next", &grid, all, &[un.arg(&pt, Write)])?;
    for step in 0..14u32 {
        cx.step();
        cx.ops.par_loop(
            copy2,
            "save_old",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), old.arg(&pt, Write)],
        )?;
        let mut outer = 0;
        loop {
            let ops = &mut cx.ops;
            ops.par_loop(
                copy2,
                "save_picard",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), picard.arg(&pt, Write)],
            )?;
            ops.par_loop(
                nl_conductivity2,
                "conductivity",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), k.arg(&pt, Write)],
            )?;
            let mut sweeps = 0;
            loop {
                let ops = &mut cx.ops;
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
                mirror.apply(ops, &grid, &pt, &un)?;
                ops.par_loop(
                    nl_change2,
                    "sweep_change",
                    &grid,
                    inner.clone(),
                    &[u.arg(&pt, Read), un.arg(&pt, Read), change.arg()],
                )?;
                std::mem::swap(&mut u, &mut un);
                sweeps += 1;
                let c = cx.result(&change)?;
                if c < 1e-3 || sweeps >= 20 {
                    break;
                }
            }
            cx.ops.par_loop(
                nl_change2,
                "picard_change",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), picard.arg(&pt, Read), change.arg()],
            )?;
            outer += 1;
            let c = cx.result(&change)?;
            if c < 2e-3 || outer >= 5 {
                break;
            }
        }
        if step % 4 == 3 {
            let window = cx.ops.fetch_range(&u, [4..8, 4..8])?;
            cx.see(window.iter().copied().fold(0.0, f64::max));
        }
    }
    cx.end();
    cx.ops.par_loop(
        total2,
        "final_total",
        &grid,
        inner,
        &[u.arg(&pt, Read), total.arg()],
    )?;
    cx.result(&total)?;
    Ok(vec![u, un, old, picard, k])
}

/// Adaptive time steps with rejection: every step takes a full Euler step and two half steps
/// of a stiff reaction; when the error estimate is too large the step is retried from the
/// saved state with half the time step (so the step's loops run one to several times, as the
/// data decides), else the time step grows; the field is fetched every 6 accepted steps.
pub fn adaptive_reaction(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let grid = ops.block("cells", 2)?;
    let h = Halo::uniform(0);
    let n = [N as usize; 2];
    let u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let full = ops.dat::<f64, 2>(&grid, "u_full", n, h)?;
    let half = ops.dat::<f64, 2>(&grid, "u_half", n, h)?;
    let saved = ops.dat::<f64, 2>(&grid, "u_saved", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let err = ops.reduction::<f64>("error", ReduceOp::Max);
    let inner = [0..N, 0..N];
    ops.par_loop(
        react_init2,
        "init",
        &grid,
        inner.clone(),
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    let mut dt = 0.4;
    for step in 0..20u32 {
        cx.step();
        cx.ops.par_loop(
            copy2,
            "save",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), saved.arg(&pt, Write)],
        )?;
        loop {
            let ops = &mut cx.ops;
            ops.par_loop(
                react_full2,
                "full_step",
                &grid,
                inner.clone(),
                &[saved.arg(&pt, Read), full.arg(&pt, Write), Arg::global(dt)],
            )?;
            ops.par_loop(
                react_halves2,
                "half_steps",
                &grid,
                inner.clone(),
                &[
                    saved.arg(&pt, Read),
                    full.arg(&pt, Read),
                    half.arg(&pt, Write),
                    err.arg(),
                    Arg::global(dt),
                ],
            )?;
            let e = cx.result(&err)?;
            if e < 2e-3 || dt < 1e-3 {
                break;
            }
            dt *= 0.5;
        }
        cx.ops.par_loop(
            copy2,
            "accept",
            &grid,
            inner.clone(),
            &[half.arg(&pt, Read), u.arg(&pt, Write)],
        )?;
        dt *= 1.6;
        if step % 6 == 5 {
            let v = cx.ops.fetch_data(&u)?;
            cx.see(v.iter().sum());
        }
    }
    cx.end();
    Ok(vec![u, full, half, saved])
}

/// A step that starts with its solve: each step solves (1 + 4 k) v - k sum(neighbours of v) = u
/// for the new field v by Jacobi sweeps from v's last value until the change is small (nothing
/// runs before the sweeps in a step), then relaxes u towards v and sums the energy.
pub fn solve_first(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let grid = ops.block("slab", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut v = ops.dat::<f64, 2>(&grid, "v", n, h)?;
    let mut w = ops.dat::<f64, 2>(&grid, "v_next", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let energy = ops.reduction::<f64>("energy", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        nl_init2,
        "init_u",
        &grid,
        all.clone(),
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    ops.par_loop(
        nl_init2,
        "init_v",
        &grid,
        all.clone(),
        &[Arg::idx(), v.arg(&pt, Write)],
    )?;
    ops.par_loop(
        nl_init2,
        "init_w",
        &grid,
        all,
        &[Arg::idx(), w.arg(&pt, Write)],
    )?;
    ops.par_loop(
        nl_conductivity2,
        "conductivity",
        &grid,
        inner.clone(),
        &[u.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
    for _ in 0..16u32 {
        cx.step();
        let mut sweeps = 0;
        loop {
            let ops = &mut cx.ops;
            ops.par_loop(
                nl_sweep2,
                "sweep",
                &grid,
                inner.clone(),
                &[
                    v.arg(&five, Read),
                    u.arg(&pt, Read),
                    k.arg(&pt, Read),
                    w.arg(&pt, Write),
                ],
            )?;
            ops.par_loop(
                nl_change2,
                "change",
                &grid,
                inner.clone(),
                &[v.arg(&pt, Read), w.arg(&pt, Read), change.arg()],
            )?;
            std::mem::swap(&mut v, &mut w);
            sweeps += 1;
            if cx.result(&change)? < 2e-3 || sweeps >= 25 {
                break;
            }
        }
        cx.ops.par_loop(
            blend2,
            "relax",
            &grid,
            inner.clone(),
            &[v.arg(&pt, Read), u.arg(&pt, ReadWrite), Arg::global(0.7)],
        )?;
        cx.ops.par_loop(
            total2,
            "energy",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), energy.arg()],
        )?;
        cx.result(&energy)?;
    }
    cx.end();
    Ok(vec![u, v, w, k])
}

/// Two solves per step, one after the other (a pressure-like and a temperature-like field, each
/// by Jacobi sweeps to its own tolerance), between a prediction and a correction.
pub fn two_solves(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let grid = ops.block("duct", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut p = ops.dat::<f64, 2>(&grid, "p", n, h)?;
    let mut pn = ops.dat::<f64, 2>(&grid, "p_next", n, h)?;
    let mut t = ops.dat::<f64, 2>(&grid, "t", n, h)?;
    let mut tn = ops.dat::<f64, 2>(&grid, "t_next", n, h)?;
    let src = ops.dat::<f64, 2>(&grid, "source", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    for d in [&p, &pn, &t, &tn] {
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
        inner.clone(),
        &[t.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
    for _ in 0..14u32 {
        cx.step();
        cx.ops.par_loop(
            copy2,
            "predict",
            &grid,
            inner.clone(),
            &[t.arg(&pt, Read), src.arg(&pt, Write)],
        )?;
        for (name, tol, x, xn) in [
            ("pressure", 1e-3, &mut p, &mut pn),
            ("heat", 2e-3, &mut t, &mut tn),
        ] {
            let mut sweeps = 0;
            loop {
                cx.ops.par_loop(
                    nl_sweep2,
                    name,
                    &grid,
                    inner.clone(),
                    &[
                        x.arg(&five, Read),
                        src.arg(&pt, Read),
                        k.arg(&pt, Read),
                        xn.arg(&pt, Write),
                    ],
                )?;
                cx.ops.par_loop(
                    nl_change2,
                    "converged",
                    &grid,
                    inner.clone(),
                    &[x.arg(&pt, Read), xn.arg(&pt, Read), change.arg()],
                )?;
                std::mem::swap(x, xn);
                sweeps += 1;
                if cx.result(&change)? < tol || sweeps >= 30 {
                    break;
                }
            }
        }
        cx.ops.par_loop(
            blend2,
            "correct",
            &grid,
            inner.clone(),
            &[p.arg(&pt, Read), t.arg(&pt, ReadWrite), Arg::global(0.1)],
        )?;
    }
    cx.end();
    Ok(vec![p, pn, t, tn, src, k])
}

/// `w = A x` for the conjugate gradient below, as a helper: one call site and loop name for
/// whichever vector it is given (`pt` and `five` the point and five-point stencils).
fn apply(
    ops: &mut Ops,
    grid: &Block,
    [pt, five]: [&Stencil; 2],
    [x, kx, w]: [&Dat<f64>; 3],
) -> Result<()> {
    const N: i32 = 16;
    ops.par_loop(
        apply2,
        "apply",
        grid,
        [0..N, 0..N],
        &[x.arg(five, Read), kx.arg(pt, Read), w.arg(pt, Write)],
    )
}

/// The conjugate gradient step written with helpers, as codes share them: the operator and the
/// mirror boundaries are each one call site and loop name, run on the field at the top of the
/// step and on the search direction in every iteration of the solve.
pub fn conjugate_gradient_with_helpers(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let cg = Cg::new(cx, N)?;
    let mirror = crate::explicit::Mirror::new(&mut cx.ops)?;
    let (pt, five, grid) = (&cg.pt, &cg.five, &cg.grid);
    for _ in 0..12u32 {
        cx.step();
        let ops = &mut cx.ops;
        ops.par_loop(
            copy2,
            "rhs",
            grid,
            cg.inner(),
            &[cg.u.arg(pt, Read), cg.rhs.arg(pt, Write)],
        )?;
        crate::explicit::reflect(ops, &mirror, grid, &cg.u, N)?;
        apply(ops, grid, [pt, five], [&cg.u, &cg.kx, &cg.w])?;
        ops.par_loop(
            residual2,
            "residual",
            grid,
            cg.inner(),
            &[
                cg.rhs.arg(pt, Read),
                cg.w.arg(pt, Read),
                cg.r.arg(pt, Write),
                cg.p.arg(pt, Write),
                cg.rr.arg(),
            ],
        )?;
        let mut rho = cx.result(&cg.rr)?;
        let mut it = 0;
        while rho > 1e-6 && it < 40 {
            let ops = &mut cx.ops;
            crate::explicit::reflect(ops, &mirror, grid, &cg.p, N)?;
            apply(ops, grid, [pt, five], [&cg.p, &cg.kx, &cg.w])?;
            rho = cg.update(cx, rho)?;
            it += 1;
        }
    }
    cx.end();
    Ok(cg.dats())
}

/// Implicit diffusion from rest: the field starts at its equilibrium (zero), so the Jacobi
/// solve converges in one sweep until a heat source switches on at step 5 (then it iterates
/// on data); buffers swapped by handle, the change checked after every sweep, nothing after
/// the solve in a step.
pub fn a_solve_idle_until_a_source_switches_on(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
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
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    for d in [&u, &un, &old] {
        ops.par_loop(zero_halo2, "rest", &grid, all.clone(), &[d.arg(&pt, Write)])?;
    }
    ops.par_loop(
        nl_conductivity2,
        "conductivity",
        &grid,
        all,
        &[u.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
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
    for step in 0..16u32 {
        cx.step();
        let strength = if step >= 5 { 1.0 } else { 0.0 };
        cx.ops.par_loop(
            disc_source2,
            "source",
            &grid,
            inner.clone(),
            &[Arg::idx(), u.arg(&pt, ReadWrite), Arg::global(strength)],
        )?;
        cx.ops.par_loop(
            copy2,
            "save_old",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), old.arg(&pt, Write)],
        )?;
        solve.solve(cx, &mut u, &mut un, &old)?;
    }
    cx.end();
    Ok(vec![u, un, old, k])
}

/// CG solves on a 48 x 48 field that converge in the same number of iterations (23) for six
/// steps, then one fewer: a solver whose trip count does not vary while the learner looks.
pub fn long_conjugate_gradient_solves(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let cg = Cg::new(cx, 48)?;
    for step in 0..8u32 {
        cx.step();
        let mut rho = cg.start(cx)?;
        let mut it = 0;
        // The tolerance tightens with the step, so the solves stay long.
        while rho > 1e-22 * 0.5f64.powi(step as i32) && it < 400 {
            cg.apply_p(cx)?;
            rho = cg.update(cx, rho)?;
            it += 1;
        }
    }
    cx.end();
    Ok(cg.dats())
}

/// A potential solved once at start-up by Jacobi sweeps to a tolerance (a hundred and more
/// sweeps, before any time step), then a time loop that advects a tracer down its gradient
/// (explicit, two loops and a copy per step) with the tracer's total every fourth step.
pub fn a_start_up_solve_then_an_explicit_time_loop(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("plate", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut phi = ops.dat::<f64, 2>(&grid, "phi", n, h)?;
    let mut next = ops.dat::<f64, 2>(&grid, "phi_next", n, h)?;
    let source = ops.dat::<f64, 2>(&grid, "source", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let q = ops.dat::<f64, 2>(&grid, "tracer", n, h)?;
    let qn = ops.dat::<f64, 2>(&grid, "tracer_next", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let diffusion = Diffusion::new(&grid, (pt, five), N);
    let all = [-1..N + 1, -1..N + 1];
    for d in [&phi, &next] {
        ops.par_loop(zero_halo2, "zero", &grid, all.clone(), &[d.arg(&pt, Write)])?;
    }
    ops.par_loop(
        nl_init2,
        "source",
        &grid,
        all.clone(),
        &[Arg::idx(), source.arg(&pt, Write)],
    )?;
    ops.par_loop(
        nl_conductivity2,
        "k",
        &grid,
        all.clone(),
        &[source.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
    ops.par_loop(
        blob2,
        "tracer",
        &grid,
        all,
        &[Arg::idx(), q.arg(&pt, Write)],
    )?;
    let potential = Jacobi {
        grid: &grid,
        k: &k,
        pt: &pt,
        five: &five,
        change: &change,
        inner: inner.clone(),
        names: ["potential_sweep", "potential_change"],
        tol: 1e-9,
        max: 300,
    };
    potential.solve(cx, &mut phi, &mut next, &source)?;
    for step in 0..30u32 {
        cx.step();
        cx.ops.par_loop(
            blend2,
            "drift",
            &grid,
            inner.clone(),
            &[phi.arg(&pt, Read), q.arg(&pt, ReadWrite), Arg::global(0.01)],
        )?;
        diffusion.step(&mut cx.ops, &q, &qn, 0.1, ["spread", "advance"])?;
        if step % 4 == 3 {
            cx.ops.par_loop(
                total2,
                "total",
                &grid,
                inner.clone(),
                &[q.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    Ok(vec![phi, next, source, k, q, qn])
}

/// A steady state solved at start-up through the same Jacobi helper the time steps then call
/// (the same call sites: the start-up's hundred and more sweeps are the step's inner loop's),
/// then implicit steps: the right-hand side from the field and a source, the solve, the field's
/// total every fifth step.
pub fn a_steady_state_solved_by_the_step_s_own_solve(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("plate", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut un = ops.dat::<f64, 2>(&grid, "u_next", n, h)?;
    let b = ops.dat::<f64, 2>(&grid, "rhs", n, h)?;
    let source = ops.dat::<f64, 2>(&grid, "source", n, h)?;
    let k = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let change = ops.reduction::<f64>("change", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    for d in [&u, &un, &b] {
        ops.par_loop(zero_halo2, "zero", &grid, all.clone(), &[d.arg(&pt, Write)])?;
    }
    ops.par_loop(
        nl_init2,
        "source",
        &grid,
        all.clone(),
        &[Arg::idx(), source.arg(&pt, Write)],
    )?;
    ops.par_loop(
        nl_conductivity2,
        "k",
        &grid,
        all,
        &[source.arg(&pt, Read), k.arg(&pt, Write)],
    )?;
    let solve = |tol: f64, max: u32| Jacobi {
        grid: &grid,
        k: &k,
        pt: &pt,
        five: &five,
        change: &change,
        inner: inner.clone(),
        names: ["sweep", "change"],
        tol,
        max,
    };
    // The steady state under the source: the steps start from it.
    solve(1e-9, 300).solve(cx, &mut u, &mut un, &source)?;
    for step in 0..24u32 {
        cx.step();
        cx.ops.par_loop(
            copy2,
            "rhs",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), b.arg(&pt, Write)],
        )?;
        cx.ops.par_loop(
            blend2,
            "heat",
            &grid,
            inner.clone(),
            &[
                source.arg(&pt, Read),
                b.arg(&pt, ReadWrite),
                Arg::global(0.05),
            ],
        )?;
        solve(1e-8, 60).solve(cx, &mut u, &mut un, &b)?;
        if step % 5 == 4 {
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
    Ok(vec![u, un, b, source, k])
}
