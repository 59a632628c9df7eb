//! The call log: what every loop was called with (its name, kernel, block, range and
//! arguments, global constants' values included), so that a restarted run proves, loop by loop,
//! that it replays the computation its checkpoint continues.
//!
//! A restart replays the program without computing: values the program received are handed
//! back from the checkpoint's log. If the program or its input changed since (another deck
//! value, another command-line parameter, edited code), it could replay to the checkpoint's
//! loop and continue with the saved fields, mixing two computations. The call log catches the
//! first loop that differs: its shape (loop name, kernel, block, range, each argument's dataset,
//! stencil and access, each reduction) or a global constant's value.
//!
//! Each distinct *shape* (everything but the global constants' values) is stored once; each
//! loop adds its shape's number and, when they changed since that shape's previous call, its
//! global constants' values: one or two bytes for most loops. The location (file, line,
//! column) is not part of a shape: code that only moved still matches.

use std::collections::BTreeMap;

use ops_core::{Access, Arg, ArgPlan, ArgView, IterRange, LoopCall, LoopPlan, Ops, ReduceOp};
use ops_core::{ElemType, Scalar};
use serde::{Deserialize, Serialize};

/// One argument of a shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum ArgShape {
    /// A dataset (declaration index) through a stencil (declaration index).
    Dat { dat: u32, stencil: u32, access: u8 },
    /// A global constant of a type (its value is in the records).
    Global { ty: u8 },
    /// A reduction (declaration index).
    Reduce { id: u32, op: u8 },
    /// The iteration index.
    Idx,
}

fn access_code(a: Access) -> u8 {
    match a {
        Access::Read => 0,
        Access::Write => 1,
        Access::ReadWrite => 2,
        Access::Inc => 3,
    }
}

fn access_name(code: u8) -> &'static str {
    ["Read", "Write", "ReadWrite", "Inc"]
        .get(code as usize)
        .copied()
        .unwrap_or("?")
}

fn op_code(op: ReduceOp) -> u8 {
    match op {
        ReduceOp::Min => 0,
        ReduceOp::Max => 1,
        ReduceOp::Sum => 2,
    }
}

fn op_name(code: u8) -> &'static str {
    ["Min", "Max", "Sum"]
        .get(code as usize)
        .copied()
        .unwrap_or("?")
}

fn type_code(t: ElemType) -> u8 {
    match t {
        ElemType::F64 => 0,
        ElemType::F32 => 1,
        ElemType::I32 => 2,
    }
}

fn scalar_bits(s: Scalar) -> u64 {
    match s {
        Scalar::F64(x) => x.to_bits(),
        Scalar::F32(x) => u64::from(x.to_bits()),
        Scalar::I32(x) => u64::from(x as u32),
    }
}

fn show_bits(ty: u8, bits: u64) -> String {
    match ty {
        0 => format!("{:e}", f64::from_bits(bits)),
        1 => format!("{:e}", f32::from_bits(bits as u32)),
        _ => format!("{}", bits as u32 as i32),
    }
}

/// A hash of the values of a loop's global constants (0 when it has none): what tells apart
/// calls of one loop that differ only in them, such as Runge-Kutta stages passing each stage's
/// coefficients (see [`crate::learn::structure::stages`]).
pub(crate) fn globals_tag(plan: &LoopPlan<'_>) -> u64 {
    let mut h = 0u64;
    for s in plan.args().iter().filter_map(ArgPlan::global) {
        h = (h.rotate_left(5) ^ scalar_bits(s)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95) | 1;
    }
    h
}

/// A packed argument too large to pack (no packed argument has all bits set).
const UNPACKED: u64 = u64::MAX;

/// An argument's shape as one number, for [`Packed`] calls, read straight from its plan
/// (a steady loop compares these, not [`ArgShape`]s): [`UNPACKED`] for indices too large.
/// An unused slot reads as the iteration index, as [`Call::arg`] shows it.
#[inline]
fn pack_arg(p: &ArgPlan) -> u64 {
    #[inline]
    fn pack(kind: u64, a: usize, b: usize, code: u8) -> u64 {
        if (a | b) < 1 << 24 {
            kind << 56 | (a as u64) << 32 | (b as u64) << 8 | u64::from(code)
        } else {
            UNPACKED
        }
    }
    match p {
        ArgPlan::Dat(d) => pack(1, d.dat.index(), d.stencil.index(), access_code(d.access)),
        ArgPlan::Global(v) => pack(2, 0, 0, type_code(v.elem_type())),
        ArgPlan::Reduce { id, op, .. } => pack(3, id.index(), 0, op_code(*op)),
        ArgPlan::Idx | ArgPlan::None => pack(4, 0, 0, 0),
    }
}

