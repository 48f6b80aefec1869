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
//!    `W_b[e·Y_b + j] = z_{b,e}[j]` (`Y_b = next_pow2(|z|)`, padded rows zero; [`hyrax`]),
//!    cut into about as many rows as columns (`layout`: a row may be part of an execution,
//!    so a block run once still has a square-root commitment).
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
//! 7. The verifier multiplies the roots: `Π_b in_b · (r − fp(1, 0, outputs)) = Π_b out_b`,
//!    and, with memory, checks the memory products (below, "Memory").
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
//! Programs whose circuit calls other functions are refused (their blocks are not main's).
//!
//! # Memory
//!
//! A program whose arrays live in memory ([`crate::r1cs::memory`]) exposes each access of a
//! block as instance wires `(addr, value[, rw])`; its segment and kind are the block's. The
//! statement adds the initial entries (one per address `0 .. size`, public: from the program)
//! and each block's accesses ([`memory::Memory`]). The construction is `r1cs::memory`'s
//! (CoBBl's coherence check, with Blum et al.'s timestamps), proved here:
//!
//! 1. **Clocks.** Every block's table gets one more column, the execution's *clock* `c` (the
//!    read-write accesses the run made before it), and the states carry it: input `(z[0], c,
//!    label, values..)`, output `(z[0], c + n_b·z[0], label, values..)` with `n_b` the block's
//!    read-write access count; the entry's execution 0 opens `c = 0` beside its public inputs and the final
//!    state is `(1, A, 0, outputs)`, `A` the run's access count (in the proof, public). Along
//!    the chain from the entry the clock is therefore the true count of earlier accesses; a
//!    cycle of satisfied executions off the chain returns to its own clock, so (with
//!    `Σ n_b < p`) none of its blocks accesses memory. The `k`-th access of an execution is
//!    the entry `(z[0], addr, seg·z[0], value, rw, c + (k+1)·z[0])`: its timestamp is its
//!    position in the run.
//! 2. **The pair table.** The prover commits the address-sorted list as a table of `size + A`
//!    rows, row `k` the pair `(e_k, e_{k+1})` (the last with the sentinel `(size, 0, 0, 1, 0)`)
//!    with `r1cs::memory`'s pair instance's variables (`6 + T` constraints, `T =
//!    time_bits(A)`), proved satisfied by the same outer and inner sumchecks as a block. Its
//!    chain tuples `(z[0], e)` and `(z[0], e')` must satisfy `{F} ∪ {e'_k} = {e_k} ∪ {L}`
//!    (a grand product of each, `F` the initial entry of address 0 and `L` the sentinel):
//!    every entry value has as many successors as predecessors except `F` and `L`, so the
//!    pairs form a path from `F` to `L` plus cycles; a pair strictly increases `(addr, ts)`
//!    (its address steps by 0 or 1, and time grows by `1 .. 2^T` at one address), so there
//!    are no cycles and the path visits each entry once, in sorted order. This is the sorted
//!    list `r1cs::memory` checks pair by pair, starting at address 0.
//! 3. **The permutation.** With challenges `r_m, β_m` drawn after every commitment, one grand
//!    product per block over its `n_b·Q_b` access entries (leaves `r_m − fp(entry)`; slots
//!    past `n_b` are 1) times the initial entries' (the verifier's own) equals the pair table's
//!    input product. Zero rows (unused executions and pair rows) give the leaf `r_m` on either
//!    side; their numbers follow from `A` and the public `Q`s, and the verifier multiplies
//!    them in. Every tuple begins with its row's `z[0]`, so rows with `z[0] ≠ 1` (padding or
//!    forgeries) can only match each other: the entries with `z[0] = 1` are the same multiset
//!    on both sides (Schwartz–Zippel over `(r_m, β_m)`, error about `entries·6/p`).
//!
//! 4. **The read-only list.** Accesses of read-only segments (the block's layout says which)
//!    are not timed: the clock counts a block's read-write accesses only, and a read-only
//!    access's tuple is `(z[0], addr, seg·z[0], value, rw·z[0], −z[0])`, the `−1` in the
//!    timestamp slot tagging the list. Its public entries (head and constant segments) are the
//!    statement's, and a second pair table holds its address-sorted entries with the read-only
//!    pair instance (4 constraints, 9 wires; sentinel `(size_ro, 0, 0, 1)`, first entry the head),
//!    its chain tuples tagged alike and chained by its own `in·leaf(L) = out·leaf(F)`. The
//!    permutation of step 3 is one equation over both lists: `initial·Π_b mem_b = in_rw·in_ro
//!    ·unused`, `initial` over both lists' public entries. No read-write entry can carry the
//!    tag (its timestamp is below `2^T` times the table's rows, far below `p − 1`), so the
//!    equation splits into the two lists' multiset equalities. The run's read-only access
//!    count is public beside `A` (it fixes the zero rows). A cycle of executions off the
//!    chain (step 1) may now hold read-only accesses: its reads must return their address's
//!    one write, which changes nothing, and a write would be a second one at its address,
//!    which the pair instance rejects.
//!
//! With 1–4 each sorted list is a permutation of its public entries and the accesses of the
//! chain's executions (read-write ones with their true timestamps), and it satisfies its pair
//! instance, so every read returns the last value written, a read-only one the one write of
//! its address (the argument of [`crate::r1cs::memory`]). A stale
//! read, a write left out, or an access moved in time changes some side of one of the
//! equations. The leaf functionals are linear in a table row, so each product ends in one more
//! opened term of the block's Hyrax opening.
//!
//! # Zero knowledge
//!
//! Every message that depends on the witness is committed ([`zk`]): each sumcheck round
//! polynomial (its values at `0..=d`), `Ãz, B̃z, C̃z` and `Ãz·B̃z`, `w̃(r_e, r_j)`, each
//! product layer's halves and their products, and the roots. What the verifier checked of the
//! clear values (steps 3–7) it now checks as relations on commitments (`relations`): linear
//! ones, proved per table by one batched dot-product sigma protocol (the Hyrax opening is one
//! of them, with its value committed), and products, by Hyrax's proof of product; the
//! transition and memory products of step 7 multiply committed roots through committed
//! partial products. Soundness is the clear protocol's plus the sigma protocols' special
//! soundness (binding under discrete logarithm).
//!
//! **Simulator.** Given the statement and the public shape (`log2 Q_b`, the access count), it
//! commits to zeros for the rows and every message (Pedersen commitments are perfectly
//! hiding, so these are distributed as real ones), draws the Fiat–Shamir challenges, and for
//! each sigma protocol picks the answers uniformly and solves the first messages from them
//! (`δ_t = Com(z_t; ζ_t) − c·C_t`, `s = Σ⟨a_t, z_t⟩ − c·y`; likewise for products), programming
//! the random oracle to give `c` there. Real answers are uniform given the challenge (each is
//! a uniform mask plus `c` times the secret), so simulated proofs are distributed as real ones:
//! the proof reveals the statement, the public values and the run's shape, nothing else.
//! Succinctness is unchanged (about the square root of each block's table up to
//! `2^(2·`[`MAX_COL_VARS`]`)` cells, plus `O(rounds)` commitments).

