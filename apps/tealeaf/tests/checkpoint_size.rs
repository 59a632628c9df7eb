//! Automatic checkpointing with no hints reaches TeaLeaf's hand-derived minimum: once the
//! learner has seen whole time steps, every checkpoint (but the last, cut short by the end of the run) saves at most 1.05 x energy1 with its
//! halo (the state before the linear solve; density, the mesh and energy0 are recomputed by
//! re-executing start-up loops at restore).

use std::path::PathBuf;

use clap::Parser;
use tealeaf::{run, Cli};

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/reference/decks/tealeaf"
);

#[test]
fn steady_state_checkpoints_save_at_most_1_05_x_energy1() {
    let dir = std::env::temp_dir().join(format!("tealeaf-ckpt-size-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let deck = PathBuf::from(REFERENCE).join("tea_bm_2.in");
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
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&diags).unwrap()).unwrap();
    let cks = report["checkpoints"].as_array().unwrap();
    // The last region is cut short by the end of the run (it saves what is still undecided):
    // judge the one before.
    assert!(cks.len() >= 3, "{} checkpoints", cks.len());
    let last = &cks[cks.len() - 2];
    // tea_bm_2: 250 x 250 cells, energy1 with its 1-deep halo.
    let minimum = 252.0 * 252.0 * 8.0;
    let bytes = last["bytes"].as_f64().unwrap();
    assert!(
        bytes <= 1.05 * minimum,
        "last checkpoint at `{}`: {bytes} bytes, {:.2} x the minimum",
        last["location"],
        bytes / minimum
    );
    assert!(last["location"]
        .as_str()
        .unwrap()
        .starts_with("tea_leaf_init_common@"));
    let _ = std::fs::remove_dir_all(&dir);
}
