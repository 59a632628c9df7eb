//! CloverLeaf on the GPU backend.
//!
//! 1. Golden copies of the WGSL generated for every CloverLeaf kernel live in
//!    `shaders/golden/cloverleaf/<kernel>.wgsl` (or `<kernel>.err.txt` for a kernel without a WGSL
//!    form). A change to the macro's WGSL lowering or to a kernel shows up as a failure here until
//!    the new shaders are reviewed and blessed:
//!
//!    ```text
//!    OPS_BLESS=1 cargo test -p cloverleaf --test wgsl_golden
//!    ```
//!
//!    which rewrites the golden files (and deletes those of kernels that no longer exist); review
//!    the diff with `git diff shaders/golden` before committing it. Blessing is refused where
//!    every test must run as checked in (`CI` or `OPS_REQUIRE_ALL=1` set): CI never rewrites
//!    what it is meant to check.
//! 2. The golden files are reviewed by eye; their meaning is checked by running: every
//!    generated kernel runs on the wgpu device and on `seq` (the CPU lowering of the same
//!    kernel) with the same random inputs, and the results agree as docs/gpu.md states.
//! 3. Test problem 1 on `--ops-backend wgpu` passes and agrees with `rayon` to 1e-10 relative in
//!    every field-summary quantity (`--summary-json` of both runs compared).
//!
//! Without an adapter offering f64 the device tests are reported as skipped
//! (`ops_testkit::skip`), which fails under `OPS_REQUIRE_ALL=1` (set by `.ci/run`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use cloverleaf::{run, Cli};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shaders/golden/cloverleaf"
);
const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/decks");

/// Every CloverLeaf kernel's generated WGSL (or its reason for having none), by file name.
fn generated() -> BTreeMap<String, String> {
    // Linking the crate registers its kernels; naming `run` keeps it linked.
    let _ = run as fn(&Cli, &mut dyn std::io::Write) -> _;
    let mut files = BTreeMap::new();
    for k in ops::ops_core::kernel::registered_kernels() {
        let (file, text) = match k.wgsl() {
            Ok(src) => (format!("{}.wgsl", k.name()), src.to_string()),
            Err(why) => (format!("{}.err.txt", k.name()), format!("{why}\n")),
        };
        assert!(
            files.insert(file.clone(), text).is_none(),
            "two kernels named {file}"
        );
    }
    files
}

fn on_disk(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if name.ends_with(".wgsl") || name.ends_with(".err.txt") {
                files.insert(name, std::fs::read_to_string(e.path()).unwrap());
            }
        }
    }
    files
}

fn first_difference(old: &str, new: &str) -> String {
    for (i, (a, b)) in old.lines().zip(new.lines()).enumerate() {
        if a != b {
            return format!("line {}:\n    golden:    {a}\n    generated: {b}", i + 1);
        }
    }
    format!(
        "{} lines golden, {} generated",
        old.lines().count(),
        new.lines().count()
    )
}

#[test]
fn generated_wgsl_matches_the_golden_copies() {
    let dir = PathBuf::from(GOLDEN);
    let new = generated();
    assert!(
        new.len() > 40,
        "only {} kernels registered; is the cloverleaf crate linked?",
        new.len()
    );
    let old = on_disk(&dir);
    if std::env::var("OPS_BLESS").is_ok_and(|v| v == "1") {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !ci && !ops_testkit::required(),
            "OPS_BLESS=1 rewrites the reviewed golden shaders; it is refused under CI and \
             OPS_REQUIRE_ALL=1 (bless locally, review `git diff shaders/golden`, commit)"
        );
        std::fs::create_dir_all(&dir).unwrap();
        for name in old.keys().filter(|n| !new.contains_key(*n)) {
            std::fs::remove_file(dir.join(name)).unwrap();
        }
        for (name, text) in &new {
            if old.get(name) != Some(text) {
                std::fs::write(dir.join(name), text).unwrap();
            }
        }
        eprintln!("blessed {} golden shaders in {}", new.len(), dir.display());
        return;
    }
    let mut problems = Vec::new();
    for (name, text) in &new {
        match old.get(name) {
            None => problems.push(format!("{name}: new kernel, no golden copy")),
            Some(g) if g != text => {
                problems.push(format!("{name}: changed, {}", first_difference(g, text)))
            }
            Some(_) => {}
        }
    }
    for name in old.keys().filter(|n| !new.contains_key(*n)) {
        problems.push(format!(
            "{name}: golden copy of a kernel that no longer exists"
        ));
    }
    assert!(
        problems.is_empty(),
        "generated WGSL differs from shaders/golden/cloverleaf ({} files):\n  {}\n\
         Review the change, then refresh the golden copies with\n  \
         OPS_BLESS=1 cargo test -p cloverleaf --test wgsl_golden\nand commit them.",
        problems.len(),
        problems.join("\n  ")
    );
}

