//! The [`Emitter`] of one merge: predicated copies of a region's blocks into the head, in
//! reverse post-order, with their guards, the combining of the edges into each block (`select`
//! joins), loops unrolled iteration by iteration, and the guarding of everything that can fail
//! (step 4 of the algorithm in [`super`]) or has an effect: a copied `log` or `hint` gets its
//! path's guard (`log "..", v1 if g`, `hint f1(v1) if g`), so it prints or runs only when the
//! original would have.
//!
//! Folding makes constants without making values: a folded `uN` result below 2^27 is a
//! *virtual* constant, a [`ValueId`] with the top bit set that encodes its width and value (see
//! [`values::virtual_const`]). Unrolling a loop folds its counter in every iteration, and nothing
//! but the next iteration reads it, so a loop of a million iterations made a million values
//! nobody used. A virtual constant becomes a value of the function ([`Emitter::materialize`])
//! only when something that stays reads it: an emitted instruction, or the merged block's
//! terminator and renaming (in [`super`]).
//!
//! This file walks the region: blocks in order, edges combined at their targets, loops
//! unrolled. [`values`] holds the constants and folding, [`copy`] one instruction's guarded copy.

mod copy;
mod values;

use super::MergeError;
use crate::analysis::{LoopForest, LoopId};
use crate::fxhash::{FxMap, FxSet};
use crate::ir::interp::Val;
use crate::ir::{BlockCall, BlockId, Const, Function, InstId, SrcLoc, Terminator, Type, ValueId};
use values::Env;

/// The hash of a sequence of values ([`Emitter::const_array_copies`]' key).
fn operands_hash(values: impl Iterator<Item = ValueId>) -> u64 {
    use std::hash::Hasher;
    let mut h = crate::fxhash::FxHasher::default();
    for v in values {
        h.write_u32(v.0);
    }
    h.finish()
}

/// How many instructions a merge may visit per instruction it may emit: unrolling folds most
/// of what it visits where a loop's counter feeds the body (`n_choose_k`'s `2 ** (32 - j - 1)`
/// over the bits of a constant: about 130 instructions visited per iteration, none emitted),
/// and the clean-up after a merge pays for what is emitted, not for what was folded. A loop
/// that folds nothing visits about three instructions per one it emits (its test, its counter,
/// the block), so at eight times the emitted ones reach `--max-unrolled` first and the error
/// names the flag that would raise it.
pub(super) const VISITS_PER_EMITTED: usize = 8;

/// An edge being merged into its target: taken when `guard` is 1, with these arguments.
#[derive(Clone, Debug)]
pub(super) struct Edge {
    pub(super) guard: ValueId,
    pub(super) args: Vec<ValueId>,
    /// For an edge leaving a loop being unrolled: the copies, at the time the edge is taken, of
    /// the loop's values used after the loop (`(original, copy)`). They are combined like
    /// arguments at the target, since later iterations rename the originals again.
    pub(super) live: Vec<(ValueId, ValueId)>,
}

