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
//! the distinct loops the program has run lately and its core more than a third (*coverage*:
//! the loops of an inner solver, or of a helper called several times per time step, are a
//! small part of the program; the time step runs most of them every pass), and its passes are
//! alike:
//! in at least half of them the core makes up at least half of the distinct loops (a location
//! called twice per time step, whose passes alternate between two halves of the step, is no
//! iteration).
//!
//! Which eligible level is the outer iteration is decided with the bytes a checkpoint would save
//! at its members ([`select`]).

use serde::{Deserialize, Serialize};

/// Complete passes a level needs before it can be the outer iteration.
pub const MIN_PASSES: usize = 2;

/// Passes of a level after which loops last seen before them no longer count against its
/// coverage. An inner solver of the first time step iterating longer than this is taken for the
/// time loop (a review corrects it once the time step repeats); a start-up with more distinct
/// loops than the time step delays the decision by as many passes.
pub const FORGET_PASSES: usize = 256;

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
    /// The passes reach more than half of the distinct loops run lately, and the core more
    /// than a third.
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

/// The levels of `trace` (location ids, one per loop, in order), finest (most passes) first.
/// `distinct` is the number of distinct locations the program has run so far (the trace may
/// have dropped its oldest part).
pub fn analyse(trace: &[u32], distinct: usize) -> Vec<Level> {
    let Some(&top) = trace.iter().max() else {
        return Vec::new();
    };
    let n_locs = top as usize + 1;
    let mut occ: Vec<Vec<u32>> = vec![Vec::new(); n_locs];
    for (i, &l) in trace.iter().enumerate() {
        occ[l as usize].push(i as u32);
    }
    // Locations the trace no longer holds count as long gone.
    let dropped = distinct.saturating_sub(occ.iter().filter(|o| !o.is_empty()).count());
    let mut last_seen: Vec<u32> = occ.iter().filter_map(|o| o.last().copied()).collect();
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
        let members: Vec<u32> = last_order
            .into_iter()
            .filter(|&l| once[l as usize] == p)
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
        // the step goes on without it): then it anchors a level of its own.
        if passes >= MIN_PASSES {
            for &m in &members {
                if occ[m as usize].len() <= pos.len() + 1 {
                    covered[m as usize] = true;
                }
            }
        }
        let since_last = (trace.len() - *pos.last().expect("two or more") as usize) as u64;
        let alive = since_last <= 2 * max_pass;
        let alike = 2 * sizes.iter().filter(|&&s| 2 * core.len() >= s).count() >= passes;
        // A start-up with more distinct loops than the time step stops counting once it is
        // FORGET_PASSES passes of this level in the past.
        let horizon = trace
            .len()
            .saturating_sub(FORGET_PASSES * max_pass as usize) as u32;
        let old = last_seen.partition_point(|&p| p < horizon);
        let recent = if old > 0 {
            last_seen.len() - old
        } else {
            last_seen.len() + dropped
        };
        let covers = 2 * union.len() > recent && 3 * core.len() > recent;
        let eligible = passes >= MIN_PASSES && covers && alike && alive;
        levels.push(Level {
            anchor: a,
            members,
            core,
            union,
            passes,
            max_pass,
            covers,
            alike,
            eligible,
            alive,
        });
    }
    levels.sort_by(|x, y| y.passes.cmp(&x.passes).then(x.anchor.cmp(&y.anchor)));
    levels
}

/// True when the number of occurrences of `inner` varies between the complete passes of the
/// level anchored at `outer`: an inner loop whose trip count depends on the data, rather than
/// a fixed grouping of passes.
pub fn varies(trace: &[u32], outer: u32, inner: u32) -> bool {
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
    counts.windows(2).any(|w| w[0] != w[1])
}

/// True when `outer` runs outside the iterations of the level anchored at `inner`, where the
/// program has left an inner loop for the rest of its time step. Two signs, both needed: the
/// passes of the inner level that hold `outer` are all half again as long as its usual pass
/// without it, and the loops that run only in those passes (the rest of the step) number at
/// least half the loops of the passes without it (the inner loop's body). A branch or a
/// periodic loop of the time step adds a loop or two to passes that run the whole step: the
/// first sign alone takes a branch taken in steps whose solver happened to iterate longer for
/// one, the second alone a branch not taken in only a few steps so far.
pub fn outside(trace: &[u32], inner: u32, outer: u32, fixed: bool) -> bool {
    // Per location id: 1 when it ran in a pass holding `outer`, 2 in a pass without it.
    let mut ran_in: Vec<u8> = vec![0; trace.iter().max().map_or(0, |&m| m as usize + 1)];
    let (mut with_lens, mut without_lens) = (Vec::new(), Vec::new());
    let mut from: Option<usize> = None;
    for (i, &l) in trace.iter().enumerate() {
        if l != inner {
            continue;
        }
        if let Some(f) = from {
            let pass = &trace[f..i];
            let with = pass.contains(&outer);
            for &p in pass {
                ran_in[p as usize] |= if with { 1 } else { 2 };
            }
            if with {
                with_lens.push(pass.len());
            } else {
                without_lens.push(pass.len());
            }
        }
        from = Some(i);
    }
    if with_lens.is_empty() || without_lens.is_empty() {
        return false;
    }
    without_lens.sort_unstable();
    let usual = without_lens[without_lens.len() / 2];
    let only_with = ran_in.iter().filter(|&&m| m == 1).count();
    let without = ran_in.iter().filter(|&&m| m & 2 != 0).count();
    if fixed {
        with_lens.iter().all(|&len| len >= 2 * usual) && only_with >= without
    } else {
        with_lens.iter().all(|&len| 2 * len >= 3 * usual) && 2 * only_with >= without
    }
}

