//! The Groth16 commands on a one-circuit program (`--monolithic`): `setup` (the keys),
//! `prove --backend groth16` (a proof and its public values) and `verify-proof` (a separate
//! process that reads the program, the verifying key, the proof and the public values, never
//! the inputs). The files are `prove::groth16::format`'s; docs/proof.md describes them.
//!
//! Default file names come from the program's stem, in the current directory: `NAME.pk.bin`,
//! `NAME.vk.bin`, `NAME.proof.bin`; the public values go beside the proof (`NAME.public.json`,
//! or `DIR/x.public.json` for `-o DIR/x.proof`).

use super::circuit::{check_failure, compile_and_run, compile_legalized, pretty, Formation};
use super::progress::Progress;
use super::{bug, read_json, user_error, Exit};
use crate::{CompileArgs, ExecutionArgs, QuietArg, ResultFormat, FORMAT_HELP};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use zkbc::driver::{self, circuit::CircuitError};
use zkbc::field::{parse_dec, to_dec, Fr};
use zkbc::ir::interp;
use zkbc::prove::groth16::{self, snarkjs, Circuit};

/// Exit status of `verify-proof` when the proof is rejected (a malformed file is 2).
pub(crate) const REJECTED: u8 = 1;

// The help of the flags two of these commands share, written once (see `main.rs`).
const BACKEND_HELP: &str = "The proof system: `probe` (`prove`'s default) is the data-parallel \
    sumcheck over every executed block, which measures the prover's work and is neither succinct \
    nor zero-knowledge; `groth16` is a succinct zero-knowledge Groth16 proof over BN254 of a \
    one-circuit program (compile with --monolithic), with the keys of `zkbc setup`; `spartan` \
    is a succinct zero-knowledge proof of a block-based program: Spartan's sumchecks per \
    block with Hyrax commitments over BN254, with the public parameters of `zkbc setup` \
    (docs/proof.md)";
const VK_HELP: &str = "The verifying key file: `setup` writes it, `verify-proof` reads it \
    (default NAME.vk.bin in the current directory, NAME the program's file stem). Spartan: \
    `setup --backend spartan --vk KEY` also writes a verifier key (the compiled blocks and the \
    generators), with which `verify-proof` neither compiles the program nor derives the \
    generators; without a key `verify-proof` reads the public parameters (default \
    NAME.hyrax.bin) and compiles the program";
const PUBLIC_HELP: &str = "The statement's public values as snarkjs' public.json, a JSON array \
    of decimal strings: main's outputs, then its public inputs. `prove --backend \
    groth16|spartan` writes it (default: beside the proof, named after it: `-o DIR/x.proof` \
    gives DIR/x.public.json, the default NAME.proof.bin gives NAME.public.json), \
    `verify-proof` reads it";
const SNARKJS_HELP: &str = "Also write snarkjs' JSON files into this directory: `setup` the \
    verifying key (verification_key.json), `prove --backend groth16` the proof and the public \
    values (proof.json, public.json), which `snarkjs groth16 verify` checks";

/// The proof systems of `zkbc setup` and `zkbc prove`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Backend {
    /// The data-parallel sumcheck over the executed blocks: a measurement, not a proof system.
    Probe,
    /// Groth16 over BN254 for a one-circuit program.
    Groth16,
    /// Spartan's sumchecks with Hyrax commitments for a block-based program (succinct and
    /// zero-knowledge: docs/proof.md).
    Spartan,
}

/// The flags of `zkbc setup`.
#[derive(clap::Args)]
pub(crate) struct SetupArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    keys: KeyArgs,
    #[command(flatten)]
    quiet: QuietArg,
}

/// The flags of `zkbc verify-proof`.
#[derive(clap::Args)]
pub(crate) struct VerifyProofArgs {
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    files: ProofFileArgs,
    #[arg(long, value_enum, default_value_t = ResultFormat::Text, help = FORMAT_HELP)]
    format: ResultFormat,
    #[command(flatten)]
    quiet: QuietArg,
}

