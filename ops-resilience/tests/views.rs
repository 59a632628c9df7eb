//! Hints and Kokkos-style views: transient, read-only, aliases, explicit dataset lists, the
//! fast-forward payload, manual triggers, scoped resilient regions, Young's interval, and a
//! restart whose program diverges from the log.

mod common;

use std::time::Duration;

use common::*;
use ops_backends::prelude::*;
use ops_resilience::store::Checkpoint;
use ops_resilience::Interval;
use ops_resilience::ResilienceExt;

#[kernel]
fn fill(idx: Idx, out: Write<f64>, s: Global<f64>) {
    out[(0, 0)] = s + (idx[0] * 7 + idx[1]) as f64;
}

#[kernel]
fn step(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = 0.5 * a[(0, 0)] + 0.25 * (a[(1, 0)] + a[(-1, 0)]);
}

#[kernel]
fn acc(a: Read<f64>, b: ReadWrite<f64>) {
    b[(0, 0)] = b[(0, 0)] + 0.125 * a[(0, 0)];
}

#[kernel]
fn total(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)];
}

const N: i32 = 12;

struct P {
    grid: Block,
    a: Dat<f64>,
    b: Dat<f64>,
    scratch: Dat<f64>,
    mesh: Dat<f64>,
    pt: Stencil,
    line: Stencil,
    sum: Reduction<f64>,
}

fn declare(ops: &mut Ops) -> P {
    let grid = ops.block("grid", 2).unwrap();
    let h = Halo::uniform(1);
    let a = ops.dat::<f64, 2>(&grid, "a", [N as usize; 2], h).unwrap();
    let b = ops.dat::<f64, 2>(&grid, "b", [N as usize; 2], h).unwrap();
    let scratch = ops
        .dat::<f64, 2>(&grid, "scratch", [N as usize; 2], h)
        .unwrap();
    let mesh = ops
        .dat::<f64, 2>(&grid, "mesh", [N as usize; 2], h)
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let line = ops.stencil("line", &[[0, 0], [1, 0], [-1, 0]]).unwrap();
    let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
    P {
        grid,
        a,
        b,
        scratch,
        mesh,
        pt,
        line,
        sum,
    }
}

/// Start-up, then `steps` ping-pong steps a -> b -> a, each with a reduction.
fn init(ops: &mut Ops, p: &P) {
    init_with(ops, p, 1.0).unwrap();
}

/// The start-up with `a` filled from `a0` (a program parameter).
fn init_with(ops: &mut Ops, p: &P, a0: f64) -> Result<(), OpsError> {
    let all = [-1..N + 1, -1..N + 1];
    ops.par_loop(
        fill,
        "mesh",
        &p.grid,
        all.clone(),
        &[Arg::idx(), p.mesh.arg(&p.pt, Write), Arg::global(0.5)],
    )?;
    ops.par_loop(
        fill,
        "init_a",
        &p.grid,
        all.clone(),
        &[Arg::idx(), p.a.arg(&p.pt, Write), Arg::global(a0)],
    )?;
    ops.par_loop(
        fill,
        "init_b",
        &p.grid,
        all,
        &[Arg::idx(), p.b.arg(&p.pt, Write), Arg::global(2.0)],
    )
}

fn one_step(ops: &mut Ops, p: &P) -> f64 {
    one_step_with(ops, p, &p.mesh).unwrap()
}

/// A step whose second loop adds `added` (the mesh) into the scratch field.
fn one_step_with(ops: &mut Ops, p: &P, added: &Dat<f64>) -> Result<f64, OpsError> {
    let inner = [0..N, 0..N];
    ops.par_loop(
        step,
        "a_to_scratch",
        &p.grid,
        inner.clone(),
        &[p.a.arg(&p.line, Read), p.scratch.arg(&p.pt, Write)],
    )?;
    ops.par_loop(
        acc,
        "mesh_into_scratch",
        &p.grid,
        inner.clone(),
        &[added.arg(&p.pt, Read), p.scratch.arg(&p.pt, ReadWrite)],
    )?;
    ops.par_loop(
        step,
        "scratch_to_b",
        &p.grid,
        inner.clone(),
        &[p.scratch.arg(&p.line, Read), p.b.arg(&p.pt, Write)],
    )?;
    ops.par_loop(
        step,
        "b_to_a",
        &p.grid,
        inner.clone(),
        &[p.b.arg(&p.line, Read), p.a.arg(&p.pt, Write)],
    )?;
    ops.par_loop(
        total,
        "total",
        &p.grid,
        inner,
        &[p.a.arg(&p.pt, Read), p.sum.arg()],
    )?;
    ops.reduction_result(&p.sum)
}

