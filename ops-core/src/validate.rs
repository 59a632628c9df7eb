//! `par_loop` argument validation: turns a kernel, a range and arguments into a [`LoopPlan`] or
//! the first problem found.
//!
//! The plan is what makes the generated code's unchecked accesses sound: every dataset argument
//! is checked to have storage covering the range grown by its stencil (which contains every
//! offset the kernel uses), enough components, the right element type, and no aliasing with a
//! written argument.

use crate::backend::{ArgPlan, DatArgPlan, LoopPlan};
use crate::error::{OpsError, Result};
use crate::handles::{Arg, ArgKind, Block, IterRange};
use crate::kernel::{Access, Kernel, Param, ParamKind, MAX_ARGS};
use crate::ops::{format_point, Ops};

impl Ops {
    /// Validates a loop and builds its plan. Allocates only when reporting an error.
    pub(crate) fn plan_loop<'a>(
        &self,
        kernel: &dyn Kernel,
        name: &'a str,
        block: &Block,
        range: IterRange,
        args: &[Arg],
        location: &'static std::panic::Location<'static>,
    ) -> Result<LoopPlan<'a>> {
        let binfo = self.block_info(block)?;
        let dims = binfo.dims;
        let params = kernel.params();
        if params.len() != args.len() || args.len() > MAX_ARGS {
            return Err(OpsError::ArgCount {
                loop_name: name.into(),
                kernel: kernel.name().into(),
                expected: params.len().min(MAX_ARGS),
                got: args.len(),
            });
        }
        if range.dims() != dims {
            return Err(OpsError::RangeDims {
                loop_name: name.into(),
                block: binfo.name.as_str().into(),
                range_dims: range.dims(),
                block_dims: dims,
            });
        }
        // Normalise unused dimensions to 0..1 (an IterRange built by hand may not be).
        let mut range = range;
        for d in dims..3 {
            range.lo[d] = 0;
            range.hi[d] = 1;
        }
        for d in 0..dims {
            if range.lo[d] > range.hi[d] {
                return Err(OpsError::RangeInverted {
                    loop_name: name.into(),
                    dim: d,
                    lo: range.lo[d],
                    hi: range.hi[d],
                });
            }
        }
        let empty = range.is_empty();

        let mut plan = LoopPlan {
            name,
            kernel: kernel.name(),
            block: block.id,
            dims,
            range,
            nargs: args.len(),
            args: [ArgPlan::None; MAX_ARGS],
            unit_x: true,
            has_reductions: false,
            has_globals: false,
            bytes: 0,
            location,
            shape: None,
        };

        for (k, (param, arg)) in params.iter().zip(args).enumerate() {
            let kind_err = || OpsError::ArgKind {
                loop_name: name.into(),
                arg: k,
                param: param.name.into(),
                expected: param.kind,
                got: arg.describe().into(),
            };
            let type_err = |what: String, got| OpsError::TypeMismatch {
                loop_name: name.into(),
                arg: k,
                param: param.name.into(),
                what: what.into(),
                expected: param.ty,
                got,
            };
            plan.args[k] = match (param.kind, arg.kind) {
                (ParamKind::Dat(access), ArgKind::Dat { .. }) => {
                    let d = self.plan_dat_arg(name, block, &range, k, param, access, arg)?;
                    if d.iter[0] != 1 {
                        plan.unit_x = false;
                    }
                    if !empty {
                        let mut pts: u64 = 1;
                        for dd in 0..dims {
                            if d.stride[dd] != 0 {
                                pts = pts.saturating_mul(
                                    (range.hi[dd] as i64 - range.lo[dd] as i64) as u64,
                                );
                            }
                        }
                        let factor = match d.access {
                            Access::Read | Access::Write => 1,
                            Access::ReadWrite | Access::Inc => 2,
                        };
                        plan.bytes = plan.bytes.saturating_add(
                            pts.saturating_mul(d.ty.size() as u64 * d.components as u64 * factor),
                        );
                    }
                    ArgPlan::Dat(d)
                }
                (ParamKind::Global, ArgKind::Global(s)) => {
                    if s.elem_type() != param.ty {
                        return Err(type_err("the global constant".into(), s.elem_type()));
                    }
                    plan.has_globals = true;
                    ArgPlan::Global(s)
                }
                (
                    ParamKind::Reduce(op),
                    ArgKind::Reduce {
                        rt,
                        id,
                        ty,
                        op: got,
                    },
                ) => {
                    let info = self.reduction_info(rt, id)?;
                    if ty != param.ty || info.ty != ty {
                        return Err(type_err(format!("reduction `{}`", info.name), info.ty));
                    }
                    if got != op || info.op != got {
                        return Err(OpsError::ReduceOpMismatch {
                            loop_name: name.into(),
                            arg: k,
                            param: param.name.into(),
                            reduction: info.name.as_str().into(),
                            expected: op,
                            got: info.op,
                        });
                    }
                    plan.has_reductions = true;
                    ArgPlan::Reduce { id, op, ty }
                }
                (ParamKind::Idx, ArgKind::Idx) => ArgPlan::Idx,
                _ => return Err(kind_err()),
            };
        }

        // A written dataset must not appear in any other argument, unless that argument only
        // reads it in a box disjoint from everything the writer touches (a halo strip filled
        // from interior points, say): then no point is both read and written, on any backend.
        let n = plan.nargs;
        for k in 0..n {
            let ArgPlan::Dat(w) = plan.args[k] else {
                continue;
            };
            if !w.writes() {
                continue;
            }
            for j in 0..n {
                if j == k {
                    continue;
                }
                if let ArgPlan::Dat(o) = plan.args[j] {
                    let disjoint_read = o.access == Access::Read && !o.touched.overlaps(&w.touched);
                    if o.dat == w.dat && !disjoint_read {
                        return Err(OpsError::Aliased {
                            loop_name: name.into(),
                            arg: k,
                            param: params[k].name.into(),
                            dat: self.dats[w.dat.index()].name.as_str().into(),
                            access: w.access,
                            other_arg: j,
                            other_param: params[j].name.into(),
                        });
                    }
                }
            }
        }
        Ok(plan)
    }

    #[allow(clippy::too_many_arguments)]
    fn plan_dat_arg(
        &self,
        name: &str,
        block: &Block,
        range: &IterRange,
        k: usize,
        param: &Param,
        access: Access,
        arg: &Arg,
    ) -> Result<DatArgPlan> {
        let ArgKind::Dat {
            rt,
            dat,
            ty,
            stencil,
            stencil_rt,
            access: got_access,
        } = arg.kind
        else {
            unreachable!("caller matched a dataset argument")
        };
        let dinfo = self.dat_info(rt, dat)?;
        let sinfo = self.stencil_info(stencil_rt, stencil)?;
        let dims = self.blocks[block.id.index()].dims;
        let loop_name = || -> Box<str> { name.into() };
        let pname = || -> Box<str> { param.name.into() };
        let dname = || -> Box<str> { dinfo.name.as_str().into() };
        let sname = || -> Box<str> { sinfo.name.as_str().into() };

        if got_access != access {
            return Err(OpsError::AccessMismatch {
                loop_name: loop_name(),
                arg: k,
                param: pname(),
                dat: dname(),
                expected: access,
                got: got_access,
            });
        }
        if ty != param.ty || dinfo.layout.ty != ty {
            return Err(OpsError::TypeMismatch {
                loop_name: loop_name(),
                arg: k,
                param: pname(),
                what: format!("dataset `{}`", dinfo.name).into(),
                expected: param.ty,
                got: dinfo.layout.ty,
            });
        }
        if dinfo.block != block.id {
            return Err(OpsError::DatOnOtherBlock {
                loop_name: loop_name(),
                arg: k,
                param: pname(),
                dat: dname(),
                dat_block: self.blocks[dinfo.block.index()].name.as_str().into(),
                loop_block: self.blocks[block.id.index()].name.as_str().into(),
            });
        }
        if sinfo.dims != dims {
            return Err(OpsError::StencilDims {
                loop_name: loop_name(),
                arg: k,
                param: pname(),
                stencil: sname(),
                stencil_dims: sinfo.dims,
                block: self.blocks[block.id.index()].name.as_str().into(),
                block_dims: dims,
            });
        }
        let odims = param.offset_dims as usize;
        if odims != 0 && odims != dims {
            return Err(OpsError::OffsetDims {
                loop_name: loop_name(),
                arg: k,
                param: pname(),
                offset_dims: odims,
                block_dims: dims,
            });
        }
        for o in param.offsets {
            // Coordinates beyond the block's dimensions must be zero, and the rest a point of
            // the declared stencil.
            let inside = o[dims..].iter().all(|v| *v == 0)
                && sinfo.points.iter().any(|p| p[..dims] == o[..dims]);
            if !inside {
                return Err(OpsError::OffsetNotInStencil {
                    loop_name: loop_name(),
                    arg: k,
                    param: pname(),
                    dat: dname(),
                    stencil: sname(),
                    offset: format_point(&o[..shown_dims(odims)]).into(),
                });
            }
            if access != Access::Read && o.iter().any(|v| *v != 0) {
                return Err(OpsError::WriteOffCentre {
                    loop_name: loop_name(),
                    arg: k,
                    param: pname(),
                    dat: dname(),
                    access,
                    offset: format_point(&o[..shown_dims(odims)]).into(),
                });
            }
        }
        let comps = dinfo.layout.components;
        if param.components as usize > comps {
            return Err(OpsError::Components {
                loop_name: loop_name(),
                arg: k,
                param: pname(),
                dat: dname(),
                needed: param.components,
                has: comps,
            });
        }
        let stride = sinfo.stride;
        if access != Access::Read {
            for d in 0..dims {
                if stride[d] == 0 && range.hi[d] as i64 - range.lo[d] as i64 > 1 {
                    return Err(OpsError::StridedWrite {
                        loop_name: loop_name(),
                        arg: k,
                        param: pname(),
                        dat: dname(),
                        stencil: sname(),
                        dim: d,
                    });
                }
            }
        }

        let layout = &dinfo.layout;
        let (ext_lo, ext_hi) = (layout.lo(), layout.hi());
        let mut touched = IterRange {
            dims: dims as u8,
            lo: [0; 3],
            hi: [0; 3],
        };
        if !range.is_empty() {
            // The range itself first: a range outside the dataset is the range's fault.
            for d in 0..dims {
                if stride[d] == 0 {
                    continue;
                }
                let (lo, hi) = (range.lo[d] as i64, range.hi[d] as i64);
                if lo < ext_lo[d] || hi > ext_hi[d] {
                    return Err(OpsError::RangeOutsideDat {
                        loop_name: loop_name(),
                        arg: k,
                        param: pname(),
                        dat: dname(),
                        dim: d,
                        lo,
                        hi,
                        ext_lo: ext_lo[d],
                        ext_hi: ext_hi[d],
                    });
                }
            }
            // Then the range grown by the declared stencil: beyond the halo is the stencil's.
            for d in 0..3 {
                let (lo, hi) = if stride[d] == 0 || d >= dims {
                    (0, 1)
                } else {
                    (range.lo[d] as i64, range.hi[d] as i64)
                };
                let (glo, ghi) = (lo + sinfo.min[d] as i64, hi + sinfo.max[d] as i64);
                if glo < ext_lo[d] || ghi > ext_hi[d] {
                    return Err(OpsError::StencilBeyondHalo {
                        loop_name: loop_name(),
                        arg: k,
                        param: pname(),
                        dat: dname(),
                        stencil: sname(),
                        dim: d,
                        lo: glo,
                        hi: ghi,
                        ext_lo: ext_lo[d],
                        ext_hi: ext_hi[d],
                    });
                }
                touched.lo[d] = glo as i32;
                touched.hi[d] = ghi as i32;
            }
        }

        let mem = layout.mem();
        let iter: [isize; 3] = std::array::from_fn(|d| mem[d] * stride[d] as isize);
        let origin = -(0..3).map(|d| ext_lo[d] as isize * mem[d]).sum::<isize>();
        Ok(DatArgPlan {
            dat,
            access,
            ty,
            components: comps,
            stencil,
            stride,
            origin,
            mem,
            iter,
            touched,
            full_write: access == Access::Write
                && param.full_write
                && param.components as usize >= comps,
        })
    }
}

fn shown_dims(odims: usize) -> usize {
    if odims == 0 {
        3
    } else {
        odims
    }
}
