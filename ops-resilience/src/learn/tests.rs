//! The learner on small programs: one dataset per location, whole-extent reads and writes.

use super::*;

/// A program over one dataset per letter: dataset `l` holds `sizes[l]` points of 8 bytes;
/// `saved` lists the datasets a checkpoint may save (the others are start-up data a replay
/// recomputes, or never written).
struct Fake {
    sizes: Vec<u64>,
    saved: Vec<u32>,
}

impl Targets for Fake {
    fn dat_infos(&self) -> Vec<DatInfo> {
        (0..self.sizes.len())
            .map(|d| DatInfo {
                saveable: self.saved.contains(&(d as u32)),
                point_bytes: 8,
                ..DatInfo::default()
            })
            .collect()
    }
}

#[derive(Default)]
struct Table {
    count: Vec<u64>,
    first: Vec<u64>,
    last: Vec<u64>,
    max_gap: Vec<u64>,
}

impl Counts for Table {
    fn count(&self, loc: u32) -> u64 {
        self.count.get(loc as usize).copied().unwrap_or(0)
    }
    fn max_gap(&self, loc: u32) -> u64 {
        self.max_gap.get(loc as usize).copied().unwrap_or(0)
    }
    fn first(&self, loc: u32) -> u64 {
        self.first.get(loc as usize).copied().unwrap_or(u64::MAX)
    }
}

/// Loop footprints: `reads` and `writes` datasets, each over its whole extent.
fn fp(sizes: &[u64], reads: &[u32], writes: &[u32]) -> Arc<Footprint> {
    let bx = |d: u32| (d, Bx::new([0, 0, 0], [sizes[d as usize] as i32, 1, 1]));
    Arc::new(Footprint {
        reads: reads.iter().map(|&d| bx(d)).collect(),
        writes: writes.iter().map(|&d| bx(d)).collect(),
    })
}

/// Runs a trace of (location, reads, writes) through a learner; the events with their
/// loop indices.
fn run(
    learner: &mut Learner,
    sizes: &[u64],
    saved: &[u32],
    loops: &[(u32, Vec<u32>, Vec<u32>)],
) -> Vec<(u64, Event)> {
    run_watching(learner, sizes, saved, loops, |_, _| {})
}

/// [`run`], showing `watch` the learner after each loop with the loop's index.
fn run_watching(
    learner: &mut Learner,
    sizes: &[u64],
    saved: &[u32],
    loops: &[(u32, Vec<u32>, Vec<u32>)],
    mut watch: impl FnMut(u64, &Learner),
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
            t.first.resize(l + 1, 0);
            t.last.resize(l + 1, 0);
            t.max_gap.resize(l + 1, 0);
        }
        if t.count[l] > 0 {
            t.max_gap[l] = t.max_gap[l].max(i as u64 - t.last[l]);
        } else {
            t.first[l] = i as u64;
        }
        t.count[l] += 1;
        t.last[l] = i as u64;
        if let Some(e) = learner.on_loop(*loc, i as u64, &fp(sizes, r, w), 0, &t, &m) {
            events.push((i as u64, e));
        }
        watch(i as u64, learner);
    }
    events
}

#[test]
fn a_heat_solver_checkpoints_once_per_step_before_the_solve() {
    // Datasets: 0 = u (64 points), 1 = u_old, 2 = residual scratch, 3 = geometry
    // (recomputed at restore, so no checkpoint considers it). Start-up: geometry (3). Step: s
    // copies u -> u_old (reads 0, writes 1); the solve j reads u_old and u and writes u, r
    // reduces into 2; the trip count varies.
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
    // Steps are 5 to 9 loops: decided in the fifth step at the latest.
    assert!(*at < 40, "decided at loop {at}");
    assert!(!events
        .iter()
        .any(|(_, e)| matches!(e, Event::Revised { .. })));
}

