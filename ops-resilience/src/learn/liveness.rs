//! What a checkpoint region opening at any loop boundary would save, for every boundary of a
//! recorded trace in one backward sweep.
//!
//! A region opening before loop `K` and closing before loop `E` saves, per dataset, the target
//! points (those a replay would not reproduce) minus the points whose first access in loops
//! `K..E` (and the fetches and sets between them) is a write: what is read before it is
//! overwritten, or not overwritten at all, is saved ([`Region`](crate::region::Region)'s
//! Algorithm 1). Sweeping the trace backwards, each point carries the slot of the write that
//! first overwrites it after the current one, unless a read comes before that write: a write
//! labels the points it covers with its slot, a read clears their labels. At a boundary `K`,
//! the points labelled below `E` are dead; the rest of the target is saved. Every boundary's
//! figure comes from the one sweep, each with its own `E` (the region closes when its location
//! recurs, or after its bound).
//!
//! The sweep is exact: `tests::the_sweep_saves_what_a_dry_region_saves` checks it against
//! running the real region over the same loops, boundary by boundary.

use crate::boxes::{BoxList, Bx, Pieces};
use crate::region::{EntryKind, Region, SnapFn};
use crate::store::SavedRegion;

use super::trace::Recording;

/// Most labelled boxes per dataset; past it the smallest are forgotten (their points count as
/// live: a figure can only grow, never miss what a checkpoint saves).
const MAX_LABELLED: usize = 256;

/// What the sweep needs to know of one dataset.
#[derive(Clone, Debug, Default)]
pub struct DatInfo {
    /// A checkpoint may save it (live, not transient, read-only or left out of a list).
    pub saveable: bool,
    /// The points a checkpoint would consider saving.
    pub target: BoxList,
    /// Bytes per point.
    pub point_bytes: u64,
    /// The other half of a double buffer (`mark_aliases`): of two halves that would both save
    /// something, a checkpoint keeps the one written last.
    pub alias: Option<u32>,
    /// Its last loop write before the recording.
    pub last_write: Option<u64>,
}

/// A region to measure: opening before slot `open`, closing before slot `close`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The slot the region opens before.
    pub open: usize,
    /// The slot it closes before (at most the recording's length).
    pub close: usize,
}

/// Points labelled by the slot of the write that first overwrites them.
#[derive(Clone, Debug, Default)]
struct Labelled {
    boxes: Vec<(Bx, u32)>,
}

impl Labelled {
    /// Forgets the labels of `b`'s points.
    fn clear(&mut self, b: &Bx) {
        if !self.boxes.iter().any(|(x, _)| x.overlaps(b)) {
            return;
        }
        let mut pieces = Pieces::new();
        let mut i = 0;
        while i < self.boxes.len() {
            let (x, l) = self.boxes[i];
            if !x.overlaps(b) {
                i += 1;
                continue;
            }
            self.boxes.swap_remove(i);
            pieces.clear();
            x.subtract(b, &mut pieces);
            self.boxes.extend(pieces.iter().map(|p| (*p, l)));
        }
    }

    /// Labels `b`'s points with `slot`.
    fn label(&mut self, b: &Bx, slot: u32) {
        self.clear(b);
        self.boxes.push((*b, slot));
        if self.boxes.len() > MAX_LABELLED {
            self.boxes
                .sort_by_key(|(x, _)| std::cmp::Reverse(x.points()));
            self.boxes.truncate(MAX_LABELLED);
        }
    }
}

/// The target points of each dataset in the steady state: what the tracker holds impure now,
/// plus whatever loops of recurring locations (`recurs`) write in the recording from slot
/// `from` on (the passes measured; each such write is impure from its location's second
/// occurrence on, whatever the first did; start-up loops before `from` are not counted, even
/// if they ran twice).
pub fn steady_targets(
    rec: &Recording,
    from: usize,
    dats: &mut [DatInfo],
    recurs: impl Fn(u32) -> bool,
) {
    // Footprint ids are dense: one flag each.
    let mut seen = vec![false; rec.table.len()];
    for s in from..rec.len() {
        let loc = rec.locs[s];
        if std::mem::replace(&mut seen[rec.fps[s] as usize], true) || !recurs(loc) {
            continue;
        }
        for (d, w) in &rec.footprint(s).writes {
            if let Some(info) = dats.get_mut(*d as usize) {
                if info.saveable {
                    info.target.add(*w);
                    info.target.coarsen_over(crate::track::MAX_BOXES);
                }
            }
        }
    }
}

