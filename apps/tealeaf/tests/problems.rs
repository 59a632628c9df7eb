//! End-to-end runs: the published test problems, every solver and preconditioner against CG,
//! agreement with the original Fortran, backend agreement, halo-depth independence.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use tealeaf::tea::Summary;
use tealeaf::{run, Cli, Outcome};

use ops_testkit::fortran;

const DECKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/decks");
/// The original Fortran's output logs (see `reference/README.md`).
const LOGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/reference");

fn shipped(name: &str) -> PathBuf {
    PathBuf::from(DECKS).join(name)
}

/// The stored log of the original Fortran on deck `name` (`reference/<stem>.tea.out`).
fn original_log(name: &str) -> String {
    let stem = name.strip_suffix(".in").expect("a deck name ends in .in");
    fortran::read_log(&PathBuf::from(LOGS).join(format!("{stem}.tea.out")))
}

/// Relative tolerance against the original Fortran's final summary (one OpenMP thread, see
/// `reference/README.md`) on the small decks (up to 60 x 50 cells), every quantity. Measured:
/// at most 9.85e-14 (reflective.in's density; 2.0e-15 on test problem 1); the differences are
/// the original's fused multiply-adds and summation order.
const FORTRAN_REL_TOL: f64 = 1e-13;

/// Test problem 2 (250 x 250 cells): the temperature agrees with the original's full-precision
/// value to 2.82e-13 (measured).
const BM2_TEMPERATURE_REL_TOL: f64 = 3e-13;

/// Test problem 2: volume, mass, density and energy, sums over 62,500 cells. Measured: at most
/// 7.93e-13 (mass).
const BM2_SUMS_REL_TOL: f64 = 1e-12;

const NAMES: [&str; 5] = ["volume", "mass", "density", "energy", "temperature"];

/// The five quantities of a summary, in the order the original prints them.
fn quantities(s: &Summary) -> [f64; 5] {
    [s.volume, s.mass, s.density, s.energy, s.temperature]
}

/// Panics unless the final summary `s` agrees with the original Fortran's on deck `name` (the
/// last field summary of its stored log), quantity `i` to `tol[i]` relative, and, unless
/// `iterations` is `None`, the per-step iteration counts are the original's; returns the
/// largest relative difference.
fn assert_matches_the_original(name: &str, o: &Outcome, tol: [f64; 5], counts: bool) -> f64 {
    let log = original_log(name);
    let want = fortran::final_summary(&log);
    let s = o.summaries.last().unwrap();
    assert_eq!(s.step, want.step, "{name}: final step");
    assert_eq!(want.values.len(), 5, "{name}: quantities in the log");
    let got = quantities(s);
    let mut worst = 0.0f64;
    for i in 0..5 {
        let d = fortran::max_relative_difference(&got[i..=i], &want.values[i..=i]);
        assert!(
            d <= tol[i],
            "{name}: {} {} vs the original's {} ({d:.2e} relative, tolerance {:e})",
            NAMES[i],
            got[i],
            want.values[i],
            tol[i]
        );
        worst = worst.max(d);
    }
    eprintln!("{name}: largest relative difference from the original {worst:.2e}");
    if counts {
        assert_eq!(
            o.iterations,
            fortran::iteration_counts(&log),
            "{name}: iteration counts"
        );
    }
    worst
}

/// A path in this test process's scratch directory, with whatever an earlier run left there
/// removed (so that an output read back is one the run just wrote).
fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tealeaf-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(&path);
    path
}

