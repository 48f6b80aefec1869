//! The untyped syntax tree the parser produces.
//!
//! It mirrors the source closely: names are strings, types are written types ([`TypeExpr`]),
//! and every node has a [`Span`]. Name resolution and typing happen in `typeck`, which turns this
//! tree into the typed tree of `typed`. Generic parameters, slices and spreads are represented so
//! that later language additions only extend the type checker.

use crate::diagnostics::Span;

/// A name with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// A whole source file.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    /// Top-level items in source order.
    pub items: Vec<Item>,
    /// The curve of `#pragma curve NAME;` (`bn128`), if the module names one.
    pub curve: Option<Ident>,
}

/// A top-level item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `import "path" [as name];` or `from "path" import a [as b], c;`
    Import(Import),
    /// `struct Name<G> { T a; ... }`
    Struct(StructDef),
    /// `const T NAME = e;`
    Const(ConstDef),
    /// `type Name<G> = T;`
    TypeAlias(TypeAlias),
    /// `def name<G>(params) -> T { ... }`
    Function(FunctionDef),
}

/// One imported symbol.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The module path as written (`utils/casts/u32_to_bits`, `EMBED`).
    pub path: String,
    /// The symbol imported from a `from` import; `None` for `import "path"`.
    pub symbol: Option<Ident>,
    /// The local name (`as` alias, else the symbol, else the last path component).
    pub alias: Ident,
    /// The whole import.
    pub span: Span,
}

/// A struct declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct StructDef {
    /// Its name.
    pub name: Ident,
    /// Generic parameters (`struct Bar<N>`).
    pub generics: Vec<Ident>,
    /// Its members in declaration order.
    pub fields: Vec<(TypeExpr, Ident)>,
    /// The whole declaration.
    pub span: Span,
}

/// A constant definition.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstDef {
    /// Declared type.
    pub ty: TypeExpr,
    /// Its name.
    pub name: Ident,
    /// The defining expression.
    pub value: Expr,
    /// The whole definition.
    pub span: Span,
}

/// A type alias.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeAlias {
    /// Its name.
    pub name: Ident,
    /// Generic parameters.
    pub generics: Vec<Ident>,
    /// The aliased type.
    pub ty: TypeExpr,
    /// The whole definition.
    pub span: Span,
}

/// A function definition.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    /// Its name.
    pub name: Ident,
    /// Generic parameters (`def f<N>`).
    pub generics: Vec<Ident>,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Declared return type; `None` when there is no `->` (returns nothing).
    pub ret: Option<TypeExpr>,
    /// The body.
    pub body: Block,
    /// The signature (from `def` to the end of the return type).
    pub sig_span: Span,
}

/// A function parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// `public` (the default, as in ZoKrates) or `private`: what an exported circuit of
    /// `main` makes a public wire; no effect on the semantics.
    pub public: bool,
    /// Declared `mut`.
    pub mutable: bool,
    /// Declared type.
    pub ty: TypeExpr,
    /// Its name.
    pub name: Ident,
}

/// A written type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeExpr {
    /// What type.
    pub kind: TypeExprKind,
    /// Where it is written.
    pub span: Span,
}

/// The shapes a written type can have.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeExprKind {
    /// `field`
    Field,
    /// `bool`
    Bool,
    /// `u8`, `u16`, `u32`, `u64` (the width in bits).
    Uint(u32),
    /// A struct or alias name with optional generic arguments (`Foo`, `Bar<2>`).
    Named(Ident, Vec<Expr>),
    /// `T[N]`: element type and size expression.
    Array(Box<TypeExpr>, Box<Expr>),
    /// `(T1, T2)`; `()` is the empty tuple.
    Tuple(Vec<TypeExpr>),
}

/// A `{ ... }` block of statements.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What statement.
    pub kind: StmtKind,
    /// Where it is.
    pub span: Span,
}

