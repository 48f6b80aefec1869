//! The interpreter's interface: the trace it records, the errors bad inputs get, the sink a
//! run hands its trace to. The hand-written programs of `tests/interp/` (`; case:` and
//! `; fails:` lines) and `examples/ir/sum_loop.ir` are run by `tests/filetests.rs`.

use zkbc::ir::{self, interp};

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

/// A hint's function runs at witness generation, outside the trace: the trace holds main's one
/// block, and that block's entry carries the hint's value (what the R1CS check assigns it from).
#[test]
fn a_hint_runs_outside_the_trace_and_its_value_rides_in_the_entry() {
    let program =
        ir::parse_program(&std::fs::read_to_string("tests/interp/hint_inverse.ir").unwrap())
            .unwrap();
    let inputs = interp::inputs_from_json(&program, &serde_json::json!(["4"])).unwrap();
    let outcome = interp::run(&program, &inputs, interp::Limits::default()).unwrap();
    let blocks: Vec<String> = outcome.trace.iter().map(|t| t.block.to_string()).collect();
    assert_eq!(blocks, ["b0"]);
    assert!(outcome.trace.iter().all(|t| t.func == program.main));
    assert_eq!(outcome.trace[0].hints, outcome.outputs);
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
