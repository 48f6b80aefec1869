//! Merge components for block merging (`../shared/seeds/merge-basic-blocks.md`, in the design
//! notes folder beside the repository, "Merge Component"; the design's "Passes / merge").
//!
//! **Definition.** A *merge component* is a head block `h` and a tail block `t != h` with
//! component blocks `C(h, t)` = `t` and every block reachable from `h` without passing through
//! `t` (the blocks that can run between the head and the tail), such that
//! 1. `h` dominates and `t` post-dominates every block of `C(h, t)` (so every block of the
//!    component reaches a `return`, and once `h` runs, `t` runs next at `h`'s level);
//! 2. `h` and `t` are in the same loop: the same innermost natural loop, or both in none;
//! 3. no block of `C(h, t)` but the head and the tail contains a `call` (the seed's exception
//!    2; a call kept as blocks, issue 33, ends its block only in `opt::calls::flatten`, and the
//!    head and the tail run unguarded in the merged block, so their calls stay calls). No block but the tail can `return`, by 1 (the seed's exception 1: a branch or loop
//!    that returns early has no tail post-dominating it).
//!
//! If `h` heads components with tails `t1` and `t2`, both post-dominate `h`, so one
//! post-dominates the other, say `t2` the farther one, and `C(h, t1) ⊂ C(h, t2)`; *the*
//! component of `h` is the one with the nearest tail, matching the seed's "for every block
//! there is at most one component where it is the head".
//!
//! **Algorithm.** The seed computes the tails with a backward analysis whose state maps each
//! loop level to "the next block at that level" (meeting as in constant propagation); the tail
//! of `h` is the entry at `h`'s own level. On a CFG that state entry is the nearest block
//! up the post-dominator tree from `h` that is in `h`'s innermost loop: every path from `h`
//! reaches it (a post-dominator), and no nearer block at `h`'s level is reached by all paths
//! (the nearer post-dominators are inside deeper loops). We compute exactly that, by walking the
//! post-dominator tree from `ipdom(h)` up to the first block of `h`'s innermost loop, and then
//! check conditions 1 and 3 on `C(h, t)` directly (the seed's analysis does not check dominance,
//! which fails for example when `h` is the `then` arm of an `if` whose join has two
//! predecessors). Taking the nearest same-loop post-dominator loses nothing: a nearer tail would
//! be a nearer post-dominator in the same loop; and when the nearest candidate `t1` fails 1 or
//! 3, a farther one `t2` (which post-dominates `t1`) fails as well, because the failing block of
//! `C(h, t1)` is reached from `h` before `t1`, hence before `t2` (a path reaching `t2` first
//! would go on to `t1`, putting `t2` and `t1` on a cycle in `h`'s loop with `t1` first on it
//! from `h`). `tests/analysis_components.rs` checks the result against a search over every
//! candidate tail on random structured CFGs and on arbitrary random CFGs.

use crate::fxhash::{HashMap, HashSet};

use super::cfg::Cfg;
use super::dominators::DomTree;
use super::loops::{LoopForest, LoopId};
use crate::ir::{BlockId, Function, InstKind, ValueId};

/// The merge component headed by each block, if any (see the module doc).
#[derive(Clone, Debug)]
pub struct MergeComponents {
    components: HashMap<BlockId, Component>,
}

/// A merge component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// The head: dominates every block of the component.
    pub head: BlockId,
    /// The tail: post-dominates every block of the component.
    pub tail: BlockId,
    /// The blocks from head to tail, in layout order.
    pub blocks: Vec<BlockId>,
}

