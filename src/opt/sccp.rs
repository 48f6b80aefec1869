//! Sparse conditional constant propagation (Wegman and Zadeck, "Constant Propagation with
//! Conditional Branches", 1991; the algorithm of `../shared/seeds/sccp.md`, in the design notes
//! folder beside the repository).
//!
//! Every SSA value has a lattice cell: ⊤ (no value seen yet), a constant, or ⊥ (not constant).
//! Every CFG edge has an executable flag. Block parameters are the phis: a parameter is the meet
//! of the arguments passed along the *executable* edges into its block only.
//!
//! Algorithm:
//! 1. All cells ⊤ (constants are their own value), all edges not executable; the entry block is
//!    executable and the function's parameters are ⊥.
//! 2. Two worklists. A CFG edge that becomes executable makes its target's parameters be
//!    recomputed, and the first time a block becomes executable, all its instructions and its
//!    terminator are evaluated. An SSA value whose cell lowers re-evaluates every use in an
//!    executable block (found in def-use lists built for the purpose).
//!
//!    When the CFG has no cycle (a merged program is often one block), one sweep over the
//!    reachable blocks in reverse post-order does the same without def-use lists: a block is
//!    visited after all its predecessors and all the definitions it reads, so its parameters
//!    and instructions are evaluated once, on final cells, and reach the same fixpoint.
//! 3. Evaluation folds with the interpreter's own semantics ([`crate::ir::interp::eval_pure`] and
//!    [`crate::ir::interp::binary`]): all operands constant gives a constant, any ⊥ operand
//!    gives ⊥ (any ⊤ operand: wait). `select` on a constant condition is the chosen arm's cell.
//!    A value compared with itself is decided whatever its cell: `eq v, v` and `le v, v` are
//!    true, `lt v, v` false (on `field` and `uN`; no comparison fails, and the operand's own
//!    instruction stays, so a `bound` that `--field-cmp zokrates` put before it still fails).
//!    An operation that fails on its constant operands (division by zero, failing assertion,
//!    out-of-bounds index, cast that does not fit) gives ⊥ and is kept: its failure is behaviour.
//!    `allocate`, `load` and `call` give ⊥. Arrays are tracked as constants too (so `array_get`
//!    of a constant array folds), but only scalars are materialized.
//! 4. A terminator marks its executable out-edges: `jmp` its edge, `br` on a constant condition
//!    the taken edge only, on ⊥ both. (A `br` whose condition is still ⊤ when the worklists are
//!    empty cannot be reached with a value; both of its edges are then marked, to stay safe.)
//! 5. Rewrite: uses of values with a scalar constant cell become that constant; instructions
//!    whose results are all constants go (they cannot fail: their operands folded), as do
//!    `assert`s of constant true; `br` on a constant becomes `jmp`; blocks never executable are
//!    removed.
//!
//! ```text
//! b0(v0: u32):                        b0(v0: u32):
//!     v1 = add u32 2, u32 3               jmp b2()
//!     v2 = lt v1, u32 4          ==>  b2():
//!     br v2, b1(), b2()                   v3 = mul v0, u32 5
//! b1():                                   return v3
//!     return v0
//! b2():
//!     v3 = mul v0, v1
//!     return v3
//! ```

use super::util::{edge, remove_unreachable_blocks};
use super::PassStats;
use crate::fxhash::{FxMap, FxSet};
use crate::ir::interp::{eval_pure, FailureKind, Val};
use crate::ir::{
    BinOp, BlockCall, BlockId, Const, Function, InstId, InstKind, Program, Terminator, ValueId,
};

/// Runs SCCP on every function of the program.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, |func| Ctx::new(func).run())
}

/// [`run`] with the worklist algorithm on every function, acyclic or not: the reference the
/// one-sweep solution of an acyclic CFG is tested against (they must give the same program).
pub fn run_worklist(program: &mut Program) -> PassStats {
    PassStats::each_function(program, |func| {
        let mut ctx = Ctx::new(func);
        ctx.solve_worklist();
        ctx.rewrite()
    })
}

