//! Paths the kernel language knows without being told: the constants of `std::f64::consts`
//! (and `f32`), a few associated constants (`f64::EPSILON`, `i32::MAX`, ...), and the math
//! methods written as associated functions (`f64::max(a, b)`, `f64::sqrt(x)`).

use crate::ir::{Expr, MathFn, Ty};

/// The segments of `p` as strings, without a leading `std`/`core` (and `::`).
fn segments(p: &syn::Path) -> Vec<String> {
    let mut s: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    if s.len() > 1 && (s[0] == "std" || s[0] == "core") {
        s.remove(0);
    }
    s
}

/// The value of a built-in constant path, or an error for one the language cannot offer;
/// `None` when the path is not a built-in constant at all.
pub fn constant(p: &syn::Path) -> Option<Result<Expr, String>> {
    if p.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let s = segments(p);
    let (ty, name) = match s.as_slice() {
        [t, c, name] if c == "consts" => (Ty::from_name(t)?, name.as_str()),
        [t, name] => (Ty::from_name(t)?, name.as_str()),
        _ => return None,
    };
    let float = |v64: f64, v32: f32| match ty {
        Ty::F64 => Some(Ok(Expr::Float(v64, Ty::F64))),
        Ty::F32 => Some(Ok(Expr::Float(v32 as f64, Ty::F32))),
        _ => None,
    };
    macro_rules! consts {
        ($($n:ident),*) => {
            match name {
                $(stringify!($n) if s.len() == 3 => {
                    return float(std::f64::consts::$n, std::f32::consts::$n);
                })*
                _ => {}
            }
        };
    }
    consts!(
        E,
        PI,
        TAU,
        SQRT_2,
        LN_2,
        LN_10,
        LOG2_E,
        LOG2_10,
        LOG10_E,
        LOG10_2,
        FRAC_PI_2,
        FRAC_PI_3,
        FRAC_PI_4,
        FRAC_PI_6,
        FRAC_PI_8,
        FRAC_1_PI,
        FRAC_2_PI,
        FRAC_2_SQRT_PI,
        FRAC_1_SQRT_2
    );
    if s.len() != 2 {
        return None;
    }
    match (ty, name) {
        (Ty::F64 | Ty::F32, "EPSILON") => float(f64::EPSILON, f32::EPSILON),
        (Ty::F64 | Ty::F32, "MAX") => float(f64::MAX, f32::MAX),
        (Ty::F64 | Ty::F32, "MIN") => float(f64::MIN, f32::MIN),
        (Ty::F64 | Ty::F32, "MIN_POSITIVE") => float(f64::MIN_POSITIVE, f32::MIN_POSITIVE),
        (Ty::F64 | Ty::F32, "INFINITY" | "NEG_INFINITY" | "NAN") => Some(Err(format!(
            "`{}::{name}` is not available in kernels (WGSL cannot spell infinities or NaN); \
             pass it as a Global<{}> argument",
            ty.rust(),
            ty.rust()
        ))),
        (Ty::I32, "MAX") => Some(Ok(Expr::Int(i32::MAX as i64, Ty::I32))),
        (Ty::I32, "MIN") => Some(Ok(Expr::Int(i32::MIN as i64, Ty::I32))),
        (Ty::U32, "MAX") => Some(Ok(Expr::Int(u32::MAX as i64, Ty::U32))),
        (Ty::U32, "MIN") => Some(Ok(Expr::Int(0, Ty::U32))),
        _ => None,
    }
}

/// `f64::max` in `f64::max(a, b)`: the receiver type and the math function.
pub fn math_path(p: &syn::Path) -> Option<(Ty, MathFn)> {
    let s = segments(p);
    match s.as_slice() {
        [t, f] => Some((Ty::from_name(t)?, MathFn::from_name(f)?)),
        _ => None,
    }
}
