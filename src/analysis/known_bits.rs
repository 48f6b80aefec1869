//! Known bits of unsigned integers: for every `uN` (and `u1`) value, which of its bits are 0
//! and which are 1 on every execution (LLVM's `KnownBits`, over the block IR).
//!
//! The `ranges` pass meets each interval of [`super::ranges`] with the range the known bits
//! allow (`[one, !zero]`) and proves an `add` cannot wrap when no bit position can be 1 in both
//! operands (a concatenation `(x << 8) + (y & 0xFF)`, whose shifted side's interval is every
//! `u32`). R1CS lowering runs the same lattice on its wires, where a known bit is a combination
//! of decomposed booleans rather than a constant (`r1cs/lower/bits.rs`): the two are one
//! analysis at two levels, since `r1cs` may not import `analysis`.
//!
//! # The lattice
//!
//! Per value of width `N`, a pair of masks `(zero, one)` over the `N` bits with
//! `zero & one = 0`: bit `i` is 0 on every run if `zero` has it, 1 if `one` has it, unknown
//! otherwise. Bits from `N` up are 0. ⊤ ("nothing known") is `(0, 0)`; the join of two facts
//! keeps what both know (`zero₁ & zero₂`, `one₁ & one₂`). Constants know every bit.
//!
//! # Transfer functions
//!
//! | operation | result |
//! |---|---|
//! | `and` | `zero = za ∣ zc`, `one = oa & oc` |
//! | `or` | `zero = za & zc`, `one = oa ∣ oc` |
//! | `xor` | known where both are: `zero = za&zc ∣ oa&oc`, `one = za&oc ∣ oa&zc` |
//! | `not` | `zero` and `one` swapped |
//! | `shl`/`shr` by a constant `k` | both masks shifted, the `k` bits shifted in known 0 |
//! | `shl`/`shr` by a variable | the known-0 low (`shl`) or high (`shr`) run of the operand stays |
//! | `add`, `sub` | bit by bit with the carries that are known (LLVM's `computeForAddSub`) |
//! | `mul` | the trailing zeros add up; high zeros when the largest product fits |
//! | `udiv`, `urem` | high zeros of the largest result (`a`, and `c − 1` for `urem`) |
//! | `eq`, `lt`, `le` | decided when the bits decide them (a bit known 1 on one side, 0 on the other; the largest value below the smallest) |
//! | `cast` to `uN` | the operand's low `N` bits (a widening cast pads with 0; a narrowing one fails unless the value fits) |
//! | `trunc` | the operand's low `N` bits |
//! | `select` | the join of the two arms |
//! | block parameter | the join of its arguments over the incoming edges |
//! | entry parameters, `call`/`hint`/`load`/`array_get`/`from_bits` results, fields | ⊤ |
//!
//! # Algorithm
//!
//! One sweep over the blocks in reverse post-order, each instruction once: linear in the size
//! of the function. Every forward edge's source is visited before its target, so a block
//! parameter's arguments are known when its block is; a parameter of a block that a back edge
//! (or an edge from a later block) enters is ⊤, so no fixpoint is needed. (Facts carried round
//! a loop are what [`super::ranges`] widens and narrows for; the bit patterns of interest here,
//! masks, shifts and concatenations, are within one iteration.)
//!
//! ```text
//! b0(v0: u32, v1: u32):
//!     v2 = shl v0, u32 8            zero = 0x000000FF
//!     v3 = and v1, u32 255          zero = 0xFFFFFF00
//!     v4 = add v2, v3               no position both maybe 1: no carry, v4 = v2 | v3
//! ```
//!
//! `tests/analysis_known_bits.rs` checks on random programs that every value the interpreter
//! computes agrees with its known bits.

use super::ranges::max_of;
use crate::ir::{BinOp, Const, Function, InstKind, Terminator, ValueDef, ValueId};

/// What is known of a `uN` value's bits: `zero` has the bits that are 0 on every run, `one` the
/// bits that are 1; they never share a bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Bits {
    /// The bits known 0 (below the width only).
    pub zero: u64,
    /// The bits known 1.
    pub one: u64,
}

impl Bits {
    /// Nothing known.
    pub const TOP: Bits = Bits { zero: 0, one: 0 };

    /// Every bit of the `width`-bit constant `c`.
    pub fn constant(c: u64, width: u32) -> Bits {
        let m = max_of(width);
        Bits {
            zero: !c & m,
            one: c & m,
        }
    }

    /// What both know.
    pub fn join(self, other: Bits) -> Bits {
        Bits {
            zero: self.zero & other.zero,
            one: self.one & other.one,
        }
    }

    /// The smallest value the bits allow.
    pub fn min(self) -> u64 {
        self.one
    }

    /// The largest value the bits allow at width `width`.
    pub fn max(self, width: u32) -> u64 {
        !self.zero & max_of(width)
    }

    /// The bits that may be 1 at width `width`.
    pub fn maybe_one(self, width: u32) -> u64 {
        self.max(width)
    }

