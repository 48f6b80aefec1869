//! Per-block R1CS over BN254: every basic block of the (optimized) IR becomes its own
//! rank-1 constraint system instance, as a block-based (CoBBl / Spartan-style) prover needs.
//!
//! # Pipeline
//!
//! 1. [`lower_block`] runs the block's instructions through the gadgets of [`gadgets`] in
//!    *structure* mode: the constraints are recorded as sorted sparse linear combinations in flat
//!    arenas (never ark-relations' chained `new_lc`).
//! 2. Linear elimination ([`eliminate`]) substitutes every linear constraint away, pivoting only on
//!    witness variables, removes dead constraints (`dead.rs`: a constraint whose witness nothing
//!    else mentions, solvable for it whatever the rest), then renumbers.
//! 3. [`BlockR1cs::assign`] re-runs the same lowering in *witness* mode on an input state and
//!    returns every variable's value (the reference). [`check_trace`] lowers each executed
//!    block once more in *recording* mode, which keeps every variable's recipe as the
//!    block's [`Tape`], assigns every execution of an interpreter trace by running the tape,
//!    and evaluates every row on it, naming the first that fails; [`check_trace_with`] and
//!    [`Checker::Ark`] emit the instance into an ark-relations `gr1cs` constraint system
//!    instead and ask `which_is_unsatisfied` (an independent cross-check).
//! 4. [`stats`] lowers every block of a program in parallel (rayon; each task builds its own
//!    system, nothing crosses threads but plain numbers); [`stats_sequential`] is the reference.
//!
//! # Storage
//!
//! A block's constraints live in flat arenas of packed terms: a term is a variable (`u32`) and
//! the index (`u32`) of its coefficient in the block's table of distinct coefficients (1 and −1
//! first), 8 bytes instead of the 40 of `(u32, Fr)`; coefficients repeat a lot (±1, powers of 2).
//! The product cache keys a product of two single variables by the two integers, so hashing
//! never touches a field element on the common path. Elimination reads the arenas in place and
//! rewrites only the constraints that mention an eliminated variable. On the 10^6-constraint
//! bench block (`benches/r1cs.rs`) this peaks at about 170 bytes per constraint; the numbers are
//! in `docs/performance.md`.
//!
//! # Layout: per-block exact transition state
//!
//! The instance variables of a block are exactly its transition state:
//!
//! ```text
//! [1, in_label, params.., live_ins.., accesses.., out_label, out..]
//! ```
//!
//! * `in_label` is the block's own label (`bN` is `N + 1`, see [`block_label`]), checked by one
//!   constraint; `params` are its parameters flattened to scalar leaves (arrays in index order,
//!   nested arrays depth first); `live_ins` are values of dominating blocks the block (or a
//!   later block) uses without receiving them as parameters — empty for IR that passes all
//!   live values as block parameters.
//! * `accesses` are the block's reads and writes of arrays that live in memory (see
//!   [`memory`]): `(addr, value)` each, and `rw` for a guarded write, in execution order. Arrays
//!   in memory are never part of `params`, `live_ins` or `out`.
//! * `out_label` is the next block's label, or 0 ([`return_label`]) for `return`; `out` is the
//!   target's arguments then its live-ins, or the returned values. For `br` every position is a
//!   `select` on the condition between the two targets' leaves, the shorter padded with 0.
//!
//! We chose exact per-block widths over CoBBl's single fixed-width register file: the width of
//! each block's state (`io_b` in the report) is then a measured quantity, a block does not pay for
//! registers it never touches, and padding to a uniform register file is a choice the report's
//! cost model can still make (it is `max_b io_b`). The price is that the transition check between
//! blocks compares states of different widths, which a prover built on this would pad.
//!
//! Everything else — bits, products, inverses, quotients — is witness.
//!
//! # Soundness rules
//!
//! * Every value a block outputs is uniquely determined by its input state: each witness is
//!   forced by some constraint (bits by booleanity and a linear relation, products by their
//!   product constraint, inverses by `x · inv = 1` where they matter). Tests change each output
//!   leaf and each asserted value and require the instance to become unsatisfied.
//! * `uN` and `u1` values entering a block through parameters were range-checked where they
//!   were produced (every `uN` output leaf is normalized), **except** `main`'s entry block: its
//!   inputs come from the prover, so that block range-checks each `uN` leaf (N booleans; a `u1`
//!   costs 1) — otherwise a prover could pass 2^40 as a `u32`.
//! * **Hints are the exception, by contract.** A `hint` (an `asm` block's `x <-- e`) is a free
//!   witness: its value comes from the interpreter's trace (`TraceEntry::hints`,
//!   [`BlockR1cs::assign_with_hints`]) and no constraint computes it (a `uN`/`u1` hint is only
//!   range-checked). Whatever binds it is the `asm` author's own `===` constraints, exactly as
//!   in ZoKrates: a program whose constraints do not determine a hint that reaches an output is
//!   under-constrained, and `zkbc check --soundness` reports it (the tests assert that it
//!   does). A function that only runs as a hint is not part of the circuit.
//! * Failure is path-sensitive: a block's constraints are satisfiable exactly when the block,
//!   run from its input state, passes its assertions, divides by nonzero values, indexes in
//!   bounds, converts values that fit, and produces the output state. A block that is not
//!   executed is not proven, so an assertion in a branch not taken cannot fail — unlike ZoKrates,
//!   which evaluates both sides of a conditional. Gadgets that can fail take an optional guard
//!   (see [`gadgets`]) for the predicated code that block merging will produce.
//!
//! # Cost of each gadget
//!
//! Counts are after linear elimination, for non-constant operands; `N` is the integer width.
//! `uN` values are reduced lazily: a `uN` wire is any combination congruent to the value mod 2^N
//! with a known bound of `m ≤ 253` bits; it is *normalized* (m booleans, low N bits kept) only
//! where the exact value matters.
//!
//! | operation | constraints |
//! |---|---|
//! | field `add`, `sub`, `mul`/`div` by a constant, `make_array`, `from_bits`, `not`, constant-index `array_get`/`array_set`, casts to `field` | 0 |
//! | field `mul` of two non-constants | 1 |
//! | field `div` | 2 (`q·b = a`, `b·inv = 1`); 1 when `a` is a nonzero constant |
//! | boolean check | 1 (0 more when `x · (x − 1)` was already a product: `p = 0`) |
//! | `select` | 1 per scalar leaf (0 when the arms differ by a constant) |
//! | `eq` as a value | 2 (inverse hint; 0 when `a == b` or `b == a` was built before in the block); on `u1`: 1 |
//! | `assert c` | 0 (linear, eliminated) |
//! | `assert` of an `eq` used only there | 0 (`a = b`, eliminated) |
//! | `assert` of a `u1` `and` tree used only there | 0 for the `and`s: its boolean leaves are asserted as one sum `Σ b_j = k` |
//! | field `mul` of two combinations already multiplied in the block | 0 (the product is reused) |
//! | `uN` range check (main's inputs, checked casts) | N |
//! | `uN` `add` / `sub` | 0 at the operation; normalizing the result costs the bits of its exact bound, ⌈log2(max + 1)⌉ with `max` the sum of the operands' bounds (N + 1 for two normalized operands; 35, not 36, for five `u32`s) |
//! | normalizing a combination already normalized in the block | 0 (the bits are kept) |
//! | `uN` `mul` | 1, normalizing the result costs 2N |
//! | `u1` `and`, `or`, `xor`, `add`, `sub`, `mul`, `lt`, `le` | 1 |
//! | `uN` `lt` / `le` | N + 1; m + 1 when both operands are known below 2^m (a remainder by a constant `c` is below `c`) |
//! | `assert` of a `uN` `lt` / `le` used only there | N (`b - a - [lt]` as N bits); against a constant `c` (`x ≤ c`, or `x < c + 1`) of k bits: k, and when `x`'s bits are known its bits from k up are asserted 0, which frees their booleanity checks |
//! | `assert` of a `u1` `or` tree of `eq`s and booleans used only there | k − 1 for k operands (`Π (a_j − b_j) = 0`, a boolean `x` as `1 − x`, an `eq` whose flag exists as `1 − z`); 0 when two of them are a boolean and its negation |
//! | `u1` `and` / `or` / `xor` of `x` with `x` or with `!x` | 0 |
//! | field `lt` / `le`, both known below 2^m, m ≤ 252 | m + 1 |
//! | field `lt` / `le`, complete over [0, p) | 2 · 384 + 131 = 899 |
//! | `bound a, k` | k (a's bits; unsatisfiable when a ≥ 2^k); 0 when a is known below 2^k |
//! | field `lt` / `le` with `--field-cmp zokrates` (two `bound _, 252`, then the bounded form) | 252 + 252 + 253 = 757 |
//! | field `lt` / `le` against a constant `c < 2^k`, k ≤ 126 | 384 + k + 4; other constants 384 + 131 |
//! | canonical bits of a combination already decomposed in the block | 0 (kept) |
//! | `uN` `and` / `or` / `xor` | N, plus N per operand whose bits are not yet known; each result bit of `or` / `xor` is one variable (`(−2x)·y = r − x − y`), so chains of them keep short rows; 0 per bit whose product `x·y` was built before |
//! | a constraint defining a witness nothing else mentions (the bits of a value the block never reads) | 0 (removed after elimination, see `dead.rs`) |
//! | choice `(x & y) ^ (!x & z)` (or `\|`), the `and`s used only there | N (`z + x·(y − z)` per bit) |
//! | majority `(a & b) ^ (a & c) ^ (b & c)`, the `and`s and inner `xor` used only there | 2N (`p + c·(a + b − 2p)`, `p = a·b`); N when the product of one of its pairs was built by an earlier majority (SHA-256's `b & c` is the previous round's `a & b`) |
//! | `to_bits` of a `uN` | N (0 when the bits are known; they are kept) |
//! | `to_bits` of a field element | 384: 254 booleans + 130 for the canonical check `< p` |
//! | `shl` / `shr` by a constant | 0 given the bits (else N for them) |
//! | `shl` by a variable `uM` | M (its bits) + (log2 N − 1) + 3 + 1; the result normalizes in 2N − 1 |
//! | `shr` by a variable | N + `shl` + 2N − 1 (bit reversal around `shl`) |
//! | `udiv` / `urem` (one gadget for both) | 3N + 1 |
//! | checked `cast` field → `uN` | N (0 when known to fit) |
//! | checked `cast` `uN` → `uM`, M < N | M; 0 when the bits are known (the high ones must be 0) |
//! | `trunc` to `uM` | the operand's bound m (0 when it fits or its bits are known); field: 384 |
//! | dynamic `array_get` / `array_set` on n elements of k leaves | n + n·k (selectors `e_j·(i − j) = 0`, `Σ e_j = 1`) |
//! | `hint` | 0 per field leaf (a free witness); N per `uN` leaf (its range check) |
//! | each block | 1 (own label) + 1 (output label, 0 for a `br` on a witness) |
//! | each output leaf | 0 when it depends on a witness (eliminated), else 1 |
//! | guarded `assert` / `div` / `udiv` / `cast` | +1 each (`g·(1 − c) = 0`; divisor `1 + g(b − 1)`; `g·x`) |

