//! `zkbc report --predict-prover`: the Spartan prover's time predicted by the fit of
//! docs/prover.md, labelled as a prediction, with the features it used (no timing here: the
//! fit is measured by `benches/spartan_fit.py`), and the proof's size, compared with the size
//! of a proof `zkbc prove` writes.

use crate::common;
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
fn without_a_run_there_is_no_prediction_and_json_has_one() {
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
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let p = &v["predicted_prover"];
    assert!(p["prover_ms"].as_f64().is_some_and(|ms| ms > 0.0), "{p}");
    assert!(p["proof_bytes"].as_u64().is_some_and(|b| b > 0), "{p}");
    assert!(p["note"].as_str().unwrap().contains("prediction"), "{p}");
    assert!(v["totals"].is_object(), "the report itself is still there");
    let out = zkbc(&[
        "report",
        "circuits/gcd.zok",
        "--inputs",
        "circuits/gcd.json",
        "--predict-prover",
        "--format",
        "svg",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--predict-prover works with --format table or json"));
}

/// The predicted proof size (text and JSON) against the size of the proof `zkbc prove -o`
/// actually writes, measured here: without memory, with memory, and with blocks that run
/// once and blocks that run many times.
#[test]
fn the_predicted_proof_size_is_the_size_prove_writes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = |name: &str| dir.path().join(name).display().to_string();
    for name in ["gcd", "runtime_loop", "cobbl_find_min", "bubble_sort"] {
        let (program, inputs) = (
            format!("circuits/{name}.zok"),
            format!("circuits/{name}.json"),
        );
        let text = zkbc(&["report", &program, "--inputs", &inputs, "--predict-prover"]);
        assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
        let line = stdout(&text)
            .lines()
            .find(|l| l.starts_with("predicted Spartan proof size: "))
            .expect("a proof size line")
            .to_string();
        assert!(line.contains("a prediction"), "{line}");
        let predicted: u64 = line["predicted Spartan proof size: ".len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let json = zkbc(&[
            "report",
            &program,
            "--inputs",
            &inputs,
            "--predict-prover",
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON");
        assert_eq!(
            v["predicted_prover"]["proof_bytes"].as_u64(),
            Some(predicted)
        );

        let params = path(&format!("{name}.hyrax"));
        let out = zkbc(&["setup", &program, "--backend", "spartan", "-o", &params]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let proof = path(&format!("{name}.proof"));
        let out = zkbc(&[
            "prove",
            &program,
            "--inputs",
            &inputs,
            "--backend",
            "spartan",
            "--pk",
            &params,
            "-o",
            &proof,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let actual = std::fs::metadata(&proof).expect("the proof file").len();
        assert_eq!(
            predicted, actual,
            "{name}: predicted {predicted} bytes, wrote {actual}"
        );
    }
}
