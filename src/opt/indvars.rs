//! The `indvars` pass: canonical induction variables. A loop that counts `i` up by at most one
//! per iteration while `i < n` tests its exit with an equality instead of a comparison, and its
//! increment is marked as one that cannot wrap.
//!
//! # Algorithm
//!
//! For each natural loop `L` with header `h`:
//!
//! 1. **Shape.** `h` ends in `br c, T(..), E(..)` with `T` in `L`, `E` outside, and `T` entered
//!    from `h` only; `c = lt i, n` is defined in `h`, `i` is a `uN` parameter of `h` (N ≥ 8) and
//!    `n` is loop-invariant (a constant or a value defined outside `L`).
//! 2. **Steps.** Every back edge passes for `i` a *step* of `i`: `i` itself, `add i, 1` computed
//!    in a block that `T` dominates, a `select` of two steps, or a parameter of a block inside
//!    `L` (not `h`) all of whose incoming arguments are steps (no cycles). So each iteration
//!    adds 0 or 1 to `i`, and adds 1 only where `i < n` held.
//! 3. **Entry.** Every edge into `h` from outside `L` passes some `init` with `init ≤ n` proven
//!    (a constant 0, or by [`Ranges`] at the predecessor). Otherwise, if `h` has one outside
//!    predecessor `p` ending in `jmp`, `p` computes `n' = select (lt n, init), init, n` —
//!    `max(init, n)`, one comparison per entry instead of one per iteration — and the loop
//!    uses `n'`; else the loop is left alone.
//!
//! Then `i ≤ n'` holds at `h` on every iteration (by induction: at entry `init ≤ n'`; a step
//! adds 1 only where `i < n'`). So `i < n` is `i ≠ n'`: when `init ≤ n`, `n' = n`; when
//! `init > n`, the original loop exits at once, and so does the new one (`i = init = n'`).
//! The rewrite: `c = not (eq i, n')` (2 constraints instead of N + 1; `c = eq i, n'` with the
//! `br`'s arms swapped when only the branch reads `c`), and every `add i, 1` of
//! step 2 gets `nuw` (`i < n' ≤ 2^N − 1`: R1CS skips the increment's normalization).
//!
//! ```text
//! b0(v0: u32, v1: u32):                     b0(v0: u32, v1: u32):
//!     jmp b1(v0)                                v7 = lt v1, v0
//! b1(v2: u32):                                  v8 = select v7, v0, v1
//!     v3 = lt v2, v1                ==>         jmp b1(v0)
//!     br v3, b2(), b3()                     b1(v2: u32):
//! b2():                                         v3 = eq v2, v8
//!     v4 = add v2, u32 1                        br v3, b3(), b2()
//!     jmp b1(v4)                            b2():
//! b3():                                         v4 = add nuw v2, u32 1
//!     return v2                                 jmp b1(v4)
//!                                           b3():
//!                                               return v2
//! ```

use crate::fxhash::{HashMap, HashSet};

use super::PassStats;
use crate::analysis::{DomTree, Loop, LoopForest, Ranges};
use crate::ir::{
    BinOp, BlockId, Function, InstId, InstKind, Program, Terminator, ValueDef, ValueId,
};

/// Most nested steps (selects and block parameters) followed from a back edge.
const MAX_STEP_DEPTH: usize = 32;

/// Runs the pass on every function.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, run_function)
}

/// Runs the pass on one function.
pub fn run_function(func: &mut Function) -> PassStats {
    let mut stats = PassStats::default();
    let loops = LoopForest::new(func);
    if !loops.is_reducible() {
        return stats;
    }
    let mut plans = Vec::new();
    {
        // Computed once for all loops, and the ranges only when a loop asks for them (most
        // loops are not of the shape, and the analysis is the pass's largest cost).
        let shared = Shared {
            dom: DomTree::dominators(func),
            preds: func.predecessors(),
            inst_block: func.inst_blocks(),
            ranges: std::cell::OnceCell::new(),
        };
        for l in loops.loops() {
            if let Some(plan) = Plan::find(func, &shared, l) {
                plans.push(plan);
            }
        }
    }
    for plan in plans {
        plan.apply(func);
        stats.add("induction_variables", 1);
    }
    stats
}

