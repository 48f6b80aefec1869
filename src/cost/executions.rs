//! How often each block runs: counted from a run's trace ([`traced_executions`]), known
//! statically where every run agrees ([`static_executions`]), or estimated where it is not
//! ([`estimated_executions`], for decisions only, never for a report).
//!
//! # Static executions: what is "known"
//!
//! Without inputs, [`static_executions`] gives a block an execution count only when it holds on
//! *every* run that completes, whatever the inputs; everything else is unknown (`null`). For
//! `main`, with `entries(L)` the number of times loop `L` is entered:
//!
//! 1. the entry block runs once;
//! 2. a block in no loop that post-dominates the entry runs once (no loop: at most once;
//!    post-dominating the entry: at least once on a run that returns);
//! 3. in a loop `L` (its innermost loop) with an exact constant trip count `N` — the
//!    `counted-loop` pattern of [`crate::query::patterns`](mod@crate::query::patterns) with
//!    constant init, step and bound, one latch, one entry edge, and exits only from the
//!    header (`trips=N`, not `trips<=N`) — the header runs `entries(L) · (N + 1)` times and a
//!    block that dominates the single latch runs `entries(L) · N` times (each iteration goes
//!    from the header to the latch, and such a block is on every such path exactly once);
//! 4. `entries(L)` is the count of the block `p` of `L`'s only entry edge `p -> header`, when
//!    that count is known and `p` ends in a `jmp` (a `br` may or may not take the edge).
//!
//! Every other block of `main` — a branch arm, a block after an early return, the body of a
//! loop with a runtime bound — is unknown. A function other than `main` that `main` does not
//! reach never runs (0); one that is called runs its blocks once per call, `n_f · k_b`
//! ([`super::calls`]), known when its calls and its block's count per call are. After
//! `opt::calls::flatten` the flat `main` carries these counts for its blocks
//! ([`crate::ir::Function::flat_counts`]).
//! The rules are checked against the interpreter: `tests/report_pipeline.rs` requires every
//! known static count to equal the count of a run, for every corpus program at every level.
//!

use crate::fxhash::HashMap;

use super::calls::FuncCounts;
use super::model::{BlockCost, MemorySizes, ProgramCost};
use crate::analysis::{Cfg, DomTree, LoopForest};
use crate::ir::interp::Outcome;
use crate::ir::{BlockId, FuncId, Function, InstKind, Program, Terminator};
use crate::query::counted::counted_loops;
use crate::query::patterns::Trips;
use crate::r1cs::BlockStats;

/// Execution counts per block: `Some(n)` known, `None` unknown. A block absent from the map
/// ran 0 times (a traced run) — [`program_cost`] reads it so.
pub type Executions = HashMap<(FuncId, BlockId), Option<u64>>;

/// How often each block appears in a run's trace.
pub fn traced_executions(outcome: &Outcome) -> Executions {
    let mut out: Executions = HashMap::default();
    for entry in &outcome.trace {
        let n = out.entry((entry.func, entry.block)).or_insert(Some(0));
        *n = n.map(|n| n + 1);
    }
    out
}

/// A block's label in a report: `b3` in `main`, `NAME/b3` in function NAME.
pub fn block_label(program: &Program, func: FuncId, block: BlockId) -> String {
    if func == program.main {
        block.to_string()
    } else {
        format!("{}/{block}", program.func(func).name)
    }
}

/// Addresses of the program's read-write memory: each function's, once.
pub fn memory_size(stats: &[BlockStats]) -> u64 {
    memory_sizes(stats).0.read_write
}

/// The program's memory sizes, each function's once: the read-write addresses and the
/// read-only list's public entries, and the read-only addresses.
pub fn memory_sizes(stats: &[BlockStats]) -> (MemorySizes, u64) {
    let mut per_func: crate::fxhash::HashMap<FuncId, (u64, u64, u64)> =
        crate::fxhash::HashMap::default();
    for s in stats {
        per_func.insert(s.func, (s.memory_size, s.ro_inits, s.ro_memory_size));
    }
    let mut out = (MemorySizes::default(), 0);
    for (rw, inits, ro) in per_func.into_values() {
        out.0.read_write += rw;
        out.0.read_only_inits += inits;
        out.1 += ro;
    }
    out
}

