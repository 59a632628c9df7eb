//! Times CG loop variants on a deck's mesh, each call timed alone, variants interleaved, min
//! and median reported: the loops as the original splits a CG iteration (`v1`), the loops the
//! app runs, and alternatives that were measured and rejected (a fused search-direction +
//! operator loop, reductions inside the stencil loop). This is how the app's loop structure was
//! chosen; run `cargo run --release -p tealeaf --example loop_bench -- DECK [threads] [reps]`.

use std::time::Instant;

use tealeaf::prelude::*;
use tealeaf::tea::Tea;

#[kernel]
fn v1_calc_w(
    p: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    di: Read<f64>,
    w: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
    pw: Sum<f64>,
) {
    let v = di[(0, 0)] * p[(0, 0)]
        - ry * (ky[(0, 1)] * p[(0, 1)] + ky[(0, 0)] * p[(0, -1)])
        - rx * (kx[(1, 0)] * p[(1, 0)] + kx[(0, 0)] * p[(-1, 0)]);
    w[(0, 0)] = v;
    pw += v * p[(0, 0)];
}

#[kernel]
fn v1_calc_ur(
    p: Read<f64>,
    w: Read<f64>,
    u: ReadWrite<f64>,
    r: ReadWrite<f64>,
    alpha: Global<f64>,
    rrn: Sum<f64>,
) {
    u[(0, 0)] = u[(0, 0)] + alpha * p[(0, 0)];
    let rv = r[(0, 0)] - alpha * w[(0, 0)];
    r[(0, 0)] = rv;
    rrn += rv * rv;
}

#[kernel]
fn p_fused_pw(
    src: Read<f64>,
    p_old: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    u: ReadWrite<f64>,
    p_new: Write<f64>,
    w: Write<f64>,
    alpha: Global<f64>,
    beta: Global<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
    pw: Sum<f64>,
) {
    let pc = p_old[(0, 0)];
    u[(0, 0)] = u[(0, 0)] + alpha * pc;
    let c = src[(0, 0)] + beta * pc;
    let n = src[(0, 1)] + beta * p_old[(0, 1)];
    let s = src[(0, -1)] + beta * p_old[(0, -1)];
    let e = src[(1, 0)] + beta * p_old[(1, 0)];
    let wv = src[(-1, 0)] + beta * p_old[(-1, 0)];
    let ky1 = ky[(0, 1)];
    let ky0 = ky[(0, 0)];
    let kx1 = kx[(1, 0)];
    let kx0 = kx[(0, 0)];
    let di = 1.0 + ry * (ky1 + ky0) + rx * (kx1 + kx0);
    p_new[(0, 0)] = c;
    let v = di * c - ry * (ky1 * n + ky0 * s) - rx * (kx1 * e + kx0 * wv);
    w[(0, 0)] = v;
    pw += v * c;
}

#[kernel]
fn calc_w_di(
    p: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    di: Read<f64>,
    w: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
) {
    w[(0, 0)] = di[(0, 0)] * p[(0, 0)]
        - ry * (ky[(0, 1)] * p[(0, 1)] + ky[(0, 0)] * p[(0, -1)])
        - rx * (kx[(1, 0)] * p[(1, 0)] + kx[(0, 0)] * p[(-1, 0)]);
}

#[kernel]
fn fused_vec(
    src: Read<f64>,
    p_old: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    u: ReadWrite<f64>,
    p_new: Write<f64>,
    w: Write<f64>,
    alpha: Global<f64>,
    beta: Global<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
) {
    let pc = p_old[(0, 0)];
    u[(0, 0)] = u[(0, 0)] + alpha * pc;
    let c = src[(0, 0)] + beta * pc;
    let n = src[(0, 1)] + beta * p_old[(0, 1)];
    let s = src[(0, -1)] + beta * p_old[(0, -1)];
    let e = src[(1, 0)] + beta * p_old[(1, 0)];
    let wv = src[(-1, 0)] + beta * p_old[(-1, 0)];
    let ky1 = ky[(0, 1)];
    let ky0 = ky[(0, 0)];
    let kx1 = kx[(1, 0)];
    let kx0 = kx[(0, 0)];
    let di = 1.0 + ry * (ky1 + ky0) + rx * (kx1 + kx0);
    p_new[(0, 0)] = c;
    w[(0, 0)] = di * c - ry * (ky1 * n + ky0 * s) - rx * (kx1 * e + kx0 * wv);
}

