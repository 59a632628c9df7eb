//! Distributed checkpoints: where each process's files go, partner copies, and which
//! checkpoints a restart with any number of processes can use.
//!
//! A run of `P > 1` processes (ranks) writes one file per rank and checkpoint:
//!
//! ```text
//! DIR/rank-R/APP.ckpt.NNNNNN.rankR.h5 (+ .json)             rank R's own data
//! DIR/rank-R/partner/APP.ckpt.NNNNNN.rankQ.h5 (+ .json)     Q = (R-1) mod P: a copy of rank Q's
//! ```
//!
//! Each file holds the boxes that rank owns (its part of the global index space) and, like
//! every checkpoint file, the whole log, payload and tracker state, which are the same on every
//! rank; its `/meta` and manifest record `rank` and `ranks`. A single process writes
//! `DIR/APP.ckpt.NNNNNN.rank0.h5` as always (no `rank-R` directory, no partner).
//!
//! Sequence `S` written by `P` ranks is **complete** when for every `k` in `0..P` there is a
//! verified file of `S` in `DIR/rank-k/` or, failing that, its partner copy in
//! `DIR/rank-((k+1) mod P)/partner/`. The search ([`Layout::newest_complete`]) reads every
//! rank's file of the candidate: a restarted process uploads every saved box, and the runtime
//! keeps the part it stores, so any number of processes can restart from it.
//!
//! The directory must be on a filesystem every process sees (a restart reads the other ranks'
//! files); processes agree on the sequence to restart from collectively (see the engine).

use super::atomic::io_err;
use super::blocking::load;
use super::manifest::Manifest;
use super::naming::{Kind, Naming};
use super::{
    Checkpoint, CheckpointStore, Hdf5Store, MemoryStore, Rejected, StoreError, StoreMode,
    ThreadStore,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The directory rank `rank` of `ranks` writes its own checkpoints to: `dir` itself for a single
/// process, `dir/rank-R` otherwise.
///
/// ```
/// use ops_resilience::store::{partner_dir, rank_dir};
/// use std::path::Path;
/// assert_eq!(rank_dir(Path::new("ck"), 0, 1), Path::new("ck"));
/// assert_eq!(rank_dir(Path::new("ck"), 2, 4), Path::new("ck/rank-2"));
/// assert_eq!(partner_dir(Path::new("ck"), 2), Path::new("ck/rank-2/partner"));
/// ```
pub fn rank_dir(dir: &Path, rank: usize, ranks: usize) -> PathBuf {
    if ranks <= 1 {
        dir.to_path_buf()
    } else {
        dir.join(format!("rank-{rank}"))
    }
}

/// The directory rank `rank` keeps its partner copies in (copies of rank `rank - 1`'s
/// checkpoints, modulo the number of ranks): `dir/rank-R/partner`.
pub fn partner_dir(dir: &Path, rank: usize) -> PathBuf {
    dir.join(format!("rank-{rank}")).join("partner")
}

/// The rank whose checkpoints rank `rank` of `ranks` keeps copies of: `(rank - 1) mod ranks`
/// (what `ring_shift` delivers to it).
///
/// ```
/// assert_eq!(ops_resilience::store::dist::partner_of(0, 3), 2);
/// assert_eq!(ops_resilience::store::dist::partner_of(2, 3), 1);
/// ```
pub fn partner_of(rank: usize, ranks: usize) -> usize {
    (rank + ranks.max(1) - 1) % ranks.max(1)
}

/// The stores of one process: its own checkpoints and, in a distributed run, the partner
/// copies it keeps for rank `rank - 1`.
pub struct RankStores {
    /// This process's checkpoints.
    pub own: Box<dyn CheckpointStore>,
    /// Copies of rank `rank - 1`'s checkpoints (`None` for a single process).
    pub partner: Option<Box<dyn CheckpointStore>>,
}

fn store_of(mode: StoreMode, disk: Hdf5Store) -> Result<Box<dyn CheckpointStore>, StoreError> {
    Ok(match mode {
        StoreMode::Blocking => Box::new(disk),
        StoreMode::Thread => Box::new(ThreadStore::with_store(disk)?),
        StoreMode::Memory => Box::new(MemoryStore::with_store(disk)?),
    })
}

/// Opens the stores of rank `rank` of `ranks` in mode `mode`, keeping `keep` checkpoints each:
/// for a single process exactly [`open_store`](super::open_store) on `dir`; otherwise its own
/// store on `dir/rank-R/` (files of rank R) and a partner store on `dir/rank-R/partner/`
/// (files of rank R-1), both with the same mode and keep-K.
pub fn open_rank_stores(
    mode: StoreMode,
    dir: &Path,
    app: &str,
    keep: usize,
    rank: usize,
    ranks: usize,
) -> Result<RankStores, StoreError> {
    if ranks <= 1 {
        return Ok(RankStores {
            own: super::open_store(mode, dir, app, keep)?,
            partner: None,
        });
    }
    if rank >= ranks {
        return Err(StoreError::Invalid(format!(
            "rank {rank} of {ranks} processes"
        )));
    }
    let own = Hdf5Store::for_rank(&rank_dir(dir, rank, ranks), app, keep, rank)?
        .with_label(&format!("rank {rank}: "));
    let from = partner_of(rank, ranks);
    let partner = Hdf5Store::for_rank(&partner_dir(dir, rank), app, keep, from)?
        .with_label(&format!("rank {rank} (partner copy of rank {from}): "));
    Ok(RankStores {
        own: store_of(mode, own)?,
        partner: Some(store_of(mode, partner)?),
    })
}

/// One rank's file of a complete checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The rank whose data it holds.
    pub rank: usize,
    /// The file read.
    pub path: PathBuf,
    /// True when it is the partner copy (the rank's own file was missing or rejected).
    pub partner: bool,
    /// Why the own file was not used, when the partner copy was.
    pub own_rejected: Option<Rejected>,
    /// The verified checkpoint file.
    pub checkpoint: Checkpoint,
}

