//! The seq-vs-rayon test can fail: with the host executor's partition made to follow the thread
//! count (`OPS_TEST_MUTATION=thread-partition`, see `ops_core::testing`), reductions differ
//! between thread counts and `seq_rayon_bitwise.rs`'s property must reject some program.
//! Its own test binary, so the fault stays in this process.

mod random_programs;

#[test]
fn seq_rayon_property_fails_when_the_partition_follows_the_threads() {
    // SAFETY: the only test of this binary, set before any runtime reads the variable.
    unsafe { std::env::set_var(ops_core::testing::MUTATION_VAR, "thread-partition") };
    assert!(ops_core::testing::mutation("thread-partition"));
    let verdict = random_programs::seq_rayon_property(160, 0x0005_e9ba_7a11);
    assert!(
        verdict.is_err(),
        "the property passed although reductions depend on the thread count: {verdict:?}"
    );
}
