//! Random time-stepping programs for the location learner's property test: a start-up that
//! computes geometry and initial fields, then an outer loop (the time step) whose body holds
//! per-step loops, 1 to 3 inner loops whose trip counts come from reductions, sub-cycles every
//! k steps, branches taken on a fetched value, rare loops every r steps, a halo helper run
//! field by field (one location, another dataset each call) and double buffers swapped by
//! handles; several stencils and halo depths; 1, 2 or 3 dimensions; a final loop
//! after the time loop. The generator knows which loops run exactly once per step: the
//! boundaries the brute-force oracle tries.
#![allow(dead_code)]

use ops_backends::prelude::*;

use crate::oracle::Ctx;

// ------------------------------------------------------------------------------------------
// Kernels, one set per dimension
// ------------------------------------------------------------------------------------------

#[kernel]
fn copy1(src: Read<f64>, dst: Write<f64>) {
    dst[(0,)] = src[(0,)];
}
#[kernel]
fn copy2(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(0, 0)];
}
#[kernel]
fn copy3(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0, 0)] = src[(0, 0, 0)];
}

#[kernel]
fn smooth1(src: Read<f64>, dst: Write<f64>) {
    dst[(0,)] = 0.5 * src[(0,)] + 0.25 * (src[(-1,)] + src[(1,)]);
}
#[kernel]
fn smooth2(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] =
        0.5 * src[(0, 0)] + 0.125 * (src[(-1, 0)] + src[(1, 0)] + src[(0, -1)] + src[(0, 1)]);
}
#[kernel]
fn smooth3(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0, 0)] = 0.4 * src[(0, 0, 0)]
        + 0.1
            * (src[(-1, 0, 0)]
                + src[(1, 0, 0)]
                + src[(0, -1, 0)]
                + src[(0, 1, 0)]
                + src[(0, 0, -1)]
                + src[(0, 0, 1)]);
}

#[kernel]
fn axpy1(x: Read<f64>, y: ReadWrite<f64>, g: Global<f64>) {
    y[(0,)] = 0.5 * y[(0,)] + 0.5 * g * x[(0,)];
}
#[kernel]
fn axpy2(x: Read<f64>, y: ReadWrite<f64>, g: Global<f64>) {
    y[(0, 0)] = 0.5 * y[(0, 0)] + 0.5 * g * x[(0, 0)];
}
#[kernel]
fn axpy3(x: Read<f64>, y: ReadWrite<f64>, g: Global<f64>) {
    y[(0, 0, 0)] = 0.5 * y[(0, 0, 0)] + 0.5 * g * x[(0, 0, 0)];
}

#[kernel]
fn mix1(a: Read<f64>, b: Read<f64>, dst: Write<f64>, g: Global<f64>) {
    dst[(0,)] = 0.5 * (a[(0,)] + b[(0,)]) + 0.01 * g;
}
#[kernel]
fn mix2(a: Read<f64>, b: Read<f64>, dst: Write<f64>, g: Global<f64>) {
    dst[(0, 0)] = 0.5 * (a[(0, 0)] + b[(0, 0)]) + 0.01 * g;
}
#[kernel]
fn mix3(a: Read<f64>, b: Read<f64>, dst: Write<f64>, g: Global<f64>) {
    dst[(0, 0, 0)] = 0.5 * (a[(0, 0, 0)] + b[(0, 0, 0)]) + 0.01 * g;
}

#[kernel]
fn init1(idx: Idx, dst: Write<f64>, g: Global<f64>) {
    dst[(0,)] = g * (idx[0] as f64) * 0.125 + 1.0;
}
#[kernel]
fn init2(idx: Idx, dst: Write<f64>, g: Global<f64>) {
    dst[(0, 0)] = g * (idx[0] as f64) * 0.125 - 0.0625 * (idx[1] as f64) + 1.0;
}
#[kernel]
fn init3(idx: Idx, dst: Write<f64>, g: Global<f64>) {
    dst[(0, 0, 0)] =
        g * (idx[0] as f64) * 0.125 - 0.0625 * (idx[1] as f64) + 0.03125 * (idx[2] as f64) + 1.0;
}

#[kernel]
fn sum1(a: Read<f64>, s: Sum<f64>) {
    s += a[(0,)];
}
#[kernel]
fn sum2(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0)];
}
#[kernel]
fn sum3(a: Read<f64>, s: Sum<f64>) {
    s += a[(0, 0, 0)];
}