/// What [`Plan::find`] reads of the function, the same for every loop.
struct Shared {
    dom: DomTree,
    preds: HashMap<BlockId, Vec<BlockId>>,
    inst_block: HashMap<InstId, BlockId>,
    ranges: std::cell::OnceCell<Ranges>,
}

/// What to rewrite in one loop.
struct Plan {
    /// The `lt i, n` instruction in the header.
    compare: InstId,
    i: ValueId,
    n: ValueId,
    /// `Some((preheader, init))` when `n' = max(init, n)` must be computed in the preheader.
    clamp: Option<(BlockId, ValueId)>,
    /// The `add i, 1` steps to mark `nuw`.
    increments: Vec<InstId>,
}

impl Plan {
    fn find(func: &Function, shared: &Shared, l: &Loop) -> Option<Plan> {
        let (dom, preds, inst_block) = (&shared.dom, &shared.preds, &shared.inst_block);
        let h = l.header;
        let in_loop = |b: BlockId| l.blocks.contains(&b);
        let Some(Terminator::Br {
            cond,
            then_dest,
            else_dest,
        }) = &func.block(h).term
        else {
            return None;
        };
        let t = then_dest.block;
        if !in_loop(t) || in_loop(else_dest.block) {
            return None;
        }
        if preds.get(&t).map(Vec::as_slice) != Some(&[h][..]) {
            return None;
        }
        let ValueDef::Result(compare, 0) = func.value(*cond).def else {
            return None;
        };
        if !func.block(h).insts.contains(&compare) {
            return None;
        }
        let InstKind::Binary {
            op: BinOp::Lt,
            lhs: i,
            rhs: n,
        } = func.inst(compare).kind
        else {
            return None;
        };
        if func.value_type(i).uint_width().is_none_or(|w| w < 8) {
            return None;
        }
        let k = func.block(h).params.iter().position(|p| *p == i)?;
        let invariant = match func.value(n).def {
            ValueDef::Const(_) => true,
            ValueDef::Param(b, _) => !in_loop(b),
            ValueDef::Result(inst, _) => inst_block.get(&inst).is_some_and(|b| !in_loop(*b)),
        };
        if !invariant {
            return None;
        }
        // Steps on every back edge.
        let mut steps = Steps {
            func,
            dom,
            preds,
            inst_block,
            l,
            t,
            i,
            stack: HashSet::default(),
            done: HashSet::default(),
            increments: Vec::new(),
        };
        for &latch in &l.latches {
            for call in func.block(latch).term.as_ref()?.block_calls() {
                if call.block == h && !steps.is_step(call.args[k], 0) {
                    return None;
                }
            }
        }
        let mut increments = steps.increments;
        // Entry edges.
        let outside: Vec<BlockId> = preds
            .get(&h)
            .into_iter()
            .flatten()
            .copied()
            .filter(|p| !in_loop(*p))
            .collect();
        let mut clamp = None;
        for &p in &outside {
            for call in func.block(p).term.as_ref()?.block_calls() {
                if call.block != h {
                    continue;
                }
                let init = call.args[k];
                let proven = super::ranges::is_uint_const(func, init, 0) || {
                    let ranges = shared.ranges.get_or_init(|| Ranges::new(func));
                    match (ranges.at(func, p, init), ranges.at(func, p, n)) {
                        (Some(a), Some(b)) => a.hi <= b.lo,
                        _ => false,
                    }
                };
                if !proven {
                    let single_jmp = outside.len() == 1
                        && matches!(func.block(p).term, Some(Terminator::Jmp(_)));
                    if !single_jmp {
                        return None;
                    }
                    clamp = Some((p, init));
                }
            }
        }
        increments.sort();
        increments.dedup();
        let increments = increments;
        Some(Plan {
            compare,
            i,
            n,
            clamp,
            increments,
        })
    }

