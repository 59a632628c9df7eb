//! Failure injection for tests: `OPS_INJECT_FAILURE=write:N` kills the process with SIGKILL in
//! the middle of writing checkpoint sequence N (the temporary file exists and holds the first
//! region; no rename, no manifest). The form `loop:N` belongs to the runtime and is ignored here.

use std::sync::OnceLock;

/// The environment variable that requests a failure.
pub const INJECT_FAILURE_VAR: &str = "OPS_INJECT_FAILURE";

/// The checkpoint sequence whose write `OPS_INJECT_FAILURE=write:N` asks to kill, read once per
/// process. `None` when the variable is unset, empty or of the `loop:` form; an error naming the
/// variable and its value when it is malformed.
pub fn injected_write_failure() -> Result<Option<u64>, String> {
    static PARSED: OnceLock<Result<Option<u64>, String>> = OnceLock::new();
    PARSED
        .get_or_init(|| parse(std::env::var_os(INJECT_FAILURE_VAR).as_deref()))
        .clone()
}

fn parse(value: Option<&std::ffi::OsStr>) -> Result<Option<u64>, String> {
    let Some(value) = value else { return Ok(None) };
    let bad = || {
        format!(
            "{INJECT_FAILURE_VAR}={value:?}: expected write:N, loop:N or sigterm:N (N a non-negative integer)"
        )
    };
    let text = value.to_str().ok_or_else(bad)?.trim();
    if text.is_empty() || text.starts_with("loop:") || text.starts_with("sigterm:") {
        return Ok(None);
    }
    let n = text.strip_prefix("write:").ok_or_else(bad)?;
    n.parse().map(Some).map_err(|_| bad())
}

/// Called by the writer at the injection point of checkpoint `sequence`: if that is the one to
/// fail, flushes what HDF5 holds so the temporary file is really partial, then SIGKILLs the
/// process (no destructors, no atexit handlers: as a node failure would).
pub(crate) fn maybe_die(sequence: u64, file: &hdf5::File) {
    if injected_write_failure() == Ok(Some(sequence)) {
        let _ = file.flush();
        eprintln!(
            "ops-resilience: {INJECT_FAILURE_VAR}=write:{sequence}: killing the process mid-write"
        );
        // SAFETY: kill(2) on our own pid with a valid signal number has no memory effects.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
        // SIGKILL is delivered before kill returns for the calling process; never go on.
        loop {
            std::thread::park();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use std::ffi::OsStr;

    #[test]
    fn parses_the_forms() {
        let p = |s: &str| parse(Some(OsStr::new(s)));
        assert_eq!(parse(None), Ok(None));
        assert_eq!(p(""), Ok(None));
        assert_eq!(p("write:7"), Ok(Some(7)));
        assert_eq!(p(" write:0 "), Ok(Some(0)));
        assert_eq!(p("loop:12"), Ok(None));
        let err = p("write:x").unwrap_err();
        assert!(
            err.contains("OPS_INJECT_FAILURE") && err.contains("write:x"),
            "{err}"
        );
        assert!(p("crash").is_err());
        assert!(p("write:-1").is_err());
    }
}
