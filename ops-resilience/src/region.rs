//! The checkpoint region: OPS's Algorithm 1 made exact with written-region tracking.
//!
//! A region opens before loop `K`. Each dataset that may need saving gets a *save* entry whose
//! target is the set of points that matter at `K` (its impure points); each dataset with
//! recomputable points gets a *recompute* entry (its pure points). Then, for every later loop,
//! before it runs, per entry:
//!
//! - **reads** (a loop's read footprint, or a `fetch`): `needed ∪= footprint ∩ uncovered`, the
//!   points read while they still hold their values from `K`;
//! - **writes**: the part of `needed` the write overwrites is snapshotted now (real regions copy
//!   exactly those boxes out of the backend), then `needed −= written`, `uncovered −= written`.
//!
//! A save entry is *decided* when `uncovered` is empty: every target point was overwritten,
//! and those read first were snapshotted before that. The region closes when every save entry
//! is decided or after a bound on the number of loops; then the still-uncovered points of
//! undecided entries (they still hold their values from `K`) are copied too. What a save entry
//! saved is therefore exactly `target ∩ (read before overwritten ∪ not overwritten in the
//! region)`: a dataset overwritten over its whole extent before any read is dropped, one whose
//! halo strip alone is read first saves only that strip.
//!
//! A recompute entry never copies anything: at close, `snapped ∪ uncovered` are the pure points
//! still needed, which the restart rebuilds by re-executing loops (see
//! [`backward_slice`](crate::track::backward_slice)).
//!
//! A *dry* region (the location statistics) runs the same steps without copying and only
//! counts the bytes it would save.

use crate::boxes::{BoxList, Bx};
use crate::store::SavedRegion;
use crate::track::{Footprint, MAX_BOXES};

/// What an entry is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// Points that must be saved unless overwritten first.
    Save,
    /// Points a restart recomputes; the region finds which of them are still needed.
    Recompute,
}

/// One dataset's state in a region.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Dataset index.
    pub dat: u32,
    /// Save or recompute.
    pub kind: EntryKind,
    /// The points that mattered when the region opened.
    pub target: BoxList,
    /// Target points not overwritten since the region opened.
    pub uncovered: BoxList,
    /// Uncovered target points read since the region opened (not yet overwritten).
    pub needed: BoxList,
    /// Target points read first and then overwritten (snapshotted before the write).
    pub snapped: BoxList,
    /// The copies of `snapped` (real save entries only), then of the rest at close.
    pub saved: Vec<SavedRegion>,
    /// Bytes per point.
    pub point_bytes: u64,
    /// True once every target point was overwritten.
    pub decided: bool,
}

impl Entry {
    /// Points this entry saves (so far, or finally after close): snapshotted plus, unless
    /// decided, still uncovered.
    pub fn save_points(&self) -> u64 {
        self.snapped.points() + self.uncovered.points()
    }
}

const NONE: u32 = u32::MAX;

/// A checkpoint region, real or dry.
#[derive(Clone, Debug)]
pub struct Region {
    /// Loops after which the region closes even with undecided entries.
    pub bound: u64,
    /// Loops seen so far.
    pub loops: u64,
    /// Entries.
    pub entries: Vec<Entry>,
    by_dat: Vec<[u32; 2]>,
    undecided: usize,
    real: bool,
    /// Byte sizes of the boxes save entries copied (or, dry, would have copied), in order.
    pub sizes: Vec<usize>,
}

/// Copies one box of one dataset out of the backend (real regions only): the box saved (in a
/// distributed run, the part of it this process owns; `None` when it owns none of it) with
/// its elements.
pub type SnapFn<'a> = dyn FnMut(u32, &Bx) -> Result<Option<SavedRegion>, String> + 'a;

impl Region {
    /// A region closing after at most `bound` loops. `real` regions copy data; dry ones only
    /// count.
    pub fn new(bound: u64, real: bool) -> Region {
        Region {
            bound: bound.max(1),
            loops: 0,
            entries: Vec::new(),
            by_dat: Vec::new(),
            undecided: 0,
            real,
            sizes: Vec::new(),
        }
    }

    /// Adds an entry for dataset `dat` (at most one of each kind per dataset). An empty target
    /// adds nothing.
    pub fn add(&mut self, dat: u32, kind: EntryKind, target: BoxList, point_bytes: u64) {
        if target.is_empty() {
            return;
        }
        let d = dat as usize;
        if self.by_dat.len() <= d {
            self.by_dat.resize(d + 1, [NONE; 2]);
        }
        let slot = kind as usize;
        debug_assert_eq!(self.by_dat[d][slot], NONE, "one entry per kind");
        self.by_dat[d][slot] = self.entries.len() as u32;
        if kind == EntryKind::Save {
            self.undecided += 1;
        }
        self.entries.push(Entry {
            dat,
            kind,
            uncovered: target.clone(),
            target,
            needed: BoxList::new(),
            snapped: BoxList::new(),
            saved: Vec::new(),
            point_bytes,
            decided: false,
        });
    }

