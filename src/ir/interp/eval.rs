//! The semantics of every pure instruction, on values: what the interpreter runs and what
//! constant folding (SCCP, merging) evaluates, so the two can never disagree.

use super::value::Val;
use super::{Fail, FailureKind};
use crate::field::{self, Fr};
use crate::ir::function::{wrap, Function};
use crate::ir::instructions::{BinOp, InstKind};
use crate::ir::types::Type;
use ark_ff::Zero;
use std::rc::Rc;

/// Evaluates an instruction that neither touches memory, calls nor has an effect of its own
/// (everything except `allocate`, `load`, `store`, `call`, `hint` and `log`, for which it gives
/// `None`: a `log` with constant operands still prints, so folding must keep it) on operand
/// values given by
/// `get`: the interpreter's own semantics, shared with constant folding so that the two can never
/// disagree. An `Err` is the failure the instruction has at run time on these operands.
pub fn eval_pure(
    func: &Function,
    kind: &InstKind,
    get: &mut dyn FnMut(super::ValueId) -> Result<Val, FailureKind>,
) -> Option<Result<Vec<Val>, FailureKind>> {
    eval_pure_typed(kind, &|v| func.value_type(v), get)
}

/// [`eval_pure`] with the operands' types given by `ty` instead of a function's values (for
/// operands that are not in a function yet: the constants a merge folds before it makes them).
pub fn eval_pure_typed<'t>(
    kind: &InstKind,
    ty: &dyn Fn(super::ValueId) -> &'t Type,
    get: &mut dyn FnMut(super::ValueId) -> Result<Val, FailureKind>,
) -> Option<Result<Vec<Val>, FailureKind>> {
    if matches!(
        kind,
        InstKind::Allocate { .. }
            | InstKind::Load { .. }
            | InstKind::Store { .. }
            | InstKind::Call { .. }
            | InstKind::Hint { .. }
            | InstKind::Log { .. }
    ) {
        return None;
    }
    Some(eval_pure_inner(kind, ty, get))
}

fn eval_pure_inner<'t>(
    kind: &InstKind,
    ty: &dyn Fn(super::ValueId) -> &'t Type,
    get: &mut dyn FnMut(super::ValueId) -> Result<Val, FailureKind>,
) -> Result<Vec<Val>, FailureKind> {
    let mut get = |v: &super::ValueId| get(*v);
    let ty = |v: &super::ValueId| ty(*v);
    let invalid = |m: &str| Fail::InvalidProgram(m.to_string());
    let one = |v: Val| Ok(vec![v]);
    match kind {
        InstKind::Binary { op, lhs, rhs } => one(binary(*op, &get(lhs)?, &get(rhs)?, ty(lhs))?),
        InstKind::Not { arg } => match (get(arg)?, ty(arg)) {
            (Val::UInt(n), Type::UInt(w)) => one(Val::UInt(wrap(!n, *w))),
            _ => Err(invalid("`not` of a non-integer")),
        },
        InstKind::Cast { arg, to } => {
            let v = get(arg)?;
            let x = v
                .to_field()
                .ok_or_else(|| invalid("`cast` of a non-scalar"))?;
            match to {
                Type::Field => one(Val::Field(x)),
                Type::UInt(w) => match field::to_u64_checked(&x, *w) {
                    Some(n) => one(Val::UInt(n)),
                    None => Err(Fail::ConversionDoesNotFit {
                        value: field::to_dec(&x),
                        to: to.clone(),
                    }),
                },
                _ => Err(invalid("`cast` to a non-scalar")),
            }
        }
        InstKind::Bound { arg, bits } => {
            let v = get(arg)?;
            let x = v
                .to_field()
                .ok_or_else(|| invalid("`bound` of a non-scalar"))?;
            if crate::field::num_bits(&x) > *bits {
                return Err(Fail::IncompleteComparison {
                    value: crate::field::to_dec(&x),
                    bits: *bits,
                });
            }
            one(v)
        }
        InstKind::Truncate { arg, to } => {
            let w = to
                .uint_width()
                .ok_or_else(|| invalid("`trunc` to a non-integer"))?;
            let n = match get(arg)? {
                Val::UInt(n) => n,
                Val::Field(x) => {
                    let bits = field::low_bits(&x, 64);
                    bits.iter()
                        .rev()
                        .fold(0u64, |acc, b| (acc << 1) | u64::from(*b))
                }
                _ => return Err(invalid("`trunc` of a non-scalar")),
            };
            one(Val::UInt(wrap(n, w)))
        }
        InstKind::Select {
            cond,
            then_value,
            else_value,
        } => {
            let c = get(cond)?;
            one(if c == Val::UInt(1) {
                get(then_value)?
            } else {
                get(else_value)?
            })
        }
        InstKind::Assert { cond, msg } => {
            if get(cond)? == Val::UInt(1) {
                Ok(vec![])
            } else {
                Err(Fail::AssertionFailed(msg.clone()))
            }
        }
        InstKind::MakeArray { elems, .. } => {
            let vals = elems.iter().map(get).collect::<Result<Vec<_>, _>>()?;
            one(Val::Array(Rc::new(vals)))
        }
        InstKind::ArrayGet { array, index } => {
            let (items, i) = array_index(&get(array)?, &get(index)?)?;
            one(items[i].clone())
        }
        InstKind::ArraySet {
            array,
            index,
            value,
        } => {
            let (items, i) = array_index(&get(array)?, &get(index)?)?;
            let mut copy = (*items).clone();
            copy[i] = get(value)?;
            one(Val::Array(Rc::new(copy)))
        }
        InstKind::ToBits { arg } => {
            let (bits, n) = match (get(arg)?, ty(arg)) {
                (Val::UInt(v), Type::UInt(w)) => {
                    ((0..*w).map(|k| (v >> k) & 1 == 1).collect::<Vec<_>>(), *w)
                }
                (Val::Field(x), _) => (
                    field::low_bits(&x, crate::ir::FIELD_BITS as usize),
                    crate::ir::FIELD_BITS,
                ),
                _ => return Err(invalid("`to_bits` of a non-scalar")),
            };
            let msb_first = (0..n as usize)
                .rev()
                .map(|k| Val::UInt(u64::from(bits[k])))
                .collect();
            one(Val::Array(Rc::new(msb_first)))
        }
        InstKind::FromBits { arg, to } => {
            let Val::Array(items) = get(arg)? else {
                return Err(invalid("`from_bits` of a non-array"));
            };
            match to {
                Type::UInt(w) => {
                    let n = items
                        .iter()
                        .fold(0u64, |acc, b| (acc << 1) | b.as_uint().unwrap_or(0));
                    one(Val::UInt(wrap(n, *w)))
                }
                _ => {
                    let two = Fr::from(2u64);
                    let x = items.iter().fold(Fr::zero(), |acc, b| {
                        acc * two + Fr::from(b.as_uint().unwrap_or(0))
                    });
                    one(Val::Field(x))
                }
            }
        }
        InstKind::Allocate { .. }
        | InstKind::Load { .. }
        | InstKind::Store { .. }
        | InstKind::Call { .. }
        | InstKind::Hint { .. }
        | InstKind::Log { .. } => Err(invalid(
            "bug: memory, call, hint or log instruction in eval_pure",
        )),
    }
}