fn run_deck(deck: &Path, extra: &[&str]) -> (Outcome, String) {
    let mut args = vec!["tealeaf".to_string(), deck.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    let cli = Cli::try_parse_from(&args).expect("command line");
    let mut out = Vec::new();
    let outcome = run(&cli, &mut out).unwrap_or_else(|e| panic!("{}: {e}", deck.display()));
    (outcome, String::from_utf8(out).expect("utf-8 output"))
}

/// A copy of a shipped deck with `extra` keyword lines added before `*endtea`.
fn variant(base: &str, tag: &str, extra: &str) -> PathBuf {
    let text = std::fs::read_to_string(shipped(base)).unwrap();
    let text = text.replace("*endtea", &format!("{extra}\n*endtea"));
    let path = temp_path(&format!("{tag}.in"));
    std::fs::write(&path, text).unwrap();
    path
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// Test problem 1 on seq and rayon: PASS, and the final summary and every step's iteration
/// count are the original Fortran's.
#[test]
fn test_problem_1_seq_and_rayon() {
    for args in [
        vec!["--ops-backend", "seq"],
        vec!["--ops-backend", "rayon", "--ops-threads", "2"],
    ] {
        let (o, text) = run_deck(&shipped("tea_bm_1.in"), &args);
        assert_eq!(o.passed, Some(true), "{text}");
        assert!(text.contains("This test is considered PASSED"), "{text}");
        assert_eq!(o.steps, 10);
        assert_matches_the_original("tea_bm_1.in", &o, [FORTRAN_REL_TOL; 5], true);
    }
}

/// Test problem 2 (250x250, CG): PASS within 0.001 %, and the original Fortran's final
/// summary and iteration counts. Optimised builds only.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "needs optimised code: run with cargo test --release"
)]
fn test_problem_2() {
    let json = temp_path("bm2.json");
    let js = json.display().to_string();
    let (o, text) = run_deck(
        &shipped("tea_bm_2.in"),
        &["--ops-threads", "2", "--summary-json", &js],
    );
    assert_eq!(o.passed, Some(true), "{text}");
    assert!(text.contains("This test is considered PASSED"), "{text}");
    let t = o.summaries.last().unwrap().temperature;
    // Every quantity against the original's full-precision values, and its iteration counts.
    let mut tol = [BM2_SUMS_REL_TOL; 5];
    tol[4] = BM2_TEMPERATURE_REL_TOL;
    assert_matches_the_original("tea_bm_2.in", &o, tol, true);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let list = v["summaries"].as_array().unwrap();
    let last = list.last().unwrap();
    assert_eq!(last["step"], 10);
    assert_eq!(last["iterations"], 197);
    assert_eq!(last["temperature"].as_f64().unwrap().to_bits(), t.to_bits());
    assert_eq!(list[0]["step"], 0);
    assert_eq!(list[0]["iterations"], 0);
}

/// Every solver with every preconditioner converges to CG's answer on the small deck, and the
/// Chebyshev and PPCG runs really switch away from CG.
#[test]
fn every_solver_and_preconditioner_agrees_with_cg() {
    let (cg, _) = run_deck(&shipped("small.in"), &[]);
    let want = *cg.summaries.last().unwrap();
    for solver in ["tl_use_cg", "tl_use_chebyshev", "tl_use_ppcg"] {
        for precond in ["none", "jac_diag", "jac_block"] {
            let tag = format!("{solver}-{precond}");
            let deck = variant(
                "small.in",
                &tag,
                &format!("{solver}\ntl_preconditioner_type {precond}"),
            );
            let (o, text) = run_deck(&deck, &["--ops-threads", "2"]);
            let got = o.summaries.last().unwrap();
            assert_eq!(got.step, 6, "{tag}");
            assert!(
                rel(got.temperature, want.temperature) < 1e-10,
                "{tag}: temperature {} vs CG {}",
                got.temperature,
                want.temperature
            );
            assert!(
                rel(got.energy, want.energy) < 1e-10,
                "{tag}: energy {} vs CG {}",
                got.energy,
                want.energy
            );
            if solver != "tl_use_cg" {
                assert!(text.contains("Switching after"), "{tag}: no switch\n{text}");
            }
            if solver == "tl_use_ppcg" {
                assert!(text.contains("PPCG Iteration count"), "{tag}");
            }
        }
    }
    // Jacobi converges slowly; with a looser tolerance it gets within 1e-6.
    let deck = variant(
        "small.in",
        "jacobi",
        "tl_use_jacobi\ntl_eps 1.0e-9\ntl_max_iters 20000",
    );
    let (o, _) = run_deck(&deck, &[]);
    let got = o.summaries.last().unwrap();
    assert!(
        rel(got.temperature, want.temperature) < 1e-6,
        "jacobi: {} vs CG {}",
        got.temperature,
        want.temperature
    );
}

/// The summary JSON is bitwise identical on seq and on rayon with 1 and 2 threads.
#[test]
fn summaries_bitwise_equal_across_backends() {
    for (deck, tag) in [
        (shipped("small.in"), "small"),
        (shipped("reflective.in"), "reflective"),
        (shipped("ppcg_halo.in"), "ppcg"),
        (
            variant("small.in", "bigger", "x_cells 180\ny_cells 150"),
            "bigger",
        ),
    ] {
        let mut texts = Vec::new();
        for (name, args) in [
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
            let json = temp_path(&format!("{tag}-{name}.json"));
            let js = json.display().to_string();
            let mut a = args.clone();
            a.extend(["--summary-json", &js]);
            run_deck(&deck, &a);
            texts.push((name, std::fs::read_to_string(&json).unwrap()));
        }
        for (name, t) in &texts[1..] {
            assert!(
                t == &texts[0].1,
                "{tag}: summary JSON of {name} differs from seq"
            );
        }
    }
}

