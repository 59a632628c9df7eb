//! Text output in the original's formats and the summary JSON.

use std::fmt::Write as _;

use crate::solve::SolveReport;
use crate::tea::Summary;

/// Fortran `Ew.d` editing: `0.ddddE+xx` right-aligned in `w` characters.
pub fn fortran_e(v: f64, w: usize, d: usize) -> String {
    let body = if v.is_nan() {
        "NaN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 {
            "Infinity".to_string()
        } else {
            "-Infinity".to_string()
        }
    } else if v == 0.0 {
        format!(
            "{}0.{}E+00",
            if v.is_sign_negative() { "-" } else { "" },
            "0".repeat(d)
        )
    } else {
        // Rust's scientific form has one digit before the point: d.ddd e X == 0.dddd E X+1.
        let s = format!("{:.*e}", d - 1, v.abs());
        let (mant, exp) = s.split_once('e').expect("scientific format");
        let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
        let exp: i32 = exp.parse::<i32>().expect("exponent") + 1;
        let sign = if v < 0.0 { "-" } else { "" };
        let esign = if exp < 0 { '-' } else { '+' };
        if exp.abs() < 100 {
            format!("{sign}0.{digits}E{esign}{:02}", exp.abs())
        } else {
            format!("{sign}0.{digits}{esign}{:03}", exp.abs())
        }
    };
    format!("{body:>w$}")
}

/// Fortran `1PEw.d` editing: `d.ddE+xx` right-aligned in `w` characters.
pub fn fortran_1pe(v: f64, w: usize, d: usize) -> String {
    let body = if !v.is_finite() {
        format!("{v}")
    } else {
        let s = format!("{:.*e}", d, v);
        let (mant, exp) = s.split_once('e').expect("scientific format");
        let exp: i32 = exp.parse().expect("exponent");
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{mant}E{esign}{:02}", exp.abs())
    };
    format!("{body:>w$}")
}

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
    let qa_diff = ((100.0 * (temperature / expected)) - 100.0).abs();
    let pass = qa_diff < 0.001;
    let text = format!(
        "Test problem{:>4} is within{}% of the expected solution\n This test is considered {}",
        test_problem,
        fortran_e(qa_diff, 16, 7),
        if pass { "PASSED" } else { "NOT PASSED" }
    );
    Some((text, pass))
}

/// `{"summaries":[{"step":..,"time":..,...},...]}` on one line, keys in the documented order,
/// every value at full precision (shortest round-trip formatting; non-finite values as `null`).
pub fn summaries_json(summaries: &[Summary]) -> String {
    fn num(v: f64) -> String {
        serde_json::to_string(&v).expect("f64 serialises")
    }
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
    #[allow(clippy::excessive_precision)]
    fn fortran_formats() {
        assert_eq!(fortran_e(100.0, 16, 4), "      0.1000E+03");
        assert_eq!(fortran_e(0.0, 16, 4), "      0.0000E+00");
        assert_eq!(fortran_e(-1.23456, 16, 4), "     -0.1235E+01");
        assert_eq!(
            fortran_e(99.999999999980361, 26, 17),
            "   0.99999999999980361E+02"
        );
        assert_eq!(fortran_e(0.9917184e-15, 14, 7), " 0.9917184E-15");
        assert_eq!(fortran_1pe(0.004, 9, 2), " 4.00E-03");
        assert_eq!(list_real(0.04000000000000001), "  4.0000000000000008E-002");
        assert_eq!(
            step_line(1, 0.0, 0.004),
            " Step       1 time   0.0000000 timestep   4.00E-03"
        );
    }

    #[test]
    fn verdicts() {
        let (t, pass) = verdict(1, 157.55084183279294).unwrap();
        assert!(pass, "{t}");
        assert!(t.contains("This test is considered PASSED"));
        let (_, pass) = verdict(1, 157.6).unwrap();
        assert!(!pass);
        assert!(verdict(0, 1.0).is_none());
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
