//! Runs the hand-written IR programs of `tests/interp/`. Each file states its cases in comments:
//! `; case: INPUTS -> OUTPUTS` (JSON arrays, expected values worked out by hand in the file's
//! comment) or `; fails: INPUTS -> MESSAGE` (the located failure, as the CLI prints it).

use std::path::Path;
use zkbc::ir::{self, interp};

const STEP_LIMIT: u64 = 10_000;

enum Expect {
    Outputs(serde_json::Value),
    Failure(String),
}

fn cases(text: &str) -> Vec<(serde_json::Value, Expect)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let (rest, fails) = if let Some(r) = line.strip_prefix("; case: ") {
            (r, false)
        } else if let Some(r) = line.strip_prefix("; fails: ") {
            (r, true)
        } else {
            continue;
        };
        let (inputs, expected) = rest.split_once(" -> ").expect("case has ` -> `");
        let inputs = serde_json::from_str(inputs).expect("inputs are JSON");
        let expect = if fails {
            Expect::Failure(expected.to_string())
        } else {
            Expect::Outputs(serde_json::from_str(expected).expect("outputs are JSON"))
        };
        out.push((inputs, expect));
    }
    out
}

fn run_file(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let program = ir::parse_program(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
    ir::verify::verify_program(&program).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases = cases(&text);
    assert!(!cases.is_empty(), "{} states no cases", path.display());
    let limits = interp::Limits {
        max_steps: STEP_LIMIT,
        ..Default::default()
    };
    for (inputs, expect) in &cases {
        let values = interp::inputs_from_json(&program, inputs).unwrap();
        let result = interp::run(&program, &values, limits);
        match (result, expect) {
            (Ok(outcome), Expect::Outputs(expected)) => {
                let returns = &program.main_func().returns;
                let got: Vec<_> = outcome
                    .outputs
                    .iter()
                    .zip(returns)
                    .map(|(v, t)| v.to_json(t))
                    .collect();
                assert_eq!(
                    serde_json::Value::Array(got),
                    *expected,
                    "{} on {inputs}",
                    path.display()
                );
                // The trace starts at the entry with the inputs, and main's last block returns
                // the outputs (callees' blocks are in the trace too, in execution order).
                let first = outcome.trace.first().unwrap();
                assert_eq!(first.block, program.main_func().entry);
                assert_eq!(first.params, values);
                let last_of_main = outcome
                    .trace
                    .iter()
                    .rev()
                    .find(|t| t.func == program.main)
                    .unwrap();
                assert_eq!(
                    last_of_main.exit,
                    interp::Exit::Return(outcome.outputs.clone())
                );
            }
            (Err(failure), Expect::Failure(message)) => {
                assert_eq!(
                    failure.to_string(),
                    *message,
                    "{} on {inputs}",
                    path.display()
                );
            }
            (Ok(o), Expect::Failure(m)) => panic!(
                "{} on {inputs}: expected `{m}`, got {:?}",
                path.display(),
                o.outputs
            ),
            (Err(f), Expect::Outputs(_)) => {
                panic!("{} on {inputs}: unexpected failure {f}", path.display())
            }
        }
    }
    cases.len()
}

#[test]
fn hand_written_programs() {
    let mut files: Vec<_> = std::fs::read_dir("tests/interp")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "at least 10 programs, found {}",
        files.len()
    );
    let n: usize = files.iter().map(|f| run_file(f)).sum();
    assert!(n >= 30, "{n} cases");
}

#[test]
fn example_program() {
    run_file(Path::new("examples/ir/sum_loop.ir"));
}

