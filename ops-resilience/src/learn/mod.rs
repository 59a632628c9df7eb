//! Where checkpoints open: the program's outer iteration (its time step), found in the loop
//! trace, and in it the loop boundary where a checkpoint saves least, measured exactly.
//!
//! 1. **Structure.** While learning, the learner keeps the trace of loop locations and now and
//!    then ([`structure::analyse`], amortised to a few operations per loop) finds its *levels*:
//!    recurrences of a location, with the locations that occur once per pass (*members*: the
//!    loop boundaries a checkpoint could open at once per iteration). Levels that cover the
//!    program and whose passes are alike are *eligible* to be the outer iteration.
//! 2. **Bytes.** At the next occurrence of every location of an eligible level's passes, a dry
//!    region ([`Region`] without copies) runs exactly as a real checkpoint region would from
//!    there: it counts the bytes of what is read before it is overwritten, minus what start-up
//!    loops recompute at restore. A member's figure is the largest of its measurements (inner
//!    trip counts and branches vary from pass to pass; the chosen location's checkpoints keep
//!    adding to it).
//! 3. **Decision.** [`structure::select`] picks the outer level from the structure (an inner
//!    loop's iterations stay inside the time step that encloses them; rare, periodic and
//!    conditional loops stay inside the pass) once its members are measured; its member with
//!    the smallest figure is the checkpoint location. On an explicit time loop this happens in
//!    the fourth to sixth pass: two passes to see the structure, then three measurements of
//!    each member, each over a pass.
//! 4. **Review.** A location the decided level's passes never reached that recurs (a loop
//!    that first appeared late, a rare or conditional loop, or the program leaving what was
//!    taken for its time loop) starts a review: the structure is analysed again over the
//!    following passes, and an enclosing level replaces the decision only if its checkpoint is
//!    clearly smaller. What the decided passes showed stays: a location they saw run other
//!    than once per pass is no boundary of the same passes again, though the review's shorter
//!    trace may not show it. A loop that appears late is otherwise part of the pass.
//!
//! Everything here is a function of the loop trace and the tracker's state, and the learner's
//! state travels in every checkpoint, so a restarted run decides exactly as the run it
//! continues.

pub mod structure;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::boxes::Bx;
use crate::region::{Region, SnapFn};
use crate::store::SavedRegion;
use crate::track::Footprint;

pub use structure::Level;

/// Dry regions per location before the decision (the figure is the largest measurement; the
/// chosen location's checkpoints keep adding to it).
pub const MEASURE: usize = 3;
/// Fewest loops between two analyses of the trace.
pub const ANALYSIS_GAP: u64 = 8;
/// Most loop locations the trace keeps (the oldest half is dropped when it fills).
pub const TRACE_CAP: usize = 1 << 16;
/// A review lasts at most this many times the gap between the two occurrences that started it.
pub const REVIEW_GAPS: u64 = 8;

/// What the learner needs from the tracker: dry regions with the datasets' current targets,
/// and the bytes a closed one saves.
pub trait Measure {
    /// The last loop whose writes were recomputable (start-up data): a measurement is steady
    /// only once a pass has gone by since.
    fn last_pure_write(&self) -> u64;
    /// A dry region opening before loop `start`, closing after at most `bound` loops, with a
    /// save entry for everything a real checkpoint opening there would consider.
    fn dry_region(&self, start: u64, bound: u64) -> Region;
    /// The bytes a closed dry region would have saved (one half of each double buffer).
    fn saved_bytes(&self, region: &Region) -> u64;
}

/// What the learner is doing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Looking for the outer iteration.
    #[default]
    Learning,
    /// The checkpoint location is decided.
    Decided,
    /// Decided, and checking whether a location that recurred outside the decided passes
    /// belongs to an enclosing iteration.
    Reviewing {
        /// The location whose recurrence started the review.
        trigger: u32,
        /// The loop index at which the review ends.
        until: u64,
        /// The trigger never occurred in the decided passes: the program left what was taken
        /// for its outer iteration, which may then be an inner loop of the real one.
        left: bool,
    },
}

/// A change the engine reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The location was decided.
    Decided,
    /// A review replaced the decision; the previous location.
    Revised {
        /// The location checkpoints opened at before.
        from: u32,
    },
    /// A review started (the location that recurred).
    ReviewStarted(u32),
    /// A review ended without a change.
    ReviewEnded,
}

/// The loop locations while learning or reviewing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Trace {
    /// Loop index of `locs[0]`.
    start: u64,
    locs: Vec<u32>,
}

/// Measurements of one location.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Samples {
    /// Bytes saved by each finished dry region, in order.
    pub bytes: Vec<u64>,
    /// Byte sizes of the boxes the latest one would have copied (to prepare buffers).
    #[serde(skip)]
    pub sizes: Vec<usize>,
    /// Dry regions still to start at the next occurrences.
    wanted: usize,
    /// Dry regions running now.
    running: usize,
    /// Their bound.
    bound: u64,
    /// The longest pass of the level that asked for them.
    #[serde(default)]
    pass: u64,
}

