//! Every CloverLeaf grid computation as a `#[kernel]`.
//!
//! Index conventions (0-based): cell `(j, k)` spans vertices `j..j+1` in x and `k..k+1` in y;
//! node (vertex) `(j, k)` is the lower-left corner of cell `(j, k)`. Interior cells are
//! `0..nx` x `0..ny`, interior nodes `0..=nx` x `0..=ny`. Every dataset has two halo layers.
//! The arithmetic follows the original mini-app's expressions term by term, in the same order,
//! so results agree with it to rounding.

#![allow(clippy::too_many_arguments)]

use ops::prelude::*;

// ----------------------------------------------------------------------------------------------
// initialise_chunk: mesh coordinates, spacings, volumes and face areas
// ----------------------------------------------------------------------------------------------

/// Vertex x coordinates and spacings along the 1-D `vertexx` array.
#[kernel]
pub fn init_vertex_x(
    vertex: Write<f64>,
    vertexd: Write<f64>,
    idx: Idx,
    origin: Global<f64>,
    d: Global<f64>,
) {
    vertex[(0, 0)] = origin + d * (idx[0] as f64);
    vertexd[(0, 0)] = d;
}

/// Vertex y coordinates and spacings along the 1-D `vertexy` array.
#[kernel]
pub fn init_vertex_y(
    vertex: Write<f64>,
    vertexd: Write<f64>,
    idx: Idx,
    origin: Global<f64>,
    d: Global<f64>,
) {
    vertex[(0, 0)] = origin + d * (idx[1] as f64);
    vertexd[(0, 0)] = d;
}

/// Cell-centre x coordinates and widths.
#[kernel]
pub fn init_cell_x(vertexx: Read<f64>, cellx: Write<f64>, celldx: Write<f64>, d: Global<f64>) {
    cellx[(0, 0)] = 0.5 * (vertexx[(0, 0)] + vertexx[(1, 0)]);
    celldx[(0, 0)] = d;
}

/// Cell-centre y coordinates and heights.
#[kernel]
pub fn init_cell_y(vertexy: Read<f64>, celly: Write<f64>, celldy: Write<f64>, d: Global<f64>) {
    celly[(0, 0)] = 0.5 * (vertexy[(0, 0)] + vertexy[(0, 1)]);
    celldy[(0, 0)] = d;
}

/// Cell volumes.
#[kernel]
pub fn init_volume(volume: Write<f64>, dx: Global<f64>, dy: Global<f64>) {
    volume[(0, 0)] = dx * dy;
}

/// Areas of the faces normal to x (the cell height).
#[kernel]
pub fn init_xarea(celldy: Read<f64>, xarea: Write<f64>) {
    xarea[(0, 0)] = celldy[(0, 0)];
}

/// Areas of the faces normal to y (the cell width).
#[kernel]
pub fn init_yarea(celldx: Read<f64>, yarea: Write<f64>) {
    yarea[(0, 0)] = celldx[(0, 0)];
}

// ----------------------------------------------------------------------------------------------
// generate_chunk: fill the mesh from the deck's states
// ----------------------------------------------------------------------------------------------

/// State 1: the background, everywhere (cells).
#[kernel]
pub fn generate_background_cells(
    density0: Write<f64>,
    energy0: Write<f64>,
    density: Global<f64>,
    energy: Global<f64>,
) {
    density0[(0, 0)] = density;
    energy0[(0, 0)] = energy;
}

/// State 1: the background, everywhere (nodes).
#[kernel]
pub fn generate_background_nodes(
    xvel0: Write<f64>,
    yvel0: Write<f64>,
    xvel: Global<f64>,
    yvel: Global<f64>,
) {
    xvel0[(0, 0)] = xvel;
    yvel0[(0, 0)] = yvel;
}