/// The statements.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `T [mut] x = e;`
    Let {
        /// Declared type.
        ty: TypeExpr,
        /// Declared `mut`.
        mutable: bool,
        /// The new variable.
        name: Ident,
        /// Its initial value.
        value: Expr,
    },
    /// `place = e;` where place is a variable with `.field`, `.0` and `[i]` accessors.
    Assign {
        /// The assigned place (an expression the type checker checks is a place).
        place: Expr,
        /// The new value.
        value: Expr,
    },
    /// `return;` or `return e;`
    Return(Option<Expr>),
    /// `assert(e);` or `assert(e, "msg");`
    Assert {
        /// The condition.
        cond: Expr,
        /// The message, if any.
        message: Option<String>,
    },
    /// `for T [mut] i in from..to { ... }`
    For {
        /// Type of the induction variable.
        ty: TypeExpr,
        /// Declared `mut`.
        mutable: bool,
        /// The induction variable.
        var: Ident,
        /// Start (inclusive).
        from: Expr,
        /// End (exclusive).
        to: Expr,
        /// The body.
        body: Block,
    },
    /// `while c { ... }`
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Block,
    },
    /// `if c { ... } [else if ... ] [else { ... }]`; an `else if` is an `If` in `else_block`.
    If {
        /// The condition.
        cond: Expr,
        /// Taken when `cond` holds.
        then_block: Block,
        /// Taken otherwise.
        else_block: Option<Block>,
    },
    /// An expression evaluated for its effects (a call): `f(x);`
    Expr(Expr),
    /// `asm { ... }`: witness assignments and constraints.
    Asm(Vec<AsmStmt>),
    /// `log("x is {}", x);`
    Log {
        /// The format string; each `{}` takes the next argument.
        format: String,
        /// The logged values.
        args: Vec<Expr>,
    },
}

/// A statement of an `asm` block.
#[derive(Debug, Clone, PartialEq)]
pub enum AsmStmt {
    /// `place <-- e;` (a witness hint) or `place <== e;` (assignment and constraint).
    Assign {
        /// The assigned place.
        place: Expr,
        /// The value.
        value: Expr,
        /// `<==` rather than `<--`.
        constrained: bool,
        /// The statement.
        span: Span,
    },
    /// `a === b;`
    Constraint {
        /// Left side.
        lhs: Expr,
        /// Right side.
        rhs: Expr,
        /// The statement.
        span: Span,
    },
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What expression.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-e`
    Neg,
    /// `+e` (identity)
    Pos,
    /// `!e`
    Not,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinaryOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Pow => "**",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
        }
    }
}

/// One element of an array literal.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrayElem {
    /// `e`
    Single(Expr),
    /// `...e`
    Spread(Expr),
}

/// The expressions.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A decimal literal with optional suffix.
    Decimal {
        /// The digits.
        digits: String,
        /// `u8`..`u64` or `f`.
        suffix: Option<String>,
    },
    /// A hex literal (digits without `0x`).
    Hex(String),
    /// `true` / `false`
    Bool(bool),
    /// A variable or constant name.
    Name(Ident),
    /// `op e`
    Unary(UnaryOp, Box<Expr>),
    /// `a op b`
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`, and `if c { a } else { b }` expressions.
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(args)` or `f::<G>(args)`.
    Call {
        /// The callee name.
        callee: Ident,
        /// Explicit generic arguments.
        generics: Vec<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `[a, ...b, c]`
    Array(Vec<ArrayElem>),
    /// `[e; n]`
    Repeat(Box<Expr>, Box<Expr>),
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `a[from..to]` with either bound optional.
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `e.name`
    Member(Box<Expr>, Ident),
    /// `e.0`
    TupleIndex(Box<Expr>, usize),
    /// `Name { a: e, ... }`
    Struct(Ident, Vec<(Ident, Expr)>),
    /// `(a, b)`, `(a,)`, `()`
    Tuple(Vec<Expr>),
}
