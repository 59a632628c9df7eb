//! Compute pipelines of the generated kernels, built once per kernel (and aliasing variant) and
//! cached.

use std::collections::HashMap;
use std::sync::Arc;

use ops_core::kernel::{full_wgsl, Access, Kernel, ParamKind};
use ops_core::Result;

use super::backend_err;
use super::desc::DESC_BYTES;
use super::device::Gpu;

/// What one binding of a kernel holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Dataset argument `k` (binding `1 + k`).
    Dat(usize),
    /// Reduction argument `k`: one partial per workgroup (binding `1 + k`).
    Reduce(usize),
}

/// A kernel ready to dispatch.
pub(crate) struct KernelPipeline {
    /// Unique per cache entry (keys the bind-group cache).
    pub id: usize,
    pub pipeline: ::wgpu::ComputePipeline,
    pub layout: ::wgpu::BindGroupLayout,
    /// Bindings after binding 0, in binding order.
    pub slots: Vec<Slot>,
}

/// Key: kernel name, address and length of its `wgsl()` text (a `&'static str`, so the address
/// identifies the kernel's shader), and the set of `Read` parameters bound `read_write` because
/// the same loop writes their dataset through another argument.
type Key = (&'static str, usize, usize, u32);

/// Pipelines by kernel; failures are cached too, so a bad kernel fails fast every time.
#[derive(Default)]
pub(crate) struct KernelCache {
    map: HashMap<Key, std::result::Result<Arc<KernelPipeline>, String>>,
}

impl KernelCache {
    /// Number of pipelines built (for tests and diagnostics).
    pub fn len(&self) -> usize {
        self.map.values().filter(|v| v.is_ok()).count()
    }

    /// The pipeline of `kernel` whose `Read` parameters in `rw_reads` (a bit per parameter) are
    /// declared `read_write`.
    pub fn get(
        &mut self,
        gpu: &Gpu,
        kernel: &dyn Kernel,
        loop_name: &str,
        rw_reads: u32,
    ) -> Result<Arc<KernelPipeline>> {
        let src = kernel.wgsl().map_err(|why| {
            backend_err(format!(
                "loop `{loop_name}`: kernel `{}` has no WGSL form, so it cannot run on the GPU: \
                 {why}. Run the program with --ops-backend rayon (or seq)",
                kernel.name()
            ))
        })?;
        let key = (kernel.name(), src.as_ptr() as usize, src.len(), rw_reads);
        let next = self.map.len();
        let entry = self
            .map
            .entry(key)
            .or_insert_with(|| build(gpu, kernel, rw_reads, next).map(Arc::new));
        entry
            .clone()
            .map_err(|e| backend_err(format!("loop `{loop_name}`: {e}")))
    }
}

fn build(
    gpu: &Gpu,
    kernel: &dyn Kernel,
    rw_reads: u32,
    id: usize,
) -> std::result::Result<KernelPipeline, String> {
    let name = kernel.name();
    let mut src = full_wgsl(kernel).map_err(|e| e.to_string())?;
    let mut entries = vec![::wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: ::wgpu::ShaderStages::COMPUTE,
        ty: ::wgpu::BindingType::Buffer {
            ty: ::wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: true,
            min_binding_size: ::wgpu::BufferSize::new(DESC_BYTES),
        },
        count: None,
    }];
    let mut slots = Vec::new();
    for (k, p) in kernel.params().iter().enumerate() {
        let (read_only, slot) = match p.kind {
            ParamKind::Dat(Access::Read) => {
                let rw = rw_reads & (1 << k) != 0;
                if rw {
                    // The loop also writes this dataset through another argument (disjoint
                    // boxes, e.g. a halo reflection); WebGPU forbids binding one buffer both
                    // read-only and writable in a dispatch.
                    let from = format!("var<storage, read> d_{k}: ");
                    let to = format!("var<storage, read_write> d_{k}: ");
                    if !src.contains(&from) {
                        return Err(format!(
                            "kernel `{name}`: binding of parameter {k} not found in its WGSL"
                        ));
                    }
                    src = src.replacen(&from, &to, 1);
                }
                (!rw, Slot::Dat(k))
            }
            ParamKind::Dat(_) => (false, Slot::Dat(k)),
            ParamKind::Reduce(_) => (false, Slot::Reduce(k)),
            ParamKind::Global | ParamKind::Idx => continue,
        };
        entries.push(::wgpu::BindGroupLayoutEntry {
            binding: 1 + k as u32,
            visibility: ::wgpu::ShaderStages::COMPUTE,
            ty: ::wgpu::BindingType::Buffer {
                ty: ::wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        });
        slots.push(slot);
    }
    let max = gpu.limits.max_storage_buffers_per_shader_stage;
    if entries.len() as u32 > max {
        return Err(format!(
            "kernel `{name}` binds {} storage buffers (the loop description and one per dataset \
             and reduction parameter); adapter {} allows {max} per shader stage",
            entries.len(),
            gpu.adapter
        ));
    }
    validate(name, &src)?;
    compile(gpu, name, &src, &entries, id, slots)
}

/// Parses and validates with naga first: its report names the kernel and quotes the offending
/// WGSL line, which is what a failing shader needs.
pub(crate) fn validate(name: &str, src: &str) -> std::result::Result<(), String> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| {
        format!(
            "the WGSL of kernel `{name}` does not parse:\n{}",
            e.emit_to_string_with_path(src, name)
        )
    })?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::FLOAT64,
    )
    .validate(&module)
    .map_err(|e| {
        format!(
            "the WGSL of kernel `{name}` does not validate:\n{}",
            e.emit_to_string_with_path(src, name)
        )
    })?;
    Ok(())
}