/// A later state's cell values where its region covers the cell.
///
/// `geometry`: 1 rectangle, 2 circle, 3 point. A rectangle takes cells that overlap it, a circle
/// cells whose centre is inside it, a point the cell whose lower-left vertex it is.
#[kernel]
pub fn generate_state_cells(
    vertexx: Read<f64>,
    vertexy: Read<f64>,
    cellx: Read<f64>,
    celly: Read<f64>,
    density0: ReadWrite<f64>,
    energy0: ReadWrite<f64>,
    geometry: Global<i32>,
    xmin: Global<f64>,
    xmax: Global<f64>,
    ymin: Global<f64>,
    ymax: Global<f64>,
    radius: Global<f64>,
    density: Global<f64>,
    energy: Global<f64>,
) {
    let mut inside = false;
    if geometry == 1 {
        if vertexx[(1, 0)] >= xmin && vertexx[(0, 0)] < xmax {
            if vertexy[(0, 1)] >= ymin && vertexy[(0, 0)] < ymax {
                inside = true;
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
        density0[(0, 0)] = density;
        energy0[(0, 0)] = energy;
    }
}

/// A later state's velocities at every node that is a corner of a cell the state covers.
#[kernel]
pub fn generate_state_nodes(
    vertexx: Read<f64>,
    vertexy: Read<f64>,
    cellx: Read<f64>,
    celly: Read<f64>,
    xvel0: ReadWrite<f64>,
    yvel0: ReadWrite<f64>,
    geometry: Global<i32>,
    xmin: Global<f64>,
    xmax: Global<f64>,
    ymin: Global<f64>,
    ymax: Global<f64>,
    radius: Global<f64>,
    xvel: Global<f64>,
    yvel: Global<f64>,
) {
    // The node touches cells (-1..=0, -1..=0) relative to its own index.
    let mut inside = false;
    if geometry == 1 {
        let in_x = (vertexx[(1, 0)] >= xmin && vertexx[(0, 0)] < xmax)
            || (vertexx[(0, 0)] >= xmin && vertexx[(-1, 0)] < xmax);
        let in_y = (vertexy[(0, 1)] >= ymin && vertexy[(0, 0)] < ymax)
            || (vertexy[(0, 0)] >= ymin && vertexy[(0, -1)] < ymax);
        if in_x && in_y {
            inside = true;
        }
    } else if geometry == 2 {
        let ax = (cellx[(-1, 0)] - xmin) * (cellx[(-1, 0)] - xmin);
        let bx = (cellx[(0, 0)] - xmin) * (cellx[(0, 0)] - xmin);
        let ay = (celly[(0, -1)] - ymin) * (celly[(0, -1)] - ymin);
        let by = (celly[(0, 0)] - ymin) * (celly[(0, 0)] - ymin);
        if (ax + ay).sqrt() <= radius
            || (bx + ay).sqrt() <= radius
            || (ax + by).sqrt() <= radius
            || (bx + by).sqrt() <= radius
        {
            inside = true;
        }
    } else if geometry == 3 {
        let in_x = vertexx[(-1, 0)] == xmin || vertexx[(0, 0)] == xmin;
        let in_y = vertexy[(0, -1)] == ymin || vertexy[(0, 0)] == ymin;
        if in_x && in_y {
            inside = true;
        }
    }
    if inside {
        xvel0[(0, 0)] = xvel;
        yvel0[(0, 0)] = yvel;
    }
}

/// Counts the cells a state covers (used to warn about point states that match no vertex).
#[kernel]
pub fn count_state_cells(
    vertexx: Read<f64>,
    vertexy: Read<f64>,
    cellx: Read<f64>,
    celly: Read<f64>,
    geometry: Global<i32>,
    xmin: Global<f64>,
    xmax: Global<f64>,
    ymin: Global<f64>,
    ymax: Global<f64>,
    radius: Global<f64>,
    count: Sum<f64>,
) {
    let mut inside = false;
    if geometry == 1 {
        if vertexx[(1, 0)] >= xmin && vertexx[(0, 0)] < xmax {
            if vertexy[(0, 1)] >= ymin && vertexy[(0, 0)] < ymax {
                inside = true;
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
        count += 1.0;
    }
}

// ----------------------------------------------------------------------------------------------
// ideal_gas, viscosity, calc_dt
// ----------------------------------------------------------------------------------------------

/// Ideal-gas equation of state (gamma 1.4): pressure and sound speed from density and energy.
#[kernel]
pub fn ideal_gas(
    density: Read<f64>,
    energy: Read<f64>,
    pressure: Write<f64>,
    soundspeed: Write<f64>,
) {
    let v = 1.0 / density[(0, 0)];
    let p = (1.4 - 1.0) * density[(0, 0)] * energy[(0, 0)];
    let pressurebyenergy = (1.4 - 1.0) * density[(0, 0)];
    let pressurebyvolume = -density[(0, 0)] * p;
    let sound_speed_squared = v * v * (p * pressurebyenergy - pressurebyvolume);
    pressure[(0, 0)] = p;
    soundspeed[(0, 0)] = sound_speed_squared.sqrt();
}

/// Artificial viscosity from the velocity gradient, limited by the pressure gradient.
///
/// The mesh is uniform, so the cell widths are the globals `dx`, `dy` (the values `celldx` and
/// `celldy` hold everywhere). Fortran `MIN`/`MAX` are written as selects: the same values for
/// any non-NaN input, and one instruction each.
#[kernel]
pub fn viscosity_kernel(
    xvel0: Read<f64>,
    yvel0: Read<f64>,
    pressure: Read<f64>,
    density0: Read<f64>,
    viscosity: Write<f64>,
    dx: Global<f64>,
    dy: Global<f64>,
) {
    let ugrad = (xvel0[(1, 0)] + xvel0[(1, 1)]) - (xvel0[(0, 0)] + xvel0[(0, 1)]);
    let vgrad = (yvel0[(0, 1)] + yvel0[(1, 1)]) - (yvel0[(0, 0)] + yvel0[(1, 0)]);
    let div = dx * ugrad + dy * vgrad;
    let strain2 = 0.5 * (xvel0[(0, 1)] + xvel0[(1, 1)] - xvel0[(0, 0)] - xvel0[(1, 0)]) / dy
        + 0.5 * (yvel0[(1, 0)] + yvel0[(1, 1)] - yvel0[(0, 0)] - yvel0[(0, 1)]) / dx;
    let mut pgradx = (pressure[(1, 0)] - pressure[(-1, 0)]) / (dx + dx);
    let mut pgrady = (pressure[(0, 1)] - pressure[(0, -1)]) / (dy + dy);
    let pgradx2 = pgradx * pgradx;
    let pgrady2 = pgrady * pgrady;
    let psum = pgradx2 + pgrady2;
    let pden = if psum > 1.0e-16 { psum } else { 1.0e-16 };
    let limiter =
        ((0.5 * ugrad / dx) * pgradx2 + (0.5 * vgrad / dy) * pgrady2 + strain2 * pgradx * pgrady)
            / pden;
    if limiter > 0.0 || div >= 0.0 {
        viscosity[(0, 0)] = 0.0;
    } else {
        // Only the magnitudes matter below (the original's sign choice cancels out).
        let ax = pgradx.abs();
        let ay = pgrady.abs();
        let mx = if ax > 1.0e-16 { ax } else { 1.0e-16 };
        let my = if ay > 1.0e-16 { ay } else { 1.0e-16 };
        pgradx = if pgradx < 0.0 { -mx } else { mx };
        pgrady = if pgrady < 0.0 { -my } else { my };
        let pgrad = (pgradx * pgradx + pgrady * pgrady).sqrt();
        let xgrad = (dx * pgrad / pgradx).abs();
        let ygrad = (dy * pgrad / pgrady).abs();
        let grad = if xgrad < ygrad { xgrad } else { ygrad };
        let grad2 = grad * grad;
        viscosity[(0, 0)] = 2.0 * density0[(0, 0)] * grad2 * limiter * limiter;
    }
}

/// The stable time step of every cell: the smallest of its sound, x flow, y flow and divergence
/// limits. Uniform mesh: the cell sizes are the globals `dx`, `dy`.
#[kernel]
pub fn calc_dt(
    soundspeed: Read<f64>,
    viscosity: Read<f64>,
    density0: Read<f64>,
    xvel0: Read<f64>,
    xarea: Read<f64>,
    volume: Read<f64>,
    yvel0: Read<f64>,
    yarea: Read<f64>,
    dt_cell: Write<f64>,
    dx: Global<f64>,
    dy: Global<f64>,
    g_small: Global<f64>,
    g_big: Global<f64>,
    dtc_safe: Global<f64>,
    dtu_safe: Global<f64>,
    dtv_safe: Global<f64>,
    dtdiv_safe: Global<f64>,
) {
    let mut cc = soundspeed[(0, 0)] * soundspeed[(0, 0)];
    cc = cc + 2.0 * viscosity[(0, 0)] / density0[(0, 0)];
    let root = cc.sqrt();
    cc = if root > g_small { root } else { g_small };
    let ds = if dx < dy { dx } else { dy };
    let dtct = dtc_safe * ds / cc;
    let vol = volume[(0, 0)];
    let floor = g_small * vol;
    let mut div = 0.0;
    let mut dv1 = (xvel0[(0, 0)] + xvel0[(0, 1)]) * xarea[(0, 0)];
    let mut dv2 = (xvel0[(1, 0)] + xvel0[(1, 1)]) * xarea[(1, 0)];
    div = div + dv2 - dv1;
    let mut a1 = dv1.abs();
    let mut a2 = dv2.abs();
    let mut den = if a1 > a2 { a1 } else { a2 };
    den = if den > floor { den } else { floor };
    let dtut = dtu_safe * 2.0 * vol / den;
    dv1 = (yvel0[(0, 0)] + yvel0[(1, 0)]) * yarea[(0, 0)];
    dv2 = (yvel0[(0, 1)] + yvel0[(1, 1)]) * yarea[(0, 1)];
    div = div + dv2 - dv1;
    a1 = dv1.abs();
    a2 = dv2.abs();
    den = if a1 > a2 { a1 } else { a2 };
    den = if den > floor { den } else { floor };
    let dtvt = dtv_safe * 2.0 * vol / den;
    div = div / (2.0 * vol);
    let dtdivt = if div < -g_small {
        dtdiv_safe * (-1.0 / div)
    } else {
        g_big
    };
    let mut m = if dtut < dtct { dtut } else { dtct };
    m = if dtvt < m { dtvt } else { m };
    m = if dtdivt < m { dtdivt } else { m };
    dt_cell[(0, 0)] = m;
}

/// The smallest per-cell step (a separate pass keeps `calc_dt` free of the reduction, so its
/// row loop vectorises).
#[kernel]
pub fn calc_dt_min(dt_cell: Read<f64>, dt_min: Min<f64>) {
    dt_min.update(dt_cell[(0, 0)]);
}

/// The lowest linear index `k * nx + j` of the cells whose step equals the minimum.
#[kernel]
pub fn calc_dt_locate(
    dt_cell: Read<f64>,
    idx: Idx,
    dt_min: Global<f64>,
    nx: Global<f64>,
    first: Min<f64>,
) {
    if dt_cell[(0, 0)] == dt_min {
        first.update((idx[1] as f64) * nx + (idx[0] as f64));
    }
}

/// At one cell: its four step limits and position (the loop range is that single cell).
#[kernel]
pub fn calc_dt_report(
    celldx: Read<f64>,
    celldy: Read<f64>,
    cellx: Read<f64>,
    celly: Read<f64>,
    soundspeed: Read<f64>,
    viscosity: Read<f64>,
    density0: Read<f64>,
    xvel0: Read<f64>,
    xarea: Read<f64>,
    volume: Read<f64>,
    yvel0: Read<f64>,
    yarea: Read<f64>,
    g_small: Global<f64>,
    g_big: Global<f64>,
    dtc_safe: Global<f64>,
    dtu_safe: Global<f64>,
    dtv_safe: Global<f64>,
    dtdiv_safe: Global<f64>,
    out_sound: Sum<f64>,
    out_xvel: Sum<f64>,
    out_yvel: Sum<f64>,
    out_div: Sum<f64>,
    out_x: Sum<f64>,
    out_y: Sum<f64>,
) {
    let dsx = celldx[(0, 0)];
    let dsy = celldy[(0, 0)];
    let mut cc = soundspeed[(0, 0)] * soundspeed[(0, 0)];
    cc = cc + 2.0 * viscosity[(0, 0)] / density0[(0, 0)];
    cc = cc.sqrt().max(g_small);
    let dtct = dtc_safe * dsx.min(dsy) / cc;
    let mut div = 0.0;
    let mut dv1 = (xvel0[(0, 0)] + xvel0[(0, 1)]) * xarea[(0, 0)];
    let mut dv2 = (xvel0[(1, 0)] + xvel0[(1, 1)]) * xarea[(1, 0)];
    div = div + dv2 - dv1;
    let dtut =
        dtu_safe * 2.0 * volume[(0, 0)] / dv1.abs().max(dv2.abs()).max(g_small * volume[(0, 0)]);
    dv1 = (yvel0[(0, 0)] + yvel0[(1, 0)]) * yarea[(0, 0)];
    dv2 = (yvel0[(0, 1)] + yvel0[(1, 1)]) * yarea[(0, 1)];
    div = div + dv2 - dv1;
    let dtvt =
        dtv_safe * 2.0 * volume[(0, 0)] / dv1.abs().max(dv2.abs()).max(g_small * volume[(0, 0)]);
    div = div / (2.0 * volume[(0, 0)]);
    let dtdivt = if div < -g_small {
        dtdiv_safe * (-1.0 / div)
    } else {
        g_big
    };
    out_sound += dtct;
    out_xvel += dtut;
    out_yvel += dtvt;
    out_div += dtdivt;
    out_x += cellx[(0, 0)];
    out_y += celly[(0, 0)];
}

// ----------------------------------------------------------------------------------------------
// PdV, revert, accelerate, flux_calc
// ----------------------------------------------------------------------------------------------

/// Lagrangian step of density and energy over half a time step (the predictor).
#[kernel]
pub fn pdv_predict(
    xarea: Read<f64>,
    xvel0: Read<f64>,
    yarea: Read<f64>,
    yvel0: Read<f64>,
    volume: Read<f64>,
    pressure: Read<f64>,
    density0: Read<f64>,
    density1: Write<f64>,
    viscosity: Read<f64>,
    energy0: Read<f64>,
    energy1: Write<f64>,
    dt: Global<f64>,
) {
    let left_flux = (xarea[(0, 0)]
        * (xvel0[(0, 0)] + xvel0[(0, 1)] + xvel0[(0, 0)] + xvel0[(0, 1)]))
        * 0.25
        * dt
        * 0.5;
    let right_flux = (xarea[(1, 0)]
        * (xvel0[(1, 0)] + xvel0[(1, 1)] + xvel0[(1, 0)] + xvel0[(1, 1)]))
        * 0.25
        * dt
        * 0.5;
    let bottom_flux = (yarea[(0, 0)]
        * (yvel0[(0, 0)] + yvel0[(1, 0)] + yvel0[(0, 0)] + yvel0[(1, 0)]))
        * 0.25
        * dt
        * 0.5;
    let top_flux = (yarea[(0, 1)]
        * (yvel0[(0, 1)] + yvel0[(1, 1)] + yvel0[(0, 1)] + yvel0[(1, 1)]))
        * 0.25
        * dt
        * 0.5;
    let total_flux = right_flux - left_flux + top_flux - bottom_flux;
    let volume_change = volume[(0, 0)] / (volume[(0, 0)] + total_flux);
    let recip_volume = 1.0 / volume[(0, 0)];
    let energy_change = (pressure[(0, 0)] / density0[(0, 0)]
        + viscosity[(0, 0)] / density0[(0, 0)])
        * total_flux
        * recip_volume;
    energy1[(0, 0)] = energy0[(0, 0)] - energy_change;
    density1[(0, 0)] = density0[(0, 0)] * volume_change;
}

/// Lagrangian step of density and energy over the full time step (the corrector).
#[kernel]
pub fn pdv_correct(
    xarea: Read<f64>,
    xvel0: Read<f64>,
    xvel1: Read<f64>,
    yarea: Read<f64>,
    yvel0: Read<f64>,
    yvel1: Read<f64>,
    volume: Read<f64>,
    pressure: Read<f64>,
    density0: Read<f64>,
    density1: Write<f64>,
    viscosity: Read<f64>,
    energy0: Read<f64>,
    energy1: Write<f64>,
    dt: Global<f64>,
) {
    let left_flux = (xarea[(0, 0)]
        * (xvel0[(0, 0)] + xvel0[(0, 1)] + xvel1[(0, 0)] + xvel1[(0, 1)]))
        * 0.25
        * dt;
    let right_flux = (xarea[(1, 0)]
        * (xvel0[(1, 0)] + xvel0[(1, 1)] + xvel1[(1, 0)] + xvel1[(1, 1)]))
        * 0.25
        * dt;
    let bottom_flux = (yarea[(0, 0)]
        * (yvel0[(0, 0)] + yvel0[(1, 0)] + yvel1[(0, 0)] + yvel1[(1, 0)]))
        * 0.25
        * dt;
    let top_flux = (yarea[(0, 1)]
        * (yvel0[(0, 1)] + yvel0[(1, 1)] + yvel1[(0, 1)] + yvel1[(1, 1)]))
        * 0.25
        * dt;
    let total_flux = right_flux - left_flux + top_flux - bottom_flux;
    let volume_change = volume[(0, 0)] / (volume[(0, 0)] + total_flux);
    let recip_volume = 1.0 / volume[(0, 0)];
    let energy_change = (pressure[(0, 0)] / density0[(0, 0)]
        + viscosity[(0, 0)] / density0[(0, 0)])
        * total_flux
        * recip_volume;
    energy1[(0, 0)] = energy0[(0, 0)] - energy_change;
    density1[(0, 0)] = density0[(0, 0)] * volume_change;
}

/// Copies one dataset into another (revert, reset_field, staged halo copies).
#[kernel]
pub fn copy(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, 0)];
}

/// Copies two datasets into two others in one pass.
#[kernel]
pub fn copy2(src_a: Read<f64>, dst_a: Write<f64>, src_b: Read<f64>, dst_b: Write<f64>) {
    dst_a[(0, 0)] = src_a[(0, 0)];
    dst_b[(0, 0)] = src_b[(0, 0)];
}

/// Node velocities from the pressure and viscosity forces on the surrounding cells.
#[kernel]
pub fn accelerate(
    density0: Read<f64>,
    volume: Read<f64>,
    xvel0: Read<f64>,
    xvel1: Write<f64>,
    xarea: Read<f64>,
    pressure: Read<f64>,
    yvel0: Read<f64>,
    yvel1: Write<f64>,
    yarea: Read<f64>,
    viscosity: Read<f64>,
    dt: Global<f64>,
) {
    let halfdt = 0.5 * dt;
    let stepbymass = halfdt
        / ((density0[(-1, -1)] * volume[(-1, -1)]
            + density0[(0, -1)] * volume[(0, -1)]
            + density0[(0, 0)] * volume[(0, 0)]
            + density0[(-1, 0)] * volume[(-1, 0)])
            * 0.25);
    let mut xv = xvel0[(0, 0)]
        - stepbymass
            * (xarea[(0, 0)] * (pressure[(0, 0)] - pressure[(-1, 0)])
                + xarea[(0, -1)] * (pressure[(0, -1)] - pressure[(-1, -1)]));
    let mut yv = yvel0[(0, 0)]
        - stepbymass
            * (yarea[(0, 0)] * (pressure[(0, 0)] - pressure[(0, -1)])
                + yarea[(-1, 0)] * (pressure[(-1, 0)] - pressure[(-1, -1)]));
    xv = xv
        - stepbymass
            * (xarea[(0, 0)] * (viscosity[(0, 0)] - viscosity[(-1, 0)])
                + xarea[(0, -1)] * (viscosity[(0, -1)] - viscosity[(-1, -1)]));
    yv = yv
        - stepbymass
            * (yarea[(0, 0)] * (viscosity[(0, 0)] - viscosity[(0, -1)])
                + yarea[(-1, 0)] * (viscosity[(-1, 0)] - viscosity[(-1, -1)]));
    xvel1[(0, 0)] = xv;
    yvel1[(0, 0)] = yv;
}

/// Volume fluxes through the x faces.
#[kernel]
pub fn flux_calc_x(
    xarea: Read<f64>,
    xvel0: Read<f64>,
    xvel1: Read<f64>,
    vol_flux_x: Write<f64>,
    dt: Global<f64>,
) {
    vol_flux_x[(0, 0)] =
        0.25 * dt * xarea[(0, 0)] * (xvel0[(0, 0)] + xvel0[(0, 1)] + xvel1[(0, 0)] + xvel1[(0, 1)]);
}

/// Volume fluxes through the y faces.
#[kernel]
pub fn flux_calc_y(
    yarea: Read<f64>,
    yvel0: Read<f64>,
    yvel1: Read<f64>,
    vol_flux_y: Write<f64>,
    dt: Global<f64>,
) {
    vol_flux_y[(0, 0)] =
        0.25 * dt * yarea[(0, 0)] * (yvel0[(0, 0)] + yvel0[(1, 0)] + yvel1[(0, 0)] + yvel1[(1, 0)]);
}

// ----------------------------------------------------------------------------------------------
// Cell advection
// ----------------------------------------------------------------------------------------------

/// Cell volume before an x sweep that comes first (both directions' fluxes applied).
#[kernel]
pub fn advec_cell_pre_vol_x1(
    volume: Read<f64>,
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    pre_vol: Write<f64>,
) {
    pre_vol[(0, 0)] = volume[(0, 0)]
        + (vol_flux_x[(1, 0)] - vol_flux_x[(0, 0)] + vol_flux_y[(0, 1)] - vol_flux_y[(0, 0)]);
}

/// Cell volume before an x sweep that comes second.
#[kernel]
pub fn advec_cell_pre_vol_x2(volume: Read<f64>, vol_flux_x: Read<f64>, pre_vol: Write<f64>) {
    pre_vol[(0, 0)] = volume[(0, 0)] + vol_flux_x[(1, 0)] - vol_flux_x[(0, 0)];
}

/// Cell volume before a y sweep that comes first.
#[kernel]
pub fn advec_cell_pre_vol_y1(
    volume: Read<f64>,
    vol_flux_x: Read<f64>,
    vol_flux_y: Read<f64>,
    pre_vol: Write<f64>,
) {
    pre_vol[(0, 0)] = volume[(0, 0)]
        + (vol_flux_y[(0, 1)] - vol_flux_y[(0, 0)] + vol_flux_x[(1, 0)] - vol_flux_x[(0, 0)]);
}

/// Cell volume before a y sweep that comes second.
#[kernel]
pub fn advec_cell_pre_vol_y2(volume: Read<f64>, vol_flux_y: Read<f64>, pre_vol: Write<f64>) {
    pre_vol[(0, 0)] = volume[(0, 0)] + vol_flux_y[(0, 1)] - vol_flux_y[(0, 0)];
}

/// Mass and energy fluxes through an x face: donor-cell values with a van Leer style limited
/// correction. Uniform mesh: every vertex spacing is `dx`.
#[kernel]
pub fn advec_cell_flux_x(
    vol_flux_x: Read<f64>,
    pre_vol: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_x: Write<f64>,
    ener_flux: Write<f64>,
    dx: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_x[(0, 0)];
    let pos = vf > 0.0;
    // Upwind / donor / downwind cells.
    let d_up = if pos {
        density1[(-2, 0)]
    } else {
        density1[(1, 0)]
    };
    let d_don = if pos {
        density1[(-1, 0)]
    } else {
        density1[(0, 0)]
    };
    let d_down = if pos {
        density1[(0, 0)]
    } else {
        density1[(-1, 0)]
    };
    let e_up = if pos {
        energy1[(-2, 0)]
    } else {
        energy1[(1, 0)]
    };
    let e_don = if pos {
        energy1[(-1, 0)]
    } else {
        energy1[(0, 0)]
    };
    let e_down = if pos {
        energy1[(0, 0)]
    } else {
        energy1[(-1, 0)]
    };
    let pv_don = if pos {
        pre_vol[(-1, 0)]
    } else {
        pre_vol[(0, 0)]
    };

    let sigmat = vf.abs() / pv_don;
    let sigma3 = (1.0 + sigmat) * (dx / dx);
    let sigma4 = 2.0 - sigmat;
    let sigmav = sigmat;

    let mut diffuw = d_don - d_up;
    let mut diffdw = d_down - d_don;
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let au = diffuw.abs();
        let ad = diffdw.abs();
        let lim = one_by_six * (sigma3 * au + sigma4 * ad);
        let mut m = if au < ad { au } else { ad };
        m = if lim < m { lim } else { m };
        limiter = (1.0 - sigmav) * wind * m;
    }
    let mf = vf * (d_don + limiter);
    let sigmam = mf.abs() / (d_don * pv_don);

    diffuw = e_don - e_up;
    diffdw = e_down - e_don;
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let au = diffuw.abs();
        let ad = diffdw.abs();
        let lim = one_by_six * (sigma3 * au + sigma4 * ad);
        let mut m = if au < ad { au } else { ad };
        m = if lim < m { lim } else { m };
        limiter = (1.0 - sigmam) * wind * m;
    }
    mass_flux_x[(0, 0)] = mf;
    ener_flux[(0, 0)] = mf * (e_don + limiter);
}

