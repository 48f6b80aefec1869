//! A data-parallel sumcheck prover over the block instances: Spartan's first sumcheck, run on
//! every block at once as in spartan_parallel (CoBBl's back end), with a verifier for it.
//!
//! **What this is and is not.** It measures the *prover's sumcheck work* — the part whose cost
//! the report predicts from sumcheck cells. It is not a succinct or zero-knowledge proof: there
//! is no polynomial commitment, so the verifier reads the whole witness and evaluates the
//! matrices itself, and the proof reveals evaluations of the witness. Fiat–Shamir makes it
//! non-interactive; a hash of the executions stands in for the witness commitment.
//!
//! # The statement
//!
//! For each block b with `cons_b` constraints and `exec_b` executions `z_{b,0..}`, pad the
//! executions to `Q_b = next_pow2(exec_b)` with all-zero `z` (zero satisfies any R1CS) and the
//! constraints to `X_b = max(2, next_pow2(cons_b))` with empty rows. Let `Az(e, x)` be
//! `⟨A[x], z_e⟩` on the `(log Q_b + log X_b)`-dimensional hypercube, and the same for B, C.
//! Every execution satisfies every constraint iff `Az·Bz − Cz` vanishes on the hypercube, and
//! (up to probability `(log Q_b + log X_b)/p` over a random τ) iff
//!
//! ```text
//!     Σ_{(e,x) ∈ {0,1}^{log Q_b + log X_b}}  eq(τ, (e,x)) · (Ãz(e,x)·B̃z(e,x) − C̃z(e,x))  =  0.
//! ```
//!
//! # The protocol, step by step
//!
//! 1. Both sides build the statement transcript ([`Transcript`], SHA-256): a protocol label,
//!    the block count and, per block, its name, `num_instance`, `num_witness`, constraint and
//!    execution counts, a digest of the matrices, and a digest of the executions (the stand-in
//!    for a witness commitment; see [`transcript::assignments_digest`]).
//! 2. Each block forks its own transcript from that one (`fork("block", b)`). The blocks are
//!    then independent and run in parallel (rayon), the data-parallel layout of
//!    spartan_parallel; a block that never ran (`exec_b = 0`) has the empty proof.
//! 3. Per block, τ is drawn from the transcript: `n = log Q_b + log X_b` challenges.
//! 4. The prover builds dense tables of `Az`, `Bz`, `Cz` (`Q_b·X_b` cells each, executions
//!    in parallel) and of `eq(τ, ·)`.
//! 5. Round i = 0..n: the prover sends the degree-3 round polynomial
//!    `g_i(t) = Σ eq·(Az·Bz − Cz)` with the first remaining variable bound to t and the rest
//!    summed over the hypercube, as its values at t = 0, 1, 2, 3 (a parallel fold-reduce over
//!    the half tables; after round 0, `g_i(1)` is the running claim minus `g_i(0)`, as in
//!    Spartan). In round 0 it first absorbs its claimed sum `g_0(0) + g_0(1)`. Both
//!    absorb `g_i`, draw `r_i`, and the prover binds the variable: each table halves,
//!    `t[k] ← t[k] + r_i·(t[k + half] − t[k])`, the four tables folded in parallel.
//! 6. After n rounds the tables are single values `eq(τ, r)`, `Ãz(r)`, `B̃z(r)`, `C̃z(r)`; the
//!    prover sends the last three.
//! 7. The verifier checks `g_0(0) + g_0(1)` = the claimed sum, each `g_i(0) + g_i(1) =
//!    g_{i-1}(r_{i-1})`, the final claim `g_{n-1}(r_{n-1}) = eq(τ, r)·(a·b − c)` with eq
//!    evaluated in O(n), then the sent `a, b, c` against its own evaluation of the MLEs from
//!    the matrices and executions (`Σ_x eq(r_x, x)·⟨M[x], Σ_e eq(r_e, e)·z_e⟩`), and last that
//!    the claimed sum is zero.
//!
//! # Cost
//!
//! The prover's field work is linear in the block's cells `Q_b·X_b` (table building is
//! `O(exec_b · nnz_b)`, the rounds `O(Q_b·X_b)` in total since each halves the tables), so its
//! time over all blocks follows the report's `Σ_b Q_b·X_b`; the bench `benches/prove.rs` fits
//! time against cells. spartan_parallel batches the blocks into a single sumcheck that also
//! binds the block index (⌈log2 #blocks⌉ more rounds, one proof); the per-block sumchecks here
//! do the same cell work with one proof per block.
//!
//! ```
//! use zkbc::prove::{prove, verify};
//! use zkbc_testkit::synthetic;
//! let blocks = vec![synthetic::block("b0", 6, 5, 1), synthetic::block("b1", 3, 2, 2)];
//! let proof = prove(&blocks).unwrap();
//! assert!(verify(&blocks, &proof).is_ok());
//! ```

