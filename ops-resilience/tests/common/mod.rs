//! Shared pieces of the resilience tests: a store that keeps every checkpoint in memory, a
//! trace observer, and a random synthetic loop-program generator and interpreter.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use ops_backends::prelude::*;
use ops_core::{DatId, IterRange, LoopAction, LoopObserver, LoopPlan, Query, Runtime};
use ops_resilience::{Resilience, ResilienceConfig};

// ------------------------------------------------------------------------------------------
// A store keeping every checkpoint
// ------------------------------------------------------------------------------------------

/// Keeps every committed checkpoint (shared, so the test can look after the run).
pub type Captured = ops_resilience::store::KeptInMemory;

/// A configuration that writes checkpoints (to a [`Captured`] store) every `every`
/// occurrences of the location.
pub fn cfg(every: u64) -> ResilienceConfig {
    ResilienceConfig {
        dir: Some("unused".into()),
        every: Some(every),
        app: Some("prop".into()),
        ..ResilienceConfig::default()
    }
}

/// A runtime with a resilience observer writing to `store`; `prep` adjusts it before install.
pub fn ops_with(
    backend: BackendKind,
    cfg: ResilienceConfig,
    store: &Captured,
    prep: impl FnOnce(&mut Resilience),
) -> Ops {
    let mut ops = ops_from_config(OpsConfig::new(backend).with_threads(Some(2))).unwrap();
    let mut r = Resilience::new(cfg, Some(Box::new(store.clone())));
    prep(&mut r);
    ops.set_observer(Some(Box::new(r)));
    ops
}

pub fn plain_ops(backend: BackendKind) -> Ops {
    ops_from_config(OpsConfig::new(backend).with_threads(Some(2))).unwrap()
}

// ------------------------------------------------------------------------------------------
// Trace
// ------------------------------------------------------------------------------------------

/// A half-open box of points in 3 dimensions (the tests' own, independent of the tracker's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bx {
    pub lo: [i32; 3],
    pub hi: [i32; 3],
}

impl Bx {
    pub fn new(lo: [i32; 3], hi: [i32; 3]) -> Bx {
        Bx { lo, hi }
    }

    /// The box of a range (dimensions it lacks are 0..1).
    pub fn from_range(r: &IterRange) -> Bx {
        let (mut lo, mut hi) = ([0; 3], [1; 3]);
        let n = r.dims();
        lo[..n].copy_from_slice(&r.lo()[..n]);
        hi[..n].copy_from_slice(&r.hi()[..n]);
        Bx { lo, hi }
    }

    pub fn overlaps(&self, o: &Bx) -> bool {
        (0..3).all(|d| self.lo[d] < o.hi[d] && o.lo[d] < self.hi[d])
    }
}

/// What a loop may read and what it writes, from its plan as the runtime validated it
/// (`DatArgPlan::observed` and `written`): `(dataset index, box)` per argument.
#[derive(Clone, Debug, Default)]
pub struct Footprint {
    pub reads: Vec<(u32, Bx)>,
    pub writes: Vec<(u32, Bx)>,
}

impl Footprint {
    pub fn of(plan: &LoopPlan<'_>) -> Footprint {
        let mut fp = Footprint::default();
        if plan.range.is_empty() {
            return fp;
        }
        for a in plan.args() {
            if let ops_core::ArgPlan::Dat(d) = a {
                let id = d.dat.index() as u32;
                if let Some(r) = d.observed(&plan.range) {
                    fp.reads.push((id, Bx::from_range(&r)));
                }
                if let Some(w) = d.written(&plan.range) {
                    fp.writes.push((id, Bx::from_range(&w)));
                }
            }
        }
        fp
    }
}

/// One access event, in program order.
#[derive(Clone, Debug)]
pub enum Ev {
    /// A loop (its footprint).
    Loop(Footprint),
    /// A fetch of a box.
    Read(u32, Bx),
    /// A set of a box.
    Write(u32, Bx),
}

/// Records every loop's footprint, fetch and set.
pub struct Trace(pub Arc<Mutex<Vec<Ev>>>);

