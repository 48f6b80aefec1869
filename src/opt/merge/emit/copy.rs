//! One instruction copied under its guard: emitting ([`Emitter::emit`]), the guards' boolean
//! algebra with its shortcuts (`not`, `and`, `or`, `select`, an edge's guard), and
//! [`Emitter::copy_inst`], which guards what can fail or has an effect (step 4 of the
//! algorithm in [`super::super`]).

use super::Emitter;
use crate::ir::interp::Val;
use crate::ir::{BinOp, Const, InstId, InstKind, SrcLoc, Type, ValueId};
use crate::opt::merge::MergeError;

impl<'a> Emitter<'a> {
    pub(super) fn emit(&mut self, mut kind: InstKind, loc: Option<SrcLoc>) -> InstId {
        kind.map_operands(|v| self.materialize(v));
        let inst = self.func.create_inst(kind, &[], loc);
        self.out.push(inst);
        inst
    }

    pub(super) fn emit_value(&mut self, kind: InstKind) -> ValueId {
        let inst = self.emit(kind, self.loc);
        self.func.inst(inst).results[0]
    }

    pub(super) fn not(&mut self, c: ValueId) -> ValueId {
        if let Some(b) = self.bool_const(c) {
            return self.constant(Type::UInt(1), Const::UInt(u64::from(!b)));
        }
        if let Some(&v) = self.nots.get(&c) {
            return v;
        }
        let v = self.emit_value(InstKind::Not { arg: c });
        self.nots.insert(c, v);
        v
    }

    pub(super) fn and(&mut self, a: ValueId, b: ValueId) -> ValueId {
        match (self.bool_const(a), self.bool_const(b)) {
            (Some(true), _) => return b,
            (_, Some(true)) => return a,
            (Some(false), _) => return a,
            (_, Some(false)) => return b,
            _ => {}
        }
        if let Some(&v) = self.ands.get(&(a, b)) {
            return v;
        }
        let v = self.emit_value(InstKind::Binary {
            op: BinOp::And,
            lhs: a,
            rhs: b,
        });
        self.ands.insert((a, b), v);
        v
    }

    pub(super) fn or(&mut self, a: ValueId, b: ValueId) -> ValueId {
        match (self.bool_const(a), self.bool_const(b)) {
            (Some(false), _) => b,
            (_, Some(false)) => a,
            (Some(true), _) => a,
            (_, Some(true)) => b,
            _ => self.emit_value(InstKind::Binary {
                op: BinOp::Or,
                lhs: a,
                rhs: b,
            }),
        }
    }

    pub(super) fn select(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        if a == b {
            return a;
        }
        if let (Some(x), Some(y)) = (self.const_value(a), self.const_value(b)) {
            if x == y {
                return a;
            }
        }
        match self.bool_const(c) {
            Some(true) => a,
            Some(false) => b,
            None => self.emit_value(InstKind::Select {
                cond: c,
                then_value: a,
                else_value: b,
            }),
        }
    }

    /// The guard of the edge taken from a block with guard `g` when `c` is `polarity`.
    pub(super) fn edge_guard(&mut self, g: ValueId, c: ValueId, polarity: bool) -> ValueId {
        let lit = if polarity { c } else { self.not(c) };
        let v = self.and(g, lit);
        self.splits.entry(v).or_insert((g, c, polarity));
        v
    }

    /// `select g, i, 0` for an index into `array`, unless `i` is a constant in bounds.
    pub(super) fn guard_index(
        &mut self,
        g: ValueId,
        array: ValueId,
        index: ValueId,
    ) -> Result<ValueId, MergeError> {
        let len = match self.func.value_type(array) {
            Type::Array(_, n) => u64::from(*n),
            _ => return Err(self.err_unsupported("indexing a non-array")),
        };
        if let Some(Const::UInt(i)) = self.const_value(index) {
            if i < len {
                return Ok(index);
            }
        }
        if len == 0 {
            return Err(self.err_unsupported("an empty array indexed on a guarded path"));
        }
        let ty = self.value_type(index).clone();
        let zero = self.zero(&ty);
        Ok(self.select(g, index, zero))
    }

