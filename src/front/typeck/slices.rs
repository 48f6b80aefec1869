//! Slices whose bounds are not compile-time constants but whose length is (`a[i * 8..i * 8 + 8]`
//! in a loop, as ZoKrates' library writes them; ZoKrates unrolls the loop before it checks).
//!
//! Each bound is put in a linear form over locals (`i * 8 + 8` is `8·i + 8`; an immutable local
//! whose initial value has such a form, in immutable locals only, is replaced by it). When the
//! forms of `to` and `from` differ by a constant `n`, the slice is the array of the `n`
//! elements `a[from + k]` (each index bounds-checked at run time, as any index is).

use super::*;
use std::collections::BTreeMap;

/// `Σ coefficient·local + constant`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Linear {
    terms: BTreeMap<LocalId, i128>,
    constant: i128,
}

impl Linear {
    fn combine(mut self, other: Linear, sign: i128) -> Linear {
        for (id, c) in other.terms {
            *self.terms.entry(id).or_insert(0) += sign * c;
        }
        self.terms.retain(|_, c| *c != 0);
        self.constant += sign * other.constant;
        self
    }

    fn scale(mut self, k: i128) -> Linear {
        self.terms.values_mut().for_each(|c| *c *= k);
        self.terms.retain(|_, c| *c != 0);
        self.constant *= k;
        self
    }
}

/// Coefficients beyond this are not tracked (no overflow in the arithmetic above).
const MAX_COEFFICIENT: i128 = 1 << 64;

impl Checker {
    /// The linear form of a `u32` expression, if it has one.
    pub(super) fn linear(&self, e: &Expr) -> Option<Linear> {
        let form = match &e.kind {
            ExprKind::Uint(v) => Linear {
                constant: i128::from(*v),
                ..Linear::default()
            },
            ExprKind::Local(id) => {
                if let Some(Value::Uint(v)) = self.fs.known.get(id) {
                    Linear {
                        constant: i128::from(*v),
                        ..Linear::default()
                    }
                } else if let Some(l) = self.fs.linear.get(id) {
                    l.clone()
                } else {
                    Linear {
                        terms: BTreeMap::from([(*id, 1)]),
                        constant: 0,
                    }
                }
            }
            ExprKind::Binary(BinaryOp::Add, a, b) => self.linear(a)?.combine(self.linear(b)?, 1),
            ExprKind::Binary(BinaryOp::Sub, a, b) => self.linear(a)?.combine(self.linear(b)?, -1),
            ExprKind::Binary(BinaryOp::Mul, a, b) => {
                let (a, b) = (self.linear(a)?, self.linear(b)?);
                if a.terms.is_empty() {
                    b.scale(a.constant)
                } else if b.terms.is_empty() {
                    a.scale(b.constant)
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        let small = form.constant.abs() < MAX_COEFFICIENT
            && form.terms.values().all(|c| c.abs() < MAX_COEFFICIENT);
        small.then_some(form)
    }

    /// Remembers the linear form of immutable `local`'s initial value, when it reads only
    /// immutable locals (so the form stays true wherever `local` is visible).
    pub(super) fn remember_linear(&mut self, local: LocalId, value: &Expr) {
        if value.ty != Type::Uint(32) {
            return;
        }
        if let Some(form) = self.linear(value) {
            let immutable = form
                .terms
                .keys()
                .all(|id| !self.fs.locals[id.0 as usize].mutable);
            if immutable {
                self.fs.linear.insert(local, form);
            }
        }
    }

    /// `base[from..to]` where `to - from` is the constant length `n`, as an array of `n`
    /// indexed elements; `None` when the length is not constant.
    pub(super) fn dynamic_slice(
        &self,
        base: &Expr,
        elem: &Type,
        from: &Expr,
        to: &Expr,
        span: Span,
    ) -> TResult<Option<Expr>> {
        let (Some(f), Some(t)) = (self.linear(from), self.linear(to)) else {
            return Ok(None);
        };
        let diff = t.combine(f, -1);
        if !diff.terms.is_empty() {
            return Ok(None);
        }
        let n = u32::try_from(diff.constant).map_err(|_| {
            Diagnostic::new(
                format!("this slice has a negative length ({})", diff.constant),
                span,
            )
        })?;
        let n = self.array_len(u64::from(n), span)?;
        let u32_expr = |kind| Expr {
            kind,
            ty: Type::Uint(32),
            span,
        };
        let elems = (0..n)
            .map(|k| {
                let index = u32_expr(ExprKind::Binary(
                    BinaryOp::Add,
                    Box::new(from.clone()),
                    Box::new(u32_expr(ExprKind::Uint(u64::from(k)))),
                ));
                ArrayElem::Single(Expr {
                    kind: ExprKind::Index(Box::new(base.clone()), Box::new(index)),
                    ty: elem.clone(),
                    span,
                })
            })
            .collect();
        let ty = Type::Array(Box::new(elem.clone()), n);
        self.check_leaves(&ty, span)?;
        Ok(Some(Expr {
            kind: ExprKind::Array(elems),
            ty,
            span,
        }))
    }
}
