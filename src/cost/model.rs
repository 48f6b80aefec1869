//! The cost model: from per-block counts and executions to what a data-parallel sumcheck prover
//! (CoBBl / spartan_parallel) pays.
//!
//! For each block `b` the input gives `cons_b` (constraints), `vars_b` (witness variables),
//! `io_b` (instance variables: the transition state) and `exec_b` (how often the block ran, or
//! unknown). From them:
//!
//! ```text
//! next_pow2(n) = the smallest power of two >= n        (so next_pow2(0) = 1)
//! THRESHOLD    = max(MIN_BLOCK_SIZE, next_pow2(max_b cons_b))
//! X_b          = max(2, next_pow2(cons_b))              padded_constraints
//! Q_b          = next_pow2(exec_b), or 0 if exec_b = 0  padded_executions
//!
//! blocks               = number of blocks
//! constraints          = Σ cons_b
//! executed_constraints = Σ exec_b · cons_b
//! transitions          = Σ exec_b
//! sumcheck_cells       = Σ Q_b · X_b
//! uniform_cells        = Σ Q_b · THRESHOLD
//! padding_waste        = 1 − executed_constraints / sumcheck_cells   (0 when nothing ran)
//! rounds               = ⌈log2 blocks⌉ + log2 max_b Q_b + log2 max_b X_b   (0 when nothing ran)
//! monolithic_cells     = max(2, next_pow2(C)), where C is the monolithic circuit's size; none
//!                        when no such circuit exists (a loop bound is a run-time value)
//! ```
//!
//! Without a monolithic circuit there is no number to give: `next_pow2(executed_constraints)`,
//! which an earlier version printed as a "lower bound", counts the loop control (counter
//! updates, the header's test, transition states) of every iteration, which a one-block
//! circuit would not pay, so it bounds nothing.
//!
//! The **baselines** ([`Baselines`]) are the sumcheck cells of the same program compiled by the
//! same pipeline without merging (`--no-merge`) and as one block (`--monolithic`), counted as the
//! report counts its own (on the same inputs, or statically). The model takes them as given:
//! `report::measure` compiles and runs the baselines.
//!
//! # Decisions at the edges
//!
//! - **Overflow.** Inputs are `u64`. Per-block padded sizes stay `u64` (a block with more than
//!   2^63 constraints has no `u64` power of two above it and is an error); totals are `u128`,
//!   computed with checked arithmetic, and a total that does not fit is
//!   [`CostError::Overflow`] instead of a wrapped or saturated number.
//! - **Unknown executions.** A static report (no inputs) may not know how often a block runs. If
//!   any block's executions are unknown, every total that depends on executions is `None`
//!   (`null` in JSON): `executed_constraints`, `transitions`, `sumcheck_cells`, `uniform_cells`,
//!   `padding_waste`, `rounds` (`monolithic_cells` does not depend on executions). A partial sum
//!   would read like a real number, so there is none.
//! - **Nothing executed** (every `exec_b = 0`, or no blocks): the sumcheck has no instance to
//!   prove, so `sumcheck_cells = uniform_cells = 0`, `padding_waste = 0` (no cell is padding)
//!   and `rounds = 0`.
//! - **Zero-constraint blocks** still pad to `X_b = 2`, so an execution of a block without
//!   constraints is pure padding; `padding_waste` is 1 exactly when every executed block has no
//!   constraint. It lies in `[0, 1]` always and in `[0, 1)` when some executed block has one.
//! - **`min_block_size`** is used as given (the CLI's default is 1024, CoBBl's code uses 32768);
//!   it is meant to be a power of two, but the model does not require it.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The version of the JSON schema written by [`Report`]; bump it when a field changes meaning
/// or is removed (adding a field does not change it).
pub const SCHEMA_VERSION: u32 = 2;

