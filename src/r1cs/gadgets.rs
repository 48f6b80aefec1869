//! Gadgets: the constraint encodings of every operation, on `Num`s (a linear combination with
//! a bound on its integer value and, when known, its bits). Each gadget's cost is in the table
//! of the [`super`] module doc; the gadget tests of `tests/r1cs/*.ir` assert them.
//!
//! Unsigned integers are reduced lazily (as xJsnark and ZoKrates do): a `uN` value is any
//! combination congruent to it mod 2^N whose integer value is below `2^bits` with
//! `bits ≤ 253` (so the integer never wraps around p). Additions, subtractions and
//! multiplications grow `bits`; the value is *normalized* (decomposed into bits, the low N
//! kept) only where the exact value matters: comparisons, bit operations, division, indices,
//! casts and the block's output state.
//!
//! Gadgets that can fail take an optional *guard* (a `u1` combination): under guard 0 they are
//! satisfied whatever their operands and give a fixed harmless result, under guard 1 they fail
//! exactly when the interpreter does. The IR has no guarded instructions yet (merging, issue 6,
//! will add them); the lowering passes `None`, meaning "always executed".

use super::builder::Builder;
use super::lc::{mul_coeff, Lc};
use super::recipe::Recipe;
use crate::field::{self, Fr};
use ark_ff::{Field, One, PrimeField, Zero};
use std::rc::Rc;
use std::sync::OnceLock;

/// The `bits` of a field element whose value is not known to be small.
pub(crate) const UNBOUNDED: u32 = 254;
/// Largest bound under which integer arithmetic on combinations cannot wrap around p.
pub(crate) const MAX_EXACT: u32 = 253;
/// Limb width of the canonical (complete) field decomposition: 254 = 127 + 127.
const LIMB: u32 = 127;
/// The widest constant [`Builder::lt_small_constant`] compares against: beyond it the limb
/// comparison of `field_lt` (131 constraints after the bits) is cheaper than `k + 4`.
const SMALL_CONSTANT_BITS: u32 = 126;

/// `2^i` for `i < 256`.
pub(crate) fn pow2(i: u32) -> Fr {
    static TABLE: OnceLock<Vec<Fr>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Vec::with_capacity(256);
        let mut x = Fr::one();
        for _ in 0..256 {
            t.push(x);
            let y = x;
            x += y;
        }
        t
    })[i as usize]
}

/// `2^-i` for `i < 256`.
fn pow2_inv(i: u32) -> Fr {
    static TABLE: OnceLock<Vec<Fr>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let half = Fr::from(2u64).inverse().expect("2 is invertible");
        let mut t = Vec::with_capacity(256);
        let mut x = Fr::one();
        for _ in 0..256 {
            t.push(x);
            x *= half;
        }
        t
    })[i as usize]
}

/// The low `n` bits of the canonical value of `x`, least significant first.
pub(crate) fn bits_le(x: &Fr, n: u32) -> Vec<bool> {
    field::low_bits(x, n as usize)
}

/// The canonical value of `x` as a `u64` (its low 64 bits).
pub(crate) fn low_u64(x: &Fr) -> u64 {
    x.into_bigint().as_ref()[0]
}

/// The canonical value mod `2^n`, `n ≤ 253`.
fn mod_pow2(x: &Fr, n: u32) -> Fr {
    let mut big = x.into_bigint();
    let limbs = big.as_mut();
    for (k, limb) in limbs.iter_mut().enumerate() {
        let lo = 64 * k as u32;
        if lo >= n {
            *limb = 0;
        } else if n - lo < 64 {
            *limb &= (1u64 << (n - lo)) - 1;
        }
    }
    Fr::from_bigint(big).expect("a value below 2^253 is canonical")
}

/// `Σ 2^i bits[i]`.
pub(crate) fn sum_bits(bits: &[Lc]) -> Lc {
    let mut terms = Vec::with_capacity(bits.len());
    for (i, b) in bits.iter().enumerate() {
        let k = pow2(i as u32);
        terms.extend(b.terms().iter().map(|&(v, c)| (v, mul_coeff(c, k))));
    }
    Lc::from_terms(terms)
}

