//! One table over many reports (programs × pipelines), like Bril's brench: the data behind
//! `zkbc table` and the README's results table.
//!
//! - [`csv`]: one row per report, raw numbers, empty cells for unknowns; for scripts.
//! - [`markdown`]: the same rows for people: thousands separators, waste as a percentage, `?`
//!   for unknowns.
//! - [`pivot_markdown`]: one metric, programs down and pipelines across.
//! - [`json_rows`]: the reports as a JSON array in the report's schema.
//!
//! A pipeline is a report's `opt_level` with its `min_block_size`, written `O2/1024`. Rows keep
//! the order of the input. A row is a [`Row`]: a report, or a program that failed under a
//! pipeline ([`Failure`]), which every form marks and whose error it gives (the `error` column
//! or field); the functions on `&[Report]` are those on rows that are all reports.

use super::{group_digits, percent};
use crate::cost::Report;
use std::fmt::Write;

/// The columns of [`csv`] and [`markdown`], in order.
pub const COLUMNS: [&str; 15] = [
    "program",
    "opt_level",
    "min_block_size",
    "blocks",
    "constraints",
    "executed_constraints",
    "transitions",
    "sumcheck_cells",
    "uniform_cells",
    "padding_waste",
    "rounds",
    "monolithic_cells",
    "monolithic_exact",
    "satisfied",
    "error",
];

/// A program that failed under one pipeline of a table: no report, an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The program's name, as a report names it.
    pub program: String,
    /// The pipeline, as a report's `opt_level` names it.
    pub opt_level: String,
    /// MIN_BLOCK_SIZE.
    pub min_block_size: u64,
    /// The error, as the command line prints it.
    pub error: String,
}

/// One row of a table: a report, or a failure.
#[derive(Clone, Copy, Debug)]
pub enum Row<'a> {
    /// A program measured under a pipeline.
    Report(&'a Report),
    /// A program that failed under a pipeline.
    Failed(&'a Failure),
}

impl Row<'_> {
    fn program(&self) -> &str {
        match self {
            Row::Report(r) => &r.program,
            Row::Failed(f) => &f.program,
        }
    }

    fn pipeline(&self) -> String {
        match self {
            Row::Report(r) => pipeline(r),
            Row::Failed(f) => format!("{}/{}", f.opt_level, f.min_block_size),
        }
    }
}

fn all_reports(reports: &[Report]) -> Vec<Row<'_>> {
    reports.iter().map(Row::Report).collect()
}

/// A total that [`pivot_markdown`] can tabulate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Metric {
    /// `totals.constraints`.
    Constraints,
    /// `totals.executed_constraints`.
    ExecutedConstraints,
    /// `totals.transitions`.
    Transitions,
    /// `totals.sumcheck_cells`.
    SumcheckCells,
    /// `totals.uniform_cells`.
    UniformCells,
    /// `totals.padding_waste`.
    PaddingWaste,
    /// `totals.rounds`.
    Rounds,
    /// `totals.monolithic_cells`.
    MonolithicCells,
}

impl Metric {
    /// The metric's field name in the JSON schema.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Constraints => "constraints",
            Metric::ExecutedConstraints => "executed_constraints",
            Metric::Transitions => "transitions",
            Metric::SumcheckCells => "sumcheck_cells",
            Metric::UniformCells => "uniform_cells",
            Metric::PaddingWaste => "padding_waste",
            Metric::Rounds => "rounds",
            Metric::MonolithicCells => "monolithic_cells",
        }
    }

    /// The metric named `name` (its JSON field name), if any.
    pub fn from_name(name: &str) -> Option<Metric> {
        [
            Metric::Constraints,
            Metric::ExecutedConstraints,
            Metric::Transitions,
            Metric::SumcheckCells,
            Metric::UniformCells,
            Metric::PaddingWaste,
            Metric::Rounds,
            Metric::MonolithicCells,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }

    /// The metric's value in `report` for people, `?` when unknown.
    fn display(self, report: &Report) -> String {
        let t = &report.totals;
        let num = |n: Option<u128>| n.map_or_else(|| "?".to_string(), group_digits);
        match self {
            Metric::Constraints => group_digits(t.constraints),
            Metric::ExecutedConstraints => num(t.executed_constraints),
            Metric::Transitions => num(t.transitions),
            Metric::SumcheckCells => num(t.sumcheck_cells),
            Metric::UniformCells => num(t.uniform_cells),
            Metric::PaddingWaste => t.padding_waste.map_or_else(|| "?".into(), percent),
            Metric::Rounds => t.rounds.map_or_else(|| "?".into(), |r| r.to_string()),
            // Exact, or `?` when there is no one-block circuit.
            Metric::MonolithicCells => num(t.monolithic_cells),
        }
    }
}

/// The pipeline name of a report: `opt_level/min_block_size`.
pub fn pipeline(report: &Report) -> String {
    format!("{}/{}", report.opt_level, report.min_block_size)
}

fn opt<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

/// The cells of one row for CSV: raw numbers, empty when unknown.
fn raw_row(r: &Report) -> Vec<String> {
    let t = &r.totals;
    vec![
        r.program.clone(),
        r.opt_level.clone(),
        r.min_block_size.to_string(),
        t.blocks.to_string(),
        t.constraints.to_string(),
        opt(t.executed_constraints),
        opt(t.transitions),
        opt(t.sumcheck_cells),
        opt(t.uniform_cells),
        opt(t.padding_waste.map(|w| format!("{w:.6}"))),
        opt(t.rounds),
        opt(t.monolithic_cells),
        t.monolithic_exact.to_string(),
        opt(r.satisfied),
        String::new(),
    ]
}

