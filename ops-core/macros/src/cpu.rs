//! Lowering the IR to the CPU entry point `Kernel::run`.
//!
//! `run` walks the rows of its box. For each row it builds one slice per dataset argument covering
//! exactly the elements the row touches, then calls an inlined row function. Slices passed as
//! function arguments carry `noalias`, so LLVM needs no runtime alias checks however many arguments
//! a kernel has; indices are precomputed offsets plus `i * step`, read with `get_unchecked`. The row
//! function is generic over `UNIT`: when every dataset steps by one element along x (the common
//! case) the step is the constant 1 and the loop vectorises.

use crate::ir::*;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

pub fn run_fn(k: &Kernel) -> TokenStream {
    let c = crate::runtime::kernel_module();
    let dats: Vec<usize> = (0..k.params.len())
        .filter(|&p| k.params[p].is_dat())
        .collect();
    let nd = dats.len();
    // Global slot number of (param, offset slot) in the flat relative-offset array.
    let mut slot_base = vec![0usize; k.params.len()];
    let mut nslots = 0;
    for &p in &dats {
        slot_base[p] = nslots;
        nslots += k.params[p].offsets.len();
    }
    let dat_pos = |p: usize| dats.iter().position(|&d| d == p).expect("dat param");
    let ctx = Lower {
        k,
        slot_base: &slot_base,
        dat_pos: &dat_pos,
    };

    let mut setup = TokenStream::new();
    let mut row_setup = TokenStream::new();
    let mut row_params = TokenStream::new();
    let mut row_args = TokenStream::new();
    let mut row_prologue = TokenStream::new();
    let mut row_epilogue = TokenStream::new();
    let mut finish = TokenStream::new();
    // Conditions for the unit-stride path, and setup that depends on it.
    let mut unit_terms: Vec<TokenStream> = Vec::new();
    let mut after_unit = TokenStream::new();

    for (p, param) in k.params.iter().enumerate() {
        let ty = rust_ty(param.ty);
        let pi = Literal::usize_unsuffixed(p);
        match param.kind {
            ParamKind::Dat(access) => {
                let j = dat_pos(p);
                let jl = Literal::usize_unsuffixed(j);
                let v = format_ident!("v_{}", p);
                let d = format_ident!("d_{}", p);
                let lo_off = format_ident!("lo_{}", p);
                let span = format_ident!("span_{}", p);
                let comps = Literal::usize_unsuffixed(param.components as usize);
                setup.extend(quote! { let #v = ctx.dats[#pi]; });
                if param.offsets.is_empty() {
                    row_setup.extend(quote! { let #d: &[#ty] = &[]; });
                } else {
                    let offs: Vec<TokenStream> = param
                        .offsets
                        .iter()
                        .map(|o| {
                            let [a, b, cc] = o.map(Literal::i32_unsuffixed);
                            quote!(#v.offset([#a, #b, #cc]))
                        })
                        .collect();
                    let offs_p = format_ident!("offs_{}", p);
                    let nslots = Literal::usize_unsuffixed(param.offsets.len());
                    let base = Literal::usize_unsuffixed(slot_base[p]);
                    setup.extend(quote! {
                        let #offs_p: [isize; #nslots] = [#(#offs),*];
                        let (#lo_off, #span) = {
                            let lo = #offs_p.iter().copied().min().unwrap_or(0);
                            let hi = #offs_p.iter().copied().max().unwrap_or(0);
                            for (s, o) in #offs_p.iter().enumerate() {
                                rel[#base + s] = (o - lo) as usize;
                            }
                            (lo, (hi - lo) as usize + #comps)
                        };
                        steps[#jl] = #v.iter[0] as usize;
                    });
                    let start = quote!(#v.point(lo[0], y, z) + #lo_off);
                    let len = quote!((n - 1) * steps[#jl] + #span);
                    // A read-only, one-component argument that does not move along x (a 1-D
                    // array across y read in a 2-D loop) is a broadcast: on the unit path each of
                    // its stencil points is copied into a row-long run of a scratch buffer, so
                    // the row function still sees unit steps and vectorises.
                    let broadcast = access == Access::Read && param.components == 1;
                    if broadcast {
                        let bc = format_ident!("bc_{}", p);
                        let is_bc = format_ident!("is_bc_{}", p);
                        unit_terms.push(quote!((steps[#jl] <= 1)));
                        setup.extend(
                            quote! { let mut #bc: ::std::vec::Vec<#ty> = ::std::vec::Vec::new(); },
                        );
                        after_unit.extend(quote! {
                            let #is_bc = unit && steps[#jl] == 0;
                            if #is_bc {
                                #bc.reserve_exact(n * #nslots);
                                for s in 0..#nslots {
                                    rel[#base + s] = s * n;
                                }
                            }
                        });
                        row_setup.extend(quote! {
                            let #d: &[#ty] = if #is_bc {
                                #bc.clear();
                                let row = #v.point(lo[0], y, z);
                                for o in #offs_p {
                                    let value = *(#v.base as *const #ty).offset(row + o);
                                    #bc.extend(::core::iter::repeat_n(value, n));
                                }
                                &#bc
                            } else {
                                ::core::slice::from_raw_parts((#v.base as *const #ty).offset(#start), #len)
                            };
                        });
                    } else if access == Access::Read {
                        unit_terms.push(quote!((steps[#jl] == 1)));
                        row_setup.extend(quote! {
                            let #d: &[#ty] = ::core::slice::from_raw_parts(
                                (#v.base as *const #ty).offset(#start), #len);
                        });
                    } else {
                        unit_terms.push(quote!((steps[#jl] == 1)));
                        row_setup.extend(quote! {
                            let #d: &mut [#ty] = ::core::slice::from_raw_parts_mut(
                                (#v.base as *mut #ty).offset(#start), #len);
                        });
                    }
                }
                if access == Access::Read || param.offsets.is_empty() {
                    row_params.extend(quote! { #d: &[#ty], });
                } else {
                    row_params.extend(quote! { #d: &mut [#ty], });
                }
                row_args.extend(quote! { #d, });
            }
            ParamKind::Global => {
                let g = format_ident!("g_{}", p);
                let getter = format_ident!("global_{}", param.ty.rust());
                setup.extend(quote! { let #g: #ty = ctx.#getter(#pi); });
                row_params.extend(quote! { #g: #ty, });
                row_args.extend(quote! { #g, });
            }
            ParamKind::Reduce(_) => {
                let r = format_ident!("r_{}", p);
                let acc = format_ident!("acc_{}", p);
                let variant = scalar_variant(param.ty);
                setup.extend(quote! {
                    let mut #r: #ty = match partials[#pi] {
                        #c::Scalar::#variant(v) => v,
                        // The runtime initialises partials with the right type.
                        _ => unreachable!(),
                    };
                });
                row_params.extend(quote! { #r: &mut #ty, });
                row_args.extend(quote! { &mut #r, });
                row_prologue.extend(quote! { let mut #acc: #ty = *#r; });
                row_epilogue.extend(quote! { *#r = #acc; });
                finish.extend(quote! { partials[#pi] = #c::Scalar::#variant(#r); });
            }
            ParamKind::Idx => {}
        }
    }

    let body = ctx.stmts(&k.body);
    let nd_l = Literal::usize_unsuffixed(nd);
    let ns_l = Literal::usize_unsuffixed(nslots.max(1));
    quote! {
        #[allow(unused_variables, unused_mut, unused_parens, clippy::all)]
        unsafe fn run(
            &self,
            ctx: &#c::ExecCtx,
            lo: [i32; 3],
            hi: [i32; 3],
            partials: &mut [#c::Scalar],
        ) {
            #[inline(always)]
            #[allow(unused_variables, unused_mut, unused_parens, clippy::all)]
            unsafe fn row<const UNIT: bool>(
                n: usize,
                x0: i32,
                y: i32,
                z: i32,
                steps: &[usize; #nd_l],
                rel: &[usize; #ns_l],
                #row_params
            ) {
                #row_prologue
                for i in 0..n {
                    #body
                }
                #row_epilogue
            }
            if hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2] {
                return;
            }
            let n = (hi[0] - lo[0]) as usize;
            let mut steps = [0usize; #nd_l];
            let mut rel = [0usize; #ns_l];
            #setup
            let unit = true #(&& #unit_terms)*;
            #after_unit
            for z in lo[2]..hi[2] {
                for y in lo[1]..hi[1] {
                    #row_setup
                    if unit {
                        row::<true>(n, lo[0], y, z, &steps, &rel, #row_args);
                    } else {
                        row::<false>(n, lo[0], y, z, &steps, &rel, #row_args);
                    }
                }
            }
            #finish
        }
    }
}

pub(crate) fn rust_ty(t: Ty) -> Ident {
    Ident::new(t.rust(), Span::call_site())
}

fn scalar_variant(t: Ty) -> Ident {
    Ident::new(
        match t {
            Ty::F64 => "F64",
            Ty::F32 => "F32",
            _ => "I32",
        },
        Span::call_site(),
    )
}

pub(crate) struct Lower<'a> {
    pub(crate) k: &'a Kernel,
    pub(crate) slot_base: &'a [usize],
    pub(crate) dat_pos: &'a dyn Fn(usize) -> usize,
}

impl Lower<'_> {
    pub(crate) fn stmts(&self, stmts: &[Stmt]) -> TokenStream {
        stmts.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: &Stmt) -> TokenStream {
        match s {
            Stmt::Let { name, ty, init } => {
                let n = local(name);
                let t = rust_ty(*ty);
                match init {
                    Some(e) => {
                        let e = self.expr(e);
                        quote! { let mut #n: #t = #e; }
                    }
                    None => quote! { let mut #n: #t; },
                }
            }
            Stmt::AssignLocal { name, op, value } => {
                let n = local(name);
                let v = self.expr(value);
                match op {
                    None => quote! { #n = #v; },
                    Some(op) => {
                        let ty = value.ty();
                        let combined = binop(*op, ty, quote!(#n), v);
                        quote! { #n = #combined; }
                    }
                }
            }
            Stmt::Store { point, op, value } => {
                let place = self.element(point, true);
                let v = self.expr(value);
                match op {
                    None => quote! { *#place = #v; },
                    Some(op) => {
                        let combined = binop(*op, value.ty(), quote!((*p)), v);
                        quote! { { let p = #place; *p = #combined; } }
                    }
                }
            }
            Stmt::Reduce { param, value } => {
                let acc = format_ident!("acc_{}", param);
                let v = self.expr(value);
                let ty = value.ty();
                match self.k.params[*param].kind {
                    ParamKind::Reduce(ReduceOp::Sum) => {
                        let add = binop(BinOp::Add, ty, quote!(#acc), quote!(v));
                        quote! { { let v = #v; #acc = #add; } }
                    }
                    ParamKind::Reduce(ReduceOp::Min) => {
                        quote! { { let v = #v; if v < #acc { #acc = v; } } }
                    }
                    ParamKind::Reduce(ReduceOp::Max) => {
                        quote! { { let v = #v; if v > #acc { #acc = v; } } }
                    }
                    _ => unreachable!("checked by the parser"),
                }
            }
            Stmt::If { cond, then, els } => {
                let c = self.expr(cond);
                let t = self.stmts(then);
                if els.is_empty() {
                    quote! { if #c { #t } }
                } else {
                    let e = self.stmts(els);
                    quote! { if #c { #t } else { #e } }
                }
            }
            Stmt::For { var, lo, hi, body } => {
                let v = local(var);
                let lo = Literal::i32_suffixed(*lo as i32);
                let hi = Literal::i32_suffixed(*hi as i32);
                let b = self.stmts(body);
                quote! { for #v in #lo..#hi { #b } }
            }
            other => self.language_stmt(other),
        }
    }

    /// A pointer expression to the element of `point` in the current row.
    fn element(&self, point: &Point, mutable: bool) -> TokenStream {
        let p = point.param;
        let d = format_ident!("d_{}", p);
        let j = Literal::usize_unsuffixed((self.dat_pos)(p));
        let g = Literal::usize_unsuffixed(self.slot_base[p] + point.slot);
        let comp = match &point.comp {
            Comp::Lit(0) => quote!(),
            Comp::Lit(c) => {
                let c = Literal::usize_unsuffixed(*c as usize);
                quote!(+ #c)
            }
            Comp::Var(v) => {
                let v = local(v);
                quote!(+ (#v as usize))
            }
        };
        let index = quote!((i * (if UNIT { 1 } else { steps[#j] }) + rel[#g] #comp));
        if mutable {
            quote!(#d.get_unchecked_mut(#index))
        } else {
            quote!(#d.get_unchecked(#index))
        }
    }

    pub(crate) fn expr(&self, e: &Expr) -> TokenStream {
        match e {
            Expr::Float(v, Ty::F32) => Literal::f32_suffixed(*v as f32).into_token_stream(),
            Expr::Float(v, _) => Literal::f64_suffixed(*v).into_token_stream(),
            Expr::Int(v, Ty::U32) => Literal::u32_suffixed(*v as u32).into_token_stream(),
            Expr::Int(v, _) => Literal::i32_suffixed(*v as i32).into_token_stream(),
            Expr::Bool(b) => quote!(#b),
            Expr::Local(name, _) => {
                let n = local(name);
                quote!(#n)
            }
            Expr::Load(point, _) => {
                let el = self.element(point, false);
                quote!((*#el))
            }
            Expr::Global(p, _) => {
                let g = format_ident!("g_{}", p);
                quote!(#g)
            }
            Expr::Idx(0) => quote!((x0 + i as i32)),
            Expr::Idx(1) => quote!(y),
            Expr::Idx(_) => quote!(z),
            Expr::Unary(UnOp::Neg, a, t) => {
                let a = self.expr(a);
                if t.is_int() {
                    quote!((#a).wrapping_neg())
                } else {
                    quote!((-#a))
                }
            }
            Expr::Unary(UnOp::Not, a, _) => {
                let a = self.expr(a);
                quote!((!#a))
            }
            Expr::Binary(op, a, b, _) => binop(*op, a.ty(), self.expr(a), self.expr(b)),
            Expr::Cast(a, t) => {
                let inner = self.expr(a);
                let t = rust_ty(*t);
                quote!(((#inner) as #t))
            }
            Expr::Call(f, args, t) => {
                let a = self.expr(&args[0]);
                let b = args.get(1).map(|b| self.expr(b));
                match (f, t.is_int()) {
                    (MathFn::Abs, true) if *t == Ty::U32 => a,
                    (MathFn::Abs, true) => quote!((#a).wrapping_abs()),
                    (MathFn::Min, true) => quote!(::core::cmp::min(#a, #b)),
                    (MathFn::Max, true) => quote!(::core::cmp::max(#a, #b)),
                    // Fortran-style MIN/MAX (a select; either operand if one is NaN), which
                    // compiles to one minsd/maxsd instead of Rust's NaN-aware sequence.
                    (MathFn::Min, false) => {
                        quote!({ let a = #a; let b = #b; if b < a { b } else { a } })
                    }
                    (MathFn::Max, false) => {
                        quote!({ let a = #a; let b = #b; if b > a { b } else { a } })
                    }
                    // One rounding, as the FMA instruction (or libm's fma without one).
                    (MathFn::MulAdd, _) => {
                        let c = args.get(2).map(|c| self.expr(c));
                        quote!((#a).mul_add(#b, #c))
                    }
                    _ => {
                        let m = Ident::new(f.name(), Span::call_site());
                        quote!((#a).#m(#b))
                    }
                }
            }
            Expr::If(c, then, els, _) => {
                let c = self.expr(c);
                let tl = self.stmts(&then.lets);
                let tv = self.expr(&then.value);
                let el = self.stmts(&els.lets);
                let ev = self.expr(&els.value);
                quote!((if #c { #tl #tv } else { #el #ev }))
            }
            other => self.language_expr(other),
        }
    }
}

use quote::ToTokens;

pub(crate) fn local(name: &str) -> Ident {
    format_ident!("l_{}", name)
}

/// `a op b` with integer arithmetic wrapping, as WGSL does.
pub(crate) fn binop(op: BinOp, operand: Ty, a: TokenStream, b: TokenStream) -> TokenStream {
    if operand.is_int() {
        match op {
            BinOp::Add => return quote!((#a).wrapping_add(#b)),
            BinOp::Sub => return quote!((#a).wrapping_sub(#b)),
            BinOp::Mul => return quote!((#a).wrapping_mul(#b)),
            _ => {}
        }
    }
    let sym: TokenStream = op.symbol().parse().expect("operator");
    quote!((#a #sym #b))
}
