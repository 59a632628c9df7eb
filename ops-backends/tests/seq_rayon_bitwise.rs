//! Random stencil programs give bitwise-identical results on `seq` and on `rayon` with 1, 2 and 3
//! threads: every dataset (halos included) and every reduction result.
//!
//! A program is a random sequence of loops drawn from the kernels below, over random datasets,
//! ranges and global constants. Reductions must not depend on the thread count, so this is the
//! property later restart checks (bitwise equality) stand on.

use ops_backends::prelude::*;
use proptest::prelude::*;

mod random_programs;

use random_programs::{run, step, N};

fn ops_on(backend: BackendKind, threads: usize) -> Ops {
    ops_from_config(OpsConfig::new(backend).with_threads(Some(threads))).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn seq_and_rayon_agree_bitwise(
        program in prop::collection::vec(step(), 1..14),
        seed in prop::collection::vec(-1.0..1.0f64, (N * N) as usize),
    ) {
        let reference = run(&program, &seed, ops_on(BackendKind::Seq, 1));
        for threads in [1, 2, 3] {
            let got = run(&program, &seed, ops_on(BackendKind::Rayon, threads));
            prop_assert!(got.1 == reference.1, "reductions differ with {} threads", threads);
            prop_assert!(got.0 == reference.0, "datasets differ with {} threads", threads);
        }
    }
}
