//! The kill-and-restart judgement of one application binary.
//!
//! A run with automatic checkpointing is killed (SIGKILL at a loop index or in the middle of a
//! checkpoint write, SIGTERM at a loop index in memory mode; `OPS_INJECT_FAILURE`), then
//! restarted with `--ops-restart`. The programs are deterministic, so a restarted run that
//! ignored its checkpoint and started over would end with the same numbers as one that
//! restored: equal results prove nothing about checkpointing on their own. Every judgement
//! therefore also asserts *what was restored*, against the uninterrupted run's checkpoint
//! schedule (from its `--ops-diags-json`):
//!
//! - the restarted run restored the newest checkpoint complete at the kill: the checkpoint
//!   sequence and the loop index it opened at (an asynchronous writer may still have been
//!   writing the newest ones: in thread mode one of the three newest closed before the kill);
//!   a killed write falls back to the previous checkpoint, and a kill before any checkpoint was
//!   complete starts afresh, saying so;
//! - after the restore it checkpoints at the same loop indices as the uninterrupted run;
//! - its summaries (`--summary-json`) and every dataset's checksum (`--ops-digest`, interior
//!   and halos) equal the uninterrupted run's bitwise.
//!
//! Kill points are spread evenly over the run after its first checkpoint, so several distinct
//! checkpoints are restored, and the judgements assert that too. Each `judge_*` returns what it
//! saw or why it failed (a mutation test runs one with the restore disabled and expects the
//! failure); each `check_*` panics on failure.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// One application under test: its binary, the name its scratch directories carry, and the
/// arguments every run gets besides the deck, the output files and the checkpoint flags.
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

/// How a checkpointing run is interrupted (`OPS_INJECT_FAILURE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Injection {
    /// SIGKILL before loop index N runs.
    Loop(u64),
    /// SIGKILL in the middle of writing checkpoint sequence N.
    Write(u64),
    /// SIGTERM before loop index N runs (memory mode writes its newest checkpoint on it).
    SigTerm(u64),
}

impl Injection {
    fn value(self) -> String {
        match self {
            Injection::Loop(n) => format!("loop:{n}"),
            Injection::Write(n) => format!("write:{n}"),
            Injection::SigTerm(n) => format!("sigterm:{n}"),
        }
    }
}

impl std::fmt::Display for Injection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.value())
    }
}

/// One checkpoint of the uninterrupted run, from its diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// Sequence number.
    pub sequence: u64,
    /// The loop index its region opened at (where a restart restores it).
    pub loop_index: u64,
    /// The loop during whose hook it was committed.
    pub closed_at_loop: u64,
}

/// What an uninterrupted run computes and when it checkpoints.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// The summaries (`--summary-json`).
    pub summary: String,
    /// Every dataset's checksum (`--ops-digest`).
    pub digest: String,
    /// Its checkpoints, in order.
    pub schedule: Vec<Scheduled>,
    /// Loops the run executed.
    pub loops: u64,
}

/// What one run left behind.
struct Outcome {
    status: ExitStatus,
    stderr: String,
    summary: Option<String>,
    digest: Option<String>,
    diags: Option<serde_json::Value>,
}

/// Environment variables given to every process of a judgement (a mutation test adds
/// `OPS_TEST_MUTATION` here).
pub type Env<'a> = &'a [(&'a str, &'a str)];

/// The checkpoints a restart restored, one entry per interruption (`None`: started afresh).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Restored sequence numbers in the order of the interruptions.
    pub restored: Vec<Option<u64>>,
}

impl Verdict {
    /// Distinct checkpoints restored.
    pub fn distinct(&self) -> usize {
        let mut s: Vec<u64> = self.restored.iter().flatten().copied().collect();
        s.sort_unstable();
        s.dedup();
        s.len()
    }
}

fn u64_at(v: &serde_json::Value, key: &str) -> Option<u64> {
    v.get(key).and_then(serde_json::Value::as_u64)
}

