//! Automatic checkpointing and restart by replay for `ops-core` applications.
//!
//! (Being built; see `store` for the storage interface.)

pub mod store;
