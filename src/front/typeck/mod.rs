//! The type checker: resolves names, computes types, folds constants and checks the program.
//!
//! It checks the modules of a program (see `modules`) dependencies first, each in its own scope
//! of names, in three passes:
//! 1. in source order, imports (binding the imported module's symbols, or a cast built-in),
//!    structs, type aliases and `const` definitions (each evaluated at compile time; a name must
//!    be declared before it is used);
//! 2. every function signature (functions may be overloaded on their parameter types, or only
//!    on their return type, chosen by the expected type, as in ZoKrates, and may be called
//!    before their definition; a constant whose value calls functions has the module's
//!    signatures declared when it is met, see `consts`); a generic function (`def f<N>`) is
//!    kept as a template and checked once per instance, when a call fixes its parameters
//!    (explicitly, `f::<3>(x)`, or from the argument array sizes);
//! 3. every function body, statement by statement, with block scopes (an inner declaration
//!    shadows an outer one, and a redeclaration in the same scope shadows too): every function
//!    of the root module, and those of imported modules that a checked body calls.
//!
//! Expressions are checked bidirectionally: an *expected type* flows down from declarations,
//! parameters, array element types and the other operand of a binary operator, and an untyped
//! decimal literal (`1`, `-3`, `2 * 4`) takes that type; with no expectation it is a `field`.
//! Literal values are range-checked against their final type. Array sizes, `[e; n]` counts, slice
//! bounds must be compile-time constants (see `consteval`): literals, `const`s and immutable
//! locals with a constant initial value, and (array sizes, `[e; n]` counts) calls of functions
//! on such values, run at compile time (see `consts`).
//!
//! After the bodies, the call graph is checked for cycles: recursion is an error, because every
//! call is inlined. A function with a return type must return on every path.
//!
//! The files, by what they check: `items` (the passes over the module and the recursion
//! check), `types` (written types, generic struct and alias instances, unification),
//! `stmts` (function bodies, statements, `asm`), `exprs` (expressions), `calls` (overloads,
//! built-ins, generic function instances), `consts` (compile-time values computed by running
//! the functions they call).

mod calls;
mod consts;
mod exprs;
mod items;
mod slices;
mod stmts;
mod types;

use crate::fxhash::HashMap;

use super::ast;
use super::consteval::{eval_with, to_expr, Value};
use super::modules::{Loaded, LoadedModule, SourceMap, Target};
use super::typed::*;
use crate::diagnostics::{Diagnostic, Span};
use ark_bn254::Fr;
use ark_ff::{BigInt, PrimeField};
use std::str::FromStr;
use std::sync::Arc;

/// The largest number of scalar leaves a single type may have (`field[1024][1024]`).
pub const MAX_TYPE_LEAVES: u64 = 1 << 20;

type TResult<T> = Result<T, Diagnostic>;

/// The calls a function body makes, with their positions (for the recursion check).
type CallSites = Vec<(FuncId, Span)>;

/// Checks a parsed module (a program in one file, whose imports name only built-ins) and
/// produces the typed program.
pub fn check(module: &ast::Module) -> Result<Program, Diagnostic> {
    let loaded = Loaded {
        modules: vec![LoadedModule {
            ast: module.clone(),
            imports: module
                .items
                .iter()
                .filter(|i| matches!(i, ast::Item::Import(_)))
                .map(|_| Target::Builtin)
                .collect(),
            is_embed: false,
            is_library: false,
        }],
        map: SourceMap::default(),
    };
    check_modules(&loaded, false)
}

/// Checks a program's modules (dependencies first, the root last) and produces the typed
/// program of the root's `main`. `compat`: ZoKrates' semantics where zkbc's differ
/// (`field_to_uN` truncates).
pub fn check_modules(loaded: &Loaded, compat: bool) -> Result<Program, Diagnostic> {
    crate::front::on_front_stack(|| {
        Checker {
            compat,
            ..Checker::default()
        }
        .run(loaded)
    })
}

struct Sig {
    name: String,
    params: Vec<Type>,
    ret: Type,
    name_span: Span,
}

