//! Loop locations and the statistics that choose where checkpoint regions open.
//!
//! A location is a loop's name and its call site (`name@file:line:col`, from
//! `#[track_caller]`): the same loop in the program text, however often it runs. The tracker
//! counts every location's occurrences and, at some of them ([`LocTable::wants_sample`]: not
//! before the program looks periodic, then ever more rarely), runs a dry region there to
//! measure how many bytes a checkpoint entered there would save, keeping the latest
//! [`SAMPLES`]. [`LocTable::choose`] picks, among the locations that recur at least
//! once per pass of the time loop (judged by their largest gap between occurrences against the
//! median one), the one with the smallest mean; ties go to the
//! more frequent, then to the one seen first. The first choice is made once the program looks
//! periodic ([`LocTable::ready`]); later samples may revise it (a phase that looked periodic,
//! such as a halo exchange over many fields at start-up, is no time loop).

use std::collections::HashMap;

use ops_core::LoopPlan;
use serde::{Deserialize, Serialize};

/// Samples (dry regions) kept per location during learning: the latest ones.
pub const SAMPLES: usize = 3;
/// The first occurrence of a location at which a dry region starts.
pub const FIRST_SAMPLE: u64 = 3;

/// Most dry regions started at one location over a run.
pub const MAX_SAMPLES: u64 = 6;

/// Statistics of one location.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocInfo {
    /// `name@file:line:col`.
    pub key: String,
    /// The loop's name.
    pub name: String,
    /// The call site's file.
    pub file: String,
    /// The call site's line.
    pub line: u32,
    /// The call site's column.
    pub col: u32,
    /// Occurrences so far.
    pub count: u64,
    /// Index of the first occurrence.
    pub first: u64,
    /// Index of the latest occurrence.
    pub last: u64,
    /// Loops between the two latest occurrences (0 before the second).
    pub gap: u64,
    /// Largest gap so far.
    pub max_gap: u64,
    /// Bytes a checkpoint entered here would have saved: the latest finished dry regions.
    pub samples: Vec<u64>,
    /// Dry regions finished here in all.
    #[serde(default)]
    pub sampled: u64,
    /// Dry regions started here in all.
    #[serde(default)]
    pub started: u64,
    /// The occurrence from which the next dry region may start.
    #[serde(default)]
    pub next_sample: u64,
    /// A dry region started here is still running.
    #[serde(skip)]
    pub sampling: bool,
    /// Byte sizes of the boxes the latest dry region here would have copied.
    #[serde(skip)]
    pub last_sizes: Vec<usize>,
}

impl LocInfo {
    /// Smallest, mean and largest sample, if any.
    pub fn stats(&self) -> Option<(u64, f64, u64)> {
        if self.samples.is_empty() {
            return None;
        }
        let min = *self.samples.iter().min().expect("non-empty");
        let max = *self.samples.iter().max().expect("non-empty");
        let mean = self.samples.iter().sum::<u64>() as f64 / self.samples.len() as f64;
        Some((min, mean, max))
    }
}

/// Slots of the location cache.
const CACHE: usize = 256;

/// File, loop name and id of a location, bucketed by (line, column).
type SiteEntry = (Box<str>, Box<str>, u32);

/// Every location seen, by dense id in first-seen order.
#[derive(Debug, Default)]
pub struct LocTable {
    /// The locations.
    pub locs: Vec<LocInfo>,
    /// Loop index at which the latest new location appeared.
    pub last_new: u64,
    /// Loop index at which some location first occurred a second time.
    pub first_recur: Option<u64>,
    /// Loop index at which some location first occurred again after other loops ran in
    /// between (a gap of 2 or more): the end of start-up. A loop repeated back to back, such
    /// as one start-up loop per initial state, does not end it.
    pub first_pass_recur: Option<u64>,
    /// Locations that first appeared after `first_recur` (candidates for the time loop).
    eligible: u32,
    /// Of those, the ones that have not occurred again since the latest new location.
    pending: u32,
    /// While true (before the first choice), a new location discards every sample: the
    /// program was not in its time loop yet.
    pub forget_on_new: bool,
    /// Incremented each time samples are discarded; dry regions started in an older epoch
    /// report nothing.
    pub epoch: u64,
    map: HashMap<(u32, u32), Vec<SiteEntry>, crate::track::FastState>,
    /// Direct-mapped cache in front of `map`: (call-site address, name, id).
    cache: Vec<Option<(usize, Box<str>, u32)>>,
}

