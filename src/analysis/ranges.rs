//! Value ranges of unsigned integers: for every `uN` (and `u1`) value, an interval `[lo, hi]`
//! that holds on every execution, and a tighter one at the entry of each block from the branch
//! conditions that dominate it.
//!
//! The optimizer uses the intervals to prove that an addition, subtraction or multiplication
//! cannot wrap, that a narrowing cast cannot fail, and that a comparison is decided or can be
//! an equality (the `ranges` pass); R1CS lowering then skips the normalizations and range checks
//! that cannot fail.
//!
//! # Algorithm
//!
//! An abstract interpretation over the SSA graph with the interval lattice (⊥ = "never
//! computed", then intervals ordered by inclusion, ⊤ = `[0, 2^N - 1]`):
//!
//! 1. **Conditions.** A block `b` whose only predecessor `p` ends in `br c, T, E` with `T ≠ E`
//!    is entered only when `c` is 1 (`b = T`) or 0 (`b = E`). Such a condition holds in every
//!    block `b` dominates, for the same SSA values (a path from a value's definition to a block
//!    dominated by `b` passes through `b`), so each block inherits its immediate dominator's
//!    conditions and adds its own. `at(b, v)` is `v`'s interval intersected with what the
//!    conditions of `b` say about it: `lt a, x` true gives `a ≤ x.hi − 1` and `x ≥ a.lo + 1`,
//!    false gives `a ≥ x.lo` and `x ≤ a.hi`; likewise `le`, `eq` (and `not eq` against a
//!    bound), `not c`, and the `and` of conditions taken as true.
//! 2. **Ascending iteration.** Sweep the blocks in reverse post-order, each loop's blocks right
//!    after its header ([`LoopForest::nested_order`]), until nothing changes; a sweep repeats a
//!    loop until it settles before going on to the blocks after it. A
//!    block parameter is the join, over its incoming edges that can be taken, of the argument's
//!    interval at the predecessor refined by the edge's own condition; an instruction's result
//!    is its transfer function on `at(b, operand)`. Every update joins with the old interval,
//!    so intervals only grow.
//! 3. **Widening.** A loop header's parameter that has grown [`WIDEN_AFTER`] times jumps to the
//!    type's bound in the direction it grows (`lo` to 0, `hi` to `2^N − 1`), so the ascent ends.
//! 4. **Narrowing.** [`NARROW_SWEEPS`] more sweeps recompute every interval from its transfer
//!    function *without* joining the old one. From a post-fixpoint each such sweep stays above
//!    the least fixpoint (the transfer functions are monotone), so the result is still sound;
//!    it recovers the bounds widening threw away: `for i in 0..10000` widens its header's `i`
//!    to `[0, 2^32 − 1]`, and narrowing brings it back to `[0, 10000]` through the body's
//!    `i ≤ 9999`.
//!
//! Fields, references and `hint`/`call`/`load` results are not tracked (⊤ by their type); an
//! array of `uN` has one interval for all its elements. A failing operation constrains its
//! result to the cases where it succeeds (`cast` to `u8` of `[0, 300]` is `[0, 255]`).
//!
//! # Example
//!
//! ```text
//! b1(v4: u32):                  v4 ∈ [0, 10000]
//!     v5 = lt v4, u32 10000
//!     br v5, b2(), b3()
//! b2():                         at(b2, v4) = [0, 9999]      (v5 true)
//!     v11 = add v4, u32 1       v11 ∈ [1, 10000]: cannot wrap
//!     jmp b1(v11)
//! ```
//!
//! `tests/analysis_ranges.rs` checks on random programs that every value the interpreter
//! computes lies in its interval at its block.

use super::dominators::DomTree;
use super::loops::LoopForest;
use crate::fxhash::FxMap;
use crate::ir::{BinOp, BlockId, Const, Function, InstKind, Terminator, Type, ValueDef, ValueId};

mod interval;

pub use interval::{binary, max_of, Interval};

/// Growths of a loop header's parameter before it is widened.
pub const WIDEN_AFTER: u32 = 3;
/// Narrowing sweeps after the ascending iteration.
pub const NARROW_SWEEPS: usize = 3;
/// Most ascending sweeps, plus 8 per block; past this the analysis gives up and every interval
/// is ⊤ (it cannot happen with widening, but a bound keeps a bug from hanging the compiler).
/// Sequential loops take sweeps in proportion to their number: each loop is iterated until it
/// settles, then the sweep goes on to the next.
const MAX_SWEEPS: usize = 1000;

