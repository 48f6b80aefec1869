//! The shipped structure queries ("patterns"), each a [`Query`] built from the predicates of
//! [`crate::query::pred`], and [`find_matches`] that runs one over a whole program.
//!
//! | name | structure | definition |
//! |---|---|---|
//! | `sese` | every SESE region `(a->b, c->d)` | the seed's SESE tuple (`../shared/seeds/ssa-structure-model.tex`, the design notes beside the repository, "Formulating Constraint Problems"), read as Johnson–Pearson–Pingali, as [`crate::analysis::regions`] does |
//! | `sese-canonical` | the canonical SESE regions | JPP's canonical regions, as [`crate::analysis::RegionTree::regions`] |
//! | `natural-loop` | back edges `latch -> header` | `header` dominates `latch` ([`crate::analysis::loops`]) |
//! | `counted-loop` | a loop's induction variable and trip count | see below |
//! | `dot-product` | `acc = acc + a[..i..] * b[..i..]` over a counted loop | see below |
//! | `bits-round-trip` | `from_bits(to_bits(x))` of `x`'s own type | foldable to `x` (the `fold_bits` pass, [`crate::opt::fold_bits`]) |
//! | `interface` | a region written out several times, with its interface | computed by [`crate::analysis::repeats`], not a query |
//!
//! **SESE.** Variables `a, b, c, d` are nodes of the extended CFG; the constraints are the
//! seed's `is_control_edge(a, b)`, `is_control_edge(c, d)`, then edge `a->b` dominates `c->d`,
//! `c->d` post-dominates `a->b` (the seed writes `is_control_dom`/`is_control_postdom` on the
//! exit edge alone, which relates nothing to the entry; the analysis helper's reading is the
//! edge form), the two edges are cycle equivalent (JPP's third condition, which the seed
//! omits), and they are distinct edges (`not exists: a = c and b = d`). The canonical regions
//! add: no SESE region `(a->b, x->y)` has `c->d` not dominating `x->y`, and no SESE region
//! `(x->y, c->d)` has `a->b` not post-dominating `x->y` — two nested negated sub-queries.
//!
//! **Counted loop.** A loop `L` with header `h` and a latch `t`; a block parameter `iv` of `h`
//! (a `uN`) that the back edge `t -> h` binds to `next = add iv, step` with `step` a
//! constant, that the entry edge `p -> h` (`p` outside `L`) binds to `init`, and that `h`'s
//! `br` compares (`lt`, `le`, `eq`) against a loop-invariant `bound`. The trip count is
//! computed from constant `init`, `step` and `bound` by stepping the counter with the
//! interpreter's wrapping arithmetic, when `L` has one latch and one entry edge; if the loop
//! also exits elsewhere than from its header it is an upper bound (`trips<=N`). A loop that
//! block formation rotated tests at its end instead: `h` is its own latch and its `br`
//! compares `next`, not `iv`; it runs its body once before the first test, and its trip count
//! is the number of times `h` runs.
//!
//! **Dot product.** A counted loop (as above) whose body — the mul's block has `L` as its
//! innermost loop — computes `prod = mul x, y` with `x` and `y` both elements selected by `iv`
//! ([`crate::query::Pred::IndexedBy`]) and `sum = add acc, prod`, where the accumulator is
//! either a parameter of `h` fed back as `sum` by the back edge (the form after mem2reg), or a
//! memory cell `acc = load p` ... `store sum at p` (the front end's form for a `mut` local).

use super::facts::Facts;
use super::pred::{Entity, Kind, Pred};
use super::solver::{Query, QueryBuilder, Var};
use crate::analysis::{Cfg, LoopForest, LoopId};
use crate::ir::{
    BinOp, BlockId, FuncId, Function, InstId, InstKind, Program, SrcLoc, Terminator, ValueId,
};
use std::fmt::Write;

