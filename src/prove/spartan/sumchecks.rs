//! The sumchecks of the Spartan backend, committed ([`super::zk`]): the inner sumcheck (a
//! product of two multilinear tables, degree 2), the layered grand product (Thaler's product
//! circuit, degree 3 per layer) and the relations every round adds, shared by the prover and
//! the verifier. Tables are MSB-first as in [`crate::prove::mle`].
//!
//! A round sends its polynomial's values at `0..=d` as one committed item and draws `r`;
//! [`rounds`] reads them back and [`chain`] requires `g_1(0) + g_1(1) = claim`,
//! `g_k(0) + g_k(1) = g_{k−1}(r_{k−1})`, and gives `g_n(r_n)` as a linear form: the
//! sumcheck's checks, on committed values.

use super::zk::{lagrange, Channel, Form, ItemId, Ledger, Source};
use crate::field::Fr;
use crate::prove::mle::{eq_eval, eq_table, fold};
use ark_ff::{One, Zero};

/// Proves `Σ_j m(j)·w(j) = claim` (both tables of equal power-of-two length), sending each
/// round's values at 0, 1, 2; gives the point and `w̃` at it.
pub fn prove_inner(mut m: Vec<Fr>, mut w: Vec<Fr>, channel: &mut impl Channel) -> (Vec<Fr>, Fr) {
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
        channel.send(b"inner round", &g);
        let r = channel.challenge(b"inner r");
        fold(&mut m, r);
        fold(&mut w, r);
        point.push(r);
    }
    (point, w[0])
}

/// Reads `n` committed rounds of `nodes` values each with their challenges.
pub fn rounds(
    src: &mut dyn Source,
    n: usize,
    nodes: usize,
    label: &'static [u8],
    challenge: &'static [u8],
) -> Result<(Vec<ItemId>, Vec<Fr>), String> {
    let mut ids = Vec::with_capacity(n);
    let mut point = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(src.items(label, 1, nodes)?[0]);
        point.push(src.challenge(challenge));
    }
    Ok((ids, point))
}

/// Requires each round's `g(0) + g(1)` to be the running claim; gives the last `g(r)`.
pub fn chain(
    ledger: &mut Ledger,
    mut claim: Form,
    ids: &[ItemId],
    point: &[Fr],
    nodes: usize,
) -> Form {
    let mut ends = vec![Fr::zero(); nodes];
    ends[0] = Fr::one();
    ends[1] = Fr::one();
    for (&id, &r) in ids.iter().zip(point) {
        ledger.require_zero(Form::vector(id, ends.clone()).minus(claim));
        claim = Form::vector(id, lagrange(nodes, r));
    }
    claim
}

/// Proves the products of `trees` (equal power-of-two lengths): sends the roots, then per
/// layer its rounds, each tree's halves `V(0, s)`, `V(1, s)` and their products; gives the
/// leaves' point.
pub fn prove_products(trees: &[Vec<Fr>], channel: &mut impl Channel) -> Vec<Fr> {
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
    channel.send_each(b"roots", &roots);
    let mut claims = roots;
    let mut point: Vec<Fr> = Vec::new();
    for k in 0..depth {
        let mu = channel.challenge(b"batch");
        let weights = powers(mu, trees.len());
        let mut eq = eq_table(&point);
        let half = 1 << k;
        let mut lows: Vec<Vec<Fr>> = levels.iter().map(|l| l[k + 1][..half].to_vec()).collect();
        let mut highs: Vec<Vec<Fr>> = levels.iter().map(|l| l[k + 1][half..].to_vec()).collect();
        let mut claim: Fr = claims.iter().zip(&weights).map(|(c, w)| *c * w).sum();
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
            channel.send(b"product round", &g);
            let r = channel.challenge(b"product r");
            claim = crate::prove::mle::interpolate_cubic(&g, r);
            fold(&mut eq, r);
            for v in lows.iter_mut().chain(highs.iter_mut()) {
                fold(v, r);
            }
            s.push(r);
        }
        let low: Vec<Fr> = lows.iter().map(|v| v[0]).collect();
        let high: Vec<Fr> = highs.iter().map(|v| v[0]).collect();
        let both: Vec<Fr> = low.iter().zip(&high).map(|(a, b)| *a * b).collect();
        channel.send_each(b"low", &low);
        channel.send_each(b"high", &high);
        channel.send_each(b"low*high", &both);
        let lambda = channel.challenge(b"lambda");
        claims = low
            .iter()
            .zip(&high)
            .map(|(a, b)| *a + lambda * (*b - a))
            .collect();
        point = std::iter::once(lambda).chain(s).collect();
    }
    point
}

/// What a committed product proof of `trees` trees of depth `depth` ends in: the roots (one
/// scalar item each), the leaves' point and each tree's leaf-MLE claim there.
pub struct Products {
    /// The roots' items.
    pub roots: Vec<ItemId>,
    /// The leaves' point.
    pub point: Vec<Fr>,
    /// Per tree, its leaves' MLE at the point, as a form.
    pub claims: Vec<Form>,
}

