//! Bitwise idioms recognized across instructions and lowered bit by bit as a whole ([`Idiom`]):
//! SHA-256's choice and majority.

use super::{InstSet, Lowerer, R};
use crate::field::Fr;
use crate::ir::{BinOp, InstId, InstKind, Type, ValueDef, ValueId};
use crate::r1cs::fxhash::FxMap;
use crate::r1cs::gadgets::Num;
use crate::r1cs::lc::Lc;
use crate::r1cs::live::FuncInfo;

/// A bitwise idiom lowered bit by bit as a whole, cheaper than its operations one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Idiom {
    /// SHA-256's choice `(x & y) ^ (!x & z)` (or with `|`: the two sides never share a bit):
    /// `z_i + x_i · (y_i - z_i)`, one product per bit instead of three.
    Choice { x: ValueId, y: ValueId, z: ValueId },
    /// SHA-256's majority `(a & b) ^ (a & c) ^ (b & c)`: with `p = u_i · v_i` for one pair of
    /// the three, `p + w_i · (u_i + v_i - 2p)`: two products per bit, one when the pair's
    /// product was built before (instead of five).
    Majority { a: ValueId, b: ValueId, c: ValueId },
}

impl Idiom {
    pub(super) fn reads(self) -> [ValueId; 3] {
        match self {
            Idiom::Choice { x, y, z } => [x, y, z],
            Idiom::Majority { a, b, c } => [a, b, c],
        }
    }
}

/// A majority idiom found at an `xor`; its `and`s may have other uses
/// ([`Lowerer::settle_majorities`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct MajorityCandidate {
    /// The outer `xor`.
    result: ValueId,
    /// The inner `xor` (used once, by `result`).
    inner: ValueId,
    /// The three `and`s.
    ands: [ValueId; 3],
    idiom: Idiom,
}

impl<'a> Lowerer<'a> {
    /// The operands of `v` when it is a `uN` (N > 1) `and` of this block used only once (by the
    /// idiom that will read its operands instead).
    fn single_and(
        &self,
        v: ValueId,
        info: &FuncInfo,
        in_block: &InstSet<'_>,
    ) -> Option<(ValueId, ValueId)> {
        match self.single_binary(v, info, in_block)? {
            (BinOp::And, l, r) => Some((l, r)),
            _ => None,
        }
    }

    /// The operands of `v` when it is a `uN` (N > 1) `and` of this block, used any number of
    /// times: the `and`s of majority idioms, which value numbering may share between two
    /// rounds of SHA-256 (one round's `b & c` is the previous round's `a & b`).
    fn shared_and(&self, v: ValueId, in_block: &InstSet<'_>) -> Option<(ValueId, ValueId)> {
        match self.block_binary(v, in_block)? {
            (BinOp::And, l, r) => Some((l, r)),
            _ => None,
        }
    }

    /// `(op, lhs, rhs)` of a `uN` (N > 1) binary operation of this block whose result is used
    /// once and is not already part of an idiom or an assertion.
    fn single_binary(
        &self,
        v: ValueId,
        info: &FuncInfo,
        in_block: &InstSet<'_>,
    ) -> Option<(BinOp, ValueId, ValueId)> {
        if info.uses(v) != 1 {
            return None;
        }
        self.block_binary(v, in_block)
    }

    /// `(op, lhs, rhs)` of a `uN` (N > 1) binary operation of this block that is not already
    /// part of an idiom or an assertion.
    fn block_binary(
        &self,
        v: ValueId,
        in_block: &InstSet<'_>,
    ) -> Option<(BinOp, ValueId, ValueId)> {
        let func = self.func;
        if self.folded.contains(&v) || self.fused.contains_key(&v) {
            return None;
        }
        let ValueDef::Result(def, _) = func.value(v).def else {
            return None;
        };
        if !in_block.contains(&def) || !matches!(func.value_type(v), Type::UInt(n) if *n > 1) {
            return None;
        }
        match in_block.inst(def).kind {
            InstKind::Binary { op, lhs, rhs } => Some((op, lhs, rhs)),
            _ => None,
        }
    }

