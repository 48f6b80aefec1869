//! A proof's size in bytes from the statement and the run's shape alone: each block's
//! executions (padded to a power of two: `log2 Q_b`) and the memory's access count, which the
//! proof makes public anyway. `zkbc report --predict-prover` prints it beside the predicted
//! prover time.
//!
//! The count walks the verifier's own script (`relations`) over a [`Source`] that hands out
//! placeholder commitments and counts them, so the messages counted are the ones the verifier
//! reads, by construction; the bytes per message are the format's ([`super::format`]: a
//! point 64 bytes, a field element 32, a list's length 4). It is exact for a statement and a
//! shape: the only freedom of a real proof is in values, not lengths.

use super::format::HEADER_LEN;
use super::links::{block_links, pair_links, ro_pair_links, Challenges};
use super::relations::{self, MemoryConstants, TableShape};
use super::zk::{ItemId, Ledger, Source};
use super::{layout, memory, table_width, Statement, MAX_EXEC_VARS};
use crate::field::Fr;
use crate::prove::transcript::Transcript;
use crate::prove::SparseR1cs;
use crate::r1cs::memory::check::time_bits;
use ark_bn254::G1Projective;
use ark_ff::Zero;

const POINT: usize = 64;
const FIELD: usize = 32;
const LEN: usize = 4;
/// A product proof: 3 points and 5 field elements.
const MUL: usize = 3 * POINT + 5 * FIELD;

/// Hands out placeholder items and counts the committed ones.
struct Counter {
    ledger: Ledger,
    t: Transcript,
    commitments: usize,
    cols: usize,
}

impl Counter {
    fn new(cols: usize) -> Counter {
        Counter {
            ledger: Ledger::default(),
            t: Transcript::new(b"zkbc proof size"),
            commitments: 0,
            cols,
        }
    }

    /// An argument's bytes: its commitments, product proofs and linear proof.
    fn argument_bytes(&self) -> usize {
        let (lens, products) = self.ledger.shape();
        let n = lens.len();
        let answers: usize = lens.iter().map(|l| LEN + FIELD * l).sum();
        (LEN + POINT * self.commitments)
            + (LEN + MUL * products)
            + (LEN + POINT * n)
            + FIELD
            + (LEN + answers)
            + (LEN + FIELD * n)
    }
}

impl Source for Counter {
    fn ledger(&mut self) -> &mut Ledger {
        &mut self.ledger
    }
    fn items(&mut self, _: &'static [u8], n: usize, len: usize) -> Result<Vec<ItemId>, String> {
        self.commitments += n;
        Ok((0..n)
            .map(|_| self.ledger.receive(G1Projective::zero(), len))
            .collect())
    }
    fn challenge(&mut self, label: &'static [u8]) -> Fr {
        self.t.challenge(label)
    }
    fn rows(&mut self, left: &[Fr]) -> ItemId {
        self.ledger.receive_rows(left.to_vec(), self.cols)
    }
}

/// One table's bytes in a proof (`log2 Q` of 255 and nothing else for a block that never
/// ran) and whether it has a memory root.
fn table_bytes(
    r1cs: &SparseR1cs,
    y: usize,
    q: Option<u8>,
    links: &super::links::Links,
) -> Result<Option<(usize, bool)>, String> {
    let Some(q) = q else {
        return Ok(None);
    };
    let q = q as usize;
    let layout = layout(q, y.trailing_zeros() as usize);
    let mut c = Counter::new(layout.cols());
    let shape = TableShape {
        q,
        y,
        row_vars: layout.row_vars,
    };
    let ends = relations::table(&mut c, r1cs, &shape, links)?;
    let bytes = 1 + LEN + POINT * layout.rows() + c.argument_bytes();
    Ok(Some((bytes, ends.memory.is_some())))
}

