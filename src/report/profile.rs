//! `zkbc profile`: which source lines cost what. Shares the report's numbers out over the
//! source lines and inlined call stacks that produced them, in four forms: collapsed stacks
//! (`folded`, what inferno, flamegraph.pl and speedscope read), a flame graph (`svg`, drawn by
//! inferno), the source with each line's cost in the margin (`annotate`) and JSON
//! (docs/profile.md gives the schema).
//!
//! Per block `b` with `cons_b` constraints, `exec_b` executions, `Q_b` padded executions and
//! `X_b` padded constraints (the report's), an origin with `c` of the block's constraints
//! (`crate::r1cs::attribute`) costs
//!
//! - `constraints`: `c`;
//! - `executed`: `c · exec_b`;
//! - `cells`: `c · Q_b`; the block's padding `(X_b − cons_b) · Q_b` is a `[padding]` frame
//!   under the block's function, and the transition permutation's and the memory check's
//!   cells are the root frames `[transition]` and `[memory]`,
//!
//! so each metric sums exactly to the report's total (`constraints`, `executed_constraints`,
//! `sumcheck_cells`). An instruction's stack is its function, the callees of its inline frame
//! (`ir::frames`), outermost first, and its `file:line`; what no instruction emits is a
//! pseudo-frame under the function: `[transition]` (the label check and the state binding),
//! `[inputs]` (range checks of `main`'s inputs), `[memory]` (spilled values).
//!
//! Architecture invariant: like the rest of `report`, this reads counts (the attribution and
//! the report) and the program's locations; it lowers nothing and changes no IR.

use crate::cost::{group_digits, Report};
use crate::ir::frames::function_label;
use crate::ir::{Program, SrcLoc};
use crate::r1cs::{BlockAttribution, ConstraintOrigin};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The version of the JSON form (docs/profile.md); raised when a field changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

/// What a profile measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Constraints of the blocks (each block once).
    Constraints,
    /// Constraints times the executions of their block.
    Executed,
    /// The prover's sumcheck cells (padded sizes), padding and arguments included.
    Cells,
}

impl Metric {
    /// The name in the report's totals.
    pub fn total_name(self) -> &'static str {
        match self {
            Metric::Constraints => "constraints",
            Metric::Executed => "executed_constraints",
            Metric::Cells => "sumcheck_cells",
        }
    }

    fn of(self, c: &Costs) -> Option<u128> {
        match self {
            Metric::Constraints => Some(c.constraints),
            Metric::Executed => c.executed_constraints,
            Metric::Cells => c.sumcheck_cells,
        }
    }
}

/// The three metrics of one line, stack or program; `None` where executions are unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Costs {
    /// Constraints.
    pub constraints: u128,
    /// Constraints times executions.
    pub executed_constraints: Option<u128>,
    /// Sumcheck cells.
    pub sumcheck_cells: Option<u128>,
}

impl Costs {
    /// Nothing, in every metric: what sums start from.
    const ZERO: Costs = Costs {
        constraints: 0,
        executed_constraints: Some(0),
        sumcheck_cells: Some(0),
    };

    fn add(&mut self, other: Costs) {
        self.constraints += other.constraints;
        self.executed_constraints = add_opt(self.executed_constraints, other.executed_constraints);
        self.sumcheck_cells = add_opt(self.sumcheck_cells, other.sumcheck_cells);
    }
}

fn add_opt(a: Option<u128>, b: Option<u128>) -> Option<u128> {
    a.zip(b).map(|(a, b)| a.saturating_add(b))
}

/// One source line's cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineCost {
    /// The file's index in [`Profile::files`].
    pub file: u32,
    /// The 1-based line.
    pub line: u32,
    /// What the line costs.
    #[serde(flatten)]
    pub costs: Costs,
}

/// One call stack's cost: frames outermost first, the last a `file:line` or a pseudo-frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StackCost {
    /// The frames.
    pub stack: Vec<String>,
    /// What the stack costs.
    #[serde(flatten)]
    pub costs: Costs,
}

