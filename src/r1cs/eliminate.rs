//! Linear elimination by substitution (CirC's `reduce_linearities`, circom's `--O2`).
//!
//! Every linear constraint `L = 0` that contains a witness variable is solved for one of them
//! (the *pivot*: the witness variable with the fewest occurrences, the latest on ties) and the
//! pivot is substituted everywhere; the constraint disappears. Instance variables are never
//! pivots, so a linear constraint over instance variables only (e.g. the block's own label)
//! stays, as `L · 1 = 0`. A quadratic constraint that becomes linear after substitution is fed
//! back, until nothing changes. Finally the variables are renumbered: the constant, the instance
//! variables in allocation order, then the surviving witness variables in allocation order;
//! witness variables that no constraint mentions are dropped.
//!
//! Rows are rewritten in place: only constraints that mention an eliminated variable are
//! rebuilt, so peak memory stays one constraint arena.
//!
//! When the builder recorded origins (`zkbc profile`), each constraint's origin follows it
//! through every move: a quadratic row rewritten keeps its own, a row that became linear and
//! stays as a residual keeps the origin of the row it came from, so every surviving
//! constraint belongs to the instruction that emitted its row (`Reduced::origins`).

use super::builder::{unpack, Builder, Coeffs, Origin, Packed, Rows};
use super::fxhash::FxMap;
use super::lc::{Lc, Var, ONE};
use crate::field::Fr;
use ark_ff::{Field, One};

/// Linear constraints longer than this (after substitution; longer than any bit decomposition
/// of a field element) are kept rather than solved: a
/// substitution copies the combination into every row that mentions the pivot, and chains of
/// long substitutions grow quadratically (CirC's `reduce_linearities` has the same threshold).
pub const ELIM_MAX_TERMS: usize = 300;

/// Marks a variable that the reduced system does not contain.
pub(crate) const GONE: u32 = u32::MAX;

/// The reduced constraint system of a block.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reduced {
    /// Three rows (A, B, C) per constraint, in the new numbering.
    pub rows: Rows,
    /// The coefficients the rows refer to.
    pub coeffs: Coeffs,
    /// Instance variables (1..=n_instance in the new numbering).
    pub n_instance: usize,
    /// Witness variables (after the instance variables).
    pub n_witness: usize,
    /// Old variable → new variable, or [`GONE`].
    pub var_map: Vec<u32>,
    /// Linear constraints removed by substitution.
    pub n_eliminated: usize,
    /// Dead constraints removed afterwards (see [`super::dead`]).
    pub n_dead: usize,
    /// The origin of each constraint, when the builder recorded them
    /// ([`Builder::attributing`]).
    pub origins: Option<Vec<Origin>>,
}

struct Elim {
    is_instance: Vec<bool>,
    occ: Vec<u32>,
    eliminated: Vec<bool>,
    /// pivot → (its value in other variables, number of eliminations when last made clean).
    subs: FxMap<Var, (Lc, usize)>,
    n_elims: usize,
    residual: Vec<Lc>,
    /// The origin of the constraint being eliminated, and of each residual (when attributing).
    origin: Origin,
    residual_origins: Option<Vec<Origin>>,
}

impl Elim {
    /// Whether `lc` mentions an eliminated variable.
    fn stale(&self, lc: &Lc) -> bool {
        lc.terms().iter().any(|&(v, _)| self.eliminated[v as usize])
    }

    /// Whether a stored row mentions an eliminated variable.
    fn stale_packed(&self, row: &[Packed]) -> bool {
        row.iter().any(|&(v, _)| self.eliminated[v as usize])
    }

