//! Checkpoints on the GPU backend: a run on `wgpu` killed by SIGKILL and restarted on `wgpu`
//! gives a bitwise-identical `--summary-json` (blocking mode; thread mode, whose writer thread
//! waits for the device transfers; memory mode, which waits for them when writing out); a checkpoint written by `wgpu` restores on
//! `rayon` and one written by `rayon` restores on `wgpu`, the test problem passing and the
//! summaries agreeing with an uninterrupted run of the restarting backend to 1e-10.
//!
//! Runs on Mesa's software Vulkan device in CI; without an adapter offering f64 it is reported
//! as skipped (`ops_testkit::skip`), which fails under `OPS_REQUIRE_ALL=1` (set by `.ci/run`).

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use ops_testkit::{assert_summaries_agree, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_cloverleaf");
const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/decks");

fn wgpu_available() -> bool {
    ops_testkit::wgpu_or_skip().is_some()
}

/// One run of test problem 1 on `backend`, checkpointing into `dir/ckpt` in mode `ckpt` if
/// given, killed at loop `kill_at` if given. Returns whether it exited normally, and its stdout.
/// The summaries of an earlier run (`dir/out.json`) are deleted first, so that what is read
/// back afterwards was written by this run.
fn run(
    dir: &Path,
    backend: &str,
    ckpt: Option<&str>,
    restart: bool,
    kill_at: Option<u64>,
) -> (bool, String) {
    let _ = std::fs::remove_file(dir.join("out.json"));
    let mut c = Command::new(BIN);
    c.arg(PathBuf::from(REFERENCE).join("clover_test1.in"))
        .args(["--no-progress", "--ops-backend", backend, "--summary-json"])
        .arg(dir.join("out.json"))
        .env_remove("OPS_INJECT_FAILURE");
    if let Some(mode) = ckpt {
        c.arg("--ops-checkpoint-dir").arg(dir.join("ckpt")).args([
            "--ops-checkpoint-every",
            "1",
            "--ops-checkpoint-mode",
            mode,
        ]);
    }
    if restart {
        c.arg("--ops-restart");
    }
    if let Some(n) = kill_at {
        c.env("OPS_INJECT_FAILURE", format!("loop:{n}"));
    }
    let out = c.output().expect("run cloverleaf");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if kill_at.is_some() {
        assert_eq!(out.status.signal(), Some(9), "expected SIGKILL:\n{text}");
    } else {
        assert!(out.status.success(), "{backend}:\n{text}");
    }
    (out.status.success(), text)
}

fn summary(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("out.json")).unwrap()
}

#[test]
fn killed_on_wgpu_restarts_on_wgpu_bitwise() {
    if !wgpu_available() {
        return;
    }
    let dir = scratch("cloverleaf-wgpu", "same");
    run(&dir, "wgpu", None, false, None);
    let reference = summary(&dir);
    // Thread and memory modes keep their snapshots as device transfers: the writer thread
    // waits for them, the memory store when it writes the checkpoint out (here at exit of a
    // run that was not killed, restored by the restart).
    let cases = [
        ("blocking", Some(2500)),
        ("thread", Some(9000)),
        ("thread", Some(4100)),
        ("memory", None),
    ];
    for (mode, at) in cases {
        let _ = std::fs::remove_dir_all(dir.join("ckpt"));
        run(&dir, "wgpu", Some(mode), false, at);
        let (_, text) = run(&dir, "wgpu", Some(mode), true, None);
        assert!(text.contains("restored checkpoint"), "{mode}:\n{text}");
        assert!(
            summary(&dir) == reference,
            "{mode}, killed at loop {at:?}: summaries differ"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn checkpoints_cross_between_wgpu_and_rayon() {
    if !wgpu_available() {
        return;
    }
    let dir = scratch("cloverleaf-wgpu", "cross");
    for (writer, reader) in [("wgpu", "rayon"), ("rayon", "wgpu")] {
        run(&dir, reader, None, false, None);
        let reference = summary(&dir);
        let _ = std::fs::remove_dir_all(dir.join("ckpt"));
        run(&dir, writer, Some("thread"), false, Some(6000));
        let (_, text) = run(&dir, reader, Some("blocking"), true, None);
        assert!(
            text.contains("restored checkpoint"),
            "{writer} -> {reader}:\n{text}"
        );
        assert!(
            text.contains("This test is considered PASSED"),
            "{writer} -> {reader}:\n{text}"
        );
        assert_summaries_agree(
            &reference,
            &summary(&dir),
            1e-10,
            &format!("{writer} -> {reader}"),
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