#[kernel]
fn calc_w_nodi(
    p: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    w: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
) {
    let ky1 = ky[(0, 1)];
    let ky0 = ky[(0, 0)];
    let kx1 = kx[(1, 0)];
    let kx0 = kx[(0, 0)];
    let di = 1.0 + ry * (ky1 + ky0) + rx * (kx1 + kx0);
    w[(0, 0)] = di * p[(0, 0)]
        - ry * (ky1 * p[(0, 1)] + ky0 * p[(0, -1)])
        - rx * (kx1 * p[(1, 0)] + kx0 * p[(-1, 0)]);
}

#[kernel]
fn calc_w_nodi_pw(
    p: Read<f64>,
    kx: Read<f64>,
    ky: Read<f64>,
    w: Write<f64>,
    rx: Global<f64>,
    ry: Global<f64>,
    pw: Sum<f64>,
) {
    let ky1 = ky[(0, 1)];
    let ky0 = ky[(0, 0)];
    let kx1 = kx[(1, 0)];
    let kx0 = kx[(0, 0)];
    let di = 1.0 + ry * (ky1 + ky0) + rx * (kx1 + kx0);
    let pc = p[(0, 0)];
    let v = di * pc
        - ry * (ky1 * p[(0, 1)] + ky0 * p[(0, -1)])
        - rx * (kx1 * p[(1, 0)] + kx0 * p[(-1, 0)]);
    w[(0, 0)] = v;
    pw += v * pc;
}

#[kernel]
fn calc_p_u(
    src: Read<f64>,
    p: ReadWrite<f64>,
    u: ReadWrite<f64>,
    alpha: Global<f64>,
    beta: Global<f64>,
) {
    let pc = p[(0, 0)];
    u[(0, 0)] = u[(0, 0)] + alpha * pc;
    p[(0, 0)] = src[(0, 0)] + beta * pc;
}

