//! The kernels of the written programs, each as a scientist would write it (the kernel macro
//! takes literal offsets, so each side of a boundary is a kernel of its own).

use ops_backends::prelude::*;

#[kernel]
pub fn cond3(idx: Idx, k: Write<f64>) {
    k[(0, 0, 0)] = 1.0 + 0.1 * ((idx[0] * 3 + idx[1] * 5 + idx[2] * 7) % 11) as f64;
}

#[kernel]
pub fn temp3(idx: Idx, u: Write<f64>) {
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
pub fn copy3(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0, 0)] = src[(0, 0, 0)];
}

/// One Jacobi sweep of (1 + 6 c k) u - c k sum(neighbours) = u_old.
#[kernel]
pub fn jacobi3(u: Read<f64>, old: Read<f64>, k: Read<f64>, out: Write<f64>, c: Global<f64>) {
    let ck = c * k[(0, 0, 0)];
    let nb =
        u[(1, 0, 0)] + u[(-1, 0, 0)] + u[(0, 1, 0)] + u[(0, -1, 0)] + u[(0, 0, 1)] + u[(0, 0, -1)];
    out[(0, 0, 0)] = (old[(0, 0, 0)] + ck * nb) / (1.0 + 6.0 * ck);
}

#[kernel]
pub fn change3(a: Read<f64>, b: Read<f64>, m: Max<f64>) {
    m.update((a[(0, 0, 0)] - b[(0, 0, 0)]).abs());
}

#[kernel]
pub fn total3(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0, 0)];
}

#[kernel]
pub fn weighted3(a: Read<f64>, k: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0, 0)] * k[(0, 0, 0)];
}

/// Reflective boundary: the halo layer takes the value of the interior layer next to it.
#[kernel]
pub fn mirror_xm(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(1, 0, 0)];
}
#[kernel]
pub fn mirror_xp(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(-1, 0, 0)];
}
#[kernel]
pub fn mirror_ym(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(0, 1, 0)];
}
#[kernel]
pub fn mirror_yp(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(0, -1, 0)];
}
#[kernel]
pub fn mirror_zm(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(0, 0, 1)];
}
#[kernel]
pub fn mirror_zp(u: Read<f64>, out: Write<f64>) {
    out[(0, 0, 0)] = u[(0, 0, -1)];
}

#[kernel]
pub fn velocity2(idx: Idx, vx: Write<f64>, vy: Write<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    vx[(0, 0)] = 1.0 + 0.02 * y;
    vy[(0, 0)] = 0.5 - 0.01 * x;
}

#[kernel]
pub fn blob2(idx: Idx, q: Write<f64>) {
    let x = idx[0] as f64 - 10.0;
    let y = idx[1] as f64 - 12.0;
    q[(0, 0)] = 1.0 + 4.0 / (1.0 + 0.1 * (x * x + y * y));
}

#[kernel]
pub fn speed2(vx: Read<f64>, vy: Read<f64>, m: Max<f64>) {
    m.update(vx[(0, 0)].abs() + vy[(0, 0)].abs());
}

/// Upwind flux in x (velocities positive in x).
#[kernel]
pub fn flux_x2(q: Read<f64>, vx: Read<f64>, f: Write<f64>) {
    f[(0, 0)] = vx[(0, 0)] * q[(-1, 0)];
}

#[kernel]
pub fn flux_y2(q: Read<f64>, vy: Read<f64>, f: Write<f64>) {
    let v = vy[(0, 0)];
    f[(0, 0)] = if v > 0.0 {
        v * q[(0, -1)]
    } else {
        v * q[(0, 0)]
    };
}

#[kernel]
pub fn advance2(q: Read<f64>, fx: Read<f64>, fy: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] - dt * (fx[(1, 0)] - fx[(0, 0)] + fy[(0, 1)] - fy[(0, 0)]);
}

#[kernel]
pub fn diffuse2(q: Read<f64>, out: Write<f64>, nu: Global<f64>) {
    out[(0, 0)] =
        q[(0, 0)] + nu * (q[(1, 0)] + q[(-1, 0)] + q[(0, 1)] + q[(0, -1)] - 4.0 * q[(0, 0)]);
}

