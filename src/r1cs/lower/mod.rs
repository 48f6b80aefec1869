//! Lowering of one IR block to one instance: the input state becomes instance variables, each
//! instruction a gadget, the terminator the output state. Run in structure mode it yields the
//! constraints; run in witness mode on an input state it yields every variable's value.
//!
//! The parts, by what they do:
//!
//! - this file: the [`Lowerer`] and its entry point [`lower`], the walk over the block
//!   ([`Lowerer::run`]: input state, fused assertions and idioms, last uses, one instruction
//!   at a time) and reading values as wires;
//! - `state.rs`: the transition state ([`StateLayout`], [`ExitLayout`], block labels), its
//!   input wires and the output state built by the terminator;
//! - `env.rs`: the wires of the block's values;
//! - `instructions.rs`: one instruction to its gadget;
//! - `arith.rs`: binary operations on field elements, booleans and `uN`;
//! - `bits.rs`: known bits, the analysis that keeps a `uN` value's bits once decomposed (its
//!   lattice and the transfer function of every `uN` operation);
//! - `idioms.rs`: bitwise idioms (SHA-256's choice and majority) lowered as a whole;
//! - `assertions.rs`: assertions fused with the comparisons and `and`/`or` trees they assert;
//! - `arrays.rs`: array accesses through selectors, and `select` on wires;
//! - `accesses.rs`: accesses of arrays that live in memory and of spilled scalars, each exposed
//!   as `(addr, value[, rw])` instance variables (see [`crate::r1cs::memory`]).

mod accesses;
mod arith;
mod arrays;
mod assertions;
mod bits;
mod env;
mod idioms;
mod instructions;
mod state;

pub use state::{block_label, return_label, ExitLayout, StateLayout};

use std::borrow::Cow;

use super::builder::{Builder, ORIGIN_INPUTS, ORIGIN_MEMORY, ORIGIN_TRANSITION};
use super::fxhash::{FxMap, FxSet};
use super::gadgets::Num;
use super::lc::Lc;
use super::live::FuncInfo;
use super::memory::{AccessSlot, MemoryPlan};
use super::recipe::Recipe;
use super::LowerError;
use crate::field::Fr;
use crate::ir::arena::chunk_of;
use crate::ir::interp::Access;
use crate::ir::{Arena, BlockId, Const, Function, InstData, InstId, InstKind, Type, ValueId};
use assertions::{fused_reads, Fused};
use env::Env;
use idioms::Idiom;

/// The instructions of the block being lowered, as one bit per instruction id between the
/// block's smallest and largest (a block's instructions are mostly allocated together: a block
/// of a million instructions takes 125 KB of bits, not a hash set of them), with the arena
/// they are read from.
pub(super) struct InstSet<'i> {
    lo: usize,
    bits: Vec<u64>,
    arena: &'i Arena<InstData>,
}

impl<'i> InstSet<'i> {
    fn new(insts: &[InstId], arena: &'i Arena<InstData>) -> InstSet<'i> {
        let lo = insts.iter().map(|i| i.index()).min().unwrap_or(0);
        let hi = insts.iter().map(|i| i.index() + 1).max().unwrap_or(0);
        let mut bits = vec![0u64; (hi - lo).div_ceil(64)];
        for i in insts {
            let k = i.index() - lo;
            bits[k / 64] |= 1 << (k % 64);
        }
        InstSet { lo, bits, arena }
    }

    pub(super) fn contains(&self, i: &InstId) -> bool {
        let Some(k) = i.index().checked_sub(self.lo) else {
            return false;
        };
        self.bits
            .get(k / 64)
            .is_some_and(|w| w & (1 << (k % 64)) != 0)
    }

    /// Instruction `i` of the function.
    pub(super) fn inst(&self, i: InstId) -> &'i InstData {
        &self.arena[i.index()]
    }
}

/// Where a lowering reads the block's instructions: the function's arena, or an arena it
/// owns ([`lower_consuming`]) and frees behind its walk, a chunk as soon as the walk has lowered
/// every instruction of the block in it. The walk reads only the instruction it lowers (what an
/// assertion fuses is noted before, [`assertions::Fused`]), so nothing it frees is read again.
enum BlockInsts<'i> {
    Borrowed(&'i Arena<InstData>),
    Owned {
        arena: Arena<InstData>,
        /// Per chunk of the arena, the instructions of the block in it not lowered yet.
        pending: Vec<u32>,
    },
}

