//! The mirror boundary two programs set through one call site and loop name, passing the kernel
//! of each side of a 2-D block with a halo of one (each copies the layer just inside); others
//! call a loop per side (`explicit::reflect`).

use ops_backends::prelude::*;

use crate::kernels::*;

/// A side: its kernel, the stencil reaching the layer inside it, and its halo layer.
type Side = (
    &'static dyn ops_core::kernel::Kernel,
    Stencil,
    [std::ops::Range<i32>; 2],
);

/// The four sides of an `n` x `n` block.
pub struct Sides {
    sides: [Side; 4],
}

impl Sides {
    /// Declares the sides' stencils on `ops`.
    pub fn new(ops: &mut Ops, n: i32) -> Result<Sides> {
        Ok(Sides {
            sides: [
                (&periodic_xm2, ops.stencil("xp", &[[1, 0]])?, [-1..0, 0..n]),
                (
                    &periodic_xp2,
                    ops.stencil("xm", &[[-1, 0]])?,
                    [n..n + 1, 0..n],
                ),
                (
                    &nl_mirror_ym2,
                    ops.stencil("yp", &[[0, 1]])?,
                    [-1..n + 1, -1..0],
                ),
                (
                    &nl_mirror_yp2,
                    ops.stencil("ym", &[[0, -1]])?,
                    [-1..n + 1, n..n + 1],
                ),
            ],
        })
    }

    /// Sets the halo of `q` on `grid` from the layer inside it, side by side.
    pub fn apply(&self, ops: &mut Ops, grid: &Block, pt: &Stencil, q: &Dat<f64>) -> Result<()> {
        for (kernel, st, range) in &self.sides {
            ops.par_loop_dyn(
                *kernel,
                "mirror",
                grid,
                range.clone().into(),
                &[q.arg(st, Read), q.arg(pt, Write)],
            )?;
        }
        Ok(())
    }
}
