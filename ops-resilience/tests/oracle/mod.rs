//! The brute-force oracle of the checkpoint location, for any time-stepping program.
//!
//! A program runs on an [`Ops`] and marks the top of each time step ([`Ctx::step`]). For a
//! program and a checkpoint frequency N, [`judge`] checks:
//! - the oracle forces the checkpoint location to each loop that runs exactly once per time
//!   step (the `checkpoint_location` hint, a checkpoint every step), runs the program, and
//!   takes the largest of its steady checkpoints from the learnt run's first decided step on
//!   (regions over the same passes for every location); the smallest of those is the truth;
//! - with no hint, the learnt location's figure by that oracle is at most 1.05 x the truth
//!   (and its checkpoints in the learnt run are no larger), its checkpoints come exactly once
//!   per N time steps at the location the report names (after its decision; it may be revised
//!   once, and besides, moved out of inner loops to locations that run less often), and the
//!   report's figure for it is the largest of them;
//! - restarting from every checkpoint gives bitwise the uninterrupted run's datasets and values,
//!   and the restarted run checkpoints at the same loops as the uninterrupted one.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ops_backends::prelude::*;
use ops_core::{LoopAction, LoopObserver, LoopPlan, Runtime};
use ops_resilience::store::{Checkpoint, KeptInMemory};
use ops_resilience::{Resilience, ResilienceConfig};

/// The final state of a run: every dataset's bytes (halos included) and every value the
/// program received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub dats: Vec<Vec<u8>>,
    pub seen: Vec<u64>,
}

/// Records the location of every loop (the reference run's observer), keyed as the resilience
/// layer keys locations: `name@file:line:col`, with `#k` for the k-th block when the call site
/// ran the loop on another block first, and `+kernel` for a kernel when it ran another kernel
/// on that block first. Worked out here on its own, not by the layer's code.
#[derive(Default)]
pub struct Names(
    pub Arc<Mutex<Vec<String>>>,
    HashMap<String, usize>,
    HashMap<(String, usize), &'static str>,
);

impl LoopObserver for Names {
    fn before_loop(&mut self, _rt: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        let l = plan.location;
        let site = format!("{}@{}:{}:{}", plan.name, l.file(), l.line(), l.column());
        let block = plan.block.index();
        let first = *self.1.entry(site.clone()).or_insert(block);
        let first_kernel = *self.2.entry((site.clone(), block)).or_insert(plan.kernel);
        let mut key = match first == block {
            true => site,
            false => format!("{site}#{block}"),
        };
        if first_kernel != plan.kernel {
            key = format!("{key}+{}", plan.kernel);
        }
        self.0.lock().unwrap().push(key);
        LoopAction::Run
    }
}

/// Loops run so far on `ops`, as its observer counts them (0 without one).
pub fn loop_index(ops: &mut Ops) -> u64 {
    if let Some(r) = ops.observer_mut::<Resilience>() {
        return r.loop_index();
    }
    if let Some(n) = ops.observer_mut::<Names>() {
        return n.0.lock().unwrap().len() as u64;
    }
    0
}

/// What a program runs on: the runtime, the loop index at the top of each time step, and
/// every value it received.
pub struct Ctx {
    pub ops: Ops,
    pub step_starts: Vec<u64>,
    /// The loop index when the time loop ended.
    pub end: Option<u64>,
    pub seen: Vec<u64>,
}

impl Ctx {
    /// Marks the top of a time step.
    pub fn step(&mut self) {
        let i = loop_index(&mut self.ops);
        self.step_starts.push(i);
    }

    /// Marks the end of the time loop (what runs after it is no step's).
    pub fn end(&mut self) {
        self.end = Some(loop_index(&mut self.ops));
    }

    /// Records a value the program received.
    pub fn see(&mut self, v: f64) {
        self.seen.push(v.to_bits());
    }

    /// A reduction's result, recorded.
    pub fn result(&mut self, r: &Reduction<f64>) -> Result<f64> {
        let v = self.ops.reduction_result(r)?;
        self.see(v);
        Ok(v)
    }
}

/// A program: runs on a context, returns every dataset it declared (compared after the run).
pub type Program<'a> = &'a dyn Fn(&mut Ctx) -> Result<Vec<Dat<f64>>>;

