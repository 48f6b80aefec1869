//! Commit-and-prove: how the Spartan backend sends every witness-dependent message hidden.
//!
//! Every message the prover would send in the clear — a sumcheck round polynomial (its values
//! at `0..=d`), a claimed evaluation (`Ãz(r)`, `w̃(r)`, a grand product's halves and roots) —
//! is instead a Pedersen commitment `Com(v; b) = Σ_k v_k·G_k + b·H` over the Hyrax generators
//! ([`Params`]), an *item* of a [`Ledger`]. What the verifier would check of the clear values
//! is recorded as relations on the items:
//!
//! - **linear**: `Σ_t ⟨a_t, v_t⟩ + c = 0` ([`Form`]), e.g. `g_k(0) + g_k(1) = g_{k−1}(r)` is
//!   linear in two round items (values at `0..=d`, `g(r)` by Lagrange weights);
//! - **products**: `v_z = v_x·v_y` of three scalar items, e.g. `Ãz·B̃z`, a product layer's
//!   `low·high`.
//!
//! The ledger is proved with sigma protocols whose challenges come from the transcript after
//! every item is absorbed:
//!
//! - one [`MulProof`] per product (Hyrax's proof of product, Wahby et al. 2018, App. A.1:
//!   `Z = x·Y + (b_z − x·b_y)·H`, so knowing openings of `X` and of `Z` over the base `(Y, H)`
//!   with the same `x` proves `z = x·y`);
//! - one [`LinearProof`] for all linear relations at once, combined with powers of a challenge
//!   `ω`: per item a mask `δ_t = Com(d_t; r_t)`, the masked sum `s = Σ_t ⟨a_t, d_t⟩`, a
//!   challenge `c`, and the answers `z_t = c·v_t + d_t`, `ζ_t = c·b_t + r_t`; the verifier
//!   checks `Σ_t ⟨a_t, z_t⟩ = −c·Σ ω^m c_m + s` (the dot-product proof of Hyrax's Fig. 5, many
//!   vectors) and `c·C_t + δ_t = Com(z_t; ζ_t)`.
//!
//! The verifier checks every group equation of a ledger — the products' and the items' — and
//! of every other ledger of the proof as one sum, each equation weighted by its own 128-bit
//! weight drawn after every answer is absorbed ([`Ledger::check`] collects them, [`all_hold`]
//! weighs them): one multi-scalar multiplication.
//!
//! Both are special-sound (two answers to two challenges give openings that satisfy the
//! relation; binding of Pedersen commitments makes them the committed values) and special
//! honest-verifier zero knowledge (for any challenge, uniform answers and the first messages
//! solved from them have the real distribution), so a simulator that commits to zeros and
//! simulates every sigma protocol produces proofs distributed as real ones (the parent
//! module's "Zero knowledge").
//!
//! The prover builds the ledger twice over: [`Recorder`] commits messages as its sumchecks
//! produce them and records the challenges; then the relations are built by code shared with
//! the verifier ([`Source`]), which the prover runs over its recording ([`Replay`]) and the
//! verifier over the proof's commitments ([`Reader`]).

use super::batch::Equation;
pub use super::batch::{all_hold, Deferred};
use super::hyrax::Params;
use crate::field::Fr;
use crate::prove::transcript::Transcript;
use ark_bn254::{G1Affine, G1Projective};
use ark_ec::CurveGroup;
use ark_ff::{Field, One, Zero};
use ark_serialize::CanonicalSerialize;
use ark_std::rand::Rng;
use ark_std::UniformRand;
use std::collections::VecDeque;

/// An item's index in its ledger.
pub type ItemId = usize;

/// `Σ_t ⟨weights_t, item_t⟩ + constant`.
#[derive(Clone, Debug, Default)]
pub struct Form {
    terms: Vec<(ItemId, Vec<Fr>)>,
    constant: Fr,
}

impl Form {
    /// The constant `c`.
    pub fn constant(c: Fr) -> Form {
        Form {
            terms: Vec::new(),
            constant: c,
        }
    }

    /// A scalar item's value.
    pub fn item(id: ItemId) -> Form {
        Form::vector(id, vec![Fr::one()])
    }

    /// `⟨weights, item⟩`.
    pub fn vector(id: ItemId, weights: Vec<Fr>) -> Form {
        Form {
            terms: vec![(id, weights)],
            constant: Fr::zero(),
        }
    }