#[derive(Default)]
struct FnState {
    locals: Vec<LocalInfo>,
    scopes: Vec<HashMap<String, LocalId>>,
    ret: Type,
    calls: Vec<(FuncId, Span)>,
    /// Immutable locals whose initial value is a compile-time constant (`u32 n = 3;`).
    known: HashMap<LocalId, Value>,
    /// Locals that hold run-time values (see `reads_runtime`).
    runtime: crate::fxhash::HashSet<LocalId>,
    /// Immutable locals whose initial value is known at compile time only by running the
    /// functions it calls (`u32 n = count(3);`): computed when a compile-time value needs them.
    deferred: HashMap<LocalId, Expr>,
    /// Immutable `u32` locals whose initial value is linear in immutable locals (see `slices`).
    linear: HashMap<LocalId, slices::Linear>,
}

impl Default for Type {
    fn default() -> Type {
        Type::unit()
    }
}

/// A generic definition and the module it is defined in (whose scope its body and types are
/// checked in).
type Template<T> = (usize, Arc<T>);

/// The names one module sees: its own definitions and what it imported.
#[derive(Default, Clone)]
struct Scope {
    structs: HashMap<String, Arc<StructType>>,
    aliases: HashMap<String, Type>,
    /// Generic structs (`struct Bar<N>`), instantiated where a type names them.
    struct_templates: HashMap<String, Template<ast::StructDef>>,
    /// Generic type aliases (`type Grid<N> = field[N][N];`).
    alias_templates: HashMap<String, Template<ast::TypeAlias>>,
    consts: HashMap<String, (Type, Value)>,
    imports: HashMap<String, Builtin>,
    /// Local names of `cast` from `utils/casts.zok` (see `casts`).
    generic_casts: crate::fxhash::HashSet<String>,
    by_name: HashMap<String, Vec<FuncId>>,
    /// Generic functions, instantiated at their calls.
    templates: HashMap<String, Template<ast::FunctionDef>>,
}

#[derive(Default)]
struct Checker {
    /// One scope per module, in the order of [`Loaded::modules`].
    scopes: Vec<Scope>,
    /// The module being checked.
    cur: usize,
    /// ZoKrates' semantics where zkbc's differ (not inside the built-in `EMBED` module, whose
    /// conversions are exact).
    compat: bool,
    /// The built-in `EMBED` module, if the program imports it.
    embed: Option<usize>,
    /// Struct instances made: (module, template, generic values) to the struct type.
    struct_instances: HashMap<(usize, String, Vec<u32>), Arc<StructType>>,
    /// The template (module, name) and generic values of each struct instance, by instance
    /// name (`Bar<2>`).
    struct_args: HashMap<String, ((usize, String), Vec<u32>)>,
    /// The program's files (for running the value of a constant, see `consts`).
    map: SourceMap,
    /// Which modules are zkbc's built-in library, by index (see [`LoadedModule::is_library`]).
    library: Vec<bool>,
    /// Checking the value of an `asm` hint (`x <-- e`), where field bit extraction is allowed.
    in_hint: bool,
    sigs: Vec<Sig>,
    fs: FnState,
    /// Instances already made: (module, name, generic values) to function.
    instances: HashMap<(usize, String, Vec<u32>), FuncId>,
    /// The checked body of each function, by id; `None` until checked. A plain function of an
    /// imported module is checked only if something calls it.
    bodies: Vec<Option<(Function, CallSites)>>,
    /// The definitions of plain (non-generic) functions, by id, with their module.
    plain: HashMap<FuncId, Template<ast::FunctionDef>>,
    /// Compile-time values being computed inside one another (see `consts`).
    value_depth: usize,
    /// Instances being checked inside one another.
    instance_depth: usize,
}

impl Checker {
    /// Adds a signature (and an empty body slot) and returns its id.
    fn new_sig(&mut self, sig: Sig) -> FuncId {
        let id = FuncId(self.sigs.len() as u32);
        self.sigs.push(sig);
        self.bodies.push(None);
        id
    }

    /// Runs `f` with module `m` as the current one.
    fn in_module<T>(&mut self, m: usize, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.cur, m);
        let r = f(self);
        self.cur = saved;
        r
    }
}

/// How deeply generic instantiations may nest (`f<N>` calling `f<N - 1>` ...).
const MAX_INSTANCE_DEPTH: usize = 32;

fn mismatch(expected: &Type, found: &Type, span: Span) -> Diagnostic {
    Diagnostic::new(
        format!("mismatched types: expected `{expected}`, found `{found}`"),
        span,
    )
}

fn leaves(ty: &Type) -> u64 {
    match ty {
        Type::Field | Type::Bool | Type::Uint(_) => 1,
        Type::Array(e, n) => leaves(e).saturating_mul(u64::from(*n)),
        Type::Struct(s) => s
            .fields
            .iter()
            .fold(0u64, |acc, (_, t)| acc.saturating_add(leaves(t))),
        Type::Tuple(ts) => ts.iter().fold(0u64, |acc, t| acc.saturating_add(leaves(t))),
    }
}

