//! What cost-driven block formation decided and why (`zkbc report --explain`): the
//! [`Decision`]s the merge pass records, as text after the report table, as the `explain` array
//! of the JSON report, and (in [`super::dot`]) as coloured clusters on the CFG before merging.
//!
//! ```text
//! block formation: sumcheck cells predicted from a run on the inputs
//!
//! round 1  b0..b3 (7 blocks, line 19, loop)  kept 1,544 -> merged 1,024  merged: saves 520 cells
//!
//! formation        cells  transitions  verdict
//! unmerged         1,544           24  not chosen: more predicted cells than the chosen formation
//! greedy           1,024            1  chosen: the fewest predicted cells
//! ...
//! ```
//!
//! Each merge component considered is one line, grouped by the greedy round that considered
//! it: its head and tail (blocks of the program as it was in that round, which are blocks of
//! the unmerged program or latches formation added), its predicted cells if kept and if merged,
//! and the verdict with its reason. The whole-program formations compared at the end follow.
//! The merge pass records the candidates of a round in which something was merged only when
//! they cannot be merged; the last round, in which nothing lowered the cells, records them all.

use super::table::columns;
use super::{group_digits, Report};
use crate::opt::merge::{Decision, Subject, Verdict};
use serde::Serialize;

/// The decisions of every run of the merge pass in a pipeline's report, in order.
pub fn decisions(opt_report: &crate::opt::Report) -> Vec<Decision> {
    opt_report
        .runs
        .iter()
        .filter(|r| r.name == "merge")
        .flat_map(|r| r.stats.decisions.iter().cloned())
        .collect()
}

/// The line after the decisions that says how much of its work budget block formation's
/// search spent (`--formation-budget`), or nothing when it recorded no decisions.
pub fn work_line(opt_report: &crate::opt::Report, decisions: &[Decision], budget: u64) -> String {
    if decisions.is_empty() {
        return String::new();
    }
    let spent: usize = opt_report
        .runs
        .iter()
        .filter(|r| r.name == "merge")
        .map(|r| r.stats.get("formation_work"))
        .sum();
    format!(
        "\nsearch work: {} of the budget's {} instructions of candidate programs \
         (--formation-budget)\n",
        group_digits(spent as u128),
        group_digits(u128::from(budget))
    )
}

/// One decision in the JSON report's `explain` array (docs/report.md lists the fields).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The greedy round that considered the candidate; 0 for the formations compared at the end.
    pub round: usize,
    /// `component`, `loop` (a loop rotated into one block per `per_block` iterations),
    /// `one_block`, `budget` (the search stopped by its work budget) or `formation`.
    pub kind: &'static str,
    /// The formation's name (`unmerged`, `greedy`, `monolithic`, `threshold 1024`,
    /// `threshold 32768`); `None` for a component.
    pub formation: Option<String>,
    /// The component's function.
    pub function: Option<String>,
    /// The component's head block.
    pub head: Option<String>,
    /// The component's tail block.
    pub tail: Option<String>,
    /// Every block of the component, head first.
    pub blocks: Option<Vec<String>>,
    /// The first and last source line of its instructions that carry a location.
    pub lines: Option<(u32, u32)>,
    /// Whether the component holds a loop (unrolled when merged).
    pub has_loop: Option<bool>,
    /// A rotated loop's iterations per block.
    pub per_block: Option<usize>,
    /// Predicted sumcheck cells of the program without this merge (`None` for a formation).
    pub cells_kept: Option<u128>,
    /// Predicted sumcheck cells with it, or of the formation; `None` when impossible.
    pub cells_taken: Option<u128>,
    /// Predicted transitions without it.
    pub transitions_kept: Option<u128>,
    /// Predicted transitions with it, or of the formation.
    pub transitions_taken: Option<u128>,
    /// `taken`, `kept`, `impossible` or `stopped`.
    pub verdict: &'static str,
    /// Why, in words.
    pub reason: String,
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Taken => "taken",
        Verdict::Kept => "kept",
        Verdict::Impossible => "impossible",
        Verdict::Stopped => "stopped",
    }
}

