//! Execution counts across calls (issue 33): a function kept as blocks runs each of its blocks
//! once per call, so with `n_f` calls of `f` per run of the program, a block `b` of `f` that
//! runs `k_b` times per call runs `n_f · k_b` times.
//!
//! Callers come first (a topological order of the call graph from `main`): `main` runs once;
//! a call in block `B` of `g` runs as often as `B` does (`n_g · k_B`), and `n_f` is the sum over
//! `f`'s call sites (a block that calls twice counts twice). Per function, `k_b` is
//! [`super::executions::static_function_executions`]'s count where known; `n_f` is then exact
//! when every site's count is. The estimate
//! ([`super::executions::estimated_function_executions`]) fills the rest, for decisions; both
//! come from one analysis of the function ([`super::executions::function_counts`]).
//! A program with recursion has no such counts (`None`): its callees stay unknown.

use crate::fxhash::HashMap;

use super::executions::function_counts;
use crate::ir::{BlockId, FuncId, InstKind, Program};

/// One function's counts: its calls per run of the program, and its blocks' per call.
pub struct FuncCounts {
    /// Calls per run, estimated (exact where `runs` is known).
    pub runs_estimated: u64,
    /// Calls per run, when every call site's count is known statically.
    pub runs: Option<u64>,
    /// Each laid-out block's executions per call, where known statically.
    pub known: HashMap<BlockId, Option<u64>>,
    /// Each laid-out block's estimated executions per call.
    pub estimated: HashMap<BlockId, u64>,
}

impl FuncCounts {
    /// `b`'s executions per run of the program, when known statically.
    pub fn exact(&self, b: BlockId) -> Option<u64> {
        self.runs?
            .checked_mul(self.known.get(&b).copied().flatten()?)
    }

    /// `b`'s estimated executions per run of the program (the static count where known).
    pub fn estimate(&self, b: BlockId) -> u64 {
        self.exact(b).unwrap_or_else(|| {
            self.runs_estimated
                .saturating_mul(self.estimated.get(&b).copied().unwrap_or(0))
        })
    }
}

/// The counts of every function `main` reaches (see the module doc); `None` for a program
/// with recursion.
pub fn call_counts(program: &Program) -> Option<HashMap<FuncId, FuncCounts>> {
    let order = callers_first(program)?;
    let mut out: HashMap<FuncId, FuncCounts> = HashMap::default();
    let mut runs: HashMap<FuncId, (u64, Option<u64>)> =
        [(program.main, (1, Some(1)))].into_iter().collect();
    for g in order {
        let func = program.func(g);
        let (known, estimated) = function_counts(func);
        let estimated: HashMap<BlockId, u64> = estimated.into_iter().collect();
        let (runs_estimated, exact) = runs.get(&g).copied().unwrap_or((0, Some(0)));
        let counts = FuncCounts {
            runs_estimated,
            runs: exact,
            known,
            estimated,
        };
        for &b in &func.layout {
            for &i in &func.block(b).insts {
                if let InstKind::Call { func: f, .. } = func.inst(i).kind {
                    let entry = runs.entry(f).or_insert((0, Some(0)));
                    entry.0 = entry.0.saturating_add(counts.estimate(b));
                    entry.1 = match (entry.1, counts.exact(b)) {
                        (Some(a), Some(e)) => a.checked_add(e),
                        _ => None,
                    };
                }
            }
        }
        out.insert(g, counts);
    }
    Some(out)
}

/// The functions `main` reaches, each after all its callers (Kahn's algorithm on the call
/// graph); `None` when they call each other in a cycle.
fn callers_first(program: &Program) -> Option<Vec<FuncId>> {
    let reached = program.circuit_funcs();
    let callees = |g: FuncId| {
        let func = program.func(g);
        func.layout
            .iter()
            .flat_map(move |b| func.block(*b).insts.iter())
            .filter_map(move |i| match func.inst(*i).kind {
                InstKind::Call { func: f, .. } => Some(f),
                _ => None,
            })
    };
    let funcs: Vec<FuncId> = program
        .func_ids()
        .filter(|f| reached.get(f.index()).copied().unwrap_or(false))
        .collect();
    let mut callers: HashMap<FuncId, usize> = funcs.iter().map(|&f| (f, 0)).collect();
    for &g in &funcs {
        for f in callees(g) {
            *callers.entry(f).or_insert(0) += 1;
        }
    }
    let mut ready: Vec<FuncId> = funcs
        .iter()
        .copied()
        .filter(|f| callers.get(f) == Some(&0))
        .collect();
    let mut order = Vec::with_capacity(funcs.len());
    while let Some(g) = ready.pop() {
        order.push(g);
        for f in callees(g) {
            if let Some(n) = callers.get_mut(&f) {
                *n -= 1;
                if *n == 0 {
                    ready.push(f);
                }
            }
        }
    }
    (order.len() == funcs.len()).then_some(order)
}