/// A shipped query: a name, a summary, the query variants whose matches it reports, and an
/// optional annotation of each match (trip counts, region blocks).
pub struct Pattern {
    /// The name `zkbc query --pattern` takes.
    pub name: &'static str,
    /// One line for `zkbc query --list`.
    pub summary: &'static str,
    /// The variables a match prints (all when empty); every bound instruction's source
    /// location is printed either way.
    pub shown: &'static [&'static str],
    build: fn() -> Vec<Query>,
    note: fn(&Facts<'_>, &Bindings) -> Option<String>,
    /// For a pattern an analysis finds instead of a query: its matches in one function.
    computed: Option<fn(&Program, FuncId) -> Vec<Match>>,
    /// The passes `zkbc query` runs on the front end's program before matching (none: the
    /// program as written).
    pub before: &'static [&'static str],
}

impl Pattern {
    /// The queries of the pattern (one per variant; their matches are reported together).
    pub fn queries(&self) -> Vec<Query> {
        (self.build)()
    }
}

/// Every shipped pattern, in `--list` order.
pub fn patterns() -> Vec<Pattern> {
    vec![
        Pattern {
            name: "sese",
            summary: "every single-entry single-exit region (entry edge a->b, exit edge c->d)",
            shown: &[],
            build: || vec![sese_query(false)],
            note: region_note,
            computed: None,
            before: &[],
        },
        Pattern {
            name: "sese-canonical",
            summary: "the canonical SESE regions (the nodes of the region tree)",
            shown: &[],
            build: || vec![sese_query(true)],
            note: region_note,
            computed: None,
            before: &[],
        },
        Pattern {
            name: "natural-loop",
            summary: "back edges latch->header of natural loops (header dominates latch)",
            shown: &[],
            build: || vec![natural_loop_query()],
            note: |_, _| None,
            computed: None,
            before: &[],
        },
        Pattern {
            name: "counted-loop",
            summary: "loops with an induction variable (iv += constant, compared to a bound) and their trip count",
            shown: &["loop", "header", "latch", "iv", "init", "step", "bound", "cmp"],
            build: || {
                let mut q = Query::new();
                induction(&mut q);
                let mut rotated = Query::new();
                induction_tested_at_end(&mut rotated);
                vec![q, rotated]
            },
            note: trip_note,
            computed: None,
            before: &[],
        },
        Pattern {
            name: "dot-product",
            summary: "reductions acc = acc + x[i] * y[i] over a counted loop (register or memory accumulator)",
            shown: &["loop", "iv", "acc", "cell", "get_x", "get_y", "mul", "add"],
            build: || vec![dot_product_query(false), dot_product_query(true)],
            note: trip_note,
            computed: None,
            before: &[],
        },
        Pattern {
            name: "bits-round-trip",
            summary: "from_bits(to_bits(x)) giving x's own type, which folds to x",
            shown: &[],
            build: || vec![bits_round_trip_query()],
            note: |_, _| None,
            computed: None,
            before: &[],
        },
        Pattern {
            name: "interface",
            summary: "regions written out several times (hand-unrolled levels or rounds) and the interface a function of them would take",
            shown: &[],
            build: Vec::new,
            note: |_, _| None,
            computed: Some(interface_matches),
            // Local cells promoted to values: a region that reads and writes a `mut` local
            // through `load`/`store` would be impure.
            before: &["mem2reg", "dce"],
        },
    ]
}

/// The pattern named `name`.
pub fn find_pattern(name: &str) -> Option<Pattern> {
    patterns().into_iter().find(|p| p.name == name)
}

/// The variables of one match by name, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bindings(pub Vec<(String, Entity)>);

impl Bindings {
    /// The entity bound to the variable named `name`.
    pub fn get(&self, name: &str) -> Option<Entity> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, e)| *e)
    }
}

/// One match of a pattern in a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// The function it is in.
    pub func: FuncId,
    /// Which query of the pattern matched.
    pub variant: usize,
    /// The variables.
    pub bindings: Bindings,
    /// The shown `name=entity` pairs as text, then the pattern's note.
    pub text: String,
    /// The source locations of the matched instructions that carry one, in order.
    pub locs: Vec<SrcLoc>,
}

