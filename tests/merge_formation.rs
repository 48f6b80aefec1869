//! Cost-driven block formation and its loop transformations, text in and text out
//! (`UPDATE_EXPECT=1 cargo test --test all merge_formation::` refreshes the snapshots), each checked
//! by running the interpreter before and after on inputs that take every path.

use expect_test::{expect, Expect};
use zkbc::ir::interp::{self, Limits};
use zkbc::ir::{parse_program, verify, BlockId, Program};
use zkbc::opt::merge::{add_latches, rotate_loop, Subject, Verdict, DEFAULT_MAX_UNROLLED};

fn same_behaviour(before: &Program, after: &Program, inputs: &[&str]) {
    assert!(!inputs.is_empty());
    for input in inputs {
        let json: serde_json::Value = serde_json::from_str(input).unwrap();
        let values = interp::inputs_from_json(before, &json).unwrap();
        let a = interp::run(before, &values, Limits::default()).map(|o| o.outputs);
        let b = interp::run(after, &values, Limits::default()).map(|o| o.outputs);
        assert_eq!(
            a.map_err(|f| f.kind),
            b.map_err(|f| f.kind),
            "input {input}: behaviour changed\nbefore:\n{before}\nafter:\n{after}"
        );
    }
}

/// Rotates the loop at `header` of main, `k` iterations per block.
fn check_rotate(before: &str, header: u32, k: usize, inputs: &[&str], after: Expect) {
    let original = parse_program(before).unwrap();
    verify::verify_program(&original).unwrap();
    let mut rotated = original.clone();
    let main = rotated.main;
    rotate_loop(
        rotated.func_mut(main),
        BlockId(header),
        k,
        DEFAULT_MAX_UNROLLED,
    )
    .unwrap();
    verify::verify_program(&rotated).unwrap_or_else(|e| panic!("{e}\n{rotated}"));
    after.assert_eq(&rotated.normalized_text());
    same_behaviour(&original, &rotated, inputs);
}

const SQUARING: &str = "
fn main f0 -> field {
b0(v0: u32, v10: field):
    jmp b1(u32 0, v10)
b1(v1: u32, v2: field):
    v3 = eq v1, v0
    br v3, b3(), b2()
b2():
    v6 = mul v2, v2
    v7 = add nuw v1, u32 1
    jmp b1(v7, v6)
b3():
    return v2
}";

#[test]
fn a_loop_rotates_into_one_block_per_iteration() {
    check_rotate(
        SQUARING,
        1,
        1,
        &[r#"["0", "3"]"#, r#"["1", "3"]"#, r#"["5", "3"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32, v1: field):
                jmp b1()
            b1():
                v2 = eq u32 0, v0
                br v2, b3(v1), b2(u32 0, v1)
            b2(v3: u32, v4: field):
                v5 = mul v4, v4
                v6 = add nuw v3, u32 1
                v7 = eq v6, v0
                br v7, b3(v5), b2(v6, v5)
            b3(v8: field):
                return v8
            }
        "#]],
    );
}

#[test]
fn a_rotated_loop_unrolls_by_three_with_guarded_iterations() {
    check_rotate(
        SQUARING,
        1,
        3,
        &[
            r#"["0", "3"]"#,
            r#"["1", "3"]"#,
            r#"["2", "3"]"#,
            r#"["3", "3"]"#,
            r#"["7", "3"]"#,
        ],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: u32, v1: field):
                jmp b1()
            b1():
                v2 = eq u32 0, v0
                br v2, b3(v1), b2(u32 0, v1)
            b2(v3: u32, v4: field):
                v5 = mul v4, v4
                v6 = add nuw v3, u32 1
                v7 = eq v6, v0
                v8 = not v7
                v9 = mul v5, v5
                v10 = add v6, u32 1
                v11 = eq v10, v0
                v12 = and v8, v11
                v13 = not v11
                v14 = and v8, v13
                v15 = mul v9, v9
                v16 = add v10, u32 1
                v17 = eq v16, v0
                v18 = and v14, v17
                v19 = not v17
                v20 = and v14, v19
                v21 = select v17, u1 0, u1 1
                v22 = select v11, u1 0, v21
                v23 = select v11, v10, v16
                v24 = select v11, v9, v15
                v25 = select v11, v9, v15
                v26 = select v7, u1 0, v22
                v27 = select v7, v6, v23
                v28 = select v7, v5, v24
                v29 = select v7, v5, v25
                br v26, b2(v27, v28), b3(v29)
            b3(v30: field):
                return v30
            }
        "#]],
    );
}

