//! CloverLeaf's field summary, shared by the 2-D and 3-D apps: the quantities, the original's
//! table and the `--summary-json` file.
//!
//! Both apps report the same seven totals over the interior cells, print them in the same table
//! (the 2-D original with 4 digits, the 3-D one with 8) and write the same JSON keys, so a tool
//! that reads one app's summaries reads the other's.

use std::fmt::Write as _;

use crate::output::{fortran_e, json_number as num};

/// What the field summary reports, over the interior cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Step the summary was taken after (0: the initial state).
    pub step: u64,
    /// Simulated time.
    pub time: f64,
    /// Total volume.
    pub volume: f64,
    /// Total mass.
    pub mass: f64,
    /// Mass / volume.
    pub density: f64,
    /// Volume-weighted mean pressure.
    pub pressure: f64,
    /// Total internal energy.
    pub internal_energy: f64,
    /// Total kinetic energy.
    pub kinetic_energy: f64,
    /// Internal + kinetic.
    pub total_energy: f64,
}

impl Summary {
    /// The seven reported quantities in the table's order: volume, mass, density, pressure,
    /// internal, kinetic and total energy.
    pub fn quantities(&self) -> [f64; 7] {
        [
            self.volume,
            self.mass,
            self.density,
            self.pressure,
            self.internal_energy,
            self.kinetic_energy,
            self.total_energy,
        ]
    }

    /// The first quantity that is NaN or infinite, by name, with its value: a run whose
    /// summary holds one has broken down and must stop rather than print noise.
    ///
    /// ```
    /// use ops_app_common::summary::Summary;
    ///
    /// let mut s = Summary { step: 2, time: 0.5, volume: 8.0, mass: 4.0, density: 0.5,
    ///                       pressure: 1.0, internal_energy: 3.0, kinetic_energy: 1.0,
    ///                       total_energy: 4.0 };
    /// assert_eq!(s.first_non_finite(), None);
    /// s.pressure = f64::NAN;
    /// assert_eq!(s.first_non_finite().map(|q| q.0), Some("pressure"));
    /// ```
    pub fn first_non_finite(&self) -> Option<(&'static str, f64)> {
        const NAMES: [&str; 7] = [
            "volume",
            "mass",
            "density",
            "pressure",
            "internal energy",
            "kinetic energy",
            "total energy",
        ];
        NAMES
            .into_iter()
            .zip(self.quantities())
            .find(|(_, v)| !v.is_finite())
    }
}

/// The field summary block as the originals print it, each quantity as Fortran `E16.<digits>`
/// (CloverLeaf 2D: 4 digits, 3D: 8).
///
/// ```
/// use ops_app_common::summary::{summary_table, Summary};
///
/// let s = Summary { step: 2, time: 0.5, volume: 8.0, mass: 4.0, density: 0.5, pressure: 1.0,
///                   internal_energy: 3.0, kinetic_energy: 1.0, total_energy: 4.0 };
/// let t = summary_table(&s, 8);
/// assert!(t.contains(" step:      2  0.80000000E+01"), "{t}");
/// ```
pub fn summary_table(s: &Summary, digits: usize) -> String {
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
    for v in s.quantities() {
        let _ = write!(out, "{}", fortran_e(v, 16, digits));
    }
    let _ = writeln!(out);
    out
}

/// `{"summaries":[{"step":..,"time":..,...},...]}` on one line, keys in the documented order,
/// every value at full precision (shortest round-trip formatting; non-finite values as `null`).
///
/// ```
/// use ops_app_common::summary::{summaries_json, Summary};
///
/// let s = Summary { step: 1, time: 0.1, volume: 1.0, mass: 1.0, density: 1.0, pressure: 1.0,
///                   internal_energy: 1.0, kinetic_energy: 0.0, total_energy: 1.0 };
/// assert!(summaries_json(&[s]).starts_with("{\"summaries\":[{\"step\":1,\"time\":0.1,"));
/// ```
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

    fn sample() -> Summary {
        Summary {
            step: 3,
            time: 0.1 + 0.2,
            volume: 100.0,
            mass: 1.0 / 3.0,
            density: 1e-300,
            pressure: 12345.678901234567,
            internal_energy: 2.0f64.sqrt(),
            kinetic_energy: 0.0,
            total_energy: f64::MAX,
        }
    }

    #[test]
    fn json_round_trips() {
        let s = sample();
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

    #[test]
    fn table_layout() {
        let t = summary_table(&sample(), 4);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(lines[1], " Time       0.3000000000000000");
        assert_eq!(
            lines[2],
            "                       Volume            Mass         Density        Pressure Internal Energy  Kinetic Energy    Total Energy"
        );
        assert!(
            lines[3].starts_with(" step:      3      0.1000E+03"),
            "{}",
            lines[3]
        );
        assert!(summary_table(&sample(), 8).contains("  0.10000000E+03"));
    }
}

/// A quantity that steers or reports a run (a field summary's, the timestep) became NaN or
/// infinite: the run stops naming it rather than printing NaN to the end.
///
/// ```
/// use ops_app_common::summary::{NotFinite, Summary};
/// let mut s = Summary { step: 7, time: 0.5, volume: 8.0, mass: 4.0, density: 0.5,
///                       pressure: 1.0, internal_energy: 3.0, kinetic_energy: 1.0,
///                       total_energy: 4.0 };
/// assert!(NotFinite::check_summary(&s).is_ok());
/// s.pressure = f64::INFINITY;
/// let e = NotFinite::check_summary(&s).unwrap_err();
/// assert!(e.to_string().starts_with("step 7: the field summary's pressure is inf"));
/// assert!(NotFinite::check_timestep(3, f64::NAN).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "step {step}: {what} is {value}: the solution has broken down (check the deck's states and \
     timestep keywords)"
)]
pub struct NotFinite {
    /// Step number.
    pub step: u64,
    /// What became non-finite.
    pub what: String,
    /// Its value.
    pub value: f64,
}

impl NotFinite {
    /// An error naming the first quantity of `s` that is NaN or infinite.
    pub fn check_summary(s: &Summary) -> Result<(), NotFinite> {
        match s.first_non_finite() {
            Some((what, value)) => Err(NotFinite {
                step: s.step,
                what: format!("the field summary's {what}"),
                value,
            }),
            None => Ok(()),
        }
    }

    /// An error when step `step`'s timestep `dt` is NaN or infinite.
    pub fn check_timestep(step: u64, dt: f64) -> Result<(), NotFinite> {
        if dt.is_finite() {
            return Ok(());
        }
        Err(NotFinite {
            step,
            what: "the timestep".into(),
            value: dt,
        })
    }
}
