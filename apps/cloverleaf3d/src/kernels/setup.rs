//! initialise_chunk and generate_chunk: mesh coordinates and the initial state from the deck.

use ops::prelude::*;

/// Vertex x coordinates and spacings along the 1-D `vertexx` array.
#[kernel]
pub fn init_vertex_x(
    vertex: Write<f64>,
    vertexd: Write<f64>,
    idx: Idx,
    origin: Global<f64>,
    d: Global<f64>,
) {
    vertex[(0, 0, 0)] = d.mul_add(idx[0] as f64, origin);
    vertexd[(0, 0, 0)] = d;
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
    vertex[(0, 0, 0)] = d.mul_add(idx[1] as f64, origin);
    vertexd[(0, 0, 0)] = d;
}

/// Vertex z coordinates and spacings along the 1-D `vertexz` array.
#[kernel]
pub fn init_vertex_z(
    vertex: Write<f64>,
    vertexd: Write<f64>,
    idx: Idx,
    origin: Global<f64>,
    d: Global<f64>,
) {
    vertex[(0, 0, 0)] = d.mul_add(idx[2] as f64, origin);
    vertexd[(0, 0, 0)] = d;
}

/// Cell-centre x coordinates and widths.
#[kernel]
pub fn init_cell_x(vertexx: Read<f64>, cellx: Write<f64>, celldx: Write<f64>, d: Global<f64>) {
    cellx[(0, 0, 0)] = 0.5 * (vertexx[(0, 0, 0)] + vertexx[(1, 0, 0)]);
    celldx[(0, 0, 0)] = d;
}

/// Cell-centre y coordinates and heights.
#[kernel]
pub fn init_cell_y(vertexy: Read<f64>, celly: Write<f64>, celldy: Write<f64>, d: Global<f64>) {
    celly[(0, 0, 0)] = 0.5 * (vertexy[(0, 0, 0)] + vertexy[(0, 1, 0)]);
    celldy[(0, 0, 0)] = d;
}

/// Cell-centre z coordinates and depths.
#[kernel]
pub fn init_cell_z(vertexz: Read<f64>, cellz: Write<f64>, celldz: Write<f64>, d: Global<f64>) {
    cellz[(0, 0, 0)] = 0.5 * (vertexz[(0, 0, 0)] + vertexz[(0, 0, 1)]);
    celldz[(0, 0, 0)] = d;
}

/// State 1, the background, everywhere (cells).
#[kernel]
pub fn generate_background_cells(
    density0: Write<f64>,
    energy0: Write<f64>,
    density: Global<f64>,
    energy: Global<f64>,
) {
    density0[(0, 0, 0)] = density;
    energy0[(0, 0, 0)] = energy;
}

/// State 1, the background, everywhere (nodes).
#[kernel]
pub fn generate_background_nodes(
    xvel0: Write<f64>,
    yvel0: Write<f64>,
    zvel0: Write<f64>,
    xvel: Global<f64>,
    yvel: Global<f64>,
    zvel: Global<f64>,
) {
    xvel0[(0, 0, 0)] = xvel;
    yvel0[(0, 0, 0)] = yvel;
    zvel0[(0, 0, 0)] = zvel;
}

/// A later state's density and energy where its region covers the cell.
///
/// The original is built with fused multiply-adds; `mul_add` stands where its compiler fuses
/// (vertex coordinates, the squared distance to a sphere's centre), so that the cells on a
/// region's edge are the same ones.
///
/// `geometry`: 1 cuboid (cells overlapping it), 2 sphere (cells whose centre is inside it),
/// 3 point (the cell whose lower-left-back vertex it is). The bounds are the nudged ones.
#[kernel]
pub fn generate_state_cells(
    vertexx: Read<f64>,
    vertexy: Read<f64>,
    vertexz: Read<f64>,
    cellx: Read<f64>,
    celly: Read<f64>,
    cellz: Read<f64>,
    density0: ReadWrite<f64>,
    energy0: ReadWrite<f64>,
    geometry: Global<i32>,
    xmin: Global<f64>,
    xmax: Global<f64>,
    ymin: Global<f64>,
    ymax: Global<f64>,
    zmin: Global<f64>,
    zmax: Global<f64>,
    radius: Global<f64>,
    density: Global<f64>,
    energy: Global<f64>,
) {
    let mut inside = false;
    if geometry == 1 {
        inside = vertexx[(1, 0, 0)] >= xmin
            && vertexx[(0, 0, 0)] < xmax
            && vertexy[(0, 1, 0)] >= ymin
            && vertexy[(0, 0, 0)] < ymax
            && vertexz[(0, 0, 1)] >= zmin
            && vertexz[(0, 0, 0)] < zmax;
    } else if geometry == 2 {
        let ddx = cellx[(0, 0, 0)] - xmin;
        let ddy = celly[(0, 0, 0)] - ymin;
        let ddz = cellz[(0, 0, 0)] - zmin;
        inside = ddz.mul_add(ddz, ddx.mul_add(ddx, ddy * ddy)).sqrt() <= radius;
    } else if geometry == 3 {
        inside =
            vertexx[(0, 0, 0)] == xmin && vertexy[(0, 0, 0)] == ymin && vertexz[(0, 0, 0)] == zmin;
    }
    if inside {
        density0[(0, 0, 0)] = density;
        energy0[(0, 0, 0)] = energy;
    }
}

