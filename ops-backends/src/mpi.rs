//! Distributed execution over MPI (cargo feature `mpi`): every block is split over the
//! processes in a Cartesian grid, each process runs the same program on its part through a
//! local backend (`seq`, `rayon` or `wgpu`), and halos are exchanged when loops need them.
//!
//! The runtime above ([`Ops`](ops_core::Ops)) keeps working in global indices and global
//! layouts: validation, tracking and checkpoint regions are identical on every process. This
//! backend translates:
//!
//! - **Decomposition.** A block is decomposed when its first dataset with more than one point
//!   in every dimension is declared: the process grid is the factorisation of the process count
//!   with the smallest halo surface for that dataset's size (ties split the slowest dimension
//!   first), and the cut points split its interior evenly. Datasets declared earlier are
//!   re-laid out then. A dataset is split in every dimension where the grid has more than one
//!   process and the dataset more than one point; in other dimensions each process keeps the
//!   whole extent (a replicated dataset, e.g. a 1-D coordinate array on a 2-D block). The
//!   processes at the ends own the physical halo, so every point has exactly one owner.
//! - **Storage.** Each process stores its part plus halos as deep as the dataset's declared
//!   halo; a loop whose stencil reaches deeper re-lays the dataset out with a deeper halo.
//! - **Loops.** Owner computes: a loop runs on the points of its range this process owns, in
//!   every dimension some dataset argument is split in (elsewhere on the whole range, with only
//!   the first process of the grid line contributing to reductions).
//! - **Halo exchange.** Before a loop reads a dataset through a stencil that reaches into a
//!   neighbour's part, the missing depth is exchanged with non-blocking sends and receives,
//!   dimension by dimension with the strips spanning the halos already valid (so corners are
//!   right), and only when the dataset was written since its last exchange.
//! - **Reductions.** Each process's partial is gathered on all processes and combined in rank
//!   order: runs with the same process count are bitwise identical.
//! - **Data in and out.** [`Backend::upload`] writes the part of a box this process stores (every
//!   process passes the same values); [`Backend::download`] gathers the box from its owners on
//!   every process. [`Backend::owned_part`] and [`Backend::download_owned`] let the resilience
//!   layer save only what this process owns.

use std::collections::HashMap;

use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use ops_core::kernel::{Kernel, Scalar};
use ops_core::{
    ArgPlan, Backend, BlockId, Comm, DatId, DatLayout, ElemType, IterRange, LoopPlan, OpsError,
    Result,
};

/// True when this process was started by an MPI launcher (`mpirun`, `srun`): the variables
/// Open MPI, MPICH and PMIx set for every process.
pub fn launched_under_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// Processes started by the launcher on this node (1 when not launched by one): how many
/// share the cores.
pub fn local_processes() -> usize {
    ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
        .unwrap_or(1)
}

/// The world communicator. `MPI_Comm` handles are plain values; the runtime uses this backend
/// from one thread at a time (MPI is initialised with `MPI_THREAD_SERIALIZED`).
struct World(SimpleCommunicator);

// SAFETY: see `World`: every MPI call is made through `&mut MpiBackend`, so calls never
// overlap, which is what MPI_THREAD_SERIALIZED requires.
unsafe impl Send for World {}

/// How a block is split: the process grid, this process's coordinates and the cut points.
#[derive(Clone, Debug)]
struct Decomp {
    grid: [usize; 3],
    coord: [usize; 3],
    /// Per dimension `grid[d] + 1` cut points; process `c` owns `cuts[c]..cuts[c + 1]`, the
    /// first and last being unbounded.
    cuts: [Vec<i64>; 3],
}

