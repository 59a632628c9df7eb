//! File names of a store's directory and the scan that groups them by sequence.
//!
//! One checkpoint of one process is `DIR/APP.ckpt.SEQUENCE.rankR.h5` (sequence zero-padded to six
//! digits, wider when needed) with its manifest `....rankR.json`; while being written they carry a
//! `.tmp` suffix. The rank is 0 until the stores learn MPI.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The rank every file of this (single-process) store is written for.
pub(crate) const RANK: u32 = 0;

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

/// Names the files of one application's checkpoints in one directory.
#[derive(Clone, Debug)]
pub(crate) struct Naming {
    pub dir: PathBuf,
    pub app: String,
}

impl Naming {
    /// The path of a checkpoint's file of the given kind.
    pub fn path(&self, sequence: u64, kind: Kind) -> PathBuf {
        self.dir.join(format!(
            "{}.ckpt.{:06}.rank{}{}",
            self.app,
            sequence,
            RANK,
            kind.suffix()
        ))
    }

    /// Parses a file name of this application and rank: its sequence and kind.
    fn parse(&self, file_name: &str) -> Option<(u64, Kind)> {
        let rest = file_name.strip_prefix(&self.app)?.strip_prefix(".ckpt.")?;
        let (digits, rest) = rest.split_once('.')?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let sequence = digits.parse().ok()?;
        let rest = rest.strip_prefix(&format!("rank{RANK}"))?;
        let kind = Kind::ALL.into_iter().find(|k| rest == k.suffix())?;
        Some((sequence, kind))
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
        Ok(self.scan()?.keys().next_back().map_or(1, |s| s + 1))
    }
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
    }
}