/// The integer width of the leaves of `ty`: `uN` itself, or the leaf type of an array of them.
fn leaf_width(ty: &Type) -> Option<u32> {
    match ty {
        Type::UInt(w) => Some(*w),
        Type::Array(elem, _) => leaf_width(elem),
        _ => None,
    }
}

/// The leaf width of a value the analysis tracks.
fn tracked_width(func: &Function, v: ValueId) -> u32 {
    leaf_width(func.value_type(v)).expect("bug: a tracked value has uN leaves")
}

/// A condition known at a block's entry: the `u1` value `cond` is `holds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fact {
    cond: ValueId,
    holds: bool,
}

/// Every value [`refine`] may narrow by a fact on `cond` (a superset: both sides of every
/// `and`/`or`, whichever way the fact holds), following it to the same depth, into `out`.
fn mentioned(func: &Function, cond: ValueId, depth: u32, out: &mut Vec<ValueId>) {
    out.push(cond);
    if depth > MAX_COND_DEPTH {
        return;
    }
    let ValueDef::Result(inst, _) = func.value(cond).def else {
        return;
    };
    match &func.inst(inst).kind {
        InstKind::Not { arg } if func.value_type(*arg).is_bool() => {
            mentioned(func, *arg, depth + 1, out);
        }
        InstKind::Binary { lhs, rhs, .. } if func.value_type(*lhs).is_bool() => {
            mentioned(func, *lhs, depth + 1, out);
            mentioned(func, *rhs, depth + 1, out);
        }
        InstKind::Binary { lhs, rhs, .. } => out.extend([*lhs, *rhs]),
        _ => {}
    }
}

/// The dominating conditions of a function, indexed by the values they can narrow: a block
/// after a long sequence of loops is dominated by one loop exit's condition per loop, and
/// asking each of them about every operand made the analysis quadratic. A value is narrowed
/// by the few facts that name it, each applying where its block dominates.
#[derive(Clone, Debug)]
struct Facts {
    dom: DomTree,
    /// For each value, the facts that may narrow it, with the block they hold in, in reverse
    /// post-order (so that a block's facts apply from the entry down, as they are inherited).
    by_value: FxMap<ValueId, Vec<(BlockId, Fact)>>,
}

impl Facts {
    /// `r` (the interval of `v`) refined by every fact holding at `block`; `None` when they
    /// cannot all hold.
    fn refine_at(
        &self,
        func: &Function,
        get: &dyn Fn(ValueId) -> Option<Interval>,
        block: BlockId,
        v: ValueId,
        mut r: Interval,
    ) -> Option<Interval> {
        for (d, f) in self.by_value.get(&v).map_or(&[][..], Vec::as_slice) {
            if self.dom.dominates(*d, block) {
                r = refine(func, get, f.cond, f.holds, v, r, 0)?;
            }
        }
        Some(r)
    }
}

/// The intervals of the tracked values (those of a type with `uN` leaves) of a function, and
/// nothing for the others: a merged function has millions of values, mostly `field`s, and a
/// dense table would cost 16 bytes for each. A bit per value says whether it is tracked; a
/// tracked value's slot is the number of tracked values before it, counted from a running
/// total per 64 values (about 1.5 bits per value in all, plus 16 bytes per tracked value).
#[derive(Clone, Debug)]
struct Table {
    /// Bit `v % 64` of word `v / 64`: whether value `v` is tracked.
    tracked: Vec<u64>,
    /// The number of tracked values before each word of `tracked`.
    before: Vec<u32>,
    /// By slot; [`Table::BOTTOM`] is ⊥ (never computed).
    vals: Vec<Interval>,
}

impl Table {
    /// ⊥, as the one interval that is empty (an [`Interval`] otherwise has `lo ≤ hi`).
    const BOTTOM: Interval = Interval { lo: 1, hi: 0 };

    /// All of `func`'s values of a tracked type, at ⊥.
    fn new(func: &Function) -> Table {
        let n = func.values.len();
        let mut tracked = vec![0u64; n.div_ceil(64)];
        let mut before = Vec::with_capacity(tracked.len());
        let mut count = 0u32;
        for (k, word) in tracked.iter_mut().enumerate() {
            before.push(count);
            for v in k * 64..n.min(k * 64 + 64) {
                if leaf_width(func.type_data(func.values[v].ty)).is_some() {
                    *word |= 1 << (v % 64);
                }
            }
            count = count
                .checked_add(word.count_ones())
                .expect("bug: more than u32::MAX values");
        }
        Table {
            tracked,
            before,
            vals: vec![Table::BOTTOM; count as usize],
        }
    }

