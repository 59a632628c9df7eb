//! Distributed checkpoints without MPI: P "processes" are P threads, each with its own runtime
//! over a fake distributed backend. Every thread computes the whole problem (so reductions and
//! fetches agree by construction) but owns only a slab of every dataset along x: snapshots save
//! only that slab, and a restart must upload every rank's boxes to get the whole state back.
//! The communicator is a set of channels between the threads.
//!
//! Checked: per-rank directories and file names, partner copies, owned-only snapshots, restart
//! with the same and with a different number of processes, the partner copy used when a
//! rank's own file is missing, a corrupt partner copy rejected by its checksums (falling back
//! to the previous checkpoint), nothing complete, and the per-rank JSON reports.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::Duration;

use ops_backends::prelude::*;
use ops_core::{Backend, BlockId, Comm, DatId, DatLayout, LoopPlan, Scalar};
use ops_resilience::store::{Hdf5Store, StoreMode};
use ops_resilience::Interval;
use ops_resilience::{install, ResilienceConfig, ResilienceExt};

// ------------------------------------------------------------------------------------------
// The fake distributed backend
// ------------------------------------------------------------------------------------------

struct ChanComm {
    rank: usize,
    size: usize,
    to: Vec<Sender<Vec<u8>>>,
    from: Vec<Receiver<Vec<u8>>>,
}

fn comm_err(what: &str) -> OpsError {
    OpsError::InvalidConfig(format!("fake communicator: {what}"))
}

impl ChanComm {
    fn recv(&self, from: usize) -> ops_core::Result<Vec<u8>> {
        self.from[from]
            .recv_timeout(Duration::from_secs(30))
            .map_err(|e| comm_err(&format!("rank {} waiting for rank {from}: {e}", self.rank)))
    }
}

impl Comm for ChanComm {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn all_gather(&mut self, mine: &[u8]) -> ops_core::Result<Vec<Vec<u8>>> {
        for j in 0..self.size {
            if j != self.rank {
                self.to[j]
                    .send(mine.to_vec())
                    .map_err(|_| comm_err("peer gone"))?;
            }
        }
        (0..self.size)
            .map(|j| {
                if j == self.rank {
                    Ok(mine.to_vec())
                } else {
                    self.recv(j)
                }
            })
            .collect()
    }
    fn ring_shift(&mut self, mine: &[u8]) -> ops_core::Result<Vec<u8>> {
        let next = (self.rank + 1) % self.size;
        let prev = (self.rank + self.size - 1) % self.size;
        self.to[next]
            .send(mine.to_vec())
            .map_err(|_| comm_err("peer gone"))?;
        self.recv(prev)
    }
}

/// Computes everything (on the sequential backend) but owns an x-slab of every dataset.
struct FakeDist {
    inner: Box<dyn Backend>,
    comm: ChanComm,
}

impl FakeDist {
    fn slab(&self, layout: &DatLayout) -> (i32, i32) {
        let (lo, hi) = (layout.lo()[0], layout.hi()[0]);
        let n = hi - lo;
        let (k, p) = (self.comm.rank as i64, self.comm.size as i64);
        ((lo + k * n / p) as i32, (lo + (k + 1) * n / p) as i32)
    }
}

