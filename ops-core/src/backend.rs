//! The interface between the runtime and an execution backend, and the validated loop plan the
//! runtime hands to it.
//!
//! The runtime ([`Ops`](crate::Ops)) owns the bookkeeping: names, layouts, validation,
//! reductions' running values, profiling and hooks. A [`Backend`] owns the storage of every
//! dataset and runs kernels over it:
//!
//! - [`Backend::alloc`] / [`Backend::free`]: storage for a dataset of a given [`DatLayout`],
//!   zero-initialised;
//! - [`Backend::upload`] / [`Backend::download`]: copy a box of points in or out, as bytes;
//! - [`Backend::run`]: run a kernel as described by a validated [`LoopPlan`]; a host backend
//!   builds the kernel's [`ExecCtx`] with
//!   [`LoopPlan::host_exec_ctx`]
//!   from its own storage pointers, a device backend keeps data where it is and uses the plan's
//!   per-argument layouts to bind its buffers;
//! - [`Backend::synchronize`]: wait for outstanding work.
//!
//! Host backends share [`exec::run_host`](crate::exec::run_host), which fixes how a range is
//! partitioned and how reduction partials are combined, so reductions are bitwise reproducible.

use crate::error::Result;
use crate::handles::{Arg, ArgView, BlockId, DatId, IterRange, ReductionId, StencilId};
use crate::kernel::{Access, DatView, ElemType, ExecCtx, Kernel, ReduceOp, Scalar, MAX_ARGS};

/// The storage layout of one dataset: element type, components, interior size, base index and
/// halo depths, padded to three dimensions (unused dimensions have size 1 and no halo).
///
/// Points are stored x fastest with components interleaved, halos included. The element index
/// of point `p` (global index, negative in the lower halo) and component `c` is
/// `((p_z - lo_z)·ny_tot + (p_y - lo_y))·nx_tot·comps + (p_x - lo_x)·comps + c` with
/// `lo = base + neg` ([`DatLayout::index`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DatLayout {
    /// Element type.
    pub ty: ElemType,
    /// Dimension count of the dataset's block (1, 2 or 3).
    pub dims: usize,
    /// Components per point (≥ 1).
    pub components: usize,
    /// Interior points per dimension (1 for unused dimensions).
    pub size: [usize; 3],
    /// Index of the first interior point per dimension.
    pub base: [i32; 3],
    /// Negative-side halo depths (≤ 0).
    pub neg: [i32; 3],
    /// Positive-side halo depths (≥ 0).
    pub pos: [i32; 3],
}

impl DatLayout {
    /// Lowest stored index per dimension: `base + neg`.
    pub fn lo(&self) -> [i64; 3] {
        std::array::from_fn(|d| self.base[d] as i64 + self.neg[d] as i64)
    }

    /// One past the highest stored index per dimension: `base + size + pos`.
    pub fn hi(&self) -> [i64; 3] {
        std::array::from_fn(|d| self.base[d] as i64 + self.size[d] as i64 + self.pos[d] as i64)
    }

    /// Stored points per dimension, halo included.
    pub fn total(&self) -> [usize; 3] {
        std::array::from_fn(|d| {
            (self.size[d] as i64 + self.pos[d] as i64 - self.neg[d] as i64) as usize
        })
    }

    /// Element distance between neighbouring points per dimension:
    /// `[comps, comps·nx_tot, comps·nx_tot·ny_tot]`.
    pub fn mem(&self) -> [isize; 3] {
        let t = self.total();
        let c = self.components as isize;
        [c, c * t[0] as isize, c * t[0] as isize * t[1] as isize]
    }

    /// Stored elements, halo included.
    pub fn elems(&self) -> usize {
        let t = self.total();
        t[0] * t[1] * t[2] * self.components
    }

    /// Stored bytes, halo included.
    pub fn bytes(&self) -> usize {
        self.elems() * self.ty.size()
    }

    /// The interior points as a range of the block's index space.
    pub fn interior(&self) -> IterRange {
        let mut r = IterRange {
            dims: self.dims as u8,
            lo: [0; 3],
            hi: [1; 3],
        };
        for d in 0..self.dims {
            r.lo[d] = self.base[d];
            r.hi[d] = (self.base[d] as i64 + self.size[d] as i64) as i32;
        }
        r
    }

