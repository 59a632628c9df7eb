//! Stores under process death: SIGTERM/SIGINT write the in-memory checkpoint and exit 128+sig;
//! `OPS_INJECT_FAILURE=write:N` SIGKILLs the process in the middle of writing checkpoint N,
//! leaving an incomplete temporary file, and a restart finds checkpoint N-1.
//!
//! The children are this test binary run again with `OPS_STORE_TEST_CHILD` set, executing only
//! the (ignored) `child_process` test.

mod store_common;

use ops_resilience::store::{open_store, CheckpointStore, Hdf5Store, StoreMode};
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use store_common::{checkpoint, files, APP};

const CHILD: &str = "OPS_STORE_TEST_CHILD";
const DIR: &str = "OPS_STORE_TEST_DIR";

/// The child's side: does what `OPS_STORE_TEST_CHILD` says. Not a test of its own: the crash
/// tests run it (ignored tests run only when asked for).
#[test]
#[ignore = "child process of the crash tests, which launch it"]
fn child_process() {
    let what = std::env::var(CHILD).expect("launched by a crash test with OPS_STORE_TEST_CHILD");
    let dir = std::path::PathBuf::from(std::env::var(DIR).unwrap());
    let mode = match what.as_str() {
        "blocking" => StoreMode::Blocking,
        "thread" => StoreMode::Thread,
        "memory" => StoreMode::Memory,
        other => panic!("unknown child action {other}"),
    };
    let mut store = open_store(mode, &dir, APP, 3).unwrap();
    for seq in 1..=4 {
        store.commit(checkpoint(seq)).unwrap();
    }
    if mode != StoreMode::Memory {
        // Reached only without a failure injected before 5.
        store.flush().unwrap();
        println!("DONE");
        return;
    }
    println!("READY");
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no signal came");
}

fn child(action: &str, dir: &Path) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "child_process",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, action)
    .env(DIR, dir)
    .env_remove("OPS_INJECT_FAILURE")
    .stdout(Stdio::piped());
    cmd
}

fn signal_writes_the_memory_checkpoint(signal: i32) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut proc = child("memory", dir).spawn().unwrap();
    let mut lines = BufReader::new(proc.stdout.take().unwrap()).lines();
    loop {
        match lines.next() {
            Some(Ok(line)) if line.trim_end().ends_with("READY") => break,
            Some(Ok(_)) => {}
            other => panic!(
                "child ended before it was ready: {other:?} {:?}",
                proc.wait()
            ),
        }
    }
    assert_eq!(
        files(dir),
        Vec::<String>::new(),
        "memory mode wrote before the signal"
    );
    // SAFETY: kill(2) on our child's pid.
    assert_eq!(unsafe { libc::kill(proc.id() as i32, signal) }, 0);
    let status = proc.wait().unwrap();
    assert_eq!(status.code(), Some(128 + signal), "{status:?}");

    let found = Hdf5Store::new(dir, APP, 3).unwrap().find_latest().unwrap();
    assert_eq!(found.rejected, vec![]);
    assert!(
        found.checkpoint == Some(checkpoint(4)),
        "not the newest checkpoint, bitwise"
    );
    assert_eq!(
        files(dir),
        [
            "testapp.ckpt.000004.rank0.h5",
            "testapp.ckpt.000004.rank0.json",
            "testapp.values.rank0.1"
        ]
    );
}

#[test]
fn sigterm_writes_the_memory_checkpoint() {
    signal_writes_the_memory_checkpoint(libc::SIGTERM);
}

#[test]
fn sigint_writes_the_memory_checkpoint() {
    signal_writes_the_memory_checkpoint(libc::SIGINT);
}

fn killed_mid_write_restarts_from_the_previous(mode: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let out = child(mode, dir)
        .env("OPS_INJECT_FAILURE", "write:3")
        .output()
        .unwrap();
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGKILL),
        "{mode}: {:?}",
        out.status
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("DONE"));
    let tmp3 = dir.join(format!("{APP}.ckpt.000003.rank0.h5.tmp"));
    assert_eq!(
        files(dir),
        [
            "testapp.ckpt.000001.rank0.h5",
            "testapp.ckpt.000001.rank0.json",
            "testapp.ckpt.000002.rank0.h5",
            "testapp.ckpt.000002.rank0.json",
            "testapp.ckpt.000003.rank0.h5.tmp",
            // The test's checkpoints are unrelated histories: one value log generation each.
            "testapp.values.rank0.1",
            "testapp.values.rank0.2",
            "testapp.values.rank0.3",
        ],
        "{mode}"
    );
    assert!(std::fs::metadata(&tmp3).unwrap().len() > 0);

    let mut store = Hdf5Store::new(dir, APP, 3).unwrap();
    let found = store.find_latest().unwrap();
    assert_eq!(found.checkpoint, Some(checkpoint(2)), "{mode}");
    assert_eq!(found.rejected.len(), 1);
    assert_eq!(found.rejected[0].path, tmp3);
    assert!(found.rejected[0].reason.contains("incomplete write"));

    // The restarted run numbers on past the wreck, which its first commit clears away (in the
    // background: `flush` waits for it).
    assert_eq!(store.next_sequence().unwrap(), 4);
    store.commit(checkpoint(4)).unwrap();
    store.flush().unwrap();
    assert!(!tmp3.exists());
    assert_eq!(store.find_latest().unwrap().checkpoint, Some(checkpoint(4)));
}

#[test]
fn injected_kill_mid_write_blocking() {
    killed_mid_write_restarts_from_the_previous("blocking");
}

#[test]
fn injected_kill_mid_write_thread() {
    killed_mid_write_restarts_from_the_previous("thread");
}

#[test]
fn malformed_injection_value_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = child("blocking", tmp.path())
        .env("OPS_INJECT_FAILURE", "write:soon")
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("OPS_INJECT_FAILURE") && text.contains("write:soon"),
        "{text}"
    );
}
