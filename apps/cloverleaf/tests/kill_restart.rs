//! Automatic checkpointing, judged end to end: CloverLeaf is killed (SIGKILL at random loop
//! indices, SIGKILL in the middle of a checkpoint write, SIGTERM in memory mode), restarted with
//! `--ops-restart`, and its `--summary-json` must be bitwise identical to an uninterrupted run's
//! (the judgement is `ops_testkit::restart`, shared with TeaLeaf).
//!
//! The app has no checkpoint code: the `--ops-checkpoint-*` flags are its whole interface.

mod common;

use std::time::Duration;

use ops_testkit::restart::App;

const CLOVER: App = App {
    bin: env!("CARGO_BIN_EXE_cloverleaf"),
    name: "cloverleaf",
    args: &[
        "--no-progress",
        "--ops-backend",
        "rayon",
        "--ops-threads",
        "2",
    ],
};

/// clover_bm's states on a `cells` x `cells` mesh for `steps` steps, summaries every 5 steps.
fn deck((cells, steps): (usize, usize)) -> String {
    common::bm_deck(cells, steps, 5)
}

/// A small problem with many steps: quick, yet it sees many checkpoints.
const SMALL: (usize, usize) = (48, 40);
/// Long enough (about a second or more) for a signal sent from outside to arrive mid-run.
const LONG: (usize, usize) = (128, 300);
/// Loops of the small run (about 5000 after start-up).
const SMALL_LOOPS: u64 = 5000;

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_blocking() {
    CLOVER.check_random_kills(&deck(SMALL), "blocking", 20, 1, SMALL_LOOPS);
}

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_thread() {
    CLOVER.check_random_kills(&deck(SMALL), "thread", 20, 2, SMALL_LOOPS);
}

#[test]
fn sigkill_during_checkpoint_writes_then_restart_is_bitwise_identical() {
    CLOVER.check_write_kills(&deck(SMALL), &[2, 5, 9]);
}

#[test]
fn sigterm_in_memory_mode_then_restart_is_bitwise_identical() {
    let delays = [Duration::from_millis(300), Duration::from_millis(700)];
    CLOVER.check_sigterm_in_memory_mode(&deck(LONG), &delays);
}

#[test]
fn restart_without_a_checkpoint_starts_from_the_beginning() {
    CLOVER.check_restart_without_a_checkpoint(&deck(SMALL));
}
