//! The transition state of a block: which instance variables hold the labels and the leaves
//! of the input and output states ([`StateLayout`], [`ExitLayout`]), the wires of the input
//! state, and the output state the terminator builds.

use super::{Lowerer, Wire, R};
use crate::field::Fr;
use crate::ir::{BlockCall, BlockId, Terminator, Type, ValueId};
use crate::r1cs::gadgets::{Num, Pivot, UNBOUNDED};
use crate::r1cs::lc::Lc;
use crate::r1cs::live::FuncInfo;
use crate::r1cs::memory::AccessSlot;
use crate::r1cs::recipe::{Recipe, Source};
use crate::r1cs::LowerError;
use ark_ff::Zero;

/// The instance variable holding a block label: block `bN` is `N + 1`; 0 means "returned".
pub fn block_label(block: BlockId) -> Fr {
    Fr::from(u64::from(block.0) + 1)
}

/// The label of the output state of a block that returns.
pub fn return_label() -> Fr {
    Fr::zero()
}

/// Where each exit's values sit in a block's output state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitLayout {
    /// The target block, `None` for `return`.
    pub target: Option<BlockId>,
    /// Scalar leaves of the jump arguments (or returned values): the first of the output leaves.
    pub arg_leaves: usize,
    /// Which arguments live in memory (they are not part of the state).
    pub memory_args: Vec<bool>,
    /// The target's live-in values, whose leaves follow the arguments.
    pub live: Vec<ValueId>,
    /// Scalar leaves of those live-in values.
    pub live_leaves: usize,
}

/// The transition state of a block: which instance variables mean what.
///
/// Instance vector (after the constant 1):
/// `[in_label, in_leaves.., accesses.., out_label, out_leaves..]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateLayout {
    /// Scalar leaves of the block's parameters (flattened, arrays in index order; arrays
    /// living in memory have none).
    pub param_leaves: usize,
    /// Which parameters live in memory (not part of the state).
    pub memory_params: Vec<bool>,
    /// The block's memory accesses, in execution order.
    pub accesses: Vec<AccessSlot>,
    /// Instance variables of the accesses (between the input and the output state).
    pub access_vars: usize,
    /// The spilled scalars the block reads from memory, in order (their reads are accesses).
    pub spill_reads: Vec<ValueId>,
    /// The spilled scalars the block writes, with the index of the write among `accesses`.
    pub spill_writes: Vec<(usize, ValueId)>,
    /// The block's live-in values (see [`crate::r1cs`]): their leaves follow the parameters'.
    pub live_in: Vec<ValueId>,
    /// Scalar leaves of the live-in values.
    pub live_leaves: usize,
    /// Leaves of the output state after the label (the widest exit; shorter ones pad with 0).
    pub out_leaves: usize,
    /// One entry per exit (two for `br`, in text order).
    pub exits: Vec<ExitLayout>,
    /// Scalar leaves of the block's `hint` results: free witness variables whose values come
    /// from the interpreter's trace ([`crate::r1cs::BlockR1cs::assign_with_hints`]).
    pub hint_leaves: usize,
}

impl StateLayout {
    /// Leaves of the input state after the label.
    pub fn in_leaves(&self) -> usize {
        self.param_leaves + self.live_leaves
    }

    /// Index (in the instance vector, without the constant) of the output label.
    pub fn out_label_index(&self) -> usize {
        1 + self.in_leaves() + self.access_vars
    }

    /// Number of instance variables.
    pub fn width(&self) -> usize {
        2 + self.in_leaves() + self.access_vars + self.out_leaves
    }

    /// The transition state's width: labels and leaves, without the accesses.
    pub fn state_width(&self) -> usize {
        2 + self.in_leaves() + self.out_leaves
    }
}

/// Leaf types of a type, in flattening order: `Some(N)` for `uN`, `None` for field.
pub(crate) fn leaf_widths(ty: &Type, out: &mut Vec<Option<u32>>) -> Result<(), String> {
    match ty {
        Type::Field => out.push(None),
        Type::UInt(w) => out.push(Some(*w)),
        Type::Array(elem, n) => {
            for _ in 0..*n {
                leaf_widths(elem, out)?;
            }
        }
        Type::Ref(_) => return Err(format!("a value of reference type {ty}")),
    }
    Ok(())
}

