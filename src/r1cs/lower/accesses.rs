//! Accesses of arrays that live in memory (see [`crate::r1cs::memory`]): each exposes
//! `(addr, value)` (and `rw` for a guarded write) as instance variables of the block, in
//! execution order, between the input and the output state.

use super::{Lowerer, Wire, R};
use crate::field::Fr;
use crate::ir::interp::{Access, Val};
use crate::ir::{Arena, InstData, InstKind, Type, ValueId};
use crate::r1cs::gadgets::{Num, UNBOUNDED};
use crate::r1cs::lc::Lc;
use crate::r1cs::memory::{AccessKind, AccessSlot};
use crate::r1cs::recipe::{Recipe, Source};
use ark_ff::{AdditiveGroup, Zero};

fn scalar(v: &Val) -> Fr {
    match v {
        Val::Field(x) => *x,
        Val::UInt(n) => Fr::from(*n),
        _ => Fr::zero(),
    }
}

/// What a write reads (nothing: its value is its own combination).
const NO_READ: Recipe<'static> = Recipe::Const(Fr::ZERO);

impl<'a> Lowerer<'a> {
    /// The next access the interpreter recorded for this block execution (witness mode), for
    /// an `array_get`/`array_set` on an array of scalars, whether or not it lives in memory.
    pub(super) fn take_access(&mut self, kind: &InstKind) -> Option<&'a Access> {
        let array = match kind {
            InstKind::ArrayGet { array, .. } | InstKind::ArraySet { array, .. } => *array,
            _ => return None,
        };
        if !self.ty(array).elem().is_some_and(Type::is_scalar) {
            return None;
        }
        let a = self.accesses.get(self.next_access);
        self.next_access += 1;
        a
    }

    /// An instance variable holding `value`, and the number of instance variables before it.
    fn expose(&mut self, value: Recipe<'_>) -> (Lc, usize) {
        let k = self.cs.n_instance;
        (Lc::var(self.cs.instance(value)), k)
    }

    /// One access: `addr` and the value (a write's combination, or `None` for a read, whose
    /// value is the trace's), `rw` for a guarded write. Returns the value's wire.
    fn access(
        &mut self,
        seg: u32,
        kind: AccessKind,
        addr: &Lc,
        value: Option<&Lc>,
        read: Recipe<'_>,
        rw: Option<&Lc>,
    ) -> Lc {
        let (a, addr_var) = self.expose(Recipe::Lin(addr));
        self.cs.enforce_eq(&a, addr);
        let (v, value_var) = match value {
            Some(x) => {
                let (v, k) = self.expose(Recipe::Lin(x));
                self.cs.enforce_eq(&v, x);
                (v, k)
            }
            None => self.expose(read),
        };
        let rw_var = rw.map(|g| {
            let (w, k) = self.expose(Recipe::Lin(g));
            self.cs.enforce_eq(&w, g);
            k
        });
        let read_only = self.plan.segments[seg as usize].read_only;
        self.mem_slots.push(AccessSlot {
            seg,
            kind,
            addr: addr_var,
            value: value_var,
            rw: rw_var,
            read_only,
        });
        v
    }

    /// Writes a spilled scalar defined here to its address.
    pub(super) fn spill_write(&mut self, v: ValueId) -> R<()> {
        let (Some(addr), Some(seg)) = (self.plan.spill_of(v), self.plan.spill_segment) else {
            return Ok(());
        };
        let x = self.stored(v)?;
        let index = self.mem_slots.len();
        self.access(
            seg,
            AccessKind::Write,
            &Lc::constant(Fr::from(addr)),
            Some(&x),
            NO_READ,
            None,
        );
        self.spill_writes.push((index, v));
        Ok(())
    }

    /// Reads every spilled scalar the block uses and does not define, in value order.
    pub(super) fn spill_read_all(&mut self, insts: &Arena<InstData>) -> R<()> {
        let Some(seg) = self.plan.spill_segment else {
            return Ok(());
        };
        let func = self.func;
        let data = func.block(self.block);
        let mut defined: std::collections::BTreeSet<ValueId> =
            data.params.iter().copied().collect();
        let mut wanted = std::collections::BTreeSet::new();
        for &i in &data.insts {
            let inst = &insts[i.index()];
            inst.kind.for_each_operand(|v| {
                if !defined.contains(&v) && self.plan.spill_of(v).is_some() {
                    wanted.insert(v);
                }
            });
            defined.extend(inst.results.iter().copied());
        }
        if let Some(t) = &data.term {
            for v in t.operands() {
                if !defined.contains(&v) && self.plan.spill_of(v).is_some() {
                    wanted.insert(v);
                }
            }
        }
        for v in wanted {
            let addr = self.plan.spill_of(v).unwrap_or_default();
            let k = self.spill_reads.len();
            let value = self.spills.get(k).copied().unwrap_or_default();
            let x = self.access(
                seg,
                AccessKind::Read,
                &Lc::constant(Fr::from(addr)),
                None,
                Recipe::Source(Source::Spill(k as u32), value),
                None,
            );
            let bits = match self.ty(v) {
                Type::UInt(w) => *w,
                _ => UNBOUNDED,
            };
            self.spill_reads.push(v);
            self.env.insert(v, Wire::Num(Num::new(x, bits)));
        }
        Ok(())
    }

    /// A scalar's combination as it is stored: a `uN` normalized.
    fn stored(&mut self, v: ValueId) -> R<Lc> {
        Ok(match self.ty(v) {
            Type::UInt(_) => self.norm(v)?.lc,
            _ => self.num(v)?.lc,
        })
    }

    /// The address of element `index` of segment `seg`, or `None` (after making the block
    /// unsatisfiable) for a constant index out of bounds.
    fn address(&mut self, seg: u32, index: ValueId) -> R<Option<Lc>> {
        let s = &self.plan.segments[seg as usize];
        let (base, len) = (s.base, s.len);
        let idx = self.norm(index)?;
        if let Some(k) = idx.lc.as_constant() {
            if self.const_index(&k, len as usize).is_none() {
                self.cs.enforce_false();
                return Ok(None);
            }
        }
        Ok(Some(idx.lc.add_const(Fr::from(base))))
    }

    /// Writes every element of a wire to segment `seg` (an input array, a `make_array`).
    pub(super) fn write_all(&mut self, seg: u32, items: &[Wire]) -> R<()> {
        let s = &self.plan.segments[seg as usize];
        let (base, elem) = (s.base, s.elem.clone());
        for (k, item) in items.iter().enumerate() {
            let Wire::Num(x) = item else {
                return Err(self.err("a nested array in memory"));
            };
            let x = match elem {
                Type::UInt(w) => self.normalize(x, w).lc,
                _ => x.lc.clone(),
            };
            let addr = Lc::constant(Fr::from(base + k as u64));
            self.access(seg, AccessKind::Write, &addr, Some(&x), NO_READ, None);
        }
        Ok(())
    }

    /// Lowers an instruction that reads, writes or passes an array living in memory; `None`
    /// when the instruction does not touch memory.
    pub(super) fn lower_memory(
        &mut self,
        kind: &InstKind,
        results: &[ValueId],
        access: Option<&Access>,
    ) -> R<Option<Vec<Wire>>> {
        // The access this instruction took (`take_access`), by its index in the execution's.
        let read = Recipe::Source(
            Source::Access(self.next_access.saturating_sub(1) as u32),
            access.map(|a| scalar(&a.read)).unwrap_or_default(),
        );
        match kind {
            InstKind::ArrayGet { array, index } => {
                let Some(seg) = self.plan.segment_of(*array) else {
                    return Ok(None);
                };
                let bits = match &self.plan.segments[seg as usize].elem {
                    Type::UInt(w) => *w,
                    _ => UNBOUNDED,
                };
                let Some(addr) = self.address(seg, *index)? else {
                    return Ok(Some(vec![Wire::Num(Num::from_u64(0))]));
                };
                let v = self.access(seg, AccessKind::Read, &addr, None, read, None);
                Ok(Some(vec![Wire::Num(Num::new(v, bits))]))
            }
            InstKind::ArraySet {
                array,
                index,
                value,
            } => {
                let Some(seg) = self.plan.segment_of(*array) else {
                    return Ok(None);
                };
                let Some(addr) = self.address(seg, *index)? else {
                    return Ok(Some(vec![]));
                };
                let x = self.stored(*value)?;
                match self.plan.guarded.get(&results[0]).copied() {
                    None => {
                        self.access(seg, AccessKind::Write, &addr, Some(&x), read, None);
                    }
                    Some((guard, polarity)) => {
                        let g = self.num(guard)?.lc;
                        let g = if polarity { g } else { Lc::from_u64(1).sub(&g) };
                        // value = old + g·(x − old), old the element before (from the trace).
                        let old = Lc::var(self.cs.witness(read));
                        let chosen =
                            self.cs
                                .select(&g, &Num::new(x, UNBOUNDED), &Num::new(old, UNBOUNDED));
                        self.access(
                            seg,
                            AccessKind::Guarded,
                            &addr,
                            Some(&chosen.lc),
                            read,
                            Some(&g),
                        );
                    }
                }
                Ok(Some(vec![]))
            }
            InstKind::MakeArray { elems, .. } => {
                let Some(seg) = self.plan.segment_of(results[0]) else {
                    return Ok(None);
                };
                if !self.plan.init_arrays.contains(&results[0]) {
                    let items = elems.iter().map(|e| self.get(*e)).collect::<R<Vec<_>>>()?;
                    self.write_all(seg, &items)?;
                }
                Ok(Some(vec![]))
            }
            InstKind::Select { .. } if self.plan.in_memory(results[0]) => Ok(Some(vec![])),
            _ => Ok(None),
        }
    }
}