/// A lattice cell.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Cell {
    Top,
    Const(Val),
    Bottom,
}

impl Cell {
    fn meet(&self, other: &Cell) -> Cell {
        match (self, other) {
            (Cell::Top, x) | (x, Cell::Top) => x.clone(),
            (Cell::Const(a), Cell::Const(b)) if a == b => Cell::Const(a.clone()),
            _ => Cell::Bottom,
        }
    }
}

/// Every value's cell, in 2 bits: a merged block has millions of values, almost all ⊥, and a
/// [`Cell`] holding a field element is 40 bytes. A value whose cell is a constant has the
/// constant in a map beside (a cell only lowers, so it gets one at most once).
struct Cells {
    /// The state of value `v` in bits `2 * (v % 32)` and up of word `v / 32`: [`TOP`],
    /// [`CONST`] or [`BOTTOM`].
    states: Vec<u64>,
    consts: FxMap<ValueId, Val>,
}

const TOP: u64 = 0;
const CONST: u64 = 1;
const BOTTOM: u64 = 2;

impl Cells {
    fn new(n: usize) -> Cells {
        Cells {
            states: vec![TOP; n.div_ceil(32)],
            consts: FxMap::default(),
        }
    }

    fn state(&self, v: ValueId) -> u64 {
        (self.states[v.index() / 32] >> (2 * (v.index() % 32))) & 3
    }

    fn get(&self, v: ValueId) -> Cell {
        match self.state(v) {
            TOP => Cell::Top,
            CONST => Cell::Const(self.consts[&v].clone()),
            _ => Cell::Bottom,
        }
    }

    fn put(&mut self, v: ValueId, cell: Cell) {
        let state = match cell {
            Cell::Top => TOP,
            Cell::Const(x) => {
                self.consts.insert(v, x);
                CONST
            }
            Cell::Bottom => BOTTOM,
        };
        if self.state(v) == CONST && state != CONST {
            self.consts.remove(&v);
        }
        let shift = 2 * (v.index() % 32);
        let word = &mut self.states[v.index() / 32];
        *word = (*word & !(3 << shift)) | (state << shift);
    }
}

/// A use of a value, in 4 bytes: an instruction, or (top bit set) a block's terminator. An
/// instruction's block is [`Uses::block_of`].
#[derive(Clone, Copy)]
struct Use(u32);

const TERM: u32 = 1 << 31;

enum User {
    Inst(InstId),
    Term(BlockId),
}

impl Use {
    fn inst(i: InstId) -> Use {
        debug_assert!(i.index() < TERM as usize);
        Use(i.index() as u32)
    }

    fn term(b: BlockId) -> Use {
        Use(TERM | b.index() as u32)
    }

    fn user(self) -> User {
        if self.0 & TERM != 0 {
            User::Term(BlockId::new((self.0 & !TERM) as usize))
        } else {
            User::Inst(InstId::new(self.0 as usize))
        }
    }
}

/// Every use of every value, grouped by value: the uses of `v` are
/// `list[start[v]..start[v + 1]]` (compressed rows, two allocations for the whole function
/// instead of one list per value: a merged block has millions of values).
struct Uses {
    start: Vec<u32>,
    list: Vec<Use>,
    /// The block of each laid-out instruction, by instruction id.
    block_of: Vec<BlockId>,
}

