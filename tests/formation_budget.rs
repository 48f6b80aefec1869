//! Block formation's work budget (`--formation-budget`, issue 32 item 3): a budget that runs
//! out stops the greedy search with the best formation so far, `--explain` says so, the result
//! is the same on every run (the budget counts work, not seconds), it is still at or below the
//! baselines it is compared with, and a larger budget never costs more cells.

use serde_json::Value;
mod common;
use common::{read_json, stderr, stdout, zkbc};

const PROGRAM: &str = "circuits/cobbl_sha256.zok";
const INPUTS: &str = "circuits/cobbl_sha256.json";
const EXPECTED: &str = "circuits/cobbl_sha256.expected.json";

/// `zkbc report PROGRAM --inputs INPUTS --format json --explain` with `budget`, if any.
fn report(budget: Option<&str>) -> Value {
    let mut args = vec![
        "report",
        PROGRAM,
        "--inputs",
        INPUTS,
        "--format",
        "json",
        "--explain",
    ];
    if let Some(b) = budget {
        args.extend(["--formation-budget", b]);
    }
    let out = zkbc(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("a JSON report")
}

fn stops(json: &Value) -> Vec<&Value> {
    json["explain"]
        .as_array()
        .expect("explain")
        .iter()
        .filter(|e| e["kind"] == "budget")
        .collect()
}

fn cells(json: &Value) -> u64 {
    json["totals"]["sumcheck_cells"].as_u64().expect("cells")
}

#[test]
fn a_spent_budget_stops_the_search_and_says_so() {
    let full = report(None);
    assert!(stops(&full).is_empty(), "the default budget cut the search");
    let expected = read_json(std::path::Path::new(EXPECTED));
    let no_merge = full["baselines"]["no_merge_cells"]
        .as_u64()
        .expect("no-merge");
    let mut last = u64::MAX;
    for budget in ["0", "3000", "10000"] {
        let cut = report(Some(budget));
        let stop = stops(&cut);
        assert_eq!(stop.len(), 1, "budget {budget}: {:?}", cut["explain"]);
        assert_eq!(stop[0]["verdict"], "stopped");
        assert!(
            stop[0]["reason"]
                .as_str()
                .is_some_and(|r| r.contains(&format!("--formation-budget {budget}"))),
            "{}",
            stop[0]
        );
        // The program still computes the same thing, every block satisfied.
        assert_eq!(cut["outputs"], expected["outputs"], "budget {budget}");
        assert_eq!(cut["satisfied"], true, "budget {budget}");
        // The formations are still compared: never above the unmerged program.
        assert!(cells(&cut) <= no_merge, "budget {budget}");
        // More budget, a search that goes further along the same path: never more cells.
        assert!(cells(&cut) <= last, "budget {budget}");
        last = cells(&cut);
        // The same budget, the same result.
        let again = report(Some(budget));
        assert_eq!(cut["totals"], again["totals"], "budget {budget}");
        assert_eq!(cut["explain"], again["explain"], "budget {budget}");
    }
    assert!(cells(&full) <= last);
    // The cut is real on this program: a budget too small to score the loop's merge leaves
    // it more expensive than the full search.
    assert!(cells(&report(Some("0"))) > cells(&full));
}

#[test]
fn the_text_explanation_names_the_budget() {
    let out = zkbc(&[
        "report",
        PROGRAM,
        "--inputs",
        INPUTS,
        "--explain",
        "--formation-budget",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.contains("the search (budget 0)"))
        .unwrap_or_else(|| panic!("no budget line:\n{text}"));
    assert!(line.contains("stopped: the work budget ran out"), "{line}");
    assert!(
        text.contains("\nsearch work: 0 of the budget's 0 instructions"),
        "{text}"
    );
}

#[test]
fn the_search_announces_its_rounds_and_candidates() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = seen.clone();
    zkbc::timing::observe_stages(Some(Arc::new(move |name: &str| {
        sink.lock().expect("lock").push(name.to_string());
    })));
    let source = std::fs::read_to_string(PROGRAM).expect("program");
    let compiled = zkbc::driver::compile(PROGRAM, &source, &zkbc::driver::Options::default());
    zkbc::timing::observe_stages(None);
    assert!(compiled.is_ok());
    let seen = seen.lock().expect("lock");
    let progress: Vec<&String> = seen
        .iter()
        .filter(|s| s.starts_with("formation: round "))
        .collect();
    assert!(
        progress
            .first()
            .is_some_and(|s| s.starts_with("formation: round 1, candidate 1 of ")),
        "{seen:?}"
    );
}