/// Mass and energy fluxes through a y face. Uniform mesh: every vertex spacing is `dy`.
#[kernel]
pub fn advec_cell_flux_y(
    vol_flux_y: Read<f64>,
    pre_vol: Read<f64>,
    density1: Read<f64>,
    energy1: Read<f64>,
    mass_flux_y: Write<f64>,
    ener_flux: Write<f64>,
    dy: Global<f64>,
) {
    let one_by_six = 1.0 / 6.0;
    let vf = vol_flux_y[(0, 0)];
    let pos = vf > 0.0;
    let d_up = if pos {
        density1[(0, -2)]
    } else {
        density1[(0, 1)]
    };
    let d_don = if pos {
        density1[(0, -1)]
    } else {
        density1[(0, 0)]
    };
    let d_down = if pos {
        density1[(0, 0)]
    } else {
        density1[(0, -1)]
    };
    let e_up = if pos {
        energy1[(0, -2)]
    } else {
        energy1[(0, 1)]
    };
    let e_don = if pos {
        energy1[(0, -1)]
    } else {
        energy1[(0, 0)]
    };
    let e_down = if pos {
        energy1[(0, 0)]
    } else {
        energy1[(0, -1)]
    };
    let pv_don = if pos {
        pre_vol[(0, -1)]
    } else {
        pre_vol[(0, 0)]
    };

    let sigmat = vf.abs() / pv_don;
    let sigma3 = (1.0 + sigmat) * (dy / dy);
    let sigma4 = 2.0 - sigmat;
    let sigmav = sigmat;

    let mut diffuw = d_don - d_up;
    let mut diffdw = d_down - d_don;
    let mut wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    let mut limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let au = diffuw.abs();
        let ad = diffdw.abs();
        let lim = one_by_six * (sigma3 * au + sigma4 * ad);
        let mut m = if au < ad { au } else { ad };
        m = if lim < m { lim } else { m };
        limiter = (1.0 - sigmav) * wind * m;
    }
    let mf = vf * (d_don + limiter);
    let sigmam = mf.abs() / (d_don * pv_don);

    diffuw = e_don - e_up;
    diffdw = e_down - e_don;
    wind = if diffdw <= 0.0 { -1.0 } else { 1.0 };
    limiter = 0.0;
    if diffuw * diffdw > 0.0 {
        let au = diffuw.abs();
        let ad = diffdw.abs();
        let lim = one_by_six * (sigma3 * au + sigma4 * ad);
        let mut m = if au < ad { au } else { ad };
        m = if lim < m { lim } else { m };
        limiter = (1.0 - sigmam) * wind * m;
    }
    mass_flux_y[(0, 0)] = mf;
    ener_flux[(0, 0)] = mf * (e_don + limiter);
}

