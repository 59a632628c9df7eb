//! Boundary conditions as runtime calls: [`Ops::fill_halo`] fills the halo layers of one face of
//! a dataset (reflective, zero-gradient, fixed value or periodic, any depth, 1-3 D), and
//! [`Ops::fill_halos`] every face.
//!
//! A fill is a sequence of loops, one per halo layer, each copying (or setting) that layer from
//! the points its condition names. They go through the same path as the application's loops:
//! validated, seen by the observer (so checkpointing and replay treat them as loops, and the
//! tracker knows the exact box each layer reads), run by any backend, and exchanged under MPI
//! like any loop. A periodic fill on a distributed backend copies across processes (the far
//! side of the block usually lives on another one) through the backend's download and upload.

mod kernels;

use std::fmt;

use crate::error::{OpsError, Result};
use crate::handles::{Arg, Block, Dat, IterRange, Stencil};
use crate::kernel::{Access, Element, Kernel};
use crate::ops::{Execution, LoopRequest, Ops};

use kernels::{FillFrom, FillValue, FROM_ARGS, VALUE_ARGS};

/// One face of a block: the lower or upper end of dimension 0 (x), 1 (y) or 2 (z).
///
/// ```
/// use ops_core::Face;
/// assert_eq!(Face::lower(1), Face::Y_LO);
/// assert_eq!(Face::X_HI.to_string(), "x+");
/// assert_eq!(Face::all(2).count(), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Face {
    dim: u8,
    upper: bool,
}

impl Face {
    /// The lower x face.
    pub const X_LO: Face = Face::lower(0);
    /// The upper x face.
    pub const X_HI: Face = Face::upper(0);
    /// The lower y face.
    pub const Y_LO: Face = Face::lower(1);
    /// The upper y face.
    pub const Y_HI: Face = Face::upper(1);
    /// The lower z face.
    pub const Z_LO: Face = Face::lower(2);
    /// The upper z face.
    pub const Z_HI: Face = Face::upper(2);

    /// The lower face of dimension `dim` (0, 1 or 2).
    pub const fn lower(dim: usize) -> Face {
        Face {
            dim: dim as u8,
            upper: false,
        }
    }

    /// The upper face of dimension `dim` (0, 1 or 2).
    pub const fn upper(dim: usize) -> Face {
        Face {
            dim: dim as u8,
            upper: true,
        }
    }

    /// The dimension the face is normal to.
    pub fn dim(self) -> usize {
        self.dim as usize
    }

    /// True for the upper face.
    pub fn is_upper(self) -> bool {
        self.upper
    }

    /// Every face of a `dims`-dimensional block in the order [`Ops::fill_halos`] fills them:
    /// x-, x+, y-, y+, z-, z+.
    pub fn all(dims: usize) -> impl Iterator<Item = Face> {
        (0..dims.min(3)).flat_map(|d| [Face::lower(d), Face::upper(d)])
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let axis = ["x", "y", "z"].get(self.dim()).copied().unwrap_or("?");
        write!(f, "{axis}{}", if self.upper { '+' } else { '-' })
    }
}

/// Where a dataset's points sit along the dimension of a face, which decides what a reflective
/// condition mirrors about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Centring {
    /// Points are cell centres; the face lies between the last interior point and the first
    /// halo point, so halo layer `k` mirrors interior layer `k - 1` (counted from the face).
    Cell,
    /// Points are nodes and the first (last) interior point lies on the face; it is left alone
    /// and halo layer `k` mirrors interior layer `k` (a staggered velocity, say).
    Node,
}

/// A boundary condition for [`Ops::fill_halo`].
///
/// Layer `k` (1 = next to the interior) of a face is filled from the interior as follows, `n`
/// being the dataset's interior size along the face's dimension:
///
/// | condition | the value at layer `k` |
/// |---|---|
/// | `Copy` (zero gradient) | the interior point on the face |
/// | `Reflect { Cell, .. }` | the interior point `k - 1` in from the face |
/// | `Reflect { Node, .. }` | the interior point `k` in from the face node |
/// | `Fixed(v)` (Dirichlet) | `v` |
/// | `Periodic` | the interior point `n - k` on the other side, as if the block wrapped round |
///
/// `Reflect { negate: true, .. }` stores the negated value (the normal component of a velocity
/// at a wall). Copies are exact: a fill never rounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Boundary<T> {
    /// Zero gradient: every halo layer takes the value of the interior point on the face.
    Copy,
    /// A mirror about the face.
    Reflect {
        /// Cell- or node-centred along the face's dimension.
        centring: Centring,
        /// Store the negated value.
        negate: bool,
    },
    /// A fixed value (Dirichlet) in every halo layer.
    Fixed(T),
    /// The block wraps round: the halo of one face holds the interior next to the other.
    Periodic,
}

