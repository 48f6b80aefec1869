//! Hostile IR text: random mutations of every shipped program go through the parser, the
//! verifier and (when they verify) the interpreter without a panic. The parser must answer with a
//! located error or a program; the interpreter with outputs or a located failure.
//!
//! `ZKBC_RANDOM_CASES` sets the number of mutants per program (default 300), `ZKBC_RANDOM_SEED`
//! the first seed and `ZKBC_RANDOM_ONLY` one seed (a failure names it).

use zkbc::ir::{self, interp};
use zkbc_testkit::Rng;

fn shipped_programs() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["tests/interp", "examples/ir"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ir") {
                out.push(std::fs::read_to_string(path).unwrap());
            }
        }
    }
    out.sort();
    out
}

const FRAGMENTS: &[&str] = &[
    "v0",
    "v1",
    "v99",
    "b0",
    "b1",
    "b7",
    "f0",
    "f1",
    "field",
    "u1",
    "u8",
    "u32",
    "u64",
    "[",
    "]",
    ";",
    ":",
    ",",
    "(",
    ")",
    "{",
    "}",
    "=",
    "&",
    "@",
    "->",
    "-",
    "0",
    "1",
    "-1",
    "255",
    "4294967296",
    "99999999999999999999999999",
    "\"",
    "\\",
    "add",
    "div",
    "udiv",
    "call",
    "jmp",
    "br",
    "return",
    "load",
    "store",
    "at",
    "to",
    "allocate",
    "make_array",
    "array_get",
    "array_set",
    "to_bits",
    "from_bits",
    "select",
    "assert",
    "cast",
    "trunc",
    "\n",
    " ",
    "é",
    "\u{0}",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..rng.range(1, 3) {
        let at = rng.range(0, chars.len());
        match rng.index(4) {
            0 if at < chars.len() => {
                let len = rng.range(1, 7).min(chars.len() - at);
                chars.drain(at..at + len);
            }
            1 => {
                let frag = rng.pick(FRAGMENTS);
                chars.splice(at..at, frag.chars());
            }
            2 if at < chars.len() => {
                let other = rng.index(chars.len());
                chars.swap(at, other);
            }
            _ => {
                // Duplicate a line elsewhere.
                let lines: Vec<&str> = text.lines().collect();
                let line = rng.pick(&lines);
                chars.splice(at..at, format!("\n{line}\n").chars());
            }
        }
    }
    chars.into_iter().collect()
}

use crate::common;

/// Names the failing case when a mutant panics (the test's only failure besides too few stages).
struct Case {
    seed: u64,
    program: usize,
}

impl Drop for Case {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "failing mutant: ZKBC_RANDOM_ONLY={} (program {} of tests/interp and examples/ir, \
                 sorted by text)",
                self.seed, self.program
            );
        }
    }
}

#[test]
fn mutated_programs_never_panic() {
    let seeds = common::random_seeds(0x2b_c0de, 300);
    let limits = interp::Limits {
        max_steps: 2_000,
        max_call_depth: 32,
    };
    let (mut parsed, mut verified, mut ran) = (0, 0, 0);
    for (k, text) in shipped_programs().iter().enumerate() {
        for &seed in &seeds {
            let _case = Case { seed, program: k };
            let mut rng = Rng::new(seed ^ ((k as u64) << 40));
            let mutant = mutate(&mut rng, text);
            let Ok(program) = ir::parse_program(&mutant) else {
                continue;
            };
            parsed += 1;
            let _ = program.to_string();
            let _ = program.normalized_text();
            if ir::verify::verify_program(&program).is_err() {
                continue;
            }
            verified += 1;
            // Inputs of the right shape: zeros.
            let inputs: Vec<interp::Val> = program
                .main_func()
                .param_types()
                .iter()
                .map(interp::Val::zero)
                .collect();
            if interp::run(&program, &inputs, limits).is_ok() {
                ran += 1;
            }
        }
    }
    eprintln!("mutants: parsed {parsed}, verified {verified}, ran {ran}");
    // The mutations must exercise every stage, or this test checks nothing (a run of one seed
    // reproduces a failure and is not held to it).
    assert!(
        seeds.len() < 100 || (parsed > 100 && verified > 50 && ran > 20),
        "parsed {parsed}, verified {verified}, ran {ran}"
    );
}

/// Inputs the fuzzer (`fuzz/fuzz_targets/ir_parser.rs`) found; each once broke an invariant.
/// - `ir_leading_zero_label.txt`: `v09` and `v9` were two names for one value id, so the program
///   parsed with a value defined twice and its printed form did not parse.
#[test]
fn fuzz_regressions() {
    for entry in std::fs::read_dir("tests/fuzz_regressions").unwrap() {
        let path = entry.unwrap().path();
        if !path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("ir_")
        {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        if let Ok(program) = ir::parse_program(&text) {
            let reparsed = ir::parse_program(&program.to_string())
                .unwrap_or_else(|e| panic!("{}: printed form does not parse: {e}", path.display()));
            assert_eq!(reparsed.normalized_text(), program.normalized_text());
        }
    }
}

#[test]
fn leading_zeros_name_the_same_value() {
    let err = ir::parse_program(
        "fn main f0 {\nb0():\n    v9 = add u8 1, u8 1\n    v09 = add u8 1, u8 1\n    return\n}\n",
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "4:5: value `v9` defined twice");
}
