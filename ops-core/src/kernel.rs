//! The contract between `#[kernel]`-generated code and the runtime.
//!
//! A kernel is written once as a plain Rust `fn` whose parameters are the accessor marker types of
//! this module ([`Read`], [`Write`], [`ReadWrite`], [`Inc`], [`Global`], [`Min`], [`Max`], [`Sum`],
//! [`Idx`]). The [`kernel`](macro@crate::kernel) attribute replaces the `fn` with a unit struct of the same
//! name implementing [`Kernel`]: its signature ([`Param`]s with access mode, element type and the
//! stencil offsets the body uses), its WGSL source, and a CPU entry point that runs the body over a
//! box of the iteration space, one contiguous row at a time.
//!
//! Backends call [`Kernel::run`] with an [`ExecCtx`] the runtime built after validating every
//! argument, so the generated code does no bounds checks.
//!
//! Kernels call functions marked [`kernel_fn`](macro@crate::kernel_fn) and name constants marked
//! [`kernel_const`](macro@crate::kernel_const), defined in any module or crate; the WGSL of a
//! kernel includes the functions it calls (`docs/kernels.md` describes the whole language):
//!
//! ```
//! use ops_backends::prelude::*;
//! use ops_core::kernel::Kernel;
//!
//! #[kernel_fn]
//! fn minmod(a: f64, b: f64) -> f64 {
//!     if a * b <= 0.0 {
//!         return 0.0;
//!     }
//!     if a.abs() < b.abs() { a } else { b }
//! }
//!
//! #[kernel_const]
//! const HALF: f64 = 0.5;
//!
//! #[kernel]
//! fn slope(u: Read<f64>, s: Write<f64>) {
//!     let weights = [HALF, 1.0];
//!     s[0] = minmod(u[0] - u[-1], u[1] - u[0]) * weights[0];
//! }
//!
//! assert!(slope.wgsl().unwrap().contains("fn kf_minmod_"));
//! let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
//! let line = ops.block("line", 1)?;
//! let u = ops.dat_with(&line, "u", DatSpec::new([4]).halo(Halo::uniform(1)).init(&[0.0, 1.0, 3.0, 4.0]))?;
//! let s = ops.dat::<f64, 1>(&line, "s", [4], Halo::none())?;
//! let s3 = ops.stencil("S3", &[[-1], [0], [1]])?;
//! let pt = ops.stencil("pt", &[[0]])?;
//! ops.par_loop(slope, "slope", &line, [1..3], &[u.arg(&s3, Read), s.arg(&pt, Write)])?;
//! assert_eq!(ops.fetch_range(&s, [1..3])?, vec![0.5, 0.5]);
//! # Ok::<(), OpsError>(())
//! ```

use std::marker::PhantomData;

/// The WGSL every generated kernel shader starts with: the loop-description binding and helpers.
pub const WGSL_PRELUDE: &str = include_str!("../../shaders/prelude.wgsl");

/// The complete WGSL module of a kernel: [`WGSL_PRELUDE`] followed by the kernel's own shader.
///
/// Fails with the reason the kernel has no WGSL form (for example `exp` on `f64`).
pub fn full_wgsl(kernel: &dyn Kernel) -> Result<String, &'static str> {
    Ok(format!("{WGSL_PRELUDE}\n{}", kernel.wgsl()?))
}

/// A kernel compiled into this program; `#[kernel]` registers every kernel it expands.
///
/// [`registered_kernels`] lists them, so a test can check every kernel of a program (for example
/// that its WGSL validates) without naming each one.
pub struct Registered(pub &'static dyn Kernel);

inventory::collect!(Registered);

/// Every kernel linked into this program, in no particular order.
pub fn registered_kernels() -> impl Iterator<Item = &'static dyn Kernel> {
    inventory::iter::<Registered>.into_iter().map(|r| r.0)
}

/// Parses and validates a kernel's complete WGSL with naga, with 64-bit floats enabled.
///
/// Kernels without a WGSL form (see [`Kernel::wgsl`]) pass: they are CPU-only by design and say so
/// when a GPU backend asks for them. Errors carry naga's report, with the offending WGSL line.
#[cfg(feature = "wgsl-validate")]
pub fn validate_wgsl(kernel: &dyn Kernel) -> Result<(), String> {
    let Ok(src) = full_wgsl(kernel) else {
        return Ok(());
    };
    let module = naga::front::wgsl::parse_str(&src)
        .map_err(|e| format!("kernel `{}`: {}", kernel.name(), e.emit_to_string(&src)))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::FLOAT64,
    )
    .validate(&module)
    .map_err(|e| format!("kernel `{}`: {}", kernel.name(), e.emit_to_string(&src)))?;
    Ok(())
}

