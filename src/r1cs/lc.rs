//! Sparse linear combinations: sorted vectors of `(variable, coefficient)` with no zero
//! coefficients. Variable 0 is the constant 1, so a constant term is the coefficient of variable
//! 0. Every operation is a linear merge, never a quadratic rebuild.

use crate::field::Fr;
use ark_ff::{One, Zero};

/// A variable of a block's constraint system; 0 is the constant 1.
pub type Var = u32;

/// The variable that always holds 1.
pub const ONE: Var = 0;

/// `c · k`, without a field multiplication when `c` is 1 or −1: nearly every coefficient of
/// a bit, a sum or a difference is, and a Montgomery multiplication costs ten times a negation.
#[inline]
pub(crate) fn mul_coeff(c: Fr, k: Fr) -> Fr {
    if c.is_one() {
        k
    } else if (-c).is_one() {
        -k
    } else {
        c * k
    }
}

/// A linear combination `Σ coeff · var`, sorted by variable, without zero coefficients.
///
/// A combination of one term (a variable, a bit, a constant: most of them) is stored inline,
/// without a heap allocation; equality, order, hashing and `Debug` are those of the terms.
#[derive(Clone)]
pub struct Lc(Terms);

/// The terms of an [`Lc`]: exactly one term is always `One`.
#[derive(Clone)]
enum Terms {
    One((Var, Fr)),
    Many(Vec<(Var, Fr)>),
}

impl Default for Lc {
    fn default() -> Lc {
        Lc::zero()
    }
}

impl PartialEq for Lc {
    fn eq(&self, other: &Lc) -> bool {
        self.terms() == other.terms()
    }
}

impl Eq for Lc {}

impl std::hash::Hash for Lc {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.terms().hash(state)
    }
}

impl PartialOrd for Lc {
    fn partial_cmp(&self, other: &Lc) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Lc {
    fn cmp(&self, other: &Lc) -> std::cmp::Ordering {
        self.terms().cmp(other.terms())
    }
}

impl std::fmt::Debug for Lc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Lc").field(&self.terms()).finish()
    }
}

impl Lc {
    /// The zero combination.
    pub fn zero() -> Lc {
        Lc(Terms::Many(Vec::new()))
    }

    /// Terms already sorted by variable, without zero coefficients.
    pub(crate) fn from_sorted(terms: Vec<(Var, Fr)>) -> Lc {
        match terms.as_slice() {
            [t] => Lc(Terms::One(*t)),
            _ => Lc(Terms::Many(terms)),
        }
    }

    /// The constant `c`.
    pub fn constant(c: Fr) -> Lc {
        if c.is_zero() {
            Lc::zero()
        } else {
            Lc(Terms::One((ONE, c)))
        }
    }

    /// The constant `n`.
    pub fn from_u64(n: u64) -> Lc {
        Lc::constant(Fr::from(n))
    }

    /// The single variable `v`.
    pub fn var(v: Var) -> Lc {
        Lc(Terms::One((v, Fr::one())))
    }

    /// Builds a combination from terms in any order, adding duplicates and dropping zeros.
    pub fn from_terms(mut terms: Vec<(Var, Fr)>) -> Lc {
        if !terms.windows(2).all(|w| w[0].0 < w[1].0) {
            terms.sort_unstable_by_key(|t| t.0);
            let mut out: Vec<(Var, Fr)> = Vec::with_capacity(terms.len());
            for (v, c) in terms {
                match out.last_mut() {
                    Some(last) if last.0 == v => last.1 += c,
                    _ => out.push((v, c)),
                }
            }
            terms = out;
        }
        terms.retain(|t| !t.1.is_zero());
        Lc::from_sorted(terms)
    }

    /// The terms, sorted by variable.
    pub fn terms(&self) -> &[(Var, Fr)] {
        match &self.0 {
            Terms::One(t) => std::slice::from_ref(t),
            Terms::Many(v) => v,
        }
    }

    /// How many terms are variables (all but the constant).
    pub fn n_vars(&self) -> usize {
        let t = self.terms();
        t.len() - usize::from(t.first().is_some_and(|t| t.0 == ONE))
    }

