//! The checker's state (scopes, locals, what the body calls) and the statements of the kernel
//! language. Expressions are in `expr.rs`.

use std::collections::BTreeMap;

use super::fold::{fold, int_range};
use super::lit::*;
use crate::ir::*;
use crate::items::{path_key, ConstValue, ItemSig, ItemTable};
use syn::{Error, Result};

/// What a local name stands for.
#[derive(Clone, Debug)]
pub(super) enum LocalKind {
    Scalar,
    /// An array of this many elements (of the local's `ty`).
    Array(usize),
    /// A `const` item of the body: its folded value.
    Const(Expr),
}

/// A local binding visible in the current scope.
pub(super) struct Local {
    pub source: String,
    pub unique: String,
    pub ty: Ty,
    pub mutable: bool,
    /// `Some((lo, hi))` for `for` loop variables (usable as component and array indices).
    pub loop_bounds: Option<(i64, i64)>,
    pub kind: LocalKind,
}

/// Where the body being checked lives.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Context {
    Kernel,
    /// A `#[kernel_fn]` named so, returning this type.
    Function(String, Ty),
    /// The initialiser of a `#[kernel_const]`.
    Const,
}

pub(super) struct Checker<'a> {
    pub params: Vec<Param>,
    pub scopes: Vec<Vec<Local>>,
    pub next_local: usize,
    pub context: Context,
    pub items: &'a ItemTable,
    /// Kernel functions called so far, by path key, in order of first call.
    pub callees: Vec<(String, Callee)>,
    /// Arrays of `#[kernel_const]`s used so far: their local copies, declared first in the body.
    pub item_arrays: BTreeMap<String, String>,
    pub hoisted: Vec<Stmt>,
}

/// The target of an assignment.
pub(super) enum Place {
    Local(String, Ty),
    Point(Point, Ty),
    Array(String, Expr, Ty),
}

impl<'a> Checker<'a> {
    pub fn new(params: Vec<Param>, context: Context, items: &'a ItemTable) -> Self {
        Checker {
            params,
            scopes: vec![Vec::new()],
            next_local: 0,
            context,
            items,
            callees: Vec::new(),
            item_arrays: BTreeMap::new(),
            hoisted: Vec::new(),
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Local> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|l| l.source == name)
    }

    pub fn lookup_mut(&mut self, name: &str) -> Option<&mut Local> {
        self.scopes
            .iter_mut()
            .rev()
            .flat_map(|s| s.iter_mut().rev())
            .find(|l| l.source == name)
    }

    pub fn by_unique(&self, unique: &str) -> Option<&Local> {
        self.scopes.iter().flatten().find(|l| l.unique == unique)
    }

    pub fn declare(&mut self, source: &str, ty: Ty, mutable: bool, kind: LocalKind) -> String {
        self.declare_loop(source, ty, mutable, None, kind)
    }

    pub fn declare_loop(
        &mut self,
        source: &str,
        ty: Ty,
        mutable: bool,
        bounds: Option<(i64, i64)>,
        kind: LocalKind,
    ) -> String {
        let unique = format!("{}_{}", source.trim_start_matches("r#"), self.next_local);
        self.next_local += 1;
        self.scopes.last_mut().expect("scope").push(Local {
            source: source.to_string(),
            unique: unique.clone(),
            ty,
            mutable,
            loop_bounds: bounds,
            kind,
        });
        unique
    }

    pub fn param_index(&self, name: &str) -> Option<usize> {
        // Locals shadow parameters, as in Rust.
        if self.lookup(name).is_some() {
            return None;
        }
        self.params.iter().position(|p| p.name == name)
    }

