//! Memory in the Spartan backend: what the statement says of a program's memory (each list's
//! public entries and every block's accesses), the pair tables the prover commits (each list's
//! address-sorted entries, one adjacent pair per row, checked by `r1cs::memory`'s pair
//! instances), and the tuples whose grand products tie the tables to the blocks' accesses. The argument and why it is sound
//! are in the parent module's doc ([`super`], "Memory").

use super::links::Challenges;
use crate::field::Fr;
use crate::prove::SparseR1cs;
use crate::r1cs::memory::check::{pair_assignment, pair_rows, ro_pair_assignment, ro_pair_rows};
use crate::r1cs::memory::MemoryEntry;
use ark_ff::{One, Zero};

/// How an access's `rw` (1 for a write) is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rw {
    /// A read: `rw = 0`.
    Read,
    /// A write: `rw = 1`.
    Write,
    /// A guarded write: `rw` is this wire of `z`.
    Wire(usize),
}

/// One memory access of a block: its segment and where its address and value sit in `z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The segment (program-wide).
    pub seg: u64,
    /// The wire of `z` holding the address.
    pub addr: usize,
    /// The wire of `z` holding the value.
    pub value: usize,
    /// Whether it writes.
    pub rw: Rw,
    /// Whether its segment is read-only: its entry belongs to the read-only list.
    pub read_only: bool,
}

/// A program's memory as the statement knows it, and the prover's run of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// The read-write list's initial entries, one per address `0 .. size` in address order
    /// (public: from the program); empty without a read-write segment.
    pub inits: Vec<MemoryEntry>,
    /// The read-only list's public entries in address order (its head at address 0 and the
    /// elements of constant segments); empty without a read-only segment.
    pub ro_inits: Vec<MemoryEntry>,
    /// The read-only list's addresses `0 .. ro_size`.
    pub ro_size: u64,
    /// Per statement block, its accesses in execution order.
    pub accesses: Vec<Vec<Access>>,
    /// The prover's: per block, per execution, the accesses the run made before it (its
    /// clock). Empty for the verifier.
    pub clocks: Vec<Vec<u64>>,
    /// The prover's: the initial entries and the accesses sorted by `(addr, ts)`. Empty for
    /// the verifier.
    pub sorted: Vec<MemoryEntry>,
    /// The prover's: the read-only list sorted by address, each address's write first.
    pub ro_sorted: Vec<MemoryEntry>,
}

impl Memory {
    /// Checks the shape against `blocks` blocks of `num_vars` wires each.
    pub(super) fn validate(&self, num_vars: &[usize]) -> Result<(), String> {
        if self.accesses.len() != num_vars.len() {
            return Err("the memory's accesses are not one list per block".into());
        }
        if self.inits.is_empty() && self.ro_inits.is_empty() {
            return Err("a program with memory accesses has no memory".into());
        }
        if self
            .inits
            .iter()
            .enumerate()
            .any(|(k, e)| e.addr != Fr::from(k as u64) || e.ts != 0 || e.rw != Fr::one())
        {
            return Err("the initial memory entries are not addresses 0, 1, ... in order".into());
        }
        let head = MemoryEntry {
            addr: Fr::zero(),
            seg: 0,
            value: Fr::zero(),
            rw: Fr::one(),
            ts: 0,
        };
        if self.ro_inits.first().is_some_and(|e| *e != head)
            || self.ro_inits.windows(2).any(|w| w[0].addr >= w[1].addr)
            || self
                .ro_inits
                .iter()
                .any(|e| e.ts != 0 || e.rw != Fr::one() || e.addr >= Fr::from(self.ro_size))
            || self.ro_inits.is_empty() != (self.ro_size == 0)
        {
            return Err(
                "the read-only memory's public entries are not its head and \
                        increasing addresses below its size"
                    .into(),
            );
        }
        let has_rw = !self.inits.is_empty();
        let has_ro = !self.ro_inits.is_empty();
        if self
            .accesses
            .iter()
            .flatten()
            .any(|a| if a.read_only { !has_ro } else { !has_rw })
        {
            return Err("a memory access has no list to go to".into());
        }
        for (list, &n) in self.accesses.iter().zip(num_vars) {
            for a in list {
                let rw = match a.rw {
                    Rw::Wire(w) => w,
                    _ => 0,
                };
                if a.addr == 0 || a.value == 0 || a.addr.max(a.value).max(rw) >= n {
                    return Err("a memory access's wire is not in its block".into());
                }
            }
        }
        Ok(())
    }

