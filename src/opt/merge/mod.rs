//! Block merging (`../shared/seeds/merge-basic-blocks.md`, in the design notes folder beside the
//! repository; the design's "Passes / merge"): every merge component smaller than the threshold
//! becomes one block, so the prover pays for fewer, fuller instances and fewer transition
//! states.
//!
//! # Algorithm
//!
//! 1. **Sizes.** Lower every block to R1CS ([`crate::r1cs::stats`], rayon-parallel) and fix
//!    `THRESHOLD = max(MIN_BLOCK_SIZE, next_pow2(max_b cons_b))` once, from the blocks as they
//!    are before merging.
//! 2. **Components.** [`MergeComponents`] gives each head its tail (head dominates, tail
//!    post-dominates, same loop, no call, no early return). The size of a component is the
//!    seed's `count` recurrence ([`component_size`]): constraints of its blocks, each block
//!    weighted by the constant trip counts of the loops inside the component that contain it.
//!    A loop without a constant trip count makes the component unmergeable.
//! 3. **Choose.** Take the components smaller than the threshold, largest first, skipping any
//!    that shares a block with one already taken (an outer component includes its inner ones).
//! 4. **Merge** each chosen component into its head by *predicated execution* of its blocks in
//!    reverse post-order. Every block gets a guard (a `u1`: "control reaches this block") and
//!    its parameters from the edges into it:
//!    - the head's guard is `1`; a `jmp` passes its block's guard on; `br c` passes
//!      `g and c` and `g and not c`; constant conditions (after folding) pass `g` to one side;
//!    - a block's incoming edges are combined: two edges `p and c` / `p and not c` become one
//!      edge `p` whose arguments are `select c, then_arg, else_arg` (the join of an `if`); what
//!      is left is `or` of the guards with a `select` chain on the edge guards;
//!    - instructions are copied (constant-folded with the interpreter's own semantics), and
//!      everything that can fail is guarded so that it fails exactly when the original path
//!      would: `assert c` becomes `assert (not g) or c`, a divisor `b` becomes `select g, b, 1`,
//!      a checked cast's operand `x` becomes `select g, x, 0`, a dynamic index `i` becomes
//!      `select g, i, 0` (0 is in bounds of a non-empty array; an empty one is not merged);
//!      a `load` or `store` on a predicated path is not merged (memory is left by `-O0`
//!      only, and R1CS lowering has none);
//!    - a loop inside the component is **unrolled**: its header is entered with the combined
//!      entry edge, its blocks are copied once per iteration, the back edges give the next
//!      iteration's guard and parameters, and unrolling stops when no back edge is taken. A
//!      header branch whose condition does not fold to a constant is a runtime bound: the
//!      component is not merged ([`MergeError::RuntimeLoopBound`] under `--monolithic`);
//!    - the tail runs under the head's guard (it post-dominates the component), and the head
//!      takes the tail's terminator. Values of the component used after it are renamed.
//!
//!    The merged head is lowered again; if it came out at or above the threshold (the estimate
//!    was low), the merge is undone and that head is not tried again.
//! 5. Repeat from 2 until nothing merges. `--monolithic` ([`MergeOptions::monolithic`]) skips
//!    the threshold and merges the whole function, from the entry to its `return`s, into one
//!    block ([`merge_function`]; loops nested in loops are merged first, innermost first, so
//!    the whole merge copies their folded bodies instead of unrolling them again in every
//!    outer iteration).
//!
//! # Example
//!
//! ```text
//! b0(v0: u32, v1: field):                 b0(v0: u32, v1: field):
//!     v2 = lt v0, u32 10                      v2 = lt v0, u32 10
//!     br v2, b1(), b2(field 0)                v3 = not v2          ; else-edge guard (dce)
//! b1():                           ==>         v4 = select v2, v1, field 1
//!     v3 = div field 1, v1                    v5 = div field 1, v4
//!     jmp b2(v3)                              v6 = select v2, v5, field 0
//! b2(v4: field):                              v7 = add v6, field 1
//!     v5 = add v4, field 1                    return v7
//!     return v5
//! ```
//!
//! The division in `b1` fails on `v1 = 0` only when `v0 < 10`, before and after; the join's
//! parameter is one `select` (`tests/merge_pass.rs` keeps this example). A counted loop
//! `for i in 0..3` becomes three copies of its body with `i` folded to 0, 1 and 2.

