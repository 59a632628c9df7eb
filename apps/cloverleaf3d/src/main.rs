//! `cloverleaf3d`: CloverLeaf 3D on the ops EDSL. See the library docs and README.md.

use clap::Parser;

fn main() {
    let cli = cloverleaf3d::Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cloverleaf3d::run(&cli, &mut out) {
        Ok(outcome) => {
            if outcome.passed == Some(false) {
                std::process::exit(2);
            }
        }
        Err(e) => {
            drop(out);
            eprintln!("cloverleaf3d: error: {e}");
            std::process::exit(1);
        }
    }
}