impl Decomp {
    /// The grid with the smallest halo surface for `size` (interior points per dimension),
    /// or an error when there are more processes than points.
    fn new(
        ranks: usize,
        rank: usize,
        dims: usize,
        size: [usize; 3],
        base: [i32; 3],
    ) -> Result<Decomp> {
        let mut best: Option<([usize; 3], u128)> = None;
        for g0 in divisors(ranks) {
            for g1 in divisors(ranks / g0) {
                let g = [g0, g1, ranks / g0 / g1];
                if (0..3).any(|d| g[d] > 1 && (d >= dims || g[d] > size[d])) {
                    continue;
                }
                let cost: u128 = (0..dims)
                    .map(|d| {
                        let face: u128 = (0..dims)
                            .filter(|&e| e != d)
                            .map(|e| size[e] as u128)
                            .product();
                        (g[d] as u128 - 1) * face
                    })
                    .sum();
                // Ties: more processes along the slower dimensions (contiguous strips).
                let better = match best {
                    None => true,
                    Some((bg, bc)) => cost < bc || (cost == bc && (g[2], g[1]) > (bg[2], bg[1])),
                };
                if better {
                    best = Some((g, cost));
                }
            }
        }
        let Some((grid, _)) = best else {
            return Err(mpi_error(
                rank,
                format!(
                    "{ranks} processes cannot split a block of {} points: run with fewer \
                     processes",
                    size[..dims]
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(" x ")
                ),
            ));
        };
        let coord = [
            rank % grid[0],
            (rank / grid[0]) % grid[1],
            rank / (grid[0] * grid[1]),
        ];
        let cuts = std::array::from_fn(|d| {
            (0..=grid[d])
                .map(|i| match i {
                    0 => i64::MIN,
                    i if i == grid[d] => i64::MAX,
                    i => base[d] as i64 + (i * size[d] / grid[d]) as i64,
                })
                .collect()
        });
        Ok(Decomp { grid, coord, cuts })
    }

    /// The rank at grid coordinates `c`.
    fn rank_of(&self, c: [usize; 3]) -> usize {
        c[0] + self.grid[0] * (c[1] + self.grid[1] * c[2])
    }

    /// Grid coordinates of `rank`.
    fn coord_of(&self, rank: usize) -> [usize; 3] {
        [
            rank % self.grid[0],
            (rank / self.grid[0]) % self.grid[1],
            rank / (self.grid[0] * self.grid[1]),
        ]
    }

    /// The cut interval `[lo, hi)` of grid coordinate `c` in dimension `d`.
    fn cut(&self, d: usize, c: usize) -> (i64, i64) {
        (self.cuts[d][c], self.cuts[d][c + 1])
    }
}

/// `r` with dimension `d` set to `lo..hi`.
fn set_dim(r: IterRange, d: usize, lo: i64, hi: i64) -> IterRange {
    let (mut l, mut h) = (r.lo(), r.hi());
    l[d] = lo.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    h[d] = hi.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    IterRange::new(r.dims(), l, h).expect("dims of an existing range")
}

fn divisors(n: usize) -> Vec<usize> {
    (1..=n).filter(|&k| n.is_multiple_of(k)).collect()
}

fn mpi_error(rank: usize, message: String) -> OpsError {
    OpsError::Backend {
        backend: "mpi".into(),
        message: format!("rank {rank}: {message}").into(),
    }
}

/// One dataset as this process holds it.
#[derive(Clone, Debug)]
struct LocalDat {
    /// The block it lives on (`None`: allocated without one, never split).
    block: Option<BlockId>,
    /// The dataset as the runtime sees it.
    global: DatLayout,
    /// This process's storage: its part plus halos.
    local: DatLayout,
    /// Split over the processes in each dimension (else replicated or undecomposed).
    split: [bool; 3],
    /// Halo depth kept towards neighbours in each split dimension.
    depth: [i32; 3],
    /// Depth of the neighbour halos currently valid per split dimension (0 after a write).
    valid: [i32; 3],
}

/// The distributed backend: an inner local backend on this process's part of every dataset.
pub struct MpiBackend {
    inner: Box<dyn Backend>,
    world: World,
    rank: usize,
    size: usize,
    decomps: HashMap<BlockId, Decomp>,
    dats: HashMap<DatId, LocalDat>,
    /// The first error this backend returned: a process that fails alone aborts the whole
    /// run when dropped instead of leaving the others waiting for it.
    failed: Option<String>,
    /// Halo bytes this process sent, and exchanges made.
    sent_bytes: u64,
    exchanges: u64,
    // Dropped last: finalises MPI.
    _universe: Universe,
}

