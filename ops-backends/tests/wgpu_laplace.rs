//! The Jacobi example (`ops_examples::laplace`) on the wgpu backend: the same iteration count as
//! rayon, the same solution and error to 1e-12, and the same bits on a second wgpu run.

use ops_backends::prelude::*;
use ops_examples::laplace;

mod wgpu_support;

#[test]
fn jacobi_on_wgpu_converges_like_rayon() {
    let n = 24;
    let Some(mut gpu) = wgpu_support::ops() else {
        return;
    };
    let g = laplace(&mut gpu, n, 1e-12, 100_000).unwrap();
    let mut cpu =
        ops_from_config(OpsConfig::new(BackendKind::Rayon).with_threads(Some(2))).unwrap();
    let c = laplace(&mut cpu, n, 1e-12, 100_000).unwrap();
    assert_eq!(g.iterations, c.iterations);
    assert!(g.last_change < 1e-12);
    assert!(
        (g.max_error - c.max_error).abs() <= 1e-12,
        "error {} on wgpu, {} on rayon",
        g.max_error,
        c.max_error
    );
    let worst =
        g.u.iter()
            .zip(&c.u)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
    assert!(worst <= 1e-12, "solutions differ by {worst}");
    // The same bits as another wgpu run (the same bits as rayon too, on llvmpipe, but the
    // driver may reorder the sweep's additions: docs/gpu.md promises agreement to rounding).
    let mut again = wgpu_support::ops().unwrap();
    let a = laplace(&mut again, n, 1e-12, 100_000).unwrap();
    assert_eq!(a, g);
}
