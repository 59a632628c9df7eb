//! Handles to runtime-owned objects and the small value types used to describe them.
//!
//! Every handle ([`Block`], [`Dat`], [`Stencil`], [`Reduction`]) is a `Copy` token: the data it
//! names lives inside [`Ops`](crate::Ops), and every access goes through a runtime call. A handle
//! remembers which runtime made it, so using it with another one is an error, not a panic.

use std::marker::PhantomData;
use std::ops::Range;

use crate::kernel::{Access, ElemType, Element, ReduceOp, Scalar};

/// Identifies one runtime instance inside handles.
pub(crate) type RtId = u32;

/// The index of a dataset inside its runtime; what backends and observers see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DatId(pub(crate) u32);

impl DatId {
    /// The dataset's index, dense from 0 in creation order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The index of a stencil inside its runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StencilId(pub(crate) u32);

impl StencilId {
    /// The stencil's index, dense from 0 in creation order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The index of a reduction inside its runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReductionId(pub(crate) u32);

impl ReductionId {
    /// The reduction's index, dense from 0 in creation order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The index of a block inside its runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub(crate) u32);

impl BlockId {
    /// The block's index, dense from 0 in creation order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A structured block: an index space of 1, 2 or 3 dimensions that datasets are declared on and
/// loops iterate over. Made by [`Ops::block`](crate::Ops::block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    pub(crate) rt: RtId,
    pub(crate) id: BlockId,
    pub(crate) dims: u8,
}

impl Block {
    /// The block's dimension count (1, 2 or 3).
    pub fn dims(&self) -> usize {
        self.dims as usize
    }

    /// The block's id inside its runtime.
    pub fn id(&self) -> BlockId {
        self.id
    }
}

/// Halo depths of a dataset: `neg[d] ≤ 0` points before the interior and `pos[d] ≥ 0` after it,
/// per dimension.
///
/// ```
/// use ops_core::prelude::*;
/// let h = Halo::new([-2, -2], [2, 2]);
/// assert_eq!(h.neg(), [-2, -2]);
/// let none: Halo<3> = Halo::none();
/// assert_eq!(none.pos(), [0, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Halo<const N: usize> {
    neg: [i32; N],
    pos: [i32; N],
}

impl<const N: usize> Halo<N> {
    /// A halo `neg[d]` points deep before the interior and `pos[d]` after it (`neg ≤ 0 ≤ pos`;
    /// signs are checked when the dataset is made).
    pub fn new(neg: [i32; N], pos: [i32; N]) -> Self {
        Halo { neg, pos }
    }

    /// No halo.
    pub fn none() -> Self {
        Halo {
            neg: [0; N],
            pos: [0; N],
        }
    }

    /// The same depth `d ≥ 0` on every side.
    pub fn uniform(d: i32) -> Self {
        Halo {
            neg: [-d; N],
            pos: [d; N],
        }
    }

    /// Negative-side depths (each ≤ 0).
    pub fn neg(&self) -> [i32; N] {
        self.neg
    }

    /// Positive-side depths (each ≥ 0).
    pub fn pos(&self) -> [i32; N] {
        self.pos
    }
}

impl<const N: usize> Default for Halo<N> {
    fn default() -> Self {
        Self::none()
    }
}

/// Everything needed to declare a dataset beyond its size: halo, base index, components and
/// initial values. Pass it to [`Ops::dat_with`](crate::Ops::dat_with).
///
/// ```
/// use ops_core::prelude::*;
/// let spec = DatSpec::<f64, 2>::new([4, 3])
///     .halo(Halo::new([-1, -1], [1, 1]))
///     .base([0, 0])
///     .components(2)
///     .init(&[0.5; 4 * 3 * 2]);
/// assert_eq!(spec.size(), [4, 3]);
/// ```
#[derive(Clone, Debug)]
pub struct DatSpec<T: Element, const N: usize> {
    pub(crate) size: [usize; N],
    pub(crate) halo: Halo<N>,
    pub(crate) base: [i32; N],
    pub(crate) components: usize,
    pub(crate) init: Option<Vec<T>>,
}

impl<T: Element, const N: usize> DatSpec<T, N> {
    /// A dataset of `size` interior points per dimension, no halo, base index 0, one component,
    /// zero-initialised.
    pub fn new(size: [usize; N]) -> Self {
        DatSpec {
            size,
            halo: Halo::none(),
            base: [0; N],
            components: 1,
            init: None,
        }
    }