pub mod attribute;
mod builder;
mod cache;
mod check;
mod dead;
pub mod eliminate;
pub(crate) use crate::fxhash;
pub mod gadgets;
mod lc;
mod live;
mod lower;
pub mod memory;
mod products;
mod recipe;
mod satisfy;
pub mod soundness;
pub mod tape;

pub use attribute::{attribute, BlockAttribution, ConstraintOrigin};
pub use cache::{SharedStatsCache, StatsCache};
pub use check::{
    check_run, check_trace, check_trace_opts, check_trace_with, flatten_val, for_each_execution,
    for_each_execution_opts, initial_memory, initial_read_only_memory, try_for_each_execution,
    BlockCheck, CheckError, CheckOptions, CheckReport, Checker, Witnesses,
};
pub use lc::{Lc, Var, ONE};
pub use lower::{block_label, return_label, ExitLayout, StateLayout};
pub use soundness::{check_soundness, SoundnessOptions, SoundnessReport};
pub use tape::Tape;

use crate::field::Fr;
use crate::ir::interp::{Access, Val};
use crate::ir::{BlockId, FuncId, Function, Program};
use ark_relations::gr1cs::{ConstraintSystem, ConstraintSystemRef, LinearCombination, Variable};
use eliminate::Reduced;
use live::FuncInfo;
use rayon::prelude::*;
use std::fmt;
use std::sync::Arc;

