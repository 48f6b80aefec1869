//! One hint for the arms that need the same one: two `hint`s of a block with the same function
//! and arguments under different guards become one under the union of the guards, when each
//! one's results are *confined* to its guard (issue 34, item 4). Then the code the two arms
//! build on the hint's results is the same computation of the same values, and the numbering of
//! [`super`] keeps one copy of it.
//!
//! # Why it is sound
//!
//! `h1 = hint f(x) if g1` gives `f(x)` when `g1` is 1 and zeros when it is 0. Under the guard
//! `g1 or g2` it gives the same when `g1` is 1 and may give `f(x)` instead of zeros when `g1` is
//! 0. So the rewrite changes nothing a run shows (its outputs, its failures, what it logs) if
//! nothing a run shows depends on `h1`'s results when `g1` is 0. That is not true of IR in
//! general (a hint's zeros may be returned: `tests/opt_random.rs` at seed 13000296 returns them,
//! and simply dropping the guard failed there). It is true of the predicated arms of a merged
//! `if` (`merge::emit`): there every observation of an arm's value is gated by the arm's guard:
//! an assertion is `assert (not g) or c`, a failing operand is `select g, v, 1`, a hint is
//! `hint .. if g`, and the arm's values reach the join only through `select c, then, else`.
//!
//! The check proves it on the IR at hand, without trusting where the code came from. Call a
//! value *derived* when it may differ between the run before the rewrite and the run after;
//! for each derived value `w` the check keeps a set `L(w)` of literals (a `u1` value that is 1,
//! or 0) such that `w` differs only where one of them fails. The hint's results start with the
//! literals of its guard (`g1 = and c, (not d)` gives `{c, not d}`: the guard is their
//! conjunction); a value with an empty set never differs. Walking the rest of the block in
//! order, an instruction with a derived operand gives its results the union of its derived
//! operands' sets, except where an operand it reads is chosen away by a value that is not
//! derived:
//!
//! - `select s, a, b`: `a`'s literals minus those of `s`, `b`'s minus those of `not s` (`a` is
//!   read only where `s` holds);
//! - `and s, a` and `or s, a` of `u1`s: `a`'s literals minus those of `s`, of `not s`;
//! - `hint f(a) if s`: `a`'s literals minus those of `s` (with `s` 0 the results are zeros).
//!
//! A derived value observed is a failure of the check: an operand of `assert`, `log`, `store`,
//! `call`, of an operation that can fail by it (a divisor, an index, a narrowing `cast`,
//! `bound`) or of one marked `nuw`, a terminator's operand, or any use in another block. When
//! both hints pass, the results of neither are observed where its own guard fails, so one hint
//! under `g1 or g2` serves both.
//!
//! ```text
//! b0(v0: field, v1: u1):                   b0(v0: field, v1: u1):
//!     v2 = not v1                              v2 = not v1
//!     v3 = hint f1(v0) if v1                   v13 = or v1, v2
//!     v4 = mul v3, v3                          v3 = hint f1(v0) if v13
//!     v5 = eq v4, v0                           v4 = mul v3, v3
//!     v6 = or v2, v5                           v5 = eq v4, v0
//!     assert v6                                v6 = or v2, v5
//!     v7 = hint f1(v0) if v2         ==>       assert v6
//!     v8 = mul v7, v7                          v10 = or v1, v5
//!     v9 = eq v8, v0                           assert v10
//!     v10 = or v1, v9                          v11 = add v3, field 1
//!     assert v10                               v12 = select v1, v11, v3
//!     v11 = add v3, field 1                    return v12
//!     v12 = select v1, v11, v7
//!     return v12
//! ```
//! (`v3` starts with `{v1}`, and so do `v4`, `v5` and `v11`; `or v2, v5` reads `v5` only where
//! `v2 = not v1` fails, and `select v1, v11, v7` reads `v11` only where `v1` holds: both give
//! `{}`. `v7` starts with `{not v1}` and ends the same way. The walk that follows numbers `v8`
//! and `v9` as `v4` and `v5`.) Were `v3` also returned as it is, its set would reach the
//! terminator and the two hints would stay two.
//!
//! # Why not hoist the call
//!
//! Computing the call once before the branch would be simpler, but it is not sound where the
//! callee can fail and the call is not on every path. zkbc's failures are path-sensitive: the
//! untaken side of an `if` never runs, so its assertions do not hold it (ZoKrates 0.8 enforces
//! both sides' assertions unless compiled with `--isolate-branches`). The sealed-bid opening's
//! `checkHashValue` unpacks `value` to 128 bits, which fails when `value >= 2^128`; a run with
//! such a value, `revealValue != 0` and `value != revealValue` returns 0 without calling it, and
//! would fail with the call hoisted. Sharing after predication keeps each arm's assertions
//! under its own guard, so every run fails or not exactly as before.
//!
//! The kept hint is the earlier one, and the union is computed just before it: where the later
//! one's guard is computed after it (the arms of the sealed-bid opening come in the order
//! `else`, `then`, and the `then` arm's inner guard reads its own comparison), the few `not`s,
//! `and`s and comparisons that compute it are copied there first, which shows nothing (none can
//! fail); the walk then numbers the originals as the copies. A hint already widened has a guard
//! that is a disjunction, whose literal is the disjunction itself, which no arm's `select`
//! chooses by: a third arm does not share it.

