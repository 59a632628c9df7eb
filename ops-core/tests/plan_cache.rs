//! Validated plans remembered by call site (`LoopPlan::shape`): a repeated call reuses its plan
//! and keeps its number, a global constant's new value still reaches the kernel, another shape
//! gets another number, and a freed dataset or a foreign block is refused however often the
//! loop ran before.

use std::sync::{Arc, Mutex};

use ops_backends::prelude::*;
use ops_core::{LoopAction, LoopObserver, LoopPlan, Runtime};

#[kernel]
fn scale(a: Read<f64>, b: Write<f64>, k: Global<f64>) {
    b[(0, 0)] = k * a[(0, 0)];
}

/// Every loop's shape number and its plan (as text), in order.
type Seen = Arc<Mutex<Vec<(Option<u32>, String)>>>;

/// Records every loop's shape number and plan.
struct Shapes(Seen);

impl LoopObserver for Shapes {
    fn before_loop(&mut self, _rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        let plan_text = format!(
            "{} {:?} {:?} {} {} {}",
            plan.name,
            plan.range,
            plan.args(),
            plan.bytes,
            plan.unit_x,
            plan.has_reductions
        );
        self.0.lock().unwrap().push((plan.shape, plan_text));
        LoopAction::Run
    }
}

struct Setup {
    ops: Ops,
    grid: Block,
    a: Dat<f64>,
    b: Dat<f64>,
    c: Dat<f64>,
    pt: Stencil,
    seen: Seen,
}

fn setup() -> Setup {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    ops.set_observer(Some(Box::new(Shapes(seen.clone()))));
    let grid = ops.block("grid", 2).unwrap();
    let h = Halo::uniform(1);
    let a = ops.dat::<f64, 2>(&grid, "a", [4, 4], h).unwrap();
    let b = ops.dat::<f64, 2>(&grid, "b", [4, 4], h).unwrap();
    let c = ops.dat::<f64, 2>(&grid, "c", [4, 4], h).unwrap();
    let pt = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    ops.set_data(&a, &[1.0; 16]).unwrap();
    Setup {
        ops,
        grid,
        a,
        b,
        c,
        pt,
        seen,
    }
}

impl Setup {
    /// One call site for every call: `scale` from `from` into `to` by `k` over `range`.
    fn run(
        &mut self,
        from: Dat<f64>,
        to: Dat<f64>,
        k: f64,
        range: [std::ops::Range<i32>; 2],
    ) -> Result<()> {
        let args = [
            from.arg(&self.pt, Read),
            to.arg(&self.pt, Write),
            Arg::global(k),
        ];
        self.ops.par_loop(scale, "scale", &self.grid, range, &args)
    }

    fn seen(&self) -> Vec<(Option<u32>, String)> {
        self.seen.lock().unwrap().clone()
    }
}

#[test]
fn a_repeated_call_keeps_its_number_and_its_plan_with_the_new_constant() {
    let mut s = setup();
    let (a, b) = (s.a, s.b);
    s.run(a, b, 2.0, [0..4, 0..4]).unwrap();
    s.run(a, b, 3.0, [0..4, 0..4]).unwrap();
    let seen = s.seen();
    assert!(seen[0].0.is_some(), "the first call is numbered");
    assert_eq!(seen[0].0, seen[1].0, "the same shape keeps its number");
    // The remembered plan is the validated one, with this call's constant.
    assert_eq!(seen[1].1, seen[0].1.replace("F64(2.0)", "F64(3.0)"));
    assert_ne!(seen[0].1, seen[1].1);
    assert_eq!(s.ops.fetch_data(&b).unwrap(), vec![3.0; 16]);
}

#[test]
fn another_dataset_or_range_is_another_shape() {
    let mut s = setup();
    let (a, b, c) = (s.a, s.b, s.c);
    s.run(a, b, 2.0, [0..4, 0..4]).unwrap();
    s.run(a, c, 2.0, [0..4, 0..4]).unwrap();
    s.run(a, b, 2.0, [0..2, 0..4]).unwrap();
    s.run(a, b, 2.0, [0..4, 0..4]).unwrap();
    s.run(a, c, 2.0, [0..4, 0..4]).unwrap();
    let n: Vec<u32> = s.seen().iter().map(|(n, _)| n.unwrap()).collect();
    assert_eq!(n[3], n[0]);
    assert_eq!(n[4], n[1]);
    assert!(n[0] != n[1] && n[1] != n[2] && n[0] != n[2], "{n:?}");
}

