//! zkbc's test fixtures, kept out of the library: only tests and benches use them (zkbc takes
//! this crate as a dev-dependency; nothing in `zkbc` imports it).
//!
//! - [`Rng`] ([`rng`]): the one seeded generator (SplitMix64) every fixture draws from, so a
//!   seed names the same case on every machine.
//! - [`testgen`]: random well-typed ZoKrates *source* programs with inputs, and a reference
//!   evaluator for them that shares nothing with the compiler.
//! - [`random_ir`]: random *IR* programs (memory, calls, loops, hints) with inputs, and
//!   [`random_ir::compare_runs`] to run a program against its optimized form.
//! - [`random_cfg`]: random control-flow graphs (arbitrary or structured) for the analyses.
//! - [`reference`](mod@reference): definition-level versions of the CFG analyses, to compare
//!   the fast ones against on [`random_cfg`]'s graphs.
//! - [`synthetic`]: satisfiable block instances of any size for the prover's tests and benches.
//!
//! The three generators draw different things (source trees, IR programs, bare CFGs) and
//! share only the [`Rng`].
#![warn(missing_docs)]

pub mod random_cfg;
pub mod random_ir;
pub mod reference;
pub mod rng;
pub mod synthetic;
pub mod testgen;

pub use rng::Rng;
