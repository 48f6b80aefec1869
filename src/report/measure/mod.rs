//! From a program to its report: the stages `zkbc report` and `zkbc table` run, as a library.
//!
//! ```text
//! measure(name, source, inputs?, &Settings)
//!   driver::compile (-O level) ─▶ driver::legalize_for_r1cs ─▶ r1cs::stats (rayon, every block)
//!   with inputs:    interp::run ─▶ r1cs::check_trace (every executed block satisfied)
//!                   executions  = how often each block appears in the trace
//!   without inputs: executions  = cost::static_executions, unknown where not known
//!   monolithic:     driver::compile --monolithic -O3 ─▶ r1cs::stats: C, or why there is none
//!   baselines:      the same settings with --no-merge and with --monolithic: compile, run on the
//!                   same inputs (or count statically), lower ─▶ their sumcheck cells
//!   ─▶ ProgramCost ─▶ Report
//! ```
//!
//! A report that *is* a baseline (`--no-merge`, `--monolithic`, or a level below `-O3`, which
//! has no merge pass) gives its own cells for it instead of measuring it again.
//!
//! [`profile`] measures as `zkbc profile` does (constraints attributed to their origins);
//! [`zokrates`] measures a ZoKrates suite folder for the parity tables. The renderers of all
//! three are `report`'s other modules.
//!
//! Architecture invariant: this module sequences stages that live elsewhere (driver, interp,
//! r1cs, query); it computes no constraint itself.

pub mod profile;
pub mod zokrates;

use crate::cost::{
    program_cost, static_executions, Baselines, CostError, Executions, ProgramCost, Report,
};
use crate::driver::{self, Compilation, CompileError};
pub use crate::front::FieldCmp;
use crate::ir::{interp, BlockId, FuncId, Program};
use crate::opt::merge::{MergeError, MergePolicy};
use crate::opt::OptLevel;
use crate::r1cs::{self, BlockStats, CheckError, LowerError};
use std::fmt;

/// The default MIN_BLOCK_SIZE (CoBBl's code uses 32768).
pub const DEFAULT_MIN_BLOCK_SIZE: u64 = 1024;

/// Whether and how blocks are merged (the `merge` pass of `-O3`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Merging {
    /// As the level and the merge policy say: `-O3` merges by the cost model (or, with
    /// `--merge-policy threshold`, the components below the threshold).
    #[default]
    Default,
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
    /// How merging decides (`--merge-policy`).
    pub policy: MergePolicy,
    /// The interpreter's step limit.
    pub max_steps: u64,
    /// The most instructions one merge may emit (`--max-unrolled`).
    pub max_unrolled: usize,
    /// Block formation's work budget (`--formation-budget`).
    pub formation_budget: u64,
    /// The semantics of comparisons of two non-constant field elements.
    pub field_cmp: FieldCmp,
    /// zkbc's semantics or ZoKrates' (`--compat`).
    pub compat: crate::front::Compat,
    /// The standard library root (`--stdlib-path`, `ZOKRATES_STDLIB`).
    pub stdlib: Option<std::path::PathBuf>,
    /// Whether [`measure`] also measures the `--no-merge` and `--monolithic` baselines
    /// ([`Report::baselines`]); `zkbc table`, which has rows of its own for them, does not.
    pub baselines: bool,
    /// Whether the measurement's program keeps its instructions. Off, a monolithic circuit's
    /// block of `CONSUME_MIN_INSTS` or more instructions is lowered by
    /// [`r1cs::stats_consuming`], which frees them as it goes (a block of 10^7 constraints
    /// then never holds its IR and its constraints at once), and [`Measurement::compilation`]
    /// has that block without instructions: a caller that reads the program after (`zkbc
    /// report --format dot` draws it) keeps it on. The report is the same either way.
    pub keep_ir: bool,
    /// Inline every call or keep calls as blocks (`--inline`).
    pub inline: crate::opt::calls::Inline,
    /// How blocks are lowered (`--max-constraints`, `ZKBC_NO_MEMORY`).
    pub lower: r1cs::LowerOptions,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            opt_level: OptLevel::O3,
            min_block_size: DEFAULT_MIN_BLOCK_SIZE,
            merging: Merging::Default,
            policy: MergePolicy::Cost,
            max_steps: interp::Limits::default().max_steps,
            max_unrolled: crate::opt::merge::DEFAULT_MAX_UNROLLED,
            formation_budget: crate::opt::merge::DEFAULT_FORMATION_BUDGET,
            field_cmp: FieldCmp::Complete,
            compat: crate::front::Compat::Zkbc,
            stdlib: None,
            baselines: true,
            keep_ir: true,
            inline: crate::opt::calls::Inline::Cost,
            lower: r1cs::LowerOptions::default(),
        }
    }
}

