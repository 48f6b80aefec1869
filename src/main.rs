//! The `zkbc` command line. Exit status: 0 success, 1 the program failed at run time (or a
//! check failed, or `verify-proof` rejected the proof), 2 the input does not compile or is
//! malformed (a key or proof file included).
//!
//! This file holds the list of commands (each variant's help, with its example) and the
//! dispatch; each command's flags are an `Args` struct beside the code that runs it in `cli/`,
//! grouped by what they work on.

/// mimalloc: lowering allocates many short-lived vectors, and per-thread heaps let the parallel
/// constraint counting scale (measured in `benches/r1cs.rs`); blocks of a megabyte or more are
/// mapped on their own and grown without a copy (`allocator::Allocator`).
#[global_allocator]
static GLOBAL: allocator::Allocator = allocator::Allocator;
// Freed memory goes back to the system at once (`allocator.rs`, the binary's and the benches').
#[macro_use]
mod allocator;
configure_allocator_before_main!();

mod cli;

use clap::{Parser, Subcommand};
// The shared flags: `cli`'s modules name them through `crate::`.
use cli::args::*;
use cli::{circuit, groth16, ir_text, profile, program, report, Exit};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "zkbc",
    version,
    about = "Compile ZoKrates programs to block IR and per-block R1CS over BN254, and report what a block-based sumcheck prover would pay",
    long_about = None,
    after_help = "Examples:\n  zkbc run circuits/gcd.zok --inputs circuits/gcd.json\n  zkbc report circuits/bubble_sort.zok --inputs circuits/bubble_sort.json"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The commands, in the order a user needs them: run a program, check and measure it, prove
