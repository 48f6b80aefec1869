//! Every pass order on random IR programs (issue 20): the generator of `zkbc_testkit::random_ir`
//! builds programs with calls that pass references (to references, in arrays), irreducible
//! loops, guarded and unguarded `hint`s and `log`s; each program runs through every pass alone,
//! ordered pairs of passes, the default pipeline (-O3) and a random order of the whole pass
//! list. Every result must verify and agree with the unoptimized program on its inputs in the
//! interpreter: the same outputs or the same kind of failure, and the same `log` lines.
//!
//! CI runs 2,000 programs from seed 30,000,000 with two ordered pairs per program, in turn, so
//! the 144 pairs of the 12 passes are each run on about 28 programs. `ZKBC_RANDOM_CASES=N`
//! runs N programs, `ZKBC_RANDOM_SEED` moves the first seed, `ZKBC_RANDOM_ONLY=SEED` reruns
//! one program (`cargo test --release --test all reliability_passes:: -- --nocapture` for long runs).
//! A mismatch is printed with its seed, the passes, the program before and after.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use zkbc::analysis::DomTree;
use zkbc::ir::{verify, Function, InstKind, Program, Type};
use zkbc::opt::{optimize, OptLevel, Options, Pipeline, PASSES};
use zkbc_testkit::random_ir::{
    compare_runs, random_lowerable_program, random_program, RandomProgram,
};
use zkbc_testkit::Rng;

use crate::common;

fn seeds() -> Vec<u64> {
    common::random_seeds(30_000_000, 2000)
}

/// Ordered pairs run per program; program k runs pairs `PAIRS_PER_PROGRAM * k ..` of the 144.
const PAIRS_PER_PROGRAM: usize = 2;

/// What running one pipeline on one program found wrong, if anything.
fn check(generated: &RandomProgram, pipeline: &Pipeline) -> Result<(), String> {
    let options = Options {
        verify: true,
        ..Options::default()
    };
    let mut optimized = generated.program.clone();
    let result = catch_unwind(AssertUnwindSafe(|| {
        optimize(&mut optimized, pipeline, &options)
    }));
    match result {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => return Err(format!("the pipeline failed: {e}")),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return Err(format!("the pipeline panicked: {msg}"));
        }
    }
    verify::verify_program(&optimized).map_err(|e| format!("invalid IR after it:\n{e}"))?;
    compare_runs(&generated.program, &optimized, &generated.inputs)
        .map_err(|e| format!("{e}\nafter:\n{optimized}"))
}

/// The pipelines program `k` (of seed `seed`) runs through, each with its name.
fn pipelines_of(k: usize, seed: u64, pairs: &[[&str; 2]]) -> Vec<(String, Pipeline)> {
    let names: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
    let mut pipelines: Vec<(String, Pipeline)> = names
        .iter()
        .map(|n| (n.to_string(), Pipeline::from_names(&[n]).unwrap()))
        .collect();
    for j in 0..PAIRS_PER_PROGRAM {
        let pair = pairs[(k * PAIRS_PER_PROGRAM + j) % pairs.len()];
        pipelines.push((pair.join(","), Pipeline::from_names(&pair).unwrap()));
    }
    pipelines.push(("-O3".into(), OptLevel::O3.pipeline()));
    // A Fisher–Yates shuffle of the pass list, each pass once, drawn from the seed.
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut order = names;
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    pipelines.push((order.join(","), Pipeline::from_names(&order).unwrap()));
    pipelines
}

#[test]
fn every_pass_order_agrees_with_the_interpreter_on_random_programs() {
    let names: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
    let pairs: Vec<[&str; 2]> = names
        .iter()
        .flat_map(|&a| names.iter().map(move |&b| [a, b]))
        .collect();
    let seeds = seeds();
    let start = std::time::Instant::now();
    let next = AtomicUsize::new(0);
    let runs = AtomicU64::new(0);
    let mismatches: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&seed) = seeds.get(k) else { break };
                if k > 0 && k.is_multiple_of(5000) {
                    eprintln!("{k} programs, {:.0} s", start.elapsed().as_secs_f64());
                }
                let generated = random_program(seed);
                for (name, pipeline) in pipelines_of(k, seed, &pairs) {
                    runs.fetch_add(1, Ordering::Relaxed);
                    if let Err(e) = check(&generated, &pipeline) {
                        eprintln!(
                            "seed {seed}, passes {name}: {e}\nbefore:\n{}",
                            generated.program
                        );
                        mismatches
                            .lock()
                            .unwrap()
                            .push(format!("seed {seed}, passes {name}"));
                    }
                }
            });
        }
    });
    let mismatches = mismatches.into_inner().unwrap();
    println!(
        "{} programs (seeds {}..={}), {} pipeline runs, {} mismatches, {:.1} s",
        seeds.len(),
        seeds[0],
        seeds[seeds.len() - 1],
        runs.into_inner(),
        mismatches.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        mismatches.is_empty(),
        "{} mismatches (programs printed above):\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    // Every ordered pair ran on at least 20 programs.
    if seeds.len() >= 2000 {
        assert!(seeds.len() * PAIRS_PER_PROGRAM >= 20 * pairs.len());
    }
}

