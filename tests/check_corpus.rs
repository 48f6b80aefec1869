//! Every corpus program passes `check` at every optimization level: compiled, legalized for
//! R1CS where `-O0` leaves calls or memory, run, and every executed block's instance satisfied
//! by the witness computed from the trace.

use crate::common;
use common::corpus;

use zkbc::driver;
use zkbc::ir::{self, interp};
use zkbc::opt::OptLevel;
use zkbc::r1cs;

/// Compiles, legalizes, runs and checks; returns the number of block executions checked.
fn check(
    name: &str,
    text: &str,
    level: OptLevel,
    inputs: &serde_json::Value,
) -> Result<usize, String> {
    let options = driver::Options {
        opt_level: level,
        ..driver::Options::default()
    };
    let mut compiled = driver::compile(name, text, &options).map_err(|e| e.to_string())?;
    driver::legalize_for_r1cs(&mut compiled.program).map_err(|e| e.to_string())?;
    let values = compiled.inputs_from_json(inputs)?;
    let outcome = interp::run(&compiled.program, &values, interp::Limits::default())
        .map_err(|e| e.to_string())?;
    let report = r1cs::check_trace(&compiled.program, &outcome).map_err(|e| e.to_string())?;
    // Checked as the run hands each execution over, never holding the trace: the same report.
    let program = &compiled.program;
    let (ran, streamed) = r1cs::check_run(program, Default::default(), |sink| {
        interp::run_with_sink(program, &values, interp::Limits::default(), sink)
    });
    assert_eq!(ran.map_err(|e| e.to_string())?.outputs, outcome.outputs);
    let streamed = streamed.map_err(|e| e.to_string())?;
    assert_eq!(streamed, report, "{name} {level:?}");
    Ok(report.executions)
}

#[test]
fn every_corpus_program_checks_at_every_level() {
    let mut failures = Vec::new();
    let mut executions = 0;
    for file in corpus() {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let inputs: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file.with_extension("json")).unwrap())
                .unwrap();
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
            match check(&name, &text, level, &inputs) {
                Ok(n) => executions += n,
                Err(e) => failures.push(format!("{name} {level:?}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        executions > 500,
        "only {executions} block executions checked"
    );
}

/// Found by the corpus check at -O0: a shift by a `uN` constant expression left unfolded
/// (`sub u32 32, u32 7`) is a lazy value only congruent to the amount mod 2^32; the shift
/// gadget took it literally and shifted everything out.
#[test]
fn shift_by_an_unfolded_constant_expression() {
    let text = "fn main f0 -> u32, u32 {
b0(v0: u32):
    v1 = sub u32 32, u32 7
    v2 = shr v0, v1
    v3 = shl v0, v1
    return v2, v3
}
";
    let program = ir::parse_program(text).unwrap();
    let inputs = [interp::Val::UInt(0x1234_5678)];
    let outcome = interp::run(&program, &inputs, interp::Limits::default()).unwrap();
    assert_eq!(
        outcome.outputs,
        [
            interp::Val::UInt(0x1234_5678 >> 25),
            interp::Val::UInt((0x1234_5678u64 << 25) & 0xffff_ffff)
        ]
    );
    r1cs::check_trace(&program, &outcome).unwrap();
}

/// The direct checker (rows evaluated over the block's packed matrices) and ark-relations agree
/// on every executed block of every corpus program at -O3: both accept the witness from the
/// trace, and both reject it with one output-state value changed; the compiled rows (what
/// `check` uses) name the same row as the direct checker.
#[test]
fn the_direct_checker_and_ark_relations_agree_on_the_corpus() {
    let (mut agreed, mut rejected) = (0, 0);
    for file in corpus() {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let inputs: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file.with_extension("json")).unwrap())
                .unwrap();
        let mut compiled = driver::compile(&name, &text, &driver::Options::default()).unwrap();
        driver::legalize_for_r1cs(&mut compiled.program).unwrap();
        let values = compiled.inputs_from_json(&inputs).unwrap();
        let outcome = interp::run(&compiled.program, &values, interp::Limits::default()).unwrap();
        let mut seen = std::collections::HashMap::new();
        r1cs::for_each_execution(&compiled.program, &outcome, |step, blk, asg| {
            // The first two executions of each block (the corpus has blocks run 1,000 times).
            let n = seen.entry((blk.func_id(), blk.block())).or_insert(0);
            *n += 1;
            if *n > 2 {
                return Ok(());
            }
            let direct = blk.first_unsatisfied(asg);
            let ark = blk.to_ark(asg).is_satisfied().unwrap();
            assert!(
                direct.is_none() && ark,
                "{name} step {step}: {direct:?} {ark}"
            );
            agreed += 1;
            // The last instance variable is the last leaf of the output state (or its label).
            let mut bad = asg.clone();
            let last = bad.instance.len() - 1;
            bad.instance[last] += zkbc::field::Fr::from(1u64);
            let direct = blk.first_unsatisfied(&bad);
            let compiled = blk.first_unsatisfied_with(&bad.full(), &mut Vec::new());
            assert_eq!(
                compiled, direct,
                "{name} step {step}: the compiled rows differ"
            );
            let ark = blk.to_ark(&bad).is_satisfied().unwrap();
            assert!(
                direct.is_some() && !ark,
                "{name} step {step}: a changed output accepted ({direct:?}, ark {ark})"
            );
            rejected += 1;
            Ok(())
        })
        .unwrap();
    }
    assert!(agreed > 100 && rejected == agreed, "{agreed} {rejected}");
}

