//! zkbc: a zero-knowledge circuit compilation backend.
//!
//! ```text
//!  .zok source ──front──▶ AST ──typeck──▶ typed AST ──lower──▶ IR (allocate/load/store, CFG)
//!       IR ──opt pipeline──▶ inline · mem2reg · sccp · dce · simplify-cfg · merge ──▶ optimized IR
//!       optimized IR ──r1cs::lower (one instance per block, rayon-parallel)──▶ BlockR1cs[]
//!       IR + inputs ──interp──▶ outputs + block trace ──witness──▶ per-block assignments, checked
//!       BlockR1cs[] + trace ──report──▶ sizes, padding waste, sumcheck cells
//!       block instances + executions ──prove──▶ per-block sumcheck proofs ──verify
//!       block instances + executions ──export──▶ iden3 .r1cs / .wtns (snarkjs)
//! ```
//!
//! See `ARCHITECTURE.md` for the code map and each module's invariants.
#![warn(missing_docs)]

pub mod analysis;
pub mod cost;
pub mod diagnostics;
pub mod driver;
pub mod export;
pub mod field;
pub mod front;
pub mod fxhash;
pub mod ir;
pub mod opt;
pub mod padding;
pub mod prove;
pub mod query;
pub mod r1cs;
pub mod report;
pub mod timing;