mod emit;
mod formation;
mod latches;
mod rotate;

pub use formation::{Decision, Subject, Verdict};
pub use latches::add_latches;
pub use rotate::rotate_loop;

use crate::fxhash::{HashMap, HashSet};

use super::PassStats;
use crate::analysis::components::component_size;
use crate::analysis::{Component, LoopForest, MergeComponents};
use crate::ir::{BlockId, FuncId, Function, Program, SrcLoc, Terminator, ValueId};
use emit::{Edge, Emitter};
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// MIN_BLOCK_SIZE by default (CoBBl's code uses 32768).
pub const DEFAULT_MIN_BLOCK_SIZE: u64 = 1024;

/// The most instructions (plus copied blocks) merging may emit for one component or one
/// monolithic function, so that a huge loop cannot exhaust memory.
pub const DEFAULT_MAX_UNROLLED: usize = 1_000_000;

/// Cost-driven formation's work budget by default ([`MergeOptions::budget`]), in instructions
/// of the candidate programs it scores: about 70 times the most any corpus, application or
/// reproducer program spent when it was set (14,036 units, `circuits/apps/sha256_merkle16`,
/// 0.27 s of search; `docs/compile-time.md`), so that it cuts only a search that would
/// otherwise run for tens of seconds.
pub const DEFAULT_FORMATION_BUDGET: u64 = 1_000_000;

/// Most rounds of "find components, merge" per function.
const MAX_ROUNDS: usize = 64;

/// How merging decides (`--merge-policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MergePolicy {
    /// By the cost model: merge what lowers the predicted sumcheck cells, and keep the best
    /// of that, no merging, one block and the threshold rule (`formation`).
    #[default]
    Cost,
    /// The seed's rule (CoBBl's): every component below THRESHOLD, largest first.
    Threshold,
}

impl std::str::FromStr for MergePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cost" => Ok(MergePolicy::Cost),
            "threshold" => Ok(MergePolicy::Threshold),
            _ => Err(format!(
                "unknown merge policy `{s}` (expected `cost` or `threshold`)"
            )),
        }
    }
}

/// How to merge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeOptions {
    /// MIN_BLOCK_SIZE of the threshold.
    pub min_block_size: u64,
    /// Merge each function into one block, with no threshold.
    pub monolithic: bool,
    /// The most instructions one merge may emit ([`DEFAULT_MAX_UNROLLED`]).
    pub max_unrolled: usize,
    /// How to decide what to merge.
    pub policy: MergePolicy,
    /// Cost-driven formation's work budget ([`DEFAULT_FORMATION_BUDGET`]): the instructions
    /// of the candidate programs it may score (each is cleaned up and lowered whole, so this
    /// is what its time grows with). Once spent, the search stops with the best formation so
    /// far; the budget counts work, not seconds, so the result never depends on the machine.
    pub budget: u64,
    /// Where the cost policy's execution counts come from: a profile run on the inputs, or
    /// static counts and estimates.
    pub counts: crate::cost::Counts,
    /// The block sizes the cost policy's scoring lowered, shared with the caller (a report
    /// lowers the chosen program and its baselines through it); `None`: formation's own.
    pub stats_cache: Option<crate::r1cs::SharedStatsCache>,
    /// Functions merged into one block, shared by the compiles that start from the same
    /// program before `merge` ([`OneBlockCache`]); `None`: none shared.
    pub one_block: Option<OneBlockCache>,
    /// The executed constraints a cut of formation's may raise the program's to (`-O0`'s on
    /// the profile's inputs, computed only when a cut is on the table: [`ExecutedBound`]);
    /// `None`: a cut may not raise them at all.
    pub executed_bound: Option<ExecutedBound>,
    /// How blocks are lowered to be sized (a shared `stats_cache` lowers with its own, the
    /// same: the driver makes it with these).
    pub lower: crate::r1cs::LowerOptions,
}

/// How many executed constraints the program may have after formation's cuts
/// (`formation::split`): the driver gives `-O0`'s on the same inputs (`driver::bound`),
/// computed only once a cut is on the table, and at most once.
#[derive(Clone)]
pub struct ExecutedBound(pub Rc<dyn BoundSource>);

