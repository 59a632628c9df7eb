//! TeaLeaf across MPI processes (cargo feature `mpi`, Open MPI's `mpirun`): test problems 1
//! and 2 pass on 2 and 4 processes and agree with the single-process run; a rank killed in the
//! middle of a CG or PPCG solve restarts bitwise identical to an uninterrupted run on the same
//! process count (the solvers' reduction-driven iteration counts replay exactly).
#![cfg(feature = "mpi")]

use std::path::PathBuf;

use ops_testkit::{
    assert_distributed_restart_bitwise, assert_summaries_agree, mpirun, run_serial, scratch,
};

const BIN: &str = env!("CARGO_BIN_EXE_tealeaf");
const DECKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/decks");

fn problem_on_ranks(deck: &str) {
    let dir = scratch("tealeaf-mpi", deck);
    let deck = PathBuf::from(DECKS).join(deck);
    let serial = dir.join("serial.json");
    run_serial(BIN, &deck, &["--summary-json", serial.to_str().unwrap()]);
    let serial = std::fs::read_to_string(serial).unwrap();
    for n in [2, 4] {
        let json = dir.join(format!("ranks-{n}.json"));
        let text = mpirun(BIN, n, &deck, &["--summary-json", json.to_str().unwrap()]);
        assert!(text.contains("PASSED"), "{n} ranks:\n{text}");
        // The solvers stop on a reduction-driven criterion; sums combine in another order
        // across processes, so agreement is to rounding, not bitwise.
        let got = std::fs::read_to_string(json).unwrap();
        assert_summaries_agree(&serial, &got, 1e-10, &format!("{n} ranks"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn test_problems_1_and_2_on_2_and_4_ranks() {
    problem_on_ranks("tea_bm_1.in");
    problem_on_ranks("tea_bm_2.in");
}

fn restart_deck(solver: &str) -> String {
    format!(
        "*tea
state 1 density=100.0 energy=0.0001
state 2 density=0.1 energy=25.0 geometry=rectangle xmin=0.0 xmax=1.0 ymin=1.0 ymax=2.0
x_cells=40
y_cells=36
xmin=0.0
ymin=0.0
xmax=10.0
ymax=10.0
initial_timestep=0.004
end_step=16
summary_frequency=2
tl_max_iters=10000
{solver}
tl_eps 1.0e-15
*endtea
"
    )
}

#[test]
fn killed_rank_mid_solve_restarts_bitwise_cg_and_ppcg() {
    for (solver, label) in [
        ("tl_use_cg", "cg"),
        ("tl_use_ppcg\ntl_ppcg_inner_steps=6", "ppcg"),
    ] {
        let dir = scratch("tealeaf-mpi", label);
        let deck = dir.join("deck.in");
        std::fs::write(&deck, restart_deck(solver)).unwrap();
        let reference = dir.join("ref.json");
        mpirun(
            BIN,
            2,
            &deck,
            &["--summary-json", reference.to_str().unwrap()],
        );
        let reference = std::fs::read(reference).unwrap();
        // Loops 950 and 1300: after the location is decided (its first checkpoint closes at
        // loop 708 on this deck), each restoring a different checkpoint.
        for kill in [(1, 950), (0, 1300)] {
            assert_distributed_restart_bitwise(BIN, 2, kill, &deck, &dir, &reference);
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
