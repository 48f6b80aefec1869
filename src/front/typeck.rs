//! The type checker: resolves names, computes types, folds constants and checks the program.
//!
//! It works in three passes over the module:
//! 1. in source order, imports (which may only name the cast built-ins), structs, type aliases
//!    and `const` definitions (each evaluated at compile time; a name must be declared before
//!    it is used);
//! 2. every function signature (functions may be overloaded on their parameter types, as in
//!    ZoKrates, and may be called before their definition); a generic function (`def f<N>`) is
//!    kept as a template and checked once per instance, when a call fixes its parameters
//!    (explicitly, `f::<3>(x)`, or from the argument array sizes);
//! 3. every function body, statement by statement, with block scopes (an inner declaration
//!    shadows an outer one, and a redeclaration in the same scope shadows too).
//!
//! Expressions are checked bidirectionally: an *expected type* flows down from declarations,
//! parameters, array element types and the other operand of a binary operator, and an untyped
//! decimal literal (`1`, `-3`, `2 * 4`) takes that type; with no expectation it is a `field`.
//! Literal values are range-checked against their final type. Array sizes, `[e; n]` counts, slice
//! bounds must be compile-time constants (see `consteval`): literals, `const`s and immutable
//! locals with a constant initial value.
//!
//! After the bodies, the call graph is checked for cycles: recursion is an error, because every
//! call is inlined. A function with a return type must return on every path.

use super::ast;
use super::consteval::{eval_with, to_expr, Value};
use super::typed::*;
use crate::diagnostics::{Diagnostic, Span};
use ark_bn254::Fr;
use ark_ff::{BigInt, PrimeField};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

/// The largest number of scalar leaves a single type may have (`field[1024][1024]`).
pub const MAX_TYPE_LEAVES: u64 = 1 << 20;

type TResult<T> = Result<T, Diagnostic>;

/// The calls a function body makes, with their positions (for the recursion check).
type CallSites = Vec<(FuncId, Span)>;

/// Checks a parsed module and produces the typed program.
pub fn check(module: &ast::Module) -> Result<Program, Diagnostic> {
    super::on_front_stack(|| Checker::default().run(module))
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
}

impl Default for Type {
    fn default() -> Type {
        Type::unit()
    }
}

#[derive(Default)]
struct Checker {
    structs: HashMap<String, Arc<StructType>>,
    aliases: HashMap<String, Type>,
    /// Generic structs (`struct Bar<N>`), instantiated where a type names them.
    struct_templates: HashMap<String, Arc<ast::StructDef>>,
    /// Struct instances made: (template, generic values) to the struct type.
    struct_instances: HashMap<(String, Vec<u32>), Arc<StructType>>,
    /// The template and generic values of each struct instance, by instance name (`Bar<2>`).
    struct_args: HashMap<String, (String, Vec<u32>)>,
    /// Generic type aliases (`type Grid<N> = field[N][N];`).
    alias_templates: HashMap<String, Arc<ast::TypeAlias>>,
    consts: HashMap<String, (Type, Value)>,
    imports: HashMap<String, Builtin>,
    /// Checking the value of an `asm` hint (`x <-- e`), where field bit extraction is allowed.
    in_hint: bool,
    /// Local names of `cast` from `utils/casts.zok` (see `casts`).
    generic_casts: std::collections::HashSet<String>,
    sigs: Vec<Sig>,
    by_name: HashMap<String, Vec<FuncId>>,
    fs: FnState,
    /// Generic functions, instantiated at their calls.
    templates: HashMap<String, Arc<ast::FunctionDef>>,
    /// Instances already made: (name, generic values) to function.
    instances: HashMap<(String, Vec<u32>), FuncId>,
    /// Checked instances; function `n_plain + i` is `extra[i]`.
    extra: Vec<Option<(Function, CallSites)>>,
    /// Number of non-generic functions (their ids come first).
    n_plain: usize,
    /// Instances being checked inside one another.
    instance_depth: usize,
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

impl Checker {
    fn run(mut self, module: &ast::Module) -> TResult<Program> {
        let mut top_names: HashMap<String, Span> = HashMap::new();
        let mut declare_top = |name: &ast::Ident| -> TResult<()> {
            if top_names.insert(name.name.clone(), name.span).is_some() {
                return Err(Diagnostic::new(
                    format!("duplicate definition of `{}`", name.name),
                    name.span,
                ));
            }
            Ok(())
        };
        // Pass 1: imports, structs, aliases, constants, in order.
        for item in &module.items {
            match item {
                ast::Item::Import(imp) => {
                    if is_generic_cast(imp) {
                        declare_top(&imp.alias)?;
                        self.generic_casts.insert(imp.alias.name.clone());
                        continue;
                    }
                    let Some(b) = builtin_for_import(imp) else {
                        return Err(Diagnostic::new(
                            format!("cannot resolve import of `{}`", imp.path),
                            imp.span,
                        )
                        .with_note(
                            "only the cast built-ins can be imported, e.g. \
                             `import \"utils/casts/u32_to_bits\" as to_bits;`",
                        ));
                    };
                    declare_top(&imp.alias)?;
                    self.imports.insert(imp.alias.name.clone(), b);
                }
                ast::Item::Struct(s) => {
                    declare_top(&s.name)?;
                    if !s.generics.is_empty() {
                        self.struct_templates
                            .insert(s.name.name.clone(), Arc::new(s.clone()));
                        continue;
                    }
                    let mut fields: Vec<(String, Type)> = Vec::new();
                    for (ty, name) in &s.fields {
                        if fields.iter().any(|(n, _)| *n == name.name) {
                            return Err(Diagnostic::new(
                                format!(
                                    "duplicate field `{}` in struct `{}`",
                                    name.name, s.name.name
                                ),
                                name.span,
                            ));
                        }
                        fields.push((name.name.clone(), self.resolve_type(ty)?));
                    }
                    self.structs.insert(
                        s.name.name.clone(),
                        Arc::new(StructType {
                            name: s.name.name.clone(),
                            fields,
                        }),
                    );
                }
                ast::Item::TypeAlias(a) => {
                    declare_top(&a.name)?;
                    if !a.generics.is_empty() {
                        self.alias_templates
                            .insert(a.name.name.clone(), Arc::new(a.clone()));
                        continue;
                    }
                    let ty = self.resolve_type(&a.ty)?;
                    self.aliases.insert(a.name.name.clone(), ty);
                }
                ast::Item::Const(c) => {
                    declare_top(&c.name)?;
                    let ty = self.resolve_type(&c.ty)?;
                    let value = self.expr(&c.value, Some(&ty))?;
                    if value.ty != ty {
                        return Err(mismatch(&ty, &value.ty, value.span));
                    }
                    let Some(v) = self.eval(&value)? else {
                        return Err(Diagnostic::new(
                            format!(
                                "the value of constant `{}` must be a compile-time constant",
                                c.name.name
                            ),
                            c.value.span,
                        ));
                    };
                    self.consts.insert(c.name.name.clone(), (ty, v));
                }
                ast::Item::Function(_) => {}
            }
        }
        // Pass 2: signatures.
        let functions: Vec<&ast::FunctionDef> = module
            .items
            .iter()
            .filter_map(|i| match i {
                ast::Item::Function(f) => Some(f),
                _ => None,
            })
            .collect();
        for f in &functions {
            let clash = top_names.contains_key(&f.name.name)
                || self.templates.contains_key(&f.name.name)
                || (!f.generics.is_empty() && self.by_name.contains_key(&f.name.name));
            if clash {
                return Err(Diagnostic::new(
                    format!("duplicate definition of `{}`", f.name.name),
                    f.name.span,
                ));
            }
            if !f.generics.is_empty() {
                self.templates
                    .insert(f.name.name.clone(), Arc::new((*f).clone()));
                continue;
            }
            let mut params = Vec::new();
            for p in &f.params {
                let ty = self.resolve_type(&p.ty)?;
                params.push(ty);
            }
            let ret = match &f.ret {
                Some(t) => self.resolve_type(t)?,
                None => Type::unit(),
            };
            let id = FuncId(self.sigs.len() as u32);
            let overloads = self.by_name.entry(f.name.name.clone()).or_default();
            for other in overloads.iter() {
                if self.sigs[other.0 as usize].params == params {
                    return Err(Diagnostic::new(
                        format!("duplicate definition of function `{}`", f.name.name),
                        f.name.span,
                    )
                    .with_note(
                        "a function may only be overloaded with different parameter types",
                    ));
                }
            }
            overloads.push(id);
            self.sigs.push(Sig {
                name: f.name.name.clone(),
                params,
                ret,
                name_span: f.name.span,
            });
        }
        let main = match self.by_name.get("main").map(Vec::as_slice) {
            Some([id]) => *id,
            Some([_, second, ..]) => {
                return Err(Diagnostic::new(
                    "`main` must be defined only once",
                    self.sigs[second.0 as usize].name_span,
                ))
            }
            _ => {
                return Err(
                    Diagnostic::new("the program has no `main` function", Span::new(0, 0))
                        .with_note("add `def main(...) { ... }`"),
                )
            }
        };
        // Pass 3: bodies. Generic functions are checked once per instance, at their calls.
        self.n_plain = self.sigs.len();
        let mut checked = Vec::new();
        let mut calls = Vec::new();
        let plain = functions.iter().filter(|f| f.generics.is_empty());
        for (i, f) in plain.enumerate() {
            let (func, f_calls) = self.function(FuncId(i as u32), f)?;
            checked.push(func);
            calls.push(f_calls);
        }
        for instance in std::mem::take(&mut self.extra) {
            let (func, f_calls) = instance.expect("bug: generic instance left unchecked");
            checked.push(func);
            calls.push(f_calls);
        }
        self.check_recursion(&calls)?;
        Ok(Program {
            functions: checked,
            main,
        })
    }