mod batch;
pub mod cost;
pub mod format;
pub mod hyrax;
pub mod key;
mod links;
pub mod memory;
mod prover;
mod relations;
pub mod size;
pub mod sumchecks;
mod verifier;
pub mod zk;

pub use prover::prove;
pub use verifier::verify;

use super::mle::{eq_eval, eq_table};
use super::transcript::{fr_to_bytes_le, Transcript};
use super::{BlockInstance, SparseR1cs, StateWires};
use crate::field::Fr;
use ark_bn254::G1Affine;
use ark_ff::{Field, One, Zero};
use ark_serialize::CanonicalSerialize;
use hyrax::{Layout, Term};
use links::{dense, Links};
use memory::Memory;
use sha2::{Digest, Sha256};
use std::fmt;

/// The transcript's protocol label.
const PROTOCOL: &[u8] = b"zkbc spartan blocks v3";

/// Columns of a committed row are at most `2^MAX_COL_VARS` when the table allows: past
/// `2^(2·MAX_COL_VARS)` cells a table has more rows than columns and its commitment grows
/// linearly.
pub const MAX_COL_VARS: usize = 10;

/// Executions of one block are at most `2^MAX_EXEC_VARS`.
pub const MAX_EXEC_VARS: u8 = 40;

/// The name of the memory's pair table in messages.
const PAIRS: &str = "memory.pairs";
/// The read-only pair table's name in messages.
const RO_PAIRS: &str = "memory.read_only_pairs";

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
    /// The memory, when some block accesses it.
    pub memory: Option<Memory>,
}

/// A proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The statement's digest.
    pub digest: [u8; 32],
    /// One per statement block.
    pub blocks: Vec<BlockProof>,
    /// The transition: the blocks' committed chain roots multiply to the same product.
    pub transition: Argument,
    /// The memory argument, when the statement has memory.
    pub memory: Option<MemoryProof>,
}

