//! Fast-forward restart (`ResilienceExt::fast_forward`, OPS's `ops_checkpointing_fastfw`) with
//! the real HDF5 store: a small time-stepping program whose restarted run runs its start-up,
//! jumps to the checkpoint at its first `fast_forward` call and continues bitwise identically;
//! replay checkpoints still replay; damaged or missing checkpoints start from the beginning.

use std::path::{Path, PathBuf};

use ops_backends::prelude::*;
use ops_resilience::diags::Report;
use ops_resilience::{ResilienceConfig, ResilienceExt};

#[kernel]
fn geometry(idx: Idx, out: Write<f64>) {
    out[(0, 0)] = 1.0 + 0.01 * (idx[0] * 3 + idx[1]) as f64;
}

#[kernel]
fn initial(idx: Idx, mesh: Read<f64>, out: Write<f64>) {
    out[(0, 0)] = mesh[(0, 0)] * ((idx[0] - idx[1]) as f64).abs();
}

#[kernel]
fn diffuse(u: Read<f64>, mesh: Read<f64>, v: Write<f64>, dt: Global<f64>) {
    v[(0, 0)] = u[(0, 0)]
        + dt * mesh[(0, 0)] * (u[(1, 0)] + u[(-1, 0)] + u[(0, 1)] + u[(0, -1)] - 4.0 * u[(0, 0)]);
}

#[kernel]
fn copy_back(v: Read<f64>, u: Write<f64>) {
    u[(0, 0)] = v[(0, 0)];
}

#[kernel]
fn umax(u: Read<f64>, m: Max<f64>) {
    m.update(u[(0, 0)]);
}

const N: i32 = 16;
const STEPS: u64 = 30;
const APP: &str = "fftest";

/// What a run computed.
#[derive(Debug, PartialEq)]
struct Outcome {
    /// `(step, dt)` of every step this run computed.
    dts: Vec<(u64, u64)>,
    /// Final datasets, bit patterns.
    data: Vec<Vec<u64>>,
    /// Steps where `fast_forward` answered a payload.
    forwarded: Vec<u64>,
}

fn cfg(dir: &Path, restart: bool) -> ResilienceConfig {
    ResilienceConfig {
        dir: Some(dir.to_path_buf()),
        every: Some(4),
        restart,
        app: Some(APP.into()),
        ..ResilienceConfig::default()
    }
}

fn new_ops(dir: Option<&Path>, restart: bool) -> Ops {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    if let Some(dir) = dir {
        assert!(ops_resilience::install(&mut ops, &cfg(dir, restart)).unwrap());
    }
    ops
}

fn enc(step: u64, dt: f64) -> Vec<u8> {
    let mut v = step.to_le_bytes().to_vec();
    v.extend_from_slice(&dt.to_le_bytes());
    v
}

fn dec(p: &[u8]) -> (u64, f64) {
    (
        u64::from_le_bytes(p[..8].try_into().unwrap()),
        f64::from_le_bytes(p[8..16].try_into().unwrap()),
    )
}

