//! TeaLeaf's kernels on the GPU: every generated shader validates with naga, and every kernel
//! runs on the wgpu device and on `seq` (the CPU lowering of the same kernel) with the same
//! random inputs, agreeing as docs/gpu.md states; two device runs agree bitwise. Without an
//! adapter offering f64 the device part is reported as skipped (`ops_testkit::skip`), a failure
//! under `OPS_REQUIRE_ALL=1`.

use ops::prelude::*;

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
    let mut bound = 0.0;
    let mut device = || match ops::ops_backends::WgpuBackend::new() {
        Ok(b) => {
            bound = ops_testkit::kernel_check::agreement_bound(b.adapter().is_gpu());
            Some(Ops::new(OpsConfig::new(BackendKind::Wgpu), Box::new(b)))
        }
        Err(e) => {
            ops_testkit::skip(&format!("no wgpu adapter offering f64: {e}"));
            None
        }
    };
    let Some(mut gpu) = device() else {
        return;
    };
    let mut gpu_again = device().expect("a second device");
    let mut cpu = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let mut problems = Vec::new();
    let mut worst = 0.0f64;
    for (i, k) in kernels().into_iter().enumerate() {
        let seed = 2000 + i as u64;
        let check = ops_testkit::kernel_check::compare_on_random_inputs;
        let a = check(k, &mut gpu, &mut cpu, seed)
            .unwrap_or_else(|e| panic!("kernel `{}`: {e}", k.name()));
        let again = check(k, &mut gpu, &mut gpu_again, seed)
            .unwrap_or_else(|e| panic!("kernel `{}`: {e}", k.name()));
        if again.differing > 0 || !again.integer_mismatches.is_empty() {
            problems.push(format!("`{}`: two device runs differ", k.name()));
        }
        if !a.integer_mismatches.is_empty() {
            problems.push(format!(
                "`{}`: integers differ: {:?}",
                k.name(),
                a.integer_mismatches
            ));
        }
        if a.worst > bound {
            problems.push(format!("`{}`: {:e} relative", k.name(), a.worst));
        }
        if a.differing > 0 {
            eprintln!(
                "{:28} {:5} of {:5} values differ, worst {:.1e}",
                k.name(),
                a.differing,
                a.values,
                a.worst
            );
        }
        worst = worst.max(a.worst);
    }
    eprintln!("worst {worst:.2e} relative");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