    /// Makes the substitution of `root` free of eliminated variables (iteratively: chains of
    /// substitutions can be long).
    fn clean(&mut self, root: Var) {
        let mut stack = vec![root];
        while let Some(&top) = stack.last() {
            let (lc, at) = &self.subs[&top];
            if *at == self.n_elims {
                stack.pop();
                continue;
            }
            let dirty: Vec<Var> = lc
                .terms()
                .iter()
                .filter(|&&(v, _)| self.eliminated[v as usize] && self.subs[&v].1 != self.n_elims)
                .map(|&(v, _)| v)
                .collect();
            if !dirty.is_empty() {
                stack.extend(dirty);
                continue;
            }
            let lc = lc.clone();
            let resolved = self.substitute_clean(&lc);
            let n = self.n_elims;
            self.subs.insert(top, (resolved, n));
            stack.pop();
        }
    }

    /// `lc` with every eliminated variable replaced; their substitutions must be clean.
    fn substitute_clean(&self, lc: &Lc) -> Lc {
        let mut out = Lc::from_sorted(
            lc.terms()
                .iter()
                .filter(|&&(v, _)| !self.eliminated[v as usize])
                .copied()
                .collect(),
        );
        for &(v, c) in lc.terms() {
            if self.eliminated[v as usize] {
                out = out.add_scaled(&self.subs[&v].0, c);
            }
        }
        out
    }

    fn resolve(&mut self, lc: &Lc) -> Lc {
        if !self.stale(lc) {
            return lc.clone();
        }
        let pivots: Vec<Var> = lc
            .terms()
            .iter()
            .filter(|&&(v, _)| self.eliminated[v as usize])
            .map(|&(v, _)| v)
            .collect();
        for p in pivots {
            self.clean(p);
        }
        self.substitute_clean(lc)
    }

    /// Keeps `lc = 0` as a residual constraint, with its origin.
    fn keep(&mut self, lc: Lc) {
        self.residual.push(lc);
        if let Some(o) = &mut self.residual_origins {
            o.push(self.origin);
        }
    }

    /// Solves `lc = 0` for a witness pivot, or keeps it as a residual constraint.
    fn eliminate(&mut self, lc: &Lc) {
        let lc = self.resolve(lc);
        if lc.is_zero() {
            return;
        }
        if lc.terms().len() > ELIM_MAX_TERMS {
            self.keep(lc);
            return;
        }
        let pivot = lc
            .terms()
            .iter()
            .filter(|&&(v, _)| v != ONE && !self.is_instance[v as usize])
            .min_by_key(|&&(v, _)| (self.occ[v as usize], std::cmp::Reverse(v)))
            .copied();
        let Some((p, cp)) = pivot else {
            self.keep(lc);
            return;
        };
        // The pivot's coefficient is ±1 nearly always (a materialized or output variable), where
        // it is its own inverse; a field inversion costs hundreds of multiplications.
        let inv = if cp.is_one() || (-cp).is_one() {
            cp
        } else {
            cp.inverse().expect("terms have nonzero coefficients")
        };
        let rest = Lc::from_sorted(lc.terms().iter().filter(|t| t.0 != p).copied().collect());
        let value = rest.scale(-inv);
        let extra = self.occ[p as usize];
        for &(v, _) in value.terms() {
            let o = &mut self.occ[v as usize];
            *o = o.saturating_add(extra);
        }
        self.eliminated[p as usize] = true;
        self.n_elims += 1;
        let n = self.n_elims;
        self.subs.insert(p, (value, n));
    }
}

/// Substitutes eliminated variables in one constraint: it goes to `out`, or to `linear` when a
/// side became constant (then `true`).
fn rewrite(
    [a, b, c]: [&[Packed]; 3],
    el: &mut Elim,
    coeffs: &mut Coeffs,
    out: &mut Rows,
    linear: &mut Vec<Lc>,
) -> bool {
    let (a, b, c) = (
        el.resolve(&unpack(a, coeffs)),
        el.resolve(&unpack(b, coeffs)),
        el.resolve(&unpack(c, coeffs)),
    );
    if let Some(k) = a.as_constant() {
        linear.push(b.scale(k).sub(&c));
        true
    } else if let Some(k) = b.as_constant() {
        linear.push(a.scale(k).sub(&c));
        true
    } else {
        out.push(a.terms(), coeffs);
        out.push(b.terms(), coeffs);
        out.push(c.terms(), coeffs);
        false
    }
}

