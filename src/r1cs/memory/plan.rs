//! Which arrays of a function live in memory: families, the cost rule and the linearity rule
//! (see the module doc of [`super`] and ARCHITECTURE.md).
//!
//! # The cost rule
//!
//! A *family* is an array value with every value made from it by `array_set`, `select` and
//! block parameters (a union–find over the function). A family that some access reads or
//! writes at a run-time index, of at least [`MIN_MEMORY_LEN`] elements, that passes the
//! linearity rule, lives in memory when that costs less than registers, both summed over the
//! blocks, each weighed by how often it runs:
//!
//! - in registers, every block the family enters carries its `len` elements in its input
//!   state, and every run-time-index read selects over them (`len`), a write twice that;
//! - in memory, every access costs [`ACCESS_COST`] ([`READ_ONLY_ACCESS_COST`] for a read-only
//!   family), every element a `make_array` or `main`'s input writes one access, a constant
//!   table's elements one public entry each.
//!
//! The weights are the counts the cells are predicted with ([`Function::predicted_runs`]):
//! with `--inputs` a profile run's, exactly how often each block runs on them; without, the
//! static counts and estimates of block formation (a loop with constant bounds exactly, a
//! run-time bound by the estimate). Block formation sets them on every candidate it scores and
//! the driver on the program it compiles, so the plan a candidate is scored with is the plan
//! it is reported and proved with. A function without them (a program read from IR text)
//! takes [`LOOP_WEIGHT`] for a block on a cycle and 1 for the others. So one program may keep
//! a table in registers for inputs that read it once and in memory for inputs that loop over
//! it (`tests/memory.rs`, `memory_or_registers_follows_the_profile`).
//!
//! Spilled scalars (`MemoryPlan::add_spills`) are still weighed by the cycle rule alone.

use crate::field::Fr;
use crate::ir::{BlockId, Const, Function, InstKind, Type, ValueDef, ValueId};
use crate::r1cs::fxhash::{FxMap, FxSet};

/// Arrays shorter than this stay in registers: a run-time-index access of an `n`-element
/// array costs about `n` constraints there, and an access in memory costs a row of its block
/// plus a memory-check row of about 8 + T constraints (T ≈ 10–20), with one initial entry per
/// element.
pub const MIN_MEMORY_LEN: u64 = 16;

/// What one memory access is taken to cost when the plan weighs memory against registers: a
/// row or two in its block and a memory-check entry (8 + T constraints, T ≈ 14).
pub const ACCESS_COST: u64 = 24;

/// What one access to a read-only segment is taken to cost: a row or two in its block and a
/// read-only entry (its 4-constraint pair and 2 product steps, no timestamp bits).
pub const READ_ONLY_ACCESS_COST: u64 = 8;

/// How many times the plan takes a block on a cycle (in a loop) to run, against once for the
/// others: what an unknown trip count is estimated at elsewhere (`cost::estimated_executions`).
pub const LOOP_WEIGHT: u64 = 16;

/// One memory segment: the addresses `[base, base + len)` of one array family, in the
/// read-only list's address space when `read_only`, in the read-write list's otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// First address (at least 1 in the read-only list, whose address 0 is its head).
    pub base: u64,
    /// Number of elements.
    pub len: u64,
    /// The element type (a scalar).
    pub elem: Type,
    /// The initial contents when a constant `make_array` of `main`'s entry block is the
    /// family's first value (it then costs no access); zeros otherwise.
    pub init: Option<Vec<Fr>>,
    /// Whether the family is never written after its first value, which `main`'s entry block
    /// defines (a parameter or a `make_array`): its accesses go to the read-only list.
    pub read_only: bool,
}

/// How an access of a block touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// An `array_get`: the value is the element.
    Read,
    /// An `array_set`, a `make_array` element or an initial input element.
    Write,
    /// An `array_set` of a guarded write chain: a write when the guard holds, otherwise a read
    /// of the unchanged element.
    Guarded,
}