#[doc(hidden)]
pub mod __private {
    pub use inventory;
    // The last step of resolving the kernel functions and constants a kernel names.
    pub use ops_macros::resolved;
}

/// Most arguments one `par_loop` may take.
pub const MAX_ARGS: usize = 32;

/// Element types a dataset, global constant or reduction can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// `f64`
    F64,
    /// `f32`
    F32,
    /// `i32`
    I32,
}

impl ElemType {
    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            ElemType::F64 => 8,
            ElemType::F32 | ElemType::I32 => 4,
        }
    }

    /// The Rust name of the type, for error messages.
    pub const fn rust_name(self) -> &'static str {
        match self {
            ElemType::F64 => "f64",
            ElemType::F32 => "f32",
            ElemType::I32 => "i32",
        }
    }
}

impl std::fmt::Display for ElemType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// A type that datasets, global constants and reductions may hold: `f64`, `f32` or `i32`.
///
/// Sealed: the kernel IR and the WGSL lowering know exactly these three.
pub trait Element:
    bytemuck::Pod + Send + Sync + PartialOrd + std::fmt::Debug + sealed::Sealed + 'static
{
    /// The runtime tag of the type.
    const TYPE: ElemType;
    /// Packs a value into the type-erased [`Scalar`].
    fn to_scalar(self) -> Scalar;
    /// Unpacks a [`Scalar`] of this type; `None` for another type.
    fn from_scalar(s: Scalar) -> Option<Self>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
    impl Sealed for i32 {}
}

macro_rules! impl_element {
    ($t:ty, $tag:ident) => {
        impl Element for $t {
            const TYPE: ElemType = ElemType::$tag;
            fn to_scalar(self) -> Scalar {
                Scalar::$tag(self)
            }
            fn from_scalar(s: Scalar) -> Option<Self> {
                match s {
                    Scalar::$tag(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
impl_element!(f64, F64);
impl_element!(f32, F32);
impl_element!(i32, I32);

/// A type-erased scalar: a global constant's value or a reduction's partial result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// An `f64` value.
    F64(f64),
    /// An `f32` value.
    F32(f32),
    /// An `i32` value.
    I32(i32),
}

impl Scalar {
    /// The element type of the value.
    pub fn elem_type(self) -> ElemType {
        match self {
            Scalar::F64(_) => ElemType::F64,
            Scalar::F32(_) => ElemType::F32,
            Scalar::I32(_) => ElemType::I32,
        }
    }

    /// The identity of `op` for `ty` (the value a fresh reduction starts from).
    pub fn identity(op: ReduceOp, ty: ElemType) -> Scalar {
        match (op, ty) {
            (ReduceOp::Sum, ElemType::F64) => Scalar::F64(0.0),
            (ReduceOp::Sum, ElemType::F32) => Scalar::F32(0.0),
            (ReduceOp::Sum, ElemType::I32) => Scalar::I32(0),
            (ReduceOp::Min, ElemType::F64) => Scalar::F64(f64::INFINITY),
            (ReduceOp::Min, ElemType::F32) => Scalar::F32(f32::INFINITY),
            (ReduceOp::Min, ElemType::I32) => Scalar::I32(i32::MAX),
            (ReduceOp::Max, ElemType::F64) => Scalar::F64(f64::NEG_INFINITY),
            (ReduceOp::Max, ElemType::F32) => Scalar::F32(f32::NEG_INFINITY),
            (ReduceOp::Max, ElemType::I32) => Scalar::I32(i32::MIN),
        }
    }

    /// Combines two partial results of the same type with `op`, `self` first.
    ///
    /// The runtime always combines partials in a fixed order, which is what makes reductions
    /// bitwise reproducible across thread counts and backends.
    pub fn combine(self, op: ReduceOp, other: Scalar) -> Scalar {
        fn pick<T: PartialOrd + Copy>(op: ReduceOp, a: T, b: T) -> T {
            match op {
                ReduceOp::Min => {
                    if b < a {
                        b
                    } else {
                        a
                    }
                }
                ReduceOp::Max => {
                    if b > a {
                        b
                    } else {
                        a
                    }
                }
                ReduceOp::Sum => unreachable!("sums are added, not picked"),
            }
        }
        match (self, other, op) {
            (Scalar::F64(a), Scalar::F64(b), ReduceOp::Sum) => Scalar::F64(a + b),
            (Scalar::F32(a), Scalar::F32(b), ReduceOp::Sum) => Scalar::F32(a + b),
            (Scalar::I32(a), Scalar::I32(b), ReduceOp::Sum) => Scalar::I32(a.wrapping_add(b)),
            (Scalar::F64(a), Scalar::F64(b), _) => Scalar::F64(pick(op, a, b)),
            (Scalar::F32(a), Scalar::F32(b), _) => Scalar::F32(pick(op, a, b)),
            (Scalar::I32(a), Scalar::I32(b), _) => Scalar::I32(pick(op, a, b)),
            // Types are validated before a loop runs; a mismatch here is a runtime bug.
            (a, b, _) => panic!("internal error: combining {a:?} with {b:?}"),
        }
    }
}

/// How a loop argument accesses its dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only, at any offset of the stencil.
    Read,
    /// Written at the centre point, never read.
    Write,
    /// Read and written at the centre point.
    ReadWrite,
    /// Incremented at the centre point (`+=`), never otherwise read.
    Inc,
}

impl std::fmt::Display for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Access::Read => "Read",
            Access::Write => "Write",
            Access::ReadWrite => "ReadWrite",
            Access::Inc => "Inc",
        })
    }
}