impl MpiBackend {
    /// Initialises MPI and wraps `inner`. Fails when MPI is already initialised in this process
    /// (one distributed runtime per process).
    pub fn new(inner: Box<dyn Backend>) -> Result<MpiBackend> {
        let (universe, _) =
            mpi::initialize_with_threading(mpi::Threading::Serialized).ok_or_else(|| {
                OpsError::Backend {
                    backend: "mpi".into(),
                    message: "MPI is already initialised in this process: only one distributed \
                          runtime can exist per process"
                        .into(),
                }
            })?;
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        Ok(MpiBackend {
            inner,
            world: World(world),
            rank,
            size,
            decomps: HashMap::new(),
            dats: HashMap::new(),
            failed: None,
            sent_bytes: 0,
            exchanges: 0,
            _universe: universe,
        })
    }

    /// Halo bytes this process has sent so far, and the number of dataset exchanges.
    pub fn halo_traffic(&self) -> (u64, u64) {
        (self.sent_bytes, self.exchanges)
    }

    fn decomp_of(&self, ld: &LocalDat) -> Option<&Decomp> {
        ld.block.and_then(|b| self.decomps.get(&b))
    }

    fn dat(&self, dat: DatId) -> Result<&LocalDat> {
        self.dats.get(&dat).ok_or_else(|| {
            mpi_error(
                self.rank,
                format!("no storage for dataset #{}", dat.index()),
            )
        })
    }

    /// The storage layout of `g` on this process, halos `depth` deep towards neighbours.
    fn local_layout(
        &self,
        g: &DatLayout,
        dc: Option<&Decomp>,
        split: [bool; 3],
        depth: [i32; 3],
    ) -> DatLayout {
        let mut l = *g;
        let Some(dc) = dc else { return l };
        let (glo, ghi) = (g.lo(), g.hi());
        for d in 0..g.dims {
            if !split[d] {
                continue;
            }
            let (clo, chi) = dc.cut(d, dc.coord[d]);
            let base = g.base[d] as i64;
            let int_lo = clo.max(base);
            let int_hi = chi.min(base + g.size[d] as i64);
            let ext_lo = glo[d].max(int_lo - depth[d] as i64);
            let ext_hi = ghi[d].min(int_hi + depth[d] as i64);
            l.base[d] = int_lo as i32;
            l.size[d] = (int_hi - int_lo) as usize;
            l.neg[d] = (ext_lo - int_lo) as i32;
            l.pos[d] = (ext_hi - int_hi) as i32;
        }
        l
    }

    /// The points of dataset `ld` that the process at grid coordinates `c` owns.
    fn owned_by(ld: &LocalDat, dc: Option<&Decomp>, c: [usize; 3]) -> IterRange {
        let mut r = ld.global.extent();
        let Some(dc) = dc else { return r };
        let (lo, hi) = (ld.global.lo(), ld.global.hi());
        for d in 0..ld.global.dims {
            if ld.split[d] {
                let (clo, chi) = dc.cut(d, c[d]);
                let a = clo.max(lo[d]);
                r = set_dim(r, d, a, chi.min(hi[d]).max(a));
            } else if dc.grid[d] > 1 && c[d] != 0 {
                // Replicated: the first process of the grid line owns it.
                r = set_dim(r, d, lo[d], lo[d]);
            }
        }
        r
    }

    fn owned(&self, ld: &LocalDat) -> IterRange {
        let dc = ld.block.and_then(|b| self.decomps.get(&b));
        let c = dc.map_or([0; 3], |d| d.coord);
        Self::owned_by(ld, dc, c)
    }

    /// Moves dataset `dat` to storage `new`, keeping the values both layouts hold.
    fn relayout(&mut self, dat: DatId, new: DatLayout) -> Result<()> {
        let old = self.dat(dat)?.local;
        if old == new {
            return Ok(());
        }
        let keep = old.extent().intersect(&new.extent());
        let mut bytes = vec![0u8; keep.points() * old.components * old.ty.size()];
        if !keep.is_empty() {
            self.inner.download(dat, &old, &keep, &mut bytes)?;
        }
        self.inner.free(dat);
        self.inner.alloc(dat, &new)?;
        if !keep.is_empty() {
            self.inner.upload(dat, &new, &keep, &bytes)?;
        }
        let ld = self.dats.get_mut(&dat).expect("checked above");
        ld.local = new;
        ld.valid = [0; 3];
        Ok(())
    }