impl LoopObserver for Trace {
    fn before_loop(&mut self, _ops: &mut Runtime<'_>, plan: &LoopPlan<'_>) -> LoopAction {
        self.0.lock().unwrap().push(Ev::Loop(Footprint::of(plan)));
        LoopAction::Run
    }
    fn on_query(&mut self, q: &mut Query<'_>) {
        if let Query::Fetch { dat, range, .. } = q {
            self.0
                .lock()
                .unwrap()
                .push(Ev::Read(dat.index() as u32, Bx::from_range(range)));
        }
    }
    fn before_set(&mut self, _ops: &mut Runtime<'_>, dat: DatId, range: &IterRange) {
        self.0
            .lock()
            .unwrap()
            .push(Ev::Write(dat.index() as u32, Bx::from_range(range)));
    }
}

// ------------------------------------------------------------------------------------------
// Kernels
// ------------------------------------------------------------------------------------------

#[kernel]
pub fn k_init(idx: Idx, out: Write<f64>, s: Global<f64>) {
    out[(0, 0)] = s * (idx[0] as f64) + 0.25 * (idx[1] as f64) + 1.0;
}

#[kernel]
pub fn k_copy(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, 0)];
}

#[kernel]
pub fn k_smooth(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = 0.25 * (src[(1, 0)] + src[(-1, 0)] + src[(0, 1)] + src[(0, -1)]);
}

#[kernel]
pub fn k_axpy(x: Read<f64>, y: ReadWrite<f64>, k: Global<f64>) {
    y[(0, 0)] = y[(0, 0)] * 0.5 + k * x[(0, 0)];
}

#[kernel]
pub fn k_inc(x: Read<f64>, y: Inc<f64>) {
    y[(0, 0)] += 0.125 * x[(0, 0)];
}

#[kernel]
pub fn k_cond(x: Read<f64>, y: Write<f64>) {
    if x[(0, 0)] > 1.0 {
        y[(0, 0)] = x[(0, 0)] * 0.5;
    }
}

/// Reads one point to the right: a reflective halo copy when source and destination are the
/// same dataset (read and written boxes disjoint).
#[kernel]
pub fn k_reflect(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = -src[(1, 0)];
}

#[kernel]
pub fn k_mix(m: Read<f64>, x: Read<f64>, y: Write<f64>, k: Global<f64>) {
    y[(0, 0)] = m[(0, 0)] * k + x[(0, 0)] * 0.75;
}

#[kernel]
pub fn k_sum(x: Read<f64>, s: Sum<f64>) {
    s += x[(0, 0)];
}

#[kernel]
pub fn k_max(x: Read<f64>, m: Max<f64>) {
    m.update(x[(0, 0)]);
}

// ------------------------------------------------------------------------------------------
// Programs
// ------------------------------------------------------------------------------------------

/// Datasets: 0 is the mesh (written once at start-up), 1..NDAT fields.
pub const NDAT: usize = 5;
pub const HALO: i32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum K {
    Copy,
    Smooth,
    Axpy,
    Inc,
    Cond,
    Reflect,
    Mix,
    Init,
}

/// A box `[x0, x1) × [y0, y1)`.
pub type R = [i32; 4];

#[derive(Clone, Debug)]
pub enum Stmt {
    Loop {
        name: String,
        k: K,
        src: usize,
        aux: usize,
        dst: usize,
        r: R,
        g: f64,
    },
    Reduce {
        name: String,
        dat: usize,
        r: R,
        max: bool,
    },
    Fetch {
        dat: usize,
        r: R,
    },
    /// A sum into the `late` reduction whose result is read only by a later [`Stmt::ReadLate`]
    /// (a checkpoint between the two must carry the running value).
    ReduceLater {
        name: String,
        dat: usize,
        r: R,
    },
    /// Reads the `late` reduction.
    ReadLate,
    Set {
        dat: usize,
        r: R,
    },
    /// Runs `body` 1 to 3 times, the count taken from a reduction's bits.
    Repeat {
        name: String,
        dat: usize,
        body: Vec<Stmt>,
    },
}

#[derive(Clone, Debug)]
pub struct Prog {
    pub nx: i32,
    pub ny: i32,
    pub init: Vec<Stmt>,
    pub body: Vec<Stmt>,
    pub steps: u32,
}

