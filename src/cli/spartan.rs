//! The Spartan commands on a block-based program: `setup --backend spartan` (the public
//! parameters: Hyrax's generators, the same for everyone), `prove --backend spartan` (a proof
//! and its public values) and `verify-proof` on a Spartan proof (a separate process that
//! compiles the program without inputs and reads the parameters, the proof and the public
//! values). The files are `prove::spartan::format`'s; docs/proof.md describes them.
//!
//! The prover compiles the program without profiling block formation on its inputs, so that
//! its blocks are the verifier's.

use super::groth16::{
    compile_without_inputs, ms, read_file, read_public, write_file, Paths, ProveArgs, Stopwatch,
    VerifyArgs, Written,
};
use super::progress::Progress;
use super::{execute, inputs_in_encoding, print_log, user_error, Exit};
use crate::{CompileArgs, ResultFormat, RunArgs};
use std::path::{Path, PathBuf};
use std::time::Instant;
use zkbc::driver;
use zkbc::field::to_dec;
use zkbc::prove::spartan::{self, format::FormatError, hyrax::Params};

/// The parameters' default file name suffix.
const PARAMS: &str = "hyrax.bin";

fn malformed(path: &Path, e: FormatError) -> Exit {
    user_error(format!("{}: {e}", path.display()))
}

fn statement_of(file: &Path, compiled: &driver::Compilation) -> Result<spartan::Statement, Exit> {
    driver::spartan::statement(compiled).map_err(|e| user_error(format!("{}: {e}", file.display())))
}

fn read_params(path: &Path) -> Result<Params, Exit> {
    let bytes = read_file(path)?;
    zkbc::timing::stage("read the parameters", || Params::from_bytes(&bytes))
        .map_err(|e| malformed(path, e))
}

/// `zkbc setup --backend spartan`.
pub(crate) fn setup_command(
    compile: CompileArgs,
    output: Option<PathBuf>,
    quiet: bool,
) -> Result<(), Exit> {
    let progress = Progress::new(None, "", quiet);
    let result = (|| {
        let file = &compile.file;
        let compiled = compile_without_inputs(&compile, &progress)?;
        let st = statement_of(file, &compiled)?;
        let n = st.generators_needed();
        progress.set_message(format!("{}: {n} generators", file.display()));
        let start = Instant::now();
        let params = zkbc::timing::stage("spartan setup", || Params::new(n));
        let path = Paths {
            program: file.clone(),
        }
        .default(output, PARAMS);
        let bytes = params.to_bytes();
        write_file(&path, &bytes)?;
        Ok::<_, Exit>(format!(
            "{}: Spartan parameters ({n} Hyrax generators, derived from a public label: no \
             secret) in {:.1} ms: {} ({} bytes)",
            file.display(),
            ms(start.elapsed()),
            path.display(),
            bytes.len()
        ))
    })();
    progress.finish();
    let line = result?;
    if !quiet {
        println!("{line}");
    }
    Ok(())
}

/// `zkbc prove --backend spartan`.
pub(crate) fn prove_command(
    compile: CompileArgs,
    run: RunArgs,
    files: ProveArgs,
    format: ResultFormat,
    quiet: bool,
) -> Result<(), Exit> {
    if files.snarkjs.is_some() {
        return Err(user_error("--snarkjs is for --backend groth16"));
    }
    let progress = Progress::new(None, "", quiet);
    let result = prove(&compile, &run, files, format, &progress);
    progress.finish();
    println!("{}", result?);
    Ok(())
}

fn prove(
    compile: &CompileArgs,
    run: &RunArgs,
    files: ProveArgs,
    format: ResultFormat,
    progress: &Progress,
) -> Result<String, Exit> {
    let file = &compile.file;
    let paths = Paths {
        program: file.clone(),
    };
    let params_path = paths.default(files.pk.clone(), PARAMS);
    let params = read_params(&params_path)?;
    let json = compile.input_json()?;
    progress.set_message(format!("{}: compiling", file.display()));
    let stages = super::StageNames::on(progress, file);
    let mut compiled = compile.compile()?;
    drop(stages);
    driver::legalize_for_r1cs(&mut compiled.program).map_err(|e| user_error(e.to_string()))?;
    let values = inputs_in_encoding(&compiled, json, compile.inputs.as_deref())?;
    progress.set_message(format!("{}: running", file.display()));
    let outcome = execute(file, &compiled.program, &values, run.max_steps)?;
    print_log(&outcome, run.log);
    progress.set_message(format!("{}: assigning the blocks", file.display()));
    progress.set_total(outcome.trace.len() as u64);
    let assigned = |done: usize| progress.set_position(done as u64);
    let (st, public) = zkbc::timing::stage("assign", || {
        driver::spartan::witness(&compiled, &outcome, Some(&assigned))
    })
    .map_err(|e| user_error(format!("{}: {e}", file.display())))?;
    if let Some((b, (e, k))) = st
        .blocks
        .iter()
        .enumerate()
        .find_map(|(b, inst)| inst.first_unsatisfied().map(|u| (b, u)))
    {
        return Err(Exit {
            code: 1,
            message: format!(
                "{}: block {} execution {e} violates constraint {k}",
                file.display(),
                st.blocks[b].name
            ),
        });
    }
    progress.set_message(format!("{}: proving", file.display()));
    let start = Stopwatch::start();
    let proof = zkbc::timing::stage("spartan prove", || spartan::prove(&params, &st, &public))
        .map_err(|e| user_error(format!("{}: {e}", file.display())))?;
    let executions: usize = st.blocks.iter().map(|b| b.executions.len()).sum();
    let written = Written {
        backend: "spartan",
        count: ("executions", "block executions", executions),
        took: start.took(),
        proof: proof.to_bytes(),
        public: public.iter().map(to_dec).collect(),
    };
    written.write(file, files, format)
}

/// `zkbc verify-proof` on a Spartan proof.
pub(crate) fn verify_proof_command(
    compile: CompileArgs,
    files: VerifyArgs,
    format: ResultFormat,
    quiet: bool,
) -> Result<(), Exit> {
    let progress = Progress::new(None, "", quiet);
    let result = (|| {
        let file = &compile.file;
        let params_path = Paths {
            program: file.clone(),
        }
        .default(files.vk, PARAMS);
        let params = read_params(&params_path)?;
        let proof_bytes = read_file(&files.proof)?;
        let public = read_public(&files.public)?;
        let compiled = compile_without_inputs(&compile, &progress)?;
        let st = statement_of(file, &compiled)?;
        progress.set_message(format!("{}: verifying", file.display()));
        // The verifier's time: reading the proof and checking it. Compiling the program and
        // deriving the generators are the same for every proof of the program.
        let start = Stopwatch::start();
        let proof = zkbc::timing::stage("read the proof", || {
            spartan::Proof::from_bytes(&proof_bytes)
        })
        .map_err(|e| malformed(&files.proof, e))?;
        let verdict = zkbc::timing::stage("spartan verify", || {
            spartan::verify(&params, &st, &public, &proof)
        })
        .map_err(|e| e.to_string());
        Ok::<_, Exit>((public, verdict, start.took()))
    })();
    progress.finish();
    let (public, verdict, took) = result?;
    super::groth16::print_verdict(&compile.file, "spartan", format, &public, verdict, took)
}
