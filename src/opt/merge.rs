//! Block merging (`seeds/merge-basic-blocks.md`; the design's "Passes / merge"): every merge
//! component smaller than the threshold becomes one block, so the prover pays for fewer,
//! fuller instances and fewer transition states.
//!
//! # Algorithm
//!
//! 1. **Sizes.** Lower every block to R1CS ([`crate::r1cs::stats`], rayon-parallel) and fix
//!    `THRESHOLD = max(MIN_BLOCK_SIZE, next_pow2(max_b cons_b))` once, from the blocks as they
//!    are before merging.
//! 2. **Components.** [`MergeComponents`] gives each head its tail (head dominates, tail
//!    post-dominates, same loop, no call, no early return). The size of a component is the
//!    seed's `count` recurrence ([`component_size`]): constraints of its blocks, each block
//!    weighted by the constant trip counts of the loops inside the component that contain it.
//!    A loop without a constant trip count makes the component unmergeable.
//! 3. **Choose.** Take the components smaller than the threshold, largest first, skipping any
//!    that shares a block with one already taken (an outer component includes its inner ones).
//! 4. **Merge** each chosen component into its head by *predicated execution* of its blocks in
//!    reverse post-order. Every block gets a guard (a `u1`: "control reaches this block") and
//!    its parameters from the edges into it:
//!    - the head's guard is `1`; a `jmp` passes its block's guard on; `br c` passes
//!      `g and c` and `g and not c`; constant conditions (after folding) pass `g` to one side;
//!    - a block's incoming edges are combined: two edges `p and c` / `p and not c` become one
//!      edge `p` whose arguments are `select c, then_arg, else_arg` (the join of an `if`); what
//!      is left is `or` of the guards with a `select` chain on the edge guards;
//!    - instructions are copied (constant-folded with the interpreter's own semantics), and
//!      everything that can fail is guarded so that it fails exactly when the original path
//!      would: `assert c` becomes `assert (not g) or c`, a divisor `b` becomes `select g, b, 1`,
//!      a checked cast's operand `x` becomes `select g, x, 0`, a dynamic index `i` becomes
//!      `select g, i, 0` (0 is in bounds of a non-empty array; an empty one is not merged);
//!      a `load` or `store` on a predicated path is not merged (memory is left by `-O0`
//!      only, and R1CS lowering has none);
//!    - a loop inside the component is **unrolled**: its header is entered with the combined
//!      entry edge, its blocks are copied once per iteration, the back edges give the next
//!      iteration's guard and parameters, and unrolling stops when no back edge is taken. A
//!      header branch whose condition does not fold to a constant is a runtime bound: the
//!      component is not merged ([`MergeError::RuntimeLoopBound`] under `--monolithic`);
//!    - the tail runs under the head's guard (it post-dominates the component), and the head
//!      takes the tail's terminator. Values of the component used after it are renamed.
//!
//!    The merged head is lowered again; if it came out at or above the threshold (the estimate
//!    was low), the merge is undone and that head is not tried again.
//! 5. Repeat from 2 until nothing merges. `--monolithic` ([`MergeOptions::monolithic`]) skips
//!    the threshold and merges the whole function, from the entry to its `return`s, into one
//!    block.
//!
//! # Example
//!
//! ```text
//! b0(v0: u32, v1: field):                 b0(v0: u32, v1: field):
//!     v2 = lt v0, u32 10                      v2 = lt v0, u32 10
//!     br v2, b1(), b2(field 0)                v3 = not v2          ; else-edge guard (dce)
//! b1():                           ==>         v4 = select v2, v1, field 1
//!     v3 = div field 1, v1                    v5 = div field 1, v4
//!     jmp b2(v3)                              v6 = select v2, v5, field 0
//! b2(v4: field):                              v7 = add v6, field 1
//!     v5 = add v4, field 1                    return v7
//!     return v5
//! ```
//!
//! The division in `b1` fails on `v1 = 0` only when `v0 < 10`, before and after; the join's
//! parameter is one `select` (`tests/merge_pass.rs` keeps this example). A counted loop
//! `for i in 0..3` becomes three copies of its body with `i` folded to 0, 1 and 2.

