//! Outlining (issue 33 item 3): code a function writes out several times becomes one new
//! function called at each place. The regions and their interfaces are
//! [`crate::analysis::repeats`]' (the seed's interface: a cut of the PDG); this pass outlines
//! those whose copies each lie inside one block (straight-line code: a round written out, a
//! Merkle level once its selections are `select`s).
//!
//! For a repeat with copies `C_1 .. C_k`, input slots `I` and output slots `O`:
//! 1. A new function `NAME_repeatN(I) -> O` holds `C_1`'s instructions: an operand defined in
//!    the copy is the copied value, a read from outside is the parameter of its slot, a
//!    constant the same in every copy is that constant.
//! 2. In each `C_j`'s block, `C_j`'s instructions are removed and one `call` takes their place
//!    (where the last of them was: the instructions of constants the copy reads, which the
//!    repeat leaves to the caller, stay where they are, before it), with the values `C_j`
//!    reads for `I`; every later read of `C_j`'s outputs reads the call's results instead.
//!
//! The copies read their inputs and define their outputs in the same way, so the call computes
//! what the copy computed. Whether the call pays is decided later, as for any function with
//! several call sites (`--inline cost`, [`super::inline_cost`]); this pass only rewrites. It
//! runs in no `-O` level: `zkbc opt --passes outline`.

use crate::fxhash::{HashMap, HashSet};

use super::PassStats;
use crate::analysis::repeats::{find_repeats, Repeat, Stmt};
use crate::ir::{FuncId, Function, InstId, InstKind, Program, Terminator, ValueId};

/// The most regions outlined from one function (each outlining removes at least two copies
/// of four instructions or more, so this only bounds the work).
pub const MAX_REGIONS: usize = 64;

/// Outlines every straight-line repeat of every circuit function (the functions `hint`s run
/// are left as they are).
pub fn run(program: &mut Program) -> PassStats {
    let mut stats = PassStats::default();
    let circuit = program.circuit_funcs();
    for (fi, &in_circuit) in circuit.iter().enumerate() {
        if !in_circuit {
            continue;
        }
        // One repeat at a time, the largest first, found again on the function it left: a
        // later repeat may read what an earlier one's copies defined (now the calls' results).
        for n in 0..MAX_REGIONS {
            let Some(r) = find_repeats(&program.funcs[fi])
                .into_iter()
                .find(straight_line)
            else {
                break;
            };
            let callee = FuncId(program.funcs.len() as u32);
            let name = format!("{}_repeat{n}", program.funcs[fi].name);
            let outlined = outline(&program.funcs[fi], &r, name);
            let returns = outlined.returns.clone();
            program.funcs.push(outlined);
            replace_copies(&mut program.funcs[fi], &r, callee, &returns);
            stats.add("regions_outlined", 1);
            stats.add("copies_called", r.copies.len());
        }
    }
    stats
}

/// Whether every copy is instructions of one block: a copy is a run of consecutive
/// statements of the listing, so one without a block's parameters or terminator lies inside a
/// block (and every copy has the statements of the first).
fn straight_line(r: &Repeat) -> bool {
    r.copies[0].iter().all(|s| matches!(s, Stmt::Inst(_)))
}

fn insts(copy: &[Stmt]) -> impl Iterator<Item = InstId> + '_ {
    copy.iter().filter_map(|s| match s {
        Stmt::Inst(i) => Some(*i),
        _ => None,
    })
}

/// Step 1: the function of the first copy.
fn outline(func: &Function, r: &Repeat, name: String) -> Function {
    let copy = &r.copies[0];
    let returns: Vec<_> = r
        .outputs
        .iter()
        .map(|slot| func.value_type(slot[0]).clone())
        .collect();
    let mut g = Function::new(name, returns);
    let entry = g.entry;
    let params: Vec<ValueId> = r
        .inputs
        .iter()
        .map(|slot| g.append_block_param(entry, func.value_type(slot[0]).clone()))
        .collect();
    let mut map: HashMap<ValueId, ValueId> = HashMap::default();
    let mut reads = r.reads.iter();
    for i in insts(copy) {
        let data = func.inst(i);
        let mut kind = data.kind.clone();
        let mut operands = Vec::new();
        for v in kind.operands() {
            let new = match map.get(&v) {
                Some(&n) => n,
                None => match reads.next().copied().flatten() {
                    Some(slot) => params[slot],
                    None => {
                        let c = func
                            .const_value(v)
                            .expect("a read kept inside is a constant");
                        g.make_const(func.value_type(v).clone(), c)
                    }
                },
            };
            operands.push(new);
        }
        let mut next = operands.into_iter();
        kind.map_operands(|_| next.next().expect("one operand each"));
        let call_returns = match &kind {
            InstKind::Call { .. } => data
                .results
                .iter()
                .map(|v| func.value_type(*v).clone())
                .collect(),
            _ => Vec::new(),
        };
        let new = g.create_inst(kind, &call_returns, data.loc());
        g.append_inst(entry, new);
        for (old, new) in data.results.iter().zip(g.inst(new).results.to_vec()) {
            map.insert(*old, new);
        }
    }
    let outputs = r.outputs.iter().map(|slot| map[&slot[0]]).collect();
    g.block_mut(entry).term = Some(Terminator::Return(outputs));
    g
}

/// Step 2: each copy replaced by a call.
fn replace_copies(func: &mut Function, r: &Repeat, callee: FuncId, returns: &[crate::ir::Type]) {
    let blocks = func.inst_blocks();
    let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
    for (c, copy) in r.copies.iter().enumerate() {
        let removed: HashSet<InstId> = insts(copy).collect();
        let last = insts(copy).last().expect("a copy has instructions");
        let block = blocks[&last];
        let args = r
            .inputs
            .iter()
            .map(|slot| subst.get(&slot[c]).copied().unwrap_or(slot[c]))
            .collect();
        let loc = insts(copy).find_map(|i| func.inst(i).loc());
        let call = func.create_inst(InstKind::Call { func: callee, args }, returns, loc);
        for (slot, result) in r.outputs.iter().zip(func.inst(call).results.to_vec()) {
            subst.insert(slot[c], result);
        }
        let old = std::mem::take(&mut func.block_mut(block).insts);
        let mut new = Vec::with_capacity(old.len());
        for i in old {
            if i == last {
                new.push(call);
            } else if !removed.contains(&i) {
                new.push(i);
            }
        }
        func.block_mut(block).insts = new;
    }
    func.replace_uses(&subst);
}
