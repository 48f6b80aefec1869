//! SCCP solves an acyclic CFG in one sweep in reverse post-order instead of with its worklists
//! and def-use lists (`zkbc::opt::sccp`); on random programs, as they are and merged into one
//! block, the sweep must give exactly the program the worklist algorithm gives.

use zkbc::ir::print::print_function;
use zkbc::ir::{FuncId, Function, Program};
use zkbc::opt::{merge, optimize, sccp, Options, Pipeline};
use zkbc_testkit::random_ir::random_program;

use crate::common;

fn cases() -> u64 {
    common::random_cases(1000)
}

/// Whether every edge between reachable blocks goes forward in reverse post-order.
fn is_acyclic(func: &Function) -> bool {
    let rpo = func.reverse_post_order();
    let position = |b| rpo.iter().position(|x| *x == b);
    rpo.iter().enumerate().all(|(k, &b)| {
        func.successors(b)
            .into_iter()
            .all(|s| position(s).is_some_and(|p| p > k))
    })
}

/// Runs SCCP both ways on the random programs prepared by `prefix` (and each function merged
/// into one block, as `--monolithic` does, where it can be, when `monolithic`); returns how
/// many acyclic functions SCCP changed.
fn check(prefix: &[&str], monolithic: bool) -> usize {
    let pipeline = Pipeline::from_names(prefix).unwrap();
    let mut changed_acyclic = 0;
    for seed in 0..cases() {
        let mut program: Program = random_program(seed).program;
        if optimize(&mut program, &pipeline, &Options::default()).is_err() {
            continue;
        }
        if monolithic {
            for func in &mut program.funcs {
                let mut merged = func.clone();
                if merge::merge_function(&mut merged, 100_000).is_ok() {
                    *func = merged;
                }
            }
        }
        let mut swept = program.clone();
        let swept_stats = sccp::run(&mut swept);
        let mut reference = program.clone();
        let reference_stats = sccp::run_worklist(&mut reference);
        assert_eq!(
            swept.to_string(),
            reference.to_string(),
            "seed {seed}: SCCP's sweep and worklists differ on\n{program}"
        );
        assert_eq!(swept_stats, reference_stats, "seed {seed}");
        for (k, (before, after)) in program.funcs.iter().zip(&swept.funcs).enumerate() {
            let id = FuncId::new(k);
            if is_acyclic(before) && print_function(before, id) != print_function(after, id) {
                changed_acyclic += 1;
            }
        }
    }
    changed_acyclic
}

#[test]
fn sweep_equals_worklists_on_random_programs() {
    let n = check(&["inline", "mem2reg", "dce", "simplify_cfg"], false);
    println!("SCCP changed {n} acyclic functions");
    assert!(
        n as u64 * 10 > cases(),
        "only {n} acyclic functions changed"
    );
}

#[test]
fn sweep_equals_worklists_on_one_block() {
    let n = check(&["inline", "mem2reg", "dce", "simplify_cfg"], true);
    println!("SCCP changed {n} acyclic functions");
    assert!(
        n as u64 * 10 > cases(),
        "only {n} acyclic functions changed"
    );
}
