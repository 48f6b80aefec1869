//! Compile-time evaluation of typed expressions.
//!
//! The type checker needs values at compile time for array sizes, `[e; n]` counts, slice bounds,
//! `const` definitions. [`eval`] computes the value of an expression built
//! only from literals and operators (constants are already folded into literals); it answers
//! `Ok(None)` when the expression depends on a variable or a call, and an error when the
//! evaluation itself fails (division by zero, an index out of bounds, a conversion that does not
//! fit). The arithmetic is the language's: field operations mod p, `uN` wrapping mod 2^N.

use super::typed::{ArrayElem, BinaryOp, Builtin, Expr, ExprKind, LocalId, Type, UnaryOp};
use crate::diagnostics::{Diagnostic, Span};
use ark_bn254::Fr;
use ark_ff::{Field, PrimeField};

/// A compile-time value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A field element.
    Field(Fr),
    /// A `uN` value (the width is in the type).
    Uint(u64),
    /// A boolean.
    Bool(bool),
    /// Array elements.
    Array(Vec<Value>),
    /// Struct members in declaration order.
    Struct(Vec<Value>),
    /// Tuple elements.
    Tuple(Vec<Value>),
}

impl Value {
    /// The value as a `u64` if it is an integer.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Uint(v) => Some(*v),
            _ => None,
        }
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Evaluates `e` if it is a compile-time constant.
pub fn eval(e: &Expr) -> Result<Option<Value>, Diagnostic> {
    eval_with(e, &|_| None)
}

