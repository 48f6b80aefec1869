//! Hyrax's multilinear polynomial commitment over BN254's G1 (Wahby et al., S&P 2018, §6),
//! with openings by a masked dot-product proof.
//!
//! # Commitment
//!
//! A table `W` of `2^n` field elements (a block's executions, `W[e·Y + j] = z_e[j]`) is laid out
//! as a matrix of `2^n_r` rows and `2^(n − n_r)` columns, row `i` being `W[i·cols ..
//! (i+1)·cols]`. Each row is committed with a Pedersen vector commitment
//! `C_i = Σ_k row_i[k]·G_k + b_i·H`, `b_i` uniform (the prover's operating-system entropy): the commitment is the list of
//! `C_i`, perfectly hiding, and binding while discrete logarithms among the generators are
//! unknown. The generators ([`Params`]) are hashed to the curve from a fixed label (try and
//! increment), so nobody knows such logarithms and there is no trusted setup.
//!
//! # Opening
//!
//! The verifier asks for `y = Σ_t ⟨L_t ⊗ R_t, W⟩`, a sum of a few tensor-product functionals
//! (an MLE evaluation `W̃(p)` is the one functional `eq(p_row) ⊗ eq(p_col)`). With `u_t = Σ_i
//! L_t[i]·row_i`, the verifier computes `Com(u_t) = Σ_i L_t[i]·C_i` itself and the prover proves
//! knowledge of openings `u_t` with `Σ_t ⟨u_t, R_t⟩ = y` (the dot-product proof of Hyrax's
//! Fig. 5, with `y` public): it sends `δ_t = Com(d_t; r_t)` for uniform masks `d_t` and
//! `s = Σ_t ⟨d_t, R_t⟩`; the challenge is `c`; it answers `z_t = c·u_t + d_t`, `ζ_t = c·b(u_t) +
//! r_t`. The verifier checks `c·Com(u_t) + δ_t = Com(z_t; ζ_t)` and `Σ_t ⟨z_t, R_t⟩ = c·y + s`.
//! Two accepting answers to different `c` give `u_t = (z_t − z'_t)/(c − c')`, an opening of the
//! commitment with the claimed sum (special soundness); `z_t` is uniform whatever `u_t` is, so
//! the opening reveals nothing about the rows but `y` itself. Its size is
//! `T·(cols + 1)` field elements and `T` points: with `rows ≈ cols`, square root of the table.

use crate::field::Fr;
use crate::prove::mle::eq_table;
use ark_bn254::{Fq, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::PrimeField;
use ark_std::rand::Rng;
use ark_std::UniformRand;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

/// The label generators are hashed from.
const LABEL: &[u8] = b"zkbc hyrax BN254 G1 generators v1";

/// The public parameters: `len` generators `G_k` and the blinding generator `H`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// `G_0 .. G_{len−1}`.
    pub gens: Vec<G1Affine>,
    /// The blinding generator.
    pub blind: G1Affine,
}

/// The `index`-th point hashed to G1 (BN254's G1 has cofactor 1: every point on the curve is
/// in the group).
fn hash_to_g1(index: u64) -> G1Affine {
    for counter in 0u64.. {
        let mut wide = [0u8; 64];
        for (half, chunk) in wide.chunks_mut(32).enumerate() {
            let mut h = Sha256::new();
            h.update(LABEL);
            h.update(index.to_le_bytes());
            h.update(counter.to_le_bytes());
            h.update([half as u8]);
            chunk.copy_from_slice(&h.finalize());
        }
        let x = Fq::from_le_bytes_mod_order(&wide);
        if let Some(p) = G1Affine::get_point_from_x_unchecked(x, counter % 2 == 0) {
            if !p.is_zero() {
                return p;
            }
        }
    }
    unreachable!("half of all x are on the curve")
}

impl Params {
    /// `len` generators (a power of two) and `H`, the same for everyone.
    pub fn new(len: usize) -> Params {
        let gens = (0..len as u64).into_par_iter().map(hash_to_g1).collect();
        Params {
            gens,
            blind: hash_to_g1(u64::MAX),
        }
    }

