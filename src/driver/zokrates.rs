//! Constraint parity with ZoKrates, measured: for every program of a ZoKrates suite folder
//! (`NAME.zok` beside `NAME.cases.json`, as `../shared/peers/zokrates` holds them), ZoKrates'
//! own constraint count, zkbc's one-block count (`--monolithic -O3`) and block cells. The table
//! is rendered by [`crate::report::zokrates::markdown`].
//!
//! Both sides count the same things: ZoKrates counts the range checks of main's `uN`/`bool`
//! inputs and the constraints binding its outputs; zkbc's entry block range-checks main's `uN`
//! and `bool` inputs and binds its output state, so the one-block circuit includes both. The
//! count held to ZoKrates' is the circuit `zkbc export --monolithic` writes
//! ([`super::circuit::main_circuit`]): the one block without the block-transition interface (its
//! two label checks), every other constraint counted.

use super::measure::{self, FieldCmp, Merging, Settings};
use std::path::{Path, PathBuf};

/// One program of the suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParityRow {
    /// The program's path relative to the suite folder.
    pub program: String,
    /// ZoKrates' `zokrates_constraints`.
    pub zokrates: u64,
    /// zkbc's constraints of main's one block (`--monolithic -O3`), block interface included;
    /// `None` when the program has no one-block circuit.
    pub monolithic: Option<u64>,
    /// The constraints of the circuit `zkbc export --monolithic` writes: the one block without
    /// its interface. The count held to ZoKrates'.
    pub circuit: Option<u64>,
    /// Σ Q_b · X_b at `-O3` on the first case that runs; `None` when no case runs.
    pub cells: Option<u128>,
}

impl ParityRow {
    /// Whether zkbc's circuit is at or below ZoKrates' count (`None`: no one-block circuit).
    pub fn at_or_below(&self) -> Option<bool> {
        self.circuit.map(|c| c <= self.zokrates)
    }
}

/// The constraints of the one-circuit export of `source` compiled `--monolithic` at `-O3`.
fn circuit_constraints(file_name: &str, source: &str, field_cmp: FieldCmp) -> Option<u64> {
    let settings = Settings {
        merging: Merging::Monolithic,
        field_cmp,
        ..Settings::default()
    };
    let mut compilation = super::compile(file_name, source, &settings.driver_options()).ok()?;
    super::legalize_for_r1cs(&mut compilation.program).ok()?;
    let (instance, _) = super::circuit::main_circuit(&compilation, None).ok()?;
    Some(instance.r1cs.num_constraints() as u64)
}

/// Every `.zok` file below `root`, sorted by path.
pub fn zok_files(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "zok") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(root, &mut files);
    files.sort();
    files
}

/// The rows of every program under `root`, sorted by path; field comparisons of two
/// non-constant elements with `field_cmp`. An error names a file that cannot be read or whose
/// cases file is malformed.
pub fn rows(root: &Path, field_cmp: FieldCmp) -> Result<Vec<ParityRow>, String> {
    let files = zok_files(root);
    if files.is_empty() {
        return Err(format!("{}: no .zok programs", root.display()));
    }
    let settings = Settings {
        field_cmp,
        baselines: false,
        ..Settings::default()
    };
    files
        .iter()
        .map(|file| {
            let program = file
                .strip_prefix(root)
                .unwrap_or(file)
                .display()
                .to_string();
            let source =
                std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let cases_path = file.with_extension("cases.json");
            let cases_text = std::fs::read_to_string(&cases_path)
                .map_err(|e| format!("{}: {e}", cases_path.display()))?;
            let cases: serde_json::Value = serde_json::from_str(&cases_text)
                .map_err(|e| format!("{}: {e}", cases_path.display()))?;
            let zokrates = cases["zokrates_constraints"]
                .as_u64()
                .ok_or_else(|| format!("{}: no `zokrates_constraints`", cases_path.display()))?;
            let monolithic = measure::monolithic_constraints(&program, &source, field_cmp);
            let circuit = circuit_constraints(&program, &source, field_cmp);
            // A `fails` case has no trace to measure.
            let cells = cases["cases"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["fails"].as_bool() != Some(true))
                .find_map(|c| {
                    measure::measure(&program, &source, Some(&c["inputs"]), &settings, &|_| {}).ok()
                })
                .and_then(|m| m.report.totals.sumcheck_cells);
            Ok(ParityRow {
                program,
                zokrates,
                monolithic,
                circuit,
                cells,
            })
        })
        .collect()
}
