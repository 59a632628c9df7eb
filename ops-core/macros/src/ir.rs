//! The typed kernel IR: small enough that every construct lowers to both Rust and WGSL.

use proc_macro2::Ident;

/// Scalar types of the kernel language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    F64,
    F32,
    I32,
    U32,
    Bool,
}

impl Ty {
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F64 | Ty::F32)
    }
    pub fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::U32)
    }
    pub fn is_numeric(self) -> bool {
        self.is_float() || self.is_int()
    }
    pub fn rust(self) -> &'static str {
        match self {
            Ty::F64 => "f64",
            Ty::F32 => "f32",
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::Bool => "bool",
        }
    }
    pub fn wgsl(self) -> &'static str {
        match self {
            Ty::F64 => "f64",
            Ty::F32 => "f32",
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::Bool => "bool",
        }
    }
    pub fn from_name(name: &str) -> Option<Ty> {
        Some(match name {
            "f64" => Ty::F64,
            "f32" => Ty::F32,
            "i32" => Ty::I32,
            "u32" => Ty::U32,
            "bool" => Ty::Bool,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    ReadWrite,
    Inc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Min,
    Max,
    Sum,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Dat(Access),
    Global,
    Reduce(ReduceOp),
    Idx,
}

/// A kernel parameter and what the body does with it.
pub struct Param {
    pub name: Ident,
    pub kind: ParamKind,
    /// Element type (`I32` for the index).
    pub ty: Ty,
    /// Distinct stencil offsets the body uses, in order of first use.
    pub offsets: Vec<[i32; 3]>,
    /// Number of coordinates the body's offsets have (0 if none used yet).
    pub offset_dims: u8,
    /// One past the largest component index the body can touch.
    pub components: u32,
    /// `Write` parameter assigned at every component on every path (set after parsing).
    pub full_write: bool,
}

impl Param {
    pub fn is_dat(&self) -> bool {
        matches!(self.kind, ParamKind::Dat(_))
    }
    /// Index of `off` in `offsets`, adding it if new.
    pub fn offset_slot(&mut self, off: [i32; 3]) -> usize {
        match self.offsets.iter().position(|o| *o == off) {
            Some(i) => i,
            None => {
                self.offsets.push(off);
                self.offsets.len() - 1
            }
        }
    }
}

/// Which component of a multi-component dataset an access touches.
#[derive(Clone, Debug)]
pub enum Comp {
    Lit(u32),
    /// A `for` loop variable (its unique local name).
    Var(String),
}

/// One access to a dataset point: parameter, offset slot, component.
#[derive(Clone, Debug)]
pub struct Point {
    pub param: usize,
    pub slot: usize,
    pub comp: Comp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    pub fn is_logic(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Sqrt,
    Abs,
    Min,
    Max,
    Powi,
    Powf,
    Exp,
    Ln,
    Floor,
    Ceil,
    Signum,
    Copysign,
    Clamp,
    MulAdd,
}

impl MathFn {
    pub fn from_name(name: &str) -> Option<MathFn> {
        Some(match name {
            "sqrt" => MathFn::Sqrt,
            "abs" => MathFn::Abs,
            "min" => MathFn::Min,
            "max" => MathFn::Max,
            "powi" => MathFn::Powi,
            "powf" => MathFn::Powf,
            "exp" => MathFn::Exp,
            "ln" => MathFn::Ln,
            "floor" => MathFn::Floor,
            "ceil" => MathFn::Ceil,
            "signum" => MathFn::Signum,
            "copysign" => MathFn::Copysign,
            "clamp" => MathFn::Clamp,
            "mul_add" => MathFn::MulAdd,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Abs => "abs",
            MathFn::Min => "min",
            MathFn::Max => "max",
            MathFn::Powi => "powi",
            MathFn::Powf => "powf",
            MathFn::Exp => "exp",
            MathFn::Ln => "ln",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Signum => "signum",
            MathFn::Copysign => "copysign",
            MathFn::Clamp => "clamp",
            MathFn::MulAdd => "mul_add",
        }
    }
    /// Number of arguments besides the receiver.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Min | MathFn::Max | MathFn::Powi | MathFn::Powf | MathFn::Copysign => 1,
            MathFn::Clamp | MathFn::MulAdd => 2,
            _ => 0,
        }
    }
    /// Whether the function is defined for integers too.
    pub fn allows_int(self) -> bool {
        matches!(
            self,
            MathFn::Abs | MathFn::Min | MathFn::Max | MathFn::Signum | MathFn::Clamp
        )
    }
}

/// A typed expression.
#[derive(Clone, Debug)]
pub enum Expr {
    Float(f64, Ty),
    Int(i64, Ty),
    Bool(bool),
    Local(String, Ty),
    Load(Point, Ty),
    Global(usize, Ty),
    Idx(usize),
    Unary(UnOp, Box<Expr>, Ty),
    Binary(BinOp, Box<Expr>, Box<Expr>, Ty),
    Cast(Box<Expr>, Ty),
    Call(MathFn, Vec<Expr>, Ty),
    /// `if c { lets; a } else { lets; b }` used as a value.
    If(Box<Expr>, Box<ValueBlock>, Box<ValueBlock>, Ty),
    /// A call of a `#[kernel_fn]`: index into the kernel's [`Callee`] table, arguments.
    CallFn(usize, Vec<Expr>, Ty),
    /// `a[i]` on a local array (its unique name); the index is an `i32` proven in bounds.
    ArrayGet(String, Box<Expr>, Ty),
    /// `match` on an integer used as a value: scrutinee, arms, the `_` arm.
    Match(Box<Expr>, Vec<Arm<ValueBlock>>, Box<ValueBlock>, Ty),
}

impl Expr {
    pub fn ty(&self) -> Ty {
        match self {
            Expr::Float(_, t)
            | Expr::Int(_, t)
            | Expr::Local(_, t)
            | Expr::Load(_, t)
            | Expr::Global(_, t)
            | Expr::Unary(_, _, t)
            | Expr::Binary(_, _, _, t)
            | Expr::Cast(_, t)
            | Expr::Call(_, _, t)
            | Expr::If(_, _, _, t)
            | Expr::CallFn(_, _, t)
            | Expr::ArrayGet(_, _, t)
            | Expr::Match(_, _, _, t) => *t,
            Expr::Bool(_) => Ty::Bool,
            Expr::Idx(_) => Ty::I32,
        }
    }
}

/// One arm of a `match`: the patterns (`1 | 2 | 5..=9`), then what it does or yields.
#[derive(Clone, Debug)]
pub struct Arm<B> {
    pub patterns: Vec<Pattern>,
    pub body: B,
}

/// A `match` pattern on an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    Int(i64),
    /// `lo..=hi` (an exclusive `lo..hi` is stored as `lo..=hi - 1`).
    Range(i64, i64),
}

/// How a local array starts.
#[derive(Clone, Debug)]
pub enum ArrayInit {
    /// `[a, b, c]`
    List(Vec<Expr>),
    /// `[v; n]`
    Repeat(Expr, usize),
}

/// A branch of a value `if`: local bindings, then the value.
#[derive(Clone, Debug)]
pub struct ValueBlock {
    pub lets: Vec<Stmt>,
    pub value: Expr,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let` with a unique local name.
    Let {
        name: String,
        ty: Ty,
        init: Option<Expr>,
    },
    /// `name op= value` on a local (`op` None for plain assignment).
    AssignLocal {
        name: String,
        op: Option<BinOp>,
        value: Expr,
    },
    /// `a[(0, 0)] op= value`.
    Store {
        point: Point,
        op: Option<BinOp>,
        value: Expr,
    },
    /// `r.update(value)`.
    Reduce { param: usize, value: Expr },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    For {
        var: String,
        lo: i64,
        hi: i64,
        body: Vec<Stmt>,
    },
    /// `let a = [..];` with a unique local name.
    LetArray {
        name: String,
        elem: Ty,
        len: usize,
        init: ArrayInit,
    },
    /// `a[i] op= value` on a `let mut` array.
    AssignArray {
        name: String,
        index: Expr,
        op: Option<BinOp>,
        value: Expr,
    },
    /// `match` on an integer as a statement; `default` is the `_` arm.
    Match {
        scrutinee: Expr,
        arms: Vec<Arm<Vec<Stmt>>>,
        default: Vec<Stmt>,
    },
    /// `return value;` (kernel functions only).
    Return(Expr),
}

/// A `#[kernel_fn]` a kernel (or kernel function) calls, as the caller names it.
#[derive(Clone, Debug)]
pub struct Callee {
    /// The path written at the call (`minmod`, `limiters::minmod`), for the CPU code.
    pub path: syn::Path,
    /// The name of its WGSL function.
    pub wgsl_name: String,
}

/// The WGSL functions a kernel needs besides its entry point: every kernel function it calls,
/// directly or not, each once, callees first; or why one of them has no WGSL form.
pub type HelperWgsl = Result<Vec<(String, String)>, String>;

/// A checked kernel.
pub struct Kernel {
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub callees: Vec<Callee>,
    pub helpers: HelperWgsl,
}

/// A parameter of a kernel function.
pub struct FnParam {
    /// The name in the source (the Rust function keeps it).
    pub source: Ident,
    /// The unique local name the body uses.
    pub unique: String,
    pub ty: Ty,
    pub mutable: bool,
}

/// A checked `#[kernel_fn]`: scalars in, one scalar out.
pub struct KernelFn {
    pub name: Ident,
    pub params: Vec<FnParam>,
    pub ret: Ty,
    pub body: Vec<Stmt>,
    /// The value the body ends with (`None` when it ends with `return`).
    pub value: Option<Expr>,
    pub callees: Vec<Callee>,
    pub helpers: HelperWgsl,
    /// Name of its WGSL function: `kf_<name>_<hash of its source>`, so two functions of one
    /// name in different modules do not collide in one shader.
    pub wgsl_name: String,
}