impl Settings {
    /// The pipeline's name in a report's `opt_level`: `O2`, `O3 --no-merge`, `O3 --monolithic`,
    /// `O3 --merge-policy threshold`.
    pub fn pipeline_name(&self) -> String {
        match (self.merging, self.policy) {
            (Merging::Default, MergePolicy::Cost) => format!("{:?}", self.opt_level),
            (Merging::Default, MergePolicy::Threshold) => {
                format!("{:?} --merge-policy threshold", self.opt_level)
            }
            (Merging::Off, _) => format!("{:?} --no-merge", self.opt_level),
            (Merging::Monolithic, _) => format!("{:?} --monolithic", self.opt_level),
        }
    }

    /// Why block formation records no decisions (`zkbc report --explain`) under these
    /// settings, or `None` when it decides by the cost model and records each candidate.
    pub fn without_decisions(&self) -> Option<String> {
        match (self.merging, self.policy) {
            (Merging::Off, _) => Some("--no-merge: the merge pass does not run".into()),
            (Merging::Monolithic, _) => {
                Some("--monolithic: every function is merged into one block".into())
            }
            _ if self.opt_level < OptLevel::O3 => Some(format!(
                "-{:?} has no merge pass (block formation is part of -O3)",
                self.opt_level
            )),
            (Merging::Default, MergePolicy::Threshold) => Some(
                "--merge-policy threshold merges every component below THRESHOLD, by size and \
                 not by predicted cells"
                    .into(),
            ),
            (Merging::Default, MergePolicy::Cost) => None,
        }
    }

    /// Whether this pipeline is the `--no-merge` baseline itself: merging off, or a level
    /// without the merge pass.
    fn is_no_merge(&self) -> bool {
        match self.merging {
            Merging::Off => true,
            Merging::Default => self.opt_level < OptLevel::O3,
            Merging::Monolithic => false,
        }
    }

