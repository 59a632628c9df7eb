//! The two kernels every boundary fill runs. They are written by hand rather than with
//! `#[kernel]` because the point a halo layer copies from lies at an offset known only at run
//! time (a dataset's size, a layer's depth), and a `#[kernel]` names its offsets literally. The
//! runtime passes the offset as global constants and declares a one-point stencil at that
//! offset, so validation, the backends' halo logic and the tracker see exactly the box read.

use crate::kernel::{Access, ElemType, ExecCtx, Kernel, Param, ParamKind, Scalar};

/// `dst[p] = src[p + o]`, negated when asked: parameters `dst` (Write), `src` (Read, the same
/// dataset), `ox`, `oy`, `oz`, `negate`, `components` (Global i32).
pub(crate) struct FillFrom(pub ElemType);

/// `dst[p] = value`: parameters `dst` (Write), `value` (Global of the dataset's type),
/// `components` (Global i32).
pub(crate) struct FillValue(pub ElemType);

pub(crate) const FROM_ARGS: usize = 7;
pub(crate) const VALUE_ARGS: usize = 3;

const fn dat(name: &'static str, access: Access, ty: ElemType) -> Param {
    Param {
        name,
        kind: ParamKind::Dat(access),
        ty,
        // The offset is a run-time value: the stencil the runtime declares for it is the
        // access, so there is nothing literal to check against it.
        offsets: &[],
        offset_dims: 0,
        components: 1,
        full_write: matches!(access, Access::Write),
    }
}

const fn global(name: &'static str, ty: ElemType) -> Param {
    Param {
        name,
        kind: ParamKind::Global,
        ty,
        offsets: &[],
        offset_dims: 0,
        components: 1,
        full_write: false,
    }
}

macro_rules! from_params {
    ($ty:expr) => {
        &[
            dat("dst", Access::Write, $ty),
            dat("src", Access::Read, $ty),
            global("ox", ElemType::I32),
            global("oy", ElemType::I32),
            global("oz", ElemType::I32),
            global("negate", ElemType::I32),
            global("components", ElemType::I32),
        ]
    };
}

macro_rules! value_params {
    ($ty:expr) => {
        &[
            dat("dst", Access::Write, $ty),
            global("value", $ty),
            global("components", ElemType::I32),
        ]
    };
}

const FROM_F64: &[Param] = from_params!(ElemType::F64);
const FROM_F32: &[Param] = from_params!(ElemType::F32);
const FROM_I32: &[Param] = from_params!(ElemType::I32);
const VALUE_F64: &[Param] = value_params!(ElemType::F64);
const VALUE_F32: &[Param] = value_params!(ElemType::F32);
const VALUE_I32: &[Param] = value_params!(ElemType::I32);

macro_rules! wgsl_main {
    () => {
        "@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let pt = ops_iteration_point(gid, lid, wid, nwg);
    if (pt.w != 0) {
        let at = ops_point(0u, pt.x, pt.y, pt.z);
"
    };
}

macro_rules! wgsl_from {
    ($name:literal, $wty:literal) => {
        concat!(
            "// kernel ",
            $name,
            "\n@group(0) @binding(1) var<storage, read_write> d_0: array<",
            $wty,
            ">;\n@group(0) @binding(2) var<storage, read> d_1: array<",
            $wty,
            ">;\n",
            wgsl_main!(),
            "        let source = ops_point(1u, pt.x, pt.y, pt.z)
            + ops_offset(1u, ops_loop.gi[2], ops_loop.gi[3], ops_loop.gi[4]);
        let negate = ops_loop.gi[5] != 0;
        for (var c = 0; c < ops_loop.gi[6]; c = c + 1) {
            let v = d_1[source + c];
            d_0[at + c] = select(v, -v, negate);
        }
    }
}
"
        )
    };
}

macro_rules! wgsl_value {
    ($name:literal, $wty:literal, $value:literal) => {
        concat!(
            "// kernel ",
            $name,
            "\n@group(0) @binding(1) var<storage, read_write> d_0: array<",
            $wty,
            ">;\n",
            wgsl_main!(),
            "        let v = ",
            $value,
            ";
        for (var c = 0; c < ops_loop.gi[2]; c = c + 1) {
            d_0[at + c] = v;
        }
    }
}
"
        )
    };
}

/// Negation that cannot overflow (`i32::MIN` stays itself, as in WGSL).
trait Negate: Copy {
    fn negate(self) -> Self;
}
impl Negate for f64 {
    fn negate(self) -> Self {
        -self
    }
}
impl Negate for f32 {
    fn negate(self) -> Self {
        -self
    }
}
impl Negate for i32 {
    fn negate(self) -> Self {
        self.wrapping_neg()
    }
}

/// Visits the element index of every point of `lo..hi` in the view `dat`.
#[inline(always)]
fn for_each_point(ctx: &ExecCtx, k: usize, lo: [i32; 3], hi: [i32; 3], mut f: impl FnMut(isize)) {
    let v = ctx.dats[k];
    for z in lo[2]..hi[2] {
        for y in lo[1]..hi[1] {
            for x in lo[0]..hi[0] {
                f(v.point(x, y, z));
            }
        }
    }
}

