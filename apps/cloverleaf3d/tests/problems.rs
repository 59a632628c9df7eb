//! End-to-end runs: the published test problems, agreement with the original Fortran's
//! full-precision output on the project's decks, backend agreement, deck errors, visualisation.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use cloverleaf3d::{run, Cli, Outcome};

const DECKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/decks");
const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/reference");

fn deck(name: &str) -> PathBuf {
    PathBuf::from(DECKS).join(name)
}

fn run_deck(deck: &Path, extra: &[&str]) -> (Outcome, String) {
    let mut args = vec![
        "cloverleaf3d".to_string(),
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
    let dir = std::env::temp_dir().join(format!("cloverleaf3d-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-300)
}

fn test_problem_1(backend: &[&str]) {
    let (o, text) = run_deck(&deck("clover_test1.in"), backend);
    assert_eq!(o.passed, Some(true), "{text}");
    assert_eq!(o.steps, 75);
    let ke = o.summaries.last().unwrap().kinetic_energy;
    assert!(relative(ke, 3.64560737191257) < 1e-5, "ke {ke}");
    assert!(text.contains("This test is considered PASSED"));
}

#[test]
fn test_problem_1_seq() {
    test_problem_1(&["--ops-backend", "seq"]);
}

#[test]
fn test_problem_1_rayon() {
    test_problem_1(&["--ops-backend", "rayon", "--ops-threads", "2"]);
}

/// Test problem 2 (96^3, 87 steps): PASS on both CPU backends, the same bits on both.
/// Optimised builds only (`cargo test --release`).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "needs optimised code: run with cargo test --release"
)]
fn test_problem_2_seq_and_rayon() {
    let mut finals = Vec::new();
    for backend in [
        &["--ops-backend", "seq"][..],
        &["--ops-backend", "rayon", "--ops-threads", "2"][..],
    ] {
        let (o, text) = run_deck(&deck("clover_bm_short.in"), backend);
        assert_eq!(o.passed, Some(true), "{text}");
        assert_eq!(o.steps, 87);
        let last = *o.summaries.last().unwrap();
        assert!(
            relative(last.kinetic_energy, 20.0546870878964) < 1e-5,
            "{backend:?}: ke {}",
            last.kinetic_energy
        );
        finals.push(last);
    }
    assert_eq!(finals[0], finals[1], "seq and rayon differ");
}

/// The built-in deck is clover_bm_short.
#[test]
fn built_in_deck_is_test_problem_2() {
    let cli = Cli::try_parse_from(["cloverleaf3d"]).unwrap();
    let d = cloverleaf3d::load_deck(&cli).unwrap();
    assert_eq!((d.cells, d.end_step, d.test_problem), ([96; 3], 87, 2));
}

/// Every `full:` line (step, time, then the seven quantities) of an original's `clover.out`;
/// for a step printed twice (the original prints the last summary again at the end), the last.
fn original_summaries(path: &Path) -> Vec<(u64, [f64; 8])> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<(u64, [f64; 8])> = Vec::new();
    for line in text.lines().filter(|l| l.starts_with(" full:")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let step: u64 = words[1].parse().unwrap();
        let mut v = [0.0; 8];
        for (o, w) in v.iter_mut().zip(&words[2..]) {
            *o = w.parse().unwrap();
        }
        out.retain(|(s, _)| *s != step);
        out.push((step, v));
    }
    out
}

/// Every field summary of every project deck agrees with the original Fortran's
/// (`reference/`, see its README): to 1e-13 relative on the small decks (what is left is the
/// order of the summary's sums), to 2e-11 on the 96^3 benchmark (where the original's own
/// summation error is 1.4e-11).
#[test]
fn matches_the_original_fortran() {
    let mut names: Vec<String> = std::fs::read_dir(DECKS)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".in"))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    for name in names {
        let stem = name.trim_end_matches(".in");
        let big = stem == "clover_bm_short";
        if big && cfg!(debug_assertions) {
            continue;
        }
        let want = original_summaries(&PathBuf::from(REFERENCE).join(format!("{stem}.out")));
        let (o, _) = run_deck(&deck(&name), &["--ops-threads", "2"]);
        let tolerance = if big { 2e-11 } else { 1e-13 };
        let mut compared = 0;
        for s in &o.summaries {
            let Some((_, w)) = want.iter().find(|(step, _)| *step == s.step) else {
                panic!("{name}: the original has no summary at step {}", s.step);
            };
            let got = [s.time, s.volume, s.mass, s.density, s.pressure]
                .into_iter()
                .chain([s.internal_energy, s.kinetic_energy, s.total_energy]);
            for (i, (g, w)) in got.zip(w).enumerate() {
                assert!(
                    relative(g, *w) <= tolerance,
                    "{name}, step {}: quantity {i}: {g} vs the original's {w}",
                    s.step
                );
            }
            compared += 1;
        }
        assert_eq!(compared, want.len(), "{name}: summaries compared");
    }
}

