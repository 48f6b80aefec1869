//! Latch blocks: a loop whose back edges come from several blocks, or from a block that ends
//! in `br`, gets one empty block they all jump to (block formation adds them before it looks
//! for candidates, so that every loop can be rotated).

use crate::analysis::LoopForest;
use crate::ir::{BlockCall, BlockId, Function, Terminator, ValueId};

/// A new block (laid out last) that takes `to`'s parameters and jumps to `to` with them.
pub(super) fn forwarder(func: &mut Function, to: BlockId) -> BlockId {
    let types: Vec<_> = func
        .block(to)
        .params
        .iter()
        .map(|p| func.value_type(*p).clone())
        .collect();
    let block = func.create_block();
    let params: Vec<ValueId> = types
        .into_iter()
        .map(|ty| func.append_block_param(block, ty))
        .collect();
    func.block_mut(block).term = Some(Terminator::Jmp(BlockCall {
        block: to,
        args: params,
    }));
    block
}

/// Gives every loop of `func` whose back edges come from several blocks, or from a block that
/// ends in `br`, one empty latch block they all jump to. Returns how many were added.
pub fn add_latches(func: &mut Function) -> usize {
    let loops = LoopForest::new(func);
    if !loops.is_reducible() {
        return 0;
    }
    let mut added = 0;
    for l in loops.loops() {
        let header = l.header;
        let single_jmp = matches!(l.latches.as_slice(),
            [only] if matches!(func.block(*only).term, Some(Terminator::Jmp(_))));
        if single_jmp {
            continue;
        }
        let latch = forwarder(func, header);
        for &src in &l.latches {
            if let Some(term) = func.block_mut(src).term.as_mut() {
                for call in term.block_calls_mut() {
                    if call.block == header {
                        call.block = latch;
                    }
                }
            }
        }
        // `create_block` laid the latch out last; put it right after the header instead.
        func.layout.retain(|b| *b != latch);
        let pos = func
            .layout
            .iter()
            .position(|b| *b == header)
            .map_or(func.layout.len(), |p| p + 1);
        func.layout.insert(pos, latch);
        added += 1;
    }
    added
}
