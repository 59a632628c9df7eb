//! Boundary fills (`Ops::fill_halo`) against an oracle written from each condition's definition
//! (an index map per face, not the runtime's per-layer offsets): every condition, every face of
//! 1-, 2- and 3-D datasets with uneven halos, every depth, on `seq`, `rayon` and `wgpu`, all
//! bitwise (a fill only copies, negates or sets). Also: multi-component `i32` data, the errors,
//! and what an observer sees of a fill.

mod wgpu_support;

use std::ops::Range;

use ops_backends::prelude::*;
use ops_core::{LoopAction, LoopObserver, LoopPlan, Runtime};

/// Interior sizes and halo depths (lower, upper) per dimension.
const SIZE: [i32; 3] = [5, 4, 4];
const NEG: [i32; 3] = [3, 2, 3];
const POS: [i32; 3] = [2, 3, 2];

fn conditions() -> Vec<Boundary<f64>> {
    vec![
        Boundary::Copy,
        Boundary::REFLECT,
        Boundary::Reflect {
            centring: Centring::Cell,
            negate: true,
        },
        Boundary::Reflect {
            centring: Centring::Node,
            negate: true,
        },
        Boundary::Reflect {
            centring: Centring::Node,
            negate: false,
        },
        Boundary::Fixed(-7.25),
        Boundary::Periodic,
    ]
}

/// The interior index (along the face's dimension) whose value halo index `i` takes.
fn source_of(bc: &Boundary<f64>, upper: bool, i: i32, n: i32) -> i32 {
    match (bc, upper) {
        (Boundary::Copy | Boundary::Fixed(_), false) => 0,
        (Boundary::Copy | Boundary::Fixed(_), true) => n - 1,
        (
            Boundary::Reflect {
                centring: Centring::Cell,
                ..
            },
            false,
        ) => -1 - i,
        (
            Boundary::Reflect {
                centring: Centring::Cell,
                ..
            },
            true,
        ) => 2 * n - 1 - i,
        (Boundary::Reflect { .. }, false) => -i,
        (Boundary::Reflect { .. }, true) => 2 * (n - 1) - i,
        (Boundary::Periodic, _) => i.rem_euclid(n),
    }
}

/// Every stored point of a `dims`-D dataset, x fastest.
fn extent(dims: usize) -> Vec<Range<i32>> {
    (0..dims).map(|d| -NEG[d]..SIZE[d] + POS[d]).collect()
}

/// The same, as a range.
fn whole(dims: usize) -> IterRange {
    let e = extent(dims);
    let r = |d: usize| e.get(d).cloned().unwrap_or(0..1);
    IterRange::new(
        dims,
        [r(0).start, r(1).start, r(2).start],
        [r(0).end, r(1).end, r(2).end],
    )
    .expect("a valid range")
}

fn points(dims: usize) -> Vec<[i32; 3]> {
    let e = extent(dims);
    let r = |d: usize| e.get(d).cloned().unwrap_or(0..1);
    let mut pts = Vec::new();
    for z in r(2) {
        for y in r(1) {
            for x in r(0) {
                pts.push([x, y, z]);
            }
        }
    }
    pts
}

/// What `before` becomes after filling `depth` layers of `face` with `bc`.
fn oracle(dims: usize, before: &[f64], face: Face, depth: i32, bc: &Boundary<f64>) -> Vec<f64> {
    let pts = points(dims);
    let index = |p: [i32; 3]| pts.iter().position(|q| *q == p).expect("a stored point");
    let d = face.dim();
    let n = SIZE[d];
    let mut after = before.to_vec();
    for (k, p) in pts.iter().enumerate() {
        let i = p[d];
        let in_layers = if face.is_upper() {
            i >= n && i < n + depth
        } else {
            i < 0 && i >= -depth
        };
        let in_span = (0..dims)
            .filter(|&e| e != d)
            .all(|e| p[e] >= -depth.min(NEG[e]) && p[e] < SIZE[e] + depth.min(POS[e]));
        if !(in_layers && in_span) {
            continue;
        }
        let mut q = *p;
        q[d] = source_of(bc, face.is_upper(), i, n);
        after[k] = match bc {
            Boundary::Fixed(v) => *v,
            Boundary::Reflect { negate: true, .. } => -before[index(q)],
            _ => before[index(q)],
        };
    }
    after
}

/// Distinct, signed values at every stored point.
fn initial(dims: usize) -> Vec<f64> {
    (0..points(dims).len())
        .map(|k| (k as f64 * 1.25 + 0.5) * if k % 3 == 0 { -1.0 } else { 1.0 })
        .collect()
}

/// Declares a `dims`-D dataset holding `values` at every stored point.
fn dataset(ops: &mut Ops, dims: usize, values: &[f64]) -> Dat<f64> {
    let b = ops.block(&format!("b{dims}"), dims).unwrap();
    let u = match dims {
        1 => ops.dat::<f64, 1>(&b, "u", [5], Halo::new([-3], [2])),
        2 => ops.dat::<f64, 2>(&b, "u", [5, 4], Halo::new([-3, -2], [2, 3])),
        _ => ops.dat::<f64, 3>(&b, "u", [5, 4, 4], Halo::new([-3, -2, -3], [2, 3, 2])),
    }
    .unwrap();
    let range = whole(dims);
    ops.set_range(&u, range, values).unwrap();
    u
}