/// The flags of `zkbc setup` besides the program's.
#[derive(clap::Args)]
pub(crate) struct KeyArgs {
    #[arg(long, value_enum, default_value_t = Backend::Groth16, help = BACKEND_HELP)]
    backend: Backend,
    /// Draw the setup's secret randomness from this seed instead of the operating system: the
    /// same keys every time. For tests only: anyone who knows the seed can forge proofs.
    #[arg(long)]
    seed: Option<u64>,
    /// The proving key file to write (default NAME.pk.bin in the current directory, NAME the
    /// program's file stem).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    #[arg(long, value_name = "VK", help = VK_HELP)]
    vk: Option<PathBuf>,
    #[arg(long, value_name = "DIR", help = SNARKJS_HELP)]
    snarkjs: Option<PathBuf>,
}

/// The backend flags of `zkbc prove`.
#[derive(clap::Args)]
pub(crate) struct BackendArgs {
    #[arg(long, value_enum, default_value_t = Backend::Probe, help = BACKEND_HELP)]
    pub(crate) backend: Backend,
    /// The proving key `zkbc setup` wrote (--backend groth16; default NAME.pk.bin), or the
    /// public parameters (--backend spartan; default NAME.hyrax.bin).
    #[arg(long, value_name = "PK")]
    pub(crate) pk: Option<PathBuf>,
    /// The proof file to write (--backend groth16 or spartan; default NAME.proof.bin in the
    /// current directory).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub(crate) output: Option<PathBuf>,
    #[arg(long, value_name = "PUBLIC", help = PUBLIC_HELP)]
    pub(crate) public: Option<PathBuf>,
    #[arg(long, value_name = "DIR", help = SNARKJS_HELP)]
    pub(crate) snarkjs: Option<PathBuf>,
}

impl BackendArgs {
    /// The Groth16 backend's files, or `None` for the probe (which takes none of them).
    pub(crate) fn groth16(self) -> Result<Option<BackendArgs>, Exit> {
        let files = [&self.pk, &self.output, &self.public, &self.snarkjs];
        match self.backend {
            Backend::Groth16 | Backend::Spartan => Ok(Some(self)),
            Backend::Probe if files.iter().any(|f| f.is_some()) => Err(user_error(
                "--pk, -o, --public and --snarkjs are for --backend groth16; the probe writes no \
                 proof",
            )),
            Backend::Probe => Ok(None),
        }
    }
}

/// The files `zkbc verify-proof` reads besides the program.
#[derive(clap::Args)]
pub(crate) struct ProofFileArgs {
    /// The proof file (`zkbc prove --backend groth16|spartan -o`; its first bytes say which).
    pub(crate) proof: PathBuf,
    #[arg(long, value_name = "PUBLIC", help = PUBLIC_HELP)]
    pub(crate) public: PathBuf,
    #[arg(long, value_name = "VK", help = VK_HELP)]
    pub(crate) vk: Option<PathBuf>,
}

/// Where the Groth16 files go: each given path, else `NAME.<what>` in the current directory.
pub(crate) struct Paths {
    pub(crate) program: PathBuf,
}

impl Paths {
    /// The files of the program at `program`.
    pub(crate) fn of(program: &Path) -> Paths {
        Paths {
            program: program.to_path_buf(),
        }
    }

    /// `NAME.suffix`, NAME being the program's file stem.
    pub(crate) fn default(&self, given: Option<PathBuf>, suffix: &str) -> PathBuf {
        given.unwrap_or_else(|| {
            let stem = self
                .program
                .file_stem()
                .map_or("main".into(), |s| s.to_string_lossy().into_owned());
            PathBuf::from(format!("{stem}.{suffix}"))
        })
    }
}