use super::PassStats;
use crate::analysis::components::component_size;
use crate::analysis::{Component, LoopForest, LoopId, MergeComponents};
use crate::ir::interp::{eval_pure, Val};
use crate::ir::{
    BinOp, BlockCall, BlockId, Const, Function, InstId, InstKind, Program, SrcLoc, Terminator,
    Type, ValueId,
};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// MIN_BLOCK_SIZE by default (CoBBl's code uses 32768).
pub const DEFAULT_MIN_BLOCK_SIZE: u64 = 1024;

/// The most instructions (plus copied blocks) merging may emit for one component or one
/// monolithic function, so that a huge loop cannot exhaust memory.
pub const DEFAULT_MAX_UNROLLED: usize = 1_000_000;

/// Most rounds of "find components, merge" per function.
const MAX_ROUNDS: usize = 64;

/// How to merge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeOptions {
    /// MIN_BLOCK_SIZE of the threshold.
    pub min_block_size: u64,
    /// Merge each function into one block, with no threshold.
    pub monolithic: bool,
    /// The most instructions one merge may emit ([`DEFAULT_MAX_UNROLLED`]).
    pub max_unrolled: usize,
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            min_block_size: DEFAULT_MIN_BLOCK_SIZE,
            monolithic: false,
            max_unrolled: DEFAULT_MAX_UNROLLED,
        }
    }
}

/// Why code could not be merged. With a threshold these only mean "leave this component
/// alone"; under `--monolithic` they are the user's error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// A loop's header tests a condition that is not a compile-time constant.
    RuntimeLoopBound {
        /// The function.
        func: String,
        /// The loop's header block.
        header: BlockId,
        /// A source location of an instruction in the loop, if the IR carries one.
        loc: Option<SrcLoc>,
    },
    /// Unrolling would emit more than this many instructions.
    TooLarge {
        /// The function.
        func: String,
        /// The limit.
        limit: usize,
    },
    /// Something merging does not handle (a call, an irreducible loop, an empty array indexed
    /// under a guard).
    Unsupported {
        /// The function.
        func: String,
        /// What.
        reason: String,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::RuntimeLoopBound { func, header, loc } => {
                write!(
                    f,
                    "cannot merge `{func}` into one block: the loop at {header}"
                )?;
                if let Some(loc) = loc {
                    write!(f, " (source line {loc})")?;
                }
                write!(
                    f,
                    " has a bound that is not a compile-time constant, so it cannot be unrolled \
                     (compile without --monolithic to prove it block by block)"
                )
            }
            MergeError::TooLarge { func, limit } => write!(
                f,
                "cannot merge `{func}` into one block: unrolling its loops would emit more than \
                 {limit} instructions"
            ),
            MergeError::Unsupported { func, reason } => {
                write!(f, "cannot merge `{func}` into one block: {reason}")
            }
        }
    }
}

impl std::error::Error for MergeError {}

/// The `merge` pass with default options (MIN_BLOCK_SIZE 1024).
pub fn run(program: &mut Program) -> PassStats {
    run_with(program, &MergeOptions::default())
        .expect("bug: merging with a threshold reports no error")
}

/// Merges with `options`: components below the threshold, or (`monolithic`) every function
/// into one block. Only `monolithic` returns errors.
pub fn run_with(program: &mut Program, options: &MergeOptions) -> Result<PassStats, MergeError> {
    if options.monolithic {
        let mut stats = PassStats::default();
        for f in program.func_ids().collect::<Vec<_>>() {
            let func = program.func_mut(f);
            let before = func.layout.len();
            if merge_function(func, options.max_unrolled)? {
                stats.add("blocks_merged", before - func.layout.len());
                stats.add("functions_merged", 1);
            }
        }
        return Ok(stats);
    }
    Ok(merge_below_threshold(program, options))
}

/// The threshold for `program`: `max(min_block_size, next_pow2(max constraints))`, or `None`
/// when some block cannot be lowered (calls or memory left).
pub fn threshold(program: &Program, min_block_size: u64) -> Option<u64> {
    let stats = crate::r1cs::stats(program).ok()?;
    let max = stats
        .iter()
        .map(|s| s.constraints as u64)
        .max()
        .unwrap_or(0);
    Some(min_block_size.max(max.checked_next_power_of_two()?))
}