/// The memory plan of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryPlan {
    /// The segment of every array value that lives in memory.
    seg_of: FxMap<ValueId, u32>,
    /// The segments, by index.
    pub segments: Vec<Segment>,
    /// `array_set` results of guarded write chains: the guard and whether the write happens
    /// when it is 1 (`select g, a_n, a_0`) or 0 (`select g, a_0, a_n`).
    pub(crate) guarded: FxMap<ValueId, (ValueId, bool)>,
    /// The `make_array` results that are their segment's initial contents.
    pub(crate) init_arrays: FxSet<ValueId>,
    /// Addresses of the read-write list (its segments').
    pub size: u64,
    /// Addresses of the read-only list: 0 without a read-only segment, else the head's
    /// address 0 and its segments'.
    pub ro_size: u64,
    /// Spilled scalars: each has an address in the spill segment, is written there by the
    /// block that defines it and read by every other block that uses it, and is never part of
    /// a state.
    pub(crate) spills: FxMap<ValueId, u64>,
    /// The spill segment, when a scalar is spilled.
    pub spill_segment: Option<u32>,
}

impl MemoryPlan {
    /// The segment `v` lives in, if it lives in memory.
    pub fn segment_of(&self, v: ValueId) -> Option<u32> {
        self.seg_of.get(&v).copied()
    }

    /// Whether `v` lives in memory.
    pub fn in_memory(&self, v: ValueId) -> bool {
        self.seg_of.contains_key(&v)
    }

    /// Whether nothing lives in memory.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// Public entries of the read-only list: the head, and each element of a read-only
    /// segment with constant contents (0 without a read-only segment).
    pub fn ro_inits(&self) -> u64 {
        if self.ro_size == 0 {
            return 0;
        }
        let constant = self.segments.iter().filter(|s| s.read_only);
        1 + constant
            .filter_map(|s| s.init.as_ref().map(|v| v.len() as u64))
            .sum::<u64>()
    }

    /// The address of a spilled scalar.
    pub fn spill_of(&self, v: ValueId) -> Option<u64> {
        self.spills.get(&v).copied()
    }

    /// Spills the scalars whose carrying through states costs more than their memory
    /// accesses (see ARCHITECTURE.md): `live_in` are the values each block receives from a
    /// dominating block without a parameter, `used` those it reads itself; `def_block` the
    /// laid-out block whose instruction defines a result (`None` when none does).
    pub(crate) fn add_spills(
        &mut self,
        func: &Function,
        live_in: &FxMap<BlockId, std::collections::BTreeSet<ValueId>>,
        used: &FxMap<BlockId, std::collections::BTreeSet<ValueId>>,
        def_block: &dyn Fn(ValueId) -> Option<BlockId>,
    ) {
        if func.layout.len() <= 1 {
            return;
        }
        let cyclic = Planner::new(func).cyclic_blocks();
        let w = |b: BlockId| if cyclic.contains(&b) { LOOP_WEIGHT } else { 1 };
        let mut carry: FxMap<ValueId, u64> = FxMap::default();
        let mut reads: FxMap<ValueId, u64> = FxMap::default();
        for &b in &func.layout {
            for &v in live_in.get(&b).into_iter().flatten() {
                if func.value_type(v).is_scalar() {
                    // A leaf of this block's input state and of its predecessor's output.
                    *carry.entry(v).or_insert(0) += 2 * w(b);
                }
            }
            for &v in used.get(&b).into_iter().flatten() {
                *reads.entry(v).or_insert(0) += ACCESS_COST * w(b);
            }
        }
        let mut chosen: Vec<ValueId> = carry
            .into_iter()
            .filter(|&(v, c)| {
                let def = match func.values[v.index()].def {
                    ValueDef::Param(b, _) => b,
                    ValueDef::Result(..) => match def_block(v) {
                        Some(b) => b,
                        None => return false,
                    },
                    ValueDef::Const(_) => return false,
                };
                ACCESS_COST * w(def) + reads.get(&v).copied().unwrap_or(0) < c
            })
            .map(|(v, _)| v)
            .collect();
        if chosen.is_empty() {
            return;
        }
        chosen.sort();
        let seg = self.segments.len() as u32;
        self.segments.push(Segment {
            base: self.size,
            len: chosen.len() as u64,
            elem: Type::Field,
            init: None,
            read_only: false,
        });
        for (k, v) in chosen.into_iter().enumerate() {
            self.spills.insert(v, self.size + k as u64);
        }
        self.size += self.segments[seg as usize].len;
        self.spill_segment = Some(seg);
    }

