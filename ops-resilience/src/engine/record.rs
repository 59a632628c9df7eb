//! [`Tracker`]: what the engine records of the program as it runs, whatever phase it is in:
//! every dataset's written, impure and pure points ([`DatTrack`]), the loop locations
//! ([`LocTable`]), the pure history a restart re-executes, the log of values handed to the
//! program and the log of loop calls ([`CallLog`](crate::calls::CallLog)).

use std::collections::HashSet;

use ops_core::{DatId, Ops};

use crate::boxes::Bx;
use crate::error::ResilienceError;
use crate::learn::{DatInfo, Targets};
use crate::location::LocTable;
use crate::meta::DatState;
use crate::region::{EntryKind, Region};
use crate::track::{DatTrack, FastState, Footprint, HistEntry, MAX_HISTORY, MAX_INIT_HISTORY};
use std::sync::Arc;

/// The program as the tracker knows it.
#[derive(Default)]
pub(crate) struct Tracker {
    /// Per dataset, in declaration order.
    pub dats: Vec<DatTrack>,
    /// The runtime's ids of `dats`.
    pub ids: Vec<DatId>,
    /// Every loop location.
    pub locs: LocTable,
    /// `(location, dataset)` pairs that have written: their next writes are impure.
    pub seen: HashSet<(u32, u32), FastState>,
    /// Whether loop writes can still be pure.
    pub pure_writes: bool,
    /// Loops (and sets) whose writes were pure: what a restart re-executes from.
    pub history: Vec<HistEntry>,
    /// Everything until `end_of_init`, while it may still be called.
    init_history: Option<Vec<HistEntry>>,
    /// Values handed to the program, in order.
    pub queries: crate::store::QueryLog,
    /// Every loop's call, in order (what a replay checks the restarted program against).
    pub calls: crate::calls::CallLog,
    /// An explicit dataset list restricts checkpoints (`checkpoint_datasets`).
    pub list_set: bool,
    /// The last loop that wrote recomputable (pure) data: until a pass has gone by without
    /// one, what a checkpoint would save is not yet what it will save from then on.
    pub last_pure_write: u64,
    /// Some dataset is read-only (a loop's writes must be checked against it).
    pub any_read_only: bool,
    /// Counts changes to the datasets' point sets and to what decides purity.
    epoch: u64,
    /// By location: the `epoch` at which its footprint's writes last changed nothing. While
    /// the epoch stays there, its next call with that footprint changes nothing either (the
    /// same writes on the same sets), so only the write indices move.
    unchanged_at: Vec<u64>,
}

/// No epoch: the location's writes must be recorded in full.
const NEVER: u64 = u64::MAX;

impl Tracker {
    /// A tracker that has seen nothing.
    pub fn new() -> Tracker {
        Tracker {
            pure_writes: true,
            init_history: Some(Vec::new()),
            ..Tracker::default()
        }
    }

    /// Learns about datasets declared since the last call.
    #[inline]
    pub fn sync(&mut self, ops: &Ops) {
        if self.dats.len() < ops.dat_count() {
            self.sync_new(ops);
        }
    }

    /// [`Tracker::sync`] when datasets were declared.
    #[inline(never)]
    fn sync_new(&mut self, ops: &Ops) {
        let n = ops.dat_count();
        while self.dats.len() < n {
            let i = self.dats.len();
            let id = ops.dat_id(i).expect("index below dat_count");
            let d = ops.dat_desc(id).expect("valid id");
            self.dats.push(DatTrack::new(
                format!("{}/{}", d.block_name, d.name),
                d.layout,
                d.live,
            ));
            self.ids.push(id);
        }
    }

    /// Refreshes which datasets are still allocated (before regions pick their targets).
    pub fn refresh_live(&mut self, ops: &Ops) {
        for (i, d) in self.dats.iter_mut().enumerate() {
            if d.live {
                d.live = ops.dat_desc(self.ids[i]).map(|x| x.live).unwrap_or(false);
            }
        }
    }

    /// Records a loop's writes (after the regions saw the loop). During start-up (until some
    /// location recurs with other loops in between) a location may write a dataset several
    /// times and stay recomputable (one start-up loop run back to back per initial state);
    /// afterwards only a location's first write is.
    /// `same_fp`: `fp` is the footprint the location's previous call recorded. True when the
    /// writes changed nothing but their indices (or there were none) and the location's next
    /// call of the same footprint would find them unchanged.
    #[inline]
    pub fn update(
        &mut self,
        loc: u32,
        index: u64,
        fp: &Arc<Footprint>,
        in_closure: bool,
        same_fp: bool,
    ) -> bool {
        if fp.writes.is_empty() {
            return true;
        }
        // The steady state of a time loop, here rather than in a call: the writes change
        // nothing but their indices.
        let unchanged = same_fp
            && self.unchanged_at.get(loc as usize) == Some(&self.epoch)
            && self.steady(in_closure);
        if unchanged {
            for (d, _) in &fp.writes {
                self.dats[*d as usize].last_write = Some(index);
            }
            return true;
        }
        self.update_changed(loc, index, fp, in_closure)
    }