    /// The slot of `v`, `None` if it is untracked (or was made after the analysis).
    fn slot(&self, v: ValueId) -> Option<usize> {
        let (k, bit) = (v.index() / 64, v.index() % 64);
        let word = *self.tracked.get(k)?;
        if word >> bit & 1 == 0 {
            return None;
        }
        let below = word & ((1u64 << bit) - 1);
        Some(self.before[k] as usize + below.count_ones() as usize)
    }

    /// The interval in `slot`, `None` for ⊥.
    fn get(&self, slot: usize) -> Option<Interval> {
        let r = self.vals[slot];
        (r != Table::BOTTOM).then_some(r)
    }

    fn put(&mut self, slot: usize, r: Option<Interval>) {
        self.vals[slot] = r.unwrap_or(Table::BOTTOM);
    }
}

/// The intervals of one function (see the module doc).
#[derive(Clone, Debug)]
pub struct Ranges {
    /// The tracked values' intervals.
    table: Table,
    /// The conditions holding at each block's entry.
    facts: Facts,
    /// Blocks some execution can reach.
    reached: Vec<bool>,
}

impl Ranges {
    /// Analyses `func`.
    pub fn new(func: &Function) -> Ranges {
        Solver::new(func).solve()
    }

    /// The interval of `v` on every execution; `None` for an untracked type. A value of a block
    /// no execution reaches (⊥) has an empty range, given here as `None` too.
    pub fn of(&self, v: ValueId) -> Option<Interval> {
        self.table.slot(v).and_then(|s| self.table.get(s))
    }

    /// The interval of `v` at the entry of `block` (and anywhere inside it): [`Ranges::of`]
    /// refined by the branch conditions that dominate `block`. `None` for an untracked type, or
    /// when the conditions cannot all hold (the block is never entered).
    pub fn at(&self, func: &Function, block: BlockId, v: ValueId) -> Option<Interval> {
        let base = self.range_of(func, v)?;
        self.facts
            .refine_at(func, &|x| self.range_of(func, x), block, v, base)
    }

    /// Whether some execution may reach `block`.
    pub fn reaches(&self, block: BlockId) -> bool {
        self.reached.get(block.index()).copied().unwrap_or(false)
    }

    /// The interval of `v` (constants included), ⊤ for a tracked value never computed.
    fn range_of(&self, func: &Function, v: ValueId) -> Option<Interval> {
        if let Some(Const::UInt(x)) = func.const_value(v) {
            return Some(Interval::constant(x));
        }
        let s = self.table.slot(v)?;
        Some(
            self.table
                .get(s)
                .unwrap_or_else(|| Interval::full(tracked_width(func, v))),
        )
    }
}

struct Solver<'f> {
    func: &'f Function,
    rpo: Vec<BlockId>,
    /// Predecessors by block index.
    preds: Vec<Vec<BlockId>>,
    headers: Vec<bool>,
    table: Table,
    growths: FxMap<ValueId, u32>,
    /// The conditions at each block's entry.
    facts: Facts,
    /// The condition a block adds to its immediate dominator's, by block index.
    own: Vec<Option<Fact>>,
    /// Each block's position in `rpo` (`u32::MAX` for a block no path reaches).
    order: Vec<u32>,
    /// Whether the conditions at a block's entry can all hold, by block index, as of the
    /// block's last visit: see [`Solver::feasible`].
    facts_ok: Vec<bool>,
    /// The position in `rpo` of the block the current sweep visits.
    now: usize,
    reached: Vec<bool>,
    /// Ascending (join with the old value, widen) or narrowing (recompute).
    narrowing: bool,
    changed: bool,
    /// Whether a `set` during the current block's visit changed an interval.
    block_changed: bool,
    /// By block index, the position in `rpo` where a sweep must start to see everything a
    /// change in the block can affect: its outermost loop's header, or the block itself (see
    /// [`Solver::sweep`]); all 0 in an irreducible function.
    start: Vec<u32>,
    /// By position in `rpo`, whether it is the last position of an outermost loop's blocks:
    /// where an ascending sweep that changed something in that loop goes back to its header
    /// instead of going on (see [`Solver::sweep`]). All `false` in an irreducible function.
    loop_ends: Vec<bool>,
    /// By block index, the last position in `rpo` of the block's successors (0 if none): a
    /// sweep that has passed every successor of every reached block can stop.
    last_succ: Vec<u32>,
}