/// Environment variable that keeps naga's runtime bounds checks in the shaders (`1`): slower,
/// for debugging a suspected out-of-bounds access.
pub const CHECKED_ENV: &str = "OPS_WGPU_CHECKED";

fn unchecked_allowed() -> bool {
    !std::env::var(CHECKED_ENV).is_ok_and(|v| v == "1")
}

/// Builds a compute pipeline from `src` (entry point `main`) inside an error scope, so a failure
/// is reported with the kernel's name (and the driver's messages with their WGSL lines).
pub(crate) fn compile_module(
    gpu: &Gpu,
    name: &str,
    src: &str,
    entry: &str,
    layout: &::wgpu::BindGroupLayout,
) -> std::result::Result<::wgpu::ComputePipeline, String> {
    let scope = gpu.device.push_error_scope(::wgpu::ErrorFilter::Validation);
    let desc = ::wgpu::ShaderModuleDescriptor {
        label: Some(name),
        source: ::wgpu::ShaderSource::Wgsl(src.into()),
    };
    let module = if unchecked_allowed() {
        // SAFETY: every index these shaders compute is in bounds: `par_loop` validated that the
        // range grown by every stencil offset lies inside each dataset (halo included), which
        // is the same contract that lets the CPU code skip bounds checks; the shaders compute
        // only for linear indices below the point count; reduction partials are written at
        // workgroup indices below the grid size the buffers were sized for; the pack and
        // combine shaders guard every access with the lengths they were given. Loops are
        // bounded (the kernel language allows only constant-bound `for` loops).
        unsafe {
            gpu.device
                .create_shader_module_trusted(desc, ::wgpu::ShaderRuntimeChecks::unchecked())
        }
    } else {
        gpu.device.create_shader_module(desc)
    };
    let pl = gpu
        .device
        .create_pipeline_layout(&::wgpu::PipelineLayoutDescriptor {
            label: Some(name),
            bind_group_layouts: &[Some(layout)],
            immediate_size: 0,
        });
    let pipeline = gpu
        .device
        .create_compute_pipeline(&::wgpu::ComputePipelineDescriptor {
            label: Some(name),
            layout: Some(&pl),
            module: &module,
            entry_point: Some(entry),
            compilation_options: ::wgpu::PipelineCompilationOptions {
                // Every workgroup array is written before it is read.
                zero_initialize_workgroup_memory: false,
                ..Default::default()
            },
            cache: None,
        });
    if let Some(e) = pollster::block_on(scope.pop()) {
        let info = pollster::block_on(module.get_compilation_info());
        let lines: Vec<&str> = src.lines().collect();
        let mut msg = format!(
            "the shader of kernel `{name}` fails to compile on {}: {e}",
            gpu.adapter
        );
        for m in info.messages {
            msg.push_str(&format!("\n  {:?}: {}", m.message_type, m.message));
            if let Some(loc) = m.location {
                let n = loc.line_number as usize;
                if let Some(l) = n.checked_sub(1).and_then(|i| lines.get(i)) {
                    msg.push_str(&format!("\n  line {n}: {}", l.trim()));
                }
            }
        }
        return Err(msg);
    }
    Ok(pipeline)
}

fn compile(
    gpu: &Gpu,
    name: &str,
    src: &str,
    entries: &[::wgpu::BindGroupLayoutEntry],
    id: usize,
    slots: Vec<Slot>,
) -> std::result::Result<KernelPipeline, String> {
    let layout = gpu
        .device
        .create_bind_group_layout(&::wgpu::BindGroupLayoutDescriptor {
            label: Some(name),
            entries,
        });
    let pipeline = compile_module(gpu, name, src, "main", &layout)?;
    Ok(KernelPipeline {
        id,
        pipeline,
        layout,
        slots,
    })
}
