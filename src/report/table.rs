//! The report as text a person reads at a glance: a header line, an aligned per-block table and a
//! totals block.
//!
//! ```text
//! sum_loop  O1  min block size 1,024  threshold 1,024
//!
//! block  constraints  padded  witness  io  executions  padded exec  cells
//! b0               2       2        3   4           1            1      2
//! ...
//!
//! blocks                    4
//! constraints              14
//! ...
//! padding waste         43.8%
//! ...
//! monolithic cells       none  (a loop bound is a run-time value)
//! --no-merge cells         86
//! --monolithic cells     none  (a loop bound is a run-time value)
//! ```
//!
//! The two baseline lines, the cells of the same pipeline without merging and as one block,
//! appear when the report carries them.
//!
//! Numbers are right-aligned with thousands separators; an unknown value (a static report that
//! does not know how often a block runs) is `?` in the block table and `unknown` in the totals.

use super::{group_digits, percent};
use crate::cost::Report;

/// Lays out rows of cells in columns two spaces apart: the first column left-aligned, the others
/// right-aligned. Widths count characters.
pub(crate) fn align(rows: &[Vec<String>]) -> String {
    columns(rows, |i| i > 0, true)
}

/// Lays out rows of cells in columns two spaces apart, each padded to its widest cell (widths
/// count characters): the columns `right` says on the right, the others on the left. A row's
/// last cell is padded too only when `pad_last`. Lines end without trailing spaces. The one
/// text-table layout of the report's forms.
pub(crate) fn columns(
    rows: &[Vec<String>],
    right: impl Fn(usize) -> bool,
    pad_last: bool,
) -> String {
    let n_cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; n_cols];
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = " ".repeat(widths[i] - cell.chars().count());
            if i + 1 == row.len() && !pad_last {
                line.push_str(cell);
            } else if right(i) {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn opt_num(n: Option<u128>, unknown: &str) -> String {
    n.map_or_else(|| unknown.to_string(), group_digits)
}

/// A baseline's totals row: its cells; `none` and why when it does not exist; `unknown` when
/// its executions are.
fn baseline_row(name: &str, cells: Option<u128>, none: Option<&str>) -> Vec<String> {
    match (cells, none) {
        (Some(c), _) => vec![name.into(), group_digits(c)],
        (None, Some(why)) => vec![name.into(), "none".into(), why.into()],
        (None, None) => vec![name.into(), "unknown".into()],
    }
}

/// The report as an aligned text table followed by its totals, ending with a newline.
pub fn render(report: &Report) -> String {
    let mut out = format!(
        "{}  {}  min block size {}  threshold {}\n\n",
        report.program,
        report.opt_level,
        group_digits(report.min_block_size.into()),
        group_digits(report.threshold.into()),
    );

    let mut rows = vec![[
        "block",
        "constraints",
        "padded",
        "witness",
        "io",
        "executions",
        "padded exec",
        "cells",
    ]
    .map(String::from)
    .to_vec()];
    let label_width = report
        .blocks
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0);
    for b in &report.blocks {
        // The block and, left-aligned after it, the source lines it came from.
        let name = match &b.source {
            Some(source) => format!("{:label_width$}  {source}", b.label),
            None => b.label.clone(),
        };
        rows.push(vec![
            name,
            group_digits(b.constraints.into()),
            group_digits(b.padded_constraints.into()),
            group_digits(b.witness_vars.into()),
            group_digits(b.io_vars.into()),
            opt_num(b.executions.map(u128::from), "?"),
            opt_num(b.padded_executions.map(u128::from), "?"),
            opt_num(b.sumcheck_cells, "?"),
        ]);
    }
    out.push_str(&align(&rows));
    out.push('\n');

    let t = &report.totals;
    let unknown = "unknown";
    let (monolithic, monolithic_note) = match t.monolithic_cells {
        Some(cells) => (
            group_digits(cells),
            "exact: the program as one block".to_string(),
        ),
        None => (
            "none".to_string(),
            t.monolithic_none
                .clone()
                .unwrap_or_else(|| "no one-block circuit".into()),
        ),
    };
    let mut totals: Vec<Vec<String>> = vec![
        vec!["blocks".into(), group_digits(t.blocks.into())],
        vec!["constraints".into(), group_digits(t.constraints)],
        vec![
            "executed constraints".into(),
            opt_num(t.executed_constraints, unknown),
        ],
        vec!["transitions".into(), opt_num(t.transitions, unknown)],
        vec!["  block cells".into(), opt_num(t.block_cells, unknown)],
        vec![
            "  transition cells".into(),
            opt_num(t.transition_cells, unknown),
        ],
    ];
    if t.memory_accesses.is_none_or(|a| a > 0) {
        totals.push(vec![
            "memory accesses".into(),
            opt_num(t.memory_accesses, unknown),
        ]);
        let mut row = vec![
            "  memory-check constraints".into(),
            opt_num(t.memory_constraints, unknown),
        ];
        if let Some(k) = t.memory_constraints_per_entry.filter(|&k| k > 0) {
            row.push(format!("{k} per entry"));
        }
        totals.push(row);
        totals.push(vec![
            "  memory cells".into(),
            opt_num(t.memory_cells, unknown),
        ]);
        if t.read_only_accesses.is_some_and(|a| a > 0) {
            totals.push(vec![
                "  read-only entries".into(),
                opt_num(t.read_only_entries, unknown),
                format!(
                    "{} accesses, {} constraints",
                    opt_num(t.read_only_accesses, unknown),
                    opt_num(t.read_only_constraints, unknown)
                ),
            ]);
            totals.push(vec![
                "  read-only cells".into(),
                opt_num(t.read_only_cells, unknown),
            ]);
        }
    }
    totals.extend([
        vec!["sumcheck cells".into(), opt_num(t.sumcheck_cells, unknown)],
        vec!["uniform cells".into(), opt_num(t.uniform_cells, unknown)],
        vec![
            "padding waste".into(),
            t.padding_waste.map_or_else(|| unknown.to_string(), percent),
        ],
        vec![
            "rounds".into(),
            t.rounds
                .map_or_else(|| unknown.to_string(), |r| r.to_string()),
        ],
        vec!["monolithic cells".into(), monolithic, monolithic_note],
    ]);
    if let Some(b) = &report.baselines {
        totals.push(baseline_row(
            "--no-merge cells",
            b.no_merge_cells,
            b.no_merge_none.as_deref(),
        ));
        totals.push(baseline_row(
            "--monolithic cells",
            b.monolithic_cells,
            b.monolithic_none.as_deref(),
        ));
    }
    // The note column is left-aligned text, not a number: attach it after alignment.
    let notes: Vec<Option<String>> = totals
        .iter_mut()
        .map(|row| if row.len() > 2 { row.pop() } else { None })
        .collect();
    let aligned = align(&totals);
    for (line, note) in aligned.lines().zip(notes) {
        out.push_str(line);
        if let Some(note) = note {
            out.push_str("  (");
            out.push_str(&note);
            out.push(')');
        }
        out.push('\n');
    }
    if let Some(satisfied) = report.satisfied {
        let verdict = if satisfied {
            "yes (every executed block's instance holds)"
        } else {
            "NO (an executed block's instance is unsatisfied)"
        };
        out.push_str(&format!("satisfied: {verdict}\n"));
    }
    if let Some(outputs) = &report.outputs {
        out.push_str(&format!("outputs: {outputs}\n"));
    }
    out
}