/// The bytes a region over each window of `rec` would save (in the order of `windows`).
pub fn sweep(rec: &Recording, dats: &[DatInfo], windows: &[Window]) -> Vec<u64> {
    let mut out = vec![0u64; windows.len()];
    if windows.is_empty() {
        return out;
    }
    // Boundaries by the slot they open at, visited from the last.
    let mut order: Vec<usize> = (0..windows.len()).collect();
    order.sort_by_key(|&w| std::cmp::Reverse(windows[w].open));
    let last = windows.iter().map(|w| w.close).max().unwrap_or(0);
    let first = windows.iter().map(|w| w.open).min().unwrap_or(0);
    let mut labels: Vec<Labelled> = vec![Labelled::default(); dats.len()];
    // Accesses after each slot, walked backwards alongside.
    let mut acc = rec.accesses.len();
    while acc > 0 && rec.accesses[acc - 1].after as usize >= last {
        acc -= 1;
    }
    let mut next = 0;
    let mut per = Vec::with_capacity(dats.len());
    for s in (first..last).rev() {
        while acc > 0 && rec.accesses[acc - 1].after as usize == s {
            acc -= 1;
            let a = &rec.accesses[acc];
            if let Some(l) = labels.get_mut(a.dat as usize) {
                if a.write {
                    l.label(&a.bx, s as u32);
                } else {
                    l.clear(&a.bx);
                }
            }
        }
        let fp = rec.footprint(s);
        for (d, w) in &fp.writes {
            if let Some(l) = labels.get_mut(*d as usize) {
                l.label(w, s as u32);
            }
        }
        for (d, r) in &fp.reads {
            if let Some(l) = labels.get_mut(*d as usize) {
                l.clear(r);
            }
        }
        while next < order.len() && windows[order[next]].open == s {
            let w = order[next];
            out[w] = saved(dats, &labels, windows[w].close, &mut per)
                .unwrap_or_else(|| region_bytes(rec, dats, windows[w]));
            next += 1;
        }
    }
    out
}

/// The bytes a region closing before slot `close` saves, given the labels at its opening (`per`
/// is room for the figure of each dataset);
/// `None` when both halves of a double buffer would save something (which half a checkpoint
/// keeps depends on when its region closes: [`region_bytes`] tells).
fn saved(dats: &[DatInfo], labels: &[Labelled], close: usize, per: &mut Vec<u64>) -> Option<u64> {
    per.clear();
    per.extend(dats.iter().zip(labels).map(|(info, l)| {
        if !info.saveable || info.target.is_empty() {
            return 0;
        }
        // Labelled boxes are disjoint, and so are the target's: the dead points are the
        // sum of their overlaps, no set to build.
        let dead: u64 = l
            .boxes
            .iter()
            .filter(|(_, slot)| (*slot as usize) < close)
            .flat_map(|(x, _)| info.target.boxes().iter().filter_map(|t| t.intersect(x)))
            .map(|b| b.points())
            .sum();
        (info.target.points() - dead) * info.point_bytes
    }));
    let both = dats.iter().enumerate().any(|(a, info)| {
        info.alias
            .is_some_and(|b| (b as usize) < per.len() && per[a] > 0 && per[b as usize] > 0)
    });
    (!both).then(|| per.iter().sum())
}

/// The bytes the real region over window `w` saves, double buffers included: of two halves
/// that would both save something, the checkpoint keeps the one written last when the region
/// closes.
pub fn region_bytes(rec: &Recording, dats: &[DatInfo], w: Window) -> u64 {
    let r = dry_region(rec, dats, w);
    let mut last_write: Vec<Option<u64>> = dats.iter().map(|d| d.last_write).collect();
    for s in w.open..(w.open + r.loops as usize) {
        for (d, _) in &rec.footprint(s).writes {
            // A write in the recording is later than any before it.
            last_write[*d as usize] = Some(s as u64 + u64::MAX / 2);
        }
    }
    let per = |d: usize| {
        r.entries
            .iter()
            .find(|e| e.dat as usize == d)
            .map_or(0, |e| e.save_points() * e.point_bytes)
    };
    let mut total = r.save_bytes();
    for (a, info) in dats.iter().enumerate() {
        if let Some(b) = info.alias.map(|b| b as usize) {
            if b > a && b < dats.len() && per(a) > 0 && per(b) > 0 {
                total -= if last_write[a] >= last_write[b] {
                    per(b)
                } else {
                    per(a)
                };
            }
        }
    }
    total
}