#[test]
fn the_first_burst_of_an_inner_solve_is_left_for_its_time_step() {
    // The first solve iterates 12 times before the step's prefix recurs: its iterations are
    // taken for the time loop until then, and the step replaces them once it repeats.
    let sizes = [64, 64, 8, 8];
    let mut loops = vec![(9, vec![], vec![3])];
    for step in 0..10 {
        loops.push((0, vec![0], vec![1]));
        for _ in 0..(12 - step.min(8)) {
            loops.push((1, vec![0, 1], vec![0]));
            loops.push((2, vec![0], vec![2]));
        }
        loops.push((3, vec![0], vec![3]));
    }
    let mut l = Learner::default();
    // (loop index, decided location, checkpoints counted in the step prefix's passes)
    // whenever one of the two changes.
    let mut states: Vec<(u64, Option<u32>, bool)> = Vec::new();
    let events = run_watching(&mut l, &sizes, &[0, 1, 2], &loops, |i, l| {
        let now = (l.location(), l.counting() == Counting::Suspect(0));
        if states.last().is_none_or(|s| (s.1, s.2) != now) {
            states.push((i, now.0, now.1));
        }
    });
    let d = l.decision().unwrap();
    assert_eq!((d.level.anchor, d.location), (0, 0), "{events:?} {d:?}");
    // Decided on the solve, then in doubt once the step's prefix recurred between its
    // iterations (checkpoints by count counted in the prefix's passes, once per step), and no
    // longer once moved to the step.
    let on_solve = states.iter().position(|s| matches!(s.1, Some(1 | 2)));
    let doubt = states.iter().position(|s| s.2);
    let on_step = states.iter().position(|s| s.1 == Some(0));
    assert!(
        matches!((on_solve, doubt, on_step), (Some(a), Some(b), Some(c)) if a <= b && b < c),
        "{states:?}"
    );
    assert!(!states.last().unwrap().2, "{states:?}");
    let prefix_again = loops.iter().skip(2).position(|l| l.0 == 0).unwrap() as u64 + 2;
    // ... and found within a pass of the solve (2 loops) after the prefix recurred, not at the
    // next analysis in the usual cadence.
    let found = states[doubt.unwrap()].0;
    assert!(
        found > prefix_again && found <= prefix_again + 3,
        "{states:?}"
    );
    assert_eq!(d.bytes, 64 * 8);
    let revisions = events
        .iter()
        .filter(|(_, e)| matches!(e, Event::Revised { .. }))
        .count();
    assert!(revisions <= 1, "{events:?}");
    // Steps 0 to 3 run 26, 24, 22 and 20 loops: the step is decided once three have run,
    // before the end of the fourth.
    assert!(d.at_loop < 1 + 26 + 24 + 22 + 20, "{d:?}");
}

#[test]
fn a_solve_nested_in_a_solve_is_left_one_level_at_a_time_and_never_re_entered() {
    // Datasets: 0 = u, 1 = u_old, 5 = the Picard iterate, 6 = conductivity, 2 and 3 scratch
    // of the two convergence tests, 4 = geometry. Each step saves u (location 0), then runs
    // Picard iterations (save the iterate 4, conductivity 5, Jacobi sweeps 1 with their test
    // 2, the Picard test 3), both trip counts falling as the run settles.
    let picard = |step: u32| 4 - step.min(6) / 3;
    let loops = nested_solves(14, picard);
    let (decided, d) = only_outwards(&loops);
    assert_eq!((d.level.anchor, d.location), (0, 0), "{decided:?}");
}

#[test]
fn a_review_that_has_yet_to_see_the_decided_passes_does_not_move_into_them() {
    // As above, but the first step's Picard iterations outlast the confirmation of the
    // decision taken on them: the step's prefix first recurs in a review, whose recording
    // starts there and shows the sweeps' level long before the Picard level or the step.
    let picard = |step: u32| if step == 0 { 300 } else { 2 + step % 3 };
    let loops = nested_solves(16, picard);
    let (decided, d) = only_outwards(&loops);
    assert_eq!((d.level.anchor, d.location), (0, 0), "{decided:?}");
}

