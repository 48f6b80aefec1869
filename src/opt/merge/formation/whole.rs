//! Step 4 of formation: the whole-program formations the greedy result is compared with (the
//! program unmerged, as one block per function, and by the threshold rule), and the choice.

use crate::fxhash::HashMap;

use super::{cleanup, executed, BlockCells, Decision, Scorer, Subject, Verdict};
use crate::cost::{group_digits, BlockCounts, Counts, Prediction};
use crate::ir::{FuncId, Program};
use crate::opt::merge::{merge_below_threshold, merge_function, ExecutedBound, MergeOptions};
use crate::opt::PassStats;
use crate::r1cs::StatsCache;

/// A whole-program formation: its name, its score and program (if it exists; the program is
/// left out where another formation listed before it is the same), and why not.
pub(super) type Formation = (String, Option<(Prediction, Option<Program>)>, String);

/// `program` merged into one block per function of the circuit (`--monolithic`: a function
/// that runs only as a `hint` is computed by the interpreter and stays as it is), cleaned up
/// and scored, or why not. Its program is the clean-up's result: what `-O3 --monolithic`
/// compiles the program to, kept for a `--monolithic` compile of the same program, which then
/// neither merges nor cleans up. With it, each function's constraints as one block.
pub(super) fn monolithic_formation(
    program: &Program,
    options: &MergeOptions,
    scorer: &Scorer<'_>,
) -> (Formation, HashMap<FuncId, u64>) {
    let mut mono = program.clone();
    let mut why = String::new();
    // A program that still calls (functions kept as blocks, issue 33): each function that
    // calls stays as it is, every other one becomes one block executed once per call (a
    // partial `--monolithic`, never cached as the one-block program).
    let calling: Vec<bool> = program.funcs.iter().map(|f| f.has_calls()).collect();
    let partial = calling.iter().any(|c| *c);
    let cache = options.one_block.as_ref().filter(|_| !partial);
    let circuit = program.circuit_funcs();
    let ok = mono.func_ids().collect::<Vec<_>>().into_iter().all(|f| {
        let i = f.index();
        if calling.get(i).copied().unwrap_or(false) || !circuit.get(i).copied().unwrap_or(true) {
            return true;
        }
        let merged = merge_function(mono.func_mut(f), options.max_unrolled);
        // A merge that fails is kept for a `--monolithic` compile of the same program (a
        // report's one-block circuit), which then does not try it again; one that succeeds
        // reaches it as the whole program cleaned up, kept below.
        if let (Some(cache), Err(e)) = (cache, &merged) {
            cache.remember(f, options.max_unrolled, Err(e.clone()));
        }
        match merged {
            Ok(_) => true,
            Err(e) => {
                why = e.reason();
                false
            }
        }
    });
    if !ok {
        return (("monolithic".into(), None, why), HashMap::default());
    }
    let known = one_block_counts(program, &mono, scorer.counts);
    cleanup(&mut mono);
    if let Some(cache) = cache {
        cache.remember_cleaned(options.max_unrolled, mono.clone());
    }
    let mut constraints: HashMap<FuncId, u64> = HashMap::default();
    let scored = scorer
        .score_cleaned(&mono, known.as_ref())
        .map(|(p, cells)| {
            for ((f, _), (_, c, _)) in cells {
                *constraints.entry(f).or_default() += c;
            }
            (p, Some(mono))
        });
    (("monolithic".into(), scored, why), constraints)
}

/// The counts of `mono`, `program` with each function merged into one block, from the exact
/// counts of `program`: each function's block runs once per call, as often as its entry did.
pub(super) fn one_block_counts(
    program: &Program,
    mono: &Program,
    counts: &Counts,
) -> Option<BlockCounts> {
    let counts = counts.exact(program)?;
    // A function the merge left alone (one that calls, or runs only as a `hint`) runs its
    // blocks as it did.
    let entry = |f: FuncId| counts.get(&(f, program.func(f).entry)).copied();
    counts_by_function(mono, entry, |_| true, &counts)
}

