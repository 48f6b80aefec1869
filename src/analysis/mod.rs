//! Control-flow analyses over the IR.
//!
//! - [`cfg`](mod@cfg): the CFG as a petgraph graph of blocks, with predecessors, successors and
//!   reverse post-order.
//! - [`dominators`]: dominator and post-dominator trees (one algorithm, on the CFG and on its
//!   reverse with a virtual exit).
//! - [`loops`]: strongly connected components and natural loops with their nesting.
//! - [`cdg`]: control dependence, by post-dominance frontiers and by the seed's cut definition.
//! - [`pdg`]: phi dependence and the program dependence graph (data ∪ control ∪ phi).
//! - [`regions`]: single-entry single-exit regions and the region tree.
//! - [`repeats`]: regions a function writes out several times, with their interfaces.
//! - [`components`]: merge components (head, tail) for block merging.
//! - [`liveness`]: live-in and live-out values of every block.
//! - [`ranges`]: intervals of `uN` values; [`known_bits`]: their bits known 0 or 1.
//!
//! The definition-level version of each analysis and the random CFGs the property tests
//! compare them on are fixtures in the `zkbc-testkit` crate (`testkit/`).

pub mod cdg;
pub mod cfg;
pub mod components;
pub mod dominators;
pub mod known_bits;
pub mod liveness;
pub mod loops;
pub mod pdg;
pub mod ranges;
pub mod regions;
pub mod repeats;

pub use cdg::ControlDependence;
pub use cfg::Cfg;
pub use components::{Component, MergeComponents};
pub use dominators::{BlockGraph, DomTree, Graph};
pub use known_bits::{Bits, KnownBits};
pub use liveness::Liveness;
pub use loops::{Loop, LoopForest, LoopId};
pub use pdg::{DepKind, Pdg, PdgNode};
pub use ranges::{Interval, Ranges};
pub use regions::{Region, RegionEdge, RegionId, RegionNode, RegionTree};
