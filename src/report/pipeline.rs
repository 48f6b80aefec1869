//! From a program to its report: the stages `zkbc report` and `zkbc table` run, as a library.
//!
//! ```text
//! measure(name, source, inputs?, &Settings)
//!   driver::compile (-O level) ─▶ driver::legalize_for_r1cs ─▶ r1cs::stats (rayon, every block)
//!   with inputs:    interp::run ─▶ r1cs::check_trace (every executed block satisfied)
//!                   executions  = how often each block appears in the trace
//!   without inputs: executions  = static_executions (below), unknown where not known
//!   ─▶ ProgramCost ─▶ Report
//! ```
//!
//! # Static executions: what is "known"
//!
//! Without inputs, [`static_executions`] gives a block an execution count only when it holds on
//! *every* run that completes, whatever the inputs; everything else is unknown (`null`). For
//! `main`, with `entries(L)` the number of times loop `L` is entered:
//!
//! 1. the entry block runs once;
//! 2. a block in no loop that post-dominates the entry runs once (no loop: at most once;
//!    post-dominating the entry: at least once on a run that returns);
//! 3. in a loop `L` (its innermost loop) with an exact constant trip count `N` — the
//!    `counted-loop` pattern of [`crate::query::patterns`] with constant init, step and bound,
//!    one latch, one entry edge, and exits only from the header (`trips=N`, not `trips<=N`) —
//!    the header runs `entries(L) · (N + 1)` times and a block that dominates the single latch
//!    runs `entries(L) · N` times (each iteration goes from the header to the latch, and such a
//!    block is on every such path exactly once);
//! 4. `entries(L)` is the count of the block `p` of `L`'s only entry edge `p -> header`, when
//!    that count is known and `p` ends in a `jmp` (a `br` may or may not take the edge).
//!
//! Every other block of `main` — a branch arm, a block after an early return, the body of a
//! loop with a runtime bound — is unknown. A function other than `main` that no `call` names
//! never runs (0); one that is called is unknown (after `legalize_for_r1cs` nothing is called).
//! The rules are checked against the interpreter: `tests/report_pipeline.rs` requires every
//! known static count to equal the count of a run, for every corpus program at every level.
//!
//! Architecture invariant: this module sequences stages that live elsewhere (driver, interp,
//! r1cs, query); it computes no constraint itself.

use super::cost::{BlockCost, CostError, ProgramCost, Report};
use crate::analysis::{Cfg, DomTree, LoopForest, MergeComponents};
use crate::driver::{self, Compilation, CompileError};
pub use crate::front::FieldCmp;
use crate::ir::interp::{self, Outcome};
use crate::ir::{BlockId, FuncId, Function, InstKind, Program, Terminator};
use crate::opt::OptLevel;
use crate::query::{find_pattern, patterns::trip_count, Facts};
use crate::r1cs::{self, BlockStats, CheckError, LowerError};
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// The default MIN_BLOCK_SIZE (CoBBl's code uses 32768).
pub const DEFAULT_MIN_BLOCK_SIZE: u64 = 1024;

/// Whether and how blocks are merged (the `merge` pass of `-O3`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Merging {
    /// As the level says: `-O3` merges components below the threshold.
    #[default]
    Threshold,
    /// `--no-merge`: the level's pipeline without the merge pass.
    Off,
    /// `--monolithic`: the whole program as one block.
    Monolithic,
}

/// How to compile, run and measure a program.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The optimization level.
    pub opt_level: OptLevel,
    /// MIN_BLOCK_SIZE of the threshold.
    pub min_block_size: u64,
    /// Merging.
    pub merging: Merging,
    /// The interpreter's step limit.
    pub max_steps: u64,
    /// The most instructions one merge may emit (`--max-unrolled`).
    pub max_unrolled: usize,
    /// The semantics of comparisons of two non-constant field elements.
    pub field_cmp: FieldCmp,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            opt_level: OptLevel::O3,
            min_block_size: DEFAULT_MIN_BLOCK_SIZE,
            merging: Merging::Threshold,
            max_steps: interp::Limits::default().max_steps,
            max_unrolled: crate::opt::merge::DEFAULT_MAX_UNROLLED,
            field_cmp: FieldCmp::Complete,
        }
    }
}

impl Settings {
    /// The pipeline's name in a report's `opt_level`: `O2`, `O3 --no-merge`, `O3 --monolithic`.
    pub fn pipeline_name(&self) -> String {
        match self.merging {
            Merging::Threshold => format!("{:?}", self.opt_level),
            Merging::Off => format!("{:?} --no-merge", self.opt_level),
            Merging::Monolithic => format!("{:?} --monolithic", self.opt_level),
        }
    }