/// The counts of `program`, each of whose functions is one block run `entry(f)` times, or a
/// function `left_alone(f)` whose blocks run as `before` counts them; `None` where one is
/// neither or a count is missing.
pub(super) fn counts_by_function(
    program: &Program,
    entry: impl Fn(FuncId) -> Option<u64>,
    left_alone: impl Fn(FuncId) -> bool,
    before: &BlockCounts,
) -> Option<BlockCounts> {
    let mut known = BlockCounts::default();
    for f in program.func_ids() {
        let func = program.func(f);
        if func.layout.len() == 1 {
            known.insert((f, func.entry), entry(f)?);
        } else if left_alone(f) {
            for &b in &func.layout {
                known.insert((f, b), *before.get(&(f, b))?);
            }
        } else {
            return None;
        }
    }
    Some(known)
}

/// A formation by the threshold rule: its MIN_BLOCK_SIZE, the program and, when scored with
/// static counts where it was formed, its score (`Some(None)`: it cannot be lowered).
pub(super) type ThresholdFormation = (u64, Program, Option<Option<Prediction>>);

/// The threshold rule's formations of `base` at MIN_BLOCK_SIZE 1024 and 32768, each scored
/// with static counts when `score` is given (the counts of a profile are not `Send`: their
/// scoring waits for the thread that has them), from `base`'s own when it holds them (exact
/// when every block's is known; a formation's follow from them, see [`choose_formation`]).
/// The rule reads the minimum size only through the threshold max(size, next_pow2(largest
/// block)): where a block of more than 16,384 constraints makes the two thresholds one, the two
/// formations are one, formed and scored once. The two are independent, and formed side by
/// side.
pub(super) fn threshold_formations(
    base: &Program,
    cache: &std::sync::Arc<StatsCache>,
    max_unrolled: usize,
    score: Option<Option<BlockCounts>>,
) -> Vec<ThresholdFormation> {
    let threshold_at = |size: u64| {
        let mut t = base.clone();
        let o = MergeOptions {
            min_block_size: size,
            max_unrolled,
            stats_cache: Some(crate::r1cs::SharedStatsCache(cache.clone())),
            lower: cache.options(),
            ..MergeOptions::default()
        };
        merge_below_threshold(&mut t, &o);
        let scored = score.as_ref().map(|known| {
            let scorer = Scorer {
                counts: &Counts::Static,
                cache: cache.clone(),
                derived: Default::default(),
            };
            scorer.score(&t, known.as_ref())
        });
        (size, t, scored)
    };
    let [low, high] = THRESHOLD_SIZES;
    let lower = cache.options();
    let one_rule = crate::opt::merge::threshold_with(base, low, Some(&**cache), lower)
        == crate::opt::merge::threshold_with(base, high, Some(&**cache), lower);
    if one_rule {
        let (_, t, scored) = threshold_at(low);
        vec![(low, t.clone(), scored), (high, t, scored)]
    } else {
        let (a, b) = rayon::join(|| threshold_at(low), || threshold_at(high));
        vec![a, b]
    }
}

/// How the reason for a formation that was not formed starts.
pub(super) const NOT_FORMED: &str = "not formed";

/// The MIN_BLOCK_SIZEs of the threshold formations compared at the end.
pub(super) const THRESHOLD_SIZES: [u64; 2] = [1024, 32768];

/// Whether the threshold formations are formed and compared, given the greedy round that took
/// the whole program as one block (if one did). Not when the first round took it: the one block
/// then beat the program as it was and every single merge the round scored, and a threshold
/// formation lies between the two (some of those merges, made together). That is not a proof
/// (merges made together can fold what each alone cannot), but it held on every program
/// measured: the corpus, where `tests/merge_corpus.rs` holds the default to both threshold
/// baselines, and the application benchmark, where the threshold formations lost by 3 to
/// 65,000 times and cost more to form than the rest of formation.
pub(super) fn thresholds_needed(one_block_round: Option<usize>) -> bool {
    one_block_round != Some(1)
}

