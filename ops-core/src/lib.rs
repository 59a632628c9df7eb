//! placeholder, replaced by the runtime helper
pub mod kernel;
pub use ops_macros::kernel;
