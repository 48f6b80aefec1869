//! Random source programs (`zkbc_testkit::testgen`) through the whole pipeline: each program compiles at
//! every optimization level, and at every level its outputs — or the kind of its failure — equal
//! those of the reference evaluator, which runs the program tree without the front end, the IR or
//! the interpreter.
//!
//! CI runs a fixed range of seeds (`ZKBC_RANDOM_CASES` cases, 600 by default) and prints the
//! counts; a long run is `ZKBC_RANDOM_CASES=20000 cargo test --release --test
//! reliability_random -- --nocapture`. `ZKBC_RANDOM_SEED` moves the first seed. A failing seed is
//! printed with its program and inputs; `ZKBC_RANDOM_ONLY=SEED` reruns just that one.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use zkbc::ir::interp;
use zkbc::opt::calls::Inline;
use zkbc::opt::merge::MergePolicy;
use zkbc::opt::OptLevel;
use zkbc::{driver, r1cs};
use zkbc_testkit::testgen::{self, eval, Case, Features};

/// The pipelines every program goes through: each -O level (calls decided by cost, the
/// default), each with every call kept as blocks (`--inline none`: the callee's blocks once, a
/// return label and a stack in memory), at -O3 with every call inlined (`--inline all`), and at
/// -O3 without merging, with minimum block size 32768, `--monolithic`, the seed's threshold rule
/// (`--merge-policy threshold`), and block formation profiled on the case's own inputs
/// (`--inputs`).
fn pipelines(case: &Case) -> Vec<(&'static str, driver::Options)> {
    let level = |opt_level| driver::Options {
        opt_level,
        ..driver::Options::default()
    };
    let kept = |opt_level| driver::Options {
        inline: Inline::None,
        ..level(opt_level)
    };
    let mut no_merge = level(OptLevel::O3);
    no_merge.opt.skip.push("merge".into());
    let mut min_32768 = level(OptLevel::O3);
    min_32768.opt.merge.min_block_size = 32768;
    let mut monolithic = level(OptLevel::O3);
    monolithic.opt.merge.monolithic = true;
    let mut threshold = level(OptLevel::O3);
    threshold.opt.merge.policy = MergePolicy::Threshold;
    let profiled = driver::Options {
        profile: Some(case.inputs_json()),
        profile_max_steps: 1_000_000,
        ..level(OptLevel::O3)
    };
    vec![
        ("-O0", level(OptLevel::O0)),
        ("-O1", level(OptLevel::O1)),
        ("-O2", level(OptLevel::O2)),
        ("-O3", level(OptLevel::O3)),
        ("-O0 --inline none", kept(OptLevel::O0)),
        ("-O1 --inline none", kept(OptLevel::O1)),
        ("-O2 --inline none", kept(OptLevel::O2)),
        ("-O3 --inline none", kept(OptLevel::O3)),
        (
            "-O3 --inline all",
            driver::Options {
                inline: Inline::All,
                ..level(OptLevel::O3)
            },
        ),
        ("-O3 --no-merge", no_merge),
        ("-O3 --min-block-size 32768", min_32768),
        ("-O3 --monolithic", monolithic),
        ("-O3 --merge-policy threshold", threshold),
        ("-O3 --inputs (profiled formation)", profiled),
    ]
}

/// `--monolithic` does not apply to a program with a run-time loop bound: it says so.
fn is_monolithic_refusal(message: &str) -> bool {
    message.contains("into one block") && message.contains("--monolithic")
}

use crate::common;

/// What happened to one case.
#[derive(Default)]
struct Counts {
    cases: u64,
    returned: u64,
    rejected_statically: BTreeMap<&'static str, u64>,
    failed_as_expected: BTreeMap<String, u64>,
    features: Features,
    with: BTreeMap<&'static str, u64>,
    mismatches: Vec<String>,
}

