//! Where checkpoints open: the program's outer iteration (its time step), found in the loop
//! trace, and in it the loop boundary where a checkpoint saves least, computed exactly.
//!
//! 1. **Recording.** While learning (and while confirming or reviewing, below) the learner
//!    records every loop's location, footprint and global constants, and the fetches and sets
//!    between loops ([`trace::Recording`]).
//! 2. **Structure.** Now and then ([`structure::analyse`], amortised to a few operations per
//!    loop) the recorded locations are analysed into *levels*: recurrences of a location, with
//!    the locations that occur once per pass (*members*: the loop boundaries a checkpoint could
//!    open at once per iteration). Of the levels that cover the program, the finest is moved out
//!    to the level that encloses it when its iterations are an inner loop (an iterative solve,
//!    Runge-Kutta stages: [`structure::encloses`]); rare, periodic and conditional loops are
//!    part of the pass ([`structure::select`]).
//! 3. **Bytes.** For every member, what a checkpoint region opening at each of its recorded
//!    occurrences would save, from one backward liveness sweep over the recorded footprints
//!    ([`liveness::sweep`]): per dataset and box, what is read before it is overwritten, or not
//!    overwritten before the region closes, of the points a replay would not reproduce. A
//!    member's figure is the largest over the passes measured (inner trip counts and branches
//!    vary).
//! 4. **Decision.** Once every member of the selected level has been measured [`MEASURE`]
//!    times, the member with the smallest figure is the checkpoint location: on an explicit time
//!    loop, as its fourth pass begins. The structure is then *confirmed* over [`CONFIRM_PASSES`]
//!    more passes: the recording goes on and every analysis selects the outer iteration again
//!    (the first burst of an inner solve, taken for the time loop, is moved out of as soon as
//!    its time step repeats; after a move out to an enclosing level the confirmation goes on
//!    to its end, on the same recording, since that level may be an inner loop too), and a
//!    boundary that saves clearly less over the same passes replaces the chosen one
//!    ([`MOVE_MARGIN`], held over [`HOLD_REGIONS`] more regions).
//! 5. **Review.** Once confirmed, each loop only checks that the chosen location runs once per
//!    pass ([`Learner::verify`]) and that its location belongs to the decided passes. A location
//!    they never ran is watched from its first occurrence (recorded, so that the passes it runs
//!    in are measured whole) and reviewed if it recurs; a chosen location that stops running
//!    once per pass starts a review too. A review records, analyses and measures as the
//!    confirmation does, for [`REVIEW_GAPS`] passes. A loop that first appears late is part of
//!    the pass, never a reason to forget what was learnt.
//! 6. **Doubt.** While a review finds the decided level likely an inner loop (a
//!    [`structure::Doubt`] whose suspect paces it: a grave one, or any while each iteration
//!    ends with a value the program tests), checkpoints counted in passes count the suspect's
//!    occurrences instead of the chosen location's: once per N iterations of what looks like
//!    the enclosing time step; while a level enclosing the decided one is measured for a move,
//!    its passes. While the chosen location went, or no level holds the decided passes, they
//!    wait for the verdict ([`Learner::counting`]). A loop that ran before the decided passes
//!    and recurs brings the next analysis within a pass, so the suspect is found at once.
//!
//! Everything here is a function of the loop trace and the tracker's state, and the learner's
//! state travels in every checkpoint, so a restarted run decides exactly as the run it
//! continues.

pub mod liveness;
pub mod structure;
pub mod trace;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::boxes::Bx;
use crate::engine::region_bound;
use crate::track::Footprint;

pub use liveness::DatInfo;
pub use structure::Level;
use structure::Selection;
use trace::Recording;

/// Measurements per member before a decision (the figure is the largest; more come as the
/// structure is confirmed and reviewed, and from the checkpoints taken).
pub const MEASURE: usize = 2;
/// Fewest loops between two analyses of the trace.
pub const ANALYSIS_GAP: u64 = 8;
/// Most loops the recording keeps (the oldest half is dropped when it fills).
pub const TRACE_CAP: usize = 1 << 16;
/// A review lasts this many times the longest pass of the decided level.
pub const REVIEW_GAPS: u64 = 8;
/// Passes of the decided level over which the structure is confirmed after a decision, and
/// loops at least, [`CONFIRM_LOOPS`] (long enough for the first burst of an inner solve, taken
/// for the time loop, to end and its time step to repeat).
pub const CONFIRM_PASSES: u64 = 32;
/// See [`CONFIRM_PASSES`].
pub const CONFIRM_LOOPS: u64 = 2048;
/// Passes of the decided level a location that ran once is watched for a recurrence.
pub const WATCH_PASSES: u64 = 64;
/// Checkpoints move to another boundary of the same passes only when it saves this many times
/// less: a figure grows with the passes measured, and boundaries within a few per cent of each
/// other would trade places as it does (each move is a revision the report counts).
pub const MOVE_MARGIN: f64 = 1.05;
/// Checkpoints move to another boundary of the same passes only when it still saves less with
/// this many regions more measured: passes differ (inner trip counts, sub-cycles), and the one
/// that makes a boundary large may not have come yet when it first looks cheaper.
pub const HOLD_REGIONS: usize = 3;
/// Measurements kept per location (the largest of those dropped is kept besides).
const KEPT_SAMPLES: usize = 64;

/// What the learner needs from the tracker: what a checkpoint would consider saving now.
pub trait Targets {
    /// Per dataset, in declaration order.
    fn dat_infos(&self) -> Vec<DatInfo>;
}

