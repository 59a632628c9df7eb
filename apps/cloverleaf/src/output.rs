//! Text output in the original's formats and the summary JSON.

pub use ops_app_common::output::{fortran_1pe, fortran_e};

use crate::clover::{StepInfo, Summary};

/// The field summary block as the original prints it (four digits per quantity).
pub fn summary_table(s: &Summary) -> String {
    ops_app_common::summary::summary_table(s, 4)
}

/// The per-step line: step, time, what controls the step, the step, the controlling cell.
pub fn step_line(step: u64, time: f64, info: &StepInfo) -> String {
    format!(
        " Step {:>7} time {:>11.7} control {:>11} timestep  {}{:>8},{:>8} x {} y {}",
        step,
        time,
        info.control.label(),
        fortran_1pe(info.dt, 9, 2),
        info.cell.0,
        info.cell.1,
        fortran_1pe(info.pos.0, 9, 2),
        fortran_1pe(info.pos.1, 9, 2),
    )
}

/// The test-problem verdict lines, if `ke` can be checked against a published value.
pub fn verdict(test_problem: u32, ke: f64) -> Option<(String, bool)> {
    let expected = crate::deck::expected_kinetic_energy(test_problem)?;
    Some(ops_app_common::output::verdict(test_problem, ke, expected))
}

pub use ops_app_common::summary::summaries_json;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        // Every published test problem passes at its expected value, just inside 0.001 % on
        // either side, and fails just outside.
        for (n, ke) in crate::deck::EXPECTED_KE {
            let (t, pass) = verdict(n, ke).unwrap();
            assert!(pass && t.ends_with("This test is considered PASSED"), "{t}");
            for off in [0.99999e-5, -0.99999e-5] {
                let (t, pass) = verdict(n, ke * (1.0 + off)).unwrap();
                assert!(pass, "{off:e} off: {t}");
            }
            for off in [1.00001e-5, -1.00001e-5] {
                let (t, pass) = verdict(n, ke * (1.0 + off)).unwrap();
                assert!(!pass && t.ends_with("NOT PASSED"), "{off:e} off: {t}");
            }
        }
        assert!(verdict(0, 1.0).is_none());
        assert!(verdict(6, 1.0).is_none());
    }
}