    pub fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scopes.push(Vec::new());
        let r = f(self);
        self.scopes.pop();
        r
    }

    /// The compile-time range of an integer expression (see [`int_range`]).
    pub fn range_of(&self, e: &Expr) -> Option<(i64, i64)> {
        int_range(e, &|unique| {
            self.by_unique(unique)
                .and_then(|l| l.loop_bounds)
                .map(|(lo, hi)| (lo, hi - 1))
        })
    }

    /// The value of a constant integer expression (a literal, a constant, arithmetic on them).
    pub fn const_int(&mut self, e: &syn::Expr) -> Option<i64> {
        if let Some(v) = int_literal(e) {
            return Some(v);
        }
        match fold(&self.expr(e, Some(Ty::I32)).ok()?) {
            Ok(Expr::Int(v, _)) => Some(v),
            _ => None,
        }
    }

    /// The local copy of the array constant `path` names (declared once, first in the body).
    pub fn item_array(&mut self, key: &str, ty: Ty, values: &[Expr]) -> String {
        if let Some(u) = self.item_arrays.get(key) {
            return u.clone();
        }
        let unique = format!("c{}_{}", self.item_arrays.len(), self.next_local);
        self.next_local += 1;
        self.hoisted.push(Stmt::LetArray {
            name: unique.clone(),
            elem: ty,
            len: values.len(),
            init: ArrayInit::List(values.to_vec()),
        });
        self.item_arrays.insert(key.to_string(), unique.clone());
        unique
    }

    /// The signature of the kernel item `path` names.
    pub fn item(&self, path: &syn::Path) -> Option<&'a ItemSig> {
        self.items.sigs.get(&path_key(path))
    }

    pub fn block(&mut self, block: &syn::Block) -> Result<Vec<Stmt>> {
        self.scoped(|c| {
            let mut out = Vec::new();
            for stmt in &block.stmts {
                c.stmt(stmt, &mut out)?;
            }
            Ok(out)
        })
    }

    pub fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) -> Result<()> {
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
                        | syn::Expr::Match(_)
                );
                if semi.is_none() && !block_like {
                    let msg = match self.context {
                        Context::Function(..) => {
                            "only the last expression of a kernel function is its value: end this statement with `;`"
                        }
                        _ => "kernels return nothing: end this statement with `;`",
                    };
                    return Err(Error::new_spanned(e, msg));
                }
                self.expr_stmt(e, out)
            }
            syn::Stmt::Item(syn::Item::Const(c)) => self.const_item(c, out),
            syn::Stmt::Item(syn::Item::Fn(f)) => Err(Error::new_spanned(
                &f.sig,
                "functions cannot be defined inside a kernel: define it outside with #[kernel_fn] and call it",
            )),
            syn::Stmt::Item(item) => Err(Error::new_spanned(
                item,
                "only `const` items are allowed inside a kernel (fn: define it outside with #[kernel_fn]; struct, use, ...: not supported)",
            )),
            syn::Stmt::Macro(m) => Err(Error::new_spanned(
                m,
                "macros are not allowed inside a kernel",
            )),
        }
    }

    /// `const K: f64 = 0.5;` or `const W: [f64; 3] = [..];` inside a body.
    fn const_item(&mut self, c: &syn::ItemConst, out: &mut Vec<Stmt>) -> Result<()> {
        let name = c.ident.to_string();
        match self.const_value(&c.ty, &c.expr)? {
            ConstValue::Scalar(v) => {
                let ty = v.ty();
                self.declare(&name, ty, false, LocalKind::Const(v));
            }
            ConstValue::Array(ty, values) => {
                let len = values.len();
                let unique = self.declare(&name, ty, false, LocalKind::Array(len));
                out.push(Stmt::LetArray {
                    name: unique,
                    elem: ty,
                    len,
                    init: ArrayInit::List(values),
                });
            }
        }
        Ok(())
    }

    /// Checks and folds the value of a `const` of type `ty`.
    pub fn const_value(&mut self, ty: &syn::Type, value: &syn::Expr) -> Result<ConstValue> {
        let not_const =
            |e: String| Error::new_spanned(value, format!("not a constant expression: {e}"));
        if let syn::Type::Array(a) = ty {
            let elem = scalar_type(&a.elem)?;
            let len = self.array_len(&a.len)?;
            let (t, init) = self.array_literal(value, Some(elem))?;
            expect_ty(value, elem, t)?;
            let items = match init {
                ArrayInit::List(v) => v,
                ArrayInit::Repeat(v, n) => vec![v; n],
            };
            if items.len() != len {
                return Err(Error::new_spanned(
                    value,
                    format!("expected {len} elements, found {}", items.len()),
                ));
            }
            let items = items
                .iter()
                .map(fold)
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(not_const)?;
            return Ok(ConstValue::Array(elem, items));
        }
        let t = scalar_type(ty)?;
        let e = self.expr(value, Some(t))?;
        expect_ty(value, t, e.ty())?;
        Ok(ConstValue::Scalar(fold(&e).map_err(not_const)?))
    }

    /// The length of an array type: a literal or an integer constant, 1 to 64.
    pub fn array_len(&mut self, e: &syn::Expr) -> Result<usize> {
        match self.const_int(e) {
            Some(n) if (1..=64).contains(&n) => Ok(n as usize),
            Some(_) => Err(Error::new_spanned(e, "kernel arrays have 1 to 64 elements")),
            None => Err(Error::new_spanned(
                e,
                "an array length is an integer literal or constant",
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
        let init = match &local.init {
            Some(init) => {
                if let Some((_, diverge)) = &init.diverge {
                    return Err(Error::new_spanned(
                        diverge,
                        "`let ... else` is not supported",
                    ));
                }
                Some(&*init.expr)
            }
            None => None,
        };
        let is_array = matches!(annotated, Some(syn::Type::Array(_)))
            || matches!(init, Some(syn::Expr::Array(_) | syn::Expr::Repeat(_)));
        if is_array {
            return self.let_array(pi, annotated, init, out);
        }
        let declared = match annotated {
            Some(t) => Some(scalar_type(t)?),
            None => None,
        };
        let init = match init {
            Some(e) => {
                let v = self.expr(e, declared)?;
                if let Some(t) = declared {
                    expect_ty(e, t, v.ty())?;
                }
                Some(v)
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
        let name = self.declare(&pi.ident.to_string(), ty, mutable, LocalKind::Scalar);
        out.push(Stmt::Let { name, ty, init });
        Ok(())
    }

    /// `let w = [a, b, c];`, `let mut acc = [0.0; 4];`, `let w: [f64; 3] = ...;`
    fn let_array(
        &mut self,
        pi: &syn::PatIdent,
        annotated: Option<&syn::Type>,
        init: Option<&syn::Expr>,
        out: &mut Vec<Stmt>,
    ) -> Result<()> {
        let declared = match annotated {
            Some(syn::Type::Array(a)) => Some((scalar_type(&a.elem)?, self.array_len(&a.len)?)),
            Some(other) => return Err(Error::new_spanned(other, "an array is declared `[T; N]`")),
            None => None,
        };
        let Some(init_expr) = init else {
            return Err(Error::new_spanned(
                pi,
                "an array needs its elements: `let mut a = [0.0; 4];`",
            ));
        };
        let (elem, init) = self.array_literal(init_expr, declared.map(|d| d.0))?;
        let len = match &init {
            ArrayInit::List(v) => v.len(),
            ArrayInit::Repeat(_, n) => *n,
        };
        if let Some((t, n)) = declared {
            expect_ty(init_expr, t, elem)?;
            if n != len {
                return Err(Error::new_spanned(
                    init_expr,
                    format!("expected {n} elements, found {len}"),
                ));
            }
        }
        let name = self.declare(
            &pi.ident.to_string(),
            elem,
            pi.mutability.is_some(),
            LocalKind::Array(len),
        );
        out.push(Stmt::LetArray {
            name,
            elem,
            len,
            init,
        });
        Ok(())
    }

    /// An array literal: `[a, b, c]` (one type) or `[v; n]`.
    pub fn array_literal(&mut self, e: &syn::Expr, hint: Option<Ty>) -> Result<(Ty, ArrayInit)> {
        match e {
            syn::Expr::Array(a) => {
                if a.elems.is_empty() || a.elems.len() > 64 {
                    return Err(Error::new_spanned(a, "kernel arrays have 1 to 64 elements"));
                }
                let mut hint = hint;
                // An untyped first literal takes its type from a typed element after it.
                if hint.is_none() {
                    if let Some(typed) = a.elems.iter().find(|x| !is_untyped_literal(x)) {
                        hint = Some(self.expr(typed, None)?.ty());
                    }
                }
                let mut items = Vec::new();
                for x in &a.elems {
                    let v = self.expr(x, hint)?;
                    let t = *hint.get_or_insert(v.ty());
                    expect_ty(x, t, v.ty())?;
                    items.push(v);
                }
                let t = items[0].ty();
                if t == Ty::Bool {
                    return Err(Error::new_spanned(a, "arrays hold numbers, not bool"));
                }
                Ok((t, ArrayInit::List(items)))
            }
            syn::Expr::Repeat(r) => {
                let n = self.array_len(&r.len)?;
                let v = self.expr(&r.expr, hint)?;
                if v.ty() == Ty::Bool {
                    return Err(Error::new_spanned(r, "arrays hold numbers, not bool"));
                }
                Ok((v.ty(), ArrayInit::Repeat(v, n)))
            }
            other => Err(Error::new_spanned(
                other,
                "an array is written `[a, b, c]` or `[value; n]`",
            )),
        }
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
            syn::Expr::Match(m) => {
                let s = self.match_stmt(m)?;
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
            syn::Expr::Return(r) => {
                let Context::Function(_, ret) = self.context.clone() else {
                    return Err(Error::new_spanned(
                        e,
                        "`return` is not supported in a kernel; use `if`/`else`",
                    ));
                };
                let Some(v) = &r.expr else {
                    return Err(Error::new_spanned(
                        r,
                        format!("a kernel function returns a value: `return v;` with v: {}", ret.rust()),
                    ));
                };
                let value = self.expr(v, Some(ret))?;
                expect_ty(v, ret, value.ty())?;
                out.push(Stmt::Return(value));
                Ok(())
            }
            syn::Expr::While(_) | syn::Expr::Loop(_) => Err(Error::new_spanned(
                e,
                "`while` and `loop` are not supported: kernels loop with `for k in 0..N` (constant bounds)",
            )),
            syn::Expr::Break(_) | syn::Expr::Continue(_) => Err(Error::new_spanned(
                e,
                "`break` and `continue` are not supported in a kernel; use `if`/`else`",
            )),
            syn::Expr::Call(_) => Err(Error::new_spanned(
                e,
                "a kernel function's value must be used: `let v = f(..);` (kernel functions have no effects)",
            )),
            other => Err(Error::new_spanned(
                other,
                "not a kernel statement: expected `let`, an assignment, `if`, `match`, `for` or `r.update(v)`",
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
            Place::Array(name, index, ty) => {
                let value = self.expr(rhs, Some(ty))?;
                expect_ty(rhs, ty, value.ty())?;
                Ok(Stmt::AssignArray {
                    name,
                    index,
                    op,
                    value,
                })
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
            match local.kind {
                LocalKind::Const(_) => {
                    return Err(Error::new_spanned(
                        e,
                        format!("`{name}` is a constant and cannot be assigned"),
                    ))
                }
                LocalKind::Array(_) => {
                    return Err(Error::new_spanned(
                        e,
                        format!("`{name}` is an array: assign its elements, `{name}[0] = ...`"),
                    ))
                }
                LocalKind::Scalar => {}
            }
            if !local.mutable {
                return Err(Error::new_spanned(
                    e,
                    format!("`{name}` is not mutable: declare it with `let mut {name}`"),
                ));
            }
            return Ok(Place::Local(local.unique.clone(), local.ty));
        }
        if let syn::Expr::Index(ix) = e {
            if let Some((unique, len, ty, mutable)) = self.local_array(&ix.expr) {
                let name = path_ident(&ix.expr).unwrap_or_default();
                if !mutable {
                    return Err(Error::new_spanned(
                        e,
                        format!("`{name}` is not mutable: declare it with `let mut {name}`"),
                    ));
                }
                let index = self.array_index(&ix.index, len)?;
                return Ok(Place::Array(unique, index, ty));
            }
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
            "can only assign to a local variable, an array element or a dataset point like `a[(0, 0)]`",
        ))
    }

    /// A local array named by `e`: (unique name, length, element type, mutable).
    pub fn local_array(&self, e: &syn::Expr) -> Option<(String, usize, Ty, bool)> {
        let name = path_ident(e)?;
        let l = self.lookup(&name)?;
        match l.kind {
            LocalKind::Array(n) => Some((l.unique.clone(), n, l.ty, l.mutable)),
            _ => None,
        }
    }

    /// An array index, proven at compile time to lie in `0..len`.
    pub fn array_index(&mut self, e: &syn::Expr, len: usize) -> Result<Expr> {
        let index = self.expr(e, Some(Ty::I32))?;
        if !index.ty().is_int() {
            return Err(Error::new_spanned(
                e,
                format!("an array index is an integer, found {}", index.ty().rust()),
            ));
        }
        match self.range_of(&index) {
            Some((lo, hi)) if lo >= 0 && hi < len as i64 => Ok(index),
            Some((lo, hi)) => Err(Error::new_spanned(
                e,
                format!("this index takes values {lo}..={hi}, outside the array's 0..{len}"),
            )),
            None => Err(Error::new_spanned(
                e,
                "an array index must be known to be in bounds at compile time: an integer \
                 literal, a constant, a `for` variable, or `+ - *` of those",
            )),
        }
    }

    /// Resolves `a[(dx, dy)]` / `a.comp(c)[(dx, dy)]` on a dataset parameter.
    pub fn point(&mut self, ix: &syn::ExprIndex) -> Result<(Point, Ty, Access)> {
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
            Error::new_spanned(
                base,
                "only dataset parameters, arrays and `idx` can be indexed",
            )
        })?;
        let p = self.param_index(&name).ok_or_else(|| {
            Error::new_spanned(
                base,
                format!("`{name}` is not a dataset parameter or a local array"),
            )
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
                let local = self.by_unique(v).expect("resolved");
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

    fn component(&mut self, c: &syn::Expr) -> Result<Comp> {
        if let Some(name) = path_ident(c) {
            if let Some(l) = self.lookup(&name) {
                if l.loop_bounds.is_some() {
                    return Ok(Comp::Var(l.unique.clone()));
                }
            }
        }
        if let Some(v) = self.const_int(c) {
            return u32::try_from(v)
                .map(Comp::Lit)
                .map_err(|_| Error::new_spanned(c, "component indices are 0 or above"));
        }
        Err(Error::new_spanned(
            c,
            "a component index is an integer literal, a constant or a constant-bound `for` loop variable",
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
                "`for` loops run over a constant range like `0..3`",
            ));
        };
        let mut bound = |e: &Option<Box<syn::Expr>>| -> Result<i64> {
            e.as_deref().and_then(|e| self.const_int(e)).ok_or_else(|| {
                Error::new_spanned(
                    r,
                    "`for` loop bounds must be integer literals or constants, like `0..3`",
                )
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
            let var = c.declare_loop(
                &pi.ident.to_string(),
                Ty::I32,
                false,
                Some((lo, hi)),
                LocalKind::Scalar,
            );
            let body = c.block(&f.body)?;
            Ok(Stmt::For { var, lo, hi, body })
        })
    }

    /// `match n { 0 => .., 1 | 2 => .., 3..=5 => .., _ => .. }` as a statement.
    fn match_stmt(&mut self, m: &syn::ExprMatch) -> Result<Stmt> {
        let scrutinee = self.scrutinee(&m.expr)?;
        let mut arms = Vec::new();
        let mut default = None;
        for (k, arm) in m.arms.iter().enumerate() {
            let patterns = self.patterns(arm, k + 1 == m.arms.len(), scrutinee.ty())?;
            let body = self.scoped(|c| {
                let mut out = Vec::new();
                match &*arm.body {
                    syn::Expr::Block(b) if b.label.is_none() => {
                        out = c.block(&b.block)?;
                    }
                    e => c.expr_stmt(e, &mut out)?,
                }
                Ok(out)
            })?;
            match patterns {
                Some(patterns) => arms.push(Arm { patterns, body }),
                None => default = Some(body),
            }
        }
        Ok(Stmt::Match {
            scrutinee,
            arms,
            default: default.expect("checked by `patterns`"),
        })
    }

    /// The value a `match` inspects: an integer.
    pub fn scrutinee(&mut self, e: &syn::Expr) -> Result<Expr> {
        let s = self.expr(e, None)?;
        if !s.ty().is_int() {
            return Err(Error::new_spanned(
                e,
                format!(
                    "`match` works on integers (i32, u32), found {}; use `if`/`else if` for other values",
                    s.ty().rust()
                ),
            ));
        }
        Ok(s)
    }

    /// The patterns of one arm (`None` for the final `_`).
    pub fn patterns(&mut self, arm: &syn::Arm, last: bool, ty: Ty) -> Result<Option<Vec<Pattern>>> {
        if let Some((_, guard)) = &arm.guard {
            return Err(Error::new_spanned(
                guard,
                "match guards are not supported; test inside the arm with `if`",
            ));
        }
        if let syn::Pat::Wild(_) = arm.pat {
            if !last {
                return Err(Error::new_spanned(
                    &arm.pat,
                    "`_` must be the last arm (arms after it never run)",
                ));
            }
            return Ok(None);
        }
        if last {
            return Err(Error::new_spanned(
                &arm.pat,
                "a kernel `match` ends with a `_ => ...` arm",
            ));
        }
        let mut out = Vec::new();
        self.pattern(&arm.pat, ty, &mut out)?;
        Ok(Some(out))
    }

    fn pattern(&mut self, p: &syn::Pat, ty: Ty, out: &mut Vec<Pattern>) -> Result<()> {
        let bad = |p: &dyn quote::ToTokens| {
            Error::new_spanned(
                p,
                "kernel `match` arms are integer literals (`3`, `-1`), ranges (`2..=5`, `0..4`), \
                 `|` of those, or `_`",
            )
        };
        let value = |c: &mut Self, e: &syn::Expr| -> Result<i64> {
            let v = c.const_int(e).ok_or_else(|| bad(e))?;
            let fits = match ty {
                Ty::U32 => u32::try_from(v).is_ok(),
                _ => i32::try_from(v).is_ok(),
            };
            if !fits {
                return Err(Error::new_spanned(e, format!("{v} is not a {}", ty.rust())));
            }
            Ok(v)
        };
        match p {
            syn::Pat::Or(o) => {
                for case in &o.cases {
                    self.pattern(case, ty, out)?;
                }
            }
            syn::Pat::Paren(pp) => self.pattern(&pp.pat, ty, out)?,
            syn::Pat::Lit(l) => out.push(Pattern::Int(value(self, &syn::Expr::Lit(l.clone()))?)),
            syn::Pat::Range(r) => {
                let (Some(lo), Some(hi)) = (&r.start, &r.end) else {
                    return Err(Error::new_spanned(
                        r,
                        "a range pattern needs both ends: `2..=5`",
                    ));
                };
                let lo = value(self, lo)?;
                let mut hi = value(self, hi)?;
                if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) {
                    hi -= 1;
                }
                if hi < lo {
                    return Err(Error::new_spanned(r, "this range matches nothing"));
                }
                out.push(Pattern::Range(lo, hi));
            }
            syn::Pat::Ident(i) if i.subpat.is_none() => {
                return Err(Error::new_spanned(
                    i,
                    format!(
                    "`{}` would bind the value: kernel `match` arms are literals, ranges or `_`",
                    i.ident
                ),
                ))
            }
            other => {
                // Negative literals arrive as expressions in some syn versions.
                let e: syn::Expr = syn::parse2(quote::quote!(#other)).map_err(|_| bad(other))?;
                out.push(Pattern::Int(value(self, &e)?));
            }
        }
        Ok(())
    }
}
