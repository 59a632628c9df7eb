//! A dataset declared from an HDF5 file under automatic checkpointing: its values enter through
//! the runtime at start-up, so the tracker knows a restart recomputes them (the declaration
//! reads the file again) and never saves them, and a restart from every checkpoint ends
//! bitwise identical to the uninterrupted run.

use std::path::Path;

use ops_backends::prelude::*;
use ops_io::{dat_from_hdf5, Dump};
use ops_resilience::store::{Checkpoint, KeptInMemory};
use ops_resilience::{Resilience, ResilienceConfig};

#[kernel]
fn start(idx: Idx, u: Write<f64>) {
    u[(0, 0)] = 1.0 + 0.1 * idx[0] as f64 - 0.05 * idx[1] as f64;
}

#[kernel]
fn diffuse(u: Read<f64>, k: Read<f64>, v: Write<f64>) {
    v[(0, 0)] = u[(0, 0)]
        + 0.1 * k[(0, 0)] * (u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)] - 4.0 * u[(0, 0)]);
}

#[kernel]
fn back(v: Read<f64>, u: Write<f64>) {
    u[(0, 0)] = v[(0, 0)];
}

#[kernel]
fn total(u: Read<f64>, s: Sum<f64>) {
    s += u[(0, 0)];
}

const N: usize = 12;
const STEPS: usize = 24;

/// Writes the conductivity file the program reads.
fn write_conductivity(path: &Path) {
    write_conductivity_scaled(path, 1.0);
}

/// The conductivity file with every value times `scale`.
fn write_conductivity_scaled(path: &Path, scale: f64) {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let g = ops.block("plate", 2).unwrap();
    let k: Vec<f64> = (0..N * N)
        .map(|i| scale * (0.5 + (i % 7) as f64 * 0.05))
        .collect();
    let d = ops
        .dat_with(&g, "conductivity", DatSpec::new([N, N]).init(&k))
        .unwrap();
    let mut dump = Dump::create(&mut ops, path).unwrap();
    dump.write(&mut ops, &d).unwrap();
    dump.finish().unwrap();
}

/// The program: each step's sum, and the final field.
fn run(ops: &mut Ops, file: &Path) -> (Vec<f64>, Vec<f64>) {
    let g = ops.block("plate", 2).unwrap();
    let k: Dat<f64> = dat_from_hdf5(ops, &g, "k", file, "conductivity", Halo::<2>::none()).unwrap();
    let u = ops
        .dat::<f64, 2>(&g, "u", [N, N], Halo::uniform(1))
        .unwrap();
    let v = ops
        .dat::<f64, 2>(&g, "v", [N, N], Halo::uniform(1))
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let cross = ops
        .stencil("cross", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])
        .unwrap();
    let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
    let n = N as i32;
    let inside = [0..n, 0..n];
    ops.par_loop(
        start,
        "start",
        &g,
        [-1..n + 1, -1..n + 1],
        &[Arg::idx(), u.arg(&pt, Write)],
    )
    .unwrap();
    let mut sums = Vec::new();
    for _ in 0..STEPS {
        let args = [u.arg(&cross, Read), k.arg(&pt, Read), v.arg(&pt, Write)];
        ops.par_loop(diffuse, "diffuse", &g, inside.clone(), &args)
            .unwrap();
        let args = [v.arg(&pt, Read), u.arg(&pt, Write)];
        ops.par_loop(back, "back", &g, inside.clone(), &args)
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
    let state = ops.fetch_data(&u).unwrap();
    ops.finish().unwrap();
    (sums, state)
}

fn cfg(restart: bool) -> ResilienceConfig {
    ResilienceConfig {
        dir: Some("unused".into()),
        every: Some(1),
        app: Some("io".into()),
        restart,
        ..ResilienceConfig::default()
    }
}

fn with_resilience(cfg: ResilienceConfig, store: &KeptInMemory, from: Option<Checkpoint>) -> Ops {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let mut r = Resilience::new(cfg, Some(Box::new(store.clone())));
    if let Some(ck) = from {
        r.restart_from(ck).unwrap();
    }
    ops.set_observer(Some(Box::new(r)));
    ops
}

#[test]
fn a_dataset_read_from_a_file_is_never_saved_and_restarts_are_bitwise() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("conductivity.h5");
    write_conductivity(&file);
    let reference = run(
        &mut ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap(),
        &file,
    );
    let store = KeptInMemory::default();
    run(&mut with_resilience(cfg(false), &store, None), &file);
    let cks = store.all();
    assert!(cks.len() >= 3, "{} checkpoints", cks.len());
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for ck in &cks {
        let names: Vec<&str> = ck.dats.iter().map(|d| d.name.as_str()).collect();
        assert!(
            !names.contains(&"plate/k"),
            "checkpoint {} saved {names:?}",
            ck.meta.sequence
        );
        let again = KeptInMemory::default();
        let got = run(
            &mut with_resilience(cfg(true), &again, Some(ck.clone())),
            &file,
        );
        assert_eq!(
            bits(&got.0),
            bits(&reference.0),
            "sums, from {}",
            ck.meta.sequence
        );
        assert_eq!(
            bits(&got.1),
            bits(&reference.1),
            "state, from {}",
            ck.meta.sequence
        );
    }
    // The same restart with another file: refused, naming the dataset.
    write_conductivity_scaled(&file, 1.5);
    let again = KeptInMemory::default();
    let mut ops = with_resilience(cfg(true), &again, Some(cks[1].clone()));
    let g = ops.block("plate", 2).unwrap();
    let e = dat_from_hdf5::<f64, 2>(&mut ops, &g, "k", &file, "conductivity", Halo::none())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--ops-restart: the input `contents of dataset `k`")
            && e.contains("conductivity.h5"),
        "{e}"
    );
}