impl ArgShape {
    #[inline]
    fn of(v: ArgView) -> ArgShape {
        match v {
            ArgView::Dat {
                dat,
                stencil,
                access,
            } => ArgShape::Dat {
                dat: dat.index() as u32,
                stencil: stencil.index() as u32,
                access: access_code(access),
            },
            ArgView::Global(s) => ArgShape::Global {
                ty: type_code(s.elem_type()),
            },
            ArgView::Reduce { id, op } => ArgShape::Reduce {
                id: id.index() as u32,
                op: op_code(op),
            },
            ArgView::Idx => ArgShape::Idx,
        }
    }
}

/// A loop call: a validated plan or a call before validation.
#[derive(Clone, Copy)]
pub(crate) struct Call<'a> {
    name: &'a str,
    kernel: &'a str,
    block: u32,
    range: IterRange,
    args: Args<'a>,
}

#[derive(Clone, Copy)]
enum Args<'a> {
    Plan(&'a [ArgPlan]),
    Raw(&'a [Arg]),
}

impl<'a> Call<'a> {
    /// A validated loop.
    pub fn plan(plan: &'a LoopPlan<'a>) -> Call<'a> {
        Call {
            name: plan.name,
            kernel: plan.kernel,
            block: plan.block.index() as u32,
            range: plan.range,
            args: Args::Plan(plan.args()),
        }
    }

    /// A call before validation.
    pub fn raw(call: &'a LoopCall<'a>) -> Call<'a> {
        Call {
            name: call.name,
            kernel: call.kernel,
            block: call.block.index() as u32,
            range: call.range,
            args: Args::Raw(call.args),
        }
    }

    fn nargs(&self) -> usize {
        match self.args {
            Args::Plan(a) => a.len(),
            Args::Raw(a) => a.len(),
        }
    }

    #[inline]
    fn arg(&self, k: usize) -> ArgView {
        match self.args {
            Args::Plan(a) => a[k].view().unwrap_or(ArgView::Idx),
            Args::Raw(a) => a[k].view(),
        }
    }

    /// The range's bounds in the dimensions it has.
    fn bounds(&self) -> (Vec<i32>, Vec<i32>) {
        let n = self.range.dims();
        (self.range.lo()[..n].to_vec(), self.range.hi()[..n].to_vec())
    }

    fn same_range(&self, lo: &[i32], hi: &[i32]) -> bool {
        let n = self.range.dims();
        // Element by element: a slice comparison calls `memcmp`, dear for three numbers.
        let (l, h) = (self.range.lo(), self.range.hi());
        n == lo.len() && hi.len() == n && (0..n).all(|d| l[d] == lo[d] && h[d] == hi[d])
    }

    /// True when every argument has the shape in `shapes` at its position.
    fn args_match(&self, shapes: &[ArgShape]) -> bool {
        self.nargs() == shapes.len()
            && shapes
                .iter()
                .enumerate()
                .all(|(k, s)| ArgShape::of(self.arg(k)) == *s)
    }
}

/// Everything about a call but its global constants' values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Shape {
    name: String,
    kernel: String,
    block: u32,
    lo: Vec<i32>,
    hi: Vec<i32>,
    args: Vec<ArgShape>,
}

impl Shape {
    fn of(call: &Call<'_>) -> Shape {
        let (lo, hi) = call.bounds();
        Shape {
            name: call.name.to_string(),
            kernel: call.kernel.to_string(),
            block: call.block,
            lo,
            hi,
            args: (0..call.nargs())
                .map(|k| ArgShape::of(call.arg(k)))
                .collect(),
        }
    }

    fn matches(&self, call: &Call<'_>) -> bool {
        self.name == call.name && self.matches_at_location(call)
    }

    /// [`Shape::matches`] for a shape logged at the call's location, whose name is the call's
    /// (a location is a call site and a loop name): the numbers first, which tell most shapes
    /// of a location apart, then the kernel.
    fn matches_at_location(&self, call: &Call<'_>) -> bool {
        self.block == call.block
            && call.same_range(&self.lo, &self.hi)
            && call.args_match(&self.args)
            && self.kernel == call.kernel
    }

    fn globals(&self) -> usize {
        self.args
            .iter()
            .filter(|a| matches!(a, ArgShape::Global { .. }))
            .count()
    }
}

/// How a call differs from the logged one.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Difference {
    /// The log ends before this loop (the checkpointed run had run fewer loops).
    Ended,
    /// The log cannot be decoded (a damaged log: the checkpoint's checksums make this rare).
    Damaged,
    /// Another loop was called.
    Name(String),
    /// Another kernel.
    Kernel(String),
    /// Another block (declaration index).
    Block(u32),
    /// Another range (saved bounds).
    Range(Vec<i32>, Vec<i32>),
    /// Another number of arguments (saved).
    Arity(usize),
    /// Argument `k` differs (its saved shape).
    Arg(usize, ArgShapeSaved),
    /// Global constant argument `k` has another value (its saved type and bits).
    Global(usize, u8, u64),
}

/// A saved argument, opaque outside this module.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ArgShapeSaved(ArgShape);