use crate::fxhash::{FxMap, FxSet};
use crate::ir::{BinOp, BlockId, Const, Function, InstId, InstKind, Type, ValueDef, ValueId};

/// Most pairs of hints checked in one call (each check walks the rest of a block).
const MAX_CHECKS: usize = 256;

/// The most `not`/`and`/`or` nodes of a guard taken apart into literals.
const MAX_LITERAL_NODES: usize = 64;

/// A literal: a `u1` value that is 1 (`true`) or 0 (`false`).
type Lit = (ValueId, bool);

/// Shares hints as the module doc says; returns how many hints were removed.
pub(super) fn share(func: &mut Function) -> usize {
    // Most functions have no guarded hints (only merging guards them): nothing to walk.
    let blocks: Vec<BlockId> = func
        .layout
        .iter()
        .copied()
        .filter(|&b| {
            let guarded = func.block(b).insts.iter().filter(|&&i| {
                matches!(&func.inst(i).kind, InstKind::Hint { ret, guard: Some(_), .. } if !ret.is_empty())
            });
            guarded.take(2).count() == 2
        })
        .collect();
    if blocks.is_empty() {
        return 0;
    }
    let escaping = escaping(func);
    let mut shared = 0;
    let mut checks = 0;
    for b in blocks {
        while checks < MAX_CHECKS {
            let pairs = find_pairs(func, b, &escaping, &mut checks);
            if pairs.is_empty() {
                break;
            }
            shared += pairs.len();
            rewrite(func, b, &pairs);
        }
    }
    shared
}

/// The values used by a terminator or by an instruction of another block than their own.
fn escaping(func: &Function) -> FxSet<ValueId> {
    let mut def_block: Vec<Option<BlockId>> = vec![None; func.insts.len()];
    for &b in &func.layout {
        for &i in &func.block(b).insts {
            def_block[i.index()] = Some(b);
        }
    }
    let mut out = FxSet::default();
    for &b in &func.layout {
        let block = func.block(b);
        for &i in &block.insts {
            func.inst(i).kind.for_each_operand(|v| {
                if let ValueDef::Result(d, _) = func.value(v).def {
                    if def_block[d.index()] != Some(b) {
                        out.insert(v);
                    }
                }
            });
        }
        if let Some(term) = &block.term {
            out.extend(term.operands());
        }
    }
    out
}

