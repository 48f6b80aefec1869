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
//! L_t[i]·row_i` (`combine`), the verifier computes `Com(u_t) = Σ_i L_t[i]·C_i` itself, and
//! `Σ_t ⟨u_t, R_t⟩ − y = 0` is one more linear relation of the table's committed items, `y`
//! itself committed ([`super::zk`]): the dot-product proof there reveals neither the rows nor
//! `y`. Its size is `T·(cols + 1)` field elements and `T` points: with `rows ≈ cols`, square
//! root of the table.

use crate::field::Fr;
use crate::prove::mle::eq_table;
use ark_bn254::{Fq, G1Affine, G1Projective};
use ark_ec::{AdditiveGroup, AffineRepr, CurveGroup};
use ark_ff::{Field, One, PrimeField, Zero};
use ark_std::rand::Rng;
use ark_std::UniformRand;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::sync::{Arc, OnceLock};

/// The label generators are hashed from.
const LABEL: &[u8] = b"zkbc hyrax BN254 G1 generators v1";

/// The public parameters: `len` generators `G_k` and the blinding generator `H`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// `G_0 .. G_{len−1}`.
    pub gens: Vec<G1Affine>,
    /// The blinding generator.
    pub blind: G1Affine,
    /// Tables of multiples of `G_0 .. G_{FIXED−1}` and `H`, built on first use.
    pub fixed: FixedBases,
}

/// Bits per window of a fixed-base table.
const WINDOW: usize = 8;
/// Windows of a scalar (`Fr` fits in 256 bits).
const WINDOWS: usize = 256 / WINDOW;
/// How many leading generators have tables: a committed sumcheck round has at most 4 values.
pub const FIXED: usize = 4;

/// Precomputed multiples `d·2^(8w)·P` (`d < 256`, `w < 32`) of the fixed generators `G_0 ..
/// G_{FIXED−1}` and `H` (its last table), so that `s·P` is at most 32 mixed additions instead
/// of about 254 doublings and 127 additions. The zero-knowledge prover commits thousands of
/// scalars and short vectors (every round, claim and sigma-protocol mask) and proves products
/// over `G_0, H`: these are fixed-base multiplications. Derived from the generators, so not
/// part of a parameter file and never compared.
#[derive(Clone, Default)]
pub struct FixedBases(Arc<OnceLock<Vec<Vec<G1Affine>>>>);

impl std::fmt::Debug for FixedBases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FixedBases")
    }
}

impl PartialEq for FixedBases {
    fn eq(&self, _: &Self) -> bool {
        true // derived from the generators, which are compared
    }
}

impl Eq for FixedBases {}

/// `d·2^(8w)·base` at index `w·256 + d`.
fn window_table(base: G1Affine) -> Vec<G1Affine> {
    let mut table = Vec::with_capacity(WINDOWS << WINDOW);
    let mut step = G1Projective::from(base);
    for _ in 0..WINDOWS {
        let mut acc = G1Projective::default();
        for _ in 0..1 << WINDOW {
            table.push(acc);
            acc += step;
        }
        step = acc; // 256·step
    }
    G1Projective::normalize_batch(&table)
}

/// The `x` coordinate the `index`-th generator's `counter`-th try hashes to.
fn hashed_x(index: u64, counter: u64) -> Fq {
    let mut wide = [0u8; 64];
    for (half, chunk) in wide.chunks_mut(32).enumerate() {
        let mut h = Sha256::new();
        h.update(LABEL);
        h.update(index.to_le_bytes());
        h.update(counter.to_le_bytes());
        h.update([half as u8]);
        chunk.copy_from_slice(&h.finalize());
    }
    Fq::from_le_bytes_mod_order(&wide)
}

