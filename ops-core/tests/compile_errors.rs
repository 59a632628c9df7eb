//! Every construct outside the kernel language is a compile error pointing at it.
//!
//! The expected messages live beside each case in `ui/*.stderr`; refresh them after an intended
//! change with `TRYBUILD=overwrite cargo test -p ops-core --test compile_errors`.

#[test]
fn kernel_language_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
