//! Loop rotation and partial unrolling: a loop becomes one block per `k` iterations, its test
//! at the end (a do-while), entered after one copy of the test. For a loop whose bound is a
//! run-time value this is the only way to merge it: one transition per `k` iterations instead
//! of two per iteration (the header's and the body's), and the header's pass-through of the
//! whole state is paid once per chunk, not once per iteration.
//!
//! # Algorithm
//!
//! The loop `L` has header `h` ending in `br c, T(..), E(..)` with `T` in `L` and `E` outside,
//! every exit from `h`, one back edge (from a latch ending in `jmp h`: block formation adds
//! such latches), no `return` and no call inside. When `T` or `E` is entered from elsewhere
//! too, the edge from `h` is split by a forwarding block first.
//!
//! 1. **Explicit state.** Every value of `h` used outside `h` becomes a parameter of `T` (for
//!    the uses `T` dominates) and of `E` (for those `E` dominates), passed by `h`'s branch; so
//!    nothing outside `h` names a value of `h` any more.
//! 2. **Rotate.** `h'`, a copy of `h` with fresh values, ends the body: the latch jumps to `h'`
//!    instead of `h`, and `h'` branches to `T` (stay) or `E` (leave). `h` now runs once per
//!    entry of the loop (the zero-trip test), the loop is `T ... h'` with header `T`.
//! 3. **One block.** Block parameters every jump binds to one value become that value (so a
//!    counted inner loop whose start reaches `T` through the split edge keeps its constant
//!    bound), then `T ... h'` is merged into `T`, one merge component at a time (the nearest
//!    tail of `T` may be the join of an `if` in the body; each merge moves it on until it is
//!    `h'`): the loop is the single block `T(s): body; test; br c', T(s'), E(x)` (a counted
//!    inner loop unrolled).
//! 4. **Unroll by k.** For `k ≥ 2`, `T` is copied `k` times in a chain `T1 → T2 → … → Tk`
//!    (each stays into the next copy, the last back to `T1`), all leaving — and `Tk`'s stay —
//!    through a new join `J(stay: u1, s, x): br stay, T1(s), E(x)`, whose unused arguments on
//!    each edge are values of the right type at hand. `T1 … J` is a merge component: merged,
//!    iteration `j` runs under the guard "the loop stayed through iteration `j − 1`", its
//!    failure points guarded, and the chunk ends in `br stay, T1(s), E(x)` with `x` the exit
//!    values of the iteration that left.
//!
//! ```text
//! b1(v1: u32, v2: field):            b1(v1: u32, v2: field):        ; the zero-trip test
//!     v3 = eq v1, v0                     v3 = eq v1, v0
//!     br v3, b3(), b2()                  br v3, b3(v2), b2(v1, v2)
//! b2():                       ==>    b2(v4: u32, v5: field):        ; k = 1
//!     v6 = mul v2, v2                    v6 = mul v5, v5
//!     v7 = add nuw v1, u32 1             v7 = add nuw v4, u32 1
//!     jmp b1(v7, v6)                     v8 = eq v7, v0
//! b3():                                  br v8, b3(v6), b2(v7, v6)
//!     return v2                      b3(v9: field):
//!                                        return v9
//! ```

use crate::fxhash::{HashMap, HashSet};

use super::{merge_component, MergeError};
use crate::analysis::{DomTree, LoopForest, MergeComponents};
use crate::ir::{BlockCall, BlockId, Function, Terminator, ValueId};

/// Why a loop cannot be rotated (an error only in the sense "leave it alone").
fn unsupported(func: &Function, reason: &str) -> MergeError {
    MergeError::Unsupported {
        func: func.name.clone(),
        reason: reason.to_string(),
    }
}

/// Rotates the loop headed by `header` and merges it into one block per `k` iterations (see
/// the module doc); returns that block (`T`, and `T1` for `k ≥ 2`). On an error `func` may be
/// half-changed: work on a copy.
pub fn rotate_loop(
    func: &mut Function,
    header: BlockId,
    k: usize,
    max_unrolled: usize,
) -> Result<BlockId, MergeError> {
    let body = rotate(func, header, max_unrolled)?;
    if k >= 2 {
        unroll_single_block(func, body, k, max_unrolled)?;
    }
    Ok(body)
}

