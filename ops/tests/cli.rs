//! End to end through the command line: `ops-heat` (a program with no checkpoint code) is
//! killed with SIGKILL at loop indices and in the middle of checkpoint writes, restarted with
//! `--ops-restart`, and must print exactly what an uninterrupted run prints. Also: restarting
//! with no checkpoint, corrupted checkpoint files, flag errors, the diagnostics JSON.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_ops-heat");

struct Scratch(PathBuf);

impl Scratch {
    fn new(label: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("ops-cli-{}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    fn path(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn heat(out: &Path, args: &[&str]) -> Command {
    heat_sized("24", "25", out, args)
}

/// [`heat`] on `n` x `n` cells for `steps` steps.
fn heat_sized(n: &str, steps: &str, out: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args([
        "--n",
        n,
        "--steps",
        steps,
        "--ops-backend",
        "rayon",
        "--ops-threads",
        "2",
    ])
    .arg("--out")
    .arg(out)
    .args(args)
    .env_remove("OPS_INJECT_FAILURE");
    for (k, _) in std::env::vars() {
        if k.starts_with("OPS_") {
            c.env_remove(k);
        }
    }
    c
}

fn run(mut c: Command) -> Output {
    c.output().expect("run ops-heat")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn reference(s: &Scratch) -> String {
    let out = s.path("ref.txt");
    let o = run(heat(&out, &[]));
    assert!(o.status.success(), "{}", text(&o));
    std::fs::read_to_string(out).unwrap()
}

fn ckpt_flags<'a>(dir: &'a str, mode: &'a str) -> Vec<&'a str> {
    vec![
        "--ops-checkpoint-dir",
        dir,
        "--ops-checkpoint-mode",
        mode,
        "--ops-checkpoint-every",
        "1",
    ]
}

#[test]
fn sigkill_at_loops_then_restart_is_bitwise_identical() {
    let s = Scratch::new("kill");
    let want = reference(&s);
    let dir = s.path("ck");
    let dir = dir.to_str().unwrap();
    // How many loops the run has (the tracker's summary line says).
    let o = run(heat(&s.path("count.txt"), &["--ops-diags", "1"]));
    let t = text(&o);
    let loops: u64 = t
        .split("ops-resilience: ")
        .nth(1)
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no loop count in {t}"));
    let mut restored = 0;
    let kills: Vec<u64> = (1..=10).map(|i| loops * i / 11 + i * 7 % 5).collect();
    for (i, n) in kills.iter().enumerate() {
        let mode = ["blocking", "thread"][i % 2];
        let _ = std::fs::remove_dir_all(dir);
        let out = s.path("out.txt");
        let mut c = heat(&out, &ckpt_flags(dir, mode));
        c.env("OPS_INJECT_FAILURE", format!("loop:{n}"));
        let o = run(c);
        if o.status.success() {
            continue; // the run was shorter
        }
        assert_eq!(o.status.signal(), Some(9), "loop:{n}: {}", text(&o));
        let mut args = ckpt_flags(dir, mode);
        args.extend(["--ops-restart", "--ops-diags", "1"]);
        let o = run(heat(&out, &args));
        assert!(o.status.success(), "restart after loop:{n}: {}", text(&o));
        assert!(
            std::fs::read_to_string(&out).unwrap() == want,
            "{mode}, killed before loop {n}: the restarted run differs\n{}",
            text(&o)
        );
        if text(&o).contains("restored checkpoint") {
            restored += 1;
        }
    }
    assert!(restored >= 6, "only {restored} restarts found a checkpoint");
}

/// A long run's logs are kept in shared pieces (values) and deflated as they grow (calls): a
/// restart late in a run reads them across many pieces and checkpoints.
#[test]
fn a_late_restart_of_a_long_run_is_bitwise_identical() {
    let s = Scratch::new("long");
    let (n, steps) = ("8", "3000");
    let want = s.path("ref.txt");
    let o = run(heat_sized(n, steps, &want, &[]));
    assert!(o.status.success(), "{}", text(&o));
    let dir = s.path("ck");
    let dir = dir.to_str().unwrap();
    for (mode, kill) in [("blocking", 24_000), ("thread", 26_500)] {
        let _ = std::fs::remove_dir_all(dir);
        let out = s.path("out.txt");
        let mut flags = ckpt_flags(dir, mode);
        flags[5] = "100";
        let mut c = heat_sized(n, steps, &out, &flags);
        c.env("OPS_INJECT_FAILURE", format!("loop:{kill}"));
        let o = run(c);
        assert_eq!(o.status.signal(), Some(9), "loop:{kill}: {}", text(&o));
        flags.push("--ops-restart");
        let o = run(heat_sized(n, steps, &out, &flags));
        let t = text(&o);
        assert!(o.status.success(), "restart after loop:{kill}: {t}");
        assert!(t.contains("restored checkpoint"), "{t}");
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&want).unwrap(),
            "{mode}, killed before loop {kill}: the restarted run differs\n{t}"
        );
    }
}

#[test]
fn sigkill_while_writing_a_checkpoint_then_restart_is_bitwise_identical() {
    let s = Scratch::new("write");
    let want = reference(&s);
    let dir = s.path("ck");
    let dir = dir.to_str().unwrap();
    for mode in ["blocking", "thread"] {
        let _ = std::fs::remove_dir_all(dir);
        let out = s.path("out.txt");
        let mut c = heat(&out, &ckpt_flags(dir, mode));
        c.env("OPS_INJECT_FAILURE", "write:3");
        let o = run(c);
        assert_eq!(o.status.signal(), Some(9), "{mode}: {}", text(&o));
        let mut args = ckpt_flags(dir, mode);
        args.push("--ops-restart");
        let o = run(heat(&out, &args));
        assert!(o.status.success(), "{}", text(&o));
        assert!(std::fs::read_to_string(&out).unwrap() == want, "{mode}");
    }
}

#[test]
fn restart_without_checkpoint_says_so_and_starts_from_the_beginning() {
    let s = Scratch::new("none");
    let want = reference(&s);
    let dir = s.path("empty");
    let out = s.path("out.txt");
    let mut args = ckpt_flags(dir.to_str().unwrap(), "blocking");
    args.push("--ops-restart");
    let o = run(heat(&out, &args));
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "no complete checkpoint in {}; starting from the beginning",
            dir.display()
        )),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
}

