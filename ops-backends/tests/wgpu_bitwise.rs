//! The random stencil programs of `random_programs` (shared with `seq_rayon_bitwise.rs`) on the
//! wgpu backend, checking what docs/gpu.md promises: two wgpu runs agree bitwise (datasets,
//! halos included, and reductions); integer results agree with `seq` exactly; float datasets
//! and reductions agree with `seq` to [`PROGRAMS`] relative (the driver may fuse and reorder
//! float operations, and sums are added in another order).

use ops_backends::prelude::*;
use proptest::prelude::*;

mod random_programs;

use random_programs::{run, step, N};

mod wgpu_support;

fn seq() -> Ops {
    ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap()
}

/// What docs/gpu.md promises for programs: float values within this of `seq`'s, relative to
/// max(|a|, |b|, 1) (the programs' values are of order one). Measured on llvmpipe: at most
/// 9e-16 (a sum reduction) over 24 random programs.
const PROGRAMS: f64 = 1e-13;

/// Largest relative difference between two runs' datasets and float reductions (the
/// reductions are s, lo, hi, count per `Sums` step; the integer count compared exactly).
fn compare(a: &(Vec<u64>, Vec<u64>), b: &(Vec<u64>, Vec<u64>)) -> f64 {
    let mut worst = 0.0f64;
    for (x, y) in a.0.iter().zip(&b.0) {
        let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
        worst = worst.max(wgpu_support::rel(x, y, 1.0));
    }
    for (i, (x, y)) in a.1.iter().zip(&b.1).enumerate() {
        if i % 4 == 3 {
            assert_eq!(x, y, "count reduction differs");
        } else {
            let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
            worst = worst.max(wgpu_support::rel(x, y, 1.0));
        }
    }
    worst
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn wgpu_agrees_with_seq_and_with_itself(
        program in prop::collection::vec(step(), 1..14),
        seed in prop::collection::vec(-1.0..1.0f64, (N * N) as usize),
    ) {
        let Some(first) = wgpu_support::ops() else { return Ok(()) };
        let reference = run(&program, &seed, seq());
        let got = run(&program, &seed, first);
        prop_assert_eq!(got.0.len(), reference.0.len());
        prop_assert_eq!(got.1.len(), reference.1.len());
        let worst = compare(&got, &reference);
        prop_assert!(worst <= PROGRAMS, "wgpu differs from seq by {:e} relative", worst);
        let again = run(&program, &seed, wgpu_support::ops().unwrap());
        prop_assert!(again == got, "two wgpu runs differ");
    }
}
