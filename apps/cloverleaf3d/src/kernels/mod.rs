//! Every CloverLeaf 3D grid computation as a `#[kernel]`.
//!
//! Index conventions (0-based): cell `(j, k, l)` spans vertices `j..j+1` in x, `k..k+1` in y and
//! `l..l+1` in z; node (vertex) `(j, k, l)` is the lower-left-back corner of cell `(j, k, l)`;
//! x face `j` is the face at vertex `j` (the left face of cell `j`), and so on. Interior cells are
//! `0..nx` x `0..ny` x `0..nz`, interior nodes `0..=nx` x `0..=ny` x `0..=nz`. Every dataset has
//! two halo layers. The arithmetic follows the original's expressions term by term, in the same
//! order, so results agree with it to rounding (its compiler fuses multiply-adds; Rust does not).
//!
//! The mesh is uniform, as every CloverLeaf deck describes it: cell widths, face areas and cell
//! volumes are the same everywhere, so the hot kernels take them as `Global`s (exactly the values
//! the original's `celldx`, `xarea`, `volume`, ... arrays hold) instead of reading arrays.

#![allow(clippy::too_many_arguments)]

pub mod advec_cell;
pub mod advec_mom;
pub mod hydro;
pub mod setup;
pub mod volumes;
