//! Differential testing of every pass on random IR programs (`zkbc_testkit::random_ir`): the program
//! and its optimized form must both verify and give the same outputs, or the same kind of
//! failure, on the generated inputs. CI runs 2,000 programs per pass with fixed seeds;
//! `ZKBC_RANDOM_CASES=100000 cargo test --release --test all opt_random::` runs more.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use zkbc::ir::{verify, Function, InstKind, Program, Terminator, ValueId};
use zkbc::opt::{optimize, OptLevel, Options, Pipeline};
use zkbc_testkit::random_ir::{compare_runs, random_program};

use crate::common;

fn cases() -> u64 {
    common::random_cases(2000)
}

/// Runs `pipeline` on `cases()` random programs from `first_seed` and compares behaviour.
fn check_random(pipeline: &Pipeline, first_seed: u64) {
    check_random_with(pipeline, first_seed, |_, _| {});
}

/// As [`check_random`], also checking `property` of every optimized program.
fn check_random_with(pipeline: &Pipeline, first_seed: u64, property: impl Fn(u64, &Program)) {
    let (changed, _) = run_random(pipeline, first_seed, property);
    // The generator must give the pass something to do on most programs.
    assert!(
        changed * 2 > cases(),
        "the pipeline changed only {changed} of {} programs",
        cases()
    );
}

/// As [`check_random`], for a pass that applies to fewer programs: `pass` must change at least
/// `min_percent` of them.
fn check_random_pass(pipeline: &Pipeline, first_seed: u64, pass: &str, min_percent: u64) {
    let (_, changed_by) = run_random(pipeline, first_seed, |_, _| {});
    let n = changed_by.get(pass).copied().unwrap_or(0);
    println!("{pass} changed {n} of {} programs", cases());
    assert!(
        n * 100 >= min_percent * cases(),
        "{pass} changed only {n} of {} programs",
        cases()
    );
}

/// Runs `pipeline` on `cases()` random programs from `first_seed`, compares behaviour and
/// checks `property`; returns how many programs it changed, and how many each pass changed.
fn run_random(
    pipeline: &Pipeline,
    first_seed: u64,
    property: impl Fn(u64, &Program),
) -> (u64, HashMap<&'static str, u64>) {
    let options = Options {
        verify: true,
        ..Options::default()
    };
    let mut changed = 0;
    let mut changed_by: HashMap<&'static str, u64> = HashMap::new();
    for seed in first_seed..first_seed + cases() {
        let generated = random_program(seed);
        let mut optimized = generated.program.clone();
        let result = catch_unwind(AssertUnwindSafe(|| {
            optimize(&mut optimized, pipeline, &options).expect("random programs do not recurse")
        }));
        let report = match result {
            Ok(report) => report,
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!(
                    "seed {seed}: the pipeline panicked: {msg}\n{}",
                    generated.program
                );
            }
        };
        let mut passes_changed: Vec<&'static str> = report
            .runs
            .iter()
            .filter(|r| r.stats.changed())
            .map(|r| r.name)
            .collect();
        passes_changed.sort_unstable();
        passes_changed.dedup();
        for name in passes_changed {
            *changed_by.entry(name).or_insert(0) += 1;
        }
        verify::verify_program(&optimized).unwrap();
        if let Err(e) = compare_runs(&generated.program, &optimized, &generated.inputs) {
            panic!(
                "seed {seed}: {e}\nbefore:\n{}\nafter:\n{optimized}",
                generated.program
            );
        }
        property(seed, &optimized);
        if optimized.normalized_text() != generated.program.normalized_text() {
            changed += 1;
        }
    }
    (changed, changed_by)
}

fn passes(names: &[&str]) -> Pipeline {
    Pipeline::from_names(names).unwrap()
}

#[test]
fn random_programs_are_valid_and_run() {
    let mut ok = 0;
    let mut failed = 0;
    for seed in 0..cases() {
        let generated = random_program(seed);
        // Compare the program with itself: this checks it never hits an invalid state.
        compare_runs(&generated.program, &generated.program, &generated.inputs)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", generated.program));
        for input in &generated.inputs {
            let run = zkbc::ir::interp::run(&generated.program, input, Default::default());
            if run.is_ok() {
                ok += 1;
            } else {
                failed += 1;
            }
        }
    }
    // Both outcomes must be common, or the differential tests would miss a whole class.
    assert!(
        ok > failed / 2 && failed * 20 > ok,
        "ok {ok}, failed {failed}"
    );
}

#[test]
fn inline_on_random_programs() {
    check_random_some(&passes(&["inline"]), 1_000_000);
}

#[test]
fn mem2reg_on_random_programs() {
    check_random(&passes(&["mem2reg"]), 2_000_000);
}

#[test]
fn mem2reg_after_inline_on_random_programs() {
    check_random(&passes(&["inline", "mem2reg", "dce", "mem2reg"]), 3_000_000);
}

#[test]
fn sccp_on_random_programs() {
    check_random(&passes(&["sccp"]), 4_000_000);
}

#[test]
fn dce_on_random_programs() {
    check_random(&passes(&["dce"]), 5_000_000);
}

#[test]
fn simplify_cfg_on_random_programs() {
    check_random(&passes(&["simplify_cfg"]), 6_000_000);
}