/// `one_step` as another version of the program has it: the same loops in the same order, but
/// at other lines (code moved), or with `b_to_a` renamed (another program).
fn one_step_elsewhere(ops: &mut Ops, p: &P, renamed: bool) -> Result<f64, OpsError> {
    let b_to_a = if renamed { "b_into_a" } else { "b_to_a" };
    let inner = [0..N, 0..N];
    ops.par_loop(
        step,
        "a_to_scratch",
        &p.grid,
        inner.clone(),
        &[p.a.arg(&p.line, Read), p.scratch.arg(&p.pt, Write)],
    )?;
    ops.par_loop(
        acc,
        "mesh_into_scratch",
        &p.grid,
        inner.clone(),
        &[p.mesh.arg(&p.pt, Read), p.scratch.arg(&p.pt, ReadWrite)],
    )?;
    ops.par_loop(
        step,
        "scratch_to_b",
        &p.grid,
        inner.clone(),
        &[p.scratch.arg(&p.line, Read), p.b.arg(&p.pt, Write)],
    )?;
    ops.par_loop(
        step,
        b_to_a,
        &p.grid,
        inner.clone(),
        &[p.b.arg(&p.line, Read), p.a.arg(&p.pt, Write)],
    )?;
    ops.par_loop(
        total,
        "total",
        &p.grid,
        inner,
        &[p.a.arg(&p.pt, Read), p.sum.arg()],
    )?;
    ops.reduction_result(&p.sum)
}

fn state(ops: &mut Ops, p: &P) -> Vec<Vec<f64>> {
    [p.a, p.b, p.scratch, p.mesh]
        .iter()
        .map(|d| ops.fetch_range(d, [-1..N + 1, -1..N + 1]).unwrap())
        .collect()
}

fn saved_names(ck: &Checkpoint) -> Vec<String> {
    ck.dats.iter().map(|d| d.name.clone()).collect()
}

/// A runtime restarting from `ck` (learnt location, every step), and its store.
fn restarting_from(ck: &Checkpoint) -> (Ops, Captured) {
    let ck = ck.clone();
    let mut c = cfg(1);
    c.restart = true;
    let store = Captured::default();
    let ops = ops_with(BackendKind::Seq, c, &store, move |r| {
        r.restart_from(ck).unwrap()
    });
    (ops, store)
}

/// The checkpoints of a run of `steps` steps at the learnt location, every step.
fn learnt_checkpoints(steps: usize) -> Vec<Checkpoint> {
    let store = Captured::default();
    let mut ops = ops_with(BackendKind::Seq, cfg(1), &store, |_| {});
    let p = declare(&mut ops);
    init(&mut ops, &p);
    for _ in 0..steps {
        one_step(&mut ops, &p);
    }
    ops.finish().unwrap();
    store.all()
}

fn run_ref(steps: usize) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut ops = plain_ops(BackendKind::Seq);
    let p = declare(&mut ops);
    init(&mut ops, &p);
    let sums = (0..steps).map(|_| one_step(&mut ops, &p)).collect();
    let st = state(&mut ops, &p);
    (sums, st)
}

#[test]
fn the_exact_analysis_saves_only_the_live_half_and_never_the_mesh() {
    let store = Captured::default();
    let mut ops = ops_with(BackendKind::Seq, cfg(1), &store, |r| {
        r.set_location("b_to_a")
    });
    let p = declare(&mut ops);
    init(&mut ops, &p);
    for _ in 0..4 {
        one_step(&mut ops, &p);
    }
    ops.finish().unwrap();
    let cks = store.all();
    assert_eq!(cks.len(), 4);
    // In the first step everything is computed from start-up data: nothing to save.
    assert!(cks[0].dats.is_empty());
    // (The last region is cut short by the end of the program: it saves what is undecided.)
    for ck in &cks[1..cks.len() - 1] {
        // Before b_to_a: b is read first (needed), a is overwritten first, scratch is
        // overwritten before being read in the next step, the mesh is recomputed.
        assert_eq!(
            saved_names(ck),
            vec!["grid/b".to_string()],
            "{}",
            ck.meta.location
        );
    }
    let report = ops.resilience().unwrap().report().clone();
    let d = &report.checkpoints[2].decisions;
    let reason = |n: &str| d.iter().find(|x| x.name == n).unwrap().reason.clone();
    assert_eq!(reason("grid/mesh"), "recomputed at restore");
    assert!(reason("grid/a").contains("overwritten first"), "{d:?}");
    assert!(
        reason("grid/scratch").contains("overwritten first"),
        "{d:?}"
    );
}

