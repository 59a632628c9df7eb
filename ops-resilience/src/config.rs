//! The `--ops-checkpoint-*` flags (each also an `OPS_*` environment variable) and the
//! configuration they become.

use std::path::PathBuf;
use std::time::Duration;

use crate::store::StoreMode;

/// `--ops-checkpoint-interval`: a fixed time between checkpoints, or `auto` (Young's interval
/// from `--ops-mtbf` and the measured checkpoint cost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interval {
    /// At least this long between the end of one checkpoint and the start of the next.
    Every(Duration),
    /// `sqrt(2 · C · MTBF)`, with `C` the stall of the last checkpoint.
    Auto,
}

/// Parses a duration such as `30s`, `5m`, `1h30m`, `250ms`, `2d` or a bare number of seconds
/// (`45`, `0.5`). Units: `ms`, `s`, `m`/`min`, `h`, `d`.
///
/// ```
/// use std::time::Duration;
/// use ops_resilience::parse_duration;
/// assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
/// assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
/// assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
/// assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
/// assert!(parse_duration("soon").is_err());
/// ```
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty duration".into());
    }
    let mut total = 0f64;
    let mut rest = t;
    let mut parts = 0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return Err(format!("`{t}`: expected a number before `{rest}`"));
        }
        let value: f64 = rest[..num_len]
            .parse()
            .map_err(|_| format!("`{t}`: `{}` is not a number", &rest[..num_len]))?;
        rest = rest[num_len..].trim_start();
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        let scale = match unit {
            "" if parts == 0 && unit_len == rest.len() => 1.0,
            "ms" => 1e-3,
            "s" | "sec" | "secs" => 1.0,
            "m" | "min" | "mins" => 60.0,
            "h" | "hr" | "hrs" => 3600.0,
            "d" | "day" | "days" => 86400.0,
            _ => {
                return Err(format!(
                    "`{t}`: unknown unit `{unit}` (use ms, s, m, h or d, e.g. 30s, 5m, 6h)"
                ))
            }
        };
        total += value * scale;
        parts += 1;
        rest = rest[unit_len..].trim_start();
    }
    if !total.is_finite() || total > 1e12 {
        return Err(format!("`{t}`: too long"));
    }
    Ok(Duration::from_secs_f64(total))
}

fn parse_interval(s: &str) -> Result<Interval, String> {
    if s.trim().eq_ignore_ascii_case("auto") {
        return Ok(Interval::Auto);
    }
    let d = parse_duration(s)?;
    if d.is_zero() {
        return Err(format!("`{s}`: the interval must be longer than zero"));
    }
    Ok(Interval::Every(d))
}

fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() {
        return Err(format!("`{s}`: must be longer than zero"));
    }
    Ok(d)
}

fn parse_count(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err(format!("`{s}`: must be at least 1")),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("`{s}`: not a positive whole number ({e})")),
    }
}

fn parse_keep(s: &str) -> Result<usize, String> {
    parse_count(s).map(|n| n as usize)
}

fn parse_level(s: &str) -> Result<u8, String> {
    match s.trim().parse::<u8>() {
        Ok(n) if n <= 9 => Ok(n),
        _ => Err(format!("`{s}`: a diagnostics level is 0 to 9")),
    }
}