/// The key of a loop: `name@file:line:col`.
pub fn key_of(plan: &LoopPlan<'_>) -> String {
    let l = plan.location;
    format!("{}@{}:{}:{}", plan.name, l.file(), l.line(), l.column())
}

/// True when a location key matches a user's spec: the loop name alone, `name@file:line`, or
/// the full key. `*` matches everything.
///
/// ```
/// use ops_resilience::location::spec_matches;
/// let key = "reset_field@src/clover.rs:1602:18";
/// assert!(spec_matches("reset_field", key));
/// assert!(spec_matches("reset_field@src/clover.rs:1602", key));
/// assert!(spec_matches(key, key));
/// assert!(spec_matches("*", key));
/// assert!(!spec_matches("reset", key));
/// assert!(!spec_matches("reset_field@src/clover.rs:160", key));
/// ```
pub fn spec_matches(spec: &str, key: &str) -> bool {
    if spec == "*" || spec == key {
        return true;
    }
    let name = key.split('@').next().unwrap_or(key);
    if spec == name {
        return true;
    }
    // name@file:line (without the column)
    match key.rfind(':') {
        Some(i) => &key[..i] == spec,
        None => false,
    }
}

impl LocTable {
    /// The id of the plan's location, adding it if new (does not count an occurrence).
    pub fn id_of(&mut self, plan: &LoopPlan<'_>, index: u64) -> u32 {
        // `Location`s of call sites are statics: the address identifies the site.
        let addr = plan.location as *const std::panic::Location<'static> as usize;
        let slot = ((addr >> 3) ^ plan.name.len()) & (CACHE - 1);
        if let Some(Some((a, n, id))) = self.cache.get(slot) {
            if *a == addr && **n == *plan.name {
                return *id;
            }
        }
        let id = self.lookup(plan, index);
        if self.cache.len() < CACHE {
            self.cache.resize(CACHE, None);
        }
        self.cache[slot] = Some((addr, plan.name.into(), id));
        id
    }

    fn lookup(&mut self, plan: &LoopPlan<'_>, index: u64) -> u32 {
        let l = plan.location;
        let bucket = self.map.entry((l.line(), l.column())).or_default();
        for (file, name, id) in bucket.iter() {
            if **file == *l.file() && **name == *plan.name {
                return *id;
            }
        }
        let id = self.locs.len() as u32;
        bucket.push((l.file().into(), plan.name.into(), id));
        self.last_new = index;
        if self.first_recur.is_some() {
            // Every eligible location last occurred before this one appeared.
            self.eligible += 1;
            self.pending = self.eligible;
        }
        if self.forget_on_new && self.locs.iter().any(|l| l.started > 0) {
            // What looked periodic was not the time loop yet: start measuring afresh.
            self.forget_samples();
        }
        self.locs.push(LocInfo {
            key: key_of(plan),
            name: plan.name.to_string(),
            file: l.file().to_string(),
            line: l.line(),
            col: l.column(),
            count: 0,
            first: index,
            last: index,
            gap: 0,
            max_gap: 0,
            samples: Vec::new(),
            sampled: 0,
            started: 0,
            next_sample: FIRST_SAMPLE,
            sampling: false,
            last_sizes: Vec::new(),
        });
        id
    }

    /// Discards every sample (dry regions running now report nothing): what was measured was
    /// not the time loop.
    pub fn forget_samples(&mut self) {
        self.epoch += 1;
        for l in &mut self.locs {
            l.samples.clear();
            l.started = 0;
            l.sampling = false;
            l.next_sample = l.count + 1;
        }
    }

    /// Counts an occurrence of location `id` at loop `index`; returns the occurrence number
    /// (1 for the first).
    pub fn count(&mut self, id: u32, index: u64) -> u64 {
        let l = &mut self.locs[id as usize];
        let was_pending = self
            .first_recur
            .is_some_and(|f| l.first >= f && l.last <= self.last_new && index > self.last_new);
        if l.count > 0 {
            l.gap = index - l.last;
            l.max_gap = l.max_gap.max(l.gap);
            if l.gap >= 2 && self.first_pass_recur.is_none() {
                self.first_pass_recur = Some(index);
            }
        }
        l.count += 1;
        l.last = index;
        let count = l.count;
        if was_pending {
            self.pending -= 1;
        }
        if count == 2 && self.first_recur.is_none() {
            self.first_recur = Some(index);
            self.recount();
        }
        count
    }

