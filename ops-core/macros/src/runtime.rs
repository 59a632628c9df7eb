//! Where generated code finds the runtime: `ops_core`, reached directly or through a facade.
//!
//! An application depending only on the `ops` facade has no `ops_core` in its crate root, so a
//! fixed `::ops_core::...` path would not resolve there. The macro reads the using crate's
//! `Cargo.toml` (through `proc-macro-crate`) and picks the first of `ops-core`, `ops`,
//! `ops-backends` it depends on; the facades re-export `ops_core`.

use proc_macro2::{Ident, Span, TokenStream};
use proc_macro_crate::{crate_name, FoundCrate};
use quote::quote;

/// The path of the `ops_core` crate in the crate being compiled, e.g. `::ops_core` or
/// `::ops::ops_core`.
pub fn ops_core() -> TokenStream {
    let root = |name: &str| Ident::new(&name.replace('-', "_"), Span::call_site());
    match crate_name("ops-core") {
        // ops-core's own tests and doctests; the library names itself with
        // `extern crate self as ops_core`.
        Ok(FoundCrate::Itself) => return quote!(::ops_core),
        Ok(FoundCrate::Name(n)) => {
            let n = root(&n);
            return quote!(::#n);
        }
        Err(_) => {}
    }
    for facade in ["ops", "ops-backends"] {
        if let Ok(FoundCrate::Name(n)) = crate_name(facade) {
            let n = root(&n);
            return quote!(::#n::ops_core);
        }
    }
    // No manifest to read (a build outside cargo): the direct name is the best guess, and the
    // compiler's error will name it.
    quote!(::ops_core)
}

/// `<ops_core>::kernel`, the module of the contract with generated code.
pub fn kernel_module() -> TokenStream {
    let core = ops_core();
    quote!(#core::kernel)
}