/// The summaries: step 0, every `summary_frequency` steps, and the final state last (once).
#[test]
fn summary_json_shape() {
    let json = temp_path("shape.json");
    let js = json.display().to_string();
    let (o, text) = run_deck(&shipped("small.in"), &["--summary-json", &js]);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let list = v["summaries"].as_array().unwrap();
    let steps: Vec<u64> = list.iter().map(|s| s["step"].as_u64().unwrap()).collect();
    assert_eq!(steps, vec![0, 2, 4, 6]);
    for (s, want) in list.iter().zip(&o.summaries) {
        for key in ["time", "volume", "mass", "density", "energy", "temperature"] {
            assert!(s[key].as_f64().unwrap().is_finite(), "{key}");
        }
        assert_eq!(s["iterations"].as_u64().unwrap(), want.iterations);
    }
    assert_eq!(list[2]["iterations"].as_u64().unwrap(), o.iterations[3]);
    let keys: Vec<&str> = list[1]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(keys.len(), 8);
    assert!(text.contains("Temperature"));
    assert_eq!(text.matches(" step:      6").count(), 1, "{text}");
}

/// Results do not depend on the halo depth (nothing reads past the first halo layer).
#[test]
fn halo_depth_does_not_change_results() {
    for base in ["small.in", "reflective.in"] {
        let mut texts = Vec::new();
        for depth in [1, 2, 3] {
            let extra = if base == "reflective.in" {
                // The block preconditioner needs depth 1.
                format!("halo_depth {depth}\ntl_preconditioner_type jac_diag")
            } else {
                format!("halo_depth {depth}\ntl_use_ppcg\ntl_ppcg_inner_steps 5")
            };
            let deck = variant(base, &format!("{base}-h{depth}"), &extra);
            let json = temp_path(&format!("{base}-h{depth}.json"));
            let js = json.display().to_string();
            run_deck(&deck, &["--summary-json", &js]);
            texts.push(std::fs::read_to_string(&json).unwrap());
        }
        assert_eq!(texts[0], texts[1], "{base}: depth 2");
        assert_eq!(texts[0], texts[2], "{base}: depth 3");
    }
}

/// Every geometry takes cells: the point state matches its vertex, the circle and rectangle
/// cover cells.
#[test]
fn shapes_cover_cells() {
    let (o, text) = run_deck(&shipped("shapes.in"), &[]);
    assert!(!text.contains("Warning"), "{text}");
    assert_eq!(o.steps, 5);
}

/// Stored logs `matches_the_original_fortran` does not run again: test problems 1 and 2 have
/// their own tests; the logs of test problems 3 and 4 (500x500, 1000x1000) back the published
/// expected values (`deck::tests::expected_values`).
const NOT_RUN_HERE: &[&str] = &["tea_bm_1.in", "tea_bm_2.in", "tea_bm_3.in", "tea_bm_4.in"];

/// Every stored log of the original Fortran (`reference/*.tea.out`): it was produced from the
/// deck shipped under the same name (the original echoes its input), every final summary
/// agrees with it to `FORTRAN_REL_TOL`, and the CG-family solvers take the original's
/// iteration count at every step. Jacobi's counts are not compared (`defaults.in`): its
/// stopping test compares a sum of tiny updates with a tolerance near rounding level, so the
/// original's fused multiply-adds move its stopping point by a few iterations (with
/// `-ffp-contract=off` they match too); the final summary still agrees.
#[test]
fn matches_the_original_fortran() {
    let logs = fortran::logs_in(std::path::Path::new(LOGS), ".tea.out");
    assert!(logs.len() >= 9, "{} reference logs", logs.len());
    let mut worst = 0.0f64;
    for (name, log) in &logs {
        let text = std::fs::read_to_string(shipped(name)).unwrap();
        assert_eq!(
            fortran::echoed_deck(&fortran::read_log(log)),
            fortran::deck_as_echoed(&text),
            "{}: the original ran another deck than decks/{name}",
            log.display()
        );
        if NOT_RUN_HERE.contains(&name.as_str()) {
            continue;
        }
        let (o, _) = run_deck(&shipped(name), &["--ops-threads", "2"]);
        let counts = name != "defaults.in";
        worst = worst.max(assert_matches_the_original(
            name,
            &o,
            [FORTRAN_REL_TOL; 5],
            counts,
        ));
    }
    eprintln!("largest relative difference from the original: {worst:.2e}");
}

/// A field whose residual is exactly zero (two states with the same density x energy) is
/// already solved: the temperature stays finite and unchanged (the original divides 0 by 0).
#[test]
fn exactly_solved_step_stays_finite() {
    let deck = temp_path("uniform.in");
    std::fs::write(
        &deck,
        "*tea\nstate 1 density=2.0 energy=1.0\nstate 2 density=0.5 energy=4.0 \
         geometry=rectangle xmin=0.0 xmax=5.0 ymin=0.0 ymax=5.0\nx_cells=7\ny_cells=5\n\
         xmax=10.0\nymax=10.0\ninitial_timestep=0.5\nend_step=3\ntl_use_cg\n*endtea\n",
    )
    .unwrap();
    let (o, _) = run_deck(&deck, &[]);
    let (first, last) = (o.summaries[0], *o.summaries.last().unwrap());
    assert!(last.temperature.is_finite() && last.energy.is_finite());
    assert!(rel(last.temperature, first.temperature) < 1e-14);
}