#[test]
fn a_corrupted_newest_checkpoint_is_rejected_by_name_and_an_older_one_used() {
    let s = Scratch::new("corrupt");
    let want = reference(&s);
    let dir = s.path("ck");
    let d = dir.to_str().unwrap();
    let out = s.path("out.txt");
    let mut args = ckpt_flags(d, "blocking");
    args.extend(["--ops-checkpoint-keep", "3"]);
    let o = run(heat(&out, &args));
    assert!(o.status.success(), "{}", text(&o));
    // Cut the newest file short, as a crash of the file system would.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "h5"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "keep 3: {files:?}");
    let newest = files.last().unwrap();
    let bytes = std::fs::read(newest).unwrap();
    std::fs::write(newest, &bytes[..bytes.len() * 2 / 3]).unwrap();
    args.extend(["--ops-restart", "--ops-diags", "1"]);
    let o = run(heat(&out, &args));
    assert!(o.status.success(), "{}", text(&o));
    let name = newest.file_name().unwrap().to_str().unwrap();
    assert!(
        text(&o).contains("rejected checkpoint") && text(&o).contains(name),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("restored checkpoint"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
}

#[test]
fn a_flipped_byte_in_the_newest_checkpoint_falls_back_to_the_previous_one() {
    let s = Scratch::new("flip");
    let want = reference(&s);
    let dir = s.path("ck");
    let d = dir.to_str().unwrap();
    let out = s.path("out.txt");
    let mut args = ckpt_flags(d, "blocking");
    args.extend(["--ops-checkpoint-keep", "3"]);
    let o = run(heat(&out, &args));
    assert!(o.status.success(), "{}", text(&o));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "h5"))
        .collect();
    files.sort();
    // One bit in the file's first kilobyte (HDF5's superblock and object headers: what crashed
    // the library before the whole file was checksummed).
    let newest = files.last().unwrap();
    let mut bytes = std::fs::read(newest).unwrap();
    bytes[200] ^= 0x10;
    std::fs::write(newest, &bytes).unwrap();
    let _ = std::fs::remove_file(&out);
    args.extend(["--ops-restart", "--ops-diags", "1"]);
    let o = run(heat(&out, &args));
    assert!(o.status.success(), "{}", text(&o));
    let name = newest.file_name().unwrap().to_str().unwrap();
    assert!(
        text(&o).contains("rejected checkpoint")
            && text(&o).contains(name)
            && text(&o).contains("damaged"),
        "{}",
        text(&o)
    );
    let older = files[files.len() - 2]
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    let seq: u64 = older.split('.').nth(2).unwrap().parse().unwrap();
    assert!(
        text(&o).contains(&format!("restored checkpoint {seq} ")),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
}

#[test]
fn a_directory_in_use_by_another_run_is_refused_naming_the_holder() {
    let s = Scratch::new("locked");
    let dir = s.path("ck");
    let d = dir.to_str().unwrap();
    let out = s.path("out.txt");
    // This test process holds the directory, as a running job would.
    let held = ops::ops_resilience::store::DirLock::acquire(&dir, "ops-heat").unwrap();
    for restart in [false, true] {
        let mut args = ckpt_flags(d, "blocking");
        if restart {
            args.push("--ops-restart");
        }
        let o = run(heat(&out, &args));
        assert!(!o.status.success(), "restart {restart}: accepted");
        assert!(
            text(&o).contains("in use by another run")
                && text(&o).contains(&format!("pid {}", std::process::id()))
                && text(&o).contains("--ops-checkpoint-dir"),
            "{}",
            text(&o)
        );
    }
    drop(held);
    let o = run(heat(&out, &ckpt_flags(d, "blocking")));
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn unusable_paths_and_numbers_are_refused_before_the_run() {
    let s = Scratch::new("paths");
    let out = s.path("out.txt");
    // A diagnostics file that cannot be written: refused at start, naming the flag.
    let o = run(heat(
        &out,
        &["--ops-diags-json", "/nonexistent-dir/diags.json"],
    ));
    assert!(
        !o.status.success() && text(&o).contains("--ops-diags-json"),
        "{}",
        text(&o)
    );
    assert!(!out.exists(), "the run went ahead");
    let o = run(heat(&out, &["--ops-diags-png", "/nonexistent-dir/c.png"]));
    assert!(
        !o.status.success() && text(&o).contains("--ops-diags-png /nonexistent-dir/c.png"),
        "{}",
        text(&o)
    );
    assert!(!out.exists(), "the run went ahead");
    // A checkpoint numbered u64::MAX: no newer one can be numbered (it used to wrap to 0).
    let dir = s.path("ck");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("ops-heat.ckpt.{}.rank0.h5", u64::MAX)),
        b"x",
    )
    .unwrap();
    let o = run(heat(&out, &ckpt_flags(dir.to_str().unwrap(), "blocking")));
    assert!(
        !o.status.success() && text(&o).contains("no newer one can be numbered"),
        "{}",
        text(&o)
    );
}

