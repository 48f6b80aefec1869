//! Repeated regions and their interfaces: code a program writes out several times (a Merkle
//! path level by level, a hash's rounds one after another) that could be one function called at
//! each place (issue 33 item 3; `zkbc query --pattern interface` lists them).
//!
//! **Interface.** `../shared/seeds/ssa-structure-model.tex` (the design notes beside the
//! repository), Definition "Interface": values `b_1 .. b_n` are an interface to a set of
//! statements `A` when they cut every path of the PDG ([`super::pdg`]) from a parameter or an
//! impure statement to `A`. For a region `A` the control flow enters at its first statement and
//! leaves at one place, the values `A` reads from outside — the sources of the PDG's data edges
//! into `A` — are such a cut of the data paths; the control and phi edges into `A` come from
//! the branches that decide whether `A` runs at all, which a call standing where `A` stood
//! keeps. `A` holds no impure statement itself (`load`, `store`, `allocate`, `log`, `return`):
//! no cut separates a statement from itself. The parameters of a block the region starts at
//! are inputs as well (the jumps into it bind them). The region's *outputs* are the values it defines
//! that a statement outside it reads. Constants are not PDG nodes: a constant that differs
//! between copies is an input too (an argument), one that is the same in every copy stays in.
//! An instruction whose operands are all constants (a `make_array` of one round's constants)
//! is left to the caller: its result is one input instead of one input per constant.
//!
//! **Algorithm** ([`find_repeats`]). The statements of a function are listed in reverse
//! post-order of its blocks: per block a marker standing for its parameters, its instructions,
//! its terminator. A region written out `k` times is then `k` consecutive windows of one length
//! `p` that agree statement by statement:
//! 1. Every statement gets a coarse key: its kind (opcode and attributes, a call's callee),
//!    its result types, each operand's type and whether it is a constant; a terminator's targets
//!    as distances from it in the listing; a marker its parameter types and predecessor count.
//! 2. Candidate periods: the distances from each statement to the next [`NEXT_OCCURRENCES`]
//!    statements with its key, the [`MAX_PERIODS`] most frequent of at least [`MIN_INSTS`]
//!    (seen at least [`MIN_INSTS`] times).
//! 3. For each candidate `p`, each maximal run of `key[j] = key[j + p]` is cut into windows of
//!    `p` statements from one of its first [`ROTATIONS`] statements, the one whose groups
//!    (step 4) cover the most (the earliest of those).
//! 4. The windows are compared exactly with the first window of their group: the same
//!    statements; an operand defined inside at the same offset (and result or parameter
//!    index), or read from outside in both; a block inside entered only from inside (but the
//!    window's first statement); at most one way out (a target outside, or the statement after
//!    the window when it ends inside a block). A window that differs, or holds an impure
//!    statement, ends its group and starts the next. Each read from outside gives a column of
//!    values, one per window; equal columns are one input slot ([`Repeat::reads`]).
//! 5. Groups of at least two windows with at least [`MIN_INSTS`] instructions and no more
//!    inputs than instructions (a small interface) are kept, those covering the most
//!    statements first, none overlapping a kept one.
//!
//! Cost: linear in the statements for steps 1, 2 and 5, and `O(n · MAX_PERIODS)` for steps 3
//! and 4 (each statement is compared once per candidate period).

use crate::fxhash::{HashMap, HashSet};

use super::cfg::Cfg;
use crate::ir::{BlockId, Function, InstId, InstKind, Terminator, ValueDef, ValueId};
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

/// The fewest instructions a window holds to be reported.
pub const MIN_INSTS: usize = 4;

/// How many candidate periods are scanned (step 2 of the module doc).
pub const MAX_PERIODS: usize = 128;

/// How many first statements of a run a window may start at (step 3).
pub const ROTATIONS: usize = 4;

/// How many later statements with the same key a statement's distances are taken to (step 2).
pub const NEXT_OCCURRENCES: usize = 8;

/// A statement of the listing: a block's parameters, an instruction, a block's terminator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// The parameters of a block (its marker: where the block starts).
    Params(BlockId),
    /// An instruction.
    Inst(InstId),
    /// The terminator of a block.
    Term(BlockId),
}

