//! Functions and programs: arenas of blocks, instructions and values, with the layout (the
//! blocks that belong to the function, in print order).

use crate::fxhash::HashMap;

use super::arena::Arena;
use super::entities::{BlockId, FuncId, InstId, PackedLoc, SrcLoc, ValueId};
use super::instructions::{BinOp, Const, InstKind, Terminator};
use super::types::Type;
use crate::field::Fr;
use crate::fxhash::FxMap;

pub use super::results::Results;

/// Where a value comes from. Kept to 12 bytes aligned to 4 (a [`ValueData`] is 16): indices are
/// `u32`, and a constant that does not fit in 32 bits lives in a table of the function
/// ([`Function::field_consts`], [`Function::uint_consts`]), the value holding its index.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Parameter `index` of a block.
    Param(BlockId, u32),
    /// Result `index` of an instruction.
    Result(InstId, u32),
    /// A constant, written inline in the text format (`u32 5`, `field 7`); its value is
    /// [`Function::const_value`].
    Const(ConstRef),
}

/// Where a constant's value is stored: an integer below 2^32 in the value itself, a larger one
/// in the function's table [`Function::uint_consts`], a field element in
/// [`Function::field_consts`]. [`Function::make_const`] stores an integer inline whenever it
/// fits, so two equal integer constants of a function hold the same `Small` or each a `Wide`
/// index (compare them by [`Function::const_of`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ConstRef {
    /// [`Const::UInt`] of this value.
    Small(u32),
    /// [`Const::UInt`] of `uint_consts[index]` (a value of 2^32 or more).
    Wide(u32),
    /// [`Const::Field`] of `field_consts[index]`.
    Field(u32),
}

/// A value's type in its function's table of types ([`Function::type_data`]): an id of one
/// function, never to be read in another (a pass copying a value into another function interns
/// its type there, as [`Function::make_const`] and the other constructors do).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TypeId(u32);

impl TypeId {
    /// The id's index in its function's table of types.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A value's type and definition. 16 bytes, asserted at compile time: the type is an id in the
/// function's table of the distinct types its values have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ValueData {
    /// The value's type, [`Function::type_data`] of it ([`Function::value_type`] of the value).
    pub ty: TypeId,
    /// Where it is defined.
    pub def: ValueDef,
}

// A merged straight-line block holds millions of values: keep the entry at 16 bytes.
const _: () = assert!(std::mem::size_of::<ValueDef>() == 12);
const _: () = assert!(std::mem::size_of::<ValueData>() == 16);

/// An instruction with its results, source location and `nuw` flag. 56 bytes: the results
/// take 16 ([`Results`]), the location and the flag share one [`PackedLoc`] (8 bytes), read and written through [`InstData::loc`],
/// [`InstData::no_wrap`] and their setters.
#[derive(Clone, PartialEq, Eq)]
pub struct InstData {
    /// What it does.
    pub kind: InstKind,
    /// The values it defines (one for most instructions, none for `assert`/`store`, any number
    /// for `call`).
    pub results: Results,
    /// The source location and the `nuw` flag.
    packed: PackedLoc,
}

// An unrolled loop makes millions of instructions: keep the entry at 56 bytes.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<InstData>() == 56);

impl InstData {
    /// An instruction at `loc`, without the `nuw` flag.
    pub fn new(kind: InstKind, results: Results, loc: Option<SrcLoc>) -> Self {
        InstData {
            kind,
            results,
            packed: PackedLoc::new(loc, false),
        }
    }

    /// Where in the source program it comes from, if known (a line or column too large for
    /// [`PackedLoc`] reads back as its maximum).
    pub fn loc(&self) -> Option<SrcLoc> {
        self.packed.loc()
    }

    /// Sets where in the source program it comes from.
    pub fn set_loc(&mut self, loc: Option<SrcLoc>) {
        self.packed.set_loc(loc);
    }

    /// `nuw` in the text format: the range analysis proved that this `uN` `add`, `sub`, `mul`
    /// or `shl` never wraps, or that this `cast` to `uN` always fits, on every execution that
    /// reaches it. R1CS lowering then skips the normalization or range check; the interpreter
    /// fails loudly if a run contradicts it (a compiler bug). Only the `ranges` and `indvars`
    /// passes set it, and `opt::calls::flatten` on the `cast` of a `uN` restored from the call
    /// stack (the memory check proves it equal to the `uN` saved); a pass that moves an
    /// instruction onto paths where it did not run before (predication) must clear it.
    pub fn no_wrap(&self) -> bool {
        self.packed.no_wrap()
    }

