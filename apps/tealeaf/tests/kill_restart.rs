//! Automatic checkpointing, judged end to end: TeaLeaf (CG and PPCG) is killed (SIGKILL at
//! loop indices spread over the run, SIGKILL in the middle of a checkpoint write, SIGTERM in
//! memory mode), restarted with `--ops-restart`, and must restore the newest complete
//! checkpoint, checkpoint on the uninterrupted run's schedule and end with bitwise the same
//! summaries and datasets (the judgement is `ops_testkit::restart`, shared with CloverLeaf).
//! The solves run a reduction-driven number of iterations, so a restart is right only if the
//! replayed control flow is identical. A mutation test shows the judgements fail when the
//! restore is disabled.
//!
//! The app has no checkpoint code: the `--ops-checkpoint-*` flags are its whole interface.

use ops_testkit::restart::App;

const TEA: App = App {
    bin: env!("CARGO_BIN_EXE_tealeaf"),
    name: "tealeaf",
    args: &["--ops-backend", "rayon", "--ops-threads", "2"],
};

const CG: &str = "tl_use_cg";
const PPCG: &str = "tl_use_ppcg\ntl_ppcg_inner_steps 10\ntl_ch_cg_presteps 5";

/// tea_bm_1's first two states on a `cells` x `cells` mesh for `steps` steps with the given
/// solver lines, summaries every 2 steps.
fn deck((cells, steps): (usize, usize), solver: &str) -> String {
    format!(
        "*tea
state 1 density=100.0 energy=0.0001
state 2 density=0.1 energy=25.0 geometry=rectangle xmin=0.0 xmax=1.0 ymin=1.0 ymax=2.0
x_cells={cells}
y_cells={cells}
xmin=0.0
ymin=0.0
xmax=10.0
ymax=10.0
initial_timestep=0.004
end_step={steps}
summary_frequency=2
tl_max_iters=10000
{solver}
tl_eps 1.0e-15
*endtea
"
    )
}

/// A small problem: quick, yet it sees many checkpoints and many solver iterations.
const SMALL: (usize, usize) = (32, 12);
/// PPCG's passes are longer and vary more (CG presteps, eigenvalue estimate, inner steps), so
/// the location is decided later: more steps leave enough checkpoints to restore distinct ones.
const LONGER: (usize, usize) = (32, 30);

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_cg() {
    TEA.check_random_kills(&deck(SMALL, CG), "blocking", 20, 1);
}

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_ppcg() {
    TEA.check_random_kills(&deck(LONGER, PPCG), "thread", 20, 2);
}

#[test]
fn sigkill_during_checkpoint_writes_then_restart_is_bitwise_identical() {
    TEA.check_write_kills(&deck(SMALL, CG), &[1, 3]);
}

#[test]
fn sigterm_in_memory_mode_then_restart_is_bitwise_identical() {
    TEA.check_sigterm_in_memory_mode(&deck(SMALL, CG), 6, 3);
}

#[test]
fn the_judgements_fail_when_the_restore_is_disabled() {
    TEA.check_judgements_catch_a_disabled_restore(&deck(SMALL, CG), 3);
}

#[test]
fn restart_without_a_checkpoint_starts_from_the_beginning() {
    TEA.check_restart_without_a_checkpoint(&deck(SMALL, CG));
}

#[test]
fn a_restart_with_another_deck_is_refused_and_a_later_end_continues() {
    let changed = deck(SMALL, CG).replace("xmax=10.0", "xmax=20.0");
    assert_ne!(changed, deck(SMALL, CG));
    TEA.check_restart_with_another_deck(
        &deck(SMALL, CG),
        &changed,
        &deck((SMALL.0, SMALL.1 + 6), CG),
    );
}

#[test]
fn damaged_checkpoint_files_fall_back_and_end_bitwise() {
    TEA.check_damaged_checkpoints(&deck(SMALL, CG), 24, 6);
}