/// The loops of a step (location 0) holding Picard iterations (`picard(step)` of them: save
/// the iterate 4, conductivity 5, Jacobi sweeps 1 with their test 2, the Picard test 3), after
/// a start-up loop 9. Datasets: 0 = u, 1 = u_old, 5 = the Picard iterate, 6 = conductivity,
/// 2 and 3 scratch of the two convergence tests, 4 = geometry.
fn nested_solves(steps: u32, picard: impl Fn(u32) -> u32) -> Vec<(u32, Vec<u32>, Vec<u32>)> {
    let mut loops = vec![(9, vec![], vec![4])];
    for step in 0..steps {
        loops.push((0, vec![0], vec![1]));
        for _ in 0..picard(step) {
            loops.push((4, vec![0], vec![5]));
            loops.push((5, vec![0], vec![6]));
            for _ in 0..(8 - step.min(5)) {
                loops.push((1, vec![0, 1, 4, 6], vec![0]));
                loops.push((2, vec![0], vec![2]));
            }
            loops.push((3, vec![0, 5], vec![3]));
        }
    }
    loops
}

/// Runs [`nested_solves`] loops and checks that the learner moved only outwards; the decided
/// locations with the loop index of each change, and the final decision.
fn only_outwards(loops: &[(u32, Vec<u32>, Vec<u32>)]) -> (Vec<(u64, u32)>, Decision) {
    let sizes = [64, 64, 8, 8, 64, 64, 64];
    let mut l = Learner::default();
    // The decided location whenever it changes, with the loop index.
    let mut decided: Vec<(u64, u32)> = Vec::new();
    let events = run_watching(&mut l, &sizes, &[0, 1, 2, 3, 5, 6], loops, |i, l| {
        if let Some(now) = l.location() {
            if decided.last().is_none_or(|d| d.1 != now) {
                decided.push((i, now));
            }
        }
    });
    // Each move goes out to a location that runs less often: a level whose loops all ran
    // inside the decided passes is a part of them, however the review's recording shows it.
    let runs = |loc: u32| loops.iter().filter(|x| x.0 == loc).count();
    assert!(
        decided.windows(2).all(|w| runs(w[1].1) < runs(w[0].1)),
        "{decided:?} {events:?}"
    );
    (decided, l.decision().unwrap().clone())
}

#[test]
fn a_late_rare_loop_reviews_without_changing_the_decision() {
    let sizes = [8, 8, 8];
    let mut loops = Vec::new();
    // Every 1200 steps: first after the decision is confirmed.
    for step in 0..4000 {
        loops.push((0, vec![0], vec![0]));
        loops.push((1, vec![0], vec![1]));
        if step % 1200 == 1199 {
            loops.push((2, vec![1], vec![2]));
        }
    }
    let mut l = Learner::default();
    let events = run(&mut l, &sizes, &[0, 1, 2], &loops);
    assert_eq!(events[0].1, Event::Decided);
    assert!(
        events.iter().any(|(_, e)| *e == Event::ReviewStarted(2)),
        "{events:?}"
    );
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
    assert_eq!(back.rec.locs, l.rec.locs);
}