    /// Counts changes to the datasets' point sets and to what decides purity.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Whether location `loc`'s next call with its previous footprint, outside a resilient
    /// region's body, would change nothing but its writes' indices (see [`Tracker::update`]).
    pub fn unchanged_now(&self, loc: u32) -> bool {
        self.unchanged_at.get(loc as usize) == Some(&self.epoch) && self.steady(false)
    }

    /// Past start-up and outside a resilient region's body: every (location, dataset) pair has
    /// written before, so no write is pure and a location's unchanged writes stay unchanged.
    #[inline]
    fn steady(&self, in_closure: bool) -> bool {
        self.locs.first_pass_recur.is_some() && !in_closure && self.init_history.is_none()
    }

    /// [`Tracker::update`] when the writes may change the point sets (true when, past
    /// start-up, they changed nothing but their indices).
    #[inline(never)]
    fn update_changed(
        &mut self,
        loc: u32,
        index: u64,
        fp: &Arc<Footprint>,
        in_closure: bool,
    ) -> bool {
        let start_up = self.locs.first_pass_recur.is_none();
        let l = loc as usize;
        if self.unchanged_at.len() <= l {
            self.unchanged_at.resize(l + 1, NEVER);
        }
        let steady = self.steady(in_closure);
        let mut changed = false;
        // Whether the loop read only recomputable points: asked only for a write that could be
        // pure (in a steady time loop none is, and the reads are not scanned).
        let mut reads_pure: Option<bool> = None;
        let mut any_pure = false;
        let mut any_first = false;
        for (d, w) in &fp.writes {
            // Once writes can no longer be pure (they never become so again), which pairs have
            // written no longer matters.
            let first = self.pure_writes && self.seen.insert((loc, *d));
            any_first |= first;
            let pure = self.pure_writes
                && (first || start_up)
                && *reads_pure.get_or_insert_with(|| {
                    fp.reads
                        .iter()
                        .all(|(d, b)| !self.dats[*d as usize].impure.overlaps(b))
                });
            changed |= self.dats[*d as usize].write(w, pure, in_closure, index);
            any_pure |= pure;
        }
        if changed || any_pure {
            self.touch();
        }
        let unchanged = steady && !changed && !any_pure;
        self.unchanged_at[l] = if unchanged { self.epoch } else { NEVER };
        if any_pure {
            self.last_pure_write = index;
            self.history.push(HistEntry::Loop {
                index,
                fp: Arc::clone(fp),
            });
            if self.history.len() >= MAX_HISTORY {
                self.pure_writes = false;
            }
        }
        if let Some(h) = self.init_history.as_mut() {
            h.push(HistEntry::Loop {
                index,
                fp: Arc::clone(fp),
            });
            if h.len() > MAX_INIT_HISTORY {
                self.init_history = None;
            }
        }
        // Steady: start-up's history is gone, so only the write indices moved.
        unchanged && !any_first
    }

    /// Marks the point sets (or what decides purity) changed: no location's earlier writes
    /// may be taken as unchanged any more.
    fn touch(&mut self) {
        self.epoch += 1;
    }

    /// Records that the program set `b` of dataset `dat` (a replay repeats it).
    pub fn on_set(&mut self, dat: usize, b: Bx) {
        self.touch();
        if let Some(t) = self.dats.get_mut(dat) {
            t.set(&b);
        }
        let e = HistEntry::Set {
            dat: dat as u32,
            bx: b,
        };
        if self.pure_writes {
            self.history.push(e.clone());
        }
        if let Some(h) = self.init_history.as_mut() {
            h.push(e);
        }
    }

    /// End of initialisation: every point loops wrote so far is recomputed at restore (by
    /// re-executing the loops that produced it) rather than saved, and no later loop write is
    /// recomputable. `false` when it came too late (the history was dropped).
    pub fn end_of_init(&mut self) -> bool {
        self.touch();
        let done = match self.init_history.take() {
            Some(h) => {
                self.history = h;
                for d in &mut self.dats {
                    let imp = std::mem::take(&mut d.impure);
                    d.pure.add_list(&imp);
                    if d.pure.len() > 4 * crate::track::MAX_BOXES {
                        // Keep it exact or keep it impure; never approximate a pure set.
                        d.impure = d.pure.clone();
                        d.pure.clear();
                    }
                }
                true
            }
            None => false,
        };
        self.pure_writes = false;
        done
    }