    fn check_recursion(&self, calls: &[Vec<(FuncId, Span)>]) -> TResult<()> {
        // Iterative DFS with colours; a call to a function on the stack closes a cycle.
        #[derive(Clone, Copy, PartialEq)]
        enum Colour {
            White,
            Grey,
            Black,
        }
        let n = calls.len();
        let mut colour = vec![Colour::White; n];
        for root in 0..n {
            if colour[root] != Colour::White {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            colour[root] = Colour::Grey;
            while let Some(&mut (f, ref mut next)) = stack.last_mut() {
                if let Some(&(callee, span)) = calls[f].get(*next) {
                    *next += 1;
                    let c = callee.0 as usize;
                    match colour[c] {
                        Colour::Grey => {
                            let start = stack.iter().position(|&(g, _)| g == c).unwrap_or(0);
                            let mut chain: Vec<&str> = stack[start..]
                                .iter()
                                .map(|&(g, _)| self.sigs[g].name.as_str())
                                .collect();
                            chain.push(&self.sigs[c].name);
                            return Err(Diagnostic::new(
                                format!("recursive call to `{}`", self.sigs[c].name),
                                span,
                            )
                            .with_note(format!(
                                "recursion is not supported; the cycle is {}",
                                chain.join(" -> ")
                            )));
                        }
                        Colour::White => {
                            colour[c] = Colour::Grey;
                            stack.push((c, 0));
                        }
                        Colour::Black => {}
                    }
                } else {
                    colour[f] = Colour::Black;
                    stack.pop();
                }
            }
        }
        Ok(())
    }

    // ---- types ----

    fn resolve_type(&mut self, t: &ast::TypeExpr) -> TResult<Type> {
        let ty = match &t.kind {
            ast::TypeExprKind::Field => Type::Field,
            ast::TypeExprKind::Bool => Type::Bool,
            ast::TypeExprKind::Uint(w) => Type::Uint(*w),
            ast::TypeExprKind::Named(name, args) if !args.is_empty() => {
                let mut values = Vec::new();
                for a in args {
                    values.push(self.const_u32(a, "a generic argument")?);
                }
                self.generic_type(name, values, t.span)?
            }
            ast::TypeExprKind::Named(name, _) => {
                if self.struct_templates.contains_key(&name.name)
                    || self.alias_templates.contains_key(&name.name)
                {
                    return Err(Diagnostic::new(
                        format!("type `{}` needs generic arguments", name.name),
                        name.span,
                    )
                    .with_note(format!("write e.g. `{}<3>`", name.name)));
                }
                if let Some(s) = self.structs.get(&name.name) {
                    Type::Struct(s.clone())
                } else if let Some(a) = self.aliases.get(&name.name) {
                    a.clone()
                } else {
                    return Err(Diagnostic::new(
                        format!("unknown type `{}`", name.name),
                        name.span,
                    ));
                }
            }
            ast::TypeExprKind::Array(elem, size) => {
                let elem = self.resolve_type(elem)?;
                let n = self.const_u32(size, "array size")?;
                Type::Array(Box::new(elem), n)
            }
            ast::TypeExprKind::Tuple(ts) => Type::Tuple(
                ts.iter()
                    .map(|t| self.resolve_type(t))
                    .collect::<TResult<_>>()?,
            ),
        };
        if leaves(&ty) > MAX_TYPE_LEAVES {
            return Err(Diagnostic::new(
                format!("type `{ty}` is too large (more than {MAX_TYPE_LEAVES} elements)"),
                t.span,
            ));
        }
        Ok(ty)
    }

    /// Checks `e` as a `u32` compile-time constant.
    fn const_u32(&mut self, e: &ast::Expr, what: &str) -> TResult<u32> {
        let te = self.expr(e, Some(&Type::Uint(32)))?;
        if te.ty != Type::Uint(32) {
            return Err(Diagnostic::new(
                format!("{what} must be a `u32`, found `{}`", te.ty),
                e.span,
            ));
        }
        match self.eval(&te)? {
            Some(Value::Uint(v)) => u32::try_from(v)
                .map_err(|_| Diagnostic::new(format!("{what} {v} is too large"), e.span)),
            _ => Err(
                Diagnostic::new(format!("{what} must be a compile-time constant"), e.span)
                    .with_note("use a literal or a `const` definition"),
            ),
        }
    }

    // ---- functions and statements ----

    fn function(
        &mut self,
        id: FuncId,
        f: &ast::FunctionDef,
    ) -> TResult<(Function, Vec<(FuncId, Span)>)> {
        let sig_ret = self.sigs[id.0 as usize].ret.clone();
        let param_tys = self.sigs[id.0 as usize].params.clone();
        self.fs = FnState {
            ret: sig_ret.clone(),
            scopes: vec![HashMap::new()],
            ..FnState::default()
        };
        let mut params = Vec::new();
        for (p, ty) in f.params.iter().zip(param_tys) {
            if self.fs.scopes[0].contains_key(&p.name.name) {
                return Err(Diagnostic::new(
                    format!("duplicate parameter `{}`", p.name.name),
                    p.name.span,
                ));
            }
            params.push(self.declare(&p.name, ty, p.mutable));
        }
        let body = self.stmts(&f.body.stmts)?;
        if !sig_ret.is_unit() && !always_returns(&body) {
            let end = f.body.span.end;
            return Err(Diagnostic::new(
                format!(
                    "function `{}` may finish without returning a `{sig_ret}`",
                    f.name.name
                ),
                Span::new(end.saturating_sub(1), end),
            )
            .with_note("add a `return` statement at the end of the function"));
        }
        let fs = std::mem::take(&mut self.fs);
        Ok((
            Function {
                name: f.name.name.clone(),
                params,
                ret: sig_ret,
                locals: fs.locals,
                body,
                span: f.sig_span,
            },
            fs.calls,
        ))
    }

    fn declare(&mut self, name: &ast::Ident, ty: Type, mutable: bool) -> LocalId {
        let id = LocalId(self.fs.locals.len() as u32);
        self.fs.locals.push(LocalInfo {
            name: name.name.clone(),
            ty,
            mutable,
            span: name.span,
        });
        if let Some(scope) = self.fs.scopes.last_mut() {
            scope.insert(name.name.clone(), id);
        }
        id
    }

    fn lookup_local(&self, name: &str) -> Option<LocalId> {
        self.fs
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())
    }

