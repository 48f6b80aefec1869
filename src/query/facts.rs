//! The facts a query is solved against: one function's IR and the analyses its predicates read.
//!
//! [`Facts`] computes, once per function, everything the predicates of
//! [`crate::query::Pred`] consult: the CFG ([`Cfg`]), dominator and post-dominator trees
//! ([`DomTree`]), natural loops ([`LoopForest`]), post-dominance control dependence
//! ([`ControlDependence`]), and for SESE regions the extended CFG of
//! [`crate::analysis::regions`] (live blocks, a virtual `start` and `end`) with dominator trees
//! of its edge-split graph. Cycle equivalence is *not* taken from the region analysis: it is
//! decided from its definition (every cycle through one edge passes through the other) by a
//! graph search per pair, memoized, so that the SESE query is an independent check of
//! [`crate::analysis::RegionTree`].
//!
//! **Which control dependence.** Queries see the post-dominance relation (Ferrante–Ottenstein–
//! Warren), not the seed's cut-based one: the PDG, SESE regions and the guards merging
//! predicates with are all defined by it, and a query's answer must agree with what those
//! passes do. The seed's relation makes every block after a loop depend on the loop's exit
//! branch (once entered, the rest is reached only through the exit edge), so "the blocks a
//! branch guards" would include code that runs whichever way the branch goes. `zkbc compile
//! --show cdg-both` draws both, with their differences styled.

use crate::fxhash::{HashMap, HashSet};

use crate::analysis::dominators::Graph;
use crate::analysis::regions::{ExtendedCfg, RegionNode};
use crate::analysis::{Cfg, ControlDependence, DomTree, LoopForest};
use crate::ir::{BlockId, Function, InstId, ValueDef, ValueId};
use std::cell::RefCell;

/// One function with its analyses (see the module doc).
pub struct Facts<'f> {
    /// The function queried.
    pub func: &'f Function,
    /// Its CFG.
    pub cfg: Cfg,
    /// Its dominator tree.
    pub dom: DomTree,
    /// Its post-dominator tree (toward a virtual exit after every `return`).
    pub pdom: DomTree,
    /// Its natural loops.
    pub loops: LoopForest,
    /// Its post-dominance control dependence.
    pub cdg: ControlDependence,
    /// The extended CFG of the live blocks, for SESE regions.
    pub ext: ExtendedCfg,
    /// The block of every laid-out instruction.
    pub inst_block: HashMap<InstId, BlockId>,
    /// The laid-out instructions in layout order.
    pub insts: Vec<InstId>,
    /// The values defined in laid-out blocks (parameters, results) and the constants they use.
    pub values: Vec<ValueId>,
    ext_node: HashMap<RegionNode, usize>,
    ext_edge: HashMap<(usize, usize), usize>,
    edge_dom: NodeTree,
    edge_pdom: NodeTree,
    /// Successors in the extended CFG with the edge `end -> start`, as `(target, edge index)`;
    /// the extra edge has index `ext.edges.len()`.
    cyclic: Vec<Vec<(usize, usize)>>,
    /// `(e, f)` → whether some cycle passes through edge `e` and not through edge `f`.
    cycle_cache: RefCell<HashMap<(usize, usize), bool>>,
    /// The users of each value ([`Facts::users_of`]), built on first use.
    users: std::cell::OnceCell<HashMap<ValueId, Vec<InstId>>>,
    /// Whether [`Facts::users_of`] was asked before (the second question builds the index).
    users_asked: std::cell::Cell<bool>,
}

