//! A block's rows compiled once for checking many executions: the form the checker uses.
//!
//! [`BlockR1cs::first_unsatisfied_z`](super::BlockR1cs::first_unsatisfied_z) evaluates every
//! row's three combinations as they are stored. A block in a loop is checked the same way on
//! every execution, so [`CompiledRows::new`] prepares its rows once:
//!
//! 1. A combination's term on variable 0 (always 1, and first: rows are sorted) becomes the
//!    combination's constant, added without a multiplication.
//! 2. Identical combinations are evaluated once per execution: the guard or selector of a
//!    gadget is read by many of its rows (`(g - 3) · x = y - x` for every `x`).
//! 3. Each row is checked in the cheapest exact form: `a · b = 0` as `a = 0 or b = 0` (a field
//!    has no zero divisors); a row with a constant side `k` as `k · b = c`, and as `b = c`
//!    when `k` is 1; every other row as a product and a comparison.
//!
//! For `acc = acc * acc + x; if acc == 0 { acc = 1; }` (11 rows, 33 combinations) this
//! leaves 21 combinations to evaluate and 8 products, against 30 and 18.
//!
//! # Invariants
//!
//! - Every row is decided on every execution, from `z` alone, exactly as the stored rows
//!   decide it: [`CompiledRows::first_unsatisfied`] returns what `first_unsatisfied_z` returns
//!   on any `z` (the tests below compare the two on every corrupted slot of an execution).
//! - Nothing is taken from how the witness was computed: a wrong witness is rejected.

use super::builder::{add_packed, Packed, Rows};
use crate::field::Fr;
use crate::fxhash::HashMap;
use ark_ff::{One, Zero};
use rayon::prelude::*;

/// A combination: its constant and the range of its other terms in [`CompiledRows::terms`].
#[derive(Clone, Copy, Debug)]
struct Combo {
    constant: Fr,
    start: u32,
    end: u32,
}

/// How one row is decided, over the indices of its combinations' values.
#[derive(Clone, Copy, Debug)]
enum Check {
    /// `a · b = c`.
    Product(u32, u32, u32),
    /// `a · b = 0`: `a = 0` or `b = 0`.
    ZeroProduct(u32, u32),
    /// `k · b = c`, one side the constant `k`.
    Scaled(Fr, u32, u32),
    /// `b = c`, one side the constant 1.
    Equal(u32, u32),
}

/// A block's rows prepared for [`CompiledRows::first_unsatisfied`] (see the module doc).
#[derive(Clone, Debug, Default)]
pub(crate) struct CompiledRows {
    combos: Vec<Combo>,
    /// The combinations' terms on variables other than 0.
    terms: Vec<Packed>,
    coeffs: Vec<Fr>,
    /// One per constraint, in order.
    checks: Vec<Check>,
}

impl CompiledRows {
    /// Compiles `rows` (A, B and C of each constraint in turn) over the coefficients `coeffs`.
    pub fn new(rows: &Rows, coeffs: &[Fr]) -> CompiledRows {
        // Sized once: a block of a million rows grew these maps and vectors a few dozen times,
        // rehashing every combination each time (a ninth of checking a Keccak block run once).
        let n_rows = rows.len();
        let mut compiled = CompiledRows {
            coeffs: coeffs.to_vec(),
            combos: Vec::with_capacity(n_rows),
            terms: Vec::with_capacity(rows.terms.len()),
            checks: Vec::with_capacity(n_rows / 3),
        };
        let mut seen: HashMap<&[Packed], u32> =
            HashMap::with_capacity_and_hasher(n_rows, Default::default());
        // Per combination, its constant when it has no other term.
        let mut constant_only: Vec<Option<Fr>> = Vec::with_capacity(n_rows);
        let mut start = 0usize;
        for k in 0..rows.len() / 3 {
            let ends = &rows.ends[3 * k..3 * k + 3];
            let (ea, eb, ec) = (ends[0] as usize, ends[1] as usize, ends[2] as usize);
            let [a, b, c] = [start..ea, ea..eb, eb..ec].map(|range| {
                let row = &rows.terms[range];
                *seen
                    .entry(row)
                    .or_insert_with(|| compiled.push_combo(row, &mut constant_only))
            });
            let check = if ec == eb {
                Check::ZeroProduct(a, b)
            } else {
                match (constant_only[a as usize], constant_only[b as usize]) {
                    (Some(k), _) if k.is_one() => Check::Equal(b, c),
                    (_, Some(k)) if k.is_one() => Check::Equal(a, c),
                    (Some(k), _) => Check::Scaled(k, b, c),
                    (_, Some(k)) => Check::Scaled(k, a, c),
                    (None, None) => Check::Product(a, b, c),
                }
            };
            compiled.checks.push(check);
            start = ec;
        }
        compiled
    }