#[test]
fn bad_flag_values_are_errors_naming_the_flag() {
    let s = Scratch::new("flags");
    let out = s.path("out.txt");
    let cases: &[(&[&str], &str)] = &[
        (
            &["--ops-checkpoint-interval", "soon"],
            "--ops-checkpoint-interval",
        ),
        (&["--ops-checkpoint-every", "0"], "--ops-checkpoint-every"),
        (&["--ops-checkpoint-keep", "0"], "--ops-checkpoint-keep"),
        (&["--ops-checkpoint-mode", "tape"], "--ops-checkpoint-mode"),
        (&["--ops-diags", "12"], "--ops-diags"),
        (&["--ops-mtbf", "0s"], "--ops-mtbf"),
        (&["--ops-checkpoint-interval", "auto"], "--ops-mtbf"),
    ];
    for (args, flag) in cases {
        let o = run(heat(&out, args));
        assert!(!o.status.success(), "{args:?} accepted");
        assert!(text(&o).contains(flag), "{args:?}: {}", text(&o));
    }
    // The same through the environment.
    let mut c = heat(&out, &[]);
    c.env("OPS_CHECKPOINT_MODE", "tape");
    let o = run(c);
    assert!(
        !o.status.success() && text(&o).contains("--ops-checkpoint-mode"),
        "{}",
        text(&o)
    );
    let mut c = heat(&out, &[]);
    c.env("OPS_INJECT_FAILURE", "loop:soon");
    let o = run(c);
    assert!(
        !o.status.success() && text(&o).contains("OPS_INJECT_FAILURE"),
        "{}",
        text(&o)
    );
}

