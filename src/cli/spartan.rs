//! The Spartan commands on a block-based program: `setup --backend spartan` (the public
//! parameters: Hyrax's generators, the same for everyone; with `--vk`, also a verifier key),
//! `prove --backend spartan` (a proof and its public values) and `verify-proof` on a Spartan
//! proof (a separate process that reads the proof and the public values, and either the
//! verifier key or the parameters, compiling the program without inputs). The files are `prove::spartan::format`'s; docs/proof.md describes them.
//!
//! The prover compiles the program without profiling block formation on its inputs, so that
//! its blocks are the verifier's.

use super::circuit::{compile_and_run, Formation};
use super::groth16::{
    compile_without_inputs, malformed, ms, read_file, read_public, refuse_inputs, write_file,
    BackendArgs, Paths, ProofFileArgs, Stopwatch, Written,
};
use super::progress::Progress;
use super::{execute, inputs_in_encoding, user_error, Exit};
use crate::{CompileArgs, ExecutionArgs, ResultFormat};
use std::path::{Path, PathBuf};
use std::time::Instant;
use zkbc::driver;
use zkbc::field::to_dec;
use zkbc::prove::spartan::format::is_key;
use zkbc::prove::spartan::key::{self, VerifierKey};
use zkbc::prove::spartan::{self, hyrax::Params};

/// The parameters' default file name suffix.
const PARAMS: &str = "hyrax.bin";

fn statement_of(file: &Path, compiled: &driver::Compilation) -> Result<spartan::Statement, Exit> {
    driver::spartan::statement(compiled).map_err(|e| user_error(format!("{}: {e}", file.display())))
}

fn read_params(path: &Path) -> Result<Params, Exit> {
    let bytes = read_file(path)?;
    zkbc::timing::stage("read the parameters", || Params::from_bytes(&bytes))
        .map_err(|e| malformed(path, e))
}

/// `zkbc setup --backend spartan`: the parameters, and the verifier key when `vk` is given.
pub(crate) fn setup_command(
    compile: CompileArgs,
    output: Option<PathBuf>,
    vk: Option<PathBuf>,
    quiet: bool,
) -> Result<(), Exit> {
    let line = Progress::spinning(quiet, |progress| {
        let file = &compile.file;
        let compiled = compile_without_inputs(&compile, progress)?;
        let st = statement_of(file, &compiled)?;
        drop(compiled);
        let n = st.generators_needed();
        progress.set_message(format!("{}: {n} generators", file.display()));
        let start = Instant::now();
        let (params, key) = match &vk {
            None => (
                zkbc::timing::stage("spartan setup", || Params::new(n)),
                None,
            ),
            Some(path) => {
                let source = key::source_hash(&read_file(file)?);
                let (key, counters) =
                    zkbc::timing::stage("spartan setup", || VerifierKey::new(st, source, n));
                (key.params.clone(), Some((path, key.to_bytes(&counters))))
            }
        };
        let path = Paths::of(file).default(output, PARAMS);
        let bytes = params.to_bytes();
        write_file(&path, &bytes)?;
        let mut line = format!(
            "{}: Spartan parameters ({n} Hyrax generators, derived from a public label: no \
             secret) in {:.1} ms: {} ({} bytes)",
            file.display(),
            ms(start.elapsed()),
            path.display(),
            bytes.len()
        );
        if let Some((path, key_bytes)) = key {
            write_file(path, &key_bytes)?;
            line += &format!(
                "; verifier key {} ({} bytes)",
                path.display(),
                key_bytes.len()
            );
        }
        Ok::<_, Exit>(line)
    })?;
    if !quiet {
        println!("{line}");
    }
    Ok(())
}

