//! Whole programs through the interpreter and the per-block R1CS: every executed block is
//! satisfied by the witness computed from the trace, and changing any output breaks it.

use crate::r1cs_common as common;
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

/// Branches, a loop with an early exit, arrays passed between blocks, live-in values, and
/// every instruction kind.
const KITCHEN_SINK: &str = r#"
; Sums the elements of xs below a bound, stops at a sentinel, then mixes in bit operations.
fn main f0 -> field, u32, [u8; 2] {
b0(v0: [u32; 4], v1: u32, v2: field):
    v3 = make_array [u8 1, u8 2] : u8
    jmp b1(u32 0, u32 0, v3)
b1(v10: u32, v11: u32, v12: [u8; 2]):
    v13 = lt v10, u32 4
    br v13, b2(), b5(v11)
b2():
    v20 = array_get v0, v10
    v21 = eq v20, u32 99
    br v21, b5(v11), b3()
b3():
    v30 = le v20, v1
    v31 = add v11, v20
    v32 = select v30, v31, v11
    v33 = add v10, u32 1
    v34 = trunc v20 to u8
    v35 = urem v10, u32 2
    v36 = array_set v12, v35, v34
    jmp b1(v33, v32, v36)
b5(v50: u32):
    v51 = cast v50 to field
    v52 = mul v51, v2
    v53 = div v52, field 3
    v54 = xor v50, v1
    v55 = shl v54, u32 3
    v56 = shr v55, v10
    v57 = not v56
    v58 = and v57, u32 65535
    v59 = or v58, u32 1
    v60 = to_bits v59
    v61 = from_bits v60 to u32
    v62 = udiv v61, u32 7
    v63 = sub v62, v50
    v64 = cast v51 to u32
    v65 = mul v63, v64
    assert v13, "loop ended early or late"
    return v53, v65, v12
}
"#;

fn kitchen_sink_expected(xs: [u64; 4], bound: u64, x: u64) -> Vec<Val> {
    let m = u32::MAX as u64;
    let (mut i, mut s, mut a) = (0u64, 0u64, [1u64, 2]);
    let mut cont = true;
    while i < 4 && cont {
        if xs[i as usize] == 99 {
            cont = false;
            break;
        }
        if xs[i as usize] <= bound {
            s = (s + xs[i as usize]) & m;
        }
        a[(i % 2) as usize] = xs[i as usize] & 0xff;
        i += 1;
    }
    let _ = cont;
    let fx = zkbc::field::Fr::from(s) * zkbc::field::Fr::from(x);
    let out0 = fx * zkbc::field::inverse(&zkbc::field::Fr::from(3u64)).unwrap();
    let v55 = ((s ^ bound) << 3) & m;
    let v56 = if i >= 32 { 0 } else { v55 >> i };
    let v59 = ((!v56 & m) & 0xffff) | 1;
    let v63 = (v59 / 7).wrapping_sub(s) & m;
    let v65 = (v63 * s) & m;
    vec![Val::Field(out0), u(v65), arr(a.map(u).to_vec())]
}

#[test]
fn kitchen_sink_checks_on_every_path() {
    let p = parse(KITCHEN_SINK);
    let cases: &[([u64; 4], u64, u64)] = &[
        ([1, 2, 3, 4], 3, 5),
        ([10, 20, 99, 4], 15, 7),
        ([4_000_000_000, 4_000_000_000, 1, 0], u32::MAX as u64, 2),
        ([99, 0, 0, 0], 0, 0),
    ];
    for &(xs, bound, x) in cases {
        // The assert in b5 needs v13 = 1, i.e. only the sentinel exit passes: pick runs that do.
        let inputs = [arr(xs.map(u).to_vec()), u(bound), f(x)];
        match interp::run(&p, &inputs, interp::Limits::default()) {
            Ok(_) => {
                let out = run_and_check(&p, &inputs);
                assert_eq!(
                    out,
                    kitchen_sink_expected(xs, bound, x),
                    "{xs:?} {bound} {x}"
                );
            }
            Err(e) => {
                // The loop ran to the end: b5 fails its assertion; its instance must be unsatisfied.
                assert!(e.to_string().contains("loop ended"), "{e}");
                assert!(!xs.contains(&99));
            }
        }
    }
}

#[test]
fn every_executed_block_of_nested_arrays_and_selects_checks() {
    let text = r#"
fn main f0 -> [[field; 2]; 2], u1 {
b0(v0: [[field; 2]; 2], v1: u1, v2: u8):
    v3 = array_get v0, v2
    v4 = array_get v3, u32 1
    v5 = make_array [v4, v4] : field
    v6 = array_set v0, v2, v5
    v7 = select v1, v6, v0
    br v1, b1(v7), b2(v0, v1)
b1(v10: [[field; 2]; 2]):
    v11 = lt v4, field 100
    return v10, v11
b2(v20: [[field; 2]; 2], v21: u1):
    v22 = not v21
    return v20, v22
}
"#;
    let p = parse(text);
    let m =
        |a: u64, b: u64, c: u64, d: u64| arr(vec![arr(vec![f(a), f(b)]), arr(vec![f(c), f(d)])]);
    assert_eq!(
        run_and_check(&p, &[m(1, 2, 3, 4), u(1), u(0)]),
        vec![m(2, 2, 3, 4), u(1)]
    );
    assert_eq!(
        run_and_check(&p, &[m(1, 2, 3, 400), u(1), u(1)]),
        vec![m(1, 2, 400, 400), u(0)]
    );
    assert_eq!(
        run_and_check(&p, &[m(1, 2, 3, 4), u(0), u(1)]),
        vec![m(1, 2, 3, 4), u(1)]
    );
}

