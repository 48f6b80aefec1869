//! A succinct argument for block-based programs: per block, Spartan's outer and inner
//! sumchecks over all its executions at once (the data-parallel layout of spartan_parallel,
//! CoBBl's back end), a Hyrax commitment to the block's executions ([`hyrax`]), and a grand
//! product proving that the executions chain into one run from main's inputs to its outputs.
//! `zkbc setup | prove --backend spartan | verify-proof` run it (docs/proof.md).
//!
//! # The statement
//!
//! A [`Statement`] is every block of the program (its constraint system and state wires: the
//! verifier compiles the program without inputs to get them), which block is main's entry,
//! which of the entry's input wires are public inputs, and how many outputs main has. The
//! public values are main's outputs, then its public inputs (Groth16's order). The proof
//! carries, per block, `log2 Q_b` (its executions padded to a power of two: the shape of the
//! run is public, the exact count within `Q_b` is not) and the commitments. It proves: there
//! are executions `z_{b,e}` such that every one satisfies its block's R1CS, and the executions
//! form one run — the entry's execution 0 has the public inputs and the constant 1, and the
//! multiset of input states of all executions but that one, plus the final state
//! `(1, 0, outputs)`, equals the multiset of all output states.
//!
//! # The protocol
//!
//! 1. Statement transcript: a label, the statement's digest ([`Statement::digest`]), the public
//!    values, each block's `log2 Q_b`; then every block's row commitments `C_{b,i}` to its table
//!    `W_b[e·Y_b + j] = z_{b,e}[j]` (`Y_b = next_pow2(|z|)`, padded rows zero; [`hyrax`]).
//! 2. Challenges `r, β` for the fingerprints `fp(x) = Σ_k β^k x_k` of state tuples; each block
//!    then runs on its own fork of the transcript (blocks are proved in parallel).
//! 3. Outer sumcheck (as the probe, [`crate::prove`]): `Σ eq(τ,(e,x))·(Az·Bz − Cz) = 0` reduces
//!    to `Ãz(r_e,r_x), B̃z, C̃z`; the verifier requires the claimed sum to be zero.
//! 4. Inner sumcheck: with `γ`, `Ãz + γB̃z + γ²C̃z = Σ_j M(r_x, j)·w̃(r_e, j)` for
//!    `M = A + γB + γ²C`; degree 2 over `log Y_b` rounds, ending at `M̃(r_x,r_j)·w̃(r_e,r_j)`.
//!    The verifier evaluates `M̃(r_x, r_j)` itself from the matrices (`O(nnz)`: there is no
//!    SPARK commitment to the matrices, which the verifier knows).
//! 5. Grand products: two trees of `Q_b` leaves, inputs `r − fp(z[0], in_label, in..)` and
//!    outputs `r − fp(z[0], out_label, out..)` (the entry's execution 0's input leaf is 1),
//!    proved layer by layer, both trees batched ([`sumchecks`]); they end in claims on the
//!    leaves' MLEs at a point `ρ`, which are linear functionals of `W_b`.
//! 6. One Hyrax opening per block of the sum of the functionals of 4 and 5 (and, for the
//!    entry, of `fp(z_0[0], public inputs)`), combined with random `κ`s.
//! 7. The verifier multiplies the roots: `Π_b in_b · (r − fp(1, 0, outputs)) = Π_b out_b`.
//!
//! # Soundness
//!
//! The commitments are absorbed before `r, β, τ, γ` are drawn, so the sumchecks and products
//! are sound for the committed tables (Schwartz–Zippel, errors `O(rounds·3/p)`), the openings
//! are special-sound (binding under discrete logarithm in G1), and the multiset equality of
//! fingerprints implies (up to `width·#states/p`) equality of the state multisets. Every state
//! tuple starts with the execution's `z[0]`: a padded or forged row with `z[0] ≠ 1` can only
//! match such rows, so starting from the entry's execution 0 (`z[0] = 1`, public inputs
//! checked), each output state is the input state of a distinct satisfied execution or the
//! final state; the chain cannot revisit an execution, so it ends at the final state, and
//! blocks determine their outputs from their inputs (`r1cs`'s soundness rules), so the outputs
//! are main's on these inputs. Rows that chain to nothing (cycles) are satisfied executions
//! that do not change the run.
//!
//! **Not covered:** memory. Programs whose blocks read or write arrays in memory are refused
//! (the memory-checking instance of `driver::proof` is not yet proved succinctly); so are
//! programs whose circuit calls other functions.
//!
//! # Zero knowledge: not achieved
//!
//! The commitments are hiding (blinded Pedersen rows) and the openings are masked, so they
//! reveal nothing but the opened values. **The sumcheck messages are not masked**: each round
//! polynomial, the final evaluations and the grand products' layers are linear or low-degree
//! combinations of witness values with coefficients the verifier knows, so a verifier can
//! learn linear relations among the witness values — for a small block run once, enough to
//! solve for its witness, private inputs included. This backend is succinct (proof size about
//! the square root of each block's table up to `2^(2·`[`MAX_COL_VARS`]`)` cells) but **not
//! zero knowledge**. Masking the sumchecks (Libra's or Spartan's ZK variant) is future work.