    /// Sets or clears the `nuw` flag ([`InstData::no_wrap`]).
    pub fn set_no_wrap(&mut self, no_wrap: bool) {
        self.packed.set_no_wrap(no_wrap);
    }
}

/// As the struct would print with separate `loc` and `no_wrap` fields.
impl std::fmt::Debug for InstData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstData")
            .field("kind", &self.kind)
            .field("results", &self.results)
            .field("loc", &self.loc())
            .field("no_wrap", &self.no_wrap())
            .finish()
    }
}

/// A basic block: parameters, straight-line instructions, one terminator.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct BlockData {
    /// The block's parameters (SSA phis), bound by the jumps into it.
    pub params: Vec<ValueId>,
    /// Its instructions in execution order.
    pub insts: Vec<InstId>,
    /// How it ends; `None` only while a block is being built (the verifier rejects it).
    pub term: Option<Terminator>,
    /// Where in the source program its terminator comes from, if known (not in the text
    /// format).
    pub term_loc: Option<SrcLoc>,
    /// Split from its only predecessor by block formation, so that the two pad to fewer
    /// cells than the one block they were (`opt::merge::formation::split`): `simplify_cfg`
    /// does not merge it back (not in the text format).
    pub split: bool,
}

/// A function: its entry block's parameters are the function's parameters.
#[derive(Clone, Debug)]
pub struct Function {
    /// The source-level name, e.g. `main`.
    pub name: String,
    /// The types of the returned values.
    pub returns: Vec<Type>,
    /// The entry block.
    pub entry: BlockId,
    /// The blocks of the function, in print order. Blocks of the arena not listed here are dead.
    pub layout: Vec<BlockId>,
    /// Block arena.
    pub blocks: Vec<BlockData>,
    /// Instruction arena.
    pub insts: Arena<InstData>,
    /// Value arena.
    pub values: Arena<ValueData>,
    /// The field elements of the `field` constants ([`ConstRef::Field`] indexes it); entries of
    /// dead constants stay, as dead values stay in the value arena.
    pub field_consts: Vec<Fr>,
    /// The integer constants of 2^32 or more ([`ConstRef::Wide`] indexes it); entries of dead
    /// constants stay, as in [`Function::field_consts`].
    pub uint_consts: Vec<u64>,
    /// The distinct types of the values ([`TypeId`] indexes it); a type no value has any more
    /// may stay.
    types: Vec<Type>,
    /// Each type of `types` to its id.
    type_ids: FxMap<Type, TypeId>,
    /// The element type's id of each array type of `types` an `array_get` read, by the array
    /// type's id (`u32::MAX`: not asked yet): unrolling copies hundreds of thousands of them,
    /// and interning each result type (a clone, a hash of the type and a lookup) was a fifth
    /// of what copying one cost.
    elem_type_ids: Vec<u32>,
    /// The call stack of a program whose calls were kept as blocks (`opt::calls::flatten`): the
    /// first value of the array family that saves values across calls, which the memory plan
    /// always puts in memory. `None` elsewhere; not part of the text format (a reparsed program
    /// keeps its stack in the transition state: the same semantics, at a higher cost).
    pub call_stack: Option<ValueId>,
    /// The static execution counts `opt::calls::flatten` carried over to the blocks of the
    /// flat `main` from the program with calls (each callee block `n_f · k_b`, each
    /// continuation and return test from its call sites), `None` where not known; the flat CFG
    /// alone hides them (a callee is a cycle through its call sites). `None` elsewhere; not
    /// part of the text format.
    pub flat_counts: Option<HashMap<BlockId, Option<u64>>>,
    /// How often each block is predicted to run: a profile run's counts (`--inputs`), or the
    /// static counts and estimates block formation scores with. Set by whoever predicts them
    /// before lowering (block formation on every program it scores, the driver on the program
    /// it compiles); the memory plan weighs each block's accesses and state by it
    /// (`r1cs::memory::plan`), so that memory or registers is decided by the counts the cells
    /// are predicted with. `None`, or a block missing from it: the plan's own estimate. It
    /// steers a cost decision, never what the program computes: not part of the text format
    /// or of equality.
    pub predicted_runs: Option<std::sync::Arc<HashMap<BlockId, u64>>>,
}

