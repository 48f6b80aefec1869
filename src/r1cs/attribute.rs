//! Where each block's constraints come from, for `zkbc profile`: every constraint of the
//! reduced system belongs to the instruction that emitted its row, or to a pseudo-origin for
//! what no instruction emits (the transition state, memory writes of spilled values, the range
//! checks of `main`'s inputs).
//!
//! Algorithm: the block is lowered in structure mode with a builder that marks, at each
//! instruction, how many constraints it holds so far ([`Builder::attributing`]; one mark per
//! instruction, nothing per constraint); elimination and dead-constraint removal carry each
//! constraint's origin along as they move, drop or rewrite it ([`super::eliminate`]), so the
//! counts per origin add up to the block's constraint count exactly. The ordinary lowering
//! ([`super::stats`]) records nothing: attributing costs only when asked for.

use super::builder::{Origin, ORIGIN_INPUTS, ORIGIN_MEMORY, ORIGIN_TRANSITION};
use super::live::FuncInfo;
use super::{all_blocks, eliminate, lower, LowerError};
use crate::ir::{BlockId, FuncId, InstId, Program};
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

/// The attribution of every laid-out block of every function of the circuit, in the order of
/// [`super::stats`] (lowered in parallel).
pub fn attribute(program: &Program) -> Result<Vec<BlockAttribution>, LowerError> {
    crate::timing::stage("lower (attributing)", || {
        let infos: Vec<Arc<FuncInfo>> = program
            .funcs
            .par_iter()
            .map(|f| Arc::new(FuncInfo::new(f)))
            .collect();
        all_blocks(program)
            .par_iter()
            .map(|&(f, b)| attribute_block(program, &infos[f.index()], f, b))
            .collect()
    })
}

fn attribute_block(
    program: &Program,
    info: &FuncInfo,
    f: FuncId,
    b: BlockId,
) -> Result<BlockAttribution, LowerError> {
    let func = program.func(f);
    let main_entry = f == program.main && b == func.entry;
    let (cs, _) = lower::lower_attributed(func, info, b, main_entry)?;
    let reduced = eliminate::reduce(cs);
    let insts = &func.block(b).insts;
    let mut counts = BTreeMap::new();
    let origins = reduced
        .origins
        .as_deref()
        .expect("bug: an attributing lowering records origins");
    for &o in origins {
        *counts.entry(origin(o, insts)).or_insert(0u64) += 1;
    }
    Ok(BlockAttribution {
        func: f,
        block: b,
        counts,
    })
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
        let attributed = attribute(&program).expect("lowers");
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
