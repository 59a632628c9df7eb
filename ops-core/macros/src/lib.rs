//! `#[kernel]`: one kernel source, CPU and GPU code from it.
//!
//! The attribute parses a restricted Rust `fn` (the kernel language of `docs/kernels.md`) into a
//! small typed IR ([`ir`]), checks names, types and access modes, and lowers the IR twice: to the
//! CPU entry point `Kernel::run` ([`cpu`]) and to a WGSL compute shader ([`wgsl`]). The `fn` is
//! replaced by a unit struct of the same name implementing `ops_core::kernel::Kernel`, which also
//! records each parameter's access mode and the stencil offsets the body uses.
//!
//! Use it through `ops_core::kernel`; see that crate for examples.

mod cpu;
mod ir;
mod parse;
mod wgsl;

use ir::{Access, ParamKind, ReduceOp, Ty};
use proc_macro::TokenStream;
use proc_macro2::Literal;
use quote::quote;

/// Turns a kernel `fn` into a unit struct implementing `ops_core::kernel::Kernel`.
///
/// See `docs/kernels.md` for the language. Anything outside it is a compile error pointing at the
/// offending code.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = proc_macro2::TokenStream::from(attr);
    if !attr.is_empty() {
        return syn::Error::new_spanned(attr, "#[kernel] takes no arguments")
            .to_compile_error()
            .into();
    }
    let func = match syn::parse::<syn::ItemFn>(item) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error().into(),
    };
    match expand(&func) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(func: &syn::ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let k = parse::kernel(func)?;
    let c = quote!(::ops_core::kernel);
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

    let wgsl = match wgsl::kernel(&k) {
        Ok(src) => quote!(::core::result::Result::Ok(#src)),
        Err(why) => quote!(::core::result::Result::Err(#why)),
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
