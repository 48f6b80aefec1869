//! The typed tree that `typeck` produces and `lower` consumes.
//!
//! Everything here is resolved: variables are [`LocalId`]s with a type and a mutability, calls
//! name a [`FuncId`] or a [`Builtin`], struct members are indices, constants are folded into
//! literal trees, array sizes are numbers, and every expression carries its [`Type`]. Untyped
//! integer literals have received their type from context. No name lookup or type inference is
//! left for the lowering to do.

use crate::diagnostics::Span;
use ark_bn254::Fr;
use std::fmt;
use std::sync::Arc;

pub use super::ast::{BinaryOp, UnaryOp};

/// A source-level type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// An element of the BN254 scalar field.
    Field,
    /// `bool`
    Bool,
    /// `uN` with N in {8, 16, 32, 64}.
    Uint(u32),
    /// `T[N]`
    Array(Box<Type>, u32),
    /// A struct (compared structurally, names included).
    Struct(Arc<StructType>),
    /// `(T1, T2, ...)`; `()` is the unit type of functions returning nothing.
    Tuple(Vec<Type>),
}

impl Type {
    /// The unit type `()`.
    pub fn unit() -> Type {
        Type::Tuple(Vec::new())
    }

    /// Is this `()`?
    pub fn is_unit(&self) -> bool {
        matches!(self, Type::Tuple(t) if t.is_empty())
    }

    /// Is this `field` or `uN`?
    pub fn is_numeric(&self) -> bool {
        matches!(self, Type::Field | Type::Uint(_))
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Field => f.write_str("field"),
            Type::Bool => f.write_str("bool"),
            Type::Uint(w) => write!(f, "u{w}"),
            Type::Array(..) => {
                // `T[a][b]`: print the innermost element type, then sizes outermost first.
                let mut sizes = Vec::new();
                let mut t = self;
                while let Type::Array(elem, n) = t {
                    sizes.push(*n);
                    t = elem;
                }
                write!(f, "{t}")?;
                for n in sizes {
                    write!(f, "[{n}]")?;
                }
                Ok(())
            }
            Type::Struct(s) => f.write_str(&s.name),
            Type::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                if ts.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A struct declaration after type resolution.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StructType {
    /// The struct's name.
    pub name: String,
    /// Members in declaration order.
    pub fields: Vec<(String, Type)>,
}

/// A local variable (parameter, `let`, loop variable) of one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// A function of the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// A whole checked program.
#[derive(Debug, Clone)]
pub struct Program {
    /// All functions; a [`FuncId`] indexes this vector.
    pub functions: Vec<Function>,
    /// The entry point.
    pub main: FuncId,
}

impl Program {
    /// The function with id `id`.
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }
}

/// What is known about a local variable.
#[derive(Debug, Clone)]
pub struct LocalInfo {
    /// Its source name (names repeat when variables shadow each other).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Declared `mut`: lowered to memory (`allocate` / `load` / `store`).
    pub mutable: bool,
    /// Where it is declared.
    pub span: Span,
}

/// A checked function.
#[derive(Debug, Clone)]
pub struct Function {
    /// Its source name (overloads share a name).
    pub name: String,
    /// The parameters in order.
    pub params: Vec<LocalId>,
    /// The return type; `()` when nothing is returned, a tuple for several results.
    pub ret: Type,
    /// Every local of the function; a [`LocalId`] indexes this vector.
    pub locals: Vec<LocalInfo>,
    /// The body.
    pub body: Vec<Stmt>,
    /// The signature.
    pub span: Span,
}

impl Function {
    /// The information about local `id`.
    pub fn local(&self, id: LocalId) -> &LocalInfo {
        &self.locals[id.0 as usize]
    }
}

/// A checked statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// Declares `local` with an initial value.
    Let {
        /// The new variable.
        local: LocalId,
        /// Its initial value.
        value: Expr,
    },
    /// Stores into a variable or a part of it.
    Assign {
        /// The place written.
        place: Place,
        /// The value.
        value: Expr,
    },
    /// Returns from the function (`value` is `None` for functions returning `()`).
    Return {
        /// The returned value.
        value: Option<Expr>,
        /// The statement.
        span: Span,
    },
    /// Fails when `cond` is false.
    Assert {
        /// The condition.
        cond: Expr,
        /// The user's message.
        message: Option<String>,
        /// The statement.
        span: Span,
    },
    /// `for var in from..to`: `from` and `to` are evaluated once; `var` is a fresh copy of the
    /// induction variable in every iteration, so assigning it does not change the iteration.
    For {
        /// The loop variable seen by the body.
        var: LocalId,
        /// Start, inclusive.
        from: Expr,
        /// End, exclusive.
        to: Expr,
        /// The body.
        body: Vec<Stmt>,
        /// The statement.
        span: Span,
    },
    /// `while cond { body }`
    While {
        /// The condition, evaluated before every iteration.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
        /// The statement.
        span: Span,
    },
    /// `if cond { then_body } else { else_body }`
    If {
        /// The condition.
        cond: Expr,
        /// Taken when `cond` holds.
        then_body: Vec<Stmt>,
        /// Taken otherwise (may be empty).
        else_body: Vec<Stmt>,
        /// The statement.
        span: Span,
    },
    /// A call evaluated for its effects.
    Expr(Expr),
    /// `log(format, args)`: `format` has one `{}` per argument (checked).
    Log {
        /// The format string as written.
        format: String,
        /// The logged values.
        args: Vec<Expr>,
    },
}

