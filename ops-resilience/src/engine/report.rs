//! Diagnostics: the lines `--ops-diags N` prints (through `tracing`, target `ops_resilience`;
//! the `ops` facade prints them on stderr as they are), warnings, what the learner decided, and
//! the JSON report (`--ops-diags-json`).

use super::Resilience;
use crate::diags::{human_bytes, Candidate};
use crate::learn::{Event, Phase};

impl Resilience {
    /// True on the process that prints diagnostics (rank 0).
    fn speaks(&self) -> bool {
        self.dist.rank == 0
    }

    /// Says `text` (one or more lines) when the diagnostics level is at least `level` (0:
    /// always), on rank 0.
    pub(super) fn say(&self, level: u8, text: &str) {
        if self.cfg.diags >= level && self.speaks() && !text.is_empty() {
            tracing::info!(target: "ops_resilience", "{}", text.trim_end());
        }
    }

    /// A warning of this process: said (with the rank in a distributed run) and recorded.
    pub(super) fn warn(&mut self, w: String) {
        let prefix = if self.dist.ranks > 1 {
            format!("rank {}: ", self.dist.rank)
        } else {
            String::new()
        };
        tracing::warn!(target: "ops_resilience", "ops-resilience: {prefix}{w}");
        self.report.warnings.push(w);
    }

    /// A warning every process has (the same text): said by rank 0, recorded by all.
    pub(crate) fn warn_from_rank0(&mut self, w: String) {
        if self.speaks() {
            tracing::warn!(target: "ops_resilience", "ops-resilience: {w}");
        }
        self.report.warnings.push(w);
    }

    /// The location report from the learner's decision (after a decision, a revision or a
    /// restore).
    pub(super) fn report_location(&mut self) {
        let Some(d) = self.learner.decision().cloned() else {
            return;
        };
        if self.target != super::Target::Learn {
            return;
        }
        let locs = &self.track.locs;
        let anchor = locs.key(d.level.anchor).to_string();
        let loc = &mut self.report.location;
        loc.chosen = Some(locs.key(d.location).to_string());
        loc.anchor = Some(anchor.clone());
        loc.chosen_at_loop = Some(d.at_loop);
        loc.bytes = Some(d.bytes);
        loc.reason = format!(
            "the smallest checkpoint ({}) of the {} loop boundaries that occur once per pass of \
             the outer iteration (anchored at {anchor}; {} loops per pass at most), each measured \
             by liveness over the recorded loops",
            human_bytes(d.bytes),
            d.level.members.len(),
            d.level.max_pass,
        );
        let samples = self.learner.samples();
        let mut cands: Vec<Candidate> = d
            .level
            .members
            .iter()
            .enumerate()
            .filter_map(|(position, m)| {
                let s = samples.get(m)?;
                let max = s.max()?;
                let (bytes_min, bytes_mean) = s.min_mean();
                Some(Candidate {
                    location: locs.key(*m).to_string(),
                    position,
                    occurrences: locs.locs[*m as usize].count,
                    samples: s.count,
                    bytes_min,
                    bytes_mean,
                    bytes_max: max,
                })
            })
            .collect();
        cands.sort_by_key(|a| a.bytes_max);
        loc.candidates = cands;
    }