impl<T> Boundary<T> {
    /// A plain mirror of cell-centred data (`Reflect { centring: Cell, negate: false }`).
    pub const REFLECT: Boundary<T> = Boundary::Reflect {
        centring: Centring::Cell,
        negate: false,
    };

    fn describe(&self) -> &'static str {
        match self {
            Boundary::Copy => "copy",
            Boundary::Reflect { negate: false, .. } => "reflect",
            Boundary::Reflect { negate: true, .. } => "reflect-negated",
            Boundary::Fixed(_) => "fixed",
            Boundary::Periodic => "periodic",
        }
    }
}

/// What a fill covers in the dimensions other than its face's.
#[derive(Clone, Copy, Debug)]
enum Span {
    /// The interior, grown by the fill's depth (capped at the dataset's halo) in the
    /// dimensions below `below`.
    Halos { below: usize },
    /// These points.
    Given(IterRange),
}

/// Layer `k` of `face`: its index along the face's dimension and the index it takes its value
/// from (`first`/`last`: the interior's first and last index there).
fn layer<T>(face: Face, bc: Boundary<T>, first: i32, last: i32, k: i32) -> (i32, i32) {
    let node = Centring::Node;
    if face.upper {
        let from = match bc {
            Boundary::Copy | Boundary::Fixed(_) => last,
            Boundary::Reflect { centring, .. } if centring == node => last - k,
            Boundary::Reflect { .. } => last + 1 - k,
            Boundary::Periodic => first + k - 1,
        };
        (last + k, from)
    } else {
        let from = match bc {
            Boundary::Copy | Boundary::Fixed(_) => first,
            Boundary::Reflect { centring, .. } if centring == node => first + k,
            Boundary::Reflect { .. } => first + k - 1,
            Boundary::Periodic => last + 1 - k,
        };
        (first - k, from)
    }
}

/// The profile row every boundary fill's time goes to.
const PROFILE_ROW: &str = "fill_halo";

impl Ops {
    /// Fills `depth` halo layers of `dat` on `face` with the condition `bc`, as loops the
    /// runtime tracks (one per layer).
    ///
    /// Along the face's dimension the fill writes layers `1..=depth`; in the other dimensions
    /// it covers the interior and up to `depth` halo layers on each side (fewer where the
    /// dataset's halo is thinner), so filling the faces one after another in the order
    /// [`Face::all`] gives also the edges and corners the conditions imply.
    ///
    /// Errors (before anything runs) name the dataset and the face: a face the block does not
    /// have, a depth of zero or beyond the dataset's halo, a layer whose source the dataset
    /// does not store (a mirror deeper than the interior and the opposite halo together).
    /// A mirror deeper than the interior reads the opposite halo, as hand-written reflections
    /// do; a period shorter than the depth wraps round again.
    ///
    /// ```
    /// use ops_backends::prelude::*;
    ///
    /// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let line = ops.block("line", 1)?;
    /// let u = ops.dat_with(&line, "u",
    ///     DatSpec::new([4]).halo(Halo::uniform(2)).init(&[1.0, 2.0, 3.0, 4.0]))?;
    /// ops.fill_halos(&u, 2, Boundary::Periodic)?;
    /// assert_eq!(ops.fetch_range(&u, [-2..6])?, [3.0, 4.0, 1.0, 2.0, 3.0, 4.0, 1.0, 2.0]);
    /// ops.fill_halo(&u, Face::X_LO, 2, Boundary::REFLECT)?;
    /// ops.fill_halo(&u, Face::X_HI, 2, Boundary::Fixed(0.0))?;
    /// assert_eq!(ops.fetch_range(&u, [-2..6])?, [2.0, 1.0, 1.0, 2.0, 3.0, 4.0, 0.0, 0.0]);
    /// # Ok::<(), OpsError>(())
    /// ```
    #[track_caller]
    pub fn fill_halo<T: Element>(
        &mut self,
        dat: &Dat<T>,
        face: Face,
        depth: i32,
        bc: Boundary<T>,
    ) -> Result<()> {
        let span = Span::Halos { below: 3 };
        self.fill_face(dat, face, depth, bc, span, std::panic::Location::caller())
    }

