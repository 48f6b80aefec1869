//! The flags several commands share (compile, run, output and measurement flags), their help
//! texts, and the output-form enums: the clap definitions that `main.rs`'s commands flatten.

use super::{read, read_json, user_error, Exit};
use std::path::PathBuf;
use zkbc::ir::interp;
use zkbc::query::dot;
use zkbc::report::measure::{self, Settings};
use zkbc::{driver, opt, r1cs};

// The help of a flag that several commands take, written once so that it means one thing.
pub(crate) const INPUTS_HELP: &str =
    "Inputs (`-` for stdin): for .zok a JSON object keyed by main's \
    parameter names, or a JSON array with one value per parameter (field and uN as decimal \
    strings or numbers, uN also as 0x hexadecimal, bools, arrays as arrays, structs as \
    objects); for IR a JSON array, one entry per parameter. Default: no inputs";
pub(crate) const MAX_STEPS_HELP: &str =
    "The most IR instructions one run may execute; a run that needs \
    more fails with a step-limit error";
pub(crate) const QUIET_HELP: &str =
    "No progress bar and no status lines (such as the files `export` \
    wrote); the result, warnings and errors still print";
pub(crate) const LOG_HELP: &str =
    "Print the lines of the program's `log(...)` statements on stderr, in \
    ZoKrates' format (`x is {\"a\":[\"1\"],\"b\":true}`), after a run that succeeds";
pub(crate) const OPT_LEVEL_HELP: &str = "Optimization level: 0 (none), 1 (inline, mem2reg, dce, \
    simplify_cfg), 2 (adds sccp, fold_bits, ranges, indvars, remat, gvn), 3 (the default; adds \
    block merging). `zkbc table` takes a comma-separated list (a row per level)";
pub(crate) const MIN_BLOCK_SIZE_HELP: &str =
    "MIN_BLOCK_SIZE of the merge threshold max(MIN_BLOCK_SIZE, \
    next_pow2(largest block)) (`--merge-policy threshold`), and of the report's uniform model. \
    `zkbc table` takes a comma-separated list (a row per size)";
pub(crate) const MERGE_POLICY_HELP: &str =
    "How -O3 decides what to merge: `cost` (the default) merges \
    what lowers the predicted sumcheck cells and keeps the cheapest of that, no merging, one \
    block and the threshold rule; `threshold` is CoBBl's rule: every merge component below \
    THRESHOLD. `zkbc table` takes a comma-separated list (a row per policy at -O3)";
pub(crate) const FIELD_CMP_HELP: &str =
    "Comparison of two non-constant field elements: `complete` (over \
    the whole field) or `zokrates` (ZoKrates' semantics: both operands must be below 2^252, \
    else the comparison fails at run time and the instance is unsatisfiable; cheaper)";
pub(crate) const STDLIB_PATH_HELP: &str =
    "The standard library root: imports whose path does not start \
    with `./` or `../` are resolved against it, as in ZoKrates (default: the ZOKRATES_STDLIB \
    environment variable; without either, zkbc's own library built into the binary)";
pub(crate) const COMPAT_HELP: &str =
    "Semantics where zkbc and ZoKrates differ: `zkbc` (the default: every \
    conversion is checked) or `zokrates` (ZoKrates 0.8's: `field_to_uN` keeps the low N bits of \
    a value that does not fit, and `--field-cmp zokrates`)";
pub(crate) const FORMAT_HELP: &str =
    "Output form (the values below; text for people is the default)";
pub(crate) const METRIC_HELP: &str = "What to measure: for `table --format pivot` the total \
    to tabulate (constraints, executed_constraints, transitions, sumcheck_cells, uniform_cells, \
    padding_waste, rounds, monolithic_cells); for `profile` what a source line costs \
    (constraints, executed, cells)";

/// What every command that runs the program takes.
#[derive(clap::Args)]
pub(crate) struct ExecutionArgs {
    #[arg(long, default_value_t = interp::Limits::default().max_steps, help = MAX_STEPS_HELP)]
    pub(crate) max_steps: u64,
    #[arg(long, help = LOG_HELP)]
    pub(crate) log: bool,
}

/// `-q/--quiet`, on every command that prints progress or status lines.
#[derive(clap::Args)]
pub(crate) struct QuietArg {
    #[arg(short = 'q', long, help = QUIET_HELP)]
    pub(crate) quiet: bool,
}

