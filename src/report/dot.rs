//! A function's CFG as Graphviz DOT: one box per laid-out block labelled with its constraints,
//! padded size and executions, an edge per jump (`T`/`F` on a `br`), and merge components drawn
//! as clusters, nested as the components nest.
//!
//! ```text
//! digraph "main" {
//!   node [shape=box, fontname="monospace", fontsize=10];
//!   subgraph "cluster_0" {
//!     label="merge component: 3 blocks, 12 constraints";
//!     "b1" [label="b1\n4 constraints (pad 4)\nran 6x"];
//!     ...
//!   }
//!   "b0" -> "b1";
//! }
//! ```
//!
//! Merge components are single-entry single-exit regions, so two of them are either disjoint or
//! one contains the other: DOT clusters can express exactly that. Components that overlap
//! otherwise are an error ([`DotError::Overlap`]), as is a component naming a block that is not
//! laid out in the function. Duplicate components are drawn once.
//!
//! With `--explain` ([`decision_clusters`], [`render_clusters`]) the clusters are the merge
//! components cost-driven block formation considered, drawn on the CFG *before* merging (the
//! decisions name its blocks), each labelled with its round, verdict and reason and coloured by
//! the verdict: merged green, kept grey, impossible red.

use crate::fxhash::HashMap;

use super::group_digits;
use crate::analysis::MergeComponents;
use crate::cost::{padded_constraints, Report};
use crate::ir::{BlockId, Function, Terminator};
use crate::opt::merge::{Decision, Subject, Verdict};
use std::collections::BTreeSet;
use std::fmt::{self, Write};

/// What a block's node shows.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BlockAnnotation {
    /// `cons_b`.
    pub constraints: u64,
    /// `exec_b`, `None` when unknown.
    pub executions: Option<u64>,
    /// The source lines the block came from (`bubble_sort.zok:6-9`), when known.
    pub source: Option<String>,
}

/// Why the DOT graph could not be drawn.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum DotError {
    /// Component `component` (an index into the input list) names `block`, which is not laid out
    /// in the function.
    UnknownBlock {
        /// Index of the component in the input.
        component: usize,
        /// The block.
        block: BlockId,
    },
    /// Component `component` has no block.
    EmptyComponent {
        /// Index of the component in the input.
        component: usize,
    },
    /// Components `first` and `second` share `block` but neither contains the other, so they
    /// cannot both be clusters.
    Overlap {
        /// Index of one component in the input.
        first: usize,
        /// Index of the other.
        second: usize,
        /// A block in both.
        block: BlockId,
    },
}

impl fmt::Display for DotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DotError::UnknownBlock { component, block } => write!(
                f,
                "merge component {component} names {block}, which is not a block of the function"
            ),
            DotError::EmptyComponent { component } => {
                write!(f, "merge component {component} has no block")
            }
            DotError::Overlap {
                first,
                second,
                block,
            } => write!(
                f,
                "merge components {first} and {second} both contain {block} but neither contains \
                 the other"
            ),
        }
    }
}

impl std::error::Error for DotError {}

/// The annotations of `func`'s blocks taken from a report whose block labels are the blocks'
/// names, `b3` or `NAME/b3` where NAME is the function's name. Blocks the report does not list
/// get none.
pub fn annotations_from_report(
    func: &Function,
    report: &Report,
) -> HashMap<BlockId, BlockAnnotation> {
    let by_label: HashMap<&str, BlockAnnotation> = report
        .blocks
        .iter()
        .map(|b| {
            (
                b.label.as_str(),
                BlockAnnotation {
                    constraints: b.constraints,
                    executions: b.executions,
                    source: b.source.clone(),
                },
            )
        })
        .collect();
    let mut out = HashMap::default();
    for &block in &func.layout {
        let short = block.to_string();
        let long = format!("{}/{}", func.name, short);
        if let Some(a) = by_label
            .get(short.as_str())
            .or_else(|| by_label.get(long.as_str()))
        {
            out.insert(block, a.clone());
        }
    }
    out
}

