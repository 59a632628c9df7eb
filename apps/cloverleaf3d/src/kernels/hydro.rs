//! The Lagrangian step and its helpers: ideal_gas, viscosity, calc_dt, PdV, revert,
//! accelerate, flux_calc, reset_field and field_summary.

use ops::prelude::*;

/// Ideal-gas equation of state (gamma 1.4): pressure and sound speed from density and energy.
#[kernel]
pub fn ideal_gas(
    density: Read<f64>,
    energy: Read<f64>,
    pressure: Write<f64>,
    soundspeed: Write<f64>,
) {
    let v = 1.0 / density[(0, 0, 0)];
    let p = (1.4 - 1.0) * density[(0, 0, 0)] * energy[(0, 0, 0)];
    let pressurebyenergy = (1.4 - 1.0) * density[(0, 0, 0)];
    // `p * pbe - pbv` with `pbv = -d * p`, as the original's compiler fuses it: d * p + p * pbe.
    let sound_speed_squared = v * v * p.mul_add(density[(0, 0, 0)], p * pressurebyenergy);
    pressure[(0, 0, 0)] = p;
    soundspeed[(0, 0, 0)] = sound_speed_squared.sqrt();
}

/// Artificial viscosity from the velocity gradients, limited by the pressure gradient.
/// `xarea` etc. are the face areas, `dx` etc. the cell widths (uniform mesh). Sums of products
/// round as the original's compiler fuses them (`mul_add`).
#[kernel]
pub fn viscosity_kernel(
    xvel0: Read<f64>,
    yvel0: Read<f64>,
    zvel0: Read<f64>,
    pressure: Read<f64>,
    density0: Read<f64>,
    viscosity: Write<f64>,
    dx: Global<f64>,
    dy: Global<f64>,
    dz: Global<f64>,
    xarea: Global<f64>,
    yarea: Global<f64>,
    zarea: Global<f64>,
) {
    let ugradx1 = xvel0[(0, 0, 0)] + xvel0[(0, 1, 0)] + xvel0[(0, 0, 1)] + xvel0[(0, 1, 1)];
    let ugradx2 = xvel0[(1, 0, 0)] + xvel0[(1, 1, 0)] + xvel0[(1, 0, 1)] + xvel0[(1, 1, 1)];
    let ugrady1 = xvel0[(0, 0, 0)] + xvel0[(1, 0, 0)] + xvel0[(0, 0, 1)] + xvel0[(1, 0, 1)];
    let ugrady2 = xvel0[(0, 1, 0)] + xvel0[(1, 1, 0)] + xvel0[(0, 1, 1)] + xvel0[(1, 1, 1)];
    let ugradz1 = xvel0[(0, 0, 0)] + xvel0[(1, 0, 0)] + xvel0[(0, 1, 0)] + xvel0[(1, 1, 0)];
    let ugradz2 = xvel0[(0, 0, 1)] + xvel0[(1, 0, 1)] + xvel0[(0, 1, 1)] + xvel0[(1, 1, 1)];
    let vgradx1 = yvel0[(0, 0, 0)] + yvel0[(0, 1, 0)] + yvel0[(0, 0, 1)] + yvel0[(0, 1, 1)];
    let vgradx2 = yvel0[(1, 0, 0)] + yvel0[(1, 1, 0)] + yvel0[(1, 0, 1)] + yvel0[(1, 1, 1)];
    let vgrady1 = yvel0[(0, 0, 0)] + yvel0[(1, 0, 0)] + yvel0[(0, 0, 1)] + yvel0[(1, 0, 1)];
    let vgrady2 = yvel0[(0, 1, 0)] + yvel0[(1, 1, 0)] + yvel0[(0, 1, 1)] + yvel0[(1, 1, 1)];
    let vgradz1 = yvel0[(0, 0, 0)] + yvel0[(1, 0, 0)] + yvel0[(0, 1, 0)] + yvel0[(1, 1, 0)];
    let vgradz2 = yvel0[(0, 0, 1)] + yvel0[(1, 0, 1)] + yvel0[(0, 1, 1)] + yvel0[(1, 1, 1)];
    let wgradx1 = zvel0[(0, 0, 0)] + zvel0[(0, 1, 0)] + zvel0[(0, 0, 1)] + zvel0[(0, 1, 1)];
    let wgradx2 = zvel0[(1, 0, 0)] + zvel0[(1, 1, 0)] + zvel0[(1, 0, 1)] + zvel0[(1, 1, 1)];
    let wgrady1 = zvel0[(0, 0, 0)] + zvel0[(1, 0, 0)] + zvel0[(0, 0, 1)] + zvel0[(1, 0, 1)];
    let wgrady2 = zvel0[(0, 1, 0)] + zvel0[(1, 1, 0)] + zvel0[(0, 1, 1)] + zvel0[(1, 1, 1)];
    let wgradz1 = zvel0[(0, 0, 0)] + zvel0[(1, 0, 0)] + zvel0[(0, 1, 0)] + zvel0[(1, 1, 0)];
    let wgradz2 = zvel0[(0, 0, 1)] + zvel0[(1, 0, 1)] + zvel0[(0, 1, 1)] + zvel0[(1, 1, 1)];

    let div = zarea.mul_add(
        wgradz2 - wgradz1,
        yarea.mul_add(vgrady2 - vgrady1, xarea * (ugradx2 - ugradx1)),
    );

    let xx = 0.25 * (ugradx2 - ugradx1) / dx;
    let yy = 0.25 * (vgrady2 - vgrady1) / dy;
    let zz = 0.25 * (wgradz2 - wgradz1) / dz;
    let xy = 0.25 * (ugrady2 - ugrady1) / dy + 0.25 * (vgradx2 - vgradx1) / dx;
    let xz = 0.25 * (ugradz2 - ugradz1) / dz + 0.25 * (wgradx2 - wgradx1) / dx;
    let yz = 0.25 * (vgradz2 - vgradz1) / dz + 0.25 * (wgrady2 - wgrady1) / dy;

    let mut pgradx = (pressure[(1, 0, 0)] - pressure[(-1, 0, 0)]) / (dx + dx);
    let mut pgrady = (pressure[(0, 1, 0)] - pressure[(0, -1, 0)]) / (dy + dy);
    let mut pgradz = (pressure[(0, 0, 1)] - pressure[(0, 0, -1)]) / (dz + dz);
    let pgradx2 = pgradx * pgradx;
    let pgrady2 = pgrady * pgrady;
    let pgradz2 = pgradz * pgradz;
    let mut num = xx.mul_add(pgradx2, yy * pgrady2);
    num = zz.mul_add(pgradz2, num);
    num = pgrady.mul_add(xy * pgradx, num);
    num = pgradz.mul_add(xz * pgradx, num);
    num = pgradz.mul_add(yz * pgrady, num);
    let limiter = num / (pgradx2 + pgrady2 + pgradz2).max(1.0e-16);

    if limiter > 0.0 || div >= 0.0 {
        viscosity[(0, 0, 0)] = 0.0;
    } else {
        // Only the magnitudes matter below (the original's sign choice cancels out).
        pgradx = pgradx.abs().max(1.0e-16);
        pgrady = pgrady.abs().max(1.0e-16);
        pgradz = pgradz.abs().max(1.0e-16);
        let pgrad = pgradz
            .mul_add(pgradz, pgradx.mul_add(pgradx, pgrady * pgrady))
            .sqrt();
        let xgrad = (dx * pgrad / pgradx).abs();
        let ygrad = (dy * pgrad / pgrady).abs();
        let zgrad = (dz * pgrad / pgradz).abs();
        let grad = xgrad.min(ygrad).min(zgrad);
        let grad2 = grad * grad;
        viscosity[(0, 0, 0)] = 2.0 * density0[(0, 0, 0)] * grad2 * limiter * limiter;
    }
}