    /// The driver options these settings stand for.
    pub fn driver_options(&self) -> driver::Options {
        let mut options = driver::Options {
            opt_level: self.opt_level,
            field_cmp: self.field_cmp,
            compat: self.compat,
            stdlib: self.stdlib.clone(),
            inline: self.inline,
            ..driver::Options::default()
        };
        options.opt.merge.min_block_size = self.min_block_size;
        options.opt.merge.max_unrolled = self.max_unrolled;
        options.opt.merge.budget = self.formation_budget;
        options.opt.merge.policy = self.policy;
        options.profile_max_steps = self.max_steps;
        options.opt.merge.lower = self.lower;
        match self.merging {
            Merging::Default => {}
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
    monolithic_circuit(file_name, source, field_cmp).ok()
}

/// [`monolithic_constraints`], or why there is no such circuit, in a few words
/// ([`no_circuit_reason`]).
pub fn monolithic_circuit(
    file_name: &str,
    source: &str,
    field_cmp: FieldCmp,
) -> Result<u64, String> {
    let settings = Settings {
        field_cmp,
        ..Settings::default()
    };
    monolithic_circuit_with(file_name, source, &settings)
}

/// The block sizes of the programs a measurement lowers: its own program, the one-block
/// circuit and the baselines. They go through one [`r1cs::StatsCache`], keyed by block shape,
/// which block formation's scoring shares ([`Lowered::share`]): the cheapest formation is often
/// one block, which formation lowered while scoring it, and the same block is the
/// `--monolithic` baseline's, so it is lowered once. (A cache of whole programs by a digest of
/// their text, which this replaces, only caught equal programs, and lowered the chosen
/// formation again after scoring it.)
#[derive(Default)]
struct Lowered(r1cs::SharedStatsCache, std::rc::Rc<driver::PrefixCache>);

impl Lowered {
    /// The sizes of `program`'s blocks, each lowered now unless a block of the same shape was.
    fn stats(&self, program: &crate::ir::Program) -> Result<Vec<BlockStats>, r1cs::LowerError> {
        crate::timing::stage("lower (r1cs::stats)", || self.0 .0.stats(program))
    }

    /// `options` with block formation scoring through this cache.
    /// A cache whose blocks record where their constraints come from until the measured
    /// program's are taken ([`r1cs::StatsCache::attributing`]).
    fn attributing(lower: r1cs::LowerOptions) -> Lowered {
        Lowered(
            r1cs::SharedStatsCache(std::sync::Arc::new(
                r1cs::StatsCache::attributing().lowering(lower),
            )),
            Default::default(),
        )
    }

    /// An empty cache lowering with `lower`.
    fn new(lower: r1cs::LowerOptions) -> Lowered {
        Lowered(
            r1cs::SharedStatsCache(std::sync::Arc::new(r1cs::StatsCache::new().lowering(lower))),
            Default::default(),
        )
    }

    fn share(&self, mut options: driver::Options) -> driver::Options {
        options.opt.merge.stats_cache = Some(self.0.clone());
        options.session.prefix_cache = Some(self.1.clone());
        options
    }
}

/// [`monolithic_circuit`] with the front-end settings of `base` (`--field-cmp`, `--compat`,
/// `--stdlib-path`) and its `--max-unrolled`.
fn monolithic_circuit_with(file_name: &str, source: &str, base: &Settings) -> Result<u64, String> {
    monolithic_circuit_lowered(file_name, source, base, &Lowered::new(base.lower))
}

/// [`monolithic_circuit_with`], its program lowered through `lowered`.
fn monolithic_circuit_lowered(
    file_name: &str,
    source: &str,
    base: &Settings,
    lowered: &Lowered,
) -> Result<u64, String> {
    let (compilation, stats) = compiled_c(file_name, source, base, lowered)?;
    monolithic_count(&compilation.program, &stats)
}

/// The compile `C` is counted on ([`monolithic_compilation`]) with its blocks' sizes, lowered
/// through `lowered`, or why there is none.
fn compiled_c(
    file_name: &str,
    source: &str,
    base: &Settings,
    lowered: &Lowered,
) -> Result<(Compilation, Vec<BlockStats>), String> {
    let compilation = monolithic_compilation_with(file_name, source, base, lowered)?;
    let stats = lowered
        .stats(&compilation.program)
        .map_err(|e| e.to_string())?;
    Ok((compilation, stats))
}

/// `C` of a `--monolithic` program from its blocks' sizes: its `main`'s one block's
/// constraints.
fn monolithic_count(program: &Program, stats: &[BlockStats]) -> Result<u64, String> {
    // One block in `main` (other functions, if any survived, are not part of the circuit).
    let main_blocks: Vec<&BlockStats> = stats.iter().filter(|s| s.func == program.main).collect();
    match main_blocks.as_slice() {
        [one] => Ok(one.constraints as u64),
        _ => Err(format!(
            "`main` is {} blocks after merging it into one (a zkbc bug)",
            main_blocks.len()
        )),
    }
}

/// `source` compiled `--monolithic` at `-O3` with `base`'s front-end settings (`--field-cmp`,
/// `--compat`, `--stdlib-path`) and unrolling limit (`--max-unrolled`) and legalized, or why
/// there is no one-block circuit.
pub(crate) fn monolithic_compilation(
    file_name: &str,
    source: &str,
    base: &Settings,
) -> Result<driver::Compilation, String> {
    monolithic_compilation_with(file_name, source, base, &Lowered::new(base.lower))
}

/// [`monolithic_compilation`] sharing `lowered`'s caches.
fn monolithic_compilation_with(
    file_name: &str,
    source: &str,
    base: &Settings,
    lowered: &Lowered,
) -> Result<driver::Compilation, String> {
    let settings = c_settings(base);
    let options = lowered.share(settings.driver_options());
    let mut compilation =
        driver::compile(file_name, source, &options).map_err(|e| no_circuit_reason(&e))?;
    driver::legalize_for_r1cs(&mut compilation.program).map_err(|e| e.to_string())?;
    Ok(compilation)
}

/// The settings `C` is compiled with: `--monolithic` at `-O3`, with `base`'s front-end settings
/// and `--max-unrolled`.
fn c_settings(base: &Settings) -> Settings {
    Settings {
        merging: Merging::Monolithic,
        field_cmp: base.field_cmp,
        compat: base.compat,
        stdlib: base.stdlib.clone(),
        max_unrolled: base.max_unrolled,
        lower: base.lower,
        ..Settings::default()
    }
}

/// Whether the `--monolithic` baseline of `settings` is compiled with the options `C` is (the
/// defaults of `-O3`, `--min-block-size`, `--merge-policy` and `--max-steps`), so that one
/// compile serves both.
fn baseline_compiles_c(settings: &Settings) -> bool {
    let c = c_settings(settings);
    (
        settings.opt_level,
        settings.min_block_size,
        settings.policy,
        settings.max_steps,
    ) == (c.opt_level, c.min_block_size, c.policy, c.max_steps)
}

/// Why a `--monolithic` compile failed, in the few words a report prints after `none`:
/// `a loop bound is a run-time value` for the common case, the merge pass's reason otherwise.
pub fn no_circuit_reason(error: &CompileError) -> String {
    match error {
        CompileError::Monolithic(_, MergeError::RuntimeLoopBound { .. }) => {
            "a loop bound is a run-time value".into()
        }
        CompileError::Monolithic(_, e @ MergeError::TooLarge { .. }) => {
            format!(
                "unrolling would {}",
                e.reason().trim_start_matches("it would ")
            )
        }
        CompileError::Monolithic(_, MergeError::Unsupported { reason, .. }) => reason.clone(),
        other => other.to_string(),
    }
}

/// A stage of [`measure`], reported to its progress callback as it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Front end, optimizer and legalization.
    Compile,
    /// The interpreter on the inputs, every block execution assigned and checked as it comes
    /// (then [`Stage::Checked`] counts them).
    Run,
    /// Lowering every block to R1CS.
    Lower,
    /// Block executions checked so far (once per chunk of executions), of the run's total
    /// when it is known.
    Checked {
        /// Executions checked.
        done: usize,
        /// Executions in the run, when known (a run checked as it goes does not know it).
        total: Option<usize>,
    },
    /// Compiling, running and lowering the `--no-merge` and `--monolithic` baselines.
    Baselines,
}

impl Stage {
    /// A word for a progress bar.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Compile => "compiling",
            Stage::Run => "running and checking",
            Stage::Lower => "lowering",
            Stage::Checked { .. } => "checking",
            Stage::Baselines => "measuring the baselines",
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
    /// The lines the run's `log(...)` statements printed (none without inputs).
    pub log: Vec<String>,
    /// Where each block's constraints come from, in the report's block order, when measured
    /// by [`measure_attributing`].
    pub attribution: Option<Vec<r1cs::BlockAttribution>>,
}

/// A monolithic circuit's block of at least this many instructions (one chunk of the arena) is
/// lowered consuming its instructions when the caller does not keep the program.
const CONSUME_MIN_INSTS: usize = crate::ir::arena::CHUNK;

/// The source lines of the block of each function of one block, by function and block.
fn one_block_sources(program: &Program) -> Vec<((FuncId, BlockId), Option<String>)> {
    program
        .func_ids()
        .filter_map(|f| match program.func(f).layout.as_slice() {
            &[b] => Some(((f, b), program.block_source(f, b))),
            _ => None,
        })
        .collect()
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
    measure_with(file_name, source, inputs, settings, progress, false)
}

/// [`measure`] that also attributes every block's constraints ([`Measurement::attribution`],
/// what `zkbc profile` shares out over source lines): the blocks block formation and the
/// report lower record their origins as they are lowered (one mark per instruction), so the
/// attribution lowers nothing again.
pub fn measure_attributing(
    file_name: &str,
    source: &str,
    inputs: Option<&serde_json::Value>,
    settings: &Settings,
    progress: &dyn Fn(Stage),
) -> Result<Measurement, MeasureError> {
    measure_with(file_name, source, inputs, settings, progress, true)
}

fn measure_with(
    file_name: &str,
    source: &str,
    inputs: Option<&serde_json::Value>,
    settings: &Settings,
    progress: &dyn Fn(Stage),
    attributing: bool,
) -> Result<Measurement, MeasureError> {
    progress(Stage::Compile);
    let lowered = match attributing {
        true => Lowered::attributing(settings.lower),
        false => Lowered::new(settings.lower),
    };
    let mut options = lowered.share(settings.driver_options());
    options.profile = inputs.cloned();
    // The profile runs of block formation, shared with the baselines' (the `--no-merge`
    // program is often the one formation started from, and has run already).
    let runs = std::rc::Rc::new(crate::cost::RunCache::default());
    options.session.profile_runs = Some(runs.clone());
    let mut compilation =
        driver::compile(file_name, source, &options).map_err(MeasureError::Compile)?;
    driver::legalize_for_r1cs(&mut compilation.program).map_err(MeasureError::Compile)?;
    let program = &compilation.program;

    // With inputs, the program runs and every block execution is assigned and checked as the
    // run hands it over (`r1cs::check_run`): the trace is never held whole. A failed run is
    // reported first, then a block that cannot be lowered, then an unsatisfied one.
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
            let total = compilation.executions.map(|n| n as usize);
            let checked = |done| progress(Stage::Checked { done, total });
            let opts = r1cs::CheckOptions {
                progress: Some(&checked),
                lower: settings.lower,
                ..r1cs::CheckOptions::default()
            };
            let (outcome, report) = crate::timing::stage("run and check", || {
                r1cs::check_run(program, opts, |sink| {
                    interp::run_with_sink(program, &values, limits, sink)
                })
            });
            let outcome = outcome.map_err(|f| {
                MeasureError::Run(match f.src {
                    Some(loc) => match &f.detail {
                        Some(d) => format!("{file_name}:{loc}: {} ({d})", f.kind),
                        None => format!("{file_name}:{loc}: {}", f.kind),
                    },
                    None => format!("{file_name}: {f}"),
                })
            })?;
            Some((outcome, report))
        }
        None => None,
    };

    progress(Stage::Lower);
    // A monolithic circuit's block gives its instructions to the lowering when the caller will
    // not read the program (`Settings::keep_ir`); the report's source lines are taken first.
    let consume = settings.merging == Merging::Monolithic && !settings.keep_ir;
    let sources: Vec<_> = match consume {
        true => one_block_sources(program),
        false => Vec::new(),
    };
    let stats = match settings.merging {
        // No formation scored a block, and the one block (an unrolled loop of 10^6
        // instructions) would only be fingerprinted for a cache that no later step reads.
        Merging::Monolithic if consume => {
            r1cs::stats_consuming(&mut compilation.program, CONSUME_MIN_INSTS, settings.lower)
        }
        Merging::Monolithic => r1cs::stats_opts(program, settings.lower),
        _ => lowered.stats(program),
    }
    .map_err(MeasureError::Lower)?;
    let program = &compilation.program;
    let attribution = match attributing {
        true => Some(
            crate::timing::stage("lower (attributing)", || lowered.0 .0.attribution(program))
                .map_err(MeasureError::Lower)?,
        ),
        false => None,
    };
    // The baselines' and `C`'s blocks need no origins.
    lowered.0 .0.stop_attributing();

    let (executions, outputs, satisfied) = match run {
        Some((outcome, report)) => {
            let report = report.map_err(MeasureError::Check)?;
            let outputs = compilation.outputs_to_json(&outcome.outputs);
            // `{"outputs": [...]}`: the report's `outputs` is the list itself.
            let outputs = outputs.get("outputs").cloned().unwrap_or(outputs);
            let executions: Executions = report
                .blocks
                .iter()
                .map(|b| ((b.func, b.block), Some(b.executions as u64)))
                .collect();
            (executions, Some((outputs, outcome.log)), Some(true))
        }
        None => (static_executions(program), None, None),
    };
    let (outputs, log) = match outputs {
        Some((outputs, log)) => (Some(outputs), log),
        None => (None, Vec::new()),
    };
    let mut cost = crate::timing::stage("cost", || {
        program_cost(
            &program_name(file_name),
            &settings.pipeline_name(),
            settings.min_block_size,
            program,
            &stats,
            &executions,
        )
    });
    for (c, s) in cost.blocks.iter_mut().zip(&stats) {
        if let Some((_, source)) = sources.iter().find(|(k, _)| *k == (s.func, s.block)) {
            c.source = source.clone();
        }
    }
    // `C`'s compile and its blocks' sizes, when the `--monolithic` baseline below is the same
    // compile.
    let mut c_compiled: Option<Result<(Compilation, Vec<BlockStats>), String>> = None;
    let (monolithic, monolithic_none) = match settings.merging {
        Merging::Monolithic => (
            Some(
                stats
                    .iter()
                    .filter(|s| s.func == program.main)
                    .map(|s| s.constraints as u64)
                    .sum::<u64>(),
            ),
            None,
        ),
        _ => {
            let counted = crate::timing::stage("monolithic C", || {
                let compiled = compiled_c(file_name, source, settings, &lowered);
                let count = compiled
                    .as_ref()
                    .map_err(|why| why.clone())
                    .and_then(|(c, stats)| monolithic_count(&c.program, stats));
                // Kept for the `--monolithic` baseline when it is the same compile.
                if settings.baselines && baseline_compiles_c(settings) {
                    c_compiled = Some(compiled);
                }
                count
            });
            match counted {
                Ok(c) => (Some(c), None),
                Err(why) => (None, Some(why)),
            }
        }
    };
    let mut cost = ProgramCost {
        field_cmp: settings.field_cmp.name().into(),
        outputs,
        satisfied,
        monolithic_constraints: monolithic,
        monolithic_none,
        ..cost
    };
    if settings.baselines {
        progress(Stage::Baselines);
        // The report's own cells stand for a baseline it is.
        let own = cost
            .report()
            .map_err(MeasureError::Cost)?
            .totals
            .sumcheck_cells;
        let mut baseline = |is_own: bool, merging: Merging| {
            if is_own {
                (own, None)
            } else {
                let name = match merging {
                    Merging::Off => "baseline --no-merge",
                    _ => "baseline --monolithic",
                };
                let compiled = match merging {
                    Merging::Monolithic => c_compiled.take(),
                    _ => None,
                };
                split(crate::timing::stage(name, || {
                    let at = (file_name, source, inputs);
                    baseline_cells(at, settings, merging, compiled, &lowered, &runs)
                }))
            }
        };
        // The `--monolithic` baseline first, so that `C`'s compile it may reuse is freed before
        // the `--no-merge` one is compiled.
        let (monolithic_cells, monolithic_none) =
            baseline(settings.merging == Merging::Monolithic, Merging::Monolithic);
        let (no_merge_cells, no_merge_none) = baseline(settings.is_no_merge(), Merging::Off);
        cost.baselines = Some(Baselines {
            no_merge_cells,
            no_merge_none,
            monolithic_cells,
            monolithic_none,
        });
    }
    let report = cost.report().map_err(MeasureError::Cost)?;
    Ok(Measurement {
        compilation,
        cost,
        report,
        log,
        attribution,
    })
}

