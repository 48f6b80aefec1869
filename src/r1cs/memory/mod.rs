//! Arrays in memory: the plan of which arrays live there ([`plan`]), and the memory-checking
//! instance that proves every read of a run returns the last value written ([`check`]).
//!
//! # Why
//!
//! An array kept in registers is part of every transition state it crosses (one wire per
//! element) and a run-time-index access selects over all of it (about `n` constraints to read,
//! `2n` to write). In memory, a block access costs O(1) constraints and exposes
//! `(addr, value)` in the block's instance; one instance for the whole run checks the
//! accesses together. Scalars carried through many states without being used there are
//! *spilled* the same way (`plan::MemoryPlan::add_spills`): written once where they are
//! defined, read where they are used, one address each in a spill segment.
//!
//! # The construction: offline memory checking over an address-sorted list
//!
//! This is the construction of CoBBl (its memory "coherence" check over the accesses sorted by
//! address, tied to the execution order by a permutation argument) with timestamps as in Spice
//! and Blum et al.'s offline memory checking. An entry is `(addr, seg, value, rw, ts)`:
//!
//! - the **initial entries**, one per address `0 .. size`: `ts = 0`, `rw = 1`, the segment of
//!   the address and its initial value (a constant `make_array` of `main`'s entry block, or 0).
//!   The verifier knows them all;
//! - the **accesses**, in execution order, the `k`-th (from 1) with `ts = k`: `addr`, `value`
//!   (and `rw` for a guarded write) from its block's instance, `seg` and `rw` of an unguarded
//!   access from the block's layout (the verifier knows the block).
//!
//! The prover lists the entries sorted by `(addr, ts)`, and each adjacent pair `(e, e')`
//! satisfies the **pair instance** (`check::PAIR`, `6 + T` constraints, T the bits of the
//! largest timestamp):
//!
//! 1. `d = addr' − addr` is 0 or 1;
//! 2. `d = 0 ⇒ seg' = seg`;
//! 3. `d = 1 ⇒ ts' = 0`;
//! 4. `d = 0 ⇒ ts' − ts − 1 ∈ [0, 2^T)` (time strictly increases);
//! 5. `d = 0 ∧ rw' = 0 ⇒ value' = value` (a read returns the previous value);
//!
//! and the first entry has `addr = 0`, `ts = 0`. A **grand product** `Π (r − fp(e))` with
//! `fp(e) = addr + β·seg + β²·value + β³·rw + β⁴·ts` over the execution-ordered list equals the
//! same product over the sorted list, for challenges `r, β` drawn after both lists are fixed
//! (Fiat–Shamir over their contents).
//!
//! # Why it is sound
//!
//! By Schwartz–Zippel the product equality means (except with probability about
//! `2·entries·5/|F|`) that the sorted list is a permutation of the initial entries and the
//! accesses. In the sorted list addresses start at 0 and step by 0 or 1, and every new
//! address begins with a `ts = 0` entry; only initial entries have `ts = 0`, one per address in
//! `[0, size)`, so every access's address lies in `[0, size)` and the entries of one address
//! are contiguous, its initial entry first, the rest in strictly increasing time: exactly
//! the execution order of that address's accesses. All entries of one address carry the
//! segment of its initial entry, so an access claiming segment `s` at an address outside `s`
//! (an index out of bounds: `addr = base + index` with `index < 2^64 ≪ p`, no wrap) fails.
//! Finally each read (and each guarded write whose guard is 0) returns the value of the entry
//! before it in time: by induction, the last value written, or the initial value. That is the
//! semantics of the IR's arrays for every family the [`plan`] puts in memory (its linearity
//! rule), so a block whose read is bound to the memory check computes what the interpreter
//! computes.

pub mod check;
pub mod plan;

pub use check::{check_memory, MemoryEntry, MemoryError, MemoryTrace, PAIR_BASE_CONSTRAINTS};
pub use plan::{AccessKind, MemoryPlan, Segment, MIN_MEMORY_LEN};

/// Where one access of a block sits in the block's instance vector (indices without the
/// constant 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AccessSlot {
    /// The segment (of the block's function).
    pub seg: u32,
    /// Read, write or guarded write.
    pub kind: AccessKind,
    /// The address variable.
    pub addr: usize,
    /// The value variable.
    pub value: usize,
    /// The variable holding `rw` (1 for a write) of a guarded write.
    pub rw: Option<usize>,
}
