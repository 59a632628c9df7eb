//! Loop locations: a loop's name and its call site (`name@file:line:col`, from
//! `#[track_caller]`), the same loop in the program text however often it runs. The table gives
//! every location a dense id in first-seen order and counts its occurrences; the learner
//! ([`crate::learn`]) works on those ids.

use std::collections::HashMap;

use ops_core::LoopPlan;
use serde::{Deserialize, Serialize};

/// What is known of one location.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Largest number of loops between two occurrences.
    pub max_gap: u64,
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
    /// Loop index at which some location first occurred again after other loops ran in
    /// between (a gap of 2 or more): the end of start-up for the purity rule
    /// ([`crate::track`]). A loop repeated back to back, such as one start-up loop per initial
    /// state, does not end it.
    pub first_pass_recur: Option<u64>,
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
/// use ops_resilience::spec_matches;
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
        self.id_of_site(plan.name, plan.location, index)
    }

    /// [`LocTable::id_of`] of a loop named `name` called at `location`.
    pub fn id_of_site(
        &mut self,
        name: &str,
        location: &'static std::panic::Location<'static>,
        index: u64,
    ) -> u32 {
        // `Location`s of call sites are statics: the address identifies the site.
        let addr = location as *const std::panic::Location<'static> as usize;
        let slot = ((addr >> 3) ^ name.len()) & (CACHE - 1);
        if let Some(Some((a, n, id))) = self.cache.get(slot) {
            if *a == addr && **n == *name {
                return *id;
            }
        }
        let id = self.lookup(name, location, index);
        if self.cache.len() < CACHE {
            self.cache.resize(CACHE, None);
        }
        self.cache[slot] = Some((addr, name.into(), id));
        id
    }

    fn lookup(
        &mut self,
        loop_name: &str,
        l: &'static std::panic::Location<'static>,
        index: u64,
    ) -> u32 {
        let bucket = self.map.entry((l.line(), l.column())).or_default();
        for (file, name, id) in bucket.iter() {
            if **file == *l.file() && **name == *loop_name {
                return *id;
            }
        }
        let id = self.locs.len() as u32;
        bucket.push((l.file().into(), loop_name.into(), id));
        self.locs.push(LocInfo {
            key: format!("{loop_name}@{}:{}:{}", l.file(), l.line(), l.column()),
            name: loop_name.to_string(),
            file: l.file().to_string(),
            line: l.line(),
            col: l.column(),
            count: 0,
            first: index,
            last: index,
            max_gap: 0,
        });
        id
    }

    /// Counts an occurrence of location `id` at loop `index`.
    pub fn count(&mut self, id: u32, index: u64) {
        let l = &mut self.locs[id as usize];
        if l.count > 0 {
            let gap = index - l.last;
            l.max_gap = l.max_gap.max(gap);
            if gap >= 2 && self.first_pass_recur.is_none() {
                self.first_pass_recur = Some(index);
            }
        }
        l.count += 1;
        l.last = index;
    }

    /// A table holding `locs` (as saved in a checkpoint), ids in that order.
    pub fn from_infos(locs: Vec<LocInfo>, first_pass_recur: Option<u64>) -> LocTable {
        let mut map: HashMap<(u32, u32), Vec<SiteEntry>, crate::track::FastState> =
            HashMap::default();
        for (i, l) in locs.iter().enumerate() {
            map.entry((l.line, l.col)).or_default().push((
                l.file.as_str().into(),
                l.name.as_str().into(),
                i as u32,
            ));
        }
        LocTable {
            locs,
            first_pass_recur,
            map,
            cache: Vec::new(),
        }
    }

    /// The id of the location with this key, if seen.
    pub fn find_key(&self, key: &str) -> Option<u32> {
        self.locs
            .iter()
            .position(|l| l.key == key)
            .map(|i| i as u32)
    }

    /// The key of location `id`.
    pub fn key(&self, id: u32) -> &str {
        &self.locs[id as usize].key
    }
}

impl crate::learn::Counts for LocTable {
    fn distinct(&self) -> usize {
        self.locs.len()
    }
    fn count(&self, loc: u32) -> u64 {
        self.locs.get(loc as usize).map_or(0, |l| l.count)
    }
    fn max_gap(&self, loc: u32) -> u64 {
        self.locs.get(loc as usize).map_or(0, |l| l.max_gap)
    }
}
