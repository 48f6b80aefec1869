//! The memory-checking instances: for each of the two lists (read-write, read-only), the pair
//! instance over the address-sorted entries and the grand product tying them to the execution
//! order (construction and soundness in [`super`]).

use crate::field::Fr;
use ark_ff::{BigInteger, Field, One, PrimeField, Zero};
use sha2::{Digest, Sha256};
use std::fmt;

/// Constraints of the pair instance besides the T booleans of the time difference.
pub const PAIR_BASE_CONSTRAINTS: usize = 6;

/// Constraints the grand product pays per entry: one product step in each of the two lists.
pub const PRODUCT_CONSTRAINTS: usize = 2;

/// Constraints of the read-only pair instance (no timestamp, no bits).
pub const READ_ONLY_PAIR_CONSTRAINTS: usize = 4;

/// One entry of the memory list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEntry {
    /// The address (from a block's instance: any field element a prover puts there).
    pub addr: Fr,
    /// The segment (program-wide).
    pub seg: u64,
    /// The value.
    pub value: Fr,
    /// 1 for a write, 0 for a read (a guarded write's is its instance variable).
    pub rw: Fr,
    /// 0 for an initial entry, the access's position (from 1) otherwise.
    pub ts: u64,
}

/// The memory of a run: the read-write list's initial entries and accesses in execution
/// order, and the read-only list's public entries and accesses in execution order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryTrace {
    /// One initial entry per read-write address, in address order.
    pub inits: Vec<MemoryEntry>,
    /// The read-write accesses, in execution order (`ts` = position from 1).
    pub accesses: Vec<MemoryEntry>,
    /// For each read-write access, the trace step of the block execution that made it.
    pub steps: Vec<usize>,
    /// The read-only list's public entries (`ts = 0`, `rw = 1`): the head at address 0, then
    /// the elements of segments with constant contents, in address order; empty without a
    /// read-only segment.
    pub ro_inits: Vec<MemoryEntry>,
    /// The read-only accesses, in execution order (`ts = 0`): `main`'s entry block's writes
    /// (`rw = 1`) and the reads (`rw = 0`).
    pub ro_accesses: Vec<MemoryEntry>,
    /// For each read-only access, the trace step of the block execution that made it.
    pub ro_steps: Vec<usize>,
}

impl MemoryTrace {
    /// Entries of the read-write list (initial entries and accesses).
    pub fn entries(&self) -> usize {
        self.inits.len() + self.accesses.len()
    }

    /// Entries of the read-only list (public entries and accesses).
    pub fn ro_entries(&self) -> usize {
        self.ro_inits.len() + self.ro_accesses.len()
    }

    /// The read-write list in execution order: its initial entries, then its accesses.
    pub fn exec_order(&self) -> Vec<MemoryEntry> {
        self.inits.iter().chain(&self.accesses).copied().collect()
    }

    /// The read-only list in execution order: its public entries, then its accesses.
    pub fn ro_exec_order(&self) -> Vec<MemoryEntry> {
        self.ro_inits
            .iter()
            .chain(&self.ro_accesses)
            .copied()
            .collect()
    }

    /// T: the bits of the largest timestamp (at least 1).
    pub fn time_bits(&self) -> u32 {
        time_bits(self.accesses.len() as u64)
    }
}

/// T for a run with `accesses` accesses: the bits of the largest timestamp, at least 1.
pub fn time_bits(accesses: u64) -> u32 {
    (64 - accesses.leading_zeros()).max(1)
}

/// Constraints of the memory-checking instance per entry for a run with `accesses` accesses:
/// the pair instance (`6 + T`) and the two product steps.
pub fn constraints_per_entry(accesses: u64) -> u64 {
    (PAIR_BASE_CONSTRAINTS + PRODUCT_CONSTRAINTS) as u64 + u64::from(time_bits(accesses))
}

