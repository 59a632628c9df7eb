//! Reflective boundary copies: `dst = sign * src[offset]`, one kernel per offset (1 to 4 layers
//! inwards along one axis), since a kernel's offsets are literals; and for node-like data, both
//! layers of a side in one loop (`halo2_*`: the point at `near` copies the one 2 inside, the
//! other the one 4 inside; the points read never overlap the two written).

use ops::prelude::*;

/// Halo copy: `dst = sign * src[(1, 0, 0)]`.
#[kernel]
pub fn halo_from_p1x(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(1, 0, 0)];
}

/// Halo copy: `dst = sign * src[(2, 0, 0)]`.
#[kernel]
pub fn halo_from_p2x(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(2, 0, 0)];
}

/// Halo copy: `dst = sign * src[(3, 0, 0)]`.
#[kernel]
pub fn halo_from_p3x(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(3, 0, 0)];
}

/// Halo copy: `dst = sign * src[(4, 0, 0)]`.
#[kernel]
pub fn halo_from_p4x(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(4, 0, 0)];
}

/// Halo copy: `dst = sign * src[(-1, 0, 0)]`.
#[kernel]
pub fn halo_from_m1x(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(-1, 0, 0)];
}

/// Halo copy: `dst = sign * src[(-2, 0, 0)]`.
#[kernel]
pub fn halo_from_m2x(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(-2, 0, 0)];
}

/// Halo copy: `dst = sign * src[(-3, 0, 0)]`.
#[kernel]
pub fn halo_from_m3x(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(-3, 0, 0)];
}

/// Halo copy: `dst = sign * src[(-4, 0, 0)]`.
#[kernel]
pub fn halo_from_m4x(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(-4, 0, 0)];
}

/// Halo copy: `dst = sign * src[(0, 1, 0)]`.
#[kernel]
pub fn halo_from_p1y(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 1, 0)];
}

/// Halo copy: `dst = sign * src[(0, 2, 0)]`.
#[kernel]
pub fn halo_from_p2y(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 2, 0)];
}

/// Halo copy: `dst = sign * src[(0, 3, 0)]`.
#[kernel]
pub fn halo_from_p3y(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 3, 0)];
}

/// Halo copy: `dst = sign * src[(0, 4, 0)]`.
#[kernel]
pub fn halo_from_p4y(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 4, 0)];
}

/// Halo copy: `dst = sign * src[(0, -1, 0)]`.
#[kernel]
pub fn halo_from_m1y(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, -1, 0)];
}

/// Halo copy: `dst = sign * src[(0, -2, 0)]`.
#[kernel]
pub fn halo_from_m2y(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, -2, 0)];
}

/// Halo copy: `dst = sign * src[(0, -3, 0)]`.
#[kernel]
pub fn halo_from_m3y(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, -3, 0)];
}

/// Halo copy: `dst = sign * src[(0, -4, 0)]`.
#[kernel]
pub fn halo_from_m4y(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, -4, 0)];
}

/// Halo copy: `dst = sign * src[(0, 0, 1)]`.
#[kernel]
pub fn halo_from_p1z(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 0, 1)];
}

/// Halo copy: `dst = sign * src[(0, 0, 2)]`.
#[kernel]
pub fn halo_from_p2z(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 0, 2)];
}

/// Halo copy: `dst = sign * src[(0, 0, 3)]`.
#[kernel]
pub fn halo_from_p3z(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 0, 3)];
}

/// Halo copy: `dst = sign * src[(0, 0, 4)]`.
#[kernel]
pub fn halo_from_p4z(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 0, 4)];
}

/// Halo copy: `dst = sign * src[(0, 0, -1)]`.
#[kernel]
pub fn halo_from_m1z(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 0, -1)];
}

/// Halo copy: `dst = sign * src[(0, 0, -2)]`.
#[kernel]
pub fn halo_from_m2z(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 0, -2)];
}

/// Halo copy: `dst = sign * src[(0, 0, -3)]`.
#[kernel]
pub fn halo_from_m3z(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 0, -3)];
}

/// Halo copy: `dst = sign * src[(0, 0, -4)]`.
#[kernel]
pub fn halo_from_m4z(src: Read<f64>, dst: Write<f64>, sign: Global<f64>) {
    dst[(0, 0, 0)] = sign * src[(0, 0, -4)];
}

/// Both layers of a node-like side along x: `dst = sign * src[(2, 0, 0)]` at `idx[0] == near`,
/// `sign * src[(4, 0, 0)]` at the other layer.
#[kernel]
pub fn halo2_from_px(
    src: Read<f64>,
    dst: Write<f64>,
    idx: Idx,
    sign: Global<f64>,
    near: Global<i32>,
) {
    let value = if idx[0] == near {
        src[(2, 0, 0)]
    } else {
        src[(4, 0, 0)]
    };
    dst[(0, 0, 0)] = sign * value;
}

/// Both layers of a node-like side along x: `dst = sign * src[(-2, 0, 0)]` at `idx[0] == near`,
/// `sign * src[(-4, 0, 0)]` at the other layer.
#[kernel]
pub fn halo2_from_mx(
    src: Read<f64>,
    dst: Write<f64>,
    idx: Idx,
    sign: Global<f64>,
    near: Global<i32>,
) {
    let value = if idx[0] == near {
        src[(-2, 0, 0)]
    } else {
        src[(-4, 0, 0)]
    };
    dst[(0, 0, 0)] = sign * value;
}

/// Both layers of a node-like side along y: `dst = sign * src[(0, 2, 0)]` at `idx[1] == near`,
/// `sign * src[(0, 4, 0)]` at the other layer.
#[kernel]
pub fn halo2_from_py(
    src: Read<f64>,
    dst: Write<f64>,
    idx: Idx,
    sign: Global<f64>,
    near: Global<i32>,
) {
    let value = if idx[1] == near {
        src[(0, 2, 0)]
    } else {
        src[(0, 4, 0)]
    };
    dst[(0, 0, 0)] = sign * value;
}

/// Both layers of a node-like side along y: `dst = sign * src[(0, -2, 0)]` at `idx[1] == near`,
/// `sign * src[(0, -4, 0)]` at the other layer.
#[kernel]
pub fn halo2_from_my(
    src: Read<f64>,
    dst: Write<f64>,
    idx: Idx,
    sign: Global<f64>,
    near: Global<i32>,
) {
    let value = if idx[1] == near {
        src[(0, -2, 0)]
    } else {
        src[(0, -4, 0)]
    };
    dst[(0, 0, 0)] = sign * value;
}

/// Both layers of a node-like side along z: `dst = sign * src[(0, 0, 2)]` at `idx[2] == near`,
/// `sign * src[(0, 0, 4)]` at the other layer.
#[kernel]
pub fn halo2_from_pz(
    src: Read<f64>,
    dst: Write<f64>,
    idx: Idx,
    sign: Global<f64>,
    near: Global<i32>,
) {
    let value = if idx[2] == near {
        src[(0, 0, 2)]
    } else {
        src[(0, 0, 4)]
    };
    dst[(0, 0, 0)] = sign * value;
}

/// Both layers of a node-like side along z: `dst = sign * src[(0, 0, -2)]` at `idx[2] == near`,
/// `sign * src[(0, 0, -4)]` at the other layer.
#[kernel]
pub fn halo2_from_mz(
    src: Read<f64>,
    dst: Write<f64>,
    idx: Idx,
    sign: Global<f64>,
    near: Global<i32>,
) {
    let value = if idx[2] == near {
        src[(0, 0, -2)]
    } else {
        src[(0, 0, -4)]
    };
    dst[(0, 0, 0)] = sign * value;
}
