//! The `strength` pass: integer operations by a constant power of two become the cheaper ones
//! they are equal to. In R1CS a `uN` division or remainder costs `3N + 1` constraints, where a
//! shift or a mask costs at most the `N` bits of the operand (shared by every use of them).
//!
//! # Algorithm
//!
//! For every `uN` instruction whose right operand is the constant `2^k`:
//!
//! 1. `udiv x, 2^k` becomes `shr x, k` (for `k = 0`: `x` itself);
//! 2. `urem x, 2^k` becomes `and x, 2^k − 1`;
//! 3. `mul x, 2^k` becomes `shl x, k` (it keeps the `nuw` flag: the value is the same).
//!
//! Each is the same function on every `uN` value (the division by a nonzero constant cannot
//! fail), so the rewrite needs no condition.
//!
//! ```text
//! v2 = urem v0, u64 2          v2 = and v0, u64 1
//! v3 = udiv v0, u64 2    ==>   v3 = shr v0, u64 1
//! ```

use crate::fxhash::HashMap;

use super::PassStats;
use crate::ir::{BinOp, Const, Function, InstKind, Program, ValueId};

/// Runs the pass on every function.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, run_function)
}

/// Runs the pass on one function.
pub fn run_function(func: &mut Function) -> PassStats {
    let mut stats = PassStats::default();
    let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
    for b in func.layout.clone() {
        for i in func.block(b).insts.clone() {
            let InstKind::Binary { op, lhs, rhs } = func.inst(i).kind else {
                continue;
            };
            let Some(w) = func.value_type(lhs).uint_width() else {
                continue;
            };
            let Some(Const::UInt(c)) = func.const_value(rhs) else {
                continue;
            };
            if c == 0 || !c.is_power_of_two() || w == 1 {
                continue;
            }
            let k = u64::from(c.trailing_zeros());
            let kind = match op {
                BinOp::UDiv if k == 0 => {
                    subst.insert(func.inst(i).results[0], lhs);
                    stats.add("divisions_by_one", 1);
                    continue;
                }
                BinOp::UDiv => InstKind::Binary {
                    op: BinOp::Shr,
                    lhs,
                    rhs: func.const_uint(w, k),
                },
                BinOp::URem => InstKind::Binary {
                    op: BinOp::And,
                    lhs,
                    rhs: func.const_uint(w, c - 1),
                },
                BinOp::Mul if k > 0 => InstKind::Binary {
                    op: BinOp::Shl,
                    lhs,
                    rhs: func.const_uint(w, k),
                },
                _ => continue,
            };
            func.inst_mut(i).kind = kind;
            stats.add("strength_reduced", 1);
        }
    }
    if !subst.is_empty() {
        func.replace_uses(&subst);
    }
    stats
}
