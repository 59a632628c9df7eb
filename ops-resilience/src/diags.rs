//! Diagnostics: what was checkpointed, where, why, and what it cost.
//!
//! The [`Report`] is filled as the run goes; `--ops-diags N` prints parts of it to stderr as
//! they happen (1: a line per checkpoint and the restore; 2: also the chosen location and the
//! saved datasets; 3: also the candidate table and every dataset's decision), and
//! `--ops-diags-json FILE` writes all of it as JSON at the end of the run.

use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where a process writes `--ops-diags-json FILE`: `FILE` on rank 0 (and for a single
/// process), `FILE.rank-R` on rank `R` of a distributed run.
///
/// ```
/// use ops_resilience::diags::json_path;
/// use std::path::Path;
/// assert_eq!(json_path(Path::new("d.json"), 0), Path::new("d.json"));
/// assert_eq!(json_path(Path::new("d.json"), 3), Path::new("d.json.rank-3"));
/// ```
pub fn json_path(file: &Path, rank: usize) -> PathBuf {
    if rank == 0 {
        file.to_path_buf()
    } else {
        let mut s = file.as_os_str().to_owned();
        s.push(format!(".rank-{rank}"));
        PathBuf::from(s)
    }
}

pub use ops_core::units::human_bytes;

/// One candidate location: a loop boundary that occurs once per pass of the outer iteration,
/// with what a checkpoint opening there saves.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Candidate {
    /// `name@file:line:col`.
    pub location: String,
    /// Its place among the candidates in the order of a pass (0: the anchor's).
    pub position: usize,
    /// Occurrences when the location was chosen.
    pub occurrences: u64,
    /// Passes measured.
    pub samples: usize,
    /// Smallest bytes a checkpoint entered here would save.
    pub bytes_min: u64,
    /// Mean.
    pub bytes_mean: f64,
    /// Largest.
    pub bytes_max: u64,
}

/// Where checkpoint regions open.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LocationReport {
    /// The location (`None` until chosen).
    pub chosen: Option<String>,
    /// The loop that anchors the outer iteration (a pass runs from one occurrence of it to
    /// the next), once found.
    pub anchor: Option<String>,
    /// What a checkpoint at the chosen location saves: the largest measurement (the
    /// candidate table's figure).
    pub bytes: Option<u64>,
    /// Why.
    pub reason: String,
    /// At which loop index it was (last) chosen.
    pub chosen_at_loop: Option<u64>,
    /// How often later samples revised the choice.
    pub revisions: u32,
    /// The candidates measured, cheapest first.
    pub candidates: Vec<Candidate>,
    /// What the learner did, in order: decisions, reviews and revisions.
    pub history: Vec<LearnerStep>,
}

/// One thing the location learner did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LearnerStep {
    /// The loop index at which it happened.
    pub loop_index: u64,
    /// `decided`, `revised`, `review` (a location outside the decided passes recurred, or the
    /// chosen one stopped running once per pass: `location` names it), `review ended`.
    pub what: String,
    /// The location decided on, revised to, or that started the review.
    pub location: Option<String>,
}

/// A saved dataset.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SavedReport {
    /// `block/dat`.
    pub name: String,
    /// Bytes saved.
    pub bytes: u64,
    /// Boxes saved.
    pub boxes: usize,
}

/// What happened to one dataset at a checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Decision {
    /// `block/dat`.
    pub name: String,
    /// `saved`, `never written`, `overwritten first`, `transient`, `read-only`, `alias of X`,
    /// `recomputed at restore`, `not in dataset list` (several joined with `+` when parts of
    /// the dataset were treated differently).
    pub reason: String,
    /// Bytes saved.
    pub saved_bytes: u64,
    /// Bytes that held needed values from a loop but were dropped (overwritten first, alias,
    /// transient, read-only, not listed).
    pub dropped_bytes: u64,
    /// Bytes a restart recomputes.
    pub recomputed_bytes: u64,
}