/// Every rank's file of one complete checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct CompleteSet {
    /// The checkpoint's sequence number.
    pub sequence: u64,
    /// Processes that wrote it.
    pub ranks: usize,
    /// One per rank, in rank order.
    pub parts: Vec<Part>,
}

/// What [`Layout::newest_complete`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Search {
    /// The newest complete checkpoint (every rank's file read and verified), if any.
    pub complete: Option<CompleteSet>,
    /// Files rejected on the way (corrupt, truncated, incomplete), and for each newer
    /// incomplete sequence the rank that made it incomplete, newest first.
    pub rejected: Vec<Rejected>,
    /// Time spent reading and verifying.
    pub read: Duration,
}

/// A checkpoint directory as a restart sees it: the single-process files in it and every
/// `rank-R/` and `rank-R/partner/` subdirectory.
#[derive(Clone, Debug)]
pub struct Layout {
    dir: PathBuf,
    app: String,
}

/// What the scan knows about one sequence.
#[derive(Default)]
struct Seen {
    /// Process counts the manifests of its files claim.
    ranks: BTreeSet<usize>,
    /// Directories holding a file of it (any kind), with the rank named in the file.
    files: BTreeSet<(PathBuf, usize)>,
}

impl Layout {
    /// The checkpoints of application `app` in `dir`.
    pub fn new(dir: &Path, app: &str) -> Layout {
        Layout {
            dir: dir.to_path_buf(),
            app: app.to_owned(),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn naming(&self, dir: PathBuf, rank: usize) -> Naming {
        Naming {
            dir,
            app: self.app.clone(),
            rank,
        }
    }

    /// The ranks `R` that have a `rank-R/` subdirectory, ascending (none if `dir` does not
    /// exist).
    pub fn rank_dirs(&self) -> Result<Vec<usize>, StoreError> {
        let rd = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_err(&self.dir)(e)),
        };
        let mut ranks = Vec::new();
        for dirent in rd {
            let dirent = dirent.map_err(io_err(&self.dir))?;
            let name = dirent.file_name();
            let Some(r) = name
                .to_str()
                .and_then(|n| n.strip_prefix("rank-"))
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| d.parse::<usize>().ok())
            else {
                continue;
            };
            if dirent.path().is_dir() {
                ranks.push(r);
            }
        }
        ranks.sort_unstable();
        Ok(ranks)
    }

    /// True when a distributed run wrote here (some `rank-R/` subdirectory exists).
    pub fn is_distributed(&self) -> Result<bool, StoreError> {
        Ok(!self.rank_dirs()?.is_empty())
    }

    /// Every directory checkpoint files may be in: `dir`, then each `rank-R/` and its
    /// `partner/`.
    fn dirs(&self) -> Result<Vec<PathBuf>, StoreError> {
        let mut out = vec![self.dir.clone()];
        for r in self.rank_dirs()? {
            out.push(self.dir.join(format!("rank-{r}")));
            out.push(partner_dir(&self.dir, r));
        }
        Ok(out)
    }

    /// The highest sequence number any checkpoint file of the application carries, in any of
    /// the directories and of any rank (`None` if there is none). A run numbers its checkpoints
    /// from one past it, whatever its process count, so sequence numbers never repeat.
    pub fn max_sequence(&self) -> Result<Option<u64>, StoreError> {
        let mut max = None;
        for d in self.dirs()? {
            let n = self.naming(d.clone(), 0);
            max = max.max(n.max_sequence_any_rank().map_err(io_err(&d))?);
        }
        Ok(max)
    }

    /// Every sequence with a file anywhere, with what its manifests say about it.
    fn scan(&self) -> Result<BTreeMap<u64, Seen>, StoreError> {
        let mut seen: BTreeMap<u64, Seen> = BTreeMap::new();
        let flat = self.dir.clone();
        for d in self.dirs()? {
            let rd = match std::fs::read_dir(&d) {
                Ok(rd) => rd,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(&d)(e)),
            };
            let parser = self.naming(d.clone(), 0);
            for dirent in rd {
                let dirent = dirent.map_err(io_err(&d))?;
                let name = dirent.file_name();
                let Some((seq, rank, kind)) = name.to_str().and_then(|n| parser.parse_any(n))
                else {
                    continue;
                };
                if d == flat && rank != 0 {
                    continue; // a single process writes rank 0 only
                }
                let s = seen.entry(seq).or_default();
                s.files.insert((d.clone(), rank));
                if d == flat {
                    s.ranks.insert(1);
                } else if kind == Kind::Manifest {
                    // The manifest says how many processes wrote the checkpoint; one that does
                    // not parse is rejected when its file is read.
                    if let Some(p) = std::fs::read(dirent.path())
                        .ok()
                        .and_then(|b| Manifest::parse(&b).ok())
                        .and_then(|m| m.ranks)
                        .and_then(|p| usize::try_from(p).ok())
                        .filter(|&p| p > 1)
                    {
                        s.ranks.insert(p);
                    }
                }
            }
        }
        Ok(seen)
    }

    /// The newest checkpoint with sequence at most `at_most` that is complete (see the module
    /// documentation), every rank's file read and verified. Rejected files and the reasons
    /// newer sequences are incomplete are reported in [`Search::rejected`].
    pub fn newest_complete(&self, at_most: u64) -> Result<Search, StoreError> {
        let start = Instant::now();
        let seen = self.scan()?;
        let mut rejected = Vec::new();
        for (&seq, s) in seen.range(..=at_most).rev() {
            if s.ranks.is_empty() {
                // No manifest anywhere: every file of it is an incomplete write.
                for (d, r) in &s.files {
                    if let Err(rej) = load(&self.naming(d.clone(), *r), seq) {
                        rejected.push(rej);
                    }
                }
                continue;
            }
            for &p in s.ranks.iter().rev() {
                match self.try_set(seq, p, &mut rejected) {
                    Some(set) => {
                        return Ok(Search {
                            complete: Some(set),
                            rejected,
                            read: start.elapsed(),
                        })
                    }
                    None => continue,
                }
            }
        }
        Ok(Search {
            complete: None,
            rejected,
            read: start.elapsed(),
        })
    }

    /// Reads rank `k`'s file of checkpoint `seq` of `p` ranks from `naming`'s directory and
    /// checks it is what it should be.
    fn load_part(naming: &Naming, seq: u64, k: usize, p: usize) -> Result<Checkpoint, Rejected> {
        let ck = load(naming, seq)?;
        if (ck.meta.rank, ck.meta.ranks) != (k, p) {
            return Err(Rejected {
                path: naming.path(seq, Kind::H5),
                reason: format!(
                    "holds rank {} of {}, expected rank {k} of {p}",
                    ck.meta.rank, ck.meta.ranks
                ),
            });
        }
        Ok(ck)
    }

    /// Every rank's file of sequence `seq` written by `p` processes, or `None` (with the
    /// reasons in `rejected`) when a rank has neither a good own file nor a good partner copy.
    fn try_set(&self, seq: u64, p: usize, rejected: &mut Vec<Rejected>) -> Option<CompleteSet> {
        let missing = |r: &Rejected| r.reason == "missing";
        if p == 1 {
            let naming = self.naming(self.dir.clone(), 0);
            return match Self::load_part(&naming, seq, 0, 1) {
                Ok(ck) => Some(CompleteSet {
                    sequence: seq,
                    ranks: 1,
                    parts: vec![Part {
                        rank: 0,
                        path: naming.path(seq, Kind::H5),
                        partner: false,
                        own_rejected: None,
                        checkpoint: ck,
                    }],
                }),
                Err(r) => {
                    if !missing(&r) {
                        rejected.push(r);
                    }
                    None
                }
            };
        }
        let mut parts = Vec::with_capacity(p);
        for k in 0..p {
            let own_dir = rank_dir(&self.dir, k, p);
            let own = self.naming(own_dir.clone(), k);
            let own_err = match Self::load_part(&own, seq, k, p) {
                Ok(ck) => {
                    parts.push(Part {
                        rank: k,
                        path: own.path(seq, Kind::H5),
                        partner: false,
                        own_rejected: None,
                        checkpoint: ck,
                    });
                    continue;
                }
                Err(r) => r,
            };
            if !missing(&own_err) {
                rejected.push(own_err.clone());
            }
            let partner_d = partner_dir(&self.dir, (k + 1) % p);
            let partner = self.naming(partner_d.clone(), k);
            match Self::load_part(&partner, seq, k, p) {
                Ok(ck) => parts.push(Part {
                    rank: k,
                    path: partner.path(seq, Kind::H5),
                    partner: true,
                    own_rejected: Some(own_err),
                    checkpoint: ck,
                }),
                Err(partner_err) => {
                    let reason = if missing(&own_err) && missing(&partner_err) {
                        format!(
                            "rank {k}: no checkpoint file for sequence {seq} in {} and no \
                             partner copy in {}",
                            own_dir.display(),
                            partner_d.display()
                        )
                    } else {
                        if !missing(&partner_err) {
                            rejected.push(partner_err.clone());
                        }
                        format!(
                            "rank {k}: no usable file for sequence {seq}: own file {} ({}), \
                             partner copy {} ({})",
                            own_err.path.display(),
                            own_err.reason,
                            partner_err.path.display(),
                            partner_err.reason
                        )
                    };
                    rejected.push(Rejected {
                        path: own.path(seq, Kind::H5),
                        reason: format!(
                            "checkpoint {seq} of {p} processes is incomplete: {reason}"
                        ),
                    });
                    return None;
                }
            }
        }
        Some(CompleteSet {
            sequence: seq,
            ranks: p,
            parts,
        })
    }
}