/// `Ok(cells)` as (cells, no reason), `Err(why)` as (no cells, why).
fn split(result: Result<Option<u128>, String>) -> (Option<u128>, Option<String>) {
    match result {
        Ok(cells) => (cells, None),
        Err(why) => (None, Some(why)),
    }
}

/// The sumcheck cells of `settings` with `merging` instead: compiled and lowered (unless
/// `compiled` is that compile already, legalized, with its blocks' sizes, or why it failed),
/// and run on `inputs` (or counted statically without them), as [`measure`] counts, without
/// checking the instances again.
/// `Ok(None)`: executions unknown. `Err`: why there is no such program or it could not be
/// measured (for `--monolithic`, usually that a loop bound is a run-time value).
fn baseline_cells(
    (file_name, source, inputs): (&str, &str, Option<&serde_json::Value>),
    settings: &Settings,
    merging: Merging,
    compiled: Option<Result<(Compilation, Vec<BlockStats>), String>>,
    lowered: &Lowered,
    runs: &crate::cost::RunCache,
) -> Result<Option<u128>, String> {
    let settings = Settings {
        merging,
        baselines: false,
        // One circuit inlines every call, whatever the report keeps.
        inline: match merging {
            Merging::Monolithic => crate::opt::calls::Inline::All,
            _ => settings.inline,
        },
        ..settings.clone()
    };
    if merging == Merging::Monolithic && settings.opt_level < OptLevel::O2 {
        return Err("--monolithic needs -O2 or -O3".into());
    }
    let (compilation, stats) = match compiled {
        Some(compiled) => {
            let (compilation, stats) = compiled?;
            (compilation, Some(stats))
        }
        None => {
            let options = lowered.share(settings.driver_options());
            let mut compilation =
                driver::compile(file_name, source, &options).map_err(|e| no_circuit_reason(&e))?;
            driver::legalize_for_r1cs(&mut compilation.program).map_err(|e| e.to_string())?;
            (compilation, None)
        }
    };
    let program = &compilation.program;
    // A program of one function in one block runs that block once on any inputs it accepts,
    // and these inputs ran the report's own program: no run counts it (the `--monolithic`
    // baseline; its run was 22 ms of `poseidon_merkle20`'s report for a count of 1).
    let one_block = program.funcs.len() == 1 && program.main_func().layout.len() == 1;
    let executions = match inputs {
        Some(json) if one_block => {
            compilation.inputs_from_json(json)?;
            static_executions(program)
        }
        Some(json) => {
            let values = compilation.inputs_from_json(json)?;
            let limits = interp::Limits {
                max_steps: settings.max_steps,
                ..interp::Limits::default()
            };
            // The program ran on these inputs, so only a limit should stop this one (unrolled
            // and predicated code runs more instructions). Its executions are counted, not
            // traced: the cells need the counts alone, and a trace of a long run is most of
            // the report's memory (the --no-merge baseline of a 200,000-iteration loop
            // traced 400,000 block executions, ~100 MB, to count them). The program that
            // block formation started from has run already, and is often this one.
            let counts = match runs.counts(program, &values, limits) {
                Some(counts) => counts,
                None => interp::count_blocks(program, &values, limits)
                    .map_err(|f| format!("its run failed: {}", f.kind))?,
            };
            counts
                .into_iter()
                .map(|(block, n)| (block, Some(n)))
                .collect()
        }
        None => static_executions(program),
    };
    // Without inputs, a block of the circuit whose executions are not known statically leaves
    // the cells unknown whatever the blocks' sizes: then nothing is lowered.
    let main = program.func(program.main);
    if inputs.is_none()
        && main.layout.iter().any(|b| {
            executions
                .get(&(program.main, *b))
                .is_some_and(Option::is_none)
        })
    {
        return Ok(None);
    }
    let stats = match stats {
        Some(stats) => stats,
        None => lowered.stats(program).map_err(|e| e.to_string())?,
    };
    let cost = program_cost(
        &program_name(file_name),
        &settings.pipeline_name(),
        settings.min_block_size,
        program,
        &stats,
        &executions,
    );
    let report = cost.report().map_err(|e| e.to_string())?;
    Ok(report.totals.sumcheck_cells)
}

