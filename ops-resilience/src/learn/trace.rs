//! The recorded trace: what the learner keeps of the loops while it learns or reviews.
//!
//! One slot per loop: its location (what [`structure`](super::structure) analyses) and its
//! footprint, by id into a table of the distinct footprints seen (a location keeps one
//! footprint while its calls keep their shape; a double buffer swapped by handles gives it
//! two). Fetches and sets between loops are kept as events after the loop they follow, in the
//! order they happened: a checkpoint region sees them as reads and writes. This is everything
//! the liveness sweep ([`liveness`](super::liveness)) needs to compute, for every loop boundary
//! at once, what a checkpoint region opening there would save.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::boxes::Bx;
use crate::track::Footprint;

/// A fetch (read) or set (write) of a box of a dataset between two loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// The slot of the loop it follows.
    pub after: u32,
    /// Dataset index.
    pub dat: u32,
    /// The box.
    pub bx: Bx,
    /// A set (write); otherwise a fetch (read).
    pub write: bool,
}

/// The distinct footprints of a recording, by id.
#[derive(Clone, Debug, Default)]
pub struct Footprints {
    all: Vec<Arc<Footprint>>,
    ids: HashMap<Arc<Footprint>, u32, crate::track::FastState>,
    /// By location: the footprint (by address) last recorded for it and its id, so that a
    /// location calling with the footprint it had needs no lookup. Safe: the table holds every
    /// footprint it gave an id, so an address in here is never reused while it is kept.
    last: Vec<(usize, u32)>,
}

impl Footprints {
    /// The id of `fp`, recorded at location `loc`.
    #[inline]
    pub(super) fn id(&mut self, loc: u32, fp: &Arc<Footprint>) -> u32 {
        let addr = Arc::as_ptr(fp) as usize;
        if let Some(&(a, id)) = self.last.get(loc as usize) {
            if a == addr {
                return id;
            }
        }
        self.id_slow(loc, fp, addr)
    }

    #[inline(never)]
    fn id_slow(&mut self, loc: u32, fp: &Arc<Footprint>, addr: usize) -> u32 {
        let id = match self.ids.get(fp) {
            Some(&id) => id,
            None => {
                let id = self.all.len() as u32;
                self.all.push(Arc::clone(fp));
                self.ids.insert(Arc::clone(fp), id);
                id
            }
        };
        // The address of the table's own copy (the caller's may be a different allocation of
        // the same footprint).
        let addr = if Arc::as_ptr(&self.all[id as usize]) as usize == addr {
            addr
        } else {
            // The caller's allocation is not kept: its address could be reused.
            usize::MAX
        };
        let l = loc as usize;
        if self.last.len() <= l {
            self.last.resize(l + 1, (usize::MAX, 0));
        }
        self.last[l] = (addr, id);
        id
    }

    /// Number of distinct footprints (ids run from 0 to this).
    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// The footprint with id `id`.
    pub fn get(&self, id: u32) -> &Footprint {
        &self.all[id as usize]
    }

    fn clear(&mut self) {
        self.all.clear();
        self.ids.clear();
        self.last.clear();
    }
}

impl Serialize for Footprints {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.all.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Footprints {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let all: Vec<Arc<Footprint>> = Vec::deserialize(d)?;
        let ids = all
            .iter()
            .enumerate()
            .map(|(i, f)| (Arc::clone(f), i as u32))
            .collect();
        Ok(Footprints {
            all,
            ids,
            last: Vec::new(),
        })
    }
}

/// Loops recorded from loop index `start` on.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Recording {
    /// Loop index of slot 0.
    pub start: u64,
    /// Location of each loop.
    pub locs: Vec<u32>,
    /// Footprint id of each loop.
    pub fps: Vec<u32>,
    /// A hash of each loop's global constants (see [`structure::Trace`](super::structure::Trace)).
    pub tags: Vec<u64>,
    /// Fetches and sets, in order.
    pub accesses: Vec<Access>,
    /// The slots after whose loop the program fetched values (sorted, each once).
    #[serde(default)]
    pub fetches: Vec<u32>,
    /// The slots after whose loop a value was handed to the program: a reduction's result or a
    /// fetch (sorted, each once).
    #[serde(default)]
    pub values: Vec<u32>,
    /// The footprints.
    pub table: Footprints,
}