/// Fills the low-x halo layer from the first interior layer (a reflective halo exchange).
#[kernel]
fn halo1(src: Read<f64>, dst: Write<f64>) {
    dst[(0,)] = src[(1,)];
}
#[kernel]
fn halo2(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0)] = src[(1, 0)];
}
#[kernel]
fn halo3(src: Read<f64>, dst: Write<f64>) {
    dst[(0, 0, 0)] = src[(1, 0, 0)];
}

// ------------------------------------------------------------------------------------------
// Programs
// ------------------------------------------------------------------------------------------

/// Which dataset an operation names: a fixed one, or one half of the double buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum D {
    /// Dataset `i` (0 is the geometry, written at start-up only).
    F(usize),
    /// The half of the double buffer holding the current values.
    Cur,
    /// The other half (the next values).
    Next,
}

/// One loop.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Copy,
    Smooth,
    Axpy,
    Mix,
    Init,
    /// A halo fill (reads the first interior layer).
    Halo,
}

/// A loop of the program: unique name, kind, datasets, and whether it covers the interior
/// or the whole extent.
#[derive(Clone, Debug)]
pub struct Op {
    pub name: String,
    pub kind: Kind,
    pub src: D,
    pub aux: D,
    pub dst: D,
    pub g: f64,
}

/// A piece of the time step.
#[derive(Clone, Debug)]
pub enum Item {
    /// A loop run once per step.
    Loop(Op),
    /// `loop { body; probe } ` until the probe's reduction says stop (1 to `max` trips).
    Inner {
        body: Vec<Op>,
        probe: (String, D),
        max: u64,
    },
    /// Every `every` steps, `body` `times` times.
    SubCycle {
        every: u32,
        times: u32,
        body: Vec<Op>,
    },
    /// `body` when the sum of a fetched box of a dataset says so.
    Branch { fetched: D, body: Vec<Op> },
    /// Every `every` steps (at step `every - 1`, `2 every - 1`, ...).
    Rare { every: u32, body: Vec<Op> },
    /// One helper run for each of several fields in turn: the same loop name and call site
    /// (one location), another dataset each call.
    Each(Vec<Op>),
    /// Swaps the handles of the double buffer.
    Swap,
}

/// A program.
#[derive(Clone, Debug)]
pub struct Prog {
    pub dims: usize,
    pub n: [usize; 3],
    pub halo: i32,
    pub startup: Vec<Op>,
    pub step: Vec<Item>,
    pub steps: u32,
    pub fin: Op,
}