/// Where an [`ExecutedBound`] comes from.
pub trait BoundSource {
    /// A cut is on the table: the bound may be asked about soon, first about a little more than
    /// `hint` executed constraints (the source may start computing beside formation's probes).
    fn begin(&self, hint: u128);
    /// Whether the bound is at least `executed`: `Ok(())`, else the bound when it is known
    /// (`Err(None)`: unknown, so no cut may raise the executed constraints to `executed`).
    /// The same answer for the same `executed` whatever was asked before.
    fn allows(&self, executed: u128) -> Result<(), Option<u128>>;
}

impl ExecutedBound {
    /// See [`BoundSource::begin`].
    pub fn begin(&self, hint: u128) {
        self.0.begin(hint);
    }

    /// See [`BoundSource::allows`].
    pub fn allows(&self, executed: u128) -> Result<(), Option<u128>> {
        self.0.allows(executed)
    }
}

impl std::fmt::Debug for ExecutedBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ExecutedBound")
    }
}

impl PartialEq for ExecutedBound {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ExecutedBound {}

/// Each function of one program merged into one block ([`merge_function`]), by function and
/// `--max-unrolled`: cost-driven formation merges every function to score the program as one
/// block, and a report's `--monolithic` compile of the same program (the one-block circuit and
/// baseline) takes those merges instead of making them again. The compiles that share a cache
/// must start `merge` from the same program: a report's compiles share one through the
/// program they share before `merge` (`driver::PrefixCache`). A cached merge is taken out
/// when used, so the function is not held longer than it has to be.
///
/// When every function is part of the circuit, the cache holds instead the whole program merged
/// and cleaned up (the passes `-O3` runs after `merge`): the `--monolithic` compile then takes
/// it as it is and skips those passes ([`CLEANED_UP`]).
#[derive(Clone, Default)]
pub struct OneBlockCache(Rc<RefCell<OneBlockMerges>>);

/// The merges of an [`OneBlockCache`].
#[derive(Default)]
struct OneBlockMerges {
    functions: HashMap<(FuncId, usize), Result<(Function, bool), MergeError>>,
    /// The whole program merged and cleaned up, by `--max-unrolled`.
    cleaned: Option<(usize, Program)>,
}

/// The counter of a `merge` run whose program is already cleaned up: the passes `-O3` runs
/// after `merge` ([`super::CLEANUP`]) have run on it, and [`super::optimize_after`] does not
/// run them again.
pub const CLEANED_UP: &str = "cleaned_up";

impl fmt::Debug for OneBlockCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OneBlockCache")
            .field("functions", &self.0.borrow().functions.len())
            .field("cleaned", &self.0.borrow().cleaned.is_some())
            .finish()
    }
}

/// A cache never changes a result, only how often a function is merged: options holding one
/// compare as the options they are.
impl PartialEq for OneBlockCache {
    fn eq(&self, _: &OneBlockCache) -> bool {
        true
    }
}

impl Eq for OneBlockCache {}

impl OneBlockCache {
    /// Remembers function `f` merged into one block (`merged`, and whether it changed) with
    /// `max_unrolled`, or why it could not be.
    pub(super) fn remember(
        &self,
        f: FuncId,
        max_unrolled: usize,
        merged: Result<(Function, bool), MergeError>,
    ) {
        self.0
            .borrow_mut()
            .functions
            .insert((f, max_unrolled), merged);
    }

    /// Remembers the whole program merged into one block per function with `max_unrolled`
    /// and cleaned up.
    pub(super) fn remember_cleaned(&self, max_unrolled: usize, program: Program) {
        self.0.borrow_mut().cleaned = Some((max_unrolled, program));
    }

    /// The whole program merged with `max_unrolled` and cleaned up, taken out of the cache.
    fn take_cleaned(&self, max_unrolled: usize) -> Option<Program> {
        let mut merges = self.0.borrow_mut();
        match merges.cleaned.take() {
            Some((m, program)) if m == max_unrolled => Some(program),
            other => {
                merges.cleaned = other;
                None
            }
        }
    }

