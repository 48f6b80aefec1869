//! The two sumchecks the Spartan backend adds to the outer one: the inner sumcheck (a product
//! of two multilinear tables, degree 2) and the layered grand product (Thaler's product
//! circuit, degree 3 per layer), each with its verifier. Tables are MSB-first as in
//! [`crate::prove::mle`].

use crate::field::Fr;
use crate::prove::mle::{eq_eval, eq_table, fold, interpolate_cubic};
use crate::prove::Transcript;
use ark_ff::{Field, One, Zero};

/// The value at `r` of the polynomial of degree ≤ 2 with values `g` at 0, 1, 2.
pub fn interpolate_quadratic(g: &[Fr; 3], r: Fr) -> Fr {
    let one = Fr::one();
    let two = Fr::from(2u64);
    let inv2 = two.inverse().expect("2 is invertible");
    (g[0] * (r - one) * (r - two) + g[2] * r * (r - one)) * inv2 - g[1] * r * (r - two)
}

/// Proves `Σ_j m(j)·w(j) = claim` (both tables of equal power-of-two length); gives the
/// rounds, the point and `w̃` at it.
pub fn prove_inner(
    mut m: Vec<Fr>,
    mut w: Vec<Fr>,
    transcript: &mut Transcript,
) -> (Vec<[Fr; 3]>, Vec<Fr>, Fr) {
    let mut rounds = Vec::new();
    let mut point = Vec::new();
    while m.len() > 1 {
        let half = m.len() / 2;
        let mut g = [Fr::zero(); 3];
        for i in 0..half {
            let (dm, dw) = (m[i + half] - m[i], w[i + half] - w[i]);
            g[0] += m[i] * w[i];
            g[1] += m[i + half] * w[i + half];
            g[2] += (m[i + half] + dm) * (w[i + half] + dw);
        }
        transcript.append_fields(b"inner round", &g);
        let r = transcript.challenge(b"inner r");
        fold(&mut m, r);
        fold(&mut w, r);
        rounds.push(g);
        point.push(r);
    }
    let value = w[0];
    transcript.append_fields(b"witness evaluation", &[value]);
    (rounds, point, value)
}

/// Checks the inner rounds against `claim`; gives the point and the claim left for
/// `m̃(point)·w̃(point)`, or the first failing round.
pub fn verify_inner(
    rounds: &[[Fr; 3]],
    mut claim: Fr,
    transcript: &mut Transcript,
) -> Result<(Vec<Fr>, Fr), usize> {
    let mut point = Vec::with_capacity(rounds.len());
    for (k, g) in rounds.iter().enumerate() {
        if g[0] + g[1] != claim {
            return Err(k);
        }
        transcript.append_fields(b"inner round", g);
        let r = transcript.challenge(b"inner r");
        claim = interpolate_quadratic(g, r);
        point.push(r);
    }
    Ok((point, claim))
}

/// One layer of the batched product proof: the sumcheck rounds, then each tree's two halves at
/// the point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// Round polynomials at 0, 1, 2, 3.
    pub rounds: Vec<[Fr; 4]>,
    /// Per tree `V(0, s)`.
    pub low: Vec<Fr>,
    /// Per tree `V(1, s)`.
    pub high: Vec<Fr>,
}

/// A batched grand-product proof over trees of `2^depth` leaves each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductProof {
    /// Each tree's product.
    pub roots: Vec<Fr>,
    /// One per layer below the roots, `depth` in all.
    pub layers: Vec<Layer>,
}

/// Proves the products of `trees` (equal power-of-two lengths); gives the proof, the leaves'
/// point and each tree's leaf MLE claimed at it.
pub fn prove_products(
    trees: &[Vec<Fr>],
    transcript: &mut Transcript,
) -> (ProductProof, Vec<Fr>, Vec<Fr>) {
    // levels[t][k]: tree t's layer with 2^k values; the leaves are the last.
    let levels: Vec<Vec<Vec<Fr>>> = trees
        .iter()
        .map(|leaves| {
            let mut out = vec![leaves.clone()];
            while out.last().map_or(0, Vec::len) > 1 {
                let top = out.last().expect("a layer");
                let half = top.len() / 2;
                out.push((0..half).map(|i| top[i] * top[i + half]).collect());
            }
            out.reverse();
            out
        })
        .collect();
    let depth = levels.first().map_or(0, |l| l.len() - 1);
    let roots: Vec<Fr> = levels.iter().map(|l| l[0][0]).collect();
    transcript.append_fields(b"roots", &roots);
    let mut claims = roots.clone();
    let mut point: Vec<Fr> = Vec::new();
    let mut layers = Vec::with_capacity(depth);
    for k in 0..depth {
        let mu = transcript.challenge(b"batch");
        let weights = powers(mu, trees.len());
        let mut eq = eq_table(&point);
        let half = 1 << k;
        let mut lows: Vec<Vec<Fr>> = levels.iter().map(|l| l[k + 1][..half].to_vec()).collect();
        let mut highs: Vec<Vec<Fr>> = levels.iter().map(|l| l[k + 1][half..].to_vec()).collect();
        let mut claim: Fr = claims.iter().zip(&weights).map(|(c, w)| *c * w).sum();
        let mut rounds = Vec::with_capacity(k);
        let mut s = Vec::with_capacity(k);
        while eq.len() > 1 {
            let h = eq.len() / 2;
            let mut g = [Fr::zero(); 4];
            for i in 0..h {
                for (t, gt) in g.iter_mut().enumerate() {
                    let at = |v: &[Fr]| v[i] + Fr::from(t as u64) * (v[i + h] - v[i]);
                    let e = at(&eq);
                    let sum: Fr = lows
                        .iter()
                        .zip(&highs)
                        .zip(&weights)
                        .map(|((lo, hi), w)| *w * at(lo) * at(hi))
                        .sum();
                    *gt += e * sum;
                }
            }
            debug_assert_eq!(g[0] + g[1], claim);
            transcript.append_fields(b"product round", &g);
            let r = transcript.challenge(b"product r");
            claim = interpolate_cubic(&g, r);
            fold(&mut eq, r);
            for v in lows.iter_mut().chain(highs.iter_mut()) {
                fold(v, r);
            }
            rounds.push(g);
            s.push(r);
        }
        let low: Vec<Fr> = lows.iter().map(|v| v[0]).collect();
        let high: Vec<Fr> = highs.iter().map(|v| v[0]).collect();
        transcript.append_fields(b"low", &low);
        transcript.append_fields(b"high", &high);
        let lambda = transcript.challenge(b"lambda");
        claims = low
            .iter()
            .zip(&high)
            .map(|(a, b)| *a + lambda * (*b - a))
            .collect();
        point = std::iter::once(lambda).chain(s).collect();
        layers.push(Layer { rounds, low, high });
    }
    (ProductProof { roots, layers }, point, claims)
}