    fn recount(&mut self) {
        let Some(f) = self.first_recur else {
            return;
        };
        self.eligible = 0;
        self.pending = 0;
        for l in &self.locs {
            if l.first >= f {
                self.eligible += 1;
                if l.last <= self.last_new {
                    self.pending += 1;
                }
            }
        }
    }

    /// A table holding `locs` (as saved in a checkpoint), ids in that order.
    pub fn from_infos(locs: Vec<LocInfo>) -> LocTable {
        let mut map: HashMap<(u32, u32), Vec<SiteEntry>, crate::track::FastState> =
            HashMap::default();
        for (i, l) in locs.iter().enumerate() {
            map.entry((l.line, l.col)).or_default().push((
                l.file.as_str().into(),
                l.name.as_str().into(),
                i as u32,
            ));
        }
        let last_new = locs.iter().map(|l| l.first).max().unwrap_or(0);
        let first_recur = locs
            .iter()
            .filter(|l| l.count >= 2)
            .map(|l| l.first + l.max_gap.min(l.gap.max(1)))
            .min();
        let first_pass_recur = locs
            .iter()
            .filter(|l| l.count >= 2 && l.max_gap >= 2)
            .map(|l| l.first + l.max_gap)
            .min();
        let mut t = LocTable {
            locs,
            map,
            cache: Vec::new(),
            forget_on_new: false,
            epoch: 0,
            last_new,
            first_recur,
            first_pass_recur,
            eligible: 0,
            pending: 0,
        };
        t.recount();
        t
    }

    /// The id of the location with this key, if seen.
    pub fn find_key(&self, key: &str) -> Option<u32> {
        self.locs
            .iter()
            .position(|l| l.key == key)
            .map(|i| i as u32)
    }

    /// True when location `l` still recurs at loop `now`: seen at least twice, and not longer
    /// ago than twice its largest gap (start-up loops that repeated a few times and stopped
    /// do not qualify).
    pub fn recurring(l: &LocInfo, now: u64) -> bool {
        l.count >= 2 && now.saturating_sub(l.last) <= 2 * l.max_gap.max(1)
    }

    /// The occurrence count that makes a location "frequent": the median count among
    /// locations still recurring at `now` (0 when none does).
    pub fn median_recurring(&self, now: u64) -> u64 {
        self.median_over_recurring(now, |l| l.count)
    }

    /// The (lower) median of `field` over the locations still recurring at `now` (0 when
    /// none does).
    fn median_over_recurring(&self, now: u64, field: impl Fn(&LocInfo) -> u64) -> u64 {
        let mut v: Vec<u64> = self
            .locs
            .iter()
            .filter(|l| Self::recurring(l, now))
            .map(field)
            .collect();
        if v.is_empty() {
            return 0;
        }
        v.sort_unstable();
        v[(v.len() - 1) / 2]
    }

    /// True when a dry region should start at location `id` now (its latest occurrence): not
    /// before its [`FIRST_SAMPLE`]-th occurrence, never two at once; the first [`SAMPLES`] one
    /// pass of the time loop apart (a location that occurs several times per pass, such as a
    /// halo exchange, is measured at different passes rather than at neighbouring
    /// occurrences), later ones each time the count quadruples, [`MAX_SAMPLES`] in all, so the
    /// statistics are refreshed for a while at a cost that fades geometrically.
    ///
    /// Once a location is chosen (`best` is its mean), a location that already has its
    /// [`SAMPLES`] is measured again only while it could compete (mean within 10 % of `best`).
    pub fn wants_sample(&self, id: u32, best: Option<f64>) -> bool {
        let l = &self.locs[id as usize];
        if l.sampling || l.started >= MAX_SAMPLES || l.count < l.next_sample {
            return false;
        }
        match (best, l.stats()) {
            (Some(b), Some((_, mean, _))) if l.samples.len() >= SAMPLES => mean <= 1.1 * b,
            _ => true,
        }
    }