/// What the report is computed from: one program compiled by one pipeline, with per-block counts.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct ProgramCost {
    /// The program's name (usually its file name).
    pub program: String,
    /// The pipeline that compiled it, e.g. `O2` or `O2 --no-merge`.
    pub opt_level: String,
    /// How two non-constant field elements are compared (`complete` or `zokrates`,
    /// `--field-cmp`): it changes the constraint counts.
    pub field_cmp: String,
    /// MIN_BLOCK_SIZE of the merge threshold.
    pub min_block_size: u64,
    /// Addresses of the program's memory (arrays living in memory, `r1cs::memory`), both
    /// lists': each read-write address is one initial entry of its memory-checking instance.
    #[serde(default)]
    pub memory_size: u64,
    /// Of `memory_size`, the read-only list's addresses.
    #[serde(default)]
    pub read_only_memory_size: u64,
    /// The read-only list's public entries (its head and the elements of constant segments).
    #[serde(default)]
    pub read_only_inits: u64,
    /// Every block of the lowered program, in report order.
    pub blocks: Vec<BlockCost>,
    /// The program's outputs on the given inputs (`None` for a static report).
    pub outputs: Option<serde_json::Value>,
    /// Whether every executed block's instance was satisfied by its witness (`None` when the
    /// program was not run).
    pub satisfied: Option<bool>,
    /// Constraints of the whole program compiled as one block (`--monolithic`); `None` when some
    /// loop bound is a runtime value, so that no such circuit exists.
    pub monolithic_constraints: Option<u64>,
    /// Why there is no monolithic circuit, in words (`a loop bound is a run-time value`), when
    /// `monolithic_constraints` is `None`; `None` when it is not known why.
    pub monolithic_none: Option<String>,
    /// The cells of the `--no-merge` and `--monolithic` pipelines, when they were measured.
    pub baselines: Option<Baselines>,
}

/// What the same program costs compiled by the same pipeline without merging and as one block,
/// counted as the report counts its own cells: with inputs, exactly, on the same inputs; without
/// them, from static counts. A report that *is* one of these pipelines gives its own cells.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Baselines {
    /// Sumcheck cells of the `--no-merge` pipeline; `None` when its executions are unknown (a
    /// static report) or it could not be measured (`no_merge_none` says why).
    pub no_merge_cells: Option<u128>,
    /// Why `no_merge_cells` is `None` when that is not merely unknown executions.
    pub no_merge_none: Option<String>,
    /// Sumcheck cells of the `--monolithic` pipeline; `None` when there is no one-block circuit
    /// (`monolithic_none` says why) or its executions are unknown.
    pub monolithic_cells: Option<u128>,
    /// Why there is no `--monolithic` circuit (`a loop bound is a run-time value`), or why it
    /// could not be measured.
    pub monolithic_none: Option<String>,
}

/// The counts of one block.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BlockCost {
    /// The block's name, e.g. `b3` (or `main/b3`).
    pub label: String,
    /// The source lines its instructions come from (`bubble_sort.zok:6-9`), `null` when none is
    /// located.
    #[serde(default)]
    pub source: Option<String>,
    /// `cons_b`: R1CS constraints of the block's instance.
    pub constraints: u64,
    /// `vars_b`: witness variables of the instance.
    pub witness_vars: u64,
    /// `io_b`: instance (input/output) variables: the transition state's width.
    pub io_vars: u64,
    /// `acc_b`: memory accesses per execution (both lists).
    #[serde(default)]
    pub accesses: u64,
    /// `ro_b`: of `accesses`, those of read-only segments.
    #[serde(default)]
    pub read_only_accesses: u64,
    /// `exec_b`: how many times the block ran; `None` when unknown (static report).
    pub executions: Option<u64>,
}

/// The computed report: the inputs, the padded sizes and the totals. Its serde form is the JSON
/// schema of `docs/report.md`; fields serialize in declaration order, and `None` is `null`.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The version of zkbc that made the report.
    pub zkbc_version: String,
    /// The program's name.
    pub program: String,
    /// The pipeline that compiled it.
    pub opt_level: String,
    /// `--field-cmp`: `complete` or `zokrates`.
    pub field_cmp: String,
    /// MIN_BLOCK_SIZE.
    pub min_block_size: u64,
    /// THRESHOLD = max(MIN_BLOCK_SIZE, next_pow2(max cons_b)).
    pub threshold: u64,
    /// Addresses of the program's memory, both lists'.
    pub memory_size: u64,
    /// Of `memory_size`, the read-only list's addresses.
    #[serde(default)]
    pub read_only_memory_size: u64,
    /// The read-only list's public entries (its head and the elements of constant segments).
    #[serde(default)]
    pub read_only_inits: u64,
    /// The program's outputs, `null` when it was not run.
    pub outputs: Option<serde_json::Value>,
    /// Whether every executed block was satisfied, `null` when it was not run.
    pub satisfied: Option<bool>,
    /// One entry per block, in the input's order.
    pub blocks: Vec<BlockReport>,
    /// Sums over the blocks.
    pub totals: Totals,
    /// The `--no-merge` and `--monolithic` baselines; `None` when they were not measured.
    pub baselines: Option<Baselines>,
}

