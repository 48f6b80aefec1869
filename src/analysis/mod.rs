//! Control-flow analyses over the IR: dominators and post-dominators (one algorithm on the CFG
//! and on its reverse), and the graph representation they share.
//!
//! [`reference`] keeps a definition-level version of each analysis and [`random`] draws the
//! random CFGs the property tests compare them on.

pub mod dominators;
pub mod random;
pub mod reference;

pub use dominators::{BlockGraph, DomTree, Graph};