/// A global argument's bytes over `roots` committed roots.
fn links_bytes(
    roots: usize,
    script: impl FnOnce(&mut dyn Source, &[ItemId]) -> Result<(), String>,
) -> Result<usize, String> {
    let mut c = Counter::new(0);
    let ids: Vec<ItemId> = (0..roots)
        .map(|_| c.ledger.receive(G1Projective::zero(), 1))
        .collect();
    script(&mut c, &ids)?;
    Ok(c.argument_bytes())
}

/// The bytes of a proof of `st` whose blocks ran `executions[b]` times each (0: never) and,
/// with memory, made `accesses` memory accesses (read-write, read-only). Errors when the shape is not one a proof can
/// have (a count past `2^MAX_EXEC_VARS`, the entry never ran, memory counts without memory).
pub fn proof_bytes(
    st: &Statement,
    executions: &[u64],
    accesses: Option<(u64, u64)>,
) -> Result<usize, String> {
    st.validate()?;
    if executions.len() != st.blocks.len() {
        return Err("one execution count per block".into());
    }
    if executions.get(st.entry) == Some(&0) {
        return Err("the entry block never ran".into());
    }
    let log = |n: u64| -> Result<Option<u8>, String> {
        if n == 0 {
            return Ok(None);
        }
        let q = 64 - (n - 1).leading_zeros();
        if q > u32::from(MAX_EXEC_VARS) {
            return Err(format!("{n} executions of one table"));
        }
        Ok(Some(q as u8))
    };
    let ch = Challenges::draw(&mut Transcript::new(b"zkbc proof size"));
    let clock = st.memory.is_some();
    let mut bytes = HEADER_LEN + LEN;
    let (mut ran, mut memory_roots) = (0usize, 0usize);
    for (idx, (block, &n)) in st.blocks.iter().zip(executions).enumerate() {
        let links = block_links(st, idx, &ch);
        let y = table_width(block.r1cs.num_vars(), clock);
        match table_bytes(&block.r1cs, y, log(n)?, &links)? {
            None => bytes += 1,
            Some((b, memory_root)) => {
                bytes += b;
                ran += 1;
                memory_roots += usize::from(memory_root);
            }
        }
    }
    bytes += links_bytes(2 * ran, |src, ids| {
        let (ins, outs) = ids.split_at(ids.len() / 2);
        relations::transition(src, ins, outs, Fr::from(2u64))
    })?;
    bytes += 1;
    match (&st.memory, accesses) {
        (None, None) => {}
        (Some(m), Some((a, a_ro))) => {
            // Each list's pair table when the list exists (a table that never ran otherwise:
            // one byte), after its access count.
            let lists = [
                (
                    m.inits.len(),
                    a,
                    memory::pair_r1cs(time_bits(a)),
                    pair_links(&ch),
                ),
                (
                    m.ro_inits.len(),
                    a_ro,
                    memory::ro_pair_r1cs(),
                    ro_pair_links(&ch),
                ),
            ];
            let mut tables = 0;
            for (public, accesses, r1cs, links) in lists {
                bytes += 8;
                if public == 0 {
                    bytes += 1;
                    continue;
                }
                let y = table_width(r1cs.num_vars(), false);
                let entries = public as u64 + accesses;
                let (pair, _) = table_bytes(&r1cs, y, log(entries)?, &links)?
                    .ok_or("a memory without entries")?;
                bytes += pair;
                tables += 1;
            }
            let one = Fr::from(1u64);
            let constants = MemoryConstants {
                initial: one,
                unused: one,
                ends: vec![(one, one); tables],
            };
            bytes += links_bytes(2 * tables + memory_roots, |src, ids| {
                let pairs: Vec<[ItemId; 2]> =
                    ids[..2 * tables].chunks(2).map(|c| [c[0], c[1]]).collect();
                relations::memory(src, &pairs, &ids[2 * tables..], &constants)
            })?;
        }
        (None, Some(_)) => return Err("memory accesses of a program without memory".into()),
        (Some(_), None) => return Err("a program with memory needs its access count".into()),
    }
    Ok(bytes)
}