/// The one circuit of a compiled program (legalized) with its execution when `outcome` is
/// given, as Groth16's statement: outputs, then public inputs, are public.
fn circuit_of(
    file: &Path,
    compiled: &driver::Compilation,
    outcome: Option<&interp::Outcome>,
) -> Result<(Circuit, Option<Vec<Fr>>), Exit> {
    if let Some(why) = driver::circuit::not_one_block(&compiled.program) {
        return Err(user_error(format!(
            "{}: the Groth16 backend proves one circuit: {why}",
            file.display()
        )));
    }
    let (instance, interface) = zkbc::timing::stage("lower (one circuit)", || {
        driver::circuit::main_circuit(compiled, outcome)
    })
    .map_err(|e| match e {
        CircuitError::Check(e) => check_failure(file, e),
        CircuitError::Shape(why) => bug(format!("{}: {why}", file.display())),
    })?;
    let public: Vec<usize> = interface
        .outputs
        .iter()
        .chain(&interface.public_inputs)
        .copied()
        .collect();
    let circuit = Circuit::new(&instance.r1cs, &public)
        .map_err(|e| bug(format!("{}: {e}", file.display())))?;
    Ok((circuit, instance.executions.into_iter().next()))
}

/// Compiles the program without inputs (what `setup` and `verify-proof` see) and legalizes it.
pub(crate) fn compile_without_inputs(
    compile: &CompileArgs,
    progress: &Progress,
) -> Result<driver::Compilation, Exit> {
    refuse_inputs(compile)?;
    compile_legalized(compile, progress, None)
}

/// The error of a command that reads no inputs when it is given some.
pub(crate) fn refuse_inputs(compile: &CompileArgs) -> Result<(), Exit> {
    if compile.inputs.is_some() || !compile.args.is_empty() {
        return Err(user_error(
            "this command reads no inputs (--inputs, -a): the circuit does not depend on them",
        ));
    }
    Ok(())
}

pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Exit> {
    std::fs::write(path, bytes)
        .map_err(|e| user_error(format!("cannot write {}: {e}", path.display())))
}

pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, Exit> {
    std::fs::read(path).map_err(|e| user_error(format!("cannot read {}: {e}", path.display())))
}

/// A malformed key or proof file: exit status 2, naming the file.
pub(crate) fn malformed(path: &Path, e: impl std::fmt::Display) -> Exit {
    user_error(format!("{}: {e}", path.display()))
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The process's CPU time so far (user + system, all threads; `getrusage`), `None` where
/// unknown.
fn cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        // SAFETY: getrusage writes into the struct we pass and reads nothing else.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 {
            let tv = |t: libc::timeval| {
                Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
            };
            return Some(tv(usage.ru_utime) + tv(usage.ru_stime));
        }
    }
    None
}

/// Wall and CPU time since a start: the prover's or verifier's own, in the JSON output as
/// `prove_ms`/`verify_ms` and `prove_cpu_ms`/`verify_cpu_ms` (the CPU time of every thread,
/// what a loaded machine does not stretch).
#[derive(Clone, Copy)]
pub(crate) struct Took {
    /// Wall time.
    pub(crate) wall: Duration,
    /// User + system time of the process's threads, where known.
    pub(crate) cpu: Option<Duration>,
}

/// A started [`Took`].
pub(crate) struct Stopwatch(Instant, Option<Duration>);

impl Stopwatch {
    /// Starts now.
    pub(crate) fn start() -> Stopwatch {
        Stopwatch(Instant::now(), cpu_time())
    }

    /// The time since the start.
    pub(crate) fn took(&self) -> Took {
        Took {
            wall: self.0.elapsed(),
            cpu: self.1.zip(cpu_time()).map(|(a, b)| b.saturating_sub(a)),
        }
    }
}

/// `zkbc setup`.
pub(crate) fn setup_command(command: SetupArgs) -> Result<(), Exit> {
    let SetupArgs {
        compile,
        keys: args,
        quiet: QuietArg { quiet },
    } = command;
    if args.backend == Backend::Probe {
        return Err(user_error(
            "the probe needs no setup: `zkbc setup` makes Groth16's keys",
        ));
    }
    if args.backend == Backend::Spartan {
        if args.snarkjs.is_some() || args.seed.is_some() {
            return Err(user_error(
                "--snarkjs and --seed are for --backend groth16: Spartan's parameters are one \
                 public file, the same for everyone (-o), and its verifier key (--vk) holds no \
                 secret",
            ));
        }
        return super::spartan::setup_command(compile, args.output, args.vk, quiet);
    }
    let seeded = args.seed.is_some();
    let line = Progress::spinning(quiet, |progress| setup(&compile, args, progress))?;
    if seeded {
        eprintln!(
            "warning: a seeded setup is for tests only: anyone who knows the seed can prove \
             false statements"
        );
    }
    if !quiet {
        println!("{line}");
    }
    Ok(())
}