#[test]
fn trace_records_each_block_execution() {
    let program =
        ir::parse_program(&std::fs::read_to_string("tests/interp/fibonacci_field.ir").unwrap())
            .unwrap();
    let inputs = interp::inputs_from_json(&program, &serde_json::json!(["2"])).unwrap();
    let outcome = interp::run(&program, &inputs, interp::Limits::default()).unwrap();
    let blocks: Vec<String> = outcome.trace.iter().map(|t| t.block.to_string()).collect();
    // entry, header, body, header, body, header, exit
    assert_eq!(blocks, ["b0", "b1", "b2", "b1", "b2", "b1", "b3"]);
    let fr = |n: u64| interp::Val::Field(zkbc::field::Fr::from(n));
    let u = interp::Val::UInt;
    assert_eq!(outcome.trace[3].params, vec![fr(1), fr(1), u(1)]);
    assert_eq!(
        outcome.trace[0].exit,
        interp::Exit::Jump(ir::BlockId(1), vec![fr(0), fr(1), u(0)])
    );
}

#[test]
fn bad_inputs_are_reported() {
    let program =
        ir::parse_program(&std::fs::read_to_string("tests/interp/max_of_three.ir").unwrap())
            .unwrap();
    let err = |json: serde_json::Value| interp::inputs_from_json(&program, &json).unwrap_err();
    assert_eq!(
        err(serde_json::json!(["1", "2"])),
        "main takes 3 input(s), 2 given"
    );
    assert_eq!(
        err(serde_json::json!(["1", "2", "256"])),
        "input 2: 256 does not fit in u8"
    );
    assert_eq!(
        err(serde_json::json!(["1", "x", "2"])),
        "input 1: `x` is not a u8 value"
    );
    assert_eq!(
        err(serde_json::json!({"a": 1})),
        "the inputs of an IR program are a JSON array, one entry per parameter of main"
    );
    // Values handed directly to `run` are checked against the parameter types too.
    let f = interp::run(
        &program,
        &[
            interp::Val::UInt(1),
            interp::Val::UInt(2),
            interp::Val::UInt(300),
        ],
        interp::Limits::default(),
    )
    .unwrap_err();
    assert_eq!(
        f.to_string(),
        "bad inputs: input 2 is not a value of type u8"
    );
}

/// A run with a sink hands over exactly the trace `run` records, in order: on random programs
/// with calls (whose blocks wait for the caller's block), hints (whose blocks are never part of
/// the trace), logs and failures (a failed run fails the same way).
#[test]
fn a_run_with_a_sink_hands_over_the_trace_in_order() {
    let limits = interp::Limits {
        max_steps: 20_000,
        ..interp::Limits::default()
    };
    let (mut runs, mut calls_waited) = (0, 0);
    for seed in 0..300 {
        let generated = zkbc_testkit::random_ir::random_program(seed);
        let program = &generated.program;
        for inputs in &generated.inputs {
            let mut streamed = Vec::new();
            let mut most_waiting = 0;
            let whole = interp::run(program, inputs, limits);
            let sunk =
                interp::run_with_sink(program, inputs, limits, &mut |entry| streamed.push(entry));
            match (whole, sunk) {
                (Ok(whole), Ok(sunk)) => {
                    assert!(sunk.trace.is_empty());
                    assert_eq!(whole.outputs, sunk.outputs, "seed {seed}");
                    assert_eq!(whole.log, sunk.log, "seed {seed}");
                    assert_eq!(whole.trace, streamed, "seed {seed}");
                    runs += 1;
                    // A call's blocks come after the caller's block in the trace.
                    most_waiting = most_waiting.max(
                        whole
                            .trace
                            .iter()
                            .filter(|e| e.func != program.main)
                            .count(),
                    );
                }
                (Err(a), Err(b)) => assert_eq!(a.kind, b.kind, "seed {seed}"),
                (a, b) => panic!("seed {seed}: {:?} against {:?}", a.err(), b.err()),
            }
            if most_waiting > 0 {
                calls_waited += 1;
            }
        }
    }
    assert!(runs > 300, "{runs} successful runs");
    assert!(calls_waited > 50, "{calls_waited} runs with calls");
}