    /// Forgets the start-up history (a restored run takes its state from the checkpoint).
    pub fn drop_init_history(&mut self) {
        self.init_history = None;
    }

    /// True when dataset `d` may be saved (not transient, read-only or left out of a list).
    pub fn saveable(&self, d: &DatTrack) -> bool {
        !d.transient && !d.read_only && (!self.list_set || d.listed)
    }

    /// Adds the entries of a region: save entries for what may need saving (the impure points,
    /// or for a resilient region what resilient regions wrote), recompute entries (real
    /// loop-level regions) for what a replay recomputes.
    pub fn add_targets(&self, r: &mut Region, resilient: bool, recompute: bool) {
        for (i, d) in self.dats.iter().enumerate() {
            if !d.live {
                continue;
            }
            let pb = d.point_bytes();
            if self.saveable(d) {
                let target = if resilient { &d.closure } else { &d.impure };
                r.add(i as u32, EntryKind::Save, target.clone(), pb);
            }
            if recompute && !resilient && !d.transient {
                r.add(i as u32, EntryKind::Recompute, d.pure.clone(), pb);
            }
        }
    }

    /// Save entries dropped as the older half of an alias pair (both would save something):
    /// `(entry, the other dataset)`.
    pub fn alias_drops(&self, r: &Region) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        let save_of = |dat: u32| {
            r.entries
                .iter()
                .position(|e| e.dat == dat && e.kind == EntryKind::Save)
        };
        for (i, d) in self.dats.iter().enumerate() {
            let Some(b) = d.alias else { continue };
            if (b as usize) < i {
                continue;
            }
            let (Some(ea), Some(eb)) = (save_of(i as u32), save_of(b)) else {
                continue;
            };
            if r.entries[ea].save_points() == 0 || r.entries[eb].save_points() == 0 {
                continue;
            }
            let (la, lb) = (d.last_write, self.dats[b as usize].last_write);
            if la >= lb {
                out.push((eb, i as u32));
            } else {
                out.push((ea, b));
            }
        }
        out
    }

    /// Every dataset's state, for a checkpoint.
    pub fn dat_states(&self) -> Vec<DatState> {
        self.dats
            .iter()
            .map(|d| DatState {
                name: d.name.clone(),
                written: d.written.clone(),
                impure: d.impure.clone(),
                pure: d.pure.clone(),
                closure: d.closure.clone(),
                last_write: d.last_write,
            })
            .collect()
    }

    /// Takes over the datasets' state recorded in a checkpoint.
    pub fn restore_dats(&mut self, states: &[DatState]) -> Result<(), ResilienceError> {
        self.touch();
        for (i, ds) in states.iter().enumerate() {
            let Some(d) = self.dats.get_mut(i) else {
                return Err(ResilienceError::Mismatch(format!(
                    "the checkpoint knows dataset `{}` (declared {}th), which this run has not \
                     declared by the checkpoint's loop",
                    ds.name,
                    i + 1
                )));
            };
            if d.name != ds.name {
                return Err(ResilienceError::Mismatch(format!(
                    "dataset {} is `{}` in the checkpoint but `{}` in this run: the program \
                     declares its datasets differently",
                    i + 1,
                    ds.name,
                    d.name
                )));
            }
            d.written = ds.written.clone();
            d.impure = ds.impure.clone();
            d.pure = ds.pure.clone();
            d.closure = ds.closure.clone();
            d.last_write = ds.last_write;
        }
        Ok(())
    }

    /// Adds what resilient regions wrote in iterations a restart skipped.
    pub fn add_closure(&mut self, states: &[DatState]) {
        self.touch();
        for ds in states {
            if let Some(d) = self.dats.iter_mut().find(|d| d.name == ds.name) {
                d.closure.add_list(&ds.closure);
                d.written.add_list(&ds.closure);
                d.impure.add_list(&ds.closure);
                d.pure.remove_list(&ds.closure);
                d.impure.coarsen_over(crate::track::MAX_BOXES);
                d.written.coarsen_over(crate::track::MAX_BOXES);
            }
        }
    }
}