    /// Adds the combination `row` (sorted, so a term on variable 0 is first); its index.
    fn push_combo(&mut self, row: &[Packed], constant_only: &mut Vec<Option<Fr>>) -> u32 {
        let (constant, rest) = match row.split_first() {
            Some((&(0, c), rest)) => (self.coeffs[c as usize], rest),
            _ => (Fr::zero(), row),
        };
        let start = self.terms.len() as u32;
        self.terms.extend_from_slice(rest);
        self.combos.push(Combo {
            constant,
            start,
            end: self.terms.len() as u32,
        });
        constant_only.push(rest.is_empty().then_some(constant));
        self.combos.len() as u32 - 1
    }

    /// The first row `z` violates (`z = [1, instance.., witness..]`, anything after the witness
    /// ignored); `values` is scratch space, reused across calls.
    pub fn first_unsatisfied(&self, z: &[Fr], values: &mut Vec<Fr>) -> Option<usize> {
        let combo = |combo: &Combo| {
            let terms = &self.terms[combo.start as usize..combo.end as usize];
            add_packed(combo.constant, terms, z, &self.coeffs)
        };
        // A large block (Keccak, SHA-256 as one block) is often executed once: its rows are
        // then the check's only work, split over the threads (the first failing row is still
        // the one named: `position_first`).
        if self.checks.len() >= PARALLEL_ROWS {
            self.combos.par_iter().map(combo).collect_into_vec(values);
            let values = &*values;
            return self
                .checks
                .par_iter()
                .position_first(|check| fails(check, values));
        }
        values.clear();
        values.extend(self.combos.iter().map(combo));
        self.checks.iter().position(|check| fails(check, values))
    }
}

/// Rows from which one execution's check is split over threads.
pub(crate) const PARALLEL_ROWS: usize = 1 << 14;

/// Whether `check` fails on the combinations' `values`.
fn fails(check: &Check, values: &[Fr]) -> bool {
    let at = |i: u32| values[i as usize];
    match *check {
        Check::Product(a, b, c) => at(a) * at(b) != at(c),
        Check::ZeroProduct(a, b) => !at(a).is_zero() && !at(b).is_zero(),
        Check::Scaled(k, b, c) => k * at(b) != at(c),
        Check::Equal(b, c) => at(b) != at(c),
    }
}

#[cfg(test)]
mod tests {
    use crate::field::Fr;
    use crate::ir::interp;
    use crate::r1cs::{for_each_execution, CheckError};

    /// The loop of the module doc (a product, a zero test, a selection, a `u32` increment).
    const LOOP: &str = "
fn main f0 -> field {
b0(v0: field, v1: u32):
    v5 = eq u32 0, v1
    br v5, b3(v0), b2(u32 0, v0)
b2(v21: u32, v22: field):
    v35 = mul v22, v22
    v36 = add v35, v0
    v37 = eq v36, field 0
    v39 = select v37, field 1, v36
    v40 = add nuw v21, u32 1
    v41 = eq v40, v1
    br v41, b3(v39), b2(v40, v39)
b3(v23: field):
    return v23
}
";