    /// Every stored point, halo included, as a range.
    pub fn extent(&self) -> IterRange {
        let (lo, hi) = (self.lo(), self.hi());
        let mut r = IterRange {
            dims: self.dims as u8,
            lo: [0; 3],
            hi: [1; 3],
        };
        for d in 0..self.dims {
            r.lo[d] = lo[d] as i32;
            r.hi[d] = hi[d] as i32;
        }
        r
    }

    /// True when `range` has this layout's dimension count, is not inverted and lies inside the
    /// stored points (halo included). An empty range inside those bounds is contained.
    pub fn contains(&self, range: &IterRange) -> bool {
        if range.dims() != self.dims {
            return false;
        }
        let (lo, hi) = (self.lo(), self.hi());
        (0..3).all(|d| {
            let (a, b) = (range.lo[d] as i64, range.hi[d] as i64);
            a <= b && (a == b || (lo[d] <= a && b <= hi[d]))
        })
    }

    /// Element index of point `p` (global index, halo points allowed) and component `c`.
    /// Meaningful only for points inside the extent.
    pub fn index(&self, p: [i32; 3], c: usize) -> isize {
        let lo = self.lo();
        let mem = self.mem();
        (0..3)
            .map(|d| (p[d] as i64 - lo[d]) as isize * mem[d])
            .sum::<isize>()
            + c as isize
    }

    /// Calls `f(first_element, elements)` for every contiguous x-row of `range`, z outermost, y
    /// next, in the order a packed buffer of the box (components interleaved, x fastest) holds
    /// them. `range` must satisfy [`DatLayout::contains`].
    pub fn for_each_row(&self, range: &IterRange, mut f: impl FnMut(usize, usize)) {
        if range.is_empty() {
            return;
        }
        let row = (range.hi[0] - range.lo[0]) as usize * self.components;
        for z in range.lo[2]..range.hi[2] {
            for y in range.lo[1]..range.hi[1] {
                f(self.index([range.lo[0], y, z], 0) as usize, row);
            }
        }
    }
}

/// A validated dataset argument of a loop: which dataset, how it is accessed, and where each
/// iteration point's element lives in the dataset's [`DatLayout`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DatArgPlan {
    /// The dataset.
    pub dat: DatId,
    /// Access mode.
    pub access: Access,
    /// Element type.
    pub ty: ElemType,
    /// The dataset's components per point.
    pub components: usize,
    /// The stencil.
    pub stencil: StencilId,
    /// The stencil's stride per dimension (1, or 0 for dimensions the dataset does not vary in).
    pub stride: [i32; 3],
    /// Element index of iteration point (0, 0, 0) in the layout (may lie outside the storage
    /// when the range does not contain that point; only `origin + ...` for real points is used).
    pub origin: isize,
    /// Memory strides ([`DatLayout::mem`]).
    pub mem: [isize; 3],
    /// Element step per iteration index step: `mem[d] · stride[d]`.
    pub iter: [isize; 3],
    /// The box of dataset points the loop may touch: the range (times the stride) grown by the
    /// declared stencil's extent. Validated to lie inside the dataset, halo included. Empty when
    /// the range is empty.
    pub touched: IterRange,
    /// For `Write` arguments: the kernel assigns every component of the dataset at the centre
    /// point on every path ([`Param::full_write`](crate::kernel::Param::full_write) and the
    /// kernel touches all of the dataset's components), so no old value of the written box
    /// survives the loop. A `Write` that is not a full write must be tracked as read and
    /// written. Always false for other access modes.
    pub full_write: bool,
}

impl DatArgPlan {
    /// The kernel-facing view of this argument over storage starting at `base`.
    pub fn view(&self, base: *mut u8) -> DatView {
        DatView {
            base,
            origin: self.origin,
            mem: self.mem,
            iter: self.iter,
        }
    }

    /// True when the loop writes this dataset (`Write`, `ReadWrite` or `Inc`).
    pub fn writes(&self) -> bool {
        self.access != Access::Read
    }

    /// True when the loop may observe old values of this dataset: `Read`, `ReadWrite`, `Inc`,
    /// and a `Write` that is not a [full write](DatArgPlan::full_write).
    pub fn reads(&self) -> bool {
        self.access != Access::Write || !self.full_write
    }

