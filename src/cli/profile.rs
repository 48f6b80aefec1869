//! `zkbc profile`: which source lines cost what — the report's constraints, executed
//! constraints or sumcheck cells shared out over source lines and inlined call stacks, as
//! collapsed stacks, a flame graph, an annotated listing or JSON (docs/profile.md).

use super::report::{emit, measure_error};
use super::{user_error, Exit};
use crate::{CompileArgs, ExecutionArgs, OutputArg, QuietArg, FORMAT_HELP, METRIC_HELP};
use zkbc::report;
use zkbc::report::measure;
use zkbc::report::profile::Metric;

/// The flags of `zkbc profile`.
#[derive(clap::Args)]
pub(crate) struct ProfileArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    run: ExecutionArgs,
    #[arg(long, value_enum, default_value_t = ProfileMetric::Constraints, help = METRIC_HELP)]
    metric: ProfileMetric,
    #[arg(long, value_enum, default_value_t = ProfileFormat::Annotate, help = FORMAT_HELP)]
    format: ProfileFormat,
    #[command(flatten)]
    output: OutputArg,
    #[command(flatten)]
    quiet: QuietArg,
}

/// What `zkbc profile` measures per line.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ProfileMetric {
    /// Constraints (each block counted once).
    Constraints,
    /// Constraints times how often their block executes (needs the executions: --inputs).
    Executed,
    /// The prover's sumcheck cells: padded sizes, with padding, transitions and the memory
    /// check as frames of their own (needs the executions: --inputs).
    Cells,
}

/// Output forms of `zkbc profile`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ProfileFormat {
    /// Each source file with every line's cost in the margin, the hottest lines first.
    Annotate,
    /// Collapsed stacks (`main;sha256;sha256.zok:40 1234`), for inferno, flamegraph.pl or
    /// speedscope.
    Folded,
    /// A flame graph (SVG, interactive in a browser).
    Svg,
    /// Per line, pseudo-frame and stack, all three metrics (schema in docs/profile.md).
    Json,
}

/// `zkbc profile`.
pub(crate) fn profile_command(args: ProfileArgs) -> Result<(), Exit> {
    let settings = args.compile.settings(args.run.max_steps);
    let json = args.compile.input_json()?;
    let file = &args.compile.file;
    let source = super::read(file)?;
    let name = file.display().to_string();
    let progress = super::progress::Progress::new(None, "", args.quiet.quiet);
    let profiled =
        zkbc::report::measure::profile::profile(&name, &source, json.as_ref(), &settings, &|s| {
            progress.set_message(format!("{name}: {}", s.name()))
        });
    progress.finish();
    let profiled = profiled.map_err(|e| match (&e, args.compile.inputs.as_deref()) {
        (measure::MeasureError::Inputs(m), Some(path)) => user_error(format!(
            "{}: {}",
            path.display(),
            m.strip_prefix("inputs: ").unwrap_or(m)
        )),
        _ => measure_error(e, file),
    })?;
    if args.run.log {
        for line in &profiled.measurement.log {
            eprintln!("{line}");
        }
    }
    let profile = report::profile::build(
        &profiled.measurement.compilation.program,
        &profiled.blocks,
        &profiled.measurement.report,
        &name,
    );
    let metric = match args.metric {
        ProfileMetric::Constraints => Metric::Constraints,
        ProfileMetric::Executed => Metric::Executed,
        ProfileMetric::Cells => Metric::Cells,
    };
    let text = match args.format {
        ProfileFormat::Annotate => profile.annotate(metric, &profiled.texts),
        ProfileFormat::Folded => profile.folded(metric),
        ProfileFormat::Svg => profile.svg(metric),
        ProfileFormat::Json => Ok(profile.json()),
    }
    .map_err(|e| user_error(format!("{name}: {e}")))?;
    emit(&text, args.output.output.as_deref())
}