/// Where the origins of a reduction's constraints are while it runs (when attributing).
#[derive(Default)]
struct Track {
    quad: Vec<Origin>,
    linear: Vec<Origin>,
    extra: Vec<Origin>,
    new_extra: Vec<Origin>,
    pending: Vec<Origin>,
    became: Vec<Origin>,
}

/// Runs elimination on a builder's constraints (structure mode), removes dead constraints
/// ([`super::dead`]) and renumbers.
pub(crate) fn reduce(mut cs: Builder) -> Reduced {
    let origins = cs.origins.take();
    let (is_instance, quad, linear, mut coeffs) = cs.into_system();
    let mut track = origins.map(|o| {
        let (quad_origins, linear_origins) = o.expand(quad.len() / 3, linear.len());
        Track {
            quad: quad_origins,
            linear: linear_origins,
            ..Track::default()
        }
    });
    let n_vars = is_instance.len();
    let mut occ = vec![0u32; n_vars];
    for &(v, _) in quad.terms.iter().chain(&linear.terms) {
        occ[v as usize] = occ[v as usize].saturating_add(1);
    }
    let mut el = Elim {
        is_instance,
        occ,
        eliminated: vec![false; n_vars],
        subs: FxMap::default(),
        n_elims: 0,
        residual: Vec::new(),
        origin: 0,
        residual_origins: track.as_ref().map(|_| Vec::new()),
    };
    let mut rows = quad;
    let n_cons = rows.len() / 3;
    let mut alive = vec![true; n_cons];
    let mut extra = Rows::default();
    let mut n_linear = linear.len();
    for k in 0..linear.len() {
        if let Some(t) = &track {
            el.origin = t.linear[k];
        }
        el.eliminate(&unpack(linear.row(k), &coeffs));
    }
    drop(linear);
    // Rewritten constraints live in `extra` (their original slot is dead).
    let mut pending: Vec<Lc> = Vec::new();
    loop {
        for (j, lc) in std::mem::take(&mut pending).into_iter().enumerate() {
            if let Some(t) = &track {
                el.origin = t.pending[j];
            }
            el.eliminate(&lc);
        }
        if el.n_elims == 0 {
            break;
        }
        let mut new_extra = Rows::default();
        let mut became_linear = Vec::new();
        for (k, live) in alive.iter_mut().enumerate() {
            if !*live {
                continue;
            }
            let abc = [rows.row(3 * k), rows.row(3 * k + 1), rows.row(3 * k + 2)];
            if abc.iter().any(|r| el.stale_packed(r)) {
                *live = false;
                let linear = rewrite(
                    abc,
                    &mut el,
                    &mut coeffs,
                    &mut new_extra,
                    &mut became_linear,
                );
                if let Some(t) = &mut track {
                    let origin = t.quad[k];
                    match linear {
                        true => t.became.push(origin),
                        false => t.new_extra.push(origin),
                    }
                }
            }
        }
        for k in 0..extra.len() / 3 {
            let abc = [extra.row(3 * k), extra.row(3 * k + 1), extra.row(3 * k + 2)];
            let linear = if abc.iter().any(|r| el.stale_packed(r)) {
                rewrite(
                    abc,
                    &mut el,
                    &mut coeffs,
                    &mut new_extra,
                    &mut became_linear,
                )
            } else {
                abc.iter().for_each(|r| new_extra.push_packed(r));
                false
            };
            if let Some(t) = &mut track {
                let origin = t.extra[k];
                match linear {
                    true => t.became.push(origin),
                    false => t.new_extra.push(origin),
                }
            }
        }
        extra = new_extra;
        n_linear += became_linear.len();
        pending = became_linear;
        if let Some(t) = &mut track {
            t.extra = std::mem::take(&mut t.new_extra);
            t.pending = std::mem::take(&mut t.became);
        }
        if pending.is_empty() {
            break;
        }
    }
    let residual_origins = el.residual_origins.take();
    let resolved: Vec<Lc> = std::mem::take(&mut el.residual)
        .iter()
        .map(|lc| el.resolve(lc))
        .collect();
    // The origins of the surviving constraints in their final order: live rows, rewritten
    // rows, residuals.
    let origins = match (&track, residual_origins) {
        (Some(t), Some(res)) => {
            let mut out: Vec<Origin> = alive
                .iter()
                .zip(&t.quad)
                .filter(|(live, _)| **live)
                .map(|(_, o)| *o)
                .collect();
            out.extend_from_slice(&t.extra);
            out.extend(
                resolved
                    .iter()
                    .zip(res)
                    .filter(|(lc, _)| !lc.is_zero())
                    .map(|(_, o)| o),
            );
            Some(out)
        }
        _ => None,
    };
    drop(track);
    let residual: Vec<Lc> = resolved.into_iter().filter(|lc| !lc.is_zero()).collect();

    // Which variables survive: instance variables always, witnesses when mentioned.
    let mut used = vec![false; n_vars];
    for (k, live) in alive.iter().enumerate() {
        if *live {
            for j in 0..3 {
                rows.row(3 * k + j)
                    .iter()
                    .for_each(|&(v, _)| used[v as usize] = true);
            }
        }
    }
    extra
        .terms
        .iter()
        .for_each(|&(v, _)| used[v as usize] = true);
    for lc in &residual {
        lc.terms()
            .iter()
            .for_each(|&(v, _)| used[v as usize] = true);
    }
    let mut var_map = vec![GONE; n_vars];
    var_map[0] = 0;
    let mut next = 1u32;
    for (slot, _) in var_map
        .iter_mut()
        .zip(&el.is_instance)
        .skip(1)
        .filter(|(_, inst)| **inst)
    {
        *slot = next;
        next += 1;
    }
    let n_instance = (next - 1) as usize;
    for (v, slot) in var_map.iter_mut().enumerate().skip(1) {
        if !el.is_instance[v] && used[v] && !el.eliminated[v] {
            *slot = next;
            next += 1;
        }
    }
    let n_witness = next as usize - 1 - n_instance;

    // Compact the live rows in place, renumbering; then append rewritten and residual rows.
    let mut write = 0usize;
    let mut kept = 0usize;
    let mut start = 0usize;
    for k in 0..rows.ends.len() {
        let end = rows.ends[k] as usize;
        if alive[k / 3] {
            let first = write;
            let mut sorted = true;
            for t in start..end {
                let (v, c) = rows.terms[t];
                let new = var_map[v as usize];
                sorted &= write == first || rows.terms[write - 1].0 < new;
                rows.terms[write] = (new, c);
                write += 1;
            }
            // Instance variables come first in the new numbering; one allocated after a
            // witness (a memory read, an output) moves before it.
            if !sorted {
                rows.terms[first..write].sort_unstable_by_key(|t| t.0);
            }
            rows.ends[kept] = write as u32;
            kept += 1;
        }
        start = end;
    }
    rows.terms.truncate(write);
    rows.ends.truncate(kept);
    let residual_terms: usize = residual.iter().map(|lc| lc.terms().len() + 1).sum();
    rows.terms.reserve_exact(extra.terms.len() + residual_terms);
    rows.ends.reserve_exact(extra.len() + 3 * residual.len());
    let renumber = |row: &[Packed]| -> Vec<Packed> {
        let mut r: Vec<Packed> = row.iter().map(|&(v, c)| (var_map[v as usize], c)).collect();
        r.sort_unstable_by_key(|t| t.0);
        r
    };
    for k in 0..extra.len() {
        rows.push_packed(&renumber(extra.row(k)));
    }
    drop(extra);
    for lc in &residual {
        let lc = Lc::from_terms(
            lc.terms()
                .iter()
                .map(|&(v, c)| (var_map[v as usize], c))
                .collect(),
        );
        rows.push(lc.terms(), &mut coeffs);
        rows.push(&[(ONE, Fr::one())], &mut coeffs);
        rows.push(&[], &mut coeffs);
    }
    let mut red = Reduced {
        rows,
        coeffs,
        n_instance,
        n_witness,
        var_map,
        n_eliminated: n_linear - residual.len(),
        n_dead: 0,
        origins,
    };
    red.n_dead = super::dead::remove_dead(&mut red);
    red
}

