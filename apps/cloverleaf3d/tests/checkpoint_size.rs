//! Automatic checkpointing with no hints reaches CloverLeaf 3D's hand-derived minimum: once the
//! learner has seen whole time steps, every checkpoint (but the last, cut short by the end of
//! the run) saves at most 1.05 x density1, energy1, xvel1, yvel1 and zvel1 with their halos
//! (the state right before reset_field). The app has no checkpoint code.

use clap::Parser;
use cloverleaf3d::{run, Cli};
use ops_testkit::{assert_steady_checkpoint_at_most, scratch};

/// clover_bm's states on an `n`^3 mesh for `steps` steps.
fn bm_deck(n: usize, steps: usize) -> String {
    format!(
        "*clover
 state 1 density=0.2 energy=1.0
 state 2 density=1.0 energy=2.5 geometry=cuboid xmin=0.0 xmax=5.0 ymin=0.0 ymax=2.0 zmin=0.0 zmax=4.0
 x_cells={n} y_cells={n} z_cells={n}
 xmax=10.0 ymax=10.0 zmax=10.0
 initial_timestep=0.1 max_timestep=0.1
 end_step={steps}
 summary_frequency=10
*endclover
"
    )
}

#[test]
fn steady_state_checkpoints_save_at_most_1_05_x_the_minimum() {
    let dir = scratch("cloverleaf3d", "ckpt-size");
    let n = 32;
    let deck = dir.join("deck.in");
    std::fs::write(&deck, bm_deck(n, 30)).unwrap();
    let (diags, ckpt) = (dir.join("diags.json"), dir.join("ckpt"));
    let args = [
        "cloverleaf3d",
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
    // Two cell fields with 2-deep halos, three node fields one point longer per direction.
    let (cells, nodes) = ((n + 4) as f64, (n + 5) as f64);
    let minimum = 8.0 * (2.0 * cells.powi(3) + 3.0 * nodes.powi(3));
    assert_steady_checkpoint_at_most(&diags, 1.05, minimum);
    let _ = std::fs::remove_dir_all(&dir);
}
