//! The verifier's batched group check: the group equations a ledger's sigma protocols need
//! ([`super::zk::Ledger::check`] builds them, unweighted, as a [`Deferred`]), and every
//! ledger's of a proof checked as one random linear combination with 128-bit weights, one
//! multi-scalar multiplication ([`all_hold`]).

use super::hyrax::Params;
use crate::field::Fr;
use crate::prove::transcript::Transcript;
use ark_bn254::G1Affine;
use ark_ff::{One, Zero};

/// One group equation `Σ_i s_i·points_i + Σ_k g_k·G_k + h·H = 0`.
pub(super) struct Equation {
    /// `(index into the points, s_i)`.
    pub(super) terms: Vec<(usize, Fr)>,
    /// `g_k`.
    pub(super) gens: Vec<Fr>,
    /// `h`.
    pub(super) h: Fr,
}

/// Group equations over a ledger's points, the generators and `H` that a verifier has still
/// to check.
pub struct Deferred {
    pub(super) points: Vec<G1Affine>,
    pub(super) equations: Vec<Equation>,
    /// How many generators the equations use.
    pub(super) width: usize,
    /// A challenge drawn after every answer: it binds the transcript the equations came from.
    pub(super) seed: Fr,
}

impl Deferred {
    /// Whether the equations hold ([`all_hold`] of this one).
    pub fn holds(&self, params: &Params) -> bool {
        all_hold(params, &[self], Transcript::new(b"zkbc deferred check"))
    }
}

/// Uniform weights below `2^128`, two per SHA-256 of a seed drawn from a transcript.
struct Weights {
    seed: [u8; 32],
    block: u64,
    spare: Option<u128>,
}

impl Weights {
    fn new(t: &mut Transcript) -> Weights {
        Weights {
            seed: crate::prove::transcript::fr_to_bytes_le(&t.challenge(b"check weights")),
            block: 0,
            spare: None,
        }
    }

    fn next(&mut self) -> Fr {
        if let Some(w) = self.spare.take() {
            return Fr::from(w);
        }
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(self.seed);
        h.update(self.block.to_le_bytes());
        self.block += 1;
        let bytes = h.finalize();
        let [lo, hi] =
            [0, 16].map(|at| u128::from_le_bytes(bytes[at..at + 16].try_into().expect("16 bytes")));
        self.spare = Some(hi);
        Fr::from(lo)
    }
}

/// Whether every equation of every check holds, checked as one: their sum, each equation
/// weighted by its own uniform 128-bit weight drawn from `t` after every check's seed is
/// absorbed (each seed binds the transcript its equations were built on). One multi-scalar
/// multiplication over all the checks' points, the generators and `H`. A false equation (its
/// left side a nonzero point `E` of prime order `> 2^128`) makes the sum vanish for at most one
/// of its `2^128` weights, whatever the others are: probability at most `2^−128`. The weights
/// are short so that a point weighed by one equation alone (a mask, a product proof's point)
/// has a 128-bit scalar, half a full one's work in the multi-scalar multiplication.
pub fn all_hold(params: &Params, checks: &[&Deferred], mut t: Transcript) -> bool {
    let seeds: Vec<Fr> = checks.iter().map(|d| d.seed).collect();
    t.append_fields(b"deferred checks", &seeds);
    let mut weights = Weights::new(&mut t);
    let width = checks.iter().map(|d| d.width).max().unwrap_or(0);
    if width > params.len() {
        return false;
    }
    let total: usize = checks.iter().map(|d| d.points.len()).sum();
    let mut bases: Vec<G1Affine> = Vec::with_capacity(total + width + 1);
    let mut scalars: Vec<Fr> = Vec::with_capacity(total + width + 1);
    let mut gen_scalars = vec![Fr::zero(); width];
    let mut h_scalar = Fr::zero();
    for d in checks {
        let offset = scalars.len();
        bases.extend_from_slice(&d.points);
        scalars.resize(offset + d.points.len(), Fr::zero());
        for eq in &d.equations {
            let w = weights.next();
            for (i, s) in &eq.terms {
                scalars[offset + i] += if s.is_one() { w } else { w * s };
            }
            for (acc, g) in gen_scalars.iter_mut().zip(&eq.gens) {
                *acc += w * g;
            }
            h_scalar += w * eq.h;
        }
    }
    bases.extend(&params.gens[..width]);
    scalars.extend(gen_scalars);
    bases.push(params.blind);
    scalars.push(h_scalar);
    super::hyrax::msm(&bases, &scalars).is_zero()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fr(v: u64) -> Fr {
        Fr::from(v)
    }

    #[test]
    fn deferred_checks_hold_together_only_if_each_holds() {
        let params = Params::new(2);
        let (g, h) = (params.gens[0], params.blind);
        // `a·g + b·h − a·G_0 − e·H = 0`, true when `e = b` (`g = G_0`, `h = H`), and the same
        // equation twice over (two equations in one check).
        let eq = |a: u64, b: u64, e: u64, seed: u64| Deferred {
            points: vec![g, h],
            equations: vec![
                Equation {
                    terms: vec![(0, fr(a)), (1, fr(b))],
                    gens: vec![-fr(a)],
                    h: -fr(e),
                },
                Equation {
                    terms: vec![(0, fr(2 * a)), (1, fr(2 * b))],
                    gens: vec![-fr(2 * a), fr(0)],
                    h: -fr(2 * e),
                },
            ],
            width: 2,
            seed: fr(seed),
        };
        let (good, also_good, bad) = (eq(3, 0, 0, 1), eq(5, 7, 7, 2), eq(3, 1, 0, 3));
        assert!(good.holds(&params) && also_good.holds(&params) && !bad.holds(&params));
        let t = || Transcript::new(b"deferred test");
        assert!(all_hold(&params, &[&good, &also_good], t()));
        assert!(!all_hold(&params, &[&good, &bad, &also_good], t()));
        assert!(all_hold(&params, &[], t()));
        // An equation that needs more generators than there are is false.
        let wide = Deferred {
            width: 3,
            ..eq(3, 0, 0, 4)
        };
        assert!(!wide.holds(&params));
    }
}