/// The checkpoints in a diagnostics report.
fn schedule_of(diags: &serde_json::Value) -> Result<Vec<Scheduled>, String> {
    let cks = diags["checkpoints"]
        .as_array()
        .ok_or("the diagnostics have no checkpoints array")?;
    cks.iter()
        .map(|c| {
            Ok(Scheduled {
                sequence: u64_at(c, "sequence").ok_or("a checkpoint without a sequence")?,
                loop_index: u64_at(c, "loop_index").ok_or("a checkpoint without a loop index")?,
                closed_at_loop: u64_at(c, "closed_at_loop")
                    .ok_or("a checkpoint without closed_at_loop")?,
            })
        })
        .collect()
}

/// The restore a restarted run reports: `Some((sequence, loop index))`, or `None` when it
/// started afresh.
fn restored(diags: &serde_json::Value) -> Result<Option<(u64, u64)>, String> {
    let r = &diags["restore"];
    if r.is_null() {
        return Err(
            "the restarted run reports no restore at all (did it look for a checkpoint?)".into(),
        );
    }
    match (u64_at(r, "sequence"), u64_at(r, "loop_index")) {
        (Some(s), Some(l)) => Ok(Some((s, l))),
        (None, None) => Ok(None),
        _ => Err(format!("a restore without sequence and loop index: {r}")),
    }
}

