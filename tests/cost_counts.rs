//! Execution counts and predictions (`zkbc::cost`), which cost-driven block formation decides
//! by: static counts are exact wherever they claim to know, a profiled prediction is the
//! report's own number, estimates follow their stated rules, and formation follows the counts
//! (an arm that never runs stays out of the loop body; one that always runs is merged into it).

use crate::common;
use common::{corpus, read_json};

use std::rc::Rc;
use zkbc::cost::executions::ESTIMATED_TRIPS;
use zkbc::cost::{estimated_executions, predict, static_executions, Counts, Profile};
use zkbc::driver;
use zkbc::ir::interp;
use zkbc::opt::merge::{Subject, Verdict};
use zkbc::opt::OptLevel;
use zkbc::report::measure;

fn options(level: OptLevel, merge: bool) -> driver::Options {
    let mut options = driver::Options {
        opt_level: level,
        ..driver::Options::default()
    };
    if !merge {
        options.opt.skip.push("merge".into());
    }
    options
}

/// Every corpus program that has inputs: its name, source and inputs file.
fn corpus_with_inputs() -> Vec<(String, String, std::path::PathBuf)> {
    corpus()
        .into_iter()
        .filter_map(|path| {
            let inputs = path.with_extension("json");
            inputs.exists().then(|| {
                let source = std::fs::read_to_string(&path).expect("readable");
                (path.display().to_string(), source, inputs)
            })
        })
        .collect()
}

/// Every corpus program with inputs, at -O1 and at -O3 without merging: each block whose
/// static count is known ran exactly that often, and the entry of main is always known.
#[test]
fn static_counts_are_the_traced_counts_wherever_known() {
    let mut known = 0;
    let mut blocks = 0;
    for (name, source, inputs_path) in corpus_with_inputs() {
        for (level, merge) in [(OptLevel::O1, false), (OptLevel::O3, false)] {
            let compiled = driver::compile(&name, &source, &options(level, merge))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let program = &compiled.program;
            let inputs = compiled
                .inputs_from_json(&read_json(&inputs_path))
                .expect("inputs fit");
            let Ok(traced) = interp::count_blocks(program, &inputs, interp::Limits::default())
            else {
                continue; // a program that fails on its inputs has no counts to compare
            };
            let main = program.main;
            let entry = program.func(main).entry;
            let statics = static_executions(program);
            assert_eq!(statics[&(main, entry)], Some(1), "{name} {level:?}: entry");
            for (key, n) in &statics {
                blocks += 1;
                if let Some(n) = n {
                    known += 1;
                    let ran = traced.get(key).copied().unwrap_or(0);
                    assert_eq!(ran, *n, "{name} {level:?}: block {:?}", key.1);
                }
            }
        }
    }
    println!("static counts known for {known} of {blocks} blocks");
    // Branch arms and run-time loops are unknown by design; straight-line code and counted
    // loops (a third of the corpus's blocks) must be known.
    assert!(known * 3 > blocks, "only {known} of {blocks} blocks known");
}

/// `interp::observe_blocks` sees the executions `count_blocks` counts, in a run's order, and
/// stops the run where the observer breaks: on every corpus program with inputs at -O0 (the
/// program `-O0`'s executed-constraint bound is summed along) and -O3.
#[test]
fn observed_blocks_are_the_counted_ones_and_a_break_stops_the_run() {
    use std::ops::ControlFlow;
    let mut stopped = 0;
    for (name, source, inputs_path) in corpus_with_inputs() {
        for level in [OptLevel::O0, OptLevel::O3] {
            let mut compiled = driver::compile(&name, &source, &options(level, true))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            driver::legalize_for_r1cs(&mut compiled.program).expect("legal");
            let program = &compiled.program;
            let inputs = compiled
                .inputs_from_json(&read_json(&inputs_path))
                .expect("inputs fit");
            let limits = interp::Limits::default();
            let Ok(counted) = interp::count_blocks(program, &inputs, limits) else {
                continue;
            };
            let mut seen = zkbc::fxhash::FxMap::default();
            let mut observe = |f, b| {
                *seen.entry((f, b)).or_insert(0u64) += 1;
                ControlFlow::Continue(())
            };
            let ended = interp::observe_blocks(program, &inputs, limits, &mut observe);
            assert_eq!(ended, Ok(true), "{name} {level:?}");
            assert_eq!(seen, counted, "{name} {level:?}");
            // Stopped after half the executions: exactly that many were seen.
            let total: u64 = counted.values().sum();
            let half = total / 2;
            let mut n = 0u64;
            let mut observe = |_, _| {
                n += 1;
                match n > half {
                    true => ControlFlow::Break(()),
                    false => ControlFlow::Continue(()),
                }
            };
            let ended = interp::observe_blocks(program, &inputs, limits, &mut observe);
            assert_eq!(ended, Ok(false), "{name} {level:?}");
            assert_eq!(n, half + 1, "{name} {level:?}");
            stopped += 1;
        }
    }
    assert!(stopped >= 20, "only {stopped} runs observed");
}

