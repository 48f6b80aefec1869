//! Single-entry single-exit (SESE) regions and the region tree.
//!
//! **Definition implemented.** The seed (`../shared/seeds/ssa-structure-model.tex`, in the
//! design notes folder beside the repository, section "Formulating Constraint Problems")
//! describes a SESE region as a tuple of blocks `a, b, c, d` with
//! `is_control_edge(a, b)`, `is_control_edge(c, d)`, `is_control_dom(c, d)` and
//! `is_control_postdom(d, c)`. Taken literally the last two constrain only the exit edge and
//! never relate it to the entry edge, so every edge would pair with every other; we read it as
//! the definition it abbreviates, that of Johnson, Pearson and Pingali ("The Program Structure
//! Tree", PLDI 1994), which is over edges:
//!
//! The CFG is extended with a virtual `start` with an edge to the entry block and a virtual
//! `end` with an edge from every `return` block; only *live* blocks take part — those reachable
//! from the entry that reach a `return` (a block in an infinite loop is in no region). Edges are
//! distinct pairs of nodes. An ordered pair of distinct edges `(e1, e2)` is a **SESE region**
//! iff
//! 1. `e1` dominates `e2`: every path from `start` to `e2` passes through `e1`;
//! 2. `e2` post-dominates `e1`: every path from `e1` to `end` passes through `e2`;
//! 3. `e1` and `e2` are cycle equivalent: in the graph with an extra edge `end -> start`, every
//!    cycle through one of them passes through the other.
//!
//! Its blocks are the blocks dominated by `e1` and post-dominated by `e2` (edge dominance is
//! node dominance in the graph with every edge split by a node). A SESE region `(e1, e2)` is
//! **canonical** iff `e2` dominates `e2'` for every SESE region `(e1, e2')` and `e1`
//! post-dominates `e1'` for every SESE region `(e1', e2)`. Canonical regions are nested or
//! disjoint; the **region tree** makes the parent of a canonical region the smallest other
//! canonical region containing its blocks (of two with the same blocks, the outer is the one
//! whose entry edge dominates the other's).
//!
//! **Algorithm.** Dominators and post-dominators of the edge-split graph by
//! [`Graph::immediate_dominators`]. Cycle equivalence through the undirected graph (JPP,
//! Theorem 3: in a strongly connected graph, which the extended live graph is, two edges are
//! cycle equivalent iff they are in the undirected multigraph): there, since no edge is a
//! bridge, `e` and `f` are cycle equivalent iff `f` is a bridge of the graph without `e`, found
//! by Tarjan's bridge search once per edge (quadratic, simple; JPP's linear bracket-list
//! algorithm is not needed at our sizes). Within a class the edges are totally ordered by
//! dominance (JPP, Theorem 4); the SESE regions are the ordered pairs of a class that meet
//! conditions 1–2, and the canonical ones are the pairs adjacent in the order.
//! `tests/analysis_regions.rs` checks all of it against a brute-force search of the three
//! conditions (`zkbc_testkit::reference`) on random CFGs.

use crate::fxhash::HashMap;

use super::dominators::Graph;
use crate::ir::{BlockId, Function, Terminator};
use std::fmt;

/// A node of the extended CFG: a block, or the virtual start or end.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum RegionNode {
    /// The virtual start, whose only edge goes to the entry block.
    Start,
    /// A live block.
    Block(BlockId),
    /// The virtual end, which every returning block has an edge to.
    End,
}

impl fmt::Display for RegionNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegionNode::Start => f.write_str("start"),
            RegionNode::Block(b) => write!(f, "{b}"),
            RegionNode::End => f.write_str("end"),
        }
    }
}

/// An edge of the extended CFG.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct RegionEdge {
    /// Source.
    pub from: RegionNode,
    /// Target.
    pub to: RegionNode,
}

impl fmt::Display for RegionEdge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}->{}", self.from, self.to)
    }
}

/// The id of a canonical region in a [`RegionTree`]; its Display is `rN`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct RegionId(pub u32);

impl RegionId {
    /// The region's position in [`RegionTree::regions`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for RegionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// A canonical SESE region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The edge control enters by.
    pub entry: RegionEdge,
    /// The edge control leaves by.
    pub exit: RegionEdge,
    /// The blocks of the region, in layout order.
    pub blocks: Vec<BlockId>,
    /// The smallest canonical region containing this one.
    pub parent: Option<RegionId>,
    /// The canonical regions whose parent this is.
    pub children: Vec<RegionId>,
}

