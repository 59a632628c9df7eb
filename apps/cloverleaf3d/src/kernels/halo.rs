//! Reflective boundary copies: `dst = sign * src[offset]`, one kernel per offset (1 to 4 layers
//! inwards along one axis), since a kernel's offsets are literals.

use ops_core::prelude::*;

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
