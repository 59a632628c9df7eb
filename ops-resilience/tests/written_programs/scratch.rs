//! An explicit diffusion step written as many programs write it, into a second buffer and
//! copied back (two loops, one call site each: [`Diffusion`]), and fields advanced one at a
//! time through it, each with its own scratch buffer ([`Scratched`]): the species of a
//! transport code, the members of an ensemble. The programs that use them add what sets them
//! apart (a total per species, a mean the members are nudged to, a regrid).

use ops_backends::prelude::*;

use crate::kernels::*;

/// The diffusion step on the interior of an `n` x `n` block.
#[derive(Clone, Copy)]
pub struct Diffusion {
    grid: Block,
    /// The point stencil and the diffusion's five-point one.
    pt: Stencil,
    five: Stencil,
    n: i32,
}

impl Diffusion {
    /// The step on `grid`'s interior of `n` x `n` points; `pt` is the point stencil, `five` the
    /// diffusion's.
    pub fn new(grid: &Block, (pt, five): (Stencil, Stencil), n: i32) -> Diffusion {
        Diffusion {
            grid: *grid,
            pt,
            five,
            n,
        }
    }

    /// `q` diffused with coefficient `nu` into `next` (the loop named `loops[0]`) and copied
    /// back (`loops[1]`).
    pub fn step(
        &self,
        ops: &mut Ops,
        q: &Dat<f64>,
        next: &Dat<f64>,
        nu: f64,
        loops: [&str; 2],
    ) -> Result<()> {
        let (grid, pt, inner) = (&self.grid, &self.pt, [0..self.n, 0..self.n]);
        ops.par_loop(
            diffuse2,
            loops[0],
            grid,
            inner.clone(),
            &[
                q.arg(&self.five, Read),
                next.arg(pt, Write),
                Arg::global(nu),
            ],
        )?;
        ops.par_loop(
            copy2,
            loops[1],
            grid,
            inner,
            &[next.arg(pt, Read), q.arg(pt, Write)],
        )?;
        Ok(())
    }
}

/// The fields of an `n` x `n` block with a halo of one, each with its scratch buffer.
pub struct Scratched {
    /// Each field and its scratch buffer.
    pub fields: Vec<(Dat<f64>, Dat<f64>)>,
    diffusion: Diffusion,
}

impl Scratched {
    /// Declares a field per name, set to a blob (halo included), and its scratch buffer
    /// `<name><suffix>`, its halo cleared; `pt` is the point stencil, `five` the diffusion's.
    pub fn new(
        ops: &mut Ops,
        grid: &Block,
        (pt, five): (Stencil, Stencil),
        n: i32,
        names: &[String],
        suffix: &str,
    ) -> Result<Scratched> {
        let (h, size, all) = (Halo::uniform(1), [n as usize; 2], [-1..n + 1, -1..n + 1]);
        let mut fields = Vec::new();
        for name in names {
            let q = ops.dat::<f64, 2>(grid, name, size, h)?;
            let s = ops.dat::<f64, 2>(grid, &format!("{name}{suffix}"), size, h)?;
            ops.par_loop(
                blob2,
                "init",
                grid,
                all.clone(),
                &[Arg::idx(), q.arg(&pt, Write)],
            )?;
            ops.par_loop(zero_halo2, "clear", grid, all.clone(), &[s.arg(&pt, Write)])?;
            fields.push((q, s));
        }
        Ok(Scratched {
            fields,
            diffusion: Diffusion::new(grid, (pt, five), n),
        })
    }

    /// The helper: field `i` through the [`Diffusion`] step, its scratch buffer the second.
    pub fn diffuse(&self, ops: &mut Ops, i: usize, nu: f64, loops: [&str; 2]) -> Result<()> {
        let (q, s) = &self.fields[i];
        self.diffusion.step(ops, q, s, nu, loops)
    }

    /// Each field, then its scratch buffer.
    pub fn into_dats(self) -> Vec<Dat<f64>> {
        self.fields.into_iter().flat_map(|(q, s)| [q, s]).collect()
    }
}
