//! Inline or call, decided by cost (`--inline cost`, docs/calls.md): every corpus program gives
//! the same outputs with `--inline none`, `cost` and `all`; a big function called from several
//! sites of a loop-free program is kept and a small one called once is inlined; `report
//! --explain` lists each decision with its reason.

use crate::common;
use crate::common::calls;
use calls::{compile, run};
use common::{corpus, read_json, stdout, zkbc};

use zkbc::driver;
use zkbc::opt::calls::Inline;
use zkbc::opt::inline_cost::InlineDecision;
use zkbc::opt::OptLevel;

#[test]
fn corpus_outputs_equal_with_every_inlining_mode() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for file in corpus() {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let json = file.with_extension("json");
        let inputs = if json.exists() {
            read_json(&json)
        } else {
            serde_json::json!({})
        };
        for level in [OptLevel::O0, OptLevel::O3] {
            let expected = run(&compile(&name, &text, level, Inline::All), &inputs);
            for mode in [Inline::Cost, Inline::None] {
                let got = run(&compile(&name, &text, level, mode), &inputs);
                if got != expected {
                    failures.push(format!(
                        "{name} {level:?} {mode:?}: {got:?} != {expected:?}"
                    ));
                }
                compared += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 100, "only {compared} comparisons");
}

/// `def big(field x)`: `n` multiply-adds in a row (no loop), about `n` constraints.
fn big_function(n: usize) -> String {
    let mut s = String::from("def big(field x) -> field {\n    field mut y = x;\n");
    for i in 0..n {
        s.push_str(&format!("    y = y * x + {};\n", i + 1));
    }
    s.push_str("    return y;\n}\n\ndef small(field x) -> field {\n    return x * x;\n}\n\n");
    s
}

/// A directory named `name` and the PID, holding `big.zok`: `main` returns
/// `small(big(big(big(a))))` with `big` 1,400 multiply-adds (a call kept, within 2%).
fn three_calls_of_big_in_a_file(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("{name}{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.zok");
    std::fs::write(
        &file,
        format!(
            "{}def main(field a) -> field {{\n    return small(big(big(big(a))));\n}}\n",
            big_function(1400)
        ),
    )
    .unwrap();
    (dir, file)
}

fn decisions(c: &driver::Compilation) -> Vec<InlineDecision> {
    c.opt_report.inline_decisions.clone()
}

fn decision<'d>(ds: &'d [InlineDecision], name: &str) -> &'d InlineDecision {
    ds.iter()
        .find(|d| d.function == name)
        .unwrap_or_else(|| panic!("no decision for {name}: {ds:?}"))
}

/// Three calls of a 1,400-constraint function in a loop-free `main`: inlined, the one block
/// pads 4,200 constraints to 8,192; kept, the function's block pads to 2,048 and runs 3 times
/// (4 padded): the same 8,192 cells plus the calls' transitions, within 2%, and a third of the
/// static circuit. `small`, called once, is inlined.
#[test]
fn a_big_function_called_from_three_sites_is_kept_and_a_small_one_called_once_is_inlined() {
    let text = format!(
        "{}def main(field a) -> field {{\n    return small(big(big(big(a))));\n}}\n",
        big_function(1400)
    );
    let all = compile("big.zok", &text, OptLevel::O3, Inline::All);
    let cost = compile("big.zok", &text, OptLevel::O3, Inline::Cost);
    let ds = decisions(&cost);
    let big = decision(&ds, "big");
    assert!(big.keep, "{big:?}");
    assert_eq!((big.sites, big.calls, big.counted), (3, 3, true));
    assert!(big.reason.starts_with("kept:"), "{}", big.reason);
    let small = decision(&ds, "small");
    assert!(!small.keep, "{small:?}");
    assert!(small.reason.contains("one call site"), "{}", small.reason);
    // Kept: the program still has the call stack's dispatch, and its static circuit is smaller.
    let inputs = serde_json::json!({"a": "3"});
    assert_eq!(run(&cost, &inputs), run(&all, &inputs));
    let constraints = |c: &driver::Compilation| -> usize {
        let mut p = c.program.clone();
        driver::legalize_for_r1cs(&mut p).unwrap();
        zkbc::r1cs::stats(&p)
            .unwrap()
            .iter()
            .map(|s| s.constraints)
            .sum()
    };
    let (kept, inlined) = (constraints(&cost), constraints(&all));
    assert!(
        kept * 2 < inlined,
        "kept {kept} constraints, inlined {inlined}"
    );
}

/// README's worked example, `examples/kept_call.zok`: `mix` (a loop of 1,400 multiply-adds)
/// called three times is kept by the default, formed as one block run once per call (its loop's
/// counts per call follow from the counted loop, so formation does not leave it rotated), and
/// the report's figures are the README's: a third of `--inline all`'s static circuit for at
/// most 2% more cells.
#[test]
fn the_readme_example_keeps_its_function_as_one_block() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/kept_call.zok");
    let report = |inline: &str| -> serde_json::Value {
        let out = zkbc(&["report", file, "--inline", inline, "--format", "json", "-q"]);
        assert!(out.status.success(), "{}", common::stderr(&out));
        serde_json::from_str(&stdout(&out)).expect("report JSON")
    };
    let totals = |r: &serde_json::Value| {
        let t = &r["totals"];
        (
            t["constraints"].as_u64().expect("constraints"),
            t["sumcheck_cells"].as_u64().expect("sumcheck cells"),
        )
    };
    let (kept, all) = (report("cost"), report("all"));
    let ((kc, kcells), (ac, acells)) = (totals(&kept), totals(&all));
    assert!(kc * 2 < ac, "kept {kc} constraints, inlined {ac}");
    assert!(
        kcells * 100 <= acells * 102,
        "kept {kcells} cells, inlined {acells}"
    );
    let blocks = kept["blocks"].as_array().expect("blocks");
    assert!(
        blocks
            .iter()
            .any(|b| b["executions"].as_u64() == Some(3) && b["constraints"].as_u64() > Some(1400)),
        "mix is one block run three times: {blocks:?}"
    );
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let text = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let grouped = |n: u64| zkbc::cost::group_digits(u128::from(n));
    for figure in [
        format!(
            "is {} constraints against {} with `--inline all`, for {} sumcheck cells against {}.",
            grouped(kc),
            grouped(ac),
            grouped(kcells),
            grouped(acells)
        ),
        format!("constraints {}", grouped(kc)),
        format!("sumcheck cells {}", grouped(kcells)),
    ] {
        assert!(text.contains(&figure), "README does not say `{figure}`");
    }
}