    /// The box of dataset points a writing argument writes (its centre points): the loop's
    /// range, except `0..1` in dimensions the stencil does not stride in. Empty when the range
    /// is empty. Meaningful for writing arguments (writes happen at the centre only).
    pub fn centre(&self, range: &IterRange) -> IterRange {
        let mut c = *range;
        c.dims = self.touched.dims;
        if range.is_empty() {
            return self.touched;
        }
        for d in 0..self.touched.dims() {
            if self.stride[d] == 0 {
                c.lo[d] = 0;
                c.hi[d] = 1;
            }
        }
        c
    }

    /// The points whose old values the loop may observe through this argument: the range grown
    /// by the stencil for `Read`, the centre box for `ReadWrite`, `Inc` and a `Write` that is
    /// not a full write; `None` for a full write.
    pub fn observed(&self, range: &IterRange) -> Option<IterRange> {
        if !self.reads() {
            return None;
        }
        Some(if self.access == Access::Read {
            self.touched
        } else {
            self.centre(range)
        })
    }

    /// The points the loop writes through this argument (its centre box); `None` for `Read`.
    pub fn written(&self, range: &IterRange) -> Option<IterRange> {
        self.writes().then(|| self.centre(range))
    }
}

/// One validated loop argument, by kernel parameter position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgPlan {
    /// Unused slot (positions at or beyond the argument count).
    None,
    /// A dataset argument.
    Dat(DatArgPlan),
    /// A global constant.
    Global(Scalar),
    /// A reduction the kernel folds into.
    Reduce {
        /// The reduction.
        id: ReductionId,
        /// Its operation.
        op: ReduceOp,
        /// Its element type.
        ty: ElemType,
    },
    /// The iteration index.
    Idx,
}

impl ArgPlan {
    /// What the argument passes, as [`Arg::view`](crate::Arg::view) shows it before
    /// validation; `None` for an unused slot.
    #[inline]
    pub fn view(&self) -> Option<ArgView> {
        // By reference: a dataset argument's plan is large, and observers call this per loop.
        Some(match self {
            ArgPlan::None => return None,
            ArgPlan::Dat(d) => ArgView::Dat {
                dat: d.dat,
                stencil: d.stencil,
                access: d.access,
            },
            ArgPlan::Global(s) => ArgView::Global(*s),
            ArgPlan::Reduce { id, op, .. } => ArgView::Reduce { id: *id, op: *op },
            ArgPlan::Idx => ArgView::Idx,
        })
    }

    /// The value of a global constant argument; `None` for any other argument.
    ///
    /// ```
    /// use ops_core::{ArgPlan, Scalar};
    /// assert_eq!(ArgPlan::Global(Scalar::F64(0.5)).global(), Some(Scalar::F64(0.5)));
    /// assert_eq!(ArgPlan::Idx.global(), None);
    /// ```
    #[inline]
    pub fn global(&self) -> Option<Scalar> {
        match self {
            ArgPlan::Global(v) => Some(*v),
            _ => None,
        }
    }
}

/// A `par_loop` call before validation, as [`LoopObserver::skip_unvalidated`](
/// crate::LoopObserver::skip_unvalidated) sees it.
#[derive(Clone, Copy, Debug)]
pub struct LoopCall<'a> {
    /// The loop's name.
    pub name: &'a str,
    /// The kernel's name.
    pub kernel: &'static str,
    /// The block iterated over.
    pub block: BlockId,
    /// The iteration range as given.
    pub range: IterRange,
    /// The arguments as given.
    pub args: &'a [Arg],
    /// Where the application called `par_loop`.
    pub location: &'static std::panic::Location<'static>,
}