/// Fields besides the geometry (datasets 1..=FIELDS); the double buffer is FIELDS+1, FIELDS+2.
pub const FIELDS: usize = 4;

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
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// A random program from `seed`.
pub fn generate(seed: u64) -> Prog {
    let mut rng = Rng(seed);
    let dims = 1 + rng.below(3) as usize;
    let mut n = [1usize; 3];
    for d in n.iter_mut().take(dims) {
        *d = 3 + rng.below(if dims == 3 { 3 } else { 6 }) as usize;
    }
    let halo = 1 + rng.below(2) as i32;
    let id = std::cell::Cell::new(0u32);
    let name = |p: &str| {
        id.set(id.get() + 1);
        format!("{p}{}", id.get())
    };
    let field = |rng: &mut Rng| D::F(1 + rng.below(FIELDS as u64) as usize);
    let any = |rng: &mut Rng| match rng.below(8) {
        0 => D::F(0),
        1 => D::Cur,
        _ => D::F(1 + rng.below(FIELDS as u64) as usize),
    };
    let op = |rng: &mut Rng, prefix: &str| {
        let kind = match rng.below(9) {
            0 | 1 => Kind::Copy,
            2 | 3 => Kind::Smooth,
            4 | 5 => Kind::Axpy,
            6 | 7 => Kind::Mix,
            _ => Kind::Halo,
        };
        let dst = if rng.chance(0.2) { D::Next } else { field(rng) };
        let mut src = any(rng);
        while src == dst && kind != Kind::Halo {
            src = any(rng);
        }
        let mut aux = any(rng);
        while aux == dst {
            aux = any(rng);
        }
        let src = if kind == Kind::Halo { dst } else { src };
        Op {
            name: name(prefix),
            kind,
            src,
            aux,
            dst,
            g: 0.1 + rng.below(9) as f64 * 0.1,
        }
    };
    let mut startup = vec![Op {
        name: "geometry".into(),
        kind: Kind::Init,
        src: D::F(0),
        aux: D::F(0),
        dst: D::F(0),
        g: 0.5,
    }];
    // Initial values of one field and of the double buffer (the other fields start at zero).
    for f in [1 + rng.below(FIELDS as u64) as usize, FIELDS + 1] {
        startup.push(Op {
            name: format!("init_f{f}"),
            kind: Kind::Mix,
            src: D::F(0),
            aux: D::F(0),
            dst: D::F(f),
            g: 0.1 * f as f64,
        });
    }
    let mut step = Vec::new();
    let per_step = 2 + rng.below(3);
    for _ in 0..per_step {
        step.push(Item::Loop(op(&mut rng, "s")));
    }
    for _ in 0..1 + rng.below(3) {
        let body: Vec<Op> = (0..1 + rng.below(3)).map(|_| op(&mut rng, "j")).collect();
        let probe = (name("probe"), field(&mut rng));
        let at = rng.below(step.len() as u64 + 1) as usize;
        step.insert(
            at,
            Item::Inner {
                body,
                probe,
                max: 2 + rng.below(3),
            },
        );
    }
    if rng.chance(0.5) {
        let body = (0..1 + rng.below(2)).map(|_| op(&mut rng, "sub")).collect();
        let at = rng.below(step.len() as u64 + 1) as usize;
        step.insert(
            at,
            Item::SubCycle {
                every: 2 + rng.below(3) as u32,
                times: 1 + rng.below(3) as u32,
                body,
            },
        );
    }
    if rng.chance(0.5) {
        let body = vec![op(&mut rng, "branch")];
        let at = rng.below(step.len() as u64 + 1) as usize;
        step.insert(
            at,
            Item::Branch {
                fetched: field(&mut rng),
                body,
            },
        );
    }
    if rng.chance(0.5) {
        let body = vec![op(&mut rng, "rare")];
        let at = rng.below(step.len() as u64 + 1) as usize;
        step.insert(
            at,
            Item::Rare {
                every: 3 + rng.below(5) as u32,
                body,
            },
        );
    }
    // A halo helper run field by field (from a stream of its own, so that the programs drawn
    // before it came keep their other items).
    let mut own = Rng(seed ^ 0x5eed_f1e1_d5ee_d5ed);
    if own.chance(0.3) {
        let mut fields: Vec<usize> = (1..=FIELDS).collect();
        let keep = 2 + own.below(2) as usize;
        while fields.len() > keep {
            fields.remove(own.below(fields.len() as u64) as usize);
        }
        let each = fields
            .into_iter()
            .map(|f| Op {
                name: "each_field".into(),
                kind: Kind::Halo,
                src: D::F(f),
                aux: D::F(f),
                dst: D::F(f),
                g: 0.5,
            })
            .collect();
        let at = own.below(step.len() as u64 + 1) as usize;
        step.insert(at, Item::Each(each));
    }
    // The double buffer: a loop computing the next values from the current ones, then the swap.
    step.push(Item::Loop(Op {
        name: name("advance"),
        kind: Kind::Smooth,
        src: D::Cur,
        aux: D::Cur,
        dst: D::Next,
        g: 0.5,
    }));
    step.push(Item::Swap);
    let fin = Op {
        name: "final".into(),
        kind: Kind::Copy,
        src: D::Cur,
        aux: D::Cur,
        dst: D::F(1),
        g: 1.0,
    };
    Prog {
        dims,
        n,
        halo,
        startup,
        step,
        steps: 20 + rng.below(9) as u32,
        fin,
    }
}

// ------------------------------------------------------------------------------------------
// The interpreter
// ------------------------------------------------------------------------------------------

/// The running program's datasets and stencils.
pub struct World {
    block: Block,
    dims: usize,
    n: [usize; 3],
    halo: i32,
    pub dats: Vec<Dat<f64>>,
    /// Dataset indices of the current and next halves of the double buffer.
    buf: [usize; 2],
    point: Stencil,
    cross: Stencil,
    plus_x: Stencil,
    sum: Reduction<f64>,
}

