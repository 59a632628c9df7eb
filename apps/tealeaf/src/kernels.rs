//! Every TeaLeaf grid computation as a `#[kernel]`.
//!
//! Index conventions (0-based): cell `(j, k)` spans vertices `j..j+1` in x and `k..k+1` in y;
//! interior cells are `0..nx` x `0..ny`. `Kx(j, k)` couples cell `(j, k)` to `(j - 1, k)`, and
//! `Ky(j, k)` couples it to `(j, k - 1)`. The arithmetic keeps the original mini-app's expressions
//! term by term and in the same order, so every value is the one the original computes (up to the
//! fused multiply-adds its compiler may form and the order of its reduction sums).
//!
//! The 5-point operator applied to `x` at a cell is
//! `Di*x - ry*(Ky(k+1)*x(k+1) + Ky(k)*x(k-1)) - rx*(Kx(j+1)*x(j+1) + Kx(j)*x(j-1))`, with
//! `Di = 1 + ry*(Ky(k+1) + Ky(k)) + rx*(Kx(j+1) + Kx(j))`.

#![allow(clippy::too_many_arguments)]

use ops::prelude::*;

// ----------------------------------------------------------------------------------------------
// Mesh: coordinates and volumes (initialise_chunk)
// ----------------------------------------------------------------------------------------------

/// Vertex x coordinates along the 1-D `vertexx` array.
#[kernel]
pub fn init_vertex_x(vertex: Write<f64>, idx: Idx, origin: Global<f64>, d: Global<f64>) {
    vertex[(0, 0)] = origin + d * (idx[0] as f64);
}

/// Vertex y coordinates along the 1-D `vertexy` array.
#[kernel]
pub fn init_vertex_y(vertex: Write<f64>, idx: Idx, origin: Global<f64>, d: Global<f64>) {
    vertex[(0, 0)] = origin + d * (idx[1] as f64);
}

/// Cell-centre x coordinates.
#[kernel]
pub fn init_cell_x(vertexx: Read<f64>, cellx: Write<f64>) {
    cellx[(0, 0)] = 0.5 * (vertexx[(0, 0)] + vertexx[(1, 0)]);
}

/// Cell-centre y coordinates.
#[kernel]
pub fn init_cell_y(vertexy: Read<f64>, celly: Write<f64>) {
    celly[(0, 0)] = 0.5 * (vertexy[(0, 0)] + vertexy[(0, 1)]);
}

/// Cell volumes.
#[kernel]
pub fn init_volume(volume: Write<f64>, dx: Global<f64>, dy: Global<f64>) {
    volume[(0, 0)] = dx * dy;
}

// ----------------------------------------------------------------------------------------------
// generate_chunk and set_field
// ----------------------------------------------------------------------------------------------

/// State 1, the background, everywhere.
#[kernel]
pub fn generate_background(
    density: Write<f64>,
    energy0: Write<f64>,
    d: Global<f64>,
    e: Global<f64>,
) {
    density[(0, 0)] = d;
    energy0[(0, 0)] = e;
}

/// A later state's values where its region covers the cell; counts the interior cells it takes.
///
/// `geometry`: 1 rectangle (interior cells overlapping it), 2 circle (cells whose centre is
/// inside), 3 point (the cell whose lower-left vertex it is).
#[kernel]
pub fn generate_state(
    vertexx: Read<f64>,
    vertexy: Read<f64>,
    cellx: Read<f64>,
    celly: Read<f64>,
    density: ReadWrite<f64>,
    energy0: ReadWrite<f64>,
    idx: Idx,
    geometry: Global<i32>,
    xmin: Global<f64>,
    xmax: Global<f64>,
    ymin: Global<f64>,
    ymax: Global<f64>,
    radius: Global<f64>,
    d: Global<f64>,
    e: Global<f64>,
    nx: Global<i32>,
    ny: Global<i32>,
    count: Sum<f64>,
) {
    let interior = idx[0] >= 0 && idx[0] < nx && idx[1] >= 0 && idx[1] < ny;
    let mut inside = false;
    if geometry == 1 {
        if interior {
            if vertexx[(1, 0)] >= xmin && vertexx[(0, 0)] < xmax {
                if vertexy[(0, 1)] >= ymin && vertexy[(0, 0)] < ymax {
                    inside = true;
                }
            }
        }
    } else if geometry == 2 {
        let r = ((cellx[(0, 0)] - xmin) * (cellx[(0, 0)] - xmin)
            + (celly[(0, 0)] - ymin) * (celly[(0, 0)] - ymin))
            .sqrt();
        if r <= radius {
            inside = true;
        }
    } else if geometry == 3 {
        if vertexx[(0, 0)] == xmin && vertexy[(0, 0)] == ymin {
            inside = true;
        }
    }
    if inside {
        density[(0, 0)] = d;
        energy0[(0, 0)] = e;
        if interior {
            count += 1.0;
        }
    }
}