/// A loop after validation: everything a backend needs to run it, and everything an observer
/// needs to know what it touches. Built on the stack for every `par_loop`, never allocated.
#[derive(Clone, Copy, Debug)]
pub struct LoopPlan<'a> {
    /// The loop's name as given to `par_loop`.
    pub name: &'a str,
    /// The kernel's name.
    pub kernel: &'static str,
    /// The block iterated over.
    pub block: BlockId,
    /// The block's dimension count.
    pub dims: usize,
    /// The iteration range (dimensions beyond `dims` are `0..1`).
    pub range: IterRange,
    /// Number of arguments (= kernel parameters).
    pub nargs: usize,
    /// The arguments; slots from `nargs` on are [`ArgPlan::None`].
    pub args: [ArgPlan; MAX_ARGS],
    /// True when every dataset argument steps by one element along x.
    pub unit_x: bool,
    /// True when some argument is a reduction.
    pub has_reductions: bool,
    /// True when some argument is a global constant ([`ArgPlan::Global`]).
    pub has_globals: bool,
    /// Estimated bytes moved (points × element size × components, twice for `ReadWrite`/`Inc`).
    pub bytes: u64,
    /// Where the application called `par_loop` (`#[track_caller]`): with the name, a stable key
    /// for "this loop in the program text" that observers use to recognise recurring loops.
    pub location: &'static std::panic::Location<'static>,
    /// The number of this call's shape (call site, name, kernel, block, range and arguments,
    /// global constants' values aside): calls with the same number have the same shape, so an
    /// observer recognises a repeated call by it. Numbers are never reused within a runtime;
    /// `None` for a call the runtime did not number.
    pub shape: Option<u32>,
}

impl LoopPlan<'_> {
    /// The arguments actually passed.
    pub fn args(&self) -> &[ArgPlan] {
        &self.args[..self.nargs]
    }

    /// Builds the kernel context for storage in host memory: `base_of(dat)` gives the start of
    /// each dataset's storage (laid out as its [`DatLayout`]), or `None` if the backend has no
    /// storage for it, which is reported as an error.
    pub fn host_exec_ctx(
        &self,
        backend: &str,
        mut base_of: impl FnMut(DatId) -> Option<*mut u8>,
    ) -> Result<ExecCtx> {
        let mut ctx = ExecCtx::new();
        ctx.unit_x = self.unit_x;
        for (k, a) in self.args().iter().enumerate() {
            match a {
                ArgPlan::Dat(d) => {
                    let base = base_of(d.dat).ok_or_else(|| crate::OpsError::Backend {
                        backend: backend.into(),
                        message: format!(
                            "loop `{}`: no storage for dataset #{}",
                            self.name,
                            d.dat.index()
                        )
                        .into(),
                    })?;
                    ctx.dats[k] = d.view(base);
                }
                ArgPlan::Global(s) => ctx.globals[k] = *s,
                _ => {}
            }
        }
        Ok(ctx)
    }
}

/// An execution backend: owns every dataset's storage and runs kernels over it.
///
/// The runtime calls these methods only with validated input: layouts from [`Ops`](crate::Ops),
/// boxes that [`DatLayout::contains`] accepts, byte slices of exactly the box's size, and plans
/// whose every access lies inside the datasets' storage.
pub trait Backend: Send {
    /// The backend's name (`"seq"`, `"rayon"`, ...).
    fn name(&self) -> &'static str;

    /// Worker threads the backend runs on (1 for sequential backends).
    fn threads(&self) -> usize {
        1
    }

    /// Allocates zero-initialised storage for dataset `dat` with `layout`.
    fn alloc(&mut self, dat: DatId, layout: &DatLayout) -> Result<()>;

    /// Releases the storage of `dat` (no-op if it has none).
    fn free(&mut self, dat: DatId);

    /// Copies `bytes` (the points of `range`, components interleaved, x fastest) into `dat`.
    fn upload(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        bytes: &[u8],
    ) -> Result<()>;

