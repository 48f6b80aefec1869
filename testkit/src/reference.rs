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
//!   that is unreachable has no dominators (the convention of [`zkbc::analysis::DomTree`];
//!   the plain definition would make every block dominate it vacuously). The seed
//!   (`../shared/seeds/ssa-structure-model.tex`, in the design notes folder beside the
//!   repository, Definition "Dominator") cuts the out-edges of `a`
//!   instead of removing `a`, which gives the same relation for `a != b` (strict dominance).
//! - **Post-dominance** ([`RefCfg::post_dominates`]): `a` post-dominates `b` iff `b` reaches
//!   the exit and does not once `a` is removed. A block that reaches no return (it is in or
//!   leads only to an infinite loop) has no post-dominators.
//! - **Natural loops** ([`RefCfg::back_edges`], [`RefCfg::natural_loop`]) and strongly connected
//!   components ([`RefCfg::mutually_reachable`]), for [`zkbc::analysis::loops`].
//! - **Control dependence** ([`RefCfg::fow_control_dependent`], the path definition of Ferrante,
//!   Ottenstein and Warren; [`RefCfg::seed_control_dependent`], the seed's cut definition), for
//!   [`zkbc::analysis::cdg`].
//! - **SESE regions** ([`RefCfg::sese_regions`], [`RefCfg::canonical_sese_regions`],
//!   [`RefCfg::sese_blocks`]) on a separately built edge-split graph, for
//!   [`zkbc::analysis::regions`].
//! - **Merge components** ([`RefCfg::merge_component_tails`]) by trying every tail, for
//!   [`zkbc::analysis::components`].

use zkbc::fxhash::HashMap;

use zkbc::analysis::dominators::Graph;
use zkbc::analysis::regions::{RegionEdge, RegionNode};
use zkbc::ir::{BlockId, Function, Terminator};

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

/// Control dependence, from its two definitions (see [`zkbc::analysis::cdg`]).
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

/// The extended CFG for SESE regions, with every edge split by a node: built separately from
/// [`zkbc::analysis::regions::ExtendedCfg`] so the two share no code.
struct RefSplit {
    /// The region edges; edge `k` is split-graph node `first_edge + k`.
    edges: Vec<RegionEdge>,
    first_edge: usize,
    start: usize,
    end: usize,
    /// Split-graph nodes of the live blocks.
    block_node: HashMap<BlockId, usize>,
    /// The split graph.
    split: Graph,
    /// The split graph with the extra edge `end -> start`.
    cyclic: Graph,
}

/// SESE regions, from their definition (see [`zkbc::analysis::regions`]).
impl RefCfg {
    /// Whether `b` is live for SESE regions: reachable from the entry and reaching a return.
    pub fn is_live(&self, b: BlockId) -> bool {
        self.is_reachable(b) && self.reaches_exit(b)
    }

    fn split(&self) -> RefSplit {
        let live: Vec<BlockId> = self
            .blocks
            .iter()
            .copied()
            .filter(|b| self.is_live(*b))
            .collect();
        let block_node: HashMap<BlockId, usize> =
            live.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let (start, end) = (live.len(), live.len() + 1);
        let point = |n: usize| {
            if n == self.exit() {
                RegionNode::End
            } else {
                RegionNode::Block(self.blocks[n])
            }
        };
        let mut edges = Vec::new();
        if block_node.contains_key(&self.blocks[self.entry]) {
            edges.push(RegionEdge {
                from: RegionNode::Start,
                to: RegionNode::Block(self.blocks[self.entry]),
            });
        }
        for &b in &live {
            for &s in &self.graph.succs[self.node[&b]] {
                let to = point(s);
                if to == RegionNode::End || block_node.contains_key(&self.blocks[s]) {
                    edges.push(RegionEdge {
                        from: RegionNode::Block(b),
                        to,
                    });
                }
            }
        }
        let first_edge = live.len() + 2;
        let node_of = |p: RegionNode| match p {
            RegionNode::Start => start,
            RegionNode::End => end,
            RegionNode::Block(b) => block_node[&b],
        };
        let mut succs = vec![Vec::new(); first_edge + edges.len()];
        for (k, e) in edges.iter().enumerate() {
            succs[node_of(e.from)].push(first_edge + k);
            succs[first_edge + k].push(node_of(e.to));
        }
        let split = Graph { succs };
        let mut cyclic = split.clone();
        cyclic.succs[end].push(start);
        RefSplit {
            edges,
            first_edge,
            start,
            end,
            block_node,
            split,
            cyclic,
        }
    }

