//! The distributed layout on disk: per-rank stores and partner stores, which sequences are
//! complete (own files, partner copies, any mix of process counts), checksum rejection of a
//! corrupt partner copy, merging the ranks' files, and the message a checkpoint travels in.

mod store_common;

use ops_resilience::store::dist::{partner_of, CompleteSet, Layout};
use ops_resilience::store::{
    open_rank_stores, partner_dir, rank_dir, wire, Checkpoint, CheckpointStore, Hdf5Store,
    StoreError, StoreMode,
};
use std::path::{Path, PathBuf};
use store_common::{checkpoint, files, APP};

/// Rank `rank`'s part of checkpoint `seq` of `ranks` processes: the common checkpoint with the
/// rank recorded, and each region shifted so that the ranks' boxes differ.
fn part(seq: u64, rank: usize, ranks: usize) -> Checkpoint {
    let mut ck = checkpoint(seq);
    ck.meta.rank = rank;
    ck.meta.ranks = ranks;
    for d in &mut ck.dats {
        for r in &mut d.regions {
            r.lo[2] += 100 * rank as i32;
            r.hi[2] += 100 * rank as i32;
        }
    }
    ck
}

/// Writes checkpoint `seq` of `ranks` processes: own files for the ranks in `own`, partner
/// copies for the ranks in `copies`.
fn write(dir: &Path, seq: u64, ranks: usize, own: &[usize], copies: &[usize]) {
    for &k in own {
        let mut s = Hdf5Store::for_rank(&rank_dir(dir, k, ranks), APP, 10, k).unwrap();
        s.commit(part(seq, k, ranks)).unwrap();
    }
    for &k in copies {
        let holder = (k + 1) % ranks;
        let mut s = Hdf5Store::for_rank(&partner_dir(dir, holder), APP, 10, k).unwrap();
        s.commit(part(seq, k, ranks)).unwrap();
    }
}

fn own_h5(dir: &Path, k: usize, seq: u64) -> PathBuf {
    dir.join(format!("rank-{k}/{APP}.ckpt.{seq:06}.rank{k}.h5"))
}

fn copy_h5(dir: &Path, k: usize, ranks: usize, seq: u64) -> PathBuf {
    partner_dir(dir, (k + 1) % ranks).join(format!("{APP}.ckpt.{seq:06}.rank{k}.h5"))
}

fn complete(dir: &Path, at_most: u64) -> Option<CompleteSet> {
    Layout::new(dir, APP)
        .newest_complete(at_most)
        .unwrap()
        .complete
}

#[test]
fn directory_names() {
    let d = Path::new("/ck");
    assert_eq!(rank_dir(d, 0, 1), Path::new("/ck"));
    assert_eq!(rank_dir(d, 0, 2), Path::new("/ck/rank-0"));
    assert_eq!(rank_dir(d, 11, 12), Path::new("/ck/rank-11"));
    assert_eq!(partner_dir(d, 0), Path::new("/ck/rank-0/partner"));
    assert_eq!(partner_of(0, 4), 3);
    assert_eq!(partner_of(3, 4), 2);
    assert_eq!(partner_of(0, 1), 0);
}