/// With a profile, the prediction formation scores by is the report's own number: the cells
/// of the program the report measured, recomputed from its blocks and a run.
#[test]
fn a_profiled_prediction_is_the_reports_cells() {
    let settings = measure::Settings {
        baselines: false,
        ..measure::Settings::default()
    };
    for name in [
        "bubble_sort",
        "gcd",
        "runtime_loop",
        "while_collatz",
        "cobbl_rle_codec",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("circuits")
            .join(format!("{name}.zok"));
        let source = std::fs::read_to_string(&path).expect("readable");
        let json = read_json(&path.with_extension("json"));
        let file = path.display().to_string();
        let m = measure::measure(&file, &source, Some(&json), &settings, &|_| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let inputs = m.compilation.inputs_from_json(&json).expect("inputs fit");
        let counts = Counts::Profile(Rc::new(Profile {
            inputs,
            limits: interp::Limits::default(),
            runs: Default::default(),
        }));
        let predicted = predict(&m.compilation.program, &counts).expect("lowers");
        assert_eq!(
            Some(predicted.cells),
            m.report.totals.sumcheck_cells,
            "{name}"
        );
        assert_eq!(
            Some(predicted.transitions),
            m.report.totals.transitions,
            "{name}"
        );
    }
}

/// A loop whose bound is a run-time value is estimated at `ESTIMATED_TRIPS` trips: its header
/// runs one time more, its body that often, and the blocks around it once.
#[test]
fn an_unknown_trip_count_is_estimated() {
    let source = "def main(u32 n, field x) -> field {
    field mut acc = x;
    for u32 i in 0..n {
        acc = acc * x;
    }
    return acc;
}
";
    let compiled =
        driver::compile("loop.zok", source, &options(OptLevel::O1, false)).expect("compiles");
    let program = &compiled.program;
    let estimates = estimated_executions(program);
    let statics = static_executions(program);
    let mut counts: Vec<u64> = estimates.values().copied().collect();
    counts.sort_unstable();
    // entry and exit once, the body ESTIMATED_TRIPS times, the header once more.
    assert_eq!(counts, vec![1, 1, ESTIMATED_TRIPS, ESTIMATED_TRIPS + 1]);
    let unknown = statics.values().filter(|n| n.is_none()).count();
    assert_eq!(unknown, 2, "header and body are not known statically");
    // A run with n = 3 says 4 and 3 where the estimate said 17 and 16.
    let inputs = compiled
        .inputs_from_json(&serde_json::json!({"n": "3", "x": "2"}))
        .expect("inputs fit");
    let traced = interp::count_blocks(program, &inputs, interp::Limits::default()).expect("runs");
    let mut ran: Vec<u64> = traced.values().copied().collect();
    ran.sort_unstable();
    assert_eq!(ran, vec![1, 1, 3, 4]);
}

/// A loop body with a heavy branch arm (a 200-iteration loop): profiled on inputs where the arm
/// never runs, merging it into the body is priced at 100 executions of the arm and rejected;
/// where it always runs, the whole body becomes one block.
#[test]
fn formation_follows_the_profile() {
    let source = "def main(u32 n, bool heavy, field x) -> field {
    field mut acc = x;
    for u32 i in 0..n {
        acc = acc * acc + x;
        if heavy {
            for u32 j in 0..200 {
                acc = acc * acc + x;
            }
        }
    }
    return acc;
}
";
    let form = |heavy: bool| {
        let inputs = serde_json::json!({"n": "100", "heavy": heavy, "x": "3"});
        let options = driver::Options {
            profile: Some(inputs),
            ..driver::Options::default()
        };
        let compiled = driver::compile("heavy.zok", source, &options).expect("compiles");
        let decisions: Vec<_> = compiled
            .opt_report
            .runs
            .iter()
            .flat_map(|r| r.stats.decisions.iter().cloned())
            .collect();
        let blocks = compiled.program.main_func().layout.len();
        (blocks, decisions)
    };

    let (cold_blocks, cold) = form(false);
    let (hot_blocks, hot) = form(true);
    // The cold arm's component (the branch around the inner loop) was priced and kept.
    let kept_arm = cold.iter().find(|d| {
        matches!(&d.subject, Subject::Component { has_loop: true, blocks, .. } if blocks.len() > 2)
            && d.verdict == Verdict::Kept
    });
    let kept_arm = kept_arm.unwrap_or_else(|| panic!("no kept arm in {cold:#?}"));
    assert!(kept_arm.cells_taken > kept_arm.cells_kept, "{kept_arm:#?}");
    // With the arm hot, the loop was rotated into one block per iteration.
    assert!(
        hot.iter()
            .any(|d| matches!(d.subject, Subject::Loop { .. }) && d.verdict == Verdict::Taken),
        "{hot:#?}"
    );
    assert!(
        hot_blocks < cold_blocks,
        "hot {hot_blocks} blocks, cold {cold_blocks}"
    );
}

/// Every corpus program with inputs, compiled at -O3 with formation profiled on them: where the
/// compilation says how many block executions the run will make (formation derived the
/// chosen program's counts from its one run), the run makes exactly that many, block by block
/// summed. Most programs' counts are known.
#[test]
fn the_expected_executions_are_the_runs() {
    let (mut known, mut programs) = (0, 0);
    for (name, source, inputs_path) in corpus_with_inputs() {
        let json = read_json(&inputs_path);
        let mut options = options(OptLevel::O3, true);
        options.profile = Some(json.clone());
        let mut compiled = driver::compile(&name, &source, &options).expect("compiles");
        driver::legalize_for_r1cs(&mut compiled.program).expect("legalizes");
        let values = compiled.inputs_from_json(&json).expect("inputs fit");
        let Ok(outcome) = interp::run(&compiled.program, &values, interp::Limits::default()) else {
            continue;
        };
        programs += 1;
        if let Some(n) = compiled.executions {
            assert_eq!(n, outcome.trace.len() as u64, "{name}");
            known += 1;
        }
    }
    assert!(known * 4 >= programs * 3, "{known} of {programs} known");
}