/// Declared names of the things shapes refer to by index, for messages.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Names {
    dats: BTreeMap<u32, String>,
    stencils: BTreeMap<u32, String>,
    reductions: BTreeMap<u32, String>,
    blocks: BTreeMap<u32, String>,
}

impl Names {
    fn learn(&mut self, shape: &Shape, ops: &Ops) {
        if let Some(b) = ops.block_name_by_index(shape.block as usize) {
            self.blocks.entry(shape.block).or_insert_with(|| b.into());
        }
        for a in &shape.args {
            match *a {
                ArgShape::Dat { dat, stencil, .. } => {
                    if let Some(d) = ops.dat_id(dat as usize).and_then(|id| ops.dat_desc(id)) {
                        self.dats.entry(dat).or_insert_with(|| d.name.into());
                    }
                    if let Some(s) = ops.stencil_name_by_index(stencil as usize) {
                        self.stencils.entry(stencil).or_insert_with(|| s.into());
                    }
                }
                ArgShape::Reduce { id, .. } => {
                    if let Some(n) = ops.reduction_name_by_index(id as usize) {
                        self.reductions.entry(id).or_insert_with(|| n.into());
                    }
                }
                _ => {}
            }
        }
    }

    fn show(&self, a: &ArgShape) -> String {
        let of = |m: &BTreeMap<u32, String>, i: u32, what: &str| {
            m.get(&i)
                .map_or_else(|| format!("{what} #{i}"), |n| format!("`{n}`"))
        };
        match *a {
            ArgShape::Dat {
                dat,
                stencil,
                access,
            } => format!(
                "dataset {} through stencil {} ({})",
                of(&self.dats, dat, "dataset"),
                of(&self.stencils, stencil, "stencil"),
                access_name(access)
            ),
            ArgShape::Global { ty } => format!(
                "a global constant ({})",
                ["f64", "f32", "i32"][ty.min(2) as usize]
            ),
            ArgShape::Reduce { id, op } => format!(
                "reduction {} ({})",
                of(&self.reductions, id, "reduction"),
                op_name(op)
            ),
            ArgShape::Idx => "the iteration index".into(),
        }
    }
}

/// The log of every loop call (see the module docs). Its records travel in checkpoints beside
/// the JSON metadata ([`crate::meta::frame`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CallLog {
    shapes: Vec<Shape>,
    /// Per shape: its global constants' bits at its latest call.
    last: Vec<Vec<u64>>,
    names: Names,
    /// Loops recorded.
    loops: u64,
    /// One record per loop (binary, framed apart from the JSON).
    /// Only ever appended to (`deflated` relies on it).
    #[serde(skip)]
    pub(crate) records: Vec<u8>,
    /// The records deflated as far as a checkpoint needed them.
    #[serde(skip)]
    deflated: crate::deflate_log::GrowingDeflate,
    /// By location id: the shapes its calls had, each with a call of it packed where one
    /// look reads it. A call site that passes other datasets call after call (a halo update
    /// for each field) is looked up among its own few shapes, not the whole dictionary.
    #[serde(skip)]
    by_loc: Vec<LocShapes>,
}

/// The shapes one location's calls had: the latest where the location's entry holds it (a
/// steady loop reads nothing else), the others most recent first.
#[derive(Clone, Debug, Default)]
struct LocShapes {
    latest: Option<Known>,
    older: Vec<Known>,
}

impl LocShapes {
    /// Makes `k` the latest, the previous latest the first of the older.
    fn make_latest(&mut self, k: Known) {
        if let Some(previous) = self.latest.replace(k) {
            self.older.insert(0, previous);
        }
    }
}

/// What [`CallLog::record_call`] recorded of a call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recorded {
    /// The call had the shape of its location's previous call.
    pub same: bool,
    /// The logged shape's number.
    shape: u32,
    /// How many global constants the shape passes.
    globals: u32,
}

impl Recorded {
    /// The logged shape, if it passes no global constants (a call of it with its location's
    /// previous shape is logged by [`CallLog::record_plain`]).
    pub fn plain(&self) -> Option<u32> {
        (self.globals == 0).then_some(self.shape)
    }

    /// The logged shape's number.
    pub fn shape(&self) -> u32 {
        self.shape
    }
}

/// A shape a location's calls had.
#[derive(Clone, Copy, Debug)]
struct Known {
    shape: u32,
    /// How many global constants the shape passes.
    globals: u32,
    /// A call of that shape, packed (`None` when it does not fit).
    packed: Option<Packed>,
}

impl Known {
    fn matches(&self, call: &Call<'_>, shapes: &[Shape]) -> bool {
        match &self.packed {
            Some(p) => p.is(call),
            None => shapes[self.shape as usize].matches_at_location(call),
        }
    }
}

/// Most arguments a [`Packed`] call holds (calls with more are matched by shape).
const PACKED_ARGS: usize = 16;

