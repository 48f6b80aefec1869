//! The wires of a block's values while it is lowered, dropped after their last use. A dropped
//! wire's slot is reused, so the wires take memory for the values alive at once, not for every
//! value of the block (a block of a million values keeps a few dozen wires).

use super::Wire;
use crate::ir::{Arena, BlockId, Function, InstData, ValueId};
use crate::r1cs::fxhash::FxMap;

/// No wire.
const NONE: u32 = u32::MAX;

/// The wires of a block's values: a dense index over the block's own id range (params and
/// results are usually allocated together) into slots reused after a last use, a map for
/// everything else.
pub(super) struct Env {
    lo: u32,
    /// Per dense value, the slot of its wire in `wires`, or [`NONE`].
    dense: Vec<u32>,
    /// The last instruction reading each dense value (`u32::MAX`: kept to the end).
    pub(super) last_use: Vec<u32>,
    wires: Vec<Wire>,
    /// Slots of `wires` whose value was released.
    free: Vec<u32>,
    sparse: FxMap<ValueId, Wire>,
}

impl Env {
    pub(super) fn new(func: &Function, insts: &Arena<InstData>, block: BlockId) -> Env {
        let data = func.block(block);
        let ids = data.params.iter().copied().chain(
            data.insts
                .iter()
                .flat_map(|&i| insts[i.index()].results.iter().copied()),
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
            dense: vec![NONE; range],
            last_use: vec![u32::MAX; range],
            wires: Vec::new(),
            free: Vec::new(),
            sparse: FxMap::default(),
        }
    }

    pub(super) fn slot(&self, v: ValueId) -> Option<usize> {
        let i = v.0.wrapping_sub(self.lo) as usize;
        (i < self.dense.len()).then_some(i)
    }

    pub(super) fn get(&self, v: ValueId) -> Option<&Wire> {
        match self.slot(v) {
            Some(i) => self.wires.get(self.dense[i] as usize),
            None => self.sparse.get(&v),
        }
    }

    pub(super) fn insert(&mut self, v: ValueId, w: Wire) {
        match self.slot(v) {
            Some(i) => match self.dense[i] {
                NONE => {
                    let k = match self.free.pop() {
                        Some(k) => {
                            self.wires[k as usize] = w;
                            k
                        }
                        None => {
                            self.wires.push(w);
                            self.wires.len() as u32 - 1
                        }
                    };
                    self.dense[i] = k;
                }
                k => self.wires[k as usize] = w,
            },
            None => {
                self.sparse.insert(v, w);
            }
        }
    }

    /// `v`'s wire moved out when instruction `pos` is its last reader (the wire would be
    /// dropped after it anyway), else `None`.
    pub(super) fn take_at_last_use(&mut self, v: ValueId, pos: usize) -> Option<Wire> {
        let i = self.slot(v)?;
        let k = self.dense[i];
        if self.last_use[i] != pos as u32 || k == NONE {
            return None;
        }
        self.free.push(k);
        self.dense[i] = NONE;
        Some(std::mem::replace(
            &mut self.wires[k as usize],
            Wire::Array(Vec::new()),
        ))
    }

    /// Drops `v`'s wire if instruction `pos` is its last reader.
    pub(super) fn release(&mut self, v: ValueId, pos: usize) {
        if let Some(i) = self.slot(v) {
            let k = self.dense[i];
            if self.last_use[i] == pos as u32 && k != NONE {
                // An empty array holds no heap memory.
                self.wires[k as usize] = Wire::Array(Vec::new());
                self.free.push(k);
                self.dense[i] = NONE;
            }
        }
    }
}