#[test]
fn transient_is_never_saved_and_read_only_refuses_writes() {
    let store = Captured::default();
    let mut ops = ops_with(BackendKind::Seq, cfg(1), &store, |r| {
        r.set_location("total")
    });
    let p = declare(&mut ops);
    init(&mut ops, &p);
    ops.mark_transient(&p.b).unwrap();
    ops.mark_read_only(&p.mesh).unwrap();
    for _ in 0..3 {
        one_step(&mut ops, &p);
    }
    // Writing the read-only mesh is refused, naming it; the loop does not run.
    let before = ops.fetch_data(&p.mesh).unwrap();
    let e = ops
        .par_loop(
            fill,
            "overwrite_mesh",
            &p.grid,
            [0..N, 0..N],
            &[Arg::idx(), p.mesh.arg(&p.pt, Write), Arg::global(9.0)],
        )
        .unwrap_err();
    assert!(
        e.to_string().contains("`grid/mesh`") && e.to_string().contains("read-only"),
        "{e}"
    );
    assert_eq!(ops.fetch_data(&p.mesh).unwrap(), before);
    let e = ops
        .set_data(&p.mesh, &vec![0.0; (N * N) as usize])
        .unwrap_err();
    assert!(e.to_string().contains("`grid/mesh`"), "{e}");
    ops.finish().unwrap();
    let cks = store.all();
    assert!(!cks.is_empty());
    for ck in &cks {
        let names = saved_names(ck);
        assert!(
            !names.contains(&"grid/b".to_string()),
            "transient b saved: {names:?}"
        );
        assert!(!names.contains(&"grid/mesh".to_string()));
    }
    let d = &ops.resilience().unwrap().report().checkpoints[1].decisions;
    assert!(
        d.iter()
            .any(|x| x.name == "grid/b" && x.reason == "transient"),
        "{d:?}"
    );
}

#[test]
fn aliases_are_saved_once() {
    // Checkpoint right after `b_to_a`, then many unrelated loops before the next step: the
    // region reaches its bound with a and b both undecided. Declared aliases, only the half
    // written last (a) is saved.
    for alias in [false, true] {
        let store = Captured::default();
        let mut ops = ops_with(BackendKind::Seq, cfg(1000), &store, |r| {
            r.set_location("total")
        });
        let p = declare(&mut ops);
        if alias {
            ops.mark_aliases(&p.a, &p.b).unwrap();
        }
        init(&mut ops, &p);
        one_step(&mut ops, &p);
        ops.checkpoint_now();
        one_step(&mut ops, &p);
        for _ in 0..70 {
            ops.par_loop(
                fill,
                "busy",
                &p.grid,
                [0..N, 0..N],
                &[Arg::idx(), p.scratch.arg(&p.pt, Write), Arg::global(0.0)],
            )
            .unwrap();
        }
        ops.finish().unwrap();
        let names = saved_names(&store.all()[0]);
        if alias {
            assert_eq!(names, vec!["grid/a".to_string()]);
            let d = &ops.resilience().unwrap().report().checkpoints[0].decisions;
            assert!(d
                .iter()
                .any(|x| x.name == "grid/b" && x.reason.contains("alias of grid/a")));
        } else {
            assert!(names.contains(&"grid/a".to_string()) && names.contains(&"grid/b".to_string()));
        }
    }
}

