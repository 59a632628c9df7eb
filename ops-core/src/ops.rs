//! The runtime: [`Ops`] owns every block, dataset, stencil and reduction.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use crate::backend::{ArgPlan, Backend, DatLayout, LoopPlan};
use crate::config::OpsConfig;
use crate::error::{OpsError, Result};
use crate::handles::{
    Arg, Block, BlockId, Dat, DatId, DatSpec, Halo, IterRange, Reduction, ReductionId, RtId,
    Stencil, StencilId,
};
use crate::kernel::{ElemType, Element, Kernel, ReduceOp, Scalar, MAX_ARGS};
use crate::observer::{
    Expected, Hooks, LoopAction, LoopObserver, ObserverError, Query, Ran, Runtime,
};
use crate::profile::{self, LoopProfile};

static NEXT_RT: AtomicU32 = AtomicU32::new(1);

pub(crate) struct BlockInfo {
    pub(crate) name: String,
    pub(crate) dims: usize,
}

pub(crate) struct DatInfo {
    pub(crate) name: String,
    pub(crate) block: BlockId,
    pub(crate) layout: DatLayout,
    pub(crate) live: bool,
}

pub(crate) struct StencilInfo {
    pub(crate) name: String,
    pub(crate) dims: usize,
    pub(crate) points: Vec<[i32; 3]>,
    pub(crate) stride: [i32; 3],
    /// Smallest offset per dimension.
    pub(crate) min: [i32; 3],
    /// Largest offset per dimension.
    pub(crate) max: [i32; 3],
}

pub(crate) struct ReductionInfo {
    pub(crate) name: String,
    pub(crate) op: ReduceOp,
    pub(crate) ty: ElemType,
    pub(crate) value: Scalar,
}

/// The runtime: owns all data of a structured-mesh application and runs its loops.
///
/// Blocks, datasets, stencils and reductions are declared through it and referred to by `Copy`
/// handles. Data enters and leaves only through its calls ([`Ops::set_data`], [`Ops::fetch_data`],
/// [`Ops::reduction_result`], ...), and every change to a dataset is a [`Ops::par_loop`] it
/// validates, so the runtime always knows what each loop reads and writes.
///
/// An `Ops` is built with a backend: `ops_backends::ops_from_args(&args)` picks one from the
/// command line; `Ops::new` takes any [`Backend`].
///
/// ```
/// use ops_backends::prelude::*;
///
/// #[kernel]
/// fn ideal_gas(density: Read<f64>, pressure: Write<f64>) {
///     pressure[(0, 0)] = 0.4 * density[(0, 0)];
/// }
///
/// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
/// let grid = ops.block("grid", 2)?;
/// let dens = ops.dat::<f64, 2>(&grid, "density0", [8, 8], Halo::new([-2, -2], [2, 2]))?;
/// let pres = ops.dat::<f64, 2>(&grid, "pressure", [8, 8], Halo::new([-2, -2], [2, 2]))?;
/// let point = ops.stencil("S2D_00", &[[0, 0]])?;
/// ops.par_loop(ideal_gas, "ideal_gas", &grid, [0..8, 0..8],
///     &[dens.arg(&point, Read), pres.arg(&point, Write)])?;
/// # Ok::<(), OpsError>(())
/// ```
pub struct Ops {
    pub(crate) rt: RtId,
    config: OpsConfig,
    pub(crate) backend: Box<dyn Backend>,
    pub(crate) blocks: Vec<BlockInfo>,
    pub(crate) dats: Vec<DatInfo>,
    pub(crate) stencils: Vec<StencilInfo>,
    pub(crate) reductions: Vec<ReductionInfo>,
    observer: Option<Box<dyn LoopObserver>>,
    /// Which optional hooks the observer wants called ([`Runtime::set_hooks`]).
    pub(crate) hooks: Hooks,
    /// The loops the observer expects next ([`Runtime::expect`]).
    pub(crate) expected: Expected,
    /// Set once [`LoopObserver::finish`] ran (by `finish` or on drop).
    finished: bool,
    profiles: Vec<LoopProfile>,
    profile_index: HashMap<String, usize>,
    /// The one-point stencils boundary fills read through, by dimension count and offset.
    pub(crate) fill_stencils: HashMap<(usize, [i32; 3]), Stencil>,
    /// Plans of the loop shapes validated so far.
    plans: crate::plan_cache::PlanCache,
}

/// One loop to run ([`Ops::run_loop`]): what `par_loop` was given, plus how the runtime's own
/// loops are profiled and executed.
pub(crate) struct LoopRequest<'a> {
    pub(crate) kernel: &'a dyn Kernel,
    /// The loop's name, as observers and errors see it.
    pub(crate) name: &'a str,
    /// The profile row the loop's time goes to.
    pub(crate) profile_as: &'a str,
    pub(crate) block: &'a Block,
    pub(crate) range: IterRange,
    pub(crate) args: &'a [Arg],
    pub(crate) location: &'static std::panic::Location<'static>,
    pub(crate) execution: Execution,
}

/// How a validated loop is carried out.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Execution {
    /// The kernel runs on the backend.
    Kernel,
    /// The box `from` of the loop's first (written) dataset is copied to the loop's range by
    /// download and upload; the kernel, which does the same, describes it to validation and
    /// observers.
    Copy { from: IterRange },
}

/// A dataset as observers see it: everything [`Ops`] knows about it, looked up by id with
/// [`Ops::dat_desc`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DatDesc<'a> {
    /// The dataset's id.
    pub id: DatId,
    /// Its name (unique per block).
    pub name: &'a str,
    /// The block it lives on.
    pub block: BlockId,
    /// The block's name.
    pub block_name: &'a str,
    /// Its layout: element type, components, size, base, halo.
    pub layout: DatLayout,
    /// False once freed.
    pub live: bool,
}

impl std::fmt::Debug for Ops {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ops")
            .field("backend", &self.backend.name())
            .field("blocks", &self.blocks.len())
            .field("dats", &self.dats.len())
            .field("stencils", &self.stencils.len())
            .field("reductions", &self.reductions.len())
            .finish()
    }
}

pub(crate) fn format_point(p: &[i32]) -> String {
    let s: Vec<String> = p.iter().map(|v| v.to_string()).collect();
    format!("({})", s.join(", "))
}

