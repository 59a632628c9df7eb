//! Loop locations: a loop's name, its call site (`name@file:line:col`, from
//! `#[track_caller]`), its block and its kernel, the same loop in the program text however
//! often it runs. The same code run block by block (a multi-block code's update, one call site)
//! is one location per block, as it is one loop per block of the step: its key is the site's,
//! with `#k` (the block's declaration index) for every block but the first the site ran on.
//! Likewise a call site that runs several kernels under one name (a boundary helper passed the
//! kernel of each side) is one location per kernel, `+kernel` added to the key for every kernel
//! but the first: each is another computation, as its own call site would be. The
//! table gives every location a dense id in first-seen order and counts its occurrences; the
//! learner ([`crate::learn`]) works on those ids.

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
    /// The block the loop runs on (declaration index).
    #[serde(default)]
    pub block: u32,
    /// The kernel's name.
    #[serde(default)]
    pub kernel: String,
    /// Occurrences so far.
    pub count: u64,
    /// Index of the first occurrence.
    pub first: u64,
    /// Index of the latest occurrence.
    pub last: u64,
    /// Largest number of loops between two occurrences.
    pub max_gap: u64,
}

/// Fewest slots of the location cache; it keeps at least [`CACHE_PER_LOCATION`] slots per
/// location, so that two locations rarely share a pair of slots.
const CACHE_MIN: usize = 256;
const CACHE_PER_LOCATION: usize = 16;

/// File, loop name, block, kernel and id of a location, bucketed by (line, column).
type SiteEntry = (Box<str>, Box<str>, u32, Box<str>, u32);

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
    /// Direct-mapped cache in front of `map`, by call site and loop name.
    cache: Vec<CacheSlot>,
    /// Lookups the cache did not answer.
    misses: u64,
    /// By location id: the location that followed it last time (a program's loops mostly
    /// follow each other in the same order, so this answers most lookups with one comparison).
    next: Vec<CacheSlot>,
    /// The location found last, whose `next` slot the coming lookup tries first.
    prev: usize,
}

/// A location as [`LocTable::id_of_site`] last found it: its call site's address, its name's
/// length and text (the first 16 bytes, [`head`]), its block, its kernel's name's address (a
/// static string: the same address is the same name) and its id. A hit compares the text (a
/// name's address proves nothing: a name built at run time may reuse another's freed
/// memory); a name of at most 16 bytes is compared in the slot, a longer one in full.
#[derive(Clone, Copy, Debug, Default)]
struct CacheSlot {
    site: usize,
    head: [u64; 2],
    /// The name's length and the block, in one number ([`shape`]).
    shape: u64,
    kernel: usize,
    id: u32,
}

/// A call site's address, a block and a kernel's name's address: a location, with its name.
#[derive(Clone, Copy)]
struct Site {
    site: usize,
    block: u32,
    kernel: usize,
}

/// A name's length and a block in one number, compared at once.
#[inline]
fn shape(name: &str, block: u32) -> u64 {
    (name.len() as u64) << 32 | u64::from(block)
}

impl CacheSlot {
    /// The slot of location `id`: loop `name` (whose [`head`] is `head`) at `at`.
    #[inline]
    fn new(at: Site, name: &str, head: [u64; 2], id: u32) -> CacheSlot {
        CacheSlot {
            site: at.site,
            head,
            shape: shape(name, at.block),
            kernel: at.kernel,
            id,
        }
    }

    /// True when the slot holds the location of loop `name` (whose [`head`] is `head`) at
    /// `at`.
    #[inline]
    fn is(&self, at: Site, name: &str, head: [u64; 2], locs: &[LocInfo]) -> bool {
        self.site == at.site
            && self.kernel == at.kernel
            && self.shape == shape(name, at.block)
            && self.head == head
            && (name.len() <= 16 || *locs[self.id as usize].name == *name)
    }
}

