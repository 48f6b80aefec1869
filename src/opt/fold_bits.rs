//! `fold_bits`: `from_bits(to_bits(x))` of `x`'s own type becomes `x` (the round trips the
//! `bits-round-trip` structure query describes).
//!
//! `y = from_bits (to_bits x) to T` where `T` is the type of `x` recomposes the bits that `x`
//! was decomposed into, most significant first both ways, so `y = x` — for `uN` trivially, and
//! for `field` because `to_bits` gives the 254 bits of the canonical value, which `from_bits`
//! reads back to the same element. Each match of
//! [`crate::query::patterns::bits_round_trip_query`] is folded:
//! 1. every use of `y` becomes a use of `x` (`x` dominates `to_bits`, which dominates
//!    `from_bits`, which dominates the uses of `y`, so the IR stays valid);
//! 2. the `from_bits` is removed (it cannot fail and has no other result);
//! 3. the `to_bits` is removed too when its bits have no use left.
//!
//! ```text
//! b0(v0: u32):                      b0(v0: u32):
//!     v1 = to_bits v0         =>        return v0
//!     v2 = from_bits v1 to u32
//!     return v2
//! ```
//!
//! In a circuit each round trip costs a bit decomposition (N boolean constraints and one
//! linear one) that the fold removes. The matches are found directly; debug builds check them
//! against the query's solutions (the one use of `query` in `opt`).

use super::PassStats;
use crate::fxhash::{HashMap, HashSet};
use crate::ir::{Function, InstId, InstKind, Program, ValueDef, ValueId};
use crate::query::patterns::bits_round_trip_query;
use crate::query::Facts;

/// Folds every `from_bits(to_bits(x))` of `x`'s own type to `x`; counts them as
/// `bit_round_trips_folded`.
///
/// The matches are found directly (a `from_bits` whose operand is a `to_bits` result); debug
/// builds check them against the query's solutions. Solving the query built each function's
/// dominator trees and loop forest in every round of the pipeline, for a pattern that names
/// two instructions.
pub fn run(program: &mut Program) -> PassStats {
    let mut total = 0;
    let ids: Vec<_> = program.func_ids().collect();
    for fid in ids {
        let found = round_trips(program.func(fid));
        if cfg!(debug_assertions) {
            let mut direct = found.clone();
            let mut solved = solve_query(program.func(fid));
            direct.sort();
            solved.sort();
            assert_eq!(
                direct, solved,
                "bug: the round trips found directly are the query's"
            );
        }
        if found.is_empty() {
            continue;
        }
        let func = program.func_mut(fid);
        let subst: HashMap<ValueId, ValueId> = found.iter().map(|f| (f.4, f.2)).collect();
        func.replace_uses(&subst);
        let removed: HashSet<InstId> = found.iter().map(|f| f.1).collect();
        let layout = func.layout.clone();
        for &b in &layout {
            func.block_mut(b).insts.retain(|i| !removed.contains(i));
        }
        let uses = func.use_counts();
        let dead_to: HashSet<InstId> = found
            .iter()
            .filter(|f| uses.get(&f.3).copied().unwrap_or(0) == 0)
            .map(|f| f.0)
            .collect();
        for &b in &layout {
            func.block_mut(b).insts.retain(|i| !dead_to.contains(i));
        }
        total += found.len();
    }
    let mut stats = PassStats::default();
    stats.add("bit_round_trips_folded", total);
    stats
}

/// A round trip: the `to_bits` and `from_bits` instructions, `x`, the bits and `y`.
type RoundTrip = (InstId, InstId, ValueId, ValueId, ValueId);

/// The round trips of `func`'s laid-out instructions: a `from_bits` whose operand is the result
/// of a `to_bits` of a value of the `from_bits`'s own result type.
fn round_trips(func: &Function) -> Vec<RoundTrip> {
    let mut found = Vec::new();
    for &b in &func.layout {
        for &from in &func.block(b).insts {
            let InstKind::FromBits { arg: bits, .. } = func.inst(from).kind else {
                continue;
            };
            let ValueDef::Result(to, _) = func.value(bits).def else {
                continue;
            };
            let InstKind::ToBits { arg: x } = func.inst(to).kind else {
                continue;
            };
            let y = func.inst(from).results[0];
            if func.value_type(x) == func.value_type(y) {
                found.push((to, from, x, bits, y));
            }
        }
    }
    found
}

/// The solutions of [`bits_round_trip_query`] on `func`, as [`round_trips`] gives them.
fn solve_query(func: &Function) -> Vec<RoundTrip> {
    let query = bits_round_trip_query();
    let var = |name: &str| {
        query
            .vars()
            .into_iter()
            .find(|(_, n)| *n == name)
            .map(|(v, _)| v)
            .expect("bug: bits-round-trip query variable")
    };
    let (to, from, x, bits, y) = (
        var("to_bits"),
        var("from_bits"),
        var("x"),
        var("bits"),
        var("y"),
    );
    let facts = Facts::new(func);
    query
        .solve(&facts)
        .into_iter()
        .map(|s| {
            (
                s.get(to).inst(),
                s.get(from).inst(),
                s.get(x).value(),
                s.get(bits).value(),
                s.get(y).value(),
            )
        })
        .collect()
}
