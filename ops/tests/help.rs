//! `--help` of a program that flattens `ops::OpsArgs`: the program's own description (or none),
//! never the rustdoc of the flattened structs, and flag help in plain words (no Markdown, no
//! rustdoc links).

use clap::{CommandFactory, Parser};

/// Solves the heat equation on a square.
#[derive(Parser)]
struct Described {
    #[command(flatten)]
    ops: ops::OpsArgs,
    /// Mesh points per side.
    #[arg(long, default_value_t = 64)]
    n: usize,
}

#[derive(Parser)]
struct Undescribed {
    #[command(flatten)]
    ops: ops::OpsArgs,
}

/// Text that only the rustdoc of the flattened argument structs contains.
const RUSTDOC: [&str; 4] = [
    "The full command line",
    "The runtime's command-line flags",
    "The resilience flags",
    "use clap::Parser",
];

fn assert_plain(help: &str) {
    for markup in ["```", "[`", "`", "]("] {
        assert!(!help.contains(markup), "`{markup}` in the help:\n{help}");
    }
    for doc in RUSTDOC {
        assert!(!help.contains(doc), "rustdoc `{doc}` in the help:\n{help}");
    }
}

#[test]
fn help_shows_the_programs_description_and_plain_flag_help() {
    let long = Described::command().render_long_help().to_string();
    assert!(
        long.starts_with("Solves the heat equation on a square"),
        "{long}"
    );
    assert_plain(&long);
    for flag in [
        "--ops-backend",
        "--ops-checkpoint-mode",
        "--ops-restart",
        "--n",
    ] {
        assert!(long.contains(flag), "{flag} missing:\n{long}");
    }
    assert!(long.contains("written to HDF5 at exit"), "{long}");
    assert_plain(&Described::command().render_help().to_string());
}

#[test]
fn a_program_without_a_description_gets_none_from_ops() {
    let long = Undescribed::command().render_long_help().to_string();
    assert!(long.starts_with("Usage:"), "{long}");
    assert_plain(&long);
}
