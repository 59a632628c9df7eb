//! Automatic checkpointing on programs written the way scientists write them, not generated:
//! an implicit heat solver with a Jacobi solve to a tolerance, an advection-diffusion code with
//! sub-cycles, a smoothing pass decided from a fetched window, a monitor and final statistics,
//! an explicit Runge-Kutta code whose stages are an inner loop of fixed trip count, a wave
//! code rotating three buffers with a source switched off after a while, a CG solver whose
//! iteration count varies from step to step, a nonlinear solver three loops deep (Picard
//! iterations of Jacobi solves), a split scheme alternating its sweep order, adaptive time
//! steps retried when their error is too large, operator splitting with a fixed sub-cycle of
//! identical calls, two solves one after the other in each step, a time loop run to an end time
//! with output by simulated time, a tracer released mid-run with a front that grows, and two
//! known limits: an advection code that changes its scheme after a spin-up, and a step that
//! starts with its solve. Each is judged by the brute-force oracle
//! (`oracle::judge`): the learnt location saves at most 1.05 x the best boundary's checkpoint,
//! checkpoints come once per N time steps, and restarts from every checkpoint are bitwise and
//! keep the schedule.

mod oracle;

use ops_backends::prelude::*;
use oracle::{judge, Ctx};

// ------------------------------------------------------------------------------------------
// Kernels
// ------------------------------------------------------------------------------------------

#[kernel]
fn cond3(idx: Idx, k: Write<f64>) {
    k[(0, 0, 0)] = 1.0 + 0.1 * ((idx[0] * 3 + idx[1] * 5 + idx[2] * 7) % 11) as f64;
}

#[kernel]
fn temp3(idx: Idx, u: Write<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    let z = idx[2] as f64;
    u[(0, 0, 0)] = if (x - 4.0).abs() + (y - 5.0).abs() + (z - 3.0).abs() < 4.0 {
        10.0
    } else {
        1.0
    };
}

#[kernel]
fn copy3(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0, 0)] = src[(0, 0, 0)];
}

/// One Jacobi sweep of (1 + 6 c k) u - c k sum(neighbours) = u_old.
#[kernel]
fn jacobi3(u: Read<f64>, old: Read<f64>, k: Read<f64>, out: Write<f64>, c: Global<f64>) {
    let ck = c * k[(0, 0, 0)];
    let nb =
        u[(1, 0, 0)] + u[(-1, 0, 0)] + u[(0, 1, 0)] + u[(0, -1, 0)] + u[(0, 0, 1)] + u[(0, 0, -1)];
    out[(0, 0, 0)] = (old[(0, 0, 0)] + ck * nb) / (1.0 + 6.0 * ck);
}

#[kernel]
fn change3(a: Read<f64>, b: Read<f64>, m: Max<f64>) {
    m.update((a[(0, 0, 0)] - b[(0, 0, 0)]).abs());
}

#[kernel]
fn total3(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0, 0)];
}

#[kernel]
fn weighted3(a: Read<f64>, k: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0, 0)] * k[(0, 0, 0)];
}

/// Reflective boundary: the halo layer takes the value of the interior layer next to it.
#[kernel]
fn mirror_xm(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(1, 0, 0)];
}
#[kernel]
fn mirror_xp(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(-1, 0, 0)];
}
#[kernel]
fn mirror_ym(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(0, 1, 0)];
}
#[kernel]
fn mirror_yp(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(0, -1, 0)];
}
#[kernel]
fn mirror_zm(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(0, 0, 1)];
}
#[kernel]
fn mirror_zp(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(0, 0, -1)];
}

#[kernel]
fn velocity2(idx: Idx, vx: Write<f64>, vy: Write<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    vx[(0, 0)] = 1.0 + 0.02 * y;
    vy[(0, 0)] = 0.5 - 0.01 * x;
}

#[kernel]
fn blob2(idx: Idx, q: Write<f64>) {
    let x = idx[0] as f64 - 10.0;
    let y = idx[1] as f64 - 12.0;
    q[(0, 0)] = 1.0 + 4.0 / (1.0 + 0.1 * (x * x + y * y));
}

