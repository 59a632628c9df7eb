//! Automatic checkpointing, judged end to end: CloverLeaf 3D is killed (SIGKILL at loop indices
//! spread over the run, SIGKILL in the middle of a checkpoint write, SIGTERM in memory mode),
//! restarted with `--ops-restart`, and must restore the newest complete checkpoint, checkpoint
//! on the uninterrupted run's schedule and end with bitwise the same summaries and datasets
//! (the judgement is `ops_testkit::restart`, shared with the other apps). A mutation test shows
//! the judgements fail when the restore is disabled.
//!
//! The app has no checkpoint code: the `--ops-checkpoint-*` flags are its whole interface.

use ops_testkit::restart::App;

const CLOVER: App = App {
    bin: env!("CARGO_BIN_EXE_cloverleaf3d"),
    name: "cloverleaf3d",
    args: &[
        "--no-progress",
        "--ops-backend",
        "rayon",
        "--ops-threads",
        "2",
    ],
};

/// A moving sphere and a cuboid on an `n`^3 mesh for `steps` steps, summaries every 5 steps.
fn deck((n, steps): (usize, usize)) -> String {
    format!(
        "*clover
 state 1 density=0.2 energy=1.0
 state 2 density=1.0 energy=2.5 geometry=cuboid xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0 zmin=0.0 zmax=4.0
 state 3 density=0.5 energy=1.5 xvel=0.3 yvel=-0.2 zvel=0.1 geometry=sphere xmin=6.0 ymin=6.0 zmin=6.0 radius=2.0
 x_cells={n} y_cells={n} z_cells={n}
 xmax=10.0 ymax=10.0 zmax=10.0
 initial_timestep=0.04 timestep_rise=1.5 max_timestep=0.04
 end_step={steps}
 summary_frequency=5
*endclover
"
    )
}

/// A small problem with many steps: quick, yet it sees many checkpoints.
const SMALL: (usize, usize) = (12, 30);

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
    let changed = deck(SMALL).replace("state 1 density=0.2", "state 1 density=0.3");
    assert_ne!(changed, deck(SMALL));
    CLOVER.check_restart_with_another_deck(&deck(SMALL), &changed, &deck((SMALL.0, SMALL.1 + 8)));
}
