//! Programs the random-program search found merging wrongly, kept as regression tests.

use zkbc::driver;
use zkbc::report::measure::{Merging, Settings};

fn run(source: &str, merging: Merging, inputs: serde_json::Value) -> serde_json::Value {
    let options = Settings {
        merging,
        ..Settings::default()
    }
    .driver_options();
    let compiled = driver::compile("regression.zok", source, &options).unwrap();
    let values = compiled.inputs_from_json(&inputs).unwrap();
    let outcome = zkbc::ir::interp::run(&compiled.program, &values, Default::default()).unwrap();
    compiled.outputs_to_json(&outcome.outputs)
}

/// An early return inside a counted loop: each iteration's exit must return that iteration's
/// `i`. Unrolling once renamed `i` to its last copy for every exit (`5` instead of `0`); exit
/// edges now carry the copies of the loop's values that are used after the loop.
#[test]
fn early_return_in_an_unrolled_loop_returns_its_own_iteration() {
    let source =
        std::fs::read_to_string("tests/reliability_findings/monolithic_early_return.zok").unwrap();
    for (c, expected) in [(true, "0"), (false, "9")] {
        let inputs = serde_json::json!({ "c": c });
        for merging in [Merging::Monolithic, Merging::Default, Merging::Off] {
            assert_eq!(
                run(&source, merging, inputs.clone()),
                serde_json::json!({ "outputs": [expected] }),
                "{merging:?} c={c}"
            );
        }
    }
    // A value set in a later iteration than the exit.
    let source = "def main(u32 k) -> u32 {\n    u32 mut acc = 0;\n    for u32 i in 0..6 {\n        acc = acc + i;\n        if i == k {\n            return acc * 10;\n        }\n    }\n    return acc;\n}\n";
    for (k, expected) in [(0, "0"), (2, "30"), (5, "150"), (9, "15")] {
        let inputs = serde_json::json!({ "k": k });
        for merging in [Merging::Monolithic, Merging::Default] {
            assert_eq!(
                run(source, merging, inputs.clone()),
                serde_json::json!({ "outputs": [expected] }),
                "{merging:?} k={k}"
            );
        }
    }
}

/// The compiles an effect on a predicated path must survive: no merging, the cost-driven
/// default, the threshold rule and (where the program has one block's worth of loops)
/// `--monolithic`.
fn settings(monolithic: bool) -> Vec<(&'static str, driver::Options)> {
    let mut list = vec![
        (
            "-O0",
            driver::Options {
                opt_level: zkbc::opt::OptLevel::O0,
                ..driver::Options::default()
            },
        ),
        ("-O3", driver::Options::default()),
    ];
    let mut threshold = driver::Options::default();
    threshold.opt.merge.policy = zkbc::opt::merge::MergePolicy::Threshold;
    list.push(("-O3 --merge-policy threshold", threshold));
    if monolithic {
        let mut one = driver::Options::default();
        one.opt.merge.monolithic = true;
        list.push(("-O3 --monolithic", one));
    }
    list
}

/// What `source` returns and logs on `inputs` when compiled with `options`.
fn outputs_and_log(
    source: &str,
    options: &driver::Options,
    inputs: serde_json::Value,
    limits: zkbc::ir::interp::Limits,
) -> Result<(serde_json::Value, Vec<String>), String> {
    let compiled = driver::compile("regression.zok", source, options).map_err(|e| e.to_string())?;
    let values = compiled.inputs_from_json(&inputs)?;
    let outcome =
        zkbc::ir::interp::run(&compiled.program, &values, limits).map_err(|f| f.to_string())?;
    Ok((compiled.outputs_to_json(&outcome.outputs), outcome.log))
}

