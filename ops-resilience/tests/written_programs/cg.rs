//! What the conjugate gradient programs share, as a scientist would factor it: the system
//! (A = I + k (-Laplacian) on one n x n block, with its work vectors), the start of a step's
//! solve from the new right-hand side, and the pieces of an iteration.

use ops_backends::prelude::*;

use crate::kernels::*;
use crate::oracle::Ctx;

/// A CG system and its work vectors.
pub struct Cg {
    pub n: i32,
    pub grid: Block,
    pub u: Dat<f64>,
    pub kx: Dat<f64>,
    pub rhs: Dat<f64>,
    pub r: Dat<f64>,
    pub p: Dat<f64>,
    pub w: Dat<f64>,
    pub pt: Stencil,
    pub five: Stencil,
    pub rr: Reduction<f64>,
    pub pw: Reduction<f64>,
}

impl Cg {
    /// Declares the system on an `n` x `n` block and sets the initial field and conductivity
    /// (the search direction's halo stays zero).
    pub fn new(cx: &mut Ctx, n: i32) -> Result<Cg> {
        let ops = &mut cx.ops;
        let grid = ops.block("sheet", 2)?;
        let (h, size) = (Halo::uniform(1), [n as usize; 2]);
        let mut dat = |name: &str| ops.dat::<f64, 2>(&grid, name, size, h);
        let (u, kx, rhs) = (dat("u")?, dat("kx")?, dat("rhs")?);
        let (r, p, w) = (dat("r")?, dat("p")?, dat("w")?);
        let cg = Cg {
            n,
            pt: ops.stencil("p00", &[[0, 0]])?,
            five: ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?,
            rr: ops.reduction::<f64>("rr", ReduceOp::Sum),
            pw: ops.reduction::<f64>("pw", ReduceOp::Sum),
            grid,
            u,
            kx,
            rhs,
            r,
            p,
            w,
        };
        let all = [-1..n + 1, -1..n + 1];
        let pt = &cg.pt;
        ops.par_loop(
            cg_init2,
            "init",
            &cg.grid,
            all.clone(),
            &[Arg::idx(), cg.u.arg(pt, Write), cg.kx.arg(pt, Write)],
        )?;
        ops.par_loop(zero_halo2, "zero_p", &cg.grid, all, &[cg.p.arg(pt, Write)])?;
        Ok(cg)
    }

    /// The points the solve updates.
    pub fn inner(&self) -> [std::ops::Range<i32>; 2] {
        [0..self.n, 0..self.n]
    }

    /// The start of a step's solve: `rhs = u`, `r = p = rhs - A u`; the residual's norm.
    pub fn start(&self, cx: &mut Ctx) -> Result<f64> {
        let (pt, ops) = (&self.pt, &mut cx.ops);
        ops.par_loop(
            copy2,
            "rhs",
            &self.grid,
            self.inner(),
            &[self.u.arg(pt, Read), self.rhs.arg(pt, Write)],
        )?;
        ops.par_loop(
            apply2,
            "apply_u",
            &self.grid,
            self.inner(),
            &[
                self.u.arg(&self.five, Read),
                self.kx.arg(pt, Read),
                self.w.arg(pt, Write),
            ],
        )?;
        ops.par_loop(
            residual2,
            "residual",
            &self.grid,
            self.inner(),
            &[
                self.rhs.arg(pt, Read),
                self.w.arg(pt, Read),
                self.r.arg(pt, Write),
                self.p.arg(pt, Write),
                self.rr.arg(),
            ],
        )?;
        cx.result(&self.rr)
    }

    /// `w = A p`.
    pub fn apply_p(&self, cx: &mut Ctx) -> Result<()> {
        let pt = &self.pt;
        cx.ops.par_loop(
            apply2,
            "apply_p",
            &self.grid,
            self.inner(),
            &[
                self.p.arg(&self.five, Read),
                self.kx.arg(pt, Read),
                self.w.arg(pt, Write),
            ],
        )
    }

    /// Once `w = A p`: `alpha = rho / p.w`, `u += alpha p`, `r -= alpha w`; the new residual's
    /// norm.
    pub fn step(&self, cx: &mut Ctx, rho: f64) -> Result<f64> {
        let pt = &self.pt;
        cx.ops.par_loop(
            dot2,
            "pw",
            &self.grid,
            self.inner(),
            &[self.p.arg(pt, Read), self.w.arg(pt, Read), self.pw.arg()],
        )?;
        let alpha = rho / cx.result(&self.pw)?;
        cx.ops.par_loop(
            cg_step2,
            "cg_step",
            &self.grid,
            self.inner(),
            &[
                self.p.arg(pt, Read),
                self.w.arg(pt, Read),
                self.u.arg(pt, ReadWrite),
                self.r.arg(pt, ReadWrite),
                Arg::global(alpha),
                self.rr.arg(),
            ],
        )?;
        cx.result(&self.rr)
    }

    /// The next search direction: `p = d + beta p`.
    pub fn direction(&self, cx: &mut Ctx, d: &Dat<f64>, beta: f64) -> Result<()> {
        cx.ops.par_loop(
            cg_dir2,
            "cg_direction",
            &self.grid,
            self.inner(),
            &[
                d.arg(&self.pt, Read),
                self.p.arg(&self.pt, ReadWrite),
                Arg::global(beta),
            ],
        )
    }

    /// The rest of a plain CG iteration once `w = A p`: the step, then the direction from the
    /// residual; the new residual's norm.
    pub fn update(&self, cx: &mut Ctx, rho: f64) -> Result<f64> {
        let next = self.step(cx, rho)?;
        self.direction(cx, &self.r, next / rho)?;
        Ok(next)
    }

    /// The datasets, for the oracle to compare.
    pub fn dats(self) -> Vec<Dat<f64>> {
        vec![self.u, self.kx, self.rhs, self.r, self.p, self.w]
    }
}