/// The binary reports deck errors with the file and line, and exits 1.
#[test]
fn bad_deck_is_an_error_with_file_and_line() {
    let deck = temp_path("bad.in");
    std::fs::write(
        &deck,
        "*tea\n state 1 density=1 energy=1\n x_cells=ten\n*endtea\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tealeaf"))
        .arg(&deck)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{}:3:", deck.display())), "{err}");
    assert!(err.contains("x_cells"), "{err}");
    let missing = Command::new(env!("CARGO_BIN_EXE_tealeaf"))
        .arg(temp_path("no-such-deck.in"))
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
}

/// `--profile` prints the runtime's per-loop table.
#[test]
fn profile_table() {
    let (o, text) = run_deck(&shipped("small.in"), &["--profile"]);
    assert!(text.contains("tea_leaf_cg_calc_w"), "{text}");
    assert!(o.profile.contains("field_summary"));
    let (o, _) = run_deck(&shipped("reflective.in"), &[]);
    assert!(
        o.profile.contains("fill_halo"),
        "the reflective walls are the runtime's boundary fills"
    );
}

/// A solve cut short by `tl_max_iters` is said to be unconverged, per step and at the end; a
/// deck whose numbers overflow stops with an error naming the step and the quantity (the
/// original prints NaN summaries and exits 0).
#[test]
fn unconverged_solves_warn_and_broken_numbers_stop_the_run() {
    let deck = variant("small.in", "max-iters-1", "tl_max_iters 1");
    let (_, text) = run_deck(&deck, &[]);
    assert!(
        text.contains("did not converge in tl_max_iters = 1 iterations")
            && text.contains("steps did not converge"),
        "{text}"
    );
    let (_, text) = run_deck(&shipped("small.in"), &[]);
    assert!(!text.contains("did not converge"), "{text}");

    let src = std::fs::read_to_string(shipped("small.in")).unwrap();
    let huge = src.replacen("density=100.0", "density=1e308", 1);
    assert_ne!(huge, src, "small.in has a density to change");
    let path = temp_path("huge-density.in");
    std::fs::write(&path, huge).unwrap();
    let mut args = vec!["tealeaf".to_string(), path.display().to_string()];
    args.extend(["--ops-threads".to_string(), "2".to_string()]);
    let cli = Cli::try_parse_from(&args).unwrap();
    let err = run(&cli, &mut Vec::new())
        .expect_err("a NaN run must stop")
        .to_string();
    assert!(
        err.starts_with("step ") && (err.contains("NaN") || err.contains("inf")),
        "{err}"
    );
}

/// `--snapshot-png` draws the final energy as a PNG and changes nothing else.
#[test]
fn snapshot_png_draws_the_final_field() {
    let png = temp_path("final.png");
    let (o, _) = run_deck(
        &shipped("small.in"),
        &["--snapshot-png", &png.display().to_string()],
    );
    ops_testkit::assert_png(&png, 2_000);
    let (plain, _) = run_deck(&shipped("small.in"), &[]);
    assert_eq!(o.summaries.len(), plain.summaries.len());
}

/// `visit_frequency`: one HDF5 dump per visit step (and the last) plus the XDMF series, written
/// by the runtime's dataset output; results unchanged.
#[test]
fn visit_writes_hdf5_and_xdmf() {
    let deck = variant("small.in", "visit", "visit_frequency 2");
    let dir = temp_path("visit-dumps");
    let (o, _) = run_deck(&deck, &["--visit-dir", &dir.display().to_string()]);
    let dumps: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("tea.") && n.ends_with(".h5"))
        .collect();
    assert!(dumps.contains(&"tea.000000.h5".to_string()), "{dumps:?}");
    let xmf = std::fs::read_to_string(dir.join("tea.xmf")).unwrap();
    assert_eq!(
        xmf.matches("<Grid Name=\"step").count(),
        dumps.len(),
        "{xmf}"
    );
    assert!(xmf.contains("Name=\"energy\" AttributeType=\"Scalar\" Center=\"Cell\""));
    let (plain, _) = run_deck(&shipped("small.in"), &[]);
    assert_eq!(
        o.summaries.last().unwrap().temperature.to_bits(),
        plain.summaries.last().unwrap().temperature.to_bits()
    );
}
