//! The call stack of [`super::flatten`] (steps 4 and 6 of its algorithm): each calling
//! function's static frame (which slots a call site's saved values take), the stack threaded
//! through every block as its last parameter, and how a value is saved to it as `field` leaves
//! and restored from it.

use crate::fxhash::HashMap;

use super::super::util::add_inst;
use crate::ir::{BlockId, Const, FuncId, Function, InstId, InstKind, Type, ValueId};

/// One call site's stack traffic: the values its block saves and, pairwise, the
/// continuation's parameters they come back as.
pub(super) struct SiteIo {
    pub(super) block: BlockId,
    pub(super) cont: BlockId,
    pub(super) caller: FuncId,
    pub(super) saved: Vec<ValueId>,
    pub(super) restored: Vec<ValueId>,
}

/// Each saved value's first slot, an offset in its caller's frame (sites in the order of
/// `ios`). A value that the saving block restored (the block continues an earlier call) keeps
/// the slots it was restored from, so it need not be written again; the others take the first
/// free slots (first fit).
pub(super) fn frame_offsets(f: &Function, ios: &[SiteIo]) -> Vec<Vec<u64>> {
    let cont_site: HashMap<BlockId, usize> =
        ios.iter().enumerate().map(|(i, io)| (io.cont, i)).collect();
    let mut out: Vec<Vec<u64>> = Vec::with_capacity(ios.len());
    for (i, io) in ios.iter().enumerate() {
        let earlier = cont_site
            .get(&io.block)
            .copied()
            .filter(|&k| k < i && ios[k].caller == io.caller);
        let mut offs: Vec<Option<u64>> = vec![None; io.saved.len()];
        let mut taken: Vec<(u64, u64)> = Vec::new();
        if let Some(k) = earlier {
            for (j, x) in io.saved.iter().enumerate() {
                if let Some(r) = ios[k].restored.iter().position(|p| p == x) {
                    let o = out[k][r];
                    offs[j] = Some(o);
                    taken.push((o, o + leaves(f.value_type(*x))));
                }
            }
        }
        for (j, x) in io.saved.iter().enumerate() {
            if offs[j].is_some() {
                continue;
            }
            let len = leaves(f.value_type(*x));
            let mut start = 0;
            while let Some(&(_, end)) = taken.iter().find(|&&(a, e)| start < e && a < start + len) {
                start = end;
            }
            offs[j] = Some(start);
            taken.push((start, start + len));
        }
        out.push(offs.into_iter().map(|o| o.unwrap_or(0)).collect());
    }
    out
}

