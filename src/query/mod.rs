//! Structure queries over the IR, after `../shared/seeds/ssa-structure-model.tex` (the design
//! notes folder beside the repository), section "Formulating Constraint Problems": structures
//! (SESE regions, counted loops, idioms) are described as
//! conjunctions of simple predicates over the entities of a function and found by a
//! constraint solver that enumerates every solution, as the CAnDL / IDL work does for LLVM.
//!
//! - [`pred`]: the entities (blocks, extended-CFG nodes, instructions, values, loops) and the
//!   predicates over them — the seed's `is_control_edge`, `is_control_dom`, ... and data flow,
//!   control dependence, loops.
//! - [`facts`]: the analyses a function is queried with.
//! - [`solver`]: queries (variables, predicates, negations, negated sub-queries) and the
//!   backtracking solver.
//! - `patterns`: the shipped queries (`sese`, `sese-canonical`, `natural-loop`,
//!   `counted-loop`, `dot-product`, `bits-round-trip`) and their text output, and `interface`,
//!   which lists what [`crate::analysis::repeats`] finds.
//! - [`text`]: a tiny text syntax for ad-hoc queries.
//! - [`counted`]: the `counted-loop` pattern matched directly (trip counts for the cost model),
//!   checked against the query in debug builds.
//! - [`dot`]: Graphviz DOT of the CFG, CDG, PDG and region tree.
//!
//! ```
//! use zkbc::query::{Facts, Kind, Pred, Query, QueryBuilder};
//! let program = zkbc::ir::parse_program(
//!     "fn main f0 -> u32 {\nb0(v0: u32):\n    v1 = to_bits v0\n    v2 = from_bits v1 to u32\n    return v2\n}\n",
//! ).unwrap();
//! let mut q = Query::new();
//! let (to, x) = (q.var("to", Kind::Inst), q.var("x", Kind::Value));
//! q.add(Pred::opcode(&["to_bits"]), [to]);
//! q.add(Pred::Operand(Some(0)), [to, x]);
//! let facts = Facts::new(program.main_func());
//! assert_eq!(q.solve(&facts).len(), 1);
//! ```

pub mod counted;
pub mod dot;
pub mod facts;
pub mod patterns;
pub mod pred;
pub mod solver;
pub mod text;

pub use facts::Facts;
pub use patterns::{
    find_matches, find_pattern, find_query_matches, format_matches, patterns, Match, Pattern,
};
pub use pred::{Entity, Kind, Pred};
pub use solver::{Constraint, Query, QueryBuilder, Solution, SubQuery, Term, Var};
pub use text::parse_query;