fn array_index(array: &Val, index: &Val) -> Result<(Rc<Vec<Val>>, usize), Fail> {
    let (Val::Array(items), Val::UInt(i)) = (array, index) else {
        return Err(Fail::InvalidProgram(
            "array access on a non-array or with a non-integer index".into(),
        ));
    };
    if (*i as usize) < items.len() && *i < u64::from(u32::MAX) {
        Ok((items.clone(), *i as usize))
    } else {
        Err(Fail::IndexOutOfBounds {
            index: *i,
            len: items.len(),
        })
    }
}

/// Evaluates a binary operation on constant operands: the interpreter's semantics, shared with
/// constant folding so that the two can never disagree. `ty` is the left operand's type.
pub fn binary(op: BinOp, a: &Val, b: &Val, ty: &Type) -> Result<Val, FailureKind> {
    let bool_val = |c: bool| Val::UInt(u64::from(c));
    match (a, b) {
        (Val::Field(x), Val::Field(y)) => Ok(match op {
            BinOp::Add => Val::Field(*x + y),
            BinOp::Sub => Val::Field(*x - y),
            BinOp::Mul => Val::Field(*x * y),
            BinOp::Div => Val::Field(*x * field::inverse(y).ok_or(FailureKind::DivisionByZero)?),
            BinOp::Eq => bool_val(x == y),
            BinOp::Lt => bool_val(field::cmp_canonical(x, y).is_lt()),
            BinOp::Le => bool_val(field::cmp_canonical(x, y).is_le()),
            _ => {
                return Err(FailureKind::InvalidProgram(format!(
                    "`{op}` on field elements"
                )))
            }
        }),
        (Val::UInt(x), Val::UInt(y)) => {
            let w = ty
                .uint_width()
                .ok_or_else(|| FailureKind::InvalidProgram(format!("`{op}` on {ty}")))?;
            let (x, y) = (*x, *y);
            Ok(match op {
                BinOp::Add => Val::UInt(wrap(x.wrapping_add(y), w)),
                BinOp::Sub => Val::UInt(wrap(x.wrapping_sub(y), w)),
                BinOp::Mul => Val::UInt(wrap(x.wrapping_mul(y), w)),
                BinOp::UDiv => Val::UInt(x.checked_div(y).ok_or(FailureKind::DivisionByZero)?),
                BinOp::URem => Val::UInt(x.checked_rem(y).ok_or(FailureKind::DivisionByZero)?),
                BinOp::Eq => bool_val(x == y),
                BinOp::Lt => bool_val(x < y),
                BinOp::Le => bool_val(x <= y),
                BinOp::And => Val::UInt(x & y),
                BinOp::Or => Val::UInt(x | y),
                BinOp::Xor => Val::UInt(x ^ y),
                BinOp::Shl => Val::UInt(if y >= u64::from(w) {
                    0
                } else {
                    wrap(x << y, w)
                }),
                BinOp::Shr => Val::UInt(if y >= u64::from(w) { 0 } else { x >> y }),
                BinOp::Div => return Err(FailureKind::InvalidProgram("`div` on integers".into())),
            })
        }
        _ => Err(FailureKind::InvalidProgram(format!(
            "`{op}` on mismatched operands"
        ))),
    }
}
