//! The observer hooks the resilience layer builds on: call sites in plans, full-write flags,
//! `before_set`, `finish` (explicit and on drop), `take_error`, `observer_mut`, and untyped
//! access by id.

use std::sync::{Arc, Mutex};

use ops_backends::prelude::*;
use ops_core::{
    ArgPlan, DatId, IterRange, LoopAction, LoopObserver, LoopPlan, ObserverError, Ran, Runtime,
    Scalar,
};

#[kernel]
fn fill(idx: Idx, out: Write<f64>) {
    out[(0, 0)] = (idx[0] * 10 + idx[1]) as f64;
}

#[kernel]
fn maybe(a: Read<f64>, out: Write<f64>) {
    if a[(0, 0)] > 3.0 {
        out[(0, 0)] = a[(0, 0)];
    }
}

#[derive(Default)]
struct Log {
    events: Vec<String>,
}

struct Rec {
    log: Arc<Mutex<Log>>,
    refuse_loop: Option<String>,
    pending: Option<OpsError>,
    tag: u32,
}

impl Rec {
    fn push(&self, e: String) {
        self.log.lock().unwrap().events.push(e);
    }
}

impl LoopObserver for Rec {
    fn before_loop(&mut self, ops: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        let mut flags = Vec::new();
        for a in plan.args() {
            if let ArgPlan::Dat(d) = a {
                flags.push(format!(
                    "{}:{}:{}",
                    ops.dat_desc(d.dat).unwrap().name,
                    d.reads(),
                    d.writes()
                ));
            }
        }
        self.push(format!(
            "loop {} at {}:{} [{}]",
            plan.name,
            plan.location.file().rsplit('/').next().unwrap(),
            plan.location.line(),
            flags.join(" ")
        ));
        if self.refuse_loop.as_deref() == Some(plan.name) {
            self.pending = Some(OpsError::Observer(ObserverError::msg(format!(
                "refused `{}`",
                plan.name
            ))));
            return LoopAction::Refuse;
        }
        LoopAction::Run
    }
    fn before_set(&mut self, ops: &mut Runtime<'_>, dat: DatId, range: &IterRange) {
        // The old values are still there: read them untyped.
        let l = ops.dat_desc(dat).unwrap().layout;
        let mut old = vec![0u8; range.points() * l.components * l.ty.size()];
        ops.download_bytes(dat, range, &mut old).unwrap();
        let first = f64::from_le_bytes(old[..8].try_into().unwrap());
        self.push(format!("before_set {range} old {first}"));
    }
    fn on_set(&mut self, _dat: DatId, range: &IterRange) {
        self.push(format!("on_set {range}"));
    }
    fn finish(&mut self, ops: &mut Runtime<'_>) {
        self.push(format!("finish with {} dats", ops.dat_count()));
    }
    fn take_error(&mut self) -> Option<OpsError> {
        self.pending.take()
    }
}

fn setup(log: &Arc<Mutex<Log>>, refuse: Option<&str>) -> (Ops, Block, Dat<f64>, Dat<f64>, Stencil) {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    ops.set_observer(Some(Box::new(Rec {
        log: log.clone(),
        refuse_loop: refuse.map(str::to_string),
        pending: None,
        tag: 7,
    })));
    let grid = ops.block("grid", 2).unwrap();
    let a = ops
        .dat::<f64, 2>(&grid, "a", [4, 4], Halo::uniform(1))
        .unwrap();
    let b = ops
        .dat::<f64, 2>(&grid, "b", [4, 4], Halo::uniform(1))
        .unwrap();
    let pt = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    (ops, grid, a, b, pt)
}

#[test]
#[rustfmt::skip]
fn plans_carry_call_sites_and_full_write_flags() {
    let log = Arc::new(Mutex::new(Log::default()));
    let (mut ops, grid, a, b, pt) = setup(&log, None);
    let fill_line = line!() + 1;
    ops.par_loop(fill, "fill", &grid, [0..4, 0..4], &[Arg::idx(), a.arg(&pt, Write)]).unwrap();
    let maybe_line = line!() + 1;
    ops.par_loop(maybe, "maybe", &grid, [0..4, 0..4], &[a.arg(&pt, Read), b.arg(&pt, Write)]).unwrap();
    let ev = log.lock().unwrap().events.clone();
    assert_eq!(
        ev[0],
        format!("loop fill at observer_hooks.rs:{fill_line} [a:false:true]")
    );
    // A conditional write is tracked as read and written.
    assert_eq!(
        ev[1],
        format!(
            "loop maybe at observer_hooks.rs:{} [a:true:false b:true:true]",
            maybe_line
        )
    );
}

