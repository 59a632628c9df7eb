//! From `syn` to the typed IR: name resolution, type inference and access checking.
//!
//! Every construct outside the kernel language is rejected with an error spanning it. The
//! checker's state and the statements are in `checker`, expressions in `expr`, compile-time
//! evaluation in `fold`, small syntactic helpers in `lit`.

mod checker;
mod expr;
mod fold;
mod lit;

use std::collections::HashSet;

use crate::ir::*;
use crate::items::{fnv1a, ConstValue, ItemSig, ItemTable};
use checker::{Checker, Context, LocalKind};
use lit::{expect_ty, scalar_type};
use syn::{Error, Result};

/// Parses the kernel `fn` into checked IR; `items` holds the signatures of the kernel functions
/// and constants it names.
pub fn kernel(func: &syn::ItemFn, items: &ItemTable) -> Result<Kernel> {
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
    let mut checker = Checker::new(params, Context::Kernel, items);
    let body = checker.block(&func.block)?;
    let mut body_all = std::mem::take(&mut checker.hoisted);
    body_all.extend(body);
    let body = body_all;
    let (callees, helpers) = callees(&checker, items, &func.sig.ident.to_string(), "kernel")?;
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
        callees,
        helpers,
    })
}

/// Parses a `#[kernel_fn]`: scalar parameters, a scalar result, a body in the kernel language
/// without dataset access, ending with its value.
pub fn kernel_fn(func: &syn::ItemFn, items: &ItemTable) -> Result<KernelFn> {
    let sig = &func.sig;
    let name = sig.ident.to_string();
    if let Some(g) = sig.generics.params.first() {
        return Err(Error::new_spanned(g, "kernel functions cannot be generic"));
    }
    let modifier = [
        sig.asyncness.as_ref().map(|a| a as &dyn quote::ToTokens),
        sig.unsafety.as_ref().map(|a| a as &dyn quote::ToTokens),
        sig.constness.as_ref().map(|a| a as &dyn quote::ToTokens),
        sig.abi.as_ref().map(|a| a as &dyn quote::ToTokens),
        sig.variadic.as_ref().map(|a| a as &dyn quote::ToTokens),
    ]
    .into_iter()
    .flatten()
    .next();
    if let Some(bad) = modifier {
        return Err(Error::new_spanned(
            bad,
            "kernel functions are plain `fn`s (no async, unsafe, const, extern or variadics)",
        ));
    }
    let syn::ReturnType::Type(_, ret_ty) = &sig.output else {
        return Err(Error::new_spanned(
            sig,
            "a kernel function returns one value: `-> f64` (kernels write datasets; functions compute values)",
        ));
    };
    let ret = scalar_type(ret_ty)?;
    let mut checker = Checker::new(Vec::new(), Context::Function(name.clone(), ret), items);
    let mut params = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return Err(Error::new_spanned(input, "kernel functions take no `self`"));
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return Err(Error::new_spanned(
                &pt.pat,
                "kernel function parameters are plain names",
            ));
        };
        let ty = match &*pt.ty {
            syn::Type::Path(p)
                if p.path.segments.last().is_some_and(|s| {
                    ["Read", "Write", "ReadWrite", "Inc", "Global", "Min", "Max", "Sum", "Idx"]
                        .contains(&s.ident.to_string().as_str())
                }) =>
            {
                return Err(Error::new_spanned(
                    &pt.ty,
                    "kernel functions take scalars (f64, f32, i32, u32, bool): read the dataset in the kernel and pass the value",
                ))
            }
            t => scalar_type(t)?,
        };
        if params.len() >= 16 {
            return Err(Error::new_spanned(
                input,
                "a kernel function takes at most 16 parameters",
            ));
        }
        let mutable = pi.mutability.is_some();
        let unique = checker.declare(&pi.ident.to_string(), ty, mutable, LocalKind::Scalar);
        params.push(FnParam {
            source: pi.ident.clone(),
            unique,
            ty,
            mutable,
        });
    }
    let stmts = &func.block.stmts;
    let (body, value) = checker.scoped(|c| {
        let mut body = Vec::new();
        let Some((last, init)) = stmts.split_last() else {
            return Err(Error::new_spanned(
                &func.block,
                "a kernel function ends with the value it returns",
            ));
        };
        for s in init {
            c.stmt(s, &mut body)?;
        }
        let value = match last {
            syn::Stmt::Expr(e, None) if !matches!(e, syn::Expr::ForLoop(_)) => {
                let v = c.expr(e, Some(ret))?;
                expect_ty(e, ret, v.ty())?;
                Some(v)
            }
            syn::Stmt::Expr(syn::Expr::Return(_), Some(_)) => {
                c.stmt(last, &mut body)?;
                None
            }
            other => {
                return Err(Error::new_spanned(
                    other,
                    format!("a kernel function ends with the value it returns: an expression of type {} without `;`", ret.rust()),
                ))
            }
        };
        Ok((body, value))
    })?;
    let mut body_all = std::mem::take(&mut checker.hoisted);
    body_all.extend(body);
    let (callees, helpers) = callees(&checker, items, &name, "kernel function")?;
    let wgsl_name = format!(
        "kf_{}_{:08x}",
        name.trim_start_matches("r#"),
        fnv1a(&quote::quote!(#func).to_string())
    );
    Ok(KernelFn {
        name: sig.ident.clone(),
        params,
        ret,
        body: body_all,
        value,
        callees,
        helpers,
        wgsl_name,
    })
}

/// Checks and folds the value of a `#[kernel_const]`.
pub fn kernel_const(item: &syn::ItemConst, items: &ItemTable) -> Result<ConstValue> {
    let mut checker = Checker::new(Vec::new(), Context::Const, items);
    checker.const_value(&item.ty, &item.expr)
}

/// The callees of a checked body, and the WGSL functions they need (each once, callees first).
fn callees(
    checker: &Checker,
    items: &ItemTable,
    caller: &str,
    what: &str,
) -> Result<(Vec<Callee>, HelperWgsl)> {
    let mut list: Vec<(String, String)> = Vec::new();
    let mut problem = None;
    for (key, callee) in &checker.callees {
        let Some(ItemSig::Fn(sig)) = items.sigs.get(key) else {
            unreachable!("callees are resolved functions")
        };
        match &sig.wgsl {
            Ok(fns) => {
                for (name, text) in fns {
                    match list.iter().find(|(n, _)| n == name) {
                        Some((_, t)) if t != text => {
                            return Err(Error::new_spanned(
                                &callee.path,
                                format!(
                                    "two different kernel functions lower to the WGSL function `{name}`; rename one"
                                ),
                            ))
                        }
                        Some(_) => {}
                        None => list.push((name.clone(), text.clone())),
                    }
                }
            }
            Err(why) => {
                problem.get_or_insert_with(|| {
                    format!("{what} `{caller}` calls `{key}`, which has no WGSL form: {why}")
                });
            }
        }
    }
    let callees = checker.callees.iter().map(|(_, c)| c.clone()).collect();
    Ok((callees, problem.map_or(Ok(list), Err)))
}

/// The (parameter, component) pairs a statement list assigns on every path through it.
fn definite_writes(stmts: &[Stmt]) -> HashSet<(usize, u32)> {
    let mut out = HashSet::new();
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
            Stmt::Match { arms, default, .. } => {
                let mut all = definite_writes(default);
                for arm in arms {
                    let a = definite_writes(&arm.body);
                    all.retain(|w| a.contains(w));
                }
                out.extend(all);
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
