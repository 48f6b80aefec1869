//! Random well-typed ZoKrates programs with random inputs, and a reference evaluator for them.
//!
//! The generator builds a small typed tree ([`Program`]) that covers the source language the
//! compiler claims: helper functions and calls, mutable locals and `mut` parameters, `for` loops
//! with constant and run-time bounds, `while` loops, nested `if` / `else if` / `else` statements,
//! if-expressions and `c ? a : b`, early `return`s inside branches and loops, arrays read and
//! written at run-time indices (in bounds mostly, sometimes out of bounds), `u8`/`u32`/`u64` and
//! `field` arithmetic (division, wrap-around, `**`), shifts and bit operations, comparisons,
//! conversions, and assertions. It prints the tree as source text with the fewest parentheses
//! the parser's precedence table allows (so precedence is exercised too), and [`eval`] runs the
//! tree directly, independently of the front end, the IR and the interpreter.
//!
//! Termination holds by construction: `for` bounds are constants or run-time values reduced
//! modulo a small number, and every `while` loop counts a fresh counter (that nothing else
//! assigns) down to zero. So the reference evaluator needs no step limit, and a compiled program
//! that hits the interpreter's step limit is a bug.
//!
//! ```
//! let case = zkbc_testkit::testgen::generate(7);
//! let source = case.program.to_string();
//! assert!(source.contains("def main("));
//! let _outcome = zkbc_testkit::testgen::eval::run(&case.program, &case.inputs);
//! ```
//!
//! Everything is deterministic in the seed ([`Rng`] is a SplitMix64), so a failing seed
//! reproduces anywhere.

pub mod eval;
mod print;

use crate::Rng;
use zkbc::field::Fr;

/// What the seed is mixed with before it seeds the [`Rng`], so that a seed names the same
/// program as before the testkit shared one generator among its fixtures.
const SEED_MIX: u64 = 0x5DEE_CE66_D1CE_4E5B;

/// A source type the generator uses: scalars and one-dimensional arrays of scalars.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `field`
    Field,
    /// `bool`
    Bool,
    /// `u8`, `u32`, `u64`
    U(u32),
    /// `T[N]` of a scalar `T`
    Array(Box<Ty>, u32),
}

/// A value of a [`Ty`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A field element.
    Field(Fr),
    /// A bool.
    Bool(bool),
    /// An unsigned integer (its width is in the type).
    U(u64),
    /// An array.
    Array(Vec<Value>),
}