/// Every dataset's bytes, halos included.
fn dump(ops: &mut Ops, dats: &[Dat<f64>]) -> Vec<Vec<u8>> {
    dats.iter()
        .map(|d| {
            let extent = ops.dat_layout(d).unwrap().extent();
            let v = ops.fetch_range(d, extent).unwrap();
            v.iter().flat_map(|x| x.to_le_bytes()).collect()
        })
        .collect()
}

/// A location's key as messages show it: the loop's name, with its block's `#k` and its
/// kernel's `+kernel`.
pub fn short(key: &str) -> String {
    let (at, kernel) = match key.rsplit_once('+') {
        Some((at, k)) => (at, format!("+{k}")),
        None => (key, String::new()),
    };
    let name = at.split('@').next().unwrap_or(at);
    match at.rsplit_once('#') {
        Some((_, block)) => format!("{name}#{block}{kernel}"),
        None => format!("{name}{kernel}"),
    }
}

/// What one run produced.
pub struct Run {
    pub outcome: Outcome,
    pub checkpoints: Vec<Checkpoint>,
    pub step_starts: Vec<u64>,
    pub report: ops_resilience::diags::Report,
    /// The locations (keys) of the loops each step ran (the reference run only), then what ran
    /// after the time loop.
    pub ran: Vec<Vec<String>>,
}

/// A configuration writing checkpoints every `every` occurrences of the location.
pub fn config(every: u64) -> ResilienceConfig {
    ResilienceConfig {
        dir: Some("unused".into()),
        every: Some(every),
        app: Some("prop".into()),
        ..ResilienceConfig::default()
    }
}

/// Runs `program` with a resilience observer (`cfg`, adjusted by `prep`) or, without one, with
/// a [`Names`] observer.
pub fn run(
    program: Program<'_>,
    cfg: Option<ResilienceConfig>,
    prep: impl FnOnce(&mut Resilience),
) -> Run {
    let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
    let store = KeptInMemory::default();
    let names = Names::default();
    let list = names.0.clone();
    match cfg {
        Some(cfg) => {
            let mut r = Resilience::new(cfg, Some(Box::new(store.clone())));
            prep(&mut r);
            ops.set_observer(Some(Box::new(r)));
        }
        None => {
            ops.set_observer(Some(Box::new(names)));
        }
    }
    let mut cx = Ctx {
        ops,
        step_starts: Vec::new(),
        end: None,
        seen: Vec::new(),
    };
    let dats = program(&mut cx).unwrap();
    let Ctx {
        mut ops,
        step_starts,
        end,
        seen,
    } = cx;
    let outcome = Outcome {
        dats: dump(&mut ops, &dats),
        seen,
    };
    ops.finish().unwrap();
    let report = ops
        .observer_mut::<Resilience>()
        .map(|r| r.report().clone())
        .unwrap_or_default();
    let names = list.lock().unwrap().clone();
    let mut ran = Vec::new();
    if !names.is_empty() {
        let end = end.map_or(names.len(), |e| e as usize);
        let mut bounds: Vec<usize> = step_starts.iter().map(|&s| s as usize).collect();
        bounds.push(end);
        for w in bounds.windows(2) {
            ran.push(names[w[0]..w[1]].to_vec());
        }
        ran.push(names[end..].to_vec());
    }
    Run {
        outcome,
        checkpoints: store.all(),
        step_starts,
        report,
        ran,
    }
}

/// The loops that ran exactly once in every step of a run (`ran`: each step's loops, then
/// what ran after the time loop): the oracle's boundaries.
pub fn once_per_step(ran: &[Vec<String>]) -> Vec<String> {
    let steps = &ran[..ran.len().saturating_sub(1)];
    let Some(first) = steps.first() else {
        return Vec::new();
    };
    let once = |step: &Vec<String>, name: &String| step.iter().filter(|n| *n == name).count() == 1;
    first
        .iter()
        .filter(|name| steps.iter().all(|step| once(step, name)))
        .cloned()
        .collect()
}

