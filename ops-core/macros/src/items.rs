//! Kernel items: `#[kernel_fn]`s and `#[kernel_const]`s, and how a kernel learns about them.
//!
//! A proc macro sees only the item it is attached to, yet a kernel calling `limiters::minmod`
//! must know its parameter and return types (to type the call) and its WGSL (to put it into the
//! kernel's shader). So each kernel item also defines a hidden `macro_rules!` macro, re-exported
//! under the item's own name in the macro namespace (`use limiters::minmod;` imports both the
//! function and its macro; a renamed import renames both), which hands its *signature* to a
//! continuation:
//!
//! ```text
//! #[kernel] fn k(..) { .. minmod(a, b) .. lim::K .. }
//!   expands to   minmod! { @ops_kernel_item asking: {minmod} resolve: [{lim::K}] found: [] then: [..] state: {..} }
//!   which asks   lim::K! { @ops_kernel_item asking: {lim::K} resolve: [] found: [({minmod} fn ..)] .. }
//!   which calls  <ops_core>::kernel::__private::resolved! { found: [({minmod} fn ..) ({lim::K} const ..)] state: {..} }
//! ```
//!
//! and the last macro parses the kernel again with every signature known. The signature of a
//! kernel function carries the WGSL of the function and of everything it calls (it is defined
//! only once the function's own callees are known), so a kernel's shader is complete at compile
//! time, across modules and crates. Items without references expand in one step, as before.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::visit::Visit;
use syn::{Error, Result};

use crate::ir::{Expr, HelperWgsl, Ty};

/// What a kernel needs to know about a kernel item it names.
#[derive(Clone, Debug)]
pub enum ItemSig {
    Fn(FnSig),
    Const(ConstValue),
}

/// The signature of a `#[kernel_fn]`.
#[derive(Clone, Debug)]
pub struct FnSig {
    pub wgsl_name: String,
    pub params: Vec<Ty>,
    pub ret: Ty,
    /// Its WGSL function and those of its callees (callees first), or why it has none.
    pub wgsl: HelperWgsl,
}

/// The value of a `#[kernel_const]`, folded at compile time.
#[derive(Clone, Debug)]
pub enum ConstValue {
    /// A literal expression (`Expr::Float`, `Expr::Int` or `Expr::Bool`).
    Scalar(Expr),
    /// An array of literals of one type.
    Array(Ty, Vec<Expr>),
}

/// Signatures by the path the source wrote (normalised by [`path_key`]).
#[derive(Default)]
pub struct ItemTable {
    pub sigs: BTreeMap<String, ItemSig>,
}

/// The key of a path: its tokens without spaces (`lim::minmod`, `::c::K`).
pub fn path_key(p: &syn::Path) -> String {
    p.to_token_stream().to_string().replace(' ', "")
}

/// True for `SCREAMING_CASE` names: an unknown one is taken for a constant defined outside
/// the kernel, while an unknown lower-case name is reported as unknown at once.
pub fn looks_like_const(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The kernel items `func` refers to, in order of first use: the paths of called functions
/// (other than the built-in math written as `f64::max(a, b)`) and of constants (paths with
/// several segments other than `std::f64::consts::PI` and the like, and single `SCREAMING_CASE`
/// names the body does not bind itself).
pub fn references(func: &syn::ItemFn) -> Vec<syn::Path> {
    let mut bound = Bound::default();
    for input in &func.sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            bound.visit_pat(&pt.pat);
        }
    }
    bound.visit_block(&func.block);
    let mut refs = Refs {
        bound: bound.names,
        found: Vec::new(),
    };
    refs.visit_block(&func.block);
    refs.found
}

/// References in an expression (a `#[kernel_const]` initialiser).
pub fn references_in_expr(e: &syn::Expr) -> Vec<syn::Path> {
    let mut refs = Refs {
        bound: Vec::new(),
        found: Vec::new(),
    };
    refs.visit_expr(e);
    refs.found
}

#[derive(Default)]
struct Bound {
    names: Vec<String>,
}

impl<'ast> Visit<'ast> for Bound {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        self.names.push(c.ident.to_string());
        syn::visit::visit_item_const(self, c);
    }
}

struct Refs {
    bound: Vec<String>,
    found: Vec<syn::Path>,
}

impl Refs {
    fn add(&mut self, p: &syn::Path) {
        let key = path_key(p);
        if !self.found.iter().any(|f| path_key(f) == key) {
            self.found.push(p.clone());
        }
    }
}

/// Paths the language answers for itself (`std::..`, `f64::..`, `sqrt(x)`), never kernel items:
/// the checker explains what to write when they are not what the language offers.
fn builtin_path(p: &syn::Path) -> bool {
    let first = p.segments[0].ident.to_string();
    let single = p.segments.len() == 1;
    (!single
        && (["std", "core"].contains(&first.as_str())
            || crate::ir::Ty::from_name(&first).is_some()))
        || (single && crate::ir::MathFn::from_name(&first).is_some())
}