#[kernel]
pub fn copy2(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, 0)];
}

#[kernel]
pub fn halo_xm2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(2, 0)];
}
#[kernel]
pub fn halo_xp2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(-2, 0)];
}
#[kernel]
pub fn halo_ym2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, 2)];
}
#[kernel]
pub fn halo_yp2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, -2)];
}

#[kernel]
pub fn smooth2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = 0.6 * q[(0, 0)] + 0.1 * (q[(1, 0)] + q[(-1, 0)] + q[(0, 1)] + q[(0, -1)]);
}

#[kernel]
pub fn blend2(a: Read<f64>, q: ReadWrite<f64>, w: Global<f64>) {
    q[(0, 0)] = (1.0 - w) * q[(0, 0)] + w * a[(0, 0)];
}

#[kernel]
pub fn total2(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)];
}

#[kernel]
pub fn peak2(a: Read<f64>, m: Max<f64>) {
    m.update(a[(0, 0)]);
}

#[kernel]
pub fn wave_init2(idx: Idx, u: Write<f64>) {
    let x = idx[0] as f64 - 16.0;
    let y = idx[1] as f64 - 16.0;
    u[(0, 0)] = 1.0 / (1.0 + 0.05 * (x * x + y * y));
}

#[kernel]
pub fn leapfrog2(u: Read<f64>, prev: Read<f64>, out: Write<f64>, c2: Global<f64>) {
    out[(0, 0)] = 2.0 * u[(0, 0)] - prev[(0, 0)]
        + c2 * (u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)] - 4.0 * u[(0, 0)]);
}

#[kernel]
pub fn source2(idx: Idx, u: ReadWrite<f64>, a: Global<f64>) {
    if idx[0] == 8 && idx[1] == 8 {
        u[(0, 0)] = u[(0, 0)] + a;
    }
}

#[kernel]
pub fn energy2(u: Read<f64>, prev: Read<f64>, s: Sum<f64>) {
    let d = u[(0, 0)] - prev[(0, 0)];
    s += d * d;
}

#[kernel]
pub fn rhs2(q: Read<f64>, m: Read<f64>, r: Write<f64>) {
    r[(0, 0)] = -0.5 * (m[(1, 0)] - m[(-1, 0)]) + 0.05 * (q[(0, 1)] + q[(0, -1)] - 2.0 * q[(0, 0)]);
}

#[kernel]
pub fn rk_update2(old: Read<f64>, r: Read<f64>, q: ReadWrite<f64>, a: Global<f64>, b: Global<f64>) {
    q[(0, 0)] = a * old[(0, 0)] + b * (q[(0, 0)] + r[(0, 0)]);
}

#[kernel]
pub fn rk_init2(idx: Idx, q: Write<f64>, m: Write<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    q[(0, 0)] = 1.0 + 0.2 * (-0.02 * (x - 10.0) * (x - 10.0)).exp();
    m[(0, 0)] = 0.1 * (-0.01 * (x - 6.0) * (x - 6.0) - 0.02 * (y - 9.0) * (y - 9.0)).exp();
}

#[kernel]
pub fn periodic_xm2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(1, 0)];
}
#[kernel]
pub fn periodic_xp2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(-1, 0)];
}

#[kernel]
pub fn cg_init2(idx: Idx, u: Write<f64>, kx: Write<f64>) {
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
pub fn apply2(p: Read<f64>, kx: Read<f64>, w: Write<f64>) {
    w[(0, 0)] = (1.0 + 4.0 * kx[(0, 0)]) * p[(0, 0)]
        - kx[(0, 0)] * (p[(1, 0)] + p[(-1, 0)] + p[(0, 1)] + p[(0, -1)]);
}

#[kernel]
pub fn residual2(b: Read<f64>, w: Read<f64>, r: Write<f64>, p: Write<f64>, rr: Sum<f64>) {
    let v = b[(0, 0)] - w[(0, 0)];
    r[(0, 0)] = v;
    p[(0, 0)] = v;
    rr += v * v;
}

#[kernel]
pub fn dot2(a: Read<f64>, b: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)] * b[(0, 0)];
}