impl From<&Decision> for Entry {
    fn from(d: &Decision) -> Entry {
        let mut e = Entry {
            round: d.round,
            kind: "component",
            formation: None,
            function: None,
            head: None,
            tail: None,
            blocks: None,
            lines: None,
            has_loop: None,
            per_block: None,
            cells_kept: d.cells_kept,
            cells_taken: d.cells_taken,
            transitions_kept: d.transitions.0,
            transitions_taken: d.transitions.1,
            verdict: verdict_name(d.verdict),
            reason: d.reason.clone(),
        };
        match &d.subject {
            Subject::Component {
                func,
                head,
                tail,
                blocks,
                lines,
                has_loop,
            } => {
                e.function = Some(func.clone());
                e.head = Some(head.clone());
                e.tail = Some(tail.clone());
                e.blocks = Some(blocks.clone());
                e.lines = *lines;
                e.has_loop = Some(*has_loop);
            }
            Subject::Loop {
                func,
                header,
                blocks,
                lines,
                per_block,
            } => {
                e.kind = "loop";
                e.function = Some(func.clone());
                e.head = Some(header.clone());
                e.blocks = Some(blocks.clone());
                e.lines = *lines;
                e.has_loop = Some(true);
                e.per_block = Some(*per_block);
            }
            Subject::Function {
                func,
                blocks,
                lines,
            } => {
                e.kind = "function";
                e.function = Some(func.clone());
                e.blocks = Some(blocks.clone());
                e.lines = *lines;
            }
            Subject::OneBlock => e.kind = "one_block",
            Subject::Budget { .. } => e.kind = "budget",
            Subject::Formation { name } => {
                e.kind = "formation";
                e.formation = Some(name.clone());
            }
        }
        e
    }
}

/// The report with its `explain` array, as pretty-printed JSON ending with a newline: the
/// fields of [`super::to_json`] in their order, then `inlining` (`--inline cost`'s decisions,
/// left out when there are none) and `explain`.
pub fn to_json(
    report: &Report,
    decisions: &[Decision],
    inlining: &[crate::opt::inline_cost::InlineDecision],
) -> String {
    #[derive(Serialize)]
    struct Explained<'a> {
        #[serde(flatten)]
        report: &'a Report,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        inlining: &'a [crate::opt::inline_cost::InlineDecision],
        explain: Vec<Entry>,
    }
    let explained = Explained {
        report,
        inlining,
        explain: decisions.iter().map(Entry::from).collect(),
    };
    let mut text =
        serde_json::to_string_pretty(&explained).expect("bug: a Report always serializes");
    text.push('\n');
    text
}

/// `b3..b6 (4 blocks, lines 6-9, loop)`, with `FUNC/` before the head outside `main`.
pub fn component_name(
    func: &str,
    head: &str,
    tail: &str,
    n_blocks: usize,
    lines: Option<(u32, u32)>,
    has_loop: bool,
) -> String {
    let mut notes = extent_notes(n_blocks, lines);
    if has_loop {
        notes.push("loop".into());
    }
    format!("{}..{tail} ({})", in_func(func, head), notes.join(", "))
}

/// `loop b1 (3 blocks, lines 6-9) rotated, 4 iterations a block`.
pub fn loop_name(
    func: &str,
    header: &str,
    n_blocks: usize,
    lines: Option<(u32, u32)>,
    per_block: usize,
) -> String {
    let per = if per_block == 1 {
        "1 iteration a block".to_string()
    } else {
        format!("{per_block} iterations a block")
    };
    format!(
        "loop {} ({}) rotated, {per}",
        in_func(func, header),
        extent_notes(n_blocks, lines).join(", ")
    )
}

/// A block's name, `FUNC/` before it outside `main`.
fn in_func(func: &str, block: &str) -> String {
    if func == "main" {
        block.to_string()
    } else {
        format!("{func}/{block}")
    }
}

/// `4 blocks` and, when known, `line 6` or `lines 6-9`.
fn extent_notes(n_blocks: usize, lines: Option<(u32, u32)>) -> Vec<String> {
    let mut notes = vec![blocks_note(n_blocks)];
    match lines {
        Some((a, b)) if a == b => notes.push(format!("line {a}")),
        Some((a, b)) => notes.push(format!("lines {a}-{b}")),
        None => {}
    }
    notes
}

/// `1 block`, `4 blocks`.
fn blocks_note(n: usize) -> String {
    if n == 1 {
        "1 block".into()
    } else {
        format!("{n} blocks")
    }
}

