//! The merge pass's tests that cannot be files of `tests/opt/` (where its text-in, text-out
//! tests are, run by `tests/filetests.rs` with a `; options:` line for the threshold rule or
//! `--monolithic`): random programs through `-O3` and `--monolithic` with their outputs
//! compared; `add_latches`, a step of the merge that no pass name runs alone; and loops of
//! thousands of iterations unrolled, whose merged programs are too long to write out, two of
//! them asserting how many constants the function's arenas keep, which the text does not show.

use expect_test::expect;
use zkbc::ir::interp;
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

use crate::common;

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
