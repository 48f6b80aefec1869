//! The reference evaluator of generated programs: runs the [`Program`] tree directly, with the
//! language's semantics written out once more (field arithmetic mod p, `uN` wrap-around, integer
//! division, shifts by the width or more give 0, path-sensitive failure, operands of `&&` and
//! `||` both evaluated, left to right; in `a[i] = v`, `v` before `i`). It shares nothing with the front end or the interpreter
//! but the field type, so a disagreement points at a bug in one of them.

use zkbc::fxhash::HashMap;

use super::{BinOp, Cast, Expr, Func, Program, Stmt, Ty, UnOp, Value};
use ark_ff::Field as _;
use zkbc::field::{self, Fr};

/// Why a run failed, at the granularity every stage must agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailKind {
    /// An assertion did not hold.
    Assertion,
    /// Division or remainder by zero.
    DivisionByZero,
    /// An array index out of bounds.
    IndexOutOfBounds,
    /// `field_to_uN` of a value that does not fit.
    Conversion,
}

impl FailKind {
    /// The class of an interpreter failure (`None` for failures no generated program may have:
    /// step limit, call depth, bad inputs, invalid program).
    pub fn of(kind: &zkbc::ir::interp::FailureKind) -> Option<FailKind> {
        use zkbc::ir::interp::FailureKind as K;
        match kind {
            K::AssertionFailed(_) => Some(FailKind::Assertion),
            K::DivisionByZero => Some(FailKind::DivisionByZero),
            K::IndexOutOfBounds { .. } => Some(FailKind::IndexOutOfBounds),
            K::ConversionDoesNotFit { .. } => Some(FailKind::Conversion),
            _ => None,
        }
    }
}

type EResult<T> = Result<T, FailKind>;

/// Runs `main` on `inputs`: its return values, or the kind of the first failure.
pub fn run(program: &Program, inputs: &[Value]) -> Result<Vec<Value>, FailKind> {
    call(program, program.main(), inputs.to_vec())
}

fn call(program: &Program, func: &Func, args: Vec<Value>) -> EResult<Vec<Value>> {
    let mut env = Env {
        program,
        scopes: vec![HashMap::default()],
    };
    for ((_, name, _), v) in func.params.iter().zip(args) {
        env.scopes[0].insert(name.clone(), v);
    }
    match env.block(&func.body)? {
        Flow::Return(vs) => Ok(vs),
        Flow::Next => panic!(
            "bug: generated function `{}` ends without return",
            func.name
        ),
    }
}

enum Flow {
    Next,
    Return(Vec<Value>),
}

struct Env<'a> {
    program: &'a Program,
    scopes: Vec<HashMap<String, Value>>,
}

fn wrap(x: u64, w: u32) -> u64 {
    if w >= 64 {
        x
    } else {
        x & ((1u64 << w) - 1)
    }
}

fn width(ty: &Ty) -> u32 {
    match ty {
        Ty::U(w) => *w,
        _ => panic!("bug: {ty:?} is not an integer type"),
    }
}