/// A region written out several times: its copies and their interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeat {
    /// The statements of each copy, in listing order (every copy has as many), without the
    /// instructions of constants left to the caller.
    pub copies: Vec<Vec<Stmt>>,
    /// The inputs: per slot, the value each copy reads (constants included when they differ
    /// between copies).
    pub inputs: Vec<Vec<ValueId>>,
    /// The outputs: per slot, the value each copy defines that a statement outside it reads.
    pub outputs: Vec<Vec<ValueId>>,
    /// Each read of a value from outside a copy, in statement and operand order (the same in
    /// every copy): the input slot it reads, or `None` for a constant the same in every copy.
    pub reads: Vec<Option<usize>>,
}

impl Repeat {
    /// Statements per copy.
    pub fn len(&self) -> usize {
        self.copies.first().map_or(0, Vec::len)
    }

    /// Whether a copy is empty (never, for a repeat [`find_repeats`] returns).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Instructions per copy.
    pub fn insts(&self) -> usize {
        self.copies.first().map_or(0, |c| {
            c.iter().filter(|s| matches!(s, Stmt::Inst(_))).count()
        })
    }

    /// The blocks each copy starts (its block markers).
    pub fn blocks(&self, copy: usize) -> Vec<BlockId> {
        self.copies[copy]
            .iter()
            .filter_map(|s| match s {
                Stmt::Params(b) => Some(*b),
                _ => None,
            })
            .collect()
    }

    /// The inputs each copy after the first reads from the copy before it (a value carried
    /// along the chain, like the running hash of a Merkle path).
    pub fn carried(&self, func: &Function) -> usize {
        let defined: Vec<HashSet<ValueId>> =
            self.copies.iter().map(|c| defined_in(func, c)).collect();
        self.inputs
            .iter()
            .filter(|slot| (1..slot.len()).all(|c| defined[c - 1].contains(&slot[c])))
            .count()
    }

    /// The inputs that are constants in every copy (differing between copies).
    pub fn constant_inputs(&self, func: &Function) -> usize {
        self.inputs
            .iter()
            .filter(|slot| slot.iter().all(|v| func.is_const(*v)))
            .count()
    }
}

/// Every value the statements define (instruction results, block parameters).
pub fn defined_in(func: &Function, stmts: &[Stmt]) -> HashSet<ValueId> {
    let mut out = HashSet::default();
    for s in stmts {
        match s {
            Stmt::Params(b) => out.extend(func.block(*b).params.iter().copied()),
            Stmt::Inst(i) => out.extend(func.inst(*i).results.iter().copied()),
            Stmt::Term(_) => {}
        }
    }
    out
}

/// The repeated regions of `func` (see the module doc), the largest first.
pub fn find_repeats(func: &Function) -> Vec<Repeat> {
    let listing = Listing::new(func);
    let n = listing.stmts.len();
    let keys: Vec<u64> = (0..n).map(|j| listing.key(j)).collect();
    let mut groups: Vec<Group> = Vec::new();
    for p in candidate_periods(&keys) {
        let mut j = 0;
        while j + p < n {
            if keys[j] != keys[j + p] {
                j += 1;
                continue;
            }
            let start = j;
            while j + p < n && keys[j] == keys[j + p] {
                j += 1;
            }
            // key[i] = key[i + p] for i in start..j: the statements start..j + p repeat, and
            // windows may start anywhere among the first p: the first ROTATIONS are tried.
            let best = (start..start + p.min(ROTATIONS))
                .map(|first| listing.groups(first, p, (j + p - first) / p))
                .enumerate()
                .max_by_key(|(k, gs)| {
                    let covered: usize = gs.iter().map(|g| g.starts.len() * g.len).sum();
                    (covered, std::cmp::Reverse(*k))
                });
            groups.extend(best.map(|(_, gs)| gs).unwrap_or_default());
        }
    }
    // Step 5: the largest coverage first, the shorter period on ties, no overlaps.
    groups.sort_by_key(|g| {
        (
            std::cmp::Reverse(g.starts.len() * g.len),
            g.len,
            g.starts[0],
        )
    });
    let mut taken = vec![false; n];
    let mut out = Vec::new();
    for g in groups {
        let span = g.starts[0]..g.starts[g.starts.len() - 1] + g.len;
        if span.clone().any(|j| taken[j]) {
            continue;
        }
        span.for_each(|j| taken[j] = true);
        out.push(listing.repeat(&g));
    }
    out
}

