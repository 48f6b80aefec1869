//! Cost-driven block formation: `--merge-policy cost`, the default. Every merge is decided by
//! the cost model (`crate::cost`) on the program as it would be, not by a size threshold.
//!
//! # Algorithm
//!
//! 1. **Loops get one latch.** Each loop whose back edges come from several blocks, or from a
//!    block that ends in `br`, gets an empty latch block that all of them jump to (the seed's
//!    "every loop has an explicit tail"), so an `if` that ends a loop body has a tail and is a
//!    merge component. Latches nothing merges into are removed again by the clean-up.
//! 2. **Evaluate.** A candidate program is scored by [`Prediction`]: the clean-up passes that
//!    follow merging in `-O3` (sccp, gvn, ranges, dce, simplify_cfg) run on a copy, every block
//!    is lowered to R1CS (through a [`StatsCache`], so only changed blocks are lowered again), and
//!    the sumcheck cells `Σ Q_b · X_b` and transitions `Σ exec_b` are computed with execution
//!    counts from [`Counts`]: a profile run on the user's inputs (`--inputs`), which makes the
//!    score exactly what the report will say, or static counts and estimates. Counts exact
//!    before the clean-up are carried through it, not counted again after it (the clean-up
//!    changes no kept block's count, but may hide a trip count from the static counts): the
//!    candidates' follow from the program they are made from, and the whole-program formations
//!    of step 4 are all scored with those of the program as it came.
//! 3. **Greedy.** Every merge component (a branch, or a loop with constant trip count, fully
//!    unrolled, with no call or early return; `analysis::components`) is merged on a copy and
//!    scored; the one that lowers the score most is applied, and the search repeats on the
//!    result. A candidate's change in score is remembered while its blocks are untouched
//!    (lazy greedy); one that cannot be merged (a run-time bound, over `--max-unrolled`) is
//!    not tried again. The search stops when no candidate lowers the score.
//!
//!    The program as one block per function (`--monolithic`) is merged, cleaned up and scored
//!    once, before the first round (its score does not depend on what the greedy merged; with
//!    static counts, while the unmerged program is scored on a second thread), and
//!    is a move of every round: when it costs less than the round's best merge it is taken and
//!    the search ends. Two bounds keep a round from scoring candidates that could not beat it
//!    (each rests on an assumption, stated at [`cells_outside`] and [`merged_bound`]): a
//!    candidate whose untouched blocks alone already cost more than that one block, and a
//!    component or rotated loop that, merged, would hold at least the one block's constraints
//!    less those of the blocks it leaves alone (the whole program but for a few small blocks,
//!    or a hash's rounds as one block an iteration). This is what
//!    makes straight-line circuits (a hash, a signature) cheap to form: their inner loops and
//!    near-whole components are outrun without being unrolled and lowered one by one.
//! 4. **Best of the formations.** The greedy result is compared with the program unmerged,
//!    merged into one block per function (`--monolithic`, when every loop bound is constant),
//!    and merged by the seed's threshold rule at MIN_BLOCK_SIZE 1024 and 32768; the lowest
//!    score wins (ties: fewer transitions). The threshold formations depend only on the
//!    program: they are formed (and, with static counts, scored) on a thread of their own while
//!    the greedy runs, started once the first round has not taken the one block. When the
//!    first round takes it they are not formed at all ([`thresholds_needed`] says why): forming
//!    them cost more than the rest of formation, and they lost on every program measured.
//!    Otherwise the default never costs more cells than `--no-merge`, `--monolithic` or
//!    `--merge-policy threshold`; `tests/merge_corpus.rs` holds it to all of them on the corpus.
//! 5. **Nothing twice.** The one block handed over is already cleaned up: the `-O3` passes
//!    after `merge` are not run again (`opt::CLEANUP`), and a report's `--monolithic` compile
//!    of the same program takes it from the [`super::OneBlockCache`] as it is.
//! 6. **Cuts.** With `-O0`'s executed count to compare with (`report --inputs` at `-O3`), a
//!    block of the chosen formation that pads far above its size may be cut in two (`split`).
//!
//! # Cost
//!
//! Formation lowers the unmerged program once (blocks are cached by content, so a candidate
//! lowers only the blocks it changed), the one block once, and in each round the candidates
//! that survive the bounds above; the rounds are at most [`MAX_MERGES`]. On a program whose
//! one block wins the first round, that is the unmerged program, the one block and the few
//! components the bounds do not rule out: about 1.3 to 1.6 times the work of `--monolithic`
//! on the application benchmark (`docs/compile-time.md`).
//!
//! A **work budget** bounds the greedy search whatever the program ([`Budget`],
//! `--formation-budget`): the instructions of the candidate programs it merges and scores.
//! When it runs out, the round takes the best candidate it scored, the search stops, and the
//! formations are compared as usual (so the result is still at or below every baseline
//! formed). It counts work, never seconds: the result does not depend on the machine's load.
//! On a terminal, the progress line names the round and the candidate being scored.
//!
//! Every candidate and the final choice are recorded as [`Decision`]s (`zkbc report
//! --explain`), the budget's stop included.

