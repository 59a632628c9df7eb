//! The recurring structure of a loop trace: which locations mark an iteration of a loop of the
//! program, and which loops occur once per iteration.
//!
//! A *level* is the recurrence of one location, its *anchor*: a *pass* is the stretch of the
//! trace from one occurrence of the anchor to the next. Of the locations seen in the level's
//! complete passes,
//!
//! - the *members* occur exactly once in every pass: they are the level's loop boundaries that
//!   occur once per iteration, where a checkpoint could open (the anchor is one of them, and
//!   every member anchors the same level);
//! - the *core* occurs at least once in every pass (members, and the loops of inner loops that
//!   run at least once per pass);
//! - the *union* occurs in some pass (also rare and conditional loops).
//!
//! A level is *eligible* to be the program's outer iteration when it has at least
//! [`MIN_PASSES`] complete passes, its anchor still recurs, its passes reach more than half of
//! the locations the program has run lately and its core more than a third (*coverage*: the
//! loops of an inner solver, or of a helper called several times per time step, are a small
//! part of the program; the time step runs most of it every pass). Coverage counts the
//! locations seen since the program's iterations began (the first occurrence of the first
//! location that recurs: what ran before is start-up) and last seen in the latest
//! [`FORGET_PASSES`] passes, and after any *finished phase* before the level's first pass (a
//! level whose anchor stopped recurring and whose loops all last ran before: a solve at
//! start-up). Its passes are alike: in at least half
//! of them the core makes up at least half of the distinct loops (a location called twice per
//! time step, whose passes alternate between two halves of the step, is no iteration).
//!
//! Of eligible levels, an inner loop's iterations are moved out to the level that *encloses*
//! them ([`encloses`]): the time step around an iterative solve, Runge-Kutta stages, the parts
//! of a split step ([`spread`]), a fixed-count smoother or the items of a step (a helper run
//! field by field, [`items`]).
//! Which level is the outer iteration is then decided with the bytes a checkpoint would save
//! at its members ([`select`]).

use crate::boxes::BoxList;
use serde::{Deserialize, Serialize};

/// The recorded loops as the analysis reads them.
#[derive(Clone, Copy)]
pub struct Trace<'a> {
    /// The location of each loop, in order.
    pub locs: &'a [u32],
    /// A hash of each loop's global constants' values (0 when it has none).
    pub tags: &'a [u64],
    /// The slots after whose loop the program fetched values (sorted).
    pub fetches: &'a [u32],
    /// The slots after whose loop a value was handed to the program, a reduction's result or a
    /// fetch (sorted).
    pub values: &'a [u32],
    /// The loop index of a location's first occurrence in the run.
    pub first: &'a dyn Fn(u32) -> u64,
    /// Each loop's footprint id in `footprints` (empty with no footprints).
    pub fps: &'a [u32],
    /// The recorded footprints: `None` takes every loop for one that writes.
    pub footprints: Option<&'a crate::learn::trace::Footprints>,
}

impl Trace<'_> {
    /// True when, in the slots `span`, the rest (`rest` tells its locations) carries on the
    /// state the other loops of the span left: some loop of the rest writes a dataset, and
    /// either reads what the others wrote (and no loop of the rest overwrote since: the prefix
    /// of a time step reads what its solve wrote) or leaves some of it for them. A rest that
    /// writes nothing only looks at the state (a monitor's reduction, an output's fetch); one
    /// that overwrites all of it before reading any starts afresh (an ensemble's next member),
    /// when `afresh` allows it (else a rest that writes carries). True without footprints.
    pub fn carries(
        &self,
        rest: &dyn Fn(u32) -> bool,
        span: std::ops::Range<usize>,
        afresh: bool,
    ) -> bool {
        let Some(table) = self.footprints else {
            return true;
        };
        let mut written: Vec<(u32, BoxList)> = Vec::new();
        let mut writes = false;
        for i in span {
            let f = table.get(self.fps[i]);
            if rest(self.locs[i]) {
                if f.writes.is_empty() {
                    continue;
                }
                writes = true;
                if !afresh {
                    return true;
                }
                let theirs = f
                    .reads
                    .iter()
                    .any(|(d, b)| written.iter().any(|(w, list)| w == d && list.overlaps(b)));
                if theirs {
                    return true;
                }
                for (d, b) in &f.writes {
                    if let Some((_, list)) = written.iter_mut().find(|(w, _)| w == d) {
                        list.remove(b);
                    }
                }
            } else {
                for (d, b) in &f.writes {
                    match written.iter_mut().find(|(w, _)| w == d) {
                        Some((_, list)) => list.add(*b),
                        None => written.push((*d, BoxList::from_box(*b))),
                    }
                }
            }
        }
        writes && written.iter().any(|(_, list)| !list.is_empty())
    }

    /// True when the prefix of an iteration of `outer` sets up afresh the state `inner`'s
    /// iterations carry: in the first complete pass of `outer` that holds two iterations of
    /// `inner`, some dataset that its first iteration reads before writing and writes (carried
    /// from one iteration to the next: a solver's residual and search direction) is overwritten
    /// by the loops between `outer`'s anchor and that iteration that are not `inner`'s own
    /// (its core), over all the iteration reads of it, before they read it (a solver's start
    /// from the new right-hand side). A loop run every few time steps reads the state the steps
    /// carry on, or leaves it be. False without footprints.
    pub fn restarts(&self, inner: &Level, outer: u32) -> bool {
        let Some(table) = self.footprints else {
            return false;
        };
        let (core, inner) = (&inner.core, inner.anchor);
        let locs = self.locs;
        let next =
            |from: usize, l: u32| locs[from..].iter().position(|&x| x == l).map(|k| from + k);
        let mut open = match next(0, outer) {
            Some(o) => o,
            None => return false,
        };
        while let Some(close) = next(open + 1, outer) {
            let first = next(open + 1, inner).filter(|&i| i < close);
            let second = first
                .and_then(|i| next(i + 1, inner))
                .filter(|&i| i < close);
            let (Some(first), Some(second)) = (first, second) else {
                open = close;
                continue;
            };
            // What the iteration reads before writing it, and what it writes.
            let mut live: Vec<(u32, BoxList)> = Vec::new();
            let mut written: Vec<(u32, BoxList)> = Vec::new();
            for i in first..second {
                let f = table.get(self.fps[i]);
                for (d, b) in &f.reads {
                    let mut fresh = BoxList::from_box(*b);
                    if let Some((_, w)) = written.iter().find(|(w, _)| w == d) {
                        fresh = fresh.minus(w);
                    }
                    match live.iter_mut().find(|(l, _)| l == d) {
                        Some((_, l)) => l.add_list(&fresh),
                        None => live.push((*d, fresh)),
                    }
                }
                for (d, b) in &f.writes {
                    match written.iter_mut().find(|(w, _)| w == d) {
                        Some((_, w)) => w.add(*b),
                        None => written.push((*d, BoxList::from_box(*b))),
                    }
                }
            }
            live.retain(|(d, l)| !l.is_empty() && written.iter().any(|(w, _)| w == d));
            // The prefix: overwrites of a carried dataset before the prefix reads it.
            let mut read: Vec<u32> = Vec::new();
            let mut set: Vec<(u32, BoxList)> = Vec::new();
            // Loops of the inner iterations that run before its anchor in a pass are theirs.
            for i in (open..first).filter(|&i| core.binary_search(&locs[i]).is_err()) {
                let f = table.get(self.fps[i]);
                read.extend(f.reads.iter().map(|(d, _)| *d));
                for (d, b) in &f.writes {
                    if read.contains(d) {
                        continue;
                    }
                    match set.iter_mut().find(|(w, _)| w == d) {
                        Some((_, w)) => w.add(*b),
                        None => set.push((*d, BoxList::from_box(*b))),
                    }
                }
            }
            return live
                .iter()
                .any(|(d, l)| set.iter().any(|(w, list)| w == d && list.covers_list(l)));
        }
        false
    }

    /// True when `inner`'s iterations each end with a value handed to the program: every
    /// occurrence of its anchor that follows a member of its level (the end of another
    /// iteration, not the rest of the step) follows a value, the test of whether to iterate
    /// again. An inner loop run a fixed number of times by the program, or a time step, does not
    /// ask.
    pub fn asks_each_iteration(&self, inner: &Level) -> bool {
        let mut again = 0;
        for s in 1..self.locs.len() {
            if self.locs[s] != inner.anchor || !inner.members.contains(&self.locs[s - 1]) {
                continue;
            }
            if self.values.binary_search(&(s as u32 - 1)).is_err() {
                return false;
            }
            again += 1;
        }
        again > 0
    }

    /// True when the program fetched values after the loop of slot `s`.
    fn fetched_after(&self, s: usize) -> bool {
        self.fetches.binary_search(&(s as u32)).is_ok()
    }

    /// True when `loc` is a branch taken on fetched values: after some loop that the program
    /// follows with a fetch, `loc` runs next at times and not at others (a time step's prefix
    /// runs whatever was fetched before it).
    pub fn fetch_decided(&self, loc: u32) -> bool {
        let mut before: Vec<u32> = (1..self.locs.len())
            .filter(|&s| self.locs[s] == loc && self.fetched_after(s - 1))
            .map(|s| self.locs[s - 1])
            .collect();
        before.sort_unstable();
        before.dedup();
        !before.is_empty()
            && (0..self.locs.len().saturating_sub(1)).any(|s| {
                before.binary_search(&self.locs[s]).is_ok()
                    && self.fetched_after(s)
                    && self.locs[s + 1] != loc
            })
    }
}

