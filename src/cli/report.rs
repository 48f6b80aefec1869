//! The commands that measure programs with the cost model: `report` (one program) and `table`
//! (many programs and pipelines, or the constraint parity table of a ZoKrates suite).

use super::{read, read_json, user_error, Exit};
use crate::{
    parse_field_cmp, parse_level, parse_policy, CompileArgs, ExecutionArgs, MeasuredArgs,
    OutputArg, QuietArg, ReportFormat, TableFormat, FIELD_CMP_HELP, FORMAT_HELP, MAX_STEPS_HELP,
    MERGE_POLICY_HELP, METRIC_HELP, MIN_BLOCK_SIZE_HELP, OPT_LEVEL_HELP,
};
use anyhow::Context;
use std::path::{Path, PathBuf};
use zkbc::ir::interp;
use zkbc::opt;
use zkbc::opt::merge::MergePolicy;
use zkbc::report;
use zkbc::report::measure::{self, Settings};

/// The flags of `zkbc report`.
#[derive(clap::Args)]
pub(crate) struct ReportArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    run: ExecutionArgs,
    #[arg(long, value_enum, default_value_t = ReportFormat::Table, help = FORMAT_HELP)]
    format: ReportFormat,
    #[command(flatten)]
    output: OutputArg,
    #[command(flatten)]
    quiet: QuietArg,
    /// Also say what cost-driven block formation decided and why: every merge component
    /// it considered, per round, with its predicted cells kept and merged, and the
    /// whole-program formations it compared (text after the table, an `explain` array in
    /// JSON, coloured clusters on the unmerged CFG in DOT).
    #[arg(long)]
    explain: bool,
    /// Also print the N source lines that cost the most under the table: sumcheck cells
    /// with inputs, constraints without (what `zkbc profile` attributes; --format table).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Also print the Spartan prover's time predicted from the report's counts (sumcheck
    /// cells, committed table cells, committed tables) by the least-squares fit of
    /// docs/prover.md: a prediction for the machine the fit names, not a measurement; and
    /// the Spartan proof's size in bytes, counted from the blocks' shapes and executions
    /// (--format table or json, with inputs).
    #[arg(long)]
    predict_prover: bool,
}

/// The flags of `zkbc table`.
#[derive(clap::Args)]
pub(crate) struct TableArgs {
    /// The programs.
    #[arg(required_unless_present_any = ["zokrates", "yardsticks"])]
    files: Vec<PathBuf>,
    /// Instead of the programs: the constraint parity table of a ZoKrates suite folder
    /// (NAME.zok beside NAME.cases.json with `zokrates_constraints`): per program,
    /// ZoKrates' count, zkbc's `--monolithic -O3` block, the circuit `export --monolithic`
    /// writes (no block interface: the count compared), the block-based sumcheck cells, and
    /// whether zkbc is at or below ZoKrates. Markdown only.
    #[arg(long, value_name = "DIR", conflicts_with = "files")]
    zokrates: Option<PathBuf>,
    /// Instead of the programs: the standard library parity table of a folder holding
    /// `yardsticks.tsv` (program, stdlib_module, ZoKrates' constraints and compile time) and
    /// the yardstick programs it names: per yardstick, ZoKrates' count, the circuit `export
    /// --monolithic --compat zokrates` writes with zkbc's built-in library, the block-based
    /// sumcheck cells, and whether zkbc is at or below ZoKrates. Markdown only.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["files", "zokrates"])]
    yardsticks: Option<PathBuf>,
    /// Where NAME.json inputs are looked up (default: each program's own directory).
    #[arg(long)]
    inputs_dir: Option<PathBuf>,
    #[arg(short = 'O', long = "opt-level", alias = "opt-levels", value_name = "OPT_LEVEL", value_delimiter = ',', default_value = "1,2,3", value_parser = parse_level, help = OPT_LEVEL_HELP)]
    opt_levels: Vec<opt::OptLevel>,
    #[arg(long = "min-block-size", alias = "min-block-sizes", value_name = "MIN_BLOCK_SIZE", value_delimiter = ',', default_value = "1024", help = MIN_BLOCK_SIZE_HELP)]
    min_block_sizes: Vec<u64>,
    #[arg(long = "merge-policy", alias = "merge-policies", value_name = "MERGE_POLICY", value_delimiter = ',', default_value = "cost", value_parser = parse_policy, help = MERGE_POLICY_HELP)]
    merge_policies: Vec<opt::merge::MergePolicy>,
    /// Also a row per program and level without merging (`--no-merge`).
    #[arg(long)]
    with_no_merge: bool,
    /// Also a row per program at -O3 `--monolithic` (programs with a runtime loop bound,
    /// which have no one-block circuit, are left out of those rows).
    #[arg(long)]
    with_monolithic: bool,
    #[arg(long, value_enum, default_value_t = TableFormat::Markdown, help = FORMAT_HELP)]
    format: TableFormat,
    #[arg(long, default_value = "sumcheck_cells", help = METRIC_HELP)]
    metric: String,
    #[command(flatten)]
    output: OutputArg,
    #[command(flatten)]
    quiet: QuietArg,
    #[arg(long, default_value_t = interp::Limits::default().max_steps, help = MAX_STEPS_HELP)]
    max_steps: u64,
    #[arg(long, default_value = "complete", value_parser = parse_field_cmp, help = FIELD_CMP_HELP)]
    field_cmp: measure::FieldCmp,
    /// `--time-passes` lists every program's stages in turn; `--stats` the whole table's.
    #[command(flatten)]
    measured: MeasuredArgs,
}

