//! One test per gadget: its exact constraint count (derived by hand from the encoding in the
//! table of `zkbc::r1cs`), its agreement with the interpreter on sample inputs (every executed
//! block satisfied), and soundness (changing any output breaks the instance).
//!
//! Each program is `b0` (main's entry) jumping to `b1`, which holds the gadget, so `b1`'s
//! inputs are not range-checked and its cost is: 2 (own label, next label) + the gadget + 1 per
//! output leaf that is a combination of instance variables only (it cannot be eliminated).
//!
//! The gadgets a program text, a count and input/output pairs state are files,
//! `tests/r1cs/*.ir` (run by `tests/filetests.rs`); here are the ones that forge assignments,
//! compare several gadgets or build their programs and inputs in code.

#[path = "r1cs_common.rs"]
mod common;
use common::*;
use zkbc::ir::interp::Val;

/// `b0(params) -> jmp b1(params)`; `b1` runs `body` (which ends in a terminator), with the
/// parameters named v10, v11, ...
fn prog(params: &[&str], ret: &str, body: &str) -> String {
    let b0: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("v{i}: {t}"))
        .collect();
    let args: Vec<String> = (0..params.len()).map(|i| format!("v{i}")).collect();
    let b1: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("v{}: {t}", 10 + i))
        .collect();
    let arrow = if ret.is_empty() {
        String::new()
    } else {
        format!(" -> {ret}")
    };
    format!(
        "fn main f0{arrow} {{\nb0({}):\n    jmp b1({})\nb1({}):\n{body}\n}}\n",
        b0.join(", "),
        args.join(", "),
        b1.join(", ")
    )
}

/// Checks the cost of `b1` and runs every input set through the interpreter and the check.
fn gadget(params: &[&str], ret: &str, body: &str, cost: usize, runs: &[Vec<Val>]) -> Vec<Vec<Val>> {
    let p = parse(&prog(params, ret, body));
    assert_eq!(
        lower(&p, 1).n_constraints(),
        2 + cost,
        "constraints of b1 in\n{}",
        prog(params, ret, body)
    );
    runs.iter()
        .map(|inputs| run_and_check(&p, inputs))
        .collect()
}

const MAX32: u64 = u32::MAX as u64;

/// `assert` of a `u1` `and` tree builds no product: its leaves must all be 1, asserted as one
/// sum `Σ b_j = k` (sound: k booleans reach k < p only when each is 1). Here the leaves are
/// b1's instance variables, so the sum stays as 1 constraint; with a leaf `false` the instance
/// is unsatisfiable.
#[test]
fn assert_of_an_and_tree_is_one_linear_constraint() {
    let body = "    v20 = and v10, v11\n    v21 = eq v12, u1 0\n    v22 = and v20, v21\n    assert v22\n    return";
    gadget(&["u1", "u1", "u1"], "", body, 1, &[vec![u(1), u(1), u(0)]]);
    let p = parse(&prog(&["u1", "u1", "u1"], "", body));
    let block = lower(&p, 1);
    let one = zkbc::field::Fr::from(1u64);
    let zero = zkbc::field::Fr::from(0u64);
    let honest = block.assign(&[one, one, zero]).expect("assigns");
    assert_eq!(block.first_unsatisfied(&honest), None);
    for bad in [
        [zero, one, zero],
        [one, zero, zero],
        [one, one, one],
        [zero, zero, one],
    ] {
        let forged = block.assign(&bad).expect("assigns");
        assert!(
            block.first_unsatisfied(&forged).is_some(),
            "{bad:?} satisfies the assertion"
        );
    }
}