/// # Safety
/// As [`Kernel::run`], with `T` the datasets' element type.
unsafe fn copy_from<T: Negate>(ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3]) {
    let (dst, src) = (ctx.dats[0], ctx.dats[1]);
    let shift = src.offset([ctx.global_i32(2), ctx.global_i32(3), ctx.global_i32(4)]) + src.origin
        - dst.origin;
    let negate = ctx.global_i32(5) != 0;
    let comps = ctx.global_i32(6) as isize;
    let (to, from) = (dst.base as *mut T, src.base as *const T);
    // `src` and `dst` are one dataset laid out alike: the source of the element at `at` is at
    // `at + shift`.
    for_each_point(ctx, 0, lo, hi, |at| {
        for c in 0..comps {
            // SAFETY: the runtime validated the box and the one-point stencil at the offset.
            unsafe {
                let v = *from.offset(at + shift + c);
                *to.offset(at + c) = if negate { v.negate() } else { v };
            }
        }
    });
}

/// # Safety
/// As [`Kernel::run`], with `T` the dataset's element type and `value` of that type.
unsafe fn set_value<T: Copy>(ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], value: T) {
    let comps = ctx.global_i32(2) as isize;
    let to = ctx.dats[0].base as *mut T;
    for_each_point(ctx, 0, lo, hi, |at| {
        for c in 0..comps {
            // SAFETY: the runtime validated the box.
            unsafe { *to.offset(at + c) = value };
        }
    });
}

impl Kernel for FillFrom {
    fn name(&self) -> &'static str {
        match self.0 {
            ElemType::F64 => "ops_fill_from_f64",
            ElemType::F32 => "ops_fill_from_f32",
            ElemType::I32 => "ops_fill_from_i32",
        }
    }

    fn params(&self) -> &'static [Param] {
        match self.0 {
            ElemType::F64 => FROM_F64,
            ElemType::F32 => FROM_F32,
            ElemType::I32 => FROM_I32,
        }
    }

    fn wgsl(&self) -> Result<&'static str, &'static str> {
        Ok(match self.0 {
            ElemType::F64 => wgsl_from!("ops_fill_from_f64", "f64"),
            ElemType::F32 => wgsl_from!("ops_fill_from_f32", "f32"),
            ElemType::I32 => wgsl_from!("ops_fill_from_i32", "i32"),
        })
    }

    unsafe fn run(&self, ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], _partials: &mut [Scalar]) {
        // SAFETY: forwarded from the caller; the element type is the datasets' (validated).
        unsafe {
            match self.0 {
                ElemType::F64 => copy_from::<f64>(ctx, lo, hi),
                ElemType::F32 => copy_from::<f32>(ctx, lo, hi),
                ElemType::I32 => copy_from::<i32>(ctx, lo, hi),
            }
        }
    }
}

impl Kernel for FillValue {
    fn name(&self) -> &'static str {
        match self.0 {
            ElemType::F64 => "ops_fill_value_f64",
            ElemType::F32 => "ops_fill_value_f32",
            ElemType::I32 => "ops_fill_value_i32",
        }
    }

    fn params(&self) -> &'static [Param] {
        match self.0 {
            ElemType::F64 => VALUE_F64,
            ElemType::F32 => VALUE_F32,
            ElemType::I32 => VALUE_I32,
        }
    }

    fn wgsl(&self) -> Result<&'static str, &'static str> {
        Ok(match self.0 {
            ElemType::F64 => wgsl_value!("ops_fill_value_f64", "f64", "ops_loop.gf[1]"),
            ElemType::F32 => wgsl_value!("ops_fill_value_f32", "f32", "f32(ops_loop.gf[1])"),
            ElemType::I32 => wgsl_value!("ops_fill_value_i32", "i32", "ops_loop.gi[1]"),
        })
    }

    unsafe fn run(&self, ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], _partials: &mut [Scalar]) {
        // SAFETY: forwarded from the caller; the value's type is the dataset's (validated).
        unsafe {
            match ctx.globals[1] {
                Scalar::F64(v) => set_value(ctx, lo, hi, v),
                Scalar::F32(v) => set_value(ctx, lo, hi, v),
                Scalar::I32(v) => set_value(ctx, lo, hi, v),
            }
        }
    }
}

#[cfg(all(test, feature = "wgsl-validate"))]
mod tests {
    use super::*;

    /// Every fill kernel's WGSL parses and validates, as the wgpu backend checks kernels.
    #[test]
    fn every_fill_shader_validates() {
        for ty in [ElemType::F64, ElemType::F32, ElemType::I32] {
            crate::kernel::validate_wgsl(&FillFrom(ty)).unwrap();
            crate::kernel::validate_wgsl(&FillValue(ty)).unwrap();
        }
    }
}
