//! CFG simplification, repeated until nothing changes:
//! 1. Remove blocks the entry does not reach.
//! 2. A `br` on a constant becomes a `jmp` to the taken side; a `br` whose two sides are the same
//!    block with the same arguments becomes a `jmp`.
//! 3. Replace block parameters that every jump binds to one value (or to the parameter itself)
//!    by that value.
//! 4. Remove empty forwarding blocks: a non-entry block `B(params): jmp C(args)` with no
//!    instructions, whose parameters are used only by that jump, is bypassed: every jump
//!    `B(xs)` becomes `C(args[params := xs])`.
//! 5. Merge a block into its predecessor when the predecessor ends in `jmp` to it and it has no
//!    other predecessor: its parameters become the jump's arguments, its instructions and
//!    terminator move to the end of the predecessor, unless block formation split it there to
//!    pad to fewer cells ([`crate::ir::BlockData::split`]).
//!
//! ```text
//! b0(v0: u1):                       b0(v0: u1):
//!     br v0, b1(), b2()                 br v0, b3(u32 1), b3(u32 2)
//! b1():                             b3(v1: u32):
//!     jmp b3(u32 1)           ==>       v3 = add v1, u32 1
//! b2():                                 return v3
//!     jmp b3(u32 2)
//! b3(v1: u32):
//!     jmp b4()
//! b4():
//!     v3 = add v1, u32 1
//!     return v3
//! ```
//! (b1 and b2 are forwarding blocks, step 4; b4 merges into b3, step 5.)

use crate::fxhash::{HashMap, HashSet};

use super::util::{edge_mut, incoming_edges, remove_unreachable_blocks, replace_trivial_params};
use super::PassStats;
use crate::ir::{BlockCall, BlockId, Function, Program, Terminator, ValueId};

/// Runs CFG simplification on every function of the program.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, |func| Ctx { func }.run())
}

struct Ctx<'f> {
    func: &'f mut Function,
}

