//! Lowering of one IR block to one instance: the input state becomes instance variables, each
//! instruction a gadget, the terminator the output state. Run in structure mode it yields the
//! constraints; run in witness mode on an input state it yields every variable's value.

use super::builder::Builder;
use super::fxhash::{FxMap, FxSet};
use super::gadgets::{sum_bits, Num, Pivot, MAX_EXACT, UNBOUNDED};
use super::lc::Lc;
use super::live::FuncInfo;
use super::LowerError;
use crate::field::Fr;
use crate::ir::{
    BinOp, BlockCall, BlockId, Const, Function, InstId, InstKind, Terminator, Type, ValueDef,
    ValueId,
};
use ark_ff::{One, Zero};
use std::rc::Rc;

/// Results of linear operations longer than this become a witness variable (see
/// [`Builder::materialize`]), so a long chain of additions costs linear, not quadratic, time.
pub const MAX_LC_TERMS: usize = 64;

/// A wire: a scalar or an array of wires.
#[derive(Clone, Debug)]
pub(crate) enum Wire {
    Num(Num),
    Array(Vec<Wire>),
}

/// A bitwise idiom lowered bit by bit as a whole, cheaper than its operations one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Idiom {
    /// SHA-256's choice `(x & y) ^ (!x & z)` (or with `|`: the two sides never share a bit):
    /// `z_i + x_i · (y_i - z_i)`, one product per bit instead of three.
    Choice { x: ValueId, y: ValueId, z: ValueId },
    /// SHA-256's majority `(a & b) ^ (a & c) ^ (b & c)`: with `p = u_i · v_i` for one pair of
    /// the three, `p + w_i · (u_i + v_i - 2p)`: two products per bit, one when the pair's
    /// product was built before (instead of five).
    Majority { a: ValueId, b: ValueId, c: ValueId },
}

impl Idiom {
    fn reads(self) -> [ValueId; 3] {
        match self {
            Idiom::Choice { x, y, z } => [x, y, z],
            Idiom::Majority { a, b, c } => [a, b, c],
        }
    }
}

/// The instance variable holding a block label: block `bN` is `N + 1`; 0 means "returned".
pub fn block_label(block: BlockId) -> Fr {
    Fr::from(u64::from(block.0) + 1)
}

/// The label of the output state of a block that returns.
pub fn return_label() -> Fr {
    Fr::zero()
}

/// Where each exit's values sit in a block's output state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitLayout {
    /// The target block, `None` for `return`.
    pub target: Option<BlockId>,
    /// Scalar leaves of the jump arguments (or returned values): the first of the output leaves.
    pub arg_leaves: usize,
    /// The target's live-in values, whose leaves follow the arguments.
    pub live: Vec<ValueId>,
    /// Scalar leaves of those live-in values.
    pub live_leaves: usize,
}

/// The transition state of a block: which instance variables mean what.
///
/// Instance vector (after the constant 1): `[in_label, in_leaves.., out_label, out_leaves..]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateLayout {
    /// Scalar leaves of the block's parameters (flattened, arrays in index order).
    pub param_leaves: usize,
    /// The block's live-in values (see [`super`]): their leaves follow the parameters'.
    pub live_in: Vec<ValueId>,
    /// Scalar leaves of the live-in values.
    pub live_leaves: usize,
    /// Leaves of the output state after the label (the widest exit; shorter ones pad with 0).
    pub out_leaves: usize,
    /// One entry per exit (two for `br`, in text order).
    pub exits: Vec<ExitLayout>,
    /// Scalar leaves of the block's `hint` results: free witness variables whose values come
    /// from the interpreter's trace ([`super::BlockR1cs::assign_with_hints`]).
    pub hint_leaves: usize,
}

impl StateLayout {
    /// Leaves of the input state after the label.
    pub fn in_leaves(&self) -> usize {
        self.param_leaves + self.live_leaves
    }

    /// Index (in the instance vector, without the constant) of the output label.
    pub fn out_label_index(&self) -> usize {
        1 + self.in_leaves()
    }

    /// Number of instance variables.
    pub fn width(&self) -> usize {
        2 + self.in_leaves() + self.out_leaves
    }
}

/// Leaf types of a type, in flattening order: `Some(N)` for `uN`, `None` for field.
pub(crate) fn leaf_widths(ty: &Type, out: &mut Vec<Option<u32>>) -> Result<(), String> {
    match ty {
        Type::Field => out.push(None),
        Type::UInt(w) => out.push(Some(*w)),
        Type::Array(elem, n) => {
            for _ in 0..*n {
                leaf_widths(elem, out)?;
            }
        }
        Type::Ref(_) => return Err(format!("a value of reference type {ty}")),
    }
    Ok(())
}

/// The wires of a block's values: a dense vector over the block's own id range (params and
/// results are usually allocated together), a map for everything else.
struct Env {
    lo: u32,
    dense: Vec<Option<Wire>>,
    /// The last instruction reading each dense value (`u32::MAX`: kept to the end).
    last_use: Vec<u32>,
    sparse: FxMap<ValueId, Wire>,
}

impl Env {
    fn new(func: &Function, block: BlockId) -> Env {
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

    fn slot(&self, v: ValueId) -> Option<usize> {
        let i = v.0.wrapping_sub(self.lo) as usize;
        (i < self.dense.len()).then_some(i)
    }

    fn get(&self, v: ValueId) -> Option<&Wire> {
        match self.slot(v) {
            Some(i) => self.dense[i].as_ref(),
            None => self.sparse.get(&v),
        }
    }

    fn insert(&mut self, v: ValueId, w: Wire) {
        match self.slot(v) {
            Some(i) => self.dense[i] = Some(w),
            None => {
                self.sparse.insert(v, w);
            }
        }
    }

    /// Drops `v`'s wire if instruction `pos` is its last reader.
    fn release(&mut self, v: ValueId, pos: usize) {
        if let Some(i) = self.slot(v) {
            if self.last_use[i] == pos as u32 {
                self.dense[i] = None;
            }
        }
    }
}

pub(crate) struct Lowerer<'a> {
    func: &'a Function,
    block: BlockId,
    pub cs: Builder,
    env: Env,
    fused: FxSet<ValueId>,
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
    pos: Option<usize>,
}