/// The default of [`LowerOptions::max_constraints`]: 2^24 constraints, a few GiB while lowering.
pub const DEFAULT_MAX_CONSTRAINTS: usize = 1 << 24;

/// What lowering may do: settings the caller passes in (the CLI's `--max-constraints` and
/// `ZKBC_NO_MEMORY`), never read from the process. The functions without them
/// ([`stats`], [`lower_function`], [`check_trace`], ...) lower with the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LowerOptions {
    /// The most constraints one block may have before linear elimination; lowering a larger
    /// block fails with [`LowerError::TooLarge`] instead of exhausting memory.
    pub max_constraints: usize,
    /// Whether arrays (and scalars carried through many states) may live in memory
    /// ([`memory`]); off, every value rides in the transition state (to compare).
    pub memory: bool,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions {
            max_constraints: DEFAULT_MAX_CONSTRAINTS,
            memory: true,
        }
    }
}

/// One row (A, B or C) of a constraint: `(variable, coefficient)` terms sorted by variable.
/// Rows are stored packed (a coefficient is an index into the block's table of distinct
/// coefficients); [`Row::iter`] gives the terms with their coefficients.
#[derive(Clone, Copy, Debug)]
pub struct Row<'a> {
    terms: &'a [builder::Packed],
    coeffs: &'a [Fr],
}

