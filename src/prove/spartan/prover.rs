//! The prover: every table committed, then each proved on its own fork of the transcript.

use super::hyrax;
use super::links::{block_links, fp, pair_links, Challenges, Links};
use super::{
    absorb_shape, combined_row, kappas, layout, memory, no_products, opening_challenge,
    opening_terms, statement_transcript, sumchecks, table_width, BlockProof, MemoryProof, Points,
    Proof, ProveError, Statement, MAX_EXEC_VARS, PAIRS,
};
use crate::field::Fr;
use crate::prove::mle::eq_table;
use crate::prove::transcript::Transcript;
use crate::prove::{sumcheck, BlockInstance};
use crate::r1cs::memory::check::time_bits;
use ark_ff::{One, Zero};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use hyrax::{Layout, Params};
use rayon::prelude::*;

/// One committed table for the prover: a block (or the pair table), its row width and clocks.
struct Table<'a> {
    block: &'a BlockInstance,
    y: usize,
    clocks: Option<&'a [u64]>,
}

impl Table<'_> {
    /// The rows `z ++ [clock]`, padded to `y` and to a power of two of executions.
    fn rows(&self) -> Vec<Fr> {
        let y = self.y;
        let mut table = vec![Fr::zero(); self.block.shape().padded_executions * y];
        for (e, z) in self.block.executions.iter().enumerate() {
            table[e * y..e * y + z.len()].copy_from_slice(z);
            if let Some(c) = self.clocks {
                table[e * y + z.len()] = Fr::from(c[e]);
            }
        }
        table
    }
}

/// Proves one table: outer and inner sumchecks, chain and memory products, the opening.
fn prove_table(
    params: &Params,
    table: &Table,
    committed: &(Layout, Vec<Fr>, hyrax::Committed),
    links: &Links,
    mut t: Transcript,
) -> BlockProof {
    let (layout, rows, committed) = committed;
    let block = table.block;
    let y = table.y;
    let shape = block.shape();
    let q = shape.execution_vars();
    let outer = sumcheck::prove_block(block, &shape, &mut t);
    let (r_e, r_x) = outer.point.split_at(q);
    let gamma = t.challenge(b"gamma");
    let m = combined_row(&block.r1cs, r_x, gamma, y);
    let mut w = vec![Fr::zero(); y];
    for (row, weight) in rows.chunks(y).zip(eq_table(r_e)) {
        for (acc, v) in w.iter_mut().zip(row) {
            *acc += weight * v;
        }
    }
    let (inner, r_j, witness_eval) = sumchecks::prove_inner(m, w, &mut t);
    let padded = shape.padded_executions;
    let mut leaves = [vec![Fr::zero(); padded], vec![Fr::zero(); padded]];
    for (e, z) in rows.chunks(y).enumerate() {
        leaves[0][e] = links.r_chain - fp(z, &links.chain[0]);
        leaves[1][e] = links.r_chain - fp(z, &links.chain[1]);
    }
    if links.public.is_some() {
        leaves[0][0] = Fr::one();
    }
    let (products, rho, _) = sumchecks::prove_products(&leaves, &mut t);
    let (memory, rho_mem) = if links.memory.is_empty() {
        (no_products(), Vec::new())
    } else {
        let n = links.memory.len().next_power_of_two();
        let r_mem = links.r_mem;
        let mut tree = vec![Fr::one(); n * padded];
        for (k, tuple) in links.memory.iter().enumerate() {
            for (e, z) in rows.chunks(y).enumerate() {
                tree[k * padded + e] = r_mem - fp(z, tuple);
            }
        }
        let (proof, rho_mem, _) = sumchecks::prove_products(&[tree], &mut t);
        (proof, rho_mem)
    };
    let kappa = kappas(&mut t);
    let at = Points {
        r_e,
        r_j: &r_j,
        rho: &rho,
        rho_mem: &rho_mem,
    };
    let terms = opening_terms(layout.row_vars, y, &at, links, kappa);
    let opening = hyrax::open(
        params,
        *layout,
        rows,
        committed,
        &terms,
        &mut StdRng::from_entropy(),
        opening_challenge(&mut t),
    );
    BlockProof {
        log_executions: Some(q as u8),
        rows: committed.rows.clone(),
        outer: outer.proof,
        inner,
        witness_eval,
        products,
        memory,
        opening,
    }
}

