//! Live-in values of every block: the values a block (or a block after it) uses that are defined
//! in some other block and do not arrive as parameters. The IR allows a block to use any value
//! of a dominating block; a per-block instance sees only its input state, so these values are
//! part of it (after the parameters, in value order). An IR whose blocks pass everything as
//! parameters has no live-ins, and then the state is exactly label + parameters.

use super::fxhash::{FxMap, FxSet};
use super::memory::MemoryPlan;
use crate::ir::{BlockId, Function, ValueDef, ValueId};
use std::collections::BTreeSet;

/// Per-function facts the lowering of each block needs, computed once per function.
#[derive(Clone, Debug, Default)]
pub(crate) struct FuncInfo {
    /// Live-in values of each laid-out block, sorted.
    pub live_in: FxMap<BlockId, Vec<ValueId>>,
    /// Uses of each value in the whole function.
    pub uses: FxMap<ValueId, usize>,
    /// Which arrays live in memory (they are never part of a state).
    pub memory: MemoryPlan,
}

impl FuncInfo {
    pub fn new(func: &Function) -> FuncInfo {
        let mut defs: FxMap<BlockId, FxSet<ValueId>> = FxMap::default();
        let mut used: FxMap<BlockId, BTreeSet<ValueId>> = FxMap::default();
        let mut uses: FxMap<ValueId, usize> = FxMap::default();
        for &b in &func.layout {
            let data = func.block(b);
            let mut d: FxSet<ValueId> = data.params.iter().copied().collect();
            let mut u = BTreeSet::new();
            let mut note = |v: ValueId, d: &FxSet<ValueId>| {
                *uses.entry(v).or_insert(0) += 1;
                let is_const = matches!(
                    func.values.get(v.index()).map(|x| &x.def),
                    Some(ValueDef::Const(_)) | None
                );
                if !is_const && !d.contains(&v) {
                    u.insert(v);
                }
            };
            for &i in &data.insts {
                let inst = func.inst(i);
                inst.kind.for_each_operand(|v| note(v, &d));
                d.extend(inst.results.iter().copied());
            }
            if let Some(t) = &data.term {
                for v in t.operands() {
                    note(v, &d);
                }
            }
            defs.insert(b, d);
            used.insert(b, u);
        }
        let mut live: FxMap<BlockId, BTreeSet<ValueId>> =
            func.layout.iter().map(|&b| (b, used[&b].clone())).collect();
        let order: Vec<BlockId> = func.reverse_post_order().into_iter().rev().collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                let mut set = live.get(&b).cloned().unwrap_or_default();
                let before = set.len();
                for s in func.successors(b) {
                    if let Some(ls) = live.get(&s) {
                        for v in ls {
                            if !defs.get(&b).is_some_and(|d| d.contains(v)) {
                                set.insert(*v);
                            }
                        }
                    }
                }
                if set.len() != before {
                    changed = true;
                    live.insert(b, set);
                }
            }
        }
        let mut memory = MemoryPlan::of(func);
        let live: FxMap<BlockId, BTreeSet<ValueId>> = live
            .into_iter()
            .map(|(b, s)| (b, s.into_iter().filter(|&v| !memory.in_memory(v)).collect()))
            .collect();
        memory.add_spills(func, &live, &used);
        FuncInfo {
            live_in: live
                .into_iter()
                .map(|(b, s)| {
                    (
                        b,
                        s.into_iter()
                            .filter(|&v| memory.spill_of(v).is_none())
                            .collect(),
                    )
                })
                .collect(),
            uses,
            memory,
        }
    }
}