/// Writes `text` to `output`, or to stdout.
pub(crate) fn emit(text: &str, output: Option<&Path>) -> Result<(), Exit> {
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

pub(crate) fn measure_error(e: measure::MeasureError, file: &Path) -> Exit {
    let message = match &e {
        // Compile and run errors already name the file.
        measure::MeasureError::Compile(_) | measure::MeasureError::Run(_) => e.to_string(),
        _ => format!("{}: {e}", file.display()),
    };
    Exit {
        code: e.exit_code(),
        message,
    }
}

/// Reads and measures one program with a progress spinner naming the stage; with `counted`,
/// the check of the run's block executions turns it into a bar over them (the table's bar
/// counts programs instead). With `attributing`, the blocks record where their constraints come
/// from as they are lowered (`--top`: [`measure::measure_attributing`], so the attribution
/// lowers nothing again).
fn measure_file(
    file: &Path,
    (json, inputs): (Option<&serde_json::Value>, Option<&Path>),
    settings: &Settings,
    (progress, counted): (&super::progress::Progress, bool),
    attributing: bool,
) -> Result<measure::Measurement, Exit> {
    let source = read(file)?;
    let name = file.display().to_string();
    let counting = std::cell::Cell::new(false);
    let measure = match attributing {
        true => measure::measure_attributing,
        false => measure::measure,
    };
    measure(&name, &source, json, settings, &|stage| match stage {
        measure::Stage::Checked { done, total } => match (counted, total) {
            (true, Some(total)) => {
                if !counting.replace(true) {
                    progress.set_total(total as u64);
                }
                progress.set_position(done as u64);
            }
            (true, None) => progress.set_message(format!(
                "{name}: running and checking, {done} block executions checked"
            )),
            (false, _) => {}
        },
        _ => progress.set_message(format!("{name}: {}", stage.name())),
    })
    .map_err(|e| {
        // Input errors name the inputs file rather than the program.
        match (&e, inputs) {
            (measure::MeasureError::Inputs(m), Some(path)) => user_error(format!(
                "{}: {}",
                path.display(),
                m.strip_prefix("inputs: ").unwrap_or(m)
            )),
            _ => measure_error(e, file),
        }
    })
}

/// `zkbc report`.
pub(crate) fn report_command(args: ReportArgs) -> Result<(), Exit> {
    let ReportArgs {
        compile,
        run,
        format,
        output,
        quiet: QuietArg { quiet },
        explain,
        top,
        predict_prover,
    } = args;
    report(
        &compile,
        &compile.settings(run.max_steps),
        (format, explain, run.log, top, predict_prover),
        output.output.as_deref(),
        quiet,
    )
}

/// `zkbc report`'s work; with `explain`, also what cost-driven block formation decided; with
/// `log`, the run's `log(...)` lines on stderr.
fn report(
    compile: &CompileArgs,
    settings: &Settings,
    (format, explain, log, top, predict): (ReportFormat, bool, bool, Option<usize>, bool),
    output: Option<&Path>,
    quiet: bool,
) -> Result<(), Exit> {
    if explain && matches!(format, ReportFormat::Svg) {
        return Err(user_error(
            "--explain works with --format table, json or dot, not svg",
        ));
    }
    if predict && !matches!(format, ReportFormat::Table | ReportFormat::Json) {
        return Err(user_error(
            "--predict-prover works with --format table or json",
        ));
    }
    if top.is_some() && !matches!(format, ReportFormat::Table) {
        return Err(user_error(
            "--top works with --format table; `zkbc profile --format json` gives every line",
        ));
    }
    let inputs = compile.inputs.as_deref();
    // Read once (the file may be a pipe).
    let json = compile.input_json()?;
    // The JSON records where the time went.
    let start = std::time::Instant::now();
    if matches!(format, ReportFormat::Json) {
        zkbc::timing::enable();
    }
    let progress = super::progress::Progress::new(None, "", quiet);
    // Only the drawing reads the program after it is measured.
    let settings = &Settings {
        keep_ir: matches!(format, ReportFormat::Dot) || top.is_some() || predict,
        ..settings.clone()
    };
    let measured = measure_file(
        &compile.file,
        (json.as_ref(), inputs),
        settings,
        (&progress, true),
        top.is_some(),
    );
    // The CFG the decisions name: the program before merging (drawn only with --explain).
    let before = match (&measured, format, explain) {
        (Ok(_), ReportFormat::Dot, true) if settings.without_decisions().is_none() => Some(
            measure_before_merging(&compile.file, json.as_ref(), settings, &progress),
        ),
        _ => None,
    };
    progress.finish();
    let measured = measured?;
    if log {
        for line in &measured.log {
            eprintln!("{line}");
        }
    }
    let before = before.transpose()?;
    let r = &measured.report;
    let decisions = report::explain::decisions(&measured.compilation.opt_report);
    let without = settings.without_decisions();
    let text = match format {
        ReportFormat::Table if explain => format!(
            "{}\n{}{}{}",
            report::table::render(r),
            inline_explained(settings, &measured.compilation.opt_report),
            report::explain::render(&decisions, json.is_some(), without.as_deref()),
            report::explain::work_line(
                &measured.compilation.opt_report,
                &decisions,
                settings.formation_budget
            )
        ),
        ReportFormat::Table => report::table::render(r),
        ReportFormat::Json if explain => report::with_timings(
            &report::explain::to_json(
                r,
                &decisions,
                inlined_decisions(settings, &measured.compilation.opt_report),
            ),
            &report::Timings::since(start),
        ),
        ReportFormat::Json => {
            report::with_timings(&report::to_json(r), &report::Timings::since(start))
        }
        ReportFormat::Svg => report::svg::render(r).map_err(|e| Exit {
            code: 1,
            message: format!("{}: cannot draw the chart: {e}", compile.file.display()),
        })?,
        ReportFormat::Dot => {
            let drawn = before.as_ref().unwrap_or(&measured);
            let main = drawn.compilation.program.main_func();
            let annotations = report::dot::annotations_from_report(main, &drawn.report);
            let (clusters, label) = if !explain {
                let clusters = report::dot::merge_clusters(main)
                    .into_iter()
                    .map(report::dot::Cluster::plain)
                    .collect();
                (clusters, None)
            } else if before.is_some() {
                let (clusters, left_out) = report::dot::decision_clusters(main, &decisions);
                (clusters, Some(explain_graph_label(&decisions, left_out)))
            } else {
                let why = without.unwrap_or_default();
                (
                    Vec::new(),
                    Some(format!("block formation: no cost-driven decisions ({why})")),
                )
            };
            report::dot::render_clusters(main, &annotations, &clusters, label.as_deref()).map_err(
                |e| Exit {
                    code: 1,
                    message: format!("bug: {}: {e}", compile.file.display()),
                },
            )?
        }
    };
    let text = match (predict, format) {
        (true, ReportFormat::Json) => {
            let mut value: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| user_error(format!("bug: the report's JSON: {e}")))?;
            let p = prediction(r, &measured.compilation, compile, json.clone(), settings);
            value["predicted_prover"] = predicted_prover_json(p);
            serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
        }
        (true, _) => {
            let p = prediction(r, &measured.compilation, compile, json.clone(), settings);
            text + &predicted_prover_time(p)
        }
        (false, _) => text,
    };
    let text = match top {
        Some(n) => text + &top_lines(&compile.file, measured, n, json.is_some())?,
        None => text,
    };
    emit(&text, output)
}