    /// The plan of `func`, a function of the circuit (calls are inlined or flattened before
    /// lowering, so its entry block runs once): nothing for a function of one block (a monolithic circuit
    /// is exported on its own, without a memory argument).
    pub fn of(func: &Function) -> MemoryPlan {
        if func.layout.len() <= 1 {
            return MemoryPlan::default();
        }
        Planner::new(func).plan()
    }

    /// Whether the plan of `func` weighs its blocks by how often they run
    /// ([`Function::predicted_runs`]): a function of several blocks with an access to an array
    /// of at least [`MIN_MEMORY_LEN`] elements at a run-time index. The plan of any other
    /// function does not read the counts, so a caller need not predict them.
    pub fn weighs_blocks(func: &Function) -> bool {
        func.layout.len() > 1 && has_long_runtime_access(func)
    }
}

/// Whether some laid-out instruction of `func` reads or writes an array of scalars of at least
/// MIN_MEMORY_LEN elements at an index that is not a constant.
fn has_long_runtime_access(func: &Function) -> bool {
    func.layout.iter().any(|&b| {
        func.block(b)
            .insts
            .iter()
            .any(|&i| match func.inst(i).kind {
                InstKind::ArrayGet { array, index } | InstKind::ArraySet { array, index, .. } => {
                    !matches!(func.const_value(index), Some(Const::UInt(_)))
                        && scalar_array(func.value_type(array))
                            .is_some_and(|len| len >= MIN_MEMORY_LEN)
                }
                _ => false,
            })
    })
}

fn is_make_array(func: &Function, v: ValueId) -> bool {
    match func.values[v.index()].def {
        ValueDef::Result(i, _) => matches!(func.inst(i).kind, InstKind::MakeArray { .. }),
        _ => false,
    }
}

fn scalar_array(ty: &Type) -> Option<u64> {
    match ty {
        Type::Array(elem, n) if elem.is_scalar() => Some(*n as u64),
        _ => None,
    }
}

type Liveness = (
    FxMap<BlockId, FxSet<ValueId>>,
    FxMap<BlockId, FxSet<ValueId>>,
);

struct Planner<'f> {
    func: &'f Function,
    /// Union-find parent, by value index; only array-of-scalar values take part.
    parent: Vec<u32>,
}

