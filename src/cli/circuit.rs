//! The commands on the R1CS instances of a run's executed blocks: `check` (satisfied, and with
//! `--soundness` not under-constrained), `prove` (the sumcheck prover) and `export` (iden3
//! files).

use super::groth16::BackendArgs;
use super::progress::Progress;
use super::{bug, execute, inputs_in_encoding, print_log, user_error, Exit, StageNames};
use crate::{CompileArgs, ExecutionArgs, OutputDirArg, QuietArg, ResultFormat, FORMAT_HELP};
use serde_json::json;
use std::path::Path;
use zkbc::ir::interp;
use zkbc::{driver, r1cs};

/// The flags of `zkbc check`.
#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    run: ExecutionArgs,
    /// Also look for under-constrained blocks: for every executed block, change each output
    /// leaf and each witness in an assertion-shaped constraint, repair the other witnesses,
    /// and report every instance that still accepts (exit status 1 if any).
    #[arg(long)]
    soundness: bool,
    /// Check every execution with ark-relations' constraint system as well (an independent
    /// implementation of satisfaction; slower) instead of evaluating the rows directly.
    #[arg(long)]
    cross_check: bool,
    #[arg(long, value_enum, default_value_t = ResultFormat::Text, help = FORMAT_HELP)]
    format: ResultFormat,
    #[command(flatten)]
    quiet: QuietArg,
}

/// The flags of `zkbc prove`.
#[derive(clap::Args)]
pub(crate) struct ProveArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    run: ExecutionArgs,
    #[command(flatten)]
    backend: BackendArgs,
    #[arg(long, value_enum, default_value_t = ResultFormat::Text, help = FORMAT_HELP)]
    format: ResultFormat,
    #[command(flatten)]
    quiet: QuietArg,
}

/// The flags of `zkbc export`.
#[derive(clap::Args)]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    run: ExecutionArgs,
    #[command(flatten)]
    output: OutputDirArg,
    #[command(flatten)]
    quiet: QuietArg,
}

/// How a command that lowers the program chooses its blocks.
#[derive(Clone, Copy)]
pub(crate) enum Formation {
    /// Block formation profiled on the inputs the blocks will run on (`check`, `export`, the
    /// probe's and Groth16's `prove`).
    Profiled,
    /// The blocks the program has without inputs: Spartan's prover, whose blocks must be those
    /// its verifier compiles.
    Unprofiled,
}

/// Compiles, legalizes for R1CS (lowering needs no calls and no memory) and runs, naming each
/// stage on the progress spinner, and prints the run's log with `--log`: what every command
/// that lowers the executed blocks starts with.
pub(crate) fn compile_and_run(
    compile: &CompileArgs,
    run: &ExecutionArgs,
    progress: &Progress,
    formation: Formation,
) -> Result<(driver::Compilation, interp::Outcome), Exit> {
    let (compiled, outcome) = compile_and_run_with(compile, run, progress, formation, true)?;
    Ok((
        compiled,
        outcome.expect("a run without inputs runs on the defaults"),
    ))
}

/// [`compile_and_run`]; without inputs the program runs on the empty default inputs only when
/// `without_inputs` says so (`export` writes the constraint systems alone instead).
fn compile_and_run_with(
    compile: &CompileArgs,
    run: &ExecutionArgs,
    progress: &Progress,
    formation: Formation,
    without_inputs: bool,
) -> Result<(driver::Compilation, Option<interp::Outcome>), Exit> {
    let (compiled, values) = compile_for_run(compile, run, progress, formation, without_inputs)?;
    let Some(values) = values else {
        return Ok((compiled, None));
    };
    progress.set_message(format!("{}: running", compile.file.display()));
    let outcome = execute(&compile.file, &compiled.program, &values, run.max_steps)?;
    print_log(&outcome, run.log);
    Ok((compiled, Some(outcome)))
}