/// Equal as the function's contents: the values' types compared as types (not by their ids in
/// the functions' tables), integer constants by their values, field constants by their index
/// and the tables of field elements as tables.
impl PartialEq for Function {
    fn eq(&self, other: &Function) -> bool {
        self.name == other.name
            && self.returns == other.returns
            && self.entry == other.entry
            && self.layout == other.layout
            && self.blocks == other.blocks
            && self.insts == other.insts
            && self.field_consts == other.field_consts
            && self.call_stack == other.call_stack
            && self.flat_counts == other.flat_counts
            && self.values.len() == other.values.len()
            && self.values.iter().zip(&other.values).all(|(a, b)| {
                self.type_data(a.ty) == other.type_data(b.ty)
                    && match (a.def, b.def) {
                        (
                            ValueDef::Const(x @ (ConstRef::Small(_) | ConstRef::Wide(_))),
                            ValueDef::Const(y @ (ConstRef::Small(_) | ConstRef::Wide(_))),
                        ) => self.const_of(x) == other.const_of(y),
                        (x, y) => x == y,
                    }
            })
    }
}

impl Eq for Function {}

/// A whole program: functions and which one is `main`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Program {
    /// Function arena; `FuncId(i)` is `funcs[i]`.
    pub funcs: Vec<Function>,
    /// The function executed by the interpreter and lowered to R1CS.
    pub main: FuncId,
    /// The source files [`SrcLoc::file`] indexes, by the names the user knows them by (the file
    /// compiled first); empty for a program read from IR text.
    pub files: Vec<String>,
    /// The inline frames [`SrcLoc::frame`] indexes (`ir::frames`): through which inlined
    /// calls each instruction came.
    pub frames: super::frames::InlineFrames,
}

impl Program {
    /// Whether each function is part of the circuit: reachable from `main` through calls.
    /// The others run only as `hint`s (in the interpreter, at witness generation), or never.
    pub fn circuit_funcs(&self) -> Vec<bool> {
        let mut reached = vec![false; self.funcs.len()];
        let mut stack = vec![self.main];
        while let Some(f) = stack.pop() {
            let Some(r) = reached.get_mut(f.index()) else {
                continue;
            };
            if std::mem::replace(r, true) {
                continue;
            }
            let func = &self.funcs[f.index()];
            for b in &func.layout {
                for i in &func.block(*b).insts {
                    if let InstKind::Call { func: c, .. } = func.inst(*i).kind {
                        stack.push(c);
                    }
                }
            }
        }
        reached
    }

    /// The function `id`.
    pub fn func(&self, id: FuncId) -> &Function {
        &self.funcs[id.index()]
    }

    /// The function `id`, mutably.
    pub fn func_mut(&mut self, id: FuncId) -> &mut Function {
        &mut self.funcs[id.index()]
    }

    /// The `main` function.
    pub fn main_func(&self) -> &Function {
        self.func(self.main)
    }

    /// All function ids.
    pub fn func_ids(&self) -> impl Iterator<Item = FuncId> {
        (0..self.funcs.len()).map(FuncId::new)
    }

    /// Number of instructions in the laid-out blocks of every function.
    pub fn n_insts(&self) -> usize {
        self.funcs.iter().map(Function::n_insts).sum()
    }

    /// Number of laid-out blocks of every function.
    pub fn n_blocks(&self) -> usize {
        self.funcs.iter().map(|f| f.layout.len()).sum()
    }
}

impl Function {
    /// An empty function with one entry block and no parameters.
    pub fn new(name: impl Into<String>, returns: Vec<Type>) -> Function {
        let mut func = Function::without_blocks(name, returns);
        func.entry = func.create_block();
        func
    }

    /// An empty function without blocks (its `entry` is `b0`, to be created), for a caller
    /// that builds the arenas itself (the IR parser, id normalization).
    pub fn without_blocks(name: impl Into<String>, returns: Vec<Type>) -> Function {
        Function {
            name: name.into(),
            returns,
            entry: BlockId(0),
            layout: Vec::new(),
            blocks: Vec::new(),
            insts: Arena::new(),
            values: Arena::new(),
            field_consts: Vec::new(),
            uint_consts: Vec::new(),
            types: Vec::new(),
            type_ids: FxMap::default(),
            elem_type_ids: Vec::new(),
            call_stack: None,
            flat_counts: None,
            predicted_runs: None,
        }
    }