/// A scalar wire: a combination, a bound on its integer value, and its bits when known.
#[derive(Clone, Debug)]
pub(crate) struct Num {
    /// The value (for `uN`, congruent to it mod 2^N).
    pub lc: Lc,
    /// The integer value is below `2^bits`; [`UNBOUNDED`] for an arbitrary field element.
    pub bits: u32,
    /// The value's bits, least significant first, when the value is normalized and they exist.
    pub bitvec: Option<Rc<[Lc]>>,
    /// A tighter inclusive bound on the integer value than `2^bits - 1`, where one is tracked
    /// (sums of `uN` values: ten `u32`s sum below `10 · 2^32`, 36 bits, not 42).
    pub max: Option<Fr>,
}

impl Num {
    /// A wire with no known bits.
    pub fn new(lc: Lc, bits: u32) -> Num {
        Num {
            lc,
            bits,
            bitvec: None,
            max: None,
        }
    }

    /// A wire whose integer value is at most `max` (`max < 2^253`).
    pub fn bounded(lc: Lc, max: Fr) -> Num {
        Num {
            lc,
            bits: field::num_bits(&max),
            bitvec: None,
            max: Some(max),
        }
    }

    /// An inclusive bound on the integer value: the constant itself, the tracked maximum, or
    /// `2^bits - 1` (`bits ≤ 253`).
    pub fn max_value(&self) -> Fr {
        if let Some(c) = self.lc.as_constant() {
            return c;
        }
        self.max.unwrap_or_else(|| pow2(self.bits) - Fr::one())
    }

    /// The same combination, taken to be below `2^n` without any check: for values the range
    /// analysis proved (an instruction marked `nuw`). Known bits past `n` are dropped (they are
    /// 0 by the same fact).
    pub fn assume_below(self, n: u32) -> Num {
        let cap = pow2(n) - Fr::one();
        let max = self.max_value();
        let max = if field::cmp_canonical(&max, &cap).is_gt() {
            cap
        } else {
            max
        };
        let bitvec = self
            .bitvec
            .map(|b| -> Rc<[Lc]> { b[..b.len().min(n as usize)].into() });
        Num {
            bits: field::num_bits(&max),
            max: Some(max),
            lc: self.lc,
            bitvec,
        }
    }

    /// A constant (its bound is its bit length).
    pub fn constant(x: Fr) -> Num {
        Num::new(Lc::constant(x), field::num_bits(&x))
    }

    /// The `u64` constant `n`.
    pub fn from_u64(n: u64) -> Num {
        Num::constant(Fr::from(n))
    }

    /// A boolean combination.
    pub fn bool(lc: Lc) -> Num {
        Num::new(lc, 1)
    }

    /// A normalized value with its bits.
    pub fn from_bits(bits: Vec<Lc>) -> Num {
        let lc = sum_bits(&bits);
        let n = bits.len() as u32;
        Num {
            lc,
            bits: n,
            bitvec: Some(bits.into()),
            max: None,
        }
    }
}

/// Which bit of a decomposition is not allocated but defined by the linear relation (so the
/// relation costs nothing and needs no elimination).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pivot {
    /// Bit 0 (coefficient 1): used when every bit is part of the result.
    Low,
    /// The top bit: used when the top bit is dropped, so the kept bits stay single variables.
    High,
}

impl Builder {
    /// Bits (least significant first) of the integer value of `x`, which must be below `2^m`,
    /// `m ≤ 254`: `m` boolean constraints. Unsatisfiable when `x` has no such decomposition
    /// (for `m ≤ 253`: when its value is `≥ 2^m`).
    pub fn decompose(&mut self, x: &Lc, m: u32, pivot: Pivot) -> Vec<Lc> {
        if let Some(c) = x.as_constant() {
            if field::num_bits(&c) > m {
                self.enforce_false();
            }
            return bits_le(&c, m)
                .into_iter()
                .map(|b| Lc::from_u64(u64::from(b)))
                .collect();
        }
        if m == 0 {
            self.enforce_zero(x);
            return Vec::new();
        }
        let skip = match pivot {
            Pivot::Low => 0,
            Pivot::High => m - 1,
        };
        let vars = self.witnesses(Recipe::Bits { x, m, skip });
        let mut bits: Vec<Lc> = Vec::with_capacity(m as usize);
        let mut rest = Vec::with_capacity(m as usize);
        let mut it = vars.into_iter();
        for i in 0..m {
            if i == skip {
                bits.push(Lc::zero());
            } else {
                let v = it.next().expect("one variable per non-pivot bit");
                rest.push((v, -pow2(i)));
                bits.push(Lc::var(v));
            }
        }
        // The pivot: x - Σ_{i≠skip} 2^i b_i = 2^skip b_skip.
        let pivot_lc = x.add(&Lc::from_terms(rest)).scale(pow2_inv(skip));
        bits[skip as usize] = pivot_lc;
        for b in &bits {
            self.boolean(b);
        }
        bits
    }

