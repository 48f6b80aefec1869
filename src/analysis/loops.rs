//! Strongly connected components and natural loops of a CFG.
//!
//! **SCCs** ([`sccs`]): the maximal sets of blocks that reach each other (petgraph's
//! `tarjan_scc`), listed in control-flow order: a topological order of the condensation, so a
//! component comes before every component it reaches; blocks within a component are in layout
//! order. Every block, reachable or not, is in exactly one component. A component is *cyclic*
//! when it has more than one block or its block jumps to itself.
//!
//! **Natural loops** ([`LoopForest`]): an edge `t -> h` between reachable blocks is a *back
//! edge* when `h` dominates `t`. The natural loop of header `h` is `h` together with every block
//! that reaches the source of one of `h`'s back edges without passing through `h` (all back
//! edges of one header form one loop, as in LLVM). Its *latches* are the sources of its back
//! edges, its *exits* the edges from a block in the loop to a block outside. Two natural loops
//! are disjoint or nested; the *parent* of a loop is the smallest loop strictly containing it,
//! and its *depth* is 1 for an outermost loop and one more than its parent's otherwise. The
//! loop depth of a block is the number of loops containing it (0 outside every loop).
//!
//! A cycle that stays a cycle once the back edges are removed is entered at two or more blocks
//! (an irreducible cycle); natural loops do not describe it, and [`LoopForest::is_reducible`] is
//! false.

use crate::fxhash::{HashMap, HashSet};

use super::cfg::Cfg;
use super::dominators::DomTree;
use crate::ir::{BlockId, Function};
use std::fmt;

/// The strongly connected components of `cfg` in control-flow order (see the module doc).
pub fn sccs(cfg: &Cfg) -> Vec<Vec<BlockId>> {
    let layout_pos: HashMap<BlockId, usize> =
        cfg.blocks().enumerate().map(|(i, b)| (b, i)).collect();
    // Tarjan emits components in reverse topological order.
    let mut out: Vec<Vec<BlockId>> = petgraph::algo::tarjan_scc(cfg.graph())
        .into_iter()
        .rev()
        .map(|comp| {
            let mut blocks: Vec<BlockId> = comp.into_iter().map(|n| cfg.block(n)).collect();
            blocks.sort_by_key(|b| layout_pos[b]);
            blocks
        })
        .collect();
    out.shrink_to_fit();
    out
}

/// Whether the component `scc` (as returned by [`sccs`]) contains a cycle.
pub fn is_cyclic(cfg: &Cfg, scc: &[BlockId]) -> bool {
    scc.len() > 1 || cfg.successors(scc[0]).contains(&scc[0])
}

/// The id of a natural loop in a [`LoopForest`]; its Display is `loopN`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct LoopId(pub u32);

impl LoopId {
    /// The loop's position in [`LoopForest::loops`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for LoopId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "loop{}", self.0)
    }
}

/// A natural loop (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The header: the only block of the loop entered from outside, dominating all of it.
    pub header: BlockId,
    /// The blocks of the loop, header first, then in reverse post-order.
    pub blocks: Vec<BlockId>,
    /// The back edges `(latch, header)`.
    pub back_edges: Vec<(BlockId, BlockId)>,
    /// The sources of the back edges, in reverse post-order.
    pub latches: Vec<BlockId>,
    /// The edges `(inside, outside)` that leave the loop.
    pub exits: Vec<(BlockId, BlockId)>,
    /// The smallest loop strictly containing this one.
    pub parent: Option<LoopId>,
    /// 1 for an outermost loop, the parent's depth plus one otherwise.
    pub depth: usize,
}

/// The natural loops of a function with their nesting, and its SCCs.
#[derive(Clone, Debug)]
pub struct LoopForest {
    loops: Vec<Loop>,
    innermost: HashMap<BlockId, LoopId>,
    sccs: Vec<Vec<BlockId>>,
    reducible: bool,
}

impl LoopForest {
    /// The loops of `func`.
    pub fn new(func: &Function) -> LoopForest {
        LoopForest::compute(&Cfg::new(func), &DomTree::dominators(func))
    }

