//! The `zkbc` command line. Exit status: 0 success, 1 the program failed at run time (or a
//! check failed), 2 the input does not compile or is malformed.

use anyhow::Context;
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use zkbc::ir::{self, interp};
use zkbc::r1cs;

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
    /// Run a program, lower every executed block to its R1CS instance, assign it from the trace
    /// and check it is satisfied (exit 0 only if every executed block is).
    Check {
        /// The IR file (text format).
        file: PathBuf,
        /// JSON array with one entry per parameter of main, as for `interp`.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Maximum number of instructions executed.
        #[arg(long, default_value_t = interp::Limits::default().max_steps)]
        max_steps: u64,
    },
    /// Check a text-format IR program against every IR invariant and list each violation.
    Verify {
        /// The IR file.
        file: PathBuf,
    },
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

fn read_inputs(program: &ir::Program, inputs: Option<&Path>) -> Result<Vec<interp::Val>, Exit> {
    let json = match inputs {
        Some(path) => read_json(path)?,
        None => serde_json::Value::Array(Vec::new()),
    };
    interp::inputs_from_json(program, &json).map_err(|e| {
        let source = inputs.map_or("inputs".into(), |p| p.display().to_string());
        user_error(format!("{source}: {e}"))
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
        Command::Check {
            file,
            inputs,
            max_steps,
        } => {
            let program = parse_ir(&file)?;
            ir::verify::verify_program(&program)
                .map_err(|e| user_error(format!("{}: invalid IR:\n{e}", file.display())))?;
            let values = read_inputs(&program, inputs.as_deref())?;
            let limits = interp::Limits {
                max_steps,
                ..interp::Limits::default()
            };
            let outcome = interp::run(&program, &values, limits).map_err(|f| Exit {
                code: 1,
                message: format!("{}: {f}", file.display()),
            })?;
            let report = r1cs::check_trace(&program, &outcome).map_err(|e| Exit {
                code: match e {
                    r1cs::CheckError::Lower(r1cs::LowerError::Unsupported { .. }) => 2,
                    _ => 1,
                },
                message: format!("{}: {e}", file.display()),
            })?;
            let main = program.main_func();
            for b in &report.blocks {
                println!(
                    "fn {} {}: {} constraints, satisfied in {} execution(s)",
                    main.name, b.block, b.constraints, b.executions
                );
            }
            println!(
                "{}: all {} block executions satisfied",
                file.display(),
                report.executions
            );
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

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
