//! The merge pass as text in, text out (`UPDATE_EXPECT=1 cargo test` refreshes the snapshots):
//! each test merges an IR program, snapshots the normalized result, and runs the interpreter
//! before and after on inputs chosen to take every path, including the ones that fail: merged
//! code must fail exactly when the original path fails. Random programs go through `-O3` and
//! `--monolithic` with their outputs compared.

use expect_test::{expect, Expect};
use zkbc::ir::interp::{self, Limits};
use zkbc::ir::{parse_program, verify, Program};
use zkbc::opt::merge::{MergeOptions, MergePolicy};
use zkbc::opt::{optimize, OptError, OptLevel, Options, Pipeline};
use zkbc_testkit::random_ir::{compare_runs, random_program};

/// The threshold rule (or monolithic): these tests are about how a component is merged;
/// `tests/merge_formation.rs` is about which are.
fn merge_options(monolithic: bool) -> Options {
    Options {
        verify: true,
        merge: MergeOptions {
            monolithic,
            policy: MergePolicy::Threshold,
            ..MergeOptions::default()
        },
        ..Options::default()
    }
}

fn run_merge(before: &str, monolithic: bool) -> Result<(Program, Program), OptError> {
    let original = parse_program(before).unwrap_or_else(|e| panic!("bad test IR: {e}"));
    verify::verify_program(&original).unwrap_or_else(|e| panic!("invalid test IR:\n{e}"));
    let mut merged = original.clone();
    let pipeline = Pipeline::from_names(&["merge"]).unwrap();
    optimize(&mut merged, &pipeline, &merge_options(monolithic))?;
    Ok((original, merged))
}

/// Merges `before` (with a threshold, or monolithic), compares with `after`, and checks that
/// every input gives the same outputs and log lines, or the same failure, before and after.
fn check_merge(monolithic: bool, before: &str, inputs: &[&str], after: Expect) {
    let (original, merged) = run_merge(before, monolithic).unwrap();
    after.assert_eq(&merged.normalized_text());
    assert!(!inputs.is_empty(), "a merge test needs inputs");
    for input in inputs {
        let json: serde_json::Value = serde_json::from_str(input).unwrap();
        let values = interp::inputs_from_json(&original, &json).unwrap();
        let a = interp::run(&original, &values, Limits::default()).map(|o| (o.outputs, o.log));
        let b = interp::run(&merged, &values, Limits::default()).map(|o| (o.outputs, o.log));
        assert_eq!(
            a.map_err(|f| f.kind),
            b.map_err(|f| f.kind),
            "input {input}: behaviour changed\nbefore:\n{original}\nafter:\n{merged}"
        );
    }
}

#[test]
fn a_diamond_becomes_selects_and_the_untaken_division_cannot_fail() {
    // b1 divides by v1: it fails for v1 = 0 only when v0 < 10.
    check_merge(
        false,
        "
fn main f0 -> field {
b0(v0: u32, v1: field):
    v2 = lt v0, u32 10
    br v2, b1(), b2(field 0)
b1():
    v3 = div field 1, v1
    jmp b2(v3)
b2(v4: field):
    v5 = add v4, field 1
    return v5
}",
        &[
            r#"["3", "0"]"#,
            r#"["3", "5"]"#,
            r#"["30", "0"]"#,
            r#"["30", "5"]"#,
        ],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32, v1: field):
                v2 = lt v0, u32 10
                v3 = not v2
                v4 = select v2, v1, field 1
                v5 = div field 1, v4
                v6 = select v2, v5, field 0
                v7 = add v6, field 1
                return v7
            }
        "#]],
    );
}