    /// [`merge_function`] of `func` (function `f`), taken from the cache when it holds it.
    fn merge(
        &self,
        f: FuncId,
        func: &mut Function,
        max_unrolled: usize,
    ) -> Result<bool, MergeError> {
        match self.0.borrow_mut().functions.remove(&(f, max_unrolled)) {
            Some(Ok((merged, changed))) => {
                *func = merged;
                Ok(changed)
            }
            Some(Err(e)) => Err(e),
            None => merge_function(func, max_unrolled),
        }
    }
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            min_block_size: DEFAULT_MIN_BLOCK_SIZE,
            monolithic: false,
            max_unrolled: DEFAULT_MAX_UNROLLED,
            policy: MergePolicy::Cost,
            budget: DEFAULT_FORMATION_BUDGET,
            counts: crate::cost::Counts::Static,
            stats_cache: None,
            one_block: None,
            executed_bound: None,
            lower: crate::r1cs::LowerOptions::default(),
        }
    }
}

/// Why code could not be merged. With a threshold these only mean "leave this component
/// alone"; under `--monolithic` they are the user's error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// A loop's header tests a condition that is not a compile-time constant.
    RuntimeLoopBound {
        /// The function.
        func: String,
        /// The loop's header block.
        header: BlockId,
        /// A source location of an instruction in the loop, if the IR carries one.
        loc: Option<SrcLoc>,
    },
    /// Unrolling would emit more than `limit` instructions (or, with `visits`, visit more than
    /// `emit::VISITS_PER_EMITTED` times that, folding most of them).
    TooLarge {
        /// The function.
        func: String,
        /// The limit.
        limit: usize,
        /// The visits, not the emitted instructions, went over.
        visits: bool,
    },
    /// Something merging does not handle (a call, an irreducible loop, an empty array indexed
    /// under a guard).
    Unsupported {
        /// The function.
        func: String,
        /// What.
        reason: String,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::RuntimeLoopBound { func, header, loc } => {
                write!(
                    f,
                    "cannot merge `{func}` into one block: the loop at {header}"
                )?;
                if let Some(loc) = loc {
                    write!(f, " (source line {loc})")?;
                }
                write!(
                    f,
                    " has a bound that is not a compile-time constant, so it cannot be unrolled \
                     (compile without --monolithic to prove it block by block)"
                )
            }
            MergeError::TooLarge { func, .. } => write!(
                f,
                "cannot merge `{func}` into one block: unrolling its loops would {}",
                self.too_large()
            ),
            MergeError::Unsupported { func, reason } => {
                write!(f, "cannot merge `{func}` into one block: {reason}")
            }
        }
    }
}

impl MergeError {
    /// Why one component or loop cannot be merged, without the `--monolithic` framing of
    /// [`fmt::Display`] (for the decisions of cost-driven formation).
    pub fn reason(&self) -> String {
        match self {
            MergeError::RuntimeLoopBound { header, loc, .. } => match loc {
                Some(loc) => format!(
                    "the loop at {header} (source line {loc}) has a run-time bound: it cannot be unrolled"
                ),
                None => format!("the loop at {header} has a run-time bound: it cannot be unrolled"),
            },
            MergeError::TooLarge { visits, .. } => format!(
                "it would {}{}",
                self.too_large(),
                if *visits { "" } else { " (--max-unrolled)" }
            ),
            MergeError::Unsupported { reason, .. } => reason.clone(),
        }
    }
}

impl MergeError {
    /// What is too large, after "unrolling would" (empty for other errors), and the flag
    /// that sets it.
    pub fn too_large(&self) -> String {
        match self {
            MergeError::TooLarge {
                limit,
                visits: false,
                ..
            } => format!("emit more than {limit} instructions"),
            MergeError::TooLarge {
                limit,
                visits: true,
                ..
            } => format!(
                "visit more than {} instructions ({} times --max-unrolled {limit}; most of them fold away)",
                limit.saturating_mul(emit::VISITS_PER_EMITTED),
                emit::VISITS_PER_EMITTED
            ),
            _ => String::new(),
        }
    }
}

impl std::error::Error for MergeError {}

/// The `merge` pass with default options (cost-driven, static execution counts).
pub fn run(program: &mut Program) -> PassStats {
    run_with(program, &MergeOptions::default())
        .expect("bug: merging by cost or threshold reports no error")
}