#[test]
fn a_freed_dataset_is_refused_however_often_the_loop_ran() {
    let mut s = setup();
    let (a, b, c) = (s.a, s.b, s.c);
    for _ in 0..3 {
        s.run(a, b, 2.0, [0..4, 0..4]).unwrap();
    }
    s.run(a, c, 2.0, [0..4, 0..4]).unwrap();
    let into_c = s.seen()[3].0;
    s.ops.free_dat(&b).unwrap();
    let e = s.run(a, b, 2.0, [0..4, 0..4]).unwrap_err();
    // Refused by validation, before the loop reaches the observer or the backend.
    assert!(matches!(e, OpsError::ForeignHandle { .. }), "{e}");
    assert_eq!(s.seen().len(), 4, "the refused loop reached the observer");
    // A shape that does not pass the freed dataset keeps its plan and its number.
    s.run(a, c, 2.0, [0..4, 0..4]).unwrap();
    assert_eq!(s.seen()[4].0, into_c);
}

#[test]
fn a_foreign_block_is_refused_at_a_site_that_ran_before() {
    let mut s = setup();
    let (a, b) = (s.a, s.b);
    s.run(a, b, 2.0, [0..4, 0..4]).unwrap();
    // Another runtime's first block has the same number as this one's.
    let mut other = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let foreign = other.block("grid", 2).unwrap();
    s.grid = foreign;
    let e = s.run(a, b, 2.0, [0..4, 0..4]).unwrap_err();
    assert!(matches!(e, OpsError::ForeignHandle { .. }), "{e}");
}

#[test]
fn a_site_and_name_with_more_shapes_than_it_keeps_still_validates_every_call() {
    let mut s = setup();
    let (a, b) = (s.a, s.b);
    // 80 ranges from one call site under one name (the halo is 1 wide): more shapes than a
    // site keeps per loop name (64).
    let mut ranges: Vec<[std::ops::Range<i32>; 2]> = Vec::new();
    for x_lo in [-1, 0] {
        for y_lo in [-1, 0] {
            for x_hi in 1..=5 {
                for y_hi in 1..=5 {
                    ranges.push([x_lo..x_hi, y_lo..y_hi]);
                }
            }
        }
    }
    ranges.truncate(80);
    let distinct: std::collections::HashSet<_> = ranges.iter().cloned().collect();
    for r in &ranges {
        s.run(a, b, 2.0, r.clone()).unwrap();
    }
    for r in &ranges {
        s.run(a, b, 2.0, r.clone()).unwrap();
    }
    let seen = s.seen();
    let (first, second) = seen.split_at(ranges.len());
    // The same shape has the same plan whether remembered or validated again.
    for (x, y) in first.iter().zip(second) {
        assert_eq!(x.1, y.1);
    }
    let numbers: std::collections::HashSet<_> = first.iter().map(|(n, _)| n.unwrap()).collect();
    assert_eq!(numbers.len(), distinct.len(), "one number per shape");
    // A bad call at that site is still refused.
    let e = s.run(a, b, 2.0, [0..9, 0..4]).unwrap_err();
    assert!(matches!(e, OpsError::RangeOutsideDat { .. }), "{e}");
}

/// A helper run for many fields and faces from one call site, naming each call (a boundary
/// fill): every name keeps its shape, so a second round of the same calls reuses every plan
/// and number however many names the site runs.
#[test]
fn a_helper_site_keeps_a_shape_per_name() {
    let mut s = setup();
    let (a, b, grid, pt) = (s.a, s.b, s.grid, s.pt);
    let names: Vec<String> = (0..200)
        .map(|i| format!("fill field{} face{}", i / 4, i % 4))
        .collect();
    for _ in 0..2 {
        for n in &names {
            let args = [a.arg(&pt, Read), b.arg(&pt, Write), Arg::global(2.0)];
            s.ops
                .par_loop(scale, n, &grid, [0..4, 0..4], &args)
                .unwrap();
        }
    }
    let seen = s.seen();
    let (first, second) = seen.split_at(names.len());
    let numbers: Vec<_> = first.iter().map(|(n, _)| n.unwrap()).collect();
    assert_eq!(
        numbers,
        second.iter().map(|(n, _)| n.unwrap()).collect::<Vec<_>>(),
        "the second round reuses every shape's number"
    );
    let distinct: std::collections::HashSet<_> = numbers.iter().collect();
    assert_eq!(distinct.len(), names.len(), "one number per name");
}