impl Uses {
    fn new(func: &Function) -> Uses {
        let for_each_use = |f: &mut dyn FnMut(ValueId, Use)| {
            for &b in &func.layout {
                for &i in &func.block(b).insts {
                    func.inst(i).kind.for_each_operand(|v| f(v, Use::inst(i)));
                }
                if let Some(term) = &func.block(b).term {
                    for v in term.operands() {
                        f(v, Use::term(b));
                    }
                }
            }
        };
        let mut block_of = vec![func.entry; func.insts.len()];
        for &b in &func.layout {
            for &i in &func.block(b).insts {
                block_of[i.index()] = b;
            }
        }
        // Counting sort: `start[v + 1]` counts `v`'s uses, then `start[v]` is where they begin;
        // filling advances `start[v]` to where they end, which is where `v + 1`'s begin, so
        // shifting by one restores the beginnings (no second array).
        let mut start = vec![0u32; func.values.len() + 1];
        for_each_use(&mut |v, _| start[v.index() + 1] += 1);
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut list = vec![Use(0); start[start.len() - 1] as usize];
        for_each_use(&mut |v, u| {
            list[start[v.index()] as usize] = u;
            start[v.index()] += 1;
        });
        for k in (1..start.len()).rev() {
            start[k] = start[k - 1];
        }
        start[0] = 0;
        Uses {
            start,
            list,
            block_of,
        }
    }

    /// The positions in `list` of `v`'s uses.
    fn range(&self, v: ValueId) -> std::ops::Range<usize> {
        self.start[v.index()] as usize..self.start[v.index() + 1] as usize
    }
}

struct Ctx<'f> {
    func: &'f mut Function,
    cells: Cells,
    executable_blocks: FxSet<BlockId>,
    /// Executable edges: (source block, index of the block call in its terminator).
    executable_edges: FxSet<(BlockId, usize)>,
    incoming: crate::fxhash::HashMap<BlockId, Vec<(BlockId, usize)>>,
    flow_worklist: Vec<(BlockId, usize)>,
    /// Values whose cell lowered, to revisit their uses: filled by the worklist algorithm only
    /// (`revisit`), the acyclic sweep has nothing to revisit.
    ssa_worklist: Vec<ValueId>,
    revisit: bool,
}

impl<'f> Ctx<'f> {
    fn new(func: &'f mut Function) -> Self {
        let incoming = super::util::incoming_edges(func);
        Ctx {
            cells: Cells::new(func.values.len()),
            func,
            executable_blocks: FxSet::default(),
            executable_edges: FxSet::default(),
            incoming,
            flow_worklist: Vec::new(),
            ssa_worklist: Vec::new(),
            revisit: false,
        }
    }

    fn cell(&self, v: ValueId) -> Cell {
        match self.func.const_value(v) {
            Some(Const::Field(x)) => Cell::Const(Val::Field(x)),
            Some(Const::UInt(n)) => Cell::Const(Val::UInt(n)),
            None => self.cells.get(v),
        }
    }

    fn set(&mut self, v: ValueId, cell: Cell) {
        let old = self.cells.get(v);
        if old != cell {
            debug_assert!(old.meet(&cell) == cell, "bug: SCCP cell of {v} rose");
            self.cells.put(v, cell);
            if self.revisit {
                self.ssa_worklist.push(v);
            }
        }
    }

    fn run(mut self) -> PassStats {
        let rpo = self.func.reverse_post_order();
        if is_acyclic(self.func, &rpo) {
            self.solve_acyclic(&rpo);
        } else {
            drop(rpo);
            self.solve_worklist();
        }
        self.rewrite()
    }

    /// Step 2 with the worklists and the def-use lists they need (freed on return, before the
    /// rewrite allocates).
    fn solve_worklist(&mut self) {
        let uses = Uses::new(self.func);
        self.revisit = true;
        self.solve(&uses);
    }