/// Every match of `pattern` in every function of `program`, functions in order.
pub fn find_matches(program: &Program, pattern: &Pattern) -> Vec<Match> {
    if let Some(find) = pattern.computed {
        return program.func_ids().flat_map(|f| find(program, f)).collect();
    }
    matches_of(program, &pattern.queries(), pattern.shown, pattern.note)
}

/// The `interface` pattern's matches in `func`: one per repeated region
/// ([`crate::analysis::repeats`]), as `K copies of P statements (I instructions, B blocks);
/// interface: N inputs (C carried from the copy before, K constants) -> M outputs; inputs of
/// the first copy ...; copies from ...`, located at each copy's first instruction.
fn interface_matches(program: &Program, func: FuncId) -> Vec<Match> {
    use crate::analysis::repeats::{find_repeats, Stmt};
    let f = program.func(func);
    let operand = |v: ValueId| crate::ir::print::operand(f, v);
    find_repeats(f)
        .into_iter()
        .map(|r| {
            let starts: Vec<String> = r
                .copies
                .iter()
                .map(|c| match c[0] {
                    Stmt::Params(b) | Stmt::Term(b) => b.to_string(),
                    Stmt::Inst(i) => f
                        .inst(i)
                        .results
                        .first()
                        .map_or_else(|| f.inst(i).kind.opcode().to_string(), |v| v.to_string()),
                })
                .collect();
            let shown = |list: &[String]| {
                if list.len() <= 6 {
                    list.join(", ")
                } else {
                    format!("{}, ... {}", list[..4].join(", "), list[list.len() - 1])
                }
            };
            let inputs: Vec<String> = r.inputs.iter().map(|slot| operand(slot[0])).collect();
            let outputs: Vec<String> = r.outputs.iter().map(|slot| operand(slot[0])).collect();
            let count =
                |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
            let text = format!(
                "{} of {} ({}, {}); interface: {} ({} carried from the copy before, {}) -> {}; \
                 the first copy reads [{}] and defines [{}]; copies from {}",
                count(r.copies.len(), "copy").replace("copys", "copies"),
                count(r.len(), "statement"),
                count(r.insts(), "instruction"),
                count(r.blocks(0).len(), "block"),
                count(r.inputs.len(), "input"),
                r.carried(f),
                count(r.constant_inputs(f), "constant"),
                count(r.outputs.len(), "output"),
                shown(&inputs),
                shown(&outputs),
                shown(&starts),
            );
            let mut locs = Vec::new();
            for c in &r.copies {
                let first = c.iter().find_map(|s| match s {
                    Stmt::Inst(i) => f.inst(*i).loc(),
                    _ => None,
                });
                if let Some(loc) = first {
                    if !locs.contains(&loc) {
                        locs.push(loc);
                    }
                }
            }
            Match {
                func,
                variant: 0,
                bindings: Bindings(Vec::new()),
                text,
                locs,
            }
        })
        .collect()
}

/// Every match of an ad-hoc query (all its variables shown, no note).
pub fn find_query_matches(program: &Program, query: &Query) -> Vec<Match> {
    matches_of(program, std::slice::from_ref(query), &[], |_, _| None)
}

