//! The second reduction stage: combining the kernels' per-workgroup partials on the device with
//! `shaders/reduce.wgsl`, in a tree that depends only on the number of partials.

use std::collections::HashMap;

use ops_core::kernel::{ElemType, ReduceOp};
use ops_core::Result;

use super::backend_err;
use super::device::Gpu;
use super::kernels::compile_module;

/// The combine shader template (`OPS_T`, `OPS_COMBINE` substituted per type and operation).
pub const REDUCE_WGSL: &str = include_str!("../../../shaders/reduce.wgsl");

/// Entries one combine workgroup folds into one.
pub(crate) const FAN_IN: u64 = 64;

/// The combine shader's source for `op` on `ty`: the same combination (and operand order) as
/// [`Scalar::combine`](ops_core::kernel::Scalar::combine) and the kernels' workgroup tree.
pub(crate) fn combine_wgsl(op: ReduceOp, ty: ElemType) -> String {
    let t = match ty {
        ElemType::F64 => "f64",
        ElemType::F32 => "f32",
        ElemType::I32 => "i32",
    };
    let e = match op {
        ReduceOp::Sum => "a + b",
        ReduceOp::Min => "select(a, b, b < a)",
        ReduceOp::Max => "select(a, b, b > a)",
    };
    REDUCE_WGSL.replace("OPS_T", t).replace("OPS_COMBINE", e)
}

/// Combine pipelines by (operation, type), built on first use.
#[derive(Default)]
pub(crate) struct Combiners {
    map: HashMap<(ReduceOp, ElemType), (::wgpu::ComputePipeline, ::wgpu::BindGroupLayout)>,
}

impl Combiners {
    pub fn get(
        &mut self,
        gpu: &Gpu,
        op: ReduceOp,
        ty: ElemType,
    ) -> Result<&(::wgpu::ComputePipeline, ::wgpu::BindGroupLayout)> {
        let slot = match self.map.entry((op, ty)) {
            std::collections::hash_map::Entry::Occupied(e) => return Ok(e.into_mut()),
            std::collections::hash_map::Entry::Vacant(v) => v,
        };
        let name = format!("ops_combine_{op}_{ty}");
        let src = combine_wgsl(op, ty);
        super::kernels::validate(&name, &src).map_err(backend_err)?;
        let entry = |binding, read_only| ::wgpu::BindGroupLayoutEntry {
            binding,
            visibility: ::wgpu::ShaderStages::COMPUTE,
            ty: ::wgpu::BindingType::Buffer {
                ty: ::wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = gpu
            .device
            .create_bind_group_layout(&::wgpu::BindGroupLayoutDescriptor {
                label: Some(&name),
                entries: &[entry(0, true), entry(1, false)],
            });
        let pipeline = compile_module(gpu, &name, &src, "main", &layout).map_err(backend_err)?;
        Ok(slot.insert((pipeline, layout)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_combine_shader_validates() {
        for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
            for ty in [ElemType::F64, ElemType::F32, ElemType::I32] {
                let src = combine_wgsl(op, ty);
                super::super::kernels::validate("combine", &src)
                    .unwrap_or_else(|e| panic!("{op} {ty}: {e}"));
            }
        }
    }
}