    /// Step 2 when the CFG has no cycle, in one sweep over the reachable blocks in reverse
    /// post-order: every predecessor of a block comes before it, so when the sweep reaches a
    /// block, its incoming edges are final, and so are the cells of its parameters' arguments
    /// and of every operand of its instructions (an operand is defined in a block that
    /// dominates the use, hence earlier). Each block is visited once, with final inputs, which
    /// gives the fixpoint of the worklist algorithm (its transfer functions are monotone, so the
    /// order of evaluation does not change the result) without its def-use lists.
    fn solve_acyclic(&mut self, rpo: &[BlockId]) {
        let entry = self.func.entry;
        for k in 0..self.func.block(entry).params.len() {
            let p = self.func.block(entry).params[k];
            self.set(p, Cell::Bottom);
        }
        self.executable_blocks.insert(entry);
        for &b in rpo {
            if !self.executable_blocks.contains(&b) {
                continue;
            }
            self.update_params(b);
            self.visit_insts(b);
            // A `br` whose condition has no value (which a verified function cannot have:
            // the condition's definition was visited) gets step 4's safety net at once, as
            // nothing later in the sweep can give it one.
            let stuck = matches!(&self.func.block(b).term,
                Some(Terminator::Br { cond, .. }) if self.cell(*cond) == Cell::Top);
            if stuck {
                self.mark_edge(b, 0);
                self.mark_edge(b, 1);
            } else {
                self.visit_term(b);
            }
            // The targets' parameters are computed when the sweep reaches them.
            while let Some((src, k)) = self.flow_worklist.pop() {
                let target = self.target(src, k);
                self.executable_blocks.insert(target);
            }
        }
    }

    /// Step 2 on any CFG: the two worklists, until both are empty.
    fn solve(&mut self, uses: &Uses) {
        let entry = self.func.entry;
        for p in self.func.block(entry).params.clone() {
            self.set(p, Cell::Bottom);
        }
        self.executable_blocks.insert(entry);
        self.visit_block(entry);
        loop {
            while !self.flow_worklist.is_empty() || !self.ssa_worklist.is_empty() {
                if let Some((src, k)) = self.flow_worklist.pop() {
                    let target = self.target(src, k);
                    self.update_params(target);
                    if self.executable_blocks.insert(target) {
                        self.visit_block(target);
                    }
                }
                if let Some(v) = self.ssa_worklist.pop() {
                    for k in uses.range(v) {
                        match uses.list[k].user() {
                            User::Inst(i) => {
                                let b = uses.block_of[i.index()];
                                if self.executable_blocks.contains(&b) {
                                    self.visit_inst(i);
                                }
                            }
                            User::Term(b) if self.executable_blocks.contains(&b) => {
                                self.visit_term(b)
                            }
                            User::Term(_) => {}
                        }
                    }
                }
            }
            // Step 4's safety net: a reachable `br` whose condition never got a value.
            let stuck: Vec<BlockId> = self
                .func
                .layout
                .iter()
                .copied()
                .filter(|b| self.executable_blocks.contains(b))
                .filter(|b| match &self.func.block(*b).term {
                    Some(Terminator::Br { cond, .. }) => self.cell(*cond) == Cell::Top,
                    _ => false,
                })
                .collect();
            if stuck.is_empty() {
                return;
            }
            for b in stuck {
                self.mark_edge(b, 0);
                self.mark_edge(b, 1);
            }
        }
    }

    fn target(&self, src: BlockId, k: usize) -> BlockId {
        edge(self.func, src, k).block
    }

    fn mark_edge(&mut self, src: BlockId, k: usize) {
        if self.executable_edges.insert((src, k)) {
            self.flow_worklist.push((src, k));
        } else {
            // Already executable: its arguments may have changed.
            let target = self.target(src, k);
            self.update_params(target);
        }
    }

    fn update_params(&mut self, block: BlockId) {
        let params = self.func.block(block).params.clone();
        if block == self.func.entry {
            return;
        }
        for (idx, p) in params.into_iter().enumerate() {
            let mut cell = Cell::Top;
            for &(src, k) in &self.incoming[&block] {
                if self.executable_edges.contains(&(src, k)) {
                    let arg = edge(self.func, src, k).args[idx];
                    cell = cell.meet(&self.cell(arg));
                }
            }
            self.set(p, cell);
        }
    }

    fn visit_block(&mut self, b: BlockId) {
        self.visit_insts(b);
        self.visit_term(b);
    }