/// Random source program `seed` (`zkbc_testkit::testgen`) compiled at -O3, legalized and run on its
/// inputs; `None` when it does not compile, lower or return.
fn random_run(seed: u64) -> Option<(driver::Compilation, interp::Outcome)> {
    let case = zkbc_testkit::testgen::generate(seed);
    let mut compiled =
        driver::compile("random.zok", &case.program.to_string(), &Default::default()).ok()?;
    driver::legalize_for_r1cs(&mut compiled.program).ok()?;
    let values = compiled.inputs_from_json(&case.inputs_json()).ok()?;
    let limits = interp::Limits {
        max_steps: 100_000,
        ..interp::Limits::default()
    };
    let outcome = interp::run(&compiled.program, &values, limits).ok()?;
    Some((compiled, outcome))
}

/// The same agreement on 1,000 random source programs (`zkbc_testkit::testgen`) at -O3: on every
/// execution of every program that compiles and returns, the direct checker and ark-relations
/// both accept the trace's witness and both reject it with its last instance value changed.
#[test]
fn the_direct_checker_and_ark_relations_agree_on_random_programs() {
    let (mut programs, mut executions) = (0, 0);
    for seed in 0..1000 {
        let Some((compiled, outcome)) = random_run(50_000 + seed) else {
            continue;
        };
        programs += 1;
        r1cs::for_each_execution(&compiled.program, &outcome, |step, blk, asg| {
            assert!(
                blk.first_unsatisfied(asg).is_none() && blk.to_ark(asg).is_satisfied().unwrap(),
                "seed {seed} step {step}: the trace's witness rejected"
            );
            let mut bad = asg.clone();
            let last = bad.instance.len() - 1;
            bad.instance[last] += zkbc::field::Fr::from(1u64);
            assert!(
                blk.first_unsatisfied(&bad).is_some() && !blk.to_ark(&bad).is_satisfied().unwrap(),
                "seed {seed} step {step}: a changed output accepted by one of the checkers"
            );
            executions += 1;
            Ok(())
        })
        .unwrap();
    }
    println!("{programs} random programs, {executions} executions");
    assert!(programs > 500, "only {programs} random programs ran");
}

/// Every assignment of every execution of `program`, computed as `witnesses` says.
fn assignments(
    program: &ir::Program,
    outcome: &interp::Outcome,
    witnesses: r1cs::Witnesses,
) -> Vec<r1cs::Assignment> {
    let mut all = Vec::new();
    let opts = r1cs::CheckOptions {
        witnesses,
        ..r1cs::CheckOptions::default()
    };
    r1cs::for_each_execution_opts(program, outcome, opts, |_, _, asg| {
        all.push(asg.clone());
        Ok(())
    })
    .unwrap();
    all
}