#[test]
fn rank_stores_write_where_they_should() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for mode in [StoreMode::Blocking, StoreMode::Thread, StoreMode::Memory] {
        let d = dir.join(mode.to_string());
        let mut s = open_rank_stores(mode, &d, APP, 2, 1, 3).unwrap();
        for seq in 1..=3 {
            s.own.commit(part(seq, 1, 3)).unwrap();
            s.partner
                .as_mut()
                .expect("a partner store")
                .commit(part(seq, 0, 3))
                .unwrap();
        }
        if mode == StoreMode::Blocking {
            // A checkpoint of another rank is refused.
            let err = s.own.commit(part(4, 2, 3)).unwrap_err();
            assert!(matches!(err, StoreError::Invalid(_)), "{err}");
        }
        s.own.flush().unwrap();
        s.partner.as_mut().unwrap().flush().unwrap();
        let keep = if mode == StoreMode::Memory { 1 } else { 2 };
        // Checkpoint files only: the value log generations (one per history here, the test's
        // checkpoints being unrelated) are pruned with the checkpoints naming them.
        let checkpoint_files = |p: &std::path::Path| -> Vec<String> {
            let all = files(p);
            let values = all.iter().filter(|f| f.contains(".values.")).count();
            assert_eq!(
                values,
                keep,
                "{mode}: value logs in {}: {all:?}",
                p.display()
            );
            all.into_iter()
                .filter(|f| !f.contains(".values."))
                .collect()
        };
        let own = checkpoint_files(&d.join("rank-1"));
        let copies = checkpoint_files(&d.join("rank-1/partner"));
        assert_eq!(own.len(), 2 * keep + 1, "{mode}: {own:?}");
        assert!(own.contains(&format!("{APP}.ckpt.000003.rank1.h5")));
        assert_eq!(copies.len(), 2 * keep, "{mode}: {copies:?}");
        assert!(copies.contains(&format!("{APP}.ckpt.000003.rank0.json")));
        // A manifest of a distributed checkpoint records the rank and the process count.
        let m = std::fs::read_to_string(d.join(format!("rank-1/{APP}.ckpt.000003.rank1.json")))
            .unwrap();
        assert!(
            m.contains("\"rank\": 1") && m.contains("\"ranks\": 3"),
            "{m}"
        );
    }
    // A single process: exactly the store it always had.
    let s = open_rank_stores(StoreMode::Blocking, &dir.join("one"), APP, 2, 0, 1).unwrap();
    assert!(s.partner.is_none());
}

#[test]
fn complete_sequences_own_files_partner_copies_and_process_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // 1: a single process's checkpoint (flat layout).
    let mut flat = Hdf5Store::new(dir, APP, 10).unwrap();
    flat.commit(checkpoint(1)).unwrap();
    // 2: three processes, every own file.
    write(dir, 2, 3, &[0, 1, 2], &[0, 1, 2]);
    // 3: two processes (the run restarted on fewer), rank 0's own file never written but
    //    its copy is in rank 1's partner directory.
    write(dir, 3, 2, &[1], &[0]);
    // 4: three processes, rank 2 has neither.
    write(dir, 4, 3, &[0, 1], &[0, 1]);

    let layout = Layout::new(dir, APP);
    assert_eq!(layout.rank_dirs().unwrap(), [0, 1, 2]);
    assert_eq!(layout.max_sequence().unwrap(), Some(4));

    let found = layout.newest_complete(u64::MAX).unwrap();
    let set = found.complete.clone().unwrap();
    assert_eq!((set.sequence, set.ranks), (3, 2));
    assert!(set.parts[0].partner && !set.parts[1].partner);
    assert_eq!(set.parts[0].path, copy_h5(dir, 0, 2, 3));
    assert_eq!(set.parts[1].path, own_h5(dir, 1, 3));
    let text = format!("{:?}", found.rejected);
    assert!(
        text.contains(&format!(
            "rank 2: no checkpoint file for sequence 4 in {} and no partner copy in {}",
            dir.join("rank-2").display(),
            dir.join("rank-0/partner").display()
        )),
        "{text}"
    );

    // Merged: rank 0's metadata and log, every rank's boxes.
    let merged = set.merge().unwrap();
    let (a, b) = (part(3, 0, 2), part(3, 1, 2));
    assert_eq!(merged.meta.loop_index, a.meta.loop_index);
    assert_eq!(merged.queries, a.queries);
    assert_eq!(merged.payload, a.payload);
    for (i, d) in merged.dats.iter().enumerate() {
        let mut want = a.dats[i].regions.clone();
        want.extend(b.dats[i].regions.clone());
        assert_eq!(d.regions, want, "{}", d.name);
    }

    // At most 2: the three-process checkpoint; at most 1: the single process's.
    assert_eq!(complete(dir, 2).unwrap().ranks, 3);
    let one = complete(dir, 1).unwrap();
    assert_eq!((one.sequence, one.ranks), (1, 1));
    assert_eq!(
        one.parts[0].path,
        dir.join(format!("{APP}.ckpt.000001.rank0.h5"))
    );
    assert!(one.merge().unwrap() == checkpoint(1));
    assert!(complete(dir, 0).is_none());
}

