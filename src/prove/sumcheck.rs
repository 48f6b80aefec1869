//! One block's sumcheck: the prover's dense tables, its rounds, and the verifier's checks.
//!
//! Tables are indexed `e·X + x` (execution `e`, constraint `x`), so the first `log2 Q` sumcheck
//! variables are the execution's bits and the last `log2 X` the constraint's, each most
//! significant first (see [`super::mle`]).

use super::instance::{BlockInstance, BlockShape, Matrix, SparseR1cs};
use super::mle::{eq_eval, eq_table, fold, interpolate_cubic, MIN_PARALLEL_LEN};
use super::transcript::Transcript;
use super::{BlockProof, Rejection};
use crate::field::Fr;
use ark_ff::Zero;
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// What the prover spent on one block, beside its proof.
pub(crate) struct BlockWork {
    pub proof: BlockProof,
    /// The sumcheck's random point `(r_e, r_x)`: where `evals` are the MLEs' values.
    pub point: Vec<Fr>,
    pub tables: Duration,
    pub rounds: Duration,
}

/// Proves one block on its own transcript (already bound to the whole statement).
pub(crate) fn prove_block(
    instance: &BlockInstance,
    shape: &BlockShape,
    transcript: &mut Transcript,
) -> BlockWork {
    if shape.num_executions == 0 {
        return BlockWork {
            proof: BlockProof::empty(),
            point: Vec::new(),
            tables: Duration::ZERO,
            rounds: Duration::ZERO,
        };
    }
    let n_rounds = shape.rounds();
    let tau = transcript.challenges(b"tau", n_rounds);
    let work = prove_block_at(instance, shape, &tau, |round, g| {
        if round == 0 {
            // The honest claim is whatever the tables sum to: zero exactly when (with
            // overwhelming probability over τ) every execution satisfies every constraint.
            transcript.append_fields(b"claimed sum", &[g[0] + g[1]]);
        }
        transcript.append_fields(b"round", g);
        transcript.challenge(b"r")
    });
    transcript.append_fields(b"evaluations", &work.proof.evals);
    work
}

/// The outer sumcheck's rounds at `τ` (a block that ran): `send` takes each round's values
/// at 0, 1, 2, 3 and gives its challenge. The Spartan backend sends them committed.
pub(crate) fn prove_block_at(
    instance: &BlockInstance,
    shape: &BlockShape,
    tau: &[Fr],
    mut send: impl FnMut(usize, &[Fr; 4]) -> Fr,
) -> BlockWork {
    let n_rounds = tau.len();
    let start = Instant::now();
    let [mut az, mut bz, mut cz] = products(instance, shape);
    let mut eq = eq_table(tau);
    let tables = start.elapsed();

    let start = Instant::now();
    let mut rounds = Vec::with_capacity(n_rounds);
    let mut claim = None;
    let mut point = Vec::with_capacity(n_rounds);
    for round in 0..n_rounds {
        let g = round_evals(&eq, &az, &bz, &cz, claim);
        let r = send(round, &g);
        claim = Some(interpolate_cubic(&g, r));
        point.push(r);
        rayon::join(
            || rayon::join(|| fold(&mut eq, r), || fold(&mut az, r)),
            || rayon::join(|| fold(&mut bz, r), || fold(&mut cz, r)),
        );
        rounds.push(g);
    }
    let evals = [az[0], bz[0], cz[0]];
    let claimed_sum = rounds[0][0] + rounds[0][1];
    BlockWork {
        proof: BlockProof {
            claimed_sum,
            rounds,
            evals,
        },
        point,
        tables,
        rounds: start.elapsed(),
    }
}

/// The dense tables of `Az`, `Bz` and `Cz` over (execution, constraint), zero-padded to
/// `Q · X` cells: padded constraints have empty rows and padded executions are all-zero `z`.
fn products(instance: &BlockInstance, shape: &BlockShape) -> [Vec<Fr>; 3] {
    let x_len = shape.padded_constraints;
    let cells = shape.cells();
    let r1cs = &instance.r1cs;
    let mut tables = [
        vec![Fr::zero(); cells],
        vec![Fr::zero(); cells],
        vec![Fr::zero(); cells],
    ];
    // Chunks of at most 4096 cells of one execution, so a block that ran once still fills
    // every core; X is a power of two, so chunks never straddle two executions.
    let chunk = x_len.min(1 << 12);
    let [a, b, c] = &mut tables;
    a.par_chunks_mut(chunk)
        .zip(b.par_chunks_mut(chunk))
        .zip(c.par_chunks_mut(chunk))
        .enumerate()
        .for_each(|(k, ((a, b), c))| {
            let (execution, first_row) = (k * chunk / x_len, k * chunk % x_len);
            let Some(z) = instance.executions.get(execution) else {
                return; // a padded execution: all-zero z, all-zero products
            };
            let rows = first_row..(first_row + chunk).min(r1cs.num_constraints());
            for (i, row) in rows.enumerate() {
                a[i] = SparseR1cs::dot(r1cs.a.row(row), z);
                b[i] = SparseR1cs::dot(r1cs.b.row(row), z);
                c[i] = SparseR1cs::dot(r1cs.c.row(row), z);
            }
        });
    tables
}

