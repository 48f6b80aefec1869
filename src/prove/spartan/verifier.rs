//! The verifier: each table's sumchecks, products and opening, then the products multiplied
//! across tables.
//!
//! Every check of field elements is made as it comes; every group equation (the sigma
//! protocols' and the openings', [`zk::Ledger::check`]) is deferred, and all of them — every
//! table's, the transition's and the memory's — are checked at the end as one random linear
//! combination, one multi-scalar multiplication ([`zk::all_hold`]). Only when that fails are
//! they checked one by one, to say which part of the proof is wrong.

use super::hyrax::Params;
use super::links::{block_links, final_fingerprint, pair_links, ro_pair_links, Challenges, Links};
use super::relations::{self, TableShape};
use super::zk::{self, Deferred, ItemId, Reader, Source};
use super::{
    absorb_shape, layout, links_transcript, memory, memory_constants, public_value,
    statement_transcript, table_width, Argument, BlockProof, Proof, Rejection, Statement,
    MAX_EXEC_VARS, PAIRS, RO_PAIRS,
};
use crate::field::Fr;
use crate::prove::transcript::Transcript;
use crate::prove::BlockInstance;
use crate::r1cs::memory::check::time_bits;
use ark_bn254::G1Projective;
use rayon::prelude::*;

/// A table's committed grand products as the verifier read them: the chain's two roots and
/// the memory tree's.
struct Roots {
    chain: [G1Projective; 2],
    memory: Option<G1Projective>,
}

/// Checks one table's proof: its committed sumchecks, products and opening (its group equation
/// deferred).
fn verify_table(
    params: &Params,
    block: &BlockInstance,
    y: usize,
    bp: &BlockProof,
    links: &Links,
    t: Transcript,
) -> Result<Option<(Roots, Deferred)>, Rejection> {
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
    let arg = &bp.argument;
    let mut reader = Reader::new(t, &arg.commitments, &bp.rows, layout.cols());
    let shape = TableShape {
        q,
        y,
        row_vars: layout.row_vars,
    };
    let ends = relations::table(&mut reader, &block.r1cs, &shape, links).map_err(fail)?;
    if !reader.is_done() {
        return Err(fail(
            "the proof has more commitments than the protocol sends".into(),
        ));
    }
    let Reader { ledger, mut t, .. } = reader;
    let Some(deferred) = ledger.check(params, &mut t, &arg.muls, &arg.linear) else {
        return Err(table_failed(block));
    };
    let point = |id| ledger.point(id).expect("the verifier's items have points");
    let roots = Roots {
        chain: [point(ends.chain[0]), point(ends.chain[1])],
        memory: ends.memory.map(point),
    };
    Ok(Some((roots, deferred)))
}

/// Why a table's proof is rejected when its committed relations fail.
fn table_failed(block: &BlockInstance) -> Rejection {
    Rejection::Block {
        block: block.name.clone(),
        reason: "the committed sumchecks, products or opening fail (some execution does not \
                 satisfy the block's constraints, or the proof is not the prover's)"
            .into(),
    }
}