pub mod arguments;
pub mod fit;
pub mod groth16;
mod instance;
pub mod mle;
pub mod spartan;
mod sumcheck;
pub mod transcript;

pub use instance::{
    BlockInstance, BlockShape, InstanceError, Matrix, MatrixRow, ShapeError, SparseMatrix,
    SparseR1cs, SparseRow, StateWires, MAX_CELLS,
};
pub use transcript::Transcript;

use crate::field::Fr;
use ark_ff::Zero;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::fmt;
use std::time::{Duration, Instant};

/// The transcript's protocol label; a change to the protocol changes it.
const PROTOCOL: &[u8] = b"zkbc data-parallel spartan sumcheck v1";

/// A proof for all blocks, in the order of the instances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// One per block instance.
    pub blocks: Vec<BlockProof>,
}

/// One block's sumcheck proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockProof {
    /// The claimed value of `Σ eq(τ,·)·(Az·Bz − Cz)`; zero for satisfied executions.
    pub claimed_sum: Fr,
    /// The round polynomials, each as its values at 0, 1, 2, 3.
    pub rounds: Vec<[Fr; 4]>,
    /// The prover's final `Ãz(r)`, `B̃z(r)`, `C̃z(r)`.
    pub evals: [Fr; 3],
}

impl BlockProof {
    /// The proof of a block that never ran: no rounds, all zero.
    pub fn empty() -> Self {
        BlockProof {
            claimed_sum: Fr::zero(),
            rounds: Vec::new(),
            evals: [Fr::zero(); 3],
        }
    }
}

/// Where the prover's time went for one block. Blocks run concurrently, so per-block times
/// overlap and add up to more than the wall-clock total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockTiming {
    /// Hashing the matrices and executions into the statement (the commitment stand-in).
    pub digest: Duration,
    /// Building the dense `Az`, `Bz`, `Cz` and `eq(τ,·)` tables.
    pub tables: Duration,
    /// The sumcheck rounds: round polynomials and folds.
    pub rounds: Duration,
}

/// The prover's timings: per block and wall-clock total.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProverTiming {
    /// One per block, in instance order.
    pub blocks: Vec<BlockTiming>,
    /// Wall-clock time of the whole proof.
    pub total: Duration,
}

/// Proves that every execution of every block satisfies its instance (see the module docs).
/// Fails only on malformed input; unsatisfied executions yield a proof that [`verify`]
/// rejects with [`Rejection::NonZeroSum`].
pub fn prove(instances: &[BlockInstance]) -> Result<Proof, InstanceError> {
    prove_timed(instances).map(|(proof, _)| proof)
}

