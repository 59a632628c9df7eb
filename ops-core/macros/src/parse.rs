//! From `syn` to the typed IR: name resolution, type inference and access checking.
//!
//! Every construct outside the kernel language is rejected with an error spanning it.

use crate::ir::*;
use syn::{Error, Result};

/// Parses the kernel `fn` into checked IR.
pub fn kernel(func: &syn::ItemFn) -> Result<Kernel> {
    let sig = &func.sig;
    if let Some(g) = sig.generics.params.first() {
        return Err(Error::new_spanned(g, "kernels cannot be generic"));
    }
    if !matches!(sig.output, syn::ReturnType::Default) {
        return Err(Error::new_spanned(
            &sig.output,
            "kernels return nothing: write results through Write/ReadWrite/Inc parameters or reductions",
        ));
    }
    if let Some(a) = &sig.asyncness {
        return Err(Error::new_spanned(a, "kernels cannot be async"));
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        params.push(param(input)?);
    }
    if params.len() > 32 {
        return Err(Error::new_spanned(
            &sig.inputs,
            "a kernel takes at most 32 parameters",
        ));
    }
    if params.iter().filter(|p| p.kind == ParamKind::Idx).count() > 1 {
        return Err(Error::new_spanned(
            &sig.inputs,
            "a kernel takes at most one Idx parameter",
        ));
    }
    let mut checker = Checker {
        params,
        scopes: vec![Vec::new()],
        next_local: 0,
    };
    let body = checker.block(&func.block)?;
    let mut params = checker.params;
    let written = definite_writes(&body);
    for (p, param) in params.iter_mut().enumerate() {
        param.full_write = param.kind == ParamKind::Dat(Access::Write)
            && (0..param.components).all(|c| written.contains(&(p, c)));
    }
    Ok(Kernel {
        name: sig.ident.clone(),
        params,
        body,
    })
}