impl<'f> Facts<'f> {
    /// The facts of `func`.
    pub fn new(func: &'f Function) -> Facts<'f> {
        let cfg = Cfg::new(func);
        let dom = DomTree::dominators(func);
        let pdom = DomTree::post_dominators(func);
        let loops = LoopForest::compute(&cfg, &dom);
        let cdg = ControlDependence::from_post_dominators(&cfg, &pdom);
        let ext = ExtendedCfg::new(func);
        let n_nodes = ext.blocks.len() + 2;
        let ext_node = (0..n_nodes).map(|n| (ext.region_node(n), n)).collect();
        let ext_edge = ext.edges.iter().enumerate().map(|(k, &e)| (e, k)).collect();
        let edge_dom = NodeTree::new(&ext.split, ext.start());
        let edge_pdom = NodeTree::new(&ext.split.reversed(), ext.end());
        let mut cyclic = vec![Vec::new(); n_nodes];
        for (k, &(u, v)) in ext.edges.iter().enumerate() {
            cyclic[u].push((v, k));
        }
        cyclic[ext.end()].push((ext.start(), ext.edges.len()));
        let inst_block = func.inst_blocks();
        let insts: Vec<InstId> = func
            .layout
            .iter()
            .flat_map(|b| func.block(*b).insts.iter().copied())
            .collect();
        let mut seen = HashSet::default();
        let mut values = Vec::new();
        let mut add = |v: ValueId, values: &mut Vec<ValueId>| {
            if seen.insert(v) {
                values.push(v);
            }
        };
        for &b in &func.layout {
            let data = func.block(b);
            for &p in &data.params {
                add(p, &mut values);
            }
            for &i in &data.insts {
                let inst = func.inst(i);
                inst.kind.for_each_operand(|v| {
                    if matches!(func.value(v).def, ValueDef::Const(_)) {
                        add(v, &mut values);
                    }
                });
                for &r in &inst.results {
                    add(r, &mut values);
                }
            }
            if let Some(term) = &data.term {
                for v in term.operands() {
                    if matches!(func.value(v).def, ValueDef::Const(_)) {
                        add(v, &mut values);
                    }
                }
            }
        }
        Facts {
            func,
            cfg,
            dom,
            pdom,
            loops,
            cdg,
            ext,
            inst_block,
            insts,
            values,
            ext_node,
            ext_edge,
            edge_dom,
            edge_pdom,
            cyclic,
            cycle_cache: RefCell::new(HashMap::default()),
            users: std::cell::OnceCell::new(),
            users_asked: std::cell::Cell::new(false),
        }
    }

    /// The laid-out instructions that use `v` as an operand, in layout order (an index built
    /// on first use: a query asking for the users of one value after another scanned every
    /// instruction each time).
    pub fn users_of(&self, v: ValueId) -> std::borrow::Cow<'_, [InstId]> {
        // The first question is answered by a scan: a query that asks once (most functions
        // have one loop or none) does not pay for the index.
        if self.users.get().is_none() && !self.users_asked.replace(true) {
            let found: Vec<InstId> = self
                .insts
                .iter()
                .copied()
                .filter(|i| self.func.inst(*i).kind.operands().contains(&v))
                .collect();
            return std::borrow::Cow::Owned(found);
        }
        let users = self.users.get_or_init(|| {
            let mut users: HashMap<ValueId, Vec<InstId>> = HashMap::default();
            for &i in &self.insts {
                self.func.inst(i).kind.for_each_operand(|v| {
                    let list = users.entry(v).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                });
            }
            users
        });
        std::borrow::Cow::Borrowed(users.get(&v).map_or(&[], Vec::as_slice))
    }

    /// The nodes of the extended CFG: the live blocks in layout order, then `start` and `end`.
    pub fn ext_nodes(&self) -> Vec<RegionNode> {
        (0..self.ext.blocks.len() + 2)
            .map(|n| self.ext.region_node(n))
            .collect()
    }

    /// The index of edge `a -> b` of the extended CFG.
    pub fn ext_edge(&self, a: RegionNode, b: RegionNode) -> Option<usize> {
        let (u, v) = (*self.ext_node.get(&a)?, *self.ext_node.get(&b)?);
        self.ext_edge.get(&(u, v)).copied()
    }

    /// The successors of `a` in the extended CFG.
    pub fn ext_successors(&self, a: RegionNode) -> Vec<RegionNode> {
        let Some(&u) = self.ext_node.get(&a) else {
            return Vec::new();
        };
        self.ext
            .edges
            .iter()
            .filter(|e| e.0 == u)
            .map(|e| self.ext.region_node(e.1))
            .collect()
    }