/// The generator's `u = energy0 * density` (halo included).
#[kernel]
pub fn generate_u(energy0: Read<f64>, density: Read<f64>, u: Write<f64>) {
    u[(0, 0)] = energy0[(0, 0)] * density[(0, 0)];
}

/// `dst = src` (set_field, PPCG's stores, Jacobi's previous iterate).
#[kernel]
pub fn copy(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, 0)];
}

// ----------------------------------------------------------------------------------------------
// tea_leaf_common: the operator, residuals, norms, finalise, field summary
// ----------------------------------------------------------------------------------------------

/// `u = u0 = energy * density` on the interior.
#[kernel]
pub fn init_u(energy: Read<f64>, density: Read<f64>, u: Write<f64>, u0: Write<f64>) {
    u[(0, 0)] = energy[(0, 0)] * density[(0, 0)];
    u0[(0, 0)] = energy[(0, 0)] * density[(0, 0)];
}

/// The face conduction coefficients from the density (or its inverse when `recip` is 1); with
/// `zero_boundary` 1 the coefficients on and beyond the domain faces are zero.
#[kernel]
pub fn init_k(
    density: Read<f64>,
    kx: Write<f64>,
    ky: Write<f64>,
    idx: Idx,
    recip: Global<i32>,
    zero_boundary: Global<i32>,
    nx: Global<i32>,
    ny: Global<i32>,
) {
    let mut wc = density[(0, 0)];
    let mut wl = density[(-1, 0)];
    let mut wb = density[(0, -1)];
    if recip == 1 {
        wc = 1.0 / density[(0, 0)];
        wl = 1.0 / density[(-1, 0)];
        wb = 1.0 / density[(0, -1)];
    }
    let mut x = (wl + wc) / (2.0 * wl * wc);
    let mut y = (wb + wc) / (2.0 * wb * wc);
    if zero_boundary == 1 {
        if idx[0] <= 0 || idx[0] >= nx {
            x = 0.0;
        }
        if idx[1] <= 0 || idx[1] >= ny {
            y = 0.0;
        }
    }
    kx[(0, 0)] = x;
    ky[(0, 0)] = y;
}

/// The operator's diagonal.
#[kernel]
pub fn init_di(kx: Read<f64>, ky: Read<f64>, di: Write<f64>, rx: Global<f64>, ry: Global<f64>) {
    di[(0, 0)] = 1.0 + ry * (ky[(0, 1)] + ky[(0, 0)]) + rx * (kx[(1, 0)] + kx[(0, 0)]);
}

/// The diagonal (Jacobi) preconditioner: the inverse of the diagonal, 0 where it is 0.
#[kernel]
pub fn init_mi(di: Read<f64>, mi: Write<f64>) {
    let d = di[(0, 0)];
    let mut m = 0.0;
    if d != 0.0 {
        m = 1.0 / d;
    }
    mi[(0, 0)] = m;
}

/// `r = u0 - A u` and `norm += r*r` (calc_residual followed by the 2-norm of r).
#[kernel]
pub fn calc_residual(
    u: Read<f64>,
    u0: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    di: Read<f64>,
    r: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
    norm: Sum<f64>,
) {
    let smvp = di[(0, 0)] * u[(0, 0)]
        - ry * (ky[(0, 1)] * u[(0, 1)] + ky[(0, 0)] * u[(0, -1)])
        - rx * (kx[(1, 0)] * u[(1, 0)] + kx[(0, 0)] * u[(-1, 0)]);
    let v = u0[(0, 0)] - smvp;
    r[(0, 0)] = v;
    norm += v * v;
}

/// `norm += a*a`.
#[kernel]
pub fn norm2(a: Read<f64>, norm: Sum<f64>) {
    norm += a[(0, 0)] * a[(0, 0)];
}

