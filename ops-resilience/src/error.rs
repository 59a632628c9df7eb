//! [`ResilienceError`]: why the resilience layer refused a call, stopped a restart or could not
//! checkpoint. The runtime reports it as `OpsError::Observer`, whose source it stays, so a
//! caller can tell an I/O failure, a corrupt file and a diverged replay apart by type:
//!
//! ```
//! use ops_resilience::ResilienceError;
//! let e: ops_core::OpsError = ResilienceError::Diverged("loop 7 is `a`, the log says `b`".into()).into();
//! let ops_core::OpsError::Observer(inner) = &e else { unreachable!() };
//! assert!(matches!(inner.downcast_ref::<ResilienceError>(), Some(ResilienceError::Diverged(_))));
//! assert!(e.to_string().contains("restart diverged"));
//! ```

use ops_core::{ObserverError, OpsError};

use crate::store::StoreError;

/// What went wrong in the resilience layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResilienceError {
    /// Reading or writing checkpoint files failed (I/O, a full disk, a corrupt file).
    #[error("{context}: {source}")]
    Store {
        /// What was being done.
        context: String,
        /// The store's error.
        #[source]
        source: StoreError,
    },
    /// The runtime refused a snapshot or a restore of data.
    #[error("{context}: {source}")]
    Runtime {
        /// What was being done.
        context: String,
        /// The runtime's error (boxed: it is large, and rare).
        #[source]
        source: Box<OpsError>,
    },
    /// A restarted run does not follow the run it continues.
    #[error("restart diverged: {0}")]
    Diverged(String),
    /// A checkpoint does not fit this program (its datasets, reductions or locations differ).
    #[error("{0}")]
    Mismatch(String),
    /// The tracker's part of a checkpoint cannot be read.
    #[error("checkpoint metadata: {0}")]
    Metadata(String),
    /// The processes of a distributed run could not agree.
    #[error("{0}")]
    Collective(String),
    /// The program broke a promise it made to the tracker (it wrote a dataset it marked
    /// read-only).
    #[error("{0}")]
    Usage(String),
    /// A flag's value, the checkpoint directory or the way the observer was installed is
    /// unusable.
    #[error("{0}")]
    Config(String),
    /// The error happened on one process of a distributed run.
    #[error("rank {rank}: {source}")]
    OnRank {
        /// The process.
        rank: usize,
        /// What happened there.
        #[source]
        source: Box<ResilienceError>,
    },
}

impl ResilienceError {
    /// A store failure while doing `context`.
    pub fn store(context: impl Into<String>, source: StoreError) -> Self {
        ResilienceError::Store {
            context: context.into(),
            source,
        }
    }

    /// A runtime refusal while doing `context`.
    pub fn runtime(context: impl Into<String>, source: OpsError) -> Self {
        ResilienceError::Runtime {
            context: context.into(),
            source: Box::new(source),
        }
    }

    /// The same error, said to have happened on `rank` when the run has more than one process.
    pub fn on_rank(self, rank: usize, ranks: usize) -> Self {
        if ranks > 1 {
            ResilienceError::OnRank {
                rank,
                source: Box::new(self),
            }
        } else {
            self
        }
    }
}

impl From<ResilienceError> for OpsError {
    fn from(e: ResilienceError) -> Self {
        OpsError::Observer(ObserverError::new(e))
    }
}
