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

mod oracle;
mod programs;

use programs::{generate, Prog, World};

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

/// The whole property for one program; `Err` says what failed.
fn judge(seed: u64) -> Result<(), String> {
    let p = generate(seed);
    let program = |cx: &mut oracle::Ctx| World::run(cx, &p);
    oracle::judge(&program, EVERY[(seed % 2) as usize]).map(|_| ())
}

/// A program in a line per item of its time step.
fn describe(p: &Prog) -> String {
    let mut out = format!(
        "{} dimensions {:?}, halo {}, {} steps\n",
        p.dims, p.n, p.halo, p.steps
    );
    let op = |o: &programs::Op| {
        format!(
            "{} {:?} {:?},{:?} -> {:?}",
            o.name, o.kind, o.src, o.aux, o.dst
        )
    };
    for o in &p.startup {
        out += &format!("  start-up {}\n", op(o));
    }
    for item in &p.step {
        let line = match item {
            programs::Item::Loop(o) => op(o),
            programs::Item::Inner { body, probe, max } => format!(
                "inner (max {max}) [{}] probe {} {:?}",
                body.iter().map(op).collect::<Vec<_>>().join("; "),
                probe.0,
                probe.1
            ),
            programs::Item::SubCycle { every, times, body } => format!(
                "every {every} steps {times} x [{}]",
                body.iter().map(op).collect::<Vec<_>>().join("; ")
            ),
            programs::Item::Branch { fetched, body } => format!(
                "branch on {fetched:?} [{}]",
                body.iter().map(op).collect::<Vec<_>>().join("; ")
            ),
            programs::Item::Rare { every, body } => format!(
                "rare every {every} [{}]",
                body.iter().map(op).collect::<Vec<_>>().join("; ")
            ),
            programs::Item::Swap => "swap".into(),
        };
        out += &format!("  step: {line}\n");
    }
    out
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
            (Err(e), Some(how)) if e.starts_with(how) => {
                eprintln!("seed {seed}: known limit: {e}");
                known += 1
            }
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
    eprint!("{}", describe(&p));
    let program = |cx: &mut oracle::Ctx| World::run(cx, &p);
    let reference = oracle::run(&program, None, |_| {});
    for (i, names) in reference.ran.iter().enumerate() {
        eprintln!(
            "step {i} at {:?}: {}",
            reference.step_starts.get(i),
            names.join(" ")
        );
    }
    let every = EVERY[(seed % 2) as usize];
    let learnt = oracle::run(&program, Some(oracle::config(every)), |_| {});
    let l = &learnt.report.location;
    eprintln!(
        "chosen {:?} anchor {:?} at {:?} bytes {:?} revisions {}",
        l.chosen, l.anchor, l.chosen_at_loop, l.bytes, l.revisions
    );
    for c in &l.candidates {
        eprintln!(
            "  candidate {} {} samples {}..{}",
            c.location, c.samples, c.bytes_min, c.bytes_max
        );
    }
    for h in &l.history {
        eprintln!(
            "  at {} (step {}) {} {:?}",
            h.loop_index,
            oracle::step_of(&learnt.step_starts, h.loop_index),
            h.what,
            h.location
        );
    }
    for c in &learnt.report.checkpoints {
        eprintln!(
            "checkpoint {} at {} (step {}) {} {} provisional {}",
            c.sequence,
            c.loop_index,
            oracle::step_of(&learnt.step_starts, c.loop_index),
            c.location,
            c.bytes,
            c.provisional
        );
    }
    eprintln!("{:?}", judge(seed));
}