/// `energy = u / density` (finalise).
#[kernel]
pub fn finalise(u: Read<f64>, density: Read<f64>, energy: Write<f64>) {
    energy[(0, 0)] = u[(0, 0)] / density[(0, 0)];
}

/// Totals over the interior: volume, mass, internal energy and mass-weighted temperature.
#[kernel]
pub fn field_summary(
    volume: Read<f64>,
    density: Read<f64>,
    energy: Read<f64>,
    u: Read<f64>,
    vol: Sum<f64>,
    mass: Sum<f64>,
    ie: Sum<f64>,
    temp: Sum<f64>,
) {
    let cell_vol = volume[(0, 0)];
    let cell_mass = cell_vol * density[(0, 0)];
    vol += cell_vol;
    mass += cell_mass;
    ie += cell_mass * energy[(0, 0)];
    temp += cell_mass * u[(0, 0)];
}

// ----------------------------------------------------------------------------------------------
// Preconditioners
// ----------------------------------------------------------------------------------------------

/// `z = Mi * r` (the diagonal preconditioner).
#[kernel]
pub fn diag_solve(r: Read<f64>, mi: Read<f64>, z: Write<f64>) {
    z[(0, 0)] = mi[(0, 0)] * r[(0, 0)];
}

/// Factors of the block preconditioner: in blocks of 4 rows (from the bottom of the domain) the
/// tridiagonal y-coupling is factorised top-down. Each cell recomputes its block's recurrence
/// from the block's bottom row up to its own row, so the values are exactly the sequential ones.
#[kernel]
pub fn block_init(
    ky: Read<f64>,
    di: Read<f64>,
    cp: Write<f64>,
    bfp: Write<f64>,
    idx: Idx,
    ry: Global<f64>,
) {
    let p = idx[1] % 4;
    let mut c = 0.0;
    let mut b = 0.0;
    if p == 0 {
        c = (-ky[(0, 1)] * ry) / di[(0, 0)];
    } else if p == 1 {
        let c0 = (-ky[(0, 0)] * ry) / di[(0, -1)];
        b = 1.0 / (di[(0, 0)] - (-ky[(0, 0)] * ry) * c0);
        c = (-ky[(0, 1)] * ry) * b;
    } else if p == 2 {
        let c0 = (-ky[(0, -1)] * ry) / di[(0, -2)];
        let b1 = 1.0 / (di[(0, -1)] - (-ky[(0, -1)] * ry) * c0);
        let c1 = (-ky[(0, 0)] * ry) * b1;
        b = 1.0 / (di[(0, 0)] - (-ky[(0, 0)] * ry) * c1);
        c = (-ky[(0, 1)] * ry) * b;
    } else {
        let c0 = (-ky[(0, -2)] * ry) / di[(0, -3)];
        let b1 = 1.0 / (di[(0, -2)] - (-ky[(0, -2)] * ry) * c0);
        let c1 = (-ky[(0, -1)] * ry) * b1;
        let b2 = 1.0 / (di[(0, -1)] - (-ky[(0, -1)] * ry) * c1);
        let c2 = (-ky[(0, 0)] * ry) * b2;
        b = 1.0 / (di[(0, 0)] - (-ky[(0, 0)] * ry) * c2);
        c = (-ky[(0, 1)] * ry) * b;
    }
    cp[(0, 0)] = c;
    bfp[(0, 0)] = b;
}