    /// How many columns a committed row may have.
    pub fn len(&self) -> usize {
        self.gens.len()
    }

    /// Whether there are no generators.
    pub fn is_empty(&self) -> bool {
        self.gens.is_empty()
    }

    /// `Σ_k v[k]·G_k + b·H`; `v` no longer than the generators.
    pub fn commit(&self, v: &[Fr], b: Fr) -> G1Projective {
        G1Projective::msm_unchecked(&self.gens[..v.len()], v) + self.blind * b
    }
}

/// How a table of `2^n` entries is cut into rows: `2^row_vars` rows of `2^(n − row_vars)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Variables of the row index (the table's first, most significant).
    pub row_vars: usize,
    /// Variables of the column index.
    pub col_vars: usize,
}

impl Layout {
    /// Rows.
    pub fn rows(&self) -> usize {
        1 << self.row_vars
    }

    /// Columns.
    pub fn cols(&self) -> usize {
        1 << self.col_vars
    }
}

/// The committed rows and the prover's blinds.
pub struct Committed {
    /// `C_i`, one per row.
    pub rows: Vec<G1Affine>,
    /// `b_i`, one per row: the prover's secret.
    pub blinds: Vec<Fr>,
}

/// Commits to `table` (length `rows·cols`) row by row.
pub fn commit(params: &Params, layout: Layout, table: &[Fr], rng: &mut impl Rng) -> Committed {
    let blinds: Vec<Fr> = (0..layout.rows()).map(|_| Fr::rand(rng)).collect();
    let points: Vec<G1Projective> = table
        .par_chunks(layout.cols())
        .zip(&blinds)
        .map(|(row, &b)| params.commit(row, b))
        .collect();
    Committed {
        rows: G1Projective::normalize_batch(&points),
        blinds,
    }
}

/// One term `L ⊗ R` of an opened functional, `L` over rows and `R` over columns.
pub struct Term {
    /// Weights of the rows.
    pub left: Vec<Fr>,
    /// Weights of the columns.
    pub right: Vec<Fr>,
}

impl Term {
    /// `eq(point) ⊗ right`, the point's first `row_vars` coordinates on the rows and the rest
    /// tensored in front of `right` (whose length times `2^(rest)` is the column count).
    pub fn at(point: &[Fr], row_vars: usize, right: &[Fr]) -> Term {
        let (high, low) = point.split_at(row_vars);
        let low = eq_table(low);
        let mut cols = Vec::with_capacity(low.len() * right.len());
        for w in &low {
            cols.extend(right.iter().map(|r| *w * r));
        }
        Term {
            left: eq_table(high),
            right: cols,
        }
    }
}

/// An opening: per term the mask's commitment and the masked combined row with its blind, and
/// the masks' sum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// `δ_t = Com(d_t; r_t)`.
    pub masks: Vec<G1Affine>,
    /// `s = Σ_t ⟨d_t, R_t⟩`.
    pub masked_sum: Fr,
    /// `z_t = c·u_t + d_t`.
    pub rows: Vec<Vec<Fr>>,
    /// `ζ_t = c·b(u_t) + r_t`.
    pub blinds: Vec<Fr>,
}

/// `Σ_i left[i]·rows[i]` over the table's rows.
fn combine(table: &[Fr], cols: usize, left: &[Fr]) -> Vec<Fr> {
    (0..cols)
        .into_par_iter()
        .with_min_len(64)
        .map(|k| {
            left.iter()
                .enumerate()
                .map(|(i, l)| *l * table[i * cols + k])
                .sum()
        })
        .collect()
}

fn dot(a: &[Fr], b: &[Fr]) -> Fr {
    a.iter().zip(b).map(|(x, y)| *x * y).sum()
}