/// A later state's velocities at every node that is a corner of a cell the state covers (the
/// original sets the eight corners of each covered cell).
#[kernel]
pub fn generate_state_nodes(
    vertexx: Read<f64>,
    vertexy: Read<f64>,
    vertexz: Read<f64>,
    cellx: Read<f64>,
    celly: Read<f64>,
    cellz: Read<f64>,
    xvel0: ReadWrite<f64>,
    yvel0: ReadWrite<f64>,
    zvel0: ReadWrite<f64>,
    geometry: Global<i32>,
    xmin: Global<f64>,
    xmax: Global<f64>,
    ymin: Global<f64>,
    ymax: Global<f64>,
    zmin: Global<f64>,
    zmax: Global<f64>,
    radius: Global<f64>,
    xvel: Global<f64>,
    yvel: Global<f64>,
    zvel: Global<f64>,
) {
    // The node is a corner of cells (-1..=0) x (-1..=0) x (-1..=0) relative to its own index.
    let mut inside = false;
    if geometry == 1 {
        // Cuboid and point tests are products of per-direction tests, so "some corner cell is
        // covered" is "in x for one of the two cells, and in y ..., and in z ...".
        let in_x = (vertexx[(1, 0, 0)] >= xmin && vertexx[(0, 0, 0)] < xmax)
            || (vertexx[(0, 0, 0)] >= xmin && vertexx[(-1, 0, 0)] < xmax);
        let in_y = (vertexy[(0, 1, 0)] >= ymin && vertexy[(0, 0, 0)] < ymax)
            || (vertexy[(0, 0, 0)] >= ymin && vertexy[(0, -1, 0)] < ymax);
        let in_z = (vertexz[(0, 0, 1)] >= zmin && vertexz[(0, 0, 0)] < zmax)
            || (vertexz[(0, 0, 0)] >= zmin && vertexz[(0, 0, -1)] < zmax);
        inside = in_x && in_y && in_z;
    } else if geometry == 2 {
        // Distances along each axis to the centre from the two cells on either side.
        let ax = cellx[(-1, 0, 0)] - xmin;
        let bx = cellx[(0, 0, 0)] - xmin;
        let ay = celly[(0, -1, 0)] - ymin;
        let by = celly[(0, 0, 0)] - ymin;
        let az = cellz[(0, 0, -1)] - zmin;
        let bz = cellz[(0, 0, 0)] - zmin;
        inside = az.mul_add(az, ax.mul_add(ax, ay * ay)).sqrt() <= radius
            || az.mul_add(az, bx.mul_add(bx, ay * ay)).sqrt() <= radius
            || az.mul_add(az, ax.mul_add(ax, by * by)).sqrt() <= radius
            || az.mul_add(az, bx.mul_add(bx, by * by)).sqrt() <= radius
            || bz.mul_add(bz, ax.mul_add(ax, ay * ay)).sqrt() <= radius
            || bz.mul_add(bz, bx.mul_add(bx, ay * ay)).sqrt() <= radius
            || bz.mul_add(bz, ax.mul_add(ax, by * by)).sqrt() <= radius
            || bz.mul_add(bz, bx.mul_add(bx, by * by)).sqrt() <= radius;
    } else if geometry == 3 {
        let in_x = vertexx[(-1, 0, 0)] == xmin || vertexx[(0, 0, 0)] == xmin;
        let in_y = vertexy[(0, -1, 0)] == ymin || vertexy[(0, 0, 0)] == ymin;
        let in_z = vertexz[(0, 0, -1)] == zmin || vertexz[(0, 0, 0)] == zmin;
        inside = in_x && in_y && in_z;
    }
    if inside {
        xvel0[(0, 0, 0)] = xvel;
        yvel0[(0, 0, 0)] = yvel;
        zvel0[(0, 0, 0)] = zvel;
    }
}

/// Counts the interior cells a state covers (to warn about states that cover none, such as a
/// point not given as a vertex minus the original's nudge).
#[kernel]
pub fn count_state_cells(
    vertexx: Read<f64>,
    vertexy: Read<f64>,
    vertexz: Read<f64>,
    cellx: Read<f64>,
    celly: Read<f64>,
    cellz: Read<f64>,
    geometry: Global<i32>,
    xmin: Global<f64>,
    xmax: Global<f64>,
    ymin: Global<f64>,
    ymax: Global<f64>,
    zmin: Global<f64>,
    zmax: Global<f64>,
    radius: Global<f64>,
    count: Sum<f64>,
) {
    let mut inside = false;
    if geometry == 1 {
        inside = vertexx[(1, 0, 0)] >= xmin
            && vertexx[(0, 0, 0)] < xmax
            && vertexy[(0, 1, 0)] >= ymin
            && vertexy[(0, 0, 0)] < ymax
            && vertexz[(0, 0, 1)] >= zmin
            && vertexz[(0, 0, 0)] < zmax;
    } else if geometry == 2 {
        let ddx = cellx[(0, 0, 0)] - xmin;
        let ddy = celly[(0, 0, 0)] - ymin;
        let ddz = cellz[(0, 0, 0)] - zmin;
        inside = ddz.mul_add(ddz, ddx.mul_add(ddx, ddy * ddy)).sqrt() <= radius;
    } else if geometry == 3 {
        inside =
            vertexx[(0, 0, 0)] == xmin && vertexy[(0, 0, 0)] == ymin && vertexz[(0, 0, 0)] == zmin;
    }
    if inside {
        count += 1.0;
    }
}