fn merge_below_threshold(program: &mut Program, options: &MergeOptions) -> PassStats {
    let mut stats = PassStats::default();
    let Some(threshold) = threshold(program, options.min_block_size) else {
        return stats;
    };
    // Below the threshold a component emits few instructions (many are free in R1CS, so allow
    // some slack); a failed attempt costs at most this.
    let budget = options
        .max_unrolled
        .min(usize::try_from(threshold.saturating_mul(16)).unwrap_or(usize::MAX));
    for f in program.func_ids().collect::<Vec<_>>() {
        let mut skip: HashSet<BlockId> = HashSet::new();
        for _ in 0..MAX_ROUNDS {
            let Ok(block_stats) = crate::r1cs::stats(program) else {
                return stats;
            };
            let cons: HashMap<BlockId, u64> = block_stats
                .iter()
                .filter(|s| s.func == f)
                .map(|s| (s.block, s.constraints as u64))
                .collect();
            let func = program.func(f);
            let loops = LoopForest::new(func);
            if !loops.is_reducible() {
                break;
            }
            let comps = MergeComponents::new(func);
            let mut eligible: Vec<(u64, Component)> = func
                .layout
                .iter()
                .filter(|h| !skip.contains(h))
                .filter_map(|&h| comps.component(h))
                .filter_map(|c| match component_size(func, c, &loops, &cons) {
                    Some(size) => (size < threshold).then(|| (size, c.clone())),
                    // A loop whose trip count the shape test does not see (an inner bound
                    // depending on an outer counter): unrolling decides, under a budget.
                    None => Some((threshold, c.clone())),
                })
                .collect();
            eligible.sort_by_key(|(size, c)| (std::cmp::Reverse(c.blocks.len()), *size));
            let mut taken: HashSet<BlockId> = HashSet::new();
            let mut chosen = Vec::new();
            for (_, c) in eligible {
                if c.blocks.iter().all(|b| !taken.contains(b)) {
                    taken.extend(c.blocks.iter().copied());
                    chosen.push(c);
                }
            }
            if chosen.is_empty() {
                break;
            }
            let mut merged_any = false;
            for comp in chosen {
                let saved = program.func(f).clone();
                let before = saved.layout.len();
                let ok = merge_component(program.func_mut(f), &comp, budget).is_ok()
                    && crate::r1cs::lower_block(program, f, comp.head)
                        .is_ok_and(|b| (b.n_constraints() as u64) < threshold);
                if ok {
                    merged_any = true;
                    stats.add("components_merged", 1);
                    stats.add("blocks_merged", before - program.func(f).layout.len());
                } else {
                    *program.func_mut(f) = saved;
                    skip.insert(comp.head);
                }
            }
            if !merged_any && skip.is_empty() {
                break;
            }
        }
    }
    stats
}