    /// The loops of a CFG given its dominator tree.
    pub fn compute(cfg: &Cfg, dom: &DomTree) -> LoopForest {
        // Back edges grouped by header, headers in reverse post-order.
        let mut headers: Vec<BlockId> = Vec::new();
        let mut back_edges: HashMap<BlockId, Vec<(BlockId, BlockId)>> = HashMap::default();
        for &t in cfg.reverse_post_order() {
            for &h in cfg.successors(t) {
                if dom.dominates(h, t) {
                    if !back_edges.contains_key(&h) {
                        headers.push(h);
                    }
                    back_edges.entry(h).or_default().push((t, h));
                }
            }
        }
        headers.sort_by_key(|h| cfg.rpo_number(*h));
        let mut loops: Vec<Loop> = headers
            .iter()
            .map(|&h| natural_loop(cfg, h, &back_edges[&h]))
            .collect();
        // Nesting: a loop's parent is the smallest other loop containing its header.
        let sets: Vec<HashSet<BlockId>> = loops
            .iter()
            .map(|l| l.blocks.iter().copied().collect())
            .collect();
        for i in 0..loops.len() {
            loops[i].parent = (0..loops.len())
                .filter(|&j| j != i && sets[j].contains(&loops[i].header))
                .min_by_key(|&j| sets[j].len())
                .map(|j| LoopId(j as u32));
        }
        // Parents have headers earlier in reverse post-order, so depths resolve in order.
        for i in 0..loops.len() {
            loops[i].depth = match loops[i].parent {
                Some(p) => loops[p.index()].depth + 1,
                None => 1,
            };
        }
        let mut innermost: HashMap<BlockId, LoopId> = HashMap::default();
        for (i, l) in loops.iter().enumerate() {
            for &b in &l.blocks {
                let deeper = innermost
                    .get(&b)
                    .is_none_or(|cur| loops[cur.index()].depth < l.depth);
                if deeper {
                    innermost.insert(b, LoopId(i as u32));
                }
            }
        }
        let sccs = sccs(cfg);
        let reducible = acyclic_without_back_edges(cfg, &back_edges);
        LoopForest {
            loops,
            innermost,
            sccs,
            reducible,
        }
    }

    /// Every natural loop; a loop's parent comes before it.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// The loop `id`.
    pub fn get(&self, id: LoopId) -> &Loop {
        &self.loops[id.index()]
    }

    /// The ids of every loop, parents first.
    pub fn ids(&self) -> impl Iterator<Item = LoopId> {
        (0..self.loops.len() as u32).map(LoopId)
    }

    /// The innermost loop containing `b`.
    pub fn innermost(&self, b: BlockId) -> Option<LoopId> {
        self.innermost.get(&b).copied()
    }

    /// The number of loops containing `b`.
    pub fn depth(&self, b: BlockId) -> usize {
        self.innermost(b).map_or(0, |l| self.get(l).depth)
    }

    /// Whether loop `id` contains block `b`.
    pub fn contains(&self, id: LoopId, b: BlockId) -> bool {
        let mut cur = self.innermost(b);
        while let Some(l) = cur {
            if l == id {
                return true;
            }
            cur = self.get(l).parent;
        }
        false
    }

    /// The loop headed by `h`, if `h` is a loop header.
    pub fn loop_of_header(&self, h: BlockId) -> Option<LoopId> {
        self.ids().find(|&l| self.get(l).header == h)
    }

    /// The strongly connected components in control-flow order (as [`sccs`]).
    pub fn sccs(&self) -> &[Vec<BlockId>] {
        &self.sccs
    }

