//! The GPU backend (`wgpu`; Mesa's software Vulkan device in CI): test problem 1 passes and
//! every summary agrees with the rayon backend's (to 1e-10: the device sums in another order
//! and WGSL's `fma` need not round once).

use std::path::PathBuf;
use std::process::Command;

use ops_testkit::{assert_summaries_agree, scratch, wgpu_or_skip};

const BIN: &str = env!("CARGO_BIN_EXE_cloverleaf3d");

fn run(dir: &std::path::Path, backend: &str) -> String {
    let json = dir.join(format!("{backend}.json"));
    let out = Command::new(BIN)
        .arg(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("decks")
                .join("clover_test1.in"),
        )
        .args(["--no-progress", "--ops-backend", backend, "--summary-json"])
        .arg(&json)
        .output()
        .expect("run cloverleaf3d");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{backend}:\n{text}");
    assert!(
        text.contains("This test is considered PASSED"),
        "{backend}:\n{text}"
    );
    std::fs::read_to_string(json).unwrap()
}

#[test]
fn wgpu_agrees_with_rayon_on_test_problem_1() {
    if wgpu_or_skip().is_none() {
        return;
    }
    let dir = scratch("cloverleaf3d-wgpu", "tp1");
    let gpu = run(&dir, "wgpu");
    let cpu = run(&dir, "rayon");
    assert_summaries_agree(&cpu, &gpu, 1e-10, "wgpu vs rayon");
    let _ = std::fs::remove_dir_all(dir);
}