    /// `s·self`.
    pub fn scaled(mut self, s: Fr) -> Form {
        for (_, w) in &mut self.terms {
            w.iter_mut().for_each(|v| *v *= s);
        }
        self.constant *= s;
        self
    }

    /// `self + other`.
    pub fn plus(mut self, other: Form) -> Form {
        self.terms.extend(other.terms);
        self.constant += other.constant;
        self
    }

    /// `self − other`.
    pub fn minus(self, other: Form) -> Form {
        self.plus(other.scaled(-Fr::one()))
    }
}

/// A committed vector: the verifier's point (or the weights of the table's rows that make it),
/// the prover's opening.
struct Item {
    len: usize,
    point: Option<G1Projective>,
    rows: Option<Vec<Fr>>,
    opening: Option<(Vec<Fr>, Fr)>,
}

/// Committed items and the relations they must satisfy.
#[derive(Default)]
pub struct Ledger {
    items: Vec<Item>,
    relations: Vec<Form>,
    products: Vec<[ItemId; 3]>,
    /// The committed table's row commitments, which row items ([`Ledger::receive_rows`])
    /// combine (the verifier's).
    table_rows: Vec<G1Affine>,
}

/// A proof that `z = x·y` for three committed scalars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulProof {
    /// `α = b1·G + b2·H`, `β = b3·G + b4·H`, `δ = b1·Y + b5·H`.
    pub points: [G1Affine; 3],
    /// `z1..z5`.
    pub answers: [Fr; 5],
}

/// The proof of every linear relation of a ledger.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LinearProof {
    /// `δ_t`, one per item.
    pub masks: Vec<G1Affine>,
    /// `s`.
    pub masked_sum: Fr,
    /// `z_t`, one per item.
    pub answers: Vec<Vec<Fr>>,
    /// `ζ_t`, one per item.
    pub blinds: Vec<Fr>,
}

/// `v·G_0 + …` for vectors; `H` the blinding generator.
fn com(params: &Params, v: &[Fr], b: Fr) -> G1Projective {
    params.commit(v, b)
}

fn dot(a: &[Fr], b: &[Fr]) -> Fr {
    a.iter().zip(b).map(|(x, y)| *x * y).sum()
}

/// Absorbs points under a label (compressed encodings).
pub fn absorb_points(t: &mut Transcript, label: &[u8], points: &[G1Affine]) {
    let mut bytes = Vec::with_capacity(32 * points.len());
    for p in points {
        p.serialize_compressed(&mut bytes)
            .expect("bug: serializing into a Vec cannot fail");
    }
    t.append_bytes(label, &bytes);
}

impl Ledger {
    /// Commits `values` (the prover's); gives the item and its point.
    pub fn commit(
        &mut self,
        params: &Params,
        values: Vec<Fr>,
        rng: &mut impl Rng,
    ) -> (ItemId, G1Projective) {
        let b = Fr::rand(rng);
        let point = com(params, &values, b);
        self.items.push(Item {
            len: values.len(),
            point: None,
            rows: None,
            opening: Some((values, b)),
        });
        (self.items.len() - 1, point)
    }

    /// An item whose point the verifier has (read from a proof or computed).
    pub fn receive(&mut self, point: G1Projective, len: usize) -> ItemId {
        self.items.push(Item {
            len,
            point: Some(point),
            rows: None,
            opening: None,
        });
        self.items.len() - 1
    }

    /// An item of `len` values whose point is `Σ_i left[i]·C_i` over the table's row
    /// commitments (the verifier's): not computed, but folded into [`Ledger::verify`]'s one
    /// multi-scalar multiplication.
    pub fn receive_rows(&mut self, left: Vec<Fr>, len: usize) -> ItemId {
        self.items.push(Item {
            len,
            point: None,
            rows: Some(left),
            opening: None,
        });
        self.items.len() - 1
    }

    /// An item whose opening the prover has (its point is never needed by the prover).
    pub fn known(&mut self, values: Vec<Fr>, blind: Fr) -> ItemId {
        self.items.push(Item {
            len: values.len(),
            point: None,
            rows: None,
            opening: Some((values, blind)),
        });
        self.items.len() - 1
    }

    /// A scalar item's opening (the prover's).
    pub fn opening(&self, id: ItemId) -> Option<(Fr, Fr)> {
        self.items[id].opening.as_ref().map(|(v, b)| (v[0], *b))
    }