/// The stable time step of every cell: the smallest of its sound-speed, x/y/z flow and
/// divergence limits. `ds` is `1 / min(dx, dy, dz)^2`; `vol` the cell volume and `xarea` etc.
/// the face areas (uniform mesh).
#[kernel]
pub fn calc_dt(
    soundspeed: Read<f64>,
    viscosity: Read<f64>,
    density0: Read<f64>,
    xvel0: Read<f64>,
    yvel0: Read<f64>,
    zvel0: Read<f64>,
    dt_cell: Write<f64>,
    ds: Global<f64>,
    g_small: Global<f64>,
    dtc_safe: Global<f64>,
    dtu_safe: Global<f64>,
    dtv_safe: Global<f64>,
    dtw_safe: Global<f64>,
    dtdiv_safe: Global<f64>,
    vol: Global<f64>,
    xarea: Global<f64>,
    yarea: Global<f64>,
    zarea: Global<f64>,
) {
    let ss = soundspeed[(0, 0, 0)];
    let cc = ss.mul_add(ss, 2.0 * viscosity[(0, 0, 0)] / density0[(0, 0, 0)]);
    let mut dtct = ds * cc;
    dtct = dtc_safe * 1.0 / dtct.sqrt().max(g_small);
    let floor = 1.0e-5 * vol;
    let du1 = (xvel0[(0, 0, 0)] + xvel0[(0, 1, 0)] + xvel0[(0, 0, 1)] + xvel0[(0, 1, 1)]) * xarea;
    let du2 = (xvel0[(1, 0, 0)] + xvel0[(1, 1, 0)] + xvel0[(1, 0, 1)] + xvel0[(1, 1, 1)]) * xarea;
    let dtut = dtu_safe * 4.0 * vol / du1.abs().max(du2.abs()).max(floor);
    let dv1 = (yvel0[(0, 0, 0)] + yvel0[(1, 0, 0)] + yvel0[(0, 0, 1)] + yvel0[(1, 0, 1)]) * yarea;
    let dv2 = (yvel0[(0, 1, 0)] + yvel0[(1, 1, 0)] + yvel0[(0, 1, 1)] + yvel0[(1, 1, 1)]) * yarea;
    let dtvt = dtv_safe * 4.0 * vol / dv1.abs().max(dv2.abs()).max(floor);
    let dw1 = (zvel0[(0, 0, 0)] + zvel0[(0, 1, 0)] + zvel0[(1, 0, 0)] + zvel0[(1, 1, 0)]) * zarea;
    let dw2 = (zvel0[(0, 0, 1)] + zvel0[(0, 1, 1)] + zvel0[(1, 0, 1)] + zvel0[(1, 1, 1)]) * zarea;
    let dtwt = dtw_safe * 4.0 * vol / dw1.abs().max(dw2.abs()).max(floor);
    let div = du2 - du1 + dv2 - dv1 + dw2 - dw1;
    let dtdivt = dtdiv_safe * 4.0 * vol / floor.max(div.abs());
    dt_cell[(0, 0, 0)] = dtct.min(dtut).min(dtvt).min(dtwt).min(dtdivt);
}