#[kernel]
pub fn cg_step2(
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
pub fn cg_dir2(r: Read<f64>, p: ReadWrite<f64>, beta: Global<f64>) {
    p[(0, 0)] = r[(0, 0)] + beta * p[(0, 0)];
}

#[kernel]
pub fn zero_halo2(out: Write<f64>) {
    out[(0, 0)] = 0.0;
}

#[kernel]
pub fn nl_init2(idx: Idx, u: Write<f64>) {
    let x = idx[0] as f64 - 5.5;
    let y = idx[1] as f64 - 4.0;
    u[(0, 0)] = 1.0 + 3.0 * (-(x * x + y * y) / 6.0).exp();
}

/// The conductivity of the current iterate: k = 0.2 (1 + u^2 / 4).
#[kernel]
pub fn nl_conductivity2(u: Read<f64>, k: Write<f64>) {
    k[(0, 0)] = 0.2 * (1.0 + 0.25 * u[(0, 0)] * u[(0, 0)]);
}

/// One Jacobi sweep of (1 + 4 k) u - k sum(neighbours) = u_old.
#[kernel]
pub fn nl_sweep2(u: Read<f64>, old: Read<f64>, k: Read<f64>, out: Write<f64>) {
    let kk = k[(0, 0)];
    let nb = u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)];
    out[(0, 0)] = (old[(0, 0)] + kk * nb) / (1.0 + 4.0 * kk);
}

/// Mirror boundaries in y (in x, `periodic_xm2` and `periodic_xp2` copy the same layers).
#[kernel]
pub fn nl_mirror_ym2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, 1)];
}
#[kernel]
pub fn nl_mirror_yp2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, -1)];
}

#[kernel]
pub fn nl_change2(a: Read<f64>, b: Read<f64>, m: Max<f64>) {
    m.update((a[(0, 0)] - b[(0, 0)]).abs());
}

#[kernel]
pub fn split_init2(idx: Idx, q: Write<f64>, c: Write<f64>) {
    let x = idx[0] as f64 - 7.0;
    let y = idx[1] as f64 - 6.0;
    q[(0, 0)] = 1.0 + 2.0 * (-(x * x + y * y) / 8.0).exp();
    c[(0, 0)] = 0.3 + 0.05 * ((idx[0] + idx[1]) % 4) as f64;
}

/// Half of a directionally split diffusion step along x: out = q + dt c (q[+1] - 2q + q[-1]).
#[kernel]
pub fn split_x2(q: Read<f64>, c: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] + dt * c[(0, 0)] * (q[(1, 0)] - 2.0 * q[(0, 0)] + q[(-1, 0)]);
}

#[kernel]
pub fn split_y2(q: Read<f64>, c: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] + dt * c[(0, 0)] * (q[(0, 1)] - 2.0 * q[(0, 0)] + q[(0, -1)]);
}

/// Periodic halos of a 14 x 14 grid: each side's layer copies the opposite interior layer.
#[kernel]
pub fn wrap_xlo2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(14, 0)];
}
#[kernel]
pub fn wrap_xhi2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(-14, 0)];
}
#[kernel]
pub fn wrap_ylo2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, 14)];
}
#[kernel]
pub fn wrap_yhi2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = q[(0, -14)];
}

#[kernel]
pub fn split_speed2(q: Read<f64>, c: Read<f64>, m: Max<f64>) {
    m.update(c[(0, 0)] * (1.0 + 0.01 * q[(0, 0)]));
}

/// A step of u' = -k u (u - 1) (u - a) with the explicit Euler method, and its error estimate
/// against two half steps (the largest difference).
#[kernel]
pub fn react_full2(u: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    let v = u[(0, 0)];
    out[(0, 0)] = v - dt * 4.0 * v * (v - 1.0) * (v - 0.3);
}

#[kernel]
pub fn react_halves2(
    u: Read<f64>,
    full: Read<f64>,
    out: Write<f64>,
    err: Max<f64>,
    dt: Global<f64>,
) {
    let v = u[(0, 0)];
    let h = v - 0.5 * dt * 4.0 * v * (v - 1.0) * (v - 0.3);
    let w = h - 0.5 * dt * 4.0 * h * (h - 1.0) * (h - 0.3);
    out[(0, 0)] = w;
    err.update((w - full[(0, 0)]).abs());
}