/// A deterministic pseudo-random stream (splitmix64) from `seed`.
fn splitmix(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// `count` kill points spread over `lo..hi`: one per equal stratum, at a deterministic
/// pseudo-random place inside it (splitmix64 from `seed`).
///
/// ```
/// let k = ops_testkit::restart::spread(5, 1, 100, 200);
/// assert_eq!(k.len(), 5);
/// assert!(k.windows(2).all(|w| w[0] < w[1]));
/// assert!(k.iter().all(|n| (100..200).contains(n)));
/// assert_eq!(k, ops_testkit::restart::spread(5, 1, 100, 200));
/// ```
pub fn spread(count: usize, seed: u64, lo: u64, hi: u64) -> Vec<u64> {
    let width = hi.saturating_sub(lo);
    let mut next = splitmix(seed);
    let mut out: Vec<u64> = (0..count as u64)
        .map(|k| {
            let (a, b) = (width * k / count as u64, width * (k + 1) / count as u64);
            lo + a + next() % (b - a).max(1)
        })
        .collect();
    out.dedup();
    out
}

impl App {
    /// The command line of one run of the scratch deck; with `mode`, checkpointing into
    /// `ckpt/` in that mode at every occurrence of the location, with diagnostics; with
    /// `restart`, restarting from there. Stdout is discarded, stderr kept.
    fn command(&self, s: &Scratch, mode: Option<&str>, restart: bool, env: Env<'_>) -> Command {
        self.command_in(s, &s.path("ckpt"), mode, restart, env)
    }

    /// [`command`](Self::command) with the checkpoint directory `dir`.
    fn command_in(
        &self,
        s: &Scratch,
        dir: &std::path::Path,
        mode: Option<&str>,
        restart: bool,
        env: Env<'_>,
    ) -> Command {
        let mut c = Command::new(self.bin);
        c.arg(s.path("deck.in"))
            .arg("--summary-json")
            .arg(s.path("summary.json"))
            .arg("--ops-digest")
            .arg(s.path("digest.json"))
            .args(self.args)
            .env_remove("OPS_INJECT_FAILURE")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(mode) = mode {
            c.arg("--ops-checkpoint-dir")
                .arg(dir)
                .args(["--ops-checkpoint-mode", mode])
                .args(["--ops-checkpoint-every", "1"])
                .arg("--ops-diags-json")
                .arg(s.path("diags.json"));
        }
        if restart {
            c.arg("--ops-restart");
        }
        c
    }

    /// Runs `c` to its end, its output files deleted first so nothing is read from an earlier
    /// run.
    fn run(&self, s: &Scratch, mut c: Command) -> Result<Outcome, String> {
        let files = ["summary.json", "digest.json", "diags.json"].map(|f| s.path(f));
        for f in &files {
            let _ = std::fs::remove_file(f);
        }
        let out = c
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.bin))?;
        let read = |p: &Path| std::fs::read_to_string(p).ok();
        let diags = match read(&files[2]) {
            Some(t) => {
                Some(serde_json::from_str(&t).map_err(|e| format!("bad diagnostics JSON: {e}"))?)
            }
            None => None,
        };
        Ok(Outcome {
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            summary: read(&files[0]),
            digest: read(&files[1]),
            diags,
        })
    }

    /// A run that must succeed and write its summaries and digest.
    fn complete(&self, s: &Scratch, c: Command, what: &str) -> Result<Outcome, String> {
        let o = self.run(s, c)?;
        if !o.status.success() {
            return Err(format!("{what}: {:?}\n{}", o.status, o.stderr));
        }
        if o.summary.is_none() || o.digest.is_none() {
            return Err(format!(
                "{what}: no summary or digest written\n{}",
                o.stderr
            ));
        }
        Ok(o)
    }

    /// The uninterrupted run of `deck`, without checkpointing and with checkpointing in `mode`
    /// at every occurrence of the location: both must compute the same bits (checkpointing
    /// changes nothing), and the second gives the schedule.
    pub fn baseline(&self, deck: &str, mode: &str, env: Env<'_>) -> Result<Baseline, String> {
        let s = Scratch::new(self, &format!("baseline-{mode}"), deck);
        let plain = self.complete(&s, self.command(&s, None, false, env), "uninterrupted run")?;
        let ck = self.complete(
            &s,
            self.command(&s, Some(mode), false, env),
            "uninterrupted checkpointing run",
        )?;
        if ck.summary != plain.summary || ck.digest != plain.digest {
            return Err(format!(
                "{mode}: checkpointing changed the results of an uninterrupted run"
            ));
        }
        let diags = ck
            .diags
            .ok_or("the checkpointing run wrote no diagnostics")?;
        let schedule = schedule_of(&diags)?;
        if schedule.is_empty() {
            return Err(format!("{mode}: the uninterrupted run took no checkpoint"));
        }
        Ok(Baseline {
            summary: plain.summary.unwrap_or_default(),
            digest: plain.digest.unwrap_or_default(),
            schedule,
            loops: u64_at(&diags, "loops").ok_or("the diagnostics have no loop count")?,
        })
    }

    /// Interrupts a checkpointing run of `deck` with `inj`, restarts it, and judges the restart
    /// against `base`; the restored sequence (`None`: started afresh).
    pub fn judge_interruption(
        &self,
        deck: &str,
        base: &Baseline,
        mode: &str,
        inj: Injection,
        env: Env<'_>,
    ) -> Result<Option<u64>, String> {
        let what = format!("{mode}, {inj}");
        let s = Scratch::new(
            self,
            &format!("{mode}-{}", inj.value().replace(':', "-")),
            deck,
        );
        let mut first = self.command(&s, Some(mode), false, env);
        first.env("OPS_INJECT_FAILURE", inj.value());
        let killed = self.run(&s, first)?;
        let signal = match inj {
            Injection::SigTerm(_) => None,
            _ => Some(libc::SIGKILL),
        };
        let died = match signal {
            Some(sig) => killed.status.signal() == Some(sig),
            None => killed.status.code() == Some(128 + libc::SIGTERM),
        };
        if !died {
            return Err(format!(
                "{what}: the run was not interrupted ({:?})\n{}",
                killed.status, killed.stderr
            ));
        }
        // The checkpoints that may be the newest complete one when the run died, newest last,
        // and whether none may be complete.
        let (candidates, none_ok): (Vec<Scheduled>, bool) = match inj {
            Injection::Write(n) => {
                let before: Vec<Scheduled> = base
                    .schedule
                    .iter()
                    .filter(|c| c.sequence < n)
                    .copied()
                    .collect();
                // Only the checkpoint before the killed one.
                let last = before.last().copied();
                (last.into_iter().collect(), before.is_empty())
            }
            Injection::Loop(k) | Injection::SigTerm(k) => {
                let closed: Vec<Scheduled> = base
                    .schedule
                    .iter()
                    .filter(|c| c.closed_at_loop < k)
                    .copied()
                    .collect();
                // A writer thread may still have been writing the newest two.
                let behind = if mode == "thread" { 2 } else { 0 };
                let from = closed.len().saturating_sub(1 + behind);
                (closed[from..].to_vec(), closed.len() <= behind)
            }
        };
        let restart = self.complete(&s, self.command(&s, Some(mode), true, env), &what)?;
        let diags = restart
            .diags
            .as_ref()
            .ok_or_else(|| format!("{what}: the restarted run wrote no diagnostics"))?;
        let got = restored(diags).map_err(|e| format!("{what}: {e}"))?;
        let expected_newest = candidates.last();
        match (got, expected_newest) {
            (None, _) if none_ok => {
                if !restart.stderr.contains("no complete checkpoint") {
                    return Err(format!(
                        "{what}: the restart started afresh without saying so\n{}",
                        restart.stderr
                    ));
                }
            }
            (None, newest) => {
                return Err(format!(
                    "{what}: the restart started afresh, but checkpoint {:?} was complete\n{}",
                    newest.map(|c| (c.sequence, c.loop_index)),
                    restart.stderr
                ))
            }
            (Some((seq, at)), _) => {
                let Some(c) = candidates.iter().find(|c| c.sequence == seq) else {
                    return Err(format!(
                        "{what}: restored checkpoint {seq} (loop {at}); the newest complete was \
                         {:?}\n{}",
                        expected_newest.map(|c| (c.sequence, c.loop_index)),
                        restart.stderr
                    ));
                };
                if c.loop_index != at {
                    return Err(format!(
                        "{what}: checkpoint {seq} restored at loop {at}, but it opened at loop {}",
                        c.loop_index
                    ));
                }
                if let Injection::Loop(k) | Injection::SigTerm(k) = inj {
                    if at > k {
                        return Err(format!("{what}: restored at loop {at}, after the kill"));
                    }
                }
            }
        }
        // The restarted run goes on checkpointing where the uninterrupted one did.
        let after = got.map_or(0, |(_, at)| at + 1);
        let want: Vec<u64> = base
            .schedule
            .iter()
            .filter(|c| c.loop_index >= after)
            .map(|c| c.loop_index)
            .collect();
        let again: Vec<u64> = schedule_of(diags)?.iter().map(|c| c.loop_index).collect();
        if again != want {
            return Err(format!(
                "{what}: after the restore the run checkpointed at loops {again:?}, the \
                 uninterrupted run at {want:?}"
            ));
        }
        if restart.summary.as_deref() != Some(base.summary.as_str()) {
            return Err(format!(
                "{what}: the summaries differ from the uninterrupted run's"
            ));
        }
        if restart.digest.as_deref() != Some(base.digest.as_str()) {
            return Err(format!(
                "{what}: the datasets differ from the uninterrupted run's:\n{}\nvs\n{}",
                restart.digest.unwrap_or_default(),
                base.digest
            ));
        }
        Ok(got.map(|(seq, _)| seq))
    }

    /// Kills at `kills` loop indices spread over the run after its first checkpoint (see
    /// [`spread`]), each restarted and judged ([`App::judge_interruption`]); at least half as
    /// many distinct checkpoints as kills (or as checkpoints, if fewer) must be restored.
    /// `Loop` kills with SIGKILL, `SigTerm` sends SIGTERM.
    pub fn judge_kills(
        &self,
        deck: &str,
        mode: &str,
        kind: fn(u64) -> Injection,
        kills: usize,
        seed: u64,
        env: Env<'_>,
    ) -> Result<Verdict, String> {
        let base = self.baseline(deck, mode, env)?;
        let first = base.schedule[0].closed_at_loop + 1;
        let mut v = Verdict::default();
        for k in spread(kills, seed, first, base.loops) {
            v.restored
                .push(self.judge_interruption(deck, &base, mode, kind(k), env)?);
        }
        let want = kills.min(base.schedule.len()).div_ceil(2);
        if v.distinct() < want {
            return Err(format!(
                "{mode}: {} kills restored only {} distinct checkpoints ({:?})",
                v.restored.len(),
                v.distinct(),
                v.restored
            ));
        }
        Ok(v)
    }

    /// SIGKILL at `kills` loop indices spread over the run ([`App::judge_kills`]); panics on a
    /// failed judgement.
    pub fn check_random_kills(&self, deck: &str, mode: &str, kills: usize, seed: u64) {
        if let Err(e) = self.judge_kills(deck, mode, Injection::Loop, kills, seed, &[]) {
            panic!("{e}");
        }
    }

    /// SIGKILL in the middle of writing checkpoint `n` for every `n` in `checkpoints`, in
    /// blocking and thread mode, each restarted and judged: the restart falls back to
    /// checkpoint `n - 1` (for `n = 1`, starts afresh saying so).
    pub fn judge_write_kills(
        &self,
        deck: &str,
        checkpoints: &[u64],
        env: Env<'_>,
    ) -> Result<Verdict, String> {
        let mut v = Verdict::default();
        for mode in ["blocking", "thread"] {
            let base = self.baseline(deck, mode, env)?;
            for &n in checkpoints {
                if !base.schedule.iter().any(|c| c.sequence == n) {
                    return Err(format!("{mode}: the run never writes checkpoint {n}"));
                }
                v.restored.push(self.judge_interruption(
                    deck,
                    &base,
                    mode,
                    Injection::Write(n),
                    env,
                )?);
            }
        }
        Ok(v)
    }

    /// [`App::judge_write_kills`], panicking on failure.
    pub fn check_write_kills(&self, deck: &str, checkpoints: &[u64]) {
        if let Err(e) = self.judge_write_kills(deck, checkpoints, &[]) {
            panic!("{e}");
        }
    }

    /// Memory mode: SIGTERM at `signals` loop indices spread over the run, the checkpoint
    /// written on the signal, each restart judged ([`App::judge_kills`]); panics on failure.
    pub fn check_sigterm_in_memory_mode(&self, deck: &str, signals: usize, seed: u64) {
        if let Err(e) = self.judge_kills(deck, "memory", Injection::SigTerm, signals, seed, &[]) {
            panic!("{e}");
        }
    }

    /// Damaged checkpoint files never crash a restart nor give a wrong answer: after a
    /// checkpointing run of `deck` in each of blocking, thread and memory mode (memory mode
    /// stopped by SIGTERM so its file is the one written on the signal), `cases` restarts each
    /// find one file of the checkpoint directory damaged (bytes flipped, the file cut short or
    /// extended; HDF5 file or manifest; spread over modes, files and kinds by `seed`). Every
    /// restart must end normally with the uninterrupted run's summaries and datasets, having
    /// restored a checkpoint that is not the damaged one (naming the damaged file) or started
    /// afresh saying why. Panics otherwise.
    pub fn check_damaged_checkpoints(&self, deck: &str, cases: usize, seed: u64) {
        if let Err(e) = self.judge_damaged_checkpoints(deck, cases, seed) {
            panic!("{e}");
        }
    }

    fn judge_damaged_checkpoints(&self, deck: &str, cases: usize, seed: u64) -> Result<(), String> {
        let modes = ["blocking", "thread", "memory"];
        let mut dirs = Vec::new();
        let mut base = None;
        for mode in modes {
            let b = self.baseline(deck, mode, &[])?;
            let s = Scratch::new(self, &format!("damaged-{mode}"), deck);
            let mut c = self.command(&s, Some(mode), false, &[]);
            if mode == "memory" {
                // Stopped by SIGTERM half-way: the file written on the signal.
                let at = b.schedule[b.schedule.len() / 2].closed_at_loop + 1;
                c.env("OPS_INJECT_FAILURE", format!("sigterm:{at}"));
                self.run(&s, c)?;
            } else {
                self.complete(&s, c, "checkpointing run")?;
            }
            dirs.push((mode, s));
            base.get_or_insert(b);
        }
        let base = base.expect("three modes");
        let mut next = splitmix(seed);
        for case in 0..cases {
            let (mode, s) = &dirs[case % modes.len()];
            let ckpt = s.path("ckpt");
            let mut files: Vec<PathBuf> = std::fs::read_dir(&ckpt)
                .map_err(|e| e.to_string())?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "h5" || x == "json")
                        || p.to_string_lossy().contains(".values.")
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(format!("{mode}: no checkpoint file to damage"));
            }
            // Work on a copy, so every case starts from the intact files.
            let work = s.path(&format!("case-{case}"));
            let _ = std::fs::remove_dir_all(&work);
            std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
            for f in &files {
                std::fs::copy(f, work.join(f.file_name().expect("a file")))
                    .map_err(|e| e.to_string())?;
            }
            // Mostly the newest checkpoint's files (what a restart reads first).
            let pick = if next().is_multiple_of(4) {
                (next() % files.len() as u64) as usize
            } else {
                files.len() - 1 - (next() % 2) as usize % files.len()
            };
            let target = work.join(files[pick].file_name().expect("a file"));
            let mut bytes = std::fs::read(&target).map_err(|e| e.to_string())?;
            let how = match next() % 3 {
                0 => {
                    let flips = 1 + next() % 4;
                    for _ in 0..flips {
                        let i = (next() % bytes.len() as u64) as usize;
                        bytes[i] ^= (next() as u8) | 1;
                    }
                    format!("{flips} byte(s) flipped")
                }
                1 => {
                    let keep = (next() % bytes.len() as u64) as usize;
                    bytes.truncate(keep);
                    format!("cut to {keep} bytes")
                }
                _ => {
                    let more = 1 + (next() % 4096) as usize;
                    bytes.extend((0..more).map(|_| next() as u8));
                    format!("{more} bytes appended")
                }
            };
            std::fs::write(&target, &bytes).map_err(|e| e.to_string())?;
            let name = target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let what = format!("case {case} ({mode}): {name} {how}");
            // The copy is the directory restarted from.
            let c = self.command_in(s, &work, Some(mode), true, &[]);
            let o = self.complete(s, c, &what)?;
            let diags = o
                .diags
                .as_ref()
                .ok_or_else(|| format!("{what}: no diagnostics"))?;
            let damaged_seq: Option<u64> = name.split('.').nth(2).and_then(|n| n.parse().ok());
            // A value log (`APP.values.rankR.G`) is shared by checkpoints: a rejection for it
            // names the checkpoint's file and, in its reason, the log.
            let named = diags["restore"]["rejected"].as_array().is_some_and(|r| {
                r.iter().any(|x| {
                    x["path"].as_str().is_some_and(|p| p.ends_with(&name))
                        || x["reason"].as_str().is_some_and(|w| w.contains(&name))
                })
            });
            let value_log = name.contains(".values.");
            match restored(diags).map_err(|e| format!("{what}: {e}"))? {
                // Harmless damage (the results below must still be exact), or an older
                // checkpoint damaged that the restart did not need.
                Some((seq, _)) if damaged_seq.is_some_and(|d| seq >= d) => {}
                Some(_) if value_log && !named => {}
                Some(_) | None => {
                    if !named {
                        return Err(format!(
                            "{what}: the damaged file is not among the rejected ones: {}",
                            diags["restore"]
                        ));
                    }
                }
            }
            if o.summary.as_deref() != Some(base.summary.as_str())
                || o.digest.as_deref() != Some(base.digest.as_str())
            {
                return Err(format!(
                    "{what}: the results differ from the uninterrupted run's"
                ));
            }
            let _ = std::fs::remove_dir_all(&work);
        }
        Ok(())
    }

    /// A restart trusts only its own input: after a checkpointing run of `deck`, a restart with
    /// `changed` (a deck computing something else) must stop with an error naming the deck,
    /// and a restart with `longer` (`deck` with a later end) must restore a checkpoint and end
    /// bitwise as an uninterrupted run of `longer`. Panics otherwise.
    pub fn check_restart_with_another_deck(&self, deck: &str, changed: &str, longer: &str) {
        if let Err(e) = self.judge_restart_with_another_deck(deck, changed, longer) {
            panic!("{e}");
        }
    }

    fn judge_restart_with_another_deck(
        &self,
        deck: &str,
        changed: &str,
        longer: &str,
    ) -> Result<(), String> {
        let s = Scratch::new(self, "another-deck", deck);
        self.complete(
            &s,
            self.command(&s, Some("blocking"), false, &[]),
            "checkpointing run",
        )?;
        std::fs::write(s.path("deck.in"), changed).map_err(|e| e.to_string())?;
        let o = self.run(&s, self.command(&s, Some("blocking"), true, &[]))?;
        if o.status.success()
            || !o
                .stderr
                .contains("the input `deck` is not the one the checkpoint")
        {
            return Err(format!(
                "a restart with a changed deck was not refused naming the deck ({:?}):\n{}",
                o.status, o.stderr
            ));
        }
        std::fs::write(s.path("deck.in"), longer).map_err(|e| e.to_string())?;
        let restart = self.complete(
            &s,
            self.command(&s, Some("blocking"), true, &[]),
            "restart with a later end",
        )?;
        let diags = restart.diags.as_ref().ok_or("no diagnostics")?;
        if restored(diags)?.is_none() {
            return Err(format!(
                "the restart with a later end restored nothing:\n{}",
                restart.stderr
            ));
        }
        let fresh = Scratch::new(self, "another-deck-fresh", longer);
        let want = self.complete(
            &fresh,
            self.command(&fresh, None, false, &[]),
            "uninterrupted run with the later end",
        )?;
        if restart.summary != want.summary || restart.digest != want.digest {
            return Err(
                "the restart with a later end differs from an uninterrupted run of that deck"
                    .into(),
            );
        }
        Ok(())
    }

    /// `--ops-restart` with no checkpoint says so and computes the same results from the
    /// beginning.
    pub fn check_restart_without_a_checkpoint(&self, deck: &str) {
        let base = self
            .baseline(deck, "blocking", &[])
            .unwrap_or_else(|e| panic!("{e}"));
        let s = Scratch::new(self, "no-checkpoint", deck);
        let out = self
            .complete(&s, self.command(&s, Some("blocking"), true, &[]), "restart")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            out.stderr.contains("no complete checkpoint"),
            "restart should say it starts afresh: {}",
            out.stderr
        );
        let diags = out.diags.expect("diagnostics");
        assert_eq!(restored(&diags), Ok(None), "nothing to restore");
        assert_eq!(out.summary.as_deref(), Some(base.summary.as_str()));
        assert_eq!(out.digest.as_deref(), Some(base.digest.as_str()));
    }

    /// The judgements can fail: with the restore disabled on purpose
    /// (`OPS_TEST_MUTATION=skip-restore`, see `ops_core::testing`) the restarted runs compute
    /// the same results from the beginning, and the random-kill, write-kill and SIGTERM
    /// judgements must all reject them. Panics if one does not.
    pub fn check_judgements_catch_a_disabled_restore(&self, deck: &str, checkpoint: u64) {
        let env: Env<'_> = &[("OPS_TEST_MUTATION", "skip-restore")];
        let cases: [(&str, Result<Verdict, String>); 3] = [
            (
                "random kills",
                self.judge_kills(deck, "blocking", Injection::Loop, 2, 7, env),
            ),
            (
                "write kills",
                self.judge_write_kills(deck, &[checkpoint], env),
            ),
            (
                "SIGTERM in memory mode",
                self.judge_kills(deck, "memory", Injection::SigTerm, 2, 7, env),
            ),
        ];
        for (what, verdict) in cases {
            match verdict {
                Ok(v) => panic!(
                    "the {what} judgement passed with the restore disabled (restored {:?})",
                    v.restored
                ),
                Err(e) => assert!(
                    e.contains("started afresh") || e.contains("no restore"),
                    "the {what} judgement failed, but not because nothing was restored: {e}"
                ),
            }
        }
    }
}