impl MergeComponents {
    /// The merge components of `func`.
    pub fn new(func: &Function) -> MergeComponents {
        let cfg = Cfg::new(func);
        let dom = DomTree::dominators(func);
        let pdom = DomTree::post_dominators(func);
        let loops = LoopForest::compute(&cfg, &dom);
        let calls: HashSet<BlockId> = cfg
            .blocks()
            .filter(|b| {
                func.block(*b)
                    .insts
                    .iter()
                    .any(|i| matches!(func.inst(*i).kind, InstKind::Call { .. }))
            })
            .collect();
        let layout_pos: HashMap<BlockId, usize> =
            cfg.blocks().enumerate().map(|(i, b)| (b, i)).collect();
        let mut components = HashMap::default();
        for &h in cfg.reverse_post_order() {
            let Some(tail) = nearest_tail_candidate(h, &pdom, &loops) else {
                continue;
            };
            let mut blocks = blocks_between(&cfg, h, tail);
            let valid = blocks.iter().all(|&b| {
                dom.dominates(h, b)
                    && pdom.dominates(tail, b)
                    && (b == h || b == tail || !calls.contains(&b))
            });
            if valid {
                blocks.sort_by_key(|b| layout_pos[b]);
                components.insert(
                    h,
                    Component {
                        head: h,
                        tail,
                        blocks,
                    },
                );
            }
        }
        MergeComponents { components }
    }

    /// The tail of the component headed by `h`.
    pub fn tail(&self, h: BlockId) -> Option<BlockId> {
        self.components.get(&h).map(|c| c.tail)
    }

    /// The component headed by `h`.
    pub fn component(&self, h: BlockId) -> Option<&Component> {
        self.components.get(&h)
    }

    /// Every component, by head in `func`'s layout order, as text: `b1 -> b4 {b1, b2, b3, b4}`.
    pub fn display(&self, func: &Function) -> String {
        let mut out = String::new();
        for b in &func.layout {
            if let Some(c) = self.components.get(b) {
                let blocks: Vec<String> = c.blocks.iter().map(ToString::to_string).collect();
                out.push_str(&format!(
                    "{} -> {} {{{}}}\n",
                    c.head,
                    c.tail,
                    blocks.join(", ")
                ));
            }
        }
        out
    }
}

/// The nearest strict post-dominator of `h` in `h`'s innermost loop.
fn nearest_tail_candidate(h: BlockId, pdom: &DomTree, loops: &LoopForest) -> Option<BlockId> {
    let scope = loops.innermost(h);
    let mut cur = pdom.idom(h);
    while let Some(t) = cur {
        if loops.innermost(t) == scope {
            return Some(t);
        }
        cur = pdom.idom(t);
    }
    None
}

/// `t` and the blocks reachable from `h` without passing through `t`.
fn blocks_between(cfg: &Cfg, h: BlockId, t: BlockId) -> Vec<BlockId> {
    let mut seen: HashSet<BlockId> = [h, t].into_iter().collect();
    let mut out = vec![h, t];
    let mut stack = vec![h];
    while let Some(b) = stack.pop() {
        for &s in cfg.successors(b) {
            if seen.insert(s) {
                out.push(s);
                stack.push(s);
            }
        }
    }
    out
}

/// Most iterations [`constant_trip_count`] steps through before calling a bound unknown.
pub const MAX_TRIP_COUNT: u64 = 1 << 24;

