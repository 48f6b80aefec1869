//! Control dependence between blocks: which branch decides whether a block runs.
//!
//! Two relations are computed, because the seed's definition is not the textbook one.
//!
//! **Post-dominance control dependence** ([`ControlDependence::new`]), after Ferrante,
//! Ottenstein and Warren ("The Program Dependence Graph and Its Use in Optimization", 1987) in
//! the form of Cytron et al. ("Efficiently Computing Static Single Assignment Form and the
//! Control Dependence Graph", 1991): `b` is control dependent on `a` iff `b` post-dominates a
//! successor of `a` and does not strictly post-dominate `a`; equivalently `a` is in the
//! post-dominance frontier of `b`. It is computed from the post-dominator tree
//! ([`DomTree::post_dominators`], toward a virtual exit after every `return`) with the frontier
//! walk of Cooper, Harvey and Kennedy: for every edge `a -> s`, every block from `s` up the tree
//! to (excluding) `ipdom(a)` is control dependent on `a`. A block can depend on itself (a loop
//! header that branches out of its loop). Blocks that reach no `return` have no post-dominators
//! and so neither have nor cause dependences. This is the relation compilers mean by "the CDG",
//! and the one [`crate::analysis::pdg`] uses by default.
//!
//! **The seed's cut-based control dependence** ([`ControlDependence::seed`]),
//! `../shared/seeds/ssa-structure-model.tex` (the design notes folder beside the repository),
//! Definition "Control Dependence": `b` is control dependent on
//! `a` iff `a` has successors `c`, `c'` such that removing the edge `(a, c)` leaves no path from
//! `a` to `b` and removing `(a, c')` leaves one. Paths here are the seed's *connections*, which
//! include the one-node path from `a` to itself, so no block depends on itself. Since a block
//! has at most two distinct successors, this is: `a` branches to distinct `c` and `c'`, `b != a`,
//! and `b` is reachable from exactly one of `c`, `c'` in the CFG with `a` removed (a path that
//! returns to `a` can only leave again by the same edge). That is how it is computed here.
//!
//! The two differ. The seed's relation asks whether `a`'s choice decides if `b` can be reached
//! at all, the textbook one whether it decides if `b` must run before the function returns:
//! after `while c { body }; rest`, `rest` depends on the loop's branch by the seed's definition
//! (once the loop is entered, `rest` is reached only through the exit edge) and not by the
//! textbook one (`rest` post-dominates the loop); and in a nested `if a { if c { b } }` the
//! block `b` depends on both branches by the seed's definition, only on `c` by the textbook
//! one. The seed's own example says as much ("everything afterwards is control dependent on
//! 16", the loop's latch). `tests/analysis_cdg.rs` checks both relations against their
//! definitions on random CFGs and shows the differences on small programs.

use crate::fxhash::{HashMap, HashSet};

use super::cfg::Cfg;
use super::dominators::DomTree;
use crate::ir::{BlockId, Function};
use std::collections::BTreeSet;

/// A control dependence relation over blocks: pairs `(a, b)` meaning `b` is control dependent
/// on the branch that ends `a`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlDependence {
    edges: BTreeSet<(BlockId, BlockId)>,
    controls: HashMap<BlockId, Vec<BlockId>>,
}

impl ControlDependence {
    /// The post-dominance (Ferrante–Ottenstein–Warren / Cytron) control dependence of `func`.
    pub fn new(func: &Function) -> ControlDependence {
        ControlDependence::from_post_dominators(&Cfg::new(func), &DomTree::post_dominators(func))
    }

    /// The post-dominance control dependence of a CFG given its post-dominator tree.
    pub fn from_post_dominators(cfg: &Cfg, pdom: &DomTree) -> ControlDependence {
        let mut edges = BTreeSet::new();
        for a in cfg.blocks() {
            if !pdom.contains(a) {
                continue;
            }
            // ipdom(a) is `None` when it is the virtual exit: then walk to the tree's top.
            let stop = pdom.idom(a);
            for &s in cfg.successors(a) {
                if !pdom.contains(s) {
                    continue;
                }
                let mut runner = Some(s);
                while runner != stop {
                    let r = runner.expect("ipdom(a) post-dominates every successor of a");
                    edges.insert((a, r));
                    runner = pdom.idom(r);
                }
            }
        }
        ControlDependence::from_edges(edges)
    }

    /// The seed's cut-based control dependence of `func` (see the module doc).
    pub fn seed(func: &Function) -> ControlDependence {
        ControlDependence::seed_from_cfg(&Cfg::new(func))
    }

    /// The seed's cut-based control dependence of a CFG.
    pub fn seed_from_cfg(cfg: &Cfg) -> ControlDependence {
        let mut edges = BTreeSet::new();
        for a in cfg.blocks() {
            let &[c, c2] = cfg.successors(a) else {
                continue;
            };
            let from_c = reachable_without(cfg, c, a);
            let from_c2 = reachable_without(cfg, c2, a);
            for b in from_c.symmetric_difference(&from_c2) {
                edges.insert((a, *b));
            }
        }
        ControlDependence::from_edges(edges)
    }

    fn from_edges(edges: BTreeSet<(BlockId, BlockId)>) -> ControlDependence {
        let mut controls: HashMap<BlockId, Vec<BlockId>> = HashMap::default();
        for &(a, b) in &edges {
            controls.entry(a).or_default().push(b);
        }
        ControlDependence { edges, controls }
    }

    /// Every pair `(a, b)`: `b` is control dependent on `a`, sorted.
    pub fn edges(&self) -> &BTreeSet<(BlockId, BlockId)> {
        &self.edges
    }

    /// Whether `b` is control dependent on `a`.
    pub fn depends_on(&self, b: BlockId, a: BlockId) -> bool {
        self.edges.contains(&(a, b))
    }

    /// The blocks control dependent on `a`, sorted.
    pub fn controlled_by(&self, a: BlockId) -> &[BlockId] {
        self.controls.get(&a).map_or(&[], Vec::as_slice)
    }

    /// The blocks `b` is control dependent on, sorted.
    pub fn controllers(&self, b: BlockId) -> Vec<BlockId> {
        self.edges
            .iter()
            .filter(|e| e.1 == b)
            .map(|e| e.0)
            .collect()
    }

    /// The relation as text, one line per controlling block: `b1 -> b2 b3`.
    pub fn display(&self) -> String {
        let mut heads: Vec<&BlockId> = self.controls.keys().collect();
        heads.sort();
        heads
            .into_iter()
            .map(|a| {
                let bs: Vec<String> = self.controls[a].iter().map(ToString::to_string).collect();
                format!("{a} -> {}\n", bs.join(" "))
            })
            .collect()
    }
}

/// The blocks reachable from `from` without passing through `removed` (empty if `from` is
/// `removed`).
fn reachable_without(cfg: &Cfg, from: BlockId, removed: BlockId) -> HashSet<BlockId> {
    let mut seen = HashSet::default();
    if from == removed {
        return seen;
    }
    seen.insert(from);
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        for &s in cfg.successors(b) {
            if s != removed && seen.insert(s) {
                stack.push(s);
            }
        }
    }
    seen
}
