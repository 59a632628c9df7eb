//! Helpers for the applications' end-to-end tests (dev-dependency only): comparing
//! `--summary-json` files number by number, the kill-and-restart judgement of one app
//! ([`restart`]), the deck-parser fuzzing machinery ([`deck_fuzz`]), reading the original
//! Fortran mini-apps' stored output logs ([`fortran`]), and launching an app binary
//! under Open MPI's `mpirun`, optionally with one process killed by SIGKILL at a given loop
//! (`OPS_INJECT_FAILURE=loop:N` on that process only).
//!
//! ```
//! let a = r#"{"summaries":[{"step":0,"mass":1.0}]}"#;
//! let b = r#"{"summaries":[{"step":0,"mass":1.0000000000001}]}"#;
//! assert_eq!(ops_testkit::summary_numbers(a), vec![1.0, 0.0]); // keys in sorted order
//! ops_testkit::assert_summaries_agree(a, b, 1e-12, "example");
//! ```

#![warn(missing_docs)]

pub mod deck_fuzz;
pub mod fortran;
pub mod kernel_check;
pub mod restart;
mod skip;

pub use skip::{required, skip, wgpu_or_skip};

use std::path::{Path, PathBuf};
use std::process::Command;

/// Panics unless `path` holds a PNG image of more than `min_bytes` bytes (what a picture flag
/// such as `--snapshot-png` must leave behind).
pub fn assert_png(path: &Path, min_bytes: usize) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > min_bytes,
        "{}: not a PNG of more than {min_bytes} bytes ({} bytes)",
        path.display(),
        bytes.len()
    );
}

/// A fresh, empty scratch directory for one test: `<tmp>/<app>-<label>-<pid>`.
pub fn scratch(app: &str, label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{app}-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Judges every steady checkpoint in a `--ops-diags-json` report: those at the chosen location
/// after the decision (not provisional), except the last (its region is cut short by the end of
/// the run and saves whatever is still undecided). Panics unless there are at least two and each
/// saves between half and `ratio` x `minimum` bytes (less than half the hand minimum means
/// state was dropped: the restart tests would then fail too, but here the figure says why);
/// returns the last one judged.
pub fn assert_steady_checkpoint_at_most(
    diags: &Path,
    ratio: f64,
    minimum: f64,
) -> serde_json::Value {
    let text = std::fs::read_to_string(diags).expect("diagnostics JSON");
    let report: serde_json::Value = serde_json::from_str(&text).expect("diagnostics JSON");
    let chosen = report["location"]["chosen"]
        .as_str()
        .expect("a chosen location");
    let cks = report["checkpoints"]
        .as_array()
        .expect("a checkpoints array");
    let steady: Vec<&serde_json::Value> = cks[..cks.len().saturating_sub(1)]
        .iter()
        .filter(|c| c["location"] == chosen && c["provisional"] == false)
        .collect();
    assert!(
        steady.len() >= 2,
        "{} steady checkpoints at `{chosen}` of {}",
        steady.len(),
        cks.len()
    );
    for c in &steady {
        let bytes = c["bytes"].as_f64().expect("checkpoint bytes");
        assert!(
            bytes <= ratio * minimum && bytes >= 0.5 * minimum,
            "checkpoint {} at `{chosen}`: {bytes} bytes, {:.3} x the minimum",
            c["sequence"],
            bytes / minimum
        );
    }
    (*steady.last().expect("two or more")).clone()
}

/// Every number in a summary JSON file: arrays in order, object members by sorted key.
pub fn summary_numbers(json: &str) -> Vec<f64> {
    fn walk(v: &serde_json::Value, out: &mut Vec<f64>) {
        match v {
            serde_json::Value::Number(n) => out.push(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&serde_json::from_str(json).expect("summary JSON"), &mut out);
    out
}

/// Panics unless the two summaries have the same shape and every number agrees to `rel`
/// relative.
pub fn assert_summaries_agree(a: &str, b: &str, rel: f64, what: &str) {
    let (a, b) = (summary_numbers(a), summary_numbers(b));
    assert_eq!(a.len(), b.len(), "{what}: summary shapes differ");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        let d = (x - y).abs() / x.abs().max(y.abs()).max(1e-300);
        assert!(
            x == y || d <= rel,
            "{what}: value {i}: {x} vs {y} ({d:e} relative)"
        );
    }
}

/// `mpirun` with the options every test needs here (root in CI, more processes than cores).
fn mpirun_command() -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe"])
        // Containers often forbid the cross-process memory attach Open MPI's shared-memory
        // transport uses for large messages; plain copies work everywhere.
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .env_remove("OPS_INJECT_FAILURE");
    c
}

/// Runs `bin deck args...` as one process, as the serial reference of [`mpirun`]; returns
/// stdout and stderr, and panics with them unless it succeeded.
pub fn run_serial(bin: &str, deck: &Path, args: &[&str]) -> String {
    let out = Command::new(bin)
        .arg(deck)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{bin}: {e}"));
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "serial, {}:\n{text}", deck.display());
    text
}