    fn scoped_block(&mut self, stmts: &[ast::Stmt]) -> TResult<Vec<Stmt>> {
        self.fs.scopes.push(HashMap::new());
        let r = self.stmts(stmts);
        self.fs.scopes.pop();
        r
    }

    fn stmts(&mut self, stmts: &[ast::Stmt]) -> TResult<Vec<Stmt>> {
        let mut out = Vec::new();
        for s in stmts {
            match &s.kind {
                ast::StmtKind::Asm(body) => {
                    for a in body {
                        out.push(self.asm_stmt(a)?);
                    }
                }
                _ => out.push(self.stmt(s)?),
            }
        }
        Ok(out)
    }

    /// A statement of an `asm` block. `x <-- e` is a hint, as in ZoKrates: `e` is lifted into a
    /// function of its own (see [`Checker::hint`]) that the interpreter runs at witness
    /// generation, and `x` is a free witness that only the block's `===` constraints bind (a
    /// `uN` or `bool` hint is range-checked, as every such value is). `x <== e` assigns `e`
    /// computed in the circuit, which is `x <-- e; x === e` without the extra witness, and
    /// `a === b` asserts `a == b`. In the value of a hint, a field's bit `(x >> k) & 1` is
    /// allowed.
    fn asm_stmt(&mut self, s: &ast::AsmStmt) -> TResult<Stmt> {
        match s {
            ast::AsmStmt::Assign {
                place,
                value,
                constrained,
                span,
            } => {
                let (place, ty) = self.place(place)?;
                let calls_before = self.fs.calls.len();
                self.in_hint = true;
                let value = self.expr(value, Some(&ty));
                self.in_hint = false;
                let value = value?;
                if value.ty != ty {
                    return Err(mismatch(&ty, &value.ty, value.span));
                }
                let value = if *constrained {
                    value
                } else {
                    let calls = self.fs.calls[calls_before..].to_vec();
                    self.hint(value, calls, *span)
                };
                Ok(Stmt::Assign { place, value })
            }
            ast::AsmStmt::Constraint { lhs, rhs, span } => {
                let eq = ast::Expr {
                    kind: ast::ExprKind::Binary(
                        ast::BinaryOp::Eq,
                        Box::new(lhs.clone()),
                        Box::new(rhs.clone()),
                    ),
                    span: *span,
                };
                Ok(Stmt::Assert {
                    cond: self.condition(&eq, "an `asm` constraint")?,
                    message: Some("asm constraint `===` not satisfied".to_string()),
                    span: *span,
                })
            }
        }
    }

    /// Lifts the value `e` of a hint into a new function whose parameters are the locals `e`
    /// reads (immutable copies of their values at the hint), and returns the hint expression
    /// that passes them. `calls` are the calls `e` makes (for the recursion check).
    fn hint(&mut self, mut e: Expr, calls: CallSites, span: Span) -> Expr {
        let mut read: Vec<LocalId> = Vec::new();
        remap_locals(&mut e, &mut |id| {
            let k = read.iter().position(|&r| r == id).unwrap_or_else(|| {
                read.push(id);
                read.len() - 1
            });
            LocalId(k as u32)
        });
        let locals: Vec<LocalInfo> = read
            .iter()
            .map(|&id| LocalInfo {
                mutable: false,
                ..self.fs.locals[id.0 as usize].clone()
            })
            .collect();
        let ty = e.ty.clone();
        let id = FuncId(self.sigs.len() as u32);
        self.sigs.push(Sig {
            name: "asm_hint".to_string(),
            params: locals.iter().map(|l| l.ty.clone()).collect(),
            ret: ty.clone(),
            name_span: span,
        });
        let func = Function {
            name: "asm_hint".to_string(),
            params: (0..read.len() as u32).map(LocalId).collect(),
            ret: ty.clone(),
            locals,
            body: vec![Stmt::Return {
                value: Some(e),
                span,
            }],
            span,
        };
        self.extra.push(Some((func, calls)));
        let args = read
            .iter()
            .map(|&id| Expr {
                kind: ExprKind::Local(id),
                ty: self.fs.locals[id.0 as usize].ty.clone(),
                span,
            })
            .collect();
        Expr {
            kind: ExprKind::Hint(id, args),
            ty,
            span,
        }
    }

    /// `(x >> k) & 1` on a field `x` inside an `asm` hint: bit `k` of `x`'s canonical value, as
    /// a field. `None` when `e` is not of that form.
    fn field_bit(&mut self, e: &ast::Expr) -> TResult<Option<Expr>> {
        let ast::ExprKind::Binary(ast::BinaryOp::BitAnd, shifted, one) = &e.kind else {
            return Ok(None);
        };
        let ast::ExprKind::Binary(ast::BinaryOp::Shr, x, k) = &shifted.kind else {
            return Ok(None);
        };
        if !matches!(&one.kind, ast::ExprKind::Decimal { digits, suffix: None } if digits == "1") {
            return Ok(None);
        }
        let x = self.expr(x, Some(&Type::Field))?;
        if x.ty != Type::Field {
            return Ok(None);
        }
        let k = self.expr(k, Some(&Type::Uint(32)))?;
        if k.ty != Type::Uint(32) {
            return Err(mismatch(&Type::Uint(32), &k.ty, k.span));
        }
        let span = e.span;
        let u32_expr = |kind| Expr {
            kind,
            ty: Type::Uint(32),
            span,
        };
        let field = |v: u64| Expr {
            kind: ExprKind::Field(Fr::from(v)),
            ty: Type::Field,
            span,
        };
        let bits = Expr {
            kind: ExprKind::Builtin(Builtin::FieldToBits, Box::new(x)),
            ty: Type::Array(Box::new(Type::Bool), FIELD_BITS),
            span,
        };
        // Bits are most significant first: bit k is at index 253 - k.
        let index = u32_expr(ExprKind::Binary(
            BinaryOp::Sub,
            Box::new(u32_expr(ExprKind::Uint(u64::from(FIELD_BITS - 1)))),
            Box::new(k),
        ));
        let bit = Expr {
            kind: ExprKind::Index(Box::new(bits), Box::new(index)),
            ty: Type::Bool,
            span,
        };
        Ok(Some(Expr {
            kind: ExprKind::Conditional(Box::new(bit), Box::new(field(1)), Box::new(field(0))),
            ty: Type::Field,
            span,
        }))
    }

    fn condition(&mut self, e: &ast::Expr, what: &str) -> TResult<Expr> {
        let c = self.expr(e, Some(&Type::Bool))?;
        if c.ty != Type::Bool {
            return Err(Diagnostic::new(
                format!("{what} must be a `bool`, found `{}`", c.ty),
                e.span,
            ));
        }
        Ok(c)
    }