fn matches_of(
    program: &Program,
    queries: &[Query],
    shown: &[&str],
    note: fn(&Facts<'_>, &Bindings) -> Option<String>,
) -> Vec<Match> {
    let mut out = Vec::new();
    for fid in program.func_ids() {
        let facts = Facts::new(program.func(fid));
        for (variant, q) in queries.iter().enumerate() {
            let vars = q.vars();
            for sol in q.solve(&facts) {
                let bindings = Bindings(
                    vars.iter()
                        .map(|(v, name)| (name.to_string(), sol.get(*v)))
                        .collect(),
                );
                out.push(make_match(&facts, shown, note, fid, variant, bindings));
            }
        }
    }
    out
}

fn make_match(
    facts: &Facts<'_>,
    shown: &[&str],
    note: fn(&Facts<'_>, &Bindings) -> Option<String>,
    func: FuncId,
    variant: usize,
    bindings: Bindings,
) -> Match {
    let mut text = bindings
        .0
        .iter()
        .filter(|(n, _)| shown.is_empty() || shown.contains(&n.as_str()))
        .map(|(n, e)| format!("{n}={}", e.describe(facts)))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(note) = note(facts, &bindings) {
        let _ = write!(text, "; {note}");
    }
    let mut locs = Vec::new();
    for (_, e) in &bindings.0 {
        if let Entity::Inst(i) = e {
            if let Some(loc) = facts.func.inst(*i).loc() {
                if !locs.contains(&loc) {
                    locs.push(loc);
                }
            }
        }
    }
    Match {
        func,
        variant,
        bindings,
        text,
        locs,
    }
}

/// The matches as text: one line per match, `fN name: var=entity ...; note`, then an
/// indented `at FILE:LINE:COL, ...` line when matched instructions carry source locations
/// (`file` names the source; without it the location is `LINE:COL`). A program without match
/// gives `no match of NAME`.
pub fn format_matches(
    program: &Program,
    name: &str,
    matches: &[Match],
    file: Option<&str>,
) -> String {
    let mut out = String::new();
    for m in matches {
        let _ = writeln!(out, "{} {}: {}", m.func, program.func(m.func).name, m.text);
        if !m.locs.is_empty() {
            let locs: Vec<String> = m
                .locs
                .iter()
                .map(|l| match file {
                    Some(f) => format!("{f}:{l}"),
                    None => l.to_string(),
                })
                .collect();
            let _ = writeln!(out, "    at {}", locs.join(", "));
        }
    }
    if matches.is_empty() {
        let _ = writeln!(out, "no match of {name}");
    }
    out
}

/// Adds "`a->b` and `c->d` form a SESE region" (see the module doc) to a query or sub-query.
pub fn add_sese(q: &mut impl QueryBuilder, a: Var, b: Var, c: Var, d: Var) {
    q.add(Pred::ExtEdge, [a, b]);
    q.add(Pred::ExtEdge, [c, d]);
    q.add(Pred::EdgeDominates, [a, b, c, d]);
    q.add(Pred::EdgePostDominates, [c, d, a, b]);
    q.add(Pred::CycleEquivalent, [a, b, c, d]);
    q.not_exists(|s| {
        s.add(Pred::Equal, [a, c]);
        s.add(Pred::Equal, [b, d]);
    });
}

/// The SESE regions `(a->b, c->d)`; with `canonical`, only the canonical ones.
pub fn sese_query(canonical: bool) -> Query {
    let mut q = Query::new();
    let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| q.var(n, Kind::Node));
    add_sese(&mut q, a, b, c, d);
    if canonical {
        // No region with the same entry ends at an edge c->d does not dominate.
        q.not_exists(|s| {
            let (x, y) = (s.var("x", Kind::Node), s.var("y", Kind::Node));
            add_sese(s, a, b, x, y);
            s.add_not(Pred::EdgeDominates, [c, d, x, y]);
        });
        // No region with the same exit starts at an edge a->b does not post-dominate.
        q.not_exists(|s| {
            let (x, y) = (s.var("x", Kind::Node), s.var("y", Kind::Node));
            add_sese(s, x, y, c, d);
            s.add_not(Pred::EdgePostDominates, [a, b, x, y]);
        });
    }
    q
}

/// Back edges: `latch -> header` with `header` dominating `latch`.
pub fn natural_loop_query() -> Query {
    let mut q = Query::new();
    let h = q.var("header", Kind::Block);
    let t = q.var("latch", Kind::Block);
    q.add(Pred::ControlEdge, [t, h]);
    q.add(Pred::Dominates, [h, t]);
    q
}

/// The variables of a counted loop added by [`induction`].
pub struct Induction {
    /// The loop.
    pub lp: Var,
    /// Its header.
    pub header: Var,
    /// The latch whose back edge increments the counter.
    pub latch: Var,
    /// The induction variable (a parameter of the header).
    pub iv: Var,
}

/// Adds the counted-loop constraints (see the module doc) to `q`.
pub fn induction(q: &mut Query) -> Induction {
    induction_comparing(q, false)
}

/// Adds the constraints of a counted loop that tests at its end (a rotated loop: its header is
/// its own latch and compares `next`, the incremented counter) to `q`.
pub fn induction_tested_at_end(q: &mut Query) -> Induction {
    induction_comparing(q, true)
}

/// [`induction`], the header's `br` comparing `next` instead of `iv` when `at_end`.
fn induction_comparing(q: &mut Query, at_end: bool) -> Induction {
    let lp = q.var("loop", Kind::Loop);
    let h = q.var("header", Kind::Block);
    let t = q.var("latch", Kind::Block);
    let p = q.var("preheader", Kind::Block);
    let iv = q.var("iv", Kind::Value);
    let init = q.var("init", Kind::Value);
    let next = q.var("next", Kind::Value);
    let inc = q.var("inc", Kind::Inst);
    let step = q.var("step", Kind::Value);
    let cond = q.var("cond", Kind::Value);
    let cmp = q.var("cmp", Kind::Inst);
    let bound = q.var("bound", Kind::Value);
    q.add(Pred::LoopHeader, [lp, h]);
    q.add(Pred::LoopLatch, [lp, t]);
    q.add(Pred::ParamOf, [iv, h]);
    q.add(Pred::IsUInt, [iv]);
    q.add(Pred::JumpArg, [t, h, iv, next]);
    q.add(Pred::Result, [inc, next]);
    q.add(Pred::opcode(&["add"]), [inc]);
    q.add(Pred::Operand(None), [inc, iv]);
    q.add(Pred::Operand(None), [inc, step]);
    q.add(Pred::IsConst, [step]);
    q.add(Pred::BranchCond, [h, cond]);
    q.add(Pred::Result, [cmp, cond]);
    q.add(Pred::opcode(&["lt", "le", "eq"]), [cmp]);
    let tested = if at_end {
        q.add(Pred::Distinct, [iv, next]);
        next
    } else {
        iv
    };
    if at_end {
        // The header is its own latch: one block that tests at its end.
        q.add(Pred::Equal, [t, h]);
    }
    q.add(Pred::Operand(None), [cmp, tested]);
    q.add(Pred::Operand(None), [cmp, bound]);
    q.add(Pred::Distinct, [tested, bound]);
    q.add(Pred::LoopInvariant, [bound, lp]);
    q.add(Pred::ControlEdge, [p, h]);
    q.add_not(Pred::InLoop, [p, lp]);
    q.add(Pred::JumpArg, [p, h, iv, init]);
    Induction {
        lp,
        header: h,
        latch: t,
        iv,
    }
}

/// Dot-product reductions over a counted loop; `memory` selects the accumulator form.
pub fn dot_product_query(memory: bool) -> Query {
    let mut q = Query::new();
    let ind = induction(&mut q);
    let mul = q.var("mul", Kind::Inst);
    let prod = q.var("prod", Kind::Value);
    let x = q.var("x", Kind::Value);
    let y = q.var("y", Kind::Value);
    let get_x = q.var("get_x", Kind::Inst);
    let get_y = q.var("get_y", Kind::Inst);
    let body = q.var("body", Kind::Block);
    let add = q.var("add", Kind::Inst);
    let acc = q.var("acc", Kind::Value);
    let sum = q.var("sum", Kind::Value);
    q.add(Pred::opcode(&["mul"]), [mul]);
    q.add(Pred::Result, [mul, prod]);
    q.add(Pred::Operand(Some(0)), [mul, x]);
    q.add(Pred::Operand(Some(1)), [mul, y]);
    q.add(Pred::InBlock, [mul, body]);
    q.add(Pred::SameLoop, [body, ind.header]);
    for (get, v) in [(get_x, x), (get_y, y)] {
        q.add(Pred::Result, [get, v]);
        q.add(Pred::opcode(&["array_get"]), [get]);
        q.add(Pred::IndexedBy, [get, ind.iv]);
    }
    q.add(Pred::opcode(&["add"]), [add]);
    q.add(Pred::Result, [add, sum]);
    q.add(Pred::Operand(None), [add, acc]);
    q.add(Pred::Operand(None), [add, prod]);
    q.add(Pred::Distinct, [acc, prod]);
    if memory {
        let load = q.var("load", Kind::Inst);
        let store = q.var("store", Kind::Inst);
        let ptr = q.var("cell", Kind::Value);
        let (lb, sb) = (
            q.var("load_block", Kind::Block),
            q.var("store_block", Kind::Block),
        );
        q.add(Pred::opcode(&["load"]), [load]);
        q.add(Pred::Result, [load, acc]);
        q.add(Pred::Operand(Some(0)), [load, ptr]);
        q.add(Pred::opcode(&["store"]), [store]);
        q.add(Pred::Operand(Some(0)), [store, sum]);
        q.add(Pred::Operand(Some(1)), [store, ptr]);
        q.add(Pred::InBlock, [load, lb]);
        q.add(Pred::InBlock, [store, sb]);
        q.add(Pred::InLoop, [lb, ind.lp]);
        q.add(Pred::InLoop, [sb, ind.lp]);
    } else {
        q.add(Pred::ParamOf, [acc, ind.header]);
        q.add(Pred::JumpArg, [ind.latch, ind.header, acc, sum]);
    }
    q
}

/// `y = from_bits(to_bits(x))` with `y` of `x`'s type.
pub fn bits_round_trip_query() -> Query {
    let mut q = Query::new();
    let to = q.var("to_bits", Kind::Inst);
    let from = q.var("from_bits", Kind::Inst);
    let x = q.var("x", Kind::Value);
    let bits = q.var("bits", Kind::Value);
    let y = q.var("y", Kind::Value);
    q.add(Pred::opcode(&["to_bits"]), [to]);
    q.add(Pred::opcode(&["from_bits"]), [from]);
    q.add(Pred::Operand(Some(0)), [to, x]);
    q.add(Pred::Result, [to, bits]);
    q.add(Pred::Operand(Some(0)), [from, bits]);
    q.add(Pred::Result, [from, y]);
    q.add(Pred::SameType, [x, y]);
    q
}

/// `blocks {..}` of a SESE match.
fn region_note(facts: &Facts<'_>, b: &Bindings) -> Option<String> {
    let node = |n: &str| b.get(n).map(Entity::node);
    let e1 = facts.ext_edge(node("a")?, node("b")?)?;
    let e2 = facts.ext_edge(node("c")?, node("d")?)?;
    let blocks: Vec<String> = facts
        .region_blocks(e1, e2)
        .iter()
        .map(ToString::to_string)
        .collect();
    Some(format!("blocks {{{}}}", blocks.join(", ")))
}

/// The most iterations [`trip_count`] steps through before giving up.
pub const MAX_TRIPS: u64 = 1 << 20;

/// `trips=N`, `trips<=N` or `trips=?` with the reason, for a counted-loop match.
fn trip_note(facts: &Facts<'_>, b: &Bindings) -> Option<String> {
    Some(match trip_count(facts, b) {
        Ok(Trips { n, exact: true, .. }) => format!("trips={n}"),
        Ok(Trips { n, .. }) => format!("trips<={n}"),
        Err(why) => format!("trips=? ({why})"),
    })
}

/// The trip count of a counted loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trips {
    /// Iterations per entry: runs of the body (the header runs once more, its last test leaving
    /// the loop), or for a loop that tests at its end, runs of its one block.
    pub n: u64,
    /// Whether the loop exits only from its header (else `n` is an upper bound).
    pub exact: bool,
    /// Whether the loop tests at its end ([`induction_tested_at_end`]).
    pub at_end: bool,
}