/// A failed row's cells: its name and pipeline, empty totals, and the error.
fn failed_row(f: &Failure, empty: &str) -> Vec<String> {
    let mut row = vec![
        f.program.clone(),
        f.opt_level.clone(),
        f.min_block_size.to_string(),
    ];
    row.resize(COLUMNS.len() - 2, empty.to_string());
    row.push(if empty.is_empty() { "" } else { "failed" }.to_string());
    row.push(f.error.clone());
    row
}

/// A CSV field: quoted (with `"` doubled) when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The reports as CSV with a header row of [`COLUMNS`]; unknown values are empty fields,
/// `padding_waste` is a fraction with six decimals, booleans are `true`/`false`.
pub fn csv(reports: &[Report]) -> String {
    csv_rows(&all_reports(reports))
}

/// [`csv`] of rows: a failed row has its program, pipeline and error, every other field empty.
pub fn csv_rows(rows: &[Row]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for r in rows {
        let cells = match r {
            Row::Report(r) => raw_row(r),
            Row::Failed(f) => failed_row(f, ""),
        };
        let row: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// The rows as a JSON array: each report in the schema of `report --format json`, each
/// failure as `{"schema_version", "program", "opt_level", "min_block_size", "error"}`.
pub fn json_rows(rows: &[Row]) -> String {
    let values: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| match r {
            // A report is plain data; failing to serialize it is a bug.
            Row::Report(r) => serde_json::to_value(r).expect("bug: a Report always serializes"),
            Row::Failed(f) => serde_json::json!({
                "schema_version": crate::cost::SCHEMA_VERSION,
                "program": f.program,
                "opt_level": f.opt_level,
                "min_block_size": f.min_block_size,
                "error": f.error,
            }),
        })
        .collect();
    let mut text =
        serde_json::to_string_pretty(&values).expect("bug: a JSON value always serializes");
    text.push('\n');
    text
}

/// A markdown table cell: `|` escaped, line breaks as spaces.
fn md_cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// A markdown table whose columns `numeric` are right-aligned.
fn md_table(header: &[String], rows: &[Vec<String>], numeric: std::ops::Range<usize>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| {} |",
        header
            .iter()
            .map(|h| md_cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let rule: Vec<&str> = (0..header.len())
        .map(|i| if numeric.contains(&i) { "---:" } else { "---" })
        .collect();
    let _ = writeln!(out, "|{}|", rule.join("|"));
    for row in rows {
        let _ = writeln!(
            out,
            "| {} |",
            row.iter()
                .map(|c| md_cell(c))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    out
}

/// The reports as a markdown table with the columns of [`COLUMNS`], numbers right-aligned with
/// thousands separators, waste as a percentage, `?` for unknown values.
pub fn markdown(reports: &[Report]) -> String {
    markdown_rows(&all_reports(reports))
}

/// [`markdown`] of rows: a failed row has `-` for every total, `failed` as satisfied, and its
/// error.
pub fn markdown_rows(rows: &[Row]) -> String {
    let header: Vec<String> = COLUMNS.iter().map(|c| c.replace('_', " ")).collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let r = match r {
                Row::Report(r) => r,
                Row::Failed(f) => {
                    let mut row = failed_row(f, "-");
                    row[2] = group_digits(f.min_block_size.into());
                    return row;
                }
            };
            let t = &r.totals;
            let num = |n: Option<u128>| n.map_or_else(|| "?".to_string(), group_digits);
            vec![
                r.program.clone(),
                r.opt_level.clone(),
                group_digits(r.min_block_size.into()),
                group_digits(t.blocks.into()),
                group_digits(t.constraints),
                num(t.executed_constraints),
                num(t.transitions),
                num(t.sumcheck_cells),
                num(t.uniform_cells),
                t.padding_waste.map_or_else(|| "?".into(), percent),
                t.rounds.map_or_else(|| "?".into(), |x| x.to_string()),
                num(t.monolithic_cells),
                if t.monolithic_exact { "yes" } else { "no" }.into(),
                r.satisfied
                    .map_or("?", |s| if s { "yes" } else { "NO" })
                    .into(),
                String::new(),
            ]
        })
        .collect();
    // Numbers from min block size to satisfied; the error is text.
    md_table(&header, &rows, 2..COLUMNS.len() - 1)
}

/// One metric as a markdown table: a row per program (in order of first appearance), a column
/// per pipeline (likewise); a cell with no report is empty. When one program and pipeline
/// appear twice, the later report wins.
pub fn pivot_markdown(reports: &[Report], metric: Metric) -> String {
    pivot_markdown_rows(&all_reports(reports), metric)
}

/// [`pivot_markdown`] of rows: a failed program's cell is `failed`.
pub fn pivot_markdown_rows(rows: &[Row], metric: Metric) -> String {
    let mut programs: Vec<&str> = Vec::new();
    let mut pipelines: Vec<String> = Vec::new();
    for r in rows {
        if !programs.contains(&r.program()) {
            programs.push(r.program());
        }
        let p = r.pipeline();
        if !pipelines.contains(&p) {
            pipelines.push(p);
        }
    }
    let mut header = vec![format!("program ({})", metric.name())];
    header.extend(pipelines.iter().cloned());
    let table: Vec<Vec<String>> = programs
        .iter()
        .map(|prog| {
            let mut row = vec![prog.to_string()];
            for p in &pipelines {
                let cell = rows
                    .iter()
                    .rev()
                    .find(|r| r.program() == *prog && r.pipeline() == *p)
                    .map_or_else(String::new, |r| match r {
                        Row::Report(r) => metric.display(r),
                        Row::Failed(_) => "failed".to_string(),
                    });
                row.push(cell);
            }
            row
        })
        .collect();
    md_table(&header, &table, 1..pipelines.len() + 1)
}
