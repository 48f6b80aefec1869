//! The interval domain of [`super::Ranges`]: an [`Interval`] of `uN` values, its lattice
//! operations, and [`binary`], the interval of a binary operation on two intervals (the
//! analysis's transfer function for arithmetic, comparisons and bit operations).

use crate::ir::BinOp;

/// An inclusive interval of unsigned integer values, `lo ≤ hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    /// The smallest value.
    pub lo: u64,
    /// The largest value.
    pub hi: u64,
}

impl Interval {
    /// `[lo, hi]`.
    pub fn new(lo: u64, hi: u64) -> Interval {
        debug_assert!(lo <= hi, "bug: empty interval [{lo}, {hi}]");
        Interval { lo, hi }
    }

    /// The single value `x`.
    pub fn constant(x: u64) -> Interval {
        Interval { lo: x, hi: x }
    }

    /// Every value of a `width`-bit integer.
    pub fn full(width: u32) -> Interval {
        Interval::new(0, max_of(width))
    }

    /// The value, if the interval holds one only.
    pub fn as_constant(self) -> Option<u64> {
        (self.lo == self.hi).then_some(self.lo)
    }

    /// The smallest interval holding both.
    pub fn join(self, other: Interval) -> Interval {
        Interval::new(self.lo.min(other.lo), self.hi.max(other.hi))
    }

    /// The values in both, `None` if there are none.
    pub fn meet(self, other: Interval) -> Option<Interval> {
        let (lo, hi) = (self.lo.max(other.lo), self.hi.min(other.hi));
        (lo <= hi).then(|| Interval::new(lo, hi))
    }

    /// Whether `x` lies in the interval.
    pub fn contains(self, x: u64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}, {}]", self.lo, self.hi)
    }
}

/// `2^width − 1`.
pub fn max_of(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The smallest `2^k − 1` at or above `x`.
fn smear(x: u64) -> u64 {
    if x == 0 {
        0
    } else {
        u64::MAX >> x.leading_zeros()
    }
}

/// The interval of `op` on `uN` operands `a` and `c` of width `w` (a shift amount may have
/// another width; only its value matters); `None` when the operation fails on every input
/// (division by 0).
pub fn binary(op: BinOp, a: Interval, c: Interval, w: u32) -> Option<Interval> {
    let m = u128::from(max_of(w));
    let modulus = m + 1;
    let full = Interval::full(w);
    let iv = |lo: u128, hi: u128| Interval::new(lo as u64, hi as u64);
    let (alo, ahi, clo, chi) = (
        u128::from(a.lo),
        u128::from(a.hi),
        u128::from(c.lo),
        u128::from(c.hi),
    );
    let bool_iv = |always: bool, never: bool| {
        if always {
            Interval::constant(1)
        } else if never {
            Interval::constant(0)
        } else {
            Interval::new(0, 1)
        }
    };
    Some(match op {
        BinOp::Add => {
            let (lo, hi) = (alo + clo, ahi + chi);
            if hi <= m {
                iv(lo, hi)
            } else if lo > m {
                iv(lo - modulus, hi - modulus)
            } else {
                full
            }
        }
        BinOp::Sub => {
            if alo >= chi {
                iv(alo - chi, ahi - clo)
            } else if ahi < clo {
                iv(alo + modulus - chi, ahi + modulus - clo)
            } else {
                full
            }
        }
        BinOp::Mul => {
            let hi = ahi * chi;
            if hi <= m {
                iv(alo * clo, hi)
            } else {
                full
            }
        }
        BinOp::UDiv => {
            if chi == 0 {
                return None;
            }
            iv(alo / chi, ahi / clo.max(1))
        }
        BinOp::URem => {
            if chi == 0 {
                return None;
            }
            if ahi < clo {
                a
            } else {
                iv(0, ahi.min(chi - 1))
            }
        }
        BinOp::Eq => bool_iv(a.as_constant().is_some() && a == c, a.meet(c).is_none()),
        BinOp::Lt => bool_iv(a.hi < c.lo, a.lo >= c.hi),
        BinOp::Le => bool_iv(a.hi <= c.lo, a.lo > c.hi),
        BinOp::And | BinOp::Or | BinOp::Xor if w == 1 => {
            // Every combination of the (at most two) values of each side.
            let mut out: Option<Interval> = None;
            for x in a.lo..=a.hi {
                for y in c.lo..=c.hi {
                    let z = match op {
                        BinOp::And => x & y,
                        BinOp::Or => x | y,
                        _ => x ^ y,
                    };
                    let p = Interval::constant(z);
                    out = Some(out.map_or(p, |o| o.join(p)));
                }
            }
            out.unwrap_or(full)
        }
        BinOp::And => Interval::new(0, a.hi.min(c.hi)),
        BinOp::Or => Interval::new(a.lo.max(c.lo), smear(a.hi | c.hi)),
        BinOp::Xor => Interval::new(0, smear(a.hi | c.hi)),
        BinOp::Shl => {
            if c.lo >= u64::from(w) {
                Interval::constant(0)
            } else if let Some(k) = c.as_constant() {
                let hi = ahi << k;
                if hi <= m {
                    iv(alo << k, hi)
                } else {
                    full
                }
            } else {
                full
            }
        }
        BinOp::Shr => {
            if c.lo >= u64::from(w) {
                Interval::constant(0)
            } else {
                let lo = if c.hi >= u64::from(w) {
                    0
                } else {
                    a.lo >> c.hi
                };
                Interval::new(lo, a.hi >> c.lo)
            }
        }
        BinOp::Div => full,
    })
}