    /// A fresh normalized `n`-bit value whose bits are `recipe`'s ([`Recipe::UDiv`] or
    /// [`Recipe::URem`]): `n` booleans.
    pub fn alloc_uint(&mut self, recipe: Recipe<'_>) -> Num {
        let vars = self.witnesses(recipe);
        let bits: Vec<Lc> = vars.into_iter().map(Lc::var).collect();
        for b in &bits {
            self.boolean(b);
        }
        Num::from_bits(bits)
    }

    /// `x` reduced to at most `n` bits (exactly, mod 2^n): free when already normalized, else
    /// `x.bits` booleans.
    pub fn normalize(&mut self, x: &Num, n: u32) -> Num {
        if x.bits <= n {
            return x.clone();
        }
        if let Some(c) = x.lc.as_constant() {
            return Num::constant(mod_pow2(&c, n));
        }
        if let Some(bits) = &x.bitvec {
            return Num::from_bits(bits[..n as usize].to_vec());
        }
        let bits = self.decompose(&x.lc, x.bits, Pivot::High);
        Num::from_bits(bits[..n as usize].to_vec())
    }

    /// The `n` bits of a `uN` value (normalized first): free when known, else `bits` booleans.
    pub fn bits_of(&mut self, x: &Num, n: u32) -> Num {
        let x = self.normalize(x, n);
        if let Some(b) = &x.bitvec {
            if b.len() == n as usize {
                return x;
            }
        }
        let mut bits = if x.bits <= 1 {
            // A value below 2 is its own bit (0 bits: it is 0).
            vec![x.lc.clone(); x.bits as usize]
        } else {
            self.decompose(&x.lc, x.bits, Pivot::Low)
        };
        bits.resize(n as usize, Lc::zero());
        Num {
            lc: x.lc,
            bits: x.bits,
            bitvec: Some(bits.into()),
            max: x.max,
        }
    }

    /// `[d == 0]` with an inverse hint: 2 constraints (free for a constant, and for a `d` whose
    /// flag, or `-d`'s, was built before in the block: `a == b` again, or `b == a`).
    pub fn is_zero(&mut self, d: &Lc) -> Lc {
        if let Some(c) = d.as_constant() {
            return Lc::from_u64(u64::from(c.is_zero()));
        }
        let neg = d.scale(-Fr::one());
        let key = if *d <= neg { d.clone() } else { neg };
        if let Some(z) = self.zeros.get(&key) {
            return z.clone();
        }
        let z = self.is_zero_fresh(d);
        self.zeros.insert(key, z.clone());
        z
    }

    fn is_zero_fresh(&mut self, d: &Lc) -> Lc {
        let inv = self.witness(Recipe::Inverse(d));
        let z = self.witness(Recipe::IsZero(d));
        let (inv, z) = (Lc::var(inv), Lc::var(z));
        self.enforce(d, &inv, &z.const_minus(Fr::one()));
        self.enforce(d, &z, &Lc::zero());
        z
    }

    /// `[a < b]` (or `[a ≤ b]`) for integers below `2^m`, `m ≤ 252`: `m + 1` booleans.
    pub fn lt_bounded(&mut self, a: &Lc, b: &Lc, m: u32, or_equal: bool) -> Lc {
        let shift = if or_equal { Fr::zero() } else { Fr::one() };
        let d = b.sub(a).add_const(pow2(m) - shift);
        let bits = self.decompose(&d, m + 1, Pivot::Low);
        bits[m as usize].clone()
    }