/// The smallest per-cell step (a separate pass keeps `calc_dt` free of the reduction, so its
/// row loop vectorises).
#[kernel]
pub fn calc_dt_min(dt_cell: Read<f64>, dt_min: Min<f64>) {
    dt_min.update(dt_cell[(0, 0, 0)]);
}

/// The lowest linear index `(l * ny + k) * nx + j` of the cells whose step equals the minimum.
#[kernel]
pub fn calc_dt_locate(
    dt_cell: Read<f64>,
    idx: Idx,
    dt_min: Global<f64>,
    nx: Global<f64>,
    ny: Global<f64>,
    first: Min<f64>,
) {
    if dt_cell[(0, 0, 0)] == dt_min {
        first.update(((idx[2] as f64) * ny + (idx[1] as f64)) * nx + (idx[0] as f64));
    }
}

/// At one cell (the loop range): its five step limits and its centre, as sums over that cell.
#[kernel]
pub fn calc_dt_report(
    cellx: Read<f64>,
    celly: Read<f64>,
    cellz: Read<f64>,
    soundspeed: Read<f64>,
    viscosity: Read<f64>,
    density0: Read<f64>,
    xvel0: Read<f64>,
    yvel0: Read<f64>,
    zvel0: Read<f64>,
    ds: Global<f64>,
    g_small: Global<f64>,
    dtc_safe: Global<f64>,
    dtu_safe: Global<f64>,
    dtv_safe: Global<f64>,
    dtw_safe: Global<f64>,
    dtdiv_safe: Global<f64>,
    vol: Global<f64>,
    xarea: Global<f64>,
    yarea: Global<f64>,
    zarea: Global<f64>,
    out_sound: Sum<f64>,
    out_xvel: Sum<f64>,
    out_yvel: Sum<f64>,
    out_zvel: Sum<f64>,
    out_div: Sum<f64>,
    out_x: Sum<f64>,
    out_y: Sum<f64>,
    out_z: Sum<f64>,
) {
    let ss = soundspeed[(0, 0, 0)];
    let cc = ss.mul_add(ss, 2.0 * viscosity[(0, 0, 0)] / density0[(0, 0, 0)]);
    let mut dtct = ds * cc;
    dtct = dtc_safe * 1.0 / dtct.sqrt().max(g_small);
    let floor = 1.0e-5 * vol;
    let du1 = (xvel0[(0, 0, 0)] + xvel0[(0, 1, 0)] + xvel0[(0, 0, 1)] + xvel0[(0, 1, 1)]) * xarea;
    let du2 = (xvel0[(1, 0, 0)] + xvel0[(1, 1, 0)] + xvel0[(1, 0, 1)] + xvel0[(1, 1, 1)]) * xarea;
    let dtut = dtu_safe * 4.0 * vol / du1.abs().max(du2.abs()).max(floor);
    let dv1 = (yvel0[(0, 0, 0)] + yvel0[(1, 0, 0)] + yvel0[(0, 0, 1)] + yvel0[(1, 0, 1)]) * yarea;
    let dv2 = (yvel0[(0, 1, 0)] + yvel0[(1, 1, 0)] + yvel0[(0, 1, 1)] + yvel0[(1, 1, 1)]) * yarea;
    let dtvt = dtv_safe * 4.0 * vol / dv1.abs().max(dv2.abs()).max(floor);
    let dw1 = (zvel0[(0, 0, 0)] + zvel0[(0, 1, 0)] + zvel0[(1, 0, 0)] + zvel0[(1, 1, 0)]) * zarea;
    let dw2 = (zvel0[(0, 0, 1)] + zvel0[(0, 1, 1)] + zvel0[(1, 0, 1)] + zvel0[(1, 1, 1)]) * zarea;
    let dtwt = dtw_safe * 4.0 * vol / dw1.abs().max(dw2.abs()).max(floor);
    let div = du2 - du1 + dv2 - dv1 + dw2 - dw1;
    let dtdivt = dtdiv_safe * 4.0 * vol / floor.max(div.abs());
    out_sound += dtct;
    out_xvel += dtut;
    out_yvel += dtvt;
    out_zvel += dtwt;
    out_div += dtdivt;
    out_x += cellx[(0, 0, 0)];
    out_y += celly[(0, 0, 0)];
    out_z += cellz[(0, 0, 0)];
}

