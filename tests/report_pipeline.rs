//! The report of every corpus program, end to end (`zkbc::report::measure`):
//!
//! - its JSON at the default level on its inputs is a snapshot
//!   (`tests/snapshots/report/NAME.json`; `UPDATE_EXPECT=1 cargo test --test all report_pipeline::`
//!   refreshes them), so a change that costs constraints or cells shows in the diff;
//! - every total is recomputed here from the `blocks` list of the JSON and the definitions of
//!   docs/report.md, independently of `zkbc::cost`;
//! - every execution count the static report claims to know equals the count of a real run, at
//!   every level;
//! - the report's own cells are at most each baseline it prints (`--no-merge`, `--monolithic`),
//!   and each baseline is that pipeline's own report;
//! - every block `--explain` names is a block of the program before merging;
//! - the SVG chart renders (rsvg-convert) and the DOT graphs are accepted by `dot -Tsvg`, where
//!   those tools are installed (the reason is printed when a check is skipped).

use crate::common;
use expect_test::expect_file;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use zkbc::driver;
use zkbc::ir::interp;
use zkbc::opt::OptLevel;
use zkbc::report::measure::{measure, Measurement, Merging, Settings};
use zkbc::report::{dot, svg, to_json};

fn corpus() -> Vec<(String, PathBuf)> {
    let files: Vec<(String, PathBuf)> = common::corpus()
        .into_iter()
        .map(|p| {
            let name = p
                .file_stem()
                .expect("a file")
                .to_string_lossy()
                .into_owned();
            (name, p)
        })
        .collect();
    assert!(files.len() >= 20, "the corpus has its programs");
    files
}

fn inputs_of(path: &Path) -> Value {
    let text = std::fs::read_to_string(path.with_extension("json")).expect("inputs exist");
    serde_json::from_str(&text).expect("inputs are JSON")
}

fn expected_outputs(path: &Path) -> Value {
    let file = path.with_extension("expected.json");
    let text = std::fs::read_to_string(&file).expect("expected outputs exist");
    let json: Value = serde_json::from_str(&text).expect("expected outputs are JSON");
    json.get("outputs").cloned().unwrap_or(json)
}

fn measured(path: &Path, inputs: Option<&Value>, settings: &Settings) -> Measurement {
    let name = format!("{}", path.display());
    let text = std::fs::read_to_string(path).expect("program exists");
    measure(&name, &text, inputs, settings, &|_| {})
        .unwrap_or_else(|e| panic!("{name} at {:?}: {e}", settings.opt_level))
}

/// Every corpus program measured at the default settings on its inputs, once for the tests
/// that share it (with its baselines, this is the slow part).
fn default_corpus() -> &'static [(String, PathBuf, Measurement)] {
    static MEASURED: OnceLock<Vec<(String, PathBuf, Measurement)>> = OnceLock::new();
    MEASURED.get_or_init(|| {
        corpus()
            .into_iter()
            .map(|(name, path)| {
                let m = measured(&path, Some(&inputs_of(&path)), &Settings::default());
                (name, path, m)
            })
            .collect()
    })
}

#[test]
fn corpus_reports_match_their_snapshots() {
    for (name, path, m) in default_corpus() {
        let r = &m.report;
        assert_eq!(r.program, *name);
        assert_eq!(r.satisfied, Some(true), "{name}");
        assert_eq!(
            r.outputs.as_ref(),
            Some(&expected_outputs(path)),
            "{name}: the report's outputs are the expected outputs"
        );
        expect_file![format!("snapshots/report/{name}.json")].assert_eq(&to_json(r));
    }
}