pub mod format;
pub mod hyrax;
pub mod sumchecks;

use super::sumcheck;
use super::transcript::{fr_to_bytes_le, Transcript};
use super::{BlockInstance, BlockShape, SparseR1cs, StateWires};
use crate::field::Fr;
use ark_bn254::G1Affine;
use ark_ff::{One, Zero};
use ark_serialize::CanonicalSerialize;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use hyrax::{Layout, Params, Term};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::fmt;

/// The transcript's protocol label.
const PROTOCOL: &[u8] = b"zkbc spartan blocks v1";

/// Columns of a committed row are at most `2^MAX_COL_VARS` when the table allows: past
/// `2^(2·MAX_COL_VARS)` cells a table has more rows than columns and its commitment grows
/// linearly.
pub const MAX_COL_VARS: usize = 10;

/// Executions of one block are at most `2^MAX_EXEC_VARS`.
pub const MAX_EXEC_VARS: u8 = 40;

/// What the prover and the verifier agree on.
#[derive(Clone, Debug, Default)]
pub struct Statement {
    /// Every block of the program; the prover's have their executions, the verifier's none.
    pub blocks: Vec<BlockInstance>,
    /// Which block is main's entry.
    pub entry: usize,
    /// The entry block's wires (indices into `z`) that hold main's public inputs, in order.
    pub public_inputs: Vec<usize>,
    /// Main's output leaves.
    pub num_outputs: usize,
}

/// A proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The statement's digest.
    pub digest: [u8; 32],
    /// One per statement block.
    pub blocks: Vec<BlockProof>,
}

/// One block's part of a proof; all empty for a block that never ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockProof {
    /// `log2 Q_b`, or `None` when the block never ran.
    pub log_executions: Option<u8>,
    /// The Hyrax commitment: one point per row.
    pub rows: Vec<G1Affine>,
    /// The outer sumcheck.
    pub outer: super::BlockProof,
    /// The inner sumcheck's rounds (values at 0, 1, 2).
    pub inner: Vec<[Fr; 3]>,
    /// `w̃(r_e, r_j)`.
    pub witness_eval: Fr,
    /// The two grand products (inputs, outputs).
    pub products: sumchecks::ProductProof,
    /// The opening.
    pub opening: hyrax::Opening,
}

impl BlockProof {
    fn never_ran() -> BlockProof {
        BlockProof {
            log_executions: None,
            rows: Vec::new(),
            outer: super::BlockProof::empty(),
            inner: Vec::new(),
            witness_eval: Fr::zero(),
            products: sumchecks::ProductProof {
                roots: Vec::new(),
                layers: Vec::new(),
            },
            opening: hyrax::Opening {
                masks: Vec::new(),
                masked_sum: Fr::zero(),
                rows: Vec::new(),
                blinds: Vec::new(),
            },
        }
    }
}

/// Why the prover could not prove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProveError {
    /// The statement or the executions are malformed.
    Statement(String),
    /// A block is wider than the parameters allow.
    Params {
        /// Columns needed.
        needed: usize,
        /// Generators in the parameters.
        have: usize,
    },
}

