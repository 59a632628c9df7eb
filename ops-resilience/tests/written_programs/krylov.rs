//! Programs whose steps run solvers with more than one inner level: restarted GMRES, whose
//! Arnoldi process orthogonalises against a growing basis, and dual time stepping, whose pseudo
//! iterations each run a fixed number of Runge-Kutta stages.

use ops_backends::prelude::*;

use crate::kernels::*;
use crate::oracle::Ctx;

/// Implicit diffusion, (I + k (-Laplacian)) u_new = u_old, by GMRES(4) restarted until the
/// residual is a millionth of the right-hand side's: per Arnoldi step the operator, then one
/// dot product and update per basis vector so far (modified Gram-Schmidt: one to four), the
/// norm and the next basis vector; the Givens rotations and the small least-squares problem on
/// the host; the update of the solution from the basis at the end of each cycle. The Arnoldi
/// process stops early once its residual estimate is small. Basis vectors are a `Vec` of
/// datasets: one call site per loop, run on a different dataset for each vector.
pub fn restarted_gmres(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 20;
    const M: usize = 4;
    let ops = &mut cx.ops;
    let grid = ops.block("rod", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let kx = ops.dat::<f64, 2>(&grid, "k", n, h)?;
    let b = ops.dat::<f64, 2>(&grid, "rhs", n, h)?;
    let w = ops.dat::<f64, 2>(&grid, "w", n, h)?;
    let r = ops.dat::<f64, 2>(&grid, "r", n, h)?;
    let mut v = Vec::new();
    for i in 0..=M {
        v.push(ops.dat::<f64, 2>(&grid, &format!("v{i}"), n, h)?);
    }
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let dot = ops.reduction::<f64>("dot", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    for d in v.iter().chain([&w, &r]) {
        ops.par_loop(zero_halo2, "zero", &grid, all.clone(), &[d.arg(&pt, Write)])?;
    }
    ops.par_loop(
        cg_init2,
        "init",
        &grid,
        all,
        &[Arg::idx(), u.arg(&pt, Write), kx.arg(&pt, Write)],
    )?;
    for _step in 0..12 {
        cx.step();
        cx.ops.par_loop(
            copy2,
            "rhs",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), b.arg(&pt, Write)],
        )?;
        cx.ops.par_loop(
            dot2,
            "rhs_norm",
            &grid,
            inner.clone(),
            &[b.arg(&pt, Read), b.arg(&pt, Read), dot.arg()],
        )?;
        let target = 1e-6 * cx.result(&dot)?.sqrt();
        for _cycle in 0..20 {
            // r = b - A u, v0 = r / |r|.
            cx.ops.par_loop(
                apply2,
                "apply_u",
                &grid,
                inner.clone(),
                &[u.arg(&five, Read), kx.arg(&pt, Read), w.arg(&pt, Write)],
            )?;
            cx.ops.par_loop(
                residual2,
                "residual",
                &grid,
                inner.clone(),
                &[
                    b.arg(&pt, Read),
                    w.arg(&pt, Read),
                    r.arg(&pt, Write),
                    v[0].arg(&pt, Write),
                    dot.arg(),
                ],
            )?;
            let beta = cx.result(&dot)?.sqrt();
            if beta < target {
                break;
            }
            cx.ops.par_loop(
                scale2,
                "normalise_r",
                &grid,
                inner.clone(),
                &[
                    r.arg(&pt, Read),
                    v[0].arg(&pt, Write),
                    Arg::global(1.0 / beta),
                ],
            )?;
            // Arnoldi with Givens rotations: hh[j] is column j of the Hessenberg matrix.
            let mut hh = [[0.0f64; M + 1]; M];
            let (mut cs, mut sn) = ([0.0f64; M], [0.0f64; M]);
            let mut g = [0.0f64; M + 1];
            g[0] = beta;
            let mut k = 0;
            for j in 0..M {
                cx.ops.par_loop(
                    apply2,
                    "apply_v",
                    &grid,
                    inner.clone(),
                    &[v[j].arg(&five, Read), kx.arg(&pt, Read), w.arg(&pt, Write)],
                )?;
                for i in 0..=j {
                    cx.ops.par_loop(
                        dot2,
                        "project",
                        &grid,
                        inner.clone(),
                        &[w.arg(&pt, Read), v[i].arg(&pt, Read), dot.arg()],
                    )?;
                    let hij = cx.result(&dot)?;
                    hh[j][i] = hij;
                    cx.ops.par_loop(
                        axpy2,
                        "orthogonalise",
                        &grid,
                        inner.clone(),
                        &[
                            v[i].arg(&pt, Read),
                            w.arg(&pt, ReadWrite),
                            Arg::global(-hij),
                        ],
                    )?;
                }
                cx.ops.par_loop(
                    dot2,
                    "norm",
                    &grid,
                    inner.clone(),
                    &[w.arg(&pt, Read), w.arg(&pt, Read), dot.arg()],
                )?;
                let hn = cx.result(&dot)?.sqrt();
                hh[j][j + 1] = hn;
                cx.ops.par_loop(
                    scale2,
                    "next_basis",
                    &grid,
                    inner.clone(),
                    &[
                        w.arg(&pt, Read),
                        v[j + 1].arg(&pt, Write),
                        Arg::global(1.0 / hn),
                    ],
                )?;
                for i in 0..j {
                    let t = cs[i] * hh[j][i] + sn[i] * hh[j][i + 1];
                    hh[j][i + 1] = -sn[i] * hh[j][i] + cs[i] * hh[j][i + 1];
                    hh[j][i] = t;
                }
                let d = (hh[j][j] * hh[j][j] + hh[j][j + 1] * hh[j][j + 1]).sqrt();
                cs[j] = hh[j][j] / d;
                sn[j] = hh[j][j + 1] / d;
                hh[j][j] = d;
                hh[j][j + 1] = 0.0;
                g[j + 1] = -sn[j] * g[j];
                g[j] *= cs[j];
                k = j + 1;
                if g[j + 1].abs() < target {
                    break;
                }
            }
            // Back substitution, then u += sum y_i v_i.
            let mut y = [0.0f64; M];
            for i in (0..k).rev() {
                let s: f64 = (i + 1..k).map(|c| hh[c][i] * y[c]).sum();
                y[i] = (g[i] - s) / hh[i][i];
            }
            for (i, yi) in y.iter().enumerate().take(k) {
                cx.ops.par_loop(
                    axpy2,
                    "update",
                    &grid,
                    inner.clone(),
                    &[v[i].arg(&pt, Read), u.arg(&pt, ReadWrite), Arg::global(*yi)],
                )?;
            }
        }
    }
    cx.end();
    let mut out = vec![u, kx, b, w, r];
    out.extend(v);
    Ok(out)
}

