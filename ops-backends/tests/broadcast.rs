//! Arguments that stay still along x (per-row arrays read through a `[0, 1]`-strided stencil)
//! give the same values on the generated code's broadcast path as computed by hand.

use ops_backends::prelude::*;

#[kernel]
fn blend(a: Read<f64>, row: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = a[(0, 0)] * row[(0, 0)] + row[(0, 1)] - 0.5 * row[(0, -1)];
}

#[test]
fn per_row_array_with_several_offsets() {
    let (nx, ny) = (19usize, 7usize);
    for backend in [BackendKind::Seq, BackendKind::Rayon] {
        let mut ops = ops_from_config(OpsConfig::new(backend).with_threads(Some(2))).unwrap();
        let grid = ops.block("grid", 2).unwrap();
        let a_init: Vec<f64> = (0..nx * ny).map(|i| i as f64 * 0.25).collect();
        let a = ops
            .dat_with(&grid, "a", DatSpec::new([nx, ny]).init(&a_init))
            .unwrap();
        let rows: Vec<f64> = (0..ny).map(|j| 3.0 + j as f64).collect();
        let halo = Halo::new([0, -1], [0, 1]);
        let row = ops
            .dat_with(&grid, "row", DatSpec::new([1, ny]).halo(halo).init(&rows))
            .unwrap();
        // Halo values of the row array: -1 below, 100 above.
        ops.set_range(&row, [0..1, -1..0], &[-1.0]).unwrap();
        ops.set_range(&row, [0..1, ny as i32..ny as i32 + 1], &[100.0])
            .unwrap();
        let b = ops
            .dat::<f64, 2>(&grid, "b", [nx, ny], Halo::none())
            .unwrap();
        let point = ops.stencil("S2D_00", &[[0, 0]]).unwrap();
        let rst = ops
            .strided_stencil("S2D_ROW", &[[0, 0], [0, 1], [0, -1]], [0, 1])
            .unwrap();
        ops.par_loop(
            blend,
            "blend",
            &grid,
            [0..nx as i32, 0..ny as i32],
            &[
                a.arg(&point, Read),
                row.arg(&rst, Read),
                b.arg(&point, Write),
            ],
        )
        .unwrap();
        let got = ops.fetch_data(&b).unwrap();
        let r = |j: i64| match j {
            -1 => -1.0,
            j if j == ny as i64 => 100.0,
            j => rows[j as usize],
        };
        for j in 0..ny {
            for i in 0..nx {
                let want =
                    a_init[j * nx + i] * r(j as i64) + r(j as i64 + 1) - 0.5 * r(j as i64 - 1);
                assert_eq!(
                    got[j * nx + i].to_bits(),
                    want.to_bits(),
                    "{backend} at ({i}, {j})"
                );
            }
        }
    }
}
