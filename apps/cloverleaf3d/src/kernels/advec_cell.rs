//! Cell advection: density and energy moved through the faces of one direction per sweep, with
//! a limited donor-cell (van Leer style) correction. The volumes before the sweep come from
//! [`super::volumes`].

use ops_core::prelude::*;

/// Mass and energy fluxes through an x face (the face at the left of cell 0): donor-cell values
/// with the limited correction. Uniform mesh: every vertex spacing is the same, so the
/// original's spacing ratio is `1.0`.
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
    let d_up = if pos {
        density1[(-2, 0, 0)]
    } else {
        density1[(1, 0, 0)]
    };
    let d_don = if pos {
        density1[(-1, 0, 0)]
    } else {
        density1[(0, 0, 0)]
    };
    let d_down = if pos {
        density1[(0, 0, 0)]
    } else {
        density1[(-1, 0, 0)]
    };
    let e_up = if pos {
        energy1[(-2, 0, 0)]
    } else {
        energy1[(1, 0, 0)]
    };
    let e_don = if pos {
        energy1[(-1, 0, 0)]
    } else {
        energy1[(0, 0, 0)]
    };
    let e_down = if pos {
        energy1[(0, 0, 0)]
    } else {
        energy1[(-1, 0, 0)]
    };
    let pv_don = if pos {
        pre_vol[(-1, 0, 0)]
    } else {
        pre_vol[(0, 0, 0)]
    };
    let sigmat = vf.abs() / pv_don;
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let mut diffuw = d_don - d_up;
    let mut diffdw = d_down - d_don;
    let mut limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = one_by_six * (sigma3 * diffuw.abs() + sigma4 * diffdw.abs());
        limiter = (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim);
    }
    let mf = vf * (d_don + limiter);
    let sigmam = mf.abs() / (d_don * pv_don);
    diffuw = e_don - e_up;
    diffdw = e_down - e_don;
    limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = one_by_six * (sigma3 * diffuw.abs() + sigma4 * diffdw.abs());
        limiter = (1.0 - sigmam) * wind * diffuw.abs().min(diffdw.abs()).min(lim);
    }
    mass_flux_x[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * (e_don + limiter);
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
    let d_up = if pos {
        density1[(0, -2, 0)]
    } else {
        density1[(0, 1, 0)]
    };
    let d_don = if pos {
        density1[(0, -1, 0)]
    } else {
        density1[(0, 0, 0)]
    };
    let d_down = if pos {
        density1[(0, 0, 0)]
    } else {
        density1[(0, -1, 0)]
    };
    let e_up = if pos {
        energy1[(0, -2, 0)]
    } else {
        energy1[(0, 1, 0)]
    };
    let e_don = if pos {
        energy1[(0, -1, 0)]
    } else {
        energy1[(0, 0, 0)]
    };
    let e_down = if pos {
        energy1[(0, 0, 0)]
    } else {
        energy1[(0, -1, 0)]
    };
    let pv_don = if pos {
        pre_vol[(0, -1, 0)]
    } else {
        pre_vol[(0, 0, 0)]
    };
    let sigmat = vf.abs() / pv_don;
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let mut diffuw = d_don - d_up;
    let mut diffdw = d_down - d_don;
    let mut limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = one_by_six * (sigma3 * diffuw.abs() + sigma4 * diffdw.abs());
        limiter = (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim);
    }
    let mf = vf * (d_don + limiter);
    let sigmam = mf.abs() / (d_don * pv_don);
    diffuw = e_don - e_up;
    diffdw = e_down - e_don;
    limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = one_by_six * (sigma3 * diffuw.abs() + sigma4 * diffdw.abs());
        limiter = (1.0 - sigmam) * wind * diffuw.abs().min(diffdw.abs()).min(lim);
    }
    mass_flux_y[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * (e_don + limiter);
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
    let d_up = if pos {
        density1[(0, 0, -2)]
    } else {
        density1[(0, 0, 1)]
    };
    let d_don = if pos {
        density1[(0, 0, -1)]
    } else {
        density1[(0, 0, 0)]
    };
    let d_down = if pos {
        density1[(0, 0, 0)]
    } else {
        density1[(0, 0, -1)]
    };
    let e_up = if pos {
        energy1[(0, 0, -2)]
    } else {
        energy1[(0, 0, 1)]
    };
    let e_don = if pos {
        energy1[(0, 0, -1)]
    } else {
        energy1[(0, 0, 0)]
    };
    let e_down = if pos {
        energy1[(0, 0, 0)]
    } else {
        energy1[(0, 0, -1)]
    };
    let pv_don = if pos {
        pre_vol[(0, 0, -1)]
    } else {
        pre_vol[(0, 0, 0)]
    };
    let sigmat = vf.abs() / pv_don;
    let sigma3 = (1.0 + sigmat) * 1.0;
    let sigma4 = 2.0 - sigmat;
    let mut diffuw = d_don - d_up;
    let mut diffdw = d_down - d_don;
    let mut limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = one_by_six * (sigma3 * diffuw.abs() + sigma4 * diffdw.abs());
        limiter = (1.0 - sigmat) * wind * diffuw.abs().min(diffdw.abs()).min(lim);
    }
    let mf = vf * (d_don + limiter);
    let sigmam = mf.abs() / (d_don * pv_don);
    diffuw = e_don - e_up;
    diffdw = e_down - e_don;
    limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = one_by_six * (sigma3 * diffuw.abs() + sigma4 * diffdw.abs());
        limiter = (1.0 - sigmam) * wind * diffuw.abs().min(diffdw.abs()).min(lim);
    }
    mass_flux_z[(0, 0, 0)] = mf;
    ener_flux[(0, 0, 0)] = mf * (e_don + limiter);
}

/// New density and energy after an x sweep's fluxes.
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
    let post_ener =
        (energy1[(0, 0, 0)] * pre_mass + ener_flux[(0, 0, 0)] - ener_flux[(1, 0, 0)]) / post_mass;
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
    let post_ener =
        (energy1[(0, 0, 0)] * pre_mass + ener_flux[(0, 0, 0)] - ener_flux[(0, 1, 0)]) / post_mass;
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
    let post_ener =
        (energy1[(0, 0, 0)] * pre_mass + ener_flux[(0, 0, 0)] - ener_flux[(0, 0, 1)]) / post_mass;
    let advec_vol = pre_vol[(0, 0, 0)] + vol_flux_z[(0, 0, 0)] - vol_flux_z[(0, 0, 1)];
    density1[(0, 0, 0)] = post_mass / advec_vol;
    energy1[(0, 0, 0)] = post_ener;
}
