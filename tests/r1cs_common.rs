//! Helpers shared by the R1CS tests (included with `#[path]`; it has no tests of its own).
#![allow(dead_code)]

use zkbc::field::Fr;
use zkbc::ir::interp::{self, Val};
use zkbc::ir::{self, BlockId, Program};
use zkbc::r1cs::{self, BlockR1cs};

pub fn parse(text: &str) -> Program {
    let p =
        ir::parse_program(text).unwrap_or_else(|e| panic!("test IR does not parse: {e}\n{text}"));
    ir::verify::verify_program(&p)
        .unwrap_or_else(|e| panic!("test IR does not verify: {e}\n{text}"));
    p
}

pub fn u(n: u64) -> Val {
    Val::UInt(n)
}

pub fn f(n: u64) -> Val {
    Val::Field(Fr::from(n))
}

pub fn arr(items: Vec<Val>) -> Val {
    Val::Array(std::rc::Rc::new(items))
}

/// Lowers block `b` of main.
pub fn lower(p: &Program, b: u32) -> BlockR1cs<'_> {
    r1cs::lower_block(p, p.main, BlockId(b)).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the program, checks every executed block with ark-relations, and checks soundness:
/// for every execution, changing any output-state leaf (label included) breaks the instance.
/// Returns the outputs.
pub fn run_and_check(p: &Program, inputs: &[Val]) -> Vec<Val> {
    let outcome = interp::run(p, inputs, interp::Limits::default())
        .unwrap_or_else(|e| panic!("run failed: {e}"));
    let report = r1cs::check_trace(p, &outcome).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.executions, outcome.trace.len());
    mutate_outputs(p, &outcome);
    outcome.outputs
}

/// Every output-state leaf of every execution, changed by one, makes the instance unsatisfied.
pub fn mutate_outputs(p: &Program, outcome: &interp::Outcome) {
    let main = p.main_func();
    let mut carried: Option<Vec<Fr>> = None;
    for (step, entry) in outcome.trace.iter().enumerate() {
        let blk = r1cs::lower_block(p, p.main, entry.block).unwrap();
        let mut leaves = Vec::new();
        for v in &entry.params {
            r1cs::flatten_val(v, &mut leaves).unwrap();
        }
        if let Some(live) = carried.take() {
            leaves.extend(live);
        }
        let mut hints = Vec::new();
        for h in &entry.hints {
            r1cs::flatten_val(h, &mut hints).unwrap();
        }
        let asg = blk.assign_with_hints(&leaves, &hints).unwrap();
        assert_eq!(
            blk.first_unsatisfied(&asg),
            None,
            "{} step {step} honest witness",
            entry.block
        );
        let layout = blk.layout().clone();
        let at = layout.out_label_index();
        for k in at..asg.instance.len() {
            let mut bad = asg.clone();
            bad.instance[k] += Fr::from(1u64);
            assert!(
                blk.first_unsatisfied(&bad).is_some(),
                "fn {}, {} (step {step}): output leaf {} changed, instance still satisfied",
                main.name,
                entry.block,
                k - at
            );
        }
        if let interp::Exit::Jump(t, _) = &entry.exit {
            if let Some(exit) = layout.exits.iter().find(|e| e.target == Some(*t)) {
                let start = at + 1 + exit.arg_leaves;
                carried = Some(asg.instance[start..start + exit.live_leaves].to_vec());
            }
        }
    }
}

/// The constraints a block adds beyond the fixed per-block cost (own label + next label).
pub fn gadget_cost(p: &Program, b: u32) -> usize {
    lower(p, b).n_constraints() - 2
}