/// Why a memory trace does not check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoryError {
    /// The sorted list does not start at address 0 with an initial entry.
    Start,
    /// An adjacent pair of the sorted list fails the pair instance.
    Pair {
        /// The later entry's timestamp (0 for an initial entry): which access.
        ts: u64,
        /// Its trace step, when it is an access.
        step: Option<usize>,
        /// Its address.
        addr: String,
        /// The rule that fails.
        rule: &'static str,
    },
    /// The grand products of the two orders differ.
    Permutation,
    /// The read-only list does not start at address 0 with a write.
    ReadOnlyStart,
    /// An adjacent pair of the sorted read-only list fails the read-only pair instance.
    ReadOnlyPair {
        /// The later entry's position among the read-only accesses (from 1), `None` for a
        /// public entry or an entry that is no access of the run.
        access: Option<usize>,
        /// Its trace step, when it is an access.
        step: Option<usize>,
        /// Its address.
        addr: String,
        /// The rule that fails.
        rule: &'static str,
    },
    /// The grand products of the read-only list's two orders differ.
    ReadOnlyPermutation,
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::Start => write!(f, "the memory list does not start at address 0"),
            MemoryError::Pair {
                ts,
                step,
                addr,
                rule,
            } => {
                write!(f, "memory access {ts} at address {addr}")?;
                if let Some(s) = step {
                    write!(f, " (execution {s} of the trace)")?;
                }
                write!(f, " fails the memory check: {rule}")
            }
            MemoryError::Permutation => write!(
                f,
                "the sorted memory list is not a permutation of the accesses"
            ),
            MemoryError::ReadOnlyStart => write!(
                f,
                "the read-only memory list does not start with a write at address 0"
            ),
            MemoryError::ReadOnlyPair {
                access,
                step,
                addr,
                rule,
            } => {
                match access {
                    Some(k) => write!(f, "read-only memory access {k} at address {addr}")?,
                    None => write!(f, "read-only memory entry at address {addr}")?,
                }
                if let Some(s) = step {
                    write!(f, " (execution {s} of the trace)")?;
                }
                write!(f, " fails the memory check: {rule}")
            }
            MemoryError::ReadOnlyPermutation => write!(
                f,
                "the sorted read-only memory list is not a permutation of its accesses"
            ),
        }
    }
}

/// The rules of the pair instance, in row order, for messages.
const RULES: [&str; 6] = [
    "addresses step by 0 or 1",
    "one address, one segment (an index out of bounds)",
    "a new address starts at its initial entry",
    "the read flag",
    "a read returns the last value written",
    "time strictly increases at one address",
];

/// The pair instance's variables for `(e, e')`:
/// `[1, a, s, v, w, t, a', s', v', w', t', u, b_0 .. b_(T-1)]` with `u = (1 − d)(1 − w')` and
/// `b` the bits of `(1 − d)(t' − t − 1)`.
pub fn pair_assignment(e: &MemoryEntry, n: &MemoryEntry, t_bits: u32) -> Vec<Fr> {
    let d = n.addr - e.addr;
    let one = Fr::one();
    let u = (one - d) * (one - n.rw);
    let gap = (one - d) * (Fr::from(n.ts) - Fr::from(e.ts) - one);
    let g = gap.into_bigint();
    let mut z = vec![
        one,
        e.addr,
        Fr::from(e.seg),
        e.value,
        e.rw,
        Fr::from(e.ts),
        n.addr,
        Fr::from(n.seg),
        n.value,
        n.rw,
        Fr::from(n.ts),
        u,
    ];
    z.extend((0..t_bits).map(|j| Fr::from(u64::from(g.get_bit(j as usize)))));
    z
}

type Term = (usize, Fr);

/// The rows `(A, B, C)` of the pair instance over [`pair_assignment`]'s variables.
pub fn pair_rows(t_bits: u32) -> Vec<[Vec<Term>; 3]> {
    let one = Fr::one();
    let m = -one;
    // Variable indices.
    let (a, s, v, t) = (1, 2, 3, 5);
    let (a2, s2, v2, w2, t2, u) = (6, 7, 8, 9, 10, 11);
    let d = || vec![(a2, one), (a, m)];
    let not_d = || vec![(0, one), (a2, m), (a, one)];
    let mut rows = vec![
        [d(), vec![(a2, one), (a, m), (0, m)], vec![]],
        [not_d(), vec![(s2, one), (s, m)], vec![]],
        [d(), vec![(t2, one)], vec![]],
        [not_d(), vec![(0, one), (w2, m)], vec![(u, one)]],
        [vec![(u, one)], vec![(v2, one), (v, m)], vec![]],
        [
            not_d(),
            vec![(t2, one), (t, m), (0, m)],
            (0..t_bits as usize)
                .map(|j| (12 + j, Fr::from(2u64).pow([j as u64])))
                .collect(),
        ],
    ];
    for j in 0..t_bits as usize {
        let b = 12 + j;
        rows.push([vec![(b, one)], vec![(b, one), (0, m)], vec![]]);
    }
    rows
}