/// A place that can be assigned: a mutable local and a path into it.
#[derive(Debug, Clone)]
pub struct Place {
    /// The variable.
    pub local: LocalId,
    /// Accessors from the variable to the written part, outermost first.
    pub path: Vec<PlaceElem>,
    /// The place as written.
    pub span: Span,
}

/// One step into an aggregate.
#[derive(Debug, Clone)]
pub enum PlaceElem {
    /// `[i]` (the index is a `u32` expression, bounds-checked at run time).
    Index(Expr),
    /// `.name` of a struct, as a member index.
    Member(usize),
    /// `.k` of a tuple.
    TupleIndex(usize),
}

/// Conversions built into the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `uN_to_field`
    UintToField(u32),
    /// `field_to_uN`: fails when the value does not fit.
    FieldToUint(u32),
    /// `uN_to_bits`: `bool[N]`, most significant bit first.
    UintToBits(u32),
    /// `uN_from_bits`
    UintFromBits(u32),
    /// `field_to_bool_unsafe` (from `"EMBED"`): fails unless the value is 0 or 1. ZoKrates does
    /// not check (its callers constrain the value first); zkbc's conversions are all checked.
    FieldToBool,
    /// The 254 bits of a field element's canonical value, most significant first. Not
    /// nameable in source: it is what bit extraction `(x >> k) & 1` in an `asm` hint becomes.
    FieldToBits,
}

impl Builtin {
    /// The builtin's canonical name.
    pub fn name(self) -> String {
        match self {
            Builtin::UintToField(w) => format!("u{w}_to_field"),
            Builtin::FieldToUint(w) => format!("field_to_u{w}"),
            Builtin::UintToBits(w) => format!("u{w}_to_bits"),
            Builtin::UintFromBits(w) => format!("u{w}_from_bits"),
            Builtin::FieldToBool => "field_to_bool_unsafe".to_string(),
            Builtin::FieldToBits => "field_to_bits".to_string(),
        }
    }

    /// Recognizes a canonical builtin name.
    pub fn from_name(name: &str) -> Option<Builtin> {
        if name == "field_to_bool_unsafe" {
            return Some(Builtin::FieldToBool);
        }
        Builtin::uint_conversions().find(|b| b.name() == name)
    }

    /// The conversions of each `uN` (8, 16, 32, 64 bits, in that order): to and from a field
    /// element, to and from bits.
    pub fn uint_conversions() -> impl Iterator<Item = Builtin> {
        [8, 16, 32, 64].into_iter().flat_map(|w| {
            [
                Builtin::UintToField(w),
                Builtin::FieldToUint(w),
                Builtin::UintToBits(w),
                Builtin::UintFromBits(w),
            ]
        })
    }

    /// Parameter type.
    pub fn param(self) -> Type {
        match self {
            Builtin::UintToField(w) | Builtin::UintToBits(w) => Type::Uint(w),
            Builtin::FieldToUint(_) | Builtin::FieldToBool | Builtin::FieldToBits => Type::Field,
            Builtin::UintFromBits(w) => Type::Array(Box::new(Type::Bool), w),
        }
    }

    /// Result type.
    pub fn result(self) -> Type {
        match self {
            Builtin::UintToField(_) => Type::Field,
            Builtin::FieldToUint(w) | Builtin::UintFromBits(w) => Type::Uint(w),
            Builtin::UintToBits(w) => Type::Array(Box::new(Type::Bool), w),
            Builtin::FieldToBool => Type::Bool,
            Builtin::FieldToBits => Type::Array(Box::new(Type::Bool), FIELD_BITS),
        }
    }
}

