//! Merge components for block merging (`seeds/merge-basic-blocks.md`, "Merge Component"; the
//! design's "Passes / merge").
//!
//! **Definition.** A *merge component* is a head block `h` and a tail block `t != h` with
//! component blocks `C(h, t)` = `t` and every block reachable from `h` without passing through
//! `t` (the blocks that can run between the head and the tail), such that
//! 1. `h` dominates and `t` post-dominates every block of `C(h, t)` (so every block of the
//!    component reaches a `return`, and once `h` runs, `t` runs next at `h`'s level);
//! 2. `h` and `t` are in the same loop: the same innermost natural loop, or both in none;
//! 3. no block of `C(h, t)`, head and tail included, contains a `call` (the seed's exception
//!    2). No block but the tail can `return`, by 1 (the seed's exception 1: a branch or loop
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

use super::cfg::Cfg;
use super::dominators::DomTree;
use super::loops::LoopForest;
use crate::ir::{BlockId, Function, InstKind};
use std::collections::{HashMap, HashSet};

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
        let mut components = HashMap::new();
        for &h in cfg.reverse_post_order() {
            let Some(tail) = nearest_tail_candidate(h, &pdom, &loops) else {
                continue;
            };
            let mut blocks = blocks_between(&cfg, h, tail);
            let valid = blocks
                .iter()
                .all(|&b| dom.dominates(h, b) && pdom.dominates(tail, b) && !calls.contains(&b));
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
    let mut seen: HashSet<BlockId> = HashSet::from([h, t]);
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
