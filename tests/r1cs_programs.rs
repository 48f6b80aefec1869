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
