//! Automatic checkpointing, judged end to end: TeaLeaf (CG and PPCG) is killed (SIGKILL at
//! random loop indices, SIGKILL in the middle of a checkpoint write, SIGTERM in memory mode),
//! restarted with `--ops-restart`, and its `--summary-json` must be bitwise identical to an
//! uninterrupted run's (the judgement is `ops_testkit::restart`, shared with CloverLeaf). The
//! solves run a reduction-driven number of iterations, so a restart is right only if the
//! replayed control flow is identical.
//!
//! The app has no checkpoint code: the `--ops-checkpoint-*` flags are its whole interface.

use std::time::Duration;

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
/// Long enough for a signal sent from outside to arrive mid-run.
const LONG: (usize, usize) = (200, 20);
/// Both small runs execute about 830 loops (CG) and more (PPCG): kill inside them.
const SMALL_LOOPS: u64 = 600;

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_cg() {
    TEA.check_random_kills(&deck(SMALL, CG), "blocking", 20, 1, SMALL_LOOPS);
}

#[test]
fn sigkill_at_random_loops_then_restart_is_bitwise_identical_ppcg() {
    TEA.check_random_kills(&deck(SMALL, PPCG), "thread", 20, 2, SMALL_LOOPS);
}

#[test]
fn sigkill_during_checkpoint_writes_then_restart_is_bitwise_identical() {
    TEA.check_write_kills(&deck(SMALL, CG), &[1, 2]);
}

#[test]
fn sigterm_in_memory_mode_then_restart_is_bitwise_identical() {
    let delays = [Duration::from_millis(300), Duration::from_millis(700)];
    TEA.check_sigterm_in_memory_mode(&deck(LONG, CG), &delays);
}

#[test]
fn restart_without_a_checkpoint_starts_from_the_beginning() {
    TEA.check_restart_without_a_checkpoint(&deck(SMALL, CG));
}