/// The compiling half of [`compile_and_run_with`]: the program, legalized, and the values of
/// its inputs (`None` when there are none and `without_inputs` is false).
fn compile_for_run(
    compile: &CompileArgs,
    run: &ExecutionArgs,
    progress: &Progress,
    formation: Formation,
    without_inputs: bool,
) -> Result<(driver::Compilation, Option<Vec<interp::Val>>), Exit> {
    // Block formation is profiled on the inputs the blocks will run on (read once: the file
    // may be a pipe).
    let json = compile.input_json()?;
    let profile = match formation {
        Formation::Profiled => Some((json.clone(), run.max_steps)),
        Formation::Unprofiled => None,
    };
    let compiled = compile_legalized(compile, progress, profile)?;
    if json.is_none() && !without_inputs {
        return Ok((compiled, None));
    }
    let values = inputs_in_encoding(&compiled, json, compile.inputs.as_deref())?;
    Ok((compiled, Some(values)))
}

/// Compiles, naming each stage on the progress spinner, and legalizes for R1CS. Block formation
/// is profiled on `profile`'s inputs (runs limited to its step count) when it is given.
pub(crate) fn compile_legalized(
    compile: &CompileArgs,
    progress: &Progress,
    profile: Option<(Option<serde_json::Value>, u64)>,
) -> Result<driver::Compilation, Exit> {
    progress.set_message(format!("{}: compiling", compile.file.display()));
    let stages = StageNames::on(progress, &compile.file);
    let mut compiled = match profile {
        Some((json, max_steps)) => compile.compile_profiled(json, max_steps)?,
        None => compile.compile()?,
    };
    drop(stages);
    driver::legalize_for_r1cs(&mut compiled.program).map_err(|e| user_error(e.to_string()))?;
    Ok(compiled)
}