/// Lagrangian step of density and energy over half a time step (the predictor).
#[kernel]
pub fn pdv_predict(
    xvel0: Read<f64>,
    yvel0: Read<f64>,
    zvel0: Read<f64>,
    pressure: Read<f64>,
    viscosity: Read<f64>,
    density0: Read<f64>,
    density1: Write<f64>,
    energy0: Read<f64>,
    energy1: Write<f64>,
    dt: Global<f64>,
    vol: Global<f64>,
    xarea: Global<f64>,
    yarea: Global<f64>,
    zarea: Global<f64>,
) {
    let left_flux = (xarea
        * (xvel0[(0, 0, 0)]
            + xvel0[(0, 1, 0)]
            + xvel0[(0, 0, 1)]
            + xvel0[(0, 1, 1)]
            + xvel0[(0, 0, 0)]
            + xvel0[(0, 1, 0)]
            + xvel0[(0, 0, 1)]
            + xvel0[(0, 1, 1)]))
        * 0.125
        * dt
        * 0.5;
    let right_flux = (xarea
        * (xvel0[(1, 0, 0)]
            + xvel0[(1, 1, 0)]
            + xvel0[(1, 0, 1)]
            + xvel0[(1, 1, 1)]
            + xvel0[(1, 0, 0)]
            + xvel0[(1, 1, 0)]
            + xvel0[(1, 0, 1)]
            + xvel0[(1, 1, 1)]))
        * 0.125
        * dt
        * 0.5;
    let bottom_flux = (yarea
        * (yvel0[(0, 0, 0)]
            + yvel0[(1, 0, 0)]
            + yvel0[(0, 0, 1)]
            + yvel0[(1, 0, 1)]
            + yvel0[(0, 0, 0)]
            + yvel0[(1, 0, 0)]
            + yvel0[(0, 0, 1)]
            + yvel0[(1, 0, 1)]))
        * 0.125
        * dt
        * 0.5;
    let top_flux = (yarea
        * (yvel0[(0, 1, 0)]
            + yvel0[(1, 1, 0)]
            + yvel0[(0, 1, 1)]
            + yvel0[(1, 1, 1)]
            + yvel0[(0, 1, 0)]
            + yvel0[(1, 1, 0)]
            + yvel0[(0, 1, 1)]
            + yvel0[(1, 1, 1)]))
        * 0.125
        * dt
        * 0.5;
    let back_flux = (zarea
        * (zvel0[(0, 0, 0)]
            + zvel0[(1, 0, 0)]
            + zvel0[(0, 1, 0)]
            + zvel0[(1, 1, 0)]
            + zvel0[(0, 0, 0)]
            + zvel0[(1, 0, 0)]
            + zvel0[(0, 1, 0)]
            + zvel0[(1, 1, 0)]))
        * 0.125
        * dt
        * 0.5;
    let front_flux = (zarea
        * (zvel0[(0, 0, 1)]
            + zvel0[(1, 0, 1)]
            + zvel0[(0, 1, 1)]
            + zvel0[(1, 1, 1)]
            + zvel0[(0, 0, 1)]
            + zvel0[(1, 0, 1)]
            + zvel0[(0, 1, 1)]
            + zvel0[(1, 1, 1)]))
        * 0.125
        * dt
        * 0.5;
    let total_flux = right_flux - left_flux + top_flux - bottom_flux + front_flux - back_flux;
    let volume_change = vol / (vol + total_flux);
    let recip_volume = 1.0 / vol;
    let work = (pressure[(0, 0, 0)] / density0[(0, 0, 0)]
        + viscosity[(0, 0, 0)] / density0[(0, 0, 0)])
        * total_flux;
    energy1[(0, 0, 0)] = (-recip_volume).mul_add(work, energy0[(0, 0, 0)]);
    density1[(0, 0, 0)] = density0[(0, 0, 0)] * volume_change;
}