/// A validated call as [`Shape::matches_at_location`] compares it: block, range, arguments
/// packed one number each, and the kernel name's address (a static: the same address is the
/// same name; another address with the same name only misses this, and is matched by shape).
/// In this order: what every comparison reads shares the first cache line with the first
/// arguments.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Packed {
    kernel: (usize, usize),
    block: u32,
    nargs: u32,
    /// The range as the runtime holds it (unused dimensions padded alike, so equal ranges
    /// compare equal in full).
    range: IterRange,
    args: [u64; PACKED_ARGS],
}

impl Packed {
    /// The packed form of a validated `call`, if it fits.
    fn of(call: &Call<'_>) -> Option<Packed> {
        let Args::Plan(a) = call.args else {
            return None;
        };
        if a.len() > PACKED_ARGS {
            return None;
        }
        let mut args = [0; PACKED_ARGS];
        for (slot, p) in args.iter_mut().zip(a) {
            *slot = pack_arg(p);
            if *slot == UNPACKED {
                return None;
            }
        }
        Some(Packed {
            kernel: (call.kernel.as_ptr() as usize, call.kernel.len()),
            block: call.block,
            nargs: a.len() as u32,
            range: call.range,
            args,
        })
    }

    /// True when `call` is this call again (global constants' values aside).
    fn is(&self, call: &Call<'_>) -> bool {
        let Args::Plan(a) = call.args else {
            return false; // a call before validation: matched by shape
        };
        if self.block != call.block
            || self.nargs as usize != a.len()
            || self.range != call.range
            || self.kernel != (call.kernel.as_ptr() as usize, call.kernel.len())
        {
            return false;
        }
        for (p, k) in a.iter().zip(&self.args) {
            if pack_arg(p) != *k {
                return false;
            }
        }
        true
    }
}

/// Appends the record of a call [`CallLog::record_plain`] logs by its shape alone.
#[inline(always)]
pub(crate) fn encode_plain(out: &mut Vec<u8>, shape: u32) {
    push_varint(out, u64::from(shape) << 1);
}