fn stencil_points(dims: usize, pts: &[[i32; 3]]) -> Vec<Vec<i32>> {
    pts.iter().map(|p| p[..dims].to_vec()).collect()
}

impl World {
    pub fn new(ops: &mut Ops, p: &Prog) -> World {
        let block = ops.block("grid", p.dims).unwrap();
        let h = p.halo;
        let dats = (0..FIELDS + 3)
            .map(|i| {
                let name = format!("d{i}");
                match p.dims {
                    1 => ops.dat::<f64, 1>(&block, &name, [p.n[0]], Halo::uniform(h)),
                    2 => ops.dat::<f64, 2>(&block, &name, [p.n[0], p.n[1]], Halo::uniform(h)),
                    _ => ops.dat::<f64, 3>(&block, &name, p.n, Halo::uniform(h)),
                }
                .unwrap()
            })
            .collect();
        let mut cross_pts = vec![[0, 0, 0]];
        for d in 0..p.dims {
            let mut a = [0; 3];
            a[d] = 1;
            cross_pts.push(a);
            a[d] = -1;
            cross_pts.push(a);
        }
        let mk = |ops: &mut Ops, name: &str, pts: &[[i32; 3]]| {
            let v = stencil_points(p.dims, pts);
            match p.dims {
                1 => {
                    let a: Vec<[i32; 1]> = v.iter().map(|x| [x[0]]).collect();
                    ops.stencil(name, &a)
                }
                2 => {
                    let a: Vec<[i32; 2]> = v.iter().map(|x| [x[0], x[1]]).collect();
                    ops.stencil(name, &a)
                }
                _ => {
                    let a: Vec<[i32; 3]> = v.iter().map(|x| [x[0], x[1], x[2]]).collect();
                    ops.stencil(name, &a)
                }
            }
            .unwrap()
        };
        let point = mk(ops, "point", &[[0, 0, 0]]);
        let cross = mk(ops, "cross", &cross_pts);
        let plus_x = mk(ops, "plus_x", &[[1, 0, 0]]);
        let sum = ops.reduction::<f64>("sum", ReduceOp::Sum);
        World {
            block,
            dims: p.dims,
            n: p.n,
            halo: h,
            dats,
            buf: [FIELDS + 1, FIELDS + 2],
            point,
            cross,
            plus_x,
            sum,
        }
    }

    fn dat(&self, d: D) -> Dat<f64> {
        match d {
            D::F(i) => self.dats[i],
            D::Cur => self.dats[self.buf[0]],
            D::Next => self.dats[self.buf[1]],
        }
    }

    fn range(&self, lo: [i32; 3], hi: [i32; 3]) -> IterRange {
        IterRange::new(self.dims, lo, hi).unwrap()
    }

    fn interior(&self) -> IterRange {
        let mut hi = [1; 3];
        for (h, n) in hi.iter_mut().zip(self.n).take(self.dims) {
            *h = n as i32;
        }
        self.range([0; 3], hi)
    }

    fn extent(&self) -> IterRange {
        let (mut lo, mut hi) = ([0; 3], [1; 3]);
        for d in 0..self.dims {
            lo[d] = -self.halo;
            hi[d] = self.n[d] as i32 + self.halo;
        }
        self.range(lo, hi)
    }

    /// The low-x halo layer next to the interior, full width in the other dimensions.
    fn halo_layer(&self) -> IterRange {
        let e = self.extent();
        let (mut lo, mut hi) = (e.lo(), e.hi());
        lo[0] = -1;
        hi[0] = 0;
        self.range(lo, hi)
    }

