//! Arrays: indices known as constants, selectors for indices that are not (one per index
//! value and length), picking an element through them, and `select` on whole wires.

use super::{Lowerer, Wire, R};
use crate::field::Fr;
use crate::ir::{Type, ValueId};
use crate::r1cs::gadgets::Num;
use crate::r1cs::lc::Lc;

impl<'a> Lowerer<'a> {
    pub(super) fn const_index(&self, k: &Fr, len: usize) -> Option<usize> {
        let j = crate::r1cs::gadgets::low_u64(k);
        (crate::field::num_bits(k) <= 63 && (j as usize) < len).then_some(j as usize)
    }

    pub(super) fn zero_wire(&self, ty: &Type) -> R<Wire> {
        Ok(match ty {
            Type::Array(elem, n) => Wire::Array(
                (0..*n)
                    .map(|_| self.zero_wire(elem))
                    .collect::<R<Vec<_>>>()?,
            ),
            Type::Ref(_) => return Err(self.err("an array of references")),
            _ => Wire::Num(Num::from_u64(0)),
        })
    }

    pub(super) fn selectors(&mut self, index: ValueId, idx: &Lc, len: usize) -> Vec<Lc> {
        if let Some(s) = self.selectors.get(&(index, len)) {
            return s.clone();
        }
        let s = self.cs.selectors(idx, len, None);
        self.selectors.insert((index, len), s.clone());
        s
    }

    /// `Σ_j sel_j · items_j` on every leaf.
    pub(super) fn pick(&mut self, sel: &[Lc], items: &[Wire]) -> Wire {
        match &items[0] {
            Wire::Num(_) => {
                let mut acc = Lc::zero();
                let mut bits = 0;
                for (e, item) in sel.iter().zip(items) {
                    if let Wire::Num(x) = item {
                        let t = self.cs.mul(e, &x.lc);
                        acc = acc.add(&t);
                        bits = bits.max(x.bits);
                    }
                }
                Wire::Num(Num::new(acc, bits))
            }
            Wire::Array(first) => {
                let len = first.len();
                let mut out = Vec::with_capacity(len);
                for k in 0..len {
                    let column: Vec<Wire> = items
                        .iter()
                        .map(|w| match w {
                            Wire::Array(a) => a[k].clone(),
                            Wire::Num(n) => Wire::Num(n.clone()),
                        })
                        .collect();
                    out.push(self.pick(sel, &column));
                }
                Wire::Array(out)
            }
        }
    }

    pub(super) fn select_wire(&mut self, c: &Lc, a: &Wire, b: &Wire) -> R<Wire> {
        Ok(match (a, b) {
            (Wire::Num(x), Wire::Num(y)) => Wire::Num(self.cs.select(c, x, y)),
            (Wire::Array(xs), Wire::Array(ys)) if xs.len() == ys.len() => Wire::Array(
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| self.select_wire(c, x, y))
                    .collect::<R<Vec<_>>>()?,
            ),
            _ => return Err(self.err("`select` of values of different shapes")),
        })
    }
}