#[test]
fn diagnostics_json_reports_checkpoints_and_decisions() {
    let s = Scratch::new("diags");
    let want = reference(&s);
    let dir = s.path("ck");
    let json = s.path("diags.json");
    let png = s.path("candidates.png");
    let out = s.path("out.txt");
    let mut args = ckpt_flags(dir.to_str().unwrap(), "thread");
    args.extend([
        "--ops-diags",
        "3",
        "--ops-diags-json",
        json.to_str().unwrap(),
        "--ops-diags-png",
        png.to_str().unwrap(),
    ]);
    let o = run(heat(&out, &args));
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
    let t = text(&o);
    assert!(t.contains("checkpoint location candidates"), "{t}");
    assert!(t.contains("stall"), "{t}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cks = j["checkpoints"].as_array().unwrap();
    assert!(!cks.is_empty());
    for c in cks {
        for key in [
            "loop_index",
            "location",
            "bytes",
            "datasets",
            "stall_s",
            "write_s",
        ] {
            assert!(c.get(key).is_some(), "checkpoint without {key}: {c}");
        }
    }
    // The conductivity is computed once at start-up: recomputed, never saved.
    let last = cks.last().unwrap();
    let names: Vec<&str> = last["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"plate/conductivity"), "{names:?}");
    let dec = last["decisions"].as_array().unwrap();
    let cond = dec
        .iter()
        .find(|d| d["name"] == "plate/conductivity")
        .unwrap();
    assert_eq!(cond["reason"], "recomputed at restore");
    assert!(j["location"]["chosen"].is_string());
    // The candidates, in the order of the pass, drawn as a chart.
    let cands = j["location"]["candidates"].as_array().unwrap();
    let mut positions: Vec<u64> = cands
        .iter()
        .map(|c| c["position"].as_u64().unwrap())
        .collect();
    positions.sort_unstable();
    positions.dedup();
    assert_eq!(positions.len(), cands.len(), "one position per candidate");
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "--ops-diags-png wrote {} bytes",
        bytes.len()
    );
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "--ops-diags-png wrote {} bytes",
        bytes.len()
    );
}

/// A run with no checkpoint due tracks most passes of its time step whole (each loop only
/// logged), and its diagnostics say how many; the results are those of the untracked run.
#[test]
fn most_passes_of_a_steady_run_are_tracked_whole() {
    let s = Scratch::new("passes");
    let (want, out, json) = (s.path("ref.txt"), s.path("out.txt"), s.path("d.json"));
    let o = run(heat_sized("8", "2000", &want, &[]));
    assert!(o.status.success(), "{}", text(&o));
    let o = run(heat_sized(
        "8",
        "2000",
        &out,
        &["--ops-diags-json", json.to_str().unwrap()],
    ));
    assert!(o.status.success(), "{}", text(&o));
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&want).unwrap());
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // All but the passes before the decision and while start-up's history is kept (its first
    // 4,096 writing loops, about 600 steps here).
    let repeated = j["repeated_passes"].as_u64().unwrap();
    assert!(repeated > 1200, "{repeated} of 2000 passes repeated whole");
}

#[test]
fn the_tolerance_sets_the_inner_sweeps_and_a_bad_one_is_refused() {
    let s = Scratch::new("tol");
    let loops = |tol: &str| {
        let json = s.path(&format!("d{tol}.json"));
        let arg = format!("--tol={tol}");
        let o = run(heat_sized(
            "8",
            "100",
            &s.path("out.txt"),
            &[&arg, "--ops-diags-json", json.to_str().unwrap()],
        ));
        assert!(o.status.success(), "{}", text(&o));
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        j["loops"].as_u64().unwrap()
    };
    // Four sweeps of 7 loops in every step against one.
    assert_eq!(loops("0") - loops("1e9"), 100 * 3 * 7);
    for bad in ["-1", "nan", "x"] {
        let o = run(heat(&s.path("out.txt"), &[&format!("--tol={bad}")]));
        assert!(!o.status.success());
        assert!(text(&o).contains("--tol"), "{}", text(&o));
    }
}

#[test]
fn no_flags_no_observer() {
    // Without checkpoint or diagnostics flags nothing is installed: no directory appears and
    // nothing is printed.
    let s = Scratch::new("plain");
    let out = s.path("out.txt");
    let mut c = heat(&out, &[]);
    c.current_dir(&s.0);
    let o = run(c);
    assert!(o.status.success());
    assert!(text(&o).is_empty(), "{}", text(&o));
    assert!(!s.path("ops-checkpoints").exists());
}