/// What `--predict-prover` predicts for the Spartan backend.
struct Prediction {
    features: zkbc::prove::spartan::cost::Features,
    prover_ms: f64,
    /// The proof's bytes, or why there is no count.
    proof_bytes: Result<usize, String>,
}

/// The Spartan prover's time from the report's counts by the fit of docs/prover.md (the
/// blocks' nonzero matrix entries from lowering the measured program as `zkbc prove` does),
/// and the proof's size from the statement `prove` would prove and its run's shape (exact:
/// `prove::spartan::size`; `prove` compiles without profiling block formation on the inputs,
/// so its blocks can differ from the report's).
fn prediction(
    r: &zkbc::cost::Report,
    compilation: &zkbc::driver::Compilation,
    compile: &CompileArgs,
    json: Option<serde_json::Value>,
    settings: &Settings,
) -> Result<Prediction, String> {
    use zkbc::prove::spartan::cost::{nonzeros, BlockCounts, Features, FIT};
    let Some(cells) = r.totals.sumcheck_cells else {
        return Err("none without a run (give --inputs)".into());
    };
    let statement =
        zkbc::driver::spartan::statement(compilation).map_err(|e| format!("none ({e})"))?;
    let entries: zkbc::fxhash::HashMap<&str, u64> = statement
        .blocks
        .iter()
        .map(|b| (b.name.as_str(), nonzeros(b)))
        .collect();
    let blocks = r.blocks.iter().map(|b| BlockCounts {
        executions: b.executions.unwrap_or(0),
        padded_executions: b.padded_executions.unwrap_or(0),
        io_vars: b.io_vars,
        witness_vars: b.witness_vars,
        nonzeros: entries.get(b.label.as_str()).copied().unwrap_or(0),
    });
    let accesses = r.totals.memory_accesses.unwrap_or(0);
    let features = Features::new(
        blocks,
        cells,
        r.totals.memory_entries.unwrap_or(0),
        accesses,
        (
            r.totals.read_only_entries.unwrap_or(0),
            r.totals.read_only_accesses.unwrap_or(0),
        ),
    );
    let proof_bytes = super::spartan::prover_statement(compile, json, settings.max_steps)
        .map_err(|e| e.message)
        .and_then(|st| {
            let executions: Vec<u64> = st
                .blocks
                .iter()
                .map(|b| b.executions.len() as u64)
                .collect();
            let accesses = st.memory.as_ref().map(|m| {
                let count = |sorted: usize, public: usize| sorted.saturating_sub(public) as u64;
                (
                    count(m.sorted.len(), m.inits.len()),
                    count(m.ro_sorted.len(), m.ro_inits.len()),
                )
            });
            zkbc::prove::spartan::size::proof_bytes(&st, &executions, accesses)
        });
    Ok(Prediction {
        prover_ms: FIT.predict_ms(&features),
        features,
        proof_bytes,
    })
}