#[test]
fn before_set_sees_old_values_and_finish_runs_once() {
    let log = Arc::new(Mutex::new(Log::default()));
    let (mut ops, grid, a, _b, pt) = setup(&log, None);
    ops.par_loop(
        fill,
        "fill",
        &grid,
        [0..4, 0..4],
        &[Arg::idx(), a.arg(&pt, Write)],
    )
    .unwrap();
    ops.set_range(&a, [1..2, 2..3], &[-1.0]).unwrap();
    ops.finish().unwrap();
    ops.finish().unwrap();
    drop(ops);
    let ev = log.lock().unwrap().events.clone();
    assert_eq!(ev[1], "before_set [1..2, 2..3] old 12");
    assert_eq!(ev[2], "on_set [1..2, 2..3]");
    assert_eq!(ev[3], "finish with 2 dats");
    assert_eq!(ev.len(), 4, "finish runs once, not again on drop: {ev:?}");
}

#[test]
fn drop_runs_finish_when_the_program_did_not() {
    let log = Arc::new(Mutex::new(Log::default()));
    let (ops, ..) = setup(&log, None);
    drop(ops);
    let ev = log.lock().unwrap().events.clone();
    assert_eq!(ev.last().unwrap(), "finish with 2 dats");
}

#[test]
fn an_observer_error_fails_the_call_and_the_loop_does_not_run() {
    let log = Arc::new(Mutex::new(Log::default()));
    let (mut ops, grid, a, _b, pt) = setup(&log, Some("fill"));
    let e = ops
        .par_loop(
            fill,
            "fill",
            &grid,
            [0..4, 0..4],
            &[Arg::idx(), a.arg(&pt, Write)],
        )
        .unwrap_err();
    assert_eq!(e, OpsError::Observer(ObserverError::msg("refused `fill`")));
    assert_eq!(ops.fetch_data(&a).unwrap(), vec![0.0; 16]);
    // The observer is still installed and reachable by type.
    assert_eq!(ops.observer_mut::<Rec>().map(|r| r.tag), Some(7));
    assert!(ops.observer_mut::<Log2>().is_none());
}

struct Log2;
impl LoopObserver for Log2 {}

#[test]
fn untyped_access_by_id() {
    let log = Arc::new(Mutex::new(Log::default()));
    let (mut ops, grid, a, _b, pt) = setup(&log, None);
    ops.par_loop(
        fill,
        "fill",
        &grid,
        [-1..5, -1..5],
        &[Arg::idx(), a.arg(&pt, Write)],
    )
    .unwrap();
    let id = ops.dat_id(0).unwrap();
    assert_eq!(id, a.id());
    assert!(ops.dat_id(2).is_none());
    let d = ops.dat_desc(id).unwrap();
    assert_eq!((d.name, d.block_name, d.live), ("a", "grid", true));
    let r: IterRange = [-1..1, 4..5].into();
    let mut out = vec![0u8; 2 * 8];
    // Raw copies are the observer's: they go through the runtime it is handed.
    ops.with_observer(|_: &mut Rec, rt| rt.download_bytes(id, &r, &mut out))
        .unwrap()
        .unwrap();
    let v: Vec<f64> = out
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(v, vec![-10.0 + 4.0, 4.0]);
    let bytes: Vec<u8> = [5.0f64, 6.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    ops.with_observer(|_: &mut Rec, rt| rt.upload_bytes(id, &r, &bytes))
        .unwrap()
        .unwrap();
    assert_eq!(ops.fetch_range(&a, [-1..1, 4..5]).unwrap(), vec![5.0, 6.0]);
    // Wrong sizes and boxes outside the extent are errors, not panics.
    ops.with_observer(|_: &mut Rec, rt| {
        assert!(rt.download_bytes(id, &r, &mut [0u8; 3]).is_err());
        assert!(rt
            .upload_bytes(id, &[-2..1, 4..5].into(), &[0u8; 24])
            .is_err());
    })
    .unwrap();
}

struct SkipFirst {
    left: u32,
    seen: Arc<Mutex<Log>>,
}

impl LoopObserver for SkipFirst {
    fn skip_unvalidated(&mut self, _call: &ops_core::LoopCall<'_>) -> bool {
        if self.left > 0 {
            self.left -= 1;
            return true;
        }
        false
    }
    fn before_loop(&mut self, _ops: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        self.seen.lock().unwrap().events.push(plan.name.to_string());
        LoopAction::Run
    }
}

#[test]
fn skip_unvalidated_drops_the_call_before_validation() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    ops.set_observer(Some(Box::new(SkipFirst {
        left: 2,
        seen: log.clone(),
    })));
    let grid = ops.block("grid", 2).unwrap();
    let a = ops.dat::<f64, 2>(&grid, "a", [4, 4], Halo::none()).unwrap();
    let pt = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    // Dropped even though it is invalid (a range outside the dataset).
    ops.par_loop(
        fill,
        "bad",
        &grid,
        [0..9, 0..4],
        &[Arg::idx(), a.arg(&pt, Write)],
    )
    .unwrap();
    ops.par_loop(
        fill,
        "dropped",
        &grid,
        [0..4, 0..4],
        &[Arg::idx(), a.arg(&pt, Write)],
    )
    .unwrap();
    assert_eq!(ops.fetch_data(&a).unwrap(), vec![0.0; 16]);
    ops.par_loop(
        fill,
        "kept",
        &grid,
        [0..4, 0..4],
        &[Arg::idx(), a.arg(&pt, Write)],
    )
    .unwrap();
    assert_eq!(log.lock().unwrap().events, vec!["kept".to_string()]);
    assert!(ops.profile().iter().all(|p| p.name == "kept"));
}