impl<'f> Solver<'f> {
    fn new(func: &'f Function) -> Solver<'f> {
        let dom = DomTree::dominators(func);
        let loops = LoopForest::new(func);
        // Each loop's blocks consecutive, so that a sweep can settle a loop before going on.
        let rpo = loops.nested_order(&func.reverse_post_order());
        let mut headers = vec![false; func.blocks.len()];
        for l in loops.loops() {
            headers[l.header.index()] = true;
        }
        let mut preds = vec![Vec::new(); func.blocks.len()];
        for (b, ps) in func.predecessors() {
            preds[b.index()] = ps;
        }
        // Conditions, inherited down the dominator tree: indexed by the values they name.
        let mut own = vec![None; func.blocks.len()];
        let mut order = vec![u32::MAX; func.blocks.len()];
        let mut by_value: FxMap<ValueId, Vec<(BlockId, Fact)>> = FxMap::default();
        let mut named = Vec::new();
        for (k, &b) in rpo.iter().enumerate() {
            order[b.index()] = k as u32;
            let [p] = preds[b.index()].as_slice() else {
                continue;
            };
            let Some(f) = edge_fact(func, *p, b) else {
                continue;
            };
            own[b.index()] = Some(f);
            named.clear();
            mentioned(func, f.cond, 0, &mut named);
            named.sort_unstable();
            named.dedup();
            for &v in &named {
                by_value.entry(v).or_default().push((b, f));
            }
        }
        // Where a sweep must start to see what a change in each block affects (see `sweep`).
        let mut start = vec![0; func.blocks.len()];
        let mut loop_ends = vec![false; rpo.len()];
        if loops.is_reducible() {
            start.clone_from(&order);
            for l in loops.loops().iter().filter(|l| l.parent.is_none()) {
                let h = order[l.header.index()];
                let mut last = h;
                for b in &l.blocks {
                    start[b.index()] = start[b.index()].min(h);
                    last = last.max(order[b.index()]);
                }
                if let Some(end) = loop_ends.get_mut(last as usize) {
                    *end = true;
                }
            }
        }
        let mut last_succ = vec![0; func.blocks.len()];
        for &b in &rpo {
            if let Some(term) = &func.block(b).term {
                for s in term.successors() {
                    last_succ[b.index()] = last_succ[b.index()].max(order[s.index()]);
                }
            }
        }
        Solver {
            func,
            rpo,
            preds,
            headers,
            table: Table::new(func),
            growths: FxMap::default(),
            facts: Facts { dom, by_value },
            own,
            order,
            facts_ok: vec![true; func.blocks.len()],
            now: 0,
            reached: vec![false; func.blocks.len()],
            narrowing: false,
            changed: false,
            block_changed: false,
            start,
            loop_ends,
            last_succ,
        }
    }

    fn solve(mut self) -> Ranges {
        let mut converged = false;
        let mut from = 0;
        for _ in 0..MAX_SWEEPS + 8 * self.rpo.len() {
            self.changed = false;
            from = self.sweep(from);
            if !self.changed {
                converged = true;
                break;
            }
        }
        if converged {
            self.narrowing = true;
            for _ in 0..NARROW_SWEEPS {
                self.sweep(0);
            }
        } else {
            // Give up soundly: everything may hold any value of its type.
            for v in 0..self.func.values.len() {
                let v = ValueId::new(v);
                if let Some(s) = self.table.slot(v) {
                    let full = Interval::full(tracked_width(self.func, v));
                    self.table.put(s, Some(full));
                }
            }
            self.reached.iter_mut().for_each(|r| *r = true);
        }
        Ranges {
            table: self.table,
            facts: self.facts,
            reached: self.reached,
        }
    }

    fn range_of(&self, v: ValueId) -> Option<Interval> {
        if let Some(Const::UInt(x)) = self.func.const_value(v) {
            return Some(Interval::constant(x));
        }
        let s = self.table.slot(v)?;
        Some(
            self.table
                .get(s)
                .unwrap_or_else(|| Interval::full(tracked_width(self.func, v))),
        )
    }

    /// `v` at `block`, refined by `extra` conditions too; `None` when they cannot hold (or `v`
    /// is untracked, then `Some(⊤)` is never needed by callers that check `width`).
    fn at(&self, block: BlockId, v: ValueId, extra: Option<Fact>) -> Option<Interval> {
        let base = self.range_of(v)?;
        let get = |x: ValueId| self.range_of(x);
        let r = self.facts.refine_at(self.func, &get, block, v, base)?;
        match extra {
            Some(f) => refine(self.func, &get, f.cond, f.holds, v, r, 0),
            None => Some(r),
        }
    }

    /// Whether the condition `f` can hold, on the current intervals.
    fn fact_ok(&self, f: Fact) -> bool {
        let get = |x: ValueId| self.range_of(x);
        let base = get(f.cond).unwrap_or(Interval::new(0, 1));
        refine(self.func, &get, f.cond, f.holds, f.cond, base, 0).is_some()
    }

    /// Whether the conditions of `block` (and `extra`) can all hold, on the current intervals.
    ///
    /// A block's conditions are its immediate dominator's and its own, and they name only
    /// values defined in the blocks that strictly dominate it, which a sweep visits before it
    /// and does not change again. So the answer for a block this sweep has visited is the one
    /// recorded at its visit (`facts_ok`), and for one it has not (the source of a back edge)
    /// it is its own conditions up the dominator tree to the first block already visited: each
    /// question costs the part of the chain inside the loop, not every condition above it.
    fn feasible(&self, block: BlockId, extra: Option<Fact>) -> bool {
        extra.is_none_or(|f| self.fact_ok(f)) && self.chain_ok(block)
    }

    /// Whether the conditions at `block`'s entry can all hold (see [`Solver::feasible`]).
    fn chain_ok(&self, mut block: BlockId) -> bool {
        loop {
            if (self.order[block.index()] as usize) <= self.now {
                return self.facts_ok[block.index()];
            }
            if self.own[block.index()].is_some_and(|f| !self.fact_ok(f)) {
                return false;
            }
            match self.facts.dom.idom(block) {
                Some(d) => block = d,
                None => return true,
            }
        }
    }

    fn set(&mut self, v: ValueId, new: Option<Interval>, header_param: bool) {
        let Some(s) = self.table.slot(v) else {
            return;
        };
        let old = self.table.get(s);
        let value = if self.narrowing {
            // Narrowing recomputes; ⊥ stays ⊥ (nothing can reach it).
            match (old, new) {
                (Some(o), Some(n)) => Some(n.meet(o).unwrap_or(n)),
                (_, n) => n,
            }
        } else {
            match (old, new) {
                (None, n) => n,
                (o, None) => o,
                (Some(o), Some(n)) => {
                    let mut j = o.join(n);
                    if j != o && header_param {
                        let g = self.growths.entry(v).or_insert(0);
                        *g += 1;
                        if *g > WIDEN_AFTER {
                            if j.lo < o.lo {
                                j.lo = 0;
                            }
                            if j.hi > o.hi {
                                j.hi = max_of(tracked_width(self.func, v));
                            }
                        }
                    }
                    Some(j)
                }
            }
        };
        if value != old {
            self.changed = true;
            self.block_changed = true;
            self.table.put(s, value);
        }
    }

    /// Visits the blocks in reverse post-order from position `from`, and returns where the next
    /// sweep must start.
    ///
    /// A block's intervals follow from those of the blocks before it (its dominators and
    /// forward predecessors) and from the sources of the back edges into it when it is a loop
    /// header. So a sweep that changes nothing before position `p` and nothing inside a loop
    /// whose header is before `p` leaves the next sweep nothing to change before `p` either:
    /// the next sweep starts at the earliest `start` of a block that changed. A program of many
    /// loops in sequence needs sweeps in proportion to their number (each loop's exit is
    /// reached once its header has grown), and each of them now revisits the loops still
    /// growing, not the whole function.
    ///
    /// A sweep also stops at the first position past every successor of every reached block
    /// (`frontier`): a block there has no reached forward predecessor, and the sources of its
    /// back edges (if it is a loop header) come after it and are dominated by it, so it is not
    /// reached and neither is anything after it. Without this, each of those sweeps would walk
    /// the unreached rest of the function: quadratic in a program of many loops in sequence.
    ///
    /// An ascending sweep that changed a block of an outermost loop goes back to that loop's
    /// header as soon as it has visited the loop's last block (`loop_ends`), rather than going
    /// on through everything after it: a loop is iterated until its intervals settle before the
    /// blocks after it see them. Otherwise every sweep that iterates the first of many loops
    /// in sequence would walk all the others too (quadratic: an unrolled hash whose rounds
    /// each copy a small array in a loop), and each of them would count the growth of its
    /// header's parameters fed by the unsettled loop before it, widening sooner. Stopping there
    /// leaves nothing unsettled behind: a block this sweep visited outside a loop has only
    /// blocks before it as inputs (its dominators and forward predecessors), all visited
    /// before it in this sweep or settled before it started, and a loop before this one that
    /// changed would have sent the sweep back already.
    fn sweep(&mut self, from: usize) -> usize {
        let mut next = self.rpo.len();
        // The earliest header of a loop whose block changed in this sweep.
        let mut loop_next = self.rpo.len();
        let mut frontier = 0;
        for &b in &self.rpo[..from] {
            if self.reached[b.index()] {
                frontier = frontier.max(self.last_succ[b.index()] as usize);
            }
        }
        for i in from..self.rpo.len() {
            if i > 0 && i > frontier {
                break;
            }
            self.block_changed = false;
            self.visit(i);
            let b = self.rpo[i].index();
            if self.block_changed {
                next = next.min(self.start[b] as usize);
                // In a loop: its header, or a block whose sweep starts at an earlier header
                // (where nothing is a loop, `loop_ends` stays all `false`).
                if self.headers[b] || (self.start[b] as usize) < i {
                    loop_next = loop_next.min(self.start[b] as usize);
                }
            }
            if self.reached[b] {
                frontier = frontier.max(self.last_succ[b] as usize);
            }
            if !self.narrowing && self.loop_ends[i] && loop_next <= i {
                return loop_next;
            }
        }
        next
    }

    /// Visits the block at position `i` of `rpo`.
    fn visit(&mut self, i: usize) {
        let b = self.rpo[i];
        // The conditions at `b`'s entry, recorded before anything this visit sets (they
        // name values of blocks visited before it).
        let ok = self
            .facts
            .dom
            .idom(b)
            .is_none_or(|d| self.facts_ok[d.index()])
            && self.own[b.index()].is_none_or(|f| self.fact_ok(f));
        self.facts_ok[b.index()] = ok;
        self.now = i;
        let header = self.headers[b.index()];
        let func = self.func;
        let params = &func.block(b).params;
        if b == self.func.entry {
            self.reached[b.index()] = true;
            for &p in params {
                let full = self.table.slot(p).map(|_| tracked_width(self.func, p));
                self.set(p, full.map(Interval::full), false);
            }
        } else {
            let mut incoming: Vec<Option<Interval>> = vec![None; params.len()];
            let mut any = false;
            for &q in &self.preds[b.index()] {
                if !self.reached[q.index()] {
                    continue;
                }
                for (call, fact) in edges_to(self.func, q, b) {
                    if !self.feasible(q, fact) {
                        continue;
                    }
                    any = true;
                    for (k, &a) in call.args.iter().enumerate() {
                        if self.table.slot(params[k]).is_none() {
                            continue;
                        }
                        let r = self.at(q, a, fact);
                        incoming[k] = match (incoming[k], r) {
                            (Some(x), Some(y)) => Some(x.join(y)),
                            (x, y) => x.or(y),
                        };
                    }
                }
            }
            if !any {
                return;
            }
            if !self.reached[b.index()] {
                self.reached[b.index()] = true;
                self.block_changed = true;
            }
            for (k, &p) in params.iter().enumerate() {
                self.set(p, incoming[k], header);
            }
        }
        for &inst in &self.func.block(b).insts {
            self.set_results(b, inst);
        }
    }

    /// The interval of an instruction's first result from its operands at `b` (an instruction
    /// has one result the analysis tracks, or none: `None`, not a vector, so that a sweep
    /// allocates nothing per instruction).
    fn transfer(&self, b: BlockId, kind: &InstKind) -> Option<Option<Interval>> {
        let at = |v: ValueId| self.at(b, v, None);
        let one = |r: Option<Interval>| Some(r);
        let func = self.func;
        match kind {
            InstKind::Binary { op, lhs, rhs } => {
                let Some(w) = func.value_type(*lhs).uint_width() else {
                    // Field operations: comparisons give a `u1`, others are untracked.
                    return one(op.is_comparison().then(|| Interval::new(0, 1)));
                };
                let (Some(a), Some(c)) = (at(*lhs), at(*rhs)) else {
                    return one(None);
                };
                one(binary(*op, a, c, w))
            }
            InstKind::Not { arg } => {
                let w = func.value_type(*arg).uint_width();
                one(match (at(*arg), w) {
                    (Some(a), Some(w)) => {
                        let m = max_of(w);
                        Some(Interval::new(m - a.hi, m - a.lo))
                    }
                    _ => None,
                })
            }
            InstKind::Cast { arg, to } | InstKind::Truncate { arg, to } => {
                let Some(n) = to.uint_width() else {
                    return one(None);
                };
                let checked = matches!(kind, InstKind::Cast { .. });
                one(match at(*arg) {
                    Some(a) if a.hi <= max_of(n) => Some(a),
                    // A checked cast succeeds only on values that fit.
                    Some(a) if checked => a.meet(Interval::full(n)),
                    _ => Some(Interval::full(n)),
                })
            }
            InstKind::Select {
                cond,
                then_value,
                else_value,
            } => one(match at(*cond).and_then(Interval::as_constant) {
                Some(1) => at(*then_value),
                Some(0) => at(*else_value),
                _ => match (at(*then_value), at(*else_value)) {
                    (Some(x), Some(y)) => Some(x.join(y)),
                    _ => None,
                },
            }),
            InstKind::MakeArray { elems, elem_ty } => {
                if leaf_width(elem_ty).is_none() {
                    return one(None);
                }
                let mut acc: Option<Interval> = None;
                for &e in elems {
                    let r = at(e);
                    acc = match (acc, r) {
                        (Some(x), Some(y)) => Some(x.join(y)),
                        (x, y) => x.or(y),
                    };
                }
                one(acc.or_else(|| Some(Interval::constant(0))))
            }
            InstKind::ArrayGet { array, .. } => one(at(*array)),
            InstKind::ArraySet { array, value, .. } => one(match (at(*array), at(*value)) {
                (Some(x), Some(y)) => Some(x.join(y)),
                _ => None,
            }),
            InstKind::ToBits { .. } => one(Some(Interval::new(0, 1))),
            // Untracked results: any value of their type.
            InstKind::FromBits { .. }
            | InstKind::Load { .. }
            | InstKind::Hint { .. }
            | InstKind::Call { .. }
            | InstKind::Assert { .. }
            | InstKind::Store { .. }
            | InstKind::Log { .. }
            | InstKind::Allocate { .. }
            | InstKind::Bound { .. } => None,
        }
    }

    /// Sets the intervals of the results of `inst` at `b`: the transfer function's, and ⊤ of
    /// their type for results it says nothing about (all computed before any is set).
    fn set_results(&mut self, b: BlockId, inst: crate::ir::InstId) {
        let data = self.func.inst(inst);
        let first = self.transfer(b, &data.kind);
        for (k, &r) in data.results.iter().enumerate() {
            let iv = match (k, first) {
                (0, Some(iv)) => iv,
                _ => self
                    .table
                    .slot(r)
                    .map(|_| Interval::full(tracked_width(self.func, r))),
            };
            self.set(r, iv, false);
        }
    }
}

/// The condition a block entered from `p` alone knows: `p`'s `br` condition, when the block is
/// one arm only.
fn edge_fact(func: &Function, p: BlockId, b: BlockId) -> Option<Fact> {
    match func.block(p).term.as_ref()? {
        Terminator::Br {
            cond,
            then_dest,
            else_dest,
        } if then_dest.block != else_dest.block => Some(Fact {
            cond: *cond,
            holds: then_dest.block == b,
        }),
        _ => None,
    }
}

/// The jumps from `q` to `b`, each with the condition under which it is taken.
fn edges_to(func: &Function, q: BlockId, b: BlockId) -> Vec<(&crate::ir::BlockCall, Option<Fact>)> {
    match func.block(q).term.as_ref() {
        Some(Terminator::Jmp(dest)) if dest.block == b => vec![(dest, None)],
        Some(Terminator::Br {
            cond,
            then_dest,
            else_dest,
        }) => {
            let mut out = Vec::new();
            if then_dest.block == b {
                out.push((
                    then_dest,
                    Some(Fact {
                        cond: *cond,
                        holds: true,
                    }),
                ));
            }
            if else_dest.block == b {
                out.push((
                    else_dest,
                    Some(Fact {
                        cond: *cond,
                        holds: false,
                    }),
                ));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Most nested `not`/`and`/`or` a condition is looked through.
const MAX_COND_DEPTH: u32 = 16;

/// `r` refined by "`cond` is `holds`"; `None` when that contradicts `r`.
fn refine(
    func: &Function,
    get: &dyn Fn(ValueId) -> Option<Interval>,
    cond: ValueId,
    holds: bool,
    v: ValueId,
    mut r: Interval,
    depth: u32,
) -> Option<Interval> {
    if v == cond {
        r = r.meet(Interval::constant(u64::from(holds)))?;
    }
    if depth > MAX_COND_DEPTH {
        return Some(r);
    }
    let ValueDef::Result(inst, _) = func.value(cond).def else {
        return Some(r);
    };
    match &func.inst(inst).kind {
        InstKind::Not { arg } if func.value_type(*arg).is_bool() => {
            refine(func, get, *arg, !holds, v, r, depth + 1)
        }
        InstKind::Binary { op, lhs, rhs } if func.value_type(*lhs).is_bool() => {
            // `and` taken as true and `or` taken as false fix both operands.
            let both = match op {
                BinOp::And => holds,
                BinOp::Or => !holds,
                _ => return Some(r),
            };
            if !both {
                return Some(r);
            }
            let r = refine(func, get, *lhs, holds, v, r, depth + 1)?;
            refine(func, get, *rhs, holds, v, r, depth + 1)
        }
        InstKind::Binary { op, lhs, rhs } => {
            let Some(w) = func.value_type(*lhs).uint_width() else {
                return Some(r);
            };
            // A comparison that does not name `v` says nothing of it (checked before reading
            // the operands' intervals: most facts of a block are about other values).
            let (is_lhs, is_rhs) = (v == *lhs, v == *rhs);
            if !is_lhs && !is_rhs {
                return Some(r);
            }
            let (Some(a), Some(x)) = (get(*lhs), get(*rhs)) else {
                return Some(r);
            };
            let m = max_of(w);
            // Each constraint as an interval for `v` on the side it names.
            let meet = |r: Interval, lo: Option<u64>, hi: Option<u64>| -> Option<Interval> {
                let (lo, hi) = (lo?, hi?);
                if lo > hi {
                    return None;
                }
                r.meet(Interval::new(lo, hi))
            };
            match (op, holds) {
                // a < x
                (BinOp::Lt, true) => {
                    if is_lhs {
                        r = meet(r, Some(0), x.hi.checked_sub(1))?;
                    }
                    if is_rhs {
                        r = meet(r, a.lo.checked_add(1).filter(|l| *l <= m), Some(m))?;
                    }
                }
                // a >= x
                (BinOp::Lt, false) => {
                    if is_lhs {
                        r = meet(r, Some(x.lo), Some(m))?;
                    }
                    if is_rhs {
                        r = meet(r, Some(0), Some(a.hi))?;
                    }
                }
                // a <= x
                (BinOp::Le, true) => {
                    if is_lhs {
                        r = meet(r, Some(0), Some(x.hi))?;
                    }
                    if is_rhs {
                        r = meet(r, Some(a.lo), Some(m))?;
                    }
                }
                // a > x
                (BinOp::Le, false) => {
                    if is_lhs {
                        r = meet(r, x.lo.checked_add(1).filter(|l| *l <= m), Some(m))?;
                    }
                    if is_rhs {
                        r = meet(r, Some(0), a.hi.checked_sub(1))?;
                    }
                }
                (BinOp::Eq, true) => {
                    if is_lhs {
                        r = r.meet(x)?;
                    }
                    if is_rhs {
                        r = r.meet(a)?;
                    }
                }
                (BinOp::Eq, false) => {
                    // Only a constant on the other side removes a value, at an end.
                    let other = if is_lhs { x } else { a };
                    if let Some(k) = other.as_constant() {
                        if r.lo == k && r.hi == k {
                            return None;
                        }
                        if r.lo == k {
                            r.lo += 1;
                        } else if r.hi == k {
                            r.hi -= 1;
                        }
                    }
                }
                _ => {}
            }
            Some(r)
        }
        _ => Some(r),
    }
}
