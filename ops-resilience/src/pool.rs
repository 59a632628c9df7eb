//! Snapshot buffers faulted in ahead of time.
//!
//! Copying a checkpoint's boxes out of the backend is the computation's stall in the thread and
//! memory modes. Into freshly allocated memory, most of that time goes to page faults and
//! zero-filling, not to copying. Consecutive checkpoints at one location save boxes of the
//! same sizes, so after each commit a background thread prepares buffers of those sizes (and
//! touches every page); the next checkpoint's snapshots copy into them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Buffers by size, refilled in the background.
#[derive(Default)]
pub struct BufPool {
    ready: Arc<Mutex<HashMap<usize, Vec<Vec<u8>>>>>,
    filling: Option<JoinHandle<()>>,
}

/// Writes every page of `v` once, so the kernel maps them now rather than during a copy.
fn prefault(v: &mut [u8]) {
    const PAGE: usize = 4096;
    let p = v.as_mut_ptr();
    for i in (0..v.len()).step_by(PAGE) {
        // SAFETY: `i < v.len()`; a volatile write keeps the (zero) store from being elided.
        unsafe { std::ptr::write_volatile(p.add(i), 0) };
    }
}

impl BufPool {
    /// A zero-filled buffer of `n` bytes: a prepared one if there is one of that size.
    pub fn take(&self, n: usize) -> Vec<u8> {
        if let Ok(mut m) = self.ready.try_lock() {
            if let Some(v) = m.get_mut(&n).and_then(Vec::pop) {
                return v;
            }
        }
        vec![0u8; n]
    }

    /// Replaces the prepared buffers by fresh ones of `sizes`, made in a background thread.
    pub fn refill(&mut self, sizes: Vec<usize>) {
        if let Some(h) = self.filling.take() {
            let _ = h.join();
        }
        let ready = self.ready.clone();
        let spawned = std::thread::Builder::new()
            .name("ops-resilience-buffers".into())
            .spawn(move || {
                let mut fresh: HashMap<usize, Vec<Vec<u8>>> = HashMap::new();
                for n in sizes {
                    let mut v = vec![0u8; n];
                    prefault(&mut v);
                    fresh.entry(n).or_default().push(v);
                }
                if let Ok(mut m) = ready.lock() {
                    *m = fresh;
                }
            });
        self.filling = spawned.ok();
    }
}

impl Drop for BufPool {
    fn drop(&mut self) {
        if let Some(h) = self.filling.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepared_buffers_are_zero_and_of_the_asked_size() {
        let mut p = BufPool::default();
        p.refill(vec![10, 10, 8192]);
        if let Some(h) = p.filling.take() {
            h.join().unwrap();
        }
        for n in [10, 10, 8192, 10, 7] {
            let v = p.take(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|b| *b == 0));
        }
    }
}