/// Complete passes a level needs before it can be the outer iteration.
pub const MIN_PASSES: usize = 3;

/// Passes of a level after which loops last seen before them no longer count against its
/// coverage (a phase of the program that is over: a spin-up, a switched-off source).
pub const FORGET_PASSES: usize = 64;

/// One level of the trace's recurring structure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Level {
    /// The location whose recurrence defines the level (the first member to occur).
    pub anchor: u32,
    /// Locations occurring exactly once in every complete pass, in the order of the last one.
    pub members: Vec<u32>,
    /// Locations occurring in every complete pass (sorted).
    pub core: Vec<u32>,
    /// Locations occurring in some complete pass (sorted).
    pub union: Vec<u32>,
    /// Complete passes in the trace.
    pub passes: usize,
    /// Loops in the longest complete pass.
    pub max_pass: u64,
    /// The passes reach more than half of the locations run lately, and the core more than a
    /// third.
    pub covers: bool,
    /// In at least half of the passes the core makes up at least half of the distinct loops.
    pub alike: bool,
    /// May be the outer iteration: enough passes, covering, alike and alive (see the module
    /// docs).
    pub eligible: bool,
    /// Its anchor still recurs: the trace ends less than two of its longest passes after the
    /// anchor's last occurrence.
    pub alive: bool,
}

impl Level {
    /// True when location `loc` occurs in some pass.
    pub fn reaches(&self, loc: u32) -> bool {
        self.union.binary_search(&loc).is_ok()
    }
}

/// Where a level's passes lie in the trace, for its coverage.
struct Span {
    /// The anchor's first occurrence.
    first: u32,
    /// The last occurrence of any location of the level's union.
    end: u32,
    /// Locations last seen before this no longer count ([`FORGET_PASSES`]).
    horizon: u32,
    /// The anchor's last occurrence: the end of the last complete pass.
    last_pass_end: u32,
}

/// The levels of `trace` (location ids, one per loop, in order), finest (most passes, then most
/// members) first.
pub fn analyse(trace: &[u32]) -> Vec<Level> {
    let Some(&top) = trace.iter().max() else {
        return Vec::new();
    };
    let n_locs = top as usize + 1;
    // Each location's occurrences, every list allocated once at its size.
    let mut counts = vec![0usize; n_locs];
    for &l in trace {
        counts[l as usize] += 1;
    }
    let mut occ: Vec<Vec<u32>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for (i, &l) in trace.iter().enumerate() {
        occ[l as usize].push(i as u32);
    }
    // What coverage counts: the locations seen since the program's iterations began (the
    // first occurrence of the first location to recur; what ran before is start-up), by where
    // they were first and last seen.
    let start = occ
        .iter()
        .filter(|o| o.len() >= 2)
        .map(|o| o[0])
        .min()
        .unwrap_or(u32::MAX);
    let (mut first_seen, mut last_seen): (Vec<u32>, Vec<u32>) = occ
        .iter()
        .filter_map(|o| Some((*o.first()?, *o.last()?)))
        .filter(|&(first, _)| first >= start)
        .unzip();
    first_seen.sort_unstable();
    last_seen.sort_unstable();
    let mut anchors: Vec<u32> = (0..n_locs as u32)
        .filter(|&l| occ[l as usize].len() >= 2)
        .collect();
    anchors.sort_by_key(|&l| occ[l as usize][0]);
    let mut covered = vec![false; n_locs];
    let mut count = vec![0u32; n_locs];
    let mut present = vec![0u32; n_locs];
    let mut once = vec![0u32; n_locs];
    let mut touched: Vec<u32> = Vec::new();
    let mut seen: Vec<u32> = Vec::new();
    let mut levels = Vec::new();
    let mut spans: Vec<Span> = Vec::new();
    for a in anchors {
        if covered[a as usize] {
            continue;
        }
        let pos = &occ[a as usize];
        let passes = pos.len() - 1;
        let mut sizes = Vec::with_capacity(passes);
        let mut max_pass = 0u64;
        let mut last_order: Vec<u32> = Vec::new();
        for p in 0..passes {
            let (from, to) = (pos[p] as usize, pos[p + 1] as usize);
            max_pass = max_pass.max((to - from) as u64);
            for &l in &trace[from..to] {
                let c = &mut count[l as usize];
                if *c == 0 {
                    touched.push(l);
                }
                *c += 1;
            }
            if p + 1 == passes {
                last_order = touched.clone();
            }
            sizes.push(touched.len());
            for &l in &touched {
                let li = l as usize;
                if present[li] == 0 {
                    seen.push(l);
                }
                present[li] += 1;
                if count[li] == 1 {
                    once[li] += 1;
                }
                count[li] = 0;
            }
            touched.clear();
        }
        let p = passes as u32;
        // What ran since the iterations began and before the anchor first did is part of a
        // pass too (the first, seen in part): a location it ran twice (the first burst of an
        // inner loop at the top of the step) is no member, whatever the complete passes show.
        let lead = &trace[(start as usize).min(pos[0] as usize)..pos[0] as usize];
        let members: Vec<u32> = last_order
            .into_iter()
            .filter(|&l| once[l as usize] == p)
            .filter(|&l| lead.iter().filter(|&&x| x == l).count() < 2)
            .collect();
        let mut core: Vec<u32> = seen
            .iter()
            .copied()
            .filter(|&l| present[l as usize] == p)
            .collect();
        let mut union = seen.clone();
        core.sort_unstable();
        union.sort_unstable();
        for &l in &seen {
            present[l as usize] = 0;
            once[l as usize] = 0;
        }
        seen.clear();
        // A member anchors the same level unless it also recurs outside the anchor's passes
        // (a branch taken in the first steps only holds the step's loops once per pass, but
        // the step goes on without it): then it anchors a level of its own. So from the first
        // pass: a trace holding a time step's loops once per step would otherwise be scanned
        // whole once per loop of the step (most of what analyses cost TeaLeaf in its first
        // steps, until they had three passes).
        for &m in &members {
            if occ[m as usize].len() <= pos.len() + 1 {
                covered[m as usize] = true;
            }
        }
        let since_last = (trace.len() - *pos.last().expect("two or more") as usize) as u64;
        let alive = since_last <= 2 * max_pass;
        let alike = 2 * sizes.iter().filter(|&&s| 2 * core.len() >= s).count() >= passes;
        // Locations last seen FORGET_PASSES passes of this level ago no longer count.
        let horizon = trace
            .len()
            .saturating_sub(FORGET_PASSES * max_pass as usize) as u32;
        spans.push(Span {
            first: pos[0],
            end: union
                .iter()
                .map(|&l| *occ[l as usize].last().expect("seen"))
                .max()
                .expect("the anchor is in the union"),
            horizon,
            last_pass_end: *pos.last().expect("two or more"),
        });
        levels.push(Level {
            anchor: a,
            members,
            core,
            union,
            passes,
            max_pass,
            covers: false,
            alike,
            eligible: false,
            alive,
        });
    }
    // A level's coverage leaves out a finished phase before its first pass: the loops last seen
    // by the time a level that stopped recurring before it began ran its last loop (a solve at
    // start-up, whose repeated loops are no part of the time loop after it).
    let finished: Vec<u32> = levels
        .iter()
        .zip(&spans)
        .filter(|(d, _)| !d.alive && d.passes >= MIN_PASSES)
        .map(|(_, s)| s.end)
        .collect();
    for (l, s) in levels.iter_mut().zip(&spans) {
        let phase_end = finished
            .iter()
            .filter(|&&end| end < s.first)
            .max()
            .map_or(0, |&end| end + 1);
        // Nor do locations first seen after the last complete pass: no pass could hold them yet
        // (loops that first run mid-run are judged once a pass holding them completes).
        let fresh = first_seen.len() - first_seen.partition_point(|&p| p < s.last_pass_end);
        let from = s.horizon.max(phase_end);
        let recent =
            (last_seen.len() - last_seen.partition_point(|&p| p < from)).saturating_sub(fresh);
        l.covers = 2 * l.union.len() > recent && 3 * l.core.len() > recent;
        l.eligible = l.passes >= MIN_PASSES && l.covers && l.alike && l.alive;
    }
    // Of levels with as many passes, the one with more members first: a branch taken in most
    // steps so far anchors passes that hold the step's loops once or twice, so its members are
    // few, while the step's own level holds them all once.
    levels.sort_by(|x, y| {
        (y.passes.cmp(&x.passes))
            .then(y.members.len().cmp(&x.members.len()))
            .then(x.anchor.cmp(&y.anchor))
    });
    levels
}

