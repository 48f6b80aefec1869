//! The `ranges` pass: uses the value ranges of [`crate::analysis::ranges`] to make integer
//! arithmetic and comparisons cheaper to prove.
//!
//! # Algorithm
//!
//! Compute [`Ranges`] and [`KnownBits`] for the function; then for every instruction of a
//! reachable block `b`, with `a = at(b, lhs)` and `c = at(b, rhs)` (intervals refined by the
//! conditions dominating `b`, and met with `[one, !zero]` of the operand's known bits):
//!
//! 1. **No wrap.** A `uN` `add` with `a.hi + c.hi < 2^N` or whose operands' known bits leave
//!    no position that may be 1 in both (a concatenation: no carry), `sub` with `a.lo ≥ c.hi`, `mul` with
//!    `a.hi · c.hi < 2^N`, `shl` by a constant `k` with `a.hi · 2^k < 2^N`, and a `cast` from
//!    `uM` to `uN` with `a.hi < 2^N` get the `nuw` flag: R1CS lowering then keeps the exact
//!    integer (no normalization, no range check).
//! 2. **Decided comparisons.** An `eq`, `lt` or `le` on `uN` whose interval is a single value is
//!    replaced by that constant, and so is one the known bits decide (a bit known 1 on one
//!    side and 0 on the other); SCCP then folds the branches it decides.
//! 3. **Comparisons as equalities.** `lt a, x` with `a ≤ x` always (`a.hi ≤ x.lo`) is
//!    `not (eq a, x)` — or `eq a, x` with the arms of the `br` that alone reads it swapped —
//!    and `le a, x` with `a ≥ x` always is `eq a, x`: an equality costs 2 constraints where a
//!    `uN` comparison costs N + 1. (Only for N ≥ 8; on `u1` both cost 1.)
//!
//! ```text
//! b1(v4: u32):                           b1(v4: u32):              v4 ∈ [0, 10000]
//!     v5 = lt v4, u32 10000                  v5 = eq v4, u32 10000
//!     br v5, b2(), b3()             ==>      br v5, b3(), b2()
//! b2():                                  b2():                     v4 ∈ [0, 9999]
//!     v11 = add v4, u32 1                    v11 = add nuw v4, u32 1
//!     jmp b1(v11)                            jmp b1(v11)
//! ```
//!
//! The flags are facts about the paths that reach the instruction, checked by the interpreter
//! on every run (`FailureKind::NoWrapViolated`); passes that predicate code clear them.

use crate::fxhash::HashMap;

use super::PassStats;
use crate::analysis::ranges::max_of;
use crate::analysis::{Interval, KnownBits, Ranges};
use crate::fxhash::FxMap;
use crate::ir::{
    BinOp, BlockId, Const, Function, InstId, InstKind, Program, Terminator, Type, ValueId,
};

/// Runs the pass on every function.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, run_function)
}

/// Runs the pass on one function.
pub fn run_function(func: &mut Function) -> PassStats {
    let mut stats = PassStats::default();
    let ranges = Ranges::new(func);
    let known = KnownBits::new(func);
    // No bit position can be 1 in both: the sum is the bits side by side, it cannot wrap.
    let no_carry = |l: ValueId, r: ValueId, w: u32| match (known.of(func, l), known.of(func, r)) {
        (Some(a), Some(c)) => a.maybe_one(w) & c.maybe_one(w) == 0,
        _ => false,
    };
    let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
    let mut rewrites: Vec<(BlockId, InstId, Rewrite)> = Vec::new();
    for &b in &func.layout {
        if !ranges.reaches(b) {
            continue;
        }
        for &i in &func.block(b).insts {
            let data = func.inst(i);
            // The interval at `b`, met with the range the known bits allow.
            let at = |v: ValueId| {
                let iv = ranges.at(func, b, v)?;
                let Some(w) = func.value_type(v).uint_width() else {
                    return Some(iv);
                };
                let Some(k) = known.of(func, v) else {
                    return Some(iv);
                };
                Some(iv.meet(Interval::new(k.min(), k.max(w))).unwrap_or(iv))
            };
            match &data.kind {
                InstKind::Binary { op, lhs, rhs } => {
                    let Some(w) = func.value_type(*lhs).uint_width() else {
                        continue;
                    };
                    let (Some(a), Some(c)) = (at(*lhs), at(*rhs)) else {
                        continue;
                    };
                    let m = u128::from(max_of(w));
                    let (alo, ahi, chi) = (u128::from(a.lo), u128::from(a.hi), u128::from(c.hi));
                    match op {
                        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl if !data.no_wrap() => {
                            let fits = match op {
                                BinOp::Add => ahi + chi <= m || no_carry(*lhs, *rhs, w),
                                BinOp::Sub => alo >= chi,
                                BinOp::Mul => ahi * chi <= m,
                                _ => c.hi < u64::from(w) && c.lo == c.hi && (ahi << chi) <= m,
                            };
                            if fits {
                                rewrites.push((b, i, Rewrite::NoWrap));
                            }
                        }
                        BinOp::Eq | BinOp::Lt | BinOp::Le => {
                            let by_bits = match (known.of(func, *lhs), known.of(func, *rhs)) {
                                (Some(ka), Some(kc)) => {
                                    crate::analysis::known_bits::binary(*op, ka, kc, w, w)
                                        .as_constant(1)
                                }
                                _ => None,
                            };
                            let decided = crate::analysis::ranges::binary(*op, a, c, w)
                                .and_then(|r| r.as_constant())
                                .or(by_bits);
                            if let Some(k) = decided {
                                rewrites.push((b, i, Rewrite::Constant(k == 1)));
                            } else if w >= 8 && *op == BinOp::Lt && a.hi <= c.lo {
                                rewrites.push((b, i, Rewrite::NotEqual(*lhs, *rhs)));
                            } else if w >= 8 && *op == BinOp::Le && a.lo >= c.hi {
                                rewrites.push((b, i, Rewrite::Equal(*lhs, *rhs)));
                            }
                        }
                        _ => {}
                    }
                }
                InstKind::Cast {
                    arg,
                    to: Type::UInt(n),
                } if !data.no_wrap()
                    && func.value_type(*arg).uint_width().is_some()
                    && at(*arg).is_some_and(|a| a.hi <= max_of(*n)) =>
                {
                    rewrites.push((b, i, Rewrite::NoWrap));
                }
                _ => {}
            }
        }
    }
    // How often each comparison rewritten to a negated equality is used (see `not_equal`),
    // counted once for all of them.
    let mut uses: FxMap<ValueId, usize> = rewrites
        .iter()
        .filter(|(_, _, rw)| matches!(rw, Rewrite::NotEqual(..)))
        .map(|&(_, i, _)| (func.inst(i).results[0], 0))
        .collect();
    if !uses.is_empty() {
        func.for_each_use(|v| {
            if let Some(n) = uses.get_mut(&v) {
                *n += 1;
            }
        });
    }
    for (b, i, rw) in rewrites {
        match rw {
            Rewrite::NoWrap => {
                func.inst_mut(i).set_no_wrap(true);
                stats.add("no_wrap_marked", 1);
            }
            Rewrite::Constant(k) => {
                let c = func.const_bool(k);
                let r = func.inst(i).results[0];
                subst.insert(r, c);
                stats.add("compares_decided", 1);
            }
            Rewrite::Equal(a, x) => {
                func.inst_mut(i).kind = InstKind::Binary {
                    op: BinOp::Eq,
                    lhs: a,
                    rhs: x,
                };
                stats.add("compares_to_equalities", 1);
            }
            Rewrite::NotEqual(a, x) => {
                let used_once = uses.get(&func.inst(i).results[0]) == Some(&1);
                not_equal_in(func, b, i, a, x, used_once);
                stats.add("compares_to_equalities", 1);
            }
        }
    }
    if !subst.is_empty() {
        func.replace_uses(&subst);
    }
    stats
}

