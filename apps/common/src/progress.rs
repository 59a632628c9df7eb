//! How a run reports its progress: a bar with an ETA on a terminal, the original's plain
//! per-step lines otherwise (pipes, CI, files).

use std::io::{IsTerminal, Write};

/// The progress display of one run.
pub enum Progress {
    /// An `indicatif` bar; other output is printed above it.
    Bar(indicatif::ProgressBar),
    /// Plain lines, written to the run's output.
    Plain,
}

impl Progress {
    /// A bar when `show_bar` and stdout is a terminal, plain lines otherwise.
    pub fn new(show_bar: bool) -> Progress {
        if !show_bar || !std::io::stdout().is_terminal() {
            return Progress::Plain;
        }
        let bar = indicatif::ProgressBar::new(1000);
        match indicatif::ProgressStyle::with_template(
            "{bar:40.cyan/blue} {percent:>3}% {msg} [{elapsed_precise} < {eta_precise}]",
        ) {
            Ok(style) => bar.set_style(style),
            Err(e) => tracing::debug!("default progress style: {e}"),
        }
        Progress::Bar(bar)
    }

    /// Prints `text` (and a newline): above the bar, or to `out` when plain.
    pub fn println(&self, out: &mut dyn Write, text: &str) -> std::io::Result<()> {
        match self {
            Progress::Bar(b) => b.suspend(|| {
                let mut o = std::io::stdout().lock();
                o.write_all(text.as_bytes())?;
                o.write_all(b"\n")?;
                o.flush()
            }),
            Progress::Plain => writeln!(out, "{text}"),
        }
    }

    /// After a step: the bar moves to `fraction` (0..=1) of the run and shows `message`; plain
    /// output prints `line` instead.
    pub fn step(
        &self,
        out: &mut dyn Write,
        fraction: f64,
        message: impl FnOnce() -> String,
        line: &str,
    ) -> std::io::Result<()> {
        match self {
            Progress::Bar(b) => {
                b.set_position((fraction.clamp(0.0, 1.0) * 1000.0) as u64);
                b.set_message(message());
                Ok(())
            }
            Progress::Plain => writeln!(out, "{line}"),
        }
    }

    /// Leaves the bar where it is (the run stopped with an error).
    pub fn abandon(&self) {
        if let Progress::Bar(b) = self {
            b.abandon();
        }
    }

    /// Removes the bar (the run finished).
    pub fn finish(&self) {
        if let Progress::Bar(b) = self {
            b.finish_and_clear();
        }
    }
}

/// How far a run that stops at `end_step` or `end_time`, whichever comes first, has come.
///
/// ```
/// use ops_app_common::progress::fraction_done;
///
/// assert_eq!(fraction_done(5, 10, 0.1, 100.0), 0.5);
/// assert_eq!(fraction_done(5, 640_000, 2.5, 10.0), 0.25);
/// ```
pub fn fraction_done(step: u64, end_step: u64, time: f64, end_time: f64) -> f64 {
    let by_step = if end_step > 0 {
        step as f64 / end_step as f64
    } else {
        1.0
    };
    let by_time = if end_time > 0.0 { time / end_time } else { 1.0 };
    by_step.max(by_time).clamp(0.0, 1.0)
}