/// The occurrences of `inner` in each complete pass of the level anchored at `outer`: the
/// inner loop's trip counts, if it is one.
pub fn trips(trace: &[u32], outer: u32, inner: u32) -> Vec<u64> {
    let mut counts: Vec<u64> = Vec::new();
    let mut current: Option<u64> = None;
    for &l in trace {
        if l == outer {
            if let Some(c) = current {
                counts.push(c);
            }
            current = Some(0);
        }
        if l == inner {
            if let Some(c) = current.as_mut() {
                *c += 1;
            }
        }
    }
    counts
}

/// Most iterations of an inner loop whose trip count never varies that are taken for stages of
/// one time step (Runge-Kutta stages, a sub-stepping of two to four) rather than time steps of
/// a loop that runs every few of them (a monitor every five steps or more).
pub const MAX_STAGES: u64 = 4;

/// True when `outer`'s level encloses `inner`'s: `inner`'s iterations are an inner loop of the
/// iteration `outer` anchors, not time steps of which `outer` runs every so often. The trace
/// alone cannot always tell (an inner loop of fixed trip count three looks like a time step
/// with a monitor every three steps), so the rule follows how programs are written:
///
/// - `outer`'s anchor ran before `inner`'s first iteration (the time step's prefix ran before
///   its solver iterated; a rare loop or a branch of a time step first runs after the step's
///   loops did) and is no branch taken on fetched values ([`Trace::fetch_decided`]: a branch
///   at the top of the step taken every few steps), and `inner` iterates on data: its trip
///   counts vary, and it iterates at least twice in most passes of `outer` (the lower median
///   of its trip counts; a branch taken most of the time gives trip counts of one) or each of
///   its iterations ends with a value handed to the program ([`Trace::asks_each_iteration`]:
///   a solve that mostly converges at once); or its trip counts are the same small number, up
///   to [`MAX_STAGES`], with the iterations of each pass passing different global constants
///   ([`stages`]: Runge-Kutta stages and their coefficients; a time step with a loop every few
///   steps repeats its calls). A trip count that never varies is not enough with a value at
///   the end of each iteration: a time step that ends with a reduction, with a monitor every
///   few steps, asks as often;
/// - or, whatever ran first, `outer` runs [`Passes::outside`] `inner`'s iterations, where a
///   large part of the program runs only between them (by the strict sign unless `inner`
///   iterates on data), or `inner`'s iterations are [`items`] of `outer`'s.
///
/// Either way `inner` runs [`directly`] inside `outer`'s iterations, once per iteration.
/// `cache` builds the passes of `inner`'s level once for the several questions a selection asks.
pub fn encloses(t: Trace<'_>, inner: &Level, outer: &Level, cache: &mut PassCache<'_>) -> bool {
    let Some(counts) = inside_trips(t, inner, outer) else {
        return false;
    };
    let varies = counts.windows(2).any(|w| w[0] != w[1]);
    let mut sorted = counts.clone();
    sorted.sort_unstable();
    let iterates = sorted[(sorted.len() - 1) / 2] >= 2;
    let preceded =
        (t.first)(outer.anchor) < (t.first)(inner.anchor) && !t.fetch_decided(outer.anchor);
    let staged =
        || counts[0] <= MAX_STAGES && (stages(t, inner, outer.anchor) || spread(t, inner, outer));
    // A trip count that never varies, above a sub-cycle's few, of a loop that the outer
    // iteration's prefix starts afresh: a solver that converges in as many iterations every
    // step (a loop every few steps that overwrites some of their state looks the same when it
    // ran first, so a count up to [`MAX_STAGES`] is left to the rules above).
    let restarted = || counts[0] > MAX_STAGES && t.restarts(inner, outer.anchor);
    // Trip counts that vary, in iterations that each end with a value handed to the program,
    // are a loop iterating on data, even where it mostly stops after one.
    let driven = varies && (iterates || t.asks_each_iteration(inner));
    if preceded && (driven || (iterates && (staged() || restarted()))) {
        return true;
    }
    items(t, inner, outer.anchor) || cache.of(inner.anchor).outside(outer.anchor, !driven, t)
}

/// The passes of one level at a time ([`Passes`]), built once for the several questions one
/// selection asks of them.
pub struct PassCache<'a> {
    trace: &'a [u32],
    built: Option<(u32, Passes)>,
}