    /// Decomposes `block` from `layout` and re-lays out the datasets already declared on it.
    fn decompose(&mut self, block: BlockId, layout: &DatLayout) -> Result<()> {
        let dc = Decomp::new(self.size, self.rank, layout.dims, layout.size, layout.base)?;
        self.decomps.insert(block, dc);
        let earlier: Vec<DatId> = self
            .dats
            .iter()
            .filter(|(_, ld)| ld.block == Some(block))
            .map(|(id, _)| *id)
            .collect();
        for id in earlier {
            let ld = self.dats[&id].clone();
            let (split, depth) = self.split_of(&ld.global, block)?;
            let new = self.local_layout(&ld.global, self.decomps.get(&block), split, depth);
            let e = self.dats.get_mut(&id).expect("listed above");
            e.split = split;
            e.depth = depth;
            self.relayout(id, new)?;
        }
        Ok(())
    }

    /// Which dimensions of a dataset with layout `g` on `block` are split, and its halo depth
    /// towards neighbours.
    fn split_of(&self, g: &DatLayout, block: BlockId) -> Result<([bool; 3], [i32; 3])> {
        let Some(dc) = self.decomps.get(&block) else {
            return Ok(([false; 3], [0; 3]));
        };
        let split: [bool; 3] =
            std::array::from_fn(|d| d < g.dims && dc.grid[d] > 1 && g.size[d] > 1);
        for (d, _) in split.iter().enumerate().filter(|(_, &s)| s) {
            if g.size[d] < dc.grid[d] {
                return Err(mpi_error(
                    self.rank,
                    format!(
                        "a dataset of {} points in dimension {d} cannot be split over {} \
                         processes: run with fewer processes",
                        g.size[d], dc.grid[d]
                    ),
                ));
            }
        }
        let depth = std::array::from_fn(|d| (-g.neg[d]).max(g.pos[d]).max(1));
        Ok((split, depth))
    }

    /// Exchanges dimension `d` of dataset `dat` `k` deep with both neighbours.
    fn exchange(&mut self, dat: DatId, d: usize, k: i32) -> Result<()> {
        let ld = self.dat(dat)?.clone();
        let dc = self
            .decomp_of(&ld)
            .cloned()
            .expect("exchanged datasets are split");
        let own = self.owned(&ld);
        let local_ext = ld.local.extent();
        // The strips span, in the other split dimensions, the owned points plus the halos
        // already valid there (so corners come along), and all stored points in dimensions the
        // dataset is not split in (a replicated dataset is exchanged on every grid line).
        let mut span = set_dim(local_ext, d, own.lo()[d] as i64, own.hi()[d] as i64);
        for e in 0..ld.global.dims {
            if e != d && ld.split[e] {
                let v = ld.valid[e] as i64;
                span = set_dim(span, e, own.lo()[e] as i64 - v, own.hi()[e] as i64 + v);
            }
        }
        span = span.intersect(&local_ext);
        let pb = ld.local.components * ld.local.ty.size();
        let mut sides = Vec::new();
        for upper in [false, true] {
            let c = dc.coord[d];
            let neighbour = if upper {
                (c + 1 < dc.grid[d]).then(|| c + 1)
            } else {
                c.checked_sub(1)
            };
            let Some(nc) = neighbour else { continue };
            let (lo, hi) = (own.lo()[d], own.hi()[d]);
            if hi - lo < k {
                return Err(mpi_error(
                    self.rank,
                    format!(
                        "dataset #{}: this process owns {} points in dimension {d}, fewer than \
                         the halo depth {k} a stencil needs: run with fewer processes",
                        dat.index(),
                        hi - lo
                    ),
                ));
            }
            let (lo, hi, k64) = (lo as i64, hi as i64, k as i64);
            let (send, recv) = if upper {
                (
                    set_dim(span, d, hi - k64, hi),
                    set_dim(span, d, hi, hi + k64),
                )
            } else {
                (
                    set_dim(span, d, lo, lo + k64),
                    set_dim(span, d, lo - k64, lo),
                )
            };
            let mut nco = dc.coord;
            nco[d] = nc;
            let mut out = vec![0u8; send.points() * pb];
            self.inner.download(dat, &ld.local, &send, &mut out)?;
            sides.push((
                dc.rank_of(nco),
                out,
                recv,
                vec![0u8; recv.points() * pb],
                upper,
            ));
        }
        let world = &self.world.0;
        mpi::request::scope(|scope| {
            let mut reqs = Vec::new();
            for (peer, out, _, inbuf, upper) in sides.iter_mut() {
                let p = world.process_at_rank(*peer as i32);
                // Tag by direction of travel so the two strips between a pair never mix.
                let (stag, rtag) = if *upper { (1, 0) } else { (0, 1) };
                reqs.push(p.immediate_receive_into_with_tag(scope, &mut inbuf[..], rtag));
                reqs.push(p.immediate_send_with_tag(scope, &out[..], stag));
            }
            for r in reqs {
                r.wait();
            }
        });
        for (_, out, recv, inbuf, _) in &sides {
            self.sent_bytes += out.len() as u64;
            self.inner.upload(dat, &ld.local, recv, inbuf)?;
        }
        self.exchanges += 1;
        Ok(())
    }
}