/// New density and energy after the x sweep's fluxes.
#[kernel]
pub fn advec_cell_update_x(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_x: Read<f64>,
    vol_flux_x: Read<f64>,
    pre_vol: Read<f64>,
    ener_flux: Read<f64>,
) {
    let pre_mass = density1[(0, 0)] * pre_vol[(0, 0)];
    let post_mass = pre_mass + mass_flux_x[(0, 0)] - mass_flux_x[(1, 0)];
    let post_ener =
        (energy1[(0, 0)] * pre_mass + ener_flux[(0, 0)] - ener_flux[(1, 0)]) / post_mass;
    let advec_vol = pre_vol[(0, 0)] + vol_flux_x[(0, 0)] - vol_flux_x[(1, 0)];
    density1[(0, 0)] = post_mass / advec_vol;
    energy1[(0, 0)] = post_ener;
}

/// New density and energy after the y sweep's fluxes.
#[kernel]
pub fn advec_cell_update_y(
    density1: ReadWrite<f64>,
    energy1: ReadWrite<f64>,
    mass_flux_y: Read<f64>,
    vol_flux_y: Read<f64>,
    pre_vol: Read<f64>,
    ener_flux: Read<f64>,
) {
    let pre_mass = density1[(0, 0)] * pre_vol[(0, 0)];
    let post_mass = pre_mass + mass_flux_y[(0, 0)] - mass_flux_y[(0, 1)];
    let post_ener =
        (energy1[(0, 0)] * pre_mass + ener_flux[(0, 0)] - ener_flux[(0, 1)]) / post_mass;
    let advec_vol = pre_vol[(0, 0)] + vol_flux_y[(0, 0)] - vol_flux_y[(0, 1)];
    density1[(0, 0)] = post_mass / advec_vol;
    energy1[(0, 0)] = post_ener;
}

