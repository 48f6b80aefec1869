//! The known-bits analysis (`analysis::known_bits`) against the interpreter.
//!
//! Each program is instrumented: before every instruction and terminator of a block, each `uN`
//! scalar operand `v` is asserted to agree with its known bits (`v & zero == 0` and
//! `v & one == one`), and each block parameter at the block's start. The instrumented program
//! must behave exactly as the original on the same inputs: a bit the analysis got wrong fails
//! the run. Programs: random source programs (`zkbc_testkit::testgen`, at -O1 and -O2 so loops and
//! branches remain), the corpus, and hand-written ones whose facts are also printed.

mod common;

use zkbc::analysis::KnownBits;
use zkbc::driver;
use zkbc::ir::interp::{self, Limits};
use zkbc::ir::{parse_program, BinOp, Function, InstId, InstKind, Program, ValueId};
use zkbc::opt::OptLevel;
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

/// `func` with every tracked operand checked against the analysis (see the module doc).
fn instrument(func: &Function) -> (Function, usize) {
    let known = KnownBits::new(func);
    let mut out = func.clone();
    let mut checks = 0;
    for &b in &func.layout {
        let mut insts = Vec::new();
        let mut add = |out: &mut Function, v: ValueId, insts: &mut Vec<InstId>| {
            let c = bits_check(out, &known, v);
            checks += usize::from(!c.is_empty());
            insts.extend(c);
        };
        for &p in &func.block(b).params {
            add(&mut out, p, &mut insts);
        }
        for &i in &func.block(b).insts {
            for v in func.inst(i).kind.operands() {
                add(&mut out, v, &mut insts);
            }
            insts.push(i);
        }
        if let Some(t) = &func.block(b).term {
            for v in t.operands() {
                add(&mut out, v, &mut insts);
            }
        }
        out.block_mut(b).insts = insts;
    }
    (out, checks)
}

fn instrument_program(program: &Program) -> (Program, usize) {
    let mut out = program.clone();
    let mut checks = 0;
    for (k, f) in program.funcs.iter().enumerate() {
        let (g, n) = instrument(f);
        out.funcs[k] = g;
        checks += n;
    }
    zkbc::ir::verify::verify_program(&out)
        .unwrap_or_else(|e| panic!("instrumented program is invalid:\n{e}\n{out}"));
    (out, checks)
}

fn outcome(program: &Program, inputs: &[interp::Val]) -> Result<Vec<interp::Val>, String> {
    let limits = Limits {
        max_steps: 5_000_000,
        ..Limits::default()
    };
    interp::run(program, inputs, limits)
        .map(|o| o.outputs)
        .map_err(|f| f.kind.to_string())
}

#[test]
fn every_value_agrees_with_its_known_bits_on_random_programs() {
    let cases = std::env::var("ZKBC_RANDOM_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400u64);
    let (mut programs, mut checks, mut runs) = (0, 0, 0);
    for seed in 0..cases {
        let case = testgen::generate(7_000_000 + seed);
        let source = case.program.to_string();
        for level in [OptLevel::O1, OptLevel::O2] {
            let options = driver::Options {
                opt_level: level,
                ..driver::Options::default()
            };
            let Ok(compiled) = driver::compile("random.zok", &source, &options) else {
                continue;
            };
            let Ok(inputs) = compiled.inputs_from_json(&case.inputs_json()) else {
                continue;
            };
            let (checked, n) = instrument_program(&compiled.program);
            let before = outcome(&compiled.program, &inputs);
            let after = outcome(&checked, &inputs);
            assert_eq!(
                before,
                after,
                "seed {} at {level:?}: a value disagrees with its known bits\n{}\ninputs {}",
                case.seed,
                compiled.program,
                case.inputs_json()
            );
            programs += 1;
            checks += n;
            runs += usize::from(before.is_ok());
        }
    }
    println!("known bits: {programs} programs, {checks} operands checked, {runs} runs completed");
    assert!(programs >= cases as usize && checks >= cases as usize);
}

#[test]
fn every_value_agrees_with_its_known_bits_on_the_corpus() {
    let mut checks = 0;
    for file in common::corpus() {
        let name = file.display().to_string();
        let source = std::fs::read_to_string(&file).unwrap();
        let compiled = driver::compile(
            &name,
            &source,
            &driver::Options {
                opt_level: OptLevel::O1,
                ..driver::Options::default()
            },
        )
        .unwrap();
        let json = common::read_json(&file.with_extension("json"));
        let inputs = compiled.inputs_from_json(&json).unwrap();
        let (checked, n) = instrument_program(&compiled.program);
        assert_eq!(
            outcome(&compiled.program, &inputs),
            outcome(&checked, &inputs),
            "{name}"
        );
        checks += n;
    }
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
    let (checked, n) = instrument_program(&program);
    assert!(n >= 5, "{n}");
    for (x, y, c) in [
        (0xdead_beefu64, 0x1234u64, 1u64),
        (7, 0, 0),
        (u64::from(u32::MAX), 255, 1),
    ] {
        let inputs = vec![
            interp::Val::UInt(x),
            interp::Val::UInt(y),
            interp::Val::UInt(c),
        ];
        let before = outcome(&program, &inputs);
        assert_eq!(before, outcome(&checked, &inputs));
        let sum = ((x << 8) & 0xffff_ffff) + (y & 255);
        assert_eq!(before.unwrap()[0], interp::Val::UInt(sum));
    }
}