/// [`prove`], also returning where the time went.
pub fn prove_timed(instances: &[BlockInstance]) -> Result<(Proof, ProverTiming), InstanceError> {
    let start = Instant::now();
    validate(instances)?;
    let digests: Vec<(BlockDigest, Duration)> = instances
        .par_iter()
        .map(|instance| {
            let start = Instant::now();
            let digest = BlockDigest::of(instance);
            (digest, start.elapsed())
        })
        .collect();
    let statement = statement_transcript(instances, digests.iter().map(|(d, _)| d));
    let work: Vec<_> = instances
        .par_iter()
        .enumerate()
        .map(|(idx, instance)| {
            let mut transcript = statement.fork(b"block", idx as u64);
            sumcheck::prove_block(instance, &instance.shape(), &mut transcript)
        })
        .collect();
    let mut blocks = Vec::with_capacity(work.len());
    let mut timings = Vec::with_capacity(work.len());
    for (block, (_, digest)) in work.into_iter().zip(digests) {
        timings.push(BlockTiming {
            digest,
            tables: block.tables,
            rounds: block.rounds,
        });
        blocks.push(block.proof);
    }
    Ok((
        Proof { blocks },
        ProverTiming {
            blocks: timings,
            total: start.elapsed(),
        },
    ))
}

/// Checks `proof` against the instances and their executions (the verifier reads the witness:
/// there is no commitment). Reports the first block that fails, and why.
pub fn verify(instances: &[BlockInstance], proof: &Proof) -> Result<(), VerifyError> {
    verify_timed(instances, proof).0
}

/// The verifier's timings: per block (its sumcheck and final evaluation) and wall-clock total.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifierTiming {
    /// One per block, in instance order (empty when the proof's shape is rejected first).
    pub blocks: Vec<Duration>,
    /// Wall-clock time of the whole verification.
    pub total: Duration,
}

/// [`verify`], also returning where the time went.
pub fn verify_timed(
    instances: &[BlockInstance],
    proof: &Proof,
) -> (Result<(), VerifyError>, VerifierTiming) {
    let start = Instant::now();
    let mut timing = VerifierTiming::default();
    if let Err(e) = validate(instances) {
        timing.total = start.elapsed();
        return (Err(VerifyError::Instance(e)), timing);
    }
    if proof.blocks.len() != instances.len() {
        timing.total = start.elapsed();
        let e = VerifyError::BlockCount {
            expected: instances.len(),
            found: proof.blocks.len(),
        };
        return (Err(e), timing);
    }
    let digests: Vec<BlockDigest> = instances.par_iter().map(BlockDigest::of).collect();
    let statement = statement_transcript(instances, digests.iter());
    let results: Vec<(Result<(), Rejection>, Duration)> = instances
        .par_iter()
        .zip(&proof.blocks)
        .enumerate()
        .map(|(idx, (instance, block))| {
            let block_start = Instant::now();
            let mut transcript = statement.fork(b"block", idx as u64);
            let r = sumcheck::verify_block(instance, &instance.shape(), block, &mut transcript);
            (r, block_start.elapsed())
        })
        .collect();
    let mut verdict = Ok(());
    for (block_idx, (result, time)) in results.into_iter().enumerate() {
        timing.blocks.push(time);
        if let (Err(reason), Ok(())) = (result, &verdict) {
            verdict = Err(VerifyError::Block {
                block_idx,
                name: instances[block_idx].name.clone(),
                reason,
            });
        }
    }
    timing.total = start.elapsed();
    (verdict, timing)
}

/// The report's sumcheck cells `Σ_b Q_b·X_b` of these instances.
pub fn total_cells(instances: &[BlockInstance]) -> usize {
    instances.iter().map(|i| i.shape().cells()).sum()
}

fn validate(instances: &[BlockInstance]) -> Result<(), InstanceError> {
    instances
        .par_iter()
        .map(BlockInstance::validate)
        .collect::<Result<Vec<()>, _>>()
        .map(drop)
}

/// What the statement transcript absorbs for one block besides its counts.
struct BlockDigest {
    matrices: [u8; 32],
    executions: [u8; 32],
}

