//! Cell volumes part-way through a step's three advection sweeps: the volume `vol` (uniform
//! mesh) plus the divergence of the volume fluxes of the directions still to come (cell
//! advection's pre-sweep volumes) or of those the sweep leaves (momentum advection's post-sweep
//! volumes). Each kernel adds the fluxes in the order the original does, so the sums round alike.

use ops_core::prelude::*;

/// `vol + (dx flux + dy flux + dz flux)`: before the first sweep (x or z), all three to come.
#[kernel]
pub fn vol_after_xyz(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    out: Write<f64>,
    vol: Global<f64>,
) {
    let fluxes = vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)] + vol_flux_y[(0, 1, 0)]
        - vol_flux_y[(0, 0, 0)]
        + vol_flux_z[(0, 0, 1)]
        - vol_flux_z[(0, 0, 0)];
    out[(0, 0, 0)] = vol + fluxes;
}

/// `vol + dy flux + dz flux`, left to right.
#[kernel]
pub fn vol_after_y_z(
    vol_flux_y: Read<f64>,
    vol_flux_z: Read<f64>,
    out: Write<f64>,
    vol: Global<f64>,
) {
    out[(0, 0, 0)] = vol + vol_flux_y[(0, 1, 0)] - vol_flux_y[(0, 0, 0)] + vol_flux_z[(0, 0, 1)]
        - vol_flux_z[(0, 0, 0)];
}

/// `vol + dy flux + dx flux`, left to right.
#[kernel]
pub fn vol_after_y_x(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    out: Write<f64>,
    vol: Global<f64>,
) {
    out[(0, 0, 0)] = vol + vol_flux_y[(0, 1, 0)] - vol_flux_y[(0, 0, 0)] + vol_flux_x[(1, 0, 0)]
        - vol_flux_x[(0, 0, 0)];
}

/// `vol + dx flux + dy flux`, left to right.
#[kernel]
pub fn vol_after_x_y(
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    out: Write<f64>,
    vol: Global<f64>,
) {
    out[(0, 0, 0)] = vol + vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)] + vol_flux_y[(0, 1, 0)]
        - vol_flux_y[(0, 0, 0)];
}

/// `vol + dx flux`.
#[kernel]
pub fn vol_after_x(vol_flux_x: Read<f64>, out: Write<f64>, vol: Global<f64>) {
    out[(0, 0, 0)] = vol + vol_flux_x[(1, 0, 0)] - vol_flux_x[(0, 0, 0)];
}

/// `vol + dz flux`.
#[kernel]
pub fn vol_after_z(vol_flux_z: Read<f64>, out: Write<f64>, vol: Global<f64>) {
    out[(0, 0, 0)] = vol + vol_flux_z[(0, 0, 1)] - vol_flux_z[(0, 0, 0)];
}