impl fmt::Display for ProveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProveError::Statement(why) => f.write_str(why),
            ProveError::Params { needed, have } => write!(
                f,
                "a block needs {needed} generators, the parameters have {have} (run `zkbc setup \
                 --backend spartan` on this program)"
            ),
        }
    }
}

impl std::error::Error for ProveError {}

/// Why the verifier did not accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The proof was made for another statement (program or compile flags).
    OtherCircuit,
    /// The proof's shape does not fit the statement, or the public values do not.
    Shape(String),
    /// A block's check failed.
    Block {
        /// The block's name.
        block: String,
        /// Which check.
        reason: String,
    },
    /// The grand products differ: the executions do not chain from the public inputs to the
    /// public outputs.
    Transition,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::OtherCircuit => f.write_str(
                "the proof was made for another circuit (other program or compile flags)",
            ),
            Rejection::Shape(why) => f.write_str(why),
            Rejection::Block { block, reason } => write!(f, "block {block}: {reason}"),
            Rejection::Transition => f.write_str(
                "the transition products differ: the executions do not chain from the public \
                 inputs to the public outputs",
            ),
        }
    }
}

impl Statement {
    /// SHA-256 over every block's name, state wires and matrices, the entry, the public input
    /// wires and the output count.
    pub fn digest(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(PROTOCOL);
        let n = |h: &mut Sha256, v: usize| h.update((v as u64).to_le_bytes());
        n(&mut h, self.blocks.len());
        for block in &self.blocks {
            n(&mut h, block.name.len());
            h.update(block.name.as_bytes());
            let s = block.state.unwrap_or(StateWires {
                input_state: 0,
                accesses: 0,
                output_state: 0,
            });
            for v in [s.input_state, s.accesses, s.output_state] {
                n(&mut h, v);
            }
            n(&mut h, block.r1cs.num_instance);
            n(&mut h, block.r1cs.num_witness);
            n(&mut h, block.r1cs.num_constraints());
            for (_, rows) in block.r1cs.matrices() {
                for row in rows.rows() {
                    n(&mut h, row.len());
                    for (v, c) in row.iter() {
                        n(&mut h, v);
                        h.update(fr_to_bytes_le(&c));
                    }
                }
            }
        }
        n(&mut h, self.entry);
        n(&mut h, self.public_inputs.len());
        for &v in &self.public_inputs {
            n(&mut h, v);
        }
        n(&mut h, self.num_outputs);
        h.finalize().into()
    }

    /// Checks the statement's own shape (the verifier's and the prover's).
    fn validate(&self) -> Result<(), String> {
        let entry = self
            .blocks
            .get(self.entry)
            .ok_or("the entry block is not in the statement")?;
        for block in &self.blocks {
            block
                .r1cs
                .validate()
                .map_err(|e| format!("block {}: {e}", block.name))?;
            let Some(s) = block.state else {
                return Err(format!("block {} has no state wires", block.name));
            };
            if s.width() > block.r1cs.num_instance {
                return Err(format!(
                    "block {}: state wider than its instance",
                    block.name
                ));
            }
        }
        let s = entry.state.expect("checked above");
        if self
            .public_inputs
            .iter()
            .any(|v| !s.input_values().contains(v))
        {
            return Err("a public input is not an input wire of the entry block".into());
        }
        Ok(())
    }

    /// The generators a proof needs for these blocks at any number of executions.
    pub fn generators_needed(&self) -> usize {
        let widest = self
            .blocks
            .iter()
            .map(|b| b.r1cs.num_vars().next_power_of_two())
            .max()
            .unwrap_or(1);
        widest.max(1 << MAX_COL_VARS)
    }
}

/// The table layout of a block with `2^q` executions of `2^y` variables.
fn layout(q: usize, y: usize) -> Layout {
    let n = q + y;
    let row_vars = q.min((n / 2).max(n.saturating_sub(MAX_COL_VARS)));
    Layout {
        row_vars,
        col_vars: n - row_vars,
    }
}

/// `(wire, β^k)` for a state tuple's wires.
fn tuple_weights(wires: impl Iterator<Item = usize>, beta: Fr) -> Vec<(usize, Fr)> {
    let mut p = Fr::one();
    wires
        .map(|w| {
            let out = (w, p);
            p *= beta;
            out
        })
        .collect()
}

