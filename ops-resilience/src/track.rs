//! What each loop reads and writes, and what the tracker knows about each dataset.
//!
//! Per dataset ([`DatTrack`]) the tracker keeps box lists of the points written by loops
//! (`written`), the points whose values a replay would *not* reproduce (`impure`: these are the
//! only points a checkpoint may need to save), the loop-written points a replay *does*
//! reproduce (`pure`: recomputed at restore), and the points written inside resilient regions.
//!
//! The purity rule: points never written by a loop hold zeros or values the program set
//! (`set_data`), which a replay reproduces because it makes the same calls. A loop's write is
//! *pure* when the loop read only pure points and it is the first time its location (name and
//! call site) writes that dataset; its call is then recorded in the pure history, and a restart
//! re-executes the recorded calls needed to rebuild the pure points a checkpoint still needs
//! (mesh geometry computed at start-up). Every other loop write is impure: recurring work is
//! never recomputed, it is saved (or found to be overwritten first).

use ops_core::{ArgPlan, DatLayout, LoopPlan};
use serde::{Deserialize, Serialize};

use crate::boxes::{BoxList, Bx};

/// Most boxes kept per "may differ" list before it is coarsened to its bounding box.
pub(crate) const MAX_BOXES: usize = 48;

/// The dataset accesses of one loop: read footprints and written boxes, by dataset index.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Footprint {
    /// `(dataset index, box)` for every argument that may observe old values: the range grown
    /// by the stencil for `Read`, the centre box for `ReadWrite`, `Inc` and partial `Write`.
    pub reads: Vec<(u32, Bx)>,
    /// `(dataset index, box)` for every written argument: its centre box.
    pub writes: Vec<(u32, Bx)>,
}

impl Footprint {
    /// Fills `self` from a validated loop plan.
    pub fn fill(&mut self, plan: &LoopPlan<'_>) {
        self.reads.clear();
        self.writes.clear();
        if plan.range.is_empty() {
            return;
        }
        for a in plan.args() {
            if let ArgPlan::Dat(d) = a {
                let id = d.dat.index() as u32;
                if let Some(r) = d.observed(&plan.range) {
                    self.reads.push((id, Bx::from_range(&r)));
                }
                if let Some(w) = d.written(&plan.range) {
                    self.writes.push((id, Bx::from_range(&w)));
                }
            }
        }
    }
}

/// What the tracker knows about one dataset.
#[derive(Clone, Debug)]
pub struct DatTrack {
    /// `block/dat`.
    pub name: String,
    /// Storage layout.
    pub layout: DatLayout,
    /// False once freed.
    pub live: bool,
    /// Points ever written by a loop.
    pub written: BoxList,
    /// Points a replay would not reproduce (written by impure loop writes).
    pub impure: BoxList,
    /// Loop-written points a replay reproduces by re-executing recorded loops.
    pub pure: BoxList,
    /// Points written by loops inside resilient regions.
    pub closure: BoxList,
    /// Index of the last loop that wrote it.
    pub last_write: Option<u64>,
    /// Never saved (`mark_transient`).
    pub transient: bool,
    /// Never saved, never written again (`mark_read_only`).
    pub read_only: bool,
    /// The other half of a double buffer (`mark_aliases`).
    pub alias: Option<u32>,
    /// In the explicit dataset list (`checkpoint_datasets`); meaningful when a list is set.
    pub listed: bool,
}

impl DatTrack {
    /// A dataset the tracker has just learnt about: nothing written yet.
    pub fn new(name: String, layout: DatLayout, live: bool) -> DatTrack {
        DatTrack {
            name,
            layout,
            live,
            written: BoxList::new(),
            impure: BoxList::new(),
            pure: BoxList::new(),
            closure: BoxList::new(),
            last_write: None,
            transient: false,
            read_only: false,
            alias: None,
            listed: false,
        }
    }

    /// Bytes per point (element size × components).
    pub fn point_bytes(&self) -> u64 {
        (self.layout.ty.size() * self.layout.components) as u64
    }

    /// Bytes of the points of `l`.
    pub fn bytes_of(&self, l: &BoxList) -> u64 {
        l.points() * self.point_bytes()
    }

    /// Records a loop's write of `b`; false when the point sets already said so (it changed
    /// only `last_write`: the steady state of a time loop, each pass writing what the last did).
    pub fn write(&mut self, b: &Bx, pure: bool, in_closure: bool, index: u64) -> bool {
        self.last_write = Some(index);
        if !pure && !in_closure && self.holds_impure(b) {
            return false;
        }
        self.record_write(b, pure, in_closure);
        true
    }

    /// [`DatTrack::write`]'s changes to the point sets, made whether or not they change them.
    fn record_write(&mut self, b: &Bx, pure: bool, in_closure: bool) {
        self.written.add(*b);
        self.written.coarsen_over(MAX_BOXES);
        if pure {
            self.impure.remove(b);
            self.pure.add(*b);
        } else {
            self.pure.remove(b);
            self.impure.add(*b);
            self.impure.coarsen_over(MAX_BOXES);
        }
        self.bound_pure();
        if in_closure {
            self.closure.add(*b);
            self.closure.coarsen_over(MAX_BOXES);
        }
    }

