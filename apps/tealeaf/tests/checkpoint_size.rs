//! Automatic checkpointing with no hints reaches TeaLeaf's hand-derived minimum: once the
//! learner has seen whole time steps, every checkpoint (but the last, cut short by the end of
//! the run) saves at most 1.05 x energy1 with its halo (the state before the linear solve;
//! density, the mesh and energy0 are recomputed by re-executing start-up loops at restore).

use std::path::PathBuf;

use clap::Parser;
use ops_testkit::{assert_steady_checkpoint_at_most, scratch};
use tealeaf::{run, Cli};

const DECKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/decks");

#[test]
fn steady_state_checkpoints_save_at_most_1_05_x_energy1() {
    let dir = scratch("tealeaf", "ckpt-size");
    let deck = PathBuf::from(DECKS).join("tea_bm_2.in");
    let (diags, ckpt) = (dir.join("diags.json"), dir.join("ckpt"));
    let args = [
        "tealeaf",
        deck.to_str().unwrap(),
        "--ops-checkpoint-dir",
        ckpt.to_str().unwrap(),
        "--ops-checkpoint-every",
        "1",
        "--ops-diags-json",
        diags.to_str().unwrap(),
    ];
    let cli = Cli::try_parse_from(args).unwrap();
    let outcome = run(&cli, &mut Vec::new()).unwrap();
    assert_eq!(outcome.passed, Some(true));
    // tea_bm_2: 250 x 250 cells, energy1 with its 1-deep halo.
    let minimum = 252.0 * 252.0 * 8.0;
    let last = assert_steady_checkpoint_at_most(&diags, 1.05, minimum);
    assert!(last["location"]
        .as_str()
        .unwrap()
        .starts_with("tea_leaf_init_common@"));
    let _ = std::fs::remove_dir_all(&dir);
}
