//! Predicted cost of a program: the sumcheck cells and transitions the model of [`super::model`]
//! would report, from the blocks as they are now and execution counts from a profile run or
//! static estimates. Cost-driven block formation (`opt::merge`) compares candidate programs by
//! their [`Prediction`]s; with a profile the prediction is the report's own number.

use crate::fxhash::HashMap;

use super::executions::estimated_executions;
use super::executions::memory_sizes;
use super::model::{memory_totals_split, padded_constraints, padded_executions, padded_state};
use crate::ir::interp::{self, Limits, Val};
use crate::ir::{same_up_to_value_names, BlockId, FuncId, Program};
use crate::r1cs::{self, BlockStats, LowerError};
use std::rc::Rc;

/// Inputs to run a program on when its execution counts are needed (`--inputs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// One value per parameter of `main`.
    pub inputs: Vec<Val>,
    /// The interpreter's limits for profile runs.
    pub limits: Limits,
    /// The counts of the last programs profiled (not part of the profile's identity), shared
    /// with the compiles of the same program on the same inputs (a report's baselines).
    pub runs: Rc<RunCache>,
}

/// The counts of the last [`RunCache::CAPACITY`] programs a profile ran (`None`: the run
/// failed), by the program itself, compared up to the numbers of its values
/// ([`same_up_to_value_names`]): block formation scores the same candidate program several
/// times (each formation it compares, a clean-up that changed nothing, the same merge reached
/// by two routes), and a run of a long loop costs far more than the comparison. A program of
/// more than [`RunCache::MAX_INSTS`] instructions is not kept (its copy would cost memory, its
/// comparison time).
#[derive(Default)]
pub struct RunCache {
    kept: std::cell::RefCell<Vec<(Program, Option<BlockCounts>)>>,
    ran: std::cell::Cell<usize>,
}

/// The counts of a run of `program` on `inputs` (`None`: it failed), 0 for every laid-out
/// block that did not run.
fn run_counts(program: &Program, inputs: &[Val], limits: Limits) -> Option<BlockCounts> {
    let mut counts = interp::count_blocks(program, inputs, limits).ok()?;
    for f in program.func_ids() {
        for &b in &program.func(f).layout {
            counts.entry((f, b)).or_insert(0);
        }
    }
    Some(counts)
}

impl Profile {
    /// A run of `program` on the profile's inputs, past the cache (a check of counts that
    /// were derived without running).
    pub fn run_uncached(&self, program: &Program) -> Option<BlockCounts> {
        run_counts(program, &self.inputs, self.limits)
    }
}

impl RunCache {
    /// Programs kept.
    pub const CAPACITY: usize = 4;
    /// Instructions (over every function) of the largest program kept.
    pub const MAX_INSTS: usize = 100_000;

    /// The counts of a run of `program` on `inputs` (`None`: it failed; 0 for every laid-out
    /// block that did not run), run now unless a
    /// program the same up to its value numbers ran before. Every run through one cache must
    /// be on the same inputs and limits.
    pub fn counts(&self, program: &Program, inputs: &[Val], limits: Limits) -> Option<BlockCounts> {
        self.get_or_run(program, || {
            self.ran.set(self.ran.get() + 1);
            run_counts(program, inputs, limits)
        })
    }

    /// The counts of `program` if a run of a program the same up to its value numbers is kept
    /// and succeeded (nothing runs).
    pub fn cached(&self, program: &Program) -> Option<BlockCounts> {
        self.kept
            .borrow()
            .iter()
            .find_map(|(p, counts)| same_up_to_value_names(p, program).then(|| counts.clone()))?
    }

    /// Keeps `counts` as those of a run of `program`: counts known without running it (block
    /// formation derives the counts of the program it chooses from the profile's run).
    pub fn remember(&self, program: &Program, counts: BlockCounts) {
        self.get_or_run(program, || Some(counts));
    }

    /// How many runs the cache made (the rest it answered).
    pub fn runs(&self) -> usize {
        self.ran.get()
    }

    fn get_or_run(
        &self,
        program: &Program,
        run: impl FnOnce() -> Option<BlockCounts>,
    ) -> Option<BlockCounts> {
        let cached = self
            .kept
            .borrow()
            .iter()
            .find_map(|(p, counts)| same_up_to_value_names(p, program).then(|| counts.clone()));
        if let Some(counts) = cached {
            return counts;
        }
        let counts = run();
        let size: usize = program.funcs.iter().map(|f| f.insts.len()).sum();
        if size <= Self::MAX_INSTS {
            let mut cache = self.kept.borrow_mut();
            if cache.len() == Self::CAPACITY {
                cache.remove(0);
            }
            cache.push((program.clone(), counts.clone()));
        }
        counts
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
        write!(f, "RunCache({} programs)", self.kept.borrow().len())
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
        self.profiled(program)
            .unwrap_or_else(|| estimated_executions(program))
    }