/// A `log` in a branch prints exactly when the branch runs. Merging copied it unguarded (x = 2
/// printed `x is one: "2"`), and folded a `log` without arguments away as if it computed
/// nothing (x = 1 lost `in the branch`).
#[test]
fn a_log_on_a_predicated_path_prints_only_when_the_path_runs() {
    let source = "def main(field x) -> field {\n    field mut y = 0;\n    if x == 1 {\n        log(\"x is one: {}\", x);\n        log(\"in the branch\");\n        y = 5;\n    }\n    return y;\n}\n";
    for (name, options) in settings(true) {
        for (x, output, log) in [
            ("1", "5", vec!["x is one: \"1\"", "in the branch"]),
            ("2", "0", vec![]),
        ] {
            let got = outputs_and_log(
                source,
                &options,
                serde_json::json!({ "x": x }),
                Default::default(),
            );
            assert_eq!(
                got,
                Ok((
                    serde_json::json!({ "outputs": [output] }),
                    log.iter().map(|s| s.to_string()).collect()
                )),
                "{name} x={x}"
            );
        }
    }
}

/// A hint on an untaken path does not run: merged, the countdown ran for every `x` (x = 4e9
/// exhausted the step limit where the unmerged program returns at once).
#[test]
fn a_hint_on_an_untaken_path_does_not_run() {
    let source = "def countdown(u32 n) -> u32 {\n    u32 mut i = n;\n    while i > 0 {\n        i = i - 1;\n    }\n    return i;\n}\n\ndef main(u32 x) -> field {\n    field mut y = 7;\n    if x < 10 {\n        asm {\n            y <-- u32_to_field(countdown(x) + 1);\n        }\n    }\n    return y;\n}\n";
    let limits = zkbc::ir::interp::Limits {
        max_steps: 100_000,
        ..Default::default()
    };
    // The countdown runs only as a hint: `--monolithic` makes the circuit one block and leaves
    // the hint's own loop alone.
    for (name, options) in settings(true) {
        for (x, output) in [(3u64, "1"), (4_000_000_000, "7")] {
            let got = outputs_and_log(source, &options, serde_json::json!({ "x": x }), limits);
            assert_eq!(
                got,
                Ok((serde_json::json!({ "outputs": [output] }), vec![])),
                "{name} x={x}"
            );
        }
    }
}

/// Issue 20's generator (seed 30,031,050, shrunk): a counted loop whose body breaks to the
/// component's tail, which uses the loop header's parameter `v3` directly. The tail was given
/// the last iteration's copy of `v3` whichever exit was taken (`["3125"]`, 5^5, for `["5"]`);
/// edges into the tail now carry the copies of the loop's values, combined like arguments.
#[test]
fn a_break_to_the_tail_uses_its_own_iterations_value() {
    use expect_test::expect;
    use zkbc::ir::interp::{inputs_from_json, run_logged, Limits};
    use zkbc::opt::{optimize, Options, Pipeline};
    let text =
        std::fs::read_to_string("tests/reliability_findings/merge_break_exit_value.ir").unwrap();
    let before = zkbc::ir::parse_program(&text).unwrap();
    let mut after = before.clone();
    let options = Options {
        verify: true,
        ..Options::default()
    };
    optimize(
        &mut after,
        &Pipeline::from_names(&["merge"]).unwrap(),
        &options,
    )
    .unwrap();
    expect![[r#"
        fn main f0 -> field {
        b0(v0: field):
            v1 = le v0, field 1000
            v2 = mul v0, v0
            v3 = mul v0, v2
            v4 = mul v0, v3
            v5 = mul v0, v4
            v6 = select v1, v4, v5
            v7 = select v1, v3, v6
            v8 = select v1, v2, v7
            v9 = select v1, v0, v8
            return v9
        }
    "#]]
    .assert_eq(&after.normalized_text());
    for (input, expected) in [("5", "5"), ("1001", "1005010010005001")] {
        let json = serde_json::json!([input]);
        let values = inputs_from_json(&before, &json).unwrap();
        for program in [&before, &after] {
            let (outputs, _) = run_logged(program, &values, Limits::default());
            let out = outputs.unwrap()[0].to_json(&zkbc::ir::Type::Field);
            assert_eq!(out, serde_json::json!(expected), "input {input}\n{program}");
        }
    }
}
