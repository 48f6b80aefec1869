//! The sumcheck prover and verifier on hand-built blocks: honest proofs verify, and any single
//! change to a witness, a round polynomial, the claimed sum or the final evaluations is rejected
//! with the reason expected.

use zkbc::field::Fr;
use zkbc::prove::{
    prove, prove_timed, total_cells, verify, BlockInstance, BlockProof, InstanceError, Matrix,
    Rejection, ShapeError, SparseR1cs, VerifyError,
};

fn fr(v: i64) -> Fr {
    if v < 0 {
        -Fr::from(v.unsigned_abs())
    } else {
        Fr::from(v as u64)
    }
}

/// `out = x^4` as a multiplication chain: z = [1, x, out, t1, t2] with
/// x·x = t1, t1·x = t2, t2·x = out. Three constraints pad to X = 4.
fn power_block(inputs: &[i64]) -> BlockInstance {
    let r1cs = SparseR1cs {
        num_instance: 2,
        num_witness: 2,
        a: vec![vec![(1, fr(1))], vec![(3, fr(1))], vec![(4, fr(1))]].into(),
        b: vec![vec![(1, fr(1))], vec![(1, fr(1))], vec![(1, fr(1))]].into(),
        c: vec![vec![(3, fr(1))], vec![(4, fr(1))], vec![(2, fr(1))]].into(),
    };
    let executions = inputs
        .iter()
        .map(|&x| {
            let x = fr(x);
            vec![fr(1), x, x * x * x * x, x * x, x * x * x]
        })
        .collect();
    BlockInstance {
        name: "power".into(),
        source: None,
        state: None,
        r1cs,
        executions,
    }
}

/// A 3-bit decomposition: z = [1, n, b0, b1, b2] with b_i·(b_i − 1) = 0 and
/// (b0 + 2·b1 + 4·b2)·1 = n. Four constraints, X = 4.
fn bits_block(values: &[u64]) -> BlockInstance {
    let boolean = |var: usize| (vec![(var, fr(1))], vec![(0, fr(-1)), (var, fr(1))], vec![]);
    let mut r1cs = SparseR1cs {
        num_instance: 1,
        num_witness: 3,
        ..SparseR1cs::default()
    };
    for var in 2..5 {
        let (a, b, c) = boolean(var);
        r1cs.a.push_row(a);
        r1cs.b.push_row(b);
        r1cs.c.push_row(c);
    }
    r1cs.a.push_row(vec![(2, fr(1)), (3, fr(2)), (4, fr(4))]);
    r1cs.b.push_row(vec![(0, fr(1))]);
    r1cs.c.push_row(vec![(1, fr(1))]);
    let executions = values
        .iter()
        .map(|&n| {
            let mut z = vec![fr(1), Fr::from(n)];
            z.extend((0..3).map(|i| Fr::from((n >> i) & 1)));
            z
        })
        .collect();
    BlockInstance {
        name: "bits".into(),
        source: None,
        state: None,
        r1cs,
        executions,
    }
}

/// A block that never ran: no executions, so no cells and the empty proof.
fn idle_block() -> BlockInstance {
    BlockInstance {
        executions: vec![],
        name: "idle".into(),
        ..power_block(&[])
    }
}

fn program() -> Vec<BlockInstance> {
    vec![
        power_block(&[3, 5, -2]),
        bits_block(&[0, 5, 7, 2, 6]),
        idle_block(),
    ]
}

fn rejection(result: Result<(), VerifyError>) -> (usize, Rejection) {
    match result {
        Err(VerifyError::Block {
            block_idx, reason, ..
        }) => (block_idx, reason),
        other => panic!("expected a block rejection, got {other:?}"),
    }
}

#[test]
fn honest_proofs_verify_with_the_padded_shape() {
    let blocks = program();
    assert!(blocks.iter().all(|b| b.first_unsatisfied().is_none()));
    // Q·X: power 4·4, bits 8·4, idle 0.
    assert_eq!(total_cells(&blocks), 16 + 32);
    let (proof, timing) = prove_timed(&blocks).expect("well-formed instances");
    assert_eq!(timing.blocks.len(), 3);
    let rounds: Vec<usize> = proof.blocks.iter().map(|b| b.rounds.len()).collect();
    assert_eq!(rounds, [2 + 2, 3 + 2, 0]);
    assert_eq!(proof.blocks[2], BlockProof::empty());
    assert!(proof.blocks.iter().all(|b| b.claimed_sum == fr(0)));
    assert_eq!(verify(&blocks, &proof), Ok(()));
    // Deterministic: the same statement gives the same proof.
    assert_eq!(prove(&blocks), Ok(proof));
}

