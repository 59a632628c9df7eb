//! The shared host executor: how a loop's range is cut into chunks and how reduction partials are
//! combined. Every host backend runs loops through [`run_host`], so reductions give the same
//! bits on every host backend and every thread count.
//!
//! The partition depends only on the range: the outermost dimension of the block (`dims - 1`) is
//! split into [`chunk_count`] contiguous, nearly equal slabs (at most [`MAX_CHUNKS`]). Each
//! chunk's kernel call folds into its own partials, starting from the identities; the chunk
//! partials are then combined in chunk order. Only *where* chunks run differs between backends
//! (a [`ChunkRunner`]: in order on the calling thread, or on a thread pool).

use crate::backend::{ArgPlan, LoopPlan};
use crate::kernel::{ExecCtx, Kernel, Scalar, MAX_ARGS};

/// Most chunks a range is cut into.
pub const MAX_CHUNKS: usize = 64;

/// Loops with fewer points than this run all their chunks on the calling thread (the same
/// partition, so results do not change): spreading them over threads costs more than it saves.
pub const INLINE_POINTS: usize = 8192;

/// Per-chunk reduction partials, one slot per argument.
pub type Partials = [Scalar; MAX_ARGS];

/// Number of chunks for a range over a `dims`-dimensional block: `min(outer length, MAX_CHUNKS)`
/// (0 for an empty outer dimension).
pub fn chunk_count(dims: usize, lo: [i32; 3], hi: [i32; 3]) -> usize {
    let d = dims.clamp(1, 3) - 1;
    let len = (hi[d] as i64 - lo[d] as i64).max(0) as usize;
    len.min(MAX_CHUNKS)
}

/// The box of chunk `i` of `n` ([`chunk_count`]): the range with its outermost dimension cut to
/// the `i`-th of `n` contiguous, nearly equal slabs.
pub fn chunk_bounds(
    dims: usize,
    lo: [i32; 3],
    hi: [i32; 3],
    n: usize,
    i: usize,
) -> ([i32; 3], [i32; 3]) {
    let d = dims.clamp(1, 3) - 1;
    let len = (hi[d] as i64 - lo[d] as i64).max(0);
    let (n, i) = (n.max(1) as i64, i as i64);
    let (mut clo, mut chi) = (lo, hi);
    clo[d] = (lo[d] as i64 + len * i / n) as i32;
    chi[d] = (lo[d] as i64 + len * (i + 1) / n) as i32;
    (clo, chi)
}

/// Where chunks run: the only thing host backends do differently.
pub trait ChunkRunner: Send + Sync {
    /// Worker threads used.
    fn threads(&self) -> usize;

    /// Calls `f(i, &mut bufs[i])` once for every `i in 0..bufs.len()`, in any order or
    /// concurrently, and returns when all calls have returned.
    fn run_chunks(&self, bufs: &mut [Partials], f: &(dyn Fn(usize, &mut Partials) + Sync));
}

/// Runs chunks in order on the calling thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl ChunkRunner for Sequential {
    fn threads(&self) -> usize {
        1
    }

    fn run_chunks(&self, bufs: &mut [Partials], f: &(dyn Fn(usize, &mut Partials) + Sync)) {
        for (i, b) in bufs.iter_mut().enumerate() {
            f(i, b);
        }
    }
}

/// Runs `kernel` as `plan` describes with the context `ctx`, cutting the range with
/// [`chunk_count`]/[`chunk_bounds`] and combining reduction partials in chunk order into
/// `partials` (whose reduction slots hold the identities on entry).
///
/// `bufs` is scratch space for per-chunk partials, kept by the backend so no loop allocates.
///
/// # Safety
/// `ctx` must satisfy [`Kernel::run`]'s contract for the whole of `plan.range`: storage for every
/// dataset argument covering [`DatArgPlan::touched`](crate::backend::DatArgPlan::touched),
/// laid out as the plan says, and no concurrent access to it outside this call.
pub unsafe fn run_host(
    kernel: &dyn Kernel,
    ctx: &ExecCtx,
    plan: &LoopPlan<'_>,
    partials: &mut [Scalar],
    runner: &dyn ChunkRunner,
    bufs: &mut [Partials; MAX_CHUNKS],
) {
    let (lo, hi, dims, nargs) = (plan.range.lo, plan.range.hi, plan.dims, plan.nargs);
    let n = chunk_count(dims, lo, hi);
    if n == 0 || plan.range.is_empty() {
        return;
    }
    let inline = plan.range.points() < INLINE_POINTS || runner.threads() <= 1;

    if !plan.has_reductions {
        if inline {
            // One call over the whole range: no reduction, so the partition does not matter.
            let mut scratch = [Scalar::I32(0); MAX_ARGS];
            // SAFETY: forwarded from the caller.
            unsafe { kernel.run(ctx, lo, hi, &mut scratch[..nargs]) };
        } else {
            runner.run_chunks(&mut bufs[..n], &|i, p| {
                let (clo, chi) = chunk_bounds(dims, lo, hi, n, i);
                // SAFETY: forwarded from the caller; chunks are disjoint slabs and written
                // arguments touch only their centre point, so concurrent chunks never write
                // the same element nor read one another's written elements.
                unsafe { kernel.run(ctx, clo, chi, &mut p[..nargs]) };
            });
        }
        return;
    }

    let init = &partials[..nargs];
    for b in bufs[..n].iter_mut() {
        b[..nargs].copy_from_slice(init);
    }
    let body = |i: usize, p: &mut Partials| {
        let (clo, chi) = chunk_bounds(dims, lo, hi, n, i);
        // SAFETY: as above.
        unsafe { kernel.run(ctx, clo, chi, &mut p[..nargs]) };
    };
    if inline {
        Sequential.run_chunks(&mut bufs[..n], &body);
    } else {
        runner.run_chunks(&mut bufs[..n], &body);
    }
    for (k, a) in plan.args().iter().enumerate() {
        if let ArgPlan::Reduce { op, .. } = a {
            let mut acc = partials[k];
            for b in bufs[..n].iter() {
                acc = acc.combine(*op, b[k]);
            }
            partials[k] = acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_range_exactly() {
        for len in 0..200i32 {
            let (lo, hi) = ([0, 0, 0], [3, -5 + len, 1]);
            let lo = [lo[0], -5, lo[2]];
            let n = chunk_count(2, lo, hi);
            assert_eq!(n, (len as usize).min(MAX_CHUNKS));
            let mut next = -5;
            for i in 0..n {
                let (a, b) = chunk_bounds(2, lo, hi, n, i);
                assert_eq!(a[1], next);
                assert!(b[1] > a[1]);
                assert_eq!((a[0], b[0]), (0, 3));
                next = b[1];
            }
            if n > 0 {
                assert_eq!(next, hi[1]);
            }
        }
    }
}
