//! `zkbc report` and `zkbc table` as a user runs them: output forms, `-o`, exit statuses
//! (0 success, 1 a run-time failure, 2 input the user must fix) and their messages.

use crate::common;
use common::{stderr, stdout, zkbc};
use serde_json::Value;
use std::path::{Path, PathBuf};

use std::process::Command;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("writes");
    path
}

#[test]
fn table_is_the_default_format() {
    let out = zkbc(&[
        "report",
        "circuits/gcd.zok",
        "--inputs",
        "circuits/gcd.json",
        "-O2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("gcd  O2  min block size 1,024"), "{text}");
    assert!(text.contains("sumcheck cells"), "{text}");
    assert!(text.contains("outputs: [\"21\",\"23562\"]"), "{text}");
    assert!(text.contains("satisfied: yes"), "{text}");
    assert!(
        stderr(&out).is_empty(),
        "no bar when stderr is not a terminal"
    );
}

#[test]
fn json_to_a_file_is_the_schema() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("mimc.json");
    let out = zkbc(&[
        "report",
        "circuits/mimc.zok",
        "--inputs",
        "circuits/mimc.json",
        "--format",
        "json",
        "--min-block-size",
        "32768",
        "-o",
        file.to_str().expect("utf-8"),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "the report went to the file");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("written")).expect("JSON");
    assert_eq!(json["schema_version"], zkbc::cost::SCHEMA_VERSION);
    assert_eq!(json["program"], "mimc");
    assert_eq!(json["opt_level"], "O3");
    assert_eq!(json["min_block_size"], 32768);
    assert_eq!(json["threshold"], 32768);
    assert_eq!(json["satisfied"], true);
    assert!(json["totals"]["sumcheck_cells"]
        .as_u64()
        .is_some_and(|c| c > 0));
}

#[test]
fn a_static_report_marks_unknown_executions() {
    let out = zkbc(&["report", "circuits/gcd.zok", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(json["satisfied"], Value::Null);
    assert_eq!(json["outputs"], Value::Null);
    assert_eq!(json["blocks"][0]["executions"], 1);
    assert_eq!(json["totals"]["sumcheck_cells"], Value::Null);
    let table = stdout(&zkbc(&["report", "circuits/gcd.zok"]));
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("sumcheck cells") && l.ends_with(" unknown")),
        "{table}"
    );
}

#[test]
fn the_json_report_records_where_the_time_went() {
    let out = zkbc(&[
        "report",
        "circuits/gcd.zok",
        "--inputs",
        "circuits/gcd.json",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let t = &json["timings"];
    let wall = t["wall_ms"].as_f64().expect("wall_ms");
    assert!(wall > 0.0, "{t}");
    let stages = t["stages"].as_array().expect("stages");
    for name in ["front", "opt"] {
        let stage = stages
            .iter()
            .find(|s| s["name"] == name && s["depth"] == 0)
            .unwrap_or_else(|| panic!("no top-level stage {name} in {t}"));
        let ms = stage["ms"].as_f64().expect("ms");
        assert!((0.0..=wall).contains(&ms), "{name}: {ms} ms of {wall}");
    }
    // A pass of the optimizer is a stage inside `opt`.
    assert!(stages.iter().any(|s| s["depth"] == 1), "{t}");
    // Everything else is the report: the timings come last, after the baselines.
    let text = stdout(&out);
    assert!(
        text.find("\"timings\"") > text.find("\"baselines\""),
        "{text}"
    );
}

#[test]
fn svg_and_dot_formats() {
    let svg = zkbc(&[
        "report",
        "circuits/nested_loops.zok",
        "--inputs",
        "circuits/nested_loops.json",
        "--format",
        "svg",
    ]);
    assert_eq!(svg.status.code(), Some(0), "{}", stderr(&svg));
    assert!(stdout(&svg).contains("<svg"));
    let dot = zkbc(&[
        "report",
        "circuits/nested_loops.zok",
        "--inputs",
        "circuits/nested_loops.json",
        "--format",
        "dot",
    ]);
    assert_eq!(dot.status.code(), Some(0), "{}", stderr(&dot));
    let text = stdout(&dot);
    assert!(text.starts_with("digraph \"main\""), "{text}");
    assert!(text.contains("(entry)"), "{text}");
    assert!(text.contains("ran "), "{text}");
}

#[test]
fn a_failing_assertion_is_exit_1_with_its_location() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let inputs = write(
        dir.path(),
        "too_long.json",
        r#"{"a": ["1","2","3","4","5","6","7","8","9","10"], "len": 11}"#,
    );
    let out = zkbc(&[
        "report",
        "circuits/range_sum.zok",
        "--inputs",
        inputs.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: circuits/range_sum.zok:3:"),
        "located: {err}"
    );
    assert!(err.contains("len is at most 10"), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn bad_input_is_exit_2() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let malformed = write(dir.path(), "bad.json", "{\"a\": ");
    let wrong = write(dir.path(), "wrong.json", r#"{"a": "1"}"#);
    let broken = write(
        dir.path(),
        "broken.zok",
        "def main() -> field {\n  return x;\n}\n",
    );
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["report", "circuits/missing.zok"], "cannot read"),
        (
            vec![
                "report",
                "circuits/gcd.zok",
                "--inputs",
                malformed.to_str().expect("utf-8"),
            ],
            "malformed JSON",
        ),
        (
            vec![
                "report",
                "circuits/gcd.zok",
                "--inputs",
                wrong.to_str().expect("utf-8"),
            ],
            "wrong.json",
        ),
        (
            vec!["report", broken.to_str().expect("utf-8")],
            "broken.zok:2:",
        ),
        (vec!["report", "circuits/gcd.zok", "-O", "7"], "7"),
        (vec!["report", "circuits/gcd.zok", "--format", "pdf"], "pdf"),
        (
            vec!["table", "circuits/gcd.zok", "--metric", "speed"],
            "unknown metric `speed`",
        ),
    ];
    for (args, needle) in cases {
        let out = zkbc(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(needle),
            "{args:?}: `{needle}` in {}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
}

#[test]
fn table_over_programs_and_pipelines() {
    let out = zkbc(&[
        "table",
        "circuits/gcd.zok",
        "circuits/mimc.zok",
        "--inputs-dir",
        "circuits",
        "-O",
        "1,2",
        "--min-block-sizes",
        "1024,32768",
        "--format",
        "csv",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 2 * 2, "{text}");
    assert!(lines[0].starts_with("program,opt_level,min_block_size,"));
    assert!(lines[1].starts_with("gcd,O1,1024,"), "{text}");
    assert!(lines[4].starts_with("gcd,O2,32768,"), "{text}");
    assert!(lines[8].starts_with("mimc,O2,32768,"), "{text}");
    // Every row was run on its inputs and satisfied (and has no error).
    assert!(lines[1..].iter().all(|l| l.ends_with(",true,")), "{text}");

    // At -O3 a row per merge policy: the threshold rule's row is named by its policy, and on
    // cold_branch (a heavy arm its inputs never take) it pays more cells than the cost rule.
    let out = zkbc(&[
        "table",
        "circuits/cold_branch.zok",
        "--inputs-dir",
        "circuits",
        "-O",
        "3",
        "--merge-policies",
        "cost,threshold",
        "--format",
        "csv",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let cells: Vec<(String, u64)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].to_string(), f[7].parse().expect("cells"))
        })
        .collect();
    assert_eq!(cells.len(), 2, "{text}");
    assert_eq!(cells[0].0, "O3");
    assert_eq!(cells[1].0, "O3 --merge-policy threshold");
    assert!(cells[0].1 < cells[1].1, "{text}");
    let bad = zkbc(&["table", "circuits/mimc.zok", "--merge-policies", "greedy"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("greedy"), "{}", stderr(&bad));

    let md = stdout(&zkbc(&["table", "circuits/mimc.zok", "-O", "2"]));
    assert!(md.starts_with("| program | opt level |"), "{md}");
    assert!(md.contains("| mimc | O2 | 1,024 |"), "{md}");
    let pivot = stdout(&zkbc(&[
        "table",
        "circuits/mimc.zok",
        "-O",
        "1,2",
        "--format",
        "pivot",
        "--metric",
        "padding_waste",
    ]));
    assert!(
        pivot.starts_with("| program (padding_waste) | O1/1024 | O2/1024 |"),
        "{pivot}"
    );
}

#[test]
fn a_failing_program_in_a_table_is_a_row_marked_failed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let prog = write(
        dir.path(),
        "fails.zok",
        "def main(field a) -> field {\n  assert(a == 1, \"a is one\");\n  return a;\n}\n",
    );
    write(dir.path(), "fails.json", r#"{"a": "2"}"#);
    let prog = prog.to_str().expect("utf-8");
    let args = [
        "table",
        prog,
        "circuits/mimc.zok",
        "-O",
        "2",
        "--inputs-dir",
    ];
    let inputs_dir = dir.path().to_str().expect("utf-8");
    // The table goes on past the failure: mimc (without inputs in that directory) has its
    // row; the failure is marked and its error is on stderr; the exit status is 1.
    let out = zkbc(&[&args[..], &[inputs_dir]].concat());
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("fails.zok:2:"), "{err}");
    assert!(err.contains("a is one"), "{err}");
    assert!(err.ends_with("error: 1 of 2 table rows failed\n"), "{err}");
    let md = stdout(&out);
    let failed = md
        .lines()
        .find(|l| l.starts_with("| fails | O2 | 1,024 | - |"))
        .unwrap_or_else(|| panic!("no failed row in\n{md}"));
    assert!(failed.contains("| failed | "), "{failed}");
    assert!(failed.contains("a is one"), "{failed}");
    assert!(md.contains("| mimc | O2 | 1,024 |"), "{md}");

    let out = zkbc(&[&args[..], &[inputs_dir, "--format", "csv"]].concat());
    assert_eq!(out.status.code(), Some(1));
    let csv = stdout(&out);
    let failed = csv.lines().nth(1).expect("the failed row");
    assert!(failed.starts_with("fails,O2,1024,,,"), "{csv}");
    assert!(failed.contains("a is one"), "{csv}");
    assert!(
        csv.lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("mimc,O2,1024,")),
        "{csv}"
    );

    let out = zkbc(&[&args[..], &[inputs_dir, "--format", "json"]].concat());
    assert_eq!(out.status.code(), Some(1));
    let rows: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(rows[0]["program"], "fails");
    assert!(rows[0]["error"]
        .as_str()
        .is_some_and(|e| e.contains("a is one")));
    assert_eq!(rows[1]["program"], "mimc");
    assert!(rows[1].get("error").is_none());

    let out = zkbc(&[&args[..], &[inputs_dir, "--format", "pivot"]].concat());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("| fails | failed |"),
        "{}",
        stdout(&out)
    );
}

/// The number in a totals line `NAME   1,234  (note)`, or the word there (`none`, `unknown`).
fn totals_value(table: &str, name: &str) -> String {
    let line = table
        .lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with("  "))
        .unwrap_or_else(|| panic!("no `{name}` line in\n{table}"));
    line[name.len()..]
        .split_whitespace()
        .next()
        .expect("a value")
        .to_string()
}

fn number(text: &str) -> u128 {
    text.replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("`{text}` is a number"))
}