/// The time step a loop index falls in.
pub fn step_of(starts: &[u64], loop_index: u64) -> usize {
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

/// What the judge found on a program that passed.
#[derive(Debug)]
pub struct Verdict {
    pub chosen: String,
    pub bytes: f64,
    pub best: (String, f64),
    pub decided_at_step: usize,
    pub checkpoints: usize,
}

/// The first step from which checkpoints counted in steps must come once per N steps.
const FIRST_COUNTED_STEP: usize = 1;

/// The whole property for one program checkpointed every `every` steps; `Err` says what
/// failed.
pub fn judge(program: Program<'_>, every: u64) -> Result<Verdict, String> {
    let reference = run(program, None, |_| {});
    let candidates = once_per_step(&reference.ran);
    // The learnt location.
    let learnt = run(program, Some(config(every)), |_| {});
    if learnt.outcome != reference.outcome {
        return Err("checkpointing changed the results".into());
    }
    let loc = &learnt.report.location;
    let chosen = loc.chosen.clone().ok_or("no location was decided")?;
    let chosen_name = short(&chosen);
    if !candidates.contains(&chosen) {
        let once: Vec<String> = candidates.iter().map(|c| short(c)).collect();
        return Err(format!(
            "the chosen location `{chosen_name}` does not run once per step (those are \
             {once:?})"
        ));
    }
    // Revised once at most, besides moves out of an inner loop taken for the outer iteration
    // (to a location that runs less often: a solve nested in a solve is left one level at a
    // time).
    let runs = |key: &Option<String>| {
        let key = key.as_deref().unwrap_or_default();
        reference.ran.iter().flatten().filter(|n| *n == key).count()
    };
    let mut previous: Option<&Option<String>> = None;
    let mut sideways = 0;
    for h in &loc.history {
        match h.what.as_str() {
            "decided" => previous = Some(&h.location),
            "revised" => {
                if previous.is_none_or(|p| runs(&h.location) >= runs(p)) {
                    sideways += 1;
                }
                previous = Some(&h.location);
            }
            _ => {}
        }
    }
    if sideways > 1 {
        return Err(format!("the location was revised {} times", loc.revisions));
    }
    // From the second step on, decided or not, checkpoints counted in steps come at most once
    // per N steps (the first step may be an inner solve taken for the time loop until the
    // step's prefix recurs).
    let counted: Vec<usize> = learnt
        .report
        .checkpoints
        .iter()
        .filter(|c| !c.provisional)
        .map(|c| step_of(&learnt.step_starts, c.loop_index))
        .filter(|&s| s >= FIRST_COUNTED_STEP)
        .collect();
    if counted.windows(2).any(|w| w[1] - w[0] < every as usize) {
        return Err(format!(
            "checkpoints counted in steps came at steps {counted:?}, more often than every \
             {every}"
        ));
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
    for key in &candidates {
        // The whole key: a loop's name alone names it on every block.
        let forced = run(program, Some(config(1)), |r| r.set_location(key));
        if forced.outcome != reference.outcome {
            return Err(format!(
                "checkpointing at `{}` changed the results",
                short(key)
            ));
        }
        if let Some(m) = most(&steady(&forced, 0, first)) {
            figures.push((key, m));
        }
    }
    let mine = figures
        .iter()
        .find(|(n, _)| *n == chosen)
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
    let best_name = short(best_name);
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
        let again = run(program, Some(cfg), move |r| r.restart_from(ck2).unwrap());
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
    Ok(Verdict {
        chosen: chosen_name,
        bytes: mine,
        best: (best_name, best),
        decided_at_step: step_of(&learnt.step_starts, since),
        checkpoints: learnt.checkpoints.len(),
    })
}

/// Prints what a learnt run decided and checkpointed (the debugging aids of the tests).
pub fn print_learnt(learnt: &Run) {
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
            step_of(&learnt.step_starts, h.loop_index),
            h.what,
            h.location
        );
    }
    for c in &learnt.report.checkpoints {
        eprintln!(
            "checkpoint {} at {} (step {}) {} {} provisional {}",
            c.sequence,
            c.loop_index,
            step_of(&learnt.step_starts, c.loop_index),
            c.location,
            c.bytes,
            c.provisional
        );
    }
}
