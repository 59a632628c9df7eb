//! CPU lowering of the language beyond the row loop's core (kept apart from `cpu.rs`, which is
//! about the row loop's shape and speed): kernel-function calls, local arrays, `match`,
//! `return`, and the Rust function a `#[kernel_fn]` becomes.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::cpu::{binop, local, rust_ty, Lower};
use crate::ir::*;

impl Lower<'_> {
    /// Statements `cpu.rs` leaves to this file.
    pub(crate) fn language_stmt(&self, s: &Stmt) -> TokenStream {
        match s {
            Stmt::LetArray {
                name,
                elem,
                len,
                init,
            } => {
                let n = local(name);
                let t = rust_ty(*elem);
                let len = Literal::usize_unsuffixed(*len);
                let init = match init {
                    ArrayInit::List(items) => {
                        let items = items.iter().map(|e| self.expr(e));
                        quote!([#(#items),*])
                    }
                    ArrayInit::Repeat(v, count) => {
                        let v = self.expr(v);
                        let count = Literal::usize_unsuffixed(*count);
                        quote!([#v; #count])
                    }
                };
                quote! { let mut #n: [#t; #len] = #init; }
            }
            Stmt::AssignArray {
                name,
                index,
                op,
                value,
            } => {
                let n = local(name);
                let i = self.expr(index);
                let v = self.expr(value);
                // Index and value first: the value may read the array itself.
                match op {
                    None => quote! { { let i = (#i) as usize; let v = #v; #n[i] = v; } },
                    Some(op) => {
                        let combined = binop(*op, value.ty(), quote!(#n[i]), quote!(v));
                        quote! { { let i = (#i) as usize; let v = #v; #n[i] = #combined; } }
                    }
                }
            }
            Stmt::Match {
                scrutinee,
                arms,
                default,
            } => {
                let s = self.expr(scrutinee);
                let arms = arms.iter().map(|arm| {
                    let p = patterns(&arm.patterns, scrutinee.ty());
                    let b = self.stmts(&arm.body);
                    quote! { #p => { #b } }
                });
                let d = self.stmts(default);
                quote! { match #s { #(#arms)* _ => { #d } } }
            }
            Stmt::Return(v) => {
                let v = self.expr(v);
                quote! { return #v; }
            }
            other => unreachable!("lowered by cpu.rs: {other:?}"),
        }
    }

    /// Expressions `cpu.rs` leaves to this file.
    pub(crate) fn language_expr(&self, e: &Expr) -> TokenStream {
        match e {
            Expr::CallFn(callee, args, _) => {
                let path = &self.k.callees[*callee].path;
                let args = args.iter().map(|a| self.expr(a));
                quote!(#path(#(#args),*))
            }
            Expr::ArrayGet(name, index, _) => {
                let n = local(name);
                let i = self.expr(index);
                quote!(#n[(#i) as usize])
            }
            Expr::Match(scrutinee, arms, default, _) => {
                let s = self.expr(scrutinee);
                let arms = arms.iter().map(|arm| {
                    let p = patterns(&arm.patterns, scrutinee.ty());
                    let l = self.stmts(&arm.body.lets);
                    let v = self.expr(&arm.body.value);
                    quote! { #p => { #l #v } }
                });
                let dl = self.stmts(&default.lets);
                let dv = self.expr(&default.value);
                quote!((match #s { #(#arms)* _ => { #dl #dv } }))
            }
            other => unreachable!("lowered by cpu.rs: {other:?}"),
        }
    }
}

/// `1i32 | 2i32..=5i32`
fn patterns(ps: &[Pattern], t: Ty) -> TokenStream {
    let lit = |v: i64| match t {
        Ty::U32 => Literal::u32_suffixed(v as u32),
        _ => Literal::i32_suffixed(v as i32),
    };
    let ps = ps.iter().map(|p| match p {
        Pattern::Int(v) => {
            let v = lit(*v);
            quote!(#v)
        }
        Pattern::Range(lo, hi) => {
            let (lo, hi) = (lit(*lo), lit(*hi));
            quote!(#lo..=#hi)
        }
    });
    quote!(#(#ps)|*)
}

/// The Rust function of a `#[kernel_fn]`: the body lowered as kernels lower it (Fortran
/// `min`/`max`, wrapping integers), inlined into the kernels' row loops.
pub fn kernel_fn_item(f: &KernelFn, item: &syn::ItemFn) -> TokenStream {
    // The lowering reads callees from a kernel; a function has no dataset parameters.
    let shell = Kernel {
        name: f.name.clone(),
        params: Vec::new(),
        body: Vec::new(),
        callees: f.callees.clone(),
        helpers: Ok(Vec::new()),
    };
    let lower = Lower {
        k: &shell,
        slot_base: &[],
        dat_pos: &|_| 0,
    };
    let attrs = item.attrs.iter().filter(|a| !a.path().is_ident("inline"));
    let vis = &item.vis;
    let name = &f.name;
    let params = f.params.iter().map(|p| {
        let (n, t) = (&p.source, rust_ty(p.ty));
        quote!(#n: #t)
    });
    let copies = f.params.iter().map(|p| {
        let (n, u, t) = (&p.source, local(&p.unique), rust_ty(p.ty));
        quote!(let mut #u: #t = #n;)
    });
    let ret = rust_ty(f.ret);
    let body = lower.stmts(&f.body);
    let value = f.value.as_ref().map(|v| lower.expr(v));
    quote! {
        #(#attrs)*
        #[inline(always)]
        #[allow(unused_mut, unused_variables, unused_parens, unreachable_code, clippy::all)]
        #vis fn #name(#(#params),*) -> #ret {
            #(#copies)*
            #body
            #value
        }
    }
}
