//! Reading the stored output logs of the original Fortran mini-apps (`apps/*/reference/`), so
//! that the tests take their expected values from the raw logs rather than from copied literals.
//!
//! The logs are the originals' own output files (`clover.out`, `tea.out`): the input deck echoed
//! after a line ending in `from the following input:-`, one field-summary line per summary
//! step (` step:` then the step number and the quantities, printed at full precision in the
//! stored logs), and for TeaLeaf one `Iteration count` line per time step.
//!
//! ```
//! let log = " Clover will run from the following input:-\n\n*clover  \n x_cells=2\n*endclover\n\
//!            \n step:     3   0.10000000000000000E+03   0.33333333333333331E+00\n";
//! let s = ops_testkit::fortran::final_summary(log);
//! assert_eq!(s.step, 3);
//! assert_eq!(s.values, vec![100.0, 1.0 / 3.0]);
//! assert_eq!(ops_testkit::fortran::echoed_deck(log), "*clover\n x_cells=2\n*endclover\n");
//! ```

use std::path::{Path, PathBuf};

/// One field-summary line of a log: the step and the quantities in the order printed.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The time step the summary was taken at.
    pub step: u64,
    /// The quantities, as printed (CloverLeaf: volume, mass, density, pressure, internal,
    /// kinetic and total energy; TeaLeaf: volume, mass, density, energy, temperature).
    pub values: Vec<f64>,
}

/// The text of a stored log; panics with the path if it cannot be read.
pub fn read_log(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("reference log {}: {e}", path.display()))
}

/// The stored logs in `dir` whose names end in `suffix` (e.g. `.clover.out`), sorted, each
/// with the deck name it was produced from (the file name with `suffix` replaced by `.in`).
pub fn logs_in(dir: &Path, suffix: &str) -> Vec<(String, PathBuf)> {
    let mut logs: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reference logs {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let stem = name.strip_suffix(suffix)?;
            Some((format!("{stem}.in"), p.clone()))
        })
        .collect();
    logs.sort();
    logs
}

/// Every field-summary line of `log`, in order (the originals print the final one twice when
/// the last step is also a summary step).
pub fn summaries(log: &str) -> Vec<Summary> {
    log.lines()
        .filter_map(|l| l.trim_start().strip_prefix("step:"))
        .map(|rest| {
            let mut words = rest.split_whitespace();
            let step = words
                .next()
                .and_then(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("summary line without a step: {rest}"));
            let values = words
                .map(|w| {
                    w.parse()
                        .unwrap_or_else(|_| panic!("summary value `{w}` is not a number"))
                })
                .collect();
            Summary { step, values }
        })
        .collect()
}

/// The last field summary of `log` (the final state); panics if there is none.
pub fn final_summary(log: &str) -> Summary {
    summaries(log)
        .pop()
        .expect("the log holds no field summary (` step:` line)")
}

/// TeaLeaf: the solver's iteration count of every time step (`Iteration count` lines; PPCG's
/// separate inner-iteration lines are not included).
pub fn iteration_counts(log: &str) -> Vec<u64> {
    log.lines()
        .filter_map(|l| l.trim_start().strip_prefix("Iteration count"))
        .map(|w| {
            w.trim()
                .parse()
                .unwrap_or_else(|_| panic!("iteration count `{w}` is not a number"))
        })
        .collect()
}

/// The input deck the original echoed at start-up (after the line ending in `from the
/// following input:-` and one blank line), up to its `*endclover` or `*endtea` line, each line
/// with its trailing blanks removed (the originals pad every line to 100 characters).
pub fn echoed_deck(log: &str) -> String {
    let lines = log
        .lines()
        .skip_while(|l| !l.trim_end().ends_with("from the following input:-"))
        .skip(2);
    up_to_end_line(lines)
}

/// A deck file as the originals echo it: from its first line up to the `*endclover` or
/// `*endtea` line, each line with its trailing blanks removed.
pub fn deck_as_echoed(deck: &str) -> String {
    up_to_end_line(deck.lines())
}

fn up_to_end_line<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for l in lines {
        let l = l.trim_end();
        out.push_str(l);
        out.push('\n');
        if l.trim_start().to_ascii_lowercase().starts_with("*end") {
            break;
        }
    }
    out
}

/// The largest relative difference `|got - want| / |want|` over paired quantities (0 where both
/// are 0).
pub fn max_relative_difference(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "different numbers of quantities");
    got.iter()
        .zip(want)
        .map(|(g, w)| if g == w { 0.0 } else { (g - w).abs() / w.abs() })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\n Tea Version    1.403\n\n Tea will run from the following input:-   \n\n\
        *tea      \n! a comment   \nx_cells=10\n*endtea    \n\n Reading input file\n\
        \n step:      0   0.10000000000000000E+03   0.84016000000000022E+04\n\
        Conduction error  0.7778173E-12\nIteration count       33\n\
        PPCG Iteration count      42 (Total       55)\nIteration count        6\n\
        \n step:      2   0.99999999999980361E+02   0.84015999999931973E+04\n";

    #[test]
    #[allow(clippy::excessive_precision)]
    fn reads_summaries_counts_and_the_deck() {
        let all = summaries(LOG);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].step, 0);
        assert_eq!(all[0].values, vec![100.0, 8401.6000000000022]);
        assert_eq!(final_summary(LOG).values[0], 99.999999999980361);
        assert_eq!(iteration_counts(LOG), vec![33, 6]);
        let deck = "*tea\n! a comment\nx_cells=10   \n*endtea\nafter the block\n";
        assert_eq!(echoed_deck(LOG), "*tea\n! a comment\nx_cells=10\n*endtea\n");
        assert_eq!(deck_as_echoed(deck), echoed_deck(LOG));
    }

    #[test]
    fn relative_difference() {
        assert_eq!(max_relative_difference(&[1.0, 0.0], &[1.0, 0.0]), 0.0);
        let d = max_relative_difference(&[1.0 + 1e-15, 2.0], &[1.0, 2.0 + 8e-15]);
        assert!((d - 4e-15).abs() < 1e-16, "{d}");
    }
}