/// The combination a reduction performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Smallest value.
    Min,
    /// Largest value.
    Max,
    /// Sum of values, added in a fixed order.
    Sum,
}

impl std::fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ReduceOp::Min => "Min",
            ReduceOp::Max => "Max",
            ReduceOp::Sum => "Sum",
        })
    }
}

/// What kind of argument a kernel parameter expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// A dataset accessed through a stencil with the given access mode.
    Dat(Access),
    /// A global constant (same value at every point).
    Global,
    /// A reduction the body updates.
    Reduce(ReduceOp),
    /// The iteration index (`idx[d]`, an `i32` per dimension).
    Idx,
}

impl std::fmt::Display for ParamKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamKind::Dat(a) => write!(f, "dataset ({a})"),
            ParamKind::Global => f.write_str("global constant"),
            ParamKind::Reduce(op) => write!(f, "reduction ({op})"),
            ParamKind::Idx => f.write_str("iteration index"),
        }
    }
}

/// One parameter of a kernel as the `#[kernel]` macro recorded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name in the kernel source.
    pub name: &'static str,
    /// What kind of argument it takes.
    pub kind: ParamKind,
    /// Its element type (`I32` for [`ParamKind::Idx`]).
    pub ty: ElemType,
    /// Every stencil offset the body uses, padded to three dimensions with zeros.
    pub offsets: &'static [[i32; 3]],
    /// How many coordinates the body's offsets have (0 when it uses none; all agree).
    pub offset_dims: u8,
    /// One past the largest component index the body can touch (1 for plain datasets).
    pub components: u32,
    /// For `Write` parameters: the body assigns every component of the centre point on every
    /// path, so a loop leaves no old value of its range observable. When false (a conditional
    /// write), dependency tracking treats the parameter as read-and-written.
    pub full_write: bool,
}

/// A kernel produced by `#[kernel]`: its signature, its WGSL, and its CPU entry point.
///
/// Implemented only by generated code; users pass the generated unit struct to `par_loop`.
pub trait Kernel: Sync {
    /// The kernel's name (the `fn` name).
    fn name(&self) -> &'static str;
    /// Its parameters, in order; `par_loop` arguments must match them one to one.
    fn params(&self) -> &'static [Param];
    /// The WGSL compute shader lowered from the same IR as the CPU code, or the reason the kernel
    /// has no WGSL form (for example `exp` on `f64`).
    fn wgsl(&self) -> Result<&'static str, &'static str>;
    /// Runs the body at every point of the box `lo..hi` (three dimensions; unused ones are `0..1`).
    ///
    /// Reduction parameters fold their values into `partials[param index]`, which the caller
    /// initialised to each reduction's identity.
    ///
    /// # Safety
    /// `ctx` must describe live storage for every dataset parameter such that every point of the
    /// box plus every offset in [`Param::offsets`] (and every component below
    /// [`Param::components`]) is inside it, written parameters must not alias other parameters,
    /// and no other thread may write the points this call reads or writes.
    unsafe fn run(&self, ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], partials: &mut [Scalar]);
}

/// Where one dataset argument lives, in elements: what the generated row loop needs.
///
/// The element for iteration point `p`, stencil offset `o` and component `c` is
/// `base[origin + Σ p[d]·iter[d] + Σ o[d]·mem[d] + c]`. Strided stencils set `iter[d]` to zero for
/// the dimensions the dataset does not vary in.
#[derive(Clone, Copy, Debug)]
pub struct DatView {
    /// Start of the dataset's storage.
    pub base: *mut u8,
    /// Element index of the point whose iteration index is all zeros.
    pub origin: isize,
    /// Element distance between neighbouring points in each dimension (memory strides).
    pub mem: [isize; 3],
    /// Element distance per step of the iteration index in each dimension.
    pub iter: [isize; 3],
}

