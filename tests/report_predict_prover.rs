//! `zkbc report --predict-prover`: the Spartan prover's time predicted by the fit of
//! docs/prover.md, labelled as a prediction, with the features it used (no timing here: the
//! fit is measured by `benches/spartan_fit.py`).

mod common;
use common::{stderr, stdout, zkbc};

fn features(text: &str) -> Vec<(String, f64)> {
    let line = text
        .lines()
        .find(|l| l.starts_with("prover features: "))
        .expect("a features line");
    line.split_whitespace()
        .skip(2)
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("key=value");
            (k.to_string(), v.parse().expect("a number"))
        })
        .collect()
}

#[test]
fn a_run_gets_a_labelled_prediction_and_its_features() {
    let out = zkbc(&[
        "report",
        "circuits/cobbl_find_min.zok",
        "--inputs",
        "circuits/cobbl_find_min.json",
        "--predict-prover",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("predicted Spartan prover time: "))
        .expect("a prediction line");
    assert!(line.contains("a prediction, not a measurement"), "{line}");
    assert!(line.contains("least-squares fit on"), "{line}");
    let ms: f64 = line["predicted Spartan prover time: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(ms > 0.0, "{line}");
    let f = features(&text);
    let names: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["cells", "committed", "tables", "nonzeros"]);
    // cobbl_find_min keeps arrays in memory: its blocks and the pair table are committed, and
    // every block has matrix entries.
    assert!(f.iter().all(|(_, v)| *v > 0.0), "{f:?}");
    assert!(f[2].1 >= 2.0, "{f:?}");
}

#[test]
fn without_a_run_or_as_json_there_is_no_prediction() {
    let out = zkbc(&["report", "circuits/gcd.zok", "--predict-prover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("predicted Spartan prover time: none without a run"),
        "{}",
        stdout(&out)
    );
    let out = zkbc(&[
        "report",
        "circuits/gcd.zok",
        "--inputs",
        "circuits/gcd.json",
        "--predict-prover",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--predict-prover works with --format table"));
}
