//! The kill-and-restart judgement of one application binary: runs with automatic
//! checkpointing killed by SIGKILL at loop indices or mid-write (`OPS_INJECT_FAILURE`), or by
//! SIGTERM in memory mode, restarted with `--ops-restart`, must write a `--summary-json`
//! bitwise identical to an uninterrupted run's.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// One application under test: its binary, the name its scratch directories carry, and the
/// arguments every run gets besides the deck, the summary file and the checkpoint flags.
#[derive(Clone, Copy, Debug)]
pub struct App {
    /// The binary (`env!("CARGO_BIN_EXE_<name>")`).
    pub bin: &'static str,
    /// Prefix of the scratch directories.
    pub name: &'static str,
    /// Arguments of every run (backend, threads, output options).
    pub args: &'static [&'static str],
}

/// A scratch directory holding one deck (`deck.in`), removed on drop.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// A fresh directory for `app`, labelled `label`, holding `deck`.
    pub fn new(app: &App, label: &str, deck: &str) -> Scratch {
        // Tests run concurrently in one process: a counter keeps their directories apart.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "{}-restart-{}-{n}-{label}",
            app.name,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        std::fs::write(dir.join("deck.in"), deck).expect("write the deck");
        Scratch { dir }
    }

    /// A path inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl App {
    /// The command line of one run of the scratch deck, writing `summary`; with `mode`,
    /// checkpointing into `ckpt/` in that mode at every occurrence of the location; with
    /// `restart`, restarting from there. Stdout is discarded, stderr kept.
    pub fn command(
        &self,
        s: &Scratch,
        summary: &Path,
        mode: Option<&str>,
        restart: bool,
    ) -> Command {
        let mut c = Command::new(self.bin);
        c.arg(s.path("deck.in"))
            .arg("--summary-json")
            .arg(summary)
            .args(self.args)
            .env_remove("OPS_INJECT_FAILURE")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
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

    /// Runs `c` to its end; panics on a failure that is not a signal, with its stderr.
    pub fn finish(&self, mut c: Command, what: &str) -> ExitStatus {
        let out = c
            .output()
            .unwrap_or_else(|e| panic!("{what}: cannot run {}: {e}", self.bin));
        if !out.status.success() && out.status.signal().is_none() {
            panic!(
                "{what}: exit {:?}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        out.status
    }

    /// The summaries of an uninterrupted run of `deck` without checkpointing.
    pub fn reference(&self, deck: &str) -> String {
        let s = Scratch::new(self, "reference", deck);
        let summary = s.path("ref.json");
        let status = self.finish(self.command(&s, &summary, None, false), "uninterrupted run");
        assert!(status.success(), "uninterrupted run: {status:?}");
        std::fs::read_to_string(summary).expect("reference summaries")
    }

    /// Kills a checkpointing run of `deck` with `injection` (`OPS_INJECT_FAILURE`), restarts
    /// it, and returns the restarted run's summaries; `None` when the injection point was never
    /// reached (the run just finished).
    pub fn kill_and_restart(&self, deck: &str, mode: &str, injection: &str) -> Option<String> {
        let s = Scratch::new(
            self,
            &format!("{mode}-{}", injection.replace(':', "-")),
            deck,
        );
        let summary = s.path("out.json");
        let mut first = self.command(&s, &summary, Some(mode), false);
        first.env("OPS_INJECT_FAILURE", injection);
        let status = self.finish(first, &format!("{mode} run with {injection}"));
        if status.success() {
            return None;
        }
        assert_eq!(
            status.signal(),
            Some(9),
            "{mode} {injection}: expected SIGKILL, got {status:?}"
        );
        let restarted = self.finish(self.command(&s, &summary, Some(mode), true), "restart");
        assert!(
            restarted.success(),
            "{mode} {injection}: restart failed: {restarted:?}"
        );
        Some(std::fs::read_to_string(summary).expect("restarted summaries"))
    }

    /// SIGKILL at `kills` pseudo-random loop indices in `200..200 + max_loop` ([`loop_indices`]
    /// with `seed`), each restarted: every restarted run must match the uninterrupted one
    /// bitwise, and at least two thirds of the kills must hit the run.
    pub fn check_random_kills(
        &self,
        deck: &str,
        mode: &str,
        kills: usize,
        seed: u64,
        max_loop: u64,
    ) {
        let want = self.reference(deck);
        let mut restarted = 0;
        for n in loop_indices(kills, seed, max_loop) {
            let injection = format!("loop:{n}");
            if let Some(got) = self.kill_and_restart(deck, mode, &injection) {
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

    /// SIGKILL in the middle of writing checkpoint `n` for every `n` in `checkpoints`, in
    /// blocking and thread mode, each restarted and compared bitwise.
    pub fn check_write_kills(&self, deck: &str, checkpoints: &[u64]) {
        let want = self.reference(deck);
        for mode in ["blocking", "thread"] {
            for n in checkpoints {
                let injection = format!("write:{n}");
                let got = self
                    .kill_and_restart(deck, mode, &injection)
                    .unwrap_or_else(|| panic!("{mode}: checkpoint {n} was never written"));
                assert!(
                    got == want,
                    "{mode}, killed while writing checkpoint {n}: summaries differ"
                );
            }
        }
    }

    /// Memory mode: SIGTERM after each of `delays`, the checkpoint written on the signal, the
    /// restart compared bitwise. `deck` must run long enough for at least one signal to land.
    pub fn check_sigterm_in_memory_mode(&self, deck: &str, delays: &[Duration]) {
        let want = self.reference(deck);
        let mut restarted = 0;
        for delay in delays {
            let s = Scratch::new(self, &format!("memory-{}", delay.as_millis()), deck);
            let summary = s.path("out.json");
            let mut child = self
                .command(&s, &summary, Some("memory"), false)
                .spawn()
                .expect("spawn");
            std::thread::sleep(*delay);
            // SAFETY: plain kill(2) on our own child's pid.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            let status = child.wait().expect("wait for the child");
            if status.success() {
                continue; // finished before the signal
            }
            assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status:?}");
            let again = self.finish(self.command(&s, &summary, Some("memory"), true), "restart");
            assert!(again.success(), "restart after SIGTERM: {again:?}");
            let got = std::fs::read_to_string(&summary).expect("restarted summaries");
            assert!(
                got == want,
                "memory mode, SIGTERM after {delay:?}: summaries differ"
            );
            restarted += 1;
        }
        assert!(
            restarted >= 1,
            "every run finished before SIGTERM: make the deck longer"
        );
    }

    /// `--ops-restart` with no checkpoint says so and computes the same summaries from the
    /// beginning.
    pub fn check_restart_without_a_checkpoint(&self, deck: &str) {
        let want = self.reference(deck);
        let s = Scratch::new(self, "no-checkpoint", deck);
        let summary = s.path("out.json");
        let out = self
            .command(&s, &summary, Some("blocking"), true)
            .output()
            .expect("run");
        assert!(out.status.success(), "{:?}", out.status);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no complete checkpoint"),
            "restart should say it starts afresh: {stderr}"
        );
        assert_eq!(std::fs::read_to_string(summary).expect("summaries"), want);
    }
}

/// `count` deterministic pseudo-random loop indices in `200..200 + max` (splitmix64 from
/// `seed`), spread over a run past its start-up.
///
/// ```
/// let a = ops_testkit::restart::loop_indices(20, 1, 5000);
/// assert_eq!(a, ops_testkit::restart::loop_indices(20, 1, 5000));
/// assert!(a.iter().all(|n| (200..5200).contains(n)));
/// ```
pub fn loop_indices(count: usize, seed: u64, max: u64) -> Vec<u64> {
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