// ----------------------------------------------------------------------------------------------
// Momentum advection
// ----------------------------------------------------------------------------------------------

/// Cell volume after the y fluxes, before an x momentum sweep that comes first.
#[kernel]
pub fn advec_mom_post_vol_x1(volume: Read<f64>, vol_flux_y: Read<f64>, post_vol: Write<f64>) {
    post_vol[(0, 0)] = volume[(0, 0)] + vol_flux_y[(0, 1)] - vol_flux_y[(0, 0)];
}

/// Cell volume after the x fluxes, before a y momentum sweep that comes first.
#[kernel]
pub fn advec_mom_post_vol_y1(volume: Read<f64>, vol_flux_x: Read<f64>, post_vol: Write<f64>) {
    post_vol[(0, 0)] = volume[(0, 0)] + vol_flux_x[(1, 0)] - vol_flux_x[(0, 0)];
}

/// Mass flux through the staggered (node-centred) cells' x faces.
#[kernel]
pub fn advec_mom_node_flux_x(mass_flux_x: Read<f64>, node_flux: Write<f64>) {
    node_flux[(0, 0)] = 0.25
        * (mass_flux_x[(0, -1)] + mass_flux_x[(0, 0)] + mass_flux_x[(1, -1)] + mass_flux_x[(1, 0)]);
}

