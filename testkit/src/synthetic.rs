//! Synthetic block instances of any size, for benches and tests: deterministic from a seed,
//! satisfiable by construction, with no dependency on the compiler's lowering.
//!
//! A block of `m` constraints has instance variables `x` (input) and `y` (output) and `m − 1`
//! witness variables, `z = [1, x, y, w_0, …, w_{m-2}]`. Constraint `k` defines one new variable
//! `d_k` (`w_k`, or `y` for the last one) in one of two shapes, chosen from the seed:
//!
//! ```text
//!     boolean    d_k · (d_k − 1) = 0                 (d_k a random bit per execution)
//!     product    L1 · L2 = d_k + L3                  (L1, L2, L3 random linear combinations
//!                                                     of 1, x and earlier w, so d_k = L1·L2 − L3)
//! ```
//!
//! Every execution draws a random `x` and computes the rest in order, so it satisfies every
//! constraint, and every variable occurs in some constraint.

use crate::Rng;
use ark_ff::{One, Zero};
use zkbc::field::Fr;
use zkbc::prove::{BlockInstance, SparseMatrix, SparseR1cs, SparseRow};

/// The block described in the module docs: `num_constraints` constraints (at least 1),
/// `num_executions` executions, all determined by `seed`.
pub fn block(
    name: &str,
    num_constraints: usize,
    num_executions: usize,
    seed: u64,
) -> BlockInstance {
    let m = num_constraints.max(1);
    let mut rng = Rng::new(seed);
    let mut r1cs = SparseR1cs {
        num_instance: 2,
        num_witness: m - 1,
        a: SparseMatrix::new(),
        b: SparseMatrix::new(),
        c: SparseMatrix::new(),
    };
    // Variables that may feed constraint k: the constant, x, and w_0..w_{k-1}.
    let defined = |k: usize| -> Vec<usize> { [0, 1].into_iter().chain(3..3 + k).collect() };
    let mut kinds = Vec::with_capacity(m);
    for k in 0..m {
        let target = if k + 1 < m { 3 + k } else { 2 };
        if rng.below(4) == 0 {
            r1cs.a.push_row([(target, Fr::one())]);
            r1cs.b.push_row([(0, -Fr::one()), (target, Fr::one())]);
            r1cs.c.push_row([]);
            kinds.push(Kind::Boolean { target });
        } else {
            let pool = defined(k);
            let l1 = random_lc(&mut rng, &pool);
            let l2 = random_lc(&mut rng, &pool);
            let l3 = random_lc(&mut rng, &pool);
            let mut c = l3.clone();
            c.push((target, Fr::one()));
            c.sort_by_key(|&(var, _)| var);
            r1cs.a.push_row(l1.iter().copied());
            r1cs.b.push_row(l2.iter().copied());
            r1cs.c.push_row(c);
            kinds.push(Kind::Product { target, l1, l2, l3 });
        }
    }
    let executions = (0..num_executions)
        .map(|_| {
            let mut z = vec![Fr::zero(); r1cs.num_vars()];
            z[0] = Fr::one();
            z[1] = rng.field();
            for kind in &kinds {
                match kind {
                    Kind::Boolean { target } => z[*target] = Fr::from(rng.below(2)),
                    Kind::Product { target, l1, l2, l3 } => {
                        let dot = |row: &SparseRow| -> Fr {
                            row.iter().map(|&(var, coeff)| coeff * z[var]).sum()
                        };
                        z[*target] = dot(l1) * dot(l2) - dot(l3)
                    }
                }
            }
            z
        })
        .collect();
    BlockInstance {
        name: name.to_string(),
        source: None,
        state: None,
        r1cs,
        executions,
    }
}

enum Kind {
    Boolean {
        target: usize,
    },
    Product {
        target: usize,
        l1: SparseRow,
        l2: SparseRow,
        l3: SparseRow,
    },
}

/// One or two distinct variables of `pool`, sorted, with small or random coefficients.
fn random_lc(rng: &mut Rng, pool: &[usize]) -> SparseRow {
    let terms = 1 + rng.below(2) as usize;
    let mut lc: SparseRow = Vec::with_capacity(terms);
    for _ in 0..terms {
        let var = pool[rng.index(pool.len())];
        if lc.iter().any(|&(v, _)| v == var) {
            continue;
        }
        let coeff = match rng.below(4) {
            0 => -Fr::one(),
            1 => rng.field(),
            _ => Fr::from(1 + rng.below(5)),
        };
        lc.push((var, coeff));
    }
    lc.sort_by_key(|&(var, _)| var);
    lc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_blocks_are_valid_and_satisfied() {
        for (m, q) in [(1, 1), (2, 3), (7, 5), (64, 9)] {
            let block = block("b", m, q, 42 + m as u64);
            assert_eq!(block.validate(), Ok(()));
            assert_eq!(block.r1cs.num_constraints(), m);
            assert_eq!(block.executions.len(), q);
            assert_eq!(block.first_unsatisfied(), None, "m = {m}");
        }
    }

    #[test]
    fn every_variable_occurs_in_some_constraint() {
        let block = block("b", 40, 1, 7);
        let mut seen = vec![false; block.r1cs.num_vars()];
        for (_, rows) in block.r1cs.matrices() {
            for row in rows.rows() {
                for var in row.vars() {
                    seen[var] = true;
                }
            }
        }
        // x (variable 1) may go unused by chance; every defined variable is used.
        assert!(seen.iter().enumerate().all(|(v, &s)| s || v == 1 || v == 0));
    }
}
