//! Lowering the IR to a WGSL compute shader.
//!
//! The shader uses the bindings and helper functions of `shaders/prelude.wgsl` (prepended by
//! `ops_core::kernel::full_wgsl`): binding 0 is the loop description (`OpsLoop`: range, per-argument
//! layouts, global constants); dataset parameter `p` is `d_p` at binding `1 + p`; reduction
//! parameter `p` writes one partial per workgroup to `r_p` at binding `1 + p`, combined in a fixed
//! tree inside the workgroup. One invocation computes one point.

use crate::ir::*;
use std::cell::Cell;
use std::fmt::Write;

/// Workgroup size of every generated kernel (also the reduction tree's width).
pub const WORKGROUP: u32 = 64;

pub fn kernel(k: &Kernel) -> Result<String, String> {
    let l = Lower {
        k,
        what: "kernel",
        temps: Cell::new(0),
    };
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "// kernel {}", k.name);
    for (p, param) in k.params.iter().enumerate() {
        let ty = param.ty.wgsl();
        let b = p + 1;
        match param.kind {
            ParamKind::Dat(Access::Read) => {
                let _ = writeln!(
                    w,
                    "@group(0) @binding({b}) var<storage, read> d_{p}: array<{ty}>;"
                );
            }
            ParamKind::Dat(_) => {
                let _ = writeln!(
                    w,
                    "@group(0) @binding({b}) var<storage, read_write> d_{p}: array<{ty}>;"
                );
            }
            ParamKind::Reduce(_) => {
                let _ = writeln!(
                    w,
                    "@group(0) @binding({b}) var<storage, read_write> r_{p}: array<{ty}>;"
                );
                let _ = writeln!(w, "var<workgroup> w_{p}: array<{ty}, {WORKGROUP}>;");
            }
            ParamKind::Global | ParamKind::Idx => {}
        }
    }
    let _ = writeln!(
        w,
        "@compute @workgroup_size({WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let ops_pt = ops_iteration_point(gid, lid, wid, nwg);"
    );
    for (p, param) in k.params.iter().enumerate() {
        if let ParamKind::Reduce(op) = param.kind {
            let _ = writeln!(
                w,
                "    var acc_{p}: {} = {};",
                param.ty.wgsl(),
                identity(op, p, param.ty)
            );
        }
    }
    let _ = writeln!(
        w,
        "    if (ops_pt.w != 0) {{
        let ops_x = ops_pt.x;
        let ops_y = ops_pt.y;
        let ops_z = ops_pt.z;"
    );
    for (p, param) in k.params.iter().enumerate() {
        if param.is_dat() && !param.offsets.is_empty() {
            // The argument's layout is read once; offsets add only their non-zero terms.
            let _ = writeln!(
                w,
                "        let ops_d{p} = ops_loop.dats[{p}];
        let p_{p} = ops_d{p}.origin + ops_x * ops_d{p}.i0 + ops_y * ops_d{p}.i1 + ops_z * ops_d{p}.i2;"
            );
            for (s, o) in param.offsets.iter().enumerate() {
                let mut e = format!("p_{p}");
                for (d, &v) in o.iter().enumerate() {
                    match v {
                        0 => {}
                        1 => e.push_str(&format!(" + ops_d{p}.m{d}")),
                        -1 => e.push_str(&format!(" - ops_d{p}.m{d}")),
                        v => e.push_str(&format!(" + ({v}) * ops_d{p}.m{d}")),
                    }
                }
                let _ = writeln!(w, "        let o_{p}_{s} = {e};");
            }
        }
    }
    l.stmts(&k.body, 2, w)?;
    let _ = writeln!(w, "    }}");
    for (p, param) in k.params.iter().enumerate() {
        if let ParamKind::Reduce(op) = param.kind {
            let combine = match op {
                ReduceOp::Sum => format!("w_{p}[lid] + w_{p}[lid + s]"),
                ReduceOp::Min => {
                    format!("select(w_{p}[lid], w_{p}[lid + s], w_{p}[lid + s] < w_{p}[lid])")
                }
                ReduceOp::Max => {
                    format!("select(w_{p}[lid], w_{p}[lid + s], w_{p}[lid + s] > w_{p}[lid])")
                }
            };
            let _ = writeln!(
                w,
                "    w_{p}[lid] = acc_{p};
    workgroupBarrier();
    for (var s = {half}u; s > 0u; s = s >> 1u) {{
        if (lid < s) {{ w_{p}[lid] = {combine}; }}
        workgroupBarrier();
    }}
    if (lid == 0u) {{ r_{p}[ops_workgroup_index(wid, nwg)] = w_{p}[0]; }}",
                half = WORKGROUP / 2
            );
        }
    }
    let _ = writeln!(w, "}}");
    Ok(out)
}