/// Makes and writes the keys; returns the status line.
fn setup(compile: &CompileArgs, out: KeyArgs, progress: &Progress) -> Result<String, Exit> {
    let file = &compile.file;
    let compiled = compile_without_inputs(compile, progress)?;
    let (circuit, _) = circuit_of(file, &compiled, None)?;
    progress.set_message(format!(
        "{}: Groth16 setup ({} constraints)",
        file.display(),
        circuit.num_constraints()
    ));
    let start = Instant::now();
    let (pk, vk) = zkbc::timing::stage("groth16 setup", || match out.seed {
        Some(seed) => groth16::setup_seeded(&circuit, seed),
        None => groth16::setup(&circuit),
    })
    .map_err(|e| user_error(format!("{}: {e}", file.display())))?;
    let took = start.elapsed();
    let paths = Paths::of(file);
    let pk_path = paths.default(out.output, "pk.bin");
    let vk_path = paths.default(out.vk, "vk.bin");
    let pk_bytes = pk.to_bytes();
    let vk_bytes = vk.to_bytes();
    write_file(&pk_path, &pk_bytes)?;
    write_file(&vk_path, &vk_bytes)?;
    if let Some(dir) = &out.snarkjs {
        write_json(
            dir,
            "verification_key.json",
            &snarkjs::verifying_key_json(&vk),
        )?;
    }
    Ok(format!(
        "{}: Groth16 setup of {} constraints and {} public values in {:.1} ms: {} ({} bytes), \
             {} ({} bytes)",
        file.display(),
        circuit.num_constraints(),
        circuit.num_public(),
        ms(took),
        pk_path.display(),
        pk_bytes.len(),
        vk_path.display(),
        vk_bytes.len()
    ))
}

/// `dir/name`, pretty JSON; the directory is made when missing.
fn write_json(dir: &Path, name: &str, value: &serde_json::Value) -> Result<(), Exit> {
    std::fs::create_dir_all(dir)
        .map_err(|e| user_error(format!("cannot create {}: {e}", dir.display())))?;
    write_file(&dir.join(name), format!("{}\n", pretty(value)).as_bytes())
}

/// `zkbc prove --backend groth16|spartan`.
pub(crate) fn prove_command(
    compile: CompileArgs,
    run: ExecutionArgs,
    files: BackendArgs,
    format: ResultFormat,
    quiet: bool,
) -> Result<(), Exit> {
    if files.backend == Backend::Spartan && files.snarkjs.is_some() {
        return Err(user_error("--snarkjs is for --backend groth16"));
    }
    let line = Progress::spinning(quiet, |progress| match files.backend {
        Backend::Spartan => super::spartan::prove(&compile, &run, files, format, progress),
        _ => prove(&compile, &run, files, format, progress),
    })?;
    println!("{line}");
    Ok(())
}

/// Proves and writes the proof and its public values; returns the result to print.
fn prove(
    compile: &CompileArgs,
    run: &ExecutionArgs,
    files: BackendArgs,
    format: ResultFormat,
    progress: &Progress,
) -> Result<String, Exit> {
    let file = &compile.file;
    let paths = Paths::of(file);
    let pk_path = paths.default(files.pk.clone(), "pk.bin");
    // Stages are recorded from here (`--time-passes`), reading the key included.
    compile.measured.start();
    // The key is read first: a missing one fails before the program is compiled and run.
    let pk_bytes = read_file(&pk_path)?;
    progress.set_message(format!("{}: reading {}", file.display(), pk_path.display()));
    let pk = zkbc::timing::stage("read the proving key", || {
        groth16::ProvingKey::from_bytes(&pk_bytes)
    })
    .map_err(|e| malformed(&pk_path, e))?;
    drop(pk_bytes);
    let (compiled, outcome) = compile_and_run(compile, run, progress, Formation::Profiled)?;
    let (circuit, z) = circuit_of(file, &compiled, Some(&outcome))?;
    let z = z.ok_or_else(|| bug(format!("{}: the run assigned no circuit", file.display())))?;
    progress.set_message(format!(
        "{}: Groth16 proof of {} constraints",
        file.display(),
        circuit.num_constraints()
    ));
    let start = Stopwatch::start();
    let proof = zkbc::timing::stage("groth16 prove", || groth16::prove(&pk, &circuit, &z))
        .map_err(|e| match e {
            groth16::Groth16Error::OtherCircuit => {
                user_error(format!("{}: {}: {e}", file.display(), pk_path.display()))
            }
            e => bug(format!("{}: {e}", file.display())),
        })?;
    let took = start.took();
    let public: Vec<String> = circuit.public_values(&z).iter().map(to_dec).collect();
    if let Some(dir) = &files.snarkjs {
        write_json(dir, "proof.json", &snarkjs::proof_json(&proof))?;
        write_json(dir, "public.json", &json!(public))?;
    }
    let written = Written {
        backend: "groth16",
        count: ("constraints", "constraints", circuit.num_constraints()),
        took,
        proof: proof.to_bytes(),
        public,
    };
    written.write(file, files, format)
}