/// The rules of the read-only pair instance, in row order, for messages.
const READ_ONLY_RULES: [&str; READ_ONLY_PAIR_CONSTRAINTS] = [
    "addresses step by 0 or 1",
    "one address, one segment (an index out of bounds)",
    "one write per address, before its reads (a read with no write, or a second write)",
    "a read returns the address's one write",
];

/// The read-only pair instance's variables for `(e, e')`: `[1, a, s, v, w, a', s', v', w']`
/// (timestamps are not part of it).
pub fn ro_pair_assignment(e: &MemoryEntry, n: &MemoryEntry) -> Vec<Fr> {
    vec![
        Fr::one(),
        e.addr,
        Fr::from(e.seg),
        e.value,
        e.rw,
        n.addr,
        Fr::from(n.seg),
        n.value,
        n.rw,
    ]
}

/// The rows `(A, B, C)` of the read-only pair instance over [`ro_pair_assignment`]'s
/// variables: `d(d − 1) = 0`, `(1 − d)(s' − s) = 0`, `w' − d = 0`, `(1 − d)(v' − v) = 0`.
pub fn ro_pair_rows() -> Vec<[Vec<Term>; 3]> {
    let one = Fr::one();
    let m = -one;
    let (a, s, v) = (1, 2, 3);
    let (a2, s2, v2, w2) = (5, 6, 7, 8);
    let d = || vec![(a2, one), (a, m)];
    let not_d = || vec![(0, one), (a2, m), (a, one)];
    vec![
        [d(), vec![(a2, one), (a, m), (0, m)], vec![]],
        [not_d(), vec![(s2, one), (s, m)], vec![]],
        [vec![(w2, one), (a2, m), (a, one)], vec![(0, one)], vec![]],
        [not_d(), vec![(v2, one), (v, m)], vec![]],
    ]
}

fn eval(row: &[Term], z: &[Fr]) -> Fr {
    row.iter().map(|&(k, c)| z[k] * c).sum()
}

/// The first row of the pair instance `z` fails, if any.
pub fn first_failing_row(rows: &[[Vec<Term>; 3]], z: &[Fr]) -> Option<usize> {
    rows.iter()
        .position(|[a, b, c]| eval(a, z) * eval(b, z) != eval(c, z))
}

/// The entries sorted by `(addr, ts)`: what the prover lists.
pub fn sorted(trace: &MemoryTrace) -> Vec<MemoryEntry> {
    let mut all = trace.exec_order();
    all.sort_by_key(|e| (e.addr, e.ts));
    all
}

/// The read-only entries sorted by address, each address's write first: what the prover
/// lists.
pub fn sorted_read_only(trace: &MemoryTrace) -> Vec<MemoryEntry> {
    let mut all = trace.ro_exec_order();
    all.sort_by_key(|e| (e.addr, e.rw.is_zero()));
    all
}

/// `fp(e) = addr + β·seg + β²·value + β³·rw + β⁴·ts`.
pub fn fingerprint(e: &MemoryEntry, beta: Fr) -> Fr {
    let mut acc = Fr::from(e.ts);
    for x in [e.rw, e.value, Fr::from(e.seg), e.addr] {
        acc = acc * beta + x;
    }
    acc
}

/// The challenges `(r, β)` for the read-write list's grand product: SHA-256 over both lists.
pub fn challenges(exec_order: &[MemoryEntry], sorted: &[MemoryEntry]) -> (Fr, Fr) {
    challenges_in(b"zkbc memory check", exec_order, sorted)
}