#[kernel]
fn update_r_rr(w: Read<f64>, r: ReadWrite<f64>, alpha: Global<f64>, rrn: Sum<f64>) {
    let rv = r[(0, 0)] - alpha * w[(0, 0)];
    r[(0, 0)] = rv;
    rrn += rv * rv;
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let deck_path = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/decks/tea_bm_3.in").to_string());
    let threads: usize = args.get(2).map(|t| t.parse().unwrap()).unwrap_or(2);
    let reps: usize = args.get(3).map(|t| t.parse().unwrap()).unwrap_or(60);
    let deck = tealeaf::deck::load(std::path::Path::new(&deck_path))?;
    let ops = ops_from_config(OpsConfig::new(BackendKind::Rayon).with_threads(Some(threads)))?;
    let mut t = Tea::new(ops, deck)?;
    t.initialise()?;
    t.init_common()?;
    t.calc_residual()?;
    let d = &t.d;
    let (p, p2, kx, ky, di, w, r, u) = (d.p, d.utemp, d.kx, d.ky, d.di, d.w, d.r, d.u);
    let s = &t.s;
    let (p00, five, kxs, kys) = (s.p00, s.five, s.kx, s.ky);
    let (rx, ry) = (t.rx, t.ry);
    let red = t.ops.reduction::<f64>("bench", ReduceOp::Sum);
    let g = t.grid;
    let all = [0..t.nx, 0..t.ny];
    let names = [
        "v1 calc_w+pw (5)",
        "v1 calc_ur+rr (6)",
        "v1 calc_p (3)",
        "fused step vec (8)",
        "fused step+pw (8)",
        "dot4 (2) [app]",
        "update_r vec (3)",
        "update_r+rr (3) [app]",
        "copy (2)",
        "calc_w vec (5)",
        "calc_w vec no Di (4) [app]",
        "calc_w no Di + pw (4)",
        "calc_p + u (5) [app]",
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let ops = &mut t.ops;
    for _ in 0..reps {
        for (i, times) in times.iter_mut().enumerate() {
            let t0 = Instant::now();
            match i {
                0 => ops.par_loop(
                    v1_calc_w,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        p.arg(&five, Read),
                        kx.arg(&kxs, Read),
                        ky.arg(&kys, Read),
                        di.arg(&p00, Read),
                        w.arg(&p00, Write),
                        Arg::global(rx),
                        Arg::global(ry),
                        red.arg(),
                    ],
                )?,
                1 => ops.par_loop(
                    v1_calc_ur,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        p.arg(&p00, Read),
                        w.arg(&p00, Read),
                        u.arg(&p00, ReadWrite),
                        r.arg(&p00, ReadWrite),
                        Arg::global(0.0f64),
                        red.arg(),
                    ],
                )?,
                2 => ops.par_loop(
                    tealeaf::kernels::cg_calc_p,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        r.arg(&p00, Read),
                        p.arg(&p00, ReadWrite),
                        Arg::global(0.5f64),
                    ],
                )?,
                3 => ops.par_loop(
                    fused_vec,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        r.arg(&five, Read),
                        p.arg(&five, Read),
                        kx.arg(&kxs, Read),
                        ky.arg(&kys, Read),
                        u.arg(&p00, ReadWrite),
                        p2.arg(&p00, Write),
                        w.arg(&p00, Write),
                        Arg::global(0.0f64),
                        Arg::global(0.5f64),
                        Arg::global(rx),
                        Arg::global(ry),
                    ],
                )?,
                4 => ops.par_loop(
                    p_fused_pw,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        r.arg(&five, Read),
                        p.arg(&five, Read),
                        kx.arg(&kxs, Read),
                        ky.arg(&kys, Read),
                        u.arg(&p00, ReadWrite),
                        p2.arg(&p00, Write),
                        w.arg(&p00, Write),
                        Arg::global(0.0f64),
                        Arg::global(0.5f64),
                        Arg::global(rx),
                        Arg::global(ry),
                        red.arg(),
                    ],
                )?,
                5 => {
                    let _ = t0;
                    // Timed below through the app's dot (dot4 + tail).
                }
                6 => ops.par_loop(
                    tealeaf::kernels::cg_update_r,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        w.arg(&p00, Read),
                        r.arg(&p00, ReadWrite),
                        Arg::global(0.0f64),
                    ],
                )?,
                7 => ops.par_loop(
                    update_r_rr,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        w.arg(&p00, Read),
                        r.arg(&p00, ReadWrite),
                        Arg::global(0.0f64),
                        red.arg(),
                    ],
                )?,
                8 => ops.par_loop(
                    tealeaf::kernels::copy,
                    "b",
                    &g,
                    all.clone(),
                    &[r.arg(&p00, Read), p2.arg(&p00, Write)],
                )?,
                9 => ops.par_loop(
                    calc_w_di,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        p.arg(&five, Read),
                        kx.arg(&kxs, Read),
                        ky.arg(&kys, Read),
                        di.arg(&p00, Read),
                        w.arg(&p00, Write),
                        Arg::global(rx),
                        Arg::global(ry),
                    ],
                )?,
                10 => ops.par_loop(
                    calc_w_nodi,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        p.arg(&five, Read),
                        kx.arg(&kxs, Read),
                        ky.arg(&kys, Read),
                        w.arg(&p00, Write),
                        Arg::global(rx),
                        Arg::global(ry),
                    ],
                )?,
                11 => ops.par_loop(
                    calc_w_nodi_pw,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        p.arg(&five, Read),
                        kx.arg(&kxs, Read),
                        ky.arg(&kys, Read),
                        w.arg(&p00, Write),
                        Arg::global(rx),
                        Arg::global(ry),
                        red.arg(),
                    ],
                )?,
                _ => ops.par_loop(
                    calc_p_u,
                    "b",
                    &g,
                    all.clone(),
                    &[
                        r.arg(&p00, Read),
                        p.arg(&p00, ReadWrite),
                        u.arg(&p00, ReadWrite),
                        Arg::global(0.0f64),
                        Arg::global(0.5f64),
                    ],
                )?,
            }
            times.push(t0.elapsed().as_secs_f64());
        }
        let _ = ops.reduction_result(&red)?;
    }
    // The dot, through the app.
    let mut dot_times = Vec::new();
    for _ in 0..reps {
        let t0 = Instant::now();
        t.dot(w, p, "b")?;
        dot_times.push(t0.elapsed().as_secs_f64());
    }
    times[5] = dot_times;
    let pts = (t.nx as f64) * (t.ny as f64);
    println!("{} x {} cells, {threads} threads, {reps} reps", t.nx, t.ny);
    println!(
        "{:24} {:>10} {:>10} {:>9}",
        "loop (streams)", "min ms", "median ms", "ns/pt"
    );
    for (n, mut v) in names.iter().zip(times) {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{:24} {:>10.3} {:>10.3} {:>9.3}",
            n,
            v[0] * 1e3,
            v[v.len() / 2] * 1e3,
            v[0] * 1e9 / pts
        );
    }
    Ok(())
}
