//! The memory-checking instance: the pair instance over the address-sorted entries and the
//! grand product tying them to the execution order (construction and soundness in [`super`]).

use crate::field::Fr;
use ark_ff::{BigInteger, Field, One, PrimeField, Zero};
use sha2::{Digest, Sha256};
use std::fmt;

/// Constraints of the pair instance besides the T booleans of the time difference.
pub const PAIR_BASE_CONSTRAINTS: usize = 6;

/// Constraints the grand product pays per entry: one product step in each of the two lists.
pub const PRODUCT_CONSTRAINTS: usize = 2;

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

/// The memory of a run: the initial entries and the accesses in execution order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryTrace {
    /// One initial entry per address, in address order.
    pub inits: Vec<MemoryEntry>,
    /// The accesses, in execution order (`ts` = position from 1).
    pub accesses: Vec<MemoryEntry>,
    /// For each access, the trace step of the block execution that made it.
    pub steps: Vec<usize>,
}

impl MemoryTrace {
    /// Entries of the memory list (initial entries and accesses).
    pub fn entries(&self) -> usize {
        self.inits.len() + self.accesses.len()
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
    let mut all: Vec<MemoryEntry> = trace.inits.iter().chain(&trace.accesses).copied().collect();
    all.sort_by_key(|e| (e.addr, e.ts));
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

/// The challenges `(r, β)` for the grand product: SHA-256 over both lists.
pub fn challenges(exec_order: &[MemoryEntry], sorted: &[MemoryEntry]) -> (Fr, Fr) {
    let mut h = Sha256::new();
    h.update(b"zkbc memory check");
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

/// Checks a run's memory: sorts the entries, checks every adjacent pair against the pair
/// instance and the grand products of the two orders.
pub fn check_memory(trace: &MemoryTrace) -> Result<(), MemoryError> {
    if trace.accesses.is_empty() {
        return Ok(());
    }
    let list = sorted(trace);
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
    let exec_order: Vec<MemoryEntry> = trace.inits.iter().chain(&trace.accesses).copied().collect();
    let (r, beta) = challenges(&exec_order, &list);
    if grand_product(&exec_order, r, beta) != grand_product(&list, r, beta) {
        return Err(MemoryError::Permutation);
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
}