// `remat` and `gvn` apply to fewer programs than the passes above (a constant array or a
// parameter always bound to one constant used across blocks; an instruction computed twice):
// each must change a given share of the programs itself.

#[test]
fn remat_on_random_programs() {
    check_random_pass(&passes(&["remat"]), 10_000_000, "remat", 10);
}

#[test]
fn remat_after_inline_on_random_programs() {
    let pipeline = passes(&["inline", "mem2reg", "sccp", "remat", "dce"]);
    check_random_pass(&pipeline, 11_000_000, "remat", 30);
}

#[test]
fn gvn_on_random_programs() {
    check_random_pass(&passes(&["gvn"]), 12_000_000, "gvn", 10);
}

#[test]
fn gvn_after_inline_on_random_programs() {
    let pipeline = passes(&["inline", "mem2reg", "sccp", "gvn", "dce"]);
    check_random_pass(&pipeline, 13_000_000, "gvn", 20);
}

// The range-driven passes (`ranges`, `indvars`, `strength`, `fold_bits`) change only programs
// with the shapes they look for: uN arithmetic whose bounds are known, a counted loop, an
// operation by a constant power of two, bit decompositions. Each runs after the clean-up that
// -O2 runs before it and must change a share of the programs itself; `compare_runs` holds it
// to the unoptimized program's outputs and failures.

#[test]
fn ranges_on_random_programs() {
    let pipeline = passes(&["inline", "mem2reg", "sccp", "ranges", "dce"]);
    check_random_pass(&pipeline, 14_000_000, "ranges", 50);
}

#[test]
fn indvars_on_random_programs() {
    let pipeline = passes(&["inline", "mem2reg", "sccp", "indvars", "ranges", "dce"]);
    check_random_pass(&pipeline, 15_000_000, "indvars", 40);
}

#[test]
fn strength_on_random_programs() {
    let pipeline = passes(&["inline", "mem2reg", "sccp", "strength", "dce"]);
    check_random_pass(&pipeline, 16_000_000, "strength", 25);
}

#[test]
fn fold_bits_on_random_programs() {
    let pipeline = passes(&["inline", "mem2reg", "sccp", "fold_bits", "dce"]);
    check_random_pass(&pipeline, 17_000_000, "fold_bits", 8);
}

#[test]
fn o1_on_random_programs() {
    check_random(&OptLevel::O1.pipeline(), 7_000_000);
}

#[test]
fn o2_on_random_programs() {
    check_random_with(&OptLevel::O2.pipeline(), 8_000_000, |seed, program| {
        let func = program.main_func();
        // Functions only hints run stay: they are not part of the circuit.
        let circuit = program.circuit_funcs();
        assert_eq!(
            circuit.iter().filter(|&&c| c).count(),
            1,
            "seed {seed}: functions left"
        );
        for &b in &func.layout {
            if let Some(Terminator::Br { cond, .. }) = &func.block(b).term {
                assert!(
                    func.const_value(*cond).is_none(),
                    "seed {seed}: branch on a constant left\n{program}"
                );
            }
            for &i in &func.block(b).insts {
                let data = func.inst(i);
                if let InstKind::Allocate { ty } = &data.kind {
                    // A cell holding references has no zero value to promote to.
                    assert!(
                        ty.contains_ref() || escapes(func, data.results[0]),
                        "seed {seed}: non-escaping allocation {} left\n{program}",
                        data.results[0]
                    );
                }
            }
        }
    });
}

/// Whether `r` is used other than as the address of a `load` or `store`.
fn escapes(func: &Function, r: ValueId) -> bool {
    func.layout.iter().any(|&b| {
        let block = func.block(b);
        block.insts.iter().any(|&i| match &func.inst(i).kind {
            InstKind::Load { .. } => false,
            InstKind::Store { value, .. } => *value == r,
            kind => kind.operands().contains(&r),
        }) || block
            .term
            .as_ref()
            .is_some_and(|t| t.operands().contains(&r))
    })
}

#[test]
fn o3_on_random_programs() {
    check_random(&OptLevel::O3.pipeline(), 9_000_000);
}

/// Inlining changes only programs with calls (about half of them).
fn check_random_some(pipeline: &Pipeline, first_seed: u64) {
    let options = Options {
        verify: true,
        ..Options::default()
    };
    let mut inlined = 0;
    for seed in first_seed..first_seed + cases() {
        let generated = random_program(seed);
        let mut optimized = generated.program.clone();
        let report = optimize(&mut optimized, pipeline, &options).unwrap();
        inlined += report
            .runs
            .iter()
            .map(|r| r.stats.get("calls_inlined"))
            .sum::<usize>();
        assert!(
            optimized.circuit_funcs().iter().filter(|&&c| c).count() == 1
                && !optimized.main_func().has_calls(),
            "seed {seed}: calls left after inlining"
        );
        if let Err(e) = compare_runs(&generated.program, &optimized, &generated.inputs) {
            panic!(
                "seed {seed}: {e}\nbefore:\n{}\nafter:\n{optimized}",
                generated.program
            );
        }
    }
    assert!(inlined as u64 > cases() / 4, "only {inlined} calls inlined");
}