    /// Notes that a dry region started at location `id` at loop `now`.
    pub fn start_sample(&mut self, id: u32, now: u64) {
        let per_pass = (self.locs[id as usize].count / self.median_recurring(now).max(1)).max(1);
        let l = &mut self.locs[id as usize];
        l.sampling = true;
        l.started += 1;
        l.next_sample = if l.started < SAMPLES as u64 {
            l.count + per_pass
        } else {
            4 * l.count
        };
    }

    /// Records a finished dry region's bytes for location `id`, keeping the latest
    /// [`SAMPLES`].
    pub fn sample(&mut self, id: u32, bytes: u64) {
        let l = &mut self.locs[id as usize];
        l.samples.push(bytes);
        if l.samples.len() > SAMPLES {
            l.samples.remove(0);
        }
        l.sampled += 1;
    }

    /// True when the program looks periodic at loop `now`: since the latest new location
    /// appeared, at least nine in ten of the locations that appeared after the first
    /// recurrence occurred again, so a whole pass of the time loop ran without new loops.
    /// (During the first pass its loops are new; loops recurring inside one pass, such as halo
    /// exchanges, are no evidence of the period; rare loops, such as a summary every ten
    /// steps, are tolerated.) When every location appeared before the first recurrence, the
    /// program counts as periodic once it ran twice as long as it took to recur. And when no
    /// new location appeared for as long as it took from the first recurrence to the latest
    /// new location, the program is periodic whatever is still pending: the first recurrence
    /// was then a loop repeated during start-up (e.g. one loop per initial state), and the
    /// locations after it that never came back were start-up loops too.
    pub fn steady(&self, now: u64) -> bool {
        match self.first_recur {
            None => false,
            Some(f) if self.eligible == 0 => now >= 2 * f,
            Some(f) => {
                self.pending * 10 <= self.eligible
                    || now >= self.last_new + self.last_new.saturating_sub(f).max(1)
            }
        }
    }

    /// The median of the largest gaps of the locations still recurring at `now` (0 when none
    /// does): about one pass of the time loop, since most loops run once per pass.
    pub fn typical_gap(&self, now: u64) -> u64 {
        self.median_over_recurring(now, |l| l.max_gap)
    }

    /// True when location `l` recurs often enough to checkpoint at: at least once per pass of
    /// the time loop, i.e. its largest gap is at most 1.5 times the typical one. (Counting
    /// occurrences instead would rank a loop run once per time step below an inner solver's
    /// loops, which run many times per step; a summary every ten steps has ten times the gap.)
    fn frequent(l: &LocInfo, typical_gap: u64) -> bool {
        l.count >= 2 && l.max_gap * 2 <= typical_gap.max(1) * 3
    }

    /// True when the statistics suffice to choose at loop `now`: the program looks periodic
    /// ([`LocTable::steady`]) and every frequent location (see [`LocTable::choose`]) has a
    /// sample. (Later samples refine the means and may revise the choice.)
    pub fn ready(&self, now: u64) -> bool {
        let gap = self.typical_gap(now);
        gap > 0
            && self.steady(now)
            && self
                .locs
                .iter()
                .filter(|l| Self::recurring(l, now) && Self::frequent(l, gap))
                .all(|l| !l.samples.is_empty())
    }

    /// True when location `id` is among the locations [`LocTable::choose`] considers at `now`.
    pub fn is_candidate(&self, id: u32, now: u64) -> bool {
        let l = &self.locs[id as usize];
        let gap = self.typical_gap(now);
        gap > 0 && Self::recurring(l, now) && Self::frequent(l, gap)
    }

