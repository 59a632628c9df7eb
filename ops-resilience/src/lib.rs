//! # ops-resilience: automatic checkpointing and restart by replay
//!
//! The runtime of `ops-core` owns all data: every change to a dataset is a `par_loop` it
//! validates, and values reach the program only through its calls (reduction results,
//! fetches). This crate listens on the runtime's observer hook ([`ops_core::LoopObserver`]) and
//! uses that to checkpoint an application without any checkpoint code in it:
//!
//! - **Tracking** (`track`): every loop gets an index and a location (`name@file:line:col`);
//!   per dataset the tracker keeps the boxes loops wrote, split into points a replay
//!   reproduces (*pure*: computed at start-up from other pure data, e.g. mesh geometry) and
//!   points it does not (*impure*: everything recurring). Every value handed to the program is
//!   logged.
//! - **Checkpoint regions** (`region`): OPS's Algorithm 1 made exact. A checkpoint opens
//!   before a loop and spans the following loops; each impure box is saved the first time a
//!   loop is about to overwrite it after having read it, dropped when it is overwritten first,
//!   and saved at close if still undecided. Halo strips are decided separately from the
//!   interior (`boxes`).
//! - **Location** (`location`, `learn`): a learning phase records the loops, finds the
//!   program's outer iteration in their sequence, measures by backward liveness over the
//!   recorded accesses what a checkpoint would save at each loop boundary of that iteration, and
//!   picks the cheapest; reviews keep the choice true as the program goes on.
//! - **Restart by replay** (`engine`): the program runs from the start; loops are skipped
//!   (except the few that recompute pure data still needed), logged values are returned in
//!   order, and at the checkpoint's loop the saved boxes are uploaded and the run continues.
//! - **Stores** ([`store`]): HDF5 files (blocking), a writer thread, or memory; in a
//!   distributed run one file per process and checkpoint, plus a partner copy of the previous
//!   rank's ([`store::dist`]), from which any number of processes can restart.
//! - **Diagnostics** ([`diags`]): candidates, decisions, timings; text and JSON.
//!
//! Applications normally get all of it through the `ops` facade crate
//! (`ops::ops_from_args`), which installs [`Resilience`] when a checkpoint flag is given
//! ([`ResilienceArgs`]). The [`ResilienceExt`] methods on `Ops` add hints and Kokkos-style
//! views (transient, read-only, aliases, scoped resilient regions). See `docs/resilience.md`.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop)]

// The engine's parts are private: what an application, a custom store or a test needs is
// re-exported below, and `diags` (the report's JSON schema) and `store` (the store trait, the
// file stores and the layout of a checkpoint directory) are public modules.
mod boxes;
mod calls;
mod collective;
mod config;
mod deflate_log;
pub mod diags;
mod engine;
mod error;
mod ext;
mod learn;
mod location;
mod meta;
mod pool;
mod region;
pub mod store;
mod track;

pub use config::{parse_duration, InjectFailure, Interval, ResilienceArgs, ResilienceConfig};
pub use engine::{Enter, ReportPicture, Resilience};
pub use error::ResilienceError;
pub use ext::{with_resilience, ResilienceExt};
pub use learn::{Learner, Level};
pub use location::{spec_matches, LocInfo};

use ops_core::{Ops, OpsError};

/// Installs the resilience observer on `ops` as `cfg` asks: nothing when no checkpoint or
/// diagnostics flag is set (returns `false`); otherwise opens the store, and with
/// `--ops-restart` looks for the newest complete checkpoint and prepares the replay (or says
/// there is none and starts from the beginning).
///
/// In a distributed run (`ops.ranks() > 1`) every process must call it (it is collective):
/// each opens its own store in `DIR/rank-R/` and its partner store in `DIR/rank-R/partner/`
/// ([`store::open_rank_stores`]); the processes agree on the first sequence number (one past
/// every checkpoint file in the directory tree) and, with `--ops-restart`, on the newest
/// checkpoint complete for all of them, written by any number of processes
/// ([`store::Layout::newest_complete`]). A failure on one process is an error on all, naming
/// the rank.
pub fn install(ops: &mut Ops, cfg: &ResilienceConfig) -> Result<bool, OpsError> {
    if !cfg.wanted() {
        return Ok(false);
    }
    let err = |e: String| OpsError::InvalidConfig(e);
    for (flag, file) in [
        ("--ops-diags-json", &cfg.diags_json),
        ("--ops-diags-png", &cfg.diags_png),
    ] {
        if let Some(path) = file {
            check_writable(path)
                .map_err(|e| err(format!("{flag} {}: cannot be written: {e}", path.display())))?;
        }
    }
    let (rank, ranks) = (ops.rank(), ops.ranks());
    let app = cfg.app_name();
    let mut cfg = cfg.clone();
    cfg.app = Some(app.clone());
    let Some(dir) = cfg.dir.clone() else {
        let mut r = Resilience::new(cfg, None);
        r.set_distribution(rank, ranks, None);
        ops.set_observer(Some(Box::new(r)));
        return Ok(true);
    };
    let in_dir = |e: String| err(format!("--ops-checkpoint-dir {}: {e}", dir.display()));
    // Every process opens its stores and scans the directory, then all learn whether every one
    // succeeded: a process stopping alone would leave the others waiting for it.
    let layout = store::Layout::new(&dir, &app);
    // The lock first: it also proves the directory writable before the run starts.
    let own_dir = if ranks > 1 {
        store::rank_dir(&dir, rank, ranks)
    } else {
        dir.clone()
    };
    let local = store::DirLock::acquire(&own_dir, &app)
        .and_then(|lock| {
            let s = store::open_rank_stores(cfg.mode, &dir, &app, cfg.keep, rank, ranks)?;
            Ok((s, lock, layout.max_sequence()?.unwrap_or(0)))
        })
        .map_err(|e| e.to_string());
    let highest = collective::gather_u64(ops, local.as_ref().map(|l| l.2).map_err(Clone::clone))
        .map_err(in_dir)?;
    let (stores, lock, _) = local.map_err(in_dir)?;
    let mut r = Resilience::new(cfg.clone(), Some(stores.own));
    r.hold_lock(lock);
    r.set_distribution(rank, ranks, stores.partner);
    let top = highest.into_iter().max().unwrap_or(0);
    // A file numbered u64::MAX (hostile or damaged): numbering on would wrap below it.
    let next = top.checked_add(1).ok_or_else(|| {
        in_dir(format!(
            "a checkpoint file has sequence number {top}: no newer one can be numbered; move \
             it away"
        ))
    })?;
    r.set_next_sequence(next);
    // The restore disabled on purpose, to prove the restart tests notice (ops_core::testing).
    if cfg.restart && !ops_core::testing::mutation("skip-restore") {
        let restart = |e: String| err(format!("--ops-restart: {e}"));
        let distributed = ranks > 1
            || layout
                .is_distributed()
                .map_err(|e| restart(e.to_string()))?;
        if distributed {
            let (search, warning) = agree_restart(ops, &layout).map_err(restart)?;
            if let Some(w) = warning {
                r.warn_from_rank0(w);
            }
            r.restart_with_search(search)
                .map_err(|e| restart(e.to_string()))?;
        } else {
            let found = r
                .store()
                .expect("a directory means a store")
                .find_latest()
                .map_err(|e| restart(e.to_string()))?;
            r.restart_with(found).map_err(|e| restart(e.to_string()))?;
        }
    }
    ops.set_observer(Some(Box::new(r)));
    Ok(true)
}