/// and export it, look at what it compiles to, then the tools on IR text.
#[derive(Subcommand)]
enum Command {
    /// Compile a program (ZoKrates .zok, or IR text), run it in the reference interpreter and
    /// print `{"outputs": [...]}` (one entry per returned value).
    #[command(
        after_help = "Examples:\n  zkbc run circuits/gcd.zok --inputs circuits/gcd.json\n  zkbc run circuits/gcd.zok --log -a 1071 462"
    )]
    Run(cli::program::RunArgs),
    /// Compile and run a program, lower every executed block to its R1CS instance, assign it
    /// from the run's trace and check it is satisfied (exit 0 only if every executed block is).
    #[command(
        after_help = "Examples:\n  zkbc check circuits/gcd.zok --inputs circuits/gcd.json\n  zkbc check circuits/gcd.zok --inputs circuits/gcd.json --soundness --format json"
    )]
    Check(cli::circuit::CheckArgs),
    /// Compile a program, lower every block to R1CS, run it on the inputs (checking every
    /// executed block's instance), and report what a block-based sumcheck prover pays: padded
    /// sizes, padding waste, sumcheck cells (see docs/report.md). Without inputs the
    /// executions are counted statically where they are known.
    #[command(
        after_help = "Examples:\n  zkbc report circuits/bubble_sort.zok --inputs circuits/bubble_sort.json\n  zkbc report circuits/cold_branch.zok --inputs circuits/cold_branch.json --explain --format json -o report.json"
    )]
    Report(cli::report::ReportArgs),
    /// Which source lines cost what: the report's constraints, executed constraints or
    /// sumcheck cells shared out over source lines and inlined call stacks (see
    /// docs/profile.md); the parts sum to the report's totals.
    #[command(
        after_help = "Examples:\n  zkbc profile circuits/bubble_sort.zok --inputs circuits/bubble_sort.json\n  zkbc profile circuits/bubble_sort.zok --inputs circuits/bubble_sort.json --metric cells --format svg -o profile.svg"
    )]
    Profile(cli::profile::ProfileArgs),
    /// Make the public parameters of a proof backend (no inputs: the circuit does not depend
    /// on them). `--backend groth16` (the default): Groth16's proving and verifying keys for a
    /// one-circuit program (compile with --monolithic); the setup is trusted: its secret
    /// randomness comes from the operating system and is never written anywhere, and `--seed`
    /// makes it reproducible, for tests only. `--backend spartan`: the Hyrax commitment
    /// generators for a program of several blocks, derived by hashing (no secret, no trusted
    /// setup), one file that `prove --pk` and `verify-proof --vk` both read (docs/proof.md).
    #[command(
        after_help = "Examples:\n  zkbc setup circuits/mimc.zok --monolithic -o mimc.pk.bin --vk mimc.vk.bin\n  zkbc setup circuits/mimc.zok --monolithic --seed 1 --snarkjs out\n  zkbc setup circuits/gcd.zok --backend spartan -o gcd.hyrax.bin"
    )]
    Setup(cli::groth16::SetupArgs),
    /// Prove a run. The default backend (`--backend probe`) proves every executed block with
    /// the data-parallel sumcheck (Spartan's first sumcheck, as spartan_parallel runs it),
    /// verifies the proof, and prints the measured prover and verifier time per block beside
    /// its sumcheck cells; there is no polynomial commitment: this measures the prover's
    /// sumcheck work; it is not a succinct or zero-knowledge proof. `--backend groth16` proves a
    /// one-circuit program (--monolithic) with the key of `zkbc setup` and writes the proof
    /// (`-o`) and its public values (`--public`) for `zkbc verify-proof`; `--backend spartan`
    /// does the same for a program of several blocks (succinct and zero-knowledge, memory
    /// included: docs/proof.md).
    #[command(
        after_help = "Examples:\n  zkbc prove circuits/gcd.zok --inputs circuits/gcd.json\n  zkbc prove circuits/mimc.zok --inputs circuits/mimc.json --format json\n  zkbc prove circuits/mimc.zok --monolithic --inputs circuits/mimc.json --backend groth16 --pk mimc.pk.bin -o mimc.proof.bin --public mimc.public.json"
    )]
    Prove(cli::circuit::ProveArgs),
    /// Verify a proof of `zkbc prove` (Groth16, of a one-circuit program, or Spartan, of a
    /// program of several blocks, memory included: the proof's first bytes say which), as a
    /// process of its own that reads the program (compiled with the flags setup used, and no
    /// inputs), the verifying key or parameters, the proof and the public values, never the
    /// witness or the private inputs. Exit status 0
    /// accepted, 1 rejected (with the reason), 2 a malformed or unreadable file.
    #[command(
        after_help = "Example:\n  zkbc verify-proof circuits/mimc.zok mimc.proof.bin --monolithic --public mimc.public.json --vk mimc.vk.bin"
    )]
    VerifyProof(cli::groth16::VerifyProofArgs),
    /// Write each executed block's instance as an iden3 `.r1cs` file and all its executions as
    /// one `.wtns` (the formats circom writes and snarkjs reads; execution 0 is the witness
    /// snarkjs reads, the others follow as sections of their own) into the directory `-o`,
    /// with `manifest.json` saying where each execution is, in run order (docs/export.md). A one-block program (`--monolithic`) is written as one circuit, `main.r1cs` with
    /// `main.sym` and `main.wtns`, whose public wires are exactly main's outputs and public
    /// inputs (parameters are public unless declared `private`, as in ZoKrates); a block-based
    /// export makes every block's state public and warns about each private input of main.
    /// Without inputs only the constraint systems are written.
    #[command(
        after_help = "Examples:\n  zkbc export circuits/gcd.zok --inputs circuits/gcd.json -o out\n  zkbc export circuits/mimc.zok --monolithic -o out -a 3 5"
    )]
    Export(cli::circuit::ExportArgs),
    /// Compile a program (ZoKrates .zok, or IR text) and print it in the requested form. With
    /// inputs, block formation is profiled on them (their execution counts decide what is
    /// merged), so this prints the program `report --inputs` measures.
    #[command(
        after_help = "Examples:\n  zkbc compile circuits/gcd.zok -O2\n  zkbc compile circuits/gcd.zok --show cfg | dot -Tsvg > gcd.svg"
    )]
    Compile(cli::program::CompileCommandArgs),
    /// One table over many programs and pipelines (like Bril's brench): a row per program,
    /// -O level, min block size and merge policy, with the report's totals. Program NAME.zok
    /// runs on INPUTS_DIR/NAME.json when that file exists and is reported statically otherwise.
    /// A program that fails has a row that says so; the exit status is then 1.
    #[command(
        after_help = "Examples:\n  zkbc table circuits/gcd.zok circuits/mimc.zok circuits/cold_branch.zok -O 1,2,3\n  zkbc table circuits/gcd.zok circuits/mimc.zok --merge-policy cost,threshold --format json -o table.json"
    )]
    Table(cli::report::TableArgs),
    /// Print main's interface in ZoKrates' `abi.json` shape: each input's name, visibility
    /// (public unless declared `private`) and type, and the output type.
    #[command(after_help = "Example:\n  zkbc abi circuits/gcd.zok > abi.json")]
    Abi(cli::program::AbiArgs),
    /// Find every match of a structure query (SESE regions, counted loops, idioms, code written
    /// out several times with the interface a function of it would take) in a ZoKrates program
    /// (.zok) or a text-format IR program, with its location.
    #[command(
        after_help = "Examples:\n  zkbc query --list\n  zkbc query circuits/matmul.zok --pattern counted-loop\n  zkbc query circuits/apps/poseidon_merkle16_unrolled.zok --pattern interface"
    )]
    Query(cli::program::QueryArgs),
    /// Optimize a text-format IR program and print the result.
    #[command(
        after_help = "Examples:\n  zkbc opt examples/ir/sum_loop.ir --passes mem2reg,sccp\n  zkbc opt examples/ir/sum_loop.ir -O2 --time-passes"
    )]
    Opt(cli::ir_text::OptArgs),
    /// Run a text-format IR program in the reference interpreter and print its outputs as JSON.
    #[command(
        after_help = "Example:\n  zkbc interp examples/ir/sum_loop.ir --inputs examples/ir/sum_loop.json --trace"
    )]
    Interp(cli::ir_text::InterpArgs),
    /// Check a text-format IR program against every IR invariant and list each violation.
    #[command(after_help = "Example:\n  zkbc verify examples/ir/sum_loop.ir")]
    Verify(cli::ir_text::VerifyArgs),
}