/// The [`ProgramCost`] of lowered blocks (`stats`, in their order) and their executions (a
/// block absent from `executions` ran 0 times). Outputs, satisfaction and the monolithic count
/// are left empty for the caller; the field comparison is `complete` unless the caller says.
pub fn program_cost(
    program_name: &str,
    opt_level: &str,
    min_block_size: u64,
    program: &Program,
    stats: &[BlockStats],
    executions: &Executions,
) -> ProgramCost {
    let blocks = stats
        .iter()
        .map(|s| BlockCost {
            label: block_label(program, s.func, s.block),
            source: program.block_source(s.func, s.block),
            constraints: s.constraints as u64,
            witness_vars: s.witness_vars as u64,
            io_vars: s.state_vars as u64,
            accesses: s.accesses as u64,
            read_only_accesses: s.ro_accesses as u64,
            executions: executions
                .get(&(s.func, s.block))
                .copied()
                .unwrap_or(Some(0)),
        })
        .collect();
    ProgramCost {
        program: program_name.to_string(),
        opt_level: opt_level.to_string(),
        field_cmp: "complete".into(),
        min_block_size,
        memory_size: memory_sizes(stats).0.read_write + memory_sizes(stats).1,
        read_only_memory_size: memory_sizes(stats).1,
        read_only_inits: memory_sizes(stats).0.read_only_inits,
        blocks,
        outputs: None,
        satisfied: None,
        monolithic_constraints: None,
        monolithic_none: None,
        baselines: None,
    }
}

/// Execution counts that hold on every completed run, whatever the inputs (see the module doc
/// for the rules); `None` where not known. Every laid-out block of every function is present.
pub fn static_executions(program: &Program) -> Executions {
    if program.funcs.len() == 1 {
        return static_executions_with(program, None);
    }
    static_executions_with(program, Some(&super::calls::call_counts(program)))
}

/// [`static_executions`] with `main`'s counts or, for a program that calls, the call counts
/// (`None` inside for recursion) computed already.
fn static_executions_with(
    program: &Program,
    counts: Option<&Option<HashMap<FuncId, FuncCounts>>>,
) -> Executions {
    let mut out = Executions::default();
    match counts {
        None => {
            // No calls (one block, a monolithic program, is run once by
            // `static_function_executions` without indexing every instruction of it to find
            // loops it cannot have).
            let main = program.main_func();
            for (b, n) in static_function_executions(main) {
                out.insert((program.main, b), n);
            }
        }
        Some(counts) => {
            // A function kept as blocks runs its blocks once per call (`super::calls`).
            for fid in program.func_ids() {
                let func = program.func(fid);
                let of = counts.as_ref().and_then(|c| c.get(&fid));
                for &b in &func.layout {
                    let n = match (of, &counts) {
                        (Some(c), _) => c.exact(b),
                        // Not reached from `main`: it never runs.
                        (None, Some(_)) => Some(0),
                        // A call cycle: only what no call names is known (never run).
                        (None, None) => (!called(program, fid)).then_some(0),
                    };
                    out.insert((fid, b), n);
                }
            }
            if counts.is_none() {
                for (b, n) in static_function_executions(program.main_func()) {
                    out.insert((program.main, b), n);
                }
            }
        }
    }
    if let Some(n) = program.main_func().flat_counts.as_ref() {
        // Calls flattened into `main` (`opt::calls::flatten`): the counts it carried over.
        for (&b, &c) in n {
            if out.contains_key(&(program.main, b)) {
                out.insert((program.main, b), c);
            }
        }
    }
    out
}

/// Whether any function names `fid` in a `call`.
fn called(program: &Program, fid: FuncId) -> bool {
    program.funcs.iter().any(|f| {
        f.layout.iter().any(|b| {
            f.block(*b)
                .insts
                .iter()
                .any(|i| matches!(f.inst(*i).kind, InstKind::Call { func, .. } if func == fid))
        })
    })
}

/// The rules of the module doc on one function.
struct StaticCounter<'f> {
    func: &'f Function,
    cfg: Cfg,
    dom: DomTree,
    pdom: DomTree,
    loops: LoopForest,
    /// Exact trip count of each loop header, where known.
    trips: HashMap<BlockId, Trips>,
    memo: HashMap<BlockId, Option<u64>>,
}

