//! The `zkbc` command line. Exit status: 0 success, 1 the program failed at run time (or a
//! check failed), 2 the input does not compile or is malformed.

/// mimalloc: lowering allocates many short-lived vectors, and per-thread heaps let the parallel
/// constraint counting scale (measured in `benches/r1cs.rs`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use zkbc::ir::{self, interp};
use zkbc::report::pipeline::{self, Settings};
use zkbc::{driver, opt, r1cs, report};

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
        /// ZoKrates' count, zkbc's `--monolithic -O3` count, that count without the two label
        /// checks (the one compared), the block-based sumcheck cells, and whether zkbc is at or
        /// below ZoKrates. Markdown only.
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
        field_cmp: pipeline::FieldCmp,
    },
    /// Write each executed block's instance as an iden3 `.r1cs` file and each of its executions
    /// as a `.wtns` witness (the formats circom writes and snarkjs reads) into a directory.
    Export {
        #[command(flatten)]
        compile: CompileArgs,
        /// Inputs, as for `run`.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Maximum number of IR instructions executed.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
        /// The directory to write (created if missing).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
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
        /// Inputs: for .zok a JSON object keyed by main's parameter names (field and uN as
        /// decimal strings or numbers, bools, arrays as arrays, structs as objects); for IR a
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
        /// Comma-separated passes to run once each, in order (inline, mem2reg, sccp, dce,
        /// simplify_cfg). Without it, the pipeline of `-O`.
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
    /// Optimization level: 0 (none), 1 (inline, mem2reg, dce, simplify_cfg), 2 (adds sccp),
    /// 3 (the default; adds block merging).
    #[arg(short = 'O', long = "opt-level", default_value = "3", value_parser = parse_level)]
    opt_level: opt::OptLevel,
    /// Do not merge blocks (-O3 without the merge pass).
    #[arg(long, conflicts_with = "monolithic")]
    no_merge: bool,
    /// MIN_BLOCK_SIZE of the merge threshold max(MIN_BLOCK_SIZE, next_pow2(largest block)).
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
    field_cmp: pipeline::FieldCmp,
}

fn parse_level(s: &str) -> Result<opt::OptLevel, String> {
    s.parse()
}

fn parse_field_cmp(s: &str) -> Result<pipeline::FieldCmp, String> {
    s.parse()
}

impl CompileArgs {
    /// The merge mode the flags ask for.
    fn merging(&self) -> report::pipeline::Merging {
        use report::pipeline::Merging;
        match (self.no_merge, self.monolithic) {
            (true, _) => Merging::Off,
            (_, true) => Merging::Monolithic,
            _ => Merging::Threshold,
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
            max_steps,
            max_unrolled: self.max_unrolled,
            field_cmp: self.field_cmp,
        }
    }