    /// Reports what the learner just did.
    pub(super) fn on_learner_event(&mut self, e: Event, index: u64) {
        let key = |l: u32| self.track.locs.locs.get(l as usize).map(|i| i.key.clone());
        let (what, location) = match &e {
            Event::Decided => ("decided", self.learner.location().and_then(key)),
            Event::Revised { .. } => ("revised", self.learner.location().and_then(key)),
            Event::ReviewStarted(l) => ("review", key(*l)),
            Event::ReviewEnded => ("review ended", None),
        };
        self.report
            .location
            .history
            .push(crate::diags::LearnerStep {
                loop_index: index,
                what: what.into(),
                location,
            });
        match e {
            Event::Decided | Event::Revised { .. } => {
                if let Event::Revised { from } = e {
                    self.report.location.revisions += 1;
                    let was = self.track.locs.key(from).to_string();
                    self.report_location();
                    self.report.location.reason =
                        format!("{} (revised from {was})", self.report.location.reason);
                } else {
                    self.report_location();
                }
                if self.ck.store.is_some() && self.dist.ranks <= 1 {
                    // Prepare buffers for the first checkpoint's copies. (The recorded
                    // regions are in global boxes; a process of a distributed run copies only
                    // its part of them.)
                    if let Some(loc) = self.learner.location() {
                        let sizes = self.learner.copy_sizes(loc, &self.track.locs, &self.track);
                        self.ck.pool.refill(sizes);
                    }
                }
                // Counting for --ops-checkpoint-every starts from the decision; if a checkpoint
                // opened since the new location last ran, its next occurrence ends that
                // checkpoint's pass rather than a whole one.
                self.ck.target_occ = 0;
                self.ck.last_ckpt_occ = 0;
                self.ck.align = match (self.learner.location(), self.ck.last_ckpt_loop) {
                    (Some(loc), Some(ckpt)) => {
                        let info = &self.track.locs.locs[loc as usize];
                        info.count == 0 || ckpt > info.last
                    }
                    _ => false,
                };
                self.say(2, &self.report.location_text(self.cfg.diags >= 3));
            }
            Event::ReviewStarted(loc) => {
                self.say(
                    3,
                    &format!(
                        "ops-resilience: `{}` recurred outside the passes of the outer iteration \
                         (loop {index}): reviewing the structure\n",
                        self.track.locs.key(loc)
                    ),
                );
            }
            Event::ReviewEnded => {
                self.say(
                    3,
                    "ops-resilience: review ended: the outer iteration stands\n",
                );
            }
        }
    }

    /// Why no location was chosen.
    fn why_undecided(&self) -> String {
        match self.learner.phase() {
            Phase::Learning => format!(
                "no outer iteration was found in {} loops over {} locations",
                self.index,
                self.track.locs.locs.len()
            ),
            _ => "the location was never decided".into(),
        }
    }

    /// True when checkpoints counted in time steps were asked of the learner, which has not
    /// decided where they open: none comes until it does.
    pub(super) fn counting_undecided(&self) -> bool {
        self.ck.store.is_some() && self.cfg.effective_every().is_some() && self.deciding()
    }

    /// Warns, once, that checkpoints counted in time steps have not begun for want of a
    /// location (a silent run without checkpoints would leave the user believing it safe).
    pub(super) fn warn_undecided(&mut self) {
        const START: &str = "no checkpoint location was decided";
        if self.report.warnings.iter().any(|w| w.starts_with(START)) {
            return;
        }
        let why = self.why_undecided();
        self.warn_from_rank0(format!(
            "{START} ({why}), so no checkpoint counted by --ops-checkpoint-every was written: \
             they open at a loop that runs once per time step, and no loop seen does (a step \
             made only of one helper run for several fields, for instance). Checkpoints come by \
             --ops-checkpoint-interval or checkpoint_now; a hint, \
             checkpoint_location(\"<loop name>\"), sets where they open"
        ));
    }

