//! The `zkbc` command line. Exit status: 0 success, 1 the program failed at run time (or a
//! check failed), 2 the input does not compile or is malformed.
//!
//! This file holds the clap definitions of the commands and their flags, and the dispatch;
//! the commands themselves are in `cli/`, grouped by what they work on.

/// mimalloc: lowering allocates many short-lived vectors, and per-thread heaps let the parallel
/// constraint counting scale (measured in `benches/r1cs.rs`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

use clap::{Parser, Subcommand};
use cli::circuit::{check_command, export_command, prove_command};
use cli::ir_text::{interp_command, opt_command, verify_command};
use cli::program::{abi_command, compile_command, query, run_command};
use cli::report::{report_command, table_command, table_pipelines, zokrates_table_command};
use cli::{read, read_json, user_error, Exit};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use zkbc::driver::measure::{self, Settings};
use zkbc::ir::interp;
use zkbc::{driver, opt, r1cs};

#[derive(Parser)]
#[command(
    name = "zkbc",
    version,
    about = "Compile ZoKrates programs to block IR and per-block R1CS over BN254, and report what a block-based sumcheck prover would pay",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a text-format IR program in the reference interpreter and print its outputs as JSON.
    Interp {
        /// The IR file (text format, see docs/ir.md).
        file: PathBuf,
        /// JSON array with one entry per parameter of main (field and uN as decimal strings,
        /// bools as true/false, arrays as arrays). Default: no inputs.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Also print the block trace (each executed block with its parameters) on stderr.
        #[arg(long)]
        trace: bool,
        /// Maximum number of instructions executed.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
    },
    /// Compile and run a program, lower every executed block to its R1CS instance, assign it
    /// from the run's trace and check it is satisfied (exit 0 only if every executed block is).
    Check {
        #[command(flatten)]
        compile: CompileArgs,
        /// Inputs, as for `run`.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Maximum number of IR instructions executed.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
        /// Also look for under-constrained blocks: for every executed block, change each output
        /// leaf and each witness in an assertion-shaped constraint, repair the other witnesses,
        /// and report every instance that still accepts (exit status 1 if any).
        #[arg(long)]
        soundness: bool,
    },
    /// Compile a program, lower every block to R1CS, run it on the inputs (checking every
    /// executed block's instance), and report what a block-based sumcheck prover pays: padded
    /// sizes, padding waste, sumcheck cells (see docs/report.md). Without --inputs the
    /// executions are counted statically where they are known.
    Report {
        #[command(flatten)]
        compile: CompileArgs,
        /// Inputs, as for `run`. Without it, a static report.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Output form.
        #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
        format: ReportFormat,
        /// Write the report to this file instead of stdout.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// No progress bar.
        #[arg(long, short = 'q')]
        quiet: bool,
        /// Maximum number of IR instructions executed.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
        /// Also say what cost-driven block formation decided and why: every merge component
        /// it considered, per round, with its predicted cells kept and merged, and the
        /// whole-program formations it compared (text after the table, an `explain` array in
        /// JSON, coloured clusters on the unmerged CFG in DOT).
        #[arg(long)]
        explain: bool,
    },
    /// Prove every executed block with the data-parallel sumcheck (Spartan's first sumcheck, as
    /// spartan_parallel runs it), verify the proof, and print the measured prover and verifier
    /// time per block beside its sumcheck cells. There is no polynomial commitment: this
    /// measures the prover's sumcheck work; it is not a succinct or zero-knowledge proof.
    Prove {
        #[command(flatten)]
        compile: CompileArgs,
        /// Inputs, as for `run`.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Maximum number of IR instructions executed.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
    },
    /// One table over many programs and pipelines (like Bril's brench): a row per program,
    /// -O level and min block size, with the report's totals. Program NAME.zok runs on
    /// INPUTS_DIR/NAME.json when that file exists and is reported statically otherwise.
    Table {
        /// The programs.
        #[arg(required_unless_present = "zokrates")]
        files: Vec<PathBuf>,
        /// Instead of the programs: the constraint parity table of a ZoKrates suite folder
        /// (NAME.zok beside NAME.cases.json with `zokrates_constraints`): per program,
        /// ZoKrates' count, zkbc's `--monolithic -O3` block, the circuit `export --monolithic`
        /// writes (no block interface: the count compared), the block-based sumcheck cells, and
        /// whether zkbc is at or below ZoKrates. Markdown only.
        #[arg(long, value_name = "DIR", conflicts_with = "files")]
        zokrates: Option<PathBuf>,
        /// Where NAME.json inputs are looked up (default: each program's own directory).
        #[arg(long)]
        inputs_dir: Option<PathBuf>,
        /// Comma-separated -O levels.
        #[arg(short = 'O', long = "opt-levels", value_delimiter = ',', default_value = "1,2,3", value_parser = parse_level)]
        opt_levels: Vec<opt::OptLevel>,
        /// Comma-separated MIN_BLOCK_SIZE values.
        #[arg(long, value_delimiter = ',', default_value = "1024")]
        min_block_sizes: Vec<u64>,
        /// Comma-separated merge policies of the -O3 rows: `cost` (the default: decided by
        /// predicted cells) and `threshold` (the seed's rule, at each MIN_BLOCK_SIZE).
        #[arg(long, value_delimiter = ',', default_value = "cost", value_parser = parse_policy)]
        merge_policies: Vec<opt::merge::MergePolicy>,
        /// Also a row per program and level without merging (`--no-merge`).
        #[arg(long)]
        with_no_merge: bool,
        /// Also a row per program at -O3 `--monolithic` (programs with a runtime loop bound,
        /// which have no one-block circuit, are left out of those rows).
        #[arg(long)]
        with_monolithic: bool,
        /// Output form.
        #[arg(long, value_enum, default_value_t = TableFormat::Markdown)]
        format: TableFormat,
        /// With --format pivot: the total to tabulate (constraints, executed_constraints,
        /// transitions, sumcheck_cells, uniform_cells, padding_waste, rounds, monolithic_cells).
        #[arg(long, default_value = "sumcheck_cells")]
        metric: String,
        /// Write the table to this file instead of stdout.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// No progress bar.
        #[arg(long, short = 'q')]
        quiet: bool,
        /// Maximum number of IR instructions executed per run.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
        /// Comparison of two non-constant field elements, as for the compiling commands.
        #[arg(long, default_value = "complete", value_parser = parse_field_cmp)]
        field_cmp: measure::FieldCmp,
    },
    /// Write each executed block's instance as an iden3 `.r1cs` file and each of its executions
    /// as a `.wtns` witness (the formats circom writes and snarkjs reads) into a directory. A
    /// one-block program (`--monolithic`) is written as one circuit, `main.r1cs` with
    /// `main.sym` and `main.wtns`, whose public wires are exactly main's outputs and public
    /// inputs (parameters are public unless declared `private`, as in ZoKrates); a block-based
    /// export makes every block's state public and warns about each private input of main.
    Export {
        #[command(flatten)]
        compile: CompileArgs,
        /// Inputs, as for `run`; without them only the constraint systems are written.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Maximum number of IR instructions executed.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
        /// The directory to write (created if missing).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
    },
    /// Print main's interface in ZoKrates' `abi.json` shape: each input's name, visibility
    /// (public unless declared `private`) and type, and the output type.
    Abi {
        /// The program (ZoKrates source, .zok).
        file: PathBuf,
    },
    /// Check a text-format IR program against every IR invariant and list each violation.
    Verify {
        /// The IR file.
        file: PathBuf,
    },
    /// Compile a program (ZoKrates .zok, or IR text), run it in the reference interpreter and
    /// print `{"outputs": [...]}` (one entry per returned value).
    Run {
        #[command(flatten)]
        compile: CompileArgs,
        /// Inputs (`-` for stdin): for .zok a JSON object keyed by main's parameter names, or a
        /// JSON array with one value per parameter (field and uN as decimal strings or numbers,
        /// uN also as 0x hexadecimal, bools, arrays as arrays, structs as objects); for IR a
        /// JSON array, one entry per parameter. Default: no inputs.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Maximum number of IR instructions executed.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
        /// Print the lines of the program's `log(...)` statements on stderr, in ZoKrates'
        /// format (`x is {"a":["1"],"b":true}`), after a run that succeeds.
        #[arg(long)]
        log: bool,
    },
    /// Compile a program (ZoKrates .zok, or IR text) and print it in the requested form.
    Compile {
        #[command(flatten)]
        compile: CompileArgs,
        /// Inputs, as for `run`: block formation is profiled on them (their execution counts
        /// decide what is merged), so this prints the program `report --inputs` measures.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// What to print.
        #[arg(long, value_enum, default_value_t = Emit::Ir)]
        emit: Emit,
        /// With `--emit dot`: which graph to draw.
        #[arg(long, value_enum, default_value_t = Show::Cfg)]
        show: Show,
    },
    /// Optimize a text-format IR program and print the result.
    Opt {
        /// The IR file.
        file: PathBuf,
        /// Comma-separated passes to run once each, in order (inline, mem2reg, sccp, fold_bits,
        /// ranges, indvars, remat, gvn, dce, simplify_cfg, merge). Without it, the pipeline of
        /// `-O`.
        #[arg(long, value_delimiter = ',')]
        passes: Option<Vec<String>>,
        /// Optimization level 0 to 3, used when `--passes` is not given.
        #[arg(short = 'O', long = "opt-level", default_value = "3")]
        level: String,
        /// Print the program (on stderr) after every run of this pass; may be repeated.
        #[arg(long)]
        print_after: Vec<String>,
        /// Do not run this pass; may be repeated.
        #[arg(long)]
        skip: Vec<String>,
        /// Print the time and changes of every pass run (on stderr).
        #[arg(long)]
        time_passes: bool,
    },
    /// Find every match of a structure query (SESE regions, counted loops, idioms) in a
    /// ZoKrates program (.zok) or a text-format IR program, with its location.
    Query {
        /// The program (.zok, or IR text in any other file).
        #[arg(required_unless_present = "list")]
        file: Option<PathBuf>,
        /// The pattern to look for (see --list).
        #[arg(long, required_unless_present_any = ["list", "query"], conflicts_with = "query")]
        pattern: Option<String>,
        /// An ad-hoc query instead of a pattern, e.g.
        /// `block h, block t: control_edge(t, h), dominates(h, t)` (see zkbc::query::text).
        #[arg(long)]
        query: Option<String>,
        /// List the patterns and exit.
        #[arg(long)]
        list: bool,
    },
}

