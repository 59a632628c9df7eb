//! The learnt checkpoint location, judged against a brute-force oracle on random time-stepping
//! programs (`programs`: inner loops with reduction-driven trip counts, sub-cycles, branches on
//! fetched values, rare loops, double buffers swapped by handles, 1 to 3 dimensions).
//!
//! For every program:
//! - the oracle forces the checkpoint location to each loop that runs exactly once per time
//!   step (the `checkpoint_location` hint, a checkpoint every step), runs the program, and
//!   takes the largest of its steady checkpoints from the learnt run's first decided step on
//!   (regions over the same passes for every location); the smallest of those is the truth;
//! - with no hint, the learnt location's figure by that oracle is at most 1.05 x the truth
//!   (and its checkpoints in the learnt run are no larger), its checkpoints come exactly once
//!   per N time steps at the location the report names (after its decision; it may be revised
//!   once, when a loop taken for one of the step turns out conditional), and the report's
//!   figure for it is the largest of them;
//! - restarting from every checkpoint gives bitwise the uninterrupted run's datasets and values,
//!   and the restarted run checkpoints at the same loops as the uninterrupted one.
//!
//! Seeds are fixed (the failing seed is printed; [`FOUND`] adds the drawn ones that failed),
//! plus one drawn for each run and printed;
//! `OPS_LEARN_SEED` replaces the drawn one, and `OPS_LEARN_PROGRAMS` sets how many fixed seeds
//! run (default 300).
//!
//! [`KNOWN_LIMITS`] lists the programs on which the learner is known to miss (see
//! docs/resilience.md, "Known limits"): each must still fail, and in the recorded way (a
//! restart that differs is never a known limit), so the list cannot hide a new failure and is
//! shortened as soon as one is fixed.

mod common;
mod programs;

use common::Captured;
use ops_backends::prelude::*;
use ops_resilience::store::Checkpoint;
use ops_resilience::{Resilience, ResilienceConfig};
use programs::{generate, once_per_step, Outcome, Prog, World};

/// Seeds on which the learner misses (of the default 300, and of [`FOUND`]), each with the
/// start of its failure. Four kinds remain: a conditional loop (a branch taken in every pass
/// seen while learning, or an inner loop that iterated once) taken for the pass's anchor and
/// never displaced; a location moved twice; a location 1.05 to 1.5 x the oracle's because the
/// passes it was measured in lacked a rare or conditional loop that later makes its checkpoints
/// larger than another boundary's; a move to a cheaper boundary so late that no steady
/// checkpoint follows it.
const KNOWN_LIMITS: &[(u64, &str)] = &[
    (0x1ea4_0000 + 33, "the location was revised 2 times"),
    (0x1ea4_0000 + 91, "the chosen location"),
    (0x1ea4_0000 + 141, "the learnt location"),
    (0x1ea4_0000 + 177, "the learnt location"),
    (104_372_022_217_803, "the learnt location"),
    (104_372_302_242_550, "the chosen location"),
    (
        104_372_609_401_538,
        "no steady checkpoint at the learnt location",
    ),
];

/// Seeds drawn by earlier runs that failed, judged with the fixed ones in every run. The first
/// decided nothing in its 27 steps: a branch taken first in the first three steps only anchored
/// the step's level and kept the step's loops from anchoring one when it stopped. The next three
/// came from a sweep of 150 drawn seeds after that fix, and miss in known kinds: 1.051 x the
/// oracle; a branch taken for a loop of the step; a review that moved checkpoints to a cheaper
/// boundary only in the last step (it waited for as many measurements of it as the chosen one
/// had), so no steady checkpoint followed.
const FOUND: &[u64] = &[
    104_372_892_753_659,
    104_372_022_217_803,
    104_372_302_242_550,
    104_372_609_401_538,
];