/// Every generated CloverLeaf shader (with the prelude) parses and validates with naga, f64
/// enabled, as the wgpu backend checks it before compiling.
#[test]
fn every_cloverleaf_shader_validates() {
    for k in ops::ops_core::kernel::registered_kernels() {
        ops::ops_backends::wgpu::validate_kernel(k).unwrap_or_else(|e| panic!("{e}"));
    }
}

fn wgpu_available() -> bool {
    ops_testkit::wgpu_or_skip().is_some()
}

/// Every generated kernel on the device against its CPU lowering (`seq`), on the same random
/// inputs: integers agree exactly, floats to the rounding that docs/gpu.md states (the
/// device's compiler may contract `a * b + c` into one fused multiply-add); and two device runs
/// agree bitwise.
#[test]
fn every_kernel_on_the_device_agrees_with_its_cpu_lowering() {
    let _ = run as fn(&Cli, &mut dyn std::io::Write) -> _;
    let mut kernels: Vec<_> = ops::ops_core::kernel::registered_kernels().collect();
    kernels.sort_by_key(|k| k.name());
    let Some(problems) = ops_testkit::kernel_check::every_kernel_on_the_device(&kernels, 1000)
    else {
        return;
    };
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs `deck` on `backend` and returns the summaries as JSON values, with the verdict.
fn summaries(deck: &Path, backend: &str) -> (Vec<serde_json::Value>, Option<bool>) {
    let json = std::env::temp_dir().join(format!(
        "cloverleaf-wgsl-golden-{}-{backend}-{}.json",
        std::process::id(),
        deck.file_stem().unwrap().to_string_lossy()
    ));
    let cli = Cli::try_parse_from([
        "cloverleaf".to_string(),
        deck.display().to_string(),
        "--no-progress".into(),
        "--ops-backend".into(),
        backend.into(),
        "--summary-json".into(),
        json.display().to_string(),
    ])
    .unwrap();
    let mut out = Vec::new();
    let o = run(&cli, &mut out).unwrap_or_else(|e| panic!("{backend}: {e}"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let list = v["summaries"].as_array().expect("summaries").clone();
    (list, o.passed)
}

fn compare_runs(deck: &Path) {
    let (gpu, gpu_passed) = summaries(deck, "wgpu");
    let (cpu, cpu_passed) = summaries(deck, "rayon");
    assert_eq!(gpu_passed, cpu_passed);
    assert_eq!(gpu.len(), cpu.len(), "number of summaries");
    let mut worst = 0.0f64;
    for (g, c) in gpu.iter().zip(&cpu) {
        let (g, c) = (g.as_object().unwrap(), c.as_object().unwrap());
        assert_eq!(g.keys().collect::<Vec<_>>(), c.keys().collect::<Vec<_>>());
        for (key, gv) in g {
            let (a, b) = (gv.as_f64().unwrap(), c[key].as_f64().unwrap());
            let rel = if a == b {
                0.0
            } else {
                (a - b).abs() / a.abs().max(b.abs())
            };
            assert!(
                rel <= 1e-10,
                "{}: {key} differs: wgpu {a:e}, rayon {b:e} ({rel:e} relative)",
                deck.display()
            );
            worst = worst.max(rel);
        }
    }
    eprintln!(
        "{}: {} summaries, wgpu vs rayon worst relative difference {worst:e}",
        deck.display(),
        gpu.len()
    );
}

#[test]
fn test_problem_1_on_wgpu_matches_rayon() {
    if !wgpu_available() {
        return;
    }
    let deck = PathBuf::from(REFERENCE).join("clover_test1.in");
    let (_, passed) = summaries(&deck, "wgpu");
    assert_eq!(passed, Some(true), "test problem 1 fails on wgpu");
    compare_runs(&deck);
}

/// A deck with more cells and every state geometry (the project's own `layered.in`).
#[test]
fn layered_deck_on_wgpu_matches_rayon() {
    if !wgpu_available() {
        return;
    }
    compare_runs(&PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/decks/layered.in"
    )));
}