#[inline(always)]
fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(b: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Where a replay is in a log it checks calls against.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reader {
    pos: usize,
    /// Per shape: its global constants' bits at its latest call read.
    last: Vec<Vec<u64>>,
}

impl CallLog {
    /// Loops recorded.
    #[cfg(test)]
    pub fn loops(&self) -> u64 {
        self.loops
    }

    /// Bytes of the records.
    pub fn record_bytes(&self) -> usize {
        self.records.len()
    }

    /// Deflates the records added since the last call (before a checkpoint takes the log).
    pub(crate) fn deflate_new_records(&mut self) {
        self.deflated.feed(&self.records);
    }

    /// The records, deflated (whole, unless [`CallLog::deflate_new_records`] brought the
    /// stream up to them).
    pub(crate) fn deflated_records(&self) -> std::borrow::Cow<'_, [u8]> {
        self.deflated.stream_of(&self.records)
    }

    /// Records the call of loop location `loc` (ids as the tracker's). `ops` names what a new
    /// shape refers to. True when the call has the shape of the location's previous call (its
    /// footprint is the same).
    #[cfg(test)]
    pub(crate) fn record(&mut self, loc: u32, call: &Call<'_>, ops: &Ops) -> bool {
        self.record_call(loc, call, ops).same
    }

    /// [`CallLog::record`], saying also which logged shape the call has.
    pub(crate) fn record_call(&mut self, loc: u32, call: &Call<'_>, ops: &Ops) -> Recorded {
        // Most calls repeat their location's previous call: one packed comparison (by
        // reference: a packed call is nearly two hundred bytes).
        let repeat = self
            .by_loc
            .get(loc as usize)
            .and_then(|h| h.latest.as_ref())
            .filter(|k| k.packed.as_ref().is_some_and(|p| p.is(call)))
            .map(|k| (k.shape, k.globals));
        if let Some((shape, globals)) = repeat {
            self.record_globals(shape, globals, call);
            return Recorded {
                same: true,
                shape,
                globals,
            };
        }
        self.record_other(loc as usize, call, ops)
    }

    /// Records a call of location `loc` known to have the logged shape `known` (the runtime
    /// numbered its shape, and an earlier call of that number was recorded as `known`): no
    /// comparison. True when the location's previous call had that shape too.
    #[inline]
    pub(crate) fn record_known(&mut self, loc: u32, known: Recorded, plan: &LoopPlan<'_>) -> bool {
        let same = self.latest_shape(loc) == Some(known.shape);
        if same && known.globals == 0 {
            self.record_plain(known.shape);
            return true;
        }
        self.record_known_other(loc as usize, known, &Call::plan(plan), same);
        same
    }

    /// Records a call of logged shape `shape` with no global constants, its location's
    /// previous call having that shape: the steady loop of a time step, whose shape's number
    /// is its whole record.
    #[inline(always)]
    pub(crate) fn record_plain(&mut self, shape: u32) {
        encode_plain(&mut self.records, shape);
        self.loops += 1;
    }

    /// Records `n` calls [`CallLog::record_plain`] would, their records encoded one after
    /// another by [`encode_plain`] in `bytes`.
    #[inline]
    pub(crate) fn record_plain_run(&mut self, bytes: &[u8], n: usize) {
        self.records.extend_from_slice(bytes);
        self.loops += n as u64;
    }

    /// The logged shape of location `loc`'s latest call.
    #[inline]
    pub(crate) fn latest_shape(&self, loc: u32) -> Option<u32> {
        let h = self.by_loc.get(loc as usize)?;
        h.latest.as_ref().map(|k| k.shape)
    }

    /// [`CallLog::record_known`] of a call with global constants, or of another shape than
    /// its location's previous call.
    #[inline(never)]
    fn record_known_other(&mut self, l: usize, known: Recorded, call: &Call<'_>, same: bool) {
        if self.by_loc.len() <= l {
            self.by_loc.resize_with(l + 1, LocShapes::default);
        }
        let here = &mut self.by_loc[l];
        if !same {
            // The location alternates between shapes (buffers swapped by handles): the
            // latest is the one called last, as `record_call` keeps it.
            let k = match here.older.iter().position(|k| k.shape == known.shape) {
                Some(i) => here.older.remove(i),
                None => Known {
                    shape: known.shape,
                    globals: known.globals,
                    packed: None,
                },
            };
            here.make_latest(k);
        }
        self.record_globals(known.shape, known.globals, call);
    }

    /// [`CallLog::record_call`] of a call that is not its location's previous call packed.
    #[inline(never)]
    fn record_other(&mut self, l: usize, call: &Call<'_>, ops: &Ops) -> Recorded {
        if self.by_loc.len() <= l {
            self.by_loc.resize_with(l + 1, LocShapes::default);
        }
        let shapes = &self.shapes;
        let here = &mut self.by_loc[l];
        if let Some(k) = here.latest.as_ref().filter(|k| k.matches(call, shapes)) {
            let (shape, globals) = (k.shape, k.globals);
            self.record_globals(shape, globals, call);
            return Recorded {
                same: true,
                shape,
                globals,
            };
        }
        let known = match here.older.iter().position(|k| k.matches(call, shapes)) {
            Some(i) => here.older.remove(i),
            None => {
                let s = match shapes.iter().position(|sh| sh.matches(call)) {
                    Some(s) => s,
                    None => {
                        let shape = Shape::of(call);
                        self.names.learn(&shape, ops);
                        self.shapes.push(shape);
                        self.last.push(Vec::new());
                        self.shapes.len() - 1
                    }
                };
                Known {
                    shape: s as u32,
                    globals: self.shapes[s].globals() as u32,
                    packed: Packed::of(call),
                }
            }
        };
        let (shape, globals) = (known.shape, known.globals);
        self.by_loc[l].make_latest(known);
        self.record_globals(shape, globals, call);
        Recorded {
            same: false,
            shape,
            globals,
        }
    }

    /// Adds the record of a call of shape `shape`, which passes `globals` global constants:
    /// its number, and the constants' values when they changed since that shape's previous
    /// call.
    #[inline]
    fn record_globals(&mut self, shape: u32, globals: u32, call: &Call<'_>) {
        match call.args {
            Args::Plan(a) => {
                self.record_values(shape, globals, a.iter().filter_map(ArgPlan::global))
            }
            Args::Raw(a) => self.record_values(
                shape,
                globals,
                a.iter().filter_map(|r| match r.view() {
                    ArgView::Global(v) => Some(v),
                    _ => None,
                }),
            ),
        }
    }

    /// Whether a call of the shape `known` recorded (its location's previous call having
    /// that shape: a loop the runtime ran as the engine expected) whose constants are the
    /// first of `values` passes those its shape's previous call passed (the rest of `values`
    /// if so): it is then recorded as [`encode_plain`] records a plain call, the values kept
    /// as they are; else by [`CallLog::record_changed`].
    #[inline]
    pub(crate) fn passes_as_before<'v>(
        &self,
        known: Recorded,
        values: &'v [Scalar],
    ) -> Option<&'v [Scalar]> {
        let (mine, rest) = values.split_at((known.globals as usize).min(values.len()));
        let last = self.last.get(known.shape as usize)?;
        let same = known.globals > 0
            && last.len() == mine.len()
            && last.iter().zip(mine).all(|(l, v)| *l == scalar_bits(*v));
        same.then_some(rest)
    }

    /// [`CallLog::record_globals`] of a call whose constants are `values`.
    #[inline]
    fn record_values(&mut self, shape: u32, globals: u32, values: impl Iterator<Item = Scalar>) {
        let s = shape as usize;
        // A shape without global constants (most) keeps no values to compare.
        // The shape's previous values become this call's in the same pass that compares them.
        let changed = globals > 0 && {
            let last = &mut self.last[s];
            let (mut n, mut differ) = (0, false);
            for b in values.map(scalar_bits) {
                match last.get_mut(n) {
                    Some(v) => {
                        differ |= *v != b;
                        *v = b;
                    }
                    None => {
                        differ = true;
                        last.push(b);
                    }
                }
                n += 1;
            }
            differ |= n != last.len();
            last.truncate(n);
            differ
        };
        self.push_values_record(s, changed);
    }

    /// Records a call of the shape `known` recorded, its location's previous call having
    /// that shape, whose constants (the first of `values`, moved past them) differ from
    /// those its shape's previous call passed ([`CallLog::passes_as_before`]): as
    /// [`CallLog::record_globals`] records it.
    #[inline]
    pub(crate) fn record_changed(&mut self, known: Recorded, values: &mut &[Scalar]) {
        let (mine, rest) = values.split_at((known.globals as usize).min(values.len()));
        *values = rest;
        let s = known.shape as usize;
        let last = &mut self.last[s];
        match last.len() == mine.len() {
            true => last
                .iter_mut()
                .zip(mine)
                .for_each(|(l, &v)| *l = scalar_bits(v)),
            false => {
                last.clear();
                last.extend(mine.iter().map(|&v| scalar_bits(v)));
            }
        }
        self.push_values_record(s, true);
    }

    /// The record of a call of shape `s`, with the shape's values kept if they `changed`.
    #[inline(always)]
    fn push_values_record(&mut self, s: usize, changed: bool) {
        push_varint(&mut self.records, ((s as u64) << 1) | u64::from(changed));
        if changed {
            for b in &self.last[s] {
                self.records.extend_from_slice(&b.to_le_bytes());
            }
        }
        self.loops += 1;
    }

    /// Checks the next logged call against `call`, moving `rd` past it only if they agree.
    pub(crate) fn check(&self, rd: &mut Reader, call: &Call<'_>) -> Result<(), Difference> {
        if rd.pos >= self.records.len() {
            return Err(Difference::Ended);
        }
        let mut pos = rd.pos;
        let v = read_varint(&self.records, &mut pos).ok_or(Difference::Damaged)?;
        let s = (v >> 1) as usize;
        let shape = self.shapes.get(s).ok_or(Difference::Damaged)?;
        let n = shape.globals();
        let mut fresh = Vec::new();
        if v & 1 == 1 {
            for _ in 0..n {
                let b = self.records.get(pos..pos + 8).ok_or(Difference::Damaged)?;
                fresh.push(u64::from_le_bytes(b.try_into().expect("8 bytes")));
                pos += 8;
            }
        }
        if !shape.matches(call) {
            return Err(first_difference(shape, call));
        }
        if rd.last.len() < self.shapes.len() {
            rd.last.resize(self.shapes.len(), Vec::new());
        }
        let saved = if v & 1 == 1 { &fresh } else { &rd.last[s] };
        if saved.len() != n {
            return Err(Difference::Damaged);
        }
        let mut g = 0;
        for k in 0..call.nargs() {
            if let ArgView::Global(now) = call.arg(k) {
                if saved[g] != scalar_bits(now) {
                    return Err(Difference::Global(k, type_code(now.elem_type()), saved[g]));
                }
                g += 1;
            }
        }
        if v & 1 == 1 {
            rd.last[s] = fresh;
        }
        rd.pos = pos;
        Ok(())
    }

    /// Says how `call` (the run's loop `index`) differs from the checkpointed run's, naming the
    /// saved values with this log's names and the current ones with `ops`.
    pub(crate) fn describe(
        &self,
        d: &Difference,
        index: u64,
        key: &str,
        call: &Call<'_>,
        ops: &Ops,
    ) -> String {
        let mut now_names = Names::default();
        let now_shape = Shape::of(call);
        now_names.learn(&now_shape, ops);
        let what = match d {
            Difference::Ended => {
                "the checkpointed run had run no more loops before its checkpoint".to_string()
            }
            Difference::Damaged => "the checkpoint's call log cannot be read".to_string(),
            Difference::Name(saved) => format!("the checkpointed run called `{saved}` there"),
            Difference::Kernel(saved) => {
                format!("its kernel is `{}` now, `{saved}` then", call.kernel)
            }
            Difference::Block(saved) => format!(
                "it runs over block `{}` now, `{}` then",
                now_names
                    .blocks
                    .get(&call.block)
                    .map_or("?", String::as_str),
                self.names.blocks.get(saved).map_or("?", String::as_str)
            ),
            Difference::Range(lo, hi) => format!(
                "its range is {} now, {} then",
                show_range(&now_shape.lo, &now_shape.hi),
                show_range(lo, hi)
            ),
            Difference::Arity(saved) => format!(
                "it has {} argument(s) now, {saved} then",
                now_shape.args.len()
            ),
            Difference::Arg(k, ArgShapeSaved(saved)) => format!(
                "argument {k} is {} now, {} then",
                now_names.show(&now_shape.args[*k]),
                self.names.show(saved)
            ),
            Difference::Global(k, ty, bits) => {
                let now = match call.arg(*k) {
                    ArgView::Global(s) => show_bits(*ty, scalar_bits(s)),
                    _ => "?".into(),
                };
                format!(
                    "global constant argument {k} is {now} now, {} then",
                    show_bits(*ty, *bits)
                )
            }
        };
        format!(
            "loop {index} (`{key}`) is not the call the checkpointed run made: {what}. The \
             program or its input (deck, parameters, code) changed since the checkpoint was \
             taken; continuing would mix two computations. Restore the input the checkpoint was \
             taken with to continue that run, or start afresh (without --ops-restart, or with \
             another --ops-checkpoint-dir)"
        )
    }
}