impl BlockInsts<'_> {
    fn arena(&self) -> &Arena<InstData> {
        match self {
            BlockInsts::Borrowed(a) => a,
            BlockInsts::Owned { arena, .. } => arena,
        }
    }

    /// Frees the chunks of an owned arena that hold no instruction of the block.
    fn release_unused(&mut self) {
        if let BlockInsts::Owned { arena, pending } = self {
            for (k, _) in pending.iter().enumerate().filter(|(_, n)| **n == 0) {
                arena.release_chunk(k);
            }
        }
    }

    /// Notes that instruction `i` is lowered: an owned arena frees its chunk when it was the
    /// chunk's last instruction of the block.
    fn lowered(&mut self, i: InstId) {
        if let BlockInsts::Owned { arena, pending } = self {
            let k = chunk_of(i.index());
            pending[k] -= 1;
            if pending[k] == 0 {
                arena.release_chunk(k);
            }
        }
    }
}

/// Results of linear operations longer than this become a witness variable (see
/// [`Builder::materialize`]), so a long chain of additions costs linear, not quadratic, time.
pub const MAX_LC_TERMS: usize = 64;

/// Bits of a `uN` whose combination grows past this become a witness variable (see
/// [`Lowerer::shorten`]).
pub const MAX_BIT_TERMS: usize = 64;

/// A wire: a scalar or an array of wires.
#[derive(Clone, Debug)]
pub(crate) enum Wire {
    Num(Num),
    Array(Vec<Wire>),
}

pub(crate) struct Lowerer<'a> {
    func: &'a Function,
    block: BlockId,
    pub cs: Builder,
    env: Env,
    /// What assertions of the block fuse.
    fused: Fused,
    /// Bitwise operations folded into an [`Idiom`] of a later instruction (not lowered).
    folded: FxSet<ValueId>,
    /// Instructions (by result) lowered as a whole bitwise idiom.
    idioms: FxMap<ValueId, Idiom>,
    /// Bit pairs `(a_i, b_i)` whose product a majority idiom built: the next majority over the
    /// same two bits (SHA-256's `b & c` is the previous round's `a & b`) starts from it.
    majority_pairs: FxSet<(Lc, Lc)>,
    selectors: FxMap<(ValueId, usize), Vec<Lc>>,
    divrem: FxMap<(ValueId, ValueId), (Num, Num)>,
    /// Normalized values (with their bits) by combination and width: the same sum reached by
    /// two routes (`z - t` and `z + -t`, or one array element read twice) is decomposed once.
    normalized: FxMap<(Lc, u32), Num>,
    inputs: Option<&'a [Fr]>,
    next_input: usize,
    /// The block's hint values in witness mode (missing ones are 0).
    hints: &'a [Fr],
    next_hint: usize,
    /// Which arrays live in memory.
    plan: &'a MemoryPlan,
    /// The block's array accesses in witness mode (the interpreter's trace; missing ones read 0).
    accesses: &'a [Access],
    next_access: usize,
    /// The memory accesses exposed so far, in order.
    mem_slots: Vec<AccessSlot>,
    /// The values of the spilled scalars the block reads (witness mode), in order.
    spills: &'a [Fr],
    /// The spilled scalars read, in order.
    spill_reads: Vec<ValueId>,
    /// The spilled scalars written, with their access's index.
    spill_writes: Vec<(usize, ValueId)>,
    pos: Option<usize>,
}

/// What witness mode lowers a block execution from: the input leaves after the label, the
/// execution's hint values and array accesses, and the values of the spilled scalars it reads.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Witness<'a> {
    pub inputs: &'a [Fr],
    pub hints: &'a [Fr],
    pub accesses: &'a [Access],
    pub spills: &'a [Fr],
}