/// The resilience flags, to flatten into an application's clap parser next to
/// `ops_core::OpsArgs` (the `ops` facade crate does both). Each flag is also read from the
/// `OPS_*` environment variable named in its help.
///
/// ```
/// use clap::Parser;
/// use ops_resilience::{Interval, ResilienceArgs};
/// #[derive(Parser, Debug)]
/// struct Cli {
///     #[command(flatten)]
///     res: ResilienceArgs,
/// }
/// let cli = Cli::parse_from(["app", "--ops-checkpoint-dir", "ck", "--ops-checkpoint-interval", "5m"]);
/// let cfg = cli.res.to_config().unwrap();
/// assert!(cfg.enabled());
/// assert_eq!(cfg.interval, Some(Interval::Every(std::time::Duration::from_secs(300))));
/// let err = Cli::try_parse_from(["app", "--ops-checkpoint-interval", "soon"]).unwrap_err();
/// assert!(err.to_string().contains("--ops-checkpoint-interval"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
// The program's own description, not this rustdoc, is what `--help` shows first.
#[command(about = None, long_about = None)]
pub struct ResilienceArgs {
    /// Directory for checkpoint files; turns automatic checkpointing on.
    #[arg(
        long = "ops-checkpoint-dir",
        env = "OPS_CHECKPOINT_DIR",
        value_name = "DIR"
    )]
    pub checkpoint_dir: Option<PathBuf>,
    /// Time between checkpoints (`30s`, `5m`, `1h`), or `auto` (Young's interval from
    /// --ops-mtbf and the measured checkpoint cost).
    #[arg(long = "ops-checkpoint-interval", env = "OPS_CHECKPOINT_INTERVAL", value_name = "TIME|auto", value_parser = parse_interval,
        help = "Time between checkpoints (30s, 5m, 1h), or auto (Young's interval from --ops-mtbf and the measured checkpoint cost)")]
    pub checkpoint_interval: Option<Interval>,
    /// Checkpoint at every N-th pass of the outer iteration: occurrence of the checkpoint
    /// location, or, while the learner suspects it is inside a larger time step, of that step
    /// (or every N-th iteration of a resilient region). Default when neither this nor an
    /// interval is given: 10.
    #[arg(long = "ops-checkpoint-every", env = "OPS_CHECKPOINT_EVERY", value_name = "N", value_parser = parse_count)]
    pub checkpoint_every: Option<u64>,
    /// How checkpoints are written: blocking (HDF5 file before going on), thread (a background
    /// thread writes) or memory (kept in RAM, written at exit and on SIGINT/SIGTERM).
    #[arg(
        long = "ops-checkpoint-mode",
        env = "OPS_CHECKPOINT_MODE",
        value_enum,
        default_value = "blocking"
    )]
    pub checkpoint_mode: StoreMode,
    /// Checkpoints kept on disk (the newest K).
    #[arg(long = "ops-checkpoint-keep", env = "OPS_CHECKPOINT_KEEP", value_name = "K", default_value = "2", value_parser = parse_keep)]
    pub checkpoint_keep: usize,
    /// Restart from the newest complete checkpoint in the checkpoint directory (start from the
    /// beginning if there is none).
    #[arg(long = "ops-restart", env = "OPS_RESTART")]
    pub restart: bool,
    /// Mean time between failures (`6h`), for --ops-checkpoint-interval auto.
    #[arg(long = "ops-mtbf", env = "OPS_MTBF", value_name = "TIME", value_parser = parse_positive_duration,
        help = "Mean time between failures (6h), for --ops-checkpoint-interval auto")]
    pub mtbf: Option<Duration>,
    /// Name used in checkpoint file names (default: the executable's name).
    #[arg(
        long = "ops-checkpoint-app",
        env = "OPS_CHECKPOINT_APP",
        value_name = "NAME"
    )]
    pub checkpoint_app: Option<String>,
    /// Resilience diagnostics on stderr: 1 a line per checkpoint and restore, 2 adds the chosen
    /// location and saved datasets, 3 adds the candidate table and every dataset's decision.
    #[arg(long = "ops-diags", env = "OPS_DIAGS", value_name = "N", default_value = "0", value_parser = parse_level)]
    pub diags: u8,
    /// Write the diagnostics as JSON to this file at the end of the run.
    #[arg(long = "ops-diags-json", env = "OPS_DIAGS_JSON", value_name = "FILE")]
    pub diags_json: Option<PathBuf>,
    /// Draw the checkpoint candidates (what a checkpoint would save at each loop boundary of
    /// the time step, the chosen one marked) as a PNG bar chart to this file at the end.
    #[arg(long = "ops-diags-png", env = "OPS_DIAGS_PNG", value_name = "FILE")]
    pub diags_png: Option<PathBuf>,
}

impl Default for ResilienceArgs {
    /// The flags' defaults: nothing enabled, blocking mode, keep 2, no diagnostics.
    fn default() -> Self {
        ResilienceArgs {
            checkpoint_dir: None,
            checkpoint_interval: None,
            checkpoint_every: None,
            checkpoint_mode: StoreMode::Blocking,
            checkpoint_keep: 2,
            restart: false,
            mtbf: None,
            checkpoint_app: None,
            diags: 0,
            diags_json: None,
            diags_png: None,
        }
    }
}

impl ResilienceArgs {
    /// Checks the combination and turns the flags into a [`ResilienceConfig`]. Errors name the
    /// flag and the value.
    pub fn to_config(&self) -> Result<ResilienceConfig, String> {
        self.to_config_with(InjectFailure::from_env()?)
    }