    /// Whether `x` agrees with every known bit.
    pub fn allows(self, x: u64) -> bool {
        x & self.zero == 0 && x & self.one == self.one
    }

    /// The constant, when every bit of the width is known.
    pub fn as_constant(self, width: u32) -> Option<u64> {
        ((self.zero | self.one) == max_of(width)).then_some(self.one)
    }

    /// Only the high bits above `x`'s highest 1 known (0): what a bound `≤ x` says.
    fn at_most(x: u64, width: u32) -> Bits {
        let smear = if x == 0 {
            0
        } else {
            u64::MAX >> x.leading_zeros()
        };
        Bits {
            zero: !smear & max_of(width),
            one: 0,
        }
    }
}

/// Known bits of every `uN` value of one function (see the module doc).
#[derive(Clone, Debug)]
pub struct KnownBits {
    /// By value index; ⊤ for values not tracked.
    facts: Vec<Bits>,
}

impl KnownBits {
    /// Computes the known bits of `func`'s values (one sweep, see the module doc).
    pub fn new(func: &Function) -> KnownBits {
        Solver::new(func).run()
    }

    /// The known bits of `v`, if it is a `uN` or `u1` scalar.
    pub fn of(&self, func: &Function, v: ValueId) -> Option<Bits> {
        let w = func.value_type(v).uint_width()?;
        if let Some(Const::UInt(c)) = func.const_value(v) {
            return Some(Bits::constant(c, w));
        }
        Some(self.facts.get(v.index()).copied().unwrap_or(Bits::TOP))
    }
}

struct Solver<'f> {
    func: &'f Function,
    facts: Vec<Bits>,
    /// By block index: the join of the arguments seen so far for each parameter (`None`: no
    /// edge yet), or `None` for the whole block when a back edge enters it.
    incoming: Vec<Option<Vec<Option<Bits>>>>,
}

