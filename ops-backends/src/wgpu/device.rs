//! Adapters and the device: which adapter to use, what is asked of it, and where errors the
//! device reports asynchronously are collected.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use ops_core::Result;

use super::backend_err;
use super::error::WgpuError;

/// Environment variable bounding every wait for the device, in seconds (default
/// [`DEFAULT_TIMEOUT`]): a wait that takes longer fails with [`WgpuError::Timeout`] instead of
/// blocking forever on a hung device.
pub const TIMEOUT_ENV: &str = "OPS_WGPU_TIMEOUT";

/// How long the host waits for the device before giving up: generous, because llvmpipe under
/// load can take minutes for a batch of 256 loops on a large mesh.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The wait limit [`TIMEOUT_ENV`] sets, or [`DEFAULT_TIMEOUT`].
pub(crate) fn timeout_from_env() -> Result<Duration> {
    match std::env::var(TIMEOUT_ENV) {
        Err(_) => Ok(DEFAULT_TIMEOUT),
        Ok(v) => v
            .trim()
            .trim_end_matches('s')
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                backend_err(format!(
                    "{TIMEOUT_ENV}={v}: expected a positive number of seconds, like 120"
                ))
            }),
    }
}

/// Environment variable choosing an adapter by (case-insensitive) substring of its name, e.g.
/// `OPS_WGPU_ADAPTER=llvmpipe` or `OPS_WGPU_ADAPTER=nvidia`.
pub const ADAPTER_ENV: &str = "OPS_WGPU_ADAPTER";

/// What the backend knows about an adapter: enough to choose one and to say why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSummary {
    /// The adapter's name (e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub name: String,
    /// The graphics API it is reached through (Vulkan, Metal, Dx12, ...).
    pub backend: ::wgpu::Backend,
    /// Discrete, integrated, virtual GPU, or a CPU (software) device such as Mesa's llvmpipe.
    pub device_type: ::wgpu::DeviceType,
    /// The driver and its version, as the adapter reports them.
    pub driver: String,
    /// True when it offers 64-bit floats in shaders (`wgpu::Features::SHADER_F64`), which the
    /// backend needs.
    pub f64: bool,
}

impl AdapterSummary {
    fn of(a: &::wgpu::Adapter) -> AdapterSummary {
        let info = a.get_info();
        AdapterSummary {
            name: info.name,
            backend: info.backend,
            device_type: info.device_type,
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
            f64: a.features().contains(::wgpu::Features::SHADER_F64),
        }
    }

