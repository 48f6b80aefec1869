//! Splitting a block that pads far above its size: the last step of block formation.
//!
//! A block of `c` constraints pads to `X = next_pow2(c)` per execution. When `c` is just past
//! a power of two (1,126 constraints pad to 2,048), the same instructions as two blocks, a
//! prefix of at most `X/2` constraints and the rest, pad to `X/2 + next_pow2(rest)` plus one
//! more transition state per execution, which can be far fewer cells. `-O2`'s passes and
//! formation's merges join blocks without looking at where the join pads (an `-O0` program of
//! blocks of 330, 37 and 905 constraints, 1,824 cells, became one block of 1,126 and 2,048
//! cells: issue 34, item 2); this step takes such joins back where that pays.
//!
//! # Algorithm
//!
//! On the chosen formation, cleaned up and scored, each executed block with
//! `c > MIN_SPLIT` and `c <= 3X/4` (so the rest pads to at most `X/4` and a split can gain)
//! is tried, most padded cells first: the cut is an instruction boundary where the prefix,
//! lowered as a block of its own (the values the rest uses become its output state), has at
//! most `X/2` constraints, as late as the search finds. Each probe
//! lowers the prefix and the rest of a copy of the program on which `sccp` ran once more, with
//! the cut (one copy per split, cut in place and restored: see [`cut`]), through the
//! formation's [`StatsCache`](crate::r1cs::StatsCache), which is as dear as lowering the
//! block, so the probes are few: the cache kept the block's constraints by the instruction
//! that emitted them when it lowered it, the prefix's size is estimated from those counts and
//! corrected by what each probe finds (at most four; a binary search of `log2(n)` probes only
//! when none of them fits: [`cut`]); once a probe fits, no more are made when moving the cut
//! up to the limit could not change what the rest pads to ([`no_later_gain`]). Work: one
//! copy and `sccp` of the program and, per probe, the lowering of the prefix and of the rest
//! (the two in parallel), about the block's lowering; usually one or two probes per block.
//! (With the binary search alone, `sha256_merkle16`'s one block of about 700,000 constraints
//! took 18 probes and 14.8 s of a 18.5 s report.) In `main`'s entry block, where
//! even the first instruction does not fit, the prefix may hold none: the range checks of
//! `main`'s inputs alone, `-O0`'s entry block (a `urem` or a field comparison on the inputs
//! that pads the whole block past twice the halves). The program with the cut is
//! cleaned up and scored like every candidate; it is kept only when it has **fewer predicted
//! cells and no more executed constraints than `-O0`** (`Σ runs · constraints`). A cut adds
//! executed constraints at the boundary: the new block's label check and the jump to it, and
//! a value whose bits the prefix knew enters the rest as a wire whose bits lowering does not
//! know (facts do not cross blocks): 2 to 8 per execution on the random programs measured. A
//! program `-O2` shrank far below `-O0` has room for them, one it barely changed may not
//! (seeds 262 and 1494 of `tests/opt_levels_monotone.rs` are the same shape, 5 constraints
//! below and 5 above `-O0` after the cut), and nothing formation knows tells the two apart:
//! so `-O0`'s count is asked for ([`ExecutedBound`], from `driver::bound`, compiled and run
//! at most once, on a thread of its own started when the first block is tried, beside the
//! probes, and asked only when a cut would raise the count). Without it (a `report` without
//! inputs, `compile`, `check`) no cut is tried: none could add executed constraints, and a cut
//! nearly always does.
//! The new block is
//! marked [`BlockData::split`](crate::ir::BlockData::split), so `simplify_cfg` leaves it
//! apart. At most [`MAX_SPLITS`] cuts per program.
//!
//! The new block runs exactly as often as the block it came from, so its counts follow
//! without a run (a debug build checks them against one).

use super::{cleanup, executed, BlockCells, Scorer};
use crate::cost::{padded_constraints, BlockCounts, Prediction};
use crate::ir::{BlockCall, BlockId, FuncId, Program, Terminator};
use crate::opt::merge::ExecutedBound;
use crate::r1cs::attribute::PositionCounts;