/// Runs `p` on `inputs` and requires `zkbc check --soundness`'s search (every output leaf and
/// every witness in an assertion-shaped constraint changed) to find no accepting instance.
fn no_soundness_finding(p: &zkbc::ir::Program, inputs: &[Val]) {
    let outcome = zkbc::ir::interp::run(p, inputs, zkbc::ir::interp::Limits::default())
        .unwrap_or_else(|e| panic!("run failed: {e}"));
    let report = zkbc::r1cs::check_soundness(p, &outcome, zkbc::r1cs::SoundnessOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(report.findings.is_empty(), "{:?}", report.findings);
}

/// Whether b1 accepts the honest assignment of the forged input state `leaves` (the witness
/// generator computes what it can; an assertion that fails must leave some constraint false).
fn b1_accepts(p: &zkbc::ir::Program, leaves: &[u64]) -> bool {
    let block = lower(p, 1);
    let leaves: Vec<zkbc::field::Fr> = leaves.iter().map(|&x| x.into()).collect();
    let a = block.assign(&leaves).expect("assigns");
    block.first_unsatisfied(&a).is_none()
}

#[test]
fn choice_idiom_costs_one_product_per_bit() {
    // (x & y) ^ (!x & z) = z + x·(y − z) per bit: N products on top of the three operands' bits
    // (3N, they are not range-checked in b1); `|` in place of `^` is the same function.
    for op in ["xor", "or"] {
        let body = format!(
            "    v20 = and v10, v11\n    v21 = not v10\n    v22 = and v21, v12\n    v23 = {op} v20, v22\n    return v23"
        );
        let (x, y, z) = (0xff00_ff00u64, 0x1234_5678u64, 0x9abc_def0u64);
        let out = gadget(
            &["u32", "u32", "u32"],
            "u32",
            &body,
            3 * 32 + 32,
            &[vec![u(x), u(y), u(z)]],
        );
        assert_eq!(out[0], vec![u((x & y) ^ (!x & z & MAX32))], "{op}");
        no_soundness_finding(
            &parse(&prog(&["u32", "u32", "u32"], "u32", &body)),
            &[u(x), u(y), u(z)],
        );
    }
}

#[test]
fn majority_idiom_costs_two_products_per_bit_and_one_after_a_shared_pair() {
    // (a & b) ^ (a & c) ^ (b & c) = p + c·(a + b − 2p), p = a·b: 2N products on top of the
    // operands' bits (3N).
    let body = "    v20 = and v10, v11\n    v21 = and v10, v12\n    v22 = xor v20, v21\n    v23 = and v11, v12\n    v24 = xor v22, v23\n    return v24";
    let (a, b, c) = (0xf0f0_f0f0u64, 0xff00_ff00u64, 0x0ff0_0ff0u64);
    let maj = |a: u64, b: u64, c: u64| (a & b) ^ (a & c) ^ (b & c);
    let out = gadget(
        &["u32", "u32", "u32"],
        "u32",
        body,
        3 * 32 + 2 * 32,
        &[vec![u(a), u(b), u(c)]],
    );
    assert_eq!(out[0], vec![u(maj(a, b, c))]);
    // SHA-256's next round: maj(d, a, b) — its `a & b` pair was built by the first majority,
    // so it costs N products (plus d's bits, N).
    let body = "    v20 = and v10, v11\n    v21 = and v10, v12\n    v22 = xor v20, v21\n    v23 = and v11, v12\n    v24 = xor v22, v23\n    v30 = and v13, v10\n    v31 = and v13, v11\n    v32 = xor v30, v31\n    v33 = and v10, v11\n    v34 = xor v32, v33\n    return v24, v34";
    let d = 0x1357_9bdfu64;
    let params = ["u32", "u32", "u32", "u32"];
    let out = gadget(
        &params,
        "u32, u32",
        body,
        4 * 32 + 2 * 32 + 32,
        &[vec![u(a), u(b), u(c), u(d)]],
    );
    assert_eq!(out[0], vec![u(maj(a, b, c)), u(maj(d, a, b))]);
    no_soundness_finding(
        &parse(&prog(&params, "u32, u32", body)),
        &[u(a), u(b), u(c), u(d)],
    );
    // The same after GVN: one `and` (v20) read by both majorities is folded into both, not
    // built for its two readers (which would leave both majorities unrecognized).
    let body = "    v20 = and v10, v11\n    v21 = and v10, v12\n    v22 = xor v20, v21\n    v23 = and v11, v12\n    v24 = xor v22, v23\n    v30 = and v13, v10\n    v31 = and v13, v11\n    v32 = xor v30, v31\n    v34 = xor v32, v20\n    return v24, v34";
    let out = gadget(
        &params,
        "u32, u32",
        body,
        4 * 32 + 2 * 32 + 32,
        &[vec![u(a), u(b), u(c), u(d)]],
    );
    assert_eq!(out[0], vec![u(maj(a, b, c)), u(maj(d, a, b))]);
    no_soundness_finding(
        &parse(&prog(&params, "u32, u32", body)),
        &[u(a), u(b), u(c), u(d)],
    );
}

#[test]
fn asserted_uint_comparisons_cost_the_difference_bits() {
    // assert(x <= c): c − x in [0, 2^k), k = bits of c: k booleans (2 for c = 2).
    let body = "    v20 = le v10, u8 2\n    assert v20\n    return";
    let p = parse(&prog(&["u8"], "", body));
    assert_eq!(gadget_cost(&p, 1), 2);
    for x in 0..=2 {
        run_and_check(&p, &[u(x)]);
        assert!(b1_accepts(&p, &[x]));
    }
    for x in [3, 4, 200, 255] {
        assert!(!b1_accepts(&p, &[x]), "x = {x} passes x <= 2");
    }
    // In main's entry x's bits are known (8, the input range check): bits 2..8 are asserted 0,
    // which removes their booleanity checks, and the low 2 bits are compared (2): 2 + 2.
    let p =
        parse("fn main f0 {\nb0(v0: u8):\n    v1 = lt v0, u8 3\n    assert v1\n    return\n}\n");
    assert_eq!(gadget_cost(&p, 0), 2 + 2);
    // assert(x < y): y − x − 1 in [0, 2^N), N booleans; assert(200 <= x): x − 200 in [0, 2^8).
    let body = "    v20 = lt v10, v11\n    assert v20\n    v21 = le u8 200, v10\n    assert v21\n    return";
    let p = parse(&prog(&["u8", "u8"], "", body));
    assert_eq!(gadget_cost(&p, 1), 8 + 8);
    run_and_check(&p, &[u(200), u(201)]);
    assert!(b1_accepts(&p, &[254, 255]));
    for (x, y) in [(201, 201), (199, 255), (255, 0)] {
        assert!(!b1_accepts(&p, &[x, y]), "({x}, {y}) passes");
    }
}

#[test]
fn asserted_or_of_equalities_is_one_product() {
    // assert(a == 3 || a == 5): (a − 3)·(a − 5) = 0, 1 constraint, no `eq` flags.
    let body = "    v20 = eq v10, field 3\n    v21 = eq v10, field 5\n    v22 = or v20, v21\n    assert v22\n    return";
    let p = parse(&prog(&["field"], "", body));
    assert_eq!(gadget_cost(&p, 1), 1);
    run_and_check(&p, &[f(3)]);
    run_and_check(&p, &[f(5)]);
    assert!(!b1_accepts(&p, &[4]));
    // A boolean and its negation: `z || !z` holds for every boolean, and `z && !z` is 0.
    let body = "    v20 = eq v10, field 0\n    v21 = not v20\n    v22 = or v20, v21\n    assert v22\n    v23 = and v20, v21\n    return v23";
    let p = parse(&prog(&["field"], "u1", body));
    // The flag (2); the `or` and the `and` are free; the output is the constant 0 (1).
    assert_eq!(gadget_cost(&p, 1), 2 + 1);
    assert_eq!(run_and_check(&p, &[f(0)]), vec![u(0)]);
}

/// `main` jumping to `b1`, which takes a hint of f1 (an inverse, for a field; `x + 1` for a
/// u8) and runs `body`.
fn hint_prog(ty: &str, ret: &str, body: &str) -> zkbc::ir::Program {
    let hint_body = if ty == "field" {
        "    v1 = div field 1, v0 @1:1\n    return v1"
    } else {
        "    v1 = add v0, u8 1\n    return v1"
    };
    parse(&format!(
        "fn main f0 -> {ret} {{\nb0(v0: {ty}):\n    jmp b1(v0)\nb1(v10: {ty}):\n    v11 = hint f1(v10)\n{body}\n}}\n\nfn h f1 -> {ty} {{\nb0(v0: {ty}):\n{hint_body}\n}}\n"
    ))
}

#[test]
fn hints_are_free_witnesses() {
    // A field hint is one witness variable and no constraint: `x · inv = 1` (1) is all that
    // binds it, as an `asm` block's `===` does; the output is the hint itself (eliminated).
    let p = hint_prog(
        "field",
        "field",
        "    v12 = mul v10, v11\n    v13 = eq v12, field 1\n    assert v13\n    return v11",
    );
    assert_eq!(gadget_cost(&p, 1), 1);
    let outcome = zkbc::ir::interp::run(&p, &[f(4)], zkbc::ir::interp::Limits::default()).unwrap();
    // The trace holds main's blocks only, and b1's execution carries the hint's value.
    assert_eq!(outcome.trace.len(), 2);
    assert_eq!(outcome.trace[1].hints, outcome.outputs);
    zkbc::r1cs::check_trace(&p, &outcome).expect("every block satisfied");
    no_soundness_finding(&p, &[f(4)]);
    // A uN hint is range-checked where it is produced (N booleans), like every uN value; here
    // `h - x == 1` binds it (the wrapped difference is normalized: 9 more booleans).
    let body = "    v12 = sub v11, v10\n    v13 = eq v12, u8 1\n    assert v13\n    return v11";
    let p = hint_prog("u8", "u8", body);
    assert_eq!(gadget_cost(&p, 1), 8 + 9);
    assert_eq!(run_and_check(&p, &[u(7)]), vec![u(8)]);
    assert_eq!(run_and_check(&p, &[u(255)]), vec![u(0)]);
}

#[test]
fn an_unbound_hint_is_found_by_the_soundness_check() {
    // Nothing constrains the hint that `b1` returns: the prover may return anything, and
    // `check --soundness` must say so (a hint is a witness like any other).
    let p = hint_prog("field", "field", "    return v11");
    assert_eq!(gadget_cost(&p, 1), 0);
    let outcome = zkbc::ir::interp::run(&p, &[f(4)], zkbc::ir::interp::Limits::default()).unwrap();
    let report =
        zkbc::r1cs::check_soundness(&p, &outcome, zkbc::r1cs::SoundnessOptions::default()).unwrap();
    assert!(
        !report.findings.is_empty(),
        "an unconstrained hint output was not found"
    );
}

#[test]
fn zokrates_field_comparison_bounds_both_operands() {
    // `--field-cmp zokrates`: `bound x, 252` is 252 booleans (unsatisfiable for x ≥ 2^252); two
    // bounded operands compare in 252 + 1 (`lt_bounded`): 252 + 252 + 253 in all, against the
    // complete comparison's 2 · 384 + 131.
    let body =
        "    v20 = bound v10, 252\n    v21 = bound v11, 252\n    v22 = lt v20, v21\n    return v22";
    let out = gadget(
        &["field", "field"],
        "u1",
        body,
        252 + 252 + 253,
        &[vec![f(1), f(2)], vec![f(2), f(1)]],
    );
    assert_eq!(out, vec![vec![u(1)], vec![u(0)]]);
    let p = parse(&prog(&["field", "field"], "u1", body));
    let block = lower(&p, 1);
    let two_252 = (0..252).fold(zkbc::field::Fr::from(1u64), |x, _| x + x);
    for (a, b) in [
        (two_252, 1u64.into()),
        (1u64.into(), two_252),
        (-zkbc::field::Fr::from(1u64), 1u64.into()),
    ] {
        let asg = block.assign(&[a, b]).expect("assigns");
        assert!(
            block.first_unsatisfied(&asg).is_some(),
            "an operand ≥ 2^252 is accepted"
        );
    }
    let asg = block
        .assign(&[two_252 - zkbc::field::Fr::from(1u64), 1u64.into()])
        .expect("assigns");
    assert_eq!(block.first_unsatisfied(&asg), None);
}

#[test]
fn a_wrapping_no_wrap_instruction_is_a_located_compiler_bug() {
    let p = parse(&prog(
        &["u32", "u32"],
        "u32",
        "    v20 = add nuw v10, v11\n    return v20",
    ));
    let err = zkbc::ir::interp::run(&p, &[u(MAX32), u(1)], zkbc::ir::interp::Limits::default())
        .unwrap_err();
    assert_eq!(
        err.kind,
        zkbc::ir::interp::FailureKind::NoWrapViolated("add".into())
    );
    assert!(err.to_string().contains("compiler bug"), "{err}");
}