    /// [`Ops::fill_halo`] over the points `span` gives in the other dimensions (its extent
    /// along the face's dimension is ignored), for codes whose boundary strips are not the
    /// default's (a port that must reproduce another code's strips point for point). The span
    /// must lie inside the dataset, halo included; anything else is an error naming the loop.
    ///
    /// ```
    /// use ops_backends::prelude::*;
    ///
    /// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// let u = ops.dat_with(&grid, "u",
    ///     DatSpec::new([2, 2]).halo(Halo::uniform(1)).init(&[1.0, 2.0, 3.0, 4.0]))?;
    /// // The lower x face, on the interior rows only.
    /// ops.fill_halo_over(&u, Face::X_LO, 1, Boundary::Fixed(9.0), [0..1, 0..2])?;
    /// assert_eq!(ops.fetch_range(&u, [-1..0, -1..3])?, [0.0, 9.0, 9.0, 0.0]);
    /// # Ok::<(), OpsError>(())
    /// ```
    #[track_caller]
    pub fn fill_halo_over<T: Element>(
        &mut self,
        dat: &Dat<T>,
        face: Face,
        depth: i32,
        bc: Boundary<T>,
        span: impl Into<IterRange>,
    ) -> Result<()> {
        let span = Span::Given(span.into());
        self.fill_face(dat, face, depth, bc, span, std::panic::Location::caller())
    }

    /// [`Ops::fill_halo`] over `span` in the other dimensions.
    fn fill_face<T: Element>(
        &mut self,
        dat: &Dat<T>,
        face: Face,
        depth: i32,
        bc: Boundary<T>,
        span: Span,
        location: &'static std::panic::Location<'static>,
    ) -> Result<()> {
        let info = self.dat_info(dat.rt, dat.id)?;
        let (name, layout, block_id) = (info.name.clone(), info.layout, info.block);
        let dims = layout.dims;
        let bad = |reason: String| OpsError::InvalidBoundary {
            dat: name.as_str().into(),
            face: face.to_string().into(),
            reason: reason.into(),
        };
        let d = face.dim();
        if d >= dims {
            return Err(bad(format!("the dataset has {dims} dimension(s)")));
        }
        let halo = if face.upper {
            layout.pos[d]
        } else {
            -layout.neg[d]
        };
        if depth < 1 || depth > halo {
            return Err(bad(format!(
                "depth {depth}: the dataset's halo on this face is {halo} deep (fill 1 to \
                 {halo} layers, or declare a deeper halo)"
            )));
        }
        // The range of every layer, but along the face's dimension.
        let interior = layout.interior();
        let mut range = interior;
        match span {
            Span::Halos { below } => {
                for e in (0..dims.min(below)).filter(|&e| e != d) {
                    range.lo[e] = interior.lo[e] - depth.min(-layout.neg[e]);
                    range.hi[e] = interior.hi[e] + depth.min(layout.pos[e]);
                }
            }
            Span::Given(given) => {
                if given.dims() != dims {
                    return Err(bad(format!(
                        "a {}-D span for a {dims}-D dataset",
                        given.dims()
                    )));
                }
                for e in (0..dims).filter(|&e| e != d) {
                    range.lo[e] = given.lo[e];
                    range.hi[e] = given.hi[e];
                }
            }
        }
        let block = Block {
            rt: self.rt,
            id: block_id,
            dims: dims as u8,
        };
        let (first, last) = (interior.lo[d], interior.hi[d] - 1);
        // Every layer's index and the index it takes its value from; each source must be a
        // point the dataset stores. A mirror deeper than the interior reads the opposite halo
        // (as hand-written reflections do), and a period shorter than the depth wraps again
        // through layers this fill has already written.
        let (stored_lo, stored_hi) = (first + layout.neg[d], last + layout.pos[d]);
        let layers: Vec<(i32, i32)> = (1..=depth)
            .map(|k| layer(face, bc, first, last, k))
            .collect();
        if let Some((at, from)) = layers
            .iter()
            .find(|(_, from)| *from < stored_lo || *from > stored_hi)
        {
            return Err(bad(format!(
                "a {} fill of depth {depth} would fill {axis} = {at} from {axis} = {from}, \
                 outside the points the dataset stores ({stored_lo} to {stored_hi}): fill \
                 fewer layers, or declare a larger halo",
                bc.describe(),
                axis = ["x", "y", "z"][d],
            )));
        }
        let distributed = self.backend.comm().is_some();
        for (k, (at, from)) in (1..).zip(layers) {
            range.lo[d] = at;
            range.hi[d] = at + 1;
            let loop_name = format!("{PROFILE_ROW} {name} {face} {} {k}", bc.describe());
            let here = self.fill_stencil(dims, [0; 3])?;
            let dst = dat.arg(&here, Access::Write);
            let comps = Arg::global(layout.components as i32);
            if let Boundary::Fixed(v) = bc {
                let args: [Arg; VALUE_ARGS] = [dst, Arg::global(v), comps];
                self.run_fill(
                    &FillValue(T::TYPE),
                    &loop_name,
                    &block,
                    range,
                    &args,
                    location,
                    Execution::Kernel,
                )?;
                continue;
            }
            let mut offset = [0i32; 3];
            offset[d] = from - at;
            let there = self.fill_stencil(dims, offset)?;
            let negate = matches!(bc, Boundary::Reflect { negate: true, .. });
            let args: [Arg; FROM_ARGS] = [
                dst,
                dat.arg(&there, Access::Read),
                Arg::global(offset[0]),
                Arg::global(offset[1]),
                Arg::global(offset[2]),
                Arg::global(negate as i32),
                comps,
            ];
            // Across processes, the other side of a periodic block is another process's.
            let execution = if distributed && matches!(bc, Boundary::Periodic) {
                let mut source = range;
                source.lo[d] = from;
                source.hi[d] = from + 1;
                Execution::Copy { from: source }
            } else {
                Execution::Kernel
            };
            self.run_fill(
                &FillFrom(T::TYPE),
                &loop_name,
                &block,
                range,
                &args,
                location,
                execution,
            )?;
        }
        Ok(())
    }

