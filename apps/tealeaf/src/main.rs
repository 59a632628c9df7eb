//! `tealeaf`: TeaLeaf 2D on the ops EDSL. See the library docs and README.md.

use clap::Parser;

fn main() {
    let cli = tealeaf::Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match tealeaf::run(&cli, &mut out) {
        Ok(outcome) => {
            if outcome.passed == Some(false) {
                std::process::exit(2);
            }
        }
        Err(e) => {
            drop(out);
            eprintln!("tealeaf: error: {e}");
            std::process::exit(1);
        }
    }
}