/// The extended CFG of the live blocks, with every edge split by a node.
///
/// Nodes `0..n_blocks` are the live blocks, then `start`, `end`, then one node per edge.
#[derive(Clone, Debug)]
pub struct ExtendedCfg {
    /// The live blocks; node `i` is `blocks[i]`.
    pub blocks: Vec<BlockId>,
    /// The edges as `(from, to)` node numbers (`n_blocks` is start, `n_blocks + 1` end).
    pub edges: Vec<(usize, usize)>,
    /// The edge-split graph (without the `end -> start` edge).
    pub split: Graph,
}

impl ExtendedCfg {
    /// The extended CFG of `func` (see the module doc for which blocks are live).
    pub fn new(func: &Function) -> ExtendedCfg {
        let all = func.reverse_post_order();
        let layout_pos: HashMap<BlockId, usize> = func
            .layout
            .iter()
            .enumerate()
            .map(|(i, b)| (*b, i))
            .collect();
        let reached: crate::fxhash::HashSet<BlockId> = all.iter().copied().collect();
        let is_return = |b: BlockId| matches!(func.block(b).term, Some(Terminator::Return(_)));
        // Blocks that reach a return: backward search from the returns over reached blocks.
        let mut preds: HashMap<BlockId, Vec<BlockId>> = HashMap::default();
        for &b in &all {
            for s in func.successors(b) {
                preds.entry(s).or_default().push(b);
            }
        }
        let mut live: crate::fxhash::HashSet<BlockId> =
            all.iter().copied().filter(|b| is_return(*b)).collect();
        let mut stack: Vec<BlockId> = live.iter().copied().collect();
        while let Some(b) = stack.pop() {
            for &p in preds.get(&b).map_or(&[][..], Vec::as_slice) {
                if reached.contains(&p) && live.insert(p) {
                    stack.push(p);
                }
            }
        }
        let mut blocks: Vec<BlockId> = live.into_iter().collect();
        blocks.sort_by_key(|b| layout_pos.get(b).copied());
        let node: HashMap<BlockId, usize> =
            blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let (start, end) = (blocks.len(), blocks.len() + 1);
        let mut edges = Vec::new();
        if node.contains_key(&func.entry) {
            edges.push((start, node[&func.entry]));
        }
        for (i, &b) in blocks.iter().enumerate() {
            let mut seen = Vec::new();
            for s in func.successors(b) {
                if let Some(&j) = node.get(&s) {
                    if !seen.contains(&j) {
                        seen.push(j);
                        edges.push((i, j));
                    }
                }
            }
            if is_return(b) {
                edges.push((i, end));
            }
        }
        let mut succs = vec![Vec::new(); blocks.len() + 2 + edges.len()];
        for (k, &(u, v)) in edges.iter().enumerate() {
            let e = blocks.len() + 2 + k;
            succs[u].push(e);
            succs[e].push(v);
        }
        ExtendedCfg {
            blocks,
            edges,
            split: Graph { succs },
        }
    }

    /// The node of `start`.
    pub fn start(&self) -> usize {
        self.blocks.len()
    }

    /// The node of `end`.
    pub fn end(&self) -> usize {
        self.blocks.len() + 1
    }

    /// The split-graph node of edge `k`.
    pub fn edge_node(&self, k: usize) -> usize {
        self.blocks.len() + 2 + k
    }

    /// The extended-CFG node `n` (`n < n_blocks + 2`) as a [`RegionNode`].
    pub fn region_node(&self, n: usize) -> RegionNode {
        if n == self.start() {
            RegionNode::Start
        } else if n == self.end() {
            RegionNode::End
        } else {
            RegionNode::Block(self.blocks[n])
        }
    }

    /// Edge `k` as a [`RegionEdge`].
    pub fn region_edge(&self, k: usize) -> RegionEdge {
        let (u, v) = self.edges[k];
        RegionEdge {
            from: self.region_node(u),
            to: self.region_node(v),
        }
    }
}

/// A dominator tree over `0..n` with constant-depth ancestor tests.
struct Tree {
    idom: Vec<Option<usize>>,
    depth: Vec<usize>,
}

impl Tree {
    fn new(g: &Graph, root: usize) -> Tree {
        let idom = g.immediate_dominators(root);
        let mut depth = vec![usize::MAX; g.len()];
        depth[root] = 0;
        for n in 0..g.len() {
            let mut chain = Vec::new();
            let mut cur = n;
            while depth[cur] == usize::MAX {
                chain.push(cur);
                match idom[cur] {
                    Some(p) if p != cur => cur = p,
                    _ => break,
                }
            }
            let base = depth[cur];
            for (k, &c) in chain.iter().rev().enumerate() {
                depth[c] = base.wrapping_add(k + 1);
            }
        }
        Tree { idom, depth }
    }