impl CompleteSet {
    /// Merges the ranks' files into one checkpoint: the metadata, log, payload and tracker
    /// state of rank 0's file (every rank's are the same; location and loop index are checked),
    /// and every rank's saved boxes, by dataset. Errors name the rank and the file and say what
    /// to do.
    pub fn merge(self) -> Result<Checkpoint, String> {
        let mut parts = self.parts.into_iter();
        let Some(first) = parts.next() else {
            return Err(format!("checkpoint {} has no file", self.sequence));
        };
        let (first_path, mut merged) = (first.path, first.checkpoint);
        merged.meta.rank = 0;
        for part in parts {
            let m = &part.checkpoint.meta;
            if (m.loop_index, &m.location, &m.app)
                != (
                    merged.meta.loop_index,
                    &merged.meta.location,
                    &merged.meta.app,
                )
            {
                return Err(format!(
                    "rank {}: checkpoint file {} (sequence {}) was taken at loop {} ({}) of `{}`, \
                     rank 0's {} at loop {} ({}) of `{}`: the files do not belong to one run; \
                     delete the directory to start afresh",
                    part.rank,
                    part.path.display(),
                    m.sequence,
                    m.loop_index,
                    m.location,
                    m.app,
                    first_path.display(),
                    merged.meta.loop_index,
                    merged.meta.location,
                    merged.meta.app
                ));
            }
            for dat in part.checkpoint.dats {
                match merged.dats.iter_mut().find(|d| d.name == dat.name) {
                    Some(d) => {
                        if (d.elem, d.components) != (dat.elem, dat.components) {
                            return Err(format!(
                                "rank {}: checkpoint file {} holds `{}` as {} x {}, rank 0's as \
                                 {} x {}; delete the directory to start afresh",
                                part.rank,
                                part.path.display(),
                                dat.name,
                                dat.components,
                                dat.elem,
                                d.components,
                                d.elem
                            ));
                        }
                        d.regions.extend(dat.regions);
                    }
                    None => merged.dats.push(dat),
                }
            }
        }
        Ok(merged)
    }
}