/// A block that cannot be lowered is the user's input (exit 2); an unsatisfied one is exit 1.
pub(crate) fn check_failure(file: &Path, e: r1cs::CheckError) -> Exit {
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

/// A duration in milliseconds.
fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `zkbc check`.
pub(crate) fn check_command(args: CheckArgs) -> Result<(), Exit> {
    let CheckArgs {
        compile,
        run,
        soundness,
        cross_check,
        format,
        quiet: QuietArg { quiet },
    } = args;
    let checker = if cross_check {
        r1cs::Checker::Ark
    } else {
        r1cs::Checker::Direct
    };
    Progress::spinning(quiet, |progress| {
        check_and_print(&compile, &run, (soundness, checker), format, progress)
    })
}

fn check_and_print(
    compile: &CompileArgs,
    run: &ExecutionArgs,
    (soundness, checker): (bool, r1cs::Checker),
    format: ResultFormat,
    progress: &Progress,
) -> Result<(), Exit> {
    let file = &compile.file;
    let (compiled, outcome, report) = if soundness {
        // The soundness search walks the trace again: keep it.
        let (compiled, outcome) = compile_and_run(compile, run, progress, Formation::Profiled)?;
        progress.set_message(format!("{}: checking", file.display()));
        progress.set_total(outcome.trace.len() as u64);
        let checked = |done: usize| progress.set_position(done as u64);
        let opts = r1cs::CheckOptions {
            checker,
            progress: Some(&checked),
            lower: compiled.lower,
            ..r1cs::CheckOptions::default()
        };
        let report = zkbc::timing::stage("check", || {
            r1cs::check_trace_opts(&compiled.program, &outcome, opts)
        })
        .map_err(|e| check_failure(file, e))?;
        (compiled, Some(outcome), report)
    } else {
        // Each block execution is checked as the run hands it over: the trace is never held
        // whole. A failed run is reported before an unsatisfied block.
        let (compiled, values) =
            compile_for_run(compile, run, progress, Formation::Profiled, true)?;
        let values = values.expect("bug: a check without inputs runs on the defaults");
        progress.set_message(format!("{}: running and checking", file.display()));
        // Block formation knows how many executions the run will make when it derived them.
        if let Some(total) = compiled.executions {
            progress.set_total(total);
        }
        let checked = |done: usize| match compiled.executions {
            Some(_) => progress.set_position(done as u64),
            None => progress.set_message(format!(
                "{}: running and checking, {done} block executions checked",
                file.display()
            )),
        };
        let opts = r1cs::CheckOptions {
            checker,
            progress: Some(&checked),
            lower: compiled.lower,
            ..r1cs::CheckOptions::default()
        };
        let limits = interp::Limits {
            max_steps: run.max_steps,
            ..interp::Limits::default()
        };
        let program = &compiled.program;
        let (ran, checked) = zkbc::timing::stage("run and check", || {
            r1cs::check_run(program, opts, |sink| {
                interp::run_with_sink(program, &values, limits, sink)
            })
        });
        let ran = ran.map_err(|f| Exit {
            code: 1,
            message: super::run_failure_message(file, &program.files, &f),
        })?;
        print_log(&ran, run.log);
        let report = checked.map_err(|e| check_failure(file, e))?;
        (compiled, None, report)
    };
    let blocks: Vec<serde_json::Value> = report
        .blocks
        .iter()
        .map(|b| {
            json!({
                "function": compiled.program.func(b.func).name,
                "block": b.block.to_string(),
                "source": compiled.program.block_source(b.func, b.block),
                "constraints": b.constraints,
                "executions": b.executions,
                "satisfied": true,
            })
        })
        .collect();
    if format == ResultFormat::Text {
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
    }
    let mut result = json!({
        "program": file.display().to_string(),
        "blocks": blocks,
        "totals": {
            "blocks": report.blocks.len(),
            "constraints": report.blocks.iter().map(|b| b.constraints).sum::<usize>(),
            "executions": report.executions,
            "satisfied": true,
        },
        "soundness": null,
    });
    let mut findings = 0;
    if soundness {
        progress.set_message(format!(
            "{}: looking for under-constrained blocks",
            file.display()
        ));
        let outcome = outcome.expect("bug: the trace is kept for the soundness search");
        let sound = r1cs::check_soundness(
            &compiled.program,
            &outcome,
            r1cs::SoundnessOptions {
                lower: compiled.lower,
                ..r1cs::SoundnessOptions::default()
            },
        )
        .map_err(|e| Exit {
            code: 1,
            message: format!("{}: {e}", file.display()),
        })?;
        findings = sound.findings.len();
        if format == ResultFormat::Text {
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
        }
        result["soundness"] = json!({
            "executions": sound.executions,
            "outputs_tried": sound.outputs_tried,
            "witnesses_tried": sound.witnesses_tried,
            "findings": sound.findings.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
        });
    }
    if format == ResultFormat::Json {
        println!("{}", pretty(&result));
    }
    if findings > 0 {
        return Err(Exit {
            code: 1,
            message: format!(
                "{}: {findings} under-constrained instance(s) found",
                file.display(),
            ),
        });
    }
    Ok(())
}

/// Pretty-printed JSON; serializing a `Value` cannot fail.
pub(crate) fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).expect("bug: a JSON value always serializes")
}

/// `zkbc prove`: the probe here, `--backend groth16|spartan` in `groth16.rs`.
pub(crate) fn prove_command(args: ProveArgs) -> Result<(), Exit> {
    let ProveArgs {
        compile,
        run,
        backend,
        format,
        quiet: QuietArg { quiet },
    } = args;
    match backend.groth16()? {
        Some(files) => super::groth16::prove_command(compile, run, files, format, quiet),
        None => probe_command(compile, run, format, quiet),
    }
}

