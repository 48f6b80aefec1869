//! The products a block has already constrained, so that [`Builder::mul`] of the same two
//! combinations again reuses the product instead of constraining it twice.
//!
//! A block of a million constraints constrains about a million products, and all of them stay
//! findable until the block is lowered, so the table is stored compactly:
//!
//! - a product of two single variables `u · v` (coefficient 1, `u ≤ v`: nearly every product
//!   of bits) is a map entry of 16 bytes, `(u, v) → held`;
//! - any other pair `(a, b)` is found through a hash table of pair indices (4 bytes a slot) by
//!   a 64-bit hash of its terms; candidates are told apart by comparing their terms, so a lookup
//!   never confuses two different products. Growing the table hashes each pair's terms again,
//!   read from the flat arenas below (boxed combinations were a cache miss per entry, and made
//!   lowering a block of a million products super-linear). The terms are not copied when the block's own
//!   constraint `a · b = r` holds them (a plain [`Builder::mul`] in structure mode: the lookup
//!   compares against that constraint's rows `A` and `B`); otherwise (witness mode records no
//!   constraints, and [`Builder::mul_affine`] constrains `k·a`, not `a`) they are stored as two
//!   packed rows, 8 bytes a term (see [`Packed`]);
//! - what holds a product is 8 bytes: its variable, or the variable `r = a + b + k · a · b` of
//!   [`Builder::mul_affine`] and the index of `k⁻¹` (the product is `(r − a − b) / k`, rebuilt
//!   from the operands of the lookup).
//!
//! [`Builder::mul`]: super::builder::Builder::mul
//! [`Builder::mul_affine`]: super::builder::Builder::mul_affine

use super::builder::{Coeffs, Packed, Rows};
use super::fxhash::{FxHasher, FxMap};
use super::lc::{Lc, Var};
use hashbrown::HashTable;
use std::hash::Hasher;

/// No `k⁻¹`: a plain product variable.
const END: u32 = u32::MAX;

/// What holds a product `a · b` already constrained: a variable `r` equal to it
/// ([`Builder::mul`]), or `r = a + b + k · a · b` ([`Builder::mul_affine`]) with `k⁻¹` the
/// coefficient of index `k_inv`, so that `a · b = (r − a − b) · k⁻¹`. Eight bytes: the operands
/// are not stored, the caller has them (they are the key).
///
/// [`Builder::mul`]: super::builder::Builder::mul
/// [`Builder::mul_affine`]: super::builder::Builder::mul_affine
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    r: Var,
    /// [`END`] for a plain product variable.
    k_inv: u32,
}

impl Held {
    /// `r = a · b`.
    pub fn var(r: Var) -> Held {
        Held { r, k_inv: END }
    }

    /// `r = a + b + k · a · b`, with `k_inv` the index of `k⁻¹` among the block's coefficients.
    pub fn affine(r: Var, k_inv: u32) -> Held {
        Held { r, k_inv }
    }
}

/// Where a general pair's operands are stored: the rows `A` and `B` of quadratic constraint
/// `q` of the block (in the order the constraint has them), or entry `k` of
/// [`Products::keys`] (the smaller operand first). The top bit tells which.
#[derive(Clone, Copy, Debug)]
struct Operands(u32);

const OWN: u32 = 1 << 31;

impl Operands {
    fn constraint(q: usize) -> Operands {
        let q = u32::try_from(q)
            .ok()
            .filter(|q| q & OWN == 0)
            .expect("a block has more than 2^31 quadratic constraints");
        Operands(q)
    }

    fn own(k: usize) -> Operands {
        Operands(OWN | k as u32)
    }
}

/// A product's operands as a lookup key.
pub(crate) enum Key {
    /// `u · v` with `u ≤ v`, both with coefficient 1.
    Vars(Var, Var),
    /// Any other pair: its hash; the packed terms are in [`Products::scratch`].
    General(u64),
}

/// MurmurHash3's finalizer. The Fx hash of the terms leaves its low bits depending on little
/// more than the low bits of the last term (the coefficient index, nearly always 0), and the map
/// hashes the key again with Fx, whose low bits depend only on the key's low bits: without this
/// every general pair of a long chain of products would land in a few buckets.
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The hash of the general pair `(a, b)`, `a` the smaller.
fn pair_hash(a: &[Packed], b: &[Packed]) -> u64 {
    let mut h = FxHasher::default();
    h.write_usize(a.len());
    for &(v, c) in a.iter().chain(b) {
        h.write_u64(u64::from(v) << 32 | u64::from(c));
    }
    mix(h.finish())
}