/// `z = M⁻¹ r` for the block preconditioner: each cell solves its 4-row block (shorter at the
/// top of the domain) by the forward sweep and back substitution of the original and keeps its
/// own row's value, so every value is the sequential one.
#[kernel]
pub fn block_solve(
    r: Read<f64>,
    ky: Read<f64>,
    di: Read<f64>,
    cp: Read<f64>,
    bfp: Read<f64>,
    z: Write<f64>,
    idx: Idx,
    ry: Global<f64>,
    ny: Global<i32>,
) {
    let p = idx[1] % 4;
    // Rows of the block relative to the cell: bottom = -p.
    let len = if ny - (idx[1] - p) < 4 {
        ny - (idx[1] - p)
    } else {
        4
    };
    let mut r0 = 0.0;
    let mut r1 = 0.0;
    let mut r2 = 0.0;
    let mut r3 = 0.0;
    let mut k1 = 0.0;
    let mut k2 = 0.0;
    let mut k3 = 0.0;
    let mut d0 = 1.0;
    let mut b1 = 0.0;
    let mut b2 = 0.0;
    let mut b3 = 0.0;
    let mut c0 = 0.0;
    let mut c1 = 0.0;
    let mut c2 = 0.0;
    if p == 0 {
        r0 = r[(0, 0)];
        r1 = r[(0, 1)];
        r2 = r[(0, 2)];
        r3 = r[(0, 3)];
        k1 = ky[(0, 1)];
        k2 = ky[(0, 2)];
        k3 = ky[(0, 3)];
        d0 = di[(0, 0)];
        b1 = bfp[(0, 1)];
        b2 = bfp[(0, 2)];
        b3 = bfp[(0, 3)];
        c0 = cp[(0, 0)];
        c1 = cp[(0, 1)];
        c2 = cp[(0, 2)];
    } else if p == 1 {
        r0 = r[(0, -1)];
        r1 = r[(0, 0)];
        r2 = r[(0, 1)];
        r3 = r[(0, 2)];
        k1 = ky[(0, 0)];
        k2 = ky[(0, 1)];
        k3 = ky[(0, 2)];
        d0 = di[(0, -1)];
        b1 = bfp[(0, 0)];
        b2 = bfp[(0, 1)];
        b3 = bfp[(0, 2)];
        c0 = cp[(0, -1)];
        c1 = cp[(0, 0)];
        c2 = cp[(0, 1)];
    } else if p == 2 {
        r0 = r[(0, -2)];
        r1 = r[(0, -1)];
        r2 = r[(0, 0)];
        r3 = r[(0, 1)];
        k1 = ky[(0, -1)];
        k2 = ky[(0, 0)];
        k3 = ky[(0, 1)];
        d0 = di[(0, -2)];
        b1 = bfp[(0, -1)];
        b2 = bfp[(0, 0)];
        b3 = bfp[(0, 1)];
        c0 = cp[(0, -2)];
        c1 = cp[(0, -1)];
        c2 = cp[(0, 0)];
    } else {
        r0 = r[(0, -3)];
        r1 = r[(0, -2)];
        r2 = r[(0, -1)];
        r3 = r[(0, 0)];
        k1 = ky[(0, -2)];
        k2 = ky[(0, -1)];
        k3 = ky[(0, 0)];
        d0 = di[(0, -3)];
        b1 = bfp[(0, -2)];
        b2 = bfp[(0, -1)];
        b3 = bfp[(0, 0)];
        c0 = cp[(0, -3)];
        c1 = cp[(0, -2)];
        c2 = cp[(0, -1)];
    }
    // Forward sweep (rows past the block's top are computed but never used).
    let dp0 = r0 / d0;
    let dp1 = (r1 - (-k1 * ry) * dp0) * b1;
    let dp2 = (r2 - (-k2 * ry) * dp1) * b2;
    let dp3 = (r3 - (-k3 * ry) * dp2) * b3;
    // Back substitution from the block's top row.
    let mut z0 = dp0;
    let mut z1 = dp1;
    let mut z2 = dp2;
    let mut z3 = dp3;
    if len == 4 {
        z2 = dp2 - c2 * z3;
        z1 = dp1 - c1 * z2;
        z0 = dp0 - c0 * z1;
    } else if len == 3 {
        z1 = dp1 - c1 * z2;
        z0 = dp0 - c0 * z1;
    } else if len == 2 {
        z0 = dp0 - c0 * z1;
    }
    let mut v = z0;
    if p == 1 {
        v = z1;
    } else if p == 2 {
        v = z2;
    } else if p == 3 {
        v = z3;
    }
    z[(0, 0)] = v;
}

// ----------------------------------------------------------------------------------------------
// CG
// ----------------------------------------------------------------------------------------------

/// CG start without a preconditioner: `p = r`, `rro += r*p`.
#[kernel]
pub fn cg_init_none(r: Read<f64>, p: Write<f64>, rro: Sum<f64>) {
    let v = r[(0, 0)];
    p[(0, 0)] = v;
    rro += v * v;
}

/// CG start with the diagonal preconditioner: `z = Mi*r`, `p = z`, `rro += r*p`.
#[kernel]
pub fn cg_init_diag(r: Read<f64>, mi: Read<f64>, z: Write<f64>, p: Write<f64>, rro: Sum<f64>) {
    let zv = mi[(0, 0)] * r[(0, 0)];
    z[(0, 0)] = zv;
    p[(0, 0)] = zv;
    rro += r[(0, 0)] * zv;
}

