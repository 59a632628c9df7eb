//! Automatic checkpointing, judged end to end: CloverLeaf is killed (SIGKILL at random loop
//! indices, SIGKILL in the middle of a checkpoint write, SIGTERM in memory mode), restarted with
//! `--ops-restart`, and its `--summary-json` must be bitwise identical to an uninterrupted run's.
//!
//! The app has no checkpoint code: the `--ops-checkpoint-*` flags are its whole interface.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_cloverleaf");

/// clover_bm's states on a `cells` x `cells` mesh for `steps` steps, summaries every 5 steps.
fn deck(cells: usize, steps: usize) -> String {
    format!(
        "*clover
 state 1 density=0.2 energy=1.0
 state 2 density=1.0 energy=2.5 geometry=rectangle xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0
 x_cells={cells}
 y_cells={cells}
 xmin=0.0
 ymin=0.0
 xmax=10.0
 ymax=10.0
 initial_timestep=0.04
 timestep_rise=1.5
 max_timestep=0.04
 end_step={steps}
 summary_frequency=5
*endclover
"
    )
}

/// A small problem with many steps: quick, yet it sees many checkpoints.
const SMALL: (usize, usize) = (48, 40);
/// Long enough (about a second or more) for a signal sent from outside to arrive mid-run.
const LONG: (usize, usize) = (128, 300);

struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(label: &str) -> Scratch {
        Scratch::with_deck(label, SMALL)
    }

    fn with_deck(label: &str, (cells, steps): (usize, usize)) -> Scratch {
        // Tests run concurrently in one process: a counter keeps their directories apart.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "cloverleaf-restart-{}-{n}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("deck.in"), deck(cells, steps)).unwrap();
        Scratch { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The command line of one run: deck, summary file, checkpoint flags.
fn command(s: &Scratch, summary: &Path, mode: Option<&str>, restart: bool) -> Command {
    let mut c = Command::new(BIN);
    c.arg(s.path("deck.in"))
        .arg("--no-progress")
        .arg("--summary-json")
        .arg(summary)
        .args(["--ops-backend", "rayon", "--ops-threads", "2"])
        .env_remove("OPS_INJECT_FAILURE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    if let Some(mode) = mode {
        c.arg("--ops-checkpoint-dir")
            .arg(s.path("ckpt"))
            .args(["--ops-checkpoint-mode", mode])
            .args(["--ops-checkpoint-every", "1"]);
    }
    if restart {
        c.arg("--ops-restart");
    }
    c
}

fn finish(mut c: Command, what: &str) -> ExitStatus {
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {BIN}: {e}"));
    if !out.status.success() && out.status.signal().is_none() {
        panic!(
            "{what}: exit {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out.status
}

fn reference() -> String {
    reference_of(SMALL)
}

fn reference_of(size: (usize, usize)) -> String {
    let s = Scratch::with_deck(&format!("reference-{}-{}", size.0, size.1), size);
    let summary = s.path("ref.json");
    let status = finish(command(&s, &summary, None, false), "uninterrupted run");
    assert!(status.success());
    std::fs::read_to_string(summary).unwrap()
}

/// Kills a checkpointing run with `injection`, restarts it, and returns the restarted run's
/// summaries. `None` when the injection point was never reached (the run just finished).
fn kill_and_restart(mode: &str, injection: &str) -> Option<String> {
    let s = Scratch::new(&format!("{mode}-{}", injection.replace(':', "-")));
    let summary = s.path("out.json");
    let mut first = command(&s, &summary, Some(mode), false);
    first.env("OPS_INJECT_FAILURE", injection);
    let status = finish(first, &format!("{mode} run with {injection}"));
    if status.success() {
        return None;
    }
    assert_eq!(
        status.signal(),
        Some(9),
        "{mode} {injection}: expected SIGKILL, got {status:?}"
    );
    let restarted = finish(command(&s, &summary, Some(mode), true), "restart");
    assert!(
        restarted.success(),
        "{mode} {injection}: restart failed: {restarted:?}"
    );
    Some(std::fs::read_to_string(summary).unwrap())
}

/// Deterministic pseudo-random loop indices (splitmix64), spread over the run.
fn loop_indices(count: usize, seed: u64, max: u64) -> Vec<u64> {
    let mut x = seed;
    (0..count)
        .map(|_| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            200 + z % max
        })
        .collect()
}

fn check_mode(mode: &str, kills: usize, seed: u64) {
    let want = reference();
    let mut restarted = 0;
    for n in loop_indices(kills, seed, 5000) {
        let injection = format!("loop:{n}");
        if let Some(got) = kill_and_restart(mode, &injection) {
            assert!(
                got == want,
                "{mode}, killed at {injection}: summaries differ"
            );
            restarted += 1;
        }
    }
    assert!(
        restarted >= kills * 2 / 3,
        "only {restarted} of {kills} kills hit the run"
    );
}

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_blocking() {
    check_mode("blocking", 20, 1);
}

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_thread() {
    check_mode("thread", 20, 2);
}

#[test]
fn sigkill_during_checkpoint_writes_then_restart_is_bitwise_identical() {
    let want = reference();
    for mode in ["blocking", "thread"] {
        for n in [2, 5, 9] {
            let injection = format!("write:{n}");
            let got = kill_and_restart(mode, &injection)
                .unwrap_or_else(|| panic!("{mode}: checkpoint {n} was never written"));
            assert!(
                got == want,
                "{mode}, killed while writing checkpoint {n}: summaries differ"
            );
        }
    }
}

#[test]
fn sigterm_in_memory_mode_then_restart_is_bitwise_identical() {
    let want = reference_of(LONG);
    let mut restarted = 0;
    for delay_ms in [300u64, 700] {
        let s = Scratch::with_deck(&format!("memory-{delay_ms}"), LONG);
        let summary = s.path("out.json");
        let mut child = command(&s, &summary, Some("memory"), false)
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(delay_ms));
        // SAFETY: plain kill(2) on our own child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let status = child.wait().unwrap();
        if status.success() {
            continue; // finished before the signal
        }
        assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status:?}");
        let restarted_status = finish(command(&s, &summary, Some("memory"), true), "restart");
        assert!(restarted_status.success());
        let got = std::fs::read_to_string(&summary).unwrap();
        assert!(
            got == want,
            "memory mode, SIGTERM after {delay_ms} ms: summaries differ"
        );
        restarted += 1;
    }
    assert!(
        restarted >= 1,
        "every run finished before SIGTERM: make the deck longer"
    );
}

#[test]
fn restart_without_a_checkpoint_starts_from_the_beginning() {
    let want = reference();
    let s = Scratch::new("no-checkpoint");
    let summary = s.path("out.json");
    let out = command(&s, &summary, Some("blocking"), true)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no complete checkpoint"),
        "restart should say it starts afresh: {stderr}"
    );
    assert_eq!(std::fs::read_to_string(summary).unwrap(), want);
}
