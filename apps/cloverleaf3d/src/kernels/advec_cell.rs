//! Cell advection: density and energy moved through the faces of one direction per sweep, with
//! a limited donor-cell (van Leer style) correction. The volumes before the sweep come from
//! [`super::volumes`].

use ops_core::prelude::*;

/// Mass and energy fluxes through an x face (the face at the left of cell 0): donor-cell values
/// with the limited correction. Uniform mesh: every vertex spacing is the same, so the
/// original's spacing ratio is `1.0`.
///
/// Written without selecting between loads (the upwind-side differences and the donor's
/// quotients are computed for both flow directions, then selected): the same values as the
/// original's index choice, and the loop vectorises with plain loads instead of gathers. The
/// downwind difference for a negative flux is the negated positive-flux one, exactly.
#[kernel]
pub fn advec_cell_flux_x(
    vol_flux_x: Read<f64>,
    pre_vol: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_x: Write<f64>,
    ener_flux: Write<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_x[(0, 0, 0)];
    let pos = vf > 0.0;
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let pv_m1 = pre_vol[(-1, 0, 0)];
    let pv_0 = pre_vol[(0, 0, 0)];
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

/// Mass and energy fluxes through a y face; see [`advec_cell_flux_x`].
#[kernel]
pub fn advec_cell_flux_y(
    vol_flux_y: Read<f64>,
    pre_vol: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_y: Write<f64>,
    ener_flux: Write<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_y[(0, 0, 0)];
    let pos = vf > 0.0;
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let pv_m1 = pre_vol[(0, -1, 0)];
    let pv_0 = pre_vol[(0, 0, 0)];
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

/// Mass and energy fluxes through a z face; see [`advec_cell_flux_x`].
#[kernel]
pub fn advec_cell_flux_z(
    vol_flux_z: Read<f64>,
    pre_vol: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_z: Write<f64>,
    ener_flux: Write<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_z[(0, 0, 0)];
    let pos = vf > 0.0;
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux, 1, 0, -1 otherwise.
    let pv_m1 = pre_vol[(0, 0, -1)];
    let pv_0 = pre_vol[(0, 0, 0)];
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

/// [`advec_cell_flux_x`] on the outermost halo face the original computes, where it clamps the
/// upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_x_edge(
    vol_flux_x: Read<f64>,
    pre_vol: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_x: Write<f64>,
    ener_flux: Write<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_x[(0, 0, 0)];
    let pos = vf > 0.0;
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let pv_m1 = pre_vol[(-1, 0, 0)];
    let pv_0 = pre_vol[(0, 0, 0)];
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

/// [`advec_cell_flux_y`] on the outermost halo face the original computes, where it clamps the
/// upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_y_edge(
    vol_flux_y: Read<f64>,
    pre_vol: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_y: Write<f64>,
    ener_flux: Write<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_y[(0, 0, 0)];
    let pos = vf > 0.0;
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let pv_m1 = pre_vol[(0, -1, 0)];
    let pv_0 = pre_vol[(0, 0, 0)];
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

/// [`advec_cell_flux_z`] on the outermost halo face the original computes, where it clamps the
/// upwind cell of a non-positive flux to the donor (no cell lies beyond).
#[kernel]
pub fn advec_cell_flux_z_edge(
    vol_flux_z: Read<f64>,
    pre_vol: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_z: Write<f64>,
    ener_flux: Write<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_z[(0, 0, 0)];
    let pos = vf > 0.0;
    // Upwind, donor and downwind are cells -2, -1, 0 for a positive flux; otherwise the
    // original clamps the upwind cell to the donor, the last cell there is.
    let pv_m1 = pre_vol[(0, 0, -1)];
    let pv_0 = pre_vol[(0, 0, 0)];
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

/// New density and energy after an x sweep's fluxes (the energy's product fused into its sum, as
/// the original's compiler does).
#[kernel]
pub fn advec_cell_update_x(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_x: Read<f64>,
    vol_flux_x: Read<f64>,
    pre_vol: Read<f64>,
    ener_flux: Read<f64>,
) {
    let pre_mass = density1[(0, 0, 0)] * pre_vol[(0, 0, 0)];
    let post_mass = pre_mass + mass_flux_x[(0, 0, 0)] - mass_flux_x[(1, 0, 0)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(1, 0, 0)])
        / post_mass;
    let advec_vol = pre_vol[(0, 0, 0)] + vol_flux_x[(0, 0, 0)] - vol_flux_x[(1, 0, 0)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}

/// New density and energy after a y sweep's fluxes.
#[kernel]
pub fn advec_cell_update_y(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_y: Read<f64>,
    vol_flux_y: Read<f64>,
    pre_vol: Read<f64>,
    ener_flux: Read<f64>,
) {
    let pre_mass = density1[(0, 0, 0)] * pre_vol[(0, 0, 0)];
    let post_mass = pre_mass + mass_flux_y[(0, 0, 0)] - mass_flux_y[(0, 1, 0)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(0, 1, 0)])
        / post_mass;
    let advec_vol = pre_vol[(0, 0, 0)] + vol_flux_y[(0, 0, 0)] - vol_flux_y[(0, 1, 0)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}

/// New density and energy after a z sweep's fluxes.
#[kernel]
pub fn advec_cell_update_z(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_z: Read<f64>,
    vol_flux_z: Read<f64>,
    pre_vol: Read<f64>,
    ener_flux: Read<f64>,
) {
    let pre_mass = density1[(0, 0, 0)] * pre_vol[(0, 0, 0)];
    let post_mass = pre_mass + mass_flux_z[(0, 0, 0)] - mass_flux_z[(0, 0, 1)];
    let post_ener = (energy1[(0, 0, 0)].mul_add(pre_mass, ener_flux[(0, 0, 0)])
        - ener_flux[(0, 0, 1)])
        / post_mass;
    let advec_vol = pre_vol[(0, 0, 0)] + vol_flux_z[(0, 0, 0)] - vol_flux_z[(0, 0, 1)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}
