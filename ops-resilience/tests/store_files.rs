//! The checkpoint stores on disk: round trips in every mode, keep-K, verification and rejection
//! of corrupt, truncated, foreign-version and incomplete checkpoints, h5dump readability.

mod store_common;

use ops_resilience::store::{
    open_store, CheckpointStore, Hdf5Store, MemoryStore, StoreError, StoreMode, ThreadStore,
};
use std::path::{Path, PathBuf};
use store_common::{checkpoint, files, APP};

fn h5(dir: &Path, seq: u64) -> PathBuf {
    dir.join(format!("{APP}.ckpt.{seq:06}.rank0.h5"))
}

fn manifest(dir: &Path, seq: u64) -> PathBuf {
    dir.join(format!("{APP}.ckpt.{seq:06}.rank0.json"))
}

/// The checkpoint files of a directory (its value log generations left out).
fn checkpoint_files(dir: &Path) -> Vec<String> {
    files(dir)
        .into_iter()
        .filter(|f| !f.contains(".values."))
        .collect()
}

/// The value log generations of a directory.
fn value_logs(dir: &Path) -> Vec<String> {
    files(dir)
        .into_iter()
        .filter(|f| f.contains(".values."))
        .collect()
}

#[test]
fn round_trip_in_every_mode() {
    for mode in [StoreMode::Blocking, StoreMode::Thread, StoreMode::Memory] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ckpt");
        let mut store = open_store(mode, &dir, APP, 2).unwrap();
        assert_eq!(store.next_sequence().unwrap(), 1);
        for seq in 1..=3 {
            let stats = store.commit(checkpoint(seq)).unwrap();
            if mode == StoreMode::Blocking {
                assert_eq!(stats.path.as_deref(), Some(h5(&dir, seq).as_path()));
                assert!(stats.bytes_written > 0);
            }
            assert_eq!(store.next_sequence().unwrap(), seq + 1, "{mode}");
        }
        store.flush().unwrap();
        let found = store.find_latest().unwrap();
        assert_eq!(found.rejected, vec![], "{mode}");
        let got = found.checkpoint.expect("a checkpoint");
        assert!(got == checkpoint(3), "{mode}: not bitwise equal");
        match mode {
            StoreMode::Memory => assert_eq!(
                checkpoint_files(&dir),
                [
                    "testapp.ckpt.000003.rank0.h5",
                    "testapp.ckpt.000003.rank0.json"
                ]
            ),
            _ => assert_eq!(
                checkpoint_files(&dir).len(),
                4,
                "{mode}: keep 2: {:?}",
                files(&dir)
            ),
        }
        if mode == StoreMode::Thread {
            let done = store.completed();
            let seqs: Vec<u64> = done.iter().map(|(s, _)| *s).collect();
            assert_eq!(seqs, [1, 2, 3]);
            for (seq, stats) in &done {
                assert!(stats.bytes_written > 0 && !stats.write.is_zero());
                assert_eq!(stats.path.as_deref(), Some(h5(&dir, *seq).as_path()));
            }
        }
    }
}

#[test]
fn keep_k_deletes_older_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Hdf5Store::new(tmp.path(), APP, 2).unwrap();
    for seq in 1..=5 {
        store.commit(checkpoint(seq)).unwrap();
    }
    // Older checkpoints are deleted in the background; `flush` waits for that.
    store.flush().unwrap();
    assert_eq!(
        checkpoint_files(tmp.path()),
        [
            "testapp.ckpt.000004.rank0.h5",
            "testapp.ckpt.000004.rank0.json",
            "testapp.ckpt.000005.rank0.h5",
            "testapp.ckpt.000005.rank0.json"
        ]
    );
    // The test's checkpoints are unrelated histories, a value log generation each: those the
    // kept checkpoints name stay, the others go with their checkpoints.
    assert_eq!(
        value_logs(tmp.path()),
        ["testapp.values.rank0.4", "testapp.values.rank0.5"]
    );
    let mut one = Hdf5Store::new(tmp.path(), APP, 1).unwrap();
    one.commit(checkpoint(6)).unwrap();
    one.flush().unwrap();
    assert_eq!(checkpoint_files(tmp.path()).len(), 2);
    assert_eq!(value_logs(tmp.path()), ["testapp.values.rank0.6"]);
    assert!(Hdf5Store::new(tmp.path(), APP, 0).is_err());
}