/// SplitMix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo) as u64) as i32
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// A range for a loop whose reads reach `r` points out: interior, everything allowed, a halo
/// strip, or a random box.
fn gen_range(rng: &mut Rng, nx: i32, ny: i32, r: i32) -> R {
    let (lo, hx, hy) = (-HALO + r, nx + HALO - r, ny + HALO - r);
    match rng.below(7) {
        0 => [0, nx, 0, ny],
        1 => [lo, hx, lo, hy],
        2 if lo < 0 => [lo, 0, lo, hy],
        3 if hx > nx => [nx, hx, lo, hy],
        4 if lo < 0 => [lo, hx, lo, 0],
        5 if hy > ny => [lo, hx, ny, hy],
        _ => {
            let x0 = rng.range(lo, hx - 1);
            let x1 = rng.range(x0 + 1, hx + 1);
            let y0 = rng.range(lo, hy - 1);
            let y1 = rng.range(y0 + 1, hy + 1);
            [x0, x1, y0, y1]
        }
    }
}

fn gen_stmt(rng: &mut Rng, nx: i32, ny: i32, id: &mut u32, depth: u32) -> Stmt {
    *id += 1;
    let name = format!("s{id}");
    let field = |rng: &mut Rng| 1 + rng.below((NDAT - 1) as u64) as usize;
    let any = |rng: &mut Rng| rng.below(NDAT as u64) as usize;
    match rng.below(if depth == 0 { 16 } else { 14 }) {
        0..=7 => {
            let k = [
                K::Copy,
                K::Smooth,
                K::Axpy,
                K::Inc,
                K::Cond,
                K::Reflect,
                K::Mix,
                K::Init,
            ][rng.below(8) as usize];
            let dst = field(rng);
            let mut src = any(rng);
            let mut aux = any(rng);
            if k != K::Reflect {
                while src == dst {
                    src = any(rng);
                }
            } else if rng.chance(0.6) {
                src = dst; // a real reflective halo copy
            }
            while aux == dst {
                aux = any(rng);
            }
            let radius = i32::from(matches!(k, K::Smooth | K::Reflect));
            let mut r = gen_range(rng, nx, ny, radius);
            if k == K::Reflect && src == dst {
                // Write one halo column, read the one to its right.
                let x = rng.range(-HALO, 0);
                r = [x, x + 1, -HALO, ny + HALO];
            }
            Stmt::Loop {
                name,
                k,
                src,
                aux,
                dst,
                r,
                g: 0.1 + rng.below(9) as f64 * 0.1,
            }
        }
        8 | 9 => Stmt::Reduce {
            name,
            dat: any(rng),
            r: gen_range(rng, nx, ny, 0),
            max: rng.chance(0.5),
        },
        10 => Stmt::Fetch {
            dat: any(rng),
            r: gen_range(rng, nx, ny, 0),
        },
        11 => Stmt::Set {
            dat: field(rng),
            r: gen_range(rng, nx, ny, 0),
        },
        12 => Stmt::ReduceLater {
            name,
            dat: any(rng),
            r: gen_range(rng, nx, ny, 0),
        },
        13 => Stmt::ReadLate,
        _ => {
            let n = 1 + rng.below(3);
            Stmt::Repeat {
                name,
                dat: any(rng),
                body: (0..n)
                    .map(|_| gen_stmt(rng, nx, ny, id, depth + 1))
                    .collect(),
            }
        }
    }
}

/// A random program: start-up computes the mesh and the fields, then `steps` iterations of a
/// random body (with a reduction-driven repeat).
pub fn gen_prog(seed: u64) -> Prog {
    let mut rng = Rng(seed);
    let nx = rng.range(4, 11);
    let ny = rng.range(3, 9);
    let mut id = 0;
    let full = [-HALO, nx + HALO, -HALO, ny + HALO];
    let mut init = vec![Stmt::Loop {
        name: "mesh".into(),
        k: K::Init,
        src: 0,
        aux: 0,
        dst: 0,
        r: full,
        g: 0.5,
    }];
    for d in 1..NDAT {
        init.push(Stmt::Loop {
            name: format!("init{d}"),
            k: K::Mix,
            src: 0,
            aux: 0,
            dst: d,
            r: full,
            g: 0.1 * d as f64,
        });
    }
    let mut body: Vec<Stmt> = (0..rng.range(3, 9))
        .map(|_| gen_stmt(&mut rng, nx, ny, &mut id, 0))
        .collect();
    // Never write the mesh after start-up: it is the pure dataset the test checks.
    fn fix(s: &mut Stmt) {
        match s {
            Stmt::Loop { dst, src, .. } if *dst == 0 => {
                *dst = 1;
                if *src == 1 {
                    *src = 2;
                }
            }
            Stmt::Set { dat, .. } if *dat == 0 => *dat = 1,
            Stmt::Repeat { body, .. } => body.iter_mut().for_each(fix),
            _ => {}
        }
    }
    body.iter_mut().for_each(fix);
    Prog {
        nx,
        ny,
        init,
        body,
        steps: rng.range(3, 8) as u32,
    }
}

