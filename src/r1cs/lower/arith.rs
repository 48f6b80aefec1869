//! Binary operations: on field elements, on booleans (`u1`, products only where the operands
//! differ) and on `uN` (lazy sums and products, shifts, bitwise operations bit by bit).

use super::{bits, scalar, Lowerer, R};
use crate::field::Fr;
use crate::ir::{BinOp, Type, ValueId};
use crate::r1cs::gadgets::{Num, MAX_EXACT, UNBOUNDED};
use crate::r1cs::lc::Lc;
use ark_ff::One;
use std::rc::Rc;

impl<'a> Lowerer<'a> {
    /// `a · b` for booleans: `a` when `b = a`, 0 when `b = 1 - a`, else one product.
    pub(super) fn and_bool(&mut self, a: &Lc, b: &Lc) -> Lc {
        if a == b {
            return a.clone();
        }
        if a.add(b).as_constant() == Some(Fr::one()) {
            return Lc::zero();
        }
        self.cs.mul(a, b)
    }

    /// A `uN` `add`, `sub`, `mul` or `shl` by a constant marked `nuw`: the exact integer result
    /// of the normalized operands, known to be below `2^N` (no normalization). `None` when an
    /// operand is not normalized yet (the lazy path is as cheap then) or the shape is another.
    pub(super) fn no_wrap_binary(
        &mut self,
        op: BinOp,
        lhs: ValueId,
        rhs: ValueId,
    ) -> R<Option<Num>> {
        let Type::UInt(n) = *self.ty(lhs) else {
            return Ok(None);
        };
        let (a, b) = (self.num(lhs)?, self.num(rhs)?);
        if a.bits > n || (op != BinOp::Shl && b.bits > n) {
            return Ok(None);
        }
        Ok(Some(match op {
            BinOp::Add if bits::disjoint_sum(&a, &b, n).is_some() => {
                bits::disjoint_sum(&a, &b, n).expect("just checked")
            }
            BinOp::Add => {
                Num::bounded(a.lc.add(&b.lc), a.max_value() + b.max_value()).assume_below(n)
            }
            BinOp::Sub => Num::bounded(a.lc.sub(&b.lc), a.max_value()).assume_below(n),
            BinOp::Mul => {
                let p = self.cs.mul(&a.lc, &b.lc);
                Num::new(p, n).assume_below(n)
            }
            BinOp::Shl => {
                let Some(k) = b.lc.as_constant() else {
                    return Ok(None);
                };
                let k = crate::r1cs::gadgets::low_u64(&k);
                if k >= u64::from(n) {
                    return Ok(None);
                }
                if let Some(bits) = a.bitvec.as_deref() {
                    // Known bits stay known (`bits.rs`): the same bits moved up (the `k`
                    // shifted out are 0 by `nuw`, as `assume_below` takes them to be), so a
                    // later bit operation decomposes nothing.
                    let out = bits::shift(bits, k as usize, n as usize, true);
                    return Ok(Some(Num::from_bits(out)));
                }
                let scale = crate::r1cs::gadgets::pow2(k as u32);
                Num::new(a.lc.scale(scale), n).assume_below(n)
            }
            _ => return Ok(None),
        }))
    }

