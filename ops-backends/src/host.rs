//! Host storage and the host backend shared by `seq` and `rayon`.

use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use ops_core::exec::{run_host, ChunkRunner, Partials, INLINE_POINTS, MAX_CHUNKS};
use ops_core::kernel::{Kernel, Scalar, MAX_ARGS};
use ops_core::{Backend, DatId, DatLayout, IterRange, LoopPlan, OpsError, Result};

/// Downloads of at least this many bytes are copied by every worker thread.
const PARALLEL_COPY_BYTES: usize = 1 << 20;

/// Alignment of every dataset allocation, in bytes.
pub const ALIGN: usize = 64;

/// One dataset's storage: a zero-initialised, 64-byte-aligned allocation laid out as its
/// [`DatLayout`] says (halos included, x fastest, components interleaved).
pub struct HostBuf {
    ptr: NonNull<u8>,
    bytes: usize,
    layout: DatLayout,
}

// SAFETY: the buffer is uniquely owned; the pointer is only shared with kernels through
// `Kernel::run`, whose contract rules out conflicting access.
unsafe impl Send for HostBuf {}

/// Buffers of at least this many bytes ask for transparent huge pages.
const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// Asks the kernel to back `bytes` at `ptr` with transparent huge pages where the system leaves
/// that to the program (`madvise` mode): a loop streams through a dataset's planes with fewer
/// TLB misses, and the hardware prefetchers, which stop at page boundaries, run on. Memory not
/// yet touched is then faulted in 2 MiB at a time. Only a hint: nothing changes where the system
/// declines it.
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (ptr as usize).div_ceil(PAGE) * PAGE;
        let end = (ptr as usize + bytes) / PAGE * PAGE;
        if end > start {
            // SAFETY: the range lies within the allocation just made; MADV_HUGEPAGE changes how
            // pages are backed, never their contents.
            let rc = unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE)
            };
            if rc != 0 {
                tracing::debug!(
                    "madvise(MADV_HUGEPAGE) on {bytes} bytes: {}",
                    std::io::Error::last_os_error()
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}

impl HostBuf {
    /// Allocates zeroed storage for `layout`.
    pub fn new(layout: &DatLayout) -> Option<HostBuf> {
        let bytes = layout.bytes().max(1);
        let l = Layout::from_size_align(bytes, ALIGN).ok()?;
        let ptr = if bytes >= HUGE_PAGE_MIN_BYTES {
            // Advised before the first touch (zeroing), so pages fault in huge.
            // SAFETY: `l` has a non-zero size.
            let ptr = NonNull::new(unsafe { alloc(l) })?;
            advise_huge_pages(ptr.as_ptr(), bytes);
            // SAFETY: `ptr` points to `bytes` writable bytes just allocated.
            unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, bytes) };
            ptr
        } else {
            // SAFETY: `l` has a non-zero size.
            NonNull::new(unsafe { alloc_zeroed(l) })?
        };
        Some(HostBuf {
            ptr,
            bytes,
            layout: *layout,
        })
    }

    /// Start of the storage.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The storage as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: `bytes` initialised bytes live at `ptr` while `self` does.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.bytes) }
    }

    /// The storage as mutable bytes.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.bytes) }
    }

    /// The layout the storage was allocated for.
    pub fn layout(&self) -> &DatLayout {
        &self.layout
    }
}

impl Drop for HostBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this size and alignment.
        unsafe {
            dealloc(
                self.ptr.as_ptr(),
                Layout::from_size_align_unchecked(self.bytes, ALIGN),
            )
        }
    }
}

/// A backend keeping datasets in host memory and running kernels through the shared host
/// executor ([`ops_core::exec::run_host`]); `R` decides where chunks run.
pub struct HostBackend<R: ChunkRunner> {
    name: &'static str,
    bufs: Vec<Option<HostBuf>>,
    runner: R,
    scratch: Box<[Partials; MAX_CHUNKS]>,
    inline_points: usize,
}

impl<R: ChunkRunner> HostBackend<R> {
    /// A host backend called `name` running chunks with `runner`.
    pub fn with_runner(name: &'static str, runner: R) -> Self {
        HostBackend {
            name,
            bufs: Vec::new(),
            runner,
            scratch: Box::new([[Scalar::I32(0); MAX_ARGS]; MAX_CHUNKS]),
            inline_points: INLINE_POINTS,
        }
    }

    /// Loops over fewer than `points` points run on the calling thread (default
    /// [`INLINE_POINTS`]; 0 sends every loop to the runner). Results do not depend on it.
    pub fn with_inline_points(mut self, points: usize) -> Self {
        self.inline_points = points;
        self
    }

    /// The chunk runner.
    pub fn runner(&self) -> &R {
        &self.runner
    }

    fn err(&self, message: String) -> OpsError {
        OpsError::Backend {
            backend: self.name.into(),
            message: message.into(),
        }
    }

    fn buf(&self, dat: DatId, layout: &DatLayout) -> Result<&HostBuf> {
        buf_of(&self.bufs, dat, layout).ok_or_else(|| self.no_storage(dat))
    }

    fn no_storage(&self, dat: DatId) -> OpsError {
        self.err(format!("no storage for dataset #{}", dat.index()))
    }
}

/// The storage of `dat` in `bufs` if it was allocated with `layout` (a free function, so a
/// caller can borrow the buffers and the other fields of the backend apart).
fn buf_of<'a>(bufs: &'a [Option<HostBuf>], dat: DatId, layout: &DatLayout) -> Option<&'a HostBuf> {
    bufs.get(dat.index())
        .and_then(Option::as_ref)
        .filter(|b| b.layout == *layout)
}

