//! The runtime's boundary fills under automatic checkpointing: a periodic diffusion whose halo
//! is refilled every step by `fill_halos`. The tracker sees each fill layer as a loop with its
//! exact boxes, so a steady checkpoint saves only the one interior that is live (never the
//! halo, which the next fill rewrites before anything reads it), and a restart from every
//! checkpoint ends bitwise identical to the uninterrupted run.

mod common;

use common::*;
use ops_backends::prelude::*;
use ops_resilience::store::Checkpoint;

#[kernel]
fn start(idx: Idx, u: Write<f64>) {
    let x = idx[0] as f64;
    let y = idx[1] as f64;
    u[(0, 0)] = (0.3 * x).sqrt() + 0.1 * y * y - 0.01 * x * y;
}

#[kernel]
fn diffuse(u: Read<f64>, v: Write<f64>) {
    v[(0, 0)] = 0.6 * u[(0, 0)] + 0.1 * (u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)])
        - 0.025 * (u[(2, 0)] - u[(-2, 0)]);
}

#[kernel]
fn back(v: Read<f64>, u: Write<f64>) {
    u[(0, 0)] = v[(0, 0)];
}

#[kernel]
fn total(u: Read<f64>, s: Sum<f64>) {
    s += u[(0, 0)];
}

const N: i32 = 10;
const STEPS: usize = 24;

/// Runs the program; returns each step's sum and the final state of `u`, halo included.
fn run(ops: &mut Ops) -> (Vec<f64>, Vec<f64>) {
    let g = ops.block("ring", 2).unwrap();
    let u = ops
        .dat::<f64, 2>(&g, "u", [N as usize; 2], Halo::uniform(2))
        .unwrap();
    let v = ops
        .dat::<f64, 2>(&g, "v", [N as usize; 2], Halo::uniform(2))
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let wide = ops
        .stencil(
            "wide",
            &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1], [2, 0], [-2, 0]],
        )
        .unwrap();
    let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
    let inside = [0..N, 0..N];
    ops.par_loop(
        start,
        "start",
        &g,
        inside.clone(),
        &[Arg::idx(), u.arg(&pt, Write)],
    )
    .unwrap();
    let mut sums = Vec::new();
    for _ in 0..STEPS {
        ops.fill_halos(&u, 2, Boundary::Periodic).unwrap();
        ops.par_loop(
            diffuse,
            "diffuse",
            &g,
            inside.clone(),
            &[u.arg(&wide, Read), v.arg(&pt, Write)],
        )
        .unwrap();
        ops.par_loop(
            back,
            "back",
            &g,
            inside.clone(),
            &[v.arg(&pt, Read), u.arg(&pt, Write)],
        )
        .unwrap();
        ops.par_loop(
            total,
            "total",
            &g,
            inside.clone(),
            &[u.arg(&pt, Read), sum.arg()],
        )
        .unwrap();
        sums.push(ops.reduction_result(&sum).unwrap());
    }
    let state = ops.fetch_range(&u, [-2..N + 2, -2..N + 2]).unwrap();
    ops.finish().unwrap();
    (sums, state)
}

fn checkpoints() -> Vec<Checkpoint> {
    let store = Captured::default();
    let mut ops = ops_with(BackendKind::Seq, cfg(1), &store, |_| {});
    run(&mut ops);
    store.all()
}

#[test]
fn a_steady_checkpoint_saves_one_interior_and_no_halo() {
    let cks = checkpoints();
    assert!(cks.len() >= 3, "{} checkpoints", cks.len());
    let interior = (N * N) as usize * 8;
    // The last region is cut short by the end of the program; the others are steady.
    for ck in &cks[..cks.len() - 1] {
        if ck.dats.is_empty() {
            continue; // a first region, before anything live was computed in the time loop
        }
        assert_eq!(
            ck.data_bytes(),
            interior,
            "checkpoint {} at {}: {:?}",
            ck.meta.sequence,
            ck.meta.location,
            ck.dats
                .iter()
                .map(|d| (&d.name, d.bytes()))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_restart_from_every_checkpoint_ends_bitwise_identical() {
    let reference = run(&mut plain_ops(BackendKind::Seq));
    let cks = checkpoints();
    assert!(cks.len() >= 3, "{} checkpoints", cks.len());
    for ck in &cks {
        let mut c = cfg(1);
        c.restart = true;
        let store = Captured::default();
        let restored = ck.clone();
        let mut ops = ops_with(BackendKind::Seq, c, &store, move |r| {
            r.restart_from(restored).unwrap()
        });
        let (sums, state) = run(&mut ops);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&sums),
            bits(&reference.0),
            "sums, restart from {}",
            ck.meta.sequence
        );
        assert_eq!(
            bits(&state),
            bits(&reference.1),
            "state, restart from {}",
            ck.meta.sequence
        );
    }
}
