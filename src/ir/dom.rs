//! Dominance for the verifier, computed inside `ir` so that the IR depends on no layer above it
//! (`analysis::DomTree` is the analysis everything else uses; `tests/ir_verify.rs` checks the
//! verifier's dominance against the definition on random CFGs).
//!
//! The algorithm is Cooper, Harvey and Kennedy's iterative one ("A Simple, Fast Dominance
//! Algorithm"):
//!
//! 1. Number the laid-out blocks reachable from the entry in reverse post-order (edges to
//!    blocks outside the layout are ignored; the verifier reports them). In this order every
//!    block but the entry has a predecessor numbered before it.
//! 2. `idom(entry) = entry`; every other block starts undefined. Sweep the blocks in order,
//!    setting `idom(b)` to the intersection of its predecessors that already have one, until a
//!    sweep changes nothing. The intersection of two blocks walks the one with the larger
//!    number up its `idom` chain until the two meet: their nearest common dominator.
//! 3. `a` dominates `b` when walking up from `b` reaches `a`; since `idom(b)` is numbered
//!    before `b`, the walk stops as soon as it passes `a`'s number.
//!
//! ```text
//! b0: br v0, b1(), b2()       idom(b1) = b0, idom(b2) = b0,
//! b1: jmp b3()                idom(b3) = b0 (b1 and b2 meet at b0)
//! b2: jmp b3()
//! b3: return
//! ```

use crate::fxhash::{HashMap, HashSet};

use super::entities::BlockId;
use super::function::Function;

/// The dominance relation of a function's reachable laid-out blocks.
pub(super) struct Dominance {
    /// Reverse post-order number of each reachable block.
    number: HashMap<BlockId, usize>,
    /// Immediate dominator of each block by number (the entry, number 0, is its own).
    idom: Vec<usize>,
}

impl Dominance {
    /// The dominance of `func`'s laid-out blocks from its entry; none when the entry is not
    /// laid out.
    pub(super) fn new(func: &Function) -> Dominance {
        let laid_out: HashSet<BlockId> = func.layout.iter().copied().collect();
        let successors = |b: BlockId| -> Vec<BlockId> {
            func.successors(b)
                .into_iter()
                .filter(|s| laid_out.contains(s))
                .collect()
        };
        if !laid_out.contains(&func.entry) {
            return Dominance {
                number: HashMap::default(),
                idom: Vec::new(),
            };
        }

        // Step 1: reverse post-order by an iterative depth-first search.
        let mut visited = HashSet::default();
        let order =
            super::function::reverse_post_order(func.entry, successors, |b| visited.insert(b));
        let number: HashMap<BlockId, usize> =
            order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); order.len()];
        for (i, &b) in order.iter().enumerate() {
            for s in successors(b) {
                if let Some(&j) = number.get(&s) {
                    preds[j].push(i);
                }
            }
        }

        // Step 2: the fixpoint.
        const UNDEFINED: usize = usize::MAX;
        let mut idom = vec![UNDEFINED; order.len()];
        idom[0] = 0;
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
            while a != b {
                while a > b {
                    a = idom[a];
                }
                while b > a {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..order.len() {
                let mut new_idom = UNDEFINED;
                for &p in &preds[b] {
                    if idom[p] == UNDEFINED {
                        continue;
                    }
                    new_idom = if new_idom == UNDEFINED {
                        p
                    } else {
                        intersect(&idom, p, new_idom)
                    };
                }
                if new_idom != UNDEFINED && idom[b] != new_idom {
                    idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        Dominance { number, idom }
    }

    /// Whether `a` dominates `b` (reflexive); false when either is unreachable.
    pub(super) fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let (Some(&na), Some(&nb)) = (self.number.get(&a), self.number.get(&b)) else {
            return false;
        };
        let mut x = nb;
        while x > na {
            x = self.idom[x];
        }
        x == na
    }
}