/// Lagrangian step of density and energy over the full time step (the corrector).
#[kernel]
pub fn pdv_correct(
    xvel0: Read<f64>,
    xvel1: Read<f64>,
    yvel0: Read<f64>,
    yvel1: Read<f64>,
    zvel0: Read<f64>,
    zvel1: Read<f64>,
    pressure: Read<f64>,
    viscosity: Read<f64>,
    density0: Read<f64>,
    density1: Write<f64>,
    energy0: Read<f64>,
    energy1: Write<f64>,
    dt: Global<f64>,
    vol: Global<f64>,
    xarea: Global<f64>,
    yarea: Global<f64>,
    zarea: Global<f64>,
) {
    let left_flux_per_dt = (xarea
        * (xvel0[(0, 0, 0)]
            + xvel0[(0, 1, 0)]
            + xvel0[(0, 0, 1)]
            + xvel0[(0, 1, 1)]
            + xvel1[(0, 0, 0)]
            + xvel1[(0, 1, 0)]
            + xvel1[(0, 0, 1)]
            + xvel1[(0, 1, 1)]))
        * 0.125;
    let right_flux = dt
        * ((xarea
            * (xvel0[(1, 0, 0)]
                + xvel0[(1, 1, 0)]
                + xvel0[(1, 0, 1)]
                + xvel0[(1, 1, 1)]
                + xvel1[(1, 0, 0)]
                + xvel1[(1, 1, 0)]
                + xvel1[(1, 0, 1)]
                + xvel1[(1, 1, 1)]))
            * 0.125);
    let bottom_flux_per_dt = (yarea
        * (yvel0[(0, 0, 0)]
            + yvel0[(1, 0, 0)]
            + yvel0[(0, 0, 1)]
            + yvel0[(1, 0, 1)]
            + yvel1[(0, 0, 0)]
            + yvel1[(1, 0, 0)]
            + yvel1[(0, 0, 1)]
            + yvel1[(1, 0, 1)]))
        * 0.125;
    let top_flux_per_dt = (yarea
        * (yvel0[(0, 1, 0)]
            + yvel0[(1, 1, 0)]
            + yvel0[(0, 1, 1)]
            + yvel0[(1, 1, 1)]
            + yvel1[(0, 1, 0)]
            + yvel1[(1, 1, 0)]
            + yvel1[(0, 1, 1)]
            + yvel1[(1, 1, 1)]))
        * 0.125;
    let back_flux_per_dt = (zarea
        * (zvel0[(0, 0, 0)]
            + zvel0[(1, 0, 0)]
            + zvel0[(0, 1, 0)]
            + zvel0[(1, 1, 0)]
            + zvel1[(0, 0, 0)]
            + zvel1[(1, 0, 0)]
            + zvel1[(0, 1, 0)]
            + zvel1[(1, 1, 0)]))
        * 0.125;
    let front_flux_per_dt = (zarea
        * (zvel0[(0, 0, 1)]
            + zvel0[(1, 0, 1)]
            + zvel0[(0, 1, 1)]
            + zvel0[(1, 1, 1)]
            + zvel1[(0, 0, 1)]
            + zvel1[(1, 0, 1)]
            + zvel1[(0, 1, 1)]
            + zvel1[(1, 1, 1)]))
        * 0.125;
    // The original's compiler folds each flux's `* dt` but the first into the running total.
    let mut total_flux = (-left_flux_per_dt).mul_add(dt, right_flux);
    total_flux = dt.mul_add(top_flux_per_dt, total_flux);
    total_flux = (-dt).mul_add(bottom_flux_per_dt, total_flux);
    total_flux = dt.mul_add(front_flux_per_dt, total_flux);
    total_flux = (-dt).mul_add(back_flux_per_dt, total_flux);
    let volume_change = vol / (vol + total_flux);
    let recip_volume = 1.0 / vol;
    let work = (pressure[(0, 0, 0)] / density0[(0, 0, 0)]
        + viscosity[(0, 0, 0)] / density0[(0, 0, 0)])
        * total_flux;
    energy1[(0, 0, 0)] = (-recip_volume).mul_add(work, energy0[(0, 0, 0)]);
    density1[(0, 0, 0)] = density0[(0, 0, 0)] * volume_change;
}