/// A pseudo-frame's cost summed over the functions (`[padding]`, `[transition]`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PseudoCost {
    /// The pseudo-frame, e.g. `[padding]`.
    pub name: String,
    /// What it costs.
    #[serde(flatten)]
    pub costs: Costs,
}

/// A program's costs by line and by stack. Its JSON form is documented in docs/profile.md.
#[derive(Clone, Debug, Serialize)]
pub struct Profile {
    /// Always `"zkbc-profile"`.
    pub schema: &'static str,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The program's name, as in the report.
    pub program: String,
    /// The source files the lines index, by the names the compiler knows them by.
    pub files: Vec<String>,
    /// The program's totals: the report's `constraints`, `executed_constraints` and
    /// `sumcheck_cells`.
    pub totals: Costs,
    /// Each line that costs anything, by file and line.
    pub lines: Vec<LineCost>,
    /// The pseudo-frames, by name.
    pub pseudo: Vec<PseudoCost>,
    /// Each distinct stack, in the order of its frames.
    pub stacks: Vec<StackCost>,
}

/// Why a profile cannot be given in the metric asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileError {
    /// The executions of some block are unknown (no inputs, a loop bound not known
    /// statically): `executed` and `cells` need them.
    UnknownExecutions(Metric),
    /// The flame graph could not be drawn.
    Svg(String),
}

impl std::fmt::Display for ProfileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileError::UnknownExecutions(m) => write!(
                f,
                "--metric {} needs every block's executions, and some are not known without \
                 inputs: pass --inputs (or use --metric constraints)",
                match m {
                    Metric::Executed => "executed",
                    _ => "cells",
                }
            ),
            ProfileError::Svg(e) => write!(f, "cannot draw the flame graph: {e}"),
        }
    }
}

impl std::error::Error for ProfileError {}

/// Where one unit of attribution goes.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Line(u32, u32),
    Pseudo(&'static str),
}

