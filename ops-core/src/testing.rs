//! Deliberate breakage for mutation tests: a test proves it can fail by running the code with a
//! known fault switched on and watching its judgement reject the result.
//!
//! The faults are chosen by the `OPS_TEST_MUTATION` environment variable (a comma-separated
//! list), read once per process. They exist only to test the tests; a run with one prints a
//! warning, and nothing else in the project sets the variable.
//!
//! | name | fault |
//! |---|---|
//! | `thread-partition` | the host executor cuts ranges into chunks by thread count, so reductions depend on it |
//! | `skip-restore` | `--ops-restart` ignores every checkpoint and starts from the beginning |

use std::sync::OnceLock;

/// The environment variable naming the faults to switch on.
pub const MUTATION_VAR: &str = "OPS_TEST_MUTATION";

/// True when fault `name` is switched on in this process (see the module docs).
pub fn mutation(name: &str) -> bool {
    static ON: OnceLock<Vec<String>> = OnceLock::new();
    ON.get_or_init(|| {
        let list: Vec<String> = std::env::var(MUTATION_VAR)
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if !list.is_empty() {
            tracing::warn!(
                "{MUTATION_VAR}={}: this process is broken on purpose",
                list.join(",")
            );
            eprintln!(
                "ops: {MUTATION_VAR}={}: this process is broken on purpose (a mutation test)",
                list.join(",")
            );
        }
        list
    })
    .iter()
    .any(|m| m == name)
}