/// One checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CheckpointReport {
    /// Sequence number.
    pub sequence: u64,
    /// Loop index the region opened before.
    pub loop_index: u64,
    /// The loop during whose hook the checkpoint was committed (the loop count at the end of
    /// the run if the run's end closed it): a run killed before loop N has every checkpoint
    /// with `closed_at_loop < N` (once an asynchronous store finished writing it).
    pub closed_at_loop: u64,
    /// Location key of that loop (or `resilient:LABEL@ITERATION`).
    pub location: String,
    /// Taken before the location was decided (asked for by the program or by time), at the
    /// best boundary known then.
    pub provisional: bool,
    /// Loops the region spanned.
    pub region_loops: u64,
    /// Bytes of dataset data saved.
    pub bytes: u64,
    /// Saved datasets.
    pub datasets: Vec<SavedReport>,
    /// Every dataset's decision.
    pub decisions: Vec<Decision>,
    /// Loops a restart from here re-executes.
    pub recompute_loops: usize,
    /// Seconds the computation was blocked (snapshots and commit).
    pub stall_s: f64,
    /// Of the stall: seconds copying data out of the backend.
    pub copy_s: f64,
    /// Of the stall: seconds in the store's `commit`.
    pub commit_s: f64,
    /// Seconds of computation between the last two occurrences of the checkpoint location
    /// before this checkpoint closed (one pass of the time loop, a time step in the apps):
    /// the yardstick for `stall_s`. `None` before the location occurred twice, and for
    /// resilient regions and manual checkpoints away from the location.
    pub pass_s: Option<f64>,
    /// Seconds writing to disk (`None` until known: asynchronous stores report it later,
    /// memory mode only when written out).
    pub write_s: Option<f64>,
    /// Bytes written to disk.
    pub bytes_written: u64,
    /// Write bandwidth (bytes written / write time), GB/s.
    pub write_gbs: Option<f64>,
    /// The file, once written.
    pub path: Option<String>,
    /// Distributed runs: the partner copy of rank `R-1`'s checkpoint this process wrote (once
    /// known).
    pub partner: Option<String>,
    /// Distributed runs: seconds exchanging partner copies and handing the received one to the
    /// partner store (part of the stall).
    pub partner_s: Option<f64>,
}

/// A rejected checkpoint file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RejectedReport {
    /// The file.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// One rank's file a restart read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RestoreFile {
    /// The rank whose data it holds.
    pub rank: usize,
    /// The file.
    pub path: String,
    /// True when it is the partner copy (the rank's own file was missing or rejected).
    pub partner: bool,
}

/// The restart.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RestoreReport {
    /// Sequence of the checkpoint restored (`None`: none found, started from the beginning).
    pub sequence: Option<u64>,
    /// Its loop index.
    pub loop_index: Option<u64>,
    /// Its location.
    pub location: Option<String>,
    /// Seconds from start-up until the data were restored (the replay).
    pub replay_s: f64,
    /// Seconds reading and verifying the checkpoint.
    pub read_s: f64,
    /// Seconds uploading the saved data.
    pub upload_s: f64,
    /// Of the replay: seconds the re-executed loops took (the rest is reading, skipping,
    /// the upload and the application's own start-up code). Replay restores only.
    pub reexec_s: f64,
    /// Bytes restored.
    pub bytes: u64,
    /// True when the run fast-forwarded (restored at its first `fast_forward` call after
    /// running its start-up) instead of replaying.
    pub fast_forward: bool,
    /// Loops re-executed during the replay (recomputing pure data); for a fast-forward, the
    /// start-up loops run before the first `fast_forward` call.
    pub executed_loops: u64,
    /// Loops skipped (for a fast-forward, the loops jumped over).
    pub skipped_loops: u64,
    /// Values answered from the log.
    pub replayed_queries: u64,
    /// Newer checkpoints rejected (corrupt, truncated).
    pub rejected: Vec<RejectedReport>,
    /// Processes that wrote the checkpoint restored from, when it came from a distributed
    /// layout (`None` for a single process's checkpoint found as always).
    pub ranks: Option<usize>,
    /// The files read, one per rank that wrote it (distributed layout only).
    pub files: Vec<RestoreFile>,
}

/// Everything the resilience layer reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// Application name used for files.
    pub app: String,
    /// This process's rank (0 for a single process). Each process of a distributed run writes
    /// its own report (see [`json_path`]), with its own bytes and times.
    pub rank: usize,
    /// Number of processes (1 for a single process).
    pub ranks: usize,
    /// `blocking`, `thread` or `memory` (`none` without checkpoints).
    pub mode: String,
    /// Checkpoint directory.
    pub dir: Option<String>,
    /// Loops seen.
    pub loops: u64,
    /// Values handed to user space.
    pub queries: u64,
    /// Bytes of the call log at the end (every checkpoint carries it up to its loop).
    #[serde(default)]
    pub call_log_bytes: u64,
    /// Passes of the decided time step that repeated the template and were tracked whole
    /// (each loop only logged, the rest applied once per pass).
    #[serde(default)]
    pub repeated_passes: u64,
    /// Where regions open and why.
    pub location: LocationReport,
    /// Every checkpoint committed.
    pub checkpoints: Vec<CheckpointReport>,
    /// The restart, if this run was one.
    pub restore: Option<RestoreReport>,
    /// Things the user should know (hints that could not be honoured, ...).
    pub warnings: Vec<String>,
    /// Seconds the tracker spent in loop hooks, checkpoint stalls excluded (its overhead).
    pub tracking_s: f64,
    /// Seconds from installing the tracker to the end of the run.
    pub run_s: f64,
}

