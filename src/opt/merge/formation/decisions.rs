//! What formation decided, candidate by candidate, for `zkbc report --explain`.

use crate::fxhash::HashMap;

use super::{apply_delta, Key};
use crate::analysis::LoopForest;
use crate::cost::{group_digits, Prediction};
use crate::ir::{BlockId, FuncId, Function, Program};

/// What a decision is about.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Subject {
    /// A merge component: its blocks (head first, tail last) when it was considered.
    Component {
        /// The function.
        func: String,
        /// The head.
        head: String,
        /// The tail.
        tail: String,
        /// Every block of the component.
        blocks: Vec<String>,
        /// The source lines its instructions come from (first, last), if known.
        lines: Option<(u32, u32)>,
        /// Whether it contains a loop (unrolled when merged).
        has_loop: bool,
    },
    /// A loop rotated into one block per `per_block` iterations (its test at the end).
    Loop {
        /// The function.
        func: String,
        /// The loop's header.
        header: String,
        /// Every block of the loop.
        blocks: Vec<String>,
        /// The source lines its instructions come from (first, last), if known.
        lines: Option<(u32, u32)>,
        /// Iterations per block.
        per_block: usize,
    },
    /// A function that calls nothing merged into one block, executed once per call: a
    /// candidate of a program that still calls (functions kept as blocks, issue 33).
    Function {
        /// The function.
        func: String,
        /// Its blocks when it was considered.
        blocks: Vec<String>,
        /// The source lines its instructions come from (first, last), if known.
        lines: Option<(u32, u32)>,
    },
    /// Every function merged into one block, a move of a greedy round (the `monolithic`
    /// formation, taken early when it beats the round's best merge).
    OneBlock,
    /// The greedy search itself, stopped by its work budget (`--formation-budget`) before it
    /// had scored every candidate of the round.
    Budget {
        /// The budget: instructions of the candidate programs it may score.
        limit: u64,
        /// What it had scored when it stopped.
        spent: u64,
    },
    /// A whole-program block formation compared at the end.
    Formation {
        /// `unmerged`, `greedy`, `monolithic`, `threshold 1024`, `threshold 32768`.
        name: String,
    },
}

/// What was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Merged (a component) or chosen (a formation).
    Taken,
    /// Left as it is: it would not lower the predicted cells.
    Kept,
    /// Cannot be merged (see the reason).
    Impossible,
    /// The search stopped here ([`Subject::Budget`]).
    Stopped,
}

/// One candidate considered by cost-driven block formation, and what was decided.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Decision {
    /// The greedy round (0 for the final comparison of formations).
    pub round: usize,
    /// The candidate.
    pub subject: Subject,
    /// Predicted sumcheck cells without it (the program as it was).
    pub cells_kept: Option<u128>,
    /// Predicted sumcheck cells with it.
    pub cells_taken: Option<u128>,
    /// Predicted transitions without and with it.
    pub transitions: (Option<u128>, Option<u128>),
    /// The decision.
    pub verdict: Verdict,
    /// Why, in words.
    pub reason: String,
}

/// Records this round's candidates (`subjects`) with an estimate as kept, best first, each
/// with its predicted cells and `reason(its change in cells and transitions)`.
pub(super) fn record_kept(
    decisions: &mut Vec<Decision>,
    round: usize,
    current: Prediction,
    estimate: &HashMap<Key, (i128, i128)>,
    subjects: &HashMap<Key, Subject>,
    reason: impl Fn((i128, i128)) -> String,
) {
    let mut kept: Vec<(&Key, &(i128, i128))> = estimate
        .iter()
        .filter(|(k, _)| subjects.contains_key(*k))
        .collect();
    kept.sort();
    for (k, d) in kept {
        decisions.push(Decision {
            round,
            subject: subjects[k].clone(),
            cells_kept: Some(current.cells),
            cells_taken: Some(apply_delta(current.cells, d.0)),
            transitions: (
                Some(current.transitions),
                Some(apply_delta(current.transitions, d.1)),
            ),
            verdict: Verdict::Kept,
            reason: reason(*d),
        });
    }
}

/// Records the candidates a round did not score because their other blocks alone cost more
/// than the whole program as one block (`mono` cells), or because they merged cost at least
/// as much ([`merged_bound`]: `near_whole`).
pub(super) fn record_outrun(
    decisions: &mut Vec<Decision>,
    round: usize,
    current: Prediction,
    mono: u128,
    outrun: HashMap<Key, (Subject, u128)>,
    near_whole: HashMap<Key, (Subject, u128)>,
) {
    let mut all: Vec<(Key, (Subject, u128), bool)> = outrun
        .into_iter()
        .map(|(k, v)| (k, v, false))
        .chain(near_whole.into_iter().map(|(k, v)| (k, v, true)))
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, (subject, cells), merged) in all {
        let reason = match merged {
            false => format!(
                "not scored: the blocks it leaves alone cost {} cells, more than the whole \
                 program as one block ({})",
                group_digits(cells),
                group_digits(mono)
            ),
            true => format!(
                "not scored: merged, it would cost at least {} cells (the one block's \
                 constraints less those of the blocks it leaves alone), no fewer than the whole \
                 program as one block ({})",
                group_digits(cells),
                group_digits(mono)
            ),
        };
        decisions.push(unscored(round, subject, current, Verdict::Kept, reason));
    }
}

/// A decision about a candidate that was not scored (it cannot be merged, or cannot win).
pub(super) fn unscored(
    round: usize,
    subject: Subject,
    current: Prediction,
    verdict: Verdict,
    reason: String,
) -> Decision {
    Decision {
        round,
        subject,
        cells_kept: Some(current.cells),
        cells_taken: None,
        transitions: (Some(current.transitions), None),
        verdict,
        reason,
    }
}

/// "saves 1,234 cells" / "saves 3 transitions".
pub(super) fn saving(before: Prediction, after: Prediction) -> String {
    if after.cells < before.cells {
        format!("saves {} cells", group_digits(before.cells - after.cells))
    } else {
        format!(
            "same cells, saves {} transitions",
            group_digits(before.transitions.saturating_sub(after.transitions))
        )
    }
}

/// The source lines (first, last) of the instructions of `blocks`, if any carry one.
pub(super) fn lines_of(func: &Function, blocks: &[BlockId]) -> Option<(u32, u32)> {
    blocks
        .iter()
        .flat_map(|b| func.block(*b).insts.iter())
        .filter_map(|i| func.inst(*i).loc().map(|l| l.line))
        .fold(None, |acc: Option<(u32, u32)>, l| {
            Some(acc.map_or((l, l), |(a, b)| (a.min(l), b.max(l))))
        })
}

pub(super) fn component_subject(
    program: &Program,
    f: FuncId,
    blocks: &[BlockId],
    head: BlockId,
    tail: BlockId,
    loops: &LoopForest,
) -> Subject {
    let func = program.func(f);
    let has_loop = blocks
        .iter()
        .any(|b| loops.loop_of_header(*b).is_some() && *b != tail);
    Subject::Component {
        func: func.name.clone(),
        head: head.to_string(),
        tail: tail.to_string(),
        blocks: blocks.iter().map(ToString::to_string).collect(),
        lines: lines_of(func, blocks),
        has_loop,
    }
}