    /// A verifier's item's point (`None` for a row item).
    pub fn point(&self, id: ItemId) -> Option<G1Projective> {
        self.items[id].point
    }

    /// Each item's length and the count of product relations: what the proof of this ledger's
    /// relations holds ([`Ledger::prove`]: a mask, an answer of the item's length and a blind
    /// per item, one product proof per product), for [`super::size`].
    pub fn shape(&self) -> (Vec<usize>, usize) {
        (
            self.items.iter().map(|i| i.len).collect(),
            self.products.len(),
        )
    }

    /// Requires `form = 0`.
    pub fn require_zero(&mut self, form: Form) {
        self.relations.push(form);
    }

    /// Requires `z = x·y` of three scalar items.
    pub fn require_product(&mut self, x: ItemId, y: ItemId, z: ItemId) {
        self.products.push([x, y, z]);
    }

    /// The linear relations combined with powers of `ω`: per item its weights, and the
    /// right-hand side `−Σ ω^m c_m`.
    fn combined(&self, omega: Fr) -> (Vec<Vec<Fr>>, Fr) {
        let mut weights: Vec<Vec<Fr>> =
            self.items.iter().map(|i| vec![Fr::zero(); i.len]).collect();
        let mut rhs = Fr::zero();
        let mut p = Fr::one();
        for rel in &self.relations {
            for (id, w) in &rel.terms {
                for (acc, v) in weights[*id].iter_mut().zip(w) {
                    *acc += p * v;
                }
            }
            rhs -= p * rel.constant;
            p *= omega;
        }
        (weights, rhs)
    }

    /// Proves the ledger (the prover's: every item opened) on `t`.
    pub fn prove(
        &self,
        params: &Params,
        t: &mut Transcript,
        rng: &mut impl Rng,
    ) -> (Vec<MulProof>, LinearProof) {
        let open = |id: ItemId| {
            self.opening(id)
                .expect("bug: the prover's ledger holds an unopened item")
        };
        let muls = self
            .products
            .iter()
            .map(|&[x, y, z]| {
                let ((x, rx), (y, ry), (_, rz)) = (open(x), open(y), open(z));
                let b: [Fr; 5] = std::array::from_fn(|_| Fr::rand(rng));
                // Fixed-base: `x·G_0 + b·H` is `Com([x]; b)`.
                let alpha = com(params, &[b[0]], b[1]);
                let beta = com(params, &[b[2]], b[3]);
                let delta = com(params, &[b[0] * y], b[0] * ry + b[4]);
                let points: [G1Affine; 3] = G1Projective::normalize_batch(&[alpha, beta, delta])
                    .try_into()
                    .expect("three points");
                absorb_points(t, b"product proof", &points);
                let c = t.challenge(b"product challenge");
                MulProof {
                    points,
                    answers: [
                        b[0] + c * x,
                        b[1] + c * rx,
                        b[2] + c * y,
                        b[3] + c * ry,
                        b[4] + c * (rz - x * ry),
                    ],
                }
            })
            .collect();
        let omega = t.challenge(b"omega");
        let (weights, _) = self.combined(omega);
        let masks: Vec<(Vec<Fr>, Fr)> = self
            .items
            .iter()
            .map(|i| ((0..i.len).map(|_| Fr::rand(rng)).collect(), Fr::rand(rng)))
            .collect();
        let points: Vec<G1Projective> = masks.iter().map(|(d, r)| com(params, d, *r)).collect();
        let mask_points = G1Projective::normalize_batch(&points);
        let masked_sum: Fr = masks
            .iter()
            .zip(&weights)
            .map(|((d, _), a)| dot(d, a))
            .sum();
        absorb_points(t, b"linear masks", &mask_points);
        t.append_fields(b"masked sum", &[masked_sum]);
        let c = t.challenge(b"linear challenge");
        let (answers, blinds) = self
            .items
            .iter()
            .zip(&masks)
            .map(|(item, (d, r))| {
                let (v, b) = item
                    .opening
                    .as_ref()
                    .expect("bug: the prover's ledger holds an unopened item");
                let z = v.iter().zip(d).map(|(v, d)| c * v + d).collect();
                (z, c * b + r)
            })
            .unzip();
        let linear = LinearProof {
            masks: mask_points,
            masked_sum,
            answers,
            blinds,
        };
        (muls, linear)
    }