/// `-o/--output` of the commands that write one file (stdout without it).
#[derive(clap::Args)]
pub(crate) struct OutputArg {
    /// Write the output to this file instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub(crate) output: Option<PathBuf>,
}

/// `-o/--output` of `export`, which writes a directory (`--out` is its former spelling).
#[derive(clap::Args)]
pub(crate) struct OutputDirArg {
    /// The directory to write the files into (created if missing).
    #[arg(short = 'o', long = "output", alias = "out", value_name = "OUT")]
    pub(crate) output: PathBuf,
}

/// Graphs `zkbc compile --show` draws: the library's [`dot::Show`], wrapped only to give clap
/// its values' names and help (the library does not depend on clap).
#[derive(Clone, Copy)]
pub(crate) struct Show(pub(crate) dot::Show);

impl clap::ValueEnum for Show {
    fn value_variants<'a>() -> &'a [Self] {
        use dot::Show::*;
        &[
            Show(Cfg),
            Show(Cdg),
            Show(CdgSeed),
            Show(CdgBoth),
            Show(Pdg),
            Show(Regions),
        ]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        use clap::builder::PossibleValue;
        let (name, help) = match self.0 {
            dot::Show::Cfg => ("cfg", "The control-flow graph"),
            dot::Show::Cdg => (
                "cdg",
                "The control dependence graph (post-dominance definition, what the PDG and the \
                 structure queries use)",
            ),
            dot::Show::CdgSeed => ("cdg-seed", "The seed's cut-based control dependence"),
            dot::Show::CdgBoth => (
                "cdg-both",
                "Both control dependence relations: solid where they agree, dashed only \
                 post-dominance, dotted only the seed's",
            ),
            dot::Show::Pdg => (
                "pdg",
                "The program dependence graph (data, control and phi edges)",
            ),
            dot::Show::Regions => (
                "regions",
                "The CFG with canonical SESE regions as nested clusters",
            ),
        };
        Some(PossibleValue::new(name).help(help))
    }
}

/// Output forms of `zkbc report`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum ReportFormat {
    /// An aligned per-block table and the totals.
    Table,
    /// The JSON schema of docs/report.md.
    Json,
    /// A bar chart of block sizes against padded sizes and the threshold.
    Svg,
    /// Graphviz DOT of main's CFG with merge components as clusters.
    Dot,
}

/// Output forms of `zkbc table`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum TableFormat {
    /// A markdown table, one row per program and pipeline.
    Markdown,
    /// The same rows as CSV with raw numbers.
    Csv,
    /// One metric (--metric): programs down, pipelines across.
    Pivot,
    /// A JSON array of the reports (docs/report.md's schema); a failed row is an object with
    /// `error`.
    Json,
}

/// Output forms of `zkbc check` and `zkbc prove`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ResultFormat {
    /// Lines for people.
    Text,
    /// One JSON object (fields in docs/report.md, "check and prove as JSON").
    Json,
}