/// A proof made by `prove`, to write with its public values.
pub(crate) struct Written {
    /// `groth16` or `spartan`.
    pub(crate) backend: &'static str,
    /// What was proved: its JSON key, its words in the text line, how many.
    pub(crate) count: (&'static str, &'static str, usize),
    /// The prover's own time.
    pub(crate) took: Took,
    /// The proof file's bytes.
    pub(crate) proof: Vec<u8>,
    /// The public values, canonical decimal.
    pub(crate) public: Vec<String>,
}

/// Where `prove` writes the public values when `--public` is not given: beside the proof,
/// named after it (`DIR/x.proof` → `DIR/x.public.json`, `NAME.proof.bin` → `NAME.public.json`),
/// so a command that writes its proof elsewhere leaves nothing in the current directory.
pub(crate) fn public_beside(proof: &Path) -> PathBuf {
    let name = proof
        .file_name()
        .map_or("proof".into(), |s| s.to_string_lossy().into_owned());
    let stem = name
        .strip_suffix(".proof.bin")
        .or_else(|| name.rsplit_once('.').map(|(stem, _)| stem))
        .filter(|s| !s.is_empty())
        .unwrap_or(&name);
    proof.with_file_name(format!("{stem}.public.json"))
}

impl Written {
    /// Writes the proof and the public values where `files` says (default `NAME.proof.bin` and
    /// `NAME.public.json`), and gives the line `prove` prints.
    pub(crate) fn write(
        self,
        file: &Path,
        files: BackendArgs,
        format: ResultFormat,
    ) -> Result<String, Exit> {
        let paths = Paths::of(file);
        let proof_path = paths.default(files.output, "proof.bin");
        let public_path = files.public.unwrap_or_else(|| public_beside(&proof_path));
        write_file(&proof_path, &self.proof)?;
        write_file(
            &public_path,
            format!("{}\n", pretty(&json!(self.public))).as_bytes(),
        )?;
        let (key, words, count) = self.count;
        Ok(match format {
            ResultFormat::Text => format!(
                "{}: {} proof of {count} {words} in {:.1} ms: {} ({} bytes), {} ({} public \
                 values)",
                file.display(),
                if self.backend == "groth16" {
                    "Groth16"
                } else {
                    "Spartan"
                },
                ms(self.took.wall),
                proof_path.display(),
                self.proof.len(),
                public_path.display(),
                self.public.len()
            ),
            ResultFormat::Json => pretty(&json!({
                "program": file.display().to_string(),
                "backend": self.backend,
                key: count,
                "public": self.public,
                "proof": proof_path.display().to_string(),
                "proof_bytes": self.proof.len(),
                "prove_ms": ms(self.took.wall),
                "prove_cpu_ms": self.took.cpu.map(ms),
            })),
        })
    }
}

