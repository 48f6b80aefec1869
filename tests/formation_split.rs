//! Formation's cut of a block that pads far above its size (`opt::merge::formation::split`,
//! issue 34 item 2): the bubble sort, unrolled into one block of a little more than 1,024
//! constraints, is cut in two when measured on its inputs. The cut program gives `-O0`'s
//! outputs, every executed block is satisfied, a wrong output is rejected, it costs fewer
//! cells than the one block (the `--monolithic` baseline) and executes no more constraints
//! than `-O0`, and `simplify_cfg` leaves the cut apart; a compile without inputs (no `-O0`
//! count to compare with) makes no cut that raises the executed constraints.

use crate::common;
use zkbc::driver;
use zkbc::field::Fr;
use zkbc::ir::interp::{self, Exit, Val};
use zkbc::opt::OptLevel;
use zkbc::r1cs::{self, CheckError};
use zkbc::report::measure;

const PROGRAM: &str = "circuits/bubble_sort.zok";

fn inputs() -> serde_json::Value {
    common::read_json(std::path::Path::new("circuits/bubble_sort.json"))
}

/// The program measured at `level` on its inputs (with `-O0`'s executed constraints as the
/// bound a cut may raise them to, as `zkbc report` does), its IR kept.
fn measured(level: OptLevel) -> measure::Measurement {
    let text = std::fs::read_to_string(PROGRAM).expect("the program exists");
    let settings = measure::Settings {
        opt_level: level,
        keep_ir: true,
        ..measure::Settings::default()
    };
    measure::measure(PROGRAM, &text, Some(&inputs()), &settings, &|_| {})
        .unwrap_or_else(|e| panic!("{level:?}: {e}"))
}

fn split_blocks(c: &driver::Compilation) -> usize {
    c.program
        .funcs
        .iter()
        .map(|f| f.layout.iter().filter(|&&b| f.block(b).split).count())
        .sum()
}

#[test]
fn the_cut_program_runs_checks_and_rejects_a_wrong_output() {
    let o3 = measured(OptLevel::O3).compilation;
    let o0 = measured(OptLevel::O0).compilation;
    assert!(split_blocks(&o3) > 0, "no block was cut:\n{}", o3.program);
    let run = |c: &driver::Compilation| {
        let values = c.inputs_from_json(&inputs()).expect("inputs");
        interp::run(&c.program, &values, interp::Limits::default()).expect("it runs")
    };
    let outcome = run(&o3);
    assert_eq!(outcome.outputs, run(&o0).outputs);
    r1cs::check_trace(&o3.program, &outcome).expect("every executed block is satisfied");
    // A wrong output in the last block's exit.
    let mut wrong = outcome.clone();
    let last = wrong.trace.len() - 1;
    let Exit::Return(vals) = &mut wrong.trace[last].exit else {
        panic!("the last block returns");
    };
    let Some(Val::Array(items)) = vals.first_mut() else {
        panic!("the sort returns an array");
    };
    let items = std::rc::Rc::make_mut(items);
    items[0] = match &items[0] {
        Val::UInt(n) => Val::UInt(n + 1),
        Val::Field(x) => Val::Field(*x + Fr::from(1u64)),
        other => panic!("an element, not {other:?}"),
    };
    assert!(
        matches!(
            r1cs::check_trace(&o3.program, &wrong),
            Err(CheckError::Unsatisfied { .. })
        ),
        "a wrong output must be rejected"
    );
}

#[test]
fn the_cut_costs_fewer_cells_than_one_block_and_no_more_than_o0() {
    let o3 = measured(OptLevel::O3).report;
    let o0 = measured(OptLevel::O0).report;
    assert_eq!(o3.satisfied, Some(true));
    let cells = o3.totals.sumcheck_cells.expect("cells");
    let mono = o3
        .baselines
        .as_ref()
        .and_then(|b| b.monolithic_cells)
        .expect("a one-block baseline");
    assert!(o3.blocks.len() > 1, "one block: nothing was cut");
    assert!(cells < mono, "{cells} cells, the one block {mono}");
    assert!(o3.totals.executed_constraints <= o0.totals.executed_constraints);
}

#[test]
fn without_a_bound_no_cut_raises_the_executed_constraints() {
    // A plain compile (no inputs, no `-O0` count to compare with) may not raise the executed
    // constraints, which the bubble sort's cut does (as nearly every cut does): no cut is made
    // (none is tried: `formation/split.rs`).
    let text = std::fs::read_to_string(PROGRAM).expect("the program exists");
    let c = driver::compile(PROGRAM, &text, &driver::Options::default()).expect("compiles");
    assert_eq!(split_blocks(&c), 0, "{}", c.program);
}