    pub fn run_op(&self, ops: &mut Ops, op: &Op) -> Result<()> {
        let (s, a, d) = (self.dat(op.src), self.dat(op.aux), self.dat(op.dst));
        let (pt, cross, px) = (self.point, self.cross, self.plus_x);
        let b = self.block;
        let g = op.g;
        let dims = self.dims;
        let range = match op.kind {
            Kind::Init => self.extent(),
            Kind::Halo => self.halo_layer(),
            _ => self.interior(),
        };
        macro_rules! by_dims {
            ($k1:ident, $k2:ident, $k3:ident, $args:expr) => {
                match dims {
                    1 => ops.par_loop($k1, &op.name, &b, range, $args),
                    2 => ops.par_loop($k2, &op.name, &b, range, $args),
                    _ => ops.par_loop($k3, &op.name, &b, range, $args),
                }
            };
        }
        match op.kind {
            Kind::Copy => by_dims!(copy1, copy2, copy3, &[s.arg(&pt, Read), d.arg(&pt, Write)]),
            Kind::Smooth => by_dims!(
                smooth1,
                smooth2,
                smooth3,
                &[s.arg(&cross, Read), d.arg(&pt, Write)]
            ),
            Kind::Axpy => by_dims!(
                axpy1,
                axpy2,
                axpy3,
                &[s.arg(&pt, Read), d.arg(&pt, ReadWrite), Arg::global(g)]
            ),
            Kind::Mix => by_dims!(
                mix1,
                mix2,
                mix3,
                &[
                    s.arg(&pt, Read),
                    a.arg(&pt, Read),
                    d.arg(&pt, Write),
                    Arg::global(g)
                ]
            ),
            Kind::Init => by_dims!(
                init1,
                init2,
                init3,
                &[Arg::idx(), d.arg(&pt, Write), Arg::global(g)]
            ),
            Kind::Halo => by_dims!(halo1, halo2, halo3, &[s.arg(&px, Read), d.arg(&pt, Write)]),
        }
    }

    /// A reduction over the interior of `d`, handed to the program.
    fn probe(&self, cx: &mut Ctx, name: &str, d: D) -> Result<f64> {
        let x = self.dat(d);
        let (pt, b, r, red) = (self.point, self.block, self.interior(), self.sum);
        let args = [x.arg(&pt, Read), red.arg()];
        match self.dims {
            1 => cx.ops.par_loop(sum1, name, &b, r, &args)?,
            2 => cx.ops.par_loop(sum2, name, &b, r, &args)?,
            _ => cx.ops.par_loop(sum3, name, &b, r, &args)?,
        }
        cx.result(&red)
    }

    fn ops_seq(&self, ops: &mut Ops, body: &[Op]) -> Result<()> {
        body.iter().try_for_each(|o| self.run_op(ops, o))
    }

    pub fn run_step(&mut self, cx: &mut Ctx, p: &Prog, step: u32) -> Result<()> {
        for item in &p.step {
            match item {
                Item::Loop(op) => self.run_op(&mut cx.ops, op)?,
                Item::Inner { body, probe, max } => {
                    let mut trips = 0;
                    loop {
                        self.ops_seq(&mut cx.ops, body)?;
                        trips += 1;
                        let v = self.probe(cx, &probe.0, probe.1)?;
                        if trips > (v.to_bits() >> 3) % max {
                            break;
                        }
                    }
                }
                Item::SubCycle { every, times, body } => {
                    if step.is_multiple_of(*every) {
                        for _ in 0..*times {
                            self.ops_seq(&mut cx.ops, body)?;
                        }
                    }
                }
                Item::Branch { fetched, body } => {
                    let x = self.dat(*fetched);
                    let mut lo = [0; 3];
                    let mut hi = [1; 3];
                    hi[..self.dims].fill(2);
                    lo[0] = 0;
                    let v: f64 = cx.ops.fetch_range(&x, self.range(lo, hi))?.iter().sum();
                    cx.see(v);
                    if !(v.to_bits() >> 5).is_multiple_of(3) {
                        self.ops_seq(&mut cx.ops, body)?;
                    }
                }
                Item::Rare { every, body } => {
                    if (step + 1).is_multiple_of(*every) {
                        self.ops_seq(&mut cx.ops, body)?;
                    }
                }
                Item::Each(body) => self.ops_seq(&mut cx.ops, body)?,
                Item::Swap => self.buf.swap(0, 1),
            }
        }
        Ok(())
    }

    /// Runs the whole program; returns every dataset.
    pub fn run(cx: &mut Ctx, p: &Prog) -> Result<Vec<Dat<f64>>> {
        let mut w = World::new(&mut cx.ops, p);
        for op in &p.startup {
            w.run_op(&mut cx.ops, op)?;
        }
        for step in 0..p.steps {
            cx.step();
            w.run_step(cx, p, step)?;
        }
        cx.end();
        w.run_op(&mut cx.ops, &p.fin)?;
        Ok(w.dats)
    }
}
