//! `fold_bit_round_trips`: an optimization driven by the `bits-round-trip` query.
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
//! linear one) that the fold removes. The pass lives here, beside the query, until the
//! optimizer's pass table takes it.

use super::facts::Facts;
use super::patterns::bits_round_trip_query;
use super::solver::Query;
use crate::ir::{Program, ValueId};
use std::collections::HashMap;

/// Folds every `from_bits(to_bits(x))` of `x`'s own type to `x`; returns how many were folded.
pub fn fold_bit_round_trips(program: &mut Program) -> usize {
    let query = bits_round_trip_query();
    let var = |q: &Query, name: &str| {
        q.vars()
            .into_iter()
            .find(|(_, n)| *n == name)
            .map(|(v, _)| v)
            .expect("bug: bits-round-trip query variable")
    };
    let (to, from, x, bits, y) = (
        var(&query, "to_bits"),
        var(&query, "from_bits"),
        var(&query, "x"),
        var(&query, "bits"),
        var(&query, "y"),
    );
    let mut total = 0;
    let ids: Vec<_> = program.func_ids().collect();
    for fid in ids {
        let found: Vec<_> = {
            let facts = Facts::new(program.func(fid));
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
        };
        if found.is_empty() {
            continue;
        }
        let func = program.func_mut(fid);
        let subst: HashMap<ValueId, ValueId> = found.iter().map(|f| (f.4, f.2)).collect();
        func.replace_uses(&subst);
        let removed: Vec<_> = found.iter().map(|f| f.1).collect();
        let layout = func.layout.clone();
        for &b in &layout {
            func.block_mut(b).insts.retain(|i| !removed.contains(i));
        }
        let uses = func.use_counts();
        let dead_to: Vec<_> = found
            .iter()
            .filter(|f| uses.get(&f.3).copied().unwrap_or(0) == 0)
            .map(|f| f.0)
            .collect();
        for &b in &layout {
            func.block_mut(b).insts.retain(|i| !dead_to.contains(i));
        }
        total += found.len();
    }
    total
}