/// Merges with `options`: by the cost model or the threshold rule, or (`monolithic`) every
/// function into one block. Only `monolithic` returns errors.
pub fn run_with(program: &mut Program, options: &MergeOptions) -> Result<PassStats, MergeError> {
    if options.monolithic {
        let mut stats = PassStats::default();
        // Only the circuit is one block: a function that runs only as a `hint` is computed by
        // the interpreter, and may loop as long as it likes.
        let circuit = program.circuit_funcs();
        let cleaned = options
            .one_block
            .as_ref()
            .and_then(|cache| cache.take_cleaned(options.max_unrolled));
        if let Some(cleaned) = cleaned {
            let blocks = |p: &Program| p.funcs.iter().map(|f| f.layout.len()).sum::<usize>();
            stats.add(
                "blocks_merged",
                blocks(program).saturating_sub(blocks(&cleaned)),
            );
            stats.add("functions_merged", program.funcs.len());
            stats.add(CLEANED_UP, 1);
            *program = cleaned;
            return Ok(stats);
        }
        for f in program.func_ids().collect::<Vec<_>>() {
            if !circuit[f.index()] {
                continue;
            }
            let func = program.func_mut(f);
            let before = func.layout.len();
            let merged = match &options.one_block {
                Some(cache) => cache.merge(f, func, options.max_unrolled)?,
                None => merge_function(func, options.max_unrolled)?,
            };
            if merged {
                stats.add("blocks_merged", before - func.layout.len());
                stats.add("functions_merged", 1);
            }
        }
        return Ok(stats);
    }
    Ok(match options.policy {
        MergePolicy::Cost => formation::form_blocks(program, options),
        MergePolicy::Threshold => merge_below_threshold(program, options),
    })
}

/// The threshold for `program`: `max(min_block_size, next_pow2(max constraints))`, or `None`
/// when some block cannot be lowered (calls or memory left).
pub fn threshold(program: &Program, min_block_size: u64) -> Option<u64> {
    threshold_with(program, min_block_size, None, Default::default())
}

/// [`threshold`], lowering through `cache` when given.
fn threshold_with(
    program: &Program,
    min_block_size: u64,
    cache: Option<&crate::r1cs::StatsCache>,
    lower: crate::r1cs::LowerOptions,
) -> Option<u64> {
    let stats = stats_with(program, cache, lower).ok()?;
    let max = stats
        .iter()
        .map(|s| s.constraints as u64)
        .max()
        .unwrap_or(0);
    Some(min_block_size.max(max.checked_next_power_of_two()?))
}

/// Every block's size, through `cache` when given (the blocks a round did not touch are not
/// lowered again).
fn stats_with(
    program: &Program,
    cache: Option<&crate::r1cs::StatsCache>,
    lower: crate::r1cs::LowerOptions,
) -> Result<Vec<crate::r1cs::BlockStats>, crate::r1cs::LowerError> {
    match cache {
        Some(cache) => cache.stats(program),
        None => crate::r1cs::stats_opts(program, lower),
    }
}

/// The constraints of blocks of one function, through `cache` when given; `None` for a block
/// that cannot be lowered.
fn block_constraints(
    program: &Program,
    f: FuncId,
    blocks: &[BlockId],
    cache: Option<&crate::r1cs::StatsCache>,
    lower: crate::r1cs::LowerOptions,
) -> Vec<Option<u64>> {
    let fresh;
    let cache = match cache {
        Some(cache) => cache,
        None => {
            fresh = crate::r1cs::StatsCache::new().lowering(lower);
            &fresh
        }
    };
    cache
        .blocks(program, f, blocks)
        .into_iter()
        .map(|s| s.ok().map(|s| s.constraints as u64))
        .collect()
}