/// The `array_get`s of `array` at a constant index within its bounds in `block`, with the
/// index.
pub(super) fn constant_gets(f: &Function, block: BlockId, array: ValueId) -> Vec<(InstId, u64)> {
    let Type::Array(_, len) = f.value_type(array) else {
        return Vec::new();
    };
    let len = u64::from(*len);
    f.block(block)
        .insts
        .iter()
        .filter_map(|&i| match &f.inst(i).kind {
            InstKind::ArrayGet { array: a, index } if *a == array => {
                match f.const_value_checked(*index) {
                    Some(Const::UInt(k)) if k < len => Some((i, k)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// The `field` slots a value of type `ty` takes on the stack.
pub(super) fn leaves(ty: &Type) -> u64 {
    match ty {
        Type::Array(elem, n) => u64::from(*n) * leaves(elem),
        _ => 1,
    }
}

/// The stack's `field` leaves of `v` (instructions that compute them go to `insts`).
pub(super) fn flatten_value(
    f: &mut Function,
    v: ValueId,
    insts: &mut Vec<InstId>,
    out: &mut Vec<ValueId>,
) {
    match f.value_type(v).clone() {
        Type::Field => out.push(v),
        Type::Array(elem, n) => {
            for k in 0..n {
                let index = f.const_uint(32, u64::from(k));
                let i = add_inst(
                    f,
                    InstKind::ArrayGet { array: v, index },
                    &[*elem.clone()],
                    None,
                );
                insts.push(i);
                let e = f.inst(i).results[0];
                flatten_value(f, e, insts, out);
            }
        }
        _ => {
            let i = add_inst(
                f,
                InstKind::Cast {
                    arg: v,
                    to: Type::Field,
                },
                &[Type::Field],
                None,
            );
            insts.push(i);
            out.push(f.inst(i).results[0]);
        }
    }
}

/// A value of type `ty` read back from the stack at `*slot` on (advanced past it).
///
/// A `uN` leaf travels as `field` and is cast back with `nuw`, so R1CS lowering does not
/// range-check it again. Sound: a slot of `g`'s frame is written only by `g`'s call blocks,
/// and nothing runs between a call block and its continuation but the callee, which writes
/// only its own frame (no recursion: at most one activation of `g` is alive). The return label
/// makes the continuation run only after its own call block (a wrong label fails the
/// dispatch's or the call block's rows), so the memory check (a read returns the last value
/// written at its address) proves that the restored `field` is the one that call block wrote
/// at this slot: the `cast` to `field` of a `uN` (or a value the block restored from the same
/// slot, by induction), which was range-checked where it was made. A corrupted saved value
/// fails the memory check (`tests/calls_kept.rs`).
pub(super) fn restore_value(
    f: &mut Function,
    stack: ValueId,
    ty: &Type,
    slot: &mut u64,
    insts: &mut Vec<InstId>,
) -> ValueId {
    match ty {
        Type::Array(elem, n) => {
            let elems = (0..*n)
                .map(|_| restore_value(f, stack, elem, slot, insts))
                .collect();
            let i = add_inst(
                f,
                InstKind::MakeArray {
                    elems,
                    elem_ty: (**elem).clone(),
                },
                std::slice::from_ref(ty),
                None,
            );
            insts.push(i);
            f.inst(i).results[0]
        }
        _ => {
            let index = f.const_uint(32, *slot);
            *slot += 1;
            let i = add_inst(
                f,
                InstKind::ArrayGet {
                    array: stack,
                    index,
                },
                &[Type::Field],
                None,
            );
            insts.push(i);
            let x = f.inst(i).results[0];
            if *ty == Type::Field {
                return x;
            }
            // `nuw`: no range check (see `restore_value`'s doc).
            let c = add_inst(
                f,
                InstKind::Cast {
                    arg: x,
                    to: ty.clone(),
                },
                std::slice::from_ref(ty),
                None,
            );
            f.inst_mut(c).set_no_wrap(true);
            insts.push(c);
            f.inst(c).results[0]
        }
    }
}

/// Creates the stack (`size` zeros at the top of the entry) and makes it the last parameter of
/// every other block; each block's stack on entry.
pub(super) fn thread_stack(f: &mut Function, size: u32) -> HashMap<BlockId, ValueId> {
    let ty = Type::Array(Box::new(Type::Field), size);
    let zero = f.const_field(crate::field::Fr::from(0u64));
    let make = add_inst(
        f,
        InstKind::MakeArray {
            elems: (0..size).map(|_| zero).collect(),
            elem_ty: Type::Field,
        },
        std::slice::from_ref(&ty),
        None,
    );
    let entry = f.entry;
    f.block_mut(entry).insts.insert(0, make);
    let stack = f.inst(make).results[0];
    f.call_stack = Some(stack);
    let mut current = HashMap::default();
    for b in f.layout.clone() {
        let v = if b == entry {
            stack
        } else {
            f.append_block_param(b, ty.clone())
        };
        current.insert(b, v);
    }
    current
}

/// Every jump passes its block's current stack as the target's last argument.
pub(super) fn pass_stack(f: &mut Function, current: &HashMap<BlockId, ValueId>) {
    for b in f.layout.clone() {
        let stack = current[&b];
        if let Some(term) = &mut f.block_mut(b).term {
            for call in term.block_calls_mut() {
                call.args.push(stack);
            }
        }
    }
}