/// The input tuple `(z[0], in_label, in..)` and the output tuple `(z[0], out_label, out..)`.
fn state_tuples(s: &StateWires, beta: Fr) -> [Vec<(usize, Fr)>; 2] {
    let input = std::iter::once(0)
        .chain(std::iter::once(s.input_label()))
        .chain(s.input_values());
    let output = std::iter::once(0)
        .chain(std::iter::once(s.output_label()))
        .chain(s.output_values());
    [tuple_weights(input, beta), tuple_weights(output, beta)]
}

/// `(z[0], public inputs..)` of the entry block.
fn public_tuple(st: &Statement, beta: Fr) -> Vec<(usize, Fr)> {
    tuple_weights(
        std::iter::once(0).chain(st.public_inputs.iter().copied()),
        beta,
    )
}

/// A tuple's weights as a dense column functional of length `y`.
fn dense(weights: &[(usize, Fr)], y: usize, scale: Fr, into: &mut [Fr]) {
    debug_assert_eq!(into.len(), y);
    for &(w, c) in weights {
        into[w] += scale * c;
    }
}

fn fp(z: &[Fr], weights: &[(usize, Fr)]) -> Fr {
    weights.iter().map(|&(w, c)| c * z[w]).sum()
}

/// `fp` of the final state `(1, 0, outputs)`.
fn final_fingerprint(outputs: &[Fr], beta: Fr) -> Fr {
    let mut p = beta * beta;
    let mut acc = Fr::one();
    for o in outputs {
        acc += p * o;
        p *= beta;
    }
    acc
}

/// `M(r_x, ·) = Σ_x eq(r_x, x)·(A + γB + γ²C)[x][·]`, length `y`.
fn combined_row(r1cs: &SparseR1cs, r_x: &[Fr], gamma: Fr, y: usize) -> Vec<Fr> {
    let weights = super::mle::eq_table(r_x);
    let mut m = vec![Fr::zero(); y];
    let scales = [Fr::one(), gamma, gamma * gamma];
    for ((_, rows), scale) in r1cs.matrices().into_iter().zip(scales) {
        for (x, w) in weights.iter().enumerate().take(rows.len()) {
            let w = *w * scale;
            for (v, c) in rows.row(x).iter() {
                m[v] += w * c;
            }
        }
    }
    m
}

fn statement_transcript(digest: &[u8; 32], public: &[Fr]) -> Transcript {
    let mut t = Transcript::new(PROTOCOL);
    t.append_bytes(b"statement", digest);
    t.append_fields(b"public", public);
    t
}

fn absorb_shape(t: &mut Transcript, blocks: &[BlockProof]) {
    for b in blocks {
        t.append_u64(
            b"log executions",
            b.log_executions.map_or(u64::MAX, u64::from),
        );
        let mut bytes = Vec::with_capacity(32 * b.rows.len());
        for p in &b.rows {
            p.serialize_compressed(&mut bytes)
                .expect("bug: serializing into a Vec cannot fail");
        }
        t.append_bytes(b"rows", &bytes);
    }
}

/// The opening challenges `κ_1, κ_2, κ_3` and the opening's own challenge, drawn on the
/// block's transcript.
fn opening_challenge(t: &mut Transcript) -> impl FnOnce(&[G1Affine], Fr) -> Fr + '_ {
    move |masks, sum| {
        let mut bytes = Vec::new();
        for p in masks {
            p.serialize_compressed(&mut bytes)
                .expect("bug: serializing into a Vec cannot fail");
        }
        t.append_bytes(b"masks", &bytes);
        t.append_fields(b"masked sum", &[sum]);
        t.challenge(b"opening")
    }
}