#[test]
fn one_execution_and_one_constraint_still_prove() {
    // Q = 1 (no execution rounds), one constraint padded to X = 2.
    let block = BlockInstance {
        name: "square".into(),
        source: None,
        state: None,
        r1cs: SparseR1cs {
            num_instance: 2,
            num_witness: 0,
            a: vec![vec![(1, fr(1))]].into(),
            b: vec![vec![(1, fr(1))]].into(),
            c: vec![vec![(2, fr(1))]].into(),
        },
        executions: vec![vec![fr(1), fr(9), fr(81)]],
    };
    let proof = prove(std::slice::from_ref(&block)).unwrap();
    assert_eq!(proof.blocks[0].rounds.len(), 1);
    assert_eq!(verify(&[block], &proof), Ok(()));
}

#[test]
fn every_single_witness_change_makes_the_honest_proof_fail() {
    let blocks = program();
    for block_idx in 0..2 {
        for execution in 0..blocks[block_idx].executions.len() {
            for var in 1..blocks[block_idx].r1cs.num_vars() {
                let mut changed = blocks.clone();
                changed[block_idx].executions[execution][var] += fr(1);
                let where_ = format!("block {block_idx}, execution {execution}, var {var}");
                // Every variable is pinned by some constraint (a flipped bit breaks n's sum).
                assert!(changed[block_idx].first_unsatisfied().is_some(), "{where_}");
                let proof = prove(&changed).unwrap();
                assert_ne!(proof.blocks[block_idx].claimed_sum, fr(0), "{where_}");
                assert_eq!(
                    rejection(verify(&changed, &proof)),
                    (block_idx, Rejection::NonZeroSum),
                    "{where_}"
                );
            }
        }
    }
}

#[test]
fn an_honest_proof_fails_against_a_changed_witness() {
    let blocks = program();
    let proof = prove(&blocks).unwrap();
    for block_idx in 0..2 {
        for var in 1..blocks[block_idx].r1cs.num_vars() {
            let mut changed = blocks.clone();
            changed[block_idx].executions[1][var] -= fr(3);
            // Every block's transcript binds the digest of all executions, so the first block
            // already draws other challenges and fails, whichever block changed.
            let (idx, reason) = rejection(verify(&changed, &proof));
            assert_eq!(idx, 0, "block {block_idx} var {var}: {reason}");
        }
    }
}

#[test]
fn every_single_round_polynomial_change_is_rejected() {
    let blocks = program();
    let proof = prove(&blocks).unwrap();
    for block_idx in 0..2 {
        let n_rounds = proof.blocks[block_idx].rounds.len();
        for round in 0..n_rounds {
            for point in 0..4 {
                let mut tampered = proof.clone();
                tampered.blocks[block_idx].rounds[round][point] += fr(1);
                let (idx, reason) = rejection(verify(&blocks, &tampered));
                assert_eq!(idx, block_idx);
                // g(0), g(1) break this round's sum; g(2), g(3) change the next claim (and the
                // challenge), which the next round or the final check catches.
                let expected = if point < 2 {
                    Rejection::RoundSum { round }
                } else if round + 1 < n_rounds {
                    Rejection::RoundSum { round: round + 1 }
                } else {
                    Rejection::FinalClaim
                };
                assert_eq!(
                    reason, expected,
                    "block {block_idx} round {round} g({point})"
                );
            }
        }
    }
}

#[test]
fn claimed_sum_and_evaluation_changes_are_rejected() {
    let blocks = program();
    let proof = prove(&blocks).unwrap();

    let mut tampered = proof.clone();
    tampered.blocks[1].claimed_sum = fr(1);
    assert_eq!(
        rejection(verify(&blocks, &tampered)),
        (1, Rejection::RoundSum { round: 0 })
    );

    for which in 0..3 {
        let mut tampered = proof.clone();
        tampered.blocks[0].evals[which] += fr(1);
        assert_eq!(
            rejection(verify(&blocks, &tampered)),
            (0, Rejection::FinalClaim)
        );
    }

    let mut tampered = proof.clone();
    tampered.blocks[2].claimed_sum = fr(1);
    assert_eq!(
        rejection(verify(&blocks, &tampered)),
        (2, Rejection::UnexpectedProof)
    );

    let mut tampered = proof.clone();
    tampered.blocks[0].rounds.pop();
    assert_eq!(
        rejection(verify(&blocks, &tampered)),
        (
            0,
            Rejection::RoundCount {
                expected: 4,
                found: 3
            }
        )
    );

    let mut tampered = proof.clone();
    tampered.blocks.pop();
    assert_eq!(
        verify(&blocks, &tampered),
        Err(VerifyError::BlockCount {
            expected: 3,
            found: 2
        })
    );
}