    fn stmt(&mut self, s: &ast::Stmt) -> TResult<Stmt> {
        Ok(match &s.kind {
            ast::StmtKind::Asm(_) => unreachable!("bug: `asm` blocks are expanded by `stmts`"),
            ast::StmtKind::Log { format, args } => {
                let slots = format.matches("{}").count();
                if slots != args.len() {
                    return Err(Diagnostic::new(
                        format!(
                            "the format string has {slots} `{{}}` but {} value{} given",
                            args.len(),
                            if args.len() == 1 { " is" } else { "s are" }
                        ),
                        s.span,
                    ));
                }
                let args = args
                    .iter()
                    .map(|a| self.expr(a, None))
                    .collect::<TResult<Vec<_>>>()?;
                if let Some(a) = args.iter().find(|a| !loggable(&a.ty)) {
                    return Err(Diagnostic::new(
                        format!("`log` cannot print a value of type `{}`", a.ty),
                        a.span,
                    )
                    .with_note("arrays of structs or tuples cannot be logged yet"));
                }
                Stmt::Log {
                    format: format.clone(),
                    args,
                }
            }
            ast::StmtKind::Let {
                ty,
                mutable,
                name,
                value,
            } => {
                let ty = self.resolve_type(ty)?;
                let value = self.expr(value, Some(&ty))?;
                if value.ty != ty {
                    return Err(mismatch(&ty, &value.ty, value.span));
                }
                let local = self.declare(name, ty, *mutable);
                // A constant initializer whose evaluation fails (`15u8 / 0u8`) is not an error
                // here: failure is path-sensitive, so it fails at run time if its path runs.
                if !*mutable {
                    if let Ok(Some(v)) = self.eval(&value) {
                        self.fs.known.insert(local, v);
                    }
                }
                Stmt::Let { local, value }
            }
            ast::StmtKind::Assign { place, value } => {
                let (place, ty) = self.place(place)?;
                let value = self.expr(value, Some(&ty))?;
                if value.ty != ty {
                    return Err(mismatch(&ty, &value.ty, value.span));
                }
                Stmt::Assign { place, value }
            }
            ast::StmtKind::Return(value) => {
                let ret = self.fs.ret.clone();
                let value = match value {
                    None if ret.is_unit() => None,
                    None => {
                        return Err(Diagnostic::new(
                            format!("`return` needs a value of type `{ret}`"),
                            s.span,
                        ))
                    }
                    Some(v) => {
                        let v = self.expr(v, Some(&ret))?;
                        if v.ty != ret {
                            return Err(Diagnostic::new(
                                format!(
                                    "mismatched return type: expected `{ret}`, found `{}`",
                                    v.ty
                                ),
                                v.span,
                            ));
                        }
                        if ret.is_unit() {
                            None
                        } else {
                            Some(v)
                        }
                    }
                };
                Stmt::Return {
                    value,
                    span: s.span,
                }
            }
            ast::StmtKind::Assert { cond, message } => Stmt::Assert {
                cond: self.condition(cond, "the condition of `assert`")?,
                message: message.clone(),
                span: s.span,
            },
            ast::StmtKind::For {
                ty,
                mutable,
                var,
                from,
                to,
                body,
            } => {
                let ty = self.resolve_type(ty)?;
                if !matches!(ty, Type::Uint(_)) {
                    return Err(Diagnostic::new(
                        format!("a loop variable must be an unsigned integer, found `{ty}`"),
                        var.span,
                    ));
                }
                let from = self.expr(from, Some(&ty))?;
                if from.ty != ty {
                    return Err(mismatch(&ty, &from.ty, from.span));
                }
                let to = self.expr(to, Some(&ty))?;
                if to.ty != ty {
                    return Err(mismatch(&ty, &to.ty, to.span));
                }
                self.fs.scopes.push(HashMap::new());
                let var = self.declare(var, ty, *mutable);
                let body = self.scoped_block(&body.stmts);
                self.fs.scopes.pop();
                Stmt::For {
                    var,
                    from,
                    to,
                    body: body?,
                    span: s.span,
                }
            }
            ast::StmtKind::While { cond, body } => Stmt::While {
                cond: self.condition(cond, "the condition of `while`")?,
                body: self.scoped_block(&body.stmts)?,
                span: s.span,
            },
            ast::StmtKind::If {
                cond,
                then_block,
                else_block,
            } => Stmt::If {
                cond: self.condition(cond, "the condition of `if`")?,
                then_body: self.scoped_block(&then_block.stmts)?,
                else_body: match else_block {
                    Some(b) => self.scoped_block(&b.stmts)?,
                    None => Vec::new(),
                },
                span: s.span,
            },
            ast::StmtKind::Expr(e) => {
                if !matches!(e.kind, ast::ExprKind::Call { .. }) {
                    return Err(
                        Diagnostic::new("this expression statement has no effect", e.span)
                            .with_note("only function calls can be used as statements"),
                    );
                }
                Stmt::Expr(self.expr(e, None)?)
            }
        })
    }

    fn place(&mut self, e: &ast::Expr) -> TResult<(Place, Type)> {
        match &e.kind {
            ast::ExprKind::Name(name) => {
                let Some(id) = self.lookup_local(&name.name) else {
                    if self.consts.contains_key(&name.name) {
                        return Err(Diagnostic::new(
                            format!("cannot assign to constant `{}`", name.name),
                            name.span,
                        ));
                    }
                    return Err(unknown_variable(name));
                };
                let info = &self.fs.locals[id.0 as usize];
                if !info.mutable {
                    return Err(Diagnostic::new(
                        format!("cannot assign to immutable variable `{}`", name.name),
                        name.span,
                    )
                    .with_note(format!(
                        "declare it mutable: `{} mut {}`",
                        info.ty, name.name
                    )));
                }
                Ok((
                    Place {
                        local: id,
                        path: Vec::new(),
                        span: e.span,
                    },
                    info.ty.clone(),
                ))
            }
            ast::ExprKind::Index(base, index) => {
                let (mut p, ty) = self.place(base)?;
                let Type::Array(elem, n) = ty else {
                    return Err(Diagnostic::new(
                        format!("cannot index into a value of type `{ty}`"),
                        base.span,
                    ));
                };
                let index = self.index(index, n)?;
                p.path.push(PlaceElem::Index(index));
                p.span = e.span;
                Ok((p, *elem))
            }
            ast::ExprKind::Member(base, field) => {
                let (mut p, ty) = self.place(base)?;
                let (i, fty) = member(&ty, field)?;
                p.path.push(PlaceElem::Member(i));
                p.span = e.span;
                Ok((p, fty))
            }
            ast::ExprKind::TupleIndex(base, i) => {
                let (mut p, ty) = self.place(base)?;
                let ety = tuple_elem(&ty, *i, e.span)?;
                p.path.push(PlaceElem::TupleIndex(*i));
                p.span = e.span;
                Ok((p, ety))
            }
            _ => Err(Diagnostic::new(
                "invalid left-hand side of assignment",
                e.span,
            )
            .with_note("only variables, array elements, struct members and tuple elements can be assigned")),
        }
    }

    /// Checks an array index against an array of length `n`.
    fn index(&mut self, index: &ast::Expr, n: u32) -> TResult<Expr> {
        let i = self.expr(index, Some(&Type::Uint(32)))?;
        if i.ty != Type::Uint(32) {
            return Err(Diagnostic::new(
                format!("an array index must be a `u32`, found `{}`", i.ty),
                index.span,
            ));
        }
        // As for `let`, an index whose constant evaluation fails is left to run time.
        if let Ok(Some(Value::Uint(v))) = self.eval(&i) {
            if v >= u64::from(n) {
                return Err(Diagnostic::new(
                    format!("index {v} is out of bounds for an array of length {n}"),
                    index.span,
                ));
            }
        }
        Ok(i)
    }

    // ---- expressions ----