/// `p = z`, `rro += r*p` (CG start after a block solve; PPCG's re-initialisation).
#[kernel]
pub fn p_from_z(r: Read<f64>, z: Read<f64>, p: Write<f64>, rro: Sum<f64>) {
    let zv = z[(0, 0)];
    p[(0, 0)] = zv;
    rro += r[(0, 0)] * zv;
}

/// `p = 0`, `rro += r*p` (PPCG's re-initialisation with neither a preconditioner nor the
/// polynomial one active, i.e. when Chebyshev goes through it).
#[kernel]
pub fn p_zero(r: Read<f64>, p: Write<f64>, rro: Sum<f64>) {
    let zv = 0.0;
    p[(0, 0)] = zv;
    rro += r[(0, 0)] * zv;
}

/// `u += alpha*p`, `r -= alpha*w` (before a block solve).
#[kernel]
pub fn cg_calc_ur_plain(
    p: Read<f64>,
    w: Read<f64>,
    u: ReadWrite<f64>,
    r: ReadWrite<f64>,
    alpha: Global<f64>,
) {
    u[(0, 0)] = u[(0, 0)] + alpha * p[(0, 0)];
    r[(0, 0)] = r[(0, 0)] - alpha * w[(0, 0)];
}

/// `u += alpha*p`, `r -= alpha*w`, `z = Mi*r` (calc_ur for jac_diag without its dot product,
/// as PPCG uses it).
#[kernel]
pub fn cg_calc_ur_diag(
    p: Read<f64>,
    w: Read<f64>,
    mi: Read<f64>,
    u: ReadWrite<f64>,
    r: ReadWrite<f64>,
    z: Write<f64>,
    alpha: Global<f64>,
) {
    u[(0, 0)] = u[(0, 0)] + alpha * p[(0, 0)];
    let rv = r[(0, 0)] - alpha * w[(0, 0)];
    r[(0, 0)] = rv;
    z[(0, 0)] = mi[(0, 0)] * rv;
}

/// `p = src + beta*p` (src is z with a preconditioner or in PPCG, r otherwise).
#[kernel]
pub fn cg_calc_p(src: Read<f64>, p: ReadWrite<f64>, beta: Global<f64>) {
    p[(0, 0)] = src[(0, 0)] + beta * p[(0, 0)];
}

/// `w = A p` (the stencil half of calc_w; its dot product is [`dot4`]). The operator's
/// diagonal is formed from Kx and Ky exactly as tea_leaf_init_common forms Di, which saves
/// reading Di back.
#[kernel]
pub fn cg_calc_w(
    p: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    w: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
) {
    let ky1 = ky[(0, 1)];
    let ky0 = ky[(0, 0)];
    let kx1 = kx[(1, 0)];
    let kx0 = kx[(0, 0)];
    let di = 1.0 + ry * (ky1 + ky0) + rx * (kx1 + kx0);
    w[(0, 0)] = di * p[(0, 0)]
        - ry * (ky1 * p[(0, 1)] + ky0 * p[(0, -1)])
        - rx * (kx1 * p[(1, 0)] + kx0 * p[(-1, 0)]);
}

/// CG's residual update without a preconditioner: `r -= alpha*w`, `rrn += r*r`. (The
/// original also updates `u` here; [`cg_calc_p_u`] does, which reads `p` once for both.)
#[kernel]
pub fn cg_calc_r(w: Read<f64>, r: ReadWrite<f64>, alpha: Global<f64>, rrn: Sum<f64>) {
    let rv = r[(0, 0)] - alpha * w[(0, 0)];
    r[(0, 0)] = rv;
    rrn += rv * rv;
}

/// CG's residual update with jac_diag: `r -= alpha*w`, `z = Mi*r`, `rrn += r*z`.
#[kernel]
pub fn cg_calc_r_diag(
    w: Read<f64>,
    mi: Read<f64>,
    r: ReadWrite<f64>,
    z: Write<f64>,
    alpha: Global<f64>,
    rrn: Sum<f64>,
) {
    let rv = r[(0, 0)] - alpha * w[(0, 0)];
    r[(0, 0)] = rv;
    let zv = mi[(0, 0)] * rv;
    z[(0, 0)] = zv;
    rrn += rv * zv;
}