/// The seeds of the long pass-order runs (docs/performance.md gives their ranges) still name
/// the programs those runs checked: a SHA-256 digest of the programs and inputs of seeds
/// 30,000,000..30,000,200 as `random_program` printed them then. A change of the generator that
/// draws differently fails here; so does a change of the IR's text format or of `Val`'s `Debug`
/// (then recompute the digest at the commit before that change, where the generator is known
/// to be the same).
#[test]
fn random_program_seeds_name_the_programs_of_the_long_runs() {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for seed in 30_000_000..30_000_200 {
        let generated = random_program(seed);
        hasher.update(format!(
            "== seed {seed}\n{}\ninputs {:?}\n",
            generated.program, generated.inputs
        ));
    }
    let digest: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        digest,
        "0d5a70a6fc91b2f69a9a79b29c2097ba24cbdc17a799adf19dc0187b450ace1c"
    );
}

/// How often the generator produces each shape the differential test is meant to exercise.
#[derive(Default, Debug)]
struct Shapes {
    calls_passing_references: u64,
    references_to_references: u64,
    arrays_of_references: u64,
    reducible_loops: u64,
    irreducible_loops: u64,
    guarded_hints: u64,
    unguarded_hints: u64,
    guarded_logs: u64,
    unguarded_logs: u64,
    runs_ok: u64,
    runs_failed: u64,
    runs_logging: u64,
}

/// Whether `func`'s CFG has a cycle that is not a natural loop: one left after removing every
/// edge to a block that dominates its source.
fn has_irreducible_cycle(func: &Function) -> bool {
    let dom = DomTree::dominators(func);
    let blocks = &func.layout;
    let pos = |b| blocks.iter().position(|&x| x == b).unwrap();
    let mut indegree = vec![0usize; blocks.len()];
    let mut edges = vec![Vec::new(); blocks.len()];
    for &b in blocks {
        for s in func.successors(b) {
            if !dom.dominates(s, b) {
                edges[pos(b)].push(pos(s));
                indegree[pos(s)] += 1;
            }
        }
    }
    let mut ready: Vec<usize> = (0..blocks.len()).filter(|&i| indegree[i] == 0).collect();
    let mut seen = 0;
    while let Some(i) = ready.pop() {
        seen += 1;
        for &j in &edges[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(j);
            }
        }
    }
    seen < blocks.len()
}

fn shapes_of(program: &Program, shapes: &mut Shapes) {
    let is_ref = |t: &Type| matches!(t, Type::Ref(_));
    let mut seen = [false; 9];
    for func in &program.funcs {
        let dom = DomTree::dominators(func);
        if has_irreducible_cycle(func) {
            seen[4] = true;
        }
        for &b in &func.layout {
            if func.successors(b).iter().any(|&s| dom.dominates(s, b)) {
                seen[3] = true;
            }
            for &i in &func.block(b).insts {
                match &func.inst(i).kind {
                    InstKind::Call { args, .. }
                        if args.iter().any(|&a| func.value_type(a).contains_ref()) =>
                    {
                        seen[0] = true;
                    }
                    InstKind::Hint { guard, .. } => seen[5 + guard.is_none() as usize] = true,
                    InstKind::Log { guard, .. } => seen[7 + guard.is_none() as usize] = true,
                    InstKind::Load { ptr }
                        if func.value_type(*ptr).pointee().is_some_and(is_ref) =>
                    {
                        seen[1] = true;
                    }
                    InstKind::ArrayGet { array, .. }
                        if func.value_type(*array).elem().is_some_and(is_ref) =>
                    {
                        seen[2] = true;
                    }
                    _ => {}
                }
            }
        }
    }
    let counters = [
        &mut shapes.calls_passing_references,
        &mut shapes.references_to_references,
        &mut shapes.arrays_of_references,
        &mut shapes.reducible_loops,
        &mut shapes.irreducible_loops,
        &mut shapes.guarded_hints,
        &mut shapes.unguarded_hints,
        &mut shapes.guarded_logs,
        &mut shapes.unguarded_logs,
    ];
    for (counter, seen) in counters.into_iter().zip(seen) {
        *counter += seen as u64;
    }
}