/// Proves `Σ_t ⟨L_t ⊗ R_t, table⟩` for the committed table; `challenge` absorbs the masks and
/// their sum and draws `c`.
pub fn open(
    params: &Params,
    layout: Layout,
    table: &[Fr],
    committed: &Committed,
    terms: &[Term],
    rng: &mut impl Rng,
    challenge: impl FnOnce(&[G1Affine], Fr) -> Fr,
) -> Opening {
    let cols = layout.cols();
    let combined: Vec<(Vec<Fr>, Fr)> = terms
        .iter()
        .map(|t| {
            (
                combine(table, cols, &t.left),
                dot(&t.left, &committed.blinds),
            )
        })
        .collect();
    let masks: Vec<(Vec<Fr>, Fr)> = terms
        .iter()
        .map(|_| ((0..cols).map(|_| Fr::rand(rng)).collect(), Fr::rand(rng)))
        .collect();
    let points: Vec<G1Projective> = masks.iter().map(|(d, r)| params.commit(d, *r)).collect();
    let mask_points = G1Projective::normalize_batch(&points);
    let masked_sum = masks
        .iter()
        .zip(terms)
        .map(|((d, _), t)| dot(d, &t.right))
        .sum();
    let c = challenge(&mask_points, masked_sum);
    let (rows, blinds) = combined
        .iter()
        .zip(&masks)
        .map(|((u, b), (d, r))| {
            let z = u.iter().zip(d).map(|(u, d)| c * u + d).collect();
            (z, c * b + r)
        })
        .unzip();
    Opening {
        masks: mask_points,
        masked_sum,
        rows,
        blinds,
    }
}

/// Checks an opening of `Σ_t ⟨L_t ⊗ R_t, W⟩ = value` against the committed rows.
pub fn verify(
    params: &Params,
    layout: Layout,
    rows: &[G1Affine],
    terms: &[Term],
    value: Fr,
    opening: &Opening,
    challenge: impl FnOnce(&[G1Affine], Fr) -> Fr,
) -> bool {
    let cols = layout.cols();
    if rows.len() != layout.rows()
        || cols > params.len()
        || opening.masks.len() != terms.len()
        || opening.rows.len() != terms.len()
        || opening.blinds.len() != terms.len()
        || opening.rows.iter().any(|z| z.len() != cols)
        || terms
            .iter()
            .any(|t| t.left.len() != rows.len() || t.right.len() != cols)
    {
        return false;
    }
    let c = challenge(&opening.masks, opening.masked_sum);
    let sum: Fr = opening
        .rows
        .iter()
        .zip(terms)
        .map(|(z, t)| dot(z, &t.right))
        .sum();
    if sum != c * value + opening.masked_sum {
        return false;
    }
    terms.par_iter().enumerate().all(|(k, t)| {
        let combined = G1Projective::msm_unchecked(rows, &t.left);
        let lhs = combined * c + opening.masks[k];
        lhs == params.commit(&opening.rows[k], opening.blinds[k])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::mle::evaluate;
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    #[test]
    fn an_evaluation_opens_and_a_wrong_value_does_not() {
        let mut rng = StdRng::seed_from_u64(3);
        let params = Params::new(4);
        let layout = Layout {
            row_vars: 2,
            col_vars: 2,
        };
        let table: Vec<Fr> = (0..16u64).map(|v| Fr::from(v * v + 1)).collect();
        let committed = commit(&params, layout, &table, &mut rng);
        let point: Vec<Fr> = (0..4u64).map(|v| Fr::from(7 * v + 3)).collect();
        let value = evaluate(&table, &point);
        let terms = || vec![Term::at(&point, 2, &[Fr::from(1u64)])];
        let c = |_: &[G1Affine], s: Fr| s + Fr::from(5u64);
        let opening = open(&params, layout, &table, &committed, &terms(), &mut rng, c);
        assert!(verify(
            &params,
            layout,
            &committed.rows,
            &terms(),
            value,
            &opening,
            c
        ));
        let wrong = value + Fr::from(1u64);
        assert!(!verify(
            &params,
            layout,
            &committed.rows,
            &terms(),
            wrong,
            &opening,
            c
        ));
        let mut tampered = opening.clone();
        tampered.rows[0][1] += Fr::from(1u64);
        assert!(!verify(
            &params,
            layout,
            &committed.rows,
            &terms(),
            value,
            &tampered,
            c
        ));
    }
}