    /// The id of `ty` in this function's table of types, adding it if it is new.
    pub fn intern_type(&mut self, ty: Type) -> TypeId {
        if let Some(&id) = self.type_ids.get(&ty) {
            return id;
        }
        let id = TypeId(u32::try_from(self.types.len()).expect("more than u32::MAX types"));
        self.types.push(ty.clone());
        self.type_ids.insert(ty, id);
        id
    }

    /// The type `id` of this function's table.
    pub fn type_data(&self, id: TypeId) -> &Type {
        &self.types[id.index()]
    }

    /// Appends a value of type `ty` defined by `def` to the arena (the caller records it where
    /// `def` says).
    pub fn push_value(&mut self, ty: Type, def: ValueDef) -> ValueId {
        let ty = self.intern_type(ty);
        self.push_value_typed(ty, def)
    }

    /// How many types this function has interned (type ids are below it).
    pub fn type_count(&self) -> usize {
        self.types.len()
    }

    /// [`Function::push_value`] with the type already interned in this function.
    pub fn push_value_typed(&mut self, ty: TypeId, def: ValueDef) -> ValueId {
        let id = ValueId::new(self.values.len());
        self.values.push(ValueData { ty, def });
        id
    }

    /// Sets the type of value `id`.
    pub fn set_value_type(&mut self, id: ValueId, ty: Type) {
        let ty = self.intern_type(ty);
        self.values[id.index()].ty = ty;
    }

    /// Appends a new empty block to the arena and the layout.
    pub fn create_block(&mut self) -> BlockId {
        let id = BlockId::new(self.blocks.len());
        self.blocks.push(BlockData::default());
        self.layout.push(id);
        id
    }

    /// The block `id`.
    pub fn block(&self, id: BlockId) -> &BlockData {
        &self.blocks[id.index()]
    }

    /// The block `id`, mutably.
    pub fn block_mut(&mut self, id: BlockId) -> &mut BlockData {
        &mut self.blocks[id.index()]
    }

    /// The instruction `id`.
    pub fn inst(&self, id: InstId) -> &InstData {
        &self.insts[id.index()]
    }

    /// The instruction `id`, mutably.
    pub fn inst_mut(&mut self, id: InstId) -> &mut InstData {
        &mut self.insts[id.index()]
    }

    /// The value `id`'s data.
    pub fn value(&self, id: ValueId) -> &ValueData {
        &self.values[id.index()]
    }

    /// The type of value `id`.
    pub fn value_type(&self, id: ValueId) -> &Type {
        self.type_data(self.values[id.index()].ty)
    }

    /// The type of value `id`, or `None` if `id` is not in the arena.
    pub fn value_type_checked(&self, id: ValueId) -> Option<&Type> {
        self.values.get(id.index()).map(|d| self.type_data(d.ty))
    }

    /// The constant held by `id`, if it is one.
    pub fn const_value(&self, id: ValueId) -> Option<Const> {
        match self.values[id.index()].def {
            ValueDef::Const(c) => Some(self.const_of(c)),
            _ => None,
        }
    }

    /// Whether `id` is a constant ([`Function::const_value`] without making the constant).
    pub fn is_const(&self, id: ValueId) -> bool {
        matches!(self.values[id.index()].def, ValueDef::Const(_))
    }

    /// The constant `c` stands for.
    pub fn const_of(&self, c: ConstRef) -> Const {
        match c {
            ConstRef::Small(x) => Const::UInt(u64::from(x)),
            ConstRef::Wide(k) => Const::UInt(self.uint_consts[k as usize]),
            ConstRef::Field(k) => Const::Field(self.field_consts[k as usize]),
        }
    }

    /// The function's parameters (the entry block's parameters).
    pub fn params(&self) -> &[ValueId] {
        &self.block(self.entry).params
    }

    /// The types of the function's parameters.
    pub fn param_types(&self) -> Vec<Type> {
        self.params()
            .iter()
            .map(|v| self.value_type(*v).clone())
            .collect()
    }

    /// Number of instructions in laid-out blocks.
    pub fn n_insts(&self) -> usize {
        self.layout.iter().map(|b| self.block(*b).insts.len()).sum()
    }

