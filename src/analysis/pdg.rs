//! The program dependence graph of `../shared/seeds/ssa-structure-model.tex` (the design notes
//! folder beside the repository): data flow, control dependence and phi dependence over the
//! statements of a function.
//!
//! Nodes ([`PdgNode`]) are the statements: each block parameter (a phi), each instruction and
//! each block's terminator. Edges ([`DepKind`]) point from what is depended on to what depends
//! on it:
//!
//! - **Data** (the seed's `DFG`): from the definition of a value to each statement that reads
//!   it, and from the definition of each jump argument to the block parameter it binds (a phi's
//!   incoming value). Constants are not nodes.
//! - **Control** (the seed's `CDG`): from the terminator of `a` to every statement of `b` when
//!   block `b` is control dependent on `a`, by the relation passed in (by default the
//!   post-dominance one of [`crate::analysis::cdg`]).
//! - **Phi** (the seed's Definition "Phi Dependence Graph": the outcome of phi `p` depends on
//!   conditional branch `c` if a branch instruction that reaches `p` is control dependent on
//!   `c`): block parameters are the phis, and the branch instructions that reach a parameter of
//!   block `B` are the terminators of `B`'s predecessors. So there is an edge from the
//!   terminator of `c` to each parameter of `B` whenever `c` ends in a `br` and a predecessor of
//!   `B` is control dependent on `c` — or is `c` itself: a `br` that jumps to `B` chooses the
//!   edge, and so the value, `p` gets. In `br v0, b1(field 1), b1(field 2)` no block is control
//!   dependent on the branch (`b1` post-dominates it), yet it alone picks `b1`'s parameter; the
//!   seed's definition, read literally, would leave that parameter with no dependence on `v0`.
//!
//! The PDG is their union (Definition "Program Dependence Graph"), a petgraph `DiGraph` whose
//! parallel edges keep the kinds apart.

use crate::fxhash::HashMap;

use super::cdg::ControlDependence;
use super::cfg::Cfg;
use crate::ir::{BlockId, Function, InstId, Terminator, ValueDef, ValueId};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeSet;

/// A statement of the function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum PdgNode {
    /// A block parameter (a phi).
    Param(ValueId),
    /// An instruction.
    Inst(InstId),
    /// The terminator of a block.
    Term(BlockId),
}

/// Why one statement depends on another.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum DepKind {
    /// Reads a value the other defines (or, for a parameter, is bound to it by a jump).
    Data,
    /// Runs or not depending on the other's branch.
    Control,
    /// A parameter whose incoming value depends on the other's branch.
    Phi,
}

/// The program dependence graph of a function (see the module doc).
#[derive(Clone, Debug)]
pub struct Pdg {
    graph: DiGraph<PdgNode, DepKind>,
    index: HashMap<PdgNode, NodeIndex>,
}

impl Pdg {
    /// The PDG of `func` with post-dominance control dependence.
    pub fn new(func: &Function) -> Pdg {
        Pdg::compute(func, &Cfg::new(func), &ControlDependence::new(func))
    }

    /// The PDG of `func` with the control dependence relation `cdg`.
    pub fn compute(func: &Function, cfg: &Cfg, cdg: &ControlDependence) -> Pdg {
        let mut pdg = Pdg {
            graph: DiGraph::new(),
            index: HashMap::default(),
        };
        let mut block_nodes: HashMap<BlockId, Vec<PdgNode>> = HashMap::default();
        for b in cfg.blocks() {
            let data = func.block(b);
            let mut nodes: Vec<PdgNode> = data.params.iter().map(|p| PdgNode::Param(*p)).collect();
            nodes.extend(data.insts.iter().map(|i| PdgNode::Inst(*i)));
            nodes.push(PdgNode::Term(b));
            for &n in &nodes {
                pdg.add_node(n);
            }
            block_nodes.insert(b, nodes);
        }
        let def_node = |v: ValueId| match func.value(v).def {
            ValueDef::Param(..) => Some(PdgNode::Param(v)),
            ValueDef::Result(i, _) => Some(PdgNode::Inst(i)),
            ValueDef::Const(_) => None,
        };
        // Data flow.
        for b in cfg.blocks() {
            let data = func.block(b);
            for &i in &data.insts {
                for v in func.inst(i).kind.operands() {
                    if let Some(d) = def_node(v) {
                        pdg.add_edge(d, PdgNode::Inst(i), DepKind::Data);
                    }
                }
            }
            if let Some(term) = &data.term {
                for v in term.operands() {
                    if let Some(d) = def_node(v) {
                        pdg.add_edge(d, PdgNode::Term(b), DepKind::Data);
                    }
                }
                for call in term.block_calls() {
                    let params = &func.block(call.block).params;
                    for (arg, param) in call.args.iter().zip(params) {
                        if let Some(d) = def_node(*arg) {
                            pdg.add_edge(d, PdgNode::Param(*param), DepKind::Data);
                        }
                    }
                }
            }
        }
        // Control dependence.
        for &(a, b) in cdg.edges() {
            for &n in &block_nodes[&b] {
                pdg.add_edge(PdgNode::Term(a), n, DepKind::Control);
            }
        }
        // Phi dependence.
        for (c, p) in phi_dependence(func, cfg, cdg) {
            pdg.add_edge(PdgNode::Term(c), PdgNode::Param(p), DepKind::Phi);
        }
        pdg
    }

