//! Box algebra in one to three dimensions: the regions the tracker reasons about.
//!
//! A [`Bx`] is a half-open box `lo..hi` of global indices, padded to three dimensions (unused
//! dimensions are `0..1`). A [`BoxList`] is a union of pairwise **disjoint**, non-empty boxes, so
//! its point count is the sum of its boxes' and every operation can be done box by box:
//!
//! - subtracting a box from a box leaves at most `2·dims` disjoint pieces ([`Bx::subtract`]);
//! - adding a box first drops the boxes it contains, then adds only the pieces of it that are
//!   not covered yet, then merges neighbours that line up into one box, which keeps the lists
//!   of the regions loops write (whole ranges, halo strips) at a handful of boxes.
//!
//! Lists that still grow past a bound can be coarsened in the direction that is safe for their
//! use: [`BoxList::coarsen_over`] (replace by the bounding box: more points, for "may need
//! saving" sets) and [`BoxList::coarsen_under`] (drop the smallest boxes: fewer points, for
//! "certainly overwritten" sets).

use ops_core::IterRange;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// Pieces of boxes being cut (on the stack: most cuts leave a few).
pub type Pieces = SmallVec<[Bx; 8]>;

/// A half-open box of global indices, padded to three dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bx {
    /// First index per dimension.
    pub lo: [i32; 3],
    /// One past the last index per dimension.
    pub hi: [i32; 3],
}

impl Bx {
    /// A box from bounds.
    pub const fn new(lo: [i32; 3], hi: [i32; 3]) -> Bx {
        Bx { lo, hi }
    }

    /// The box of a range (unused dimensions `0..1`, as `IterRange` pads them).
    pub fn from_range(r: &IterRange) -> Bx {
        let (mut lo, mut hi) = (r.lo(), r.hi());
        for d in r.dims()..3 {
            lo[d] = 0;
            hi[d] = 1;
        }
        Bx { lo, hi }
    }

    /// The box as a range of `dims` dimensions.
    pub fn to_range(self, dims: usize) -> IterRange {
        IterRange::new(dims.clamp(1, 3), self.lo, self.hi).expect("1..=3 dimensions")
    }

    /// True when the box holds no point.
    pub fn is_empty(&self) -> bool {
        (0..3).any(|d| self.hi[d] <= self.lo[d])
    }

    /// Number of points (0 when empty).
    pub fn points(&self) -> u64 {
        (0..3)
            .map(|d| (self.hi[d] as i64 - self.lo[d] as i64).max(0) as u64)
            .product()
    }

    /// The common part of two boxes, if any.
    pub fn intersect(&self, o: &Bx) -> Option<Bx> {
        let b = Bx {
            lo: std::array::from_fn(|d| self.lo[d].max(o.lo[d])),
            hi: std::array::from_fn(|d| self.hi[d].min(o.hi[d])),
        };
        (!b.is_empty()).then_some(b)
    }

    /// True when the boxes share a point.
    pub fn overlaps(&self, o: &Bx) -> bool {
        (0..3).all(|d| self.lo[d].max(o.lo[d]) < self.hi[d].min(o.hi[d]))
    }

    /// True when every point of `o` is in `self` (an empty `o` is contained in anything).
    pub fn contains(&self, o: &Bx) -> bool {
        o.is_empty() || (0..3).all(|d| self.lo[d] <= o.lo[d] && o.hi[d] <= self.hi[d])
    }

    /// The smallest box containing both.
    pub fn hull(&self, o: &Bx) -> Bx {
        if self.is_empty() {
            return *o;
        }
        if o.is_empty() {
            return *self;
        }
        Bx {
            lo: std::array::from_fn(|d| self.lo[d].min(o.lo[d])),
            hi: std::array::from_fn(|d| self.hi[d].max(o.hi[d])),
        }
    }

    /// Pushes the pieces of `self \ o` onto `out`: at most two per dimension, disjoint, none
    /// empty. `self` itself when they do not overlap.
    pub fn subtract(&self, o: &Bx, out: &mut Pieces) {
        if self.is_empty() {
            return;
        }
        if !self.overlaps(o) {
            out.push(*self);
            return;
        }
        let mut rest = *self;
        for d in 0..3 {
            if rest.lo[d] < o.lo[d] {
                let mut piece = rest;
                piece.hi[d] = o.lo[d];
                out.push(piece);
                rest.lo[d] = o.lo[d];
            }
            if rest.hi[d] > o.hi[d] {
                let mut piece = rest;
                piece.lo[d] = o.hi[d];
                out.push(piece);
                rest.hi[d] = o.hi[d];
            }
        }
    }