    /// A new constant value.
    pub fn make_const(&mut self, ty: Type, value: Const) -> ValueId {
        let c = match value {
            Const::UInt(x) => match u32::try_from(x) {
                Ok(small) => ConstRef::Small(small),
                Err(_) => {
                    let k = u32::try_from(self.uint_consts.len())
                        .expect("integer constant table exceeds u32::MAX entries");
                    self.uint_consts.push(x);
                    ConstRef::Wide(k)
                }
            },
            Const::Field(x) => {
                let k = u32::try_from(self.field_consts.len())
                    .expect("field constant table exceeds u32::MAX entries");
                self.field_consts.push(x);
                ConstRef::Field(k)
            }
        };
        self.push_value(ty, ValueDef::Const(c))
    }

    /// A new `field` constant.
    pub fn const_field(&mut self, value: Fr) -> ValueId {
        self.make_const(Type::Field, Const::Field(value))
    }

    /// A new `uN` constant; `value` is reduced mod 2^width.
    pub fn const_uint(&mut self, width: u32, value: u64) -> ValueId {
        self.make_const(Type::UInt(width), Const::UInt(wrap(value, width)))
    }

    /// A new `u1` constant.
    pub fn const_bool(&mut self, value: bool) -> ValueId {
        self.const_uint(1, u64::from(value))
    }

    /// Adds a parameter of type `ty` at the end of `block`'s parameters.
    pub fn append_block_param(&mut self, block: BlockId, ty: Type) -> ValueId {
        let index = u32::try_from(self.block(block).params.len())
            .expect("block parameters exceed u32::MAX");
        let id = self.push_value(ty, ValueDef::Param(block, index));
        self.block_mut(block).params.push(id);
        id
    }

    /// Removes parameter `index` of `block` (the caller removes the matching jump arguments).
    pub fn remove_block_param(&mut self, block: BlockId, index: usize) {
        self.block_mut(block).params.remove(index);
        let params = self.block(block).params.clone();
        for (i, p) in params.into_iter().enumerate().skip(index) {
            self.values[p.index()].def = ValueDef::Param(block, i as u32);
        }
    }

    /// Creates an instruction with fresh result values (typed by [`Function::result_types`],
    /// calls by `call_returns`), not yet placed in any block.
    pub fn create_inst(
        &mut self,
        kind: InstKind,
        call_returns: &[Type],
        loc: Option<SrcLoc>,
    ) -> InstId {
        let id = InstId::new(self.insts.len());
        let results = if let Some(ty) = self
            .same_type_result(&kind)
            .or_else(|| self.array_get_result(&kind))
        {
            // The common cases (arithmetic on a value, an array's element): its type's id,
            // without hashing the type.
            std::iter::once(self.push_value_typed(ty, ValueDef::Result(id, 0))).collect()
        } else {
            let types = match kind {
                InstKind::Call { .. } => call_returns.to_vec(),
                _ => self.result_types(&kind),
            };
            types
                .into_iter()
                .enumerate()
                .map(|(i, ty)| self.push_value(ty, ValueDef::Result(id, i as u32)))
                .collect()
        };
        self.insts.push(InstData::new(kind, results, loc));
        id
    }

    /// The type id of an instruction's single result when it is that of an operand in the arena
    /// (as [`result_types_typed`] says: a non-comparison binary operation, `not`, `select`,
    /// `array_set`).
    fn same_type_result(&self, kind: &InstKind) -> Option<TypeId> {
        let operand = same_type_operand(kind)?;
        self.values.get(operand.index()).map(|d| d.ty)
    }

    /// The type id of an `array_get`'s result: its array's element type, interned once per
    /// array type (`elem_type_ids`).
    fn array_get_result(&mut self, kind: &InstKind) -> Option<TypeId> {
        const NOT_YET: u32 = u32::MAX;
        let InstKind::ArrayGet { array, .. } = kind else {
            return None;
        };
        let at = self.values.get(array.index())?.ty.index();
        match self.elem_type_ids.get(at) {
            Some(&e) if e != NOT_YET => return Some(TypeId(e)),
            _ => {}
        }
        let elem = self.types[at].elem()?.clone();
        let e = self.intern_type(elem);
        if self.elem_type_ids.len() <= at {
            self.elem_type_ids.resize(at + 1, NOT_YET);
        }
        self.elem_type_ids[at] = e.0;
        Some(e)
    }

    /// The result types of a non-call instruction from its operands' types. Total: on ill-typed
    /// operands it still answers (the verifier reports the type error).
    pub fn result_types(&self, kind: &InstKind) -> Vec<Type> {
        result_types_typed(kind, &|v| {
            self.value_type_checked(*v).cloned().unwrap_or(Type::Field)
        })
    }