/// Every condition on every face at every depth of 1-, 2- and 3-D datasets: the fill gives
/// the oracle's values bitwise, and touches nothing else.
fn every_fill_matches_the_oracle(mut make: impl FnMut() -> Ops) {
    let mut checked = 0;
    for dims in 1..=3 {
        let before = initial(dims);
        let mut ops = make();
        let u = dataset(&mut ops, dims, &before);
        for bc in conditions() {
            for face in Face::all(dims) {
                let halo = if face.is_upper() {
                    POS[face.dim()]
                } else {
                    NEG[face.dim()]
                };
                for depth in 1..=halo {
                    ops.set_range(&u, whole(dims), &before).unwrap();
                    ops.fill_halo(&u, face, depth, bc).unwrap();
                    let got = ops.fetch_range(&u, whole(dims)).unwrap();
                    let want = oracle(dims, &before, face, depth, &bc);
                    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(
                            g.to_bits(),
                            w.to_bits(),
                            "{} {dims}-D {bc:?} {face} depth {depth}: point {:?} is {g}, \
                             should be {w}",
                            ops.backend_name(),
                            points(dims)[k]
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    // 7 conditions x (1-D: 5 depths, 2-D: 10, 3-D: 15).
    assert_eq!(checked, 7 * 30);
}

#[test]
fn fills_on_seq_match_the_oracle() {
    every_fill_matches_the_oracle(|| ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap());
}

#[test]
fn fills_on_rayon_match_the_oracle() {
    every_fill_matches_the_oracle(|| {
        ops_from_config(OpsConfig::new(BackendKind::Rayon).with_threads(Some(2))).unwrap()
    });
}

#[test]
fn fills_on_wgpu_match_the_oracle() {
    if wgpu_support::backend().is_none() {
        return;
    }
    every_fill_matches_the_oracle(|| wgpu_support::ops().expect("a device"));
}

/// `fill_halos` on every face of 2- and 3-D datasets: every point within `depth` of the
/// interior in every dimension holds what the condition implies dimension by dimension (edges
/// and corners included: a periodic corner is the opposite interior corner, a negated mirror
/// flips the sign once per dimension the point lies outside), and nothing else changes.
#[test]
fn fill_halos_gives_edges_and_corners_as_the_condition_implies() {
    let mut checked = 0;
    for dims in 2..=3 {
        let before = initial(dims);
        let pts = points(dims);
        let index = |p: [i32; 3]| pts.iter().position(|q| *q == p).expect("a stored point");
        let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
        let u = dataset(&mut ops, dims, &before);
        for bc in conditions() {
            for depth in 1..=2 {
                ops.set_range(&u, whole(dims), &before).unwrap();
                ops.fill_halos(&u, depth, bc).unwrap();
                let got = ops.fetch_range(&u, whole(dims)).unwrap();
                for (k, p) in pts.iter().enumerate() {
                    let within = (0..dims).all(|d| p[d] >= -depth && p[d] < SIZE[d] + depth);
                    let outside: Vec<usize> =
                        (0..dims).filter(|&d| p[d] < 0 || p[d] >= SIZE[d]).collect();
                    let want = if !within || outside.is_empty() {
                        before[k]
                    } else if let Boundary::Fixed(v) = bc {
                        v
                    } else {
                        let mut q = *p;
                        for &d in &outside {
                            q[d] = source_of(&bc, p[d] >= SIZE[d], p[d], SIZE[d]);
                        }
                        let flips = matches!(bc, Boundary::Reflect { negate: true, .. })
                            && outside.len() % 2 == 1;
                        if flips {
                            -before[index(q)]
                        } else {
                            before[index(q)]
                        }
                    };
                    assert_eq!(
                        got[k].to_bits(),
                        want.to_bits(),
                        "{dims}-D {bc:?} depth {depth}: point {p:?} is {}, should be {want}",
                        got[k]
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 7 * 2);
}

/// An `i32` dataset with two components: every component is copied (or negated, or set).
#[test]
fn every_component_of_an_integer_dataset_is_filled() {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let g = ops.block("g", 2).unwrap();
    let init: Vec<i32> = (0..2 * 5 * 4).collect();
    let v = ops
        .dat_with(
            &g,
            "v",
            DatSpec::<i32, 2>::new([5, 4])
                .components(2)
                .halo(Halo::uniform(1))
                .init(&init),
        )
        .unwrap();
    let node_negated = Boundary::Reflect {
        centring: Centring::Node,
        negate: true,
    };
    ops.fill_halo(&v, Face::X_LO, 1, node_negated).unwrap();
    ops.fill_halo(&v, Face::X_HI, 1, Boundary::Periodic)
        .unwrap();
    ops.fill_halo(&v, Face::Y_LO, 1, Boundary::Fixed(-9))
        .unwrap();
    // Row y = 1 (the second row of 5 points, 2 components each).
    let row = ops.fetch_range(&v, [-1..6, 1..2]).unwrap();
    let at = |x: i32| init[((5 + x) * 2) as usize];
    assert_eq!(
        &row[0..2],
        &[-at(1), -(at(1) + 1)],
        "x- mirrors node 1, negated"
    );
    assert_eq!(&row[12..14], &[at(0), at(0) + 1], "x+ wraps to x = 0");
    assert_eq!(
        ops.fetch_range(&v, [-1..6, -1..0]).unwrap(),
        vec![-9; 14],
        "y- fixed, corners included"
    );
}

/// Bad fills are refused before anything runs, naming the dataset, the face and the reason.
#[test]
fn a_bad_fill_names_the_dataset_the_face_and_the_reason() {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let g = ops.block("g", 2).unwrap();
    let u = ops
        .dat::<f64, 2>(&g, "pressure", [2, 8], Halo::new([-3, -1], [0, 0]))
        .unwrap();
    let node_mirror = Boundary::Reflect {
        centring: Centring::Node,
        negate: false,
    };
    let cases: [(Face, i32, Boundary<f64>, &str); 5] = [
        (Face::Z_LO, 1, Boundary::Copy, "has 2 dimension(s)"),
        (Face::X_LO, 0, Boundary::Copy, "depth 0"),
        (Face::Y_HI, 1, Boundary::Copy, "0 deep"),
        (Face::X_LO, 4, Boundary::Periodic, "3 deep"),
        (
            Face::X_LO,
            3,
            node_mirror,
            "would fill x = -2 from x = 2, outside the points the dataset stores (-3 to 1)",
        ),
    ];
    for (face, depth, bc, why) in cases {
        let e = ops.fill_halo(&u, face, depth, bc).unwrap_err().to_string();
        assert!(
            e.contains("`pressure`") && e.contains(&format!("face {face}")) && e.contains(why),
            "{face} {depth} {bc:?}: {e}"
        );
    }
    // A mirror as deep as the interior, and a period shorter than the depth (it wraps through
    // the layers already filled), run.
    let v: Vec<f64> = (0..16).map(f64::from).collect();
    ops.set_data(&u, &v).unwrap();
    ops.fill_halo(&u, Face::X_LO, 2, Boundary::REFLECT).unwrap();
    let e = ops.fill_halo(&u, Face::X_LO, 3, Boundary::Periodic);
    assert!(e.is_ok(), "{e:?}");
    assert_eq!(
        ops.fetch_range(&u, [-3..2, 0..1]).unwrap(),
        [1.0, 0.0, 1.0, 0.0, 1.0],
        "x = -1, -2, -3 hold x = 1, 0, 1"
    );
}

/// What an observer (the resilience tracker) sees of a fill: one loop per layer, reading
/// exactly the interior column the layer mirrors and writing exactly the layer.
#[test]
fn an_observer_sees_each_layer_as_a_loop_with_its_exact_boxes() {
    #[derive(Default)]
    struct Seen(Vec<(String, Vec<IterRange>, Vec<IterRange>)>);
    impl LoopObserver for Seen {
        fn before_loop(&mut self, _rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
            let (mut reads, mut writes) = (Vec::new(), Vec::new());
            for a in plan.args() {
                if let ops_core::ArgPlan::Dat(d) = a {
                    reads.extend(d.observed(&plan.range));
                    writes.extend(d.written(&plan.range));
                }
            }
            self.0.push((plan.name.to_string(), reads, writes));
            LoopAction::Run
        }
    }
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let g = ops.block("g", 2).unwrap();
    let u = ops
        .dat::<f64, 2>(&g, "u", [5, 4], Halo::uniform(2))
        .unwrap();
    ops.set_observer(Some(Box::new(Seen::default())));
    ops.fill_halo(&u, Face::X_LO, 2, Boundary::REFLECT).unwrap();
    ops.fill_halo(&u, Face::Y_HI, 1, Boundary::Periodic)
        .unwrap();
    let seen = &ops.observer_mut::<Seen>().unwrap().0;
    let r = |x: Range<i32>, y: Range<i32>| IterRange::from([x, y]);
    let want = vec![
        (
            "fill_halo u x- reflect 1".to_string(),
            vec![r(0..1, -2..6)],
            vec![r(-1..0, -2..6)],
        ),
        (
            "fill_halo u x- reflect 2".to_string(),
            vec![r(1..2, -2..6)],
            vec![r(-2..-1, -2..6)],
        ),
        (
            "fill_halo u y+ periodic 1".to_string(),
            vec![r(-1..6, 0..1)],
            vec![r(-1..6, 4..5)],
        ),
    ];
    assert_eq!(seen, &want);
    let profile = ops.profile();
    let row = profile.iter().find(|p| p.name == "fill_halo").unwrap();
    assert_eq!(row.calls, 3, "every layer is profiled under one row");
}