    pub(super) fn binary(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId) -> R<Num> {
        match self.ty(lhs) {
            Type::Field => self.field_binary(op, lhs, rhs),
            Type::UInt(1) if !matches!(op, BinOp::Shl | BinOp::Shr | BinOp::UDiv | BinOp::URem) => {
                let (a, b) = (self.num(lhs)?.lc, self.num(rhs)?.lc);
                Ok(Num::bool(match op {
                    BinOp::Mul | BinOp::And => self.and_bool(&a, &b),
                    BinOp::Or => {
                        let p = self.and_bool(&a, &b);
                        a.add(&b).sub(&p)
                    }
                    BinOp::Add | BinOp::Sub | BinOp::Xor => {
                        let p = self.and_bool(&a, &b);
                        a.add(&b).add_scaled(&p, -Fr::from(2u64))
                    }
                    BinOp::Eq => {
                        let p = self.and_bool(&a, &b);
                        a.add(&b)
                            .add_scaled(&p, -Fr::from(2u64))
                            .const_minus(Fr::one())
                    }
                    // a < b: !a && b;  a <= b: !a || b.
                    BinOp::Lt => {
                        let p = self.and_bool(&a, &b);
                        b.sub(&p)
                    }
                    BinOp::Le => {
                        let p = self.and_bool(&a, &b);
                        a.sub(&p).const_minus(Fr::one())
                    }
                    _ => return Err(self.err(format!("`{op}` on u1"))),
                }))
            }
            Type::UInt(n) => self.uint_binary(op, lhs, rhs, *n),
            t => Err(self.err(format!("`{op}` on {t}"))),
        }
    }

    fn field_binary(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId) -> R<Num> {
        let a = scalar(self.func, &self.env, lhs).map_err(|e| self.err(e))?;
        let b = scalar(self.func, &self.env, rhs).map_err(|e| self.err(e))?;
        let bounded = |bits: u32| if bits <= MAX_EXACT { bits } else { UNBOUNDED };
        Ok(match op {
            BinOp::Add => Num::new(a.lc.add(&b.lc), bounded(a.bits.max(b.bits) + 1)),
            BinOp::Sub => Num::new(a.lc.sub(&b.lc), UNBOUNDED),
            BinOp::Mul => {
                let p = self.cs.mul(&a.lc, &b.lc);
                Num::new(p, bounded(a.bits + b.bits))
            }
            BinOp::Div => Num::new(self.cs.field_div(&a.lc, &b.lc, None), UNBOUNDED),
            BinOp::Eq => Num::bool(self.cs.is_zero(&a.lc.sub(&b.lc))),
            BinOp::Lt => Num::bool(self.cs.field_lt(&a, &b, false)),
            BinOp::Le => Num::bool(self.cs.field_lt(&a, &b, true)),
            _ => return Err(self.err(format!("`{op}` on field elements"))),
        })
    }