/// Mass flux through the staggered cells' y faces.
#[kernel]
pub fn advec_mom_node_flux_y(mass_flux_y: Read<f64>, node_flux: Write<f64>) {
    node_flux[(0, 0)] = 0.25
        * (mass_flux_y[(-1, 0)] + mass_flux_y[(0, 0)] + mass_flux_y[(-1, 1)] + mass_flux_y[(0, 1)]);
}

/// Staggered-cell mass after and before an x sweep.
#[kernel]
pub fn advec_mom_node_mass_x(
    density1: Read<f64>,
    post_vol: Read<f64>,
    node_flux: Read<f64>,
    node_mass_post: Write<f64>,
    node_mass_pre: Write<f64>,
) {
    let post = 0.25
        * (density1[(0, -1)] * post_vol[(0, -1)]
            + density1[(0, 0)] * post_vol[(0, 0)]
            + density1[(-1, -1)] * post_vol[(-1, -1)]
            + density1[(-1, 0)] * post_vol[(-1, 0)]);
    node_mass_post[(0, 0)] = post;
    node_mass_pre[(0, 0)] = post - node_flux[(-1, 0)] + node_flux[(0, 0)];
}

/// Staggered-cell mass after and before a y sweep.
#[kernel]
pub fn advec_mom_node_mass_y(
    density1: Read<f64>,
    post_vol: Read<f64>,
    node_flux: Read<f64>,
    node_mass_post: Write<f64>,
    node_mass_pre: Write<f64>,
) {
    let post = 0.25
        * (density1[(0, -1)] * post_vol[(0, -1)]
            + density1[(0, 0)] * post_vol[(0, 0)]
            + density1[(-1, -1)] * post_vol[(-1, -1)]
            + density1[(-1, 0)] * post_vol[(-1, 0)]);
    node_mass_post[(0, 0)] = post;
    node_mass_pre[(0, 0)] = post - node_flux[(0, -1)] + node_flux[(0, 0)];
}