    /// [`ResilienceArgs::to_config`] with an explicit failure injection instead of reading
    /// `OPS_INJECT_FAILURE`.
    pub fn to_config_with(&self, inject: InjectFailure) -> Result<ResilienceConfig, String> {
        if self.checkpoint_interval == Some(Interval::Auto) && self.mtbf.is_none() {
            return Err(
                "--ops-checkpoint-interval auto needs --ops-mtbf (e.g. --ops-mtbf 6h)".into(),
            );
        }
        if let Some(app) = &self.checkpoint_app {
            if app.is_empty() || app.contains(['/', '\\']) {
                return Err(format!(
                    "--ops-checkpoint-app `{app}`: a file name part, without slashes"
                ));
            }
        }
        let checkpointing = self.checkpoint_dir.is_some()
            || self.restart
            || self.checkpoint_interval.is_some()
            || self.checkpoint_every.is_some();
        Ok(ResilienceConfig {
            dir: if checkpointing {
                Some(
                    self.checkpoint_dir
                        .clone()
                        .unwrap_or_else(|| PathBuf::from(DEFAULT_DIR)),
                )
            } else {
                None
            },
            interval: self.checkpoint_interval,
            every: self.checkpoint_every,
            mode: self.checkpoint_mode,
            keep: self.checkpoint_keep,
            restart: self.restart,
            mtbf: self.mtbf,
            app: self.checkpoint_app.clone(),
            diags: self.diags,
            diags_json: self.diags_json.clone(),
            diags_png: self.diags_png.clone(),
            inject,
        })
    }
}

/// The checkpoint directory used when checkpointing is turned on by a flag other than
/// `--ops-checkpoint-dir`.
pub const DEFAULT_DIR: &str = "ops-checkpoints";

/// The default trigger when neither an interval nor `--ops-checkpoint-every` is given: every
/// 10th occurrence of the chosen location (deterministic, so restarts reproduce the schedule).
pub const DEFAULT_EVERY: u64 = 10;

/// The resilience layer's configuration. `Default` is what no flags give: nothing enabled.
#[derive(Clone, Debug, PartialEq)]
pub struct ResilienceConfig {
    /// Where checkpoints go; `None`: no checkpoints (tracking and diagnostics only).
    pub dir: Option<PathBuf>,
    /// Time-based trigger.
    pub interval: Option<Interval>,
    /// Occurrence-based trigger.
    pub every: Option<u64>,
    /// Store kind.
    pub mode: StoreMode,
    /// Checkpoints kept (at least 1).
    pub keep: usize,
    /// Restart from the newest checkpoint.
    pub restart: bool,
    /// Mean time between failures (for [`Interval::Auto`]).
    pub mtbf: Option<Duration>,
    /// Application name for files (`None`: the executable's name).
    pub app: Option<String>,
    /// Diagnostics level.
    pub diags: u8,
    /// JSON diagnostics file.
    pub diags_json: Option<PathBuf>,
    /// The candidates' chart (drawn by the renderer [`Resilience::set_report_picture`](
    /// crate::Resilience::set_report_picture) installs; the `ops` crate installs one).
    pub diags_png: Option<PathBuf>,
    /// Test hook: `OPS_INJECT_FAILURE=loop:N`.
    pub inject: InjectFailure,
}

impl Default for ResilienceConfig {
    fn default() -> Self {
        ResilienceArgs::default()
            .to_config_with(InjectFailure::default())
            .expect("defaults are valid")
    }
}

impl ResilienceConfig {
    /// True when checkpoints are written or a restart was asked for: the observer must be
    /// installed. (Diagnostics alone also install it, in tracking-only mode.)
    pub fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// True when the observer is needed at all (checkpointing, or diagnostics).
    pub fn wanted(&self) -> bool {
        self.enabled() || self.diags > 0 || self.diags_json.is_some() || self.diags_png.is_some()
    }

    /// The effective every-N (the default when no trigger is given).
    pub fn effective_every(&self) -> Option<u64> {
        match (self.every, self.interval) {
            (Some(n), _) => Some(n),
            (None, None) => Some(DEFAULT_EVERY),
            (None, Some(_)) => None,
        }
    }