fn run(cli: Cli) -> Result<(), Exit> {
    match cli.command {
        Command::Run(args) => program::run_command(args),
        Command::Check(args) => circuit::check_command(args),
        Command::Report(args) => report::report_command(args),
        Command::Profile(args) => profile::profile_command(args),
        Command::Setup(args) => groth16::setup_command(args),
        Command::Prove(args) => circuit::prove_command(args),
        Command::VerifyProof(args) => groth16::verify_proof_command(args),
        Command::Export(args) => circuit::export_command(args),
        Command::Compile(args) => program::compile_command(args),
        Command::Table(args) => report::table_command(args),
        Command::Abi(args) => program::abi_command(args),
        Command::Query(args) => program::query_command(args),
        Command::Opt(args) => ir_text::opt_command(args),
        Command::Interp(args) => ir_text::interp_command(args),
        Command::Verify(args) => ir_text::verify_command(args),
    }
}

fn main() -> ExitCode {
    // When the reader of stdout goes away (`zkbc compile x.zok | head`), end quietly as a C tool
    // does on SIGPIPE, instead of panicking in `println!` (Rust ignores SIGPIPE by default).
    // SAFETY: restoring a signal's default disposition, before any other thread exists.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let start = std::time::Instant::now();
    let result = run(Cli::parse());
    print_measured(start);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;
    use std::collections::BTreeMap;

    /// A long flag as one command defines it.
    #[derive(Clone, Debug, PartialEq, Eq)]
    struct Flag {
        short: Option<char>,
        value_names: Vec<String>,
        takes_value: bool,
        help: String,
    }

    /// Flags whose help names what the command writes, so it differs by command: the output
    /// forms of `--format` (each command lists its own values) and `-o`'s file or directory.
    /// Their short and value names must still agree.
    const HELP_PER_COMMAND: [&str; 1] = ["output"];

    /// Every long flag of every command (and of the top level), with the commands using it.
    fn flags() -> BTreeMap<String, Vec<(String, Flag)>> {
        let cli = Cli::command();
        let mut out: BTreeMap<String, Vec<(String, Flag)>> = BTreeMap::new();
        let commands = std::iter::once(&cli).chain(cli.get_subcommands());
        for cmd in commands {
            for arg in cmd.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                let flag = Flag {
                    short: arg.get_short(),
                    value_names: arg
                        .get_value_names()
                        .map(|v| v.iter().map(|s| s.to_string()).collect())
                        .unwrap_or_default(),
                    takes_value: arg.get_action().takes_values(),
                    help: arg.get_help().map(|h| h.to_string()).unwrap_or_default(),
                };
                out.entry(long.to_string())
                    .or_default()
                    .push((cmd.get_name().to_string(), flag));
            }
        }
        out
    }

    /// The same long flag means one thing on every command: the same short name, the same
    /// value name, and (but for `-o`, whose help says file or directory) the same help text.
    #[test]
    fn a_long_flag_is_spelled_once() {
        let flags = flags();
        // The walk sees the flags of every command, flattened ones included.
        let users = |long: &str| -> Vec<String> {
            flags[long].iter().map(|(cmd, _)| cmd.clone()).collect()
        };
        let list = |names: &str| -> Vec<String> { names.split(' ').map(String::from).collect() };
        assert_eq!(
            users("output"),
            list("report profile setup prove export table")
        );
        assert_eq!(
            users("quiet"),
            list("run check report profile setup prove verify-proof export compile table")
        );
        assert_eq!(
            users("log"),
            ["run", "check", "report", "profile", "prove", "export"]
        );
        assert_eq!(
            users("format"),
            list("check report profile prove verify-proof table")
        );
        assert_eq!(users("public"), ["prove", "verify-proof"]);
        assert_eq!(users("vk"), ["setup", "verify-proof"]);
        let mut problems = Vec::new();
        for (long, uses) in flags {
            let (first_cmd, first) = &uses[0];
            for (cmd, flag) in &uses[1..] {
                let same = flag.short == first.short
                    && flag.value_names == first.value_names
                    && flag.takes_value == first.takes_value
                    && (HELP_PER_COMMAND.contains(&long.as_str()) || flag.help == first.help);
                if !same {
                    problems.push(format!(
                        "--{long}: `{first_cmd}` has {first:?}, `{cmd}` has {flag:?}"
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// No two different long flags share a short name, on any two commands.
    #[test]
    fn a_short_flag_names_one_long_flag() {
        let mut longs_of: BTreeMap<char, Vec<String>> = BTreeMap::new();
        for (long, uses) in flags() {
            for (_, flag) in uses {
                if let Some(short) = flag.short {
                    let longs = longs_of.entry(short).or_default();
                    if !longs.contains(&long) {
                        longs.push(long.clone());
                    }
                }
            }
        }
        let shared: Vec<String> = longs_of
            .iter()
            .filter(|(_, longs)| longs.len() > 1)
            .map(|(short, longs)| format!("-{short}: --{}", longs.join(", --")))
            .collect();
        assert!(shared.is_empty(), "{}", shared.join("\n"));
        // The flags every command spells the same way are where they should be.
        for (short, long) in [
            ('o', "output"),
            ('q', "quiet"),
            ('O', "opt-level"),
            ('a', "args"),
        ] {
            assert_eq!(longs_of.get(&short), Some(&vec![long.to_string()]));
        }
    }

    /// Every command has an example in its help, and the commands are listed in the order a
    /// user needs them.
    #[test]
    fn every_command_has_an_example_and_the_order_is_the_users() {
        let cli = Cli::command();
        cli.clone().debug_assert();
        let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
        assert_eq!(
            names,
            "run check report profile setup prove verify-proof export compile table abi query opt \
             interp verify"
                .split(' ')
                .collect::<Vec<_>>()
        );
        for cmd in cli.get_subcommands() {
            let after = cmd
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                after.starts_with("Example")
                    && after.contains(&format!("zkbc {} ", cmd.get_name())),
                "`zkbc {} --help` has no example: {after:?}",
                cmd.get_name()
            );
        }
    }
}