    /// Checks a proof of the ledger (the verifier's: every item has its point or is a row item)
    /// on `t`.
    ///
    /// Every group equation the sigma protocols need — per product proof three, `α + c·X =
    /// Com(z_1; z_2)`, `β + c·Y = Com(z_3; z_4)`, `δ + c·Z = z_1·Y + z_5·H`, and per item
    /// `c·C_t + δ_t = Com(z_t; ζ_t)` — is checked at once: their sum, each weighted by a
    /// 128-bit weight drawn after everything the prover sent, must be the identity, one
    /// multi-scalar multiplication over the items' points, the row commitments their row items
    /// combine, the sigma protocols' first messages, the generators and `H` (a false equation
    /// survives with probability at most `2^−128`; [`all_hold`]).
    /// The product challenges are drawn in the order the prover drew them, so the proof is the
    /// one a check per equation reads.
    pub fn verify(
        &self,
        params: &Params,
        t: &mut Transcript,
        muls: &[MulProof],
        linear: &LinearProof,
    ) -> bool {
        self.check(params, t, muls, linear)
            .is_some_and(|d| d.holds(params))
    }

    /// [`Ledger::verify`] but for its multi-scalar multiplication, which it gives back to be
    /// checked with others ([`all_hold`]); `None` when a check of field elements fails.
    pub fn check(
        &self,
        params: &Params,
        t: &mut Transcript,
        muls: &[MulProof],
        linear: &LinearProof,
    ) -> Option<Deferred> {
        let n = self.items.len();
        if muls.len() != self.products.len()
            || linear.masks.len() != n
            || linear.answers.len() != n
            || linear.blinds.len() != n
            || self.items.iter().zip(&linear.answers).any(|(i, z)| {
                z.len() != i.len
                    || i.len > params.len()
                    || match (&i.point, &i.rows) {
                        (Some(_), None) => false,
                        (None, Some(left)) => left.len() > self.table_rows.len(),
                        _ => true,
                    }
            })
        {
            return None;
        }
        let mut product_challenges = Vec::with_capacity(muls.len());
        for (&[x, y, z], proof) in self.products.iter().zip(muls) {
            if [x, y, z].iter().any(|&id| self.items[id].len != 1) {
                return None;
            }
            absorb_points(t, b"product proof", &proof.points);
            product_challenges.push(t.challenge(b"product challenge"));
        }
        let omega = t.challenge(b"omega");
        let (weights, rhs) = self.combined(omega);
        absorb_points(t, b"linear masks", &linear.masks);
        t.append_fields(b"masked sum", &[linear.masked_sum]);
        let c = t.challenge(b"linear challenge");
        let sum: Fr = linear
            .answers
            .iter()
            .zip(&weights)
            .map(|(z, a)| dot(z, a))
            .sum();
        if sum != c * rhs + linear.masked_sum {
            return None;
        }
        // `ρ` must be drawn after every answer is fixed: drawn before them, a prover could
        // choose answers whose errors cancel in the combination (two items' answers changed by
        // `Δ` and `−ρ·Δ` keep `Σ_t ρ^t·Com(z_t; ζ_t)` and fix any linear relation). The answers
        // enter only the verifier's transcript, after the last challenge the prover draws.
        for (answers, blind) in linear.answers.iter().zip(&linear.blinds) {
            t.append_fields(b"linear answers", answers);
            t.append_fields(b"linear blind", &[*blind]);
        }
        for proof in muls {
            t.append_fields(b"product answers", &proof.answers);
        }
        let seed = t.challenge(b"batch check");
        // The equations, unweighted: [`all_hold`] weighs them with 128-bit weights drawn after
        // every equation of the proof is fixed. Points: the masks, the product proofs' points,
        // the items' points, the table's rows.
        let width = self.items.iter().map(|i| i.len).max().unwrap_or(0);
        let mut points: Vec<G1Affine> = Vec::with_capacity(n + 3 * muls.len());
        points.extend(&linear.masks);
        for proof in muls {
            points.extend(proof.points);
        }
        let mut item_at = vec![usize::MAX; n];
        let mut projective = Vec::new();
        for (k, item) in self.items.iter().enumerate() {
            if let Some(p) = item.point {
                item_at[k] = points.len() + projective.len();
                projective.push(p);
            }
        }
        points.extend(G1Projective::normalize_batch(&projective));
        let rows_at = points.len();
        points.extend(&self.table_rows);
        // `s·item`: its point's, or its row items' scalars.
        let item_term = |terms: &mut Vec<(usize, Fr)>, k: ItemId, s: Fr| match &self.items[k].rows {
            Some(left) => terms.extend(left.iter().enumerate().map(|(i, l)| (rows_at + i, s * l))),
            None => terms.push((item_at[k], s)),
        };
        let mut equations = Vec::with_capacity(n + 3 * muls.len());
        // `c·C_t + δ_t − Com(z_t; ζ_t) = 0`.
        for (k, (answers, blind)) in linear.answers.iter().zip(&linear.blinds).enumerate() {
            let mut terms = vec![(k, Fr::one())];
            item_term(&mut terms, k, c);
            equations.push(Equation {
                terms,
                gens: answers.iter().map(|v| -*v).collect(),
                h: -*blind,
            });
        }
        // `α + c·X − Com(z_1; z_2)`, `β + c·Y − Com(z_3; z_4)`, `δ + c·Z − z_1·Y − z_5·H`.
        for (m, ((&[x, y, z], proof), &ci)) in self
            .products
            .iter()
            .zip(muls)
            .zip(&product_challenges)
            .enumerate()
        {
            let at = n + 3 * m;
            let a = proof.answers;
            let mut first = vec![(at, Fr::one())];
            item_term(&mut first, x, ci);
            let mut second = vec![(at + 1, Fr::one())];
            item_term(&mut second, y, ci);
            let mut third = vec![(at + 2, Fr::one())];
            item_term(&mut third, z, ci);
            item_term(&mut third, y, -a[0]);
            equations.push(Equation {
                terms: first,
                gens: vec![-a[0]],
                h: -a[1],
            });
            equations.push(Equation {
                terms: second,
                gens: vec![-a[2]],
                h: -a[3],
            });
            equations.push(Equation {
                terms: third,
                gens: Vec::new(),
                h: -a[4],
            });
        }
        Some(Deferred {
            points,
            equations,
            width,
            seed,
        })
    }
}