    /// Copies the points of `range` of `dat` into `out` (components interleaved, x fastest).
    fn download(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()>;

    /// Runs `kernel` over `plan.range` (never empty).
    ///
    /// `partials` has one slot per argument; on entry reduction slots hold their operation's
    /// identity, on return they must hold the loop's combined contribution, combined in an
    /// order that depends only on the range (see [`exec`](crate::exec)).
    fn run(
        &mut self,
        kernel: &dyn Kernel,
        plan: &LoopPlan<'_>,
        partials: &mut [Scalar],
    ) -> Result<()>;

    /// Waits until all submitted work is done.
    fn synchronize(&mut self) -> Result<()> {
        Ok(())
    }

    /// True when [`Backend::run`] may return before the loop has run: its work is queued for a
    /// device and waited for only by a later reduction result, fetch or [`Backend::synchronize`].
    /// The per-loop profile then times the host's part of each loop (see
    /// [`Ops::profile_table`](crate::Ops::profile_table)).
    fn runs_ahead(&self) -> bool {
        false
    }

    /// Allocates storage for `dat`, declared on `block`. Distributed backends override this to
    /// decompose the block; the default is [`Backend::alloc`].
    fn alloc_on(&mut self, block: BlockId, dat: DatId, layout: &DatLayout) -> Result<()> {
        let _ = block;
        self.alloc(dat, layout)
    }

    /// Distinct threads that have run parts of loops so far: more than one only when loops
    /// really ran in parallel (tests of thread-count independence check it).
    fn threads_used(&self) -> usize {
        1
    }

    /// Bytes of halo data this process has sent to others so far (`None` for a single
    /// process).
    fn halo_bytes_sent(&self) -> Option<u64> {
        None
    }

    /// The processes of a distributed run, or `None` for a single process.
    fn comm(&mut self) -> Option<&mut dyn Comm> {
        None
    }

    /// The part of `range` (points of `dat`, in global indices) that this process owns: what it
    /// saves in a checkpoint, every point being owned by exactly one process. A single process
    /// owns everything.
    fn owned_part(&self, dat: DatId, layout: &DatLayout, range: &IterRange) -> IterRange {
        let _ = (dat, layout);
        *range
    }

    /// Copies the points of `range`, which must lie in this process's
    /// [owned part](Backend::owned_part), into `out` without talking to other processes (where
    /// [`Backend::download`] gathers a distributed box on every process).
    fn download_owned(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        self.download(dat, layout, range, out)
    }

    /// Starts copying the points of `range` of `dat` to the host without waiting for them:
    /// the returned [`PendingBytes`] delivers them later, on any thread, and what the
    /// backend runs meanwhile does not change them. A checkpoint written by a background
    /// thread uses it so that the computation never waits for a device-to-host transfer.
    /// `None` (the default) means the backend has no transfer to overlap (host memory) and
    /// [`Backend::download_owned`] is the way; distributed backends keep the default.
    fn begin_download(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
    ) -> Result<Option<PendingBytes>> {
        let _ = (dat, layout, range);
        Ok(None)
    }
}

/// Bytes on their way to the host ([`Backend::begin_download`]): [`PendingBytes::wait`]
/// blocks until they have arrived and hands them over. It can be sent to another thread.
///
/// ```
/// # use ops_core::backend::PendingBytes;
/// let later = PendingBytes::new(3, || Ok(vec![1, 2, 3]));
/// assert_eq!(later.len(), 3);
/// assert_eq!(later.wait()?, [1, 2, 3]);
/// # Ok::<(), ops_core::OpsError>(())
/// ```
pub struct PendingBytes {
    len: usize,
    finish: Box<dyn FnOnce() -> Result<Vec<u8>> + Send>,
}

impl PendingBytes {
    /// `len` bytes that `finish` delivers (blocking until they are there).
    pub fn new(len: usize, finish: impl FnOnce() -> Result<Vec<u8>> + Send + 'static) -> Self {
        PendingBytes {
            len,
            finish: Box::new(finish),
        }
    }

    /// Bytes delivered.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty box.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Waits for the bytes.
    pub fn wait(self) -> Result<Vec<u8>> {
        (self.finish)()
    }
}

impl std::fmt::Debug for PendingBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingBytes")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// How the processes of a distributed run exchange the few values the runtime and the
/// resilience layer must agree on. Every method is collective: all processes call it, in the
/// same order.
pub trait Comm {
    /// This process's rank, `0..size()`.
    fn rank(&self) -> usize;

    /// Number of processes.
    fn size(&self) -> usize;

    /// Every process's `mine`, indexed by rank.
    fn all_gather(&mut self, mine: &[u8]) -> Result<Vec<Vec<u8>>>;

    /// Sends `mine` to rank `(rank + 1) % size` and returns what rank `(rank - 1) % size`
    /// sent: how a process hands a copy of its checkpoint to its partner.
    fn ring_shift(&mut self, mine: &[u8]) -> Result<Vec<u8>>;
}