/// Merges component `comp` of `func` into its head.
pub fn merge_component(
    func: &mut Function,
    comp: &Component,
    max_unrolled: usize,
) -> Result<(), MergeError> {
    let head = comp.head;
    let tail = comp.tail;
    let unsupported = |func: &Function, reason: &str| MergeError::Unsupported {
        func: func.name.clone(),
        reason: reason.to_string(),
    };
    let inside: HashSet<BlockId> = comp.blocks.iter().copied().filter(|b| *b != tail).collect();
    if inside.iter().any(|b| func.successors(*b).contains(&head)) {
        return Err(unsupported(func, "the component's head is a loop header"));
    }
    let loops = LoopForest::new(func);
    if !loops.is_reducible() {
        return Err(unsupported(func, "irreducible control flow"));
    }
    let rpo = func.reverse_post_order();
    let region: Vec<BlockId> = rpo.iter().copied().filter(|b| inside.contains(b)).collect();
    let head_params = func.block(head).params.clone();
    let mut em = Emitter::new(func, &loops, &rpo, max_unrolled, false);
    let start = em.true_value();
    em.pending.insert(
        head,
        vec![Edge {
            guard: start,
            args: head_params.clone(),
            live: Vec::new(),
        }],
    );
    em.run_region(&region, loops.innermost(head))?;
    let edges = em
        .pending
        .remove(&tail)
        .ok_or_else(|| unsupported(em.func, "the tail is not reached"))?;
    let (_, args) = em.combine(edges);
    let tail_params = em.func.block(tail).params.clone();
    for (p, a) in tail_params.iter().zip(args) {
        em.env.insert(*p, a);
    }
    let guard = em.true_value();
    for inst in em.func.block(tail).insts.clone() {
        em.copy_inst(inst, guard)?;
    }
    let mut term = em
        .func
        .block(tail)
        .term
        .clone()
        .expect("bug: verified IR has terminators");
    term.map_operands(|v| em.map(v));
    let Emitter { out, env, .. } = em;
    // Every value defined in the component (but the head's parameters) is renamed to its copy.
    let mut subst: HashMap<ValueId, ValueId> = HashMap::new();
    for &b in comp.blocks.iter() {
        let block = func.block(b);
        let params = if b == head {
            &[][..]
        } else {
            &block.params[..]
        };
        let results = block
            .insts
            .iter()
            .flat_map(|i| func.inst(*i).results.iter());
        for v in params.iter().chain(results) {
            if let Some(&n) = env.get(v) {
                if n != *v {
                    subst.insert(*v, n);
                }
            }
        }
    }
    let data = func.block_mut(head);
    data.insts = out;
    data.term = Some(term);
    func.layout
        .retain(|b| *b == head || !comp.blocks.contains(b));
    func.replace_uses(&subst);
    Ok(())
}

/// Merges all of `func` into its entry block (`--monolithic`). Returns whether it changed.
pub fn merge_function(func: &mut Function, max_unrolled: usize) -> Result<bool, MergeError> {
    if func.layout.len() <= 1 {
        return Ok(false);
    }
    let unsupported = |func: &Function, reason: &str| MergeError::Unsupported {
        func: func.name.clone(),
        reason: reason.to_string(),
    };
    if func.has_calls() {
        return Err(unsupported(
            func,
            "it calls other functions (inline them first, -O1 or higher)",
        ));
    }
    let loops = LoopForest::new(func);
    if !loops.is_reducible() {
        return Err(unsupported(func, "irreducible control flow"));
    }
    let rpo = func.reverse_post_order();
    let entry = func.entry;
    let params = func.block(entry).params.clone();
    let mut em = Emitter::new(func, &loops, &rpo, max_unrolled, true);
    let start = em.true_value();
    em.pending.insert(
        entry,
        vec![Edge {
            guard: start,
            args: params,
            live: Vec::new(),
        }],
    );
    em.run_region(&rpo, None)?;
    let returns = std::mem::take(&mut em.returns);
    if returns.is_empty() {
        return Err(unsupported(em.func, "no path reaches a return"));
    }
    let (_, values) = em.combine(returns);
    let out = std::mem::take(&mut em.out);
    let data = func.block_mut(entry);
    data.insts = out;
    data.term = Some(Terminator::Return(values));
    func.layout = vec![entry];
    Ok(true)
}

/// An edge being merged into its target: taken when `guard` is 1, with these arguments.
#[derive(Clone, Debug)]
struct Edge {
    guard: ValueId,
    args: Vec<ValueId>,
    /// For an edge leaving a loop being unrolled: the copies, at the time the edge is taken, of
    /// the loop's values used after the loop (`(original, copy)`). They are combined like
    /// arguments at the target, since later iterations rename the originals again.
    live: Vec<(ValueId, ValueId)>,
}

