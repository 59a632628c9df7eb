//! Passes of templates taking turns in a fixed order (an inner solve whose last sweep runs
//! into the time step's end, a sub-cycle every few steps), told to the runtime as one
//! sequence of call shapes so that it runs them without the hook across the switches from
//! one template to the next as well as across the chosen location.
//!
//! The latest runs of lazy templates repeated whole one after another ([`Passes::recent`])
//! predict the next passes once they repeat with a period of two to [`MAX_PERIOD`] runs. A
//! pass begins as the pass before it (its template is tried first) and, at the first call
//! where the next template departs from it, switches: what the hook does there
//! ([`Resilience::switch_template`]) when the next template is the only other one that made
//! the same calls so far and makes that call next (checked when the cycle is made: the
//! templates do not change while passes repeat them whole), and the state fits it
//! ([`Resilience::fits`], checked when the loops are told). What `fits` reads (the
//! verification state, the locations' latest call shapes and the writes' unchanged marks)
//! stays as it is while passes of lazy templates run logged as their locations' previous
//! shapes and their runs stay pending, which the loops told leave room for. A prediction
//! that turns out wrong costs nothing: the runtime calls the hook at the loop that departs
//! from it, as at any loop it did not expect.

use std::sync::Arc;

use ops_core::Runtime;

use super::{Passes, CROSSED, MAX_PENDING, MAX_PERIOD};
use crate::engine::Resilience;

/// Runs [`Passes::recent`] keeps at least: two periods of the longest and the run going on.
const RECENT: usize = 2 * MAX_PERIOD + 1;

/// The most call shapes a cycle's sequence holds.
const MAX_CYCLE_SHAPES: usize = 1 << 14;

/// Passes of one template, one after another: `(template, passes)`.
pub(super) type RunOf = (u64, u64);

/// A period of runs of templates the latest runs repeat, with the sequence the runtime is
/// told to expect if the hook would switch from each template to the next.
pub(super) struct Cycle {
    /// The period's runs, in their least rotation, and the template of each of its passes.
    runs: Vec<RunOf>,
    passes: Vec<u64>,
    told: Option<Sequence>,
}

/// The passes of a cycle as the runtime is told to expect them.
struct Sequence {
    /// The template of each pass: the period's last, then the period's, then [`CROSSED`] + 1
    /// more, so that the rest of any pass of the period and [`CROSSED`] more follow it.
    ids: Vec<u64>,
    /// Where each pass's calls begin in `shapes`, and the last's end.
    starts: Vec<usize>,
    shapes: Arc<[u32]>,
    /// For each pass whose template differs from the pass before's, the call at which a pass
    /// begun as the one before switches to its own.
    switch_at: Vec<Option<usize>>,
}

impl Passes {
    /// A pass of lazy template `id` repeated whole, after the passes of `recent`: the cycle's
    /// next pass, or the cycle is to be found again.
    #[inline]
    pub(super) fn note_recent(&mut self, id: u64) {
        self.cycle_pos = match (self.cycle.as_deref(), self.cycle_pos) {
            (Some(c), Some(q)) => (c.passes[q - 1] == id).then_some(q % c.passes.len() + 1),
            _ => None,
        };
        match self.recent.last_mut().filter(|r| r.0 == id) {
            Some(r) => r.1 += 1,
            None => {
                // (Dropped a few at a time: a run begins every pass or two.)
                if self.recent.len() >= 2 * RECENT {
                    self.recent.drain(..RECENT);
                }
                self.recent.push((id, 1));
            }
        }
    }

    /// A pass not of a lazy template, or not repeated whole: the latest runs start again.
    pub(super) fn forget_recent(&mut self) {
        self.recent.clear();
        self.cycle_pos = None;
    }

    /// The position (from 1) of the pass in progress in the cycle, if one is told: kept from
    /// pass to pass while they follow it, else found from the latest runs.
    fn cycle_at(&mut self) -> Option<usize> {
        let q = match self.cycle_pos {
            Some(q) => q,
            None => {
                let q = self.find_cycle()?;
                self.cycle_pos = Some(q);
                q
            }
        };
        self.cycle.as_ref()?.told.as_ref().map(|_| q)
    }