/// One block of a [`Report`].
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BlockReport {
    /// The block's name.
    pub label: String,
    /// The source lines its instructions come from (`bubble_sort.zok:6-9`), `null` when none is
    /// located.
    #[serde(default)]
    pub source: Option<String>,
    /// `cons_b`.
    pub constraints: u64,
    /// `vars_b`.
    pub witness_vars: u64,
    /// `io_b`.
    pub io_vars: u64,
    /// `acc_b`.
    pub accesses: u64,
    /// `ro_b`.
    #[serde(default)]
    pub read_only_accesses: u64,
    /// `X_b = max(2, next_pow2(cons_b))`.
    pub padded_constraints: u64,
    /// `exec_b`, `null` when unknown.
    pub executions: Option<u64>,
    /// `Q_b = next_pow2(exec_b)` (0 when the block never ran), `null` when unknown.
    pub padded_executions: Option<u64>,
    /// `Q_b · X_b`, this block's share of `sumcheck_cells`, `null` when unknown.
    pub sumcheck_cells: Option<u128>,
}

/// The totals of a [`Report`]. Fields that depend on executions are `None` when some block's
/// executions are unknown.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Totals {
    /// Number of blocks.
    pub blocks: u64,
    /// Σ cons_b.
    pub constraints: u128,
    /// Σ exec_b · cons_b.
    pub executed_constraints: Option<u128>,
    /// Σ exec_b: transition states.
    pub transitions: Option<u128>,
    /// Σ Q_b · X_b: the block instances.
    pub block_cells: Option<u128>,
    /// Σ exec_b · io_b: state words the transition permutation fingerprints (0 when the run
    /// is one block execution: it has no transition).
    pub state_words: Option<u128>,
    /// Σ Q_b · max(2, next_pow2(io_b)): the transition permutation (0 for one execution).
    pub transition_cells: Option<u128>,
    /// Σ exec_b · acc_b: memory accesses, both lists'.
    pub memory_accesses: Option<u128>,
    /// Entries of both lists' memory-checking instances: the read-write list's (its
    /// addresses and accesses, when it has an access) and `read_only_entries`.
    pub memory_entries: Option<u128>,
    /// Constraints of the read-write memory check per entry: 8 + T (the pair instance's 6 + T
    /// and two grand-product steps), 0 without a read-write access.
    pub memory_constraints_per_entry: Option<u64>,
    /// Both lists': (E − 1) · (6 + T) + 2E for the read-write list's E entries, plus
    /// `read_only_constraints`.
    pub memory_constraints: Option<u128>,
    /// Both lists': next_pow2(E − 1) · max(2, next_pow2(6 + T)) + next_pow2(2E) · 2 for the
    /// read-write list (0 without an access), plus `read_only_cells`: the pair instances and
    /// the product circuits as the prover pads them.
    pub memory_cells: Option<u128>,
    /// Σ exec_b · ro_b: accesses of read-only segments (part of `memory_accesses`).
    pub read_only_accesses: Option<u128>,
    /// read_only_inits + read_only_accesses when there is a read-only access, else 0.
    pub read_only_entries: Option<u128>,
    /// (R − 1) · 4 + 2R for the read-only list's R entries: its pair instance and products.
    pub read_only_constraints: Option<u128>,
    /// next_pow2(R − 1) · 4 + next_pow2(2R) · 2, 0 without a read-only access.
    pub read_only_cells: Option<u128>,
    /// block_cells + transition_cells + memory_cells: every instance the prover pays for.
    pub sumcheck_cells: Option<u128>,
    /// Σ Q_b · THRESHOLD.
    pub uniform_cells: Option<u128>,
    /// 1 − executed_constraints / sumcheck_cells, in [0, 1]; 0 when nothing ran.
    pub padding_waste: Option<f64>,
    /// ⌈log2 blocks⌉ + log2 max Q_b + log2 max X_b; 0 when nothing ran.
    pub rounds: Option<u32>,
    /// max(2, next_pow2(C)) of the monolithic circuit; `None` when there is no monolithic
    /// circuit (see the module doc: there is no lower bound to give).
    pub monolithic_cells: Option<u128>,
    /// Whether `monolithic_cells` is the monolithic circuit's size: `true` exactly when it is
    /// not `None` (the field stays for readers of schema 1, where `false` meant a lower bound).
    pub monolithic_exact: bool,
    /// Why there is no monolithic circuit, in words, when `monolithic_cells` is `None` and the
    /// reason is known.
    pub monolithic_none: Option<String>,
}

