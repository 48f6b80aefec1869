//! Definition-level references for the CFG analyses: slow, short and obviously correct, kept
//! beside the fast algorithms so property tests can compare the two on random CFGs (as
//! Cranelift's `dominator_tree/simple.rs` and regalloc2's `fuzzing/domtree.rs` do).
//!
//! Everything here is a graph search with one node or one edge removed, straight from a
//! definition; nothing is clever. Costs are polynomial and meant for graphs of a few dozen
//! blocks.
//!
//! The CFG is the set of edges between laid-out blocks (a `br` whose two arms are one block
//! gives one edge). Post-dominance and everything built on it is taken toward a virtual exit
//! that every `return` block has an edge to.
//!
//! - **Dominance** ([`RefCfg::dominates`]): `a` dominates `b` iff `b` is reachable from the
//!   entry and is not reachable from the entry once `a` is removed. This is reflexive. A block
//!   that is unreachable has no dominators (the convention of [`crate::analysis::DomTree`];
//!   the plain definition would make every block dominate it vacuously). The seed
//!   (`seeds/ssa-structure-model.tex`, Definition "Dominator") cuts the out-edges of `a`
//!   instead of removing `a`, which gives the same relation for `a != b` (strict dominance).
//! - **Post-dominance** ([`RefCfg::post_dominates`]): `a` post-dominates `b` iff `b` reaches
//!   the exit and does not once `a` is removed. A block that reaches no return (it is in or
//!   leads only to an infinite loop) has no post-dominators.

use super::dominators::Graph;
use crate::ir::{BlockId, Function, Terminator};
use std::collections::HashMap;

/// The nodes reachable from `from` in `g` with `removed_node` and `removed_edge` taken out of
/// the graph (`from` itself is reachable unless it is the removed node).
pub fn reachable(
    g: &Graph,
    from: usize,
    removed_node: Option<usize>,
    removed_edge: Option<(usize, usize)>,
) -> Vec<bool> {
    let mut seen = vec![false; g.len()];
    if Some(from) == removed_node {
        return seen;
    }
    seen[from] = true;
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        for &s in &g.succs[n] {
            if seen[s] || Some(s) == removed_node || Some((n, s)) == removed_edge {
                continue;
            }
            seen[s] = true;
            stack.push(s);
        }
    }
    seen
}

/// A function's CFG as plain successor sets, with a virtual exit node, for the brute-force
/// definitions.
#[derive(Clone, Debug)]
pub struct RefCfg {
    /// The laid-out blocks; block `blocks[i]` is node `i`.
    pub blocks: Vec<BlockId>,
    /// The node of each block.
    pub node: HashMap<BlockId, usize>,
    /// Successor sets (no duplicate edges); node `exit()` is the virtual exit, which every
    /// returning block has an edge to.
    pub graph: Graph,
    /// The entry's node.
    pub entry: usize,
}

impl RefCfg {
    /// The CFG of `func`'s laid-out blocks (the entry must be laid out).
    pub fn new(func: &Function) -> RefCfg {
        let blocks = func.layout.clone();
        let node: HashMap<BlockId, usize> =
            blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let exit = blocks.len();
        let mut succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|b| {
                let mut ss: Vec<usize> = func
                    .successors(*b)
                    .iter()
                    .filter_map(|s| node.get(s).copied())
                    .collect();
                if matches!(func.block(*b).term, Some(Terminator::Return(_))) {
                    ss.push(exit);
                }
                ss.sort_unstable();
                ss.dedup();
                ss
            })
            .collect();
        succs.push(Vec::new());
        let entry = node[&func.entry];
        RefCfg {
            blocks,
            node,
            graph: Graph { succs },
            entry,
        }
    }

    /// The virtual exit's node.
    pub fn exit(&self) -> usize {
        self.blocks.len()
    }

    /// The distinct successor blocks of `b` (the virtual exit is not a block and not listed).
    pub fn successors(&self, b: BlockId) -> Vec<BlockId> {
        self.graph.succs[self.node[&b]]
            .iter()
            .filter(|&&s| s != self.exit())
            .map(|&s| self.blocks[s])
            .collect()
    }

    /// Whether `b` is reachable from the entry.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        reachable(&self.graph, self.entry, None, None)[self.node[&b]]
    }

    /// Whether `b` reaches a `return`.
    pub fn reaches_exit(&self, b: BlockId) -> bool {
        reachable(&self.graph, self.node[&b], None, None)[self.exit()]
    }

    /// Whether `a` dominates `b`: `b` is reachable, and unreachable without `a`.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let nb = self.node[&b];
        reachable(&self.graph, self.entry, None, None)[nb]
            && !reachable(&self.graph, self.entry, Some(self.node[&a]), None)[nb]
    }

    /// Whether `a` post-dominates `b`: `b` reaches the exit, and does not without `a`.
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        let nb = self.node[&b];
        let exit = self.exit();
        reachable(&self.graph, nb, None, None)[exit]
            && !reachable(&self.graph, nb, Some(self.node[&a]), None)[exit]
    }
}

