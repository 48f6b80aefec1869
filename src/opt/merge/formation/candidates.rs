//! The greedy search's moves: the candidates of a program (merge a component, rotate a loop
//! `k` iterations a block, merge a whole function) keyed by the blocks they touch, and how one
//! is applied to a copy of the program.

use super::super::rotate::rotate_loop;
use super::super::{merge_component, MergeError};
use super::calls;
use super::decisions::{component_subject, lines_of};
use super::Subject;
use crate::analysis::{LoopForest, MergeComponents};
use crate::ir::{BlockId, FuncId, Program};

/// Unroll factors tried when rotating a loop: 1 (rotation alone) and powers of two.
const UNROLL_FACTORS: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// A transformation the greedy search can apply.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Candidate {
    /// Merge the merge component headed by this block (its blocks in the key).
    Component(BlockId),
    /// Rotate the loop headed by this block, `k` iterations per block.
    Rotate(BlockId, usize),
    /// Merge the whole function into one block (in a program that still calls, a function
    /// that calls nothing; see [`calls`]).
    Whole,
}

/// A candidate's key: its function, the transformation and the blocks it touches (a change to
/// any of them changes the key, so an untouched key still names the same code).
pub(super) type Key = (FuncId, Candidate, Vec<BlockId>);

/// A rotated loop's block holds at most this many instructions, or [`CHUNK_PER_PROGRAM`] times
/// the program's (unrolling further rarely pays: each doubling halves the executions and
/// doubles the padded size, and lowering candidates that large is what formation spends its
/// time on).
pub(super) const MIN_CHUNK_CAP: usize = 4096;
/// See [`MIN_CHUNK_CAP`].
pub(super) const CHUNK_PER_PROGRAM: usize = 4;

/// Every candidate of `work` with its subject for the record; `chunk_cap` bounds the
/// instructions of a rotated loop's block.
pub(super) fn candidates(work: &Program, chunk_cap: usize) -> Vec<(Key, Subject)> {
    let mut out = calls::whole_function_candidates(work);
    for f in work.func_ids() {
        let func = work.func(f);
        let loops = LoopForest::new(func);
        if !loops.is_reducible() {
            continue;
        }
        let mc = MergeComponents::new(func);
        for &h in &func.layout {
            if let Some(c) = mc.component(h) {
                let subject = component_subject(work, f, &c.blocks, c.head, c.tail, &loops);
                out.push(((f, Candidate::Component(h), c.blocks.clone()), subject));
            }
        }
        for l in loops.loops() {
            let mut blocks = l.blocks.clone();
            blocks.sort();
            let size: usize = blocks.iter().map(|b| func.block(*b).insts.len()).sum();
            // A loop holding another loop rotates one iteration a block: its inner loops are
            // unrolled into the body, whose size `size` does not tell, and several iterations
            // a block would multiply that again (Keccak's 24 rounds at k = 32: 29 s, 1.4 GB).
            let nested = blocks
                .iter()
                .any(|b| *b != l.header && loops.loop_of_header(*b).is_some());
            for k in UNROLL_FACTORS {
                if k > 1 && (nested || k.saturating_mul(size) > chunk_cap) {
                    break;
                }
                let subject = Subject::Loop {
                    func: func.name.clone(),
                    header: l.header.to_string(),
                    blocks: blocks.iter().map(ToString::to_string).collect(),
                    lines: lines_of(func, &blocks),
                    per_block: k,
                };
                out.push(((f, Candidate::Rotate(l.header, k), blocks.clone()), subject));
            }
        }
    }
    out
}

/// Applies the candidate to a copy of `work`, with the block a rotated loop became.
pub(super) fn apply(
    work: &Program,
    key: &Key,
    max_unrolled: usize,
) -> Result<(Program, Option<BlockId>), MergeError> {
    let mut cand = work.clone();
    let func = cand.func_mut(key.0);
    let body = match key.1 {
        Candidate::Component(h) => {
            let comp = MergeComponents::new(func)
                .component(h)
                .cloned()
                .expect("bug: a candidate component exists");
            merge_component(func, &comp, max_unrolled)?;
            None
        }
        Candidate::Rotate(h, k) => Some(rotate_loop(func, h, k, max_unrolled)?),
        Candidate::Whole => {
            super::super::merge_function(func, max_unrolled)?;
            None
        }
    };
    Ok((cand, body))
}
