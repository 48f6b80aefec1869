//! The instrument-and-run harness `tests/analysis_known_bits.rs` and `tests/analysis_ranges.rs`
//! share: a program is instrumented with assertions of what an analysis claims about every
//! `uN` operand, and must behave exactly as the original on the same inputs (a claim the
//! analysis got wrong fails the run). The analysis is the [`Claims`] a test implements; the
//! programs are random source programs (the test passes its generator, so this file does not
//! depend on where the generator lives) or the corpus.

use zkbc::driver;
use zkbc::ir::interp::{self, Limits};
use zkbc::ir::{BlockId, Function, InstId, Program, ValueId};
use zkbc::opt::OptLevel;

/// An analysis whose facts are asserted in the program.
pub trait Claims: Sized {
    /// The analysis of `func`.
    fn analyze(func: &Function) -> Self;
    /// Whether the blocks `b`'s operands are checked in (all by default).
    fn covers(&self, _b: BlockId) -> bool {
        true
    }
    /// The instructions asserting the claim about `v` at `block`, created in `func` but not yet
    /// placed; none where the analysis claims nothing.
    fn check(&self, func: &mut Function, block: BlockId, v: ValueId) -> Vec<InstId>;
}

/// `func` with every operand checked before its instruction or terminator, and every block
/// parameter at its block's start; the number of checks inserted.
pub fn instrument<C: Claims>(func: &Function) -> (Function, usize) {
    let claims = C::analyze(func);
    let mut out = func.clone();
    let mut checks = 0;
    for &b in &func.layout {
        if !claims.covers(b) {
            continue;
        }
        let mut insts = Vec::new();
        let mut add = |out: &mut Function, v: ValueId, insts: &mut Vec<InstId>| {
            let c = claims.check(out, b, v);
            checks += usize::from(!c.is_empty());
            insts.extend(c);
        };
        for &p in &func.block(b).params {
            add(&mut out, p, &mut insts);
        }
        for &i in &func.block(b).insts {
            for v in func.inst(i).kind.operands() {
                add(&mut out, v, &mut insts);
            }
            insts.push(i);
        }
        if let Some(t) = &func.block(b).term {
            for v in t.operands() {
                add(&mut out, v, &mut insts);
            }
        }
        out.block_mut(b).insts = insts;
    }
    (out, checks)
}

/// [`instrument`] on every function; the result is verified.
pub fn instrument_program<C: Claims>(program: &Program) -> (Program, usize) {
    let mut out = program.clone();
    let mut checks = 0;
    for (k, f) in program.funcs.iter().enumerate() {
        let (g, n) = instrument::<C>(f);
        out.funcs[k] = g;
        checks += n;
    }
    zkbc::ir::verify::verify_program(&out)
        .unwrap_or_else(|e| panic!("instrumented program is invalid:\n{e}\n{out}"));
    (out, checks)
}

/// The outputs of a run, or its failure.
pub fn outcome(program: &Program, inputs: &[interp::Val]) -> Result<Vec<interp::Val>, String> {
    let limits = Limits {
        max_steps: 5_000_000,
        ..Limits::default()
    };
    interp::run(program, inputs, limits)
        .map(|o| o.outputs)
        .map_err(|f| f.kind.to_string())
}

/// What a random run did.
pub struct Tally {
    /// Programs compiled and compared.
    pub programs: usize,
    /// Checks inserted, over all of them.
    pub checks: usize,
    /// Runs that returned (rather than failing the same way before and after).
    pub runs: usize,
}

/// For each seed, the source `generate(seed)` gives (with its inputs as JSON), compiled at -O1
/// and -O2 (so loops and branches remain), instrumented and run; `what` names the claim in a
/// failure ("a value left its interval").
pub fn random_programs<C: Claims>(
    seeds: impl IntoIterator<Item = u64>,
    generate: impl Fn(u64) -> (String, serde_json::Value),
    what: &str,
) -> Tally {
    let mut tally = Tally {
        programs: 0,
        checks: 0,
        runs: 0,
    };
    for seed in seeds {
        let (source, inputs_json) = generate(seed);
        for level in [OptLevel::O1, OptLevel::O2] {
            let options = driver::Options {
                opt_level: level,
                ..driver::Options::default()
            };
            let Ok(compiled) = driver::compile("random.zok", &source, &options) else {
                continue;
            };
            let Ok(inputs) = compiled.inputs_from_json(&inputs_json) else {
                continue;
            };
            let (checked, n) = instrument_program::<C>(&compiled.program);
            let before = outcome(&compiled.program, &inputs);
            let after = outcome(&checked, &inputs);
            assert_eq!(
                before, after,
                "seed {seed} at {level:?}: {what}\n{}\ninputs {inputs_json}",
                compiled.program,
            );
            tally.programs += 1;
            tally.checks += n;
            tally.runs += usize::from(before.is_ok());
        }
    }
    tally
}

/// The programs `files` (the corpus) at -O1, each instrumented and run on the inputs of its
/// `.json` file; the checks inserted.
pub fn corpus<C: Claims>(files: &[std::path::PathBuf]) -> usize {
    let mut checks = 0;
    for file in files {
        let name = file.display().to_string();
        let source = std::fs::read_to_string(file).unwrap();
        let compiled = driver::compile(
            &name,
            &source,
            &driver::Options {
                opt_level: OptLevel::O1,
                ..driver::Options::default()
            },
        )
        .unwrap();
        let json_file = file.with_extension("json");
        let json: serde_json::Value = std::fs::read_to_string(&json_file)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_else(|| panic!("{}: unreadable", json_file.display()));
        let inputs = compiled.inputs_from_json(&json).unwrap();
        let (checked, n) = instrument_program::<C>(&compiled.program);
        assert_eq!(
            outcome(&compiled.program, &inputs),
            outcome(&checked, &inputs),
            "{name}"
        );
        checks += n;
    }
    checks
}