/// The `index`-th point hashed to G1 and the try that found it (BN254's G1 has cofactor 1:
/// every point on the curve is in the group).
fn hash_to_g1_counted(index: u64) -> (G1Affine, u64) {
    for counter in 0u64.. {
        let x = hashed_x(index, counter);
        if let Some(p) = G1Affine::get_point_from_x_unchecked(x, counter % 2 == 0) {
            if !p.is_zero() {
                return (p, counter);
            }
        }
    }
    unreachable!("half of all x are on the curve")
}

/// The `index`-th point hashed to G1.
fn hash_to_g1(index: u64) -> G1Affine {
    hash_to_g1_counted(index).0
}

/// Whether `p` (on the curve: the caller decoded it checked) is the point the `index`-th
/// generator's `counter`-th try hashes to: its `x` is the hash's and its `y` the root the
/// counter's parity picks. Two SHA-256 compressions and a comparison, where deriving the point
/// takes a square root. A key that names a later try than the first one that lands on the
/// curve still names a hashed point, whose discrete logarithm nobody knows.
fn is_hashed(index: u64, counter: u64, p: &G1Affine) -> bool {
    if p.is_zero() || p.x != hashed_x(index, counter) {
        return false;
    }
    let neg = -p.y;
    p.y == neg || (p.y > neg) == counter.is_multiple_of(2)
}

impl Params {
    /// `len` generators (a power of two) and `H`, the same for everyone.
    pub fn new(len: usize) -> Params {
        let gens = (0..len as u64).into_par_iter().map(hash_to_g1).collect();
        Params {
            gens,
            blind: hash_to_g1(u64::MAX),
            fixed: FixedBases::default(),
        }
    }

    /// [`Params::new`] and each generator's try (`G_0 .. G_{len−1}`, then `H`'s): what a
    /// verifier key stores so that reading it checks the generators by hashing alone
    /// ([`Params::from_counted`]).
    pub fn new_counted(len: usize) -> (Params, Vec<u64>) {
        let (gens, mut counters): (Vec<G1Affine>, Vec<u64>) = (0..len as u64)
            .into_par_iter()
            .map(hash_to_g1_counted)
            .unzip();
        let (blind, c) = hash_to_g1_counted(u64::MAX);
        counters.push(c);
        let params = Params {
            gens,
            blind,
            fixed: FixedBases::default(),
        };
        (params, counters)
    }

    /// The parameters of `gens` and `blind` (decoded on the curve) when each is the point its
    /// index hashes to at its counter (`counters`: the generators', then `H`'s), else `None`.
    pub fn from_counted(gens: Vec<G1Affine>, blind: G1Affine, counters: &[u64]) -> Option<Params> {
        if counters.len() != gens.len() + 1 {
            return None;
        }
        let indices = (0..gens.len() as u64).chain([u64::MAX]);
        let all_hashed = gens
            .iter()
            .chain([&blind])
            .zip(indices)
            .zip(counters)
            .all(|((p, i), &c)| is_hashed(i, c, p));
        all_hashed.then(|| Params {
            gens,
            blind,
            fixed: FixedBases::default(),
        })
    }

    /// The fixed-base tables: `G_0 .. G_{FIXED−1}` (those there are), then `H`.
    fn tables(&self) -> &[Vec<G1Affine>] {
        self.fixed.0.get_or_init(|| {
            let bases: Vec<G1Affine> = self
                .gens
                .iter()
                .take(FIXED)
                .chain([&self.blind])
                .copied()
                .collect();
            bases.into_par_iter().map(window_table).collect()
        })
    }