/// The trip count of a counted-loop match, or why it is not known.
pub fn trip_count(facts: &Facts<'_>, b: &Bindings) -> Result<Trips, &'static str> {
    let get = |n: &str| b.get(n).ok_or("not a counted-loop match");
    let m = CountedLoop {
        lp: get("loop")?.loop_id(),
        header: get("header")?.block(),
        iv: get("iv")?.value(),
        init: get("init")?.value(),
        step: get("step")?.value(),
        next: b.get("next").map(|n| n.value()),
        cmp: get("cmp")?.inst(),
        bound: get("bound")?.value(),
    };
    m.trips(facts.func, &facts.cfg, &facts.loops)
}

/// The parts of one counted-loop match that its trip count reads (the variables of
/// [`induction`] by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountedLoop {
    /// The loop.
    pub lp: LoopId,
    /// Its header.
    pub header: BlockId,
    /// The induction variable, a parameter of `header`.
    pub iv: ValueId,
    /// What the entry edge binds `iv` to.
    pub init: ValueId,
    /// The constant added each iteration.
    pub step: ValueId,
    /// `iv + step`, what the back edge binds `iv` to.
    pub next: Option<ValueId>,
    /// The comparison `header`'s `br` tests.
    pub cmp: InstId,
    /// What `cmp` compares the counter against.
    pub bound: ValueId,
}