/// Momentum fluxes of both velocity components through the staggered cells' x faces: the
/// limited upwind velocity times the staggered mass flux. Uniform mesh: every cell is `dx` wide
/// in x. (The original does one component per call; the two are independent.)
#[kernel]
pub fn advec_mom_flux_x(
    node_flux: Read<f64>,
    node_mass_pre: Read<f64>,
    xvel1: Read<f64>,
    yvel1: Read<f64>,
    mom_flux_x: Write<f64>,
    mom_flux_y: Write<f64>,
    dx: Global<f64>,
) {
    let nf = node_flux[(0, 0)];
    let neg = nf < 0.0;
    let m_don = if neg {
        node_mass_pre[(1, 0)]
    } else {
        node_mass_pre[(0, 0)]
    };
    let sigma = nf.abs() / m_don;
    let width = dx;
    let u_up = if neg { xvel1[(2, 0)] } else { xvel1[(-1, 0)] };
    let u_don = if neg { xvel1[(1, 0)] } else { xvel1[(0, 0)] };
    let u_down = if neg { xvel1[(0, 0)] } else { xvel1[(1, 0)] };
    let u_diffuw = u_don - u_up;
    let u_diffdw = u_down - u_don;
    let mut u_limiter = 0.0;
    if u_diffuw * u_diffdw > 0.0 {
        let auw = u_diffuw.abs();
        let adw = u_diffdw.abs();
        let wind = if u_diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = width * ((2.0 - sigma) * adw / width + (1.0 + sigma) * auw / dx) / 6.0;
        let mut m = if auw < lim { auw } else { lim };
        m = if adw < m { adw } else { m };
        u_limiter = wind * m;
    }
    mom_flux_x[(0, 0)] = (u_don + (1.0 - sigma) * u_limiter) * nf;
    let v_up = if neg { yvel1[(2, 0)] } else { yvel1[(-1, 0)] };
    let v_don = if neg { yvel1[(1, 0)] } else { yvel1[(0, 0)] };
    let v_down = if neg { yvel1[(0, 0)] } else { yvel1[(1, 0)] };
    let v_diffuw = v_don - v_up;
    let v_diffdw = v_down - v_don;
    let mut v_limiter = 0.0;
    if v_diffuw * v_diffdw > 0.0 {
        let auw = v_diffuw.abs();
        let adw = v_diffdw.abs();
        let wind = if v_diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = width * ((2.0 - sigma) * adw / width + (1.0 + sigma) * auw / dx) / 6.0;
        let mut m = if auw < lim { auw } else { lim };
        m = if adw < m { adw } else { m };
        v_limiter = wind * m;
    }
    mom_flux_y[(0, 0)] = (v_don + (1.0 - sigma) * v_limiter) * nf;
}

