//! Explicit programs: advection with sub-cycles and monitors, Runge-Kutta stages, a rotating
//! wave, a split scheme, a scheme that changes after a spin-up, fixed sub-steps, a time loop to
//! an end time, a tracer released mid-run, a one-loop step, a code coupled to the host, two
//! fields through one boundary helper, a scratch field per step, the game of life, a domain in
//! two blocks, a spin-up before the production run, and an ensemble run member by member.

use ops_backends::prelude::*;

use crate::boundary::Sides;
use crate::kernels::*;
use crate::oracle::Ctx;
use crate::scratch::{Diffusion, Scratched};

/// 2-D advection-diffusion: velocities computed once; every step a stable time step from a
/// reduction, upwind fluxes, the update into a second buffer, diffusion back, and halo fills
/// of depth 2; every 5 steps a filter sub-cycle of 3 passes; every 10 steps a window of the
/// field is fetched and, when its sum is large, a smoothing pass runs; every 50 steps a
/// monitor; final statistics after the time loop.
pub fn advection_diffusion(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 24;
    let ops = &mut cx.ops;
    let grid = ops.block("plane", 2)?;
    let h = Halo::uniform(2);
    let n = [N as usize; 2];
    let vx = ops.dat::<f64, 2>(&grid, "vx", n, h)?;
    let vy = ops.dat::<f64, 2>(&grid, "vy", n, h)?;
    let q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let qn = ops.dat::<f64, 2>(&grid, "q_new", n, h)?;
    let fx = ops.dat::<f64, 2>(&grid, "flux_x", n, h)?;
    let fy = ops.dat::<f64, 2>(&grid, "flux_y", n, h)?;
    let work = ops.dat::<f64, 2>(&grid, "work", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let xm = ops.stencil("xm", &[[-1, 0]])?;
    let ym = ops.stencil("ym", &[[0, -1], [0, 0]])?;
    let upx = ops.stencil("upx", &[[0, 0], [1, 0]])?;
    let upy = ops.stencil("upy", &[[0, 0], [0, 1]])?;
    let (hx2, hxm2) = (
        ops.stencil("x2", &[[2, 0]])?,
        ops.stencil("xm2", &[[-2, 0]])?,
    );
    let (hy2, hym2) = (
        ops.stencil("y2", &[[0, 2]])?,
        ops.stencil("ym2", &[[0, -2]])?,
    );
    let speed = ops.reduction::<f64>("speed", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let peak = ops.reduction::<f64>("peak", ReduceOp::Max);
    let all = [-2..N + 2, -2..N + 2];
    let inner = [0..N, 0..N];
    ops.par_loop(
        velocity2,
        "velocity",
        &grid,
        all.clone(),
        &[Arg::idx(), vx.arg(&pt, Write), vy.arg(&pt, Write)],
    )?;
    ops.par_loop(
        blob2,
        "initial_q",
        &grid,
        all,
        &[Arg::idx(), q.arg(&pt, Write)],
    )?;
    for step in 0..110u32 {
        cx.step();
        cx.ops.par_loop(
            speed2,
            "max_speed",
            &grid,
            inner.clone(),
            &[vx.arg(&pt, Read), vy.arg(&pt, Read), speed.arg()],
        )?;
        let s = cx.result(&speed)?;
        let dt = 0.4 / s;
        let ops = &mut cx.ops;
        ops.par_loop(
            flux_x2,
            "flux_x",
            &grid,
            [0..N + 1, 0..N],
            &[q.arg(&xm, Read), vx.arg(&pt, Read), fx.arg(&pt, Write)],
        )?;
        ops.par_loop(
            flux_y2,
            "flux_y",
            &grid,
            [0..N, 0..N + 1],
            &[q.arg(&ym, Read), vy.arg(&pt, Read), fy.arg(&pt, Write)],
        )?;
        ops.par_loop(
            advance2,
            "advect",
            &grid,
            inner.clone(),
            &[
                q.arg(&pt, Read),
                fx.arg(&upx, Read),
                fy.arg(&upy, Read),
                qn.arg(&pt, Write),
                Arg::global(dt),
            ],
        )?;
        ops.par_loop(
            diffuse2,
            "diffuse",
            &grid,
            inner.clone(),
            &[qn.arg(&five, Read), q.arg(&pt, Write), Arg::global(0.05)],
        )?;
        ops.par_loop(
            halo_xm2,
            "halo_xm",
            &grid,
            [-2..0, 0..N],
            &[q.arg(&hx2, Read), q.arg(&pt, Write)],
        )?;
        ops.par_loop(
            halo_xp2,
            "halo_xp",
            &grid,
            [N..N + 2, 0..N],
            &[q.arg(&hxm2, Read), q.arg(&pt, Write)],
        )?;
        ops.par_loop(
            halo_ym2,
            "halo_ym",
            &grid,
            [-2..N + 2, -2..0],
            &[q.arg(&hy2, Read), q.arg(&pt, Write)],
        )?;
        ops.par_loop(
            halo_yp2,
            "halo_yp",
            &grid,
            [-2..N + 2, N..N + 2],
            &[q.arg(&hym2, Read), q.arg(&pt, Write)],
        )?;
        if step % 5 == 0 {
            for _ in 0..3 {
                ops.par_loop(
                    smooth2,
                    "filter",
                    &grid,
                    inner.clone(),
                    &[q.arg(&five, Read), work.arg(&pt, Write)],
                )?;
                ops.par_loop(
                    blend2,
                    "filter_blend",
                    &grid,
                    inner.clone(),
                    &[work.arg(&pt, Read), q.arg(&pt, ReadWrite), Arg::global(0.3)],
                )?;
            }
        }
        if step % 10 == 0 {
            let window: f64 = ops.fetch_range(&q, [8..12, 8..12])?.iter().sum();
            cx.see(window);
            if window > 20.0 {
                let ops = &mut cx.ops;
                ops.par_loop(
                    smooth2,
                    "smooth",
                    &grid,
                    inner.clone(),
                    &[q.arg(&five, Read), work.arg(&pt, Write)],
                )?;
                ops.par_loop(
                    copy2,
                    "smooth_back",
                    &grid,
                    inner.clone(),
                    &[work.arg(&pt, Read), q.arg(&pt, Write)],
                )?;
            }
        }
        if step % 50 == 49 {
            cx.ops.par_loop(
                peak2,
                "monitor",
                &grid,
                inner.clone(),
                &[q.arg(&pt, Read), peak.arg()],
            )?;
            cx.result(&peak)?;
        }
    }
    cx.end();
    cx.ops.par_loop(
        total2,
        "statistics",
        &grid,
        inner,
        &[q.arg(&pt, Read), total.arg()],
    )?;
    cx.result(&total)?;
    Ok(vec![vx, vy, q, qn, fx, fy, work])
}

/// An explicit code in the style of generated compressible-flow solvers: every step saves the
/// state, then three Runge-Kutta stages (an inner loop of fixed trip count), each filling the
/// periodic halos, computing the right-hand sides and updating with the stage's coefficients;
/// a monitor every 10 steps.
pub fn runge_kutta(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 20;
    let ops = &mut cx.ops;
    let grid = ops.block("flow", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let q = ops.dat::<f64, 2>(&grid, "rho", n, h)?;
    let m = ops.dat::<f64, 2>(&grid, "rhou", n, h)?;
    let q0 = ops.dat::<f64, 2>(&grid, "rho_old", n, h)?;
    let m0 = ops.dat::<f64, 2>(&grid, "rhou_old", n, h)?;
    let rq = ops.dat::<f64, 2>(&grid, "rhs_rho", n, h)?;
    let rm = ops.dat::<f64, 2>(&grid, "rhs_rhou", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let three = ops.stencil("s3", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let (xp, xm) = (
        ops.stencil("xp", &[[1, 0]])?,
        ops.stencil("xm", &[[-1, 0]])?,
    );
    let total = ops.reduction::<f64>("mass", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        rk_init2,
        "initial_state",
        &grid,
        all,
        &[Arg::idx(), q.arg(&pt, Write), m.arg(&pt, Write)],
    )?;
    let (a, b) = ([0.0, 0.75, 1.0 / 3.0], [1.0, 0.25, 2.0 / 3.0]);
    for step in 0..30u32 {
        cx.step();
        let ops = &mut cx.ops;
        ops.par_loop(
            copy2,
            "save_rho",
            &grid,
            inner.clone(),
            &[q.arg(&pt, Read), q0.arg(&pt, Write)],
        )?;
        ops.par_loop(
            copy2,
            "save_rhou",
            &grid,
            inner.clone(),
            &[m.arg(&pt, Read), m0.arg(&pt, Write)],
        )?;
        for stage in 0..3 {
            for (f, name) in [(q, "rho"), (m, "rhou")] {
                ops.par_loop(
                    periodic_xm2,
                    &format!("halo_{name}_xm"),
                    &grid,
                    [-1..0, -1..N + 1],
                    &[f.arg(&xp, Read), f.arg(&pt, Write)],
                )?;
                ops.par_loop(
                    periodic_xp2,
                    &format!("halo_{name}_xp"),
                    &grid,
                    [N..N + 1, -1..N + 1],
                    &[f.arg(&xm, Read), f.arg(&pt, Write)],
                )?;
            }
            ops.par_loop(
                rhs2,
                "rhs_rho",
                &grid,
                [0..N, 1..N - 1],
                &[q.arg(&three, Read), m.arg(&three, Read), rq.arg(&pt, Write)],
            )?;
            ops.par_loop(
                rhs2,
                "rhs_rhou",
                &grid,
                [0..N, 1..N - 1],
                &[m.arg(&three, Read), q.arg(&three, Read), rm.arg(&pt, Write)],
            )?;
            for (f, old, r, name) in [(q, q0, rq, "update_rho"), (m, m0, rm, "update_rhou")] {
                ops.par_loop(
                    rk_update2,
                    name,
                    &grid,
                    [0..N, 1..N - 1],
                    &[
                        old.arg(&pt, Read),
                        r.arg(&pt, Read),
                        f.arg(&pt, ReadWrite),
                        Arg::global(a[stage]),
                        Arg::global(0.1 * b[stage]),
                    ],
                )?;
            }
        }
        if step % 10 == 9 {
            cx.ops.par_loop(
                total2,
                "monitor",
                &grid,
                inner.clone(),
                &[q.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    Ok(vec![q, m, q0, m0, rq, rm])
}

/// A wave code rotating three buffers by handles (previous, current, next), with a point
/// source switched on for the first 12 steps only, the energy every 25 steps and once more
/// at the end.
pub fn wave(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 32;
    let ops = &mut cx.ops;
    let grid = ops.block("membrane", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut prev = ops.dat::<f64, 2>(&grid, "u0", n, h)?;
    let mut cur = ops.dat::<f64, 2>(&grid, "u1", n, h)?;
    let mut next = ops.dat::<f64, 2>(&grid, "u2", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let e = ops.reduction::<f64>("energy", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    ops.par_loop(
        wave_init2,
        "init_prev",
        &grid,
        all.clone(),
        &[Arg::idx(), prev.arg(&pt, Write)],
    )?;
    ops.par_loop(
        wave_init2,
        "init_cur",
        &grid,
        all.clone(),
        &[Arg::idx(), cur.arg(&pt, Write)],
    )?;
    ops.par_loop(zero_halo2, "init_next", &grid, all, &[next.arg(&pt, Write)])?;
    for step in 0..60u32 {
        cx.step();
        let ops = &mut cx.ops;
        if step < 12 {
            ops.par_loop(
                source2,
                "source",
                &grid,
                inner.clone(),
                &[Arg::idx(), cur.arg(&pt, ReadWrite), Arg::global(0.5)],
            )?;
        }
        ops.par_loop(
            leapfrog2,
            "leapfrog",
            &grid,
            inner.clone(),
            &[
                cur.arg(&five, Read),
                prev.arg(&pt, Read),
                next.arg(&pt, Write),
                Arg::global(0.2),
            ],
        )?;
        // Rotate: the oldest buffer becomes the next one.
        (prev, cur, next) = (cur, next, prev);
        if step % 25 == 24 {
            cx.ops.par_loop(
                energy2,
                "energy",
                &grid,
                inner.clone(),
                &[cur.arg(&pt, Read), prev.arg(&pt, Read), e.arg()],
            )?;
            cx.result(&e)?;
        }
    }
    cx.end();
    cx.ops.par_loop(
        energy2,
        "final_energy",
        &grid,
        inner,
        &[cur.arg(&pt, Read), prev.arg(&pt, Read), e.arg()],
    )?;
    cx.result(&e)?;
    Ok(vec![prev, cur, next])
}

/// Directionally split (Strang-like) diffusion: the time step comes from a reduction; even
/// steps sweep x then y, odd steps y then x, each sweep into the other buffer followed by its
/// periodic halo copies (one call site copying all four sides); a total every 5 steps.
pub fn split_diffusion(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 14;
    let ops = &mut cx.ops;
    let grid = ops.block("split", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let mut qn = ops.dat::<f64, 2>(&grid, "q_next", n, h)?;
    let c = ops.dat::<f64, 2>(&grid, "diffusivity", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let xs = ops.stencil("x3", &[[0, 0], [1, 0], [-1, 0]])?;
    let ys = ops.stencil("y3", &[[0, 0], [0, 1], [0, -1]])?;
    let speed = ops.reduction::<f64>("speed", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let (xp, xm) = (
        ops.stencil("xp", &[[N, 0]])?,
        ops.stencil("xm", &[[-N, 0]])?,
    );
    let (yp, ym) = (
        ops.stencil("yp", &[[0, N]])?,
        ops.stencil("ym", &[[0, -N]])?,
    );
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    ops.par_loop(
        split_init2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), q.arg(&pt, Write), c.arg(&pt, Write)],
    )?;
    ops.par_loop(zero_halo2, "clear", &grid, all, &[qn.arg(&pt, Write)])?;
    // Periodic halos: each side's layer copies the opposite interior layer.
    let sides: [(
        &dyn ops_core::kernel::Kernel,
        Stencil,
        [std::ops::Range<i32>; 2],
    ); 4] = [
        (&wrap_xlo2, xp, [-1..0, 0..N]),
        (&wrap_xhi2, xm, [N..N + 1, 0..N]),
        (&wrap_ylo2, yp, [-1..N + 1, -1..0]),
        (&wrap_yhi2, ym, [-1..N + 1, N..N + 1]),
    ];
    for step in 0..18u32 {
        cx.step();
        cx.ops.par_loop(
            split_speed2,
            "speed",
            &grid,
            inner.clone(),
            &[q.arg(&pt, Read), c.arg(&pt, Read), speed.arg()],
        )?;
        let dt = 0.2 / cx.result(&speed)?;
        let order: [bool; 2] = if step % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for along_x in order {
            let (kernel, name, st): (&dyn ops_core::kernel::Kernel, &str, &Stencil) = if along_x {
                (&split_x2, "sweep_x", &xs)
            } else {
                (&split_y2, "sweep_y", &ys)
            };
            cx.ops.par_loop_dyn(
                kernel,
                name,
                &grid,
                inner.clone().into(),
                &[
                    q.arg(st, Read),
                    c.arg(&pt, Read),
                    qn.arg(&pt, Write),
                    Arg::global(dt),
                ],
            )?;
            for (kernel, st, r) in &sides {
                cx.ops.par_loop_dyn(
                    *kernel,
                    "periodic",
                    &grid,
                    r.clone().into(),
                    &[qn.arg(st, Read), qn.arg(&pt, Write)],
                )?;
            }
            std::mem::swap(&mut q, &mut qn);
        }
        if step % 5 == 4 {
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
    Ok(vec![q, qn, c])
}

/// Advection in two phases: a time step from a reduction every step; for the first 6 steps a
/// first-order upwind update (spin-up), then a predictor-corrector; every 7 steps a remap
/// at the top of the step, before the time step; a limiter whenever the fetched peak is over a
/// cap; periodic halos by a copy loop per side at one call site.
pub fn two_phase_advection(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 14;
    let ops = &mut cx.ops;
    let grid = ops.block("channel", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let c = ops.dat::<f64, 2>(&grid, "speed", n, h)?;
    let pred = ops.dat::<f64, 2>(&grid, "q_pred", n, h)?;
    let next = ops.dat::<f64, 2>(&grid, "q_next", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let back = ops.stencil("xb", &[[0, 0], [-1, 0]])?;
    let both = ops.stencil("x3", &[[0, 0], [1, 0], [-1, 0]])?;
    let (xp, xm) = (
        ops.stencil("xp", &[[14, 0]])?,
        ops.stencil("xm", &[[-14, 0]])?,
    );
    let fastest = ops.reduction::<f64>("fastest", ReduceOp::Max);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        split_init2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), q.arg(&pt, Write), c.arg(&pt, Write)],
    )?;
    ops.par_loop(
        zero_halo2,
        "clear_pred",
        &grid,
        all,
        &[pred.arg(&pt, Write)],
    )?;
    let sides: [(
        &dyn ops_core::kernel::Kernel,
        Stencil,
        [std::ops::Range<i32>; 2],
    ); 2] = [
        (&wrap_xlo2, xp, [-1..0, 0..N]),
        (&wrap_xhi2, xm, [N..N + 1, 0..N]),
    ];
    let halos = |ops: &mut Ops, d: &Dat<f64>| -> Result<()> {
        for (kernel, st, r) in &sides {
            ops.par_loop_dyn(
                *kernel,
                "wrap",
                &grid,
                r.clone().into(),
                &[d.arg(st, Read), d.arg(&pt, Write)],
            )?;
        }
        Ok(())
    };
    for step in 0..26u32 {
        cx.step();
        if step % 7 == 6 {
            cx.ops.par_loop(
                remap2,
                "remap",
                &grid,
                inner.clone(),
                &[q.arg(&both, Read), next.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                copy2,
                "remap_back",
                &grid,
                inner.clone(),
                &[next.arg(&pt, Read), q.arg(&pt, Write)],
            )?;
            halos(&mut cx.ops, &q)?;
        }
        cx.ops.par_loop(
            split_speed2,
            "time_step",
            &grid,
            inner.clone(),
            &[q.arg(&pt, Read), c.arg(&pt, Read), fastest.arg()],
        )?;
        let dt = 0.4 / cx.result(&fastest)?;
        if step < 6 {
            cx.ops.par_loop(
                upwind2,
                "upwind",
                &grid,
                inner.clone(),
                &[q.arg(&back, Read), next.arg(&pt, Write), Arg::global(dt)],
            )?;
        } else {
            cx.ops.par_loop(
                predict2,
                "predict",
                &grid,
                inner.clone(),
                &[q.arg(&both, Read), pred.arg(&pt, Write), Arg::global(dt)],
            )?;
            halos(&mut cx.ops, &pred)?;
            cx.ops.par_loop(
                correct2,
                "correct",
                &grid,
                inner.clone(),
                &[
                    q.arg(&pt, Read),
                    pred.arg(&back, Read),
                    next.arg(&pt, Write),
                    Arg::global(dt),
                ],
            )?;
        }
        cx.ops.par_loop(
            copy2,
            "advance",
            &grid,
            inner.clone(),
            &[next.arg(&pt, Read), q.arg(&pt, Write)],
        )?;
        halos(&mut cx.ops, &q)?;
        let peak = cx.ops.fetch_range(&q, [5..9, 5..9])?;
        let top = peak.iter().copied().fold(0.0, f64::max);
        cx.see(top);
        if top > 2.2 {
            cx.ops.par_loop(
                limit2,
                "limiter",
                &grid,
                inner.clone(),
                &[q.arg(&pt, ReadWrite), Arg::global(2.2)],
            )?;
        }
    }
    cx.end();
    Ok(vec![q, c, pred, next])
}

/// Operator splitting with a fixed sub-cycle: every step advects the field, then runs four
/// identical reaction sub-steps of two loops (the same calls four times: a fixed trip count, no
/// constant that tells the sub-steps apart), then a diffusion pass and the total.
pub fn fixed_sub_steps(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let grid = ops.block("mix", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let work = ops.dat::<f64, 2>(&grid, "work", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let back = ops.stencil("xb", &[[0, 0], [-1, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        react_init2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    ops.par_loop(
        react_init2,
        "init_work",
        &grid,
        all,
        &[Arg::idx(), work.arg(&pt, Write)],
    )?;
    for _ in 0..18u32 {
        cx.step();
        let ops = &mut cx.ops;
        ops.par_loop(
            upwind2,
            "advect",
            &grid,
            inner.clone(),
            &[u.arg(&back, Read), work.arg(&pt, Write), Arg::global(0.3)],
        )?;
        for _ in 0..4 {
            ops.par_loop(
                react_in_place2,
                "react",
                &grid,
                inner.clone(),
                &[work.arg(&pt, ReadWrite), Arg::global(0.05)],
            )?;
            ops.par_loop(
                limit2,
                "clip",
                &grid,
                inner.clone(),
                &[work.arg(&pt, ReadWrite), Arg::global(0.95)],
            )?;
        }
        ops.par_loop(
            smooth2,
            "diffuse",
            &grid,
            inner.clone(),
            &[work.arg(&five, Read), u.arg(&pt, Write)],
        )?;
        ops.par_loop(
            total2,
            "total",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), total.arg()],
        )?;
        cx.result(&total)?;
    }
    cx.end();
    Ok(vec![u, work])
}

/// A time loop run to an end time rather than a step count: the time step comes from a
/// reduction and shrinks as the run goes on, the last step is cut to land on the end time, and
/// the field is written out (fetched whole) every 4 time units of simulated time, so every few
/// steps, irregularly.
pub fn to_an_end_time(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 14;
    let ops = &mut cx.ops;
    let grid = ops.block("line", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let mut qn = ops.dat::<f64, 2>(&grid, "q_next", n, h)?;
    let c = ops.dat::<f64, 2>(&grid, "speed", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let xs = ops.stencil("x3", &[[0, 0], [1, 0], [-1, 0]])?;
    let fastest = ops.reduction::<f64>("fastest", ReduceOp::Max);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        split_init2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), q.arg(&pt, Write), c.arg(&pt, Write)],
    )?;
    ops.par_loop(
        split_init2,
        "init_next",
        &grid,
        all,
        &[Arg::idx(), qn.arg(&pt, Write), c.arg(&pt, Write)],
    )?;
    let (mut time, end, mut next_out) = (0.0f64, 30.0f64, 4.0f64);
    while time < end {
        cx.step();
        cx.ops.par_loop(
            split_speed2,
            "time_step",
            &grid,
            inner.clone(),
            &[q.arg(&pt, Read), c.arg(&pt, Read), fastest.arg()],
        )?;
        let dt = (0.45 / cx.result(&fastest)? * (1.0 - 0.01 * time)).min(end - time);
        cx.ops.par_loop(
            split_x2,
            "diffuse",
            &grid,
            inner.clone(),
            &[
                q.arg(&xs, Read),
                c.arg(&pt, Read),
                qn.arg(&pt, Write),
                Arg::global(dt),
            ],
        )?;
        std::mem::swap(&mut q, &mut qn);
        time += dt;
        if time >= next_out {
            let v = cx.ops.fetch_data(&q)?;
            cx.see(v.iter().sum());
            next_out += 4.0;
        }
    }
    cx.end();
    Ok(vec![q, qn, c])
}

/// A tracer released mid-run: from step 8 a dataset declared then is initialised once and
/// advected every step after the field; a front whose range grows by one column every step is
/// relaxed each step (a loop whose box changes from call to call).
pub fn late_tracer(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 14;
    let ops = &mut cx.ops;
    let grid = ops.block("basin", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let qn = ops.dat::<f64, 2>(&grid, "q_next", n, h)?;
    let c = ops.dat::<f64, 2>(&grid, "speed", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let back = ops.stencil("xb", &[[0, 0], [-1, 0]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        split_init2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), q.arg(&pt, Write), c.arg(&pt, Write)],
    )?;
    ops.par_loop(
        zero_halo2,
        "clear",
        &grid,
        all.clone(),
        &[qn.arg(&pt, Write)],
    )?;
    let mut tracer: Option<(Dat<f64>, Dat<f64>)> = None;
    for step in 0..24i32 {
        cx.step();
        let ops = &mut cx.ops;
        ops.par_loop(
            upwind2,
            "advect",
            &grid,
            inner.clone(),
            &[q.arg(&back, Read), qn.arg(&pt, Write), Arg::global(0.3)],
        )?;
        ops.par_loop(
            copy2,
            "advance",
            &grid,
            inner.clone(),
            &[qn.arg(&pt, Read), q.arg(&pt, Write)],
        )?;
        let front = (step % N) + 1;
        ops.par_loop(
            limit2,
            "front",
            &grid,
            [0..front, 0..N],
            &[q.arg(&pt, ReadWrite), Arg::global(2.5)],
        )?;
        if step == 8 {
            let t = ops.dat::<f64, 2>(&grid, "tracer", n, h)?;
            let tn = ops.dat::<f64, 2>(&grid, "tracer_next", n, h)?;
            ops.par_loop(
                react_init2,
                "release",
                &grid,
                all.clone(),
                &[Arg::idx(), t.arg(&pt, Write)],
            )?;
            ops.par_loop(
                zero_halo2,
                "clear_tracer",
                &grid,
                all.clone(),
                &[tn.arg(&pt, Write)],
            )?;
            tracer = Some((t, tn));
        }
        if let Some((t, tn)) = &tracer {
            ops.par_loop(
                upwind2,
                "carry",
                &grid,
                inner.clone(),
                &[t.arg(&back, Read), tn.arg(&pt, Write), Arg::global(0.3)],
            )?;
            ops.par_loop(
                copy2,
                "carry_back",
                &grid,
                inner.clone(),
                &[tn.arg(&pt, Read), t.arg(&pt, Write)],
            )?;
        }
        cx.ops.par_loop(
            total2,
            "total",
            &grid,
            inner.clone(),
            &[q.arg(&pt, Read), total.arg()],
        )?;
        cx.result(&total)?;
    }
    cx.end();
    let mut dats = vec![q, qn, c];
    if let Some((t, tn)) = tracer {
        dats.extend([t, tn]);
    }
    Ok(dats)
}

/// The simplest time loop there is: one loop per step, a relaxation from one buffer into the
/// other, the two swapped by handle; the fixed boundary lives in the halos, written once at
/// start-up; the field's total every 10 steps.
pub fn one_loop_per_step(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("sheet", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut a = ops.dat::<f64, 2>(&grid, "a", n, h)?;
    let mut b = ops.dat::<f64, 2>(&grid, "b", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        wave_init2,
        "init_a",
        &grid,
        all.clone(),
        &[Arg::idx(), a.arg(&pt, Write)],
    )?;
    ops.par_loop(
        copy2,
        "init_b",
        &grid,
        all,
        &[a.arg(&pt, Read), b.arg(&pt, Write)],
    )?;
    for step in 0..40u32 {
        cx.step();
        cx.ops.par_loop(
            smooth2,
            "relax",
            &grid,
            inner.clone(),
            &[a.arg(&five, Read), b.arg(&pt, Write)],
        )?;
        std::mem::swap(&mut a, &mut b);
        if step % 10 == 9 {
            cx.ops.par_loop(
                total2,
                "total",
                &grid,
                inner.clone(),
                &[a.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    Ok(vec![a, b])
}

/// A code coupled to a host-side model: the initial field comes from the host (`set_data`, as
/// if read from a file); every step the host fetches the outflow column, computes the inflow
/// from it (a recycling inflow, damped, with a pulse every 7 steps) and sets it into the
/// inflow halo column before the advection; the total every 8 steps.
pub fn host_coupled(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("channel", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let qn = ops.dat::<f64, 2>(&grid, "q_next", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let back = ops.stencil("xb", &[[0, 0], [-1, 0]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let initial: Vec<f64> = (0..N * N)
        .map(|i| 1.0 + ((i % N) as f64 * 0.3).sin() * ((i / N) as f64 * 0.2).cos())
        .collect();
    ops.set_data(&q, &initial)?;
    ops.par_loop(
        zero_halo2,
        "clear",
        &grid,
        [-1..N + 1, -1..N + 1],
        &[qn.arg(&pt, Write)],
    )?;
    for step in 0..30u32 {
        cx.step();
        let out = cx.ops.fetch_range(&q, [N - 1..N, 0..N])?;
        for v in &out {
            cx.see(*v);
        }
        let pulse = if step % 7 == 3 { 0.5 } else { 0.0 };
        let inflow: Vec<f64> = out.iter().map(|v| 0.8 * v + 0.2 + pulse).collect();
        let ops = &mut cx.ops;
        ops.set_range(&q, [-1..0, 0..N], &inflow)?;
        ops.par_loop(
            upwind2,
            "advect",
            &grid,
            inner.clone(),
            &[q.arg(&back, Read), qn.arg(&pt, Write), Arg::global(0.4)],
        )?;
        ops.par_loop(
            copy2,
            "advance",
            &grid,
            inner.clone(),
            &[qn.arg(&pt, Read), q.arg(&pt, Write)],
        )?;
        if step % 8 == 7 {
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
    Ok(vec![q, qn])
}

/// Mirror boundaries, as a helper every field goes through: the same four call sites and loop
/// name whichever field it is given. Its stencils are declared once.
pub struct Mirror {
    pt: Stencil,
    xp: Stencil,
    xm: Stencil,
    yp: Stencil,
    ym: Stencil,
}

impl Mirror {
    pub fn new(ops: &mut Ops) -> Result<Mirror> {
        Ok(Mirror {
            pt: ops.stencil("p00", &[[0, 0]])?,
            xp: ops.stencil("x1", &[[1, 0]])?,
            xm: ops.stencil("xm1", &[[-1, 0]])?,
            yp: ops.stencil("y1", &[[0, 1]])?,
            ym: ops.stencil("ym1", &[[0, -1]])?,
        })
    }
}

/// The mirror boundaries of `d` (`n` points a side).
pub fn reflect(ops: &mut Ops, m: &Mirror, grid: &Block, d: &Dat<f64>, n: i32) -> Result<()> {
    let Mirror { pt, xp, xm, yp, ym } = m;
    ops.par_loop(
        periodic_xm2,
        "reflect",
        grid,
        [-1..0, 0..n],
        &[d.arg(xp, Read), d.arg(pt, Write)],
    )?;
    ops.par_loop(
        periodic_xp2,
        "reflect",
        grid,
        [n..n + 1, 0..n],
        &[d.arg(xm, Read), d.arg(pt, Write)],
    )?;
    ops.par_loop(
        nl_mirror_ym2,
        "reflect",
        grid,
        [-1..n + 1, -1..0],
        &[d.arg(yp, Read), d.arg(pt, Write)],
    )?;
    ops.par_loop(
        nl_mirror_yp2,
        "reflect",
        grid,
        [-1..n + 1, n..n + 1],
        &[d.arg(ym, Read), d.arg(pt, Write)],
    )
}

/// Gray-Scott reaction-diffusion of two coupled fields, each through the same boundary helper
/// every step, new fields swapped in by handle; the feed rate changes after 24 steps; the
/// total of `v` every 16 steps.
pub fn gray_scott(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("dish", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut v = ops.dat::<f64, 2>(&grid, "v", n, h)?;
    let mut un = ops.dat::<f64, 2>(&grid, "u_next", n, h)?;
    let mut vn = ops.dat::<f64, 2>(&grid, "v_next", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total_v", ReduceOp::Sum);
    let mirror = Mirror::new(ops)?;
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        seed_u2,
        "seed_u",
        &grid,
        all.clone(),
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    ops.par_loop(
        seed_v2,
        "seed_v",
        &grid,
        all.clone(),
        &[Arg::idx(), v.arg(&pt, Write)],
    )?;
    for d in [&un, &vn] {
        ops.par_loop(
            zero_halo2,
            "clear",
            &grid,
            all.clone(),
            &[d.arg(&pt, Write)],
        )?;
    }
    for step in 0..48u32 {
        cx.step();
        let feed = if step < 24 { 0.035 } else { 0.04 };
        let ops = &mut cx.ops;
        reflect(ops, &mirror, &grid, &u, N)?;
        reflect(ops, &mirror, &grid, &v, N)?;
        ops.par_loop(
            gray_scott2,
            "react",
            &grid,
            inner.clone(),
            &[
                u.arg(&five, Read),
                v.arg(&five, Read),
                un.arg(&pt, Write),
                vn.arg(&pt, Write),
                Arg::global(feed),
                Arg::global(0.06),
            ],
        )?;
        std::mem::swap(&mut u, &mut un);
        std::mem::swap(&mut v, &mut vn);
        if step % 16 == 15 {
            cx.ops.par_loop(
                total2,
                "total",
                &grid,
                inner.clone(),
                &[v.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    Ok(vec![u, v, un, vn])
}

/// A scratch field declared at the top of every step and freed at its end, as code that keeps
/// its temporaries local does: each step's work goes through a dataset that did not exist the
/// step before; the total every 5 steps.
pub fn scratch_per_step(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("tray", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    ops.par_loop(
        blob2,
        "initial_q",
        &grid,
        [-1..N + 1, -1..N + 1],
        &[Arg::idx(), q.arg(&pt, Write)],
    )?;
    for step in 0..30u32 {
        cx.step();
        let ops = &mut cx.ops;
        let work = ops.dat::<f64, 2>(&grid, "work", n, h)?;
        ops.par_loop(
            smooth2,
            "smooth",
            &grid,
            inner.clone(),
            &[q.arg(&five, Read), work.arg(&pt, Write)],
        )?;
        ops.par_loop(
            blend2,
            "blend",
            &grid,
            inner.clone(),
            &[work.arg(&pt, Read), q.arg(&pt, ReadWrite), Arg::global(0.5)],
        )?;
        ops.free_dat(&work)?;
        if step % 5 == 4 {
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
    Ok(vec![q])
}

/// Conway's game of life on integer cells, the boards swapped by handle, with a floating-point
/// age per cell updated every step and the live cells counted every 4 steps; the board is
/// copied into a floating-point field at the end.
pub fn life(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 20;
    let ops = &mut cx.ops;
    let grid = ops.block("board", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut cells = ops.dat::<i32, 2>(&grid, "cells", n, h)?;
    let mut next = ops.dat::<i32, 2>(&grid, "next", n, h)?;
    let age = ops.dat::<f64, 2>(&grid, "age", n, h)?;
    let board = ops.dat::<f64, 2>(&grid, "board", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let nine = ops.stencil(
        "s9",
        &[
            [0, 0],
            [1, 0],
            [-1, 0],
            [0, 1],
            [0, -1],
            [1, 1],
            [-1, 1],
            [1, -1],
            [-1, -1],
        ],
    )?;
    let alive = ops.reduction::<f64>("alive", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        life_init2,
        "seed",
        &grid,
        inner.clone(),
        &[Arg::idx(), cells.arg(&pt, Write)],
    )?;
    for d in [&age, &board] {
        ops.par_loop(
            zero_halo2,
            "clear",
            &grid,
            all.clone(),
            &[d.arg(&pt, Write)],
        )?;
    }
    for step in 0..36u32 {
        cx.step();
        let ops = &mut cx.ops;
        ops.par_loop(
            life_step2,
            "generation",
            &grid,
            inner.clone(),
            &[cells.arg(&nine, Read), next.arg(&pt, Write)],
        )?;
        ops.par_loop(
            life_age2,
            "age",
            &grid,
            inner.clone(),
            &[next.arg(&pt, Read), age.arg(&pt, ReadWrite)],
        )?;
        std::mem::swap(&mut cells, &mut next);
        if step % 4 == 3 {
            cx.ops.par_loop(
                life_count2,
                "count",
                &grid,
                inner.clone(),
                &[cells.arg(&pt, Read), alive.arg()],
            )?;
            cx.result(&alive)?;
        }
    }
    cx.end();
    cx.ops.par_loop(
        life_final2,
        "final_board",
        &grid,
        inner,
        &[cells.arg(&pt, Read), board.arg(&pt, Write)],
    )?;
    Ok(vec![age, board])
}

/// A domain in two blocks, each advanced by the same code (the same call sites and loop names,
/// block by block), the interface exchanged on the host every step: each block's edge column is
/// fetched and set into the other's halo; the total of both every 6 steps.
pub fn two_blocks(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    let mut blocks = Vec::new();
    for name in ["west", "east"] {
        let b = ops.block(name, 2)?;
        let q = ops.dat::<f64, 2>(&b, "q", n, h)?;
        let qn = ops.dat::<f64, 2>(&b, "q_next", n, h)?;
        blocks.push((b, q, qn));
    }
    for (b, q, qn) in &blocks {
        ops.par_loop(
            blob2,
            "initial_q",
            b,
            all.clone(),
            &[Arg::idx(), q.arg(&pt, Write)],
        )?;
        ops.par_loop(zero_halo2, "clear", b, all.clone(), &[qn.arg(&pt, Write)])?;
    }
    for step in 0..30u32 {
        cx.step();
        // The interface: west's last column into east's left halo, east's first into west's
        // right halo.
        let (w, e) = (&blocks[0].1, &blocks[1].1);
        let west_edge = cx.ops.fetch_range(w, [N - 1..N, 0..N])?;
        let east_edge = cx.ops.fetch_range(e, [0..1, 0..N])?;
        cx.ops.set_range(e, [-1..0, 0..N], &west_edge)?;
        cx.ops.set_range(w, [N..N + 1, 0..N], &east_edge)?;
        for (b, q, qn) in &blocks {
            let ops = &mut cx.ops;
            ops.par_loop(
                diffuse2,
                "diffuse",
                b,
                inner.clone(),
                &[q.arg(&five, Read), qn.arg(&pt, Write), Arg::global(0.1)],
            )?;
            ops.par_loop(
                copy2,
                "advance",
                b,
                inner.clone(),
                &[qn.arg(&pt, Read), q.arg(&pt, Write)],
            )?;
        }
        if step % 6 == 5 {
            for (b, q, _) in &blocks {
                cx.ops.par_loop(
                    total2,
                    "total",
                    b,
                    inner.clone(),
                    &[q.arg(&pt, Read), total.arg()],
                )?;
                cx.result(&total)?;
            }
        }
    }
    cx.end();
    Ok(blocks.into_iter().flat_map(|(_, q, qn)| [q, qn]).collect())
}

/// Two time loops one after the other, as a spin-up on a coarse grid followed by the
/// production run on a fine one: the coarse field relaxes for 16 steps (not counted as time
/// steps: the spin-up is part of the start-up), is carried to the fine grid on the host, and
/// the fine field is advected and diffused for 40 steps, its total every 8.
pub fn spin_up_then_production(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const C: i32 = 8;
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let coarse = ops.block("coarse", 2)?;
    let fine = ops.block("fine", 2)?;
    let h = Halo::uniform(1);
    let mut a = ops.dat::<f64, 2>(&coarse, "a", [C as usize; 2], h)?;
    let mut b = ops.dat::<f64, 2>(&coarse, "b", [C as usize; 2], h)?;
    let q = ops.dat::<f64, 2>(&fine, "q", [N as usize; 2], h)?;
    let qn = ops.dat::<f64, 2>(&fine, "q_next", [N as usize; 2], h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let back = ops.stencil("xb", &[[0, 0], [-1, 0]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    ops.par_loop(
        blob2,
        "coarse_init",
        &coarse,
        [-1..C + 1, -1..C + 1],
        &[Arg::idx(), a.arg(&pt, Write)],
    )?;
    ops.par_loop(
        copy2,
        "coarse_copy",
        &coarse,
        [-1..C + 1, -1..C + 1],
        &[a.arg(&pt, Read), b.arg(&pt, Write)],
    )?;
    for _ in 0..16 {
        ops.par_loop(
            smooth2,
            "spin_up",
            &coarse,
            [0..C, 0..C],
            &[a.arg(&five, Read), b.arg(&pt, Write)],
        )?;
        std::mem::swap(&mut a, &mut b);
    }
    // Onto the fine grid: each coarse point to four fine ones.
    let c = ops.fetch_data(&a)?;
    let f: Vec<f64> = (0..N * N)
        .map(|i| c[((i / N / 2) * C + (i % N) / 2) as usize])
        .collect();
    ops.set_data(&q, &f)?;
    ops.par_loop(
        zero_halo2,
        "clear",
        &fine,
        [-1..N + 1, -1..N + 1],
        &[qn.arg(&pt, Write)],
    )?;
    let inner = [0..N, 0..N];
    for step in 0..40u32 {
        cx.step();
        let ops = &mut cx.ops;
        ops.par_loop(
            upwind2,
            "advect",
            &fine,
            inner.clone(),
            &[q.arg(&back, Read), qn.arg(&pt, Write), Arg::global(0.3)],
        )?;
        ops.par_loop(
            diffuse2,
            "diffuse",
            &fine,
            inner.clone(),
            &[qn.arg(&five, Read), q.arg(&pt, Write), Arg::global(0.1)],
        )?;
        if step % 8 == 7 {
            cx.ops.par_loop(
                total2,
                "total",
                &fine,
                inner.clone(),
                &[q.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    Ok(vec![a, b, q, qn])
}

/// An ensemble run in one program: three members, each starting from its own initial field
/// (the start-up loops run again at the top of each member, from nothing the previous member
/// left) and stepped 20 times; the steps of
/// all members count as time steps; the total at the end of each member.
pub fn ensemble(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let grid = ops.block("member", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let qn = ops.dat::<f64, 2>(&grid, "q_next", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let diffusion = Diffusion::new(&grid, (pt, five), N);
    let all = [-1..N + 1, -1..N + 1];
    for member in 0..3u32 {
        let ops = &mut cx.ops;
        ops.par_loop(
            blob2,
            "member_init",
            &grid,
            all.clone(),
            &[Arg::idx(), q.arg(&pt, Write)],
        )?;
        ops.par_loop(
            diffuse2,
            "perturb",
            &grid,
            inner.clone(),
            &[
                q.arg(&five, Read),
                qn.arg(&pt, Write),
                Arg::global(0.1 * member as f64),
            ],
        )?;
        for _ in 0..20u32 {
            cx.step();
            let ops = &mut cx.ops;
            diffusion.step(ops, &q, &qn, 0.1, ["diffuse", "advance"])?;
        }
        cx.ops.par_loop(
            total2,
            "member_total",
            &grid,
            inner.clone(),
            &[q.arg(&pt, Read), total.arg()],
        )?;
        cx.result(&total)?;
    }
    cx.end();
    Ok(vec![q, qn])
}

/// A level set advected every step and redistanced every eighth step, from the first: the
/// redistancing (a smoothing into a scratch field, copied back) runs at the top of the step,
/// before the step's loops, and overwrites the field the steps carry, after reading it.
pub fn level_set_redistanced_every_eighth_step(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("sheet", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let phi = ops.dat::<f64, 2>(&grid, "phi", n, h)?;
    let next = ops.dat::<f64, 2>(&grid, "phi_next", n, h)?;
    let scratch = ops.dat::<f64, 2>(&grid, "phi_smooth", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    let diffusion = Diffusion::new(&grid, (pt, five), N);
    ops.par_loop(
        blob2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), phi.arg(&pt, Write)],
    )?;
    for d in [&next, &scratch] {
        ops.par_loop(
            zero_halo2,
            "clear",
            &grid,
            all.clone(),
            &[d.arg(&pt, Write)],
        )?;
    }
    for step in 0..40u32 {
        cx.step();
        if step % 8 == 0 {
            cx.ops.par_loop(
                smooth2,
                "redistance",
                &grid,
                inner.clone(),
                &[phi.arg(&five, Read), scratch.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                copy2,
                "redistance_copy",
                &grid,
                inner.clone(),
                &[scratch.arg(&pt, Read), phi.arg(&pt, Write)],
            )?;
        }
        diffusion.step(&mut cx.ops, &phi, &next, 0.1, ["advect", "advance"])?;
    }
    cx.end();
    Ok(vec![phi, next, scratch])
}

/// Advection sub-cycled by its CFL number: every step sets a gusting velocity field, fetches
/// its peak speed and takes as many upwind sub-steps as the CFL limit asks (one to four, known
/// only once the speed is fetched, none of them ending in a test), then diffuses; the total
/// every fifth step.
pub fn advection_sub_cycled_by_its_cfl_number(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("box", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let qn = ops.dat::<f64, 2>(&grid, "q_next", n, h)?;
    let vx = ops.dat::<f64, 2>(&grid, "vx", n, h)?;
    let vy = ops.dat::<f64, 2>(&grid, "vy", n, h)?;
    let fx = ops.dat::<f64, 2>(&grid, "flux_x", n, h)?;
    let fy = ops.dat::<f64, 2>(&grid, "flux_y", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let xm = ops.stencil("xm", &[[0, 0], [-1, 0]])?;
    let ym = ops.stencil("ym", &[[0, 0], [0, -1]])?;
    let up = ops.stencil("up", &[[0, 0], [1, 0], [0, 1]])?;
    let speed = ops.reduction::<f64>("speed", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    let diffusion = Diffusion::new(&grid, (pt, five), N);
    ops.par_loop(
        blob2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), q.arg(&pt, Write)],
    )?;
    for d in [&qn, &fx, &fy] {
        ops.par_loop(
            zero_halo2,
            "clear",
            &grid,
            all.clone(),
            &[d.arg(&pt, Write)],
        )?;
    }
    let dt = 0.2;
    for step in 0..24u32 {
        cx.step();
        let gust = 1.0 + 1.5 * (0.7 * step as f64).sin().abs();
        cx.ops.par_loop(
            gust_velocity2,
            "velocity",
            &grid,
            all.clone(),
            &[
                Arg::idx(),
                vx.arg(&pt, Write),
                vy.arg(&pt, Write),
                Arg::global(gust),
            ],
        )?;
        cx.ops.par_loop(
            speed2,
            "peak_speed",
            &grid,
            inner.clone(),
            &[vx.arg(&pt, Read), vy.arg(&pt, Read), speed.arg()],
        )?;
        let cfl = cx.result(&speed)? * dt;
        let subs = (cfl / 0.6).ceil().clamp(1.0, 4.0) as u32;
        for _ in 0..subs {
            cx.ops.par_loop(
                flux_x2,
                "flux_x",
                &grid,
                [0..N + 1, 0..N],
                &[q.arg(&xm, Read), vx.arg(&pt, Read), fx.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                flux_y2,
                "flux_y",
                &grid,
                [0..N, 0..N + 1],
                &[q.arg(&ym, Read), vy.arg(&pt, Read), fy.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                advance2,
                "advect",
                &grid,
                inner.clone(),
                &[
                    q.arg(&pt, Read),
                    fx.arg(&up, Read),
                    fy.arg(&up, Read),
                    qn.arg(&pt, Write),
                    Arg::global(dt / subs as f64),
                ],
            )?;
            cx.ops.par_loop(
                copy2,
                "advect_copy",
                &grid,
                inner.clone(),
                &[qn.arg(&pt, Read), q.arg(&pt, Write)],
            )?;
        }
        diffusion.step(&mut cx.ops, &q, &qn, 0.05, ["diffuse", "diffuse_copy"])?;
        if step % 5 == 4 {
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
    Ok(vec![q, qn, vx, vy, fx, fy])
}

/// Three species diffused by one helper (two loops, one call site each) and nothing else in a
/// step: no loop runs once per step, so checkpoints can only open at a loop that runs for every
/// species; each species' total every fifth step.
pub fn three_species_through_one_helper(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let grid = ops.block("tank", 2)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let names = ["a", "b", "c"].map(String::from);
    let species = Scratched::new(ops, &grid, (pt, five), N, &names, "_next")?;
    for step in 0..24u32 {
        cx.step();
        for i in 0..species.fields.len() {
            let nu = 0.05 * (i + 1) as f64;
            species.diffuse(&mut cx.ops, i, nu, ["diffuse", "advance"])?;
        }
        if step % 5 == 4 {
            for (q, _) in &species.fields {
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
    }
    cx.end();
    Ok(species.into_dats())
}

/// Diffusion between two buffers that trade roles by the arguments passed, not by swapping
/// handles: even steps go from `a` to `b`, odd ones back (one function, so the same call
/// sites run on alternating datasets), each step first setting the source's mirror boundaries
/// (a loop per side, in a helper) and a total every seventh step.
pub fn ping_pong_by_arguments(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("tile", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let a = ops.dat::<f64, 2>(&grid, "a", n, h)?;
    let b = ops.dat::<f64, 2>(&grid, "b", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let sides = Sides::new(ops, N)?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    ops.par_loop(
        nl_init2,
        "init",
        &grid,
        inner.clone(),
        &[Arg::idx(), a.arg(&pt, Write)],
    )?;
    let advance = |cx: &mut Ctx, from: &Dat<f64>, to: &Dat<f64>| -> Result<()> {
        sides.apply(&mut cx.ops, &grid, &pt, from)?;
        cx.ops.par_loop(
            diffuse2,
            "diffuse",
            &grid,
            inner.clone(),
            &[from.arg(&five, Read), to.arg(&pt, Write), Arg::global(0.1)],
        )
    };
    for step in 0..30u32 {
        cx.step();
        let to = match step % 2 {
            0 => {
                advance(cx, &a, &b)?;
                &b
            }
            _ => {
                advance(cx, &b, &a)?;
                &a
            }
        };
        if step % 7 == 6 {
            cx.ops.par_loop(
                total2,
                "total",
                &grid,
                inner.clone(),
                &[to.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    Ok(vec![a, b])
}

/// Diffusion whose fields are regridded every eighth step: new datasets declared, the field
/// remapped into them (a smoothing), the old ones freed and the new ones used from then on
/// (as an adaptive code replaces its arrays); the total every fifth step.
pub fn regridded_every_eighth_step(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 14;
    let ops = &mut cx.ops;
    let grid = ops.block("mesh", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut q = ops.dat::<f64, 2>(&grid, "q", n, h)?;
    let mut qn = ops.dat::<f64, 2>(&grid, "q_next", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    let diffusion = Diffusion::new(&grid, (pt, five), N);
    ops.par_loop(
        blob2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), q.arg(&pt, Write)],
    )?;
    ops.par_loop(
        zero_halo2,
        "clear",
        &grid,
        all.clone(),
        &[qn.arg(&pt, Write)],
    )?;
    for step in 0..30u32 {
        cx.step();
        if step % 8 == 7 {
            let ops = &mut cx.ops;
            let fresh = ops.dat::<f64, 2>(&grid, &format!("q_{step}"), n, h)?;
            let fresh_next = ops.dat::<f64, 2>(&grid, &format!("q_next_{step}"), n, h)?;
            ops.par_loop(
                zero_halo2,
                "regrid_clear",
                &grid,
                all.clone(),
                &[fresh.arg(&pt, Write)],
            )?;
            ops.par_loop(
                zero_halo2,
                "regrid_clear",
                &grid,
                all.clone(),
                &[fresh_next.arg(&pt, Write)],
            )?;
            ops.par_loop(
                smooth2,
                "remap",
                &grid,
                inner.clone(),
                &[q.arg(&five, Read), fresh.arg(&pt, Write)],
            )?;
            ops.free_dat(&q)?;
            ops.free_dat(&qn)?;
            (q, qn) = (fresh, fresh_next);
        }
        diffusion.step(&mut cx.ops, &q, &qn, 0.1, ["diffuse", "advance"])?;
        if step % 5 == 4 {
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
    Ok(vec![q, qn])
}

/// The wave equation by leapfrog, started by a Taylor half step through the step's own update
/// (the same function, the previous field the current one and half the coefficient): three
/// buffers rotated by handle, a source every step, the energy every tenth step.
pub fn leapfrog_started_by_a_half_step(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 24;
    let ops = &mut cx.ops;
    let grid = ops.block("drum", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut prev = ops.dat::<f64, 2>(&grid, "u_prev", n, h)?;
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut next = ops.dat::<f64, 2>(&grid, "u_next", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let energy = ops.reduction::<f64>("energy", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    for d in [&prev, &next] {
        ops.par_loop(zero_halo2, "zero", &grid, all.clone(), &[d.arg(&pt, Write)])?;
    }
    ops.par_loop(
        wave_init2,
        "init",
        &grid,
        all,
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    let update = |cx: &mut Ctx, u: &Dat<f64>, prev: &Dat<f64>, out: &Dat<f64>, c2: f64| {
        cx.ops.par_loop(
            leapfrog2,
            "leapfrog",
            &grid,
            inner.clone(),
            &[
                u.arg(&five, Read),
                prev.arg(&pt, Read),
                out.arg(&pt, Write),
                Arg::global(c2),
            ],
        )
    };
    // The first step from rest: u(-dt) = u(dt), so u(dt) = u + c2/2 lap(u).
    update(cx, &u, &u, &next, 0.1)?;
    // Undo the doubled u of the leapfrog formula: next = 2u - u + c2/2 lap u = u + c2/2 lap u.
    (prev, u, next) = (u, next, prev);
    for step in 0..36u32 {
        cx.step();
        update(cx, &u, &prev, &next, 0.2)?;
        cx.ops.par_loop(
            source2,
            "source",
            &grid,
            inner.clone(),
            &[Arg::idx(), next.arg(&pt, ReadWrite), Arg::global(0.01)],
        )?;
        (prev, u, next) = (u, next, prev);
        if step % 10 == 9 {
            cx.ops.par_loop(
                energy2,
                "energy",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), prev.arg(&pt, Read), energy.arg()],
            )?;
            cx.result(&energy)?;
        }
    }
    cx.end();
    Ok(vec![prev, u, next])
}

/// An ensemble of three members advanced in lockstep: every step each member goes through one
/// helper (diffuse into its scratch, copy back, its own coefficient as a global constant), then
/// the members are nudged towards their mean (a once-per-step loop after the last member), and
/// the mean's total every sixth step.
pub fn ensemble_in_lockstep(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 12;
    let ops = &mut cx.ops;
    let grid = ops.block("basin", 2)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let mean = ops.dat::<f64, 2>(&grid, "mean", [N as usize; 2], Halo::uniform(1))?;
    let names: Vec<String> = (0..3).map(|m| format!("member{m}")).collect();
    let members = Scratched::new(ops, &grid, (pt, five), N, &names, "_work")?;
    for step in 0..24u32 {
        cx.step();
        for m in 0..members.fields.len() {
            let nu = 0.04 * (m + 1) as f64;
            members.diffuse(&mut cx.ops, m, nu, ["member_diffuse", "member_copy"])?;
        }
        let fields = &members.fields;
        cx.ops.par_loop(
            copy2,
            "mean_start",
            &grid,
            inner.clone(),
            &[fields[0].0.arg(&pt, Read), mean.arg(&pt, Write)],
        )?;
        for (q, _) in &fields[1..] {
            cx.ops.par_loop(
                blend2,
                "mean_add",
                &grid,
                inner.clone(),
                &[q.arg(&pt, Read), mean.arg(&pt, ReadWrite), Arg::global(0.5)],
            )?;
        }
        for (q, _) in fields {
            cx.ops.par_loop(
                blend2,
                "nudge",
                &grid,
                inner.clone(),
                &[mean.arg(&pt, Read), q.arg(&pt, ReadWrite), Arg::global(0.1)],
            )?;
        }
        if step % 6 == 5 {
            cx.ops.par_loop(
                total2,
                "total",
                &grid,
                inner.clone(),
                &[mean.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    let mut dats = vec![mean];
    dats.extend(members.into_dats());
    Ok(dats)
}