/// The terms of a block's opening and the value `κ`-combined: the witness evaluation at
/// `(r_e, r_j)`, the two leaf functionals at `ρ`, and for the entry the public tuple at
/// execution 0. `y_in`, `y_out` are the leaf functionals' values.
#[allow(clippy::too_many_arguments)]
fn opening_terms(
    row_vars: usize,
    y: usize,
    (r_e, r_j): (&[Fr], &[Fr]),
    rho: &[Fr],
    tuples: &[Vec<(usize, Fr)>; 2],
    entry: Option<&[(usize, Fr)]>,
    kappa: [Fr; 3],
) -> Vec<Term> {
    let mut terms = vec![Term::at(r_e, row_vars, &super::mle::eq_table(r_j))];
    let mut states = vec![Fr::zero(); y];
    dense(&tuples[0], y, kappa[0], &mut states);
    dense(&tuples[1], y, kappa[1], &mut states);
    terms.push(Term::at(rho, row_vars, &states));
    if let Some(public) = entry {
        // The entry's execution 0 is left out of the input tree: subtract its input tuple
        // (weighted as in `eq(ρ, ·)`) and check its public tuple.
        let zero = vec![Fr::zero(); rho.len()];
        let delta = super::mle::eq_eval(rho, &zero);
        let mut first = vec![Fr::zero(); y];
        dense(&tuples[0], y, -kappa[0] * delta, &mut first);
        dense(public, y, kappa[2], &mut first);
        terms.push(Term::at(&zero, row_vars, &first));
    }
    terms
}

/// Proves the statement for its blocks' executions with public values `public` (outputs,
/// then public inputs). Fails on a malformed statement; unsatisfied executions or a broken
/// chain give a proof [`verify`] rejects.
pub fn prove(params: &Params, st: &Statement, public: &[Fr]) -> Result<Proof, ProveError> {
    let bad = |why: String| ProveError::Statement(why);
    st.validate().map_err(bad)?;
    for block in &st.blocks {
        block.validate().map_err(|e| bad(e.to_string()))?;
        if block.shape().execution_vars() > MAX_EXEC_VARS as usize {
            return Err(bad(format!("block {}: too many executions", block.name)));
        }
    }
    if st.blocks[st.entry].executions.is_empty() {
        return Err(bad("the entry block never ran".into()));
    }
    if public.len() != st.num_outputs + st.public_inputs.len() {
        return Err(bad(format!(
            "{} public values for {} outputs and {} public inputs",
            public.len(),
            st.num_outputs,
            st.public_inputs.len()
        )));
    }
    let digest = st.digest();
    let mut t = statement_transcript(&digest, public);
    // Tables and commitments.
    let tables: Vec<Option<(Layout, Vec<Fr>, hyrax::Committed)>> = st
        .blocks
        .par_iter()
        .map(|block| {
            if block.executions.is_empty() {
                return Ok(None);
            }
            let shape = block.shape();
            let y = block.r1cs.num_vars().next_power_of_two();
            let layout = layout(shape.execution_vars(), y.trailing_zeros() as usize);
            if layout.cols() > params.len() {
                return Err(ProveError::Params {
                    needed: layout.cols(),
                    have: params.len(),
                });
            }
            let mut table = vec![Fr::zero(); shape.padded_executions * y];
            for (e, z) in block.executions.iter().enumerate() {
                table[e * y..e * y + z.len()].copy_from_slice(z);
            }
            let committed = hyrax::commit(params, layout, &table, &mut StdRng::from_entropy());
            Ok(Some((layout, table, committed)))
        })
        .collect::<Result<_, _>>()?;
    let mut blocks: Vec<BlockProof> = tables
        .iter()
        .zip(&st.blocks)
        .map(|(table, block)| match table {
            None => BlockProof::never_ran(),
            Some((_, _, committed)) => BlockProof {
                log_executions: Some(block.shape().execution_vars() as u8),
                rows: committed.rows.clone(),
                ..BlockProof::never_ran()
            },
        })
        .collect();
    absorb_shape(&mut t, &blocks);
    let (r, beta) = (t.challenge(b"r"), t.challenge(b"beta"));
    let public_tuple = public_tuple(st, beta);
    let parts: Vec<Option<BlockProof>> = st
        .blocks
        .par_iter()
        .zip(&tables)
        .enumerate()
        .map(|(idx, (block, table))| {
            let (layout, table, committed) = table.as_ref()?;
            let mut t = t.fork(b"block", idx as u64);
            let shape = block.shape();
            let y = block.r1cs.num_vars().next_power_of_two();
            let q = shape.execution_vars();
            let outer = sumcheck::prove_block(block, &shape, &mut t);
            let (r_e, r_x) = outer.point.split_at(q);
            let gamma = t.challenge(b"gamma");
            let m = combined_row(&block.r1cs, r_x, gamma, y);
            let eq_e = super::mle::eq_table(r_e);
            let mut w = vec![Fr::zero(); y];
            for (z, weight) in block.executions.iter().zip(&eq_e) {
                for (acc, v) in w.iter_mut().zip(z) {
                    *acc += *weight * v;
                }
            }
            let (inner, r_j, witness_eval) = sumchecks::prove_inner(m, w, &mut t);
            let tuples = state_tuples(&block.state.expect("validated"), beta);
            let is_entry = idx == st.entry;
            let mut leaves = [
                vec![r; shape.padded_executions],
                vec![r; shape.padded_executions],
            ];
            for (e, z) in block.executions.iter().enumerate() {
                leaves[0][e] = r - fp(z, &tuples[0]);
                leaves[1][e] = r - fp(z, &tuples[1]);
            }
            if is_entry {
                leaves[0][0] = Fr::one();
            }
            let (products, rho, _) = sumchecks::prove_products(&leaves, &mut t);
            let kappa = [
                t.challenge(b"kappa"),
                t.challenge(b"kappa"),
                t.challenge(b"kappa"),
            ];
            let terms = opening_terms(
                layout.row_vars,
                y,
                (r_e, &r_j),
                &rho,
                &tuples,
                is_entry.then_some(&public_tuple[..]),
                kappa,
            );
            let mut rng = StdRng::from_entropy();
            let opening = hyrax::open(
                params,
                *layout,
                table,
                committed,
                &terms,
                &mut rng,
                opening_challenge(&mut t),
            );
            Some(BlockProof {
                log_executions: Some(q as u8),
                rows: committed.rows.clone(),
                outer: outer.proof,
                inner,
                witness_eval,
                products,
                opening,
            })
        })
        .collect();
    for (slot, part) in blocks.iter_mut().zip(parts) {
        if let Some(part) = part {
            *slot = part;
        }
    }
    Ok(Proof { digest, blocks })
}

