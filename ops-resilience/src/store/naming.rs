//! File names of a store's directory and the scan that groups them by sequence.
//!
//! One checkpoint of one process is `DIR/APP.ckpt.SEQUENCE.rankR.h5` (sequence zero-padded to six
//! digits, wider when needed) with its manifest `....rankR.json`; while being written they carry a
//! `.tmp` suffix. `R` is the rank of the process whose data the file holds: 0 for a single
//! process; in a distributed run rank `R` writes into `DIR/rank-R/` and its partner copy of
//! rank `R-1`'s checkpoint into `DIR/rank-R/partner/` (named for rank `R-1`), see
//! [`super::dist`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What kind of file of a checkpoint a directory entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The finished HDF5 file.
    H5,
    /// The HDF5 file being written.
    H5Tmp,
    /// The finished manifest.
    Manifest,
    /// The manifest being written.
    ManifestTmp,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::H5, Kind::H5Tmp, Kind::Manifest, Kind::ManifestTmp];

    fn suffix(self) -> &'static str {
        match self {
            Kind::H5 => ".h5",
            Kind::H5Tmp => ".h5.tmp",
            Kind::Manifest => ".json",
            Kind::ManifestTmp => ".json.tmp",
        }
    }
}

/// The files present for one sequence number.
#[derive(Clone, Debug, Default)]
pub(crate) struct Entry {
    /// `NAME.h5`
    pub h5: Option<PathBuf>,
    /// `NAME.h5.tmp`
    pub h5_tmp: Option<PathBuf>,
    /// `NAME.json`
    pub manifest: Option<PathBuf>,
    /// `NAME.json.tmp`
    pub manifest_tmp: Option<PathBuf>,
}

impl Entry {
    fn slot(&mut self, kind: Kind) -> &mut Option<PathBuf> {
        match kind {
            Kind::H5 => &mut self.h5,
            Kind::H5Tmp => &mut self.h5_tmp,
            Kind::Manifest => &mut self.manifest,
            Kind::ManifestTmp => &mut self.manifest_tmp,
        }
    }

    /// Every file present, manifest first (the order to delete them in).
    pub fn files(&self) -> impl Iterator<Item = &PathBuf> {
        [&self.manifest, &self.manifest_tmp, &self.h5, &self.h5_tmp]
            .into_iter()
            .flatten()
    }
}

/// Names the files of one application's checkpoints of one rank in one directory.
#[derive(Clone, Debug)]
pub(crate) struct Naming {
    pub dir: PathBuf,
    pub app: String,
    /// The rank whose data the files hold (0 for a single process).
    pub rank: usize,
}

impl Naming {
    /// The path of a checkpoint's file of the given kind.
    pub fn path(&self, sequence: u64, kind: Kind) -> PathBuf {
        self.dir.join(format!(
            "{}.ckpt.{:06}.rank{}{}",
            self.app,
            sequence,
            self.rank,
            kind.suffix()
        ))
    }

    /// Parses a file name of this application and rank: its sequence and kind.
    fn parse(&self, file_name: &str) -> Option<(u64, Kind)> {
        match self.parse_any(file_name)? {
            (sequence, rank, kind) if rank == self.rank => Some((sequence, kind)),
            _ => None,
        }
    }

    /// Parses a file name of this application, of any rank: its sequence, rank and kind.
    pub fn parse_any(&self, file_name: &str) -> Option<(u64, usize, Kind)> {
        let rest = file_name.strip_prefix(&self.app)?.strip_prefix(".ckpt.")?;
        let (digits, rest) = rest.split_once('.')?;
        let sequence = all_digits(digits)?.parse().ok()?;
        let rest = rest.strip_prefix("rank")?;
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let rank: usize = all_digits(&rest[..end])?.parse().ok()?;
        if rest[..end] != rank.to_string() {
            return None; // `rank01`: not a name this code writes
        }
        let kind = Kind::ALL.into_iter().find(|k| &rest[end..] == k.suffix())?;
        Some((sequence, rank, kind))
    }

    /// The highest sequence number of any checkpoint file of this application, of any rank, in
    /// the directory (`None` if there is none or the directory does not exist).
    pub fn max_sequence_any_rank(&self) -> std::io::Result<Option<u64>> {
        let rd = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut max = None;
        for dirent in rd {
            let name = dirent?.file_name();
            if let Some((sequence, _, _)) = name.to_str().and_then(|n| self.parse_any(n)) {
                max = max.max(Some(sequence));
            }
        }
        Ok(max)
    }

    /// Every checkpoint file of this application in the directory, by sequence (ascending).
    pub fn scan(&self) -> std::io::Result<BTreeMap<u64, Entry>> {
        let mut entries: BTreeMap<u64, Entry> = BTreeMap::new();
        for dirent in std::fs::read_dir(&self.dir)? {
            let dirent = dirent?;
            let name = dirent.file_name();
            let Some((sequence, kind)) = name.to_str().and_then(|n| self.parse(n)) else {
                continue;
            };
            *entries.entry(sequence).or_default().slot(kind) = Some(dirent.path());
        }
        Ok(entries)
    }

    /// One past the highest sequence number any file of this application carries (1 if none).
    pub fn next_sequence(&self) -> std::io::Result<u64> {
        match self.scan()?.keys().next_back() {
            None => Ok(1),
            // A file numbered u64::MAX (hostile or damaged): numbering on would wrap below it.
            Some(&s) => s.checked_add(1).ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "a checkpoint file of {} has sequence number {s}: no newer one can be \
                         numbered; move it away",
                        self.app
                    ),
                )
            }),
        }
    }
}

/// `s` if it is a non-empty run of ASCII digits.
fn all_digits(s: &str) -> Option<&str> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then_some(s)
}

/// The file name of a path, for messages and manifests.
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let naming = Naming {
            dir: PathBuf::from("/x"),
            app: "clover.leaf".into(),
            rank: 0,
        };
        for kind in Kind::ALL {
            let path = naming.path(42, kind);
            let name = file_name(&path);
            assert_eq!(naming.parse(&name), Some((42, kind)), "{name}");
        }
        assert_eq!(
            file_name(&naming.path(42, Kind::H5)),
            "clover.leaf.ckpt.000042.rank0.h5"
        );
        assert_eq!(
            naming.parse("clover.leaf.ckpt.1234567.rank0.h5"),
            Some((1234567, Kind::H5))
        );
        assert_eq!(naming.parse("other.ckpt.000001.rank0.h5"), None);
        assert_eq!(naming.parse("clover.leaf.ckpt.000001.rank1.h5"), None);
        assert_eq!(naming.parse("clover.leaf.ckpt.-1.rank0.h5"), None);
        assert_eq!(naming.parse("clover.leaf.ckpt.000001.rank0.h5.bak"), None);
        assert_eq!(
            naming.parse_any("clover.leaf.ckpt.000007.rank12.json.tmp"),
            Some((7, 12, Kind::ManifestTmp))
        );
        assert_eq!(naming.parse_any("clover.leaf.ckpt.000007.rank01.h5"), None);
        assert_eq!(naming.parse_any("clover.leaf.ckpt.000007.rank.h5"), None);
        let three = Naming { rank: 3, ..naming };
        assert_eq!(
            file_name(&three.path(9, Kind::H5)),
            "clover.leaf.ckpt.000009.rank3.h5"
        );
        assert_eq!(
            three.parse("clover.leaf.ckpt.000009.rank3.json"),
            Some((9, Kind::Manifest))
        );
        assert_eq!(three.parse("clover.leaf.ckpt.000009.rank0.json"), None);
    }
}