/// Why a report could not be computed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CostError {
    /// A count has no power of two above it in `u64` (more than 2^63).
    TooLarge {
        /// The block, or `monolithic` for the monolithic constraint count.
        label: String,
        /// Which count: `constraints` or `executions`.
        what: &'static str,
        /// The count.
        value: u64,
    },
    /// A total does not fit in `u128`.
    Overflow {
        /// The total's name in the schema.
        total: &'static str,
    },
}

impl fmt::Display for CostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CostError::TooLarge { label, what, value } => write!(
                f,
                "{label}: {what} = {value} is larger than 2^63, the largest power of two a u64 holds"
            ),
            CostError::Overflow { total } => {
                write!(f, "the total `{total}` does not fit in 128 bits")
            }
        }
    }
}

impl std::error::Error for CostError {}

/// The padding rule (`X_b`, `Q_b`): one definition, in `src/padding.rs`.
pub use crate::padding::{next_pow2, padded_constraints, padded_executions};

/// `⌈log2 n⌉` for `n >= 1`, and 0 for `n = 0`.
fn ceil_log2(n: u128) -> u32 {
    if n <= 1 {
        0
    } else {
        128 - (n - 1).leading_zeros()
    }
}

fn too_large(label: &str, what: &'static str, value: u64) -> CostError {
    CostError::TooLarge {
        label: label.to_string(),
        what,
        value,
    }
}

/// Adds `a · b` to `acc`, failing with the total's name on overflow.
fn add_product(acc: u128, a: u128, b: u128, total: &'static str) -> Result<u128, CostError> {
    a.checked_mul(b)
        .and_then(|p| acc.checked_add(p))
        .ok_or(CostError::Overflow { total })
}

impl ProgramCost {
    /// Computes the report: padded sizes per block and the totals, as the module doc defines.
    pub fn report(&self) -> Result<Report, CostError> {
        let max_cons = self.blocks.iter().map(|b| b.constraints).max().unwrap_or(0);
        let threshold = next_pow2(max_cons)
            .ok_or_else(|| too_large("max over blocks", "constraints", max_cons))?
            .max(self.min_block_size);

        let mut blocks = Vec::with_capacity(self.blocks.len());
        for b in &self.blocks {
            let x = padded_constraints(b.constraints)
                .ok_or_else(|| too_large(&b.label, "constraints", b.constraints))?;
            let q = match b.executions {
                Some(e) => {
                    Some(padded_executions(e).ok_or_else(|| too_large(&b.label, "executions", e))?)
                }
                None => None,
            };
            blocks.push(BlockReport {
                label: b.label.clone(),
                source: b.source.clone(),
                constraints: b.constraints,
                witness_vars: b.witness_vars,
                io_vars: b.io_vars,
                accesses: b.accesses,
                read_only_accesses: b.read_only_accesses,
                padded_constraints: x,
                executions: b.executions,
                padded_executions: q,
                // A u64 times a u64 always fits in a u128.
                sumcheck_cells: q.map(|q| u128::from(q) * u128::from(x)),
            });
        }

        let mut totals = totals(
            &blocks,
            threshold,
            self.monolithic_constraints,
            MemorySizes {
                read_write: self.memory_size.saturating_sub(self.read_only_memory_size),
                read_only_inits: self.read_only_inits,
            },
        )?;
        if totals.monolithic_cells.is_none() {
            totals.monolithic_none = self.monolithic_none.clone();
        }
        Ok(Report {
            schema_version: SCHEMA_VERSION,
            zkbc_version: env!("CARGO_PKG_VERSION").to_string(),
            program: self.program.clone(),
            opt_level: self.opt_level.clone(),
            field_cmp: self.field_cmp.clone(),
            min_block_size: self.min_block_size,
            threshold,
            memory_size: self.memory_size,
            read_only_memory_size: self.read_only_memory_size,
            read_only_inits: self.read_only_inits,
            outputs: self.outputs.clone(),
            satisfied: self.satisfied,
            blocks,
            totals,
            baselines: self.baselines.clone(),
        })
    }
}