    /// The 254 bits of the canonical value of a field element, least significant first:
    /// 254 booleans and a canonicity check (`< p`) of 130 constraints, 384 in all (0 when the
    /// same combination was decomposed before in this block: the bits are kept).
    pub fn canonical_bits(&mut self, x: &Lc) -> Vec<Lc> {
        if let Some(c) = x.as_constant() {
            return bits_le(&c, UNBOUNDED)
                .into_iter()
                .map(|b| Lc::from_u64(u64::from(b)))
                .collect();
        }
        if let Some(bits) = self.canonical.get(x) {
            return bits.clone();
        }
        let bits = self.canonical_bits_fresh(x);
        self.canonical.insert(x.clone(), bits.clone());
        bits
    }

    fn canonical_bits_fresh(&mut self, x: &Lc) -> Vec<Lc> {
        let bits = self.decompose(x, UNBOUNDED, Pivot::Low);
        let (lo_bits, hi_bits) = bits.split_at(LIMB as usize);
        let (lo, hi) = (sum_bits(lo_bits), sum_bits(hi_bits));
        let p_minus_1 = -Fr::one();
        let p_lo = mod_pow2(&p_minus_1, LIMB);
        let p_hi = (p_minus_1 - p_lo) * pow2_inv(LIMB);
        // e = [hi == P_hi]; X = e ? P_lo - lo : P_hi - 1 - hi must lie in [0, 2^127).
        // (1 - e)(P_hi - 1 - hi) = P_hi - 1 - hi + e, because e = 1 forces hi = P_hi.
        let e = self.is_zero(&hi.add_const(-p_hi));
        let e_lo = self.mul(&e, &lo);
        let x_check = hi
            .const_minus(p_hi - Fr::one())
            .add(&e.scale(Fr::one() + p_lo))
            .sub(&e_lo);
        self.decompose(&x_check, LIMB, Pivot::Low);
        bits
    }

    /// Complete comparison of the canonical values of two field elements (the bounded
    /// `m + 1` form when both are known to be below 2^252).
    pub fn field_lt(&mut self, a: &Num, b: &Num, or_equal: bool) -> Lc {
        if a.bits < MAX_EXACT && b.bits < MAX_EXACT {
            return self.lt_bounded(&a.lc, &b.lc, a.bits.max(b.bits), or_equal);
        }
        let one = Fr::one();
        match (a.lc.as_constant(), b.lc.as_constant()) {
            // [x < c] = [x < c] ; [x ≤ c] = [x < c + 1] (c = p - 1: always true).
            (None, Some(c)) => {
                if or_equal && c == -one {
                    return Lc::from_u64(1);
                }
                let bound = if or_equal { c + one } else { c };
                if let Some(r) = self.lt_small_constant(&a.lc, &bound) {
                    return r;
                }
            }
            // [c < x] = 1 - [x < c + 1] (c = p - 1: never); [c ≤ x] = 1 - [x < c].
            (Some(c), None) => {
                if !or_equal && c == -one {
                    return Lc::zero();
                }
                let bound = if or_equal { c } else { c + one };
                if let Some(r) = self.lt_small_constant(&b.lc, &bound) {
                    return r.const_minus(one);
                }
            }
            _ => {}
        }
        let abits = self.canonical_bits(&a.lc);
        let bbits = self.canonical_bits(&b.lc);
        let (al, ah) = abits.split_at(LIMB as usize);
        let (bl, bh) = bbits.split_at(LIMB as usize);
        let (al, ah, bl, bh) = (sum_bits(al), sum_bits(ah), sum_bits(bl), sum_bits(bh));
        // D = bh - ah when the high limbs differ, bl - al when they are equal.
        let e = self.is_zero(&ah.sub(&bh));
        let low_diff = self.mul(&e, &bl.sub(&al));
        let d = bh.sub(&ah).add(&low_diff);
        let shift = if or_equal { Fr::zero() } else { Fr::one() };
        let bits = self.decompose(&d.add_const(pow2(LIMB) - shift), LIMB + 1, Pivot::Low);
        bits[LIMB as usize].clone()
    }