/// Counts of the loop trace the learner reads from the location table.
pub trait Counts {
    /// Occurrences of `loc` so far.
    fn count(&self, loc: u32) -> u64;
    /// Largest number of loops between two occurrences of `loc`.
    fn max_gap(&self, loc: u32) -> u64;
    /// The loop index of the first occurrence of `loc`.
    fn first(&self, loc: u32) -> u64;
}

/// What the learner is doing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Looking for the outer iteration.
    #[default]
    Learning,
    /// The checkpoint location is decided.
    Decided,
    /// Decided; a location the decided passes never ran has run once: recording, so that if
    /// it recurs the passes it ran in are measured whole.
    Watching {
        /// The location.
        loc: u32,
        /// The loop index at which the watch ends without a review.
        until: u64,
    },
    /// Decided, and checking the structure again: after a decision (no trigger: the
    /// confirmation), or because a location outside the decided passes recurred, or the chosen
    /// location stopped running once per pass.
    Reviewing {
        /// The location whose recurrence started the review.
        trigger: Option<u32>,
        /// The loop index at which the review ends.
        until: u64,
        /// The chosen location was seen not to run once per pass of the decided level (its
        /// other members said so): it must go.
        #[serde(default)]
        broken: bool,
        /// The latest analysis found the decided level likely an inner loop of an iteration
        /// that this location belongs to ([`structure::Doubt::pace`]): checkpoints counted in
        /// passes count its occurrences meanwhile.
        #[serde(default)]
        pace: Option<u32>,
        /// The latest analysis found no eligible level holding the decided passes: checkpoints
        /// counted in passes wait for the verdict.
        #[serde(default)]
        lost: bool,
    },
}

/// What checkpoints counted in passes (`--ops-checkpoint-every N`) count
/// ([`Learner::counting`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    /// Passes of the decided level: occurrences of the chosen location.
    Chosen,
    /// Nothing: the chosen location was seen not to run once per pass, or the review's
    /// analysis finds no level holding the decided passes; the review is to tell where
    /// checkpoints go instead.
    Paused,
    /// Occurrences of this location, a suspect of the review ([`structure::Doubt::pace`]):
    /// the decided level looks like an inner loop of an iteration the suspect belongs to.
    /// Checkpoints still open at the chosen location, once in N of the suspect's passes
    /// rather than once in N iterations of the inner loop.
    Suspect(u32),
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
    /// A review started (the location that recurred, or the chosen one).
    ReviewStarted(u32),
    /// A review ended without a change.
    ReviewEnded,
}

/// Measurements of one location.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Samples {
    /// Bytes a checkpoint region opening at an occurrence saves, by the occurrence's loop
    /// index (the latest [`KEPT_SAMPLES`]).
    pub bytes: BTreeMap<u64, u64>,
    /// The largest measurement ever.
    pub max: u64,
    /// Measurements ever.
    pub count: usize,
    /// The largest of the measurements no longer kept (all older than the kept ones).
    #[serde(default)]
    pub older_max: Option<u64>,
}

impl Samples {
    /// The location's figure: the largest measurement (`None` before the first).
    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// The smallest and the mean of the measurements kept.
    pub fn min_mean(&self) -> (u64, f64) {
        let n = self.bytes.len().max(1) as f64;
        let min = self.bytes.values().copied().min().unwrap_or(self.max);
        (min, self.bytes.values().sum::<u64>() as f64 / n)
    }

    /// The largest measurement of a region opening at or before loop `until`.
    pub fn max_until(&self, until: u64) -> Option<u64> {
        let kept = self.bytes.range(..=until).map(|(_, &b)| b).max();
        kept.max(self.older_max)
    }

    /// Whether the region opening at loop `index` was measured: it is kept, or older than
    /// every kept one when older ones were dropped (measuring it again would count it twice).
    fn has(&self, index: u64) -> bool {
        match self.bytes.first_key_value() {
            Some((&oldest, _)) if self.older_max.is_some() && index < oldest => true,
            _ => self.bytes.contains_key(&index),
        }
    }

    fn add(&mut self, index: u64, bytes: u64) {
        if self.bytes.insert(index, bytes).is_none() {
            self.count += 1;
        }
        self.max = self.max.max(bytes);
        while self.bytes.len() > KEPT_SAMPLES {
            if let Some((_, b)) = self.bytes.pop_first() {
                self.older_max = self.older_max.max(Some(b));
            }
        }
    }
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
    /// occurrence, 3 when it has occurred twice or more since `C` last did, 2 when `C` has
    /// occurred since its last occurrence.
    #[serde(default)]
    since: Vec<u8>,
    /// Members that occurred a second time without `C` in between (in state 3), since `C` last
    /// occurred.
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

    /// Loops in the decided level's longest pass (at least one).
    fn pass(&self) -> u64 {
        self.level.max_pass.max(1)
    }

    /// Takes over the verification's votes of `old`, member by member: the same passes,
    /// anchored anew, are still being verified (an inner loop that ran once per pass so far may
    /// be iterating right now; starting the votes afresh would wait a whole pass to see it).
    fn keep_votes(&mut self, old: &Decision) {
        for (m, v) in self.level.members.iter().zip(self.since.iter_mut()) {
            if let Some(i) = old.level.members.iter().position(|o| o == m) {
                *v = old.since[i];
            }
        }
        self.missing = self.since.iter().filter(|&&v| v == 3).count() as u32;
    }
}

/// Where the confirmation of decision `d` ends (see [`CONFIRM_PASSES`]), counted from the loop
/// at which it was taken.
fn confirmation_end(d: &Decision) -> u64 {
    d.at_loop + (CONFIRM_PASSES * d.pass()).max(CONFIRM_LOOPS)
}

/// The decided verification's state ([`Learner::verify_state_into`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct VerifyState {
    head: VerifyHead,
    /// [`Decision::since`].
    since: Vec<u8>,
}