impl<'f> StaticCounter<'f> {
    fn new(func: &'f Function) -> StaticCounter<'f> {
        let cfg = Cfg::new(func);
        let dom = DomTree::dominators(func);
        let pdom = DomTree::post_dominators(func);
        let loops = LoopForest::compute(&cfg, &dom);
        let mut trips = counted_loops(func, &cfg, &loops);
        trips.retain(|_, t| t.exact);
        StaticCounter {
            func,
            cfg,
            dom,
            pdom,
            loops,
            trips,
            memo: HashMap::default(),
        }
    }

    fn counts(&mut self) -> Vec<(BlockId, Option<u64>)> {
        let func = self.func;
        func.layout.iter().map(|&b| (b, self.count(b))).collect()
    }

    /// The estimate of [`estimated_function_executions`], `known` winning over it.
    fn estimate(&self, known: impl Fn(BlockId) -> Option<u64>) -> Vec<(BlockId, u64)> {
        let func = self.func;
        let loops = &self.loops;
        let cfg = &self.cfg;
        let trips = |l: crate::analysis::LoopId| {
            self.trips
                .get(&loops.get(l).header)
                .map_or(ESTIMATED_TRIPS, |t| t.n) as f64
        };
        let mut freq: HashMap<BlockId, f64> = HashMap::default();
        for &b in cfg.reverse_post_order() {
            let header_of = loops.loop_of_header(b);
            let mut f = if b == func.entry { 1.0 } else { 0.0 };
            for &p in cfg.predecessors(b) {
                let back = header_of.is_some_and(|l| loops.get(l).blocks.contains(&p));
                if back {
                    continue;
                }
                f += freq.get(&p).copied().unwrap_or(0.0) * edge_share(func, loops, p, b, &trips);
            }
            if let Some(l) = header_of {
                f *= trips(l) + 1.0;
            }
            freq.insert(b, f);
        }
        func.layout
            .iter()
            .map(|&b| {
                let n = match known(b) {
                    Some(n) => n,
                    None => match freq.get(&b) {
                        Some(f) => (f.round() as u64).max(1),
                        None => 0,
                    },
                };
                (b, n)
            })
            .collect()
    }

    fn count(&mut self, b: BlockId) -> Option<u64> {
        if let Some(n) = self.memo.get(&b) {
            return *n;
        }
        // A cycle through `entries` cannot arise (a loop's preheader is outside it, so the
        // recursion climbs out of loops), but mark the block first so it would end as unknown.
        self.memo.insert(b, None);
        let n = self.compute(b);
        self.memo.insert(b, n);
        n
    }

    fn compute(&mut self, b: BlockId) -> Option<u64> {
        let entry = self.func.entry;
        if b == entry {
            return Some(1);
        }
        let cfg: &Cfg = &self.cfg;
        if !cfg.contains(b) {
            return Some(0);
        }
        let (dom, pdom): (&DomTree, &DomTree) = (&self.dom, &self.pdom);
        let loops: &LoopForest = &self.loops;
        let Some(lid) = loops.innermost(b) else {
            return pdom.dominates(b, entry).then_some(1);
        };
        let lp = loops.get(lid).clone();
        let trips = *self.trips.get(&lp.header)?;
        // A loop that tests at its end is one block, run once per trip; otherwise the header
        // runs once more than the body, its last test leaving.
        let per_entry = if b == lp.header && !trips.at_end {
            trips.n.checked_add(1)?
        } else if b == lp.header || (lp.latches.len() == 1 && dom.dominates(b, lp.latches[0])) {
            trips.n
        } else {
            return None;
        };
        let outside: Vec<BlockId> = cfg
            .predecessors(lp.header)
            .iter()
            .copied()
            .filter(|p| !lp.blocks.contains(p))
            .collect();
        let [pre] = outside[..] else {
            return None;
        };
        if !matches!(self.func.block(pre).term, Some(Terminator::Jmp(_))) {
            return None;
        }
        self.count(pre)?.checked_mul(per_entry)
    }
}

/// Trips assumed for a loop whose trip count is not known statically, when estimating.
pub const ESTIMATED_TRIPS: u64 = 16;

/// Execution counts for decisions when no run is available: the static count where one is
/// known ([`static_executions`]), else an estimate from the CFG — the entry runs once, a
/// loop's header runs `(trips + 1)` times per entry (its exact trip count when the
/// `counted-loop` pattern knows it, [`ESTIMATED_TRIPS`] otherwise), a loop's exit test leaves
/// once per entry, and any other `br` sends half its block's executions each way. Every
/// reachable block runs at least once. A function kept as blocks runs its blocks once per
/// call ([`super::calls`]).
pub fn estimated_executions(program: &Program) -> super::predict::BlockCounts {
    let counts = super::calls::call_counts(program);
    let known = static_executions_with(program, Some(&counts));
    let mut out = super::predict::BlockCounts::default();
    for fid in program.func_ids() {
        let func = program.func(fid);
        let of = counts.as_ref().and_then(|c| c.get(&fid));
        if fid != program.main {
            // A callee kept as blocks: its calls times its blocks' per call.
            for &b in &func.layout {
                out.insert((fid, b), of.map_or(0, |c| c.estimate(b)));
            }
            continue;
        }
        match of {
            // `main` runs once: its estimate per call is its estimate, made with what is
            // known of it, unless flattened calls carried counts over (`flat_counts`).
            Some(c) if func.flat_counts.is_none() => {
                for &b in &func.layout {
                    out.insert((fid, b), c.estimated.get(&b).copied().unwrap_or(0));
                }
            }
            _ => {
                for (b, n) in
                    estimated_function_executions(func, |b| known.get(&(fid, b)).copied().flatten())
                {
                    out.insert((fid, b), n);
                }
            }
        }
    }
    out
}

/// [`estimated_executions`]'s estimate for one function run once (its entry runs once),
/// `known(b)` the counts known statically (which win over the estimate); every laid-out block
/// is present.
pub fn estimated_function_executions(
    func: &Function,
    known: impl Fn(BlockId) -> Option<u64>,
) -> Vec<(BlockId, u64)> {
    StaticCounter::new(func).estimate(known)
}

/// The executions of each block of a function per run of it, where known statically.
pub type KnownCounts = HashMap<BlockId, Option<u64>>;

/// A function's counts for one run of it: those known statically
/// ([`static_function_executions`]) and the estimate made with them
/// ([`estimated_function_executions`]), from one analysis of the function.
pub fn function_counts(func: &Function) -> (KnownCounts, Vec<(BlockId, u64)>) {
    if func.layout.len() == 1 {
        return (
            [(func.entry, Some(1))].into_iter().collect(),
            vec![(func.entry, 1)],
        );
    }
    let mut counter = StaticCounter::new(func);
    let known: KnownCounts = counter.counts().into_iter().collect();
    let estimated = counter.estimate(|b| known.get(&b).copied().flatten());
    (known, estimated)
}

/// The iterations of the loop headed by `header` in `func` per entry, when every entry
/// iterates that many times: a counted loop with constant bounds that leaves only from its
/// header (the `counted-loop` pattern's exact trips, as [`static_executions`] counts them).
pub fn exact_trips(func: &Function, header: BlockId) -> Option<u64> {
    let cfg = Cfg::new(func);
    let dom = DomTree::dominators(func);
    let loops = LoopForest::compute(&cfg, &dom);
    counted_loops(func, &cfg, &loops)
        .get(&header)
        .filter(|t| t.exact)
        .map(|t| t.n)
}

/// The counts [`static_executions`] knows for a function run once (`None` where unknown).
pub fn static_function_executions(func: &Function) -> KnownCounts {
    if func.layout.len() == 1 {
        return [(func.entry, Some(1))].into_iter().collect();
    }
    StaticCounter::new(func).counts().into_iter().collect()
}

/// The share of `p`'s executions that take the edge `p -> b` (see [`estimated_executions`]).
fn edge_share(
    func: &Function,
    loops: &LoopForest,
    p: BlockId,
    b: BlockId,
    trips: &dyn Fn(crate::analysis::LoopId) -> f64,
) -> f64 {
    let Some(Terminator::Br {
        then_dest,
        else_dest,
        ..
    }) = &func.block(p).term
    else {
        return 1.0;
    };
    if then_dest.block == else_dest.block {
        return 1.0;
    }
    // A loop's test: stay `trips` times per `trips + 1` executions.
    if let Some(l) = loops.loop_of_header(p) {
        let inside = |x: BlockId| loops.get(l).blocks.contains(&x);
        if inside(then_dest.block) != inside(else_dest.block) {
            let t = trips(l);
            return if inside(b) {
                t / (t + 1.0)
            } else {
                1.0 / (t + 1.0)
            };
        }
    }
    0.5
}