/// Lowers `block` of `func`: in structure mode without a `witness`, in witness mode with one.
pub(crate) fn lower<'a>(
    func: &'a Function,
    info: &'a FuncInfo,
    block: BlockId,
    main_entry: bool,
    witness: Option<Witness<'a>>,
) -> Result<(Builder, StateLayout), LowerError> {
    let cs = Builder::new(witness.is_some());
    let insts = BlockInsts::Borrowed(&func.insts);
    lower_block(cs, func, insts, info, (block, main_entry), witness)
}

/// Lowers `block` of `func` in structure mode with the builder `cs`: [`Builder::recording`]
/// records every allocation's recipe (the builder's `recorder`: the block's witness tape),
/// [`Builder::attributing`] where each constraint comes from (the builder's `origins`: the
/// instruction's position in the block, or a pseudo-origin).
pub(crate) fn lower_structure<'a>(
    cs: Builder,
    func: &'a Function,
    info: &'a FuncInfo,
    block: BlockId,
    main_entry: bool,
) -> Result<(Builder, StateLayout), LowerError> {
    let insts = BlockInsts::Borrowed(&func.insts);
    lower_block(cs, func, insts, info, (block, main_entry), None)
}

/// Lowers `block` in structure mode from `insts`, the instruction arena taken out of `func`
/// (whose own arena is then empty), freeing the arena behind the walk: a block of 10^7
/// instructions never holds its instructions and its constraints whole at once. The block must
/// be the only one of `func` that reads `insts` afterwards: none does.
pub(crate) fn lower_consuming<'a>(
    func: &'a Function,
    insts: Arena<InstData>,
    info: &'a FuncInfo,
    block: BlockId,
    main_entry: bool,
) -> Result<(Builder, StateLayout), LowerError> {
    let mut pending = vec![0u32; chunk_of(insts.len()) + 1];
    for &i in &func.block(block).insts {
        pending[chunk_of(i.index())] += 1;
    }
    let insts = BlockInsts::Owned {
        arena: insts,
        pending,
    };
    lower_block(
        Builder::new(false),
        func,
        insts,
        info,
        (block, main_entry),
        None,
    )
}

/// Lowers `block` (`main`'s entry block when `main_entry`) into `cs`, reading its instructions
/// from `insts`.
fn lower_block<'a>(
    mut cs: Builder,
    func: &'a Function,
    mut insts: BlockInsts<'_>,
    info: &'a FuncInfo,
    (block, main_entry): (BlockId, bool),
    witness: Option<Witness<'a>>,
) -> Result<(Builder, StateLayout), LowerError> {
    let w = witness.unwrap_or_default();
    let (inputs, hints, accesses, spills) =
        (witness.map(|w| w.inputs), w.hints, w.accesses, w.spills);
    cs.reserve_for_block(func.block(block).insts.len());
    let mut l = Lowerer {
        func,
        block,
        cs,
        env: Env::new(func, insts.arena(), block),
        fused: Fused::default(),
        folded: FxSet::default(),
        idioms: FxMap::default(),
        majority_pairs: FxSet::default(),
        selectors: FxMap::default(),
        divrem: FxMap::default(),
        normalized: FxMap::default(),
        inputs,
        next_input: 0,
        hints,
        next_hint: 0,
        plan: &info.memory,
        accesses,
        next_access: 0,
        mem_slots: Vec::new(),
        spills,
        spill_reads: Vec::new(),
        spill_writes: Vec::new(),
        pos: None,
    };
    let layout = l.run(&mut insts, info, main_entry)?;
    Ok((l.cs, layout))
}

type R<T> = Result<T, LowerError>;

impl<'a> Lowerer<'a> {
    fn err(&self, what: impl Into<String>) -> LowerError {
        LowerError::Unsupported {
            func: self.func.name.clone(),
            block: self.block,
            inst: self.pos,
            what: what.into(),
        }
    }