/// The generator's programs verify (it panics otherwise), run to an end well within the step
/// limit (`compare_runs` of a program with itself reports a step limit as a broken
/// generator), are the same program for the same seed, and contain each shape the issue asks
/// for in a good share of the programs; runs both succeed and fail, and print log lines.
#[test]
fn generated_programs_have_every_shape_and_terminate() {
    let shapes = generator_shapes(random_program);
    assert!(shapes.arrays_of_references * 10 >= SHAPE_PROGRAMS);
}

/// The same for the programs fed to R1CS, which have every shape but arrays of references.
#[test]
fn lowerable_programs_have_every_shape_but_arrays_of_references() {
    let shapes = generator_shapes(random_lowerable_program);
    assert_eq!(shapes.arrays_of_references, 0);
}

const SHAPE_PROGRAMS: u64 = 2000;

/// The shapes of `generate`'s programs of seeds `0..SHAPE_PROGRAMS`, having checked the
/// properties above (all but arrays of references, which the caller checks).
fn generator_shapes(generate: fn(u64) -> RandomProgram) -> Shapes {
    let n = SHAPE_PROGRAMS;
    let mut shapes = Shapes::default();
    for seed in 0..n {
        let generated = generate(seed);
        assert_eq!(
            generated.program.normalized_text(),
            generate(seed).program.normalized_text(),
            "seed {seed}: the generator is not deterministic"
        );
        compare_runs(&generated.program, &generated.program, &generated.inputs)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", generated.program));
        shapes_of(&generated.program, &mut shapes);
        for input in &generated.inputs {
            let (result, log) =
                zkbc::ir::interp::run_logged(&generated.program, input, Default::default());
            if result.is_ok() {
                shapes.runs_ok += 1;
            } else {
                shapes.runs_failed += 1;
            }
            shapes.runs_logging += !log.is_empty() as u64;
        }
    }
    println!("{n} programs: {shapes:#?}");
    let shares = [
        ("calls passing references", shapes.calls_passing_references),
        ("references to references", shapes.references_to_references),
        ("reducible loops", shapes.reducible_loops),
        ("irreducible loops", shapes.irreducible_loops),
        ("guarded hints", shapes.guarded_hints),
        ("unguarded hints", shapes.unguarded_hints),
        ("guarded logs", shapes.guarded_logs),
        ("unguarded logs", shapes.unguarded_logs),
    ];
    for (what, count) in shares {
        assert!(count * 10 >= n, "only {count} of {n} programs have {what}");
    }
    let runs = 3 * n;
    assert!(
        shapes.runs_ok * 3 > runs && shapes.runs_failed * 10 > runs,
        "ok {}, failed {}",
        shapes.runs_ok,
        shapes.runs_failed
    );
    assert!(
        shapes.runs_logging * 5 > runs,
        "only {} runs log",
        shapes.runs_logging
    );
    shapes
}