/// Graphs `zkbc compile --emit dot` draws.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Show {
    /// The control-flow graph.
    Cfg,
    /// The control dependence graph.
    Cdg,
    /// The program dependence graph (data, control and phi edges).
    Pdg,
    /// The CFG with canonical SESE regions as nested clusters.
    Regions,
}

/// Output forms of `zkbc report`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ReportFormat {
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
enum TableFormat {
    /// A markdown table, one row per program and pipeline.
    Markdown,
    /// The same rows as CSV with raw numbers.
    Csv,
    /// One metric (--metric): programs down, pipelines across.
    Pivot,
}

/// What every command that compiles takes.
#[derive(clap::Args)]
struct CompileArgs {
    /// The program: ZoKrates source (.zok) or text-format IR (any other extension).
    file: PathBuf,
    /// main's arguments as ZoKrates' `compute-witness -a` takes them, instead of --inputs: its
    /// parameters flattened to scalars in order (arrays element by element, structs member by
    /// member), each decimal or 0x hexadecimal, bools as 0 or 1. Put it last.
    #[arg(short = 'a', long = "args", num_args = 1.., value_name = "ARG", conflicts_with = "inputs")]
    args: Vec<String>,
    /// Optimization level: 0 (none), 1 (inline, mem2reg, dce, simplify_cfg), 2 (adds sccp,
    /// fold_bits, ranges, indvars, remat, gvn), 3 (the default; adds block merging).
    #[arg(short = 'O', long = "opt-level", default_value = "3", value_parser = parse_level)]
    opt_level: opt::OptLevel,
    /// Do not merge blocks (-O3 without the merge pass).
    #[arg(long, conflicts_with = "monolithic")]
    no_merge: bool,
    /// How -O3 decides what to merge: `cost` (the default) merges what lowers the predicted
    /// sumcheck cells and keeps the cheapest of that, no merging, one block and the threshold
    /// rule; `threshold` is the seed's (CoBBl's) rule: every merge component below THRESHOLD.
    #[arg(long, default_value = "cost", value_parser = parse_policy)]
    merge_policy: opt::merge::MergePolicy,
    /// MIN_BLOCK_SIZE of the merge threshold max(MIN_BLOCK_SIZE, next_pow2(largest block))
    /// (`--merge-policy threshold`).
    #[arg(long, default_value_t = opt::merge::DEFAULT_MIN_BLOCK_SIZE)]
    min_block_size: u64,
    /// Merge the whole program into one block (every branch predicated, every loop unrolled):
    /// the single circuit a ZoKrates-style compiler emits. Needs -O2 or -O3.
    #[arg(long)]
    monolithic: bool,
    /// The most instructions one merge (or --monolithic unrolling) may emit; beyond it the
    /// compile fails with an error instead of exhausting memory.
    #[arg(long, default_value_t = opt::merge::DEFAULT_MAX_UNROLLED)]
    max_unrolled: usize,
    /// The most constraints one block may have (before linear elimination); lowering a larger
    /// block fails with an error instead of exhausting memory.
    #[arg(long, default_value_t = r1cs::DEFAULT_MAX_CONSTRAINTS)]
    max_constraints: usize,
    /// Comparison of two non-constant field elements: `complete` (over the whole field) or
    /// `zokrates` (ZoKrates' semantics: both operands must be below 2^252, else the comparison
    /// fails at run time and the instance is unsatisfiable; cheaper).
    #[arg(long, default_value = "complete", value_parser = parse_field_cmp)]
    field_cmp: measure::FieldCmp,
}

