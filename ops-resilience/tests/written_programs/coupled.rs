//! A coarse block and a refined patch: the patch advanced with two sub-steps per coarse step,
//! coupled through the host (boundary values from the coarse block, averages back into it).

use ops_backends::prelude::*;

use crate::kernels::*;
use crate::oracle::Ctx;

const N: i32 = 12;

/// One explicit diffusion step of `q` on block `b` (into `qn`, copied back).
fn diffuse_step(cx: &mut Ctx, b: &Block, q: &Dat<f64>, qn: &Dat<f64>, nu: f64) -> Result<()> {
    let pt = cx.ops.stencil("p00", &[[0, 0]])?;
    let five = cx
        .ops
        .stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let inner = [0..N, 0..N];
    cx.ops.par_loop(
        diffuse2,
        "diffuse",
        b,
        inner.clone(),
        &[q.arg(&five, Read), qn.arg(&pt, Write), Arg::global(nu)],
    )?;
    cx.ops.par_loop(
        copy2,
        "advance",
        b,
        inner,
        &[qn.arg(&pt, Read), q.arg(&pt, Write)],
    )
}

/// Berger-Oliger style sub-cycling on two blocks: every coarse step takes the patch's western
/// boundary from the coarse block's column there (fetched, set into the patch's halo), advances
/// the coarse block once and the patch twice with the same helper (same call sites, another
/// block, half the step), then writes the patch's column averages back into the coarse block's
/// cells it covers; totals of both every fourth step.
pub fn refined_patch_sub_cycled(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    let ops = &mut cx.ops;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let coarse = ops.block("coarse", 2)?;
    let fine = ops.block("patch", 2)?;
    let q = ops.dat::<f64, 2>(&coarse, "q", n, h)?;
    let qn = ops.dat::<f64, 2>(&coarse, "q_next", n, h)?;
    let f = ops.dat::<f64, 2>(&fine, "f", n, h)?;
    let fnext = ops.dat::<f64, 2>(&fine, "f_next", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    ops.par_loop(
        blob2,
        "initial",
        &coarse,
        all.clone(),
        &[Arg::idx(), q.arg(&pt, Write)],
    )?;
    ops.par_loop(
        blob2,
        "initial",
        &fine,
        all.clone(),
        &[Arg::idx(), f.arg(&pt, Write)],
    )?;
    ops.par_loop(
        zero_halo2,
        "clear",
        &coarse,
        all.clone(),
        &[qn.arg(&pt, Write)],
    )?;
    ops.par_loop(zero_halo2, "clear", &fine, all, &[fnext.arg(&pt, Write)])?;
    for step in 0..16u32 {
        cx.step();
        // The patch covers the coarse cells 4..8 in x: its western halo from coarse column 3.
        let column = cx.ops.fetch_range(&q, [3..4, 0..N])?;
        cx.ops.set_range(&f, [-1..0, 0..N], &column)?;
        diffuse_step(cx, &coarse, &q, &qn, 0.1)?;
        for _ in 0..2 {
            diffuse_step(cx, &fine, &f, &fnext, 0.05)?;
        }
        // Restriction: the coarse cells under the patch take the mean of three patch columns.
        let patch = cx.ops.fetch_range(&f, [0..N, 0..N])?;
        let mut back = Vec::with_capacity(4 * N as usize);
        for y in 0..N as usize {
            for x in 0..4 {
                let row = &patch[y * N as usize..(y + 1) * N as usize];
                back.push(row[3 * x..3 * x + 3].iter().sum::<f64>() / 3.0);
            }
        }
        cx.ops.set_range(&q, [4..8, 0..N], &back)?;
        if step % 4 == 3 {
            for (b, d) in [(&coarse, &q), (&fine, &f)] {
                cx.ops.par_loop(
                    total2,
                    "total",
                    b,
                    [0..N, 0..N],
                    &[d.arg(&pt, Read), total.arg()],
                )?;
                cx.result(&total)?;
            }
        }
    }
    cx.end();
    Ok(vec![q, qn, f, fnext])
}
