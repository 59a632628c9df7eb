//! Write bandwidth of the stores for a ~30 MB checkpoint (ignored by default; run in release):
//! `cargo test --release -p ops-resilience --test store_bench -- --ignored --nocapture`.
//! `OPS_BENCH_DIR` picks the directory (default: a temporary one).

mod store_common;

use ops_core::ElemType;
use ops_resilience::store::{
    Checkpoint, CheckpointStore, Hdf5Store, MemoryStore, SavedDat, ThreadStore,
};
use std::time::{Duration, Instant};
use store_common::{checkpoint, region, APP};

const ROUNDS: u64 = 5;

/// The test checkpoint plus four 2-D f64 datasets of 1000 x 960 in two boxes each: 30.7 MB.
fn big(seq: u64) -> Checkpoint {
    let mut ck = checkpoint(seq);
    for d in 0..4 {
        ck.dats.push(SavedDat {
            name: format!("big/field{d}"),
            elem: ElemType::F64,
            components: 1,
            regions: vec![
                region(seq * 10 + d, [0, 0, 0], [1000, 900, 1], ElemType::F64, 1),
                region(
                    seq * 10 + d + 5,
                    [0, 900, 0],
                    [1000, 960, 1],
                    ElemType::F64,
                    1,
                ),
            ],
        });
    }
    ck
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mean(v: &[Duration]) -> Duration {
    v.iter().sum::<Duration>() / v.len() as u32
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn write_bandwidth_30mb() {
    let tmp =
        tempfile::tempdir_in(std::env::var_os("OPS_BENCH_DIR").unwrap_or("/tmp".into())).unwrap();
    let cks: Vec<Checkpoint> = (1..=4 * ROUNDS).map(big).collect();
    let mb = cks[0].data_bytes() as f64 / 1e6;
    println!("checkpoint: {mb:.1} MB of data, {ROUNDS} commits per mode");
    let mut next = cks.into_iter();

    // Blocking: the caller waits for the whole atomic commit.
    let dir = tmp.path().join("blocking");
    let mut store = Hdf5Store::new(&dir, APP, 2).unwrap();
    let mut writes = Vec::new();
    let mut size = 0;
    for ck in next.by_ref().take(ROUNDS as usize) {
        let s = store.commit(ck).unwrap();
        size = s.bytes_written;
        writes.push(s.write);
    }
    let w = mean(&writes);
    println!(
        "blocking: stall = write {:.1} ms mean (min {:.1}), file {:.1} MB, {:.0} MB/s",
        ms(w),
        ms(*writes.iter().min().unwrap()),
        size as f64 / 1e6,
        size as f64 / 1e6 / w.as_secs_f64()
    );
    let found = store.find_latest().unwrap();
    println!(
        "find_latest (read + verify): {:.1} ms, {:.0} MB/s",
        ms(found.read),
        size as f64 / 1e6 / found.read.as_secs_f64()
    );

    // Thread offload, with 200 ms of "compute" between commits (the writer keeps up), then
    // back to back (the queue fills and commit blocks).
    for (label, gap) in [("gap 200 ms", 200), ("back to back", 0)] {
        let dir = tmp.path().join(format!("thread{gap}"));
        let mut store = ThreadStore::new(&dir, APP, 2).unwrap();
        let base = store.next_sequence().unwrap();
        let mut stalls = Vec::new();
        let start = Instant::now();
        for (i, mut ck) in (0..ROUNDS).zip(next.by_ref()) {
            ck.meta.sequence = base + i;
            stalls.push(store.commit(ck).unwrap().stall);
            std::thread::sleep(Duration::from_millis(gap));
        }
        store.flush().unwrap();
        let total = start.elapsed();
        let done = store.completed();
        let writes: Vec<Duration> = done.iter().map(|(_, s)| s.write).collect();
        let w = mean(&writes);
        println!(
            "thread ({label}): stall {:.3} ms mean (max {:.3}), write {:.1} ms mean on the \
             writer ({:.0} MB/s), {} commits in {:.0} ms",
            ms(mean(&stalls)),
            ms(*stalls.iter().max().unwrap()),
            ms(w),
            done[0].1.bytes_written as f64 / 1e6 / w.as_secs_f64(),
            done.len(),
            ms(total)
        );
    }

    // Memory: commit moves it in; flush writes it.
    let dir = tmp.path().join("memory");
    let mut store = MemoryStore::new(&dir, APP, 2).unwrap();
    let mut stalls = Vec::new();
    for ck in next.by_ref() {
        stalls.push(store.commit(ck).unwrap().stall);
    }
    let start = Instant::now();
    store.flush().unwrap();
    println!(
        "memory: stall {:.4} ms mean, write at flush {:.1} ms",
        ms(mean(&stalls)),
        ms(start.elapsed())
    );
}
