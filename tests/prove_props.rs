//! Property tests over random small instances (the synthetic generator with random sizes and
//! seeds): the verifier accepts exactly the satisfied executions, and rejects any single change
//! to a round polynomial or to the claimed sum.

use proptest::prelude::*;
use zkbc::field::Fr;
use zkbc::prove::{prove, verify, BlockInstance, Rejection, VerifyError};
use zkbc_testkit::synthetic;

/// One to three blocks of 1..=12 constraints and 0..=6 executions.
fn blocks() -> impl Strategy<Value = Vec<BlockInstance>> {
    prop::collection::vec((1usize..=12, 0usize..=6, any::<u64>()), 1..=3).prop_map(|specs| {
        specs
            .into_iter()
            .enumerate()
            .map(|(i, (m, q, seed))| synthetic::block(&format!("b{i}"), m, q, seed))
            .collect()
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn honest_proofs_verify(blocks in blocks()) {
        let proof = prove(&blocks).unwrap();
        prop_assert_eq!(verify(&blocks, &proof), Ok(()));
    }

    /// Changing one assigned value: the verifier accepts the honest prover's proof iff the
    /// changed executions still satisfy the constraints (a boolean may flip to the other bit).
    #[test]
    fn verifier_accepts_exactly_the_satisfied_witnesses(
        blocks in blocks(),
        pick in any::<(usize, usize, usize)>(),
        delta in 1u64..1000,
    ) {
        let (block_pick, execution_pick, var_pick) = pick;
        let block_idx = block_pick % blocks.len();
        let block = &blocks[block_idx];
        prop_assume!(!block.executions.is_empty());
        let execution = execution_pick % block.executions.len();
        let var = 1 + var_pick % (block.r1cs.num_vars() - 1);
        let mut changed = blocks.clone();
        changed[block_idx].executions[execution][var] += Fr::from(delta);
        let proof = prove(&changed).unwrap();
        let verdict = verify(&changed, &proof);
        if changed[block_idx].first_unsatisfied().is_none() {
            prop_assert_eq!(verdict, Ok(()));
        } else {
            prop_assert_eq!(
                verdict,
                Err(VerifyError::Block {
                    block_idx,
                    name: block.name.clone(),
                    reason: Rejection::NonZeroSum,
                })
            );
        }
    }

    #[test]
    fn any_round_or_claim_change_is_rejected(
        blocks in blocks(),
        pick in any::<(usize, usize, usize)>(),
        delta in 1u64..1000,
    ) {
        let proof = prove(&blocks).unwrap();
        let (block_pick, round_pick, point) = pick;
        let block_idx = block_pick % blocks.len();
        prop_assume!(!proof.blocks[block_idx].rounds.is_empty());
        let round = round_pick % proof.blocks[block_idx].rounds.len();

        let mut tampered = proof.clone();
        tampered.blocks[block_idx].rounds[round][point % 4] += Fr::from(delta);
        let is_block_rejection = matches!(
            verify(&blocks, &tampered),
            Err(VerifyError::Block { block_idx: idx, .. }) if idx == block_idx
        );
        prop_assert!(is_block_rejection);

        let mut tampered = proof.clone();
        tampered.blocks[block_idx].claimed_sum += Fr::from(delta);
        prop_assert_eq!(
            verify(&blocks, &tampered),
            Err(VerifyError::Block {
                block_idx,
                name: blocks[block_idx].name.clone(),
                reason: Rejection::RoundSum { round: 0 },
            })
        );
    }
}