fn parse_level(s: &str) -> Result<opt::OptLevel, String> {
    s.parse()
}

fn parse_field_cmp(s: &str) -> Result<measure::FieldCmp, String> {
    s.parse()
}

fn parse_policy(s: &str) -> Result<opt::merge::MergePolicy, String> {
    s.parse()
}

impl CompileArgs {
    /// The merge mode the flags ask for.
    fn merging(&self) -> zkbc::driver::measure::Merging {
        use zkbc::driver::measure::Merging;
        match (self.no_merge, self.monolithic) {
            (true, _) => Merging::Off,
            (_, true) => Merging::Monolithic,
            _ => Merging::Default,
        }
    }

    /// Reads and compiles the file; a compile error is exit status 2.
    /// The pipeline settings the flags ask for; also sets the process-wide constraint limit.
    fn settings(&self, max_steps: u64) -> Settings {
        r1cs::set_max_constraints(self.max_constraints);
        Settings {
            opt_level: self.opt_level,
            min_block_size: self.min_block_size,
            merging: self.merging(),
            policy: self.merge_policy,
            max_steps,
            max_unrolled: self.max_unrolled,
            field_cmp: self.field_cmp,
            baselines: true,
        }
    }

    /// The inputs in the program's JSON encoding: from `-a`, or read from the `--inputs` file
    /// (`-` is stdin), or none.
    fn input_json(&self, inputs: Option<&Path>) -> Result<Option<serde_json::Value>, Exit> {
        if self.args.is_empty() {
            return inputs.map(read_json).transpose();
        }
        let text = read(&self.file)?;
        driver::inputs_from_args(&self.file.display().to_string(), &text, &self.args)
            .map(Some)
            .map_err(|e| user_error(e.to_string()))
    }

