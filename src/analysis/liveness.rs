//! Live values at block boundaries.
//!
//! A value is *live* at a point when some path from that point reaches a use of it. With block
//! parameters instead of phis the boundaries are:
//!
//! - a block's parameters are defined at the start of the block, so they are never live-in to
//!   their own block;
//! - a jump's arguments are used at the end of the predecessor, by its terminator; they are
//!   live-out of the predecessor only if some successor also needs them live-in.
//!
//! So `live_in(b) = uses(b) ∪ (live_out(b) − defs(b))` and `live_out(b) = ⋃ live_in(s)` over the
//! successors `s`, where `uses(b)` are the values read by `b`'s instructions and terminator
//! (branch condition, jump arguments, returned values) that `b` does not define, and `defs(b)`
//! are its parameters and instruction results. Constants are never live. The sets are the least
//! solution, found by iterating in post-order until nothing changes; unreachable blocks get sets
//! too (computed from their successors).

use crate::fxhash::{HashMap, HashSet};

use super::cfg::Cfg;
use crate::ir::{BlockId, Function, ValueDef, ValueId};
use std::collections::BTreeSet;

/// Live-in and live-out sets of every laid-out block.
#[derive(Clone, Debug)]
pub struct Liveness {
    live_in: HashMap<BlockId, BTreeSet<ValueId>>,
    live_out: HashMap<BlockId, BTreeSet<ValueId>>,
}

impl Liveness {
    /// Liveness of `func`.
    pub fn new(func: &Function) -> Liveness {
        Liveness::compute(func, &Cfg::new(func))
    }

    /// Liveness of `func` given its CFG.
    pub fn compute(func: &Function, cfg: &Cfg) -> Liveness {
        let mut uses: HashMap<BlockId, BTreeSet<ValueId>> = HashMap::default();
        let mut defs: HashMap<BlockId, HashSet<ValueId>> = HashMap::default();
        for b in cfg.blocks() {
            let data = func.block(b);
            let mut d: HashSet<ValueId> = data.params.iter().copied().collect();
            let mut u = BTreeSet::new();
            let mut read = |v: ValueId, d: &HashSet<ValueId>| {
                if !d.contains(&v) && !matches!(func.value(v).def, ValueDef::Const(_)) {
                    u.insert(v);
                }
            };
            for &i in &data.insts {
                func.inst(i).kind.for_each_operand(|v| read(v, &d));
                d.extend(func.inst(i).results.iter().copied());
            }
            if let Some(term) = &data.term {
                for v in term.operands() {
                    read(v, &d);
                }
            }
            uses.insert(b, u);
            defs.insert(b, d);
        }
        // Post-order of the reachable blocks, then the unreachable ones.
        let mut order: Vec<BlockId> = cfg.reverse_post_order().iter().rev().copied().collect();
        order.extend(cfg.blocks().filter(|b| !cfg.is_reachable(*b)));
        let mut live_in: HashMap<BlockId, BTreeSet<ValueId>> =
            cfg.blocks().map(|b| (b, uses[&b].clone())).collect();
        let mut live_out: HashMap<BlockId, BTreeSet<ValueId>> =
            cfg.blocks().map(|b| (b, BTreeSet::new())).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                let out: BTreeSet<ValueId> = cfg
                    .successors(b)
                    .iter()
                    .flat_map(|s| live_in[s].iter().copied())
                    .collect();
                let mut inn = uses[&b].clone();
                inn.extend(out.iter().filter(|v| !defs[&b].contains(v)));
                if inn != live_in[&b] || out != live_out[&b] {
                    changed = true;
                    live_in.insert(b, inn);
                    live_out.insert(b, out);
                }
            }
        }
        Liveness { live_in, live_out }
    }

    /// The values live on entry to `b` (empty for a block not laid out).
    pub fn live_in(&self, b: BlockId) -> &BTreeSet<ValueId> {
        static EMPTY: BTreeSet<ValueId> = BTreeSet::new();
        self.live_in.get(&b).unwrap_or(&EMPTY)
    }

    /// The values live on exit from `b` (empty for a block not laid out).
    pub fn live_out(&self, b: BlockId) -> &BTreeSet<ValueId> {
        static EMPTY: BTreeSet<ValueId> = BTreeSet::new();
        self.live_out.get(&b).unwrap_or(&EMPTY)
    }

    /// The sets as text, one line per block in `func`'s layout: `b1: in {v0, v2} out {v2}`.
    pub fn display(&self, func: &Function) -> String {
        let set = |s: &BTreeSet<ValueId>| {
            s.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        func.layout
            .iter()
            .map(|&b| {
                format!(
                    "{b}: in {{{}}} out {{{}}}\n",
                    set(self.live_in(b)),
                    set(self.live_out(b))
                )
            })
            .collect()
    }
}
