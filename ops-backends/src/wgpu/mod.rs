//! The GPU backend: datasets live on a WebGPU device (through [wgpu](https://wgpu.rs)), each
//! loop runs the WGSL its `#[kernel]` generated, and reductions are combined on the device in a
//! fixed tree.
//!
//! - **Datasets** are one storage buffer each, laid out exactly as their
//!   [`DatLayout`] (halos included), zero-initialised. There is no host mirror to keep
//!   coherent: [`Backend::download`] copies out exactly the box asked for, when it is asked for
//!   (a buffer copy when the box is one contiguous run, else a pack shader gathering it into a
//!   staging buffer first), and [`Backend::upload`] the reverse.
//! - **Batching**: loops, uploads and downloads are recorded in order into one command encoder
//!   (consecutive loops share one compute pass); the encoder is submitted only when the host
//!   needs a result (a reduction, a download, [`Backend::synchronize`]) or after
//!   256 recorded loops. Each loop's description (`OpsLoop` of `shaders/prelude.wgsl`) takes
//!   one slot of a buffer bound with a dynamic offset, written once per submission.
//! - **Reductions**: every workgroup of a kernel leaves one partial (a fixed tree inside the
//!   workgroup); `shaders/reduce.wgsl` then folds groups of 64 partials into one, pass after pass,
//!   until one value is left. The tree depends only on the loop's point count, so the same run
//!   gives the same bits every time on the same device; the value is folded into the runtime's
//!   partial with [`Scalar::combine`], as the host backends do.
//! - **Caching**: a compute pipeline (and its bind-group layout) per kernel, keyed by the
//!   kernel's name and the address of its `&'static` WGSL; bind groups per (pipeline, buffers).
//!
//! `docs/gpu.md` describes the design, the limits requested and how to run on a real GPU.

mod desc;
mod device;
mod error;
mod kernels;
mod reduce;
mod transfer;
mod window;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ops_core::backend::{ArgPlan, PendingBytes};
use ops_core::kernel::{ElemType, Kernel, Scalar, MAX_ARGS};
use ops_core::{Backend, DatId, DatLayout, IterRange, LoopPlan, OpsError, Result};

use desc::{LoopDesc, DESC_BYTES};
use device::Gpu;
use kernels::{KernelCache, Slot};
use reduce::{Combiners, FAN_IN};
use transfer::{BoxDesc, Packer};

pub use device::{adapters, AdapterSummary, ADAPTER_ENV, DEFAULT_TIMEOUT, TIMEOUT_ENV};
pub use error::{KernelProblem, WgpuError};
pub use reduce::REDUCE_WGSL;
pub use transfer::PACK_WGSL;

/// The backend's name, as [`Backend::name`] and error messages give it.
pub const NAME: &str = "wgpu";

/// Loops recorded before the encoder is submitted even though nobody waits for them (so the
/// device starts working while the host records more).
pub const LOOPS_PER_SUBMISSION: u64 = 256;

/// Submissions that may run ahead of the host before it waits for the oldest one.
pub const MAX_IN_FLIGHT: usize = 3;

/// Rows at least this long run in row mode (one workgroup per 64 points of a row, some lanes
/// idle at the end of each row); shorter rows in linear mode (every lane busy, two integer
/// divisions per point).
const ROW_MODE_MIN_X: u64 = 32;

/// Invocations per workgroup of every generated kernel (`WORKGROUP` of the macro's lowering).
const WORKGROUP: u64 = 64;

pub(crate) fn backend_err(message: impl Into<String>) -> OpsError {
    OpsError::Backend {
        backend: NAME.into(),
        message: message.into().into(),
    }
}

/// Counters of what the backend did, shared with whoever asked for them
/// ([`WgpuBackend::stats`]): how batching and synchronisation behave.
#[derive(Debug, Default)]
pub struct WgpuStats {
    /// Kernel dispatches recorded (one per loop).
    pub dispatches: AtomicU64,
    /// Command buffers submitted.
    pub submissions: AtomicU64,
    /// Times the host waited for the device (reductions, downloads, synchronize).
    pub waits: AtomicU64,
    /// Bytes uploaded (host to device).
    pub bytes_up: AtomicU64,
    /// Bytes downloaded (device to host).
    pub bytes_down: AtomicU64,
}

impl WgpuStats {
    fn add(c: &AtomicU64, v: u64) {
        c.fetch_add(v, Ordering::Relaxed);
    }

    /// A plain copy of the counters: (dispatches, submissions, waits, bytes up, bytes down).
    pub fn snapshot(&self) -> (u64, u64, u64, u64, u64) {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        (
            g(&self.dispatches),
            g(&self.submissions),
            g(&self.waits),
            g(&self.bytes_up),
            g(&self.bytes_down),
        )
    }
}

/// A bind group's key: the pipeline, and (buffer uid, window offset, window size) per binding; a
/// buffer bound whole has offset and size 0.
type BindKey = (usize, Vec<(u64, u64, u64)>);

struct DevDat {
    buf: ::wgpu::Buffer,
    uid: u64,
    layout: DatLayout,
}

/// Partials of one reduction argument position, and the ping-pong buffer of the combine passes.
struct RedBufs {
    partials: ::wgpu::Buffer,
    temp: ::wgpu::Buffer,
    uid: u64,
}

