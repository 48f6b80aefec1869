//! Formation of a program that still calls (issue 33, docs/calls.md): a kept callee's loop is
//! unrolled into one block executed once per call, and the caller's branches around its calls
//! are merged, so a path written out level by level, kept with `--inline none`, has a small
//! fraction of the static circuit of `--inline all` at a sumcheck cost near it. Both sides are
//! compiled by zkbc; the test holds their ratio, no count.

use crate::common::calls;
use calls::{compile, run};

use zkbc::driver;
use zkbc::ir::interp;
use zkbc::opt::calls::Inline;
use zkbc::opt::OptLevel;
use zkbc::r1cs;

const LEVELS: usize = 8;

/// A compression-like function with a 128-round loop, called `LEVELS` times level by level, its
/// arguments chosen by a private direction bit (the Merkle path of docs/calls.md, smaller).
fn program() -> String {
    let mut s = String::from(
        "def mix(u32[8] a, u32[8] b) -> u32[8] {
    u32[8] mut s = a;
    for u32 i in 0..128 {
        u32 t = (s[(i + 1) % 8] ^ b[i % 8]) + s[i % 8];
        s[i % 8] = (t << 3) | (t >> 29);
    }
    return s;
}

",
    );
    s.push_str(&format!(
        "def main(u32[8] leaf, private u32[{LEVELS}][8] path, private bool[{LEVELS}] dirs) -> u32[8] {{\n    u32[8] mut h = leaf;\n"
    ));
    for i in 0..LEVELS {
        s.push_str(&format!(
            "    h = mix(dirs[{i}] ? path[{i}] : h, dirs[{i}] ? h : path[{i}]);\n"
        ));
    }
    s.push_str("    return h;\n}\n");
    s
}

fn inputs() -> serde_json::Value {
    let word = |k: usize| serde_json::json!(((k * 2_654_435_761) % (1 << 32)).to_string());
    serde_json::json!({
        "leaf": (0..8).map(word).collect::<Vec<_>>(),
        "path": (0..LEVELS).map(|l| (0..8).map(|j| word(100 + 8 * l + j)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "dirs": (0..LEVELS).map(|l| l % 3 == 1).collect::<Vec<_>>(),
    })
}

/// Static constraints (the sum over distinct blocks) and the cells of a run on `inputs`.
fn measure(c: &mut driver::Compilation, inputs: &serde_json::Value) -> (u64, u128) {
    driver::legalize_for_r1cs(&mut c.program).unwrap();
    let stats = r1cs::stats(&c.program).unwrap();
    let constraints = stats.iter().map(|s| s.constraints as u64).sum();
    let values = c.inputs_from_json(inputs).unwrap();
    let outcome = interp::run(&c.program, &values, interp::Limits::default()).unwrap();
    r1cs::check_trace(&c.program, &outcome).expect("every executed block is satisfied");
    let mut runs = zkbc::cost::BlockCounts::default();
    for e in &outcome.trace {
        *runs.entry((e.func, e.block)).or_insert(0) += 1;
    }
    let cells = zkbc::cost::prediction_of(&stats, &runs).cells;
    (constraints, cells)
}

#[test]
fn a_kept_callee_is_formed_into_one_block_and_shrinks_the_static_circuit() {
    let text = program();
    let inputs = inputs();
    let mut all = compile("levels.zok", &text, OptLevel::O3, Inline::All);
    let mut none = compile("levels.zok", &text, OptLevel::O3, Inline::None);
    assert_eq!(run(&all, &inputs), run(&none, &inputs));
    let (c_all, cells_all) = measure(&mut all, &inputs);
    let (c_none, cells_none) = measure(&mut none, &inputs);
    println!("inlined: {c_all} constraints, {cells_all} cells; kept: {c_none}, {cells_none}");
    // The callee exists once instead of LEVELS times, and a level of `main` restores only what
    // it reads, without a second range check (docs/calls.md).
    assert!(
        c_none * 4 <= c_all,
        "kept: {c_none} constraints, inlined: {c_all}"
    );
    // Formed: its loop unrolled into one block run once per call (rolled, each of its 128
    // rounds would be a block execution with its transition: many times the cells).
    assert!(
        cells_none * 2 <= cells_all * 3,
        "kept: {cells_none} cells, inlined: {cells_all}"
    );
}