/// Checks a product proof of `trees` trees of depth `depth`; gives the leaves' point and the
/// claims on each tree's leaf MLE there, or why not.
pub fn verify_products(
    proof: &ProductProof,
    trees: usize,
    depth: usize,
    transcript: &mut Transcript,
) -> Result<(Vec<Fr>, Vec<Fr>), String> {
    if proof.roots.len() != trees || proof.layers.len() != depth {
        return Err("the product proof has the wrong shape".into());
    }
    transcript.append_fields(b"roots", &proof.roots);
    let mut claims = proof.roots.clone();
    let mut point: Vec<Fr> = Vec::new();
    for (k, layer) in proof.layers.iter().enumerate() {
        if layer.rounds.len() != k || layer.low.len() != trees || layer.high.len() != trees {
            return Err(format!("product layer {k} has the wrong shape"));
        }
        let mu = transcript.challenge(b"batch");
        let weights = powers(mu, trees);
        let mut claim: Fr = claims.iter().zip(&weights).map(|(c, w)| *c * w).sum();
        let mut s = Vec::with_capacity(k);
        for (round, g) in layer.rounds.iter().enumerate() {
            if g[0] + g[1] != claim {
                return Err(format!(
                    "product layer {k}, round {round}: not the running claim"
                ));
            }
            transcript.append_fields(b"product round", g);
            let r = transcript.challenge(b"product r");
            claim = interpolate_cubic(g, r);
            s.push(r);
        }
        let products: Fr = layer
            .low
            .iter()
            .zip(&layer.high)
            .zip(&weights)
            .map(|((a, b), w)| *w * a * b)
            .sum();
        if eq_eval(&point, &s) * products != claim {
            return Err(format!(
                "product layer {k}: the halves do not multiply to the claim"
            ));
        }
        transcript.append_fields(b"low", &layer.low);
        transcript.append_fields(b"high", &layer.high);
        let lambda = transcript.challenge(b"lambda");
        claims = layer
            .low
            .iter()
            .zip(&layer.high)
            .map(|(a, b)| *a + lambda * (*b - a))
            .collect();
        point = std::iter::once(lambda).chain(s).collect();
    }
    Ok((point, claims))
}

fn powers(x: Fr, n: usize) -> Vec<Fr> {
    let mut out = Vec::with_capacity(n);
    let mut p = Fr::one();
    for _ in 0..n {
        out.push(p);
        p *= x;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::mle::evaluate;

    fn fr(v: u64) -> Fr {
        Fr::from(v)
    }

    #[test]
    fn products_reduce_to_the_leaves_and_a_changed_root_fails() {
        let a: Vec<Fr> = (1..=8).map(fr).collect();
        let b: Vec<Fr> = (11..=18).map(fr).collect();
        let trees = vec![a.clone(), b.clone()];
        let mut t = Transcript::new(b"test");
        let (proof, point, claims) = prove_products(&trees, &mut t);
        assert_eq!(proof.roots[0], (1..=8).map(fr).product::<Fr>());
        assert_eq!(claims[0], evaluate(&a, &point));
        assert_eq!(claims[1], evaluate(&b, &point));
        let mut t = Transcript::new(b"test");
        let (p2, c2) = verify_products(&proof, 2, 3, &mut t).unwrap();
        assert_eq!((p2, c2), (point, claims));
        let mut bad = proof.clone();
        bad.roots[1] += fr(1);
        assert!(verify_products(&bad, 2, 3, &mut Transcript::new(b"test")).is_err());
    }

    #[test]
    fn the_inner_sumcheck_ends_at_the_tables_evaluations() {
        let m: Vec<Fr> = (0..8).map(|v| fr(v * 3 + 1)).collect();
        let w: Vec<Fr> = (0..8).map(|v| fr(v * v + 2)).collect();
        let claim: Fr = m.iter().zip(&w).map(|(a, b)| *a * b).sum();
        let (rounds, point, value) = prove_inner(m.clone(), w.clone(), &mut Transcript::new(b"x"));
        assert_eq!(value, evaluate(&w, &point));
        let mut t = Transcript::new(b"x");
        let (p, left) = verify_inner(&rounds, claim, &mut t).unwrap();
        assert_eq!(p, point);
        assert_eq!(left, evaluate(&m, &point) * value);
        assert_eq!(
            verify_inner(&rounds, claim + fr(1), &mut Transcript::new(b"x")),
            Err(0)
        );
        assert_eq!(interpolate_quadratic(&[fr(1), fr(4), fr(9)], fr(5)), fr(36));
    }
}
