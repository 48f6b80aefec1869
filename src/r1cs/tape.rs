//! Lower once, evaluate many: a block's witness computation compiled to a straight-line
//! program (a *tape*) that computes every variable of an execution from its input state.
//!
//! # How a tape is made
//!
//! 1. The block is lowered once in *recording* mode: structure mode, plus every allocation's
//!    `Recipe` appended to a `Recorder` in allocation order, its combinations packed as
//!    `(variable, coefficient index)` terms over the variables of the lowering.
//! 2. After linear elimination, `Recorder::finish` renumbers the tape into the reduced
//!    layout `z = [1, instance.., witness..]`, with a scratch slot past the end for each
//!    eliminated variable a later recipe still reads; drops the recipes whose every result is
//!    eliminated and unread (backwards, so chains of them go too); and marks as *deferred* the
//!    inverses no later recipe reads (the `is_zero` and division hints).
//! 3. [`Tape::eval`] runs the recipes in order over a reused buffer: no hashing, no
//!    allocation, ±1 coefficients added or subtracted and a constant term added, without a
//!    multiplication. A deferred inverse leaves its denominator in its slot and the caller
//!    inverts a whole chunk of executions' slots at once ([`batch_invert`], Montgomery's
//!    trick: one inversion per chunk).
//!
//! # Invariants
//!
//! - The tape computes exactly what the lowering in witness mode computes, variable for
//!   variable (both evaluate the same `Recipe` kernels); `tests/check_corpus.rs` compares the
//!   two on every execution of every corpus program.
//! - A deferred slot is read by no recipe, so values that cross executions (the output state,
//!   memory accesses) never wait for the batch inversion.

use super::builder::{add_packed, Coeffs, Packed};
use super::eliminate::GONE;
use super::lc::{Lc, Var};
use super::recipe::{self, bool_fr, Recipe, Source};
use crate::field::Fr;
use crate::ir::interp::{Access, Val};
use ark_ff::{Field, Zero};

/// A combination: a range of the tape's terms.
#[derive(Clone, Copy, Debug)]
struct L(u32, u32);

#[derive(Clone, Copy, Debug)]
enum Op {
    Const(Fr),
    Source(Source),
    Lin(L),
    Mul(L, L),
    MulAdd(L, L, L),
    Inverse(L),
    /// An inverse no recipe reads: the slot gets the denominator, inverted per chunk.
    Deferred(L),
    IsZero(L),
    Quotient(L, L),
    Bits {
        x: L,
        m: u32,
        skip: u32,
    },
    UDiv {
        a: L,
        b: L,
        n: u32,
    },
    URem {
        a: L,
        b: L,
        n: u32,
    },
    Selectors {
        index: L,
        guard: L,
        len: u32,
    },
}

impl Op {
    fn lcs(&self) -> [Option<L>; 3] {
        match *self {
            Op::Const(_) | Op::Source(_) => [None, None, None],
            Op::Lin(x) | Op::Inverse(x) | Op::Deferred(x) | Op::IsZero(x) => [Some(x), None, None],
            Op::Bits { x, .. } => [Some(x), None, None],
            Op::Mul(a, b) | Op::Quotient(a, b) => [Some(a), Some(b), None],
            Op::MulAdd(a, b, c) => [Some(a), Some(b), Some(c)],
            Op::UDiv { a, b, .. } | Op::URem { a, b, .. } => [Some(a), Some(b), None],
            Op::Selectors { index, guard, .. } => [Some(index), Some(guard), None],
        }
    }
}

/// The tape as it is recorded: recipes over the lowering's own variables.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    ops: Vec<Op>,
    /// The first variable of each op's results (they are consecutive).
    firsts: Vec<Var>,
    terms: Vec<Packed>,
    coeffs: Coeffs,
}

impl Recorder {
    fn lc(&mut self, lc: &Lc) -> L {
        let start = self.terms.len() as u32;
        for &(v, c) in lc.terms() {
            let id = self.coeffs.id(c);
            self.terms.push((v, id));
        }
        L(start, self.terms.len() as u32)
    }

    /// Records `recipe` for the variables `first..first + recipe.arity()`.
    pub fn record(&mut self, first: Var, recipe: &Recipe<'_>) {
        let op = match *recipe {
            Recipe::Const(c) => Op::Const(c),
            Recipe::Source(s, _) => Op::Source(s),
            Recipe::Lin(x) => Op::Lin(self.lc(x)),
            Recipe::Mul(a, b) => Op::Mul(self.lc(a), self.lc(b)),
            Recipe::MulAdd(a, b, c) => Op::MulAdd(self.lc(a), self.lc(b), self.lc(c)),
            Recipe::Inverse(d) => Op::Inverse(self.lc(d)),
            Recipe::IsZero(d) => Op::IsZero(self.lc(d)),
            Recipe::Quotient(a, b) => Op::Quotient(self.lc(a), self.lc(b)),
            Recipe::Bits { x, m, skip } => Op::Bits {
                x: self.lc(x),
                m,
                skip,
            },
            Recipe::UDiv { a, b, n } => Op::UDiv {
                a: self.lc(a),
                b: self.lc(b),
                n,
            },
            Recipe::URem { a, b, n } => Op::URem {
                a: self.lc(a),
                b: self.lc(b),
                n,
            },
            Recipe::Selectors { index, guard, len } => Op::Selectors {
                index: self.lc(index),
                guard: self.lc(guard),
                len: len as u32,
            },
        };
        self.ops.push(op);
        self.firsts.push(first);
    }