impl Samples {
    /// The location's figure: the largest measurement.
    pub fn max(&self) -> Option<u64> {
        self.bytes.iter().copied().max()
    }
}

/// A dry region in flight.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Dry {
    loc: u32,
    region: Region,
}

/// The decided outer iteration and checkpoint location.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// The outer iteration.
    pub level: Level,
    /// The checkpoint location (a member of the level).
    pub location: u32,
    /// What a checkpoint there saves (the largest measurement).
    pub bytes: u64,
    /// The loop index at which it was decided.
    pub at_loop: u64,
    /// Per member (in `level.members` order), relative to the chosen location `C`: 0 before
    /// its first occurrence since the decision, then 1 when `C` has not occurred since its last
    /// occurrence, 2 when `C` has.
    #[serde(default)]
    since: Vec<u8>,
    /// Members that occurred a second time without `C` in between, since `C` last occurred.
    #[serde(default)]
    missing: u32,
}

impl Decision {
    fn new(level: Level, location: u32, bytes: u64, at_loop: u64) -> Decision {
        let n = level.members.len();
        Decision {
            level,
            location,
            bytes,
            at_loop,
            since: vec![0; n],
            missing: 0,
        }
    }
}

/// The location learner (see the module docs).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Learner {
    phase: Phase,
    trace: Trace,
    next_analysis: u64,
    levels: Vec<Level>,
    samples: BTreeMap<u32, Samples>,
    dry: Vec<Dry>,
    /// Dry regions still to start, over all locations.
    wanted: usize,
    decision: Option<Decision>,
    /// Sorted locations that are part of the decided passes: the decided level's core (the
    /// loops of every pass) and what reviews saw; any other that recurs starts a review.
    known: Vec<u32>,
    /// `known` as a bit set by location id (rebuilt after a restore).
    #[serde(skip)]
    known_bits: Vec<u64>,
    /// By location id: 1 + its position among the decided level's members, or 0 (rebuilt after
    /// a restore).
    #[serde(skip)]
    member_of: Vec<u32>,
    /// The decision's `since` summed up, so checking a loop costs the same however many members
    /// the level has (rebuilt after a restore).
    #[serde(skip)]
    tally: Tally,
}

/// [`Decision::since`] in numbers: which member anchors the level, how many members have been
/// seen since the decision (the voters) and how many of them saw the chosen location since.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    anchor: Option<usize>,
    voters: u32,
    twos: u32,
}

impl Tally {
    fn of(d: &Decision) -> Tally {
        Tally {
            anchor: d.level.members.iter().position(|&m| m == d.level.anchor),
            voters: d.since.iter().filter(|&&v| v > 0).count() as u32,
            twos: d.since.iter().filter(|&&v| v == 2).count() as u32,
        }
    }
}

impl Learner {
    /// What a real checkpoint at the decided location saved (told when the next checkpoint
    /// opens, so that a run restarted from the first one, which has its size in the file,
    /// learns it at the same loop). A checkpoint at the chosen location that grew past another
    /// member's figure (a pass unlike the measured ones) moves checkpoints there.
    pub fn observe(&mut self, loc: u32, bytes: u64, index: u64) -> Option<Event> {
        let d = self.decision.as_ref()?;
        if d.location != loc {
            return None;
        }
        self.samples.entry(loc).or_default().bytes.push(bytes);
        if let Some(d) = self.decision.as_mut() {
            d.bytes = d.bytes.max(bytes);
        }
        let _ = index;
        None
    }
}

/// Counts of the loop trace the learner reads from the location table.
pub trait Counts {
    /// Distinct locations seen so far.
    fn distinct(&self) -> usize;
    /// Occurrences of `loc` so far.
    fn count(&self, loc: u32) -> u64;
    /// Largest number of loops between two occurrences of `loc`.
    fn max_gap(&self, loc: u32) -> u64;
}

impl Learner {
    /// The phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The decision, once made.
    pub fn decision(&self) -> Option<&Decision> {
        self.decision.as_ref()
    }

    /// The decided checkpoint location.
    pub fn location(&self) -> Option<u32> {
        self.decision.as_ref().map(|d| d.location)
    }

    /// Every location measured, with its measurements.
    pub fn samples(&self) -> &BTreeMap<u32, Samples> {
        &self.samples
    }

    /// The levels of the latest analysis, finest first.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// Before the decision: the measured location with the smallest figure among the members
    /// of eligible levels (where a checkpoint asked for now would best open).
    pub fn provisional(&self) -> Option<u32> {
        self.levels
            .iter()
            .filter(|l| l.eligible)
            .flat_map(|l| l.members.iter())
            .filter_map(|m| self.samples.get(m).and_then(Samples::max).map(|b| (b, *m)))
            .min()
            .map(|(_, m)| m)
    }

