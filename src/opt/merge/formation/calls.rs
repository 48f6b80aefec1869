//! Scoring a program that still calls (issue 33: functions kept as blocks).
//!
//! R1CS lowering refuses a `call` (after `opt::calls::flatten` none is left), so formation
//! lowers, for its statistics only, a copy in which each `call` is a `hint` of the callee's
//! result types: fresh witnesses, constrained by nothing in the calling block. That is what
//! the calling block costs in the flat program, where the results arrive as its continuation's
//! parameters; the callee's own cost is its blocks', each scored once with its executions summed
//! over the call sites (`cost::calls`). What the copy leaves out are the call's transition, the
//! return dispatch and the stack's accesses (`opt::inline_cost` prices those when it decides
//! whether to keep a function). The program formation hands on keeps its calls.

use super::{decisions::lines_of, Candidate, Key, Subject};
use crate::ir::{InstKind, Program};
use std::borrow::Cow;
use thin_vec::ThinVec;

/// Whether any function of `program` still calls.
pub(super) fn program_calls(program: &Program) -> bool {
    program.funcs.len() > 1 && program.funcs.iter().any(|f| f.has_calls())
}

/// In a program that still calls, each function reached from `main` that calls nothing and has
/// several blocks, as one block: the block a kept callee's loops unroll into, executed once
/// per call (its executions summed over the call sites by the counts, `cost::calls`).
pub(super) fn whole_function_candidates(work: &Program) -> Vec<(Key, Subject)> {
    if !program_calls(work) {
        return Vec::new();
    }
    let reached = work.circuit_funcs();
    work.func_ids()
        .filter(|f| reached.get(f.index()).copied().unwrap_or(false))
        .filter(|f| {
            let func = work.func(*f);
            func.layout.len() > 1 && !func.has_calls()
        })
        .map(|f| {
            let func = work.func(f);
            let mut blocks = func.layout.clone();
            blocks.sort();
            let subject = Subject::Function {
                func: func.name.clone(),
                blocks: blocks.iter().map(ToString::to_string).collect(),
                lines: lines_of(func, &blocks),
            };
            ((f, Candidate::Whole, blocks), subject)
        })
        .collect()
}

/// `program` if nothing in it calls; otherwise a copy with every `call` a `hint` of the same
/// callee, arguments and result types (block and value ids unchanged, so statistics and
/// counts of the copy are those of `program`'s blocks).
pub(super) fn calls_as_witnesses(program: &Program) -> Cow<'_, Program> {
    if !program_calls(program) {
        return Cow::Borrowed(program);
    }
    let mut copy = program.clone();
    let returns: Vec<Vec<crate::ir::Type>> = copy.funcs.iter().map(|f| f.returns.clone()).collect();
    for func in &mut copy.funcs {
        let calls: Vec<_> = func
            .layout
            .iter()
            .flat_map(|b| func.block(*b).insts.iter().copied())
            .filter(|i| matches!(func.inst(*i).kind, InstKind::Call { .. }))
            .collect();
        for i in calls {
            let inst = func.inst_mut(i);
            if let InstKind::Call { func: callee, args } = &inst.kind {
                let ret: ThinVec<crate::ir::Type> = returns
                    .get(callee.index())
                    .map(|r| r.iter().cloned().collect())
                    .unwrap_or_default();
                inst.kind = InstKind::Hint {
                    func: *callee,
                    args: args.iter().copied().collect(),
                    ret,
                    guard: None,
                };
            }
        }
    }
    Cow::Owned(copy)
}