impl Ops {
    /// A runtime with `config` running loops on `backend`.
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// let backend = Box::new(ops_backends::SeqBackend::new());
    /// let ops = Ops::new(OpsConfig::new(BackendKind::Seq), backend);
    /// assert_eq!(ops.backend_name(), "seq");
    /// ```
    pub fn new(config: OpsConfig, backend: Box<dyn Backend>) -> Ops {
        Ops {
            rt: NEXT_RT.fetch_add(1, Ordering::Relaxed),
            config,
            backend,
            blocks: Vec::new(),
            dats: Vec::new(),
            stencils: Vec::new(),
            reductions: Vec::new(),
            observer: None,
            hooks: Hooks::default(),
            expected: Expected::default(),
            finished: false,
            profiles: Vec::new(),
            profile_index: HashMap::new(),
            fill_stencils: HashMap::new(),
            plans: Default::default(),
        }
    }

    /// The configuration the runtime was built with.
    pub fn config(&self) -> &OpsConfig {
        &self.config
    }

    /// The backend's name (`"seq"`, `"rayon"`, ...).
    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    /// Worker threads the backend uses.
    pub fn threads(&self) -> usize {
        self.backend.threads()
    }

    /// Waits until the backend has finished all submitted work.
    pub fn synchronize(&mut self) -> Result<()> {
        self.backend.synchronize()
    }

    /// This process's rank in a distributed run (0 for a single process). Applications print
    /// their reports on rank 0 only.
    pub fn rank(&mut self) -> usize {
        self.backend.comm().map_or(0, |c| c.rank())
    }

    /// Number of processes in a distributed run (1 for a single process).
    pub fn ranks(&mut self) -> usize {
        self.backend.comm().map_or(1, |c| c.size())
    }

    /// Distinct threads that have run parts of loops so far (see [`Backend::threads_used`]).
    pub fn threads_used(&self) -> usize {
        self.backend.threads_used()
    }

    /// Bytes of halo data this process has sent in a distributed run (`None` for a single
    /// process).
    pub fn halo_bytes_sent(&self) -> Option<u64> {
        self.backend.halo_bytes_sent()
    }

    /// The processes of a distributed run (collective operations), or `None` for a single
    /// process.
    pub fn comm(&mut self) -> Option<&mut dyn crate::backend::Comm> {
        self.backend.comm()
    }

    /// The part of `range` (points of dataset `id`) this process owns; the whole range for a
    /// single process. `range` must lie inside the dataset.
    pub fn owned_part(&self, id: DatId, range: &IterRange) -> Result<IterRange> {
        let len = self.dats.get(id.index()).map_or(0, |d| {
            range.points() * d.layout.components * d.layout.ty.size()
        });
        let layout = self.raw_io_check(id, range, len)?;
        Ok(self.backend.owned_part(id, &layout, range))
    }

    /// Copies the points of `range`, inside this process's [owned part](Ops::owned_part), of
    /// dataset `id` into `out` without talking to other processes: what a checkpoint saves.
    pub(crate) fn download_owned_bytes(
        &mut self,
        id: DatId,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        let layout = self.raw_io_check(id, range, out.len())?;
        self.backend.download_owned(id, &layout, range, out)
    }

    /// Starts copying the points of `range` of dataset `id` to the host without waiting
    /// ([`Backend::begin_download`](crate::Backend::begin_download)); `None` when the backend
    /// has no transfer to overlap (use [`Ops::download_owned_bytes`]).
    pub(crate) fn begin_download_bytes(
        &mut self,
        id: DatId,
        range: &IterRange,
    ) -> Result<Option<crate::backend::PendingBytes>> {
        let (_, layout) = self.raw_io_layout(id, range)?;
        self.backend.begin_download(id, &layout, range)
    }

    // ----------------------------------------------------------------------------------------
    // Declarations
    // ----------------------------------------------------------------------------------------

    /// Declares a block of `dims` (1, 2 or 3) dimensions.
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// assert_eq!(grid.dims(), 2);
    /// assert!(ops.block("bad", 4).is_err());
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn block(&mut self, name: &str, dims: usize) -> Result<Block> {
        if !(1..=3).contains(&dims) {
            return Err(OpsError::InvalidBlockDims {
                block: name.into(),
                dims,
            });
        }
        let id = BlockId(self.blocks.len() as u32);
        self.blocks.push(BlockInfo {
            name: name.to_string(),
            dims,
        });
        Ok(Block {
            rt: self.rt,
            id,
            dims: dims as u8,
        })
    }

    /// The name a block was declared with.
    pub fn block_name(&self, block: &Block) -> Result<&str> {
        Ok(&self.block_info(block)?.name)
    }

    /// Declares a zero-initialised dataset of `size` interior points (`N` = the block's
    /// dimension count) with one component, base index 0 and the given halo. Names are unique
    /// per block.
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// let dens = ops.dat::<f64, 2>(&grid, "density0", [10, 10], Halo::new([-2, -2], [2, 2]))?;
    /// assert_eq!(ops.dat_name(&dens)?, "density0");
    /// assert_eq!(ops.fetch_data(&dens)?, vec![0.0; 100]);
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn dat<T: Element, const N: usize>(
        &mut self,
        block: &Block,
        name: &str,
        size: [usize; N],
        halo: Halo<N>,
    ) -> Result<Dat<T>> {
        self.dat_with(block, name, DatSpec::new(size).halo(halo))
    }