    /// True when an impure write of `b` would change nothing: written and impure already
    /// hold it (in one box each, as `BoxList::add` asks), it is not pure, and no list is over
    /// the size that makes a write coarsen it.
    fn holds_impure(&self, b: &Bx) -> bool {
        let in_one = |l: &BoxList| l.boxes().iter().any(|x| x.contains(b));
        self.written.len() <= MAX_BOXES
            && self.impure.len() <= MAX_BOXES
            && self.pure.len() <= MAX_BOXES
            && in_one(&self.written)
            && in_one(&self.impure)
            && !self.pure.overlaps(b)
    }

    /// Records that the program set `b`: those values are reproduced by a replay.
    pub fn set(&mut self, b: &Bx) {
        self.impure.remove(b);
        self.pure.remove(b);
        self.bound_pure();
    }

    /// Keeps the pure list small the safe way: a fragmented pure list is moved to the impure
    /// one (saved rather than recomputed), never approximated.
    fn bound_pure(&mut self) {
        if self.pure.len() > MAX_BOXES {
            self.impure.add_list(&self.pure);
            self.pure.clear();
        }
        self.impure.coarsen_over(MAX_BOXES);
    }
}

/// One entry of the pure history: a loop whose writes were (at least partly) pure, or a
/// `set_data` (which a replay repeats, so it ends the dependence on earlier writers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HistEntry {
    /// A loop: its index and accesses.
    Loop {
        /// Loop index.
        index: u64,
        /// Its accesses (shared with the tracker's footprint of the location while it lasts:
        /// a history copied into every checkpoint copies no footprint).
        fp: std::sync::Arc<Footprint>,
    },
    /// A `set_data`/`set_range` of a box of a dataset.
    Set {
        /// Dataset index.
        dat: u32,
        /// The box set.
        bx: Bx,
    },
}

/// Most entries kept in the pure history; past it, no write is pure any more (everything
/// later is saved instead), and the history of the start-up phase kept for `end_of_init` is
/// dropped.
pub(crate) const MAX_HISTORY: usize = 100_000;
/// Most loops recorded for `end_of_init` before giving up on it.
pub(crate) const MAX_INIT_HISTORY: usize = 4096;

/// A fast hasher for small integer keys (locations, datasets): the tracker hashes a few
/// keys per loop, where SipHash's resistance to collisions chosen by an attacker buys nothing.
#[derive(Clone, Copy, Default)]
pub struct FastHash(u64);

impl std::hash::Hasher for FastHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ *b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// [`std::hash::BuildHasher`] of [`FastHash`].
pub type FastState = std::hash::BuildHasherDefault<FastHash>;