#[kernel]
fn speed2(vx: Read<f64>, vy: Read<f64>, m: Max<f64>) {
    m.update(vx[(0, 0)].abs() + vy[(0, 0)].abs());
}

/// Upwind flux in x (velocities positive in x).
#[kernel]
fn flux_x2(q: Read<f64>, vx: Read<f64>, f: Write<f64>) {
    f[(0, 0)] = vx[(0, 0)] * q[(-1, 0)];
}

#[kernel]
fn flux_y2(q: Read<f64>, vy: Read<f64>, f: Write<f64>) {
    let v = vy[(0, 0)];
    f[(0, 0)] = if v > 0.0 {
        v * q[(0, -1)]
    } else {
        v * q[(0, 0)]
    };
}

#[kernel]
fn advance2(q: Read<f64>, fx: Read<f64>, fy: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] - dt * (fx[(1, 0)] - fx[(0, 0)] + fy[(0, 1)] - fy[(0, 0)]);
}

#[kernel]
fn diffuse2(q: Read<f64>, out: Write<f64>, nu: Global<f64>) {
    out[(0, 0)] =
        q[(0, 0)] + nu * (q[(1, 0)] + q[(-1, 0)] + q[(0, 1)] + q[(0, -1)] - 4.0 * q[(0, 0)]);
}

#[kernel]
fn copy2(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, 0)];
}

#[kernel]
fn halo_xm2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(2, 0)];
}
#[kernel]
fn halo_xp2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(-2, 0)];
}
#[kernel]
fn halo_ym2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, 2)];
}
#[kernel]
fn halo_yp2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, -2)];
}

#[kernel]
fn smooth2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = 0.6 * q[(0, 0)] + 0.1 * (q[(1, 0)] + q[(-1, 0)] + q[(0, 1)] + q[(0, -1)]);
}

#[kernel]
fn blend2(a: Read<f64>, q: ReadWrite<f64>, w: Global<f64>) {
    q[(0, 0)] = (1.0 - w) * q[(0, 0)] + w * a[(0, 0)];
}

#[kernel]
fn total2(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)];
}

#[kernel]
fn peak2(a: Read<f64>, m: Max<f64>) {
    m.update(a[(0, 0)]);
}

#[kernel]
fn wave_init2(idx: Idx, u: Write<f64>) {
    let x = idx[0] as f64 - 16.0;
    let y = idx[1] as f64 - 16.0;
    u[(0, 0)] = 1.0 / (1.0 + 0.05 * (x * x + y * y));
}

#[kernel]
fn leapfrog2(u: Read<f64>, prev: Read<f64>, out: Write<f64>, c2: Global<f64>) {
    out[(0, 0)] = 2.0 * u[(0, 0)] - prev[(0, 0)]
        + c2 * (u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)] - 4.0 * u[(0, 0)]);
}

#[kernel]
fn source2(idx: Idx, u: ReadWrite<f64>, a: Global<f64>) {
    if idx[0] == 8 && idx[1] == 8 {
        u[(0, 0)] = u[(0, 0)] + a;
    }
}

#[kernel]
fn energy2(u: Read<f64>, prev: Read<f64>, s: Sum<f64>) {
    let d = u[(0, 0)] - prev[(0, 0)];
    s += d * d;
}

#[kernel]
fn rhs2(q: Read<f64>, m: Read<f64>, r: Write<f64>) {
    r[(0, 0)] = -0.5 * (m[(1, 0)] - m[(-1, 0)]) + 0.05 * (q[(0, 1)] + q[(0, -1)] - 2.0 * q[(0, 0)]);
}

#[kernel]
fn rk_update2(old: Read<f64>, r: Read<f64>, q: ReadWrite<f64>, a: Global<f64>, b: Global<f64>) {
    q[(0, 0)] = a * old[(0, 0)] + b * (q[(0, 0)] + r[(0, 0)]);
}

#[kernel]
fn rk_init2(idx: Idx, q: Write<f64>, m: Write<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    q[(0, 0)] = 1.0 + 0.2 * (-0.02 * (x - 10.0) * (x - 10.0)).exp();
    m[(0, 0)] = 0.1 * (-0.01 * (x - 6.0) * (x - 6.0) - 0.02 * (y - 9.0) * (y - 9.0)).exp();
}

