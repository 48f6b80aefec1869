//! Graphviz DOT drawings of a program's structure, for `zkbc compile --emit dot --show ...`.
//!
//! One `digraph` per program, one `cluster_fN` subgraph per function; node names are
//! prefixed with the function (`f0_b3`) so functions do not share nodes.
//! - [`Show::Cfg`]: blocks (with their parameters and instruction count) and CFG edges, `br`
//!   arms labelled `T`/`F`.
//! - [`Show::Cdg`]: blocks and control dependence edges `a -> b` (`b` is control dependent on
//!   `a`'s branch; post-dominance definition, [`crate::analysis::cdg`]).
//! - [`Show::CdgSeed`]: the same with the seed's cut-based relation.
//! - [`Show::CdgBoth`]: both relations on one drawing: solid where they agree, dashed where only
//!   the post-dominance relation has the edge, dotted where only the seed's has it.
//! - [`Show::Pdg`]: statements (parameters, instructions, terminators) and the PDG's data
//!   (solid), control (dashed) and phi (dotted) edges ([`crate::analysis::pdg`]).
//! - [`Show::Regions`]: the CFG with each canonical SESE region drawn as a nested cluster
//!   labelled with its entry and exit edges ([`crate::analysis::regions`]).

use crate::fxhash::HashSet;

use crate::analysis::{Cfg, ControlDependence};
use crate::analysis::{DepKind, Pdg, PdgNode, RegionId, RegionTree};
use crate::ir::{print, FuncId, Function, Program, Terminator};
use std::fmt::Write;

/// What to draw.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Show {
    /// The control-flow graph.
    Cfg,
    /// The control dependence graph (post-dominance definition: what the PDG and the queries
    /// use).
    Cdg,
    /// The seed's cut-based control dependence.
    CdgSeed,
    /// Both control dependence relations, their differences styled.
    CdgBoth,
    /// The program dependence graph.
    Pdg,
    /// The CFG with canonical SESE regions as clusters.
    Regions,
}

