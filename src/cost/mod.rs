//! The cost model: what a data-parallel sumcheck prover (CoBBl / spartan_parallel) pays for a
//! program's blocks, from their constraint counts and how often each runs.
//!
//! - [`model`]: the formulas — padded sizes `X_b`, `Q_b`, sumcheck cells `Σ Q_b · X_b`,
//!   padding waste, rounds — from a [`ProgramCost`] (per-block counts) to a [`Report`].
//! - [`executions`]: execution counts from a run's trace, known statically, or estimated.
//! - [`calls`]: execution counts across calls (a function kept as blocks, once per call).
//! - `predict`: the cells a program would cost, lowered with [`crate::r1cs`] and counted
//!   with a profile run or static estimates — what cost-driven block formation decides by.
//!
//! The optimizer's merge pass and the report both use this module (`opt → cost → r1cs`,
//! `report → cost`), so the decision and the number the user reads come from one model.
//!
//! Architecture invariant: the cost model reads IR and counts; it never changes IR. It lowers
//! blocks only through [`crate::r1cs::stats`] and runs programs only through the interpreter.

pub mod calls;
pub mod executions;
pub mod model;
pub mod predict;

pub use executions::{
    block_label, estimated_executions, exact_trips, memory_size, memory_sizes, program_cost,
    static_executions, traced_executions, Executions,
};
pub use model::{
    memory_totals, memory_totals_split, next_pow2, padded_constraints, padded_executions,
    padded_state, read_only_totals, Baselines, BlockCost, BlockReport, CostError, MemorySizes,
    MemoryTotals, ProgramCost, Report, Totals, SCHEMA_VERSION,
};
/// `n` with a comma between each group of three digits: `1234567` is `1,234,567`.
pub fn group_digits(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

pub use predict::{
    block_cells, predict, prediction_of, set_predicted_runs, with_predicted_runs, BlockCounts,
    Counts, Prediction, Profile, RunCache,
};