/// The starting value of reduction parameter `p`: the runtime writes the operation's identity
/// into the loop description's global slot of the parameter (`gf[p]` or `gi[p]`), because WGSL
/// cannot spell the infinities that are the identities of float `Min`/`Max`.
fn identity(op: ReduceOp, p: usize, t: Ty) -> String {
    match (op, t) {
        (ReduceOp::Sum, t) => literal_zero(t),
        (_, Ty::F64) => format!("ops_loop.gf[{p}]"),
        (_, Ty::F32) => format!("f32(ops_loop.gf[{p}])"),
        _ => format!("ops_loop.gi[{p}]"),
    }
}

fn literal_zero(t: Ty) -> String {
    match t {
        Ty::F64 => "0.0lf".into(),
        Ty::F32 => "0.0f".into(),
        Ty::U32 => "0u".into(),
        _ => "0i".into(),
    }
}

/// The WGSL function of a `#[kernel_fn]` (named [`KernelFn::wgsl_name`]), or why it has none.
pub fn function(f: &KernelFn) -> Result<String, String> {
    // The lowering reads callees (and the name, for errors) from a kernel; a function has no
    // parameters of a kernel's kinds.
    let shell = Kernel {
        name: f.name.clone(),
        params: Vec::new(),
        body: Vec::new(),
        callees: f.callees.clone(),
        helpers: Ok(Vec::new()),
    };
    let l = Lower {
        k: &shell,
        what: "kernel function",
        temps: Cell::new(0),
    };
    let mut out = String::new();
    let w = &mut out;
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let prefix = if p.mutable { "p" } else { "l" };
            format!("{prefix}_{}: {}", p.unique, p.ty.wgsl())
        })
        .collect();
    let _ = writeln!(w, "// kernel function {}", f.name);
    let _ = writeln!(
        w,
        "fn {}({}) -> {} {{",
        f.wgsl_name,
        params.join(", "),
        f.ret.wgsl()
    );
    for p in f.params.iter().filter(|p| p.mutable) {
        let _ = writeln!(w, "    var l_{u}: {} = p_{u};", p.ty.wgsl(), u = p.unique);
    }
    l.stmts(&f.body, 1, w)?;
    if let Some(v) = &f.value {
        let v = l.expr(v, 1, w)?;
        let _ = writeln!(w, "    return {v};");
    }
    let _ = writeln!(w, "}}");
    Ok(out)
}

struct Lower<'a> {
    k: &'a Kernel,
    /// "kernel" or "kernel function", for the reason a body has no WGSL form.
    what: &'static str,
    temps: Cell<usize>,
}

fn indent(depth: usize) -> String {
    "    ".repeat(depth)
}