impl<'f> Planner<'f> {
    fn new(func: &'f Function) -> Planner<'f> {
        Planner {
            func,
            parent: (0..func.values.len() as u32).collect(),
        }
    }

    fn find(&mut self, v: ValueId) -> u32 {
        let mut x = v.0;
        while self.parent[x as usize] != x {
            let p = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = p;
            x = p;
        }
        x
    }

    fn union(&mut self, a: ValueId, b: ValueId) {
        let (x, y) = (self.find(a), self.find(b));
        if x != y {
            self.parent[x.max(y) as usize] = x.min(y);
        }
    }

    /// The blocks on a cycle of the CFG (in a loop).
    /// The blocks on a cycle of the CFG: those in a strongly connected component of more than
    /// one block, or with an edge to themselves (Tarjan's algorithm, linear in the CFG).
    fn cyclic_blocks(&self) -> FxSet<BlockId> {
        let func = self.func;
        let mut graph = petgraph::graph::DiGraph::<BlockId, ()>::new();
        let nodes: FxMap<BlockId, petgraph::graph::NodeIndex> = func
            .layout
            .iter()
            .map(|&b| (b, graph.add_node(b)))
            .collect();
        let mut out = FxSet::default();
        for &b in &func.layout {
            for s in func.successors(b) {
                if s == b {
                    out.insert(b);
                }
                if let Some(&t) = nodes.get(&s) {
                    graph.add_edge(nodes[&b], t, ());
                }
            }
        }
        for scc in petgraph::algo::tarjan_scc(&graph) {
            if scc.len() > 1 {
                out.extend(scc.iter().map(|&n| graph[n]));
            }
        }
        out
    }

    /// How many times block `b` is taken to run: its predicted count
    /// ([`Function::predicted_runs`]: profiled with `--inputs`, else formation's static counts
    /// and estimates) when there is one; without, LOOP_WEIGHT for a block on a cycle
    /// (`cyclic`), 1 for the others.
    fn weight(&self, b: BlockId, cyclic: &FxSet<BlockId>) -> u64 {
        let predicted = self.func.predicted_runs.as_ref();
        match predicted.and_then(|runs| runs.get(&b)) {
            Some(&n) => n,
            None if cyclic.contains(&b) => LOOP_WEIGHT,
            None => 1,
        }
    }

    /// The length of the arrays of a family (its root value's type).
    fn family_len(&self, fam: u32) -> u64 {
        scalar_array(self.func.value_type(ValueId(fam))).unwrap_or(0)
    }

    fn is_arr(&self, v: ValueId) -> bool {
        scalar_array(self.func.value_type(v)).is_some()
    }

    fn const_index(&self, v: ValueId) -> bool {
        matches!(self.func.const_value(v), Some(Const::UInt(_)))
    }

    fn plan(mut self) -> MemoryPlan {
        let func = self.func;
        // A family lives in memory only when some access uses a run-time index and its
        // arrays (all of one type) have at least MIN_MEMORY_LEN elements: without such an
        // access there is nothing to plan (most functions: this scan is all they pay).
        if !has_long_runtime_access(func) && func.call_stack.is_none() {
            return MemoryPlan::default();
        }
        // Families, and the families that cannot live in memory.
        let mut bad: FxSet<ValueId> = FxSet::default();
        let mut runtime: FxSet<ValueId> = FxSet::default();
        let mut uses: FxMap<ValueId, usize> = FxMap::default();
        for (vi, v) in func.values.iter().enumerate() {
            let id = ValueId(vi as u32);
            if !self.is_arr(id) {
                continue;
            }
            match v.def {
                ValueDef::Param(..) => {}
                ValueDef::Result(i, _) => {
                    if !matches!(
                        func.inst(i).kind,
                        InstKind::MakeArray { .. }
                            | InstKind::ArraySet { .. }
                            | InstKind::Select { .. }
                    ) {
                        bad.insert(id);
                    }
                }
                ValueDef::Const(_) => {
                    bad.insert(id);
                }
            }
        }
        for &b in &func.layout {
            let data = func.block(b);
            for &i in &data.insts {
                let inst = func.inst(i);
                // Uses of arrays only: the guarded chains read nothing else.
                inst.kind.for_each_operand(|v| {
                    if self.is_arr(v) {
                        *uses.entry(v).or_insert(0) += 1;
                    }
                });
                match &inst.kind {
                    InstKind::ArrayGet { array, index } => {
                        if !self.const_index(*index) && self.is_arr(*array) {
                            runtime.insert(*array);
                        }
                    }
                    InstKind::ArraySet {
                        array,
                        index,
                        value,
                    } => {
                        if self.is_arr(*array) {
                            self.union(inst.results[0], *array);
                            if !self.const_index(*index) {
                                runtime.insert(*array);
                            }
                        }
                        if self.is_arr(*value) {
                            bad.insert(*value);
                        }
                    }
                    InstKind::Select {
                        then_value,
                        else_value,
                        ..
                    } => {
                        if self.is_arr(inst.results[0]) {
                            self.union(inst.results[0], *then_value);
                            self.union(inst.results[0], *else_value);
                        }
                    }
                    InstKind::Hint { .. } | InstKind::Log { .. } => {}
                    kind => kind.for_each_operand(|v| {
                        if self.is_arr(v) {
                            bad.insert(v);
                        }
                    }),
                }
            }
            if let Some(t) = &data.term {
                for v in t.operands() {
                    if self.is_arr(v) {
                        *uses.entry(v).or_insert(0) += 1;
                    }
                }
                for call in t.block_calls() {
                    let params = &func.block(call.block).params;
                    for (&p, &a) in params.iter().zip(&call.args) {
                        if self.is_arr(a) {
                            self.union(p, a);
                        }
                    }
                }
                if let crate::ir::Terminator::Return(vals) = t {
                    for &v in vals {
                        if self.is_arr(v) {
                            bad.insert(v);
                        }
                    }
                }
            }
        }
        let mut bad_fam: FxSet<u32> = bad.iter().map(|&v| self.find(v)).collect();
        let runtime_fam: FxSet<u32> = runtime.iter().map(|&v| self.find(v)).collect();
        let guarded = self.guarded_chains(&uses);
        let defined = self.defined_values();
        let read_only = self.read_only_families(&defined);
        // Linearity: at every write no other value of the family is live after it.
        let (live_in, live_out) = self.liveness();
        for &b in &func.layout {
            let data = func.block(b);
            let mut live: FxSet<ValueId> = live_out.get(&b).cloned().unwrap_or_default();
            if let Some(t) = &data.term {
                live.extend(t.operands().into_iter().filter(|&v| self.is_arr(v)));
            }
            for &i in data.insts.iter().rev() {
                let inst = func.inst(i);
                let write = match &inst.kind {
                    InstKind::ArraySet { .. } => !guarded.0.contains_key(&inst.results[0]),
                    InstKind::MakeArray { .. } => self.is_arr(inst.results[0]),
                    InstKind::Select { .. } => guarded.1.contains(&inst.results[0]),
                    _ => false,
                };
                if write {
                    let r = inst.results[0];
                    let fam = self.find(r);
                    let clash = live.iter().any(|&v| v != r && self.find(v) == fam);
                    if clash {
                        bad_fam.insert(fam);
                    }
                }
                for r in &inst.results {
                    live.remove(r);
                }
                inst.kind.for_each_operand(|v| {
                    if self.is_arr(v) {
                        live.insert(v);
                    }
                });
            }
        }
        // Memory against registers, per family, each block counted as often as it is
        // predicted to run (`Planner::weight`): in registers a
        // run-time-index read costs about `len` constraints, a write `2·len`, and every block
        // the family enters carries `len` state leaves; in memory every access (constant
        // index or not, and each element a `make_array` or an input array writes) costs
        // ACCESS_COST, and every element an initial entry.
        // A read-only family's accesses cost READ_ONLY_ACCESS_COST instead.
        let mut reg: FxMap<u32, u64> = FxMap::default();
        let mut mem: FxMap<u32, u64> = FxMap::default();
        let cyclic = self.cyclic_blocks();
        let cost = |fam: u32| match read_only.contains_key(&fam) {
            true => READ_ONLY_ACCESS_COST,
            false => ACCESS_COST,
        };
        // A constant table's contents are public entries, paid once, not written.
        let table = |fam: u32| read_only.get(&fam).is_some_and(Option::is_some);
        for (&fam, contents) in &read_only {
            if let Some(c) = contents {
                *mem.entry(fam).or_insert(0) += c.len() as u64 * READ_ONLY_ACCESS_COST;
            }
        }
        for &b in &func.layout {
            let data = func.block(b);
            let w = self.weight(b, &cyclic);
            let mut entered: FxSet<u32> = FxSet::default();
            for &v in data
                .params
                .iter()
                .chain(live_in.get(&b).into_iter().flatten())
            {
                if self.is_arr(v) {
                    entered.insert(self.find(v));
                }
            }
            for fam in entered {
                let len = self.family_len(fam);
                *reg.entry(fam).or_insert(0) += w.saturating_mul(len);
            }
            // The families each (run-time index, length) of this block reads or writes.
            let mut runtime_by_index: FxMap<(ValueId, u64), FxSet<u32>> = FxMap::default();
            for &i in &data.insts {
                if let InstKind::ArrayGet { array, index }
                | InstKind::ArraySet { array, index, .. } = func.inst(i).kind
                {
                    if self.is_arr(array) && !self.const_index(index) {
                        let fam = self.find(array);
                        let len = self.family_len(fam);
                        runtime_by_index
                            .entry((index, len))
                            .or_default()
                            .insert(fam);
                    }
                }
            }
            if b == func.entry {
                for &p in &data.params {
                    if self.is_arr(p) {
                        let fam = self.find(p);
                        *mem.entry(fam).or_insert(0) += self.family_len(fam) * cost(fam);
                    }
                }
            }
            for &i in &data.insts {
                let inst = func.inst(i);
                let (array, index, write) = match &inst.kind {
                    InstKind::ArrayGet { array, index } => (*array, *index, 0),
                    InstKind::ArraySet { array, index, .. } => (*array, *index, 1),
                    InstKind::MakeArray { .. } if self.is_arr(inst.results[0]) => {
                        let fam = self.find(inst.results[0]);
                        if !table(fam) {
                            *mem.entry(fam).or_insert(0) +=
                                w.saturating_mul(self.family_len(fam) * cost(fam));
                        }
                        continue;
                    }
                    _ => continue,
                };
                if !self.is_arr(array) {
                    continue;
                }
                let fam = self.find(array);
                let len = self.family_len(fam);
                *mem.entry(fam).or_insert(0) += w.saturating_mul(cost(fam));
                // In registers a constant table's read is linear in the index's selectors,
                // which another array of its length read at the same index in this block
                // already pays for: then the read is free there.
                let shared = table(fam)
                    && runtime_by_index
                        .get(&(index, len))
                        .is_some_and(|fams| fams.iter().any(|&f| f != fam));
                if !self.const_index(index) && !shared {
                    *reg.entry(fam).or_insert(0) += w.saturating_mul(len * (1 + write));
                }
            }
        }
        let pays =
            |fam: u32| mem.get(&fam).copied().unwrap_or(0) < reg.get(&fam).copied().unwrap_or(0);
        // The call stack lives in memory whatever it costs (docs/calls.md): its accesses are at
        // constant addresses, which the rule above never puts there.
        let stack = func.call_stack.map(|v| self.find(v));
        let forced = |fam: u32| stack == Some(fam);
        // Segments, in order of each family's first value.
        let mut seg_of_fam: FxMap<u32, u32> = FxMap::default();
        let mut seg_of_table: FxMap<Vec<Fr>, u32> = FxMap::default();
        let mut plan = MemoryPlan::default();
        for (vi, &is_defined) in defined.iter().enumerate() {
            let id = ValueId(vi as u32);
            let Some(len) = scalar_array(func.value_type(id)) else {
                continue;
            };
            if !is_defined {
                continue;
            }
            let fam = self.find(id);
            if bad_fam.contains(&fam)
                || (!forced(fam)
                    && (!runtime_fam.contains(&fam) || len < MIN_MEMORY_LEN || !pays(fam)))
            {
                continue;
            }
            let ro = read_only.contains_key(&fam) && !forced(fam);
            let contents = read_only.get(&fam).cloned().flatten().filter(|_| ro);
            // Families with the same constant contents share one segment.
            if let Some(&seg) = contents.as_ref().and_then(|c| seg_of_table.get(c)) {
                seg_of_fam.insert(fam, seg);
            }
            let seg = *seg_of_fam.entry(fam).or_insert_with(|| {
                let size = match ro {
                    // Address 0 of the read-only list is its head.
                    true => {
                        plan.ro_size = plan.ro_size.max(1);
                        &mut plan.ro_size
                    }
                    false => &mut plan.size,
                };
                let base = *size;
                *size += len;
                plan.segments.push(Segment {
                    base,
                    len,
                    elem: func.value_type(id).elem().cloned().unwrap_or(Type::Field),
                    init: contents.clone(),
                    read_only: ro,
                });
                let seg = (plan.segments.len() - 1) as u32;
                if let Some(c) = &contents {
                    seg_of_table.insert(c.clone(), seg);
                }
                seg
            });
            if contents.is_some() && is_make_array(func, id) {
                // A table's `make_array`s write nothing: its contents are public entries.
                plan.init_arrays.insert(id);
            }
            plan.seg_of.insert(id, seg);
        }
        plan.guarded = guarded
            .0
            .into_iter()
            .filter(|(v, _)| plan.seg_of.contains_key(v))
            .collect();
        self.find_inits(&mut plan);
        plan
    }

    /// The families never written after their first value: no `array_set` result among
    /// their defined values, and either exactly one source — a parameter of the entry block
    /// or a `make_array` in it — or only constant `make_array`s, all with the same contents
    /// (a table, rematerialized where it is used), the others being block parameters and
    /// `select`s (copies of a source). Gives each family's constant contents, when it has them.
    fn read_only_families(&mut self, defined: &[bool]) -> FxMap<u32, Option<Vec<Fr>>> {
        let func = self.func;
        // Per family: its sources (parameters of the entry block and `make_array`s), those in
        // the entry block, and the contents of its constant `make_array`s (`None` once two
        // differ or one is not constant).
        let mut sources: FxMap<u32, u32> = FxMap::default();
        let mut entry_sources: FxMap<u32, u32> = FxMap::default();
        let mut tables: FxMap<u32, Option<Vec<Fr>>> = FxMap::default();
        let mut written: FxSet<u32> = FxSet::default();
        let entry: FxSet<_> = func.block(func.entry).insts.iter().copied().collect();
        for (vi, &is_defined) in defined.iter().enumerate() {
            let id = ValueId(vi as u32);
            if !is_defined || !self.is_arr(id) {
                continue;
            }
            let fam = self.find(id);
            match func.values[vi].def {
                ValueDef::Param(b, _) if b == func.entry => {
                    *sources.entry(fam).or_insert(0) += 1;
                    *entry_sources.entry(fam).or_insert(0) += 1;
                    tables.insert(fam, None);
                }
                ValueDef::Param(..) => {}
                ValueDef::Result(i, _) => match &func.inst(i).kind {
                    InstKind::MakeArray { elems, .. } => {
                        *sources.entry(fam).or_insert(0) += 1;
                        if entry.contains(&i) {
                            *entry_sources.entry(fam).or_insert(0) += 1;
                        }
                        let contents = self.constant_elems(elems);
                        let t = tables.entry(fam).or_insert_with(|| contents.clone());
                        if *t != contents {
                            *t = None;
                        }
                    }
                    InstKind::Select { .. } => {}
                    _ => {
                        written.insert(fam);
                    }
                },
                ValueDef::Const(_) => {
                    written.insert(fam);
                }
            }
        }
        let mut out: FxMap<u32, Option<Vec<Fr>>> = FxMap::default();
        for (fam, contents) in tables {
            if written.contains(&fam) {
                continue;
            }
            if contents.is_some() {
                out.insert(fam, contents);
            } else if entry_sources.get(&fam) == Some(&1) && sources.get(&fam) == Some(&1) {
                // One source, in the entry block (a parameter, or a `make_array` that is not
                // constant): `tables` has an entry only for families with a source.
                out.insert(fam, None);
            }
        }
        out
    }

    /// The elements of a `make_array` when every one is a constant.
    fn constant_elems(&self, elems: &[ValueId]) -> Option<Vec<Fr>> {
        elems
            .iter()
            .map(|&e| {
                self.func.const_value(e).map(|c| match c {
                    Const::Field(x) => x,
                    Const::UInt(n) => Fr::from(n),
                })
            })
            .collect()
    }

    /// Which values are parameters of a laid-out block or results of an instruction in one,
    /// by value index (one walk over the layout, not one per value).
    fn defined_values(&self) -> Vec<bool> {
        let func = self.func;
        let mut defined = vec![false; func.values.len()];
        for &b in &func.layout {
            let data = func.block(b);
            for &p in &data.params {
                defined[p.index()] = true;
            }
            for &i in &data.insts {
                for &r in func.inst(i).results.iter() {
                    defined[r.index()] = true;
                }
            }
        }
        defined
    }

    /// Guarded write chains: `select g, a_n, a_0` (or `select g, a_0, a_n`) where
    /// `a_k = array_set a_(k-1), ..` for k = 1..n, each `a_k` used only by the next link, all in
    /// the select's block, and `a_0` not used between the first link and the select. Gives the
    /// links (with guard and polarity) and the selects that end them.
    fn guarded_chains(
        &self,
        uses: &FxMap<ValueId, usize>,
    ) -> (FxMap<ValueId, (ValueId, bool)>, FxSet<ValueId>) {
        let func = self.func;
        let mut links = FxMap::default();
        let mut ends = FxSet::default();
        for &b in &func.layout {
            let insts = &func.block(b).insts;
            // Only a block with a `select` of arrays can end a chain.
            let has_array_select = insts.iter().any(|&i| {
                let inst = func.inst(i);
                matches!(inst.kind, InstKind::Select { .. }) && self.is_arr(inst.results[0])
            });
            if !has_array_select {
                continue;
            }
            let pos: FxMap<ValueId, usize> = insts
                .iter()
                .enumerate()
                .flat_map(|(k, &i)| func.inst(i).results.iter().map(move |&r| (r, k)))
                .collect();
            for (k, &i) in insts.iter().enumerate() {
                let inst = func.inst(i);
                let InstKind::Select {
                    cond,
                    then_value,
                    else_value,
                } = inst.kind
                else {
                    continue;
                };
                if !self.is_arr(inst.results[0]) {
                    continue;
                }
                for (top, base, polarity) in [
                    (then_value, else_value, true),
                    (else_value, then_value, false),
                ] {
                    let mut chain = Vec::new();
                    let mut cur = top;
                    let ok = loop {
                        if cur == base {
                            break !chain.is_empty();
                        }
                        if uses.get(&cur) != Some(&1) || !pos.contains_key(&cur) {
                            break false;
                        }
                        let ValueDef::Result(d, _) = func.values[cur.index()].def else {
                            break false;
                        };
                        let InstKind::ArraySet { array, .. } = func.inst(d).kind else {
                            break false;
                        };
                        chain.push(cur);
                        cur = array;
                    };
                    if !ok {
                        continue;
                    }
                    let first = pos[chain.last().expect("non-empty chain")];
                    let base_used_between = insts[first + 1..k]
                        .iter()
                        .any(|&j| func.inst(j).kind.operands().contains(&base));
                    if base_used_between {
                        continue;
                    }
                    for v in chain {
                        links.insert(v, (cond, polarity));
                    }
                    ends.insert(inst.results[0]);
                    break;
                }
            }
        }
        (links, ends)
    }

    /// Live-in and live-out array values of every block (block parameters defined at its
    /// start, jump arguments used at the end of the predecessor).
    fn liveness(&self) -> Liveness {
        let func = self.func;
        let mut gen: FxMap<BlockId, FxSet<ValueId>> = FxMap::default();
        let mut kill: FxMap<BlockId, FxSet<ValueId>> = FxMap::default();
        for &b in &func.layout {
            let data = func.block(b);
            let mut defs: FxSet<ValueId> = data.params.iter().copied().collect();
            let mut used = FxSet::default();
            let mut note = |v: ValueId, defs: &FxSet<ValueId>| {
                if self.is_arr(v) && !defs.contains(&v) {
                    used.insert(v);
                }
            };
            for &i in &data.insts {
                let inst = func.inst(i);
                inst.kind.for_each_operand(|v| note(v, &defs));
                defs.extend(inst.results.iter().copied());
            }
            if let Some(t) = &data.term {
                for v in t.operands() {
                    note(v, &defs);
                }
            }
            gen.insert(b, used);
            kill.insert(b, defs);
        }
        let mut live_in: FxMap<BlockId, FxSet<ValueId>> = gen.clone();
        let mut live_out: FxMap<BlockId, FxSet<ValueId>> = FxMap::default();
        let order: Vec<BlockId> = func.reverse_post_order().into_iter().rev().collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                let mut out = FxSet::default();
                for s in func.successors(b) {
                    if let Some(l) = live_in.get(&s) {
                        out.extend(l.iter().copied());
                    }
                }
                let mut inn = gen[&b].clone();
                inn.extend(out.iter().copied().filter(|v| !kill[&b].contains(v)));
                if live_in.get(&b) != Some(&inn) {
                    live_in.insert(b, inn);
                    changed = true;
                }
                live_out.insert(b, out);
            }
        }
        (live_in, live_out)
    }

    /// Marks the constant `make_array` that is a segment's first value in the entry block
    /// (the segment then has no parameter of that block) as its initial contents.
    fn find_inits(&self, plan: &mut MemoryPlan) {
        let func = self.func;
        let entry = func.block(func.entry);
        let mut seen: FxSet<u32> = entry
            .params
            .iter()
            .filter_map(|&p| plan.segment_of(p))
            .collect();
        for &i in &entry.insts {
            let inst = func.inst(i);
            for &r in &inst.results {
                let Some(seg) = plan.segment_of(r) else {
                    continue;
                };
                if !seen.insert(seg) {
                    continue;
                }
                if let InstKind::MakeArray { elems, .. } = &inst.kind {
                    let consts: Option<Vec<Fr>> = elems
                        .iter()
                        .map(|&e| {
                            func.const_value(e).map(|c| match c {
                                Const::Field(x) => x,
                                Const::UInt(n) => Fr::from(n),
                            })
                        })
                        .collect();
                    if let Some(values) = consts {
                        plan.segments[seg as usize].init = Some(values);
                        plan.init_arrays.insert(r);
                    }
                }
            }
        }
    }
}