/// `--predict-prover` as text: labelled as a prediction for the machine the fit names.
fn predicted_prover_time(p: Result<Prediction, String>) -> String {
    use zkbc::prove::spartan::cost::FIT;
    let p = match p {
        Ok(p) => p,
        Err(e) => return format!("\npredicted Spartan prover time: {e}\n"),
    };
    let size = match &p.proof_bytes {
        Ok(bytes) => format!(
            "{bytes} bytes  (a prediction from the instance shapes and the proof format: \
             `prove -o` writes this many; docs/proof.md)"
        ),
        Err(e) => format!("none ({e})"),
    };
    let f = p.features;
    format!(
        "\npredicted Spartan prover time: {:.0} ms  (a prediction, not a measurement: \
         least-squares fit on {}, R² {:.3} over {} programs; docs/prover.md)\n\
         predicted Spartan proof size: {size}\n\
         prover features: cells={} committed={} tables={} nonzeros={}\n",
        p.prover_ms,
        FIT.measured_on,
        FIT.r_squared,
        FIT.programs,
        f.cells,
        f.committed,
        f.tables,
        f.nonzeros
    )
}

/// `--predict-prover` in the JSON report: the `predicted_prover` object (docs/report.md).
fn predicted_prover_json(p: Result<Prediction, String>) -> serde_json::Value {
    use zkbc::prove::spartan::cost::FIT;
    match p {
        Err(e) => serde_json::json!({ "none": e }),
        Ok(p) => serde_json::json!({
            "prover_ms": (p.prover_ms * 10.0).round() / 10.0,
            "proof_bytes": p.proof_bytes.as_ref().ok(),
            "proof_bytes_none": p.proof_bytes.as_ref().err(),
            "fit": {
                "measured_on": FIT.measured_on,
                "r_squared": FIT.r_squared,
                "programs": FIT.programs,
            },
            "features": {
                "cells": p.features.cells,
                "committed": p.features.committed,
                "tables": p.features.tables,
                "nonzeros": p.features.nonzeros,
            },
            "note": "a prediction for the machine the fit names, not a measurement",
        }),
    }
}