    fn compile(&self) -> Result<driver::Compilation, Exit> {
        self.compile_profiled(None, Settings::default().max_steps)
    }

    /// [`CompileArgs::compile`], with block formation profiled on these inputs (runs limited
    /// to `max_steps`).
    fn compile_profiled(
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
#[derive(Clone, Copy, clap::ValueEnum)]
enum Emit {
    /// The IR in the text format.
    Ir,
    /// Graphviz DOT of the graph chosen by --show.
    Dot,
}

fn run(cli: Cli) -> Result<(), Exit> {
    match cli.command {
        Command::Interp {
            file,
            inputs,
            trace,
            max_steps,
        } => interp_command(file, inputs, trace, max_steps),
        Command::Run {
            compile,
            inputs,
            max_steps,
            log,
        } => run_command(compile, inputs, max_steps, log),
        Command::Compile {
            compile,
            inputs,
            emit,
            show,
        } => compile_command(compile, inputs, emit, show),
        Command::Opt {
            file,
            passes,
            level,
            print_after,
            skip,
            time_passes,
        } => opt_command(file, passes, level, print_after, skip, time_passes),
        Command::Query {
            file,
            pattern,
            query: text,
            list,
        } => query(file, pattern, text, list),
        Command::Check {
            compile,
            inputs,
            max_steps,
            soundness,
        } => check_command(compile, inputs, max_steps, soundness),
        Command::Report {
            compile,
            inputs,
            format,
            output,
            quiet,
            max_steps,
            explain,
        } => report_command(
            &compile,
            inputs.as_deref(),
            &compile.settings(max_steps),
            (format, explain),
            output.as_deref(),
            quiet,
        ),
        Command::Table {
            zokrates: Some(dir),
            format,
            output,
            field_cmp,
            ..
        } => zokrates_table_command(dir, format, output, field_cmp),
        Command::Table {
            files,
            inputs_dir,
            opt_levels,
            min_block_sizes,
            merge_policies,
            with_no_merge,
            with_monolithic,
            format,
            metric,
            output,
            quiet,
            max_steps,
            field_cmp,
            zokrates: None,
        } => table_command(
            &files,
            inputs_dir.as_deref(),
            &table_pipelines(
                &opt_levels,
                &min_block_sizes,
                &merge_policies,
                with_no_merge,
                with_monolithic,
            ),
            (format, &metric),
            output.as_deref(),
            quiet,
            (max_steps, field_cmp),
        ),
        Command::Prove {
            compile,
            inputs,
            max_steps,
        } => prove_command(compile, inputs, max_steps),
        Command::Export {
            compile,
            inputs,
            max_steps,
            out,
        } => export_command(compile, inputs, max_steps, out),
        Command::Verify { file } => verify_command(file),
        Command::Abi { file } => abi_command(file),
    }
}

fn main() -> ExitCode {
    // When the reader of stdout goes away (`zkbc compile x.zok | head`), end quietly as a C tool
    // does on SIGPIPE, instead of panicking in `println!` (Rust ignores SIGPIPE by default).
    // SAFETY: restoring a signal's default disposition, before any other thread exists.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
