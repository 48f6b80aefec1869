//! The commands on a program (ZoKrates .zok, or IR text) that print what it is or does:
//! `compile`, `run`, `query`.

use super::progress::Progress;
use super::{inputs_in_encoding, read, run_failure_message, user_error, Exit, StageNames};
use crate::{CompileArgs, Emit, ExecutionArgs, FrontArgs, QuietArg, Show};
use std::path::PathBuf;
use zkbc::{driver, ir, opt};

/// The flags of `zkbc run`.
#[derive(clap::Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    run: ExecutionArgs,
    #[command(flatten)]
    quiet: QuietArg,
}

/// The flags of `zkbc compile` (named so beside [`CompileArgs`], the program and how to
/// compile it, which every command on a program shares).
#[derive(clap::Args)]
pub(crate) struct CompileCommandArgs {
    #[command(flatten)]
    compile: CompileArgs,
    /// What to print (default: ir, or dot when --show is given).
    #[arg(long, value_enum)]
    emit: Option<Emit>,
    /// Which graph to draw; implies `--emit dot` (default with `--emit dot`: cfg).
    #[arg(long, value_enum)]
    show: Option<Show>,
    #[command(flatten)]
    quiet: QuietArg,
}

/// The flags of `zkbc query`.
#[derive(clap::Args)]
pub(crate) struct QueryArgs {
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
    #[command(flatten)]
    front: FrontArgs,
}

/// The flags of `zkbc abi`.
#[derive(clap::Args)]
pub(crate) struct AbiArgs {
    /// The program (ZoKrates source, .zok).
    file: PathBuf,
    #[command(flatten)]
    front: FrontArgs,
}

/// `zkbc run`, with a spinner naming the stage (compiling, running) on a terminal unless
/// `quiet`.
pub(crate) fn run_command(args: RunArgs) -> Result<(), Exit> {
    let RunArgs {
        compile,
        run,
        quiet: QuietArg { quiet },
    } = args;
    let progress = Progress::new(None, "", quiet);
    let name = compile.file.display();
    let ran = compile.input_json().and_then(|json| {
        progress.set_message(format!("{name}: compiling"));
        let stages = StageNames::on(&progress, &compile.file);
        let compiled = compile.compile()?;
        drop(stages);
        let values = inputs_in_encoding(&compiled, json, compile.inputs.as_deref())?;
        progress.set_message(format!("{name}: running"));
        // The outputs are all `run` prints: no trace is recorded.
        let limits = zkbc::ir::interp::Limits {
            max_steps: run.max_steps,
            ..Default::default()
        };
        let (result, log) = zkbc::ir::interp::run_logged(&compiled.program, &values, limits);
        Ok((compiled, result, log))
    });
    progress.finish();
    let (compiled, result, log) = ran?;
    if run.log {
        // Also the lines printed before a failure.
        for line in &log {
            eprintln!("{line}");
        }
    }
    let outputs = result.map_err(|f| Exit {
        code: 1,
        message: run_failure_message(&compile.file, &compiled.program.files, &f),
    })?;
    println!("{}", compiled.outputs_to_json(&outputs));
    Ok(())
}

/// `zkbc compile`; with inputs, block formation is profiled on them (as `report --inputs`
/// does), and inputs that do not fit `main` are an error. `--show` implies `--emit dot`.
pub(crate) fn compile_command(args: CompileCommandArgs) -> Result<(), Exit> {
    let CompileCommandArgs {
        compile,
        emit,
        show,
        quiet: QuietArg { quiet },
    } = args;
    let emit = match (emit, show) {
        (Some(Emit::Ir), Some(_)) => {
            return Err(user_error(
                "--show draws a graph, which --emit ir does not print: use --emit dot, or \
                 --show alone (it implies --emit dot)",
            ))
        }
        (Some(emit), _) => emit,
        (None, Some(_)) => Emit::Dot,
        (None, None) => Emit::Ir,
    };
    // Read once (the file may be a pipe): it profiles block formation and is checked against
    // main's parameters.
    let json = compile.input_json()?;
    // A spinner naming the pass while a long compile runs (block formation profiled on
    // large inputs can take seconds).
    let progress = Progress::new(
        None,
        format!("{}: compiling", compile.file.display()),
        quiet,
    );
    let stages = StageNames::on(&progress, &compile.file);
    let compiled =
        compile.compile_profiled(json.clone(), zkbc::ir::interp::Limits::default().max_steps);
    drop(stages);
    progress.finish();
    let compiled = compiled?;
    if json.is_some() {
        inputs_in_encoding(&compiled, json, compile.inputs.as_deref())?;
    }
    let program = compiled.program;
    match emit {
        Emit::Ir => print!("{program}"),
        Emit::Dot => {
            use zkbc::query::dot;
            let show = show.map_or(dot::Show::Cfg, |show| show.0);
            print!("{}", dot::to_dot(&program, show));
        }
    }
    Ok(())
}

/// `zkbc query`: every match of a pattern or an ad-hoc query, or the list of patterns.
pub(crate) fn query_command(args: QueryArgs) -> Result<(), Exit> {
    let QueryArgs {
        file,
        pattern,
        query: text,
        list,
        front,
    } = args;
    let front = front.options(zkbc::front::FieldCmp::Complete);
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
    let mut before: &[&str] = &[];
    let (label, find): (String, Finder) = match (pattern, text) {
        (Some(name), _) => {
            let Some(pattern) = find_pattern(&name) else {
                let names: Vec<&str> = patterns().iter().map(|p| p.name).collect();
                return Err(user_error(format!(
                    "unknown pattern `{name}`; the patterns are: {}",
                    names.join(", ")
                )));
            };
            before = pattern.before;
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
    let mut options = driver::Options {
        opt_level: opt::OptLevel::O0,
        field_cmp: front.field_cmp,
        compat: front.compat,
        stdlib: front.stdlib,
        ..driver::Options::default()
    };
    options.opt.merge.lower = super::lower_options(zkbc::r1cs::DEFAULT_MAX_CONSTRAINTS);
    let mut program = driver::compile(&file.display().to_string(), &read(&file)?, &options)
        .map_err(|e| user_error(e.to_string()))?
        .program;
    if !before.is_empty() {
        let pipeline = opt::Pipeline::from_names(before).map_err(|e| user_error(e.to_string()))?;
        opt::optimize(&mut program, &pipeline, &opt::Options::default())
            .map_err(|e| user_error(e.to_string()))?;
    }
    let matches = find(&program);
    let name = file.display().to_string();
    print!(
        "{}",
        format_matches(&program, &label, &matches, is_zok.then_some(name.as_str()))
    );
    Ok(())
}

/// `zkbc abi`.
pub(crate) fn abi_command(args: AbiArgs) -> Result<(), Exit> {
    let AbiArgs { file, front } = args;
    let front = &front.options(zkbc::front::FieldCmp::Complete);
    let text = read(&file)?;
    if driver::SourceKind::of(&file.display().to_string()) != driver::SourceKind::Zok {
        return Err(user_error(format!(
            "{}: an ABI is main's source-level signature; give a ZoKrates program (.zok)",
            file.display()
        )));
    }
    let abi = zkbc::front::abi_of_file(&file.display().to_string(), &text, front)
        .map_err(|d| user_error(d.render(&file.display().to_string(), &text)))?;
    let json = serde_json::to_string_pretty(&abi.to_zokrates_json())
        .map_err(|e| user_error(e.to_string()))?;
    println!("{json}");
    Ok(())
}
