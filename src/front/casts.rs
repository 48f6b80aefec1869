//! `cast` from ZoKrates' `utils/casts.zok`: one generic conversion whose meaning depends on the
//! argument type and on the type the result is assigned to (`u8[4] b = cast(x);`).
//!
//! zkbc has no stdlib source; the type checker resolves the import to this module, which expands
//! each use into the cast built-ins the typed tree already has:
//! - `uN` or `uN[K]` to `field` or `field[K]`: `uN_to_field` on each element;
//! - `uN`, `uN[K]` or `bool[S]` to `bool[T]`, `uM` or `uM[P]`: the source's bits, most
//!   significant first and the elements in order, zero-extended on the left when the target is
//!   wider (`u32` to `u64`), regrouped into the target's elements with `uM_from_bits`.
//!
//! Each target element reads only the source elements that overlap it, so no bit array is built
//! whole and copied. A cast that would drop bits, or any other pair of types, is an error.

use super::typed::{ArrayElem, Builtin, Expr, ExprKind, Type};
use crate::diagnostics::{Diagnostic, Span};

/// The scalar elements of a `cast` source or target: the element type and the count (`None`
/// for a scalar).
fn shape(ty: &Type) -> Option<(Type, Option<u32>)> {
    match ty {
        Type::Uint(_) | Type::Field | Type::Bool => Some((ty.clone(), None)),
        Type::Array(elem, n) if matches!(**elem, Type::Uint(_) | Type::Field | Type::Bool) => {
            Some(((**elem).clone(), Some(*n)))
        }
        _ => None,
    }
}

fn bits_of(ty: &Type) -> Option<u32> {
    match ty {
        Type::Uint(w) => Some(*w),
        Type::Bool => Some(1),
        _ => None,
    }
}

fn u32_const(v: u32, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Uint(u64::from(v)),
        ty: Type::Uint(32),
        span,
    }
}

/// Source element `i` (the value itself for a scalar).
fn element(arg: &Expr, elem_ty: &Type, count: Option<u32>, i: u32, span: Span) -> Expr {
    match count {
        None => arg.clone(),
        Some(_) => Expr {
            kind: ExprKind::Index(Box::new(arg.clone()), Box::new(u32_const(i, span))),
            ty: elem_ty.clone(),
            span,
        },
    }
}

/// Expands `cast(arg)` whose result must have type `to`.
pub fn expand(arg: Expr, to: &Type, span: Span) -> Result<Expr, Diagnostic> {
    let unsupported = || {
        Diagnostic::new(
            format!("`cast` from `{}` to `{to}` is not supported", arg.ty),
            span,
        )
        .with_note(
            "zkbc's `cast` converts uN and uN[K] to field, field[K], bool[T], uM or uM[P] \
             without dropping bits",
        )
    };
    let (Some((src_elem, src_n)), Some((dst_elem, dst_n))) = (shape(&arg.ty), shape(to)) else {
        return Err(unsupported());
    };
    let src_count = src_n.unwrap_or(1);
    // Element-wise to field.
    if dst_elem == Type::Field {
        let Type::Uint(w) = src_elem else {
            return Err(unsupported());
        };
        if src_n != dst_n {
            return Err(unsupported());
        }
        let convert = |i| Expr {
            kind: ExprKind::Builtin(
                Builtin::UintToField(w),
                Box::new(element(&arg, &src_elem, src_n, i, span)),
            ),
            ty: Type::Field,
            span,
        };
        return Ok(match dst_n {
            None => convert(0),
            Some(n) => Expr {
                kind: ExprKind::Array((0..n).map(|i| ArrayElem::Single(convert(i))).collect()),
                ty: to.clone(),
                span,
            },
        });
    }
    let (Some(src_w), Some(dst_w)) = (bits_of(&src_elem), bits_of(&dst_elem)) else {
        return Err(unsupported());
    };
    let src_bits = u64::from(src_w) * u64::from(src_count);
    let dst_bits = u64::from(dst_w) * u64::from(dst_n.unwrap_or(1));
    if dst_bits < src_bits {
        return Err(unsupported());
    }
    let pad = dst_bits - src_bits;
    let bool_array = |n: u64| Type::Array(Box::new(Type::Bool), n as u32);
    // The bits [lo, hi) of the zero-extended source, as a `bool[hi - lo]` expression.
    let bit_range = |lo: u64, hi: u64| -> Expr {
        let mut parts = Vec::new();
        if lo < pad {
            let zeros = Expr {
                kind: ExprKind::Repeat(
                    Box::new(Expr {
                        kind: ExprKind::Bool(false),
                        ty: Type::Bool,
                        span,
                    }),
                    (hi.min(pad) - lo) as u32,
                ),
                ty: bool_array(hi.min(pad) - lo),
                span,
            };
            parts.push(ArrayElem::Spread(zeros));
        }
        let (lo, hi) = (lo.max(pad) - pad, hi.max(pad) - pad);
        let w = u64::from(src_w);
        let mut i = lo / w;
        while i * w < hi {
            let e = element(&arg, &src_elem, src_n, i as u32, span);
            let (from, to) = (lo.max(i * w) - i * w, hi.min((i + 1) * w) - i * w);
            let piece = match src_elem {
                Type::Bool => ArrayElem::Single(e),
                _ => {
                    let bits = Expr {
                        kind: ExprKind::Builtin(Builtin::UintToBits(src_w), Box::new(e)),
                        ty: bool_array(w),
                        span,
                    };
                    ArrayElem::Spread(if from == 0 && to == w {
                        bits
                    } else {
                        Expr {
                            kind: ExprKind::Slice(Box::new(bits), from as u32, to as u32),
                            ty: bool_array(to - from),
                            span,
                        }
                    })
                }
            };
            parts.push(piece);
            i += 1;
        }
        Expr {
            kind: ExprKind::Array(parts),
            ty: bool_array(hi - lo),
            span,
        }
    };
    let target = |j: u32| -> Expr {
        let (lo, hi) = (
            u64::from(j) * u64::from(dst_w),
            u64::from(j + 1) * u64::from(dst_w),
        );
        let bits = bit_range(lo, hi);
        match dst_elem {
            Type::Bool => match bits.kind {
                ExprKind::Array(mut parts) if parts.len() == 1 => match parts.pop() {
                    Some(ArrayElem::Single(b)) => b,
                    Some(ArrayElem::Spread(b)) => Expr {
                        kind: ExprKind::Index(Box::new(b), Box::new(u32_const(0, span))),
                        ty: Type::Bool,
                        span,
                    },
                    None => unreachable!("bug: one part popped"),
                },
                kind => Expr {
                    kind: ExprKind::Index(
                        Box::new(Expr {
                            kind,
                            ty: bool_array(1),
                            span,
                        }),
                        Box::new(u32_const(0, span)),
                    ),
                    ty: Type::Bool,
                    span,
                },
            },
            _ => Expr {
                kind: ExprKind::Builtin(Builtin::UintFromBits(dst_w), Box::new(bits)),
                ty: dst_elem.clone(),
                span,
            },
        }
    };
    Ok(match (dst_n, &dst_elem) {
        (None, _) => target(0),
        // `bool[T]` is the bit string itself.
        (Some(n), Type::Bool) => bit_range(0, u64::from(n)),
        (Some(n), _) => Expr {
            kind: ExprKind::Array((0..n).map(|j| ArrayElem::Single(target(j))).collect()),
            ty: to.clone(),
            span,
        },
    })
}