    /// Recognizes the choice and majority idioms ([`Idiom`]) at instruction `i`: marks the
    /// operations a choice folds, and adds a majority to `majorities` (settled once the whole
    /// block is seen, by [`Lowerer::settle_majorities`]).
    pub(super) fn find_idiom(
        &mut self,
        i: InstId,
        info: &FuncInfo,
        in_block: &InstSet<'_>,
        majorities: &mut Vec<MajorityCandidate>,
    ) {
        let func = self.func;
        let inst = in_block.inst(i);
        let InstKind::Binary { op, lhs, rhs } = inst.kind else {
            return;
        };
        let Some(&result) = inst.results.first() else {
            return;
        };
        if !matches!(op, BinOp::Xor | BinOp::Or)
            || !matches!(func.value_type(result), Type::UInt(n) if *n > 1)
            || self.folded.contains(&result)
        {
            return;
        }
        let not_of = |v: ValueId| match func.value(v).def {
            ValueDef::Result(d, _) if in_block.contains(&d) => match in_block.inst(d).kind {
                InstKind::Not { arg } => Some(arg),
                _ => None,
            },
            _ => None,
        };
        // Choice: one `and` has x and y, the other `!x` and z.
        if let (Some((p, q)), Some((s, t))) = (
            self.single_and(lhs, info, in_block),
            self.single_and(rhs, info, in_block),
        ) {
            for (x, y) in [(p, q), (q, p)] {
                for (nx, z) in [(s, t), (t, s)] {
                    if not_of(nx) == Some(x) {
                        self.folded.extend([lhs, rhs]);
                        self.idioms.insert(result, Idiom::Choice { x, y, z });
                        return;
                    }
                }
            }
        }
        // Majority: xor(xor(and, and), and) in either order, over the three pairs of a, b, c.
        if op != BinOp::Xor {
            return;
        }
        for (inner, last) in [(lhs, rhs), (rhs, lhs)] {
            let Some((BinOp::Xor, i1, i2)) = self.single_binary(inner, info, in_block) else {
                continue;
            };
            let pairs = [
                self.shared_and(i1, in_block),
                self.shared_and(i2, in_block),
                self.shared_and(last, in_block),
            ];
            let [Some((a, b)), Some(p2), Some(p3)] = pairs else {
                continue;
            };
            if a == b {
                continue;
            }
            // c is the value of the second pair that is not a or b.
            let c = if p2.0 == a || p2.0 == b { p2.1 } else { p2.0 };
            if c == a || c == b {
                continue;
            }
            let same = |p: (ValueId, ValueId), u: ValueId, v: ValueId| {
                (p.0 == u && p.1 == v) || (p.0 == v && p.1 == u)
            };
            let covers = (same(p2, a, c) && same(p3, b, c)) || (same(p2, b, c) && same(p3, a, c));
            if covers {
                majorities.push(MajorityCandidate {
                    result,
                    inner,
                    ands: [i1, i2, last],
                    idiom: Idiom::Majority { a, b, c },
                });
                return;
            }
        }
    }

    /// Takes every majority found in the block, and marks the operations they fold: each inner
    /// `xor`, and each `and` that no instruction but majorities reads. An `and` that something
    /// else reads too (the first rounds of SHA-256, where another round's majority was folded
    /// to constants) is built as well, for its other readers.
    pub(super) fn settle_majorities(
        &mut self,
        majorities: Vec<MajorityCandidate>,
        info: &FuncInfo,
    ) {
        let mut claims: FxMap<ValueId, usize> = FxMap::default();
        for m in &majorities {
            for a in m.ands {
                *claims.entry(a).or_insert(0) += 1;
            }
        }
        for m in majorities {
            self.folded.insert(m.inner);
            self.folded.extend(
                m.ands
                    .into_iter()
                    .filter(|&a| claims.get(&a) == Some(&info.uses(a))),
            );
            self.idioms.insert(m.result, m.idiom);
        }
    }

    /// Lowers a whole bitwise idiom.
    pub(super) fn idiom(&mut self, idiom: Idiom) -> R<Num> {
        let [u, v, w] = idiom.reads();
        let bits = |l: &mut Self, x: ValueId| -> R<Vec<Lc>> {
            let n = l.width(x)? as usize;
            let mut b = l
                .bits(x)?
                .bitvec
                .as_deref()
                .map(<[Lc]>::to_vec)
                .unwrap_or_default();
            b.resize(n, Lc::zero());
            Ok(b)
        };
        let (ub, vb, wb) = (bits(self, u)?, bits(self, v)?, bits(self, w)?);
        let mut out = Vec::with_capacity(ub.len());
        for ((ui, vi), wi) in ub.iter().zip(&vb).zip(&wb) {
            out.push(match idiom {
                Idiom::Choice { .. } => {
                    let t = self.cs.mul(ui, &vi.sub(wi));
                    wi.add(&t)
                }
                Idiom::Majority { .. } => {
                    // Start from a pair whose product exists, else from (a, b).
                    let key = |x: &Lc, y: &Lc| {
                        if x <= y {
                            (x.clone(), y.clone())
                        } else {
                            (y.clone(), x.clone())
                        }
                    };
                    let (x, y, z) = [(ui, vi, wi), (ui, wi, vi), (vi, wi, ui)]
                        .into_iter()
                        .find(|(x, y, _)| self.majority_pairs.contains(&key(x, y)))
                        .unwrap_or((ui, vi, wi));
                    self.majority_pairs.insert(key(x, y));
                    let p = self.cs.mul(x, y);
                    let t = self.cs.mul(z, &x.add(y).add_scaled(&p, -Fr::from(2u64)));
                    p.add(&t)
                }
            });
        }
        Ok(Num::from_bits(out))
    }
}
