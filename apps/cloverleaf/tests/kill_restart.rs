//! Automatic checkpointing, judged end to end: CloverLeaf is killed (SIGKILL at loop indices
//! spread over the run, SIGKILL in the middle of a checkpoint write, SIGTERM in memory mode),
//! restarted with `--ops-restart`, and must restore the newest complete checkpoint, checkpoint
//! on the uninterrupted run's schedule and end with bitwise the same summaries and datasets
//! (the judgement is `ops_testkit::restart`, shared with TeaLeaf). A mutation test shows the
//! judgements fail when the restore is disabled.
//!
//! The app has no checkpoint code: the `--ops-checkpoint-*` flags are its whole interface.

mod common;

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

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_blocking() {
    CLOVER.check_random_kills(&deck(SMALL), "blocking", 20, 1);
}

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_thread() {
    CLOVER.check_random_kills(&deck(SMALL), "thread", 20, 2);
}

#[test]
fn sigkill_during_checkpoint_writes_then_restart_is_bitwise_identical() {
    CLOVER.check_write_kills(&deck(SMALL), &[2, 5, 9]);
}

#[test]
fn sigterm_in_memory_mode_then_restart_is_bitwise_identical() {
    CLOVER.check_sigterm_in_memory_mode(&deck(SMALL), 6, 3);
}

#[test]
fn the_judgements_fail_when_the_restore_is_disabled() {
    CLOVER.check_judgements_catch_a_disabled_restore(&deck(SMALL), 5);
}

#[test]
fn restart_without_a_checkpoint_starts_from_the_beginning() {
    CLOVER.check_restart_without_a_checkpoint(&deck(SMALL));
}

#[test]
fn a_restart_with_another_deck_is_refused_and_a_later_end_continues() {
    let changed = deck(SMALL).replace("state 2 density=1.0", "state 2 density=1.5");
    assert_ne!(changed, deck(SMALL));
    CLOVER.check_restart_with_another_deck(&deck(SMALL), &changed, &deck((SMALL.0, SMALL.1 + 10)));
}

#[test]
fn damaged_checkpoint_files_fall_back_and_end_bitwise() {
    CLOVER.check_damaged_checkpoints(&deck(SMALL), 36, 5);
}