    fn uint_binary(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId, n: u32) -> R<Num> {
        let lazy_limit = MAX_EXACT;
        Ok(match op {
            BinOp::Add | BinOp::Sub => {
                let (mut a, mut b) = (self.num(lhs)?, self.num(rhs)?);
                if op == BinOp::Add {
                    if let Some(sum) = bits::disjoint_sum(&a, &b, n) {
                        return Ok(sum);
                    }
                }
                if a.bits.max(b.bits).max(n) + 2 > lazy_limit {
                    a = self.norm(lhs)?;
                    b = self.norm(rhs)?;
                }
                // Both bounds are below 2^251, so their sums are exact integers.
                if op == BinOp::Add {
                    Num::bounded(a.lc.add(&b.lc), a.max_value() + b.max_value())
                } else {
                    // a - b + 2^t with 2^t ≡ 0 mod 2^n and 2^t > b.
                    let t = b.bits.max(n);
                    let k = crate::r1cs::gadgets::pow2(t);
                    Num::bounded(a.lc.sub(&b.lc).add_const(k), a.max_value() + k)
                }
            }
            BinOp::Mul => {
                let (mut a, mut b) = (self.num(lhs)?, self.num(rhs)?);
                if a.bits + b.bits > lazy_limit {
                    a = self.norm(lhs)?;
                    b = self.norm(rhs)?;
                }
                let p = self.cs.mul(&a.lc, &b.lc);
                Num::new(p, a.bits + b.bits)
            }
            BinOp::UDiv | BinOp::URem => {
                let key = (lhs, rhs);
                let (q, r) = match self.divrem.get(&key) {
                    Some(qr) => qr.clone(),
                    None => {
                        let (a, b) = (self.norm(lhs)?, self.norm(rhs)?);
                        let qr = self.cs.udiv_rem(&a, &b, n, None);
                        self.divrem.insert(key, qr.clone());
                        qr
                    }
                };
                if op == BinOp::UDiv {
                    q
                } else {
                    r
                }
            }
            BinOp::Eq => {
                let (a, b) = (self.norm(lhs)?, self.norm(rhs)?);
                Num::bool(self.cs.is_zero(&a.lc.sub(&b.lc)))
            }
            BinOp::Lt | BinOp::Le => {
                let (a, b) = (self.norm(lhs)?, self.norm(rhs)?);
                // Both known below 2^m, m < N (a remainder by a constant): m + 1 booleans.
                let m = crate::field::num_bits(&a.max_value())
                    .max(crate::field::num_bits(&b.max_value()))
                    .clamp(1, n);
                Num::bool(self.cs.lt_bounded(&a.lc, &b.lc, m, op == BinOp::Le))
            }
            BinOp::And | BinOp::Or | BinOp::Xor => {
                let (a, b) = (self.bits(lhs)?, self.bits(rhs)?);
                let (ab, bb) = (
                    a.bitvec.clone().unwrap_or_else(|| Rc::from(Vec::new())),
                    b.bitvec.clone().unwrap_or_else(|| Rc::from(Vec::new())),
                );
                let mut out = Vec::with_capacity(n as usize);
                // Each result bit is one variable (`x + y − 2xy` for `xor`, `x + y − xy` for
                // `or`): a chain of bit operations (Keccak's rounds) keeps combinations short.
                let k = if op == BinOp::Or {
                    -Fr::one()
                } else {
                    -Fr::from(2u64)
                };
                for (x, y) in ab.iter().zip(bb.iter()) {
                    out.push(if op == BinOp::And {
                        self.cs.mul(x, y)
                    } else {
                        self.cs.mul_affine(x, y, k)
                    });
                }
                Num::from_bits(out)
            }
            BinOp::Shl | BinOp::Shr => {
                let k = self.num(rhs)?;
                let k = if let Some(kc) = k.lc.as_constant() {
                    Some(kc)
                } else {
                    self.norm(rhs)?.lc.as_constant()
                };
                match k {
                    Some(k) => {
                        // A lazy `uN` constant (say `32 - 7` left unfolded at -O0) is only
                        // congruent to the amount mod 2^w: reduce it before using it.
                        let w = self.ty(rhs).uint_width().unwrap_or(64);
                        let amount = crate::ir::wrap(crate::r1cs::gadgets::low_u64(&k), w);
                        if amount >= u64::from(n) {
                            return Ok(Num::from_u64(0));
                        }
                        let a = self.bits(lhs)?;
                        let bits = a.bitvec.as_deref().unwrap_or_default();
                        let out = bits::shift(bits, amount as usize, n as usize, op == BinOp::Shl);
                        Num::from_bits(out)
                    }
                    None => {
                        let kb = self.bits(rhs)?;
                        let k_bits = kb.bitvec.as_deref().map(<[Lc]>::to_vec).unwrap_or_default();
                        if op == BinOp::Shl {
                            let a = self.norm(lhs)?;
                            self.cs.shl_var(&a, &k_bits, n)
                        } else {
                            // a >> k = reverse(reverse(a) << k).
                            let a = self.bits(lhs)?;
                            let bits = a.bitvec.as_deref().map(<[Lc]>::to_vec).unwrap_or_default();
                            let rev = Num::from_bits(bits.into_iter().rev().collect());
                            let shifted = self.cs.shl_var(&rev, &k_bits, n);
                            let shifted = self.cs.normalize(&shifted, n);
                            let sb = shifted
                                .bitvec
                                .as_deref()
                                .map(<[Lc]>::to_vec)
                                .unwrap_or_default();
                            let mut sb = sb;
                            sb.resize(n as usize, Lc::zero());
                            Num::from_bits(sb.into_iter().rev().collect())
                        }
                    }
                }
            }
            BinOp::Div => return Err(self.err("`div` on integers")),
        })
    }
}