    /// The address past the last: where the sorted list's sentinel sits.
    pub(super) fn size(&self) -> u64 {
        self.inits.len() as u64
    }

    /// The entry after the last of the sorted list: `(size, 0, 0, 1, 0)`. Every pair rule
    /// holds between the last real entry (address `size − 1`) and it.
    pub(super) fn sentinel(&self) -> MemoryEntry {
        MemoryEntry {
            addr: Fr::from(self.size()),
            seg: 0,
            value: Fr::zero(),
            rw: Fr::one(),
            ts: 0,
        }
    }

    /// The read-only list's sentinel `(ro_size, 0, 0, 1)`: its last pair steps to it.
    pub(super) fn ro_sentinel(&self) -> MemoryEntry {
        MemoryEntry {
            addr: Fr::from(self.ro_size),
            ..self.sentinel()
        }
    }

    /// The read-only pair table's rows: `(ro_sorted[k], ro_sorted[k + 1])`, the last with its
    /// sentinel.
    pub(super) fn ro_pair_rows(&self) -> Vec<Vec<Fr>> {
        let sentinel = [self.ro_sentinel()];
        let next = self.ro_sorted.iter().skip(1).chain(&sentinel);
        self.ro_sorted
            .iter()
            .zip(next)
            .map(|(e, n)| ro_pair_assignment(e, n))
            .collect()
    }

    /// The pair table's rows: `(sorted[k], sorted[k + 1])`, the last with the sentinel.
    pub(super) fn pair_rows(&self, t_bits: u32) -> Vec<Vec<Fr>> {
        let sentinel = [self.sentinel()];
        let next = self.sorted.iter().skip(1).chain(&sentinel);
        self.sorted
            .iter()
            .zip(next)
            .map(|(e, n)| pair_assignment(e, n, t_bits))
            .collect()
    }
}

/// The pair instance (`r1cs::memory::check::pair_rows`) as the prover's sparse matrices, over
/// `z = [1, a, s, v, w, t, a', s', v', w', t', u, bits..]`.
pub fn pair_r1cs(t_bits: u32) -> SparseR1cs {
    let sort = |row: &Vec<(usize, Fr)>| {
        let mut r = row.clone();
        r.sort_by_key(|t| t.0);
        r
    };
    let rows = pair_rows(t_bits);
    SparseR1cs {
        num_instance: 10,
        num_witness: 1 + t_bits as usize,
        a: rows.iter().map(|r| sort(&r[0])).collect(),
        b: rows.iter().map(|r| sort(&r[1])).collect(),
        c: rows.iter().map(|r| sort(&r[2])).collect(),
    }
}

/// The read-only pair instance (`r1cs::memory::check::ro_pair_rows`) as the prover's sparse
/// matrices, over `z = [1, a, s, v, w, a', s', v', w']` (no witness).
pub fn ro_pair_r1cs() -> SparseR1cs {
    let sort = |row: &Vec<(usize, Fr)>| {
        let mut r = row.clone();
        r.sort_by_key(|t| t.0);
        r
    };
    let rows = ro_pair_rows();
    SparseR1cs {
        num_instance: 8,
        num_witness: 0,
        a: rows.iter().map(|r| sort(&r[0])).collect(),
        b: rows.iter().map(|r| sort(&r[1])).collect(),
        c: rows.iter().map(|r| sort(&r[2])).collect(),
    }
}

/// `β^1 .. β^5`: the weights of an entry's `(addr, seg, value, rw, ts)`.
fn powers5(beta: Fr) -> [Fr; 5] {
    let mut p = [beta; 5];
    for k in 1..5 {
        p[k] = p[k - 1] * beta;
    }
    p
}

/// `fp(1, e) = 1 + β·addr + β²·seg + β³·value + β⁴·rw + β⁵·ts`, a public entry's fingerprint.
pub(super) fn entry_fingerprint(e: &MemoryEntry, beta: Fr) -> Fr {
    let p = powers5(beta);
    Fr::one()
        + p[0] * e.addr
        + p[1] * Fr::from(e.seg)
        + p[2] * e.value
        + p[3] * e.rw
        + p[4] * Fr::from(e.ts)
}

/// `fp(1, e)` of a read-only public entry: its timestamp slot holds the list's tag `−1`.
pub(super) fn ro_entry_fingerprint(e: &MemoryEntry, beta: Fr) -> Fr {
    let p = powers5(beta);
    Fr::one() + p[0] * e.addr + p[1] * Fr::from(e.seg) + p[2] * e.value + p[3] * e.rw - p[4]
}