/// The statement's public values: a JSON array of canonical decimal strings (or numbers), as
/// snarkjs writes `public.json`.
pub(crate) fn read_public(path: &Path) -> Result<Vec<Fr>, Exit> {
    let json = read_json(path)?;
    let bad = |why: String| user_error(format!("{}: {why}", path.display()));
    let items = json
        .as_array()
        .ok_or_else(|| bad("not a JSON array of public values".into()))?;
    items
        .iter()
        .enumerate()
        .map(|(k, item)| {
            let text = match item {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                _ => return Err(bad(format!("value {k} is not a decimal string"))),
            };
            if text.starts_with('-') {
                return Err(bad(format!("value {k} ({text}) is negative")));
            }
            parse_dec(&text).ok_or_else(|| {
                bad(format!(
                    "value {k} ({text}) is not a decimal integer below the field's order"
                ))
            })
        })
        .collect()
}

/// `zkbc verify-proof`: exit 0 when the proof is accepted, [`REJECTED`] when it is not, 2 when a
/// file is malformed or the program does not compile.
pub(crate) fn verify_proof_command(args: VerifyProofArgs) -> Result<(), Exit> {
    let VerifyProofArgs {
        compile,
        files,
        format,
        quiet: QuietArg { quiet },
    } = args;
    let head = std::fs::read(&files.proof).unwrap_or_default();
    if zkbc::prove::spartan::format::is_spartan(&head) {
        return super::spartan::verify_proof_command(compile, files, format, quiet);
    }
    let (public, verdict, took) =
        Progress::spinning(quiet, |progress| verify_proof(&compile, files, progress))?;
    print_verdict(&compile.file, "groth16", format, &public, verdict, took)
}

/// What `verify-proof` prints and returns for a verdict of `backend` on `file`'s proof:
/// exit 0 with "proof accepted" (or the JSON object), else [`REJECTED`] with the reason.
pub(crate) fn print_verdict(
    file: &std::path::Path,
    backend: &str,
    format: ResultFormat,
    public: &[Fr],
    verdict: Result<(), String>,
    took: Took,
) -> Result<(), Exit> {
    let file = file.display();
    match format {
        ResultFormat::Text => {
            if verdict.is_ok() {
                println!(
                    "{file}: proof accepted ({} public values, verified in {:.2} ms)",
                    public.len(),
                    ms(took.wall)
                );
            }
        }
        ResultFormat::Json => println!(
            "{}",
            pretty(&json!({
                "program": file.to_string(),
                "backend": backend,
                "public": public.iter().map(to_dec).collect::<Vec<_>>(),
                "verified": verdict.is_ok(),
                "rejected": verdict.as_ref().err(),
                "verify_ms": ms(took.wall),
                "verify_cpu_ms": took.cpu.map(ms),
            }))
        ),
    }
    verdict.map_err(|why| Exit {
        code: REJECTED,
        message: format!("{file}: proof rejected: {why}"),
    })
}

/// The statement's public values, the verdict (why not, when rejected) and the time the check
/// of the proof took (not counting the compile).
type Verdict = (Vec<Fr>, Result<(), String>, Took);

fn verify_proof(
    compile: &CompileArgs,
    files: ProofFileArgs,
    progress: &Progress,
) -> Result<Verdict, Exit> {
    let file = &compile.file;
    let paths = Paths::of(file);
    let vk_path = paths.default(files.vk, "vk.bin");
    // The files first: a malformed one is reported before the program is compiled.
    let vk = groth16::VerifyingKey::from_bytes(&read_file(&vk_path)?)
        .map_err(|e| malformed(&vk_path, e))?;
    let proof = groth16::Proof::from_bytes(&read_file(&files.proof)?)
        .map_err(|e| malformed(&files.proof, e))?;
    let public = read_public(&files.public)?;
    let compiled = compile_without_inputs(compile, progress)?;
    let (circuit, _) = circuit_of(file, &compiled, None)?;
    progress.set_message(format!("{}: verifying", file.display()));
    let start = Stopwatch::start();
    let verdict = if vk.digest != circuit.digest() {
        Err(format!(
            "{} was made for another circuit than {} compiles to (other program or compile flags)",
            vk_path.display(),
            file.display()
        ))
    } else {
        zkbc::timing::stage("groth16 verify", || groth16::verify(&vk, &proof, &public))
            .map_err(|e| e.to_string())
    };
    Ok((public, verdict, start.took()))
}