/// Flips one byte in the middle of the largest region's data, found through the manifest
/// and the file's own layout (the file keeps its size, so only the checksum can tell).
fn corrupt(path: &Path) {
    let file = hdf5::File::open_rw(path).unwrap();
    let ds = file.dataset("dats/clover__xvel/r0").unwrap();
    let mut v: Vec<f64> = ds.read_raw().unwrap();
    let mid = v.len() / 2;
    v[mid] = f64::from_bits(v[mid].to_bits() ^ 1);
    ds.write_raw(&v).unwrap();
    drop(ds);
    file.close().unwrap();
}

#[test]
fn a_corrupt_partner_copy_is_rejected_by_its_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, 1, 2, &[0, 1], &[0, 1]);
    write(dir, 2, 2, &[0], &[0, 1]);
    // Rank 1's own file of 2 is missing; its partner copy serves...
    let set = complete(dir, u64::MAX).unwrap();
    assert_eq!(set.sequence, 2);
    assert!(set.parts[1].partner);
    // ... until it is damaged: then 2 is incomplete and 1 is the newest complete.
    let copy = copy_h5(dir, 1, 2, 2);
    corrupt(&copy);
    let found = Layout::new(dir, APP).newest_complete(u64::MAX).unwrap();
    assert_eq!(found.complete.unwrap().sequence, 1);
    let r = found
        .rejected
        .iter()
        .find(|r| r.path == copy)
        .expect("the copy is rejected by name");
    assert!(r.reason.contains("crc32"), "{}", r.reason);
    // A damaged own file with a good partner copy: the copy serves, the file is reported.
    write(dir, 3, 2, &[0, 1], &[0, 1]);
    corrupt(&own_h5(dir, 0, 3));
    let found = Layout::new(dir, APP).newest_complete(u64::MAX).unwrap();
    let set = found.complete.unwrap();
    assert_eq!(set.sequence, 3);
    assert!(set.parts[0].partner);
    assert!(set.parts[0]
        .own_rejected
        .as_ref()
        .unwrap()
        .reason
        .contains("crc32"));
    assert!(found.rejected.iter().any(|r| r.path == own_h5(dir, 0, 3)));
}

#[test]
fn a_file_in_the_wrong_place_or_of_another_run_is_not_used() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, 1, 2, &[0, 1], &[]);
    // Rank 1's file copied into rank 0's place with its manifest edited to name it: the edit
    // breaks the manifest's own checksum (behind which /meta's rank is checked too), so rank 0
    // has no file.
    let (src, dst) = (own_h5(dir, 1, 1), own_h5(dir, 0, 1));
    std::fs::copy(&src, &dst).unwrap();
    let m = std::fs::read_to_string(src.with_extension("json")).unwrap();
    std::fs::write(
        dst.with_extension("json"),
        m.replace(
            &format!("{APP}.ckpt.000001.rank1.h5"),
            &format!("{APP}.ckpt.000001.rank0.h5"),
        ),
    )
    .unwrap();
    let found = Layout::new(dir, APP).newest_complete(u64::MAX).unwrap();
    assert!(found.complete.is_none());
    assert!(
        found
            .rejected
            .iter()
            .any(|r| r.reason.contains("manifest damaged")),
        "{:?}",
        found.rejected
    );

    // Files of one sequence taken at different loops cannot be merged.
    let dir = &tmp.path().join("mixed");
    write(dir, 1, 2, &[0], &[]);
    let mut other = part(1, 1, 2);
    other.meta.loop_index += 1;
    Hdf5Store::for_rank(&rank_dir(dir, 1, 2), APP, 2, 1)
        .unwrap()
        .commit(other)
        .unwrap();
    let err = complete(dir, u64::MAX).unwrap().merge().unwrap_err();
    assert!(
        err.contains("rank 1") && err.contains("delete the directory"),
        "{err}"
    );
}

#[test]
fn the_partner_message_round_trips() {
    for ck in [checkpoint(3), part(5, 2, 4)] {
        let msg = wire::encode(&ck);
        assert!(wire::decode(&msg).unwrap() == ck);
        let mut bad = msg.clone();
        let at = bad.len() / 2;
        bad[at] ^= 0x40;
        assert!(matches!(wire::decode(&bad), Err(StoreError::Corrupt(_))));
        assert!(wire::decode(&msg[..msg.len() - 1]).is_err());
        assert!(wire::decode(&[]).is_err());
    }
}