impl BlockDigest {
    fn of(instance: &BlockInstance) -> Self {
        let mut hasher = Sha256::new();
        for (_, rows) in instance.r1cs.matrices() {
            hasher.update((rows.len() as u64).to_le_bytes());
            for row in rows.rows() {
                hasher.update((row.len() as u64).to_le_bytes());
                for (var, coeff) in row.iter() {
                    hasher.update((var as u64).to_le_bytes());
                    hasher.update(transcript::fr_to_bytes_le(&coeff));
                }
            }
        }
        BlockDigest {
            matrices: hasher.finalize().into(),
            executions: transcript::assignments_digest(&instance.executions),
        }
    }
}

fn statement_transcript<'a>(
    instances: &[BlockInstance],
    digests: impl Iterator<Item = &'a BlockDigest>,
) -> Transcript {
    let mut transcript = Transcript::new(PROTOCOL);
    transcript.append_u64(b"blocks", instances.len() as u64);
    for (instance, digest) in instances.iter().zip(digests) {
        transcript.append_bytes(b"name", instance.name.as_bytes());
        transcript.append_u64(b"num_instance", instance.r1cs.num_instance as u64);
        transcript.append_u64(b"num_witness", instance.r1cs.num_witness as u64);
        transcript.append_u64(b"constraints", instance.r1cs.num_constraints() as u64);
        transcript.append_u64(b"executions", instance.executions.len() as u64);
        transcript.append_bytes(b"matrices", &digest.matrices);
        transcript.append_bytes(b"execution digest", &digest.executions);
    }
    transcript
}

/// Why the verifier rejected a block's proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The proof has the wrong number of rounds for the block's padded size.
    RoundCount {
        /// `log2 Q_b + log2 X_b`.
        expected: usize,
        /// Rounds in the proof.
        found: usize,
    },
    /// `g(0) + g(1)` differs from the running claim (round 0: from the claimed sum).
    RoundSum {
        /// The first inconsistent round.
        round: usize,
    },
    /// The last round's value differs from `eq(τ, r)·(a·b − c)` of the sent evaluations.
    FinalClaim,
    /// A sent evaluation differs from the verifier's own evaluation from the executions.
    Evaluation {
        /// The matrix whose product `M̃z(r)` differs.
        matrix: Matrix,
    },
    /// The proof is consistent but proves a non-zero sum: some execution does not satisfy the
    /// block's constraints.
    NonZeroSum,
    /// The block never ran, so its proof must be [`BlockProof::empty`].
    UnexpectedProof,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::RoundCount { expected, found } => {
                write!(
                    f,
                    "the proof has {found} rounds, the block needs {expected}"
                )
            }
            Rejection::RoundSum { round } => {
                write!(f, "round {round}: g(0) + g(1) is not the running claim")
            }
            Rejection::FinalClaim => {
                f.write_str("the last round does not match eq(τ, r)·(Az·Bz − Cz) at r")
            }
            Rejection::Evaluation { matrix } => write!(
                f,
                "the sent evaluation of {matrix}z at r differs from the executions'"
            ),
            Rejection::NonZeroSum => f.write_str(
                "the proved sum is not zero: some execution does not satisfy the constraints",
            ),
            Rejection::UnexpectedProof => {
                f.write_str("the block never ran, but its proof is not empty")
            }
        }
    }
}

/// The verifier's verdict when it does not accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// The instances themselves are malformed.
    Instance(InstanceError),
    /// The proof has a different number of blocks than the statement.
    BlockCount {
        /// Blocks in the statement.
        expected: usize,
        /// Block proofs given.
        found: usize,
    },
    /// A block's proof is rejected.
    Block {
        /// The block's index among the instances.
        block_idx: usize,
        /// The block's name.
        name: String,
        /// Why.
        reason: Rejection,
    },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Instance(error) => write!(f, "malformed instance: {error}"),
            VerifyError::BlockCount { expected, found } => write!(
                f,
                "the proof has {found} block proofs, the statement {expected} blocks"
            ),
            VerifyError::Block {
                block_idx,
                name,
                reason,
            } => write!(f, "block {name} (#{block_idx}) rejected: {reason}"),
        }
    }
}

impl std::error::Error for VerifyError {}
