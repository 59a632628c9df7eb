//! Automatic checkpointing with no hints reaches CloverLeaf's hand-derived minimum: once the
//! learner has seen whole time steps, every checkpoint (but the last, cut short by the end of
//! the run) saves at most 1.05 x density1, energy1, xvel1 and yvel1 with their halos (the state
//! right before reset_field), and the location, once decided, stays: the field summary every ten
//! steps is part of the step, not an iteration enclosing ten of them.

mod common;

use clap::Parser;
use cloverleaf::{run, Cli};
use ops_testkit::{assert_steady_checkpoint_at_most, scratch};

#[test]
fn steady_state_checkpoints_save_at_most_1_05_x_the_minimum() {
    let dir = scratch("cloverleaf", "ckpt-size");
    let n = 120;
    let deck = dir.join("deck.in");
    std::fs::write(&deck, common::bm_deck(n, 42, 10)).unwrap();
    let (diags, ckpt) = (dir.join("diags.json"), dir.join("ckpt"));
    let args = [
        "cloverleaf",
        deck.to_str().unwrap(),
        "--no-progress",
        "--ops-checkpoint-dir",
        ckpt.to_str().unwrap(),
        "--ops-checkpoint-every",
        "1",
        "--ops-diags-json",
        diags.to_str().unwrap(),
    ];
    let cli = Cli::try_parse_from(args).unwrap();
    run(&cli, &mut Vec::new()).unwrap();
    // Cell fields with 2-deep halos, node fields one point longer.
    let (cells, nodes) = ((n + 4) as f64, (n + 5) as f64);
    let minimum = 2.0 * 8.0 * (cells * cells + nodes * nodes);
    assert_steady_checkpoint_at_most(&diags, 1.05, minimum);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&diags).unwrap()).unwrap();
    assert_eq!(
        report["location"]["revisions"], 0,
        "the location moved: {}",
        report["location"]["history"]
    );
    // One checkpoint per step from the decision (in the fourth step) on.
    let checkpoints = report["checkpoints"].as_array().unwrap().len();
    assert!(checkpoints >= 36, "{checkpoints} checkpoints in 42 steps");
    let _ = std::fs::remove_dir_all(&dir);
}