impl Recording {
    /// Number of loops recorded.
    pub fn len(&self) -> usize {
        self.locs.len()
    }

    /// Loop index one past the last recorded loop.
    pub fn end(&self) -> u64 {
        self.start + self.locs.len() as u64
    }

    /// Records loop `index` at `loc` with footprint `fp` and global constants hashed to `tag`.
    #[inline]
    pub fn push(&mut self, loc: u32, index: u64, fp: &Arc<Footprint>, tag: u64) {
        if self.locs.is_empty() {
            self.start = index;
        }
        debug_assert_eq!(index, self.end(), "loops are recorded in order");
        let id = self.table.id(loc, fp);
        self.locs.push(loc);
        self.fps.push(id);
        self.tags.push(tag);
    }

    /// Records a fetch or set after the last recorded loop (none before the first).
    pub fn access(&mut self, dat: u32, bx: Bx, write: bool) {
        if let Some(after) = self.locs.len().checked_sub(1) {
            self.accesses.push(Access {
                after: after as u32,
                dat,
                bx,
                write,
            });
            if !write {
                if self.fetches.last() != Some(&(after as u32)) {
                    self.fetches.push(after as u32);
                }
                self.value();
            }
        }
    }

    /// Records that a value was handed to the program after the last recorded loop.
    pub fn value(&mut self) {
        if let Some(after) = self.locs.len().checked_sub(1) {
            if self.values.last() != Some(&(after as u32)) {
                self.values.push(after as u32);
            }
        }
    }

    /// Drops the oldest `n` loops (and what followed them).
    pub fn drop_oldest(&mut self, n: usize) {
        let n = n.min(self.locs.len());
        self.locs.drain(..n);
        self.fps.drain(..n);
        self.tags.drain(..n);
        self.start += n as u64;
        self.accesses.retain(|a| a.after as usize >= n);
        for a in &mut self.accesses {
            a.after -= n as u32;
        }
        for list in [&mut self.fetches, &mut self.values] {
            list.retain(|&f| f as usize >= n);
            for f in list.iter_mut() {
                *f -= n as u32;
            }
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.locs.clear();
        self.fps.clear();
        self.tags.clear();
        self.accesses.clear();
        self.fetches.clear();
        self.values.clear();
        self.table.clear();
    }

    /// The footprint of slot `s`.
    pub fn footprint(&self, s: usize) -> &Footprint {
        self.table.get(self.fps[s])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(d: u32, n: i32) -> Arc<Footprint> {
        Arc::new(Footprint {
            reads: vec![(d, Bx::new([0, 0, 0], [n, 1, 1]))],
            writes: vec![],
        })
    }

    #[test]
    fn footprints_are_kept_once_and_told_apart_by_content() {
        let mut r = Recording::default();
        let (a, b) = (fp(0, 4), fp(1, 4));
        let a2 = Arc::new((*a).clone());
        for i in 0..6u64 {
            let f = match i % 3 {
                0 => &a,
                1 => &b,
                _ => &a2,
            };
            r.push(0, i, f, 0);
        }
        assert_eq!(r.fps, vec![0, 1, 0, 0, 1, 0]);
        assert_eq!(r.table.all.len(), 2);
        r.access(1, Bx::new([0, 0, 0], [1, 1, 1]), false);
        r.drop_oldest(2);
        assert_eq!((r.start, r.len()), (2, 4));
        assert_eq!(r.accesses[0].after, 3);
        let json = serde_json::to_string(&r).unwrap();
        let back: Recording = serde_json::from_str(&json).unwrap();
        assert_eq!(back.fps, r.fps);
        assert_eq!(back.footprint(2), &*b);
    }
}