    /// Declares a dataset described by a [`DatSpec`] (halo, base index, components, initial
    /// values).
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// let vel = ops.dat_with(&grid, "velocity",
    ///     DatSpec::<f64, 2>::new([2, 2]).components(2).init(&[1., 2., 3., 4., 5., 6., 7., 8.]))?;
    /// assert_eq!(ops.fetch_data(&vel)?, vec![1., 2., 3., 4., 5., 6., 7., 8.]);
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn dat_with<T: Element, const N: usize>(
        &mut self,
        block: &Block,
        name: &str,
        spec: DatSpec<T, N>,
    ) -> Result<Dat<T>> {
        let binfo = self.block_info(block)?;
        if N != binfo.dims {
            return Err(OpsError::DatDimsMismatch {
                dat: name.into(),
                block: binfo.name.as_str().into(),
                block_dims: binfo.dims,
                given: N,
            });
        }
        if self
            .dats
            .iter()
            .any(|d| d.live && d.block == block.id && d.name == name)
        {
            return Err(OpsError::DuplicateDat {
                dat: name.into(),
                block: binfo.name.as_str().into(),
            });
        }
        if spec.components == 0 {
            return Err(OpsError::InvalidComponents {
                dat: name.into(),
                components: spec.components,
            });
        }
        let size_err = |reason: &'static str| OpsError::InvalidDatSize {
            dat: name.into(),
            size: spec.size.to_vec(),
            reason,
        };
        let mut layout = DatLayout {
            ty: T::TYPE,
            dims: N,
            components: spec.components,
            size: [1; 3],
            base: [0; 3],
            neg: [0; 3],
            pos: [0; 3],
        };
        let mut elems: u128 = spec.components as u128;
        for d in 0..N {
            let (neg, pos) = (spec.halo.neg()[d], spec.halo.pos()[d]);
            if neg > 0 || pos < 0 {
                return Err(OpsError::InvalidHalo {
                    dat: name.into(),
                    dim: d,
                    neg,
                    pos,
                });
            }
            if spec.size[d] == 0 {
                return Err(size_err("every dimension needs at least one point"));
            }
            // Keep every index, and every index grown by a stencil, well inside i32.
            const LIMIT: i64 = 1 << 30;
            if spec.size[d] as u128 > LIMIT as u128 {
                return Err(size_err(
                    "indices (base, size and halo) must stay within ±2^30",
                ));
            }
            let lo = spec.base[d] as i64 + neg as i64;
            let hi = spec.base[d] as i64 + spec.size[d] as i64 + pos as i64;
            if lo < -LIMIT || hi > LIMIT {
                return Err(size_err(
                    "indices (base, size and halo) must stay within ±2^30",
                ));
            }
            elems = elems
                .checked_mul((hi - lo) as u128)
                .ok_or_else(|| size_err("too large to allocate"))?;
            layout.size[d] = spec.size[d];
            layout.base[d] = spec.base[d];
            layout.neg[d] = neg;
            layout.pos[d] = pos;
        }
        if elems.saturating_mul(T::TYPE.size() as u128) > (isize::MAX as u128) / 2 {
            return Err(size_err("too large to allocate"));
        }
        let points: usize = layout.size[..N].iter().product();
        if let Some(init) = &spec.init {
            let expected = points * spec.components;
            if init.len() != expected {
                return Err(OpsError::DataLength {
                    dat: name.into(),
                    what: "initial values",
                    expected,
                    got: init.len(),
                });
            }
        }
        let id = DatId(self.dats.len() as u32);
        if let Err(e) = self.backend.alloc_on(block.id, id, &layout) {
            return Err(OpsError::DatAlloc {
                dat: name.into(),
                declared: self.declared_so_far().into(),
                source: Box::new(e),
            });
        }
        self.dats.push(DatInfo {
            name: name.to_string(),
            block: block.id,
            layout,
            live: true,
        });
        let dat = Dat {
            rt: self.rt,
            id,
            _elem: PhantomData,
        };
        if let Some(init) = &spec.init {
            self.set_data(&dat, init)?;
        }
        Ok(dat)
    }

    /// The live datasets' storage in words, for allocation errors: their total and the
    /// largest three.
    fn declared_so_far(&self) -> String {
        let mut live: Vec<(&str, u64)> = self
            .dats
            .iter()
            .filter(|d| d.live)
            .map(|d| (d.name.as_str(), d.layout.bytes() as u64))
            .collect();
        let total: u64 = live.iter().map(|d| d.1).sum();
        live.sort_by_key(|d| std::cmp::Reverse(d.1));
        let largest: Vec<String> = live
            .iter()
            .take(3)
            .map(|(n, b)| format!("{n} {}", crate::units::human_bytes(*b)))
            .collect();
        format!(
            "declared before it: {} datasets, {}{}",
            live.len(),
            crate::units::human_bytes(total),
            if largest.is_empty() {
                String::new()
            } else {
                format!(", the largest {}", largest.join(", "))
            }
        )
    }

    /// Releases a dataset's storage; the handle (and copies of it) become invalid.
    pub fn free_dat<T: Element>(&mut self, dat: &Dat<T>) -> Result<()> {
        self.dat_info(dat.rt, dat.id)?;
        self.backend.free(dat.id);
        self.dats[dat.id.index()].live = false;
        // Plans passing it must be validated (and refused) again.
        self.plans.forget_dat(dat.id);
        Ok(())
    }

    /// The name a dataset was declared with.
    pub fn dat_name<T: Element>(&self, dat: &Dat<T>) -> Result<&str> {
        Ok(&self.dat_info(dat.rt, dat.id)?.name)
    }

    /// The dataset's full layout: size, base, halo, components, element type.
    pub fn dat_layout<T: Element>(&self, dat: &Dat<T>) -> Result<DatLayout> {
        Ok(self.dat_info(dat.rt, dat.id)?.layout)
    }

    /// Interior points per dimension (the block's dimension count of entries).
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// # let grid = ops.block("grid", 2)?;
    /// let d = ops.dat::<f32, 2>(&grid, "d", [5, 3], Halo::new([-1, -2], [1, 2]))?;
    /// assert_eq!(ops.dat_size(&d)?, vec![5, 3]);
    /// assert_eq!(ops.dat_halo(&d)?, (vec![-1, -2], vec![1, 2]));
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn dat_size<T: Element>(&self, dat: &Dat<T>) -> Result<Vec<usize>> {
        let l = self.dat_info(dat.rt, dat.id)?.layout;
        Ok(l.size[..l.dims].to_vec())
    }

    /// Halo depths per dimension: `(neg, pos)`.
    pub fn dat_halo<T: Element>(&self, dat: &Dat<T>) -> Result<(Vec<i32>, Vec<i32>)> {
        let l = self.dat_info(dat.rt, dat.id)?.layout;
        Ok((l.neg[..l.dims].to_vec(), l.pos[..l.dims].to_vec()))
    }

    /// Declares a stencil: the offsets (one coordinate per block dimension) a loop argument
    /// may access around each iteration point.
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let five = ops.stencil("S2D_5PT", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])?;
    /// assert_eq!(five.dims(), 2);
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn stencil<const N: usize>(&mut self, name: &str, points: &[[i32; N]]) -> Result<Stencil> {
        self.strided_stencil(name, points, [1; N])
    }

    /// Declares a strided stencil: the point accessed for iteration index `idx` and offset `o`
    /// is `idx[d]·stride[d] + o[d]` per dimension, `stride[d]` 0 or 1. With stride 0 in `d`, a
    /// dataset of size 1 in `d` (a per-column array `[nx, 1]` on a 2-D block, read with stride
    /// `[1, 0]`) is read by every iteration point of the loop.
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let along_x = ops.strided_stencil("S2D_00_STRID2D_X", &[[0, 0]], [1, 0])?;
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn strided_stencil<const N: usize>(
        &mut self,
        name: &str,
        points: &[[i32; N]],
        stride: [i32; N],
    ) -> Result<Stencil> {
        let bad = |reason: String| OpsError::InvalidStencil {
            stencil: name.into(),
            reason: reason.into(),
        };
        if !(1..=3).contains(&N) {
            return Err(bad(format!(
                "{N}-dimensional points; stencils have 1, 2 or 3"
            )));
        }
        if points.is_empty() {
            return Err(bad("no points".into()));
        }
        if let Some(s) = stride.iter().find(|s| **s != 0 && **s != 1) {
            return Err(bad(format!("stride {s} in {stride:?}; strides are 0 or 1")));
        }
        const LIMIT: i32 = 1 << 20;
        let mut pts = Vec::with_capacity(points.len());
        let (mut min, mut max) = ([0i32; 3], [0i32; 3]);
        for (i, p) in points.iter().enumerate() {
            if p.iter().any(|v| v.abs() > LIMIT) {
                return Err(bad(format!("offset {} is too large", format_point(p))));
            }
            let mut q = [0; 3];
            q[..N].copy_from_slice(p);
            for d in 0..3 {
                if i == 0 || q[d] < min[d] {
                    min[d] = q[d];
                }
                if i == 0 || q[d] > max[d] {
                    max[d] = q[d];
                }
            }
            pts.push(q);
        }
        let mut st = [1; 3];
        st[..N].copy_from_slice(&stride);
        let id = StencilId(self.stencils.len() as u32);
        self.stencils.push(StencilInfo {
            name: name.to_string(),
            dims: N,
            points: pts,
            stride: st,
            min,
            max,
        });
        Ok(Stencil {
            rt: self.rt,
            id,
            dims: N as u8,
        })
    }

    /// The name a stencil was declared with.
    pub fn stencil_name(&self, stencil: &Stencil) -> Result<&str> {
        Ok(&self.stencil_info(stencil.rt, stencil.id)?.name)
    }

    /// The name of the stencil declared `index`-th (from 0, as [`StencilId::index`]), for
    /// observers naming a loop's arguments; `None` past the end.
    pub fn stencil_name_by_index(&self, index: usize) -> Option<&str> {
        self.stencils.get(index).map(|s| s.name.as_str())
    }

    /// The name of the reduction declared `index`-th (from 0, as [`ReductionId::index`]);
    /// `None` past the end.
    pub fn reduction_name_by_index(&self, index: usize) -> Option<&str> {
        self.reductions.get(index).map(|r| r.name.as_str())
    }

    /// The name of the block declared `index`-th (from 0, as [`BlockId::index`]); `None` past
    /// the end.
    pub fn block_name_by_index(&self, index: usize) -> Option<&str> {
        self.blocks.get(index).map(|b| b.name.as_str())
    }

    /// Declares a reduction of type `T` with operation `op`, starting at the identity.
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let dt = ops.reduction::<f64>("dt_min", ReduceOp::Min);
    /// assert_eq!(ops.reduction_result(&dt)?, f64::INFINITY);
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn reduction<T: Element>(&mut self, name: &str, op: ReduceOp) -> Reduction<T> {
        let id = ReductionId(self.reductions.len() as u32);
        self.reductions.push(ReductionInfo {
            name: name.to_string(),
            op,
            ty: T::TYPE,
            value: Scalar::identity(op, T::TYPE),
        });
        Reduction {
            rt: self.rt,
            id,
            op,
            _elem: PhantomData,
        }
    }

    /// Sets a reduction back to its identity without reading it, so that the next loops
    /// accumulate afresh (see [`Ops::reduction_result`] for the semantics).
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let total = ops.reduction::<f64>("total", ReduceOp::Sum);
    /// // ... loops that add to `total`, whose sum is not wanted ...
    /// ops.reset_reduction(&total)?;
    /// assert_eq!(ops.reduction_result(&total)?, 0.0);
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn reset_reduction<T: Element>(&mut self, r: &Reduction<T>) -> Result<()> {
        self.reduction_info(r.rt, r.id)?;
        let info = &mut self.reductions[r.id.index()];
        info.value = Scalar::identity(info.op, info.ty);
        Ok(())
    }

    /// The value the loops accumulated into the reduction since it was last read (or reset, or
    /// declared), folded over every loop that took it as an argument; reading it sets it back
    /// to its identity. So one reduction can gather over several loops (a sum over two sweeps)
    /// and is read once; a reduction used by loops whose result is not wanted must be reset
    /// ([`Ops::reset_reduction`]) or read before it is used again, or the next result includes
    /// those loops too. Read before any loop updated it, it is the identity (`+inf` for `Min`).
    pub fn reduction_result<T: Element>(&mut self, r: &Reduction<T>) -> Result<T> {
        let info = self.reduction_info(r.rt, r.id)?;
        if info.ty != T::TYPE {
            return Err(OpsError::ForeignHandle {
                what: format!("reduction `{}`", info.name).into(),
            });
        }
        let i = r.id.index();
        let mut value = self.reductions[i].value;
        self.reductions[i].value = Scalar::identity(self.reductions[i].op, self.reductions[i].ty);
        if self.expected.keep_results && self.observer.is_some() {
            self.expected.results.push((r.id, value));
        } else if let Some(mut obs) = self.take_observer(true) {
            let mut q = Query::Reduction {
                id: r.id,
                name: &self.reductions[i].name,
                value: &mut value,
            };
            obs.on_query(&mut q);
            let err = obs.take_error();
            self.observer = Some(obs);
            if let Some(e) = err {
                return Err(e);
            }
        }
        if self.config.check_finite {
            let finite = match value {
                Scalar::F64(v) => v.is_finite(),
                Scalar::F32(v) => v.is_finite(),
                Scalar::I32(_) => true,
            };
            if !finite {
                let shown = match value {
                    Scalar::F64(v) => v.to_string(),
                    Scalar::F32(v) => v.to_string(),
                    Scalar::I32(v) => v.to_string(),
                };
                return Err(OpsError::NotFinite {
                    reduction: self.reductions[i].name.clone().into(),
                    value: shown.into(),
                });
            }
        }
        T::from_scalar(value).ok_or_else(|| OpsError::ForeignHandle {
            what: format!(
                "reduction `{}` (observer changed its type)",
                self.reductions[i].name
            )
            .into(),
        })
    }

    /// Every reduction's running value (what loops folded in since its last result), with its
    /// name, in declaration order. A checkpoint taken between a loop and the
    /// `reduction_result` that reads it must carry these.
    pub(crate) fn reduction_values(&self) -> Vec<(&str, Scalar)> {
        self.reductions
            .iter()
            .map(|r| (r.name.as_str(), r.value))
            .collect()
    }

    /// Sets the running value of the reduction declared `index`-th (restoring a checkpoint).
    /// The value must have the reduction's type.
    pub(crate) fn set_reduction_value(&mut self, index: usize, value: Scalar) -> Result<()> {
        let r = self
            .reductions
            .get_mut(index)
            .ok_or_else(|| OpsError::ForeignHandle {
                what: format!("reduction #{index}").into(),
            })?;
        if r.ty != value.elem_type() {
            return Err(OpsError::ForeignHandle {
                what: format!("reduction `{}` ({} value given)", r.name, value.elem_type()).into(),
            });
        }
        r.value = value;
        Ok(())
    }

    // ----------------------------------------------------------------------------------------
    // Data in and out
    // ----------------------------------------------------------------------------------------

    /// Overwrites the interior points of `dat` with `values` (components interleaved, x
    /// fastest).
    pub fn set_data<T: Element>(&mut self, dat: &Dat<T>, values: &[T]) -> Result<()> {
        let range = self.dat_info(dat.rt, dat.id)?.layout.interior();
        self.set_range(dat, range, values)
    }

    /// Overwrites the points of `range` (any box inside the dataset, halo included) with
    /// `values` (components interleaved, x fastest).
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// # let grid = ops.block("grid", 2)?;
    /// let d = ops.dat::<i32, 2>(&grid, "d", [4, 4], Halo::new([-1, -1], [1, 1]))?;
    /// ops.set_range(&d, [-1..1, 3..5], &[1, 2, 3, 4])?;
    /// assert_eq!(ops.fetch_range(&d, [-1..1, 3..5])?, vec![1, 2, 3, 4]);
    /// assert!(ops.set_range(&d, [-2..1, 3..5], &[0; 6]).is_err());
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn set_range<T: Element>(
        &mut self,
        dat: &Dat<T>,
        range: impl Into<IterRange>,
        values: &[T],
    ) -> Result<()> {
        let range = range.into();
        let layout = self.io_check(dat.rt, dat.id, T::TYPE, &range)?;
        let expected = range.points() * layout.components;
        if values.len() != expected {
            return Err(OpsError::DataLength {
                dat: self.dats[dat.id.index()].name.as_str().into(),
                what: "the data given",
                expected,
                got: values.len(),
            });
        }
        if let Some(mut obs) = self.take_observer(false) {
            obs.before_set(&mut Runtime::new(self), dat.id, &range);
            let err = obs.take_error();
            self.restore_observer(obs);
            if let Some(e) = err {
                return Err(e);
            }
        }
        self.backend
            .upload(dat.id, &layout, &range, bytemuck::cast_slice(values))?;
        if let Some(mut obs) = self.take_observer(true) {
            obs.on_set(dat.id, &range);
            let err = obs.take_error();
            self.observer = Some(obs);
            if let Some(e) = err {
                return Err(e);
            }
        }
        Ok(())
    }

    /// The interior points of `dat` (components interleaved, x fastest).
    pub fn fetch_data<T: Element>(&mut self, dat: &Dat<T>) -> Result<Vec<T>> {
        let range = self.dat_info(dat.rt, dat.id)?.layout.interior();
        self.fetch_range(dat, range)
    }

    /// The points of `range` (any box inside the dataset, halo included), components
    /// interleaved, x fastest.
    pub fn fetch_range<T: Element>(
        &mut self,
        dat: &Dat<T>,
        range: impl Into<IterRange>,
    ) -> Result<Vec<T>> {
        let range = range.into();
        let layout = self.io_check(dat.rt, dat.id, T::TYPE, &range)?;
        let mut out: Vec<T> = vec![T::zeroed(); range.points() * layout.components];
        self.backend
            .download(dat.id, &layout, &range, bytemuck::cast_slice_mut(&mut out))?;
        if let Some(mut obs) = self.take_observer(true) {
            let mut q = Query::Fetch {
                dat: dat.id,
                name: &self.dats[dat.id.index()].name,
                range,
                bytes: bytemuck::cast_slice_mut(&mut out),
            };
            obs.on_query(&mut q);
            let err = obs.take_error();
            self.observer = Some(obs);
            if let Some(e) = err {
                return Err(e);
            }
        }
        Ok(out)
    }

    fn io_check(&self, rt: RtId, id: DatId, ty: ElemType, range: &IterRange) -> Result<DatLayout> {
        let info = self.dat_info(rt, id)?;
        if info.layout.ty != ty {
            return Err(OpsError::ForeignHandle {
                what: format!("dataset `{}`", info.name).into(),
            });
        }
        if !info.layout.contains(range) {
            return Err(OpsError::DataRangeOutside {
                dat: info.name.as_str().into(),
                range: range.to_string().into(),
                extent: info.layout.extent().to_string().into(),
            });
        }
        Ok(info.layout)
    }

    // ----------------------------------------------------------------------------------------
    // Observer and profiling
    // ----------------------------------------------------------------------------------------

    /// Installs the observer told about every loop and query (see [`crate::observer`]),
    /// returning the previous one.
    pub fn set_observer(
        &mut self,
        observer: Option<Box<dyn LoopObserver>>,
    ) -> Option<Box<dyn LoopObserver>> {
        self.tell_observer(true);
        self.hooks = Hooks::default();
        std::mem::replace(&mut self.observer, observer)
    }

    /// True when an observer is installed (and not currently running a hook).
    pub fn has_observer(&self) -> bool {
        self.observer.is_some()
    }

    /// The installed observer, if it is a `T`: how code that installed an observer reaches it
    /// again (the resilience layer's user API, e.g. `ops.checkpoint_now()`, is built on this).
    /// `None` when no observer is installed, when it is another type, or while one of its own
    /// hooks runs (the observer is taken out of the runtime then).
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # use ops_core::LoopObserver;
    /// struct Counter(u32);
    /// impl LoopObserver for Counter {}
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// ops.set_observer(Some(Box::new(Counter(7))));
    /// assert_eq!(ops.observer_mut::<Counter>().map(|c| c.0), Some(7));
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn observer_mut<T: LoopObserver>(&mut self) -> Option<&mut T> {
        self.tell_observer(true);
        let obs: &mut dyn LoopObserver = self.observer.as_deref_mut()?;
        let any: &mut dyn std::any::Any = obs;
        any.downcast_mut::<T>()
    }

    /// Runs `f` with the installed observer, if it is a `T`, and the [`Runtime`] its hooks get
    /// (the observer is out of the runtime meanwhile): how an observer's own user API (such as
    /// the resilience layer's `ops.resilient(...)`) reaches the runtime's observer-only
    /// operations. `None` when no `T` is installed.
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # use ops_core::LoopObserver;
    /// struct Counter(u32);
    /// impl LoopObserver for Counter {}
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// ops.set_observer(Some(Box::new(Counter(7))));
    /// let n = ops.with_observer(|c: &mut Counter, rt| (c.0, rt.reduction_values().len()));
    /// assert_eq!(n, Some((7, 0)));
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn with_observer<T: LoopObserver, R>(
        &mut self,
        f: impl FnOnce(&mut T, &mut Runtime<'_>) -> R,
    ) -> Option<R> {
        self.observer_mut::<T>()?;
        let mut obs = self.observer.take()?;
        let any: &mut dyn std::any::Any = &mut *obs;
        let out = any
            .downcast_mut::<T>()
            .map(|t| f(t, &mut Runtime::new(self)));
        self.restore_observer(obs);
        out
    }

    /// Tells the observer how many loops ran as it expected since it was last told
    /// ([`Runtime::expect`]); `end`: the expectation ends.
    fn tell_observer(&mut self, end: bool) {
        let e = &mut self.expected;
        let loops = e.untold(end);
        if loops > 0 || !e.results.is_empty() {
            if let Some(o) = self.observer.as_mut() {
                o.ran_as_expected(&Ran {
                    loops,
                    globals: &e.globals,
                    results: &e.results,
                    reductions: &self.reductions,
                });
            }
            e.results.clear();
        }
        e.globals.clear();
    }

    /// Takes the observer out for a hook, told first how many loops ran as it expected; `keep`:
    /// the hook is given no `Runtime` (`on_query`, `on_set`), and the expectation stands.
    fn take_observer(&mut self, keep: bool) -> Option<Box<dyn LoopObserver>> {
        self.tell_observer(!keep);
        self.observer.take()
    }

    /// Puts back an observer taken out for a hook, unless the hook installed another one.
    fn restore_observer(&mut self, obs: Box<dyn LoopObserver>) {
        if self.observer.is_none() {
            self.observer = Some(obs);
        }
    }

    /// Ends the program's use of the runtime: waits for the backend, then runs the observer's
    /// [`finish`](LoopObserver::finish) hook once (a checkpointing observer flushes its store
    /// and writes its report there). Dropping the runtime does the same if this was not called,
    /// printing an error instead of returning it. Later calls do nothing.
    pub fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        self.backend.synchronize()?;
        if let Some(path) = self.config.digest.clone() {
            crate::digest::write(self, &path)?;
        }
        if let Some(mut obs) = self.take_observer(false) {
            obs.finish(&mut Runtime::new(self));
            let err = obs.take_error();
            self.restore_observer(obs);
            if let Some(e) = err {
                return Err(e);
            }
        }
        Ok(())
    }

    // ----------------------------------------------------------------------------------------
    // Untyped access by id (for observers)
    // ----------------------------------------------------------------------------------------

    /// Number of datasets declared so far (freed ones included): ids run from 0 to this.
    #[inline]
    pub fn dat_count(&self) -> usize {
        self.dats.len()
    }

    /// The id of the dataset declared `index`-th (from 0), freed or not; `None` past the end.
    pub fn dat_id(&self, index: usize) -> Option<DatId> {
        (index < self.dats.len()).then_some(DatId(index as u32))
    }

    /// Everything known about dataset `id`, or `None` if there is no such dataset.
    ///
    /// ```
    /// # use ops_core::prelude::*;
    /// # let mut ops = ops_backends::ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// let d = ops.dat::<f32, 2>(&grid, "d", [5, 3], Halo::uniform(1))?;
    /// let desc = ops.dat_desc(d.id()).unwrap();
    /// assert_eq!((desc.name, desc.block_name, desc.layout.bytes()), ("d", "grid", 7 * 5 * 4));
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn dat_desc(&self, id: DatId) -> Option<DatDesc<'_>> {
        let d = self.dats.get(id.index())?;
        Some(DatDesc {
            id,
            name: &d.name,
            block: d.block,
            block_name: &self.blocks[d.block.index()].name,
            layout: d.layout,
            live: d.live,
        })
    }

    /// Copies the points of `range` (any box inside the dataset, halo included) of dataset
    /// `id` into `out` as bytes (components interleaved, x fastest; `out` must have exactly the
    /// box's size). Untyped and not reported to the observer: this is how an observer snapshots
    /// data.
    pub(crate) fn download_bytes(
        &mut self,
        id: DatId,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        let layout = self.raw_io_check(id, range, out.len())?;
        self.backend.download(id, &layout, range, out)
    }

    /// Copies `bytes` (the points of `range`, components interleaved, x fastest) into dataset
    /// `id`. Untyped and not reported to the observer: this is how an observer restores data.
    pub(crate) fn upload_bytes(
        &mut self,
        id: DatId,
        range: &IterRange,
        bytes: &[u8],
    ) -> Result<()> {
        let layout = self.raw_io_check(id, range, bytes.len())?;
        self.backend.upload(id, &layout, range, bytes)
    }

    /// The layout of live dataset `id` if `range` lies inside it.
    fn raw_io_layout(&self, id: DatId, range: &IterRange) -> Result<(&DatInfo, DatLayout)> {
        let info = match self.dats.get(id.index()) {
            Some(d) if d.live => d,
            _ => {
                return Err(OpsError::ForeignHandle {
                    what: format!("dataset #{}", id.0).into(),
                })
            }
        };
        if !info.layout.contains(range) {
            return Err(OpsError::DataRangeOutside {
                dat: info.name.as_str().into(),
                range: range.to_string().into(),
                extent: info.layout.extent().to_string().into(),
            });
        }
        Ok((info, info.layout))
    }

    /// [`Ops::raw_io_layout`], and a byte buffer of `len` bytes holds exactly `range`.
    fn raw_io_check(&self, id: DatId, range: &IterRange, len: usize) -> Result<DatLayout> {
        let (info, layout) = self.raw_io_layout(id, range)?;
        let expected = range.points() * layout.components * layout.ty.size();
        if len != expected {
            return Err(OpsError::DataLength {
                dat: info.name.as_str().into(),
                what: "the byte buffer",
                expected,
                got: len,
            });
        }
        Ok(layout)
    }

    /// Per-loop-name statistics, in first-call order.
    pub fn profile(&self) -> Vec<LoopProfile> {
        self.profiles.clone()
    }

    /// The profile as a table: calls, time, share of the total and GB/s, slowest first. On a
    /// backend that runs ahead of its device (`wgpu`) a note under it says that the times are
    /// the host's ([`profile::RUNS_AHEAD_NOTE`]).
    pub fn profile_table(&self) -> String {
        profile::table(&self.profiles, self.backend.runs_ahead())
    }

    /// Forgets all profiling statistics.
    pub fn reset_profile(&mut self) {
        self.profiles.clear();
        self.profile_index.clear();
    }

    fn record(&mut self, name: &str, seconds: f64, bytes: u64) {
        let i = match self.profile_index.get(name) {
            Some(&i) => i,
            None => {
                self.profiles.push(LoopProfile {
                    name: name.to_string(),
                    calls: 0,
                    seconds: 0.0,
                    bytes: 0,
                });
                self.profile_index
                    .insert(name.to_string(), self.profiles.len() - 1);
                self.profiles.len() - 1
            }
        };
        let p = &mut self.profiles[i];
        p.calls += 1;
        p.seconds += seconds;
        p.bytes = p.bytes.saturating_add(bytes);
    }

    // ----------------------------------------------------------------------------------------
    // Loops
    // ----------------------------------------------------------------------------------------

    /// Runs `kernel` at every point of `range` (in `block`'s index space) with `args` matched
    /// to its parameters by position.
    ///
    /// Everything is validated before anything runs (see [`OpsError`] for each check); on
    /// success the loop goes through the observer hook and the backend, reductions are folded
    /// into their handles, and the call is profiled under `name`.
    ///
    /// ```
    /// use ops_backends::prelude::*;
    ///
    /// #[kernel]
    /// fn scale(a: Read<f64>, b: Write<f64>, k: Global<f64>) {
    ///     b[(0, 0)] = k * a[(0, 0)];
    /// }
    ///
    /// #[kernel]
    /// fn total(a: Read<f64>, s: Sum<f64>) {
    ///     s += a[(0, 0)];
    /// }
    ///
    /// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// let a = ops.dat_with(&grid, "a", DatSpec::<f64, 2>::new([8, 8]).init(&[1.5; 64]))?;
    /// let b = ops.dat::<f64, 2>(&grid, "b", [8, 8], Halo::none())?;
    /// let pt = ops.stencil("S2D_00", &[[0, 0]])?;
    /// ops.par_loop(scale, "scale", &grid, [0..8, 0..8],
    ///     &[a.arg(&pt, Read), b.arg(&pt, Write), Arg::global(2.0_f64)])?;
    ///
    /// let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
    /// ops.par_loop(total, "total", &grid, [0..8, 0..8], &[b.arg(&pt, Read), sum.arg()])?;
    /// assert_eq!(ops.reduction_result(&sum)?, 64.0 * 3.0);
    ///
    /// // Every mismatch is an error before anything runs: here `b` is not declared `ReadWrite`.
    /// let err = ops.par_loop(scale, "scale", &grid, [0..8, 0..8],
    ///     &[a.arg(&pt, Read), b.arg(&pt, ReadWrite), Arg::global(2.0_f64)]).unwrap_err();
    /// assert!(matches!(err, OpsError::AccessMismatch { arg: 1, .. }));
    /// # Ok::<(), OpsError>(())
    /// ```
    #[track_caller]
    pub fn par_loop<K: Kernel>(
        &mut self,
        kernel: K,
        name: &str,
        block: &Block,
        range: impl Into<IterRange>,
        args: &[Arg],
    ) -> Result<()> {
        self.par_loop_dyn(&kernel, name, block, range.into(), args)
    }

    /// [`Ops::par_loop`] without generics.
    #[track_caller]
    pub fn par_loop_dyn(
        &mut self,
        kernel: &dyn Kernel,
        name: &str,
        block: &Block,
        range: IterRange,
        args: &[Arg],
    ) -> Result<()> {
        self.run_loop(LoopRequest {
            kernel,
            name,
            profile_as: name,
            block,
            range,
            args,
            location: std::panic::Location::caller(),
            execution: Execution::Kernel,
        })
    }

    /// Every loop, the application's and the runtime's own (boundary fills), goes through
    /// here: the observer's look before validation, validation, dispatch, profiling.
    pub(crate) fn run_loop(&mut self, req: LoopRequest<'_>) -> Result<()> {
        if self.hooks.skip_unvalidated {
            self.tell_observer(false);
        }
        if let Some(o) = self
            .observer
            .as_mut()
            .filter(|_| self.hooks.skip_unvalidated)
        {
            let call = crate::backend::LoopCall {
                name: req.name,
                kernel: req.kernel.name(),
                block: req.block.id,
                range: req.range,
                args: req.args,
                location: req.location,
            };
            if o.skip_unvalidated(&call) {
                return Ok(());
            }
        }
        let t0 = Instant::now();
        let known = self.plans.plan(
            req.location,
            req.name,
            req.kernel,
            req.block,
            &req.range,
            req.args,
        );
        let plan = match known {
            Some(plan) => plan,
            None => {
                let mut plan = self.plan_loop(
                    req.kernel,
                    req.name,
                    req.block,
                    req.range,
                    req.args,
                    req.location,
                )?;
                self.plans.insert(
                    req.location,
                    req.kernel,
                    req.block,
                    &req.range,
                    req.args,
                    &mut plan,
                );
                plan
            }
        };
        self.dispatch(req.kernel, &plan, req.execution)?;
        let dt = t0.elapsed().as_secs_f64();
        self.record(req.profile_as, dt, plan.bytes);
        Ok(())
    }

    /// The single dispatch point every validated loop goes through: observer, backend,
    /// reductions.
    fn dispatch(
        &mut self,
        kernel: &dyn Kernel,
        plan: &LoopPlan<'_>,
        execution: Execution,
    ) -> Result<()> {
        if self.observer.is_some() && self.expected.take(plan) {
            return self.run_plan(kernel, plan, execution);
        }
        let mut observer = self.take_observer(false);
        let action = match observer.as_mut() {
            Some(o) => {
                let a = o.before_loop(&mut Runtime::new(self), plan);
                if a == LoopAction::Refuse {
                    let e = o.take_error().unwrap_or_else(|| {
                        OpsError::Observer(ObserverError::msg(format!(
                            "the observer refused loop `{}` without saying why",
                            plan.name
                        )))
                    });
                    if self.observer.is_none() {
                        self.observer = observer;
                    }
                    return Err(e);
                }
                a
            }
            None => LoopAction::Run,
        };
        let result = match action {
            LoopAction::Run => self.run_plan(kernel, plan, execution),
            _ => Ok(()),
        };
        if let Some(o) = observer.as_mut().filter(|_| self.hooks.after_loop) {
            o.after_loop(&mut Runtime::new(self), plan, action);
        }
        // The hook may have installed another observer; the one that was running wins.
        if observer.is_some() {
            self.observer = observer;
        }
        result
    }

    /// Runs a validated loop on the backend.
    #[inline]
    fn run_plan(
        &mut self,
        kernel: &dyn Kernel,
        plan: &LoopPlan<'_>,
        execution: Execution,
    ) -> Result<()> {
        match execution {
            Execution::Kernel => self.execute(kernel, plan),
            Execution::Copy { from } => self.execute_copy(plan, &from),
        }
    }

    /// Runs a loop whose only effect is copying the box `from` of its written dataset to its
    /// range, through the backend's download and upload: on a distributed backend these reach
    /// points other processes own (a periodic boundary whose other side is elsewhere).
    fn execute_copy(&mut self, plan: &LoopPlan<'_>, from: &IterRange) -> Result<()> {
        let Some(ArgPlan::Dat(d)) = plan.args().first() else {
            return Ok(());
        };
        let layout = self.dats[d.dat.index()].layout;
        let mut bytes = vec![0u8; plan.range.points() * layout.components * layout.ty.size()];
        self.backend.download(d.dat, &layout, from, &mut bytes)?;
        self.backend.upload(d.dat, &layout, &plan.range, &bytes)
    }

    fn execute(&mut self, kernel: &dyn Kernel, plan: &LoopPlan<'_>) -> Result<()> {
        if plan.range.is_empty() {
            return Ok(());
        }
        if !plan.has_reductions {
            return self.backend.run(kernel, plan, &mut []);
        }
        let mut partials = [Scalar::I32(0); MAX_ARGS];
        for (k, a) in plan.args().iter().enumerate() {
            if let ArgPlan::Reduce { op, ty, .. } = a {
                partials[k] = Scalar::identity(*op, *ty);
            }
        }
        self.backend
            .run(kernel, plan, &mut partials[..plan.nargs])?;
        for (k, a) in plan.args().iter().enumerate() {
            if let ArgPlan::Reduce { id, op, ty } = a {
                let r = &mut self.reductions[id.index()];
                if partials[k].elem_type() != *ty {
                    return Err(OpsError::Backend {
                        backend: self.backend.name().into(),
                        message: format!(
                            "loop `{}`: reduction `{}` came back as {}",
                            plan.name,
                            r.name,
                            partials[k].elem_type()
                        )
                        .into(),
                    });
                }
                r.value = r.value.combine(*op, partials[k]);
            }
        }
        Ok(())
    }

    // ----------------------------------------------------------------------------------------
    // Handle lookup
    // ----------------------------------------------------------------------------------------

    pub(crate) fn block_info(&self, b: &Block) -> Result<&BlockInfo> {
        if b.rt != self.rt {
            return Err(OpsError::ForeignHandle {
                what: format!("block #{}", b.id.0).into(),
            });
        }
        self.blocks
            .get(b.id.index())
            .ok_or_else(|| OpsError::ForeignHandle {
                what: format!("block #{}", b.id.0).into(),
            })
    }

    pub(crate) fn dat_info(&self, rt: RtId, id: DatId) -> Result<&DatInfo> {
        match self.dats.get(id.index()) {
            Some(d) if rt == self.rt && d.live => Ok(d),
            _ => Err(OpsError::ForeignHandle {
                what: format!("dataset #{}", id.0).into(),
            }),
        }
    }

    pub(crate) fn stencil_info(&self, rt: RtId, id: StencilId) -> Result<&StencilInfo> {
        match self.stencils.get(id.index()) {
            Some(s) if rt == self.rt => Ok(s),
            _ => Err(OpsError::ForeignHandle {
                what: format!("stencil #{}", id.0).into(),
            }),
        }
    }

    pub(crate) fn reduction_info(&self, rt: RtId, id: ReductionId) -> Result<&ReductionInfo> {
        match self.reductions.get(id.index()) {
            Some(r) if rt == self.rt => Ok(r),
            _ => Err(OpsError::ForeignHandle {
                what: format!("reduction #{}", id.0).into(),
            }),
        }
    }
}

impl Drop for Ops {
    /// Runs [`Ops::finish`] if the program did not, printing its error (if any) to stderr.
    fn drop(&mut self) {
        if !self.finished {
            if let Err(e) = self.finish() {
                eprintln!("ops: error at exit: {e}");
            }
        }
    }
}

/// A reference to a kernel is a kernel, so `par_loop` also takes `&k` and `&dyn Kernel`.
impl<K: Kernel + ?Sized> Kernel for &K {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn params(&self) -> &'static [crate::kernel::Param] {
        (**self).params()
    }
    fn wgsl(&self) -> std::result::Result<&'static str, &'static str> {
        (**self).wgsl()
    }
    unsafe fn run(
        &self,
        ctx: &crate::kernel::ExecCtx,
        lo: [i32; 3],
        hi: [i32; 3],
        partials: &mut [Scalar],
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { (**self).run(ctx, lo, hi, partials) }
    }
}