fn merge_below_threshold(program: &mut Program, options: &MergeOptions) -> PassStats {
    let mut stats = PassStats::default();
    let cache = options.stats_cache.as_ref().map(|c| &*c.0);
    let Some(threshold) = threshold_with(program, options.min_block_size, cache, options.lower)
    else {
        return stats;
    };
    // Below the threshold a component emits few instructions (many are free in R1CS, so allow
    // some slack); a failed attempt costs at most this.
    let budget = options
        .max_unrolled
        .min(usize::try_from(threshold.saturating_mul(16)).unwrap_or(usize::MAX));
    for f in program.func_ids().collect::<Vec<_>>() {
        let mut skip: HashSet<BlockId> = HashSet::default();
        // The sizes of every block of the program as it is now, when the check that ended the
        // last round computed them (a round then starts without lowering anything again).
        let mut current: Option<Vec<crate::r1cs::BlockStats>> = None;
        for _ in 0..MAX_ROUNDS {
            let Some(block_stats) = current
                .take()
                .or_else(|| stats_with(program, cache, options.lower).ok())
            else {
                return stats;
            };
            let cons: HashMap<BlockId, u64> = block_stats
                .iter()
                .filter(|s| s.func == f)
                .map(|s| (s.block, s.constraints as u64))
                .collect();
            let func = program.func(f);
            let loops = LoopForest::new(func);
            if !loops.is_reducible() {
                break;
            }
            let comps = MergeComponents::new(func);
            let mut eligible: Vec<(u64, Component)> = func
                .layout
                .iter()
                .filter(|h| !skip.contains(h))
                .filter_map(|&h| comps.component(h))
                .filter_map(|c| match component_size(func, c, &loops, &cons) {
                    Some(size) => (size < threshold).then(|| (size, c.clone())),
                    // A loop whose trip count the shape test does not see (an inner bound
                    // depending on an outer counter): unrolling decides, under a budget.
                    None => Some((threshold, c.clone())),
                })
                .collect();
            eligible.sort_by_key(|(size, c)| (std::cmp::Reverse(c.blocks.len()), *size));
            let mut taken: HashSet<BlockId> = HashSet::default();
            let mut chosen = Vec::new();
            for (_, c) in eligible {
                if c.blocks.iter().all(|b| !taken.contains(b)) {
                    taken.extend(c.blocks.iter().copied());
                    chosen.push(c);
                }
            }
            if chosen.is_empty() {
                break;
            }
            // Every chosen component is merged, then the merged blocks are lowered together
            // (the function's liveness and memory plan computed once per round, not once per
            // component: that was quadratic in a program of many loops). A merge that fails,
            // or whose block is not below the threshold, is undone by going back to the
            // function as it was and applying the others again (merging is deterministic),
            // and the remaining blocks are checked again in the function without it.
            let saved = program.func(f).clone();
            let mut merged: Vec<Component> = Vec::new();
            let replay = |program: &mut Program, merged: &[Component]| {
                *program.func_mut(f) = saved.clone();
                for done in merged {
                    merge_component(program.func_mut(f), done, budget)
                        .expect("bug: a merge that succeeded succeeds again");
                }
            };
            for comp in chosen {
                if merge_component(program.func_mut(f), &comp, budget).is_ok() {
                    merged.push(comp);
                } else {
                    replay(program, &merged);
                    skip.insert(comp.head);
                }
            }
            while !merged.is_empty() {
                let heads: Vec<BlockId> = merged.iter().map(|c| c.head).collect();
                // Every block's size where the whole program lowers (the next round starts from
                // them), else the merged blocks' one by one (one that cannot be lowered is
                // undone).
                current = stats_with(program, cache, options.lower).ok();
                let sizes = match &current {
                    Some(all) => {
                        let of: HashMap<BlockId, u64> = all
                            .iter()
                            .filter(|s| s.func == f)
                            .map(|s| (s.block, s.constraints as u64))
                            .collect();
                        heads.iter().map(|h| of.get(h).copied()).collect()
                    }
                    None => block_constraints(program, f, &heads, cache, options.lower),
                };
                let over: HashSet<BlockId> = heads
                    .iter()
                    .zip(&sizes)
                    .filter(|(_, n)| !n.is_some_and(|n| n < threshold))
                    .map(|(h, _)| *h)
                    .collect();
                if over.is_empty() {
                    break;
                }
                skip.extend(over.iter().copied());
                merged.retain(|c| !over.contains(&c.head));
                replay(program, &merged);
                current = None;
            }
            let merged_any = !merged.is_empty();
            if merged_any {
                stats.add("components_merged", merged.len());
                stats.add(
                    "blocks_merged",
                    saved.layout.len() - program.func(f).layout.len(),
                );
            }
            if !merged_any && skip.is_empty() {
                break;
            }
        }
    }
    stats
}

