//! The commands on a text-format IR file: `interp`, `opt`, `verify`.

use super::{parse_ir, read_json, user_error, Exit};
use crate::{parse_level, INPUTS_HELP, MAX_STEPS_HELP, OPT_LEVEL_HELP, TIME_PASSES_HELP};
use std::path::PathBuf;
use zkbc::ir::{self, interp};
use zkbc::opt;

/// The flags of `zkbc interp`.
#[derive(clap::Args)]
pub(crate) struct InterpArgs {
    /// The IR file (text format, see docs/ir.md).
    file: PathBuf,
    #[arg(long, help = INPUTS_HELP)]
    inputs: Option<PathBuf>,
    /// Also print the block trace (each executed block with its parameters) on stderr.
    #[arg(long)]
    trace: bool,
    #[arg(long, default_value_t = interp::Limits::default().max_steps, help = MAX_STEPS_HELP)]
    max_steps: u64,
}

/// The flags of `zkbc opt`.
#[derive(clap::Args)]
pub(crate) struct OptArgs {
    /// The IR file.
    file: PathBuf,
    /// Comma-separated passes to run once each, in order (inline, mem2reg, sccp, fold_bits,
    /// strength, ranges, indvars, remat, gvn, dce, simplify_cfg, merge, outline). Without it,
    /// the pipeline of `-O`.
    #[arg(long, value_delimiter = ',')]
    passes: Option<Vec<String>>,
    #[arg(short = 'O', long = "opt-level", default_value = "3", value_parser = parse_level, help = OPT_LEVEL_HELP)]
    opt_level: opt::OptLevel,
    /// Print the program (on stderr) after every run of this pass; may be repeated.
    #[arg(long)]
    print_after: Vec<String>,
    /// Do not run this pass; may be repeated.
    #[arg(long)]
    skip: Vec<String>,
    #[arg(long, help = TIME_PASSES_HELP)]
    time_passes: bool,
    /// Print (on stderr) the program's cost before the first pass and after every pass:
    /// constraints, and with --inputs executed constraints and sumcheck cells (static
    /// executions otherwise); a pass whose output costs more than its input is marked.
    #[arg(long)]
    cost_after: bool,
    /// The inputs --cost-after runs the program on (a JSON array, one entry per parameter).
    #[arg(long, help = INPUTS_HELP, requires = "cost_after")]
    inputs: Option<PathBuf>,
}

/// The flags of `zkbc verify`.
#[derive(clap::Args)]
pub(crate) struct VerifyArgs {
    /// The IR file.
    file: PathBuf,
}

