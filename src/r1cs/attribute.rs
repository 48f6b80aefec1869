//! Where each block's constraints come from, for `zkbc profile`: every constraint of the
//! reduced system belongs to the instruction that emitted its row, or to a pseudo-origin for
//! what no instruction emits (the transition state, memory writes of spilled values, the range
//! checks of `main`'s inputs).
//!
//! Algorithm: the block is lowered in structure mode with a builder that marks, at each
//! instruction, how many constraints it holds so far (`Builder::attributing`; one mark per
//! instruction, nothing per constraint); elimination and dead-constraint removal carry each
//! constraint's origin along as they move, drop or rewrite it ([`super::eliminate`]), so the
//! counts per origin add up to the block's constraint count exactly. The ordinary lowering
//! ([`super::stats`]) records nothing: attributing costs only when asked for. A
//! [`StatsCache`](super::StatsCache) made [`attributing`](super::StatsCache::attributing)
//! keeps each block's counts as it lowers it, so `zkbc profile` attributes the blocks block
//! formation and the report lowered without lowering them again.

use super::builder::{Origin, ORIGIN_INPUTS, ORIGIN_MEMORY, ORIGIN_TRANSITION};
use super::live::FuncInfo;
use super::{all_blocks, lower_with_origins, BlockR1cs, LowerError};
use crate::ir::{BlockId, FuncId, Function, InstId, Program};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a constraint belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConstraintOrigin {
    /// The instruction that emitted it.
    Inst(InstId),
    /// The block's transition state: the label check, binding the output state.
    Transition,
    /// Values written to or read from memory at the block's edges (spilled scalars, `main`'s
    /// input arrays in memory).
    Memory,
    /// The range checks of `main`'s inputs, in `main`'s entry block.
    Inputs,
}

/// The constraints of one block by origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockAttribution {
    /// The function.
    pub func: FuncId,
    /// The block.
    pub block: BlockId,
    /// Constraints per origin (origins with none left out), summing to the block's constraint
    /// count after elimination.
    pub counts: BTreeMap<ConstraintOrigin, u64>,
}

impl BlockAttribution {
    /// The block's constraints: the sum of its counts.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }
}

/// A block's constraints per origin, the instruction named by its position in the block (as
/// [`StatsCache`](super::StatsCache) keeps them: a block of the same key has the same
/// instructions in the same order).
pub(crate) type PositionCounts = Vec<(Origin, u64)>;

/// The attribution of every laid-out block of every function of the circuit, in the order of
/// [`super::stats`] (lowered in parallel).
pub fn attribute(
    program: &Program,
    opts: super::LowerOptions,
) -> Result<Vec<BlockAttribution>, LowerError> {
    crate::timing::stage("lower (attributing)", || {
        let infos: Vec<Arc<FuncInfo>> = program
            .funcs
            .par_iter()
            .map(|f| Arc::new(FuncInfo::new(f, opts)))
            .collect();
        all_blocks(program)
            .par_iter()
            .map(|&(f, b)| {
                let func = program.func(f);
                let main_entry = f == program.main && b == func.entry;
                let info = infos[f.index()].clone();
                let lowered = lower_with_origins(func, f, info, b, main_entry)?;
                Ok(from_positions(func, f, b, &position_counts(&lowered)))
            })
            .collect()
    })
}

/// The constraints of a block lowered with origins ([`super::lower_with_origins`]) per origin.
pub(crate) fn position_counts(lowered: &BlockR1cs<'_>) -> PositionCounts {
    let origins = lowered
        .reduced
        .origins
        .as_deref()
        .expect("bug: an attributing lowering records origins");
    let mut counts: BTreeMap<Origin, u64> = BTreeMap::new();
    for &o in origins {
        *counts.entry(o).or_insert(0) += 1;
    }
    counts.into_iter().collect()
}

/// The attribution of block `b` of `func` (function `f`) from its counts by position.
pub(crate) fn from_positions(
    func: &Function,
    f: FuncId,
    b: BlockId,
    counts: &PositionCounts,
) -> BlockAttribution {
    let insts = &func.block(b).insts;
    let mut by_origin = BTreeMap::new();
    for &(o, n) in counts {
        *by_origin.entry(origin(o, insts)).or_insert(0u64) += n;
    }
    BlockAttribution {
        func: f,
        block: b,
        counts: by_origin,
    }
}

fn origin(o: Origin, insts: &[InstId]) -> ConstraintOrigin {
    match o {
        ORIGIN_TRANSITION => ConstraintOrigin::Transition,
        ORIGIN_MEMORY => ConstraintOrigin::Memory,
        ORIGIN_INPUTS => ConstraintOrigin::Inputs,
        pos => insts
            .get(pos as usize)
            .map_or(ConstraintOrigin::Transition, |&i| ConstraintOrigin::Inst(i)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_program;

    #[test]
    fn counts_add_up_to_the_block_sizes() {
        let text = "fn main f0 -> u32 {
b0(v0: u32):
    v1 = mul v0, v0
    v2 = add v1, u32 7
    v3 = lt v2, u32 100
    assert v3 @4:5
    jmp b1(v2)
b1(v4: u32):
    v5 = mul v4, v4
    return v5
}
";
        let program = parse_program(text).expect("parses");
        let stats = super::super::stats(&program).expect("lowers");
        let attributed = attribute(&program, Default::default()).expect("lowers");
        assert_eq!(attributed.len(), stats.len());
        for (a, s) in attributed.iter().zip(&stats) {
            assert_eq!((a.func, a.block), (s.func, s.block));
            assert_eq!(a.total(), s.constraints as u64, "{a:?}");
        }
        // The entry's `mul` and the comparison cost; its inputs are range-checked.
        let entry = &attributed[0].counts;
        assert!(entry.contains_key(&ConstraintOrigin::Inputs), "{entry:?}");
        assert!(entry.keys().any(|o| matches!(o, ConstraintOrigin::Inst(_))));
    }
}