/// A [`VerifyState`] but the members' states.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct VerifyHead {
    location: u32,
    at_loop: u64,
    known: usize,
    missing: u32,
    voters: u32,
    twos: u32,
}

/// [`Decision::since`] in numbers: how many members have been seen since the decision (the
/// voters) and how many of them saw the chosen location since.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    voters: u32,
    twos: u32,
}

impl Tally {
    /// The chosen location, occurring now, repeats: most members seen since the decision have
    /// not run since its last occurrence (a majority counts once most members were seen).
    fn repeats(&self, d: &Decision) -> bool {
        let quorum = 2 * self.voters as usize > d.since.len();
        quorum && self.twos > 0 && 2 * self.twos >= self.voters
    }

    fn of(d: &Decision) -> Tally {
        Tally {
            voters: d.since.iter().filter(|&&v| v > 0).count() as u32,
            twos: d.since.iter().filter(|&&v| v == 2).count() as u32,
        }
    }
}

/// The location learner (see the module docs).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Learner {
    phase: Phase,
    /// The loops recorded while learning, watching or reviewing.
    rec: Recording,
    next_analysis: u64,
    levels: Vec<Level>,
    /// The level the latest analysis selected while learning (measured, not yet decided).
    candidate: Option<Level>,
    samples: BTreeMap<u32, Samples>,
    decision: Option<Decision>,
    /// Sorted locations that are part of the decided passes: the decided level's union and
    /// what reviews saw; any other that recurs starts a review.
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
    /// A boundary of the decided passes found to save clearly less than the chosen one, and how
    /// many of its regions had been measured then: checkpoints move there if it still does with
    /// one region more (the pass its figure lacked then may be the one that makes it large).
    #[serde(default)]
    better_since: Option<(u32, usize)>,
    /// Locations seen not to run once per pass (a chosen location that repeated, with the
    /// members that repeated with it, or was skipped): never boundaries again (sorted).
    #[serde(default)]
    excluded: Vec<u32>,
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

    /// Whether an occurrence of the chosen location now would end a pass of the decided level,
    /// rather than repeat inside one (the verification of that occurrence is to tell): a
    /// checkpoint counted in passes opens only where one ends.
    pub fn ends_pass(&self) -> bool {
        self.decision
            .as_ref()
            .is_none_or(|d| !self.tally.repeats(d))
    }

    /// What checkpoints counted in passes (`--ops-checkpoint-every`) count now. Those due by
    /// time or asked for by the program do not depend on it.
    #[inline]
    pub fn counting(&self) -> Counting {
        match self.phase {
            Phase::Reviewing { broken: true, .. } | Phase::Reviewing { lost: true, .. } => {
                Counting::Paused
            }
            Phase::Reviewing {
                pace: Some(loc), ..
            } => Counting::Suspect(loc),
            _ => Counting::Chosen,
        }
    }

    /// Every location measured, with its measurements.
    pub fn samples(&self) -> &BTreeMap<u32, Samples> {
        &self.samples
    }

    /// The levels of the latest analysis, finest first.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// True when the loop at `index` analyses the recorded trace (most recorded loops only
    /// append to it): what a caller timing the learner's work must not sample away.
    #[inline]
    pub fn analyses_at(&self, index: u64) -> bool {
        match self.phase {
            Phase::Decided | Phase::Watching { .. } => false,
            Phase::Reviewing { until, .. } => index >= self.next_analysis || index >= until,
            Phase::Learning => index >= self.next_analysis,
        }
    }

    /// The suspect whose passes pace checkpoints counted in passes now (see `Counting::Suspect`).
    pub fn pacing(&self) -> Option<u32> {
        match self.counting() {
            Counting::Suspect(x) if self.recording() => Some(x),
            _ => None,
        }
    }

    /// Occurrences of location `loc` in the recording at loop indices `from` and later.
    pub fn occurrences_since(&self, loc: u32, from: u64) -> u64 {
        let skip = from.saturating_sub(self.rec.start) as usize;
        self.rec
            .locs
            .iter()
            .skip(skip)
            .filter(|&&l| l == loc)
            .count() as u64
    }

    /// True while loops are recorded (learning, watching, confirming, reviewing).
    #[inline]
    pub fn recording(&self) -> bool {
        !matches!(self.phase, Phase::Decided)
    }

    /// Before the decision: the member of the selected level with the smallest figure (where a
    /// checkpoint asked for now would best open), once all are measured.
    pub fn provisional(&self) -> Option<u32> {
        self.candidate
            .as_ref()
            .and_then(|l| self.best_member(l))
            .map(|(m, _)| m)
    }

    /// What a real checkpoint at the decided location saved (told when the next checkpoint
    /// opens, so that a run restarted from the first one, which has its size in the file,
    /// learns it at the same loop): one more measurement of the location.
    pub fn observe(&mut self, loc: u32, bytes: u64, index: u64) {
        let Some(d) = self.decision.as_mut() else {
            return;
        };
        if d.location != loc {
            return;
        }
        d.bytes = d.bytes.max(bytes);
        self.samples.entry(loc).or_default().add(index, bytes);
    }

    /// Each member's figure once it was measured [`MEASURE`] times.
    fn measured(&self, level: &Level) -> bool {
        level
            .members
            .iter()
            .all(|m| self.samples.get(m).is_some_and(|s| s.count >= MEASURE))
    }

    /// The member of `level` with the smallest figure; between figures within 1 % of each
    /// other the smaller mean, then the first in pass order. Each figure is the member's largest
    /// measurement, of regions opening in the passes every member's regions of which have
    /// closed (all but the last two recorded passes, [`Learner::fair_until`]): every figure
    /// covers the same passes, so a member whose latest region has not closed cannot look
    /// cheaper for missing the pass that makes the others large.
    fn best_member(&self, level: &Level) -> Option<(u32, u64)> {
        self.best_member_until(level, self.fair_until(level))
    }

    /// The loop index before which the regions of every member of `level` opened and closed
    /// (the second-to-last recorded occurrence of its anchor; all loops when it has not occurred
    /// twice in the recording).
    fn fair_until(&self, level: &Level) -> u64 {
        let rec = &self.rec;
        let mut at = (0..rec.len())
            .rev()
            .filter(|&s| rec.locs[s] == level.anchor);
        match (at.next(), at.next()) {
            (Some(_), Some(s)) => (rec.start + s as u64).saturating_sub(1),
            _ => u64::MAX,
        }
    }

    /// [`Learner::best_member`], with the figures of regions opening at or before loop `until`.
    fn best_member_until(&self, level: &Level, until: u64) -> Option<(u32, u64)> {
        let mut best: Option<(u32, u64, f64)> = None;
        for &m in &level.members {
            let Some(s) = self.samples.get(&m) else {
                continue;
            };
            let Some(max) = s.max_until(until) else {
                continue;
            };
            let mean = s.min_mean().1;
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

    /// The decided verification's state (what [`Learner::verify`] reads and writes of a decided
    /// run), copied into `out`; false (and `out` left as it was) when nothing is decided or
    /// the learner is recording. A run of loops that starts from the same state and the same
    /// locations leaves the same state (the engine's repeated passes use it).
    pub(crate) fn verify_state_into(&self, out: &mut VerifyState) -> bool {
        let Some((head, since)) = self.verify_state() else {
            return false;
        };
        out.head = head;
        out.since.clear();
        out.since.extend_from_slice(since);
        true
    }

    /// Whether the verification's state is `s` ([`Learner::verify_state_into`]).
    pub(crate) fn verify_state_is(&self, s: &VerifyState) -> bool {
        self.verify_state()
            .is_some_and(|(head, since)| head == s.head && since == s.since)
    }

    /// The verification's state, the members' borrowed: `None` without a decision or while
    /// recording.
    fn verify_state(&self) -> Option<(VerifyHead, &[u8])> {
        let d = self.decision.as_ref().filter(|_| !self.recording())?;
        let head = VerifyHead {
            location: d.location,
            at_loop: d.at_loop,
            known: self.known.len(),
            missing: d.missing,
            voters: self.tally.voters,
            twos: self.tally.twos,
        };
        Some((head, &d.since))
    }

    /// Sets the verification's state to `s`, taken of the same decision (what verifying a run
    /// of loops left once, which the same run from the same state leaves again).
    pub(crate) fn set_verify_state(&mut self, s: &VerifyState) {
        let d = self.decision.as_mut().expect("a decision");
        debug_assert!(d.location == s.head.location && d.at_loop == s.head.at_loop);
        d.since.copy_from_slice(&s.since);
        d.missing = s.head.missing;
        self.tally.voters = s.head.voters;
        self.tally.twos = s.head.twos;
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
    /// chosen location occurring twice without a member in between says it repeats. When every
    /// member says it was skipped (one repeating alone is itself no loop of the pass), or at
    /// least half say it repeats (the others may be an inner loop's members, repeating with it),
    /// the chosen location must go: a review finds where.
    fn verify(&mut self, loc: u32, index: u64) -> Option<Event> {
        let d = self.decision.as_mut()?;
        let member = self.member_of.get(loc as usize).copied().unwrap_or(0) as usize;
        if member == 0 {
            return None;
        }
        let i = member - 1;
        let repeats = self.tally.repeats(d);
        let t = &mut self.tally;
        let voters = t.voters;
        // A majority counts once most members have been seen since the decision.
        let quorum = 2 * voters as usize > d.since.len();
        let mut out: Vec<u32> = Vec::new();
        let wrong = if loc == d.location {
            let twice = t.twos;
            if repeats {
                // It repeated, and so did the members seen since its last occurrence: an inner
                // loop's, taken for loops of the pass.
                out.extend(
                    d.level
                        .members
                        .iter()
                        .zip(&d.since)
                        .filter(|(_, &v)| v == 1 || v == 3)
                        .map(|(&m, _)| m),
                );
            }
            if twice < voters {
                for v in d.since.iter_mut().filter(|v| **v > 0) {
                    *v = 2;
                }
                t.twos = voters;
            }
            d.missing = 0;
            repeats
        } else {
            // A member seen again without `C` in between says `C` was skipped, once however
            // often it repeats (an inner loop taken for a member repeats many times; it is one
            // voter, and it cannot outvote the others).
            let was = d.since[i];
            let skipped = was == 1 || was == 3;
            d.missing += u32::from(was == 1);
            t.voters += u32::from(was == 0);
            t.twos -= u32::from(was == 2);
            d.since[i] = if skipped { 3 } else { 1 };
            quorum && d.missing >= t.voters
        };
        if !wrong {
            return None;
        }
        out.push(d.location);
        for l in out {
            if let Err(i) = self.excluded.binary_search(&l) {
                self.excluded.insert(i, l);
            }
        }
        if let Phase::Reviewing { broken, .. } = &mut self.phase {
            // Already reviewing: its verdict must move the chosen location.
            *broken = true;
            return None;
        }
        let until = index + REVIEW_GAPS * d.pass();
        let event = self.review(loc, index, until);
        if let Phase::Reviewing { broken, .. } = &mut self.phase {
            *broken = true;
        }
        Some(event)
    }

    /// Starts a review (see the module docs), keeping what is recorded (a watch's loops):
    /// after a decision (no trigger), or because location `trigger` recurred.
    fn start_review(&mut self, trigger: Option<u32>, index: u64, until: u64) {
        self.phase = Phase::Reviewing {
            trigger,
            until,
            broken: false,
            pace: None,
            lost: false,
        };
        self.next_analysis = index + ANALYSIS_GAP;
    }

    /// A review started by location `trigger`.
    fn review(&mut self, trigger: u32, index: u64, until: u64) -> Event {
        self.start_review(Some(trigger), index, until);
        Event::ReviewStarted(trigger)
    }

    /// One loop at location `loc`, index `index`, with accesses `fp`, before it runs and
    /// before the tracker records its writes.
    ///
    /// `tag` hashes the loop's global constants (`calls::globals_tag`); it is read only
    /// while [`Learner::recording`] (0 otherwise).
    #[inline]
    pub fn on_loop(
        &mut self,
        loc: u32,
        index: u64,
        fp: &Arc<Footprint>,
        tag: u64,
        counts: &dyn Counts,
        targets: &dyn Targets,
    ) -> Option<Event> {
        // Most loops of a run come here decided, with nothing recorded: they only check the
        // decision.
        if matches!(self.phase, Phase::Decided) {
            if let Some(e) = self.verify(loc, index) {
                return Some(e);
            }
            if !self.is_known(loc) {
                return self.unknown(loc, index, fp, counts);
            }
            return None;
        }
        self.on_loop_recording(loc, index, fp, tag, counts, targets)
    }

    /// A decided loop at a location the decided passes never ran: a review if it recurs, else
    /// a watch (recording from here, so that the passes it runs in are measured whole if it
    /// does).
    #[inline(never)]
    fn unknown(
        &mut self,
        loc: u32,
        index: u64,
        fp: &Arc<Footprint>,
        counts: &dyn Counts,
    ) -> Option<Event> {
        let pass = self.decision.as_ref()?.pass();
        self.rec.clear();
        self.rec.push(loc, index, fp, 0);
        if counts.count(loc) >= 2 {
            return Some(self.review(loc, index, index + REVIEW_GAPS * pass));
        }
        self.phase = Phase::Watching {
            loc,
            until: index + WATCH_PASSES * pass,
        };
        None
    }

    /// [`Learner::on_loop`] while learning, watching, confirming or reviewing.
    #[inline(never)]
    fn on_loop_recording(
        &mut self,
        loc: u32,
        index: u64,
        fp: &Arc<Footprint>,
        tag: u64,
        counts: &dyn Counts,
        targets: &dyn Targets,
    ) -> Option<Event> {
        self.rec.push(loc, index, fp, tag);
        if self.rec.len() >= TRACE_CAP {
            self.rec.drop_oldest(TRACE_CAP / 2);
        }
        if self.decision.is_some() {
            if let Some(e) = self.verify(loc, index) {
                return Some(e);
            }
        }
        match self.phase {
            Phase::Watching { loc: w, until } => {
                if loc == w || (!self.is_known(loc) && counts.count(loc) >= 2) {
                    let pass = self.decision.as_ref()?.pass();
                    return Some(self.review(loc, index, index + REVIEW_GAPS * pass));
                }
                if index >= until {
                    self.end_recording();
                }
                return None;
            }
            Phase::Reviewing { until, .. } if index >= until => {
                self.levels = structure::analyse(&self.rec.locs);
                let event = self.try_revise(index, counts, targets, true);
                // No level holds the decided passes any more, and none has formed to take
                // their place (the iteration enclosing them has yet to recur often enough): the
                // review goes on rather than take what it recorded for the decided passes.
                if let Phase::Reviewing {
                    until, lost: true, ..
                } = &mut self.phase
                {
                    if event.is_none() && self.rec.len() < TRACE_CAP / 2 {
                        let pass = self.decision.as_ref().map_or(1, Decision::pass);
                        *until = index + REVIEW_GAPS * pass;
                        return None;
                    }
                }
                if event.is_none() {
                    self.know_recorded();
                }
                self.end_recording();
                return event.or(Some(Event::ReviewEnded));
            }
            _ => {}
        }
        // A loop that ran before the decided passes began, recurring for the first time, may
        // be the prefix of a time step around them (a suspect): analysed within a decided pass
        // (once the passes resume after it), so that checkpoints counted in passes are paced
        // by it from its first recurrence.
        if let Some(d) = &self.decision {
            if counts.count(loc) == 2 && counts.first(loc) < counts.first(d.level.anchor) {
                self.next_analysis = self.next_analysis.min(index + d.pass());
            }
        }
        if index < self.next_analysis {
            return None;
        }
        self.levels = structure::analyse(&self.rec.locs);
        let len = self.rec.len() as u64;
        self.next_analysis = index + ANALYSIS_GAP.max(len / 8);
        match self.phase {
            Phase::Learning => self.try_decide(index, counts, targets),
            Phase::Reviewing { .. } => self.try_revise(index, counts, targets, false),
            _ => None,
        }
    }

    /// Takes what was recorded since the decided level's first recorded pass as part of its
    /// passes (what ran before, a start-up, stays unknown: should it recur, the program has
    /// left what was taken for its outer iteration).
    fn know_recorded(&mut self) {
        let Some(d) = &self.decision else { return };
        let from = self
            .rec
            .locs
            .iter()
            .position(|&l| l == d.level.anchor)
            .unwrap_or(0);
        let seen: Vec<u32> = self.rec.locs[from..].to_vec();
        self.set_known(seen);
    }

    /// The recording as the structure analysis reads it.
    fn view<'a>(&'a self, first: &'a dyn Fn(u32) -> u64) -> structure::Trace<'a> {
        structure::Trace {
            locs: &self.rec.locs,
            tags: &self.rec.tags,
            fetches: &self.rec.fetches,
            values: &self.rec.values,
            first,
            fps: &self.rec.fps,
            footprints: Some(&self.rec.table),
        }
    }

    /// Stops recording: the decision stands.
    fn end_recording(&mut self) {
        self.phase = Phase::Decided;
        self.rec.clear();
        self.levels.clear();
    }

    /// A value of dataset `dat` handed to the program (a fetch): recorded as a read.
    pub fn on_read(&mut self, dat: u32, b: &Bx) {
        if self.recording() {
            self.rec.access(dat, *b, false);
        }
    }

    /// A reduction's result was handed to the program: recorded (an inner loop decides whether
    /// to iterate again on such values).
    pub fn on_value(&mut self) {
        if self.recording() {
            self.rec.value();
        }
    }

    /// The program is about to set `b` of dataset `dat`: recorded as a write.
    pub fn on_set(&mut self, dat: u32, b: &Bx) {
        if self.recording() {
            self.rec.access(dat, *b, true);
        }
    }

    /// Measures every member of `level` at each of its recorded occurrences not measured yet
    /// whose region would have closed by now (see [`liveness`]).
    fn measure(&mut self, level: &Level, counts: &dyn Counts, targets: &dyn Targets) {
        let rec = &self.rec;
        let Some(from) = rec.locs.iter().position(|&l| l == level.anchor) else {
            return;
        };
        let len = rec.len();
        // Where each member occurs from the level's first pass on, in one walk of the trace.
        let top = level.members.iter().max().map_or(0, |&m| m as usize + 1);
        let mut positions: Vec<Vec<usize>> = vec![Vec::new(); top];
        let mut wanted = vec![false; top];
        for &m in &level.members {
            wanted[m as usize] = true;
        }
        // Regions are measured in order: the walk starts at the earliest of the members' latest
        // measured regions (what comes before is measured).
        let measured_to = level
            .members
            .iter()
            .map(|m| {
                let latest = self.samples.get(m).and_then(|s| s.bytes.last_key_value());
                latest.map_or(0, |(&i, _)| i.saturating_sub(rec.start) as usize)
            })
            .min()
            .unwrap_or(0);
        for (s, &l) in rec.locs.iter().enumerate().skip(from.max(measured_to)) {
            if wanted.get(l as usize).copied().unwrap_or(false) {
                positions[l as usize].push(s);
            }
        }
        let mut windows = Vec::new();
        let mut whose = Vec::new();
        for &m in &level.members {
            let bound = region_bound(counts.max_gap(m)) as usize;
            let done = self.samples.get(&m);
            let at: &[usize] = positions.get(m as usize).map_or(&[], |p| p.as_slice());
            for (k, &open) in at.iter().enumerate() {
                let index = rec.start + open as u64;
                if done.is_some_and(|s| s.has(index)) {
                    continue;
                }
                let close = match at.get(k + 1) {
                    Some(&next) => next.min(open + bound),
                    None if open + bound <= len => open + bound,
                    None => continue,
                };
                windows.push(liveness::Window { open, close });
                whose.push((m, index));
            }
        }
        if windows.is_empty() {
            return;
        }
        let mut dats = targets.dat_infos();
        liveness::steady_targets(rec, from, &mut dats, |l| counts.count(l) >= 2);
        let bytes = liveness::sweep(rec, &dats, &windows);
        for ((m, index), b) in whose.into_iter().zip(bytes) {
            self.samples.entry(m).or_default().add(index, b);
        }
    }

    /// The sizes of the boxes a checkpoint at `loc` copies, from its latest recorded complete
    /// region (to prepare buffers for the first checkpoint).
    pub fn copy_sizes(&self, loc: u32, counts: &dyn Counts, targets: &dyn Targets) -> Vec<usize> {
        let rec = &self.rec;
        let at: Vec<usize> = (0..rec.len()).filter(|&s| rec.locs[s] == loc).collect();
        let Some(w) = at.windows(2).last() else {
            return Vec::new();
        };
        let bound = region_bound(counts.max_gap(loc)) as usize;
        let mut dats = targets.dat_infos();
        liveness::steady_targets(rec, at[0], &mut dats, |l| counts.count(l) >= 2);
        let window = liveness::Window {
            open: w[0],
            close: w[1].min(w[0] + bound),
        };
        liveness::dry_region(rec, &dats, window).sizes
    }

    fn try_decide(
        &mut self,
        index: u64,
        counts: &dyn Counts,
        targets: &dyn Targets,
    ) -> Option<Event> {
        let first = |l: u32| counts.first(l);
        let (level, wait) = match structure::select(&self.levels, self.view(&first)) {
            Selection::Nothing => return None,
            Selection::Level(l) => (l.clone(), false),
            Selection::Wait(l, _) => (l.clone(), true),
        };
        self.measure(&level, counts, targets);
        self.candidate = Some(level.clone());
        if wait || !self.measured(&level) {
            return None;
        }
        let (location, _) = self.best_member(&level)?;
        let bytes = self.samples.get(&location).map_or(0, |s| s.max);
        self.decide(level, location, bytes, index);
        self.confirm(index);
        Some(Event::Decided)
    }

    /// Confirms the decision over the next passes: the recording goes on.
    fn confirm(&mut self, index: u64) {
        let until = self.decision.as_ref().map_or(index, confirmation_end);
        self.start_review(None, index, until);
    }

    fn decide(&mut self, level: Level, location: u32, bytes: u64, index: u64) {
        self.set_known(level.union.iter().copied());
        let mut d = Decision::new(level, location, bytes, index);
        // The members' states as the recorded loops leave them, so that the first pass after
        // the decision is checked like any other.
        let last = |l: u32| self.rec.locs.iter().rposition(|&x| x == l);
        let chosen = last(location);
        for (i, &m) in d.level.members.iter().enumerate() {
            if m != location {
                d.since[i] = match (last(m), chosen) {
                    (None, _) => 0,
                    (Some(a), Some(c)) if c > a => 2,
                    _ => 1,
                };
            }
        }
        self.decision = Some(d);
        self.candidate = None;
        self.better_since = None;
        self.rebuild_bits();
    }

    /// A review's verdict, from the structure analysed again over what it recorded: the outer
    /// iteration as [`structure::select`] finds it now (as when learning: the finest level that
    /// covers the program, moved out of an inner loop's iterations to the level enclosing them;
    /// a finer level running inside every pass of the decided one is taken for an inner loop of
    /// it), with what the decided passes showed kept (a location they saw run other than once
    /// per pass is no boundary, though the review's shorter trace may not show it; a chosen
    /// location found not to run once per pass is none either). If the chosen location is one
    /// of its boundaries, checkpoints stay there unless another boundary saves [`MOVE_MARGIN`]
    /// times less over the same passes, and still does a pass later; otherwise they move to its
    /// cheapest boundary, once every boundary is measured. Nothing changes while no level
    /// covers the recorded loops.
    fn try_revise(
        &mut self,
        index: u64,
        counts: &dyn Counts,
        targets: &dyn Targets,
        last: bool,
    ) -> Option<Event> {
        let broken = matches!(self.phase, Phase::Reviewing { broken: true, .. });
        if let Phase::Reviewing { pace, lost, .. } = &mut self.phase {
            // Doubt lasts while the analyses that find it go on.
            *pace = None;
            *lost = false;
        }
        let d = self.decision.as_ref()?;
        let from = d.location;
        let first = |l: u32| counts.first(l);
        if self.levels.is_empty() {
            self.levels = structure::analyse(&self.rec.locs);
        }
        // The decided passes as the new analysis sees them: the level holding the chosen
        // location and most of their other boundaries (then the one anchored where they were,
        // then the finest). Boundaries that run more often since (an inner loop that iterated
        // once until the decision) fall out of it. The chosen location's own recurrence, alone,
        // is not them: a branch taken in every step so far, then skipped now and then, recurs
        // every step or two, a level of which it is the only member.
        let shared = |l: &Level| {
            l.members
                .iter()
                .filter(|m| d.level.members.contains(m))
                .count()
        };
        let alone = d.level.members.len() == 1;
        let current = self
            .levels
            .iter()
            .filter(|l| l.eligible && shared(l) > 0)
            .max_by_key(|l| {
                // Once the chosen location was seen to go, levels without it come first (the
                // members that repeated with it are an inner loop's).
                let holds = l.members.contains(&from);
                let first = match broken {
                    true => !holds,
                    false => holds && (alone || shared(l) > 1),
                };
                (first, shared(l), l.anchor == d.level.anchor, l.passes)
            });
        // No eligible level holds any decided boundary, though the recording is long enough for
        // the decided passes to form one: they are not what the program repeats (an inner loop
        // taken for it, whose enclosing iteration has yet to form a level of its own). Unless a
        // decided pass is still running, longer than any before, on the decided boundaries
        // only (an inner loop of members that ran once per pass so far iterating now): the
        // level looks dead until its anchor recurs.
        let long = self.rec.len() as u64 > (structure::MIN_PASSES as u64 + 1) * d.level.max_pass;
        let in_pass = || {
            let locs = &self.rec.locs;
            let running = locs
                .iter()
                .rposition(|&l| l == d.level.anchor)
                .is_some_and(|p| locs[p..].iter().all(|l| d.level.members.contains(l)));
            // The decided level, eligible but for its anchor's long absence.
            running
                && self.levels.iter().any(|l| {
                    l.anchor == d.level.anchor
                        && l.passes >= structure::MIN_PASSES
                        && l.covers
                        && l.alike
                        && !l.alive
                })
        };
        if current.is_none() && long && !in_pass() {
            if let Phase::Reviewing { lost, .. } = &mut self.phase {
                *lost = true;
            }
        }
        let t = self.view(&first);

        if broken {
            // The decided passes without the location that went are yet to show: the pass it
            // left has not closed (the analysis still counts it a member), or they have not
            // recurred often enough to form a level in the review's recording. A finer level
            // is no verdict before they do.
            let rest = d.level.members.iter().filter(|&&m| m != from);
            let most = rest
                .map(|&m| self.rec.locs.iter().filter(|&&l| l == m).count())
                .max()
                .unwrap_or(0);
            let pass = 2 * d.pass();
            let unseen = match current {
                Some(c) => c.members.contains(&from),
                None => {
                    most <= structure::MIN_PASSES && (most > 0 || index < self.rec.start + pass)
                }
            };
            if unseen {
                if let Phase::Reviewing { until, .. } = &mut self.phase {
                    *until = (*until).max(index + pass);
                }
                return None;
            }
        }
        let selected = match structure::select(&self.levels, t) {
            // A finer level that runs inside every pass of the decided one is an inner loop of
            // it (the decided passes were seen to be the outer iteration), even where its trip
            // count alone would not tell: an inner loop that iterated once until the decision.
            Selection::Level(l) | Selection::Wait(l, _)
                if current.is_some_and(|c| structure::inside(t, l, c)) =>
            {
                current.expect("checked")
            }
            // While the chosen location still runs once in every pass of the decided level, a
            // finer level that does not hold it once per pass is no outer iteration (its
            // passes are parts of one: the two sweeps of a step that alternates directions).
            Selection::Level(l) | Selection::Wait(l, _)
                if !broken
                    && !l.members.contains(&from)
                    && current
                        .is_some_and(|c| c.members.contains(&from) && l.passes > c.passes) =>
            {
                current.expect("checked")
            }
            // The same while the decided passes have yet to recur in the review's recording
            // (no level holds them yet): a level whose loops all ran inside them, without the
            // chosen location, is a part of them (the inner solve of a step whose enclosing
            // iteration the review has yet to see whole), not what they are part of.
            Selection::Level(l) | Selection::Wait(l, _)
                if !broken
                    && current.is_none()
                    && !l.members.contains(&from)
                    && l.max_pass < d.level.max_pass
                    && l.union.iter().all(|&m| d.level.reaches(m)) =>
            {
                return None;
            }
            Selection::Level(l) => l,
            Selection::Wait(l, why) => {
                // An enclosing level may still show (the prefix of a time step around what was
                // taken for it has recurred): nothing moves, and the review lasts until it can
                // tell. A level that holds the decided passes without the chosen location (one
                // enclosing them, itself in doubt) paces checkpoints meanwhile, unless a suspect
                // does: counted in the decided passes, they would come once per inner iteration.
                let encloses = l.anchor != d.level.anchor && !l.members.contains(&from);
                let pace_by = why.pace.or(encloses.then_some(l.anchor));
                if let Phase::Reviewing { until, pace, .. } = &mut self.phase {
                    *until = (*until).max(index + 2 * why.gap.max(1));
                    *pace = pace_by;
                }
                return None;
            }
            Selection::Nothing => return None,
        };
        let mut better = selected.clone();
        better
            .members
            .retain(|m| self.excluded.binary_search(m).is_err());
        let old = &d.level;
        let same_passes = better.members.contains(&from) && !broken;
        if same_passes {
            // The decided passes again, anchored anew: what they showed stays true, though the
            // review's passes may not show it (an inner loop that has not iterated twice since,
            // a branch taken every time since): a location seen other than once per pass is no
            // member.
            better
                .members
                .retain(|m| old.members.contains(m) || !old.reaches(*m));
        }
        if better.members.is_empty() {
            return None;
        }
        better.anchor = better.members[0];
        let encloses = !same_passes && better.max_pass > old.max_pass;
        self.measure(&better, counts, targets);
        if !self.measured(&better) {
            // The new level's boundaries are measured as the review goes on. Meanwhile, if
            // its passes are longer (it encloses the decided ones), checkpoints counted in
            // passes count its passes.
            if let Phase::Reviewing { until, pace, .. } = &mut self.phase {
                *until = (*until).max(index + 2 * better.max_pass.max(1));
                if encloses {
                    *pace = Some(better.anchor);
                }
            }
            return None;
        }
        let (location, fair) = if same_passes {
            // Every region measured: the chosen location's figure counts them all.
            self.best_member_until(&better, u64::MAX)?
        } else {
            self.best_member(&better)?
        };
        let bytes = self.samples.get(&location).map_or(fair, |s| s.max);
        if same_passes {
            // The chosen location still runs once per pass: it stays unless another boundary
            // saves clearly less over every region measured, by more than [`MOVE_MARGIN`].
            let sample = self.samples.get(&from);
            let now = sample.map_or(u64::MAX, |s| s.max);
            let cheaper = location != from && fair as f64 * MOVE_MARGIN < now as f64;
            // The advantage must hold over one region more: a figure grows with the passes
            // measured, and another boundary's may not have met yet the pass that makes it as
            // large.
            let measured = self.samples.get(&location).map_or(0, |s| s.count);
            let held = match self.better_since {
                Some((l, then)) if l == location => measured >= then + HOLD_REGIONS,
                _ => false,
            };
            if cheaper && !held && !last {
                if !matches!(self.better_since, Some((l, _)) if l == location) {
                    self.better_since = Some((location, measured));
                }
                return None;
            }
            if !cheaper {
                self.better_since = None;
                let most = sample.map_or(0, |s| s.max);
                if let Some(d) = self.decision.as_mut() {
                    d.bytes = d.bytes.max(most);
                    if better.anchor != d.level.anchor || better.members != d.level.members {
                        let (at, b) = (d.at_loop, d.bytes);
                        let old = std::mem::replace(d, Decision::new(better, from, b, at));
                        d.keep_votes(&old);
                    }
                }
                self.rebuild_bits();
                return None;
            }
        }
        tracing::trace!(
            index,
            from,
            broken,
            same_passes,
            fair,
            location,
            levels = ?self.levels,
            samples = ?self.samples,
            "checkpoint location revised"
        );
        let confirming = matches!(self.phase, Phase::Reviewing { trigger: None, .. });
        let confirmed_at = self.decision.as_ref().map_or(0, confirmation_end);
        self.decide(better, location, bytes, index);
        if confirming && encloses && index < confirmed_at {
            // What was being confirmed is an inner loop of the new level, which may be one too
            // (a solve inside the iterations of a solve inside the time step): the confirmation
            // goes on to its end, on the same recording, where the loops that ran before the
            // new level's passes began are seen if they recur. (Not beyond: a level found after
            // the confirmation's own passes, long ones, is left to reviews, which cost nothing
            // until a loop outside the decided passes recurs.)
            self.start_review(None, index, confirmed_at);
        } else if !confirming || !same_passes {
            // A review's verdict, or a new outer iteration: it stands.
            self.know_recorded();
            self.end_recording();
        }
        Some(Event::Revised { from })
    }
}
