//! The commands on a text-format IR file: `interp`, `opt`, `verify`.

use super::{parse_ir, read_json, user_error, Exit};
use std::path::PathBuf;
use zkbc::ir::{self, interp};
use zkbc::opt;

/// `zkbc interp`.
pub(crate) fn interp_command(
    file: PathBuf,
    inputs: Option<PathBuf>,
    trace: bool,
    max_steps: u64,
) -> Result<(), Exit> {
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
pub(crate) fn opt_command(
    file: PathBuf,
    passes: Option<Vec<String>>,
    level: opt::OptLevel,
    print_after: Vec<String>,
    skip: Vec<String>,
    time_passes: bool,
) -> Result<(), Exit> {
    let start = std::time::Instant::now();
    let mut program = parse_ir(&file)?;
    ir::verify::verify_program(&program)
        .map_err(|e| user_error(format!("{}: invalid IR:\n{e}", file.display())))?;
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
        eprint!("{}", zkbc::timing::stats_line(start));
    }
    print!("{program}");
    Ok(())
}

/// `zkbc verify`.
pub(crate) fn verify_command(file: PathBuf) -> Result<(), Exit> {
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