/// The memory tuple of a block's access as weights on its table row: a read-write access,
/// the `k`-th of its block's (`clock` the clock column), is `(z[0], addr, seg·z[0], value, rw,
/// clock + (k+1)·z[0])`; a read-only one is `(z[0], addr, seg·z[0], value, rw·z[0], −z[0])`.
pub(super) fn access_tuple(
    a: &Access,
    k: usize,
    clock: usize,
    ch: &Challenges,
) -> Vec<(usize, Fr)> {
    let p = powers5(ch.beta_mem);
    let rw_const = match a.rw {
        Rw::Write => Fr::one(),
        Rw::Read | Rw::Wire(_) => Fr::zero(),
    };
    if a.read_only {
        let mut w = vec![
            (
                0,
                Fr::one() + p[1] * Fr::from(a.seg) + p[3] * rw_const - p[4],
            ),
            (a.addr, p[0]),
            (a.value, p[2]),
        ];
        if let Rw::Wire(v) = a.rw {
            w.push((v, p[3]));
        }
        return w;
    }
    let mut w = vec![
        (
            0,
            Fr::one() + p[1] * Fr::from(a.seg) + p[3] * rw_const + p[4] * Fr::from(k as u64 + 1),
        ),
        (a.addr, p[0]),
        (a.value, p[2]),
        (clock, p[4]),
    ];
    if let Rw::Wire(v) = a.rw {
        w.push((v, p[3]));
    }
    w
}

/// The pair table's chain tuples `(z[0], e)` and `(z[0], e')`: the same encoding as
/// [`access_tuple`] and [`entry_fingerprint`].
pub(super) fn pair_tuples(ch: &Challenges) -> [Vec<(usize, Fr)>; 2] {
    let p = powers5(ch.beta_mem);
    let tuple = |first: usize| {
        std::iter::once((0, Fr::one()))
            .chain((0..5).map(|k| (first + k, p[k])))
            .collect()
    };
    [tuple(1), tuple(6)]
}

/// The read-only pair table's chain tuples `(z[0], e)` and `(z[0], e')`, `e = (a, s, v, w)`
/// with the tag `−z[0]` in the timestamp slot: [`ro_entry_fingerprint`]'s encoding.
pub(super) fn ro_pair_tuples(ch: &Challenges) -> [Vec<(usize, Fr)>; 2] {
    let p = powers5(ch.beta_mem);
    let tuple = |first: usize| {
        std::iter::once((0, Fr::one() - p[4]))
            .chain((0..4).map(|k| (first + k, p[k])))
            .collect()
    };
    [tuple(1), tuple(5)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::r1cs::memory::check::{sorted, time_bits};
    use crate::r1cs::memory::MemoryTrace;

    fn entry(addr: u64, value: u64, rw: u64, ts: u64) -> MemoryEntry {
        MemoryEntry {
            addr: Fr::from(addr),
            seg: addr / 2,
            value: Fr::from(value),
            rw: Fr::from(rw),
            ts,
        }
    }

    fn memory(accesses: Vec<MemoryEntry>) -> Memory {
        let trace = MemoryTrace {
            inits: (0..4).map(|a| entry(a, 0, 1, 0)).collect(),
            steps: (0..accesses.len()).collect(),
            accesses,
            ..MemoryTrace::default()
        };
        Memory {
            inits: trace.inits.clone(),
            sorted: sorted(&trace),
            ..Memory::default()
        }
    }

    #[test]
    fn the_pair_table_of_a_coherent_list_is_satisfied_up_to_the_sentinel_and_a_stale_read_is_not() {
        let m = memory(vec![
            entry(1, 7, 1, 1),
            entry(1, 7, 0, 2),
            entry(3, 0, 0, 3),
        ]);
        let t_bits = time_bits(3);
        let r1cs = pair_r1cs(t_bits);
        let rows = m.pair_rows(t_bits);
        assert_eq!(rows.len(), 4 + 3);
        assert!(rows.iter().all(|z| r1cs.first_unsatisfied(z).is_none()));
        // The last pair ends at the sentinel, address 4.
        assert_eq!(rows.last().unwrap()[6], Fr::from(4u64));
        let stale = memory(vec![entry(1, 7, 1, 1), entry(1, 0, 0, 2)]);
        let rows = stale.pair_rows(time_bits(2));
        let r1cs = pair_r1cs(time_bits(2));
        assert_eq!(
            rows.iter()
                .filter(|z| r1cs.first_unsatisfied(z).is_some())
                .count(),
            1
        );
    }
}
