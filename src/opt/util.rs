//! Small CFG and SSA rewriting helpers shared by the passes: creating instructions with given
//! result types, removing unreachable blocks, removing block parameters together with their
//! jump arguments, and replacing parameters that every jump binds to the same value.

use crate::fxhash::{HashMap, HashSet};

use crate::ir::ValueId;
use crate::ir::{
    BlockCall, BlockId, Function, InstData, InstId, InstKind, SrcLoc, Type, TypeId, ValueDef,
};

/// Creates an instruction whose results have the given types (unlike
/// [`Function::create_inst`], which infers them from the operands), not placed in any block.
pub(crate) fn add_inst(
    func: &mut Function,
    kind: InstKind,
    result_types: &[Type],
    loc: Option<SrcLoc>,
) -> InstId {
    let types: Vec<TypeId> = result_types
        .iter()
        .map(|ty| func.intern_type(ty.clone()))
        .collect();
    add_inst_typed(func, kind, &types, loc)
}

/// [`add_inst`] with the result types interned in `func` already.
pub(crate) fn add_inst_typed(
    func: &mut Function,
    kind: InstKind,
    result_types: &[TypeId],
    loc: Option<SrcLoc>,
) -> InstId {
    let id = InstId::new(func.insts.len());
    let results = result_types
        .iter()
        .enumerate()
        .map(|(k, &ty)| func.push_value_typed(ty, ValueDef::Result(id, k as u32)))
        .collect();
    func.insts.push(InstData::new(kind, results, loc));
    id
}

/// Removes from the layout every block the entry does not reach; returns how many.
pub(crate) fn remove_unreachable_blocks(func: &mut Function) -> usize {
    let reachable: HashSet<BlockId> = func.reverse_post_order().into_iter().collect();
    let before = func.layout.len();
    func.layout.retain(|b| reachable.contains(b));
    before - func.layout.len()
}

/// For every laid-out block, the jumps into it: (source block, index of the block call in the
/// source's terminator).
pub(crate) fn incoming_edges(func: &Function) -> HashMap<BlockId, Vec<(BlockId, usize)>> {
    let mut map: HashMap<BlockId, Vec<(BlockId, usize)>> =
        func.layout.iter().map(|b| (*b, Vec::new())).collect();
    for &b in &func.layout {
        if let Some(term) = &func.block(b).term {
            for (k, call) in term.block_calls().into_iter().enumerate() {
                map.entry(call.block).or_default().push((b, k));
            }
        }
    }
    map
}

/// The `k`th block call of `src`'s terminator: the edge `(src, k)` as [`incoming_edges`] lists it.
pub(crate) fn edge(func: &Function, src: BlockId, k: usize) -> &BlockCall {
    let term = func.block(src).term.as_ref().expect("bug: no terminator");
    term.block_calls()[k]
}

/// [`edge`], to change its arguments or target.
pub(crate) fn edge_mut(func: &mut Function, src: BlockId, k: usize) -> &mut BlockCall {
    let term = func
        .block_mut(src)
        .term
        .as_mut()
        .expect("bug: no terminator");
    term.block_calls_mut()
        .into_iter()
        .nth(k)
        .expect("bug: stale edge")
}

/// Removes the parameters of `block` for which `keep` is false, and the matching arguments of
/// every jump into it (`incoming` as given by [`incoming_edges`]).
pub(crate) fn remove_params(
    func: &mut Function,
    block: BlockId,
    keep: &[bool],
    incoming: &[(BlockId, usize)],
) {
    for &(src, k) in incoming {
        let call = edge_mut(func, src, k);
        debug_assert_eq!(call.block, block);
        let mut i = 0;
        call.args.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }
    for idx in (0..keep.len()).rev() {
        if !keep[idx] {
            func.remove_block_param(block, idx);
        }
    }
}

/// Replaces each parameter of a non-entry block that every jump binds either to one value `x` or
/// to the parameter itself by `x` (Braun et al.'s trivial phi), to a fixpoint. Such an `x`
/// dominates the block: the first arrival at the block passes `x`. Returns how many went.
pub(crate) fn replace_trivial_params(func: &mut Function) -> usize {
    let mut removed = 0;
    loop {
        let incoming = incoming_edges(func);
        let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
        let mut changed_blocks = Vec::new();
        for &b in &func.layout {
            if b == func.entry {
                continue;
            }
            let params = &func.block(b).params;
            let edges = &incoming[&b];
            if params.is_empty() || edges.is_empty() {
                continue;
            }
            let mut keep = vec![true; params.len()];
            for (idx, &p) in params.iter().enumerate() {
                let mut only: Option<ValueId> = None;
                let mut trivial = true;
                for &(src, k) in edges {
                    let arg = edge(func, src, k).args[idx];
                    if arg == p || Some(arg) == only {
                        continue;
                    }
                    if only.is_some() {
                        trivial = false;
                        break;
                    }
                    only = Some(arg);
                }
                if let (true, Some(x)) = (trivial, only) {
                    subst.insert(p, x);
                    keep[idx] = false;
                }
            }
            if keep.iter().any(|k| !k) {
                changed_blocks.push((b, keep));
            }
        }
        if changed_blocks.is_empty() {
            return removed;
        }
        for (b, keep) in changed_blocks {
            removed += keep.iter().filter(|k| !**k).count();
            remove_params(func, b, &keep, &incoming[&b]);
        }
        func.replace_uses(&subst);
    }
}