/// The program's running state and handles.
pub struct World {
    pub ops: Ops,
    pub grid: Block,
    pub d: Vec<Dat<f64>>,
    pt: Stencil,
    five: Stencil,
    px: Stencil,
    sum: Reduction<f64>,
    max: Reduction<f64>,
    late: Reduction<f64>,
    pub acc: f64,
    /// Every value the program received, as bits.
    pub seen: Vec<u64>,
}

/// Final state: every dataset's bytes (halo included), every value received, the
/// accumulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub dats: Vec<Vec<u8>>,
    pub seen: Vec<u64>,
    pub acc: u64,
}

impl World {
    pub fn new(mut ops: Ops, p: &Prog) -> World {
        let grid = ops.block("grid", 2).unwrap();
        let h = Halo::uniform(HALO);
        let d = (0..NDAT)
            .map(|i| {
                ops.dat::<f64, 2>(&grid, &format!("d{i}"), [p.nx as usize, p.ny as usize], h)
                    .unwrap()
            })
            .collect();
        let pt = ops.stencil("S00", &[[0, 0]]).unwrap();
        let five = ops
            .stencil("S5", &[[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]])
            .unwrap();
        let px = ops.stencil("SP10", &[[1, 0]]).unwrap();
        let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
        let max = ops.reduction::<f64>("max", ReduceOp::Max);
        let late = ops.reduction::<f64>("late", ReduceOp::Sum);
        World {
            ops,
            grid,
            d,
            pt,
            five,
            px,
            sum,
            max,
            late,
            acc: 0.25,
            seen: Vec::new(),
        }
    }

    fn fold(&mut self, v: f64) {
        self.seen.push(v.to_bits());
        let x = self.acc * 0.5 + v * 1e-3;
        self.acc = if x.is_finite() { x } else { 0.125 };
    }

