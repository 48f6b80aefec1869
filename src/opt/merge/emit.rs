//! The [`Emitter`] of one merge: predicated copies of a region's blocks into the head, in
//! reverse post-order, with their guards, the combining of the edges into each block (`select`
//! joins), loops unrolled iteration by iteration, and the guarding of everything that can fail
//! (step 4 of the algorithm in [`super`]) or has an effect: a copied `log` or `hint` gets its
//! path's guard (`log "..", v1 if g`, `hint f1(v1) if g`), so it prints or runs only when the
//! original would have.
//!
//! Folding makes constants without making values: a folded `uN` result below 2^27 is a
//! *virtual* constant, a [`ValueId`] with the top bit set that encodes its width and value (see
//! [`virtual_const`]). Unrolling a loop folds its counter in every iteration, and nothing but
//! the next iteration reads it, so a loop of a million iterations made a million values nobody
//! used. A virtual constant becomes a value of the function ([`Emitter::materialize`]) only when
//! something that stays reads it: an emitted instruction, or the merged block's terminator and
//! renaming (in [`super`]).

use super::MergeError;
use crate::analysis::{LoopForest, LoopId};
use crate::fxhash::{hash64, FxMap, FxSet};
use crate::ir::interp::{eval_pure_typed, Val};
use crate::ir::{
    BinOp, BlockCall, BlockId, Const, Function, InstId, InstKind, SrcLoc, Terminator, Type, ValueId,
};

/// The top bit of a virtual constant's id (a function's own values are numbered below it).
const VIRTUAL: u32 = 1 << 31;
/// A virtual constant's value is its id's low 27 bits, the width's index in [`VIRTUAL_TYPES`]
/// the 3 bits above.
const VALUE_BITS: u32 = 27;
/// The types a virtual constant can have.
static VIRTUAL_TYPES: [Type; 5] = [
    Type::UInt(1),
    Type::UInt(8),
    Type::UInt(16),
    Type::UInt(32),
    Type::UInt(64),
];

/// The virtual constant `value` of type `ty`, when it has one (`uN`, `value < 2^27`).
fn virtual_const(ty: &Type, value: u64) -> Option<ValueId> {
    let code = VIRTUAL_TYPES.iter().position(|t| t == ty)? as u32;
    let value = u32::try_from(value).ok().filter(|v| v >> VALUE_BITS == 0)?;
    Some(ValueId::new(
        (VIRTUAL | code << VALUE_BITS | value) as usize,
    ))
}

/// The type and value of a virtual constant; `None` for a value of the function.
fn decode_virtual(v: ValueId) -> Option<(&'static Type, u64)> {
    let id = v.index() as u32;
    if id & VIRTUAL == 0 {
        return None;
    }
    let code = ((id & !VIRTUAL) >> VALUE_BITS) as usize;
    Some((
        &VIRTUAL_TYPES[code],
        u64::from(id & ((1 << VALUE_BITS) - 1)),
    ))
}

/// Each value of the region being copied and its copy: a table by value index (a merge maps
/// every operand of every instruction it copies, and hashing each was a fifth of unrolling's
/// time), with a map for ids outside it (a virtual constant, which is never a key in
/// practice).
#[derive(Debug, Default)]
pub(super) struct Env {
    dense: Vec<ValueId>,
    other: FxMap<ValueId, ValueId>,
}

/// An empty slot of [`Env::dense`] (no value of a function has this id: it is a virtual
/// constant's).
const NO_COPY: ValueId = ValueId(u32::MAX);

impl Env {
    pub(super) fn get(&self, v: &ValueId) -> Option<&ValueId> {
        if v.0 & VIRTUAL != 0 {
            return self.other.get(v);
        }
        self.dense.get(v.index()).filter(|c| **c != NO_COPY)
    }

    pub(super) fn insert(&mut self, v: ValueId, c: ValueId) {
        if v.0 & VIRTUAL != 0 {
            self.other.insert(v, c);
            return;
        }
        let i = v.index();
        if i >= self.dense.len() {
            self.dense
                .resize((i + 1).max(self.dense.len() * 2), NO_COPY);
        }
        self.dense[i] = c;
    }

    pub(super) fn contains_key(&self, v: &ValueId) -> bool {
        self.get(v).is_some()
    }
}

