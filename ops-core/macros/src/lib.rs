//! `#[kernel]`: one kernel source, CPU and GPU code from it.
//!
//! The attribute parses a restricted Rust `fn` (the kernel language of `docs/kernels.md`) into a
//! small typed IR (`ir`), checks names, types and access modes, and lowers the IR twice: to the
//! CPU entry point `Kernel::run` (`cpu`, `cpu_lang`) and to a WGSL compute shader (`wgsl`). The `fn` is
//! replaced by a unit struct of the same name implementing `ops_core::kernel::Kernel`, which also
//! records each parameter's access mode and the stencil offsets the body uses.
//!
//! `#[kernel_fn]` and `#[kernel_const]` mark functions and constants kernels may use; how a
//! kernel learns their signatures across modules and crates is described in the `items` module.
//!
//! Use them through `ops_core::kernel` (or the `ops` facade); see that crate for examples.

mod builtin;
mod cpu;
mod cpu_lang;
mod ir;
mod items;
mod parse;
mod runtime;
mod wgsl;

use ir::{Access, ParamKind, ReduceOp, Ty};
use items::{ItemSig, ItemTable};
use proc_macro::TokenStream;
use proc_macro2::Literal;
use quote::quote;

/// Turns a kernel `fn` into a unit struct implementing `ops_core::kernel::Kernel`.
///
/// See `docs/kernels.md` for the language. Anything outside it is a compile error pointing at the
/// offending code.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    attribute("kernel", attr, item, |item| {
        let func: syn::ItemFn = syn::parse2(item)?;
        let refs = items::references(&func);
        if refs.is_empty() {
            return expand(&func, &ItemTable::default());
        }
        let module = runtime::kernel_module();
        Ok(items::request(&refs, &module, quote!(kernel #func)))
    })
}