impl<'a> PassCache<'a> {
    /// Nothing built yet, for `trace`.
    pub fn new(trace: &'a [u32]) -> PassCache<'a> {
        PassCache { trace, built: None }
    }

    /// The passes of the level anchored at `anchor`.
    pub fn of(&mut self, anchor: u32) -> &Passes {
        if self.built.as_ref().map(|b| b.0) != Some(anchor) {
            self.built = Some((anchor, Passes::of(self.trace, anchor)));
        }
        &self.built.as_ref().expect("built above").1
    }
}

/// True when `inner`'s iterations are items of one iteration of `outer`, not iterations in
/// time: in every complete pass of `outer`, some iteration of `inner` is [`apart`] from the
/// one before it (a boundary helper run for one field, then for another; an update run block
/// by block). A loop that runs after the last item (the step's update) looks, by the trace of
/// locations alone, like a loop run every few steps.
pub fn items(t: Trace<'_>, inner: &Level, outer: u32) -> bool {
    if t.footprints.is_none() {
        return false;
    }
    let locs = t.locs;
    let anchor = inner.anchor;
    let next = |from: usize, l: u32| locs[from..].iter().position(|&x| x == l).map(|k| from + k);
    let Some(mut open) = next(0, outer) else {
        return false;
    };
    let mut seen = false;
    // Pass by pass, stopping at the first that holds no items: most levels tell at once.
    while let Some(close) = next(open + 1, outer) {
        // The iterations of `inner` opened in the pass, with the one after the last.
        let mut at: Vec<usize> = (open..close).filter(|&i| locs[i] == anchor).collect();
        let Some(&last) = at.last() else {
            return false;
        };
        match next(last + 1, anchor) {
            Some(after) => at.push(after),
            None => break, // the pass's last iteration is not complete yet
        }
        if !at
            .windows(3)
            .any(|w| apart(t, inner, w[0]..w[1], w[1]..w[2]))
        {
            return false;
        }
        seen = true;
        open = close;
    }
    seen
}

/// Passes of `level` read to tell whether it iterates over items ([`items_lately`]).
pub const ITEM_PASSES: usize = 4;

/// True when, of the latest [`ITEM_PASSES`] complete passes of `level`, one is [`apart`] from
/// the one before it: the level iterates over the items of a step (see [`items`]) and is no
/// time step, whether or not the step around it has recurred yet.
pub fn items_lately(t: Trace<'_>, level: &Level) -> bool {
    let at: Vec<usize> = (0..t.locs.len())
        .rev()
        .filter(|&i| t.locs[i] == level.anchor)
        .take(ITEM_PASSES + 1)
        .collect();
    // `at` runs backwards: at[k + 1] opens the pass before the one at[k] opens.
    (1..at.len().saturating_sub(1)).any(|k| apart(t, level, at[k + 1]..at[k], at[k]..at[k - 1]))
}

/// True when the loops of `level`'s members in the slots `next` read no dataset that the loops
/// in `prev` wrote, and `prev` wrote one: an iteration in time reads what the one before it
/// wrote; the items of one step need not. False without footprints.
fn apart(
    t: Trace<'_>,
    level: &Level,
    prev: std::ops::Range<usize>,
    next: std::ops::Range<usize>,
) -> bool {
    let Some(table) = t.footprints else {
        return false;
    };
    let written: Vec<u32> = prev
        .flat_map(|i| table.get(t.fps[i]).writes.iter().map(|w| w.0))
        .collect();
    // Most passes tell at their first read (an iteration in time reads what the one before
    // wrote): a plain scan.
    !written.is_empty()
        && next
            .filter(|&i| level.core.binary_search(&t.locs[i]).is_ok())
            .all(|i| {
                let reads = &table.get(t.fps[i]).reads;
                reads.iter().all(|r| !written.contains(&r.0))
            })
}

/// True when `inner`'s level runs inside every pass of `outer`'s, once per pass: it has more
/// passes, `outer` reaches it and it runs in every complete pass of `outer` ([`directly`]).
/// Whether it is an inner loop of `outer`'s iteration or `outer` a loop every few of its
/// iterations is for [`encloses`] to tell, or for what was decided before.
pub fn inside(t: Trace<'_>, inner: &Level, outer: &Level) -> bool {
    inside_trips(t, inner, outer).is_some()
}

/// [`inside`], with `inner`'s trip counts in `outer`'s complete passes when it holds.
fn inside_trips(t: Trace<'_>, inner: &Level, outer: &Level) -> Option<Vec<u64>> {
    if inner.passes <= outer.passes
        || !outer.reaches(inner.anchor)
        || inner.core.binary_search(&outer.anchor).is_ok()
    {
        return None;
    }
    let counts = trips(t.locs, outer.anchor, inner.anchor);
    (counts.len() >= MIN_PASSES && !counts.contains(&0) && directly(t.locs, inner, outer))
        .then_some(counts)
}

/// True when `inner`'s iterations run once per pass of `outer`, with nothing of `outer`'s
/// iteration between them: every pass of `inner` that holds a loop of `outer`'s core other
/// than `inner`'s (the rest of the outer iteration) holds `outer`'s anchor, or follows the
/// pass that does (a prefix that runs loops of `inner`'s, a helper the step and its solve
/// share, opens an iteration of `inner` before its own end). A level whose
/// passes hold several time steps (a loop every other step) holds the rest of the step
/// without its anchor in between.
pub fn directly(trace: &[u32], inner: &Level, outer: &Level) -> bool {
    // Loops of `inner`'s iterations: its core, and what runs in most of its passes (the pass
    // that a prefix running `inner`'s loops opens may lack some of them).
    // Counted only when a pass needs it (most levels pass without).
    let held = std::cell::OnceCell::new();
    let most = |x: u32| {
        let (held, passes): &(Vec<usize>, usize) = held.get_or_init(|| {
            let n = trace.iter().max().map_or(0, |&m| m as usize + 1);
            let (mut held, mut last, mut passes) = (vec![0; n], vec![usize::MAX; n], 0);
            for &l in trace {
                if l == inner.anchor {
                    passes += 1;
                }
                if passes > 0 && last[l as usize] != passes {
                    last[l as usize] = passes;
                    held[l as usize] += 1;
                }
            }
            (held, passes)
        });
        2 * held[x as usize] > *passes
    };
    // Loops that recur every k iterations of `inner` within an outer pass, the same k every
    // time (a convergence test every fourth sweep): a sub-cycle of its iterations, which the
    // rest of an outer iteration, run once per outer iteration, is not.
    let cycles = std::cell::OnceCell::new();
    let periodic =
        |x: u32| cycles.get_or_init(|| sub_cycles(trace, inner.anchor, outer.anchor))[x as usize];
    let rest = |l: u32| {
        outer.core.binary_search(&l).is_ok()
            && inner.core.binary_search(&l).is_err()
            && !most(l)
            && !periodic(l)
    };
    let mut from: Option<usize> = None;
    // Whether the previous pass held `outer`'s anchor: the pass after it may still hold the
    // end of the outer iteration's prefix, when the prefix runs loops of `inner`'s (a helper
    // the step and its solve share).
    let mut after_anchor = false;
    for (i, &l) in trace.iter().enumerate() {
        if l != inner.anchor {
            continue;
        }
        match from {
            Some(f) => {
                let pass = &trace[f..i];
                let holds = pass.contains(&outer.anchor);
                if !holds && !after_anchor && pass.iter().any(|&x| rest(x)) {
                    return false;
                }
                after_anchor = holds;
            }
            // Before the first pass, as in one.
            None => after_anchor = trace[..i].contains(&outer.anchor),
        }
        from = Some(i);
    }
    true
}

/// Per location of `trace`: true when, within the passes of the level anchored at `outer`, it
/// recurs every k occurrences of `anchor`, the same k (at least one) each time, seen at least
/// twice (a sub-cycle counted afresh in each outer pass: a convergence test every fourth
/// sweep, a residual recomputed every fifth iteration of a solve).
fn sub_cycles(trace: &[u32], anchor: u32, outer: u32) -> Vec<bool> {
    let n = trace.iter().max().map_or(0, |&m| m as usize + 1);
    // Per location: the outer pass and the count of anchors at its last occurrence, the gap
    // in anchors (0: none yet, u64::MAX: gaps differ), gaps seen.
    let (mut pass_at, mut at) = (vec![u64::MAX; n], vec![0u64; n]);
    let (mut gap, mut gaps) = (vec![0u64; n], vec![0usize; n]);
    let (mut passes, mut anchors) = (0u64, 0u64);
    for &l in trace {
        passes += u64::from(l == outer);
        anchors += u64::from(l == anchor);
        let x = l as usize;
        if pass_at[x] == passes {
            let k = anchors - at[x];
            gap[x] = match gap[x] {
                _ if k == 0 => u64::MAX, // twice in one iteration
                0 => k,
                g if g == k => g,
                _ => u64::MAX,
            };
            gaps[x] += 1;
        }
        pass_at[x] = passes;
        at[x] = anchors;
    }
    (0..n).map(|x| gaps[x] >= 2 && gap[x] != u64::MAX).collect()
}

/// True when, in every complete pass of the level anchored at `outer`, the iterations of
/// `inner` differ in the global constants their loops pass: some loop that runs once per
/// iteration (a member of `inner`) passes other values in one iteration than in another.
/// Stages of one step pass each stage's coefficients; a time step with a loop every few steps
/// repeats its calls.
pub fn stages(t: Trace<'_>, inner: &Level, outer: u32) -> bool {
    let at: Vec<usize> = (0..t.locs.len()).filter(|&i| t.locs[i] == outer).collect();
    if at.len() < 2 {
        return false;
    }
    let tag = |i: usize| t.tags.get(i).copied().unwrap_or(0);
    at.windows(2).all(|w| {
        inner.members.iter().any(|&m| {
            let mut tags = (w[0]..w[1]).filter(|&i| t.locs[i] == m).map(tag);
            let first = tags.next();
            tags.any(|x| Some(x) != first)
        })
    })
}

/// True when, in every complete pass of `outer`, two or more iterations of `inner` hold a loop
/// of `outer`'s members: the iterations are parts of one outer iteration that run different
/// loops (a split step's sweep along x, then along y, each followed by the same boundary
/// loops), not repetitions of one body. Repetitions hold the outer iteration's own loops in one
/// iteration only, the one its prefix and suffix run in (or, for a loop of a solve's first
/// iteration only, in the first too: that solve is enclosed by the step all the same).
pub fn spread(t: Trace<'_>, inner: &Level, outer: &Level) -> bool {
    let member = |l: u32| l != inner.anchor && outer.members.contains(&l);
    let mut passes = 0;
    // Iterations of `inner` that ended in the current pass of `outer` holding an outer member
    // (the iteration around the outer anchor holds the prefix and the suffix: one).
    let mut holding = 0;
    let mut current = false;
    let mut open = false;
    for &l in t.locs {
        if l == inner.anchor {
            holding += usize::from(current);
            current = false;
        } else if member(l) {
            current = true;
        }
        if l == outer.anchor {
            if open {
                if holding < 2 {
                    return false;
                }
                passes += 1;
            }
            open = true;
            holding = 0;
        }
    }
    passes >= 1
}

/// The complete passes of the level anchored at one location (from one occurrence to the
/// next), each with its length and the set of locations it ran: what [`Passes::outside`]
/// reads, built once for every location asked about.
pub struct Passes {
    words: usize,
    /// Where each pass starts (slot).
    starts: Vec<usize>,
    lens: Vec<usize>,
    /// `words` bits per pass, by location id.
    sets: Vec<u64>,
}

impl Passes {
    /// The passes of `trace` anchored at `inner`.
    pub fn of(trace: &[u32], inner: u32) -> Passes {
        let words = trace.iter().max().map_or(0, |&m| m as usize / 64 + 1);
        let mut p = Passes {
            words,
            starts: Vec::new(),
            lens: Vec::new(),
            sets: Vec::new(),
        };
        let mut pass = vec![0u64; words];
        let mut from: Option<usize> = None;
        for (i, &l) in trace.iter().enumerate() {
            if l == inner {
                if let Some(f) = from {
                    p.starts.push(f);
                    p.lens.push(i - f);
                    p.sets.extend_from_slice(&pass);
                    pass.fill(0);
                }
                from = Some(i);
            }
            if from.is_some() {
                pass[l as usize / 64] |= 1 << (l % 64);
            }
        }
        p
    }