    /// `acc += s·table`, one mixed addition per non-zero byte of `s`.
    fn add_fixed(acc: &mut G1Projective, table: &[G1Affine], s: &Fr) {
        let limbs = s.into_bigint();
        for (i, limb) in limbs.0.iter().enumerate() {
            for k in 0..8 {
                let d = ((limb >> (8 * k)) & 0xff) as usize;
                if d != 0 {
                    *acc += table[((i * 8 + k) << WINDOW) + d];
                }
            }
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
        let tables = self.tables();
        let (h, g) = tables.split_last().expect("H's table");
        let mut acc = if v.len() <= g.len() {
            let mut acc = G1Projective::default();
            for (table, s) in g.iter().zip(v) {
                Self::add_fixed(&mut acc, table, s);
            }
            acc
        } else {
            msm(&self.gens[..v.len()], v)
        };
        Self::add_fixed(&mut acc, h, &b);
        acc
    }
}

/// `Σ_i s_i·P_i` over the shorter of the two slices, by Pippenger's bucket method: windows of
/// `c` bits, each a pass of mixed additions into `2^c − 1` buckets. Not ark-ec's
/// `VariableBaseMSM`: with its `parallel` feature (which ark-groth16 turns on) every call
/// builds a new rayon thread pool (ark-ec 0.6, `msm_bigint_wnaf`), a thread spawned per MSM
/// even on one thread, and calls nested in this module's parallel row commitments waited
/// across pools, stealing work recursively until a worker's stack overflowed
/// (`cobbl_poseidon_6` on two threads). Large MSMs split their windows over the global pool.
pub fn msm(bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
    // Witness values are mostly bits and small integers (or their negatives): scalars of one
    // bit are summed, those of at most 64 bits (after negating the base when `−s` is the
    // smaller) get a 64-bit MSM, those of at most 128 a 128-bit one, the rest a full one.
    let mut ones = G1Projective::zero();
    let (mut small, mut medium, mut big): (Vec<_>, Vec<_>, Vec<_>) =
        (Vec::new(), Vec::new(), Vec::new());
    for (base, s) in bases.iter().zip(scalars) {
        let pos = s.into_bigint().0;
        let neg = (-*s).into_bigint().0;
        let (v, base) = if neg[1..] == [0, 0, 0] && pos[1..] != [0, 0, 0] {
            (neg, -*base)
        } else {
            (pos, *base)
        };
        if v == [0; 4] {
            continue;
        } else if v == [1, 0, 0, 0] {
            ones += base;
        } else if v[1..] == [0, 0, 0] {
            small.push((base, v));
        } else if v[2..] == [0, 0] {
            medium.push((base, v)); // the verifier's 128-bit weights (`zk::all_hold`)
        } else {
            big.push((base, v));
        }
    }
    ones + pippenger(&small, 64) + pippenger(&medium, 128) + pippenger(&big, 256)
}

/// `Σ s_i·P_i` for scalars below `2^bits`, Pippenger's bucket method with signed digits:
/// each scalar is cut into windows of `c` bits, digits in `[−2^(c−1), 2^(c−1))` (a digit past
/// half borrows from the next window), so a window needs `2^(c−1)` buckets, a negative digit
/// adding `−P` (free on an affine point).
fn pippenger(terms: &[(G1Affine, [u64; 4])], bits: usize) -> G1Projective {
    let n = terms.len();
    if n == 0 {
        return G1Projective::zero();
    }
    // About ln(n) + 2 bits, as ark-ec chooses (at most 16: digits fit an i16).
    let c = if n < 32 {
        3
    } else {
        ((usize::BITS - n.leading_zeros()) as usize * 69 / 100 + 2).min(16)
    };
    // One window more than the bits need, for the last borrow.
    let windows = bits.div_ceil(c) + 1;
    let mask = (1u64 << c) - 1;
    let half = 1i64 << (c - 1);
    let mut digits = vec![0i16; n * windows];
    for ((_, s), row) in terms.iter().zip(digits.chunks_mut(windows)) {
        let mut carry = 0i64;
        for (w, d) in row.iter_mut().enumerate() {
            let (limb, shift) = ((w * c) / 64, (w * c) % 64);
            let mut raw = 0u64;
            if limb < 4 {
                raw = s[limb] >> shift;
                if shift + c > 64 && limb + 1 < 4 {
                    raw |= s[limb + 1] << (64 - shift);
                }
                raw &= mask;
            }
            let mut v = raw as i64 + carry;
            carry = 0;
            if v >= half {
                v -= 1 << c;
                carry = 1;
            }
            *d = v as i16;
        }
    }
    let window = |w: usize| {
        if n >= AFFINE_FROM {
            window_sum(terms, &digits, windows, w, half as usize)
        } else {
            window_projective(terms, &digits, windows, w, half as usize)
        }
    };
    let sums: Vec<G1Projective> = if n >= 1 << 12 {
        (0..windows).into_par_iter().map(window).collect()
    } else {
        (0..windows).map(window).collect()
    };
    let mut total = G1Projective::zero();
    for sum in sums.iter().rev() {
        for _ in 0..c {
            total.double_in_place();
        }
        total += sum;
    }
    total
}

/// How many bucket additions share one field inversion.
const BATCH: usize = 256;
/// From how many points a window's buckets are affine ([`window_sum`]). Below, an inversion
/// per batch and the buckets' conflicts cost more than they save: with affine buckets from 32
/// points the prover (whose MSMs are rows of at most 2^10 points) took 1.5x as long. The
/// verifier's one MSM has thousands.
const AFFINE_FROM: usize = 1 << 11;

/// [`window_sum`] with projective buckets, each point one mixed addition.
fn window_projective(
    terms: &[(G1Affine, [u64; 4])],
    digits: &[i16],
    windows: usize,
    w: usize,
    half: usize,
) -> G1Projective {
    let mut buckets = vec![G1Projective::zero(); half];
    for ((base, _), row) in terms.iter().zip(digits.chunks(windows)) {
        let d = row[w];
        if d > 0 {
            buckets[d as usize - 1] += base;
        } else if d < 0 {
            buckets[(-d) as usize - 1] += -*base;
        }
    }
    let (mut running, mut sum) = (G1Projective::zero(), G1Projective::zero());
    for b in buckets.iter().rev() {
        running += b;
        sum += running;
    }
    sum
}

/// Window `w`'s `Σ_d d·(Σ of the points of digit ±d)`. The buckets are affine points, added
/// to in batches: the additions of a batch go to distinct buckets, and their slopes' divisions
/// share one inversion (Montgomery's trick), about 5 multiplications and a squaring an
/// addition against 7 and 4 of a mixed projective one. A point whose bucket already has an
/// addition in the batch is added in a second pass over such points, and one that conflicts
/// again goes to that bucket's projective spill. Equal points double,
/// opposite points cancel, the identity adds nothing: the bases may be anything a proof holds.
fn window_sum(
    terms: &[(G1Affine, [u64; 4])],
    digits: &[i16],
    windows: usize,
    w: usize,
    half: usize,
) -> G1Projective {
    let mut buckets = vec![G1Affine::zero(); half];
    let mut spill = vec![G1Projective::zero(); half];
    let mut busy = vec![false; half];
    let mut pending: Vec<(usize, G1Affine)> = Vec::with_capacity(BATCH);
    let mut denominators: Vec<Fq> = Vec::with_capacity(BATCH);
    let mut queue: Vec<(usize, G1Affine)> = terms
        .iter()
        .zip(digits.chunks(windows))
        .filter_map(|((base, _), row)| match row[w] {
            0 => None,
            _ if base.is_zero() => None,
            d if d > 0 => Some((d as usize - 1, *base)),
            d => Some(((-d) as usize - 1, -*base)),
        })
        .collect();
    // A point whose bucket is busy waits for the second pass; busy again there, it spills.
    // (Retrying until no conflict is left could take `n` passes when every point is the same.)
    let mut later = Vec::new();
    for pass in 0..2 {
        for (b, q) in queue.drain(..) {
            if busy[b] {
                if pass == 0 {
                    later.push((b, q));
                } else {
                    spill[b] += q;
                }
                continue;
            }
            let p = buckets[b];
            if p.is_zero() {
                buckets[b] = q;
                continue;
            }
            let denominator = if p.x != q.x {
                q.x - p.x
            } else if p.y == q.y {
                p.y.double() // a doubling: G1 has odd order, so y ≠ 0
            } else {
                buckets[b] = G1Affine::zero(); // p = −q
                continue;
            };
            busy[b] = true;
            pending.push((b, q));
            denominators.push(denominator);
            if pending.len() == BATCH {
                add_pending(&mut buckets, &mut busy, &mut pending, &mut denominators);
            }
        }
        add_pending(&mut buckets, &mut busy, &mut pending, &mut denominators);
        std::mem::swap(&mut queue, &mut later);
    }
    let (mut running, mut sum) = (G1Projective::zero(), G1Projective::zero());
    for (b, s) in buckets.iter().zip(&spill).rev() {
        running += b;
        running += s;
        sum += running;
    }
    sum
}

/// `buckets[b] += q` for every pending `(b, q)`, `denominators` their slopes' (`q.x − p.x`,
/// or `2·p.y` to double), all nonzero.
fn add_pending(
    buckets: &mut [G1Affine],
    busy: &mut [bool],
    pending: &mut Vec<(usize, G1Affine)>,
    denominators: &mut Vec<Fq>,
) {
    if !invert_all(denominators) {
        // Unreachable on curve points (none has y = 0); kept so that no input can panic.
        for (b, q) in pending.drain(..) {
            buckets[b] = (G1Projective::from(buckets[b]) + q).into_affine();
            busy[b] = false;
        }
        denominators.clear();
        return;
    }
    for ((b, q), inverse) in pending.drain(..).zip(denominators.drain(..)) {
        let p = buckets[b];
        let lambda = if p.x == q.x {
            let xx = p.x.square();
            (xx.double() + xx) * inverse // BN254's G1: y² = x³ + 3, a = 0
        } else {
            (q.y - p.y) * inverse
        };
        let x = lambda.square() - p.x - q.x;
        let y = lambda * (p.x - x) - p.y;
        buckets[b] = G1Affine::new_unchecked(x, y);
        busy[b] = false;
    }
}

/// Replaces every element by its inverse, with one field inversion; false (and `v` unchanged)
/// when one is zero.
fn invert_all(v: &mut [Fq]) -> bool {
    let mut prefix = Vec::with_capacity(v.len());
    let mut acc = Fq::one();
    for x in v.iter() {
        prefix.push(acc);
        acc *= x;
    }
    let Some(mut inverse) = acc.inverse() else {
        return false;
    };
    for (x, before) in v.iter_mut().zip(prefix).rev() {
        let next = inverse * *x;
        *x = inverse * before;
        inverse = next;
    }
    true
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

/// `Σ_i left[i]·rows[i]` over the table's rows.
pub(super) fn combine(table: &[Fr], cols: usize, left: &[Fr]) -> Vec<Fr> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    #[test]
    fn row_commitments_combine_to_the_commitment_of_the_combined_row() {
        let mut rng = StdRng::seed_from_u64(3);
        let params = Params::new(4);
        let layout = Layout {
            row_vars: 2,
            col_vars: 2,
        };
        let table: Vec<Fr> = (0..16u64).map(|v| Fr::from(v * v + 1)).collect();
        let committed = commit(&params, layout, &table, &mut rng);
        let left: Vec<Fr> = (0..4u64).map(|v| Fr::from(7 * v + 3)).collect();
        let row = combine(&table, 4, &left);
        let blind: Fr = left
            .iter()
            .zip(&committed.blinds)
            .map(|(l, b)| *l * b)
            .sum();
        let combined = msm(&committed.rows, &left);
        assert_eq!(combined, params.commit(&row, blind));
        assert_ne!(combined, params.commit(&row, blind + Fr::from(1u64)));
    }
}