    /// Writes the report: stderr summary at level ≥ 1, JSON file if asked.
    pub(super) fn write_report(&mut self) {
        let clock = &self.clock;
        self.report.loops = self.index;
        self.report.tracking_s = clock.hook.as_secs_f64();
        self.report.run_s = clock.started.elapsed().as_secs_f64();
        self.report.rank = self.dist.rank;
        self.report.ranks = self.dist.ranks;
        self.report.queries = self.track.queries.len() as u64;
        self.report.call_log_bytes = self.track.calls.record_bytes() as u64;
        self.report.repeated_passes = self.passes.repeated;
        self.say(
            1,
            &format!(
                "ops-resilience: {} loops, {} checkpoint(s); tracking took {:.3} s of {:.3} s ({:.2} %)\n",
                self.index,
                self.report.checkpoints.len(),
                self.report.tracking_s,
                self.report.run_s,
                100.0 * self.report.tracking_s / self.report.run_s.max(1e-9)
            ),
        );
        if self.report.location.chosen.is_none() && self.cfg.enabled() {
            if self.counting_undecided() {
                self.warn_undecided();
            } else {
                let why = self.why_undecided();
                self.say(
                    1,
                    &format!("ops-resilience: no checkpoint location: {why}\n"),
                );
            }
        }
        if let Some(path) = self.cfg.diags_png.clone().filter(|_| self.dist.rank == 0) {
            let drawn = match self.report_picture {
                Some(draw) => draw(&self.report, &path),
                None => {
                    Err("no picture renderer is installed (the `ops` crate installs one)".into())
                }
            };
            if let Err(e) = drawn {
                self.warn(format!(
                    "cannot draw --ops-diags-png {}: {e}",
                    path.display()
                ));
            }
        }
        if let Some(path) = &self.cfg.diags_json {
            let path = crate::diags::json_path(path, self.dist.rank);
            let text = serde_json::to_string_pretty(&self.report).expect("report serialises");
            if let Err(e) = std::fs::write(&path, text) {
                let w = format!("cannot write diagnostics to {}: {e}", path.display());
                self.warn(w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::testing::{cfg, copy, smooth, Kept, Prog, STEP_LOOPS};
    use crate::Resilience;
    use ops_backends::prelude::*;

    /// Three fields, each through one helper (two loops, one call site each), nothing else in
    /// a step: no loop runs once per step, so no location is decided. The run says so once,
    /// after `UNDECIDED_WARNING` loops (not only at its end), as a warning.
    #[test]
    fn a_run_that_never_decides_warns_once_after_ten_thousand_loops() {
        let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
        let r = Resilience::new(cfg(1), Some(Box::new(Kept::default())));
        ops.set_observer(Some(Box::new(r)));
        let grid = ops.block("grid", 2).unwrap();
        let (pt, line) = (
            ops.stencil("pt", &[[0, 0]]).unwrap(),
            ops.stencil("line", &[[0, 0], [1, 0], [-1, 0]]).unwrap(),
        );
        let h = Halo::uniform(1);
        let fields: Vec<_> = (0..3)
            .map(|f| {
                let q = ops
                    .dat::<f64, 2>(&grid, &format!("q{f}"), [8, 8], h)
                    .unwrap();
                let s = ops
                    .dat::<f64, 2>(&grid, &format!("s{f}"), [8, 8], h)
                    .unwrap();
                (q, s)
            })
            .collect();
        let loops = super::super::UNDECIDED_WARNING + 200;
        for _ in 0..loops / 6 {
            for (q, s) in &fields {
                let inner = [0..8, 0..8];
                let args = [q.arg(&line, Read), s.arg(&pt, Write)];
                ops.par_loop(smooth, "smooth", &grid, inner.clone(), &args)
                    .unwrap();
                let args = [s.arg(&pt, Read), q.arg(&pt, Write)];
                ops.par_loop(copy, "copy", &grid, inner, &args).unwrap();
            }
        }
        ops.finish().unwrap();
        let r = ops.observer_mut::<Resilience>().unwrap().report().clone();
        assert!(r.location.chosen.is_none(), "{:?}", r.location.chosen);
        let warned: Vec<_> = r
            .warnings
            .iter()
            .filter(|w| w.starts_with("no checkpoint location was decided"))
            .collect();
        assert_eq!(warned.len(), 1, "{:?}", r.warnings);
        let at = format!("in {} loops", super::super::UNDECIDED_WARNING);
        assert!(warned[0].contains(&at), "{}", warned[0]);
    }

    #[test]
    fn the_report_counts_loops_and_values_and_names_the_location_used() {
        let store = Kept::default();
        let mut p = Prog::new(cfg(1), &store, |_| {});
        p.run(12).unwrap();
        let r = p.report();
        assert_eq!(r.loops, 2 + 12 * STEP_LOOPS);
        assert_eq!(r.queries, 12);
        assert!(r.call_log_bytes > 0);
        let cks = store.all();
        assert_eq!(r.checkpoints.len(), cks.len());
        let chosen = r.location.chosen.expect("a location was learnt");
        let steady: Vec<_> = r.checkpoints.iter().filter(|c| !c.provisional).collect();
        assert!(!steady.is_empty());
        assert!(steady.iter().all(|c| c.location == chosen), "{chosen}");
    }
}