/// `zkbc prove --backend probe`.
fn probe_command(
    compile: CompileArgs,
    run: ExecutionArgs,
    format: ResultFormat,
    quiet: bool,
) -> Result<(), Exit> {
    let progress = Progress::new(None, "", quiet);
    let file = compile.file.display();
    let instances = compile_and_run(&compile, &run, &progress, Formation::Profiled).and_then(
        |(compiled, outcome)| {
            progress.set_message(format!("{file}: assigning the blocks"));
            progress.set_total(outcome.trace.len() as u64);
            let assigned = |done: usize| progress.set_position(done as u64);
            let lower = compiled.lower;
            driver::proof::proof_instances_with_progress(
                &compiled.program,
                &outcome,
                lower,
                Some(&assigned),
            )
            .map_err(|e| check_failure(&compile.file, e))
        },
    );
    let proved = instances.and_then(|p| {
        progress.set_message(format!("{file}: proving"));
        let (proof, timing) =
            zkbc::prove::prove_timed(&p.instances).map_err(|e| bug(format!("{file}: {e}")))?;
        progress.set_message(format!("{file}: verifying"));
        let (verdict, vtiming) = zkbc::prove::verify_timed(&p.instances, &proof);
        // The links between the instances (the arguments' chains) once the sumchecks hold.
        let verdict = verdict
            .map_err(|e| e.to_string())
            .and_then(|()| driver::proof::verify_arguments(&p));
        Ok((p.instances, timing, verdict, vtiming))
    });
    progress.finish();
    let (instances, timing, verdict, vtiming) = proved?;
    let rows = instances.iter().zip(&timing.blocks).zip(&vtiming.blocks);
    match format {
        ResultFormat::Text => {
            println!(
                "{:<20} {:>11} {:>10} {:>9} {:>9} {:>13} {:>11} {:>11}  source",
                "block", "constraints", "executions", "Q", "X", "cells", "prove ms", "verify ms"
            );
            for ((inst, pt), vt) in rows {
                let shape = inst.shape();
                println!(
                    "{:<20} {:>11} {:>10} {:>9} {:>9} {:>13} {:>11.3} {:>11.3}  {}",
                    inst.name,
                    inst.r1cs.num_constraints(),
                    inst.executions.len(),
                    shape.padded_executions,
                    shape.padded_constraints,
                    shape.cells(),
                    ms(pt.digest + pt.tables + pt.rounds),
                    ms(*vt),
                    inst.source.as_deref().unwrap_or("")
                );
            }
            println!(
                "total: {} sumcheck cells, prover {:.3} ms, verifier {:.3} ms",
                zkbc::prove::total_cells(&instances),
                ms(timing.total),
                ms(vtiming.total)
            );
            if verdict.is_ok() {
                println!("{file}: proof verified");
            }
        }
        ResultFormat::Json => {
            let blocks: Vec<serde_json::Value> = rows
                .map(|((inst, pt), vt)| {
                    let shape = inst.shape();
                    json!({
                        "block": inst.name,
                        "source": inst.source,
                        "constraints": inst.r1cs.num_constraints(),
                        "executions": inst.executions.len(),
                        "padded_executions": shape.padded_executions,
                        "padded_constraints": shape.padded_constraints,
                        "cells": shape.cells(),
                        "prove_ms": ms(pt.digest + pt.tables + pt.rounds),
                        "verify_ms": ms(*vt),
                    })
                })
                .collect();
            let result = json!({
                "program": file.to_string(),
                "blocks": blocks,
                "totals": {
                    "cells": zkbc::prove::total_cells(&instances),
                    "prove_ms": ms(timing.total),
                    "verify_ms": ms(vtiming.total),
                },
                "verified": verdict.is_ok(),
                "rejected": verdict.as_ref().err().map(|e| e.to_string()),
            });
            println!("{}", pretty(&result));
        }
    }
    verdict.map_err(|e| Exit {
        code: 1,
        message: format!("{file}: proof rejected: {e}"),
    })
}