/// A DOT string literal: quoted, with `"` and `\` escaped and newlines as `\n`.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(ch),
        }
    }
    out.push('"');
    out
}

/// The components as a forest: duplicates dropped, each with the index of its smallest strict
/// superset as parent.
struct Forest<'a> {
    /// Input index and blocks of each distinct component, in input order.
    comps: Vec<(usize, &'a BTreeSet<BlockId>)>,
    /// `parent[i]` indexes `comps`.
    parent: Vec<Option<usize>>,
}

fn forest<'a>(
    func: &Function,
    components: &'a [BTreeSet<BlockId>],
) -> Result<Forest<'a>, DotError> {
    let laid_out: BTreeSet<BlockId> = func.layout.iter().copied().collect();
    let mut comps: Vec<(usize, &BTreeSet<BlockId>)> = Vec::new();
    for (i, c) in components.iter().enumerate() {
        if c.is_empty() {
            return Err(DotError::EmptyComponent { component: i });
        }
        if let Some(&block) = c.iter().find(|b| !laid_out.contains(b)) {
            return Err(DotError::UnknownBlock {
                component: i,
                block,
            });
        }
        if !comps.iter().any(|(_, seen)| *seen == c) {
            comps.push((i, c));
        }
    }
    let mut parent = vec![None; comps.len()];
    for (a, (ia, ca)) in comps.iter().enumerate() {
        for (b, (ib, cb)) in comps.iter().enumerate() {
            if a == b {
                continue;
            }
            if let Some(&block) = ca.intersection(cb).next() {
                if ca.is_subset(cb) {
                    // The parent is the smallest strict superset (supersets of a set in a
                    // laminar family form a chain, so the smallest is unique).
                    let smaller = parent[a].is_none_or(|p: usize| comps[p].1.len() > cb.len());
                    if smaller {
                        parent[a] = Some(b);
                    }
                } else if !cb.is_subset(ca) {
                    return Err(DotError::Overlap {
                        first: (*ia).min(*ib),
                        second: (*ia).max(*ib),
                        block,
                    });
                }
            }
        }
    }
    Ok(Forest { comps, parent })
}

fn node_line(func: &Function, block: BlockId, annotation: Option<&BlockAnnotation>) -> String {
    let mut label = block.to_string();
    if block == func.entry {
        label.push_str(" (entry)");
    }
    let mut attrs = Vec::new();
    match annotation {
        Some(a) => {
            if let Some(source) = &a.source {
                let _ = write!(label, "\n{source}");
            }
            let pad = padded_constraints(a.constraints)
                .map_or_else(|| "?".into(), |x| group_digits(x.into()));
            let noun = if a.constraints == 1 {
                "constraint"
            } else {
                "constraints"
            };
            let _ = write!(
                label,
                "\n{} {noun} (pad {pad})",
                group_digits(a.constraints.into())
            );
            match a.executions {
                Some(0) => {
                    label.push_str("\nnever ran");
                    attrs.push(
                        "style=filled, fillcolor=\"#eeeeee\", fontcolor=\"#777777\"".to_string(),
                    );
                }
                Some(e) => {
                    let _ = write!(label, "\nran {}x", group_digits(e.into()));
                }
                None => label.push_str("\nruns ? times"),
            }
        }
        None => label.push_str("\n(no cost)"),
    }
    if block == func.entry {
        attrs.push("penwidth=2".into());
    }
    if matches!(func.block(block).term, Some(Terminator::Return(_))) {
        attrs.push("peripheries=2".into());
    }
    let mut line = format!("{} [label={}", quote(&block.to_string()), quote(&label));
    for a in attrs {
        line.push_str(", ");
        line.push_str(&a);
    }
    line.push_str("];");
    line
}

/// Fill colours of nested clusters, by depth.
const CLUSTER_FILLS: [&str; 3] = ["#f3f7fc", "#e3edf8", "#d0e1f2"];