/// Marks a function kernels may call: scalars in, one scalar out, its body in the kernel
/// language (without dataset access). It stays an ordinary (inlined) Rust function, and also
/// gets a WGSL form that the shaders of the kernels calling it include.
///
/// See `docs/kernels.md`.
#[proc_macro_attribute]
pub fn kernel_fn(attr: TokenStream, item: TokenStream) -> TokenStream {
    attribute("kernel_fn", attr, item, |item| {
        let func: syn::ItemFn = syn::parse2(item)?;
        let refs = items::references(&func);
        // Resolving a call to itself would wait for a macro this very expansion defines.
        if let Some(me) = refs.iter().find(|p| p.is_ident(&func.sig.ident)) {
            return Err(syn::Error::new_spanned(
                me,
                "kernel functions cannot call themselves (WGSL has no recursion)",
            ));
        }
        if refs.is_empty() {
            return expand_fn(&func, &ItemTable::default());
        }
        let module = runtime::kernel_module();
        Ok(items::request(&refs, &module, quote!(kernel_fn #func)))
    })
}

/// Marks a constant kernels may use by name: a scalar (`f64`, `f32`, `i32`, `u32`, `bool`) or an
/// array of numbers, whose value is a constant expression of the kernel language. It stays an
/// ordinary Rust `const`.
///
/// See `docs/kernels.md`.
#[proc_macro_attribute]
pub fn kernel_const(attr: TokenStream, item: TokenStream) -> TokenStream {
    attribute("kernel_const", attr, item, |item| {
        let c: syn::ItemConst = syn::parse2(item)
            .map_err(|e| syn::Error::new(e.span(), "#[kernel_const] marks a `const` item"))?;
        let refs = items::references_in_expr(&c.expr);
        if refs.is_empty() {
            return expand_const(&c, &ItemTable::default());
        }
        let module = runtime::kernel_module();
        Ok(items::request(&refs, &module, quote!(kernel_const #c)))
    })
}

/// The last step of resolving a kernel item's references (see the `items` module); not for
/// direct use.
#[doc(hidden)]
#[proc_macro]
pub fn resolved(input: TokenStream) -> TokenStream {
    let r = match syn::parse::<items::Resolved>(input) {
        Ok(r) => r,
        Err(e) => return e.to_compile_error().into(),
    };
    let out = match r.kind.to_string().as_str() {
        "kernel" => syn::parse2(r.item).and_then(|f| expand(&f, &r.table)),
        "kernel_fn" => syn::parse2(r.item).and_then(|f| expand_fn(&f, &r.table)),
        _ => syn::parse2(r.item).and_then(|c| expand_const(&c, &r.table)),
    };
    match out {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn attribute(
    name: &str,
    attr: TokenStream,
    item: TokenStream,
    f: impl FnOnce(proc_macro2::TokenStream) -> syn::Result<proc_macro2::TokenStream>,
) -> TokenStream {
    let attr = proc_macro2::TokenStream::from(attr);
    if !attr.is_empty() {
        return syn::Error::new_spanned(attr, format!("#[{name}] takes no arguments"))
            .to_compile_error()
            .into();
    }
    match f(item.into()) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// A `#[kernel_fn]` with its callees known: the Rust function, and the macro answering for it.
fn expand_fn(func: &syn::ItemFn, table: &ItemTable) -> syn::Result<proc_macro2::TokenStream> {
    let f = parse::kernel_fn(func, table)?;
    let rust = cpu_lang::kernel_fn_item(&f, func);
    let wgsl = match (f.helpers.as_ref(), wgsl::function(&f).as_ref()) {
        (Err(why), _) | (Ok(_), Err(why)) => Err(why.clone()),
        (Ok(helpers), Ok(own)) => {
            let mut all = helpers.clone();
            all.push((f.wgsl_name.clone(), own.clone()));
            Ok(all)
        }
    };
    let sig = ItemSig::Fn(items::FnSig {
        wgsl_name: f.wgsl_name.clone(),
        params: f.params.iter().map(|p| p.ty).collect(),
        ret: f.ret,
        wgsl,
    });
    let answer = items::answering_macro(&f.name, &func.vis, &sig);
    Ok(quote! { #rust #answer })
}

/// A `#[kernel_const]` with its references known: the `const` itself, a compile-time check that
/// the compiler's value is the folded one kernels use, and the macro answering for it.
fn expand_const(c: &syn::ItemConst, table: &ItemTable) -> syn::Result<proc_macro2::TokenStream> {
    let value = parse::kernel_const(c, table)?;
    let name = &c.ident;
    let check = match &value {
        items::ConstValue::Scalar(v) => {
            let v = items::literal_tokens(v);
            quote!(#name == #v)
        }
        items::ConstValue::Array(_, vs) => {
            let terms = vs.iter().enumerate().map(|(i, v)| {
                let v = items::literal_tokens(v);
                quote!(#name[#i] == #v)
            });
            quote!(true #(&& #terms)*)
        }
    };
    let answer = items::answering_macro(name, &c.vis, &ItemSig::Const(value));
    Ok(quote! {
        #c
        #[allow(clippy::all)]
        const _: () = ::core::assert!(#check, "#[kernel_const]: the folded value differs from the compiler's");
        #answer
    })
}

fn expand(func: &syn::ItemFn, table: &ItemTable) -> syn::Result<proc_macro2::TokenStream> {
    let k = parse::kernel(func, table)?;
    let c = runtime::kernel_module();
    let name = &k.name;
    let name_str = name.to_string();
    let vis = &func.vis;
    let docs: Vec<&syn::Attribute> = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();

    let params = k.params.iter().map(|p| {
        let pname = p.name.to_string();
        let kind = match p.kind {
            ParamKind::Dat(a) => {
                let a = match a {
                    Access::Read => quote!(Read),
                    Access::Write => quote!(Write),
                    Access::ReadWrite => quote!(ReadWrite),
                    Access::Inc => quote!(Inc),
                };
                quote!(#c::ParamKind::Dat(#c::Access::#a))
            }
            ParamKind::Global => quote!(#c::ParamKind::Global),
            ParamKind::Reduce(op) => {
                let op = match op {
                    ReduceOp::Min => quote!(Min),
                    ReduceOp::Max => quote!(Max),
                    ReduceOp::Sum => quote!(Sum),
                };
                quote!(#c::ParamKind::Reduce(#c::ReduceOp::#op))
            }
            ParamKind::Idx => quote!(#c::ParamKind::Idx),
        };
        let ty = match p.ty {
            Ty::F64 => quote!(F64),
            Ty::F32 => quote!(F32),
            _ => quote!(I32),
        };
        let offsets = p.offsets.iter().map(|o| {
            let [a, b, d] = o.map(Literal::i32_unsuffixed);
            quote!([#a, #b, #d])
        });
        let dims = p.offset_dims;
        let comps = p.components;
        let full_write = p.full_write;
        quote! {
            #c::Param {
                name: #pname,
                kind: #kind,
                ty: #c::ElemType::#ty,
                offsets: &[#(#offsets),*],
                offset_dims: #dims,
                components: #comps,
                full_write: #full_write,
            }
        }
    });

    // The kernel functions it calls come first (WGSL allows any order; this reads better).
    let wgsl = match (k.helpers.as_ref(), wgsl::kernel(&k).as_ref()) {
        (Err(why), _) | (Ok(_), Err(why)) => quote!(::core::result::Result::Err(#why)),
        (Ok(helpers), Ok(main)) => {
            let mut src: String = helpers.iter().map(|(_, text)| text.as_str()).collect();
            src.push_str(main);
            quote!(::core::result::Result::Ok(#src))
        }
    };
    let run = cpu::run_fn(&k);

    Ok(quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #name;

        impl #c::Kernel for #name {
            fn name(&self) -> &'static str {
                #name_str
            }

            fn params(&self) -> &'static [#c::Param] {
                const PARAMS: &[#c::Param] = &[#(#params),*];
                PARAMS
            }

            fn wgsl(&self) -> ::core::result::Result<&'static str, &'static str> {
                #wgsl
            }

            #run
        }

        #c::__private::inventory::submit! {
            #c::Registered(&#name)
        }
    })
}