    /// The tape over the reduced layout: `var_map` maps each recorded variable to its reduced
    /// index or [`GONE`]; `n_vars` is `1 + instance + witness`.
    pub fn finish(self, var_map: &[u32], n_vars: usize) -> Tape {
        let n_old = var_map.len();
        let arity = |op: &Op| match *op {
            Op::Bits { m, .. } => m as usize - 1,
            Op::UDiv { n, .. } | Op::URem { n, .. } => n as usize,
            Op::Selectors { len, .. } => len as usize - 1,
            _ => 1,
        };
        // Backwards: a recipe is kept when one of its results survives elimination or a kept
        // later recipe reads it.
        let mut read = vec![false; n_old];
        let mut keep = vec![false; self.ops.len()];
        let mut read_later = vec![false; n_old];
        for (k, op) in self.ops.iter().enumerate().rev() {
            let first = self.firsts[k] as usize;
            let results = first..first + arity(op);
            let needed = results
                .clone()
                .any(|v| read[v] || var_map.get(v).is_some_and(|&n| n != GONE));
            if !needed {
                continue;
            }
            keep[k] = true;
            for v in results {
                read_later[v] = read[v];
            }
            for L(s, e) in op.lcs().into_iter().flatten() {
                for &(v, _) in &self.terms[s as usize..e as usize] {
                    read[v as usize] = true;
                }
            }
        }
        // Slots: reduced variables keep their index, eliminated ones that are read get scratch
        // slots past the end.
        let mut slot = vec![u32::MAX; n_old];
        let mut n_slots = n_vars as u32;
        for v in 0..n_old {
            if var_map[v] != GONE {
                slot[v] = var_map[v];
            } else if read[v] {
                slot[v] = n_slots;
                n_slots += 1;
            }
        }
        let mut tape = Tape {
            ops: Vec::new(),
            outs: Vec::new(),
            terms: Vec::with_capacity(self.terms.len()),
            coeffs: self.coeffs.values,
            n_slots: n_slots as usize,
            deferred: Vec::new(),
        };
        for (k, op) in self.ops.iter().enumerate() {
            if !keep[k] {
                continue;
            }
            let first = self.firsts[k] as usize;
            let mut remap = |L(s, e): L| {
                let start = tape.terms.len() as u32;
                for &(v, c) in &self.terms[s as usize..e as usize] {
                    tape.terms.push((slot[v as usize], c));
                }
                L(start, tape.terms.len() as u32)
            };
            let op = match *op {
                Op::Lin(x) => Op::Lin(remap(x)),
                Op::Mul(a, b) => Op::Mul(remap(a), remap(b)),
                Op::MulAdd(a, b, c) => Op::MulAdd(remap(a), remap(b), remap(c)),
                Op::Inverse(d) if !read_later[first] => {
                    tape.deferred.push(slot[first]);
                    Op::Deferred(remap(d))
                }
                Op::Inverse(d) | Op::Deferred(d) => Op::Inverse(remap(d)),
                Op::IsZero(d) => Op::IsZero(remap(d)),
                Op::Quotient(a, b) => Op::Quotient(remap(a), remap(b)),
                Op::Bits { x, m, skip } => Op::Bits {
                    x: remap(x),
                    m,
                    skip,
                },
                Op::UDiv { a, b, n } => Op::UDiv {
                    a: remap(a),
                    b: remap(b),
                    n,
                },
                Op::URem { a, b, n } => Op::URem {
                    a: remap(a),
                    b: remap(b),
                    n,
                },
                Op::Selectors { index, guard, len } => Op::Selectors {
                    index: remap(index),
                    guard: remap(guard),
                    len,
                },
                op @ (Op::Const(_) | Op::Source(_)) => op,
            };
            // Results whose variable is neither kept nor read go to a dead slot (the last one).
            let outs_start = tape.outs.len() as u32;
            tape.outs
                .extend_from_slice(&slot[first..first + arity(&op)]);
            tape.ops.push((op, outs_start));
        }
        let dead = tape.n_slots as u32;
        let mut any_dead = false;
        for o in &mut tape.outs {
            if *o == u32::MAX {
                *o = dead;
                any_dead = true;
            }
        }
        if any_dead {
            tape.n_slots += 1;
        }
        tape
    }
}