/// Pairs of hints of block `b` that may be shared, `(kept, removed)`: every candidate pair if
/// one check passes for all of them at once (the sealed-bid opening's 128 unpacked bits), else
/// the first pair that passes alone, else none.
fn find_pairs(
    func: &Function,
    b: BlockId,
    escaping: &FxSet<ValueId>,
    checks: &mut usize,
) -> Vec<Pair> {
    let insts = &func.block(b).insts;
    // Guarded hints with results by what they compute but for the guard, in block order.
    let mut groups: FxMap<InstKind, Vec<usize>> = FxMap::default();
    let mut reps = FxMap::default();
    let mut order = Vec::new();
    for (pos, &i) in insts.iter().enumerate() {
        let data = func.inst(i);
        let InstKind::Hint {
            ret,
            guard: Some(_),
            ..
        } = &data.kind
        else {
            continue;
        };
        if ret.is_empty() {
            continue;
        }
        let key = without_guard(func, &mut reps, &data.kind);
        let group = groups.entry(key).or_default();
        if group.is_empty() {
            order.push(pos);
        }
        group.push(pos);
    }
    let guard_of = |pos: usize| match func.inst(insts[pos]).kind {
        InstKind::Hint { guard, .. } => guard.expect("bug: only guarded hints are grouped"),
        _ => unreachable!("bug: only hints are grouped"),
    };
    let position: FxMap<InstId, usize> = insts.iter().enumerate().map(|(p, i)| (*i, p)).collect();
    // The first hint of each group with the next one under another guard, and the instructions
    // that compute that guard after the first (copied before it with the union).
    let mut candidates: Vec<Candidate> = Vec::new();
    for first in order {
        let group = &groups[&without_guard(func, &mut reps, &func.inst(insts[first]).kind)];
        let (p1, g1) = (group[0], guard_of(group[0]));
        for &p2 in &group[1..] {
            let g2 = guard_of(p2);
            if g2 == g1 {
                continue;
            }
            if let Some(slice) = slice_after(func, insts, &position, p1, g2) {
                candidates.push(Candidate {
                    first: (p1, g1),
                    second: (p2, g2),
                    slice,
                });
                break;
            }
        }
    }
    let pair = |c: &Candidate| Pair {
        keep: insts[c.first.0],
        remove: insts[c.second.0],
        slice: c.slice.iter().map(|&p| insts[p]).collect(),
    };
    if candidates.len() > 1 && *checks < MAX_CHECKS {
        *checks += 1;
        let seeds: Vec<(usize, ValueId)> = candidates
            .iter()
            .flat_map(|c| [c.first, c.second])
            .collect();
        if confined(func, insts, &seeds, escaping) {
            return candidates.iter().map(pair).collect();
        }
    }
    for c in &candidates {
        if *checks >= MAX_CHECKS {
            break;
        }
        *checks += 1;
        if confined(func, insts, &[c.first, c.second], escaping) {
            return vec![pair(c)];
        }
    }
    Vec::new()
}

/// A hint's instruction without its guard, its constant arguments by their first value of each
/// type and value in `reps`: what two hints that may be shared have in common.
fn without_guard(
    func: &Function,
    reps: &mut FxMap<(Type, Const), ValueId>,
    kind: &InstKind,
) -> InstKind {
    let mut key = kind.clone();
    if let InstKind::Hint { guard, .. } = &mut key {
        *guard = None;
    }
    key.map_operands(|v| match func.const_value(v) {
        Some(c) => *reps.entry((func.value_type(v).clone(), c)).or_insert(v),
        None => v,
    });
    key
}

/// Two hints to share, by position in their block.
struct Candidate {
    /// The kept hint and its guard.
    first: (usize, ValueId),
    /// The removed hint and its guard.
    second: (usize, ValueId),
    /// The positions, in order, of the instructions after `first` that compute `second`'s guard.
    slice: Vec<usize>,
}

/// Two hints to share.
struct Pair {
    keep: InstId,
    remove: InstId,
    /// The instructions, in order, to copy before `keep` so that the removed hint's guard is
    /// defined there.
    slice: Vec<InstId>,
}

/// The most instructions copied to compute a guard earlier.
const MAX_SLICE: usize = 32;

/// The positions, in order, of the instructions at or after `p1` in `insts` that compute `g`:
/// empty when `g` is defined before `p1`; `None` unless each is a `not`, `select` or binary
/// operation that cannot fail nor carries `nuw` (copying it earlier shows nothing), at most
/// [`MAX_SLICE`] of them.
fn slice_after(
    func: &Function,
    insts: &[InstId],
    position: &FxMap<InstId, usize>,
    p1: usize,
    g: ValueId,
) -> Option<Vec<usize>> {
    let mut slice = Vec::new();
    let mut stack = vec![g];
    let mut seen = FxSet::default();
    while let Some(v) = stack.pop() {
        let ValueDef::Result(d, _) = func.value(v).def else {
            continue;
        };
        let Some(&p) = position.get(&d) else {
            continue; // defined in another block, which dominates this one
        };
        if p < p1 || !seen.insert(p) {
            continue;
        }
        let data = func.inst(insts[p]);
        let copyable = match &data.kind {
            InstKind::Not { .. } | InstKind::Select { .. } => true,
            InstKind::Binary { op, .. } => !op.can_fail(),
            _ => false,
        };
        if !copyable || data.no_wrap() || slice.len() == MAX_SLICE {
            return None;
        }
        slice.push(p);
        data.kind.for_each_operand(|o| stack.push(o));
    }
    slice.sort_unstable();
    Some(slice)
}