/// Start-up (mesh geometry and the initial state), then `STEPS` steps (stencil, copy, a max
/// reduction deciding the next dt). `use_ff`: call `fast_forward` at the top of every step;
/// `stop`: return before the body of that step (a crash after the checkpoint was written).
fn program(ops: &mut Ops, use_ff: bool, stop: Option<u64>) -> Result<Outcome, OpsError> {
    let grid = ops.block("grid", 2)?;
    let h = Halo::uniform(1);
    let mesh = ops.dat::<f64, 2>(&grid, "mesh", [N as usize; 2], h)?;
    let u = ops.dat::<f64, 2>(&grid, "u", [N as usize; 2], h)?;
    let v = ops.dat::<f64, 2>(&grid, "v", [N as usize; 2], h)?;
    let pt = ops.stencil("pt", &[[0, 0]])?;
    let cross = ops.stencil("cross", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    let m = ops.reduction::<f64>("umax", ReduceOp::Max);
    let all = [-1..N + 1, -1..N + 1];
    let inner = [0..N, 0..N];
    ops.par_loop(
        geometry,
        "geometry",
        &grid,
        all.clone(),
        &[Arg::idx(), mesh.arg(&pt, Write)],
    )?;
    ops.par_loop(
        initial,
        "initial",
        &grid,
        all.clone(),
        &[Arg::idx(), mesh.arg(&pt, Read), u.arg(&pt, Write)],
    )?;
    let mut out = Outcome {
        dts: Vec::new(),
        data: Vec::new(),
        forwarded: Vec::new(),
    };
    let (mut step, mut dt) = (0u64, 0.01f64);
    while step < STEPS {
        if use_ff {
            if let Some(p) = ops.fast_forward(&enc(step, dt))? {
                (step, dt) = dec(&p);
                out.forwarded.push(step);
            }
        }
        if stop == Some(step) {
            return Ok(out);
        }
        ops.par_loop(
            diffuse,
            "diffuse",
            &grid,
            inner.clone(),
            &[
                u.arg(&cross, Read),
                mesh.arg(&pt, Read),
                v.arg(&pt, Write),
                Arg::global(dt),
            ],
        )?;
        ops.par_loop(
            copy_back,
            "copy_back",
            &grid,
            inner.clone(),
            &[v.arg(&pt, Read), u.arg(&pt, Write)],
        )?;
        ops.par_loop(
            umax,
            "umax",
            &grid,
            inner.clone(),
            &[u.arg(&pt, Read), m.arg()],
        )?;
        let mx = ops.reduction_result(&m)?;
        dt = 0.02 / (1.0 + mx);
        out.dts.push((step, dt.to_bits()));
        step += 1;
    }
    for d in [&mesh, &u, &v] {
        let x = ops.fetch_range(d, all.clone())?;
        out.data.push(x.iter().map(|f| f.to_bits()).collect());
    }
    Ok(out)
}

/// Runs the program; the report (if resilience is installed) after `finish`.
fn run(
    dir: Option<&Path>,
    restart: bool,
    use_ff: bool,
    stop: Option<u64>,
) -> (Result<Outcome, OpsError>, Option<Report>) {
    let mut ops = new_ops(dir, restart);
    let out = program(&mut ops, use_ff, stop);
    let fin = ops.finish();
    let report = ops.resilience().map(|r| r.report().clone());
    match (out, fin) {
        (Ok(o), Ok(())) => (Ok(o), report),
        (Err(e), _) | (Ok(_), Err(e)) => (Err(e), report),
    }
}

fn h5_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "h5"))
        .collect();
    v.sort();
    v
}

fn reference() -> Outcome {
    let (out, _) = run(None, false, true, None);
    out.unwrap()
}

fn loops_run(r: &Report) -> u64 {
    let rs = r.restore.as_ref().unwrap();
    rs.executed_loops + (r.loops - rs.loop_index.unwrap())
}

#[test]
fn fast_forward_restart_is_bitwise_identical_and_runs_few_loops() {
    let full = reference();
    assert_eq!(full.dts.len(), STEPS as usize);
    assert!(full.forwarded.is_empty());
    let tmp = tempfile::tempdir().unwrap();
    // Uninterrupted with checkpoints: same results; checkpoints every 4th step, at the call.
    let (o, rep) = run(Some(tmp.path()), false, true, Some(26));
    let o = o.unwrap();
    assert!(o.forwarded.is_empty());
    assert_eq!(o.dts[..], full.dts[..26]);
    let rep = rep.unwrap();
    let seqs: Vec<u64> = rep.checkpoints.iter().map(|c| c.loop_index).collect();
    // Calls 4, 8, ..., 24 (steps 3, 7, ..., 23): loop index 2 + 3 * step.
    assert_eq!(seqs, vec![11, 23, 35, 47, 59, 71]);
    assert!(rep.checkpoints[0].location.starts_with("fast_forward@"));
    assert!(
        rep.checkpoints.iter().all(|c| c.recompute_loops <= 2),
        "{:?}",
        rep.checkpoints
    );
    assert!(!h5_files(tmp.path()).is_empty());

    // Restart: the start-up runs, then a jump to step 23.
    let (o, rep) = run(Some(tmp.path()), true, true, None);
    let o = o.unwrap();
    let rep = rep.unwrap();
    assert_eq!(o.forwarded, vec![23]);
    assert_eq!(o.dts[..], full.dts[23..]);
    assert_eq!(o.data, full.data);
    let rs = rep.restore.as_ref().unwrap();
    assert!(rs.fast_forward, "{rs:?}");
    assert_eq!(rs.loop_index, Some(71));
    assert_eq!(rs.executed_loops, 2);
    assert_eq!(rs.skipped_loops, 69);
    assert!(rs.bytes > 0);
    assert_eq!(rep.loops, 2 + 3 * STEPS);
    assert_eq!(loops_run(&rep), 2 + 3 * 7);
    assert!(loops_run(&rep) * 3 < rep.loops);
    let text = Report::restore_text(rs);
    assert!(
        text.contains("fast-forwarded to checkpoint 6 at loop 71"),
        "{text}"
    );
    // The restarted run checkpoints on (at call 28 = step 27), and restarting again works.
    assert_eq!(
        rep.checkpoints
            .iter()
            .map(|c| c.loop_index)
            .collect::<Vec<_>>(),
        vec![83]
    );
    let (o, rep) = run(Some(tmp.path()), true, true, None);
    let o = o.unwrap();
    assert_eq!(o.forwarded, vec![27]);
    assert_eq!(o.dts[..], full.dts[27..]);
    assert_eq!(o.data, full.data);
    assert_eq!(loops_run(&rep.unwrap()), 2 + 3 * 3);
}