/// Blocks of at most this many constraints are not split: the transition a cut adds costs
/// about as much as the padding it could save.
const MIN_SPLIT: u64 = 64;

/// Most cuts per program.
const MAX_SPLITS: usize = 8;

/// Splits blocks of `program`, the chosen formation, where that lowers the predicted cells
/// without raising the executed constraints above `bound` (nothing is tried without one);
/// `cleaned`: whether the clean-up has run on it already; `known`: its execution counts when
/// the search knows them (else a run finds them); `hint`: its block cells when the search
/// knows them (no block a cut could help: nothing is done). Returns the number of cuts and
/// the predictions before and after them; with any, `program` is the cleaned-up program with
/// the cuts.
pub(super) fn split_padded(
    program: &mut Program,
    scorer: &Scorer<'_>,
    (cleaned, known): (bool, Option<&BlockCounts>),
    hint: Option<&BlockCells>,
    bound: Option<&ExecutedBound>,
) -> (usize, Option<(Prediction, Prediction)>) {
    // Without `-O0`'s count no cut may add executed constraints, and a cut's boundary nearly
    // always adds some: finding the cut would lower the block's prefix about `log2(n)` times,
    // each about as dear as lowering the block (on the t7 Poseidon reproducer that doubled the
    // report's instructions, and on `grumpkin_pedersen` it was 290 of 540 ms), for nothing (no
    // corpus, application or reproducer program keeps a cut without it).
    let Some(bound) = bound else {
        return (0, None);
    };
    if hint.is_some_and(|h| candidate(h, &[]).is_none()) {
        return (0, None);
    }
    // The program as formation chose it, cleaned up.
    let mut chosen = std::borrow::Cow::Borrowed(&*program);
    if !cleaned {
        cleanup(chosen.to_mut());
    }
    // The clean-up keeps every block's count (`Scorer::score_counted`); a block it removes
    // leaves `known` incomplete, and the scoring runs the program instead. `scored`: the
    // prediction, block cells and execution counts of the program with the cuts kept so far.
    let Some(mut scored) = scorer.score_counted(&chosen, known) else {
        return (0, None);
    };
    let before = scored.0;
    // The program the probes cut: `chosen` after one more `sccp` (see [`cut`]), made when the
    // first block is tried, with the cuts kept so far; cut in place and restored after every
    // probe and every cut not kept (a copy of a large unrolled program costs tens of
    // milliseconds).
    let mut work: Option<Program> = None;
    let mut cuts = 0;
    let mut tried: Vec<(FuncId, BlockId)> = Vec::new();
    while cuts < MAX_SPLITS {
        let Some((f, b, c)) = candidate(&scored.1, &tried) else {
            break;
        };
        tried.push((f, b));
        bound.begin(executed(&scored.1));
        let x = padded_constraints(c).unwrap_or(u64::MAX);
        let w = work.get_or_insert_with(|| {
            let mut w = chosen.clone().into_owned();
            fold_again(&mut w);
            w
        });
        // The estimates read the block as it was scored: `chosen`'s until a cut is kept.
        let given = if cuts == 0 { &*chosen } else { &*w };
        let Some(at) = positions(given, w, f, b) else {
            continue;
        };
        let by_position = scorer.cache.position_counts(given, f, b);
        let Some(nb) = cut(w, by_position.ok().as_deref(), &at, scorer, (f, b), x / 2) else {
            continue;
        };
        // The new block runs as often as `b`; every other block as before.
        let mut known = scored.2.clone();
        known.insert((f, nb), scored.1[&(f, b)].2);
        match scorer.score_counted(w, Some(&known)) {
            Some(after) if better(&scored, &after, Some(bound)) => {
                scored = after;
                cuts += 1;
            }
            _ => unsplit(w, f, b, nb),
        }
    }
    if cuts > 0 {
        *program = work.expect("bug: the cuts kept are in the program the probes cut");
    }
    (cuts, Some((before, scored.0)))
}

/// A program's prediction, block cells and execution counts ([`Scorer::score_counted`]).
type Scoring = (Prediction, BlockCells, BlockCounts);

