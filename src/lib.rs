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
//! # The front door
//!
//! [`compile`] turns a source (`.zok`, or IR text) into optimized IR under [`Options`];
//! [`measure`] compiles, lowers every block to R1CS, runs the program on its inputs, checks
//! every executed block's instance and prices the run as a [`cost::Report`] (what `zkbc report`
//! prints). Every setting is a value passed in: the library reads no environment variable, and
//! no process-wide state changes what it computes (`timing` only observes).
//!
//! ```
//! use zkbc::{compile, measure, MeasureSettings, Options};
//!
//! let source = "\
//! def main(u32 n, field x) -> field {
//!     field mut acc = x;
//!     for u32 i in 0..n {
//!         acc = acc * acc + x;
//!     }
//!     return acc;
//! }
//! ";
//! // Source to optimized block IR.
//! let compiled = compile("square.zok", source, &Options::default())?;
//! assert!(!compiled.program.main_func().layout.is_empty());
//!
//! // Lowered, run on the inputs, every executed block checked, priced.
//! let inputs = serde_json::json!({ "n": "3", "x": "2" });
//! let settings = MeasureSettings::default();
//! let measured = measure("square.zok", source, Some(&inputs), &settings, &|_| {})?;
//! let report = &measured.report;
//! assert_eq!(report.satisfied, Some(true));
//! // ((2² + 2)² + 2)² + 2 = 1446
//! assert_eq!(report.outputs, Some(serde_json::json!(["1446"])));
//! let cells = report.totals.sumcheck_cells.expect("a run knows its executions");
//! assert!(cells >= report.totals.executed_constraints.expect("a run counts them"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `examples/compile_and_check.rs` does the same from a file. The stages are public modules,
//! one layer each (ARCHITECTURE.md): a pass author works with [`ir`] (`Program`, `Function`,
//! `InstKind`, `FunctionBuilder`, `interp`, `verify`) and [`opt`] (`optimize`, `Pipeline`,
//! `PASSES`); lowering and checking are [`r1cs`] (`stats_opts`, `lower_function_opts`,
//! `check_trace_opts`, with `r1cs::LowerOptions`); proving is [`prove`] (`prove`, `verify`,
//! `groth16`, `spartan`, fed by `driver::proof`); exporting is [`export`] (fed by
//! `driver::export`).
#![warn(missing_docs)]

pub mod analysis;
pub mod cost;
mod diagnostics;
pub mod driver;
pub mod export;
pub mod field;
pub mod front;
pub mod fxhash;
pub mod ir;
pub mod opt;
mod padding;
pub mod prove;
pub mod query;
pub mod r1cs;
pub mod report;
pub mod timing;

pub use driver::{compile, Compilation, Options};
pub use report::measure::{measure, Measurement, Settings as MeasureSettings};