    /// The bytes of a level's best member, once every member was measured [`MEASURE`] times.
    fn level_bytes(&self, level: &Level) -> Option<u64> {
        level
            .members
            .iter()
            .map(|m| {
                self.samples
                    .get(m)
                    .filter(|s| s.bytes.len() >= MEASURE)
                    .and_then(Samples::max)
            })
            .try_fold(u64::MAX, |acc, b| b.map(|b| acc.min(b)))
    }

    /// The member of `level` with the smallest figure (its largest measurement); between
    /// figures within 1 % of each other the smaller mean, then the first in pass order.
    fn best_member(&self, level: &Level) -> Option<(u32, u64)> {
        let mut best: Option<(u32, u64, f64)> = None;
        for &m in &level.members {
            let Some(s) = self.samples.get(&m) else {
                continue;
            };
            let Some(max) = s.max() else { continue };
            let mean = s.bytes.iter().sum::<u64>() as f64 / s.bytes.len() as f64;
            let better = match best {
                None => true,
                Some((_, bmax, bmean)) => {
                    let (a, b) = (max as f64, bmax as f64);
                    a < 0.99 * b || (a <= 1.01 * b && mean < bmean)
                }
            };
            if better {
                best = Some((m, max, mean));
            }
        }
        best.map(|(m, max, _)| (m, max))
    }

    fn is_known(&self, loc: u32) -> bool {
        let (w, b) = (loc as usize / 64, loc % 64);
        self.known_bits.get(w).is_some_and(|x| x >> b & 1 == 1)
    }

    fn set_known(&mut self, locs: impl IntoIterator<Item = u32>) {
        for l in locs {
            if let Err(i) = self.known.binary_search(&l) {
                self.known.insert(i, l);
            }
        }
        self.rebuild_bits();
    }

    /// Rebuilds the lookup tables that are not saved (after a restore).
    pub fn rebuild_bits(&mut self) {
        self.known_bits.clear();
        for &l in &self.known {
            let w = l as usize / 64;
            if self.known_bits.len() <= w {
                self.known_bits.resize(w + 1, 0);
            }
            self.known_bits[w] |= 1 << (l % 64);
        }
        self.member_of.clear();
        self.tally = self.decision.as_ref().map(Tally::of).unwrap_or_default();
        if let Some(d) = &self.decision {
            for (i, &m) in d.level.members.iter().enumerate() {
                if self.member_of.len() <= m as usize {
                    self.member_of.resize(m as usize + 1, 0);
                }
                self.member_of[m as usize] = i as u32 + 1;
            }
        }
    }

    /// Checks, pass by pass, that the chosen location runs exactly once per pass: the structure
    /// was seen over a few passes only, and a branch taken every time so far or an inner loop
    /// that has not iterated twice yet looks like a loop of the pass. Every other member votes:
    /// a member occurring twice without the chosen location in between says it was skipped, the
    /// chosen location occurring twice without a member in between says it repeats. When the
    /// level's anchor or most members say so, the structure is reviewed.
    fn verify(&mut self, loc: u32, index: u64) -> Option<Event> {
        let d = self.decision.as_mut()?;
        let member = self.member_of.get(loc as usize).copied().unwrap_or(0) as usize;
        if member == 0 {
            return None;
        }
        let i = member - 1;
        let t = &mut self.tally;
        let anchor = t.anchor;
        let anchor_state = anchor.map_or(0, |a| d.since[a]);
        let voters = t.voters;
        // A majority counts once most members have been seen since the decision.
        let quorum = 2 * voters as usize > d.since.len();
        let wrong = if loc == d.location {
            let twice = t.twos;
            if twice < voters {
                for v in d.since.iter_mut().filter(|v| **v > 0) {
                    *v = 2;
                }
                t.twos = voters;
            }
            d.missing = 0;
            // The anchor, which delimits the passes, says it repeats; or most members do.
            (anchor != Some(i) && anchor_state == 2) || (quorum && 2 * twice > voters)
        } else {
            let was = d.since[i];
            let skipped = was == 1;
            if skipped {
                d.missing += 1;
            }
            t.voters += u32::from(was == 0);
            t.twos -= u32::from(was == 2);
            d.since[i] = 1;
            (anchor == Some(i) && skipped) || (quorum && 2 * d.missing > voters)
        };
        if !wrong {
            return None;
        }
        // The structure was seen over too few passes: look at it again (checkpoints stay where
        // they are until the review decides).
        let gap = 4 * d.level.max_pass.max(1);
        Some(self.start_review(loc, index, index + REVIEW_GAPS * gap, true))
    }