#[test]
fn a_restart_with_other_parameters_is_refused_naming_them() {
    let s = Scratch::new("params");
    let dir = s.path("ck");
    let d = dir.to_str().unwrap();
    let out = s.path("out.txt");
    let o = run(heat(&out, &ckpt_flags(d, "blocking")));
    assert!(o.status.success(), "{}", text(&o));
    // The same command with another mesh size.
    let mut c = Command::new(BIN);
    c.args(["--n", "30", "--steps", "25", "--ops-restart"])
        .arg("--out")
        .arg(&out)
        .args(ckpt_flags(d, "blocking"));
    for (k, _) in std::env::vars() {
        if k.starts_with("OPS_") {
            c.env_remove(k);
        }
    }
    let o = run(c);
    assert!(
        !o.status.success()
            && text(&o).contains("the input `parameters` is not the one the checkpoint")
            && !text(&o).contains("diverged"),
        "{}",
        text(&o)
    );
}

/// A full disk (here a file-size limit, which needs no root) loses checkpoints, not the run:
/// in every mode the run ends with status 0, each failed checkpoint is
/// named by its own number, later checkpoints are still tried, no temporary file is left, and
/// the count reported is of the checkpoints that were written.
#[test]
fn a_full_disk_loses_checkpoints_not_the_run() {
    let s = Scratch::new("full");
    for mode in ["blocking", "thread", "memory"] {
        let dir = s.path(&format!("ck-{mode}"));
        let flags = ckpt_flags(dir.to_str().unwrap(), mode).join(" ");
        // 32 KiB per file (bash counts 1024-byte blocks): the checkpoint files (22 kB) fit, but
        // the directory's value log, which grows about 90 bytes a step, outgrows the limit
        // after some 360 steps: the checkpoints from then on cannot be written.
        let script = format!(
            "trap '' XFSZ; ulimit -f 32; exec {BIN} --n 24 --steps 600 --ops-backend rayon \
             --ops-threads 2 {flags} --ops-diags 1 --ops-checkpoint-keep 1000"
        );
        let mut c = Command::new("bash");
        c.args(["-c", &script]);
        for (k, _) in std::env::vars() {
            if k.starts_with("OPS_") {
                c.env_remove(k);
            }
        }
        let o = run(c);
        let err = text(&o);
        assert!(o.status.success(), "{mode}: {:?}\n{err}", o.status);
        let failed: Vec<u64> = err
            .lines()
            .filter_map(|l| l.strip_prefix("ops-resilience: checkpoint "))
            .filter_map(|l| l.split_once(" failed:"))
            .map(|(n, _)| n.parse().unwrap())
            .collect();
        let files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !files.iter().any(|f| f.ends_with(".tmp")),
            "{mode}: {files:?}"
        );
        if mode == "memory" {
            // One write, at exit: it fails once, said once.
            assert_eq!(err.matches("flushing checkpoints").count(), 1, "{err}");
            continue;
        }
        assert!(failed.len() >= 2, "{mode}: no failure\n{err}");
        // Named by its own number, each failure once, and the numbers go on after the first.
        let mut sorted = failed.clone();
        sorted.dedup();
        assert_eq!(sorted, failed, "{mode}: {err}");
        let written = files.iter().filter(|f| f.ends_with(".h5")).count();
        // The closing line: "ops-resilience: N loops, M checkpoint(s); tracking took ...".
        let said: usize = err
            .lines()
            .filter(|l| l.contains(" checkpoint(s); "))
            .find_map(|l| l.split_once(" loops, "))
            .and_then(|(_, rest)| rest.split_once(" checkpoint(s)"))
            .map(|(n, _)| n.parse().unwrap())
            .unwrap_or_else(|| panic!("{mode}: no count\n{err}"));
        assert!(said > 0, "{mode}: nothing fitted\n{err}");
        assert_eq!(
            said, written,
            "{mode}: count said vs files {files:?}\n{err}"
        );
        for n in &failed {
            assert!(
                !files.iter().any(|f| f.contains(&format!(".ckpt.{n:06}."))),
                "{mode}: failed checkpoint {n} has files"
            );
        }
    }
}