    /// The driver options these settings stand for.
    pub fn driver_options(&self) -> driver::Options {
        let mut options = driver::Options {
            opt_level: self.opt_level,
            field_cmp: self.field_cmp,
            ..driver::Options::default()
        };
        options.opt.merge.min_block_size = self.min_block_size;
        options.opt.merge.max_unrolled = self.max_unrolled;
        match self.merging {
            Merging::Threshold => {}
            Merging::Off => options.opt.skip.push("merge".into()),
            Merging::Monolithic => options.opt.merge.monolithic = true,
        }
        options
    }
}

/// The constraint count of the program compiled `--monolithic` (at `-O3`): the one circuit a
/// ZoKrates-style compiler emits. `None` when no such circuit exists (a loop bound is a runtime
/// value, or the unrolled program is too large) or it cannot be lowered.
pub fn monolithic_constraints(file_name: &str, source: &str, field_cmp: FieldCmp) -> Option<u64> {
    let settings = Settings {
        merging: Merging::Monolithic,
        field_cmp,
        ..Settings::default()
    };
    let mut compilation = driver::compile(file_name, source, &settings.driver_options()).ok()?;
    driver::legalize_for_r1cs(&mut compilation.program).ok()?;
    let program = &compilation.program;
    let stats = r1cs::stats(program).ok()?;
    // One block in `main` (other functions, if any survived, are not part of the circuit).
    let main_blocks: Vec<&BlockStats> = stats.iter().filter(|s| s.func == program.main).collect();
    match main_blocks.as_slice() {
        [one] => Some(one.constraints as u64),
        _ => None,
    }
}

/// A stage of [`measure`], reported to its progress callback as it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Front end, optimizer and legalization.
    Compile,
    /// The interpreter on the inputs.
    Run,
    /// Lowering every block to R1CS.
    Lower,
    /// Assigning and checking every executed block.
    Check,
}

impl Stage {
    /// A word for a progress bar.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Compile => "compiling",
            Stage::Run => "running",
            Stage::Lower => "lowering",
            Stage::Check => "checking",
        }
    }
}

/// Why a program could not be measured. [`MeasureError::exit_code`] is the CLI's exit status.
#[derive(Debug)]
pub enum MeasureError {
    /// The program does not compile (or cannot be legalized).
    Compile(CompileError),
    /// The inputs do not fit `main`'s parameters.
    Inputs(String),
    /// The program failed at run time on the inputs (already located: `FILE:LINE:COL: ...`).
    Run(String),
    /// A block cannot be lowered to R1CS.
    Lower(LowerError),
    /// An executed block's instance is not satisfied by its witness: a compiler bug.
    Check(CheckError),
    /// The report's totals do not fit.
    Cost(CostError),
}

impl MeasureError {
    /// 2 for input the user can fix (compile errors, bad inputs, unsupported constructs), 1 for
    /// a run-time failure, an unsatisfied block or totals that overflow.
    pub fn exit_code(&self) -> u8 {
        match self {
            MeasureError::Compile(_) | MeasureError::Inputs(_) => 2,
            MeasureError::Lower(LowerError::Unsupported { .. } | LowerError::TooLarge { .. }) => 2,
            MeasureError::Check(CheckError::Lower(
                LowerError::Unsupported { .. } | LowerError::TooLarge { .. },
            )) => 2,
            MeasureError::Run(_)
            | MeasureError::Lower(_)
            | MeasureError::Check(_)
            | MeasureError::Cost(_) => 1,
        }
    }
}

impl fmt::Display for MeasureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeasureError::Compile(e) => write!(f, "{e}"),
            MeasureError::Inputs(e) | MeasureError::Run(e) => f.write_str(e),
            MeasureError::Lower(e) => write!(f, "{e}"),
            MeasureError::Check(e) => write!(f, "{e} (a compiler bug)"),
            MeasureError::Cost(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MeasureError {}

/// A measured program: the compilation the report describes, and the report.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// The compiled and legalized program (what was lowered).
    pub compilation: Compilation,
    /// The counts the report was computed from.
    pub cost: ProgramCost,
    /// The report.
    pub report: Report,
}

