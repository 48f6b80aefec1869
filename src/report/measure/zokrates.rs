//! Constraint parity with ZoKrates, measured: for every program of a ZoKrates suite folder
//! (`NAME.zok` beside `NAME.cases.json`, as `../shared/peers/zokrates` holds them), ZoKrates'
//! own constraint count, zkbc's one-block count (`--monolithic -O3`) and block cells. The table
//! is rendered by [`crate::report::zokrates::markdown`].
//!
//! Both sides count the same things: ZoKrates counts the range checks of main's `uN`/`bool`
//! inputs and the constraints binding its outputs; zkbc's entry block range-checks main's `uN`
//! and `bool` inputs and binds its output state, so the one-block circuit includes both. The
//! count held to ZoKrates' is the circuit `zkbc export --monolithic` writes
//! ([`crate::driver::circuit::main_circuit`]): the one block without the block-transition interface (its
//! two label checks), every other constraint counted.

use super::{self as measure, FieldCmp, Settings};
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
        field_cmp,
        ..Settings::default()
    };
    circuit_constraints_with(file_name, source, &settings).ok()
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

/// One yardstick of ZoKrates' standard library (`yardsticks.tsv`: a one-line program calling a
/// library entry point on private inputs), compiled with zkbc's built-in library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YardstickRow {
    /// The program's path relative to the folder (`yardsticks/sha256_512bit.zok`).
    pub program: String,
    /// The library module it calls (`hashes/sha256/512bit`).
    pub module: String,
    /// ZoKrates' constraint count.
    pub zokrates: u64,
    /// ZoKrates' compile time in seconds, as `yardsticks.tsv` gives it.
    pub zokrates_compile_s: String,
    /// The constraints of the circuit `zkbc export --monolithic --compat zokrates` writes, or
    /// why there is none (in a few words).
    pub circuit: Result<u64, String>,
    /// Σ Q_b · X_b at `-O3` (`--compat zokrates`), executions counted statically; `None` when
    /// the program does not compile or its executions are not known statically.
    pub cells: Option<u128>,
}

impl YardstickRow {
    /// Whether zkbc's circuit is at or below ZoKrates' count (`None`: no circuit).
    pub fn at_or_below(&self) -> Option<bool> {
        self.circuit.as_ref().ok().map(|&c| c <= self.zokrates)
    }
}

/// Library modules whose yardsticks the table does not compile `--monolithic`, and why (none
/// today: Keccak's 24 unrolled rounds exhausted memory in R1CS lowering until long bit
/// combinations were shortened like long packed values).
const NOT_MEASURED: &[(&str, &str)] = &[];

/// The settings of the yardstick table: zkbc's built-in library, ZoKrates' semantics.
fn yardstick_settings() -> Settings {
    Settings {
        field_cmp: FieldCmp::Zokrates,
        compat: crate::front::Compat::Zokrates,
        stdlib: None,
        baselines: false,
        ..Settings::default()
    }
}

/// The constraints of the one-circuit export of `source` compiled `--monolithic` at `-O3` with
/// `base`'s front-end settings, or why there is none.
pub fn circuit_constraints_with(
    file_name: &str,
    source: &str,
    base: &Settings,
) -> Result<u64, String> {
    let compilation = measure::monolithic_compilation(file_name, source, base)?;
    let (instance, _) =
        crate::driver::circuit::main_circuit(&compilation, None).map_err(|e| e.to_string())?;
    Ok(instance.r1cs.num_constraints() as u64)
}

/// The rows of every yardstick that `root/yardsticks.tsv` lists (columns `program`,
/// `stdlib_module`, `constraints`, `compile_s`), in its order, each compiled with zkbc's
/// built-in library under `--compat zokrates`. An error names a file that cannot be read or a
/// malformed line of the list.
pub fn yardstick_rows(root: &Path) -> Result<Vec<YardstickRow>, String> {
    let list_path = root.join("yardsticks.tsv");
    let list =
        std::fs::read_to_string(&list_path).map_err(|e| format!("{}: {e}", list_path.display()))?;
    let mut lines = list.lines().enumerate();
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split('\t').collect(),
        None => return Err(format!("{}: empty", list_path.display())),
    };
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| format!("{}: no `{name}` column", list_path.display()))
    };
    let (c_program, c_module, c_count, c_time) = (
        column("program")?,
        column("stdlib_module")?,
        column("constraints")?,
        column("compile_s")?,
    );
    let settings = yardstick_settings();
    let mut rows = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let at = |c: usize| {
            fields
                .get(c)
                .copied()
                .ok_or_else(|| format!("{}:{}: too few columns", list_path.display(), i + 1))
        };
        let program = at(c_program)?.to_string();
        let zokrates = at(c_count)?
            .parse::<u64>()
            .map_err(|e| format!("{}:{}: constraints: {e}", list_path.display(), i + 1))?;
        let file = root.join(&program);
        let source =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let module = at(c_module)?;
        let circuit = match NOT_MEASURED.iter().find(|(m, _)| module.starts_with(m)) {
            Some((_, why)) => Err(why.to_string()),
            None => circuit_constraints_with(&program, &source, &settings),
        };
        let cells = match circuit {
            Ok(_) => measure::measure(&program, &source, None, &settings, &|_| {})
                .ok()
                .and_then(|m| m.report.totals.sumcheck_cells),
            Err(_) => None,
        };
        rows.push(YardstickRow {
            program,
            module: module.to_string(),
            zokrates,
            zokrates_compile_s: at(c_time)?.to_string(),
            circuit,
            cells,
        });
    }
    Ok(rows)
}
