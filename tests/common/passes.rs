//! The pass-test runner `tests/opt_passes.rs` and `tests/opt_passes_late.rs` share: text in,
//! text out, and the interpreter before and after.

use expect_test::Expect;
use zkbc::ir::interp::{self, Limits};
use zkbc::ir::{parse_program, verify, Program};
use zkbc::opt::{optimize, Options, Pipeline};

/// Runs `passes` (comma-separated) once each on `before`, compares the normalized result with
/// `after`, and checks that every input (a JSON array, one entry per parameter of main) gives
/// the same outcome before and after.
pub fn check_pass(passes: &str, before: &str, inputs: &[&str], after: Expect) {
    let original = parse_program(before).unwrap_or_else(|e| panic!("bad test IR: {e}"));
    verify::verify_program(&original).unwrap_or_else(|e| panic!("invalid test IR:\n{e}"));
    let mut optimized = original.clone();
    let names: Vec<&str> = passes.split(',').collect();
    let pipeline = Pipeline::from_names(&names).unwrap();
    let options = Options {
        verify: true,
        ..Options::default()
    };
    optimize(&mut optimized, &pipeline, &options).unwrap();
    after.assert_eq(&optimized.normalized_text());
    assert!(!inputs.is_empty(), "a pass test needs at least one input");
    for input in inputs {
        assert_same_behaviour(&original, &optimized, input);
    }
}

fn outcome(program: &Program, input: &str) -> Result<Vec<serde_json::Value>, interp::FailureKind> {
    let json: serde_json::Value = serde_json::from_str(input).unwrap();
    let values = interp::inputs_from_json(program, &json).unwrap();
    let returns = &program.main_func().returns;
    interp::run(program, &values, Limits::default())
        .map(|o| {
            o.outputs
                .iter()
                .zip(returns)
                .map(|(v, t)| v.to_json(t))
                .collect()
        })
        .map_err(|f| f.kind)
}

pub fn assert_same_behaviour(before: &Program, after: &Program, input: &str) {
    let a = outcome(before, input);
    let b = outcome(after, input);
    assert_eq!(
        a, b,
        "input {input}: behaviour changed\nbefore:\n{before}\nafter:\n{after}"
    );
}
