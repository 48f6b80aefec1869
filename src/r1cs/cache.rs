//! Block sizes for callers that lower many variants of one program (cost-driven merging tries
//! one candidate after another): a block is lowered again only when something its lowering
//! reads has changed.
//!
//! What a block's lowering reads, and so what its key hashes: whether it is `main`'s entry;
//! its parameters, instructions (kind, results, `nuw`) and terminator; for every value it
//! mentions, the value's type, its constant if it is one, and its number of uses in the
//! function (gadgets fuse a comparison "used only there"), and its place in memory (segment,
//! guarded write, initial contents); and the live-in values of the block and of each successor
//! (they are its input and output state). Two blocks with the same key lower to the same
//! constraints. The function's memory size is not part of the key: it is read from the
//! function's plan, not from the cached block.

use super::fxhash::FxHasher;
use super::live::FuncInfo;
use super::{all_blocks, lower_with, BlockStats, LowerError};
use crate::ir::{BlockId, Function, Program, ValueId};
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Sizes of blocks lowered before, by key (see the module doc).
#[derive(Debug, Default)]
pub struct StatsCache {
    map: Mutex<HashMap<u64, BlockStats>>,
    hits: AtomicUsize,
    misses: AtomicUsize,
}

impl StatsCache {
    /// An empty cache.
    pub fn new() -> StatsCache {
        StatsCache::default()
    }

    /// [`super::stats`] of `program`, lowering only the blocks not seen before.
    pub fn stats(&self, program: &Program) -> Result<Vec<BlockStats>, LowerError> {
        let infos: Vec<Arc<FuncInfo>> = program
            .funcs
            .par_iter()
            .map(|f| Arc::new(FuncInfo::new(f)))
            .collect();
        all_blocks(program)
            .par_iter()
            .map(|&(f, b)| {
                let func = program.func(f);
                let main_entry = f == program.main && b == func.entry;
                let info = &infos[f.index()];
                let key = fingerprint(func, info, b, main_entry);
                let cached = self.map.lock().expect("cache lock").get(&key).copied();
                if let Some(mut s) = cached {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    s.func = f;
                    s.block = b;
                    s.memory_size = info.memory.size;
                    return Ok(s);
                }
                self.misses.fetch_add(1, Ordering::Relaxed);
                let s = lower_with(func, f, info.clone(), b, main_entry)?.stats();
                self.map.lock().expect("cache lock").insert(key, s);
                Ok(s)
            })
            .collect()
    }

    /// Blocks answered from the cache and blocks lowered, so far.
    pub fn hits_and_misses(&self) -> (usize, usize) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }
}

fn fingerprint(func: &Function, info: &FuncInfo, b: BlockId, main_entry: bool) -> u64 {
    let mut h = FxHasher::default();
    main_entry.hash(&mut h);
    let data = func.block(b);
    let value = |v: ValueId, h: &mut FxHasher| {
        v.hash(h);
        func.value_type(v).hash(h);
        func.const_value(v).hash(h);
        info.uses.get(&v).copied().unwrap_or(0).hash(h);
        // Where it lives in memory, and whether it is a guarded write.
        let seg = info.memory.segment_of(v);
        seg.map(|s| &info.memory.segments[s as usize]).hash(h);
        info.memory.guarded.get(&v).hash(h);
        info.memory.init_arrays.contains(&v).hash(h);
        info.memory.spill_of(v).hash(h);
    };
    info.memory.spill_segment.hash(&mut h);
    for &p in &data.params {
        value(p, &mut h);
    }
    for &i in &data.insts {
        let inst = func.inst(i);
        inst.kind.hash(&mut h);
        inst.no_wrap.hash(&mut h);
        inst.kind.for_each_operand(|v| value(v, &mut h));
        for &r in &inst.results {
            value(r, &mut h);
        }
    }
    data.term.hash(&mut h);
    if let Some(t) = &data.term {
        for v in t.operands() {
            value(v, &mut h);
        }
    }
    let live = |x: BlockId, h: &mut FxHasher| {
        x.hash(h);
        for &v in info.live_in.get(&x).map(Vec::as_slice).unwrap_or(&[]) {
            value(v, h);
        }
    };
    live(b, &mut h);
    for s in func.successors(b) {
        live(s, &mut h);
    }
    h.finish()
}