#[test]
fn other_apps_files_are_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let mut a = Hdf5Store::new(tmp.path(), APP, 1).unwrap();
    let mut b = Hdf5Store::new(tmp.path(), "other", 1).unwrap();
    let mut other = checkpoint(7);
    other.meta.app = "other".into();
    b.commit(other.clone()).unwrap();
    a.commit(checkpoint(1)).unwrap();
    a.commit(checkpoint(2)).unwrap();
    a.flush().unwrap();
    assert_eq!(checkpoint_files(tmp.path()).len(), 4);
    assert_eq!(
        value_logs(tmp.path()),
        ["other.values.rank0.1", "testapp.values.rank0.2"]
    );
    assert_eq!(a.next_sequence().unwrap(), 3);
    assert_eq!(b.find_latest().unwrap().checkpoint, Some(other));
}

/// Offset and length of a contiguous dataset's data in its file.
fn data_extent(file: &Path, dataset: &str) -> (u64, u64) {
    // Without HDF5's file lock: h5dump, spawned by another test, may have inherited it.
    let f = hdf5::File::with_options()
        .with_fapl(|p| p.file_locking(false))
        .open(file)
        .unwrap();
    let ds = f.dataset(dataset).unwrap();
    (ds.offset().expect("contiguous"), ds.storage_size())
}

#[test]
fn corrupt_file_is_rejected_by_name_and_the_previous_one_returned() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Hdf5Store::new(tmp.path(), APP, 3).unwrap();
    store.commit(checkpoint(1)).unwrap();
    store.commit(checkpoint(2)).unwrap();
    let file = h5(tmp.path(), 2);
    let (offset, len) = data_extent(&file, "/dats/cube__flags/r0");
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = (offset + len / 2) as usize;
    bytes[mid] ^= 0x5a;
    bytes[mid + 1] ^= 0x01;
    std::fs::write(&file, &bytes).unwrap();

    let found = store.find_latest().unwrap();
    assert_eq!(found.checkpoint, Some(checkpoint(1)));
    assert_eq!(found.rejected.len(), 1);
    let r = &found.rejected[0];
    assert_eq!(r.path, file);
    // The whole file's checksum catches it before HDF5 reads a byte.
    assert!(
        r.reason.starts_with("damaged: crc32") && r.reason.contains("the manifest says"),
        "{}",
        r.reason
    );
    println!("rejected {}: {}", r.path.display(), r.reason);
}

#[test]
fn truncated_file_is_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Hdf5Store::new(tmp.path(), APP, 3).unwrap();
    store.commit(checkpoint(1)).unwrap();
    store.commit(checkpoint(2)).unwrap();
    let file = h5(tmp.path(), 2);
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let found = store.find_latest().unwrap();
    assert_eq!(found.checkpoint, Some(checkpoint(1)));
    assert_eq!(found.rejected.len(), 1);
    assert_eq!(found.rejected[0].path, file);
    assert!(
        found.rejected[0].reason.starts_with("truncated"),
        "{:?}",
        found.rejected
    );
    println!("rejected: {:?}", found.rejected[0]);

    // Truncated and the manifest rewritten to match: the manifest's own checksum notices.
    let m = manifest(tmp.path(), 2);
    let text = std::fs::read_to_string(&m).unwrap();
    let text = text.replace(
        &format!("\"file_size\": {len}"),
        &format!("\"file_size\": {}", len / 2),
    );
    std::fs::write(&m, text).unwrap();
    let found = store.find_latest().unwrap();
    assert_eq!(found.checkpoint, Some(checkpoint(1)));
    assert_eq!(found.rejected[0].path, m);
    assert!(
        found.rejected[0].reason.starts_with("manifest damaged"),
        "{:?}",
        found.rejected
    );
    println!("rejected: {:?}", found.rejected[0]);
}