mod calls;
mod candidates;
mod decisions;
mod split;
mod whole;

pub use decisions::{Decision, Subject, Verdict};

use crate::fxhash::{HashMap, HashSet};

use super::latches::add_latches;
use super::MergeOptions;
use crate::cost::{
    block_cells, exact_trips, group_digits, prediction_of, static_executions, with_predicted_runs,
    BlockCounts, Counts, Prediction,
};
use crate::ir::{BlockId, FuncId, Program, Terminator};
use crate::opt::PassStats;
use crate::r1cs::StatsCache;
use candidates::{apply, candidates, Candidate, Key, CHUNK_PER_PROGRAM, MIN_CHUNK_CAP};
use decisions::{record_kept, record_outrun, saving, unscored};
use std::collections::BTreeSet;
use whole::{
    choose_formation, counts_by_function, monolithic_formation, one_block_counts,
    threshold_formations, thresholds_needed,
};

/// Most greedy rounds (merges) per program.
const MAX_MERGES: usize = 256;

/// The evaluator: clean-up, lowering with a cache, counts.
struct Scorer<'a> {
    counts: &'a Counts,
    cache: std::sync::Arc<StatsCache>,
    /// Programs scored with counts derived from another's, not run.
    derived: std::cell::Cell<usize>,
}

impl Scorer<'_> {
    /// The prediction of `program`; `known`: its blocks' execution counts (before the
    /// clean-up) when they follow from another program's without a run ([`derived_counts`]).
    fn score(&self, program: &Program, known: Option<&BlockCounts>) -> Option<Prediction> {
        self.score_by_block(program, known).map(|(p, _)| p)
    }

    /// The prediction and each block's own cells ([`block_cells`]).
    fn score_by_block(
        &self,
        program: &Program,
        known: Option<&BlockCounts>,
    ) -> Option<(Prediction, BlockCells)> {
        let mut copy = program.clone();
        cleanup(&mut copy);
        self.score_cleaned(&copy, known)
    }

    /// [`Scorer::score_by_block`] of `copy`, a program the clean-up has run on; `known`: the
    /// counts of the program before the clean-up, if they are known.
    fn score_cleaned(
        &self,
        copy: &Program,
        known: Option<&BlockCounts>,
    ) -> Option<(Prediction, BlockCells)> {
        self.score_counted(copy, known)
            .map(|(p, cells, _)| (p, cells))
    }

    /// [`Scorer::score_cleaned`], and the execution counts of every block `copy` lays out (the
    /// blocks of functions run only as hints too, which [`BlockCells`] leaves out: a program
    /// made from `copy` whose counts follow from these needs them all, or it is run).
    fn score_counted(
        &self,
        copy: &Program,
        known: Option<&BlockCounts>,
    ) -> Option<(Prediction, BlockCells, BlockCounts)> {
        // The clean-up removes blocks and joins a block to its only predecessor (which runs
        // as often), never changing how often a block it keeps runs: the counts of `program`
        // are those of `copy` on its blocks.
        let counts = match known.and_then(|k| on_layout(k, copy)) {
            Some(counts) => {
                self.derived.set(self.derived.get() + 1);
                if cfg!(debug_assertions) {
                    match self.counts {
                        Counts::Profile(p) => {
                            if let Some(run) = p.run_uncached(copy) {
                                assert_eq!(
                                    counts, run,
                                    "bug: derived execution counts differ from a run's\n{copy}"
                                );
                            }
                        }
                        Counts::Static => {
                            for (block, n) in static_executions(copy) {
                                assert!(
                                    n.is_none() || n == counts.get(&block).copied(),
                                    "bug: derived execution counts differ from the static ones \
                                     at {block:?}\n{copy}"
                                );
                            }
                        }
                    }
                }
                counts
            }
            None => self.counts.of(copy),
        };
        // The memory plan weighs blocks by these counts (`with_predicted_runs`); a call is
        // lowered as its results' witnesses (`calls`); the counts are `copy`'s.
        let weighed = with_predicted_runs(copy, &counts);
        let stats = match calls::calls_as_witnesses(&weighed) {
            std::borrow::Cow::Borrowed(p) => self.cache.stats(p),
            std::borrow::Cow::Owned(p) => self.cache.stats_reached(&p, &copy.circuit_funcs()),
        }
        .ok()?;
        let sizes: HashMap<(FuncId, BlockId), u64> = stats
            .iter()
            .map(|s| ((s.func, s.block), s.constraints as u64))
            .collect();
        let cells = block_cells(&stats, &counts)
            .into_iter()
            .map(|(b, c)| {
                let runs = counts.get(&b).copied().unwrap_or(0);
                (b, (c, sizes.get(&b).copied().unwrap_or(0), runs))
            })
            .collect();
        Some((prediction_of(&stats, &counts), cells, counts))
    }
}