impl Targets for Tracker {
    fn dat_infos(&self) -> Vec<DatInfo> {
        self.dats
            .iter()
            .map(|d| DatInfo {
                saveable: d.live && self.saveable(d),
                target: d.impure.clone(),
                point_bytes: d.point_bytes(),
                alias: d.alias,
                last_write: d.last_write,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boxes::BoxList;
    use ops_core::{DatLayout, ElemType};

    fn layout(n: usize) -> DatLayout {
        DatLayout {
            ty: ElemType::F64,
            dims: 1,
            components: 1,
            size: [n, 1, 1],
            base: [0; 3],
            neg: [0; 3],
            pos: [0; 3],
        }
    }

    fn fp(reads: &[(u32, Bx)], writes: &[(u32, Bx)]) -> Arc<Footprint> {
        Arc::new(Footprint {
            reads: reads.to_vec(),
            writes: writes.to_vec(),
        })
    }

    fn b(n: i32) -> Bx {
        Bx::new([0, 0, 0], [n, 1, 1])
    }

    fn tracker() -> Tracker {
        let mut t = Tracker::new();
        for name in ["g/mesh", "g/u"] {
            t.dats.push(DatTrack::new(name.into(), layout(10), true));
        }
        t
    }

    #[test]
    fn start_up_writes_are_pure_and_recurring_ones_impure() {
        let mut t = tracker();
        t.update(0, 0, &fp(&[], &[(0, b(10))]), false, false);
        assert_eq!(t.dats[0].pure.points(), 10);
        // Location 1 writes u from the mesh, twice, with location 0 in between: the second
        // time is a recurrence.
        t.update(1, 1, &fp(&[(0, b(10))], &[(1, b(10))]), false, false);
        t.locs.first_pass_recur = Some(3);
        t.update(1, 3, &fp(&[(0, b(10))], &[(1, b(10))]), false, false);
        assert_eq!(t.dats[1].impure.points(), 10);
        assert!(t.dats[1].pure.is_empty());
        assert_eq!(t.history.len(), 2);
    }

    /// The writes a location's unchanged footprint skips are exactly those that change
    /// nothing: random loop sequences (boxes that overlap and recur, reads of impure points,
    /// sets, closures, the end of start-up) recorded with the shortcut and always in full
    /// leave the same state after every loop.
    #[test]
    fn skipping_unchanged_writes_records_what_recording_them_in_full_does() {
        let mut next = crate::track::tests::random(0x9e37_79b9_7f4a_7c15);
        // Overlapping boxes, and single points enough to make the lists coarsen.
        let mut boxes = vec![
            Bx::new([0, 0, 0], [10, 1, 1]),
            Bx::new([0, 0, 0], [4, 1, 1]),
            Bx::new([3, 0, 0], [8, 1, 1]),
            Bx::new([9, 0, 0], [10, 1, 1]),
        ];
        boxes.extend((0..200).map(|x| Bx::new([2 * x, 0, 0], [2 * x + 1, 1, 1])));
        let n = boxes.len() as u64;
        let pick = |next: &mut dyn FnMut(u64) -> u64| match next(2) {
            0 => boxes[next(4) as usize],
            _ => boxes[next(n) as usize],
        };
        let mut skipped = 0;
        for _ in 0..200 {
            let (mut fast, mut full) = (tracker(), tracker());
            let mut last: Vec<Option<Arc<Footprint>>> = vec![None; 4];
            for index in 0..600u64 {
                let loc = next(4) as u32;
                let f = match next(3) {
                    0 => fp(
                        &[(next(2) as u32, pick(&mut next))],
                        &[(next(2) as u32, pick(&mut next))],
                    ),
                    _ => last[loc as usize]
                        .clone()
                        .unwrap_or_else(|| fp(&[], &[(1, boxes[0])])),
                };
                let same = last[loc as usize].as_ref() == Some(&f);
                last[loc as usize] = Some(f.clone());
                let in_closure = next(40) == 0;
                match next(100) {
                    0 => {
                        let bx = pick(&mut next);
                        fast.on_set(0, bx);
                        full.on_set(0, bx);
                    }
                    1 => {
                        fast.end_of_init();
                        full.end_of_init();
                    }
                    _ => {}
                }
                if index == 30 {
                    fast.locs.first_pass_recur = Some(index);
                    full.locs.first_pass_recur = Some(index);
                }
                if index == 60 {
                    fast.drop_init_history();
                    full.drop_init_history();
                }
                let memo = fast.unchanged_at.get(loc as usize) == Some(&fast.epoch);
                skipped += usize::from(same && memo && !in_closure && index > 60);
                fast.update(loc, index, &f, in_closure, same);
                full.update(loc, index, &f, in_closure, false);
                assert_eq!(fast.dat_states(), full.dat_states(), "after loop {index}");
                assert_eq!(fast.history, full.history);
                assert_eq!(fast.last_pure_write, full.last_pure_write);
                assert_eq!(fast.seen, full.seen);
            }
        }
        assert!(skipped > 10_000, "the shortcut was taken {skipped} times");
    }

    #[test]
    fn the_learner_targets_impure_points_of_saveable_datasets() {
        let mut t = tracker();
        t.dats[1].impure = BoxList::from_box(b(10));
        t.dats[0].impure = BoxList::from_box(b(4));
        t.dats[0].transient = true;
        let infos = t.dat_infos();
        assert!(!infos[0].saveable);
        assert!(infos[1].saveable);
        assert_eq!(infos[1].target.points() * infos[1].point_bytes, 80);
    }
}