/// The summaries are bitwise identical on seq and on rayon with 1 and 2 threads.
#[test]
fn summaries_bitwise_equal_across_backends() {
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
        let (o, _) = run_deck(&deck("layered.in"), &a);
        assert_eq!(o.steps, 50);
        texts.push((tag, std::fs::read_to_string(&json).unwrap()));
    }
    for (tag, t) in &texts[1..] {
        assert!(t == &texts[0].1, "summary JSON of {tag} differs from seq");
    }
    // The JSON holds every summary: step 0, every 10 steps, the final state last; the keys are
    // the 2-D app's.
    let v: serde_json::Value = serde_json::from_str(&texts[0].1).unwrap();
    let list = v["summaries"].as_array().unwrap();
    let got: Vec<u64> = list.iter().map(|s| s["step"].as_u64().unwrap()).collect();
    assert_eq!(got, [0, 10, 20, 30, 40, 50]);
    let keys: Vec<&String> = list[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "density",
            "internal_energy",
            "kinetic_energy",
            "mass",
            "pressure",
            "step",
            "time",
            "total_energy",
            "volume"
        ]
    );
}

/// Refreshing only the halo points some loop reads gives bitwise the summaries of making every
/// refresh the original makes, on decks whose flow reaches every wall and corner.
#[test]
fn needed_halos_give_the_original_refreshes_results() {
    for name in ["moving.in", "varied_1.in", "varied_4.in"] {
        let run_json = |extra: &[&str], tag: &str| {
            let json = temp_path(&format!("halos-{name}-{tag}.json"));
            let js = json.display().to_string();
            let mut args = vec!["--ops-backend", "seq", "--summary-json", &js];
            args.extend(extra);
            run_deck(&deck(name), &args);
            std::fs::read_to_string(&json).unwrap()
        };
        let needed = run_json(&[], "needed");
        let original = run_json(&["--original-halos"], "original");
        assert!(needed == original, "{name}: the halo plans differ");
    }
}

/// Volume is conserved, mass nearly so and energy roughly; the states' velocities set things
/// moving. (Where the flow reaches a wall, the original's reflections of the face fluxes across
/// the axes they are not normal to, which this port keeps, let a little mass through.)
#[test]
fn own_decks_conserve() {
    for name in ["sphere.in", "point.in", "layered.in", "tall_z.in"] {
        let (o, text) = run_deck(&deck(name), &["--ops-threads", "2"]);
        let (first, last) = (o.summaries[0], *o.summaries.last().unwrap());
        assert!(o.steps > 10, "{name}: {} steps", o.steps);
        assert!(
            relative(last.mass, first.mass) < 1e-3,
            "{name}: mass {} -> {}",
            first.mass,
            last.mass
        );
        assert!(
            relative(last.volume, first.volume) < 1e-12,
            "{name}: volume"
        );
        assert!(
            relative(last.total_energy, first.total_energy) < 5e-2,
            "{name}: energy {} -> {}",
            first.total_energy,
            last.total_energy
        );
        assert!(last.kinetic_energy > 0.0, "{name}: nothing moved");
        assert!(!text.contains("Warning"), "{name}: {text}");
    }
}

/// A point state given as a vertex minus the nudge fills exactly the cell at that vertex.
#[test]
fn point_state_fills_one_cell() {
    let (o, _) = run_deck(&deck("point.in"), &["--ops-backend", "seq"]);
    // 17 * 13 * 11 - 1 cells of energy 0.1 and one of 25, all of density 1 and volume 1.
    let ie0 = o.summaries[0].internal_energy;
    assert!(
        relative(ie0, (17.0 * 13.0 * 11.0 - 1.0) * 0.1 + 25.0) < 1e-13,
        "{ie0}"
    );
}