/// The bits of a field element's canonical value (BN254's modulus has 254 bits).
pub const FIELD_BITS: u32 = 254;

/// A checked expression with its type.
#[derive(Debug, Clone)]
pub struct Expr {
    /// What expression.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Type,
    /// Where it is written (for constants, where the constant is used).
    pub span: Span,
}

/// Visits each direct subexpression of `$kind`, in source order, as `&Expr` or `&mut Expr` by
/// how it is borrowed: one list for [`Expr::for_each_child`] and [`Expr::for_each_child_mut`].
macro_rules! visit_children {
    ($kind:expr, $f:ident) => {
        match $kind {
            ExprKind::Local(_) | ExprKind::Field(_) | ExprKind::Uint(_) | ExprKind::Bool(_) => {}
            ExprKind::Unary(_, x)
            | ExprKind::Builtin(_, x)
            | ExprKind::Repeat(x, _)
            | ExprKind::Slice(x, ..)
            | ExprKind::Member(x, _)
            | ExprKind::TupleIndex(x, _) => $f(x),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                $f(a);
                $f(b);
            }
            ExprKind::Conditional(c, a, b) => {
                $f(c);
                $f(a);
                $f(b);
            }
            ExprKind::Call(_, xs)
            | ExprKind::Hint(_, xs)
            | ExprKind::Struct(xs)
            | ExprKind::Tuple(xs) => xs.into_iter().for_each($f),
            ExprKind::Array(elems) => elems.into_iter().for_each(|el| match el {
                ArrayElem::Single(x) | ArrayElem::Spread(x) => $f(x),
            }),
        }
    };
}

impl Expr {
    /// Calls `f` on each direct subexpression, in source order.
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        visit_children!(&self.kind, f)
    }

    /// Calls `f` on each direct subexpression, in source order, mutably.
    pub fn for_each_child_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        visit_children!(&mut self.kind, f)
    }

    /// Whether `f` holds for every direct subexpression (asked in source order, until one
    /// fails).
    pub fn all_children(&self, mut f: impl FnMut(&Expr) -> bool) -> bool {
        let mut all = true;
        self.for_each_child(|x| all = all && f(x));
        all
    }

    /// Whether `f` holds for some direct subexpression (asked in source order, until one
    /// holds).
    pub fn any_child(&self, mut f: impl FnMut(&Expr) -> bool) -> bool {
        !self.all_children(|x| !f(x))
    }
}

/// One element of an array literal.
#[derive(Debug, Clone)]
pub enum ArrayElem {
    /// One element.
    Single(Expr),
    /// All elements of an array.
    Spread(Expr),
}

/// The checked expressions.
#[derive(Debug, Clone)]
pub enum ExprKind {
    /// A field constant.
    Field(Fr),
    /// A `uN` constant (the width is in the type), below 2^N.
    Uint(u64),
    /// `true` / `false`
    Bool(bool),
    /// A variable's current value.
    Local(LocalId),
    /// `-e` on field or uN (two's complement), `!e` on bool (logical) or uN (bitwise).
    Unary(UnaryOp, Box<Expr>),
    /// Both operands have the same type except for `**`, `<<`, `>>` whose right operand is u32.
    /// `**` takes any `u32` exponent.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`: only the taken side is evaluated.
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call of a user function.
    Call(FuncId, Vec<Expr>),
    /// An `asm` hint `x <-- e`: `e` lifted into its own function (whose parameters are the
    /// locals `e` reads, passed here), run at witness generation and never constrained.
    Hint(FuncId, Vec<Expr>),
    /// A call of a builtin conversion.
    Builtin(Builtin, Box<Expr>),
    /// `[a, ...b]`
    Array(Vec<ArrayElem>),
    /// `[e; n]`
    Repeat(Box<Expr>, u32),
    /// `a[i]`, bounds-checked at run time.
    Index(Box<Expr>, Box<Expr>),
    /// `a[from..to]` with constant bounds, already checked.
    Slice(Box<Expr>, u32, u32),
    /// A struct value, members in declaration order.
    Struct(Vec<Expr>),
    /// A struct member by index.
    Member(Box<Expr>, usize),
    /// A tuple value.
    Tuple(Vec<Expr>),
    /// A tuple element.
    TupleIndex(Box<Expr>, usize),
}
