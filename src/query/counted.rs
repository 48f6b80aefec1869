//! The `counted-loop` pattern of [`super::patterns`](mod@super::patterns) matched directly,
//! without the solver: the trip counts that [`crate::cost::executions`] reads for every
//! function it counts, which is every formation candidate's prediction. The solver needs
//! [`super::Facts`] (the extended CFG, edge dominator trees, an index of every instruction)
//! and enumerates the query's variables; this walks each loop's header once.
//!
//! For each loop `L` with header `h` and one latch `t`: every parameter `iv` of `h` (a `uN`)
//! that `t -> h` binds to `next = add iv, step` (`step` a constant), with `h`'s `br` testing
//! `cmp = lt|le|eq` of `iv` (or, when `h` is its own latch, of `next`) against a `bound`; `L`'s
//! one entry edge `p -> h` binds `iv` to `init`. That is the query's definition
//! ([`super::patterns::induction`]) restricted to what [`CountedLoop::trips`] can count: one
//! latch, one entry, constant `init`, `step` and `bound` (a constant is loop-invariant). Every
//! match the query finds that has a trip count is found here, with the same count: debug builds
//! solve the query too and assert it ([`counted_loops`]).

use crate::analysis::{Cfg, LoopForest};
use crate::fxhash::HashMap;
use crate::ir::{BinOp, BlockId, Function, InstKind, Terminator, ValueDef};

use super::patterns::{CountedLoop, Trips};

/// The trip count of every loop header of `func` that the `counted-loop` pattern counts.
pub fn counted_loops(func: &Function, cfg: &Cfg, loops: &LoopForest) -> HashMap<BlockId, Trips> {
    let mut out = HashMap::default();
    for lid in loops.ids() {
        let lp = loops.get(lid);
        let [latch] = lp.latches[..] else {
            continue;
        };
        let header = lp.header;
        let Some(Terminator::Br { cond, .. }) = &func.block(header).term else {
            continue;
        };
        let ValueDef::Result(cmp, _) = func.value(*cond).def else {
            continue;
        };
        let InstKind::Binary { op, lhs, rhs } = func.inst(cmp).kind else {
            continue;
        };
        if !matches!(op, BinOp::Lt | BinOp::Le | BinOp::Eq) || lhs == rhs {
            continue;
        }
        for (pos, &iv) in func.block(header).params.iter().enumerate() {
            if !matches!(func.value_type(iv), crate::ir::Type::UInt(w) if *w > 1) {
                continue;
            }
            let Some(next) = back_arg(func, latch, header, pos) else {
                continue;
            };
            let ValueDef::Result(inc, _) = func.value(next).def else {
                continue;
            };
            let InstKind::Binary {
                op: BinOp::Add,
                lhs: a,
                rhs: b,
            } = func.inst(inc).kind
            else {
                continue;
            };
            let step = match (a == iv, b == iv) {
                (true, _) => b,
                (_, true) => a,
                _ => continue,
            };
            if func.const_value(step).is_none() {
                continue;
            }
            // The counter tested: `iv`, or `next` in a loop that is one block testing at its end.
            let tested = if lhs == iv || rhs == iv {
                iv
            } else if latch == header && next != iv && (lhs == next || rhs == next) {
                next
            } else {
                continue;
            };
            let bound = if lhs == tested { rhs } else { lhs };
            if func.const_value(bound).is_none() {
                continue;
            }
            let mut outside = cfg
                .predecessors(header)
                .iter()
                .filter(|p| !lp.blocks.contains(p));
            let (Some(&pre), None) = (outside.next(), outside.next()) else {
                continue;
            };
            let Some(init) = back_arg(func, pre, header, pos) else {
                continue;
            };
            let m = CountedLoop {
                lp: lid,
                header,
                iv,
                init,
                step,
                next: Some(next),
                cmp,
                bound,
            };
            if let Ok(t) = m.trips(func, cfg, loops) {
                out.insert(header, t);
            }
        }
    }
    #[cfg(debug_assertions)]
    assert_eq!(
        out,
        by_query(func),
        "bug: the direct counted-loop matcher disagrees with the query"
    );
    out
}

/// The argument the first edge `from -> to` passes for `to`'s parameter `pos`.
fn back_arg(func: &Function, from: BlockId, to: BlockId, pos: usize) -> Option<crate::ir::ValueId> {
    let term = func.block(from).term.as_ref()?;
    term.block_calls()
        .into_iter()
        .find(|c| c.block == to)
        .and_then(|c| c.args.get(pos).copied())
}

/// The trip counts the `counted-loop` query's matches give, as [`counted_loops`] (its check).
#[cfg(debug_assertions)]
fn by_query(func: &Function) -> HashMap<BlockId, Trips> {
    use super::patterns::{find_pattern, trip_count, Bindings};
    let facts = super::Facts::new(func);
    let mut out = HashMap::default();
    let pattern = find_pattern("counted-loop").expect("bug: the counted-loop pattern exists");
    for query in pattern.queries() {
        let vars = query.vars();
        for sol in query.solve(&facts) {
            let bindings = Bindings(
                vars.iter()
                    .map(|(v, name)| (name.to_string(), sol.get(*v)))
                    .collect(),
            );
            if let (Ok(t), Some(header)) = (trip_count(&facts, &bindings), bindings.get("header")) {
                out.insert(header.block(), t);
            }
        }
    }
    out
}