/// Proves the statement for its blocks' executions with public values `public` (outputs,
/// then public inputs). Fails on a malformed statement; unsatisfied executions, a broken
/// chain or incoherent memory give a proof [`verify`] rejects.
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
    // The pair table, when there is memory.
    let pairs: Option<(BlockInstance, u64)> = match &st.memory {
        None => None,
        Some(m) => {
            if m.clocks.len() != st.blocks.len()
                || m.clocks
                    .iter()
                    .zip(&st.blocks)
                    .any(|(c, b)| c.len() != b.executions.len())
            {
                return Err(bad("the memory clocks are not one per execution".into()));
            }
            if m.sorted.len() < m.inits.len() {
                return Err(bad("the sorted memory list misses initial entries".into()));
            }
            let accesses = (m.sorted.len() - m.inits.len()) as u64;
            let t_bits = time_bits(accesses);
            let block = BlockInstance {
                name: PAIRS.into(),
                source: None,
                state: None,
                r1cs: memory::pair_r1cs(t_bits),
                executions: m.pair_rows(t_bits),
            };
            if block.shape().execution_vars() > MAX_EXEC_VARS as usize {
                return Err(bad("too many memory entries".into()));
            }
            Some((block, accesses))
        }
    };
    let clock = st.memory.is_some();
    let mut tables: Vec<Table> = st
        .blocks
        .iter()
        .enumerate()
        .map(|(b, block)| Table {
            block,
            y: table_width(block.r1cs.num_vars(), clock),
            clocks: st.memory.as_ref().map(|m| &m.clocks[b][..]),
        })
        .collect();
    if let Some((block, _)) = &pairs {
        tables.push(Table {
            block,
            y: table_width(block.r1cs.num_vars(), false),
            clocks: None,
        });
    }
    let digest = st.digest();
    let mut t = statement_transcript(&digest, public);
    // Tables and commitments.
    let committed: Vec<Option<(Layout, Vec<Fr>, hyrax::Committed)>> = tables
        .par_iter()
        .map(|table| {
            if table.block.executions.is_empty() {
                return Ok(None);
            }
            let shape = table.block.shape();
            let layout = layout(shape.execution_vars(), table.y.trailing_zeros() as usize);
            if layout.cols() > params.len() {
                return Err(ProveError::Params {
                    needed: layout.cols(),
                    have: params.len(),
                });
            }
            let rows = table.rows();
            let c = hyrax::commit(params, layout, &rows, &mut StdRng::from_entropy());
            Ok(Some((layout, rows, c)))
        })
        .collect::<Result<_, _>>()?;
    let mut shells: Vec<BlockProof> = committed
        .iter()
        .zip(&tables)
        .map(|(c, table)| match c {
            None => BlockProof::never_ran(),
            Some((_, _, c)) => BlockProof {
                log_executions: Some(table.block.shape().execution_vars() as u8),
                rows: c.rows.clone(),
                ..BlockProof::never_ran()
            },
        })
        .collect();
    let memory_shell = pairs.as_ref().map(|(_, accesses)| MemoryProof {
        accesses: *accesses,
        pairs: shells.pop().expect("the pair table"),
    });
    absorb_shape(&mut t, &shells, memory_shell.as_ref());
    let ch = Challenges::draw(&mut t);
    let parts: Vec<Option<BlockProof>> = tables
        .par_iter()
        .zip(&committed)
        .enumerate()
        .map(|(idx, (table, committed))| {
            let committed = committed.as_ref()?;
            let links = if idx < st.blocks.len() {
                block_links(st, idx, &ch)
            } else {
                pair_links(&ch)
            };
            let t = t.fork(b"block", idx as u64);
            Some(prove_table(params, table, committed, &links, t))
        })
        .collect();
    let mut blocks: Vec<BlockProof> = parts
        .into_iter()
        .map(|p| p.unwrap_or_else(BlockProof::never_ran))
        .collect();
    let memory = memory_shell.map(|m| MemoryProof {
        accesses: m.accesses,
        pairs: blocks.pop().expect("the pair table"),
    });
    Ok(Proof {
        digest,
        blocks,
        memory,
    })
}