/// The block's compiled witness tape computes, on every execution of every corpus program at
/// -O0 and -O3, exactly the assignment the lowering re-run in witness mode computes; and a
/// corrupted witness variable is judged alike by the direct checker and ark-relations.
#[test]
fn the_compiled_witness_equals_the_relowered_one_on_the_corpus() {
    let (mut compared, mut corrupted, mut rejected) = (0, 0, 0);
    for file in corpus() {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let inputs: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file.with_extension("json")).unwrap())
                .unwrap();
        for level in [OptLevel::O0, OptLevel::O3] {
            let options = driver::Options {
                opt_level: level,
                ..driver::Options::default()
            };
            let mut compiled = driver::compile(&name, &text, &options).unwrap();
            driver::legalize_for_r1cs(&mut compiled.program).unwrap();
            let values = compiled.inputs_from_json(&inputs).unwrap();
            let outcome =
                interp::run(&compiled.program, &values, interp::Limits::default()).unwrap();
            let fast = assignments(&compiled.program, &outcome, r1cs::Witnesses::Compiled);
            let slow = assignments(&compiled.program, &outcome, r1cs::Witnesses::Relowered);
            assert_eq!(fast.len(), slow.len(), "{name} {level:?}");
            for (step, (a, b)) in fast.iter().zip(&slow).enumerate() {
                assert!(a == b, "{name} {level:?} step {step}: the tape differs");
            }
            compared += fast.len();
            let mut seen = std::collections::HashSet::new();
            r1cs::for_each_execution(&compiled.program, &outcome, |step, blk, asg| {
                if asg.witness.is_empty() || !seen.insert((blk.func_id(), blk.block())) {
                    return Ok(());
                }
                let mut bad = asg.clone();
                bad.witness[0] += zkbc::field::Fr::from(1u64);
                let direct = blk.first_unsatisfied(&bad);
                let compiled = blk.first_unsatisfied_with(&bad.full(), &mut Vec::new());
                assert_eq!(
                    compiled, direct,
                    "{name} {level:?} step {step}: compiled rows"
                );
                let ark = blk.to_ark(&bad).is_satisfied().unwrap();
                assert_eq!(
                    direct.is_none(),
                    ark,
                    "{name} {level:?} step {step}: the checkers disagree on a corrupted witness"
                );
                corrupted += 1;
                rejected += usize::from(!ark);
                Ok(())
            })
            .unwrap();
        }
    }
    assert!(compared > 10_000, "only {compared} executions compared");
    assert!(
        rejected > 100 && rejected * 10 > corrupted * 9,
        "{rejected} of {corrupted} corrupted witnesses rejected"
    );
}

/// The tape equals the re-run lowering on 300 random programs too.
#[test]
fn the_compiled_witness_equals_the_relowered_one_on_random_programs() {
    let mut programs = 0;
    for seed in 0..300 {
        let Some((compiled, outcome)) = random_run(70_000 + seed) else {
            continue;
        };
        programs += 1;
        let fast = assignments(&compiled.program, &outcome, r1cs::Witnesses::Compiled);
        let slow = assignments(&compiled.program, &outcome, r1cs::Witnesses::Relowered);
        assert!(fast == slow, "seed {seed}: the tape differs");
    }
    assert!(programs > 150, "only {programs} random programs ran");
}

/// Checked in parallel chunks, a trace with several unsatisfied executions (output values
/// changed in the interpreter's trace, in one chunk and across chunks) reports the first in
/// trace order, with 1 thread and with 2 (called in a pool: checked on the walk's thread) and
/// outside a pool (checked on a thread beside the walk), whole and streamed.
#[test]
fn the_first_unsatisfied_execution_in_trace_order_is_reported() {
    // Everything runs inside the pool: a trace holds `Rc`s and may not cross threads.
    fn first_reported(steps: &[usize]) -> usize {
        let text = "def main(field x, u32 n) -> field {\n    field mut acc = x;\n    for u32 i in 0..n {\n        acc = acc * acc + x;\n    }\n    return acc;\n}\n";
        let compiled = driver::compile("loop.zok", text, &Default::default()).unwrap();
        let values = compiled
            .inputs_from_json(&serde_json::json!({"x": "3", "n": 20000}))
            .unwrap();
        let mut o = interp::run(&compiled.program, &values, interp::Limits::default()).unwrap();
        for &s in steps {
            match &mut o.trace[s].exit {
                interp::Exit::Jump(_, args) | interp::Exit::Return(args) => {
                    let v = args.iter_mut().find(|v| matches!(v, interp::Val::Field(_)));
                    if let Some(interp::Val::Field(x)) = v {
                        *x += zkbc::field::Fr::from(1u64);
                    }
                }
            }
        }
        let whole = match r1cs::check_trace(&compiled.program, &o).unwrap_err() {
            r1cs::CheckError::Unsatisfied { step, .. } => step,
            e => panic!("{e}"),
        };
        // The same trace handed over one execution at a time, as a run with a sink does.
        let (_, streamed) = r1cs::check_run(&compiled.program, Default::default(), |sink| {
            for entry in o.trace.iter().cloned() {
                sink(entry);
            }
        });
        match streamed.unwrap_err() {
            r1cs::CheckError::Unsatisfied { step, .. } => assert_eq!(step, whole),
            e => panic!("{e}"),
        }
        whole
    }
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for steps in [vec![17_001, 300, 9_000], vec![5_001, 5_000], vec![12_345]] {
            let first = *steps.iter().min().unwrap();
            let reported = pool.install(|| first_reported(&steps));
            assert_eq!(reported, first, "{threads} threads, {steps:?}");
        }
    }
    // Outside a pool the chunks are checked on a thread beside the walk: the same answer.
    for steps in [vec![17_001, 300, 9_000], vec![5_001, 5_000], vec![12_345]] {
        let first = *steps.iter().min().unwrap();
        assert_eq!(first_reported(&steps), first, "beside the walk, {steps:?}");
    }
}