    fn run(
        &mut self,
        insts: &mut BlockInsts<'_>,
        info: &FuncInfo,
        main_entry: bool,
    ) -> R<StateLayout> {
        let func = self.func;
        let data = func.block(self.block);
        self.cs.set_origin(match main_entry {
            true => ORIGIN_INPUTS,
            false => ORIGIN_TRANSITION,
        });
        let in_label = self.cs.instance(Recipe::Const(block_label(self.block)));
        let mut param_leaves = 0;
        let mut memory_params = Vec::with_capacity(data.params.len());
        let mut initial_writes = Vec::new();
        for &p in &data.params {
            let ty = func.value_type(p).clone();
            let seg = self.plan.segment_of(p);
            memory_params.push(seg.is_some() && !main_entry);
            if seg.is_some() && !main_entry {
                continue;
            }
            let w = self.input_wire(&ty, main_entry)?;
            param_leaves += self.count_leaves(&ty)?;
            match seg {
                // `main`'s input array in memory: written there element by element.
                Some(s) => initial_writes.push((s, w)),
                None => self.env.insert(p, w),
            }
        }
        let live_in = info.live_in.get(&self.block).cloned().unwrap_or_default();
        let mut live_leaves = 0;
        for &v in &live_in {
            let ty = func.value_type(v).clone();
            let w = self.input_wire(&ty, false)?;
            live_leaves += self.count_leaves(&ty)?;
            self.env.insert(v, w);
        }
        self.cs.set_origin(ORIGIN_TRANSITION);
        self.cs
            .enforce_eq(&Lc::var(in_label), &Lc::constant(block_label(self.block)));
        self.cs.set_origin(ORIGIN_MEMORY);
        for (seg, w) in initial_writes {
            let Wire::Array(items) = w else {
                return Err(self.err("a scalar in memory"));
            };
            self.write_all(seg, &items)?;
        }
        // Spilled parameters are written where they arrive; spilled values of other blocks are
        // read from memory.
        for &p in &data.params {
            self.spill_write(p)?;
        }
        self.spill_read_all(insts.arena())?;
        // `eq` results whose only use is an `assert` of this block become `a = b`; a `u1` `and`
        // whose only use is an `assert` (or such an `and`) is not built: the assertion asserts
        // each operand instead (`a ∧ b = 1` iff `a = 1` and `b = 1` for booleans), so
        // `assert(a == [true; N])` costs no product per element.
        let arena = insts.arena();
        let in_block = InstSet::new(&data.insts, arena);
        for &i in &data.insts {
            if let InstKind::Assert { cond, .. } = &arena[i.index()].kind {
                self.fuse_assertion(*cond, info, &in_block, false);
            }
        }
        let mut majorities = Vec::new();
        for &i in &data.insts {
            self.find_idiom(i, info, &in_block, &mut majorities);
        }
        drop(in_block);
        self.settle_majorities(majorities, info);
        // Wires are dropped after their last reader in this block, unless the terminator or a
        // later block (through a successor's live-ins) needs them.
        for (pos, &i) in data.insts.iter().enumerate() {
            let kind = &arena[i.index()].kind;
            let env = &mut self.env;
            let mut note = |v: ValueId| {
                if let Some(k) = env.slot(v) {
                    env.last_use[k] = pos as u32;
                }
            };
            kind.for_each_operand(&mut note);
            // A fused assertion reads the leaves of its tree (the operands of fused `eq`s, and
            // the operands of fused `and`s that are not fused).
            if let InstKind::Assert { cond, .. } = kind {
                for leaf in fused_reads(&self.fused, *cond) {
                    note(leaf);
                }
            }
            if let Some(idiom) = arena[i.index()]
                .results
                .first()
                .and_then(|r| self.idioms.get(r))
            {
                idiom.reads().into_iter().for_each(&mut note);
            }
        }
        if let Some(t) = &data.term {
            let keep = t.operands().into_iter().chain(
                t.successors()
                    .into_iter()
                    .flat_map(|b| info.live_in.get(&b).cloned().unwrap_or_default()),
            );
            for v in keep {
                if let Some(k) = self.env.slot(v) {
                    self.env.last_use[k] = u32::MAX;
                }
            }
        }
        let limit = info.max_constraints;
        insts.release_unused();
        for (pos, &i) in data.insts.iter().enumerate() {
            self.pos = Some(pos);
            self.cs.set_origin(pos as u32);
            let inst = &insts.arena()[i.index()];
            let access = self.take_access(&inst.kind);
            let mut results = match self.lower_memory(&inst.kind, &inst.results, access)? {
                Some(results) => results,
                None => self.lower_inst(&inst.kind, &inst.results, inst.no_wrap())?,
            };
            if self.cs.n_constraints() > limit {
                return Err(LowerError::TooLarge {
                    func: func.name.clone(),
                    block: self.block,
                    limit,
                });
            }
            if matches!(
                inst.kind,
                InstKind::Binary { .. }
                    | InstKind::Select { .. }
                    | InstKind::Not { .. }
                    | InstKind::ArrayGet { .. }
                    | InstKind::ArraySet { .. }
            ) {
                for w in &mut results {
                    self.shorten(w);
                }
            }
            for (r, w) in inst.results.iter().zip(results) {
                self.env.insert(*r, w);
            }
            for &r in &inst.results {
                self.spill_write(r)?;
            }
            inst.kind.for_each_operand(|v| self.env.release(v, pos));
            if let InstKind::Assert { cond, .. } = &inst.kind {
                for leaf in fused_reads(&self.fused, *cond) {
                    self.env.release(leaf, pos);
                }
            }
            if let Some(idiom) = inst.results.first().and_then(|r| self.idioms.get(r)) {
                for v in idiom.reads() {
                    self.env.release(v, pos);
                }
            }
            insts.lowered(i);
        }
        self.pos = None;
        self.cs.set_origin(ORIGIN_TRANSITION);
        let term = data
            .term
            .as_ref()
            .ok_or_else(|| self.err("a block without terminator"))?;
        let mut layout = self.lower_term(term, info, param_leaves, live_in, live_leaves)?;
        layout.memory_params = memory_params;
        layout.spill_reads = std::mem::take(&mut self.spill_reads);
        layout.spill_writes = std::mem::take(&mut self.spill_writes);
        Ok(layout)
    }