impl Report {
    /// The candidate table and the chosen location, as printed at level 3.
    pub fn location_text(&self, with_table: bool) -> String {
        let mut s = String::new();
        if with_table && !self.location.candidates.is_empty() {
            s.push_str(&format!(
                "ops-resilience: checkpoint location candidates\n  {:<60} {:>8} {:>7} {:>11} {:>11} {:>11}\n",
                "location", "occurs", "samples", "min", "mean", "max"
            ));
            for c in &self.location.candidates {
                s.push_str(&format!(
                    "  {:<60} {:>8} {:>7} {:>11} {:>11} {:>11}\n",
                    c.location,
                    c.occurrences,
                    c.samples,
                    human_bytes(c.bytes_min),
                    human_bytes(c.bytes_mean as u64),
                    human_bytes(c.bytes_max)
                ));
            }
        }
        if let Some(c) = &self.location.chosen {
            s.push_str(&format!(
                "ops-resilience: checkpoint location {c}: {}\n",
                self.location.reason
            ));
        }
        s
    }

    /// One checkpoint at `level` (1: one line; 2: with saved datasets; 3: every decision).
    pub fn checkpoint_text(c: &CheckpointReport, level: u8) -> String {
        let mut s = format!(
            "ops-resilience: checkpoint {} at loop {} ({}): {} in {} dataset(s), region {} loops, stall {:.4} s (copy {:.4} s, commit {:.4} s)",
            c.sequence,
            c.loop_index,
            c.location,
            human_bytes(c.bytes),
            c.datasets.len(),
            c.region_loops,
            c.stall_s,
            c.copy_s,
            c.commit_s
        );
        if let Some(pass) = c.pass_s.filter(|p| *p > 0.0) {
            s.push_str(&format!(
                " = {:.2} of a pass ({pass:.4} s)",
                c.stall_s / pass
            ));
        }
        if let Some(w) = c.write_s {
            s.push_str(&format!(", write {w:.4} s"));
            if let Some(g) = c.write_gbs {
                s.push_str(&format!(" ({g:.2} GB/s)"));
            }
        }
        s.push('\n');
        if level >= 3 {
            for d in &c.decisions {
                s.push_str(&format!(
                    "  {:<28} {:<50} saved {:>10}  dropped {:>10}  recomputed {:>10}\n",
                    d.name,
                    d.reason,
                    human_bytes(d.saved_bytes),
                    human_bytes(d.dropped_bytes),
                    human_bytes(d.recomputed_bytes)
                ));
            }
        } else if level >= 2 {
            for d in &c.datasets {
                s.push_str(&format!(
                    "  saved {:<32} {:>10} in {} box(es)\n",
                    d.name,
                    human_bytes(d.bytes),
                    d.boxes
                ));
            }
        }
        s
    }

    /// The restore, as printed at level 1 and up.
    pub fn restore_text(r: &RestoreReport) -> String {
        match r.sequence {
            None => String::new(),
            Some(seq) if r.fast_forward => format!(
                "ops-resilience: fast-forwarded to checkpoint {seq} at loop {} ({}): start-up \
                 {:.4} s ({} loops run, {} jumped over), read {:.4} s, upload {:.4} s, {}\n",
                r.loop_index.unwrap_or(0),
                r.location.as_deref().unwrap_or("?"),
                r.replay_s,
                r.executed_loops,
                r.skipped_loops,
                r.read_s,
                r.upload_s,
                human_bytes(r.bytes)
            ),
            Some(seq) => format!(
                "ops-resilience: restored checkpoint {seq} at loop {} ({}): replay {:.4} s \
                 ({} loops re-executed in {:.4} s, {} skipped, {} values replayed), read {:.4} s, \
                 upload {:.4} s, {}\n",
                r.loop_index.unwrap_or(0),
                r.location.as_deref().unwrap_or("?"),
                r.replay_s,
                r.executed_loops,
                r.reexec_s,
                r.skipped_loops,
                r.replayed_queries,
                r.read_s,
                r.upload_s,
                human_bytes(r.bytes)
            ),
        }
    }
}