/// For each pair: copies its slice and puts `g1 or g2` before the kept hint as its guard,
/// replaces the removed hint's results by the kept one's in block `b` (the only place they are
/// used: [`confined`] checked it) and removes the removed hint.
fn rewrite(func: &mut Function, b: BlockId, pairs: &[Pair]) {
    let guard_of = |func: &Function, i: InstId| match func.inst(i).kind {
        InstKind::Hint { guard, .. } => guard.expect("bug: a shared hint has a guard"),
        _ => unreachable!("bug: only hints are shared"),
    };
    let mut subst: FxMap<ValueId, ValueId> = FxMap::default();
    let mut before: FxMap<InstId, Vec<InstId>> = FxMap::default();
    let mut removed: FxSet<InstId> = FxSet::default();
    for pair in pairs {
        let (g1, g2) = (guard_of(func, pair.keep), guard_of(func, pair.remove));
        let loc = func.inst(pair.keep).loc();
        let mut copies = Vec::new();
        let mut renamed: FxMap<ValueId, ValueId> = FxMap::default();
        for &i in &pair.slice {
            let mut kind = func.inst(i).kind.clone();
            kind.map_operands(|v| renamed.get(&v).copied().unwrap_or(v));
            let copy = func.create_inst(kind, &[], func.inst(i).loc());
            renamed.insert(func.inst(i).results[0], func.inst(copy).results[0]);
            copies.push(copy);
        }
        let g2 = renamed.get(&g2).copied().unwrap_or(g2);
        let union = func.create_inst(
            InstKind::Binary {
                op: BinOp::Or,
                lhs: g1,
                rhs: g2,
            },
            &[],
            loc,
        );
        copies.push(union);
        let g = func.inst(union).results[0];
        if let InstKind::Hint { guard, .. } = &mut func.inst_mut(pair.keep).kind {
            *guard = Some(g);
        }
        let results = func.inst(pair.remove).results.iter().copied();
        subst.extend(results.zip(func.inst(pair.keep).results.iter().copied()));
        before.insert(pair.keep, copies);
        removed.insert(pair.remove);
    }
    let old = std::mem::take(&mut func.block_mut(b).insts);
    let mut insts = Vec::with_capacity(old.len() + pairs.len());
    for i in old {
        if removed.contains(&i) {
            continue;
        }
        if let Some(copies) = before.get(&i) {
            insts.extend(copies);
        }
        func.inst_mut(i)
            .kind
            .map_operands(|v| subst.get(&v).copied().unwrap_or(v));
        insts.push(i);
    }
    func.block_mut(b).insts = insts;
}

/// Whether nothing a run shows depends on the results of the hints at `hints` (positions in
/// `insts`, in order, with their guards) where their guards fail: the module doc's check, with
/// both hints' results derived at once (a value may read both).
fn confined(
    func: &Function,
    insts: &[InstId],
    hints: &[(usize, ValueId)],
    escaping: &FxSet<ValueId>,
) -> bool {
    let mut derived: FxMap<ValueId, Vec<Lit>> = FxMap::default();
    let mut seeds = FxMap::default();
    for &(pos, guard) in hints {
        match literals(func, guard, true) {
            Some(lits) if !lits.is_empty() => seeds.insert(pos, lits),
            _ => return false,
        };
    }
    let first = hints
        .iter()
        .map(|h| h.0)
        .min()
        .expect("bug: no hints to check");
    for (pos, &i) in insts.iter().enumerate().skip(first) {
        let data = func.inst(i);
        let mut reads_derived = false;
        data.kind
            .for_each_operand(|v| reads_derived |= derived.contains_key(&v));
        if let Some(lits) = seeds.remove(&pos) {
            // A hint whose arguments or guard another one's results reach: not taken apart.
            if reads_derived {
                return false;
            }
            for &r in &data.results {
                derived.insert(r, lits.clone());
            }
            continue;
        }
        if !reads_derived {
            continue;
        }
        if data.no_wrap() {
            return false;
        }
        let Some(lits) = transfer(func, &data.kind, &derived) else {
            return false;
        };
        if !lits.is_empty() {
            for &r in &data.results {
                derived.insert(r, lits.clone());
            }
        }
    }
    derived.keys().all(|v| !escaping.contains(v))
}