    fn slots(&self, dat: u32) -> [u32; 2] {
        self.by_dat.get(dat as usize).copied().unwrap_or([NONE; 2])
    }

    /// A read of `b` of dataset `dat` (by a loop or a fetch).
    pub fn read(&mut self, dat: u32, b: &Bx) {
        for e in self.slots(dat) {
            if e == NONE {
                continue;
            }
            let e = &mut self.entries[e as usize];
            if e.decided || !e.uncovered.overlaps(b) {
                continue;
            }
            e.uncovered.add_intersection_to(b, &mut e.needed);
            e.needed.coarsen_over(MAX_BOXES);
        }
    }

    /// A write of `b` of dataset `dat` (by a loop or `set_data`), before it happens: snapshots
    /// the needed points it overwrites (real save entries), then marks them overwritten.
    pub fn write(&mut self, dat: u32, b: &Bx, snap: &mut SnapFn<'_>) -> Result<(), String> {
        for e in self.slots(dat) {
            if e == NONE {
                continue;
            }
            let e = &mut self.entries[e as usize];
            if e.decided || !e.uncovered.overlaps(b) {
                continue;
            }
            if e.needed.overlaps(b) {
                let hit = e.needed.intersect_box(b);
                // Needed points are uncovered by construction; clip anyway, so a coarsened
                // `needed` never copies a point that was already overwritten.
                let hit = hit.intersect(&e.uncovered);
                for x in hit.boxes() {
                    if e.kind == EntryKind::Save {
                        self.sizes.push((x.points() * e.point_bytes) as usize);
                        if self.real {
                            e.saved.extend(snap(dat, x)?);
                        }
                    }
                    e.snapped.add(*x);
                }
                e.needed.remove(b);
                e.needed.coarsen_over(MAX_BOXES);
            }
            e.uncovered.remove(b);
            // `uncovered` must stay exact (its points are copied at close as values from the
            // start of the region). Should it fragment, copy it now, while it still holds
            // those values, and stop refining the entry: it then saves a superset.
            if e.uncovered.len() > 4 * MAX_BOXES {
                let rest = std::mem::take(&mut e.uncovered);
                for x in rest.boxes() {
                    if e.kind == EntryKind::Save {
                        self.sizes.push((x.points() * e.point_bytes) as usize);
                        if self.real {
                            e.saved.extend(snap(dat, x)?);
                        }
                    }
                    e.snapped.add(*x);
                }
                e.needed.clear();
            }
            if e.uncovered.is_empty() {
                e.decided = true;
                if e.kind == EntryKind::Save {
                    self.undecided -= 1;
                }
            }
        }
        Ok(())
    }

    /// One loop, before it runs: its reads, then its writes.
    pub fn on_loop(&mut self, fp: &Footprint, snap: &mut SnapFn<'_>) -> Result<(), String> {
        self.loops += 1;
        for (d, b) in &fp.reads {
            self.read(*d, b);
        }
        for (d, b) in &fp.writes {
            self.write(*d, b, snap)?;
        }
        Ok(())
    }

    /// True when every save entry is decided (the region can close with nothing left to copy).
    pub fn all_decided(&self) -> bool {
        self.undecided == 0
    }

    /// True when the bound on loops is reached.
    pub fn expired(&self) -> bool {
        self.loops >= self.bound
    }

    /// Bytes the region saves (so far, or finally after [`Region::close`]): save entries only.
    pub fn save_bytes(&self) -> u64 {
        self.entries
            .iter()
            .filter(|e| e.kind == EntryKind::Save)
            .map(|e| e.save_points() * e.point_bytes)
            .sum()
    }