impl CountedLoop {
    /// The trip count of this match, or why it is not known (see the module doc).
    pub fn trips(
        &self,
        func: &Function,
        cfg: &Cfg,
        loops: &LoopForest,
    ) -> Result<Trips, &'static str> {
        let lp = loops.get(self.lp);
        let header = self.header;
        if lp.latches.len() != 1 {
            return Err("several latches");
        }
        let mut outside = cfg
            .predecessors(header)
            .iter()
            .filter(|p| !lp.blocks.contains(p));
        let (Some(&pre), None) = (outside.next(), outside.next()) else {
            return Err("several entries");
        };
        // A `br` whose two arms both enter the header may bind the counter twice.
        if !binds_only(func, pre, header, self.iv, self.init) {
            return Err("several entries");
        }
        // Likewise a latch whose two arms both go back binds the counter twice.
        if let Some(next) = self.next {
            if !binds_only(func, lp.latches[0], header, self.iv, next) {
                return Err("several latches");
            }
        }
        let uint = |v: ValueId| -> Result<u64, &'static str> {
            match func.const_value(v) {
                Some(crate::ir::Const::UInt(x)) => Ok(x),
                _ => Err("runtime bound"),
            }
        };
        let (init, step, bound) = (uint(self.init)?, uint(self.step)?, uint(self.bound)?);
        let iv = self.iv;
        let width = func.value_type(iv).uint_width().ok_or("not an integer")?;
        let InstKind::Binary { op, lhs, rhs } = func.inst(self.cmp).kind else {
            return Err("not a comparison");
        };
        let next = self.next;
        let at_end = next.is_some_and(|n| lhs == n || rhs == n) && lhs != iv && rhs != iv;
        let tested = if at_end { next.unwrap_or(iv) } else { iv };
        let counter_left = lhs == tested;
        let Some(Terminator::Br {
            then_dest,
            else_dest,
            ..
        }) = &func.block(header).term
        else {
            return Err("no branch");
        };
        let stay_if = match (
            lp.blocks.contains(&then_dest.block),
            lp.blocks.contains(&else_dest.block),
        ) {
            (true, false) => true,
            (false, true) => false,
            _ => return Err("the branch does not exit"),
        };
        let cmp = Comparison {
            op,
            bound,
            counter_left,
            stay_if,
        };
        // The first test sees the counter before the first step, or (testing at the end) after it.
        let first = u64::from(at_end);
        let n = match cmp.closed_form(init, step, width, first) {
            Some(n) => n,
            None => cmp.stepped(init, step, width, first)?,
        };
        let exact = lp.exits.iter().all(|(from, _)| *from == header);
        Ok(Trips { n, exact, at_end })
    }
}