    /// The position (from 1) in the cycle of the latest runs' period of the pass in
    /// progress, the cycle made first if it is another: `None` unless the complete runs of
    /// `recent` repeat twice with a period of two runs or more and the run going on is as
    /// long as its counterpart a period before, or shorter.
    fn find_cycle(&mut self) -> Option<usize> {
        let r = &self.recent;
        let m = r.len();
        let last = *r.last()?;
        let (period, off) = (2..=MAX_PERIOD).find_map(|p| {
            let complete = r.get(m.checked_sub(2 * p + 1)?..m - 1)?;
            let repeats = (0..p).all(|i| complete[i] == complete[i + p]);
            let counterpart = complete[p];
            let going_on = counterpart.0 == last.0 && last.1 <= counterpart.1;
            // The pass in progress: the next of the run going on, or the first of the next.
            let off = match last.1 < counterpart.1 {
                true => last.1,
                false => counterpart.1,
            };
            (repeats && going_on).then_some((&complete[p..], off))
        })?;
        let p = period.len();
        let rotated = |k: usize| (0..p).map(move |i| period[(k + i) % p]);
        let least = (0..p).min_by(|&a, &b| rotated(a).cmp(rotated(b)))?;
        let before: u64 = period[..least].iter().map(|r| r.1).sum();
        let len: u64 = period.iter().map(|r| r.1).sum();
        let q = (off + len - before) % len;
        let made = self
            .cycle
            .as_ref()
            .is_some_and(|c| c.runs.len() == p && c.runs.iter().copied().eq(rotated(least)));
        let q = usize::try_from(q).ok()?;
        let len = usize::try_from(len).ok()?;
        if !made {
            // Every pass calls a loop at least: a longer period's sequence is over the bound
            // anyway, and its passes are not listed.
            if len > MAX_CYCLE_SHAPES {
                return None;
            }
            let runs: Vec<RunOf> = rotated(least).collect();
            let passes: Vec<u64> = runs
                .iter()
                .flat_map(|&(id, n)| std::iter::repeat_n(id, n as usize))
                .collect();
            let told = self.sequence(&passes);
            self.cycle = Some(Box::new(Cycle { runs, passes, told }));
        }
        Some(q + 1)
    }

    /// The sequence of a period of `period` passes, if every template in it crosses the
    /// chosen location ([`super::Template::crosses`]) and the hook would switch from each
    /// to the next ([`Passes::switch_point`]).
    fn sequence(&self, period: &[u64]) -> Option<Sequence> {
        let len = period.len();
        let ids: Vec<u64> = (0..len + CROSSED + 2)
            .map(|j| period[(j + len - 1) % len])
            .collect();
        let (mut shapes, mut starts, mut switch_at) = (Vec::new(), Vec::new(), Vec::new());
        for (j, &id) in ids.iter().enumerate() {
            let t = self.find(id).filter(|t| t.crosses())?;
            starts.push(shapes.len());
            shapes.extend(t.calls.iter().map(|c| c.step.shape));
            if shapes.len() > MAX_CYCLE_SHAPES {
                return None;
            }
            switch_at.push(match j {
                0 => None,
                _ if ids[j - 1] == id => None,
                _ => Some(self.switch_point(ids[j - 1], id)?),
            });
        }
        starts.push(shapes.len());
        Some(Sequence {
            ids,
            starts,
            shapes: shapes.into(),
            switch_at,
        })
    }

    /// Where a pass begun as template `from` switches to template `to` on the hook
    /// ([`Resilience::switch_template`]): at the first call that departs, if that is not
    /// the first (nor one of the chosen location's shapes: that begins the next pass) and no
    /// third template made the same calls so far and makes the same call next.
    fn switch_point(&self, from: u64, to: u64) -> Option<usize> {
        let (x, y) = (self.find(from)?, self.find(to)?);
        let k = x
            .calls
            .iter()
            .zip(&y.calls)
            .position(|(a, b)| a.step != b.step)
            .unwrap_or(x.calls.len().min(y.calls.len()));
        let shape = y.calls.get(k)?.step.shape;
        let only = self
            .templates()
            .filter(|s| s.id != from && s.id != to)
            .all(|s| !s.same_so_far(x, k, shape));
        (k > 0 && shape != x.calls[0].step.shape && only).then_some(k)
    }

    /// While the runtime runs loops of the cycle as told: the calls of the pass in progress
    /// that are the template's (those before the one where the pass switches to its own
    /// template, if it began as the pass before), switching first if that call is next.
    #[inline]
    pub(super) fn switch_told(&mut self) -> usize {
        let Some(q) = self.told else {
            return usize::MAX;
        };
        let c = self.cycle.as_deref().and_then(|c| c.told.as_ref());
        let (Some(c), Some(t)) = (c, &self.template) else {
            return usize::MAX;
        };
        let own = c.ids[q];
        if t.id == own {
            return usize::MAX;
        }
        let k = match c.switch_at[q] {
            Some(k) if self.deferred < k => return k,
            Some(k) => k,
            None => unreachable!("a cycle's pass begun as another switches"),
        };
        debug_assert_eq!(self.deferred, k, "the switch is told");
        match self.spare.iter().position(|s| s.id == own) {
            Some(i) => self.promote(i),
            None => unreachable!("a cycle's templates are kept"),
        }
        self.switched_told += 1;
        usize::MAX
    }
}