/// Shares `report`'s numbers out over the lines and stacks of `program` by the attribution of
/// its blocks (in the report's block order). `file_name` names file 0 when the program has no
/// file list (IR text).
pub fn build(
    program: &Program,
    blocks: &[BlockAttribution],
    report: &Report,
    file_name: &str,
) -> Profile {
    let mut files = program.files.clone();
    if files.is_empty() {
        files.push(file_name.to_string());
    }
    let short: Vec<String> = files.iter().map(|f| short_name(f)).collect();
    let mut stacks: BTreeMap<Vec<String>, Costs> = BTreeMap::new();
    let mut keyed: BTreeMap<Key, Costs> = BTreeMap::new();
    let mut put = |stack: Vec<String>, key: Key, costs: Costs| {
        stacks.entry(stack).or_insert(Costs::ZERO).add(costs);
        keyed.entry(key).or_insert(Costs::ZERO).add(costs);
    };
    for (attr, block) in blocks.iter().zip(&report.blocks) {
        let exec = block.executions.map(u128::from);
        let q = block.padded_executions.map(u128::from);
        let cost = |c: u64| Costs {
            constraints: u128::from(c),
            executed_constraints: exec.map(|e| e * u128::from(c)),
            sumcheck_cells: q.map(|q| q * u128::from(c)),
        };
        let func = program.func(attr.func);
        // `main` by its own name (the front end may have renamed it `main_N`).
        let func_name = match attr.func == program.main {
            true => "main".to_string(),
            false => function_label(func, &files, &program.frames),
        };
        for (origin, &c) in &attr.counts {
            let pseudo = |name: &'static str| (vec![func_name.clone(), name.to_string()], name);
            let (stack, key) = match origin {
                ConstraintOrigin::Inst(i) => {
                    match func.insts.get(i.index()).and_then(|d| d.loc()) {
                        Some(loc) => {
                            let (stack, key) = inst_stack(program, &func_name, loc, &short);
                            put(stack, key, cost(c));
                            continue;
                        }
                        None => pseudo("[no location]"),
                    }
                }
                ConstraintOrigin::Transition => pseudo("[transition]"),
                ConstraintOrigin::Memory => pseudo("[memory]"),
                ConstraintOrigin::Inputs => pseudo("[inputs]"),
            };
            put(stack, Key::Pseudo(key), cost(c));
        }
        // The block's padding: cells only.
        let padding = block.padded_constraints.saturating_sub(block.constraints);
        if padding > 0 {
            let costs = Costs {
                constraints: 0,
                executed_constraints: exec.map(|_| 0),
                sumcheck_cells: q.map(|q| q * u128::from(padding)),
            };
            put(
                vec![func_name.clone(), "[padding]".into()],
                Key::Pseudo("[padding]"),
                costs,
            );
        }
    }
    // The arguments between blocks: the transition permutation and the memory check.
    let known = report.totals.sumcheck_cells.is_some();
    for (name, cells) in [
        ("[transition]", report.totals.transition_cells),
        ("[memory]", report.totals.memory_cells),
    ] {
        if let Some(cells) = cells.filter(|c| *c > 0) {
            let costs = Costs {
                constraints: 0,
                executed_constraints: known.then_some(0),
                sumcheck_cells: Some(cells),
            };
            put(vec![name.to_string()], Key::Pseudo(name), costs);
        }
    }
    let mut totals = Costs::ZERO;
    for c in stacks.values() {
        totals.add(*c);
    }
    if blocks.is_empty() {
        totals.executed_constraints = report.totals.executed_constraints;
        totals.sumcheck_cells = report.totals.sumcheck_cells;
    }
    let mut lines = Vec::new();
    let mut pseudo = Vec::new();
    for (key, costs) in keyed {
        match key {
            Key::Line(file, line) => lines.push(LineCost { file, line, costs }),
            Key::Pseudo(name) => pseudo.push(PseudoCost {
                name: name.to_string(),
                costs,
            }),
        }
    }
    Profile {
        schema: "zkbc-profile",
        schema_version: SCHEMA_VERSION,
        program: report.program.clone(),
        files,
        totals,
        lines,
        pseudo,
        stacks: stacks
            .into_iter()
            .map(|(stack, costs)| StackCost { stack, costs })
            .collect(),
    }
}

/// An instruction's stack (its function, the callees of its inline frame, `file:line`) and
/// line.
fn inst_stack(program: &Program, func: &str, loc: SrcLoc, short: &[String]) -> (Vec<String>, Key) {
    let mut stack = vec![func.to_string()];
    stack.extend(
        program
            .frames
            .callee_names(loc.frame)
            .into_iter()
            .map(str::to_string),
    );
    let file = short
        .get(loc.file as usize)
        .map_or("?", String::as_str)
        .to_string();
    stack.push(format!("{file}:{}", loc.line));
    (stack, Key::Line(loc.file, loc.line))
}

/// A file's name as a frame shows it: the file name without directories.
fn short_name(name: &str) -> String {
    std::path::Path::new(name)
        .file_name()
        .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned())
}

/// The colours of the source files' frames in a flame graph, in the order files appear.
const FILE_COLORS: [inferno::flamegraph::color::Color; 8] = [
    rgb(230, 120, 50),
    rgb(70, 140, 210),
    rgb(90, 175, 90),
    rgb(200, 80, 160),
    rgb(220, 190, 60),
    rgb(120, 100, 200),
    rgb(60, 180, 170),
    rgb(200, 90, 80),
];

/// The colour of the pseudo-frames (`[padding]`, `[transition]`, ...).
const GREY: inferno::flamegraph::color::Color = rgb(170, 170, 170);

const fn rgb(r: u8, g: u8, b: u8) -> inferno::flamegraph::color::Color {
    inferno::flamegraph::color::Color { r, g, b }
}

impl Profile {
    /// The metric's total, or why it is unknown.
    pub fn total(&self, metric: Metric) -> Result<u128, ProfileError> {
        metric
            .of(&self.totals)
            .ok_or(ProfileError::UnknownExecutions(metric))
    }

