//! Text output in the original's formats and the summary JSON.

use std::fmt::Write as _;

use ops_app_common::output::json_number as num;
pub use ops_app_common::output::{fortran_1pe, fortran_e};

use crate::clover::{StepInfo, Summary};

/// The field summary block as the original prints it.
pub fn summary_table(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(out);
    let _ = writeln!(out, " Time {:>24.16}", s.time);
    let _ = write!(out, "{:13}", "");
    for h in [
        "Volume",
        "Mass",
        "Density",
        "Pressure",
        "Internal Energy",
        "Kinetic Energy",
        "Total Energy",
    ] {
        let _ = write!(out, "{h:>16}");
    }
    let _ = writeln!(out);
    let _ = write!(out, " step:{:>7}", s.step);
    for v in [
        s.volume,
        s.mass,
        s.density,
        s.pressure,
        s.internal_energy,
        s.kinetic_energy,
        s.total_energy,
    ] {
        let _ = write!(out, "{}", fortran_e(v, 16, 4));
    }
    let _ = writeln!(out);
    out
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

/// `{"summaries":[{"step":..,"time":..,...},...]}` on one line, keys in the documented order,
/// every value at full precision (shortest round-trip formatting; non-finite values as `null`).
pub fn summaries_json(summaries: &[Summary]) -> String {
    let mut text = String::from("{\"summaries\":[");
    for (i, s) in summaries.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        let _ = write!(
            text,
            "{{\"step\":{},\"time\":{},\"volume\":{},\"mass\":{},\"density\":{},\"pressure\":{},\
             \"internal_energy\":{},\"kinetic_energy\":{},\"total_energy\":{}}}",
            s.step,
            num(s.time),
            num(s.volume),
            num(s.mass),
            num(s.density),
            num(s.pressure),
            num(s.internal_energy),
            num(s.kinetic_energy),
            num(s.total_energy)
        );
    }
    text.push_str("]}\n");
    text
}

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

    #[test]
    fn json_round_trips() {
        let s = Summary {
            step: 3,
            time: 0.1 + 0.2,
            volume: 100.0,
            mass: 1.0 / 3.0,
            density: 1e-300,
            pressure: 12345.678901234567,
            internal_energy: 2.0f64.sqrt(),
            kinetic_energy: 0.0,
            total_energy: f64::MAX,
        };
        let j = summaries_json(&[s]);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        let e = &v["summaries"][0];
        assert_eq!(e["step"], 3);
        assert_eq!(
            e["time"].as_f64().unwrap().to_bits(),
            (0.1f64 + 0.2).to_bits()
        );
        assert_eq!(
            e["mass"].as_f64().unwrap().to_bits(),
            (1.0f64 / 3.0).to_bits()
        );
        assert_eq!(e["density"].as_f64().unwrap(), 1e-300);
        assert_eq!(e["total_energy"].as_f64().unwrap(), f64::MAX);
        assert!(
            j.starts_with(
                "{\"summaries\":[{\"step\":3,\"time\":0.30000000000000004,\"volume\":100.0,"
            ),
            "{j}"
        );
        let nan = Summary {
            kinetic_energy: f64::NAN,
            ..s
        };
        let v: serde_json::Value = serde_json::from_str(&summaries_json(&[s, nan])).unwrap();
        assert!(v["summaries"][1]["kinetic_energy"].is_null());
    }
}