/// The wgpu backend. See the [module documentation](self).
pub struct WgpuBackend {
    gpu: Gpu,
    dats: Vec<Option<DevDat>>,
    next_uid: u64,
    kernels: KernelCache,
    bind_groups: HashMap<BindKey, ::wgpu::BindGroup>,
    combiners: Combiners,
    packer: Packer,
    /// Pack target of non-contiguous downloads, grown on demand.
    scratch: Option<::wgpu::Buffer>,
    /// Reduction buffers by argument position.
    red: Vec<Option<RedBufs>>,
    /// Where the final reduction values land, one 8-byte slot per argument position.
    red_readback: ::wgpu::Buffer,
    encoder: Option<::wgpu::CommandEncoder>,
    pass: Option<::wgpu::ComputePass<'static>>,
    /// Loop descriptions of the batch being recorded, one `stride`-byte slot per loop.
    descs: Vec<u8>,
    desc_buf: ::wgpu::Buffer,
    stride: u64,
    /// Submissions that may still be running, oldest first (at most [`MAX_IN_FLIGHT`]).
    in_flight: std::collections::VecDeque<::wgpu::SubmissionIndex>,
    stats: Arc<WgpuStats>,
}

impl std::fmt::Debug for WgpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WgpuBackend")
            .field("adapter", &self.gpu.adapter)
            .field("pipelines", &self.kernels.len())
            .finish()
    }
}

impl WgpuBackend {
    /// A backend on the adapter [`ADAPTER_ENV`] names, else the first real GPU offering f64,
    /// else any adapter offering f64 (such as Mesa's software llvmpipe). Fails with the
    /// adapters found and how to get a driver.
    pub fn new() -> Result<Self> {
        let (adapter, summary) = device::choose_adapter()?;
        Self::open(adapter, summary)
    }

    /// A backend on a real GPU offering f64, for `--ops-backend auto`; `Err` says what was found
    /// instead (a CPU adapter such as llvmpipe does not count).
    pub fn on_gpu() -> std::result::Result<Self, String> {
        let (adapter, summary) = device::find_gpu()?;
        Self::open(adapter, summary).map_err(|e| e.to_string())
    }