impl Backend for FakeDist {
    fn name(&self) -> &'static str {
        "fake-dist"
    }
    fn alloc(&mut self, dat: DatId, layout: &DatLayout) -> ops_core::Result<()> {
        self.inner.alloc(dat, layout)
    }
    fn alloc_on(&mut self, _b: BlockId, dat: DatId, layout: &DatLayout) -> ops_core::Result<()> {
        self.inner.alloc(dat, layout)
    }
    fn free(&mut self, dat: DatId) {
        self.inner.free(dat)
    }
    fn upload(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        bytes: &[u8],
    ) -> ops_core::Result<()> {
        self.inner.upload(dat, layout, range, bytes)
    }
    fn download(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> ops_core::Result<()> {
        self.inner.download(dat, layout, range, out)
    }
    fn run(
        &mut self,
        kernel: &dyn ops_core::kernel::Kernel,
        plan: &LoopPlan<'_>,
        partials: &mut [Scalar],
    ) -> ops_core::Result<()> {
        self.inner.run(kernel, plan, partials)
    }
    fn comm(&mut self) -> Option<&mut dyn Comm> {
        (self.comm.size > 1).then_some(&mut self.comm as &mut dyn Comm)
    }
    fn owned_part(&self, _dat: DatId, layout: &DatLayout, range: &IterRange) -> IterRange {
        let (x0, x1) = self.slab(layout);
        let mut lo = range.lo();
        let mut hi = range.hi();
        lo[0] = lo[0].max(x0);
        hi[0] = hi[0].min(x1).max(lo[0]);
        IterRange::new(range.dims(), lo, hi).unwrap()
    }
    fn download_owned(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> ops_core::Result<()> {
        let (x0, x1) = self.slab(layout);
        assert!(
            range.lo()[0] >= x0 && range.hi()[0] <= x1,
            "download_owned outside the owned slab"
        );
        self.inner.download(dat, layout, range, out)
    }
}

/// Runs `f` on `p` threads, each with a runtime over its rank of a fake distributed backend.
fn run_ranks<T: Send>(p: usize, f: impl Fn(Ops) -> T + Sync) -> Vec<T> {
    let mut to: Vec<Vec<Sender<Vec<u8>>>> = (0..p).map(|_| Vec::new()).collect();
    let mut from: Vec<Vec<Option<Receiver<Vec<u8>>>>> =
        (0..p).map(|_| (0..p).map(|_| None).collect()).collect();
    for (i, senders) in to.iter_mut().enumerate() {
        for receivers in from.iter_mut() {
            let (s, r) = channel();
            senders.push(s);
            receivers[i] = Some(r);
        }
    }
    let comms: Vec<ChanComm> = to
        .into_iter()
        .zip(from)
        .enumerate()
        .map(|(rank, (to, from))| ChanComm {
            rank,
            size: p,
            to,
            from: from.into_iter().map(Option::unwrap).collect(),
        })
        .collect();
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = comms
            .into_iter()
            .map(|comm| {
                s.spawn(move || {
                    let backend = FakeDist {
                        inner: Box::new(ops_backends::SeqBackend::new()),
                        comm,
                    };
                    f(Ops::new(
                        OpsConfig::new(BackendKind::Seq),
                        Box::new(backend),
                    ))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

// ------------------------------------------------------------------------------------------
// The program
// ------------------------------------------------------------------------------------------

#[kernel]
fn fill(idx: Idx, out: Write<f64>, s: Global<f64>) {
    out[(0, 0)] = s + (idx[0] * 7 + idx[1]) as f64;
}

#[kernel]
fn step(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = 0.5 * a[(0, 0)] + 0.25 * (a[(1, 0)] + a[(-1, 0)]);
}

#[kernel]
fn acc(a: Read<f64>, b: ReadWrite<f64>, s: Global<f64>) {
    b[(0, 0)] = b[(0, 0)] + s * a[(0, 0)];
}

#[kernel]
fn total(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)];
}

const N: i32 = 16;
const STEPS: usize = 20;
const APP: &str = "dist";

/// A small time loop: start-up fills, then per step a stencil ping-pong through a scratch
/// array, a halo strip refreshed from the interior, and a reduction that feeds the next step.
/// Returns the reduction values and the final state of every dataset (halos included).
fn program(ops: &mut Ops) -> Outcome {
    program_with(ops, Duration::ZERO)
}

/// [`program`], sleeping `pause` in every step (processes that run at different speeds).
fn program_with(ops: &mut Ops, pause: Duration) -> Outcome {
    ops.checkpoint_location("b_to_a");
    let grid = ops.block("grid", 2).unwrap();
    let h = Halo::uniform(1);
    let a = ops.dat::<f64, 2>(&grid, "a", [N as usize; 2], h).unwrap();
    let b = ops.dat::<f64, 2>(&grid, "b", [N as usize; 2], h).unwrap();
    let scratch = ops
        .dat::<f64, 2>(&grid, "scratch", [N as usize; 2], h)
        .unwrap();
    let mesh = ops
        .dat::<f64, 2>(&grid, "mesh", [N as usize; 2], h)
        .unwrap();
    let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
    let line = ops.stencil("line", &[[0, 0], [1, 0], [-1, 0]]).unwrap();
    let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
    let all = [-1..N + 1, -1..N + 1];
    for (d, s, name) in [
        (&mesh, 0.5, "mesh"),
        (&a, 1.0, "init_a"),
        (&b, 2.0, "init_b"),
    ] {
        ops.par_loop(
            fill,
            name,
            &grid,
            all.clone(),
            &[Arg::idx(), d.arg(&pt, Write), Arg::global(s)],
        )
        .unwrap();
    }
    let inner = [0..N, 0..N];
    let mut sums = Vec::new();
    let mut scale = 0.125;
    for _ in 0..STEPS {
        std::thread::sleep(pause);
        ops.par_loop(
            step,
            "a_to_scratch",
            &grid,
            inner.clone(),
            &[a.arg(&line, Read), scratch.arg(&pt, Write)],
        )
        .unwrap();
        ops.par_loop(
            acc,
            "mesh_into_scratch",
            &grid,
            inner.clone(),
            &[
                mesh.arg(&pt, Read),
                scratch.arg(&pt, ReadWrite),
                Arg::global(scale),
            ],
        )
        .unwrap();
        ops.par_loop(
            step,
            "scratch_to_b",
            &grid,
            inner.clone(),
            &[scratch.arg(&line, Read), b.arg(&pt, Write)],
        )
        .unwrap();
        ops.par_loop(
            step,
            "b_to_a",
            &grid,
            inner.clone(),
            &[b.arg(&line, Read), a.arg(&pt, Write)],
        )
        .unwrap();
        // The halo columns of `a`, from the first and last interior columns.
        ops.par_loop(
            acc,
            "halo_left",
            &grid,
            [-1..0, 0..N],
            &[b.arg(&pt, Read), a.arg(&pt, ReadWrite), Arg::global(0.25)],
        )
        .unwrap();
        ops.par_loop(
            total,
            "total",
            &grid,
            inner.clone(),
            &[a.arg(&pt, Read), sum.arg()],
        )
        .unwrap();
        let s = ops.reduction_result(&sum).unwrap();
        scale = 0.125 + 1e-6 * s.fract();
        sums.push(s);
    }
    let state = [a, b, scratch, mesh]
        .iter()
        .map(|d| ops.fetch_range(d, all.clone()).unwrap())
        .collect();
    ops.finish().unwrap();
    (sums, state)
}

/// The reduction values a run received and its final state.
type Outcome = (Vec<f64>, Vec<Vec<f64>>);

fn reference() -> Outcome {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    program(&mut ops)
}

/// Checkpoints every 3rd step (a restart: every step, so that it checkpoints again before the
/// end).
fn cfg(dir: &Path, mode: StoreMode, restart: bool) -> ResilienceConfig {
    ResilienceConfig {
        dir: Some(dir.to_path_buf()),
        every: Some(if restart { 1 } else { 3 }),
        app: Some(APP.into()),
        mode,
        keep: 2,
        restart,
        diags_json: Some(dir.with_extension("json")),
        diags_png: None,
        ..ResilienceConfig::default()
    }
}

/// Runs the program on `p` ranks with `cfg`; every rank's results and its JSON report.
fn run(p: usize, cfg: &ResilienceConfig) -> Vec<(Outcome, serde_json::Value)> {
    let out = run_ranks(p, |mut ops| {
        let rank = ops.rank();
        assert!(install(&mut ops, cfg).unwrap());
        let res = program(&mut ops);
        (rank, res)
    });
    out.into_iter()
        .map(|(rank, res)| {
            let json = ops_resilience::diags::json_path(cfg.diags_json.as_ref().unwrap(), rank);
            let v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
            assert_eq!(v["rank"], rank);
            assert_eq!(v["ranks"], p);
            (res, v)
        })
        .collect()
}

/// The checkpoint files and folders in `dir` (not the run's lock file, `APP.lock`).
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    v.sort();
    v
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn h5(dir: &Path, rank: usize, seq: u64) -> PathBuf {
    dir.join(format!("rank-{rank}"))
        .join(format!("{APP}.ckpt.{seq:06}.rank{rank}.h5"))
}

fn partner_h5(dir: &Path, holder: usize, of: usize, seq: u64) -> PathBuf {
    dir.join(format!("rank-{holder}/partner"))
        .join(format!("{APP}.ckpt.{seq:06}.rank{of}.h5"))
}

/// A first run on 2 ranks: its directory (a pristine copy to start each scenario from) and its
/// checkpoints' sequences.
fn first_run(tmp: &Path, mode: StoreMode) -> (PathBuf, Vec<u64>) {
    let dir = tmp.join(format!("ck-{mode}"));
    let reference = reference();
    let runs = run(2, &cfg(&dir, mode, false));
    for ((sums, state), json) in &runs {
        assert_eq!(sums, &reference.0);
        assert!(state == &reference.1, "results change with checkpointing");
        assert!(json["checkpoints"].as_array().unwrap().len() >= 4, "{json}");
    }
    let seqs: Vec<u64> = runs[0].1["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["sequence"].as_u64().unwrap())
        .collect();
    // The same sequence numbers on both ranks, every checkpoint with a partner copy.
    let seqs1: Vec<u64> = runs[1].1["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, seqs1);
    for (_, json) in &runs {
        for c in json["checkpoints"].as_array().unwrap() {
            assert!(c["partner"].is_string(), "{c}");
        }
    }
    (dir, seqs)
}

#[test]
fn layout_partner_copies_and_owned_snapshots() {
    let tmp = tempfile::tempdir().unwrap();
    for mode in [StoreMode::Blocking, StoreMode::Thread] {
        let (dir, seqs) = first_run(tmp.path(), mode);
        let last = *seqs.last().unwrap();
        let prev = last - 1;
        // Nothing in the directory itself but the rank directories.
        assert_eq!(files(&dir), ["rank-0", "rank-1"], "{mode}");
        for r in 0..2 {
            let other = 1 - r;
            assert_eq!(
                files(&dir.join(format!("rank-{r}"))),
                [
                    format!("{APP}.ckpt.{prev:06}.rank{r}.h5"),
                    format!("{APP}.ckpt.{prev:06}.rank{r}.json"),
                    format!("{APP}.ckpt.{last:06}.rank{r}.h5"),
                    format!("{APP}.ckpt.{last:06}.rank{r}.json"),
                    // The value log, shared by the checkpoints (one generation per run).
                    format!("{APP}.values.rank{r}.1"),
                    "partner".to_string(),
                ],
                "{mode}: keep 2"
            );
            assert_eq!(
                files(&dir.join(format!("rank-{r}/partner"))),
                [
                    format!("{APP}.ckpt.{prev:06}.rank{other}.h5"),
                    format!("{APP}.ckpt.{prev:06}.rank{other}.json"),
                    format!("{APP}.ckpt.{last:06}.rank{other}.h5"),
                    format!("{APP}.ckpt.{last:06}.rank{other}.json"),
                    format!("{APP}.values.rank{other}.1"),
                ],
                "{mode}: keep 2 for partner copies"
            );
        }
        // Each rank's file holds only boxes in its slab, records its rank, and its partner
        // copy is the same checkpoint.
        let layout = ops_resilience::store::Layout::new(&dir, APP);
        let found = layout.newest_complete(u64::MAX).unwrap();
        assert!(found.rejected.is_empty(), "{:?}", found.rejected);
        let set = found.complete.unwrap();
        assert_eq!((set.sequence, set.ranks), (last, 2));
        let mut saved_points = 0;
        for part in &set.parts {
            assert!(!part.partner);
            assert_eq!(part.path, h5(&dir, part.rank, last));
            let ck = &part.checkpoint;
            assert_eq!((ck.meta.rank, ck.meta.ranks), (part.rank, 2));
            // The datasets' stored x extent is -1..N+1 = 18 points: slabs -1..8 and 8..17.
            let (x0, x1) = if part.rank == 0 { (-1, 8) } else { (8, N + 1) };
            for d in &ck.dats {
                for r in &d.regions {
                    assert!(
                        r.lo[0] >= x0 && r.hi[0] <= x1,
                        "{} {:?}..{:?}",
                        d.name,
                        r.lo,
                        r.hi
                    );
                    saved_points += (0..3)
                        .map(|k| (r.hi[k] - r.lo[k]) as usize)
                        .product::<usize>();
                }
            }
            let copy = Hdf5Store::for_rank(
                &dir.join(format!("rank-{}/partner", (part.rank + 1) % 2)),
                APP,
                2,
                part.rank,
            )
            .unwrap();
            let copy = copy.find_latest().unwrap().checkpoint.unwrap();
            assert!(&copy == ck, "the partner copy differs from the own file");
        }
        assert!(saved_points > 0);
    }
}

/// Restarts from a copy of the first run's directory with `p` ranks; checks the results are
/// the uninterrupted run's and returns rank 0's report.
fn restart(dir: &Path, p: usize, mode: StoreMode) -> serde_json::Value {
    let reference = reference();
    let runs = run(p, &cfg(dir, mode, true));
    for ((sums, state), _) in &runs {
        assert_eq!(sums, &reference.0);
        assert!(
            state == &reference.1,
            "a restart on {p} ranks changed the results"
        );
    }
    runs.into_iter().next().unwrap().1
}

fn scenario(tmp: &Path, pristine: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    copy_dir(pristine, &dir);
    dir
}

#[test]
fn restart_with_any_number_of_ranks_and_partner_fallback() {
    let tmp = tempfile::tempdir().unwrap();
    let mode = StoreMode::Thread;
    let (pristine, seqs) = first_run(tmp.path(), mode);
    let last = *seqs.last().unwrap();

    // The same number of ranks, more, fewer (a single process too).
    for p in [2, 3, 1] {
        let dir = scenario(tmp.path(), &pristine, &format!("p{p}"));
        let json = restart(&dir, p, mode);
        let r = &json["restore"];
        assert_eq!(r["sequence"], last, "{json}");
        assert_eq!(r["ranks"], 2);
        let files = r["files"].as_array().unwrap();
        assert_eq!(files.len(), 2);
        assert!(files.iter().all(|f| f["partner"] == false));
        // Checkpoints go on with new sequence numbers in the layout of this run.
        let next = json["checkpoints"][0]["sequence"].as_u64().unwrap();
        assert!(next > last, "{next} after {last}");
        if p == 1 {
            assert!(dir.join(format!("{APP}.ckpt.{next:06}.rank0.h5")).exists());
        } else {
            assert!(h5(&dir, p - 1, next).exists());
            assert!(partner_h5(&dir, 0, p - 1, next).exists());
        }
    }

    // Rank 1's own file of the newest checkpoint is gone: its partner copy (kept by rank 0)
    // serves, whatever the number of ranks now.
    for p in [2, 1] {
        let dir = scenario(tmp.path(), &pristine, &format!("lost{p}"));
        std::fs::remove_file(h5(&dir, 1, last)).unwrap();
        let json = restart(&dir, p, mode);
        let r = &json["restore"];
        assert_eq!(r["sequence"], last, "{json}");
        let files = r["files"].as_array().unwrap();
        assert_eq!(files[0]["partner"], false);
        assert_eq!(files[1]["partner"], true);
        assert_eq!(
            files[1]["path"].as_str().unwrap(),
            partner_h5(&dir, 0, 1, last).display().to_string()
        );
    }

    // ... and its partner copy is corrupt too: the checksum rejects it, so the newest
    // checkpoint is incomplete and the run restarts from the one before.
    let dir = scenario(tmp.path(), &pristine, "corrupt");
    std::fs::remove_file(h5(&dir, 1, last)).unwrap();
    let copy = partner_h5(&dir, 0, 1, last);
    corrupt_data(&copy);
    let json = restart(&dir, 2, mode);
    let r = &json["restore"];
    assert_eq!(r["sequence"], last - 1, "{json}");
    let rejected = r["rejected"].as_array().unwrap();
    let text = serde_json::to_string(rejected).unwrap();
    assert!(
        rejected
            .iter()
            .any(|x| x["path"] == copy.display().to_string()
                && x["reason"].as_str().unwrap().contains("crc32")),
        "{text}"
    );
    assert!(text.contains("rank 1: no usable file"), "{text}");

    // Nothing complete at all: every rank's own files and partner copies of rank 0 gone.
    let dir = scenario(tmp.path(), &pristine, "none");
    for seq in [last - 1, last] {
        for file in [h5(&dir, 0, seq), partner_h5(&dir, 1, 0, seq)] {
            std::fs::remove_file(&file).unwrap();
            std::fs::remove_file(file.with_extension("json")).unwrap();
        }
    }
    let json = restart(&dir, 2, mode);
    assert!(json["restore"]["sequence"].is_null(), "{json}");
    let text = json["restore"]["rejected"].to_string();
    assert!(
        text.contains(&format!(
            "rank 0: no checkpoint file for sequence {last} in {} and no partner copy in {}",
            dir.join("rank-0").display(),
            dir.join("rank-1/partner").display()
        )),
        "{text}"
    );
}

/// Flips bits in the middle of the file's largest region dataset's data (the file keeps its
/// size, so only the checksum can tell).
fn corrupt_data(path: &Path) {
    let file = hdf5::File::open_rw(path).unwrap();
    let mut best: Option<(String, usize)> = None;
    for g in file.group("dats").unwrap().groups().unwrap() {
        for ds in g.datasets().unwrap() {
            let n = ds.size();
            if best.as_ref().is_none_or(|b| n > b.1) {
                best = Some((ds.name(), n));
            }
        }
    }
    let (name, _) = best.expect("a saved region");
    let ds = file.dataset(&name).unwrap();
    let mut v: Vec<f64> = ds.read_raw().unwrap();
    let mid = v.len() / 2;
    v[mid] = f64::from_bits(v[mid].to_bits() ^ 0x10);
    ds.write_raw(&v).unwrap();
    drop(ds);
    file.close().unwrap();
}

#[test]
fn a_single_process_keeps_its_layout() {
    // No rank directories, no partner copies, no rank in the metadata: as before.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("single");
    let runs = run(1, &cfg(&dir, StoreMode::Blocking, false));
    let json = &runs[0].1;
    let last = json["checkpoints"].as_array().unwrap().last().unwrap()["sequence"]
        .as_u64()
        .unwrap();
    assert_eq!(
        files(&dir),
        [
            format!("{APP}.ckpt.{:06}.rank0.h5", last - 1),
            format!("{APP}.ckpt.{:06}.rank0.json", last - 1),
            format!("{APP}.ckpt.{last:06}.rank0.h5"),
            format!("{APP}.ckpt.{last:06}.rank0.json"),
            format!("{APP}.values.rank0.1"),
        ]
    );
    let manifest =
        std::fs::read_to_string(dir.join(format!("{APP}.ckpt.{last:06}.rank0.json"))).unwrap();
    assert!(
        !manifest.contains("\"rank\"") && !manifest.contains("\"ranks\""),
        "{manifest}"
    );
    assert!(json["checkpoints"][0]["partner"].is_null());
    let json = &run(1, &cfg(&dir, StoreMode::Blocking, true))[0].1;
    assert_eq!(json["restore"]["sequence"], last);
    assert!(
        json["restore"]["ranks"].is_null(),
        "found as always: {json}"
    );
}

#[test]
fn time_triggers_are_agreed() {
    // Rank 0 is slow, rank 1 fast: by their own clocks they would checkpoint at different
    // loops; they agree (due when any says so) and take the same checkpoints.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("interval");
    let cfg = ResilienceConfig {
        interval: Some(Interval::Every(Duration::from_millis(5))),
        every: None,
        ..cfg(&dir, StoreMode::Thread, false)
    };
    let reference = reference();
    let out = run_ranks(2, |mut ops| {
        let rank = ops.rank();
        install(&mut ops, &cfg).unwrap();
        let pause = Duration::from_millis(if rank == 0 { 2 } else { 0 });
        let res = program_with(&mut ops, pause);
        let report = ops.resilience().unwrap().report().clone();
        (res, report)
    });
    for ((sums, state), _) in &out {
        assert_eq!(sums, &reference.0);
        assert!(state == &reference.1);
    }
    let at = |k: usize| -> Vec<(u64, u64)> {
        out[k]
            .1
            .checkpoints
            .iter()
            .map(|c| (c.sequence, c.loop_index))
            .collect()
    };
    assert_eq!(at(0), at(1));
    assert!(at(0).len() >= 2, "{:?}", at(0));
    let set = ops_resilience::store::Layout::new(&dir, APP)
        .newest_complete(u64::MAX)
        .unwrap()
        .complete
        .unwrap();
    assert_eq!(set.sequence, at(0).last().unwrap().0);
}
