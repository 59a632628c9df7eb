//! Number formatting shared by the apps' text and JSON output.
//!
//! [`fortran_e`] and [`fortran_1pe`] reproduce the Fortran edit descriptors the original
//! mini-apps print with, [`verdict`] the test-problem check they end with, and [`json_number`]
//! the number format of the summary JSON files; [`banner`] is the first line of both apps.

/// The first line both apps print: which app, on which backend, with how many threads, and
/// (in a distributed run) on how many processes.
///
/// ```
/// use ops_app_common::output::banner;
///
/// assert_eq!(banner("Tea", "rayon", 2, 1), "\n Tea (ops EDSL port) on backend rayon with 2 thread(s)");
/// assert!(banner("Clover", "seq", 1, 4).ends_with("1 thread(s) per rank, 4 ranks"));
/// ```
pub fn banner(app: &str, backend: &str, threads: usize, ranks: usize) -> String {
    let per_rank = if ranks > 1 {
        format!(" per rank, {ranks} ranks")
    } else {
        String::new()
    };
    format!("\n {app} (ops EDSL port) on backend {backend} with {threads} thread(s){per_rank}")
}

/// Fortran `Ew.d` editing: `0.ddddE+xx` right-aligned in `w` characters.
///
/// Three-digit exponents drop the `E` (`0.1000+100`), as Fortran does; non-finite values are
/// written as `NaN`, `Infinity` and `-Infinity`.
///
/// ```
/// use ops_app_common::output::fortran_e;
///
/// assert_eq!(fortran_e(-1.23456, 16, 4), "     -0.1235E+01");
/// ```
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
///
/// ```
/// use ops_app_common::output::fortran_1pe;
///
/// assert_eq!(fortran_1pe(0.04, 9, 2), " 4.00E-02");
/// ```
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

/// The original's test-problem verdict for a final `value` against the published `expected`
/// one: the two lines it prints, and whether they agree to within 0.001%.
///
/// ```
/// use ops_app_common::output::verdict;
///
/// let (text, pass) = verdict(2, 1.0, 1.0);
/// assert!(pass);
/// assert!(text.ends_with("This test is considered PASSED"), "{text}");
/// ```
pub fn verdict(test_problem: u32, value: f64, expected: f64) -> (String, bool) {
    let qa_diff = ((100.0 * (value / expected)) - 100.0).abs();
    let pass = qa_diff < 0.001;
    let text = format!(
        "Test problem{:>4} is within{}% of the expected solution\n This test is considered {}",
        test_problem,
        fortran_e(qa_diff, 16, 7),
        if pass { "PASSED" } else { "NOT PASSED" }
    );
    (text, pass)
}

/// A JSON number at full precision: the shortest text that reads back as the same `f64`
/// (`null` for NaN and infinities, which JSON cannot hold).
///
/// ```
/// use ops_app_common::output::json_number;
///
/// assert_eq!(json_number(0.1 + 0.2), "0.30000000000000004");
/// assert_eq!(json_number(f64::NAN), "null");
/// ```
pub fn json_number(v: f64) -> String {
    serde_json::to_string(&v).expect("f64 serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::excessive_precision)]
    fn fortran_e_format() {
        assert_eq!(fortran_e(100.0, 16, 4), "      0.1000E+03");
        assert_eq!(fortran_e(0.0, 16, 4), "      0.0000E+00");
        assert_eq!(fortran_e(-1.23456, 16, 4), "     -0.1235E+01");
        assert_eq!(fortran_e(1.0e-5, 16, 4), "      0.1000E-04");
        assert_eq!(fortran_e(9.99996, 16, 4), "      0.1000E+02");
        assert_eq!(fortran_e(0.5e-9, 16, 7), "   0.5000000E-09");
        assert_eq!(
            fortran_e(99.999999999980361, 26, 17),
            "   0.99999999999980361E+02"
        );
        assert_eq!(fortran_e(0.9917184e-15, 14, 7), " 0.9917184E-15");
        assert_eq!(fortran_e(1.0e100, 12, 4), "  0.1000+101");
        assert_eq!(fortran_e(f64::NAN, 6, 2), "   NaN");
        assert_eq!(fortran_e(f64::NEG_INFINITY, 10, 2), " -Infinity");
    }

    #[test]
    fn fortran_1pe_format() {
        assert_eq!(fortran_1pe(0.04, 9, 2), " 4.00E-02");
        assert_eq!(fortran_1pe(0.004, 9, 2), " 4.00E-03");
        assert_eq!(fortran_1pe(1234.0, 9, 2), " 1.23E+03");
    }

    #[test]
    fn verdicts() {
        let (t, pass) = verdict(1, 1.82280367310258, 1.82280367310258);
        assert!(pass, "{t}");
        assert_eq!(
            t,
            "Test problem   1 is within   0.0000000E+00% of the expected solution\n \
             This test is considered PASSED"
        );
        // The threshold is 0.001 %: 0.99999e-5 relative on either side passes, 1.00001e-5 fails.
        let expected = 1.82280367310258;
        for off in [0.99999e-5, -0.99999e-5] {
            let (t, pass) = verdict(1, expected * (1.0 + off), expected);
            assert!(pass && t.ends_with(" PASSED") && !t.contains("NOT"), "{t}");
        }
        let (t, _) = verdict(1, expected * (1.0 + 0.99999e-5), expected);
        assert!(t.contains("within   0.9999900E-03%"), "{t}");
        for off in [1.00001e-5, -1.00001e-5] {
            let (t, pass) = verdict(1, expected * (1.0 + off), expected);
            assert!(!pass && t.ends_with("NOT PASSED"), "{t}");
        }
    }

    #[test]
    fn json_numbers_round_trip() {
        for v in [1.0 / 3.0, 1e-300, f64::MAX, 100.0, -0.0, 12345.678901234567] {
            let t = json_number(v);
            assert_eq!(t.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{t}");
        }
        assert_eq!(json_number(100.0), "100.0");
        assert_eq!(json_number(f64::INFINITY), "null");
    }
}