    /// Whether this is the zero combination.
    pub fn is_zero(&self) -> bool {
        self.terms().is_empty()
    }

    /// The variable, when the combination is one variable with coefficient 1.
    pub fn as_var(&self) -> Option<Var> {
        match self.terms() {
            [(v, c)] if *v != ONE && c.is_one() => Some(*v),
            _ => None,
        }
    }

    /// The constant value, when the combination has no variable other than [`ONE`].
    pub fn as_constant(&self) -> Option<Fr> {
        match self.terms() {
            [] => Some(Fr::zero()),
            [(ONE, c)] => Some(*c),
            _ => None,
        }
    }

    /// `self + k · other`, by a linear merge (with `k = ±1`, the common sum and difference,
    /// without a field multiplication per term).
    pub fn add_scaled(&self, other: &Lc, k: Fr) -> Lc {
        if k.is_zero() {
            return self.clone();
        }
        if k.is_one() {
            self.merge(other, |c| c)
        } else if (-k).is_one() {
            self.merge(other, |c| -c)
        } else {
            self.merge(other, |c| mul_coeff(c, k))
        }
    }

    /// `self + f(other)`, `f` applied to each coefficient of `other`.
    fn merge(&self, other: &Lc, f: impl Fn(Fr) -> Fr) -> Lc {
        let (a, b) = (self.terms(), other.terms());
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (va, ca) = a[i];
            let (vb, cb) = b[j];
            if va < vb {
                out.push((va, ca));
                i += 1;
            } else if vb < va {
                out.push((vb, f(cb)));
                j += 1;
            } else {
                let c = ca + f(cb);
                if !c.is_zero() {
                    out.push((va, c));
                }
                i += 1;
                j += 1;
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend(b[j..].iter().map(|&(v, c)| (v, f(c))));
        Lc::from_sorted(out)
    }

    /// `self + other`.
    pub fn add(&self, other: &Lc) -> Lc {
        self.add_scaled(other, Fr::one())
    }

    /// `self - other`.
    pub fn sub(&self, other: &Lc) -> Lc {
        self.add_scaled(other, -Fr::one())
    }

    /// `k · self`.
    pub fn scale(&self, k: Fr) -> Lc {
        if k.is_zero() {
            return Lc::zero();
        }
        if k.is_one() {
            return self.clone();
        }
        Lc::from_sorted(
            self.terms()
                .iter()
                .map(|&(v, c)| (v, mul_coeff(c, k)))
                .collect(),
        )
    }

    /// `self + c`.
    pub fn add_const(&self, c: Fr) -> Lc {
        self.add_scaled(&Lc::constant(c), Fr::one())
    }

    /// `c - self`.
    pub fn const_minus(&self, c: Fr) -> Lc {
        Lc::constant(c).sub(self)
    }

    /// The value under an assignment indexed by variable (index 0 must hold 1).
    pub fn eval(&self, values: &[Fr]) -> Fr {
        self.terms()
            .iter()
            .map(|&(v, c)| values[v as usize] * c)
            .sum()
    }

    /// The coefficient of `v` (zero when absent).
    pub fn coeff(&self, v: Var) -> Fr {
        let t = self.terms();
        match t.binary_search_by_key(&v, |t| t.0) {
            Ok(i) => t[i].1,
            Err(_) => Fr::zero(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_order_and_drops_zeros() {
        let a = Lc::from_terms(vec![(3, Fr::from(2u64)), (1, Fr::from(1u64))]);
        let b = Lc::from_terms(vec![(1, -Fr::from(1u64)), (2, Fr::from(5u64))]);
        let s = a.add(&b);
        assert_eq!(s.terms(), &[(2, Fr::from(5u64)), (3, Fr::from(2u64))]);
        assert_eq!(s.sub(&s), Lc::zero());
        assert_eq!(Lc::from_u64(7).as_constant(), Some(Fr::from(7u64)));
        assert_eq!(Lc::var(4).as_constant(), None);
        let vals = [Fr::one(), Fr::from(10u64), Fr::from(20u64), Fr::from(30u64)];
        assert_eq!(s.eval(&vals), Fr::from(160u64));
    }
}
