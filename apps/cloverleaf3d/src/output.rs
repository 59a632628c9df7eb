//! Text output in the original's formats; the summary table and JSON are shared with the 2-D
//! app (`ops_app_common::summary`).

pub use ops_app_common::output::{fortran_1pe, fortran_e};
pub use ops_app_common::summary::summaries_json;

use crate::clover::{StepInfo, Summary};

/// The field summary block as the original prints it (eight digits per quantity).
pub fn summary_table(s: &Summary) -> String {
    ops_app_common::summary::summary_table(s, 8)
}

/// The per-step line: step, time, what controls the step, the step, and the cell with the
/// smallest stable step with its centre. (The original's 3-D code always prints `sound` and
/// cell 1, 1 here; this port reports the cell and limit it computes.)
pub fn step_line(step: u64, time: f64, info: &StepInfo) -> String {
    format!(
        " Step {:>7} time {:>11.7} control {:>11} timestep  {}{:>8},{:>8},{:>8} x {} y {} z {}",
        step,
        time,
        info.control.label(),
        fortran_1pe(info.dt, 9, 2),
        info.cell[0],
        info.cell[1],
        info.cell[2],
        fortran_1pe(info.pos[0], 9, 2),
        fortran_1pe(info.pos[1], 9, 2),
        fortran_1pe(info.pos[2], 9, 2),
    )
}

/// The test-problem verdict lines, if `ke` can be checked against a published value.
pub fn verdict(test_problem: u32, ke: f64) -> Option<(String, bool)> {
    let expected = crate::deck::expected_kinetic_energy(test_problem)?;
    Some(ops_app_common::output::verdict(test_problem, ke, expected))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clover::DtControl;

    #[test]
    fn verdicts() {
        let (t, pass) = verdict(1, 3.64560737191257).unwrap();
        assert!(pass, "{t}");
        let (_, pass) = verdict(2, 20.06).unwrap();
        assert!(!pass);
        assert!(verdict(0, 1.0).is_none());
    }

    #[test]
    fn step_line_names_the_cell() {
        let info = StepInfo {
            time: 0.5,
            dt: 0.04,
            control: DtControl::ZVel,
            cell: [3, 1, 2],
            pos: [2.5, 0.5, 1.5],
            dt_cell: 0.05,
        };
        assert_eq!(
            step_line(7, 0.5, &info),
            " Step       7 time   0.5000000 control        zvel timestep   4.00E-02       3,       1,       2 x  2.50E+00 y  5.00E-01 z  1.50E+00"
        );
    }
}