impl<'ast> Visit<'ast> for Refs {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        match &*c.func {
            syn::Expr::Path(p) if p.qself.is_none() => {
                if !builtin_path(&p.path) {
                    self.add(&p.path);
                }
            }
            other => self.visit_expr(other),
        }
        for a in &c.args {
            self.visit_expr(a);
        }
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_some() {
            return;
        }
        let path = &p.path;
        if let Some(id) = path.get_ident() {
            let name = id.to_string();
            if looks_like_const(&name) && !self.bound.contains(&name) {
                self.add(path);
            }
        } else if !builtin_path(path) {
            self.add(path);
        }
    }

    // Method names and macro bodies are not references.
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.visit_expr(&m.receiver);
        for a in &m.args {
            self.visit_expr(a);
        }
    }
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
    // Patterns of `let`/`for`/`match` bind names or are literals.
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}
    fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
}

/// Starts resolving `refs`: asks the first one's macro for its signature, which passes the
/// question on to the next and finally calls `<ops_core>::kernel::__private::resolved!` with
/// every answer and `state` (the item to expand again, with its kind).
pub fn request(refs: &[syn::Path], kernel_module: &TokenStream, state: TokenStream) -> TokenStream {
    let (first, rest) = refs.split_first().expect("at least one reference");
    let rest = rest.iter().map(|p| quote!({ #p }));
    quote! {
        #first! {
            @ops_kernel_item
            asking: { #first }
            resolve: [ #(#rest)* ]
            found: []
            then: [ #kernel_module::__private::resolved ]
            state: { #state }
        }
    }
}

/// The hidden macro that answers for a kernel item, and its re-export under the item's name.
pub fn answering_macro(name: &Ident, vis: &syn::Visibility, sig: &ItemSig) -> TokenStream {
    let hidden = format_ident!(
        "__ops_kernel_item_{}_{}",
        name.to_string().trim_start_matches("r#"),
        unique_suffix(name)
    );
    let sig = sig_tokens(sig);
    let rules = quote! {
        (@ops_kernel_item asking: $asking:tt resolve: [ { $($next:tt)* } $($rest:tt)* ]
            found: [ $($found:tt)* ] then: $then:tt state: $state:tt) => {
            $($next)*! {
                @ops_kernel_item
                asking: { $($next)* }
                resolve: [ $($rest)* ]
                found: [ $($found)* ( $asking #sig ) ]
                then: $then
                state: $state
            }
        };
        (@ops_kernel_item asking: $asking:tt resolve: []
            found: [ $($found:tt)* ] then: [ $($then:tt)* ] state: $state:tt) => {
            $($then)*! {
                found: [ $($found)* ( $asking #sig ) ]
                state: $state
            }
        };
    };
    if matches!(vis, syn::Visibility::Public(_)) {
        // Exported so other crates can use it; reached through the re-export only.
        quote! {
            #[doc(hidden)]
            #[macro_export]
            #[allow(non_local_definitions)]
            macro_rules! #hidden { #rules }
            #[doc(hidden)]
            pub use #hidden as #name;
        }
    } else {
        quote! {
            #[doc(hidden)]
            macro_rules! #hidden { #rules }
            #[doc(hidden)]
            #[allow(unused_imports)]
            pub(crate) use #hidden as #name;
        }
    }
}

/// A suffix making the hidden macro's name unique in its crate (exported macros all live in the
/// crate root): a counter of the items this compilation expanded.
fn unique_suffix(name: &Ident) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{:08x}", fnv1a(&format!("{name}#{n}")))
}

/// FNV-1a, 32 bits: short, stable names derived from source text.
pub fn fnv1a(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

fn ty_ident(t: Ty) -> Ident {
    Ident::new(t.rust(), Span::call_site())
}

/// Tokens of a folded constant: suffixed literals (they mean the same wherever they land), the
/// sign as a separate `-`.
pub fn literal_tokens(e: &Expr) -> TokenStream {
    use proc_macro2::Literal;
    let (negative, lit) = match e {
        Expr::Float(v, Ty::F32) => (
            v.is_sign_negative(),
            Literal::f32_suffixed(v.abs() as f32).into_token_stream(),
        ),
        Expr::Float(v, _) => (
            v.is_sign_negative(),
            Literal::f64_suffixed(v.abs()).into_token_stream(),
        ),
        Expr::Int(v, Ty::U32) => (false, Literal::u32_suffixed(*v as u32).into_token_stream()),
        Expr::Int(v, _) => (*v < 0, Literal::i64_unsuffixed(v.abs()).into_token_stream()),
        Expr::Bool(b) => (false, quote!(#b)),
        other => unreachable!("not a literal: {other:?}"),
    };
    if negative {
        quote!(- #lit)
    } else {
        lit
    }
}

fn sig_tokens(sig: &ItemSig) -> TokenStream {
    match sig {
        ItemSig::Fn(f) => {
            let name = &f.wgsl_name;
            let params = f.params.iter().map(|t| ty_ident(*t));
            let ret = ty_ident(f.ret);
            let wgsl = match &f.wgsl {
                Ok(list) => {
                    let parts = list.iter().map(|(n, t)| quote!(#n #t));
                    quote!(ok { #(#parts)* })
                }
                Err(why) => quote!(err #why),
            };
            quote!(fn #name ( #(#params),* ) -> #ret #wgsl)
        }
        ItemSig::Const(ConstValue::Scalar(e)) => {
            let t = ty_ident(e.ty());
            let v = literal_tokens(e);
            quote!(const #t = #v)
        }
        ItemSig::Const(ConstValue::Array(t, items)) => {
            let t = ty_ident(*t);
            let n = items.len();
            let vs = items.iter().map(literal_tokens);
            quote!(const [#t; #n] = [ #(#vs),* ])
        }
    }
}

/// What `resolved!` receives: the answers, then the item with its kind.
pub struct Resolved {
    pub table: ItemTable,
    pub kind: Ident,
    pub item: TokenStream,
}

impl Parse for Resolved {
    fn parse(input: ParseStream) -> Result<Self> {
        keyword(input, "found")?;
        input.parse::<syn::Token![:]>()?;
        let found;
        syn::bracketed!(found in input);
        let mut table = ItemTable::default();
        while !found.is_empty() {
            let entry;
            syn::parenthesized!(entry in found);
            let path_group;
            syn::braced!(path_group in entry);
            let path: syn::Path = path_group.parse()?;
            let sig = parse_sig(&entry)?;
            table.sigs.insert(path_key(&path), sig);
        }
        keyword(input, "state")?;
        input.parse::<syn::Token![:]>()?;
        let state;
        syn::braced!(state in input);
        let kind: Ident = state.parse()?;
        let item: TokenStream = state.parse()?;
        Ok(Resolved { table, kind, item })
    }
}

fn keyword(input: ParseStream, word: &str) -> Result<()> {
    let id: Ident = input.parse()?;
    if id != word {
        return Err(Error::new(id.span(), format!("expected `{word}`")));
    }
    Ok(())
}

fn parse_ty(input: ParseStream) -> Result<Ty> {
    let id: Ident = input.parse()?;
    Ty::from_name(&id.to_string()).ok_or_else(|| Error::new(id.span(), "not a kernel type"))
}

fn parse_sig(input: ParseStream) -> Result<ItemSig> {
    if input.peek(syn::Token![fn]) {
        input.parse::<syn::Token![fn]>()?;
        let wgsl_name: syn::LitStr = input.parse()?;
        let params;
        syn::parenthesized!(params in input);
        let mut tys = Vec::new();
        while !params.is_empty() {
            tys.push(parse_ty(&params)?);
            if !params.is_empty() {
                params.parse::<syn::Token![,]>()?;
            }
        }
        input.parse::<syn::Token![->]>()?;
        let ret = parse_ty(input)?;
        let verdict: Ident = input.parse()?;
        let wgsl = if verdict == "ok" {
            let list;
            syn::braced!(list in input);
            let mut fns = Vec::new();
            while !list.is_empty() {
                let n: syn::LitStr = list.parse()?;
                let t: syn::LitStr = list.parse()?;
                fns.push((n.value(), t.value()));
            }
            Ok(fns)
        } else {
            let why: syn::LitStr = input.parse()?;
            Err(why.value())
        };
        return Ok(ItemSig::Fn(FnSig {
            wgsl_name: wgsl_name.value(),
            params: tys,
            ret,
            wgsl,
        }));
    }
    input.parse::<syn::Token![const]>()?;
    if input.peek(syn::token::Bracket) {
        let ty;
        syn::bracketed!(ty in input);
        let t = parse_ty(&ty)?;
        ty.parse::<syn::Token![;]>()?;
        ty.parse::<syn::LitInt>()?;
        input.parse::<syn::Token![=]>()?;
        let items;
        syn::bracketed!(items in input);
        let mut vs = Vec::new();
        while !items.is_empty() {
            vs.push(parse_literal(&items, t)?);
            if !items.is_empty() {
                items.parse::<syn::Token![,]>()?;
            }
        }
        return Ok(ItemSig::Const(ConstValue::Array(t, vs)));
    }
    let t = parse_ty(input)?;
    input.parse::<syn::Token![=]>()?;
    Ok(ItemSig::Const(ConstValue::Scalar(parse_literal(input, t)?)))
}

fn parse_literal(input: ParseStream, t: Ty) -> Result<Expr> {
    let negative = input.peek(syn::Token![-]);
    if negative {
        input.parse::<syn::Token![-]>()?;
    }
    let sign = if negative { -1.0 } else { 1.0 };
    let lit: syn::Lit = input.parse()?;
    Ok(match (lit, t) {
        (syn::Lit::Float(f), t) => Expr::Float(sign * f.base10_parse::<f64>()?, t),
        (syn::Lit::Int(i), t) if t.is_float() => Expr::Float(sign * i.base10_parse::<f64>()?, t),
        (syn::Lit::Int(i), t) => Expr::Int(sign as i64 * i.base10_parse::<i64>()?, t),
        (syn::Lit::Bool(b), _) => Expr::Bool(b.value),
        (other, _) => return Err(Error::new_spanned(other, "not a kernel constant")),
    })
}