/// The weights `L_i(r)` with `g(r) = Σ_i L_i(r)·g(i)` for a polynomial of degree `< nodes`
/// given by its values at `0..nodes`.
pub fn lagrange(nodes: usize, r: Fr) -> Vec<Fr> {
    // `L_i(r) = Π_{j≠i} (r − j) / Π_{j≠i} (i − j)`; the denominators are inverted together
    // (one field inversion, not one per node: the verifier calls this for every sumcheck round).
    let product_but = |i: usize, f: &dyn Fn(usize) -> Fr| -> Fr {
        (0..nodes).filter(|&j| j != i).map(f).product()
    };
    let dens: Vec<Fr> = (0..nodes)
        .map(|i| product_but(i, &|j| Fr::from(i as u64) - Fr::from(j as u64)))
        .collect();
    let Some(all) = dens.iter().product::<Fr>().inverse() else {
        unreachable!("distinct nodes")
    };
    (0..nodes)
        .map(|i| {
            let num = product_but(i, &|j| r - Fr::from(j as u64));
            num * all * product_but(i, &|k| dens[k])
        })
        .collect()
}

/// The prover's side of a committed protocol: commits messages as they come, absorbs them,
/// draws challenges, and remembers both for [`Replay`].
pub struct Recorder<'a, R: Rng> {
    params: &'a Params,
    rng: &'a mut R,
    /// The transcript.
    pub t: Transcript,
    /// The ledger the messages go to.
    pub ledger: Ledger,
    /// Every commitment, in the order sent: what the proof carries.
    pub sent: Vec<G1Affine>,
    ids: Vec<ItemId>,
    challenges: Vec<Fr>,
}

