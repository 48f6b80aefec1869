//! Live-in values of every block: the values a block (or a block after it) uses that are defined
//! in some other block and do not arrive as parameters. The IR allows a block to use any value
//! of a dominating block; a per-block instance sees only its input state, so these values are
//! part of it (after the parameters, in value order). An IR whose blocks pass everything as
//! parameters has no live-ins, and then the state is exactly label + parameters.

use super::fxhash::FxMap;
use super::memory::MemoryPlan;
use super::LowerOptions;
use crate::ir::{BlockId, Function, ValueDef, ValueId};
use std::collections::BTreeSet;

/// Per-function facts the lowering of each block needs, computed once per function.
#[derive(Clone, Debug, Default)]
pub(crate) struct FuncInfo {
    /// Live-in values of each laid-out block, sorted.
    pub live_in: FxMap<BlockId, Vec<ValueId>>,
    /// Uses of each value in the whole function, by value index (a dense vector: a function of
    /// a million values is one block of a million values).
    uses: Vec<u32>,
    /// Which arrays live in memory (they are never part of a state).
    pub memory: MemoryPlan,
    /// The most constraints a block of the function may have ([`LowerOptions`]).
    pub max_constraints: usize,
}

/// No block.
const NO_BLOCK: u32 = u32::MAX;

impl FuncInfo {
    /// How many times the function uses `v` (instruction operands and terminators).
    pub fn uses(&self, v: ValueId) -> usize {
        self.uses.get(v.index()).map_or(0, |&n| n as usize)
    }

    pub fn new(func: &Function, opts: LowerOptions) -> FuncInfo {
        // The laid-out block defining each value (a parameter or a result), by value index.
        let mut def_block = vec![NO_BLOCK; func.values.len()];
        let mut used: FxMap<BlockId, BTreeSet<ValueId>> = FxMap::default();
        let mut uses = vec![0u32; func.values.len()];
        for &b in &func.layout {
            let data = func.block(b);
            for &p in &data.params {
                def_block[p.index()] = b.0;
            }
            let mut u = BTreeSet::new();
            let mut note = |v: ValueId, def_block: &[u32]| {
                let Some(n) = uses.get_mut(v.index()) else {
                    return;
                };
                *n += 1;
                // The value's definition (a random read of the value arena) is read only for an
                // operand from outside the block: most operands are defined in it, nearly all
                // of them in a program formed as one block.
                if def_block[v.index()] != b.0
                    && !matches!(func.values[v.index()].def, ValueDef::Const(_))
                {
                    u.insert(v);
                }
            };
            for &i in &data.insts {
                let inst = func.inst(i);
                inst.kind.for_each_operand(|v| note(v, &def_block));
                for r in &inst.results {
                    def_block[r.index()] = b.0;
                }
            }
            if let Some(t) = &data.term {
                for v in t.operands() {
                    note(v, &def_block);
                }
            }
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
                            if def_block[v.index()] != b.0 {
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
        let mut memory = match opts.memory {
            true => MemoryPlan::of(func),
            false => MemoryPlan::default(),
        };
        let live: FxMap<BlockId, BTreeSet<ValueId>> = live
            .into_iter()
            .map(|(b, s)| (b, s.into_iter().filter(|&v| !memory.in_memory(v)).collect()))
            .collect();
        let defined_in = |v: ValueId| {
            let b = def_block[v.index()];
            (b != NO_BLOCK).then_some(BlockId(b))
        };
        if opts.memory {
            memory.add_spills(func, &live, &used, &defined_in);
        }
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
            max_constraints: opts.max_constraints,
        }
    }
}
