//! The wires of a block's values while it is lowered, dropped after their last use.

use super::Wire;
use crate::ir::{BlockId, Function, ValueId};
use crate::r1cs::fxhash::FxMap;

/// The wires of a block's values: a dense vector over the block's own id range (params and
/// results are usually allocated together), a map for everything else.
pub(super) struct Env {
    lo: u32,
    dense: Vec<Option<Wire>>,
    /// The last instruction reading each dense value (`u32::MAX`: kept to the end).
    pub(super) last_use: Vec<u32>,
    sparse: FxMap<ValueId, Wire>,
}

impl Env {
    pub(super) fn new(func: &Function, block: BlockId) -> Env {
        let data = func.block(block);
        let ids = data.params.iter().copied().chain(
            data.insts
                .iter()
                .flat_map(|&i| func.inst(i).results.iter().copied()),
        );
        let (mut lo, mut hi, mut n) = (u32::MAX, 0u32, 0usize);
        for v in ids {
            lo = lo.min(v.0);
            hi = hi.max(v.0);
            n += 1;
        }
        let range = if n == 0 { 0 } else { (hi - lo) as usize + 1 };
        // A block whose ids are scattered over the function uses the map only.
        let range = if range > 4 * n + 4096 { 0 } else { range };
        Env {
            lo,
            dense: vec![None; range],
            last_use: vec![u32::MAX; range],
            sparse: FxMap::default(),
        }
    }

    pub(super) fn slot(&self, v: ValueId) -> Option<usize> {
        let i = v.0.wrapping_sub(self.lo) as usize;
        (i < self.dense.len()).then_some(i)
    }

    pub(super) fn get(&self, v: ValueId) -> Option<&Wire> {
        match self.slot(v) {
            Some(i) => self.dense[i].as_ref(),
            None => self.sparse.get(&v),
        }
    }

    pub(super) fn insert(&mut self, v: ValueId, w: Wire) {
        match self.slot(v) {
            Some(i) => self.dense[i] = Some(w),
            None => {
                self.sparse.insert(v, w);
            }
        }
    }

    /// Drops `v`'s wire if instruction `pos` is its last reader.
    pub(super) fn release(&mut self, v: ValueId, pos: usize) {
        if let Some(i) = self.slot(v) {
            if self.last_use[i] == pos as u32 {
                self.dense[i] = None;
            }
        }
    }
}