/// Implicit diffusion by dual time stepping: each physical step iterates in pseudo time until
/// the residual of the implicit equations is small, each pseudo iteration a three-stage
/// Runge-Kutta scheme (a fixed inner loop of three, its coefficient passed as a global
/// constant); the buffers of the stages are swapped by handle; the field's total every third
/// step.
pub fn dual_time_stepping(cx: &mut Ctx) -> Result<Vec<Dat<f64>>> {
    const N: i32 = 16;
    let ops = &mut cx.ops;
    let grid = ops.block("sheet", 2)?;
    let h = Halo::uniform(1);
    let n = [N as usize; 2];
    let mut u = ops.dat::<f64, 2>(&grid, "u", n, h)?;
    let mut stage = ops.dat::<f64, 2>(&grid, "u_stage", n, h)?;
    let old = ops.dat::<f64, 2>(&grid, "u_old", n, h)?;
    let u0 = ops.dat::<f64, 2>(&grid, "u_pseudo", n, h)?;
    let r = ops.dat::<f64, 2>(&grid, "residual", n, h)?;
    let pt = ops.stencil("p00", &[[0, 0]])?;
    let five = ops.stencil("s5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let peak = ops.reduction::<f64>("peak", ReduceOp::Max);
    let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    for d in [&u, &stage] {
        ops.par_loop(zero_halo2, "zero", &grid, all.clone(), &[d.arg(&pt, Write)])?;
    }
    ops.par_loop(
        nl_init2,
        "init",
        &grid,
        inner.clone(),
        &[Arg::idx(), u.arg(&pt, Write)],
    )?;
    for step in 0..14u32 {
        cx.step();
        cx.ops.par_loop(
            copy2,
            "keep_old",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), old.arg(&pt, Write)],
        )?;
        for _pseudo in 0..80 {
            cx.ops.par_loop(
                copy2,
                "pseudo_start",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), u0.arg(&pt, Write)],
            )?;
            for a in [0.25, 0.5, 1.0] {
                cx.ops.par_loop(
                    pseudo_residual2,
                    "stage_residual",
                    &grid,
                    inner.clone(),
                    &[
                        u.arg(&five, Read),
                        old.arg(&pt, Read),
                        r.arg(&pt, Write),
                        Arg::global(0.3),
                    ],
                )?;
                cx.ops.par_loop(
                    pseudo_stage2,
                    "stage",
                    &grid,
                    inner.clone(),
                    &[
                        u0.arg(&pt, Read),
                        r.arg(&pt, Read),
                        stage.arg(&pt, Write),
                        Arg::global(0.12 * a),
                    ],
                )?;
                std::mem::swap(&mut u, &mut stage);
            }
            cx.ops.par_loop(
                pseudo_residual2,
                "converged",
                &grid,
                inner.clone(),
                &[
                    u.arg(&five, Read),
                    old.arg(&pt, Read),
                    r.arg(&pt, Write),
                    Arg::global(0.3),
                ],
            )?;
            cx.ops.par_loop(
                peak_abs2,
                "peak",
                &grid,
                inner.clone(),
                &[r.arg(&pt, Read), peak.arg()],
            )?;
            if cx.result(&peak)? < 1e-7 {
                break;
            }
        }
        if step % 3 == 2 {
            cx.ops.par_loop(
                total2,
                "total",
                &grid,
                inner.clone(),
                &[u.arg(&pt, Read), total.arg()],
            )?;
            cx.result(&total)?;
        }
    }
    cx.end();
    Ok(vec![u, stage, old, u0, r])
}