/// Scores `cand`, made from `work` by `key` (`body`: the block a rotated loop became), with the
/// execution counts that follow from `work_counts` where they do.
fn score_candidate(
    scorer: &Scorer<'_>,
    work: &Program,
    work_counts: Option<&BlockCounts>,
    entries: &Entries,
    key: &Key,
    cand: Program,
    body: Option<BlockId>,
) -> Option<Scored> {
    let known = work_counts.and_then(|c| derived_counts(work, c, entries, key, body));
    let (prediction, cells) = scorer.score_by_block(&cand, known.as_ref())?;
    Some(Scored {
        prediction,
        cells,
        program: cand,
        body,
        counts: known,
    })
}

/// `counts` of the blocks `program` lays out, if it has them all.
fn on_layout(counts: &BlockCounts, program: &Program) -> Option<BlockCounts> {
    let mut out = BlockCounts::default();
    for f in program.func_ids() {
        for &b in &program.func(f).layout {
            out.insert((f, b), *counts.get(&(f, b))?);
        }
    }
    Some(out)
}

/// The execution counts of the program `key` makes from `work`, from those of `work` (a
/// profile run's), when they follow without running it; `body` is the block a rotated loop
/// became. Blocks the transformation leaves alone keep their counts, and:
///
/// - a merged component is its head, which is no loop header: it runs as often as the head
///   did, once per entry of the component;
/// - a rotated loop with header `h` (its only exit) keeps `h` as the zero-trip test, which
///   runs once per entry of the loop: `entries` times, the sum of the counts of the blocks
///   outside the loop that jump to `h` (each by `jmp`), or `counts[h] − counts[latch]` for a
///   loop with one latch (`jmp h`), or, for a loop formation rotated before (one block that
///   branches to itself), what `entries` remembers of it. Each entry leaves through `h` once, so `h` sent
///   `counts[h] − entries` iterations into the body, and the body block runs that often; with
///   `k` iterations per block it runs `⌈t / k⌉` times for an entry that iterates `t` times,
///   which the counts tell when the loop is entered at most once, or when every entry
///   iterates the same known `t` times (a counted loop with constant bounds: a kept callee's
///   loop runs once per call, an inner loop once per outer iteration). A loop rotated before
///   is its own body block and runs once per iteration.
///
/// `None` when they do not follow: a block the transformation made is then missing from the
/// result, and the scorer runs the program.
fn derived_counts(
    work: &Program,
    counts: &BlockCounts,
    entries: &Entries,
    key: &Key,
    body: Option<BlockId>,
) -> Option<BlockCounts> {
    let (f, candidate, blocks) = key;
    let mut out = counts.clone();
    match *candidate {
        Candidate::Component(head) => {
            for b in blocks.iter().filter(|b| **b != head) {
                out.remove(&(*f, *b));
            }
        }
        // The function's one block is its entry, run once per call as the entry was.
        Candidate::Whole => {
            let entry = work.func(*f).entry;
            for b in blocks.iter().filter(|b| **b != entry) {
                out.remove(&(*f, *b));
            }
        }
        Candidate::Rotate(h, k) => {
            let func = work.func(*f);
            let jumps_to_h = |b: BlockId| matches!(&func.block(b).term, Some(Terminator::Jmp(c)) if c.block == h);
            let count = |b: BlockId| counts.get(&(*f, b)).copied();
            let (inside, outside): (Vec<BlockId>, Vec<BlockId>) = func
                .layout
                .iter()
                .copied()
                .filter(|b| func.successors(*b).contains(&h))
                .partition(|b| blocks.contains(b));
            let entries = if outside.iter().all(|b| jumps_to_h(*b)) {
                outside
                    .iter()
                    .try_fold(0u64, |n, b| n.checked_add(count(*b)?))?
            } else {
                match inside.as_slice() {
                    [latch] if jumps_to_h(*latch) => count(h)?.checked_sub(count(*latch)?)?,
                    _ => *entries.get(&(*f, h))?,
                }
            };
            // A loop that is already one block testing at its end is not rotated again (its
            // block is `h` and `body`): every run of it is an iteration.
            let iterations = if body == Some(h) {
                count(h)?
            } else {
                count(h)?.checked_sub(entries)?
            };
            let chunks = match k {
                1 => iterations,
                _ if entries <= 1 => iterations.div_ceil(k as u64),
                // Entered several times (a kept callee's loop, once per call; an inner loop):
                // when every entry iterates the same `t` times (a counted loop with constant
                // bounds) and the counts agree, each entry runs `⌈t / k⌉` body blocks.
                _ => {
                    let t = exact_trips(func, h)?;
                    if iterations != entries.checked_mul(t)? {
                        return None;
                    }
                    entries.checked_mul(t.div_ceil(k as u64))?
                }
            };
            for b in blocks {
                out.remove(&(*f, *b));
            }
            if body != Some(h) {
                out.insert((*f, h), entries);
            }
            out.insert((*f, body?), chunks);
        }
    }
    Some(out)
}

/// Each block's own cells, its constraints and its executions, by function and block.
type BlockCells = HashMap<(FuncId, BlockId), (u128, u64, u64)>;