    /// Sets the halo.
    pub fn halo(mut self, halo: Halo<N>) -> Self {
        self.halo = halo;
        self
    }

    /// Sets the index of the first interior point per dimension (default 0).
    pub fn base(mut self, base: [i32; N]) -> Self {
        self.base = base;
        self
    }

    /// Sets the number of components per point (default 1).
    pub fn components(mut self, components: usize) -> Self {
        self.components = components;
        self
    }

    /// Initial values of the interior points (halo points start at zero): components
    /// interleaved, x fastest; the length must be points × components.
    pub fn init(mut self, values: &[T]) -> Self {
        self.init = Some(values.to_vec());
        self
    }

    /// The interior size.
    pub fn size(&self) -> [usize; N] {
        self.size
    }
}

/// A dataset handle: values of type `T` at every point of a block, owned by the runtime.
/// Made by [`Ops::dat`](crate::Ops::dat) or [`Ops::dat_with`](crate::Ops::dat_with).
pub struct Dat<T: Element> {
    pub(crate) rt: RtId,
    pub(crate) id: DatId,
    pub(crate) _elem: PhantomData<fn() -> T>,
}

impl<T: Element> Clone for Dat<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for Dat<T> {}

impl<T: Element> std::fmt::Debug for Dat<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Dat<{}>({})", T::TYPE, self.id.0)
    }
}

impl<T: Element> PartialEq for Dat<T> {
    fn eq(&self, other: &Self) -> bool {
        self.rt == other.rt && self.id == other.id
    }
}
impl<T: Element> Eq for Dat<T> {}

impl<T: Element> Dat<T> {
    /// A loop argument: this dataset accessed through `stencil` with `access` (`Read`, `Write`,
    /// `ReadWrite` or `Inc`).
    ///
    /// ```
    /// use ops_backends::prelude::*;
    /// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// let dens = ops.dat::<f64, 2>(&grid, "density0", [4, 4], Halo::none())?;
    /// let point = ops.stencil("S2D_00", &[[0, 0]])?;
    /// let a = dens.arg(&point, Read);
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn arg(&self, stencil: &Stencil, access: Access) -> Arg {
        Arg {
            kind: ArgKind::Dat {
                rt: self.rt,
                dat: self.id,
                ty: T::TYPE,
                stencil: stencil.id,
                stencil_rt: stencil.rt,
                access,
            },
        }
    }

    /// The dataset's id inside its runtime.
    pub fn id(&self) -> DatId {
        self.id
    }
}

/// A stencil: the set of offsets a loop argument may access around each iteration point,
/// optionally strided. Made by [`Ops::stencil`](crate::Ops::stencil) or
/// [`Ops::strided_stencil`](crate::Ops::strided_stencil).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stencil {
    pub(crate) rt: RtId,
    pub(crate) id: StencilId,
    pub(crate) dims: u8,
}

impl Stencil {
    /// The stencil's dimension count.
    pub fn dims(&self) -> usize {
        self.dims as usize
    }

    /// The stencil's id inside its runtime.
    pub fn id(&self) -> StencilId {
        self.id
    }
}

/// A box of the block's index space to iterate over (or to set/fetch): `lo[d]..hi[d]` per
/// dimension. Halo points have negative indices or indices ≥ size.
///
/// ```
/// use ops_core::prelude::*;
/// let r: IterRange = [0..4, -1..3].into();
/// assert_eq!(r.dims(), 2);
/// assert_eq!(r.points(), 16);
/// assert_eq!(r.lo(), [0, -1, 0]);
/// assert_eq!(r.hi(), [4, 3, 1]);
/// let one: IterRange = (0..10).into(); // 1-D
/// assert_eq!(one.dims(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IterRange {
    pub(crate) dims: u8,
    pub(crate) lo: [i32; 3],
    pub(crate) hi: [i32; 3],
}

