//! The known-bits analysis (`analysis::known_bits`) against the interpreter.
//!
//! Each program is instrumented: before every instruction and terminator of a block, each `uN`
//! scalar operand `v` is asserted to agree with its known bits (`v & zero == 0` and
//! `v & one == one`), and each block parameter at the block's start. The instrumented program
//! must behave exactly as the original on the same inputs: a bit the analysis got wrong fails
//! the run. Programs: random source programs (`zkbc_testkit::testgen`, at -O1 and -O2 so loops and
//! branches remain), the corpus, and hand-written ones whose facts are also printed.

use crate::common;
use crate::common::instrument;

use zkbc::analysis::KnownBits;
use zkbc::ir::interp::Val;
use zkbc::ir::{parse_program, BinOp, BlockId, Function, InstId, InstKind, ValueId};
use zkbc_testkit::testgen;

/// The assertions that `v` agrees with its known bits, as instructions (not yet placed).
fn bits_check(func: &mut Function, known: &KnownBits, v: ValueId) -> Vec<InstId> {
    let Some(w) = func.value_type(v).uint_width() else {
        return Vec::new();
    };
    let Some(k) = known.of(func, v) else {
        return Vec::new();
    };
    if func.const_value(v).is_some() || (k.zero == 0 && k.one == 0) {
        return Vec::new();
    }
    let (zero, one) = (func.const_uint(w, k.zero), func.const_uint(w, k.one));
    let none = func.const_uint(w, 0);
    let mut out = Vec::new();
    let mut bin = |func: &mut Function, op, lhs, rhs| {
        let i = func.create_inst(InstKind::Binary { op, lhs, rhs }, &[], None);
        out.push(i);
        func.inst(i).results[0]
    };
    let z = bin(func, BinOp::And, v, zero);
    let z_ok = bin(func, BinOp::Eq, z, none);
    let o = bin(func, BinOp::And, v, one);
    let o_ok = bin(func, BinOp::Eq, o, one);
    let both = bin(func, BinOp::And, z_ok, o_ok);
    out.push(func.create_inst(
        InstKind::Assert {
            cond: both,
            msg: Some(format!("{v} against zero {:#x} one {:#x}", k.zero, k.one)),
        },
        &[],
        None,
    ));
    out
}

impl instrument::Claims for KnownBits {
    fn analyze(func: &Function) -> Self {
        KnownBits::new(func)
    }
    fn check(&self, func: &mut Function, _block: BlockId, v: ValueId) -> Vec<InstId> {
        bits_check(func, self, v)
    }
}

#[test]
fn every_value_agrees_with_its_known_bits_on_random_programs() {
    let seeds = common::random_seeds(7_000_000, 400);
    let cases = seeds.len();
    let t = instrument::random_programs::<KnownBits>(
        seeds,
        |seed| {
            let case = testgen::generate(seed);
            (case.program.to_string(), case.inputs_json())
        },
        "a value disagrees with its known bits",
    );
    let (programs, checks, runs) = (t.programs, t.checks, t.runs);
    println!("known bits: {programs} programs, {checks} operands checked, {runs} runs completed");
    assert!(programs >= cases && checks >= cases);
}

#[test]
fn every_value_agrees_with_its_known_bits_on_the_corpus() {
    let checks = instrument::corpus::<KnownBits>(&common::corpus());
    // A floor, so an analysis that knows nothing fails: the corpus had 97 at -O1.
    assert!(checks > 50, "{checks}");
}

/// The known bits of every `uN` value of `main` that has some, one per line.
fn facts(text: &str) -> String {
    let program = parse_program(text).unwrap();
    let func = program.main_func();
    let known = KnownBits::new(func);
    let mut out = String::new();
    for &b in &func.layout {
        let data = func.block(b);
        let values = data.params.iter().copied().chain(
            data.insts
                .iter()
                .flat_map(|i| func.inst(*i).results.clone()),
        );
        for v in values {
            if let Some(k) = known.of(func, v).filter(|k| k.zero | k.one != 0) {
                out.push_str(&format!("{b} {v} zero {:#x} one {:#x}\n", k.zero, k.one));
            }
        }
    }
    out
}

/// Masks, shifts, a concatenation and its carry-free sum; a loop header's parameter is ⊤ (its
/// back edge is not waited for), a join keeps what both arms know.
#[test]
fn shifts_masks_and_sums_have_the_expected_bits() {
    let text = "
fn main f0 -> u32, u32, u1, u32 {
b0(v0: u32, v1: u32, v2: u1):
    v3 = shl v0, u32 8
    v4 = and v1, u32 255
    v5 = add v3, v4
    v6 = or v4, u32 256
    v7 = sub v6, u32 1
    v8 = eq v6, u32 0
    br v2, b1(v4), b2(v0)
b1(v9: u32):
    jmp b2(v9)
b2(v10: u32):
    v11 = shr v10, u32 28
    v12 = lt v11, u32 3
    br v12, b3(), b2(v11)
b3():
    return v5, v7, v8, v11
}";
    // v5 = v3 + v4 has no carry: its low byte is v4's (unknown), and nothing else is known.
    // v7 = (v4 | 256) - 1: bit 8 may borrow, so only bits 9.. are known 0. b2's v10 is ⊤
    // (entered by a back edge) where b1's v9 is v4's bits; v11 = v10 >> 28 has 28 high zeros.
    expect_test::expect![[r#"
        b0 v3 zero 0xff one 0x0
        b0 v4 zero 0xffffff00 one 0x0
        b0 v6 zero 0xfffffe00 one 0x100
        b0 v7 zero 0xfffffe00 one 0x0
        b0 v8 zero 0x1 one 0x0
        b1 v9 zero 0xffffff00 one 0x0
        b2 v11 zero 0xfffffff0 one 0x0
    "#]]
    .assert_eq(&facts(text));
    let program = parse_program(text).unwrap();
    let (checked, n) = instrument::instrument_program::<KnownBits>(&program);
    assert!(n >= 5, "{n}");
    for (x, y, c) in [
        (0xdead_beefu64, 0x1234u64, 1u64),
        (7, 0, 0),
        (u64::from(u32::MAX), 255, 1),
    ] {
        let inputs = vec![Val::UInt(x), Val::UInt(y), Val::UInt(c)];
        let before = instrument::outcome(&program, &inputs);
        assert_eq!(before, instrument::outcome(&checked, &inputs));
        let sum = ((x << 8) & 0xffff_ffff) + (y & 255);
        assert_eq!(before.unwrap()[0], Val::UInt(sum));
    }
}