    fn expr(&mut self, e: &ast::Expr, expected: Option<&Type>) -> TResult<Expr> {
        use ast::ExprKind as K;
        if self.in_hint {
            if let Some(bit) = self.field_bit(e)? {
                return Ok(bit);
            }
        }
        let (kind, ty) = match &e.kind {
            K::Decimal { digits, suffix } => {
                let ty = match suffix.as_deref() {
                    Some("f") => Type::Field,
                    Some("u8") => Type::Uint(8),
                    Some("u16") => Type::Uint(16),
                    Some("u32") => Type::Uint(32),
                    Some("u64") => Type::Uint(64),
                    _ => match expected {
                        Some(Type::Uint(w)) => Type::Uint(*w),
                        _ => Type::Field,
                    },
                };
                (literal(digits, &ty, e.span)?, ty)
            }
            K::Hex(digits) => {
                let w = match digits.len() {
                    2 => 8,
                    4 => 16,
                    8 => 32,
                    16 => 64,
                    n => return Err(Diagnostic::new(
                        format!("a hexadecimal literal must have 2, 4, 8 or 16 digits, found {n}"),
                        e.span,
                    )
                    .with_note(
                        "the digit count gives the type: 2 is u8, 4 is u16, 8 is u32, 16 is u64",
                    )),
                };
                let v = u64::from_str_radix(digits, 16)
                    .map_err(|_| Diagnostic::new("invalid hexadecimal literal", e.span))?;
                (ExprKind::Uint(v), Type::Uint(w))
            }
            K::Bool(b) => (ExprKind::Bool(*b), Type::Bool),
            K::Name(name) => {
                if let Some(id) = self.lookup_local(&name.name) {
                    (
                        ExprKind::Local(id),
                        self.fs.locals[id.0 as usize].ty.clone(),
                    )
                } else if let Some((ty, v)) = self.consts.get(&name.name) {
                    return Ok(to_expr(v, ty, e.span));
                } else {
                    return Err(unknown_variable(name));
                }
            }
            K::Unary(op, x) => {
                let x = self.expr(x, expected)?;
                let ok = match op {
                    ast::UnaryOp::Neg | ast::UnaryOp::Pos => x.ty.is_numeric(),
                    ast::UnaryOp::Not => matches!(x.ty, Type::Bool | Type::Uint(_)),
                };
                if !ok {
                    let sym = match op {
                        ast::UnaryOp::Neg => "-",
                        ast::UnaryOp::Pos => "+",
                        ast::UnaryOp::Not => "!",
                    };
                    return Err(Diagnostic::new(
                        format!("cannot apply unary `{sym}` to a value of type `{}`", x.ty),
                        e.span,
                    ));
                }
                if *op == ast::UnaryOp::Pos {
                    return Ok(Expr { span: e.span, ..x });
                }
                let ty = x.ty.clone();
                (ExprKind::Unary(*op, Box::new(x)), ty)
            }
            K::Binary(op, a, b) => return self.binary(*op, a, b, expected, e.span),
            K::Conditional(c, a, b) => {
                let c = self.condition(c, "the condition of a conditional expression")?;
                let (a, b) = self.same_type_pair(a, b, expected)?;
                if a.ty != b.ty {
                    return Err(Diagnostic::new(
                        format!(
                            "the branches of a conditional have different types: `{}` and `{}`",
                            a.ty, b.ty
                        ),
                        e.span,
                    ));
                }
                let ty = a.ty.clone();
                (
                    ExprKind::Conditional(Box::new(c), Box::new(a), Box::new(b)),
                    ty,
                )
            }
            K::Call {
                callee,
                generics,
                args,
            } => {
                return self.call(callee, generics, args, expected, e.span);
            }
            K::Array(elems) => {
                let mut elem_ty = match expected {
                    Some(Type::Array(t, _)) => Some((**t).clone()),
                    _ => None,
                };
                if elem_ty.is_none() {
                    // Find an element that fixes the type, so that literals before it follow.
                    for el in elems {
                        match el {
                            ast::ArrayElem::Single(x) if !is_untyped(x) => {
                                elem_ty = Some(self.expr(x, None)?.ty);
                                break;
                            }
                            ast::ArrayElem::Spread(x) => {
                                if let Type::Array(t, _) = self.expr(x, None)?.ty {
                                    elem_ty = Some(*t);
                                }
                                break;
                            }
                            _ => {}
                        }
                    }
                }
                if elem_ty.is_none() && elems.is_empty() {
                    return Err(Diagnostic::new(
                        "cannot infer the type of an empty array",
                        e.span,
                    ));
                }
                let elem_ty = elem_ty.unwrap_or(Type::Field);
                let mut out = Vec::new();
                let mut len: u64 = 0;
                for el in elems {
                    match el {
                        ast::ArrayElem::Single(x) => {
                            let x = self.expr(x, Some(&elem_ty))?;
                            if x.ty != elem_ty {
                                return Err(mismatch(&elem_ty, &x.ty, x.span));
                            }
                            len += 1;
                            out.push(ArrayElem::Single(x));
                        }
                        ast::ArrayElem::Spread(x) => {
                            let x = self.expr(x, None)?;
                            match &x.ty {
                                Type::Array(t, n) if **t == elem_ty => len += u64::from(*n),
                                Type::Array(..) => {
                                    return Err(mismatch(
                                        &Type::Array(Box::new(elem_ty.clone()), 0),
                                        &x.ty,
                                        x.span,
                                    )
                                    .with_note("the spread array's elements must have the array literal's element type"))
                                }
                                _ => {
                                    return Err(Diagnostic::new(
                                        format!("cannot spread a value of type `{}`", x.ty),
                                        x.span,
                                    ))
                                }
                            }
                            out.push(ArrayElem::Spread(x));
                        }
                    }
                }
                let n = self.array_len(len, e.span)?;
                let ty = Type::Array(Box::new(elem_ty), n);
                self.check_leaves(&ty, e.span)?;
                (ExprKind::Array(out), ty)
            }
            K::Repeat(x, count) => {
                let elem_expected = match expected {
                    Some(Type::Array(t, _)) => Some((**t).clone()),
                    _ => None,
                };
                let x = self.expr(x, elem_expected.as_ref())?;
                let n = self.const_u32(count, "an array length")?;
                let ty = Type::Array(Box::new(x.ty.clone()), n);
                self.check_leaves(&ty, e.span)?;
                (ExprKind::Repeat(Box::new(x), n), ty)
            }
            K::Index(base, index) => {
                let base = self.expr(base, None)?;
                let Type::Array(elem, n) = base.ty.clone() else {
                    return Err(Diagnostic::new(
                        format!("cannot index into a value of type `{}`", base.ty),
                        base.span,
                    ));
                };
                let index = self.index(index, n)?;
                (ExprKind::Index(Box::new(base), Box::new(index)), *elem)
            }
            K::Slice(base, from, to) => {
                let base = self.expr(base, None)?;
                let Type::Array(elem, n) = base.ty.clone() else {
                    return Err(Diagnostic::new(
                        format!("cannot slice a value of type `{}`", base.ty),
                        base.span,
                    ));
                };
                let from = match from {
                    Some(f) => self.const_u32(f, "a slice bound")?,
                    None => 0,
                };
                let to = match to {
                    Some(t) => self.const_u32(t, "a slice bound")?,
                    None => n,
                };
                if from > to || to > n {
                    return Err(Diagnostic::new(
                        format!("slice {from}..{to} is out of range for an array of length {n}"),
                        e.span,
                    ));
                }
                (
                    ExprKind::Slice(Box::new(base), from, to),
                    Type::Array(elem, to - from),
                )
            }
            K::Member(base, field) => {
                let base = self.expr(base, None)?;
                let (i, ty) = member(&base.ty, field)?;
                (ExprKind::Member(Box::new(base), i), ty)
            }
            K::TupleIndex(base, i) => {
                let base = self.expr(base, None)?;
                let ty = tuple_elem(&base.ty, *i, e.span)?;
                (ExprKind::TupleIndex(Box::new(base), *i), ty)
            }
            K::Struct(name, fields) => {
                let s = match self.structs.get(&name.name).cloned() {
                    Some(s) => s,
                    None if self.struct_templates.contains_key(&name.name) => {
                        self.infer_struct(name, fields, expected, e.span)?
                    }
                    None => {
                        return Err(Diagnostic::new(
                            format!("unknown struct `{}`", name.name),
                            name.span,
                        ))
                    }
                };
                let mut values: Vec<Option<Expr>> = vec![None; s.fields.len()];
                for (fname, fvalue) in fields {
                    let Some(i) = s.fields.iter().position(|(n, _)| *n == fname.name) else {
                        return Err(Diagnostic::new(
                            format!("struct `{}` has no field `{}`", s.name, fname.name),
                            fname.span,
                        ));
                    };
                    if values[i].is_some() {
                        return Err(Diagnostic::new(
                            format!("field `{}` is given twice", fname.name),
                            fname.span,
                        ));
                    }
                    let fty = &s.fields[i].1;
                    let v = self.expr(fvalue, Some(fty))?;
                    if v.ty != *fty {
                        return Err(mismatch(fty, &v.ty, v.span));
                    }
                    values[i] = Some(v);
                }
                let mut out = Vec::new();
                for (v, (fname, _)) in values.into_iter().zip(&s.fields) {
                    match v {
                        Some(v) => out.push(v),
                        None => {
                            return Err(Diagnostic::new(
                                format!(
                                    "missing field `{fname}` in a value of struct `{}`",
                                    s.name
                                ),
                                e.span,
                            ))
                        }
                    }
                }
                (ExprKind::Struct(out), Type::Struct(s))
            }
            K::Tuple(elems) => {
                let expected_elems = match expected {
                    Some(Type::Tuple(ts)) if ts.len() == elems.len() => Some(ts.clone()),
                    _ => None,
                };
                let mut out = Vec::new();
                for (i, x) in elems.iter().enumerate() {
                    let exp = expected_elems.as_ref().map(|ts| &ts[i]);
                    out.push(self.expr(x, exp)?);
                }
                let ty = Type::Tuple(out.iter().map(|x| x.ty.clone()).collect());
                (ExprKind::Tuple(out), ty)
            }
        };
        Ok(Expr {
            kind,
            ty,
            span: e.span,
        })
    }