    /// True when `outer` runs outside the iterations of this level, where the
    /// program has left an inner loop for the rest of its time step. Two signs, both needed: the
    /// passes of the inner level that hold `outer` are all half again as long as its usual pass
    /// without it, and the loops that run only in those passes (the rest of the step) number at
    /// least half the loops of the passes without it (the inner loop's body). A branch or a
    /// periodic loop of the time step adds a loop or two to passes that run the whole step: the
    /// first sign alone takes a branch taken in steps whose solver happened to iterate longer for
    /// one, the second alone a branch not taken in only a few steps so far. When the trip count
    /// does not vary or is mostly one (`strict`), the grouping could as well be a periodic loop
    /// or a branch of the step, so the rest must then be twice as long and hold as many loops as
    /// the body. Either way the rest must carry the state on ([`Trace::carries`]): a monitor only
    /// looks at it, an ensemble's next member starts afresh.
    /// `t` is the trace the passes are of ([`Trace::carries`] reads its footprints).
    pub fn outside(&self, outer: u32, strict: bool, t: Trace<'_>) -> bool {
        let (ow, ob) = (outer as usize / 64, 1u64 << (outer % 64));
        if ow >= self.words {
            return false;
        }
        let mut with = vec![0u64; self.words];
        let mut without = vec![0u64; self.words];
        let (mut with_lens, mut without_lens) = (Vec::new(), Vec::new());
        for (len, set) in self.lens.iter().zip(self.sets.chunks_exact(self.words)) {
            let (into, lens) = if set[ow] & ob != 0 {
                (&mut with, &mut with_lens)
            } else {
                (&mut without, &mut without_lens)
            };
            for (x, s) in into.iter_mut().zip(set) {
                *x |= s;
            }
            lens.push(*len);
        }
        if with_lens.is_empty() || without_lens.is_empty() {
            return false;
        }
        without_lens.sort_unstable();
        let usual = without_lens[without_lens.len() / 2];
        let rest: Vec<u64> = with.iter().zip(&without).map(|(a, b)| a & !b).collect();
        let ones = |v: &[u64]| v.iter().map(|x| x.count_ones() as usize).sum::<usize>();
        let (only_with, without) = (ones(&rest), ones(&without));
        let long = if strict {
            with_lens.iter().all(|&len| len >= 2 * usual) && only_with >= without
        } else {
            with_lens.iter().all(|&len| 2 * len >= 3 * usual) && 2 * only_with >= without
        };
        // The rest of a time step carries on the state its inner loop iterates on: loops that
        // write nothing only look at it (a monitor every ten steps of a one-loop step makes its
        // passes twice as long), and loops that overwrite all of it first start afresh (an
        // ensemble's next member). Read in the first pass holding `outer` and the one before.
        let is_rest = |x: u32| {
            let (w, b) = (x as usize / 64, 1u64 << (x % 64));
            rest.get(w).is_some_and(|r| r & b != 0)
        };
        long && {
            // A fresh start every few iterations, up to [`MAX_STAGES`] (before the first of them
            // too), is taken for stages of one step whose work the rest overwrites, not for
            // members of an ensemble.
            let mut holding = (self.sets.chunks_exact(self.words))
                .enumerate()
                .filter(|(_, set)| set[ow] & ob != 0)
                .map(|(k, _)| k);
            let k = holding.next().expect("a pass holds it");
            let mut prev = k;
            // Read no further than the first gap that tells.
            let afresh = k as u64 > MAX_STAGES
                || holding.any(|h| {
                    let gap = h - prev;
                    prev = h;
                    gap as u64 > MAX_STAGES
                });
            let from = self.starts[k.saturating_sub(1)];
            t.carries(&is_rest, from..self.starts[k] + self.lens[k], afresh)
        }
    }
}

/// The outermost eligible level reached from `inner` by moving out, level by level, to an
/// eligible level that [`encloses`] the current one.
pub fn enclosing<'a>(
    levels: &'a [Level],
    t: Trace<'_>,
    inner: &'a Level,
    cache: &mut PassCache<'_>,
) -> &'a Level {
    let mut cur = inner;
    for c in levels.iter().filter(|l| l.eligible) {
        if encloses(t, cur, c, cache) {
            cur = c;
        }
    }
    cur
}

/// Complete passes of the enclosing level after which an undecided suspect ([`select`]) no
/// longer holds the decision back: enough to see whether an inner loop's trip count varies.
pub const SUSPECT_PASSES: usize = 3;

/// What [`select`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Selection<'a> {
    /// No level is eligible yet.
    Nothing,
    /// The outer iteration, unless the program shows otherwise later.
    Level(&'a Level),
    /// A level, but a location that ran before its first pass recurs between its iterations
    /// and may anchor an enclosing iteration that has not repeated often enough to tell, or a
    /// pass of it held locations that have not recurred yet ([`stranger`]).
    Wait(&'a Level, Doubt),
}

/// Why [`select`] waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Doubt {
    /// Loops it takes to tell (a suspect's longest gap, or what a stranger's pass needs).
    pub gap: u64,
    /// A suspect runs outside the level's iterations ([`Passes::outside`]): a large part of the
    /// program runs between them, so the level is likely an inner loop, and checkpoints
    /// counted in its passes would come far too often.
    pub grave: bool,
    /// The suspect that paces checkpoints counted in passes meanwhile: one whose doubt is
    /// grave, or any while the level's iterations each end with a value handed to the program
    /// (an inner solve's convergence test); the rarest if several. Counted in its passes, the
    /// checkpoints of an inner loop come once per iteration of what encloses it.
    pub pace: Option<u32>,
}

/// A location that ran before `level`'s first pass, or that runs [`Passes::outside`] its
/// iterations, recurs between its iterations, still recurs (the trace ends less than twice its
/// longest gap after its last occurrence), and anchors a level with fewer than
/// [`SUSPECT_PASSES`] passes:
/// the prefix of a time step around an inner loop, whose level has not repeated often enough
/// to tell ([`encloses`]). `Some` when there is one, with its longest gap (what it takes to see
/// it recur).
/// `seen` indexes `t`'s locations.
pub fn suspect(
    levels: &[Level],
    t: Trace<'_>,
    level: &Level,
    seen: &Seen,
    cache: &mut PassCache<'_>,
) -> Option<Doubt> {
    let (trace, first) = (t.locs, t.first);
    let start = first(level.anchor);
    let mut doubt: Option<Doubt> = None;
    let mut asks: Option<bool> = None;
    let mut pace_gap = 0;
    for &x in &level.union {
        // Still recurring: the trace ends less than twice its longest gap after its last
        // occurrence.
        let gap = seen.gap[x as usize];
        if gap == 0
            || trace.len() - seen.last[x as usize] > 2 * gap
            || level.core.binary_search(&x).is_ok()
            || levels
                .iter()
                .any(|l| l.members.contains(&x) && l.passes >= SUSPECT_PASSES)
        {
            continue;
        }
        let grave = cache.of(level.anchor).outside(x, false, t);
        if !grave && first(x) >= start {
            continue;
        }
        let d = doubt.get_or_insert(Doubt {
            gap: gap as u64,
            grave,
            pace: None,
        });
        d.gap = d.gap.max(gap as u64);
        d.grave |= grave;
        let paces = grave || *asks.get_or_insert_with(|| t.asks_each_iteration(level));
        if paces && gap > pace_gap {
            d.pace = Some(x);
            pace_gap = gap;
        }
    }
    doubt
}

/// Where each location of a trace occurs: first, last, and the longest gap between two
/// occurrences (0 for a location seen once or never), by location id.
pub struct Seen {
    first: Vec<usize>,
    last: Vec<usize>,
    gap: Vec<usize>,
}

impl Seen {
    /// The index of `trace`.
    pub fn of(trace: &[u32]) -> Seen {
        let n = trace.iter().max().map_or(0, |&m| m as usize + 1);
        let mut seen = Seen {
            first: vec![usize::MAX; n],
            last: vec![0; n],
            gap: vec![0; n],
        };
        for (i, &l) in trace.iter().enumerate() {
            let l = l as usize;
            if seen.first[l] == usize::MAX {
                seen.first[l] = i;
            } else {
                seen.gap[l] = seen.gap[l].max(i - seen.last[l]);
            }
            seen.last[l] = i;
        }
        seen
    }
}

/// Loops still to come before `level`'s passes can tell whether locations that ran in one of
/// its passes only, and not since, were a rare part of it or the rest of an enclosing
/// iteration: an inner loop that opens a time step has the rest of the step in one long pass,
/// which recurs within about that pass's length if the level is no time step. `Some` while
/// the trace after such a pass is shorter than the pass.
/// `seen` indexes `t`'s locations.
pub fn stranger(t: &[u32], level: &Level, seen: &Seen) -> Option<u64> {
    let anchors: Vec<usize> = (0..t.len()).filter(|&i| t[i] == level.anchor).collect();
    let mut wait = None;
    for pass in anchors.windows(2) {
        let (open, close) = (pass[0], pass[1]);
        let alone = t[open..close].iter().any(|&x| {
            let x = x as usize;
            seen.first[x] >= open
                && seen.last[x] < close
                && level.core.binary_search(&(x as u32)).is_err()
        });
        let since = (t.len() - close) as u64;
        let length = (close - open) as u64;
        if alone && since < length {
            wait = wait.max(Some(length - since));
        }
    }
    wait
}