    fn dominates(&self, a: usize, b: usize) -> bool {
        if self.idom[a].is_none() || self.idom[b].is_none() || self.depth[a] > self.depth[b] {
            return false;
        }
        let mut cur = b;
        for _ in self.depth[a]..self.depth[b] {
            cur = self.idom[cur].expect("node in the tree");
        }
        cur == a
    }
}

/// The SESE regions of a function (see the module doc).
pub struct RegionTree {
    ext: ExtendedCfg,
    dom: Tree,
    pdom: Tree,
    classes: Vec<Vec<usize>>,
    regions: Vec<Region>,
}

impl RegionTree {
    /// The SESE regions of `func`.
    pub fn new(func: &Function) -> RegionTree {
        let ext = ExtendedCfg::new(func);
        let dom = Tree::new(&ext.split, ext.start());
        let pdom = Tree::new(&ext.split.reversed(), ext.end());
        let classes = cycle_equivalence_classes(&ext);
        let mut tree = RegionTree {
            ext,
            dom,
            pdom,
            classes: Vec::new(),
            regions: Vec::new(),
        };
        // Each class in dominance order.
        tree.classes = classes
            .into_iter()
            .map(|mut class| {
                class.sort_by_key(|&k| tree.dom.depth[tree.ext.edge_node(k)]);
                class
            })
            .collect();
        let mut regions = Vec::new();
        for class in &tree.classes {
            for pair in class.windows(2) {
                if tree.is_sese(pair[0], pair[1]) {
                    regions.push(tree.make_region(pair[0], pair[1]));
                }
            }
        }
        // Parents: the smallest containing region; equal block sets nest by entry dominance.
        let n = regions.len();
        let entry_depth = |r: &Region, t: &RegionTree| {
            let k = t.edge_index(r.entry).expect("region edge");
            t.dom.depth[t.ext.edge_node(k)]
        };
        for i in 0..n {
            let inside = |j: usize| {
                let (ri, rj) = (&regions[i], &regions[j]);
                rj.blocks.len() >= ri.blocks.len()
                    && ri.blocks.iter().all(|b| rj.blocks.contains(b))
                    && (rj.blocks.len() > ri.blocks.len()
                        || entry_depth(rj, &tree) < entry_depth(ri, &tree))
            };
            regions[i].parent = (0..n)
                .filter(|&j| j != i && inside(j))
                .min_by_key(|&j| {
                    (
                        regions[j].blocks.len(),
                        usize::MAX - entry_depth(&regions[j], &tree),
                    )
                })
                .map(|j| RegionId(j as u32));
        }
        for i in 0..n {
            if let Some(p) = regions[i].parent {
                regions[p.index()].children.push(RegionId(i as u32));
            }
        }
        tree.regions = regions;
        tree
    }

    fn edge_index(&self, e: RegionEdge) -> Option<usize> {
        (0..self.ext.edges.len()).find(|&k| self.ext.region_edge(k) == e)
    }

    /// Conditions 1 and 2 for edges `e1`, `e2` (given cycle equivalence).
    fn is_sese(&self, e1: usize, e2: usize) -> bool {
        let (n1, n2) = (self.ext.edge_node(e1), self.ext.edge_node(e2));
        e1 != e2 && self.dom.dominates(n1, n2) && self.pdom.dominates(n2, n1)
    }

    fn make_region(&self, e1: usize, e2: usize) -> Region {
        let (n1, n2) = (self.ext.edge_node(e1), self.ext.edge_node(e2));
        let blocks = (0..self.ext.blocks.len())
            .filter(|&b| self.dom.dominates(n1, b) && self.pdom.dominates(n2, b))
            .map(|b| self.ext.blocks[b])
            .collect();
        Region {
            entry: self.ext.region_edge(e1),
            exit: self.ext.region_edge(e2),
            blocks,
            parent: None,
            children: Vec::new(),
        }
    }

    /// The canonical SESE regions; a region's parent may come before or after it.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The canonical region `id`.
    pub fn get(&self, id: RegionId) -> &Region {
        &self.regions[id.index()]
    }

    /// The ids of every canonical region.
    pub fn ids(&self) -> impl Iterator<Item = RegionId> {
        (0..self.regions.len() as u32).map(RegionId)
    }

    /// The canonical regions without a parent.
    pub fn roots(&self) -> Vec<RegionId> {
        self.ids()
            .filter(|r| self.get(*r).parent.is_none())
            .collect()
    }

