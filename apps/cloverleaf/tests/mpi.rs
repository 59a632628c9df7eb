//! CloverLeaf across MPI processes (cargo feature `mpi`, Open MPI's `mpirun`): the published
//! test problems pass on 1, 2 and 4 processes and agree with the single-process run to 1e-12
//! relative in every summary quantity; a killed rank restarts bitwise; a lost checkpoint file
//! is replaced by the partner's copy; damaged files fall back bitwise; a 4-process checkpoint
//! restarts on 2 processes; visualisation dumps hold the single-process fields.
#![cfg(feature = "mpi")]

use std::path::PathBuf;
use std::process::Command;

use ops_testkit::{
    assert_distributed_restart_bitwise, assert_summaries_agree, mpirun, mpirun_killing_one,
    run_serial, scratch,
};

const BIN: &str = env!("CARGO_BIN_EXE_cloverleaf");
fn shipped(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("decks")
        .join(name)
}

fn problem_on_ranks(deck: &str, ranks: &[usize]) {
    let dir = scratch("cloverleaf-mpi", deck);
    let deck = shipped(deck);
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
        assert!(
            text.contains("This test is considered PASSED"),
            "{n} ranks:\n{text}"
        );
        assert_eq!(
            text.matches("Calculation complete").count(),
            1,
            "rank 0 alone reports:\n{text}"
        );
        let got = std::fs::read_to_string(json).unwrap();
        assert_summaries_agree(&serial, &got, 1e-12, &format!("{n} ranks"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Visualisation dumps under mpirun: one file per dump with the whole mesh in global index
/// space, gathered from the processes, holding what the single-process run writes (compared
/// as `h5dump` prints them), and one XDMF series.
#[test]
fn visit_dumps_of_2_and_4_ranks_hold_the_single_process_fields() {
    let dir = scratch("cloverleaf-mpi", "visit");
    let deck = dir.join("visit.in");
    let text = std::fs::read_to_string(shipped("clover_test1.in"))
        .unwrap()
        .replace("end_time=3.0", "end_time=3.0\n visit_frequency=10");
    std::fs::write(&deck, text).unwrap();
    let dump_text = |d: &std::path::Path| {
        let out = Command::new("h5dump")
            .arg("-d")
            .arg("/density")
            .arg("-d")
            .arg("/xvel")
            .arg(d.join("clover.000010.h5"))
            .output()
            .expect("h5dump (hdf5-tools) must be installed: scripts/install-deps.sh");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The file name differs; the data must not.
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let serial = dir.join("serial");
    run_serial(
        BIN,
        &deck,
        &["--no-progress", "--visit-dir", serial.to_str().unwrap()],
    );
    let want = dump_text(&serial);
    assert!(want.contains("DATASET \"/density\""), "{want}");
    for n in [2, 4] {
        let parts = dir.join(format!("ranks-{n}"));
        let visit = parts.display().to_string();
        let text = mpirun(BIN, n, &deck, &["--visit-dir", &visit]);
        assert!(text.contains("This test is considered PASSED"), "{text}");
        assert_eq!(dump_text(&parts), want, "{n} ranks");
        let xmf = std::fs::read_to_string(parts.join("clover.xmf")).unwrap();
        assert!(xmf.matches("<Grid Name=\"step").count() >= 2, "{xmf}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn test_problem_1_on_1_2_and_4_ranks() {
    problem_on_ranks("clover_test1.in", &[1, 2, 4]);
}

#[test]
fn test_problem_2_on_1_2_and_4_ranks() {
    problem_on_ranks("clover_bm_short.in", &[1, 2, 4]);
}

/// SIGKILL of one rank mid-run, then `--ops-restart` on the same rank count: the summaries
/// are bitwise identical to an uninterrupted run's; then, with one rank's checkpoint files
/// deleted, the restart takes that rank's part from its partner's copy, still bitwise.
/// The summary JSON of an uninterrupted 2-rank run of `deck` (written in `dir`).
fn uninterrupted_summaries(dir: &std::path::Path, deck: &std::path::Path) -> Vec<u8> {
    let reference = dir.join("ref.json");
    mpirun(
        BIN,
        2,
        deck,
        &["--summary-json", reference.to_str().unwrap()],
    );
    std::fs::read(reference).unwrap()
}

#[test]
fn killed_rank_restarts_bitwise_and_partner_copy_replaces_a_lost_file() {
    let dir = scratch("cloverleaf-mpi", "kill");
    let deck = shipped("layered.in");
    let (ckpt, out) = (dir.join("ckpt"), dir.join("out.json"));
    let reference = uninterrupted_summaries(&dir, &deck);
    let args = [
        "--ops-checkpoint-dir",
        ckpt.to_str().unwrap(),
        "--ops-checkpoint-every",
        "1",
        "--summary-json",
        out.to_str().unwrap(),
    ];
    let restart: Vec<&str> = args.iter().copied().chain(["--ops-restart"]).collect();
    for kill in [(1, 3000), (0, 6100)] {
        assert_distributed_restart_bitwise(BIN, 2, kill, &deck, &dir, &reference);
    }
    // Lose rank 1's own files: its partner (rank 0) holds a copy. Nothing of the runs above
    // may stay: their checkpoints could be restored instead, their summaries read back.
    let _ = std::fs::remove_dir_all(&ckpt);
    let _ = std::fs::remove_file(&out);
    mpirun_killing_one(BIN, 2, 0, 4000, &deck, &args);
    for e in std::fs::read_dir(ckpt.join("rank-1")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::remove_file(p).unwrap();
        }
    }
    let text = mpirun(BIN, 2, &deck, &restart);
    assert!(
        text.contains("partner"),
        "the restart names the partner copy:\n{text}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), reference);
    let _ = std::fs::remove_dir_all(dir);
}

/// A checkpoint written by 4 ranks restarts on 2 (the saved boxes are in global indices and
/// every process uploads what it stores) and the test problem passes.
#[test]
fn checkpoint_of_4_ranks_restarts_on_2() {
    let dir = scratch("cloverleaf-mpi", "repartition");
    let deck = shipped("clover_test1.in");
    let ckpt = dir.join("ckpt");
    let args = [
        "--ops-checkpoint-dir",
        ckpt.to_str().unwrap(),
        "--ops-checkpoint-every",
        "1",
    ];
    mpirun_killing_one(BIN, 4, 2, 4500, &deck, &args);
    let restart: Vec<&str> = args.iter().copied().chain(["--ops-restart"]).collect();
    let text = mpirun(BIN, 2, &deck, &restart);
    assert!(text.contains("restored checkpoint"), "{text}");
    assert!(text.contains("This test is considered PASSED"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Copies directory `from` to `to`, recursively.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// The newest file ending in `ext` in `dir`.
fn newest(dir: &std::path::Path, ext: &str) -> PathBuf {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v.pop()
        .unwrap_or_else(|| panic!("no {ext} file in {}", dir.display()))
}

/// Damaged files in a 2-rank checkpoint directory: own files, manifests and partner copies
/// flipped, cut short or extended, one rank's file and its copy both: every restart under
/// mpirun ends bitwise equal to the uninterrupted run (from the partner copy or an older
/// checkpoint), and none crashes.
#[test]
fn damaged_files_of_a_distributed_checkpoint_fall_back_bitwise() {
    let dir = scratch("cloverleaf-mpi", "damaged");
    let deck = shipped("layered.in");
    let (ckpt, out) = (dir.join("ckpt"), dir.join("out.json"));
    let reference = uninterrupted_summaries(&dir, &deck);
    let ck = ckpt.to_str().unwrap();
    mpirun_killing_one(
        BIN,
        2,
        0,
        4000,
        &deck,
        &["--ops-checkpoint-dir", ck, "--ops-checkpoint-every", "1"],
    );
    let flip = |p: &std::path::Path, at: f64| {
        let mut b = std::fs::read(p).unwrap();
        let i = ((b.len() as f64 * at) as usize).min(b.len() - 1);
        b[i] ^= 0x5a;
        std::fs::write(p, b).unwrap();
    };
    let cut = |p: &std::path::Path| {
        let b = std::fs::read(p).unwrap();
        std::fs::write(p, &b[..b.len() / 3]).unwrap();
    };
    let extend = |p: &std::path::Path| {
        let mut b = std::fs::read(p).unwrap();
        b.extend_from_slice(&[0xab; 777]);
        std::fs::write(p, b).unwrap();
    };
    type Damage = Box<dyn Fn(&std::path::Path)>;
    let cases: Vec<(&str, Damage)> = vec![
        (
            "rank 1's file, a byte in its data",
            Box::new(move |c| flip(&newest(&c.join("rank-1"), ".h5"), 0.7)),
        ),
        (
            "rank 0's file, a byte in its header",
            Box::new(move |c| flip(&newest(&c.join("rank-0"), ".h5"), 0.02)),
        ),
        (
            "rank 0's file cut short",
            Box::new(move |c| cut(&newest(&c.join("rank-0"), ".h5"))),
        ),
        (
            "rank 1's manifest extended",
            Box::new(move |c| extend(&newest(&c.join("rank-1"), ".json"))),
        ),
        (
            "rank 1's file and its partner copy",
            Box::new(move |c| {
                flip(&newest(&c.join("rank-1"), ".h5"), 0.5);
                flip(&newest(&c.join("rank-0").join("partner"), ".h5"), 0.5);
            }),
        ),
        (
            "rank 0's partner copy extended",
            Box::new(move |c| extend(&newest(&c.join("rank-0").join("partner"), ".h5"))),
        ),
    ];
    for (what, damage) in cases {
        let work = dir.join("work");
        let _ = std::fs::remove_dir_all(&work);
        let _ = std::fs::remove_file(&out);
        copy_dir(&ckpt, &work);
        damage(&work);
        let text = mpirun(
            BIN,
            2,
            &deck,
            &[
                "--ops-checkpoint-dir",
                work.to_str().unwrap(),
                "--ops-checkpoint-every",
                "1",
                "--summary-json",
                out.to_str().unwrap(),
                "--ops-restart",
            ],
        );
        assert!(text.contains("restored checkpoint"), "{what}:\n{text}");
        assert!(
            std::fs::read(&out).unwrap() == reference,
            "{what}: the restarted run's summaries differ\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