/// Whether `after` has fewer predicted cells than `before`, and no more executed constraints
/// or at most `bound`'s.
fn better(before: &Scoring, after: &Scoring, bound: Option<&ExecutedBound>) -> bool {
    let (e0, e1) = (executed(&before.1), executed(&after.1));
    after.0.cells < before.0.cells && (e1 <= e0 || bound.is_some_and(|b| b.allows(e1).is_ok()))
}

/// The executed block not tried yet with the most padding cells that a cut could save.
fn candidate(cells: &BlockCells, tried: &[(FuncId, BlockId)]) -> Option<(FuncId, BlockId, u64)> {
    cells
        .iter()
        .filter(|(k, &(_, c, r))| {
            let x = padded_constraints(c).unwrap_or(u64::MAX);
            r > 0 && c > MIN_SPLIT && 4 * c <= 3 * x && !tried.contains(k)
        })
        .max_by_key(|(&k, &(cells, c, _))| {
            let x = u128::from(padded_constraints(c).unwrap_or(u64::MAX));
            // The padding of one execution's share, times the executions' padded count.
            (cells / x * (x - u128::from(c)), std::cmp::Reverse(k))
        })
        .map(|(&(f, b), &(_, c, _))| (f, b, c))
}

/// Exact probes [`cut`] makes from the block's attribution before it falls back to a binary
/// search.
const ESTIMATED_PROBES: usize = 4;