/// Copies two datasets into two others in one pass (revert, reset_field of the cell fields).
#[kernel]
pub fn copy2(src_a: Read<f64>, dst_a: Write<f64>, src_b: Read<f64>, dst_b: Write<f64>) {
    dst_a[(0, 0, 0)] = src_a[(0, 0, 0)];
    dst_b[(0, 0, 0)] = src_b[(0, 0, 0)];
}

/// Copies three datasets into three others in one pass (reset_field of the velocities).
#[kernel]
pub fn copy3(
    src_a: Read<f64>,
    dst_a: Write<f64>,
    src_b: Read<f64>,
    dst_b: Write<f64>,
    src_c: Read<f64>,
    dst_c: Write<f64>,
) {
    dst_a[(0, 0, 0)] = src_a[(0, 0, 0)];
    dst_b[(0, 0, 0)] = src_b[(0, 0, 0)];
    dst_c[(0, 0, 0)] = src_c[(0, 0, 0)];
}

/// Node velocities from the pressure and viscosity forces on the eight surrounding cells.
/// `vol` is the cell volume and `xarea` etc. the face areas (uniform mesh).
#[kernel]
pub fn accelerate(
    density0: Read<f64>,
    pressure: Read<f64>,
    viscosity: Read<f64>,
    xvel0: Read<f64>,
    yvel0: Read<f64>,
    zvel0: Read<f64>,
    xvel1: Write<f64>,
    yvel1: Write<f64>,
    zvel1: Write<f64>,
    dt: Global<f64>,
    vol: Global<f64>,
    xarea: Global<f64>,
    yarea: Global<f64>,
    zarea: Global<f64>,
) {
    // Sums of products fused as the original's compiler does: the second product is rounded,
    // the first and every later one fused into the running sum.
    let mut mass = density0[(-1, -1, 0)].mul_add(vol, density0[(0, -1, 0)] * vol);
    mass = density0[(0, 0, 0)].mul_add(vol, mass);
    mass = density0[(-1, 0, 0)].mul_add(vol, mass);
    mass = density0[(-1, -1, -1)].mul_add(vol, mass);
    mass = density0[(0, -1, -1)].mul_add(vol, mass);
    mass = density0[(0, 0, -1)].mul_add(vol, mass);
    mass = density0[(-1, 0, -1)].mul_add(vol, mass);
    let nodal_mass = mass * 0.125;
    let stepbymass = 0.25 * dt / nodal_mass;
    let xv = (-stepbymass).mul_add(
        xarea.mul_add(
            pressure[(0, -1, -1)] - pressure[(-1, -1, -1)],
            xarea.mul_add(
                pressure[(0, 0, -1)] - pressure[(-1, 0, -1)],
                xarea.mul_add(
                    pressure[(0, 0, 0)] - pressure[(-1, 0, 0)],
                    xarea * (pressure[(0, -1, 0)] - pressure[(-1, -1, 0)]),
                ),
            ),
        ),
        xvel0[(0, 0, 0)],
    );
    let yv = (-stepbymass).mul_add(
        yarea.mul_add(
            pressure[(-1, 0, -1)] - pressure[(-1, -1, -1)],
            yarea.mul_add(
                pressure[(0, 0, -1)] - pressure[(0, -1, -1)],
                yarea.mul_add(
                    pressure[(0, 0, 0)] - pressure[(0, -1, 0)],
                    yarea * (pressure[(-1, 0, 0)] - pressure[(-1, -1, 0)]),
                ),
            ),
        ),
        yvel0[(0, 0, 0)],
    );
    let zv = (-stepbymass).mul_add(
        zarea.mul_add(
            pressure[(-1, -1, 0)] - pressure[(-1, -1, -1)],
            zarea.mul_add(
                pressure[(-1, 0, 0)] - pressure[(-1, 0, -1)],
                zarea.mul_add(
                    pressure[(0, 0, 0)] - pressure[(0, 0, -1)],
                    zarea * (pressure[(0, -1, 0)] - pressure[(0, -1, -1)]),
                ),
            ),
        ),
        zvel0[(0, 0, 0)],
    );
    xvel1[(0, 0, 0)] = (-stepbymass).mul_add(
        xarea.mul_add(
            viscosity[(0, -1, -1)] - viscosity[(-1, -1, -1)],
            xarea.mul_add(
                viscosity[(0, 0, -1)] - viscosity[(-1, 0, -1)],
                xarea.mul_add(
                    viscosity[(0, 0, 0)] - viscosity[(-1, 0, 0)],
                    xarea * (viscosity[(0, -1, 0)] - viscosity[(-1, -1, 0)]),
                ),
            ),
        ),
        xv,
    );
    yvel1[(0, 0, 0)] = (-stepbymass).mul_add(
        yarea.mul_add(
            viscosity[(-1, 0, -1)] - viscosity[(-1, -1, -1)],
            yarea.mul_add(
                viscosity[(0, 0, -1)] - viscosity[(0, -1, -1)],
                yarea.mul_add(
                    viscosity[(0, 0, 0)] - viscosity[(0, -1, 0)],
                    yarea * (viscosity[(-1, 0, 0)] - viscosity[(-1, -1, 0)]),
                ),
            ),
        ),
        yv,
    );
    zvel1[(0, 0, 0)] = (-stepbymass).mul_add(
        zarea.mul_add(
            viscosity[(-1, -1, 0)] - viscosity[(-1, -1, -1)],
            zarea.mul_add(
                viscosity[(-1, 0, 0)] - viscosity[(-1, 0, -1)],
                zarea.mul_add(
                    viscosity[(0, 0, 0)] - viscosity[(0, 0, -1)],
                    zarea * (viscosity[(0, -1, 0)] - viscosity[(0, -1, -1)]),
                ),
            ),
        ),
        zv,
    );
}