    /// `[x < c]` for the canonical value of a field element `x` and a constant `c < 2^k`,
    /// `k ≤ SMALL_CONSTANT_BITS`: given the canonical bits of `x` (384, shared with every other
    /// comparison of `x` in the block), `x < c` iff its bits from `k` up are all 0 (`hi = 0`,
    /// 2 constraints: `hi` is below p, so it is 0 only when they are) and its low `k` bits are
    /// below `c` (`k + 1`), and-ed (1): `k + 4` in all. `None` for a larger constant.
    fn lt_small_constant(&mut self, x: &Lc, c: &Fr) -> Option<Lc> {
        let k = field::num_bits(c);
        if k == 0 {
            return Some(Lc::zero());
        }
        if k > SMALL_CONSTANT_BITS {
            return None;
        }
        let bits = self.canonical_bits(x);
        let (lo, hi) = bits.split_at(k as usize);
        let hi_zero = self.is_zero(&sum_bits(hi));
        let lo_lt = self.lt_bounded(&sum_bits(lo), &Lc::constant(*c), k, false);
        Some(self.mul(&hi_zero, &lo_lt))
    }

    /// `c ? a : b` on one scalar: 1 constraint (0 when `c` is constant or `a - b` is).
    pub fn select(&mut self, c: &Lc, a: &Num, b: &Num) -> Num {
        if a.lc == b.lc {
            return a.clone();
        }
        let diff = a.lc.sub(&b.lc);
        let t = self.mul(c, &diff);
        Num::new(b.lc.add(&t), a.bits.max(b.bits))
    }

    /// Asserts the boolean `c` is 1: linear (eliminated); under a guard `g`, `g (1 - c) = 0`.
    pub fn assert_true(&mut self, c: &Lc, guard: Option<&Lc>) {
        match guard {
            None => self.enforce_zero(&c.add_const(-Fr::one())),
            Some(g) => self.enforce(g, &c.const_minus(Fr::one()), &Lc::zero()),
        }
    }

    /// Asserts `a = b`: linear (eliminated); under a guard `g`, `g (a - b) = 0`.
    pub fn assert_eq(&mut self, a: &Lc, b: &Lc, guard: Option<&Lc>) {
        match guard {
            None => self.enforce_eq(a, b),
            Some(g) => self.enforce(g, &a.sub(b), &Lc::zero()),
        }
    }

    /// `b` if the guard holds, else 1: the harmless divisor of a guarded division (1 constraint).
    fn guarded_divisor(&mut self, b: &Lc, guard: Option<&Lc>) -> Lc {
        match guard {
            None => b.clone(),
            Some(g) => {
                let t = self.mul(g, &b.add_const(-Fr::one()));
                t.add_const(Fr::one())
            }
        }
    }

    /// Field division `a / b`, failing when `b = 0`: 2 constraints (`q b = a`, `b inv = 1`);
    /// 1 when `a` is a nonzero constant, 0 when `b` is a constant; a guard adds 1.
    pub fn field_div(&mut self, a: &Lc, b: &Lc, guard: Option<&Lc>) -> Lc {
        let b = self.guarded_divisor(b, guard);
        if let Some(k) = b.as_constant() {
            return match field::inverse(&k) {
                Some(inv) => a.scale(inv),
                None => {
                    self.enforce_false();
                    Lc::zero()
                }
            };
        }
        let q = self.witness(Recipe::Quotient(a, &b));
        let q = Lc::var(q);
        self.enforce(&q, &b, a);
        let a_nonzero_const = a.as_constant().is_some_and(|k| !k.is_zero());
        if !a_nonzero_const {
            let inv = self.witness(Recipe::Inverse(&b));
            self.enforce(&b, &Lc::var(inv), &Lc::from_u64(1));
        }
        q
    }