/// `--top N`: the `n` most expensive source lines of the measured program, in sumcheck cells
/// when it ran on inputs, else in constraints (the attribution of `zkbc profile`).
fn top_lines(
    file: &Path,
    measured: measure::Measurement,
    n: usize,
    ran: bool,
) -> Result<String, Exit> {
    let source = read(file)?;
    let name = file.display().to_string();
    let profiled = zkbc::report::measure::profile::attribute(measured, &source)
        .map_err(|e| measure_error(e, file))?;
    let profile = report::profile::build(
        &profiled.measurement.compilation.program,
        &profiled.blocks,
        &profiled.measurement.report,
        &name,
    );
    let metric = if ran {
        report::profile::Metric::Cells
    } else {
        report::profile::Metric::Constraints
    };
    let lines = profile
        .hottest_lines(metric, n, &profiled.texts)
        .map_err(|e| user_error(format!("{name}: {e}")))?;
    Ok(format!(
        "\nthe {n} source lines that cost the most {} (zkbc profile shows them all):\n{lines}",
        match metric {
            report::profile::Metric::Cells => "sumcheck cells",
            _ => "constraints",
        }
    ))
}

/// Measures the program before merging (`measure::before_merging`), as `measure_file` does.
fn measure_before_merging(
    file: &Path,
    json: Option<&serde_json::Value>,
    settings: &Settings,
    progress: &super::progress::Progress,
) -> Result<measure::Measurement, Exit> {
    let source = read(file)?;
    let name = file.display().to_string();
    measure::before_merging(&name, &source, json, settings, &|stage| {
        if !matches!(stage, measure::Stage::Checked { .. }) {
            progress.set_message(format!("{name} before merging: {}", stage.name()));
        }
    })
    .map_err(|e| measure_error(e, file))
}

/// `--inline cost`'s decisions for `--explain --format json` (none in the other modes).
fn inlined_decisions<'a>(
    settings: &Settings,
    opt_report: &'a zkbc::opt::Report,
) -> &'a [zkbc::opt::inline_cost::InlineDecision] {
    if settings.inline == zkbc::opt::calls::Inline::Cost {
        &opt_report.inline_decisions
    } else {
        &[]
    }
}

/// `--inline cost`'s decisions, then a blank line, when the report was compiled so and its
/// program calls a function.
fn inline_explained(settings: &Settings, opt_report: &zkbc::opt::Report) -> String {
    if settings.inline != zkbc::opt::calls::Inline::Cost || opt_report.inline_decisions.is_empty() {
        return String::new();
    }
    format!(
        "{}\n",
        zkbc::opt::inline_cost::render(&opt_report.inline_decisions)
    )
}