/// Momentum fluxes of both velocity components through the staggered cells' y faces: the
/// limited upwind velocity times the staggered mass flux. Uniform mesh: every cell is `dy` wide
/// in y. (The original does one component per call; the two are independent.)
#[kernel]
pub fn advec_mom_flux_y(
    node_flux: Read<f64>,
    node_mass_pre: Read<f64>,
    xvel1: Read<f64>,
    yvel1: Read<f64>,
    mom_flux_x: Write<f64>,
    mom_flux_y: Write<f64>,
    dy: Global<f64>,
) {
    let nf = node_flux[(0, 0)];
    let neg = nf < 0.0;
    let m_don = if neg {
        node_mass_pre[(0, 1)]
    } else {
        node_mass_pre[(0, 0)]
    };
    let sigma = nf.abs() / m_don;
    let width = dy;
    let u_up = if neg { xvel1[(0, 2)] } else { xvel1[(0, -1)] };
    let u_don = if neg { xvel1[(0, 1)] } else { xvel1[(0, 0)] };
    let u_down = if neg { xvel1[(0, 0)] } else { xvel1[(0, 1)] };
    let u_diffuw = u_don - u_up;
    let u_diffdw = u_down - u_don;
    let mut u_limiter = 0.0;
    if u_diffuw * u_diffdw > 0.0 {
        let auw = u_diffuw.abs();
        let adw = u_diffdw.abs();
        let wind = if u_diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = width * ((2.0 - sigma) * adw / width + (1.0 + sigma) * auw / dy) / 6.0;
        let mut m = if auw < lim { auw } else { lim };
        m = if adw < m { adw } else { m };
        u_limiter = wind * m;
    }
    mom_flux_x[(0, 0)] = (u_don + (1.0 - sigma) * u_limiter) * nf;
    let v_up = if neg { yvel1[(0, 2)] } else { yvel1[(0, -1)] };
    let v_don = if neg { yvel1[(0, 1)] } else { yvel1[(0, 0)] };
    let v_down = if neg { yvel1[(0, 0)] } else { yvel1[(0, 1)] };
    let v_diffuw = v_don - v_up;
    let v_diffdw = v_down - v_don;
    let mut v_limiter = 0.0;
    if v_diffuw * v_diffdw > 0.0 {
        let auw = v_diffuw.abs();
        let adw = v_diffdw.abs();
        let wind = if v_diffdw <= 0.0 { -1.0 } else { 1.0 };
        let lim = width * ((2.0 - sigma) * adw / width + (1.0 + sigma) * auw / dy) / 6.0;
        let mut m = if auw < lim { auw } else { lim };
        m = if adw < m { adw } else { m };
        v_limiter = wind * m;
    }
    mom_flux_y[(0, 0)] = (v_don + (1.0 - sigma) * v_limiter) * nf;
}

/// New node velocities (both components) after an x momentum sweep.
#[kernel]
pub fn advec_mom_update_x(
    xvel1: ReadWrite<f64>,
    yvel1: ReadWrite<f64>,
    node_mass_post: Read<f64>,
    node_mass_pre: Read<f64>,
    mom_flux_x: Read<f64>,
    mom_flux_y: Read<f64>,
) {
    let pre = node_mass_pre[(0, 0)];
    let post = node_mass_post[(0, 0)];
    xvel1[(0, 0)] = (xvel1[(0, 0)] * pre + mom_flux_x[(-1, 0)] - mom_flux_x[(0, 0)]) / post;
    yvel1[(0, 0)] = (yvel1[(0, 0)] * pre + mom_flux_y[(-1, 0)] - mom_flux_y[(0, 0)]) / post;
}

/// New node velocities (both components) after an y momentum sweep.
#[kernel]
pub fn advec_mom_update_y(
    xvel1: ReadWrite<f64>,
    yvel1: ReadWrite<f64>,
    node_mass_post: Read<f64>,
    node_mass_pre: Read<f64>,
    mom_flux_x: Read<f64>,
    mom_flux_y: Read<f64>,
) {
    let pre = node_mass_pre[(0, 0)];
    let post = node_mass_post[(0, 0)];
    xvel1[(0, 0)] = (xvel1[(0, 0)] * pre + mom_flux_x[(0, -1)] - mom_flux_x[(0, 0)]) / post;
    yvel1[(0, 0)] = (yvel1[(0, 0)] * pre + mom_flux_y[(0, -1)] - mom_flux_y[(0, 0)]) / post;
}

// ----------------------------------------------------------------------------------------------
// field_summary
// ----------------------------------------------------------------------------------------------

/// Volume, mass, internal and kinetic energy and volume-weighted pressure summed over cells.
#[kernel]
pub fn field_summary(
    volume: Read<f64>,
    density0: Read<f64>,
    energy0: Read<f64>,
    pressure: Read<f64>,
    xvel0: Read<f64>,
    yvel0: Read<f64>,
    vol: Sum<f64>,
    mass: Sum<f64>,
    ie: Sum<f64>,
    ke: Sum<f64>,
    press: Sum<f64>,
) {
    let mut vsqrd = 0.0;
    vsqrd = vsqrd + 0.25 * (xvel0[(0, 0)] * xvel0[(0, 0)] + yvel0[(0, 0)] * yvel0[(0, 0)]);
    vsqrd = vsqrd + 0.25 * (xvel0[(1, 0)] * xvel0[(1, 0)] + yvel0[(1, 0)] * yvel0[(1, 0)]);
    vsqrd = vsqrd + 0.25 * (xvel0[(0, 1)] * xvel0[(0, 1)] + yvel0[(0, 1)] * yvel0[(0, 1)]);
    vsqrd = vsqrd + 0.25 * (xvel0[(1, 1)] * xvel0[(1, 1)] + yvel0[(1, 1)] * yvel0[(1, 1)]);
    let cell_vol = volume[(0, 0)];
    let cell_mass = cell_vol * density0[(0, 0)];
    vol += cell_vol;
    mass += cell_mass;
    ie += cell_mass * energy0[(0, 0)];
    ke += cell_mass * 0.5 * vsqrd;
    press += cell_vol * pressure[(0, 0)];
}