/// The challenges `(r, β)` for a grand product: SHA-256 over `domain` and both lists.
pub fn challenges_in(
    domain: &[u8],
    exec_order: &[MemoryEntry],
    sorted: &[MemoryEntry],
) -> (Fr, Fr) {
    let mut h = Sha256::new();
    h.update(domain);
    for e in exec_order.iter().chain(sorted) {
        for x in [e.addr, e.value, e.rw] {
            h.update(x.into_bigint().to_bytes_le());
        }
        h.update(e.seg.to_le_bytes());
        h.update(e.ts.to_le_bytes());
    }
    let seed: [u8; 32] = h.finalize().into();
    let draw = |k: u8| {
        let mut h = Sha256::new();
        h.update(seed);
        h.update([k]);
        let mut wide = h.finalize().to_vec();
        let mut h = Sha256::new();
        h.update(seed);
        h.update([k, 1]);
        wide.extend(h.finalize());
        Fr::from_le_bytes_mod_order(&wide)
    };
    (draw(0), draw(1))
}

/// `Π (r − fp(e))`.
pub fn grand_product(entries: &[MemoryEntry], r: Fr, beta: Fr) -> Fr {
    entries
        .iter()
        .fold(Fr::one(), |p, e| p * (r - fingerprint(e, beta)))
}

/// Checks a run's memory: sorts each list's entries, checks every adjacent pair against its
/// pair instance and the grand products of the two orders.
pub fn check_memory(trace: &MemoryTrace) -> Result<(), MemoryError> {
    check_sorted(trace, &sorted(trace), &sorted_read_only(trace))
}

/// Checks a run's memory against the sorted lists a prover gives: `rw` for the read-write
/// list, `ro` for the read-only one (each checked only when its list has an access).
pub fn check_sorted(
    trace: &MemoryTrace,
    rw: &[MemoryEntry],
    ro: &[MemoryEntry],
) -> Result<(), MemoryError> {
    if !trace.accesses.is_empty() {
        check_read_write(trace, rw)?;
    }
    if !trace.ro_accesses.is_empty() {
        check_read_only(trace, ro)?;
    }
    Ok(())
}

fn check_read_write(trace: &MemoryTrace, list: &[MemoryEntry]) -> Result<(), MemoryError> {
    let first = list.first().ok_or(MemoryError::Start)?;
    if !first.addr.is_zero() || first.ts != 0 {
        return Err(MemoryError::Start);
    }
    let t_bits = trace.time_bits();
    let rows = pair_rows(t_bits);
    for pair in list.windows(2) {
        let z = pair_assignment(&pair[0], &pair[1], t_bits);
        if let Some(k) = first_failing_row(&rows, &z) {
            let ts = pair[1].ts;
            return Err(MemoryError::Pair {
                ts,
                step: (ts > 0)
                    .then(|| trace.steps.get(ts as usize - 1).copied())
                    .flatten(),
                addr: pair[1].addr.to_string(),
                rule: RULES[k.min(RULES.len() - 1)],
            });
        }
    }
    let exec_order = trace.exec_order();
    let (r, beta) = challenges(&exec_order, list);
    if grand_product(&exec_order, r, beta) != grand_product(list, r, beta) {
        return Err(MemoryError::Permutation);
    }
    Ok(())
}