/// Counts the optional hooks' calls, and after `quiet_after` loops asks not to be called.
struct Quiet {
    quiet_after: u32,
    loops: u32,
    calls: Arc<Mutex<Log>>,
}

impl LoopObserver for Quiet {
    fn skip_unvalidated(&mut self, _call: &ops_core::LoopCall<'_>) -> bool {
        self.calls.lock().unwrap().events.push("skip?".into());
        false
    }
    fn before_loop(&mut self, rt: &mut Runtime<'_>, _plan: &LoopPlan<'_>) -> LoopAction {
        self.loops += 1;
        let all = self.loops < self.quiet_after;
        rt.set_hooks(ops_core::Hooks {
            skip_unvalidated: all,
            after_loop: all,
        });
        LoopAction::Run
    }
    fn after_loop(&mut self, _rt: &mut Runtime<'_>, _plan: &LoopPlan<'_>, _a: LoopAction) {
        self.calls.lock().unwrap().events.push("after".into());
    }
}

#[test]
fn an_observer_can_ask_not_to_be_called_for_the_optional_hooks() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let quiet = |log: &Arc<Mutex<Log>>| Quiet {
        quiet_after: 2,
        loops: 0,
        calls: log.clone(),
    };
    ops.set_observer(Some(Box::new(quiet(&log))));
    let grid = ops.block("grid", 2).unwrap();
    let a = ops.dat::<f64, 2>(&grid, "a", [4, 4], Halo::none()).unwrap();
    let pt = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    let fill_a = |ops: &mut Ops| {
        ops.par_loop(
            fill,
            "fill",
            &grid,
            [0..4, 0..4],
            &[Arg::idx(), a.arg(&pt, Write)],
        )
        .unwrap()
    };
    for _ in 0..4 {
        fill_a(&mut ops);
    }
    // The first loop: both hooks; the second asks for none from its own end on.
    let seen = std::mem::take(&mut log.lock().unwrap().events);
    assert_eq!(seen, ["skip?", "after", "skip?"]);
    // Installing an observer calls every hook again.
    ops.set_observer(Some(Box::new(quiet(&log))));
    fill_a(&mut ops);
    assert_eq!(log.lock().unwrap().events, ["skip?", "after"]);
}

#[kernel]
fn total(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)];
}

#[kernel]
fn fill_scaled(idx: Idx, out: Write<f64>, scale: Global<f64>) {
    out[(0, 0)] = scale * (idx[0] * 10 + idx[1]) as f64;
}

/// Expects, after the first two loops, that the next loops repeat their shapes three times.
struct Expecting {
    seen: Vec<u32>,
    calls: Arc<Mutex<Log>>,
    /// Asks for the reduction results to be kept while the loops run as expected.
    keep_results: bool,
}

impl Expecting {
    fn push(&self, e: String) {
        self.calls.lock().unwrap().events.push(e);
    }
}

