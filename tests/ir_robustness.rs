//! Hostile IR text: random mutations of every shipped program go through the parser, the
//! verifier and (when they verify) the interpreter without a panic. The parser must answer with a
//! located error or a program; the interpreter with outputs or a located failure.
//!
//! `ZKBC_RANDOM_CASES` sets the number of mutants per program (default 300).

use rand::{rngs::StdRng, Rng, SeedableRng};
use zkbc::ir::{self, interp};

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

fn mutate(rng: &mut StdRng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..rng.gen_range(1..4) {
        let at = rng.gen_range(0..=chars.len());
        match rng.gen_range(0..4) {
            0 if at < chars.len() => {
                let len = rng.gen_range(1..8).min(chars.len() - at);
                chars.drain(at..at + len);
            }
            1 => {
                let frag = FRAGMENTS[rng.gen_range(0..FRAGMENTS.len())];
                chars.splice(at..at, frag.chars());
            }
            2 if at < chars.len() => {
                let other = rng.gen_range(0..chars.len());
                chars.swap(at, other);
            }
            _ => {
                // Duplicate a line elsewhere.
                let lines: Vec<&str> = text.lines().collect();
                let line = lines[rng.gen_range(0..lines.len())];
                chars.splice(at..at, format!("\n{line}\n").chars());
            }
        }
    }
    chars.into_iter().collect()
}

mod common;

#[test]
fn mutated_programs_never_panic() {
    let cases = common::random_cases(300);
    let mut rng = StdRng::seed_from_u64(0x2b_c0de);
    let limits = interp::Limits {
        max_steps: 2_000,
        max_call_depth: 32,
    };
    let (mut parsed, mut verified, mut ran) = (0, 0, 0);
    for text in shipped_programs() {
        for _ in 0..cases {
            let mutant = mutate(&mut rng, &text);
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
    // The mutations must exercise every stage, or this test checks nothing.
    assert!(
        parsed > 100 && verified > 50 && ran > 20,
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