/// `zkbc prove --backend spartan` (its command is Groth16's, `groth16::prove_command`): proves
/// and writes the proof and its public values; returns the result to print.
pub(crate) fn prove(
    compile: &CompileArgs,
    run: &ExecutionArgs,
    files: BackendArgs,
    format: ResultFormat,
    progress: &Progress,
) -> Result<String, Exit> {
    let file = &compile.file;
    let params_path = Paths::of(file).default(files.pk.clone(), PARAMS);
    let params = read_params(&params_path)?;
    // Block formation is not profiled on the inputs: the blocks are those the verifier compiles.
    let (compiled, outcome) = compile_and_run(compile, run, progress, Formation::Unprofiled)?;
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

/// The statement `prove --backend spartan` would prove on these inputs, its executions filled
/// in: the same compile (no profiling of block formation), legalization, run and assignment,
/// without proving. `report --predict-prover` counts the proof's bytes from it.
pub(crate) fn prover_statement(
    compile: &CompileArgs,
    json: Option<serde_json::Value>,
    max_steps: u64,
) -> Result<spartan::Statement, Exit> {
    let file = &compile.file;
    let mut compiled = compile.compile()?;
    driver::legalize_for_r1cs(&mut compiled.program).map_err(|e| user_error(e.to_string()))?;
    let values = inputs_in_encoding(&compiled, json, compile.inputs.as_deref())?;
    let outcome = execute(file, &compiled.program, &values, max_steps)?;
    let (st, _) = driver::spartan::witness(&compiled, &outcome, None)
        .map_err(|e| user_error(format!("{}: {e}", file.display())))?;
    Ok(st)
}

/// `zkbc verify-proof` on a Spartan proof.
pub(crate) fn verify_proof_command(
    compile: CompileArgs,
    files: ProofFileArgs,
    format: ResultFormat,
    quiet: bool,
) -> Result<(), Exit> {
    let (public, verdict, took) = Progress::spinning(quiet, |progress| {
        let file = &compile.file;
        let key_path = Paths::of(file).default(files.vk, PARAMS);
        let key_bytes = read_file(&key_path)?;
        let proof_bytes = read_file(&files.proof)?;
        let public = read_public(&files.public)?;
        let (params, st, key_digest) = if is_key(&key_bytes) {
            // The verifier key: the statement and the generators, neither compiled nor derived.
            refuse_inputs(&compile)?;
            let key = zkbc::timing::stage("read the verifier key", || {
                VerifierKey::from_bytes(&key_bytes)
            })
            .map_err(|e| malformed(&key_path, e))?;
            if key.source != key::source_hash(&read_file(file)?) {
                return Err(user_error(format!(
                    "{}: the verifier key {} was made for another program (or before this file \
                     changed)",
                    file.display(),
                    key_path.display()
                )));
            }
            (key.params, key.statement, Some(key.digest))
        } else {
            let params =
                zkbc::timing::stage("read the parameters", || Params::from_bytes(&key_bytes))
                    .map_err(|e| malformed(&key_path, e))?;
            let compiled = compile_without_inputs(&compile, progress)?;
            (params, statement_of(file, &compiled)?, None)
        };
        progress.set_message(format!("{}: verifying", file.display()));
        // The verifier's time: reading the proof and checking it. Compiling the program and
        // deriving the generators are the same for every proof of the program.
        let start = Stopwatch::start();
        let proof = zkbc::timing::stage("read the proof", || {
            spartan::Proof::from_bytes(&proof_bytes)
        })
        .map_err(|e| malformed(&files.proof, e))?;
        // The key's header names its statement's digest; `verify` recomputes the digest from
        // the statement and requires the proof's to equal it, so requiring the header's to equal
        // the proof's too rejects a key whose header and statement disagree.
        let verdict = match key_digest {
            Some(d) if d != proof.digest => Err(spartan::Rejection::OtherCircuit),
            _ => zkbc::timing::stage("spartan verify", || {
                spartan::verify(&params, &st, &public, &proof)
            }),
        }
        .map_err(|e| e.to_string());
        Ok::<_, Exit>((public, verdict, start.took()))
    })?;
    super::groth16::print_verdict(&compile.file, "spartan", format, &public, verdict, took)
}