/// `zkbc export`: a one-block program (`--monolithic`) as the circuit of main, with exactly its
/// outputs and public inputs public; any other program block by block, every block's state
/// public (a warning names the private inputs that makes public). Without inputs, the
/// constraint systems alone.
pub(crate) fn export_command(args: ExportArgs) -> Result<(), Exit> {
    let ExportArgs {
        compile,
        run,
        output: OutputDirArg { output: out },
        quiet: QuietArg { quiet },
    } = args;
    Progress::spinning(quiet, |progress| {
        export_and_print(&compile, &run, &out, quiet, progress)
    })
}

fn export_and_print(
    compile: &CompileArgs,
    run: &ExecutionArgs,
    out: &Path,
    quiet: bool,
    progress: &Progress,
) -> Result<(), Exit> {
    let (compiled, outcome) =
        compile_and_run_with(compile, run, progress, Formation::Profiled, false)?;
    std::fs::create_dir_all(out)
        .map_err(|e| user_error(format!("cannot create {}: {e}", out.display())))?;
    let file = compile.file.display();
    if driver::circuit::not_one_block(&compiled.program).is_none() {
        let circuit = zkbc::timing::stage("lower (one circuit)", || {
            driver::circuit::main_circuit(&compiled, outcome.as_ref())
        });
        let (instance, interface) = circuit.map_err(|e| match e {
            driver::circuit::CircuitError::Check(e) => check_failure(&compile.file, e),
            driver::circuit::CircuitError::Shape(why) => bug(format!("{file}: {why}")),
        })?;
        progress.set_message(format!("{file}: writing"));
        zkbc::timing::stage("write", || {
            zkbc::export::write_circuit(out, "main", &instance, &interface)
        })
        .map_err(|e| user_error(format!("{}: {e}", out.display())))?;
        if quiet {
            return Ok(());
        }
        println!(
            "{}: main.r1cs ({} constraints; public: {} output and {} input wires; private: {} \
             input wires), main.sym{}",
            out.display(),
            instance.r1cs.num_constraints(),
            interface.outputs.len(),
            interface.public_inputs.len(),
            interface.private_inputs.len(),
            if instance.executions.is_empty() {
                ""
            } else {
                " and main.wtns"
            }
        );
        return Ok(());
    }
    let private: Vec<String> = compiled
        .abi
        .iter()
        .flat_map(|abi| abi.params.iter())
        .filter(|p| !p.public)
        .map(|p| format!("`{}`", p.name))
        .collect();
    if !private.is_empty() {
        eprintln!(
            "warning: {file}: main's private input(s) {} are part of the entry block's \
             transition state, which every block instance makes public: a proof of these blocks \
             reveals them. Export with --monolithic to keep them private.",
            private.join(", ")
        );
    }
    if let Some(outcome) = &outcome {
        progress.set_message(format!("{file}: writing the blocks and their witnesses"));
        progress.set_total(outcome.trace.len() as u64);
    } else {
        progress.set_message(format!("{file}: writing the blocks"));
    }
    let written = |done: usize| progress.set_position(done as u64);
    let export = zkbc::timing::stage("lower and write the blocks", || {
        driver::export::export_blocks(
            &compiled.program,
            outcome.as_ref(),
            out,
            &compile.file.display().to_string(),
            compiled.lower,
            Some(&written),
        )
    })
    .map_err(|e| match e {
        driver::export::BlockExportError::Check(e) => check_failure(&compile.file, e),
        driver::export::BlockExportError::Export(e) => {
            user_error(format!("{}: {e}", out.display()))
        }
    })?;
    if quiet {
        return Ok(());
    }
    for b in &export.blocks {
        let witnesses = match b.executions {
            0 => String::new(),
            n => format!(" and {}.wtns ({n} execution{})", b.name, plural(n)),
        };
        println!(
            "{}: {}.r1cs ({} constraints){witnesses}",
            out.display(),
            b.name,
            b.constraints,
        );
    }
    println!(
        "{}: which wire means what, and where each execution is, in run order",
        export.manifest.display()
    );
    Ok(())
}

/// `s` after a count other than one.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