impl Ctx<'_> {
    fn run(mut self) -> PassStats {
        let mut stats = PassStats::default();
        loop {
            let mut round = PassStats::default();
            round.add("blocks_removed", remove_unreachable_blocks(self.func));
            round.add("branches_folded", self.fold_branches());
            round.add("params_replaced", replace_trivial_params(self.func));
            round.add("forwarders_removed", self.remove_forwarders());
            round.add("blocks_merged", self.merge_blocks());
            let changed = round.changed();
            stats.merge(round);
            if !changed {
                return stats;
            }
        }
    }

    fn fold_branches(&mut self) -> usize {
        let mut n = 0;
        for b in self.func.layout.clone() {
            let Some(Terminator::Br {
                cond,
                then_dest,
                else_dest,
            }) = &self.func.block(b).term
            else {
                continue;
            };
            let taken: Option<BlockCall> = match self.func.const_value(*cond) {
                Some(c) => Some(if c == crate::ir::Const::UInt(1) {
                    then_dest.clone()
                } else {
                    else_dest.clone()
                }),
                None if then_dest == else_dest => Some(then_dest.clone()),
                None => None,
            };
            if let Some(call) = taken {
                self.func.block_mut(b).term = Some(Terminator::Jmp(call));
                n += 1;
            }
        }
        n
    }

    /// Step 4. Returns the number of blocks bypassed.
    ///
    /// The use counts and incoming edges are taken once and kept up to date as each block is
    /// bypassed (its jump's arguments lose a use, each rewritten edge trades its arguments for
    /// the new ones and now enters the target), so the sweep is linear in the function, not
    /// quadratic (a recount per bypass was 5 s on a 700-line library module).
    fn remove_forwarders(&mut self) -> usize {
        // Counted when a block first needs them (a function of one block of a million
        // instructions, an unrolled loop, has no forwarder to look for).
        let mut uses: Option<HashMap<ValueId, usize>> = None;
        let mut incoming: Option<HashMap<BlockId, Vec<(BlockId, usize)>>> = None;
        let mut removed: HashSet<BlockId> = HashSet::default();
        for b in self.func.layout.clone() {
            if b == self.func.entry || !self.func.block(b).insts.is_empty() {
                continue;
            }
            let Some(Terminator::Jmp(target)) = self.func.block(b).term.clone() else {
                continue;
            };
            if target.block == b {
                continue;
            }
            let params = self.func.block(b).params.clone();
            // The parameters may only be used by this jump (they vanish with the block).
            let uses_in_jump = |p: &ValueId| target.args.iter().filter(|a| *a == p).count();
            let uses = uses.get_or_insert_with(|| self.func.use_counts());
            if params
                .iter()
                .any(|p| uses.get(p).copied().unwrap_or(0) != uses_in_jump(p))
            {
                continue;
            }
            let incoming = incoming.get_or_insert_with(|| incoming_edges(self.func));
            let edges: Vec<(BlockId, usize)> = incoming
                .get(&b)
                .map(|e| {
                    e.iter()
                        .copied()
                        .filter(|(src, _)| !removed.contains(src))
                        .collect()
                })
                .unwrap_or_default();
            if edges.is_empty() {
                continue;
            }
            for &(src, k) in &edges {
                let call = edge_mut(self.func, src, k);
                let subst: HashMap<ValueId, ValueId> = params
                    .iter()
                    .copied()
                    .zip(call.args.iter().copied())
                    .collect();
                let new = BlockCall {
                    block: target.block,
                    args: target
                        .args
                        .iter()
                        .map(|a| subst.get(a).copied().unwrap_or(*a))
                        .collect(),
                };
                for a in &call.args {
                    decrement(uses, *a);
                }
                for a in &new.args {
                    *uses.entry(*a).or_insert(0) += 1;
                }
                *call = new;
            }
            // `b`'s own jump is gone with it.
            for a in &target.args {
                decrement(uses, *a);
            }
            incoming.entry(target.block).or_default().extend(edges);
            removed.insert(b);
        }
        self.func.layout.retain(|x| !removed.contains(x));
        removed.len()
    }

    /// Step 5. Returns the number of blocks merged away.
    fn merge_blocks(&mut self) -> usize {
        // Merging B into P moves B's out-edges to P: every other block keeps its number of
        // predecessors, so the counts taken once stay valid through the sweep.
        let mut n_preds: HashMap<BlockId, usize> = HashMap::default();
        for &b in &self.func.layout {
            for s in self.func.successors(b) {
                *n_preds.entry(s).or_insert(0) += 1;
            }
        }
        let mut merged: HashSet<BlockId> = HashSet::default();
        let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
        for p in self.func.layout.clone() {
            if merged.contains(&p) {
                continue;
            }
            while let Some(Terminator::Jmp(call)) = self.func.block(p).term.clone() {
                let b = call.block;
                if b == p
                    || b == self.func.entry
                    || n_preds.get(&b) != Some(&1)
                    || self.func.block(b).split
                {
                    break;
                }
                let data = std::mem::take(self.func.block_mut(b));
                for (param, arg) in data.params.iter().zip(&call.args) {
                    subst.insert(*param, *arg);
                }
                let block = self.func.block_mut(p);
                block.insts.extend(data.insts);
                block.term = data.term;
                block.term_loc = data.term_loc;
                merged.insert(b);
            }
        }
        self.func.layout.retain(|b| !merged.contains(b));
        self.func.replace_uses(&subst);
        merged.len()
    }
}

/// One use fewer of `v` (a count that reaches zero is removed, as a recount would leave it
/// out).
fn decrement(uses: &mut HashMap<ValueId, usize>, v: ValueId) {
    if let Some(n) = uses.get_mut(&v) {
        *n -= 1;
        if *n == 0 {
            uses.remove(&v);
        }
    }
}