/// The DOT text of `program` drawn as `show`.
pub fn to_dot(program: &Program, show: Show) -> String {
    let mut out = String::from("digraph zkbc {\n  node [shape=box, fontname=\"monospace\"];\n");
    for fid in program.func_ids() {
        let func = program.func(fid);
        let _ = writeln!(out, "  subgraph cluster_{fid} {{");
        let _ = writeln!(
            out,
            "    label=\"{}\";",
            esc(&format!("{fid} {}", func.name))
        );
        match show {
            Show::Cfg => {
                blocks(&mut out, program, fid, &func.layout, "    ");
                cfg_edges(&mut out, fid, func);
            }
            Show::Cdg | Show::CdgSeed | Show::CdgBoth => {
                blocks(&mut out, program, fid, &func.layout, "    ");
                let post = ControlDependence::new(func);
                let seed = ControlDependence::seed(func);
                let edges: std::collections::BTreeSet<_> = match show {
                    Show::Cdg => post.edges().clone(),
                    Show::CdgSeed => seed.edges().clone(),
                    _ => post.edges().union(seed.edges()).copied().collect(),
                };
                for (a, b) in edges {
                    let style = match (
                        show,
                        post.edges().contains(&(a, b)),
                        seed.edges().contains(&(a, b)),
                    ) {
                        (Show::CdgBoth, true, false) => " [style=dashed, label=\"post-dominance\"]",
                        (Show::CdgBoth, false, true) => " [style=dotted, label=\"seed\"]",
                        _ => "",
                    };
                    let _ = writeln!(out, "    {fid}_{a} -> {fid}_{b}{style};");
                }
            }
            Show::Pdg => pdg(&mut out, fid, func),
            Show::Regions => regions(&mut out, program, fid),
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// Escapes a DOT string.
fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A block's box: its name and parameters, the source lines it came from, its size.
fn block_label(program: &Program, fid: FuncId, b: crate::ir::BlockId) -> String {
    let func = program.func(fid);
    let data = func.block(b);
    let source = program
        .block_source(fid, b)
        .map_or_else(String::new, |s| format!("\\n{}", esc(&s)));
    let params: Vec<String> = data
        .params
        .iter()
        .map(|p| format!("{p}: {}", func.value_type(*p)))
        .collect();
    let term = data.term.as_ref().map_or("", |t| match t {
        Terminator::Jmp(_) => "jmp",
        Terminator::Br { .. } => "br",
        Terminator::Return(_) => "return",
    });
    format!(
        "{b}({}){source}\\n{} insts, {term}",
        esc(&params.join(", ")),
        data.insts.len()
    )
}

fn blocks(
    out: &mut String,
    program: &Program,
    fid: FuncId,
    which: &[crate::ir::BlockId],
    indent: &str,
) {
    for &b in which {
        let _ = writeln!(
            out,
            "{indent}{fid}_{b} [label=\"{}\"];",
            block_label(program, fid, b)
        );
    }
}

fn cfg_edges(out: &mut String, fid: FuncId, func: &Function) {
    let cfg = Cfg::new(func);
    for (a, b) in cfg.edges() {
        let label = match &func.block(a).term {
            Some(Terminator::Br {
                then_dest,
                else_dest,
                ..
            }) if then_dest.block != else_dest.block => {
                if then_dest.block == b {
                    " [label=\"T\"]"
                } else {
                    " [label=\"F\"]"
                }
            }
            _ => "",
        };
        let _ = writeln!(out, "    {fid}_{a} -> {fid}_{b}{label};");
    }
}

fn pdg(out: &mut String, fid: FuncId, func: &Function) {
    let pdg = Pdg::new(func);
    let name = |n: PdgNode| match n {
        PdgNode::Param(v) => format!("{fid}_{v}"),
        PdgNode::Inst(i) => format!("{fid}_{i}"),
        PdgNode::Term(b) => format!("{fid}_{b}_term"),
    };
    let graph = pdg.graph();
    for n in graph.node_weights() {
        let label = match *n {
            PdgNode::Param(v) => format!("{v}: param {}", func.value_type(v)),
            PdgNode::Inst(i) => {
                let data = func.inst(i);
                let results: Vec<String> = data.results.iter().map(ToString::to_string).collect();
                let lhs = if results.is_empty() {
                    String::new()
                } else {
                    format!("{} = ", results.join(", "))
                };
                format!("{lhs}{}", data.kind.opcode())
            }
            PdgNode::Term(b) => match &func.block(b).term {
                Some(t) => format!("{b}: {}", print::print_terminator(func, t)),
                None => format!("{b}: (no terminator)"),
            },
        };
        let _ = writeln!(out, "    {} [label=\"{}\"];", name(*n), esc(&label));
    }
    for (kind, style) in [
        (DepKind::Data, "solid"),
        (DepKind::Control, "dashed"),
        (DepKind::Phi, "dotted"),
    ] {
        for (f, t) in pdg.edges(kind) {
            let _ = writeln!(out, "    {} -> {} [style={style}];", name(f), name(t));
        }
    }
}

fn regions(out: &mut String, program: &Program, fid: FuncId) {
    let func = program.func(fid);
    let tree = RegionTree::new(func);
    let mut placed: HashSet<crate::ir::BlockId> = HashSet::default();
    fn cluster(
        out: &mut String,
        program: &Program,
        fid: FuncId,
        tree: &RegionTree,
        r: RegionId,
        depth: usize,
        placed: &mut HashSet<crate::ir::BlockId>,
    ) {
        let reg = tree.get(r);
        let indent = "  ".repeat(depth + 2);
        let _ = writeln!(out, "{indent}subgraph cluster_{fid}_{r} {{");
        let _ = writeln!(
            out,
            "{indent}  label=\"{r}: {} .. {}\"; style=rounded;",
            reg.entry, reg.exit
        );
        let mut children = reg.children.clone();
        children.sort_by_key(|c| tree.get(*c).entry);
        for c in children {
            cluster(out, program, fid, tree, c, depth + 1, placed);
        }
        let own: Vec<_> = reg
            .blocks
            .iter()
            .copied()
            .filter(|b| !placed.contains(b))
            .collect();
        blocks(out, program, fid, &own, &format!("{indent}  "));
        placed.extend(own);
        let _ = writeln!(out, "{indent}}}");
    }
    let mut roots = tree.roots();
    roots.sort_by_key(|r| tree.get(*r).entry);
    for r in roots {
        cluster(out, program, fid, &tree, r, 0, &mut placed);
    }
    let rest: Vec<_> = func
        .layout
        .iter()
        .copied()
        .filter(|b| !placed.contains(b))
        .collect();
    blocks(out, program, fid, &rest, "    ");
    cfg_edges(out, fid, func);
}