/// Steps 1–3: returns the single block the loop now is.
fn rotate(func: &mut Function, h: BlockId, max_unrolled: usize) -> Result<BlockId, MergeError> {
    let loops = LoopForest::new(func);
    if !loops.is_reducible() {
        return Err(unsupported(func, "irreducible control flow"));
    }
    let l = loops
        .loop_of_header(h)
        .ok_or_else(|| unsupported(func, "not a loop header"))?;
    let lp = loops.get(l).clone();
    let Some(Terminator::Br {
        then_dest,
        else_dest,
        ..
    }) = func.block(h).term.clone()
    else {
        return Err(unsupported(
            func,
            "the loop's header does not end in a branch",
        ));
    };
    let inside = |b: BlockId| lp.blocks.contains(&b);
    let (t, e) = match (inside(then_dest.block), inside(else_dest.block)) {
        (true, false) => (then_dest.block, else_dest.block),
        (false, true) => (else_dest.block, then_dest.block),
        _ => return Err(unsupported(func, "the loop's header is not its test")),
    };
    if t == h {
        // Already one block that tests at its end.
        return Ok(h);
    }
    if lp.exits.iter().any(|(from, _)| *from != h) {
        return Err(unsupported(func, "the loop is left from its body"));
    }
    let [latch] = lp.latches[..] else {
        return Err(unsupported(func, "several latches"));
    };
    if !matches!(func.block(latch).term, Some(Terminator::Jmp(_))) {
        return Err(unsupported(func, "the latch does not end in a jump"));
    }
    for &b in &lp.blocks {
        if b == h {
            continue;
        }
        if matches!(func.block(b).term, Some(Terminator::Return(_))) {
            return Err(unsupported(func, "a return inside the loop"));
        }
    }
    if func.has_calls() {
        return Err(unsupported(func, "calls (inline them first)"));
    }
    // `T` and `E` must be entered from `h` alone: split the edge into one that is not.
    let preds = func.predecessors();
    let only_from_h = |b: BlockId| preds.get(&b).map(Vec::as_slice) == Some(&[h][..]);
    let t = if only_from_h(t) {
        t
    } else {
        split_edge(func, h, t)
    };
    let e = if only_from_h(e) {
        e
    } else {
        split_edge(func, h, e)
    };
    pass_header_values(func, h, t, e)?;
    // Step 2: h' ends the body.
    let h2 = copy_block(func, h);
    if let Some(term) = func.block_mut(latch).term.as_mut() {
        for call in term.block_calls_mut() {
            if call.block == h {
                call.block = h2;
            }
        }
    }
    // A parameter that h and h' bind to the same value (a counted inner loop's start, passed
    // through the split edge) is that value, so the inner loop keeps its constant bound.
    crate::opt::util::replace_trivial_params(func);
    // Step 3: T .. h' into T, one component at a time (T's nearest tail may be an `if`'s join
    // inside the body; each merge moves it on, until it is h').
    for _ in 0..func.layout.len() {
        let comp = MergeComponents::new(func)
            .component(t)
            .cloned()
            .ok_or_else(|| unsupported(func, "the rotated body is not a merge component"))?;
        let done = comp.tail == h2;
        merge_component(func, &comp, max_unrolled)?;
        if done {
            return Ok(t);
        }
    }
    Err(unsupported(
        func,
        "the rotated body does not end at the test",
    ))
}

/// A new block on the edge `from -> to` (`from` ends in a branch to `to` and elsewhere): it
/// takes `to`'s parameters and jumps to `to` with them. Returns it.
fn split_edge(func: &mut Function, from: BlockId, to: BlockId) -> BlockId {
    let mid = super::latches::forwarder(func, to);
    if let Some(term) = func.block_mut(from).term.as_mut() {
        for call in term.block_calls_mut() {
            if call.block == to {
                call.block = mid;
            }
        }
    }
    mid
}