impl Resilience {
    /// [`Resilience::expect_rest`] where the latest runs predict a cycle of templates: tells
    /// the runtime the rest of the pass in progress and as many more passes of the cycle as
    /// cross the chosen location with no checkpoint due (up to [`CROSSED`]), through the
    /// switches whose templates the state fits, and at most `room` loops. False (nothing
    /// told) where no cycle applies.
    pub(super) fn expect_cycle(&mut self, rt: &mut Runtime<'_>, room: usize) -> bool {
        let Some(q) = self.passes.cycle_at() else {
            return false;
        };
        let p = &self.passes;
        let c = p.cycle.as_deref().and_then(|c| c.told.as_ref());
        let (Some(c), Some(t)) = (c, p.template.as_deref()) else {
            return false;
        };
        let d = p.deferred;
        // The pass in progress is the cycle's, or began as the pass before and switches later.
        let switching = t.id != c.ids[q];
        if switching && !(t.id == c.ids[q - 1] && c.switch_at[q].is_some_and(|k| d <= k)) {
            return false;
        }
        // Each crossing adds a pending run at most: none is applied while the loops run.
        let crossings = (self.passes_without_checkpoint(CROSSED as u64) as usize)
            .min(MAX_PENDING.saturating_sub(p.pending.len()));
        let mut end = c.starts[q + 1 + crossings];
        let first = if switching { q } else { q + 1 };
        for j in first..=q + crossings {
            let Some(k) = c.switch_at[j] else {
                continue;
            };
            // A pending pass switched the same way found the state it would find now (the
            // state stays as it is while runs are pending: anything that could change it
            // applies them first).
            let (from_id, to_id) = (c.ids[j - 1], c.ids[j]);
            let switched = (p.pending.windows(2).rev().take(2 * MAX_PERIOD))
                .any(|w| w[0].template == from_id && w[1].template == to_id);
            if !switched && !self.fits(p.template_by_id(to_id), false, k) {
                end = c.starts[j] + k;
                break;
            }
        }
        let from = c.starts[q] + d;
        let end = end.min(from.saturating_add(room));
        if end <= from {
            return false;
        }
        let shapes = Arc::clone(&c.shapes);
        self.passes.told = Some(q);
        rt.expect(&shapes, from, end, !self.learner.recording());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::Passes;

    fn passes(recent: &[(u64, u64)]) -> Passes {
        let mut p = Passes::new();
        p.recent = recent.to_vec();
        p
    }

    /// The period is found in the complete runs, the pass in progress placed in it from the
    /// least rotation on (the same cycle whichever run is going on), and nothing is taken for
    /// a period that did not repeat.
    #[test]
    fn the_pass_in_progress_is_placed_in_the_period_of_the_latest_runs() {
        let (a, b) = (0, 1);
        // Three passes of a, then one of b: the third of a is going on.
        let mut p = passes(&[(a, 3), (b, 1), (a, 3), (b, 1), (a, 2)]);
        assert_eq!(p.find_cycle(), Some(3));
        // The run of a is as long as a period before: b's pass is going on.
        let mut p = passes(&[(a, 3), (b, 1), (a, 3), (b, 1), (a, 3)]);
        assert_eq!(p.find_cycle(), Some(4));
        // After b's run: the first pass of a, whichever run the recording began with.
        let mut p = passes(&[(b, 1), (a, 3), (b, 1), (a, 3), (b, 1)]);
        assert_eq!(p.find_cycle(), Some(1));
        let c = p.cycle.as_deref().unwrap();
        assert_eq!(c.passes, [a, a, a, b]);
        // Runs that did not repeat, a run longer than a period before, a single template.
        for recent in [
            &[(a, 3), (b, 1), (a, 2), (b, 1), (a, 3)][..],
            &[(a, 3), (b, 1), (a, 3), (b, 1), (a, 4)],
            &[(a, 40)],
        ] {
            assert_eq!(passes(recent).find_cycle(), None, "{recent:?}");
        }
    }
}