    /// Starts a review (see the module docs): the trace is recorded again from here and the
    /// pass's boundaries are measured again. `left`: the decided passes may be an inner loop of
    /// the real ones (a loop they never ran recurred, or the chosen location did not run once
    /// per pass).
    fn start_review(&mut self, trigger: u32, index: u64, until: u64, left: bool) -> Event {
        if let Some(d) = &self.decision {
            let (members, max_pass) = (d.level.members.clone(), d.level.max_pass);
            for mem in members {
                self.ask_for(mem, 1, max_pass);
            }
        }
        self.phase = Phase::Reviewing {
            trigger,
            until,
            left,
        };
        self.trace = Trace {
            start: index,
            locs: vec![trigger],
        };
        self.next_analysis = index + ANALYSIS_GAP;
        Event::ReviewStarted(trigger)
    }

    /// Fixes the decision from outside (a restart taking over a checkpoint's state uses
    /// [`Learner`]'s serialisation instead): only for tests.
    #[cfg(test)]
    fn recording(&self) -> bool {
        !matches!(self.phase, Phase::Decided)
    }

    /// One loop at location `loc`, index `index`, with accesses `fp`, before it runs and
    /// before the tracker records its writes.
    #[inline]
    pub fn on_loop(
        &mut self,
        loc: u32,
        index: u64,
        fp: &Footprint,
        counts: &dyn Counts,
        m: &dyn Measure,
    ) -> Option<Event> {
        // Most loops of a run come here decided, with nothing being measured: they only
        // check the decision, apart from the learning's work (and its stack frame).
        if matches!(self.phase, Phase::Decided) && self.dry.is_empty() && self.wanted == 0 {
            if let Some(e) = self.verify(loc, index) {
                return Some(e);
            }
            return self.check_known(loc, index, counts);
        }
        self.on_loop_learning(loc, index, fp, counts, m)
    }

    /// A decided loop at a location outside the decided passes that recurs starts a review.
    fn check_known(&mut self, loc: u32, index: u64, counts: &dyn Counts) -> Option<Event> {
        if !self.is_known(loc) && counts.count(loc) >= 2 {
            let until = index + REVIEW_GAPS * counts.max_gap(loc).max(1);
            let left = self
                .decision
                .as_ref()
                .is_some_and(|d| !d.level.reaches(loc));
            return Some(self.start_review(loc, index, until, left));
        }
        None
    }

    /// [`Learner::on_loop`] while learning, reviewing or measuring.
    #[inline(never)]
    fn on_loop_learning(
        &mut self,
        loc: u32,
        index: u64,
        fp: &Footprint,
        counts: &dyn Counts,
        m: &dyn Measure,
    ) -> Option<Event> {
        let recording = !matches!(self.phase, Phase::Decided);
        if recording {
            if self.trace.locs.is_empty() {
                self.trace.start = index;
            }
            self.trace.locs.push(loc);
            if self.trace.locs.len() >= TRACE_CAP {
                let half = TRACE_CAP / 2;
                self.trace.locs.drain(..half);
                self.trace.start += half as u64;
            }
        }
        // A dry region spans at most one pass of its location, as a real one does.
        if self.dry.iter().any(|d| d.loc == loc) {
            self.finish_dry(|d| d.loc == loc, m);
        }
        if self.wanted > 0 {
            let steady_from = m.last_pure_write();
            let steady = |s: &Samples| index > steady_from + s.pass;
            if let Some(s) = self
                .samples
                .get_mut(&loc)
                .filter(|s| s.wanted > 0 && steady(s))
            {
                s.wanted -= 1;
                s.running += 1;
                self.wanted -= 1;
                let region = m.dry_region(index, s.bound);
                self.dry.push(Dry { loc, region });
            }
        }
        let finished = !self.dry.is_empty() && self.feed_dry(fp, m);
        let mut event = None;
        if matches!(self.phase, Phase::Decided) {
            if let Some(e) = self.verify(loc, index) {
                return Some(e);
            }
        }
        match self.phase {
            Phase::Decided => return self.check_known(loc, index, counts),
            Phase::Reviewing { until, .. } if index >= until => {
                let seen: Vec<u32> = std::mem::take(&mut self.trace.locs);
                self.set_known(seen);
                self.phase = Phase::Decided;
                self.levels.clear();
                return Some(Event::ReviewEnded);
            }
            _ => {}
        }
        let _ = finished;
        // Decisions are taken on a fresh analysis only: a level measured earlier may have been
        // the finest eligible one before the outer iteration had repeated.
        if index >= self.next_analysis {
            self.analyse(counts);
            let len = self.trace.locs.len() as u64;
            self.next_analysis = index + ANALYSIS_GAP.max(len / 8);
            event = match self.phase {
                Phase::Learning => self.try_decide(index),
                Phase::Reviewing { .. } => self.try_revise(index),
                Phase::Decided => None,
            };
        }
        event
    }

    /// A value of dataset `dat` handed to the program (a fetch): the dry regions read it.
    pub fn on_read(&mut self, dat: u32, b: &Bx) {
        for d in &mut self.dry {
            d.region.read(dat, b);
        }
    }