    fn visit_insts(&mut self, b: BlockId) {
        // By position, not over a copy of the list: a merged block has millions of
        // instructions, and visiting one does not change the list.
        for k in 0..self.func.block(b).insts.len() {
            let i = self.func.block(b).insts[k];
            self.visit_inst(i);
        }
    }

    fn visit_term(&mut self, b: BlockId) {
        match self.func.block(b).term.clone() {
            Some(Terminator::Jmp(_)) => self.mark_edge(b, 0),
            Some(Terminator::Br { cond, .. }) => match self.cell(cond) {
                Cell::Top => {}
                Cell::Const(Val::UInt(1)) => self.mark_edge(b, 0),
                Cell::Const(_) => self.mark_edge(b, 1),
                Cell::Bottom => {
                    self.mark_edge(b, 0);
                    self.mark_edge(b, 1);
                }
            },
            Some(Terminator::Return(_)) | None => {}
        }
    }

    fn visit_inst(&mut self, i: InstId) {
        let out = match self.eval_inst(i) {
            Some(out) => out,
            None => return,
        };
        let results = self.func.inst(i).results.clone();
        for r in results {
            let merged = self.cells.get(r).meet(&out);
            self.set(r, merged);
        }
    }

    /// The cell of instruction `i`'s results from its operands' cells, `None` while it must
    /// wait (an operand is still ⊤) or has no result to set. Reads the instruction in place
    /// and the operands' states without copying their cells: most operands are ⊥, and a
    /// visit is the pass's unit of work.
    fn eval_inst(&self, i: InstId) -> Option<Cell> {
        let kind = &self.func.inst(i).kind;
        Some(match kind {
            InstKind::Allocate { .. }
            | InstKind::Load { .. }
            | InstKind::Call { .. }
            | InstKind::Hint { .. } => Cell::Bottom,
            InstKind::Store { .. } | InstKind::Assert { .. } => return None,
            InstKind::Select {
                cond,
                then_value,
                else_value,
            } => match self.cell(*cond) {
                Cell::Top => return None,
                Cell::Const(Val::UInt(1)) => self.cell(*then_value),
                Cell::Const(_) => self.cell(*else_value),
                Cell::Bottom => self.cell(*then_value).meet(&self.cell(*else_value)),
            },
            // A value compared with itself: decided whatever the value (no comparison fails).
            InstKind::Binary { op, lhs, rhs }
                if lhs == rhs && matches!(op, BinOp::Eq | BinOp::Lt | BinOp::Le) =>
            {
                Cell::Const(Val::UInt(u64::from(*op != BinOp::Lt)))
            }
            _ => {
                let (mut any_bottom, mut any_top) = (false, false);
                kind.for_each_operand(|v| {
                    if self.func.const_value(v).is_none() {
                        match self.cells.state(v) {
                            TOP => any_top = true,
                            CONST => {}
                            _ => any_bottom = true,
                        }
                    }
                });
                if any_bottom {
                    Cell::Bottom
                } else if any_top {
                    return None;
                } else {
                    let mut get = |v: ValueId| match self.cell(v) {
                        Cell::Const(x) => Ok(x),
                        _ => Err(FailureKind::InvalidProgram("bug: SCCP operand".into())),
                    };
                    match eval_pure(self.func, kind, &mut get) {
                        Some(Ok(mut vals)) if vals.len() == 1 => Cell::Const(vals.remove(0)),
                        _ => Cell::Bottom,
                    }
                }
            }
        })
    }