/// What a sumcheck prover sends through: round polynomials, claims, challenges.
pub trait Channel {
    /// Sends one vector (a round polynomial's values) as one item.
    fn send(&mut self, label: &'static [u8], values: &[Fr]);
    /// Sends each value as its own scalar item.
    fn send_each(&mut self, label: &'static [u8], values: &[Fr]);
    /// Draws a challenge.
    fn challenge(&mut self, label: &'static [u8]) -> Fr;
}

impl<'a, R: Rng> Recorder<'a, R> {
    /// A recorder on transcript `t`.
    pub fn new(params: &'a Params, rng: &'a mut R, t: Transcript) -> Self {
        Recorder {
            params,
            rng,
            t,
            ledger: Ledger::default(),
            sent: Vec::new(),
            ids: Vec::new(),
            challenges: Vec::new(),
        }
    }

    fn commit_all(&mut self, label: &'static [u8], vectors: Vec<Vec<Fr>>) {
        let points: Vec<G1Projective> = vectors
            .into_iter()
            .map(|v| {
                let (id, p) = self.ledger.commit(self.params, v, self.rng);
                self.ids.push(id);
                p
            })
            .collect();
        let affine = G1Projective::normalize_batch(&points);
        absorb_points(&mut self.t, label, &affine);
        self.sent.extend(affine);
    }

    /// The recording to replay, and the transcript and commitments.
    pub fn finish(self) -> (Replay<'static>, Transcript, Vec<G1Affine>) {
        let replay = Replay {
            ledger: self.ledger,
            ids: self.ids.into(),
            challenges: self.challenges.into(),
            rows: None,
        };
        (replay, self.t, self.sent)
    }
}

impl<R: Rng> Channel for Recorder<'_, R> {
    fn send(&mut self, label: &'static [u8], values: &[Fr]) {
        self.commit_all(label, vec![values.to_vec()]);
    }

    fn send_each(&mut self, label: &'static [u8], values: &[Fr]) {
        self.commit_all(label, values.iter().map(|v| vec![*v]).collect());
    }

    fn challenge(&mut self, label: &'static [u8]) -> Fr {
        let c = self.t.challenge(label);
        self.challenges.push(c);
        c
    }
}

/// Where the relation-building code gets items and challenges: the prover's recording or the
/// verifier's proof.
pub trait Source {
    /// The ledger being built.
    fn ledger(&mut self) -> &mut Ledger;
    /// The next `n` committed messages of `len` values each.
    fn items(&mut self, label: &'static [u8], n: usize, len: usize) -> Result<Vec<ItemId>, String>;
    /// The next challenge.
    fn challenge(&mut self, label: &'static [u8]) -> Fr;
    /// The item `Σ_i left[i]·row_i` of the committed table's rows.
    fn rows(&mut self, left: &[Fr]) -> ItemId;
}

/// A committed table as the prover holds it: its entries, columns and row blinds.
pub struct TableOpening<'a> {
    /// The entries, row after row.
    pub table: &'a [Fr],
    /// Columns per row.
    pub cols: usize,
    /// Each row's blind.
    pub blinds: &'a [Fr],
}

/// The prover's [`Source`]: its recording, in order.
pub struct Replay<'a> {
    /// The ledger, with every recorded item.
    pub ledger: Ledger,
    ids: VecDeque<ItemId>,
    challenges: VecDeque<Fr>,
    /// The committed table, for [`Source::rows`].
    pub rows: Option<TableOpening<'a>>,
}

impl Replay<'_> {
    /// Whether every recorded item and challenge was used.
    pub fn is_done(&self) -> bool {
        self.ids.is_empty() && self.challenges.is_empty()
    }
}

impl Source for Replay<'_> {
    fn ledger(&mut self) -> &mut Ledger {
        &mut self.ledger
    }

    fn items(
        &mut self,
        label: &'static [u8],
        n: usize,
        _len: usize,
    ) -> Result<Vec<ItemId>, String> {
        (0..n)
            .map(|_| {
                self.ids.pop_front().ok_or_else(|| {
                    format!(
                        "bug: the prover sent fewer messages than its relations read ({})",
                        String::from_utf8_lossy(label)
                    )
                })
            })
            .collect()
    }

    fn challenge(&mut self, _label: &'static [u8]) -> Fr {
        self.challenges
            .pop_front()
            .expect("bug: the prover drew fewer challenges than its relations read")
    }

    fn rows(&mut self, left: &[Fr]) -> ItemId {
        let t = self
            .rows
            .as_ref()
            .expect("bug: a row item of a ledger without a table");
        let u = super::hyrax::combine(t.table, t.cols, left);
        let b = dot(left, t.blinds);
        self.ledger.known(u, b)
    }
}