/// The loops a replay must execute so that every point of `live` (per dataset, at the time
/// the history ends) holds the value it had: walks the history backwards, keeping a loop when
/// it wrote a live point (then its reads become live and its writes stop being live), and
/// letting recorded `set`s end liveness. Returns the kept loop indices in ascending order.
pub fn backward_slice(history: &[HistEntry], mut live: Vec<BoxList>) -> Vec<u64> {
    let mut keep = Vec::new();
    for e in history.iter().rev() {
        if live.iter().all(BoxList::is_empty) {
            break;
        }
        match e {
            HistEntry::Set { dat, bx } => {
                if let Some(l) = live.get_mut(*dat as usize) {
                    l.remove(bx);
                }
            }
            HistEntry::Loop { index, fp } => {
                let hit = fp.writes.iter().any(|(d, w)| {
                    live.get(*d as usize)
                        .map(|l| l.overlaps(w))
                        .unwrap_or(false)
                });
                if !hit {
                    continue;
                }
                keep.push(*index);
                for (d, w) in &fp.writes {
                    if let Some(l) = live.get_mut(*d as usize) {
                        l.remove(w);
                    }
                }
                for (d, r) in &fp.reads {
                    let d = *d as usize;
                    if live.len() <= d {
                        live.resize(d + 1, BoxList::new());
                    }
                    live[d].add(*r);
                    live[d].coarsen_over(MAX_BOXES);
                }
            }
        }
    }
    keep.reverse();
    keep
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A deterministic random source for tests: `next(n)` draws from `0..n`.
    pub(crate) fn random(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    fn b(x0: i32, x1: i32) -> Bx {
        Bx::new([x0, 0, 0], [x1, 1, 1])
    }

    fn lp(index: u64, reads: &[(u32, Bx)], writes: &[(u32, Bx)]) -> HistEntry {
        HistEntry::Loop {
            index,
            fp: std::sync::Arc::new(Footprint {
                reads: reads.to_vec(),
                writes: writes.to_vec(),
            }),
        }
    }

    /// A write reported as changing nothing changes nothing: random writes (pure, impure, in
    /// closures), sets, start-up ends and lists loaded whole (as from a checkpoint), with
    /// boxes that overlap, recur and fragment the lists past the size that coarsens them.
    #[test]
    fn a_write_that_changes_nothing_is_one_written_in_full() {
        let mut next = random(0x2545_f491_4f6c_dd1d);
        let mut boxes = vec![b(0, 10), b(0, 4), b(3, 8), b(9, 10), b(0, 400)];
        boxes.extend((0..200).map(|x| b(2 * x, 2 * x + 1)));
        let n = boxes.len() as u64;
        let pick = |next: &mut dyn FnMut(u64) -> u64| match next(2) {
            0 => boxes[next(5) as usize],
            _ => boxes[next(n) as usize],
        };
        let layout = DatLayout {
            ty: ops_core::ElemType::F64,
            dims: 1,
            components: 1,
            size: [400, 1, 1],
            base: [0; 3],
            neg: [0; 3],
            pos: [0; 3],
        };
        let (mut unchanged, mut changed) = (0, 0);
        for _ in 0..100 {
            let mut t = DatTrack::new("g/u".into(), layout, true);
            for index in 0..800 {
                let bx = pick(&mut next);
                match next(100) {
                    0 => t.set(&bx),
                    1 => {
                        // The end of start-up: what was impure is recomputed.
                        let imp = std::mem::take(&mut t.impure);
                        t.pure.add_list(&imp);
                    }
                    2 => {
                        // Lists loaded whole, fragmented past the size that coarsens.
                        for l in [&mut t.written, &mut t.impure, &mut t.pure] {
                            let most = if next(2) == 0 { 10 } else { 150 };
                            let n = next(most);
                            *l = BoxList::from_boxes((0..n).map(|_| {
                                let x = 2 * next(200) as i32;
                                b(x, x + 1)
                            }));
                        }
                        // Often holding the box about to be written.
                        if next(2) == 0 {
                            t.written.add(bx);
                            t.impure.add(bx);
                            t.pure.remove(&bx);
                        }
                    }
                    _ => {}
                }
                let (pure, in_closure) = (next(8) == 0, next(20) == 0);
                let mut full = t.clone();
                full.record_write(&bx, pure, in_closure);
                if t.write(&bx, pure, in_closure, index) {
                    changed += 1;
                } else {
                    unchanged += 1;
                }
                assert_eq!(t.written, full.written);
                assert_eq!(t.impure, full.impure);
                assert_eq!(t.pure, full.pure);
                assert_eq!(t.closure, full.closure);
                assert_eq!(t.last_write, Some(index));
            }
        }
        assert!(
            unchanged > 10_000 && changed > 10_000,
            "{unchanged} unchanged, {changed} changed"
        );
    }

    #[test]
    fn slice_keeps_only_the_producers_of_live_points() {
        // 0: mesh <- idx ; 1: tmp <- idx ; 2: area <- mesh ; 3: junk <- tmp
        let h = vec![
            lp(0, &[], &[(0, b(0, 10))]),
            lp(1, &[], &[(1, b(0, 10))]),
            lp(2, &[(0, b(0, 10))], &[(2, b(0, 9))]),
            lp(3, &[(1, b(0, 10))], &[(3, b(0, 10))]),
        ];
        // Only `area` is live at the checkpoint.
        let live = vec![BoxList::new(), BoxList::new(), BoxList::from_box(b(0, 9))];
        assert_eq!(backward_slice(&h, live), vec![0, 2]);
    }

    #[test]
    fn a_set_ends_the_dependence() {
        let h = vec![
            lp(0, &[], &[(0, b(0, 10))]),
            HistEntry::Set {
                dat: 0,
                bx: b(0, 10),
            },
            lp(1, &[(0, b(0, 10))], &[(1, b(0, 10))]),
        ];
        let live = vec![BoxList::new(), BoxList::from_box(b(0, 10))];
        assert_eq!(backward_slice(&h, live), vec![1]);
    }

    #[test]
    fn halo_strip_writer_is_kept_with_the_interior_writer() {
        // 0 writes the interior of d, 1 its left halo strip; both are live.
        let h = vec![
            lp(0, &[], &[(0, b(0, 10))]),
            lp(1, &[(0, b(0, 2))], &[(0, b(-2, 0))]),
        ];
        let live = vec![BoxList::from_box(b(-2, 10))];
        assert_eq!(backward_slice(&h, live), vec![0, 1]);
        // Only the strip is live: the strip's writer reads the interior, so both stay.
        let live = vec![BoxList::from_box(b(-2, 0))];
        assert_eq!(backward_slice(&h, live), vec![0, 1]);
        // Only the far interior is live: the strip writer is not needed.
        let live = vec![BoxList::from_box(b(5, 10))];
        assert_eq!(backward_slice(&h, live), vec![0]);
    }
}