/// The memory argument's own part of a proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryProof {
    /// How many read-write accesses the run made (public: the final state's clock).
    pub accesses: u64,
    /// How many read-only accesses the run made (public: the read-only table's shape).
    pub ro_accesses: u64,
    /// The read-write pair table, proved as a block whose executions are the adjacent pairs of
    /// the address-sorted list; a table that never ran without a read-write list.
    pub pairs: BlockProof,
    /// The read-only pair table, likewise; a table that never ran without a read-only list.
    pub ro_pairs: BlockProof,
    /// The memory products over the tables' committed roots.
    pub coherence: Argument,
}

/// Committed messages and the proof of their relations ([`zk`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Argument {
    /// Every committed message, in the order sent.
    pub commitments: Vec<G1Affine>,
    /// One proof per product relation.
    pub muls: Vec<zk::MulProof>,
    /// The proof of the linear relations.
    pub linear: zk::LinearProof,
}

/// One block's part of a proof; all empty for a block that never ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockProof {
    /// `log2 Q_b`, or `None` when the block never ran.
    pub log_executions: Option<u8>,
    /// The Hyrax commitment: one point per row.
    pub rows: Vec<G1Affine>,
    /// The sumchecks, products and opening, committed.
    pub argument: Argument,
}

impl BlockProof {
    fn never_ran() -> BlockProof {
        BlockProof {
            log_executions: None,
            rows: Vec::new(),
            argument: Argument::default(),
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
    /// The memory products differ: the sorted pairs are not one list from address 0 to the
    /// end, or not a permutation of the initial entries and the blocks' accesses.
    Memory,
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
            Rejection::Memory => f.write_str(
                "the memory products differ: the blocks' reads and writes are not one coherent \
                 memory (a read does not return the last value written)",
            ),
        }
    }
}

impl Statement {
    /// SHA-256 over every block's name, state wires and matrices, the entry, the public input
    /// wires, the output count and the memory (initial entries, every block's accesses).
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
        match &self.memory {
            None => n(&mut h, 0),
            Some(m) => {
                n(&mut h, m.inits.len());
                for e in &m.inits {
                    h.update(fr_to_bytes_le(&e.addr));
                    n(&mut h, e.seg as usize);
                    h.update(fr_to_bytes_le(&e.value));
                }
                for list in &m.accesses {
                    n(&mut h, list.len());
                    for a in list {
                        let rw = match a.rw {
                            memory::Rw::Read => 0,
                            memory::Rw::Write => 1,
                            memory::Rw::Wire(w) => 2 + w,
                        };
                        let ro = usize::from(a.read_only);
                        for v in [a.seg as usize, a.addr, a.value, rw, ro] {
                            n(&mut h, v);
                        }
                    }
                }
                n(&mut h, m.ro_size as usize);
                n(&mut h, m.ro_inits.len());
                for e in &m.ro_inits {
                    h.update(fr_to_bytes_le(&e.addr));
                    n(&mut h, e.seg as usize);
                    h.update(fr_to_bytes_le(&e.value));
                }
            }
        }
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
        if let Some(m) = &self.memory {
            let widths: Vec<usize> = self.blocks.iter().map(|b| b.r1cs.num_vars()).collect();
            m.validate(&widths)?;
        }
        Ok(())
    }

    /// The generators a proof needs for these blocks at any number of executions: a committed
    /// row has at most `2^MAX_COL_VARS` columns whatever the table (`layout`), and a small
    /// block run often enough reaches that width, so every statement needs exactly that many.
    /// (Until 2026-11-28 this was the widest block's row: 2^20 generators and a 60 s setup
    /// for `keccak_batch`, all but 2^10 of them never used.)
    pub fn generators_needed(&self) -> usize {
        1 << MAX_COL_VARS
    }
}

/// A row of a block's table: `z`, then (with memory) the clock, padded to a power of two.
fn table_width(num_vars: usize, clock: bool) -> usize {
    (num_vars + usize::from(clock)).next_power_of_two()
}

/// The table layout of a block with `2^q` executions of `2^y` variables: about as many rows
/// as columns, and at most `2^MAX_COL_VARS` columns. The row index takes the execution's
/// variables first, then (for a block run less often than it is wide) the high variables of
/// the position in the row ([`terms_at`]).
fn layout(q: usize, y: usize) -> Layout {
    let n = q + y;
    let row_vars = (n / 2).max(n.saturating_sub(MAX_COL_VARS));
    Layout {
        row_vars,
        col_vars: n - row_vars,
    }
}