    fn open(adapter: ::wgpu::Adapter, summary: AdapterSummary) -> Result<Self> {
        let gpu = Gpu::open(adapter, summary)?;
        let align = gpu.limits.min_storage_buffer_offset_alignment.max(4) as u64;
        let stride = DESC_BYTES.div_ceil(align) * align;
        let desc_buf = gpu.device.create_buffer(&::wgpu::BufferDescriptor {
            label: Some("ops loop descriptions"),
            size: stride * LOOPS_PER_SUBMISSION,
            usage: ::wgpu::BufferUsages::STORAGE | ::wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let red_readback = gpu.device.create_buffer(&::wgpu::BufferDescriptor {
            label: Some("ops reduction results"),
            size: 8 * MAX_ARGS as u64,
            usage: ::wgpu::BufferUsages::MAP_READ | ::wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let packer = Packer::new(&gpu)?;
        Ok(WgpuBackend {
            gpu,
            dats: Vec::new(),
            next_uid: 1,
            kernels: KernelCache::default(),
            bind_groups: HashMap::new(),
            combiners: Combiners::default(),
            packer,
            scratch: None,
            red: Vec::new(),
            red_readback,
            encoder: None,
            pass: None,
            descs: Vec::new(),
            desc_buf,
            stride,
            in_flight: Default::default(),
            stats: Arc::default(),
        })
    }

    /// Every kernel of `kernels` that cannot run on this device, and why: it has no WGSL form
    /// (e.g. `exp` on f64), its shader fails naga's validation, or it binds more storage buffers
    /// than the adapter allows. [`crate::backend_from_config`] checks every kernel linked into
    /// the program ([`registered_kernels`](ops_core::kernel::registered_kernels)) when
    /// `--ops-backend wgpu` is chosen, so the whole list comes at start-up, not loop by loop.
    ///
    /// ```no_run
    /// # fn main() -> ops_core::Result<()> {
    /// let gpu = ops_backends::WgpuBackend::new()?;
    /// gpu.check_kernels(ops_core::kernel::registered_kernels())?;
    /// # Ok(()) }
    /// ```
    pub fn check_kernels<'k>(
        &self,
        kernels: impl IntoIterator<Item = &'k dyn Kernel>,
    ) -> std::result::Result<(), WgpuError> {
        let max = self.gpu.limits.max_storage_buffers_per_shader_stage as usize;
        let mut problems: Vec<KernelProblem> = Vec::new();
        for k in kernels {
            if problems.iter().any(|p| p.kernel == k.name()) {
                continue;
            }
            let why = match ops_core::kernel::full_wgsl(k) {
                Err(why) => Some(format!("no WGSL form: {why}")),
                Ok(src) => kernels::validate(k.name(), &src).err().or_else(|| {
                    // The loop description, and one binding per dataset and reduction.
                    let bindings = 1 + k
                        .params()
                        .iter()
                        .filter(|p| {
                            matches!(
                                p.kind,
                                ops_core::kernel::ParamKind::Dat(_)
                                    | ops_core::kernel::ParamKind::Reduce(_)
                            )
                        })
                        .count();
                    (bindings > max).then(|| {
                        format!("binds {bindings} storage buffers; the adapter allows {max} per shader stage")
                    })
                }),
            };
            if let Some(why) = why {
                problems.push(KernelProblem {
                    kernel: k.name(),
                    why,
                });
            }
        }
        if problems.is_empty() {
            return Ok(());
        }
        problems.sort_by_key(|p| p.kernel);
        Err(WgpuError::UnsupportedKernels {
            adapter: self.gpu.adapter.to_string(),
            kernels: problems,
        })
    }

    /// The longest any wait for the device may take before it fails with
    /// [`WgpuError::Timeout`] (default: [`TIMEOUT_ENV`], else [`DEFAULT_TIMEOUT`]).
    pub fn set_timeout(&mut self, timeout: std::time::Duration) {
        self.gpu.timeout = timeout;
    }

    /// The adapter the backend runs on.
    pub fn adapter(&self) -> &AdapterSummary {
        &self.gpu.adapter
    }

    /// The limits the device was opened with (all the adapter offers).
    pub fn limits(&self) -> &::wgpu::Limits {
        &self.gpu.limits
    }

    /// The backend's counters; the handle stays valid after the backend moves into an
    /// [`Ops`](ops_core::Ops).
    pub fn stats(&self) -> Arc<WgpuStats> {
        self.stats.clone()
    }

    /// Compute pipelines built so far (one per kernel and aliasing variant).
    pub fn pipelines(&self) -> usize {
        self.kernels.len()
    }

    fn uid(&mut self) -> u64 {
        self.next_uid += 1;
        self.next_uid
    }

    fn dat(&self, dat: DatId) -> Result<&DevDat> {
        match self.dats.get(dat.index()) {
            Some(Some(d)) => Ok(d),
            _ => Err(backend_err(format!(
                "no storage for dataset #{}",
                dat.index()
            ))),
        }
    }

    fn dat_checked(&self, dat: DatId, layout: &DatLayout) -> Result<&DevDat> {
        let d = self.dat(dat)?;
        if d.layout != *layout {
            return Err(backend_err(format!(
                "dataset #{}: layout differs from the one allocated",
                dat.index()
            )));
        }
        Ok(d)
    }

    /// Workgroup grid for `groups` workgroups: 1-D up to the per-dimension limit, else 2-D
    /// (the shaders linearise `gid.x + gid.y * nwg.x * 64`).
    fn grid(&self, groups: u64) -> Result<(u32, u32)> {
        let max = self.gpu.limits.max_compute_workgroups_per_dimension.max(1) as u64;
        let groups = groups.max(1);
        if groups <= max {
            return Ok((groups as u32, 1));
        }
        let y = groups.div_ceil(max);
        if y > max {
            return Err(backend_err(format!(
                "{groups} workgroups exceed the device's {max} x {max}"
            )));
        }
        Ok((max as u32, y as u32))
    }

    /// The pack shader's grid for `bx` (setting its mode).
    fn box_grid(&self, bx: &mut BoxDesc) -> Result<(u32, u32, u32)> {
        bx.grid(self.gpu.limits.max_compute_workgroups_per_dimension)
            .ok_or_else(|| {
                backend_err(format!(
                    "a box of {} words exceeds the dispatch grid",
                    bx.total
                ))
            })
    }

    fn encoder(&mut self) -> &mut ::wgpu::CommandEncoder {
        self.pass = None;
        self.encoder.get_or_insert_with(|| {
            self.gpu
                .device
                .create_command_encoder(&::wgpu::CommandEncoderDescriptor {
                    label: Some("ops batch"),
                })
        })
    }

    fn ensure_pass(&mut self) {
        if self.pass.is_none() {
            let pass = self
                .encoder()
                .begin_compute_pass(&::wgpu::ComputePassDescriptor {
                    label: Some("ops loops"),
                    timestamp_writes: None,
                })
                .forget_lifetime();
            self.pass = Some(pass);
        }
    }

    /// Submits everything recorded so far (after writing the batch's loop descriptions).
    fn submit(&mut self) {
        self.pass = None;
        if let Some(enc) = self.encoder.take() {
            if !self.descs.is_empty() {
                // Queue writes land before the command buffers of the next submission.
                self.gpu.queue.write_buffer(&self.desc_buf, 0, &self.descs);
                self.descs.clear();
            }
            let index = self.gpu.queue.submit(Some(enc.finish()));
            WgpuStats::add(&self.stats.submissions, 1);
            // A program that never waits (a benchmark loop, a long run without reductions)
            // must not queue unbounded work: wait for the oldest submission beyond the limit.
            self.in_flight.push_back(index);
            if self.in_flight.len() > MAX_IN_FLIGHT {
                let oldest = self.in_flight.pop_front().expect("non-empty");
                let during = "an earlier batch of loops";
                if let Err(e) =
                    device::wait_for(&self.gpu.device, Some(oldest), self.gpu.timeout, during)
                {
                    // Nobody waits here; the next wait reports it.
                    self.gpu.defer_error(e.to_string());
                }
            }
        }
    }

    /// Takes a loop-description slot (submitting first when the batch is full) and returns its
    /// dynamic offset.
    fn push_desc(&mut self, d: &LoopDesc) -> u32 {
        if self.descs.len() as u64 >= self.stride * LOOPS_PER_SUBMISSION {
            self.submit();
        }
        let off = self.descs.len();
        self.descs.extend_from_slice(bytemuck::bytes_of(d));
        self.descs.resize(off + self.stride as usize, 0);
        off as u32
    }

    fn wait(&mut self, during: &str) -> Result<()> {
        self.gpu.check(during)?;
        self.gpu.wait(during)?;
        self.in_flight.clear();
        WgpuStats::add(&self.stats.waits, 1);
        self.gpu.check(during)
    }

    fn forget_buffer(&mut self, uid: u64) {
        self.bind_groups
            .retain(|k, _| !k.1.iter().any(|e| e.0 == uid));
    }

    /// The dispatches of `plan` (see [`window`]).
    fn slabs(&self, plan: &LoopPlan<'_>) -> Result<Vec<window::Slab>> {
        let limits = window::Limits {
            binding: self.gpu.limits.max_storage_buffer_binding_size,
            align: self.gpu.limits.min_storage_buffer_offset_alignment.max(4) as u64,
        };
        let buffer = |k: usize| match plan.args[k] {
            ArgPlan::Dat(d) => self.dat(d.dat).ok().map(|dd| (dd.layout, dd.buf.size())),
            _ => None,
        };
        window::slabs(plan, &buffer, &limits)
            .map_err(|e| backend_err(format!("loop `{}`: {e}", plan.name)))
    }

    /// Reduction buffers for argument `k` holding at least `n` values of `ty`.
    fn ensure_red(&mut self, k: usize, n: u64, ty: ElemType) -> Result<u64> {
        let bytes = (n * ty.size() as u64).max(16);
        if self.red.len() <= k {
            self.red.resize_with(k + 1, || None);
        }
        if let Some(r) = &self.red[k] {
            if r.partials.size() >= bytes {
                return Ok(r.uid);
            }
            let old = r.uid;
            self.forget_buffer(old);
        }
        let size = bytes.next_power_of_two();
        if size > self.gpu.limits.max_storage_buffer_binding_size {
            return Err(backend_err(format!(
                "{n} reduction partials exceed the device's storage binding size"
            )));
        }
        let mk = |label| {
            self.gpu.device.create_buffer(&::wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: ::wgpu::BufferUsages::STORAGE | ::wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let (partials, temp) = (mk("ops partials"), mk("ops partials (combine)"));
        let uid = self.uid();
        self.red[k] = Some(RedBufs {
            partials,
            temp,
            uid,
        });
        Ok(uid)
    }

    /// Maps `buf[..len]` for reading once the submitted work is done, and returns the bytes.
    fn read_mapped(&mut self, buf: &::wgpu::Buffer, len: u64, during: &str) -> Result<Vec<u8>> {
        let pending = Pending::map(&self.gpu, buf.clone(), len);
        self.wait(during)?;
        let mut out = vec![0u8; len as usize];
        pending.finish(&mut out, during)?;
        Ok(out)
    }

    /// Combines the `n` per-workgroup partials of every reduction argument of `plan` on the
    /// device, reads the results back (one wait) and folds them into `partials`.
    fn finish_reductions(
        &mut self,
        plan: &LoopPlan<'_>,
        partials: &mut [Scalar],
        n: u64,
    ) -> Result<()> {
        let mut finals = Vec::new();
        for (k, a) in plan.args().iter().enumerate() {
            let ArgPlan::Reduce { op, ty, .. } = *a else {
                continue;
            };
            let es = ty.size() as u64;
            let (src0, dst0) = match &self.red[k] {
                Some(r) => (r.partials.clone(), r.temp.clone()),
                None => return Err(backend_err("internal: reduction buffers missing")),
            };
            let (mut src, mut dst) = (src0, dst0);
            let mut cur = n;
            while cur > 1 {
                let groups = cur.div_ceil(FAN_IN);
                let (cx, cy) = self.grid(groups)?;
                let (pipeline, layout) = self.combiners.get(&self.gpu, op, ty)?;
                let (pipeline, layout) = (pipeline.clone(), layout.clone());
                let bg = self
                    .gpu
                    .device
                    .create_bind_group(&::wgpu::BindGroupDescriptor {
                        label: Some("ops combine"),
                        layout: &layout,
                        entries: &[
                            ::wgpu::BindGroupEntry {
                                binding: 0,
                                resource: ::wgpu::BindingResource::Buffer(::wgpu::BufferBinding {
                                    buffer: &src,
                                    offset: 0,
                                    size: ::wgpu::BufferSize::new(cur * es),
                                }),
                            },
                            ::wgpu::BindGroupEntry {
                                binding: 1,
                                resource: dst.as_entire_binding(),
                            },
                        ],
                    });
                self.ensure_pass();
                let pass = self.pass.as_mut().expect("pass just ensured");
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bg, &[]);
                pass.dispatch_workgroups(cx, cy, 1);
                cur = groups;
                std::mem::swap(&mut src, &mut dst);
            }
            finals.push((k, src, es));
        }
        let readback = self.red_readback.clone();
        let enc = self.encoder();
        for (k, buf, es) in &finals {
            enc.copy_buffer_to_buffer(buf, 0, &readback, *k as u64 * 8, *es);
        }
        self.submit();
        let during = format!("in loop `{}` (kernel `{}`)", plan.name, plan.kernel);
        let bytes = self.read_mapped(&readback, 8 * MAX_ARGS as u64, &during)?;
        for (k, a) in plan.args().iter().enumerate() {
            let ArgPlan::Reduce { op, ty, .. } = *a else {
                continue;
            };
            let at = &bytes[k * 8..k * 8 + 8];
            let v = match ty {
                ElemType::F64 => Scalar::F64(f64::from_le_bytes(at.try_into().expect("8 bytes"))),
                ElemType::F32 => {
                    Scalar::F32(f32::from_le_bytes(at[..4].try_into().expect("4 bytes")))
                }
                ElemType::I32 => {
                    Scalar::I32(i32::from_le_bytes(at[..4].try_into().expect("4 bytes")))
                }
            };
            partials[k] = partials[k].combine(op, v);
        }
        Ok(())
    }

    /// Records the dispatch of the part `slab` of `plan` (and, with reductions, combines and
    /// reads them back).
    fn dispatch(
        &mut self,
        kernel: &dyn Kernel,
        plan: &LoopPlan<'_>,
        kp: &kernels::KernelPipeline,
        slab: &window::Slab,
        partials: &mut [Scalar],
    ) -> Result<()> {
        let (lo, hi) = (slab.lo, slab.hi);
        let points: u64 = (0..3).map(|d| (hi[d] - lo[d]) as u64).product();
        let n: [u64; 3] = std::array::from_fn(|d| (hi[d] - lo[d]) as u64);
        let max = self.gpu.limits.max_compute_workgroups_per_dimension as u64;
        let mut desc = LoopDesc::new(plan, slab)?;
        // Row mode (no integer division in the shader) unless rows are short or the grid
        // exceeds the dispatch limits; see `ops_iteration_point` in shaders/prelude.wgsl.
        let row_groups = n[0].div_ceil(WORKGROUP);
        let (gx, gy, gz) =
            if n[0] >= ROW_MODE_MIN_X && row_groups <= max && n[1] <= max && n[2] <= max {
                desc.lo[3] = 1;
                (row_groups as u32, n[1] as u32, n[2] as u32)
            } else {
                let (x, y) = self.grid(points.div_ceil(WORKGROUP))?;
                (x, y, 1)
            };
        let n_partials = gx as u64 * gy as u64 * gz as u64;
        let mut uids = Vec::with_capacity(kp.slots.len());
        for slot in &kp.slots {
            match *slot {
                Slot::Dat(k) => {
                    let ArgPlan::Dat(d) = plan.args[k] else {
                        return Err(backend_err(format!(
                            "loop `{}`: argument {k} is not a dataset",
                            plan.name
                        )));
                    };
                    let w = slab.windows[k].map_or((0, 0), |w| (w.offset, w.size));
                    uids.push((self.dat(d.dat)?.uid, w.0, w.1));
                }
                Slot::Reduce(k) => {
                    let ArgPlan::Reduce { ty, .. } = plan.args[k] else {
                        return Err(backend_err(format!(
                            "loop `{}`: argument {k} is not a reduction",
                            plan.name
                        )));
                    };
                    uids.push((self.ensure_red(k, n_partials, ty)?, 0, 0));
                }
            }
        }
        let key = (kp.id, uids);
        if !self.bind_groups.contains_key(&key) {
            if self.bind_groups.len() >= 4096 {
                self.bind_groups.clear();
            }
            let mut entries = vec![::wgpu::BindGroupEntry {
                binding: 0,
                resource: ::wgpu::BindingResource::Buffer(::wgpu::BufferBinding {
                    buffer: &self.desc_buf,
                    offset: 0,
                    size: ::wgpu::BufferSize::new(DESC_BYTES),
                }),
            }];
            for slot in &kp.slots {
                let (k, buf) = match *slot {
                    Slot::Dat(k) => {
                        let ArgPlan::Dat(d) = plan.args[k] else {
                            unreachable!("checked above")
                        };
                        (k, &self.dat(d.dat)?.buf)
                    }
                    Slot::Reduce(k) => (k, &self.red[k].as_ref().expect("ensured above").partials),
                };
                let resource = match slab.windows[k] {
                    Some(w) => ::wgpu::BindingResource::Buffer(::wgpu::BufferBinding {
                        buffer: buf,
                        offset: w.offset,
                        size: ::wgpu::BufferSize::new(w.size),
                    }),
                    None => buf.as_entire_binding(),
                };
                entries.push(::wgpu::BindGroupEntry {
                    binding: 1 + k as u32,
                    resource,
                });
            }
            let bg = self
                .gpu
                .device
                .create_bind_group(&::wgpu::BindGroupDescriptor {
                    label: Some(kernel.name()),
                    layout: &kp.layout,
                    entries: &entries,
                });
            self.bind_groups.insert(key.clone(), bg);
        }
        let offset = self.push_desc(&desc);
        self.ensure_pass();
        let pass = self.pass.as_mut().expect("pass just ensured");
        let bg = &self.bind_groups[&key];
        pass.set_pipeline(&kp.pipeline);
        pass.set_bind_group(0, bg, &[offset]);
        pass.dispatch_workgroups(gx, gy, gz);
        WgpuStats::add(&self.stats.dispatches, 1);
        if plan.has_reductions {
            self.finish_reductions(plan, partials, n_partials)?;
        }
        Ok(())
    }

    fn box_bind_group(
        &self,
        bx: &BoxDesc,
        dat: &::wgpu::Buffer,
        packed: &::wgpu::Buffer,
    ) -> ::wgpu::BindGroup {
        use ::wgpu::util::DeviceExt;
        let params = self
            .gpu
            .device
            .create_buffer_init(&::wgpu::util::BufferInitDescriptor {
                label: Some("ops box"),
                contents: bytemuck::bytes_of(bx),
                usage: ::wgpu::BufferUsages::UNIFORM,
            });
        self.gpu
            .device
            .create_bind_group(&::wgpu::BindGroupDescriptor {
                label: Some("ops pack"),
                layout: &self.packer.layout,
                entries: &[
                    ::wgpu::BindGroupEntry {
                        binding: 0,
                        resource: params.as_entire_binding(),
                    },
                    ::wgpu::BindGroupEntry {
                        binding: 1,
                        resource: dat.as_entire_binding(),
                    },
                    ::wgpu::BindGroupEntry {
                        binding: 2,
                        resource: ::wgpu::BindingResource::Buffer(::wgpu::BufferBinding {
                            buffer: packed,
                            offset: 0,
                            size: ::wgpu::BufferSize::new(bx.bytes()),
                        }),
                    },
                ],
            })
    }

    /// Starts copying the points of `range` of `dat` (components interleaved, x fastest) to
    /// the host: records the copy (packing the box on the device first unless it is one
    /// contiguous run) after everything recorded so far, submits, and returns without waiting.
    ///
    /// This is the download path [`Backend::download`] uses (it waits at once); a checkpoint
    /// writer can instead keep computing and call [`PendingDownload::wait`] later. Loops
    /// recorded after this call do not affect the data it returns.
    pub fn begin_download(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
    ) -> Result<PendingDownload> {
        let buf = self.dat_checked(dat, layout)?.buf.clone();
        if range.is_empty() {
            return Ok(PendingDownload::empty(&self.gpu));
        }
        let bx = BoxDesc::new(layout, range)?;
        let bytes = bx.bytes();
        let readback = self.gpu.device.create_buffer(&::wgpu::BufferDescriptor {
            label: Some("ops download"),
            size: bytes,
            usage: ::wgpu::BufferUsages::MAP_READ | ::wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if bx.contiguous() {
            self.encoder()
                .copy_buffer_to_buffer(&buf, bx.offset_bytes(), &readback, 0, bytes);
        } else if buf.size() > self.gpu.limits.max_storage_buffer_binding_size {
            // Too large to bind whole for the pack shader: one copy per row of the box.
            let enc = self.encoder();
            for (packed, at, len) in bx.rows() {
                enc.copy_buffer_to_buffer(&buf, at, &readback, packed, len);
            }
        } else {
            let scratch = match &self.scratch {
                Some(s) if s.size() >= bytes => s.clone(),
                _ => {
                    let s = self.gpu.device.create_buffer(&::wgpu::BufferDescriptor {
                        label: Some("ops pack scratch"),
                        size: bytes.next_power_of_two().max(256),
                        usage: ::wgpu::BufferUsages::STORAGE | ::wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    });
                    self.scratch = Some(s.clone());
                    s
                }
            };
            let mut bx = bx;
            let (gx, gy, gz) = self.box_grid(&mut bx)?;
            let bg = self.box_bind_group(&bx, &buf, &scratch);
            let pipeline = self.packer.pack.clone();
            self.ensure_pass();
            let pass = self.pass.as_mut().expect("pass just ensured");
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(gx, gy, gz);
            self.encoder()
                .copy_buffer_to_buffer(&scratch, 0, &readback, 0, bytes);
        }
        self.submit();
        WgpuStats::add(&self.stats.bytes_down, bytes);
        Ok(PendingDownload::map(&self.gpu, readback, bytes))
    }
}

/// A download under way ([`WgpuBackend::begin_download`]): the data is being copied into a
/// host-mappable buffer; [`PendingDownload::wait`] blocks until it is there and copies it out.
pub struct PendingDownload {
    inner: Pending,
}

impl std::fmt::Debug for PendingDownload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingDownload")
            .field("bytes", &self.inner.len)
            .field("ready", &self.is_ready())
            .finish()
    }
}

impl PendingDownload {
    fn map(gpu: &Gpu, buf: ::wgpu::Buffer, len: u64) -> PendingDownload {
        PendingDownload {
            inner: Pending::map(gpu, buf, len),
        }
    }

    fn empty(gpu: &Gpu) -> PendingDownload {
        PendingDownload {
            inner: Pending {
                buf: None,
                len: 0,
                state: Arc::new(Mutex::new(Some(Ok(())))),
                device: gpu.device.clone(),
                timeout: gpu.timeout,
            },
        }
    }

    /// Bytes the download delivers.
    pub fn len(&self) -> usize {
        self.inner.len as usize
    }

    /// True when the download delivers no bytes (an empty box).
    pub fn is_empty(&self) -> bool {
        self.inner.len == 0
    }

    /// True once the data has arrived (polls the device without blocking).
    pub fn is_ready(&self) -> bool {
        let _ = self.inner.device.poll(::wgpu::PollType::Poll);
        matches!(self.inner.state.lock().as_deref(), Ok(Some(_)))
    }

    /// Waits for the data (at most the backend's timeout, [`TIMEOUT_ENV`]) and copies it into
    /// `out` (exactly [`PendingDownload::len`] bytes).
    pub fn wait(self, out: &mut [u8]) -> Result<()> {
        if self.inner.len == 0 {
            return Ok(());
        }
        self.inner.finish(out, "a download")
    }
}

/// A buffer being mapped for reading, and the callback's verdict.
struct Pending {
    buf: Option<::wgpu::Buffer>,
    len: u64,
    state: Arc<Mutex<Option<std::result::Result<(), String>>>>,
    device: ::wgpu::Device,
    timeout: std::time::Duration,
}

impl Pending {
    fn map(gpu: &Gpu, buf: ::wgpu::Buffer, len: u64) -> Pending {
        let state = Arc::new(Mutex::new(None));
        let s = state.clone();
        buf.slice(..len).map_async(::wgpu::MapMode::Read, move |r| {
            if let Ok(mut g) = s.lock() {
                *g = Some(r.map_err(|e| e.to_string()));
            }
        });
        Pending {
            buf: Some(buf),
            len,
            state,
            device: gpu.device.clone(),
            timeout: gpu.timeout,
        }
    }

    /// Copies the mapped bytes into `out` once the map callback ran: the device is polled until
    /// it has, for at most the timeout (another thread may be polling the same device, so the
    /// callback can run there; the verdict is shared).
    fn finish(self, out: &mut [u8], during: &str) -> Result<()> {
        let Some(buf) = self.buf else {
            return Ok(());
        };
        if out.len() as u64 != self.len {
            return Err(backend_err(format!(
                "download {during}: {} bytes asked for, {} arrive",
                out.len(),
                self.len
            )));
        }
        let deadline = std::time::Instant::now() + self.timeout;
        loop {
            let verdict = self.state.lock().ok().and_then(|g| g.clone());
            match verdict {
                Some(Ok(())) => {
                    {
                        let view = buf
                            .slice(..self.len)
                            .get_mapped_range()
                            .map_err(|e| backend_err(format!("reading back {during}: {e:?}")))?;
                        out.copy_from_slice(&view);
                    }
                    buf.unmap();
                    return Ok(());
                }
                Some(Err(e)) => {
                    return Err(backend_err(format!("reading back {during}: {e}")));
                }
                None => {
                    let left = deadline.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        return Err(WgpuError::Timeout {
                            during: format!("mapping the read-back buffer of {during}"),
                            timeout: self.timeout,
                        }
                        .into());
                    }
                    device::wait_for(&self.device, None, left, during)?;
                    if self.state.lock().ok().is_some_and(|g| g.is_none()) {
                        // The queue is idle but the callback runs on another thread.
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
            }
        }
    }
}

/// Parses and validates `kernel`'s complete WGSL (prelude included) with naga, 64-bit floats
/// enabled, as the backend does before compiling it. Kernels without a WGSL form pass (they say
/// why when a loop runs them). Errors name the kernel and quote the offending line.
pub fn validate_kernel(kernel: &dyn Kernel) -> std::result::Result<(), String> {
    match ops_core::kernel::full_wgsl(kernel) {
        Ok(src) => kernels::validate(kernel.name(), &src),
        Err(_) => Ok(()),
    }
}

/// Bit `k` set for each `Read` dataset argument whose dataset the loop also writes through
/// another argument: such a binding must be declared `read_write` (WebGPU forbids one buffer
/// bound both read-only and writable in a dispatch).
fn rw_reads(plan: &LoopPlan<'_>) -> u32 {
    let args = plan.args();
    let mut mask = 0u32;
    for (k, a) in args.iter().enumerate() {
        let ArgPlan::Dat(d) = a else { continue };
        if d.writes() {
            continue;
        }
        let written = args
            .iter()
            .enumerate()
            .any(|(j, b)| j != k && matches!(b, ArgPlan::Dat(e) if e.dat == d.dat && e.writes()));
        if written {
            mask |= 1 << k;
        }
    }
    mask
}

impl Backend for WgpuBackend {
    fn name(&self) -> &'static str {
        NAME
    }

    fn runs_ahead(&self) -> bool {
        true
    }

    fn alloc(&mut self, dat: DatId, layout: &DatLayout) -> Result<()> {
        let bytes = (layout.bytes() as u64).max(4).div_ceil(4) * 4;
        // Datasets up to the largest buffer the adapter creates; those beyond one binding are
        // bound by windows (see `window`). The runtime names the dataset in the error.
        let max = self.gpu.limits.max_buffer_size;
        if bytes > max {
            return Err(WgpuError::DatasetTooLarge {
                bytes,
                max,
                adapter: self.gpu.adapter.to_string(),
            }
            .into());
        }
        if layout.elems() > i32::MAX as usize {
            return Err(backend_err(format!(
                "{} elements exceed the 32-bit indices of the shaders",
                layout.elems()
            )));
        }
        let scope = self
            .gpu
            .device
            .push_error_scope(::wgpu::ErrorFilter::OutOfMemory);
        let buf = self.gpu.device.create_buffer(&::wgpu::BufferDescriptor {
            label: Some("ops dataset"),
            size: bytes,
            usage: ::wgpu::BufferUsages::STORAGE
                | ::wgpu::BufferUsages::COPY_SRC
                | ::wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(backend_err(format!(
                "cannot allocate {bytes} bytes on {}: {e}",
                self.gpu.adapter
            )));
        }
        let uid = self.uid();
        let i = dat.index();
        if self.dats.len() <= i {
            self.dats.resize_with(i + 1, || None);
        }
        if let Some(old) = self.dats[i].take() {
            self.forget_buffer(old.uid);
        }
        self.dats[i] = Some(DevDat {
            buf,
            uid,
            layout: *layout,
        });
        Ok(())
    }

    fn free(&mut self, dat: DatId) {
        if let Some(slot) = self.dats.get_mut(dat.index()) {
            if let Some(old) = slot.take() {
                self.forget_buffer(old.uid);
            }
        }
    }

    fn upload(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        bytes: &[u8],
    ) -> Result<()> {
        let buf = self.dat_checked(dat, layout)?.buf.clone();
        if range.is_empty() {
            return Ok(());
        }
        let bx = BoxDesc::new(layout, range)?;
        if bytes.len() as u64 != bx.bytes() {
            return Err(backend_err(format!(
                "upload to dataset #{}: {} bytes for a box of {}",
                dat.index(),
                bytes.len(),
                bx.bytes()
            )));
        }
        let staging = self.gpu.device.create_buffer(&::wgpu::BufferDescriptor {
            label: Some("ops upload"),
            size: bx.bytes(),
            usage: ::wgpu::BufferUsages::COPY_SRC | ::wgpu::BufferUsages::STORAGE,
            mapped_at_creation: true,
        });
        staging
            .slice(..)
            .get_mapped_range_mut()
            .map_err(|e| backend_err(format!("upload staging buffer: {e:?}")))?
            .copy_from_slice(bytes);
        staging.unmap();
        if bx.contiguous() {
            self.encoder()
                .copy_buffer_to_buffer(&staging, 0, &buf, bx.offset_bytes(), bx.bytes());
        } else if buf.size() > self.gpu.limits.max_storage_buffer_binding_size {
            // Too large to bind whole for the unpack shader: one copy per row of the box.
            let enc = self.encoder();
            for (packed, at, len) in bx.rows() {
                enc.copy_buffer_to_buffer(&staging, packed, &buf, at, len);
            }
        } else {
            let mut bx = bx;
            let (gx, gy, gz) = self.box_grid(&mut bx)?;
            let bg = self.box_bind_group(&bx, &buf, &staging);
            let pipeline = self.packer.unpack.clone();
            self.ensure_pass();
            let pass = self.pass.as_mut().expect("pass just ensured");
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(gx, gy, gz);
        }
        WgpuStats::add(&self.stats.bytes_up, bx.bytes());
        Ok(())
    }

    fn download(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        let pending = self.begin_download(dat, layout, range)?;
        if out.len() != pending.len() {
            return Err(backend_err(format!(
                "download from dataset #{}: {} bytes asked for a box of {}",
                dat.index(),
                out.len(),
                pending.len()
            )));
        }
        let during = format!("downloading dataset #{}", dat.index());
        self.wait(&during)?;
        pending.wait(out)?;
        self.gpu.check(&during)
    }

    fn begin_download(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
    ) -> Result<Option<PendingBytes>> {
        let pending = WgpuBackend::begin_download(self, dat, layout, range)?;
        let len = pending.len();
        Ok(Some(PendingBytes::new(len, move || {
            let mut out = vec![0u8; len];
            pending.wait(&mut out)?;
            Ok(out)
        })))
    }

    fn run(
        &mut self,
        kernel: &dyn Kernel,
        plan: &LoopPlan<'_>,
        partials: &mut [Scalar],
    ) -> Result<()> {
        let kp = self
            .kernels
            .get(&self.gpu, kernel, plan.name, rw_reads(plan))?;
        let points = plan.range.points() as u64;
        if points > i32::MAX as u64 {
            return Err(backend_err(format!(
                "loop `{}`: {points} points exceed the shaders' 32-bit linear index",
                plan.name
            )));
        }
        // One dispatch unless a dataset exceeds a binding; reductions fold each dispatch's
        // result in range order.
        let slabs = self.slabs(plan)?;
        if slabs.len() > 1 || slabs[0].windows.iter().any(Option::is_some) {
            tracing::debug!(
                loop_name = plan.name,
                dispatches = slabs.len(),
                "a dataset exceeds one binding: windowed dispatches"
            );
        }
        for slab in slabs {
            self.dispatch(kernel, plan, &kp, &slab, partials)?;
        }
        Ok(())
    }

    fn synchronize(&mut self) -> Result<()> {
        self.submit();
        self.wait("while synchronising")
    }
}