/// The execution-dependent totals, computed only when every block's executions are known.
struct Executed {
    executed_constraints: u128,
    transitions: u128,
    block_cells: u128,
    state_words: u128,
    transition_cells: u128,
    /// Both lists together.
    memory: MemoryTotals,
    read_only: MemoryTotals,
    sumcheck_cells: u128,
    uniform_cells: u128,
    padding_waste: f64,
    rounds: u32,
}

/// The memory-checking instance of a run with `accesses` accesses over `size` addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryTotals {
    /// Accesses.
    pub accesses: u128,
    /// Entries: the addresses' initial entries and the accesses (0 without an access).
    pub entries: u128,
    /// Constraints per entry, 8 + T (T the bits of the largest timestamp): the pair instance's
    /// 6 + T and two grand-product steps.
    pub per_entry: u64,
    /// (entries − 1) · (6 + T) + 2 · entries.
    pub constraints: u128,
    /// next_pow2(entries − 1) · max(2, next_pow2(6 + T)) + next_pow2(2 · entries) · 2.
    pub cells: u128,
}

/// The memory-checking instances' size (see [`crate::r1cs::memory`]), as `zkbc prove` builds
/// them: every address and every access is an entry; the pair instance (`6 + T`
/// constraints) runs once per adjacent pair of the sorted entries, and the grand product (one
/// constraint, padded to 2) once per entry in each of the two orders.
pub fn memory_totals(size: u64, accesses: u128) -> MemoryTotals {
    if accesses == 0 {
        return MemoryTotals::default();
    }
    let t = crate::r1cs::memory::check::time_bits(u64::try_from(accesses).unwrap_or(u64::MAX));
    let pair = (crate::r1cs::memory::PAIR_BASE_CONSTRAINTS as u64) + u64::from(t);
    let entries = accesses.saturating_add(u128::from(size));
    let pow2 = |n: u128| n.checked_next_power_of_two().unwrap_or(u128::MAX);
    let pairs = entries - 1;
    MemoryTotals {
        accesses,
        entries,
        per_entry: pair + 2,
        constraints: pairs
            .saturating_mul(u128::from(pair))
            .saturating_add(entries.saturating_mul(2)),
        cells: pow2(pairs)
            .saturating_mul(u128::from(pair.next_power_of_two().max(2)))
            .saturating_add(pow2(entries.saturating_mul(2)).saturating_mul(2)),
    }
}

/// The read-only list's instance (see [`crate::r1cs::memory`]): `inits` public entries and
/// `accesses` accesses; its pair instance (4 constraints, no timestamp) runs once per adjacent
/// pair and its grand product once per entry in each order. `per_entry` is 6.
pub fn read_only_totals(inits: u64, accesses: u128) -> MemoryTotals {
    if accesses == 0 {
        return MemoryTotals::default();
    }
    let pair = crate::r1cs::memory::READ_ONLY_PAIR_CONSTRAINTS as u128;
    let entries = accesses.saturating_add(u128::from(inits));
    let pow2 = |n: u128| n.checked_next_power_of_two().unwrap_or(u128::MAX);
    let pairs = entries - 1;
    MemoryTotals {
        accesses,
        entries,
        per_entry: pair as u64 + 2,
        constraints: pairs
            .saturating_mul(pair)
            .saturating_add(entries.saturating_mul(2)),
        cells: pow2(pairs)
            .saturating_mul(pair.next_power_of_two().max(2))
            .saturating_add(pow2(entries.saturating_mul(2)).saturating_mul(2)),
    }
}