/// An outer loop whose body holds a counted inner loop (`for i in 0..n { for j in 0..3 { .. } }`
/// at -O2): the inner loop's start reaches it through the edge rotation splits, bound to the
/// same constant by the header and its copy, so the inner loop keeps its constant bound and is
/// unrolled into the rotated body.
#[test]
fn a_loop_with_a_counted_inner_loop_rotates_with_the_inner_loop_unrolled() {
    check_rotate(
        "
fn main f0 -> field {
b0(v0: field, v1: u32):
    jmp b1(u32 0, v0)
b1(v4: u32, v29: field):
    v5 = eq v4, v1
    br v5, b3(), b4(u32 0, v29)
b3():
    return v29
b4(v8: u32, v30: field):
    v9 = eq v8, u32 3
    br v9, b9(), b5()
b5():
    v11 = mul v30, v0
    v13 = add v11, v30
    v15 = add nuw v8, u32 1
    jmp b4(v15, v13)
b9():
    v26 = add nuw v4, u32 1
    jmp b1(v26, v30)
}",
        1,
        1,
        &[r#"["2", "0"]"#, r#"["2", "1"]"#, r#"["5", "4"]"#],
        expect![[r#"
            fn main f0 -> field {
            b0(v0: field, v1: u32):
                jmp b1()
            b1():
                v2 = eq u32 0, v1
                br v2, b3(v0), b2(v0, u32 0)
            b2(v3: field, v4: u32):
                v5 = mul v3, v0
                v6 = add v5, v3
                v7 = mul v6, v0
                v8 = add v7, v6
                v9 = mul v8, v0
                v10 = add v9, v8
                v11 = add nuw v4, u32 1
                v12 = eq v11, v1
                br v12, b3(v10), b2(v10, v11)
            b3(v13: field):
                return v13
            }
        "#]],
    );
}

#[test]
fn a_loop_whose_if_ends_the_body_gets_one_latch() {
    let text = "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0, u32 0)
b1(v1: u32, v2: u32):
    v3 = eq v1, v0
    br v3, b3(), b2()
b2():
    v4 = add nuw v1, u32 1
    v5 = lt u32 5, v2
    br v5, b4(), b5()
b3():
    return v2
b4():
    v6 = sub nuw v2, u32 3
    jmp b1(v4, v6)
b5():
    v7 = add nuw v2, u32 2
    jmp b1(v4, v7)
}";
    let original = parse_program(text).unwrap();
    let mut latched = original.clone();
    let main = latched.main;
    assert_eq!(add_latches(latched.func_mut(main)), 1);
    verify::verify_program(&latched).unwrap_or_else(|e| panic!("{e}\n{latched}"));
    expect![[r#"
        fn main f0 -> u32 {
        b0(v0: u32):
            jmp b1(u32 0, u32 0)
        b1(v1: u32, v2: u32):
            v3 = eq v1, v0
            br v3, b6(), b2()
        b2():
            v4 = add nuw v1, u32 1
            v5 = lt u32 5, v2
            br v5, b4(), b3()
        b3():
            v6 = add nuw v2, u32 2
            jmp b5(v4, v6)
        b4():
            v7 = sub nuw v2, u32 3
            jmp b5(v4, v7)
        b5(v8: u32, v9: u32):
            jmp b1(v8, v9)
        b6():
            return v2
        }
    "#]]
    .assert_eq(&latched.normalized_text());
    same_behaviour(&original, &latched, &[r#"["0"]"#, r#"["9"]"#]);
    // With one latch the `if` is a component, and the loop rotates.
    let mut rotated = latched.clone();
    rotate_loop(rotated.func_mut(main), BlockId(1), 2, DEFAULT_MAX_UNROLLED).unwrap();
    verify::verify_program(&rotated).unwrap_or_else(|e| panic!("{e}\n{rotated}"));
    same_behaviour(&original, &rotated, &[r#"["0"]"#, r#"["1"]"#, r#"["9"]"#]);
}

/// The Keccak-256 yardstick of ZoKrates' library, compiled with the built-in library (`None`
/// when `../shared` is not beside the crate).
fn keccak_yardstick() -> Option<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates-stdlib/yardsticks/keccak256_u8_64.zok"))
        .find(|p| p.is_file())?;
    let source = std::fs::read_to_string(&path).ok()?;
    Some((path.display().to_string(), source))
}

/// Cost-driven formation takes every function as one block in the round where that beats the
/// round's best merge, and leaves unscored the candidates whose untouched blocks alone already
/// cost more. Each such candidate, merged and scored here as formation would have, costs more
/// than the one block: the bound that let formation skip it held.
#[test]
fn one_block_is_taken_early_and_the_candidates_it_outruns_cost_more() {
    use zkbc::analysis::MergeComponents;
    use zkbc::cost::{predict, Counts};
    use zkbc::driver;
    use zkbc::opt::merge::{merge_component, Subject, Verdict};
    use zkbc::report::measure;

    let Some((name, source)) = keccak_yardstick() else {
        eprintln!("skipped: no ../shared/peers/zokrates-stdlib beside the crate");
        return;
    };
    let compiled = driver::compile(&name, &source, &driver::Options::default()).expect("compiles");
    let decisions: Vec<_> = compiled
        .opt_report
        .runs
        .iter()
        .flat_map(|r| r.stats.decisions.iter().cloned())
        .collect();
    let one_block = decisions
        .iter()
        .find(|d| d.subject == Subject::OneBlock)
        .unwrap_or_else(|| panic!("every function as one block was never a move: {decisions:#?}"));
    assert_eq!(one_block.verdict, Verdict::Taken);
    let mono_cells = one_block.cells_taken.expect("scored");
    assert!(one_block.cells_kept.expect("scored") > mono_cells);
    assert_eq!(compiled.program.main_func().layout.len(), 1);

    // The program formation started from (the -O2 pipeline and the latches), and the
    // candidates of that round it did not score.
    let settings = measure::Settings::default();
    let start = measure::before_merging(&name, &source, None, &settings, &|_| {})
        .expect("measures")
        .compilation
        .program;
    let outrun: Vec<_> = decisions
        .iter()
        .filter(|d| d.round == one_block.round && d.reason.starts_with("not scored"))
        .collect();
    assert!(
        !outrun.is_empty(),
        "no candidate was outrun: {decisions:#?}"
    );
    let mut checked = 0;
    let label = |b: &str| BlockId(b.trim_start_matches('b').parse().expect("a label"));
    for d in &outrun {
        let mut program = start.clone();
        let find = |program: &Program, name: &str| {
            program
                .func_ids()
                .find(|&f| program.func(f).name == name)
                .expect("the function")
        };
        let merged = match &d.subject {
            Subject::Component { func, head, .. } => {
                let f = find(&program, func);
                let comp = MergeComponents::new(program.func(f))
                    .component(label(head))
                    .cloned()
                    .expect("the component");
                merge_component(program.func_mut(f), &comp, DEFAULT_MAX_UNROLLED)
            }
            Subject::Loop {
                func,
                header,
                per_block,
                ..
            } => {
                let f = find(&program, func);
                rotate_loop(
                    program.func_mut(f),
                    label(header),
                    *per_block,
                    DEFAULT_MAX_UNROLLED,
                )
                .map(|_| ())
            }
            other => panic!("outrun: {other:?}"),
        };
        if merged.is_err() {
            continue;
        }
        zkbc::opt::sccp::run(&mut program);
        zkbc::opt::gvn::run(&mut program);
        zkbc::opt::ranges::run(&mut program);
        zkbc::opt::dce::run(&mut program);
        zkbc::opt::simplify_cfg::run(&mut program);
        let cells = predict(&program, &Counts::Static).expect("lowers").cells;
        assert!(
            cells > mono_cells,
            "{:?} costs {cells} cells, not more than one block's {mono_cells}",
            d.subject
        );
        checked += 1;
    }
    println!(
        "{checked} of {} outrun candidates merged and scored",
        outrun.len()
    );
    assert!(checked > 0, "no outrun component could be merged");

    // The candidates that round did score (on this program the bounds now rule out every
    // one: the rounds' loop rotated is bounded too) are in the record too, kept, each
    // predicted above the one block that was taken instead.
    let scored: Vec<_> = decisions
        .iter()
        .filter(|d| d.round == one_block.round && d.subject != Subject::OneBlock)
        .filter(|d| !d.reason.starts_with("not scored"))
        .collect();
    println!("{} candidates of that round scored", scored.len());
    for d in scored {
        assert_eq!(d.verdict, Verdict::Kept, "{d:?}");
        let cells = d.cells_taken.expect("scored");
        assert!(
            cells > mono_cells,
            "{d:?}: {cells} cells, not more than {mono_cells}"
        );
    }
}

/// With a profile, formation runs the program once: the counts of every candidate it scores
/// (the loop rotated with 1, 2, ... iterations per block, then the rotated loop again) follow
/// from that run's. (Debug builds also run each such candidate and compare, in the scorer.)
#[test]
fn a_profiled_formation_runs_the_program_once() {
    let source = "def main(private field x, u32 n) -> field {
    field mut acc = x;
    for u32 i in 0..n {
        acc = acc * acc + x;
    }
    return acc;
}
";
    let runs = std::rc::Rc::new(zkbc::cost::RunCache::default());
    let options = zkbc::driver::Options {
        profile: Some(serde_json::json!({"x": "3", "n": "1000"})),
        session: zkbc::driver::Session::sharing_runs(runs.clone()),
        ..Default::default()
    };
    let compiled = zkbc::driver::compile("loop.zok", source, &options).unwrap();
    let merge = compiled
        .opt_report
        .runs
        .iter()
        .find(|r| r.name == "merge")
        .expect("-O3 merges");
    let scored_rotations = merge
        .stats
        .decisions
        .iter()
        .filter(|d| matches!(d.subject, Subject::Loop { .. }) && d.cells_taken.is_some())
        .count();
    assert!(scored_rotations >= 2, "{:#?}", merge.stats.decisions);
    assert!(merge
        .stats
        .decisions
        .iter()
        .any(|d| matches!(d.subject, Subject::Loop { .. }) && d.verdict == Verdict::Taken));
    assert!(merge.stats.get("counts_derived") >= scored_rotations);
    assert_eq!(runs.runs(), 1, "profile runs");
}