fn show_range(lo: &[i32], hi: &[i32]) -> String {
    let parts: Vec<String> = lo
        .iter()
        .zip(hi)
        .map(|(l, h)| format!("{l}..{h}"))
        .collect();
    format!("[{}]", parts.join(", "))
}

fn first_difference(shape: &Shape, call: &Call<'_>) -> Difference {
    if shape.name != call.name {
        return Difference::Name(shape.name.clone());
    }
    if shape.kernel != call.kernel {
        return Difference::Kernel(shape.kernel.clone());
    }
    if shape.block != call.block {
        return Difference::Block(shape.block);
    }
    if !call.same_range(&shape.lo, &shape.hi) {
        return Difference::Range(shape.lo.clone(), shape.hi.clone());
    }
    if shape.args.len() != call.nargs() {
        return Difference::Arity(shape.args.len());
    }
    let k = (0..call.nargs())
        .find(|&k| ArgShape::of(call.arg(k)) != shape.args[k])
        .unwrap_or(0);
    Difference::Arg(k, ArgShapeSaved(shape.args[k].clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ops_backends::prelude::*;

    #[kernel]
    fn scale(a: Read<f64>, b: Write<f64>, k: Global<f64>) {
        b[(0, 0)] = k * a[(0, 0)];
    }

    struct World {
        ops: Ops,
        grid: Block,
        a: Dat<f64>,
        b: Dat<f64>,
        pt: Stencil,
    }

    fn world() -> World {
        let mut ops = ops_from_config(OpsConfig::new(BackendKind::Seq)).unwrap();
        let grid = ops.block("grid", 2).unwrap();
        let a = ops.dat::<f64, 2>(&grid, "a", [4, 4], Halo::none()).unwrap();
        let b = ops.dat::<f64, 2>(&grid, "b", [4, 4], Halo::none()).unwrap();
        let pt = ops.stencil("pt", &[[0, 0]]).unwrap();
        World {
            ops,
            grid,
            a,
            b,
            pt,
        }
    }

    /// Runs `f` with the call of `scale` reading `src` with constant `k`.
    fn with_call<R>(w: &World, src: &Dat<f64>, k: f64, f: impl FnOnce(&Call<'_>) -> R) -> R {
        let args = [src.arg(&w.pt, Read), w.b.arg(&w.pt, Write), Arg::global(k)];
        let call = LoopCall {
            name: "scale",
            kernel: "scale",
            block: w.grid.id(),
            range: IterRange::from([0..4, 0..4]),
            args: &args,
            location: std::panic::Location::caller(),
        };
        f(&Call::raw(&call))
    }

    #[test]
    fn records_are_small_and_read_back_in_step() {
        let w = world();
        let mut log = CallLog::default();
        let ks = [0.5, 0.5, 0.5, 0.25, 0.25];
        for k in ks {
            with_call(&w, &w.a, k, |c| log.record(0, c, &w.ops));
        }
        assert_eq!(log.loops(), 5);
        // A shape number with the value (9 bytes) when the constant changed, else one byte.
        assert_eq!(log.record_bytes(), 9 + 1 + 1 + 9 + 1);
        let mut rd = Reader::default();
        for k in ks {
            with_call(&w, &w.a, k, |c| log.check(&mut rd, c)).unwrap();
        }
        assert_eq!(
            with_call(&w, &w.a, 0.25, |c| log.check(&mut rd, c)),
            Err(Difference::Ended)
        );
    }

    #[test]
    fn the_first_difference_is_named_with_the_values_then_and_now() {
        let w = world();
        let mut log = CallLog::default();
        for k in [0.5, 0.25] {
            with_call(&w, &w.a, k, |c| log.record(0, c, &w.ops));
        }
        let mut rd = Reader::default();
        with_call(&w, &w.a, 0.5, |c| log.check(&mut rd, c)).unwrap();
        // Another constant: the reader stays where it was, so the same call can be described.
        let msg = with_call(&w, &w.a, 0.75, |c| {
            let d = log.check(&mut rd, c).unwrap_err();
            assert_eq!(d, Difference::Global(2, 0, 0.25f64.to_bits()));
            log.describe(&d, 1, "scale@x.rs:1:1", c, &w.ops)
        });
        assert!(
            msg.contains("loop 1 (`scale@x.rs:1:1`)")
                && msg.contains("global constant argument 2 is 7.5e-1 now, 2.5e-1 then"),
            "{msg}"
        );
        // Another dataset.
        let msg = with_call(&w, &w.b, 0.25, |c| {
            let d = log.check(&mut rd, c).unwrap_err();
            log.describe(&d, 1, "scale@x.rs:1:1", c, &w.ops)
        });
        assert!(
            msg.contains(
                "argument 0 is dataset `b` through stencil `pt` (Read) now, dataset `a` through \
                 stencil `pt` (Read) then"
            ),
            "{msg}"
        );
        // The logged call still passes.
        with_call(&w, &w.a, 0.25, |c| log.check(&mut rd, c)).unwrap();
    }

    /// Records every validated loop's call at location 0 (one call site) in a shared log.
    struct Recorder(std::sync::Arc<std::sync::Mutex<(CallLog, Vec<bool>)>>);

    impl ops_core::LoopObserver for Recorder {
        fn before_loop(
            &mut self,
            rt: &mut ops_core::Runtime<'_>,
            plan: &LoopPlan<'_>,
        ) -> ops_core::LoopAction {
            let mut g = self.0.lock().unwrap();
            let same = g.0.record(0, &Call::plan(plan), rt);
            g.1.push(same);
            ops_core::LoopAction::Run
        }
    }

    /// Validated calls are compared packed: a call that passes other datasets, a smaller range
    /// or another constant at the same location is another record (a replay of the raw calls
    /// checks each against its own), and only a repeat of the location's previous shape says
    /// "same". Comparing the packed arguments or the range's upper bounds no more fails this.
    #[test]
    fn validated_calls_are_told_apart_by_every_part_of_their_shape() {
        let mut w = world();
        let shared = std::sync::Arc::new(std::sync::Mutex::new((CallLog::default(), Vec::new())));
        w.ops
            .set_observer(Some(Box::new(Recorder(std::sync::Arc::clone(&shared)))));
        let (a, b, pt) = (w.a, w.b, w.pt);
        // (source, constant, range end) per call, all at one call site.
        let calls = [
            (&a, 0.5, 4),
            (&a, 0.5, 4),
            (&b, 0.5, 4),
            (&b, 0.5, 4),
            (&a, 0.5, 3),
            (&a, 0.25, 3),
            (&a, 0.5, 4),
        ];
        for (src, k, n) in calls {
            let dst = if std::ptr::eq(src, &b) { &a } else { &b };
            w.ops
                .par_loop(
                    scale,
                    "scale",
                    &w.grid,
                    [0..n, 0..4],
                    &[src.arg(&pt, Read), dst.arg(&pt, Write), Arg::global(k)],
                )
                .unwrap();
        }
        let (log, same) = std::mem::take(&mut *shared.lock().unwrap());
        assert_eq!(same, [false, true, false, true, false, true, false]);
        let mut rd = Reader::default();
        for (i, (src, k, n)) in calls.into_iter().enumerate() {
            let dst = if std::ptr::eq(src, &b) { &a } else { &b };
            let args = [src.arg(&pt, Read), dst.arg(&pt, Write), Arg::global(k)];
            let call = LoopCall {
                name: "scale",
                kernel: "scale",
                block: w.grid.id(),
                range: IterRange::from([0..n, 0..4]),
                args: &args,
                location: std::panic::Location::caller(),
            };
            // The next logged call is this one and no other of the sequence.
            for (j, (src2, k2, n2)) in calls.into_iter().enumerate() {
                if (std::ptr::eq(src2, src), k2, n2) == (true, k, n) {
                    continue;
                }
                let dst2 = if std::ptr::eq(src2, &b) { &a } else { &b };
                let args2 = [src2.arg(&pt, Read), dst2.arg(&pt, Write), Arg::global(k2)];
                let other = LoopCall {
                    args: &args2,
                    range: IterRange::from([0..n2, 0..4]),
                    ..call
                };
                assert!(
                    log.check(&mut rd.clone(), &Call::raw(&other)).is_err(),
                    "call {i} matched call {j}"
                );
            }
            log.check(&mut rd, &Call::raw(&call)).unwrap();
        }
    }

    #[test]
    fn a_damaged_log_is_a_difference_not_a_panic() {
        let w = world();
        let mut log = CallLog::default();
        with_call(&w, &w.a, 0.5, |c| log.record(0, c, &w.ops));
        for cut in 0..log.records.len() {
            let mut short = log.clone();
            short.records.truncate(cut);
            let r = with_call(&w, &w.a, 0.5, |c| short.check(&mut Reader::default(), c));
            assert!(
                matches!(r, Err(Difference::Ended | Difference::Damaged)),
                "{r:?}"
            );
        }
        let mut bad = log.clone();
        bad.records[0] = 0x7e; // shape 63: there is no such shape
        let r = with_call(&w, &w.a, 0.5, |c| bad.check(&mut Reader::default(), c));
        assert_eq!(r, Err(Difference::Damaged));
    }
}