/// Evaluates `e` where `known` gives the values of the locals known at compile time (immutable
/// locals with a constant initializer).
pub fn eval_with(
    e: &Expr,
    known: &dyn Fn(LocalId) -> Option<Value>,
) -> Result<Option<Value>, Diagnostic> {
    let eval = |x: &Expr| eval_with(x, known);
    Ok(Some(match &e.kind {
        ExprKind::Field(v) => Value::Field(*v),
        ExprKind::Uint(v) => Value::Uint(*v),
        ExprKind::Bool(b) => Value::Bool(*b),
        ExprKind::Local(id) => return Ok(known(*id)),
        ExprKind::Call(..) | ExprKind::Hint(..) => return Ok(None),
        ExprKind::Unary(op, x) => {
            let Some(v) = eval(x)? else { return Ok(None) };
            match (op, v, &e.ty) {
                (UnaryOp::Pos, v, _) => v,
                (UnaryOp::Neg, Value::Field(f), _) => Value::Field(-f),
                (UnaryOp::Neg, Value::Uint(u), Type::Uint(w)) => {
                    Value::Uint(u.wrapping_neg() & mask(*w))
                }
                (UnaryOp::Not, Value::Bool(b), _) => Value::Bool(!b),
                (UnaryOp::Not, Value::Uint(u), Type::Uint(w)) => Value::Uint(!u & mask(*w)),
                _ => return Ok(None),
            }
        }
        ExprKind::Binary(op, a, b) => {
            let Some(x) = eval(a)? else { return Ok(None) };
            let Some(y) = eval(b)? else { return Ok(None) };
            match binary(*op, x, y, &a.ty, e.span)? {
                Some(v) => v,
                None => return Ok(None),
            }
        }
        ExprKind::Conditional(c, a, b) => {
            let Some(Value::Bool(c)) = eval(c)? else {
                return Ok(None);
            };
            // Only the taken side is evaluated, so the other may fail without harm.
            return eval(if c { a } else { b });
        }
        ExprKind::Builtin(b, x) => {
            let Some(v) = eval(x)? else { return Ok(None) };
            match (b, v) {
                (Builtin::UintToField(_), Value::Uint(u)) => Value::Field(Fr::from(u)),
                (Builtin::FieldToUint(w), Value::Field(f)) => {
                    let big = f.into_bigint();
                    let fits = big.0[1..].iter().all(|&l| l == 0) && big.0[0] & !mask(*w) == 0;
                    if !fits {
                        return Err(Diagnostic::new(
                            format!("value {f} does not fit in `u{w}`"),
                            e.span,
                        ));
                    }
                    Value::Uint(big.0[0])
                }
                (Builtin::FieldToBool, Value::Field(f)) if f == Fr::from(0u64) => {
                    Value::Bool(false)
                }
                (Builtin::FieldToBool, Value::Field(f)) if f == Fr::from(1u64) => Value::Bool(true),
                (Builtin::FieldToBool, Value::Field(f)) => {
                    return Err(Diagnostic::new(
                        format!("value {f} is not a `bool` (0 or 1)"),
                        e.span,
                    ))
                }
                (Builtin::FieldToBits, Value::Field(f)) => {
                    let big = f.into_bigint();
                    Value::Array(
                        (0..super::typed::FIELD_BITS as usize)
                            .rev()
                            .map(|i| Value::Bool(big.0[i / 64] >> (i % 64) & 1 == 1))
                            .collect(),
                    )
                }
                (Builtin::UintToBits(w), Value::Uint(u)) => Value::Array(
                    (0..*w)
                        .rev()
                        .map(|i| Value::Bool(u >> i & 1 == 1))
                        .collect(),
                ),
                (Builtin::UintFromBits(_), Value::Array(bits)) => {
                    let mut u = 0u64;
                    for b in bits {
                        u = (u << 1) | u64::from(b == Value::Bool(true));
                    }
                    Value::Uint(u)
                }
                _ => return Ok(None),
            }
        }
        ExprKind::Array(elems) => {
            let mut out = Vec::new();
            for el in elems {
                match el {
                    ArrayElem::Single(x) => match eval(x)? {
                        Some(v) => out.push(v),
                        None => return Ok(None),
                    },
                    ArrayElem::Spread(x) => match eval(x)? {
                        Some(Value::Array(vs)) => out.extend(vs),
                        _ => return Ok(None),
                    },
                }
            }
            Value::Array(out)
        }
        ExprKind::Repeat(x, n) => {
            let Some(v) = eval(x)? else { return Ok(None) };
            Value::Array(vec![v; *n as usize])
        }
        ExprKind::Index(a, i) => {
            let Some(Value::Array(vs)) = eval(a)? else {
                return Ok(None);
            };
            let Some(Value::Uint(i)) = eval(i)? else {
                return Ok(None);
            };
            match vs.get(i as usize) {
                Some(v) => v.clone(),
                None => {
                    return Err(Diagnostic::new(
                        format!(
                            "index {i} is out of bounds for an array of length {}",
                            vs.len()
                        ),
                        e.span,
                    ))
                }
            }
        }
        ExprKind::Slice(a, from, to) => {
            let Some(Value::Array(vs)) = eval(a)? else {
                return Ok(None);
            };
            Value::Array(vs[*from as usize..*to as usize].to_vec())
        }
        ExprKind::Struct(fields) | ExprKind::Tuple(fields) => {
            let mut out = Vec::new();
            for f in fields {
                match eval(f)? {
                    Some(v) => out.push(v),
                    None => return Ok(None),
                }
            }
            if matches!(e.kind, ExprKind::Struct(_)) {
                Value::Struct(out)
            } else {
                Value::Tuple(out)
            }
        }
        ExprKind::Member(x, i) | ExprKind::TupleIndex(x, i) => match eval(x)? {
            Some(Value::Struct(vs)) | Some(Value::Tuple(vs)) => match vs.get(*i) {
                Some(v) => v.clone(),
                None => return Ok(None),
            },
            _ => return Ok(None),
        },
    }))
}

