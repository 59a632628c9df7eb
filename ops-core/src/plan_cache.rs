//! Validated loops remembered by call site.
//!
//! A time loop calls the same `par_loop`s with the same arguments step after step. Validation
//! (every dataset against its stencil, range and kernel parameter) then finds what it found the
//! step before, so a call whose *shape* was validated before reuses that plan: the same call
//! site, loop name, kernel, block, range and arguments (datasets, stencils, access modes,
//! reductions, global constants' types; the constants' values may differ and are copied into
//! the plan). Each shape gets a number, [`LoopPlan::shape`], that observers may key on: two
//! calls with the same number have the same shape, so one comparison recognises a repeated
//! call. Numbers are never reused within a runtime.
//!
//! What validation reads besides the call never changes once declared (blocks, stencils and
//! reductions are only added), except a dataset that is freed: freeing forgets the plans that
//! pass it, so a loop passing a freed dataset is validated again and refused.

use crate::backend::{ArgPlan, LoopPlan};
use crate::handles::{Arg, ArgKind, Block, DatId, IterRange};
use crate::kernel::Kernel;

/// Shapes remembered at most (beyond, the cache starts afresh: a program whose ranges change
/// call after call gains nothing from it).
const MAX_SHAPES: usize = 4096;
/// Shapes remembered per call site and loop name (a loop whose range or datasets change call
/// after call; beyond, the least recently used is forgotten). A site that runs one helper for
/// many fields and faces names each call apart, and each name has its own shapes.
const MAX_PER_NAME: usize = 64;

/// The plans of the loop shapes called so far (see the module docs).
#[derive(Default)]
pub(crate) struct PlanCache {
    /// Buckets of shape slots, by a hash of the call site and the loop name (a power of two
    /// of them).
    buckets: Vec<Vec<u32>>,
    /// The shapes, by slot.
    shapes: Vec<Shape>,
    /// The number of the shape in slot 0 (numbers go on growing when the cache starts afresh).
    first: u32,
}

/// A validated call's shape and its plan.
struct Shape {
    site: usize,
    name: Box<str>,
    kernel: (usize, usize),
    params: (usize, usize),
    block: Block,
    /// The range as called (validation normalises the plan's).
    range: IterRange,
    args: Vec<ArgKind>,
    plan: LoopPlan<'static>,
    /// Dropped from its bucket (its site and name had [`MAX_PER_NAME`] newer shapes, or a
    /// dataset it passes was freed).
    evicted: bool,
}

/// A kernel's identity: its name's and its parameter list's addresses (both static; the same
/// addresses are the same name and parameters, which is all validation reads of a kernel).
type KernelKey = ((usize, usize), (usize, usize));

fn kernel_key(kernel: &dyn Kernel) -> KernelKey {
    let (n, p) = (kernel.name(), kernel.params());
    (
        (n.as_ptr() as usize, n.len()),
        (p.as_ptr() as usize, p.len()),
    )
}

/// Arguments alike for validation: global constants of one type match whatever their values.
#[inline]
fn same_arg(a: &ArgKind, b: &ArgKind) -> bool {
    match (a, b) {
        (ArgKind::Global(x), ArgKind::Global(y)) => x.elem_type() == y.elem_type(),
        _ => a == b,
    }
}

impl Shape {
    #[inline]
    fn matches(
        &self,
        name: &str,
        (kernel, params): KernelKey,
        block: &Block,
        range: &IterRange,
        args: &[Arg],
    ) -> bool {
        self.block == *block
            && self.range == *range
            && self.kernel == kernel
            && self.params == params
            && *self.name == *name
            && self.args.len() == args.len()
            && self
                .args
                .iter()
                .zip(args)
                .all(|(a, b)| same_arg(a, &b.kind))
    }
}

impl PlanCache {
    /// The bucket of call site `site` and loop name `name`.
    #[inline]
    fn bucket(&self, site: usize, name: &str) -> usize {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
        let b = name.as_bytes();
        let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
        // Every byte of the name: a helper's names per field and face differ anywhere.
        let mut h = mix((site as u64).wrapping_mul(K), b.len() as u64);
        if b.len() >= 8 {
            for w in b.chunks_exact(8) {
                h = mix(h, word(w));
            }
            // The last eight bytes (overlapping the last whole word when the length is not a
            // multiple of eight).
            h = mix(h, word(&b[b.len() - 8..]));
        } else {
            h = mix(h, b.iter().rev().fold(0u64, |t, &c| t << 8 | u64::from(c)));
        }
        (h >> 32) as usize & (self.buckets.len() - 1)
    }