/// What every command that compiles takes.
#[derive(clap::Args)]
pub(crate) struct CompileArgs {
    /// The program: ZoKrates source (.zok) or text-format IR (any other extension).
    pub(crate) file: PathBuf,
    #[arg(long, help = INPUTS_HELP)]
    pub(crate) inputs: Option<PathBuf>,
    /// main's arguments as ZoKrates' `compute-witness -a` takes them, instead of --inputs: its
    /// parameters flattened to scalars in order (arrays element by element, structs member by
    /// member), each decimal or 0x hexadecimal, bools as 0 or 1. Put it last.
    #[arg(short = 'a', long = "args", num_args = 1.., value_name = "ARG", conflicts_with = "inputs")]
    pub(crate) args: Vec<String>,
    #[arg(short = 'O', long = "opt-level", default_value = "3", value_parser = parse_level, help = OPT_LEVEL_HELP)]
    pub(crate) opt_level: opt::OptLevel,
    /// Do not merge blocks (-O3 without the merge pass).
    #[arg(long, conflicts_with = "monolithic")]
    pub(crate) no_merge: bool,
    #[arg(long, default_value = "cost", value_parser = parse_policy, help = MERGE_POLICY_HELP)]
    pub(crate) merge_policy: opt::merge::MergePolicy,
    #[arg(long, default_value_t = opt::merge::DEFAULT_MIN_BLOCK_SIZE, help = MIN_BLOCK_SIZE_HELP)]
    pub(crate) min_block_size: u64,
    /// Merge the whole program into one block (every branch predicated, every loop unrolled):
    /// the single circuit a ZoKrates-style compiler emits. Needs -O2 or -O3.
    #[arg(long)]
    pub(crate) monolithic: bool,
    /// The most instructions one merge (or --monolithic unrolling) may emit; beyond it the
    /// compile fails with an error instead of exhausting memory.
    #[arg(long, default_value_t = opt::merge::DEFAULT_MAX_UNROLLED)]
    pub(crate) max_unrolled: usize,
    /// Block formation's work budget: how many instructions of candidate programs the
    /// cost-driven search may merge and score. When it runs out the search stops with the best
    /// formation found so far (`--explain` says so). It counts work, not seconds, so results
    /// do not depend on the machine's load.
    #[arg(long, default_value_t = opt::merge::DEFAULT_FORMATION_BUDGET, value_name = "INSTRUCTIONS")]
    pub(crate) formation_budget: u64,
    /// The most constraints one block may have (before linear elimination); lowering a larger
    /// block fails with an error instead of exhausting memory.
    #[arg(long, default_value_t = r1cs::DEFAULT_MAX_CONSTRAINTS)]
    pub(crate) max_constraints: usize,
    #[arg(long, default_value = "complete", value_parser = parse_field_cmp, help = FIELD_CMP_HELP)]
    pub(crate) field_cmp: measure::FieldCmp,
    /// Inline every call (`all`), keep calls as blocks (`none`): a function's blocks exist
    /// once and run once per call, arguments and a return label in the state, values live
    /// across a call on a stack in memory; or decide per function (`cost`): a function with
    /// several call sites is kept when its estimated sumcheck cells are at most 2% above
    /// inlining's, for a smaller static circuit; one called from one site is inlined.
    /// `report --explain` lists the decisions (docs/calls.md).
    #[arg(long, default_value = "cost", value_parser = parse_inline)]
    pub(crate) inline: opt::calls::Inline,
    #[command(flatten)]
    pub(crate) front: FrontArgs,
    #[command(flatten)]
    pub(crate) measured: MeasuredArgs,
}

/// What every command that compiles can say about its own cost, on stderr when it ends.
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct MeasuredArgs {
    #[arg(long, help = TIME_PASSES_HELP)]
    pub(crate) time_passes: bool,
    /// Print the wall time and the peak memory (max RSS) of the whole command (on stderr).
    #[arg(long)]
    pub(crate) stats: bool,
}

pub(crate) const TIME_PASSES_HELP: &str =
    "Print the time (and, where recorded, the peak memory) of every stage and optimizer pass, then the command's wall time and peak memory (on stderr)";

/// `--time-passes` and `--stats` as the command line gave them, read when the command ends.
pub(crate) static MEASURED: std::sync::OnceLock<MeasuredArgs> = std::sync::OnceLock::new();

impl MeasuredArgs {
    /// Starts recording stages when either flag asks for it (once per process).
    pub(crate) fn start(self) {
        let time_passes = self.time_passes;
        if (self.time_passes || self.stats) && MEASURED.set(self).is_ok() {
            // Each stage's own peak only when the table that prints it is asked for: measuring
            // it resets the kernel's high-water mark, which `/usr/bin/time` then misreads.
            if time_passes {
                zkbc::timing::enable_stage_peaks();
            } else {
                zkbc::timing::enable();
            }
        }
    }
}

/// What `--time-passes` and `--stats` print when the command ends.
pub(crate) fn print_measured(start: std::time::Instant) {
    let Some(measured) = MEASURED.get() else {
        return;
    };
    if measured.time_passes {
        eprint!("{}", zkbc::timing::table(&zkbc::timing::take()));
    }
    if measured.stats || measured.time_passes {
        eprint!("{}", zkbc::timing::stats_line(start));
    }
}

/// How the front end finds modules and which semantics it follows; every command that reads a
/// ZoKrates program takes them.
#[derive(clap::Args, Clone)]
pub(crate) struct FrontArgs {
    #[arg(long, value_name = "DIR", help = STDLIB_PATH_HELP)]
    pub(crate) stdlib_path: Option<PathBuf>,
    #[arg(long, default_value = "zkbc", value_parser = parse_compat, help = COMPAT_HELP)]
    pub(crate) compat: zkbc::front::Compat,
}