    /// Appends instruction `inst` at the end of `block`.
    pub fn append_inst(&mut self, block: BlockId, inst: InstId) {
        self.block_mut(block).insts.push(inst);
    }

    /// The successors of `block` (empty for a block without terminator).
    pub fn successors(&self, block: BlockId) -> Vec<BlockId> {
        self.block(block)
            .term
            .as_ref()
            .map(Terminator::successors)
            .unwrap_or_default()
    }

    /// The predecessors of every laid-out block (each edge once per jump, so a `br` with both arms
    /// to one block lists its source twice).
    pub fn predecessors(&self) -> HashMap<BlockId, Vec<BlockId>> {
        let mut preds: HashMap<BlockId, Vec<BlockId>> =
            self.layout.iter().map(|b| (*b, Vec::new())).collect();
        for &b in &self.layout {
            for s in self.successors(b) {
                preds.entry(s).or_default().push(b);
            }
        }
        preds
    }

    /// The blocks reachable from the entry in reverse post-order (a depth-first search taking
    /// successors in text order; [`reverse_post_order`]).
    pub fn reverse_post_order(&self) -> Vec<BlockId> {
        let mut visited = vec![false; self.blocks.len()];
        reverse_post_order(
            self.entry,
            |b| self.successors(b),
            |b| match visited.get_mut(b.index()) {
                Some(seen) => !std::mem::replace(seen, true),
                None => false,
            },
        )
    }

    /// The block containing each laid-out instruction.
    pub fn inst_blocks(&self) -> HashMap<InstId, BlockId> {
        // Sized once: growing it rehashed every entry several times (11% of `mem2reg`).
        let n = self.layout.iter().map(|&b| self.block(b).insts.len()).sum();
        let mut map = HashMap::with_capacity_and_hasher(n, Default::default());
        for &b in &self.layout {
            for &i in &self.block(b).insts {
                map.insert(i, b);
            }
        }
        map
    }

    /// Replaces every use of a key of `subst` by its value, following chains (`a -> b -> c`
    /// replaces `a` by `c`) in instructions and terminators of laid-out blocks.
    pub fn replace_uses<S: std::hash::BuildHasher>(
        &mut self,
        subst: &std::collections::HashMap<ValueId, ValueId, S>,
    ) {
        if subst.is_empty() {
            return;
        }
        // Most operands are not substituted: a bit per value answers them without hashing
        // (a merge substitutes a component's values and walks the whole function).
        let mut keys = vec![0u64; self.values.len().div_ceil(64)];
        for k in subst.keys() {
            if let Some(word) = keys.get_mut(k.index() / 64) {
                *word |= 1 << (k.index() % 64);
            } else {
                keys.resize(k.index() / 64 + 1, 0);
                keys[k.index() / 64] |= 1 << (k.index() % 64);
            }
        }
        let resolve = |mut v: ValueId| {
            let in_keys = keys
                .get(v.index() / 64)
                .is_some_and(|w| w & (1 << (v.index() % 64)) != 0);
            if !in_keys {
                return v;
            }
            let mut steps = 0;
            while let Some(&next) = subst.get(&v) {
                v = next;
                steps += 1;
                assert!(steps <= subst.len(), "bug: cyclic value substitution");
            }
            v
        };
        for &b in &self.layout {
            let block = &mut self.blocks[b.index()];
            for &i in &block.insts {
                self.insts[i.index()].kind.map_operands(resolve);
            }
            if let Some(term) = block.term.as_mut() {
                term.map_operands(resolve);
            }
        }
    }

    /// How many times each value is used by laid-out instructions and terminators.
    pub fn use_counts(&self) -> HashMap<ValueId, usize> {
        // At most one entry per value: sized once rather than rehashed as it grows.
        let mut counts = HashMap::with_capacity_and_hasher(self.values.len(), Default::default());
        self.for_each_use(|v| *counts.entry(v).or_insert(0) += 1);
        counts
    }

    /// Calls `f` with every operand of every laid-out instruction and terminator, once per use.
    pub fn for_each_use(&self, mut f: impl FnMut(ValueId)) {
        for &b in &self.layout {
            let block = self.block(b);
            for &i in &block.insts {
                self.inst(i).kind.for_each_operand(&mut f);
            }
            if let Some(term) = &block.term {
                for v in term.operands() {
                    f(v);
                }
            }
        }
    }

