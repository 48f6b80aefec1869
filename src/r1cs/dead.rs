//! Dead constraints: removal of constraints that define a witness nothing else reads.
//!
//! A constraint `A · B = C` in which a witness variable `w` occurs in `C` only, and in no other
//! constraint of the system, is satisfied by some value of `w` whatever the other variables are
//! (`w`'s coefficient is nonzero, so `C` can be solved for it). Removing the constraint and `w`
//! therefore leaves exactly the same satisfying assignments of every other variable — in
//! particular of the instance variables, so no output becomes less determined. The same holds
//! for a linear constraint (one side constant, `k · A − C = 0` after elimination) in which `w`
//! has a nonzero coefficient. Such constraints are the bits of values the block computes but
//! never reads: the lanes of Keccak's last round a digest drops, the top half of a lane of
//! which Keccak-224 keeps only 32 bits.
//!
//! Removing a constraint lowers the occurrence count of each variable it mentions; a variable
//! left with one occurrence may free the constraint that still mentions it, so the removal runs
//! as a worklist to a fixpoint. Finally the rows are compacted and the surviving witness
//! variables renumbered (instance variables keep their numbers).
//!
//! ```text
//! p = x · y        (x, y inputs)        p is read by r's constraint only
//! (−2x) · y = r − x − y                 r is read by nothing: dead, then p is read by nothing
//! ```
//!
//! Removing a constraint never changes what the lowering computes: the witness of a removed
//! variable is still computed (witness mode re-runs the lowering) and is dropped by `var_map`.

use super::builder::{Coeffs, Packed};
use super::eliminate::{Reduced, GONE};
use super::lc::{Var, ONE};
use crate::field::Fr;
use ark_ff::Zero;

/// Removes dead constraints from a reduced system and renumbers its witness variables; returns
/// how many constraints were removed.
pub(crate) fn remove_dead(red: &mut Reduced) -> usize {
    let n_cons = red.rows.len() / 3;
    let n_vars = 1 + red.n_instance + red.n_witness;
    let first_witness = 1 + red.n_instance as Var;
    let (alive, occ) = {
        let rows = &red.rows;
        let abc = |k: usize| [rows.row(3 * k), rows.row(3 * k + 1), rows.row(3 * k + 2)];
        search(n_vars, n_cons, abc, first_witness, &red.coeffs)
    };
    let n_dead = alive.iter().filter(|a| !**a).count();
    if n_dead == 0 {
        return 0;
    }
    // Renumber: instance variables stay, surviving witnesses keep their order.
    let mut renumber = vec![GONE; n_vars];
    for (v, slot) in renumber.iter_mut().enumerate().take(first_witness as usize) {
        *slot = v as u32;
    }
    let mut next = first_witness;
    for v in first_witness as usize..n_vars {
        if occ[v] > 0 {
            renumber[v] = next;
            next += 1;
        }
    }
    red.n_witness = (next - first_witness) as usize;
    if let Some(origins) = &mut red.origins {
        let mut k = 0;
        origins.retain(|_| {
            k += 1;
            alive[k - 1]
        });
    }
    for slot in red.var_map.iter_mut() {
        if *slot != GONE {
            *slot = renumber[*slot as usize];
        }
    }
    // Compact the live rows in place (a row moves only towards the front, after it was read),
    // renumbering; the order of variables is kept, so rows stay sorted.
    let rows = &mut red.rows;
    let (mut write, mut start, mut kept) = (0usize, 0usize, 0usize);
    for k in 0..rows.ends.len() {
        let end = rows.ends[k] as usize;
        if alive[k / 3] {
            for t in start..end {
                let (v, c) = rows.terms[t];
                rows.terms[write] = (renumber[v as usize], c);
                write += 1;
            }
            rows.ends[kept] = write as u32;
            kept += 1;
        }
        start = end;
    }
    rows.terms.truncate(write);
    rows.ends.truncate(kept);
    n_dead
}

/// The worklist search: which constraints stay, and how many live constraints mention each
/// variable.
///
/// Each variable keeps the number of live constraints that mention it and the sum of their
/// indices (16 bytes a variable, no lists of constraints per variable): when a removal leaves a
/// variable in one live constraint, that constraint is the sum.
fn search<'r>(
    n_vars: usize,
    n_cons: usize,
    abc: impl Fn(usize) -> [&'r [Packed]; 3],
    first_witness: Var,
    coeffs: &Coeffs,
) -> (Vec<bool>, Vec<u32>) {
    let is_witness = |v: Var| v >= first_witness;
    let mut seen = vec![false; n_vars];
    let mut vars: Vec<Var> = Vec::new();
    let mut occ = vec![0u32; n_vars];
    let mut sum = vec![0u64; n_vars];
    for k in 0..n_cons {
        distinct_vars(&abc(k), &mut seen, &mut vars);
        for &v in &vars {
            occ[v as usize] += 1;
            sum[v as usize] += k as u64;
        }
    }
    let mut alive = vec![true; n_cons];
    // Constraints in order, each followed by those its removal may have freed (last in, first
    // out).
    let mut worklist: Vec<u32> = Vec::new();
    for first in 0..n_cons as u32 {
        worklist.push(first);
        while let Some(k) = worklist.pop() {
            let k = k as usize;
            if !alive[k] {
                continue;
            }
            let rows = abc(k);
            distinct_vars(&rows, &mut seen, &mut vars);
            let free = |v: Var| is_witness(v) && occ[v as usize] == 1;
            if !vars.iter().any(|&v| free(v)) || !has_solvable(rows, coeffs, &free) {
                continue;
            }
            alive[k] = false;
            for &v in &vars {
                occ[v as usize] -= 1;
                sum[v as usize] -= k as u64;
                if occ[v as usize] == 1 && is_witness(v) {
                    worklist.push(sum[v as usize] as u32);
                }
            }
        }
    }
    (alive, occ)
}