/// The literals of the results of instruction `kind`, some of whose operands are derived;
/// `None` when it observes a derived operand.
fn transfer(
    func: &Function,
    kind: &InstKind,
    derived: &FxMap<ValueId, Vec<Lit>>,
) -> Option<Vec<Lit>> {
    let of = |v: ValueId| derived.get(&v);
    // The literals of `s` (or of `not s`) when neither `s` nor any of them is derived: where
    // they fail, the operand `s` chooses is not read.
    let chooser = |s: ValueId, polarity: bool| -> Vec<Lit> {
        match literals(func, s, polarity) {
            Some(lits) if !lits.iter().any(|(v, _)| derived.contains_key(v)) => lits,
            _ => Vec::new(),
        }
    };
    let mut out: Vec<Lit> = Vec::new();
    let mut add = |lits: Option<&Vec<Lit>>, minus: &[Lit]| {
        for l in lits.into_iter().flatten() {
            if !minus.contains(l) && !out.contains(l) {
                out.push(*l);
            }
        }
    };
    match kind {
        InstKind::Assert { .. }
        | InstKind::Log { .. }
        | InstKind::Store { .. }
        | InstKind::Load { .. }
        | InstKind::Allocate { .. }
        | InstKind::Call { .. }
        | InstKind::Bound { .. } => return None,
        InstKind::Cast { arg, to } => {
            let can_fail = match (func.value_type(*arg), to) {
                (_, Type::Field) => false,
                (Type::UInt(a), Type::UInt(b)) => a > b,
                _ => true,
            };
            if can_fail {
                return None;
            }
            add(of(*arg), &[]);
        }
        InstKind::Binary { op, rhs, .. } if op.can_fail() && of(*rhs).is_some() => return None,
        InstKind::ArrayGet { index, .. } | InstKind::ArraySet { index, .. }
            if of(*index).is_some() =>
        {
            return None
        }
        InstKind::Select {
            cond,
            then_value,
            else_value,
        } => {
            if of(*cond).is_some() {
                add(of(*cond), &[]);
                add(of(*then_value), &[]);
                add(of(*else_value), &[]);
            } else {
                add(of(*then_value), &chooser(*cond, true));
                add(of(*else_value), &chooser(*cond, false));
            }
        }
        InstKind::Binary {
            op: op @ (BinOp::And | BinOp::Or),
            lhs,
            rhs,
        } if *func.value_type(*lhs) == Type::UInt(1)
            && (of(*lhs).is_none() || of(*rhs).is_none()) =>
        {
            // `and s, a` reads `a` only where `s` holds; `or s, a` only where it fails.
            let polarity = *op == BinOp::And;
            let (s, a) = if of(*lhs).is_none() {
                (*lhs, *rhs)
            } else {
                (*rhs, *lhs)
            };
            add(of(a), &chooser(s, polarity));
        }
        InstKind::Hint {
            args,
            guard: Some(g),
            ..
        } if of(*g).is_none() => {
            let minus = chooser(*g, true);
            for a in args.iter() {
                add(of(*a), &minus);
            }
        }
        _ => kind.for_each_operand(|v| add(of(v), &[])),
    }
    Some(out)
}

/// The literals whose conjunction is `v` (`polarity` true) or `not v` (false), by taking apart
/// `not`, `and` and `or` of `u1`s (`not (a or b)` is `not a` and `not b`); a literal that is a
/// constant that holds is left out. `None` if `v` is not a `u1` or is too large to take apart.
fn literals(func: &Function, v: ValueId, polarity: bool) -> Option<Vec<Lit>> {
    if *func.value_type(v) != Type::UInt(1) {
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![(v, polarity)];
    let mut nodes = 0;
    while let Some((v, polarity)) = stack.pop() {
        nodes += 1;
        if nodes > MAX_LITERAL_NODES {
            return None;
        }
        match func.value(v).def {
            ValueDef::Const(_) if func.const_value(v) == Some(Const::UInt(u64::from(polarity))) => {
                continue;
            }
            ValueDef::Result(i, 0) => match func.inst(i).kind {
                InstKind::Not { arg } => {
                    stack.push((arg, !polarity));
                    continue;
                }
                InstKind::Binary { op, lhs, rhs }
                    if (op == BinOp::And && polarity) || (op == BinOp::Or && !polarity) =>
                {
                    stack.push((lhs, polarity));
                    stack.push((rhs, polarity));
                    continue;
                }
                _ => {}
            },
            _ => {}
        }
        if !out.contains(&(v, polarity)) {
            out.push((v, polarity));
        }
    }
    Some(out)
}
