//! How each variable of a block gets its value: a [`Recipe`] per allocation, the one
//! definition of a witness's value that both evaluators use.
//!
//! The gadgets allocate every variable through [`Builder::witness`](super::builder::Builder)
//! (or `instance`, `witnesses`) with a recipe that reads earlier variables through linear
//! combinations: `Mul(a, b)` is `⟨a, z⟩ · ⟨b, z⟩`, `Bits { x, m, skip }` the bits of `⟨x, z⟩`,
//! and so on. Recipes borrow their combinations, so building one costs nothing when it is not
//! needed (structure mode without recording).
//!
//! - In *witness* mode the builder evaluates the recipe at once over the values so far
//!   ([`Recipe::eval_into`]): the reference evaluator, re-run per execution by
//!   [`BlockR1cs::assign_with`](super::BlockR1cs::assign_with).
//! - In *recording* mode (structure mode plus a tape) the builder compiles the recipe into the
//!   block's [`Tape`](super::tape::Tape): lower once, evaluate many.
//!
//! The value kernels (`bit`, `selector`, `udiv`, ...) below are shared by the two evaluators;
//! what differs is only how a combination's value is found.

use super::lc::Lc;
use crate::field::{self, Fr};
use ark_ff::{One, PrimeField, Zero};

/// A value that comes from outside the block's constraints: the execution's input state, its
/// `hint` values, the values its reads of memory return, the spilled scalars it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Input leaf `k` (after the label: parameters, then live-ins).
    Input(u32),
    /// Hint value `k` (0 when the execution has fewer).
    Hint(u32),
    /// The value access `k` of the execution read (0 when it has fewer).
    Access(u32),
    /// Spilled scalar `k` the block reads (0 when missing).
    Spill(u32),
}