    fn rewrite(self) -> PassStats {
        let mut stats = PassStats::default();
        let Ctx {
            func,
            cells,
            executable_blocks,
            ..
        } = self;
        let scalar_const = |func: &mut Function, v: ValueId| -> Option<ValueId> {
            let c = match cells.get(v) {
                Cell::Const(Val::Field(x)) => Const::Field(x),
                Cell::Const(Val::UInt(n)) => Const::UInt(n),
                _ => return None,
            };
            if func.const_value(v).is_some() {
                return None;
            }
            let ty = func.value_type(v).clone();
            Some(func.make_const(ty, c))
        };
        let mut subst: FxMap<ValueId, ValueId> = FxMap::default();
        for b in func.layout.clone() {
            if !executable_blocks.contains(&b) {
                continue;
            }
            for p in func.block(b).params.clone() {
                if let Some(c) = scalar_const(func, p) {
                    subst.insert(p, c);
                }
            }
            // Compacted in place (taken out of the block while `func` gains constants): a
            // merged block's list is tens of megabytes, too much to copy.
            let mut insts = std::mem::take(&mut func.block_mut(b).insts);
            let mut n_kept = 0;
            for k in 0..insts.len() {
                let i = insts[k];
                let results = func.inst(i).results.clone();
                let mut all_const = !results.is_empty();
                for r in results {
                    match scalar_const(func, r) {
                        Some(c) => {
                            subst.insert(r, c);
                        }
                        None => all_const = false,
                    }
                }
                let true_assert = matches!(func.inst(i).kind,
                    InstKind::Assert { cond, .. } if cells_const_true(func, &cells, cond));
                // A `select` on a known condition is a copy of the arm it picks.
                let picked = match func.inst(i).kind {
                    InstKind::Select {
                        cond,
                        then_value,
                        else_value,
                    } if !all_const => match func.const_value(cond).or(match cells.get(cond) {
                        Cell::Const(Val::UInt(n)) => Some(Const::UInt(n)),
                        _ => None,
                    }) {
                        Some(Const::UInt(1)) => Some(then_value),
                        Some(_) => Some(else_value),
                        None => None,
                    },
                    _ => None,
                };
                if let Some(arm) = picked {
                    subst.insert(func.inst(i).results[0], arm);
                    stats.add("selects_folded", 1);
                    continue;
                }
                if all_const || true_assert {
                    stats.add("insts_removed", 1);
                } else {
                    insts[n_kept] = i;
                    n_kept += 1;
                }
            }
            insts.truncate(n_kept);
            func.block_mut(b).insts = insts;
            if let Some(Terminator::Br {
                cond,
                then_dest,
                else_dest,
            }) = func.block(b).term.clone()
            {
                let taken: Option<BlockCall> = match func.const_value(cond).map(|c| match c {
                    Const::UInt(n) => Val::UInt(n),
                    Const::Field(x) => Val::Field(x),
                }) {
                    Some(v) => Some(v),
                    None => match cells.get(cond) {
                        Cell::Const(v) => Some(v),
                        _ => None,
                    },
                }
                .map(|v| {
                    if v == Val::UInt(1) {
                        then_dest
                    } else {
                        else_dest
                    }
                });
                if let Some(call) = taken {
                    func.block_mut(b).term = Some(Terminator::Jmp(call));
                    stats.add("branches_folded", 1);
                }
            }
        }
        stats.add("values_replaced", subst.len());
        let before = func.layout.len();
        func.layout.retain(|b| executable_blocks.contains(b));
        remove_unreachable_blocks(func);
        stats.add("blocks_removed", before - func.layout.len());
        func.replace_uses(&subst);
        stats
    }
}

/// Whether every edge between blocks reachable from the entry goes forward in `rpo` (the
/// reverse post-order of those blocks): then the CFG has no cycle.
fn is_acyclic(func: &Function, rpo: &[BlockId]) -> bool {
    let mut position = vec![usize::MAX; func.blocks.len()];
    for (k, b) in rpo.iter().enumerate() {
        position[b.index()] = k;
    }
    rpo.iter().enumerate().all(|(k, &b)| {
        func.successors(b).iter().all(|s| {
            position
                .get(s.index())
                .is_some_and(|&p| p > k && p != usize::MAX)
        })
    })
}

fn cells_const_true(func: &Function, cells: &Cells, v: ValueId) -> bool {
    match func.const_value(v) {
        Some(c) => c == Const::UInt(1),
        None => cells.get(v) == Cell::Const(Val::UInt(1)),
    }
}
