//! Whole programs through the interpreter and the per-block R1CS: every executed block is
//! satisfied by the witness computed from the trace, and changing any output breaks it.

#[path = "r1cs_common.rs"]
mod common;
use common::*;

#[test]
fn sum_loop_example_checks() {
    let text = std::fs::read_to_string("examples/ir/sum_loop.ir").unwrap();
    let p = parse(&text);
    let out = run_and_check(&p, &[f(7), u(5)]);
    assert_eq!(out, vec![f(35)]);
}

use zkbc::ir::interp::{self, Val};
use zkbc::r1cs;

/// The block, run on `params`, must fail in the interpreter and its instance must be
/// unsatisfied by the honest witness (with ark-relations and by direct evaluation).
fn fails(text: &str, block: u32, params: &[Val]) {
    let p = parse(text);
    let blk = lower(&p, block);
    let asg = blk.assign_params(params).unwrap();
    assert!(blk.first_unsatisfied(&asg).is_some(), "{text}");
    assert!(!blk.to_ark(&asg).is_satisfied().unwrap());
}

#[test]
fn failures_make_the_block_unsatisfiable() {
    let failing_runs: &[(&str, Vec<Val>)] = &[
        ("fn main f0 {\nb0(v0: field):\n    v1 = eq v0, field 5\n    assert v1\n    return\n}\n", vec![f(4)]),
        ("fn main f0 {\nb0(v0: u32):\n    v1 = lt v0, u32 5\n    assert v1\n    return\n}\n", vec![u(5)]),
        ("fn main f0 -> field {\nb0(v0: field, v1: field):\n    v2 = div v0, v1\n    return v2\n}\n", vec![f(4), f(0)]),
        ("fn main f0 -> u32 {\nb0(v0: u32, v1: u32):\n    v2 = udiv v0, v1\n    return v2\n}\n", vec![u(4), u(0)]),
        ("fn main f0 -> u32 {\nb0(v0: u32, v1: u32):\n    v2 = urem v0, v1\n    return v2\n}\n", vec![u(4), u(0)]),
        ("fn main f0 -> field {\nb0(v0: [field; 4], v1: u32):\n    v2 = array_get v0, v1\n    return v2\n}\n", vec![arr([1, 2, 3, 4].map(f).to_vec()), u(4)]),
        ("fn main f0 -> [field; 4] {\nb0(v0: [field; 4], v1: u32):\n    v2 = array_set v0, v1, field 9\n    return v2\n}\n", vec![arr([1, 2, 3, 4].map(f).to_vec()), u(7)]),
        ("fn main f0 -> field {\nb0(v0: [field; 4]):\n    v2 = array_get v0, u32 4\n    return v2\n}\n", vec![arr([1, 2, 3, 4].map(f).to_vec())]),
        ("fn main f0 -> u8 {\nb0(v0: field):\n    v1 = cast v0 to u8\n    return v1\n}\n", vec![f(256)]),
        ("fn main f0 -> u8 {\nb0(v0: u32):\n    v1 = cast v0 to u8\n    return v1\n}\n", vec![u(300)]),
    ];
    for (text, inputs) in failing_runs {
        let p = parse(text);
        assert!(
            interp::run(&p, inputs, interp::Limits::default()).is_err(),
            "{text}"
        );
        fails(text, 0, inputs);
    }
}

#[test]
fn out_of_range_main_inputs_are_rejected() {
    let text = "fn main f0 -> u32 {\nb0(v0: u32, v1: u1):\n    return v0\n}\n";
    let p = parse(text);
    let blk = lower(&p, 0);
    let two = zkbc::field::Fr::from(2u64);
    let big = zkbc::field::Fr::from(1u64 << 40);
    // A prover passing 2^40 as a u32 (or 2 as a bool) cannot satisfy the entry block.
    for leaves in [
        [big, zkbc::field::Fr::from(1u64)],
        [zkbc::field::Fr::from(3u64), two],
    ] {
        let asg = blk.assign(&leaves).unwrap();
        assert!(blk.first_unsatisfied(&asg).is_some());
    }
    let asg = blk
        .assign(&[zkbc::field::Fr::from(3u64), zkbc::field::Fr::from(1u64)])
        .unwrap();
    assert_eq!(blk.first_unsatisfied(&asg), None);
    // The same block not at main's entry trusts its inputs (they were checked where produced).
    let q = parse("fn main f0 -> u32 {\nb0(v0: u32, v1: u1):\n    jmp b1(v0, v1)\nb1(v2: u32, v3: u1):\n    return v2\n}\n");
    assert_eq!(lower(&q, 0).n_constraints(), 2 + 32 + 1 + 2);
    assert_eq!(lower(&q, 1).n_constraints(), 2 + 1);
}

#[test]
fn unsupported_instructions_are_clear_errors() {
    let p = parse("fn main f0 -> field {\nb0(v0: field):\n    v1 = allocate field\n    store v0 at v1\n    v2 = load v1\n    return v2\n}\n");
    let err = r1cs::lower_block(&p, p.main, zkbc::ir::BlockId(0)).unwrap_err();
    assert!(
        matches!(err, r1cs::LowerError::Unsupported { inst: Some(0), .. }),
        "{err}"
    );
    assert!(err.to_string().contains("mem2reg"), "{err}");
    let p = parse("fn main f0 -> field {\nb0(v0: field):\n    v1 = call f1(v0)\n    return v1\n}\nfn g f1 -> field {\nb0(v0: field):\n    return v0\n}\n");
    let err = r1cs::lower_block(&p, p.main, zkbc::ir::BlockId(0)).unwrap_err();
    assert!(err.to_string().contains("inlined"), "{err}");
}