/// Both lists' instances: the read-write list's `memory_totals(size, accesses − ro)` and the
/// read-only list's; `per_entry` is the read-write list's.
pub fn memory_totals_split(
    sizes: MemorySizes,
    accesses: u128,
    read_only_accesses: u128,
) -> (MemoryTotals, MemoryTotals) {
    let ro = read_only_totals(sizes.read_only_inits, read_only_accesses);
    let rw = memory_totals(
        sizes.read_write,
        accesses.saturating_sub(read_only_accesses),
    );
    let both = MemoryTotals {
        accesses,
        entries: rw.entries.saturating_add(ro.entries),
        per_entry: rw.per_entry,
        constraints: rw.constraints.saturating_add(ro.constraints),
        cells: rw.cells.saturating_add(ro.cells),
    };
    (both, ro)
}

/// What the memory instances' sizes depend on besides the accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemorySizes {
    /// Addresses of the read-write list: one initial entry each.
    pub read_write: u64,
    /// Public entries of the read-only list.
    pub read_only_inits: u64,
}

/// `max(2, next_pow2(io_b))`: one block's share of the transition permutation per padded
/// execution.
pub fn padded_state(io: u64) -> u64 {
    padded_constraints(io).unwrap_or(u64::MAX)
}

fn executed_totals(
    blocks: &[BlockReport],
    threshold: u64,
    memory_size: MemorySizes,
) -> Result<Option<Executed>, CostError> {
    let mut executed_constraints = 0u128;
    let mut transitions = 0u128;
    let mut block_cells = 0u128;
    let mut state_words = 0u128;
    let mut transition_cells = 0u128;
    let mut accesses = 0u128;
    let mut read_only_accesses = 0u128;
    let mut uniform_cells = 0u128;
    let mut max_q = 0u128;
    let mut max_x = 0u128;
    for b in blocks {
        let (Some(e), Some(q)) = (b.executions, b.padded_executions) else {
            return Ok(None);
        };
        let (e, q, x, c) = (
            u128::from(e),
            u128::from(q),
            u128::from(b.padded_constraints),
            u128::from(b.constraints),
        );
        executed_constraints = add_product(executed_constraints, e, c, "executed_constraints")?;
        transitions = add_product(transitions, e, 1, "transitions")?;
        block_cells = add_product(block_cells, q, x, "block_cells")?;
        state_words = add_product(state_words, e, u128::from(b.io_vars), "state_words")?;
        transition_cells = add_product(
            transition_cells,
            q,
            u128::from(padded_state(b.io_vars)),
            "transition_cells",
        )?;
        accesses = add_product(accesses, e, u128::from(b.accesses), "memory_accesses")?;
        read_only_accesses = add_product(
            read_only_accesses,
            e,
            u128::from(b.read_only_accesses),
            "read_only_accesses",
        )?;
        uniform_cells = add_product(uniform_cells, q, u128::from(threshold), "uniform_cells")?;
        max_q = max_q.max(q);
        // Over every block, run or not: each is an instance of the proof.
        max_x = max_x.max(x);
    }
    // A run of one block execution has no transition between executions to check: its
    // input and output states are the program's inputs and outputs.
    if transitions <= 1 {
        state_words = 0;
        transition_cells = 0;
    }
    let (memory, read_only) = memory_totals_split(memory_size, accesses, read_only_accesses);
    let sumcheck_cells = block_cells
        .checked_add(transition_cells)
        .and_then(|s| s.checked_add(memory.cells))
        .ok_or(CostError::Overflow {
            total: "sumcheck_cells",
        })?;
    let (padding_waste, rounds) = if block_cells == 0 {
        (0.0, 0)
    } else {
        // (S − E) / S rather than 1 − E / S: exact 0 when nothing is padding, and never
        // negative. E <= S because exec_b <= Q_b, cons_b <= X_b, io_b <= max(2,
        // next_pow2(io_b)) and the memory's entries and constraints are padded up too.
        let work = executed_constraints + state_words + memory.constraints;
        let waste = (sumcheck_cells - work) as f64 / sumcheck_cells as f64;
        // Q and X are powers of two here, so their log2 is exact.
        let rounds =
            ceil_log2(blocks.len() as u128) + max_q.trailing_zeros() + max_x.trailing_zeros();
        (waste, rounds)
    };
    Ok(Some(Executed {
        executed_constraints,
        transitions,
        block_cells,
        state_words,
        transition_cells,
        memory,
        read_only,
        sumcheck_cells,
        uniform_cells,
        padding_waste,
        rounds,
    }))
}