fn add_features(total: &mut Features, f: &Features, with: &mut BTreeMap<&'static str, u64>) {
    let pairs: [(&'static str, usize, &mut usize); 13] = [
        ("calls", f.calls, &mut total.calls),
        ("const_loops", f.const_loops, &mut total.const_loops),
        ("runtime_loops", f.runtime_loops, &mut total.runtime_loops),
        ("while_loops", f.while_loops, &mut total.while_loops),
        ("ifs", f.ifs, &mut total.ifs),
        ("nested_ifs", f.nested_ifs, &mut total.nested_ifs),
        ("early_returns", f.early_returns, &mut total.early_returns),
        ("asserts", f.asserts, &mut total.asserts),
        (
            "dynamic_indices",
            f.dynamic_indices,
            &mut total.dynamic_indices,
        ),
        ("field_divs", f.field_divs, &mut total.field_divs),
        ("int_divs", f.int_divs, &mut total.int_divs),
        ("shifts", f.shifts, &mut total.shifts),
        (
            "conditional_exprs",
            f.conditional_exprs,
            &mut total.conditional_exprs,
        ),
    ];
    for (name, n, t) in pairs {
        *t += n;
        if n > 0 {
            *with.entry(name).or_default() += 1;
        }
    }
    total.functions += f.functions;
}

fn describe(case: &Case) -> String {
    format!(
        "seed {}:\n{}\ninputs: {}",
        case.seed,
        case.program,
        case.inputs_json()
    )
}

static MONOLITHIC_RUN: AtomicU64 = AtomicU64::new(0);
/// `--inline none` compiles that kept a callee's blocks ([`kept_a_call`]).
static CALLS_KEPT: AtomicU64 = AtomicU64::new(0);
static MONOLITHIC_REFUSED: AtomicU64 = AtomicU64::new(0);

/// How a case that agrees everywhere ended.
enum Outcome {
    Returned,
    Failed(eval::FailKind),
    /// Refused at compile time, for this reason.
    RejectedStatically(&'static str),
}

/// A compile-time refusal that the reference evaluator does not model: an index that is a
/// compile-time constant out of bounds (a deliberate front-end rule, stricter than
/// path-sensitive failure, wherever the index is), or an expression nested deeper than the
/// parser's resource limit (`front::parser::MAX_DEPTH`; the generator bounds statement depth,
/// not the depth an expression prints to).
fn static_rejection(message: &str) -> Option<&'static str> {
    if message.starts_with("index ") && message.contains("is out of bounds for an array of length")
    {
        Some("constant index out of bounds")
    } else if message.starts_with("expression is nested too deeply") {
        Some("nesting limit")
    } else {
        None
    }
}

/// Runs one case at every level: how it ended, or why the levels or the reference disagree.
fn check_case(case: &Case) -> Result<Outcome, String> {
    let source = case.program.to_string();
    let expected = eval::run(&case.program, &case.inputs);
    let main = case.program.main();
    let expected_json = expected.as_ref().ok().map(|outs| {
        let v: Vec<_> = outs
            .iter()
            .zip(&main.ret)
            .map(|(v, t)| v.to_json(t))
            .collect();
        serde_json::json!({ "outputs": v })
    });
    for (k, (level, options)) in pipelines(case).into_iter().enumerate() {
        let compiled = match driver::compile("random.zok", &source, &options) {
            Ok(c) => c,
            Err(e) => {
                let message = e.to_string();
                match static_rejection(&message) {
                    Some(why) if k == 0 => return Ok(Outcome::RejectedStatically(why)),
                    _ if options.opt.merge.monolithic && is_monolithic_refusal(&message) => {
                        MONOLITHIC_REFUSED.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    _ => return Err(format!("{level}: does not compile: {message}")),
                }
            }
        };
        if options.opt.merge.monolithic {
            MONOLITHIC_RUN.fetch_add(1, Ordering::Relaxed);
        }
        if options.inline == Inline::None && kept_a_call(&compiled.program) {
            CALLS_KEPT.fetch_add(1, Ordering::Relaxed);
        }
        zkbc::ir::verify::verify_program(&compiled.program)
            .map_err(|e| format!("{level}: invalid IR: {e}"))?;
        let inputs = compiled
            .inputs_from_json(&case.inputs_json())
            .map_err(|e| format!("{level}: inputs rejected: {e}"))?;
        let limits = interp::Limits {
            max_steps: 5_000_000,
            ..interp::Limits::default()
        };
        match (interp::run(&compiled.program, &inputs, limits), &expected) {
            (Ok(out), Ok(_)) => {
                let got = compiled.outputs_to_json(&out.outputs);
                let want = expected_json.as_ref().expect("returned");
                if &got != want {
                    return Err(format!("{level}: outputs {got}, expected {want}"));
                }
                check_r1cs(level, &compiled.program, &inputs)?;
            }
            (Err(f), Err(kind)) => {
                if eval::FailKind::of(&f.kind) != Some(*kind) {
                    return Err(format!("{level}: failed with `{f}`, expected {kind:?}"));
                }
            }
            (Ok(out), Err(kind)) => {
                let got = compiled.outputs_to_json(&out.outputs);
                return Err(format!(
                    "{level}: returned {got}, expected failure {kind:?}"
                ));
            }
            (Err(f), Ok(_)) => {
                let want = expected_json.as_ref().expect("returned");
                return Err(format!("{level}: failed with `{f}`, expected {want}"));
            }
        }
    }
    Ok(match expected {
        Ok(_) => Outcome::Returned,
        Err(kind) => Outcome::Failed(kind),
    })
}

/// Whether `flatten` kept a callee's blocks in the program: its `main` carries the counts
/// `flatten` leaves on a flat `main`, or a call stack.
fn kept_a_call(program: &zkbc::ir::Program) -> bool {
    let main = program.main_func();
    main.call_stack.is_some() || main.flat_counts.is_some()
}

/// Every executed block satisfies its instance, and changing any output-state leaf (with the
/// witnesses repaired as far as the search can) makes it unsatisfied.
fn check_r1cs(
    level: &str,
    program: &zkbc::ir::Program,
    inputs: &[interp::Val],
) -> Result<(), String> {
    let mut program = program.clone();
    driver::legalize_for_r1cs(&mut program).map_err(|e| format!("{level}: legalize: {e}"))?;
    let outcome = interp::run(&program, inputs, interp::Limits::default())
        .map_err(|e| format!("{level}: legalized program fails: {e}"))?;
    r1cs::check_trace(&program, &outcome).map_err(|e| format!("{level}: R1CS: {e}"))?;
    let options = r1cs::SoundnessOptions {
        max_executions_per_block: 1,
        witnesses: false,
        ..r1cs::SoundnessOptions::default()
    };
    let report = r1cs::check_soundness(&program, &outcome, options)
        .map_err(|e| format!("{level}: soundness: {e}"))?;
    if let Some(f) = report.findings.first() {
        return Err(format!("{level}: under-constrained: {f}"));
    }
    Ok(())
}

fn run_seeds(seeds: Vec<u64>) -> Counts {
    let counts = Mutex::new(Counts::default());
    let next = Mutex::new(seeds.into_iter());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let Some(seed) = next.lock().expect("lock").next() else {
                    break;
                };
                let case = testgen::generate(seed);
                // A panic anywhere in the compiler is a failure of this case, not of the run.
                let result =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_case(&case)))
                        .unwrap_or_else(|panic| {
                            let message = panic
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            Err(format!("panicked: {message}"))
                        });
                let features = case.program.features();
                let mut c = counts.lock().expect("lock");
                c.cases += 1;
                let Counts {
                    features: total,
                    with,
                    ..
                } = &mut *c;
                add_features(total, &features, with);
                match result {
                    Ok(Outcome::Returned) => c.returned += 1,
                    Ok(Outcome::RejectedStatically(why)) => {
                        *c.rejected_statically.entry(why).or_default() += 1
                    }
                    Ok(Outcome::Failed(kind)) => {
                        *c.failed_as_expected.entry(format!("{kind:?}")).or_default() += 1
                    }
                    Err(why) => c.mismatches.push(format!("{why}\n{}", describe(&case))),
                }
            });
        }
    });
    counts.into_inner().expect("lock")
}