impl LoopObserver for Expecting {
    fn before_loop(&mut self, rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        self.push(format!("before {}", plan.name));
        // `skip_unvalidated`, asked before the shape is known, would be told at every loop.
        rt.set_hooks(ops_core::Hooks {
            skip_unvalidated: false,
            after_loop: false,
        });
        self.seen.push(plan.shape.unwrap());
        if self.seen.len() == 2 {
            let (a, b) = (self.seen[0], self.seen[1]);
            rt.expect(&Arc::from([a, b, a, b, a, b]), 0, 6, self.keep_results);
        }
        LoopAction::Run
    }
    fn ran_as_expected(&mut self, ran: &Ran<'_>) {
        let show = |v: &Scalar| match v {
            Scalar::F64(x) => format!("{x}"),
            other => format!("{other:?}"),
        };
        let mut e = format!("ran {}", ran.loops);
        if !ran.globals.is_empty() {
            let values: Vec<String> = ran.globals.iter().map(show).collect();
            e += &format!(" with {}", values.join(" "));
        }
        for (_, name, v) in ran.results() {
            e += &format!(", {name} = {}", show(&v));
        }
        self.push(e);
    }
    fn on_query(&mut self, _query: &mut ops_core::Query<'_>) {
        self.push("query".into());
    }
    fn before_set(&mut self, _rt: &mut Runtime<'_>, _dat: DatId, _range: &IterRange) {
        self.push("before_set".into());
    }
}

/// One loop filling `d`, from one call site (a closure inlined in two places may give its
/// calls two sites, and so two shapes).
#[inline(never)]
fn fill_once(ops: &mut Ops, grid: &Block, d: &Dat<f64>, pt: &Stencil) {
    let args = [Arg::idx(), d.arg(pt, Write)];
    ops.par_loop(fill, "fill", grid, [0..4, 0..4], &args)
        .unwrap();
}

/// The first loop of a pair: fills `d` scaled by the global constant `scale`.
#[inline(never)]
fn fill_scaled_once(ops: &mut Ops, grid: &Block, d: &Dat<f64>, pt: &Stencil, scale: f64) {
    let args = [Arg::idx(), d.arg(pt, Write), Arg::global(scale)];
    ops.par_loop(fill_scaled, "fill", grid, [0..4, 0..4], &args)
        .unwrap();
}

/// A fresh [`Expecting`] observer logging to `log`.
fn expecting(log: &Arc<Mutex<Log>>) -> Option<Box<dyn LoopObserver>> {
    Some(Box::new(Expecting {
        seen: Vec::new(),
        calls: log.clone(),
        keep_results: false,
    }))
}