#[kernel]
fn periodic_xm2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(1, 0)];
}
#[kernel]
fn periodic_xp2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(-1, 0)];
}

#[kernel]
fn cg_init2(idx: Idx, u: Write<f64>, kx: Write<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    u[(0, 0)] = 1.0
        + if (x - 6.0).abs() < 3.0 && (y - 9.0).abs() < 4.0 {
            5.0
        } else {
            0.0
        };
    kx[(0, 0)] = 0.2 + 0.05 * ((idx[0] + 2 * idx[1]) % 5) as f64;
}

/// A = I + k (-Laplacian): w = A p.
#[kernel]
fn apply2(p: Read<f64>, kx: Read<f64>, w: Write<f64>) {
    w[(0, 0)] = (1.0 + 4.0 * kx[(0, 0)]) * p[(0, 0)]
        - kx[(0, 0)] * (p[(1, 0)] + p[(-1, 0)] + p[(0, 1)] + p[(0, -1)]);
}

#[kernel]
fn residual2(b: Read<f64>, w: Read<f64>, r: Write<f64>, p: Write<f64>, rr: Sum<f64>) {
    let v = b[(0, 0)] - w[(0, 0)];
    r[(0, 0)] = v;
    p[(0, 0)] = v;
    rr += v * v;
}

#[kernel]
fn dot2(a: Read<f64>, b: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)] * b[(0, 0)];
}

#[kernel]
fn cg_step2(
    p: Read<f64>,
    w: Read<f64>,
    u: ReadWrite<f64>,
    r: ReadWrite<f64>,
    alpha: Global<f64>,
    rr: Sum<f64>,
) {
    u[(0, 0)] = u[(0, 0)] + alpha * p[(0, 0)];
    let v = r[(0, 0)] - alpha * w[(0, 0)];
    r[(0, 0)] = v;
    rr += v * v;
}

#[kernel]
fn cg_dir2(r: Read<f64>, p: ReadWrite<f64>, beta: Global<f64>) {
    p[(0, 0)] = r[(0, 0)] + beta * p[(0, 0)];
}

#[kernel]
fn zero_halo2(out: Write<f64>) {
    out[(0, 0)] = 0.0;
}

#[kernel]
fn nl_init2(idx: Idx, u: Write<f64>) {
    let x = idx[0] as f64 - 5.5;
    let y = idx[1] as f64 - 4.0;
    u[(0, 0)] = 1.0 + 3.0 * (-(x * x + y * y) / 6.0).exp();
}

/// The conductivity of the current iterate: k = 0.2 (1 + u^2 / 4).
#[kernel]
fn nl_conductivity2(u: Read<f64>, k: Write<f64>) {
    k[(0, 0)] = 0.2 * (1.0 + 0.25 * u[(0, 0)] * u[(0, 0)]);
}

/// One Jacobi sweep of (1 + 4 k) u - k sum(neighbours) = u_old.
#[kernel]
fn nl_sweep2(u: Read<f64>, old: Read<f64>, k: Read<f64>, out: Write<f64>) {
    let kk = k[(0, 0)];
    let nb = u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)];
    out[(0, 0)] = (old[(0, 0)] + kk * nb) / (1.0 + 4.0 * kk);
}

/// Mirror boundaries in y (in x, `periodic_xm2` and `periodic_xp2` copy the same layers).
#[kernel]
fn nl_mirror_ym2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, 1)];
}
#[kernel]
fn nl_mirror_yp2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, -1)];
}

#[kernel]
fn nl_change2(a: Read<f64>, b: Read<f64>, m: Max<f64>) {
    m.update((a[(0, 0)] - b[(0, 0)]).abs());
}

#[kernel]
fn split_init2(idx: Idx, q: Write<f64>, c: Write<f64>) {
    let x = idx[0] as f64 - 7.0;
    let y = idx[1] as f64 - 6.0;
    q[(0, 0)] = 1.0 + 2.0 * (-(x * x + y * y) / 8.0).exp();
    c[(0, 0)] = 0.3 + 0.05 * ((idx[0] + idx[1]) % 4) as f64;
}