    fn compile(&self) -> Result<driver::Compilation, Exit> {
        let text = read(&self.file)?;
        let options = self
            .settings(Settings::default().max_steps)
            .driver_options();
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

/// An error with the exit status it implies.
struct Exit {
    code: u8,
    message: String,
}

fn user_error(message: impl Into<String>) -> Exit {
    Exit {
        code: 2,
        message: message.into(),
    }
}

fn read(path: &Path) -> Result<String, Exit> {
    std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {}", path.display()))
        .map_err(|e| user_error(format!("{e:#}")))
}

fn parse_ir(path: &Path) -> Result<ir::Program, Exit> {
    let text = read(path)?;
    ir::parse_program(&text).map_err(|e| user_error(format!("{}:{e}", path.display())))
}

fn read_json(path: &Path) -> Result<serde_json::Value, Exit> {
    let text = read(path)?;
    serde_json::from_str(&text).map_err(|e| {
        user_error(format!(
            "{}:{}:{}: malformed JSON: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// Reads the inputs file (or the empty default) in the program's encoding; bad inputs are exit
/// status 2.
fn load_inputs(
    compiled: &driver::Compilation,
    inputs: Option<&Path>,
) -> Result<Vec<interp::Val>, Exit> {
    let json = match inputs {
        Some(path) => read_json(path)?,
        None => compiled.default_inputs(),
    };
    compiled.inputs_from_json(&json).map_err(|e| {
        let source = inputs.map_or("inputs".into(), |p| p.display().to_string());
        user_error(format!("{source}: {e}"))
    })
}

/// A broken compiler invariant reached from the command line: exit status 1 with a message that
/// says it is a bug.
fn bug(message: String) -> Exit {
    Exit {
        code: 1,
        message: format!("internal error (a zkbc bug): {message}"),
    }
}

/// Compiles, legalizes for R1CS (lowering needs no calls and no memory) and runs: what every
/// command that lowers the executed blocks starts with.
fn compile_and_run(
    compile: &CompileArgs,
    inputs: Option<&Path>,
    max_steps: u64,
) -> Result<(driver::Compilation, interp::Outcome), Exit> {
    let mut compiled = compile.compile()?;
    driver::legalize_for_r1cs(&mut compiled.program).map_err(|e| user_error(e.to_string()))?;
    let values = load_inputs(&compiled, inputs)?;
    let outcome = execute(&compile.file, &compiled.program, &values, max_steps)?;
    Ok((compiled, outcome))
}

/// A block that cannot be lowered is the user's input (exit 2); an unsatisfied one is exit 1.
fn check_failure(file: &Path, e: r1cs::CheckError) -> Exit {
    Exit {
        code: match e {
            r1cs::CheckError::Lower(
                r1cs::LowerError::Unsupported { .. } | r1cs::LowerError::TooLarge { .. },
            ) => 2,
            _ => 1,
        },
        message: format!("{}: {e}", file.display()),
    }
}

/// Compiles, legalizes, runs, and assigns every executed block: the instances the prover and
/// the exporter take.
fn block_instances(
    compile: &CompileArgs,
    inputs: Option<&Path>,
    max_steps: u64,
) -> Result<Vec<zkbc::prove::BlockInstance>, Exit> {
    let (compiled, outcome) = compile_and_run(compile, inputs, max_steps)?;
    driver::block_instances(&compiled.program, &outcome)
        .map_err(|e| check_failure(&compile.file, e))
}

/// Runs the program; a run-time failure is exit status 1 with `FILE:LINE:COL` when the failing
/// instruction has a source position.
fn execute(
    file: &Path,
    program: &ir::Program,
    values: &[interp::Val],
    max_steps: u64,
) -> Result<interp::Outcome, Exit> {
    let limits = interp::Limits {
        max_steps,
        ..interp::Limits::default()
    };
    interp::run(program, values, limits).map_err(|f| Exit {
        code: 1,
        message: match f.src {
            Some(loc) => format!("{}:{loc}: {}", file.display(), f.kind),
            None => format!("{}: {f}", file.display()),
        },
    })
}

fn run(cli: Cli) -> Result<(), Exit> {
    match cli.command {
        Command::Interp {
            file,
            inputs,
            trace,
            max_steps,
        } => {
            let program = parse_ir(&file)?;
            ir::verify::verify_program(&program)
                .map_err(|e| user_error(format!("{}: invalid IR:\n{e}", file.display())))?;
            let json = match &inputs {
                Some(path) => read_json(path)?,
                None => serde_json::Value::Array(Vec::new()),
            };
            let values = interp::inputs_from_json(&program, &json).map_err(|e| {
                let source = inputs
                    .as_ref()
                    .map_or("inputs".into(), |p| p.display().to_string());
                user_error(format!("{source}: {e}"))
            })?;
            let limits = interp::Limits {
                max_steps,
                ..interp::Limits::default()
            };
            let outcome = interp::run(&program, &values, limits).map_err(|f| Exit {
                code: 1,
                message: format!("{}: {f}", file.display()),
            })?;
            if trace {
                for entry in &outcome.trace {
                    eprintln!("{} {} {:?}", entry.func, entry.block, entry.params);
                }
            }
            let returns = &program.main_func().returns;
            let outputs: Vec<_> = outcome
                .outputs
                .iter()
                .zip(returns)
                .map(|(v, t)| v.to_json(t))
                .collect();
            println!("{}", serde_json::json!({ "outputs": outputs }));
            Ok(())
        }
        Command::Run {
            compile,
            inputs,
            max_steps,
            log,
        } => {
            let compiled = compile.compile()?;
            let values = load_inputs(&compiled, inputs.as_deref())?;
            let outcome = execute(&compile.file, &compiled.program, &values, max_steps)?;
            if log {
                for line in &outcome.log {
                    eprintln!("{line}");
                }
            }
            println!("{}", compiled.outputs_to_json(&outcome.outputs));
            Ok(())
        }
        Command::Compile {
            compile,
            emit,
            show,
        } => {
            let program = compile.compile()?.program;
            match emit {
                Emit::Ir => print!("{program}"),
                Emit::Dot => {
                    use zkbc::query::dot;
                    let show = match show {
                        Show::Cfg => dot::Show::Cfg,
                        Show::Cdg => dot::Show::Cdg,
                        Show::Pdg => dot::Show::Pdg,
                        Show::Regions => dot::Show::Regions,
                    };
                    print!("{}", dot::to_dot(&program, show));
                }
            }
            Ok(())
        }
        Command::Opt {
            file,
            passes,
            level,
            print_after,
            skip,
            time_passes,
        } => {
            let mut program = parse_ir(&file)?;
            ir::verify::verify_program(&program)
                .map_err(|e| user_error(format!("{}: invalid IR:\n{e}", file.display())))?;
            let pipeline = match &passes {
                Some(names) => {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    opt::Pipeline::from_names(&names).map_err(|e| user_error(e.to_string()))?
                }
                None => level
                    .parse::<opt::OptLevel>()
                    .map_err(user_error)?
                    .pipeline(),
            };
            for name in print_after.iter().chain(&skip) {
                if opt::pass(name).is_none() {
                    return Err(user_error(
                        opt::OptError::UnknownPass(name.clone()).to_string(),
                    ));
                }
            }
            let options = opt::Options {
                print_after,
                skip,
                ..opt::Options::default()
            };
            let report = opt::optimize(&mut program, &pipeline, &options)
                .map_err(|e| user_error(format!("{}: {e}", file.display())))?;
            for (header, text) in &report.printed {
                eprintln!("; {header}\n{text}");
            }
            if time_passes {
                eprint!("{}", report.timing_table());
            }
            print!("{program}");
            Ok(())
        }
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
        } => {
            let (compiled, outcome) = compile_and_run(&compile, inputs.as_deref(), max_steps)?;
            let file = &compile.file;
            let report = r1cs::check_trace(&compiled.program, &outcome)
                .map_err(|e| check_failure(file, e))?;
            for b in &report.blocks {
                let func = compiled.program.func(b.func);
                println!(
                    "fn {} {}: {} constraints, satisfied in {} execution(s)",
                    func.name, b.block, b.constraints, b.executions
                );
            }
            println!(
                "{}: all {} block executions satisfied",
                file.display(),
                report.executions
            );
            if soundness {
                let sound = r1cs::check_soundness(
                    &compiled.program,
                    &outcome,
                    r1cs::SoundnessOptions::default(),
                )
                .map_err(|e| Exit {
                    code: 1,
                    message: format!("{}: {e}", file.display()),
                })?;
                for finding in &sound.findings {
                    println!("under-constrained: {finding}");
                }
                println!(
                    "{}: soundness: {} block executions, {} output changes and {} witness changes tried, {} accepted",
                    file.display(),
                    sound.executions,
                    sound.outputs_tried,
                    sound.witnesses_tried,
                    sound.findings.len()
                );
                if !sound.findings.is_empty() {
                    return Err(Exit {
                        code: 1,
                        message: format!(
                            "{}: {} under-constrained instance(s) found",
                            file.display(),
                            sound.findings.len()
                        ),
                    });
                }
            }
            Ok(())
        }
        Command::Report {
            compile,
            inputs,
            format,
            output,
            quiet,
            max_steps,
        } => report_command(
            &compile,
            inputs.as_deref(),
            &compile.settings(max_steps),
            format,
            output.as_deref(),
            quiet,
        ),
        Command::Table {
            zokrates: Some(dir),
            format,
            output,
            field_cmp,
            ..
        } => {
            if !matches!(format, TableFormat::Markdown) {
                return Err(user_error("--zokrates prints markdown only".to_string()));
            }
            let rows = report::zokrates::rows(&dir, field_cmp).map_err(user_error)?;
            emit(
                &report::zokrates::markdown(&rows, field_cmp),
                output.as_deref(),
            )
        }
        Command::Table {
            files,
            inputs_dir,
            opt_levels,
            min_block_sizes,
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
        } => {
            let instances = block_instances(&compile, inputs.as_deref(), max_steps)?;
            let file = compile.file.display();
            let (proof, timing) =
                zkbc::prove::prove_timed(&instances).map_err(|e| bug(format!("{file}: {e}")))?;
            let (verdict, vtiming) = zkbc::prove::verify_timed(&instances, &proof);
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            println!(
                "{:<8} {:>11} {:>10} {:>9} {:>9} {:>13} {:>11} {:>11}",
                "block", "constraints", "executions", "Q", "X", "cells", "prove ms", "verify ms"
            );
            for ((inst, pt), vt) in instances.iter().zip(&timing.blocks).zip(&vtiming.blocks) {
                let shape = inst.shape();
                println!(
                    "{:<8} {:>11} {:>10} {:>9} {:>9} {:>13} {:>11.3} {:>11.3}",
                    inst.name,
                    inst.r1cs.num_constraints(),
                    inst.executions.len(),
                    shape.padded_executions,
                    shape.padded_constraints,
                    shape.cells(),
                    ms(pt.digest + pt.tables + pt.rounds),
                    ms(*vt)
                );
            }
            println!(
                "total: {} sumcheck cells, prover {:.3} ms, verifier {:.3} ms",
                zkbc::prove::total_cells(&instances),
                ms(timing.total),
                ms(vtiming.total)
            );
            match verdict {
                Ok(()) => {
                    println!("{file}: proof verified");
                    Ok(())
                }
                Err(e) => Err(Exit {
                    code: 1,
                    message: format!("{file}: proof rejected: {e}"),
                }),
            }
        }
        Command::Export {
            compile,
            inputs,
            max_steps,
            out,
        } => {
            let instances = block_instances(&compile, inputs.as_deref(), max_steps)?;
            std::fs::create_dir_all(&out)
                .map_err(|e| user_error(format!("cannot create {}: {e}", out.display())))?;
            for inst in &instances {
                zkbc::export::write_block(&out, &inst.name, inst)
                    .map_err(|e| user_error(format!("{}: {e}", out.display())))?;
                println!(
                    "{}: {}.r1cs ({} constraints) and {} witness file(s)",
                    out.display(),
                    inst.name,
                    inst.r1cs.num_constraints(),
                    inst.executions.len()
                );
            }
            Ok(())
        }
        Command::Verify { file } => {
            let program = parse_ir(&file)?;
            match ir::verify::verify_program(&program) {
                Ok(()) => {
                    println!("{}: ok", file.display());
                    Ok(())
                }
                Err(e) => Err(Exit {
                    code: 1,
                    message: format!("{}: invalid IR:\n{e}", file.display()),
                }),
            }
        }
    }
}

/// `zkbc query`: every match of a pattern or an ad-hoc query, or the list of patterns.
fn query(
    file: Option<PathBuf>,
    pattern: Option<String>,
    text: Option<String>,
    list: bool,
) -> Result<(), Exit> {
    use zkbc::query::{find_matches, find_pattern, find_query_matches, format_matches, patterns};
    if list {
        for p in patterns() {
            println!("{:<16} {}", p.name, p.summary);
        }
        return Ok(());
    }
    let Some(file) = file else {
        return Err(user_error("query needs a FILE (or --list)"));
    };
    // The pattern or query is checked before the program, so a typo is reported first.
    type Finder = Box<dyn Fn(&ir::Program) -> Vec<zkbc::query::Match>>;
    let (label, find): (String, Finder) = match (pattern, text) {
        (Some(name), _) => {
            let Some(pattern) = find_pattern(&name) else {
                let names: Vec<&str> = patterns().iter().map(|p| p.name).collect();
                return Err(user_error(format!(
                    "unknown pattern `{name}`; the patterns are: {}",
                    names.join(", ")
                )));
            };
            (name, Box::new(move |p| find_matches(p, &pattern)))
        }
        (None, Some(text)) => {
            let q =
                zkbc::query::parse_query(&text).map_err(|e| user_error(format!("--query: {e}")))?;
            let label = "the query".to_string();
            (label, Box::new(move |p| find_query_matches(p, &q)))
        }
        (None, None) => {
            return Err(user_error("query needs --pattern NAME or --query TEXT"));
        }
    };
    let is_zok = file.extension().is_some_and(|e| e == "zok");
    // Queries look at the program as written: the front end's IR (or the IR text), unoptimized.
    let options = driver::Options {
        opt_level: opt::OptLevel::O0,
        ..driver::Options::default()
    };
    let program = driver::compile(&file.display().to_string(), &read(&file)?, &options)
        .map_err(|e| user_error(e.to_string()))?
        .program;
    let matches = find(&program);
    let name = file.display().to_string();
    print!(
        "{}",
        format_matches(&program, &label, &matches, is_zok.then_some(name.as_str()))
    );
    Ok(())
}

/// Writes `text` to `output`, or to stdout.
fn emit(text: &str, output: Option<&Path>) -> Result<(), Exit> {
    match output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(|e| user_error(format!("{e:#}"))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn measure_error(e: pipeline::MeasureError, file: &Path) -> Exit {
    let message = match &e {
        // Compile and run errors already name the file.
        pipeline::MeasureError::Compile(_) | pipeline::MeasureError::Run(_) => e.to_string(),
        _ => format!("{}: {e}", file.display()),
    };
    Exit {
        code: e.exit_code(),
        message,
    }
}

/// Reads and measures one program with a progress spinner naming the stage.
fn measure_file(
    file: &Path,
    inputs: Option<&Path>,
    settings: &Settings,
    progress: &report::progress::Progress,
) -> Result<pipeline::Measurement, Exit> {
    let source = read(file)?;
    let json = inputs.map(read_json).transpose()?;
    let name = file.display().to_string();
    pipeline::measure(&name, &source, json.as_ref(), settings, &|stage| {
        progress.set_message(format!("{name}: {}", stage.name()));
    })
    .map_err(|e| {
        // Input errors name the inputs file rather than the program.
        match (&e, inputs) {
            (pipeline::MeasureError::Inputs(m), Some(path)) => user_error(format!(
                "{}: {}",
                path.display(),
                m.strip_prefix("inputs: ").unwrap_or(m)
            )),
            _ => measure_error(e, file),
        }
    })
}

/// `zkbc report`.
fn report_command(
    compile: &CompileArgs,
    inputs: Option<&Path>,
    settings: &Settings,
    format: ReportFormat,
    output: Option<&Path>,
    quiet: bool,
) -> Result<(), Exit> {
    let progress = report::progress::Progress::new(None, "", quiet);
    let measured = measure_file(&compile.file, inputs, settings, &progress);
    progress.finish();
    let measured = measured?;
    let r = &measured.report;
    let text = match format {
        ReportFormat::Table => report::table::render(r),
        ReportFormat::Json => report::to_json(r),
        ReportFormat::Svg => report::svg::render(r).map_err(|e| Exit {
            code: 1,
            message: format!("{}: cannot draw the chart: {e}", compile.file.display()),
        })?,
        ReportFormat::Dot => {
            let program = &measured.compilation.program;
            let main = program.main_func();
            let annotations = report::dot::annotations_from_report(main, r);
            let clusters = pipeline::merge_clusters(main);
            report::dot::render(main, &annotations, &clusters).map_err(|e| Exit {
                code: 1,
                message: format!("bug: {}: {e}", compile.file.display()),
            })?
        }
    };
    emit(&text, output)
}

/// `zkbc table`.
#[allow(clippy::too_many_arguments)]
/// The pipelines of `zkbc table`: every level at every MIN_BLOCK_SIZE, optionally each level
/// without merging, and optionally -O3 `--monolithic`.
fn table_pipelines(
    opt_levels: &[opt::OptLevel],
    min_block_sizes: &[u64],
    with_no_merge: bool,
    with_monolithic: bool,
) -> Vec<(opt::OptLevel, u64, pipeline::Merging)> {
    let mut out = Vec::new();
    for &level in opt_levels {
        for &size in min_block_sizes {
            out.push((level, size, pipeline::Merging::Threshold));
        }
        if with_no_merge && level == opt::OptLevel::O3 {
            out.push((level, min_block_sizes[0], pipeline::Merging::Off));
        }
    }
    if with_monolithic {
        out.push((
            opt::OptLevel::O3,
            min_block_sizes[0],
            pipeline::Merging::Monolithic,
        ));
    }
    out
}

fn table_command(
    files: &[PathBuf],
    inputs_dir: Option<&Path>,
    pipelines: &[(opt::OptLevel, u64, pipeline::Merging)],
    (format, metric): (TableFormat, &str),
    output: Option<&Path>,
    quiet: bool,
    (max_steps, field_cmp): (u64, pipeline::FieldCmp),
) -> Result<(), Exit> {
    use report::aggregate;
    let metric = aggregate::Metric::from_name(metric).ok_or_else(|| {
        user_error(format!(
            "unknown metric `{metric}`; the metrics are: constraints, executed_constraints, \
             transitions, sumcheck_cells, uniform_cells, padding_waste, rounds, monolithic_cells"
        ))
    })?;
    let jobs = files.len() * pipelines.len();
    let progress = report::progress::Progress::new(Some(jobs as u64), "", quiet);
    let mut reports = Vec::with_capacity(jobs);
    let result = (|| {
        for file in files {
            let stem = file
                .file_stem()
                .ok_or_else(|| user_error(format!("{}: not a file name", file.display())))?;
            let dir = inputs_dir
                .map(Path::to_path_buf)
                .or_else(|| file.parent().map(Path::to_path_buf))
                .unwrap_or_default();
            let candidate = dir.join(stem).with_extension("json");
            let inputs = candidate.is_file().then_some(candidate);
            for &(opt_level, min_block_size, merging) in pipelines {
                let settings = Settings {
                    opt_level,
                    min_block_size,
                    merging,
                    max_steps,
                    field_cmp,
                    ..Settings::default()
                };
                match measure_file(file, inputs.as_deref(), &settings, &progress) {
                    Ok(m) => reports.push(m.report),
                    // No one-block circuit exists for this program: no monolithic row.
                    Err(_) if merging == pipeline::Merging::Monolithic => {}
                    Err(e) => return Err(e),
                }
                progress.inc(1);
            }
        }
        Ok(())
    })();
    progress.finish();
    result?;
    let text = match format {
        TableFormat::Markdown => aggregate::markdown(&reports),
        TableFormat::Csv => aggregate::csv(&reports),
        TableFormat::Pivot => aggregate::pivot_markdown(&reports, metric),
    };
    emit(&text, output)
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