#[test]
fn every_report_has_its_baselines() {
    let out = zkbc(&[
        "report",
        "circuits/else_if.zok",
        "--inputs",
        "circuits/else_if.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = stdout(&out);
    let own = number(&totals_value(&table, "sumcheck cells"));
    let no_merge = number(&totals_value(&table, "--no-merge cells"));
    let mono = number(&totals_value(&table, "--monolithic cells"));
    assert!(own <= no_merge && own <= mono, "{table}");
    // Each is what the report of that pipeline says.
    for (flag, cells) in [("--no-merge", no_merge), ("--monolithic", mono)] {
        let other = stdout(&zkbc(&[
            "report",
            "circuits/else_if.zok",
            "--inputs",
            "circuits/else_if.json",
            flag,
        ]));
        assert_eq!(
            number(&totals_value(&other, "sumcheck cells")),
            cells,
            "{flag}"
        );
        // A report that is a baseline gives its own cells for it.
        let name = format!("{flag} cells");
        assert_eq!(number(&totals_value(&other, &name)), cells, "{other}");
    }

    let json: Value = serde_json::from_str(&stdout(&zkbc(&[
        "report",
        "circuits/else_if.zok",
        "--inputs",
        "circuits/else_if.json",
        "--format",
        "json",
    ])))
    .expect("JSON");
    assert_eq!(json["baselines"]["no_merge_cells"], no_merge as u64);
    assert_eq!(json["baselines"]["monolithic_cells"], mono as u64);
    assert_eq!(json["baselines"]["no_merge_none"], Value::Null);
    assert_eq!(json["baselines"]["monolithic_none"], Value::Null);
}

#[test]
fn no_one_block_circuit_is_none_not_a_bound() {
    let out = zkbc(&[
        "report",
        "circuits/gcd.zok",
        "--inputs",
        "circuits/gcd.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = stdout(&out);
    for name in ["monolithic cells", "--monolithic cells"] {
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("{name}  ")))
            .unwrap_or_else(|| panic!("no `{name}` line in\n{table}"));
        assert!(
            line.ends_with("none  (a loop bound is a run-time value)"),
            "{line}"
        );
    }
    assert!(!table.contains("lower bound"), "{table}");
    let json: Value = serde_json::from_str(&stdout(&zkbc(&[
        "report",
        "circuits/gcd.zok",
        "--inputs",
        "circuits/gcd.json",
        "--format",
        "json",
    ])))
    .expect("JSON");
    let totals = &json["totals"];
    assert_eq!(totals["monolithic_cells"], Value::Null);
    assert_eq!(totals["monolithic_exact"], false);
    assert_eq!(
        totals["monolithic_none"],
        "a loop bound is a run-time value"
    );
    assert_eq!(json["baselines"]["monolithic_cells"], Value::Null);
    assert_eq!(
        json["baselines"]["monolithic_none"],
        "a loop bound is a run-time value"
    );
    assert!(json["baselines"]["no_merge_cells"].as_u64().is_some());

    // Without inputs the baselines are counted statically: gcd's loop count is unknown.
    let table = stdout(&zkbc(&["report", "circuits/gcd.zok"]));
    assert_eq!(
        totals_value(&table, "--no-merge cells"),
        "unknown",
        "{table}"
    );
    assert_eq!(
        totals_value(&table, "--monolithic cells"),
        "none",
        "{table}"
    );
    // mimc's loop is counted, so its static baselines are numbers.
    let table = stdout(&zkbc(&["report", "circuits/mimc.zok"]));
    number(&totals_value(&table, "--no-merge cells"));
    number(&totals_value(&table, "--monolithic cells"));
}

#[test]
fn explain_lists_every_candidate_and_formation() {
    let out = zkbc(&[
        "report",
        "circuits/while_collatz.zok",
        "--inputs",
        "circuits/while_collatz.json",
        "--explain",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let explain = text
        .split_once("block formation: ")
        .map(|(_, e)| e)
        .unwrap_or_else(|| panic!("the explanation follows the table:\n{text}"));
    assert!(explain.starts_with("sumcheck cells predicted from a run on the inputs"));
    let lines: Vec<&str> = explain.lines().collect();
    // Round 1 rotates the while loop (its bound is a run-time value: it cannot be unrolled
    // whole, and the component holding it is impossible).
    let taken = lines
        .iter()
        .find(|l| l.starts_with("round 1  ") && l.contains("rotated: saves"))
        .unwrap_or_else(|| panic!("a rotation taken in round 1:\n{explain}"));
    assert!(taken.contains("  loop b"), "{taken}");
    assert!(taken.contains(" -> merged "), "{taken}");
    assert!(
        lines.iter().any(|l| l.starts_with("round 1  b")
            && l.contains("impossible: the loop at b")
            && l.contains("has a run-time bound")),
        "a component with a run-time loop bound:\n{explain}"
    );
    for formation in [
        "unmerged",
        "greedy",
        "monolithic",
        "threshold 1024",
        "threshold 32768",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("{formation}  "))),
            "{formation} in\n{explain}"
        );
    }
    // The chosen formation's predicted cells are the report's own.
    let chosen = lines
        .iter()
        .find(|l| l.contains("  chosen: "))
        .expect("a formation chosen");
    let own = totals_value(&text, "sumcheck cells");
    assert!(chosen.contains(&format!("  {own}  ")), "{chosen} vs {own}");

    // Other pipelines record no decisions, and say so in one line.
    for (flag, why) in [
        ("--no-merge", "--no-merge"),
        ("--monolithic", "--monolithic"),
        ("-O2", "-O2 has no merge pass"),
    ] {
        let text = stdout(&zkbc(&[
            "report",
            "circuits/else_if.zok",
            "--inputs",
            "circuits/else_if.json",
            "--explain",
            flag,
        ]));
        let (_, explain) = text.split_once("\nblock formation: ").expect("explained");
        assert!(
            explain.starts_with("no cost-driven decisions (") && explain.contains(why),
            "{flag}: {explain}"
        );
        assert_eq!(explain.lines().count(), 1, "{explain}");
    }
    let text = stdout(&zkbc(&[
        "report",
        "circuits/else_if.zok",
        "--explain",
        "--merge-policy",
        "threshold",
    ]));
    assert!(
        text.contains("block formation: no cost-driven decisions (--merge-policy threshold"),
        "{text}"
    );
    let svg = zkbc(&[
        "report",
        "circuits/else_if.zok",
        "--explain",
        "--format",
        "svg",
    ]);
    assert_eq!(svg.status.code(), Some(2));
    assert!(stderr(&svg).contains("--explain"), "{}", stderr(&svg));
}

#[test]
fn explain_in_json_is_an_array_of_decisions() {
    let out = zkbc(&[
        "report",
        "circuits/else_if.zok",
        "--inputs",
        "circuits/else_if.json",
        "--format",
        "json",
        "--explain",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let json: Value = serde_json::from_str(&text).expect("JSON");
    // The report's fields in their order, then `explain`.
    let at = |key: &str| text.find(&format!("\n  \"{key}\": ")).expect(key);
    assert!(
        at("totals") < at("baselines") && at("baselines") < at("explain"),
        "{text}"
    );
    let explain = json["explain"].as_array().expect("an array");
    let components: Vec<&Value> = explain
        .iter()
        .filter(|e| e["kind"] == "component")
        .collect();
    assert!(!components.is_empty());
    for c in &components {
        assert!(c["round"].as_u64().is_some_and(|r| r >= 1), "{c}");
        assert!(c["head"].is_string() && c["tail"].is_string(), "{c}");
        assert!(c["blocks"].as_array().is_some_and(|b| b.len() >= 2), "{c}");
        assert!(c["has_loop"].is_boolean(), "{c}");
        assert!(c["formation"].is_null(), "{c}");
        assert!(["taken", "kept", "impossible"].contains(&c["verdict"].as_str().expect("str")));
        assert!(c["reason"].is_string(), "{c}");
    }
    let formations: Vec<&Value> = explain
        .iter()
        .filter(|e| e["kind"] == "formation")
        .collect();
    assert_eq!(formations.len(), 5, "{formations:?}");
    let chosen: Vec<&&Value> = formations
        .iter()
        .filter(|f| f["verdict"] == "taken")
        .collect();
    assert_eq!(chosen.len(), 1);
    assert_eq!(chosen[0]["round"], 0);
    assert_eq!(chosen[0]["cells_taken"], json["totals"]["sumcheck_cells"]);
    assert_eq!(
        chosen[0]["transitions_taken"],
        json["totals"]["transitions"]
    );
    // Without --explain there is no such field.
    let plain: Value = serde_json::from_str(&stdout(&zkbc(&[
        "report",
        "circuits/else_if.zok",
        "--inputs",
        "circuits/else_if.json",
        "--format",
        "json",
    ])))
    .expect("JSON");
    assert!(plain.get("explain").is_none());
    // Another pipeline: an empty array.
    let json: Value = serde_json::from_str(&stdout(&zkbc(&[
        "report",
        "circuits/else_if.zok",
        "--format",
        "json",
        "--explain",
        "--no-merge",
    ])))
    .expect("JSON");
    assert_eq!(json["explain"], serde_json::json!([]));
}

#[test]
fn explain_in_dot_colours_the_components_before_merging() {
    // cobbl_poseidon: a component merges, its loops with run-time bounds cannot.
    let out = zkbc(&[
        "report",
        "circuits/cobbl_poseidon.zok",
        "--inputs",
        "circuits/cobbl_poseidon.json",
        "--format",
        "dot",
        "--explain",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("digraph \"main\""), "{text}");
    assert!(
        text.contains("label=\"main before block formation"),
        "{text}"
    );
    let report: Value = serde_json::from_str(&stdout(&zkbc(&[
        "report",
        "circuits/cobbl_poseidon.zok",
        "--inputs",
        "circuits/cobbl_poseidon.json",
        "--format",
        "json",
    ])))
    .expect("JSON");
    let own = report["totals"]["sumcheck_cells"].as_u64().expect("cells");
    assert!(
        text.contains(&format!(
            "formation chosen: greedy ({} predicted cells)",
            zkbc::report::group_digits(u128::from(own))
        )),
        "{text}"
    );
    // The merged component in green, the impossible one in red with its reason.
    assert!(text.contains(": merged\\n"), "{text}");
    assert!(text.contains("color=\"#1a9850\""), "{text}");
    assert!(text.contains("label=\"round 1: impossible\\n"), "{text}");
    assert!(text.contains("color=\"#d73027\""), "{text}");
    assert!(text.contains("run-time"), "{text}");
    // The CFG before merging: the loop body's blocks are all there (the merged report has 4).
    let nodes = text.lines().filter(|l| l.contains("[label=\"b")).count();
    assert!(nodes > 4, "{text}");
    if tool("dot") {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = write(dir.path(), "explain.dot", &text);
        let svg = Command::new("dot")
            .arg("-Tsvg")
            .arg(&file)
            .output()
            .expect("dot runs");
        assert!(
            svg.status.success() && svg.stdout.starts_with(b"<?xml"),
            "dot rejects the graph: {}",
            String::from_utf8_lossy(&svg.stderr)
        );
    }
    // No decisions: the merged CFG and a title saying why.
    let text = stdout(&zkbc(&[
        "report",
        "circuits/while_collatz.zok",
        "--format",
        "dot",
        "--explain",
        "--no-merge",
    ]));
    assert!(
        text.contains("label=\"block formation: no cost-driven decisions (--no-merge"),
        "{text}"
    );
}

#[test]
fn compile_with_inputs_is_the_program_report_measures() {
    // cobbl_kmp_search is formed differently with its inputs' counts than with static estimates
    // (its loops' trip counts depend on the text searched).
    let blocks_of = |ir: &str| {
        ir.lines()
            .filter(|l| {
                l.starts_with('b')
                    && l.trim_end().ends_with(':')
                    && l[1..].starts_with(|c: char| c.is_ascii_digit())
            })
            .count()
    };
    let profiled = zkbc(&[
        "compile",
        "circuits/cobbl_kmp_search.zok",
        "--inputs",
        "circuits/cobbl_kmp_search.json",
    ]);
    assert_eq!(profiled.status.code(), Some(0), "{}", stderr(&profiled));
    let statik = stdout(&zkbc(&["compile", "circuits/cobbl_kmp_search.zok"]));
    let report: Value = serde_json::from_str(&stdout(&zkbc(&[
        "report",
        "circuits/cobbl_kmp_search.zok",
        "--inputs",
        "circuits/cobbl_kmp_search.json",
        "--format",
        "json",
    ])))
    .expect("JSON");
    let n = blocks_of(&stdout(&profiled));
    assert!(n > 0);
    assert_eq!(
        n as u64,
        report["totals"]["blocks"].as_u64().expect("blocks")
    );
    assert_ne!(n, blocks_of(&statik), "the inputs change block formation");

    // Inputs that do not fit main are the user's to fix.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let wrong = write(dir.path(), "wrong.json", r#"{"nope": "1"}"#);
    let out = zkbc(&[
        "compile",
        "circuits/gcd.zok",
        "--inputs",
        wrong.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("wrong.json"), "{}", stderr(&out));
}

/// Whether `name` runs here; prints why a check is skipped when it does not.
fn tool(name: &str) -> bool {
    let found = Command::new(name).arg("-V").output().is_ok();
    if !found {
        println!("skipped a check: `{name}` is not installed (apt-get install -y graphviz)");
    }
    found
}

/// README's example report is what the binary prints.
#[test]
fn the_readme_example_is_the_real_output() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md exists");
    let command = "$ zkbc report circuits/bubble_sort.zok --inputs circuits/bubble_sort.json\n";
    let start = readme.find(command).expect("the example is in README.md") + command.len();
    let end = start + readme[start..].find("```").expect("the block ends");
    let out = zkbc(&[
        "report",
        "circuits/bubble_sort.zok",
        "--inputs",
        "circuits/bubble_sort.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        &readme[start..end],
        stdout(&out),
        "regenerate README's example with the release binary"
    );
}

/// The JSON report records what changes its numbers beyond the pipeline: `--field-cmp`, and the
/// zkbc version that made it.
#[test]
fn json_records_the_field_comparison_and_the_version() {
    for (flag, want) in [(None, "complete"), (Some("zokrates"), "zokrates")] {
        let mut args = vec![
            "report",
            "circuits/gcd.zok",
            "--inputs",
            "circuits/gcd.json",
            "--format",
            "json",
        ];
        if let Some(f) = flag {
            args.extend(["--field-cmp", f]);
        }
        let out = zkbc(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        assert_eq!(report["field_cmp"], want);
        assert_eq!(report["zkbc_version"], env!("CARGO_PKG_VERSION"));
    }
}