/// Whether every edge `from -> to` binds `to`'s parameter `param` to `arg` (and one does).
pub(crate) fn binds_only(
    func: &Function,
    from: BlockId,
    to: BlockId,
    param: ValueId,
    arg: ValueId,
) -> bool {
    let Some(k) = func.block(to).params.iter().position(|p| *p == param) else {
        return false;
    };
    let Some(term) = &func.block(from).term else {
        return false;
    };
    let calls = term.block_calls();
    let mut into = calls.iter().filter(|c| c.block == to).peekable();
    into.peek().is_some() && into.all(|c| c.args.get(k) == Some(&arg))
}

/// A counted loop's test: it stays while `counter op bound` (or `bound op counter`) is
/// `stay_if`.
struct Comparison {
    op: BinOp,
    bound: u64,
    counter_left: bool,
    stay_if: bool,
}

impl Comparison {
    fn stays(&self, i: u64) -> bool {
        let (l, r) = if self.counter_left {
            (i, self.bound)
        } else {
            (self.bound, i)
        };
        let holds = match self.op {
            BinOp::Lt => l < r,
            BinOp::Le => l <= r,
            _ => l == r,
        };
        holds == self.stay_if
    }

    /// The least `j >= first` whose counter `init + j * step` (wrapping at `width` bits)
    /// leaves, found by stepping.
    fn stepped(&self, init: u64, step: u64, width: u32, first: u64) -> Result<u64, &'static str> {
        let mut i = init;
        for _ in 0..first {
            i = crate::ir::wrap(i.wrapping_add(step), width);
        }
        let mut n = first;
        while self.stays(i) {
            n += 1;
            if n > MAX_TRIPS {
                return Err("too many iterations");
            }
            i = crate::ir::wrap(i.wrapping_add(step), width);
        }
        Ok(n)
    }

    /// [`Comparison::stepped`] without stepping, for the usual tests (`counter < bound` or
    /// `counter <= bound` staying, `counter == bound` leaving) of a counter that counts up
    /// without wrapping until it leaves; `None` for any other case.
    fn closed_form(&self, init: u64, step: u64, width: u32, first: u64) -> Option<u64> {
        if step == 0 || !self.counter_left {
            return None;
        }
        let (init, step, first) = (u128::from(init), u128::from(step), u128::from(first));
        let bound = u128::from(self.bound);
        let j = match (self.op, self.stay_if) {
            // Leaves at the first counter >= limit.
            (BinOp::Lt, true) | (BinOp::Le, true) => {
                let limit = if self.op == BinOp::Lt {
                    bound
                } else {
                    bound + 1
                };
                let at_first = init + first * step;
                if at_first >= limit {
                    first
                } else {
                    (limit - init).div_ceil(step)
                }
            }
            // Leaves at the counter equal to the bound.
            (BinOp::Eq, false) => {
                let at_first = init + first * step;
                if bound < at_first || (bound - init) % step != 0 {
                    return None;
                }
                (bound - init) / step
            }
            _ => return None,
        };
        // Every counter up to the one that leaves must be exact (no wrapping).
        (init + j * step < (1u128 << width)).then(|| u64::try_from(j).ok())?
    }
}

#[cfg(test)]
mod tests {
    use super::{BinOp, Comparison};

    /// The closed form agrees with stepping wherever it answers, on small counters of every
    /// width it is used for (including wrapping, where it must not answer or agree).
    #[test]
    fn the_closed_form_trip_count_agrees_with_stepping() {
        let mut answered = 0;
        for op in [BinOp::Lt, BinOp::Le, BinOp::Eq] {
            for stay_if in [true, false] {
                for bound in 0..20u64 {
                    for init in 0..20u64 {
                        for step in 1..5u64 {
                            for first in 0..2 {
                                let cmp = Comparison {
                                    op,
                                    bound,
                                    counter_left: true,
                                    stay_if,
                                };
                                // Stepping ends at the right answer: it is asked only when
                                // the closed form answers (elsewhere it may step until its
                                // limit).
                                if let Some(n) = cmp.closed_form(init, step, 8, first) {
                                    assert_eq!(
                                        Ok(n),
                                        cmp.stepped(init, step, 8, first),
                                        "{op:?} stay {stay_if} bound {bound} init {init} \
                                         step {step} first {first}"
                                    );
                                    answered += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(answered > 3000, "{answered}");
    }
}