/// With a profile run on the inputs, cost-driven block formation compares its result with no
/// merging and with one block, so the report's own cells are never above either baseline it
/// prints; and each baseline is what the report of that pipeline says.
#[test]
fn the_default_is_at_most_each_baseline() {
    let mut compared = 0;
    for (name, path, m) in default_corpus() {
        let own = m
            .report
            .totals
            .sumcheck_cells
            .expect("a run knows every count");
        let b = m.report.baselines.as_ref().expect("baselines are measured");
        let no_merge = b.no_merge_cells.expect("--no-merge always exists");
        assert!(
            own <= no_merge,
            "{name}: {own} cells, --no-merge {no_merge}"
        );
        compared += 1;
        match b.monolithic_cells {
            Some(mono) => {
                assert!(own <= mono, "{name}: {own} cells, --monolithic {mono}");
                assert_eq!(b.monolithic_none, None);
                compared += 1;
            }
            None => {
                // Exactly the programs without a one-block circuit, and the report says why.
                assert_eq!(m.report.totals.monolithic_cells, None, "{name}");
                assert_eq!(
                    b.monolithic_none.as_deref(),
                    Some("a loop bound is a run-time value"),
                    "{name}"
                );
            }
        }
        // The baselines are the cells of the reports of those pipelines.
        let inputs = inputs_of(path);
        for (merging, cells) in [
            (Merging::Off, b.no_merge_cells),
            (Merging::Monolithic, b.monolithic_cells),
        ] {
            if cells.is_none() {
                continue;
            }
            let settings = Settings {
                merging,
                baselines: false,
                ..Settings::default()
            };
            let other = measured(path, Some(&inputs), &settings);
            assert_eq!(
                other.report.totals.sumcheck_cells, cells,
                "{name}: the {merging:?} baseline is that pipeline's report"
            );
        }
    }
    assert!(compared > default_corpus().len());
}

fn pow2_at_least(n: u128) -> u128 {
    let mut p = 1u128;
    while p < n {
        p *= 2;
    }
    p
}

fn log2_exact(n: u128) -> u32 {
    assert!(n.is_power_of_two(), "{n} is a power of two");
    n.trailing_zeros()
}

fn ceil_log2(n: u128) -> u32 {
    (0..).find(|k| (1u128 << k) >= n).expect("small")
}

fn int(v: &Value, field: &str) -> u128 {
    v[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} is an integer in {v}")) as u128
}

