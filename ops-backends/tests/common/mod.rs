//! Hand-written kernels following the `ops_core::kernel` contract exactly, for testing the
//! runtime without the `#[kernel]` macro.
#![allow(dead_code)]

use ops_core::kernel::{Access, ElemType, ExecCtx, Kernel, Param, ParamKind, ReduceOp, Scalar};

const C: [i32; 3] = [0, 0, 0];

pub const fn dat(
    name: &'static str,
    access: Access,
    ty: ElemType,
    offsets: &'static [[i32; 3]],
    offset_dims: u8,
) -> Param {
    Param {
        name,
        kind: ParamKind::Dat(access),
        ty,
        offsets,
        offset_dims,
        components: 1,
        full_write: matches!(access, Access::Write),
    }
}

pub const fn red(name: &'static str, op: ReduceOp, ty: ElemType) -> Param {
    Param {
        name,
        kind: ParamKind::Reduce(op),
        ty,
        offsets: &[],
        offset_dims: 0,
        components: 1,
        full_write: false,
    }
}

/// `b = 0.2 * (a(0,0) + a(1,0) + a(-1,0) + a(0,1) + a(0,-1))` in 2-D.
pub struct Average5;

const FIVE: &[[i32; 3]] = &[[0, 0, 0], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]];
static AVG_PARAMS: [Param; 2] = [
    dat("a", Access::Read, ElemType::F64, FIVE, 2),
    dat("b", Access::Write, ElemType::F64, &[C], 2),
];

impl Kernel for Average5 {
    fn name(&self) -> &'static str {
        "average5"
    }
    fn params(&self) -> &'static [Param] {
        &AVG_PARAMS
    }
    fn wgsl(&self) -> Result<&'static str, &'static str> {
        Err("hand-written test kernel")
    }
    unsafe fn run(&self, ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], _partials: &mut [Scalar]) {
        let (a, b) = (&ctx.dats[0], &ctx.dats[1]);
        let pa = a.base as *const f64;
        let pb = b.base as *mut f64;
        let (e, w, n, s) = (
            a.offset([1, 0, 0]),
            a.offset([-1, 0, 0]),
            a.offset([0, 1, 0]),
            a.offset([0, -1, 0]),
        );
        for z in lo[2]..hi[2] {
            for y in lo[1]..hi[1] {
                for x in lo[0]..hi[0] {
                    let ia = a.point(x, y, z);
                    let ib = b.point(x, y, z);
                    unsafe {
                        *pb.offset(ib) = 0.2
                            * (*pa.offset(ia)
                                + *pa.offset(ia + e)
                                + *pa.offset(ia + w)
                                + *pa.offset(ia + n)
                                + *pa.offset(ia + s));
                    }
                }
            }
        }
    }
}

/// `b = a` at the centre, in any dimension (offsets recorded as 0-dim).
pub struct Copy;
static COPY_PARAMS: [Param; 2] = [
    dat("src", Access::Read, ElemType::F64, &[C], 0),
    dat("dst", Access::Write, ElemType::F64, &[C], 0),
];
impl Kernel for Copy {
    fn name(&self) -> &'static str {
        "copy"
    }
    fn params(&self) -> &'static [Param] {
        &COPY_PARAMS
    }
    fn wgsl(&self) -> Result<&'static str, &'static str> {
        Err("hand-written test kernel")
    }
    unsafe fn run(&self, ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], _p: &mut [Scalar]) {
        let (a, b) = (&ctx.dats[0], &ctx.dats[1]);
        for z in lo[2]..hi[2] {
            for y in lo[1]..hi[1] {
                for x in lo[0]..hi[0] {
                    unsafe {
                        *(b.base as *mut f64).offset(b.point(x, y, z)) =
                            *(a.base as *const f64).offset(a.point(x, y, z));
                    }
                }
            }
        }
    }
}

/// `s += a; m = min(m, a)` over the centre of `a`.
pub struct SumMin;
static SUMMIN_PARAMS: [Param; 3] = [
    dat("a", Access::Read, ElemType::F64, &[C], 0),
    red("s", ReduceOp::Sum, ElemType::F64),
    red("m", ReduceOp::Min, ElemType::F64),
];
impl Kernel for SumMin {
    fn name(&self) -> &'static str {
        "sum_min"
    }
    fn params(&self) -> &'static [Param] {
        &SUMMIN_PARAMS
    }
    fn wgsl(&self) -> Result<&'static str, &'static str> {
        Err("hand-written test kernel")
    }
    unsafe fn run(&self, ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], partials: &mut [Scalar]) {
        let a = &ctx.dats[0];
        let (Scalar::F64(mut s), Scalar::F64(mut m)) = (partials[1], partials[2]) else {
            panic!("partial types")
        };
        for z in lo[2]..hi[2] {
            for y in lo[1]..hi[1] {
                for x in lo[0]..hi[0] {
                    let v = unsafe { *(a.base as *const f64).offset(a.point(x, y, z)) };
                    s += v;
                    m = m.min(v);
                }
            }
        }
        partials[1] = Scalar::F64(s);
        partials[2] = Scalar::F64(m);
    }
}

