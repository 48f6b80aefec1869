//! The values of a merge: *virtual* constants (a folded `uN` below 2^27 encoded in its
//! [`ValueId`], see [`virtual_const`]), the renaming [`Env`] of the region's values to their
//! copies, the constants a merge makes (once each, [`Emitter::constant`]) and the folding of a
//! copy whose operands are all constants ([`Emitter::eval_const`], [`Emitter::fold`]).

use super::Emitter;
use crate::fxhash::{hash64, FxMap};
use crate::ir::interp::{eval_pure_typed, Val};
use crate::ir::{Const, InstKind, Type, ValueId};

/// The top bit of a virtual constant's id (a function's own values are numbered below it).
const VIRTUAL: u32 = 1 << 31;
/// A virtual constant's value is its id's low 27 bits, the width's index in [`VIRTUAL_TYPES`]
/// the 3 bits above.
const VALUE_BITS: u32 = 27;
/// The types a virtual constant can have.
static VIRTUAL_TYPES: [Type; 5] = [
    Type::UInt(1),
    Type::UInt(8),
    Type::UInt(16),
    Type::UInt(32),
    Type::UInt(64),
];

/// The virtual constant `value` of type `ty`, when it has one (`uN`, `value < 2^27`).
pub(super) fn virtual_const(ty: &Type, value: u64) -> Option<ValueId> {
    let code = VIRTUAL_TYPES.iter().position(|t| t == ty)? as u32;
    let value = u32::try_from(value).ok().filter(|v| v >> VALUE_BITS == 0)?;
    Some(ValueId::new(
        (VIRTUAL | code << VALUE_BITS | value) as usize,
    ))
}

/// The type and value of a virtual constant; `None` for a value of the function.
pub(super) fn decode_virtual(v: ValueId) -> Option<(&'static Type, u64)> {
    let id = v.index() as u32;
    if id & VIRTUAL == 0 {
        return None;
    }
    let code = ((id & !VIRTUAL) >> VALUE_BITS) as usize;
    Some((
        &VIRTUAL_TYPES[code],
        u64::from(id & ((1 << VALUE_BITS) - 1)),
    ))
}

/// Each value of the region being copied and its copy: a table by value index (a merge maps
/// every operand of every instruction it copies, and hashing each was a fifth of unrolling's
/// time), with a map for ids outside it (a virtual constant, which is never a key in
/// practice).
#[derive(Debug, Default)]
pub(in crate::opt::merge) struct Env {
    dense: Vec<ValueId>,
    other: FxMap<ValueId, ValueId>,
}

/// An empty slot of [`Env::dense`] (no value of a function has this id: it is a virtual
/// constant's).
const NO_COPY: ValueId = ValueId(u32::MAX);

impl Env {
    pub(in crate::opt::merge) fn get(&self, v: &ValueId) -> Option<&ValueId> {
        if v.0 & VIRTUAL != 0 {
            return self.other.get(v);
        }
        self.dense.get(v.index()).filter(|c| **c != NO_COPY)
    }

    pub(in crate::opt::merge) fn insert(&mut self, v: ValueId, c: ValueId) {
        if v.0 & VIRTUAL != 0 {
            self.other.insert(v, c);
            return;
        }
        let i = v.index();
        if i >= self.dense.len() {
            self.dense
                .resize((i + 1).max(self.dense.len() * 2), NO_COPY);
        }
        self.dense[i] = c;
    }

    pub(in crate::opt::merge) fn contains_key(&self, v: &ValueId) -> bool {
        self.get(v).is_some()
    }
}

impl<'a> Emitter<'a> {
    /// The constant `value` of type `ty`, made once per merge.
    pub(super) fn constant(&mut self, ty: Type, value: Const) -> ValueId {
        let h = hash64(&(&ty, value));
        match self.consts.get(&h) {
            Some(&v)
                if self.func.value_type(v) == &ty && self.func.const_value(v) == Some(value) =>
            {
                v
            }
            Some(_) => {
                if let Some(&v) = self.collided.get(&(ty.clone(), value)) {
                    return v;
                }
                let v = self.func.make_const(ty.clone(), value);
                self.consts_made += 1;
                self.collided.insert((ty, value), v);
                v
            }
            None => {
                let v = self.func.make_const(ty, value);
                self.consts_made += 1;
                self.consts.insert(h, v);
                v
            }
        }
    }