    /// The application name: as configured, or the executable's file stem.
    pub fn app_name(&self) -> String {
        if let Some(a) = &self.app {
            return a.clone();
        }
        std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "app".into())
    }
}

/// `OPS_INJECT_FAILURE=loop:N`: kill the process with SIGKILL when loop index N is about to
/// run (computing normally, not replaying); `sigterm:N`: send the process SIGTERM there, as a
/// batch scheduler ending the job would, and compute nothing more (the signal's handler, if
/// any, ends the process). Other items (`write:N`, the store's) are ignored here; several items
/// may be separated by commas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InjectFailure {
    /// The loop index to die at.
    pub loop_index: Option<u64>,
    /// The loop index to receive SIGTERM at.
    pub sigterm_at: Option<u64>,
}

/// The variable read for injected failures.
pub const INJECT_VAR: &str = "OPS_INJECT_FAILURE";

impl InjectFailure {
    /// Parses a value of `OPS_INJECT_FAILURE`.
    ///
    /// ```
    /// use ops_resilience::InjectFailure;
    /// assert_eq!(InjectFailure::parse("loop:42").unwrap().loop_index, Some(42));
    /// assert_eq!(InjectFailure::parse("sigterm:7").unwrap().sigterm_at, Some(7));
    /// assert_eq!(InjectFailure::parse("write:3").unwrap().loop_index, None);
    /// assert!(InjectFailure::parse("loop:x").is_err());
    /// ```
    pub fn parse(v: &str) -> Result<InjectFailure, String> {
        let mut out = InjectFailure::default();
        let index = |n: &str, form: &str| {
            n.trim()
                .parse::<u64>()
                .map_err(|_| format!("{INJECT_VAR}=`{v}`: `{n}` is not a loop index ({form}:N)"))
        };
        for item in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if let Some(n) = item.strip_prefix("loop:") {
                out.loop_index = Some(index(n, "loop")?);
            } else if let Some(n) = item.strip_prefix("sigterm:") {
                out.sigterm_at = Some(index(n, "sigterm")?);
            } else if item.starts_with("write:") {
                // The store's.
            } else {
                return Err(format!(
                    "{INJECT_VAR}=`{v}`: expected loop:N, sigterm:N or write:N, got `{item}`"
                ));
            }
        }
        Ok(out)
    }

    /// Reads `OPS_INJECT_FAILURE` (absent: nothing injected).
    pub fn from_env() -> Result<InjectFailure, String> {
        match std::env::var(INJECT_VAR) {
            Ok(v) => InjectFailure::parse(&v),
            Err(_) => Ok(InjectFailure::default()),
        }
    }
}

/// Kills this process with SIGKILL (no destructors, no flushing): a real crash, for tests.
pub fn kill_self() -> ! {
    // SAFETY: plain libc calls with valid arguments.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    // SIGKILL cannot be caught; should it not have arrived yet, do not continue.
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Sends this process SIGTERM and computes nothing more: whoever handles the signal (the memory
/// store writes its checkpoint and exits) ends the process; without a handler the signal's
/// default action does.
pub fn sigterm_self() -> ! {
    // SAFETY: plain libc calls with valid arguments.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGTERM);
    }
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("6h"), Ok(Duration::from_secs(6 * 3600)));
        assert_eq!(parse_duration(" 2d "), Ok(Duration::from_secs(2 * 86400)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("0.25s"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("").is_err());
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("m").is_err());
        assert!(parse_interval("0s").is_err());
        assert_eq!(parse_interval("AUTO"), Ok(Interval::Auto));
    }

    #[test]
    fn auto_needs_mtbf() {
        let a = ResilienceArgs {
            checkpoint_interval: Some(Interval::Auto),
            ..Default::default()
        };
        assert!(a.to_config().unwrap_err().contains("--ops-mtbf"));
        let b = ResilienceArgs {
            mtbf: Some(Duration::from_secs(3600)),
            ..a
        };
        let c = b.to_config().unwrap();
        assert!(c.enabled());
        assert_eq!(c.dir, Some(PathBuf::from(DEFAULT_DIR)));
        assert_eq!(c.effective_every(), None);
    }

    #[test]
    fn nothing_set_means_no_observer() {
        let c = ResilienceArgs::default().to_config().unwrap();
        assert!(!c.enabled() && !c.wanted());
        assert_eq!(c.effective_every(), Some(DEFAULT_EVERY));
    }
}
