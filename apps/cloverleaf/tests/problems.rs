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
    bitwise_equal_across_backends(&own_deck("layered.in"), 50);
    // A larger mesh, so the rayon partition has many pieces.
    let big = temp_path("layered-big.in");
    let text = std::fs::read_to_string(own_deck("layered.in"))
        .unwrap()
        .replace("x_cells=48 y_cells=36", "x_cells=240 y_cells=180")
        .replace("end_step=50", "end_step=12")
        .replace("summary_frequency=10", "summary_frequency=4");
    std::fs::write(&big, text).unwrap();
    bitwise_equal_across_backends(&big, 12);
}

fn bitwise_equal_across_backends(deck: &std::path::Path, steps: u64) {
    let tag0 = deck.file_stem().unwrap().to_string_lossy().to_string();
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
        let json = temp_path(&format!("{tag0}-{tag}.json"));
        let js = json.display().to_string();
        let mut a = args.clone();
        a.extend(["--summary-json", &js]);
        let (o, _) = run_deck(deck, &a);
        assert_eq!(o.steps, steps);
        texts.push((tag, std::fs::read_to_string(&json).unwrap()));
    }
    for (tag, t) in &texts[1..] {
        assert!(t == &texts[0].1, "summary JSON of {tag} differs from seq");
    }
    // The JSON holds every summary: step 0, every 10 steps, and the final state last.
    let v: serde_json::Value = serde_json::from_str(&texts[0].1).unwrap();
    let list = v["summaries"].as_array().unwrap();
    let got: Vec<u64> = list.iter().map(|s| s["step"].as_u64().unwrap()).collect();
    let every = if steps == 50 { 10 } else { 4 };
    let want: Vec<u64> = (0..=steps).step_by(every).collect();
    assert_eq!(got, want);
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
        // Momentum advection lets a little mass through the reflective walls, as in the original.
        assert!(
            (last.mass / first.mass - 1.0).abs() < 1e-9,
            "{name}: mass {} -> {}",
            first.mass,
            last.mass
        );
        assert!(
            (last.volume / first.volume - 1.0).abs() < 1e-12,
            "{name}: volume"
        );
        assert!(
            // The scheme does not conserve total energy exactly (nor does the original).
            (last.total_energy / first.total_energy - 1.0).abs() < 5e-2,
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

/// Final summaries of the original Fortran (UK-MAC CloverLeaf_OpenMP v1.3, gfortran -O3
/// -march=native, 2 threads) on the same decks, printed at full precision:
/// (deck, own?, step, [volume, mass, density, pressure, internal, kinetic, total]).
#[allow(clippy::excessive_precision)]
const ORIGINAL: &[(&str, bool, u64, [f64; 7])] = &[
    (
        "circle.in",
        true,
        60,
        [
            1.00000000000000000E+02,
            2.55999999977846642E+01,
            2.55999999977846615E-01,
            1.29636005653285064E-01,
            3.24090014133212634E+01,
            3.52407469610855628E+00,
            3.59330761094298197E+01,
        ],
    ),
    (
        "point.in",
        true,
        27,
        [
            1.00000000000000000E+02,
            9.99999999999972147E+01,
            9.99999999999972133E-01,
            9.88418317565108867E-02,
            2.47104579391277355E+01,
            4.02132304355565395E+00,
            2.87317809826833894E+01,
        ],
    ),
    (
        "sod_x.in",
        true,
        32,
        [
            4.00000000000000266E+00,
            2.24999999999999645E+00,
            5.62499999999998779E-01,
            5.35125918367683528E-01,
            5.35125918367684594E+00,
            1.46497149366515506E-01,
            5.49775633304336164E+00,
        ],
    ),
    (
        "layered.in",
        true,
        50,
        [
            1.08000000000000000E+02,
            3.09374999961405805E+01,
            2.86458333297597956E-01,
            1.61763276916613213E-01,
            4.36760847674855484E+01,
            3.60166187036853191E+00,
            4.72777466378540794E+01,
        ],
    ),
    (
        "moving.in",
        true,
        54,
        [
            7.99999999999986500E+01,
            5.22571023548630933E+01,
            6.53213779435799724E-01,
            2.54442816981681141E-01,
            5.08885633963351864E+01,
            2.93681343370135917E+00,
            5.38253768300365465E+01,
        ],
    ),
    (
        "defaults.in",
        true,
        120,
        [
            1.59999999999997478E+01,
            1.80768851957611361E+01,
            1.12980532473508877E+00,
            9.63755690591895919E-01,
            3.85502276236752124E+01,
            1.97803087479860951E+00,
            4.05282584984738250E+01,
        ],
    ),
    (
        "clover_sodx.in",
        false,
        75,
        [
            2.00000000000000000E+01,
            1.20000000000000178E+01,
            6.00000000000000866E-01,
            5.01239422382147692E-01,
            2.50619711191073833E+01,
            1.82280367310257940E+00,
            2.68847747922099636E+01,
        ],
    ),
    (
        "clover_sody.in",
        false,
        75,
        [
            2.00000000000000000E+01,
            1.20000000000000160E+01,
            6.00000000000000755E-01,
            5.01239422382147581E-01,
            2.50619711191073833E+01,
            1.82280367310257918E+00,
            2.68847747922099636E+01,
        ],
    ),
    (
        "clover_sodxy.in",
        false,
        75,
        [
            1.00000000000000000E+02,
            3.99999999179545682E+01,
            3.99999999179545707E-01,
            2.76910992347984775E-01,
            6.92277480869962005E+01,
            7.73137269005514316E+00,
            7.69591207770513392E+01,
        ],
    ),
];

/// Every final summary agrees with the original's to 1e-10 relative (the differences are the
/// original's fused multiply-adds and summation order).
#[test]
fn matches_the_original_fortran() {
    for (name, own, step, want) in ORIGINAL {
        let deck = if *own {
            own_deck(name)
        } else {
            reference_deck(name)
        };
        let (o, _) = run_deck(&deck, &["--ops-threads", "2"]);
        let s = o.summaries.last().unwrap();
        assert_eq!(s.step, *step, "{name}");
        let got = [
            s.volume,
            s.mass,
            s.density,
            s.pressure,
            s.internal_energy,
            s.kinetic_energy,
            s.total_energy,
        ];
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-10 * w.abs(),
                "{name}: quantity {i}: {g} vs original {w}"
            );
        }
    }
}

