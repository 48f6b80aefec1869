//! Assertions fused with what they assert: an asserted `eq` becomes `a = b`, an asserted `u1`
//! `and` tree one linear sum, an asserted `or` tree one product of factors, an asserted `uN`
//! `lt`/`le` one range check.

use super::{InstSet, Lowerer, R};
use crate::field::Fr;
use crate::ir::{BinOp, InstKind, Type, ValueDef, ValueId};
use crate::r1cs::fxhash::FxMap;
use crate::r1cs::gadgets::{sum_bits, Pivot};
use crate::r1cs::lc::Lc;
use crate::r1cs::live::FuncInfo;
use ark_ff::{One, Zero};

/// The fused values of a block, each with the `binary` that defines it (`op`, `lhs`, `rhs`):
/// what lowering its assertion reads, so that the walk never looks back at an earlier
/// instruction (a consuming lowering has freed it).
pub(super) type Fused = FxMap<ValueId, (BinOp, ValueId, ValueId)>;

impl<'a> Lowerer<'a> {
    /// Marks what an assertion of `cond` fuses: `cond` itself when it is an `eq`, a `u1` `and`
    /// or `or`, or a `uN` `lt`/`le` of this block used only there, and (for `and` and `or`)
    /// recursively its operands. Under an `or` only `eq`s and `or`s fuse (`or_factors`).
    pub(super) fn fuse_assertion(
        &mut self,
        cond: ValueId,
        info: &FuncInfo,
        in_block: &InstSet<'_>,
        under_or: bool,
    ) {
        let func = self.func;
        // An explicit stack: an `and` tree is as deep as the arrays an `==` compares are long.
        let mut stack = vec![(cond, under_or)];
        while let Some((cond, under_or)) = stack.pop() {
            if info.uses(cond) != 1 {
                continue;
            }
            let ValueDef::Result(def, _) = func.value(cond).def else {
                continue;
            };
            if !in_block.contains(&def) {
                continue;
            }
            let InstKind::Binary { op, lhs, rhs } = in_block.inst(def).kind else {
                continue;
            };
            let ty = func.value_type(lhs);
            match op {
                BinOp::Eq => {
                    self.fused.insert(cond, (op, lhs, rhs));
                }
                BinOp::And | BinOp::Or if matches!(ty, Type::UInt(1)) => {
                    if op == BinOp::And && under_or {
                        continue;
                    }
                    self.fused.insert(cond, (op, lhs, rhs));
                    stack.push((rhs, op == BinOp::Or));
                    stack.push((lhs, op == BinOp::Or));
                }
                BinOp::Lt | BinOp::Le if !under_or && matches!(ty, Type::UInt(n) if *n > 1) => {
                    self.fused.insert(cond, (op, lhs, rhs));
                }
                _ => {}
            }
        }
    }

    /// Asserts `cond` is true, through its fused tree: a fused `eq` becomes `a = b`; the
    /// booleans that must be 1 (the operands of fused `and`s, and `u1` `eq`s against a
    /// constant, which are `a` or `1 - a`) are asserted together as `Σ b_j = k` — one linear
    /// constraint, sound because k booleans sum to k < p only when each is 1.
    pub(super) fn assert_value(&mut self, cond: ValueId) -> R<()> {
        let mut ones = Vec::new();
        self.assert_leaves(cond, &mut ones)?;
        match ones.as_slice() {
            [] => {}
            [one] => {
                let one = one.clone();
                self.cs.assert_true(&one, None);
            }
            _ => {
                let k = Lc::from_u64(ones.len() as u64);
                let sum = Lc::from_terms(
                    ones.iter()
                        .flat_map(|b| b.terms().iter().copied())
                        .collect(),
                );
                self.cs.assert_eq(&sum, &k, None);
            }
        }
        Ok(())
    }

    /// Asserts `a < b` (`strict`) or `a ≤ b` on normalized `uN` values: `b - a - [strict]` lies in
    /// `[0, 2^m)` with `b < 2^m` (m booleans; a false assertion leaves `b - a - 1 ≥ p - 2^N`). Against a
    /// constant `c = b - [strict]` of `k` bits: `c - a` in `[0, 2^k)`, k booleans; when `a`'s
    /// bits are known, its bits from `k` up are asserted 0 (linear) and only its low bits are
    /// compared, so the zeroed bits' checks disappear too.
    fn assert_uint_le(&mut self, lhs: ValueId, rhs: ValueId, strict: bool) -> R<()> {
        let (a, b) = (self.norm(lhs)?, self.norm(rhs)?);
        let shift = Fr::from(u64::from(strict));
        let Some(c) = b.lc.as_constant() else {
            let d = b.lc.sub(&a.lc).add_const(-shift);
            self.cs.decompose(&d, b.bits, Pivot::Low);
            return Ok(());
        };
        if strict && c.is_zero() {
            self.cs.enforce_false();
            return Ok(());
        }
        let bound = c - shift;
        if crate::field::cmp_canonical(&bound, &a.max_value()).is_ge() {
            return Ok(());
        }
        let k = crate::field::num_bits(&bound);
        let low = match &a.bitvec {
            Some(bits) if bits.len() > k as usize => {
                for bit in &bits[k as usize..] {
                    self.cs.enforce_zero(bit);
                }
                sum_bits(&bits[..k as usize])
            }
            _ => a.lc.clone(),
        };
        self.cs.decompose(&low.const_minus(bound), k, Pivot::Low);
        Ok(())
    }