    /// Chooses the location at loop `now`: among the locations still recurring at least once
    /// per pass of the time loop ([`LocTable::typical_gap`]) and having a sample, the smallest
    /// mean bytes;
    /// ties to the more frequent, then the one seen first. Returns the id and the reason in
    /// words.
    pub fn choose(&self, now: u64) -> Option<(u32, String)> {
        let gap = self.typical_gap(now);
        if gap == 0 {
            return None;
        }
        let mut cands: Vec<(u32, f64)> = self
            .locs
            .iter()
            .enumerate()
            .filter(|(_, l)| Self::recurring(l, now) && Self::frequent(l, gap))
            .filter_map(|(i, l)| l.stats().map(|(_, mean, _)| (i as u32, mean)))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let n = cands.len();
        cands.sort_by(|a, b| {
            let (la, lb) = (&self.locs[a.0 as usize], &self.locs[b.0 as usize]);
            a.1.total_cmp(&b.1)
                .then(lb.count.cmp(&la.count))
                .then(la.first.cmp(&lb.first))
        });
        let (id, mean) = cands[0];
        let l = &self.locs[id as usize];
        Some((
            id,
            format!(
                "smallest mean checkpoint ({}) among the {n} location(s) recurring at least \
                 once per pass of the time loop (largest gap at most 1.5 x the median, {gap} \
                 loops); occurred {} times",
                crate::diags::human_bytes(mean as u64),
                l.count
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(key: &str, count: u64, first: u64, samples: &[u64]) -> LocInfo {
        LocInfo {
            key: key.into(),
            name: key.into(),
            file: "f.rs".into(),
            line: 1,
            col: 1,
            count,
            first,
            last: 100 + first,
            gap: 10,
            max_gap: 10,
            samples: samples.to_vec(),
            sampled: samples.len() as u64,
            started: samples.len() as u64,
            next_sample: FIRST_SAMPLE,
            sampling: false,
            last_sizes: Vec::new(),
        }
    }

    #[test]
    fn chooses_the_cheapest_frequent_location() {
        let t = LocTable::from_infos(vec![
            loc("init", 1, 0, &[]),
            loc("step_a", 10, 1, &[500, 500, 500]),
            loc("step_b", 10, 2, &[100, 120, 110]),
            loc("halo", 40, 3, &[300, 300, 300]),
            {
                let mut summary = loc("summary", 2, 4, &[10]);
                summary.max_gap = 50;
                summary
            },
        ]);
        // The median largest gap is 10; the summary's 50 is too rare.
        assert_eq!(t.typical_gap(110), 10);
        let (id, why) = t.choose(110).unwrap();
        assert_eq!(t.locs[id as usize].key, "step_b");
        assert!(why.contains("median"), "{why}");
        assert!(t.ready(110), "summary (one sample) is no candidate");
        // Much later, with nothing recurring any more, nothing qualifies.
        assert_eq!(t.choose(10_000), None);
    }

    /// TeaLeaf's shape: a few loops once per time step, an inner solver's loops many times per
    /// step. The cheap once-per-step location (energy only, before the solve) is a candidate
    /// although the solver's loops occur thirty times as often.
    #[test]
    fn a_once_per_step_location_competes_with_inner_solver_loops() {
        let mut infos = Vec::new();
        for (k, bytes) in [("init_common", 50), ("cg_init", 90), ("finalise", 60)] {
            let mut l = loc(k, 6, infos.len() as u64, &[bytes]);
            l.max_gap = 180;
            l.gap = 176;
            infos.push(l);
        }
        for k in ["calc_w", "calc_ur"] {
            let mut l = loc(k, 200, infos.len() as u64, &[150, 160, 150]);
            l.max_gap = 12;
            infos.push(l);
        }
        let t = LocTable::from_infos(infos);
        assert_eq!(t.typical_gap(110), 180);
        let (id, _) = t.choose(110).unwrap();
        assert_eq!(t.locs[id as usize].key, "init_common");
    }

    #[test]
    fn a_start_up_loop_that_stopped_recurring_is_no_candidate() {
        let mut gen = loc("generate", 3, 0, &[1]);
        gen.last = 5;
        gen.max_gap = 2;
        let t = LocTable::from_infos(vec![gen, loc("step", 3, 10, &[1000, 1000, 1000])]);
        let (id, _) = t.choose(110).unwrap();
        assert_eq!(t.locs[id as usize].key, "step");
    }

    #[test]
    fn start_up_loops_repeated_per_state_do_not_block_steadiness() {
        // A start-up loop recurs (one pass per initial state) before the time loop; then
        // start-up loops that never come back, then the time loop's loops.
        let t = LocTable {
            first_recur: Some(7),
            last_new: 188,
            eligible: 15,
            pending: 2,
            ..Default::default()
        };
        assert!(!t.steady(300), "too early to tell");
        assert!(
            t.steady(369),
            "no new location for as long as the first pass took"
        );
    }

    #[test]
    fn nothing_recurs_nothing_chosen() {
        let t = LocTable::from_infos(vec![loc("a", 1, 0, &[]), loc("b", 1, 1, &[])]);
        assert_eq!(t.choose(5), None);
        assert!(!t.ready(5));
    }
}