impl Env<'_> {
    fn get(&self, name: &str) -> &Value {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .unwrap_or_else(|| panic!("bug: `{name}` is not in scope"))
    }

    fn get_mut(&mut self, name: &str) -> &mut Value {
        self.scopes
            .iter_mut()
            .rev()
            .find_map(|s| s.get_mut(name))
            .unwrap_or_else(|| panic!("bug: `{name}` is not in scope"))
    }

    fn block(&mut self, body: &[Stmt]) -> EResult<Flow> {
        self.scopes.push(HashMap::default());
        let result = self.stmts(body);
        self.scopes.pop();
        result
    }

    fn stmts(&mut self, body: &[Stmt]) -> EResult<Flow> {
        for s in body {
            if let Flow::Return(v) = self.stmt(s)? {
                return Ok(Flow::Return(v));
            }
        }
        Ok(Flow::Next)
    }

    fn stmt(&mut self, s: &Stmt) -> EResult<Flow> {
        match s {
            Stmt::Decl { name, init, .. } => {
                let v = self.expr(init)?;
                self.scopes
                    .last_mut()
                    .expect("bug: no scope")
                    .insert(name.clone(), v);
            }
            Stmt::Assign(name, e) => {
                let v = self.expr(e)?;
                *self.get_mut(name) = v;
            }
            Stmt::AssignIndex(name, i, e) => {
                // The value is evaluated before the index (as the front end lowers it, and as
                // Rust does): which failure comes first when both fail depends on it.
                let v = self.expr(e)?;
                let i = self.expr(i)?;
                let Value::Array(items) = self.get_mut(name) else {
                    panic!("bug: `{name}` is not an array");
                };
                let Value::U(i) = i else {
                    panic!("bug: index is not an integer")
                };
                let slot = usize::try_from(i)
                    .ok()
                    .and_then(|i| items.get_mut(i))
                    .ok_or(FailKind::IndexOutOfBounds)?;
                *slot = v;
            }
            Stmt::If(arms, els) => {
                for (c, body) in arms {
                    if self.expr(c)? == Value::Bool(true) {
                        return self.block(body);
                    }
                }
                if let Some(body) = els {
                    return self.block(body);
                }
            }
            Stmt::For {
                ty,
                var,
                from,
                to,
                body,
            } => {
                let w = width(ty);
                let (Value::U(mut i), Value::U(to)) = (self.expr(from)?, self.expr(to)?) else {
                    panic!("bug: loop bounds are not integers");
                };
                while i < to {
                    self.scopes
                        .push([(var.clone(), Value::U(i))].into_iter().collect());
                    let flow = self.block(body);
                    self.scopes.pop();
                    if let Flow::Return(v) = flow? {
                        return Ok(Flow::Return(v));
                    }
                    i = wrap(i + 1, w);
                }
            }
            Stmt::While(c, body) => {
                while self.expr(c)? == Value::Bool(true) {
                    if let Flow::Return(v) = self.block(body)? {
                        return Ok(Flow::Return(v));
                    }
                }
            }
            Stmt::Return(es) => {
                let vs = es.iter().map(|e| self.expr(e)).collect::<EResult<_>>()?;
                return Ok(Flow::Return(vs));
            }
            Stmt::Assert(e) => {
                if self.expr(e)? != Value::Bool(true) {
                    return Err(FailKind::Assertion);
                }
            }
        }
        Ok(Flow::Next)
    }

    fn expr(&mut self, e: &Expr) -> EResult<Value> {
        Ok(match e {
            Expr::Lit(_, v) => v.clone(),
            Expr::Var(name) => self.get(name).clone(),
            Expr::Index(a, i) => {
                let (Value::Array(items), Value::U(i)) = (self.expr(a)?, self.expr(i)?) else {
                    panic!("bug: bad index operands");
                };
                usize::try_from(i)
                    .ok()
                    .and_then(|i| items.get(i).cloned())
                    .ok_or(FailKind::IndexOutOfBounds)?
            }
            Expr::Un(op, ty, a) => {
                let a = self.expr(a)?;
                match (op, a) {
                    (UnOp::Neg, Value::Field(x)) => Value::Field(-x),
                    (UnOp::Neg, Value::U(x)) => Value::U(wrap(x.wrapping_neg(), width(ty))),
                    (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
                    (UnOp::Not, Value::U(x)) => Value::U(wrap(!x, width(ty))),
                    (op, a) => panic!("bug: {op:?} on {a:?}"),
                }
            }
            Expr::Bin(op, ty, a, b) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                binary(*op, ty, a, b)?
            }
            Expr::Pow(ty, a, k) => {
                let a = self.expr(a)?;
                match a {
                    Value::Field(x) => Value::Field(x.pow([u64::from(*k)])),
                    Value::U(x) => {
                        let w = width(ty);
                        let mut r = 1u64;
                        for _ in 0..*k {
                            r = wrap(r.wrapping_mul(x), w);
                        }
                        Value::U(wrap(r, w))
                    }
                    other => panic!("bug: ** on {other:?}"),
                }
            }
            Expr::Ternary(c, a, b) | Expr::IfExpr(c, a, b) => {
                if self.expr(c)? == Value::Bool(true) {
                    self.expr(a)?
                } else {
                    self.expr(b)?
                }
            }
            Expr::Call(name, args) => {
                let args = args.iter().map(|a| self.expr(a)).collect::<EResult<_>>()?;
                let func = self
                    .program
                    .func(name)
                    .unwrap_or_else(|| panic!("bug: no function `{name}`"));
                let mut out = call(self.program, func, args)?;
                out.pop().expect("bug: a helper returns one value")
            }
            Expr::Cast(c, a) => {
                let a = self.expr(a)?;
                match (c, a) {
                    (Cast::ToField(_), Value::U(x)) => Value::Field(Fr::from(x)),
                    (Cast::FromField(w), Value::Field(x)) => {
                        Value::U(field::to_u64_checked(&x, *w).ok_or(FailKind::Conversion)?)
                    }
                    (c, a) => panic!("bug: {c:?} of {a:?}"),
                }
            }
            Expr::Repeat(a, n) => {
                let v = self.expr(a)?;
                Value::Array(vec![v; *n as usize])
            }
            Expr::ArrayLit(items) => {
                Value::Array(items.iter().map(|a| self.expr(a)).collect::<EResult<_>>()?)
            }
        })
    }
}