/// The functional `eq(point, e)·right[j]` over the table `(e, j)` (`point` over the
/// executions, `right` over a row) as Hyrax terms. When the rows are execution variables
/// alone it is one term; when they also take `h` high variables of `j`, it is one term per
/// nonzero `2^(y − h)`-long chunk of `right` (the tuples' functionals touch a few wires, so a
/// few chunks).
fn terms_at(point: &[Fr], row_vars: usize, right: &[Fr]) -> Vec<Term> {
    if row_vars <= point.len() {
        return vec![Term::at(point, row_vars, right)];
    }
    let high = row_vars - point.len();
    let cols = right.len() >> high;
    let eq_e = eq_table(point);
    right
        .chunks(cols)
        .enumerate()
        .filter(|(_, part)| part.iter().any(|v| !v.is_zero()))
        .map(|(h, part)| {
            let mut left = vec![Fr::zero(); eq_e.len() << high];
            for (e, w) in eq_e.iter().enumerate() {
                left[(e << high) | h] = *w;
            }
            Term {
                left,
                right: part.to_vec(),
            }
        })
        .collect()
}

/// `M(r_x, ·) = Σ_x eq(r_x, x)·(A + γB + γ²C)[x][·]`, length `y`.
fn combined_row(r1cs: &SparseR1cs, r_x: &[Fr], gamma: Fr, y: usize) -> Vec<Fr> {
    let weights = eq_table(r_x);
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

fn absorb_block(t: &mut Transcript, b: &BlockProof) {
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

fn absorb_shape(t: &mut Transcript, blocks: &[BlockProof], memory: Option<&MemoryProof>) {
    blocks.iter().for_each(|b| absorb_block(t, b));
    if let Some(m) = memory {
        t.append_u64(b"memory accesses", m.accesses);
        absorb_block(t, &m.pairs);
        t.append_u64(b"read-only memory accesses", m.ro_accesses);
        absorb_block(t, &m.ro_pairs);
    }
}

/// Where a table's products ended: the chain's leaves at `rho`, the memory tree's at
/// `rho_mem` (its first `rho_mem.len() − q` coordinates select the access).
struct Points<'a> {
    r_e: &'a [Fr],
    r_j: &'a [Fr],
    rho: &'a [Fr],
    rho_mem: &'a [Fr],
}

/// The transcript of the arguments across tables: bound to every table's commitments.
fn links_transcript(t: &Transcript, blocks: &[BlockProof]) -> Transcript {
    let mut lt = t.fork(b"links", 0);
    for b in blocks {
        zk::absorb_points(&mut lt, b"table", &b.argument.commitments);
    }
    lt
}

/// The entry's public tuple `(1, public inputs..)` as a fingerprint (its clock is 0).
fn public_value(public_inputs: &[Fr], beta: Fr) -> Fr {
    std::iter::once(Fr::one())
        .chain(public_inputs.iter().copied())
        .zip(links::tuple_weights(0..=public_inputs.len(), beta, 0))
        .map(|(v, (_, w))| v * w)
        .sum()
}

/// The memory argument's public weights, given the zero access slots (executions padded,
/// or accesses of a block's padding) and zero pair rows (each a leaf `r_mem`).
fn memory_constants(
    m: &Memory,
    zero_slots: u64,
    zero_pairs: u64,
    ch: &links::Challenges,
) -> relations::MemoryConstants {
    let leaf =
        |e: &crate::r1cs::memory::MemoryEntry| ch.r_mem - memory::entry_fingerprint(e, ch.beta_mem);
    let ro_leaf = |e: &crate::r1cs::memory::MemoryEntry| {
        ch.r_mem - memory::ro_entry_fingerprint(e, ch.beta_mem)
    };
    let mut initial = ch.r_mem.pow([zero_pairs]);
    for e in &m.inits {
        initial *= leaf(e);
    }
    for e in &m.ro_inits {
        initial *= ro_leaf(e);
    }
    let mut ends = Vec::new();
    if let Some(first) = m.inits.first() {
        ends.push((leaf(&m.sentinel()), leaf(first)));
    }
    if let Some(head) = m.ro_inits.first() {
        ends.push((ro_leaf(&m.ro_sentinel()), ro_leaf(head)));
    }
    relations::MemoryConstants {
        initial,
        unused: ch.r_mem.pow([zero_slots]),
        ends,
    }
}

/// The terms of a table's opening, `κ`-combined: the witness evaluation at `(r_e, r_j)`, the
/// chain's two leaf functionals at `ρ`, for the entry the public tuple at execution 0 (and its
/// input tuple there taken out of the chain), and the memory tuples at `ρ_mem`.
fn opening_terms(
    row_vars: usize,
    y: usize,
    at: &Points,
    links: &Links,
    kappa: [Fr; 4],
) -> Vec<Term> {
    // `eq(r_e)⊗eq(r_j)` is the tensor `eq((r_e, r_j))`, one term whatever the rows are.
    let witness_point: Vec<Fr> = at.r_e.iter().chain(at.r_j).copied().collect();
    let mut terms = vec![Term::at(&witness_point, row_vars, &[Fr::one()])];
    let mut states = vec![Fr::zero(); y];
    dense(&links.chain[0], y, kappa[0], &mut states);
    dense(&links.chain[1], y, kappa[1], &mut states);
    terms.extend(terms_at(at.rho, row_vars, &states));
    if let Some(public) = &links.public {
        // The entry's execution 0 is left out of the input tree: subtract its input tuple
        // (weighted as in `eq(ρ, ·)`) and check its public tuple.
        let zero = vec![Fr::zero(); at.rho.len()];
        let delta = eq_eval(at.rho, &zero);
        let mut first = vec![Fr::zero(); y];
        dense(&links.chain[0], y, -kappa[0] * delta, &mut first);
        dense(public, y, kappa[2], &mut first);
        terms.extend(terms_at(&zero, row_vars, &first));
    }
    if !links.memory.is_empty() {
        let (rho_k, rho_e) = at.rho_mem.split_at(at.rho_mem.len() - at.r_e.len());
        let mut accesses = vec![Fr::zero(); y];
        for (tuple, w) in links.memory.iter().zip(eq_table(rho_k)) {
            dense(tuple, y, kappa[3] * w, &mut accesses);
        }
        terms.extend(terms_at(rho_e, row_vars, &accesses));
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Σ_t ⟨L_t ⊗ R_t, W⟩` over a table of `2^q` rows of `y` values laid out by [`layout`].
    fn apply(terms: &[Term], table: &[Fr], cols: usize) -> Fr {
        terms
            .iter()
            .map(|t| {
                let mut acc = Fr::zero();
                for (i, l) in t.left.iter().enumerate() {
                    for (k, r) in t.right.iter().enumerate() {
                        acc += *l * r * table[i * cols + k];
                    }
                }
                acc
            })
            .sum()
    }

    #[test]
    fn no_layout_is_wider_than_the_generators_a_statement_needs() {
        let needed = Statement::default().generators_needed();
        for q in 0..=MAX_EXEC_VARS as usize {
            for y in 0..=30 {
                let l = layout(q, y);
                assert_eq!(l.row_vars + l.col_vars, q + y);
                assert!(l.cols() <= needed, "q {q}, y {y}: {} columns", l.cols());
            }
        }
        assert_eq!(
            layout(12, 8).cols(),
            needed,
            "a run-often block reaches the width"
        );
    }

    #[test]
    fn a_functional_opens_the_same_whether_rows_hold_executions_or_parts_of_one() {
        let fr = |v: u64| Fr::from(v);
        for (q, y) in [(0usize, 6usize), (1, 6), (3, 2), (2, 12)] {
            let table: Vec<Fr> = (0..1u64 << (q + y)).map(|v| fr(v * v + 3)).collect();
            let point: Vec<Fr> = (0..q as u64).map(|v| fr(5 * v + 2)).collect();
            // A sparse functional: the first wires and one near the end (a clock).
            let mut right = vec![Fr::zero(); 1 << y];
            right[0] = fr(1);
            right[1] = fr(7);
            right[(1 << y) - 2] = fr(11);
            let expected: Fr = eq_table(&point)
                .iter()
                .enumerate()
                .map(|(e, w)| {
                    let row = &table[e << y..(e + 1) << y];
                    *w * row.iter().zip(&right).map(|(a, b)| *a * b).sum::<Fr>()
                })
                .sum();
            let l = layout(q, y);
            let terms = terms_at(&point, l.row_vars, &right);
            assert_eq!(apply(&terms, &table, l.cols()), expected, "q {q}, y {y}");
            assert!(terms.len() <= 2, "q {q}, y {y}: {} terms", terms.len());
        }
    }
}