#[test]
fn explicit_list_payload_and_restart() {
    let (ref_sums, ref_state) = run_ref(6);
    let store = Captured::default();
    let mut ops = ops_with(BackendKind::Seq, cfg(2), &store, |r| {
        r.set_location("a_to_scratch")
    });
    let p = declare(&mut ops);
    ops.checkpoint_datasets(&[p.a.id()]);
    init(&mut ops, &p);
    let mut sums = Vec::new();
    for s in 0..6u64 {
        ops.checkpoint_payload(&s.to_le_bytes());
        sums.push(one_step(&mut ops, &p));
    }
    ops.finish().unwrap();
    assert_eq!(sums, ref_sums);
    let cks = store.all();
    assert_eq!(cks.len(), 3, "every 2nd occurrence of the location");
    for ck in &cks[1..] {
        assert_eq!(saved_names(ck), vec!["grid/a".to_string()]);
    }
    // Restart from the second checkpoint: the payload comes back, the result is identical.
    let ck = cks[1].clone();
    let mut c = cfg(2);
    c.restart = true;
    let store2 = Captured::default();
    let mut ops = ops_with(BackendKind::Rayon, c, &store2, move |r| {
        r.restart_from(ck).unwrap();
        r.set_location("a_to_scratch");
    });
    assert_eq!(ops.restart_payload(), Some(3u64.to_le_bytes().to_vec()));
    let p = declare(&mut ops);
    ops.checkpoint_datasets(&[p.a.id()]);
    init(&mut ops, &p);
    let mut sums = Vec::new();
    for s in 0..6u64 {
        ops.checkpoint_payload(&s.to_le_bytes());
        sums.push(one_step(&mut ops, &p));
    }
    assert_eq!(sums, ref_sums);
    assert_eq!(state(&mut ops, &p), ref_state);
    ops.finish().unwrap();
    // Checkpointing went on after the restart, numbered on.
    assert_eq!(store2.all()[0].meta.sequence, 1);
}

#[test]
fn checkpoint_now_opens_a_region_at_the_next_loop() {
    let store = Captured::default();
    // No trigger would fire: a huge every-N and nothing recurs yet.
    let mut ops = ops_with(BackendKind::Seq, cfg(1000), &store, |_| {});
    let p = declare(&mut ops);
    init(&mut ops, &p);
    ops.checkpoint_now();
    one_step(&mut ops, &p);
    ops.finish().unwrap();
    let cks = store.all();
    assert_eq!(cks.len(), 1);
    assert_eq!(cks[0].meta.loop_index, 3);
    assert!(cks[0].meta.location.starts_with("a_to_scratch@"));
}

#[test]
fn a_program_that_diverges_from_the_log_is_stopped_with_a_clear_error() {
    let store = Captured::default();
    let mut ops = ops_with(BackendKind::Seq, cfg(1), &store, |r| {
        r.set_location("b_to_a")
    });
    let p = declare(&mut ops);
    init(&mut ops, &p);
    for _ in 0..3 {
        one_step(&mut ops, &p);
    }
    ops.finish().unwrap();
    let ck = store.all().last().unwrap().clone();
    // The restarted program asks for another reduction's result first (its loops are the
    // checkpointed run's: a loop that differs is stopped by the call log, see below).
    let mut c = cfg(1);
    c.restart = true;
    let mut ops = ops_with(BackendKind::Seq, c, &Captured::default(), move |r| {
        r.restart_from(ck).unwrap()
    });
    let p = declare(&mut ops);
    init(&mut ops, &p);
    let other = ops.reduction::<f64>("other", ReduceOp::Sum);
    let e = ops.reduction_result(&other).unwrap_err().to_string();
    assert!(
        e.contains("restart diverged") && e.contains("`other`") && e.contains("`sum`"),
        "{e}"
    );
}