#[test]
fn manifest_of_another_format_version_is_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Hdf5Store::new(tmp.path(), APP, 3).unwrap();
    store.commit(checkpoint(1)).unwrap();
    store.commit(checkpoint(2)).unwrap();
    let m = manifest(tmp.path(), 2);
    let text = std::fs::read_to_string(&m).unwrap();
    let ours = format!(
        "\"format_version\": {},",
        ops_resilience::store::FORMAT_VERSION
    );
    assert!(text.contains(&ours));
    std::fs::write(&m, text.replace(&ours, "\"format_version\": 99,")).unwrap();
    let found = store.find_latest().unwrap();
    assert_eq!(found.checkpoint, Some(checkpoint(1)));
    assert_eq!(found.rejected.len(), 1);
    assert_eq!(found.rejected[0].path, m);
    assert!(
        found.rejected[0].reason.contains("format version 99"),
        "{:?}",
        found.rejected
    );

    std::fs::write(&m, "{ not json").unwrap();
    let found = store.find_latest().unwrap();
    assert_eq!(found.checkpoint, Some(checkpoint(1)));
    assert_eq!(found.rejected[0].path, m);
    assert!(
        found.rejected[0].reason.contains("not JSON"),
        "{:?}",
        found.rejected
    );
}

#[test]
fn leftover_temporary_file_is_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut store = Hdf5Store::new(dir, APP, 1).unwrap();
    store.commit(checkpoint(1)).unwrap();
    store.commit(checkpoint(2)).unwrap();
    // An older leftover: not reported.
    let old = dir.join(format!("{APP}.ckpt.000001.rank0.h5.tmp"));
    std::fs::write(&old, b"partial").unwrap();
    let found = store.find_latest().unwrap();
    assert_eq!(found.rejected, vec![]);
    assert_eq!(found.checkpoint, Some(checkpoint(2)));
    // A newer one: reported as an incomplete write, the complete one returned.
    let new = dir.join(format!("{APP}.ckpt.000003.rank0.h5.tmp"));
    std::fs::write(&new, b"partial").unwrap();
    let found = store.find_latest().unwrap();
    assert_eq!(found.checkpoint, Some(checkpoint(2)));
    assert_eq!(found.rejected.len(), 1);
    assert_eq!(found.rejected[0].path, new);
    assert!(found.rejected[0].reason.contains("incomplete write"));
    // The sequence numbering steps over it; the next commit clears the leftovers.
    assert_eq!(store.next_sequence().unwrap(), 4);
    store.commit(checkpoint(4)).unwrap();
    store.flush().unwrap();
    assert_eq!(
        checkpoint_files(dir),
        [
            "testapp.ckpt.000004.rank0.h5",
            "testapp.ckpt.000004.rank0.json"
        ]
    );
}

#[test]
fn a_sequence_already_used_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Hdf5Store::new(tmp.path(), APP, 2).unwrap();
    store.commit(checkpoint(3)).unwrap();
    for seq in [1, 3] {
        let err = store.commit(checkpoint(seq)).unwrap_err();
        assert!(matches!(err, StoreError::Invalid(_)), "{err}");
        assert!(err.to_string().contains("next_sequence"), "{err}");
    }
    assert_eq!(store.find_latest().unwrap().checkpoint, Some(checkpoint(3)));
}

#[test]
fn a_region_of_the_wrong_size_is_refused_and_thread_mode_reports_it_by_number() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bad = checkpoint(1);
    bad.dats[1].regions[1].bytes.pop();
    let mut store = Hdf5Store::new(tmp.path(), APP, 2).unwrap();
    let err = store.commit(bad.clone()).unwrap_err();
    assert!(err.to_string().contains("/dats/clover__xvel/r1"), "{err}");

    // The writer's failure comes back under the checkpoint's own number, and the next
    // checkpoint is still written.
    let mut thread = ThreadStore::new(tmp.path(), APP, 2).unwrap();
    thread.commit(bad).unwrap();
    thread.flush().unwrap();
    let failed = thread.failed();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].0, 1);
    assert!(
        failed[0].1.to_string().contains("/dats/clover__xvel/r1"),
        "{}",
        failed[0].1
    );
    thread.commit(checkpoint(2)).unwrap();
    thread.flush().unwrap();
    assert!(thread.failed().is_empty());
    assert_eq!(
        thread.find_latest().unwrap().checkpoint,
        Some(checkpoint(2))
    );
}