/// The state of one merge: copies of instructions in order, the renaming of old values to
/// their copies (the current iteration's, in a loop), and the edges waiting for their targets.
pub(super) struct Emitter<'a> {
    pub(super) func: &'a mut Function,
    loops: &'a LoopForest,
    rpo_pos: FxMap<BlockId, usize>,
    pub(super) env: Env,
    pub(super) out: Vec<InstId>,
    pub(super) pending: FxMap<BlockId, Vec<Edge>>,
    /// Back edges of the loops being unrolled, by header.
    back_edges: FxMap<BlockId, Vec<Edge>>,
    /// Loops being unrolled, outermost first.
    unrolling: Vec<LoopId>,
    /// [`Emitter::escaping`], by loop.
    escaping: FxMap<LoopId, Vec<ValueId>>,
    /// `v = p and c` (`true`) or `v = p and not c` (`false`), by `v`.
    splits: FxMap<ValueId, (ValueId, ValueId, bool)>,
    nots: FxMap<ValueId, ValueId>,
    ands: FxMap<(ValueId, ValueId), ValueId>,
    /// `return` edges (monolithic only).
    pub(super) returns: Vec<Edge>,
    collect_returns: bool,
    /// Instructions this merge may still visit (copied or folded): [`VISITS_PER_EMITTED`]
    /// times `limit`.
    budget: usize,
    /// Instructions this merge may emit (`--max-unrolled`).
    limit: usize,
    /// The array results of instructions whose operands were all constants, by the copy's
    /// result: the copy is emitted (an array is no virtual constant) but what reads it with
    /// constant operands folds (`to_bits` of an unrolled counter, then `array_get` of a bit:
    /// the copy is left dead for the clean-up).
    const_arrays: FxMap<ValueId, Val>,
    /// The result of the copies of `make_array`s of constants, by the instruction copied and
    /// a hash of its operands ([`operands_hash`]), with those operands:
    /// copied again with the same operands (the next iteration of an unrolled loop whose body
    /// `remat` gave its own table of constants), the first copy is used, which precedes it in
    /// the merged block. Without this, a Poseidon round's 340-constant table was copied once
    /// per unrolled iteration (`poseidon_merkle32 --monolithic`: 460 MB instead of 52). Nearly
    /// every such copy finds the first (`voting_tally --monolithic`: 393,847 of 393,890, 20
    /// operands each), so a copy looks here before the instruction is cloned: one pass over
    /// its operands, mapped, to hash and one to compare, without an allocation.
    const_array_copies: FxMap<(InstId, u64), (Vec<ValueId>, ValueId)>,
    /// The same copies, by the instruction alone, of the `make_array`s whose operands are all
    /// constants of the function (which no copy maps: every copy of the instruction has the
    /// same operands), found without a pass over the operands.
    invariant_array_copies: FxMap<InstId, ValueId>,
    true_value: Option<ValueId>,
    /// The constants this merge made, by a 64-bit hash of their type and value: folding an
    /// unrolled loop's counter and tests makes the same few constants in every iteration, and
    /// each is one value. The counter makes a new one every iteration, so an entry is kept to
    /// 12 bytes (keyed by `(Type, Const)`, 56): the value itself holds the type and constant.
    consts: FxMap<u64, ValueId>,
    /// The constants whose hash collided with another's in [`Emitter::consts`], by type and
    /// value (hardly ever any).
    collided: FxMap<(Type, Const), ValueId>,
    /// How many constants this merge made (each a new value).
    pub(super) consts_made: usize,
    /// The location of the instructions the merge makes itself (guards, `select`s joining
    /// edges, guarded operands): the instruction being copied, or the terminator of the block
    /// just copied, whose edges the next block joins. So that a profile (`zkbc profile`)
    /// attributes predication to the source line that branched.
    loc: Option<SrcLoc>,
}