/// Runs `bin deck args...` on `ranks` processes; returns stdout and stderr, and
/// panics with them unless every process succeeded.
pub fn mpirun(bin: &str, ranks: usize, deck: &Path, args: &[&str]) -> String {
    let out = mpirun_command()
        .args(["-n", &ranks.to_string()])
        .arg(bin)
        .arg(deck)
        .args(args)
        .output()
        .expect("mpirun (Open MPI) must be installed: scripts/install-deps.sh");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{ranks} ranks, {}:\n{text}",
        deck.display()
    );
    text
}

/// Runs `bin deck args...` on `ranks` processes with rank `victim` killed by
/// SIGKILL when loop `at` starts (Open MPI then ends the others): an MPMD command line with the
/// injection on one process. Panics if the run succeeds anyway.
pub fn mpirun_killing_one(
    bin: &str,
    ranks: usize,
    victim: usize,
    at: u64,
    deck: &Path,
    args: &[&str],
) {
    let mut c = mpirun_command();
    for r in 0..ranks {
        if r > 0 {
            c.arg(":");
        }
        c.args(["-n", "1"]);
        if r == victim {
            c.args(["env", &format!("OPS_INJECT_FAILURE=loop:{at}")]);
        }
        c.arg(bin).arg(deck).args(args);
    }
    let out = c.output().expect("mpirun");
    assert!(
        !out.status.success(),
        "rank {victim} was to be killed at loop {at}, but the run finished:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The judgement of a distributed restart: with checkpoints into `dir/ckpt` every occurrence of
/// the location, kills rank `victim` of `ranks` at loop `at`, restarts with `--ops-restart` on
/// the same number of processes, and panics unless the restart says it restored a checkpoint
/// and its `--summary-json` is bitwise identical to `reference` (the bytes of an uninterrupted
/// run's).
pub fn assert_distributed_restart_bitwise(
    bin: &str,
    ranks: usize,
    (victim, at): (usize, u64),
    deck: &Path,
    dir: &Path,
    reference: &[u8],
) {
    let (ckpt, out) = (dir.join("ckpt"), dir.join("out.json"));
    let _ = std::fs::remove_dir_all(&ckpt);
    let _ = std::fs::remove_file(&out);
    let args = [
        "--ops-checkpoint-dir",
        ckpt.to_str().expect("UTF-8 path"),
        "--ops-checkpoint-every",
        "1",
        "--summary-json",
        out.to_str().expect("UTF-8 path"),
    ];
    mpirun_killing_one(bin, ranks, victim, at, deck, &args);
    let restart: Vec<&str> = args.iter().copied().chain(["--ops-restart"]).collect();
    let text = mpirun(bin, ranks, deck, &restart);
    assert!(text.contains("restored checkpoint"), "{text}");
    assert!(
        std::fs::read(&out).expect("summary of the restarted run") == reference,
        "{}: rank {victim} killed at loop {at}: the restarted run's summaries differ",
        deck.display()
    );
}