    pub fn stmt(&mut self, s: &Stmt) -> Result<()> {
        let g = self.grid;
        let (pt, five, px) = (self.pt, self.five, self.px);
        match s {
            Stmt::Loop {
                name,
                k,
                src,
                aux,
                dst,
                r,
                g: gl,
            } => {
                let range = [r[0]..r[1], r[2]..r[3]];
                let (s, a, d) = (self.d[*src], self.d[*aux], self.d[*dst]);
                let gv = gl + (self.acc.fract() * 0.01);
                let ops = &mut self.ops;
                match k {
                    K::Copy => ops.par_loop(
                        k_copy,
                        name,
                        &g,
                        range,
                        &[s.arg(&pt, Read), d.arg(&pt, Write)],
                    ),
                    K::Smooth => ops.par_loop(
                        k_smooth,
                        name,
                        &g,
                        range,
                        &[s.arg(&five, Read), d.arg(&pt, Write)],
                    ),
                    K::Axpy => ops.par_loop(
                        k_axpy,
                        name,
                        &g,
                        range,
                        &[s.arg(&pt, Read), d.arg(&pt, ReadWrite), Arg::global(gv)],
                    ),
                    K::Inc => {
                        ops.par_loop(k_inc, name, &g, range, &[s.arg(&pt, Read), d.arg(&pt, Inc)])
                    }
                    K::Cond => ops.par_loop(
                        k_cond,
                        name,
                        &g,
                        range,
                        &[s.arg(&pt, Read), d.arg(&pt, Write)],
                    ),
                    K::Reflect => ops.par_loop(
                        k_reflect,
                        name,
                        &g,
                        range,
                        &[s.arg(&px, Read), d.arg(&pt, Write)],
                    ),
                    K::Mix => ops.par_loop(
                        k_mix,
                        name,
                        &g,
                        range,
                        &[
                            s.arg(&pt, Read),
                            a.arg(&pt, Read),
                            d.arg(&pt, Write),
                            Arg::global(gv),
                        ],
                    ),
                    K::Init => ops.par_loop(
                        k_init,
                        name,
                        &g,
                        range,
                        &[Arg::idx(), d.arg(&pt, Write), Arg::global(gv)],
                    ),
                }
            }
            Stmt::Reduce { name, dat, r, max } => {
                let range = [r[0]..r[1], r[2]..r[3]];
                let x = self.d[*dat];
                let v = if *max {
                    let red = self.max;
                    self.ops
                        .par_loop(k_max, name, &g, range, &[x.arg(&pt, Read), red.arg()])?;
                    self.ops.reduction_result(&red)?
                } else {
                    let red = self.sum;
                    self.ops
                        .par_loop(k_sum, name, &g, range, &[x.arg(&pt, Read), red.arg()])?;
                    self.ops.reduction_result(&red)?
                };
                self.fold(v);
                Ok(())
            }
            Stmt::Fetch { dat, r } => {
                let v = self
                    .ops
                    .fetch_range(&self.d[*dat], [r[0]..r[1], r[2]..r[3]])?;
                let s: f64 = v.iter().sum();
                self.fold(s);
                Ok(())
            }
            Stmt::ReduceLater { name, dat, r } => {
                let x = self.d[*dat];
                let red = self.late;
                self.ops.par_loop(
                    k_sum,
                    name,
                    &g,
                    [r[0]..r[1], r[2]..r[3]],
                    &[x.arg(&pt, Read), red.arg()],
                )
            }
            Stmt::ReadLate => {
                let red = self.late;
                let v = self.ops.reduction_result(&red)?;
                self.fold(v);
                Ok(())
            }
            Stmt::Set { dat, r } => {
                let n = ((r[1] - r[0]) * (r[3] - r[2])) as usize;
                let vals: Vec<f64> = (0..n).map(|i| self.acc + i as f64 * 0.01).collect();
                self.ops
                    .set_range(&self.d[*dat], [r[0]..r[1], r[2]..r[3]], &vals)
            }
            Stmt::Repeat { name, dat, body } => {
                let x = self.d[*dat];
                let red = self.sum;
                let ny = self.ops.dat_size(&x)?[1] as i32;
                let nx = self.ops.dat_size(&x)?[0] as i32;
                self.ops.par_loop(
                    k_sum,
                    name,
                    &g,
                    [0..nx, 0..ny],
                    &[x.arg(&pt, Read), red.arg()],
                )?;
                let v = self.ops.reduction_result(&red)?;
                self.fold(v);
                let n = 1 + (v.to_bits() >> 7) % 3;
                for _ in 0..n {
                    for s in body {
                        self.stmt(s)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Runs the program to the end; `after_init` runs between start-up and the steps.
    pub fn run(&mut self, p: &Prog, after_init: &mut dyn FnMut(&mut Ops)) -> Result<()> {
        for s in &p.init {
            self.stmt(s)?;
        }
        after_init(&mut self.ops);
        for _ in 0..p.steps {
            for s in &p.body {
                self.stmt(s)?;
            }
        }
        Ok(())
    }

    /// Every dataset's bytes, halo included (after the program: what the fetch adds to the
    /// log is never replayed).
    pub fn outcome(&mut self) -> Outcome {
        let dats = self
            .d
            .iter()
            .map(|d| {
                let r = self.ops.dat_layout(d).unwrap().extent();
                let v = self.ops.fetch_range(d, r).unwrap();
                v.iter().flat_map(|x| x.to_le_bytes()).collect()
            })
            .collect();
        Outcome {
            dats,
            seen: self.seen.clone(),
            acc: self.acc.to_bits(),
        }
    }
}

/// Runs `p` on `ops` and returns the outcome; finishes the runtime.
pub fn run_prog(ops: Ops, p: &Prog, after_init: &mut dyn FnMut(&mut Ops)) -> Outcome {
    let mut w = World::new(ops, p);
    w.run(p, after_init).unwrap();
    let o = w.outcome();
    w.ops.finish().unwrap();
    o
}