    /// `uN` quotient and remainder of normalized operands, failing when `b = 0`: `3N + 1`
    /// (q and r as N bits each, `q b = a - r`, `b - r - 1` as N bits); a guard adds 1.
    pub fn udiv_rem(&mut self, a: &Num, b: &Num, n: u32, guard: Option<&Lc>) -> (Num, Num) {
        let b = self.guarded_divisor(&b.lc, guard);
        let q = self.alloc_uint(Recipe::UDiv { a: &a.lc, b: &b, n });
        let r = self.alloc_uint(Recipe::URem { a: &a.lc, b: &b, n });
        let qb = a.lc.sub(&r.lc);
        if let Some(k) = b.as_constant() {
            self.enforce_eq(&q.lc.scale(k), &qb);
        } else {
            self.enforce(&q.lc, &b, &qb);
        }
        self.decompose(&b.sub(&r.lc).add_const(-Fr::one()), n, Pivot::Low);
        // `b − r − 1 ≥ 0` bounds the remainder by a constant divisor: `r ≤ b − 1`.
        let r = match b.as_constant() {
            Some(k) if !k.is_zero() => Num {
                max: Some(k - Fr::one()),
                ..r
            },
            _ => r,
        };
        (q, r)
    }

    /// A checked conversion of `x` to `n` bits: free when `x` is known to fit, else `n`
    /// booleans (or, with known bits, a linear check that the high bits are 0); under a guard
    /// `g` the value converted is `g · x` (1 more constraint).
    pub fn checked_narrow(&mut self, x: &Num, n: u32, guard: Option<&Lc>) -> Num {
        if x.bits <= n {
            return x.clone();
        }
        if let (Some(bits), None) = (&x.bitvec, guard) {
            let high = bits[n as usize..]
                .iter()
                .fold(Lc::zero(), |acc, b| acc.add(b));
            self.enforce_zero(&high);
            return Num::from_bits(bits[..n as usize].to_vec());
        }
        let lc = match guard {
            None => x.lc.clone(),
            Some(g) => self.mul(g, &x.lc),
        };
        let bits = self.decompose(&lc, n, Pivot::Low);
        Num {
            lc,
            bits: n,
            bitvec: Some(bits.into()),
            max: None,
        }
    }

    /// Selectors `e_j = [i == j]` for `j < len`, with `Σ e_j = guard` (1 without a guard), so an
    /// index `≥ len` is unsatisfiable under a true guard: `len` constraints.
    pub fn selectors(&mut self, index: &Lc, len: usize, guard: Option<&Lc>) -> Vec<Lc> {
        let g = guard.cloned().unwrap_or_else(|| Lc::from_u64(1));
        if len == 0 {
            self.enforce_zero(&g);
            return Vec::new();
        }
        let vars = self.witnesses(Recipe::Selectors {
            index,
            guard: &g,
            len,
        });
        let mut sel: Vec<Lc> = Vec::with_capacity(len);
        let rest = Lc::from_terms(vars.iter().map(|&v| (v, -Fr::one())).collect());
        sel.push(g.add(&rest));
        sel.extend(vars.into_iter().map(Lc::var));
        for (j, e) in sel.iter().enumerate() {
            self.enforce(e, &index.add_const(-Fr::from(j as u64)), &Lc::zero());
        }
        sel
    }