#[test]
fn guarded_assert_index_and_cast_fail_only_on_their_path() {
    check_merge(
        false,
        r#"
fn main f0 -> u8 {
b0(v0: u1, v1: u32, v2: field, v3: [u8; 3]):
    br v0, b1(), b2()
b1():
    v4 = array_get v3, v1
    v5 = cast v2 to u8
    v6 = add v4, v5
    v7 = lt v6, u8 100
    assert v7, "small"
    jmp b3(v6)
b2():
    v8 = udiv u8 7, u8 2
    jmp b3(v8)
b3(v9: u8):
    return v9
}"#,
        &[
            r#"["1", "1", "5", ["1", "2", "3"]]"#,
            r#"["1", "7", "5", ["1", "2", "3"]]"#,
            r#"["1", "1", "300", ["1", "2", "3"]]"#,
            r#"["1", "1", "99", ["1", "2", "3"]]"#,
            r#"["0", "7", "300", ["1", "2", "3"]]"#,
            r#"["0", "1", "5", ["1", "2", "3"]]"#,
        ],
        expect![[r#"
            fn main f0 -> u8 {
            b0(v0: u1, v1: u32, v2: field, v3: [u8; 3]):
                v4 = not v0
                v5 = select v0, v1, u32 0
                v6 = array_get v3, v5
                v7 = select v0, v2, field 0
                v8 = cast v7 to u8
                v9 = add v6, v8
                v10 = lt v9, u8 100
                v11 = or v4, v10
                assert v11, "small"
                v12 = select v0, v9, u8 3
                return v12
            }
        "#]],
    );
}

#[test]
fn logs_and_hints_are_guarded_by_their_path() {
    // Each arm logs and runs a hint; merged, each keeps its arm's guard, and a log that already
    // had a guard gets the conjunction. A hint whose guard is 0 gives 0 without running.
    check_merge(
        false,
        r#"
fn main f0 -> field {
b0(v0: u1, v1: field, v2: u1):
    br v0, b1(), b2()
b1():
    log "then {}", v1
    log "then, if v2" if v2
    v3 = hint f1(v1)
    jmp b3(v3)
b2():
    log "else"
    v4 = hint f1(field 2)
    jmp b3(v4)
b3(v5: field):
    return v5
}

fn square f1 -> field {
b0(v0: field):
    v1 = mul v0, v0
    return v1
}"#,
        &[
            r#"["1", "3", "1"]"#,
            r#"["1", "3", "0"]"#,
            r#"["0", "3", "1"]"#,
            r#"["0", "3", "0"]"#,
        ],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u1, v1: field, v2: u1):
                v3 = not v0
                log "else" if v3
                v4 = hint f1(field 2) if v3
                log "then {}", v1 if v0
                v5 = and v0, v2
                log "then, if v2" if v5
                v6 = hint f1(v1) if v0
                v7 = select v0, v6, v4
                return v7
            }

            fn square f1 -> field {
            b0(v0: field):
                v1 = mul v0, v0
                return v1
            }
        "#]],
    );
}

#[test]
fn a_counted_loop_is_unrolled() {
    check_merge(
        false,
        "
fn main f0 -> field {
b0(v0: field):
    jmp b1(u32 0, field 0)
b1(v1: u32, v2: field):
    v3 = lt v1, u32 3
    br v3, b2(), b3()
b2():
    v4 = mul v2, v0
    v5 = add v4, v0
    v6 = add v1, u32 1
    jmp b1(v6, v5)
b3():
    return v2
}",
        &[r#"["2"]"#, r#"["7"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field):
                v1 = mul field 0, v0
                v2 = add v1, v0
                v3 = mul v2, v0
                v4 = add v3, v0
                v5 = mul v4, v0
                v6 = add v5, v0
                return v6
            }
        "#]],
    );
}

#[test]
fn a_branch_inside_a_counted_loop_is_predicated_per_iteration() {
    check_merge(
        true,
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, u32 0)
b1(v1: u32, v2: u32):
    v3 = lt v1, u32 2
    br v3, b2(), b5()
b2():
    v4 = lt v1, v0
    br v4, b3(), b4(v2)
b3():
    v5 = udiv v0, v1
    jmp b4(v5)
b4(v6: u32):
    v7 = add v1, u32 1
    jmp b1(v7, v6)
b5():
    return v2
}",
        &[r#"["0"]"#, r#"["1"]"#, r#"["5"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                v1 = lt u32 0, v0
                v2 = not v1
                v3 = select v1, u32 0, u32 1
                v4 = udiv v0, v3
                v5 = select v1, v4, u32 0
                v6 = lt u32 1, v0
                v7 = not v6
                v8 = udiv v0, u32 1
                v9 = select v6, v8, v5
                return v9
            }
        "#]],
    );
}