/// True when failure `e` is of a kind in [`KNOWN_LIMITS`]. A drawn seed failing so is reported,
/// not failed (the fixed seeds hold how often they happen: a new one among them fails); a drawn
/// seed failing any other way (a restart that differs, a schedule not kept, a crash) fails.
fn known_kind(e: &str) -> bool {
    KNOWN_LIMITS.iter().any(|(_, how)| e.starts_with(how))
}

/// A seed for this run, outside the fixed ones' range.
fn drawn_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    0x5eed_0000_0000 + (t ^ u64::from(std::process::id()).rotate_left(32)) % 1_000_000_000
}

/// Checkpoint every N time steps.
const EVERY: [u64; 2] = [1, 2];

fn config(every: u64) -> ResilienceConfig {
    ResilienceConfig {
        dir: Some("unused".into()),
        every: Some(every),
        app: Some("prop".into()),
        ..ResilienceConfig::default()
    }
}

/// What one run produced.
struct Run {
    outcome: Outcome,
    checkpoints: Vec<Checkpoint>,
    step_starts: Vec<u64>,
    ran: Vec<Vec<String>>,
    report: ops_resilience::diags::Report,
}

fn run(p: &Prog, cfg: Option<ResilienceConfig>, prep: impl FnOnce(&mut Resilience)) -> Run {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let store = Captured::default();
    if let Some(cfg) = cfg {
        let mut r = Resilience::new(cfg, Some(Box::new(store.clone())));
        prep(&mut r);
        ops.set_observer(Some(Box::new(r)));
    }
    let mut w = World::new(ops, p);
    w.run(p).unwrap();
    let outcome = w.outcome();
    w.ops.finish().unwrap();
    let report = w
        .ops
        .observer_mut::<Resilience>()
        .map(|r| r.report().clone())
        .unwrap_or_default();
    Run {
        outcome,
        checkpoints: store.all(),
        step_starts: w.step_starts,
        ran: w.ran,
        report,
    }
}

/// The time step a loop index falls in.
fn step_of(starts: &[u64], loop_index: u64) -> usize {
    starts
        .partition_point(|&s| s <= loop_index)
        .saturating_sub(1)
}

/// The checkpoints after loop `since` and from `from_step` on whose region was not cut short
/// by the end of the run (before the third step they may still find start-up data
/// recomputable), with their steps.
fn steady(r: &Run, since: u64, from_step: usize) -> Vec<(usize, u64)> {
    let end = r.report.loops;
    r.report
        .checkpoints
        .iter()
        .map(|c| (step_of(&r.step_starts, c.loop_index), c))
        .filter(|(s, c)| *s >= from_step.max(3) && c.loop_index > since && c.closed_at_loop < end)
        .filter(|(_, c)| !c.provisional)
        .map(|(s, c)| (s, c.bytes))
        .collect()
}

/// The largest of some checkpoints: what a location needs room for.
fn most(v: &[(usize, u64)]) -> Option<f64> {
    v.iter().map(|(_, b)| *b as f64).reduce(f64::max)
}

