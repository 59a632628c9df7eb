//! A small context for the engine modules' unit tests: a store keeping every checkpoint in
//! memory (`KeptInMemory`), and a 2-D program with one start-up loop (a mesh) and a time step of four loops
//! (smooth `u` into `v`, add the mesh with a weight that changes from step to step, copy back,
//! sum), run on the sequential backend.

use ops_backends::prelude::*;

use crate::diags::Report;
use crate::store::Checkpoint;
use crate::{Resilience, ResilienceConfig};

/// The store the tests read their checkpoints from.
pub type Kept = crate::store::KeptInMemory;

/// Checkpoints every `every` occurrences of the location.
pub fn cfg(every: u64) -> ResilienceConfig {
    ResilienceConfig {
        dir: Some("unused".into()),
        every: Some(every),
        app: Some("unit".into()),
        ..ResilienceConfig::default()
    }
}

#[kernel]
fn fill(idx: Idx, out: Write<f64>) {
    out[(0, 0)] = (idx[0] * 3 + idx[1]) as f64 * 0.125;
}

#[kernel]
pub(crate) fn smooth(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = 0.5 * a[(0, 0)] + 0.25 * (a[(1, 0)] + a[(-1, 0)]);
}

#[kernel]
fn add(m: Read<f64>, b: ReadWrite<f64>, w: Global<f64>) {
    b[(0, 0)] = b[(0, 0)] + w * m[(0, 0)];
}

#[kernel]
pub(crate) fn copy(a: Read<f64>, b: Write<f64>) {
    b[(0, 0)] = a[(0, 0)];
}

#[kernel]
fn total(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)];
}

const N: i32 = 8;

/// The program and its runtime.
pub struct Prog {
    pub ops: Ops,
    grid: Block,
    pub u: Dat<f64>,
    v: Dat<f64>,
    mesh: Dat<f64>,
    pt: Stencil,
    line: Stencil,
    sum: Reduction<f64>,
    /// Time steps run.
    steps: u64,
}

/// Loops per time step.
pub const STEP_LOOPS: u64 = 4;

impl Prog {
    /// Declares the program on a runtime observed by a [`Resilience`] writing to `store`
    /// (`prep` adjusts it before it is installed).
    pub fn new(cfg: ResilienceConfig, store: &Kept, prep: impl FnOnce(&mut Resilience)) -> Prog {
        let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
        let mut r = Resilience::new(cfg, Some(Box::new(store.clone())));
        prep(&mut r);
        ops.set_observer(Some(Box::new(r)));
        let grid = ops.block("grid", 2).unwrap();
        let h = Halo::uniform(1);
        let n = N as usize;
        let u = ops.dat::<f64, 2>(&grid, "u", [n, n], h).unwrap();
        let v = ops.dat::<f64, 2>(&grid, "v", [n, n], h).unwrap();
        let mesh = ops.dat::<f64, 2>(&grid, "mesh", [n, n], h).unwrap();
        let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
        let line = ops.stencil("line", &[[0, 0], [1, 0], [-1, 0]]).unwrap();
        let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
        Prog {
            ops,
            grid,
            u,
            v,
            mesh,
            pt,
            line,
            sum,
            steps: 0,
        }
    }

    /// The start-up: the mesh and `u` filled over their halos (two loops).
    pub fn start(&mut self) -> Result<(), OpsError> {
        let all = [-1..N + 1, -1..N + 1];
        let (pt, g) = (self.pt, self.grid);
        self.ops.par_loop(
            fill,
            "mesh",
            &g,
            all.clone(),
            &[Arg::idx(), self.mesh.arg(&pt, Write)],
        )?;
        self.ops
            .par_loop(fill, "init", &g, all, &[Arg::idx(), self.u.arg(&pt, Write)])
    }