/// Lowers `block` of `func`. `inputs` (witness mode) are the input leaves after the label.
pub(crate) fn lower(
    func: &Function,
    info: &FuncInfo,
    block: BlockId,
    main_entry: bool,
    inputs: Option<&[Fr]>,
    hints: &[Fr],
) -> Result<(Builder, StateLayout), LowerError> {
    if block.index() >= func.blocks.len() || !func.layout.contains(&block) {
        return Err(LowerError::NoSuchBlock {
            func: func.name.clone(),
            block,
        });
    }
    let mut l = Lowerer {
        func,
        block,
        cs: Builder::new(inputs.is_some()),
        env: Env::new(func, block),
        fused: FxSet::default(),
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
        pos: None,
    };
    let layout = l.run(info, main_entry)?;
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

    fn next_input(&mut self) -> R<Fr> {
        match self.inputs {
            None => Ok(Fr::zero()),
            Some(xs) => {
                let x = xs
                    .get(self.next_input)
                    .copied()
                    .ok_or_else(|| LowerError::BadState {
                        block: self.block,
                        message: format!("the input state has only {} leaves", xs.len()),
                    })?;
                self.next_input += 1;
                Ok(x)
            }
        }
    }

    /// A wire of fresh instance variables for a value of type `ty`; range-checks `uN` leaves
    /// when `check` (main's inputs).
    fn input_wire(&mut self, ty: &Type, check: bool) -> R<Wire> {
        Ok(match ty {
            Type::Field => {
                let x = self.next_input()?;
                Wire::Num(Num::new(Lc::var(self.cs.instance(x)), UNBOUNDED))
            }
            Type::UInt(w) => {
                let x = self.next_input()?;
                let x = Lc::var(self.cs.instance(x));
                if check {
                    let bits = self.cs.decompose(&x, *w, Pivot::Low);
                    Wire::Num(Num {
                        lc: x,
                        bits: *w,
                        bitvec: Some(bits.into()),
                        max: None,
                    })
                } else {
                    Wire::Num(Num::new(x, *w))
                }
            }
            Type::Array(elem, n) => Wire::Array(
                (0..*n)
                    .map(|_| self.input_wire(elem, check))
                    .collect::<R<Vec<_>>>()?,
            ),
            Type::Ref(_) => {
                return Err(self.err(format!("a block parameter of reference type {ty}")))
            }
        })
    }

    fn run(&mut self, info: &FuncInfo, main_entry: bool) -> R<StateLayout> {
        let func = self.func;
        let data = func.block(self.block);
        let in_label = self.cs.instance(block_label(self.block));
        let mut param_leaves = 0;
        for &p in &data.params {
            let ty = func.value_type(p).clone();
            let w = self.input_wire(&ty, main_entry)?;
            param_leaves += self.count_leaves(&ty)?;
            self.env.insert(p, w);
        }
        let live_in = info.live_in.get(&self.block).cloned().unwrap_or_default();
        let mut live_leaves = 0;
        for &v in &live_in {
            let ty = func.value_type(v).clone();
            let w = self.input_wire(&ty, false)?;
            live_leaves += self.count_leaves(&ty)?;
            self.env.insert(v, w);
        }
        self.cs
            .enforce_eq(&Lc::var(in_label), &Lc::constant(block_label(self.block)));
        // `eq` results whose only use is an `assert` of this block become `a = b`; a `u1` `and`
        // whose only use is an `assert` (or such an `and`) is not built: the assertion asserts
        // each operand instead (`a ∧ b = 1` iff `a = 1` and `b = 1` for booleans), so
        // `assert(a == [true; N])` costs no product per element.
        let in_block: FxSet<InstId> = data.insts.iter().copied().collect();
        for &i in &data.insts {
            if let InstKind::Assert { cond, .. } = &func.inst(i).kind {
                self.fuse_assertion(*cond, info, &in_block, false);
            }
        }
        for &i in &data.insts {
            self.find_idiom(i, info, &in_block);
        }
        // Wires are dropped after their last reader in this block, unless the terminator or a
        // later block (through a successor's live-ins) needs them.
        for (pos, &i) in data.insts.iter().enumerate() {
            let kind = &func.inst(i).kind;
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
                for leaf in fused_reads(func, &self.fused, *cond) {
                    note(leaf);
                }
            }
            if let Some(idiom) = func
                .inst(i)
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
        let limit = super::max_constraints();
        for (pos, &i) in data.insts.iter().enumerate() {
            self.pos = Some(pos);
            let inst = func.inst(i);
            let mut results = self.lower_inst(&inst.kind, &inst.results)?;
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
            inst.kind.for_each_operand(|v| self.env.release(v, pos));
            if let InstKind::Assert { cond, .. } = &inst.kind {
                for leaf in fused_reads(func, &self.fused, *cond) {
                    self.env.release(leaf, pos);
                }
            }
            if let Some(idiom) = inst.results.first().and_then(|r| self.idioms.get(r)) {
                for v in idiom.reads() {
                    self.env.release(v, pos);
                }
            }
        }
        self.pos = None;
        let term = data
            .term
            .as_ref()
            .ok_or_else(|| self.err("a block without terminator"))?;
        self.lower_term(term, info, param_leaves, live_in, live_leaves)
    }

    /// A wire of fresh witness variables holding the next hint values. A `uN` or `u1` leaf is
    /// range-checked (N booleans), as every `uN` value is where it is produced; a field leaf
    /// costs nothing.
    fn hint_wire(&mut self, ty: &Type) -> R<Wire> {
        Ok(match ty {
            Type::Field | Type::UInt(_) => {
                let x = self.hints.get(self.next_hint).copied().unwrap_or_default();
                self.next_hint += 1;
                let v = Lc::var(self.cs.witness(|_| x));
                match ty {
                    Type::UInt(w) => {
                        let bits = self.cs.decompose(&v, *w, Pivot::Low);
                        Wire::Num(Num {
                            lc: v,
                            bits: *w,
                            bitvec: Some(bits.into()),
                            max: None,
                        })
                    }
                    _ => Wire::Num(Num::new(v, UNBOUNDED)),
                }
            }
            Type::Array(elem, n) => Wire::Array(
                (0..*n)
                    .map(|_| self.hint_wire(elem))
                    .collect::<R<Vec<_>>>()?,
            ),
            Type::Ref(_) => return Err(self.err(format!("a hint of reference type {ty}"))),
        })
    }

    /// Materializes leaves whose combination has grown past [`MAX_LC_TERMS`].
    fn shorten(&mut self, w: &mut Wire) {
        match w {
            Wire::Num(n) if n.lc.terms().len() > MAX_LC_TERMS => {
                n.lc = self.cs.materialize(&n.lc);
            }
            Wire::Num(_) => {}
            Wire::Array(items) => items.iter_mut().for_each(|i| self.shorten(i)),
        }
    }

    fn count_leaves(&self, ty: &Type) -> R<usize> {
        let mut w = Vec::new();
        leaf_widths(ty, &mut w).map_err(|e| self.err(e))?;
        Ok(w.len())
    }

    fn ty(&self, v: ValueId) -> &'a Type {
        self.func.value_type(v)
    }

    fn get(&self, v: ValueId) -> R<Wire> {
        if let Some(c) = self.func.const_value(v) {
            return Ok(Wire::Num(match c {
                Const::Field(x) => Num::constant(x),
                Const::UInt(n) => Num::from_u64(n),
            }));
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

    /// The operands of `v` when it is a `uN` (N > 1) `and` of this block used only once (by the
    /// idiom that will read its operands instead).
    fn single_and(
        &self,
        v: ValueId,
        info: &FuncInfo,
        in_block: &FxSet<InstId>,
    ) -> Option<(ValueId, ValueId)> {
        match self.single_binary(v, info, in_block)? {
            (BinOp::And, l, r) => Some((l, r)),
            _ => None,
        }
    }

    /// `(op, lhs, rhs)` of a `uN` (N > 1) binary operation of this block whose result is used
    /// once and is not already part of an idiom or an assertion.
    fn single_binary(
        &self,
        v: ValueId,
        info: &FuncInfo,
        in_block: &FxSet<InstId>,
    ) -> Option<(BinOp, ValueId, ValueId)> {
        let func = self.func;
        if info.uses.get(&v) != Some(&1) || self.folded.contains(&v) || self.fused.contains(&v) {
            return None;
        }
        let ValueDef::Result(def, _) = func.value(v).def else {
            return None;
        };
        if !in_block.contains(&def) || !matches!(func.value_type(v), Type::UInt(n) if *n > 1) {
            return None;
        }
        match func.inst(def).kind {
            InstKind::Binary { op, lhs, rhs } => Some((op, lhs, rhs)),
            _ => None,
        }
    }

    /// Recognizes the choice and majority idioms ([`Idiom`]) at instruction `i`, and marks the
    /// operations they fold.
    fn find_idiom(&mut self, i: InstId, info: &FuncInfo, in_block: &FxSet<InstId>) {
        let func = self.func;
        let inst = func.inst(i);
        let InstKind::Binary { op, lhs, rhs } = inst.kind else {
            return;
        };
        let Some(&result) = inst.results.first() else {
            return;
        };
        if !matches!(op, BinOp::Xor | BinOp::Or)
            || !matches!(func.value_type(result), Type::UInt(n) if *n > 1)
            || self.folded.contains(&result)
        {
            return;
        }
        let not_of = |v: ValueId| match func.value(v).def {
            ValueDef::Result(d, _) if in_block.contains(&d) => match func.inst(d).kind {
                InstKind::Not { arg } => Some(arg),
                _ => None,
            },
            _ => None,
        };
        // Choice: one `and` has x and y, the other `!x` and z.
        if let (Some((p, q)), Some((s, t))) = (
            self.single_and(lhs, info, in_block),
            self.single_and(rhs, info, in_block),
        ) {
            for (x, y) in [(p, q), (q, p)] {
                for (nx, z) in [(s, t), (t, s)] {
                    if not_of(nx) == Some(x) {
                        self.folded.extend([lhs, rhs]);
                        self.idioms.insert(result, Idiom::Choice { x, y, z });
                        return;
                    }
                }
            }
        }
        // Majority: xor(xor(and, and), and) in either order, over the three pairs of a, b, c.
        if op != BinOp::Xor {
            return;
        }
        for (inner, last) in [(lhs, rhs), (rhs, lhs)] {
            let Some((BinOp::Xor, i1, i2)) = self.single_binary(inner, info, in_block) else {
                continue;
            };
            let pairs = [
                self.single_and(i1, info, in_block),
                self.single_and(i2, info, in_block),
                self.single_and(last, info, in_block),
            ];
            let [Some((a, b)), Some(p2), Some(p3)] = pairs else {
                continue;
            };
            if a == b {
                continue;
            }
            // c is the value of the second pair that is not a or b.
            let c = if p2.0 == a || p2.0 == b { p2.1 } else { p2.0 };
            if c == a || c == b {
                continue;
            }
            let same = |p: (ValueId, ValueId), u: ValueId, v: ValueId| {
                (p.0 == u && p.1 == v) || (p.0 == v && p.1 == u)
            };
            let covers = (same(p2, a, c) && same(p3, b, c)) || (same(p2, b, c) && same(p3, a, c));
            if covers {
                self.folded.extend([inner, i1, i2, last]);
                self.idioms.insert(result, Idiom::Majority { a, b, c });
                return;
            }
        }
    }

    /// Lowers a whole bitwise idiom.
    fn idiom(&mut self, idiom: Idiom) -> R<Num> {
        let [u, v, w] = idiom.reads();
        let bits = |l: &mut Self, x: ValueId| -> R<Vec<Lc>> {
            let n = l.width(x)? as usize;
            let mut b = l
                .bits(x)?
                .bitvec
                .as_deref()
                .map(<[Lc]>::to_vec)
                .unwrap_or_default();
            b.resize(n, Lc::zero());
            Ok(b)
        };
        let (ub, vb, wb) = (bits(self, u)?, bits(self, v)?, bits(self, w)?);
        let mut out = Vec::with_capacity(ub.len());
        for ((ui, vi), wi) in ub.iter().zip(&vb).zip(&wb) {
            out.push(match idiom {
                Idiom::Choice { .. } => {
                    let t = self.cs.mul(ui, &vi.sub(wi));
                    wi.add(&t)
                }
                Idiom::Majority { .. } => {
                    // Start from a pair whose product exists, else from (a, b).
                    let key = |x: &Lc, y: &Lc| {
                        if x <= y {
                            (x.clone(), y.clone())
                        } else {
                            (y.clone(), x.clone())
                        }
                    };
                    let (x, y, z) = [(ui, vi, wi), (ui, wi, vi), (vi, wi, ui)]
                        .into_iter()
                        .find(|(x, y, _)| self.majority_pairs.contains(&key(x, y)))
                        .unwrap_or((ui, vi, wi));
                    self.majority_pairs.insert(key(x, y));
                    let p = self.cs.mul(x, y);
                    let t = self.cs.mul(z, &x.add(y).add_scaled(&p, -Fr::from(2u64)));
                    p.add(&t)
                }
            });
        }
        Ok(Num::from_bits(out))
    }

    /// `a · b` for booleans: `a` when `b = a`, 0 when `b = 1 - a`, else one product.
    fn and_bool(&mut self, a: &Lc, b: &Lc) -> Lc {
        if a == b {
            return a.clone();
        }
        if a.add(b).as_constant() == Some(Fr::one()) {
            return Lc::zero();
        }
        self.cs.mul(a, b)
    }

    /// Marks what an assertion of `cond` fuses: `cond` itself when it is an `eq`, a `u1` `and`
    /// or `or`, or a `uN` `lt`/`le` of this block used only there, and (for `and` and `or`)
    /// recursively its operands. Under an `or` only `eq`s and `or`s fuse (`or_factors`).
    fn fuse_assertion(
        &mut self,
        cond: ValueId,
        info: &FuncInfo,
        in_block: &FxSet<InstId>,
        under_or: bool,
    ) {
        let func = self.func;
        // An explicit stack: an `and` tree is as deep as the arrays an `==` compares are long.
        let mut stack = vec![(cond, under_or)];
        while let Some((cond, under_or)) = stack.pop() {
            if info.uses.get(&cond) != Some(&1) {
                continue;
            }
            let ValueDef::Result(def, _) = func.value(cond).def else {
                continue;
            };
            if !in_block.contains(&def) {
                continue;
            }
            let InstKind::Binary { op, lhs, rhs } = func.inst(def).kind else {
                continue;
            };
            let ty = func.value_type(lhs);
            match op {
                BinOp::Eq => {
                    self.fused.insert(cond);
                }
                BinOp::And | BinOp::Or if matches!(ty, Type::UInt(1)) => {
                    if op == BinOp::And && under_or {
                        continue;
                    }
                    self.fused.insert(cond);
                    stack.push((rhs, op == BinOp::Or));
                    stack.push((lhs, op == BinOp::Or));
                }
                BinOp::Lt | BinOp::Le if !under_or && matches!(ty, Type::UInt(n) if *n > 1) => {
                    self.fused.insert(cond);
                }
                _ => {}
            }
        }
    }

    /// Asserts `cond` is true, through its fused tree: a fused `eq` becomes `a = b`; the
    /// booleans that must be 1 (the operands of fused `and`s, and `u1` `eq`s against a
    /// constant, which are `a` or `1 - a`) are asserted together as `Σ b_j = k` — one linear
    /// constraint, sound because k booleans sum to k < p only when each is 1.
    fn assert_value(&mut self, cond: ValueId) -> R<()> {
        let mut ones = Vec::new();
        self.assert_leaves(cond, &mut ones)?;
        match ones.as_slice() {
            [] => {}
            [one] => {
                let one = one.clone();
                self.cs.assert_true(&one, None);
            }
            _ => {
                let k = Lc::from_u64(ones.len() as u64);
                let sum = Lc::from_terms(
                    ones.iter()
                        .flat_map(|b| b.terms().iter().copied())
                        .collect(),
                );
                self.cs.assert_eq(&sum, &k, None);
            }
        }
        Ok(())
    }

    /// Asserts `a < b` (`strict`) or `a ≤ b` on normalized `uN` values: `b - a - [strict]` lies in
    /// `[0, 2^m)` with `b < 2^m` (m booleans; a false assertion leaves `b - a - 1 ≥ p - 2^N`). Against a
    /// constant `c = b - [strict]` of `k` bits: `c - a` in `[0, 2^k)`, k booleans; when `a`'s
    /// bits are known, its bits from `k` up are asserted 0 (linear) and only its low bits are
    /// compared, so the zeroed bits' checks disappear too.
    fn assert_uint_le(&mut self, lhs: ValueId, rhs: ValueId, strict: bool) -> R<()> {
        let (a, b) = (self.norm(lhs)?, self.norm(rhs)?);
        let shift = Fr::from(u64::from(strict));
        let Some(c) = b.lc.as_constant() else {
            let d = b.lc.sub(&a.lc).add_const(-shift);
            self.cs.decompose(&d, b.bits, Pivot::Low);
            return Ok(());
        };
        if strict && c.is_zero() {
            self.cs.enforce_false();
            return Ok(());
        }
        let bound = c - shift;
        if crate::field::cmp_canonical(&bound, &a.max_value()).is_ge() {
            return Ok(());
        }
        let k = crate::field::num_bits(&bound);
        let low = match &a.bitvec {
            Some(bits) if bits.len() > k as usize => {
                for bit in &bits[k as usize..] {
                    self.cs.enforce_zero(bit);
                }
                sum_bits(&bits[..k as usize])
            }
            _ => a.lc.clone(),
        };
        self.cs.decompose(&low.const_minus(bound), k, Pivot::Low);
        Ok(())
    }

    /// The factors of a fused `or` tree, each 0 exactly when its operand holds: `a - b` for a
    /// fused `eq` (or `1 - z` when its flag `z = [a == b]` exists already), `1 - x` for a
    /// boolean `x`; each with whether it is boolean.
    fn or_factors(&mut self, v: ValueId, out: &mut Vec<(Lc, bool)>) -> R<()> {
        // An explicit stack, left operand first (see `fuse_assertion`).
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            if !self.fused.contains(&v) {
                out.push((self.norm(v)?.lc.const_minus(Fr::one()), true));
                continue;
            }
            let ValueDef::Result(def, _) = self.func.value(v).def else {
                return Err(self.err("fused assertion without definition"));
            };
            let InstKind::Binary { op, lhs, rhs } = self.func.inst(def).kind else {
                return Err(self.err("fused assertion of a non-binary value"));
            };
            match op {
                BinOp::Or => {
                    stack.push(rhs);
                    stack.push(lhs);
                }
                BinOp::Eq => {
                    let (a, b) = match self.ty(lhs) {
                        Type::UInt(_) => (self.norm(lhs)?, self.norm(rhs)?),
                        _ => (self.num(lhs)?, self.num(rhs)?),
                    };
                    let d = a.lc.sub(&b.lc);
                    let neg = d.scale(-Fr::one());
                    let flag = self
                        .cs
                        .zeros
                        .get(&d)
                        .or_else(|| self.cs.zeros.get(&neg))
                        .cloned();
                    out.push(match flag {
                        Some(z) => (z.const_minus(Fr::one()), true),
                        None => (d, false),
                    });
                }
                _ => return Err(self.err(format!("fused `or` operand `{op}`"))),
            }
        }
        Ok(())
    }

    /// Collects the booleans of [`Self::assert_value`] that must be 1; fused `eq`s that are not
    /// boolean against a constant are asserted here.
    fn assert_leaves(&mut self, cond: ValueId, ones: &mut Vec<Lc>) -> R<()> {
        // An explicit stack, left operand first (see `fuse_assertion`).
        let mut stack = vec![cond];
        while let Some(cond) = stack.pop() {
            if !self.fused.contains(&cond) {
                ones.push(self.norm(cond)?.lc);
                continue;
            }
            let ValueDef::Result(def, _) = self.func.value(cond).def else {
                return Err(self.err("fused assertion without definition"));
            };
            let InstKind::Binary { op, lhs, rhs } = self.func.inst(def).kind else {
                return Err(self.err("fused assertion of a non-binary value"));
            };
            match op {
                BinOp::Eq => {
                    let (a, b) = match self.ty(lhs) {
                        Type::UInt(_) => (self.norm(lhs)?, self.norm(rhs)?),
                        _ => (self.num(lhs)?, self.num(rhs)?),
                    };
                    let boolean = matches!(self.ty(lhs), Type::UInt(1));
                    match (boolean, a.lc.as_constant(), b.lc.as_constant()) {
                        (true, None, Some(c)) => ones.push(if c.is_zero() {
                            a.lc.const_minus(Fr::one())
                        } else {
                            a.lc
                        }),
                        (true, Some(c), None) => ones.push(if c.is_zero() {
                            b.lc.const_minus(Fr::one())
                        } else {
                            b.lc
                        }),
                        _ => self.cs.assert_eq(&a.lc, &b.lc, None),
                    }
                }
                BinOp::And => {
                    stack.push(rhs);
                    stack.push(lhs);
                }
                BinOp::Lt | BinOp::Le => self.assert_uint_le(lhs, rhs, op == BinOp::Lt)?,
                BinOp::Or => {
                    let mut factors = Vec::new();
                    self.or_factors(cond, &mut factors)?;
                    // One of the factors is 0 iff their product is (a field has no zero divisors).
                    let mut it = factors.into_iter();
                    let Some((mut acc, mut acc_bool)) = it.next() else {
                        return Err(self.err("an `or` without operands"));
                    };
                    for (f, boolean) in it {
                        acc = if acc_bool && boolean {
                            self.and_bool(&acc, &f)
                        } else {
                            self.cs.mul(&acc, &f)
                        };
                        acc_bool &= boolean;
                    }
                    self.cs.enforce_zero(&acc);
                }
                _ => return Err(self.err(format!("fused assertion of `{op}`"))),
            }
        }
        Ok(())
    }

    fn lower_inst(&mut self, kind: &InstKind, results: &[ValueId]) -> R<Vec<Wire>> {
        let one = |n: Num| Ok(vec![Wire::Num(n)]);
        match kind {
            InstKind::Binary { op, lhs, rhs } => {
                let result = results.first().copied();
                if result.is_some_and(|r| self.fused.contains(&r) || self.folded.contains(&r)) {
                    return Ok(vec![Wire::Num(Num::bool(Lc::zero()))]);
                }
                if let Some(idiom) = result.and_then(|r| self.idioms.get(&r).copied()) {
                    return one(self.idiom(idiom)?);
                }
                one(self.binary(*op, *lhs, *rhs)?)
            }
            InstKind::Not { arg } => {
                let n = self.width(*arg)?;
                let x = self.num(*arg)?;
                if n == 1 {
                    return one(Num::bool(x.lc.const_minus(Fr::one())));
                }
                if let Some(bits) = &x.bitvec {
                    if x.bits <= n {
                        let mut flipped: Vec<Lc> =
                            bits.iter().map(|b| b.const_minus(Fr::one())).collect();
                        flipped.resize(n as usize, Lc::from_u64(1));
                        return one(Num::from_bits(flipped));
                    }
                }
                let t = x.bits.max(n);
                let all = super::gadgets::pow2(t) - Fr::one();
                one(Num::new(x.lc.const_minus(all), t))
            }
            InstKind::Cast { arg, to } => {
                let from = self.ty(*arg);
                let x = match from {
                    Type::UInt(_) => self.norm(*arg)?,
                    _ => self.num(*arg)?,
                };
                match to {
                    Type::Field => one(Num { bitvec: None, ..x }),
                    Type::UInt(m) => one(self.cs.checked_narrow(&x, *m, None)),
                    _ => Err(self.err(format!("cast to {to}"))),
                }
            }
            // k booleans: unsatisfiable when the value is not below 2^k (k ≤ 253).
            InstKind::Bound { arg, bits } => {
                let x = self.num(*arg)?;
                if x.bits <= *bits {
                    return one(x);
                }
                let b = self.cs.decompose(&x.lc, *bits, Pivot::Low);
                one(Num {
                    lc: x.lc,
                    bits: *bits,
                    bitvec: Some(b.into()),
                    max: None,
                })
            }
            InstKind::Truncate { arg, to } => {
                let m = to
                    .uint_width()
                    .ok_or_else(|| self.err(format!("trunc to {to}")))?;
                match self.ty(*arg) {
                    Type::UInt(n) => {
                        let x = self.num(*arg)?;
                        one(self.cs.normalize(&x, m.min(*n)))
                    }
                    _ => {
                        let x = self.num(*arg)?;
                        if x.bits <= MAX_EXACT {
                            one(self.cs.normalize(&x, m))
                        } else {
                            let bits = self.cs.canonical_bits(&x.lc);
                            one(Num::from_bits(bits[..m as usize].to_vec()))
                        }
                    }
                }
            }
            InstKind::Select {
                cond,
                then_value,
                else_value,
            } => {
                let c = self.num(*cond)?.lc;
                let (a, b) = (self.get(*then_value)?, self.get(*else_value)?);
                Ok(vec![self.select_wire(&c, &a, &b)?])
            }
            InstKind::Assert { cond, .. } => {
                self.assert_value(*cond)?;
                Ok(vec![])
            }
            InstKind::Allocate { .. } | InstKind::Load { .. } | InstKind::Store { .. } => Err(self
                .err(format!(
                    "`{}`: memory must be promoted to values (mem2reg) before lowering to R1CS",
                    kind.opcode()
                ))),
            InstKind::Call { .. } => {
                Err(self.err("`call`: calls must be inlined before lowering to R1CS"))
            }
            // Free witnesses: nothing computes or constrains them but the code that uses them.
            InstKind::Hint { ret, .. } => ret.iter().map(|t| self.hint_wire(t)).collect(),
            // `log` prints in the interpreter only: no wires, no constraints.
            InstKind::Log { .. } => Ok(vec![]),
            InstKind::MakeArray { elems, .. } => Ok(vec![Wire::Array(
                elems.iter().map(|e| self.get(*e)).collect::<R<Vec<_>>>()?,
            )]),
            InstKind::ArrayGet { array, index } => {
                let elem_ty = self.ty(*array).elem().cloned().unwrap_or(Type::Field);
                let idx = self.norm(*index)?;
                if let Some(k) = idx.lc.as_constant() {
                    // Only the element is copied: reading every element of a long array at
                    // constant indices stays linear.
                    let items = self.array_ref(*array)?;
                    return Ok(vec![match self.const_index(&k, items.len()) {
                        Some(j) => items[j].clone(),
                        None => {
                            self.cs.enforce_false();
                            self.zero_wire(&elem_ty)?
                        }
                    }]);
                }
                let items = self.array(*array)?;
                if items.is_empty() {
                    self.cs.enforce_false();
                    return Ok(vec![self.zero_wire(&elem_ty)?]);
                }
                let sel = self.selectors(*index, &idx.lc, items.len());
                Ok(vec![self.pick(&sel, &items)])
            }
            InstKind::ArraySet {
                array,
                index,
                value,
            } => {
                let items = self.array(*array)?;
                let v = self.get(*value)?;
                let idx = self.norm(*index)?;
                if let Some(k) = idx.lc.as_constant() {
                    let mut items = items;
                    match self.const_index(&k, items.len()) {
                        Some(j) => items[j] = v,
                        None => self.cs.enforce_false(),
                    }
                    return Ok(vec![Wire::Array(items)]);
                }
                let sel = self.selectors(*index, &idx.lc, items.len());
                let mut out = Vec::with_capacity(items.len());
                for (e, item) in sel.iter().zip(&items) {
                    // item + e (v - item) on every leaf.
                    out.push(self.select_wire(e, &v, item)?);
                }
                Ok(vec![Wire::Array(out)])
            }
            InstKind::ToBits { arg } => {
                let bits: Vec<Lc> = match self.ty(*arg) {
                    Type::UInt(_) => {
                        let x = self.bits(*arg)?;
                        x.bitvec.as_deref().map(<[Lc]>::to_vec).unwrap_or_default()
                    }
                    _ => {
                        let x = self.num(*arg)?;
                        if x.bits <= MAX_EXACT {
                            let mut b = self.cs.decompose(&x.lc, x.bits, Pivot::Low);
                            b.resize(UNBOUNDED as usize, Lc::zero());
                            b
                        } else {
                            self.cs.canonical_bits(&x.lc)
                        }
                    }
                };
                Ok(vec![Wire::Array(
                    bits.into_iter()
                        .rev()
                        .map(|b| Wire::Num(Num::bool(b)))
                        .collect(),
                )])
            }
            InstKind::FromBits { arg, to } => {
                let items = self.array(*arg)?;
                let mut bits = Vec::with_capacity(items.len());
                for it in items.iter().rev() {
                    match it {
                        Wire::Num(n) => bits.push(n.lc.clone()),
                        Wire::Array(_) => return Err(self.err("`from_bits` of nested arrays")),
                    }
                }
                match to {
                    Type::Field => {
                        let lc = sum_bits(&bits);
                        let b = if bits.len() as u32 <= MAX_EXACT {
                            bits.len() as u32
                        } else {
                            UNBOUNDED
                        };
                        one(Num::new(lc, b))
                    }
                    _ => one(Num::from_bits(bits)),
                }
            }
        }
    }

    fn const_index(&self, k: &Fr, len: usize) -> Option<usize> {
        let j = super::gadgets::low_u64(k);
        (crate::field::num_bits(k) <= 63 && (j as usize) < len).then_some(j as usize)
    }

    fn zero_wire(&self, ty: &Type) -> R<Wire> {
        Ok(match ty {
            Type::Array(elem, n) => Wire::Array(
                (0..*n)
                    .map(|_| self.zero_wire(elem))
                    .collect::<R<Vec<_>>>()?,
            ),
            Type::Ref(_) => return Err(self.err("an array of references")),
            _ => Wire::Num(Num::from_u64(0)),
        })
    }

    fn selectors(&mut self, index: ValueId, idx: &Lc, len: usize) -> Vec<Lc> {
        if let Some(s) = self.selectors.get(&(index, len)) {
            return s.clone();
        }
        let s = self.cs.selectors(idx, len, None);
        self.selectors.insert((index, len), s.clone());
        s
    }

    /// `Σ_j sel_j · items_j` on every leaf.
    fn pick(&mut self, sel: &[Lc], items: &[Wire]) -> Wire {
        match &items[0] {
            Wire::Num(_) => {
                let mut acc = Lc::zero();
                let mut bits = 0;
                for (e, item) in sel.iter().zip(items) {
                    if let Wire::Num(x) = item {
                        let t = self.cs.mul(e, &x.lc);
                        acc = acc.add(&t);
                        bits = bits.max(x.bits);
                    }
                }
                Wire::Num(Num::new(acc, bits))
            }
            Wire::Array(first) => {
                let len = first.len();
                let mut out = Vec::with_capacity(len);
                for k in 0..len {
                    let column: Vec<Wire> = items
                        .iter()
                        .map(|w| match w {
                            Wire::Array(a) => a[k].clone(),
                            Wire::Num(n) => Wire::Num(n.clone()),
                        })
                        .collect();
                    out.push(self.pick(sel, &column));
                }
                Wire::Array(out)
            }
        }
    }

    fn select_wire(&mut self, c: &Lc, a: &Wire, b: &Wire) -> R<Wire> {
        Ok(match (a, b) {
            (Wire::Num(x), Wire::Num(y)) => Wire::Num(self.cs.select(c, x, y)),
            (Wire::Array(xs), Wire::Array(ys)) if xs.len() == ys.len() => Wire::Array(
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| self.select_wire(c, x, y))
                    .collect::<R<Vec<_>>>()?,
            ),
            _ => return Err(self.err("`select` of values of different shapes")),
        })
    }

    fn binary(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId) -> R<Num> {
        match self.ty(lhs) {
            Type::Field => self.field_binary(op, lhs, rhs),
            Type::UInt(1) if !matches!(op, BinOp::Shl | BinOp::Shr | BinOp::UDiv | BinOp::URem) => {
                let (a, b) = (self.num(lhs)?.lc, self.num(rhs)?.lc);
                Ok(Num::bool(match op {
                    BinOp::Mul | BinOp::And => self.and_bool(&a, &b),
                    BinOp::Or => {
                        let p = self.and_bool(&a, &b);
                        a.add(&b).sub(&p)
                    }
                    BinOp::Add | BinOp::Sub | BinOp::Xor => {
                        let p = self.and_bool(&a, &b);
                        a.add(&b).add_scaled(&p, -Fr::from(2u64))
                    }
                    BinOp::Eq => {
                        let p = self.and_bool(&a, &b);
                        a.add(&b)
                            .add_scaled(&p, -Fr::from(2u64))
                            .const_minus(Fr::one())
                    }
                    // a < b: !a && b;  a <= b: !a || b.
                    BinOp::Lt => {
                        let p = self.and_bool(&a, &b);
                        b.sub(&p)
                    }
                    BinOp::Le => {
                        let p = self.and_bool(&a, &b);
                        a.sub(&p).const_minus(Fr::one())
                    }
                    _ => return Err(self.err(format!("`{op}` on u1"))),
                }))
            }
            Type::UInt(n) => self.uint_binary(op, lhs, rhs, *n),
            t => Err(self.err(format!("`{op}` on {t}"))),
        }
    }

    fn field_binary(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId) -> R<Num> {
        let (a, b) = (self.num(lhs)?, self.num(rhs)?);
        let bounded = |bits: u32| if bits <= MAX_EXACT { bits } else { UNBOUNDED };
        Ok(match op {
            BinOp::Add => Num::new(a.lc.add(&b.lc), bounded(a.bits.max(b.bits) + 1)),
            BinOp::Sub => Num::new(a.lc.sub(&b.lc), UNBOUNDED),
            BinOp::Mul => {
                let p = self.cs.mul(&a.lc, &b.lc);
                Num::new(p, bounded(a.bits + b.bits))
            }
            BinOp::Div => Num::new(self.cs.field_div(&a.lc, &b.lc, None), UNBOUNDED),
            BinOp::Eq => Num::bool(self.cs.is_zero(&a.lc.sub(&b.lc))),
            BinOp::Lt => Num::bool(self.cs.field_lt(&a, &b, false)),
            BinOp::Le => Num::bool(self.cs.field_lt(&a, &b, true)),
            _ => return Err(self.err(format!("`{op}` on field elements"))),
        })
    }

    fn uint_binary(&mut self, op: BinOp, lhs: ValueId, rhs: ValueId, n: u32) -> R<Num> {
        let lazy_limit = MAX_EXACT;
        Ok(match op {
            BinOp::Add | BinOp::Sub => {
                let (mut a, mut b) = (self.num(lhs)?, self.num(rhs)?);
                if a.bits.max(b.bits).max(n) + 2 > lazy_limit {
                    a = self.norm(lhs)?;
                    b = self.norm(rhs)?;
                }
                // Both bounds are below 2^251, so their sums are exact integers.
                if op == BinOp::Add {
                    Num::bounded(a.lc.add(&b.lc), a.max_value() + b.max_value())
                } else {
                    // a - b + 2^t with 2^t ≡ 0 mod 2^n and 2^t > b.
                    let t = b.bits.max(n);
                    let k = super::gadgets::pow2(t);
                    Num::bounded(a.lc.sub(&b.lc).add_const(k), a.max_value() + k)
                }
            }
            BinOp::Mul => {
                let (mut a, mut b) = (self.num(lhs)?, self.num(rhs)?);
                if a.bits + b.bits > lazy_limit {
                    a = self.norm(lhs)?;
                    b = self.norm(rhs)?;
                }
                let p = self.cs.mul(&a.lc, &b.lc);
                Num::new(p, a.bits + b.bits)
            }
            BinOp::UDiv | BinOp::URem => {
                let key = (lhs, rhs);
                let (q, r) = match self.divrem.get(&key) {
                    Some(qr) => qr.clone(),
                    None => {
                        let (a, b) = (self.norm(lhs)?, self.norm(rhs)?);
                        let qr = self.cs.udiv_rem(&a, &b, n, None);
                        self.divrem.insert(key, qr.clone());
                        qr
                    }
                };
                if op == BinOp::UDiv {
                    q
                } else {
                    r
                }
            }
            BinOp::Eq => {
                let (a, b) = (self.norm(lhs)?, self.norm(rhs)?);
                Num::bool(self.cs.is_zero(&a.lc.sub(&b.lc)))
            }
            BinOp::Lt | BinOp::Le => {
                let (a, b) = (self.norm(lhs)?, self.norm(rhs)?);
                Num::bool(self.cs.lt_bounded(&a.lc, &b.lc, n, op == BinOp::Le))
            }
            BinOp::And | BinOp::Or | BinOp::Xor => {
                let (a, b) = (self.bits(lhs)?, self.bits(rhs)?);
                let (ab, bb) = (
                    a.bitvec.clone().unwrap_or_else(|| Rc::from(Vec::new())),
                    b.bitvec.clone().unwrap_or_else(|| Rc::from(Vec::new())),
                );
                let mut out = Vec::with_capacity(n as usize);
                for (x, y) in ab.iter().zip(bb.iter()) {
                    let p = self.cs.mul(x, y);
                    out.push(match op {
                        BinOp::And => p,
                        BinOp::Or => x.add(y).sub(&p),
                        _ => x.add(y).add_scaled(&p, -Fr::from(2u64)),
                    });
                }
                Num::from_bits(out)
            }
            BinOp::Shl | BinOp::Shr => {
                let k = self.num(rhs)?;
                let k = if let Some(kc) = k.lc.as_constant() {
                    Some(kc)
                } else {
                    self.norm(rhs)?.lc.as_constant()
                };
                match k {
                    Some(k) => {
                        // A lazy `uN` constant (say `32 - 7` left unfolded at -O0) is only
                        // congruent to the amount mod 2^w: reduce it before using it.
                        let w = self.ty(rhs).uint_width().unwrap_or(64);
                        let amount = crate::ir::wrap(super::gadgets::low_u64(&k), w);
                        if amount >= u64::from(n) {
                            return Ok(Num::from_u64(0));
                        }
                        let a = self.bits(lhs)?;
                        let bits = a.bitvec.as_deref().map(<[Lc]>::to_vec).unwrap_or_default();
                        let s = amount as usize;
                        let out: Vec<Lc> = if op == BinOp::Shl {
                            (0..n as usize)
                                .map(|i| {
                                    if i >= s {
                                        bits[i - s].clone()
                                    } else {
                                        Lc::zero()
                                    }
                                })
                                .collect()
                        } else {
                            (0..n as usize)
                                .map(|i| bits.get(i + s).cloned().unwrap_or_else(Lc::zero))
                                .collect()
                        };
                        Num::from_bits(out)
                    }
                    None => {
                        let kb = self.bits(rhs)?;
                        let k_bits = kb.bitvec.as_deref().map(<[Lc]>::to_vec).unwrap_or_default();
                        if op == BinOp::Shl {
                            let a = self.norm(lhs)?;
                            self.cs.shl_var(&a, &k_bits, n)
                        } else {
                            // a >> k = reverse(reverse(a) << k).
                            let a = self.bits(lhs)?;
                            let bits = a.bitvec.as_deref().map(<[Lc]>::to_vec).unwrap_or_default();
                            let rev = Num::from_bits(bits.into_iter().rev().collect());
                            let shifted = self.cs.shl_var(&rev, &k_bits, n);
                            let shifted = self.cs.normalize(&shifted, n);
                            let sb = shifted
                                .bitvec
                                .as_deref()
                                .map(<[Lc]>::to_vec)
                                .unwrap_or_default();
                            let mut sb = sb;
                            sb.resize(n as usize, Lc::zero());
                            Num::from_bits(sb.into_iter().rev().collect())
                        }
                    }
                }
            }
            BinOp::Div => return Err(self.err("`div` on integers")),
        })
    }

    /// Normalized scalar leaves of a value of type `ty`.
    fn leaves(&mut self, v: ValueId, out: &mut Vec<Lc>) -> R<()> {
        let ty = self.ty(v).clone();
        if let Type::UInt(_) = ty {
            out.push(self.norm(v)?.lc);
            return Ok(());
        }
        let w = self.get(v)?;
        let mut widths = Vec::new();
        leaf_widths(&ty, &mut widths).map_err(|e| self.err(e))?;
        let mut nums = Vec::new();
        flatten(&w, &mut nums);
        if nums.len() != widths.len() {
            return Err(self.err(format!("{v} does not have the shape of its type {ty}")));
        }
        for (x, wd) in nums.into_iter().zip(widths) {
            out.push(match wd {
                Some(n) => self.normalize(&x, n).lc,
                None => x.lc,
            });
        }
        Ok(())
    }

    fn exit_leaves(
        &mut self,
        call: Option<&BlockCall>,
        values: &[ValueId],
        info: &FuncInfo,
    ) -> R<(Vec<Lc>, ExitLayout)> {
        let mut leaves = Vec::new();
        for &v in values {
            self.leaves(v, &mut leaves)?;
        }
        let arg_leaves = leaves.len();
        let live = match call {
            Some(c) => info.live_in.get(&c.block).cloned().unwrap_or_default(),
            None => Vec::new(),
        };
        for &v in &live {
            self.leaves(v, &mut leaves)?;
        }
        let live_leaves = leaves.len() - arg_leaves;
        Ok((
            leaves,
            ExitLayout {
                target: call.map(|c| c.block),
                arg_leaves,
                live,
                live_leaves,
            },
        ))
    }

    fn lower_term(
        &mut self,
        term: &Terminator,
        info: &FuncInfo,
        param_leaves: usize,
        live_in: Vec<ValueId>,
        live_leaves: usize,
    ) -> R<StateLayout> {
        let (label, leaves, exits) = match term {
            Terminator::Return(values) => {
                let (leaves, exit) = self.exit_leaves(None, values, info)?;
                (Lc::constant(return_label()), leaves, vec![exit])
            }
            Terminator::Jmp(dest) => {
                let (leaves, exit) = self.exit_leaves(Some(dest), &dest.args, info)?;
                (Lc::constant(block_label(dest.block)), leaves, vec![exit])
            }
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.num(*cond)?.lc;
                let (t, te) = self.exit_leaves(Some(then_dest), &then_dest.args, info)?;
                let (e, ee) = self.exit_leaves(Some(else_dest), &else_dest.args, info)?;
                let width = t.len().max(e.len());
                let mut leaves = Vec::with_capacity(width);
                for j in 0..width {
                    let a = Num::new(t.get(j).cloned().unwrap_or_default(), UNBOUNDED);
                    let b = Num::new(e.get(j).cloned().unwrap_or_default(), UNBOUNDED);
                    leaves.push(self.cs.select(&c, &a, &b).lc);
                }
                let (lt, le) = (block_label(then_dest.block), block_label(else_dest.block));
                (c.scale(lt - le).add_const(le), leaves, vec![te, ee])
            }
        };
        let out_label = self.cs.instance(self.cs.eval(&label));
        self.cs.enforce_eq(&Lc::var(out_label), &label);
        for leaf in &leaves {
            let o = self.cs.instance(self.cs.eval(leaf));
            self.cs.enforce_eq(&Lc::var(o), leaf);
        }
        Ok(StateLayout {
            hint_leaves: self.next_hint,
            param_leaves,
            live_in,
            live_leaves,
            out_leaves: leaves.len(),
            exits,
        })
    }
}

fn flatten(w: &Wire, out: &mut Vec<Num>) {
    match w {
        Wire::Num(n) => out.push(n.clone()),
        Wire::Array(items) => items.iter().for_each(|i| flatten(i, out)),
    }
}

/// The values an assertion of `cond` reads once its fused tree is expanded: the operands of each
/// fused `eq`, and each operand of a fused `and` that is not itself fused; `cond` when it is not
/// fused.
fn fused_reads(func: &Function, fused: &FxSet<ValueId>, cond: ValueId) -> Vec<ValueId> {
    let mut out = Vec::new();
    let mut stack = vec![cond];
    while let Some(v) = stack.pop() {
        if !fused.contains(&v) {
            out.push(v);
            continue;
        }
        let ValueDef::Result(def, _) = func.value(v).def else {
            continue;
        };
        match &func.inst(def).kind {
            InstKind::Binary {
                op: BinOp::Eq | BinOp::Lt | BinOp::Le,
                lhs,
                rhs,
            } => out.extend([*lhs, *rhs]),
            InstKind::Binary { lhs, rhs, .. } => stack.extend([*lhs, *rhs]),
            _ => {}
        }
    }
    out
}