    /// On every execution, and on every execution with one slot of `z` changed, the compiled
    /// rows name the row the stored rows name; and every changed witness slot that the stored
    /// rows reject is rejected.
    #[test]
    fn compiled_rows_decide_as_the_stored_rows() {
        let program = crate::ir::parse_program(LOOP).expect("the loop parses");
        // x = 3, then x = p - 1 (so that acc * acc + x is 0 on some iteration: -1 * -1 - 1).
        for x in [Fr::from(3u64), -Fr::from(1u64)] {
            let inputs = [interp::Val::Field(x), interp::Val::UInt(5)];
            let outcome =
                interp::run(&program, &inputs, interp::Limits::default()).expect("the loop runs");
            let (mut executions, mut rejected) = (0, 0);
            for_each_execution(&program, &outcome, |_, blk, asg| {
                let mut scratch = Vec::new();
                let z = asg.full();
                assert_eq!(blk.first_unsatisfied_with(&z, &mut scratch), None);
                for slot in 1..z.len() {
                    for delta in [Fr::from(1u64), -Fr::from(2u64)] {
                        let mut bad = z.clone();
                        bad[slot] += delta;
                        let direct = blk.first_unsatisfied_z(&bad);
                        assert_eq!(blk.first_unsatisfied_with(&bad, &mut scratch), direct);
                        rejected += usize::from(direct.is_some());
                    }
                }
                executions += 1;
                Ok::<(), CheckError>(())
            })
            .expect("every execution is assigned");
            assert_eq!(executions, 7, "b0, five of b2, b3");
            assert!(rejected > 0, "some corrupted slot is rejected");
        }
    }

    /// A block of more rows than [`super::PARALLEL_ROWS`] is checked with its rows split over
    /// threads, both as stored and compiled: on corrupted slots spread over the block, both name
    /// the first failing row, as a sequential pass over the stored rows finds it.
    #[test]
    fn a_large_block_is_checked_in_parallel_as_in_order() {
        let n = super::PARALLEL_ROWS + 100;
        let mut text = String::from("fn main f0 -> field {\nb0(v0: field):\n");
        for i in 1..=n {
            text.push_str(&format!("    v{i} = mul v{}, v{}\n", i - 1, i - 1));
        }
        text.push_str(&format!("    return v{n}\n}}\n"));
        let program = crate::ir::parse_program(&text).expect("the chain parses");
        let inputs = [interp::Val::Field(Fr::from(3u64))];
        let outcome =
            interp::run(&program, &inputs, interp::Limits::default()).expect("the chain runs");
        let mut checked = 0;
        for_each_execution(&program, &outcome, |_, blk, asg| {
            assert!(blk.n_constraints() >= super::PARALLEL_ROWS, "a large block");
            let rows = &blk.reduced.rows;
            let coeffs = &blk.reduced.coeffs.values;
            let in_order = |z: &[Fr]| {
                let zero = <Fr as ark_ff::Zero>::zero();
                let eval = |t: &[super::Packed]| super::add_packed(zero, t, z, coeffs);
                (0..blk.n_constraints()).find(|&k| {
                    let start = if k == 0 {
                        0
                    } else {
                        rows.ends[3 * k - 1] as usize
                    };
                    let [ea, eb, ec] = [0, 1, 2].map(|i| rows.ends[3 * k + i] as usize);
                    let t = &rows.terms;
                    eval(&t[start..ea]) * eval(&t[ea..eb]) != eval(&t[eb..ec])
                })
            };
            let z = asg.full();
            let mut scratch = Vec::new();
            assert_eq!(blk.first_unsatisfied_z(&z), None);
            let step = (z.len() / 37).max(1);
            for slot in (1..z.len()).step_by(step).chain([z.len() - 1]) {
                let mut bad = z.clone();
                bad[slot] += Fr::from(5u64);
                let expected = in_order(&bad);
                assert!(expected.is_some(), "slot {slot} is bound by a row");
                assert_eq!(blk.first_unsatisfied_z(&bad), expected, "slot {slot}");
                assert_eq!(blk.first_unsatisfied_with(&bad, &mut scratch), expected);
                checked += 1;
            }
            Ok::<(), CheckError>(())
        })
        .expect("the execution is assigned");
        assert!(checked > 30);
    }
}