/// Recomputes every total of a report's JSON from its `blocks` and the definitions of
/// docs/report.md, and compares each with what the JSON says. Returns the number of fields
/// compared.
fn recompute_totals(json: &Value) -> usize {
    let blocks = json["blocks"].as_array().expect("blocks is an array");
    let totals = &json["totals"];
    let min_block_size = int(json, "min_block_size");
    let max_cons = blocks
        .iter()
        .map(|b| int(b, "constraints"))
        .max()
        .unwrap_or(0);
    let threshold = pow2_at_least(max_cons).max(min_block_size);
    assert_eq!(int(json, "threshold"), threshold, "threshold");
    assert_eq!(int(totals, "blocks"), blocks.len() as u128, "blocks");
    let constraints: u128 = blocks.iter().map(|b| int(b, "constraints")).sum();
    assert_eq!(int(totals, "constraints"), constraints, "constraints");

    let mut known = true;
    let (mut e_sum, mut transitions, mut cells, mut uniform) = (0u128, 0u128, 0u128, 0u128);
    let (mut words, mut trans_cells, mut accesses) = (0u128, 0u128, 0u128);
    let mut read_only = 0u128;
    let (mut max_q, mut max_x) = (0u128, 0u128);
    for b in blocks {
        let cons = int(b, "constraints");
        let x = pow2_at_least(cons).max(2);
        assert_eq!(int(b, "padded_constraints"), x, "X_b of {b}");
        max_x = max_x.max(x);
        match b["executions"].as_u64() {
            Some(e) => {
                let e = u128::from(e);
                let q = if e == 0 { 0 } else { pow2_at_least(e) };
                assert_eq!(int(b, "padded_executions"), q, "Q_b of {b}");
                assert_eq!(int(b, "sumcheck_cells"), q * x, "cells of {b}");
                e_sum += e * cons;
                transitions += e;
                cells += q * x;
                uniform += q * threshold;
                let io = int(b, "io_vars");
                words += e * io;
                trans_cells += q * pow2_at_least(io).max(2);
                accesses += e * int(b, "accesses");
                read_only += e * int(b, "read_only_accesses");
                max_q = max_q.max(q);
            }
            None => {
                assert!(b["padded_executions"].is_null() && b["sumcheck_cells"].is_null());
                known = false;
            }
        }
    }
    let exact = totals["monolithic_exact"].as_bool().expect("a bool");
    if !known {
        for field in [
            "executed_constraints",
            "transitions",
            "sumcheck_cells",
            "uniform_cells",
            "padding_waste",
            "rounds",
        ] {
            assert!(totals[field].is_null(), "{field} is null when unknown");
        }
        assert_eq!(exact, !totals["monolithic_cells"].is_null());
        if let Some(b) = json["baselines"].as_object() {
            // A static report counts the baselines statically too.
            for field in ["no_merge_cells", "monolithic_cells"] {
                if b[field].is_null() {
                    continue;
                }
                assert!(b[field].as_u64().is_some_and(|c| c > 0), "{field}");
            }
        }
        return 3;
    }
    assert_eq!(int(totals, "executed_constraints"), e_sum);
    assert_eq!(int(totals, "transitions"), transitions);
    assert_eq!(int(totals, "block_cells"), cells);
    if transitions <= 1 {
        (words, trans_cells) = (0, 0);
    }
    assert_eq!(int(totals, "state_words"), words);
    assert_eq!(int(totals, "transition_cells"), trans_cells);
    // The memory check, per list. Read-write: every address and every access is an entry; the
    // pair instance (6 + T, T the bits of its accesses) runs on every adjacent pair, the grand
    // product (1, padded to 2) on every entry twice. Read-only: the public entries and every
    // access; its pair instance has 4 constraints.
    let list = |accesses: u128, public: u128, pair: u128| {
        if accesses == 0 {
            return (0, 0, 0);
        }
        let entries = accesses + public;
        (
            entries,
            (entries - 1) * pair + 2 * entries,
            pow2_at_least(entries - 1) * pow2_at_least(pair).max(2)
                + pow2_at_least(2 * entries) * 2,
        )
    };
    let read_write = accesses - read_only;
    let rw_size = int(json, "memory_size") - int(json, "read_only_memory_size");
    let rw = list(read_write, rw_size, 6 + ceil_log2(read_write + 1) as u128);
    let ro = list(read_only, int(json, "read_only_inits"), 4);
    let (entries, mem_constraints, mem_cells) = (rw.0 + ro.0, rw.1 + ro.1, rw.2 + ro.2);
    assert_eq!(int(totals, "memory_accesses"), accesses);
    assert_eq!(int(totals, "memory_entries"), entries);
    assert_eq!(int(totals, "memory_constraints"), mem_constraints);
    assert_eq!(int(totals, "memory_cells"), mem_cells);
    assert_eq!(int(totals, "read_only_accesses"), read_only);
    assert_eq!(int(totals, "read_only_entries"), ro.0);
    assert_eq!(int(totals, "read_only_constraints"), ro.1);
    assert_eq!(int(totals, "read_only_cells"), ro.2);
    let total = cells + trans_cells + mem_cells;
    assert_eq!(int(totals, "sumcheck_cells"), total);
    assert_eq!(int(totals, "uniform_cells"), uniform);
    let waste = totals["padding_waste"].as_f64().expect("a number");
    let expected_waste = if cells == 0 {
        0.0
    } else {
        1.0 - (e_sum + words + mem_constraints) as f64 / total as f64
    };
    assert!(
        (waste - expected_waste).abs() < 1e-12,
        "padding_waste {waste} vs {expected_waste}"
    );
    let rounds = if cells == 0 {
        0
    } else {
        ceil_log2(blocks.len() as u128) + log2_exact(max_q) + log2_exact(max_x)
    };
    assert_eq!(int(totals, "rounds"), u128::from(rounds));
    // Exact, or null: without a one-block circuit there is no bound to give.
    if exact {
        assert!(int(totals, "monolithic_cells").is_power_of_two());
        assert!(int(totals, "monolithic_cells") >= 2);
    } else {
        assert!(totals["monolithic_cells"].is_null());
        assert!(totals["monolithic_none"].is_string());
    }
    10
}