#[cfg(test)]
mod tests {
    use super::super::recipe::Recipe;
    use super::*;

    #[test]
    fn linear_constraint_is_substituted_and_instances_are_kept() {
        // x (instance), w1, w2 witnesses: w1 * w1 = w2, w2 = x + 3 (linear).
        let mut cs = Builder::new(false);
        let x = cs.instance(Recipe::Const(Fr::from(0u64)));
        let w1 = cs.witness(Recipe::Const(Fr::from(0u64)));
        let w2 = cs.witness(Recipe::Const(Fr::from(0u64)));
        cs.enforce(&Lc::var(w1), &Lc::var(w1), &Lc::var(w2));
        cs.enforce_eq(&Lc::var(w2), &Lc::var(x).add_const(Fr::from(3u64)));
        let r = reduce(cs);
        assert_eq!(r.rows.len(), 3, "one quadratic constraint left");
        assert_eq!((r.n_instance, r.n_witness), (1, 1));
        assert_eq!(r.var_map[w2 as usize], GONE);
        // C is now x + 3 in the new numbering (x is variable 1).
        assert_eq!(
            unpack(r.rows.row(2), &r.coeffs).terms(),
            &[(0, Fr::from(3u64)), (1, Fr::one())]
        );
    }

    #[test]
    fn residual_kept_before_a_later_pivot_is_resolved() {
        // A constraint too long to solve is kept first; a later one eliminates a witness it
        // mentions (found by the random-program run, seed 2004250: the kept row named a variable
        // the renumbering had dropped).
        let mut cs = Builder::new(false);
        let x = cs.instance(Recipe::Const(Fr::from(0u64)));
        let w = cs.witness(Recipe::Const(Fr::from(0u64)));
        let others: Vec<Var> = (0..ELIM_MAX_TERMS)
            .map(|_| cs.witness(Recipe::Const(Fr::from(0u64))))
            .collect();
        let mut long = vec![(w, Fr::one())];
        long.extend(others.iter().map(|&v| (v, Fr::one())));
        cs.enforce_zero(&Lc::from_terms(long));
        // w = x + 1: the pivot is w (x is an instance variable).
        cs.enforce_eq(&Lc::var(w), &Lc::var(x).add_const(Fr::one()));
        // Each other witness is also a boolean, so the long row is not dead (a row whose
        // witness nothing else constrains is removed after elimination).
        for &v in &others {
            cs.boolean(&Lc::var(v));
        }
        let r = reduce(cs);
        assert_eq!(r.var_map[w as usize], GONE, "w was eliminated");
        let n_vars = 1 + r.n_instance + r.n_witness;
        for k in 0..r.rows.len() {
            for &(v, _) in r.rows.row(k) {
                assert!(
                    (v as usize) < n_vars,
                    "row {k} names variable {v} of {n_vars}"
                );
            }
        }
        // The kept row is now x + 1 + Σ others = 0, beside the booleans.
        assert_eq!(r.rows.len(), 3 * (1 + ELIM_MAX_TERMS));
        assert!((0..r.rows.len()).any(|k| r.rows.row(k).len() == 2 + ELIM_MAX_TERMS));
    }

    #[test]
    fn instance_only_linear_constraint_stays() {
        let mut cs = Builder::new(false);
        let x = cs.instance(Recipe::Const(Fr::from(0u64)));
        cs.enforce_eq(&Lc::var(x), &Lc::from_u64(5));
        let r = reduce(cs);
        assert_eq!(r.rows.len(), 3);
        assert_eq!(r.n_eliminated, 0);
    }
}