/// Element offset of point `p` in a packed buffer of box `b` (x fastest).
fn packed_offset(b: &IterRange, p: [i32; 3]) -> usize {
    let (lo, hi) = (b.lo(), b.hi());
    let n = |d: usize| (hi[d] - lo[d]) as usize;
    ((p[2] - lo[2]) as usize * n(1) + (p[1] - lo[1]) as usize) * n(0) + (p[0] - lo[0]) as usize
}

/// Copies the points of `sub` from a packed buffer of box `src_box` into a packed buffer of
/// box `dst_box` (both hold `sub`); `pb` bytes per point.
fn copy_box(
    src: &[u8],
    src_box: &IterRange,
    dst: &mut [u8],
    dst_box: &IterRange,
    sub: &IterRange,
    pb: usize,
) {
    if sub.is_empty() {
        return;
    }
    let (lo, hi) = (sub.lo(), sub.hi());
    let row = (hi[0] - lo[0]) as usize * pb;
    for z in lo[2]..hi[2] {
        for y in lo[1]..hi[1] {
            let so = packed_offset(src_box, [lo[0], y, z]) * pb;
            let d = packed_offset(dst_box, [lo[0], y, z]) * pb;
            dst[d..d + row].copy_from_slice(&src[so..so + row]);
        }
    }
}

fn scalar_bytes(s: Scalar) -> [u8; 8] {
    match s {
        Scalar::F64(v) => v.to_le_bytes(),
        Scalar::F32(v) => (v.to_bits() as u64).to_le_bytes(),
        Scalar::I32(v) => (v as u32 as u64).to_le_bytes(),
    }
}

fn scalar_from(ty: ElemType, b: &[u8]) -> Scalar {
    let v = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    match ty {
        ElemType::F64 => Scalar::F64(f64::from_bits(v)),
        ElemType::F32 => Scalar::F32(f32::from_bits(v as u32)),
        ElemType::I32 => Scalar::I32(v as u32 as i32),
    }
}