/// Merges component `comp` of `func` into its head.
pub fn merge_component(
    func: &mut Function,
    comp: &Component,
    max_unrolled: usize,
) -> Result<(), MergeError> {
    let head = comp.head;
    let tail = comp.tail;
    let unsupported = |func: &Function, reason: &str| MergeError::Unsupported {
        func: func.name.clone(),
        reason: reason.to_string(),
    };
    let inside: HashSet<BlockId> = comp.blocks.iter().copied().filter(|b| *b != tail).collect();
    if inside.iter().any(|b| func.successors(*b).contains(&head)) {
        return Err(unsupported(func, "the component's head is a loop header"));
    }
    let loops = LoopForest::new(func);
    if !loops.is_reducible() {
        return Err(unsupported(func, "irreducible control flow"));
    }
    let rpo = func.reverse_post_order();
    let region: Vec<BlockId> = rpo.iter().copied().filter(|b| inside.contains(b)).collect();
    let head_params = func.block(head).params.clone();
    let mut em = Emitter::new(func, &loops, &rpo, max_unrolled, false);
    let start = em.true_value();
    em.pending.insert(
        head,
        vec![Edge {
            guard: start,
            args: head_params.clone(),
            live: Vec::new(),
        }],
    );
    em.run_region(&region, loops.innermost(head))?;
    let edges = em
        .pending
        .remove(&tail)
        .ok_or_else(|| unsupported(em.func, "the tail is not reached"))?;
    // The tail may use values of a loop unrolled inside the component directly (not through
    // its parameters): each edge leaving the loop carries their copies at the time it was
    // taken, combined here like arguments.
    let (_, args) = em.combine_live(edges);
    let tail_params = em.func.block(tail).params.clone();
    for (p, a) in tail_params.iter().zip(args) {
        em.env.insert(*p, a);
    }
    let guard = em.true_value();
    for inst in em.func.block(tail).insts.clone() {
        em.copy_inst(inst, guard)?;
    }
    let mut term = em
        .func
        .block(tail)
        .term
        .clone()
        .expect("bug: verified IR has terminators");
    term.map_operands(|v| em.map_real(v));
    // Every value defined in the component (but the head's parameters) is renamed to its copy.
    let mut defined = Vec::new();
    for &b in comp.blocks.iter() {
        let block = em.func.block(b);
        if b != head {
            defined.extend(block.params.iter().copied());
        }
        for i in &block.insts {
            defined.extend(em.func.inst(*i).results.iter().copied());
        }
    }
    let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
    for v in defined {
        if em.env.contains_key(&v) {
            let n = em.map_real(v);
            if n != v {
                subst.insert(v, n);
            }
        }
    }
    let Emitter {
        out, consts_made, ..
    } = em;
    let data = func.block_mut(head);
    data.insts = out;
    data.term = Some(term);
    func.layout
        .retain(|b| *b == head || !comp.blocks.contains(b));
    func.replace_uses(&subst);
    drop_folded_constants(func, consts_made);
    Ok(())
}

/// Below this many constants made by one merge, the unused ones are left in the arena.
const COMPACT_MIN_CONSTS: usize = 4096;

/// After a merge that made `consts_made` constants: drops the constants nothing reads when
/// they may be a large part of the values. Unrolling folds a loop's counter into a new
/// constant in every iteration, and only a few of them end up read (see [`crate::ir::compact`]).
fn drop_folded_constants(func: &mut Function, consts_made: usize) {
    if consts_made >= COMPACT_MIN_CONSTS && consts_made * 8 >= func.values.len() {
        crate::ir::compact::drop_unused_constants(func);
    }
}