impl<R: ChunkRunner> Backend for HostBackend<R> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn threads(&self) -> usize {
        self.runner.threads()
    }

    fn threads_used(&self) -> usize {
        self.runner.threads_used()
    }

    fn alloc(&mut self, dat: DatId, layout: &DatLayout) -> Result<()> {
        // Refused before it is touched: with overcommit the allocation itself succeeds and the
        // kernel's OOM killer ends the process later, without a word.
        let bytes = layout.bytes() as u64;
        if let Some(free) = ops_core::units::memory_available().filter(|&f| bytes > f) {
            return Err(self.err(format!(
                "it needs {} and this machine has {} available",
                ops_core::units::human_bytes(bytes),
                ops_core::units::human_bytes(free)
            )));
        }
        let buf = HostBuf::new(layout).ok_or_else(|| {
            self.err(format!(
                "cannot allocate {} bytes for dataset #{}",
                layout.bytes(),
                dat.index()
            ))
        })?;
        let i = dat.index();
        if self.bufs.len() <= i {
            self.bufs.resize_with(i + 1, || None);
        }
        self.bufs[i] = Some(buf);
        Ok(())
    }

    fn free(&mut self, dat: DatId) {
        if let Some(slot) = self.bufs.get_mut(dat.index()) {
            *slot = None;
        }
    }

    fn upload(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        bytes: &[u8],
    ) -> Result<()> {
        self.buf(dat, layout)?;
        let es = layout.ty.size();
        let mut failed = false;
        let mut src = 0usize;
        let Some(Some(buf)) = self.bufs.get_mut(dat.index()) else {
            unreachable!("checked above")
        };
        let dst = buf.as_bytes_mut();
        layout.for_each_row(range, |start, len| {
            let (a, n) = (start * es, len * es);
            match (dst.get_mut(a..a + n), bytes.get(src..src + n)) {
                (Some(d), Some(s)) => d.copy_from_slice(s),
                _ => failed = true,
            }
            src += n;
        });
        if failed || src != bytes.len() {
            return Err(self.err(format!("upload to dataset #{}: bad box", dat.index())));
        }
        Ok(())
    }

    fn download(
        &mut self,
        dat: DatId,
        layout: &DatLayout,
        range: &IterRange,
        out: &mut [u8],
    ) -> Result<()> {
        let bad_box = || format!("download from dataset #{}: bad box", dat.index());
        let Some(buf) = buf_of(&self.bufs, dat, layout) else {
            return Err(self.no_storage(dat));
        };
        let src = buf.as_bytes();
        let es = layout.ty.size();
        let extent = |d: usize| (range.hi()[d] - range.lo()[d]).max(0) as usize;
        let (row_bytes, ny) = (extent(0) * layout.components * es, extent(1));
        let rows = ny * extent(2);
        if range.is_empty() || rows * row_bytes != out.len() {
            return if range.is_empty() && out.is_empty() {
                Ok(())
            } else {
                Err(self.err(bad_box()))
            };
        }
        // A checkpoint snapshot is memory-bound and one thread cannot saturate the memory
        // bus: large boxes are copied by every worker, each a band of rows.
        let bands = if out.len() >= PARALLEL_COPY_BYTES {
            self.runner.threads().clamp(1, MAX_CHUNKS).min(rows)
        } else {
            1
        };
        let per_band = rows.div_ceil(bands);
        let parts: Vec<Mutex<&mut [u8]>> = out
            .chunks_mut(per_band * row_bytes)
            .map(Mutex::new)
            .collect();
        let failed = AtomicBool::new(false);
        let copy_band = |band: usize, _: &mut Partials| {
            let mut dst = parts[band].lock().unwrap_or_else(|e| e.into_inner());
            for (j, row) in dst.chunks_exact_mut(row_bytes).enumerate() {
                let k = band * per_band + j;
                let y = range.lo()[1] + (k % ny) as i32;
                let z = range.lo()[2] + (k / ny) as i32;
                let a = layout.index([range.lo()[0], y, z], 0) as usize * es;
                match src.get(a..a + row_bytes) {
                    Some(s) => row.copy_from_slice(s),
                    None => failed.store(true, Ordering::Relaxed),
                }
            }
        };
        if bands == 1 {
            copy_band(0, &mut self.scratch[0]);
        } else {
            self.runner
                .run_chunks(&mut self.scratch[..parts.len()], &copy_band);
        }
        if failed.into_inner() {
            return Err(self.err(bad_box()));
        }
        Ok(())
    }

    fn run(
        &mut self,
        kernel: &dyn Kernel,
        plan: &LoopPlan<'_>,
        partials: &mut [Scalar],
    ) -> Result<()> {
        let bufs = &self.bufs;
        let ctx = plan.host_exec_ctx(self.name, |id| {
            bufs.get(id.index())
                .and_then(|b| b.as_ref())
                .map(|b| b.as_ptr())
        })?;
        // SAFETY: the runtime validated the plan against the datasets' layouts, which are the
        // layouts these buffers were allocated with; `&mut self` keeps the buffers alive and
        // unaliased for the duration of the call.
        unsafe {
            run_host(
                kernel,
                &ctx,
                plan,
                partials,
                &self.runner,
                &mut self.scratch,
                self.inline_points,
            )
        };
        Ok(())
    }
}