/// The executed constraints of blocks with these cells: `Σ runs · constraints`.
fn executed(cells: &BlockCells) -> u128 {
    cells
        .values()
        .map(|&(_, c, r)| u128::from(c) * u128::from(r))
        .sum()
}

/// How often each loop that formation rotated into one block is entered, by that block.
type Entries = HashMap<(FuncId, BlockId), u64>;

/// A scored candidate.
struct Scored {
    prediction: Prediction,
    cells: BlockCells,
    program: Program,
    /// The block a rotated loop became.
    body: Option<BlockId>,
    /// Its blocks' execution counts before the clean-up, if they followed from `work`'s.
    counts: Option<BlockCounts>,
}

/// A bound below the cells of `key` applied to the program whose blocks cost `cells`: the
/// blocks it leaves alone keep their cells. (Not quite a bound when the clean-up after a merge
/// makes a block outside it cheaper, e.g. a constant flowing out of an unrolled loop; the
/// greedy then misses that candidate in a round the whole program as one block wins anyway.)
fn cells_outside(cells: &BlockCells, key: &Key) -> u128 {
    cells
        .iter()
        .filter(|((f, b), _)| *f != key.0 || !key.2.contains(b))
        .map(|(_, c)| c.0)
        .sum()
}

/// A bound below the cells of the candidate `key` applied, from the program as one block per
/// function (`mono_constraints` in the candidate's function) and the program as it is
/// (`cells`): the blocks the candidate leaves alone keep their cells ([`cells_outside`]), and
/// what it merges holds at least the one block's constraints less those of the blocks left
/// alone in its function (`rows`):
/// - a component becomes one block with at least `rows` constraints, run as often as the
///   component's head;
/// - a rotated loop becomes blocks that run, all their executions together, at least `rows`
///   constraints less its header's (the zero-trip test, counted as often as the header runs
///   now): every iteration of the one block is one of its chunk's iterations specialized.
///   Their cells are at least the next power of two above that, since a block's padded size
///   and padded executions are both powers of two.
///
/// `None` where the head is not a block of the program cleaned up. Like [`cells_outside`] it
/// rests on an assumption rather than a proof: that lowering blocks joined, or an iteration
/// specialized, costs no more than lowering them apart or general (joining folds constants
/// and shares values; it never adds a row). This is what keeps the greedy from scoring a
/// component that is the whole program but for a few small blocks, or the rotation of a loop
/// that is most of it (a hash's rounds), each as costly to score as the one block and almost
/// never cheaper than it.
fn merged_bound(cells: &BlockCells, key: &Key, mono_constraints: u64) -> Option<u128> {
    let left_alone: u64 = cells
        .iter()
        .filter(|((f, b), _)| *f == key.0 && !key.2.contains(b))
        .map(|(_, c)| c.1)
        .sum();
    let rows = mono_constraints.saturating_sub(left_alone);
    let merged_cells = match key.1 {
        Candidate::Component(head) => {
            let runs = cells.get(&(key.0, head))?.2;
            u128::from(crate::cost::padded_constraints(rows)?)
                * u128::from(crate::cost::padded_executions(runs)?)
        }
        Candidate::Rotate(header, _) => {
            let &(_, header_rows, header_runs) = cells.get(&(key.0, header))?;
            let rows = rows.saturating_sub(header_rows.saturating_mul(header_runs));
            match rows {
                0 => 0,
                r => u128::from(r).checked_next_power_of_two()?,
            }
        }
        Candidate::Whole => return None,
    };
    Some(cells_outside(cells, key) + merged_cells)
}

/// The passes `-O3` runs after merging ([`crate::opt::CLEANUP`]).
fn cleanup(program: &mut Program) {
    let options = crate::opt::Options::default();
    for name in crate::opt::CLEANUP {
        let pass = crate::opt::pass(name).expect("bug: the clean-up's passes exist");
        // Only `merge` fails.
        let _ = (pass.run)(program, &options);
    }
}

