//! Every `par_loop` validation error, each its own variant, with messages naming the loop, the
//! argument, the kernel parameter, the dataset and the stencil.

mod common;

use common::*;
use ops_backends::prelude::*;
use ops_core::kernel::{Access as A, ElemType, Param, ParamKind, ReduceOp as R};

struct World {
    ops: Ops,
    grid: Block,
    other: Block,
    a: Dat<f64>,
    b: Dat<f64>,
    i: Dat<i32>,
    v2: Dat<f64>,
    col: Dat<f64>,
    o: Dat<f64>,
    pt: Stencil,
    five: Stencil,
    pt3: Stencil,
    strided: Stencil,
}

fn world() -> World {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let grid = ops.block("grid", 2).unwrap();
    let other = ops.block("other", 2).unwrap();
    let h = Halo::new([-1, -1], [1, 1]);
    let a = ops
        .dat_with(
            &grid,
            "a",
            DatSpec::<f64, 2>::new([8, 8]).halo(h).init(&[1.0; 64]),
        )
        .unwrap();
    let b = ops.dat::<f64, 2>(&grid, "b", [8, 8], h).unwrap();
    let i = ops.dat::<i32, 2>(&grid, "i", [8, 8], h).unwrap();
    let v2 = ops
        .dat_with(&grid, "v2", DatSpec::<f64, 2>::new([8, 8]).components(2))
        .unwrap();
    let col = ops
        .dat::<f64, 2>(&grid, "col", [8, 1], Halo::none())
        .unwrap();
    let o = ops.dat::<f64, 2>(&other, "o", [8, 8], h).unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let five = ops
        .stencil("five", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])
        .unwrap();
    let pt3 = ops.stencil("pt3", &[[0, 0, 0]]).unwrap();
    let strided = ops.strided_stencil("strided_x", &[[0, 0]], [1, 0]).unwrap();
    World {
        ops,
        grid,
        other,
        a,
        b,
        i,
        v2,
        col,
        o,
        pt,
        five,
        pt3,
        strided,
    }
}

/// Asserts that the message names every item of `names`.
fn names(e: &OpsError, names: &[&str]) {
    let m = e.to_string();
    for n in names {
        assert!(m.contains(n), "message {m:?} does not name {n:?}");
    }
}

const R88: [std::ops::Range<i32>; 2] = [0..8, 0..8];

#[test]
fn arg_count() {
    let mut w = world();
    let e = w
        .ops
        .par_loop(Copy, "cp", &w.grid, R88, &[w.a.arg(&w.pt, Read)])
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::ArgCount {
                expected: 2,
                got: 1,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`cp`", "`copy`", "2", "1"]);
}

#[test]
fn arg_kind() {
    let mut w = world();
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[Arg::global(1.0f64), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(matches!(e, OpsError::ArgKind { arg: 0, .. }), "{e:?}");
    names(&e, &["`cp`", "argument 0", "`src`", "dataset", "global"]);
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), Arg::idx()],
        )
        .unwrap_err();
    assert!(matches!(e, OpsError::ArgKind { arg: 1, .. }), "{e:?}");
    let s = w.ops.reduction::<f64>("s", ReduceOp::Sum);
    let e = w
        .ops
        .par_loop(
            SumMin,
            "sm",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), s.arg(), Arg::global(0.0)],
        )
        .unwrap_err();
    assert!(matches!(e, OpsError::ArgKind { arg: 2, .. }), "{e:?}");
    names(&e, &["`m`", "reduction (Min)", "global constant"]);
}

#[test]
fn access_mismatch() {
    let mut w = world();
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, ReadWrite), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::AccessMismatch {
                arg: 0,
                expected: A::Read,
                got: A::ReadWrite,
                ..
            }
        ),
        "{e:?}"
    );
    names(
        &e,
        &["`cp`", "argument 0", "`src`", "`a`", "ReadWrite", "Read"],
    );
    // Exact equality: Write where ReadWrite is declared is an error too.
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), w.b.arg(&w.pt, Inc)],
        )
        .unwrap_err();
    assert!(
        matches!(e, OpsError::AccessMismatch { arg: 1, .. }),
        "{e:?}"
    );
}