/// The generator feeding R1CS: each program of `random_lowerable_program` (a quarter as many
/// as the pass-order test runs, from its first seed), optimized by the default pipeline and also
/// left unoptimized, then legalized for R1CS, must lower entirely (every block of every function
/// of the circuit: no memory left that mem2reg could not promote, no call); every executed
/// block of every successful run is satisfied by the trace's witness; and on every fourth
/// program without a `hint` (a hint is a free witness by contract, which the search reports as
/// it should) no output leaf of an executed block can change with the instance still
/// accepting. A refusal, a block that is not satisfied, a memory check that rejects and an
/// under-constrained block are each a failure.
#[test]
fn generated_programs_lower_to_satisfied_blocks() {
    use zkbc::ir::interp;
    use zkbc::{driver, r1cs};
    let n = (seeds().len() / 4).max(1);
    let first = seeds()[0];
    let start = std::time::Instant::now();
    let (mut lowered, mut runs, mut executions, mut searched, mut outputs_tried) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for seed in first..first + n as u64 {
        let generated = random_lowerable_program(seed);
        let mut o3 = generated.program.clone();
        optimize(&mut o3, &OptLevel::O3.pipeline(), &Options::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        for (level, program) in [("-O0", &generated.program), ("-O3", &o3)] {
            let mut program = program.clone();
            driver::legalize_for_r1cs(&mut program).expect("legalizing never refuses");
            if let Err(e) = r1cs::stats(&program) {
                failures.push(format!(
                    "seed {seed} {level}: lowering refused: {e}\nbefore legalizing:\n{}\nafter:\n{program}",
                    generated.program
                ));
                continue;
            }
            lowered += 1;
            let has_hint = program.funcs.iter().any(|f| {
                f.layout.iter().any(|&b| {
                    f.block(b)
                        .insts
                        .iter()
                        .any(|&i| matches!(f.inst(i).kind, InstKind::Hint { .. }))
                })
            });
            for input in &generated.inputs {
                let Ok(outcome) = interp::run(&program, input, interp::Limits::default()) else {
                    continue;
                };
                runs += 1;
                match r1cs::check_trace(&program, &outcome) {
                    Ok(report) => executions += report.executions,
                    Err(e) => {
                        failures.push(format!("seed {seed} {level}: {e}\n{program}"));
                        break;
                    }
                }
                if seed % 4 == 0 && !has_hint {
                    let options = r1cs::SoundnessOptions {
                        max_executions_per_block: 1,
                        witnesses: false,
                        ..r1cs::SoundnessOptions::default()
                    };
                    let report = r1cs::check_soundness(&program, &outcome, options)
                        .unwrap_or_else(|e| panic!("seed {seed} {level}: {e}"));
                    searched += 1;
                    outputs_tried += report.outputs_tried;
                    if let Some(f) = report.findings.first() {
                        failures.push(format!(
                            "seed {seed} {level}: under-constrained: {f}\n{program}"
                        ));
                    }
                }
            }
        }
    }
    println!(
        "{n} programs (seeds {first}..{}) at -O0 and -O3: {lowered} of {} lowered; {runs} \
         successful runs with {executions} block executions satisfied; soundness searched on \
         {searched} runs ({outputs_tried} output changes, none accepted); {} failures; {:.1} s",
        first + n as u64,
        2 * n,
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(lowered, 2 * n, "every program lowers at both levels");
    assert!(
        runs * 3 >= 2 * n && searched * 10 >= n,
        "too few successful runs ({runs}) or runs searched ({searched})"
    );
}

/// The oracle is not vacuous: a dropped log line, a guard that prints on the wrong path, a log
/// line lost before a failure and a changed failure kind are each reported.
#[test]
fn the_oracle_reports_changed_logs_and_failures() {
    use zkbc::ir::interp::Val;
    use zkbc::ir::parse_program;
    let program = |body: &str| {
        let text = format!("fn main f0 -> u32 {{\nb0(v0: u32, v1: u1):\n{body}\n}}");
        let p = parse_program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        verify::verify_program(&p).unwrap();
        p
    };
    let inputs = vec![vec![Val::UInt(3), Val::UInt(0)]];
    let logged = program("    log \"x is {}\", v0\n    return v0");
    let guarded = program("    log \"x is {}\", v0 if v1\n    return v0");
    let silent = program("    return v0");
    assert_eq!(compare_runs(&logged, &logged, &inputs), Ok(()));
    let dropped = compare_runs(&logged, &silent, &inputs).unwrap_err();
    assert!(dropped.contains("the log changed"), "{dropped}");
    let wrong_path = compare_runs(&logged, &guarded, &inputs).unwrap_err();
    assert!(wrong_path.contains("0x00000003"), "{wrong_path}");
    let fails = |msg: &str| {
        program(&format!(
            "    log \"x is {{}}\", v0\n    assert v1, \"{msg}\"\n    return v0"
        ))
    };
    let fails_silently = program("    assert v1, \"one\"\n    return v0");
    let before_failure = compare_runs(&fails("one"), &fails_silently, &inputs).unwrap_err();
    assert!(
        before_failure.contains("the log changed"),
        "{before_failure}"
    );
    let other_failure = compare_runs(&fails("one"), &fails("two"), &inputs).unwrap_err();
    assert!(other_failure.contains("AssertionFailed"), "{other_failure}");
}
