//! A computation both arms of an `if` need is done once (issue 34, item 4): the sealed-bid
//! opening `tests/support/sealed_bid/sealed_bid_reveal.zok` computes the SHA-256 of the same message in each arm;
//! in one block (`--monolithic`) it costs one SHA-256, at most the 52,088 constraints ZoKrates
//! 0.8.8 compiles the same program to (the number is ZoKrates', not zkbc's). Its outputs are
//! computed by `expected.py` beside it with Python's hashlib. `gvn` shares the arms' hints
//! under the union of their guards where it proves that is sound (`src/opt/gvn/hints.rs`), then
//! numbers what both arms build on them as one.

use crate::common;
use common::read_json;
use std::path::Path;
use zkbc::ir::InstKind;
use zkbc::opt::OptLevel;
use zkbc::report::measure::{measure, Measurement, Merging, Settings};

/// ZoKrates 0.8.8's constraints for the sealed-bid program.
const ZOKRATES_CONSTRAINTS: u128 = 52_088;

#[test]
fn sealed_bid_costs_one_sha256_in_one_block() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/sealed_bid");
    let file = dir.join("sealed_bid_reveal.zok");
    let source = std::fs::read_to_string(&file).expect("the program");
    let inputs = read_json(&dir.join("sealed_bid_reveal.json"));
    let expected = read_json(&dir.join("sealed_bid_reveal.expected.json"));
    let settings = Settings {
        opt_level: OptLevel::O3,
        merging: Merging::Monolithic,
        baselines: false,
        keep_ir: false,
        ..Settings::default()
    };
    let m = measure(
        &file.display().to_string(),
        &source,
        Some(&inputs),
        &settings,
        &|_| {},
    )
    .expect("measures");
    assert_eq!(m.report.satisfied, Some(true), "every executed block holds");
    assert_eq!(
        m.report.outputs.as_ref(),
        Some(&expected["outputs"]),
        "the outputs Python computed"
    );
    let t = &m.report.totals;
    assert_eq!(t.blocks, 1, "one block");
    assert!(
        t.constraints <= ZOKRATES_CONSTRAINTS,
        "{} constraints, above ZoKrates' {ZOKRATES_CONSTRAINTS}: the SHA-256 is computed twice?",
        t.constraints
    );
}

/// `f` unpacks its argument to 128 witnessed bits (128 hints) and sums a few of them.
const PURE_CALL: &str = r#"
import "utils/pack/bool/unpack128" as unpack128;

def f(field x) -> field {
    bool[128] b = unpack128(x);
    return (b[127] ? 1 : 0) + (b[120] ? 2 : 0) + (b[64] ? 4 : 0);
}
"#;

/// Measures `main` (after [`PURE_CALL`]) in one block at `-O3` on `x` and `c`, checking that
/// every execution is satisfied and the output is `expected`.
fn one_block(main: &str, x: u128, c: u64, expected: u64) -> Measurement {
    let source = format!("{PURE_CALL}\n{main}");
    let inputs = serde_json::json!({ "x": x.to_string(), "c": c.to_string() });
    let settings = Settings {
        opt_level: OptLevel::O3,
        merging: Merging::Monolithic,
        baselines: false,
        keep_ir: true,
        ..Settings::default()
    };
    let m = measure("arms.zok", &source, Some(&inputs), &settings, &|_| {}).expect("measures");
    assert_eq!(m.report.satisfied, Some(true), "every executed block holds");
    assert_eq!(
        m.report.outputs,
        Some(serde_json::json!([expected.to_string()])),
        "{main} on x = {x}, c = {c}"
    );
    m
}

/// How many `hint`s the optimized program has.
fn hints(m: &Measurement) -> usize {
    let program = &m.compilation.program;
    program
        .funcs
        .iter()
        .flat_map(|f| {
            f.layout
                .iter()
                .flat_map(move |b| f.block(*b).insts.iter().map(move |i| (f, *i)))
        })
        .filter(|(f, i)| matches!(f.inst(*i).kind, InstKind::Hint { .. }))
        .count()
}

/// The same pure call in both arms of an `if` statement is computed once: the one-block program
/// has the hints of one call, as many as the program that calls it once before the branch.
#[test]
fn a_call_in_both_arms_is_computed_once() {
    let both_arms = "def main(field x, field c) -> field {
    field mut r = 0;
    if c != 0 { r = f(x) + 1; } else { r = f(x) * 2; }
    return r;
}";
    let once = "def main(field x, field c) -> field {
    field y = f(x);
    field mut r = 0;
    if c != 0 { r = y + 1; } else { r = y * 2; }
    return r;
}";
    // x = 2^127 + 2^7 + 1: bits 127, 7 and 0 are b[0], b[120] and b[127] (most significant
    // first), so f(x) = 1 + 2.
    let x = (1u128 << 127) + (1 << 7) + 1;
    for (c, expected) in [(1, 4), (0, 6)] {
        let shared = one_block(both_arms, x, c, expected);
        let reference = one_block(once, x, c, expected);
        assert_eq!(
            hints(&shared),
            hints(&reference),
            "the call is computed once per arm"
        );
        // A second unpack would cost at least its 128 booleanity constraints; what is left of
        // each arm is its own guarded `sum == x` assertion.
        assert!(
            shared.report.totals.constraints < reference.report.totals.constraints + 128,
            "{} constraints with the call in both arms, {} with it once",
            shared.report.totals.constraints,
            reference.report.totals.constraints
        );
    }
}
