//! The tutorial's program (docs/tutorial.md) does what the tutorial says: it reaches the known
//! steady state, the same on one thread and on several, and a run killed mid-way continues from
//! its checkpoint to the same answer.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_heat-tutorial");

fn heat(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("OPS_") {
            c.env_remove(k);
        }
    }
    c
}

fn run(mut c: Command) -> Output {
    c.output().expect("run heat-tutorial")
}

/// The result line without the backend's name.
fn answer(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out.lines().last().unwrap_or_default();
    line.split_once(": steady")
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_else(|| panic!("no result line:\n{out}"))
}

#[test]
fn reaches_the_steady_state_the_same_on_every_cpu_backend() {
    let seq = run(heat(&["--ops-backend", "seq"]));
    assert!(
        seq.status.success(),
        "{}",
        String::from_utf8_lossy(&seq.stderr)
    );
    let text = answer(&seq);
    let err: f64 = text
        .rsplit(' ')
        .next()
        .and_then(|e| e.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(err < 1e-3, "{text}");
    // Every loop on the pool, two threads: the same bits (the printed error included).
    let png = std::env::temp_dir().join(format!("heat-tutorial-{}.png", std::process::id()));
    let rayon = run(heat(&[
        "--ops-threads",
        "2",
        "--ops-inline-points",
        "0",
        "--snapshot-png",
        png.to_str().unwrap(),
    ]));
    assert!(rayon.status.success());
    assert_eq!(answer(&rayon), text);
    // The picture of the final temperature.
    ops_testkit::assert_png(&png, 2_000);
    let _ = std::fs::remove_file(&png);
}

#[test]
fn a_killed_run_continues_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let flags = [
        "--ops-checkpoint-dir",
        ck.to_str().unwrap(),
        "--ops-checkpoint-every",
        "500",
    ];
    let want = answer(&run(heat(&[])));
    let mut killed = heat(&flags);
    killed.env("OPS_INJECT_FAILURE", "loop:20000");
    let o = run(killed);
    assert_eq!(o.status.signal(), Some(9), "the run was not killed");
    let mut again: Vec<&str> = flags.to_vec();
    again.push("--ops-restart");
    let o = run(heat(&again));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("restored checkpoint"), "{err}");
    assert_eq!(answer(&o), want);
}