    fn eval(&self, e: &Expr) -> TResult<Option<Value>> {
        let known = &self.fs.known;
        eval_with(e, &|id| known.get(&id).cloned())
    }

    fn array_len(&self, len: u64, span: Span) -> TResult<u32> {
        u32::try_from(len)
            .ok()
            .filter(|&n| u64::from(n) <= MAX_TYPE_LEAVES)
            .ok_or_else(|| Diagnostic::new("array literal is too large", span))
    }

    fn check_leaves(&self, ty: &Type, span: Span) -> TResult<()> {
        if leaves(ty) > MAX_TYPE_LEAVES {
            return Err(Diagnostic::new(
                format!("type `{ty}` is too large (more than {MAX_TYPE_LEAVES} elements)"),
                span,
            ));
        }
        Ok(())
    }

    /// Checks two expressions that must have the same type; an untyped literal side takes the
    /// type of the other side.
    fn same_type_pair(
        &mut self,
        a: &ast::Expr,
        b: &ast::Expr,
        expected: Option<&Type>,
    ) -> TResult<(Expr, Expr)> {
        if is_untyped(a) && !is_untyped(b) {
            let b = self.expr(b, expected)?;
            let a = self.expr(a, Some(&b.ty))?;
            Ok((a, b))
        } else {
            let a = self.expr(a, expected)?;
            let b = self.expr(b, Some(&a.ty))?;
            Ok((a, b))
        }
    }

    fn binary(
        &mut self,
        op: ast::BinaryOp,
        a: &ast::Expr,
        b: &ast::Expr,
        expected: Option<&Type>,
        span: Span,
    ) -> TResult<Expr> {
        use ast::BinaryOp as B;
        let sym = op.as_str();
        let (a, b, ty) = match op {
            B::Pow | B::Shl | B::Shr => {
                let a = self.expr(a, expected)?;
                let b = self.expr(b, Some(&Type::Uint(32)))?;
                let ok = match op {
                    B::Pow => a.ty.is_numeric(),
                    _ => matches!(a.ty, Type::Uint(_)),
                };
                if !ok {
                    return Err(Diagnostic::new(
                        format!("cannot apply `{sym}` to a value of type `{}`", a.ty),
                        span,
                    ));
                }
                if b.ty != Type::Uint(32) {
                    return Err(Diagnostic::new(
                        format!(
                            "the right operand of `{sym}` must be a `u32`, found `{}`",
                            b.ty
                        ),
                        b.span,
                    ));
                }
                let ty = a.ty.clone();
                (a, b, ty)
            }
            B::And | B::Or => {
                let a = self.expr(a, Some(&Type::Bool))?;
                let b = self.expr(b, Some(&Type::Bool))?;
                if a.ty != Type::Bool || b.ty != Type::Bool {
                    return Err(Diagnostic::new(
                        format!(
                            "`{sym}` needs `bool` operands, found `{}` and `{}`",
                            a.ty, b.ty
                        ),
                        span,
                    ));
                }
                (a, b, Type::Bool)
            }
            _ => {
                let comparison = matches!(op, B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge);
                let operand_expected = if comparison { None } else { expected };
                let (a, b) = self.same_type_pair(a, b, operand_expected)?;
                if a.ty != b.ty {
                    return Err(Diagnostic::new(
                        format!("mismatched types in `{sym}`: `{}` and `{}`", a.ty, b.ty),
                        span,
                    ));
                }
                let ok = match op {
                    B::Add | B::Sub | B::Mul | B::Div | B::Lt | B::Le | B::Gt | B::Ge => {
                        a.ty.is_numeric()
                    }
                    B::Rem | B::BitAnd | B::BitOr | B::BitXor => matches!(a.ty, Type::Uint(_)),
                    _ => true, // == and != on any type
                };
                if !ok {
                    return Err(Diagnostic::new(
                        format!("cannot apply `{sym}` to values of type `{}`", a.ty),
                        span,
                    ));
                }
                let ty = if comparison { Type::Bool } else { a.ty.clone() };
                (a, b, ty)
            }
        };
        let e = Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            ty,
            span,
        };
        // A constant operation that fails (`1 / 0`) is not an error here: failure is
        // path-sensitive, and the operation may sit on a path that never runs.
        Ok(e)
    }

    fn call(
        &mut self,
        callee: &ast::Ident,
        generics: &[ast::Expr],
        args: &[ast::Expr],
        expected: Option<&Type>,
        span: Span,
    ) -> TResult<Expr> {
        if let Some(t) = self.templates.get(&callee.name).cloned() {
            return self.call_generic(&t, callee, generics, args, expected, span);
        }
        if self.generic_casts.contains(&callee.name) {
            let [arg] = args else {
                return Err(Diagnostic::new(
                    format!(
                        "`{}` takes 1 argument but {} were given",
                        callee.name,
                        args.len()
                    ),
                    span,
                ));
            };
            let Some(to) = expected else {
                return Err(Diagnostic::new(
                    format!("the result type of `{}` is not known here", callee.name),
                    span,
                )
                .with_note("assign the result to a variable of a declared type"));
            };
            let arg = self.expr(arg, None)?;
            return super::casts::expand(arg, to, span);
        }
        if let Some(g) = generics.first() {
            return Err(Diagnostic::new(
                format!("function `{}` has no generic parameters", callee.name),
                g.span,
            ));
        }
        if let Some(ids) = self.by_name.get(&callee.name).cloned() {
            let candidates: Vec<FuncId> = ids
                .iter()
                .copied()
                .filter(|id| self.sigs[id.0 as usize].params.len() == args.len())
                .collect();
            let id = match candidates.as_slice() {
                [] => {
                    let sig = &self.sigs[ids[0].0 as usize];
                    return Err(Diagnostic::new(
                        format!(
                            "function `{}` takes {} argument{} but {} {} given",
                            callee.name,
                            sig.params.len(),
                            if sig.params.len() == 1 { "" } else { "s" },
                            args.len(),
                            if args.len() == 1 { "was" } else { "were" }
                        ),
                        span,
                    ));
                }
                [id] => *id,
                _ => {
                    // Overloads: pick the one whose parameter types match the arguments.
                    let mut arg_tys = Vec::new();
                    for a in args {
                        arg_tys.push(self.expr(a, None)?.ty);
                    }
                    match candidates
                        .iter()
                        .find(|id| self.sigs[id.0 as usize].params == arg_tys)
                    {
                        Some(id) => *id,
                        None => {
                            let tys: Vec<String> = arg_tys.iter().map(|t| t.to_string()).collect();
                            return Err(Diagnostic::new(
                                format!(
                                    "no definition of `{}` takes arguments of types ({})",
                                    callee.name,
                                    tys.join(", ")
                                ),
                                span,
                            ));
                        }
                    }
                }
            };
            let params = self.sigs[id.0 as usize].params.clone();
            let mut targs = Vec::new();
            for (a, p) in args.iter().zip(&params) {
                let a = self.expr(a, Some(p))?;
                if a.ty != *p {
                    return Err(mismatch(p, &a.ty, a.span));
                }
                targs.push(a);
            }
            self.fs.calls.push((id, callee.span));
            return Ok(Expr {
                kind: ExprKind::Call(id, targs),
                ty: self.sigs[id.0 as usize].ret.clone(),
                span,
            });
        }
        let builtin = self
            .imports
            .get(&callee.name)
            .copied()
            .or_else(|| Builtin::from_name(&callee.name));
        let Some(b) = builtin else {
            return Err(Diagnostic::new(
                format!("unknown function `{}`", callee.name),
                callee.span,
            ));
        };
        if args.len() != 1 {
            return Err(Diagnostic::new(
                format!(
                    "function `{}` takes 1 argument but {} were given",
                    callee.name,
                    args.len()
                ),
                span,
            ));
        }
        let p = b.param();
        let a = self.expr(&args[0], Some(&p))?;
        if a.ty != p {
            return Err(mismatch(&p, &a.ty, a.span));
        }
        let e = Expr {
            kind: ExprKind::Builtin(b, Box::new(a)),
            ty: b.result(),
            span,
        };
        Ok(e)
    }
}