impl Comm for MpiBackend {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        let world = &self.world.0;
        let len = i32::try_from(mine.len())
            .map_err(|_| mpi_error(self.rank, "a gathered message exceeds 2 GiB".into()))?;
        let mut counts = vec![0i32; self.size];
        world.all_gather_into(&len, &mut counts[..]);
        let displs: Vec<i32> = counts
            .iter()
            .scan(0i32, |acc, &c| {
                let d = *acc;
                *acc += c;
                Some(d)
            })
            .collect();
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let mut all = vec![0u8; total];
        {
            let mut part = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            world.all_gather_varcount_into(mine, &mut part);
        }
        Ok((0..self.size)
            .map(|k| all[displs[k] as usize..displs[k] as usize + counts[k] as usize].to_vec())
            .collect())
    }

    fn ring_shift(&mut self, mine: &[u8]) -> Result<Vec<u8>> {
        if self.size == 1 {
            return Ok(mine.to_vec());
        }
        let world = &self.world.0;
        let next = world.process_at_rank(((self.rank + 1) % self.size) as i32);
        let prev = world.process_at_rank(((self.rank + self.size - 1) % self.size) as i32);
        let mut len = 0u64;
        mpi::point_to_point::send_receive_into(&(mine.len() as u64), &next, &mut len, &prev);
        let mut buf = vec![0u8; len as usize];
        mpi::point_to_point::send_receive_into(mine, &next, &mut buf[..], &prev);
        Ok(buf)
    }
}

/// The backend's operations; the [`Backend`] methods record their errors (see `failed`).
impl MpiBackend {
    /// Remembers the first error, for [`Drop`].
    fn note(&mut self, r: Result<()>) -> Result<()> {
        if let Err(e) = &r {
            self.failed.get_or_insert_with(|| e.to_string());
        }
        r
    }

    fn alloc_on_impl(&mut self, block: BlockId, dat: DatId, layout: &DatLayout) -> Result<()> {
        let full = (0..layout.dims).all(|d| layout.size[d] > 1);
        if full && !self.decomps.contains_key(&block) {
            self.decompose(block, layout)?;
        }
        let (split, depth) = self.split_of(layout, block)?;
        let local = self.local_layout(layout, self.decomps.get(&block), split, depth);
        self.inner.alloc(dat, &local)?;
        self.dats.insert(
            dat,
            LocalDat {
                block: Some(block),
                global: *layout,
                local,
                split,
                depth,
                valid: [0; 3],
            },
        );
        Ok(())
    }

    fn upload_impl(
        &mut self,
        dat: DatId,
        _layout: &DatLayout,
        range: &IterRange,
        bytes: &[u8],
    ) -> Result<()> {
        let ld = self.dat(dat)?.clone();
        let sub = range.intersect(&ld.local.extent());
        if !sub.is_empty() {
            if sub == *range {
                self.inner.upload(dat, &ld.local, range, bytes)?;
            } else {
                let pb = ld.local.components * ld.local.ty.size();
                let mut part = vec![0u8; sub.points() * pb];
                copy_box(bytes, range, &mut part, &sub, &sub, pb);
                self.inner.upload(dat, &ld.local, &sub, &part)?;
            }
        }
        if let Some(l) = self.dats.get_mut(&dat) {
            l.valid = [0; 3];
        }
        Ok(())
    }

    fn download_impl(
        &mut self,
        dat: DatId,
        _layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        let ld = self.dat(dat)?.clone();
        let Some(dc) = self.decomp_of(&ld).cloned() else {
            // Not decomposed: every process holds all of it.
            return self.inner.download(dat, &ld.local, range, out);
        };
        let pb = ld.local.components * ld.local.ty.size();
        let mine = self.owned(&ld).intersect(range);
        let mut packed = vec![0u8; mine.points() * pb];
        if !mine.is_empty() {
            self.inner.download(dat, &ld.local, &mine, &mut packed)?;
        }
        let parts = self.all_gather(&packed)?;
        for (k, part) in parts.iter().enumerate() {
            let theirs = Self::owned_by(&ld, Some(&dc), dc.coord_of(k)).intersect(range);
            if theirs.points() * pb != part.len() {
                return Err(mpi_error(
                    self.rank,
                    format!(
                        "rank {k} sent {} bytes of dataset #{}, expected {}",
                        part.len(),
                        dat.index(),
                        theirs.points() * pb
                    ),
                ));
            }
            copy_box(part, &theirs, out, range, &theirs, pb);
        }
        Ok(())
    }