/// `r -= alpha*w` (before a block solve).
#[kernel]
pub fn cg_update_r(w: Read<f64>, r: ReadWrite<f64>, alpha: Global<f64>) {
    r[(0, 0)] = r[(0, 0)] - alpha * w[(0, 0)];
}

/// The rest of a CG iteration: `u += alpha*p` (calc_ur's update of u) and then
/// `p = src + beta*p` (calc_p; src is z with a preconditioner, r otherwise).
#[kernel]
pub fn cg_calc_p_u(
    src: Read<f64>,
    p: ReadWrite<f64>,
    u: ReadWrite<f64>,
    alpha: Global<f64>,
    beta: Global<f64>,
) {
    let pc = p[(0, 0)];
    u[(0, 0)] = u[(0, 0)] + alpha * pc;
    p[(0, 0)] = src[(0, 0)] + beta * pc;
}

// ----------------------------------------------------------------------------------------------
// Dot products with four independent sums
// ----------------------------------------------------------------------------------------------

/// `Σ a·b` over the loop's range in four sums: a cell in a row `k` with `k % 4 == 0` adds its
/// own product and those of the three cells above it to `s0`..`s3`; other rows add nothing
/// (the range must start at a multiple of 4 and cover whole groups of 4 rows). Four
/// independent sums instead of one chain let the CPU overlap the additions. The order depends
/// on the range alone, so results do not depend on the backend or the thread count; the caller
/// adds `((s0 + s1) + s2) + s3`.
#[kernel]
pub fn dot4(
    a: Read<f64>,
    b: Read<f64>,
    idx: Idx,
    s0: Sum<f64>,
    s1: Sum<f64>,
    s2: Sum<f64>,
    s3: Sum<f64>,
) {
    if idx[1] % 4 == 0 {
        s0 += a[(0, 0)] * b[(0, 0)];
        s1 += a[(0, 1)] * b[(0, 1)];
        s2 += a[(0, 2)] * b[(0, 2)];
        s3 += a[(0, 3)] * b[(0, 3)];
    }
}

/// `s += a*b` (the rows past the last group of 4 for [`dot4`]).
#[kernel]
pub fn dot1(a: Read<f64>, b: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)] * b[(0, 0)];
}

// ----------------------------------------------------------------------------------------------
// Chebyshev
// ----------------------------------------------------------------------------------------------

/// `w = A u`, `r = u0 - w` (first half of cheby_init and cheby_iterate).
#[kernel]
pub fn cheby_residual(
    u: Read<f64>,
    u0: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    di: Read<f64>,
    w: Write<f64>,
    r: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
) {
    let v = di[(0, 0)] * u[(0, 0)]
        - ry * (ky[(0, 1)] * u[(0, 1)] + ky[(0, 0)] * u[(0, -1)])
        - rx * (kx[(1, 0)] * u[(1, 0)] + kx[(0, 0)] * u[(-1, 0)]);
    w[(0, 0)] = v;
    r[(0, 0)] = u0[(0, 0)] - v;
}

/// `p = src / theta`, `u += p` (second half of cheby_init).
#[kernel]
pub fn cheby_init_p(src: Read<f64>, p: Write<f64>, u: ReadWrite<f64>, theta: Global<f64>) {
    let pv = src[(0, 0)] / theta;
    p[(0, 0)] = pv;
    u[(0, 0)] = u[(0, 0)] + pv;
}

/// `p = alpha*p + beta*src`, `u += p` (second half of cheby_iterate).
#[kernel]
pub fn cheby_iterate_p(
    src: Read<f64>,
    p: ReadWrite<f64>,
    u: ReadWrite<f64>,
    alpha: Global<f64>,
    beta: Global<f64>,
) {
    let pv = alpha * p[(0, 0)] + beta * src[(0, 0)];
    p[(0, 0)] = pv;
    u[(0, 0)] = u[(0, 0)] + pv;
}

// ----------------------------------------------------------------------------------------------
// PPCG
// ----------------------------------------------------------------------------------------------

/// `sd = src / theta` (as `src * (1/theta)`), `rtemp = r`, `utemp = sd`.
#[kernel]
pub fn ppcg_init_sd(
    src: Read<f64>,
    r: Read<f64>,
    sd: Write<f64>,
    rtemp: Write<f64>,
    utemp: Write<f64>,
    theta_r: Global<f64>,
) {
    let s = src[(0, 0)] * theta_r;
    sd[(0, 0)] = s;
    rtemp[(0, 0)] = r[(0, 0)];
    utemp[(0, 0)] = s;
}