/// The fixed-seed run: every case agrees with the reference at every level, and the generator
/// exercises what it claims.
#[test]
fn random_programs_agree_with_the_reference_at_every_level() {
    let seeds = common::random_seeds(0, 600);
    let single = seeds.len() == 1;
    let start = std::time::Instant::now();
    let c = run_seeds(seeds);
    println!(
        "random programs: {} cases in {:.1?}, {} returned, failed as expected: {:?}, \
         rejected at compile time: {:?}, mismatches: {}",
        c.cases,
        start.elapsed(),
        c.returned,
        c.failed_as_expected,
        c.rejected_statically,
        c.mismatches.len()
    );
    println!(
        "--monolithic: {} programs compiled, {} refused (a run-time loop bound)",
        MONOLITHIC_RUN.load(Ordering::Relaxed),
        MONOLITHIC_REFUSED.load(Ordering::Relaxed)
    );
    let kept = CALLS_KEPT.load(Ordering::Relaxed);
    println!("--inline none: {kept} compiles kept a call as blocks");
    println!("programs with: {:?}", c.with);
    println!("totals: {:?}", c.features);
    for m in c.mismatches.iter() {
        let seed = m.lines().find(|l| l.starts_with("seed ")).unwrap_or("");
        println!("MISMATCH-LINE {seed} {}", m.lines().next().unwrap_or(""));
    }
    for m in c.mismatches.iter().take(3) {
        println!("MISMATCH {m}\n");
    }
    assert!(
        c.mismatches.is_empty(),
        "{} of {} cases disagree; the first:\n{}",
        c.mismatches.len(),
        c.cases,
        c.mismatches[0]
    );
    if !single {
        // Kept calls are exercised: most programs call a helper, and each runs at four levels.
        assert!(
            kept >= c.cases / 2,
            "only {kept} `--inline none` compiles of {} cases kept a call",
            c.cases
        );
        // The generator exercises what it claims (the thresholds are a fraction of what seeds
        // 0..600 give, scaled to the number of cases).
        let n = c.cases;
        for (feature, percent) in [
            ("calls", 20),
            ("const_loops", 20),
            ("runtime_loops", 20),
            ("while_loops", 15),
            ("ifs", 30),
            ("nested_ifs", 5),
            ("early_returns", 15),
            ("asserts", 15),
            ("dynamic_indices", 10),
            ("field_divs", 10),
            ("int_divs", 20),
            ("shifts", 20),
            ("conditional_exprs", 30),
        ] {
            let got = c.with.get(feature).copied().unwrap_or(0);
            assert!(
                got * 100 >= n * percent,
                "only {got} of {n} programs have {feature} (want {percent}%)"
            );
        }
        assert!(
            c.returned * 100 >= n * 40,
            "only {} of {n} returned",
            c.returned
        );
        for kind in [
            "Assertion",
            "DivisionByZero",
            "IndexOutOfBounds",
            "Conversion",
        ] {
            let got = c.failed_as_expected.get(kind).copied().unwrap_or(0);
            assert!(
                got * 100 >= n,
                "only {got} of {n} programs failed with {kind}"
            );
        }
    }
}