/// A cluster of [`render_clusters`]: its blocks and, optionally, its own label and colours
/// (else `merge component: N blocks, M constraints` in blue, the fill darker with depth).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// The blocks.
    pub blocks: BTreeSet<BlockId>,
    /// The label (lines separated by `\n`); `None` for the default.
    pub label: Option<String>,
    /// Border and fill colours; `None` for the default.
    pub colors: Option<(&'static str, &'static str)>,
}

impl Cluster {
    /// A cluster drawn as a plain merge component.
    pub fn plain(blocks: BTreeSet<BlockId>) -> Cluster {
        Cluster {
            blocks,
            label: None,
            colors: None,
        }
    }
}

/// The CFG of `func` as DOT, with `annotations` on the blocks and `components` (sets of blocks,
/// disjoint or nested) as clusters.
pub fn render(
    func: &Function,
    annotations: &HashMap<BlockId, BlockAnnotation>,
    components: &[BTreeSet<BlockId>],
) -> Result<String, DotError> {
    let clusters: Vec<Cluster> = components.iter().cloned().map(Cluster::plain).collect();
    render_clusters(func, annotations, &clusters, None)
}

/// [`render`] with clusters that carry their own labels and colours, and a label for the
/// whole graph.
pub fn render_clusters(
    func: &Function,
    annotations: &HashMap<BlockId, BlockAnnotation>,
    clusters: &[Cluster],
    graph_label: Option<&str>,
) -> Result<String, DotError> {
    let components: Vec<BTreeSet<BlockId>> = clusters.iter().map(|c| c.blocks.clone()).collect();
    let forest = forest(func, &components)?;
    let n = forest.comps.len();
    // The innermost component of each block: the smallest one containing it.
    let mut home: HashMap<BlockId, usize> = HashMap::default();
    for (k, (_, c)) in forest.comps.iter().enumerate() {
        for &b in c.iter() {
            let inner = home
                .get(&b)
                .is_none_or(|&h| forest.comps[h].1.len() > c.len());
            if inner {
                home.insert(b, k);
            }
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for k in 0..n {
        match forest.parent[k] {
            Some(p) => children[p].push(k),
            None => roots.push(k),
        }
    }

    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&func.name));
    out.push_str("  graph [fontname=\"sans-serif\", fontsize=11];\n");
    out.push_str("  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"monospace\", fontsize=9];\n");
    if let Some(label) = graph_label {
        let _ = writeln!(out, "  label={}; labelloc=t;", quote(label));
    }

    // Clusters, depth first; `stack` holds (component, depth, whether opened).
    let mut stack: Vec<(usize, usize, bool)> = roots.iter().rev().map(|&k| (k, 1, false)).collect();
    while let Some((k, depth, opened)) = stack.pop() {
        let indent = "  ".repeat(depth);
        if opened {
            let _ = writeln!(out, "{indent}}}");
            continue;
        }
        let blocks = forest.comps[k].1;
        let cluster = &clusters[forest.comps[k].0];
        let total: u128 = blocks
            .iter()
            .filter_map(|b| annotations.get(b))
            .map(|a| u128::from(a.constraints))
            .sum();
        let label = cluster.label.clone().unwrap_or_else(|| {
            format!(
                "merge component: {} blocks, {} constraints",
                blocks.len(),
                group_digits(total)
            )
        });
        let (border, fill) = cluster
            .colors
            .unwrap_or(("#2166ac", CLUSTER_FILLS[(depth - 1) % CLUSTER_FILLS.len()]));
        let _ = writeln!(
            out,
            "{indent}subgraph {} {{",
            quote(&format!("cluster_{}", forest.comps[k].0))
        );
        let _ = writeln!(
            out,
            "{indent}  label={}; style=\"rounded,dashed,filled\"; color=\"{border}\"; fillcolor=\"{fill}\";",
            quote(&label),
        );
        for &b in &func.layout {
            if home.get(&b) == Some(&k) {
                let _ = writeln!(out, "{indent}  {}", node_line(func, b, annotations.get(&b)));
            }
        }
        stack.push((k, depth, true));
        for &c in children[k].iter().rev() {
            stack.push((c, depth + 1, false));
        }
    }
    for &b in &func.layout {
        if !home.contains_key(&b) {
            let _ = writeln!(out, "  {}", node_line(func, b, annotations.get(&b)));
        }
    }
    // A jump to a block no later in reverse post-order (a loop's back edge) does not constrain
    // the ranking, so the graph reads top to bottom from the entry.
    let rpo: HashMap<BlockId, usize> = func
        .reverse_post_order()
        .into_iter()
        .enumerate()
        .map(|(i, b)| (b, i))
        .collect();
    for &b in &func.layout {
        let targets: Vec<(BlockId, Option<&str>)> = match &func.block(b).term {
            Some(Terminator::Jmp(dest)) => vec![(dest.block, None)],
            Some(Terminator::Br {
                then_dest,
                else_dest,
                ..
            }) => vec![(then_dest.block, Some("T")), (else_dest.block, Some("F"))],
            Some(Terminator::Return(_)) | None => Vec::new(),
        };
        for (dest, tag) in targets {
            let mut attrs = Vec::new();
            if let Some(tag) = tag {
                attrs.push(format!("label=\"{tag}\""));
            }
            if let (Some(from), Some(to)) = (rpo.get(&b), rpo.get(&dest)) {
                if to <= from {
                    attrs.push("constraint=false".into());
                }
            }
            let _ = write!(
                out,
                "  {} -> {}",
                quote(&b.to_string()),
                quote(&dest.to_string())
            );
            if !attrs.is_empty() {
                let _ = write!(out, " [{}]", attrs.join(", "));
            }
            out.push_str(";\n");
        }
    }
    out.push_str("}\n");
    Ok(out)
}

