//! Cell advection: density and energy moved through the faces of one direction per sweep, with
//! a limited donor-cell (van Leer style) correction.
//!
//! Each kernel computes the cell volumes before the sweep where it needs them, from the volume
//! fluxes still to come (the original keeps them in a work array): one kernel per sweep
//! direction and per set of remaining fluxes, named `..._{direction}_{remaining}`. The sums are
//! the original's, term by term. `vol` is the cell volume (uniform mesh).

use ops::prelude::*;

/// Mass and energy fluxes through an x face (the face at the left of cell 0) in a sweep with
/// every direction's fluxes still to come: donor-cell values with the limited correction.
/// Uniform mesh: every vertex spacing is the same, so the original's spacing ratio is `1.0`.
///
/// Written without selecting between loads (the upwind-side differences and the donor's
/// quotients are computed for both flow directions, then selected): the same values as the
/// original's index choice, and the loop vectorises with plain loads instead of gathers. The
/// downwind difference for a negative flux is the negated positive-flux one, exactly.
#[kernel]
pub fn advec_cell_flux_x_all(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_x: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_x[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol
        + (vol_flux_x[(0, 0, 0)] - vol_flux_x[(-1, 0, 0)] + vol_flux_y[(-1, 1, 0)]
            - vol_flux_y[(-1, 0, 0)]
            + vol_flux_z[(-1, 0, 1)]
            - vol_flux_z[(-1, 0, 0)]);
    let pv_0 = vol
        + (vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)] + vol_flux_y[(0, 1, 0)]
            - vol_flux_y[(0, 0, 0)]
            + vol_flux_z[(0, 0, 1)]
            - vol_flux_z[(0, 0, 0)]);
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let d_m2 = density1[(-2, 0, 0)];
    let d_m1 = density1[(-1, 0, 0)];
    let d_0 = density1[(0, 0, 0)];
    let d_1 = density1[(1, 0, 0)];
    let e_m2 = energy1[(-2, 0, 0)];
    let e_m1 = energy1[(-1, 0, 0)];
    let e_0 = energy1[(0, 0, 0)];
    let e_1 = energy1[(1, 0, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_1 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_1 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_x[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// [`advec_cell_flux_x_all`] on the outermost face the original computes, where it clamps
/// the upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_x_all_edge(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_x: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_x[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol
        + (vol_flux_x[(0, 0, 0)] - vol_flux_x[(-1, 0, 0)] + vol_flux_y[(-1, 1, 0)]
            - vol_flux_y[(-1, 0, 0)]
            + vol_flux_z[(-1, 0, 1)]
            - vol_flux_z[(-1, 0, 0)]);
    let pv_0 = vol
        + (vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)] + vol_flux_y[(0, 1, 0)]
            - vol_flux_y[(0, 0, 0)]
            + vol_flux_z[(0, 0, 1)]
            - vol_flux_z[(0, 0, 0)]);
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let d_m2 = density1[(-2, 0, 0)];
    let d_m1 = density1[(-1, 0, 0)];
    let d_0 = density1[(0, 0, 0)];
    let e_m2 = energy1[(-2, 0, 0)];
    let e_m1 = energy1[(-1, 0, 0)];
    let e_0 = energy1[(0, 0, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_0 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_0 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_x[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// New density and energy after a x sweep with every direction's fluxes still to come (the first sweep) (the energy's
/// product fused into its sum, as the original's compiler does).
#[kernel]
pub fn advec_cell_update_x_all(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_x: Read<f64>,
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    ener_flux: Read<f64>,
    vol: Global<f64>,
) {
    let pre_vol = vol
        + (vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)] + vol_flux_y[(0, 1, 0)]
            - vol_flux_y[(0, 0, 0)]
            + vol_flux_z[(0, 0, 1)]
            - vol_flux_z[(0, 0, 0)]);
    let pre_mass = density1[(0, 0, 0)] * pre_vol;
    let post_mass = pre_mass + mass_flux_x[(0, 0, 0)] - mass_flux_x[(1, 0, 0)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(1, 0, 0)])
        / post_mass;
    let advec_vol = pre_vol + vol_flux_x[(0, 0, 0)] - vol_flux_x[(1, 0, 0)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}

/// Mass and energy fluxes through a x face in a sweep with only the x fluxes still to come (the last sweep);
/// see [`advec_cell_flux_x_all`].
#[kernel]
pub fn advec_cell_flux_x_x(
    vol_flux_x: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_x: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_x[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol + vol_flux_x[(0, 0, 0)] - vol_flux_x[(-1, 0, 0)];
    let pv_0 = vol + vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)];
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let d_m2 = density1[(-2, 0, 0)];
    let d_m1 = density1[(-1, 0, 0)];
    let d_0 = density1[(0, 0, 0)];
    let d_1 = density1[(1, 0, 0)];
    let e_m2 = energy1[(-2, 0, 0)];
    let e_m1 = energy1[(-1, 0, 0)];
    let e_0 = energy1[(0, 0, 0)];
    let e_1 = energy1[(1, 0, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_1 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_1 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_x[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// [`advec_cell_flux_x_x`] on the outermost face the original computes, where it clamps
/// the upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_x_x_edge(
    vol_flux_x: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_x: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_x[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol + vol_flux_x[(0, 0, 0)] - vol_flux_x[(-1, 0, 0)];
    let pv_0 = vol + vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)];
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let d_m2 = density1[(-2, 0, 0)];
    let d_m1 = density1[(-1, 0, 0)];
    let d_0 = density1[(0, 0, 0)];
    let e_m2 = energy1[(-2, 0, 0)];
    let e_m1 = energy1[(-1, 0, 0)];
    let e_0 = energy1[(0, 0, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_0 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_0 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_x[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// New density and energy after a x sweep with only the x fluxes still to come (the last sweep) (the energy's
/// product fused into its sum, as the original's compiler does).
#[kernel]
pub fn advec_cell_update_x_x(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_x: Read<f64>,
    vol_flux_x: Read<f64>,
    ener_flux: Read<f64>,
    vol: Global<f64>,
) {
    let pre_vol = vol + vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)];
    let pre_mass = density1[(0, 0, 0)] * pre_vol;
    let post_mass = pre_mass + mass_flux_x[(0, 0, 0)] - mass_flux_x[(1, 0, 0)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(1, 0, 0)])
        / post_mass;
    let advec_vol = pre_vol + vol_flux_x[(0, 0, 0)] - vol_flux_x[(1, 0, 0)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}

/// Mass and energy fluxes through a y face in a sweep with the y and z fluxes still to come (x went first);
/// see [`advec_cell_flux_x_all`].
#[kernel]
pub fn advec_cell_flux_y_yz(
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_y: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_y[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol + vol_flux_y[(0, 0, 0)] - vol_flux_y[(0, -1, 0)] + vol_flux_z[(0, -1, 1)]
        - vol_flux_z[(0, -1, 0)];
    let pv_0 = vol + vol_flux_y[(0, 1, 0)] - vol_flux_y[(0, 0, 0)] + vol_flux_z[(0, 0, 1)]
        - vol_flux_z[(0, 0, 0)];
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let d_m2 = density1[(0, -2, 0)];
    let d_m1 = density1[(0, -1, 0)];
    let d_0 = density1[(0, 0, 0)];
    let d_1 = density1[(0, 1, 0)];
    let e_m2 = energy1[(0, -2, 0)];
    let e_m1 = energy1[(0, -1, 0)];
    let e_0 = energy1[(0, 0, 0)];
    let e_1 = energy1[(0, 1, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_1 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_1 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_y[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// [`advec_cell_flux_y_yz`] on the outermost face the original computes, where it clamps
/// the upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_y_yz_edge(
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_y: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_y[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol + vol_flux_y[(0, 0, 0)] - vol_flux_y[(0, -1, 0)] + vol_flux_z[(0, -1, 1)]
        - vol_flux_z[(0, -1, 0)];
    let pv_0 = vol + vol_flux_y[(0, 1, 0)] - vol_flux_y[(0, 0, 0)] + vol_flux_z[(0, 0, 1)]
        - vol_flux_z[(0, 0, 0)];
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let d_m2 = density1[(0, -2, 0)];
    let d_m1 = density1[(0, -1, 0)];
    let d_0 = density1[(0, 0, 0)];
    let e_m2 = energy1[(0, -2, 0)];
    let e_m1 = energy1[(0, -1, 0)];
    let e_0 = energy1[(0, 0, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_0 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_0 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_y[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// New density and energy after a y sweep with the y and z fluxes still to come (x went first) (the energy's
/// product fused into its sum, as the original's compiler does).
#[kernel]
pub fn advec_cell_update_y_yz(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_y: Read<f64>,
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    ener_flux: Read<f64>,
    vol: Global<f64>,
) {
    let pre_vol = vol + vol_flux_y[(0, 1, 0)] - vol_flux_y[(0, 0, 0)] + vol_flux_z[(0, 0, 1)]
        - vol_flux_z[(0, 0, 0)];
    let pre_mass = density1[(0, 0, 0)] * pre_vol;
    let post_mass = pre_mass + mass_flux_y[(0, 0, 0)] - mass_flux_y[(0, 1, 0)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(0, 1, 0)])
        / post_mass;
    let advec_vol = pre_vol + vol_flux_y[(0, 0, 0)] - vol_flux_y[(0, 1, 0)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}

/// Mass and energy fluxes through a y face in a sweep with the y and x fluxes still to come (z went first);
/// see [`advec_cell_flux_x_all`].
#[kernel]
pub fn advec_cell_flux_y_yx(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_y: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_y[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol + vol_flux_y[(0, 0, 0)] - vol_flux_y[(0, -1, 0)] + vol_flux_x[(1, -1, 0)]
        - vol_flux_x[(0, -1, 0)];
    let pv_0 = vol + vol_flux_y[(0, 1, 0)] - vol_flux_y[(0, 0, 0)] + vol_flux_x[(1, 0, 0)]
        - vol_flux_x[(0, 0, 0)];
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let d_m2 = density1[(0, -2, 0)];
    let d_m1 = density1[(0, -1, 0)];
    let d_0 = density1[(0, 0, 0)];
    let d_1 = density1[(0, 1, 0)];
    let e_m2 = energy1[(0, -2, 0)];
    let e_m1 = energy1[(0, -1, 0)];
    let e_0 = energy1[(0, 0, 0)];
    let e_1 = energy1[(0, 1, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_1 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_1 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_y[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// [`advec_cell_flux_y_yx`] on the outermost face the original computes, where it clamps
/// the upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_y_yx_edge(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_y: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_y[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol + vol_flux_y[(0, 0, 0)] - vol_flux_y[(0, -1, 0)] + vol_flux_x[(1, -1, 0)]
        - vol_flux_x[(0, -1, 0)];
    let pv_0 = vol + vol_flux_y[(0, 1, 0)] - vol_flux_y[(0, 0, 0)] + vol_flux_x[(1, 0, 0)]
        - vol_flux_x[(0, 0, 0)];
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let d_m2 = density1[(0, -2, 0)];
    let d_m1 = density1[(0, -1, 0)];
    let d_0 = density1[(0, 0, 0)];
    let e_m2 = energy1[(0, -2, 0)];
    let e_m1 = energy1[(0, -1, 0)];
    let e_0 = energy1[(0, 0, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_0 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_0 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_y[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// New density and energy after a y sweep with the y and x fluxes still to come (z went first) (the energy's
/// product fused into its sum, as the original's compiler does).
#[kernel]
pub fn advec_cell_update_y_yx(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_y: Read<f64>,
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    ener_flux: Read<f64>,
    vol: Global<f64>,
) {
    let pre_vol = vol + vol_flux_y[(0, 1, 0)] - vol_flux_y[(0, 0, 0)] + vol_flux_x[(1, 0, 0)]
        - vol_flux_x[(0, 0, 0)];
    let pre_mass = density1[(0, 0, 0)] * pre_vol;
    let post_mass = pre_mass + mass_flux_y[(0, 0, 0)] - mass_flux_y[(0, 1, 0)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(0, 1, 0)])
        / post_mass;
    let advec_vol = pre_vol + vol_flux_y[(0, 0, 0)] - vol_flux_y[(0, 1, 0)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}

/// Mass and energy fluxes through a z face in a sweep with every direction's fluxes still to come (the first sweep);
/// see [`advec_cell_flux_x_all`].
#[kernel]
pub fn advec_cell_flux_z_all(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_z: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_z[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol
        + (vol_flux_x[(1, 0, -1)] - vol_flux_x[(0, 0, -1)] + vol_flux_y[(0, 1, -1)]
            - vol_flux_y[(0, 0, -1)]
            + vol_flux_z[(0, 0, 0)]
            - vol_flux_z[(0, 0, -1)]);
    let pv_0 = vol
        + (vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)] + vol_flux_y[(0, 1, 0)]
            - vol_flux_y[(0, 0, 0)]
            + vol_flux_z[(0, 0, 1)]
            - vol_flux_z[(0, 0, 0)]);
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let d_m2 = density1[(0, 0, -2)];
    let d_m1 = density1[(0, 0, -1)];
    let d_0 = density1[(0, 0, 0)];
    let d_1 = density1[(0, 0, 1)];
    let e_m2 = energy1[(0, 0, -2)];
    let e_m1 = energy1[(0, 0, -1)];
    let e_0 = energy1[(0, 0, 0)];
    let e_1 = energy1[(0, 0, 1)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_1 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_1 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_z[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// [`advec_cell_flux_z_all`] on the outermost face the original computes, where it clamps
/// the upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_z_all_edge(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_z: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_z[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol
        + (vol_flux_x[(1, 0, -1)] - vol_flux_x[(0, 0, -1)] + vol_flux_y[(0, 1, -1)]
            - vol_flux_y[(0, 0, -1)]
            + vol_flux_z[(0, 0, 0)]
            - vol_flux_z[(0, 0, -1)]);
    let pv_0 = vol
        + (vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)] + vol_flux_y[(0, 1, 0)]
            - vol_flux_y[(0, 0, 0)]
            + vol_flux_z[(0, 0, 1)]
            - vol_flux_z[(0, 0, 0)]);
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let d_m2 = density1[(0, 0, -2)];
    let d_m1 = density1[(0, 0, -1)];
    let d_0 = density1[(0, 0, 0)];
    let e_m2 = energy1[(0, 0, -2)];
    let e_m1 = energy1[(0, 0, -1)];
    let e_0 = energy1[(0, 0, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_0 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_0 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_z[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// New density and energy after a z sweep with every direction's fluxes still to come (the first sweep) (the energy's
/// product fused into its sum, as the original's compiler does).
#[kernel]
pub fn advec_cell_update_z_all(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_z: Read<f64>,
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    ener_flux: Read<f64>,
    vol: Global<f64>,
) {
    let pre_vol = vol
        + (vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)] + vol_flux_y[(0, 1, 0)]
            - vol_flux_y[(0, 0, 0)]
            + vol_flux_z[(0, 0, 1)]
            - vol_flux_z[(0, 0, 0)]);
    let pre_mass = density1[(0, 0, 0)] * pre_vol;
    let post_mass = pre_mass + mass_flux_z[(0, 0, 0)] - mass_flux_z[(0, 0, 1)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(0, 0, 1)])
        / post_mass;
    let advec_vol = pre_vol + vol_flux_z[(0, 0, 0)] - vol_flux_z[(0, 0, 1)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}

/// Mass and energy fluxes through a z face in a sweep with only the z fluxes still to come (the last sweep);
/// see [`advec_cell_flux_x_all`].
#[kernel]
pub fn advec_cell_flux_z_z(
    vol_flux_z: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_z: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_z[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol + vol_flux_z[(0, 0, 0)] - vol_flux_z[(0, 0, -1)];
    let pv_0 = vol + vol_flux_z[(0, 0, 1)] - vol_flux_z[(0, 0, 0)];
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let d_m2 = density1[(0, 0, -2)];
    let d_m1 = density1[(0, 0, -1)];
    let d_0 = density1[(0, 0, 0)];
    let d_1 = density1[(0, 0, 1)];
    let e_m2 = energy1[(0, 0, -2)];
    let e_m1 = energy1[(0, 0, -1)];
    let e_0 = energy1[(0, 0, 0)];
    let e_1 = energy1[(0, 0, 1)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_1 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_1 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_z[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// [`advec_cell_flux_z_z`] on the outermost face the original computes, where it clamps
/// the upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_z_z_edge(
    vol_flux_z: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_z: Write<f64>,
    ener_flux: Write<f64>,
    vol: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_z[(0, 0, 0)];
    let pos = vf > 0.0;
    // The volumes of the two cells beside the face before the sweep.
    let pv_m1 = vol + vol_flux_z[(0, 0, 0)] - vol_flux_z[(0, 0, -1)];
    let pv_0 = vol + vol_flux_z[(0, 0, 1)] - vol_flux_z[(0, 0, 0)];
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let d_m2 = density1[(0, 0, -2)];
    let d_m1 = density1[(0, 0, -1)];
    let d_0 = density1[(0, 0, 0)];
    let e_m2 = energy1[(0, 0, -2)];
    let e_m1 = energy1[(0, 0, -1)];
    let e_0 = energy1[(0, 0, 0)];
    let sigmat = if pos {
        vf.abs() / pv_m1
    } else {
        vf.abs() / pv_0
    };
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let d_don = if pos { d_m1 } else { d_0 };
    let d_step = d_0 - d_m1;
    let mut diffuw = if pos { d_m1 - d_m2 } else { d_0 - d_0 };
    let mut diffdw = if pos { d_step } else { -d_step };
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    let limiter = if diffuw * diffdw > 0.0 {
        (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim)
    } else {
        0.0
    };
    let mf = vf * (d_don + limiter);
    let donor_mass = if pos { d_m1 * pv_m1 } else { d_0 * pv_0 };
    let sigmam = mf.abs() / donor_mass;
    let e_don = if pos { e_m1 } else { e_0 };
    let e_step = e_0 - e_m1;
    diffuw = if pos { e_m1 - e_m2 } else { e_0 - e_0 };
    diffdw = if pos { e_step } else { -e_step };
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    lim = one_by_six * sigma3.mul_add(diffuw.abs(), sigma4 * diffdw.abs());
    // The original's compiler fuses the energy limiter into the donor's energy.
    let e_face = if diffuw * diffdw > 0.0 {
        diffuw
            .abs()
            .min(diffdw.abs())
            .min(lim)
            .mul_add((1.0 - sigmam) * wind, e_don)
    } else {
        e_don + 0.0
    };
    mass_flux_z[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * e_face;
}

/// New density and energy after a z sweep with only the z fluxes still to come (the last sweep) (the energy's
/// product fused into its sum, as the original's compiler does).
#[kernel]
pub fn advec_cell_update_z_z(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_z: Read<f64>,
    vol_flux_z: Read<f64>,
    ener_flux: Read<f64>,
    vol: Global<f64>,
) {
    let pre_vol = vol + vol_flux_z[(0, 0, 1)] - vol_flux_z[(0, 0, 0)];
    let pre_mass = density1[(0, 0, 0)] * pre_vol;
    let post_mass = pre_mass + mass_flux_z[(0, 0, 0)] - mass_flux_z[(0, 0, 1)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(0, 0, 1)])
        / post_mass;
    let advec_vol = pre_vol + vol_flux_z[(0, 0, 0)] - vol_flux_z[(0, 0, 1)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}