/// The whole property for one program; `Err` says what failed.
fn judge(seed: u64) -> Result<(), String> {
    let p = generate(seed);
    let every = EVERY[(seed % 2) as usize];
    let reference = run(&p, None, |_| {});
    let candidates = once_per_step(&reference.ran);
    // The learnt location.
    let learnt = run(&p, Some(config(every)), |_| {});
    if learnt.outcome != reference.outcome {
        return Err("checkpointing changed the results".into());
    }
    let loc = &learnt.report.location;
    let chosen = loc.chosen.clone().ok_or("no location was decided")?;
    let chosen_name = chosen.split('@').next().unwrap_or_default().to_string();
    if !candidates.contains(&chosen_name) {
        return Err(format!(
            "the chosen location `{chosen_name}` does not run once per step (those are \
             {candidates:?})"
        ));
    }
    if loc.revisions > 1 {
        return Err(format!("the location was revised {} times", loc.revisions));
    }
    // Since the (last) decision: every checkpoint at the chosen location, once per N steps.
    let since = loc.chosen_at_loop.unwrap_or(0);
    let decided: Vec<&ops_resilience::diags::CheckpointReport> = learnt
        .report
        .checkpoints
        .iter()
        .filter(|c| !c.provisional && c.loop_index > since)
        .collect();
    if let Some(c) = decided.iter().find(|c| c.location != chosen) {
        return Err(format!(
            "checkpoint {} at `{}`, not at the chosen location",
            c.sequence, c.location
        ));
    }
    let steps: Vec<usize> = decided
        .iter()
        .map(|c| step_of(&learnt.step_starts, c.loop_index))
        .collect();
    if steps.windows(2).any(|w| w[1] - w[0] != every as usize) {
        return Err(format!("checkpoints at steps {steps:?}, not every {every}"));
    }
    let first = *steps.first().ok_or("no checkpoint after the decision")?;
    let got = steady(&learnt, since, first);
    if got.is_empty() {
        return Err("no steady checkpoint at the learnt location".into());
    }
    let figure = loc
        .bytes
        .ok_or("the report has no figure for the location")?;
    let measured = loc
        .candidates
        .iter()
        .find(|c| c.location == chosen)
        .map_or(0, |c| c.bytes_max);
    let largest = decided
        .iter()
        .map(|c| c.bytes)
        .max()
        .unwrap_or(0)
        .max(measured);
    let steady_max = got.iter().map(|(_, b)| *b).max().unwrap_or(0);
    if figure < steady_max || figure as f64 > 1.01 * largest as f64 {
        return Err(format!(
            "the report's figure {figure} is not the largest the location was measured or seen \
             to save ({largest}; steady checkpoints up to {steady_max})"
        ));
    }
    // The oracle: every loop that runs once per step, forced (a checkpoint every step). A
    // location's figure is the largest of its steady checkpoints from the learnt run's first
    // decided step on: every region over the same passes, wherever the location sits in the step
    // (a checkpoint late in step k covers step k + 1, so comparing checkpoints step by step
    // would weigh different passes).
    let mut figures: Vec<(&str, f64)> = Vec::new();
    for name in &candidates {
        let forced = run(&p, Some(config(1)), |r| r.set_location(name));
        if forced.outcome != reference.outcome {
            return Err(format!("checkpointing at `{name}` changed the results"));
        }
        if let Some(m) = most(&steady(&forced, 0, first)) {
            figures.push((name, m));
        }
    }
    let mine = figures
        .iter()
        .find(|(n, _)| *n == chosen_name)
        .map(|f| f.1)
        .ok_or("the oracle's run at the learnt location took no steady checkpoint")?;
    // The learnt run's checkpoints there are regions over some of the same passes.
    let seen = most(&got).unwrap_or(0.0);
    if seen > 1.01 * mine {
        return Err(format!(
            "the learnt run's checkpoints at `{chosen_name}` save up to {seen:.0} bytes, the \
             same location forced every step {mine:.0}"
        ));
    }
    let (best_name, best) = figures
        .iter()
        .copied()
        .reduce(|a, b| if b.1 < a.1 { b } else { a })
        .expect("the learnt location has a figure");
    if mine > 1.05 * best {
        return Err(format!(
            "the learnt location `{chosen_name}` saves up to {mine:.0} bytes, `{best_name}` \
             {best:.0} ({:.3} x)",
            mine / best.max(1.0)
        ));
    }
    // Restarts from every checkpoint.
    let schedule: Vec<u64> = learnt
        .report
        .checkpoints
        .iter()
        .map(|c| c.loop_index)
        .collect();
    for ck in &learnt.checkpoints {
        let mut cfg = config(every);
        cfg.restart = true;
        let ck2 = ck.clone();
        let again = run(&p, Some(cfg), move |r| r.restart_from(ck2).unwrap());
        if again.outcome != reference.outcome {
            return Err(format!(
                "the restart from checkpoint {} (loop {}) differs from the uninterrupted run",
                ck.meta.sequence, ck.meta.loop_index
            ));
        }
        let after: Vec<u64> = schedule
            .iter()
            .copied()
            .filter(|&l| l > ck.meta.loop_index)
            .collect();
        let took: Vec<u64> = again
            .report
            .checkpoints
            .iter()
            .map(|c| c.loop_index)
            .collect();
        if took != after {
            return Err(format!(
                "restarted from loop {}, checkpointed at {took:?}; the uninterrupted run at \
                 {after:?}",
                ck.meta.loop_index
            ));
        }
    }
    Ok(())
}