impl<'a> Row<'a> {
    /// The `(variable, coefficient)` terms, sorted by variable.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Var, Fr)> + 'a {
        let coeffs = self.coeffs;
        self.terms
            .iter()
            .map(move |&(v, c)| (v, coeffs[c as usize]))
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether the row is the zero combination.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The variables, sorted.
    pub fn vars(&self) -> impl ExactSizeIterator<Item = Var> + 'a {
        self.terms.iter().map(|&(v, _)| v)
    }

    /// The value under an assignment indexed by variable (index 0 must hold 1).
    pub fn eval(&self, values: &[Fr]) -> Fr {
        self.iter().map(|(v, c)| values[v as usize] * c).sum()
    }

    /// The row as a linear combination.
    pub fn to_lc(&self) -> Lc {
        Lc::from_sorted(self.iter().collect())
    }
}

/// Why a block cannot be lowered (or assigned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LowerError {
    /// The block uses something the lowering does not handle: calls, memory, references (an
    /// earlier pass removes them), or ill-typed IR.
    Unsupported {
        /// The function's name.
        func: String,
        /// The block.
        block: BlockId,
        /// The instruction's index in the block (`None`: parameters or terminator).
        inst: Option<usize>,
        /// What is unsupported.
        what: String,
    },
    /// The block is not laid out in the function.
    NoSuchBlock {
        /// The function's name.
        func: String,
        /// The block.
        block: BlockId,
    },
    /// The block needs more constraints than the limit ([`LowerOptions::max_constraints`]).
    TooLarge {
        /// The function's name.
        func: String,
        /// The block.
        block: BlockId,
        /// The limit that was exceeded.
        limit: usize,
    },
    /// An input state that does not match the block's layout (witness generation).
    BadState {
        /// The block.
        block: BlockId,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LowerError::Unsupported {
                func,
                block,
                inst,
                what,
            } => {
                write!(f, "cannot lower fn {func}, {block}")?;
                if let Some(i) = inst {
                    write!(f, ", inst {i}")?;
                }
                write!(f, " to R1CS: unsupported {what}")
            }
            LowerError::NoSuchBlock { func, block } => {
                write!(f, "fn {func} has no laid-out block {block}")
            }
            LowerError::TooLarge { func, block, limit } => write!(
                f,
                "fn {func}, {block} needs more than {limit} constraints, the limit for one block \
                 (raise it with --max-constraints, or split the work: without --monolithic, or \
                 with a smaller --min-block-size)"
            ),
            LowerError::BadState { block, message } => {
                write!(f, "bad input state for {block}: {message}")
            }
        }
    }
}

impl std::error::Error for LowerError {}

/// The values of a block's variables: instance (without the constant 1) and witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// Instance values: `[in_label, in.., out_label, out..]`.
    pub instance: Vec<Fr>,
    /// Witness values.
    pub witness: Vec<Fr>,
}

impl Assignment {
    /// All values indexed by variable: `[1, instance.., witness..]`.
    pub fn full(&self) -> Vec<Fr> {
        let mut v = Vec::with_capacity(1 + self.instance.len() + self.witness.len());
        v.push(Fr::from(1u64));
        v.extend_from_slice(&self.instance);
        v.extend_from_slice(&self.witness);
        v
    }
}

/// Size of one block's instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockStats {
    /// The function.
    pub func: FuncId,
    /// The block.
    pub block: BlockId,
    /// Constraints after linear elimination.
    pub constraints: usize,
    /// Witness variables.
    pub witness_vars: usize,
    /// Instance variables (the transition state and the memory accesses, without the
    /// constant 1).
    pub instance_vars: usize,
    /// The transition state's width: labels and state leaves (`io_b` of the cost model).
    pub state_vars: usize,
    /// Memory accesses per execution (both lists).
    pub accesses: usize,
    /// Of `accesses`, those of read-only segments.
    pub ro_accesses: usize,
    /// Addresses of the function's read-write memory (the same for every block of a function).
    pub memory_size: u64,
    /// Addresses of the function's read-only memory.
    pub ro_memory_size: u64,
    /// Public entries of the function's read-only list (its head and constant segments').
    pub ro_inits: u64,
    /// Non-zero entries of A.
    pub nnz_a: usize,
    /// Non-zero entries of B.
    pub nnz_b: usize,
    /// Non-zero entries of C.
    pub nnz_c: usize,
}

/// One block's R1CS instance.
#[derive(Clone, Debug)]
pub struct BlockR1cs<'f> {
    func: &'f Function,
    func_id: FuncId,
    info: Arc<FuncInfo>,
    block: BlockId,
    main_entry: bool,
    layout: StateLayout,
    reduced: Reduced,
    /// The compiled witness computation, when lowered for witnesses ([`tape`]).
    tape: Option<Arc<Tape>>,
    /// The rows compiled for checking, made by the first [`BlockR1cs::first_unsatisfied_with`].
    compiled_rows: std::sync::OnceLock<satisfy::CompiledRows>,
}

/// Lowers block `block` of function `func` of `program`. The entry block of `main`
/// range-checks its inputs.
pub fn lower_block(
    program: &Program,
    func: FuncId,
    block: BlockId,
) -> Result<BlockR1cs<'_>, LowerError> {
    lower_block_opts(program, func, block, LowerOptions::default())
}

