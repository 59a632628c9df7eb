//! The `--ops-*` flags: parsing, environment variables, errors and `--help`.

use clap::{CommandFactory, Parser};
use ops_core::prelude::*;

#[derive(Parser, Debug)]
#[command(name = "app")]
struct Cli {
    #[command(flatten)]
    ops: OpsArgs,
    /// An application flag beside the runtime's.
    #[arg(long, default_value_t = 3)]
    steps: usize,
}

#[test]
fn flags_env_errors_and_help() {
    // One test, so the environment is not shared with a concurrently running one.
    std::env::remove_var("OPS_BACKEND");
    std::env::remove_var("OPS_THREADS");

    let cli = Cli::parse_from(["app"]);
    assert_eq!(cli.ops, OpsArgs::default());
    assert_eq!(cli.ops.backend, BackendKind::Rayon);
    assert_eq!(cli.ops.threads, None);
    assert_eq!(cli.steps, 3);

    let cli = Cli::parse_from([
        "app",
        "--ops-backend",
        "seq",
        "--ops-threads",
        "4",
        "--steps",
        "9",
    ]);
    assert_eq!(cli.ops.backend, BackendKind::Seq);
    assert_eq!(cli.ops.threads, Some(4));
    let cfg = OpsConfig::from(&cli.ops);
    assert_eq!(cfg.backend, BackendKind::Seq);
    assert_eq!(cfg.threads, Some(4));
    assert!(cfg.validate().is_ok());
    assert!(OpsConfig::new(BackendKind::Rayon)
        .with_threads(Some(0))
        .validate()
        .is_err());

    for bad in ["0", "two", "1.5"] {
        let e = Cli::try_parse_from(["app", "--ops-threads", bad])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--ops-threads"), "{e}");
    }
    let e = Cli::try_parse_from(["app", "--ops-backend", "cuda"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--ops-backend") && e.contains("seq") && e.contains("rayon"),
        "{e}"
    );

    std::env::set_var("OPS_BACKEND", "seq");
    std::env::set_var("OPS_THREADS", "2");
    let cli = Cli::parse_from(["app"]);
    assert_eq!(cli.ops.backend, BackendKind::Seq);
    assert_eq!(cli.ops.threads, Some(2));
    // Flags win over the environment.
    let cli = Cli::parse_from(["app", "--ops-backend", "rayon"]);
    assert_eq!(cli.ops.backend, BackendKind::Rayon);
    std::env::set_var("OPS_THREADS", "0");
    assert!(Cli::try_parse_from(["app"]).is_err());
    std::env::remove_var("OPS_BACKEND");
    std::env::remove_var("OPS_THREADS");

    let help = Cli::command().render_long_help().to_string();
    for s in [
        "--ops-backend",
        "--ops-threads",
        "OPS_BACKEND",
        "OPS_THREADS",
        "--steps",
    ] {
        assert!(help.contains(s), "{s} missing from --help:\n{help}");
    }
    assert_eq!(BackendKind::Seq.to_string(), "seq");
}
