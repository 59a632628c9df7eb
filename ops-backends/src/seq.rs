//! The sequential reference backend.

use ops_core::exec::Sequential;

use crate::host::HostBackend;

/// The sequential reference backend: every loop runs on the calling thread, chunk by chunk in
/// the same partition the parallel backends use, so reductions agree bitwise with them.
pub type SeqBackend = HostBackend<Sequential>;

impl SeqBackend {
    /// A new sequential backend.
    pub fn new() -> Self {
        HostBackend::with_runner("seq", Sequential)
    }
}

impl Default for SeqBackend {
    fn default() -> Self {
        Self::new()
    }
}