    /// The single box covering both, if they touch along one dimension and agree in the others.
    fn merge(&self, o: &Bx) -> Option<Bx> {
        let mut differ = None;
        for d in 0..3 {
            if self.lo[d] != o.lo[d] || self.hi[d] != o.hi[d] {
                if differ.is_some() {
                    return None;
                }
                differ = Some(d);
            }
        }
        let Some(d) = differ else {
            return Some(*self);
        };
        if self.hi[d] == o.lo[d] || o.hi[d] == self.lo[d] {
            let mut m = *self;
            m.lo[d] = self.lo[d].min(o.lo[d]);
            m.hi[d] = self.hi[d].max(o.hi[d]);
            Some(m)
        } else {
            None
        }
    }
}

impl std::fmt::Display for Bx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[{}..{}, {}..{}, {}..{}]",
            self.lo[0], self.hi[0], self.lo[1], self.hi[1], self.lo[2], self.hi[2]
        )
    }
}

/// A union of pairwise disjoint, non-empty boxes. The lists the tracker keeps per dataset and
/// per region entry hold a box or two: those are kept inline (no allocation as loops update
/// them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BoxList {
    boxes: SmallVec<[Bx; 4]>,
}

impl BoxList {
    /// The empty set.
    pub const fn new() -> BoxList {
        BoxList {
            boxes: SmallVec::new_const(),
        }
    }

    /// The set of one box (empty if the box is).
    pub fn from_box(b: Bx) -> BoxList {
        let mut l = BoxList::new();
        l.add(b);
        l
    }

    /// A set from boxes that may overlap.
    pub fn from_boxes(boxes: impl IntoIterator<Item = Bx>) -> BoxList {
        let mut l = BoxList::new();
        for b in boxes {
            l.add(b);
        }
        l
    }

    /// The disjoint boxes.
    pub fn boxes(&self) -> &[Bx] {
        &self.boxes
    }

    /// True when the set holds no point.
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// Number of disjoint boxes.
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// Number of points.
    pub fn points(&self) -> u64 {
        self.boxes.iter().map(Bx::points).sum()
    }

    /// Forgets every point.
    pub fn clear(&mut self) {
        self.boxes.clear();
    }

    /// The bounding box (`None` when empty).
    pub fn hull(&self) -> Option<Bx> {
        let mut it = self.boxes.iter();
        let first = *it.next()?;
        Some(it.fold(first, |h, b| h.hull(b)))
    }

    /// True when some point of `b` is in the set.
    pub fn overlaps(&self, b: &Bx) -> bool {
        self.boxes.iter().any(|x| x.overlaps(b))
    }

    /// True when the sets share a point.
    pub fn overlaps_list(&self, o: &BoxList) -> bool {
        o.boxes.iter().any(|b| self.overlaps(b))
    }

    /// True when every point of `b` is in the set.
    pub fn covers(&self, b: &Bx) -> bool {
        if b.is_empty() {
            return true;
        }
        if self.boxes.iter().any(|x| x.contains(b)) {
            return true;
        }
        let mut rest: Pieces = smallvec::smallvec![*b];
        let mut next = Pieces::new();
        for x in &self.boxes {
            next.clear();
            for r in &rest {
                r.subtract(x, &mut next);
            }
            std::mem::swap(&mut rest, &mut next);
            if rest.is_empty() {
                return true;
            }
        }
        rest.is_empty()
    }

    /// True when every point of `o` is in the set.
    pub fn covers_list(&self, o: &BoxList) -> bool {
        o.boxes.iter().all(|b| self.covers(b))
    }

    /// Adds the points of `b`.
    pub fn add(&mut self, b: Bx) {
        if b.is_empty() {
            return;
        }
        // Boxes inside `b` go; if `b` is inside one box, nothing changes.
        if self.boxes.iter().any(|x| x.contains(&b)) {
            return;
        }
        self.boxes.retain(|x| !b.contains(x));
        if !self.overlaps(&b) {
            self.push_merged(b);
            return;
        }
        // The parts of `b` not covered yet.
        let mut pieces: Pieces = smallvec::smallvec![b];
        let mut next = Pieces::new();
        for x in &self.boxes {
            if !b.overlaps(x) {
                continue;
            }
            next.clear();
            for p in &pieces {
                p.subtract(x, &mut next);
            }
            std::mem::swap(&mut pieces, &mut next);
            if pieces.is_empty() {
                return;
            }
        }
        for p in pieces {
            self.push_merged(p);
        }
    }