fn totals(
    blocks: &[BlockReport],
    threshold: u64,
    monolithic_constraints: Option<u64>,
    memory_size: MemorySizes,
) -> Result<Totals, CostError> {
    let mut constraints = 0u128;
    for b in blocks {
        constraints = add_product(constraints, u128::from(b.constraints), 1, "constraints")?;
    }
    let executed = executed_totals(blocks, threshold, memory_size)?;
    // Exact or nothing: without a one-block circuit there is no bound to give (module doc).
    let monolithic_cells = match monolithic_constraints {
        Some(c) => Some(u128::from(
            padded_constraints(c).ok_or_else(|| too_large("monolithic", "constraints", c))?,
        )),
        None => None,
    };
    Ok(Totals {
        blocks: blocks.len() as u64,
        constraints,
        executed_constraints: executed.as_ref().map(|e| e.executed_constraints),
        transitions: executed.as_ref().map(|e| e.transitions),
        block_cells: executed.as_ref().map(|e| e.block_cells),
        state_words: executed.as_ref().map(|e| e.state_words),
        transition_cells: executed.as_ref().map(|e| e.transition_cells),
        memory_accesses: executed.as_ref().map(|e| e.memory.accesses),
        memory_entries: executed.as_ref().map(|e| e.memory.entries),
        memory_constraints_per_entry: executed.as_ref().map(|e| e.memory.per_entry),
        memory_constraints: executed.as_ref().map(|e| e.memory.constraints),
        memory_cells: executed.as_ref().map(|e| e.memory.cells),
        read_only_accesses: executed.as_ref().map(|e| e.read_only.accesses),
        read_only_entries: executed.as_ref().map(|e| e.read_only.entries),
        read_only_constraints: executed.as_ref().map(|e| e.read_only.constraints),
        read_only_cells: executed.as_ref().map(|e| e.read_only.cells),
        sumcheck_cells: executed.as_ref().map(|e| e.sumcheck_cells),
        uniform_cells: executed.as_ref().map(|e| e.uniform_cells),
        padding_waste: executed.as_ref().map(|e| e.padding_waste),
        rounds: executed.as_ref().map(|e| e.rounds),
        monolithic_cells,
        monolithic_exact: monolithic_cells.is_some(),
        monolithic_none: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_pow2_edges() {
        assert_eq!(next_pow2(0), Some(1));
        assert_eq!(next_pow2(1), Some(1));
        assert_eq!(next_pow2(3), Some(4));
        assert_eq!(next_pow2(1 << 63), Some(1 << 63));
        assert_eq!(next_pow2((1 << 63) + 1), None);
        assert_eq!(padded_constraints(0), Some(2));
        assert_eq!(padded_constraints(1), Some(2));
        assert_eq!(padded_constraints(5), Some(8));
        assert_eq!(padded_executions(0), Some(0));
        assert_eq!(padded_executions(1), Some(1));
        assert_eq!(padded_executions(6), Some(8));
    }

    #[test]
    fn ceil_log2_edges() {
        assert_eq!(ceil_log2(0), 0);
        assert_eq!(ceil_log2(1), 0);
        assert_eq!(ceil_log2(2), 1);
        assert_eq!(ceil_log2(3), 2);
        assert_eq!(ceil_log2(4), 2);
        assert_eq!(ceil_log2(5), 3);
        assert_eq!(ceil_log2(u128::MAX), 128);
    }

    #[test]
    fn the_read_only_list_has_no_timestamp_bits() {
        // 130 public entries and 65 reads: 195 entries, 194 pairs of 4 constraints and 2
        // product steps each: 776 + 390; cells 256·4 + 512·2.
        let ro = read_only_totals(130, 65);
        assert_eq!((ro.entries, ro.constraints, ro.cells), (195, 1166, 2048));
        assert_eq!(read_only_totals(130, 0), MemoryTotals::default());
        // Split: 10 read-write accesses over 64 addresses (T = 4: pairs of 10, padded to 16),
        // and those 65 read-only ones.
        let sizes = MemorySizes {
            read_write: 64,
            read_only_inits: 130,
        };
        let (both, ro) = memory_totals_split(sizes, 75, 65);
        assert_eq!(ro.cells, 2048);
        assert_eq!(both.entries, 74 + 195);
        assert_eq!(both.per_entry, 12);
        assert_eq!(both.cells, 128 * 16 + 256 * 2 + 2048);
    }
}
