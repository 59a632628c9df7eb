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
//! shortened as soon as one is fixed. `OPS_LEARN_PROGRAMS=900` judges 900 fixed seeds (the
//! misses among seeds 300 to 899 are in [`FOUND`]).

mod oracle;
mod programs;

use programs::{generate, Prog, World};

/// How the learner is known to miss, each a start of a failure message (docs/resilience.md,
/// "Known limits"): a location that is not once per step, from a loop whose trip count was one
/// in every step seen while learning, or the same two or more in every step (a fixed count is
/// no sign of an inner loop); a location moved twice or more, when a decision on an inner
/// loop's first burst (before any step recurred), or on a loop of an inner loop that had
/// iterated once in every step so far, is followed by another such ambiguity (a branch taken
/// in every step of a review); a location 1.05 to 1.5 x the oracle's, when the passes it was
/// measured in lacked a rare loop or a longer inner solve that later makes its checkpoints
/// larger than another boundary's; a move so late that no checkpoint follows it.
const KNOWN_KINDS: &[&str] = &[
    "the chosen location",
    "the location was revised",
    "the learnt location",
    "no checkpoint after the decision",
    "checkpoints counted in steps",
];

/// Seeds on which the learner misses (of [`FOUND`]), each with the start of its failure, one of
/// [`KNOWN_KINDS`] (or, for one seed, a schedule the doubt's count misses: a loop every few
/// steps that ran before the first pass taken for the step's prefix). One of the default 300
/// is here since checkpoints before the final decision are judged too (from the second step
/// on, at most once per N steps): an inner loop's first burst counted in passes before the
/// analysis could tell. (Two more of the default 300 and one of 300 to 899 pass since the
/// verification's votes survive the decided passes being anchored anew.)
const KNOWN_LIMITS: &[(u64, &str)] = &[
    (0x1ea4_0000 + 237, "checkpoints counted in steps"),
    (0x1ea4_0000 + 485, "checkpoints counted in steps"),
    (0x1ea4_0000 + 586, "checkpoints at steps"),
    (0x1ea4_0000 + 515, "the chosen location"),
    (0x1ea4_0000 + 605, "the chosen location"),
    (0x1ea4_0000 + 617, "the chosen location"),
    (0x1ea4_0000 + 718, "the chosen location"),
    (0x1ea4_0000 + 732, "the chosen location"),
];

/// Seeds judged with the default ones in every run: drawn seeds that failed once (the first
/// decided nothing in its 27 steps; the next three missed in known kinds until inner loops
/// iterating on reduced values, a review's fair comparison and waits on a broken location's
/// pass were added), and the misses among the fixed seeds 300 to 899 (fifteen of 600, all in
/// [`KNOWN_KINDS`] but one), with two that prove the count across a move. Since the generator
/// added a halo helper run field by field (to three programs in ten), some of these programs
/// changed: the third of the first four then chose a branch taken in every step while
/// learning, and kept it when it was skipped, until the decided passes were told apart from
/// the chosen location's own recurrence (`Learner::try_revise`).
const FOUND: &[u64] = &[
    104_372_892_753_659,
    104_372_022_217_803,
    104_372_302_242_550,
    104_372_609_401_538,
    0x1ea4_0000 + 515,
    0x1ea4_0000 + 605,
    0x1ea4_0000 + 617,
    0x1ea4_0000 + 633,
    0x1ea4_0000 + 718,
    0x1ea4_0000 + 732,
    0x1ea4_0000 + 737,
    0x1ea4_0000 + 774,
    0x1ea4_0000 + 778,
    0x1ea4_0000 + 823,
    0x1ea4_0000 + 828,
    0x1ea4_0000 + 454,
    0x1ea4_0000 + 485,
    0x1ea4_0000 + 586,
    0x1ea4_0000 + 759,
    // Pass since the decision moved on a checkpoint taken early in a step: without counting
    // from that checkpoint's pass, the next came one step early.
    0x1ea4_0000 + 503,
    0x1ea4_0000 + 505,
    // Among the fixed seeds 900 to 2999 (`OPS_LEARN_PROGRAMS=3000`), checkpoints came once per
    // inner iteration for a step: the first two pass since the verification's votes survive the
    // decided passes being anchored anew (an inner loop that ran once per step so far starts
    // iterating), the next two since a level enclosing the decided passes, in doubt itself,
    // paces checkpoints counted in passes while the review waits.
    0x1ea4_0000 + 2608,
    0x1ea4_0000 + 2900,
    0x1ea4_0000 + 1976,
    0x1ea4_0000 + 2079,
    // Two inner loops one after the other in each step, the first step's second taken for a
    // time loop after a finished phase (the first's iterations, over before it began): the
    // review the step's prefix starts must go on until the step forms a level, not end on
    // what it recorded and keep the inner loop.
    0x1ea4_0000 + 411,
    0x1ea4_0000 + 529,
    0x1ea4_0000 + 623,
    0x1ea4_0000 + 826,
];

/// True when failure `e` is of a kind in [`KNOWN_KINDS`]. A drawn seed failing so is reported,
/// not failed (the fixed seeds hold how often they happen: a new one among them fails); a drawn
/// seed failing any other way (a restart that differs, a schedule not kept, a crash) fails.
fn known_kind(e: &str) -> bool {
    KNOWN_KINDS.iter().any(|how| e.starts_with(how))
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
            programs::Item::Each(body) => format!(
                "each field [{}]",
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
        for &seed in FOUND {
            if !seeds.contains(&seed) {
                seeds.push(seed);
            }
        }
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
            names
                .iter()
                .map(|k| oracle::short(k))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let every = EVERY[(seed % 2) as usize];
    let learnt = oracle::run(&program, Some(oracle::config(every)), |_| {});
    oracle::print_learnt(&learnt);
    eprintln!("{:?}", judge(seed));
}
