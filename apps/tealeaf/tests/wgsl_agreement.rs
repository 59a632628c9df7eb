//! TeaLeaf's kernels on the GPU: every generated shader validates with naga, and every kernel
//! runs on the wgpu device and on `seq` (the CPU lowering of the same kernel) with the same
//! random inputs, agreeing as docs/gpu.md states; two device runs agree bitwise. Without an
//! adapter offering f64 the device part is reported as skipped (`ops_testkit::skip`), a failure
//! under `OPS_REQUIRE_ALL=1`.

fn kernels() -> Vec<&'static dyn ops::ops_core::kernel::Kernel> {
    // Naming the crate's entry point keeps it, and its kernels, linked.
    let _ = tealeaf::run as fn(&tealeaf::Cli, &mut dyn std::io::Write) -> _;
    let mut ks: Vec<_> = ops::ops_core::kernel::registered_kernels().collect();
    ks.sort_by_key(|k| k.name());
    assert!(ks.len() > 30, "only {} kernels registered", ks.len());
    ks
}

#[test]
fn every_tealeaf_shader_validates() {
    for k in kernels() {
        ops::ops_backends::wgpu::validate_kernel(k).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_kernel_on_the_device_agrees_with_its_cpu_lowering() {
    let Some(problems) = ops_testkit::kernel_check::every_kernel_on_the_device(&kernels(), 2000)
    else {
        return;
    };
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