    /// Materializes leaves whose combination has grown past [`MAX_LC_TERMS`].
    fn shorten(&mut self, w: &mut Wire) {
        match w {
            Wire::Num(n) => {
                // The constant does not count: `not` of a `u64` has 64 variables and `2^64 − 1`.
                if n.lc.n_vars() > MAX_LC_TERMS {
                    n.lc = self.cs.materialize(&n.lc);
                }
                // The bits too: a bit built from earlier bits by linear operations (`not`, the
                // choice idiom's `z + t`) carries their combinations. The bits of `uN` `xor` and
                // `or` are single variables (`Builder::mul_affine`), so this rarely applies.
                let long = n
                    .bitvec
                    .as_ref()
                    .is_some_and(|b| b.iter().any(|x| x.terms().len() > MAX_BIT_TERMS));
                if long {
                    let bits: Vec<Lc> = n
                        .bitvec
                        .as_ref()
                        .map(|b| b.to_vec())
                        .unwrap_or_default()
                        .into_iter()
                        .map(|x| {
                            if x.terms().len() > MAX_BIT_TERMS {
                                self.cs.materialize(&x)
                            } else {
                                x
                            }
                        })
                        .collect();
                    n.bitvec = Some(bits.into());
                }
            }
            Wire::Array(items) => items.iter_mut().for_each(|i| self.shorten(i)),
        }
    }