#[test]
fn a_program_without_fast_forward_calls_cannot_restart_from_a_fast_forward_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let (o, _) = run(Some(tmp.path()), false, true, Some(10));
    o.unwrap();
    let (o, _) = run(Some(tmp.path()), true, false, None);
    let e = o.unwrap_err().to_string();
    assert!(e.contains("without calling fast_forward"), "{e}");
}

#[test]
fn a_replay_checkpoint_still_replays_and_fast_forward_answers_none() {
    let full = reference();
    let tmp = tempfile::tempdir().unwrap();
    // Checkpoints at a loop (no fast_forward calls): replay checkpoints.
    let mut ops = new_ops(Some(tmp.path()), false);
    ops.checkpoint_location("copy_back");
    let o = program(&mut ops, false, Some(26)).unwrap();
    ops.finish().unwrap();
    assert_eq!(o.dts[..], full.dts[..26]);
    let rep = ops.resilience().unwrap().report().clone();
    let last = rep.checkpoints.last().unwrap().loop_index;
    // The restart calls fast_forward: None during the replay and after it.
    let (o, rep) = run(Some(tmp.path()), true, true, None);
    let o = o.unwrap();
    let rep = rep.unwrap();
    assert!(o.forwarded.is_empty());
    assert_eq!(o.data, full.data);
    let first = o.dts.first().unwrap().0;
    assert_eq!(o.dts[..], full.dts[first as usize..]);
    let rs = rep.restore.as_ref().unwrap();
    assert!(!rs.fast_forward);
    assert_eq!(rs.loop_index, Some(last));
    assert!(rs.skipped_loops > 0, "{rs:?}");
    assert!(Report::restore_text(rs).contains("restored checkpoint"));
}

#[test]
fn damaged_or_missing_checkpoints_start_from_the_beginning() {
    let full = reference();
    // Nothing in the directory.
    let tmp = tempfile::tempdir().unwrap();
    let (o, rep) = run(Some(tmp.path()), true, true, None);
    let o = o.unwrap();
    assert!(o.forwarded.is_empty());
    assert_eq!(o, full);
    assert_eq!(rep.unwrap().restore.unwrap().sequence, None);
    // Every checkpoint damaged.
    let tmp = tempfile::tempdir().unwrap();
    run(Some(tmp.path()), false, true, Some(12)).0.unwrap();
    let files = h5_files(tmp.path());
    assert!(!files.is_empty());
    for f in &files {
        let mut b = std::fs::read(f).unwrap();
        let n = b.len();
        for x in &mut b[n / 2..] {
            *x ^= 0x5a;
        }
        std::fs::write(f, b).unwrap();
    }
    let (o, rep) = run(Some(tmp.path()), true, true, None);
    let o = o.unwrap();
    assert!(o.forwarded.is_empty());
    assert_eq!(o, full);
    let rs = rep.unwrap().restore.unwrap();
    assert_eq!(rs.sequence, None);
    assert_eq!(rs.rejected.len(), files.len(), "{rs:?}");
}

#[test]
fn a_different_start_up_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    run(Some(tmp.path()), false, true, Some(10)).0.unwrap();
    // One more start-up loop than the checkpointed run had.
    let mut ops = new_ops(Some(tmp.path()), true);
    let extra = ops.block("extra", 2).unwrap();
    let d = ops
        .dat::<f64, 2>(&extra, "d", [4, 4], Halo::uniform(0))
        .unwrap();
    let pt = ops.stencil("pt0", &[[0, 0]]).unwrap();
    // The start-up runs again and is checked against the checkpoint's call log, loop by loop.
    let e = ops
        .par_loop(
            geometry,
            "extra",
            &extra,
            [0..4, 0..4],
            &[Arg::idx(), d.arg(&pt, Write)],
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("loop 0 (`extra@") && e.contains("the checkpointed run called `geometry` there"),
        "{e}"
    );
}