    /// Every SESE region `(e1, e2)`: distinct edges with `e1` dominating `e2`, `e2`
    /// post-dominating `e1`, and every cycle through one passing through the other. Sorted.
    pub fn sese_regions(&self) -> Vec<(RegionEdge, RegionEdge)> {
        let s = self.split();
        let mut out = Vec::new();
        for i in 0..s.edges.len() {
            for j in 0..s.edges.len() {
                let (x, y) = (s.first_edge + i, s.first_edge + j);
                if i != j
                    && ref_dominates(&s, x, y)
                    && ref_post_dominates(&s, y, x)
                    && !cycle_avoiding(&s.cyclic, x, y)
                    && !cycle_avoiding(&s.cyclic, y, x)
                {
                    out.push((s.edges[i], s.edges[j]));
                }
            }
        }
        out.sort();
        out
    }

    /// The canonical SESE regions: `(e1, e2)` such that `e2` dominates `e2'` for every SESE
    /// region `(e1, e2')` and `e1` post-dominates `e1'` for every SESE region `(e1', e2)`.
    pub fn canonical_sese_regions(&self) -> Vec<(RegionEdge, RegionEdge)> {
        let s = self.split();
        let node = |e: RegionEdge| s.first_edge + s.edges.iter().position(|x| *x == e).unwrap();
        let all = self.sese_regions();
        all.iter()
            .copied()
            .filter(|&(e1, e2)| {
                all.iter().all(|&(f1, f2)| {
                    (f1 != e1 || ref_dominates(&s, node(e2), node(f2)))
                        && (f2 != e2 || ref_post_dominates(&s, node(e1), node(f1)))
                })
            })
            .collect()
    }

    /// The blocks of region `(e1, e2)`: those dominated by `e1` and post-dominated by `e2`, in
    /// layout order.
    pub fn sese_blocks(&self, e1: RegionEdge, e2: RegionEdge) -> Vec<BlockId> {
        let s = self.split();
        let node = |e: RegionEdge| s.first_edge + s.edges.iter().position(|x| *x == e).unwrap();
        self.blocks
            .iter()
            .copied()
            .filter(|b| {
                s.block_node.get(b).is_some_and(|&n| {
                    ref_dominates(&s, node(e1), n) && ref_post_dominates(&s, node(e2), n)
                })
            })
            .collect()
    }
}

/// Node `x` dominates node `y` of the split graph (by removal from `start`).
fn ref_dominates(s: &RefSplit, x: usize, y: usize) -> bool {
    reachable(&s.split, s.start, None, None)[y] && !reachable(&s.split, s.start, Some(x), None)[y]
}

/// Node `x` post-dominates node `y` of the split graph (by removal, toward `end`).
fn ref_post_dominates(s: &RefSplit, x: usize, y: usize) -> bool {
    reachable(&s.split, y, None, None)[s.end] && !reachable(&s.split, y, Some(x), None)[s.end]
}

/// Whether some cycle of `g` passes through `x` and not through `y`.
fn cycle_avoiding(g: &Graph, x: usize, y: usize) -> bool {
    g.succs[x]
        .iter()
        .any(|&s| s != y && reachable(g, s, Some(y), None)[x])
}

/// Merge components, from their definition (see [`zkbc::analysis::components`]).
impl RefCfg {
    /// The headers of the natural loops containing `b`.
    pub fn loops_containing(&self, b: BlockId) -> Vec<BlockId> {
        let mut headers: Vec<BlockId> = self.back_edges().iter().map(|e| e.1).collect();
        headers.sort();
        headers.dedup();
        headers
            .into_iter()
            .filter(|h| self.natural_loop(*h).contains(&b))
            .collect()
    }

    /// The tail of the merge component headed by each block (`None` when it heads none), trying
    /// every block as the tail: the valid tail with the fewest component blocks. `calls` are the
    /// blocks containing a call (allowed only as the head or the tail).
    pub fn merge_component_tails(
        &self,
        calls: &zkbc::fxhash::HashSet<BlockId>,
    ) -> HashMap<BlockId, Option<BlockId>> {
        let loops: HashMap<BlockId, Vec<BlockId>> = self
            .blocks
            .iter()
            .map(|&b| (b, self.loops_containing(b)))
            .collect();
        let mut out = HashMap::default();
        for &h in &self.blocks {
            let mut best: Option<(usize, BlockId)> = None;
            for &t in &self.blocks {
                if t == h || loops[&h] != loops[&t] {
                    continue;
                }
                let from_h = reachable(&self.graph, self.node[&h], Some(self.node[&t]), None);
                let component: Vec<BlockId> = self
                    .blocks
                    .iter()
                    .copied()
                    .filter(|&b| b == t || from_h[self.node[&b]])
                    .collect();
                let valid = component.iter().all(|&b| {
                    self.dominates(h, b)
                        && self.post_dominates(t, b)
                        && (b == h || b == t || !calls.contains(&b))
                });
                if valid && best.is_none_or(|(n, _)| component.len() < n) {
                    best = Some((component.len(), t));
                }
            }
            out.insert(h, best.map(|(_, t)| t));
        }
        out
    }
}