/// [`lower_block`] with the given options.
pub fn lower_block_opts(
    program: &Program,
    func: FuncId,
    block: BlockId,
    opts: LowerOptions,
) -> Result<BlockR1cs<'_>, LowerError> {
    let f = func_of(program, func, block)?;
    let info = Arc::new(FuncInfo::new(f, opts));
    lower_with(
        f,
        func,
        info,
        block,
        func == program.main && block == f.entry,
    )
}

/// Lowers every laid-out block of `func`, in layout order.
pub fn lower_function(program: &Program, func: FuncId) -> Result<Vec<BlockR1cs<'_>>, LowerError> {
    lower_function_opts(program, func, LowerOptions::default())
}

/// [`lower_function`] with the given options.
pub fn lower_function_opts(
    program: &Program,
    func: FuncId,
    opts: LowerOptions,
) -> Result<Vec<BlockR1cs<'_>>, LowerError> {
    let f = func_of(program, func, BlockId(0))?;
    let info = Arc::new(FuncInfo::new(f, opts));
    f.layout
        .iter()
        .map(|&b| {
            lower_with(
                f,
                func,
                info.clone(),
                b,
                func == program.main && b == f.entry,
            )
        })
        .collect()
}

fn lower_with(
    func: &Function,
    func_id: FuncId,
    info: Arc<FuncInfo>,
    block: BlockId,
    main_entry: bool,
) -> Result<BlockR1cs<'_>, LowerError> {
    let cs = builder::Builder::new(false);
    lower_reduced(cs, func, func_id, info, (block, main_entry))
}

/// [`lower_with`] recording where each constraint comes from (`Reduced::origins`, for
/// [`attribute`]).
fn lower_with_origins(
    func: &Function,
    func_id: FuncId,
    info: Arc<FuncInfo>,
    block: BlockId,
    main_entry: bool,
) -> Result<BlockR1cs<'_>, LowerError> {
    let cs = builder::Builder::attributing();
    lower_reduced(cs, func, func_id, info, (block, main_entry))
}

/// [`lower_with`] that also compiles the block's witness [`Tape`]: lowered once for every
/// execution a trace checks.
fn lower_with_tape(
    func: &Function,
    func_id: FuncId,
    info: Arc<FuncInfo>,
    block: BlockId,
    main_entry: bool,
) -> Result<BlockR1cs<'_>, LowerError> {
    let cs = builder::Builder::recording();
    lower_reduced(cs, func, func_id, info, (block, main_entry))
}

/// `block` lowered in structure mode with the builder `cs` (which says what it records), and
/// reduced.
fn lower_reduced(
    cs: builder::Builder,
    func: &Function,
    func_id: FuncId,
    info: Arc<FuncInfo>,
    (block, main_entry): (BlockId, bool),
) -> Result<BlockR1cs<'_>, LowerError> {
    let lowered = lower::lower_structure(cs, func, &info, block, main_entry)?;
    Ok(reduced_block(
        func, func_id, info, block, main_entry, lowered,
    ))
}

/// A lowered block's constraints reduced, with its witness tape when the lowering recorded one.
fn reduced_block(
    func: &Function,
    func_id: FuncId,
    info: Arc<FuncInfo>,
    block: BlockId,
    main_entry: bool,
    (mut cs, layout): (builder::Builder, StateLayout),
) -> BlockR1cs<'_> {
    let recorder = cs.recorder.take();
    let reduced = eliminate::reduce(cs);
    let n_vars = 1 + reduced.n_instance + reduced.n_witness;
    let tape = recorder.map(|r| Arc::new(r.finish(&reduced.var_map, n_vars)));
    BlockR1cs {
        func,
        func_id,
        info,
        block,
        main_entry,
        layout,
        reduced,
        tape,
        compiled_rows: std::sync::OnceLock::new(),
    }
}

impl<'f> BlockR1cs<'f> {
    /// The block.
    pub fn block(&self) -> BlockId {
        self.block
    }

    /// The function.
    pub fn func_id(&self) -> FuncId {
        self.func_id
    }

    /// The function's name.
    pub fn func_name(&self) -> &str {
        &self.func.name
    }

    /// Which instance variables mean what.
    pub fn layout(&self) -> &StateLayout {
        &self.layout
    }

    /// Number of constraints.
    pub fn n_constraints(&self) -> usize {
        self.reduced.rows.len() / 3
    }

    /// Number of instance variables (without the constant 1).
    pub fn n_instance(&self) -> usize {
        self.reduced.n_instance
    }

    /// Number of witness variables.
    pub fn n_witness(&self) -> usize {
        self.reduced.n_witness
    }

    /// Linear constraints removed by substitution.
    pub fn n_eliminated(&self) -> usize {
        self.reduced.n_eliminated
    }