/// Cuts `b` of `program` after its first `k` instructions, for a `k` such that the prefix, as
/// a block of its own, has at most `limit` constraints, as large as the search finds, and
/// returns the new block; `None` (and `program` as it was) when no cut of at least one
/// instruction on each side fits, but for `main`'s entry block, whose prefix of no instruction
/// still holds the range checks of `main`'s inputs: the cut at 0 when that fits. `counts`: the
/// block's constraints by position as it was scored, `at` where those positions fall in
/// `program`'s block ([`positions`]).
///
/// Each exact probe lowers the prefix and the rest (in parallel; the scoring after finds both
/// in the cache): as dear as lowering the block. So the probes are few. The block's
/// constraints by the instruction that emitted them are known from its scoring
/// ([`StatsCache::position_counts`](crate::r1cs::StatsCache), kept for large blocks); the
/// prefix of `k` instructions is estimated as the constraints the whole block's first `k`
/// instructions keep plus its transition's. The first probe is at the largest `k` whose
/// estimate is below `limit` by a margin of `limit / 128`; each probe tells the estimate's
/// error there (a prefix alone binds the values the rest reads as its output state, and
/// elimination substitutes differently without the rest), which the next estimate subtracts,
/// aiming at `limit` itself once a cut fits: at most [`ESTIMATED_PROBES`] probes, the latest
/// that fits kept. Only when none of them fits does a binary search over the instructions
/// (`log2(n)` probes) decide.
///
/// The probes cut `program` in place and take each cut back. It is the chosen program after one
/// more `sccp` ([`split_padded`]): the clean-up's later passes hand `sccp` constants it folds
/// the next time (`gvn` forwards an array's element, the last `simplify_cfg` a block argument:
/// 3 constraints of a Poseidon prefix, 891 instructions of `sha256_preimage`). After that a
/// cut changes nothing `sccp` would (its facts do not stop at a block's end; a debug build
/// checks it on every cut made), so the program is copied and folded once, not once per
/// probe. Only `sccp`, not the whole clean-up again: on every program with inputs (corpus and
/// applications) the cuts and their cells are the same, and `gvn` and `ranges` over a large
/// unrolled block cost tens of milliseconds.
fn cut(
    program: &mut Program,
    counts: Option<&PositionCounts>,
    at: &[usize],
    scorer: &Scorer<'_>,
    (f, b): (FuncId, BlockId),
    limit: u64,
) -> Option<BlockId> {
    let n = at.len() - 1;
    let inputs_checked = f == program.main && b == program.func(f).entry;
    let mut probe = |k: usize| -> Option<(u64, u64)> {
        let nb = split_at(program, f, b, at[k]);
        let sizes = halves(scorer, program, f, (b, nb));
        unsplit(program, f, b, nb);
        Some((sizes.0?, sizes.1?))
    };
    // `best`: the latest cut known to fit (`lo` instructions; 0: none yet); `hi`: the
    // earliest known not to, or `n`.
    let (mut lo, mut hi, mut best) = (0, n, None);
    if let Some(counts) = counts {
        // `prefix[k]`: the estimate of the first `k` instructions as a block.
        let mut per_position = vec![0u64; n];
        let mut fixed = 0u64;
        for &(origin, c) in counts.iter() {
            match per_position.get_mut(origin as usize) {
                Some(slot) => *slot += c,
                None => fixed += c,
            }
        }
        let prefix: Vec<u64> = std::iter::once(fixed)
            .chain(per_position.iter().scan(fixed, |acc, &c| {
                *acc += c;
                Some(*acc)
            }))
            .collect();
        // A probe at the largest `k` the estimate fits under `limit` misses by a few tenths of
        // a percent either way (on the applications: +20 of 8,192, +145 of 65,536, +166 of
        // 524,288), so the first aims that much lower and nearly always fits. Then the search
        // goes on up: a later cut leaves the rest smaller, to pad less or to be cut again
        // (`sha256_preimage`: 65,536 -> 49,216 -> 45,184 cells).
        let margin = i128::from(limit / 128);
        let mut error: i128 = 0;
        for _ in 0..ESTIMATED_PROBES {
            // The largest `k` below `hi` the estimate fits under the target: below the limit
            // by the margin until a cut fits, then at the limit (the size a prefix has is not
            // monotone in `k`: the latest cut that fits may be far later than the estimate
            // says, `battleship`'s 3,294 constraints where it said 4,000).
            let target = i128::from(limit) - error - if best.is_none() { margin } else { 0 };
            let k = prefix[..hi]
                .partition_point(|&p| i128::from(p) <= target)
                .saturating_sub(1);
            if k == 0 || k <= lo {
                break;
            }
            match probe(k) {
                Some((c, rest)) if c <= limit => {
                    (lo, best) = (k, Some(k));
                    if no_later_gain(rest, limit - c, limit) {
                        break;
                    }
                    error = i128::from(c) - i128::from(prefix[k]);
                }
                Some((c, _)) => {
                    hi = k;
                    error = i128::from(c) - i128::from(prefix[k]);
                }
                None => hi = k,
            }
        }
    }
    if best.is_none() {
        let mut fits = |k: usize| probe(k).is_some_and(|(c, _)| c <= limit);
        // Invariant: `lo` fits (`best`), and `hi` does not fit or is `n`.
        lo = 1;
        best = (n >= 2 && hi > lo && fits(lo)).then_some(lo);
        if best.is_none() {
            // The inputs' range checks alone before the cut: `-O0`'s entry block when the first
            // instruction is dear (seeds 351 and 1905 of `tests/opt_levels_monotone.rs`: one
            // `urem` or a field `lt`, whose block pads to twice what the two halves do).
            best = (inputs_checked && n >= 1 && fits(0)).then_some(0);
        } else {
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                match fits(mid) {
                    true => (lo, best) = (mid, Some(mid)),
                    false => hi = mid,
                }
            }
        }
    }
    let nb = split_at(program, f, b, at[best?]);
    if cfg!(debug_assertions) {
        let mut again = program.clone();
        fold_again(&mut again);
        assert_eq!(
            halves(scorer, program, f, (b, nb)),
            halves(scorer, &again, f, (b, nb)),
            "bug: sccp changes a cut of a program it folded\n{program}"
        );
    }
    Some(nb)
}

/// What the probes' program gets on top of the clean-up (see [`cut`]), and what a debug build
/// checks a cut leaves alone: one more `sccp`.
fn fold_again(program: &mut Program) {
    crate::opt::sccp::run(program);
}

/// The constraints of the two halves `(b, nb)` of a cut block, lowered together through the
/// formation's cache (`None`: a half that does not lower).
fn halves(
    scorer: &Scorer<'_>,
    program: &Program,
    f: FuncId,
    (b, nb): (BlockId, BlockId),
) -> (Option<u64>, Option<u64>) {
    let mut sizes = scorer
        .cache
        .blocks(program, f, &[b, nb])
        .into_iter()
        .map(|r| r.ok().map(|s| s.constraints as u64));
    (sizes.next().flatten(), sizes.next().flatten())
}