/// Half of a directionally split diffusion step along x: out = q + dt c (q[+1] - 2q + q[-1]).
#[kernel]
fn split_x2(q: Read<f64>, c: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] + dt * c[(0, 0)] * (q[(1, 0)] - 2.0 * q[(0, 0)] + q[(-1, 0)]);
}

#[kernel]
fn split_y2(q: Read<f64>, c: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] + dt * c[(0, 0)] * (q[(0, 1)] - 2.0 * q[(0, 0)] + q[(0, -1)]);
}

/// Periodic halos of a 14 x 14 grid: each side's layer copies the opposite interior layer.
#[kernel]
fn wrap_xlo2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(14, 0)];
}
#[kernel]
fn wrap_xhi2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(-14, 0)];
}
#[kernel]
fn wrap_ylo2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, 14)];
}
#[kernel]
fn wrap_yhi2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, -14)];
}

#[kernel]
fn split_speed2(q: Read<f64>, c: Read<f64>, m: Max<f64>) {
    m.update(c[(0, 0)] * (1.0 + 0.01 * q[(0, 0)]));
}

/// A step of u' = -k u (u - 1) (u - a) with the explicit Euler method, and its error estimate
/// against two half steps (the largest difference).
#[kernel]
fn react_full2(u: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    let v = u[(0, 0)];
    out[(0, 0)] = v - dt * 4.0 * v * (v - 1.0) * (v - 0.3);
}

#[kernel]
fn react_halves2(u: Read<f64>, full: Read<f64>, out: Write<f64>, err: Max<f64>, dt: Global<f64>) {
    let v = u[(0, 0)];
    let h = v - 0.5 * dt * 4.0 * v * (v - 1.0) * (v - 0.3);
    let w = h - 0.5 * dt * 4.0 * h * (h - 1.0) * (h - 0.3);
    out[(0, 0)] = w;
    err.update((w - full[(0, 0)]).abs());
}

#[kernel]
fn react_in_place2(u: ReadWrite<f64>, dt: Global<f64>) {
    let v = u[(0, 0)];
    u[(0, 0)] = v - dt * 4.0 * v * (v - 1.0) * (v - 0.3);
}

#[kernel]
fn react_init2(idx: Idx, u: Write<f64>) {
    u[(0, 0)] = 0.05 + 0.9 * (((idx[0] * 7 + idx[1] * 3) % 10) as f64) / 10.0;
}

#[kernel]
fn upwind2(q: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] - dt * (q[(0, 0)] - q[(-1, 0)]);
}

#[kernel]
fn predict2(q: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] - 0.5 * dt * (q[(1, 0)] - q[(-1, 0)]);
}

#[kernel]
fn correct2(q: Read<f64>, p: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = 0.5 * (q[(0, 0)] + p[(0, 0)]) - 0.25 * dt * (p[(0, 0)] - p[(-1, 0)]);
}

#[kernel]
fn limit2(q: ReadWrite<f64>, cap: Global<f64>) {
    if q[(0, 0)] > cap {
        q[(0, 0)] = cap;
    }
}

#[kernel]
fn remap2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = 0.25 * (q[(1, 0)] + q[(-1, 0)]) + 0.5 * q[(0, 0)];
}

// ------------------------------------------------------------------------------------------
// Programs
// ------------------------------------------------------------------------------------------