impl Lower<'_> {
    fn stmts(&self, stmts: &[Stmt], depth: usize, w: &mut String) -> Result<(), String> {
        for s in stmts {
            self.stmt(s, depth, w)?;
        }
        Ok(())
    }

    fn stmt(&self, s: &Stmt, depth: usize, w: &mut String) -> Result<(), String> {
        let ind = indent(depth);
        match s {
            Stmt::Let { name, ty, init } => match init {
                Some(e) => {
                    let v = self.expr(e, depth, w)?;
                    let _ = writeln!(w, "{ind}var l_{name}: {} = {v};", ty.wgsl());
                }
                None => {
                    let _ = writeln!(w, "{ind}var l_{name}: {};", ty.wgsl());
                }
            },
            Stmt::AssignLocal { name, op, value } => {
                let v = self.expr(value, depth, w)?;
                let rhs = match op {
                    None => v,
                    Some(op) => binop(*op, &format!("l_{name}"), &v),
                };
                let _ = writeln!(w, "{ind}l_{name} = {rhs};");
            }
            Stmt::Store { point, op, value } => {
                let v = self.expr(value, depth, w)?;
                let place = self.element(point);
                let rhs = match op {
                    None => v,
                    Some(op) => binop(*op, &place, &v),
                };
                let _ = writeln!(w, "{ind}{place} = {rhs};");
            }
            Stmt::Reduce { param, value } => {
                let v = self.expr(value, depth, w)?;
                let acc = format!("acc_{param}");
                let line = match self.k.params[*param].kind {
                    ParamKind::Reduce(ReduceOp::Sum) => format!("{acc} = {acc} + ({v});"),
                    ParamKind::Reduce(ReduceOp::Min) => {
                        format!("{{ let v = {v}; if (v < {acc}) {{ {acc} = v; }} }}")
                    }
                    ParamKind::Reduce(ReduceOp::Max) => {
                        format!("{{ let v = {v}; if (v > {acc}) {{ {acc} = v; }} }}")
                    }
                    _ => unreachable!("checked by the parser"),
                };
                let _ = writeln!(w, "{ind}{line}");
            }
            Stmt::If { cond, then, els } => {
                let c = self.expr(cond, depth, w)?;
                let _ = writeln!(w, "{ind}if ({c}) {{");
                self.stmts(then, depth + 1, w)?;
                if els.is_empty() {
                    let _ = writeln!(w, "{ind}}}");
                } else {
                    let _ = writeln!(w, "{ind}}} else {{");
                    self.stmts(els, depth + 1, w)?;
                    let _ = writeln!(w, "{ind}}}");
                }
            }
            Stmt::For { var, lo, hi, body } => {
                let _ = writeln!(
                    w,
                    "{ind}for (var l_{var}: i32 = {lo}i; l_{var} < {hi}i; l_{var} = l_{var} + 1i) {{"
                );
                self.stmts(body, depth + 1, w)?;
                let _ = writeln!(w, "{ind}}}");
            }
            Stmt::LetArray {
                name,
                elem,
                len,
                init,
            } => {
                let items = match init {
                    ArrayInit::List(v) => {
                        let mut out = Vec::new();
                        for e in v {
                            out.push(self.expr(e, depth, w)?);
                        }
                        out
                    }
                    ArrayInit::Repeat(v, n) => {
                        let v = self.expr(v, depth, w)?;
                        let v = if matches!(
                            init,
                            ArrayInit::Repeat(Expr::Float(..) | Expr::Int(..), _)
                        ) {
                            v
                        } else {
                            let t = self.temp();
                            let _ = writeln!(w, "{ind}let {t} = {v};");
                            t
                        };
                        vec![v; *n]
                    }
                };
                let ty = format!("array<{}, {len}>", elem.wgsl());
                let _ = writeln!(w, "{ind}var l_{name}: {ty} = {ty}({});", items.join(", "));
            }
            Stmt::AssignArray {
                name,
                index,
                op,
                value,
            } => {
                let i = self.expr(index, depth, w)?;
                let v = self.expr(value, depth, w)?;
                let place = format!("l_{name}[{i}]");
                let rhs = match op {
                    None => v,
                    Some(op) => binop(*op, &place, &v),
                };
                let _ = writeln!(w, "{ind}{place} = {rhs};");
            }
            Stmt::Match {
                scrutinee,
                arms,
                default,
            } => {
                let s = self.expr(scrutinee, depth, w)?;
                let t = self.temp();
                let _ = writeln!(w, "{ind}let {t} = {s};");
                let mut first = true;
                for arm in arms {
                    let c = patterns(&t, &arm.patterns, scrutinee.ty());
                    let head = if first { "" } else { "} else " };
                    first = false;
                    let _ = writeln!(w, "{ind}{head}if ({c}) {{");
                    self.stmts(&arm.body, depth + 1, w)?;
                }
                if first {
                    self.stmts(default, depth, w)?;
                } else {
                    let _ = writeln!(w, "{ind}}} else {{");
                    self.stmts(default, depth + 1, w)?;
                    let _ = writeln!(w, "{ind}}}");
                }
            }
            Stmt::Return(v) => {
                let v = self.expr(v, depth, w)?;
                let _ = writeln!(w, "{ind}return {v};");
            }
        }
        Ok(())
    }

    /// A fresh temporary name.
    fn temp(&self) -> String {
        let n = self.temps.get();
        self.temps.set(n + 1);
        format!("ops_t{n}")
    }

    fn element(&self, point: &Point) -> String {
        let p = point.param;
        let comp = match &point.comp {
            Comp::Lit(0) => String::new(),
            Comp::Lit(c) => format!(" + {c}i"),
            Comp::Var(v) => format!(" + l_{v}"),
        };
        format!("d_{p}[o_{p}_{}{comp}]", point.slot)
    }

    /// Lowers an expression; statements it needs first (value `if`s) are written to `w`.
    fn expr(&self, e: &Expr, depth: usize, w: &mut String) -> Result<String, String> {
        Ok(match e {
            Expr::Float(v, Ty::F32) => format!("({:?}f)", *v as f32),
            Expr::Float(v, _) => format!("({v:?}lf)"),
            Expr::Int(v, Ty::U32) => format!("{v}u"),
            Expr::Int(v, _) => format!("({v}i)"),
            Expr::Bool(b) => b.to_string(),
            Expr::Local(name, _) => format!("l_{name}"),
            Expr::Load(point, _) => self.element(point),
            Expr::Global(p, t) => match t {
                Ty::F64 => format!("ops_loop.gf[{p}]"),
                Ty::F32 => format!("f32(ops_loop.gf[{p}])"),
                _ => format!("ops_loop.gi[{p}]"),
            },
            Expr::Idx(d) => ["ops_x", "ops_y", "ops_z"][*d].to_string(),
            Expr::Unary(UnOp::Neg, a, _) => format!("(-{})", self.expr(a, depth, w)?),
            Expr::Unary(UnOp::Not, a, _) => format!("(!{})", self.expr(a, depth, w)?),
            Expr::Binary(op, a, b, _) => {
                let a = self.expr(a, depth, w)?;
                let b = self.expr(b, depth, w)?;
                binop(*op, &a, &b)
            }
            Expr::Cast(a, t) => {
                let from = a.ty();
                let inner = self.expr(a, depth, w)?;
                if from == Ty::Bool {
                    format!("select({z}, {o}, {inner})", z = zero(*t), o = one(*t))
                } else {
                    format!("{}({inner})", t.wgsl())
                }
            }
            Expr::Call(f, args, t) => {
                let a = self.expr(&args[0], depth, w)?;
                let b = match args.get(1) {
                    Some(b) => Some(self.expr(b, depth, w)?),
                    None => None,
                };
                let b = b.unwrap_or_default();
                let tn = t.wgsl();
                match f {
                    MathFn::Sqrt | MathFn::Abs | MathFn::Floor | MathFn::Ceil => {
                        format!("{}({a})", f.name())
                    }
                    MathFn::Min | MathFn::Max if t.is_int() => format!("{}({a}, {b})", f.name()),
                    // Fortran MIN/MAX as the CPU code computes them: `b` when it compares
                    // smaller (larger), else `a` (WGSL's min/max leave NaN and ±0 open).
                    MathFn::Min | MathFn::Max => format!("ops_{}_{tn}({a}, {b})", f.name()),
                    MathFn::Signum if t.is_int() => format!("sign({a})"),
                    MathFn::Signum => format!("ops_signum_{tn}({a})"),
                    MathFn::Copysign => format!("ops_copysign_{tn}({a}, {b})"),
                    MathFn::Powi => format!("ops_powi_{tn}({a}, {b})"),
                    MathFn::Powf | MathFn::Exp | MathFn::Ln if *t == Ty::F64 => {
                        return Err(format!(
                            "{} `{}` uses `{}` on f64, which has no WGSL form (WGSL and SPIR-V offer it for f32 only); it runs on the CPU backends",
                            self.what,
                            self.k.name,
                            f.name()
                        ));
                    }
                    MathFn::Powf => format!("pow({a}, {b})"),
                    MathFn::Exp => format!("exp({a})"),
                    MathFn::Ln => format!("log({a})"),
                    MathFn::Clamp => unreachable!("the parser writes clamp as max, then min"),
                    MathFn::MulAdd => {
                        let c = match args.get(2) {
                            Some(c) => self.expr(c, depth, w)?,
                            None => String::new(),
                        };
                        format!("fma({a}, {b}, {c})")
                    }
                }
            }
            Expr::CallFn(callee, args, _) => {
                let mut values = Vec::new();
                for a in args {
                    values.push(self.expr(a, depth, w)?);
                }
                format!(
                    "{}({})",
                    self.k.callees[*callee].wgsl_name,
                    values.join(", ")
                )
            }
            Expr::ArrayGet(name, index, _) => {
                format!("l_{name}[{}]", self.expr(index, depth, w)?)
            }
            Expr::Match(scrutinee, arms, default, t) => {
                let ind = indent(depth);
                let s = self.expr(scrutinee, depth, w)?;
                let sv = self.temp();
                let _ = writeln!(w, "{ind}let {sv} = {s};");
                let tmp = self.temp();
                let _ = writeln!(w, "{ind}var {tmp}: {};", t.wgsl());
                let mut first = true;
                for arm in arms {
                    let c = patterns(&sv, &arm.patterns, scrutinee.ty());
                    let head = if first { "" } else { "} else " };
                    first = false;
                    let _ = writeln!(w, "{ind}{head}if ({c}) {{");
                    self.stmts(&arm.body.lets, depth + 1, w)?;
                    let v = self.expr(&arm.body.value, depth + 1, w)?;
                    let _ = writeln!(w, "{ind}    {tmp} = {v};");
                }
                let d = if first { depth } else { depth + 1 };
                if !first {
                    let _ = writeln!(w, "{ind}}} else {{");
                }
                self.stmts(&default.lets, d, w)?;
                let v = self.expr(&default.value, d, w)?;
                let _ = writeln!(w, "{}{tmp} = {v};", indent(d));
                if !first {
                    let _ = writeln!(w, "{ind}}}");
                }
                tmp
            }
            Expr::If(c, then, els, t) => {
                let n = self.temps.get();
                self.temps.set(n + 1);
                let tmp = format!("ops_t{n}");
                let ind = indent(depth);
                let c = self.expr(c, depth, w)?;
                let _ = writeln!(w, "{ind}var {tmp}: {};", t.wgsl());
                let _ = writeln!(w, "{ind}if ({c}) {{");
                self.stmts(&then.lets, depth + 1, w)?;
                let tv = self.expr(&then.value, depth + 1, w)?;
                let _ = writeln!(w, "{ind}    {tmp} = {tv};");
                let _ = writeln!(w, "{ind}}} else {{");
                self.stmts(&els.lets, depth + 1, w)?;
                let ev = self.expr(&els.value, depth + 1, w)?;
                let _ = writeln!(w, "{ind}    {tmp} = {ev};");
                let _ = writeln!(w, "{ind}}}");
                tmp
            }
        })
    }
}

/// The condition that `value` (a WGSL name) matches one of `patterns`.
fn patterns(value: &str, patterns: &[Pattern], t: Ty) -> String {
    let lit = |v: i64| match t {
        Ty::U32 => format!("{v}u"),
        _ => format!("({v}i)"),
    };
    patterns
        .iter()
        .map(|p| match p {
            Pattern::Int(v) => format!("({value} == {})", lit(*v)),
            Pattern::Range(lo, hi) => {
                format!("({value} >= {} && {value} <= {})", lit(*lo), lit(*hi))
            }
        })
        .collect::<Vec<_>>()
        .join(" || ")
}

fn binop(op: BinOp, a: &str, b: &str) -> String {
    format!("({a} {} {b})", op.symbol())
}

fn zero(t: Ty) -> &'static str {
    match t {
        Ty::U32 => "0u",
        _ => "0i",
    }
}

fn one(t: Ty) -> &'static str {
    match t {
        Ty::U32 => "1u",
        _ => "1i",
    }
}