impl<'a> Emitter<'a> {
    pub(super) fn new(
        func: &'a mut Function,
        loops: &'a LoopForest,
        rpo: &[BlockId],
        limit: usize,
        collect_returns: bool,
    ) -> Emitter<'a> {
        Emitter {
            func,
            loops,
            rpo_pos: rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect(),
            env: Env::default(),
            out: Vec::new(),
            pending: FxMap::default(),
            back_edges: FxMap::default(),
            unrolling: Vec::new(),
            escaping: FxMap::default(),
            splits: FxMap::default(),
            nots: FxMap::default(),
            ands: FxMap::default(),
            returns: Vec::new(),
            collect_returns,
            budget: limit.saturating_mul(VISITS_PER_EMITTED),
            limit,
            const_arrays: FxMap::default(),
            const_array_copies: FxMap::default(),
            invariant_array_copies: FxMap::default(),
            true_value: None,
            consts: FxMap::default(),
            collided: FxMap::default(),
            consts_made: 0,
            loc: None,
        }
    }

    fn err_unsupported(&self, reason: &str) -> MergeError {
        MergeError::Unsupported {
            func: self.func.name.clone(),
            reason: reason.to_string(),
        }
    }

    /// Visits `n` more instructions, and fails when the merge has emitted more than `limit`
    /// or visited more than [`VISITS_PER_EMITTED`] times that.
    fn spend(&mut self, n: usize) -> Result<(), MergeError> {
        let too_large = |visits| MergeError::TooLarge {
            func: self.func.name.clone(),
            limit: self.limit,
            visits,
        };
        if self.out.len() > self.limit {
            return Err(too_large(false));
        }
        self.budget = self.budget.checked_sub(n).ok_or_else(|| too_large(true))?;
        Ok(())
    }

    pub(super) fn map(&self, v: ValueId) -> ValueId {
        self.env.get(&v).copied().unwrap_or(v)
    }

    /// The copy of a `make_array` of constants made before with the same operands (mapped),
    /// if any ([`Emitter::const_array_copies`]).
    fn const_array_copy(&self, inst: InstId, elems: &[ValueId]) -> Option<ValueId> {
        if let Some(&copy) = self.invariant_array_copies.get(&inst) {
            debug_assert!(elems.iter().all(|&v| self.map(v) == v));
            return Some(copy);
        }
        let &(ref seen, copy) = self
            .const_array_copies
            .get(&(inst, operands_hash(elems.iter().map(|&v| self.map(v)))))?;
        let same =
            seen.len() == elems.len() && seen.iter().zip(elems).all(|(&s, &v)| s == self.map(v));
        same.then_some(copy)
    }

    pub(super) fn true_value(&mut self) -> ValueId {
        match self.true_value {
            Some(v) => v,
            None => {
                let v = self.func.const_bool(true);
                self.true_value = Some(v);
                v
            }
        }
    }

    /// The copies of the values an edge to `dest` carries out of the loops being unrolled that
    /// `dest` is outside of (see [`Edge::live`]).
    fn live_out(&mut self, dest: BlockId) -> Vec<(ValueId, ValueId)> {
        let mut live = Vec::new();
        for l in self.unrolling.clone() {
            if self.loops.get(l).blocks.contains(&dest) {
                continue;
            }
            for v in self.escaping(l) {
                if let Some(&c) = self.env.get(&v) {
                    live.push((v, c));
                }
            }
        }
        live
    }

    /// Values defined in loop `l` (block parameters and results of its blocks) that blocks
    /// outside `l` use. Found for every loop in one walk over the function, the first time
    /// any loop is asked (one walk per loop was quadratic in a program of many loops): a use in
    /// block `b` of a value defined in block `d` escapes every loop around `d` that does not
    /// hold `b`, innermost first, up to the first that does (which its parents hold too).
    ///
    /// The first loop asked is answered by a walk of its own (a merge that unrolls one loop
    /// pays one walk, as before); the second asks for every loop at once.
    fn escaping(&mut self, l: LoopId) -> Vec<ValueId> {
        if let Some(vs) = self.escaping.get(&l) {
            return vs.clone();
        }
        if self.escaping.is_empty() {
            let vs = self.escaping_from(l);
            self.escaping.insert(l, vs.clone());
            return vs;
        }
        self.find_escaping();
        self.escaping.get(&l).cloned().unwrap_or_default()
    }

    /// The values defined in loop `l` that blocks outside it use, by one walk.
    fn escaping_from(&self, l: LoopId) -> Vec<ValueId> {
        let blocks: FxSet<BlockId> = self.loops.get(l).blocks.iter().copied().collect();
        let mut defined = FxSet::default();
        for &b in &blocks {
            let data = self.func.block(b);
            defined.extend(data.params.iter().copied());
            for &i in &data.insts {
                defined.extend(self.func.inst(i).results.iter().copied());
            }
        }
        let mut used = Vec::new();
        for &b in &self.func.layout {
            if blocks.contains(&b) {
                continue;
            }
            let data = self.func.block(b);
            for &i in &data.insts {
                self.func.inst(i).kind.for_each_operand(|v| used.push(v));
            }
            if let Some(t) = &data.term {
                used.extend(t.operands());
            }
        }
        let mut out: Vec<ValueId> = used.into_iter().filter(|v| defined.contains(v)).collect();
        out.sort();
        out.dedup();
        out
    }

    fn find_escaping(&mut self) {
        let func: &Function = self.func;
        let loops = self.loops;
        let mut def_block: FxMap<ValueId, BlockId> = FxMap::default();
        for &b in &func.layout {
            if loops.innermost(b).is_none() {
                continue;
            }
            let data = func.block(b);
            for &p in &data.params {
                def_block.insert(p, b);
            }
            for &i in &data.insts {
                for &r in &func.inst(i).results {
                    def_block.insert(r, b);
                }
            }
        }
        let mut out: FxMap<LoopId, Vec<ValueId>> = loops.ids().map(|l| (l, Vec::new())).collect();
        let note = |v: ValueId, b: BlockId, out: &mut FxMap<LoopId, Vec<ValueId>>| {
            let Some(&d) = def_block.get(&v) else {
                return;
            };
            let mut cur = loops.innermost(d);
            while let Some(l) = cur {
                if loops.contains(l, b) {
                    break;
                }
                out.entry(l).or_default().push(v);
                cur = loops.get(l).parent;
            }
        };
        for &b in &func.layout {
            let data = func.block(b);
            for &i in &data.insts {
                func.inst(i).kind.for_each_operand(|v| note(v, b, &mut out));
            }
            if let Some(t) = &data.term {
                for v in t.operands() {
                    note(v, b, &mut out);
                }
            }
        }
        for vs in out.values_mut() {
            vs.sort();
            vs.dedup();
        }
        self.escaping = out;
    }

    /// [`Emitter::combine`], also combining the edges' [`Edge::live`] copies and renaming each
    /// original to its combined copy.
    pub(super) fn combine_live(&mut self, edges: Vec<Edge>) -> (ValueId, Vec<ValueId>) {
        let mut keys: Vec<ValueId> = edges
            .iter()
            .flat_map(|e| e.live.iter().map(|(v, _)| *v))
            .collect();
        keys.sort();
        keys.dedup();
        if keys.is_empty() {
            return self.combine(edges);
        }
        let n = edges[0].args.len();
        let extended: Vec<Edge> = edges
            .into_iter()
            .map(|e| {
                let mut args = e.args;
                for k in &keys {
                    // An edge that does not carry `k` comes from where `k` is not live (its
                    // uses are dominated by the loop): any copy will do there.
                    let c = e
                        .live
                        .iter()
                        .find(|(v, _)| v == k)
                        .map(|(_, c)| *c)
                        .or_else(|| self.env.get(k).copied())
                        .unwrap_or(*k);
                    args.push(c);
                }
                Edge {
                    guard: e.guard,
                    args,
                    live: Vec::new(),
                }
            })
            .collect();
        let (guard, mut args) = self.combine(extended);
        let extra = args.split_off(n);
        for (k, c) in keys.into_iter().zip(extra) {
            self.env.insert(k, c);
        }
        (guard, args)
    }

    /// One guard and one argument list for the (mutually exclusive) edges into a block.
    pub(super) fn combine(&mut self, mut edges: Vec<Edge>) -> (ValueId, Vec<ValueId>) {
        if let Some(e) = edges
            .iter()
            .find(|e| self.bool_const(e.guard) == Some(true))
        {
            return (e.guard, e.args.clone());
        }
        'pairs: loop {
            for i in 0..edges.len() {
                for j in 0..edges.len() {
                    let (Some(&(p, c, true)), Some(&(q, d, false))) = (
                        self.splits.get(&edges[i].guard),
                        self.splits.get(&edges[j].guard),
                    ) else {
                        continue;
                    };
                    if i == j || p != q || c != d {
                        continue;
                    }
                    let (then_edge, else_edge) = (edges[i].clone(), edges[j].clone());
                    let args = then_edge
                        .args
                        .iter()
                        .zip(&else_edge.args)
                        .map(|(a, b)| self.select(c, *a, *b))
                        .collect();
                    edges.remove(i.max(j));
                    edges.remove(i.min(j));
                    edges.push(Edge {
                        guard: p,
                        args,
                        live: Vec::new(),
                    });
                    continue 'pairs;
                }
            }
            break;
        }
        let last = edges.pop().expect("bug: combining no edges");
        let mut guard = last.guard;
        let mut args = last.args;
        for e in edges.into_iter().rev() {
            guard = self.or(e.guard, guard);
            args = e
                .args
                .iter()
                .zip(&args)
                .map(|(a, b)| self.select(e.guard, *a, *b))
                .collect();
        }
        (guard, args)
    }

    /// The loop directly inside `scope` that contains `b`.
    fn child_loop(&self, scope: Option<LoopId>, b: BlockId) -> Option<LoopId> {
        let mut l = self.loops.innermost(b)?;
        loop {
            let parent = self.loops.get(l).parent;
            if parent == scope {
                return Some(l);
            }
            l = parent?;
        }
    }

    /// Copies the blocks of `region` (in reverse post-order) whose innermost loop is `scope`,
    /// unrolling the loops directly inside `scope` at their headers.
    pub(super) fn run_region(
        &mut self,
        region: &[BlockId],
        scope: Option<LoopId>,
    ) -> Result<(), MergeError> {
        for &b in region {
            if self.loops.innermost(b) == scope {
                self.copy_block(b)?;
                continue;
            }
            let l = self
                .child_loop(scope, b)
                .ok_or_else(|| self.err_unsupported("a block outside the component's loop"))?;
            if self.loops.get(l).header == b {
                self.unroll(l)?;
            }
        }
        Ok(())
    }

    fn unroll(&mut self, l: LoopId) -> Result<(), MergeError> {
        let header = self.loops.get(l).header;
        let Some(entry) = self.pending.remove(&header) else {
            return Ok(());
        };
        let mut blocks = self.loops.get(l).blocks.clone();
        blocks.sort_by_key(|b| self.rpo_pos.get(b).copied().unwrap_or(usize::MAX));
        let mut state = Some(self.combine_live(entry));
        while let Some((guard, args)) = state {
            self.spend(1)?;
            self.back_edges.insert(header, Vec::new());
            self.pending.insert(
                header,
                vec![Edge {
                    guard,
                    args,
                    live: Vec::new(),
                }],
            );
            self.unrolling.push(l);
            let result = self.run_region(&blocks, Some(l));
            self.unrolling.pop();
            let back = self.back_edges.remove(&header).unwrap_or_default();
            result?;
            state = (!back.is_empty()).then(|| self.combine(back));
        }
        Ok(())
    }

    fn copy_block(&mut self, b: BlockId) -> Result<(), MergeError> {
        let Some(edges) = self.pending.remove(&b) else {
            return Ok(());
        };
        let insts = self.func.block(b).insts.clone();
        self.spend(1 + insts.len())?;
        let (guard, args) = self.combine_live(edges);
        let params = self.func.block(b).params.clone();
        for (p, a) in params.iter().zip(args) {
            self.env.insert(*p, a);
        }
        for inst in insts {
            self.copy_inst(inst, guard)?;
        }
        self.loc = self.func.block(b).term_loc;
        let term = self
            .func
            .block(b)
            .term
            .clone()
            .expect("bug: verified IR has terminators");
        match term {
            Terminator::Jmp(dest) => self.edge(&dest, guard),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.map(cond);
                match self.bool_const(c) {
                    Some(true) => self.edge(&then_dest, guard),
                    Some(false) => self.edge(&else_dest, guard),
                    None => {
                        self.check_loop_test(b, &then_dest, &else_dest)?;
                        let g = self.edge_guard(guard, c, true);
                        self.edge(&then_dest, g);
                        let g = self.edge_guard(guard, c, false);
                        self.edge(&else_dest, g);
                    }
                }
            }
            Terminator::Return(values) => {
                if !self.collect_returns {
                    return Err(self.err_unsupported("a return inside the component"));
                }
                let args = values.iter().map(|v| self.map(*v)).collect();
                self.returns.push(Edge {
                    guard,
                    args,
                    live: Vec::new(),
                });
            }
        }
        Ok(())
    }

    /// A branch on a runtime value between staying in a loop being unrolled and leaving it, at
    /// the loop's header or back to it, is the loop's test: its bound is not constant.
    fn check_loop_test(
        &self,
        b: BlockId,
        then_dest: &BlockCall,
        else_dest: &BlockCall,
    ) -> Result<(), MergeError> {
        for &l in self.unrolling.iter().rev() {
            let lp = self.loops.get(l);
            let stays = |d: &BlockCall| lp.blocks.contains(&d.block);
            if stays(then_dest) == stays(else_dest) {
                continue;
            }
            let to_header = then_dest.block == lp.header || else_dest.block == lp.header;
            if b == lp.header || to_header {
                let loc = lp
                    .blocks
                    .iter()
                    .flat_map(|blk| self.func.block(*blk).insts.iter())
                    .find_map(|i| self.func.inst(*i).loc());
                return Err(MergeError::RuntimeLoopBound {
                    func: self.func.name.clone(),
                    header: lp.header,
                    loc,
                });
            }
        }
        Ok(())
    }

    fn edge(&mut self, dest: &BlockCall, guard: ValueId) {
        if self.bool_const(guard) == Some(false) {
            return;
        }
        let args = dest.args.iter().map(|v| self.map(*v)).collect();
        let live = self.live_out(dest.block);
        let edge = Edge { guard, args, live };
        match self.back_edges.get_mut(&dest.block) {
            Some(back) => back.push(edge),
            None => self.pending.entry(dest.block).or_default().push(edge),
        }
    }
}