/// How one allocation (one variable, or `n` consecutive ones) gets its value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Recipe<'a> {
    /// A constant.
    Const(Fr),
    /// A value from outside, with its value in witness mode (ignored otherwise).
    Source(Source, Fr),
    /// `⟨x, z⟩`.
    Lin(&'a Lc),
    /// `⟨a, z⟩ · ⟨b, z⟩`.
    Mul(&'a Lc, &'a Lc),
    /// `⟨a, z⟩ · ⟨b, z⟩ + ⟨c, z⟩` (a bit of `xor`/`or` as one variable).
    MulAdd(&'a Lc, &'a Lc, &'a Lc),
    /// `⟨d, z⟩⁻¹`, 0 for 0.
    Inverse(&'a Lc),
    /// `[⟨d, z⟩ = 0]`.
    IsZero(&'a Lc),
    /// `⟨a, z⟩ / ⟨b, z⟩`, 0 when `⟨b, z⟩ = 0`.
    Quotient(&'a Lc, &'a Lc),
    /// The `m` low bits of the canonical value of `⟨x, z⟩` but bit `skip` (`m - 1` variables).
    Bits { x: &'a Lc, m: u32, skip: u32 },
    /// The `n` bits of `a / b` on the low 64 bits of both (0 when `b = 0`).
    UDiv { a: &'a Lc, b: &'a Lc, n: u32 },
    /// The `n` bits of `a % b` on the low 64 bits of both (`a` when `b = 0`).
    URem { a: &'a Lc, b: &'a Lc, n: u32 },
    /// Selectors `1..len`: `[⟨index, z⟩ = j] · ⟨guard, z⟩` (`len - 1` variables).
    Selectors {
        index: &'a Lc,
        guard: &'a Lc,
        len: usize,
    },
}

impl Recipe<'_> {
    /// How many variables the recipe gives values to.
    pub fn arity(&self) -> usize {
        match *self {
            Recipe::Bits { m, .. } => m as usize - 1,
            Recipe::UDiv { n, .. } | Recipe::URem { n, .. } => n as usize,
            Recipe::Selectors { len, .. } => len - 1,
            _ => 1,
        }
    }

    /// Appends the recipe's values, computed over `values` (indexed by variable), to `out`:
    /// the reference evaluator of witness mode.
    pub fn eval_into(&self, values: &[Fr], out: &mut Vec<Fr>) {
        let v = |lc: &Lc| lc.eval(values);
        match *self {
            Recipe::Const(c) => out.push(c),
            Recipe::Source(_, x) => out.push(x),
            Recipe::Lin(x) => out.push(v(x)),
            Recipe::Mul(a, b) => out.push(v(a) * v(b)),
            Recipe::MulAdd(a, b, c) => out.push(v(a) * v(b) + v(c)),
            Recipe::Inverse(d) => out.push(inverse_or_zero(v(d))),
            Recipe::IsZero(d) => out.push(bool_fr(v(d).is_zero())),
            Recipe::Quotient(a, b) => out.push(quotient(v(a), v(b))),
            Recipe::Bits { x, m, skip } => push_bits(&v(x), m, skip, out),
            Recipe::UDiv { a, b, n } => push_uint(udiv(v(a), v(b)), n, out),
            Recipe::URem { a, b, n } => push_uint(urem(v(a), v(b)), n, out),
            Recipe::Selectors { index, guard, len } => push_selectors(v(index), v(guard), len, out),
        }
    }
}

/// 0 or 1 as a field element, without a Montgomery multiplication.
#[inline]
pub(crate) fn bool_fr(b: bool) -> Fr {
    if b {
        Fr::one()
    } else {
        Fr::zero()
    }
}

/// `x⁻¹`, 0 for 0.
pub(crate) fn inverse_or_zero(x: Fr) -> Fr {
    field::inverse(&x).unwrap_or_else(Fr::zero)
}

/// `a / b`, 0 when `b = 0`.
pub(crate) fn quotient(a: Fr, b: Fr) -> Fr {
    field::inverse(&b).map_or_else(Fr::zero, |inv| a * inv)
}

/// The low 64 bits of the canonical value.
fn low_u64(x: &Fr) -> u64 {
    x.into_bigint().as_ref()[0]
}

/// `a / b` on the low 64 bits of both, 0 when `b = 0`.
pub(crate) fn udiv(a: Fr, b: Fr) -> u64 {
    low_u64(&a).checked_div(low_u64(&b)).unwrap_or(0)
}

/// `a % b` on the low 64 bits of both, `a` when `b = 0`.
pub(crate) fn urem(a: Fr, b: Fr) -> u64 {
    let x = low_u64(&a);
    x.checked_rem(low_u64(&b)).unwrap_or(x)
}

/// Bits `0..m` of the canonical value of `x` but bit `skip`, least significant first.
pub(crate) fn push_bits(x: &Fr, m: u32, skip: u32, out: &mut Vec<Fr>) {
    let big = x.into_bigint();
    let limbs = big.as_ref();
    out.extend(
        (0..m)
            .filter(|&i| i != skip)
            .map(|i| bool_fr(i < 256 && (limbs[(i / 64) as usize] >> (i % 64)) & 1 == 1)),
    );
}

/// The `n` low bits of `x`, least significant first.
pub(crate) fn push_uint(x: u64, n: u32, out: &mut Vec<Fr>) {
    out.extend((0..n).map(|i| bool_fr(i < 64 && (x >> i) & 1 == 1)));
}

/// Selectors `1..len` for index `i` under guard value `on`.
pub(crate) fn push_selectors(i: Fr, on: Fr, len: usize, out: &mut Vec<Fr>) {
    // The index is a selector only when it is a small integer; find it once.
    let big = i.into_bigint();
    let limbs = big.as_ref();
    let hit = if limbs[1..].iter().all(|&l| l == 0) && limbs[0] < len as u64 {
        Some(limbs[0] as usize)
    } else {
        None
    };
    out.extend((1..len).map(|j| if hit == Some(j) { on } else { Fr::zero() }));
}