/// Loops, from their definitions.
impl RefCfg {
    /// The back edges `(t, h)`: CFG edges whose target dominates their source.
    pub fn back_edges(&self) -> Vec<(BlockId, BlockId)> {
        let mut out = Vec::new();
        for &t in &self.blocks {
            for h in self.successors(t) {
                if self.dominates(h, t) {
                    out.push((t, h));
                }
            }
        }
        out
    }

    /// The natural loop of header `h`: `h` and every block reachable from the entry that reaches
    /// the source of a back edge to `h` without passing through `h`.
    pub fn natural_loop(&self, h: BlockId) -> Vec<BlockId> {
        let nh = self.node[&h];
        let latches: Vec<usize> = self
            .back_edges()
            .iter()
            .filter(|e| e.1 == h)
            .map(|e| self.node[&e.0])
            .collect();
        let from_entry = reachable(&self.graph, self.entry, None, None);
        self.blocks
            .iter()
            .enumerate()
            .filter(|&(n, _)| {
                n == nh
                    || from_entry[n] && {
                        let r = reachable(&self.graph, n, Some(nh), None);
                        latches.iter().any(|&t| r[t])
                    }
            })
            .map(|(_, &b)| b)
            .collect()
    }

    /// Whether `a` and `b` reach each other (are in one strongly connected component).
    pub fn mutually_reachable(&self, a: BlockId, b: BlockId) -> bool {
        let (na, nb) = (self.node[&a], self.node[&b]);
        reachable(&self.graph, na, None, None)[nb] && reachable(&self.graph, nb, None, None)[na]
    }

    /// Whether `a` reaches `b` (reflexive).
    pub fn reaches(&self, a: BlockId, b: BlockId) -> bool {
        reachable(&self.graph, self.node[&a], None, None)[self.node[&b]]
    }
}

/// Control dependence, from its two definitions (see [`crate::analysis::cdg`]).
impl RefCfg {
    /// Ferrante–Ottenstein–Warren: `b` is control dependent on `a` iff there is a path from `a`
    /// to `b` whose nodes after `a` and before `b` are all post-dominated by `b`, and `b` does
    /// not strictly post-dominate `a`.
    pub fn fow_control_dependent(&self, a: BlockId, b: BlockId) -> bool {
        if a != b && self.post_dominates(b, a) {
            return false;
        }
        // Search from a's successors through blocks post-dominated by b, until b.
        let mut seen: Vec<bool> = vec![false; self.blocks.len()];
        let mut stack: Vec<BlockId> = Vec::new();
        for s in self.successors(a) {
            seen[self.node[&s]] = true;
            stack.push(s);
        }
        while let Some(z) = stack.pop() {
            if z == b {
                // b itself must be post-dominated by b: it reaches the exit.
                return self.post_dominates(b, b);
            }
            if !self.post_dominates(b, z) {
                continue;
            }
            for s in self.successors(z) {
                if !seen[self.node[&s]] {
                    seen[self.node[&s]] = true;
                    stack.push(s);
                }
            }
        }
        false
    }

    /// The seed's Definition "Control Dependence", literally: `a` has successors `c`, `c'`
    /// such that `{(a, c)}` is a cut between `a` and `b` and `{(a, c')}` is not, where a cut
    /// leaves no connection (path, possibly of one node when `a = b`) from `a` to `b`.
    pub fn seed_control_dependent(&self, a: BlockId, b: BlockId) -> bool {
        let (na, nb) = (self.node[&a], self.node[&b]);
        let is_cut = |c: BlockId| !reachable(&self.graph, na, None, Some((na, self.node[&c])))[nb];
        let succs = self.successors(a);
        succs.iter().any(|&c| is_cut(c)) && succs.iter().any(|&c| !is_cut(c))
    }
}