/// Step 4 of the module doc: the best of the greedy result and the other formations, whose
/// name it returns. `cells`: the unmerged program's block cells, and the greedy result's when
/// known; `bound`: `-O0`'s executed constraints ([`choose_within`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn choose_formation(
    program: &mut Program,
    (greedy, greedy_score): (Program, Prediction),
    unmerged: Option<Prediction>,
    monolithic: Formation,
    thresholds: Vec<ThresholdFormation>,
    (scorer, base_counts): (&Scorer<'_>, Option<&BlockCounts>),
    (cells, bound): ((&BlockCells, Option<&BlockCells>), Option<&ExecutedBound>),
    decisions: &mut Vec<Decision>,
    stats: &mut PassStats,
) -> Option<String> {
    let mut formations: Vec<Formation> = vec![
        (
            "unmerged".into(),
            unmerged.map(|p| (p, Some(program.clone()))),
            String::new(),
        ),
        (
            "greedy".into(),
            Some((greedy_score, Some(greedy))),
            String::new(),
        ),
    ];
    formations.push(monolithic);
    if thresholds.is_empty() {
        for size in THRESHOLD_SIZES {
            formations.push((
                format!("threshold {size}"),
                None,
                format!(
                    "{NOT_FORMED}: the whole program as one block beat every merge of the first \
                     round"
                ),
            ));
        }
    }
    crate::timing::stage("formation: threshold scores", || {
        for (size, t, score) in thresholds {
            // Scored on the forming thread with static counts, here with the profile's. Their
            // counts follow from the program's as it came (`base_counts`: a profile's run, or
            // the static counts when every block's is known), without a run: the rule merges
            // components, and a merged component keeps its head's block, which runs as often
            // as the head did; every other block it keeps is untouched, and the clean-up
            // changes no kept block's count. A block the counts do not name (none is expected)
            // makes the scorer run the formation instead.
            let score = score.unwrap_or_else(|| scorer.score(&t, base_counts));
            formations.push((
                format!("threshold {size}"),
                score.map(|p| (p, Some(t))),
                String::new(),
            ));
        }
    });
    let (best, over) = choose_within(program, &formations, (scorer, base_counts), cells, bound);
    let best_score = best.and_then(|i| formations[i].1.as_ref().map(|(p, _)| *p));
    for (i, (name, s, why)) in formations.iter().enumerate() {
        let taken = Some(i) == best;
        let (verdict, reason) = if let Some(&(_, e, b)) = over.iter().find(|(j, _, _)| *j == i) {
            (
                Verdict::Kept,
                format!(
                    "executes {} constraints, more than -O0's {} (and than the program \
                     unmerged)",
                    group_digits(e),
                    group_digits(b)
                ),
            )
        } else {
            let verdict = match (taken, s) {
                (true, _) => Verdict::Taken,
                (false, Some(_)) => Verdict::Kept,
                (false, None) if why.starts_with(NOT_FORMED) => Verdict::Kept,
                (false, None) => Verdict::Impossible,
            };
            let reason = match (taken, s) {
                (true, _) if over.is_empty() => "the fewest predicted cells".into(),
                (true, _) => "the fewest predicted cells of the formations that execute at most \
                              -O0's constraints"
                    .into(),
                (false, Some((p, _))) if best_score.is_some_and(|b| p.cells == b.cells) => {
                    "as many predicted cells as the chosen formation, more transitions or later in \
                     this list"
                        .into()
                }
                (false, Some(_)) => "more predicted cells than the chosen formation".into(),
                (false, None) if !why.is_empty() => why.clone(),
                (false, None) => "cannot be lowered".into(),
            };
            (verdict, reason)
        };
        decisions.push(Decision {
            round: 0,
            subject: Subject::Formation { name: name.clone() },
            cells_kept: None,
            cells_taken: s.as_ref().map(|(p, _)| p.cells),
            transitions: (None, s.as_ref().map(|(p, _)| p.transitions)),
            verdict,
            reason,
        });
    }
    if let Some(i) = best {
        let (name, s, _) = formations.swap_remove(i);
        let (_, chosen) = s.expect("the best formation has a score");
        let chosen = chosen.expect("bug: a formation without its program ties one before it");
        let before: usize = program.funcs.iter().map(|f| f.layout.len()).sum();
        let after: usize = chosen.funcs.iter().map(|f| f.layout.len()).sum();
        *program = chosen;
        stats.add("blocks_merged", before.saturating_sub(after));
        stats.add(formation_counter(&name), 1);
        return Some(name);
    }
    None
}