    /// The factors of a fused `or` tree, each 0 exactly when its operand holds: `a - b` for a
    /// fused `eq` (or `1 - z` when its flag `z = [a == b]` exists already), `1 - x` for a
    /// boolean `x`; each with whether it is boolean.
    fn or_factors(&mut self, v: ValueId, out: &mut Vec<(Lc, bool)>) -> R<()> {
        // An explicit stack, left operand first (see `fuse_assertion`).
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            let Some(&(op, lhs, rhs)) = self.fused.get(&v) else {
                out.push((self.norm(v)?.lc.const_minus(Fr::one()), true));
                continue;
            };
            match op {
                BinOp::Or => {
                    stack.push(rhs);
                    stack.push(lhs);
                }
                BinOp::Eq => {
                    let (a, b) = match self.ty(lhs) {
                        Type::UInt(_) => (self.norm(lhs)?, self.norm(rhs)?),
                        _ => (self.num(lhs)?, self.num(rhs)?),
                    };
                    let d = a.lc.sub(&b.lc);
                    let neg = d.scale(-Fr::one());
                    let flag = self
                        .cs
                        .zeros
                        .get(&d)
                        .or_else(|| self.cs.zeros.get(&neg))
                        .cloned();
                    out.push(match flag {
                        Some(z) => (z.const_minus(Fr::one()), true),
                        None => (d, false),
                    });
                }
                _ => return Err(self.err(format!("fused `or` operand `{op}`"))),
            }
        }
        Ok(())
    }

    /// Collects the booleans of [`Self::assert_value`] that must be 1; fused `eq`s that are not
    /// boolean against a constant are asserted here.
    fn assert_leaves(&mut self, cond: ValueId, ones: &mut Vec<Lc>) -> R<()> {
        // An explicit stack, left operand first (see `fuse_assertion`).
        let mut stack = vec![cond];
        while let Some(cond) = stack.pop() {
            let Some(&(op, lhs, rhs)) = self.fused.get(&cond) else {
                ones.push(self.norm(cond)?.lc);
                continue;
            };
            match op {
                BinOp::Eq => {
                    let (a, b) = match self.ty(lhs) {
                        Type::UInt(_) => (self.norm(lhs)?, self.norm(rhs)?),
                        _ => (self.num(lhs)?, self.num(rhs)?),
                    };
                    let boolean = matches!(self.ty(lhs), Type::UInt(1));
                    match (boolean, a.lc.as_constant(), b.lc.as_constant()) {
                        (true, None, Some(c)) => ones.push(if c.is_zero() {
                            a.lc.const_minus(Fr::one())
                        } else {
                            a.lc
                        }),
                        (true, Some(c), None) => ones.push(if c.is_zero() {
                            b.lc.const_minus(Fr::one())
                        } else {
                            b.lc
                        }),
                        _ => self.cs.assert_eq(&a.lc, &b.lc, None),
                    }
                }
                BinOp::And => {
                    stack.push(rhs);
                    stack.push(lhs);
                }
                BinOp::Lt | BinOp::Le => self.assert_uint_le(lhs, rhs, op == BinOp::Lt)?,
                BinOp::Or => {
                    let mut factors = Vec::new();
                    self.or_factors(cond, &mut factors)?;
                    // One of the factors is 0 iff their product is (a field has no zero divisors).
                    let mut it = factors.into_iter();
                    let Some((mut acc, mut acc_bool)) = it.next() else {
                        return Err(self.err("an `or` without operands"));
                    };
                    for (f, boolean) in it {
                        acc = if acc_bool && boolean {
                            self.and_bool(&acc, &f)
                        } else {
                            self.cs.mul(&acc, &f)
                        };
                        acc_bool &= boolean;
                    }
                    self.cs.enforce_zero(&acc);
                }
                _ => return Err(self.err(format!("fused assertion of `{op}`"))),
            }
        }
        Ok(())
    }
}

/// The values an assertion of `cond` reads once its fused tree is expanded: the operands of each
/// fused `eq`, and each operand of a fused `and` that is not itself fused; `cond` when it is not
/// fused.
pub(super) fn fused_reads(fused: &Fused, cond: ValueId) -> Vec<ValueId> {
    let mut out = Vec::new();
    let mut stack = vec![cond];
    while let Some(v) = stack.pop() {
        match fused.get(&v) {
            None => out.push(v),
            Some(&(BinOp::Eq | BinOp::Lt | BinOp::Le, lhs, rhs)) => out.extend([lhs, rhs]),
            Some(&(_, lhs, rhs)) => stack.extend([lhs, rhs]),
        }
    }
    out
}