    /// Constraint `k` as `(A, B, C)` rows of `(variable, coefficient)`; variable 0 is the
    /// constant 1, then instance variables, then witnesses.
    pub fn constraint(&self, k: usize) -> (Row<'_>, Row<'_>, Row<'_>) {
        let r = &self.reduced.rows;
        let row = |j| Row {
            terms: r.row(j),
            coeffs: &self.reduced.coeffs.values,
        };
        (row(3 * k), row(3 * k + 1), row(3 * k + 2))
    }

    /// Sizes of the instance.
    pub fn stats(&self) -> BlockStats {
        let r = &self.reduced.rows;
        let mut nnz = [0usize; 3];
        for k in 0..r.len() {
            nnz[k % 3] += r.row(k).len();
        }
        BlockStats {
            func: self.func_id,
            block: self.block,
            constraints: self.n_constraints(),
            witness_vars: self.n_witness(),
            instance_vars: self.n_instance(),
            state_vars: self.layout.state_width(),
            accesses: self.layout.accesses.len(),
            ro_accesses: self.layout.accesses.iter().filter(|a| a.read_only).count(),
            memory_size: self.info.memory.size,
            ro_memory_size: self.info.memory.ro_size,
            ro_inits: self.info.memory.ro_inits(),
            nnz_a: nnz[0],
            nnz_b: nnz[1],
            nnz_c: nnz[2],
        }
    }

    /// The full assignment for an input state given as scalar leaves after the label
    /// (parameters, then live-ins): the lowering re-run in witness mode. The output state is
    /// what the gadgets compute. A block with `hint`s gets 0 for each hint value (see
    /// [`BlockR1cs::assign_with_hints`]).
    pub fn assign(&self, in_leaves: &[Fr]) -> Result<Assignment, LowerError> {
        self.assign_with_hints(in_leaves, &[])
    }

    /// [`BlockR1cs::assign`] with the values of the block's `hint` results (the trace entry's
    /// `hints`, flattened to leaves): nothing in the block computes them.
    pub fn assign_with_hints(
        &self,
        in_leaves: &[Fr],
        hints: &[Fr],
    ) -> Result<Assignment, LowerError> {
        self.assign_with(in_leaves, hints, &[], &[])
    }

    /// [`BlockR1cs::assign_with_hints`] with the block execution's array accesses (the trace
    /// entry's `accesses`: the values its reads of arrays in memory return) and the values of
    /// the spilled scalars it reads (`StateLayout::spill_reads`, in order).
    pub fn assign_with(
        &self,
        in_leaves: &[Fr],
        hints: &[Fr],
        accesses: &[Access],
        spills: &[Fr],
    ) -> Result<Assignment, LowerError> {
        if hints.len() > self.layout.hint_leaves {
            return Err(LowerError::BadState {
                block: self.block,
                message: format!(
                    "{} hint values given, the block has {}",
                    hints.len(),
                    self.layout.hint_leaves
                ),
            });
        }
        if in_leaves.len() != self.layout.in_leaves() {
            return Err(LowerError::BadState {
                block: self.block,
                message: format!(
                    "{} input leaves given, the block's state has {}",
                    in_leaves.len(),
                    self.layout.in_leaves()
                ),
            });
        }
        let (cs, _) = lower::lower(
            self.func,
            &self.info,
            self.block,
            self.main_entry,
            Some(lower::Witness {
                inputs: in_leaves,
                hints,
                accesses,
                spills,
            }),
        )?;
        assert_eq!(
            cs.values.len(),
            self.reduced.var_map.len(),
            "bug: witness mode allocated different variables than structure mode"
        );
        let mut instance = vec![Fr::from(0u64); self.reduced.n_instance];
        let mut witness = vec![Fr::from(0u64); self.reduced.n_witness];
        for (old, &new) in self.reduced.var_map.iter().enumerate().skip(1) {
            if new == eliminate::GONE {
                continue;
            }
            let new = new as usize;
            if new <= self.reduced.n_instance {
                instance[new - 1] = cs.values[old];
            } else {
                witness[new - 1 - self.reduced.n_instance] = cs.values[old];
            }
        }
        Ok(Assignment { instance, witness })
    }

    /// [`BlockR1cs::assign`] from parameter values, for a block without live-ins.
    pub fn assign_params(&self, params: &[Val]) -> Result<Assignment, LowerError> {
        let mut leaves = Vec::new();
        for p in params {
            flatten_val(p, &mut leaves).map_err(|m| LowerError::BadState {
                block: self.block,
                message: m,
            })?;
        }
        self.assign(&leaves)
    }

    /// The first constraint the assignment violates, by direct evaluation.
    pub fn first_unsatisfied(&self, a: &Assignment) -> Option<usize> {
        self.first_unsatisfied_z(&a.full())
    }