#[test]
fn memory_mode_writes_on_flush_and_drop_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut store = MemoryStore::new(dir, APP, 2).unwrap();
    for seq in 1..=3 {
        let stats = store.commit(checkpoint(seq)).unwrap();
        assert_eq!(stats.bytes_written, 0);
    }
    assert_eq!(files(dir), Vec::<String>::new());
    assert_eq!(store.newest_sequence(), Some(3));
    assert_eq!(store.next_sequence().unwrap(), 4);
    store.flush().unwrap();
    store.flush().unwrap(); // nothing new: not written twice
    let done = store.completed();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].0, 3);
    assert_eq!(store.find_latest().unwrap().checkpoint, Some(checkpoint(3)));
    store.commit(checkpoint(4)).unwrap();
    drop(store);
    let reader = Hdf5Store::new(dir, APP, 2).unwrap();
    assert_eq!(
        reader.find_latest().unwrap().checkpoint,
        Some(checkpoint(4))
    );
}

#[test]
fn empty_directory_finds_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Hdf5Store::new(&tmp.path().join("a/b"), APP, 2).unwrap();
    let found = store.find_latest().unwrap();
    assert_eq!(found.checkpoint, None);
    assert_eq!(found.rejected, vec![]);
}

#[test]
fn h5dump_reads_the_file() {
    if std::process::Command::new("h5dump")
        .arg("--version")
        .output()
        .is_err()
    {
        return ops_testkit::skip("h5dump is not installed (apt-get install hdf5-tools)");
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Hdf5Store::new(tmp.path(), APP, 2).unwrap();
    store.commit(checkpoint(1)).unwrap();
    let file = h5(tmp.path(), 1);
    let run = |args: &[&str]| {
        let out = std::process::Command::new("h5dump")
            .args(args)
            .arg(&file)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "h5dump {args:?} failed: {}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };
    let header = run(&["-H", "-A"]);
    for needle in [
        "GROUP \"meta\"",
        "ATTRIBUTE \"format_version\"",
        "\"advection@apps/x/src/main.rs:120:9\"",
        "GROUP \"clover__xvel\"",
        "DATASET \"r0\"",
        "H5T_IEEE_F64LE",
        "H5T_IEEE_F32LE",
        "H5T_STD_I32LE",
        "DATASPACE  SIMPLE { ( 10, 13, 2 ) / ( 10, 13, 2 ) }",
        "DATASPACE  SIMPLE { ( 6, 5, 4 ) / ( 6, 5, 4 ) }",
        "\"clover/density0\"",
    ] {
        assert!(
            header.contains(needle),
            "h5dump -H -A lacks {needle:?}:\n{header}"
        );
    }
    // The values handed to the program live in the directory's value log, named in /meta.
    let meta = run(&["-g", "/meta"]);
    assert!(
        meta.contains("ATTRIBUTE \"values_file\"") && meta.contains("\"testapp.values.rank0.1\""),
        "{meta}"
    );
    let region = run(&["-d", "/dats/cube__flags/r1"]);
    println!("h5dump -g /meta:\n{meta}");
    println!("h5dump -d /dats/cube__flags/r1 (head):");
    for line in region.lines().take(24) {
        println!("{line}");
    }
}

/// Several threads of one process reading the same checkpoint at once (a distributed run's
/// ranks as threads, a library serving several runtimes) each get it whole. HDF5 shares one
/// file's state between the handles a process opens on it: without the store claiming a file
/// for the whole of one read (`FileInUse` in store/h5file.rs), a thread closing its handle
/// leaves another's read following a freed pointer: with the claim disabled this test died
/// with SIGSEGV inside HDF5 in 5 runs of 5 (8 threads, 200 reads each).
#[test]
fn threads_reading_one_checkpoint_at_once_each_get_it_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ckpt");
    let mut store = open_store(StoreMode::Blocking, &dir, APP, 2).unwrap();
    store.commit(checkpoint(1)).unwrap();
    let want = checkpoint(1);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                let store = Hdf5Store::new(&dir, APP, 2).unwrap();
                for _ in 0..200 {
                    let found = store.find_latest().unwrap();
                    assert_eq!(found.rejected, vec![]);
                    assert!(found.checkpoint.as_ref() == Some(&want));
                }
            });
        }
    });
}
