//! `ops` is the only dependency an application needs, kernels included.
//!
//! The test writes a small workspace outside this one (under cargo's scratch directory for
//! integration tests) and builds it offline with cargo:
//!
//! - `readme-app` depends on `ops` alone; its `main.rs` is the README's example, taken from
//!   `README.md` as it is now, so the README keeps working without `ops-core`;
//! - `helper-lib` (depending on `ops` alone) defines a `#[kernel_fn]` and a `#[kernel_const]`,
//!   and `helper-app` calls them from its kernel, by path and through a renamed import: kernel
//!   items work across crates. It also checks that the kernel's WGSL includes the function.
//!
//! Both programs then run. The build shares this workspace's `Cargo.lock` (so no crate is
//! fetched), profiles and compiler flags; it uses a target directory of its own, so the first
//! run compiles the dependencies once (a few minutes) and later runs reuse them.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The first ```rust block of the README.
fn readme_example() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("```rust\n").expect("a rust block in README.md") + 8;
    let len = readme[start..].find("```").expect("end of the rust block");
    readme[start..start + len].to_string()
}

/// The profile sections of the workspace manifest (a different profile would rebuild every
/// dependency).
fn profiles() -> String {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    match manifest.find("[profile.") {
        Some(i) => manifest[i..].to_string(),
        None => String::new(),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const HELPER_LIB: &str = r#"
use ops::prelude::*;

/// The minmod limiter, for kernels of other crates.
#[kernel_fn]
pub fn minmod(a: f64, b: f64) -> f64 {
    if a * b <= 0.0 {
        0.0
    } else if a.abs() < b.abs() {
        a
    } else {
        b
    }
}

/// A coefficient kernels of other crates use by name.
#[kernel_const]
pub const HALF: f64 = 0.5;
"#;

const HELPER_APP: &str = r#"
use helper_lib::minmod as limiter;
use ops::prelude::*;

#[kernel]
fn slope(u: Read<f64>, s: Write<f64>) {
    s[0] = limiter(u[0] - u[-1], u[1] - u[0]) * helper_lib::HALF;
}

fn main() -> Result<()> {
    use ops::ops_core::kernel::Kernel;
    let wgsl = slope.wgsl().expect("slope has WGSL");
    assert!(wgsl.contains("fn kf_minmod_"), "{wgsl}");
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    let line = ops.block("line", 1)?;
    let init = [0.0, 1.0, 3.0, 4.0, 4.0, 2.0];
    let u = ops.dat_with(&line, "u", DatSpec::new([6]).init(&init))?;
    let s = ops.dat::<f64, 1>(&line, "s", [6], Halo::none())?;
    let s3 = ops.stencil("S3", &[[-1], [0], [1]])?;
    let pt = ops.stencil("pt", &[[0]])?;
    ops.par_loop(slope, "slope", &line, [1..5], &[u.arg(&s3, Read), s.arg(&pt, Write)])?;
    assert_eq!(ops.fetch_range(&s, [1..5])?, vec![0.5, 0.5, 0.0, -0.0]);
    println!("helper-app: ok");
    Ok(())
}
"#;

#[test]
fn an_application_depending_only_on_ops_builds_and_runs() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("facade-only");
    let ops_path = root().join("ops").canonicalize().unwrap();
    let dep = format!("ops = {{ path = {:?} }}", ops_path.display().to_string());
    let package = |name: &str, deps: &str| {
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
             publish = false\n\n[dependencies]\n{deps}\n"
        )
    };
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"2\"\nmembers = [\"readme-app\", \"helper-lib\", \"helper-app\"]\n\n{}",
            profiles()
        ),
    );
    write(
        &dir.join("readme-app/Cargo.toml"),
        &package("readme-app", &dep),
    );
    write(&dir.join("readme-app/src/main.rs"), &readme_example());
    write(
        &dir.join("helper-lib/Cargo.toml"),
        &package("helper-lib", &dep),
    );
    write(&dir.join("helper-lib/src/lib.rs"), HELPER_LIB);
    write(
        &dir.join("helper-app/Cargo.toml"),
        &package(
            "helper-app",
            &format!("{dep}\nhelper-lib = {{ path = \"../helper-lib\" }}"),
        ),
    );
    write(&dir.join("helper-app/src/main.rs"), HELPER_APP);
    // The workspace's lock file: the same versions, nothing to fetch.
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();

    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let build = Command::new(&cargo)
        .current_dir(&dir)
        .args(["build", "--offline", "--workspace", "--profile", profile])
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("run cargo");
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(
        build.status.success(),
        "the out-of-tree workspace does not build:\n{stderr}"
    );
    let out_dir = if profile == "dev" { "debug" } else { "release" };
    for bin in ["readme-app", "helper-app"] {
        let run = Command::new(dir.join("target").join(out_dir).join(bin))
            .env("OPS_BACKEND", "seq")
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{bin} fails: {}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
    }
}