impl FrontArgs {
    /// `--stdlib-path`, else `ZOKRATES_STDLIB` (as ZoKrates reads them).
    pub(crate) fn stdlib(&self) -> Option<PathBuf> {
        self.stdlib_path.clone().or_else(|| {
            std::env::var_os("ZOKRATES_STDLIB")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

    /// The front end's options, with `field_cmp` (ZoKrates' under `--compat zokrates`).
    pub(crate) fn options(&self, field_cmp: zkbc::front::FieldCmp) -> zkbc::front::FrontOptions {
        let options = zkbc::front::FrontOptions {
            field_cmp,
            compat: self.compat,
            stdlib: self.stdlib(),
        };
        zkbc::front::FrontOptions {
            field_cmp: options.effective_field_cmp(),
            ..options
        }
    }
}

pub(crate) fn parse_compat(s: &str) -> Result<zkbc::front::Compat, String> {
    s.parse()
}

pub(crate) fn parse_level(s: &str) -> Result<opt::OptLevel, String> {
    s.parse()
}

pub(crate) fn parse_field_cmp(s: &str) -> Result<measure::FieldCmp, String> {
    s.parse()
}

pub(crate) fn parse_inline(s: &str) -> Result<opt::calls::Inline, String> {
    s.parse()
}

pub(crate) fn parse_policy(s: &str) -> Result<opt::merge::MergePolicy, String> {
    s.parse()
}

impl CompileArgs {
    /// The merge mode the flags ask for.
    pub(crate) fn merging(&self) -> zkbc::report::measure::Merging {
        use zkbc::report::measure::Merging;
        match (self.no_merge, self.monolithic) {
            (true, _) => Merging::Off,
            (_, true) => Merging::Monolithic,
            _ => Merging::Default,
        }
    }

    /// Reads and compiles the file; a compile error is exit status 2.
    /// The pipeline settings the flags ask for (and the environment: [`super::lower_options`]).
    pub(crate) fn settings(&self, max_steps: u64) -> Settings {
        self.measured.start();
        let front = self.front.options(self.field_cmp);
        Settings {
            opt_level: self.opt_level,
            min_block_size: self.min_block_size,
            merging: self.merging(),
            policy: self.merge_policy,
            max_steps,
            max_unrolled: self.max_unrolled,
            formation_budget: self.formation_budget,
            field_cmp: front.field_cmp,
            compat: front.compat,
            stdlib: front.stdlib,
            baselines: true,
            keep_ir: true,
            inline: self.inline,
            lower: super::lower_options(self.max_constraints),
        }
    }

    /// The inputs in the program's JSON encoding: from `-a`, or read from the `--inputs` file
    /// (`-` is stdin), or none.
    pub(crate) fn input_json(&self) -> Result<Option<serde_json::Value>, Exit> {
        if self.args.is_empty() {
            return self.inputs.as_deref().map(read_json).transpose();
        }
        let text = read(&self.file)?;
        let options = self
            .settings(Settings::default().max_steps)
            .driver_options();
        driver::inputs_from_args_with(
            &self.file.display().to_string(),
            &text,
            &self.args,
            &options,
        )
        .map(Some)
        .map_err(|e| user_error(e.to_string()))
    }

    pub(crate) fn compile(&self) -> Result<driver::Compilation, Exit> {
        self.compile_profiled(None, Settings::default().max_steps)
    }

    /// [`CompileArgs::compile`], with block formation profiled on these inputs (runs limited
    /// to `max_steps`).
    pub(crate) fn compile_profiled(
        &self,
        profile: Option<serde_json::Value>,
        max_steps: u64,
    ) -> Result<driver::Compilation, Exit> {
        let text = read(&self.file)?;
        let mut options = self.settings(max_steps).driver_options();
        options.profile = profile;
        driver::compile(&self.file.display().to_string(), &text, &options)
            .map_err(|e| user_error(e.to_string()))
    }
}

/// Output forms of `zkbc compile`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Emit {
    /// The IR in the text format.
    Ir,
    /// Graphviz DOT of the graph chosen by --show (cfg unless given).
    Dot,
}