impl IterRange {
    /// The points both boxes hold (possibly empty), with `self`'s dimension count.
    ///
    /// ```
    /// # use ops_core::IterRange;
    /// let a: IterRange = [0..4, 0..4].into();
    /// let b: IterRange = [2..6, -1..1].into();
    /// assert_eq!(a.intersect(&b), [2..4, 0..1].into());
    /// assert!(a.intersect(&[5..6, 0..1].into()).is_empty());
    /// ```
    pub fn intersect(&self, other: &IterRange) -> IterRange {
        let mut r = *self;
        for d in 0..3 {
            r.lo[d] = self.lo[d].max(other.lo[d]);
            r.hi[d] = self.hi[d].min(other.hi[d]).max(r.lo[d]);
        }
        r
    }

    /// Whether the two boxes share at least one point.
    pub fn overlaps(&self, other: &IterRange) -> bool {
        (0..3).all(|d| self.lo[d].max(other.lo[d]) < self.hi[d].min(other.hi[d]))
    }

    /// A range from explicit bounds; dimensions at or beyond `dims` are set to `0..1`.
    /// Returns `None` when `dims` is not 1, 2 or 3.
    pub fn new(dims: usize, lo: [i32; 3], hi: [i32; 3]) -> Option<Self> {
        if !(1..=3).contains(&dims) {
            return None;
        }
        let mut r = IterRange {
            dims: dims as u8,
            lo: [0; 3],
            hi: [1; 3],
        };
        r.lo[..dims].copy_from_slice(&lo[..dims]);
        r.hi[..dims].copy_from_slice(&hi[..dims]);
        Some(r)
    }

    /// The dimension count.
    pub fn dims(&self) -> usize {
        self.dims as usize
    }

    /// Lower bounds, padded with 0.
    pub fn lo(&self) -> [i32; 3] {
        self.lo
    }

    /// Upper bounds (exclusive), padded with 1.
    pub fn hi(&self) -> [i32; 3] {
        self.hi
    }

    /// Number of points (0 if inverted or empty in any dimension; saturates at `usize::MAX`).
    pub fn points(&self) -> usize {
        (0..3)
            .map(|d| (self.hi[d] as i64 - self.lo[d] as i64).max(0) as usize)
            .fold(1usize, |a, b| a.saturating_mul(b))
    }

    /// True when the range holds no point.
    pub fn is_empty(&self) -> bool {
        (0..3).any(|d| self.hi[d] <= self.lo[d])
    }
}

impl std::fmt::Display for IterRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[")?;
        for d in 0..self.dims() {
            if d > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}..{}", self.lo[d], self.hi[d])?;
        }
        f.write_str("]")
    }
}

macro_rules! range_from {
    ($n:literal) => {
        impl From<[Range<i32>; $n]> for IterRange {
            fn from(r: [Range<i32>; $n]) -> Self {
                let mut out = IterRange {
                    dims: $n,
                    lo: [0; 3],
                    hi: [1; 3],
                };
                for (d, rd) in r.iter().enumerate() {
                    out.lo[d] = rd.start;
                    out.hi[d] = rd.end;
                }
                out
            }
        }
    };
}
range_from!(1);

/// A 1-D range: `0..n` means the same as `[0..n]` (which clippy's `single_range_in_vec_init`
/// flags).
impl From<Range<i32>> for IterRange {
    fn from(r: Range<i32>) -> Self {
        IterRange::from([r])
    }
}

range_from!(2);
range_from!(3);

/// A reduction handle: a value of type `T` that loops fold into with `op`, read (and reset) with
/// [`Ops::reduction_result`](crate::Ops::reduction_result). Made by
/// [`Ops::reduction`](crate::Ops::reduction).
pub struct Reduction<T: Element> {
    pub(crate) rt: RtId,
    pub(crate) id: ReductionId,
    pub(crate) op: ReduceOp,
    pub(crate) _elem: PhantomData<fn() -> T>,
}

impl<T: Element> Clone for Reduction<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for Reduction<T> {}

impl<T: Element> std::fmt::Debug for Reduction<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Reduction<{}>({}, {})", T::TYPE, self.op, self.id.0)
    }
}

impl<T: Element> Reduction<T> {
    /// A loop argument that folds the kernel's updates into this reduction.
    pub fn arg(&self) -> Arg {
        Arg {
            kind: ArgKind::Reduce {
                rt: self.rt,
                id: self.id,
                ty: T::TYPE,
                op: self.op,
            },
        }
    }

