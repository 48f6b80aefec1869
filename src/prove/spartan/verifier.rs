//! The verifier: each table's sumchecks, products and opening, then the products multiplied
//! across tables.

use super::hyrax::{self, Params};
use super::links::{block_links, final_fingerprint, pair_links, tuple_weights, Challenges, Links};
use super::{
    absorb_shape, combined_row, kappas, layout, memory, no_products, opening_challenge,
    opening_terms, statement_transcript, sumchecks, table_width, BlockProof, Points, Proof,
    Rejection, Statement, MAX_EXEC_VARS, PAIRS,
};
use crate::field::Fr;
use crate::prove::mle::{eq_eval, eq_table};
use crate::prove::transcript::Transcript;
use crate::prove::{sumcheck, BlockInstance, BlockShape};
use crate::r1cs::memory::check::time_bits;
use ark_ff::{Field, One, Zero};
use rayon::prelude::*;

/// A table's grand products as the verifier read them: the chain's two roots and the memory
/// tree's.
struct Roots {
    chain: [Fr; 2],
    memory: Option<Fr>,
}

/// Checks one table's proof: its sumchecks, products and opening.
fn verify_table(
    params: &Params,
    block: &BlockInstance,
    y: usize,
    bp: &BlockProof,
    links: &Links,
    mut t: Transcript,
) -> Result<Option<Roots>, Rejection> {
    let Some(q) = bp.log_executions else {
        return Ok(None);
    };
    let fail = |reason: String| Rejection::Block {
        block: block.name.clone(),
        reason,
    };
    let q = q as usize;
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
            "the proved sum is not zero: some execution does not satisfy the block's constraints"
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
            .map_err(|k| fail(format!("inner sumcheck round {k}: not the running claim")))?;
    t.append_fields(b"witness evaluation", &[bp.witness_eval]);
    let m = combined_row(&block.r1cs, r_x, gamma, y);
    if crate::prove::mle::evaluate(&m, &r_j) * bp.witness_eval != left {
        return Err(fail("the inner sumcheck's last claim fails".into()));
    }
    let (rho, claims) = sumchecks::verify_products(&bp.products, 2, q, &mut t)
        .map_err(|e| fail(format!("transition products: {e}")))?;
    let (rho_mem, memory_claim) = if links.memory.is_empty() {
        if bp.memory != no_products() {
            return Err(fail("a memory product for a block without accesses".into()));
        }
        (Vec::new(), None)
    } else {
        let k = links.memory.len().next_power_of_two().trailing_zeros() as usize;
        let (rho_mem, claims) = sumchecks::verify_products(&bp.memory, 1, k + q, &mut t)
            .map_err(|e| fail(format!("memory products: {e}")))?;
        (rho_mem, Some(claims[0]))
    };
    let kappa = kappas(&mut t);
    let r = links.r_chain;
    let delta = if links.public.is_some() {
        eq_eval(&rho, &vec![Fr::zero(); q])
    } else {
        Fr::zero()
    };
    // The leaves' MLEs: r·(1 − δ) + δ − y_in and r − y_out.
    let y_in = r * (Fr::one() - delta) + delta - claims[0];
    let y_out = r - claims[1];
    let mut value = bp.witness_eval + kappa[0] * y_in + kappa[1] * y_out;
    if links.public.is_some() {
        // The public tuple's value; the clock's is 0.
        value += kappa[2] * links.public_value;
    }
    if let Some(c) = memory_claim {
        // The tree's MLE is r_mem·S + (1 − S) − y_mem, S the weight of the real accesses.
        let (rho_k, _) = rho_mem.split_at(rho_mem.len() - q);
        let s: Fr = eq_table(rho_k).iter().take(links.memory.len()).sum();
        let y_mem = links.r_mem * s + Fr::one() - s - c;
        value += kappa[3] * y_mem;
    }
    let at = Points {
        r_e,
        r_j: &r_j,
        rho: &rho,
        rho_mem: &rho_mem,
    };
    let terms = opening_terms(layout.row_vars, y, &at, links, kappa);
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
    Ok(Some(Roots {
        chain: [bp.products.roots[0], bp.products.roots[1]],
        memory: memory_claim.map(|_| bp.memory.roots[0]),
    }))
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
    let pair_proof = proof.memory.as_ref().map(|m| &m.pairs);
    for (b, name) in proof
        .blocks
        .iter()
        .zip(st.blocks.iter().map(|b| &b.name[..]))
        .chain(pair_proof.map(|p| (p, PAIRS)))
    {
        match b.log_executions {
            None if *b != BlockProof::never_ran() => {
                return Err(shape(format!("block {name} never ran but has a proof")))
            }
            Some(q) if q > MAX_EXEC_VARS => {
                return Err(shape(format!("block {name}: 2^{q} executions")))
            }
            _ => {}
        }
    }
    // The memory's shape: how many entries of each kind the products hold.
    let pairs: Option<(BlockInstance, u64, u64)> = match (&st.memory, &proof.memory) {
        (None, None) => None,
        (Some(m), Some(mp)) => {
            let slots: u128 = st
                .blocks
                .iter()
                .zip(&proof.blocks)
                .zip(&m.accesses)
                .map(|((_, b), a)| b.log_executions.map_or(0, |q| (a.len() as u128) << q))
                .sum();
            let Some(q) = mp.pairs.log_executions else {
                return Err(shape("the memory's pair table is empty".into()));
            };
            let entries = u128::from(mp.accesses) + m.inits.len() as u128;
            if u128::from(mp.accesses) > slots || entries > 1u128 << q {
                return Err(shape(format!(
                    "{} memory accesses do not fit the blocks' {slots} access slots or the \
                     pair table's 2^{q} rows",
                    mp.accesses
                )));
            }
            // Zero rows: unused access slots, unused pair rows (each a leaf `r_mem`).
            let zero_slots = (slots - u128::from(mp.accesses)) as u64;
            let zero_pairs = ((1u128 << q) - entries) as u64;
            let block = BlockInstance {
                name: PAIRS.into(),
                source: None,
                state: None,
                r1cs: memory::pair_r1cs(time_bits(mp.accesses)),
                executions: Vec::new(),
            };
            Some((block, zero_slots, zero_pairs))
        }
        _ => {
            return Err(shape(
                "the proof's memory argument does not match the program's memory".into(),
            ))
        }
    };
    let (outputs, public_inputs) = public.split_at(st.num_outputs);
    let mut t = statement_transcript(&digest, public);
    absorb_shape(&mut t, &proof.blocks, proof.memory.as_ref());
    let ch = Challenges::draw(&mut t);
    // The entry's public tuple `(1, public inputs..)` (its clock is 0).
    let public_value: Fr = std::iter::once(Fr::one())
        .chain(public_inputs.iter().copied())
        .zip(tuple_weights(0..=public_inputs.len(), ch.beta, 0))
        .map(|(v, (_, w))| v * w)
        .sum();
    let clock = st.memory.is_some();
    let mut tables: Vec<(&BlockInstance, usize, &BlockProof)> = st
        .blocks
        .iter()
        .zip(&proof.blocks)
        .map(|(b, bp)| (b, table_width(b.r1cs.num_vars(), clock), bp))
        .collect();
    if let (Some((block, _, _)), Some(bp)) = (&pairs, pair_proof) {
        tables.push((block, table_width(block.r1cs.num_vars(), false), bp));
    }
    let roots: Vec<Option<Roots>> = tables
        .par_iter()
        .enumerate()
        .map(|(idx, &(block, y, bp))| {
            let mut links = if idx < st.blocks.len() {
                block_links(st, idx, &ch)
            } else {
                pair_links(&ch)
            };
            links.public_value = public_value;
            verify_table(params, block, y, bp, &links, t.fork(b"block", idx as u64))
        })
        .collect::<Result<_, _>>()?;
    let n = st.blocks.len();
    let final_clock = proof.memory.as_ref().map(|m| m.accesses);
    let (mut ins, mut outs) = (
        ch.r - final_fingerprint(outputs, ch.beta, final_clock),
        Fr::one(),
    );
    for r in roots[..n].iter().flatten() {
        ins *= r.chain[0];
        outs *= r.chain[1];
    }
    if ins != outs {
        return Err(Rejection::Transition);
    }
    if let (Some(m), Some((_, zero_slots, zero_pairs))) = (&st.memory, pairs) {
        let Some(Some(sorted)) = roots.get(n) else {
            return Err(shape("the memory's pair table is missing".into()));
        };
        let leaf = |e: &crate::r1cs::memory::MemoryEntry| {
            ch.r_mem - memory::entry_fingerprint(e, ch.beta_mem)
        };
        // The pairs chain from the first initial entry to the sentinel.
        if sorted.chain[0] * leaf(&m.sentinel()) != sorted.chain[1] * leaf(&m.inits[0]) {
            return Err(Rejection::Memory);
        }
        // The sorted entries are the initial entries and the blocks' accesses.
        let mut exec = ch.r_mem.pow([zero_pairs]);
        for e in &m.inits {
            exec *= leaf(e);
        }
        for r in roots[..n].iter().flatten() {
            exec *= r.memory.unwrap_or_else(Fr::one);
        }
        if exec != sorted.chain[0] * ch.r_mem.pow([zero_slots]) {
            return Err(Rejection::Memory);
        }
    }
    Ok(())
}