/// The outermost eligible level reached from `inner` by moving out to an eligible level with
/// fewer passes whose passes hold the current one's anchor and whose anchor runs
/// [`outside`] the current one's iterations: the time step around an inner loop, whether its
/// trip count varies or not. A periodic enclosure (a monitor every ten steps, a sub-cycle every
/// five) or a branch's adds a loop or two to passes that run the whole step, and is no move.
pub fn enclosing<'a>(levels: &'a [Level], trace: &[u32], inner: &'a Level) -> &'a Level {
    let mut cur = inner;
    for c in levels.iter().filter(|l| l.eligible) {
        if c.passes < cur.passes
            && c.reaches(cur.anchor)
            && outside(
                trace,
                cur.anchor,
                c.anchor,
                !varies(trace, c.anchor, cur.anchor),
            )
        {
            cur = c;
        }
    }
    cur
}

/// The bytes a checkpoint would save at a level's best member (`None` until every member was
/// measured).
pub type LevelBytes<'a> = &'a dyn Fn(&Level) -> Option<u64>;

/// Which level is the outer iteration: the finest eligible level, moved out to the levels
/// that enclose it ([`enclosing`]): the time step encloses its inner loops, whatever either
/// saves, and what rare, periodic and conditional loops add is part of its pass. The bytes then
/// choose the checkpoint location inside the level.
///
/// `Err(level)` when the chosen level is not measured yet (measure its members); `Ok(None)`
/// when no level is eligible.
pub fn select<'a>(
    levels: &'a [Level],
    trace: &[u32],
    bytes: LevelBytes<'_>,
) -> Result<Option<&'a Level>, &'a Level> {
    let Some(finest) = levels.iter().find(|l| l.eligible) else {
        return Ok(None);
    };
    let cur = enclosing(levels, trace, finest);
    bytes(cur).ok_or(cur)?;
    Ok(Some(cur))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace from a string of single-letter locations (a = 0, b = 1, ...).
    fn t(s: &str) -> Vec<u32> {
        s.bytes()
            .filter(u8::is_ascii_lowercase)
            .map(|c| (c - b'a') as u32)
            .collect()
    }

    fn level_of(levels: &[Level], anchor: char) -> &Level {
        let a = (anchor as u8 - b'a') as u32;
        levels
            .iter()
            .find(|l| l.members.contains(&a))
            .unwrap_or_else(|| panic!("no level with member {anchor}: {levels:?}"))
    }

    #[test]
    fn an_explicit_time_loop_is_one_level_of_all_its_loops() {
        // Start-up x y, then the step p q r four times.
        let tr = t("xy pqr pqr pqr pqr");
        let levels = analyse(&tr, 5);
        let l = level_of(&levels, 'p');
        assert_eq!(l.members, t("pqr"));
        assert_eq!(l.passes, 3);
        assert!(l.eligible);
        assert_eq!(l.max_pass, 3);
    }

    #[test]
    fn an_inner_loop_is_a_finer_level_inside_the_step() {
        // Step: s, an inner loop j k run a varying number of times, then q.
        let tr = t("x sjkjkq sjkjkjkq sjkq sjkjkq");
        let levels = analyse(&tr, 5);
        let step = level_of(&levels, 's');
        assert_eq!(step.members, t("sq"));
        assert_eq!(step.core, t("jkqs"));
        assert!(step.eligible);
        let inner = level_of(&levels, 'j');
        assert!(inner.passes > step.passes);
        assert!(outside(&tr, inner.anchor, step.anchor, false));
        // With the same bytes, the data-dependent inner loop stays inside the step.
        let bytes = |_: &Level| Some(100);
        let chosen = select(&levels, &tr, &bytes).unwrap().unwrap();
        assert_eq!(chosen.anchor, step.anchor);
    }

    #[test]
    fn during_the_first_inner_burst_nothing_covers_enough_to_decide() {
        // Start-up a b c d, the step's prefix s, then the first solve's iterations.
        let tr = t("abcd s jk jk jk jk jk jk");
        let levels = analyse(&tr, 7);
        assert!(levels.iter().all(|l| !l.eligible), "{levels:?}");
        let bytes = |_: &Level| Some(1);
        assert_eq!(select(&levels, &tr, &bytes), Ok(None));
    }

    #[test]
    fn a_rare_loop_stays_inside_the_pass() {
        // Monitor m every third step: a periodic enclosure.
        let tr = t("x pqr pqr pqrm pqr pqr pqrm pqr pqr pqrm pqr pqr pqrm");
        let levels = analyse(&tr, 5);
        let step = level_of(&levels, 'p');
        let monitor = level_of(&levels, 'm');
        assert!(step.eligible && monitor.eligible);
        assert!(!outside(&tr, step.anchor, monitor.anchor, true));
        let same = |_: &Level| Some(100);
        assert_eq!(
            select(&levels, &tr, &same).unwrap().unwrap().anchor,
            step.anchor
        );
        // Even a cheaper checkpoint there would come only every third step.
        let m = monitor.anchor;
        let cheaper = move |l: &Level| Some(if l.anchor == m { 50 } else { 100 });
        assert_eq!(
            select(&levels, &tr, &cheaper).unwrap().unwrap().anchor,
            step.anchor
        );
    }

    #[test]
    fn a_location_called_twice_per_step_is_no_iteration() {
        // h runs in both halves of the step: its passes alternate between the halves.
        let tr = t("x habc hdefg habc hdefg habc hdefg habc hdefg");
        let levels = analyse(&tr, 9);
        let h = levels.iter().find(|l| l.anchor == 7).unwrap();
        assert!(!h.eligible, "{h:?}");
        let step = level_of(&levels, 'a');
        assert!(step.eligible);
        assert!(step.members.contains(&3) && !step.members.contains(&7));
    }

    #[test]
    fn an_inner_loop_iterating_the_same_number_of_times_stays_inside_the_step() {
        // The inner loop j k runs twice in every step (fixed stages, or a solver that always
        // takes two iterations): the step s ... q encloses it, as it would a varying one.
        let tr = t("x sjkjkq sjkjkq sjkjkq sjkjkq sjkjkq");
        let levels = analyse(&tr, 5);
        let inner = level_of(&levels, 'j');
        let step = level_of(&levels, 's');
        assert!(inner.eligible && step.eligible && inner.passes > step.passes);
        let bytes = |_: &Level| Some(100);
        let chosen = select(&levels, &tr, &bytes).unwrap().unwrap();
        assert_eq!(chosen.anchor, step.anchor);
    }

    #[test]
    fn a_periodic_loop_in_longer_steps_is_no_enclosure() {
        // Every other step runs m n, and its solver j iterates longer: the steps holding m are
        // half again as long, but m n are two loops of a six-loop step.
        let tr = t("x pjqrst pjjjjmnqrst pjqrst pjjjjmnqrst pjqrst pjjjjmnqrst pjqrst pjjjjmnqrst");
        let levels = analyse(&tr, 10);
        let step = level_of(&levels, 'p');
        let m = (b'm' - b'a') as u32;
        assert!(!outside(&tr, step.anchor, m, false));
        let bytes = |_: &Level| Some(100);
        let chosen = select(&levels, &tr, &bytes).unwrap().unwrap();
        assert_eq!(chosen.anchor, step.anchor);
    }

    #[test]
    fn a_branch_taken_in_the_first_steps_only_leaves_the_step_its_own_level() {
        // b runs first in the first three steps, then never again: its passes hold the step's
        // loops once each, but the step's level goes on without it.
        let tr = t("x bpqr bpqr bpqr pqr pqr pqr pqr pqr pqr");
        let levels = analyse(&tr, 5);
        let branch = levels.iter().find(|l| l.anchor == 1).unwrap();
        assert!(!branch.alive, "{branch:?}");
        let p = 15;
        let step = levels.iter().find(|l| l.anchor == p);
        assert!(
            step.is_some_and(|l| l.eligible && l.passes == 8 && l.members == [p, 16, 17]),
            "{levels:?}"
        );
        let bytes = |_: &Level| Some(100);
        let chosen = select(&levels, &tr, &bytes).unwrap().unwrap();
        assert_eq!(chosen.anchor, p);
    }

    #[test]
    fn unmeasured_levels_are_named() {
        let tr = t("x sjkjkq sjkjkjkq sjkq sjkjkq");
        let levels = analyse(&tr, 5);
        let none = |_: &Level| None;
        let missing = select(&levels, &tr, &none).unwrap_err();
        assert!(missing.eligible);
    }
}