/// Volume fluxes through the x faces over the step.
#[kernel]
pub fn flux_calc_x(
    xvel0: Read<f64>,
    xvel1: Read<f64>,
    vol_flux_x: Write<f64>,
    dt: Global<f64>,
    xarea: Global<f64>,
) {
    vol_flux_x[(0, 0, 0)] = 0.125
        * dt
        * xarea
        * (xvel0[(0, 0, 0)]
            + xvel0[(0, 1, 0)]
            + xvel0[(0, 0, 1)]
            + xvel0[(0, 1, 1)]
            + xvel1[(0, 0, 0)]
            + xvel1[(0, 1, 0)]
            + xvel1[(0, 0, 1)]
            + xvel1[(0, 1, 1)]);
}

/// Volume fluxes through the y faces over the step.
#[kernel]
pub fn flux_calc_y(
    yvel0: Read<f64>,
    yvel1: Read<f64>,
    vol_flux_y: Write<f64>,
    dt: Global<f64>,
    yarea: Global<f64>,
) {
    vol_flux_y[(0, 0, 0)] = 0.125
        * dt
        * yarea
        * (yvel0[(0, 0, 0)]
            + yvel0[(1, 0, 0)]
            + yvel0[(0, 0, 1)]
            + yvel0[(1, 0, 1)]
            + yvel1[(0, 0, 0)]
            + yvel1[(1, 0, 0)]
            + yvel1[(0, 0, 1)]
            + yvel1[(1, 0, 1)]);
}