/// The number of times the body of `lp` runs per entry, when its header tests an induction
/// variable against a constant: the header ends in `br (iv OP k) ...` or `br (k OP iv) ...`
/// (`OP` one of `lt`, `le`, `eq`) with one arm leaving the loop, `iv` is a header parameter
/// bound to a constant by the single entry edge and to `iv + step` (a constant step) by the
/// single latch. That is the shape SCCP leaves for `for u32 i in A..B` with constant bounds.
/// `None` for anything else (a runtime bound, a loop without that shape, or more than
/// [`MAX_TRIP_COUNT`] iterations). [`crate::query::patterns::trip_count`] answers the same
/// question for the `counted-loop` query's matches.
pub fn constant_trip_count(func: &Function, loops: &LoopForest, lp: LoopId) -> Option<u64> {
    use crate::ir::{BinOp, Const, Terminator, ValueDef};
    let l = loops.get(lp);
    let header = l.header;
    let [latch] = l.latches[..] else { return None };
    let Some(Terminator::Br {
        cond,
        then_dest,
        else_dest,
    }) = &func.block(header).term
    else {
        return None;
    };
    let stay_if = match (
        l.blocks.contains(&then_dest.block),
        l.blocks.contains(&else_dest.block),
    ) {
        (true, false) => true,
        (false, true) => false,
        _ => return None,
    };
    let ValueDef::Result(cmp, 0) = func.value(*cond).def else {
        return None;
    };
    let InstKind::Binary { op, lhs, rhs } = func.inst(cmp).kind else {
        return None;
    };
    let uint = |v| match func.const_value(v) {
        Some(Const::UInt(x)) => Some(x),
        _ => None,
    };
    let param_index = |v| match func.value(v).def {
        ValueDef::Param(b, k) if b == header => Some(k as usize),
        _ => None,
    };
    let (k, bound, iv_left) = match (param_index(lhs), param_index(rhs)) {
        (Some(k), None) => (k, uint(rhs)?, true),
        (None, Some(k)) => (k, uint(lhs)?, false),
        _ => return None,
    };
    let iv = func.block(header).params[k];
    let width = func.value_type(iv).uint_width()?;
    let arg_into_header = |from: BlockId| -> Option<ValueId> {
        let calls = func.block(from).term.as_ref()?.block_calls();
        let mut found = calls.into_iter().filter(|c| c.block == header);
        let call = found.next()?;
        if found.next().is_some() {
            return None;
        }
        call.args.get(k).copied()
    };
    let mut entries = func
        .layout
        .iter()
        .filter(|b| !l.blocks.contains(b) && func.successors(**b).contains(&header));
    let entry = *entries.next()?;
    if entries.next().is_some() {
        return None;
    }
    let init = uint(arg_into_header(entry)?)?;
    let next = arg_into_header(latch)?;
    let ValueDef::Result(add, 0) = func.value(next).def else {
        return None;
    };
    let step = match func.inst(add).kind {
        InstKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } if lhs == iv => uint(rhs)?,
        InstKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } if rhs == iv => uint(lhs)?,
        _ => return None,
    };
    let test = |i: u64| {
        let (a, b) = if iv_left { (i, bound) } else { (bound, i) };
        match op {
            BinOp::Lt => Some(a < b),
            BinOp::Le => Some(a <= b),
            BinOp::Eq => Some(a == b),
            _ => None,
        }
    };
    let (mut i, mut n) = (init, 0u64);
    while test(i)? == stay_if {
        n += 1;
        if n > MAX_TRIP_COUNT {
            return None;
        }
        i = crate::ir::wrap(i.wrapping_add(step), width);
    }
    Some(n)
}

/// The size of a component in constraints: the seed's `count[head]`,
///
/// ```text
/// count[i] = cons[i] + Σ_s count[s] · iterations[s] + cons[t]
/// ```
///
/// summed in closed form: every block of the component counts `cons[b]` times the trip counts
/// of the loops that contain `b` but not the head (a loop strictly inside the component runs
/// `trips` times per entry, and its sub-components nest the same way). `None` when such a loop
/// has no constant trip count ([`constant_trip_count`]): it cannot be unrolled, so the
/// component cannot be merged. `cons` gives each block's constraints (missing blocks count 0).
pub fn component_size(
    func: &Function,
    comp: &Component,
    loops: &LoopForest,
    cons: &HashMap<BlockId, u64>,
) -> Option<u64> {
    let scope = loops.innermost(comp.head);
    let mut trips: HashMap<LoopId, Option<u64>> = HashMap::default();
    let mut total: u64 = 0;
    for &b in &comp.blocks {
        let mut weight: u64 = 1;
        let mut l = loops.innermost(b);
        while l != scope {
            let id = l?;
            let n = *trips
                .entry(id)
                .or_insert_with(|| constant_trip_count(func, loops, id));
            weight = weight.checked_mul(n?)?;
            l = loops.get(id).parent;
        }
        let c = cons.get(&b).copied().unwrap_or(0);
        total = total.checked_add(c.checked_mul(weight)?)?;
    }
    Some(total)
}
