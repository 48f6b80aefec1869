//! The commands on the R1CS instances of a run's executed blocks: `check` (satisfied, and with
//! `--soundness` not under-constrained), `prove` (the sumcheck prover) and `export` (iden3
//! files).

use super::{bug, execute, inputs_in_encoding, user_error, Exit};
use crate::CompileArgs;
use std::path::{Path, PathBuf};
use zkbc::ir::interp;
use zkbc::{driver, r1cs};

/// Compiles, legalizes for R1CS (lowering needs no calls and no memory) and runs: what every
/// command that lowers the executed blocks starts with.
fn compile_and_run(
    compile: &CompileArgs,
    inputs: Option<&Path>,
    max_steps: u64,
) -> Result<(driver::Compilation, interp::Outcome), Exit> {
    // Block formation is profiled on the inputs the blocks will run on (read once: the file
    // may be a pipe).
    let json = compile.input_json(inputs)?;
    let mut compiled = compile.compile_profiled(json.clone(), max_steps)?;
    driver::legalize_for_r1cs(&mut compiled.program).map_err(|e| user_error(e.to_string()))?;
    let values = inputs_in_encoding(&compiled, json, inputs)?;
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

/// `zkbc check`.
pub(crate) fn check_command(
    compile: CompileArgs,
    inputs: Option<PathBuf>,
    max_steps: u64,
    soundness: bool,
) -> Result<(), Exit> {
    let (compiled, outcome) = compile_and_run(&compile, inputs.as_deref(), max_steps)?;
    let file = &compile.file;
    let report =
        r1cs::check_trace(&compiled.program, &outcome).map_err(|e| check_failure(file, e))?;
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

/// `zkbc prove`.
pub(crate) fn prove_command(
    compile: CompileArgs,
    inputs: Option<PathBuf>,
    max_steps: u64,
) -> Result<(), Exit> {
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

/// `zkbc export`: a one-block program (`--monolithic`) as the circuit of main, with exactly its
/// outputs and public inputs public; any other program block by block, every block's state
/// public (a warning names the private inputs that makes public). Without inputs, the
/// constraint systems alone.
pub(crate) fn export_command(
    compile: CompileArgs,
    inputs: Option<PathBuf>,
    max_steps: u64,
    out: PathBuf,
) -> Result<(), Exit> {
    let json = compile.input_json(inputs.as_deref())?;
    let mut compiled = compile.compile_profiled(json.clone(), max_steps)?;
    driver::legalize_for_r1cs(&mut compiled.program).map_err(|e| user_error(e.to_string()))?;
    let outcome = match json {
        Some(json) => {
            let values = inputs_in_encoding(&compiled, Some(json), inputs.as_deref())?;
            Some(execute(
                &compile.file,
                &compiled.program,
                &values,
                max_steps,
            )?)
        }
        None => None,
    };
    std::fs::create_dir_all(&out)
        .map_err(|e| user_error(format!("cannot create {}: {e}", out.display())))?;
    let file = compile.file.display();
    if driver::circuit::not_one_block(&compiled.program).is_none() {
        let (instance, interface) = driver::circuit::main_circuit(&compiled, outcome.as_ref())
            .map_err(|e| match e {
                driver::circuit::CircuitError::Check(e) => check_failure(&compile.file, e),
                driver::circuit::CircuitError::Shape(why) => bug(format!("{file}: {why}")),
            })?;
        zkbc::export::write_circuit(&out, "main", &instance, &interface)
            .map_err(|e| user_error(format!("{}: {e}", out.display())))?;
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
    let instances = match &outcome {
        Some(outcome) => driver::block_instances(&compiled.program, outcome)
            .map_err(|e| check_failure(&compile.file, e))?,
        None => driver::block_systems(&compiled.program)
            .map_err(|e| check_failure(&compile.file, r1cs::CheckError::Lower(e)))?,
    };
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