/// The same function called from three sites whose arguments stay live across the calls
/// (saved on the stack): the stack's memory check tips the estimate, and it is inlined, as
/// `--inline all` would.
#[test]
fn a_big_function_whose_callers_save_values_is_inlined() {
    let text = format!(
        "{}def main(field a, field b, field c) -> field {{\n    field p = big(a);\n    \
         field q = big(b);\n    field r = big(c);\n    return small(p + q + r);\n}}\n",
        big_function(700)
    );
    let cost = compile("big.zok", &text, OptLevel::O3, Inline::Cost);
    let ds = decisions(&cost);
    let big = decision(&ds, "big");
    assert!(!big.keep, "{big:?}");
    assert!(
        big.cells_kept.unwrap() > big.cells_inlined.unwrap(),
        "{big:?}"
    );
    let all = compile("big.zok", &text, OptLevel::O3, Inline::All);
    assert_eq!(
        cost.program.to_string(),
        all.program.to_string(),
        "nothing kept: the program is --inline all's"
    );
}

#[test]
fn explain_lists_each_inlining_decision_and_its_reason() {
    let (dir, file) = three_calls_of_big_in_a_file("zkbc_inline_cost_");
    let out = zkbc(&[
        "report",
        file.to_str().unwrap(),
        "--inline",
        "cost",
        "--explain",
        "-q",
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    let section = text
        .split("inlining (--inline cost)")
        .nth(1)
        .unwrap_or_else(|| panic!("no inlining section:\n{text}"));
    let line = |name: &str| {
        section
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name}:\n{section}"))
            .to_string()
    };
    let big = line("big ");
    assert!(
        big.contains("kept:") && big.contains("within 2%") && big.contains("3 sites"),
        "{big}"
    );
    let small = line("small ");
    assert!(small.contains("inlined: one call site"), "{small}");
    // Without `--inline cost` there is no such section.
    let out = zkbc(&[
        "report",
        file.to_str().unwrap(),
        "--inline",
        "all",
        "--explain",
        "-q",
    ]);
    assert!(!stdout(&out).contains("inlining (--inline cost)"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A program that keeps a call: the report's `--monolithic` baseline (and its `C`) is what
/// `report --monolithic` measures, every call inlined, not the kept program (which once made
/// it "none: a zkbc bug" and the baseline the default's own cells).
#[test]
fn the_monolithic_baseline_of_a_program_that_keeps_calls_inlines_them() {
    let (dir, file) = three_calls_of_big_in_a_file("zkbc_inline_mono_");
    let report = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["report", file.to_str().unwrap(), "--format", "json", "-q"];
        args.extend_from_slice(extra);
        let out = zkbc(&args);
        assert!(out.status.success(), "{}", stdout(&out));
        serde_json::from_str(&stdout(&out)).unwrap()
    };
    let default = report(&[]);
    let mono = report(&["--monolithic"]);
    let mono_cells = &mono["totals"]["sumcheck_cells"];
    assert!(mono_cells.as_u64().is_some(), "{mono}");
    assert_eq!(
        &default["baselines"]["monolithic_cells"], mono_cells,
        "{default}"
    );
    assert_eq!(
        &default["totals"]["monolithic_cells"], mono_cells,
        "{default}"
    );
    // The default keeps `big` (more cells than the one block, within 2% by the estimate).
    assert_ne!(
        &default["totals"]["sumcheck_cells"], mono_cells,
        "{default}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Three calls of a 700-constraint function: the estimate keeps it (4,164 cells against 4,096
/// inlined, within 2%), but the program compiled with the calls kept is predicted 4,196 cells
/// (its transitions and continuations), more than 2% above the 4,096 of inlining every call:
/// the decision itself inlines it (step 7 of `opt::inline_cost`), and the program is
/// `--inline all`'s.
#[test]
fn a_call_kept_by_the_estimate_is_inlined_when_the_compiled_program_costs_more() {
    let text = format!(
        "{}def main(field a) -> field {{\n    return small(big(big(big(a))));\n}}\n",
        big_function(700)
    );
    let cost = compile("big.zok", &text, OptLevel::O3, Inline::Cost);
    let all = compile("big.zok", &text, OptLevel::O3, Inline::All);
    let ds = decisions(&cost);
    let big = decision(&ds, "big");
    assert!(!big.keep, "{big:?}");
    assert!(
        big.cells_kept.unwrap() <= big.cells_inlined.unwrap() * 102 / 100,
        "the estimate alone keeps it: {big:?}"
    );
    assert!(
        big.reason.starts_with("inlined:")
            && big
                .reason
                .contains("but the program compiled with it kept is predicted")
            && big.reason.contains("more than 2% above"),
        "{}",
        big.reason
    );
    assert_eq!(cost.program.to_string(), all.program.to_string());
    let inputs = serde_json::json!({"a": "3"});
    assert_eq!(run(&cost, &inputs), run(&all, &inputs));
}