/// A shock tube along z gives the same answer as the same tube along x and along y (the sweeps
/// alternate x-y-z and z-y-x, the halo rules are per axis).
#[test]
fn shock_tubes_along_each_axis_agree() {
    let along = |axis: usize| {
        let mut cells = [5; 3];
        let mut max = ["2.5"; 3];
        cells[axis] = 40;
        max[axis] = "20.0";
        let mut high = ["2.5"; 3];
        high[axis] = "10.0";
        format!(
            "*clover\n state 1 density=0.125 energy=2.0\n state 2 density=1.0 energy=2.5 \
             geometry=cuboid xmin=0 xmax={} ymin=0 ymax={} zmin=0 zmax={}\n x_cells={} \
             y_cells={} z_cells={}\n xmax={} ymax={} zmax={}\n initial_timestep=0.01 \
             max_timestep=0.05\n end_time=1.0\n*endclover\n",
            high[0], high[1], high[2], cells[0], cells[1], cells[2], max[0], max[1], max[2]
        )
    };
    let mut finals = Vec::new();
    for axis in 0..3 {
        let path = temp_path(&format!("tube-{axis}.in"));
        std::fs::write(&path, along(axis)).unwrap();
        let (o, _) = run_deck(&path, &["--ops-backend", "seq"]);
        finals.push((o.steps, *o.summaries.last().unwrap()));
    }
    for (axis, (steps, s)) in finals.iter().enumerate().skip(1) {
        let (steps0, s0) = &finals[0];
        assert_eq!(steps, steps0, "axis {axis}: steps");
        assert!(
            relative(s.kinetic_energy, s0.kinetic_energy) < 1e-9,
            "axis {axis}: {} vs {}",
            s.kinetic_energy,
            s0.kinetic_energy
        );
        assert!(relative(s.internal_energy, s0.internal_energy) < 1e-9);
    }
}

/// The binary reports deck errors with the file and line, and exits 1.
#[test]
fn bad_deck_is_an_error_with_file_and_line() {
    let path = temp_path("bad.in");
    std::fs::write(
        &path,
        "*clover\n state 1 density=1 energy=1\n z_cells=ten\n*endclover\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cloverleaf3d"))
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{}:3:", path.display())), "{err}");
    assert!(err.contains("z_cells"), "{err}");
}

/// Keywords the original reads but ignores are accepted with a note.
#[test]
fn ignored_keywords_are_noted() {
    let (_, text) = run_deck(&deck("clover_test1.in"), &["--ops-backend", "seq"]);
    assert!(
        text.contains("Note: line 18: `checkpoint_frequency 100` ignored"),
        "{text}"
    );
}

/// `visit_frequency` with HDF5: one file per dump plus the XDMF index; results unchanged.
#[test]
fn visit_writes_hdf5_and_xdmf() {
    let path = temp_path("visit.in");
    let text = std::fs::read_to_string(deck("layered.in"))
        .unwrap()
        .replace(
            "summary_frequency=10",
            "summary_frequency=10 visit_frequency=25",
        );
    std::fs::write(&path, text).unwrap();
    let dir = temp_path("visit-hdf5");
    let (o, _) = run_deck(&path, &["--visit-dir", &dir.display().to_string()]);
    for step in [0, 25, 50] {
        assert!(
            dir.join(format!("clover.{step:06}.h5")).exists(),
            "dump {step}"
        );
    }
    let xmf = std::fs::read_to_string(dir.join("clover.xmf")).unwrap();
    assert_eq!(xmf.matches("<Grid Name=\"step").count(), 3);
    assert!(xmf.contains("3DRectMesh") && xmf.contains("zvel"), "{xmf}");
    let (plain, _) = run_deck(&deck("layered.in"), &[]);
    assert_eq!(
        o.summaries.last().unwrap().kinetic_energy.to_bits(),
        plain.summaries.last().unwrap().kinetic_energy.to_bits()
    );
}

/// A deck whose numbers overflow stops with an error naming the step and the quantity, at the
/// first summary that shows it (the original prints NaN summaries and exits 0).
#[test]
fn broken_numbers_stop_the_run_naming_step_and_quantity() {
    let src = std::fs::read_to_string(deck("clover_test1.in")).unwrap();
    let huge = src.replacen("density=1.0 ", "density=1e308 ", 1);
    assert_ne!(huge, src, "clover_test1.in has a density to change");
    let path = temp_path("huge-density.in");
    std::fs::write(&path, huge).unwrap();
    let cli =
        Cli::try_parse_from(["cloverleaf3d", path.to_str().unwrap(), "--no-progress"]).unwrap();
    let err = run(&cli, &mut Vec::new())
        .expect_err("a run with infinite mass must stop")
        .to_string();
    assert!(
        err.starts_with("step 0: the field summary's mass is inf"),
        "{err}"
    );
}

/// `--snapshot-png` draws the middle plane of the final density as a PNG and changes nothing else.
#[test]
fn snapshot_png_draws_the_final_field() {
    let png = temp_path("final.png");
    let (o, _) = run_deck(
        &deck("clover_test1.in"),
        &["--snapshot-png", &png.display().to_string()],
    );
    ops_testkit::assert_png(&png, 2_000);
    let (plain, _) = run_deck(&deck("clover_test1.in"), &[]);
    assert_eq!(o.summaries.len(), plain.summaries.len());
}
