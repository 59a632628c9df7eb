//! Compile-time evaluation: the values of `const` items, and the ranges of array indices.
//!
//! Float arithmetic is IEEE in the constant's own type (f32 values are rounded to f32 after every
//! operation), as Rust's const evaluation does, so a folded constant is the value the compiler
//! gives the `const` item (`#[kernel_const]` also asserts that at compile time).

use crate::ir::*;

/// Why an expression is not a constant.
pub type FoldError = String;

/// Folds a typed expression into a literal (`Expr::Float`, `Expr::Int` or `Expr::Bool`).
pub fn fold(e: &Expr) -> Result<Expr, FoldError> {
    Ok(match e {
        Expr::Float(..) | Expr::Int(..) | Expr::Bool(_) => e.clone(),
        Expr::Unary(UnOp::Neg, a, t) => match fold(a)? {
            Expr::Float(v, _) => Expr::Float(-v, *t),
            Expr::Int(v, _) => int(v.checked_neg(), *t)?,
            other => return Err(format!("cannot negate {other:?}")),
        },
        Expr::Unary(UnOp::Not, a, _) => match fold(a)? {
            Expr::Bool(b) => Expr::Bool(!b),
            other => return Err(format!("cannot apply `!` to {other:?}")),
        },
        Expr::Binary(op, a, b, t) => binary(*op, fold(a)?, fold(b)?, *t)?,
        Expr::Cast(a, t) => cast(fold(a)?, *t)?,
        Expr::If(c, then, els, _) if then.lets.is_empty() && els.lets.is_empty() => {
            match fold(c)? {
                Expr::Bool(true) => fold(&then.value)?,
                Expr::Bool(false) => fold(&els.value)?,
                other => return Err(format!("not a condition: {other:?}")),
            }
        }
        _ => {
            return Err(
                "only literals, constants, arithmetic, comparisons and casts can be evaluated \
                 at compile time"
                    .into(),
            )
        }
    })
}

fn int(v: Option<i64>, t: Ty) -> Result<Expr, FoldError> {
    let v = v.ok_or("overflow in a constant")?;
    let fits = match t {
        Ty::I32 => i32::try_from(v).is_ok(),
        Ty::U32 => u32::try_from(v).is_ok(),
        _ => false,
    };
    if !fits {
        return Err(format!("overflow in a constant: {v} is not a {}", t.rust()));
    }
    Ok(Expr::Int(v, t))
}

/// Rounds to the constant's type.
fn float(v: f64, t: Ty) -> Result<Expr, FoldError> {
    let v = if t == Ty::F32 { v as f32 as f64 } else { v };
    if !v.is_finite() {
        return Err("the constant is not finite".into());
    }
    Ok(Expr::Float(v, t))
}

fn binary(op: BinOp, a: Expr, b: Expr, t: Ty) -> Result<Expr, FoldError> {
    use BinOp::*;
    Ok(match (a, b) {
        (Expr::Float(x, ft), Expr::Float(y, _)) => {
            if op.is_comparison() {
                return Ok(Expr::Bool(match op {
                    Eq => x == y,
                    Ne => x != y,
                    Lt => x < y,
                    Le => x <= y,
                    Gt => x > y,
                    _ => x >= y,
                }));
            }
            if ft == Ty::F32 {
                let (x, y) = (x as f32, y as f32);
                let v = match op {
                    Add => x + y,
                    Sub => x - y,
                    Mul => x * y,
                    Div => x / y,
                    Rem => x % y,
                    _ => return Err(format!("`{}` on floats", op.symbol())),
                };
                float(v as f64, t)?
            } else {
                let v = match op {
                    Add => x + y,
                    Sub => x - y,
                    Mul => x * y,
                    Div => x / y,
                    Rem => x % y,
                    _ => return Err(format!("`{}` on floats", op.symbol())),
                };
                float(v, t)?
            }
        }
        (Expr::Int(x, _), Expr::Int(y, _)) => match op {
            Add => int(x.checked_add(y), t)?,
            Sub => int(x.checked_sub(y), t)?,
            Mul => int(x.checked_mul(y), t)?,
            Div => int(x.checked_div(y).filter(|_| y != 0), t)?,
            Rem => int(x.checked_rem(y).filter(|_| y != 0), t)?,
            Eq => Expr::Bool(x == y),
            Ne => Expr::Bool(x != y),
            Lt => Expr::Bool(x < y),
            Le => Expr::Bool(x <= y),
            Gt => Expr::Bool(x > y),
            Ge => Expr::Bool(x >= y),
            And | Or => return Err("`&&`/`||` on integers".into()),
        },
        (Expr::Bool(x), Expr::Bool(y)) => Expr::Bool(match op {
            And => x && y,
            Or => x || y,
            Eq => x == y,
            Ne => x != y,
            _ => return Err(format!("`{}` on bools", op.symbol())),
        }),
        (a, b) => return Err(format!("cannot fold {a:?} {} {b:?}", op.symbol())),
    })
}

/// `as`, with Rust's rules (float to integer saturates, NaN gives 0).
fn cast(a: Expr, to: Ty) -> Result<Expr, FoldError> {
    Ok(match (a, to) {
        (Expr::Float(v, _), Ty::F64 | Ty::F32) => float(v, to)?,
        (Expr::Float(v, _), Ty::I32) => Expr::Int(v as i32 as i64, Ty::I32),
        (Expr::Float(v, _), Ty::U32) => Expr::Int(v as u32 as i64, Ty::U32),
        (Expr::Int(v, _), Ty::F64) => Expr::Float(v as f64, Ty::F64),
        (Expr::Int(v, _), Ty::F32) => Expr::Float(v as f32 as f64, Ty::F32),
        (Expr::Int(v, _), Ty::I32) => Expr::Int(v as i32 as i64, Ty::I32),
        (Expr::Int(v, _), Ty::U32) => Expr::Int(v as u32 as i64, Ty::U32),
        (Expr::Bool(b), Ty::I32 | Ty::U32) => Expr::Int(b as i64, to),
        (a, _) => return Err(format!("cannot cast {a:?} to {}", to.rust())),
    })
}

/// The smallest and largest value an integer expression can take, when that is known at compile
/// time: literals, constants, `for` variables (`bounds` gives their ranges), and `+ - *` of
/// those. Array indices must have one inside the array.
pub fn int_range(e: &Expr, bounds: &dyn Fn(&str) -> Option<(i64, i64)>) -> Option<(i64, i64)> {
    match e {
        Expr::Int(v, _) => Some((*v, *v)),
        Expr::Local(name, _) => bounds(name),
        Expr::Cast(a, t) if t.is_int() && a.ty().is_int() => int_range(a, bounds),
        Expr::Unary(UnOp::Neg, a, _) => int_range(a, bounds).map(|(lo, hi)| (-hi, -lo)),
        Expr::Binary(op, a, b, _) => {
            let (al, ah) = int_range(a, bounds)?;
            let (bl, bh) = int_range(b, bounds)?;
            match op {
                BinOp::Add => Some((al + bl, ah + bh)),
                BinOp::Sub => Some((al - bh, ah - bl)),
                BinOp::Mul => {
                    let c = [al * bl, al * bh, ah * bl, ah * bh];
                    Some((*c.iter().min()?, *c.iter().max()?))
                }
                _ => None,
            }
        }
        _ => None,
    }
}