    /// The plan of a call whose shape was validated before, with this call's name and global
    /// constants' values, or `None`.
    #[inline]
    pub(crate) fn plan<'a>(
        &mut self,
        site: &'static std::panic::Location<'static>,
        name: &'a str,
        kernel: &dyn Kernel,
        block: &Block,
        range: &IterRange,
        args: &[Arg],
    ) -> Option<LoopPlan<'a>> {
        if self.buckets.is_empty() {
            return None;
        }
        let site = site as *const _ as usize;
        let key = kernel_key(kernel);
        let b = self.bucket(site, name);
        let bucket = &mut self.buckets[b];
        let pos = bucket.iter().position(|&s| {
            let sh = &self.shapes[s as usize];
            sh.site == site && sh.matches(name, key, block, range, args)
        })?;
        if pos > 0 {
            // The most recently used first: a site's steady call is found at once.
            bucket[..=pos].rotate_right(1);
        }
        let slot = bucket[0] as usize;
        let sh = &self.shapes[slot];
        let mut plan = LoopPlan { name, ..sh.plan };
        for (k, a) in args.iter().enumerate() {
            if let ArgKind::Global(v) = a.kind {
                plan.args[k] = ArgPlan::Global(v);
            }
        }
        plan.shape = self.number(slot as u32);
        Some(plan)
    }

    /// Remembers a validated `plan` of a call at `site` with `kernel`, `range` and `args`, and
    /// numbers its shape.
    pub(crate) fn insert(
        &mut self,
        site: &'static std::panic::Location<'static>,
        kernel: &dyn Kernel,
        block: &Block,
        range: &IterRange,
        args: &[Arg],
        plan: &mut LoopPlan<'_>,
    ) {
        if self.shapes.len() >= MAX_SHAPES {
            self.forget();
        }
        let want = (2 * (self.shapes.len() + 1)).next_power_of_two().max(256);
        if self.buckets.len() < want {
            self.rehash(want);
        }
        let site = site as *const _ as usize;
        let (k, p) = kernel_key(kernel);
        let slot = self.shapes.len() as u32;
        self.shapes.push(Shape {
            site,
            name: plan.name.into(),
            kernel: k,
            params: p,
            block: *block,
            range: *range,
            args: args.iter().map(|a| a.kind).collect(),
            plan: LoopPlan {
                name: "",
                shape: None,
                ..*plan
            },
            evicted: false,
        });
        let b = self.bucket(site, plan.name);
        let bucket = &mut self.buckets[b];
        bucket.insert(0, slot);
        let name = plan.name;
        let mine = bucket
            .iter()
            .enumerate()
            .filter(|(_, &s)| {
                let sh = &self.shapes[s as usize];
                sh.site == site && *sh.name == *name
            })
            .map(|(i, _)| i)
            .nth(MAX_PER_NAME);
        if let Some(i) = mine {
            // Its slot stays, unreachable, until the cache starts afresh.
            let evicted = bucket.remove(i);
            self.shapes[evicted as usize].evicted = true;
        }
        plan.shape = self.number(slot);
    }

    /// The number of the shape in `slot`; `None` once numbers ran out (never, in practice:
    /// four billion shapes), so that none is given twice.
    fn number(&self, slot: u32) -> Option<u32> {
        self.first.checked_add(slot).filter(|&n| n != u32::MAX)
    }

    /// Forgets every plan (the cache is full); numbers given so far are not given again.
    fn forget(&mut self) {
        self.first = self.first.saturating_add(self.shapes.len() as u32);
        self.shapes.clear();
        self.buckets.clear();
    }

    /// Forgets the plans that pass dataset `dat` (freed).
    pub(crate) fn forget_dat(&mut self, dat: DatId) {
        let passes = |sh: &Shape| {
            sh.args
                .iter()
                .any(|a| matches!(a, ArgKind::Dat { dat: d, .. } if *d == dat))
        };
        for bucket in &mut self.buckets {
            bucket.retain(|&s| {
                let sh = &mut self.shapes[s as usize];
                sh.evicted |= passes(sh);
                !sh.evicted
            });
        }
    }

    fn rehash(&mut self, n: usize) {
        self.buckets = vec![Vec::new(); n];
        for s in 0..self.shapes.len() {
            if !self.shapes[s].evicted {
                let b = self.bucket(self.shapes[s].site, &self.shapes[s].name);
                self.buckets[b].push(s as u32);
            }
        }
    }
}