/// Volume fluxes through the z faces over the step. The original's start-of-step sum reads
/// `zvel0(j+1, k, l)` twice and `zvel0(j, k+1, l)` not at all; this port keeps that, since the
/// results are to match the original's.
#[kernel]
pub fn flux_calc_z(
    zvel0: Read<f64>,
    zvel1: Read<f64>,
    vol_flux_z: Write<f64>,
    dt: Global<f64>,
    zarea: Global<f64>,
) {
    vol_flux_z[(0, 0, 0)] = 0.125
        * dt
        * zarea
        * (zvel0[(0, 0, 0)]
            + zvel0[(1, 0, 0)]
            + zvel0[(1, 0, 0)]
            + zvel0[(1, 1, 0)]
            + zvel1[(0, 0, 0)]
            + zvel1[(1, 0, 0)]
            + zvel1[(0, 1, 0)]
            + zvel1[(1, 1, 0)]);
}

/// Volume, mass, internal and kinetic energy and volume-weighted pressure summed over cells;
/// `vol` is the cell volume (uniform mesh).
#[kernel]
pub fn field_summary(
    density0: Read<f64>,
    energy0: Read<f64>,
    pressure: Read<f64>,
    xvel0: Read<f64>,
    yvel0: Read<f64>,
    zvel0: Read<f64>,
    vol: Global<f64>,
    vol_sum: Sum<f64>,
    mass: Sum<f64>,
    ie: Sum<f64>,
    ke: Sum<f64>,
    press: Sum<f64>,
) {
    // The eight corner nodes, x fastest, as the original's loop visits them.
    let mut vsqrd = 0.0;
    vsqrd = vsqrd
        + 0.125
            * (xvel0[(0, 0, 0)] * xvel0[(0, 0, 0)]
                + yvel0[(0, 0, 0)] * yvel0[(0, 0, 0)]
                + zvel0[(0, 0, 0)] * zvel0[(0, 0, 0)]);
    vsqrd = vsqrd
        + 0.125
            * (xvel0[(1, 0, 0)] * xvel0[(1, 0, 0)]
                + yvel0[(1, 0, 0)] * yvel0[(1, 0, 0)]
                + zvel0[(1, 0, 0)] * zvel0[(1, 0, 0)]);
    vsqrd = vsqrd
        + 0.125
            * (xvel0[(0, 1, 0)] * xvel0[(0, 1, 0)]
                + yvel0[(0, 1, 0)] * yvel0[(0, 1, 0)]
                + zvel0[(0, 1, 0)] * zvel0[(0, 1, 0)]);
    vsqrd = vsqrd
        + 0.125
            * (xvel0[(1, 1, 0)] * xvel0[(1, 1, 0)]
                + yvel0[(1, 1, 0)] * yvel0[(1, 1, 0)]
                + zvel0[(1, 1, 0)] * zvel0[(1, 1, 0)]);
    vsqrd = vsqrd
        + 0.125
            * (xvel0[(0, 0, 1)] * xvel0[(0, 0, 1)]
                + yvel0[(0, 0, 1)] * yvel0[(0, 0, 1)]
                + zvel0[(0, 0, 1)] * zvel0[(0, 0, 1)]);
    vsqrd = vsqrd
        + 0.125
            * (xvel0[(1, 0, 1)] * xvel0[(1, 0, 1)]
                + yvel0[(1, 0, 1)] * yvel0[(1, 0, 1)]
                + zvel0[(1, 0, 1)] * zvel0[(1, 0, 1)]);
    vsqrd = vsqrd
        + 0.125
            * (xvel0[(0, 1, 1)] * xvel0[(0, 1, 1)]
                + yvel0[(0, 1, 1)] * yvel0[(0, 1, 1)]
                + zvel0[(0, 1, 1)] * zvel0[(0, 1, 1)]);
    vsqrd = vsqrd
        + 0.125
            * (xvel0[(1, 1, 1)] * xvel0[(1, 1, 1)]
                + yvel0[(1, 1, 1)] * yvel0[(1, 1, 1)]
                + zvel0[(1, 1, 1)] * zvel0[(1, 1, 1)]);
    let cell_mass = vol * density0[(0, 0, 0)];
    vol_sum += vol;
    mass += cell_mass;
    ie += cell_mass * energy0[(0, 0, 0)];
    ke += cell_mass * 0.5 * vsqrd;
    press += vol * pressure[(0, 0, 0)];
}