/// The round polynomial `g(t) = Σ_i eq_t[i]·(a_t[i]·b_t[i] − c_t[i])` at t = 0, 1, 2, 3, where
/// `f_t[i] = f[i] + t·(f[i + half] − f[i])` binds the first remaining variable to `t`. Given the
/// running claim (every round but the first), `g(1)` is `claim − g(0)` rather than a sum, as in
/// Spartan's prover: three evaluations per pair instead of four.
fn round_evals(eq: &[Fr], a: &[Fr], b: &[Fr], c: &[Fr], claim: Option<Fr>) -> [Fr; 4] {
    let half = eq.len() / 2;
    let need_one = claim.is_none();
    let mut g = (0..half)
        .into_par_iter()
        .with_min_len(MIN_PARALLEL_LEN)
        .fold(
            || [Fr::zero(); 4],
            |mut acc, i| {
                let j = i + half;
                let (de, da, db, dc) = (eq[j] - eq[i], a[j] - a[i], b[j] - b[i], c[j] - c[i]);
                acc[0] += eq[i] * (a[i] * b[i] - c[i]);
                if need_one {
                    acc[1] += eq[j] * (a[j] * b[j] - c[j]);
                }
                let (e2, a2, b2, c2) = (eq[j] + de, a[j] + da, b[j] + db, c[j] + dc);
                acc[2] += e2 * (a2 * b2 - c2);
                acc[3] += (e2 + de) * ((a2 + da) * (b2 + db) - (c2 + dc));
                acc
            },
        )
        .reduce(
            || [Fr::zero(); 4],
            |x, y| [x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]],
        );
    if let Some(claim) = claim {
        g[1] = claim - g[0];
    }
    g
}

/// Checks one block's proof on its own transcript (bound to the whole statement, as the
/// prover's was). The order of the checks makes the first failure the informative one: a proof
/// that is internally inconsistent fails a round or the final claim; a consistent proof whose
/// evaluations do not match the executions fails on the evaluations; a consistent, matching
/// proof of a non-zero sum (an unsatisfied execution) fails last, on the sum.
pub(crate) fn verify_block(
    instance: &BlockInstance,
    shape: &BlockShape,
    proof: &BlockProof,
    transcript: &mut Transcript,
) -> Result<(), Rejection> {
    if shape.num_executions == 0 {
        return if *proof == BlockProof::empty() {
            Ok(())
        } else {
            Err(Rejection::UnexpectedProof)
        };
    }
    let point = verify_rounds(shape, proof, transcript)?;
    let own = evaluate_products(instance, shape, &point);
    for ((matrix, own), claimed) in [Matrix::A, Matrix::B, Matrix::C]
        .into_iter()
        .zip(own)
        .zip(proof.evals)
    {
        if own != claimed {
            return Err(Rejection::Evaluation { matrix });
        }
    }
    if !proof.claimed_sum.is_zero() {
        return Err(Rejection::NonZeroSum);
    }
    Ok(())
}

/// The checks of one block's proof that need no witness: the round count, every round against
/// the running claim (round 0 against the claimed sum), and the last round against
/// `eq(τ, r)·(a·b − c)` of the sent evaluations, which it then absorbs. Gives the point
/// `r = (r_e, r_x)` at which the sent evaluations are claimed. Call for a block that ran.
pub(crate) fn verify_rounds(
    shape: &BlockShape,
    proof: &BlockProof,
    transcript: &mut Transcript,
) -> Result<Vec<Fr>, Rejection> {
    let n_rounds = shape.rounds();
    if proof.rounds.len() != n_rounds {
        return Err(Rejection::RoundCount {
            expected: n_rounds,
            found: proof.rounds.len(),
        });
    }
    let tau = transcript.challenges(b"tau", n_rounds);
    transcript.append_fields(b"claimed sum", &[proof.claimed_sum]);
    let mut claim = proof.claimed_sum;
    let mut point = Vec::with_capacity(n_rounds);
    for (round, g) in proof.rounds.iter().enumerate() {
        if g[0] + g[1] != claim {
            return Err(Rejection::RoundSum { round });
        }
        transcript.append_fields(b"round", g);
        let r = transcript.challenge(b"r");
        claim = interpolate_cubic(g, r);
        point.push(r);
    }
    let [ea, eb, ec] = proof.evals;
    if eq_eval(&tau, &point) * (ea * eb - ec) != claim {
        return Err(Rejection::FinalClaim);
    }
    transcript.append_fields(b"evaluations", &proof.evals);
    Ok(point)
}

/// The multilinear extensions of `Az`, `Bz`, `Cz` at `point = (r_e, r_x)`, computed from the
/// matrices and the executions without the prover's tables:
/// `M̃z(r_e, r_x) = Σ_x eq(r_x, x) · Σ_j M[x][j] · z̃_j(r_e)` with
/// `z̃_j(r_e) = Σ_e eq(r_e, e) · z_e[j]`. Cost `O(Q·|z| + nnz + X)`, below the prover's
/// `O(Q·X)` folds.
pub(crate) fn evaluate_products(
    instance: &BlockInstance,
    shape: &BlockShape,
    point: &[Fr],
) -> [Fr; 3] {
    let (r_e, r_x) = point.split_at(shape.execution_vars());
    let execution_weights = eq_table(r_e);
    let z_at_r: Vec<Fr> = (0..shape.num_vars)
        .into_par_iter()
        .with_min_len(64)
        .map(|j| {
            instance
                .executions
                .iter()
                .zip(&execution_weights)
                .map(|(z, w)| *w * z[j])
                .sum()
        })
        .collect();
    let row_weights = eq_table(r_x);
    let r1cs = &instance.r1cs;
    [&r1cs.a, &r1cs.b, &r1cs.c].map(|rows| {
        row_weights
            .par_iter()
            .enumerate()
            .take(rows.len())
            .with_min_len(MIN_PARALLEL_LEN)
            .map(|(row, w)| *w * SparseR1cs::dot(rows.row(row), &z_at_r))
            .sum()
    })
}