#[test]
fn the_learnt_location_is_the_oracles_on_random_programs() {
    let count: u64 = std::env::var("OPS_LEARN_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let mut seeds: Vec<u64> = (0..count).map(|i| 0x1ea4_0000 + i).collect();
    if count > 0 {
        seeds.extend(FOUND);
    }
    let given: Option<u64> = std::env::var("OPS_LEARN_SEED")
        .ok()
        .and_then(|v| v.parse().ok());
    seeds.extend(given);
    let mut failures = Vec::new();
    // One program more, drawn for this run (unless a seed was given): new programs each run.
    if given.is_none() {
        let drawn = drawn_seed();
        eprintln!("drawn seed {drawn} (rerun it with OPS_LEARN_SEED={drawn} OPS_LEARN_PROGRAMS=0)");
        match judge(drawn) {
            Ok(()) => {}
            Err(e) if known_kind(&e) => {
                eprintln!("drawn seed {drawn}: a known kind of limit: {e}")
            }
            Err(e) => failures.push(format!("drawn seed {drawn}: {e}")),
        }
    }
    let mut known = 0;
    for &seed in &seeds {
        let limit = KNOWN_LIMITS.iter().find(|(s, _)| *s == seed).map(|l| l.1);
        match (judge(seed), limit) {
            (Ok(()), None) => {}
            (Err(e), None) => failures.push(format!("seed {seed}: {e}")),
            (Err(e), Some(how)) if e.starts_with(how) => known += 1,
            (Err(e), Some(how)) => failures.push(format!(
                "seed {seed}: a known limit (\"{how} ...\") now fails otherwise: {e}"
            )),
            (Ok(()), Some(_)) => failures.push(format!(
                "seed {seed}: a known limit now passes: remove it from KNOWN_LIMITS"
            )),
        }
    }
    eprintln!(
        "{} programs judged, {known} of them known limits (KNOWN_LIMITS)",
        seeds.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs failed (rerun one with OPS_LEARN_SEED=<seed> \
         OPS_LEARN_PROGRAMS=0):\n{}",
        failures.len(),
        seeds.len(),
        failures.join("\n")
    );
}

#[test]
#[ignore = "debugging aid: OPS_LEARN_SEED=<seed> ... -- --ignored --nocapture"]
fn debug_one() {
    let seed: u64 = std::env::var("OPS_LEARN_SEED").unwrap().parse().unwrap();
    let p = generate(seed);
    eprintln!("{p:#?}");
    let learnt = run(&p, Some(config(EVERY[(seed % 2) as usize])), |_| {});
    eprintln!("steps {:?}", learnt.step_starts);
    eprintln!("{:#?}", learnt.report.location);
    for c in &learnt.report.checkpoints {
        eprintln!(
            "ck {} at {} {} {} prov {}",
            c.sequence, c.loop_index, c.location, c.bytes, c.provisional
        );
    }
    if let Ok(name) = std::env::var("OPS_LEARN_FORCE") {
        let forced = run(&p, Some(config(EVERY[(seed % 2) as usize])), |r| {
            r.set_location(&name)
        });
        for c in &forced.report.checkpoints {
            eprintln!(
                "forced ck {} at {} step {} {}",
                c.sequence,
                c.loop_index,
                step_of(&forced.step_starts, c.loop_index),
                c.bytes
            );
            for d in &c.decisions {
                if d.saved_bytes > 0 {
                    eprintln!("    {} {} {}", d.name, d.reason, d.saved_bytes);
                }
            }
        }
    }
}