/// Binary operators (the operand type is stored beside them in [`Expr::Bin`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (field inverse or integer division)
    Div,
    /// `%` (integers)
    Rem,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<` (the right operand is a `u32`)
    Shl,
    /// `>>` (the right operand is a `u32`)
    Shr,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&` (both sides are evaluated, as in ZoKrates)
    And,
    /// `||` (both sides are evaluated)
    Or,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-` (field negation, or wrap-around negation of an integer)
    Neg,
    /// `!` (logical or bitwise not)
    Not,
}

/// Conversions (built-in functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cast {
    /// `uN_to_field`
    ToField(u32),
    /// `field_to_uN`: fails when the value does not fit.
    FromField(u32),
}

/// An expression, with the types the evaluator needs stored in it.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A literal of a scalar type.
    Lit(Ty, Value),
    /// A variable.
    Var(String),
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// A unary operation on an operand of the given type.
    Un(UnOp, Ty, Box<Expr>),
    /// A binary operation whose left operand has the given type.
    Bin(BinOp, Ty, Box<Expr>, Box<Expr>),
    /// `a ** k` with a literal `u32` exponent, on an operand of the given type.
    Pow(Ty, Box<Expr>, u32),
    /// `c ? a : b`
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `if c { a } else { b }`
    IfExpr(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call of a helper function.
    Call(String, Vec<Expr>),
    /// A conversion.
    Cast(Cast, Box<Expr>),
    /// `[e; n]`
    Repeat(Box<Expr>, u32),
    /// `[e0, e1, ...]`
    ArrayLit(Vec<Expr>),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `T [mut] name = init;`
    Decl {
        /// The declared type.
        ty: Ty,
        /// The name (unique within its function).
        name: String,
        /// Whether it is `mut`.
        mutable: bool,
        /// The initializer.
        init: Expr,
    },
    /// `name = value;`
    Assign(String, Expr),
    /// `name[index] = value;`
    AssignIndex(String, Expr, Expr),
    /// `if c { .. } else if c { .. } else { .. }`
    If(Vec<(Expr, Vec<Stmt>)>, Option<Vec<Stmt>>),
    /// `for T var in from..to { body }`
    For {
        /// The loop variable's type (`u8`, `u32` or `u64`).
        ty: Ty,
        /// The loop variable.
        var: String,
        /// The first value.
        from: Expr,
        /// The bound (exclusive), evaluated once.
        to: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `while cond { body }`
    While(Expr, Vec<Stmt>),
    /// `return e;` or `return (e0, e1, ...);`
    Return(Vec<Expr>),
    /// `assert(e);`
    Assert(Expr),
}

/// A function; `main` is the last.
#[derive(Clone, Debug)]
pub struct Func {
    /// Its name.
    pub name: String,
    /// Parameters: type, name, `mut`.
    pub params: Vec<(Ty, String, bool)>,
    /// Return types (a tuple when more than one).
    pub ret: Vec<Ty>,
    /// The body; it ends with a `return`.
    pub body: Vec<Stmt>,
}

/// A generated program: helpers first, then `main`.
#[derive(Clone, Debug)]
pub struct Program {
    /// The functions, `main` last.
    pub funcs: Vec<Func>,
}

impl Program {
    /// `main`.
    pub fn main(&self) -> &Func {
        self.funcs
            .last()
            .expect("bug: a generated program has a main")
    }

    /// The function called `name`.
    pub fn func(&self, name: &str) -> Option<&Func> {
        self.funcs.iter().find(|f| f.name == name)
    }

    /// Features the program uses (for coverage counts).
    pub fn features(&self) -> Features {
        let mut f = Features::default();
        for func in &self.funcs {
            f.functions += 1;
            print::features_of_stmts(&func.body, &mut f, 0);
        }
        f
    }
}

/// What a program contains, counted by [`Program::features`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Functions (including main).
    pub functions: usize,
    /// `for` loops with constant bounds.
    pub const_loops: usize,
    /// `for` loops with a run-time bound.
    pub runtime_loops: usize,
    /// `while` loops.
    pub while_loops: usize,
    /// `if` statements.
    pub ifs: usize,
    /// `if` statements nested in another `if` statement.
    pub nested_ifs: usize,
    /// `return`s other than the last statement of a function.
    pub early_returns: usize,
    /// Assertions.
    pub asserts: usize,
    /// Array reads or writes at non-literal indices.
    pub dynamic_indices: usize,
    /// Calls of helper functions.
    pub calls: usize,
    /// Field divisions.
    pub field_divs: usize,
    /// Integer divisions and remainders.
    pub int_divs: usize,
    /// Shifts.
    pub shifts: usize,
    /// `c ? a : b` and if-expressions.
    pub conditional_exprs: usize,
}

/// One generated case: a program and inputs for its `main`.
#[derive(Clone, Debug)]
pub struct Case {
    /// The seed it was generated from.
    pub seed: u64,
    /// The program.
    pub program: Program,
    /// One value per parameter of `main`.
    pub inputs: Vec<Value>,
}

impl Case {
    /// The inputs as the driver reads them: a JSON object keyed by parameter name.
    pub fn inputs_json(&self) -> serde_json::Value {
        let mut obj = serde_json::Map::new();
        for ((ty, name, _), v) in self.program.main().params.iter().zip(&self.inputs) {
            obj.insert(name.clone(), v.to_json(ty));
        }
        serde_json::Value::Object(obj)
    }
}

impl Value {
    /// The value in the driver's JSON encoding (`outputs_to_json`).
    pub fn to_json(&self, ty: &Ty) -> serde_json::Value {
        match (self, ty) {
            (Value::Field(x), _) => serde_json::Value::String(zkbc::field::to_dec(x)),
            (Value::U(n), _) => serde_json::Value::String(n.to_string()),
            (Value::Bool(b), _) => serde_json::Value::Bool(*b),
            (Value::Array(items), Ty::Array(elem, _)) => {
                serde_json::Value::Array(items.iter().map(|v| v.to_json(elem)).collect())
            }
            (Value::Array(_), _) => panic!("bug: an array value of scalar type {ty:?}"),
        }
    }
}

/// Generates the case of `seed`.
pub fn generate(seed: u64) -> Case {
    let mut rng = Rng::new(seed ^ SEED_MIX);
    let n_helpers = rng.below(3) as usize;
    let mut funcs: Vec<Func> = Vec::new();
    for k in 0..n_helpers {
        let f = Gen::new(&mut rng, &funcs, false).function(format!("f{k}"));
        funcs.push(f);
    }
    let main = Gen::new(&mut rng, &funcs, true).function("main".into());
    let inputs = main
        .params
        .iter()
        .map(|(ty, _, _)| random_value(&mut rng, ty))
        .collect();
    funcs.push(main);
    Case {
        seed,
        program: Program { funcs },
        inputs,
    }
}

fn width_max(w: u32) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// A random value of `ty`, biased towards edge cases (0, 1, the maximum, p - 1).
pub fn random_value(rng: &mut Rng, ty: &Ty) -> Value {
    match ty {
        Ty::Field => Value::Field(match rng.below(6) {
            0 => Fr::from(0u64),
            1 => -Fr::from(1 + rng.below(3)),
            2 => Fr::from(rng.next_u64()) * Fr::from(rng.next_u64()),
            _ => Fr::from(rng.below(20)),
        }),
        Ty::Bool => Value::Bool(rng.chance(50)),
        Ty::U(w) => Value::U(match rng.below(6) {
            0 => 0,
            1 => width_max(*w) - rng.below(3),
            2 => rng.next_u64() & width_max(*w),
            _ => rng.below(20),
        }),
        Ty::Array(elem, n) => Value::Array((0..*n).map(|_| random_value(rng, elem)).collect()),
    }
}

/// A variable in scope.
#[derive(Clone, Debug)]
struct VarInfo {
    name: String,
    ty: Ty,
    /// Assignable by generated statements (`mut`, and not a loop variable or a while counter).
    assignable: bool,
}

/// Limits that keep programs small and loops short.
const MAX_STMT_DEPTH: u32 = 3;
const MAX_LOOP_DEPTH: u32 = 2;
const MAX_EXPR_DEPTH: u32 = 3;
const SCALARS: [Ty; 5] = [Ty::Field, Ty::Field, Ty::U(8), Ty::U(32), Ty::U(64)];

/// The generator of one function.
struct Gen<'a> {
    rng: &'a mut Rng,
    /// Earlier functions, callable from this one.
    callees: &'a [Func],
    is_main: bool,
    scopes: Vec<Vec<VarInfo>>,
    ret: Vec<Ty>,
    next_name: usize,
    loop_depth: u32,
}

impl<'a> Gen<'a> {
    fn new(rng: &'a mut Rng, callees: &'a [Func], is_main: bool) -> Gen<'a> {
        Gen {
            rng,
            callees,
            is_main,
            scopes: vec![Vec::new()],
            ret: Vec::new(),
            next_name: 0,
            loop_depth: 0,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    fn scalar_ty(&mut self) -> Ty {
        self.rng.pick(&SCALARS)
    }

    fn any_ty(&mut self) -> Ty {
        match self.rng.below(10) {
            0 => Ty::Bool,
            1 | 2 => {
                let elem = self.scalar_ty();
                Ty::Array(Box::new(elem), 2 + self.rng.below(4) as u32)
            }
            _ => self.scalar_ty(),
        }
    }

    fn function(mut self, name: String) -> Func {
        let n_params = if self.is_main {
            1 + self.rng.below(4)
        } else {
            1 + self.rng.below(3)
        };
        let mut params = Vec::new();
        for _ in 0..n_params {
            let ty = self.any_ty();
            let pname = self.fresh("p");
            let mutable = self.rng.chance(30);
            self.declare(&pname, &ty, mutable);
            params.push((ty, pname, mutable));
        }
        self.ret = if self.is_main {
            (0..1 + self.rng.below(3)).map(|_| self.any_ty()).collect()
        } else {
            vec![self.scalar_ty()]
        };
        let n_stmts = 2 + self.rng.below(4) as usize;
        let mut body = self.block(0, n_stmts);
        let last = Stmt::Return(self.ret.clone().iter().map(|t| self.expr(t, 2)).collect());
        if !matches!(body.last(), Some(Stmt::Return(_))) {
            body.push(last);
        }
        Func {
            name,
            params,
            ret: self.ret,
            body,
        }
    }

    fn declare(&mut self, name: &str, ty: &Ty, assignable: bool) {
        self.scopes
            .last_mut()
            .expect("bug: no scope")
            .push(VarInfo {
                name: name.to_string(),
                ty: ty.clone(),
                assignable,
            });
    }

    fn vars(&self) -> impl Iterator<Item = &VarInfo> {
        self.scopes.iter().flatten()
    }

    fn vars_of(&self, ty: &Ty) -> Vec<String> {
        self.vars()
            .filter(|v| &v.ty == ty)
            .map(|v| v.name.clone())
            .collect()
    }

    /// A block of about `n` statements, in a new scope; stops after a `return`.
    fn block(&mut self, depth: u32, n: usize) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        let mut out = Vec::new();
        for _ in 0..n {
            let s = self.stmt(depth);
            let is_return = matches!(*s, Stmt::Return(_));
            out.extend(s.into_iter_flat());
            if is_return {
                break;
            }
        }
        self.scopes.pop();
        out
    }

    fn stmt(&mut self, depth: u32) -> StmtOrMany {
        let nested_ok = depth < MAX_STMT_DEPTH;
        let loop_ok = nested_ok && self.loop_depth < MAX_LOOP_DEPTH;
        let roll = self.rng.below(100);
        match roll {
            0..=24 => StmtOrMany::One(self.decl()),
            25..=44 => match self.assign() {
                Some(s) => StmtOrMany::One(s),
                None => StmtOrMany::One(self.decl()),
            },
            45..=59 if nested_ok => StmtOrMany::One(self.if_stmt(depth)),
            60..=69 if loop_ok => StmtOrMany::One(self.for_stmt(depth)),
            70..=76 if loop_ok => self.while_stmt(depth),
            77..=82 if depth > 0 => {
                let ret = self.ret.clone();
                StmtOrMany::One(Stmt::Return(ret.iter().map(|t| self.expr(t, 2)).collect()))
            }
            83..=88 => StmtOrMany::One(Stmt::Assert(self.assertion())),
            _ => StmtOrMany::One(self.decl()),
        }
    }

    fn decl(&mut self) -> Stmt {
        let ty = self.any_ty();
        let init = self.expr(&ty, MAX_EXPR_DEPTH);
        let name = self.fresh("v");
        let mutable = self.rng.chance(70);
        self.declare(&name, &ty, mutable);
        Stmt::Decl {
            ty,
            name,
            mutable,
            init,
        }
    }

    fn assign(&mut self) -> Option<Stmt> {
        let targets: Vec<VarInfo> = self.vars().filter(|v| v.assignable).cloned().collect();
        if targets.is_empty() {
            return None;
        }
        let target = self.rng.pick(&targets);
        Some(match &target.ty {
            Ty::Array(elem, n) if self.rng.chance(80) => {
                let index = self.index(*n);
                let value = self.expr(elem, MAX_EXPR_DEPTH);
                Stmt::AssignIndex(target.name, index, value)
            }
            ty => Stmt::Assign(target.name, self.expr(ty, MAX_EXPR_DEPTH)),
        })
    }

    fn if_stmt(&mut self, depth: u32) -> Stmt {
        let mut arms = Vec::new();
        let n_arms = 1 + self.rng.below(3) as usize;
        for _ in 0..n_arms {
            let cond = self.expr(&Ty::Bool, 2);
            let n = 1 + self.rng.below(3) as usize;
            arms.push((cond, self.block(depth + 1, n)));
        }
        let els = if self.rng.chance(50) {
            let n = 1 + self.rng.below(3) as usize;
            Some(self.block(depth + 1, n))
        } else {
            None
        };
        Stmt::If(arms, els)
    }

    fn loop_body(&mut self, depth: u32, var: Option<(&str, &Ty)>) -> Vec<Stmt> {
        self.loop_depth += 1;
        self.scopes.push(Vec::new());
        if let Some((name, ty)) = var {
            self.declare(name, ty, false);
        }
        let n = 1 + self.rng.below(3) as usize;
        let body = self.block(depth + 1, n);
        self.scopes.pop();
        self.loop_depth -= 1;
        body
    }

    fn for_stmt(&mut self, depth: u32) -> Stmt {
        let ty = match self.rng.below(6) {
            0 => Ty::U(8),
            1 => Ty::U(64),
            _ => Ty::U(32),
        };
        let Ty::U(w) = ty else { unreachable!() };
        let (from, to) = if self.rng.chance(50) {
            let a = self.rng.below(3);
            let b = a + self.rng.below(5);
            (
                Expr::Lit(ty.clone(), Value::U(a)),
                Expr::Lit(ty.clone(), Value::U(b)),
            )
        } else {
            // Run-time bounds: small by construction (`e % 3` and `e % 6`).
            let lo = if self.rng.chance(50) {
                Expr::Lit(ty.clone(), Value::U(0))
            } else {
                self.modulo(&ty, w, 3)
            };
            (lo, self.modulo(&ty, w, 6))
        };
        let var = self.fresh("i");
        let body = self.loop_body(depth, Some((&var, &ty)));
        Stmt::For {
            ty,
            var,
            from,
            to,
            body,
        }
    }

    /// `(e % k)` for a random `e` of type `uW`.
    fn modulo(&mut self, ty: &Ty, _w: u32, k: u64) -> Expr {
        let e = self.expr(ty, 2);
        Expr::Bin(
            BinOp::Rem,
            ty.clone(),
            Box::new(e),
            Box::new(Expr::Lit(ty.clone(), Value::U(k))),
        )
    }

    /// `u32 mut w = e % 5; while w > 0 { ...; w = w - 1; }`: the counter is not assignable by
    /// anything else, so the loop ends.
    fn while_stmt(&mut self, depth: u32) -> StmtOrMany {
        let ty = Ty::U(32);
        let counter = self.fresh("w");
        let init = self.modulo(&ty, 32, 5);
        self.declare(&counter, &ty, false);
        let cond = Expr::Bin(
            BinOp::Gt,
            ty.clone(),
            Box::new(Expr::Var(counter.clone())),
            Box::new(Expr::Lit(ty.clone(), Value::U(0))),
        );
        let mut body = self.loop_body(depth, None);
        if !matches!(body.last(), Some(Stmt::Return(_))) {
            body.push(Stmt::Assign(
                counter.clone(),
                Expr::Bin(
                    BinOp::Sub,
                    ty.clone(),
                    Box::new(Expr::Var(counter.clone())),
                    Box::new(Expr::Lit(ty.clone(), Value::U(1))),
                ),
            ));
        }
        StmtOrMany::Many(vec![
            Stmt::Decl {
                ty,
                name: counter,
                mutable: true,
                init,
            },
            Stmt::While(cond, body),
        ])
    }

    /// An assertion that holds often but not always.
    fn assertion(&mut self) -> Expr {
        let ty = self.scalar_ty();
        let a = self.expr(&ty, 2);
        if self.rng.chance(60) {
            // `a != a + 1` style conditions that hold, through the whole pipeline.
            let b = Expr::Bin(
                BinOp::Add,
                ty.clone(),
                Box::new(a.clone()),
                Box::new(Expr::Lit(ty.clone(), lit_one(&ty))),
            );
            Expr::Bin(BinOp::Ne, ty, Box::new(a), Box::new(b))
        } else {
            let b = self.expr(&ty, 2);
            let op = self.rng.pick(&[BinOp::Ne, BinOp::Le, BinOp::Ge, BinOp::Lt]);
            Expr::Bin(op, ty, Box::new(a), Box::new(b))
        }
    }

    /// An index into an array of length `n`: in bounds mostly, sometimes not.
    fn index(&mut self, n: u32) -> Expr {
        let u32t = Ty::U(32);
        let loop_vars: Vec<String> = self.vars_of(&u32t);
        match self.rng.below(10) {
            0 => Expr::Lit(u32t.clone(), Value::U(self.rng.below(u64::from(n)))),
            // A raw index (sometimes out of bounds). A constant one would be rejected at compile
            // time (the type checker's rule), so it must depend on a run-time value.
            1 | 2 => {
                let e = self.expr(&u32t, 1);
                if is_constant(&e) {
                    self.modulo(&u32t, 32, u64::from(n))
                } else {
                    e
                }
            }
            3 if !loop_vars.is_empty() => Expr::Var(self.rng.pick(&loop_vars)),
            _ => self.modulo(&u32t, 32, u64::from(n)),
        }
    }

    fn leaf(&mut self, ty: &Ty) -> Expr {
        let vars = self.vars_of(ty);
        if !vars.is_empty() && self.rng.chance(65) {
            return Expr::Var(self.rng.pick(&vars));
        }
        // An element of an array variable.
        if !matches!(ty, Ty::Array(..)) && self.rng.chance(30) {
            let arrays: Vec<(String, u32)> = self
                .vars()
                .filter_map(|v| match &v.ty {
                    Ty::Array(e, n) if **e == *ty => Some((v.name.clone(), *n)),
                    _ => None,
                })
                .collect();
            if !arrays.is_empty() {
                let (name, n) = self.rng.pick(&arrays);
                let i = self.index(n);
                return Expr::Index(Box::new(Expr::Var(name)), Box::new(i));
            }
        }
        self.literal(ty)
    }

    fn literal(&mut self, ty: &Ty) -> Expr {
        match ty {
            Ty::Array(elem, n) => {
                let e = self.leaf(elem);
                Expr::Repeat(Box::new(e), *n)
            }
            _ => Expr::Lit(ty.clone(), random_value(self.rng, ty)),
        }
    }

    fn expr(&mut self, ty: &Ty, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        // Forms every type has: conditionals and calls.
        match self.rng.below(100) {
            0..=5 => {
                let c = self.expr(&Ty::Bool, d);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                return Expr::Ternary(Box::new(c), Box::new(a), Box::new(b));
            }
            6..=9 => {
                let c = self.expr(&Ty::Bool, d);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                return Expr::IfExpr(Box::new(c), Box::new(a), Box::new(b));
            }
            10..=17 => {
                let callees: Vec<Func> = self
                    .callees
                    .iter()
                    .filter(|f| f.ret.len() == 1 && f.ret[0] == *ty)
                    .cloned()
                    .collect();
                if !callees.is_empty() {
                    let f = self.rng.pick(&callees);
                    let args = f.params.iter().map(|(t, _, _)| self.expr(t, d)).collect();
                    return Expr::Call(f.name.clone(), args);
                }
            }
            _ => {}
        }
        match ty {
            Ty::Field => self.field_expr(d),
            Ty::U(w) => self.uint_expr(*w, d),
            Ty::Bool => self.bool_expr(d),
            Ty::Array(elem, n) => match self.rng.below(3) {
                0 => Expr::ArrayLit((0..*n).map(|_| self.expr(elem, d)).collect()),
                1 => Expr::Repeat(Box::new(self.expr(elem, d)), *n),
                _ => self.leaf(ty),
            },
        }
    }

    fn bin(&mut self, op: BinOp, ty: &Ty, d: u32) -> Expr {
        let a = self.expr(ty, d);
        let b = self.expr(ty, d);
        Expr::Bin(op, ty.clone(), Box::new(a), Box::new(b))
    }

    /// A divisor that is rarely zero: `(e == 0 ? 1 : e)` or `(e | 1)`, or sometimes just `e`.
    fn divisor(&mut self, ty: &Ty, d: u32) -> Expr {
        let e = self.expr(ty, d);
        if self.rng.chance(25) {
            return e;
        }
        match ty {
            Ty::U(_) if self.rng.chance(50) => Expr::Bin(
                BinOp::BitOr,
                ty.clone(),
                Box::new(e),
                Box::new(Expr::Lit(ty.clone(), lit_one(ty))),
            ),
            _ => {
                let zero = Expr::Lit(ty.clone(), lit_zero(ty));
                let c = Expr::Bin(BinOp::Eq, ty.clone(), Box::new(e.clone()), Box::new(zero));
                Expr::Ternary(
                    Box::new(c),
                    Box::new(Expr::Lit(ty.clone(), lit_one(ty))),
                    Box::new(e),
                )
            }
        }
    }

    fn field_expr(&mut self, d: u32) -> Expr {
        let f = Ty::Field;
        match self.rng.below(12) {
            0..=2 => self.bin(BinOp::Add, &f, d),
            3 => self.bin(BinOp::Sub, &f, d),
            4 | 5 => self.bin(BinOp::Mul, &f, d),
            6 => {
                let a = self.expr(&f, d);
                let b = self.divisor(&f, d);
                Expr::Bin(BinOp::Div, f, Box::new(a), Box::new(b))
            }
            7 => Expr::Un(UnOp::Neg, f.clone(), Box::new(self.expr(&f, d))),
            8 => Expr::Pow(
                f.clone(),
                Box::new(self.expr(&f, d)),
                self.rng.below(5) as u32,
            ),
            9 | 10 => {
                let w = self.rng.pick(&[8, 32, 64]);
                Expr::Cast(Cast::ToField(w), Box::new(self.expr(&Ty::U(w), d)))
            }
            _ => self.leaf(&f),
        }
    }

    fn uint_expr(&mut self, w: u32, d: u32) -> Expr {
        let t = Ty::U(w);
        match self.rng.below(18) {
            0..=2 => self.bin(BinOp::Add, &t, d),
            3 => self.bin(BinOp::Sub, &t, d),
            4 | 5 => self.bin(BinOp::Mul, &t, d),
            6 | 7 => {
                let op = if self.rng.chance(50) {
                    BinOp::Div
                } else {
                    BinOp::Rem
                };
                let a = self.expr(&t, d);
                let b = self.divisor(&t, d);
                Expr::Bin(op, t, Box::new(a), Box::new(b))
            }
            8 => self.bin(BinOp::BitAnd, &t, d),
            9 => self.bin(BinOp::BitOr, &t, d),
            10 => self.bin(BinOp::BitXor, &t, d),
            11 | 12 => {
                let op = if self.rng.chance(50) {
                    BinOp::Shl
                } else {
                    BinOp::Shr
                };
                let a = self.expr(&t, d);
                let s = if self.rng.chance(50) {
                    Expr::Lit(Ty::U(32), Value::U(self.rng.below(u64::from(w) + 3)))
                } else {
                    self.modulo(&Ty::U(32), 32, u64::from(w) + 2)
                };
                Expr::Bin(op, t, Box::new(a), Box::new(s))
            }
            13 => Expr::Un(
                self.rng.pick(&[UnOp::Neg, UnOp::Not]),
                t.clone(),
                Box::new(self.expr(&t, d)),
            ),
            14 => Expr::Pow(
                t.clone(),
                Box::new(self.expr(&t, d)),
                self.rng.below(4) as u32,
            ),
            15 => {
                // field_to_uW of a field that fits mostly (it came from a narrower integer).
                let inner = if self.rng.chance(80) {
                    let v = self.rng.pick(&[8, 32, 64]);
                    let v = v.min(w);
                    Expr::Cast(Cast::ToField(v), Box::new(self.expr(&Ty::U(v), d)))
                } else {
                    self.expr(&Ty::Field, d)
                };
                Expr::Cast(Cast::FromField(w), Box::new(inner))
            }
            _ => self.leaf(&t),
        }
    }

    fn bool_expr(&mut self, d: u32) -> Expr {
        match self.rng.below(10) {
            0..=4 => {
                let ty = self.scalar_ty();
                let op = self.rng.pick(&[
                    BinOp::Eq,
                    BinOp::Ne,
                    BinOp::Lt,
                    BinOp::Le,
                    BinOp::Gt,
                    BinOp::Ge,
                ]);
                self.bin(op, &ty, d)
            }
            5 => self.bin(BinOp::And, &Ty::Bool, d),
            6 => self.bin(BinOp::Or, &Ty::Bool, d),
            7 => Expr::Un(UnOp::Not, Ty::Bool, Box::new(self.expr(&Ty::Bool, d))),
            8 => self.bin(BinOp::Eq, &Ty::Bool, d),
            _ => self.leaf(&Ty::Bool),
        }
    }
}

/// Whether `e` could be folded at compile time (it reads no variable and calls nothing).
fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Lit(..) => true,
        Expr::Var(_) | Expr::Call(..) | Expr::Index(..) => false,
        Expr::Un(_, _, a) | Expr::Pow(_, a, _) | Expr::Cast(_, a) | Expr::Repeat(a, _) => {
            is_constant(a)
        }
        Expr::Bin(_, _, a, b) => is_constant(a) && is_constant(b),
        Expr::Ternary(c, a, b) | Expr::IfExpr(c, a, b) => {
            is_constant(c) && is_constant(a) && is_constant(b)
        }
        Expr::ArrayLit(items) => items.iter().all(is_constant),
    }
}

fn lit_one(ty: &Ty) -> Value {
    match ty {
        Ty::Field => Value::Field(Fr::from(1u64)),
        _ => Value::U(1),
    }
}

fn lit_zero(ty: &Ty) -> Value {
    match ty {
        Ty::Field => Value::Field(Fr::from(0u64)),
        _ => Value::U(0),
    }
}

/// One statement or several (a `while` loop with its counter's declaration).
enum StmtOrMany {
    One(Stmt),
    Many(Vec<Stmt>),
}

impl StmtOrMany {
    fn into_iter_flat(self) -> Vec<Stmt> {
        match self {
            StmtOrMany::One(s) => vec![s],
            StmtOrMany::Many(v) => v,
        }
    }
}

impl std::ops::Deref for StmtOrMany {
    type Target = Stmt;
    fn deref(&self) -> &Stmt {
        match self {
            StmtOrMany::One(s) => s,
            StmtOrMany::Many(v) => v.last().expect("bug: empty statement list"),
        }
    }
}

impl From<Stmt> for StmtOrMany {
    fn from(s: Stmt) -> Self {
        StmtOrMany::One(s)
    }
}