/// The state of one merge: copies of instructions in order, the renaming of old values to
/// their copies (the current iteration's, in a loop), and the edges waiting for their targets.
struct Emitter<'a> {
    func: &'a mut Function,
    loops: &'a LoopForest,
    rpo_pos: HashMap<BlockId, usize>,
    env: HashMap<ValueId, ValueId>,
    out: Vec<InstId>,
    pending: HashMap<BlockId, Vec<Edge>>,
    /// Back edges of the loops being unrolled, by header.
    back_edges: HashMap<BlockId, Vec<Edge>>,
    /// Loops being unrolled, outermost first.
    unrolling: Vec<LoopId>,
    /// [`Emitter::escaping`], by loop.
    escaping: HashMap<LoopId, Vec<ValueId>>,
    /// `v = p and c` (`true`) or `v = p and not c` (`false`), by `v`.
    splits: HashMap<ValueId, (ValueId, ValueId, bool)>,
    nots: HashMap<ValueId, ValueId>,
    ands: HashMap<(ValueId, ValueId), ValueId>,
    /// `return` edges (monolithic only).
    returns: Vec<Edge>,
    collect_returns: bool,
    budget: usize,
    limit: usize,
    true_value: Option<ValueId>,
}

impl<'a> Emitter<'a> {
    fn new(
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
            env: HashMap::new(),
            out: Vec::new(),
            pending: HashMap::new(),
            back_edges: HashMap::new(),
            unrolling: Vec::new(),
            escaping: HashMap::new(),
            splits: HashMap::new(),
            nots: HashMap::new(),
            ands: HashMap::new(),
            returns: Vec::new(),
            collect_returns,
            budget: limit,
            limit,
            true_value: None,
        }
    }

    fn err_unsupported(&self, reason: &str) -> MergeError {
        MergeError::Unsupported {
            func: self.func.name.clone(),
            reason: reason.to_string(),
        }
    }

    fn spend(&mut self, n: usize) -> Result<(), MergeError> {
        self.budget = self
            .budget
            .checked_sub(n)
            .ok_or_else(|| MergeError::TooLarge {
                func: self.func.name.clone(),
                limit: self.limit,
            })?;
        Ok(())
    }

    fn map(&self, v: ValueId) -> ValueId {
        self.env.get(&v).copied().unwrap_or(v)
    }

    fn true_value(&mut self) -> ValueId {
        match self.true_value {
            Some(v) => v,
            None => {
                let v = self.func.const_bool(true);
                self.true_value = Some(v);
                v
            }
        }
    }

    fn bool_const(&self, v: ValueId) -> Option<bool> {
        match self.func.const_value(v) {
            Some(Const::UInt(x)) if self.func.value_type(v).is_bool() => Some(x != 0),
            _ => None,
        }
    }

    fn emit(&mut self, kind: InstKind, loc: Option<SrcLoc>) -> InstId {
        let inst = self.func.create_inst(kind, &[], loc);
        self.out.push(inst);
        inst
    }

    fn emit_value(&mut self, kind: InstKind) -> ValueId {
        let inst = self.emit(kind, None);
        self.func.inst(inst).results[0]
    }

    fn not(&mut self, c: ValueId) -> ValueId {
        if let Some(b) = self.bool_const(c) {
            return self.func.const_bool(!b);
        }
        if let Some(&v) = self.nots.get(&c) {
            return v;
        }
        let v = self.emit_value(InstKind::Not { arg: c });
        self.nots.insert(c, v);
        v
    }

    fn and(&mut self, a: ValueId, b: ValueId) -> ValueId {
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

    fn or(&mut self, a: ValueId, b: ValueId) -> ValueId {
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

    fn select(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        if a == b {
            return a;
        }
        if let (Some(x), Some(y)) = (self.func.const_value(a), self.func.const_value(b)) {
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
    fn edge_guard(&mut self, g: ValueId, c: ValueId, polarity: bool) -> ValueId {
        let lit = if polarity { c } else { self.not(c) };
        let v = self.and(g, lit);
        self.splits.entry(v).or_insert((g, c, polarity));
        v
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
    /// outside `l` use.
    fn escaping(&mut self, l: LoopId) -> Vec<ValueId> {
        if let Some(vs) = self.escaping.get(&l) {
            return vs.clone();
        }
        let blocks: HashSet<BlockId> = self.loops.get(l).blocks.iter().copied().collect();
        let mut defined = HashSet::new();
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
        self.escaping.insert(l, out.clone());
        out
    }

    /// [`Emitter::combine`], also combining the edges' [`Edge::live`] copies and renaming each
    /// original to its combined copy.
    fn combine_live(&mut self, edges: Vec<Edge>) -> (ValueId, Vec<ValueId>) {
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
    fn combine(&mut self, mut edges: Vec<Edge>) -> (ValueId, Vec<ValueId>) {
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
    fn run_region(&mut self, region: &[BlockId], scope: Option<LoopId>) -> Result<(), MergeError> {
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
                    .find_map(|i| self.func.inst(*i).loc);
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

    fn const_val(&self, v: ValueId) -> Option<Val> {
        match self.func.const_value(v)? {
            Const::Field(x) => Some(Val::Field(x)),
            Const::UInt(x) => Some(Val::UInt(x)),
        }
    }

    /// The constant results of `kind` when its operands are constants and it succeeds.
    fn fold(&mut self, kind: &InstKind) -> Option<Vec<ValueId>> {
        let operands = kind.operands();
        if !operands.iter().all(|v| self.func.const_value(*v).is_some()) {
            return None;
        }
        let vals = eval_pure(self.func, kind, &mut |v| {
            self.const_val(v)
                .ok_or(crate::ir::interp::FailureKind::InvalidProgram(
                    "not a constant".into(),
                ))
        })?
        .ok()?;
        let types = self.func.result_types(kind);
        let mut out = Vec::new();
        for (val, ty) in vals.iter().zip(&types) {
            out.push(match val {
                Val::Field(x) => self.func.make_const(ty.clone(), Const::Field(*x)),
                Val::UInt(x) => self.func.make_const(ty.clone(), Const::UInt(*x)),
                _ => return None,
            });
        }
        (out.len() == types.len()).then_some(out)
    }

    fn zero(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Field => self.func.const_field(crate::field::Fr::from(0u64)),
            Type::UInt(w) => self.func.const_uint(*w, 0),
            _ => unreachable!("bug: zero of a non-scalar"),
        }
    }

    fn one(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Field => self.func.const_field(crate::field::Fr::from(1u64)),
            Type::UInt(w) => self.func.const_uint(*w, 1),
            _ => unreachable!("bug: one of a non-scalar"),
        }
    }

    /// `select g, i, 0` for an index into `array`, unless `i` is a constant in bounds.
    fn guard_index(
        &mut self,
        g: ValueId,
        array: ValueId,
        index: ValueId,
    ) -> Result<ValueId, MergeError> {
        let len = match self.func.value_type(array) {
            Type::Array(_, n) => u64::from(*n),
            _ => return Err(self.err_unsupported("indexing a non-array")),
        };
        if let Some(Const::UInt(i)) = self.func.const_value(index) {
            if i < len {
                return Ok(index);
            }
        }
        if len == 0 {
            return Err(self.err_unsupported("an empty array indexed on a guarded path"));
        }
        let ty = self.func.value_type(index).clone();
        let zero = self.zero(&ty);
        Ok(self.select(g, index, zero))
    }

    /// Copies `inst` into the merged block under guard `g`.
    fn copy_inst(&mut self, inst: InstId, g: ValueId) -> Result<(), MergeError> {
        let data = self.func.inst(inst).clone();
        let mut kind = data.kind.clone();
        kind.map_operands(|v| self.map(v));
        if let Some(results) = self.fold(&kind) {
            for (old, new) in data.results.iter().zip(results) {
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
            self.env.insert(data.results[0], v);
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
                let nonzero_const = match self.func.const_value(*rhs) {
                    Some(Const::UInt(x)) => x != 0,
                    Some(Const::Field(x)) => x != crate::field::Fr::from(0u64),
                    None => false,
                };
                if !nonzero_const {
                    let ty = self.func.value_type(*rhs).clone();
                    let one = self.one(&ty);
                    *rhs = self.select(g, *rhs, one);
                }
            }
            InstKind::Cast { arg, to } if guarded => {
                let from = self.func.value_type(*arg).clone();
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
            InstKind::Call { .. } => return Err(self.err_unsupported("a call")),
            _ => {}
        }
        let new = self.emit(kind, data.loc);
        let results = self.func.inst(new).results.clone();
        for (old, new) in data.results.iter().zip(results) {
            self.env.insert(*old, new);
        }
        Ok(())
    }
}