/// The merge components of `func` as clusters for [`super::dot::render`]: each component's
/// blocks without its tail (the tail is the next block at the head's level; merging folds the
/// head and what lies before the tail into one block that jumps to the tail), only those with
/// at least two blocks, and only as many as keep the clusters nested or disjoint (larger
/// first), which DOT needs.
pub fn merge_clusters(func: &Function) -> Vec<BTreeSet<BlockId>> {
    let components = MergeComponents::new(func);
    let mut candidates: Vec<BTreeSet<BlockId>> = func
        .layout
        .iter()
        .filter_map(|h| components.component(*h))
        .map(|c| c.blocks.iter().copied().filter(|b| *b != c.tail).collect())
        .filter(|s: &BTreeSet<BlockId>| s.len() >= 2)
        .collect();
    candidates.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut kept: Vec<BTreeSet<BlockId>> = Vec::new();
    for c in candidates {
        let laminar = kept
            .iter()
            .all(|k| k.is_disjoint(&c) || k.is_subset(&c) || c.is_subset(k));
        if laminar && !kept.contains(&c) {
            kept.push(c);
        }
    }
    kept
}

/// Border and fill colours of a decision's cluster: merged green, kept grey, impossible red.
fn verdict_colors(verdict: Verdict) -> (&'static str, &'static str) {
    match verdict {
        Verdict::Taken => ("#1a9850", "#e5f5e0"),
        Verdict::Kept | Verdict::Stopped => ("#777777", "#f0f0f0"),
        Verdict::Impossible => ("#d73027", "#fde0dd"),
    }
}

/// `text` broken into lines of at most about `width` characters, at spaces.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for word in text.split(' ') {
        if line_len > 0 && line_len + 1 + word.len() > width {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
    }
    out
}