fn cells(n: Option<u128>) -> String {
    n.map_or_else(|| "-".into(), group_digits)
}

/// The decisions as text: a heading saying where the predicted counts come from (`profiled`:
/// a run on the inputs, else static counts and estimates), a line per merge component grouped
/// by round, and the formations compared at the end. With no decision, `without` (why there
/// are none) in one line.
pub fn render(decisions: &[Decision], profiled: bool, without: Option<&str>) -> String {
    if decisions.is_empty() {
        let why = without.unwrap_or("block formation considered no candidate");
        return format!("block formation: no cost-driven decisions ({why})\n");
    }
    let source = if profiled {
        "sumcheck cells predicted from a run on the inputs"
    } else {
        "sumcheck cells predicted from static counts and estimates"
    };
    let mut out = format!("block formation: {source}\n\n");
    let components: Vec<&Decision> = decisions
        .iter()
        .filter(|d| !matches!(d.subject, Subject::Formation { .. }))
        .collect();
    // `kept 1,544 -> merged 1,024` with the numbers right-aligned among the lines.
    let width = |f: fn(&Decision) -> Option<u128>| {
        components
            .iter()
            .map(|d| cells(f(d)).chars().count())
            .max()
            .unwrap_or(0)
    };
    let (kept_width, merged_width) = (width(|d| d.cells_kept), width(|d| d.cells_taken));
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut last_round = None;
    for d in components {
        let (name, merged) = match &d.subject {
            Subject::Component {
                func,
                head,
                tail,
                blocks,
                lines,
                has_loop,
            } => (
                component_name(func, head, tail, blocks.len(), *lines, *has_loop),
                "merged",
            ),
            Subject::Loop {
                func,
                header,
                blocks,
                lines,
                per_block,
            } => (
                loop_name(func, header, blocks.len(), *lines, *per_block),
                "rotated",
            ),
            Subject::Function { func, blocks, .. } => (
                format!("function {func} ({} blocks) as one block", blocks.len()),
                "merged",
            ),
            Subject::OneBlock => ("every function as one block".to_string(), "merged"),
            Subject::Budget { limit, .. } => (
                format!("the search (budget {})", group_digits(u128::from(*limit))),
                "stopped",
            ),
            Subject::Formation { .. } => continue,
        };
        if last_round.is_some_and(|r| r != d.round) {
            // A blank row between rounds.
            rows.push(Vec::new());
        }
        last_round = Some(d.round);
        let verdict = match d.verdict {
            Verdict::Taken | Verdict::Stopped => merged,
            Verdict::Kept => "kept",
            Verdict::Impossible => "impossible",
        };
        rows.push(vec![
            format!("round {}", d.round),
            name,
            format!(
                "kept {:>kept_width$} -> merged {:>merged_width$}",
                cells(d.cells_kept),
                cells(d.cells_taken)
            ),
            format!("{verdict}: {}", d.reason),
        ]);
    }
    if !rows.is_empty() {
        out.push_str(&columns(&rows, |_| false, false));
        out.push('\n');
    }
    let mut rows = vec![vec![
        "formation".to_string(),
        "cells".into(),
        "transitions".into(),
        "verdict".into(),
    ]];
    for d in decisions {
        let Subject::Formation { name } = &d.subject else {
            continue;
        };
        let verdict = match d.verdict {
            Verdict::Taken => "chosen",
            Verdict::Kept | Verdict::Stopped => "not chosen",
            Verdict::Impossible => "impossible",
        };
        rows.push(vec![
            name.clone(),
            cells(d.cells_taken),
            cells(d.transitions.1),
            format!("{verdict}: {}", d.reason),
        ]);
    }
    if rows.len() > 1 {
        out.push_str(&columns(&rows, |i| [1, 2].contains(&i), false));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_names() {
        assert_eq!(
            component_name("main", "b3", "b6", 4, Some((6, 9)), true),
            "b3..b6 (4 blocks, lines 6-9, loop)"
        );
        assert_eq!(
            component_name("f", "b1", "b2", 2, Some((7, 7)), false),
            "f/b1..b2 (2 blocks, line 7)"
        );
        assert_eq!(
            component_name("main", "b0", "b1", 3, None, false),
            "b0..b1 (3 blocks)"
        );
    }
}