    fn run_impl(
        &mut self,
        kernel: &dyn Kernel,
        plan: &LoopPlan<'_>,
        partials: &mut [Scalar],
    ) -> Result<()> {
        let Some(dc) = self.decomps.get(&plan.block).cloned() else {
            // Not decomposed: every process runs all of it and gets the same partials.
            return self.inner.run(kernel, plan, partials);
        };
        // The dimensions the loop is distributed in, and its part of the range.
        let mut lsplit = [false; 3];
        for a in plan.args() {
            if let ArgPlan::Dat(d) = a {
                let ld = self.dat(d.dat)?;
                for (dim, s) in lsplit.iter_mut().enumerate() {
                    if ld.split[dim] {
                        if d.stride[dim] == 0 {
                            return Err(mpi_error(
                                self.rank,
                                format!(
                                    "loop `{}`: dataset #{} is split over the processes in \
                                     dimension {dim} but read with a stride-0 stencil there",
                                    plan.name,
                                    d.dat.index()
                                ),
                            ));
                        }
                        *s = true;
                    }
                }
            }
        }
        let mut range = plan.range;
        for (dim, &s) in lsplit.iter().enumerate() {
            if s {
                let (clo, chi) = dc.cut(dim, dc.coord[dim]);
                let lo = (range.lo()[dim] as i64).max(clo);
                let hi = (range.hi()[dim] as i64).min(chi).max(lo);
                range = set_dim(range, dim, lo, hi);
            }
        }
        // Halo depths the loop needs: how far any process's reads reach into a neighbour's
        // part, decided from the global plan and the cuts so that every process takes the
        // same decision (neighbours exchange in pairs).
        let mut needs: Vec<(DatId, [i32; 3])> = Vec::new();
        for a in plan.args() {
            let ArgPlan::Dat(d) = a else { continue };
            if !d.reads() {
                continue;
            }
            let ld = self.dat(d.dat)?;
            let mut need = [0i32; 3];
            for (dim, need) in need.iter_mut().enumerate().take(plan.dims) {
                if !ld.split[dim] {
                    continue;
                }
                let (rlo, rhi) = (plan.range.lo()[dim] as i64, plan.range.hi()[dim] as i64);
                let smin = d.touched.lo()[dim] as i64 - rlo;
                let smax = d.touched.hi()[dim] as i64 - rhi;
                // How far the reads of any process's part of the range reach past its cuts.
                for c in 0..dc.grid[dim] {
                    let (clo, chi) = dc.cut(dim, c);
                    let (lo, hi) = (rlo.max(clo), rhi.min(chi));
                    if lo >= hi {
                        continue;
                    }
                    if c > 0 {
                        *need = (*need).max((clo - (lo + smin)) as i32);
                    }
                    if c + 1 < dc.grid[dim] {
                        *need = (*need).max((hi + smax - chi) as i32);
                    }
                }
            }
            match needs.iter_mut().find(|(id, _)| *id == d.dat) {
                Some((_, n)) => *n = std::array::from_fn(|k| n[k].max(need[k])),
                None => needs.push((d.dat, need)),
            }
        }
        for (id, need) in needs {
            let ld = self.dat(id)?.clone();
            if (0..3).any(|k| need[k] > ld.depth[k]) {
                let depth = std::array::from_fn(|k| ld.depth[k].max(need[k]));
                let new = self.local_layout(&ld.global, Some(&dc), ld.split, depth);
                self.dats.get_mut(&id).expect("known").depth = depth;
                self.relayout(id, new)?;
            }
            for (dim, &k) in need.iter().enumerate() {
                if k > self.dat(id)?.valid[dim] {
                    self.exchange(id, dim, k)?;
                    self.dats.get_mut(&id).expect("known").valid[dim] = k;
                }
            }
        }
        // The plan over this process's storage.
        let mut local = *plan;
        local.range = range;
        for a in local.args.iter_mut() {
            if let ArgPlan::Dat(d) = a {
                let l = self.dat(d.dat)?.local;
                let lo = l.lo();
                d.mem = l.mem();
                d.iter = std::array::from_fn(|k| d.mem[k] * d.stride[k] as isize);
                d.origin = -(0..3).map(|k| lo[k] as isize * d.mem[k]).sum::<isize>();
                d.touched = d.touched.intersect(&l.extent());
            }
        }
        if !range.is_empty() {
            self.inner.run(kernel, &local, partials)?;
        }
        for a in plan.args() {
            if let ArgPlan::Dat(d) = a {
                if d.writes() {
                    if let Some(l) = self.dats.get_mut(&d.dat) {
                        l.valid = [0; 3];
                    }
                }
            }
        }
        if plan.has_reductions {
            // Where the loop runs whole on every process of a grid line, only the first counts.
            let counts = (0..3).all(|k| dc.grid[k] == 1 || lsplit[k] || dc.coord[k] == 0);
            let mut mine = Vec::new();
            for (k, a) in plan.args().iter().enumerate() {
                if let ArgPlan::Reduce { op, ty, .. } = a {
                    if !counts {
                        partials[k] = Scalar::identity(*op, *ty);
                    }
                    mine.extend_from_slice(&scalar_bytes(partials[k]));
                }
            }
            let all = self.all_gather(&mine)?;
            let mut at = 0;
            for (k, a) in plan.args().iter().enumerate() {
                if let ArgPlan::Reduce { op, ty, .. } = a {
                    let mut v = Scalar::identity(*op, *ty);
                    for part in &all {
                        v = v.combine(*op, scalar_from(*ty, &part[at..at + 8]));
                    }
                    partials[k] = v;
                    at += 8;
                }
            }
        }
        Ok(())
    }
}