/// The merge components cost-driven block formation considered in `func` (its [`Decision`]s,
/// in the order recorded), as clusters of `func` — the function *before* merging, with the
/// latches formation adds (`opt::merge::add_latches`), whose block ids the decisions use.
///
/// A component of a later round may name a block an earlier merge made (its head, which then
/// stands for every block of that component): each such block is drawn as the blocks it
/// stands for. As in [`merge_clusters`], a cluster is the component without its tail, so that
/// a run of components `h1 -> t1`, `t1 -> t2` stays disjoint; clusters that would still overlap
/// one drawn before them (merged first, then impossible, then kept; larger first) are left out,
/// and the second value counts them.
pub fn decision_clusters(func: &Function, decisions: &[Decision]) -> (Vec<Cluster>, usize) {
    let laid_out: BTreeSet<BlockId> = func.layout.iter().copied().collect();
    let parse = |name: &str| -> Option<BlockId> {
        let id = BlockId(name.strip_prefix('b')?.parse().ok()?);
        laid_out.contains(&id).then_some(id)
    };
    // What each block stands for after the merges recorded so far.
    let mut stands_for: HashMap<BlockId, BTreeSet<BlockId>> = HashMap::default();
    let mut candidates: Vec<(Verdict, Cluster)> = Vec::new();
    let mut left_out = 0;
    for d in decisions {
        let Subject::Component {
            func: name,
            head,
            tail,
            blocks,
            lines,
            has_loop,
        } = &d.subject
        else {
            continue;
        };
        if *name != func.name {
            continue;
        }
        let Some(ids) = blocks.iter().map(|b| parse(b)).collect::<Option<Vec<_>>>() else {
            left_out += 1;
            continue;
        };
        let expand = |b: &BlockId| -> BTreeSet<BlockId> {
            stands_for
                .get(b)
                .cloned()
                .unwrap_or_else(|| BTreeSet::from([*b]))
        };
        let tail_id = parse(tail);
        let set: BTreeSet<BlockId> = ids
            .iter()
            .filter(|b| Some(**b) != tail_id)
            .flat_map(expand)
            .collect();
        let verdict = match d.verdict {
            Verdict::Taken => "merged",
            // Only the search's own record is stopped, never a component.
            Verdict::Kept | Verdict::Stopped => "kept",
            Verdict::Impossible => "impossible",
        };
        let name =
            super::explain::component_name(name, head, tail, blocks.len(), *lines, *has_loop);
        let cells = |n: Option<u128>| n.map_or_else(|| "-".into(), group_digits);
        let label = format!(
            "round {}: {verdict}\n{name}\nkept {} -> merged {}\n{}",
            d.round,
            cells(d.cells_kept),
            cells(d.cells_taken),
            wrap(&d.reason, 48)
        );
        if d.verdict == Verdict::Taken {
            if let Some(h) = parse(head) {
                let all: BTreeSet<BlockId> = ids.iter().flat_map(expand).collect();
                stands_for.insert(h, all);
            }
        }
        if !set.is_empty() {
            candidates.push((
                d.verdict,
                Cluster {
                    blocks: set,
                    label: Some(label),
                    colors: Some(verdict_colors(d.verdict)),
                },
            ));
        }
    }
    let rank = |v: Verdict| match v {
        Verdict::Taken => 0,
        Verdict::Impossible => 1,
        Verdict::Kept | Verdict::Stopped => 2,
    };
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| {
        (
            rank(candidates[i].0),
            std::cmp::Reverse(candidates[i].1.blocks.len()),
        )
    });
    let mut kept: Vec<usize> = Vec::new();
    for i in order {
        let c = &candidates[i].1.blocks;
        let laminar = kept.iter().all(|&k| {
            let k = &candidates[k].1.blocks;
            k.is_disjoint(c) || k.is_subset(c) || c.is_subset(k)
        });
        let duplicate = kept.iter().any(|&k| candidates[k].1.blocks == *c);
        if laminar && !duplicate {
            kept.push(i);
        } else {
            left_out += 1;
        }
    }
    // In the order recorded, so that the DOT text follows the rounds.
    kept.sort_unstable();
    let clusters = kept.into_iter().map(|i| candidates[i].1.clone()).collect();
    (clusters, left_out)
}