#[test]
fn consistent_but_wrong_evaluations_are_caught_by_the_verifiers_own_evaluation() {
    // A prover that keeps the final check consistent but lies about Az(r) (scaling a and b by
    // inverse factors keeps a·b) passes every sumcheck check and fails on the evaluations.
    let blocks = program();
    let mut proof = prove(&blocks).unwrap();
    let [a, b, c] = proof.blocks[0].evals;
    let two = fr(2);
    proof.blocks[0].evals = [a * two, b * zkbc::field::inverse(&two).unwrap(), c];
    assert_eq!(
        rejection(verify(&blocks, &proof)),
        (0, Rejection::Evaluation { matrix: Matrix::A })
    );
}

#[test]
fn a_proof_does_not_transfer_to_another_statement() {
    let blocks = program();
    let proof = prove(&blocks).unwrap();
    // Same shapes and still satisfied, but a different execution: the transcript differs.
    let mut other = blocks.clone();
    other[0] = power_block(&[3, 5, 4]);
    assert!(other[0].first_unsatisfied().is_none());
    assert!(verify(&other, &proof).is_err());
    let mut renamed = blocks.clone();
    renamed[1].name = "bits2".into();
    assert!(verify(&renamed, &proof).is_err());
}

/// Replaces row `k` of `m`.
fn set_row(m: &mut zkbc::prove::SparseMatrix, k: usize, row: Vec<(usize, Fr)>) {
    let mut rows = m.to_rows();
    rows[k] = row;
    *m = rows.into();
}

#[test]
fn malformed_instances_are_errors_not_panics() {
    type Change = fn(&mut BlockInstance);
    let cases: Vec<(Change, ShapeError)> = vec![
        (
            |b| {
                let mut rows = b.r1cs.c.to_rows();
                rows.pop();
                b.r1cs.c = rows.into();
            },
            ShapeError::RowCounts { a: 3, b: 3, c: 2 },
        ),
        (
            |b| set_row(&mut b.r1cs.a, 1, vec![(3, fr(1)), (1, fr(1))]),
            ShapeError::UnsortedRow {
                matrix: Matrix::A,
                row: 1,
            },
        ),
        (
            |b| set_row(&mut b.r1cs.b, 2, vec![(1, fr(1)), (1, fr(2))]),
            ShapeError::UnsortedRow {
                matrix: Matrix::B,
                row: 2,
            },
        ),
        (
            |b| set_row(&mut b.r1cs.c, 0, vec![(5, fr(1))]),
            ShapeError::VariableOutOfRange {
                matrix: Matrix::C,
                row: 0,
                var: 5,
                num_vars: 5,
            },
        ),
        (
            |b| b.executions[1].push(fr(0)),
            ShapeError::ExecutionLength {
                execution: 1,
                expected: 5,
                found: 6,
            },
        ),
        (
            |b| b.executions[2][0] = fr(0),
            ShapeError::ConstantNotOne { execution: 2 },
        ),
    ];
    for (change, expected) in cases {
        let mut block = power_block(&[1, 2, 3]);
        change(&mut block);
        let error = InstanceError {
            block: "power".into(),
            error: expected,
        };
        assert_eq!(prove(std::slice::from_ref(&block)), Err(error.clone()));
        let proof = prove(&[power_block(&[1, 2, 3])]).unwrap();
        assert_eq!(verify(&[block], &proof), Err(VerifyError::Instance(error)));
    }
}

#[test]
fn messages_name_the_block_and_the_reason() {
    let mut blocks = program();
    blocks[1].executions[0][1] = fr(4);
    let proof = prove(&blocks).unwrap();
    let message = verify(&blocks, &proof).unwrap_err().to_string();
    assert_eq!(
        message,
        "block bits (#1) rejected: the proved sum is not zero: some execution does not satisfy \
         the constraints"
    );
}

#[test]
fn blocks_large_enough_to_split_rounds_across_tasks_prove_and_verify() {
    // 100 executions of 64 constraints: Q·X = 128·64 = 8192 cells, so the first rounds and
    // folds split into several rayon tasks (the tiny blocks above run in one); one execution
    // of 5000 constraints builds its tables in two chunks of one execution.
    let blocks = vec![
        zkbc_testkit::synthetic::block("wide", 64, 100, 5),
        zkbc_testkit::synthetic::block("tall", 1000, 3, 6),
        zkbc_testkit::synthetic::block("long", 5000, 1, 8),
    ];
    assert_eq!(total_cells(&blocks), 8192 + 4 * 1024 + 8192);
    let proof = prove(&blocks).unwrap();
    assert_eq!(verify(&blocks, &proof), Ok(()));
    for (block_idx, execution, var) in [(0, 77, 40), (2, 0, 4500)] {
        let mut changed = blocks.clone();
        changed[block_idx].executions[execution][var] += fr(1);
        let proof = prove(&changed).unwrap();
        assert_eq!(
            rejection(verify(&changed, &proof)),
            (block_idx, Rejection::NonZeroSum)
        );
    }
}
