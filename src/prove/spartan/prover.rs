//! The prover: every table committed, then each proved on its own fork of the transcript.

use super::hyrax;
use super::links::{
    block_links, final_fingerprint, fp, pair_links, ro_pair_links, Challenges, Links,
};
use super::relations::{self, TableShape};
use super::zk::{Channel, ItemId, Recorder, Source, TableOpening};
use super::{
    absorb_shape, combined_row, layout, links_transcript, memory, memory_constants, public_value,
    statement_transcript, sumchecks, table_width, Argument, BlockProof, MemoryProof, Proof,
    ProveError, Statement, MAX_EXEC_VARS, PAIRS, RO_PAIRS,
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

/// A table's roots as the prover holds them: openings `(value, blind)`.
struct RootOpenings {
    chain: [(Fr, Fr); 2],
    memory: Option<(Fr, Fr)>,
}

/// Proves one table: outer and inner sumchecks, chain and memory products, the opening, every
/// message committed and the relations proved ([`relations::table`]).
fn prove_table(
    params: &Params,
    table: &Table,
    committed: &(Layout, Vec<Fr>, hyrax::Committed),
    links: &Links,
    t: Transcript,
) -> (BlockProof, RootOpenings) {
    let (layout, rows, committed) = committed;
    let block = table.block;
    let y = table.y;
    let shape = block.shape();
    let q = shape.execution_vars();
    let mut rng = StdRng::from_entropy();
    let mut rec = Recorder::new(params, &mut rng, t);
    let tau: Vec<Fr> = (0..shape.rounds()).map(|_| rec.challenge(b"tau")).collect();
    let outer = sumcheck::prove_block_at(block, &shape, &tau, |_, g| {
        rec.send(b"outer round", g);
        rec.challenge(b"r")
    });
    let [az, bz, cz] = outer.proof.evals;
    rec.send_each(b"evaluations", &[az, bz, cz, az * bz]);
    let (r_e, r_x) = outer.point.split_at(q);
    let gamma = rec.challenge(b"gamma");
    let m = combined_row(&block.r1cs, r_x, gamma, y);
    let mut w = vec![Fr::zero(); y];
    for (row, weight) in rows.chunks(y).zip(eq_table(r_e)) {
        for (acc, v) in w.iter_mut().zip(row) {
            *acc += weight * v;
        }
    }
    let (_, witness_eval) = sumchecks::prove_inner(m, w, &mut rec);
    rec.send_each(b"witness evaluation", &[witness_eval]);
    let padded = shape.padded_executions;
    let mut leaves = [vec![Fr::zero(); padded], vec![Fr::zero(); padded]];
    for (e, z) in rows.chunks(y).enumerate() {
        leaves[0][e] = links.r_chain - fp(z, &links.chain[0]);
        leaves[1][e] = links.r_chain - fp(z, &links.chain[1]);
    }
    if links.public.is_some() {
        leaves[0][0] = Fr::one();
    }
    sumchecks::prove_products(&leaves, &mut rec);
    if !links.memory.is_empty() {
        let n = links.memory.len().next_power_of_two();
        let r_mem = links.r_mem;
        let mut tree = vec![Fr::one(); n * padded];
        for (k, tuple) in links.memory.iter().enumerate() {
            for (e, z) in rows.chunks(y).enumerate() {
                tree[k * padded + e] = r_mem - fp(z, tuple);
            }
        }
        sumchecks::prove_products(&[tree], &mut rec);
    }
    for _ in 0..4 {
        rec.challenge(b"kappa");
    }
    let (mut replay, mut t, sent) = rec.finish();
    replay.rows = Some(TableOpening {
        table: rows,
        cols: layout.cols(),
        blinds: &committed.blinds,
    });
    let table_shape = TableShape {
        q,
        y,
        row_vars: layout.row_vars,
    };
    let ends = relations::table(&mut replay, &block.r1cs, &table_shape, links)
        .unwrap_or_else(|e| panic!("{e}"));
    debug_assert!(
        replay.is_done(),
        "bug: the relations read fewer messages than sent"
    );
    let (muls, linear) = replay.ledger.prove(params, &mut t, &mut rng);
    let open = |id| {
        replay
            .ledger
            .opening(id)
            .expect("bug: a root the prover did not commit")
    };
    let roots = RootOpenings {
        chain: [open(ends.chain[0]), open(ends.chain[1])],
        memory: ends.memory.map(open),
    };
    let proof = BlockProof {
        log_executions: Some(q as u8),
        rows: committed.rows.clone(),
        argument: Argument {
            commitments: sent,
            muls,
            linear,
        },
    };
    (proof, roots)
}

/// Proves a global argument over the tables' roots: `roots` enter the ledger first, then
/// `send` commits the partial products, then `script` records the relations.
fn prove_links(
    params: &Params,
    t: Transcript,
    roots: &[(Fr, Fr)],
    send: impl FnOnce(&mut Recorder<StdRng>),
    script: impl FnOnce(&mut dyn Source, &[ItemId]) -> Result<(), String>,
) -> Argument {
    let mut rng = StdRng::from_entropy();
    let mut rec = Recorder::new(params, &mut rng, t);
    let ids: Vec<ItemId> = roots
        .iter()
        .map(|&(v, b)| rec.ledger.known(vec![v], b))
        .collect();
    send(&mut rec);
    let (mut replay, mut t, sent) = rec.finish();
    script(&mut replay, &ids).unwrap_or_else(|e| panic!("{e}"));
    let (muls, linear) = replay.ledger.prove(params, &mut t, &mut rng);
    Argument {
        commitments: sent,
        muls,
        linear,
    }
}

/// The partial products `v_0·v_1, v_0·v_1·v_2, …` of a product chain.
fn partials(values: &[Fr]) -> Vec<Fr> {
    let mut acc = values.first().copied().unwrap_or_else(Fr::one);
    values
        .iter()
        .skip(1)
        .map(|v| {
            acc *= v;
            acc
        })
        .collect()
}

/// Proves the statement for its blocks' executions with public values `public` (outputs,
/// then public inputs). Fails on a malformed statement; unsatisfied executions, a broken
/// chain or incoherent memory give a proof `verify` rejects.
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
    if params.len() < 4 {
        // A round polynomial of degree 3 is committed over 4 generators.
        return Err(ProveError::Params {
            needed: 4,
            have: params.len(),
        });
    }
    if public.len() != st.num_outputs + st.public_inputs.len() {
        return Err(bad(format!(
            "{} public values for {} outputs and {} public inputs",
            public.len(),
            st.num_outputs,
            st.public_inputs.len()
        )));
    }
    // The pair tables, when there is memory: the read-write list's, then the read-only
    // list's (each when the list exists), with whether it is the read-only one.
    let mut pair_tables: Vec<(BlockInstance, bool)> = Vec::new();
    let (mut accesses, mut ro_accesses) = (0u64, 0u64);
    if let Some(m) = &st.memory {
        if m.clocks.len() != st.blocks.len()
            || m.clocks
                .iter()
                .zip(&st.blocks)
                .any(|(c, b)| c.len() != b.executions.len())
        {
            return Err(bad("the memory clocks are not one per execution".into()));
        }
        if m.sorted.len() < m.inits.len() || m.ro_sorted.len() < m.ro_inits.len() {
            return Err(bad("a sorted memory list misses public entries".into()));
        }
        if !m.inits.is_empty() {
            accesses = (m.sorted.len() - m.inits.len()) as u64;
            let t_bits = time_bits(accesses);
            let block = BlockInstance {
                name: PAIRS.into(),
                source: None,
                state: None,
                r1cs: memory::pair_r1cs(t_bits),
                executions: m.pair_rows(t_bits),
            };
            pair_tables.push((block, false));
        }
        if !m.ro_inits.is_empty() {
            ro_accesses = (m.ro_sorted.len() - m.ro_inits.len()) as u64;
            let block = BlockInstance {
                name: RO_PAIRS.into(),
                source: None,
                state: None,
                r1cs: memory::ro_pair_r1cs(),
                executions: m.ro_pair_rows(),
            };
            pair_tables.push((block, true));
        }
        if pair_tables
            .iter()
            .any(|(b, _)| b.shape().execution_vars() > MAX_EXEC_VARS as usize)
        {
            return Err(bad("too many memory entries".into()));
        }
    }
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
    for (block, _) in &pair_tables {
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
    let n = st.blocks.len();
    let split_pairs = |proofs: &mut Vec<BlockProof>| {
        let mut tail = proofs.split_off(n).into_iter();
        let mut pick = |read_only: bool| match pair_tables.iter().any(|t| t.1 == read_only) {
            true => tail.next().expect("a pair table's proof"),
            false => BlockProof::never_ran(),
        };
        (pick(false), pick(true))
    };
    let memory_shell = st.memory.as_ref().map(|_| {
        let (pairs, ro_pairs) = split_pairs(&mut shells);
        MemoryProof {
            accesses,
            ro_accesses,
            pairs,
            ro_pairs,
            coherence: Argument::default(),
        }
    });
    absorb_shape(&mut t, &shells, memory_shell.as_ref());
    let ch = Challenges::draw(&mut t);
    let public_value = public_value(&public[st.num_outputs..], ch.beta);
    let parts: Vec<Option<(BlockProof, RootOpenings)>> = tables
        .par_iter()
        .zip(&committed)
        .enumerate()
        .map(|(idx, (table, committed))| {
            let committed = committed.as_ref()?;
            let mut links = match idx.checked_sub(st.blocks.len()) {
                None => block_links(st, idx, &ch),
                Some(k) if pair_tables[k].1 => ro_pair_links(&ch),
                Some(_) => pair_links(&ch),
            };
            links.public_value = public_value;
            let t = t.fork(b"block", idx as u64);
            Some(prove_table(params, table, committed, &links, t))
        })
        .collect();
    let (mut blocks, roots): (Vec<BlockProof>, Vec<Option<RootOpenings>>) = parts
        .into_iter()
        .map(|p| match p {
            Some((proof, roots)) => (proof, Some(roots)),
            None => (BlockProof::never_ran(), None),
        })
        .unzip();
    // The pair tables' proofs go in the memory argument, not among the blocks.
    let pair_proofs = memory_shell.as_ref().map(|_| split_pairs(&mut blocks));
    let lt = links_transcript(&t, &blocks);
    let (outputs, _) = public.split_at(st.num_outputs);
    let final_clock = st.memory.as_ref().map(|_| accesses);
    let last = ch.r - final_fingerprint(outputs, ch.beta, final_clock);
    let ran: Vec<&RootOpenings> = roots[..n].iter().flatten().collect();
    let chain_roots: Vec<(Fr, Fr)> = (0..2)
        .flat_map(|side| ran.iter().map(move |r| r.chain[side]))
        .collect();
    let transition = prove_links(
        params,
        lt.fork(b"transition", 0),
        &chain_roots,
        |rec| {
            let (ins, outs) = chain_roots.split_at(ran.len());
            let values = |v: &[(Fr, Fr)]| v.iter().map(|r| r.0).collect::<Vec<_>>();
            rec.send_each(b"partial products in", &partials(&values(ins)));
            rec.send_each(b"partial products out", &partials(&values(outs)));
        },
        |src, ids| {
            let (ins, outs) = ids.split_at(ids.len() / 2);
            relations::transition(src, ins, outs, last)
        },
    );
    let memory = match (memory_shell, pair_proofs, &st.memory) {
        (Some(shell), Some((pairs, ro_pairs)), Some(m)) => {
            let pair_roots: Vec<&RootOpenings> = roots[n..]
                .iter()
                .map(|r| r.as_ref().expect("a pair table ran"))
                .collect();
            let mem_roots: Vec<(Fr, Fr)> = roots[..n]
                .iter()
                .flatten()
                .filter_map(|r| r.memory)
                .collect();
            let slots: u64 = st
                .blocks
                .iter()
                .zip(&m.accesses)
                .filter(|(b, _)| !b.executions.is_empty())
                .map(|(b, a)| a.len() as u64 * b.shape().padded_executions as u64)
                .sum();
            let rows = |p: &BlockProof| p.log_executions.map_or(0, |q| 1u64 << q);
            let zero_pairs = rows(&pairs) + rows(&ro_pairs)
                - shell.accesses
                - shell.ro_accesses
                - m.inits.len() as u64
                - m.ro_inits.len() as u64;
            let constants = memory_constants(
                m,
                slots - shell.accesses - shell.ro_accesses,
                zero_pairs,
                &ch,
            );
            let k = pair_roots.len();
            let mut all: Vec<(Fr, Fr)> = pair_roots
                .iter()
                .flat_map(|r| [r.chain[0], r.chain[1]])
                .collect();
            all.extend(&mem_roots);
            let coherence = prove_links(
                params,
                lt.fork(b"memory", 0),
                &all,
                |rec| {
                    let values: Vec<Fr> = mem_roots.iter().map(|r| r.0).collect();
                    rec.send_each(b"partial memory products", &partials(&values));
                    let ins: Vec<Fr> = pair_roots.iter().map(|r| r.chain[0].0).collect();
                    rec.send_each(b"partial sorted products", &partials(&ins));
                },
                |src, ids| {
                    let pairs: Vec<[ItemId; 2]> =
                        ids[..2 * k].chunks(2).map(|c| [c[0], c[1]]).collect();
                    relations::memory(src, &pairs, &ids[2 * k..], &constants)
                },
            );
            Some(MemoryProof {
                accesses: shell.accesses,
                ro_accesses: shell.ro_accesses,
                pairs,
                ro_pairs,
                coherence,
            })
        }
        _ => None,
    };
    Ok(Proof {
        digest,
        blocks,
        transition,
        memory,
    })
}