impl DatView {
    /// A view of nothing, for parameters that are not datasets.
    pub const EMPTY: DatView = DatView {
        base: std::ptr::null_mut(),
        origin: 0,
        mem: [0; 3],
        iter: [0; 3],
    };

    /// Element offset of stencil point `o` relative to the iteration point.
    #[inline(always)]
    pub fn offset(&self, o: [i32; 3]) -> isize {
        o[0] as isize * self.mem[0] + o[1] as isize * self.mem[1] + o[2] as isize * self.mem[2]
    }

    /// Element index of the iteration point `(x, y, z)` with no offset.
    #[inline(always)]
    pub fn point(&self, x: i32, y: i32, z: i32) -> isize {
        self.origin
            + x as isize * self.iter[0]
            + y as isize * self.iter[1]
            + z as isize * self.iter[2]
    }
}

/// Everything a kernel's CPU code needs for one loop, indexed by parameter position.
#[derive(Clone, Copy, Debug)]
pub struct ExecCtx {
    /// Dataset views (meaningful for dataset parameters only).
    pub dats: [DatView; MAX_ARGS],
    /// Global constant values (meaningful for global parameters only).
    pub globals: [Scalar; MAX_ARGS],
    /// True when every dataset argument steps by exactly one element along the first dimension,
    /// so the generated code can take its unit-stride (vectorisable) path.
    pub unit_x: bool,
}

// SAFETY: the raw pointers in `DatView` are only dereferenced inside `Kernel::run`, whose contract
// makes the caller guarantee that concurrent calls touch disjoint written points.
unsafe impl Send for ExecCtx {}
// SAFETY: as above.
unsafe impl Sync for ExecCtx {}

impl ExecCtx {
    /// A context with no arguments filled in.
    pub fn new() -> Self {
        ExecCtx {
            dats: [DatView::EMPTY; MAX_ARGS],
            globals: [Scalar::I32(0); MAX_ARGS],
            unit_x: true,
        }
    }

    /// The global constant at parameter `k` as an `f64` (generated code only).
    #[inline(always)]
    pub fn global_f64(&self, k: usize) -> f64 {
        match self.globals[k] {
            Scalar::F64(v) => v,
            Scalar::F32(v) => v as f64,
            Scalar::I32(v) => v as f64,
        }
    }

    /// The global constant at parameter `k` as an `f32` (generated code only).
    #[inline(always)]
    pub fn global_f32(&self, k: usize) -> f32 {
        match self.globals[k] {
            Scalar::F32(v) => v,
            Scalar::F64(v) => v as f32,
            Scalar::I32(v) => v as f32,
        }
    }

    /// The global constant at parameter `k` as an `i32` (generated code only).
    #[inline(always)]
    pub fn global_i32(&self, k: usize) -> i32 {
        match self.globals[k] {
            Scalar::I32(v) => v,
            Scalar::F64(v) => v as i32,
            Scalar::F32(v) => v as i32,
        }
    }
}

impl Default for ExecCtx {
    fn default() -> Self {
        Self::new()
    }
}

macro_rules! marker {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        ///
        /// A marker type: it only appears in `#[kernel]` signatures, which the macro rewrites.
        #[derive(Debug)]
        pub struct $name<T: Element> {
            _elem: PhantomData<T>,
        }
    };
}

marker!(
    /// Kernel parameter: a dataset read through its stencil (`a[(dx, dy)]`).
    Read
);
marker!(
    /// Kernel parameter: a dataset written at the centre point (`a[(0, 0)] = v`).
    Write
);
marker!(
    /// Kernel parameter: a dataset read and written at the centre point.
    ReadWrite
);
marker!(
    /// Kernel parameter: a dataset incremented at the centre point (`a[(0, 0)] += v`).
    Inc
);
marker!(
    /// Kernel parameter: a global constant, used by name in the body.
    Global
);
marker!(
    /// Kernel parameter: a minimum reduction (`m.update(v)`).
    Min
);
marker!(
    /// Kernel parameter: a maximum reduction (`m.update(v)`).
    Max
);
marker!(
    /// Kernel parameter: a sum reduction (`s.update(v)` or `s += v`).
    Sum
);

/// Kernel parameter: the iteration index; `idx[d]` is the `i32` index in dimension `d`.
///
/// A marker type: it only appears in `#[kernel]` signatures, which the macro rewrites.
#[derive(Debug)]
pub struct Idx {
    _private: (),
}