impl Checker {
    /// A call of a generic function: the generic values come from `::<...>` or from the array
    /// sizes of the arguments; the function is checked once per distinct set of values.
    fn call_generic(
        &mut self,
        t: &Arc<ast::FunctionDef>,
        callee: &ast::Ident,
        explicit: &[ast::Expr],
        args: &[ast::Expr],
        expected: Option<&Type>,
        span: Span,
    ) -> TResult<Expr> {
        if args.len() != t.params.len() {
            return Err(Diagnostic::new(
                format!(
                    "function `{}` takes {} argument{} but {} {} given",
                    callee.name,
                    t.params.len(),
                    if t.params.len() == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                span,
            ));
        }
        let mut bound: Vec<Option<u32>> = vec![None; t.generics.len()];
        if !explicit.is_empty() {
            if explicit.len() != t.generics.len() {
                return Err(Diagnostic::new(
                    format!(
                        "function `{}` takes {} generic arguments but {} were given",
                        callee.name,
                        t.generics.len(),
                        explicit.len()
                    ),
                    span,
                ));
            }
            for (b, g) in bound.iter_mut().zip(explicit) {
                // `_` leaves the parameter to inference.
                if !matches!(&g.kind, ast::ExprKind::Name(n) if n.name == "_") {
                    *b = Some(self.const_u32(g, "a generic argument")?);
                }
            }
        }
        if bound.iter().any(Option::is_none) {
            for (p, a) in t.params.iter().zip(args) {
                let ty = self.expr(a, None)?.ty;
                self.unify(&p.ty, &ty, &t.generics, &mut bound);
            }
        }
        // What the result is assigned to may fix the rest (`matrix<2, 4> m = fill(1);`).
        if let (Some(ret), Some(expected)) = (&t.ret, expected) {
            if bound.iter().any(Option::is_none) {
                self.unify(ret, expected, &t.generics, &mut bound);
            }
        }
        let values = all_bound(&t.generics, &bound, |g| {
            Diagnostic::new(
                format!(
                    "cannot infer the generic parameter `{g}` of `{}`",
                    callee.name
                ),
                span,
            )
            .with_note(format!("give it explicitly: `{}::<...>(...)`", callee.name))
        })?;
        let id = self.instance(t, values, span)?;
        let params = self.sigs[id.0 as usize].params.clone();
        let mut targs = Vec::new();
        for (a, p) in args.iter().zip(&params) {
            let a = self.expr(a, Some(p))?;
            if a.ty != *p {
                return Err(mismatch(p, &a.ty, a.span));
            }
            targs.push(a);
        }
        self.fs.calls.push((id, callee.span));
        Ok(Expr {
            kind: ExprKind::Call(id, targs),
            ty: self.sigs[id.0 as usize].ret.clone(),
            span,
        })
    }

    /// The instance of template `t` for `values`, checking it on first use.
    fn instance(&mut self, t: &ast::FunctionDef, values: Vec<u32>, span: Span) -> TResult<FuncId> {
        let key = (t.name.name.clone(), values.clone());
        if let Some(id) = self.instances.get(&key) {
            return Ok(*id);
        }
        if self.instance_depth >= MAX_INSTANCE_DEPTH {
            return Err(Diagnostic::new(
                format!(
                    "generic function `{}` is instantiated too deeply (more than {MAX_INSTANCE_DEPTH} levels)",
                    t.name.name
                ),
                span,
            ));
        }
        // The generic parameters are constants inside the instance.
        let saved_consts = self.consts.clone();
        for (g, v) in t.generics.iter().zip(&values) {
            self.consts
                .insert(g.name.clone(), (Type::Uint(32), Value::Uint(u64::from(*v))));
        }
        let saved_fs = std::mem::take(&mut self.fs);
        // An instance's body is not inside the `asm` hint that may have called it.
        let saved_hint = std::mem::replace(&mut self.in_hint, false);
        self.instance_depth += 1;
        let result = self.instantiate(t, key);
        self.instance_depth -= 1;
        self.in_hint = saved_hint;
        self.fs = saved_fs;
        self.consts = saved_consts;
        result
    }

    fn instantiate(&mut self, t: &ast::FunctionDef, key: (String, Vec<u32>)) -> TResult<FuncId> {
        let mut params = Vec::new();
        for p in &t.params {
            params.push(self.resolve_type(&p.ty)?);
        }
        let ret = match &t.ret {
            Some(r) => self.resolve_type(r)?,
            None => Type::unit(),
        };
        let id = FuncId(self.sigs.len() as u32);
        self.sigs.push(Sig {
            name: t.name.name.clone(),
            params,
            ret,
            name_span: t.name.span,
        });
        self.instances.insert(key, id);
        self.extra.push(None);
        let checked = self.function(id, t)?;
        self.extra[id.0 as usize - self.n_plain] = Some(checked);
        Ok(id)
    }
}

impl Checker {
    /// The type `name<values>`: an instance of a generic struct or alias.
    fn generic_type(&mut self, name: &ast::Ident, values: Vec<u32>, span: Span) -> TResult<Type> {
        if let Some(def) = self.struct_templates.get(&name.name).cloned() {
            return Ok(Type::Struct(self.struct_instance(&def, values, span)?));
        }
        let Some(def) = self.alias_templates.get(&name.name).cloned() else {
            return Err(
                if self.structs.contains_key(&name.name) || self.aliases.contains_key(&name.name) {
                    Diagnostic::new(
                        format!("type `{}` has no generic parameters", name.name),
                        span,
                    )
                } else {
                    Diagnostic::new(format!("unknown type `{}`", name.name), name.span)
                },
            );
        };
        if def.generics.len() != values.len() {
            return Err(arity(&name.name, def.generics.len(), values.len(), span));
        }
        self.with_generics(&def.generics, &values, |c| c.resolve_type(&def.ty))
    }

    /// Runs `f` with the generic parameters bound to `values` as `u32` constants.
    fn with_generics<T>(
        &mut self,
        generics: &[ast::Ident],
        values: &[u32],
        f: impl FnOnce(&mut Self) -> TResult<T>,
    ) -> TResult<T> {
        let saved = self.consts.clone();
        for (g, v) in generics.iter().zip(values) {
            self.consts
                .insert(g.name.clone(), (Type::Uint(32), Value::Uint(u64::from(*v))));
        }
        let result = f(self);
        self.consts = saved;
        result
    }

    /// The instance of generic struct `def` for `values` (named `Bar<2>`), made on first use.
    fn struct_instance(
        &mut self,
        def: &ast::StructDef,
        values: Vec<u32>,
        span: Span,
    ) -> TResult<Arc<StructType>> {
        if def.generics.len() != values.len() {
            return Err(arity(
                &def.name.name,
                def.generics.len(),
                values.len(),
                span,
            ));
        }
        let key = (def.name.name.clone(), values);
        if let Some(s) = self.struct_instances.get(&key) {
            return Ok(s.clone());
        }
        let fields = self.with_generics(&def.generics, &key.1, |c| {
            let mut fields: Vec<(String, Type)> = Vec::new();
            for (ty, name) in &def.fields {
                if fields.iter().any(|(n, _)| *n == name.name) {
                    return Err(Diagnostic::new(
                        format!(
                            "duplicate field `{}` in struct `{}`",
                            name.name, def.name.name
                        ),
                        name.span,
                    ));
                }
                fields.push((name.name.clone(), c.resolve_type(ty)?));
            }
            Ok(fields)
        })?;
        let args: Vec<String> = key.1.iter().map(u32::to_string).collect();
        let name = format!("{}<{}>", def.name.name, args.join(", "));
        let s = Arc::new(StructType {
            name: name.clone(),
            fields,
        });
        self.struct_args.insert(name, key.clone());
        self.struct_instances.insert(key, s.clone());
        Ok(s)
    }