/// `visit_frequency` in a build without HDF5: a note, no files, same results.
#[cfg(not(feature = "hdf5"))]
#[test]
fn visit_without_hdf5_says_so() {
    let deck = temp_path("visit.in");
    let text = std::fs::read_to_string(own_deck("circle.in"))
        .unwrap()
        .replace(
            "summary_frequency=20",
            "summary_frequency=20 visit_frequency=20",
        );
    std::fs::write(&deck, text).unwrap();
    let dir = temp_path("visit-none");
    let (o, out) = run_deck(&deck, &["--visit-dir", &dir.display().to_string()]);
    assert!(out.contains("no HDF5 output"), "{out}");
    assert!(!dir.exists() || std::fs::read_dir(&dir).unwrap().next().is_none());
    assert_eq!(o.steps, 60);
}

/// `visit_frequency` with HDF5: one file per dump plus the XDMF index; results unchanged.
#[cfg(feature = "hdf5")]
#[test]
fn visit_writes_hdf5_and_xdmf() {
    let deck = temp_path("visit.in");
    let text = std::fs::read_to_string(own_deck("circle.in"))
        .unwrap()
        .replace(
            "summary_frequency=20",
            "summary_frequency=20 visit_frequency=20",
        );
    std::fs::write(&deck, text).unwrap();
    let dir = temp_path("visit-hdf5");
    let (o, _) = run_deck(&deck, &["--visit-dir", &dir.display().to_string()]);
    for step in [0, 20, 40, 60] {
        assert!(
            dir.join(format!("clover.{step:06}.h5")).exists(),
            "dump {step}"
        );
    }
    let xmf = std::fs::read_to_string(dir.join("clover.xmf")).unwrap();
    assert_eq!(xmf.matches("<Grid Name=\"step").count(), 4);
    let (plain, _) = run_deck(&own_deck("circle.in"), &[]);
    assert_eq!(
        o.summaries.last().unwrap().kinetic_energy.to_bits(),
        plain.summaries.last().unwrap().kinetic_energy.to_bits()
    );
}