    pub(super) fn bool_const(&self, v: ValueId) -> Option<bool> {
        match self.const_value(v) {
            Some(Const::UInt(x)) if self.value_type(v).is_bool() => Some(x != 0),
            _ => None,
        }
    }

    /// Whether `v` is a constant ([`Self::const_value`] without making the constant).
    pub(super) fn is_const(&self, v: ValueId) -> bool {
        decode_virtual(v).is_some() || self.func.is_const(v)
    }

    /// The constant `v` is, if it is one (a virtual constant or a constant of the function).
    pub(super) fn const_value(&self, v: ValueId) -> Option<Const> {
        match decode_virtual(v) {
            Some((_, x)) => Some(Const::UInt(x)),
            None => self.func.const_value(v),
        }
    }

    pub(super) fn value_type(&self, v: ValueId) -> &Type {
        match decode_virtual(v) {
            Some((ty, _)) => ty,
            None => self.func.value_type(v),
        }
    }

    /// `v` as a value of the function: a virtual constant is made a constant (once per merge).
    pub(in crate::opt::merge) fn materialize(&mut self, v: ValueId) -> ValueId {
        match decode_virtual(v) {
            Some((ty, x)) => self.constant(ty.clone(), Const::UInt(x)),
            None => v,
        }
    }

    /// [`Emitter::map`], materialized.
    pub(in crate::opt::merge) fn map_real(&mut self, v: ValueId) -> ValueId {
        let v = self.map(v);
        self.materialize(v)
    }

    pub(super) fn const_val(&self, v: ValueId) -> Option<Val> {
        match self.const_value(v) {
            Some(Const::Field(x)) => Some(Val::Field(x)),
            Some(Const::UInt(x)) => Some(Val::UInt(x)),
            None => self.const_arrays.get(&v).cloned(),
        }
    }

    /// The values of `kind`'s results when its operands are constants (scalars, or arrays in
    /// [`Emitter::const_arrays`]) and it succeeds.
    pub(super) fn eval_const(&self, kind: &InstKind) -> Option<Vec<Val>> {
        let mut all_const = true;
        kind.for_each_operand(|v| {
            all_const = all_const && (self.is_const(v) || self.const_arrays.contains_key(&v));
        });
        if !all_const {
            return None;
        }
        eval_pure_typed(kind, &|v| self.value_type(v), &mut |v| {
            // Every operand was checked above: the error (a string) is never made.
            self.const_val(v).ok_or_else(|| {
                crate::ir::interp::FailureKind::InvalidProgram("not a constant".into())
            })
        })?
        .ok()
    }

    /// The constant results of a copy of the instruction with results `results` (a copy's
    /// results have the original's types), as values, when they are all scalars
    /// ([`Self::eval_const`]).
    pub(super) fn fold(&mut self, results: &[ValueId], vals: &[Val]) -> Option<Vec<ValueId>> {
        let mut out = Vec::with_capacity(results.len());
        for (val, &r) in vals.iter().zip(results) {
            let ty = &self.func.value_type(r).clone();
            out.push(match val {
                Val::Field(x) => self.constant(ty.clone(), Const::Field(*x)),
                Val::UInt(x) => match virtual_const(ty, *x) {
                    Some(v) => v,
                    None => self.constant(ty.clone(), Const::UInt(*x)),
                },
                _ => return None,
            });
        }
        (out.len() == results.len()).then_some(out)
    }

    pub(super) fn zero(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Field => self.constant(Type::Field, Const::Field(crate::field::Fr::from(0u64))),
            Type::UInt(w) => self.constant(Type::UInt(*w), Const::UInt(0)),
            _ => unreachable!("bug: zero of a non-scalar"),
        }
    }

    pub(super) fn one(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Field => self.constant(Type::Field, Const::Field(crate::field::Fr::from(1u64))),
            Type::UInt(w) => self.constant(Type::UInt(*w), Const::UInt(1)),
            _ => unreachable!("bug: one of a non-scalar"),
        }
    }
}