#[test]
fn an_early_return_inside_a_counted_loop_merges_monolithically() {
    check_merge(
        true,
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0)
b1(v1: u32):
    v2 = lt v1, u32 3
    br v2, b2(), b4()
b2():
    v3 = eq v1, v0
    br v3, b3(), b5()
b3():
    return u32 100
b5():
    v4 = add v1, u32 1
    jmp b1(v4)
b4():
    return v1
}",
        &[r#"["0"]"#, r#"["2"]"#, r#"["9"]"#],
        expect![[r#"
            fn main f0 -> u32 {
            b0(v0: u32):
                v1 = eq u32 0, v0
                v2 = not v1
                v3 = eq u32 1, v0
                v4 = and v2, v3
                v5 = not v3
                v6 = and v2, v5
                v7 = eq u32 2, v0
                v8 = and v6, v7
                v9 = not v7
                v10 = and v6, v9
                v11 = or v4, v8
                v12 = select v4, u32 1, u32 2
                v13 = or v1, v11
                v14 = select v1, u32 0, v12
                v15 = or v10, v13
                v16 = select v10, u32 3, u32 100
                return v16
            }
        "#]],
    );
}

const RUNTIME_LOOP: &str = "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, u32 0)
b1(v1: u32, v2: u32):
    v3 = lt v1, v0
    br v3, b2(), b3()
b2():
    v4 = add v2, v1
    v5 = add v1, u32 1
    jmp b1(v5, v4)
b3():
    return v2
}";

#[test]
fn a_runtime_loop_bound_is_never_unrolled() {
    // With a threshold the loop is left alone ...
    let (_, merged) = run_merge(RUNTIME_LOOP, false).unwrap();
    assert_eq!(merged.main_func().layout.len(), 4);
    // ... and a single circuit does not exist.
    let err = run_merge(RUNTIME_LOOP, true).unwrap_err();
    expect!["cannot merge `main` into one block: the loop at b1 has a bound that is not a compile-time constant, so it cannot be unrolled (compile without --monolithic to prove it block by block)"]
    .assert_eq(&err.to_string());
}

#[test]
fn a_huge_loop_is_a_clear_error_not_an_exhausted_memory() {
    // The sum starts from the parameter: every iteration emits six of the dozen instructions
    // it visits, so the emitted ones reach the limit first.
    let source = RUNTIME_LOOP
        .replace("v3 = lt v1, v0", "v3 = lt v1, u32 4000000000")
        .replace("jmp b1(u32 0, u32 0)", "jmp b1(u32 0, v0)")
        .replace(
            "v4 = add v2, v1",
            "v6 = mul v2, v1\n    v7 = mul v6, v2\n    v8 = add v7, v6\n    v9 = mul v8, v2\n    \
             v10 = add v9, v1\n    v4 = add v10, v1",
        );
    let err = run_merge(&source, true).unwrap_err();
    expect!["cannot merge `main` into one block: unrolling its loops would emit more than 1000000 instructions"]
    .assert_eq(&err.to_string());
}

#[test]
fn a_huge_loop_that_folds_away_is_bounded_by_its_visits() {
    // The sum starts from 0: every iteration folds, nothing is emitted, and the merge stops
    // after visiting eight times `--max-unrolled` instructions (made small here).
    let source = RUNTIME_LOOP.replace("v3 = lt v1, v0", "v3 = lt v1, u32 4000000000");
    let mut program = parse_program(&source).unwrap();
    let options = zkbc::opt::merge::MergeOptions {
        monolithic: true,
        max_unrolled: 10_000,
        ..Default::default()
    };
    let err = zkbc::opt::merge::run_with(&mut program, &options).unwrap_err();
    expect!["cannot merge `main` into one block: unrolling its loops would visit more than 80000 instructions (8 times --max-unrolled 10000; most of them fold away)"]
    .assert_eq(&err.to_string());
    // Within the visits, the same loop folds to a constant.
    let source = RUNTIME_LOOP.replace("v3 = lt v1, v0", "v3 = lt v1, u32 1000");
    let original = parse_program(&source).unwrap();
    let mut merged = original.clone();
    zkbc::opt::merge::run_with(&mut merged, &options).unwrap();
    assert_eq!(merged.main_func().layout.len(), 1);
    let values = interp::inputs_from_json(&original, &serde_json::json!(["7"])).unwrap();
    let a = interp::run(&original, &values, Limits::default())
        .unwrap()
        .outputs;
    let b = interp::run(&merged, &values, Limits::default())
        .unwrap()
        .outputs;
    assert_eq!(a, b);
}

