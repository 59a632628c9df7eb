//! The random stencil programs of `random_programs` (shared with `seq_rayon_bitwise.rs`) on the
//! wgpu backend: every dataset (halos included) and every reduction agrees with `seq` to a
//! relative 1e-12 (sums are added in another order; everything else is expected to match
//! exactly), and two wgpu runs agree bitwise.

use ops_backends::prelude::*;
use proptest::prelude::*;

mod random_programs;

use random_programs::{run, step, N};

mod wgpu_support;

fn seq() -> Ops {
    ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap()
}

/// Largest relative difference between two runs' datasets and reductions (the reductions are
/// s, lo, hi, count per `Sums` step; count compared exactly).
fn compare(a: &(Vec<u64>, Vec<u64>), b: &(Vec<u64>, Vec<u64>)) -> (f64, usize) {
    let mut worst = 0.0f64;
    let mut exact_mismatch = 0;
    for (x, y) in a.0.iter().zip(&b.0) {
        let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
        worst = worst.max(wgpu_support::rel(x, y, 1e-300));
        if x.to_bits() != y.to_bits() {
            exact_mismatch += 1;
        }
    }
    for (i, (x, y)) in a.1.iter().zip(&b.1).enumerate() {
        if i % 4 == 3 {
            assert_eq!(x, y, "count reduction differs");
        } else {
            let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
            worst = worst.max(wgpu_support::rel(x, y, 1e-300));
            if i % 4 != 0 {
                assert_eq!(
                    x.to_bits(),
                    y.to_bits(),
                    "min/max reduction differs: {x} {y}"
                );
            }
        }
    }
    (worst, exact_mismatch)
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
        let (worst, mismatched) = compare(&got, &reference);
        prop_assert!(worst <= 1e-12, "wgpu differs from seq by {:e} relative", worst);
        // Datasets never see a reduction: they must match seq exactly.
        prop_assert!(mismatched == 0, "{} dataset values differ from seq", mismatched);
        let again = run(&program, &seed, wgpu_support::ops().unwrap());
        prop_assert!(again == got, "two wgpu runs differ");
    }
}