    fn ty(&self, v: ValueId) -> &'a Type {
        self.func.value_type(v)
    }

    fn get(&self, v: ValueId) -> R<Wire> {
        if let Some(c) = self.func.const_value(v) {
            return Ok(Wire::Num(const_num(c)));
        }
        self.env
            .get(v)
            .cloned()
            .ok_or_else(|| self.err(format!("{v} is used before it is defined")))
    }

    fn num(&self, v: ValueId) -> R<Num> {
        match self.get(v)? {
            Wire::Num(n) => Ok(n),
            Wire::Array(_) => Err(self.err(format!("{v} is an array where a scalar is needed"))),
        }
    }

    fn array(&self, v: ValueId) -> R<Vec<Wire>> {
        match self.get(v)? {
            Wire::Array(a) => Ok(a),
            Wire::Num(_) => Err(self.err(format!("{v} is a scalar where an array is needed"))),
        }
    }

    /// The wires of an array, moved out of the environment when this instruction is the
    /// array's last reader (an `array_set` on a long array then copies nothing), else copied.
    fn array_owned(&mut self, v: ValueId) -> R<Vec<Wire>> {
        if let Some(pos) = self.pos {
            match self.env.take_at_last_use(v, pos) {
                Some(Wire::Array(a)) => return Ok(a),
                Some(w) => {
                    self.env.insert(v, w);
                    return Err(self.err(format!("{v} is a scalar where an array is needed")));
                }
                None => {}
            }
        }
        self.array(v)
    }

    /// The wires of an array without copying them (constants are never arrays).
    fn array_ref(&self, v: ValueId) -> R<&[Wire]> {
        match self.env.get(v) {
            Some(Wire::Array(a)) => Ok(a),
            Some(Wire::Num(_)) => {
                Err(self.err(format!("{v} is a scalar where an array is needed")))
            }
            None => Err(self.err(format!("{v} is used before it is defined"))),
        }
    }

    fn width(&self, v: ValueId) -> R<u32> {
        self.ty(v)
            .uint_width()
            .ok_or_else(|| self.err(format!("{v} is not an unsigned integer")))
    }

    /// The value of a `uN` normalized (exact), cached for later uses.
    fn norm(&mut self, v: ValueId) -> R<Num> {
        let n = self.width(v)?;
        let x = self.num(v)?;
        if x.bits <= n {
            return Ok(x);
        }
        let y = self.normalize(&x, n);
        self.env.insert(v, Wire::Num(y.clone()));
        Ok(y)
    }

    /// `x` reduced to `n` bits ([`Builder::normalize`]), once per combination.
    fn normalize(&mut self, x: &Num, n: u32) -> Num {
        if x.bits <= n || x.lc.as_constant().is_some() || x.bitvec.is_some() {
            return self.cs.normalize(x, n);
        }
        let key = (x.lc.clone(), n);
        if let Some(y) = self.normalized.get(&key) {
            return y.clone();
        }
        let y = self.cs.normalize(x, n);
        self.normalized.insert(key, y.clone());
        y
    }

    /// The value of a `uN` with its bits, cached for later uses.
    fn bits(&mut self, v: ValueId) -> R<Num> {
        let n = self.width(v)?;
        let x = self.norm(v)?;
        if x.bitvec.as_ref().is_some_and(|b| b.len() == n as usize) {
            return Ok(x);
        }
        if let Some(y) = bits::pad(&x, n) {
            if self.func.const_value(v).is_none() {
                self.env.insert(v, Wire::Num(y.clone()));
            }
            return Ok(y);
        }
        if n == 1 {
            let b = x.lc.clone();
            return Ok(Num {
                bitvec: Some(vec![b].into()),
                ..x
            });
        }
        let key = (x.lc.clone(), n);
        let y = match self.normalized.get(&key) {
            Some(y) if y.bitvec.is_some() => y.clone(),
            _ => {
                let y = self.cs.bits_of(&x, n);
                if x.lc.as_constant().is_none() {
                    self.normalized.insert(key, y.clone());
                }
                y
            }
        };
        if self.func.const_value(v).is_none() {
            self.env.insert(v, Wire::Num(y.clone()));
        }
        Ok(y)
    }
}

/// The scalar `v`, borrowed from `env` (a constant made anew), or what is wrong with it: the
/// arithmetic reads its operands without copying their combinations (a Poseidon state word is a
/// combination of dozens of terms, and copying it cost as much as the arithmetic). A function
/// of the two fields, not a method, so that the operands stay borrowed while the builder
/// grows.
fn scalar<'e>(func: &Function, env: &'e Env, v: ValueId) -> Result<Cow<'e, Num>, String> {
    if let Some(c) = func.const_value(v) {
        return Ok(Cow::Owned(const_num(c)));
    }
    match env.get(v) {
        Some(Wire::Num(n)) => Ok(Cow::Borrowed(n)),
        Some(Wire::Array(_)) => Err(format!("{v} is an array where a scalar is needed")),
        None => Err(format!("{v} is used before it is defined")),
    }
}

/// The wire of a constant operand.
fn const_num(c: Const) -> Num {
    match c {
        Const::Field(x) => Num::constant(x),
        Const::UInt(n) => Num::from_u64(n),
    }
}