/// How many instructions a merge may visit per instruction it may emit: unrolling folds most
/// of what it visits where a loop's counter feeds the body (`n_choose_k`'s `2 ** (32 - j - 1)`
/// over the bits of a constant: about 130 instructions visited per iteration, none emitted),
/// and the clean-up after a merge pays for what is emitted, not for what was folded. A loop
/// that folds nothing visits about three instructions per one it emits (its test, its counter,
/// the block), so at eight times the emitted ones reach `--max-unrolled` first and the error
/// names the flag that would raise it.
pub(super) const VISITS_PER_EMITTED: usize = 8;

/// An edge being merged into its target: taken when `guard` is 1, with these arguments.
#[derive(Clone, Debug)]
pub(super) struct Edge {
    pub(super) guard: ValueId,
    pub(super) args: Vec<ValueId>,
    /// For an edge leaving a loop being unrolled: the copies, at the time the edge is taken, of
    /// the loop's values used after the loop (`(original, copy)`). They are combined like
    /// arguments at the target, since later iterations rename the originals again.
    pub(super) live: Vec<(ValueId, ValueId)>,
}

/// The state of one merge: copies of instructions in order, the renaming of old values to
/// their copies (the current iteration's, in a loop), and the edges waiting for their targets.
pub(super) struct Emitter<'a> {
    pub(super) func: &'a mut Function,
    loops: &'a LoopForest,
    rpo_pos: FxMap<BlockId, usize>,
    pub(super) env: Env,
    pub(super) out: Vec<InstId>,
    pub(super) pending: FxMap<BlockId, Vec<Edge>>,
    /// Back edges of the loops being unrolled, by header.
    back_edges: FxMap<BlockId, Vec<Edge>>,
    /// Loops being unrolled, outermost first.
    unrolling: Vec<LoopId>,
    /// [`Emitter::escaping`], by loop.
    escaping: FxMap<LoopId, Vec<ValueId>>,
    /// `v = p and c` (`true`) or `v = p and not c` (`false`), by `v`.
    splits: FxMap<ValueId, (ValueId, ValueId, bool)>,
    nots: FxMap<ValueId, ValueId>,
    ands: FxMap<(ValueId, ValueId), ValueId>,
    /// `return` edges (monolithic only).
    pub(super) returns: Vec<Edge>,
    collect_returns: bool,
    /// Instructions this merge may still visit (copied or folded): [`VISITS_PER_EMITTED`]
    /// times `limit`.
    budget: usize,
    /// Instructions this merge may emit (`--max-unrolled`).
    limit: usize,
    /// The array results of instructions whose operands were all constants, by the copy's
    /// result: the copy is emitted (an array is no virtual constant) but what reads it with
    /// constant operands folds (`to_bits` of an unrolled counter, then `array_get` of a bit:
    /// the copy is left dead for the clean-up).
    const_arrays: FxMap<ValueId, Val>,
    /// The results of the copies of `make_array`s of constants, by the instruction copied and
    /// its operands:
    /// copied again with the same operands (the next iteration of an unrolled loop whose body
    /// `remat` gave its own table of constants), the first copy is used, which precedes it in
    /// the merged block. Without this, a Poseidon round's 340-constant table was copied once
    /// per unrolled iteration (`poseidon_merkle32 --monolithic`: 460 MB instead of 52).
    const_array_copies: FxMap<(InstId, Vec<ValueId>), Vec<ValueId>>,
    true_value: Option<ValueId>,
    /// The constants this merge made, by a 64-bit hash of their type and value: folding an
    /// unrolled loop's counter and tests makes the same few constants in every iteration, and
    /// each is one value. The counter makes a new one every iteration, so an entry is kept to
    /// 12 bytes (keyed by `(Type, Const)`, 56): the value itself holds the type and constant.
    consts: FxMap<u64, ValueId>,
    /// The constants whose hash collided with another's in [`Emitter::consts`], by type and
    /// value (hardly ever any).
    collided: FxMap<(Type, Const), ValueId>,
    /// How many constants this merge made (each a new value).
    pub(super) consts_made: usize,
    /// The location of the instructions the merge makes itself (guards, `select`s joining
    /// edges, guarded operands): the instruction being copied, or the terminator of the block
    /// just copied, whose edges the next block joins. So that a profile (`zkbc profile`)
    /// attributes predication to the source line that branched.
    loc: Option<SrcLoc>,
}

