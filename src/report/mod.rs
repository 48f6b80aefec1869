//! The report: what a block-based (CoBBl / spartan_parallel) sumcheck prover pays for a program.
//!
//! Input is a [`ProgramCost`]: one program compiled by one pipeline, with the constraint, witness
//! and instance-variable counts of every block and, when the program was run, how often each
//! block executed. [`ProgramCost::report`] applies the cost model of `cost` and returns a
//! [`Report`], which this module writes in five forms:
//!
//! - JSON ([`to_json`]): the serde form of [`Report`], a stable schema documented field by field
//!   in `docs/report.md`;
//! - an aligned text table with a totals block ([`table::render`]);
//! - an SVG bar chart of each block's constraints against its padded size and the threshold
//!   ([`svg::render`], drawn with plotters);
//! - Graphviz DOT of a function's CFG, blocks labelled with constraints and executions, merge
//!   components as nested clusters ([`dot::render`]);
//! - a markdown or CSV table over many reports, one row per program and pipeline, like Bril's
//!   brench ([`aggregate`]).
//!
//! [`explain`] renders what cost-driven block formation decided (`zkbc report --explain`): text
//! after the table, the JSON `explain` array, and (through [`dot::decision_clusters`]) coloured
//! clusters on the CFG before merging.
//!
//! [`measure`] produces the [`ProgramCost`] of a real program: it compiles, legalizes,
//! lowers every block, runs the program on its inputs and checks every executed block (or counts
//! executions statically), and measures the `--no-merge` and `--monolithic` baselines, as
//! `zkbc report` and `zkbc table` do. [`zokrates`] is the constraint parity table against a ZoKrates suite
//! folder (`zkbc table --zokrates DIR`). [`profile`] shares the report's numbers out over
//! source lines and inlined call stacks (`zkbc profile`).
//!
//! Architecture invariant: the report reads counts and decisions, it computes no constraint and
//! changes no IR; the only IR the output forms see is the CFG that [`dot::render`] draws.

pub mod aggregate;
pub mod dot;
pub mod explain;
pub mod measure;
pub mod profile;
pub mod svg;
pub mod table;
pub mod zokrates;

pub use crate::cost::{
    Baselines, BlockCost, BlockReport, CostError, ProgramCost, Report, Totals, SCHEMA_VERSION,
};

/// The report as pretty-printed JSON (fields in the documented order, `null` for unknowns),
/// ending with a newline.
pub fn to_json(report: &Report) -> String {
    // Serializing plain structs of strings, integers, floats and JSON values cannot fail
    // (there are no maps with non-string keys); a failure is a bug.
    let mut text = serde_json::to_string_pretty(report).expect("bug: a Report always serializes");
    text.push('\n');
    text
}

pub use crate::cost::group_digits;

/// How long a command took and where: the `timings` object of `zkbc report --format json`
/// (docs/report.md). Not part of [`Report`]: the same program reports the same numbers, but
/// never twice the same times.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Timings {
    /// The command's wall time, milliseconds.
    pub wall_ms: f64,
    /// The process's peak resident memory, bytes (`null` where the platform does not say).
    pub peak_rss_bytes: Option<u64>,
    /// Every recorded stage, in the order they started.
    pub stages: Vec<StageTiming>,
}

/// One stage of [`Timings`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct StageTiming {
    /// The stage (`front`, `opt`, a pass, `lower`, `run`, ...).
    pub name: String,
    /// How many stages enclose it.
    pub depth: usize,
    /// Wall time, milliseconds.
    pub ms: f64,
    /// Peak resident memory while it ran, bytes.
    pub peak_rss_bytes: Option<u64>,
}

impl Timings {
    /// The stages recorded so far ([`crate::timing::records`]) and the time since `start`.
    pub fn since(start: std::time::Instant) -> Timings {
        Timings {
            wall_ms: start.elapsed().as_secs_f64() * 1e3,
            peak_rss_bytes: crate::timing::peak_rss(),
            stages: crate::timing::records()
                .into_iter()
                .map(|r| StageTiming {
                    name: r.name,
                    depth: r.depth,
                    ms: r.time.as_secs_f64() * 1e3,
                    peak_rss_bytes: r.peak_rss,
                })
                .collect(),
        }
    }
}

/// A JSON object (as [`to_json`] writes it) with `timings` as its last field.
pub fn with_timings(json: &str, timings: &Timings) -> String {
    let body = json.trim_end();
    let body = body.strip_suffix('}').unwrap_or(body).trim_end();
    let timings = serde_json::to_string_pretty(timings)
        .expect("bug: timings always serialize")
        .replace('\n', "\n  ");
    format!("{body},\n  \"timings\": {timings}\n}}\n")
}

/// A fraction as a percentage with one decimal, e.g. `0.4375` is `43.8%`.
pub fn percent(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_grouped_by_three() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
        assert_eq!(group_digits(1234567), "1,234,567");
        assert_eq!(group_digits(100000), "100,000");
    }

    #[test]
    fn percentages_have_one_decimal() {
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(percent(0.4375), "43.8%");
        assert_eq!(percent(1.0), "100.0%");
    }
}