/// A name's text as two numbers that, for names of one length up to 16 bytes, differ exactly
/// when the names do (overlapping loads cover every byte); for longer names, its first 16
/// bytes.
#[inline]
fn head(name: &str) -> [u64; 2] {
    let b = name.as_bytes();
    let n = b.len();
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let half = |i: usize| u64::from(u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes")));
    if n >= 16 {
        [word(0), word(8)]
    } else if n >= 8 {
        [word(0), word(n - 8)]
    } else if n >= 4 {
        [half(0) | half(n - 4) << 32, 0]
    } else {
        [b.iter().fold(0, |v, &c| v << 8 | u64::from(c)), 0]
    }
}

/// A hash of a name for the cache's slots: its length and [`head`], and for a longer name
/// every further 8 bytes (names of one call site may differ anywhere).
#[inline]
fn name_hash(name: &str, head: [u64; 2]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let mut h = mix(mix(name.len() as u64, head[0]), head[1]);
    let b = name.as_bytes();
    if b.len() > 16 {
        let mut chunks = b[16..].chunks_exact(8);
        for c in &mut chunks {
            h = mix(h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let tail = chunks.remainder();
        if !tail.is_empty() {
            // The last 8 bytes (overlapping what was read): the tail's bytes, whatever its length.
            h = mix(
                h,
                u64::from_le_bytes(b[b.len() - 8..].try_into().expect("8 bytes")),
            );
        }
    }
    h
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
        let block = plan.block.index() as u32;
        self.id_of_site(plan.name, plan.location, block, plan.kernel, index)
    }

    /// [`LocTable::id_of`] of a loop named `name` called at `location` on block `block` with
    /// kernel `kernel`.
    pub fn id_of_site(
        &mut self,
        name: &str,
        location: &'static std::panic::Location<'static>,
        block: u32,
        kernel: &'static str,
        index: u64,
    ) -> u32 {
        // `Location`s of call sites are statics: the address identifies the site. A kernel is
        // its name (two kernels of one name at one site are one location); the name is a
        // static string, whose address the caches compare (the table compares the text).
        let at = Site {
            site: location as *const std::panic::Location<'static> as usize,
            block,
            kernel: kernel.as_ptr() as usize,
        };
        let head = head(name);
        if let Some(c) = self
            .next
            .get(self.prev)
            .filter(|c| c.is(at, name, head, &self.locs))
        {
            self.prev = c.id as usize;
            return c.id;
        }
        let id = self.id_by_hash(name, head, location, at, kernel, index);
        if self.next.len() <= self.prev {
            self.next.resize(self.prev + 1, CacheSlot::default());
        }
        self.next[self.prev] = CacheSlot::new(at, name, head, id);
        self.prev = id as usize;
        id
    }

    /// [`LocTable::id_of_site`] when the location is not the one that followed the previous
    /// one last time: the cache by site and name, then the table.
    #[inline(never)]
    fn id_by_hash(
        &mut self,
        name: &str,
        head: [u64; 2],
        location: &'static std::panic::Location<'static>,
        at: Site,
        kernel: &'static str,
        index: u64,
    ) -> u32 {
        // A pair of slots per location (`slot`, `slot | 1`), by a multiplicative hash
        // of the site and the name (sites a few bytes apart get slots of their own, and so do
        // the many names one call site may run: a boundary fill names every field and face).
        let slot = (at.site as u64
            ^ name_hash(name, head)
            ^ u64::from(at.block) << 40
            ^ (at.kernel as u64).rotate_left(17))
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            >> 32;
        // The pair's first slot holds the location called last.
        let slot = slot as usize & self.cache.len().wrapping_sub(1) & !1;
        for s in [slot, slot ^ 1] {
            if let Some(c) = self
                .cache
                .get(s)
                .filter(|c| c.is(at, name, head, &self.locs))
            {
                return c.id;
            }
        }
        self.misses += 1;
        let id = self.lookup(name, location, at.block, kernel, index);
        let want = (CACHE_PER_LOCATION * self.locs.len()).next_power_of_two();
        if self.cache.len() < want.max(CACHE_MIN) {
            // Grown afresh: its slots are refilled as locations are called.
            self.cache = vec![CacheSlot::default(); want.max(CACHE_MIN)];
        }
        let slot = slot & (self.cache.len() - 1);
        // The pair keeps the two locations called last.
        self.cache[slot | 1] = self.cache[slot];
        self.cache[slot] = CacheSlot::new(at, name, head, id);
        id
    }

    fn lookup(
        &mut self,
        loop_name: &str,
        l: &'static std::panic::Location<'static>,
        block: u32,
        kernel: &str,
        index: u64,
    ) -> u32 {
        let bucket = self.map.entry((l.line(), l.column())).or_default();
        let (mut other_block, mut other_kernel) = (false, false);
        for (file, name, b, k, id) in bucket.iter() {
            if **file == *l.file() && **name == *loop_name {
                // A table from a checkpoint written before kernels were recorded matches any.
                let same_kernel = **k == *kernel || k.is_empty();
                if *b == block && same_kernel {
                    return *id;
                }
                other_block |= *b != block;
                other_kernel |= *b == block && !same_kernel;
            }
        }
        let id = self.locs.len() as u32;
        bucket.push((l.file().into(), loop_name.into(), block, kernel.into(), id));
        let mut key = format!("{loop_name}@{}:{}:{}", l.file(), l.line(), l.column());
        if other_block {
            key.push_str(&format!("#{block}"));
        }
        if other_kernel {
            key.push_str(&format!("+{kernel}"));
        }
        self.locs.push(LocInfo {
            key,
            name: loop_name.to_string(),
            file: l.file().to_string(),
            line: l.line(),
            col: l.column(),
            block,
            kernel: kernel.to_string(),
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

    /// Counts `k` occurrences of location `id`, the first at loop `first` and the last at
    /// `last`, at most `gap` loops apart: what [`LocTable::count`] of each would leave, once
    /// some location recurred after others ran (`first_pass_recur` is set).
    pub fn count_repeat(&mut self, id: u32, first: u64, k: u64, last: u64, gap: u64) {
        debug_assert!(self.first_pass_recur.is_some());
        let l = &mut self.locs[id as usize];
        if l.count > 0 {
            l.max_gap = l.max_gap.max(first - l.last);
        }
        l.max_gap = l.max_gap.max(gap);
        l.count += k;
        l.last = last;
    }

    /// Moves location `id`'s counts on by `k` occurrences, its last by `by` loops: periods of
    /// a time step like the one counted last, which leave its gaps as they are.
    pub fn advance(&mut self, id: u32, k: u64, by: u64) {
        let l = &mut self.locs[id as usize];
        l.count += k;
        l.last += by;
    }

    /// A table holding `locs` (as saved in a checkpoint), ids in that order.
    pub fn from_infos(locs: Vec<LocInfo>, first_pass_recur: Option<u64>) -> LocTable {
        let mut map: HashMap<(u32, u32), Vec<SiteEntry>, crate::track::FastState> =
            HashMap::default();
        for (i, l) in locs.iter().enumerate() {
            map.entry((l.line, l.col)).or_default().push((
                l.file.as_str().into(),
                l.name.as_str().into(),
                l.block,
                l.kernel.as_str().into(),
                i as u32,
            ));
        }
        LocTable {
            locs,
            first_pass_recur,
            map,
            cache: Vec::new(),
            misses: 0,
            next: Vec::new(),
            prev: 0,
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
    fn count(&self, loc: u32) -> u64 {
        self.locs.get(loc as usize).map_or(0, |l| l.count)
    }
    fn max_gap(&self, loc: u32) -> u64 {
        self.locs.get(loc as usize).map_or(0, |l| l.max_gap)
    }
    fn first(&self, loc: u32) -> u64 {
        self.locs.get(loc as usize).map_or(u64::MAX, |l| l.first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::Location;

    #[track_caller]
    fn here() -> &'static Location<'static> {
        Location::caller()
    }

    /// The same call site and loop name on two blocks (a multi-block code's update, block by
    /// block) are two locations, told apart by the prediction and the cache alike, and keep
    /// their block through a checkpoint's table.
    #[test]
    fn a_site_run_block_by_block_is_a_location_per_block() {
        let mut t = LocTable::default();
        let (a, b) = (here(), here());
        let mut ids = Vec::new();
        for index in 0..40u64 {
            // a on block 0, b on block 0, a on block 1, b on block 1, ...
            let (site, block) = match index % 4 {
                0 => (a, 0),
                1 => (b, 0),
                2 => (a, 1),
                _ => (b, 1),
            };
            ids.push(t.id_of_site("update", site, block, "k", index));
        }
        assert_eq!(&ids[..4], &[0, 1, 2, 3]);
        assert!(ids.chunks(4).all(|c| c == [0, 1, 2, 3]), "{ids:?}");
        let site = format!("update@{}:{}:{}", a.file(), a.line(), a.column());
        assert_eq!(t.locs[0].key, site);
        assert_eq!(t.locs[2].key, format!("{site}#1"));
        assert_eq!((t.locs[0].block, t.locs[2].block), (0, 1));
        let mut back = LocTable::from_infos(t.locs.clone(), None);
        assert_eq!(back.id_of_site("update", a, 1, "k", 40), 2);
        assert_eq!(back.id_of_site("update", a, 0, "k", 41), 0);
    }

    /// One call site and loop name running a kernel per side (a boundary helper passed each
    /// side's kernel) are a location per kernel, keyed `+kernel` after the first, and keep
    /// their kernel through a checkpoint's table.
    #[test]
    fn a_site_running_several_kernels_is_a_location_per_kernel() {
        let mut t = LocTable::default();
        let a = here();
        let kernels = ["side_xm", "side_xp", "side_ym", "side_yp"];
        let ids: Vec<u32> = (0..40u64)
            .map(|index| t.id_of_site("mirror", a, 0, kernels[index as usize % 4], index))
            .collect();
        assert!(ids.chunks(4).all(|c| c == [0, 1, 2, 3]), "{ids:?}");
        let site = format!("mirror@{}:{}:{}", a.file(), a.line(), a.column());
        assert_eq!(t.locs[0].key, site);
        assert_eq!(t.locs[3].key, format!("{site}+side_yp"));
        assert!(spec_matches("mirror", &t.locs[3].key));
        let mut back = LocTable::from_infos(t.locs.clone(), None);
        assert_eq!(back.id_of_site("mirror", a, 0, "side_ym", 40), 2);
        assert_eq!(back.id_of_site("mirror", a, 0, "side_xm", 41), 0);
    }

    /// Ids depend on the site and the name's text only: a name built at run time (at another
    /// address every call) finds the same location, another name at the same site its own,
    /// and many sites sharing the cache's slots keep theirs.
    #[test]
    fn a_location_is_its_site_and_its_name_whatever_their_addresses() {
        let mut t = LocTable::default();
        let sites: Vec<&'static Location<'static>> = (0..300).map(|_| here()).collect();
        // The loop above is one site: build distinct ones from two call sites and the names.
        let (a, b) = (here(), here());
        let mut index = 0;
        let mut id = |t: &mut LocTable, name: &str, site| {
            index += 1;
            t.id_of_site(name, site, 0, "k", index)
        };
        let halo = id(&mut t, "halo", a);
        let built = format!("ha{}", "lo");
        assert_eq!(id(&mut t, &built, a), halo);
        assert_eq!(id(&mut t, &format!("ha{}", "lo"), a), halo);
        assert_eq!(id(&mut t, "halo", a), halo);
        let other = id(&mut t, "halo_x", a);
        assert_ne!(other, halo);
        assert_ne!(id(&mut t, "halo", b), halo);
        // Three hundred names at one site: more than the cache holds, each its own id.
        let names: Vec<String> = (0..300).map(|i| format!("loop{i}")).collect();
        let first: Vec<u32> = names.iter().map(|n| id(&mut t, n, sites[0])).collect();
        for _ in 0..3 {
            for (n, want) in names.iter().zip(&first) {
                assert_eq!(id(&mut t, &n.clone(), sites[0]), *want, "{n}");
            }
        }
        // Names of every length up to 40 bytes differing in one byte anywhere: each its own.
        let mut more = Vec::new();
        for len in 1..=40 {
            for at in 0..len {
                let mut n = vec![b'x'; len];
                n[at] = b'y';
                more.push(String::from_utf8(n).unwrap());
            }
            more.push("x".repeat(len));
        }
        let ids: Vec<u32> = more.iter().map(|n| id(&mut t, n, sites[0])).collect();
        for _ in 0..2 {
            for (n, want) in more.iter().zip(&ids) {
                assert_eq!(id(&mut t, &n.clone(), sites[0]), *want, "{n}");
            }
        }
        assert_eq!(t.locs.len(), 3 + 300 + more.len());
        // Once the cache has grown for them, the names of one site called in turn (a boundary
        // fill's, one per field, face and layer, of one length) are all answered by it.
        let fills: Vec<String> = (0..40)
            .map(|i| format!("fill_halo field{:02} y- reflect 1", i))
            .collect();
        for n in &fills {
            id(&mut t, n, sites[1]);
        }
        let misses = t.misses;
        for _ in 0..3 {
            for n in &fills {
                id(&mut t, n, sites[1]);
            }
        }
        assert!(
            t.misses - misses <= 2,
            "{} misses over 120 calls of 40 names at one site",
            t.misses - misses
        );
        assert_eq!(
            t.locs[halo as usize].key,
            format!("halo@{}:{}:{}", a.file(), a.line(), a.column())
        );
    }
}