impl<'a> Emitter<'a> {
    pub(super) fn new(
        func: &'a mut Function,
        loops: &'a LoopForest,
        rpo: &[BlockId],
        limit: usize,
        collect_returns: bool,
    ) -> Emitter<'a> {
        Emitter {
            func,
            loops,
            rpo_pos: rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect(),
            env: Env::default(),
            out: Vec::new(),
            pending: FxMap::default(),
            back_edges: FxMap::default(),
            unrolling: Vec::new(),
            escaping: FxMap::default(),
            splits: FxMap::default(),
            nots: FxMap::default(),
            ands: FxMap::default(),
            returns: Vec::new(),
            collect_returns,
            budget: limit.saturating_mul(VISITS_PER_EMITTED),
            limit,
            const_arrays: FxMap::default(),
            const_array_copies: FxMap::default(),
            true_value: None,
            consts: FxMap::default(),
            collided: FxMap::default(),
            consts_made: 0,
            loc: None,
        }
    }

    fn err_unsupported(&self, reason: &str) -> MergeError {
        MergeError::Unsupported {
            func: self.func.name.clone(),
            reason: reason.to_string(),
        }
    }

    /// Visits `n` more instructions, and fails when the merge has emitted more than `limit`
    /// or visited more than [`VISITS_PER_EMITTED`] times that.
    fn spend(&mut self, n: usize) -> Result<(), MergeError> {
        let too_large = |visits| MergeError::TooLarge {
            func: self.func.name.clone(),
            limit: self.limit,
            visits,
        };
        if self.out.len() > self.limit {
            return Err(too_large(false));
        }
        self.budget = self.budget.checked_sub(n).ok_or_else(|| too_large(true))?;
        Ok(())
    }

    pub(super) fn map(&self, v: ValueId) -> ValueId {
        self.env.get(&v).copied().unwrap_or(v)
    }

    pub(super) fn true_value(&mut self) -> ValueId {
        match self.true_value {
            Some(v) => v,
            None => {
                let v = self.func.const_bool(true);
                self.true_value = Some(v);
                v
            }
        }
    }

    /// The constant `value` of type `ty`, made once per merge.
    fn constant(&mut self, ty: Type, value: Const) -> ValueId {
        let h = hash64(&(&ty, value));
        match self.consts.get(&h) {
            Some(&v)
                if self.func.value_type(v) == &ty && self.func.const_value(v) == Some(value) =>
            {
                v
            }
            Some(_) => {
                if let Some(&v) = self.collided.get(&(ty.clone(), value)) {
                    return v;
                }
                let v = self.func.make_const(ty.clone(), value);
                self.consts_made += 1;
                self.collided.insert((ty, value), v);
                v
            }
            None => {
                let v = self.func.make_const(ty, value);
                self.consts_made += 1;
                self.consts.insert(h, v);
                v
            }
        }
    }

    fn bool_const(&self, v: ValueId) -> Option<bool> {
        match self.const_value(v) {
            Some(Const::UInt(x)) if self.value_type(v).is_bool() => Some(x != 0),
            _ => None,
        }
    }

    /// Whether `v` is a constant ([`Self::const_value`] without making the constant).
    fn is_const(&self, v: ValueId) -> bool {
        decode_virtual(v).is_some() || self.func.is_const(v)
    }

    /// The constant `v` is, if it is one (a virtual constant or a constant of the function).
    fn const_value(&self, v: ValueId) -> Option<Const> {
        match decode_virtual(v) {
            Some((_, x)) => Some(Const::UInt(x)),
            None => self.func.const_value(v),
        }
    }

    fn value_type(&self, v: ValueId) -> &Type {
        match decode_virtual(v) {
            Some((ty, _)) => ty,
            None => self.func.value_type(v),
        }
    }

    /// `v` as a value of the function: a virtual constant is made a constant (once per merge).
    pub(super) fn materialize(&mut self, v: ValueId) -> ValueId {
        match decode_virtual(v) {
            Some((ty, x)) => self.constant(ty.clone(), Const::UInt(x)),
            None => v,
        }
    }

    /// [`Emitter::map`], materialized.
    pub(super) fn map_real(&mut self, v: ValueId) -> ValueId {
        let v = self.map(v);
        self.materialize(v)
    }

    fn emit(&mut self, mut kind: InstKind, loc: Option<SrcLoc>) -> InstId {
        kind.map_operands(|v| self.materialize(v));
        let inst = self.func.create_inst(kind, &[], loc);
        self.out.push(inst);
        inst
    }

    fn emit_value(&mut self, kind: InstKind) -> ValueId {
        let inst = self.emit(kind, self.loc);
        self.func.inst(inst).results[0]
    }

    fn not(&mut self, c: ValueId) -> ValueId {
        if let Some(b) = self.bool_const(c) {
            return self.constant(Type::UInt(1), Const::UInt(u64::from(!b)));
        }
        if let Some(&v) = self.nots.get(&c) {
            return v;
        }
        let v = self.emit_value(InstKind::Not { arg: c });
        self.nots.insert(c, v);
        v
    }

    fn and(&mut self, a: ValueId, b: ValueId) -> ValueId {
        match (self.bool_const(a), self.bool_const(b)) {
            (Some(true), _) => return b,
            (_, Some(true)) => return a,
            (Some(false), _) => return a,
            (_, Some(false)) => return b,
            _ => {}
        }
        if let Some(&v) = self.ands.get(&(a, b)) {
            return v;
        }
        let v = self.emit_value(InstKind::Binary {
            op: BinOp::And,
            lhs: a,
            rhs: b,
        });
        self.ands.insert((a, b), v);
        v
    }

    fn or(&mut self, a: ValueId, b: ValueId) -> ValueId {
        match (self.bool_const(a), self.bool_const(b)) {
            (Some(false), _) => b,
            (_, Some(false)) => a,
            (Some(true), _) => a,
            (_, Some(true)) => b,
            _ => self.emit_value(InstKind::Binary {
                op: BinOp::Or,
                lhs: a,
                rhs: b,
            }),
        }
    }

    fn select(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        if a == b {
            return a;
        }
        if let (Some(x), Some(y)) = (self.const_value(a), self.const_value(b)) {
            if x == y {
                return a;
            }
        }
        match self.bool_const(c) {
            Some(true) => a,
            Some(false) => b,
            None => self.emit_value(InstKind::Select {
                cond: c,
                then_value: a,
                else_value: b,
            }),
        }
    }

    /// The guard of the edge taken from a block with guard `g` when `c` is `polarity`.
    fn edge_guard(&mut self, g: ValueId, c: ValueId, polarity: bool) -> ValueId {
        let lit = if polarity { c } else { self.not(c) };
        let v = self.and(g, lit);
        self.splits.entry(v).or_insert((g, c, polarity));
        v
    }

    /// The copies of the values an edge to `dest` carries out of the loops being unrolled that
    /// `dest` is outside of (see [`Edge::live`]).
    fn live_out(&mut self, dest: BlockId) -> Vec<(ValueId, ValueId)> {
        let mut live = Vec::new();
        for l in self.unrolling.clone() {
            if self.loops.get(l).blocks.contains(&dest) {
                continue;
            }
            for v in self.escaping(l) {
                if let Some(&c) = self.env.get(&v) {
                    live.push((v, c));
                }
            }
        }
        live
    }

    /// Values defined in loop `l` (block parameters and results of its blocks) that blocks
    /// outside `l` use. Found for every loop in one walk over the function, the first time
    /// any loop is asked (one walk per loop was quadratic in a program of many loops): a use in
    /// block `b` of a value defined in block `d` escapes every loop around `d` that does not
    /// hold `b`, innermost first, up to the first that does (which its parents hold too).
    ///
    /// The first loop asked is answered by a walk of its own (a merge that unrolls one loop
    /// pays one walk, as before); the second asks for every loop at once.
    fn escaping(&mut self, l: LoopId) -> Vec<ValueId> {
        if let Some(vs) = self.escaping.get(&l) {
            return vs.clone();
        }
        if self.escaping.is_empty() {
            let vs = self.escaping_from(l);
            self.escaping.insert(l, vs.clone());
            return vs;
        }
        self.find_escaping();
        self.escaping.get(&l).cloned().unwrap_or_default()
    }

    /// The values defined in loop `l` that blocks outside it use, by one walk.
    fn escaping_from(&self, l: LoopId) -> Vec<ValueId> {
        let blocks: FxSet<BlockId> = self.loops.get(l).blocks.iter().copied().collect();
        let mut defined = FxSet::default();
        for &b in &blocks {
            let data = self.func.block(b);
            defined.extend(data.params.iter().copied());
            for &i in &data.insts {
                defined.extend(self.func.inst(i).results.iter().copied());
            }
        }
        let mut used = Vec::new();
        for &b in &self.func.layout {
            if blocks.contains(&b) {
                continue;
            }
            let data = self.func.block(b);
            for &i in &data.insts {
                self.func.inst(i).kind.for_each_operand(|v| used.push(v));
            }
            if let Some(t) = &data.term {
                used.extend(t.operands());
            }
        }
        let mut out: Vec<ValueId> = used.into_iter().filter(|v| defined.contains(v)).collect();
        out.sort();
        out.dedup();
        out
    }

    fn find_escaping(&mut self) {
        let func: &Function = self.func;
        let loops = self.loops;
        let mut def_block: FxMap<ValueId, BlockId> = FxMap::default();
        for &b in &func.layout {
            if loops.innermost(b).is_none() {
                continue;
            }
            let data = func.block(b);
            for &p in &data.params {
                def_block.insert(p, b);
            }
            for &i in &data.insts {
                for &r in &func.inst(i).results {
                    def_block.insert(r, b);
                }
            }
        }
        let mut out: FxMap<LoopId, Vec<ValueId>> = loops.ids().map(|l| (l, Vec::new())).collect();
        let note = |v: ValueId, b: BlockId, out: &mut FxMap<LoopId, Vec<ValueId>>| {
            let Some(&d) = def_block.get(&v) else {
                return;
            };
            let mut cur = loops.innermost(d);
            while let Some(l) = cur {
                if loops.contains(l, b) {
                    break;
                }
                out.entry(l).or_default().push(v);
                cur = loops.get(l).parent;
            }
        };
        for &b in &func.layout {
            let data = func.block(b);
            for &i in &data.insts {
                func.inst(i).kind.for_each_operand(|v| note(v, b, &mut out));
            }
            if let Some(t) = &data.term {
                for v in t.operands() {
                    note(v, b, &mut out);
                }
            }
        }
        for vs in out.values_mut() {
            vs.sort();
            vs.dedup();
        }
        self.escaping = out;
    }

    /// [`Emitter::combine`], also combining the edges' [`Edge::live`] copies and renaming each
    /// original to its combined copy.
    pub(super) fn combine_live(&mut self, edges: Vec<Edge>) -> (ValueId, Vec<ValueId>) {
        let mut keys: Vec<ValueId> = edges
            .iter()
            .flat_map(|e| e.live.iter().map(|(v, _)| *v))
            .collect();
        keys.sort();
        keys.dedup();
        if keys.is_empty() {
            return self.combine(edges);
        }
        let n = edges[0].args.len();
        let extended: Vec<Edge> = edges
            .into_iter()
            .map(|e| {
                let mut args = e.args;
                for k in &keys {
                    // An edge that does not carry `k` comes from where `k` is not live (its
                    // uses are dominated by the loop): any copy will do there.
                    let c = e
                        .live
                        .iter()
                        .find(|(v, _)| v == k)
                        .map(|(_, c)| *c)
                        .or_else(|| self.env.get(k).copied())
                        .unwrap_or(*k);
                    args.push(c);
                }
                Edge {
                    guard: e.guard,
                    args,
                    live: Vec::new(),
                }
            })
            .collect();
        let (guard, mut args) = self.combine(extended);
        let extra = args.split_off(n);
        for (k, c) in keys.into_iter().zip(extra) {
            self.env.insert(k, c);
        }
        (guard, args)
    }

    /// One guard and one argument list for the (mutually exclusive) edges into a block.
    pub(super) fn combine(&mut self, mut edges: Vec<Edge>) -> (ValueId, Vec<ValueId>) {
        if let Some(e) = edges
            .iter()
            .find(|e| self.bool_const(e.guard) == Some(true))
        {
            return (e.guard, e.args.clone());
        }
        'pairs: loop {
            for i in 0..edges.len() {
                for j in 0..edges.len() {
                    let (Some(&(p, c, true)), Some(&(q, d, false))) = (
                        self.splits.get(&edges[i].guard),
                        self.splits.get(&edges[j].guard),
                    ) else {
                        continue;
                    };
                    if i == j || p != q || c != d {
                        continue;
                    }
                    let (then_edge, else_edge) = (edges[i].clone(), edges[j].clone());
                    let args = then_edge
                        .args
                        .iter()
                        .zip(&else_edge.args)
                        .map(|(a, b)| self.select(c, *a, *b))
                        .collect();
                    edges.remove(i.max(j));
                    edges.remove(i.min(j));
                    edges.push(Edge {
                        guard: p,
                        args,
                        live: Vec::new(),
                    });
                    continue 'pairs;
                }
            }
            break;
        }
        let last = edges.pop().expect("bug: combining no edges");
        let mut guard = last.guard;
        let mut args = last.args;
        for e in edges.into_iter().rev() {
            guard = self.or(e.guard, guard);
            args = e
                .args
                .iter()
                .zip(&args)
                .map(|(a, b)| self.select(e.guard, *a, *b))
                .collect();
        }
        (guard, args)
    }

    /// The loop directly inside `scope` that contains `b`.
    fn child_loop(&self, scope: Option<LoopId>, b: BlockId) -> Option<LoopId> {
        let mut l = self.loops.innermost(b)?;
        loop {
            let parent = self.loops.get(l).parent;
            if parent == scope {
                return Some(l);
            }
            l = parent?;
        }
    }

    /// Copies the blocks of `region` (in reverse post-order) whose innermost loop is `scope`,
    /// unrolling the loops directly inside `scope` at their headers.
    pub(super) fn run_region(
        &mut self,
        region: &[BlockId],
        scope: Option<LoopId>,
    ) -> Result<(), MergeError> {
        for &b in region {
            if self.loops.innermost(b) == scope {
                self.copy_block(b)?;
                continue;
            }
            let l = self
                .child_loop(scope, b)
                .ok_or_else(|| self.err_unsupported("a block outside the component's loop"))?;
            if self.loops.get(l).header == b {
                self.unroll(l)?;
            }
        }
        Ok(())
    }

    fn unroll(&mut self, l: LoopId) -> Result<(), MergeError> {
        let header = self.loops.get(l).header;
        let Some(entry) = self.pending.remove(&header) else {
            return Ok(());
        };
        let mut blocks = self.loops.get(l).blocks.clone();
        blocks.sort_by_key(|b| self.rpo_pos.get(b).copied().unwrap_or(usize::MAX));
        let mut state = Some(self.combine_live(entry));
        while let Some((guard, args)) = state {
            self.spend(1)?;
            self.back_edges.insert(header, Vec::new());
            self.pending.insert(
                header,
                vec![Edge {
                    guard,
                    args,
                    live: Vec::new(),
                }],
            );
            self.unrolling.push(l);
            let result = self.run_region(&blocks, Some(l));
            self.unrolling.pop();
            let back = self.back_edges.remove(&header).unwrap_or_default();
            result?;
            state = (!back.is_empty()).then(|| self.combine(back));
        }
        Ok(())
    }

    fn copy_block(&mut self, b: BlockId) -> Result<(), MergeError> {
        let Some(edges) = self.pending.remove(&b) else {
            return Ok(());
        };
        let insts = self.func.block(b).insts.clone();
        self.spend(1 + insts.len())?;
        let (guard, args) = self.combine_live(edges);
        let params = self.func.block(b).params.clone();
        for (p, a) in params.iter().zip(args) {
            self.env.insert(*p, a);
        }
        for inst in insts {
            self.copy_inst(inst, guard)?;
        }
        self.loc = self.func.block(b).term_loc;
        let term = self
            .func
            .block(b)
            .term
            .clone()
            .expect("bug: verified IR has terminators");
        match term {
            Terminator::Jmp(dest) => self.edge(&dest, guard),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.map(cond);
                match self.bool_const(c) {
                    Some(true) => self.edge(&then_dest, guard),
                    Some(false) => self.edge(&else_dest, guard),
                    None => {
                        self.check_loop_test(b, &then_dest, &else_dest)?;
                        let g = self.edge_guard(guard, c, true);
                        self.edge(&then_dest, g);
                        let g = self.edge_guard(guard, c, false);
                        self.edge(&else_dest, g);
                    }
                }
            }
            Terminator::Return(values) => {
                if !self.collect_returns {
                    return Err(self.err_unsupported("a return inside the component"));
                }
                let args = values.iter().map(|v| self.map(*v)).collect();
                self.returns.push(Edge {
                    guard,
                    args,
                    live: Vec::new(),
                });
            }
        }
        Ok(())
    }

    /// A branch on a runtime value between staying in a loop being unrolled and leaving it, at
    /// the loop's header or back to it, is the loop's test: its bound is not constant.
    fn check_loop_test(
        &self,
        b: BlockId,
        then_dest: &BlockCall,
        else_dest: &BlockCall,
    ) -> Result<(), MergeError> {
        for &l in self.unrolling.iter().rev() {
            let lp = self.loops.get(l);
            let stays = |d: &BlockCall| lp.blocks.contains(&d.block);
            if stays(then_dest) == stays(else_dest) {
                continue;
            }
            let to_header = then_dest.block == lp.header || else_dest.block == lp.header;
            if b == lp.header || to_header {
                let loc = lp
                    .blocks
                    .iter()
                    .flat_map(|blk| self.func.block(*blk).insts.iter())
                    .find_map(|i| self.func.inst(*i).loc());
                return Err(MergeError::RuntimeLoopBound {
                    func: self.func.name.clone(),
                    header: lp.header,
                    loc,
                });
            }
        }
        Ok(())
    }

    fn edge(&mut self, dest: &BlockCall, guard: ValueId) {
        if self.bool_const(guard) == Some(false) {
            return;
        }
        let args = dest.args.iter().map(|v| self.map(*v)).collect();
        let live = self.live_out(dest.block);
        let edge = Edge { guard, args, live };
        match self.back_edges.get_mut(&dest.block) {
            Some(back) => back.push(edge),
            None => self.pending.entry(dest.block).or_default().push(edge),
        }
    }

    fn const_val(&self, v: ValueId) -> Option<Val> {
        match self.const_value(v) {
            Some(Const::Field(x)) => Some(Val::Field(x)),
            Some(Const::UInt(x)) => Some(Val::UInt(x)),
            None => self.const_arrays.get(&v).cloned(),
        }
    }

    /// The values of `kind`'s results when its operands are constants (scalars, or arrays in
    /// [`Emitter::const_arrays`]) and it succeeds.
    fn eval_const(&self, kind: &InstKind) -> Option<Vec<Val>> {
        let mut all_const = true;
        kind.for_each_operand(|v| {
            all_const = all_const && (self.is_const(v) || self.const_arrays.contains_key(&v));
        });
        if !all_const {
            return None;
        }
        eval_pure_typed(kind, &|v| self.value_type(v), &mut |v| {
            // Every operand was checked above: the error (a string) is never made.
            self.const_val(v).ok_or_else(|| {
                crate::ir::interp::FailureKind::InvalidProgram("not a constant".into())
            })
        })?
        .ok()
    }

    /// The constant results of a copy of the instruction with results `results` (a copy's
    /// results have the original's types), as values, when they are all scalars
    /// ([`Self::eval_const`]).
    fn fold(&mut self, results: &[ValueId], vals: &[Val]) -> Option<Vec<ValueId>> {
        let mut out = Vec::with_capacity(results.len());
        for (val, &r) in vals.iter().zip(results) {
            let ty = &self.func.value_type(r).clone();
            out.push(match val {
                Val::Field(x) => self.constant(ty.clone(), Const::Field(*x)),
                Val::UInt(x) => match virtual_const(ty, *x) {
                    Some(v) => v,
                    None => self.constant(ty.clone(), Const::UInt(*x)),
                },
                _ => return None,
            });
        }
        (out.len() == results.len()).then_some(out)
    }

    fn zero(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Field => self.constant(Type::Field, Const::Field(crate::field::Fr::from(0u64))),
            Type::UInt(w) => self.constant(Type::UInt(*w), Const::UInt(0)),
            _ => unreachable!("bug: zero of a non-scalar"),
        }
    }

    fn one(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Field => self.constant(Type::Field, Const::Field(crate::field::Fr::from(1u64))),
            Type::UInt(w) => self.constant(Type::UInt(*w), Const::UInt(1)),
            _ => unreachable!("bug: one of a non-scalar"),
        }
    }

    /// `select g, i, 0` for an index into `array`, unless `i` is a constant in bounds.
    fn guard_index(
        &mut self,
        g: ValueId,
        array: ValueId,
        index: ValueId,
    ) -> Result<ValueId, MergeError> {
        let len = match self.func.value_type(array) {
            Type::Array(_, n) => u64::from(*n),
            _ => return Err(self.err_unsupported("indexing a non-array")),
        };
        if let Some(Const::UInt(i)) = self.const_value(index) {
            if i < len {
                return Ok(index);
            }
        }
        if len == 0 {
            return Err(self.err_unsupported("an empty array indexed on a guarded path"));
        }
        let ty = self.value_type(index).clone();
        let zero = self.zero(&ty);
        Ok(self.select(g, index, zero))
    }

    /// Copies `inst` into the merged block under guard `g`.
    pub(super) fn copy_inst(&mut self, inst: InstId, g: ValueId) -> Result<(), MergeError> {
        let data = self.func.inst(inst);
        let (loc, no_wrap) = (data.loc(), data.no_wrap());
        let old_results = data.results.clone();
        let mut kind = data.kind.clone();
        self.loc = loc;
        kind.map_operands(|v| self.map(v));
        // A table of constants copied before with the same operands: that copy (it cannot
        // fail, so its guard is no matter), found before evaluating the table again.
        let const_copy = match &kind {
            InstKind::MakeArray { elems, .. }
                if elems
                    .iter()
                    .all(|v| self.is_const(*v) || self.const_arrays.contains_key(v)) =>
            {
                let key = (inst, elems.to_vec());
                if let Some(results) = self.const_array_copies.get(&key) {
                    for (old, new) in old_results.iter().zip(results.clone()) {
                        self.env.insert(*old, new);
                    }
                    return Ok(());
                }
                Some(key)
            }
            _ => None,
        };
        let vals = self.eval_const(&kind);
        if let Some(results) = vals.as_ref().and_then(|vals| self.fold(&old_results, vals)) {
            for (old, new) in old_results.iter().zip(results) {
                self.env.insert(*old, new);
            }
            return Ok(());
        }
        if let InstKind::Select {
            cond,
            then_value,
            else_value,
        } = kind
        {
            let v = self.select(cond, then_value, else_value);
            self.env.insert(old_results[0], v);
            return Ok(());
        }
        let guarded = self.bool_const(g) != Some(true);
        match &mut kind {
            InstKind::Assert { cond, .. } => {
                if self.bool_const(*cond) == Some(true) {
                    return Ok(());
                }
                if guarded {
                    let off = self.not(g);
                    *cond = self.or(off, *cond);
                }
            }
            InstKind::Binary { op, rhs, .. } if op.can_fail() && guarded => {
                let nonzero_const = match self.const_value(*rhs) {
                    Some(Const::UInt(x)) => x != 0,
                    Some(Const::Field(x)) => x != crate::field::Fr::from(0u64),
                    None => false,
                };
                if !nonzero_const {
                    let ty = self.value_type(*rhs).clone();
                    let one = self.one(&ty);
                    *rhs = self.select(g, *rhs, one);
                }
            }
            InstKind::Cast { arg, to } if guarded => {
                let from = self.value_type(*arg).clone();
                let can_fail = match (&from, &*to) {
                    (_, Type::Field) => false,
                    (Type::UInt(a), Type::UInt(b)) => a > b,
                    _ => true,
                };
                if can_fail {
                    let zero = self.zero(&from);
                    *arg = self.select(g, *arg, zero);
                }
            }
            // Under a false guard the bound checks 0, which always passes.
            InstKind::Bound { arg, .. } if guarded => {
                let zero = self.zero(&Type::Field);
                *arg = self.select(g, *arg, zero);
            }
            InstKind::ArrayGet { array, index } | InstKind::ArraySet { array, index, .. }
                if guarded =>
            {
                *index = self.guard_index(g, *array, *index)?;
            }
            InstKind::Load { .. } | InstKind::Store { .. } if guarded => {
                // A reference on an untaken path may be one no allocation made, which the
                // interpreter rejects; R1CS has no memory either, so such code stays in blocks.
                return Err(self.err_unsupported("memory access on a predicated path"));
            }
            // A log prints and a hint runs its function only on the paths that reach them: the
            // copy is guarded (and with the guard it already had, if any).
            InstKind::Log { guard, .. } | InstKind::Hint { guard, .. } if guarded => {
                *guard = Some(match *guard {
                    Some(h) => self.and(g, h),
                    None => g,
                });
            }
            // A call runs once per run of the merged block only where it is unguarded (a
            // component's head or tail); under a guard it would need a predicated call.
            InstKind::Call { .. } if guarded => {
                return Err(self.err_unsupported("a call on a predicated path"))
            }
            _ => {}
        }
        let new = match kind {
            // A call's result types are its callee's, which the function does not know.
            InstKind::Call { .. } => {
                let returns: Vec<Type> = old_results
                    .iter()
                    .map(|r| self.func.value_type(*r).clone())
                    .collect();
                let mut kind = kind;
                kind.map_operands(|v| self.materialize(v));
                let inst = self.func.create_inst(kind, &returns, loc);
                self.out.push(inst);
                inst
            }
            kind => self.emit(kind, loc),
        };
        // A `nuw` fact holds on the paths that reached the instruction; copied under a guard it
        // also runs on others, so only an unguarded copy keeps it.
        self.func.inst_mut(new).set_no_wrap(no_wrap && !guarded);
        let results = self.func.inst(new).results.clone();
        for (old, new) in old_results.iter().zip(results) {
            self.env.insert(*old, new);
        }
        // An array of constants: what reads it with constant operands folds.
        if let Some(vals) = vals {
            let results = self.func.inst(new).results.clone();
            for (r, val) in results.iter().zip(vals) {
                if matches!(val, Val::Array(_)) {
                    self.const_arrays.insert(*r, val);
                }
            }
            if let Some(key) = const_copy {
                self.const_array_copies.insert(key, results.to_vec());
            }
        }
        Ok(())
    }
}
