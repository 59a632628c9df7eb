//! Fields advanced one at a time through one helper, each diffused into its own scratch buffer
//! and copied back (two loops, one call site each, run for every field): the species of a
//! transport code, the members of an ensemble. The programs that use it add what sets them
//! apart (a total per species, a mean the members are nudged to).

use ops_backends::prelude::*;

use crate::kernels::*;

/// The fields of an `n` x `n` block with a halo of one, each with its scratch buffer.
pub struct Scratched {
    /// Each field and its scratch buffer.
    pub fields: Vec<(Dat<f64>, Dat<f64>)>,
    grid: Block,
    pt: Stencil,
    five: Stencil,
    n: i32,
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
            grid: *grid,
            pt,
            five,
            n,
        })
    }

    /// The helper: field `i` diffused with coefficient `nu` into its scratch buffer (the loop
    /// named `loops[0]`) and copied back (`loops[1]`), over the interior.
    pub fn diffuse(&self, ops: &mut Ops, i: usize, nu: f64, loops: [&str; 2]) -> Result<()> {
        let (q, s) = &self.fields[i];
        let (grid, pt, inner) = (&self.grid, &self.pt, [0..self.n, 0..self.n]);
        ops.par_loop(
            diffuse2,
            loops[0],
            grid,
            inner.clone(),
            &[q.arg(&self.five, Read), s.arg(pt, Write), Arg::global(nu)],
        )?;
        ops.par_loop(
            copy2,
            loops[1],
            grid,
            inner,
            &[s.arg(pt, Read), q.arg(pt, Write)],
        )?;
        Ok(())
    }

    /// Each field, then its scratch buffer.
    pub fn into_dats(self) -> Vec<Dat<f64>> {
        self.fields.into_iter().flat_map(|(q, s)| [q, s]).collect()
    }
}