    /// True for a real GPU (discrete, integrated or virtual), false for a CPU/software device.
    pub fn is_gpu(&self) -> bool {
        matches!(
            self.device_type,
            ::wgpu::DeviceType::DiscreteGpu
                | ::wgpu::DeviceType::IntegratedGpu
                | ::wgpu::DeviceType::VirtualGpu
        )
    }
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` ({:?}, {:?}{})",
            self.name,
            self.backend,
            self.device_type,
            if self.f64 { "" } else { ", no f64" }
        )
    }
}

/// Instances made by [`instance`] in this process (one, or none before the first use).
static INSTANCES_MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The process's one wgpu instance, made at first use and shared by every enumeration and
/// backend. NVIDIA's Vulkan driver stops finding adapters once about 29 instances have been
/// made and dropped in one process (measured on an H100: the 30th backend of a loop found
/// none), so a program or a test that opens many runtimes must not make one each.
fn instance() -> ::wgpu::Instance {
    static INSTANCE: OnceLock<::wgpu::Instance> = OnceLock::new();
    INSTANCE
        .get_or_init(|| {
            INSTANCES_MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            // Every backend compiled in: `WGPU_BACKEND` filters each enumeration instead (see
            // `enumerate`), so it still works when set after the first backend was made.
            let mut desc = ::wgpu::InstanceDescriptor::new_without_display_handle_from_env();
            desc.backends = ::wgpu::Backends::all();
            ::wgpu::Instance::new(desc)
        })
        .clone()
}

/// Every adapter wgpu finds on this machine, with the backend's view of each.
pub fn adapters() -> Vec<AdapterSummary> {
    enumerate().iter().map(AdapterSummary::of).collect()
}

fn enumerate() -> Vec<::wgpu::Adapter> {
    // `WGPU_BACKEND` (and friends, read when the instance is made) still work for debugging.
    let backends = ::wgpu::Backends::from_env().unwrap_or(::wgpu::Backends::all());
    pollster::block_on(instance().enumerate_adapters(backends))
}

/// How to get an adapter when there is none.
pub(crate) const DRIVER_HINT: &str = "install a Vulkan driver: for a real GPU its vendor's; \
     without one, Mesa's software Vulkan device (llvmpipe, slow but with f64): \
     `apt-get install mesa-vulkan-drivers libvulkan1` on Debian/Ubuntu";

fn found(list: &[AdapterSummary]) -> String {
    if list.is_empty() {
        "none".to_string()
    } else {
        list.iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The adapter `--ops-backend wgpu` runs on: the one [`ADAPTER_ENV`] names if set; else the
/// first real GPU offering f64; else any adapter offering f64 (a software device such as
/// llvmpipe). The error lists what was found and how to get a driver.
pub(crate) fn choose_adapter() -> Result<(::wgpu::Adapter, AdapterSummary)> {
    let all: Vec<(::wgpu::Adapter, AdapterSummary)> = enumerate()
        .into_iter()
        .map(|a| {
            let s = AdapterSummary::of(&a);
            (a, s)
        })
        .collect();
    let summaries: Vec<AdapterSummary> = all.iter().map(|(_, s)| s.clone()).collect();
    if all.is_empty() {
        return Err(backend_err(format!(
            "no adapter found (wgpu looked for Vulkan, Metal and DX12 devices); {DRIVER_HINT}"
        )));
    }
    if let Ok(want) = std::env::var(ADAPTER_ENV) {
        let w = want.to_lowercase();
        return match all
            .into_iter()
            .find(|(_, s)| s.name.to_lowercase().contains(&w))
        {
            Some((a, s)) if s.f64 => Ok((a, s)),
            Some((_, s)) => Err(no_f64(&[s])),
            None => Err(backend_err(format!(
                "{ADAPTER_ENV}={want} matches no adapter; found: {}",
                found(&summaries)
            ))),
        };
    }
    let pick = |gpu: bool| all.iter().position(|(_, s)| s.f64 && s.is_gpu() == gpu);
    match pick(true).or_else(|| pick(false)) {
        Some(i) => Ok(all.into_iter().nth(i).expect("index from position")),
        None => Err(no_f64(&summaries)),
    }
}

fn no_f64(list: &[AdapterSummary]) -> ops_core::OpsError {
    backend_err(format!(
        "no adapter offers 64-bit floats in shaders (wgpu::Features::SHADER_F64), which the \
         wgpu backend needs; found: {}. Use a GPU whose driver offers f64, or Mesa's llvmpipe \
         (`apt-get install mesa-vulkan-drivers libvulkan1`), or --ops-backend rayon",
        found(list)
    ))
}

/// A real GPU offering f64, for `--ops-backend auto`; `Err` says what was found instead.
pub(crate) fn find_gpu() -> std::result::Result<(::wgpu::Adapter, AdapterSummary), String> {
    let mut seen = Vec::new();
    for a in enumerate() {
        let s = AdapterSummary::of(&a);
        if s.is_gpu() && s.f64 {
            return Ok((a, s));
        }
        seen.push(s);
    }
    Err(format!(
        "no GPU adapter offering f64 (found: {})",
        found(&seen)
    ))
}

/// The device, its queue, what was granted, and the errors it reported on its own.
pub(crate) struct Gpu {
    pub device: ::wgpu::Device,
    pub queue: ::wgpu::Queue,
    pub adapter: AdapterSummary,
    pub limits: ::wgpu::Limits,
    /// The longest the host waits for the device ([`TIMEOUT_ENV`]).
    pub timeout: Duration,
    /// Errors wgpu raised outside an error scope (validation, out of memory, device lost), and
    /// waits that timed out where no caller could be told.
    errors: Arc<Mutex<Vec<String>>>,
}

impl Gpu {
    /// Opens `adapter` with f64 and every limit it offers (the default limits allow only 8
    /// storage buffers per stage; CloverLeaf's kernels bind up to 13).
    pub fn open(adapter: ::wgpu::Adapter, summary: AdapterSummary) -> Result<Gpu> {
        if !summary.f64 {
            return Err(no_f64(&[summary]));
        }
        let timeout = timeout_from_env()?;
        let limits = adapter.limits();
        let desc = ::wgpu::DeviceDescriptor {
            label: Some("ops"),
            required_features: ::wgpu::Features::SHADER_F64,
            required_limits: limits.clone(),
            memory_hints: ::wgpu::MemoryHints::Performance,
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))
            .map_err(|e| backend_err(format!("cannot open a device on adapter {summary}: {e}")))?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: ::wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        let sink = errors.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut v) = sink.lock() {
                v.push(format!("device lost ({reason:?}): {message}"));
            }
        });
        Ok(Gpu {
            device,
            queue,
            adapter: summary,
            limits,
            timeout,
            errors,
        })
    }

    /// Fails with every error the device reported since the last call.
    pub fn check(&self, during: &str) -> Result<()> {
        let mut v = match self.errors.lock() {
            Ok(v) => v,
            Err(p) => p.into_inner(),
        };
        if v.is_empty() {
            return Ok(());
        }
        let all = std::mem::take(&mut *v).join("\n");
        Err(backend_err(format!(
            "the device reported an error {during} on {}: {all}",
            self.adapter
        )))
    }

    /// Records a failure to report at the next [`Gpu::check`].
    pub fn defer_error(&self, message: String) {
        if let Ok(mut v) = self.errors.lock() {
            v.push(message);
        }
    }

    /// Blocks until all submitted work is done, at most [`Gpu::timeout`].
    pub fn wait(&self, during: &str) -> Result<()> {
        wait_for(&self.device, None, self.timeout, during)
    }
}

/// Waits for `submission` (all submitted work when `None`) for at most `timeout`.
pub(crate) fn wait_for(
    device: &::wgpu::Device,
    submission: Option<::wgpu::SubmissionIndex>,
    timeout: Duration,
    during: &str,
) -> Result<()> {
    match device.poll(::wgpu::PollType::Wait {
        submission_index: submission,
        timeout: Some(timeout),
    }) {
        Ok(_) => Ok(()),
        Err(::wgpu::PollError::Timeout) => Err(WgpuError::Timeout {
            during: during.to_string(),
            timeout,
        }
        .into()),
        Err(e) => Err(backend_err(format!("waiting for the device {during}: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Enumerations, the backend's choice and `auto`'s search share the process's one instance
    /// (NVIDIA's driver finds no adapter after about 29 made and dropped).
    #[test]
    fn every_enumeration_shares_one_instance() {
        for _ in 0..3 {
            let _ = adapters();
            let _ = choose_adapter();
            let _ = find_gpu();
        }
        let made = INSTANCES_MADE.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(made, 1, "{made} wgpu instances made");
    }
}