/// The title of the `--explain` DOT graph: what it draws, the formation chosen, and how many
/// considered components are not drawn.
fn explain_graph_label(decisions: &[zkbc::opt::merge::Decision], left_out: usize) -> String {
    use zkbc::opt::merge::{Subject, Verdict};
    let chosen = decisions
        .iter()
        .find_map(|d| match (&d.subject, d.verdict) {
            (Subject::Formation { name }, Verdict::Taken) => Some((name.clone(), d.cells_taken)),
            _ => None,
        });
    let mut label = String::from(
        "main before block formation: components merged (green), kept (grey), impossible (red)",
    );
    if let Some((name, cells)) = chosen {
        let cells = cells.map_or_else(|| "?".into(), report::group_digits);
        label.push_str(&format!(
            "\nformation chosen: {name} ({cells} predicted cells)"
        ));
        if name != "greedy" {
            label.push_str("; the greedy merges drawn are not in the result");
        }
    }
    if left_out > 0 {
        label.push_str(&format!(
            "\n{left_out} considered components not drawn (the same blocks as a drawn one, or crossing one)"
        ));
    }
    label
}

/// `zkbc table`: the parity tables of `--zokrates` or `--yardsticks`, or the programs' table.
pub(crate) fn table_command(args: TableArgs) -> Result<(), Exit> {
    args.measured.start();
    match args {
        TableArgs {
            zokrates: Some(dir),
            format,
            output,
            field_cmp,
            ..
        } => zokrates_table_command(dir, format, output.output, field_cmp),
        TableArgs {
            yardsticks: Some(dir),
            format,
            output,
            ..
        } => yardsticks_table_command(dir, format, output.output),
        TableArgs {
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
            yardsticks: None,
            measured: _,
        } => programs_table_command(
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
            output.output.as_deref(),
            quiet.quiet,
            (max_steps, field_cmp),
        ),
    }
}

/// `zkbc table --zokrates DIR`.
fn zokrates_table_command(
    dir: PathBuf,
    format: TableFormat,
    output: Option<PathBuf>,
    field_cmp: measure::FieldCmp,
) -> Result<(), Exit> {
    if !matches!(format, TableFormat::Markdown) {
        return Err(user_error("--zokrates prints markdown only".to_string()));
    }
    let rows = zkbc::report::measure::zokrates::rows(&dir, field_cmp).map_err(user_error)?;
    emit(
        &report::zokrates::markdown(&rows, field_cmp),
        output.as_deref(),
    )
}

/// `zkbc table --yardsticks DIR`.
fn yardsticks_table_command(
    dir: PathBuf,
    format: TableFormat,
    output: Option<PathBuf>,
) -> Result<(), Exit> {
    if !matches!(format, TableFormat::Markdown) {
        return Err(user_error("--yardsticks prints markdown only".to_string()));
    }
    let rows = zkbc::report::measure::zokrates::yardstick_rows(&dir).map_err(user_error)?;
    emit(
        &report::zokrates::yardsticks_markdown(&rows),
        output.as_deref(),
    )
}

/// One row kind of `zkbc table`: level, MIN_BLOCK_SIZE, merging, policy.
type TablePipeline = (opt::OptLevel, u64, measure::Merging, MergePolicy);

/// The pipelines of `zkbc table`: every level at every MIN_BLOCK_SIZE (at -O3 once per merge
/// policy), optionally each level without merging, and optionally -O3 `--monolithic`.
fn table_pipelines(
    opt_levels: &[opt::OptLevel],
    min_block_sizes: &[u64],
    policies: &[MergePolicy],
    with_no_merge: bool,
    with_monolithic: bool,
) -> Vec<TablePipeline> {
    let mut out = Vec::new();
    let first = min_block_sizes[0];
    for &level in opt_levels {
        for &size in min_block_sizes {
            if level < opt::OptLevel::O3 {
                out.push((level, size, measure::Merging::Default, MergePolicy::Cost));
            } else {
                for &policy in policies {
                    out.push((level, size, measure::Merging::Default, policy));
                }
            }
        }
        if with_no_merge && level == opt::OptLevel::O3 {
            out.push((level, first, measure::Merging::Off, MergePolicy::Cost));
        }
    }
    if with_monolithic {
        out.push((
            opt::OptLevel::O3,
            first,
            measure::Merging::Monolithic,
            MergePolicy::Cost,
        ));
    }
    out
}