    /// Closes the region: copies the uncovered points of undecided save entries (real
    /// regions). Afterwards every save entry's `saved` holds its final, disjoint boxes, and
    /// every recompute entry's [`Entry::snapped`] ∪ [`Entry::uncovered`] is what must be
    /// recomputed.
    pub fn close(&mut self, snap: &mut SnapFn<'_>) -> Result<(), String> {
        for e in &mut self.entries {
            if e.kind != EntryKind::Save || e.decided {
                continue;
            }
            for x in e.uncovered.boxes() {
                self.sizes.push((x.points() * e.point_bytes) as usize);
                if self.real {
                    e.saved.extend(snap(e.dat, x)?);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b2(x0: i32, x1: i32, y0: i32, y1: i32) -> Bx {
        Bx::new([x0, y0, 0], [x1, y1, 1])
    }

    /// A 10x10 field with a halo of 2.
    fn field() -> Bx {
        b2(-2, 12, -2, 12)
    }

    fn interior() -> Bx {
        b2(0, 10, 0, 10)
    }

    fn fp(reads: &[(u32, Bx)], writes: &[(u32, Bx)]) -> Footprint {
        Footprint {
            reads: reads.to_vec(),
            writes: writes.to_vec(),
        }
    }

    /// Runs loops through a real region with a fake backend that returns the box's point count
    /// as the payload, and returns the saved boxes of dataset 0.
    fn run(loops: &[Footprint], bound: u64) -> (Region, Vec<Bx>) {
        let mut r = Region::new(bound, true);
        r.add(0, EntryKind::Save, BoxList::from_box(field()), 8);
        let mut snap = |_d: u32, b: &Bx| {
            Ok(Some(SavedRegion {
                lo: b.lo,
                hi: b.hi,
                bytes: vec![0u8; b.points() as usize * 8],
            }))
        };
        for l in loops {
            if r.all_decided() || r.expired() {
                break;
            }
            r.on_loop(l, &mut snap).unwrap();
        }
        r.close(&mut snap).unwrap();
        let saved = r.entries[0]
            .saved
            .iter()
            .map(|s| Bx::new(s.lo, s.hi))
            .collect();
        (r, saved)
    }

    #[test]
    fn overwritten_over_the_whole_extent_before_read_is_dropped() {
        let (r, saved) = run(&[fp(&[(1, interior())], &[(0, field())])], 64);
        assert!(r.all_decided());
        assert!(saved.is_empty());
        assert_eq!(r.save_bytes(), 0);
    }

    #[test]
    fn read_first_is_saved_whole() {
        let (r, saved) = run(
            &[
                fp(&[(0, field())], &[(1, interior())]),
                fp(&[], &[(0, field())]),
            ],
            64,
        );
        assert!(r.all_decided());
        assert_eq!(BoxList::from_boxes(saved), BoxList::from_box(field()));
        assert_eq!(r.save_bytes(), 14 * 14 * 8);
    }

    #[test]
    fn interior_overwritten_then_halo_strip_read_saves_only_the_strip() {
        // Loop 1 overwrites the interior, loop 2 reads the left halo strip (a halo exchange
        // reading it), loop 3 overwrites the whole field.
        let strip = b2(-2, 0, 0, 10);
        let (r, saved) = run(
            &[
                fp(&[], &[(0, interior())]),
                fp(&[(0, strip)], &[(1, strip)]),
                fp(&[], &[(0, field())]),
            ],
            64,
        );
        assert!(r.all_decided());
        assert_eq!(BoxList::from_boxes(saved), BoxList::from_box(strip));
    }

    #[test]
    fn undecided_at_the_bound_saves_what_is_not_overwritten() {
        // Only the interior is overwritten within the bound: the halo ring is saved at close,
        // the interior (overwritten first) is not.
        let (r, saved) = run(
            &[fp(&[], &[(0, interior())]), fp(&[], &[(1, interior())])],
            2,
        );
        assert!(!r.all_decided());
        let s = BoxList::from_boxes(saved);
        assert_eq!(s.points(), 14 * 14 - 100);
        assert!(!s.overlaps(&interior()));
    }

    #[test]
    fn read_write_of_part_snapshots_that_part() {
        // A ReadWrite of the interior reads and writes it: the interior is needed; the halo is
        // never touched and is saved at the bound.
        let (_, saved) = run(&[fp(&[(0, interior())], &[(0, interior())])], 1);
        assert_eq!(BoxList::from_boxes(saved), BoxList::from_box(field()));
    }

    #[test]
    fn dry_region_counts_the_same_bytes() {
        let loops = [
            fp(&[], &[(0, interior())]),
            fp(&[(0, b2(-2, 0, 0, 10))], &[(1, interior())]),
            fp(&[], &[(0, field())]),
        ];
        let (real, _) = run(&loops, 64);
        let mut dry = Region::new(64, false);
        dry.add(0, EntryKind::Save, BoxList::from_box(field()), 8);
        let mut never = |_: u32, _: &Bx| -> Result<Option<SavedRegion>, String> {
            panic!("dry regions copy nothing")
        };
        for l in &loops {
            dry.on_loop(l, &mut never).unwrap();
        }
        dry.close(&mut never).unwrap();
        assert_eq!(dry.save_bytes(), real.save_bytes());
    }

    #[test]
    fn recompute_entries_report_what_is_still_needed() {
        let mut r = Region::new(3, true);
        r.add(0, EntryKind::Recompute, BoxList::from_box(field()), 8);
        let mut snap =
            |_: u32, _: &Bx| -> Result<Option<SavedRegion>, String> { panic!("never copied") };
        // The interior is read (needed), the halo overwritten first.
        r.on_loop(&fp(&[(0, interior())], &[(1, interior())]), &mut snap)
            .unwrap();
        r.on_loop(&fp(&[], &[(0, field())]), &mut snap).unwrap();
        assert!(
            r.all_decided(),
            "recompute entries never hold a region open"
        );
        r.close(&mut snap).unwrap();
        let e = &r.entries[0];
        let mut live = e.snapped.clone();
        live.add_list(&e.uncovered);
        assert_eq!(live, BoxList::from_box(interior()));
    }
}
