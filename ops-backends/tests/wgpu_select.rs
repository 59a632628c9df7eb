//! Choosing the wgpu backend: `--ops-backend wgpu` / `OPS_BACKEND=wgpu`, `auto`, the adapter
//! filter, and the messages when there is no adapter. One test, because it changes the
//! environment (`WGPU_BACKEND`, `OPS_WGPU_ADAPTER`, `OPS_BACKEND`).

use clap::Parser;
use ops_backends::prelude::*;
use ops_backends::wgpu::{adapters, WgpuBackend, ADAPTER_ENV};

mod wgpu_support;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    ops: OpsArgs,
}

#[test]
fn flags_auto_adapter_filter_and_no_adapter() {
    std::env::remove_var("OPS_BACKEND");
    std::env::remove_var(ADAPTER_ENV);
    let found = adapters();
    eprintln!("adapters: {found:?}");
    if !found.iter().any(|a| a.f64) {
        return ops_testkit::skip(&format!("no adapter offering f64: {found:?}"));
    }

    // The flag and the environment variable.
    let cli = Cli::parse_from(["app", "--ops-backend", "wgpu"]);
    assert_eq!(cli.ops.backend, BackendKind::Wgpu);
    let ops = ops_from_args(&cli.ops).unwrap();
    assert_eq!(ops.backend_name(), "wgpu");
    drop(ops);
    std::env::set_var("OPS_BACKEND", "wgpu");
    let cli = Cli::parse_from(["app"]);
    assert_eq!(cli.ops.backend, BackendKind::Wgpu);
    std::env::set_var("OPS_BACKEND", "auto");
    let cli = Cli::parse_from(["app"]);
    assert_eq!(cli.ops.backend, BackendKind::Auto);
    std::env::remove_var("OPS_BACKEND");

    // Auto: a real GPU offering f64 if there is one, else rayon (llvmpipe does not count).
    let ops = ops_from_config(OpsConfig::new(BackendKind::Auto)).unwrap();
    let gpu = found.iter().any(|a| a.is_gpu() && a.f64);
    assert_eq!(ops.backend_name(), if gpu { "wgpu" } else { "rayon" });
    drop(ops);

    // The adapter filter.
    let first = &found.iter().find(|a| a.f64).unwrap().name;
    let part = first.split_whitespace().next().unwrap().to_uppercase();
    std::env::set_var(ADAPTER_ENV, &part);
    let b = WgpuBackend::new().unwrap();
    assert!(b.adapter().name.to_uppercase().contains(&part));
    drop(b);
    std::env::set_var(ADAPTER_ENV, "no-such-adapter");
    let msg = WgpuBackend::new().unwrap_err().to_string();
    for p in [
        "OPS_WGPU_ADAPTER=no-such-adapter",
        "matches no adapter",
        first.as_str(),
    ] {
        assert!(msg.contains(p), "`{p}` missing from: {msg}");
    }
    std::env::remove_var(ADAPTER_ENV);

    // No adapter at all (wgpu asked for OpenGL only, which this build does not include).
    std::env::set_var("WGPU_BACKEND", "gl");
    let err = WgpuBackend::new().unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, OpsError::Backend { .. }));
    for p in [
        "wgpu",
        "no adapter found",
        "apt-get install mesa-vulkan-drivers",
    ] {
        assert!(msg.contains(p), "`{p}` missing from: {msg}");
    }
    let cli = Cli::parse_from(["app", "--ops-backend", "wgpu"]);
    assert!(ops_from_args(&cli.ops).is_err());
    // Auto falls back to rayon.
    let ops = ops_from_config(OpsConfig::new(BackendKind::Auto)).unwrap();
    assert_eq!(ops.backend_name(), "rayon");
    std::env::remove_var("WGPU_BACKEND");
}