impl<'f> Solver<'f> {
    fn new(func: &'f Function) -> Solver<'f> {
        let incoming = func
            .blocks
            .iter()
            .map(|b| Some(vec![None; b.params.len()]))
            .collect();
        Solver {
            func,
            facts: vec![Bits::TOP; func.values.len()],
            incoming,
        }
    }

    fn run(mut self) -> KnownBits {
        let func = self.func;
        let rpo = func.reverse_post_order();
        let mut pos = vec![u32::MAX; func.blocks.len()];
        for (k, b) in rpo.iter().enumerate() {
            pos[b.index()] = k as u32;
        }
        // A block entered by an edge from itself or a later block (a loop header) keeps ⊤.
        for &b in &rpo {
            for s in func.successors(b) {
                if pos[s.index()] <= pos[b.index()] {
                    self.incoming[s.index()] = None;
                }
            }
        }
        self.incoming[func.entry.index()] = None;
        for &b in &rpo {
            let data = func.block(b);
            if let Some(args) = &self.incoming[b.index()] {
                for (&p, fact) in data.params.iter().zip(args) {
                    self.facts[p.index()] = fact.unwrap_or(Bits::TOP);
                }
            }
            for &i in &data.insts {
                let inst = func.inst(i);
                if let [r] = inst.results[..] {
                    if let Some(w) = func.value_type(r).uint_width() {
                        self.facts[r.index()] = self.transfer(&inst.kind, w);
                    }
                }
            }
            let calls = match &data.term {
                Some(Terminator::Jmp(c)) => vec![c],
                Some(Terminator::Br {
                    then_dest,
                    else_dest,
                    ..
                }) => vec![then_dest, else_dest],
                _ => Vec::new(),
            };
            for call in calls {
                let facts: Vec<Option<Bits>> = call.args.iter().map(|&a| self.operand(a)).collect();
                if let Some(args) = &mut self.incoming[call.block.index()] {
                    for (slot, fact) in args.iter_mut().zip(facts) {
                        let fact = fact.unwrap_or(Bits::TOP);
                        *slot = Some(slot.map_or(fact, |s| s.join(fact)));
                    }
                }
            }
        }
        KnownBits { facts: self.facts }
    }

    /// The known bits of operand `v` (`None` if it is not a `uN`).
    fn operand(&self, v: ValueId) -> Option<Bits> {
        let w = self.func.value_type(v).uint_width()?;
        Some(match self.func.value(v).def {
            ValueDef::Const(_) => match self.func.const_value(v) {
                Some(Const::UInt(c)) => Bits::constant(c, w),
                _ => Bits::TOP,
            },
            _ => self.facts[v.index()],
        })
    }

    fn width(&self, v: ValueId) -> Option<u32> {
        self.func.value_type(v).uint_width()
    }

    /// The known bits of an instruction's `w`-bit result.
    fn transfer(&self, kind: &InstKind, w: u32) -> Bits {
        let m = max_of(w);
        match *kind {
            InstKind::Binary { op, lhs, rhs } => {
                let (Some(a), Some(c)) = (self.operand(lhs), self.operand(rhs)) else {
                    return Bits::TOP;
                };
                let aw = self.width(lhs).unwrap_or(w);
                binary(op, a, c, aw, self.width(rhs).unwrap_or(aw))
            }
            InstKind::Not { arg } => match self.operand(arg) {
                Some(a) => Bits {
                    zero: a.one & m,
                    one: a.zero & m,
                },
                None => Bits::TOP,
            },
            InstKind::Cast { arg, .. } | InstKind::Truncate { arg, .. } => {
                match self.operand(arg) {
                    Some(a) => Bits {
                        zero: a.zero & m,
                        one: a.one & m,
                    },
                    None => Bits::TOP,
                }
            }
            InstKind::Select {
                then_value,
                else_value,
                ..
            } => match (self.operand(then_value), self.operand(else_value)) {
                (Some(a), Some(b)) => a.join(b),
                _ => Bits::TOP,
            },
            _ => Bits::TOP,
        }
    }
}

/// The known bits of `op` on operands `a` (width `w`) and `c` (width `cw`: a shift amount may
/// have another width than the value shifted). The result has width `w`, or 1 for comparisons.
pub fn binary(op: BinOp, a: Bits, c: Bits, w: u32, cw: u32) -> Bits {
    let m = max_of(w);
    let decided = |always: bool, never: bool| {
        if always {
            Bits::constant(1, 1)
        } else if never {
            Bits::constant(0, 1)
        } else {
            Bits::TOP
        }
    };
    match op {
        BinOp::And => Bits {
            zero: (a.zero | c.zero) & m,
            one: a.one & c.one,
        },
        BinOp::Or => Bits {
            zero: a.zero & c.zero,
            one: (a.one | c.one) & m,
        },
        BinOp::Xor => Bits {
            zero: (a.zero & c.zero) | (a.one & c.one),
            one: (a.zero & c.one) | (a.one & c.zero),
        },
        BinOp::Shl | BinOp::Shr => {
            let left = op == BinOp::Shl;
            if let Some(k) = c.as_constant(cw) {
                if k >= u64::from(w) {
                    return Bits::constant(0, w);
                }
                let shifted_in = if left { (1u64 << k) - 1 } else { !(m >> k) & m };
                let mv = |x: u64| if left { (x << k) & m } else { x >> k };
                return Bits {
                    zero: mv(a.zero) | shifted_in,
                    one: mv(a.one),
                };
            }
            // By a variable: the known-0 run at the end the bits move away from stays.
            let run = if left {
                let t = (!a.zero).trailing_zeros().min(w);
                max_of(t)
            } else {
                let t = (a.zero | !m).leading_ones().saturating_sub(64 - w);
                !m.checked_shr(t).unwrap_or(0) & m
            };
            Bits { zero: run, one: 0 }
        }
        BinOp::Add => add_sub(a, c, w, false),
        BinOp::Sub => add_sub(
            a,
            Bits {
                zero: c.one,
                one: c.zero,
            },
            w,
            true,
        ),
        BinOp::Mul => {
            let tz = (!a.zero).trailing_zeros() + (!c.zero).trailing_zeros();
            let low = max_of(tz.min(w));
            let high = match u128::from(a.max(w)) * u128::from(c.max(w)) {
                p if p <= u128::from(m) => Bits::at_most(p as u64, w).zero,
                _ => 0,
            };
            Bits {
                zero: low | high,
                one: 0,
            }
        }
        BinOp::UDiv => Bits::at_most(a.max(w), w),
        BinOp::URem => Bits::at_most(a.max(w).min(c.max(w).saturating_sub(1)), w),
        BinOp::Eq => {
            let differ = (a.one & c.zero) | (a.zero & c.one) != 0;
            let same = a.as_constant(w).is_some() && a == c;
            decided(same, differ)
        }
        BinOp::Lt => decided(a.max(w) < c.min(), a.min() >= c.max(w)),
        BinOp::Le => decided(a.max(w) <= c.min(), a.min() > c.max(w)),
        BinOp::Div => Bits::TOP,
    }
}

/// `a + c + carry_in` mod `2^w`, bit by bit with the carries that are known (LLVM's
/// `KnownBits::computeForAddSub`): the smallest and the largest sums bound every carry.
fn add_sub(a: Bits, c: Bits, w: u32, carry: bool) -> Bits {
    let m = max_of(w);
    let cin = u64::from(carry);
    // Sums of the largest and of the smallest values: where a carry is the same in both, it is
    // known.
    let max_sum = a.max(w).wrapping_add(c.max(w)).wrapping_add(cin) & m;
    let min_sum = a.one.wrapping_add(c.one).wrapping_add(cin) & m;
    // The carry into bit i is bit i of (sum ^ a ^ c).
    let carry_zero = !(max_sum ^ !a.zero ^ !c.zero) & m;
    let carry_one = (min_sum ^ a.one ^ c.one) & m;
    let known = (a.zero | a.one) & (c.zero | c.one) & (carry_zero | carry_one);
    Bits {
        zero: !max_sum & known & m,
        one: min_sum & known,
    }
}