#[kernel]
pub fn react_in_place2(u: ReadWrite<f64>, dt: Global<f64>) {
    let v = u[(0, 0)];
    u[(0, 0)] = v - dt * 4.0 * v * (v - 1.0) * (v - 0.3);
}

#[kernel]
pub fn react_init2(idx: Idx, u: Write<f64>) {
    u[(0, 0)] = 0.05 + 0.9 * (((idx[0] * 7 + idx[1] * 3) % 10) as f64) / 10.0;
}

#[kernel]
pub fn upwind2(q: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] - dt * (q[(0, 0)] - q[(-1, 0)]);
}

#[kernel]
pub fn predict2(q: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = q[(0, 0)] - 0.5 * dt * (q[(1, 0)] - q[(-1, 0)]);
}

#[kernel]
pub fn correct2(q: Read<f64>, p: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    out[(0, 0)] = 0.5 * (q[(0, 0)] + p[(0, 0)]) - 0.25 * dt * (p[(0, 0)] - p[(-1, 0)]);
}

#[kernel]
pub fn limit2(q: ReadWrite<f64>, cap: Global<f64>) {
    if q[(0, 0)] > cap {
        q[(0, 0)] = cap;
    }
}

#[kernel]
pub fn remap2(q: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = 0.25 * (q[(1, 0)] + q[(-1, 0)]) + 0.5 * q[(0, 0)];
}

/// One Gray-Scott reaction-diffusion step of two coupled fields.
#[kernel]
pub fn gray_scott2(
    u: Read<f64>,
    v: Read<f64>,
    un: Write<f64>,
    vn: Write<f64>,
    feed: Global<f64>,
    kill: Global<f64>,
) {
    let lu = u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)] - 4.0 * u[(0, 0)];
    let lv = v[(1, 0)] + v[(-1, 0)] + v[(0, 1)] + v[(0, -1)] - 4.0 * v[(0, 0)];
    let uvv = u[(0, 0)] * v[(0, 0)] * v[(0, 0)];
    un[(0, 0)] = u[(0, 0)] + 0.5 * (0.16 * lu - uvv + feed * (1.0 - u[(0, 0)]));
    vn[(0, 0)] = v[(0, 0)] + 0.5 * (0.08 * lv + uvv - (feed + kill) * v[(0, 0)]);
}

#[kernel]
pub fn seed_u2(idx: Idx, u: Write<f64>) {
    let near = (idx[0] - 8).abs() < 3 && (idx[1] - 9).abs() < 3;
    u[(0, 0)] = if near { 0.5 } else { 1.0 };
}

#[kernel]
pub fn seed_v2(idx: Idx, v: Write<f64>) {
    let near = (idx[0] - 8).abs() < 3 && (idx[1] - 9).abs() < 3;
    v[(0, 0)] = if near { 0.25 } else { 0.0 };
}

#[kernel]
pub fn life_init2(idx: Idx, c: Write<i32>) {
    c[(0, 0)] = if (idx[0] * 7 + idx[1] * 13 + idx[0] * idx[1]) % 5 < 2 {
        1
    } else {
        0
    };
}

/// Conway's rule on a torus-free board (the halo stays dead).
#[kernel]
pub fn life_step2(c: Read<i32>, out: Write<i32>) {
    let n = c[(-1, -1)]
        + c[(0, -1)]
        + c[(1, -1)]
        + c[(-1, 0)]
        + c[(1, 0)]
        + c[(-1, 1)]
        + c[(0, 1)]
        + c[(1, 1)];
    out[(0, 0)] = if n == 3 || (n == 2 && c[(0, 0)] == 1) {
        1
    } else {
        0
    };
}

/// How long each cell has been alive, in steps, decaying while it is dead.
#[kernel]
pub fn life_age2(c: Read<i32>, age: ReadWrite<f64>) {
    age[(0, 0)] = if c[(0, 0)] == 1 {
        age[(0, 0)] + 1.0
    } else {
        0.5 * age[(0, 0)]
    };
}

#[kernel]
pub fn life_count2(c: Read<i32>, s: Sum<f64>) {
    s += c[(0, 0)] as f64;
}