/// The operands of general pair `k`, the smaller first: in `keys` or in the block's quadratic
/// rows `quad` (see [`Operands`]).
fn operands<'r>(
    held: &'r [(Held, Operands)],
    keys: &'r Rows,
    quad: &'r Rows,
    k: u32,
) -> (&'r [Packed], &'r [Packed]) {
    let at = held[k as usize].1;
    if at.0 & OWN != 0 {
        let i = (at.0 & !OWN) as usize;
        return (keys.row(2 * i), keys.row(2 * i + 1));
    }
    let q = at.0 as usize;
    let (x, y) = (quad.row(3 * q), quad.row(3 * q + 1));
    if x > y {
        (y, x)
    } else {
        (x, y)
    }
}

/// The products of one block (see the module doc).
#[derive(Clone, Debug, Default)]
pub(crate) struct Products {
    vars: FxMap<(Var, Var), Held>,
    /// The general pairs (indices into `held`), by the hash of their terms ([`pair_hash`]).
    general: HashTable<u32>,
    /// Operands of the general pairs that no constraint holds: entry `k` is rows `2k` (the
    /// smaller operand) and `2k + 1`.
    keys: Rows,
    /// Per general pair: what holds it, and where its operands are ([`Operands`]).
    held: Vec<(Held, Operands)>,
    /// The packed operands of the last general key: `[a.., b..]`, with `a`'s length.
    scratch: Vec<Packed>,
    split: usize,
}

impl Products {
    /// The key of `a · b` (for a general pair, its terms go to the scratch buffer).
    pub fn key(&mut self, a: &Lc, b: &Lc, coeffs: &mut Coeffs) -> Key {
        if let (Some(u), Some(v)) = (a.as_var(), b.as_var()) {
            return Key::Vars(u.min(v), u.max(v));
        }
        self.scratch.clear();
        let pack = |lc: &Lc, coeffs: &mut Coeffs, out: &mut Vec<Packed>| {
            out.extend(lc.terms().iter().map(|&(v, c)| (v, coeffs.id(c))));
        };
        pack(a, coeffs, &mut self.scratch);
        let n = self.scratch.len();
        pack(b, coeffs, &mut self.scratch);
        // The pair is unordered: the smaller packed row first.
        if self.scratch[..n] > self.scratch[n..] {
            self.scratch.rotate_left(n);
            self.split = self.scratch.len() - n;
        } else {
            self.split = n;
        }
        let (a, b) = self.scratch.split_at(self.split);
        Key::General(pair_hash(a, b))
    }

    /// Reserves room for `n` general pairs (see [`super::builder::Builder::reserve_for_block`]):
    /// growing the table hashes every pair's terms again, a cache miss each on a large block.
    pub fn reserve(&mut self, n: usize) {
        self.held.reserve(n);
        if self.general.is_empty() {
            self.general = HashTable::with_capacity(n);
        }
    }

    /// How many general pairs are stored (a `boolean` can only find one of them).
    pub fn n_general(&self) -> usize {
        self.held.len()
    }

    /// What holds the product of `key` (the key just made by [`Products::key`]); `quad` are the
    /// block's quadratic rows, where the operands of products recorded with
    /// [`Products::insert`]`(.., Some(q))` are.
    pub fn get(&self, key: &Key, quad: &Rows) -> Option<Held> {
        match *key {
            Key::Vars(u, v) => self.vars.get(&(u, v)).copied(),
            Key::General(h) => {
                let (a, b) = self.scratch.split_at(self.split);
                let k = self
                    .general
                    .find(h, |&k| operands(&self.held, &self.keys, quad, k) == (a, b))?;
                Some(self.held[*k as usize].0)
            }
        }
    }

    /// Records what holds the product of `key` (not stored before). `constraint` is the index
    /// of the quadratic constraint `a · b = ..` with exactly the key's operands as its rows `A`
    /// and `B` (in either order), when the block records one (already in `quad`): the operands
    /// are then not copied.
    pub fn insert(&mut self, key: &Key, held: Held, constraint: Option<usize>, quad: &Rows) {
        match *key {
            Key::Vars(u, v) => {
                self.vars.insert((u, v), held);
            }
            Key::General(h) => {
                let k = u32::try_from(self.held.len())
                    .expect("a block has more than 2^32 products of combinations");
                let at = match constraint {
                    Some(q) => Operands::constraint(q),
                    None => {
                        let (a, b) = self.scratch.split_at(self.split);
                        let own = self.keys.len() / 2;
                        self.keys.push_packed(a);
                        self.keys.push_packed(b);
                        Operands::own(own)
                    }
                };
                self.held.push((held, at));
                let Products {
                    general,
                    held,
                    keys,
                    ..
                } = self;
                general.insert_unique(h, k, |&k| {
                    let (a, b) = operands(held, keys, quad, k);
                    pair_hash(a, b)
                });
            }
        }
    }

    /// The product `a · b` (`a` and `b` the operands of the key that found `held`, in either
    /// order) as a combination.
    pub fn lc(&self, held: Held, a: &Lc, b: &Lc, coeffs: &Coeffs) -> Lc {
        let r = Lc::var(held.r);
        if held.k_inv == END {
            return r;
        }
        r.sub(&a.add(b)).scale(coeffs.get(held.k_inv))
    }
}