    /// The predecessors of `b` in the extended CFG.
    pub fn ext_predecessors(&self, b: RegionNode) -> Vec<RegionNode> {
        let Some(&v) = self.ext_node.get(&b) else {
            return Vec::new();
        };
        self.ext
            .edges
            .iter()
            .filter(|e| e.1 == v)
            .map(|e| self.ext.region_node(e.0))
            .collect()
    }

    /// Whether extended-CFG edge `e1` dominates edge `e2` (reflexive): every path from `start`
    /// to `e2` passes through `e1`.
    pub fn edge_dominates(&self, e1: usize, e2: usize) -> bool {
        self.edge_dom
            .dominates(self.ext.edge_node(e1), self.ext.edge_node(e2))
    }

    /// Whether edge `e2` post-dominates edge `e1` (reflexive): every path from `e1` to `end`
    /// passes through `e2`.
    pub fn edge_post_dominates(&self, e2: usize, e1: usize) -> bool {
        self.edge_pdom
            .dominates(self.ext.edge_node(e2), self.ext.edge_node(e1))
    }

    /// Whether edges `e1` and `e2` are cycle equivalent in the extended CFG with the edge
    /// `end -> start`: every cycle through one passes through the other.
    pub fn cycle_equivalent(&self, e1: usize, e2: usize) -> bool {
        e1 == e2 || (!self.cycle_avoiding(e1, e2) && !self.cycle_avoiding(e2, e1))
    }

    /// Whether some cycle passes through edge `e` and not through edge `f`: the target of `e`
    /// reaches its source without using `f` (a shortest such path does not use `e` either).
    fn cycle_avoiding(&self, e: usize, f: usize) -> bool {
        if let Some(&known) = self.cycle_cache.borrow().get(&(e, f)) {
            return known;
        }
        let (src, dst) = self.ext.edges[e];
        let mut seen = vec![false; self.cyclic.len()];
        let mut stack = vec![dst];
        seen[dst] = true;
        let mut found = false;
        while let Some(n) = stack.pop() {
            if n == src {
                found = true;
                break;
            }
            for &(m, k) in &self.cyclic[n] {
                if k != f && !seen[m] {
                    seen[m] = true;
                    stack.push(m);
                }
            }
        }
        self.cycle_cache.borrow_mut().insert((e, f), found);
        found
    }

    /// The blocks of the SESE region `(e1, e2)`: dominated by `e1` and post-dominated by `e2`,
    /// in layout order.
    pub fn region_blocks(&self, e1: usize, e2: usize) -> Vec<BlockId> {
        let (n1, n2) = (self.ext.edge_node(e1), self.ext.edge_node(e2));
        (0..self.ext.blocks.len())
            .filter(|&b| self.edge_dom.dominates(n1, b) && self.edge_pdom.dominates(n2, b))
            .map(|b| self.ext.blocks[b])
            .collect()
    }

    /// The block defining `v` (its block for a parameter, the instruction's block for a
    /// result), `None` for a constant.
    pub fn def_block(&self, v: ValueId) -> Option<BlockId> {
        match self.func.value(v).def {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i, _) => self.inst_block.get(&i).copied(),
            ValueDef::Const(_) => None,
        }
    }
}

/// A dominator tree over graph nodes `0..n` with ancestor tests by walking up.
struct NodeTree {
    idom: Vec<Option<usize>>,
    depth: Vec<usize>,
}

impl NodeTree {
    fn new(g: &Graph, root: usize) -> NodeTree {
        let idom = g.immediate_dominators(root);
        let mut depth = vec![usize::MAX; g.len()];
        // Nodes in reverse post-order have their idom's depth known first.
        for n in g.reverse_post_order(root) {
            depth[n] = match idom[n] {
                Some(p) if p != n => depth[p] + 1,
                _ => 0,
            };
        }
        NodeTree { idom, depth }
    }

    fn dominates(&self, a: usize, b: usize) -> bool {
        if self.depth[a] == usize::MAX
            || self.depth[b] == usize::MAX
            || self.depth[a] > self.depth[b]
        {
            return false;
        }
        let mut cur = b;
        while self.depth[cur] > self.depth[a] {
            cur = self.idom[cur].expect("bug: node in the tree has an idom");
        }
        cur == a
    }
}