/// The rules of [`Learner::verify`] with every count taken afresh from `since`: what the
/// running tally must agree with. `None` for a location that is not a member.
fn verify_afresh(d: &mut Decision, loc: u32) -> Option<bool> {
    let i = d.level.members.iter().position(|&m| m == loc)?;
    let voters = d.since.iter().filter(|&&v| v > 0).count() as u32;
    let quorum = 2 * voters as usize > d.since.len();
    Some(if loc == d.location {
        let twice = d.since.iter().filter(|&&v| v == 2).count() as u32;
        for v in d.since.iter_mut().filter(|v| **v > 0) {
            *v = 2;
        }
        d.missing = 0;
        quorum && 2 * twice >= voters && twice > 0
    } else {
        let skipped = d.since[i] == 1 || d.since[i] == 3;
        if d.since[i] == 1 {
            d.missing += 1;
        }
        d.since[i] = if skipped { 3 } else { 1 };
        let voters = d.since.iter().filter(|&&v| v > 0).count() as u32;
        quorum && d.missing >= voters
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

#[test]
fn a_region_is_measured_once_however_long_the_recording() {
    // A 3-loop step, recorded for well over KEPT_SAMPLES steps while the decision is
    // confirmed: each measurement is of another region, so no location holds more
    // measurements than it has regions (a region whose measurement was dropped from the kept
    // ones is not measured again).
    let sizes = [64, 64, 8];
    let mut loops = vec![(9, vec![], vec![2])];
    for _ in 0..(KEPT_SAMPLES * 6) {
        loops.push((0, vec![0], vec![1]));
        loops.push((1, vec![0, 1], vec![0]));
        loops.push((2, vec![0], vec![2]));
    }
    let mut l = Learner::default();
    let mut longest = 0;
    run_watching(&mut l, &sizes, &[0, 1], &loops, |_, l| {
        longest = longest.max(l.rec.len())
    });
    assert!(l.decision().is_some());
    assert!(longest > 3 * KEPT_SAMPLES * 2, "recorded {longest} loops");
    for (loc, s) in l.samples() {
        let regions = loops.iter().filter(|x| x.0 == *loc).count();
        assert!(
            s.count < regions,
            "location {loc}: {} measurements",
            s.count
        );
    }
}

#[test]
fn a_branch_chosen_while_always_taken_is_left_once_it_is_skipped() {
    // Datasets: 0 = u (128 points), 1 = v (64), 2 = w (8), 3 = geometry. Step: a makes v from
    // u, the branch b makes w from v (taken in every step until step 12, then skipped every
    // fourth step), c makes u from v and w. Before b only v is live: the cheapest boundary,
    // until b is seen not to run in every step.
    let sizes = [128, 64, 8, 64];
    let mut loops = vec![(9, vec![], vec![3])];
    for step in 0..40 {
        loops.push((0, vec![0, 3], vec![1]));
        if step < 12 || step % 4 != 3 {
            loops.push((1, vec![1], vec![2]));
        }
        loops.push((2, vec![1, 2], vec![0]));
    }
    let mut l = Learner::default();
    let events = run(&mut l, &sizes, &[0, 1, 2], &loops);
    assert_eq!(events[0].1, Event::Decided, "{events:?}");
    let d = l.decision().unwrap();
    assert_ne!(
        d.location, 1,
        "the skipped branch is still chosen: {events:?}"
    );
    assert!(d.level.members.contains(&0) && d.level.members.contains(&2));
}

#[test]
fn the_decided_passes_anchored_anew_keep_their_votes() {
    // Members a b c d, chosen c; since c last ran: a ran (1), b ran twice without c (3, a
    // skip), d has not run since the decision (0). The same passes anchored at b, without d.
    let level = |members: Vec<u32>| structure::Level {
        anchor: members[0],
        members,
        core: Vec::new(),
        union: Vec::new(),
        passes: 3,
        max_pass: 4,
        covers: true,
        alike: true,
        eligible: true,
        alive: true,
    };
    let mut old = Decision::new(level(vec![0, 1, 2, 3]), 2, 64, 10);
    old.since = vec![1, 3, 2, 0];
    old.missing = 1;
    let mut new = Decision::new(level(vec![1, 2, 0]), 2, 64, 10);
    new.keep_votes(&old);
    assert_eq!(new.since, vec![3, 2, 1]);
    assert_eq!(new.missing, 1);
    // A member of the old passes only leaves its vote behind.
    old.since = vec![3, 1, 2, 3];
    old.missing = 2;
    let mut fewer = Decision::new(level(vec![1, 2]), 2, 64, 10);
    fewer.keep_votes(&old);
    assert_eq!((fewer.since.clone(), fewer.missing), (vec![1, 2], 0));
}
