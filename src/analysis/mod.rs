//! Control-flow analyses over the IR: dominators and post-dominators (one algorithm on the CFG
//! and on its reverse), and the graph representation they share.

pub mod dominators;

pub use dominators::{BlockGraph, DomTree, Graph};