/// Reads a committed product proof and records its relations (the checks of
/// `verify_products` before the proof was committed).
pub fn products(src: &mut dyn Source, trees: usize, depth: usize) -> Result<Products, String> {
    let roots = src.items(b"roots", trees, 1)?;
    let mut claims: Vec<Form> = roots.iter().map(|&id| Form::item(id)).collect();
    let mut point: Vec<Fr> = Vec::new();
    for k in 0..depth {
        let mu = src.challenge(b"batch");
        let weights = powers(mu, trees);
        let claim = claims
            .iter()
            .zip(&weights)
            .fold(Form::constant(Fr::zero()), |acc, (c, w)| {
                acc.plus(c.clone().scaled(*w))
            });
        let (ids, s) = rounds(src, k, 4, b"product round", b"product r")?;
        let end = chain(src.ledger(), claim, &ids, &s, 4);
        let low = src.items(b"low", trees, 1)?;
        let high = src.items(b"high", trees, 1)?;
        let both = src.items(b"low*high", trees, 1)?;
        let e = eq_eval(&point, &s);
        let mut halves = Form::constant(Fr::zero());
        for t in 0..trees {
            src.ledger().require_product(low[t], high[t], both[t]);
            halves = halves.plus(Form::item(both[t]).scaled(weights[t] * e));
        }
        src.ledger().require_zero(end.minus(halves));
        let lambda = src.challenge(b"lambda");
        claims = (0..trees)
            .map(|t| {
                Form::item(low[t])
                    .scaled(Fr::one() - lambda)
                    .plus(Form::item(high[t]).scaled(lambda))
            })
            .collect();
        point = std::iter::once(lambda).chain(s).collect();
    }
    Ok(Products {
        roots,
        point,
        claims,
    })
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
    use crate::prove::spartan::hyrax::Params;
    use crate::prove::spartan::zk::{Reader, Recorder};
    use crate::prove::transcript::Transcript;
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    fn fr(v: u64) -> Fr {
        Fr::from(v)
    }

    /// Runs `prove` on a recorder, then `script` on its replay and on a reader of what it sent,
    /// with `end(point)` the value the script's last form must take; gives whether the
    /// verifier accepts.
    fn committed(
        prove: impl FnOnce(&mut Recorder<StdRng>),
        script: impl Fn(&mut dyn Source) -> Result<(), String>,
    ) -> bool {
        let params = Params::new(4);
        let mut rng = StdRng::seed_from_u64(5);
        let mut rng2 = StdRng::seed_from_u64(6);
        let mut rec = Recorder::new(&params, &mut rng, Transcript::new(b"t"));
        prove(&mut rec);
        let (mut replay, mut t, sent) = rec.finish();
        script(&mut replay).unwrap();
        assert!(replay.is_done());
        let (muls, linear) = replay.ledger.prove(&params, &mut t, &mut rng2);
        let mut reader = Reader::new(Transcript::new(b"t"), &sent, &[], 0);
        script(&mut reader).unwrap();
        let mut t = reader.t.clone();
        reader.ledger.verify(&params, &mut t, &muls, &linear)
    }

    #[test]
    fn committed_products_reduce_to_the_leaves_and_a_wrong_leaf_claim_fails() {
        let a: Vec<Fr> = (1..=8).map(fr).collect();
        let b: Vec<Fr> = (11..=18).map(fr).collect();
        for wrong in [false, true] {
            let trees = vec![a.clone(), b.clone()];
            let ok = committed(
                |rec| {
                    prove_products(&trees, rec);
                },
                |src| {
                    let p = products(src, 2, 3)?;
                    for (claim, leaves) in p.claims.into_iter().zip([&a, &b]) {
                        let mut value = evaluate(leaves, &p.point);
                        if wrong {
                            value += fr(1);
                        }
                        src.ledger()
                            .require_zero(claim.minus(Form::constant(value)));
                    }
                    // The root is the product.
                    let root = (1..=8).map(fr).product::<Fr>();
                    src.ledger()
                        .require_zero(Form::item(p.roots[0]).minus(Form::constant(root)));
                    Ok(())
                },
            );
            assert_eq!(ok, !wrong);
        }
    }

    #[test]
    fn the_committed_inner_sumcheck_ends_at_the_tables_evaluations() {
        let m: Vec<Fr> = (0..8).map(|v| fr(v * 3 + 1)).collect();
        let w: Vec<Fr> = (0..8).map(|v| fr(v * v + 2)).collect();
        let claim: Fr = m.iter().zip(&w).map(|(a, b)| *a * b).sum();
        for offset in [0, 1] {
            let ok = committed(
                |rec| {
                    let (point, value) = prove_inner(m.clone(), w.clone(), rec);
                    assert_eq!(value, evaluate(&w, &point));
                    rec.send_each(b"w", &[value]);
                },
                |src| {
                    let (ids, point) = rounds(src, 3, 3, b"inner round", b"inner r")?;
                    let start = Form::constant(claim + fr(offset));
                    let end = chain(src.ledger(), start, &ids, &point, 3);
                    let value = src.items(b"w", 1, 1)?[0];
                    let mr = evaluate(&m, &point);
                    src.ledger()
                        .require_zero(end.minus(Form::item(value).scaled(mr)));
                    Ok(())
                },
            );
            assert_eq!(ok, offset == 0, "offset {offset}");
        }
    }
}
