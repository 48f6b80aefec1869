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
//! constraints. Values enter the key by the order the key first meets them, not by their
//! numbers, so the same block reached by two orders of merging (whose copies number their
//! values differently) is lowered once. The function's memory size is not part of the key: it
//! is read from the function's plan, not from the cached block.

use crate::fxhash::HashMap;

use super::attribute::{self, BlockAttribution, PositionCounts};
use super::fxhash::FxHasher;
use super::live::FuncInfo;
use super::{all_blocks, lower_with, lower_with_origins, BlockStats, LowerError, LowerOptions};
use crate::ir::{BlockId, FuncId, Function, Program, ValueId};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A [`StatsCache`] shared by the compiles of one report (block formation, the report's own
/// lowering, its baselines): the block formation lowered while scoring is not lowered again.
/// Two of them are always equal: a cache never changes a result, only how often a block is
/// lowered (so options holding one compare as the options they are).
#[derive(Clone, Debug, Default)]
pub struct SharedStatsCache(pub Arc<StatsCache>);

impl PartialEq for SharedStatsCache {
    fn eq(&self, _: &SharedStatsCache) -> bool {
        true
    }
}

impl Eq for SharedStatsCache {}

/// Blocks of at least this many instructions keep their constraints' origins even when the
/// cache is not attributing (one mark per instruction and an origin per constraint through
/// elimination: a few percent of their lowering): block formation's split reads where a prefix
/// of such a block reaches a size ([`StatsCache::position_counts`]) without lowering it again.
const KEEP_ORIGINS_FROM: usize = 1024;

/// Sizes of blocks lowered before, by key (see the module doc).
#[derive(Debug, Default)]
pub struct StatsCache {
    map: Mutex<HashMap<u64, BlockStats>>,
    /// The constraints of blocks lowered attributing, by origin (the position of the
    /// instruction in its block, which the key fixes): every block while
    /// [`attributing`](StatsCache::attributing) (for `zkbc profile`: the program finally
    /// measured is attributed without lowering again), and always the blocks of at least
    /// [`KEEP_ORIGINS_FROM`] instructions ([`StatsCache::position_counts`]).
    origins: Mutex<HashMap<u64, Arc<PositionCounts>>>,
    /// Whether blocks lowered now record their origins (on from [`StatsCache::attributing`]
    /// until [`StatsCache::stop_attributing`]).
    recording: std::sync::atomic::AtomicBool,
    hits: AtomicUsize,
    misses: AtomicUsize,
    /// How every block is lowered (a cache holds the sizes of one set of options).
    opts: LowerOptions,
}

impl StatsCache {
    /// An empty cache.
    pub fn new() -> StatsCache {
        StatsCache::default()
    }

    /// An empty cache that lowers every block recording where its constraints come from (at
    /// the cost of one mark per instruction) and keeps the counts: [`StatsCache::attribution`]
    /// of a program whose blocks it lowered lowers nothing again.
    pub fn attributing() -> StatsCache {
        StatsCache {
            recording: true.into(),
            ..StatsCache::default()
        }
    }

    /// The cache lowering with `opts` (a builder: `StatsCache::new().lowering(opts)`).
    pub fn lowering(mut self, opts: LowerOptions) -> StatsCache {
        self.opts = opts;
        self
    }

    /// The options every block of this cache is lowered with.
    pub fn options(&self) -> LowerOptions {
        self.opts
    }

    /// Blocks lowered from now on record no origins (the attribution wanted is taken).
    pub fn stop_attributing(&self) {
        self.recording.store(false, Ordering::Relaxed);
    }

    /// `super::attribute` of `program`: the counts of blocks this cache lowered attributing,
    /// the other blocks lowered attributing now (and kept).
    pub fn attribution(&self, program: &Program) -> Result<Vec<BlockAttribution>, LowerError> {
        let infos = super::func_infos(program, self.opts);
        all_blocks(program)
            .par_iter()
            .map(|&(f, b)| {
                let func = program.func(f);
                let main_entry = f == program.main && b == func.entry;
                let counts = self.counts_of(func, f, &infos[f.index()], b, main_entry)?;
                Ok(attribute::from_positions(func, f, b, &counts))
            })
            .collect()
    }

    /// [`super::stats`] of `program`, lowering only the blocks not seen before.
    pub fn stats(&self, program: &Program) -> Result<Vec<BlockStats>, LowerError> {
        self.stats_of(program, all_blocks(program))
    }

    /// [`StatsCache::stats`] of the blocks of the functions `reached` marks (formation's
    /// copy of a program that still calls, whose calls it made hints: the callees are still
    /// part of the circuit).
    pub fn stats_reached(
        &self,
        program: &Program,
        reached: &[bool],
    ) -> Result<Vec<BlockStats>, LowerError> {
        let blocks = program
            .func_ids()
            .filter(|f| reached.get(f.index()).copied().unwrap_or(false))
            .flat_map(|f| program.func(f).layout.iter().map(move |&b| (f, b)))
            .collect();
        self.stats_of(program, blocks)
    }

    fn stats_of(
        &self,
        program: &Program,
        blocks: Vec<(FuncId, BlockId)>,
    ) -> Result<Vec<BlockStats>, LowerError> {
        let infos = super::func_infos(program, self.opts);
        blocks
            .par_iter()
            .map(|&(f, b)| {
                let func = program.func(f);
                let main_entry = f == program.main && b == func.entry;
                self.lookup_or_lower(func, f, &infos[f.index()], b, main_entry)
            })
            .collect()
    }

    /// How many of the constraints of block `b` of `program`'s function `f` each instruction
    /// emitted, by its position in the block (the rest under the `ORIGIN_*` pseudo-origins),
    /// after elimination: one attributing lowering, unless this cache kept the block's counts
    /// ([`StatsCache::attributing`]). The block's size is cached as [`StatsCache::blocks`]
    /// would. Block formation's [`split`](crate::opt::merge) reads where a block's prefix
    /// reaches a size from it.
    pub(crate) fn position_counts(
        &self,
        program: &Program,
        f: FuncId,
        b: BlockId,
    ) -> Result<Arc<PositionCounts>, LowerError> {
        let func = super::func_of(program, f, b)?;
        let info = Arc::new(FuncInfo::new(func, self.opts));
        let main_entry = f == program.main && b == func.entry;
        self.counts_of(func, f, &info, b, main_entry)
    }

    /// The counts by position of `b` kept by this cache, or lowered attributing now and kept
    /// (its size too).
    fn counts_of(
        &self,
        func: &Function,
        f: FuncId,
        info: &Arc<FuncInfo>,
        b: BlockId,
        main_entry: bool,
    ) -> Result<Arc<PositionCounts>, LowerError> {
        let key = fingerprint(func, info, b, main_entry);
        if let Some(known) = self.origins.lock().expect("cache lock").get(&key).cloned() {
            return Ok(known);
        }
        let lowered = lower_with_origins(func, f, info.clone(), b, main_entry)?;
        let counts = Arc::new(attribute::position_counts(&lowered));
        self.map
            .lock()
            .expect("cache lock")
            .entry(key)
            .or_insert_with(|| lowered.stats());
        self.origins
            .lock()
            .expect("cache lock")
            .insert(key, counts.clone());
        Ok(counts)
    }

    /// The cached size of `b` (with its key computed from `info`), or lowered and cached.
    fn lookup_or_lower(
        &self,
        func: &Function,
        f: FuncId,
        info: &Arc<FuncInfo>,
        b: BlockId,
        main_entry: bool,
    ) -> Result<BlockStats, LowerError> {
        let key = fingerprint(func, info, b, main_entry);
        let cached = self.map.lock().expect("cache lock").get(&key).copied();
        if let Some(mut s) = cached {
            self.hits.fetch_add(1, Ordering::Relaxed);
            s.func = f;
            s.block = b;
            s.memory_size = info.memory.size;
            s.ro_memory_size = info.memory.ro_size;
            s.ro_inits = info.memory.ro_inits();
            return Ok(s);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let record = self.recording.load(Ordering::Relaxed)
            || func.block(b).insts.len() >= KEEP_ORIGINS_FROM;
        let s = match record {
            true => {
                let lowered = lower_with_origins(func, f, info.clone(), b, main_entry)?;
                let counts = Arc::new(attribute::position_counts(&lowered));
                self.origins.lock().expect("cache lock").insert(key, counts);
                lowered.stats()
            }
            false => lower_with(func, f, info.clone(), b, main_entry)?.stats(),
        };
        self.map.lock().expect("cache lock").insert(key, s);
        Ok(s)
    }

    /// The sizes of `blocks` of `program`'s function `f`, each lowered now unless a block of
    /// the same key was (the function's facts computed once, the blocks lowered in parallel);
    /// later [`StatsCache::stats`] of a program holding the same blocks find them.
    pub fn blocks(
        &self,
        program: &Program,
        f: FuncId,
        blocks: &[BlockId],
    ) -> Vec<Result<BlockStats, LowerError>> {
        let Some(func) = program.funcs.get(f.index()) else {
            let missing = |&b: &BlockId| {
                Err(LowerError::NoSuchBlock {
                    func: f.to_string(),
                    block: b,
                })
            };
            return blocks.iter().map(missing).collect();
        };
        let info = Arc::new(FuncInfo::new(func, self.opts));
        blocks
            .par_iter()
            .map(|&b| {
                let main_entry = f == program.main && b == func.entry;
                self.lookup_or_lower(func, f, &info, b, main_entry)
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

/// Values renamed in the order a fingerprint first meets them, so that two blocks equal up to
/// a consistent renaming of their values (a candidate program and the same code reached by
/// another order of merges) get the same key. A different order of first meeting only makes
/// the keys differ: a miss, never a false hit. Each name carries whether the value's
/// attributes (type, constant, uses, place in memory) went into the key yet: they go in once,
/// where the value is first described, and every later mention is its name alone. The key
/// still fixes every value's attributes (each is hashed at a position the block's structure
/// fixes), at a fraction of the hashing: a value is mentioned about three times.
///
/// The names are kept by value index (`(name + 1) << 1 | described`, 0: not met yet) in a table
/// as long as the function's value arena when the block is large against it, and in a hash map
/// otherwise: a large block's fingerprint (every cache lookup of a program formed as one block
/// of 66,716 instructions) spent most of its time in the map, and a table for each of the many
/// small blocks of a function would cost more to clear than the map does.
enum Renaming {
    Table(Vec<u32>, u32),
    Map(super::fxhash::FxMap<ValueId, (u32, bool)>),
}

/// A block of `n` instructions has its names in a table when the function has at most this
/// many values per instruction: clearing a table entry costs a small fraction of a map lookup,
/// and a value is looked up about four times per instruction.
const TABLE_VALUES_PER_INST: usize = 64;

impl Renaming {
    /// The renaming for a block of `insts` instructions of a function of `values` values.
    fn new(values: usize, insts: usize) -> Renaming {
        match values <= TABLE_VALUES_PER_INST.saturating_mul(insts + 1) {
            true => Renaming::Table(vec![0; values], 0),
            false => {
                let mut map = super::fxhash::FxMap::default();
                map.reserve(insts + insts / 2);
                Renaming::Map(map)
            }
        }
    }

    fn of(&mut self, v: ValueId) -> u32 {
        self.name(v, false).0
    }

    /// `v`'s name, and whether this is the first time its attributes are asked for.
    fn describe(&mut self, v: ValueId) -> (u32, bool) {
        self.name(v, true)
    }

    /// `v`'s name, the next one if it has none, and whether `describe` asks for its
    /// attributes for the first time (marking them described).
    fn name(&mut self, v: ValueId, describe: bool) -> (u32, bool) {
        match self {
            Renaming::Table(slots, next) => {
                let i = v.index();
                if i >= slots.len() {
                    slots.resize(i + 1, 0);
                }
                let slot = &mut slots[i];
                if *slot == 0 {
                    *slot = (*next + 1) << 1;
                    *next += 1;
                }
                let first = describe && *slot & 1 == 0;
                if describe {
                    *slot |= 1;
                }
                ((*slot >> 1) - 1, first)
            }
            Renaming::Map(map) => {
                let next = map.len() as u32;
                let (name, described) = map.entry(v).or_insert((next, false));
                let first = describe && !*described;
                *described |= describe;
                (*name, first)
            }
        }
    }
}

fn fingerprint(func: &Function, info: &FuncInfo, b: BlockId, main_entry: bool) -> u64 {
    let mut h = FxHasher::default();
    let data = func.block(b);
    let mut names = Renaming::new(func.values.len(), data.params.len() + data.insts.len());
    main_entry.hash(&mut h);
    // A function with nothing in memory (most, and every unrolled loop's) skips the lookups:
    // with no segment there is no guarded write, initial contents or spill either.
    let in_memory = !info.memory.is_empty();
    in_memory.hash(&mut h);
    let value = |v: ValueId, h: &mut FxHasher, names: &mut Renaming| {
        let (name, first) = names.describe(v);
        name.hash(h);
        if !first {
            return;
        }
        func.value_type(v).hash(h);
        func.const_value(v).hash(h);
        info.uses(v).hash(h);
        if !in_memory {
            return;
        }
        // Where it lives in memory, and whether it is a guarded write (by which guard).
        let seg = info.memory.segment_of(v);
        seg.map(|s| &info.memory.segments[s as usize]).hash(h);
        info.memory
            .guarded
            .get(&v)
            .map(|&(g, when)| (names.of(g), when))
            .hash(h);
        info.memory.init_arrays.contains(&v).hash(h);
        info.memory.spill_of(v).hash(h);
    };
    info.memory.spill_segment.hash(&mut h);
    for &p in &data.params {
        value(p, &mut h, &mut names);
    }
    for &i in &data.insts {
        let inst = func.inst(i);
        // The kind with its operands renamed (they are described below).
        let mut kind = inst.kind.clone();
        kind.map_operands(|v| ValueId::new(names.of(v) as usize));
        kind.hash(&mut h);
        inst.no_wrap().hash(&mut h);
        inst.kind.for_each_operand(|v| value(v, &mut h, &mut names));
        for &r in &inst.results {
            value(r, &mut h, &mut names);
        }
    }
    if let Some(t) = &data.term {
        let mut t = t.clone();
        t.map_operands(|v| ValueId::new(names.of(v) as usize));
        t.hash(&mut h);
    }
    if let Some(t) = &data.term {
        for v in t.operands() {
            value(v, &mut h, &mut names);
        }
    }
    let live = |x: BlockId, h: &mut FxHasher, names: &mut Renaming| {
        x.hash(h);
        for &v in info.live_in.get(&x).map(Vec::as_slice).unwrap_or(&[]) {
            value(v, h, names);
        }
    };
    live(b, &mut h, &mut names);
    for s in func.successors(b) {
        live(s, &mut h, &mut names);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_program;

    /// A function whose values are numbered from `base`.
    fn numbered(base: u32, constant: u32) -> Program {
        let v = |i: u32| format!("v{}", base + i);
        parse_program(&format!(
            "fn main f0 -> u32 {{\nb0({}: u32, {}: u32):\n    {} = mul {}, {}\n    {} = add {}, u32 {constant}\n    jmp b1({})\nb1({}: u32):\n    {} = mul {}, {}\n    return {}\n}}",
            v(0), v(1), v(2), v(0), v(1), v(3), v(2), v(3), v(4), v(5), v(4), v(4), v(5)
        ))
        .expect("parses")
    }

    /// The table and the map name values alike (a block's key must not depend on which one
    /// its size chose): the same sequence of mentions gets the same names and first marks.
    #[test]
    fn the_table_and_the_map_rename_alike() {
        let mut table = Renaming::new(100, 10);
        let mut map = Renaming::new(100_000, 10);
        assert!(matches!(table, Renaming::Table(..)) && matches!(map, Renaming::Map(_)));
        // Mentions of values 0..40 in a scrambled order, some described, each several times.
        for step in 0u32..200 {
            let v = ValueId::new(((step * 7919) % 41) as usize);
            let got = match step % 3 {
                0 => (table.of(v), map.of(v)),
                _ => {
                    let (t, m) = (table.describe(v), map.describe(v));
                    assert_eq!(t.1, m.1, "first mark of {v} at step {step}");
                    (t.0, m.0)
                }
            };
            assert_eq!(got.0, got.1, "name of {v} at step {step}");
        }
        // A value past the table's length (not in the arena it was sized for) still gets a name.
        let far = ValueId::new(500);
        assert_eq!(table.describe(far), map.describe(far));
    }

    #[test]
    fn a_renamed_block_is_lowered_once_and_a_changed_one_again() {
        let cache = StatsCache::new();
        let first = cache.stats(&numbered(0, 7)).expect("lowers");
        assert_eq!(cache.hits_and_misses(), (0, 2));
        // The same code with every value numbered differently: answered from the cache.
        let renamed = cache.stats(&numbered(40, 7)).expect("lowers");
        assert_eq!(cache.hits_and_misses(), (2, 2));
        let sizes = |s: &[BlockStats]| s.iter().map(|b| b.constraints).collect::<Vec<_>>();
        assert_eq!(sizes(&first), sizes(&renamed));
        // Another constant in b0: b0 is lowered again, b1 (which does not see it) is not.
        cache.stats(&numbered(40, 9)).expect("lowers");
        assert_eq!(cache.hits_and_misses(), (3, 3));
    }
}