    /// One time step, with an extra loop before it (`front`) or in its middle (`mid`), or its
    /// mesh added from `u` instead (`alt`: another call shape at the same location): a program
    /// whose steps differ now and then; its sum.
    pub fn step_with(&mut self, front: bool, mid: bool, alt: bool) -> Result<f64, OpsError> {
        let inner = [0..N, 0..N];
        let (pt, line, g) = (self.pt, self.line, self.grid);
        let (u, v, mesh) = (self.u, self.v, self.mesh);
        // The mesh's weight, a global constant, changes from step to step.
        let w = 0.5 + 0.125 * (self.steps % 3) as f64;
        self.steps += 1;
        let ops = &mut self.ops;
        if front {
            ops.par_loop(
                add,
                "front_extra",
                &g,
                inner.clone(),
                &[mesh.arg(&pt, Read), u.arg(&pt, ReadWrite), Arg::global(0.5)],
            )?;
        }
        ops.par_loop(
            smooth,
            "smooth",
            &g,
            inner.clone(),
            &[u.arg(&line, Read), v.arg(&pt, Write)],
        )?;
        let src = if alt { u } else { mesh };
        ops.par_loop(
            add,
            "add_mesh",
            &g,
            inner.clone(),
            &[src.arg(&pt, Read), v.arg(&pt, ReadWrite), Arg::global(w)],
        )?;
        if mid {
            ops.par_loop(
                add,
                "mid_extra",
                &g,
                inner.clone(),
                &[mesh.arg(&pt, Read), v.arg(&pt, ReadWrite), Arg::global(0.5)],
            )?;
        }
        ops.par_loop(
            copy,
            "copy_back",
            &g,
            inner.clone(),
            &[v.arg(&pt, Read), u.arg(&pt, Write)],
        )?;
        ops.par_loop(
            total,
            "total",
            &g,
            inner,
            &[u.arg(&pt, Read), self.sum.arg()],
        )?;
        ops.reduction_result(&self.sum)
    }

    /// Start-up, `steps` steps, the end of the run: the sums' bits.
    pub fn run(&mut self, steps: usize) -> Result<Vec<u64>, OpsError> {
        self.run_kind(0, steps)
    }

    /// Runs `steps` steps of the program `kind` ([`Prog::step_with`]) from start-up to the end
    /// of the run; the sums' bits. 0: every step alike; 1: steps that differ now and then (an
    /// extra loop before every eleventh step from the seventh and in the middle of every fifth
    /// from the third, `u` added instead of the mesh in every thirteenth from the ninth); 2:
    /// two kinds of step taking turns (`u` added instead of the mesh every other step), as
    /// directional sweeps that swap their order; 3: a loop more in the middle of every fourth
    /// step (the passes after it start from another verification state than the others); 4:
    /// a loop more in the middle of every other step (two kinds of step taking turns, which
    /// differ by a location of their own).
    pub fn run_kind(&mut self, kind: u8, steps: usize) -> Result<Vec<u64>, OpsError> {
        self.start()?;
        let sums = (0..steps)
            .map(|i| {
                let (front, mid, alt) = match kind {
                    0 => (false, false, false),
                    1 => (i % 11 == 7, i % 5 == 3, i % 13 == 9),
                    2 => (false, false, i % 2 == 1),
                    3 => (false, i % 4 == 3, false),
                    _ => (false, i % 2 == 1, false),
                };
                self.step_with(front, mid, alt).map(f64::to_bits)
            })
            .collect::<Result<_, _>>()?;
        self.ops.finish()?;
        Ok(sums)
    }

    /// The observer's report.
    pub fn report(&mut self) -> Report {
        self.ops
            .observer_mut::<Resilience>()
            .expect("a resilience observer")
            .report()
            .clone()
    }
}

/// The sums of an uninterrupted run of `steps` steps checkpointing as `cfg` says, with the
/// checkpoints it took.
pub fn reference(
    cfg: ResilienceConfig,
    steps: usize,
    prep: impl FnOnce(&mut Resilience),
) -> (Vec<u64>, Vec<Checkpoint>) {
    let store = Kept::default();
    let mut p = Prog::new(cfg, &store, prep);
    let sums = p.run(steps).unwrap();
    (sums, store.all())
}