/// Step 1: the values of `h` used outside it become parameters of `t` and `e`.
fn pass_header_values(
    func: &mut Function,
    h: BlockId,
    t: BlockId,
    e: BlockId,
) -> Result<(), MergeError> {
    let data = func.block(h).clone();
    let mut defined: Vec<ValueId> = data.params.clone();
    for &i in &data.insts {
        defined.extend(func.inst(i).results.iter().copied());
    }
    let defined_set: HashSet<ValueId> = defined.iter().copied().collect();
    let dom = DomTree::dominators(func);
    // Which values are used where.
    let mut used_under_t: Vec<ValueId> = Vec::new();
    let mut used_under_e: Vec<ValueId> = Vec::new();
    for &b in &func.layout {
        if b == h {
            continue;
        }
        let mut uses = Vec::new();
        let block = func.block(b);
        for &i in &block.insts {
            func.inst(i).kind.for_each_operand(|v| uses.push(v));
        }
        if let Some(term) = &block.term {
            uses.extend(term.operands());
        }
        for v in uses.into_iter().filter(|v| defined_set.contains(v)) {
            if dom.dominates(t, b) {
                used_under_t.push(v);
            } else if dom.dominates(e, b) {
                used_under_e.push(v);
            } else {
                return Err(unsupported(
                    func,
                    "a value of the header is used around the loop",
                ));
            }
        }
    }
    for (target, used) in [(t, used_under_t), (e, used_under_e)] {
        let mut seen = HashSet::default();
        let used: Vec<ValueId> = defined
            .iter()
            .copied()
            .filter(|v| used.contains(v) && seen.insert(*v))
            .collect();
        if used.is_empty() {
            continue;
        }
        let mut subst = HashMap::default();
        for &v in &used {
            let ty = func.value_type(v).clone();
            let p = func.append_block_param(target, ty);
            subst.insert(v, p);
        }
        if let Some(term) = func.block_mut(h).term.as_mut() {
            for call in term.block_calls_mut() {
                if call.block == target {
                    call.args.extend(used.iter().copied());
                }
            }
        }
        let region: Vec<BlockId> = func
            .layout
            .iter()
            .copied()
            .filter(|b| *b != h && dom.dominates(target, *b))
            .collect();
        replace_in(func, &region, &subst);
    }
    Ok(())
}

/// Replaces operands by `subst` in the instructions and terminators of `blocks`.
fn replace_in(func: &mut Function, blocks: &[BlockId], subst: &HashMap<ValueId, ValueId>) {
    let map = |v: ValueId| subst.get(&v).copied().unwrap_or(v);
    for &b in blocks {
        for i in func.block(b).insts.clone() {
            func.inst_mut(i).kind.map_operands(map);
        }
        if let Some(term) = func.block_mut(b).term.as_mut() {
            term.map_operands(map);
        }
    }
}

/// A copy of block `b` with fresh parameters and results (jumps into it are the caller's).
fn copy_block(func: &mut Function, b: BlockId) -> BlockId {
    let data = func.block(b).clone();
    let new = func.create_block();
    let mut map: HashMap<ValueId, ValueId> = HashMap::default();
    for &p in &data.params {
        let ty = func.value_type(p).clone();
        let q = func.append_block_param(new, ty);
        map.insert(p, q);
    }
    for &i in &data.insts {
        let inst = func.inst(i).clone();
        let mut kind = inst.kind.clone();
        kind.map_operands(|v| map.get(&v).copied().unwrap_or(v));
        let ret: Vec<_> = inst
            .results
            .iter()
            .map(|r| func.value_type(*r).clone())
            .collect();
        let copy = func.create_inst(kind, &ret, inst.loc());
        func.inst_mut(copy).set_no_wrap(inst.no_wrap());
        for (old, new_v) in inst.results.iter().zip(func.inst(copy).results.clone()) {
            map.insert(*old, new_v);
        }
        func.block_mut(new).insts.push(copy);
    }
    let mut term = data.term.clone();
    if let Some(t) = term.as_mut() {
        t.map_operands(|v| map.get(&v).copied().unwrap_or(v));
    }
    func.block_mut(new).term = term;
    func.block_mut(new).term_loc = data.term_loc;
    new
}