    /// The reduction's operation.
    pub fn op(&self) -> ReduceOp {
        self.op
    }

    /// The reduction's id inside its runtime.
    pub fn id(&self) -> ReductionId {
        self.id
    }
}

/// What a `par_loop` argument passes ([`Arg::view`], [`ArgPlan::view`](crate::ArgPlan::view)):
/// the same for a call before validation and for its validated plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgView {
    /// A dataset through a stencil.
    Dat {
        /// The dataset.
        dat: DatId,
        /// The stencil.
        stencil: StencilId,
        /// The access mode.
        access: Access,
    },
    /// A global constant's value.
    Global(Scalar),
    /// A reduction.
    Reduce {
        /// The reduction.
        id: ReductionId,
        /// Its operation.
        op: ReduceOp,
    },
    /// The iteration index.
    Idx,
}

/// One `par_loop` argument, matched by position to a kernel parameter.
///
/// Made by [`Dat::arg`], [`Arg::global`], [`Reduction::arg`] or [`Arg::idx`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arg {
    pub(crate) kind: ArgKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ArgKind {
    Dat {
        rt: RtId,
        dat: DatId,
        ty: ElemType,
        stencil: StencilId,
        stencil_rt: RtId,
        access: Access,
    },
    Global(Scalar),
    Reduce {
        rt: RtId,
        id: ReductionId,
        ty: ElemType,
        op: ReduceOp,
    },
    Idx,
}

impl Arg {
    /// A global constant: the same value at every point (a `Global<T>` parameter).
    ///
    /// ```
    /// use ops_core::prelude::*;
    /// let gamma = Arg::global(1.4_f64);
    /// ```
    pub fn global<T: Element>(value: T) -> Arg {
        Arg {
            kind: ArgKind::Global(value.to_scalar()),
        }
    }

    /// The iteration index (an `Idx` parameter).
    ///
    /// ```
    /// use ops_backends::prelude::*;
    ///
    /// #[kernel]
    /// fn number(idx: Idx, out: Write<i32>) {
    ///     out[(0, 0)] = idx[0] + 10 * idx[1];
    /// }
    ///
    /// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let grid = ops.block("grid", 2)?;
    /// let out = ops.dat::<i32, 2>(&grid, "out", [2, 2], Halo::new([-1, -1], [0, 0]))?;
    /// let pt = ops.stencil("S2D_00", &[[0, 0]])?;
    /// ops.par_loop(number, "number", &grid, [-1..2, -1..2], &[Arg::idx(), out.arg(&pt, Write)])?;
    /// assert_eq!(ops.fetch_range(&out, [-1..2, -1..0])?, vec![-11, -10, -9]);
    /// assert_eq!(ops.fetch_data(&out)?, vec![0, 1, 10, 11]);
    /// # Ok::<(), OpsError>(())
    /// ```
    pub fn idx() -> Arg {
        Arg { kind: ArgKind::Idx }
    }

    /// What the argument passes, without its runtime: observers compare calls with it.
    ///
    /// ```
    /// use ops_core::prelude::*;
    /// use ops_core::{ArgView, Scalar};
    /// assert_eq!(Arg::global(2.5_f64).view(), ArgView::Global(Scalar::F64(2.5)));
    /// assert_eq!(Arg::idx().view(), ArgView::Idx);
    /// ```
    pub fn view(&self) -> ArgView {
        match self.kind {
            ArgKind::Dat {
                dat,
                stencil,
                access,
                ..
            } => ArgView::Dat {
                dat,
                stencil,
                access,
            },
            ArgKind::Global(s) => ArgView::Global(s),
            ArgKind::Reduce { id, op, .. } => ArgView::Reduce { id, op },
            ArgKind::Idx => ArgView::Idx,
        }
    }

    /// The argument's kind, in words (for messages).
    pub(crate) fn describe(&self) -> String {
        match self.kind {
            ArgKind::Dat { access, .. } => format!("a dataset ({access})"),
            ArgKind::Global(s) => format!("a global constant ({})", s.elem_type()),
            ArgKind::Reduce { op, .. } => format!("a reduction ({op})"),
            ArgKind::Idx => "the iteration index".to_string(),
        }
    }
}
