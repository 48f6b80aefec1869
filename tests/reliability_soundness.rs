//! `zkbc check --soundness`: the under-constrained search finds a deliberately broken
//! hand-built instance, and finds nothing on the corpus.

use crate::common;
use common::corpus;
use zkbc::field::Fr;
use zkbc::ir::interp;
use zkbc::r1cs::soundness::{check_instance, Changed, Constraint};
use zkbc::{driver, r1cs};

fn lc(terms: &[(usize, i64)]) -> Vec<(usize, Fr)> {
    terms
        .iter()
        .map(|&(x, c)| {
            let v = Fr::from(c.unsigned_abs());
            (x, if c < 0 { -v } else { v })
        })
        .collect()
}

/// `out = (x == 0)` with the inverse hint: variables `[1, x, out, inv]`, instance `[x, out]`,
/// output state from instance index 1 (`out`).
fn is_zero(with_second_constraint: bool) -> Vec<Changed> {
    // x · inv = 1 - out
    let mut cs: Vec<Constraint> = vec![[lc(&[(1, 1)]), lc(&[(3, 1)]), lc(&[(0, 1), (2, -1)])]];
    if with_second_constraint {
        // x · out = 0
        cs.push([lc(&[(1, 1)]), lc(&[(2, 1)]), lc(&[])]);
    }
    let x = Fr::from(3u64);
    let inv = Fr::from(1u64) / x;
    check_instance(cs, &[x, Fr::from(0u64)], &[inv], 1, true)
}

#[test]
fn an_is_zero_without_its_second_constraint_is_reported() {
    let found = is_zero(false);
    println!("missing constraint: {found:?}");
    assert!(found.contains(&Changed::Output(0)), "{found:?}");
    let found = is_zero(true);
    println!("complete gadget: {found:?}");
    assert!(found.is_empty(), "{found:?}");
}

/// A witness an assertion depends on, left free: `assert(a == b)` built as `(a - b) · w = 0`
/// with a witness `w` that nothing else constrains — a prover sets `w = 0` and any `a`, `b` pass.
#[test]
fn a_free_witness_in_an_assertion_is_reported() {
    // Variables [1, a, b, out, w]; instance [a, b, out]; output state from instance index 2.
    let cs: Vec<Constraint> = vec![
        [lc(&[(1, 1), (2, -1)]), lc(&[(4, 1)]), lc(&[])],
        [lc(&[(3, 1)]), lc(&[(0, 1)]), lc(&[(1, 1)])],
    ];
    let five = Fr::from(5u64);
    let found = check_instance(cs, &[five, five, five], &[Fr::from(1u64)], 2, true);
    println!("vacuous assertion: {found:?}");
    assert_eq!(found, vec![Changed::Witness(0)]);
    // The right gadget, `(a - b) · 1 = 0`, has no witness to change.
    let cs: Vec<Constraint> = vec![
        [lc(&[(1, 1), (2, -1)]), lc(&[(0, 1)]), lc(&[])],
        [lc(&[(3, 1)]), lc(&[(0, 1)]), lc(&[(1, 1)])],
    ];
    let found = check_instance(cs, &[five, five, five], &[], 2, true);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn the_corpus_has_no_under_constrained_block() {
    let (mut executions, mut outputs, mut witnesses) = (0, 0, 0);
    // The default pipeline, and without merging (more, smaller blocks: every loop body and
    // branch arm is an instance of its own there).
    let mut no_merge = driver::Options::default();
    no_merge.opt.skip.push("merge".into());
    for (file, options) in corpus().into_iter().flat_map(|f| {
        [
            (f.clone(), driver::Options::default()),
            (f, no_merge.clone()),
        ]
    }) {
        let name = file.display().to_string();
        let source = std::fs::read_to_string(&file).expect("readable");
        let mut compiled = driver::compile(&name, &source, &options).expect("compiles");
        driver::legalize_for_r1cs(&mut compiled.program).expect("legalizes");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file.with_extension("json")).unwrap())
                .unwrap();
        let inputs = compiled.inputs_from_json(&json).expect("inputs");
        let outcome = interp::run(&compiled.program, &inputs, interp::Limits::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = r1cs::check_soundness(
            &compiled.program,
            &outcome,
            r1cs::SoundnessOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let findings: Vec<String> = report.findings.iter().map(|f| f.to_string()).collect();
        assert!(findings.is_empty(), "{name}:\n{}", findings.join("\n"));
        executions += report.executions;
        outputs += report.outputs_tried;
        witnesses += report.witnesses_tried;
    }
    println!(
        "corpus soundness: {executions} block executions, {outputs} output changes, {witnesses} witness changes, none accepted"
    );
    assert!(executions >= 100 && outputs >= 1000 && witnesses >= 1000);
}

#[test]
fn check_soundness_on_the_command_line() {
    let out = common::zkbc(&[
        "check",
        "circuits/gcd.zok",
        "--inputs",
        "circuits/gcd.json",
        "--soundness",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("circuits/gcd.zok: soundness: 3 block executions,")
            && stdout.contains(" 0 accepted"),
        "{stdout}"
    );
}
