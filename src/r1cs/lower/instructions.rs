//! One instruction to its gadget: the dispatch over every instruction kind, and the free
//! witnesses of `hint`.

use super::{Lowerer, Wire, R};
use crate::field::Fr;
use crate::ir::{InstKind, Type, ValueId};
use crate::r1cs::gadgets::{sum_bits, Num, Pivot, MAX_EXACT, UNBOUNDED};
use crate::r1cs::lc::Lc;
use crate::r1cs::recipe::{Recipe, Source};
use ark_ff::One;

impl<'a> Lowerer<'a> {
    /// The wires of an instruction's results; `no_wrap` is its `nuw` flag.
    pub(super) fn lower_inst(
        &mut self,
        kind: &InstKind,
        results: &[ValueId],
        no_wrap: bool,
    ) -> R<Vec<Wire>> {
        let one = |n: Num| Ok(vec![Wire::Num(n)]);
        match kind {
            InstKind::Binary { op, lhs, rhs } => {
                let result = results.first().copied();
                if result.is_some_and(|r| self.fused.contains_key(&r) || self.folded.contains(&r)) {
                    return Ok(vec![Wire::Num(Num::bool(Lc::zero()))]);
                }
                if let Some(idiom) = result.and_then(|r| self.idioms.get(&r).copied()) {
                    return one(self.idiom(idiom)?);
                }
                if no_wrap {
                    if let Some(n) = self.no_wrap_binary(*op, *lhs, *rhs)? {
                        return one(n);
                    }
                }
                one(self.binary(*op, *lhs, *rhs)?)
            }
            InstKind::Not { arg } => {
                let n = self.width(*arg)?;
                let x = self.num(*arg)?;
                if n == 1 {
                    return one(Num::bool(x.lc.const_minus(Fr::one())));
                }
                if let Some(bits) = &x.bitvec {
                    if x.bits <= n {
                        let mut flipped: Vec<Lc> =
                            bits.iter().map(|b| b.const_minus(Fr::one())).collect();
                        flipped.resize(n as usize, Lc::from_u64(1));
                        return one(Num::from_bits(flipped));
                    }
                }
                let t = x.bits.max(n);
                let all = crate::r1cs::gadgets::pow2(t) - Fr::one();
                one(Num::new(x.lc.const_minus(all), t))
            }
            InstKind::Cast { arg, to } => {
                let from = self.ty(*arg);
                let x = match from {
                    Type::UInt(_) => self.norm(*arg)?,
                    _ => self.num(*arg)?,
                };
                match to {
                    Type::Field => one(Num { bitvec: None, ..x }),
                    // The value fits (range analysis): no check.
                    Type::UInt(m) if no_wrap && x.bits <= MAX_EXACT => one(x.assume_below(*m)),
                    // A `field` that fits by construction: a `uN` restored from the call stack
                    // (`opt::calls`), which the memory check proves equal to the saved `uN`.
                    Type::UInt(m) if no_wrap && *from == Type::Field => one(x.assume_below(*m)),
                    Type::UInt(m) => one(self.cs.checked_narrow(&x, *m, None)),
                    _ => Err(self.err(format!("cast to {to}"))),
                }
            }
            // k booleans: unsatisfiable when the value is not below 2^k (k ≤ 253).
            InstKind::Bound { arg, bits } => {
                let x = self.num(*arg)?;
                if x.bits <= *bits {
                    return one(x);
                }
                let b = self.cs.decompose(&x.lc, *bits, Pivot::Low);
                one(Num {
                    lc: x.lc,
                    bits: *bits,
                    bitvec: Some(b.into()),
                    max: None,
                })
            }
            InstKind::Truncate { arg, to } => {
                let m = to
                    .uint_width()
                    .ok_or_else(|| self.err(format!("trunc to {to}")))?;
                match self.ty(*arg) {
                    Type::UInt(n) => {
                        let x = self.num(*arg)?;
                        one(self.cs.normalize(&x, m.min(*n)))
                    }
                    _ => {
                        let x = self.num(*arg)?;
                        if x.bits <= MAX_EXACT {
                            one(self.cs.normalize(&x, m))
                        } else {
                            let bits = self.cs.canonical_bits(&x.lc);
                            one(Num::from_bits(bits[..m as usize].to_vec()))
                        }
                    }
                }
            }
            InstKind::Select {
                cond,
                then_value,
                else_value,
            } => {
                let c = self.num(*cond)?.lc;
                let (a, b) = (self.get(*then_value)?, self.get(*else_value)?);
                Ok(vec![self.select_wire(&c, &a, &b)?])
            }
            InstKind::Assert { cond, .. } => {
                self.assert_value(*cond)?;
                Ok(vec![])
            }
            InstKind::Allocate { .. } | InstKind::Load { .. } | InstKind::Store { .. } => Err(self
                .err(format!(
                    "`{}`: memory must be promoted to values (mem2reg) before lowering to R1CS",
                    kind.opcode()
                ))),
            InstKind::Call { .. } => {
                Err(self.err("`call`: calls must be inlined before lowering to R1CS"))
            }
            // Free witnesses: nothing computes or constrains them but the code that uses them.
            InstKind::Hint { ret, .. } => ret.iter().map(|t| self.hint_wire(t)).collect(),
            // `log` prints in the interpreter only: no wires, no constraints.
            InstKind::Log { .. } => Ok(vec![]),
            InstKind::MakeArray { elems, .. } => Ok(vec![Wire::Array(
                elems.iter().map(|e| self.get(*e)).collect::<R<Vec<_>>>()?,
            )]),
            InstKind::ArrayGet { array, index } => {
                let elem_ty = self.ty(*array).elem().cloned().unwrap_or(Type::Field);
                let idx = self.norm(*index)?;
                if let Some(k) = idx.lc.as_constant() {
                    // Only the element is copied: reading every element of a long array at
                    // constant indices stays linear.
                    let items = self.array_ref(*array)?;
                    return Ok(vec![match self.const_index(&k, items.len()) {
                        Some(j) => items[j].clone(),
                        None => {
                            self.cs.enforce_false();
                            self.zero_wire(&elem_ty)?
                        }
                    }]);
                }
                let items = self.array_owned(*array)?;
                if items.is_empty() {
                    self.cs.enforce_false();
                    return Ok(vec![self.zero_wire(&elem_ty)?]);
                }
                let sel = self.selectors(*index, &idx.lc, items.len());
                Ok(vec![self.pick(&sel, &items)])
            }
            InstKind::ArraySet {
                array,
                index,
                value,
            } => {
                let items = self.array_owned(*array)?;
                let idx = self.norm(*index)?;
                // A lazy `uN` written at a run-time index is normalized once here, not once per
                // element it may land in.
                let v = match (self.ty(*value), idx.lc.as_constant()) {
                    (Type::UInt(_), None) => Wire::Num(self.norm(*value)?),
                    _ => self.get(*value)?,
                };
                if let Some(k) = idx.lc.as_constant() {
                    let mut items = items;
                    match self.const_index(&k, items.len()) {
                        Some(j) => items[j] = v,
                        None => self.cs.enforce_false(),
                    }
                    return Ok(vec![Wire::Array(items)]);
                }
                let sel = self.selectors(*index, &idx.lc, items.len());
                let mut out = Vec::with_capacity(items.len());
                for (e, item) in sel.iter().zip(&items) {
                    // item + e (v - item) on every leaf.
                    out.push(self.select_wire(e, &v, item)?);
                }
                Ok(vec![Wire::Array(out)])
            }
            InstKind::ToBits { arg } => {
                let bits: Vec<Lc> = match self.ty(*arg) {
                    Type::UInt(_) => {
                        let x = self.bits(*arg)?;
                        x.bitvec.as_deref().map(<[Lc]>::to_vec).unwrap_or_default()
                    }
                    _ => {
                        let x = self.num(*arg)?;
                        if x.bits <= MAX_EXACT {
                            let mut b = self.cs.decompose(&x.lc, x.bits, Pivot::Low);
                            b.resize(UNBOUNDED as usize, Lc::zero());
                            b
                        } else {
                            self.cs.canonical_bits(&x.lc)
                        }
                    }
                };
                Ok(vec![Wire::Array(
                    bits.into_iter()
                        .rev()
                        .map(|b| Wire::Num(Num::bool(b)))
                        .collect(),
                )])
            }
            InstKind::FromBits { arg, to } => {
                let items = self.array_owned(*arg)?;
                let mut bits = Vec::with_capacity(items.len());
                for it in items.iter().rev() {
                    match it {
                        Wire::Num(n) => bits.push(n.lc.clone()),
                        Wire::Array(_) => return Err(self.err("`from_bits` of nested arrays")),
                    }
                }
                match to {
                    Type::Field => {
                        let lc = sum_bits(&bits);
                        let b = if bits.len() as u32 <= MAX_EXACT {
                            bits.len() as u32
                        } else {
                            UNBOUNDED
                        };
                        one(Num::new(lc, b))
                    }
                    _ => one(Num::from_bits(bits)),
                }
            }
        }
    }

    /// A wire of fresh witness variables holding the next hint values. A `uN` or `u1` leaf is
    /// range-checked (N booleans), as every `uN` value is where it is produced; a field leaf
    /// costs nothing.
    fn hint_wire(&mut self, ty: &Type) -> R<Wire> {
        Ok(match ty {
            Type::Field | Type::UInt(_) => {
                let x = self.hints.get(self.next_hint).copied().unwrap_or_default();
                let k = self.next_hint as u32;
                self.next_hint += 1;
                let v = Lc::var(self.cs.witness(Recipe::Source(Source::Hint(k), x)));
                match ty {
                    Type::UInt(w) => {
                        let bits = self.cs.decompose(&v, *w, Pivot::Low);
                        Wire::Num(Num {
                            lc: v,
                            bits: *w,
                            bitvec: Some(bits.into()),
                            max: None,
                        })
                    }
                    _ => Wire::Num(Num::new(v, UNBOUNDED)),
                }
            }
            Type::Array(elem, n) => Wire::Array(
                (0..*n)
                    .map(|_| self.hint_wire(elem))
                    .collect::<R<Vec<_>>>()?,
            ),
            Type::Ref(_) => return Err(self.err(format!("a hint of reference type {ty}"))),
        })
    }
}
