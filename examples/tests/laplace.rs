//! The Jacobi example converges to the exact solution, identically on every CPU backend.

use ops_backends::prelude::*;
use ops_examples::laplace;

fn solve_n(n: usize, backend: BackendKind, threads: usize) -> ops_examples::Solution {
    let mut ops = ops_from_config(OpsConfig::new(backend).with_threads(Some(threads))).unwrap();
    laplace(&mut ops, n, 1e-12, 100_000).unwrap()
}

fn solve(backend: BackendKind, threads: usize) -> ops_examples::Solution {
    solve_n(32, backend, threads)
}

#[test]
fn converges_to_the_exact_solution_at_second_order() {
    // h = 1/16 and 1/32: the 5-point scheme's error must fall by 4 when h halves.
    let coarse = solve_n(15, BackendKind::Rayon, 2);
    let fine = solve_n(31, BackendKind::Rayon, 2);
    assert!(fine.last_change < 1e-12);
    let h = 1.0 / 32.0;
    assert!(fine.max_error < h * h, "max error {}", fine.max_error);
    let order = (coarse.max_error / fine.max_error).log2();
    assert!((order - 2.0).abs() < 0.1, "observed order {order}");
}

#[test]
fn seq_and_rayon_agree_bitwise() {
    let reference = solve(BackendKind::Seq, 1);
    for threads in [1, 2, 3] {
        let s = solve(BackendKind::Rayon, threads);
        assert_eq!(s.iterations, reference.iterations);
        let same =
            s.u.iter()
                .zip(&reference.u)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "rayon with {threads} threads differs from seq");
    }
}
