//! Typing the expressions of the kernel language.

use super::checker::{Checker, Context, LocalKind};
use super::lit::*;
use crate::builtin;
use crate::ir::*;
use crate::items::{looks_like_const, path_key, ConstValue, ItemSig};
use syn::{Error, Result};

/// The methods the language offers, for error messages.
const METHODS: &str = "sqrt abs min max clamp powi powf exp ln floor ceil signum copysign mul_add";

impl Checker<'_> {
    /// Types an expression; `hint` is the type the context expects (used by untyped literals).
    pub fn expr(&mut self, e: &syn::Expr, hint: Option<Ty>) -> Result<Expr> {
        match e {
            syn::Expr::Lit(l) => literal(&l.lit, hint),
            syn::Expr::Paren(p) => self.expr(&p.expr, hint),
            syn::Expr::Group(g) => self.expr(&g.expr, hint),
            syn::Expr::Path(_) => self.name(e, hint),
            syn::Expr::Index(ix) => self.index(ix),
            syn::Expr::Unary(u) => self.unary(u, hint),
            syn::Expr::Binary(b) => self.binary(b, hint),
            syn::Expr::Cast(c) => {
                let to = scalar_type(&c.ty)?;
                let inner = self.expr(&c.expr, None)?;
                if inner.ty() == Ty::Bool && to != Ty::I32 && to != Ty::U32 {
                    return Err(Error::new_spanned(c, "`bool` casts only to i32 or u32"));
                }
                if to == Ty::Bool {
                    return Err(Error::new_spanned(c, "cannot cast to bool; compare instead"));
                }
                Ok(Expr::Cast(Box::new(inner), to))
            }
            syn::Expr::MethodCall(m) => self.method(m, hint),
            syn::Expr::Call(c) => self.call(c, hint),
            syn::Expr::If(i) => self.if_value(i, hint),
            syn::Expr::Match(m) => self.match_value(m, hint),
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => self.expr(inner, hint),
                _ => Err(Error::new_spanned(b, "expected an expression")),
            },
            syn::Expr::Array(_) | syn::Expr::Repeat(_) => Err(Error::new_spanned(
                e,
                "an array literal can only initialise a `let` or `const`: `let w = [0.25, 0.5, 0.25];`",
            )),
            syn::Expr::Closure(_) => Err(Error::new_spanned(
                e,
                "closures are not supported in a kernel; define a #[kernel_fn] and call it",
            )),
            syn::Expr::Tuple(_) => Err(Error::new_spanned(
                e,
                "tuples are not supported in a kernel; use one local per value",
            )),
            syn::Expr::Reference(_) => Err(Error::new_spanned(
                e,
                "references are not supported in a kernel; kernel values are plain scalars",
            )),
            syn::Expr::Macro(_) => Err(Error::new_spanned(
                e,
                "macros are not allowed inside a kernel",
            )),
            syn::Expr::Field(_) | syn::Expr::Struct(_) => Err(Error::new_spanned(
                e,
                "structs and fields are not supported in a kernel; use scalars, arrays and constants",
            )),
            other => Err(Error::new_spanned(
                other,
                "not supported in a kernel (see docs/kernels.md for the language)",
            )),
        }
    }

    fn name(&mut self, e: &syn::Expr, hint: Option<Ty>) -> Result<Expr> {
        let syn::Expr::Path(p) = e else {
            unreachable!("called on paths")
        };
        if p.qself.is_some() {
            return Err(Error::new_spanned(
                e,
                "qualified paths are not supported in a kernel",
            ));
        }
        let path = &p.path;
        let Some(name) = path.get_ident().map(|i| i.to_string()) else {
            return self.path_constant(path, hint);
        };
        if let Some(l) = self.lookup(&name) {
            return match &l.kind {
                LocalKind::Scalar => Ok(Expr::Local(l.unique.clone(), l.ty)),
                LocalKind::Const(v) => Ok(v.clone()),
                LocalKind::Array(_) => Err(Error::new_spanned(
                    e,
                    format!("`{name}` is an array: use one element, `{name}[0]`"),
                )),
            };
        }
        match self.params.iter().position(|p| p.name == name) {
            Some(p) => match self.params[p].kind {
                ParamKind::Global => Ok(Expr::Global(p, self.params[p].ty)),
                ParamKind::Dat(_) => Err(Error::new_spanned(
                    e,
                    format!("`{name}` is a dataset: read a point with `{name}[(0, 0)]`"),
                )),
                ParamKind::Reduce(_) => Err(Error::new_spanned(
                    e,
                    format!("`{name}` is a reduction: it can only be updated, not read"),
                )),
                ParamKind::Idx => Err(Error::new_spanned(
                    e,
                    format!("`{name}` is the iteration index: use `{name}[0]`, `{name}[1]`, ..."),
                )),
            },
            None if self.item(path).is_some() => self.path_constant(path, hint),
            None if looks_like_const(&name) => Err(Error::new_spanned(
                e,
                format!("unknown name `{name}`: a constant defined outside the kernel needs #[kernel_const] on its definition"),
            )),
            None => Err(Error::new_spanned(e, format!("unknown name `{name}`"))),
        }
    }

    /// A constant named by a path: `std::f64::consts::PI`, `f32::EPSILON`, a `#[kernel_const]`.
    fn path_constant(&mut self, path: &syn::Path, _hint: Option<Ty>) -> Result<Expr> {
        if let Some(v) = builtin::constant(path) {
            return v.map_err(|why| Error::new_spanned(path, why));
        }
        match self.item(path) {
            Some(ItemSig::Const(ConstValue::Scalar(v))) => Ok(v.clone()),
            Some(ItemSig::Const(ConstValue::Array(..))) => Err(Error::new_spanned(
                path,
                "this constant is an array: use one element, `W[0]`",
            )),
            Some(ItemSig::Fn(_)) => Err(Error::new_spanned(
                path,
                "this is a kernel function: call it, `f(..)`",
            )),
            None => Err(Error::new_spanned(
                path,
                "unknown path: kernels know `std::f64::consts::*` (and f32), `f64::EPSILON`-style \
                 constants, and items marked #[kernel_const] or #[kernel_fn]",
            )),
        }
    }

    fn index(&mut self, ix: &syn::ExprIndex) -> Result<Expr> {
        if let Some(name) = path_ident(&ix.expr) {
            if let Some(p) = self.param_index(&name) {
                if self.params[p].kind == ParamKind::Idx {
                    let d = int_literal(&ix.index)
                        .filter(|d| (0..3).contains(d))
                        .ok_or_else(|| {
                            Error::new_spanned(
                                &ix.index,
                                "the index dimension is a literal 0, 1 or 2",
                            )
                        })?;
                    return Ok(Expr::Idx(d as usize));
                }
            }
        }
        if let Some((unique, len, ty, _)) = self.local_array(&ix.expr) {
            let index = self.array_index(&ix.index, len)?;
            return Ok(Expr::ArrayGet(unique, Box::new(index), ty));
        }
        if let syn::Expr::Path(p) = &*ix.expr {
            let local = p.path.get_ident().is_some_and(|i| {
                let n = i.to_string();
                self.lookup(&n).is_some() || self.params.iter().any(|q| q.name == n)
            });
            if !local {
                if let Some(ItemSig::Const(ConstValue::Array(ty, values))) = self.item(&p.path) {
                    let unique = self.item_array(&path_key(&p.path), *ty, values);
                    let index = self.array_index(&ix.index, values.len())?;
                    return Ok(Expr::ArrayGet(unique, Box::new(index), *ty));
                }
            }
        }
        let (point, ty, access) = self.point(ix)?;
        let name = self.params[point.param].name.to_string();
        match access {
            Access::Read => {}
            Access::Write => {
                return Err(Error::new_spanned(
                    ix,
                    format!("`{name}` is Write (write-only) and cannot be read; keep the value in a local or declare it ReadWrite"),
                ))
            }
            Access::Inc => {
                return Err(Error::new_spanned(
                    ix,
                    format!("`{name}` is Inc and cannot be read; declare it ReadWrite"),
                ))
            }
            Access::ReadWrite => {
                if self.params[point.param].offsets[point.slot] != [0, 0, 0] {
                    return Err(Error::new_spanned(
                        ix,
                        format!("`{name}` is ReadWrite: it can only be accessed at the centre point (an in-place update reading neighbours would race); read the neighbours from a Read parameter on another dataset and write the new values into a second one (double buffers swapped by handle)"),
                    ));
                }
            }
        }
        Ok(Expr::Load(point, ty))
    }

    fn unary(&mut self, u: &syn::ExprUnary, hint: Option<Ty>) -> Result<Expr> {
        match u.op {
            syn::UnOp::Neg(_) => {
                let inner = self.expr(&u.expr, hint)?;
                match inner {
                    Expr::Float(v, t) => Ok(Expr::Float(-v, t)),
                    Expr::Int(v, t) if t != Ty::U32 => Ok(Expr::Int(-v, t)),
                    inner => {
                        let t = inner.ty();
                        if !t.is_numeric() || t == Ty::U32 {
                            return Err(Error::new_spanned(
                                u,
                                format!("cannot negate a {}", t.rust()),
                            ));
                        }
                        Ok(Expr::Unary(UnOp::Neg, Box::new(inner), t))
                    }
                }
            }
            syn::UnOp::Not(_) => {
                let inner = self.expr(&u.expr, Some(Ty::Bool))?;
                expect_ty(&u.expr, Ty::Bool, inner.ty())?;
                Ok(Expr::Unary(UnOp::Not, Box::new(inner), Ty::Bool))
            }
            _ => Err(Error::new_spanned(
                u,
                "dereferences are not supported in a kernel",
            )),
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary, hint: Option<Ty>) -> Result<Expr> {
        let op = match b.op {
            syn::BinOp::Add(_) => BinOp::Add,
            syn::BinOp::Sub(_) => BinOp::Sub,
            syn::BinOp::Mul(_) => BinOp::Mul,
            syn::BinOp::Div(_) => BinOp::Div,
            syn::BinOp::Rem(_) => BinOp::Rem,
            syn::BinOp::Eq(_) => BinOp::Eq,
            syn::BinOp::Ne(_) => BinOp::Ne,
            syn::BinOp::Lt(_) => BinOp::Lt,
            syn::BinOp::Le(_) => BinOp::Le,
            syn::BinOp::Gt(_) => BinOp::Gt,
            syn::BinOp::Ge(_) => BinOp::Ge,
            syn::BinOp::And(_) => BinOp::And,
            syn::BinOp::Or(_) => BinOp::Or,
            _ if compound_op(&b.op).is_some() => {
                return Err(Error::new_spanned(b, "`op=` is a statement, not a value"))
            }
            _ => {
                return Err(Error::new_spanned(
                    b.op,
                    "bit operations are not supported in a kernel",
                ))
            }
        };
        if op.is_logic() {
            let l = self.expr(&b.left, Some(Ty::Bool))?;
            expect_ty(&b.left, Ty::Bool, l.ty())?;
            let r = self.expr(&b.right, Some(Ty::Bool))?;
            expect_ty(&b.right, Ty::Bool, r.ty())?;
            return Ok(Expr::Binary(op, Box::new(l), Box::new(r), Ty::Bool));
        }
        let operand_hint = if op.is_comparison() { None } else { hint };
        // An untyped literal on the left takes the right operand's type.
        let (l, r) = if is_untyped_literal(&b.left) && !is_untyped_literal(&b.right) {
            let r = self.expr(&b.right, operand_hint)?;
            let l = self.expr(&b.left, Some(r.ty()))?;
            (l, r)
        } else {
            let l = self.expr(&b.left, operand_hint)?;
            let r = self.expr(&b.right, Some(l.ty()))?;
            (l, r)
        };
        if l.ty() != r.ty() {
            return Err(Error::new_spanned(
                b,
                format!(
                    "mismatched types: {} {} {}; convert one side with `as`",
                    l.ty().rust(),
                    op.symbol(),
                    r.ty().rust()
                ),
            ));
        }
        let t = l.ty();
        let ok = if op.is_comparison() {
            t != Ty::Bool || matches!(op, BinOp::Eq | BinOp::Ne)
        } else {
            t.is_numeric()
        };
        if !ok {
            return Err(Error::new_spanned(
                b,
                format!("`{}` is not defined for {}", op.symbol(), t.rust()),
            ));
        }
        let result = if op.is_comparison() { Ty::Bool } else { t };
        Ok(Expr::Binary(op, Box::new(l), Box::new(r), result))
    }

    fn method(&mut self, m: &syn::ExprMethodCall, hint: Option<Ty>) -> Result<Expr> {
        let name = m.method.to_string();
        let f = MathFn::from_name(&name).ok_or_else(|| {
            let more = if name == "min_by" || name == "total_cmp" {
                "; write the arithmetic out"
            } else {
                ""
            };
            Error::new_spanned(
                &m.method,
                format!("`{name}` is not a kernel method; available: {METHODS}{more}"),
            )
        })?;
        if m.turbofish.is_some() {
            return Err(Error::new_spanned(m, "no turbofish in kernels"));
        }
        if m.args.len() != f.arity() {
            return Err(Error::new_spanned(
                m,
                format!("`{name}` takes {} argument(s)", f.arity()),
            ));
        }
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        self.math(f, &m.receiver, &args, m, hint)
    }

    /// `recv.f(args)`, also written `f64::f(recv, args)`; `ty` fixes the receiver's type.
    fn math(
        &mut self,
        f: MathFn,
        receiver: &syn::Expr,
        args: &[&syn::Expr],
        whole: &dyn quote::ToTokens,
        hint: Option<Ty>,
    ) -> Result<Expr> {
        let name = f.name();
        // An untyped literal receiver (`0.5.max(x)`) takes the type of a typed argument.
        let recv_hint = if is_untyped_literal(receiver) && hint.is_none() {
            match args.iter().find(|a| !is_untyped_literal(a)) {
                Some(a) if f != MathFn::Powi => Some(self.expr(a, None)?.ty()),
                _ => None,
            }
        } else {
            hint
        };
        let recv = self.expr(receiver, recv_hint)?;
        let t = recv.ty();
        if !(t.is_float() || (t.is_int() && f.allows_int())) {
            return Err(Error::new_spanned(
                receiver,
                format!("`{name}` is not defined for {}", t.rust()),
            ));
        }
        if t == Ty::U32 && f == MathFn::Signum {
            return Err(Error::new_spanned(whole, "`signum` is not defined for u32"));
        }
        let mut out = vec![recv];
        for a in args {
            let want = if f == MathFn::Powi { Ty::I32 } else { t };
            let v = self.expr(a, Some(want))?;
            expect_ty(a, want, v.ty())?;
            out.push(v);
        }
        if f == MathFn::Clamp {
            // `x.clamp(lo, hi)` is `x.max(lo).min(hi)` with the language's min and max: no
            // panic when lo > hi or a bound is NaN, unlike Rust's clamp.
            let hi = out.pop().expect("two arguments");
            let max = Expr::Call(MathFn::Max, out, t);
            return Ok(Expr::Call(MathFn::Min, vec![max, hi], t));
        }
        Ok(Expr::Call(f, out, t))
    }

    /// `f(a, b)`: a `#[kernel_fn]`, or math written as `f64::max(a, b)`.
    fn call(&mut self, c: &syn::ExprCall, hint: Option<Ty>) -> Result<Expr> {
        let syn::Expr::Path(p) = &*c.func else {
            return Err(Error::new_spanned(
                &c.func,
                "only kernel functions (#[kernel_fn]) can be called, by name or path",
            ));
        };
        let path = &p.path;
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        if let Some((ty, f)) = builtin::math_path(path) {
            if args.len() != f.arity() + 1 {
                return Err(Error::new_spanned(
                    c,
                    format!(
                        "`{}::{}` takes {} argument(s)",
                        ty.rust(),
                        f.name(),
                        f.arity() + 1
                    ),
                ));
            }
            let e = self.math(f, args[0], &args[1..], c, Some(ty))?;
            expect_ty(args[0], ty, args_ty(&e))?;
            return Ok(e);
        }
        let sig = match self.item(path) {
            Some(ItemSig::Fn(sig)) => sig,
            Some(ItemSig::Const(_)) => {
                return Err(Error::new_spanned(
                    path,
                    "this is a constant, not a function",
                ))
            }
            None => {
                let name = path_key(path);
                let hint_math = MathFn::from_name(&name)
                    .map(|f| format!(": math is written as a method, `x.{}(..)`", f.name()))
                    .unwrap_or_else(|| ": mark its definition #[kernel_fn]".into());
                return Err(Error::new_spanned(
                    path,
                    format!("`{name}` is not a kernel function{hint_math}"),
                ));
            }
        };
        if let Context::Function(me, _) = &self.context {
            if path.is_ident(me) {
                return Err(Error::new_spanned(
                    path,
                    "kernel functions cannot call themselves (WGSL has no recursion)",
                ));
            }
        }
        if args.len() != sig.params.len() {
            return Err(Error::new_spanned(
                c,
                format!(
                    "`{}` takes {} argument(s), {} given",
                    path_key(path),
                    sig.params.len(),
                    args.len()
                ),
            ));
        }
        let mut values = Vec::new();
        for (a, want) in args.iter().zip(&sig.params) {
            let v = self.expr(a, Some(*want))?;
            expect_ty(a, *want, v.ty())?;
            values.push(v);
        }
        let _ = hint;
        let key = path_key(path);
        let index = match self.callees.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.callees.push((
                    key,
                    Callee {
                        path: path.clone(),
                        wgsl_name: sig.wgsl_name.clone(),
                    },
                ));
                self.callees.len() - 1
            }
        };
        Ok(Expr::CallFn(index, values, sig.ret))
    }

    fn if_value(&mut self, i: &syn::ExprIf, hint: Option<Ty>) -> Result<Expr> {
        let cond = self.expr(&i.cond, Some(Ty::Bool))?;
        expect_ty(&i.cond, Ty::Bool, cond.ty())?;
        let Some((_, els)) = &i.else_branch else {
            return Err(Error::new_spanned(
                i,
                "an `if` used as a value needs an `else`",
            ));
        };
        let then = self.value_block(&i.then_branch, hint)?;
        let hint = Some(then.value.ty());
        let els = match &**els {
            syn::Expr::Block(b) => self.value_block(&b.block, hint)?,
            syn::Expr::If(nested) => {
                let value = self.if_value(nested, hint)?;
                ValueBlock {
                    lets: Vec::new(),
                    value,
                }
            }
            other => return Err(Error::new_spanned(other, "expected a block")),
        };
        let t = then.value.ty();
        if els.value.ty() != t {
            return Err(Error::new_spanned(
                i,
                format!(
                    "`if` branches have different types: {} and {}",
                    t.rust(),
                    els.value.ty().rust()
                ),
            ));
        }
        Ok(Expr::If(Box::new(cond), Box::new(then), Box::new(els), t))
    }

    /// `match n { 0 => a, 1 | 2 => b, _ => c }` as a value.
    fn match_value(&mut self, m: &syn::ExprMatch, hint: Option<Ty>) -> Result<Expr> {
        let scrutinee = self.scrutinee(&m.expr)?;
        let mut arms = Vec::new();
        let mut default = None;
        let mut ty = hint;
        for (k, arm) in m.arms.iter().enumerate() {
            let patterns = self.patterns(arm, k + 1 == m.arms.len(), scrutinee.ty())?;
            let body = match &*arm.body {
                syn::Expr::Block(b) if b.label.is_none() => self.value_block(&b.block, ty)?,
                e => self.scoped(|c| {
                    Ok(ValueBlock {
                        lets: Vec::new(),
                        value: c.expr(e, ty)?,
                    })
                })?,
            };
            let t = *ty.get_or_insert(body.value.ty());
            expect_ty(&arm.body, t, body.value.ty())?;
            match patterns {
                Some(patterns) => arms.push(Arm { patterns, body }),
                None => default = Some(body),
            }
        }
        let default = default.expect("checked by `patterns`");
        let t = default.value.ty();
        Ok(Expr::Match(Box::new(scrutinee), arms, Box::new(default), t))
    }

    pub fn value_block(&mut self, b: &syn::Block, hint: Option<Ty>) -> Result<ValueBlock> {
        self.scoped(|c| {
            let Some((last, init)) = b.stmts.split_last() else {
                return Err(Error::new_spanned(b, "this branch needs a value"));
            };
            let mut lets = Vec::new();
            for s in init {
                match s {
                    syn::Stmt::Local(_) | syn::Stmt::Item(syn::Item::Const(_)) => {
                        c.stmt(s, &mut lets)?
                    }
                    other => {
                        return Err(Error::new_spanned(
                            other,
                            "a branch used as a value may only hold `let`s before its value",
                        ))
                    }
                }
            }
            let syn::Stmt::Expr(e, None) = last else {
                return Err(Error::new_spanned(
                    last,
                    "this branch must end with a value (no `;`)",
                ));
            };
            let value = c.expr(e, hint)?;
            Ok(ValueBlock { lets, value })
        })
    }
}

/// The type of the receiver of a math call.
fn args_ty(e: &Expr) -> Ty {
    match e {
        Expr::Call(_, args, _) => args[0].ty(),
        other => other.ty(),
    }
}