/// The formation to take: the one with the fewest predicted cells (ties: fewer transitions,
/// then the earlier in the list) among those that execute no more constraints than the program
/// unmerged or than `-O0` (`bound`, asked only for a formation above the unmerged program's);
/// the fewest cells of all when there is no bound (no profile) or none qualifies. With it, the
/// formations passed over for their executed constraints: (index, executed, bound).
///
/// Merging both arms of a branch into one block runs both every time: fewer cells, more
/// executed constraints. Against `-O0` that trade is not free: a program whose passes barely
/// shrank it can end above `-O0`'s executed constraints (seeds 245, 460, 879, 1315 and 1837 of
/// `tests/opt_levels_monotone.rs`), so formation does not take it. The unmerged program (the
/// passes' result) always qualifies: formation adds no executed constraints to it.
fn choose_within(
    program: &Program,
    formations: &[Formation],
    (scorer, base_counts): (&Scorer<'_>, Option<&BlockCounts>),
    (unmerged, greedy): (&BlockCells, Option<&BlockCells>),
    bound: Option<&ExecutedBound>,
) -> (Option<usize>, Vec<(usize, u128, u128)>) {
    let mut order: Vec<(Prediction, usize)> = formations
        .iter()
        .enumerate()
        .filter_map(|(i, (_, s, _))| s.as_ref().map(|(p, _)| (*p, i)))
        .collect();
    order.sort_unstable();
    let first = order.first().map(|&(_, i)| i);
    let Some(bound) = bound else {
        return (first, Vec::new());
    };
    let floor = executed(unmerged);
    // Σ runs · constraints of formation `i`: known for the unmerged program and the greedy
    // result (when not one block), else scored (its blocks are in the cache): the one block
    // (the greedy result that took it, or `monolithic`) is cleaned up already and its counts
    // follow from `program`'s, a threshold formation's from `base_counts`. A formation without
    // its program is the same as one before it (judged there).
    let executed_of = |i: usize| -> Option<u128> {
        let (name, s, _) = &formations[i];
        let formed = || s.as_ref().and_then(|(_, p)| p.as_ref());
        let scored = match (name.as_str(), greedy) {
            ("unmerged", _) => return Some(floor),
            ("greedy", Some(cells)) => return Some(executed(cells)),
            ("greedy" | "monolithic", _) => {
                let one = formed()?;
                let known = one_block_counts(program, one, scorer.counts);
                scorer.score_cleaned(one, known.as_ref())
            }
            _ => scorer.score_by_block(formed()?, base_counts),
        };
        scored.map(|(_, cells)| executed(&cells))
    };
    let mut over = Vec::new();
    for &(_, i) in &order {
        let Some(e) = executed_of(i) else {
            continue;
        };
        if e <= floor {
            return (Some(i), over);
        }
        match bound.allows(e) {
            Err(Some(b)) => over.push((i, e, b)),
            _ => return (Some(i), over),
        }
    }
    (first, Vec::new())
}

pub(super) fn formation_counter(name: &str) -> &'static str {
    match name {
        "unmerged" => "formation_unmerged",
        "greedy" => "formation_greedy",
        "monolithic" => "formation_monolithic",
        _ => "formation_threshold",
    }
}
