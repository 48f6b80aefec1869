//! The value-range analysis (`analysis::ranges`) against the interpreter.
//!
//! Each program is instrumented: before every instruction and terminator of a reachable block,
//! each `uN` scalar operand `v` is asserted to lie in `at(block, v)`, the interval the analysis
//! claims there (and each block parameter at the block's start). The instrumented program must
//! behave exactly as the original on the same inputs: an assertion the analysis got wrong
//! fails the run. Programs: random source programs (`zkbc_testkit::testgen`, compiled at -O1 so loops
//! and branches remain) and a few hand-written ones whose intervals are also printed.

use crate::common;
use crate::common::instrument;

use zkbc::analysis::Ranges;
use zkbc::ir::{parse_program, BinOp, BlockId, Function, InstId, InstKind, ValueId};
use zkbc_testkit::testgen;

/// The assertions `lo <= v <= hi` for `v` at `block`, as instructions (not yet placed).
fn range_check(func: &mut Function, ranges: &Ranges, block: BlockId, v: ValueId) -> Vec<InstId> {
    let Some(w) = func.value_type(v).uint_width() else {
        return Vec::new();
    };
    if func.const_value(v).is_some() {
        return Vec::new();
    }
    let Some(iv) = ranges.at(func, block, v) else {
        // The analysis says the block is never entered: a run reaching it proves it wrong.
        let f = func.const_bool(false);
        let msg = format!("{block} reached, but the analysis says it cannot be");
        return vec![func.create_inst(
            InstKind::Assert {
                cond: f,
                msg: Some(msg),
            },
            &[],
            None,
        )];
    };
    let lo = func.const_uint(w, iv.lo);
    let hi = func.const_uint(w, iv.hi);
    let mut out = Vec::new();
    let mut bin = |func: &mut Function, op, lhs, rhs| {
        let i = func.create_inst(InstKind::Binary { op, lhs, rhs }, &[], None);
        out.push(i);
        func.inst(i).results[0]
    };
    let a = bin(func, BinOp::Le, lo, v);
    let b = bin(func, BinOp::Le, v, hi);
    let both = bin(func, BinOp::And, a, b);
    out.push(func.create_inst(
        InstKind::Assert {
            cond: both,
            msg: Some(format!("{v} in {iv} at {block}")),
        },
        &[],
        None,
    ));
    out
}

impl instrument::Claims for Ranges {
    fn analyze(func: &Function) -> Self {
        Ranges::new(func)
    }
    fn covers(&self, b: BlockId) -> bool {
        self.reaches(b)
    }
    fn check(&self, func: &mut Function, block: BlockId, v: ValueId) -> Vec<InstId> {
        range_check(func, self, block, v)
    }
}

#[test]
fn every_value_lies_in_its_interval_on_random_programs() {
    let seeds = common::random_seeds(5_000_000, 400);
    let cases = seeds.len();
    let t = instrument::random_programs::<Ranges>(
        seeds,
        |seed| {
            let case = testgen::generate(seed);
            (case.program.to_string(), case.inputs_json())
        },
        "a value left its interval",
    );
    let (programs, checks, runs) = (t.programs, t.checks, t.runs);
    println!("ranges: {programs} programs, {checks} operands checked, {runs} runs completed");
    assert!(programs >= cases && checks >= 10 * cases);
}

#[test]
fn every_value_lies_in_its_interval_on_the_corpus() {
    let checks = instrument::corpus::<Ranges>(&common::corpus());
    assert!(checks > 100, "{checks}");
}

/// The intervals of every `uN` value of `main`, one per line.
fn intervals(text: &str) -> String {
    let program = parse_program(text).unwrap();
    let func = program.main_func();
    let ranges = Ranges::new(func);
    let mut out = String::new();
    for &b in &func.layout {
        let data = func.block(b);
        let values = data.params.iter().copied().chain(
            data.insts
                .iter()
                .flat_map(|i| func.inst(*i).results.clone()),
        );
        for v in values {
            if let Some(iv) = ranges.of(v) {
                out.push_str(&format!("{b} {v} {iv}\n"));
            }
        }
    }
    out
}

#[test]
fn a_counted_loop_narrows_back_after_widening() {
    let text = "
fn main f0 -> u32 {
b0():
    jmp b1(u32 0)
b1(v1: u32):
    v2 = lt v1, u32 10000
    br v2, b2(), b3()
b2():
    v3 = add v1, u32 1
    jmp b1(v3)
b3():
    return v1
}";
    expect_test::expect![[r#"
        b1 v1 [0, 10000]
        b1 v2 [0, 1]
        b2 v3 [1, 10000]
    "#]]
    .assert_eq(&intervals(text));
    let program = parse_program(text).unwrap();
    let ranges = Ranges::new(program.main_func());
    let v1 = program.main_func().block(BlockId(1)).params[0];
    let in_body = ranges.at(program.main_func(), BlockId(2), v1).unwrap();
    assert_eq!((in_body.lo, in_body.hi), (0, 9999));
    let at_exit = ranges.at(program.main_func(), BlockId(3), v1).unwrap();
    assert_eq!((at_exit.lo, at_exit.hi), (10000, 10000));
}

#[test]
fn branches_refine_and_arithmetic_follows() {
    let text = "
fn main f0 -> u8, u8, u8, u1 {
b0(v0: u8):
    v1 = lt v0, u8 100
    br v1, b1(), b2()
b1():
    v2 = mul v0, u8 2
    v3 = and v0, u8 15
    v4 = urem v0, u8 7
    v5 = lt v4, u8 7
    return v2, v3, v4, v5
b2():
    v6 = sub v0, u8 100
    v7 = shr v0, u8 4
    v8 = add v0, u8 1
    v9 = eq v0, u8 3
    return v6, v7, v8, v9
}";
    expect_test::expect![[r#"
        b0 v0 [0, 255]
        b0 v1 [0, 1]
        b1 v2 [0, 198]
        b1 v3 [0, 15]
        b1 v4 [0, 6]
        b1 v5 [1, 1]
        b2 v6 [0, 155]
        b2 v7 [6, 15]
        b2 v8 [0, 255]
        b2 v9 [0, 0]
    "#]]
    .assert_eq(&intervals(text));
}