#[test]
fn parallel_and_sequential_stats_agree_and_match_ark() {
    let p = parse(KITCHEN_SINK);
    let par = r1cs::stats(&p).unwrap();
    let seq = r1cs::stats_sequential(&p).unwrap();
    assert_eq!(par, seq);
    assert_eq!(par.len(), p.main_func().layout.len());
    // The counts are those of the ark-relations system the instance is emitted into.
    for s in &par {
        let blk = r1cs::lower_block(&p, s.func, s.block).unwrap();
        let zeros = vec![zkbc::field::Fr::from(0u64); blk.layout().in_leaves()];
        let cs = blk.to_ark(&blk.assign(&zeros).unwrap());
        assert_eq!(cs.num_constraints(), s.constraints);
        assert_eq!(cs.num_witness_variables(), s.witness_vars);
        assert_eq!(cs.num_instance_variables(), s.instance_vars + 1);
        assert_eq!(s.instance_vars, blk.layout().width());
        assert!(s.nnz_a >= s.constraints && s.nnz_b >= s.constraints);
    }
}

#[test]
fn no_linear_constraint_survives_where_a_witness_can_absorb_it() {
    let p = parse(KITCHEN_SINK);
    for blk in r1cs::lower_function(&p, p.main).unwrap() {
        let inst = blk.n_instance() as u32;
        for k in 0..blk.n_constraints() {
            let (a, b, c) = blk.constraint(k);
            let constant = |row: r1cs::Row<'_>| row.vars().all(|v| v == r1cs::ONE);
            if constant(a) || constant(b) {
                let rows = [a, b, c];
                let witness = rows.iter().flat_map(|r| r.vars()).any(|v| v > inst);
                assert!(
                    !witness,
                    "{}: linear constraint {k} mentions a witness",
                    blk.block()
                );
            }
        }
    }
}

#[test]
fn long_linear_chains_are_materialized_and_still_check() {
    // 400 products summed: the running sum is materialized every 64 terms.
    let mut text = String::from("fn main f0 -> field {\nb0(v0: field, v1: field):\n    jmp b1(v0, v1)\nb1(v2: field, v3: field):\n    v4 = add v2, v3\n");
    let mut acc = 4;
    for k in 0..400 {
        text.push_str(&format!(
            "    v{} = mul v2, v{}\n",
            1000 + k,
            if k == 0 { 3 } else { 999 + k }
        ));
        text.push_str(&format!("    v{} = add v{acc}, v{}\n", 5000 + k, 1000 + k));
        acc = 5000 + k;
    }
    text.push_str(&format!("    return v{acc}\n}}\n"));
    let p = parse(&text);
    let blk = lower(&p, 1);
    // 400 products; the materializations above the elimination threshold stay.
    assert!(
        blk.n_constraints() >= 2 + 400 && blk.n_constraints() < 2 + 400 + 10,
        "{}",
        blk.n_constraints()
    );
    let out = run_and_check(&p, &[f(2), f(3)]);
    // Σ_{k=1..400} 3·2^k + 2 + 3.
    let mut want = zkbc::field::Fr::from(5u64);
    let mut t = zkbc::field::Fr::from(3u64);
    for _ in 0..400 {
        t *= zkbc::field::Fr::from(2u64);
        want += t;
    }
    assert_eq!(out, vec![Val::Field(want)]);
}

/// `assert(a == [true; N])` on a long `bool[N]` is an `and` tree as deep as the array is long:
/// fusing and asserting it walk the tree without recursion (the fuzzer's `bool[84358]` overflowed
/// the stack at -O3), reading the array at constant indices copies one element, not the array
/// (that was quadratic), and a wrong element still fails.
#[test]
fn a_deep_assertion_tree_lowers_without_recursion() {
    const N: usize = 40_000;
    let src = format!("def main(bool[{N}] a) {{\n    assert(a == [true; {N}]);\n    return;\n}}\n");
    let options = zkbc::driver::Options::default();
    let mut compiled = zkbc::driver::compile("deep.zok", &src, &options).unwrap();
    zkbc::driver::legalize_for_r1cs(&mut compiled.program).unwrap();
    let stats = r1cs::stats(&compiled.program).unwrap();
    // N booleans for the input's range checks, two labels, and the assertion as one linear
    // constraint `Σ a_j = N` (over instance variables only, so nothing can absorb it).
    let main_entry = &stats[0];
    assert_eq!(main_entry.constraints, N + 3, "{stats:?}");
    let ones = Val::Array(std::rc::Rc::new(vec![Val::UInt(1); N]));
    let outcome = interp::run(&compiled.program, &[ones], interp::Limits::default()).unwrap();
    assert_eq!(
        r1cs::check_trace(&compiled.program, &outcome)
            .unwrap()
            .executions,
        1
    );
    // The instance rejects an input with one false element.
    let program = &compiled.program;
    let blk = r1cs::lower_block(program, program.main, program.main_func().entry).unwrap();
    let mut leaves = vec![zkbc::field::Fr::from(1u64); N];
    leaves[N - 7] = zkbc::field::Fr::from(0u64);
    let wrong = blk.assign(&leaves).unwrap();
    assert!(
        blk.first_unsatisfied(&wrong).is_some(),
        "a false element is accepted"
    );
}
