//! Damaged checkpoint files never crash a restart and never restore wrong data: real checkpoint
//! files, written by each store mode, get bytes flipped, are truncated or extended (the HDF5 file
//! or its manifest, of the newest checkpoint or an older one); the search for the newest good
//! checkpoint must then return exactly what was committed under the sequence it returns, and
//! name the damaged file among the rejected ones unless the damage was harmless (the same
//! checkpoint, bit for bit). 600 cases, seeds fixed (a failure prints its case).
//!
//! And the distributed layout: 2 ranks each with their own files and the other's partner copies,
//! written in each mode; one file damaged (any rank, own or copy, HDF5 or manifest, mostly of the
//! newest checkpoint): the newest checkpoint stays complete (every rank has two copies), every
//! part read is exactly what its rank committed, and a damaged own file that was passed over is
//! named. 150 cases.

mod store_common;

use ops_resilience::store::dist::{partner_of, Layout};
use ops_resilience::store::{open_rank_stores, open_store, Checkpoint, StoreMode};
use std::path::{Path, PathBuf};
use store_common::{checkpoint, noise, APP};

/// The damage done to one file.
#[derive(Debug, Clone, Copy)]
enum Damage {
    /// XOR one byte at an offset (a fraction of the length) with a non-zero mask.
    Flip(f64, u8),
    /// Flip `n` bytes spread over the file.
    Flips(u64, usize),
    /// Cut the file to a fraction of its length.
    Truncate(f64),
    /// Append bytes.
    Extend(usize),
}

/// The damage of case `n`, drawn from its noise `r`.
fn damage_of(n: u64, r: &[u8]) -> Damage {
    let pick = |i: usize| f64::from(r[i]) / 256.0;
    match r[2] % 4 {
        0 => Damage::Flip(pick(3), r[4] | 1),
        1 => Damage::Flips(n, 1 + r[5] as usize % 8),
        2 => Damage::Truncate(pick(6)),
        _ => Damage::Extend(1 + (r[7] as usize) * 16),
    }
}

fn damage(path: &Path, how: Damage) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len.saturating_sub(1));
    match how {
        Damage::Flip(f, mask) => {
            let i = at(f, bytes.len());
            bytes[i] ^= mask;
        }
        Damage::Flips(seed, n) => {
            let r = noise(seed, 8 * n);
            for k in 0..n {
                let x = u64::from_le_bytes(r[8 * k..8 * k + 8].try_into().unwrap());
                let i = (x % bytes.len() as u64) as usize;
                bytes[i] ^= (x >> 56) as u8 | 1;
            }
        }
        Damage::Truncate(f) => bytes.truncate(at(f, bytes.len())),
        Damage::Extend(n) => bytes.extend(noise(n as u64, n)),
    }
    std::fs::write(path, bytes).unwrap();
}

/// The sequence number in a checkpoint file's name (`APP.ckpt.NNNNNN.rank0.*`); for a value
/// log generation (`APP.values.rankR.G`), the newest checkpoint beside it whose manifest names
/// it (the checkpoints here are unrelated histories: one generation each).
fn sequence_of(path: &Path) -> u64 {
    let name = path.file_name().unwrap().to_string_lossy();
    if name.contains(".values.") {
        let dir = path.parent().unwrap();
        return std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let p = e.ok()?.path();
                let text = std::fs::read_to_string(&p).ok()?;
                let m: serde_json::Value = serde_json::from_str(&text).ok()?;
                (m["values_file"] == *name).then(|| m["sequence"].as_u64())?
            })
            .max()
            .unwrap_or(0);
    }
    name.split('.').nth(2).unwrap().parse().unwrap()
}

/// Whether a rejection names the damaged file: its checkpoint's file, or (for a damaged value
/// log) any checkpoint rejected for reading it.
fn names(rejected_path: &Path, reason: &str, damaged: &Path) -> bool {
    let name = damaged.file_name().unwrap().to_string_lossy();
    !reason.is_empty()
        && if name.contains(".values.") {
            reason.contains(&*name)
        } else {
            sequence_of(rejected_path) == sequence_of(damaged)
        }
}