    fn add_node(&mut self, n: PdgNode) {
        let i = self.graph.add_node(n);
        self.index.insert(n, i);
    }

    fn add_edge(&mut self, from: PdgNode, to: PdgNode, kind: DepKind) {
        let (Some(&f), Some(&t)) = (self.index.get(&from), self.index.get(&to)) else {
            // A value defined outside the laid-out blocks: the verifier reports it.
            return;
        };
        if !self
            .graph
            .edges_connecting(f, t)
            .any(|e| *e.weight() == kind)
        {
            self.graph.add_edge(f, t, kind);
        }
    }

    /// The petgraph graph: nodes are statements, edge weights the kind of dependence.
    pub fn graph(&self) -> &DiGraph<PdgNode, DepKind> {
        &self.graph
    }

    /// The edges `(from, to)` of one kind, sorted.
    pub fn edges(&self, kind: DepKind) -> BTreeSet<(PdgNode, PdgNode)> {
        self.graph
            .edge_indices()
            .filter(|e| self.graph[*e] == kind)
            .map(|e| {
                let (f, t) = self.graph.edge_endpoints(e).expect("edge of the graph");
                (self.graph[f], self.graph[t])
            })
            .collect()
    }

    /// Whether `to` depends on `from` by an edge of kind `kind`.
    pub fn has_edge(&self, from: PdgNode, to: PdgNode, kind: DepKind) -> bool {
        match (self.index.get(&from), self.index.get(&to)) {
            (Some(&f), Some(&t)) => self
                .graph
                .edges_connecting(f, t)
                .any(|e| *e.weight() == kind),
            _ => false,
        }
    }

    /// The edges as text, one per line, sorted by kind: `data v3 -> i2`, `control b1 -> v4`,
    /// where `bN` names the terminator of block `bN`, `vN` a parameter and `iN` an instruction
    /// (named by its first result when it has one).
    pub fn display(&self, func: &Function) -> String {
        let name = |n: PdgNode| match n {
            PdgNode::Param(v) => v.to_string(),
            PdgNode::Inst(i) => match func.inst(i).results.first() {
                Some(v) => v.to_string(),
                None => format!("{}:{}", i, func.inst(i).kind.opcode()),
            },
            PdgNode::Term(b) => format!("{b}.term"),
        };
        let mut out = String::new();
        for (kind, label) in [
            (DepKind::Data, "data"),
            (DepKind::Control, "control"),
            (DepKind::Phi, "phi"),
        ] {
            for (f, t) in self.edges(kind) {
                out.push_str(&format!("{label} {} -> {}\n", name(f), name(t)));
            }
        }
        out
    }
}

/// The phi dependence graph: pairs `(c, p)` where block parameter `p` depends on the branch
/// ending block `c` (see the module doc), sorted.
pub fn phi_dependence(
    func: &Function,
    cfg: &Cfg,
    cdg: &ControlDependence,
) -> BTreeSet<(BlockId, ValueId)> {
    let mut out = BTreeSet::new();
    for b in cfg.blocks() {
        let params = &func.block(b).params;
        if params.is_empty() {
            continue;
        }
        for &pred in cfg.predecessors(b) {
            // The predecessor's own branch, then the branches it is control dependent on.
            for c in std::iter::once(pred).chain(cdg.controllers(pred)) {
                if matches!(func.block(c).term, Some(Terminator::Br { .. })) {
                    out.extend(params.iter().map(|p| (c, *p)));
                }
            }
        }
    }
    out
}