/// Is `e` made only of untyped decimal literals, so that its type comes from context?
fn is_untyped(e: &ast::Expr) -> bool {
    use ast::BinaryOp as B;
    match &e.kind {
        ast::ExprKind::Decimal { suffix: None, .. } => true,
        ast::ExprKind::Unary(ast::UnaryOp::Neg | ast::UnaryOp::Pos, x) => is_untyped(x),
        ast::ExprKind::Binary(
            B::Add | B::Sub | B::Mul | B::Div | B::Rem | B::BitAnd | B::BitOr | B::BitXor,
            a,
            b,
        ) => is_untyped(a) && is_untyped(b),
        ast::ExprKind::Binary(B::Pow | B::Shl | B::Shr, a, _) => is_untyped(a),
        ast::ExprKind::Conditional(_, a, b) => is_untyped(a) && is_untyped(b),
        _ => false,
    }
}

/// Is `e` an array literal (`[0; n]`, `[1, 2, ...[3; k]]`) made only of untyped decimal
/// literals, so that its element type comes from context?
fn is_untyped_array(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::Repeat(x, _) => is_untyped(x) || is_untyped_array(x),
        ast::ExprKind::Array(elems) => elems.iter().all(|el| match el {
            ast::ArrayElem::Single(x) => is_untyped(x) || is_untyped_array(x),
            ast::ArrayElem::Spread(x) => is_untyped_array(x),
        }),
        _ => false,
    }
}

fn always_returns(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Return { .. } => true,
        Stmt::If {
            then_body,
            else_body,
            ..
        } => always_returns(then_body) && always_returns(else_body),
        _ => false,
    })
}

/// `from "utils/casts.zok" import cast;` (with or without `.zok`).
fn is_generic_cast(import: &ast::Import) -> bool {
    let path = import.path.strip_suffix(".zok").unwrap_or(&import.path);
    path == "utils/casts" && import.symbol.as_ref().is_some_and(|s| s.name == "cast")
}

fn builtin_for_import(import: &ast::Import) -> Option<Builtin> {
    let path = import.path.strip_suffix(".zok").unwrap_or(&import.path);
    match &import.symbol {
        None => {
            let name = path.strip_prefix("utils/casts/")?;
            Builtin::from_name(name)
        }
        Some(sym) if path == "EMBED" => Builtin::from_name(&sym.name),
        Some(sym) if sym.name == "main" => {
            let name = path.strip_prefix("utils/casts/")?;
            Builtin::from_name(name)
        }
        Some(sym) if path.starts_with("utils/casts/") => {
            Builtin::from_name(&sym.name).filter(|b| path.ends_with(&b.name()))
        }
        Some(_) => None,
    }
}

fn unknown_variable(name: &ast::Ident) -> Diagnostic {
    Diagnostic::new(format!("unknown variable `{}`", name.name), name.span)
}

fn member(ty: &Type, field: &ast::Ident) -> TResult<(usize, Type)> {
    let Type::Struct(s) = ty else {
        return Err(Diagnostic::new(
            format!("type `{ty}` has no field `{}`", field.name),
            field.span,
        ));
    };
    match s.fields.iter().position(|(n, _)| *n == field.name) {
        Some(i) => Ok((i, s.fields[i].1.clone())),
        None => Err(Diagnostic::new(
            format!("struct `{}` has no field `{}`", s.name, field.name),
            field.span,
        )),
    }
}

fn tuple_elem(ty: &Type, i: usize, span: Span) -> TResult<Type> {
    match ty {
        Type::Tuple(ts) => ts
            .get(i)
            .cloned()
            .ok_or_else(|| Diagnostic::new(format!("tuple type `{ty}` has no element {i}"), span)),
        _ => Err(Diagnostic::new(format!("type `{ty}` is not a tuple"), span)),
    }
}

/// The values inferred for every generic parameter, or `unbound(name)` for the first one that
/// nothing bound.
fn all_bound(
    generics: &[ast::Ident],
    bound: &[Option<u32>],
    unbound: impl Fn(&str) -> Diagnostic,
) -> Result<Vec<u32>, Diagnostic> {
    generics
        .iter()
        .zip(bound)
        .map(|(g, b)| b.ok_or_else(|| unbound(&g.name)))
        .collect()
}