#[test]
fn loops_an_observer_expects_run_without_it_and_it_is_told_how_many() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    ops.set_observer(expecting(&log));
    let grid = ops.block("grid", 2).unwrap();
    let a = ops.dat::<f64, 2>(&grid, "a", [4, 4], Halo::none()).unwrap();
    let b = ops.dat::<f64, 2>(&grid, "b", [4, 4], Halo::none()).unwrap();
    let pt = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
    let events = |log: &Arc<Mutex<Log>>| std::mem::take(&mut log.lock().unwrap().events);
    let fill_into = |ops: &mut Ops, name: &str, d: &Dat<f64>| {
        let args = [Arg::idx(), d.arg(&pt, Write)];
        ops.par_loop(fill, name, &grid, [0..4, 0..4], &args)
            .unwrap();
    };
    // A pair of loops: the first passes a global constant, `scale`.
    let pair = |ops: &mut Ops, scale: f64| {
        fill_scaled_once(ops, &grid, &a, &pt, scale);
        ops.par_loop(
            total,
            "total",
            &grid,
            [0..4, 0..4],
            &[a.arg(&pt, Read), sum.arg()],
        )
        .unwrap();
    };
    pair(&mut ops, 1.0);
    assert_eq!(events(&log), ["before fill", "before total"]);
    let first = ops.reduction_result(&sum).unwrap();
    // Two pairs ran as expected (and really ran, with their own constants: their sums are
    // there); the query is told first, with the constants, and the expectation stands after.
    pair(&mut ops, 2.0);
    pair(&mut ops, 3.0);
    assert_eq!(ops.reduction_result(&sum).unwrap(), 5.0 * first);
    pair(&mut ops, 4.0);
    assert_eq!(events(&log), ["query", "ran 4 with 2 3", "query"]);
    // Six loops were expected: the seventh is shown to the observer, told first.
    fill_scaled_once(&mut ops, &grid, &a, &pt, 5.0);
    assert_eq!(events(&log), ["ran 2 with 4", "before fill"]);
    // Another shape ends the expectation at once (the loop goes to the observer).
    ops.set_observer(expecting(&log));
    pair(&mut ops, 1.0);
    fill_into(&mut ops, "fill_b", &b);
    assert_eq!(
        events(&log),
        ["before fill", "before total", "before fill_b"]
    );
    // A hook given a runtime, and reaching the observer through the runtime, tell it first
    // and end the expectation.
    let fresh = |ops: &mut Ops| {
        ops.set_observer(expecting(&log));
        pair(ops, 1.0);
        pair(ops, 1.0);
    };
    fresh(&mut ops);
    ops.set_data(&b, &[1.0; 16]).unwrap();
    pair(&mut ops, 1.0);
    let told = ["before fill", "before total", "ran 2 with 1"];
    let again = ["before fill", "before total"];
    assert_eq!(events(&log), [&told[..], &["before_set"], &again].concat());
    fresh(&mut ops);
    assert!(ops.observer_mut::<Expecting>().is_some());
    pair(&mut ops, 1.0);
    assert_eq!(events(&log), [&told[..], &again].concat());
    // A loop run while the observer is out of the runtime (in its own hook) is not counted
    // and ends the expectation: the loop after the hook is shown to the observer.
    ops.set_observer(expecting(&log));
    fill_once(&mut ops, &grid, &a, &pt);
    fill_once(&mut ops, &grid, &a, &pt);
    ops.with_observer(|e: &mut Expecting, rt| {
        rt.expect(&Arc::from([e.seen[0]; 4]), 0, 4, false);
        fill_once(rt, &grid, &a, &pt);
    });
    fill_once(&mut ops, &grid, &a, &pt);
    assert!(ops.observer_mut::<Expecting>().is_some());
    assert_eq!(events(&log), ["before fill"; 3]);
}

#[test]
fn results_asked_for_while_loops_run_as_expected_are_kept_for_the_telling_if_asked() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    ops.set_observer(Some(Box::new(Expecting {
        seen: Vec::new(),
        calls: log.clone(),
        keep_results: true,
    })));
    let grid = ops.block("grid", 2).unwrap();
    let a = ops.dat::<f64, 2>(&grid, "a", [4, 4], Halo::none()).unwrap();
    let pt = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
    let events = |log: &Arc<Mutex<Log>>| std::mem::take(&mut log.lock().unwrap().events);
    let pair = |ops: &mut Ops, scale: f64| {
        fill_scaled_once(ops, &grid, &a, &pt, scale);
        let args = [a.arg(&pt, Read), sum.arg()];
        ops.par_loop(total, "total", &grid, [0..4, 0..4], &args)
            .unwrap();
        ops.reduction_result(&sum).unwrap()
    };
    // The expectation is set by the second loop's hook: the result after it is kept already.
    let first = pair(&mut ops, 1.0);
    assert_eq!(events(&log), ["before fill", "before total"]);
    // The results of the pairs run as expected reach the program unchanged, without the
    // observer; it is told them, in order and named, with the loops, before its next hook.
    assert_eq!(pair(&mut ops, 2.0), 2.0 * first);
    assert_eq!(pair(&mut ops, 3.0), 3.0 * first);
    assert_eq!(events(&log), Vec::<String>::new());
    let fetched = ops.fetch_data(&a).unwrap();
    assert_eq!(fetched[1], 3.0 * 10.0);
    let told = format!(
        "ran 4 with 2 3, sum = {first}, sum = {}, sum = {}",
        2.0 * first,
        3.0 * first
    );
    assert_eq!(events(&log), [told.as_str(), "query"]);
    // A result asked for after the last loop expected is kept too, and told before the loop
    // after it is shown; once the expectation ended, results are shown again.
    assert_eq!(pair(&mut ops, 4.0), 4.0 * first);
    fill_scaled_once(&mut ops, &grid, &a, &pt, 5.0);
    let told = format!("ran 2 with 4, sum = {}", 4.0 * first);
    assert_eq!(events(&log), [told.as_str(), "before fill"]);
    ops.reduction_result(&sum).unwrap();
    assert_eq!(events(&log), ["query"]);
}