/// The distinct variables of a constraint's rows but the constant, in order of first
/// occurrence (a variable in A and C counts once), into `out`; `seen` is all `false` before and
/// after.
fn distinct_vars(rows: &[&[Packed]; 3], seen: &mut [bool], out: &mut Vec<Var>) {
    out.clear();
    for row in rows {
        for &(v, _) in *row {
            if v != ONE && !seen[v as usize] {
                seen[v as usize] = true;
                out.push(v);
            }
        }
    }
    for &v in out.iter() {
        seen[v as usize] = false;
    }
}

/// Whether some `free` variable (a witness occurring once in the system) can be solved for in
/// the constraint `[A, B, C]`: it occurs in `C` only, or the constraint is linear (`A` or `B`
/// constant) and its coefficient in `k · other − C` is nonzero.
fn has_solvable(abc: [&[Packed]; 3], coeffs: &Coeffs, free: &impl Fn(Var) -> bool) -> bool {
    let constant = |row: &[Packed]| match row {
        [] => Some(Fr::zero()),
        [(ONE, c)] => Some(coeffs.get(*c)),
        _ => None,
    };
    let coeff = |row: &[Packed], v: Var| {
        row.binary_search_by_key(&v, |t| t.0)
            .map_or_else(|_| Fr::zero(), |i| coeffs.get(row[i].1))
    };
    let [a, b, c] = abc;
    // The linear form `k · other − C` when one side is the constant k.
    let linear = match (constant(a), constant(b)) {
        (Some(k), _) => Some((k, b)),
        (_, Some(k)) => Some((k, a)),
        _ => None,
    };
    a.iter().chain(b).chain(c).any(|t| {
        let v = t.0;
        free(v)
            && match linear {
                Some((k, other)) => !(k * coeff(other, v) - coeff(c, v)).is_zero(),
                None => coeff(a, v).is_zero() && coeff(b, v).is_zero(),
            }
    })
}

#[cfg(test)]
mod tests {
    use super::super::builder::Rows;
    use super::*;

    /// A reduced system from rows over `n_instance` instance and `n_witness` witness variables.
    fn system(n_instance: usize, n_witness: usize, cons: &[[&[(Var, i64)]; 3]]) -> Reduced {
        let mut coeffs = Coeffs::default();
        let mut rows = Rows::default();
        for abc in cons {
            for row in abc {
                let row: Vec<(Var, Fr)> = row
                    .iter()
                    .map(|&(v, c)| {
                        let c = if c < 0 {
                            -Fr::from(c.unsigned_abs())
                        } else {
                            Fr::from(c as u64)
                        };
                        (v, c)
                    })
                    .collect();
                rows.push(&row, &mut coeffs);
            }
        }
        Reduced {
            rows,
            coeffs,
            n_instance,
            n_witness,
            var_map: (0..=(n_instance + n_witness) as u32).collect(),
            n_eliminated: 0,
            n_dead: 0,
            origins: None,
        }
    }

    #[test]
    fn an_unread_product_chain_is_removed_and_witnesses_renumbered() {
        // Instance 1, 2; witness 3 = 1·2, 4 = 3·3 (read by nothing), 5 = 1·1 read by 2 = 5.
        let mut red = system(
            2,
            3,
            &[
                [&[(1, 1)], &[(2, 1)], &[(3, 1)]],
                [&[(3, 1)], &[(3, 1)], &[(4, 1)]],
                [&[(1, 1)], &[(1, 1)], &[(5, 1)]],
                [&[(2, 1), (5, -1)], &[(ONE, 1)], &[]],
            ],
        );
        assert_eq!(remove_dead(&mut red), 2);
        assert_eq!(red.rows.len() / 3, 2);
        assert_eq!(red.n_witness, 1);
        assert_eq!(red.var_map, vec![0, 1, 2, GONE, GONE, 3]);
        assert_eq!(red.rows.row(2), &[(3, 0)]);
    }

    #[test]
    fn constraints_that_restrict_their_variables_stay() {
        // 3 occurs once, in A of the linear `3 · 1 = 2`: solvable, dead. 4 occurs once, in B of
        // the quadratic `1 · 4 = 2` (no solution when 1 = 0 and 2 ≠ 0): stays. 5 is a boolean
        // (`5 · 5 = 5`): stays. 6 occurs in C and in A (`6 · 2 = 6`): stays.
        let mut red = system(
            2,
            4,
            &[
                [&[(3, 1)], &[(ONE, 1)], &[(2, 1)]],
                [&[(1, 1)], &[(4, 1)], &[(2, 1)]],
                [&[(5, 1)], &[(5, 1)], &[(5, 1)]],
                [&[(6, 1)], &[(2, 1)], &[(6, 1)]],
            ],
        );
        assert_eq!(remove_dead(&mut red), 1);
        assert_eq!(red.rows.len() / 3, 3);
        assert_eq!(red.var_map, vec![0, 1, 2, GONE, 3, 4, 5]);
        // A linear constraint in which the variable cancels (`1 · 2 = 1 + 2` is `1 = 0`) stays
        // (rows are sorted by variable).
        let mut red = system(1, 1, &[[&[(ONE, 1)], &[(2, 1)], &[(1, 1), (2, 1)]]]);
        assert_eq!(remove_dead(&mut red), 0);
    }
}
