//! The data-parallel prover's padding rule, in one place: a block of `cons_b` constraints run
//! `exec_b` times is proved as a table of `Q_b · X_b` cells with `X_b = max(2, next_pow2(cons_b))`
//! (at least one sumcheck variable) and `Q_b = next_pow2(exec_b)` (0 for a block that never
//! ran). The cost model (`cost`), the report and the prover (`prove`) all pad by these
//! functions, so the cells the report prices are the cells the prover builds.

/// The smallest power of two `>= n` (`next_pow2(0) = 1`), or `None` when it exceeds `u64`.
pub fn next_pow2(n: u64) -> Option<u64> {
    n.checked_next_power_of_two()
}

/// `X_b = max(2, next_pow2(cons_b))`, or `None` when `cons_b > 2^63`.
pub fn padded_constraints(constraints: u64) -> Option<u64> {
    next_pow2(constraints).map(|x| x.max(2))
}

/// `Q_b = next_pow2(exec_b)`, 0 when `exec_b = 0`, or `None` when `exec_b > 2^63`.
pub fn padded_executions(executions: u64) -> Option<u64> {
    if executions == 0 {
        Some(0)
    } else {
        next_pow2(executions)
    }
}
