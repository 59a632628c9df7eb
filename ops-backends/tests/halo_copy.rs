//! A dataset may be read and written by one loop when the read box and the written box are
//! disjoint (reflective halo copies), and is still rejected when they overlap.

use ops_backends::prelude::*;

#[kernel]
fn reflect_bottom(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = -src[(0, 1)];
}

fn setup(backend: BackendKind) -> (Ops, Block, Dat<f64>, Stencil, Stencil) {
    let mut ops = ops_from_config(OpsConfig::new(backend).with_threads(Some(2))).unwrap();
    let grid = ops.block("grid", 2).unwrap();
    let init: Vec<f64> = (0..16).map(f64::from).collect();
    let d = ops
        .dat_with(
            &grid,
            "d",
            DatSpec::new([4, 4])
                .halo(Halo::new([-1, -1], [1, 1]))
                .init(&init),
        )
        .unwrap();
    let up = ops.stencil("S2D_0P1", &[[0, 1]]).unwrap();
    let point = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
    (ops, grid, d, up, point)
}

#[test]
fn disjoint_read_and_write_of_one_dataset_runs() {
    for backend in [BackendKind::Seq, BackendKind::Rayon] {
        let (mut ops, grid, d, up, point) = setup(backend);
        ops.par_loop(
            reflect_bottom,
            "reflect_bottom",
            &grid,
            [0..4, -1..0],
            &[d.arg(&up, Read), d.arg(&point, Write)],
        )
        .unwrap();
        let halo_row = ops.fetch_range(&d, [0..4, -1..0]).unwrap();
        assert_eq!(halo_row, vec![-0.0, -1.0, -2.0, -3.0]);
    }
}

#[test]
fn overlapping_read_and_write_of_one_dataset_is_rejected() {
    let (mut ops, grid, d, up, point) = setup(BackendKind::Rayon);
    let err = ops
        .par_loop(
            reflect_bottom,
            "reflect_bottom",
            &grid,
            [0..4, -1..1],
            &[d.arg(&up, Read), d.arg(&point, Write)],
        )
        .unwrap_err();
    assert!(matches!(err, OpsError::Aliased { .. }), "{err}");
    assert!(err.to_string().contains("reflect_bottom"), "{err}");
}
