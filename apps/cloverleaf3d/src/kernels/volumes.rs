//! Cell volumes after a momentum sweep: the volume `vol` (uniform mesh) plus the divergence of
//! the volume fluxes of the directions the sweep leaves to come. Each kernel adds the fluxes in
//! the order the original does, so the sums round alike.

use ops::prelude::*;

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