/// Step 2: the most frequent distances between statements with the same key.
fn candidate_periods(keys: &[u64]) -> Vec<usize> {
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::default();
    let mut count: HashMap<usize, usize> = HashMap::default();
    for (j, k) in keys.iter().enumerate() {
        let before = seen.entry(*k).or_default();
        for q in before.iter().rev().take(NEXT_OCCURRENCES) {
            let d = j - q;
            if d >= MIN_INSTS && 2 * d <= keys.len() {
                *count.entry(d).or_default() += 1;
            }
        }
        before.push(j);
    }
    let mut periods: Vec<(usize, usize)> = count.into_iter().collect();
    periods.sort_by_key(|&(d, c)| (std::cmp::Reverse(c), d));
    let mut out: Vec<usize> = periods
        .into_iter()
        .filter(|&(_, c)| c >= MIN_INSTS)
        .take(MAX_PERIODS)
        .map(|(d, _)| d)
        .collect();
    out.sort_unstable();
    out
}

/// Consecutive windows of one length that agree exactly (step 4).
struct Group {
    starts: Vec<usize>,
    len: usize,
    /// Per input slot, the value each window reads.
    inputs: Vec<Vec<ValueId>>,
    /// Per read from outside, its slot (`None`: a constant the same in every window).
    reads: Vec<Option<usize>>,
}

/// The statements of a function in block order, with where each value is defined and read.
struct Listing<'f> {
    func: &'f Function,
    stmts: Vec<Stmt>,
    /// Per block, its marker's position.
    block_pos: HashMap<BlockId, usize>,
    /// Per block, the positions of the terminators that jump to it.
    preds: HashMap<BlockId, Vec<usize>>,
    /// Per value, the position of the statement defining it (`u32::MAX`: a constant).
    def_pos: Vec<u32>,
    /// Per value, the first and last positions of the statements reading it.
    use_span: Vec<(u32, u32)>,
    /// Per statement, whether it is left to the caller (an instruction of constants).
    hoisted: Vec<bool>,
}

const NONE: u32 = u32::MAX;