#[test]
fn type_mismatch() {
    let mut w = world();
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[w.i.arg(&w.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::TypeMismatch {
                arg: 0,
                expected: ElemType::F64,
                got: ElemType::I32,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`cp`", "argument 0", "`src`", "`i`", "i32", "f64"]);
    let k = Generic::new(
        "g",
        vec![Param {
            kind: ParamKind::Global,
            ..dat("gamma", A::Read, ElemType::F64, &[], 0)
        }],
    );
    let e = w
        .ops
        .par_loop(&k, "glob", &w.grid, R88, &[Arg::global(1.4f32)])
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::TypeMismatch {
                arg: 0,
                got: ElemType::F32,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`glob`", "`gamma`", "f32"]);
    let s = w.ops.reduction::<i32>("isum", ReduceOp::Sum);
    let m = w.ops.reduction::<f64>("m", ReduceOp::Min);
    let e = w
        .ops
        .par_loop(
            SumMin,
            "sm",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), s.arg(), m.arg()],
        )
        .unwrap_err();
    assert!(matches!(e, OpsError::TypeMismatch { arg: 1, .. }), "{e:?}");
    names(&e, &["`sm`", "`s`", "`isum`"]);
}

#[test]
fn reduce_op_mismatch() {
    let mut w = world();
    let s = w.ops.reduction::<f64>("s", ReduceOp::Sum);
    let m = w.ops.reduction::<f64>("the_max", ReduceOp::Max);
    let e = w
        .ops
        .par_loop(
            SumMin,
            "sm",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), s.arg(), m.arg()],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::ReduceOpMismatch {
                arg: 2,
                expected: R::Min,
                got: R::Max,
                ..
            }
        ),
        "{e:?}"
    );
    names(
        &e,
        &["`sm`", "argument 2", "`m`", "`the_max`", "Max", "Min"],
    );
}