/// Checks `proof` against the statement (the verifier's: no executions) and the public values
/// (outputs, then public inputs).
pub fn verify(
    params: &Params,
    st: &Statement,
    public: &[Fr],
    proof: &Proof,
) -> Result<(), Rejection> {
    let shape = |why: String| Rejection::Shape(why);
    st.validate().map_err(shape)?;
    let digest = st.digest();
    if proof.digest != digest {
        return Err(Rejection::OtherCircuit);
    }
    if public.len() != st.num_outputs + st.public_inputs.len() {
        return Err(shape(format!(
            "{} public values, the program has {} outputs and {} public inputs",
            public.len(),
            st.num_outputs,
            st.public_inputs.len()
        )));
    }
    if proof.blocks.len() != st.blocks.len() {
        return Err(shape(format!(
            "the proof has {} blocks, the program {}",
            proof.blocks.len(),
            st.blocks.len()
        )));
    }
    if proof.blocks[st.entry].log_executions.is_none() {
        return Err(shape("the proof says the entry block never ran".into()));
    }
    for (b, block) in proof.blocks.iter().zip(&st.blocks) {
        match b.log_executions {
            None if *b != BlockProof::never_ran() => {
                return Err(shape(format!(
                    "block {} never ran but has a proof",
                    block.name
                )))
            }
            Some(q) if q > MAX_EXEC_VARS => {
                return Err(shape(format!("block {}: 2^{q} executions", block.name)))
            }
            _ => {}
        }
    }
    let (outputs, public_inputs) = public.split_at(st.num_outputs);
    let mut t = statement_transcript(&digest, public);
    absorb_shape(&mut t, &proof.blocks);
    let (r, beta) = (t.challenge(b"r"), t.challenge(b"beta"));
    let public_tuple = public_tuple(st, beta);
    let y_public = {
        let mut p = Fr::one();
        let mut acc = Fr::zero();
        for v in std::iter::once(Fr::one()).chain(public_inputs.iter().copied()) {
            acc += p * v;
            p *= beta;
        }
        acc
    };
    let roots: Vec<Option<[Fr; 2]>> = st
        .blocks
        .par_iter()
        .zip(&proof.blocks)
        .enumerate()
        .map(|(idx, (block, bp))| {
            let Some(q) = bp.log_executions else {
                return Ok(None);
            };
            let fail = |reason: String| Rejection::Block {
                block: block.name.clone(),
                reason,
            };
            let q = q as usize;
            let mut t = t.fork(b"block", idx as u64);
            let y = block.r1cs.num_vars().next_power_of_two();
            let layout = layout(q, y.trailing_zeros() as usize);
            if bp.rows.len() != layout.rows() || layout.cols() > params.len() {
                return Err(fail(format!(
                    "{} row commitments for {} rows of {} columns ({} generators)",
                    bp.rows.len(),
                    layout.rows(),
                    layout.cols(),
                    params.len()
                )));
            }
            let x = block.r1cs.num_constraints().next_power_of_two().max(2);
            let shape = BlockShape {
                num_constraints: block.r1cs.num_constraints(),
                num_executions: 1 << q,
                num_vars: block.r1cs.num_vars(),
                padded_executions: 1 << q,
                padded_constraints: x,
            };
            let point = sumcheck::verify_rounds(&shape, &bp.outer, &mut t)
                .map_err(|e| fail(format!("outer sumcheck: {e}")))?;
            if !bp.outer.claimed_sum.is_zero() {
                return Err(fail(
                    "the proved sum is not zero: some execution does not satisfy the block's \
                     constraints"
                        .into(),
                ));
            }
            let (r_e, r_x) = point.split_at(q);
            let gamma = t.challenge(b"gamma");
            let [va, vb, vc] = bp.outer.evals;
            if bp.inner.len() != y.trailing_zeros() as usize {
                return Err(fail(
                    "the inner sumcheck has the wrong number of rounds".into(),
                ));
            }
            let (r_j, left) =
                sumchecks::verify_inner(&bp.inner, va + gamma * vb + gamma * gamma * vc, &mut t)
                    .map_err(|k| {
                        fail(format!("inner sumcheck round {k}: not the running claim"))
                    })?;
            t.append_fields(b"witness evaluation", &[bp.witness_eval]);
            let m = combined_row(&block.r1cs, r_x, gamma, y);
            if super::mle::evaluate(&m, &r_j) * bp.witness_eval != left {
                return Err(fail("the inner sumcheck's last claim fails".into()));
            }
            let (rho, claims) = sumchecks::verify_products(&bp.products, 2, q, &mut t)
                .map_err(|e| fail(format!("transition products: {e}")))?;
            let kappa = [
                t.challenge(b"kappa"),
                t.challenge(b"kappa"),
                t.challenge(b"kappa"),
            ];
            let is_entry = idx == st.entry;
            let delta = if is_entry {
                super::mle::eq_eval(&rho, &vec![Fr::zero(); q])
            } else {
                Fr::zero()
            };
            // The leaves' MLEs: r·(1 − δ) + δ − y_in and r − y_out.
            let y_in = r * (Fr::one() - delta) + delta - claims[0];
            let y_out = r - claims[1];
            let mut value = bp.witness_eval + kappa[0] * y_in + kappa[1] * y_out;
            if is_entry {
                value += kappa[2] * y_public;
            }
            let tuples = state_tuples(&block.state.expect("validated"), beta);
            let terms = opening_terms(
                layout.row_vars,
                y,
                (r_e, &r_j),
                &rho,
                &tuples,
                is_entry.then_some(&public_tuple[..]),
                kappa,
            );
            if !hyrax::verify(
                params,
                layout,
                &bp.rows,
                &terms,
                value,
                &bp.opening,
                opening_challenge(&mut t),
            ) {
                return Err(fail("the commitment opening fails".into()));
            }
            Ok(Some([bp.products.roots[0], bp.products.roots[1]]))
        })
        .collect::<Result<_, _>>()?;
    let (mut ins, mut outs) = (r - final_fingerprint(outputs, beta), Fr::one());
    for [i, o] in roots.into_iter().flatten() {
        ins *= i;
        outs *= o;
    }
    if ins != outs {
        return Err(Rejection::Transition);
    }
    Ok(())
}