    /// Fills `depth` halo layers of every face of `dat` with `bc`, in the order of
    /// [`Face::all`]; the depth is capped per face at the dataset's halo there, and faces
    /// without a halo are skipped. Each face spans the halos of the dimensions filled before it
    /// (the interior of the others), so the edges and corners come out as the condition implies
    /// and no fill reads a halo point this call has not yet filled: a checkpoint taken before
    /// the call never needs the old halo.
    ///
    /// ```
    /// use ops_backends::prelude::*;
    ///
    /// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// let u = ops.dat_with(&grid, "u",
    ///     DatSpec::new([2, 2]).halo(Halo::uniform(1)).init(&[1.0, 2.0, 3.0, 4.0]))?;
    /// ops.fill_halos(&u, 1, Boundary::Periodic)?;
    /// // The lower-left corner holds the upper-right interior point.
    /// assert_eq!(ops.fetch_range(&u, [-1..0, -1..0])?, [4.0]);
    /// # Ok::<(), OpsError>(())
    /// ```
    #[track_caller]
    pub fn fill_halos<T: Element>(
        &mut self,
        dat: &Dat<T>,
        depth: i32,
        bc: Boundary<T>,
    ) -> Result<()> {
        let location = std::panic::Location::caller();
        let layout = self.dat_info(dat.rt, dat.id)?.layout;
        for face in Face::all(layout.dims) {
            let d = face.dim();
            let halo = if face.upper {
                layout.pos[d]
            } else {
                -layout.neg[d]
            };
            if halo > 0 {
                let span = Span::Halos { below: d };
                self.fill_face(dat, face, depth.min(halo), bc, span, location)?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn run_fill(
        &mut self,
        kernel: &dyn Kernel,
        name: &str,
        block: &Block,
        range: IterRange,
        args: &[Arg],
        location: &'static std::panic::Location<'static>,
        execution: Execution,
    ) -> Result<()> {
        self.run_loop(LoopRequest {
            kernel,
            name,
            profile_as: PROFILE_ROW,
            block,
            range,
            args,
            location,
            execution,
        })
    }

    /// The one-point stencil at `offset`, declared the first time a fill needs it.
    fn fill_stencil(&mut self, dims: usize, offset: [i32; 3]) -> Result<Stencil> {
        if let Some(s) = self.fill_stencils.get(&(dims, offset)) {
            return Ok(*s);
        }
        let o = &offset[..dims];
        let name = format!(
            "fill({})",
            o.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let s = match dims {
            1 => self.stencil(&name, &[[o[0]]])?,
            2 => self.stencil(&name, &[[o[0], o[1]]])?,
            _ => self.stencil(&name, &[[o[0], o[1], o[2]]])?,
        };
        self.fill_stencils.insert((dims, offset), s);
        Ok(s)
    }
}
