//! Pass tests as text in, text out: each runs the named passes on an IR program, snapshots the
//! normalized result (`UPDATE_EXPECT=1 cargo test` refreshes the snapshots), and runs the
//! interpreter before and after on the given inputs, which must give the same outputs (or the
//! same failure).

use expect_test::{expect, Expect};
use zkbc::ir::interp::{self, Limits};
use zkbc::ir::{parse_program, verify, Program};
use zkbc::opt::{optimize, Options, Pipeline};

/// Runs `passes` (comma-separated) once each on `before`, compares the normalized result with
/// `after`, and checks that every input (a JSON array, one entry per parameter of main) gives
/// the same outcome before and after.
fn check_pass(passes: &str, before: &str, inputs: &[&str], after: Expect) {
    let original = parse_program(before).unwrap_or_else(|e| panic!("bad test IR: {e}"));
    verify::verify_program(&original).unwrap_or_else(|e| panic!("invalid test IR:\n{e}"));
    let mut optimized = original.clone();
    let names: Vec<&str> = passes.split(',').collect();
    let pipeline = Pipeline::from_names(&names).unwrap();
    let options = Options {
        verify: true,
        ..Options::default()
    };
    optimize(&mut optimized, &pipeline, &options).unwrap();
    after.assert_eq(&optimized.normalized_text());
    assert!(!inputs.is_empty(), "a pass test needs at least one input");
    for input in inputs {
        assert_same_behaviour(&original, &optimized, input);
    }
}

fn outcome(program: &Program, input: &str) -> Result<Vec<serde_json::Value>, interp::FailureKind> {
    let json: serde_json::Value = serde_json::from_str(input).unwrap();
    let values = interp::inputs_from_json(program, &json).unwrap();
    let returns = &program.main_func().returns;
    interp::run(program, &values, Limits::default())
        .map(|o| {
            o.outputs
                .iter()
                .zip(returns)
                .map(|(v, t)| v.to_json(t))
                .collect()
        })
        .map_err(|f| f.kind)
}

fn assert_same_behaviour(before: &Program, after: &Program, input: &str) {
    let a = outcome(before, input);
    let b = outcome(after, input);
    assert_eq!(
        a, b,
        "input {input}: behaviour changed\nbefore:\n{before}\nafter:\n{after}"
    );
}

#[test]
fn mem2reg_promotes_a_loop_counter() {
    check_pass(
        "mem2reg,dce,simplify_cfg",
        "
fn main f0 -> u32 {
b0(v0: u32):
    v1 = allocate u32
    store u32 0 at v1
    jmp b1(u32 0)
b1(v2: u32):
    v3 = lt v2, v0
    br v3, b2(), b3()
b2():
    v4 = load v1
    v5 = add v4, v2
    store v5 at v1
    v6 = add v2, u32 1
    jmp b1(v6)
b3():
    v8 = load v1
    return v8
}",
        &[r#"["0"]"#, r#"["5"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                jmp b1(u32 0, u32 0)
            b1(v1: u32, v2: u32):
                v3 = lt v1, v0
                br v3, b3(), b2()
            b2():
                return v2
            b3():
                v4 = add v2, v1
                v5 = add v1, u32 1
                jmp b1(v5, v4)
            }
        "#]],
    );
}