    /// The functions the laid-out `hint` instructions run.
    pub fn hint_funcs(&self) -> Vec<FuncId> {
        let mut out = Vec::new();
        for b in &self.layout {
            for i in &self.block(*b).insts {
                if let InstKind::Hint { func, .. } = self.inst(*i).kind {
                    out.push(func);
                }
            }
        }
        out
    }

    /// Whether any laid-out instruction is a call.
    pub fn has_calls(&self) -> bool {
        self.layout.iter().any(|b| {
            self.block(*b)
                .insts
                .iter()
                .any(|i| matches!(self.inst(*i).kind, InstKind::Call { .. }))
        })
    }

    /// Convenience for tests and passes: the binary op of an instruction, if it is one.
    pub fn binary_op(&self, inst: InstId) -> Option<BinOp> {
        match self.inst(inst).kind {
            InstKind::Binary { op, .. } => Some(op),
            _ => None,
        }
    }
}

/// `value mod 2^width`.
pub fn wrap(value: u64, width: u32) -> u64 {
    if width >= 64 {
        value
    } else {
        value & ((1u64 << width) - 1)
    }
}

/// The result types of an instruction of `kind` whose operands have the types `ty` gives.
pub fn result_types_typed(kind: &InstKind, ty: &dyn Fn(&ValueId) -> Type) -> Vec<Type> {
    if let Some(operand) = same_type_operand(kind) {
        return vec![ty(&operand)];
    }
    match kind {
        // A comparison (the other binary operations have their operand's type).
        InstKind::Binary { .. } => vec![Type::BOOL],
        InstKind::Not { .. } | InstKind::Select { .. } | InstKind::ArraySet { .. } => {
            unreachable!("bug: same_type_operand types these")
        }
        InstKind::Cast { to, .. }
        | InstKind::Truncate { to, .. }
        | InstKind::FromBits { to, .. } => {
            vec![to.clone()]
        }
        InstKind::Assert { .. } | InstKind::Store { .. } | InstKind::Log { .. } => vec![],
        InstKind::Allocate { ty } => vec![Type::reference(ty.clone())],
        InstKind::Load { ptr } => vec![ty(ptr).pointee().cloned().unwrap_or(Type::Field)],
        InstKind::MakeArray { elems, elem_ty } => {
            vec![Type::array(elem_ty.clone(), elems.len() as u32)]
        }
        InstKind::ArrayGet { array, .. } => {
            vec![ty(array).elem().cloned().unwrap_or(Type::Field)]
        }
        InstKind::ToBits { arg } => {
            let n = ty(arg).uint_width().unwrap_or(crate::ir::FIELD_BITS);
            vec![Type::array(Type::BOOL, n)]
        }
        InstKind::Hint { ret, .. } => ret.to_vec(),
        InstKind::Bound { .. } => vec![Type::Field],
        InstKind::Call { .. } => vec![],
    }
}

/// The operand whose type is the single result's, for the instructions whose result has an
/// operand's type: a binary operation but a comparison, `not`, `select`, `array_set`.
fn same_type_operand(kind: &InstKind) -> Option<ValueId> {
    match kind {
        InstKind::Binary { op, lhs, .. } if !op.is_comparison() => Some(*lhs),
        InstKind::Not { arg } => Some(*arg),
        InstKind::Select { then_value, .. } => Some(*then_value),
        InstKind::ArraySet { array, .. } => Some(*array),
        _ => None,
    }
}

/// The nodes reachable from `entry` in reverse post-order: an iterative depth-first search that
/// takes each node's `successors` in their order and enters a node when `first_visit(node)`
/// says it was not seen before (it marks it seen). The one CFG order: `Function`'s, the
/// analyses' `Cfg` and `Graph`, and the verifier's dominance all call it.
pub fn reverse_post_order<N, I>(
    entry: N,
    mut successors: impl FnMut(N) -> I,
    mut first_visit: impl FnMut(N) -> bool,
) -> Vec<N>
where
    N: Copy,
    I: IntoIterator<Item = N>,
{
    let mut post = Vec::new();
    if !first_visit(entry) {
        return post;
    }
    let mut stack = vec![(entry, successors(entry).into_iter())];
    while let Some((node, succs)) = stack.last_mut() {
        if let Some(s) = succs.next() {
            if first_visit(s) {
                stack.push((s, successors(s).into_iter()));
            }
        } else {
            post.push(*node);
            stack.pop();
        }
    }
    post.reverse();
    post
}