/// Which level is the outer iteration: the finest eligible level, moved out to the levels
/// that enclose it ([`enclosing`]); rare, periodic and conditional loops are part of its pass.
/// While a [`suspect`] may still turn out to enclose it, or a [`stranger`] has yet to show
/// whether it does, the answer is to wait.
pub fn select<'a>(levels: &'a [Level], t: Trace<'_>) -> Selection<'a> {
    let Some(finest) = levels.iter().find(|l| l.eligible) else {
        return Selection::Nothing;
    };
    let mut cache = PassCache::new(t.locs);
    let cur = enclosing(levels, t, finest, &mut cache);
    if items_lately(t, cur) {
        // The items of a step whose pass has yet to recur as often as a level needs.
        return Selection::Wait(
            cur,
            Doubt {
                gap: cur.max_pass,
                grave: false,
                pace: None,
            },
        );
    }
    let seen = Seen::of(t.locs);
    let stranger = stranger(t.locs, cur, &seen).map(|gap| Doubt {
        gap,
        grave: false,
        pace: None,
    });
    match (suspect(levels, t, cur, &seen, &mut cache), stranger) {
        (Some(a), Some(b)) => Selection::Wait(
            cur,
            Doubt {
                gap: a.gap.max(b.gap),
                ..a
            },
        ),
        (Some(d), None) | (None, Some(d)) => Selection::Wait(cur, d),
        (None, None) => Selection::Level(cur),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Passes::outside`] of the level anchored at `inner`.
    fn outside(t: Trace<'_>, inner: u32, outer: u32, strict: bool) -> bool {
        Passes::of(t.locs, inner).outside(outer, strict, t)
    }

    /// [`super::encloses`], passes built afresh.
    fn encloses(t: Trace<'_>, inner: &Level, outer: &Level) -> bool {
        super::encloses(t, inner, outer, &mut PassCache::new(t.locs))
    }

    /// [`super::enclosing`], passes built afresh.
    fn enclosing<'a>(levels: &'a [Level], t: Trace<'_>, inner: &'a Level) -> &'a Level {
        super::enclosing(levels, t, inner, &mut PassCache::new(t.locs))
    }

    /// A trace from a string of single-letter locations (a = 0, b = 1, ...).
    fn t(s: &str) -> Vec<u32> {
        s.bytes()
            .filter(u8::is_ascii_lowercase)
            .map(|c| (c - b'a') as u32)
            .collect()
    }

    fn id(c: char) -> u32 {
        (c as u8 - b'a') as u32
    }

    /// First occurrences in `tr`.
    fn firsts(tr: &[u32]) -> impl Fn(u32) -> u64 + '_ {
        move |l| {
            tr.iter()
                .position(|&x| x == l)
                .map_or(u64::MAX, |p| p as u64)
        }
    }

    /// `tr` as the analysis reads it, with no global constants.
    fn view<'a>(tr: &'a [u32], first: &'a dyn Fn(u32) -> u64) -> Trace<'a> {
        Trace {
            locs: tr,
            tags: &[],
            fetches: &[],
            values: &[],
            first,
            fps: &[],
            footprints: None,
        }
    }

    fn level_of(levels: &[Level], anchor: char) -> &Level {
        levels
            .iter()
            .find(|l| l.members.contains(&id(anchor)))
            .unwrap_or_else(|| panic!("no level with member {anchor}: {levels:?}"))
    }

    /// The level [`select`] settles on, with its answer's kind.
    fn chosen<'a>(levels: &'a [Level], tr: &[u32]) -> (&'a Level, bool) {
        let first = firsts(tr);
        match select(levels, view(tr, &first)) {
            Selection::Level(l) => (l, false),
            Selection::Wait(l, _) => (l, true),
            Selection::Nothing => panic!("nothing selected: {levels:?}"),
        }
    }

    #[test]
    fn an_explicit_time_loop_is_one_level_of_all_its_loops() {
        // Start-up x y, then the step p q r four times.
        let tr = t("xy pqr pqr pqr pqr");
        let levels = analyse(&tr);
        let l = level_of(&levels, 'p');
        assert_eq!(l.members, t("pqr"));
        assert_eq!(l.passes, 3);
        assert!(l.eligible);
        assert_eq!(l.max_pass, 3);
        assert_eq!(chosen(&levels, &tr), (l, false));
    }

    #[test]
    fn a_solve_at_start_up_is_a_finished_phase_not_part_of_the_time_loop() {
        // Start-up w x y, a solve of sweeps j k l run twenty times, then steps p q with a
        // total t every other step.
        let solve = "jkl".repeat(20);
        let tr = t(&format!("wxy {solve} pqt pq pqt pq pqt pq"));
        let levels = analyse(&tr);
        assert!(!level_of(&levels, 'j').alive);
        // The solve's loops, last seen before the steps began, do not count against them.
        let l = level_of(&levels, 'p');
        assert!(l.covers && l.eligible, "{l:?}");
        assert_eq!(chosen(&levels, &tr).0, l);
        // A solve that runs again is no finished phase: its loops count.
        let tr = t(&format!("wxy {solve} pqt pq pqt pq pqt pq jkl pq"));
        let levels = analyse(&tr);
        let l = level_of(&levels, 'p');
        assert!(!l.covers, "{l:?}");
    }

    #[test]
    fn a_split_step_s_sweeps_each_followed_by_the_same_boundary_loops_are_its_parts() {
        // Step: p, then sweep a (x) or b (y), boundary loops s t u v, the other sweep, s t u v
        // again; the sweeps' order alternates from step to step.
        let tr = t("z pastuvbstuv pbstuvastuv pastuvbstuv pbstuvastuv pastuvbstuv");
        let first = firsts(&tr);
        let v = view(&tr, &first);
        let levels = analyse(&tr);
        let (step, sides) = (level_of(&levels, 'p'), level_of(&levels, 's'));
        assert_eq!(step.members, t("pba"), "{levels:?}");
        assert!(spread(v, sides, step));
        assert!(encloses(v, sides, step));
        assert_eq!(chosen(&levels, &tr).0, step);
        // A sub-cycle repeats one body: only the iteration around the step's prefix and suffix
        // holds the step's loops.
        let tr = t("z pxyxyxyq pxyxyxyq pxyxyxyq pxyxyxyq");
        let first = firsts(&tr);
        let levels = analyse(&tr);
        let (step, sub) = (level_of(&levels, 'p'), level_of(&levels, 'x'));
        assert!(!spread(view(&tr, &first), sub, step));
    }

    #[test]
    fn an_inner_loop_is_a_finer_level_inside_the_step() {
        // Step: s, an inner loop j k run a varying number of times, then q.
        let tr = t("x sjkjkq sjkjkjkq sjkq sjkjkq");
        let levels = analyse(&tr);
        let step = level_of(&levels, 's');
        assert_eq!(step.members, t("sq"));
        assert_eq!(step.core, t("jkqs"));
        assert!(step.eligible);
        let inner = level_of(&levels, 'j');
        assert!(inner.passes > step.passes);
        assert!(encloses(view(&tr, &firsts(&tr)), inner, step));
        assert_eq!(chosen(&levels, &tr).0.anchor, step.anchor);
    }

    #[test]
    fn an_iterative_solve_with_a_short_rest_of_step_is_enclosed_by_it() {
        // A solve of six loops iterating 5 to 9 times, the rest of the step two loops (a
        // prefix s and a suffix q): the passes holding the rest are barely longer, yet the
        // step's prefix ran before the solve first iterated.
        let body = "jklmno";
        let mut s = String::from("x");
        for n in [9, 7, 6, 6, 5] {
            s.push('s');
            for _ in 0..n {
                s.push_str(body);
            }
            s.push('q');
        }
        let tr = t(&s);
        let levels = analyse(&tr);
        let (step, inner) = (level_of(&levels, 's'), level_of(&levels, 'j'));
        assert!(!outside(
            view(&tr, &firsts(&tr)),
            inner.anchor,
            step.anchor,
            false
        ));
        assert!(encloses(view(&tr, &firsts(&tr)), inner, step));
        assert_eq!(chosen(&levels, &tr), (step, false));
    }

    #[test]
    fn during_the_first_inner_burst_its_iterations_are_all_that_recurs() {
        // Start-up a b c d, the step's prefix s, then the first solve's iterations: nothing
        // tells them from a time loop yet (the step replaces them once it repeats).
        let tr = t("abcd s jk jk jk jk jk jk");
        let levels = analyse(&tr);
        let (l, wait) = chosen(&levels, &tr);
        assert_eq!((l.anchor, wait), (id('j'), false));
    }

    #[test]
    fn a_prefix_recurring_between_iterations_holds_the_decision_back_until_it_can_tell() {
        // A solve iterating 8 times per step, its step's prefix r has run twice: the same trip
        // count twice could be a periodic loop every 8 steps; a third step tells.
        let mut s = String::from("x");
        for n in [8, 8] {
            s.push('r');
            for _ in 0..n {
                s.push_str("abcd");
            }
        }
        s.push_str("rabcd");
        let tr = t(&s);
        let levels = analyse(&tr);
        let (l, wait) = chosen(&levels, &tr);
        assert_eq!((l.anchor, wait), (id('a'), true), "{levels:?}");
        // The third step's solve iterates 7 times: an iterative solve.
        for _ in 0..6 {
            s.push_str("abcd");
        }
        s.push_str("rabcd");
        let tr = t(&s);
        let levels = analyse(&tr);
        let (l, wait) = chosen(&levels, &tr);
        assert_eq!((l.anchor, wait), (id('r'), false), "{levels:?}");
    }

    #[test]
    fn runge_kutta_stages_are_enclosed_by_their_step() {
        // Save a b, then three stages h r u of the same loops, every step; the update u passes
        // each stage's coefficients.
        let tr = t("x abhruhruhru abhruhruhru abhruhruhru abhruhruhru");
        let mut stage = 0;
        let tags: Vec<u64> = tr
            .iter()
            .map(|&l| match l {
                20 => {
                    stage = stage % 3 + 1;
                    stage
                }
                _ => 0,
            })
            .collect();
        let first = firsts(&tr);
        let staged = Trace {
            locs: &tr,
            tags: &tags,
            fetches: &[],
            values: &[],
            first: &first,
            fps: &[],
            footprints: None,
        };
        let levels = analyse(&tr);
        let (step, stage) = (level_of(&levels, 'a'), level_of(&levels, 'h'));
        assert!(stage.eligible && step.eligible);
        assert!(stages(staged, stage, step.anchor));
        assert!(encloses(staged, stage, step));
        assert_eq!(enclosing(&levels, staged, stage).anchor, step.anchor);
        // The same trace with the same calls in every iteration: a time step whose first loops
        // run every third step (a sub-cycle), the iterations of h r u its passes.
        assert!(!stages(view(&tr, &first), stage, step.anchor));
        assert!(!encloses(view(&tr, &first), stage, step));
    }

    #[test]
    fn a_rare_loop_stays_inside_the_pass() {
        // Monitor m every third step: a periodic enclosure.
        let tr = t("x pqr pqr pqrm pqr pqr pqrm pqr pqr pqrm pqr pqr pqrm");
        let levels = analyse(&tr);
        let step = level_of(&levels, 'p');
        let monitor = level_of(&levels, 'm');
        assert!(step.eligible && monitor.eligible);
        assert!(!encloses(view(&tr, &firsts(&tr)), step, monitor));
        assert_eq!(chosen(&levels, &tr).0.anchor, step.anchor);
    }

    #[test]
    fn an_inner_loop_opening_the_step_waits_a_pass_for_the_rest_of_the_step() {
        // The solve a b c d opens the step, iterating once in the first step and then more: its
        // first pass holds the rest of the step (s, a smoother e f run four times, u), which
        // runs nowhere else yet.
        let tr = t("x abcd s efefefef u abcd abcd a");
        let levels = analyse(&tr);
        let solve = level_of(&levels, 'a');
        assert!(solve.eligible, "{levels:?}");
        // That pass is 14 loops long and 9 have run since: 5 more to tell.
        assert_eq!(stranger(&tr, solve, &Seen::of(&tr)), Some(5));
        assert!(matches!(chosen(&levels, &tr), (l, true) if l.anchor == id('a')));
        // A pass's length later the rest of the step has not come back: the solve's passes
        // are the program's iterations as far as the trace can tell.
        let tr = t("x abcd s efefefef u abcd abcd abcd abcd a");
        assert_eq!(
            stranger(&tr, level_of(&analyse(&tr), 'a'), &Seen::of(&tr)),
            None
        );
        // Had the rest of the step come back, it would recur between the iterations: no
        // stranger (the suspect rule takes it from there).
        let tr = t("x abcd s efefefef u abcd abcd s efef u a");
        assert_eq!(
            stranger(&tr, level_of(&analyse(&tr), 'a'), &Seen::of(&tr)),
            None
        );
    }

    #[test]
    fn a_step_ending_in_a_reduction_with_a_monitor_every_third_step_is_the_outer_iteration() {
        // The step p q r ends with a reduction (a time step for the next step), and a monitor
        // m runs before the loop and after every third step: every step "asks" before the next
        // begins, like an inner solve, but the monitor's three steps are no iterations of one.
        let tr = t("m pqr pqr pqrm pqr pqr pqrm pqr pqr pqrm pqr pqr pqrm");
        let values: Vec<u32> = (0..tr.len() as u32)
            .filter(|&s| tr[s as usize] == id('r'))
            .collect();
        let first = firsts(&tr);
        let asking = Trace {
            locs: &tr,
            tags: &[],
            fetches: &[],
            values: &values,
            first: &first,
            fps: &[],
            footprints: None,
        };
        let levels = analyse(&tr);
        let (step, monitor) = (level_of(&levels, 'p'), level_of(&levels, 'm'));
        assert!(asking.asks_each_iteration(step));
        assert!(!encloses(asking, step, monitor));
        match select(&levels, asking) {
            Selection::Level(l) | Selection::Wait(l, _) => assert_eq!(l.anchor, step.anchor),
            Selection::Nothing => panic!("nothing selected"),
        }
    }

    #[test]
    fn a_monitor_at_the_top_of_every_tenth_step_stays_inside_the_pass() {
        let mut s = String::from("x");
        for step in 0..35 {
            if step % 10 == 0 {
                s.push('m');
            }
            s.push_str("pqr");
        }
        // Four steps in, the monitor has run once: the step is the outer iteration.
        let tr = t(&s[..1 + 1 + 12]);
        let levels = analyse(&tr);
        assert_eq!(chosen(&levels, &tr), (level_of(&levels, 'p'), false));
        // Twice ten steps apart, it may be the prefix of a step with a solve iterating ten
        // times (a third pass tells whether the count varies); three times, it is a monitor.
        let tr = t(&s[..1 + 2 + 20 * 3 + 3]);
        let levels = analyse(&tr);
        assert!(matches!(
            select(&levels, view(&tr, &firsts(&tr))),
            Selection::Wait(..)
        ));
        let tr = t(&s);
        let levels = analyse(&tr);
        let (step, monitor) = (level_of(&levels, 'p'), level_of(&levels, 'm'));
        assert!(monitor.eligible);
        assert!(!encloses(view(&tr, &firsts(&tr)), step, monitor));
        assert_eq!(chosen(&levels, &tr), (step, false));
    }

    #[test]
    fn a_branch_at_the_top_of_the_step_taken_most_of_the_time_is_no_enclosure() {
        // b runs first in two steps of three: between its runs the step runs once or twice.
        let mut s = String::from("x");
        for step in 0..24 {
            if step % 3 != 2 {
                s.push('b');
            }
            s.push_str("pqr");
        }
        let tr = t(&s);
        let levels = analyse(&tr);
        let step = level_of(&levels, 'p');
        assert_eq!(chosen(&levels, &tr).0.anchor, step.anchor, "{levels:?}");
    }

    #[test]
    fn a_location_called_twice_per_step_is_no_iteration() {
        // h runs in both halves of the step: its passes alternate between the halves.
        let tr = t("x habc hdefg habc hdefg habc hdefg habc hdefg");
        let levels = analyse(&tr);
        let h = levels.iter().find(|l| l.anchor == 7).unwrap();
        assert!(!h.eligible, "{h:?}");
        let step = level_of(&levels, 'a');
        assert!(step.eligible);
        assert!(step.members.contains(&3) && !step.members.contains(&7));
    }

    #[test]
    fn a_test_every_few_iterations_of_a_solve_is_part_of_its_iterations() {
        // Step: s, then sweeps j k with a convergence test c after every second sweep, 6 to 10
        // sweeps (the trip count comes from the test). c runs in half the sweeps' passes, not
        // most, and in none holding s: without the sub-cycle rule it reads as the rest of an
        // outer iteration between them, and the step encloses nothing.
        let mut s = String::from("x");
        for n in [10, 8, 8, 6, 10] {
            s.push('s');
            for i in 1..=n {
                s.push_str(if i % 2 == 0 { "jkc" } else { "jk" });
            }
        }
        let tr = t(&s);
        let levels = analyse(&tr);
        let (step, inner) = (level_of(&levels, 's'), level_of(&levels, 'j'));
        assert!(directly(&tr, inner, step));
        assert!(encloses(view(&tr, &firsts(&tr)), inner, step));
        assert_eq!(chosen(&levels, &tr).0.anchor, step.anchor);
        // A rest of the step that runs once per step, between trip counts that vary, is no
        // sub-cycle: the level anchored at r, every other step, holds it between the sweeps.
        let mut s = String::from("x");
        for (k, n) in [3, 5, 2, 4, 3, 6].into_iter().enumerate() {
            if k % 2 == 0 {
                s.push('r');
            }
            s.push('s');
            s.push_str(&"jk".repeat(n));
        }
        let tr = t(&s);
        let levels = analyse(&tr);
        let (rare, inner) = (level_of(&levels, 'r'), level_of(&levels, 'j'));
        assert!(!directly(&tr, inner, rare));
    }

    #[test]
    fn an_inner_loop_iterating_the_same_number_of_times_stays_inside_the_step() {
        // The inner loop j k runs twice in every step (fixed stages, or a solver that always
        // takes two iterations): the step s ... q encloses it, as it would a varying one.
        let tr = t("x sjkjkq sjkjkq sjkjkq sjkjkq sjkjkq");
        let levels = analyse(&tr);
        let inner = level_of(&levels, 'j');
        let step = level_of(&levels, 's');
        assert!(inner.eligible && step.eligible && inner.passes > step.passes);
        assert_eq!(chosen(&levels, &tr).0.anchor, step.anchor);
    }

    #[test]
    fn a_monitor_of_a_one_loop_step_is_no_rest_of_an_enclosing_step() {
        // A step of one loop r (writing), a monitor m (a reduction, writing nothing) every
        // four steps: the passes holding m are twice as long and m is as many loops as the
        // step, so by lengths alone r looks like an inner loop of four iterations.
        let tr = t("x rrrrm rrrrm rrrrm rrrrm rr");
        let mut table = crate::learn::trace::Footprints::default();
        let fp = |writes: Vec<(u32, crate::boxes::Bx)>| {
            std::sync::Arc::new(crate::track::Footprint {
                reads: vec![(0, crate::boxes::Bx::new([0, 0, 0], [4, 4, 1]))],
                writes,
            })
        };
        let (writer, looker) = (
            fp(vec![(1, crate::boxes::Bx::new([0, 0, 0], [4, 4, 1]))]),
            fp(Vec::new()),
        );
        let fps: Vec<u32> = tr
            .iter()
            .map(|&l| table.id(l, if l == id('m') { &looker } else { &writer }))
            .collect();
        let first = firsts(&tr);
        let bare = view(&tr, &first);
        let seen = Trace {
            fps: &fps,
            footprints: Some(&table),
            ..bare
        };
        let levels = analyse(&tr);
        let (step, monitor) = (level_of(&levels, 'r'), id('m'));
        assert!(outside(bare, step.anchor, monitor, true), "lengths alone");
        assert!(!seen.carries(&|x| x == monitor, 0..tr.len(), true));
        assert!(!outside(seen, step.anchor, monitor, true));
        assert!(!outside(seen, step.anchor, monitor, false));
    }

    #[test]
    fn a_solve_of_as_many_iterations_every_step_is_restarted_by_the_step() {
        // Step: s sets up the residual r (dataset 1) from the solution u (0); the solve's
        // iterations a b c read and update r and u, six every step. With s reading r first (a
        // filter every six steps of a step a b c), nothing is restarted.
        let tr = t("x sabcabcabcabcabcabc sabcabcabcabcabcabc sabcabcabcabcabcabc sabc");
        let bx = crate::boxes::Bx::new([0, 0, 0], [4, 4, 1]);
        let fp = |reads: &[u32], writes: &[u32]| {
            std::sync::Arc::new(crate::track::Footprint {
                reads: reads.iter().map(|&d| (d, bx)).collect(),
                writes: writes.iter().map(|&d| (d, bx)).collect(),
            })
        };
        let (setup, filter) = (fp(&[0], &[1]), fp(&[0, 1], &[1]));
        let (a, b, c) = (fp(&[1], &[2]), fp(&[2, 1], &[1]), fp(&[1, 0], &[0]));
        // Each loop's footprint by its letter, `x` taking c's.
        let footprints = |tr: &[u32], of: &dyn Fn(char) -> _| {
            let mut table = crate::learn::trace::Footprints::default();
            let fps: Vec<u32> = tr
                .iter()
                .map(|&l| table.id(l, of((l as u8 + b'a') as char)))
                .collect();
            (table, fps)
        };
        let first = firsts(&tr);
        let levels = analyse(&tr);
        let (step, inner) = (level_of(&levels, 's'), level_of(&levels, 'a'));
        for (s_fp, restarted) in [(&setup, true), (&filter, false)] {
            let (table, fps) = footprints(&tr, &|l| match l {
                's' => s_fp,
                'a' => &a,
                'b' => &b,
                _ => &c,
            });
            let seen = Trace {
                fps: &fps,
                footprints: Some(&table),
                ..view(&tr, &first)
            };
            assert_eq!(seen.restarts(inner, step.anchor), restarted);
            assert_eq!(encloses(seen, inner, step), restarted);
        }
        // A summary m every six steps p a b c, whose p sets r up afresh: the loops between m and
        // the step's anchor a are the step's own (its core), no prefix of an iteration around
        // six steps.
        let tr = t("x abc m pabc pabc pabc pabc pabc pabc m pabc pabc pabc pabc pabc pabc m pabc");
        let looks = fp(&[0], &[]);
        let (table, fps) = footprints(&tr, &|l| match l {
            'm' => &looks,
            'p' => &setup,
            'a' => &a,
            'b' => &b,
            _ => &c,
        });
        let first = firsts(&tr);
        let seen = Trace {
            fps: &fps,
            footprints: Some(&table),
            ..view(&tr, &first)
        };
        let levels = analyse(&tr);
        let step = level_of(&levels, 'a');
        assert_eq!(step.anchor, id('a'));
        assert!(step.core.contains(&id('p')));
        assert!(!seen.restarts(step, id('m')));
    }

    #[test]
    fn a_helper_run_for_each_field_is_items_of_the_step_not_its_passes() {
        // Each step runs the boundary helper a b c d for field u, then for field v, then the
        // update e from u and v into the other pair of buffers (swapped by handle). By
        // locations alone, a b c d is a step with e every other step; by the data, the helper's
        // run for v reads nothing its run for u wrote.
        let bx = crate::boxes::Bx::new([0, 0, 0], [4, 4, 1]);
        let fp = |reads: &[u32], writes: &[u32]| {
            std::sync::Arc::new(crate::track::Footprint {
                reads: reads.iter().map(|&d| (d, bx)).collect(),
                writes: writes.iter().map(|&d| (d, bx)).collect(),
            })
        };
        let mut table = crate::learn::trace::Footprints::default();
        let (mut tr, mut fps) = (Vec::new(), Vec::new());
        let mut put = |l: char, f: &std::sync::Arc<crate::track::Footprint>| {
            tr.push(id(l));
            fps.push(table.id(id(l), f));
        };
        put('x', &fp(&[], &[0, 1, 2, 3]));
        for step in 0..8 {
            let (u, v, un, vn) = if step % 2 == 0 {
                (0, 1, 2, 3)
            } else {
                (2, 3, 0, 1)
            };
            for field in [u, v] {
                for l in ['a', 'b', 'c', 'd'] {
                    put(l, &fp(&[field], &[field]));
                }
            }
            put('e', &fp(&[u, v], &[un, vn]));
        }
        let first = firsts(&tr);
        let seen = Trace {
            fps: &fps,
            footprints: Some(&table),
            ..view(&tr, &first)
        };
        let levels = analyse(&tr);
        let (helper, step) = (level_of(&levels, 'a'), level_of(&levels, 'e'));
        assert!(helper.eligible && step.eligible);
        assert!(items_lately(seen, helper) && !items_lately(seen, step));
        assert!(items(seen, helper, step.anchor));
        assert!(encloses(seen, helper, step));
        assert!(
            !encloses(view(&tr, &first), helper, step),
            "locations alone"
        );
        match select(&levels, seen) {
            Selection::Level(l) => assert_eq!(l.anchor, step.anchor),
            other => panic!("the step was not selected: {other:?}"),
        }
    }

    #[test]
    fn a_periodic_loop_in_longer_steps_is_no_enclosure() {
        // Every other step runs m n, and its solver j iterates longer: the steps holding m are
        // half again as long, but m n are two loops of a six-loop step.
        let tr = t("x pjqrst pjjjjmnqrst pjqrst pjjjjmnqrst pjqrst pjjjjmnqrst pjqrst pjjjjmnqrst");
        let levels = analyse(&tr);
        let step = level_of(&levels, 'p');
        assert!(!outside(
            view(&tr, &firsts(&tr)),
            step.anchor,
            id('m'),
            false
        ));
        assert_eq!(chosen(&levels, &tr).0.anchor, step.anchor);
    }

    #[test]
    fn a_branch_taken_in_the_first_steps_only_leaves_the_step_its_own_level() {
        // b runs first in the first three steps, then never again: its passes hold the step's
        // loops once each, but the step's level goes on without it.
        let tr = t("x bpqr bpqr bpqr pqr pqr pqr pqr pqr pqr");
        let levels = analyse(&tr);
        let branch = levels.iter().find(|l| l.anchor == 1).unwrap();
        assert!(!branch.alive, "{branch:?}");
        let p = 15;
        let step = levels.iter().find(|l| l.anchor == p);
        assert!(
            step.is_some_and(|l| l.eligible && l.passes == 8 && l.members == [p, 16, 17]),
            "{levels:?}"
        );
        assert_eq!(chosen(&levels, &tr).0.anchor, p);
    }
}