/// The real region's algorithm over window `w`, dry (copying nothing): what the sweep's figure
/// is checked against, and where the sizes of the boxes a checkpoint copies come from (to
/// prepare buffers for the first checkpoint's copies).
pub fn dry_region(rec: &Recording, dats: &[DatInfo], w: Window) -> Region {
    let mut r = Region::new((w.close - w.open) as u64, false);
    for (i, d) in dats.iter().enumerate() {
        if d.saveable {
            r.add(i as u32, EntryKind::Save, d.target.clone(), d.point_bytes);
        }
    }
    let mut never = |_: u32, _: &Bx| -> Result<Option<SavedRegion>, String> { unreachable!("dry") };
    let snap = &mut never as &mut SnapFn<'_>;
    let mut accesses = rec.accesses.iter().peekable();
    for s in w.open..w.close {
        if r.all_decided() || r.expired() {
            break;
        }
        let _ = r.on_loop(rec.footprint(s), snap);
        while let Some(a) = accesses.next_if(|a| (a.after as usize) <= s) {
            if (a.after as usize) < s {
                continue;
            }
            if a.write {
                let _ = r.write(a.dat, &a.bx, snap);
            } else {
                r.read(a.dat, &a.bx);
            }
        }
    }
    let _ = r.close(snap);
    r
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::track::Footprint;

    fn b(x0: i32, x1: i32) -> Bx {
        Bx::new([x0, 0, 0], [x1, 1, 1])
    }

    /// The same window measured by the real region algorithm, dry.
    fn by_region(rec: &Recording, dats: &[DatInfo], w: Window) -> u64 {
        region_bytes(rec, dats, w)
    }

    /// Random loops over four datasets of 1-D points `-2..22` (whole ranges, halo strips,
    /// pieces), fetches and sets, random targets and a double buffer: every window's figure is
    /// the dry region's.
    #[test]
    fn the_sweep_saves_what_a_dry_region_saves() {
        let mut next = crate::track::tests::random(0x51ed_270b_2754_9e83);
        let pieces = [
            b(-2, 22),
            b(0, 20),
            b(-2, 0),
            b(20, 22),
            b(0, 10),
            b(10, 20),
            b(5, 15),
            b(3, 4),
        ];
        let pick = |next: &mut dyn FnMut(u64) -> u64| pieces[next(pieces.len() as u64) as usize];
        let mut compared = 0;
        let mut nonzero = 0;
        for _ in 0..300 {
            let mut rec = Recording::default();
            let n = 10 + next(30) as usize;
            for i in 0..n {
                let mut fp = Footprint::default();
                for _ in 0..next(3) {
                    fp.reads.push((next(4) as u32, pick(&mut next)));
                }
                for _ in 0..1 + next(2) {
                    fp.writes.push((next(4) as u32, pick(&mut next)));
                }
                // Locations recur, so footprints do too.
                let loc = next(6) as u32;
                rec.push(loc, i as u64, &Arc::new(fp), 0);
                if next(6) == 0 {
                    rec.access(next(4) as u32, pick(&mut next), next(2) == 0);
                }
            }
            let mut dats: Vec<DatInfo> = (0..4)
                .map(|_| DatInfo {
                    saveable: true,
                    target: BoxList::from_boxes((0..next(3)).map(|_| pick(&mut next))),
                    point_bytes: 8,
                    alias: None,
                    last_write: (next(2) == 0).then_some(next(5)),
                })
                .collect();
            if next(2) == 0 {
                dats[2].alias = Some(3);
                dats[3].alias = Some(2);
            }
            let windows: Vec<Window> = (0..n)
                .map(|open| Window {
                    open,
                    close: (open + 1 + next(n as u64) as usize).min(n),
                })
                .collect();
            let got = sweep(&rec, &dats, &windows);
            for (w, g) in windows.iter().zip(&got) {
                assert_eq!(*g, by_region(&rec, &dats, *w), "{w:?} of {rec:?} {dats:?}");
                compared += 1;
                nonzero += usize::from(*g > 0);
            }
        }
        assert!(
            compared > 5000 && nonzero > compared / 3,
            "{nonzero} of {compared}"
        );
    }

    #[test]
    fn recurring_writes_join_the_target() {
        let mut rec = Recording::default();
        let w = |d: u32, x: Bx| {
            Arc::new(Footprint {
                reads: vec![],
                writes: vec![(d, x)],
            })
        };
        rec.push(0, 0, &w(0, b(0, 10)), 0);
        rec.push(1, 1, &w(1, b(0, 10)), 0);
        let mut dats = vec![
            DatInfo {
                saveable: true,
                point_bytes: 8,
                ..DatInfo::default()
            };
            2
        ];
        steady_targets(&rec, 0, &mut dats, |loc| loc == 1);
        assert!(dats[0].target.is_empty());
        assert_eq!(dats[1].target, BoxList::from_box(b(0, 10)));
    }
}
