//! Known bits: which `uN` values of a block are linear combinations of bits the block has
//! already decomposed, so that no later operation decomposes them again (issue 34).
//!
//! The analysis runs during the walk over the block (an abstract interpretation fused with
//! the lowering: a fact is the wires the lowering builds, so it needs no second pass and holds
//! exactly what the constraints say). Every `uN` wire ([`Num`]) carries, beside its
//! combination, an optional *bit vector* `bitvec`: the value's bits, least significant first.
//!
//! # The lattice
//!
//! Per value of width `N`:
//!
//! - **known bits** `[b_0, .., b_{L-1}]` with `L ≤ N`: each `b_i` is a combination that is 0 or 1
//!   on every satisfying assignment — the constant 0 or 1, a boolean variable of a
//!   decomposition, or an affine function of such (`1 - b` after `not`, a product's variable
//!   after `and`/`or`/`xor` of two unknown bits) — with `value = Σ 2^i b_i` and the bits from
//!   `L` up 0 (the wire's bound `bits ≤ L` says so);
//! - **unknown** (`bitvec = None`): the value is a combination (maybe a lazy, unreduced one, see
//!   [`crate::r1cs::gadgets`]) whose bits nobody has asked for yet.
//!
//! Known is below unknown: an operation that needs bits of an unknown value *decomposes* it
//! (`bits` booleans, [`Builder::bits_of`]) and the value becomes known for the rest of the
//! block. A value is decomposed at most once per block: its known bits replace its wire in
//! the environment ([`super::Lowerer::bits`]), and a combination decomposed before is found in
//! the lowerer's `normalized` table.
//!
//! # Transfer functions (every `uN` operation)
//!
//! With `a`, `b` the operands' known bits (after asking for them where the row says so):
//!
//! | operation | result |
//! |---|---|
//! | constant `c` | known: the bits of `c` (constants cost nothing) |
//! | `shl a, k` / `shr a, k`, `k` constant | known: `a`'s bits moved, zeros shifted in ([`shift`]) |
//! | `shl nuw a, k` | known when `a` is ([`shift`]; the bits shifted out are 0 by `nuw`), else the exact integer `a · 2^k` |
//! | `shl`/`shr` by a variable | `shl`: unknown (a lazy product); `shr`: known (the reversed bits shifted, normalized) |
//! | `and`/`or`/`xor a, b` | known, bit by bit: linear where a bit is constant (masks), else one product per bit |
//! | choice, majority ([`super::idioms`]) | known, bit by bit |
//! | `not a` | known when `a` is: `1 - a_i`; else the lazy `2^t - 1 - a` |
//! | `add a, b` | known when both are and no bit position can be 1 in both ([`disjoint_sum`]: a concatenation, no carry); else unknown (lazy sum) |
//! | `sub`, `mul`, `udiv`, `urem` | unknown (lazy), except `udiv`/`urem` whose results are allocated as bits |
//! | `cast` to a wider `uN` | known when the operand is: the same bits, the high ones 0 ([`pad`]) |
//! | `trunc`, narrowing `cast` | known: the operand's low bits (decomposed if needed) |
//! | `select c, a, b` | unknown (one product for the value beats one per bit) |
//! | block parameters, live-ins, array reads, hints | unknown |
//!
//! A value whose known bits are all constants or copies of decomposed bits (`shl`, `shr`, masks,
//! `or` of disjoint masks, rotations, concatenations) costs nothing more: a bit reversal by the
//! mask-and-shift network costs the one decomposition of its input.
//!
//! Facts do not cross blocks: a value that reaches another block travels as one wire of the
//! transition state and is unknown there (carrying its bits would cost `N` state words).
//!
//! The same lattice over the IR, where a known bit is a constant rather than a combination of
//! booleans, is `crate::analysis::known_bits` (across blocks); the `ranges` pass uses it to
//! mark `nuw` and decide comparisons, and this walk honors those flags (`shl nuw` above).

use super::super::gadgets::Num;
use super::super::lc::Lc;
use std::rc::Rc;

/// `bits` (known bits of an `n`-bit value) shifted left (`left`) or right by `k < n`, zeros
/// shifted in.
pub(super) fn shift(bits: &[Lc], k: usize, n: usize, left: bool) -> Vec<Lc> {
    (0..n)
        .map(|i| {
            let from = if left { i.checked_sub(k) } else { Some(i + k) };
            from.and_then(|j| bits.get(j).cloned())
                .unwrap_or_else(Lc::zero)
        })
        .collect()
}

/// `x`'s known bits, padded with zeros to `n`, when `x` has known bits that cover its bound
/// (a value widened from fewer bits, or whose high bits a `nuw` fact dropped).
pub(super) fn pad(x: &Num, n: u32) -> Option<Num> {
    let b = x.bitvec.as_ref()?;
    if b.len() >= n as usize || x.bits as usize > b.len() {
        return None;
    }
    let mut bits = b.to_vec();
    bits.resize(n as usize, Lc::zero());
    Some(Num {
        bitvec: Some(Rc::from(bits)),
        ..x.clone()
    })
}

/// `a + b` of two `n`-bit values with known bits, when in every position one of them is the
/// constant 0: no carry, so the sum is the bits side by side (free).
pub(super) fn disjoint_sum(a: &Num, b: &Num, n: u32) -> Option<Num> {
    let (x, y) = (known(a, n)?, known(b, n)?);
    let mut out = Vec::with_capacity(n as usize);
    for (p, q) in x.iter().zip(y.iter()) {
        out.push(if p.is_zero() {
            q.clone()
        } else if q.is_zero() {
            p.clone()
        } else {
            return None;
        });
    }
    Some(Num::from_bits(out))
}

/// The `n` known bits of `x` (padded), or `None` when its bits are unknown or `x` is lazy.
fn known(x: &Num, n: u32) -> Option<Rc<[Lc]>> {
    if x.bits > n {
        return None;
    }
    if let Some(c) = x.lc.as_constant() {
        let bits = super::super::gadgets::bits_le(&c, n);
        return Some(
            bits.into_iter()
                .map(|b| Lc::from_u64(u64::from(b)))
                .collect(),
        );
    }
    let b = x.bitvec.as_ref()?;
    if b.len() == n as usize {
        return Some(b.clone());
    }
    pad(x, n).and_then(|p| p.bitvec)
}