/// `zkbc table FILES...`: every program under every pipeline; a program that fails gets a row
/// saying so (and its error on stderr), and the exit status is then 1, after the whole table.
fn programs_table_command(
    files: &[PathBuf],
    inputs_dir: Option<&Path>,
    pipelines: &[TablePipeline],
    (format, metric): (TableFormat, &str),
    output: Option<&Path>,
    quiet: bool,
    (max_steps, field_cmp): (u64, measure::FieldCmp),
) -> Result<(), Exit> {
    use report::aggregate::{self, Failure, Row};
    let metric = aggregate::Metric::from_name(metric).ok_or_else(|| {
        user_error(format!(
            "unknown metric `{metric}`; the metrics are: constraints, executed_constraints, \
             transitions, sumcheck_cells, uniform_cells, padding_waste, rounds, monolithic_cells"
        ))
    })?;
    let jobs = files.len() * pipelines.len();
    let progress = super::progress::Progress::new(Some(jobs as u64), "", quiet);
    let mut rows: Vec<Result<report::Report, Failure>> = Vec::with_capacity(jobs);
    let mut errors = Vec::new();
    for file in files {
        let Some(stem) = file.file_stem() else {
            progress.finish();
            return Err(user_error(format!("{}: not a file name", file.display())));
        };
        let dir = inputs_dir
            .map(Path::to_path_buf)
            .or_else(|| file.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let candidate = dir.join(stem).with_extension("json");
        let inputs = candidate.is_file().then_some(candidate);
        let json = inputs.as_deref().map(read_json).transpose();
        for &(opt_level, min_block_size, merging, policy) in pipelines {
            let settings = Settings {
                opt_level,
                min_block_size,
                merging,
                policy,
                max_steps,
                field_cmp,
                // The table has rows of its own for them (--with-no-merge, --with-monolithic).
                baselines: false,
                keep_ir: false,
                lower: super::lower_options(zkbc::r1cs::DEFAULT_MAX_CONSTRAINTS),
                ..Settings::default()
            };
            let measured = json.as_ref().map_err(|e| Exit {
                code: e.code,
                message: e.message.clone(),
            });
            let measured = measured.and_then(|json| {
                measure_file(
                    file,
                    (json.as_ref(), inputs.as_deref()),
                    &settings,
                    (&progress, false),
                    false,
                )
            });
            match measured {
                Ok(m) => rows.push(Ok(m.report)),
                // No one-block circuit exists for this program: no monolithic row.
                Err(_) if merging == measure::Merging::Monolithic => {}
                Err(e) => {
                    rows.push(Err(Failure {
                        program: measure::program_name(&file.display().to_string()),
                        opt_level: settings.pipeline_name(),
                        min_block_size,
                        error: e.message.clone(),
                    }));
                    errors.push(e.message);
                }
            }
            progress.inc(1);
        }
    }
    progress.finish();
    let rows: Vec<Row> = rows
        .iter()
        .map(|r| match r {
            Ok(report) => Row::Report(report),
            Err(failure) => Row::Failed(failure),
        })
        .collect();
    let text = match format {
        TableFormat::Markdown => aggregate::markdown_rows(&rows),
        TableFormat::Csv => aggregate::csv_rows(&rows),
        TableFormat::Pivot => aggregate::pivot_markdown_rows(&rows, metric),
        TableFormat::Json => aggregate::json_rows(&rows),
    };
    emit(&text, output)?;
    if errors.is_empty() {
        return Ok(());
    }
    for message in &errors {
        eprintln!("error: {message}");
    }
    Err(Exit {
        code: 1,
        message: format!("{} of {} table rows failed", errors.len(), rows.len()),
    })
}