fn check_read_only(trace: &MemoryTrace, list: &[MemoryEntry]) -> Result<(), MemoryError> {
    let first = list.first().ok_or(MemoryError::ReadOnlyStart)?;
    if !first.addr.is_zero() || first.rw != Fr::one() {
        return Err(MemoryError::ReadOnlyStart);
    }
    let rows = ro_pair_rows();
    for pair in list.windows(2) {
        let z = ro_pair_assignment(&pair[0], &pair[1]);
        if let Some(k) = first_failing_row(&rows, &z) {
            let access = trace.ro_accesses.iter().position(|e| *e == pair[1]);
            return Err(MemoryError::ReadOnlyPair {
                access: access.map(|k| k + 1),
                step: access.and_then(|k| trace.ro_steps.get(k).copied()),
                addr: pair[1].addr.to_string(),
                rule: READ_ONLY_RULES[k],
            });
        }
    }
    let exec_order = trace.ro_exec_order();
    // The read-only fingerprint has no timestamp: every entry's `ts` is 0, so `fp` is
    // `addr + β·seg + β²·value + β³·rw` (the `β⁴·ts` term vanishes).
    if exec_order.iter().chain(list).any(|e| e.ts != 0) {
        return Err(MemoryError::ReadOnlyPermutation);
    }
    let (r, beta) = challenges_in(b"zkbc read-only memory check", &exec_order, list);
    if grand_product(&exec_order, r, beta) != grand_product(list, r, beta) {
        return Err(MemoryError::ReadOnlyPermutation);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(addr: u64, seg: u64, value: u64, rw: u64, ts: u64) -> MemoryEntry {
        MemoryEntry {
            addr: Fr::from(addr),
            seg,
            value: Fr::from(value),
            rw: Fr::from(rw),
            ts,
        }
    }

    fn trace(accesses: Vec<MemoryEntry>) -> MemoryTrace {
        MemoryTrace {
            inits: (0..4).map(|a| entry(a, a / 2, 0, 1, 0)).collect(),
            steps: (0..accesses.len()).collect(),
            accesses,
            ..MemoryTrace::default()
        }
    }

    #[test]
    fn consistent_reads_and_writes_check() {
        let t = trace(vec![
            entry(1, 0, 7, 1, 1),
            entry(1, 0, 7, 0, 2),
            entry(2, 1, 0, 0, 3),
            entry(1, 0, 9, 1, 4),
            entry(1, 0, 9, 0, 5),
        ]);
        assert_eq!(check_memory(&t), Ok(()));
    }

    #[test]
    fn a_stale_read_is_rejected() {
        let t = trace(vec![entry(1, 0, 7, 1, 1), entry(1, 0, 0, 0, 2)]);
        assert!(matches!(
            check_memory(&t),
            Err(MemoryError::Pair {
                rule: "a read returns the last value written",
                ..
            })
        ));
    }

    #[test]
    fn an_access_in_another_segment_or_past_the_end_is_rejected() {
        // Address 2 belongs to segment 1.
        let t = trace(vec![entry(2, 0, 0, 0, 1)]);
        assert!(matches!(check_memory(&t), Err(MemoryError::Pair { .. })));
        let t = trace(vec![entry(4, 1, 0, 0, 1)]);
        assert!(matches!(check_memory(&t), Err(MemoryError::Pair { .. })));
    }

    #[test]
    fn a_guarded_write_with_guard_zero_is_a_read() {
        let ok = trace(vec![entry(0, 0, 5, 1, 1), entry(0, 0, 5, 0, 2)]);
        assert_eq!(check_memory(&ok), Ok(()));
        let bad = trace(vec![entry(0, 0, 5, 1, 1), entry(0, 0, 6, 0, 2)]);
        assert!(check_memory(&bad).is_err());
    }

    #[test]
    fn the_grand_products_differ_when_the_lists_differ() {
        let a = vec![entry(0, 0, 1, 1, 1), entry(1, 0, 2, 0, 2)];
        let mut b = a.clone();
        let (r, beta) = challenges(&a, &b);
        assert_eq!(grand_product(&a, r, beta), grand_product(&b, r, beta));
        b[1].value = Fr::from(3u64);
        assert_ne!(grand_product(&a, r, beta), grand_product(&b, r, beta));
    }

    /// A read-only list: the head, segment 1 at addresses 1..3 with constant contents [5, 6],
    /// segment 2 at addresses 3..5 written by the entry block (accesses), then `reads`.
    fn ro_trace(writes: Vec<MemoryEntry>, reads: Vec<MemoryEntry>) -> MemoryTrace {
        let accesses: Vec<MemoryEntry> = writes.into_iter().chain(reads).collect();
        MemoryTrace {
            ro_inits: vec![
                entry(0, 0, 0, 1, 0),
                entry(1, 1, 5, 1, 0),
                entry(2, 1, 6, 1, 0),
            ],
            ro_steps: (0..accesses.len()).collect(),
            ro_accesses: accesses,
            ..MemoryTrace::default()
        }
    }

    fn ro_writes() -> Vec<MemoryEntry> {
        vec![entry(3, 2, 10, 1, 0), entry(4, 2, 11, 1, 0)]
    }

    fn ro_rule(t: &MemoryTrace) -> Option<&'static str> {
        match check_memory(t) {
            Err(MemoryError::ReadOnlyPair { rule, .. }) => Some(rule),
            _ => None,
        }
    }

    #[test]
    fn a_consistent_read_only_list_checks_in_any_order() {
        let reads = vec![
            entry(4, 2, 11, 0, 0),
            entry(1, 1, 5, 0, 0),
            entry(4, 2, 11, 0, 0),
            entry(2, 1, 6, 0, 0),
            entry(3, 2, 10, 0, 0),
        ];
        assert_eq!(check_memory(&ro_trace(ro_writes(), reads.clone())), Ok(()));
        // A read before the write in execution order checks too: there is no time.
        let mut first = reads;
        first.extend(ro_writes());
        assert_eq!(check_memory(&ro_trace(Vec::new(), first)), Ok(()));
        // The pair instance has 4 rows and no bit.
        assert_eq!(ro_pair_rows().len(), READ_ONLY_PAIR_CONSTRAINTS);
    }

    #[test]
    fn a_read_only_read_of_another_value_is_rejected() {
        let t = ro_trace(ro_writes(), vec![entry(2, 1, 7, 0, 0)]);
        assert_eq!(ro_rule(&t), Some("a read returns the address's one write"));
        let t = ro_trace(ro_writes(), vec![entry(4, 2, 10, 0, 0)]);
        assert_eq!(ro_rule(&t), Some("a read returns the address's one write"));
    }

    #[test]
    fn a_read_only_read_without_a_write_is_rejected() {
        // Address 4's write left out: its read starts the address.
        let t = ro_trace(vec![entry(3, 2, 10, 1, 0)], vec![entry(4, 2, 11, 0, 0)]);
        assert_eq!(
            ro_rule(&t),
            Some(
                "one write per address, before its reads (a read with no write, or a second write)"
            )
        );
        // Past the range (address 5 has no write), or in another segment (address 2 is
        // segment 1's).
        let t = ro_trace(ro_writes(), vec![entry(5, 2, 0, 0, 0)]);
        assert!(ro_rule(&t).is_some());
        let t = ro_trace(ro_writes(), vec![entry(2, 2, 6, 0, 0)]);
        assert_eq!(
            ro_rule(&t),
            Some("one address, one segment (an index out of bounds)")
        );
    }

    #[test]
    fn a_second_read_only_write_at_one_address_is_rejected() {
        let mut writes = ro_writes();
        writes.push(entry(3, 2, 12, 1, 0));
        let t = ro_trace(writes, vec![entry(3, 2, 10, 0, 0)]);
        assert_eq!(
            ro_rule(&t),
            Some(
                "one write per address, before its reads (a read with no write, or a second write)"
            )
        );
        // Also when the second write repeats the value: an address has one write.
        let mut writes = ro_writes();
        writes.push(entry(1, 1, 5, 1, 0));
        assert!(ro_rule(&ro_trace(writes, Vec::new())).is_some());
    }

    #[test]
    fn an_entry_moved_between_the_lists_is_rejected() {
        // Both lists: read-write addresses 0..4, read-only as above.
        let mut t = ro_trace(ro_writes(), vec![entry(1, 1, 5, 0, 0)]);
        t.inits = trace(Vec::new()).inits;
        t.accesses = vec![entry(1, 0, 0, 0, 1), entry(3, 1, 0, 0, 2)];
        t.steps = vec![0, 1];
        let (rw, ro) = (sorted(&t), sorted_read_only(&t));
        assert_eq!(check_sorted(&t, &rw, &ro), Ok(()));
        // The read-only read taken out of its list and put in the read-write one.
        let moved = entry(1, 1, 5, 0, 0);
        let ro_less: Vec<MemoryEntry> = ro.iter().copied().filter(|e| *e != moved).collect();
        let mut rw_more = rw.clone();
        rw_more.push(moved);
        rw_more.sort_by_key(|e| (e.addr, e.ts));
        assert!(check_sorted(&t, &rw_more, &ro_less).is_err());
        assert_eq!(
            check_sorted(&t, &rw, &ro_less),
            Err(MemoryError::ReadOnlyPermutation)
        );
        // A read-write read (at an address the read-only list also has) moved the other way.
        let moved = entry(1, 0, 0, 0, 1);
        let rw_less: Vec<MemoryEntry> = rw.iter().copied().filter(|e| *e != moved).collect();
        let mut ro_more = ro.clone();
        ro_more.push(moved);
        ro_more.sort_by_key(|e| (e.addr, e.rw.is_zero()));
        assert!(check_sorted(&t, &rw_less, &ro_more).is_err());
        assert_eq!(
            check_sorted(&t, &rw_less, &ro),
            Err(MemoryError::Permutation)
        );
    }
}