impl<'f> Listing<'f> {
    fn new(func: &'f Function) -> Listing<'f> {
        let cfg = Cfg::new(func);
        let mut stmts = Vec::new();
        let mut block_pos = HashMap::default();
        for &b in cfg.reverse_post_order() {
            block_pos.insert(b, stmts.len());
            stmts.push(Stmt::Params(b));
            stmts.extend(func.block(b).insts.iter().map(|i| Stmt::Inst(*i)));
            stmts.push(Stmt::Term(b));
        }
        let mut preds: HashMap<BlockId, Vec<usize>> = HashMap::default();
        for (j, s) in stmts.iter().enumerate() {
            if let Stmt::Term(b) = s {
                for t in func.block(*b).term.iter().flat_map(Terminator::successors) {
                    preds.entry(t).or_default().push(j);
                }
            }
        }
        let n_values = func.values.len();
        let hoisted = stmts
            .iter()
            .map(|s| match s {
                Stmt::Inst(i) => {
                    let kind = &func.inst(*i).kind;
                    let operands = kind.operands();
                    !kind.info().side_effects
                        && !matches!(kind, InstKind::Hint { .. } | InstKind::Allocate { .. })
                        && !operands.is_empty()
                        && operands.iter().all(|v| func.is_const(*v))
                }
                _ => false,
            })
            .collect();
        let mut listing = Listing {
            func,
            stmts,
            block_pos,
            preds,
            def_pos: vec![NONE; n_values],
            use_span: vec![(NONE, 0); n_values],
            hoisted,
        };
        for j in 0..listing.stmts.len() {
            let pos = j as u32;
            match listing.stmts[j] {
                Stmt::Params(b) => {
                    for p in &func.block(b).params {
                        listing.def_pos[p.index()] = pos;
                    }
                }
                Stmt::Inst(i) => {
                    for r in func.inst(i).results.iter() {
                        listing.def_pos[r.index()] = pos;
                    }
                }
                Stmt::Term(_) => {}
            }
            for v in listing.operands(j) {
                let span = &mut listing.use_span[v.index()];
                span.0 = span.0.min(pos);
                span.1 = span.1.max(pos);
            }
        }
        listing
    }

    /// The values statement `j` reads, in order.
    fn operands(&self, j: usize) -> Vec<ValueId> {
        match self.stmts[j] {
            Stmt::Params(_) => Vec::new(),
            Stmt::Inst(i) => self.func.inst(i).kind.operands(),
            Stmt::Term(b) => self
                .func
                .block(b)
                .term
                .as_ref()
                .map_or_else(Vec::new, Terminator::operands),
        }
    }

    /// Step 1: the coarse key of statement `j`.
    fn key(&self, j: usize) -> u64 {
        let func = self.func;
        let mut h = crate::fxhash::FxHasher::default();
        let operand = |h: &mut crate::fxhash::FxHasher, v: ValueId| {
            func.value_type(v).hash(h);
            func.is_const(v).hash(h);
        };
        match self.stmts[j] {
            Stmt::Params(b) => {
                0u8.hash(&mut h);
                self.preds.get(&b).map_or(0, Vec::len).hash(&mut h);
                for p in &func.block(b).params {
                    func.value_type(*p).hash(&mut h);
                }
            }
            Stmt::Inst(i) => {
                1u8.hash(&mut h);
                shape(&func.inst(i).kind).hash(&mut h);
                for r in func.inst(i).results.iter() {
                    func.value_type(*r).hash(&mut h);
                }
                for v in func.inst(i).kind.operands() {
                    operand(&mut h, v);
                }
            }
            Stmt::Term(b) => {
                2u8.hash(&mut h);
                if let Some(term) = &func.block(b).term {
                    std::mem::discriminant(term).hash(&mut h);
                    for t in term.successors() {
                        let d = self.block_pos[&t] as i64 - j as i64;
                        d.hash(&mut h);
                    }
                    for v in term.operands() {
                        operand(&mut h, v);
                    }
                }
            }
        }
        h.finish()
    }

    /// Steps 3 and 4: the groups of the windows `first + c·p`, `c < copies`.
    fn groups(&self, first: usize, p: usize, copies: usize) -> Vec<Group> {
        let mut out = Vec::new();
        let mut c = 0;
        while c + 1 < copies {
            let r = first + c * p;
            let Some(reads) = self.outside_reads(r, p) else {
                c += 1;
                continue;
            };
            let mut group = Group {
                starts: vec![r],
                len: p,
                inputs: reads.iter().map(|v| vec![*v]).collect(),
                reads: Vec::new(),
            };
            c += 1;
            while c < copies {
                let x = first + c * p;
                let Some(reads) = self
                    .outside_reads(x, p)
                    .filter(|_| self.agree(r, x, p).is_some())
                else {
                    break;
                };
                group.starts.push(x);
                for (slot, v) in group.inputs.iter_mut().zip(reads) {
                    slot.push(v);
                }
                c += 1;
            }
            let insts = self.insts(r, p);
            if group.starts.len() >= 2 && insts >= MIN_INSTS {
                // One input per distinct column of reads: reads of the same value in every
                // window are one input; a constant the same in every window stays inside, and
                // constants equal in every window are one input.
                let consts = |slot: &[ValueId]| -> Option<Vec<_>> {
                    slot.iter().map(|v| self.func.const_value(*v)).collect()
                };
                let columns = std::mem::take(&mut group.inputs);
                let mut slot_of: HashMap<Vec<ValueId>, usize> = HashMap::default();
                let mut slot_of_consts: HashMap<Vec<crate::ir::Const>, usize> = HashMap::default();
                for column in columns {
                    let slot = match consts(&column) {
                        Some(values) if values.iter().all(|c| *c == values[0]) => None,
                        Some(values) => Some(*slot_of_consts.entry(values).or_insert_with(|| {
                            group.inputs.push(column.clone());
                            group.inputs.len() - 1
                        })),
                        None => Some(*slot_of.entry(column.clone()).or_insert_with(|| {
                            group.inputs.push(column.clone());
                            group.inputs.len() - 1
                        })),
                    };
                    group.reads.push(slot);
                }
                // A small interface: no more inputs than instructions.
                if group.inputs.len() <= insts {
                    out.push(group);
                }
            }
        }
        out
    }

    fn insts(&self, r: usize, p: usize) -> usize {
        (r..r + p)
            .filter(|&j| matches!(self.stmts[j], Stmt::Inst(_)) && !self.hoisted[j])
            .count()
    }

    /// The window at `r` on its own: every read of a value from outside, in order (a value
    /// read twice is listed twice), or `None` when it is not a region (an impure statement, a
    /// block entered from outside but at its first statement, more than one way out).
    fn outside_reads(&self, r: usize, p: usize) -> Option<Vec<ValueId>> {
        let inside = |pos: u32| self.inside(pos, r, p);
        let mut reads = Vec::new();
        let mut exits = HashSet::default();
        for j in r..r + p {
            if self.hoisted[j] {
                continue;
            }
            match self.stmts[j] {
                Stmt::Params(b) => {
                    if j > r && !self.entered_only_from(b, r, p) {
                        return None;
                    }
                }
                Stmt::Inst(i) => {
                    let inst = self.func.inst(i);
                    if impure(&inst.kind)
                        || inst
                            .results
                            .iter()
                            .any(|v| self.func.value_type(*v).contains_ref())
                    {
                        return None;
                    }
                }
                Stmt::Term(b) => {
                    let term = self.func.block(b).term.as_ref()?;
                    if matches!(term, Terminator::Return(_)) {
                        return None;
                    }
                    for t in term.successors() {
                        if !inside(self.block_pos[&t] as u32) {
                            exits.insert(Some(t));
                        }
                    }
                }
            }
            for v in self.operands(j) {
                if !inside(self.def_pos[v.index()]) {
                    if self.func.value_type(v).contains_ref() {
                        return None;
                    }
                    reads.push(v);
                }
            }
        }
        if !matches!(self.stmts[r + p - 1], Stmt::Term(_)) {
            exits.insert(None);
        }
        (exits.len() <= 1).then_some(reads)
    }

    /// Whether the statement at `pos` belongs to the region of the window at `r` (a value
    /// defined there is then not an input).
    /// The parameters of a block the window starts at are bound by the jumps from outside:
    /// inputs too.
    fn inside(&self, pos: u32, r: usize, p: usize) -> bool {
        let pos = pos as usize;
        pos != NONE as usize
            && (r..r + p).contains(&pos)
            && !self.hoisted[pos]
            && !(pos == r && matches!(self.stmts[pos], Stmt::Params(_)))
    }

    /// Whether every predecessor of `b` ends inside the window at `r`.
    fn entered_only_from(&self, b: BlockId, r: usize, p: usize) -> bool {
        self.preds
            .get(&b)
            .is_none_or(|terms| terms.iter().all(|t| (r..r + p).contains(t)))
    }

    /// Whether the window at `x` does what the window at `r` does (`None` at the first
    /// difference): the same statements, each operand defined inside at the same offset or
    /// read from outside in both.
    fn agree(&self, r: usize, x: usize, p: usize) -> Option<()> {
        let func = self.func;
        let offset = |v: ValueId, start: usize| -> Option<(usize, u32)> {
            let pos = self.def_pos[v.index()];
            if !self.inside(pos, start, p) {
                return None;
            }
            let index = match func.value(v).def {
                ValueDef::Param(_, k) | ValueDef::Result(_, k) => k,
                ValueDef::Const(_) => 0,
            };
            Some((pos as usize - start, index))
        };
        let same = |a: ValueId, b: ValueId| offset(a, r) == offset(b, x);
        for k in 0..p {
            match (self.hoisted[r + k], self.hoisted[x + k]) {
                (true, true) => continue,
                (false, false) => {}
                _ => return None,
            }
            let (sr, sx) = (self.stmts[r + k], self.stmts[x + k]);
            match (sr, sx) {
                (Stmt::Params(a), Stmt::Params(b)) => {
                    let (pa, pb) = (&func.block(a).params, &func.block(b).params);
                    if pa.len() != pb.len()
                        || pa
                            .iter()
                            .zip(pb)
                            .any(|(u, v)| func.value_type(*u) != func.value_type(*v))
                    {
                        return None;
                    }
                }
                (Stmt::Inst(a), Stmt::Inst(b)) => {
                    let (ia, ib) = (func.inst(a), func.inst(b));
                    if shape(&ia.kind) != shape(&ib.kind)
                        || ia.results.len() != ib.results.len()
                        || ia
                            .results
                            .iter()
                            .zip(ib.results.iter())
                            .any(|(u, v)| func.value_type(*u) != func.value_type(*v))
                    {
                        return None;
                    }
                }
                (Stmt::Term(a), Stmt::Term(b)) => {
                    let (ta, tb) = (func.block(a).term.as_ref()?, func.block(b).term.as_ref()?);
                    if std::mem::discriminant(ta) != std::mem::discriminant(tb) {
                        return None;
                    }
                    for (u, v) in ta.successors().into_iter().zip(tb.successors()) {
                        let (pu, pv) = (self.block_pos[&u], self.block_pos[&v]);
                        let (iu, iv) = ((r..r + p).contains(&pu), (x..x + p).contains(&pv));
                        if iu != iv || (iu && pu - r != pv - x) {
                            return None;
                        }
                    }
                }
                _ => return None,
            }
            let (oa, ob) = (self.operands(r + k), self.operands(x + k));
            if oa.len() != ob.len() || !oa.iter().zip(&ob).all(|(a, b)| same(*a, *b)) {
                return None;
            }
        }
        Some(())
    }

    /// The repeat of a kept group, with its outputs.
    fn repeat(&self, g: &Group) -> Repeat {
        let p = g.len;
        let copies: Vec<Vec<Stmt>> = g
            .starts
            .iter()
            .map(|&s| {
                (s..s + p)
                    .filter(|&j| !self.hoisted[j])
                    .map(|j| self.stmts[j])
                    .collect()
            })
            .collect();
        // An output: (offset, index) of a value some copy defines and something outside reads.
        let mut offsets = BTreeSet::new();
        for &s in &g.starts {
            for k in (0..p).filter(|&k| self.inside((s + k) as u32, s, p)) {
                for (index, v) in self.defined(s + k).into_iter().enumerate() {
                    let (first, last) = self.use_span[v.index()];
                    if first != NONE && ((first as usize) < s || last as usize >= s + p) {
                        offsets.insert((k, index));
                    }
                }
            }
        }
        let outputs = offsets
            .into_iter()
            .map(|(k, index)| {
                g.starts
                    .iter()
                    .map(|&s| self.defined(s + k)[index])
                    .collect()
            })
            .collect();
        Repeat {
            copies,
            inputs: g.inputs.clone(),
            outputs,
            reads: g.reads.clone(),
        }
    }

    /// The values statement `j` defines, in order.
    fn defined(&self, j: usize) -> Vec<ValueId> {
        match self.stmts[j] {
            Stmt::Params(b) => self.func.block(b).params.clone(),
            Stmt::Inst(i) => self.func.inst(i).results.to_vec(),
            Stmt::Term(_) => Vec::new(),
        }
    }
}

/// An instruction's kind without its operands: what two copies of it share.
fn shape(kind: &InstKind) -> InstKind {
    let mut k = kind.clone();
    k.map_operands(|_| ValueId(0));
    k
}

/// Statements no cut separates from a region: memory and output (a statement reading or
/// defining a reference is refused by its types).
fn impure(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Load { .. }
            | InstKind::Store { .. }
            | InstKind::Allocate { .. }
            | InstKind::Log { .. }
    )
}