    /// The loops as text, one line each, e.g.
    /// `loop0: header b1 blocks [b1, b2] latches [b2] exits [b1->b3] parent - depth 1`.
    pub fn display(&self) -> String {
        let list = |v: &[BlockId]| {
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = String::new();
        for id in self.ids() {
            let l = self.get(id);
            let exits: Vec<String> = l.exits.iter().map(|(a, b)| format!("{a}->{b}")).collect();
            let parent = l.parent.map_or("-".to_string(), |p| p.to_string());
            out.push_str(&format!(
                "{id}: header {} blocks [{}] latches [{}] exits [{}] parent {parent} depth {}\n",
                l.header,
                list(&l.blocks),
                list(&l.latches),
                exits.join(", "),
                l.depth
            ));
        }
        out
    }

    /// `rpo`, a reverse post-order of the function, with the blocks of each loop moved up to
    /// follow its header, recursively: every loop's blocks are then consecutive, as are those
    /// of the loops inside it. A depth-first search that enters a loop's body before its exit
    /// lists everything after the loop before the body (`h, exit, …, body`); here it is
    /// `h, body, exit, …`, so an iteration that repeats a loop until it settles visits the
    /// loop and nothing else.
    ///
    /// In a reducible function this is still a topological order of the forward edges (those
    /// that are not back edges): a loop's blocks are entered only through its header, and an
    /// edge leaving the loop goes to a block its header precedes, or is an outer loop's back
    /// edge. In an irreducible one it is `rpo` unchanged.
    pub fn nested_order(&self, rpo: &[BlockId]) -> Vec<BlockId> {
        if !self.reducible || self.loops.is_empty() {
            return rpo.to_vec();
        }
        let position: HashMap<BlockId, usize> =
            rpo.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let headed: HashMap<BlockId, LoopId> =
            self.ids().map(|id| (self.get(id).header, id)).collect();
        let mut placed: HashSet<BlockId> = HashSet::default();
        let mut out = Vec::with_capacity(rpo.len());
        // (blocks in reverse post-order, the next one to place), innermost loop last.
        let mut stack: Vec<(Vec<BlockId>, usize)> = vec![(rpo.to_vec(), 0)];
        while let Some((blocks, next)) = stack.last_mut() {
            let Some(&b) = blocks.get(*next) else {
                stack.pop();
                continue;
            };
            *next += 1;
            if !placed.insert(b) {
                continue;
            }
            out.push(b);
            if let Some(&id) = headed.get(&b) {
                let mut inner: Vec<BlockId> = self
                    .get(id)
                    .blocks
                    .iter()
                    .copied()
                    .filter(|x| position.contains_key(x))
                    .collect();
                inner.sort_by_key(|x| position[x]);
                stack.push((inner, 0));
            }
        }
        out
    }

    /// Whether every cycle among reachable blocks is a natural loop (the reachable CFG has no
    /// cycle once the back edges are removed).
    pub fn is_reducible(&self) -> bool {
        self.reducible
    }
}

fn natural_loop(cfg: &Cfg, header: BlockId, back: &[(BlockId, BlockId)]) -> Loop {
    let mut body: HashSet<BlockId> = [header].into_iter().collect();
    let mut stack: Vec<BlockId> = Vec::new();
    for &(t, _) in back {
        if body.insert(t) {
            stack.push(t);
        }
    }
    while let Some(b) = stack.pop() {
        for &p in cfg.predecessors(b) {
            // Unreachable predecessors are not part of any loop.
            if cfg.is_reachable(p) && body.insert(p) {
                stack.push(p);
            }
        }
    }
    let mut blocks: Vec<BlockId> = body.iter().copied().collect();
    blocks.sort_by_key(|b| (*b != header, cfg.rpo_number(*b)));
    let mut latches: Vec<BlockId> = back.iter().map(|e| e.0).collect();
    latches.sort_by_key(|b| cfg.rpo_number(*b));
    let exits = blocks
        .iter()
        .flat_map(|&b| {
            cfg.successors(b)
                .iter()
                .filter(|s| !body.contains(s))
                .map(move |&s| (b, s))
        })
        .collect();
    Loop {
        header,
        blocks,
        back_edges: back.to_vec(),
        latches,
        exits,
        parent: None,
        depth: 0,
    }
}

/// Whether the reachable part of the CFG is acyclic once the back edges are removed.
fn acyclic_without_back_edges(
    cfg: &Cfg,
    back_edges: &HashMap<BlockId, Vec<(BlockId, BlockId)>>,
) -> bool {
    let is_back = |t: BlockId, h: BlockId| {
        back_edges
            .get(&h)
            .is_some_and(|es| es.iter().any(|e| e.0 == t))
    };
    // Kahn's algorithm on the reachable blocks without back edges.
    let rpo = cfg.reverse_post_order();
    let mut indegree: HashMap<BlockId, usize> = rpo.iter().map(|b| (*b, 0)).collect();
    for &b in rpo {
        for &s in cfg.successors(b) {
            if !is_back(b, s) {
                *indegree
                    .get_mut(&s)
                    .expect("successor of a reachable block") += 1;
            }
        }
    }
    let mut ready: Vec<BlockId> = rpo.iter().copied().filter(|b| indegree[b] == 0).collect();
    let mut n_done = 0;
    while let Some(b) = ready.pop() {
        n_done += 1;
        for &s in cfg.successors(b) {
            if !is_back(b, s) {
                let d = indegree
                    .get_mut(&s)
                    .expect("successor of a reachable block");
                *d -= 1;
                if *d == 0 {
                    ready.push(s);
                }
            }
        }
    }
    n_done == rpo.len()
}