#[test]
fn unrolling_folds_reads_of_a_constant_array() {
    // The bits of the unrolled counter are an array of constants: the select on one of them
    // folds in every iteration (n_choose_k's `2 ** (32 - j - 1)` in ZoKrates' `u32_to_field`).
    let source = "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, v0)
b1(v1: u32, v2: u32):
    v3 = lt v1, u32 32
    br v3, b2(), b3()
b2():
    v6 = to_bits v1
    v7 = array_get v6, u32 31
    v8 = select v7, u32 3, u32 5
    v4 = add v2, v8
    v5 = add v1, u32 1
    jmp b1(v5, v4)
b3():
    return v2
}";
    let (original, merged) = run_merge(source, true).unwrap();
    let text = merged.to_string();
    assert_eq!(merged.main_func().layout.len(), 1);
    assert!(!text.contains("select"), "a select was not folded:\n{text}");
    for x in ["0", "7", "4294967295"] {
        let values = interp::inputs_from_json(&original, &serde_json::json!([x])).unwrap();
        let a = interp::run(&original, &values, Limits::default()).map(|o| o.outputs);
        let b = interp::run(&merged, &values, Limits::default()).map(|o| o.outputs);
        assert_eq!(a.map_err(|f| f.kind), b.map_err(|f| f.kind), "input {x}");
    }
}

mod common;

