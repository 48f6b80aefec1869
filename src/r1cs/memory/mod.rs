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
//! # Two lists: read-write and read-only
//!
//! A segment whose family is never written after its first value is *read-only* (the
//! [`plan`] decides: no `array_set` in the family, and either one source, a `make_array` or a
//! parameter of `main`'s entry block, or only constant `make_array`s with one content — a
//! table, rematerialized wherever it is used; families with the same table share a segment).
//! Its accesses go to a second list checked without timestamps; every other segment's go to
//! the read-write list. The two lists have their own
//! address spaces (`Segment::read_only`, `Segment::base` within the list).
//!
//! # The read-write list: offline memory checking over an address-sorted list
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
//! ## Why it is sound
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
//!
//! # The read-only list: one write per address, no time
//!
//! An entry is `(addr, seg, value, w)`, `w = 1` for a write:
//!
//! - the **public entries**: the *head* `(0, 0, 0, 1)` (so the sorted list starts at an entry
//!   the verifier knows), and one per element of a read-only segment whose contents are
//!   constant — a table (`w = 1`, its value); a table's `make_array`s write nothing;
//! - the **accesses** of read-only segments, in execution order: the writes of `main`'s entry
//!   block (each element of an input array or of a non-constant `make_array`, `w = 1`, at the
//!   constant address `base + k` its block's constraints fix) and the reads (`w = 0`); `seg`
//!   and `w` come from the block's layout, `addr` and `value` from its instance.
//!
//! Segments start at address 1 (the head has address 0). The prover sorts the entries by
//! address, the write of each address first, and each adjacent pair satisfies the
//! **read-only pair instance** (`check::READ_ONLY_PAIR_CONSTRAINTS`, 4 constraints, no T):
//!
//! 1. `d = addr' − addr` is 0 or 1;
//! 2. `d = 0 ⇒ seg' = seg`;
//! 3. `w' = d` (a new address starts with a write, and no other entry at it writes);
//! 4. `d = 0 ⇒ value' = value` (a read returns the address's write);
//!
//! and the first entry has `addr = 0`, `w = 1`. A grand product of its own ties the sorted
//! list to the execution-ordered one, with `fp(e) = addr + β·seg + β²·value + β³·w`.
//!
//! ## Why it is sound
//!
//! - **Exactly one write per address.** The `w = 1` entries of the execution-ordered list are
//!   at positions the verifier knows: the public entries (a table's contents are constants of
//!   the program, the same at every `make_array` of it), and the unguarded writes at constant
//!   addresses of `main`'s entry block, which runs exactly once in a run (`ir::verify` rejects a
//!   jump to an entry block; in the proof it is the chain's first execution, and a second
//!   execution anywhere would add a second write, which rule 3 rejects). The plan gives every
//!   address of `[0, size_ro)` to one segment and writes each segment once, whole (publicly or
//!   by the entry block), so these are one write per address. By the permutation the sorted
//!   list holds exactly these writes, and rule 3 puts each first at its address and allows no
//!   second one there: a list with two writes at one address cannot satisfy it.
//! - **A read outside its segment or outside the read-only range fails.** Addresses start at 0
//!   and step by 0 or 1, and each new address starts with a write; the writes' addresses are
//!   exactly `[0, size_ro)`, so a read at any other address has no entry to follow. Within the
//!   range a read carries the segment of the write at its address (rule 2), and a read of
//!   segment `s` is at `base_s + index` with `0 ≤ index < 2^64 ≪ p` (no wrap): an index out
//!   of bounds lands on another segment's address (or past the range, or never on the head,
//!   as `base_s ≥ 1`) and fails.
//! - **Execution order does not matter.** The family has one value in the whole run (no
//!   `array_set`; its other members are copies through parameters and `select`s of that one
//!   value, or a table's `make_array`s, all of the same constants), so the interpreter's every read returns the element that one write stored, before
//!   or after any other read. Rule 4 says exactly that; no timestamp is needed. (The write also
//!   precedes every read in the run: the entry block runs first and defines the family.)
//! - **Entries cannot move between the lists.** Which list an access belongs to is its
//!   segment's, fixed by its block's layout (the verifier's), not chosen by the prover; each
//!   list has its own multiset equality (here two grand products, each with challenges drawn
//!   over its own lists; in the proof, one product in which every read-only tuple carries the
//!   timestamp slot `−1`, which no read-write entry can hold: their timestamps are below
//!   `2^T·entries ≪ p − 1`, so the one equation splits into the two). An entry moved from one
//!   sorted list to the other leaves one side of one equality short.
//!
//! Read-write timestamps count the read-write accesses only, so T is the bits of their
//! number, and a read-only access costs the 4 constraints of its pair plus 2 product steps
//! instead of `8 + T`.

pub mod check;
pub mod plan;

pub use check::{
    check_memory, MemoryEntry, MemoryError, MemoryTrace, PAIR_BASE_CONSTRAINTS,
    READ_ONLY_PAIR_CONSTRAINTS,
};
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
    /// Whether the segment is read-only: the access goes to the read-only list.
    pub read_only: bool,
}
