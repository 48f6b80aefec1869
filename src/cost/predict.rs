//! Predicted cost of a program: the sumcheck cells and transitions the model of [`super::model`]
//! would report, from the blocks as they are now and execution counts from a profile run or
//! static estimates. Cost-driven block formation (`opt::merge`) compares candidate programs by
//! their [`Prediction`]s; with a profile the prediction is the report's own number.

use super::executions::estimated_executions;
use super::executions::memory_size;
use super::model::{memory_totals, padded_constraints, padded_executions, padded_state};
use crate::ir::interp::{self, Limits, Val};
use crate::ir::{BlockId, FuncId, Program};
use crate::r1cs::{self, BlockStats, LowerError};
use std::collections::HashMap;
use std::rc::Rc;

/// Inputs to run a program on when its execution counts are needed (`--inputs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// One value per parameter of `main`.
    pub inputs: Vec<Val>,
    /// The interpreter's limits for profile runs.
    pub limits: Limits,
    /// The counts of the last programs profiled (not part of the profile's identity).
    pub runs: RunCache,
}

/// The counts of the last [`RunCache::CAPACITY`] programs a profile ran, by the program
/// itself (compared with `==`): block formation scores the same candidate program several
/// times (each formation it compares, a clean-up that changed nothing), and a run of a long
/// loop costs far more than the comparison. A program of more than [`RunCache::MAX_INSTS`]
/// instructions is not kept (its copy would cost memory, its comparison time).
#[derive(Default)]
pub struct RunCache(std::cell::RefCell<Vec<(Program, BlockCounts)>>);

impl RunCache {
    /// Programs kept.
    pub const CAPACITY: usize = 4;
    /// Instructions (over every function) of the largest program kept.
    pub const MAX_INSTS: usize = 100_000;

    fn get_or_run(&self, program: &Program, run: impl FnOnce() -> BlockCounts) -> BlockCounts {
        if let Some((_, counts)) = self.0.borrow().iter().find(|(p, _)| p == program) {
            return counts.clone();
        }
        let counts = run();
        let size: usize = program.funcs.iter().map(|f| f.insts.len()).sum();
        if size <= Self::MAX_INSTS {
            let mut cache = self.0.borrow_mut();
            if cache.len() == Self::CAPACITY {
                cache.remove(0);
            }
            cache.push((program.clone(), counts.clone()));
        }
        counts
    }
}

impl Clone for RunCache {
    /// An empty cache: a copy profiles afresh.
    fn clone(&self) -> RunCache {
        RunCache::default()
    }
}

impl PartialEq for RunCache {
    /// Always equal: what was cached does not change what a profile is.
    fn eq(&self, _: &RunCache) -> bool {
        true
    }
}

impl Eq for RunCache {}

impl std::fmt::Debug for RunCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RunCache({} programs)", self.0.borrow().len())
    }
}

/// Where execution counts come from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Counts {
    /// Static counts where known, estimates elsewhere ([`estimated_executions`]).
    #[default]
    Static,
    /// A run on these inputs: the counts of that run, exactly.
    Profile(Rc<Profile>),
}

/// Execution counts per block, every laid-out block present (0 for blocks that never run).
pub type BlockCounts = HashMap<(FuncId, BlockId), u64>;

impl Counts {
    /// The counts of `program`'s blocks: a profile run (static estimates if the run fails, as
    /// a program that fails on its inputs is reported as a failure anyway), or estimates.
    pub fn of(&self, program: &Program) -> BlockCounts {
        match self {
            Counts::Profile(p) => p.runs.get_or_run(program, || {
                match interp::count_blocks(program, &p.inputs, p.limits) {
                    Ok(counts) => counts,
                    Err(_) => estimated_executions(program),
                }
            }),
            Counts::Static => estimated_executions(program),
        }
    }

    /// Whether the counts come from a run.
    pub fn is_profile(&self) -> bool {
        matches!(self, Counts::Profile(_))
    }
}

/// What a program is predicted to cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Prediction {
    /// Σ Q_b · X_b, the transition permutation's and the memory check's cells.
    pub cells: u128,
    /// Σ exec_b: block executions, each a transition state.
    pub transitions: u128,
}

impl std::fmt::Display for Prediction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cells, {} transitions", self.cells, self.transitions)
    }
}

/// The cells and transitions of blocks with these constraint counts and executions (blocks
/// missing from `counts` never run): the block instances, the transition permutation and the
/// memory-checking instance, as the report counts them.
pub fn prediction_of(stats: &[BlockStats], counts: &BlockCounts) -> Prediction {
    let mut p = Prediction::default();
    let mut accesses = 0u128;
    let mut transition_cells = 0u128;
    for s in stats {
        let exec = counts.get(&(s.func, s.block)).copied().unwrap_or(0);
        let x = padded_constraints(s.constraints as u64).unwrap_or(u64::MAX);
        let q = padded_executions(exec).unwrap_or(u64::MAX);
        let io = padded_state(s.state_vars as u64);
        p.cells = p.cells.saturating_add(u128::from(q) * u128::from(x));
        transition_cells = transition_cells.saturating_add(u128::from(q) * u128::from(io));
        p.transitions = p.transitions.saturating_add(u128::from(exec));
        accesses = accesses.saturating_add(u128::from(exec) * s.accesses as u128);
    }
    if p.transitions > 1 {
        p.cells = p.cells.saturating_add(transition_cells);
    }
    p.cells = p
        .cells
        .saturating_add(memory_totals(memory_size(stats), accesses).cells);
    p
}

/// Each block's own cells `Q_b · X_b` (its padded constraints times its padded executions;
/// blocks that never run cost 0): the part of [`prediction_of`]'s cells that belongs to one
/// block. Their sum is at most the prediction's cells.
pub fn block_cells(stats: &[BlockStats], counts: &BlockCounts) -> HashMap<(FuncId, BlockId), u128> {
    stats
        .iter()
        .map(|s| {
            let exec = counts.get(&(s.func, s.block)).copied().unwrap_or(0);
            let x = padded_constraints(s.constraints as u64).unwrap_or(u64::MAX);
            let q = padded_executions(exec).unwrap_or(u64::MAX);
            ((s.func, s.block), u128::from(q) * u128::from(x))
        })
        .collect()
}

/// Lowers every block of `program` and predicts its cost with `counts`.
pub fn predict(program: &Program, counts: &Counts) -> Result<Prediction, LowerError> {
    let stats = r1cs::stats(program)?;
    Ok(prediction_of(&stats, &counts.of(program)))
}