    /// Adds a box known to be disjoint from the set, merging it with a neighbour it lines up
    /// with (repeatedly).
    fn push_merged(&mut self, mut p: Bx) {
        loop {
            match self.boxes.iter().position(|x| x.merge(&p).is_some()) {
                Some(i) => {
                    let x = self.boxes.swap_remove(i);
                    p = x.merge(&p).expect("checked");
                }
                None => {
                    self.boxes.push(p);
                    return;
                }
            }
        }
    }

    /// Adds every point of `o`.
    pub fn add_list(&mut self, o: &BoxList) {
        for b in &o.boxes {
            self.add(*b);
        }
    }

    /// Removes the points of `b`.
    pub fn remove(&mut self, b: &Bx) {
        if b.is_empty() || !self.overlaps(b) {
            return;
        }
        // Boxes inside `b` go; boxes partly inside are cut (their pieces on the stack).
        let mut pieces = Pieces::new();
        let mut i = 0;
        while i < self.boxes.len() {
            let x = self.boxes[i];
            if b.contains(&x) {
                self.boxes.swap_remove(i);
            } else if x.overlaps(b) {
                self.boxes.swap_remove(i);
                x.subtract(b, &mut pieces);
            } else {
                i += 1;
            }
        }
        for p in pieces {
            self.push_merged(p);
        }
    }

    /// Adds `self ∩ b` to `out` without building the intersection first.
    pub fn add_intersection_to(&self, b: &Bx, out: &mut BoxList) {
        for x in &self.boxes {
            if let Some(i) = x.intersect(b) {
                out.add(i);
            }
        }
    }

    /// Removes every point of `o`.
    pub fn remove_list(&mut self, o: &BoxList) {
        for b in &o.boxes {
            self.remove(b);
        }
    }

    /// The points of the set inside `b`.
    pub fn intersect_box(&self, b: &Bx) -> BoxList {
        let mut out = BoxList::new();
        for x in &self.boxes {
            if let Some(i) = x.intersect(b) {
                out.push_merged(i);
            }
        }
        out
    }

    /// The common points of both sets.
    pub fn intersect(&self, o: &BoxList) -> BoxList {
        let mut out = BoxList::new();
        for b in &o.boxes {
            for x in &self.boxes {
                if let Some(i) = x.intersect(b) {
                    out.push_merged(i);
                }
            }
        }
        out
    }

    /// The points of the set not in `o`.
    pub fn minus(&self, o: &BoxList) -> BoxList {
        let mut out = self.clone();
        out.remove_list(o);
        out
    }

    /// If the set has more than `max` boxes, replaces it by its bounding box (a superset): for
    /// sets where extra points are safe ("may need saving", "may differ on replay").
    pub fn coarsen_over(&mut self, max: usize) {
        if self.boxes.len() > max {
            let h = self.hull().expect("non-empty");
            self.boxes.clear();
            self.boxes.push(h);
        }
    }

    /// If the set has more than `max` boxes, drops the smallest ones until `max` are left (a
    /// subset): for sets where missing points are safe ("certainly overwritten").
    pub fn coarsen_under(&mut self, max: usize) {
        if self.boxes.len() > max {
            self.boxes.sort_by_key(|b| std::cmp::Reverse(b.points()));
            self.boxes.truncate(max);
        }
    }
}