    /// `a << k` for a variable amount `k` given by its bits (any width): `(a · 2^k) mod 2^N`,
    /// 0 when `k ≥ N`. Builds `2^k` from the low `log2 N` bits (one product per bit after the
    /// first), zeroes it when a higher bit is set (`is_zero`, 3), multiplies (1); the result
    /// is lazy, with `N + N - 1` bits.
    pub fn shl_var(&mut self, a: &Num, k_bits: &[Lc], n: u32) -> Num {
        let log_n = n.trailing_zeros();
        let mut pow = Lc::from_u64(1);
        for (j, kj) in k_bits.iter().enumerate().take(log_n as usize) {
            let factor = kj.scale(pow2(1 << j) - Fr::one()).add_const(Fr::one());
            pow = self.mul(&pow, &factor);
        }
        if k_bits.len() > log_n as usize {
            let high = k_bits[log_n as usize..]
                .iter()
                .fold(Lc::zero(), |acc, b| acc.add(b));
            let none_high = self.is_zero(&high);
            pow = self.mul(&pow, &none_high);
        }
        let prod = self.mul(&a.lc, &pow);
        Num::new(prod, a.bits + n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::eliminate::{reduce, GONE};
    use super::*;

    type Gadget = dyn Fn(&mut Builder, &[Lc]);

    /// Builds the gadget over instance inputs in both modes; returns its constraint count and
    /// whether the honest assignment for `inputs` satisfies it.
    fn run(g: &Gadget, inputs: &[u64]) -> (usize, bool) {
        let mut cs = Builder::new(false);
        let ins: Vec<Lc> = inputs
            .iter()
            .map(|_| Lc::var(cs.instance(Recipe::Const(Fr::zero()))))
            .collect();
        g(&mut cs, &ins);
        let red = reduce(cs);
        let mut cs = Builder::new(true);
        let ins: Vec<Lc> = inputs
            .iter()
            .map(|&x| Lc::var(cs.instance(Recipe::Const(Fr::from(x)))))
            .collect();
        g(&mut cs, &ins);
        let mut vals = vec![Fr::zero(); 1 + red.n_instance + red.n_witness];
        vals[0] = Fr::one();
        for (old, &new) in red.var_map.iter().enumerate() {
            if new != GONE {
                vals[new as usize] = cs.values[old];
            }
        }
        let eval = |k: usize| -> Fr {
            red.rows
                .row(k)
                .iter()
                .map(|&(v, c)| vals[v as usize] * red.coeffs.get(c))
                .sum()
        };
        let n = red.rows.len() / 3;
        let ok = (0..n).all(|k| eval(3 * k) * eval(3 * k + 1) == eval(3 * k + 2));
        (n, ok)
    }

    #[test]
    fn guarded_assert_fails_only_under_a_true_guard() {
        let g: &Gadget = &|cs, x| cs.assert_true(&x[1], Some(&x[0]));
        assert_eq!(run(g, &[0, 0]), (1, true));
        assert_eq!(run(g, &[1, 0]), (1, false));
        assert_eq!(run(g, &[1, 1]), (1, true));
        let g: &Gadget = &|cs, x| cs.assert_eq(&x[1], &x[2], Some(&x[0]));
        assert_eq!(run(g, &[0, 3, 4]), (1, true));
        assert_eq!(run(g, &[1, 3, 4]), (1, false));
    }

    #[test]
    fn guarded_division_divides_by_one_under_a_false_guard() {
        let g: &Gadget = &|cs, x| {
            cs.field_div(&x[1], &x[2], Some(&x[0]));
        };
        assert_eq!(run(g, &[0, 5, 0]), (3, true));
        assert_eq!(run(g, &[1, 5, 0]), (3, false));
        assert_eq!(run(g, &[1, 6, 3]), (3, true));
        let g: &Gadget = &|cs, x| {
            let (a, b) = (Num::new(x[1].clone(), 8), Num::new(x[2].clone(), 8));
            cs.udiv_rem(&a, &b, 8, Some(&x[0]));
        };
        assert_eq!(run(g, &[0, 200, 0]), (3 * 8 + 2, true));
        assert_eq!(run(g, &[1, 200, 0]), (3 * 8 + 2, false));
        assert_eq!(run(g, &[1, 200, 7]), (3 * 8 + 2, true));
    }

    #[test]
    fn guarded_cast_and_index_are_harmless_under_a_false_guard() {
        let g: &Gadget = &|cs, x| {
            cs.checked_narrow(&Num::new(x[1].clone(), UNBOUNDED), 8, Some(&x[0]));
        };
        assert_eq!(run(g, &[0, 1000]), (1 + 8, true));
        assert_eq!(run(g, &[1, 1000]), (1 + 8, false));
        assert_eq!(run(g, &[1, 255]), (1 + 8, true));
        let g: &Gadget = &|cs, x| {
            cs.selectors(&x[1], 4, Some(&x[0]));
        };
        assert_eq!(run(g, &[0, 9]), (4, true));
        assert_eq!(run(g, &[1, 9]), (4, false));
        assert_eq!(run(g, &[1, 3]), (4, true));
    }

    #[test]
    fn unguarded_failures_are_unsatisfiable() {
        let g: &Gadget = &|cs, x| cs.assert_true(&x[0], None);
        assert!(!run(g, &[0]).1);
        let g: &Gadget = &|cs, x| {
            cs.decompose(&x[0], 32, Pivot::Low);
        };
        assert!(!run(g, &[1 << 40]).1, "2^40 is not a u32");
        assert!(run(g, &[(1 << 32) - 1]).1);
    }
}