/// The program's name in a report: the file name without directories and extension.
pub fn program_name(file_name: &str) -> String {
    let path = std::path::Path::new(file_name);
    path.file_stem().map_or_else(
        || file_name.to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// Compiles `source` (named `file_name`; `.zok` or IR text), lowers every block, and either
/// runs it on `inputs` (in the program's JSON encoding) and checks every executed block, or,
/// without inputs, counts executions statically. `progress` is told each stage as it starts.
pub fn measure(
    file_name: &str,
    source: &str,
    inputs: Option<&serde_json::Value>,
    settings: &Settings,
    progress: &dyn Fn(Stage),
) -> Result<Measurement, MeasureError> {
    progress(Stage::Compile);
    let options = settings.driver_options();
    let mut compilation =
        driver::compile(file_name, source, &options).map_err(MeasureError::Compile)?;
    driver::legalize_for_r1cs(&mut compilation.program).map_err(MeasureError::Compile)?;
    let program = &compilation.program;

    let run = match inputs {
        Some(json) => {
            let values = compilation
                .inputs_from_json(json)
                .map_err(|e| MeasureError::Inputs(format!("inputs: {e}")))?;
            progress(Stage::Run);
            let limits = interp::Limits {
                max_steps: settings.max_steps,
                ..interp::Limits::default()
            };
            let outcome = interp::run(program, &values, limits).map_err(|f| {
                MeasureError::Run(match f.src {
                    Some(loc) => format!("{file_name}:{loc}: {}", f.kind),
                    None => format!("{file_name}: {f}"),
                })
            })?;
            Some(outcome)
        }
        None => None,
    };

    progress(Stage::Lower);
    let stats = r1cs::stats(program).map_err(MeasureError::Lower)?;

    let (executions, outputs, satisfied) = match &run {
        Some(outcome) => {
            progress(Stage::Check);
            r1cs::check_trace(program, outcome).map_err(MeasureError::Check)?;
            let outputs = compilation.outputs_to_json(&outcome.outputs);
            // `{"outputs": [...]}`: the report's `outputs` is the list itself.
            let outputs = outputs.get("outputs").cloned().unwrap_or(outputs);
            (traced_executions(outcome), Some(outputs), Some(true))
        }
        None => (static_executions(program), None, None),
    };
    let cost = program_cost(
        &program_name(file_name),
        &settings.pipeline_name(),
        settings.min_block_size,
        program,
        &stats,
        &executions,
    );
    let monolithic = match settings.merging {
        Merging::Monolithic => stats
            .iter()
            .filter(|s| s.func == program.main)
            .map(|s| s.constraints as u64)
            .sum::<u64>()
            .into(),
        _ => monolithic_constraints(file_name, source, settings.field_cmp),
    };
    let cost = ProgramCost {
        outputs,
        satisfied,
        monolithic_constraints: monolithic,
        ..cost
    };
    let report = cost.report().map_err(MeasureError::Cost)?;
    Ok(Measurement {
        compilation,
        cost,
        report,
    })
}

/// Execution counts per block: `Some(n)` known, `None` unknown. A block absent from the map
/// ran 0 times (a traced run) — [`program_cost`] reads it so.
pub type Executions = HashMap<(FuncId, BlockId), Option<u64>>;

/// How often each block appears in a run's trace.
pub fn traced_executions(outcome: &Outcome) -> Executions {
    let mut out: Executions = HashMap::new();
    for entry in &outcome.trace {
        let n = out.entry((entry.func, entry.block)).or_insert(Some(0));
        *n = n.map(|n| n + 1);
    }
    out
}

/// A block's label in a report: `b3` in `main`, `NAME/b3` in function NAME.
pub fn block_label(program: &Program, func: FuncId, block: BlockId) -> String {
    if func == program.main {
        block.to_string()
    } else {
        format!("{}/{block}", program.func(func).name)
    }
}

/// The [`ProgramCost`] of lowered blocks (`stats`, in their order) and their executions (a
/// block absent from `executions` ran 0 times). Outputs, satisfaction and the monolithic count
/// are left empty for the caller.
pub fn program_cost(
    program_name: &str,
    opt_level: &str,
    min_block_size: u64,
    program: &Program,
    stats: &[BlockStats],
    executions: &Executions,
) -> ProgramCost {
    let blocks = stats
        .iter()
        .map(|s| BlockCost {
            label: block_label(program, s.func, s.block),
            constraints: s.constraints as u64,
            witness_vars: s.witness_vars as u64,
            io_vars: s.instance_vars as u64,
            executions: executions
                .get(&(s.func, s.block))
                .copied()
                .unwrap_or(Some(0)),
        })
        .collect();
    ProgramCost {
        program: program_name.to_string(),
        opt_level: opt_level.to_string(),
        min_block_size,
        blocks,
        outputs: None,
        satisfied: None,
        monolithic_constraints: None,
    }
}

/// Execution counts that hold on every completed run, whatever the inputs (see the module doc
/// for the rules); `None` where not known. Every laid-out block of every function is present.
pub fn static_executions(program: &Program) -> Executions {
    let called: BTreeSet<FuncId> = program
        .funcs
        .iter()
        .flat_map(|f| {
            f.layout.iter().flat_map(move |b| {
                f.block(*b)
                    .insts
                    .iter()
                    .filter_map(move |i| match &f.inst(*i).kind {
                        InstKind::Call { func, .. } => Some(*func),
                        _ => None,
                    })
            })
        })
        .collect();
    let mut out = Executions::new();
    for fid in program.func_ids() {
        let func = program.func(fid);
        if fid == program.main {
            for (b, n) in StaticCounter::new(func).counts() {
                out.insert((fid, b), n);
            }
        } else {
            let n = if called.contains(&fid) { None } else { Some(0) };
            for &b in &func.layout {
                out.insert((fid, b), n);
            }
        }
    }
    out
}

/// The rules of the module doc on one function.
struct StaticCounter<'f> {
    func: &'f Function,
    facts: Facts<'f>,
    /// Exact trip count of each loop header, where known.
    trips: HashMap<BlockId, u64>,
    memo: HashMap<BlockId, Option<u64>>,
}

impl<'f> StaticCounter<'f> {
    fn new(func: &'f Function) -> StaticCounter<'f> {
        let facts = Facts::new(func);
        let mut trips = HashMap::new();
        let pattern = find_pattern("counted-loop").expect("bug: the counted-loop pattern exists");
        for query in pattern.queries() {
            let vars = query.vars();
            for sol in query.solve(&facts) {
                let bindings = crate::query::patterns::Bindings(
                    vars.iter()
                        .map(|(v, name)| (name.to_string(), sol.get(*v)))
                        .collect(),
                );
                if let (Ok((n, true)), Some(header)) =
                    (trip_count(&facts, &bindings), bindings.get("header"))
                {
                    trips.insert(header.block(), n);
                }
            }
        }
        StaticCounter {
            func,
            facts,
            trips,
            memo: HashMap::new(),
        }
    }

    fn counts(mut self) -> Vec<(BlockId, Option<u64>)> {
        let layout = self.func.layout.clone();
        layout.into_iter().map(|b| (b, self.count(b))).collect()
    }

    fn count(&mut self, b: BlockId) -> Option<u64> {
        if let Some(n) = self.memo.get(&b) {
            return *n;
        }
        // A cycle through `entries` cannot arise (a loop's preheader is outside it, so the
        // recursion climbs out of loops), but mark the block first so it would end as unknown.
        self.memo.insert(b, None);
        let n = self.compute(b);
        self.memo.insert(b, n);
        n
    }

    fn compute(&mut self, b: BlockId) -> Option<u64> {
        let entry = self.func.entry;
        if b == entry {
            return Some(1);
        }
        let cfg: &Cfg = &self.facts.cfg;
        if !cfg.contains(b) {
            return Some(0);
        }
        let (dom, pdom): (&DomTree, &DomTree) = (&self.facts.dom, &self.facts.pdom);
        let loops: &LoopForest = &self.facts.loops;
        let Some(lid) = loops.innermost(b) else {
            return pdom.dominates(b, entry).then_some(1);
        };
        let lp = loops.get(lid).clone();
        let trips = *self.trips.get(&lp.header)?;
        let per_entry = if b == lp.header {
            trips.checked_add(1)?
        } else if lp.latches.len() == 1 && dom.dominates(b, lp.latches[0]) {
            trips
        } else {
            return None;
        };
        let outside: Vec<BlockId> = cfg
            .predecessors(lp.header)
            .iter()
            .copied()
            .filter(|p| !lp.blocks.contains(p))
            .collect();
        let [pre] = outside[..] else {
            return None;
        };
        if !matches!(self.func.block(pre).term, Some(Terminator::Jmp(_))) {
            return None;
        }
        self.count(pre)?.checked_mul(per_entry)
    }
}

/// The merge components of `func` as clusters for [`super::dot::render`]: each component's
/// blocks without its tail (the tail is the next block at the head's level; merging folds the
/// head and what lies before the tail into one block that jumps to the tail), only those with
/// at least two blocks, and only as many as keep the clusters nested or disjoint (larger
/// first), which DOT needs.
pub fn merge_clusters(func: &Function) -> Vec<BTreeSet<BlockId>> {
    let components = MergeComponents::new(func);
    let mut candidates: Vec<BTreeSet<BlockId>> = func
        .layout
        .iter()
        .filter_map(|h| components.component(*h))
        .map(|c| c.blocks.iter().copied().filter(|b| *b != c.tail).collect())
        .filter(|s: &BTreeSet<BlockId>| s.len() >= 2)
        .collect();
    candidates.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut kept: Vec<BTreeSet<BlockId>> = Vec::new();
    for c in candidates {
        let laminar = kept
            .iter()
            .all(|k| k.is_disjoint(&c) || k.is_subset(&c) || c.is_subset(k));
        if laminar && !kept.contains(&c) {
            kept.push(c);
        }
    }
    kept
}
