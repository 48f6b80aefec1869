//! The corpus: every `circuits/NAME.zok` compiles, its IR verifies, and running it on
//! `NAME.json` gives `NAME.expected.json` (computed outside zkbc by `circuits/expected.py`).

use std::path::{Path, PathBuf};
use zkbc::ir::interp;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("circuits/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "zok"))
        .collect();
    files.sort();
    files
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn corpus_programs_compute_expected_outputs() {
    let files = corpus();
    assert!(files.len() >= 25, "only {} corpus programs", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let name = file.display().to_string();
        let source = std::fs::read_to_string(file).expect("readable program");
        let (program, abi) = match zkbc::front::compile_source(&name, &source) {
            Ok(r) => r,
            Err(d) => {
                failures.push(d.render(&name, &source));
                continue;
            }
        };
        if let Err(e) = zkbc::ir::verify::verify_program(&program) {
            failures.push(format!("{name}: invalid IR:\n{e}"));
            continue;
        }
        let inputs = read_json(&file.with_extension("json"));
        let expected = read_json(&file.with_extension("expected.json"));
        let values = match abi.inputs_from_json(&inputs) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: inputs: {e}"));
                continue;
            }
        };
        match interp::run(&program, &values, interp::Limits::default()) {
            Ok(out) => {
                let got = abi.outputs_to_json(&out.outputs);
                if got != expected {
                    failures.push(format!("{name}: got {got}, expected {expected}"));
                }
            }
            Err(e) => failures.push(format!("{name}: failed: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