    /// [`BlockR1cs::first_unsatisfied`] over `z = [1, instance.., witness..]` (anything after
    /// the witness is ignored): the rows in one pass over the packed arenas, ±1 coefficients
    /// added or subtracted without a multiplication.
    pub fn first_unsatisfied_z(&self, z: &[Fr]) -> Option<usize> {
        let rows = &self.reduced.rows;
        let coeffs = &self.reduced.coeffs.values;
        // `Fr::from(0u64)` would convert into Montgomery form (a multiplication) per sum.
        let eval = |terms: &[builder::Packed]| {
            builder::add_packed(<Fr as ark_ff::Zero>::zero(), terms, z, coeffs)
        };
        let ends = &rows.ends;
        let fails = |k: usize| {
            let start = if k == 0 { 0 } else { ends[3 * k - 1] as usize };
            let (ea, eb, ec) = (
                ends[3 * k] as usize,
                ends[3 * k + 1] as usize,
                ends[3 * k + 2] as usize,
            );
            let (a, b, c) = (
                eval(&rows.terms[start..ea]),
                eval(&rows.terms[ea..eb]),
                eval(&rows.terms[eb..ec]),
            );
            a * b != c
        };
        // A large block is split over the threads; the first failing row is still the one named.
        if self.n_constraints() >= satisfy::PARALLEL_ROWS {
            return (0..self.n_constraints())
                .into_par_iter()
                .position_first(fails);
        }
        (0..self.n_constraints()).find(|&k| fails(k))
    }

    /// [`BlockR1cs::first_unsatisfied_z`] by the block's rows compiled once (the checker's form
    /// for a block that runs many times, see `r1cs/satisfy.rs`); `scratch` is reused across calls.
    pub fn first_unsatisfied_with(&self, z: &[Fr], scratch: &mut Vec<Fr>) -> Option<usize> {
        self.compiled_rows
            .get_or_init(|| {
                satisfy::CompiledRows::new(&self.reduced.rows, &self.reduced.coeffs.values)
            })
            .first_unsatisfied(z, scratch)
    }

    /// The compiled witness computation, for a block lowered by [`for_each_execution`] and the
    /// checker (`None` for a block lowered only for its structure).
    pub fn tape(&self) -> Option<&Tape> {
        self.tape.as_deref()
    }

    /// The instance with an assignment as an ark-relations `gr1cs` constraint system (not
    /// `Send`: build it on the thread that uses it).
    pub fn to_ark(&self, a: &Assignment) -> ConstraintSystemRef<Fr> {
        let cs = ConstraintSystem::<Fr>::new_ref();
        let mut vars = Vec::with_capacity(1 + a.instance.len() + a.witness.len());
        vars.push(Variable::One);
        for x in &a.instance {
            vars.push(
                cs.new_input_variable(|| Ok(*x))
                    .expect("a fresh system accepts inputs"),
            );
        }
        for x in &a.witness {
            vars.push(
                cs.new_witness_variable(|| Ok(*x))
                    .expect("a fresh system accepts witnesses"),
            );
        }
        let lc = |row: Row<'_>| {
            LinearCombination(row.iter().map(|(x, c)| (c, vars[x as usize])).collect())
        };
        for k in 0..self.n_constraints() {
            let (ra, rb, rc) = self.constraint(k);
            cs.enforce_r1cs_constraint(|| lc(ra), || lc(rb), || lc(rc))
                .expect("the R1CS predicate is registered");
        }
        cs
    }
}

/// The blocks of every function of the circuit (a function that only runs as a `hint` is
/// not part of it).
fn all_blocks(program: &Program) -> Vec<(FuncId, BlockId)> {
    let circuit = program.circuit_funcs();
    program
        .func_ids()
        .filter(|f| circuit[f.index()])
        .flat_map(|f| program.func(f).layout.iter().map(move |&b| (f, b)))
        .collect()
}

/// Function `f` of `program`, or the error naming block `b` of it as missing.
fn func_of(program: &Program, f: FuncId, b: BlockId) -> Result<&Function, LowerError> {
    program
        .funcs
        .get(f.index())
        .ok_or_else(|| LowerError::NoSuchBlock {
            func: f.to_string(),
            block: b,
        })
}

fn block_stats(
    program: &Program,
    infos: &[Arc<FuncInfo>],
    f: FuncId,
    b: BlockId,
) -> Result<BlockStats, LowerError> {
    let func = program.func(f);
    let main_entry = f == program.main && b == func.entry;
    Ok(lower_with(func, f, infos[f.index()].clone(), b, main_entry)?.stats())
}

/// Sizes of every laid-out block of every function, lowered in parallel (rayon), in layout order.
pub fn stats(program: &Program) -> Result<Vec<BlockStats>, LowerError> {
    stats_opts(program, LowerOptions::default())
}