fn binary(op: BinOp, ty: &Ty, a: Value, b: Value) -> EResult<Value> {
    use BinOp::*;
    Ok(match (a, b) {
        (Value::Field(x), Value::Field(y)) => match op {
            Add => Value::Field(x + y),
            Sub => Value::Field(x - y),
            Mul => Value::Field(x * y),
            Div => Value::Field(x * y.inverse().ok_or(FailKind::DivisionByZero)?),
            Eq => Value::Bool(x == y),
            Ne => Value::Bool(x != y),
            Lt => Value::Bool(field::cmp_canonical(&x, &y).is_lt()),
            Le => Value::Bool(field::cmp_canonical(&x, &y).is_le()),
            Gt => Value::Bool(field::cmp_canonical(&x, &y).is_gt()),
            Ge => Value::Bool(field::cmp_canonical(&x, &y).is_ge()),
            _ => panic!("bug: {op:?} on field"),
        },
        (Value::U(x), Value::U(y)) => {
            let w = width(ty);
            match op {
                Add => Value::U(wrap(x.wrapping_add(y), w)),
                Sub => Value::U(wrap(x.wrapping_sub(y), w)),
                Mul => Value::U(wrap(x.wrapping_mul(y), w)),
                Div => Value::U(x.checked_div(y).ok_or(FailKind::DivisionByZero)?),
                Rem => Value::U(x.checked_rem(y).ok_or(FailKind::DivisionByZero)?),
                BitAnd => Value::U(x & y),
                BitOr => Value::U(x | y),
                BitXor => Value::U(x ^ y),
                Shl => Value::U(if y >= u64::from(w) {
                    0
                } else {
                    wrap(x << y, w)
                }),
                Shr => Value::U(if y >= u64::from(w) { 0 } else { x >> y }),
                Eq => Value::Bool(x == y),
                Ne => Value::Bool(x != y),
                Lt => Value::Bool(x < y),
                Le => Value::Bool(x <= y),
                Gt => Value::Bool(x > y),
                Ge => Value::Bool(x >= y),
                And | Or => panic!("bug: {op:?} on integers"),
            }
        }
        (Value::Bool(x), Value::Bool(y)) => match op {
            And => Value::Bool(x && y),
            Or => Value::Bool(x || y),
            Eq => Value::Bool(x == y),
            Ne => Value::Bool(x != y),
            _ => panic!("bug: {op:?} on bool"),
        },
        (a, b) => panic!("bug: {op:?} on {a:?} and {b:?}"),
    })
}