/// Checks a global argument over the tables' committed roots (entered first, in order), its
/// group equation deferred.
fn verify_links(
    params: &Params,
    t: Transcript,
    roots: &[G1Projective],
    arg: &Argument,
    script: impl FnOnce(&mut dyn Source, &[ItemId]) -> Result<(), String>,
) -> Option<Deferred> {
    let mut reader = Reader::new(t, &arg.commitments, &[], 0);
    let ids: Vec<ItemId> = roots.iter().map(|p| reader.ledger.receive(*p, 1)).collect();
    if script(&mut reader, &ids).is_err() || !reader.is_done() {
        return None;
    }
    let Reader { ledger, mut t, .. } = reader;
    ledger.check(params, &mut t, &arg.muls, &arg.linear)
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
    let pair_proofs = proof
        .memory
        .as_ref()
        .map(|m| [(&m.pairs, PAIRS), (&m.ro_pairs, RO_PAIRS)]);
    for (b, name) in proof
        .blocks
        .iter()
        .zip(st.blocks.iter().map(|b| &b.name[..]))
        .chain(pair_proofs.into_iter().flatten())
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
    // The memory's shape: how many entries of each kind the products hold, and the pair
    // tables (read-write, then read-only, each when its list exists; with whether it is the
    // read-only one).
    type PairTables<'p> = Vec<(BlockInstance, &'p BlockProof, bool)>;
    let pairs: Option<(PairTables, u64, u64)> = match (&st.memory, &proof.memory) {
        (None, None) => None,
        (Some(m), Some(mp)) => {
            let slots: u128 = st
                .blocks
                .iter()
                .zip(&proof.blocks)
                .zip(&m.accesses)
                .map(|((_, b), a)| b.log_executions.map_or(0, |q| (a.len() as u128) << q))
                .sum();
            let lists = [
                (
                    !m.inits.is_empty(),
                    &mp.pairs,
                    mp.accesses,
                    m.inits.len(),
                    false,
                ),
                (
                    !m.ro_inits.is_empty(),
                    &mp.ro_pairs,
                    mp.ro_accesses,
                    m.ro_inits.len(),
                    true,
                ),
            ];
            let mut tables = Vec::new();
            let mut zero_pairs = 0u128;
            for (exists, bp, accesses, public, read_only) in lists {
                let q = match (exists, bp.log_executions) {
                    (false, None) if accesses == 0 => continue,
                    (true, Some(q)) => q,
                    _ => return Err(shape("a memory list's pair table is missing".into())),
                };
                let entries = u128::from(accesses) + public as u128;
                if entries > 1u128 << q {
                    return Err(shape(format!(
                        "{entries} memory entries do not fit the pair table's 2^{q} rows"
                    )));
                }
                // Unused pair rows: each a leaf `r_mem`.
                zero_pairs += (1u128 << q) - entries;
                let (name, r1cs) = match read_only {
                    true => (RO_PAIRS, memory::ro_pair_r1cs()),
                    false => (PAIRS, memory::pair_r1cs(time_bits(mp.accesses))),
                };
                let block = BlockInstance {
                    name: name.into(),
                    source: None,
                    state: None,
                    r1cs,
                    executions: Vec::new(),
                };
                tables.push((block, bp, read_only));
            }
            let used = u128::from(mp.accesses) + u128::from(mp.ro_accesses);
            if used > slots {
                return Err(shape(format!(
                    "{used} memory accesses do not fit the blocks' {slots} access slots"
                )));
            }
            // Unused access slots: each a leaf `r_mem`.
            let zero_slots = (slots - used) as u64;
            Some((tables, zero_slots, zero_pairs as u64))
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
    let public_value = public_value(public_inputs, ch.beta);
    let clock = st.memory.is_some();
    let mut tables: Vec<(&BlockInstance, usize, &BlockProof)> = st
        .blocks
        .iter()
        .zip(&proof.blocks)
        .map(|(b, bp)| (b, table_width(b.r1cs.num_vars(), clock), bp))
        .collect();
    let pair_tables: &[(BlockInstance, &BlockProof, bool)] =
        pairs.as_ref().map_or(&[], |p| &p.0[..]);
    for (block, bp, _) in pair_tables {
        tables.push((block, table_width(block.r1cs.num_vars(), false), bp));
    }
    let checked: Vec<Option<(Roots, Deferred)>> = tables
        .par_iter()
        .enumerate()
        .map(|(idx, &(block, y, bp))| {
            let mut links = match idx.checked_sub(st.blocks.len()) {
                None => block_links(st, idx, &ch),
                Some(k) if pair_tables[k].2 => ro_pair_links(&ch),
                Some(_) => pair_links(&ch),
            };
            links.public_value = public_value;
            verify_table(params, block, y, bp, &links, t.fork(b"block", idx as u64))
        })
        .collect::<Result<_, _>>()?;
    let mut roots: Vec<Option<Roots>> = Vec::with_capacity(checked.len());
    let mut deferred: Vec<(Deferred, Rejection)> = Vec::with_capacity(checked.len() + 2);
    for (c, (block, _, _)) in checked.into_iter().zip(&tables) {
        match c {
            Some((r, d)) => {
                roots.push(Some(r));
                deferred.push((d, table_failed(block)));
            }
            None => roots.push(None),
        }
    }
    let n = st.blocks.len();
    let lt = links_transcript(&t, &proof.blocks);
    let final_clock = proof.memory.as_ref().map(|m| m.accesses);
    let last = ch.r - final_fingerprint(outputs, ch.beta, final_clock);
    let ran: Vec<&Roots> = roots[..n].iter().flatten().collect();
    let chain_roots: Vec<G1Projective> = (0..2)
        .flat_map(|side| ran.iter().map(move |r| r.chain[side]))
        .collect();
    let transition = verify_links(
        params,
        lt.fork(b"transition", 0),
        &chain_roots,
        &proof.transition,
        |src, ids| {
            let (ins, outs) = ids.split_at(ids.len() / 2);
            relations::transition(src, ins, outs, last)
        },
    );
    match transition {
        Some(d) => deferred.push((d, Rejection::Transition)),
        None => return Err(Rejection::Transition),
    }
    if let (Some(m), Some(mp), Some((tables, zero_slots, zero_pairs))) =
        (&st.memory, &proof.memory, &pairs)
    {
        let mut all = Vec::new();
        for k in 0..tables.len() {
            let Some(Some(sorted)) = roots.get(n + k) else {
                return Err(shape("a memory pair table is missing".into()));
            };
            all.extend(sorted.chain);
        }
        let constants = memory_constants(m, *zero_slots, *zero_pairs, &ch);
        let k = tables.len();
        all.extend(ran.iter().filter_map(|r| r.memory));
        let coherent = verify_links(
            params,
            lt.fork(b"memory", 0),
            &all,
            &mp.coherence,
            |src, ids| {
                let pairs: Vec<[ItemId; 2]> =
                    ids[..2 * k].chunks(2).map(|c| [c[0], c[1]]).collect();
                relations::memory(src, &pairs, &ids[2 * k..], &constants)
            },
        );
        match coherent {
            Some(d) => deferred.push((d, Rejection::Memory)),
            None => return Err(Rejection::Memory),
        }
    }
    let checks: Vec<&Deferred> = deferred.iter().map(|(d, _)| d).collect();
    if zk::all_hold(params, &checks, lt.fork(b"deferred", 0)) {
        return Ok(());
    }
    // Which one: the first that fails alone (one of them does, but with probability about
    // `checks/p`).
    Err(deferred
        .into_iter()
        .find_map(|(d, why)| (!d.holds(params)).then_some(why))
        .unwrap_or(Rejection::Shape(
            "the batched commitment checks fail".into(),
        )))
}