    /// Copies `inst` into the merged block under guard `g`.
    pub(in crate::opt::merge) fn copy_inst(
        &mut self,
        inst: InstId,
        g: ValueId,
    ) -> Result<(), MergeError> {
        let data = self.func.inst(inst);
        // A table of constants copied before with the same operands: that copy (it cannot
        // fail, so its guard is no matter), found before the instruction is cloned.
        if let InstKind::MakeArray { elems, .. } = &data.kind {
            if let Some(copy) = self.const_array_copy(inst, elems) {
                let (old, loc) = (data.results[0], data.loc());
                self.loc = loc;
                self.env.insert(old, copy);
                return Ok(());
            }
        }
        let (loc, no_wrap) = (data.loc(), data.no_wrap());
        let old_results = data.results.clone();
        let mut kind = data.kind.clone();
        self.loc = loc;
        kind.map_operands(|v| self.map(v));
        // A table of constants: its copy is found by the next copy with the same operands.
        let const_copy = match &kind {
            InstKind::MakeArray { elems, .. }
                if elems
                    .iter()
                    .all(|v| self.is_const(*v) || self.const_arrays.contains_key(v)) =>
            {
                Some(elems.to_vec())
            }
            _ => None,
        };
        let vals = self.eval_const(&kind);
        if let Some(results) = vals.as_ref().and_then(|vals| self.fold(&old_results, vals)) {
            for (old, new) in old_results.iter().zip(results) {
                self.env.insert(*old, new);
            }
            return Ok(());
        }
        if let InstKind::Select {
            cond,
            then_value,
            else_value,
        } = kind
        {
            let v = self.select(cond, then_value, else_value);
            self.env.insert(old_results[0], v);
            return Ok(());
        }
        let guarded = self.bool_const(g) != Some(true);
        match &mut kind {
            InstKind::Assert { cond, .. } => {
                if self.bool_const(*cond) == Some(true) {
                    return Ok(());
                }
                if guarded {
                    let off = self.not(g);
                    *cond = self.or(off, *cond);
                }
            }
            InstKind::Binary { op, rhs, .. } if op.can_fail() && guarded => {
                let nonzero_const = match self.const_value(*rhs) {
                    Some(Const::UInt(x)) => x != 0,
                    Some(Const::Field(x)) => x != crate::field::Fr::from(0u64),
                    None => false,
                };
                if !nonzero_const {
                    let ty = self.value_type(*rhs).clone();
                    let one = self.one(&ty);
                    *rhs = self.select(g, *rhs, one);
                }
            }
            InstKind::Cast { arg, to } if guarded => {
                let from = self.value_type(*arg).clone();
                let can_fail = match (&from, &*to) {
                    (_, Type::Field) => false,
                    (Type::UInt(a), Type::UInt(b)) => a > b,
                    _ => true,
                };
                if can_fail {
                    let zero = self.zero(&from);
                    *arg = self.select(g, *arg, zero);
                }
            }
            // Under a false guard the bound checks 0, which always passes.
            InstKind::Bound { arg, .. } if guarded => {
                let zero = self.zero(&Type::Field);
                *arg = self.select(g, *arg, zero);
            }
            InstKind::ArrayGet { array, index } | InstKind::ArraySet { array, index, .. }
                if guarded =>
            {
                *index = self.guard_index(g, *array, *index)?;
            }
            InstKind::Load { .. } | InstKind::Store { .. } if guarded => {
                // A reference on an untaken path may be one no allocation made, which the
                // interpreter rejects; R1CS has no memory either, so such code stays in blocks.
                return Err(self.err_unsupported("memory access on a predicated path"));
            }
            // A log prints and a hint runs its function only on the paths that reach them: the
            // copy is guarded (and with the guard it already had, if any).
            InstKind::Log { guard, .. } | InstKind::Hint { guard, .. } if guarded => {
                *guard = Some(match *guard {
                    Some(h) => self.and(g, h),
                    None => g,
                });
            }
            // A call runs once per run of the merged block only where it is unguarded (a
            // component's head or tail); under a guard it would need a predicated call.
            InstKind::Call { .. } if guarded => {
                return Err(self.err_unsupported("a call on a predicated path"))
            }
            _ => {}
        }
        let new = match kind {
            // A call's result types are its callee's, which the function does not know.
            InstKind::Call { .. } => {
                let returns: Vec<Type> = old_results
                    .iter()
                    .map(|r| self.func.value_type(*r).clone())
                    .collect();
                let mut kind = kind;
                kind.map_operands(|v| self.materialize(v));
                let inst = self.func.create_inst(kind, &returns, loc);
                self.out.push(inst);
                inst
            }
            kind => self.emit(kind, loc),
        };
        // A `nuw` fact holds on the paths that reached the instruction; copied under a guard it
        // also runs on others, so only an unguarded copy keeps it.
        self.func.inst_mut(new).set_no_wrap(no_wrap && !guarded);
        let results = self.func.inst(new).results.clone();
        for (old, new) in old_results.iter().zip(results) {
            self.env.insert(*old, new);
        }
        // An array of constants: what reads it with constant operands folds.
        if let Some(vals) = vals {
            let results = self.func.inst(new).results.clone();
            for (r, val) in results.iter().zip(vals) {
                if matches!(val, Val::Array(_)) {
                    self.const_arrays.insert(*r, val);
                }
            }
            if let Some(elems) = const_copy {
                let invariant = match &self.func.inst(inst).kind {
                    InstKind::MakeArray { elems, .. } => elems
                        .iter()
                        .all(|&v| self.func.is_const(v) && self.env.get(&v).is_none()),
                    _ => false,
                };
                // A `make_array` has one result.
                if invariant {
                    self.invariant_array_copies.insert(inst, results[0]);
                } else {
                    let key = (inst, super::operands_hash(elems.iter().copied()));
                    self.const_array_copies.insert(key, (elems, results[0]));
                }
            }
        }
        Ok(())
    }
}
