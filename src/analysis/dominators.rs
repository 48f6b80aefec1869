//! Dominator trees by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
//! Dominance Algorithm", 2001): number the nodes in reverse post-order from the entry, then
//! repeat `idom(b) = intersect(processed predecessors of b)` in that order until nothing changes,
//! where `intersect` walks the two candidates up the current tree by post-order number.
//!
//! The algorithm works on any graph given as successor lists ([`Graph`]). Dominators of a
//! function use its CFG; post-dominators are the same algorithm on the reversed CFG with a
//! virtual exit node that every `return` block reaches.

use crate::fxhash::HashMap;

use crate::ir::{BlockId, Function};

/// A directed graph over nodes `0..n` as successor lists.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// `succs[n]` lists the successors of node `n`.
    pub succs: Vec<Vec<usize>>,
}

impl Graph {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.succs.len()
    }

    /// Whether the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }

    /// The graph with every edge reversed.
    pub fn reversed(&self) -> Graph {
        let mut succs = vec![Vec::new(); self.len()];
        for (n, ss) in self.succs.iter().enumerate() {
            for &s in ss {
                succs[s].push(n);
            }
        }
        Graph { succs }
    }

    /// The nodes reachable from `entry` in reverse post-order.
    pub fn reverse_post_order(&self, entry: usize) -> Vec<usize> {
        let mut visited = vec![false; self.len()];
        crate::ir::reverse_post_order(
            entry,
            |n| self.succs[n].iter().copied(),
            |n| !std::mem::replace(&mut visited[n], true),
        )
    }

    /// Immediate dominators from `entry`: `idom[entry] = Some(entry)`, `None` for unreachable
    /// nodes.
    pub fn immediate_dominators(&self, entry: usize) -> Vec<Option<usize>> {
        let rpo = self.reverse_post_order(entry);
        let mut order = vec![usize::MAX; self.len()];
        for (i, &n) in rpo.iter().enumerate() {
            order[n] = i;
        }
        let preds = self.reversed();
        let mut idom: Vec<Option<usize>> = vec![None; self.len()];
        idom[entry] = Some(entry);
        let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
            while a != b {
                while order[a] > order[b] {
                    a = idom[a].expect("processed node has an idom");
                }
                while order[b] > order[a] {
                    b = idom[b].expect("processed node has an idom");
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &n in rpo.iter().skip(1) {
                let mut new_idom: Option<usize> = None;
                for &p in &preds.succs[n] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => intersect(&idom, p, cur),
                    });
                }
                if new_idom.is_some() && idom[n] != new_idom {
                    idom[n] = new_idom;
                    changed = true;
                }
            }
        }
        idom
    }
}

/// The CFG of a function's laid-out blocks as a [`Graph`], with the mapping between nodes and
/// blocks. Node `i` is `blocks[i]`.
#[derive(Clone, Debug)]
pub struct BlockGraph {
    /// The graph.
    pub graph: Graph,
    /// The block of each node.
    pub blocks: Vec<BlockId>,
    /// The node of each block.
    pub node: HashMap<BlockId, usize>,
}

impl BlockGraph {
    /// The CFG of `func` (edges to blocks outside the layout are dropped; the verifier reports
    /// them).
    pub fn new(func: &Function) -> BlockGraph {
        let blocks = func.layout.clone();
        let node: HashMap<BlockId, usize> =
            blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let succs = blocks
            .iter()
            .map(|b| {
                func.successors(*b)
                    .iter()
                    .filter_map(|s| node.get(s).copied())
                    .collect()
            })
            .collect();
        BlockGraph {
            graph: Graph { succs },
            blocks,
            node,
        }
    }
}

/// Which block dominates which: the dominator tree of a function, or its post-dominator tree.
#[derive(Clone, Debug)]
pub struct DomTree {
    idom: HashMap<BlockId, BlockId>,
    /// Depth in the tree of every block in it (the root has depth 0).
    depth: HashMap<BlockId, usize>,
    root: Option<BlockId>,
    /// Every block's interval in a depth-first walk of the tree, by block index: `a`
    /// dominates `b` exactly when `a`'s interval holds `b`'s (O(1) per query, where walking
    /// up the tree costs its depth: a straight-line function of n blocks made dominance
    /// queries O(n)). `(u32::MAX, 0)` for a block not in the tree.
    interval: Vec<(u32, u32)>,
}

impl DomTree {
    /// The dominator tree of `func` from its entry.
    pub fn dominators(func: &Function) -> DomTree {
        let bg = BlockGraph::new(func);
        match bg.node.get(&func.entry) {
            Some(&entry) => {
                let idom = bg.graph.immediate_dominators(entry);
                DomTree::from_idoms(&bg.blocks, &idom, entry, None)
            }
            None => DomTree::empty(),
        }
    }