/// `zkbc interp`.
pub(crate) fn interp_command(args: InterpArgs) -> Result<(), Exit> {
    let InterpArgs {
        file,
        inputs,
        trace,
        max_steps,
    } = args;
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

/// `zkbc opt`.
pub(crate) fn opt_command(args: OptArgs) -> Result<(), Exit> {
    let OptArgs {
        file,
        passes,
        opt_level: level,
        print_after,
        skip,
        time_passes,
        cost_after,
        inputs,
    } = args;
    // The inputs are only for --cost-after (clap requires it with them).
    let cost_after = cost_after.then_some(inputs);
    let start = std::time::Instant::now();
    let mut program = parse_ir(&file)?;
    ir::verify::verify_program(&program)
        .map_err(|e| user_error(format!("{}: invalid IR:\n{e}", file.display())))?;
    let observe = match cost_after {
        None => None,
        Some(inputs) => {
            let json = match &inputs {
                Some(path) => {
                    let json = read_json(path)?;
                    interp::inputs_from_json(&program, &json)
                        .map_err(|e| user_error(format!("{}: {e}", path.display())))?;
                    Some(json)
                }
                None => None,
            };
            Some(cost_observer(&program, json))
        }
    };
    let pipeline = match &passes {
        Some(names) => {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            opt::Pipeline::from_names(&names).map_err(|e| user_error(e.to_string()))?
        }
        None => level.pipeline(),
    };
    for name in print_after.iter().chain(&skip) {
        if opt::pass(name).is_none() {
            return Err(user_error(
                opt::OptError::UnknownPass(name.clone()).to_string(),
            ));
        }
    }
    let mut options = opt::Options {
        print_after,
        skip,
        observe,
        ..opt::Options::default()
    };
    options.merge.lower = super::lower_options(zkbc::r1cs::DEFAULT_MAX_CONSTRAINTS);
    let report = opt::optimize(&mut program, &pipeline, &options)
        .map_err(|e| user_error(format!("{}: {e}", file.display())))?;
    for (header, text) in &report.printed {
        eprintln!("; {header}\n{text}");
    }
    if time_passes {
        eprint!("{}", report.timing_table());
        eprint!("{}", zkbc::timing::stats_line(start));
    }
    print!("{program}");
    Ok(())
}

/// The program's cost for `--cost-after`: (constraints, executed constraints, sumcheck
/// cells), the last two `None` when not known (a run failed, or static counts are unknown).
type Cost = (u128, Option<u128>, Option<u128>);

/// The cost of `program` lowered as `zkbc report` lowers it (legalized first), run on `inputs`
/// or with static execution counts.
fn program_cost(program: &ir::Program, inputs: Option<&serde_json::Value>) -> Result<Cost, String> {
    let mut program = program.clone();
    zkbc::driver::legalize_for_r1cs(&mut program).map_err(|e| e.to_string())?;
    let lower = super::lower_options(zkbc::r1cs::DEFAULT_MAX_CONSTRAINTS);
    let stats = zkbc::r1cs::stats_opts(&program, lower).map_err(|e| e.to_string())?;
    let executions = match inputs {
        Some(json) => {
            let values = interp::inputs_from_json(&program, json)?;
            let outcome = interp::run(&program, &values, interp::Limits::default())
                .map_err(|e| format!("the run fails: {e}"))?;
            zkbc::cost::executions::traced_executions(&outcome)
        }
        None => zkbc::cost::executions::static_executions(&program),
    };
    let cost = zkbc::cost::executions::program_cost("opt", "", 1024, &program, &stats, &executions);
    let totals = cost.report().map_err(|e| e.to_string())?.totals;
    Ok((
        totals.constraints,
        totals.executed_constraints,
        totals.sumcheck_cells,
    ))
}

fn show_cost(cost: &Cost) -> String {
    let known = |x: Option<u128>| x.map_or("?".to_string(), |x| x.to_string());
    format!(
        "{} constraints, {} executed, {} cells",
        cost.0,
        known(cost.1),
        known(cost.2)
    )
}

/// `--cost-after`: prints the cost of the input program, then an observer that prints the cost
/// after every pass, marking a pass whose output costs more than its input.
fn cost_observer(program: &ir::Program, inputs: Option<serde_json::Value>) -> opt::PassObserver {
    let first = program_cost(program, inputs.as_ref());
    match &first {
        Ok(c) => eprintln!("; cost before any pass: {}", show_cost(c)),
        Err(e) => eprintln!("; cost before any pass: not measured ({e})"),
    }
    let last = std::sync::Mutex::new(first.ok());
    opt::PassObserver(std::sync::Arc::new(move |program, run| {
        let mut last = last.lock().expect("lock");
        match program_cost(program, inputs.as_ref()) {
            Ok(c) => {
                let rises = last.as_ref().is_some_and(|p| {
                    c.0 > p.0
                        || matches!((c.1, p.1), (Some(a), Some(b)) if a > b)
                        || matches!((c.2, p.2), (Some(a), Some(b)) if a > b)
                });
                let mark = if rises {
                    format!(
                        "   <-- costs more than its input ({})",
                        show_cost(last.as_ref().expect("compared"))
                    )
                } else {
                    String::new()
                };
                eprintln!(
                    "; cost after {} (round {}): {}{mark}",
                    run.name,
                    run.round,
                    show_cost(&c)
                );
                *last = Some(c);
            }
            Err(e) => {
                eprintln!(
                    "; cost after {} (round {}): not measured ({e})",
                    run.name, run.round
                );
                *last = None;
            }
        }
    }))
}

/// `zkbc verify`.
pub(crate) fn verify_command(args: VerifyArgs) -> Result<(), Exit> {
    let VerifyArgs { file } = args;
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