impl Drop for MpiBackend {
    fn drop(&mut self) {
        // Finalising waits for every process; one that failed or panicked alone would wait
        // forever for the others (which wait for its halos). Abort the whole run instead.
        let why = if std::thread::panicking() {
            Some("a panic".to_string())
        } else {
            self.failed.take()
        };
        if let Some(why) = why {
            eprintln!(
                "ops: rank {}: aborting all {} processes after an error: {why}",
                self.rank, self.size
            );
            self.world.0.abort(1);
        }
    }
}

impl Backend for MpiBackend {
    fn name(&self) -> &'static str {
        match self.inner.name() {
            "seq" => "mpi+seq",
            "rayon" => "mpi+rayon",
            "wgpu" => "mpi+wgpu",
            _ => "mpi",
        }
    }

    fn threads(&self) -> usize {
        self.inner.threads()
    }

    fn alloc(&mut self, dat: DatId, layout: &DatLayout) -> Result<()> {
        self.inner.alloc(dat, layout)?;
        self.dats.insert(
            dat,
            LocalDat {
                block: None,
                global: *layout,
                local: *layout,
                split: [false; 3],
                depth: [0; 3],
                valid: [0; 3],
            },
        );
        Ok(())
    }

    fn alloc_on(&mut self, block: BlockId, dat: DatId, layout: &DatLayout) -> Result<()> {
        let r = self.alloc_on_impl(block, dat, layout);
        self.note(r)
    }

    fn upload(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        bytes: &[u8],
    ) -> Result<()> {
        let r = self.upload_impl(dat, layout, range, bytes);
        self.note(r)
    }

    fn download(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        let r = self.download_impl(dat, layout, range, out);
        self.note(r)
    }

    fn run(
        &mut self,
        kernel: &dyn Kernel,
        plan: &LoopPlan<'_>,
        partials: &mut [Scalar],
    ) -> Result<()> {
        let r = self.run_impl(kernel, plan, partials);
        self.note(r)
    }

    fn free(&mut self, dat: DatId) {
        self.inner.free(dat);
        self.dats.remove(&dat);
    }

    fn synchronize(&mut self) -> Result<()> {
        self.inner.synchronize()
    }

    fn comm(&mut self) -> Option<&mut dyn Comm> {
        Some(self)
    }

    fn halo_bytes_sent(&self) -> Option<u64> {
        Some(self.sent_bytes)
    }

    fn owned_part(&self, dat: DatId, _layout: &DatLayout, range: &IterRange) -> IterRange {
        match self.dats.get(&dat) {
            Some(ld) => self.owned(ld).intersect(range),
            None => *range,
        }
    }

    fn download_owned(
        &mut self,
        dat: DatId,
        _layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        let local = self.dat(dat)?.local;
        self.inner.download(dat, &local, range, out)
    }
}