    /// The counts of a profile run of `program`, if there is a profile and the run succeeds.
    pub fn profiled(&self, program: &Program) -> Option<BlockCounts> {
        match self {
            Counts::Profile(p) => p.runs.counts(program, &p.inputs, p.limits),
            Counts::Static => None,
        }
    }

    /// Counts that are exact for `program`: a profile run's (when it succeeds), or without a
    /// profile the static counts when every block's is known (`static_executions`: a program
    /// whose loops all have constant trip counts).
    pub fn exact(&self, program: &Program) -> Option<BlockCounts> {
        match self {
            Counts::Profile(_) => self.profiled(program),
            Counts::Static => super::executions::static_executions(program)
                .into_iter()
                .map(|(block, n)| Some((block, n?)))
                .collect(),
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
    let (mut accesses, mut read_only) = (0u128, 0u128);
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
        read_only = read_only.saturating_add(u128::from(exec) * s.ro_accesses as u128);
    }
    if p.transitions > 1 {
        p.cells = p.cells.saturating_add(transition_cells);
    }
    let (memory, _) = memory_totals_split(memory_sizes(stats).0, accesses, read_only);
    p.cells = p.cells.saturating_add(memory.cells);
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

/// The functions of `program` whose memory plan weighs its blocks by how often they run
/// ([`r1cs::memory::MemoryPlan::weighs_blocks`]): the only ones given predicted runs.
fn weighing(program: &Program) -> Vec<FuncId> {
    program
        .func_ids()
        .filter(|&f| r1cs::memory::MemoryPlan::weighs_blocks(program.func(f)))
        .collect()
}

/// The predicted runs ([`crate::ir::Function::predicted_runs`]) `counts` give each of `funcs`,
/// where they differ from those it carries (empty: nothing to set).
fn runs_to_set(
    program: &Program,
    funcs: &[FuncId],
    counts: &BlockCounts,
) -> Vec<(FuncId, HashMap<BlockId, u64>)> {
    funcs
        .iter()
        .filter_map(|&f| {
            let func = program.func(f);
            let runs: HashMap<BlockId, u64> = func
                .layout
                .iter()
                .filter_map(|&b| Some((b, *counts.get(&(f, b))?)))
                .collect();
            (func.predicted_runs.as_deref() != Some(&runs)).then_some((f, runs))
        })
        .collect()
}

fn apply_runs(program: &mut Program, to_set: Vec<(FuncId, HashMap<BlockId, u64>)>) {
    for (f, runs) in to_set {
        program.funcs[f.index()].predicted_runs = Some(std::sync::Arc::new(runs));
    }
}

/// Gives each function of `program` whose memory plan weighs its blocks by how often they run
/// the runs `counts` predict for it (computed only when there is such a function), so that
/// memory or registers is decided by the counts its cells are predicted with: the driver, for
/// the program it compiles.
pub fn set_predicted_runs(program: &mut Program, counts: &Counts) {
    let funcs = weighing(program);
    if funcs.is_empty() {
        return;
    }
    let to_set = runs_to_set(program, &funcs, &counts.of(program));
    apply_runs(program, to_set);
}

/// `program` with the predicted runs `counts` give ([`set_predicted_runs`]), copied only when
/// that changes something: block formation, for every program it scores.
pub fn with_predicted_runs<'p>(
    program: &'p Program,
    counts: &BlockCounts,
) -> std::borrow::Cow<'p, Program> {
    let to_set = runs_to_set(program, &weighing(program), counts);
    if to_set.is_empty() {
        return std::borrow::Cow::Borrowed(program);
    }
    let mut copy = program.clone();
    apply_runs(&mut copy, to_set);
    std::borrow::Cow::Owned(copy)
}

/// Lowers every block of `program` and predicts its cost with `counts`.
pub fn predict(program: &Program, counts: &Counts) -> Result<Prediction, LowerError> {
    let counts = counts.of(program);
    let stats = r1cs::stats(&with_predicted_runs(program, &counts))?;
    Ok(prediction_of(&stats, &counts))
}
