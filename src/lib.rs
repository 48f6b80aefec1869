//! zkbc: a zero-knowledge circuit compilation backend.
//!
//! ```text
//!  .zok source ──front──▶ AST ──typeck──▶ typed AST ──lower──▶ IR (allocate/load/store, CFG)
//!       IR ──opt pipeline──▶ inline · mem2reg · sccp · dce · simplify-cfg · merge ──▶ optimized IR
//!       optimized IR ──r1cs::lower (one instance per block, rayon-parallel)──▶ BlockR1cs[]
//!       IR + inputs ──interp──▶ outputs + block trace ──witness──▶ per-block assignments, checked
//!       BlockR1cs[] + trace ──report──▶ sizes, padding waste, sumcheck cells
//! ```
//!
//! See `ARCHITECTURE.md` for the code map and each module's invariants.
#![warn(missing_docs)]

pub mod analysis;
pub mod field;
pub mod ir;
pub mod r1cs;