/// A Kokkos-style scoped resilient region: checkpoints every 2nd iteration; a restart skips
/// the iterations up to the saved one and restores the data before the first it runs.
#[test]
fn resilient_region_restarts_at_the_last_saved_iteration() {
    let iters = 7u64;
    let run = |ops: &mut Ops, p: &P, calls: &mut Vec<u64>| -> Vec<f64> {
        init(ops, p);
        let mut sums = Vec::new();
        for it in 0..iters {
            ops.resilient("main", it, |ops| -> Result<()> {
                calls.push(it);
                sums.push(one_step(ops, p));
                Ok(())
            })
            .unwrap();
        }
        sums
    };
    let mut ops = plain_ops(BackendKind::Seq);
    let p = declare(&mut ops);
    let mut calls = Vec::new();
    let ref_sums = run(&mut ops, &p, &mut calls);
    let ref_state = state(&mut ops, &p);
    assert_eq!(calls.len() as u64, iters);

    let store = Captured::default();
    let mut ops = ops_with(BackendKind::Seq, cfg(2), &store, |_| {});
    let p = declare(&mut ops);
    let mut calls = Vec::new();
    assert_eq!(run(&mut ops, &p, &mut calls), ref_sums);
    ops.finish().unwrap();
    let cks = store.all();
    let iterations: Vec<String> = cks.iter().map(|c| c.meta.location.clone()).collect();
    assert_eq!(
        iterations,
        [
            "resilient:main@0",
            "resilient:main@2",
            "resilient:main@4",
            "resilient:main@6"
        ]
    );
    // The mesh is written outside the region: never saved.
    assert!(cks
        .iter()
        .all(|c| !saved_names(c).contains(&"grid/mesh".to_string())));

    // Restart from the checkpoint after iteration 4.
    let ck = cks[2].clone();
    let mut c = cfg(2);
    c.restart = true;
    let mut ops = ops_with(BackendKind::Rayon, c, &Captured::default(), move |r| {
        r.restart_from(ck).unwrap()
    });
    let p = declare(&mut ops);
    let mut calls = Vec::new();
    let sums = run(&mut ops, &p, &mut calls);
    assert_eq!(
        calls,
        vec![5, 6],
        "iterations up to the saved one are skipped"
    );
    assert_eq!(sums[..], ref_sums[5..]);
    assert_eq!(state(&mut ops, &p), ref_state);
    ops.finish().unwrap();
}

#[test]
fn young_interval_uses_the_measured_cost() {
    let run = |mtbf: Duration| {
        let store = Captured::default();
        let mut c = cfg(1);
        c.every = None;
        c.interval = Some(Interval::Auto);
        c.mtbf = Some(mtbf);
        let mut ops = ops_with(BackendKind::Seq, c, &store, |r| r.set_location("total"));
        let p = declare(&mut ops);
        init(&mut ops, &p);
        for _ in 0..20 {
            one_step(&mut ops, &p);
        }
        ops.finish().unwrap();
        store.all().len()
    };
    // A checkpoint costs microseconds: with an MTBF of a nanosecond the interval is ~zero, so
    // every step checkpoints; with an MTBF of years only the first one happens.
    assert_eq!(run(Duration::from_secs(100 * 365 * 86400)), 1);
    assert!(run(Duration::from_nanos(1)) >= 10);
}

/// Tracking with no checkpoint due costs little: prints the overhead on a moderately sized
/// synthetic program (no timing assertion; machines differ).
#[test]
fn tracking_counts_every_loop_and_changes_nothing() {
    const STEPS: u64 = 200;
    let program = |ops: &mut Ops| {
        let p = declare(ops);
        init(ops, &p);
        let t = std::time::Instant::now();
        let sums: Vec<u64> = (0..STEPS).map(|_| one_step(ops, &p).to_bits()).collect();
        (t.elapsed().as_secs_f64(), sums)
    };
    let mut plain = plain_ops(BackendKind::Seq);
    let (t_plain, plain_sums) = program(&mut plain);
    let mut c = cfg(1);
    c.every = None;
    c.interval = Some(Interval::Every(Duration::from_secs(3600)));
    let mut tracked = ops_with(BackendKind::Seq, c, &Captured::default(), |_| {});
    let (t_tracked, tracked_sums) = program(&mut tracked);
    println!(
        "tracking overhead: plain {t_plain:.4} s, tracked {t_tracked:.4} s ({:+.1} %)",
        100.0 * (t_tracked / t_plain - 1.0)
    );
    tracked.finish().unwrap();
    let r = tracked.resilience().unwrap().report().clone();
    // A measurement (timings are printed, never asserted); what it rests on is checked: both
    // runs did the same work, every loop was tracked, and the tracker's time is part of the run.
    assert!(plain_sums == tracked_sums, "tracking changed the results");
    // Start-up's 3 loops and 5 per step.
    assert_eq!(r.loops, 3 + 5 * STEPS, "loops tracked");
    assert!(
        r.tracking_s > 0.0 && r.tracking_s <= t_tracked,
        "tracker time {} s of a {t_tracked} s run",
        r.tracking_s
    );
    println!(
        "tracker time {:.4} s for {} loops: {:.2} µs per loop",
        r.tracking_s,
        r.loops,
        1e6 * r.tracking_s / r.loops as f64
    );
}