/// The (parameter, component) pairs a statement list assigns on every path through it.
fn definite_writes(stmts: &[Stmt]) -> std::collections::HashSet<(usize, u32)> {
    let mut out = std::collections::HashSet::new();
    for s in stmts {
        match s {
            Stmt::Store {
                point, op: None, ..
            } => {
                if let Comp::Lit(c) = point.comp {
                    out.insert((point.param, c));
                }
            }
            Stmt::If { then, els, .. } => {
                let t = definite_writes(then);
                let e = definite_writes(els);
                out.extend(t.intersection(&e).copied());
            }
            Stmt::For { var, lo, hi, body } if lo < hi => {
                for (p, c) in definite_writes(body) {
                    out.insert((p, c));
                }
                // `a.comp(k)[..] = v` inside `for k in lo..hi` writes components lo..hi.
                for st in body {
                    if let Stmt::Store {
                        point, op: None, ..
                    } = st
                    {
                        if let Comp::Var(v) = &point.comp {
                            if v == var {
                                for c in (*lo).max(0)..*hi {
                                    out.insert((point.param, c as u32));
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn param(input: &syn::FnArg) -> Result<Param> {
    let syn::FnArg::Typed(pt) = input else {
        return Err(Error::new_spanned(input, "kernels take no `self`"));
    };
    let syn::Pat::Ident(pi) = &*pt.pat else {
        return Err(Error::new_spanned(
            &pt.pat,
            "kernel parameters must be plain names",
        ));
    };
    let bad_type = || {
        Error::new_spanned(
            &pt.ty,
            "kernel parameters are Read<T>, Write<T>, ReadWrite<T>, Inc<T>, Global<T>, Min<T>, Max<T>, Sum<T> (T = f64, f32 or i32) or Idx",
        )
    };
    let syn::Type::Path(tp) = &*pt.ty else {
        return Err(bad_type());
    };
    let seg = tp.path.segments.last().ok_or_else(bad_type)?;
    let kind = match seg.ident.to_string().as_str() {
        "Read" => ParamKind::Dat(Access::Read),
        "Write" => ParamKind::Dat(Access::Write),
        "ReadWrite" => ParamKind::Dat(Access::ReadWrite),
        "Inc" => ParamKind::Dat(Access::Inc),
        "Global" => ParamKind::Global,
        "Min" => ParamKind::Reduce(ReduceOp::Min),
        "Max" => ParamKind::Reduce(ReduceOp::Max),
        "Sum" => ParamKind::Reduce(ReduceOp::Sum),
        "Idx" => ParamKind::Idx,
        _ => return Err(bad_type()),
    };
    let ty = if kind == ParamKind::Idx {
        if !matches!(seg.arguments, syn::PathArguments::None) {
            return Err(Error::new_spanned(seg, "Idx takes no type argument"));
        }
        Ty::I32
    } else {
        let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
            return Err(bad_type());
        };
        let [syn::GenericArgument::Type(syn::Type::Path(elem))] =
            args.args.iter().collect::<Vec<_>>()[..]
        else {
            return Err(bad_type());
        };
        match elem.path.get_ident().map(|i| i.to_string()).as_deref() {
            Some("f64") => Ty::F64,
            Some("f32") => Ty::F32,
            Some("i32") => Ty::I32,
            _ => {
                return Err(Error::new_spanned(
                    elem,
                    "element types are f64, f32 and i32",
                ))
            }
        }
    };
    Ok(Param {
        name: pi.ident.clone(),
        kind,
        ty,
        offsets: Vec::new(),
        offset_dims: 0,
        components: 1,
        full_write: false,
    })
}

/// A local binding visible in the current scope.
struct Local {
    source: String,
    unique: String,
    ty: Ty,
    mutable: bool,
    /// `Some((lo, hi))` for `for` loop variables (usable as component indices).
    loop_bounds: Option<(i64, i64)>,
}

struct Checker {
    params: Vec<Param>,
    scopes: Vec<Vec<Local>>,
    next_local: usize,
}

/// The target of an assignment.
enum Place {
    Local(String, Ty),
    Point(Point, Ty),
}

impl Checker {
    fn lookup(&self, name: &str) -> Option<&Local> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|l| l.source == name)
    }

    fn lookup_mut(&mut self, name: &str) -> Option<&mut Local> {
        self.scopes
            .iter_mut()
            .rev()
            .flat_map(|s| s.iter_mut().rev())
            .find(|l| l.source == name)
    }

    fn declare(
        &mut self,
        source: &str,
        ty: Ty,
        mutable: bool,
        bounds: Option<(i64, i64)>,
    ) -> String {
        let unique = format!("{source}_{}", self.next_local);
        self.next_local += 1;
        self.scopes.last_mut().expect("scope").push(Local {
            source: source.to_string(),
            unique: unique.clone(),
            ty,
            mutable,
            loop_bounds: bounds,
        });
        unique
    }

    fn param_index(&self, name: &str) -> Option<usize> {
        // Locals shadow parameters, as in Rust.
        if self.lookup(name).is_some() {
            return None;
        }
        self.params.iter().position(|p| p.name == name)
    }

    fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scopes.push(Vec::new());
        let r = f(self);
        self.scopes.pop();
        r
    }

    fn block(&mut self, block: &syn::Block) -> Result<Vec<Stmt>> {
        self.scoped(|c| {
            let mut out = Vec::new();
            for stmt in &block.stmts {
                c.stmt(stmt, &mut out)?;
            }
            Ok(out)
        })
    }

    fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) -> Result<()> {
        match stmt {
            syn::Stmt::Local(local) => self.let_stmt(local, out),
            syn::Stmt::Expr(e, semi) => {
                let block_like = matches!(
                    e,
                    syn::Expr::If(_)
                        | syn::Expr::ForLoop(_)
                        | syn::Expr::Block(_)
                        | syn::Expr::While(_)
                        | syn::Expr::Loop(_)
                );
                if semi.is_none() && !block_like {
                    return Err(Error::new_spanned(
                        e,
                        "kernels return nothing: end this statement with `;`",
                    ));
                }
                self.expr_stmt(e, out)
            }
            syn::Stmt::Item(item) => Err(Error::new_spanned(
                item,
                "items (fn, const, struct, use, ...) are not allowed inside a kernel",
            )),
            syn::Stmt::Macro(m) => Err(Error::new_spanned(
                m,
                "macros are not allowed inside a kernel",
            )),
        }
    }

    fn let_stmt(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) -> Result<()> {
        let (pat, annotated) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        let syn::Pat::Ident(pi) = pat else {
            return Err(Error::new_spanned(
                pat,
                "`let` binds one plain name (no tuples or patterns)",
            ));
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            return Err(Error::new_spanned(pi, "`let` binds one plain name"));
        }
        let declared = match annotated {
            Some(t) => Some(scalar_type(t)?),
            None => None,
        };
        let init = match &local.init {
            Some(init) => {
                if let Some((_, diverge)) = &init.diverge {
                    return Err(Error::new_spanned(
                        diverge,
                        "`let ... else` is not supported",
                    ));
                }
                let e = self.expr(&init.expr, declared)?;
                if let Some(t) = declared {
                    expect_ty(&init.expr, t, e.ty())?;
                }
                Some(e)
            }
            None => None,
        };
        let ty = match (declared, &init) {
            (Some(t), _) => t,
            (None, Some(e)) => e.ty(),
            (None, None) => {
                return Err(Error::new_spanned(
                    pi,
                    "a `let` without a value needs a type: `let x: f64;`",
                ))
            }
        };
        let mutable = pi.mutability.is_some() || init.is_none();
        let name = self.declare(&pi.ident.to_string(), ty, mutable, None);
        out.push(Stmt::Let { name, ty, init });
        Ok(())
    }

    fn expr_stmt(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Result<()> {
        match e {
            syn::Expr::Assign(a) => {
                let place = self.place(&a.left, false)?;
                out.push(self.assign(place, None, &a.right)?);
                Ok(())
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op).expect("checked");
                let place = self.place(&b.left, true)?;
                out.push(self.assign(place, Some(op), &b.right)?);
                Ok(())
            }
            syn::Expr::If(i) => {
                let s = self.if_stmt(i)?;
                out.push(s);
                Ok(())
            }
            syn::Expr::ForLoop(f) => {
                let s = self.for_stmt(f)?;
                out.push(s);
                Ok(())
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                let stmts = self.block(&b.block)?;
                out.extend(stmts);
                Ok(())
            }
            syn::Expr::MethodCall(m) if m.method == "update" => {
                let s = self.reduce_update(&m.receiver, &m.args, m)?;
                out.push(s);
                Ok(())
            }
            syn::Expr::Paren(p) => self.expr_stmt(&p.expr, out),
            syn::Expr::While(_) | syn::Expr::Loop(_) => Err(Error::new_spanned(
                e,
                "`while` and `loop` are not supported: kernels loop with `for k in 0..N` (literal bounds)",
            )),
            syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => Err(Error::new_spanned(
                e,
                "`return`, `break` and `continue` are not supported in a kernel; use `if`/`else`",
            )),
            other => Err(Error::new_spanned(
                other,
                "not a kernel statement: expected `let`, an assignment, `if`, `for` or `r.update(v)`",
            )),
        }
    }

    fn reduce_update(
        &mut self,
        receiver: &syn::Expr,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        whole: &dyn quote::ToTokens,
    ) -> Result<Stmt> {
        let param = self.reduction_param(receiver)?;
        if args.len() != 1 {
            return Err(Error::new_spanned(whole, "`update` takes one value"));
        }
        let ty = self.params[param].ty;
        let value = self.expr(&args[0], Some(ty))?;
        expect_ty(&args[0], ty, value.ty())?;
        Ok(Stmt::Reduce { param, value })
    }

    fn reduction_param(&self, receiver: &syn::Expr) -> Result<usize> {
        let err = || {
            Error::new_spanned(
                receiver,
                "`update` is called on a Min/Max/Sum reduction parameter",
            )
        };
        let name = path_ident(receiver).ok_or_else(err)?;
        let p = self.param_index(&name).ok_or_else(err)?;
        match self.params[p].kind {
            ParamKind::Reduce(_) => Ok(p),
            _ => Err(err()),
        }
    }

    fn assign(&mut self, place: Place, op: Option<BinOp>, rhs: &syn::Expr) -> Result<Stmt> {
        match place {
            Place::Local(name, ty) => {
                let value = self.expr(rhs, Some(ty))?;
                expect_ty(rhs, ty, value.ty())?;
                Ok(Stmt::AssignLocal { name, op, value })
            }
            Place::Point(point, ty) => {
                let value = self.expr(rhs, Some(ty))?;
                expect_ty(rhs, ty, value.ty())?;
                if let ParamKind::Reduce(_) = self.params[point.param].kind {
                    // `s += v` on a Sum reduction (checked in `place`).
                    return Ok(Stmt::Reduce {
                        param: point.param,
                        value,
                    });
                }
                Ok(Stmt::Store { point, op, value })
            }
        }
    }

    /// Resolves an assignment target; `compound` is true for `op=`.
    fn place(&mut self, e: &syn::Expr, compound: bool) -> Result<Place> {
        if let Some(name) = path_ident(e) {
            if let Some(p) = self.param_index(&name) {
                let param = &self.params[p];
                return match param.kind {
                    ParamKind::Reduce(ReduceOp::Sum) if compound => Ok(Place::Point(
                        Point {
                            param: p,
                            slot: 0,
                            comp: Comp::Lit(0),
                        },
                        param.ty,
                    )),
                    ParamKind::Reduce(_) => Err(Error::new_spanned(
                        e,
                        "reductions are updated with `r.update(v)` (or `r += v` for Sum)",
                    )),
                    ParamKind::Global => Err(Error::new_spanned(
                        e,
                        format!("`{name}` is a global constant and cannot be assigned"),
                    )),
                    ParamKind::Idx => Err(Error::new_spanned(
                        e,
                        "the iteration index cannot be assigned",
                    )),
                    ParamKind::Dat(_) => Err(Error::new_spanned(
                        e,
                        format!("assign to a point of the dataset: `{name}[(0, 0)] = ...`"),
                    )),
                };
            }
            let local = self
                .lookup_mut(&name)
                .ok_or_else(|| Error::new_spanned(e, format!("unknown name `{name}`")))?;
            if !local.mutable {
                return Err(Error::new_spanned(
                    e,
                    format!("`{name}` is not mutable: declare it with `let mut {name}`"),
                ));
            }
            return Ok(Place::Local(local.unique.clone(), local.ty));
        }
        if let syn::Expr::Index(ix) = e {
            let (point, ty, access) = self.point(ix)?;
            let name = self.params[point.param].name.to_string();
            let centre = self.params[point.param].offsets[point.slot] == [0, 0, 0];
            match access {
                Access::Read => {
                    return Err(Error::new_spanned(
                        e,
                        format!("`{name}` is Read: it cannot be written (declare it Write, ReadWrite or Inc)"),
                    ))
                }
                Access::Write if compound => {
                    return Err(Error::new_spanned(
                        e,
                        format!("`{name}` is Write (write-only): `op=` reads it; use ReadWrite, or Inc for `+=`"),
                    ))
                }
                Access::Inc if !compound => {
                    return Err(Error::new_spanned(
                        e,
                        format!("`{name}` is Inc: it can only be incremented with `+=`"),
                    ))
                }
                _ => {}
            }
            if !centre {
                return Err(Error::new_spanned(
                    e,
                    format!("`{name}` can only be written at the centre point (all offsets 0), so loops stay race-free"),
                ));
            }
            return Ok(Place::Point(point, ty));
        }
        Err(Error::new_spanned(
            e,
            "can only assign to a local variable or a dataset point like `a[(0, 0)]`",
        ))
    }

    /// Resolves `a[(dx, dy)]` / `a.comp(c)[(dx, dy)]` on a dataset parameter.
    fn point(&mut self, ix: &syn::ExprIndex) -> Result<(Point, Ty, Access)> {
        let (base, comp_expr) = match &*ix.expr {
            syn::Expr::MethodCall(m) if m.method == "comp" => {
                if m.args.len() != 1 {
                    return Err(Error::new_spanned(m, "`comp` takes one component index"));
                }
                (&*m.receiver, Some(&m.args[0]))
            }
            other => (other, None),
        };
        let name = path_ident(base).ok_or_else(|| {
            Error::new_spanned(base, "only dataset parameters and `idx` can be indexed")
        })?;
        let p = self.param_index(&name).ok_or_else(|| {
            Error::new_spanned(base, format!("`{name}` is not a dataset parameter"))
        })?;
        let ParamKind::Dat(access) = self.params[p].kind else {
            return Err(Error::new_spanned(
                base,
                format!("`{name}` is not a dataset parameter and cannot be indexed"),
            ));
        };
        let offset = offsets(&ix.index)?;
        let dims = offset.len() as u8;
        let param = &mut self.params[p];
        if param.offset_dims != 0 && param.offset_dims != dims {
            return Err(Error::new_spanned(
                &ix.index,
                format!(
                    "`{name}` is indexed with {dims} coordinates here but {} elsewhere",
                    param.offset_dims
                ),
            ));
        }
        param.offset_dims = dims;
        let mut padded = [0; 3];
        padded[..offset.len()].copy_from_slice(&offset);
        let slot = param.offset_slot(padded);
        let comp = match comp_expr {
            None => Comp::Lit(0),
            Some(c) => self.component(c)?,
        };
        let max = match &comp {
            Comp::Lit(c) => *c + 1,
            Comp::Var(v) => {
                let local = self
                    .scopes
                    .iter()
                    .flatten()
                    .find(|l| &l.unique == v)
                    .expect("resolved");
                let (lo, hi) = local.loop_bounds.expect("loop variable");
                if lo < 0 {
                    return Err(Error::new_spanned(
                        comp_expr.expect("has comp"),
                        "a component index loop must start at 0 or above",
                    ));
                }
                hi.max(1) as u32
            }
        };
        let param = &mut self.params[p];
        param.components = param.components.max(max);
        Ok((
            Point {
                param: p,
                slot,
                comp,
            },
            param.ty,
            access,
        ))
    }

    fn component(&self, c: &syn::Expr) -> Result<Comp> {
        if let Some(v) = int_literal(c) {
            return u32::try_from(v)
                .map(Comp::Lit)
                .map_err(|_| Error::new_spanned(c, "component indices are 0 or above"));
        }
        if let Some(name) = path_ident(c) {
            if let Some(l) = self.lookup(&name) {
                if l.loop_bounds.is_some() {
                    return Ok(Comp::Var(l.unique.clone()));
                }
            }
        }
        Err(Error::new_spanned(
            c,
            "a component index is an integer literal or a constant-bound `for` loop variable",
        ))
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> Result<Stmt> {
        let cond = self.expr(&i.cond, Some(Ty::Bool))?;
        expect_ty(&i.cond, Ty::Bool, cond.ty())?;
        let then = self.block(&i.then_branch)?;
        let els = match &i.else_branch {
            None => Vec::new(),
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => self.block(&b.block)?,
                syn::Expr::If(nested) => vec![self.if_stmt(nested)?],
                other => return Err(Error::new_spanned(other, "expected a block or `if`")),
            },
        };
        Ok(Stmt::If { cond, then, els })
    }

    fn for_stmt(&mut self, f: &syn::ExprForLoop) -> Result<Stmt> {
        if let Some(l) = &f.label {
            return Err(Error::new_spanned(l, "loop labels are not supported"));
        }
        let syn::Pat::Ident(pi) = &*f.pat else {
            return Err(Error::new_spanned(
                &f.pat,
                "the loop variable is one plain name",
            ));
        };
        let syn::Expr::Range(r) = &*f.expr else {
            return Err(Error::new_spanned(
                &f.expr,
                "`for` loops run over a literal range like `0..3`",
            ));
        };
        let bound = |e: &Option<Box<syn::Expr>>| -> Result<i64> {
            e.as_deref().and_then(int_literal).ok_or_else(|| {
                Error::new_spanned(r, "`for` loop bounds must be integer literals like `0..3`")
            })
        };
        let lo = bound(&r.start)?;
        let mut hi = bound(&r.end)?;
        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
            hi += 1;
        }
        if hi - lo > 1024 {
            return Err(Error::new_spanned(r, "`for` loops run at most 1024 times"));
        }
        self.scoped(|c| {
            let var = c.declare(&pi.ident.to_string(), Ty::I32, false, Some((lo, hi)));
            let body = c.block(&f.body)?;
            Ok(Stmt::For { var, lo, hi, body })
        })
    }

    /// Types an expression; `hint` is the type the context expects (used by untyped literals).
    fn expr(&mut self, e: &syn::Expr, hint: Option<Ty>) -> Result<Expr> {
        match e {
            syn::Expr::Lit(l) => literal(&l.lit, hint),
            syn::Expr::Paren(p) => self.expr(&p.expr, hint),
            syn::Expr::Group(g) => self.expr(&g.expr, hint),
            syn::Expr::Path(_) => self.name(e),
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
            syn::Expr::If(i) => self.if_value(i, hint),
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => self.expr(inner, hint),
                _ => Err(Error::new_spanned(b, "expected an expression")),
            },
            syn::Expr::Call(c) => Err(Error::new_spanned(
                c,
                "kernels cannot call functions; math is written as methods (x.sqrt(), x.max(y), ...)",
            )),
            other => Err(Error::new_spanned(other, "not supported in a kernel")),
        }
    }

    fn name(&mut self, e: &syn::Expr) -> Result<Expr> {
        let name = path_ident(e).ok_or_else(|| {
            Error::new_spanned(e, "paths are not supported in a kernel; use a plain name")
        })?;
        if let Some(l) = self.lookup(&name) {
            return Ok(Expr::Local(l.unique.clone(), l.ty));
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
            None => Err(Error::new_spanned(e, format!("unknown name `{name}`"))),
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
                        format!("`{name}` is ReadWrite: it can only be accessed at the centre point; pass the dataset again as a Read argument to read neighbours"),
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
            Error::new_spanned(
                &m.method,
                format!("`{name}` is not a kernel function; available: sqrt abs min max powi powf exp ln floor ceil signum copysign mul_add"),
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
        let recv = self.expr(&m.receiver, hint)?;
        let t = recv.ty();
        if !(t.is_float() || (t.is_int() && f.allows_int())) {
            return Err(Error::new_spanned(
                &m.receiver,
                format!("`{name}` is not defined for {}", t.rust()),
            ));
        }
        if t == Ty::U32 && f == MathFn::Signum {
            return Err(Error::new_spanned(m, "`signum` is not defined for u32"));
        }
        let mut args = vec![recv];
        for a in &m.args {
            let want = if f == MathFn::Powi { Ty::I32 } else { t };
            let v = self.expr(a, Some(want))?;
            expect_ty(a, want, v.ty())?;
            args.push(v);
        }
        Ok(Expr::Call(f, args, t))
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

    fn value_block(&mut self, b: &syn::Block, hint: Option<Ty>) -> Result<ValueBlock> {
        self.scoped(|c| {
            let Some((last, init)) = b.stmts.split_last() else {
                return Err(Error::new_spanned(b, "this branch needs a value"));
            };
            let mut lets = Vec::new();
            for s in init {
                match s {
                    syn::Stmt::Local(l) => c.let_stmt(l, &mut lets)?,
                    other => return Err(Error::new_spanned(
                        other,
                        "a branch of an `if` used as a value may only hold `let`s before its value",
                    )),
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

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinOp::Add,
        syn::BinOp::SubAssign(_) => BinOp::Sub,
        syn::BinOp::MulAssign(_) => BinOp::Mul,
        syn::BinOp::DivAssign(_) => BinOp::Div,
        syn::BinOp::RemAssign(_) => BinOp::Rem,
        _ => return None,
    })
}

fn path_ident(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Paren(p) => path_ident(&p.expr),
        _ => None,
    }
}

fn int_literal(e: &syn::Expr) -> Option<i64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => int_literal(expr).map(|v| -v),
        syn::Expr::Paren(p) => int_literal(&p.expr),
        syn::Expr::Group(g) => int_literal(&g.expr),
        _ => None,
    }
}

fn is_untyped_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.suffix().is_empty(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.suffix().is_empty(),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && is_untyped_literal(&u.expr),
        syn::Expr::Paren(p) => is_untyped_literal(&p.expr),
        _ => false,
    }
}

/// The stencil offset of an index expression: `(dx, dy)`, `(dx,)` or `dx`.
fn offsets(e: &syn::Expr) -> Result<Vec<i32>> {
    let one = |x: &syn::Expr| -> Result<i32> {
        int_literal(x)
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(|| Error::new_spanned(x, "stencil offsets are integer literals"))
    };
    match e {
        syn::Expr::Tuple(t) => {
            if t.elems.is_empty() || t.elems.len() > 3 {
                return Err(Error::new_spanned(t, "an offset has 1, 2 or 3 coordinates"));
            }
            t.elems.iter().map(one).collect()
        }
        syn::Expr::Paren(p) => Ok(vec![one(&p.expr)?]),
        other => Ok(vec![one(other)?]),
    }
}

fn literal(l: &syn::Lit, hint: Option<Ty>) -> Result<Expr> {
    match l {
        syn::Lit::Float(f) => {
            let ty = match f.suffix() {
                "" => match hint {
                    Some(t @ (Ty::F64 | Ty::F32)) => t,
                    Some(t @ (Ty::I32 | Ty::U32 | Ty::Bool)) => {
                        return Err(Error::new_spanned(
                            f,
                            format!("a float literal where {} is expected", t.rust()),
                        ))
                    }
                    None => Ty::F64,
                },
                "f64" => Ty::F64,
                "f32" => Ty::F32,
                s => return Err(Error::new_spanned(f, format!("unsupported suffix `{s}`"))),
            };
            let v: f64 = f.base10_parse()?;
            Ok(Expr::Float(v, ty))
        }
        syn::Lit::Int(i) => {
            let v: i64 = i.base10_parse()?;
            let ty = match i.suffix() {
                "" => match hint {
                    // An integer literal in float context is lenient: `2 * x` means `2.0 * x`.
                    Some(t @ (Ty::F64 | Ty::F32)) => return Ok(Expr::Float(v as f64, t)),
                    Some(t @ (Ty::I32 | Ty::U32)) => t,
                    _ => Ty::I32,
                },
                s => Ty::from_name(s)
                    .ok_or_else(|| Error::new_spanned(i, format!("unsupported suffix `{s}`")))?,
            };
            if ty.is_float() {
                return Ok(Expr::Float(v as f64, ty));
            }
            let fits = match ty {
                Ty::I32 => i32::try_from(v).is_ok(),
                Ty::U32 => u32::try_from(v).is_ok(),
                _ => false,
            };
            if !fits {
                return Err(Error::new_spanned(
                    i,
                    format!("literal out of range for {}", ty.rust()),
                ));
            }
            Ok(Expr::Int(v, ty))
        }
        syn::Lit::Bool(b) => Ok(Expr::Bool(b.value)),
        other => Err(Error::new_spanned(
            other,
            "only numeric and bool literals are allowed in a kernel",
        )),
    }
}

fn scalar_type(t: &syn::Type) -> Result<Ty> {
    if let syn::Type::Path(p) = t {
        if let Some(ty) = p
            .path
            .get_ident()
            .and_then(|i| Ty::from_name(&i.to_string()))
        {
            return Ok(ty);
        }
    }
    Err(Error::new_spanned(
        t,
        "kernel types are f64, f32, i32, u32 and bool",
    ))
}

fn expect_ty(at: &dyn quote::ToTokens, want: Ty, got: Ty) -> Result<()> {
    if want == got {
        Ok(())
    } else {
        Err(Error::new_spanned(
            at,
            format!("expected {}, found {}", want.rust(), got.rust()),
        ))
    }
}
