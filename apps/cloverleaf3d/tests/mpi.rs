//! CloverLeaf 3D across MPI processes (cargo feature `mpi`, Open MPI's `mpirun`): the block is
//! decomposed over 1, 2 and 4 processes (along x for the 10 x 2 x 2 test problem, along x and y
//! for the 24 x 18 x 12 deck), every summary agrees with the single-process run to 1e-12
//! relative, and a killed rank restarts bitwise.
#![cfg(feature = "mpi")]

use std::path::PathBuf;

use ops_testkit::{
    assert_distributed_restart_bitwise, assert_summaries_agree, mpirun, run_serial, scratch,
};

const BIN: &str = env!("CARGO_BIN_EXE_cloverleaf3d");

fn deck(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("decks")
        .join(name)
}

fn on_ranks(name: &str, ranks: &[usize], passes: bool) {
    let dir = scratch("cloverleaf3d-mpi", name);
    let deck = deck(name);
    let serial = dir.join("serial.json");
    run_serial(
        BIN,
        &deck,
        &["--no-progress", "--summary-json", serial.to_str().unwrap()],
    );
    let serial = std::fs::read_to_string(serial).unwrap();
    for &n in ranks {
        let json = dir.join(format!("ranks-{n}.json"));
        let text = mpirun(BIN, n, &deck, &["--summary-json", json.to_str().unwrap()]);
        if passes {
            assert!(
                text.contains("This test is considered PASSED"),
                "{n} ranks:\n{text}"
            );
        }
        assert_eq!(
            text.matches("Calculation complete").count(),
            1,
            "rank 0 alone reports:\n{text}"
        );
        if n > 1 {
            assert!(text.contains("Halo exchange: rank 0 sent"), "{text}");
        }
        let got = std::fs::read_to_string(json).unwrap();
        assert_summaries_agree(&serial, &got, 1e-12, &format!("{name}, {n} ranks"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn test_problem_1_on_1_2_and_4_ranks() {
    on_ranks("clover_test1.in", &[1, 2, 4], true);
}

#[test]
fn states_of_every_geometry_on_1_2_and_4_ranks() {
    on_ranks("layered.in", &[1, 2, 4], false);
}

/// SIGKILL of one rank mid-run, then `--ops-restart` on the same rank count: the summaries
/// are bitwise identical to an uninterrupted run's.
#[test]
fn killed_rank_restarts_bitwise() {
    let dir = scratch("cloverleaf3d-mpi", "kill");
    let deck = deck("layered.in");
    let reference = dir.join("ref.json");
    mpirun(
        BIN,
        2,
        &deck,
        &["--summary-json", reference.to_str().unwrap()],
    );
    let reference = std::fs::read(reference).unwrap();
    for kill in [(1, 4000), (0, 8100)] {
        assert_distributed_restart_bitwise(BIN, 2, kill, &deck, &dir, &reference);
    }
    let _ = std::fs::remove_dir_all(dir);
}
