//! Dead code elimination: removes instructions whose results nobody needs and that have no side
//! effects ([`crate::ir::InstKind::has_side_effects`]), and block parameters nobody needs, with their jump
//! arguments.
//!
//! Algorithm (mark and sweep over SSA edges, so dead cycles through block parameters go too):
//! 1. Roots: the operands of every instruction with side effects (`assert`, `store`, `call`,
//!    anything that can fail), every `br` condition and every returned value. An `array_get` or
//!    `array_set` at a constant index inside the array's length cannot fail, so it is no root:
//!    the chains of writes that mem2reg and GVN leave behind once every read is forwarded go.
//! 2. Propagate: a needed instruction result needs the instruction's operands; a needed parameter
//!    of a (non-entry) block needs the matching argument of every jump into the block.
//! 3. Sweep: drop unneeded side-effect-free instructions and unneeded parameters of non-entry
//!    blocks (the entry's parameters are the function's signature).
//!
//! ```text
//! b0(v0: u32):                      b0(v0: u32):
//!     v1 = mul v0, v0                   jmp b1(u32 0)
//!     jmp b1(v1, u32 0)       ==>   b1(v3: u32):
//! b1(v2: u32, v3: u32):                 return v3
//!     v4 = add v2, u32 1
//!     return v3
//! ```

use super::util::{edge, incoming_edges, remove_params};
use super::PassStats;
use crate::ir::{Const, Function, InstId, InstKind, Program, Terminator, Type, ValueDef, ValueId};

/// Whether DCE must keep instruction `i` though nobody uses its results: it has side effects,
/// unless it is an array access at a constant index inside the array, which cannot fail.
fn has_effects(func: &Function, i: InstId) -> bool {
    let kind = &func.inst(i).kind;
    match kind {
        InstKind::ArrayGet { array, index } | InstKind::ArraySet { array, index, .. } => {
            let in_bounds = match (func.value_type(*array), func.const_value(*index)) {
                (Type::Array(_, n), Some(Const::UInt(k))) => k < u64::from(*n),
                _ => false,
            };
            !in_bounds
        }
        _ => kind.has_side_effects(),
    }
}

/// Runs DCE on every function of the program.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, |func| Ctx::new(func).run())
}

struct Ctx<'f> {
    func: &'f mut Function,
    /// Per value of the arena, whether it is live (dense: an unrolled loop is one function of
    /// a million values, where a hash set took most of the pass's time).
    live_values: Vec<bool>,
    /// Per instruction of the arena, whether it is live.
    live_insts: Vec<bool>,
    worklist: Vec<ValueId>,
}

impl<'f> Ctx<'f> {
    fn new(func: &'f mut Function) -> Self {
        Ctx {
            live_values: vec![false; func.values.len()],
            live_insts: vec![false; func.insts.len()],
            func,
            worklist: Vec::new(),
        }
    }

    fn need(&mut self, v: ValueId) {
        if !std::mem::replace(&mut self.live_values[v.index()], true) {
            self.worklist.push(v);
        }
    }

    fn need_inst(&mut self, i: InstId) {
        if !std::mem::replace(&mut self.live_insts[i.index()], true) {
            let kind = self.func.inst(i).kind.clone();
            kind.for_each_operand(|v| self.need(v));
        }
    }

    fn run(mut self) -> PassStats {
        let incoming = incoming_edges(self.func);
        for b in self.func.layout.clone() {
            for &i in &self.func.block(b).insts.clone() {
                if has_effects(self.func, i) {
                    self.need_inst(i);
                }
            }
            match self.func.block(b).term.clone() {
                Some(Terminator::Br { cond, .. }) => self.need(cond),
                Some(Terminator::Return(values)) => values.into_iter().for_each(|v| self.need(v)),
                _ => {}
            }
        }
        while let Some(v) = self.worklist.pop() {
            match self.func.value(v).def {
                ValueDef::Const(_) => {}
                ValueDef::Result(i, _) => self.need_inst(i),
                ValueDef::Param(b, idx) => {
                    for &(src, k) in incoming.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                        let arg = edge(self.func, src, k).args[idx as usize];
                        self.need(arg);
                    }
                }
            }
        }

        let mut stats = PassStats::default();
        for b in self.func.layout.clone() {
            let before = self.func.block(b).insts.len();
            let (func, live) = (&mut *self.func, &self.live_insts);
            let insts = std::mem::take(&mut func.block_mut(b).insts);
            let kept: Vec<InstId> = insts.into_iter().filter(|i| live[i.index()]).collect();
            stats.add("insts_removed", before - kept.len());
            func.block_mut(b).insts = kept;
            if b == self.func.entry {
                continue;
            }
            let keep: Vec<bool> = self
                .func
                .block(b)
                .params
                .iter()
                .map(|p| self.live_values[p.index()])
                .collect();
            if keep.iter().any(|k| !k) {
                stats.add("params_removed", keep.iter().filter(|k| !**k).count());
                remove_params(self.func, b, &keep, &incoming[&b]);
            }
        }
        stats
    }
}