/// A block's compiled witness computation (see the module doc).
#[derive(Clone, Debug)]
pub struct Tape {
    /// Each op with the index of its first result slot in `outs`.
    ops: Vec<(Op, u32)>,
    outs: Vec<u32>,
    terms: Vec<Packed>,
    coeffs: Vec<Fr>,
    n_slots: usize,
    deferred: Vec<u32>,
}

/// What one execution's tape reads besides its own variables.
#[derive(Clone, Copy, Debug, Default)]
pub struct Inputs<'a> {
    /// The input leaves after the label (parameters, then live-ins).
    pub leaves: &'a [Fr],
    /// The execution's hint values, flattened.
    pub hints: &'a [Fr],
    /// The execution's array accesses.
    pub accesses: &'a [Access],
    /// The values of the spilled scalars the block reads.
    pub spills: &'a [Fr],
}

fn scalar(v: &Val) -> Fr {
    match v {
        Val::Field(x) => *x,
        Val::UInt(n) => Fr::from(*n),
        _ => Fr::zero(),
    }
}

impl Tape {
    /// The buffer length an execution needs: `z` (`1 + instance + witness`) and the scratch
    /// slots after it.
    pub fn n_slots(&self) -> usize {
        self.n_slots
    }

    /// The slots left holding a denominator by [`Tape::eval`] until [`batch_invert`].
    pub fn deferred(&self) -> &[u32] {
        &self.deferred
    }

    /// Recipes on the tape.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the tape has no recipe.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    #[inline]
    fn val(&self, L(s, e): L, z: &[Fr]) -> Fr {
        let terms = &self.terms[s as usize..e as usize];
        // A term on slot 0 (always 1, first in a sorted combination) is its coefficient.
        let (acc, terms) = match terms.split_first() {
            Some((&(0, c), rest)) => (self.coeffs[c as usize], rest),
            _ => (Fr::zero(), terms),
        };
        add_packed(acc, terms, z, &self.coeffs)
    }

    /// Computes every variable of one execution into `z` (length [`Tape::n_slots`], `z[0] =
    /// 1` set here); the deferred slots hold their denominators.
    pub fn eval(&self, inputs: &Inputs<'_>, z: &mut [Fr]) {
        z[0] = Fr::ONE;
        let mut buf = Vec::new();
        for &(op, out) in &self.ops {
            let out = out as usize;
            let one = match op {
                Op::Const(c) => c,
                Op::Source(s) => match s {
                    Source::Input(k) => inputs.leaves.get(k as usize).copied().unwrap_or_default(),
                    Source::Hint(k) => inputs.hints.get(k as usize).copied().unwrap_or_default(),
                    Source::Spill(k) => inputs.spills.get(k as usize).copied().unwrap_or_default(),
                    Source::Access(k) => inputs
                        .accesses
                        .get(k as usize)
                        .map(|a| scalar(&a.read))
                        .unwrap_or_default(),
                },
                Op::Lin(x) | Op::Deferred(x) => self.val(x, z),
                Op::Mul(a, b) => self.val(a, z) * self.val(b, z),
                Op::MulAdd(a, b, c) => self.val(a, z) * self.val(b, z) + self.val(c, z),
                Op::Inverse(d) => recipe::inverse_or_zero(self.val(d, z)),
                Op::IsZero(d) => bool_fr(self.val(d, z).is_zero()),
                Op::Quotient(a, b) => recipe::quotient(self.val(a, z), self.val(b, z)),
                Op::Bits { x, m, skip } => {
                    buf.clear();
                    recipe::push_bits(&self.val(x, z), m, skip, &mut buf);
                    self.scatter(out, &buf, z);
                    continue;
                }
                Op::UDiv { a, b, n } => {
                    buf.clear();
                    recipe::push_uint(recipe::udiv(self.val(a, z), self.val(b, z)), n, &mut buf);
                    self.scatter(out, &buf, z);
                    continue;
                }
                Op::URem { a, b, n } => {
                    buf.clear();
                    recipe::push_uint(recipe::urem(self.val(a, z), self.val(b, z)), n, &mut buf);
                    self.scatter(out, &buf, z);
                    continue;
                }
                Op::Selectors { index, guard, len } => {
                    buf.clear();
                    let (i, g) = (self.val(index, z), self.val(guard, z));
                    recipe::push_selectors(i, g, len as usize, &mut buf);
                    self.scatter(out, &buf, z);
                    continue;
                }
            };
            z[self.outs[out] as usize] = one;
        }
    }

    #[inline]
    fn scatter(&self, out: usize, values: &[Fr], z: &mut [Fr]) {
        for (k, &x) in values.iter().enumerate() {
            z[self.outs[out + k] as usize] = x;
        }
    }
}

/// Inverts every element of `xs` in place (0 stays 0) with one field inversion.
pub fn batch_invert(xs: &mut [Fr]) {
    ark_ff::batch_inversion(xs);
}