/// Cost-driven block formation of `program` (see the module doc).
pub(super) fn form_blocks(program: &mut Program, options: &MergeOptions) -> PassStats {
    let mut stats = PassStats::default();
    // A profile that does not run (a failure, the step limit) is no use: static counts then,
    // rather than failing the same run for every candidate.
    let counts = match &options.counts {
        c @ Counts::Profile(_) if c.profiled(program).is_none() => {
            stats.add("profile_failed", 1);
            Counts::Static
        }
        c => c.clone(),
    };
    // The exact counts of the program as it came (a profile's run made above, kept by the
    // cache, or the static counts when every block's is known): the threshold formations'
    // follow from them (see `choose_formation`), and the unmerged program's. Taken before the
    // clean-up, which may hide a trip count the static counts read (`ranges` turns a loop's
    // `lt i, 3` into `not (eq i, 3)`, which `counted-loop` does not count): every formation is
    // scored with what is known of the program, not some with exact counts and some with
    // estimates.
    let base_counts = counts.exact(program);
    let scorer = Scorer {
        counts: &counts,
        cache: options.stats_cache.clone().map_or_else(
            || std::sync::Arc::new(StatsCache::new().lowering(options.lower)),
            |c| c.0,
        ),
        derived: Default::default(),
    };
    // The threshold formations, compared at the end (step 4), depend only on the program: with
    // static counts they are formed and scored on a thread of their own while the greedy search
    // runs (a report is otherwise mostly sequential; this is where a second core helps). They
    // are not formed when the first round takes the whole program as one block (see
    // [`thresholds_needed`]).
    let static_counts = matches!(counts, Counts::Static);
    let spawn_thresholds = || {
        let (base, cache) = (program.clone(), scorer.cache.clone());
        let (max_unrolled, known) = (options.max_unrolled, base_counts.clone());
        let score = static_counts.then_some(known);
        std::thread::Builder::new()
            .name("formations".into())
            .spawn(move || threshold_formations(&base, &cache, max_unrolled, score))
    };
    let mut background = None;
    let mut work = program.clone();
    for func in &mut work.funcs {
        stats.add("latches_added", add_latches(func));
    }
    // The counts of `work` before the clean-up, from which a candidate's follow (a profile
    // runs `work` once, not every candidate). Where they are not all known (static counts of a
    // loop whose latch was added) the program's as it came score the unmerged program.
    let mut work_counts = crate::timing::stage("formation: counts", || counts.exact(&work));
    let unmerged_counts = work_counts.as_ref().or(base_counts.as_ref());
    // How often each function runs (its entry's count), for the counts of a one-block result.
    let entry_runs: Option<HashMap<FuncId, u64>> = work_counts.as_ref().map(|c| {
        work.func_ids()
            .filter_map(|f| Some((f, *c.get(&(f, work.func(f).entry))?)))
            .collect()
    });
    let mut entries = Entries::default();
    // The unmerged program's score and the one block's (the program as one block per
    // function: a move of every round, taken when it beats that round's best merge, and one of
    // the formations compared at the end; it does not depend on what the greedy merged before,
    // so it is scored once). The two are independent: with static counts (nothing to run) the
    // unmerged program is scored on a thread of its own while this one forms the one block,
    // which is one block's clean-up and lowering, sequential work that leaves a core idle.
    let (unmerged_scored, (monolithic, mono_constraints)) = if static_counts {
        crate::timing::stage("formation: unmerged and one block", || {
            std::thread::scope(|scope| {
                let (work, work_counts) = (&work, unmerged_counts);
                let cache = scorer.cache.clone();
                let unmerged = scope.spawn(move || {
                    let counts = Counts::Static;
                    let scorer = Scorer {
                        counts: &counts,
                        cache,
                        derived: Default::default(),
                    };
                    let scored = scorer.score_by_block(work, work_counts);
                    (scored, scorer.derived.get())
                });
                let one_block = crate::timing::stage("formation: one block", || {
                    monolithic_formation(program, options, &scorer)
                });
                let (scored, derived) = unmerged
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                scorer.derived.set(scorer.derived.get() + derived);
                (scored, one_block)
            })
        })
    } else {
        let scored = crate::timing::stage("formation: unmerged", || {
            scorer.score_by_block(&work, unmerged_counts)
        });
        if scored.is_none() {
            return stats;
        }
        let one_block = crate::timing::stage("formation: one block", || {
            monolithic_formation(program, options, &scorer)
        });
        (scored, one_block)
    };
    let (mut current, mut current_cells) = match unmerged_scored {
        Some(scored) => scored,
        // Calls or memory left (-O0 programs before legalization): nothing to decide with.
        None => return stats,
    };
    // The program as it came scores as `work` does: the clean-up removes the latches again, so
    // both clean up to the same blocks, and their counts are the same exact ones. Kept for the
    // comparison at the end instead of cleaning the program up once more (a debug build checks
    // the two agree).
    let unmerged = current;
    let unmerged_cells = current_cells.clone();
    if monolithic.1.is_none() {
        background = Some(spawn_thresholds());
    }
    // In a program that still calls, the one-block formation leaves the functions that call
    // as they are: no move of the greedy, which merges each other function on its own
    // (`Candidate::Whole`) and goes on with the callers; only compared at the end.
    let one_block_move = monolithic
        .1
        .as_ref()
        .map(|(m, _)| *m)
        .filter(|_| !calls::program_calls(program));
    // The round in which the greedy took the whole program as one block.
    let mut one_block_round = None;
    let chunk_cap = MIN_CHUNK_CAP.max(CHUNK_PER_PROGRAM * program.n_insts());
    let mut decisions = Vec::new();
    // The change in score of each candidate when it was last scored (lazy greedy: it stays a
    // good estimate while the candidate's blocks are untouched).
    let mut estimate: HashMap<Key, (i128, i128)> = HashMap::default();
    let mut impossible: HashSet<Key> = HashSet::default();
    let mut budget = Budget {
        limit: options.budget,
        spent: 0,
    };
    crate::timing::stage("formation: greedy", || {
        for round in 1..=MAX_MERGES {
            let mut fresh: HashMap<Key, Scored> = HashMap::default();
            let cands = candidates(&work, chunk_cap);
            let n_cands = cands.len();
            // Whether the budget ran out before this round had scored what it meant to.
            let mut stopped = false;
            let subjects: HashMap<Key, Subject> = cands.iter().cloned().collect();
            // Unroll factors of one loop are tried in increasing order, and no further once a
            // larger factor scores worse than the one before it.
            let mut last_factor: HashMap<(FuncId, BlockId), (i128, i128)> = HashMap::default();
            let mut stop_factors: HashSet<(FuncId, BlockId)> = HashSet::default();
            // Candidates not scored this round (see below), with the cells of their other blocks,
            // or a bound below their cells.
            let mut outrun: HashMap<Key, (Subject, u128)> = HashMap::default();
            let mut near_whole: HashMap<Key, (Subject, u128)> = HashMap::default();
            for (i, (key, subject)) in cands.into_iter().enumerate() {
                crate::timing::progress(|| {
                    format!("formation: round {round}, candidate {} of {n_cands}", i + 1)
                });
                let rotation = match key.1 {
                    Candidate::Rotate(h, _) => Some((key.0, h)),
                    Candidate::Component(_) | Candidate::Whole => None,
                };
                if rotation.is_some_and(|r| stop_factors.contains(&r)) {
                    continue;
                }
                let note_factor =
                    |d: (i128, i128),
                     last: &mut HashMap<(FuncId, BlockId), (i128, i128)>,
                     stop: &mut HashSet<(FuncId, BlockId)>| {
                        if let Some(r) = rotation {
                            if last.get(&r).is_some_and(|prev| d > *prev) {
                                stop.insert(r);
                            }
                            last.insert(r, d);
                        }
                    };
                if impossible.contains(&key) {
                    if let Some(r) = rotation {
                        stop_factors.insert(r);
                    }
                    continue;
                }
                if let Some(d) = estimate.get(&key) {
                    note_factor(*d, &mut last_factor, &mut stop_factors);
                    continue;
                }
                // A candidate whose untouched blocks alone cost more than the whole program as one
                // block cannot be taken this round: that block would be taken instead.
                if let Some(m) = &one_block_move {
                    let outside = cells_outside(&current_cells, &key);
                    if outside > m.cells {
                        outrun.insert(key, (subject, outside));
                        continue;
                    }
                    // Nor one that, merged, costs at least as much as that block.
                    let mono_c = mono_constraints.get(&key.0).copied().unwrap_or(0);
                    let bound = merged_bound(&current_cells, &key, mono_c);
                    if let Some(bound) = bound.filter(|b| *b >= m.cells) {
                        near_whole.insert(key, (subject, bound));
                        continue;
                    }
                }
                if budget.exhausted() {
                    stopped = true;
                    break;
                }
                let (cand, body) = match apply(&work, &key, options.max_unrolled) {
                    Ok(c) => {
                        budget.charge(&c.0);
                        c
                    }
                    Err(e) => {
                        if let Some(r) = rotation {
                            stop_factors.insert(r);
                        }
                        impossible.insert(key);
                        decisions.push(unscored(
                            round,
                            subject,
                            current,
                            Verdict::Impossible,
                            e.reason(),
                        ));
                        continue;
                    }
                };
                let work_counts = work_counts.as_ref();
                match score_candidate(&scorer, &work, work_counts, &entries, &key, cand, body) {
                    Some(scored) => {
                        let d = delta(current, scored.prediction);
                        note_factor(d, &mut last_factor, &mut stop_factors);
                        estimate.insert(key.clone(), d);
                        fresh.insert(key, scored);
                    }
                    None => {
                        impossible.insert(key);
                    }
                }
            }
            // Best estimate first; a stale estimate is scored again before it is taken.
            let mut order: Vec<(&Key, (i128, i128))> = estimate
                .iter()
                .filter(|(k, _)| subjects.contains_key(*k))
                .map(|(k, d)| (k, *d))
                .collect();
            order.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(b.0)));
            let mut taken: Option<(Key, Scored)> = None;
            let mut rescored: Vec<(Key, (i128, i128))> = Vec::new();
            for (key, d) in order {
                if d >= (0, 0) {
                    break;
                }
                let scored = match fresh.remove(key) {
                    Some(x) => x,
                    None => {
                        if budget.exhausted() {
                            stopped = true;
                            continue;
                        }
                        let Ok((cand, body)) = apply(&work, key, options.max_unrolled) else {
                            continue;
                        };
                        budget.charge(&cand);
                        let work_counts = work_counts.as_ref();
                        let Some(scored) =
                            score_candidate(&scorer, &work, work_counts, &entries, key, cand, body)
                        else {
                            continue;
                        };
                        rescored.push((key.clone(), delta(current, scored.prediction)));
                        scored
                    }
                };
                if scored.prediction < current {
                    taken = Some((key.clone(), scored));
                    break;
                }
            }
            estimate.extend(rescored);
            if let Some(m) = one_block_move.as_ref() {
                if *m < current && taken.as_ref().is_none_or(|(_, s)| *m < s.prediction) {
                    record_outrun(&mut decisions, round, current, m.cells, outrun, near_whole);
                    // The candidates this round scored, which the one block outdoes.
                    record_kept(&mut decisions, round, current, &estimate, &subjects, |_| {
                        format!(
                            "the whole program as one block ({}) is cheaper",
                            group_digits(m.cells)
                        )
                    });
                    decisions.push(Decision {
                        round,
                        subject: Subject::OneBlock,
                        cells_kept: Some(current.cells),
                        cells_taken: Some(m.cells),
                        transitions: (Some(current.transitions), Some(m.transitions)),
                        verdict: Verdict::Taken,
                        reason: format!(
                            "{}, more than this round's best merge",
                            saving(current, *m)
                        ),
                    });
                    // `work` becomes the one block after the search (it is not copied).
                    current = *m;
                    one_block_round = Some(round);
                    stats.add("monolithic_taken", 1);
                    // Nothing is left to merge.
                    break;
                }
            }
            let Some((key, scored)) = taken else {
                if let Some(m) = &one_block_move {
                    record_outrun(&mut decisions, round, current, m.cells, outrun, near_whole);
                }
                if stopped {
                    decisions.push(budget.decision(round, current));
                    stats.add("budget_stopped", 1);
                }
                // Nothing lowers the score: the remaining candidates are kept.
                record_kept(&mut decisions, round, current, &estimate, &subjects, |d| {
                    if d.0 > 0 {
                        format!("would cost {} more cells", group_digits(d.0.unsigned_abs()))
                    } else {
                        "would not lower the cells or transitions".into()
                    }
                });
                break;
            };
            decisions.push(Decision {
                round,
                subject: subjects[&key].clone(),
                cells_kept: Some(current.cells),
                cells_taken: Some(scored.prediction.cells),
                transitions: (
                    Some(current.transitions),
                    Some(scored.prediction.transitions),
                ),
                verdict: Verdict::Taken,
                reason: saving(current, scored.prediction),
            });
            let touched: BTreeSet<BlockId> = key.2.iter().copied().collect();
            estimate.retain(|(g, _, blocks), _| {
                *g != key.0 || blocks.iter().all(|b| !touched.contains(b))
            });
            if let (Candidate::Rotate(h, _), Some(body), Some(known)) =
                (&key.1, scored.body, &scored.counts)
            {
                if let Some(n) = known.get(&(key.0, *h)) {
                    entries.insert((key.0, body), *n);
                }
            }
            work_counts = scored.counts.or_else(|| counts.exact(&scored.program));
            work = scored.program;
            current = scored.prediction;
            current_cells = scored.cells;
            stats.add(
                match key.1 {
                    Candidate::Component(_) => "components_merged",
                    Candidate::Rotate(..) => "loops_rotated",
                    Candidate::Whole => "functions_merged",
                },
                1,
            );
            if background.is_none() {
                background = Some(spawn_thresholds());
            }
            if stopped {
                decisions.push(budget.decision(round, current));
                stats.add("budget_stopped", 1);
                break;
            }
        }
    });
    stats.add(
        "formation_work",
        usize::try_from(budget.spent).unwrap_or(usize::MAX),
    );
    // The program as it came, for the profile's counts of the chosen one below; a static
    // compile reads none (a copy of `unrolled_poseidon_t7`'s unrolled program for nothing).
    let original = matches!(counts, Counts::Profile(_)).then(|| program.clone());
    let chosen = crate::timing::stage("formation: compare", || {
        let thresholds = crate::timing::stage("formation: threshold rule", || {
            if !thresholds_needed(one_block_round) {
                return Vec::new();
            }
            match background {
                Some(Ok(handle)) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // Not started (the search ended in its first round), or no thread to be had:
                // formed here.
                _ => threshold_formations(
                    program,
                    &scorer.cache,
                    options.max_unrolled,
                    static_counts.then(|| base_counts.clone()),
                ),
            }
        });
        if cfg!(debug_assertions) {
            assert_eq!(
                Some(unmerged),
                scorer.score(program, base_counts.as_ref()),
                "bug: the program with latches scores differently from the program without"
            );
        }
        let unmerged = Some(unmerged);
        // The greedy's result is the one block when it took it: moved, not copied, and the
        // monolithic formation keeps only its score.
        let (greedy, monolithic) = match (one_block_round, monolithic) {
            (Some(_), (name, Some((m, Some(mono))), why)) => (mono, (name, Some((m, None)), why)),
            (_, monolithic) => (work, monolithic),
        };
        choose_formation(
            program,
            (greedy, current),
            unmerged,
            monolithic,
            thresholds,
            (&scorer, base_counts.as_ref()),
            (
                (
                    &unmerged_cells,
                    one_block_round.is_none().then_some(&current_cells),
                ),
                options.executed_bound.as_ref(),
            ),
            &mut decisions,
            &mut stats,
        )
    });
    // The one block is the clean-up's result already: the passes after `merge` that make it
    // are not run again (see `opt::optimize_after`).
    let one_block = matches!(chosen.as_deref(), Some("monolithic"))
        || (one_block_round.is_some() && chosen.as_deref() == Some("greedy"));
    // Blocks that pad far above their size are split (`split`); the result is cleaned up.
    let hint = match chosen.as_deref() {
        Some("greedy") if one_block_round.is_none() => Some(&current_cells),
        Some("unmerged") => Some(&unmerged_cells),
        _ => None,
    };
    // The chosen program's counts without a run where they follow: every function of the
    // circuit one block, run as often as its entry did, and every other (run only as a `hint`,
    // which formation leaves alone) as it ran; or the search's own.
    let known = entry_runs
        .and_then(|runs| {
            let circuit = program.circuit_funcs();
            let hint_only = |f: FuncId| !circuit.get(f.index()).copied().unwrap_or(true);
            let none = BlockCounts::default();
            let before = base_counts.as_ref().unwrap_or(&none);
            counts_by_function(program, |f| runs.get(&f).copied(), hint_only, before)
        })
        .or_else(|| hint.map(|h| h.iter().map(|(&k, &(_, _, r))| (k, r)).collect()));
    let (cuts, predictions) = crate::timing::stage("formation: split", || {
        split::split_padded(
            program,
            &scorer,
            (one_block, known.as_ref()),
            hint,
            options.executed_bound.as_ref(),
        )
    });
    stats.add("blocks_split", cuts);
    // The chosen formation's decision tells the cells after the cuts (the report's own).
    if let (true, Some((before, after))) = (cuts > 0, predictions) {
        if let Some(d) = decisions.iter_mut().find(|d| {
            d.round == 0
                && matches!(d.subject, Subject::Formation { .. })
                && d.verdict == Verdict::Taken
        }) {
            d.cells_taken = Some(after.cells);
            d.transitions.1 = Some(after.transitions);
            d.reason = format!(
                "{}, then {cuts} block(s) cut where they pad far above their size ({} cells \
                 before the cuts)",
                d.reason,
                group_digits(before.cells)
            );
        }
    }
    let one_block = one_block && cuts == 0;
    if one_block || cuts > 0 {
        stats.add(super::CLEANED_UP, 1);
    }
    // The chosen program's counts, when they are known without a run, are kept as a run's: a
    // command that runs it on the profile's inputs knows how many executions to expect.
    if let Counts::Profile(p) = &counts {
        let exact = match chosen.as_deref() {
            _ if cuts > 0 => None,
            _ if one_block => original
                .as_ref()
                .and_then(|o| one_block_counts(o, program, &counts)),
            Some("greedy") => work_counts,
            Some("unmerged") => original.as_ref().and_then(|o| counts.exact(o)),
            _ => None,
        };
        let cleaned = match one_block || cuts > 0 {
            true => std::borrow::Cow::Borrowed(&*program),
            false => {
                let mut cleaned = program.clone();
                cleanup(&mut cleaned);
                std::borrow::Cow::Owned(cleaned)
            }
        };
        if let Some(c) = exact.and_then(|c| on_layout(&c, &cleaned)) {
            p.runs.remember(&cleaned, c);
        }
    }
    stats.add("counts_derived", scorer.derived.get());
    stats.decisions = decisions;
    stats
}