#[kernel]
pub fn life_final2(c: Read<i32>, out: Write<f64>) {
    out[(0, 0)] = c[(0, 0)] as f64;
}

/// The diagonal (Jacobi) preconditioner of A = I + k (-Laplacian): z = r / (1 + 4 k).
#[kernel]
pub fn precond_diag2(r: Read<f64>, kx: Read<f64>, z: Write<f64>) {
    z[(0, 0)] = r[(0, 0)] / (1.0 + 4.0 * kx[(0, 0)]);
}

/// One Jacobi sweep of A z = r, the preconditioner's smoothing.
#[kernel]
pub fn precond_sweep2(r: Read<f64>, z: Read<f64>, kx: Read<f64>, out: Write<f64>) {
    let k = kx[(0, 0)];
    let nb = z[(1, 0)] + z[(-1, 0)] + z[(0, 1)] + z[(0, -1)];
    out[(0, 0)] = (r[(0, 0)] + k * nb) / (1.0 + 4.0 * k);
}

/// A heat source switched on in a disc: u += a.
#[kernel]
pub fn disc_source2(idx: Idx, u: ReadWrite<f64>, a: Global<f64>) {
    let x = idx[0] as f64 - 7.0;
    let y = idx[1] as f64 - 5.0;
    if x * x + y * y < 9.0 {
        u[(0, 0)] = u[(0, 0)] + a;
    }
}

/// The true residual, recomputed from the operator's image: r = b - w.
#[kernel]
pub fn true_residual2(b: Read<f64>, w: Read<f64>, r: Write<f64>, rr: Sum<f64>) {
    let v = b[(0, 0)] - w[(0, 0)];
    r[(0, 0)] = v;
    rr += v * v;
}

/// The slow tendency of a split-explicit scheme: a smoothing of q.
#[kernel]
pub fn slow_tendency2(q: Read<f64>, t: Write<f64>) {
    t[(0, 0)] = 0.05 * (q[(1, 0)] + q[(-1, 0)] + q[(0, 1)] + q[(0, -1)] - 4.0 * q[(0, 0)]);
}

/// One fast sub-step: the slow tendency plus a fast oscillation about the mean.
#[kernel]
pub fn fast_step2(q: Read<f64>, t: Read<f64>, out: Write<f64>, dt: Global<f64>) {
    let fast = 0.3 * (q[(1, 0)] - q[(-1, 0)]);
    out[(0, 0)] = q[(0, 0)] + dt * (t[(0, 0)] + fast);
}

/// A velocity field scaled by a gust factor `s`.
#[kernel]
pub fn gust_velocity2(idx: Idx, vx: Write<f64>, vy: Write<f64>, s: Global<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    vx[(0, 0)] = s * (1.0 + 0.02 * y);
    vy[(0, 0)] = s * (0.5 - 0.01 * x);
}

/// y += a x.
#[kernel]
pub fn axpy2(x: Read<f64>, y: ReadWrite<f64>, a: Global<f64>) {
    y[(0, 0)] = y[(0, 0)] + a * x[(0, 0)];
}

/// dst = s src.
#[kernel]
pub fn scale2(src: Read<f64>, dst: Write<f64>, s: Global<f64>) {
    dst[(0, 0)] = s * src[(0, 0)];
}

/// The residual of a pseudo-time iterate of implicit diffusion: (u_old - u) / dt + nu lap(u).
#[kernel]
pub fn pseudo_residual2(u: Read<f64>, old: Read<f64>, r: Write<f64>, nu: Global<f64>) {
    let lap = u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)] - 4.0 * u[(0, 0)];
    r[(0, 0)] = 4.0 * (old[(0, 0)] - u[(0, 0)]) + nu * lap;
}

/// A pseudo-time Runge-Kutta stage: u = u0 + a dtau r.
#[kernel]
pub fn pseudo_stage2(u0: Read<f64>, r: Read<f64>, u: Write<f64>, a: Global<f64>) {
    u[(0, 0)] = u0[(0, 0)] + a * r[(0, 0)];
}

/// The largest residual.
#[kernel]
pub fn peak_abs2(r: Read<f64>, m: Max<f64>) {
    m.update(r[(0, 0)].abs());
}