/// One case: checkpoints 1..=3 committed in `mode`, one file damaged, then judged.
fn case(n: u64) -> Result<(), String> {
    let mode = [StoreMode::Blocking, StoreMode::Thread, StoreMode::Memory][(n % 3) as usize];
    let r = noise(n ^ 0xfa11, 16);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    {
        let mut store = open_store(mode, dir, APP, 3).unwrap();
        for seq in 1..=3 {
            store.commit(checkpoint(seq)).unwrap();
        }
        store.flush().unwrap();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{mode:?}: no checkpoint file written"));
    }
    // Mostly the newest checkpoint's files (what a restart reads first).
    let newest = sequence_of(files.last().unwrap());
    let candidates: Vec<&PathBuf> = if r[0] < 200 {
        files.iter().filter(|p| sequence_of(p) == newest).collect()
    } else {
        files.iter().collect()
    };
    let target = candidates[r[1] as usize % candidates.len()].clone();
    let how = damage_of(n, &r);
    damage(&target, how);
    let what = format!(
        "case {n}: {mode:?}, {how:?} on {}",
        target.file_name().unwrap().to_string_lossy()
    );

    let store = open_store(mode, dir, APP, 3).unwrap();
    let found = store
        .find_latest()
        .map_err(|e| format!("{what}: the search failed: {e}"))?;
    let damaged = sequence_of(&target);
    let named = found
        .rejected
        .iter()
        .any(|r| names(&r.path, &r.reason, &target));
    match &found.checkpoint {
        Some(ck) => {
            let seq = ck.meta.sequence;
            if *ck != checkpoint(seq) {
                return Err(format!(
                    "{what}: checkpoint {seq} was returned with other contents"
                ));
            }
            if seq == damaged {
                // Harmless damage only: the bytes returned are the committed ones (checked).
            } else if seq < damaged && !named {
                return Err(format!(
                    "{what}: fell back to {seq} without naming the damaged file ({:?})",
                    found.rejected
                ));
            } else if seq > damaged && seq != newest {
                return Err(format!("{what}: returned {seq}, the newest is {newest}"));
            }
        }
        None => {
            if !named {
                return Err(format!(
                    "{what}: nothing returned and the damaged file not named ({:?})",
                    found.rejected
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn damaged_checkpoint_files_are_rejected_by_name_and_never_restored_wrong() {
    let failures: Vec<String> = (0..600).filter_map(|n| case(n).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of 600 cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Rank `rank`'s part of checkpoint `seq` of 2 processes (regions shifted so the parts differ).
fn part(seq: u64, rank: usize) -> Checkpoint {
    let mut ck = checkpoint(seq);
    ck.meta.rank = rank;
    ck.meta.ranks = 2;
    for d in &mut ck.dats {
        for r in &mut d.regions {
            r.lo[2] += 100 * rank as i32;
            r.hi[2] += 100 * rank as i32;
        }
    }
    ck
}

/// Every file under `dir`, sorted.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(all_files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// One distributed case (see the module docs).
fn dist_case(n: u64) -> Result<(), String> {
    let mode = [StoreMode::Blocking, StoreMode::Thread, StoreMode::Memory][(n % 3) as usize];
    let r = noise(n ^ 0xd157, 16);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for k in 0..2 {
        let mut s = open_rank_stores(mode, dir, APP, 3, k, 2).unwrap();
        let partner = s.partner.as_mut().expect("a partner store");
        for seq in 1..=3 {
            s.own.commit(part(seq, k)).unwrap();
            partner.commit(part(seq, partner_of(k, 2))).unwrap();
        }
        s.own.flush().unwrap();
        partner.flush().unwrap();
    }
    let files = all_files(dir);
    let newest: Vec<&PathBuf> = files.iter().filter(|p| sequence_of(p) == 3).collect();
    // (Value logs are named for the checkpoint using them, read before any damage.)
    let target = if r[0] < 200 {
        newest[r[1] as usize % newest.len()].clone()
    } else {
        files[r[1] as usize % files.len()].clone()
    };
    let how = damage_of(n, &r);
    damage(&target, how);
    let what = format!(
        "distributed case {n}: {mode:?}, {how:?} on {}",
        target.strip_prefix(dir).unwrap().display()
    );
    let same_file = |p: &Path, reason: &str| {
        let value_log = target.to_string_lossy().contains(".values.");
        p.parent() == target.parent()
            && if value_log {
                names(p, reason, &target)
            } else {
                p.file_stem() == target.file_stem()
            }
    };
    let search = Layout::new(dir, APP)
        .newest_complete(u64::MAX)
        .map_err(|e| format!("{what}: the search failed: {e}"))?;
    let set = search
        .complete
        .ok_or_else(|| format!("{what}: nothing complete ({:?})", search.rejected))?;
    if set.sequence != 3 {
        return Err(format!(
            "{what}: checkpoint {} restored, 3 has a good copy of every part ({:?})",
            set.sequence, search.rejected
        ));
    }
    for p in &set.parts {
        if p.checkpoint != part(3, p.rank) {
            return Err(format!(
                "{what}: rank {}'s part was read with other contents from {}",
                p.rank,
                p.path.display()
            ));
        }
        if p.partner {
            let why = p.own_rejected.as_ref();
            if !why.is_some_and(|w| same_file(&w.path, &w.reason) && !w.reason.is_empty()) {
                return Err(format!(
                    "{what}: rank {}'s copy used without naming the damaged own file ({why:?})",
                    p.rank
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn damaged_files_of_a_two_rank_checkpoint_leave_it_complete_and_exact() {
    let failures: Vec<String> = (0..150).filter_map(|n| dist_case(n).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of 150 cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
