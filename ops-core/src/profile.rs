//! Per-loop profiling: calls, time and an estimate of the bytes moved.

/// Accumulated statistics of every `par_loop` call with one name.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopProfile {
    /// The loop name given to `par_loop`.
    pub name: String,
    /// Number of calls.
    pub calls: u64,
    /// Total wall time in seconds (validation and execution).
    pub seconds: f64,
    /// Estimated bytes moved: per dataset argument, points × element size × components, twice
    /// for `ReadWrite` and `Inc`.
    pub bytes: u64,
}

impl LoopProfile {
    /// Achieved bandwidth estimate in GB/s (0 when no time was measured).
    pub fn gb_per_s(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 / self.seconds / 1e9
        } else {
            0.0
        }
    }
}

/// Under the table of a backend that runs ahead of the device ([`crate::Backend::runs_ahead`]):
/// what its times are.
pub const RUNS_AHEAD_NOTE: &str =
    "Times are the host's: a loop is queued for the device and the host goes on, so most\n\
     loops show their recording (and a GB/s that is not the device's), and the device's work\n\
     shows in the loops whose results the host waits for (reductions, fetches).";

/// Formats profiles as a table sorted by time, with a total line, and [`RUNS_AHEAD_NOTE`]
/// under it when `runs_ahead`.
pub(crate) fn table(profiles: &[LoopProfile], runs_ahead: bool) -> String {
    use std::fmt::Write;
    let mut rows: Vec<&LoopProfile> = profiles.iter().collect();
    rows.sort_by(|a, b| b.seconds.total_cmp(&a.seconds).then(a.name.cmp(&b.name)));
    let total: f64 = profiles.iter().map(|p| p.seconds).sum();
    let width = rows.iter().map(|p| p.name.len()).max().unwrap_or(0).max(5);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<width$} {:>10} {:>12} {:>7} {:>9}",
        "loop", "calls", "time (s)", "share", "GB/s"
    );
    let share = |t: f64| if total > 0.0 { 100.0 * t / total } else { 0.0 };
    for p in &rows {
        let _ = writeln!(
            s,
            "{:<width$} {:>10} {:>12.6} {:>6.1}% {:>9.2}",
            p.name,
            p.calls,
            p.seconds,
            share(p.seconds),
            p.gb_per_s()
        );
    }
    let all = LoopProfile {
        name: "total".into(),
        calls: profiles.iter().map(|p| p.calls).sum(),
        seconds: total,
        bytes: profiles.iter().map(|p| p.bytes).sum(),
    };
    let _ = writeln!(
        s,
        "{:<width$} {:>10} {:>12.6} {:>6.1}% {:>9.2}",
        all.name,
        all.calls,
        all.seconds,
        if total > 0.0 { 100.0 } else { 0.0 },
        all.gb_per_s()
    );
    if runs_ahead {
        let _ = writeln!(s, "{RUNS_AHEAD_NOTE}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backend_running_ahead_of_its_device_says_what_the_times_are() {
        let p = [LoopProfile {
            name: "sweep".into(),
            calls: 2,
            seconds: 0.5,
            bytes: 1_000_000_000,
        }];
        assert!(!table(&p, false).contains(RUNS_AHEAD_NOTE));
        let t = table(&p, true);
        assert!(t.ends_with(&format!("{RUNS_AHEAD_NOTE}\n")), "{t}");
        assert!(t.contains("sweep"));
    }
}
