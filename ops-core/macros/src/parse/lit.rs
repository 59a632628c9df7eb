//! Small syntactic helpers: literals, plain names, offsets, type names.

use crate::ir::*;
use syn::{Error, Result};

pub fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinOp::Add,
        syn::BinOp::SubAssign(_) => BinOp::Sub,
        syn::BinOp::MulAssign(_) => BinOp::Mul,
        syn::BinOp::DivAssign(_) => BinOp::Div,
        syn::BinOp::RemAssign(_) => BinOp::Rem,
        _ => return None,
    })
}

pub fn path_ident(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Paren(p) => path_ident(&p.expr),
        _ => None,
    }
}

pub fn int_literal(e: &syn::Expr) -> Option<i64> {
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

pub fn is_untyped_literal(e: &syn::Expr) -> bool {
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
pub fn offsets(e: &syn::Expr) -> Result<Vec<i32>> {
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

pub fn literal(l: &syn::Lit, hint: Option<Ty>) -> Result<Expr> {
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

pub fn scalar_type(t: &syn::Type) -> Result<Ty> {
    if let syn::Type::Path(p) = t {
        if let Some(ty) = p
            .path
            .get_ident()
            .and_then(|i| Ty::from_name(&i.to_string()))
        {
            return Ok(ty);
        }
    }
    if let syn::Type::Array(_) = t {
        return Err(Error::new_spanned(
            t,
            "an array type is allowed only on a `let` or `const` (`let w: [f64; 3] = ...`)",
        ));
    }
    Err(Error::new_spanned(
        t,
        "kernel types are f64, f32, i32, u32 and bool",
    ))
}

pub fn expect_ty(at: &dyn quote::ToTokens, want: Ty, got: Ty) -> Result<()> {
    if want == got {
        Ok(())
    } else {
        Err(Error::new_spanned(
            at,
            format!("expected {}, found {}", want.rust(), got.rust()),
        ))
    }
}
