//! Constraint parity with ZoKrates (issue 11, item 4): for every program of the ZoKrates suite
//! (`../shared/peers/zokrates`, read at test time, never copied) that compiles `--monolithic` at
//! `-O3`, zkbc's constraint count of main's single block is at most ZoKrates' own
//! `zokrates_constraints`.
//!
//! zkbc compiles with `--field-cmp zokrates` here: ZoKrates' comparison of two non-constant field
//! elements works only below 2^252 and its count is for that; zkbc's default, complete over the
//! whole field, costs more (see the r1cs cost table).
//!
//! Both sides count the same things: ZoKrates counts the range checks of main's `uN`/`bool`
//! inputs and the constraints binding its outputs; zkbc's entry block range-checks main's `uN`
//! and `bool` inputs and binds its output state, so the one-block circuit includes both.
//!
//! zkbc's one block also has two constraints ZoKrates has no counterpart for: the block-transition
//! interface checks its own input label and its output label (`return`: 0) against constants.
//! A monolithic circuit has no transitions, so the comparison is on the count without those two
//! ([`LABEL_CHECKS`]); the table shows the raw count as well.
//!
//! Programs where zkbc is above ZoKrates are in [`ALLOWANCES`], each with both counts and the
//! reason; an allowance whose program is at or below ZoKrates (or whose zkbc count changed) fails
//! the test, so the list only shrinks and stays exact.
//!
//! The table (program, ZoKrates' count, zkbc monolithic, zkbc block-based sumcheck cells at
//! `-O3` on the first case's inputs) is `docs/zokrates_parity.md`; `UPDATE_EXPECT=1 cargo test
//! --test zokrates_parity` refreshes it.

use std::path::{Path, PathBuf};
use zkbc::report::pipeline::{self, Settings};

/// Programs where zkbc's monolithic count is above ZoKrates': (program, ZoKrates' count, zkbc's
/// count, reason).
const ALLOWANCES: &[(&str, u64, u64, &str)] = &[];

/// Field comparisons of two non-constant elements with ZoKrates' own semantics
/// (`--field-cmp zokrates`: both operands below 2^252), as ZoKrates' counts are for that.
const FIELD_CMP: pipeline::FieldCmp = pipeline::FieldCmp::Zokrates;

/// The constraints of the one block that only the block interface needs: `in_label = L` and
/// `out_label = 0` (a returning block). Instance variables are never eliminated, so both stay.
const LABEL_CHECKS: u64 = 2;

/// The count compared with ZoKrates': the one block's constraints without the label checks.
fn compared(monolithic: u64) -> u64 {
    assert!(
        monolithic >= LABEL_CHECKS,
        "a block has its two label checks"
    );
    monolithic - LABEL_CHECKS
}

/// The suite's folder, found as `tests/zokrates_suite.rs` finds it.
fn suite_root() -> PathBuf {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_root
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| crate_root.join("../shared/peers/zokrates"))
}

fn zok_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            zok_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "zok") {
            out.push(p);
        }
    }
}

/// One program's row.
struct Row {
    program: String,
    zokrates: u64,
    /// `None`: no one-block circuit (does not compile `--monolithic`, or not to one block).
    monolithic: Option<u64>,
    /// Σ Q_b · X_b at `-O3` on the first case that runs; `None` when no case runs.
    cells: Option<u128>,
}

fn rows(root: &Path) -> Vec<Row> {
    let mut files = Vec::new();
    zok_files(root, &mut files);
    files.sort();
    files
        .iter()
        .map(|file| {
            let program = file
                .strip_prefix(root)
                .expect("under the root")
                .display()
                .to_string();
            let source = std::fs::read_to_string(file).expect("readable program");
            let cases_text =
                std::fs::read_to_string(file.with_extension("cases.json")).expect("cases file");
            let cases: serde_json::Value = serde_json::from_str(&cases_text).expect("cases JSON");
            let zokrates = cases["zokrates_constraints"]
                .as_u64()
                .expect("zokrates_constraints");
            let monolithic = pipeline::monolithic_constraints(&program, &source, FIELD_CMP);
            // The block-based cost: the first case whose run succeeds (a `fails` case has no
            // trace to measure).
            let cells = cases["cases"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["fails"].as_bool() != Some(true))
                .find_map(|c| {
                    pipeline::measure(
                        &program,
                        &source,
                        Some(&c["inputs"]),
                        &Settings {
                            field_cmp: FIELD_CMP,
                            ..Settings::default()
                        },
                        &|_| {},
                    )
                    .ok()
                })
                .and_then(|m| m.report.totals.sumcheck_cells);
            Row {
                program,
                zokrates,
                monolithic,
                cells,
            }
        })
        .collect()
}

fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    s.push_str(
        "# Constraint parity with ZoKrates\n\n\
         Generated by `tests/zokrates_parity.rs` (`UPDATE_EXPECT=1 cargo test --test \
         zokrates_parity` refreshes it) from the ZoKrates 0.8.8 suite in \
         `../shared/peers/zokrates`.\n\n\
         Both sides compare two non-constant field elements with ZoKrates' semantics (zkbc's \
         `--field-cmp zokrates`: both operands must be below 2^252); zkbc's default comparison \
         is complete over the field and costs 2 · 384 + 131 instead of 252 + 252 + 253.\n\n\
         - **ZoKrates**: `zokrates_constraints`, ZoKrates' own count (main's input range checks \
         and outputs included).\n\
         - **zkbc monolithic**: constraints of main's single block compiled `--monolithic` at \
         `-O3` (main's `uN`/`bool` inputs range-checked, outputs bound); `—` when the program \
         has no one-block circuit.\n\
         - **zkbc block cells**: the block-based prover's sumcheck cells Σ Q_b · X_b at `-O3` on \
         the first case of the program that runs.\n\
         - **zkbc compared**: zkbc monolithic without the block interface's two label checks \
         (`in_label = L`, `out_label = 0`), which a one-block circuit does not need and ZoKrates \
         has no counterpart for; this is the count held to ZoKrates'.\n\
         - **≤**: whether zkbc compared is at or below ZoKrates (`allowed`: listed with its \
         reason in the test's `ALLOWANCES`).\n\n\
         | program | ZoKrates | zkbc monolithic | zkbc compared | zkbc block cells | ≤ |\n\
         |---|---:|---:|---:|---:|:-:|\n",
    );
    for r in rows {
        let mono = r.monolithic.map_or("—".to_string(), |m| m.to_string());
        let cells = r.cells.map_or("—".to_string(), |c| c.to_string());
        let cmp = r
            .monolithic
            .map_or("—".to_string(), |m| compared(m).to_string());
        let ok = match r.monolithic {
            None => "",
            Some(m) if compared(m) <= r.zokrates => "yes",
            Some(_) => "allowed",
        };
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            r.program, r.zokrates, mono, cmp, cells, ok
        ));
    }
    let n = rows.iter().filter(|r| r.monolithic.is_some()).count();
    let below = rows
        .iter()
        .filter(|r| r.monolithic.is_some_and(|m| compared(m) <= r.zokrates))
        .count();
    s.push_str(&format!(
        "\n{below} of the {n} programs with a one-block circuit are at or below ZoKrates' \
         count ({} programs in the suite).\n",
        rows.len()
    ));
    if !ALLOWANCES.is_empty() {
        s.push_str("\n## Allowances\n\n");
        for (p, z, m, why) in ALLOWANCES {
            s.push_str(&format!("- `{p}` (ZoKrates {z}, zkbc {m}): {why}\n"));
        }
    }
    s
}

#[test]
fn zokrates_parity() {
    let root = suite_root();
    if !root.is_dir() {
        eprintln!(
            "skipping ZoKrates parity: {} is absent (it lives beside the crate, in \
             ../shared/peers/zokrates)",
            root.display()
        );
        return;
    }
    let rows = rows(&root);
    let text = table(&rows);
    eprintln!("{text}");
    let mut failures = Vec::new();
    for r in &rows {
        let allowance = ALLOWANCES.iter().find(|a| a.0 == r.program);
        match (r.monolithic.map(compared), allowance) {
            (Some(m), None) if m > r.zokrates => failures.push(format!(
                "{}: zkbc {m} > ZoKrates {} (not in ALLOWANCES)",
                r.program, r.zokrates
            )),
            (Some(m), Some(&(_, z, am, _))) => {
                if m <= r.zokrates {
                    failures.push(format!(
                        "{}: zkbc {m} ≤ ZoKrates {}: remove its allowance",
                        r.program, r.zokrates
                    ));
                } else if m != am || z != r.zokrates {
                    failures.push(format!(
                        "{}: allowance says ZoKrates {z}, zkbc {am}; now ZoKrates {}, zkbc {m}: \
                         update it",
                        r.program, r.zokrates
                    ));
                }
            }
            (None, Some(_)) => failures.push(format!(
                "{}: allowance for a program without a one-block circuit",
                r.program
            )),
            _ => {}
        }
    }
    for (p, ..) in ALLOWANCES {
        if !rows.iter().any(|r| r.program == *p) {
            failures.push(format!("{p}: allowance for a program not in the suite"));
        }
    }
    expect_test::expect_file!["../docs/zokrates_parity.md"].assert_eq(&text);
    assert!(
        failures.is_empty(),
        "{} parity failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