/// Turns instruction `i` (a `u1` comparison) into `not (eq a, x)`, the `eq` placed just before;
/// or, when only its block's `br` reads it, into `eq a, x` with the branch's arms swapped (the
/// form the `counted-loop` pattern and static execution counts recognize).
pub(crate) fn not_equal(func: &mut Function, i: InstId, a: ValueId, x: ValueId) {
    let block = func
        .layout
        .iter()
        .copied()
        .find(|b| func.block(*b).insts.contains(&i))
        .expect("bug: rewriting an instruction outside the layout");
    let used_once = !used_twice(func, func.inst(i).results[0]);
    not_equal_in(func, block, i, a, x, used_once);
}

/// [`not_equal`] of `i` in `block`, whose result is used once (`used_once`) or more often.
fn not_equal_in(
    func: &mut Function,
    block: BlockId,
    i: InstId,
    a: ValueId,
    x: ValueId,
    used_once: bool,
) {
    let r = func.inst(i).results[0];
    let only_branch = matches!(&func.block(block).term, Some(Terminator::Br { cond, .. }) if *cond == r)
        && used_once;
    if only_branch {
        func.inst_mut(i).kind = InstKind::Binary {
            op: BinOp::Eq,
            lhs: a,
            rhs: x,
        };
        if let Some(Terminator::Br {
            then_dest,
            else_dest,
            ..
        }) = &mut func.block_mut(block).term
        {
            std::mem::swap(then_dest, else_dest);
        }
        return;
    }
    let eq = func.create_inst(
        InstKind::Binary {
            op: BinOp::Eq,
            lhs: a,
            rhs: x,
        },
        &[],
        func.inst(i).loc(),
    );
    let e = func.inst(eq).results[0];
    func.inst_mut(i).kind = InstKind::Not { arg: e };
    let insts = &mut func.block_mut(block).insts;
    let pos = insts.iter().position(|x| *x == i).expect("found above");
    insts.insert(pos, eq);
}

/// Whether `v` has two uses or more in the laid-out blocks (counted without a table of every
/// value's uses, and only up to the second: a merged block has millions of values).
fn used_twice(func: &Function, v: ValueId) -> bool {
    let mut n = 0;
    for &b in &func.layout {
        let block = func.block(b);
        for &i in &block.insts {
            func.inst(i)
                .kind
                .for_each_operand(|x| n += usize::from(x == v));
            if n >= 2 {
                return true;
            }
        }
        if let Some(term) = &block.term {
            n += term.operands().into_iter().filter(|x| *x == v).count();
            if n >= 2 {
                return true;
            }
        }
    }
    false
}

#[derive(Clone, Copy, Debug)]
enum Rewrite {
    NoWrap,
    Constant(bool),
    Equal(ValueId, ValueId),
    NotEqual(ValueId, ValueId),
}

/// Whether `v` is the constant `k` (of any integer type).
pub(crate) fn is_uint_const(func: &Function, v: ValueId, k: u64) -> bool {
    func.const_value(v) == Some(Const::UInt(k))
}
