//! End-to-end runs: the published test problems, the project's own decks, backend agreement.

use std::path::PathBuf;
use std::process::Command;

use clap::Parser;
use cloverleaf::{run, Cli, Outcome};

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/reference/decks/cloverleaf2d"
);
const OWN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/decks");

fn reference_deck(name: &str) -> PathBuf {
    PathBuf::from(REFERENCE).join(name)
}

fn own_deck(name: &str) -> PathBuf {
    PathBuf::from(OWN).join(name)
}

fn run_deck(deck: &std::path::Path, extra: &[&str]) -> (Outcome, String) {
    let mut args = vec![
        "cloverleaf".to_string(),
        deck.display().to_string(),
        "--no-progress".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let cli = Cli::try_parse_from(&args).expect("command line");
    let mut out = Vec::new();
    let outcome = run(&cli, &mut out).unwrap_or_else(|e| panic!("{}: {e}", deck.display()));
    (outcome, String::from_utf8(out).expect("utf-8 output"))
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cloverleaf-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn test_problem_1_seq() {
    let (o, text) = run_deck(
        &reference_deck("clover_test1.in"),
        &["--ops-backend", "seq"],
    );
    assert_eq!(o.passed, Some(true), "{text}");
    let ke = o.summaries.last().unwrap().kinetic_energy;
    assert!((ke / 1.82280367310258 - 1.0).abs() < 1e-5, "ke {ke}");
    assert!(text.contains("This test is considered PASSED"));
    assert_eq!(o.steps, 75);
}

#[test]
fn test_problem_1_rayon() {
    let (o, text) = run_deck(
        &reference_deck("clover_test1.in"),
        &["--ops-backend", "rayon", "--ops-threads", "2"],
    );
    assert_eq!(o.passed, Some(true), "{text}");
}

/// The summaries are bitwise identical on seq and on rayon with 1 and 2 threads.
#[test]
fn summaries_bitwise_equal_across_backends() {
    let deck = own_deck("layered.in");
    let mut texts = Vec::new();
    for (tag, args) in [
        ("seq", vec!["--ops-backend", "seq"]),
        (
            "rayon1",
            vec!["--ops-backend", "rayon", "--ops-threads", "1"],
        ),
        (
            "rayon2",
            vec!["--ops-backend", "rayon", "--ops-threads", "2"],
        ),
    ] {
        let json = temp_path(&format!("layered-{tag}.json"));
        let js = json.display().to_string();
        let mut a = args.clone();
        a.extend(["--summary-json", &js]);
        let (o, _) = run_deck(&deck, &a);
        assert_eq!(o.steps, 50);
        texts.push((tag, std::fs::read_to_string(&json).unwrap()));
    }
    for (tag, t) in &texts[1..] {
        assert!(t == &texts[0].1, "summary JSON of {tag} differs from seq");
    }
    // The JSON holds every summary: step 0, every 10 steps, and the final state last.
    let v: serde_json::Value = serde_json::from_str(&texts[0].1).unwrap();
    let list = v["summaries"].as_array().unwrap();
    let steps: Vec<u64> = list.iter().map(|s| s["step"].as_u64().unwrap()).collect();
    assert_eq!(steps, vec![0, 10, 20, 30, 40, 50]);
    for s in list {
        for key in [
            "time",
            "volume",
            "mass",
            "density",
            "pressure",
            "internal_energy",
            "kinetic_energy",
            "total_energy",
        ] {
            assert!(s[key].as_f64().unwrap().is_finite(), "{key}");
        }
    }
}

/// Mass and volume are conserved, energy nearly so, on the project's own decks.
#[test]
fn own_decks_conserve() {
    for name in ["circle.in", "point.in", "sod_x.in", "layered.in"] {
        let (o, text) = run_deck(&own_deck(name), &["--ops-threads", "2"]);
        let first = o.summaries.first().unwrap();
        let last = o.summaries.last().unwrap();
        assert!(o.steps > 10, "{name}: {} steps", o.steps);
        assert!(
            (last.mass / first.mass - 1.0).abs() < 1e-12,
            "{name}: mass {} -> {}",
            first.mass,
            last.mass
        );
        assert!(
            (last.volume / first.volume - 1.0).abs() < 1e-12,
            "{name}: volume"
        );
        assert!(
            (last.total_energy / first.total_energy - 1.0).abs() < 2e-3,
            "{name}: energy {} -> {}",
            first.total_energy,
            last.total_energy
        );
        assert!(last.kinetic_energy > 0.0, "{name}: nothing moved");
        assert!(!text.contains("Warning"), "{name}: {text}");
    }
}

/// A point state at a vertex fills exactly one cell.
#[test]
fn point_state_fills_one_cell() {
    let (o, _) = run_deck(&own_deck("point.in"), &["--ops-backend", "seq"]);
    // 99 cells of 1.0 x 0.1 plus one cell of 1.0 x 20.0.
    let ie0 = o.summaries[0].internal_energy;
    assert!((ie0 - (99.0 * 0.1 + 20.0)).abs() < 1e-12, "{ie0}");
}

/// x and y versions of the same shock tube agree (the sweeps alternate direction).
#[test]
fn sod_x_and_y_agree() {
    let (x, _) = run_deck(&reference_deck("clover_sodx.in"), &["--ops-backend", "seq"]);
    let (y, _) = run_deck(&reference_deck("clover_sody.in"), &["--ops-backend", "seq"]);
    let (a, b) = (x.summaries.last().unwrap(), y.summaries.last().unwrap());
    assert_eq!(x.steps, y.steps);
    assert!(
        (a.kinetic_energy / b.kinetic_energy - 1.0).abs() < 1e-9,
        "{} vs {}",
        a.kinetic_energy,
        b.kinetic_energy
    );
    assert!((a.internal_energy / b.internal_energy - 1.0).abs() < 1e-9);
}

/// The binary reports deck errors with the file and line, and exits 1.
#[test]
fn bad_deck_is_an_error_with_file_and_line() {
    let deck = temp_path("bad.in");
    std::fs::write(
        &deck,
        "*clover\n state 1 density=1 energy=1\n x_cells=ten\n*endclover\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cloverleaf"))
        .arg(&deck)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{}:3:", deck.display())), "{err}");
    assert!(err.contains("x_cells"), "{err}");
}

/// Test problem 2 (960x960, 87 steps) through the release binary: PASS, and the JSON's last
/// entry is the final state. Optimised builds only (`cargo test --release`).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "needs optimised code: run with cargo test --release"
)]
fn test_problem_2_release_binary() {
    let json = temp_path("bm_short.json");
    let out = Command::new(env!("CARGO_BIN_EXE_cloverleaf"))
        .arg(reference_deck("clover_bm_short.in"))
        .args([
            "--summary-json",
            &json.display().to_string(),
            "--ops-threads",
            "2",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("This test is considered PASSED"),
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let last = v["summaries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["step"], 87);
    let ke = last["kinetic_energy"].as_f64().unwrap();
    assert!(
        (100.0 * (ke / 1.19316898756307) - 100.0).abs() < 0.001,
        "ke {ke}"
    );
}