/// A 3-D implicit heat solver: conductivity computed once, every step saves the temperature
/// and solves for the new one by Jacobi sweeps to a tolerance (the trip count comes from a
/// residual reduction), the two buffers swapped by handles, reflective boundaries on every
/// face, the total energy every step, a weighted total at the end.
fn implicit_heat(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

/// 2-D advection-diffusion: velocities computed once; every step a stable time step from a
/// reduction, upwind fluxes, the update into a second buffer, diffusion back, and halo fills
/// of depth 2; every 5 steps a filter sub-cycle of 3 passes; every 10 steps a window of the
/// field is fetched and, when its sum is large, a smoothing pass runs; every 50 steps a
/// monitor; final statistics after the time loop.
fn advection_diffusion(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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
fn runge_kutta(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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
fn wave(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

/// An implicit diffusion step by conjugate gradients: the right-hand side is the current
/// field, the solve runs until the residual falls below a tolerance (a varying number of
/// iterations), and the solution becomes the field.
fn conjugate_gradient(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("sheet", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let kx = ops.dat::<f64, 2>(&grid, "kx", n, h)?;
    let rhs = ops.dat::<f64, 2>(&grid, "rhs", n, h)?;
    let r = ops.dat::<f64, 2>(&grid, "r", n, h)?;
    let p = ops.dat::<f64, 2>(&grid, "p", n, h)?;
    let w = ops.dat::<f64, 2>(&grid, "w", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let rr = ops.reduction::<f64>("rr", ReduceOp::Sum);
    let pw = ops.reduction::<f64>("pw", ReduceOp::Sum);
    let inner = [0..N, 0..N];
    let all = [-1..N + 1, -1..N + 1];
    ops.par_loop(
        cg_init2,
        "init",
        &grid,
        all.clone(),
        &[Arg::idx(), u.arg(&pt, Write), kx.arg(&pt, Write)],
    )?;
    ops.par_loop(zero_halo2, "zero_p", &grid, all, &[p.arg(&pt, Write)])?;
    for _ in 0..12u32 {
        cx.step();
        let ops = &mut cx.ops;
        ops.par_loop(
            copy2,
            "rhs",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), rhs.arg(&pt, Write)],
        )?;
        ops.par_loop(
            apply2,
            "apply_u",
            &grid,
            inner.clone(),
            &[u.arg(&five, Read), kx.arg(&pt, Read), w.arg(&pt, Write)],
        )?;
        ops.par_loop(
            residual2,
            "residual",
            &grid,
            inner.clone(),
            &[
                rhs.arg(&pt, Read),
                w.arg(&pt, Read),
                r.arg(&pt, Write),
                p.arg(&pt, Write),
                rr.arg(),
            ],
        )?;
        let mut rho = cx.result(&rr)?;
        let mut it = 0;
        while rho > 1e-6 && it < 40 {
            let ops = &mut cx.ops;
            ops.par_loop(
                apply2,
                "apply_p",
                &grid,
                inner.clone(),
                &[p.arg(&five, Read), kx.arg(&pt, Read), w.arg(&pt, Write)],
            )?;
            ops.par_loop(
                dot2,
                "pw",
                &grid,
                inner.clone(),
                &[p.arg(&pt, Read), w.arg(&pt, Read), pw.arg()],
            )?;
            let alpha = rho / cx.result(&pw)?;
            cx.ops.par_loop(
                cg_step2,
                "cg_step",
                &grid,
                inner.clone(),
                &[
                    p.arg(&pt, Read),
                    w.arg(&pt, Read),
                    u.arg(&pt, ReadWrite),
                    r.arg(&pt, ReadWrite),
                    Arg::global(alpha),
                    rr.arg(),
                ],
            )?;
            let next = cx.result(&rr)?;
            cx.ops.par_loop(
                cg_dir2,
                "cg_direction",
                &grid,
                inner.clone(),
                &[
                    r.arg(&pt, Read),
                    p.arg(&pt, ReadWrite),
                    Arg::global(next / rho),
                ],
            )?;
            rho = next;
            it += 1;
        }
    }
    cx.end();
    Ok(vec![u, kx, rhs, r, p, w])
}

/// Nonlinear implicit diffusion, three loops deep: every step saves the field and runs Picard
/// iterations until the iterate settles; each Picard iteration computes the conductivity of
/// the current iterate and solves the linearised step by Jacobi sweeps to a tolerance (both
/// trip counts come from reductions); the four mirror boundaries run from one call site (a
/// kernel, stencil and range per side); the field's peak is fetched every 4 steps; the total
/// after the time loop.
fn nonlinear_diffusion(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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
    // Each side reads the layer inside it.
    let sides: [(
        &dyn ops_core::kernel::Kernel,
        Stencil,
        [std::ops::Range<i32>; 2],
    ); 4] = [
        (&periodic_xm2, ops.stencil("xp", &[[1, 0]])?, [-1..0, 0..N]),
        (
            &periodic_xp2,
            ops.stencil("xm", &[[-1, 0]])?,
            [N..N + 1, 0..N],
        ),
        (
            &nl_mirror_ym2,
            ops.stencil("yp", &[[0, 1]])?,
            [-1..N + 1, -1..0],
        ),
        (
            &nl_mirror_yp2,
            ops.stencil("ym", &[[0, -1]])?,
            [-1..N + 1, N..N + 1],
        ),
    ];
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
                for (kernel, st, r) in &sides {
                    ops.par_loop_dyn(
                        *kernel,
                        "mirror",
                        &grid,
                        r.clone().into(),
                        &[un.arg(st, Read), un.arg(&pt, Write)],
                    )?;
                }
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

/// Directionally split (Strang-like) diffusion: the time step comes from a reduction; even
/// steps sweep x then y, odd steps y then x, each sweep into the other buffer followed by its
/// periodic halo copies (one call site copying all four sides); a total every 5 steps.
fn split_diffusion(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

/// Adaptive time steps with rejection: every step takes a full Euler step and two half steps
/// of a stiff reaction; when the error estimate is too large the step is retried from the
/// saved state with half the time step (so the step's loops run one to several times, as the
/// data decides), else the time step grows; the field is fetched every 6 accepted steps.
fn adaptive_reaction(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

/// Advection in two phases: a time step from a reduction every step; for the first 6 steps a
/// first-order upwind update (spin-up), then a predictor-corrector; every 7 steps a remap
/// at the top of the step, before the time step; a limiter whenever the fetched peak is over a
/// cap; periodic halos by a copy loop per side at one call site.
fn two_phase_advection(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

/// A step that starts with its solve: each step solves (1 + 4 k) v - k sum(neighbours of v) = u
/// for the new field v by Jacobi sweeps from v's last value until the change is small (nothing
/// runs before the sweeps in a step), then relaxes u towards v and sums the energy.
fn solve_first(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

/// Operator splitting with a fixed sub-cycle: every step advects the field, then runs four
/// identical reaction sub-steps of two loops (the same calls four times: a fixed trip count, no
/// constant that tells the sub-steps apart), then a diffusion pass and the total.
fn fixed_sub_steps(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

/// Two solves per step, one after the other (a pressure-like and a temperature-like field, each
/// by Jacobi sweeps to its own tolerance), between a prediction and a correction.
fn two_solves(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

/// A time loop run to an end time rather than a step count: the time step comes from a
/// reduction and shrinks as the run goes on, the last step is cut to land on the end time, and
/// the field is written out (fetched whole) every 4 time units of simulated time, so every few
/// steps, irregularly.
fn to_an_end_time(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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
fn late_tracer(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
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

// ------------------------------------------------------------------------------------------
// Tests
// ------------------------------------------------------------------------------------------

fn check(name: &str, program: oracle::Program<'_>) {
    let mut failures = Vec::new();
    for every in [1, 2, 3] {
        match judge(program, every) {
            Ok(v) => eprintln!("{name}, every {every}: {v:?}"),
            Err(e) => failures.push(format!("{name}, every {every}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A program the learner is known to miss (docs/resilience.md, "Known limits"): for every N
/// the judge fails in the recorded way (`how` starts its verdict), so that the test fails as
/// soon as the miss changes or is mended (then it moves to [`check`]).
fn check_known_limit(name: &str, program: oracle::Program<'_>, how: &str) {
    for every in [1, 2, 3] {
        match judge(program, every) {
            Ok(v) => panic!("{name}, every {every}: a known limit now passes ({v:?}): use check"),
            Err(e) => assert!(
                e.starts_with(how),
                "{name}, every {every}: a known limit (\"{how} ...\") now fails otherwise: {e}"
            ),
        }
    }
}

#[test]
fn an_implicit_heat_solver_with_a_jacobi_solve_to_a_tolerance() {
    check("implicit heat", &implicit_heat);
}

#[test]
fn an_advection_code_with_sub_cycles_fetched_branches_a_monitor_and_final_statistics() {
    check("advection-diffusion", &advection_diffusion);
}

#[test]
fn a_runge_kutta_code_whose_stages_are_an_inner_loop() {
    check("Runge-Kutta", &runge_kutta);
}

#[test]
fn a_wave_code_rotating_three_buffers_with_a_source_switched_off() {
    check("wave", &wave);
}

#[test]
fn a_conjugate_gradient_solve_per_step() {
    check("conjugate gradient", &conjugate_gradient);
}

#[test]
fn a_nonlinear_solver_three_loops_deep() {
    check("nonlinear diffusion", &nonlinear_diffusion);
}

#[test]
fn a_split_scheme_alternating_its_sweep_order() {
    check("split diffusion", &split_diffusion);
}

#[test]
fn adaptive_time_steps_retried_when_the_error_is_too_large() {
    check("adaptive reaction", &adaptive_reaction);
}

/// Known limit: when the spin-up's scheme ends, the tally of the decided boundaries (one of
/// two others stopped running) reads as the chosen location coming round early; the review
/// that follows reads the recording of both phases, and moves to the new scheme's predictor
/// (1.14 x the hand minimum; it does not run in the spin-up's steps).
#[test]
fn advection_changing_its_scheme_after_a_spin_up_with_remaps_and_a_limiter() {
    check_known_limit(
        "two-phase advection",
        &two_phase_advection,
        "the chosen location `predict` does not run once per step",
    );
}

/// Known limit: with nothing before the solve in a step, the solve is taken for the time loop
/// until the loops after it recur, at the end of the second step: checkpoints by count come
/// every N sweeps in the first two steps (once per step from the fourth).
#[test]
fn a_step_that_starts_with_its_solve() {
    check_known_limit("solve first", &solve_first, "checkpoints counted in steps");
}

#[test]
fn operator_splitting_with_a_fixed_sub_cycle() {
    check("fixed sub-steps", &fixed_sub_steps);
}

#[test]
fn two_solves_per_step_one_after_the_other() {
    check("two solves", &two_solves);
}

#[test]
fn a_time_loop_run_to_an_end_time_with_output_by_simulated_time() {
    check("end time", &to_an_end_time);
}

/// The tracer's loops, new from step 8 on, make the step's passes longer: they count against
/// the step's level only once a pass holding them completes (before, no pass could hold them).
#[test]
fn a_tracer_released_mid_run_and_a_front_that_grows() {
    check("late tracer", &late_tracer);
}

#[test]
#[ignore = "debugging aid: OPS_PROGRAM=<name> ... -- --ignored --nocapture"]
fn debug_program() {
    let name = std::env::var("OPS_PROGRAM").unwrap();
    let program: oracle::Program<'_> = match name.as_str() {
        "heat" => &implicit_heat,
        "advection" => &advection_diffusion,
        "rk" => &runge_kutta,
        "wave" => &wave,
        "cg" => &conjugate_gradient,
        "nonlinear" => &nonlinear_diffusion,
        "split" => &split_diffusion,
        "adaptive" => &adaptive_reaction,
        "two-phase" => &two_phase_advection,
        "solve-first" => &solve_first,
        "sub-steps" => &fixed_sub_steps,
        "two-solves" => &two_solves,
        "end-time" => &to_an_end_time,
        "tracer" => &late_tracer,
        _ => panic!("no program {name}"),
    };
    let reference = oracle::run(program, None, |_| {});
    for (i, s) in reference.ran.iter().enumerate() {
        let mut c: Vec<(String, usize)> = Vec::new();
        for n in s {
            match c.iter_mut().find(|(m, _)| m == n) {
                Some((_, k)) => *k += 1,
                None => c.push((n.clone(), 1)),
            }
        }
        let c: Vec<String> = c
            .iter()
            .map(|(n, k)| {
                if *k == 1 {
                    n.clone()
                } else {
                    format!("{n}x{k}")
                }
            })
            .collect();
        eprintln!("step {i}: {} loops: {}", s.len(), c.join(" "));
    }
    let every = std::env::var("OPS_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let learnt = oracle::run(program, Some(oracle::config(every)), |_| {});
    oracle::print_learnt(&learnt);
}
