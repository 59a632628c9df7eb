//! The Jacobi solve several programs run, as a scientist would factor it: sweeps of
//! (1 + 4 k) x - k sum(neighbours) = b to a tolerance on the largest change, the two buffers
//! swapped by handle.

use ops_backends::prelude::*;

use crate::kernels::*;
use crate::oracle::Ctx;

/// A Jacobi solve's fixed parts.
pub struct Jacobi<'a> {
    pub grid: &'a Block,
    pub k: &'a Dat<f64>,
    pub pt: &'a Stencil,
    pub five: &'a Stencil,
    pub change: &'a Reduction<f64>,
    /// The points swept.
    pub inner: [std::ops::Range<i32>; 2],
    /// The loop names of the sweep and of the change.
    pub names: [&'a str; 2],
    /// Sweeps stop once the change is below `tol`, or after `max` sweeps.
    pub tol: f64,
    pub max: u32,
}

impl Jacobi<'_> {
    /// Sweeps from `x` (into `xn`, swapped after each sweep) for right-hand side `b` until the
    /// change is small: the result ends in `x`.
    pub fn solve(
        &self,
        cx: &mut Ctx,
        x: &mut Dat<f64>,
        xn: &mut Dat<f64>,
        b: &Dat<f64>,
    ) -> Result<()> {
        let (pt, [sweep, change]) = (self.pt, self.names);
        let mut sweeps = 0;
        loop {
            cx.ops.par_loop(
                nl_sweep2,
                sweep,
                self.grid,
                self.inner.clone(),
                &[
                    x.arg(self.five, Read),
                    b.arg(pt, Read),
                    self.k.arg(pt, Read),
                    xn.arg(pt, Write),
                ],
            )?;
            cx.ops.par_loop(
                nl_change2,
                change,
                self.grid,
                self.inner.clone(),
                &[x.arg(pt, Read), xn.arg(pt, Read), self.change.arg()],
            )?;
            std::mem::swap(x, xn);
            sweeps += 1;
            if cx.result(self.change)? < self.tol || sweeps >= self.max {
                return Ok(());
            }
        }
    }
}