/// `rtemp -= A sd` (first half of an inner step).
#[kernel]
pub fn ppcg_inner_residual(
    sd: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    di: Read<f64>,
    rtemp: ReadWrite<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
) {
    let smvp = di[(0, 0)] * sd[(0, 0)]
        - ry * (ky[(0, 1)] * sd[(0, 1)] + ky[(0, 0)] * sd[(0, -1)])
        - rx * (kx[(1, 0)] * sd[(1, 0)] + kx[(0, 0)] * sd[(-1, 0)]);
    rtemp[(0, 0)] = rtemp[(0, 0)] - smvp;
}

/// `sd = alpha*sd + beta*src`, `utemp += sd` (second half of an inner step; src is rtemp
/// without a preconditioner, the block solve of rtemp with jac_block).
#[kernel]
pub fn ppcg_inner_update(
    src: Read<f64>,
    sd: ReadWrite<f64>,
    utemp: ReadWrite<f64>,
    alpha: Global<f64>,
    beta: Global<f64>,
) {
    let s = alpha * sd[(0, 0)] + beta * src[(0, 0)];
    sd[(0, 0)] = s;
    utemp[(0, 0)] = utemp[(0, 0)] + s;
}

/// `sd = alpha*sd + beta*Mi*rtemp`, `utemp += sd` (jac_diag).
#[kernel]
pub fn ppcg_inner_update_diag(
    rtemp: Read<f64>,
    mi: Read<f64>,
    sd: ReadWrite<f64>,
    utemp: ReadWrite<f64>,
    alpha: Global<f64>,
    beta: Global<f64>,
) {
    let s = alpha * sd[(0, 0)] + beta * mi[(0, 0)] * rtemp[(0, 0)];
    sd[(0, 0)] = s;
    utemp[(0, 0)] = utemp[(0, 0)] + s;
}

/// PPCG's outer product: `w = A p`, `pw += w*p`, `r_store = r`, and `rro += z*r` (or `r*r`
/// when `use_z` is 0).
#[kernel]
pub fn ppcg_calc_w(
    p: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    di: Read<f64>,
    r: Read<f64>,
    z: Read<f64>,
    w: Write<f64>,
    r_store: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
    use_z: Global<i32>,
    pw: Sum<f64>,
    rro: Sum<f64>,
) {
    let v = di[(0, 0)] * p[(0, 0)]
        - ry * (ky[(0, 1)] * p[(0, 1)] + ky[(0, 0)] * p[(0, -1)])
        - rx * (kx[(1, 0)] * p[(1, 0)] + kx[(0, 0)] * p[(-1, 0)]);
    w[(0, 0)] = v;
    pw += v * p[(0, 0)];
    let rv = r[(0, 0)];
    r_store[(0, 0)] = rv;
    if use_z == 1 {
        rro += z[(0, 0)] * rv;
    } else {
        rro += rv * rv;
    }
}

/// `rrn += (r - r_store) * z` (flexible CG's beta).
#[kernel]
pub fn ppcg_calc_rrn(r: Read<f64>, r_store: Read<f64>, z: Read<f64>, rrn: Sum<f64>) {
    rrn += (r[(0, 0)] - r_store[(0, 0)]) * z[(0, 0)];
}

// ----------------------------------------------------------------------------------------------
// Jacobi
// ----------------------------------------------------------------------------------------------

/// One Jacobi sweep from the previous iterate `un`: the new `u` and `error += |u - un|`.
#[kernel]
pub fn jacobi_solve(
    u0: Read<f64>,
    un: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    u: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
    error: Sum<f64>,
) {
    let v = (u0[(0, 0)]
        + rx * (kx[(1, 0)] * un[(1, 0)] + kx[(0, 0)] * un[(-1, 0)])
        + ry * (ky[(0, 1)] * un[(0, 1)] + ky[(0, 0)] * un[(0, -1)]))
        / (1.0 + rx * (kx[(0, 0)] + kx[(1, 0)]) + ry * (ky[(0, 0)] + ky[(0, 1)]));
    u[(0, 0)] = v;
    error += (v - un[(0, 0)]).abs();
}