    /// Collapsed stacks, one `frame;frame;file:line count` line per stack that costs
    /// something, as inferno and flamegraph.pl read them. A frame's `;` and spaces are
    /// written as `_` (neither can be in a name or file the compiler accepts anyway).
    pub fn folded(&self, metric: Metric) -> Result<String, ProfileError> {
        self.total(metric)?;
        let mut out = String::new();
        for s in &self.stacks {
            let n = metric.of(&s.costs).unwrap_or(0);
            if n == 0 {
                continue;
            }
            let frames: Vec<String> = s
                .stack
                .iter()
                .map(|f| f.replace([';', ' ', '\n'], "_"))
                .collect();
            let _ = writeln!(out, "{} {n}", frames.join(";"));
        }
        Ok(out)
    }

    /// A flame graph of [`Profile::folded`], drawn by inferno (interactive: click to zoom,
    /// Ctrl-F to search).
    pub fn svg(&self, metric: Metric) -> Result<String, ProfileError> {
        let folded = self.folded(metric)?;
        let mut options = inferno::flamegraph::Options::default();
        options.title = format!("{}: {} by source line", self.program, metric.total_name());
        options.count_name = metric.total_name().to_string();
        options.hash = true;
        // One colour per source file for its lines' frames (the order files first appear in),
        // grey for the pseudo-frames; function frames keep inferno's colour by name.
        let mut palette = inferno::flamegraph::color::PaletteMap::default();
        let mut files: Vec<String> = Vec::new();
        for frame in folded
            .lines()
            .filter_map(|l| l.rsplit_once(' '))
            .flat_map(|(stack, _)| stack.split(';'))
        {
            let color = if frame.starts_with('[') {
                GREY
            } else if let Some((file, _)) = frame
                .rsplit_once(':')
                .filter(|(_, line)| !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
            {
                let k = files.iter().position(|f| f == file).unwrap_or_else(|| {
                    files.push(file.to_string());
                    files.len() - 1
                });
                FILE_COLORS[k % FILE_COLORS.len()]
            } else {
                continue;
            };
            palette.insert(frame, color);
        }
        options.palette_map = Some(&mut palette);
        let mut svg = Vec::new();
        let lines: Vec<&str> = match folded.is_empty() {
            // inferno draws an error picture for no input; a program that costs nothing
            // has one empty frame instead.
            true => vec!["[empty] 1"],
            false => folded.lines().collect(),
        };
        inferno::flamegraph::from_lines(&mut options, lines, &mut svg)
            .map_err(|e| ProfileError::Svg(e.to_string()))?;
        String::from_utf8(svg).map_err(|e| ProfileError::Svg(e.to_string()))
    }

    /// The JSON form (docs/profile.md).
    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a profile serializes");
        s.push('\n');
        s
    }

    /// The lines by decreasing cost in `metric` (ties by file and line).
    pub fn hottest(&self, metric: Metric) -> Vec<&LineCost> {
        let mut lines: Vec<&LineCost> = self
            .lines
            .iter()
            .filter(|l| metric.of(&l.costs).unwrap_or(0) > 0)
            .collect();
        lines.sort_by(|a, b| {
            let (x, y) = (metric.of(&a.costs), metric.of(&b.costs));
            y.cmp(&x).then((a.file, a.line).cmp(&(b.file, b.line)))
        });
        lines
    }

    /// The `n` lines that cost the most in `metric`, one per row: the cost, its share of the
    /// total, `file:line` and the line's text (from `texts`, by file index, where known).
    pub fn hottest_lines(
        &self,
        metric: Metric,
        n: usize,
        texts: &[Option<String>],
    ) -> Result<String, ProfileError> {
        let total = self.total(metric)?;
        let pct = |n: u128| match total {
            0 => 0.0,
            t => n as f64 * 100.0 / t as f64,
        };
        let name = |f: u32| self.files.get(f as usize).map_or("?", String::as_str);
        let mut out = String::new();
        for l in self.hottest(metric).iter().take(n) {
            let n = metric.of(&l.costs).unwrap_or(0);
            let text = texts
                .get(l.file as usize)
                .and_then(|t| t.as_deref())
                .and_then(|t| t.lines().nth(l.line.saturating_sub(1) as usize))
                .map_or("", str::trim);
            let _ = writeln!(
                out,
                "  {:>14} {:>5.1}%  {}:{}  {}",
                group_digits(n),
                pct(n),
                short_name(name(l.file)),
                l.line,
                text
            );
        }
        Ok(out)
    }