impl std::fmt::Display for BoxList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("{")?;
        for (i, b) in self.boxes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{b}")?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    const N: i32 = 7;

    fn pts(b: &Bx) -> HashSet<[i32; 3]> {
        let mut s = HashSet::new();
        for z in b.lo[2]..b.hi[2] {
            for y in b.lo[1]..b.hi[1] {
                for x in b.lo[0]..b.hi[0] {
                    s.insert([x, y, z]);
                }
            }
        }
        s
    }

    fn lpts(l: &BoxList) -> HashSet<[i32; 3]> {
        let mut s = HashSet::new();
        for b in l.boxes() {
            for p in pts(b) {
                assert!(s.insert(p), "boxes of {l} overlap at {p:?}");
            }
        }
        s
    }

    fn arb_box(dims: usize) -> impl Strategy<Value = Bx> {
        proptest::collection::vec((-2..N, 0..N), 3).prop_map(move |v| {
            let mut b = Bx::new([0; 3], [1; 3]);
            for d in 0..dims {
                b.lo[d] = v[d].0;
                b.hi[d] = v[d].0 + v[d].1;
            }
            b
        })
    }

    #[derive(Clone, Debug)]
    enum Op {
        Add(Bx),
        Remove(Bx),
        Intersect(Bx),
    }

    fn arb_ops() -> impl Strategy<Value = (usize, Vec<Op>)> {
        (1usize..=3).prop_flat_map(|dims| {
            let op = prop_oneof![
                3 => arb_box(dims).prop_map(Op::Add),
                2 => arb_box(dims).prop_map(Op::Remove),
                1 => arb_box(dims).prop_map(Op::Intersect),
            ];
            (Just(dims), proptest::collection::vec(op, 1..24))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Every operation agrees with the same operation on explicit point sets, and lists
        /// stay disjoint.
        #[test]
        fn list_ops_match_point_sets((_dims, ops) in arb_ops()) {
            let mut l = BoxList::new();
            let mut s: HashSet<[i32; 3]> = HashSet::new();
            for op in ops {
                match op {
                    Op::Add(b) => { l.add(b); s.extend(pts(&b)); }
                    Op::Remove(b) => { l.remove(&b); let p = pts(&b); s.retain(|x| !p.contains(x)); }
                    Op::Intersect(b) => { l = l.intersect_box(&b); let p = pts(&b); s.retain(|x| p.contains(x)); }
                }
                prop_assert_eq!(lpts(&l), s.clone());
                prop_assert_eq!(l.points() as usize, s.len());
            }
        }

        #[test]
        fn subtract_pieces_are_disjoint_and_exact(a in arb_box(3), b in arb_box(3)) {
            let mut out = Pieces::new();
            a.subtract(&b, &mut out);
            prop_assert!(out.len() <= 6);
            let l = BoxList { boxes: out.into_iter().collect() };
            let pb = pts(&b);
            let expect: HashSet<_> = pts(&a).into_iter().filter(|p| !pb.contains(p)).collect();
            prop_assert_eq!(lpts(&l), expect);
        }

        #[test]
        fn covers_minus_intersect_agree(a in proptest::collection::vec(arb_box(2), 0..6),
                                        b in proptest::collection::vec(arb_box(2), 0..6)) {
            let la = BoxList::from_boxes(a);
            let lb = BoxList::from_boxes(b);
            let (pa, pb) = (lpts(&la), lpts(&lb));
            prop_assert_eq!(la.covers_list(&lb), pb.is_subset(&pa));
            prop_assert_eq!(lpts(&la.minus(&lb)), pa.difference(&pb).copied().collect::<HashSet<_>>());
            prop_assert_eq!(lpts(&la.intersect(&lb)), pa.intersection(&pb).copied().collect::<HashSet<_>>());
            prop_assert_eq!(la.overlaps_list(&lb), !pa.is_disjoint(&pb));
            let mut u = la.clone();
            u.add_list(&lb);
            prop_assert_eq!(lpts(&u), pa.union(&pb).copied().collect::<HashSet<_>>());
        }

        #[test]
        fn coarsening_is_in_the_safe_direction(a in proptest::collection::vec(arb_box(2), 0..10)) {
            let l = BoxList::from_boxes(a);
            let p = lpts(&l);
            let mut over = l.clone();
            over.coarsen_over(2);
            prop_assert!(over.len() <= 2);
            prop_assert!(p.is_subset(&lpts(&over)));
            let mut under = l.clone();
            under.coarsen_under(2);
            prop_assert!(lpts(&under).is_subset(&p));
        }
    }

    #[test]
    fn strips_and_interior_merge_back_into_one_box() {
        // A 2-D field with halo 2: interior written, then the four halo strips.
        let mut l = BoxList::from_box(Bx::new([0, 0, 0], [10, 10, 1]));
        l.add(Bx::new([-2, 0, 0], [0, 10, 1]));
        l.add(Bx::new([10, 0, 0], [12, 10, 1]));
        l.add(Bx::new([-2, -2, 0], [12, 0, 1]));
        l.add(Bx::new([-2, 10, 0], [12, 12, 1]));
        assert_eq!(l.boxes(), &[Bx::new([-2, -2, 0], [12, 12, 1])]);
        // Removing the interior leaves the halo ring as a few strips.
        l.remove(&Bx::new([0, 0, 0], [10, 10, 1]));
        assert_eq!(l.points(), 14 * 14 - 100);
        assert!(l.len() <= 4);
    }
}