/// Recompiling after moving code keeps the checkpoints: loops are matched by name and order,
/// the call site only telling apart loops of one name. A restart of the moved program restores
/// bitwise and checkpoints on the same schedule; a program whose loops differ is refused.
#[test]
fn code_that_moved_restores_and_a_changed_program_is_refused() {
    // Enough steps for the learnt location to be decided and checkpointed several times.
    const STEPS: usize = 20;
    let (ref_sums, ref_state) = run_ref(STEPS);
    let cks = learnt_checkpoints(STEPS);
    let ck = cks[cks.len() / 2].clone();
    let after: Vec<u64> = cks
        .iter()
        .map(|c| c.meta.loop_index)
        .filter(|&l| l > ck.meta.loop_index)
        .collect();
    assert!(!after.is_empty());

    let restart = |renamed: bool| {
        let (mut ops, store) = restarting_from(&ck);
        let p = declare(&mut ops);
        init(&mut ops, &p);
        let mut sums = Vec::new();
        for _ in 0..STEPS {
            sums.push(one_step_elsewhere(&mut ops, &p, renamed)?);
        }
        let st = state(&mut ops, &p);
        let warnings = ops.resilience().unwrap().report().warnings.clone();
        ops.finish()?;
        Ok::<_, OpsError>((sums, st, store.all(), warnings))
    };
    let (sums, st, again, warnings) = restart(false).unwrap();
    assert_eq!(sums, ref_sums);
    assert_eq!(st, ref_state);
    let took: Vec<u64> = again.iter().map(|c| c.meta.loop_index).collect();
    assert_eq!(took, after, "the schedule of the run it continues");
    assert!(
        warnings.iter().any(|w| w.contains("moved in the source")),
        "{warnings:?}"
    );

    let e = restart(true).unwrap_err().to_string();
    assert!(
        e.contains("b_into_a")
            && e.contains("the checkpointed run called `b_to_a` there")
            && e.contains("changed since the checkpoint was taken"),
        "{e}"
    );
}

/// What a restarted program may change without a word, and what stops it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Change {
    Nothing,
    /// A parameter the start-up passes as a global constant.
    Parameter,
    /// Another dataset read by one loop of the step.
    Dataset,
}

/// A restart replays the program without computing; the call log proves the program is the
/// checkpointed one, loop by loop: another global constant's value, or another dataset in a
/// loop of the step, stops the restart at that loop with an error naming the loop, the argument,
/// the value now and then. The same program restores bitwise.
#[test]
fn a_restart_whose_calls_differ_stops_naming_the_loop_and_the_argument() {
    const STEPS: usize = 20;
    let (ref_sums, ref_state) = run_ref(STEPS);
    let cks = learnt_checkpoints(STEPS);
    let ck = cks[cks.len() / 2].clone();
    let restart = |change: Change| {
        let (mut ops, _store) = restarting_from(&ck);
        let p = declare(&mut ops);
        init_with(
            &mut ops,
            &p,
            if change == Change::Parameter {
                1.5
            } else {
                1.0
            },
        )?;
        let added = if change == Change::Dataset {
            p.b
        } else {
            p.mesh
        };
        let mut sums = Vec::new();
        for _ in 0..STEPS {
            sums.push(one_step_with(&mut ops, &p, &added)?);
        }
        let st = state(&mut ops, &p);
        let restored = ops.resilience().unwrap().report().restore.is_some();
        ops.finish()?;
        Ok::<_, OpsError>((sums, st, restored))
    };
    let (sums, st, restored) = restart(Change::Nothing).unwrap();
    assert!(restored);
    assert_eq!((sums, st), (ref_sums, ref_state));

    let e = restart(Change::Parameter).unwrap_err().to_string();
    assert!(
        e.contains("restart diverged: loop 1 (`init_a@")
            && e.contains("global constant argument 2 is 1.5e0 now, 1e0 then")
            && e.contains("Restore the input"),
        "{e}"
    );
    let e = restart(Change::Dataset).unwrap_err().to_string();
    assert!(
        e.contains("(`mesh_into_scratch@")
            && e.contains(
                "argument 0 is dataset `b` through stencil `pt` (Read) now, dataset `mesh` \
                 through stencil `pt` (Read) then"
            ),
        "{e}"
    );
}
