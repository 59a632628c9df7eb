//! Text output in the original's formats and the summary JSON.

use std::fmt::Write as _;

use ops_app_common::output::json_number as num;
pub use ops_app_common::output::{fortran_1pe, fortran_e};

use crate::solve::SolveReport;
use crate::tea::Summary;

/// A real as gfortran's list-directed output writes it: `d.dddddddddddddddddE+xxx`.
pub fn list_real(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v:>25}");
    }
    let s = format!("{v:.16E}");
    let (mant, exp) = s.split_once('E').expect("scientific format");
    let exp: i32 = exp.parse().expect("exponent");
    let esign = if exp < 0 { '-' } else { '+' };
    format!("{:>25}", format!("{mant}E{esign}{:03}", exp.abs()))
}

/// The field summary block as the original prints it (its last column, `U`, is labelled
/// Temperature here).
pub fn summary_table(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(out);
    let _ = writeln!(out, " Time {}", list_real(s.time));
    let _ = write!(out, "{:13}", "");
    for h in ["Volume", "Mass", "Density", "Energy", "Temperature"] {
        let _ = write!(out, "{h:>26}");
    }
    let _ = writeln!(out);
    let _ = write!(out, " step:{:>7}", s.step);
    for v in [s.volume, s.mass, s.density, s.energy, s.temperature] {
        let _ = write!(out, "{}", fortran_e(v, 26, 17));
    }
    let _ = writeln!(out);
    out
}

/// The line the original prints at the start of each step.
pub fn step_line(step: u64, time: f64, dt: f64) -> String {
    format!(
        " Step {:>7} time {:>11.7} timestep  {}",
        step,
        time,
        fortran_1pe(dt, 9, 2)
    )
}

/// The lines the original prints after each solve.
pub fn solve_lines(r: &SolveReport) -> String {
    let mut out = String::new();
    for m in &r.messages {
        let _ = writeln!(out, "{m}");
    }
    let _ = writeln!(out, "Conduction error {}", fortran_e(r.error, 14, 7));
    if let Some(e) = r.exact_error {
        let _ = writeln!(out, "EXACT error calculated as{}", fortran_e(e, 14, 7));
    }
    let _ = write!(out, "Iteration count {:>8}", r.iterations);
    if let Some(inner) = r.ppcg_inner_iterations {
        let _ = write!(
            out,
            "\nPPCG Iteration count{:>8} (Total {:>8})",
            inner,
            inner + r.iterations as i64
        );
    }
    out
}

/// The test-problem verdict lines, if `temperature` can be checked against a published value.
pub fn verdict(test_problem: u32, temperature: f64) -> Option<(String, bool)> {
    let expected = crate::deck::expected_temperature(test_problem)?;
    Some(ops_app_common::output::verdict(
        test_problem,
        temperature,
        expected,
    ))
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
            "{{\"step\":{},\"time\":{},\"volume\":{},\"mass\":{},\"density\":{},\"energy\":{},\
             \"temperature\":{},\"iterations\":{}}}",
            s.step,
            num(s.time),
            num(s.volume),
            num(s.mass),
            num(s.density),
            num(s.energy),
            num(s.temperature),
            s.iterations
        );
    }
    text.push_str("]}\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_real_and_step_line() {
        assert_eq!(list_real(0.04000000000000001), "  4.0000000000000008E-002");
        assert_eq!(
            step_line(1, 0.0, 0.004),
            " Step       1 time   0.0000000 timestep   4.00E-03"
        );
    }

    #[test]
    fn verdicts() {
        // Every published test problem passes at its expected value, just inside 0.001 % on
        // either side, and fails just outside.
        for (n, t) in crate::deck::EXPECTED_TEMPERATURE {
            let (text, pass) = verdict(n, t).unwrap();
            assert!(
                pass && text.ends_with("This test is considered PASSED"),
                "{text}"
            );
            for off in [0.99999e-5, -0.99999e-5] {
                let (text, pass) = verdict(n, t * (1.0 + off)).unwrap();
                assert!(pass, "{off:e} off: {text}");
            }
            for off in [1.00001e-5, -1.00001e-5] {
                let (text, pass) = verdict(n, t * (1.0 + off)).unwrap();
                assert!(!pass && text.ends_with("NOT PASSED"), "{off:e} off: {text}");
            }
        }
        assert!(verdict(0, 1.0).is_none());
        assert!(verdict(7, 1.0).is_none());
    }

    #[test]
    fn json_round_trips() {
        let s = Summary {
            step: 3,
            time: 0.1 + 0.2,
            volume: 100.0,
            mass: 1.0 / 3.0,
            density: 1e-300,
            energy: 2.0f64.sqrt(),
            temperature: f64::MAX,
            iterations: 17,
        };
        let j = summaries_json(&[s]);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        let e = &v["summaries"][0];
        assert_eq!(e["step"], 3);
        assert_eq!(e["iterations"], 17);
        assert_eq!(
            e["time"].as_f64().unwrap().to_bits(),
            (0.1f64 + 0.2).to_bits()
        );
        assert_eq!(
            e["mass"].as_f64().unwrap().to_bits(),
            (1.0f64 / 3.0).to_bits()
        );
        assert_eq!(e["temperature"].as_f64().unwrap(), f64::MAX);
        assert!(
            j.starts_with(
                "{\"summaries\":[{\"step\":3,\"time\":0.30000000000000004,\"volume\":100.0,"
            ),
            "{j}"
        );
        let nan = Summary {
            temperature: f64::NAN,
            ..s
        };
        let v: serde_json::Value = serde_json::from_str(&summaries_json(&[s, nan])).unwrap();
        assert!(v["summaries"][1]["temperature"].is_null());
    }
}
