//! The wgpu backend's own failures, typed; the runtime sees them as
//! [`OpsError::Backend`](ops_core::OpsError::Backend) with the same text.

use std::time::Duration;

/// A kernel the GPU cannot run, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelProblem {
    /// The kernel's name.
    pub kernel: &'static str,
    /// Why it cannot run: no WGSL form (with the macro's reason), a shader naga rejects, more
    /// storage buffers than the adapter binds.
    pub why: String,
}

/// What went wrong on the wgpu backend.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WgpuError {
    /// Kernels of the program that cannot run on this adapter, found when the backend was chosen
    /// (all of them, so one run tells the whole story).
    #[error("{}", unsupported(.adapter, .kernels))]
    UnsupportedKernels {
        /// The adapter, as `AdapterSummary` displays it.
        adapter: String,
        /// Every kernel that cannot run, sorted by name.
        kernels: Vec<KernelProblem>,
    },

    /// A dataset larger than any buffer the adapter can create.
    #[error(
        "{bytes} bytes needed; adapter {adapter} allows buffers of at most {max} bytes \
         (run on a larger device or with --ops-backend rayon)"
    )]
    DatasetTooLarge {
        /// Bytes the dataset needs (halo included).
        bytes: u64,
        /// The adapter's `max_buffer_size`.
        max: u64,
        /// The adapter.
        adapter: String,
    },

    /// The device did not finish the work the host waits for within the timeout.
    #[error(
        "the device did not finish {during} within {} s; it may be hung or overloaded \
         ({env}=<seconds> sets the limit)",
        .timeout.as_secs_f64(),
        env = super::device::TIMEOUT_ENV
    )]
    Timeout {
        /// What the host was waiting for.
        during: String,
        /// The limit that passed.
        timeout: Duration,
    },
}

fn unsupported(adapter: &str, kernels: &[KernelProblem]) -> String {
    let mut s = format!(
        "{} kernel(s) of this program cannot run on the GPU (adapter {adapter}):",
        kernels.len()
    );
    for k in kernels {
        s.push_str(&format!("\n  kernel `{}`: {}", k.kernel, k.why));
    }
    s.push_str("\nRun the program with --ops-backend rayon (or seq)");
    s
}

impl From<WgpuError> for ops_core::OpsError {
    fn from(e: WgpuError) -> Self {
        super::backend_err(e.to_string())
    }
}