/// Merges all of `func` into its entry block (`--monolithic`). Returns whether it changed.
pub fn merge_function(func: &mut Function, max_unrolled: usize) -> Result<bool, MergeError> {
    if func.layout.len() <= 1 {
        return Ok(false);
    }
    let unsupported = |func: &Function, reason: &str| MergeError::Unsupported {
        func: func.name.clone(),
        reason: reason.to_string(),
    };
    if func.has_calls() {
        return Err(unsupported(
            func,
            "it calls other functions (inline them first, -O1 or higher)",
        ));
    }
    let loops = LoopForest::new(func);
    if !loops.is_reducible() {
        return Err(unsupported(func, "irreducible control flow"));
    }
    let nested = loops.loops().iter().any(|l| l.parent.is_some());
    let original = nested.then(|| func.clone());
    let original = original.filter(|_| merge_nested_loops(func, max_unrolled));
    // The loops changed only where nested ones were merged.
    let loops = match original {
        Some(_) => LoopForest::new(func),
        None => loops,
    };
    let merged = merge_whole(func, &loops, max_unrolled);
    if let (Err(_), Some(original)) = (&merged, original) {
        // Nothing of a merge that failed is kept, the nested loops merged first included.
        *func = original;
    }
    merged
}

/// Merges each loop nested in another loop into one block first, innermost first, where its
/// merge component (headed by the block before it) can be merged: a constant trip count, no
/// call. Merging the whole function then copies the loop's folded body once per iteration of
/// the loops around it, instead of unrolling and folding the loop again in each of them
/// (ZoKrates' `u32_to_field`, a 32-step loop over a 32-step power, called in a 99-step loop:
/// 1.7 million instructions folded, 14,451 kept). The result is the same program: the whole
/// merge would unroll the same loop with the same constants, and copies of the merged body
/// fold where the outer iteration's constants reach them. Returns whether anything merged.
fn merge_nested_loops(func: &mut Function, max_unrolled: usize) -> bool {
    let mut changed = false;
    loop {
        let loops = LoopForest::new(func);
        let parents: HashSet<_> = loops.loops().iter().filter_map(|l| l.parent).collect();
        let comps = MergeComponents::new(func);
        let preds = func.predecessors();
        let mut taken: HashSet<BlockId> = HashSet::default();
        let mut chosen: Vec<Component> = Vec::new();
        for id in loops.ids() {
            let l = loops.get(id);
            if l.parent.is_none() || parents.contains(&id) {
                continue;
            }
            if crate::analysis::components::constant_trip_count(func, &loops, id).is_none() {
                continue;
            }
            let outside: Vec<BlockId> = preds
                .get(&l.header)
                .into_iter()
                .flatten()
                .copied()
                .filter(|p| !l.blocks.contains(p))
                .collect();
            let [pre] = outside[..] else { continue };
            let Some(comp) = comps.component(pre) else {
                continue;
            };
            if !comp.blocks.contains(&l.header) || comp.blocks.iter().any(|b| taken.contains(b)) {
                continue;
            }
            taken.extend(comp.blocks.iter().copied());
            taken.insert(comp.head);
            chosen.push(comp.clone());
        }
        let mut merged = false;
        for comp in &chosen {
            merged |= merge_component(func, comp, max_unrolled).is_ok();
        }
        if !merged {
            return changed;
        }
        changed = true;
    }
}

/// [`merge_function`]'s merge of the whole function, whose loops are `loops`, into its entry
/// block.
fn merge_whole(
    func: &mut Function,
    loops: &LoopForest,
    max_unrolled: usize,
) -> Result<bool, MergeError> {
    let unsupported = |func: &Function, reason: &str| MergeError::Unsupported {
        func: func.name.clone(),
        reason: reason.to_string(),
    };
    let rpo = func.reverse_post_order();
    let entry = func.entry;
    let params = func.block(entry).params.clone();
    let mut em = Emitter::new(func, loops, &rpo, max_unrolled, true);
    let start = em.true_value();
    em.pending.insert(
        entry,
        vec![Edge {
            guard: start,
            args: params,
            live: Vec::new(),
        }],
    );
    em.run_region(&rpo, None)?;
    let returns = std::mem::take(&mut em.returns);
    if returns.is_empty() {
        return Err(unsupported(em.func, "no path reaches a return"));
    }
    let (_, values) = em.combine(returns);
    let values = values.into_iter().map(|v| em.materialize(v)).collect();
    let out = std::mem::take(&mut em.out);
    let consts_made = em.consts_made;
    // The emitter's maps go before the arena is compacted.
    drop(em);
    let data = func.block_mut(entry);
    data.insts = out;
    data.term = Some(Terminator::Return(values));
    func.layout = vec![entry];
    drop_folded_constants(func, consts_made);
    Ok(true)
}