/// `out = idx[0] + 100 * idx[1] + 10000 * idx[2]`.
pub struct IdxWrite;
static IDX_PARAMS: [Param; 2] = [
    Param {
        name: "idx",
        kind: ParamKind::Idx,
        ty: ElemType::I32,
        offsets: &[],
        offset_dims: 0,
        components: 1,
        full_write: false,
    },
    dat("out", Access::Write, ElemType::I32, &[C], 0),
];
impl Kernel for IdxWrite {
    fn name(&self) -> &'static str {
        "idx_write"
    }
    fn params(&self) -> &'static [Param] {
        &IDX_PARAMS
    }
    fn wgsl(&self) -> Result<&'static str, &'static str> {
        Err("hand-written test kernel")
    }
    unsafe fn run(&self, ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], _p: &mut [Scalar]) {
        let o = &ctx.dats[1];
        for z in lo[2]..hi[2] {
            for y in lo[1]..hi[1] {
                for x in lo[0]..hi[0] {
                    unsafe {
                        *(o.base as *mut i32).offset(o.point(x, y, z)) = x + 100 * y + 10000 * z
                    };
                }
            }
        }
    }
}

/// A kernel with arbitrary parameters that touches exactly what its signature declares:
/// `acc` = sum of every Read offset and component (as f64), every global, and the sum of the
/// indices for Idx; then Write params get `acc`, ReadWrite/Inc get `old + acc` (every declared
/// component, at the centre), reductions fold `acc`.
pub struct Generic {
    pub name: &'static str,
    pub params: &'static [Param],
}

impl Generic {
    pub fn new(name: &'static str, params: Vec<Param>) -> Generic {
        Generic {
            name,
            params: Box::leak(params.into_boxed_slice()),
        }
    }
}

unsafe fn load(ty: ElemType, base: *mut u8, i: isize) -> f64 {
    unsafe {
        match ty {
            ElemType::F64 => *(base as *const f64).offset(i),
            ElemType::F32 => *(base as *const f32).offset(i) as f64,
            ElemType::I32 => *(base as *const i32).offset(i) as f64,
        }
    }
}

unsafe fn store(ty: ElemType, base: *mut u8, i: isize, v: f64) {
    unsafe {
        match ty {
            ElemType::F64 => *(base as *mut f64).offset(i) = v,
            ElemType::F32 => *(base as *mut f32).offset(i) = v as f32,
            ElemType::I32 => *(base as *mut i32).offset(i) = v as i32,
        }
    }
}

fn scalar(ty: ElemType, v: f64) -> Scalar {
    match ty {
        ElemType::F64 => Scalar::F64(v),
        ElemType::F32 => Scalar::F32(v as f32),
        ElemType::I32 => Scalar::I32(v as i32),
    }
}

impl Kernel for Generic {
    fn name(&self) -> &'static str {
        self.name
    }
    fn params(&self) -> &'static [Param] {
        self.params
    }
    fn wgsl(&self) -> Result<&'static str, &'static str> {
        Err("hand-written test kernel")
    }
    unsafe fn run(&self, ctx: &ExecCtx, lo: [i32; 3], hi: [i32; 3], partials: &mut [Scalar]) {
        for z in lo[2]..hi[2] {
            for y in lo[1]..hi[1] {
                for x in lo[0]..hi[0] {
                    let mut acc = 0.0f64;
                    for (k, p) in self.params.iter().enumerate() {
                        match p.kind {
                            ParamKind::Dat(Access::Read) => {
                                let v = &ctx.dats[k];
                                for o in p.offsets {
                                    for c in 0..p.components as isize {
                                        acc += unsafe {
                                            load(p.ty, v.base, v.point(x, y, z) + v.offset(*o) + c)
                                        };
                                    }
                                }
                            }
                            ParamKind::Global => acc += ctx.global_f64(k),
                            ParamKind::Idx => acc += (x + y + z) as f64,
                            _ => {}
                        }
                    }
                    for (k, p) in self.params.iter().enumerate() {
                        match p.kind {
                            ParamKind::Dat(Access::Read) | ParamKind::Global | ParamKind::Idx => {}
                            ParamKind::Dat(a) => {
                                let v = &ctx.dats[k];
                                for c in 0..p.components as isize {
                                    let i = v.point(x, y, z) + c;
                                    unsafe {
                                        let new = if a == Access::Write {
                                            acc
                                        } else {
                                            load(p.ty, v.base, i) + acc
                                        };
                                        store(p.ty, v.base, i, new);
                                    }
                                }
                            }
                            ParamKind::Reduce(op) => {
                                partials[k] = partials[k].combine(op, scalar(p.ty, acc));
                            }
                        }
                    }
                }
            }
        }
    }
}
