//! The control-flow graph of a function as a petgraph [`DiGraph`] whose nodes are blocks.
//!
//! The CFG is the *set* of edges between laid-out blocks: a `br` whose two arms name one block
//! gives a single edge (the arms differ only in their arguments, which the graph does not carry;
//! analyses that need the arguments read the terminator). Edges to blocks outside the layout
//! are dropped ([`crate::ir::verify`] reports them). Successors are listed in terminator order,
//! predecessors in layout order of their source, and the reverse post-order is the one of
//! [`Function::reverse_post_order`] (depth-first from the entry, successors in text order).
//!
//! Other analyses take a `&Cfg` so that one graph serves several of them; the petgraph graph is
//! exposed for petgraph's algorithms (SCCs in [`crate::analysis::loops`]).

use crate::fxhash::{HashMap, HashSet};

use crate::ir::{reverse_post_order, BlockId, Function, Terminator};
use petgraph::graph::{DiGraph, NodeIndex};

/// A function's CFG (see the module doc).
#[derive(Clone, Debug)]
pub struct Cfg {
    graph: DiGraph<BlockId, ()>,
    node: HashMap<BlockId, NodeIndex>,
    succs: HashMap<BlockId, Vec<BlockId>>,
    preds: HashMap<BlockId, Vec<BlockId>>,
    entry: BlockId,
    returns: Vec<BlockId>,
    rpo: Vec<BlockId>,
    rpo_number: HashMap<BlockId, usize>,
}

impl Cfg {
    /// The CFG of `func`'s laid-out blocks.
    pub fn new(func: &Function) -> Cfg {
        let mut graph = DiGraph::new();
        let mut node = HashMap::default();
        for &b in &func.layout {
            node.insert(b, graph.add_node(b));
        }
        let mut succs: HashMap<BlockId, Vec<BlockId>> = HashMap::default();
        let mut preds: HashMap<BlockId, Vec<BlockId>> =
            func.layout.iter().map(|b| (*b, Vec::new())).collect();
        let mut returns = Vec::new();
        for &b in &func.layout {
            let mut ss: Vec<BlockId> = Vec::new();
            for s in func.successors(b) {
                if node.contains_key(&s) && !ss.contains(&s) {
                    ss.push(s);
                    graph.add_edge(node[&b], node[&s], ());
                    preds.get_mut(&s).expect("laid-out block").push(b);
                }
            }
            succs.insert(b, ss);
            if matches!(func.block(b).term, Some(Terminator::Return(_))) {
                returns.push(b);
            }
        }
        let mut cfg = Cfg {
            graph,
            node,
            succs,
            preds,
            entry: func.entry,
            returns,
            rpo: Vec::new(),
            rpo_number: HashMap::default(),
        };
        cfg.rpo = cfg.compute_rpo();
        cfg.rpo_number = cfg.rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        cfg
    }

    fn compute_rpo(&self) -> Vec<BlockId> {
        if !self.node.contains_key(&self.entry) {
            return Vec::new();
        }
        let mut visited = HashSet::default();
        reverse_post_order(
            self.entry,
            |b| self.successors(b).iter().copied(),
            |b| visited.insert(b),
        )
    }

    /// The petgraph graph: one node per laid-out block (weight: the block), one edge per CFG
    /// edge.
    pub fn graph(&self) -> &DiGraph<BlockId, ()> {
        &self.graph
    }

    /// The petgraph node of block `b` (`None` if `b` is not laid out).
    pub fn node(&self, b: BlockId) -> Option<NodeIndex> {
        self.node.get(&b).copied()
    }

    /// The block of petgraph node `n`.
    pub fn block(&self, n: NodeIndex) -> BlockId {
        self.graph[n]
    }

    /// The entry block.
    pub fn entry(&self) -> BlockId {
        self.entry
    }

    /// Whether `b` is a laid-out block of the function.
    pub fn contains(&self, b: BlockId) -> bool {
        self.node.contains_key(&b)
    }

    /// The laid-out blocks in layout order.
    pub fn blocks(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.graph.node_weights().copied()
    }

    /// The number of laid-out blocks.
    pub fn n_blocks(&self) -> usize {
        self.graph.node_count()
    }

    /// The distinct successors of `b`, in terminator order.
    pub fn successors(&self, b: BlockId) -> &[BlockId] {
        self.succs.get(&b).map_or(&[], Vec::as_slice)
    }

    /// The distinct predecessors of `b`, in layout order.
    pub fn predecessors(&self, b: BlockId) -> &[BlockId] {
        self.preds.get(&b).map_or(&[], Vec::as_slice)
    }

    /// Every edge `(from, to)`, sources in layout order, targets in terminator order.
    pub fn edges(&self) -> Vec<(BlockId, BlockId)> {
        self.blocks()
            .flat_map(|b| self.successors(b).iter().map(move |&s| (b, s)))
            .collect()
    }

    /// The blocks that end in `return`, in layout order.
    pub fn returns(&self) -> &[BlockId] {
        &self.returns
    }

    /// The blocks reachable from the entry, in reverse post-order.
    pub fn reverse_post_order(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Whether `b` is reachable from the entry.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.rpo_number.contains_key(&b)
    }

    /// The position of `b` in the reverse post-order (`None` if it is unreachable).
    pub fn rpo_number(&self, b: BlockId) -> Option<usize> {
        self.rpo_number.get(&b).copied()
    }
}