    /// The source of each file that costs something, each line with its cost and share of
    /// the total in the margin, the [`HOT_LINES`] hottest marked `>>` and listed first.
    /// `texts` holds the files' text by index (`None`: only the lines that cost are listed).
    pub fn annotate(
        &self,
        metric: Metric,
        texts: &[Option<String>],
    ) -> Result<String, ProfileError> {
        let total = self.total(metric)?;
        let pct = |n: u128| match total {
            0 => 0.0,
            t => n as f64 * 100.0 / t as f64,
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} by source line, total {}",
            self.program,
            metric.total_name(),
            group_digits(total)
        );
        let hottest = self.hottest(metric);
        let hot: Vec<(u32, u32)> = hottest
            .iter()
            .take(HOT_LINES)
            .map(|l| (l.file, l.line))
            .collect();
        let name = |f: u32| self.files.get(f as usize).map_or("?", String::as_str);
        if !hot.is_empty() {
            let _ = writeln!(out, "\nhottest lines:");
            out.push_str(&self.hottest_lines(metric, HOT_LINES, texts)?);
        }
        let pseudo: Vec<&PseudoCost> = self
            .pseudo
            .iter()
            .filter(|p| metric.of(&p.costs).unwrap_or(0) > 0)
            .collect();
        if !pseudo.is_empty() {
            let _ = writeln!(out, "\nnot from a source line:");
            for p in pseudo {
                let n = metric.of(&p.costs).unwrap_or(0);
                let _ = writeln!(
                    out,
                    "  {:>14} {:>5.1}%  {}",
                    group_digits(n),
                    pct(n),
                    p.name
                );
            }
        }
        let mut by_file: BTreeMap<u32, BTreeMap<u32, u128>> = BTreeMap::new();
        for l in &self.lines {
            let n = metric.of(&l.costs).unwrap_or(0);
            if n > 0 {
                by_file.entry(l.file).or_default().insert(l.line, n);
            }
        }
        for (file, costs) in &by_file {
            let sum: u128 = costs.values().sum();
            let _ = writeln!(
                out,
                "\n== {} ({} {:.1}%) ==",
                name(*file),
                group_digits(sum),
                pct(sum)
            );
            let text = texts.get(*file as usize).and_then(|t| t.as_deref());
            let last = costs.keys().max().copied().unwrap_or(1);
            let n_lines = text.map_or(0, |t| t.lines().count() as u32);
            let width = last.max(n_lines).to_string().len();
            let mut row = |line: u32, src: &str| {
                let mark = if hot.contains(&(*file, line)) {
                    ">>"
                } else {
                    "  "
                };
                let margin = match costs.get(&line) {
                    Some(&n) => format!("{:>14} {:>5.1}%", group_digits(n), pct(n)),
                    None => " ".repeat(21),
                };
                let _ = writeln!(out, "{margin} {mark} {line:>width$} | {src}");
            };
            match text {
                Some(t) => {
                    for (k, src) in t.lines().enumerate() {
                        row(k as u32 + 1, src);
                    }
                    // A location past the file's end (it changed since compiling) still shows.
                    for (&line, _) in costs.range(n_lines + 1..) {
                        row(line, "");
                    }
                }
                None => {
                    for &line in costs.keys() {
                        row(line, "");
                    }
                }
            }
        }
        Ok(out)
    }
}

/// How many lines `annotate` marks as the hottest.
pub const HOT_LINES: usize = 5;
