//! # ops-resilience: automatic checkpointing and restart by replay
//!
//! The runtime of `ops-core` owns all data: every change to a dataset is a `par_loop` it
//! validates, and values reach the program only through its calls (reduction results,
//! fetches). This crate listens on the runtime's observer hook ([`ops_core::LoopObserver`]) and
//! uses that to checkpoint an application without any checkpoint code in it:
//!
//! - **Tracking** ([`track`]): every loop gets an index and a location (`name@file:line:col`);
//!   per dataset the tracker keeps the boxes loops wrote, split into points a replay
//!   reproduces (*pure*: computed at start-up from other pure data, e.g. mesh geometry) and
//!   points it does not (*impure*: everything recurring). Every value handed to the program is
//!   logged.
//! - **Checkpoint regions** ([`region`]): OPS's Algorithm 1 made exact. A checkpoint opens
//!   before a loop and spans the following loops; each impure box is saved the first time a
//!   loop is about to overwrite it after having read it, dropped when it is overwritten first,
//!   and saved at close if still undecided. Halo strips are decided separately from the
//!   interior ([`boxes`]).
//! - **Location** ([`location`]): a learning phase measures, by dry runs of the region
//!   algorithm, what a checkpoint would cost at each recurring loop and picks the cheapest
//!   that recurs often enough.
//! - **Restart by replay** ([`engine`]): the program runs from the start; loops are skipped
//!   (except the few that recompute pure data still needed), logged values are returned in
//!   order, and at the checkpoint's loop the saved boxes are uploaded and the run continues.
//! - **Stores** ([`store`]): HDF5 files (blocking), a writer thread, or memory.
//! - **Diagnostics** ([`diags`]): candidates, decisions, timings; text and JSON.
//!
//! Applications normally get all of it through the `ops` facade crate
//! (`ops::ops_from_args`), which installs [`Resilience`] when a checkpoint flag is given
//! ([`ResilienceArgs`]). The [`ResilienceExt`] methods on `Ops` add hints and Kokkos-style
//! views (transient, read-only, aliases, scoped resilient regions). See `docs/resilience.md`.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop)]

pub mod boxes;
pub mod config;
pub mod diags;
pub mod engine;
pub mod ext;
pub mod location;
pub mod meta;
pub mod pool;
pub mod region;
pub mod store;
pub mod track;

pub use config::{InjectFailure, Interval, ResilienceArgs, ResilienceConfig};
pub use engine::{Enter, Resilience};
pub use ext::{with_resilience, ResilienceExt};

use ops_core::{Ops, OpsError};

/// Installs the resilience observer on `ops` as `cfg` asks: nothing when no checkpoint or
/// diagnostics flag is set (returns `false`); otherwise opens the store, and with
/// `--ops-restart` looks for the newest complete checkpoint and prepares the replay (or says
/// there is none and starts from the beginning).
pub fn install(ops: &mut Ops, cfg: &ResilienceConfig) -> Result<bool, OpsError> {
    if !cfg.wanted() {
        return Ok(false);
    }
    let err = |e: String| OpsError::InvalidConfig(e);
    let app = cfg.app_name();
    let store = match &cfg.dir {
        Some(dir) => Some(
            store::open_store(cfg.mode, dir, &app, cfg.keep)
                .map_err(|e| err(format!("--ops-checkpoint-dir {}: {e}", dir.display())))?,
        ),
        None => None,
    };
    let mut cfg = cfg.clone();
    cfg.app = Some(app);
    let mut r = Resilience::new(cfg.clone(), store);
    if cfg.restart {
        let found = r
            .store()
            .expect("restart implies a directory")
            .find_latest()
            .map_err(|e| err(format!("--ops-restart: {e}")))?;
        r.restart_with(found)
            .map_err(|e| err(format!("--ops-restart: {e}")))?;
    }
    ops.set_observer(Some(Box::new(r)));
    Ok(true)
}

/// `use ops_resilience::prelude::*;`: the extension methods and the flags.
pub mod prelude {
    pub use crate::config::ResilienceArgs;
    pub use crate::ext::ResilienceExt;
}