    /// The program is about to set `b` of dataset `dat`: the dry regions see the write.
    pub fn on_set(&mut self, dat: u32, b: &Bx) {
        let mut never = |_: u32, _: &Bx| -> Result<Option<SavedRegion>, String> {
            unreachable!("dry regions copy nothing")
        };
        for d in &mut self.dry {
            let _ = d.region.write(dat, b, &mut never as &mut SnapFn<'_>);
        }
    }

    /// Feeds a loop to the dry regions; true when one finished.
    fn feed_dry(&mut self, fp: &Footprint, m: &dyn Measure) -> bool {
        let mut never = |_: u32, _: &Bx| -> Result<Option<SavedRegion>, String> {
            unreachable!("dry regions copy nothing")
        };
        for d in &mut self.dry {
            let _ = d.region.on_loop(fp, &mut never as &mut SnapFn<'_>);
        }
        self.finish_dry(|d| d.region.all_decided() || d.region.expired(), m)
    }

    /// Closes the dry regions `done` picks and records what they would have saved; true when
    /// one was.
    fn finish_dry(&mut self, done: impl Fn(&Dry) -> bool, m: &dyn Measure) -> bool {
        let mut never = |_: u32, _: &Bx| -> Result<Option<SavedRegion>, String> {
            unreachable!("dry regions copy nothing")
        };
        let mut finished = false;
        let mut k = 0;
        while k < self.dry.len() {
            if !done(&self.dry[k]) {
                k += 1;
                continue;
            }
            let Dry { loc, mut region } = self.dry.swap_remove(k);
            let _ = region.close(&mut never as &mut SnapFn<'_>);
            let bytes = m.saved_bytes(&region);
            let s = self.samples.entry(loc).or_default();
            s.running = s.running.saturating_sub(1);
            s.bytes.push(bytes);
            s.sizes = std::mem::take(&mut region.sizes);
            if let Some(d) = self.decision.as_mut().filter(|d| d.location == loc) {
                d.bytes = d.bytes.max(bytes);
            }
            finished = true;
        }
        finished
    }

    /// Analyses the trace and asks for measurements of the levels that matter now: every
    /// eligible level while learning, the eligible levels enclosing the decided one while
    /// reviewing.
    fn analyse(&mut self, counts: &dyn Counts) {
        let levels = structure::analyse(&self.trace.locs, counts.distinct());
        for l in levels.iter().filter(|l| l.passes >= 2) {
            tracing::trace!(
                at = self.trace.start + self.trace.locs.len() as u64,
                anchor = l.anchor,
                members = l.members.len(),
                passes = l.passes,
                eligible = l.eligible,
                "recurring level"
            );
        }
        let decided = self.decision.as_ref().map(|d| d.level.anchor);
        let anchor_count = |a: u32| self.trace.locs.iter().filter(|&&l| l == a).count();
        let decided_passes = decided.map(anchor_count);
        // Steady means a whole pass of the longest recurrence seen without recomputable writes.
        let longest = levels.iter().map(|l| l.max_pass).max().unwrap_or(0);
        for l in &levels {
            // Measured once the level has repeated twice: by then every loop of a pass has
            // written its data at least twice, so nothing recurring is taken for start-up any
            // more (see `track`). Every location of its passes, not only its members: an
            // enclosing level the decision compares with has its members among them.
            if !l.eligible {
                continue;
            }
            if let (Some(a), Some(n)) = (decided, decided_passes) {
                // Reviewing: only enclosing levels are candidates.
                if !l.reaches(a) || l.passes + 1 >= n || l.members.contains(&a) {
                    continue;
                }
            }
            let bound = crate::engine::MIN_REGION_LOOPS.max(2 * l.max_pass);
            for &mem in &l.union {
                let s = self.samples.entry(mem).or_default();
                let have = s.bytes.len() + s.running + s.wanted;
                let more = MEASURE.saturating_sub(have);
                s.wanted += more;
                s.bound = s.bound.max(bound);
                s.pass = s.pass.max(longest);
                self.wanted += more;
            }
        }
        self.levels = levels;
    }

    fn try_decide(&mut self, index: u64) -> Option<Event> {
        let chosen = structure::select(&self.levels, &self.trace.locs, &|l| self.level_bytes(l));
        let level = match chosen {
            Ok(Some(l)) => l.clone(),
            _ => return None,
        };

        let (location, bytes) = self.best_member(&level)?;
        self.set_known(level.core.iter().copied());
        self.decision = Some(Decision::new(level, location, bytes, index));
        self.rebuild_bits();
        self.phase = Phase::Decided;
        self.trace = Trace::default();
        self.levels.clear();
        for s in self.samples.values_mut() {
            s.wanted = 0;
        }
        self.wanted = 0;
        Some(Event::Decided)
    }

    /// Asks for `n` more dry measurements of `loc`, a boundary of passes of at most `max_pass`
    /// loops.
    fn ask_for(&mut self, loc: u32, n: usize, max_pass: u64) {
        let bound = crate::engine::MIN_REGION_LOOPS.max(2 * max_pass);
        let s = self.samples.entry(loc).or_default();
        s.wanted += n;
        s.bound = s.bound.max(bound);
        s.pass = s.pass.max(max_pass);
        self.wanted += n;
    }

    /// True when `other`'s figure rests on as many measurements as `chosen`'s (up to twice
    /// [`MEASURE`]): a figure from fewer passes may not have met the passes that make it large,
    /// and moving to it on that ground moves back once they come. Otherwise asks for the missing
    /// measurements of `other` (in passes of at most `max_pass` loops; now is loop `index`), so
    /// that a later look can compare like with like.
    fn measured_as_often(&mut self, other: u32, chosen: u32, max_pass: u64, index: u64) -> bool {
        let count = |l: u32| self.samples.get(&l).map_or(0, |s| s.bytes.len());
        let need = count(chosen).min(2 * MEASURE);
        let have = count(other);
        if have >= need {
            return true;
        }
        let pending = self.samples.get(&other).map_or(0, |s| s.wanted + s.running);
        let more = (need - have).saturating_sub(pending);
        // The review lasts until they can have come (extended only when measurements are asked
        // for, so a boundary that stops occurring cannot keep it open).
        if more > 0 {
            self.ask_for(other, more, max_pass);
            if let Phase::Reviewing { until, .. } = &mut self.phase {
                *until = (*until).max(index + (need - have + 1) as u64 * 2 * max_pass.max(1));
            }
        }
        false
    }

    /// During a review, with the pass's boundaries measured again: when another member of the
    /// decided level now saves clearly less than the chosen location (a loop that appeared late
    /// reads what was dead at the chosen boundary), checkpoints move there.
    fn rechoose(&mut self, index: u64) -> Option<Event> {
        let d = self.decision.as_ref()?;
        let chosen = self.samples.get(&d.location).and_then(Samples::max)?;
        let (best, bytes) = self.best_member(&d.level)?;
        if best == d.location || bytes as f64 * 1.01 >= chosen as f64 {
            return None;
        }
        let (chosen, max_pass) = (d.location, d.level.max_pass);
        if !self.measured_as_often(best, chosen, max_pass, index) {
            return None;
        }
        let d = self.decision.as_mut()?;
        let from = d.location;
        *d = Decision::new(d.level.clone(), best, bytes, index);
        self.rebuild_bits();
        Some(Event::Revised { from })
    }

    /// A review's verdict, from the structure analysed again since it started: the level that
    /// now holds the chosen location (or the decided anchor) as a loop of every pass, or else
    /// the finest that runs it in every pass, moved out to an enclosing level as
    /// [`structure::select`] does when the decided passes turn out to be a solver's iterations
    /// (only when the review was started by the program leaving them); and in it the boundary
    /// that saves least. A change of level or location is a revision.
    fn try_revise(&mut self, index: u64) -> Option<Event> {
        if let Some(e) = self.rechoose(index) {
            return Some(e);
        }
        let left = matches!(self.phase, Phase::Reviewing { left: true, .. });
        let d = self.decision.as_ref()?;
        let (from, anchor) = (d.location, d.level.anchor);
        let trace = &self.trace.locs;
        let holds = |l: &&Level, x: u32| l.eligible && l.members.contains(&x);
        // Else the finest eligible level whose passes hold the chosen location: the decided
        // passes no longer cover the program (they were an inner loop's first iterations).
        let mut cur = self
            .levels
            .iter()
            .find(|l| holds(l, from))
            .or_else(|| self.levels.iter().find(|l| holds(l, anchor)))
            .or_else(|| {
                self.levels
                    .iter()
                    .find(|l| l.eligible && l.core.binary_search(&from).is_ok())
            })?;
        if left {
            cur = structure::enclosing(&self.levels, trace, cur);
        }
        let mut better = cur.clone();
        if better.members.contains(&from) {
            // The decided passes again, anchored anew: what they showed stays true, though the
            // review's passes may not show it (an inner loop that has not iterated twice since,
            // a branch taken every time since): a location seen other than once per pass is no
            // member.
            let old = &d.level;
            better
                .members
                .retain(|m| old.members.contains(m) || !old.reaches(*m));
            better.anchor = better.members[0];
        }
        self.level_bytes(&better)?;
        let (location, bytes) = self.best_member(&better)?;
        if better.members.contains(&from) {
            // The chosen location still runs once per pass: it stays unless another boundary
            // saves clearly less.
            let now = self
                .samples
                .get(&from)
                .and_then(Samples::max)
                .unwrap_or(u64::MAX);
            if location == from
                || bytes as f64 * 1.01 >= now as f64
                || !self.measured_as_often(location, from, better.max_pass, index)
            {
                // Same location: the level it belongs to is updated, the schedule goes on.
                if better.anchor != anchor {
                    if let Some(d) = self.decision.as_mut() {
                        let (at, b) = (d.at_loop, d.bytes);
                        *d = Decision::new(better, from, b, at);
                    }
                    self.rebuild_bits();
                }
                return None;
            }
        }
        let seen: Vec<u32> = std::mem::take(&mut self.trace.locs);
        self.set_known(seen.into_iter().chain(better.core.iter().copied()));
        self.decision = Some(Decision::new(better, location, bytes, index));
        self.rebuild_bits();
        self.phase = Phase::Decided;
        self.levels.clear();
        for s in self.samples.values_mut() {
            s.wanted = 0;
        }
        self.wanted = 0;
        Some(Event::Revised { from })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boxes::BoxList;
    use crate::region::EntryKind;

    /// A program over one dataset per letter: every loop of location `l` reads dataset `l`
    /// and rewrites it; dataset `l` holds `size(l)` points of 8 bytes.
    struct Fake {
        sizes: Vec<u64>,
        /// Datasets a checkpoint considers (the others are recomputed or never written).
        saved: Vec<u32>,
    }

    impl Measure for Fake {
        fn last_pure_write(&self) -> u64 {
            0
        }
        fn dry_region(&self, start: u64, bound: u64) -> Region {
            let mut r = Region::new(start, bound, false);
            for &d in &self.saved {
                let b = Bx::new([0, 0, 0], [self.sizes[d as usize] as i32, 1, 1]);
                r.add(d, EntryKind::Save, BoxList::from_box(b), 8);
            }
            r
        }
        fn saved_bytes(&self, r: &Region) -> u64 {
            r.save_bytes()
        }
    }

    #[derive(Default)]
    struct Table {
        count: Vec<u64>,
        last: Vec<u64>,
        max_gap: Vec<u64>,
    }

    impl Counts for Table {
        fn distinct(&self) -> usize {
            self.count.iter().filter(|&&c| c > 0).count()
        }
        fn count(&self, loc: u32) -> u64 {
            self.count.get(loc as usize).copied().unwrap_or(0)
        }
        fn max_gap(&self, loc: u32) -> u64 {
            self.max_gap.get(loc as usize).copied().unwrap_or(0)
        }
    }

    /// Loop footprints: `reads` and `writes` datasets, each over its whole extent.
    fn fp(sizes: &[u64], reads: &[u32], writes: &[u32]) -> Footprint {
        let bx = |d: u32| (d, Bx::new([0, 0, 0], [sizes[d as usize] as i32, 1, 1]));
        Footprint {
            reads: reads.iter().map(|&d| bx(d)).collect(),
            writes: writes.iter().map(|&d| bx(d)).collect(),
        }
    }

    /// Runs a trace of (location, reads, writes) through a learner; the events with their
    /// loop indices.
    fn run(
        learner: &mut Learner,
        sizes: &[u64],
        saved: &[u32],
        loops: &[(u32, Vec<u32>, Vec<u32>)],
    ) -> Vec<(u64, Event)> {
        let m = Fake {
            sizes: sizes.to_vec(),
            saved: saved.to_vec(),
        };
        let mut t = Table::default();
        let mut events = Vec::new();
        for (i, (loc, r, w)) in loops.iter().enumerate() {
            let l = *loc as usize;
            if t.count.len() <= l {
                t.count.resize(l + 1, 0);
                t.last.resize(l + 1, 0);
                t.max_gap.resize(l + 1, 0);
            }
            if t.count[l] > 0 {
                t.max_gap[l] = t.max_gap[l].max(i as u64 - t.last[l]);
            }
            t.count[l] += 1;
            t.last[l] = i as u64;
            if let Some(e) = learner.on_loop(*loc, i as u64, &fp(sizes, r, w), &t, &m) {
                events.push((i as u64, e));
            }
        }
        events
    }

    #[test]
    fn a_heat_solver_checkpoints_once_per_step_before_the_solve() {
        // Datasets: 0 = u (64 points), 1 = u_old, 2 = residual scratch, 3 = geometry
        // (recomputed at restore, so no checkpoint considers it). Start-up: geometry (3). Step: s copies u -> u_old (reads 0, writes 1); the solve
        // j reads u_old and u and writes u, r reduces into 2; the trip count varies.
        let sizes = [64, 64, 8, 64];
        let mut loops = vec![(9, vec![], vec![3])];
        for step in 0..12 {
            loops.push((0, vec![0], vec![1]));
            for _ in 0..(2 + step % 3) {
                loops.push((1, vec![0, 1, 3], vec![0]));
                loops.push((2, vec![0], vec![2]));
            }
        }
        let mut l = Learner::default();
        let events = run(&mut l, &sizes, &[0, 1, 2], &loops);
        let (at, e) = &events[0];
        assert_eq!(*e, Event::Decided, "{events:?}");
        let d = l.decision().unwrap();
        // Before s, only u is live (u_old is overwritten first): 64 x 8 bytes.
        assert_eq!(d.location, 0, "{d:?}");
        assert_eq!(d.bytes, 64 * 8);
        // Steps are 5 to 9 loops: decided in the sixth step at the latest.
        assert!(*at < 40, "decided at loop {at}");
        assert!(!l.recording());
    }

    #[test]
    fn a_late_rare_loop_reviews_without_changing_the_decision() {
        let sizes = [8, 8, 8];
        let mut loops = Vec::new();
        for step in 0..220 {
            loops.push((0, vec![0], vec![0]));
            loops.push((1, vec![0], vec![1]));
            if step % 20 == 19 {
                loops.push((2, vec![1], vec![2]));
            }
        }
        let mut l = Learner::default();
        let events = run(&mut l, &sizes, &[0, 1, 2], &loops);
        assert_eq!(events[0].1, Event::Decided);
        assert_eq!(events[1].1, Event::ReviewStarted(2), "{events:?}");
        assert_eq!(events[2].1, Event::ReviewEnded, "{events:?}");
        assert!(!events
            .iter()
            .any(|(_, e)| matches!(e, Event::Revised { .. })));
        assert_eq!(l.phase(), &Phase::Decided);
    }

    #[test]
    fn the_learner_state_round_trips_through_json() {
        let sizes = [8, 8];
        let loops: Vec<_> = (0..20).map(|i| (i % 2, vec![i % 2], vec![i % 2])).collect();
        let mut l = Learner::default();
        run(&mut l, &sizes, &[0, 1], &loops);
        let json = serde_json::to_string(&l).unwrap();
        let mut back: Learner = serde_json::from_str(&json).unwrap();
        back.rebuild_bits();
        assert_eq!(back.decision(), l.decision());
        assert_eq!(back.phase(), l.phase());
    }

    /// The rules of [`Learner::verify`] with every count taken afresh from `since`: what the
    /// running tally must agree with. `None` for a location that is not a member.
    fn verify_afresh(d: &mut Decision, loc: u32) -> Option<bool> {
        let i = d.level.members.iter().position(|&m| m == loc)?;
        let anchor = d.level.members.iter().position(|&m| m == d.level.anchor);
        let anchor_state = anchor.map_or(0, |a| d.since[a]);
        let voters = d.since.iter().filter(|&&v| v > 0).count() as u32;
        let quorum = 2 * voters as usize > d.since.len();
        Some(if loc == d.location {
            let twice = d.since.iter().filter(|&&v| v == 2).count() as u32;
            for v in d.since.iter_mut().filter(|v| **v > 0) {
                *v = 2;
            }
            d.missing = 0;
            (anchor != Some(i) && anchor_state == 2) || (quorum && 2 * twice > voters)
        } else {
            let skipped = d.since[i] == 1;
            if skipped {
                d.missing += 1;
            }
            d.since[i] = 1;
            (anchor == Some(i) && skipped) || (quorum && 2 * d.missing > voters)
        })
    }

    #[test]
    fn verifying_with_the_running_tally_decides_as_counting_afresh() {
        let members = vec![3u32, 5, 7, 9, 11];
        let mut sorted = members.clone();
        sorted.sort_unstable();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut reviews = 0;
        for case in 0..400usize {
            let level = Level {
                anchor: members[case % 5],
                members: members.clone(),
                core: sorted.clone(),
                union: sorted.clone(),
                passes: 3,
                max_pass: 5,
                covers: true,
                alike: true,
                eligible: true,
                alive: true,
            };
            let location = members[case / 5 % 5];
            let mut l = Learner {
                decision: Some(Decision::new(level, location, 0, 0)),
                ..Learner::default()
            };
            l.rebuild_bits();
            let mut reference = l.decision.clone().unwrap();
            for index in 0..80u64 {
                // Mostly the members in pass order, with skips, repeats and other loops.
                let r = next();
                let loc = if r % 7 == 0 {
                    4
                } else if r % 5 == 0 {
                    members[(r >> 8) as usize % 5]
                } else {
                    members[index as usize % 5]
                };
                if r % 11 == 0 {
                    // A restart: the tally is rebuilt from the saved decision.
                    let json = serde_json::to_string(&l).unwrap();
                    l = serde_json::from_str(&json).unwrap();
                    l.rebuild_bits();
                }
                let want = verify_afresh(&mut reference, loc).unwrap_or(false);
                let got = l.verify(loc, index).is_some();
                assert_eq!(got, want, "case {case}, loop {index} at {loc}");
                if got {
                    reviews += 1;
                    break;
                }
                let d = l.decision.as_ref().unwrap();
                assert_eq!((&d.since, d.missing), (&reference.since, reference.missing));
            }
        }
        assert!(
            reviews > 50,
            "the sequences should often call for a review ({reviews})"
        );
    }
}
