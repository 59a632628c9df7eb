//! The user API: methods on [`Ops`] that reach the installed [`Resilience`] observer.
//!
//! Every method is a no-op (or runs its closure plainly) when no resilience observer is
//! installed, so programs can call them unconditionally: without checkpoint flags nothing is
//! installed and nothing is tracked.

use ops_core::{Dat, DatId, Element, Ops, OpsError, Runtime};

use crate::engine::{Enter, Resilience};

/// Runs `f` with the resilience observer and the runtime its hooks get (so both can be used).
/// `None` when no resilience observer is installed.
pub fn with_resilience<R>(
    ops: &mut Ops,
    f: impl FnOnce(&mut Resilience, &mut Runtime<'_>) -> R,
) -> Option<R> {
    ops.with_observer(|r: &mut Resilience, rt| {
        // What the program reaches sees every loop tracked (none deferred).
        r.interrupt_pass();
        f(r, rt)
    })
}

/// Resilience hints and views, as methods on [`Ops`]: `use ops_resilience::ResilienceExt;` (or
/// the `ops` facade's prelude).
///
/// ```
/// use ops_backends::prelude::*;
/// use ops_resilience::ResilienceExt;
///
/// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
/// let grid = ops.block("grid", 2)?;
/// let mesh = ops.dat::<f64, 2>(&grid, "mesh", [8, 8], Halo::uniform(1))?;
/// // Without a resilience observer every call is accepted and does nothing.
/// ops.mark_read_only(&mesh)?;
/// ops.checkpoint_payload(&42u64.to_le_bytes());
/// assert_eq!(ops.restart_payload(), None);
/// let mut ran = 0;
/// for it in 0..3 {
///     ops.resilient("step", it, |_ops| -> Result<()> { ran += 1; Ok(()) })?;
/// }
/// assert_eq!(ran, 3);
/// # Ok::<(), OpsError>(())
/// ```
pub trait ResilienceExt {
    /// The installed resilience observer (its report, its store), if any.
    fn resilience(&mut self) -> Option<&mut Resilience>;

    /// Fixes where checkpoint regions open: a loop name (`"reset_field"`), `name@file:line`,
    /// a full `name@file:line:col`, or `"*"` (whatever loop comes next when a checkpoint is
    /// due). Replaces the learnt choice.
    fn checkpoint_location(&mut self, spec: &str);

    /// Saves only these datasets (nothing else is saved; what is pure is still recomputed).
    fn checkpoint_datasets(&mut self, dats: &[DatId]);

    /// The fast-forward payload stored with every later checkpoint (e.g. the step counter);
    /// a restarted run gets it back from [`ResilienceExt::restart_payload`].
    fn checkpoint_payload(&mut self, bytes: &[u8]);

    /// The payload stored with the checkpoint this run restarts from (`None` when not
    /// restarting). Available from the start of a restarted run.
    fn restart_payload(&mut self) -> Option<Vec<u8>>;

    /// Declares an input of the program (`label`, e.g. `"deck"`, and its bytes: the parsed
    /// settings that decide what is computed, without those a restart may change such as the
    /// end step). Every checkpoint stores its fingerprint; a restarted run whose input differs
    /// gets an error naming it instead of silently mixing two computations. Call it before the
    /// first loop; without checkpointing it does nothing.
    fn input_fingerprint(&mut self, label: &str, bytes: &[u8]) -> Result<(), OpsError>;

    /// Fast-forward restart (OPS's `ops_checkpointing_fastfw`): call it once per pass of the
    /// time loop (e.g. at the top of each step) with the application's own small state (step
    /// counter, time, dt) serialised.
    ///
    /// - In a normal run it answers `Ok(None)`. Its call site (`fast_forward@file:line:col`,
    ///   through `#[track_caller]`) becomes the checkpoint location: when a checkpoint is due
    ///   (every N-th call, or the interval elapsed) a region opens right here and `payload` is
    ///   stored with the checkpoint, which is marked a fast-forward checkpoint. Whatever the
    ///   loops before the first call wrote is recomputed at restart (they run again), never
    ///   saved.
    /// - In a run restarting (`--ops-restart`) from a fast-forward checkpoint, the loops before
    ///   the first call run normally (the start-up); the first call uploads the checkpoint's
    ///   saved data, restores reductions and the tracker's state, sets the loop index to the
    ///   checkpoint's, and answers `Ok(Some(payload))`: the application sets its counters from
    ///   it and goes on. A checkpoint that cannot be restored this way (a different call site,
    ///   a different start-up, data recomputed by loops after the start-up) is an error naming
    ///   the problem.
    /// - Restarting from a replay checkpoint, or with none: `Ok(None)` (the replay is not
    ///   disturbed). Without a resilience observer, or in programs using
    ///   [`ResilienceExt::resilient`] regions: always `Ok(None)`.
    ///
    /// ```
    /// use ops_backends::prelude::*;
    /// use ops_resilience::ResilienceExt;
    ///
    /// let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq))?;
    /// let mut step = 0u64;
    /// while step < 5 {
    ///     if let Some(saved) = ops.fast_forward(&step.to_le_bytes())? {
    ///         step = u64::from_le_bytes(saved[..8].try_into().unwrap());
    ///     }
    ///     // ... the step's par_loops ...
    ///     step += 1;
    /// }
    /// assert_eq!(step, 5);
    /// # Ok::<(), OpsError>(())
    /// ```
    #[track_caller]
    fn fast_forward(&mut self, payload: &[u8]) -> Result<Option<Vec<u8>>, OpsError>;

    /// Requests a checkpoint now: the region opens at the next occurrence of the checkpoint
    /// location (or at the very next loop when no location is known yet).
    fn checkpoint_now(&mut self);

    /// Hint: initialisation is over. Whatever loops wrote so far is recomputed on restart by
    /// re-executing the loops that produced it, never saved; later loop writes are never
    /// recomputed. (Without the hint the tracker finds such data itself.)
    fn end_of_init(&mut self);

    /// Marks `dat` transient: never saved (its values are scratch between loops).
    fn mark_transient<T: Element>(&mut self, dat: &Dat<T>) -> Result<(), OpsError>;

    /// Marks `dat` read-only from now on: never saved, and a later loop or `set_data` writing
    /// it is an error naming it. Its values must be reproducible by the program (set from
    /// input, or computed at start-up).
    fn mark_read_only<T: Element>(&mut self, dat: &Dat<T>) -> Result<(), OpsError>;

    /// Declares `a` and `b` the two halves of a double buffer (swapped every iteration): a
    /// checkpoint saves at most one of them, the one written last before the checkpoint; the
    /// other is asserted stale (overwritten before it is read after a restart).
    fn mark_aliases<T: Element>(&mut self, a: &Dat<T>, b: &Dat<T>) -> Result<(), OpsError>;

    /// A scoped resilient region (Kokkos style): runs `body` as iteration `iteration` of the
    /// region `label`. After iteration `i` with `i % N == 0` (`--ops-checkpoint-every N`, or
    /// when the interval elapsed) it checkpoints what the region's loops wrote. A restart
    /// from such a checkpoint does not call `body` for iterations up to the saved one,
    /// restores the data before the first iteration it runs, and runs everything outside the
    /// region normally.
    fn resilient<E, F>(&mut self, label: &str, iteration: u64, body: F) -> Result<(), E>
    where
        E: From<OpsError>,
        F: FnOnce(&mut Ops) -> Result<(), E>;
}

impl ResilienceExt for Ops {
    fn resilience(&mut self) -> Option<&mut Resilience> {
        let r = self.observer_mut::<Resilience>()?;
        r.interrupt_pass();
        Some(r)
    }

    fn checkpoint_location(&mut self, spec: &str) {
        if let Some(r) = self.resilience() {
            r.set_location(spec);
        }
    }

    fn checkpoint_datasets(&mut self, dats: &[DatId]) {
        with_resilience(self, |r, ops| r.set_datasets(ops, dats));
    }

    fn checkpoint_payload(&mut self, bytes: &[u8]) {
        if let Some(r) = self.resilience() {
            r.set_payload(bytes);
        }
    }

    fn restart_payload(&mut self) -> Option<Vec<u8>> {
        self.resilience()?.restart_payload().map(<[u8]>::to_vec)
    }

    fn input_fingerprint(&mut self, label: &str, bytes: &[u8]) -> Result<(), OpsError> {
        match self.resilience() {
            Some(r) => r.declare_input(label, bytes).map_err(OpsError::from),
            None => Ok(()),
        }
    }

    #[track_caller]
    fn fast_forward(&mut self, payload: &[u8]) -> Result<Option<Vec<u8>>, OpsError> {
        let at = std::panic::Location::caller();
        if self.resilience().is_none() {
            return Ok(None);
        }
        let key = format!("fast_forward@{}:{}:{}", at.file(), at.line(), at.column());
        match with_resilience(self, |r, ops| r.fast_forward(ops, &key, payload)) {
            None => Ok(None),
            Some(Ok(p)) => Ok(p),
            Some(Err(e)) => Err(e.into()),
        }
    }

    fn checkpoint_now(&mut self) {
        if let Some(r) = self.resilience() {
            r.request_checkpoint();
        }
    }

    fn end_of_init(&mut self) {
        if let Some(r) = self.resilience() {
            r.end_of_init();
        }
    }

    fn mark_transient<T: Element>(&mut self, dat: &Dat<T>) -> Result<(), OpsError> {
        self.dat_name(dat)?;
        let id = dat.id();
        with_resilience(self, |r, ops| r.mark_transient(ops, id));
        Ok(())
    }

    fn mark_read_only<T: Element>(&mut self, dat: &Dat<T>) -> Result<(), OpsError> {
        self.dat_name(dat)?;
        let id = dat.id();
        with_resilience(self, |r, ops| r.mark_read_only(ops, id));
        Ok(())
    }

    fn mark_aliases<T: Element>(&mut self, a: &Dat<T>, b: &Dat<T>) -> Result<(), OpsError> {
        self.dat_name(a)?;
        self.dat_name(b)?;
        let (a, b) = (a.id(), b.id());
        with_resilience(self, |r, ops| r.mark_aliases(ops, a, b));
        Ok(())
    }

    fn resilient<E, F>(&mut self, label: &str, iteration: u64, body: F) -> Result<(), E>
    where
        E: From<OpsError>,
        F: FnOnce(&mut Ops) -> Result<(), E>,
    {
        let enter = match self.resilience() {
            // Not installed, or nested inside another resilient region: just run it.
            None => return body(self),
            Some(r) if r.in_resilient() => return body(self),
            Some(r) => r.resilient_enter(label, iteration),
        };
        match enter {
            Enter::Skip => return Ok(()),
            Enter::Restore => {
                if let Some(Err(e)) = with_resilience(self, |r, ops| r.resilient_restore(ops)) {
                    if let Some(r) = self.resilience() {
                        r.resilient_abort();
                    }
                    return Err(OpsError::from(e).into());
                }
            }
            Enter::Run => {}
        }
        let result = body(self);
        if result.is_ok() {
            with_resilience(self, |r, ops| r.resilient_exit(ops, label, iteration));
        } else if let Some(r) = self.resilience() {
            r.resilient_abort();
        }
        result
    }
}