    /// The post-dominator tree of `func`: dominators of the reversed CFG from a virtual exit
    /// that every `return` block jumps to. A block that reaches no return (an infinite loop)
    /// is in no tree. `root()` is `None`: the virtual exit is not a block.
    pub fn post_dominators(func: &Function) -> DomTree {
        let bg = BlockGraph::new(func);
        let exit = bg.graph.len();
        let mut succs = bg.graph.succs.clone();
        succs.push(Vec::new());
        for (i, b) in bg.blocks.iter().enumerate() {
            if matches!(func.block(*b).term, Some(crate::ir::Terminator::Return(_))) {
                succs[i].push(exit);
            }
        }
        let reversed = Graph { succs }.reversed();
        let idom = reversed.immediate_dominators(exit);
        DomTree::from_idoms(&bg.blocks, &idom, exit, Some(exit))
    }

    fn empty() -> DomTree {
        DomTree {
            idom: HashMap::default(),
            depth: HashMap::default(),
            root: None,
            interval: Vec::new(),
        }
    }

    fn from_idoms(
        blocks: &[BlockId],
        idom: &[Option<usize>],
        root: usize,
        virtual_root: Option<usize>,
    ) -> DomTree {
        let block_of = |n: usize| (Some(n) != virtual_root).then(|| blocks[n]);
        let mut tree = DomTree::empty();
        tree.root = block_of(root);
        for (n, d) in idom.iter().enumerate() {
            let (Some(d), Some(b)) = (*d, block_of(n)) else {
                continue;
            };
            if n == root {
                continue;
            }
            match block_of(d) {
                Some(db) => {
                    tree.idom.insert(b, db);
                }
                None => {
                    // Child of the virtual root: a tree root of its own at depth 0.
                    tree.depth.insert(b, 0);
                }
            }
        }
        if let Some(r) = tree.root {
            tree.depth.insert(r, 0);
        }
        // Depths by walking up (memoized).
        let nodes: Vec<BlockId> = tree.idom.keys().copied().collect();
        for b in nodes {
            tree.depth_of(b);
        }
        tree.number();
        tree
    }

    /// Numbers the tree's blocks by a depth-first walk from each root (see `interval`).
    fn number(&mut self) {
        let n = self.depth.keys().map(|b| b.index() + 1).max().unwrap_or(0);
        let mut children: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        for (&b, &d) in &self.idom {
            children[d.index()].push(b);
        }
        let mut roots: Vec<BlockId> = self
            .depth
            .iter()
            .filter(|(b, _)| !self.idom.contains_key(b))
            .map(|(&b, _)| b)
            .collect();
        roots.sort();
        self.interval = vec![(u32::MAX, 0); n];
        let mut clock = 0u32;
        for root in roots {
            // (block, whether its children were pushed)
            let mut stack = vec![(root, false)];
            while let Some((b, expanded)) = stack.pop() {
                if expanded {
                    self.interval[b.index()].1 = clock;
                    clock += 1;
                    continue;
                }
                self.interval[b.index()].0 = clock;
                clock += 1;
                stack.push((b, true));
                for &c in &children[b.index()] {
                    stack.push((c, false));
                }
            }
        }
    }

    fn depth_of(&mut self, b: BlockId) -> usize {
        if let Some(&d) = self.depth.get(&b) {
            return d;
        }
        let mut chain = vec![b];
        let mut cur = b;
        let base = loop {
            let parent = self.idom[&cur];
            if let Some(&d) = self.depth.get(&parent) {
                break d;
            }
            chain.push(parent);
            cur = parent;
        };
        for (k, n) in chain.iter().rev().enumerate() {
            self.depth.insert(*n, base + 1 + k);
        }
        self.depth[&b]
    }

    /// The tree's root block (the entry for dominators; `None` for post-dominators, whose root
    /// is the virtual exit).
    pub fn root(&self) -> Option<BlockId> {
        self.root
    }

    /// The immediate dominator of `b` (`None` for a root or a block not in the tree).
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.idom.get(&b).copied()
    }

    /// Whether `b` is in the tree (reachable from the root).
    pub fn contains(&self, b: BlockId) -> bool {
        self.depth.contains_key(&b)
    }

    /// Whether `a` dominates `b` (reflexive). False when either is not in the tree.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let (Some(&(a_in, a_out)), Some(&(b_in, b_out))) =
            (self.interval.get(a.index()), self.interval.get(b.index()))
        else {
            return false;
        };
        a_in != u32::MAX && b_in != u32::MAX && a_in <= b_in && b_out <= a_out
    }

    /// Whether `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.dominates(a, b)
    }
}