#[test]
fn every_total_is_recomputed_from_the_blocks() {
    let mut checked = 0;
    for (name, path) in corpus() {
        let inputs = inputs_of(&path);
        for settings in [
            Settings::default(),
            Settings {
                opt_level: OptLevel::O1,
                min_block_size: 32768,
                ..Settings::default()
            },
        ] {
            for inputs in [Some(&inputs), None] {
                let m = measured(&path, inputs, &settings);
                let json: Value = serde_json::from_str(&to_json(&m.report)).expect("JSON");
                let n = std::panic::catch_unwind(|| recompute_totals(&json))
                    .unwrap_or_else(|_| panic!("{name} at {:?}: a total is wrong", settings));
                checked += n;
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn known_static_executions_equal_the_run() {
    let (mut known, mut total) = (0, 0);
    for (name, path) in corpus() {
        let text = std::fs::read_to_string(&path).expect("program exists");
        let inputs = inputs_of(&path);
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
            let options = driver::Options {
                opt_level: level,
                ..driver::Options::default()
            };
            let mut c =
                driver::compile(&format!("{name}.zok"), &text, &options).expect("corpus compiles");
            driver::legalize_for_r1cs(&mut c.program).expect("legalizes");
            let values = c.inputs_from_json(&inputs).expect("inputs fit");
            let outcome =
                interp::run(&c.program, &values, interp::Limits::default()).expect("corpus runs");
            let traced = zkbc::cost::traced_executions(&outcome);
            let statik = zkbc::cost::static_executions(&c.program);
            // Programs whose every loop has a constant bound (they have a one-block circuit)
            // are the ones the rules aim at; the others count only towards correctness.
            let counted = zkbc::report::measure::monolithic_constraints(
                &format!("{name}.zok"),
                &text,
                zkbc::report::measure::FieldCmp::Complete,
            )
            .is_some();
            for (key, n) in &statik {
                total += usize::from(counted);
                if let Some(n) = n {
                    known += usize::from(counted);
                    let ran = traced.get(key).copied().flatten().unwrap_or(0);
                    assert_eq!(
                        *n, ran,
                        "{name} at {level:?}: {:?} is statically {n} but ran {ran} times",
                        key.1
                    );
                }
            }
        }
    }
    // The rules know most blocks of the programs without run-time loop bounds (entry,
    // straight-line code, counted loops).
    assert!(known * 2 > total, "{known} of {total} static counts known");
}

#[test]
fn a_counted_loop_is_known_statically_and_a_runtime_loop_is_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits");
    let mimc = measured(&root.join("mimc.zok"), None, &Settings::default());
    assert!(
        mimc.report.blocks.iter().all(|b| b.executions.is_some()),
        "mimc's loop has a constant bound: {:?}",
        mimc.report.blocks
    );
    assert!(mimc.report.totals.sumcheck_cells.is_some());
    let gcd = measured(&root.join("gcd.zok"), None, &Settings::default());
    assert!(gcd.report.blocks.iter().any(|b| b.executions.is_none()));
    assert_eq!(
        gcd.report.blocks[0].executions,
        Some(1),
        "the entry runs once"
    );
    assert_eq!(gcd.report.totals.sumcheck_cells, None);
    assert_eq!(gcd.report.satisfied, None);
    assert_eq!(gcd.report.outputs, None);
}

fn tool(name: &str) -> bool {
    let found = Command::new(name).arg("-V").output().is_ok();
    if !found {
        eprintln!("skipped: `{name}` is not installed");
    }
    found
}

#[test]
fn every_corpus_dot_graph_is_accepted_by_graphviz() {
    if !tool("dot") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, _, m) in default_corpus() {
        let main = m.compilation.program.main_func();
        let clusters = zkbc::report::dot::merge_clusters(main);
        let annotations = dot::annotations_from_report(main, &m.report);
        assert_eq!(
            annotations.len(),
            main.layout.len(),
            "{name}: every block annotated"
        );
        let text = dot::render(main, &annotations, &clusters).expect("laminar clusters");
        let file = dir.path().join(format!("{name}.dot"));
        std::fs::write(&file, &text).expect("writes");
        let out = Command::new("dot")
            .arg("-Tsvg")
            .arg(&file)
            .output()
            .expect("dot runs");
        assert!(
            out.status.success() && out.stdout.starts_with(b"<?xml"),
            "{name}: dot rejects the graph: {}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `--format dot --explain`: every block a first-round decision names is a block of the
/// program before merging (with formation's latches), and the drawing of the decisions is
/// accepted by `dot`.
#[test]
fn every_corpus_explain_graph_names_blocks_before_merging() {
    let have_dot = tool("dot");
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, path, m) in default_corpus() {
        let text = std::fs::read_to_string(path).expect("program exists");
        let inputs = inputs_of(path);
        let before = zkbc::report::measure::before_merging(
            &path.display().to_string(),
            &text,
            Some(&inputs),
            &Settings::default(),
            &|_| {},
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let main = before.compilation.program.main_func();
        let decisions = zkbc::report::explain::decisions(&m.compilation.opt_report);
        assert!(!decisions.is_empty(), "{name}: -O3 records its formations");
        // Round 1 looks at the program before merging (with formation's latches); later
        // rounds may also name blocks a loop rotation made.
        for d in decisions.iter().filter(|d| d.round == 1) {
            if let zkbc::opt::merge::Subject::Component { blocks, .. } = &d.subject {
                for b in blocks {
                    assert!(
                        main.layout.iter().any(|l| l.to_string() == *b),
                        "{name}: {b} of {d:?} is not a block before merging"
                    );
                }
            }
        }
        let (clusters, _) = dot::decision_clusters(main, &decisions);
        let annotations = dot::annotations_from_report(main, &before.report);
        let graph = dot::render_clusters(main, &annotations, &clusters, Some("explain"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if have_dot {
            let file = dir.path().join(format!("{name}.dot"));
            std::fs::write(&file, &graph).expect("writes");
            let out = Command::new("dot")
                .arg("-Tsvg")
                .arg(&file)
                .output()
                .expect("dot runs");
            assert!(
                out.status.success() && out.stdout.starts_with(b"<?xml"),
                "{name}: dot rejects the graph: {}\n{graph}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn the_corpus_charts_render_to_png() {
    if !tool("rsvg-convert") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, _, m) in default_corpus() {
        let text = svg::render(&m.report).expect("draws");
        let svg_file = dir.path().join(format!("{name}.svg"));
        let png_file = dir.path().join(format!("{name}.png"));
        std::fs::write(&svg_file, &text).expect("writes");
        let out = Command::new("rsvg-convert")
            .arg(&svg_file)
            .arg("-o")
            .arg(&png_file)
            .output()
            .expect("rsvg-convert runs");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let png = std::fs::read(&png_file).expect("a PNG was written");
        assert!(png.starts_with(b"\x89PNG"), "{name}: not a PNG");
        assert!(png.len() > 2000, "{name}: the PNG has content");
    }
}

/// The lines a source label names (`bubble_sort.zok:6-9, other.zok:3`): file short name, first
/// and last line.
fn named_lines(source: &str) -> Vec<(String, usize, usize)> {
    source
        .split(", ")
        .map(|part| {
            let (file, lines) = part.rsplit_once(':').expect("FILE:LINES");
            let (first, last) = lines.split_once('-').unwrap_or((lines, lines));
            let n = |s: &str| s.parse::<usize>().expect("a line number");
            (file.to_string(), n(first), n(last))
        })
        .collect()
}

/// Every block of every corpus report (default pipeline, and `-O0`, whose blocks are the front
/// end's own) names the source lines it came from: lines that exist in the program's file and
/// hold code (not blank, not only a comment or a brace); the same label is in the report's JSON,
/// its table and its DOT graph.
#[test]
fn every_corpus_block_names_source_lines_that_exist() {
    let o0 = Settings {
        opt_level: OptLevel::O0,
        ..Settings::default()
    };
    for (name, path, m) in default_corpus() {
        let text = std::fs::read_to_string(path).expect("program exists");
        let lines: Vec<&str> = text.lines().collect();
        let short = path.file_name().unwrap().to_str().unwrap();
        let o0_report = measured(path, Some(&inputs_of(path)), &o0).report;
        for (level, report) in [("default", &m.report), ("O0", &o0_report)] {
            let json: Value = serde_json::from_str(&to_json(report)).expect("JSON");
            let table = zkbc::report::table::render(report);
            for (b, jb) in report.blocks.iter().zip(json["blocks"].as_array().unwrap()) {
                let source = b
                    .source
                    .as_deref()
                    .unwrap_or_else(|| panic!("{name} {level}: {} has no source", b.label));
                assert_eq!(jb["source"].as_str(), Some(source), "{name} {level}");
                assert!(
                    table.lines().any(|l| {
                        let mut words = l.split_whitespace();
                        words.next() == Some(b.label.as_str())
                            && words.next() == Some(source.split(", ").next().unwrap())
                    }),
                    "{name} {level}: no table row `{} {source}`",
                    b.label
                );
                for (file, first, last) in named_lines(source) {
                    // Corpus programs import nothing: every line is in their own file.
                    assert_eq!(file, short, "{name} {level} {}", b.label);
                    assert!(first >= 1 && first <= last && last <= lines.len());
                    for l in [first, last] {
                        let code = lines[l - 1].trim();
                        assert!(
                            !code.is_empty() && !code.starts_with("//") && code != "}",
                            "{name} {level}: {} names line {l}, `{code}`",
                            b.label
                        );
                    }
                }
            }
        }
        let main = m.compilation.program.main_func();
        let annotations = dot::annotations_from_report(main, &m.report);
        let graph = dot::render(main, &annotations, &[]).expect("no clusters");
        for b in &m.report.blocks {
            let source = b.source.as_deref().unwrap();
            assert!(
                graph.contains(&format!("{}\\n{source}\\n", b.label))
                    || graph.contains(&format!("{} (entry)\\n{source}\\n", b.label)),
                "{name}: the DOT box of {} does not name {source}",
                b.label
            );
        }
    }
}
