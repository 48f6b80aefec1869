//! Calls kept as blocks (`--inline none`, docs/calls.md): every corpus program gives the same
//! outputs as with every call inlined, at every level, with every executed block (a
//! callee's included) satisfied and the memory check holding; a callee's blocks run once per
//! call; and a wrong return label or a corrupted saved value is rejected.

use crate::common;
use crate::common::calls;
use calls::{compile, run};
use common::{corpus, read_json};

use zkbc::driver;
use zkbc::field::Fr;
use zkbc::ir::interp::{self, Exit, Outcome, Val};
use zkbc::ir::Program;
use zkbc::opt::calls::Inline;
use zkbc::opt::OptLevel;
use zkbc::r1cs::{self, CheckError, CheckReport};

#[test]
fn corpus_outputs_equal_with_calls_kept_and_every_block_checks() {
    let mut failures = Vec::new();
    let (mut kept, mut checked) = (0, 0);
    for file in corpus() {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let json = file.with_extension("json");
        let inputs = if json.exists() {
            read_json(&json)
        } else {
            serde_json::json!({})
        };
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
            let all = compile(&name, &text, level, Inline::All);
            let mut none = compile(&name, &text, level, Inline::None);
            let expected = run(&all, &inputs);
            let got = run(&none, &inputs);
            if got != expected {
                failures.push(format!("{name} {level:?}: {got:?} != {expected:?}"));
                continue;
            }
            if none.program.main_func().call_stack.is_some() {
                kept += 1;
            }
            if let Err(e) = driver::legalize_for_r1cs(&mut none.program) {
                failures.push(format!("{name} {level:?}: legalize: {e}"));
                continue;
            }
            let Ok(values) = none.inputs_from_json(&inputs) else {
                continue;
            };
            let Ok(outcome) = interp::run(&none.program, &values, interp::Limits::default()) else {
                continue;
            };
            match r1cs::check_trace(&none.program, &outcome) {
                Ok(report) => checked += report.executions,
                Err(e) => failures.push(format!("{name} {level:?}: check: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{kept} compiles kept a call stack; {checked} block executions checked");
    assert!(
        kept > 20 && checked > 500,
        "{kept} programs, {checked} executions"
    );
}

/// Nested calls: `main` calls `outer` twice, `outer` calls `inner` twice; `a`, `t`, the
/// return label and `p` are live across calls.
const NESTED: &str = "
def inner(field x) -> field {
    return x * x + 1;
}
def outer(field a, field b) -> field {
    field t = inner(a);
    field u = inner(b);
    return t + u * a;
}
def main(field a, field b) -> field {
    field p = outer(a, b);
    field q = outer(b, a);
    return p + q * a + b;
}
";

fn nested(level: OptLevel) -> (driver::Compilation, Outcome) {
    let mut c = compile("nested.zok", NESTED, level, Inline::None);
    driver::legalize_for_r1cs(&mut c.program).unwrap();
    let inputs = c
        .inputs_from_json(&serde_json::json!({"a": "3", "b": "5"}))
        .unwrap();
    let outcome = interp::run(&c.program, &inputs, interp::Limits::default()).unwrap();
    (c, outcome)
}

#[test]
fn nested_calls_run_each_callee_block_once_per_call() {
    for level in [OptLevel::O0, OptLevel::O3] {
        let all = compile("nested.zok", NESTED, level, Inline::All);
        let (c, outcome) = nested(level);
        let inputs = serde_json::json!({"a": "3", "b": "5"});
        assert_eq!(run(&all, &inputs), Ok(outcome.outputs.clone()));
        assert_eq!(c.program.funcs.len(), 1, "{level:?}: one function");
        assert!(c.program.main_func().call_stack.is_some(), "{level:?}");
        let report = r1cs::check_trace(&c.program, &outcome).unwrap();
        // inner's entry runs 4 times, outer's twice: some block ran 4 times.
        assert!(
            report.blocks.iter().any(|b| b.executions == 4),
            "{level:?}: {:?}",
            report.blocks
        );
        // The saved values went through memory, and the memory check held.
        assert!(
            !report.memory.accesses.is_empty(),
            "{level:?}: the stack is in memory"
        );
    }
}

/// Static counts across calls (`cost::calls`, carried by the flat `main`): every count known
/// without inputs equals a run's, and a callee's entry is known (a callee runs its blocks once
/// per call, the calls summed over the sites).
#[test]
fn known_static_counts_of_kept_calls_equal_the_run() {
    for level in [OptLevel::O0, OptLevel::O3] {
        let (c, outcome) = nested(level);
        let traced = zkbc::cost::traced_executions(&outcome);
        let statik = zkbc::cost::static_executions(&c.program);
        for (key, n) in &statik {
            let ran = traced.get(key).copied().flatten().unwrap_or(0);
            assert!(
                n.is_none() || *n == Some(ran),
                "{level:?}: {:?} {n:?}",
                key.1
            );
        }
        // `inner`'s entry runs 4 times: known only across calls.
        assert!(
            statik.values().any(|n| *n == Some(4)),
            "{level:?}: {statik:?}"
        );
    }
    let (mut known, mut total) = (0, 0);
    for file in corpus() {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let json = file.with_extension("json");
        let inputs = if json.exists() {
            read_json(&json)
        } else {
            serde_json::json!({})
        };
        let mut c = compile(&name, &text, OptLevel::O3, Inline::None);
        if c.program.main_func().flat_counts.is_none() {
            continue;
        }
        driver::legalize_for_r1cs(&mut c.program).unwrap();
        let Ok(values) = c.inputs_from_json(&inputs) else {
            continue;
        };
        let Ok(outcome) = interp::run(&c.program, &values, interp::Limits::default()) else {
            continue;
        };
        let traced = zkbc::cost::traced_executions(&outcome);
        for (key, n) in zkbc::cost::static_executions(&c.program) {
            total += 1;
            if let Some(n) = n {
                known += 1;
                let ran = traced.get(&key).copied().flatten().unwrap_or(0);
                assert_eq!(
                    n, ran,
                    "{name}: {:?} is statically {n} but ran {ran}",
                    key.1
                );
            }
        }
    }
    assert!(known * 3 > total, "{known} of {total} static counts known");
}

#[test]
fn a_wrong_return_label_is_rejected() {
    let (c, mut outcome) = nested(OptLevel::O3);
    assert!(r1cs::check_trace(&c.program, &outcome).is_ok());
    // The first call of `outer` passes (a, b, label 0, stack): claim label 1 instead, in the
    // caller's output and the callee's input, as a cheating prover would.
    let step = outcome
        .trace
        .iter()
        .position(|e| {
            matches!(&e.exit, Exit::Jump(_, args)
                if args.len() == 4 && matches!(args[3], Val::Array(_)) && args[2] == Val::Field(Fr::from(0u64)))
        })
        .expect("a call of outer");
    if let Exit::Jump(_, args) = &mut outcome.trace[step].exit {
        args[2] = Val::Field(Fr::from(1u64));
    }
    outcome.trace[step + 1].params[2] = Val::Field(Fr::from(1u64));
    match r1cs::check_trace(&c.program, &outcome) {
        Err(CheckError::Unsatisfied { step: s, .. }) => assert_eq!(s, step),
        other => panic!("expected the caller's block unsatisfied, got {other:?}"),
    }
}

#[test]
fn a_corrupted_saved_value_is_rejected() {
    let (c, outcome) = nested(OptLevel::O3);
    let report = r1cs::check_trace(&c.program, &outcome).unwrap();
    // The memory argument alone: one read of the stack returns another value.
    let mut memory = report.memory.clone();
    let read = memory
        .accesses
        .iter()
        .position(|a| a.rw == Fr::from(0u64))
        .expect("a restore reads the stack");
    memory.accesses[read].value += Fr::from(1u64);
    assert!(r1cs::memory::check_memory(&report.memory).is_ok());
    assert!(r1cs::memory::check_memory(&memory).is_err());
    // The whole check: the interpreter's trace says the restore read another value.
    assert!(
        rejects_corrupted_read(&c.program, &outcome, &report, read, Fr::from(1u64)),
        "a corrupted saved value must be rejected"
    );
}

/// Whether the whole check rejects `outcome` with the value of the stack read `read` (an index
/// of `report`'s memory accesses) moved by `delta`, as a cheating prover would claim it.
fn rejects_corrupted_read(
    program: &Program,
    outcome: &Outcome,
    report: &CheckReport,
    read: usize,
    delta: Fr,
) -> bool {
    let mut tampered = outcome.clone();
    let step = report.memory.steps[read];
    let access = tampered.trace[step]
        .accesses
        .iter_mut()
        .find(|a| a.written.is_none())
        .expect("the restore's read");
    access.read = match &access.read {
        Val::Field(x) => Val::Field(*x + delta),
        other => panic!("the stack holds field elements, not {other:?}"),
    };
    matches!(
        r1cs::check_trace(program, &tampered),
        Err(CheckError::Memory(_) | CheckError::Unsatisfied { .. })
    )
}

#[test]
fn recursion_is_a_clear_error() {
    let ir = "
fn f f1 -> field {
b0(v0: field):
    v1 = call f1(v0)
    return v1
}
fn main f0 -> field {
b0(v0: field):
    v1 = call f1(v0)
    return v1
}
";
    let options = driver::Options {
        opt_level: OptLevel::O0,
        inline: Inline::None,
        ..driver::Options::default()
    };
    let err = driver::compile("rec.ir", ir, &options).unwrap_err();
    assert!(err.to_string().contains("recursion"), "{err}");
}

#[test]
fn a_call_that_never_returns_leaves_its_continuation_unreached() {
    let ir = "
fn spin f1 -> field {
b0(v0: field):
    jmp b1(v0)
b1(v1: field):
    jmp b1(v1)
}
fn main f0 -> field {
b0(v0: field, v1: u1):
    br v1, b1(), b2()
b1():
    v2 = call f1(v0)
    jmp b2()
b2():
    return v0
}
";
    let options = driver::Options {
        opt_level: OptLevel::O0,
        inline: Inline::None,
        ..driver::Options::default()
    };
    let c = driver::compile("spin.ir", ir, &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.program.funcs.len(), 1);
    let inputs = [Val::Field(Fr::from(7u64)), Val::UInt(0)];
    let outcome = interp::run(&c.program, &inputs, interp::Limits::default()).unwrap();
    assert_eq!(outcome.outputs, vec![Val::Field(Fr::from(7u64))]);
    r1cs::check_trace(&c.program, &outcome).unwrap();
}

/// A `u32` live across calls: restored from the stack without a range check (docs/calls.md),
/// so the memory check alone must reject a restore that reads another value, even one that
/// is still a `u32`, and one that is not.
const WORDS: &str = "
def inner(u32 x) -> u32 {
    return x * x + 1;
}
def main(u32 a, u32 b) -> u32 {
    u32 p = inner(a);
    u32 q = inner(b);
    return p + q * a + b;
}
";

#[test]
fn a_corrupted_saved_word_is_rejected_without_its_range_check() {
    let inputs = serde_json::json!({"a": "3", "b": "4000000000"});
    for level in [OptLevel::O0, OptLevel::O3] {
        let all = compile("words.zok", WORDS, level, Inline::All);
        let mut c = compile("words.zok", WORDS, level, Inline::None);
        assert_eq!(run(&all, &inputs), run(&c, &inputs), "{level:?}");
        driver::legalize_for_r1cs(&mut c.program).unwrap();
        let values = c.inputs_from_json(&inputs).unwrap();
        let outcome = interp::run(&c.program, &values, interp::Limits::default()).unwrap();
        let report = r1cs::check_trace(&c.program, &outcome).unwrap();
        let reads: Vec<usize> = (0..report.memory.accesses.len())
            .filter(|&k| report.memory.accesses[k].rw == Fr::from(0u64))
            .collect();
        assert!(!reads.is_empty(), "{level:?}: a restore reads the stack");
        for read in reads {
            for delta in [Fr::from(1u64), Fr::from(1u64 << 32)] {
                assert!(
                    rejects_corrupted_read(&c.program, &outcome, &report, read, delta),
                    "{level:?}: a corrupted saved word must be rejected"
                );
            }
        }
    }
}

/// Values live across several calls (kept in their slots), an array read at constant and at
/// runtime indices after a call (restored by element, or whole), and calls in a caller's loop
/// and branch (a slot written again each iteration): the same outputs as inlined, every block
/// satisfied, at -O0 and -O3.
const SLOTS: &str = "
def f(u32[4] a, u32 x) -> u32 {
    return a[0] * x + a[3];
}
def g(u32 x, u32 y) -> u32 {
    u32 s = f([x, y, x, y], x);
    u32 t = f([y, x, y, x], s);
    return s + t * y;
}
def main(u32[4] v, u32 k, private bool d) -> u32 {
    u32 mut acc = g(v[0], v[1]);
    acc = acc + g(v[2], acc);
    acc = acc + g(d ? v[1] : acc, d ? acc : v[3]);
    for u32 i in 0..3 {
        acc = acc + g(acc, v[i]);
        acc = acc + f(v, acc) + v[k % 4];
    }
    return acc + v[3] + v[k % 4];
}
";

#[test]
fn values_kept_in_their_slots_and_restored_by_element_give_the_inlined_outputs() {
    for d in [true, false] {
        let inputs = serde_json::json!({"v": ["3", "4000000000", "17", "65536"], "k": "6", "d": d});
        for level in [OptLevel::O0, OptLevel::O3] {
            let all = compile("slots.zok", SLOTS, level, Inline::All);
            let mut c = compile("slots.zok", SLOTS, level, Inline::None);
            let expected = run(&all, &inputs);
            assert!(expected.is_ok(), "{expected:?}");
            assert_eq!(run(&c, &inputs), expected, "{level:?} d={d}");
            assert!(c.program.main_func().call_stack.is_some(), "{level:?}");
            driver::legalize_for_r1cs(&mut c.program).unwrap();
            let values = c.inputs_from_json(&inputs).unwrap();
            let outcome = interp::run(&c.program, &values, interp::Limits::default()).unwrap();
            let report = r1cs::check_trace(&c.program, &outcome).unwrap();
            assert!(
                !report.memory.accesses.is_empty(),
                "{level:?}: the stack is used"
            );
        }
    }
}