#[test]
fn dat_on_other_block() {
    let mut w = world();
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[w.o.arg(&w.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(
        matches!(e, OpsError::DatOnOtherBlock { arg: 0, .. }),
        "{e:?}"
    );
    names(&e, &["`cp`", "`src`", "`o`", "`other`", "`grid`"]);
    let _ = w.other;
}

#[test]
fn stencil_dims() {
    let mut w = world();
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt3, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::StencilDims {
                arg: 0,
                stencil_dims: 3,
                block_dims: 2,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`cp`", "`src`", "`pt3`", "`grid`"]);
}

#[test]
fn offset_dims() {
    let mut w = world();
    let k = Generic::new(
        "k3",
        vec![dat("x", A::Read, ElemType::F64, &[[0, 0, 0]], 3)],
    );
    let e = w
        .ops
        .par_loop(&k, "k3", &w.grid, R88, &[w.a.arg(&w.pt, Read)])
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::OffsetDims {
                offset_dims: 3,
                block_dims: 2,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`k3`", "`x`"]);
}

#[test]
fn offset_not_in_stencil() {
    let mut w = world();
    let e = w
        .ops
        .par_loop(
            Average5,
            "avg",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(
        matches!(e, OpsError::OffsetNotInStencil { arg: 0, .. }),
        "{e:?}"
    );
    names(&e, &["`avg`", "argument 0", "`a`", "`pt`", "(1, 0)"]);
    // A non-zero coordinate beyond the block's dimensions is never in the stencil.
    let k = Generic::new(
        "kz",
        vec![dat("x", A::Read, ElemType::F64, &[[0, 0, 1]], 0)],
    );
    let e = w
        .ops
        .par_loop(&k, "kz", &w.grid, R88, &[w.a.arg(&w.pt, Read)])
        .unwrap_err();
    assert!(matches!(e, OpsError::OffsetNotInStencil { .. }), "{e:?}");
}

#[test]
fn write_off_centre() {
    let mut w = world();
    let k = Generic::new(
        "wo",
        vec![dat("x", A::Write, ElemType::F64, &[[1, 0, 0]], 2)],
    );
    let e = w
        .ops
        .par_loop(&k, "wo", &w.grid, R88, &[w.b.arg(&w.five, Write)])
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::WriteOffCentre {
                access: A::Write,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`wo`", "`x`", "`b`", "(1, 0)"]);
}

#[test]
fn components() {
    let mut w = world();
    let k = Generic::new(
        "comps",
        vec![Param {
            components: 3,
            ..dat("vel", A::Read, ElemType::F64, &[[0, 0, 0]], 2)
        }],
    );
    let e = w
        .ops
        .par_loop(&k, "comps", &w.grid, R88, &[w.v2.arg(&w.pt, Read)])
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::Components {
                needed: 3,
                has: 2,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`comps`", "`vel`", "`v2`"]);
    // Fewer components than the dataset has is fine.
    let k1 = Generic::new(
        "c1",
        vec![dat("vel", A::Read, ElemType::F64, &[[0, 0, 0]], 2)],
    );
    w.ops
        .par_loop(&k1, "c1", &w.grid, R88, &[w.v2.arg(&w.pt, Read)])
        .unwrap();
}

#[test]
fn range_dims_and_inverted() {
    let mut w = world();
    let args = [w.a.arg(&w.pt, Read), w.b.arg(&w.pt, Write)];
    let e = w
        .ops
        .par_loop(Copy, "cp", &w.grid, 0..8, &args)
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::RangeDims {
                range_dims: 1,
                block_dims: 2,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`cp`", "`grid`"]);
    let inverted = IterRange::new(2, [0, 5, 0], [8, 3, 1]).unwrap();
    let e = w
        .ops
        .par_loop(Copy, "cp", &w.grid, inverted, &args)
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::RangeInverted {
                dim: 1,
                lo: 5,
                hi: 3,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`cp`", "5..3"]);
}

#[test]
fn range_outside_dat_vs_stencil_beyond_halo() {
    let mut w = world();
    // The range itself leaves `a` (extent -1..9): the range's fault.
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            [0..10, 0..8],
            &[w.a.arg(&w.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::RangeOutsideDat {
                arg: 0,
                dim: 0,
                lo: 0,
                hi: 10,
                ext_lo: -1,
                ext_hi: 9,
                ..
            }
        ),
        "{e:?}"
    );
    names(
        &e,
        &["`cp`", "argument 0", "`src`", "`a`", "0..10", "-1..9"],
    );
    // The range is inside, the 5-point stencil reaches past the halo: the stencil's fault.
    let e = w
        .ops
        .par_loop(
            Average5,
            "avg",
            &w.grid,
            [-1..9, 0..8],
            &[w.a.arg(&w.five, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::StencilBeyondHalo {
                arg: 0,
                dim: 0,
                lo: -2,
                hi: 10,
                ..
            }
        ),
        "{e:?}"
    );
    names(&e, &["`avg`", "argument 0", "`a`", "`five`", "-2..10"]);
    // Halo points themselves may be iterated over with a point stencil.
    w.ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            [-1..9, -1..9],
            &[w.a.arg(&w.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap();
    // And the full interior with the 5-point stencil is fine.
    w.ops
        .par_loop(
            Average5,
            "avg",
            &w.grid,
            R88,
            &[w.a.arg(&w.five, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap();
    // Empty ranges touch nothing, so they are accepted anywhere.
    w.ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            [100..100, 0..8],
            &[w.a.arg(&w.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap();
}

#[test]
fn aliased() {
    let mut w = world();
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), w.a.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            OpsError::Aliased {
                arg: 1,
                other_arg: 0,
                access: A::Write,
                ..
            }
        ),
        "{e:?}"
    );
    names(
        &e,
        &["`cp`", "argument 1", "`dst`", "`a`", "argument 0", "`src`"],
    );
    // Reading one dataset twice is fine.
    let k = Generic::new(
        "rr",
        vec![
            dat("x", A::Read, ElemType::F64, &[[0, 0, 0]], 2),
            dat("y", A::Read, ElemType::F64, &[[1, 0, 0]], 2),
            dat("z", A::Write, ElemType::F64, &[[0, 0, 0]], 2),
        ],
    );
    w.ops
        .par_loop(
            &k,
            "rr",
            &w.grid,
            R88,
            &[
                w.a.arg(&w.pt, Read),
                w.a.arg(&w.five, Read),
                w.b.arg(&w.pt, Write),
            ],
        )
        .unwrap();
}

#[test]
fn strided_write() {
    let mut w = world();
    let k = Generic::new(
        "sw",
        vec![
            dat("x", A::Read, ElemType::F64, &[[0, 0, 0]], 2),
            dat("c", A::Inc, ElemType::F64, &[[0, 0, 0]], 2),
        ],
    );
    let e = w
        .ops
        .par_loop(
            &k,
            "sw",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), w.col.arg(&w.strided, Inc)],
        )
        .unwrap_err();
    assert!(
        matches!(e, OpsError::StridedWrite { arg: 1, dim: 1, .. }),
        "{e:?}"
    );
    names(&e, &["`sw`", "`c`", "`col`", "`strided_x`"]);
    // One row: no two iteration points share an element.
    w.ops
        .par_loop(
            &k,
            "sw",
            &w.grid,
            [0..8, 3..4],
            &[w.a.arg(&w.pt, Read), w.col.arg(&w.strided, Inc)],
        )
        .unwrap();
    assert_eq!(w.ops.fetch_data(&w.col).unwrap(), vec![1.0; 8]);
}

#[test]
fn foreign_handles() {
    let mut w = world();
    let mut x = world();
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[x.a.arg(&w.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(matches!(e, OpsError::ForeignHandle { .. }), "{e:?}");
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &w.grid,
            R88,
            &[w.a.arg(&x.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(matches!(e, OpsError::ForeignHandle { .. }), "{e:?}");
    let e = w
        .ops
        .par_loop(
            Copy,
            "cp",
            &x.grid,
            R88,
            &[w.a.arg(&w.pt, Read), w.b.arg(&w.pt, Write)],
        )
        .unwrap_err();
    assert!(matches!(e, OpsError::ForeignHandle { .. }), "{e:?}");
    let s = x.ops.reduction::<f64>("s", ReduceOp::Sum);
    let m = w.ops.reduction::<f64>("m", ReduceOp::Min);
    assert!(matches!(
        w.ops.reduction_result(&s),
        Err(OpsError::ForeignHandle { .. })
    ));
    let e = w
        .ops
        .par_loop(
            SumMin,
            "sm",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), s.arg(), m.arg()],
        )
        .unwrap_err();
    assert!(matches!(e, OpsError::ForeignHandle { .. }), "{e:?}");
    x.ops.fetch_data(&x.a).unwrap();
}

#[test]
fn failed_validation_runs_nothing() {
    let mut w = world();
    let s = w.ops.reduction::<f64>("s", ReduceOp::Sum);
    let m = w.ops.reduction::<f64>("m", ReduceOp::Max);
    // Argument 2 is wrong; arguments 0 and 1 must not have been used.
    assert!(w
        .ops
        .par_loop(
            SumMin,
            "sm",
            &w.grid,
            R88,
            &[w.a.arg(&w.pt, Read), s.arg(), m.arg()]
        )
        .is_err());
    assert_eq!(w.ops.reduction_result(&s).unwrap(), 0.0);
    assert!(w.ops.profile().is_empty());
}