fn binary(
    op: BinaryOp,
    x: Value,
    y: Value,
    operand_ty: &Type,
    span: Span,
) -> Result<Option<Value>, Diagnostic> {
    use BinaryOp::*;
    let div_zero = || Diagnostic::new("division by zero", span);
    Ok(Some(match (x, y) {
        (Value::Field(a), Value::Field(b)) => match op {
            Add => Value::Field(a + b),
            Sub => Value::Field(a - b),
            Mul => Value::Field(a * b),
            Div => Value::Field(a * b.inverse().ok_or_else(div_zero)?),
            Eq => Value::Bool(a == b),
            Ne => Value::Bool(a != b),
            Lt => Value::Bool(a.into_bigint() < b.into_bigint()),
            Le => Value::Bool(a.into_bigint() <= b.into_bigint()),
            Gt => Value::Bool(a.into_bigint() > b.into_bigint()),
            Ge => Value::Bool(a.into_bigint() >= b.into_bigint()),
            _ => return Ok(None),
        },
        (Value::Field(a), Value::Uint(e)) if op == Pow => Value::Field(a.pow([e])),
        (Value::Uint(a), Value::Uint(b)) => {
            let Type::Uint(w) = *operand_ty else {
                return Ok(None);
            };
            let m = mask(w);
            match op {
                Add => Value::Uint(a.wrapping_add(b) & m),
                Sub => Value::Uint(a.wrapping_sub(b) & m),
                Mul => Value::Uint(a.wrapping_mul(b) & m),
                Div => Value::Uint(a.checked_div(b).ok_or_else(div_zero)?),
                Rem => Value::Uint(a.checked_rem(b).ok_or_else(div_zero)?),
                Pow => Value::Uint(pow_mod(a, b, m)),
                BitAnd => Value::Uint(a & b),
                BitOr => Value::Uint(a | b),
                BitXor => Value::Uint(a ^ b),
                Shl => Value::Uint(if b >= u64::from(w) { 0 } else { (a << b) & m }),
                Shr => Value::Uint(if b >= u64::from(w) { 0 } else { a >> b }),
                Eq => Value::Bool(a == b),
                Ne => Value::Bool(a != b),
                Lt => Value::Bool(a < b),
                Le => Value::Bool(a <= b),
                Gt => Value::Bool(a > b),
                Ge => Value::Bool(a >= b),
                And | Or => return Ok(None),
            }
        }
        (Value::Bool(a), Value::Bool(b)) => match op {
            And => Value::Bool(a && b),
            Or => Value::Bool(a || b),
            Eq => Value::Bool(a == b),
            Ne => Value::Bool(a != b),
            _ => return Ok(None),
        },
        (x, y) => match op {
            Eq => Value::Bool(x == y),
            Ne => Value::Bool(x != y),
            _ => return Ok(None),
        },
    }))
}

fn pow_mod(mut base: u64, mut exp: u64, m: u64) -> u64 {
    let mut r = 1u64;
    while exp > 0 {
        if exp & 1 == 1 {
            r = r.wrapping_mul(base) & m;
        }
        base = base.wrapping_mul(base) & m;
        exp >>= 1;
    }
    r
}

/// Rebuilds a literal expression of type `ty` for `v` (used where a constant is referenced).
pub fn to_expr(v: &Value, ty: &Type, span: Span) -> Expr {
    let kind = match (v, ty) {
        (Value::Field(f), _) => ExprKind::Field(*f),
        (Value::Uint(u), _) => ExprKind::Uint(*u),
        (Value::Bool(b), _) => ExprKind::Bool(*b),
        (Value::Array(vs), Type::Array(elem, _)) => ExprKind::Array(
            vs.iter()
                .map(|v| ArrayElem::Single(to_expr(v, elem, span)))
                .collect(),
        ),
        (Value::Struct(vs), Type::Struct(s)) => ExprKind::Struct(
            vs.iter()
                .zip(&s.fields)
                .map(|(v, (_, t))| to_expr(v, t, span))
                .collect(),
        ),
        (Value::Tuple(vs), Type::Tuple(ts)) => ExprKind::Tuple(
            vs.iter()
                .zip(ts)
                .map(|(v, t)| to_expr(v, t, span))
                .collect(),
        ),
        _ => panic!("internal error: constant value {v:?} does not have type {ty}"),
    };
    Expr {
        kind,
        ty: ty.clone(),
        span,
    }
}