/// The processes agree on the checkpoint to restart from: each proposes the newest sequence
/// complete as far as it can see, and while they differ, each looks again at or below the
/// smallest proposal (which only decreases), until all propose the same (or one has nothing:
/// then nobody restarts). Equivalent to taking the newest sequence in every process's list of
/// complete ones, without verifying older checkpoints nobody needs. Returns the search and, if
/// the processes saw different things at first, a warning about the shared filesystem.
fn agree_restart(
    ops: &mut Ops,
    layout: &store::Layout,
) -> Result<(store::dist::Search, Option<String>), String> {
    let mut cap = u64::MAX;
    let mut current: Option<store::dist::CompleteSet> = None;
    let mut searched = false;
    let mut rejected = Vec::new();
    let mut read = std::time::Duration::ZERO;
    let mut first: Option<Vec<u64>> = None;
    loop {
        let mut local = Ok(0);
        if !searched || current.as_ref().is_some_and(|c| c.sequence > cap) {
            searched = true;
            match layout.newest_complete(cap) {
                Ok(s) => {
                    for r in s.rejected {
                        if !rejected.contains(&r) {
                            rejected.push(r);
                        }
                    }
                    read += s.read;
                    current = s.complete;
                }
                Err(e) => local = Err(e.to_string()),
            }
        }
        if local.is_ok() {
            local = Ok(current.as_ref().map_or(0, |c| c.sequence));
        }
        let all = collective::gather_u64(ops, local)?;
        let seen = first.get_or_insert_with(|| all.clone()).clone();
        let agreed = all.iter().copied().min().unwrap_or(0);
        if agreed == 0 || all.iter().all(|&s| s == agreed) {
            let warning = (!seen.iter().all(|&s| s == seen[0])).then(|| {
                let each: Vec<String> = seen
                    .iter()
                    .enumerate()
                    .map(|(k, s)| match s {
                        0 => format!("rank {k}: none"),
                        s => format!("rank {k}: {s}"),
                    })
                    .collect();
                format!(
                    "the processes found different newest complete checkpoints in {} ({}); {}. \
                     The checkpoint directory must be on a filesystem every process shares",
                    layout.dir().display(),
                    each.join(", "),
                    if agreed == 0 {
                        "none is complete for all, starting from the beginning".to_string()
                    } else {
                        format!("restarting from checkpoint {agreed}, complete for all")
                    }
                )
            });
            let search = store::dist::Search {
                complete: if agreed == 0 { None } else { current },
                rejected,
                read,
            };
            return Ok((search, warning));
        }
        cap = agreed;
    }
}

/// `use ops_resilience::prelude::*;`: the extension methods and the flags.
pub mod prelude {
    pub use crate::config::ResilienceArgs;
    pub use crate::ext::ResilienceExt;
}

/// Whether `path` can be written, so that an unwritable diagnostics path is refused before the
/// run, not after it: an existing file is opened for appending; otherwise a probe file of this
/// process and thread is created beside it and removed (several ranks may share the path).
fn check_writable(path: &std::path::Path) -> std::io::Result<()> {
    if path.exists() {
        std::fs::OpenOptions::new().append(true).open(path)?;
        return Ok(());
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let probe = path.with_file_name(format!(
        ".{name}.{}.{:?}.probe",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}
