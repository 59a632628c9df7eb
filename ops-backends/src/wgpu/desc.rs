//! The loop description every generated kernel reads at binding 0 (`OpsLoop` in
//! `shaders/prelude.wgsl`), built from a validated [`LoopPlan`].

use ops_core::backend::{ArgPlan, LoopPlan};
use ops_core::kernel::{Scalar, MAX_ARGS};

use super::backend_err;
use super::window::Slab;

/// Bytes of one loop description (`OpsLoop`'s size in WGSL).
pub(crate) const DESC_BYTES: u64 = std::mem::size_of::<LoopDesc>() as u64;

/// `OpsLoop` of the prelude, byte for byte: `lo` @0, `hi` @16, `dats` @32 (eight `i32` each:
/// origin, memory strides, iteration strides, pad), `gi` @1056, `gf` @1184; 1440 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct LoopDesc {
    pub lo: [i32; 4],
    pub hi: [i32; 4],
    pub dats: [[i32; 8]; MAX_ARGS],
    pub gi: [i32; MAX_ARGS],
    pub gf: [f64; MAX_ARGS],
}

fn to_i32(v: isize, what: &str, plan: &LoopPlan<'_>) -> ops_core::Result<i32> {
    i32::try_from(v).map_err(|_| {
        backend_err(format!(
            "loop `{}`: {what} {v} does not fit the 32-bit indices of the generated shaders \
             (dataset too large for the wgpu backend)",
            plan.name
        ))
    })
}

impl LoopDesc {
    /// The description of the part `slab` of `plan`: range, per-argument layouts in elements
    /// (origins relative to the bound window, if any), global constants, and each Min/Max
    /// reduction's identity in its parameter's global slot (WGSL has no infinity literal).
    pub fn new(plan: &LoopPlan<'_>, slab: &Slab) -> ops_core::Result<LoopDesc> {
        let mut d: LoopDesc = bytemuck::Zeroable::zeroed();
        d.lo[..3].copy_from_slice(&slab.lo);
        d.hi[..3].copy_from_slice(&slab.hi);
        for (k, a) in plan.args().iter().enumerate() {
            match a {
                ArgPlan::Dat(p) => {
                    let shift =
                        slab.windows[k].map_or(0, |w| (w.offset / p.ty.size() as u64) as isize);
                    d.dats[k] = [
                        to_i32(p.origin - shift, "origin", plan)?,
                        to_i32(p.mem[0], "stride", plan)?,
                        to_i32(p.mem[1], "stride", plan)?,
                        to_i32(p.mem[2], "stride", plan)?,
                        to_i32(p.iter[0], "stride", plan)?,
                        to_i32(p.iter[1], "stride", plan)?,
                        to_i32(p.iter[2], "stride", plan)?,
                        0,
                    ];
                }
                ArgPlan::Global(s) => set_scalar(&mut d, k, *s),
                ArgPlan::Reduce { op, ty, .. } => set_scalar(&mut d, k, Scalar::identity(*op, *ty)),
                ArgPlan::Idx | ArgPlan::None => {}
            }
        }
        Ok(d)
    }
}

fn set_scalar(d: &mut LoopDesc, k: usize, s: Scalar) {
    match s {
        Scalar::F64(v) => d.gf[k] = v,
        Scalar::F32(v) => d.gf[k] = v as f64,
        Scalar::I32(v) => d.gi[k] = v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Rust mirror has the offsets naga's layouter gives `OpsLoop` in the prelude.
    #[test]
    fn matches_the_prelude_layout() {
        let module = naga::front::wgsl::parse_str(ops_core::kernel::WGSL_PRELUDE).unwrap();
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).unwrap();
        let (handle, ty) = module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some("OpsLoop"))
            .expect("OpsLoop in the prelude");
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("OpsLoop is a struct")
        };
        let offsets: Vec<(String, u32)> = members
            .iter()
            .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
            .collect();
        let rust = [
            ("lo", std::mem::offset_of!(LoopDesc, lo)),
            ("hi", std::mem::offset_of!(LoopDesc, hi)),
            ("dats", std::mem::offset_of!(LoopDesc, dats)),
            ("gi", std::mem::offset_of!(LoopDesc, gi)),
            ("gf", std::mem::offset_of!(LoopDesc, gf)),
        ];
        let rust: Vec<(String, u32)> = rust
            .iter()
            .map(|(n, o)| (n.to_string(), *o as u32))
            .collect();
        assert_eq!(offsets, rust);
        assert_eq!(*span as u64, DESC_BYTES);
        assert_eq!(layouter[handle].size as u64, DESC_BYTES);
        assert_eq!(DESC_BYTES, 1440);
    }
}