    fn apply(self, func: &mut Function) {
        let bound = match self.clamp {
            None => self.n,
            Some((pre, init)) => {
                let loc = func.inst(self.compare).loc();
                let lt = func.create_inst(
                    InstKind::Binary {
                        op: BinOp::Lt,
                        lhs: self.n,
                        rhs: init,
                    },
                    &[],
                    loc,
                );
                let t = func.inst(lt).results[0];
                let sel = func.create_inst(
                    InstKind::Select {
                        cond: t,
                        then_value: init,
                        else_value: self.n,
                    },
                    &[],
                    loc,
                );
                let insts = &mut func.block_mut(pre).insts;
                insts.push(lt);
                insts.push(sel);
                func.inst(sel).results[0]
            }
        };
        super::ranges::not_equal(func, self.compare, self.i, bound);
        for inc in self.increments {
            func.inst_mut(inc).set_no_wrap(true);
        }
    }
}

/// What [`Steps::is_step`] needs: the loop, its body entry `t`, the header parameter `i`.
struct Steps<'a> {
    func: &'a Function,
    dom: &'a DomTree,
    preds: &'a HashMap<BlockId, Vec<BlockId>>,
    inst_block: &'a HashMap<InstId, BlockId>,
    l: &'a Loop,
    t: BlockId,
    i: ValueId,
    /// Values being checked (a cycle back to one of them is not a step).
    stack: HashSet<ValueId>,
    /// Values found to be steps.
    done: HashSet<ValueId>,
    /// The `add i, 1` instructions found.
    increments: Vec<InstId>,
}

impl Steps<'_> {
    /// Whether `v` adds 0 or 1 to `i`, adding 1 only in blocks `t` dominates.
    fn is_step(&mut self, v: ValueId, depth: usize) -> bool {
        if v == self.i || self.done.contains(&v) {
            return true;
        }
        if depth > MAX_STEP_DEPTH || !self.stack.insert(v) {
            return false;
        }
        let ok = self.check(v, depth);
        self.stack.remove(&v);
        if ok {
            self.done.insert(v);
        }
        ok
    }

    fn check(&mut self, v: ValueId, depth: usize) -> bool {
        let func = self.func;
        match func.value(v).def {
            ValueDef::Const(_) => false,
            ValueDef::Param(b, k) => {
                if b == self.l.header || !self.l.blocks.contains(&b) {
                    return false;
                }
                let Some(ps) = self.preds.get(&b) else {
                    return false;
                };
                for &p in ps {
                    let Some(term) = func.block(p).term.as_ref() else {
                        return false;
                    };
                    for call in term.block_calls() {
                        if call.block == b && !self.is_step(call.args[k as usize], depth + 1) {
                            return false;
                        }
                    }
                }
                true
            }
            ValueDef::Result(inst, _) => match func.inst(inst).kind {
                InstKind::Binary {
                    op: BinOp::Add,
                    lhs,
                    rhs,
                } => {
                    let one = |x: ValueId| super::ranges::is_uint_const(func, x, 1);
                    let adds_one = (lhs == self.i && one(rhs)) || (rhs == self.i && one(lhs));
                    let dominated = self
                        .inst_block
                        .get(&inst)
                        .is_some_and(|b| self.dom.dominates(self.t, *b));
                    if adds_one && dominated {
                        self.increments.push(inst);
                    }
                    adds_one && dominated
                }
                InstKind::Select {
                    then_value,
                    else_value,
                    ..
                } => self.is_step(then_value, depth + 1) && self.is_step(else_value, depth + 1),
                _ => false,
            },
        }
    }
}