/// Step 4: the single-block loop `t` (ending in `br c, t(..), E(..)` or with the arms
/// swapped) as one block per `k` iterations.
fn unroll_single_block(
    func: &mut Function,
    t: BlockId,
    k: usize,
    max_unrolled: usize,
) -> Result<(), MergeError> {
    let Some(Terminator::Br {
        then_dest,
        else_dest,
        ..
    }) = func.block(t).term.clone()
    else {
        return Err(unsupported(
            func,
            "the rotated loop does not end in a branch",
        ));
    };
    let stay_then = then_dest.block == t;
    let exit = if stay_then { &else_dest } else { &then_dest };
    if (then_dest.block == t) == (else_dest.block == t) {
        return Err(unsupported(
            func,
            "the rotated loop's branch does not leave it",
        ));
    }
    let e = exit.block;
    let insts = func.block(t).insts.len();
    if insts.saturating_mul(k) > max_unrolled {
        return Err(MergeError::TooLarge {
            func: func.name.clone(),
            limit: max_unrolled,
            visits: false,
        });
    }
    // The join: J(stay, s.., x..): br stay, T1(s), E(x).
    let state_types: Vec<_> = func
        .block(t)
        .params
        .iter()
        .map(|p| func.value_type(*p).clone())
        .collect();
    let exit_types: Vec<_> = func
        .block(e)
        .params
        .iter()
        .map(|p| func.value_type(*p).clone())
        .collect();
    let join = func.create_block();
    let stay = func.append_block_param(join, crate::ir::Type::BOOL);
    let js: Vec<ValueId> = state_types
        .iter()
        .map(|ty| func.append_block_param(join, ty.clone()))
        .collect();
    let jx: Vec<ValueId> = exit_types
        .iter()
        .map(|ty| func.append_block_param(join, ty.clone()))
        .collect();
    func.block_mut(join).term = Some(Terminator::Br {
        cond: stay,
        then_dest: BlockCall { block: t, args: js },
        else_dest: BlockCall { block: e, args: jx },
    });
    // The chain T1 = t, T2 .. Tk copies.
    let mut copies = vec![t];
    for _ in 1..k {
        let c = copy_block(func, t);
        copies.push(c);
    }
    let yes = func.const_bool(true);
    let no = func.const_bool(false);
    for (j, &b) in copies.iter().enumerate() {
        let last = j + 1 == k;
        let Some(Terminator::Br {
            cond,
            then_dest,
            else_dest,
        }) = func.block(b).term.clone()
        else {
            unreachable!("bug: a copy of the loop block ends as it does");
        };
        let (stay_call, exit_call) = if stay_then {
            (then_dest, else_dest)
        } else {
            (else_dest, then_dest)
        };
        let to_join = |flag: ValueId, s: &[ValueId], x: &[ValueId]| BlockCall {
            block: join,
            args: std::iter::once(flag)
                .chain(s.iter().copied())
                .chain(x.iter().copied())
                .collect(),
        };
        let new_stay = if last {
            to_join(yes, &stay_call.args, &exit_call.args)
        } else {
            BlockCall {
                block: copies[j + 1],
                args: stay_call.args.clone(),
            }
        };
        let new_exit = to_join(no, &stay_call.args, &exit_call.args);
        let (then_dest, else_dest) = if stay_then {
            (new_stay, new_exit)
        } else {
            (new_exit, new_stay)
        };
        func.block_mut(b).term = Some(Terminator::Br {
            cond,
            then_dest,
            else_dest,
        });
    }
    let comp = MergeComponents::new(func)
        .component(t)
        .cloned()
        .ok_or_else(|| unsupported(func, "the unrolled chain is not a merge component"))?;
    if comp.tail != join {
        return Err(unsupported(
            func,
            "the unrolled chain does not end at its join",
        ));
    }
    merge_component(func, &comp, max_unrolled)?;
    Ok(())
}