/// Formation's work budget ([`super::MergeOptions::budget`]) and what the greedy search has
/// spent of it: the instructions of the candidate programs it has merged and scored (each is
/// cleaned up whole and its changed blocks lowered, so this is what the search's time grows
/// with). It counts work, not seconds: the same program and options always stop at the same
/// candidate, whatever the machine's load.
struct Budget {
    limit: u64,
    spent: u64,
}

impl Budget {
    fn exhausted(&self) -> bool {
        self.spent >= self.limit
    }

    fn charge(&mut self, candidate: &Program) {
        self.spent = self.spent.saturating_add(candidate.n_insts() as u64);
    }

    /// The record of the search stopped in `round` (`zkbc report --explain`).
    fn decision(&self, round: usize, current: Prediction) -> Decision {
        decisions::unscored(
            round,
            Subject::Budget {
                limit: self.limit,
                spent: self.spent,
            },
            current,
            Verdict::Stopped,
            format!(
                "the work budget ran out ({} instructions of candidate programs scored, \
                 --formation-budget {}): the search ends with the best formation so far, \
                 candidates not yet scored are kept",
                group_digits(u128::from(self.spent)),
                self.limit
            ),
        )
    }
}

/// `after − before` in (cells, transitions).
fn delta(before: Prediction, after: Prediction) -> (i128, i128) {
    let d = |a: u128, b: u128| {
        i128::try_from(b).unwrap_or(i128::MAX) - i128::try_from(a).unwrap_or(i128::MAX)
    };
    (
        d(before.cells, after.cells),
        d(before.transitions, after.transitions),
    )
}

fn apply_delta(x: u128, d: i128) -> u128 {
    u128::try_from(i128::try_from(x).unwrap_or(i128::MAX).saturating_add(d)).unwrap_or(0)
}