impl<'a> Lowerer<'a> {
    /// The next input leaf as a recipe (with its value in witness mode).
    fn next_input(&mut self) -> R<Recipe<'static>> {
        let k = self.next_input as u32;
        let x = match self.inputs {
            None => {
                self.next_input += 1;
                Fr::zero()
            }
            Some(xs) => {
                let x = xs
                    .get(self.next_input)
                    .copied()
                    .ok_or_else(|| LowerError::BadState {
                        block: self.block,
                        message: format!("the input state has only {} leaves", xs.len()),
                    })?;
                self.next_input += 1;
                x
            }
        };
        Ok(Recipe::Source(Source::Input(k), x))
    }

    /// A wire of fresh instance variables for a value of type `ty`; range-checks `uN` leaves
    /// when `check` (main's inputs).
    pub(super) fn input_wire(&mut self, ty: &Type, check: bool) -> R<Wire> {
        Ok(match ty {
            Type::Field => {
                let x = self.next_input()?;
                Wire::Num(Num::new(Lc::var(self.cs.instance(x)), UNBOUNDED))
            }
            Type::UInt(w) => {
                let x = self.next_input()?;
                let x = Lc::var(self.cs.instance(x));
                if check {
                    let bits = self.cs.decompose(&x, *w, Pivot::Low);
                    Wire::Num(Num {
                        lc: x,
                        bits: *w,
                        bitvec: Some(bits.into()),
                        max: None,
                    })
                } else {
                    Wire::Num(Num::new(x, *w))
                }
            }
            Type::Array(elem, n) => Wire::Array(
                (0..*n)
                    .map(|_| self.input_wire(elem, check))
                    .collect::<R<Vec<_>>>()?,
            ),
            Type::Ref(_) => {
                return Err(self.err(format!("a block parameter of reference type {ty}")))
            }
        })
    }

    pub(super) fn count_leaves(&self, ty: &Type) -> R<usize> {
        let mut w = Vec::new();
        leaf_widths(ty, &mut w).map_err(|e| self.err(e))?;
        Ok(w.len())
    }

    /// Normalized scalar leaves of a value of type `ty`.
    fn leaves(&mut self, v: ValueId, out: &mut Vec<Lc>) -> R<()> {
        let ty = self.ty(v).clone();
        if let Type::UInt(_) = ty {
            out.push(self.norm(v)?.lc);
            return Ok(());
        }
        let w = self.get(v)?;
        let mut widths = Vec::new();
        leaf_widths(&ty, &mut widths).map_err(|e| self.err(e))?;
        let mut nums = Vec::new();
        flatten(&w, &mut nums);
        if nums.len() != widths.len() {
            return Err(self.err(format!("{v} does not have the shape of its type {ty}")));
        }
        for (x, wd) in nums.into_iter().zip(widths) {
            out.push(match wd {
                Some(n) => self.normalize(&x, n).lc,
                None => x.lc,
            });
        }
        Ok(())
    }

    fn exit_leaves(
        &mut self,
        call: Option<&BlockCall>,
        values: &[ValueId],
        info: &FuncInfo,
    ) -> R<(Vec<Lc>, ExitLayout)> {
        let mut leaves = Vec::new();
        let mut memory_args = Vec::with_capacity(values.len());
        for &v in values {
            let in_memory = self.plan.in_memory(v);
            memory_args.push(in_memory);
            if !in_memory {
                self.leaves(v, &mut leaves)?;
            }
        }
        let arg_leaves = leaves.len();
        let live = match call {
            Some(c) => info.live_in.get(&c.block).cloned().unwrap_or_default(),
            None => Vec::new(),
        };
        for &v in &live {
            self.leaves(v, &mut leaves)?;
        }
        let live_leaves = leaves.len() - arg_leaves;
        Ok((
            leaves,
            ExitLayout {
                target: call.map(|c| c.block),
                arg_leaves,
                memory_args,
                live,
                live_leaves,
            },
        ))
    }

    pub(super) fn lower_term(
        &mut self,
        term: &Terminator,
        info: &FuncInfo,
        param_leaves: usize,
        live_in: Vec<ValueId>,
        live_leaves: usize,
    ) -> R<StateLayout> {
        let (label, leaves, exits) = match term {
            Terminator::Return(values) => {
                let (leaves, exit) = self.exit_leaves(None, values, info)?;
                (Lc::constant(return_label()), leaves, vec![exit])
            }
            Terminator::Jmp(dest) => {
                let (leaves, exit) = self.exit_leaves(Some(dest), &dest.args, info)?;
                (Lc::constant(block_label(dest.block)), leaves, vec![exit])
            }
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.num(*cond)?.lc;
                let (t, te) = self.exit_leaves(Some(then_dest), &then_dest.args, info)?;
                let (e, ee) = self.exit_leaves(Some(else_dest), &else_dest.args, info)?;
                let width = t.len().max(e.len());
                let mut leaves = Vec::with_capacity(width);
                for j in 0..width {
                    let a = Num::new(t.get(j).cloned().unwrap_or_default(), UNBOUNDED);
                    let b = Num::new(e.get(j).cloned().unwrap_or_default(), UNBOUNDED);
                    leaves.push(self.cs.select(&c, &a, &b).lc);
                }
                let (lt, le) = (block_label(then_dest.block), block_label(else_dest.block));
                (c.scale(lt - le).add_const(le), leaves, vec![te, ee])
            }
        };
        let out_label = self.cs.instance(Recipe::Lin(&label));
        self.cs.enforce_eq(&Lc::var(out_label), &label);
        for leaf in &leaves {
            let o = self.cs.instance(Recipe::Lin(leaf));
            self.cs.enforce_eq(&Lc::var(o), leaf);
        }
        let accesses = std::mem::take(&mut self.mem_slots);
        let access_vars = accesses
            .iter()
            .map(|a| 2 + usize::from(a.rw.is_some()))
            .sum();
        Ok(StateLayout {
            hint_leaves: self.next_hint,
            param_leaves,
            memory_params: Vec::new(),
            accesses,
            access_vars,
            spill_reads: Vec::new(),
            spill_writes: Vec::new(),
            live_in,
            live_leaves,
            out_leaves: leaves.len(),
            exits,
        })
    }
}

fn flatten(w: &Wire, out: &mut Vec<Num>) {
    match w {
        Wire::Num(n) => out.push(n.clone()),
        Wire::Array(items) => items.iter().for_each(|i| flatten(i, out)),
    }
}