    /// The instance a literal `Bar { c: [0, 0], d: false }` of a generic struct builds: the
    /// expected type's if it is an instance of `Bar`, else inferred from the member values.
    fn infer_struct(
        &mut self,
        name: &ast::Ident,
        fields: &[(ast::Ident, ast::Expr)],
        expected: Option<&Type>,
        span: Span,
    ) -> TResult<Arc<StructType>> {
        if let Some(Type::Struct(s)) = expected {
            if self
                .struct_args
                .get(&s.name)
                .is_some_and(|(t, _)| *t == name.name)
            {
                return Ok(s.clone());
            }
        }
        let def = self.struct_templates[&name.name].clone();
        let mut bound: Vec<Option<u32>> = vec![None; def.generics.len()];
        for (fname, fvalue) in fields {
            if let Some((te, _)) = def.fields.iter().find(|(_, n)| n.name == fname.name) {
                let ty = self.expr(fvalue, None)?.ty;
                self.unify(te, &ty, &def.generics, &mut bound);
            }
        }
        let values = all_bound(&def.generics, &bound, |g| {
            Diagnostic::new(
                format!(
                    "cannot infer the generic parameter `{g}` of struct `{}`",
                    name.name
                ),
                span,
            )
            .with_note(format!("give the type, e.g. `{}<3> x = ...;`", name.name))
        })?;
        self.struct_instance(&def, values, span)
    }

    /// Binds the generic parameters used as sizes in the written type `te` (a parameter or
    /// return type of a generic function, a member of a generic struct) to what they are in
    /// the actual type `ty`. Struct instances and aliases are looked through.
    fn unify(
        &self,
        te: &ast::TypeExpr,
        ty: &Type,
        generics: &[ast::Ident],
        bound: &mut [Option<u32>],
    ) {
        self.unify_depth(te, ty, generics, bound, 0);
    }

    fn unify_depth(
        &self,
        te: &ast::TypeExpr,
        ty: &Type,
        generics: &[ast::Ident],
        bound: &mut [Option<u32>],
        depth: usize,
    ) {
        // Aliases may name aliases; a cycle is impossible (names are declared before use), but
        // the depth cap keeps any input from recursing without end.
        if depth > 64 {
            return;
        }
        let bind = |size: &ast::Expr, n: u32, bound: &mut [Option<u32>]| {
            if let ast::ExprKind::Name(name) = &size.kind {
                if let Some(k) = generics.iter().position(|g| g.name == name.name) {
                    bound[k].get_or_insert(n);
                }
            }
        };
        match (&te.kind, ty) {
            (ast::TypeExprKind::Array(elem, size), Type::Array(t, n)) => {
                bind(size, *n, bound);
                self.unify_depth(elem, t, generics, bound, depth + 1);
            }
            (ast::TypeExprKind::Tuple(ts), Type::Tuple(tys)) => {
                for (te, ty) in ts.iter().zip(tys) {
                    self.unify_depth(te, ty, generics, bound, depth + 1);
                }
            }
            (ast::TypeExprKind::Named(name, args), Type::Struct(s)) if !args.is_empty() => {
                if let Some((template, values)) = self.struct_args.get(&s.name) {
                    if *template == name.name {
                        for (a, v) in args.iter().zip(values) {
                            bind(a, *v, bound);
                        }
                    }
                }
            }
            (ast::TypeExprKind::Named(name, args), _) => {
                if let Some(def) = self.alias_templates.get(&name.name) {
                    let expanded = substitute(&def.ty, &def.generics, args);
                    self.unify_depth(&expanded, ty, generics, bound, depth + 1);
                } else if args.is_empty() {
                    // A plain alias has no generic sizes of its own to bind.
                }
            }
            _ => {}
        }
    }
}

/// `te` with the names of `generics` in its sizes replaced by `args`.
fn substitute(te: &ast::TypeExpr, generics: &[ast::Ident], args: &[ast::Expr]) -> ast::TypeExpr {
    let sub_expr = |e: &ast::Expr| -> ast::Expr {
        if let ast::ExprKind::Name(n) = &e.kind {
            if let Some(k) = generics.iter().position(|g| g.name == n.name) {
                if let Some(a) = args.get(k) {
                    return a.clone();
                }
            }
        }
        e.clone()
    };
    let kind = match &te.kind {
        ast::TypeExprKind::Array(elem, size) => ast::TypeExprKind::Array(
            Box::new(substitute(elem, generics, args)),
            Box::new(sub_expr(size)),
        ),
        ast::TypeExprKind::Tuple(ts) => {
            ast::TypeExprKind::Tuple(ts.iter().map(|t| substitute(t, generics, args)).collect())
        }
        ast::TypeExprKind::Named(n, a) => {
            ast::TypeExprKind::Named(n.clone(), a.iter().map(sub_expr).collect())
        }
        k => k.clone(),
    };
    ast::TypeExpr {
        kind,
        span: te.span,
    }
}

/// Can `log` print a value of this type? Everything but arrays that hold structs or tuples.
fn loggable(ty: &Type) -> bool {
    match ty {
        Type::Field | Type::Bool | Type::Uint(_) => true,
        Type::Array(elem, _) => {
            matches!(
                **elem,
                Type::Field | Type::Bool | Type::Uint(_) | Type::Array(..)
            ) && loggable(elem)
        }
        Type::Struct(s) => s.fields.iter().all(|(_, t)| loggable(t)),
        Type::Tuple(ts) => ts.iter().all(loggable),
    }
}

fn arity(name: &str, expected: usize, found: usize, span: Span) -> Diagnostic {
    Diagnostic::new(
        format!(
            "type `{name}` takes {expected} generic argument{} but {found} {} given",
            if expected == 1 { "" } else { "s" },
            if found == 1 { "was" } else { "were" }
        ),
        span,
    )
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

/// The value of a decimal literal of type `ty`, range-checked.
fn literal(digits: &str, ty: &Type, span: Span) -> TResult<ExprKind> {
    let out_of_range = || {
        Diagnostic::new(
            format!("integer literal `{digits}` is out of range for `{ty}`"),
            span,
        )
    };
    match ty {
        Type::Uint(w) => {
            let v: u128 = digits.parse().map_err(|_| out_of_range())?;
            if v >> w != 0 {
                return Err(out_of_range());
            }
            Ok(ExprKind::Uint(v as u64))
        }
        _ => {
            let big = BigInt::<4>::from_str(digits).map_err(|_| out_of_range())?;
            let f = Fr::from_bigint(big).ok_or_else(out_of_range)?;
            Ok(ExprKind::Field(f))
        }
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

/// Renames every local `e` reads with `f`.
fn remap_locals(e: &mut Expr, f: &mut impl FnMut(LocalId) -> LocalId) {
    match &mut e.kind {
        ExprKind::Local(id) => *id = f(*id),
        ExprKind::Field(_) | ExprKind::Uint(_) | ExprKind::Bool(_) => {}
        ExprKind::Unary(_, x)
        | ExprKind::Builtin(_, x)
        | ExprKind::Repeat(x, _)
        | ExprKind::Slice(x, ..)
        | ExprKind::Member(x, _)
        | ExprKind::TupleIndex(x, _) => remap_locals(x, f),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            remap_locals(a, f);
            remap_locals(b, f);
        }
        ExprKind::Conditional(c, a, b) => {
            remap_locals(c, f);
            remap_locals(a, f);
            remap_locals(b, f);
        }
        ExprKind::Call(_, xs)
        | ExprKind::Hint(_, xs)
        | ExprKind::Struct(xs)
        | ExprKind::Tuple(xs) => xs.iter_mut().for_each(|x| remap_locals(x, f)),
        ExprKind::Array(elems) => {
            for el in elems {
                match el {
                    ArrayElem::Single(x) | ArrayElem::Spread(x) => remap_locals(x, f),
                }
            }
        }
    }
}