/// The program cost-driven block formation starts from under `settings` — the same compile
/// stopped before the merge pass (the `-O2` pipeline is `-O3`'s up to it), with the latches
/// formation adds (`opt::merge::add_latches`) — and its measurement. Its blocks are the ones
/// the formation's decisions name, so `zkbc report --format dot --explain` draws this CFG. The
/// report does not list the latches (they were added after it was computed).
pub fn before_merging(
    file_name: &str,
    source: &str,
    inputs: Option<&serde_json::Value>,
    settings: &Settings,
    progress: &dyn Fn(Stage),
) -> Result<Measurement, MeasureError> {
    let unmerged = Settings {
        opt_level: OptLevel::O2,
        merging: Merging::Default,
        baselines: false,
        ..settings.clone()
    };
    let mut m = measure(file_name, source, inputs, &unmerged, progress)?;
    for func in &mut m.compilation.program.funcs {
        crate::opt::merge::add_latches(func);
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound formation's cuts are held to ([`driver::bound::executed_constraints`],
    /// without checking any execution) is the `-O0` report's own executed constraints.
    #[test]
    fn executed_constraints_without_checking_are_the_report_s() {
        let o0 = Settings {
            opt_level: OptLevel::O0,
            baselines: false,
            ..Settings::default()
        };
        for name in ["bubble_sort", "collatz", "gcd", "isqrt", "while_collatz"] {
            let file = format!("circuits/{name}.zok");
            let source = std::fs::read_to_string(&file).unwrap();
            let json: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(format!("circuits/{name}.json")).unwrap(),
            )
            .unwrap();
            let reported = measure(&file, &source, Some(&json), &o0, &|_| {})
                .unwrap()
                .report
                .totals
                .executed_constraints;
            assert!(reported.is_some_and(|n| n > 0), "{name}");
            assert_eq!(
                driver::bound::executed_constraints(&file, &source, &json, &o0.driver_options()),
                reported,
                "{name}"
            );
        }
    }

    /// The `--monolithic` baseline computed from `C`'s compile (what [`measure`] does when
    /// [`baseline_compiles_c`]) is the one a fresh compile gives: with inputs, without, and
    /// when there is no one-block program.
    #[test]
    fn the_monolithic_baseline_from_c_s_compile_is_a_fresh_compile_s() {
        let settings = Settings::default();
        assert!(baseline_compiles_c(&settings));
        assert!(!baseline_compiles_c(&Settings {
            opt_level: OptLevel::O2,
            ..Settings::default()
        }));
        let mut measured = 0;
        for name in ["bubble_sort", "counted_loop_10k", "gcd", "mimc"] {
            let file = format!("circuits/{name}.zok");
            let source = std::fs::read_to_string(&file).unwrap();
            let json: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(format!("circuits/{name}.json")).unwrap(),
            )
            .unwrap();
            for inputs in [None, Some(&json)] {
                let cells = |compiled| {
                    let lowered = Lowered::default();
                    let runs = crate::cost::RunCache::default();
                    let at = (file.as_str(), source.as_str(), inputs);
                    baseline_cells(
                        at,
                        &settings,
                        Merging::Monolithic,
                        compiled,
                        &lowered,
                        &runs,
                    )
                };
                let lowered = Lowered::default();
                let from_c = compiled_c(&file, &source, &settings, &lowered);
                let fresh = cells(None);
                measured += usize::from(matches!(fresh, Ok(Some(_))));
                let from_c = cells(Some(from_c));
                assert_eq!(from_c, fresh, "{name}, inputs: {}", inputs.is_some());
            }
        }
        // `gcd` has a run-time loop bound (no one-block program); the others have cells.
        assert_eq!(measured, 6);
    }

    /// A program of one block, whose `--monolithic` baseline [`baseline_cells`] counts without
    /// a run, runs that block exactly once on inputs it accepts, as the static counts say.
    #[test]
    fn a_one_block_program_runs_its_block_once() {
        let mut one_block = 0;
        for name in [
            "bubble_sort",
            "counted_loop_10k",
            "mimc",
            "collatz",
            "isqrt",
        ] {
            let file = format!("circuits/{name}.zok");
            let source = std::fs::read_to_string(&file).unwrap();
            let json: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(format!("circuits/{name}.json")).unwrap(),
            )
            .unwrap();
            let Ok(compilation) = monolithic_compilation(&file, &source, &Settings::default())
            else {
                continue;
            };
            let program = &compilation.program;
            if program.funcs.len() != 1 || program.main_func().layout.len() != 1 {
                continue;
            }
            one_block += 1;
            let inputs = compilation.inputs_from_json(&json).unwrap();
            let run = interp::count_blocks(program, &inputs, interp::Limits::default()).unwrap();
            let run: Executions = run.into_iter().map(|(k, n)| (k, Some(n))).collect();
            assert_eq!(run, static_executions(program), "{name}");
        }
        assert!(one_block >= 3, "{one_block} one-block programs");
    }
}