/// [`stats`] with the given options.
pub fn stats_opts(program: &Program, opts: LowerOptions) -> Result<Vec<BlockStats>, LowerError> {
    crate::timing::stage("lower (r1cs::stats)", || stats_parallel(program, opts))
}

/// Every function's [`FuncInfo`], computed in parallel.
fn func_infos(program: &Program, opts: LowerOptions) -> Vec<Arc<FuncInfo>> {
    program
        .funcs
        .par_iter()
        .map(|f| Arc::new(FuncInfo::new(f, opts)))
        .collect()
}

fn stats_parallel(program: &Program, opts: LowerOptions) -> Result<Vec<BlockStats>, LowerError> {
    let infos = func_infos(program, opts);
    all_blocks(program)
        .par_iter()
        .map(|&(f, b)| block_stats(program, &infos, f, b))
        .collect()
}

/// [`stats`] for a caller that is done with the program's instructions. A function of one block
/// of at least `min_insts` instructions (a monolithic circuit) gives its instruction arena to
/// the lowering (`lower::lower_consuming`), which frees it behind its walk: the block's
/// constraints and its instructions are never resident whole at once. Such a function is left
/// without instructions (its block lists none; its values, block and terminator stay); every
/// other block is lowered as [`stats`] lowers it, in parallel. The same sizes as [`stats`].
pub fn stats_consuming(
    program: &mut Program,
    min_insts: usize,
    opts: LowerOptions,
) -> Result<Vec<BlockStats>, LowerError> {
    crate::timing::stage("lower (r1cs::stats)", || {
        let blocks = all_blocks(program);
        let consumed: Vec<usize> = (0..blocks.len())
            .filter(|&k| {
                let func = program.func(blocks[k].0);
                func.layout.len() == 1 && func.block(blocks[k].1).insts.len() >= min_insts
            })
            .collect();
        let infos = func_infos(program, opts);
        let shared: &Program = program;
        let mut out: Vec<Option<BlockStats>> = (0..blocks.len())
            .into_par_iter()
            .map(|k| match consumed.contains(&k) {
                true => Ok(None),
                false => block_stats(shared, &infos, blocks[k].0, blocks[k].1).map(Some),
            })
            .collect::<Result<_, _>>()?;
        for k in consumed {
            let (f, b) = blocks[k];
            let insts = std::mem::take(&mut program.funcs[f.index()].insts);
            let func = &program.funcs[f.index()];
            let main_entry = f == program.main && b == func.entry;
            let info = infos[f.index()].clone();
            let lowered = lower::lower_consuming(func, insts, &info, b, main_entry)?;
            out[k] = Some(reduced_block(func, f, info, b, main_entry, lowered).stats());
            program.funcs[f.index()].block_mut(b).insts = Vec::new();
        }
        Ok(out.into_iter().flatten().collect())
    })
}

/// [`stats`] on one thread: the reference the parallel version is tested against.
pub fn stats_sequential(program: &Program) -> Result<Vec<BlockStats>, LowerError> {
    let infos: Vec<Arc<FuncInfo>> = program
        .funcs
        .iter()
        .map(|f| Arc::new(FuncInfo::new(f, LowerOptions::default())))
        .collect();
    all_blocks(program)
        .iter()
        .map(|&(f, b)| block_stats(program, &infos, f, b))
        .collect()
}

/// The constraints of single blocks of one program, each lowered the first time it is asked
/// for (each function's facts computed once, when its first block is): for a caller that needs
/// the sizes of some of a program's blocks, in an order it learns as it goes (`-O0`'s executed
/// constraints, summed along a run until they pass a bound: `driver::bound`).
pub struct BlockSizer<'p> {
    program: &'p Program,
    opts: LowerOptions,
    infos: Vec<Option<Arc<FuncInfo>>>,
    sizes: crate::fxhash::FxMap<(FuncId, BlockId), usize>,
}

impl<'p> BlockSizer<'p> {
    /// Sizes blocks of `program` lowered with `opts`.
    pub fn new(program: &'p Program, opts: LowerOptions) -> BlockSizer<'p> {
        BlockSizer {
            program,
            opts,
            infos: vec![None; program.funcs.len()],
            sizes: Default::default(),
        }
    }

    /// The constraints of block `b` of function `f` ([`BlockStats::constraints`]).
    pub fn constraints(&mut self, f: FuncId, b: BlockId) -> Result<usize, LowerError> {
        if let Some(&c) = self.sizes.get(&(f, b)) {
            return Ok(c);
        }
        let func = func_of(self.program, f, b)?;
        let opts = self.opts;
        let info = self.infos[f.index()]
            .get_or_insert_with(|| Arc::new(FuncInfo::new(func, opts)))
            .clone();
        let main_entry = f == self.program.main && b == func.entry;
        let c = lower_with(func, f, info, b, main_entry)?
            .stats()
            .constraints;
        self.sizes.insert((f, b), c);
        Ok(c)
    }
}
