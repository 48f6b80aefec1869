//! The application programs of `circuits/apps/` (real-style ZoKrates programs importing the
//! standard library; see its README): each gives `NAME.expected.json`, computed outside zkbc by
//! `circuits/apps/expected.py`, when run at `-O1` and `-O2`; the smaller ones also at the
//! default `-O3` with every executed block's instance checked. (`python3 circuits/apps/check.py
//! --monolithic` runs every program at the default and as one block, with a release build: too
//! slow for the test suite.)

use crate::common;
use common::{read_json, run_and_compare, zok_files};
use std::path::{Path, PathBuf};
use zkbc::driver::{self, Compilation};
use zkbc::opt::OptLevel;
use zkbc::report::measure::{measure, Settings};

/// Programs checked at `-O3` too: those whose default report takes well under a second with a
/// release build.
const CHECKED_AT_O3: &[&str] = &[
    "babyjubjub_ecdh",
    "battleship",
    "credential_check",
    "hangman",
    "poseidon_rounds",
    "range_proof_u64",
    "sealed_bid_auction",
    "sha256_preimage",
    "sudoku",
];

fn apps() -> Vec<PathBuf> {
    zok_files("circuits/apps")
}

fn compile(file: &Path, level: OptLevel) -> Result<Compilation, String> {
    let source = std::fs::read_to_string(file).expect("readable program");
    let options = driver::Options {
        opt_level: level,
        ..driver::Options::default()
    };
    driver::compile(&file.display().to_string(), &source, &options).map_err(|e| e.to_string())
}

#[test]
fn application_programs_compute_their_expected_outputs() {
    let files = apps();
    assert!(
        files.len() >= 20,
        "only {} application programs",
        files.len()
    );
    let mut failures = Vec::new();
    for file in &files {
        let name = file.display().to_string();
        let inputs = read_json(&file.with_extension("json"));
        let expected = read_json(&file.with_extension("expected.json"));
        for level in [OptLevel::O1, OptLevel::O2] {
            let compiled = match compile(file, level) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{name} {level:?}: {e}"));
                    continue;
                }
            };
            let what = format!("{name} {level:?}");
            failures.extend(run_and_compare(&what, &compiled, &inputs, &expected));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn small_application_programs_check_at_the_default_level() {
    let mut failures = Vec::new();
    for stem in CHECKED_AT_O3 {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("circuits/apps/{stem}.zok"));
        let source = std::fs::read_to_string(&file).expect("readable program");
        let inputs = read_json(&file.with_extension("json"));
        let expected = read_json(&file.with_extension("expected.json"));
        let settings = Settings {
            baselines: false,
            ..Settings::default()
        };
        match measure(
            &file.display().to_string(),
            &source,
            Some(&inputs),
            &settings,
            &|_| {},
        ) {
            Ok(m) => {
                assert_eq!(m.cost.satisfied, Some(true), "{stem}: not satisfied");
                let got = serde_json::json!({ "outputs": m.cost.outputs });
                if got != expected {
                    failures.push(format!("{stem}: got {got}, expected {expected}"));
                }
            }
            Err(e) => failures.push(format!("{stem}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