/// The verifier's [`Source`]: a proof's commitments, absorbed in order.
pub struct Reader<'a> {
    /// The ledger being built.
    pub ledger: Ledger,
    /// The transcript.
    pub t: Transcript,
    points: &'a [G1Affine],
    cols: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `points` on `t`; `rows` the table's row commitments of `cols` columns.
    pub fn new(t: Transcript, points: &'a [G1Affine], rows: &'a [G1Affine], cols: usize) -> Self {
        Reader {
            ledger: Ledger {
                table_rows: rows.to_vec(),
                ..Ledger::default()
            },
            t,
            points,
            cols,
        }
    }

    /// Whether every commitment was read.
    pub fn is_done(&self) -> bool {
        self.points.is_empty()
    }
}

impl Source for Reader<'_> {
    fn ledger(&mut self) -> &mut Ledger {
        &mut self.ledger
    }

    fn items(&mut self, label: &'static [u8], n: usize, len: usize) -> Result<Vec<ItemId>, String> {
        if self.points.len() < n {
            return Err(format!(
                "the proof has too few commitments ({})",
                String::from_utf8_lossy(label)
            ));
        }
        let (now, rest) = self.points.split_at(n);
        self.points = rest;
        absorb_points(&mut self.t, label, now);
        Ok(now
            .iter()
            .map(|p| self.ledger.receive((*p).into(), len))
            .collect())
    }

    fn challenge(&mut self, label: &'static [u8]) -> Fr {
        self.t.challenge(label)
    }

    fn rows(&mut self, left: &[Fr]) -> ItemId {
        self.ledger.receive_rows(left.to_vec(), self.cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    fn fr(v: u64) -> Fr {
        Fr::from(v)
    }

    /// A ledger of `g = (3, 5, 9)` (values at 0, 1, 2), `x = 4`, `y = 6`, `x·y`, with the
    /// relations `g(0) + g(1) = 8` and `g(r) = ...`, proved and verified; then a wrong product
    /// and a wrong linear claim fail.
    fn run(product: u64, sum: u64) -> bool {
        let params = Params::new(4);
        let mut rng = StdRng::seed_from_u64(9);
        let mut rec = Recorder::new(&params, &mut rng, Transcript::new(b"zk test"));
        rec.send(b"g", &[fr(3), fr(5), fr(9)]);
        rec.send_each(b"xy", &[fr(4), fr(6), fr(product)]);
        let r = rec.challenge(b"r");
        let (mut replay, mut t, sent) = rec.finish();
        let script = |src: &mut dyn Source| {
            let g = src.items(b"g", 1, 3).unwrap()[0];
            let xy = src.items(b"xy", 3, 1).unwrap();
            let r = src.challenge(b"r");
            let l = src.ledger();
            l.require_zero(
                Form::vector(g, vec![fr(1), fr(1), fr(0)]).minus(Form::constant(fr(sum))),
            );
            // g(t) = 3 + t + t², so g(r) − x·(r + ...) checks a vector against scalars.
            let g_r = fr(3) + r + r * r;
            l.require_zero(Form::vector(g, lagrange(3, r)).minus(Form::constant(g_r)));
            l.require_product(xy[0], xy[1], xy[2]);
        };
        script(&mut replay);
        assert!(replay.is_done());
        let _ = r;
        let (muls, linear) = replay.ledger.prove(&params, &mut t, &mut rng);
        let mut reader = Reader::new(Transcript::new(b"zk test"), &sent, &[], 0);
        script(&mut reader);
        assert!(reader.is_done());
        let mut t = reader.t.clone();
        reader.ledger.verify(&params, &mut t, &muls, &linear)
    }

    #[test]
    fn committed_relations_verify_and_a_wrong_product_or_sum_does_not() {
        assert!(run(24, 8));
        assert!(!run(25, 8), "4·6 is not 25");
        assert!(!run(24, 9), "g(0) + g(1) is not 9");
    }

    /// The statement the tampering tests prove: `x · y = z` and `x = 4`.
    fn script_x_is_four(src: &mut dyn Source) {
        let xy = src.items(b"xy", 3, 1).unwrap();
        src.ledger().require_product(xy[0], xy[1], xy[2]);
        src.ledger()
            .require_zero(Form::item(xy[0]).minus(Form::constant(fr(4))));
    }

    /// A prover's proof of [`script_x_is_four`] with `(x, y, z) = xyz` (the product and linear
    /// proofs, and the points it sent), on a transcript labelled `label`.
    fn prove_x_is_four(
        params: &Params,
        label: &'static [u8],
        seed: u64,
        xyz: [u64; 3],
    ) -> (Vec<MulProof>, LinearProof, Vec<G1Affine>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut rec = Recorder::new(params, &mut rng, Transcript::new(label));
        rec.send_each(b"xy", &xyz.map(fr));
        let (mut replay, mut t, sent) = rec.finish();
        script_x_is_four(&mut replay);
        let (muls, linear) = replay.ledger.prove(params, &mut t, &mut rng);
        (muls, linear, sent)
    }

    /// The proof of `run(24, 8)` with one of its group elements or answers changed by
    /// `tamper` (the relations hold; only the sigma protocols' messages are wrong).
    fn run_tampered(tamper: impl Fn(&mut Vec<MulProof>, &mut LinearProof)) -> bool {
        let params = Params::new(4);
        let (mut muls, mut linear, sent) = prove_x_is_four(&params, b"zk tamper", 11, [4, 6, 24]);
        tamper(&mut muls, &mut linear);
        let mut reader = Reader::new(Transcript::new(b"zk tamper"), &sent, &[], 0);
        script_x_is_four(&mut reader);
        let mut t = reader.t.clone();
        reader.ledger.verify(&params, &mut t, &muls, &linear)
    }

    #[test]
    fn the_batched_group_check_rejects_any_changed_sigma_message() {
        assert!(run_tampered(|_, _| {}));
        let g = Params::new(1).gens[0];
        for k in 0..3 {
            assert!(!run_tampered(
                |m, _| m[0].points[k] = (m[0].points[k] + g).into()
            ));
        }
        for k in 0..5 {
            assert!(!run_tampered(|m, _| m[0].answers[k] += fr(1)));
        }
        for t in 0..3 {
            assert!(!run_tampered(|_, l| l.masks[t] = (l.masks[t] + g).into()));
            assert!(!run_tampered(|_, l| l.blinds[t] += fr(1)));
        }
        // `y` is in no linear relation (weight 0), so a changed answer of it keeps the masked
        // sum right: only the group check sees it.
        assert!(!run_tampered(|_, l| l.answers[1][0] += fr(1)));
    }

    /// A false statement (`x = 5` where a relation says 4) whose answers are chosen after the
    /// batch weight `ρ`: `x`'s answer is fixed to satisfy the relation and the error moved onto
    /// `y`, which no linear relation reads, scaled by `1/ρ` so that it cancels in the weighted
    /// group check. A verifier drawing `ρ` before the answers (as this one did before
    /// 2026-12-06) accepts it; this one absorbs the answers first and rejects it.
    #[test]
    fn answers_cannot_be_chosen_after_the_batch_weight() {
        let params = Params::new(4);
        let label = b"zk forge";
        let (muls, mut linear, sent) = prove_x_is_four(&params, label, 12, [5, 6, 30]);
        let mut reader = Reader::new(Transcript::new(label), &sent, &[], 0);
        script_x_is_four(&mut reader);
        // The challenges as a verifier draws them, `ρ` before the answers.
        let mut v = reader.t.clone();
        for m in &muls {
            absorb_points(&mut v, b"product proof", &m.points);
            v.challenge(b"product challenge");
        }
        v.challenge(b"omega");
        absorb_points(&mut v, b"linear masks", &linear.masks);
        v.append_fields(b"masked sum", &[linear.masked_sum]);
        let c = v.challenge(b"linear challenge");
        let rho = v.challenge(b"batch check");
        linear.answers[0][0] -= c;
        linear.answers[1][0] += c * rho.inverse().unwrap();
        // The forgery satisfies the group check weighted by that `ρ` ...
        let weighted: G1Projective = (0..3)
            .map(|k| {
                let item = reader.ledger.point(k).unwrap();
                let (z, zeta) = (&linear.answers[k], linear.blinds[k]);
                (item * c + linear.masks[k] - params.commit(z, zeta)) * rho.pow([k as u64])
            })
            .sum();
        assert!(weighted.is_zero());
        // ... and is rejected.
        let mut t = reader.t.clone();
        assert!(!reader.ledger.verify(&params, &mut t, &muls, &linear));
    }

    #[test]
    fn lagrange_weights_interpolate() {
        let g = |t: Fr| fr(7) + fr(2) * t + t * t * t;
        let values: Vec<Fr> = (0..4).map(|i| g(fr(i))).collect();
        let r = fr(11);
        assert_eq!(dot(&lagrange(4, r), &values), g(r));
    }
}