/// Where the cut after each of the first `k` instructions of `b` in `given` falls in `b` of
/// `work`, a copy of it that `sccp` folded (which removes instructions in place and keeps the
/// order of the others; an instruction it made goes with the one before it): `at[k]`, for
/// `k` from 0 to the length of `given`'s block. `None` when the block was removed.
fn positions(given: &Program, work: &Program, f: FuncId, b: BlockId) -> Option<Vec<usize>> {
    let func = work.funcs.get(f.index())?;
    if !func.layout.contains(&b) {
        return None;
    }
    let given = &given.func(f).block(b).insts;
    let insts = &func.block(b).insts;
    if given == insts {
        return Some((0..=given.len()).collect());
    }
    let position: crate::fxhash::FxMap<_, usize> =
        given.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let mut at = vec![0; given.len() + 1];
    let mut last = 0;
    for (k, i) in insts.iter().enumerate() {
        last = position.get(i).copied().unwrap_or(last);
        at[last + 1] = k + 1;
    }
    for k in 1..at.len() {
        at[k] = at[k].max(at[k - 1]);
    }
    Some(at)
}

/// Whether no later cut could save padding: a cut leaves a prefix `gap` constraints below
/// `limit` and a rest of `rest`; a later cut moves at most `gap` constraints (and the
/// estimate's error, `limit / 256`) from the rest to the prefix, so when the rest comes to the
/// same padded size at both ends (cut again where that pays: [`eventual_padded`]), the probes
/// a later cut would take are not made (`eddsa_vote`: one probe of 65,157 constraints where
/// the limit is 65,536 leaves a rest of about 8,100 that pads to 8,192 however late the cut;
/// three more probes found 65,419, for the same cells).
fn no_later_gain(rest: u64, gap: u64, limit: u64) -> bool {
    let reach = rest.saturating_sub(gap.saturating_add(limit / 256));
    eventual_padded(rest) == eventual_padded(reach)
}

/// The padded constraints per execution a block of `c` constraints comes to once cut where a
/// cut saves padding (a prefix of half its padded size, the rest again), leaving out what the
/// cuts add: monotone in `c`.
fn eventual_padded(c: u64) -> u64 {
    let x = padded_constraints(c).unwrap_or(u64::MAX);
    if c <= MIN_SPLIT || 4 * c > 3 * x {
        return x;
    }
    (x / 2).saturating_add(eventual_padded(c - x / 2)).min(x)
}

/// Moves the instructions of `b` from the `k`-th on and its terminator to a new block right
/// after it in the layout, marked [`split`](crate::ir::BlockData::split), and ends `b` with a
/// jump to it. Returns the new block.
fn split_at(program: &mut Program, f: FuncId, b: BlockId, k: usize) -> BlockId {
    let func = &mut program.funcs[f.index()];
    let nb = func.create_block();
    func.layout.pop();
    let at = func
        .layout
        .iter()
        .position(|&x| x == b)
        .map_or(0, |p| p + 1);
    func.layout.insert(at, nb);
    let block = func.block_mut(b);
    let rest = block.insts.split_off(k.min(block.insts.len()));
    let term = block.term.replace(Terminator::Jmp(BlockCall {
        block: nb,
        args: Vec::new(),
    }));
    let term_loc = block.term_loc;
    let new = func.block_mut(nb);
    new.insts = rest;
    new.term = term;
    new.term_loc = term_loc;
    new.split = true;
    nb
}

/// Takes back [`split_at`]'s cut: the instructions and terminator of `nb`, the last block
/// made, go back to the end of `b`, and `nb` leaves the function.
fn unsplit(program: &mut Program, f: FuncId, b: BlockId, nb: BlockId) {
    let func = &mut program.funcs[f.index()];
    debug_assert_eq!(
        nb.index() + 1,
        func.blocks.len(),
        "the cut's block is the last made"
    );
    let new = func.blocks.pop().expect("bug: the cut's block exists");
    func.layout.retain(|&x| x != nb);
    let block = func.block_mut(b);
    block.insts.extend(new.insts);
    block.term = new.term;
}