    /// The smallest canonical region containing block `b`.
    pub fn innermost(&self, b: BlockId) -> Option<RegionId> {
        self.ids()
            .filter(|r| self.get(*r).blocks.contains(&b))
            .min_by_key(|r| {
                let mut depth = 0;
                let mut cur = self.get(*r).parent;
                while let Some(p) = cur {
                    depth += 1;
                    cur = self.get(p).parent;
                }
                usize::MAX - depth
            })
    }

    /// Every SESE region `(entry, exit)`, canonical or not, sorted.
    pub fn all_sese_regions(&self) -> Vec<(RegionEdge, RegionEdge)> {
        let mut out = Vec::new();
        for class in &self.classes {
            for (i, &e1) in class.iter().enumerate() {
                for &e2 in &class[i + 1..] {
                    if self.is_sese(e1, e2) {
                        out.push((self.ext.region_edge(e1), self.ext.region_edge(e2)));
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// The blocks of the region `(entry, exit)` (dominated by `entry`, post-dominated by `exit`),
    /// in layout order; `None` if either is not an edge of the extended CFG.
    pub fn blocks_between(&self, entry: RegionEdge, exit: RegionEdge) -> Option<Vec<BlockId>> {
        Some(
            self.make_region(self.edge_index(entry)?, self.edge_index(exit)?)
                .blocks,
        )
    }

    /// The region tree as text, children indented under their parent:
    /// `r0 start->b0 .. b3->end {b0, b1, b2, b3}`.
    pub fn display(&self) -> String {
        fn walk(t: &RegionTree, r: RegionId, indent: usize, out: &mut String) {
            let reg = t.get(r);
            let blocks: Vec<String> = reg.blocks.iter().map(ToString::to_string).collect();
            out.push_str(&format!(
                "{}{r} {} .. {} {{{}}}\n",
                "  ".repeat(indent),
                reg.entry,
                reg.exit,
                blocks.join(", ")
            ));
            let mut children = reg.children.clone();
            children.sort_by_key(|c| t.get(*c).entry);
            for c in children {
                walk(t, c, indent + 1, out);
            }
        }
        let mut out = String::new();
        let mut roots = self.roots();
        roots.sort_by_key(|r| self.get(*r).entry);
        for r in roots {
            walk(self, r, 0, &mut out);
        }
        out
    }
}

/// The cycle-equivalence classes of the extended CFG's edges (see the module doc).
fn cycle_equivalence_classes(ext: &ExtendedCfg) -> Vec<Vec<usize>> {
    let n_nodes = ext.blocks.len() + 2;
    let mut edges = ext.edges.clone();
    edges.push((ext.end(), ext.start()));
    let m = ext.edges.len();
    let mut class: Vec<Option<usize>> = vec![None; m];
    let mut classes: Vec<Vec<usize>> = Vec::new();
    for e in 0..m {
        if class[e].is_some() {
            continue;
        }
        let id = classes.len();
        let mut members = vec![e];
        class[e] = Some(id);
        if edges[e].0 != edges[e].1 {
            for f in bridges(n_nodes, &edges, e) {
                if f < m && class[f].is_none() {
                    class[f] = Some(id);
                    members.push(f);
                }
            }
        }
        classes.push(members);
    }
    classes
}

/// The bridges of the undirected multigraph `edges` without edge `removed` (Tarjan's lowpoint
/// search, iterative; edges are told apart by index so parallel edges are not bridges).
fn bridges(n_nodes: usize, edges: &[(usize, usize)], removed: usize) -> Vec<usize> {
    let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n_nodes];
    for (k, &(u, v)) in edges.iter().enumerate() {
        if k != removed && u != v {
            adj[u].push((v, k));
            adj[v].push((u, k));
        }
    }
    let mut order = vec![usize::MAX; n_nodes];
    let mut low = vec![0; n_nodes];
    let mut out = Vec::new();
    let mut counter = 0;
    for root in 0..n_nodes {
        if order[root] != usize::MAX {
            continue;
        }
        order[root] = counter;
        low[root] = counter;
        counter += 1;
        // (node, edge it was entered by, next adjacency index)
        let mut stack: Vec<(usize, usize, usize)> = vec![(root, usize::MAX, 0)];
        while let Some(&mut (u, via, ref mut next)) = stack.last_mut() {
            if let Some(&(w, k)) = adj[u].get(*next) {
                *next += 1;
                if k == via {
                    continue;
                }
                if order[w] == usize::MAX {
                    order[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push((w, k, 0));
                } else {
                    low[u] = low[u].min(order[w]);
                }
            } else {
                stack.pop();
                if let Some(&(p, _, _)) = stack.last() {
                    low[p] = low[p].min(low[u]);
                    if low[u] > order[p] {
                        out.push(via);
                    }
                }
            }
        }
    }
    out
}