/// Random programs through `-O3` (merging with the default threshold) and through `-O2` plus
/// `--monolithic`: the same outputs or failures; a monolithic program that merged is one block
/// per circuit function.
#[test]
fn random_programs_keep_their_behaviour_when_merged() {
    let seeds = common::random_seeds(0, 500);
    let cases = seeds.len() as u64;
    let mut monolithic_merged = 0;
    let mut threshold_merged = 0;
    for seed in seeds {
        let generated = random_program(seed);
        let mut o2 = generated.program.clone();
        optimize(&mut o2, &OptLevel::O2.pipeline(), &merge_options(false)).unwrap();
        let mut o3 = generated.program.clone();
        optimize(&mut o3, &OptLevel::O3.pipeline(), &merge_options(false)).unwrap();
        verify::verify_program(&o3).unwrap();
        if let Err(e) = compare_runs(&generated.program, &o3, &generated.inputs) {
            panic!("seed {seed} -O3: {e}\nbefore:\n{o2}\nafter:\n{o3}");
        }
        if o3.n_blocks() < o2.n_blocks() {
            threshold_merged += 1;
        }
        let mut mono = o2.clone();
        let pipeline = Pipeline {
            after: OptLevel::O3.pipeline().after,
            ..Pipeline::default()
        };
        match optimize(&mut mono, &pipeline, &merge_options(true)) {
            Ok(_) => {
                verify::verify_program(&mono).unwrap();
                if let Err(e) = compare_runs(&generated.program, &mono, &generated.inputs) {
                    panic!("seed {seed} --monolithic: {e}\nbefore:\n{o2}\nafter:\n{mono}");
                }
                // Functions only hints run are not part of the circuit, and not merged.
                let circuit = mono.circuit_funcs();
                assert!(
                    mono.funcs
                        .iter()
                        .enumerate()
                        .all(|(k, f)| !circuit[k] || f.layout.len() == 1),
                    "seed {seed}"
                );
                monolithic_merged += 1;
            }
            Err(OptError::Merge(_)) => {}
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    // Threshold merging needs every block lowerable (many random programs keep memory or
    // calls after -O2), so fewer of them merge that way.
    assert!(
        monolithic_merged * 4 > cases && threshold_merged * 20 > cases,
        "too few merged: {monolithic_merged} monolithic, {threshold_merged} with a threshold, of {cases}"
    );
}

/// A loop whose latch ends in `br` gets one latch block, laid out once, after the header
/// (`create_block` had already appended it to the layout, so it was laid out twice and the
/// clean-up after merging panicked: bubble_sort once GVN made its inner latch a `br`).
#[test]
fn a_latch_ending_in_a_branch_gets_one_latch_block() {
    let mut program = parse_program(
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, u32 0)
b1(v1: u32, v2: u32):
    v3 = eq v1, v0
    br v3, b3(), b2()
b2():
    v4 = add v1, u32 1
    v5 = lt v2, u32 3
    br v5, b1(v4, v1), b1(v4, v2)
b3():
    return v2
}",
    )
    .unwrap();
    let original = program.clone();
    let main = program.main;
    assert_eq!(zkbc::opt::merge::add_latches(program.func_mut(main)), 1);
    verify::verify_program(&program).unwrap();
    expect![[r#"
        fn main f0 -> u32 {
        b0(v0: u32):
            jmp b1(u32 0, u32 0)
        b1(v1: u32, v2: u32):
            v3 = eq v1, v0
            br v3, b4(), b2()
        b2():
            v4 = add v1, u32 1
            v5 = lt v2, u32 3
            br v5, b3(v4, v1), b3(v4, v2)
        b3(v6: u32, v7: u32):
            jmp b1(v6, v7)
        b4():
            return v2
        }
    "#]]
    .assert_eq(&program.normalized_text());
    let inputs: Vec<Vec<interp::Val>> = ["0", "5"]
        .iter()
        .map(|n| {
            let json: serde_json::Value = serde_json::from_str(&format!("[\"{n}\"]")).unwrap();
            interp::inputs_from_json(&original, &json).unwrap()
        })
        .collect();
    compare_runs(&original, &program, &inputs).unwrap();
}

/// The constants of `main` after merging `text` as one block, and the program before and after.
fn merged_constants(text: &str) -> (Program, Program, usize) {
    let (original, merged) = run_merge(text, true).unwrap();
    verify::verify_program(&merged).unwrap();
    let func = merged.main_func();
    assert_eq!(func.layout.len(), 1, "merged into one block");
    let constants = func
        .values
        .iter()
        .filter(|v| matches!(v.def, zkbc::ir::ValueDef::Const(_)))
        .count();
    (original, merged, constants)
}

fn same_runs(original: &Program, merged: &Program, inputs: &[&str]) {
    let inputs: Vec<Vec<interp::Val>> = inputs
        .iter()
        .map(|input| {
            let json: serde_json::Value = serde_json::from_str(input).unwrap();
            interp::inputs_from_json(original, &json).unwrap()
        })
        .collect();
    compare_runs(original, merged, &inputs).unwrap();
}

#[test]
fn unrolling_leaves_no_constant_per_iteration() {
    // 20,000 iterations whose counter is folded every time, read as an array index (`i urem 4`:
    // four constants), and returned after the loop (one constant).
    let (original, merged, constants) = merged_constants(
        "\
fn main f0 -> field, u32 {
b0(v0: field, v1: [field; 4]):
    jmp b1(v0, u32 0)
b1(v2: field, v3: u32):
    v4 = lt v3, u32 20000
    br v4, b2(), b3()
b2():
    v5 = mul v2, v2
    v6 = urem v3, u32 4
    v7 = array_get v1, v6
    v8 = add v5, v7
    v9 = add v3, u32 1
    jmp b1(v8, v9)
b3():
    return v2, v3
}
",
    );
    assert!(
        constants < 32,
        "{constants} constants after unrolling 20,000 iterations"
    );
    same_runs(
        &original,
        &merged,
        &[
            r#"["3", ["1", "2", "3", "4"]]"#,
            r#"["0", ["0", "0", "0", "0"]]"#,
        ],
    );
}

#[test]
fn a_counter_past_the_compact_range_folds_the_same() {
    // A `u64` counter crossing 2^27 (the largest constant folded without a value of its own),
    // cast to a field and summed: every value past the range is a constant of the function.
    let (original, merged, _) = merged_constants(
        "\
fn main f0 -> field, u64 {
b0(v0: field):
    jmp b1(v0, u64 134217000)
b1(v2: field, v3: u64):
    v4 = lt v3, u64 134218000
    br v4, b2(), b3()
b2():
    v5 = cast v3 to field
    v6 = add v2, v5
    v7 = add v3, u64 1
    jmp b1(v6, v7)
b3():
    return v2, v3
}
",
    );
    same_runs(&original, &merged, &[r#"["5"]"#, r#"["-1"]"#]);
}

#[test]
fn folded_field_constants_nothing_reads_are_dropped_after_the_merge() {
    // A field counter folds into a new field constant every iteration (field constants have no
    // virtual form); only the last is read, by the return. The merge drops the others.
    let (original, merged, constants) = merged_constants(
        "\
fn main f0 -> field, field {
b0(v0: field):
    jmp b1(v0, field 0, u32 0)
b1(v1: field, v2: field, v3: u32):
    v4 = lt v3, u32 5000
    br v4, b2(), b3()
b2():
    v5 = mul v1, v1
    v6 = add v2, field 1
    v7 = add v3, u32 1
    jmp b1(v5, v6, v7)
b3():
    return v1, v2
}
",
    );
    assert!(
        constants < 32,
        "{constants} constants after unrolling 5,000 iterations"
    );
    let field_consts = merged.main_func().field_consts.len();
    assert!(field_consts < 32, "{field_consts} field constants kept");
    same_runs(&original, &merged, &[r#"["3"]"#, r#"["0"]"#]);
}
