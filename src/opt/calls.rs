//! Calls kept as blocks (`--inline none`; the design is docs/calls.md): [`flatten`] turns a
//! program whose `main` calls other functions into one function whose CFG holds every circuit
//! function's blocks once. A function's blocks then run once per call, and R1CS lowering (which
//! takes one function without calls) prices them once.
//!
//! Algorithm:
//! 1. Refuse recursion (a cycle of calls) and references passed to or returned by a call.
//! 2. Prepare each circuit function on its own copy:
//!    - a callee's entry gets one more parameter, the return label `l: field`, and each
//!      `return v` becomes `return v, l` (a placeholder until step 5);
//!    - every block is split after each call: the call ends its block, which jumps to a new
//!      continuation block holding the rest;
//!    - in a function that calls, every live-in value becomes an explicit block parameter
//!      (the jumps pass it), so a block uses only its parameters, its results and constants.
//! 3. Copy every prepared function into `main`'s (blocks, parameters, instructions).
//! 4. At each call site `B: ..; r = call f(a); jmp C(x..)`: `B` drops the call and jumps to
//!    `f`'s entry with `a` and its label `K` (the site's index among `f`'s sites); `C` takes
//!    the callee's results as its parameters, and each of its old parameters whose argument
//!    was not a result is *saved* in `B` and *restored* at the top of `C`.
//! 5. Each `return v, l` of a callee dispatches on `l`: `jmp C1(v)` for one site, else a chain
//!    `br (eq l, 0), C1(v), D1(v, l)`, `D1: br (eq l, 1), C2(v), D2(v, l)`, ... whose last test
//!    falls through to the last site.
//! 6. When anything is saved: the stack `[field; S]` (a static frame per calling function,
//!    `S` the sum of the frames) is a `make_array` of zeros at the top of `main`'s entry, every
//!    other block takes the current stack as its last parameter and every jump passes it; a
//!    save is an `array_set` at a constant slot, a restore an `array_get` (a `uN` travels as
//!    `field` and is `cast` back; an array element by element). [`Function::call_stack`]
//!    names it, so the memory plan keeps it in memory.
//! 7. Drop the functions `main` no longer reaches (the hint functions stay).
//! 8. The flat CFG hides how often a callee's blocks run (they form a cycle through its call
//!    sites), so the static counts of the program with calls (`cost::calls`: a callee's block
//!    `n_f · k_b`, a continuation as its call, dispatch test `k` the calls of sites `k..`) are
//!    kept on the flat `main` ([`Function::flat_counts`]) for the report.
//!
//! ```text
//! fn sq f1 -> field {               fn main f0 -> field {
//! b0(v0: field):                    b0(v0: field):
//!     v1 = mul v0, v0                   v9 = make_array [field 0] : field
//!     return v1                         v10 = array_set v9, u32 0, v0
//! }                                     jmp b2(v0, field 0, v10)
//! fn main f0 -> field {     ==>     b1(v3: field, v11: [field; 1]):
//! b0(v0: field):                        v12 = array_get v11, u32 0
//!     v1 = call f1(v0)                  v4 = add v3, v12
//!     v2 = add v1, v0                   return v4
//!     return v2                     b2(v5: field, v6: field, v13: [field; 1]):
//! }                                     v7 = mul v5, v5
//!                                       jmp b1(v7, v13)
//!                                   }
//! ```

use crate::fxhash::{HashMap, HashSet};

use super::util::add_inst;
use super::PassStats;
use crate::ir::{
    BinOp, BlockCall, BlockId, FuncId, Function, InstId, InstKind, Program, SrcLoc, Terminator,
    Type, ValueDef, ValueId,
};
use stack::{
    constant_gets, flatten_value, frame_offsets, leaves, pass_stack, restore_value, thread_stack,
    SiteIo,
};
use std::collections::BTreeSet;
use std::fmt;

mod stack;

/// Whether calls are inlined (`--inline all`), kept as blocks (`--inline none`), or either,
/// per function, by estimated cost (`--inline cost`, the default, [`super::inline_cost`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Inline {
    /// Every call is inlined before the other passes (`inline` in every level's pipeline).
    All,
    /// No call is inlined: each function is optimized on its own and [`flatten`] keeps its
    /// blocks once.
    None,
    /// Per function, by estimated sumcheck cells ([`super::inline_cost::decide`]): the calls
    /// of a kept function stay calls (as with `None`), every other call is inlined. When
    /// nothing is kept the compile is exactly `All`'s.
    #[default]
    Cost,
}

impl std::str::FromStr for Inline {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(Inline::All),
            "none" => Ok(Inline::None),
            "cost" => Ok(Inline::Cost),
            _ => Err(format!(
                "unknown inlining `{s}` (expected all, cost or none)"
            )),
        }
    }
}

/// Why calls cannot be kept as blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallsError {
    /// The functions on a call cycle (recursion has no bounded stack; the front end rejects it,
    /// IR text may not).
    Recursion(Vec<String>),
    /// A reference (`&T`) crosses a call: passed, returned, or live across it. Only `mem2reg`'s
    /// promoted programs can keep calls.
    Reference {
        /// The calling function.
        func: String,
    },
    /// The flat program does not verify: a compiler bug.
    Invalid(String),
}

impl fmt::Display for CallsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallsError::Recursion(names) => write!(
                f,
                "--inline none: recursion is not supported: {} call each other",
                names.join(", ")
            ),
            CallsError::Reference { func } => write!(
                f,
                "--inline none: fn {func} keeps a reference across a call; use --inline all"
            ),
            CallsError::Invalid(m) => write!(
                f,
                "compiler bug: keeping calls as blocks gave invalid IR:\n{m}"
            ),
        }
    }
}

impl std::error::Error for CallsError {}

/// Turns every call reachable from `main` into jumps (see the module doc). A program whose
/// `main` calls nothing is left as it is. The flat program is verified.
pub fn flatten(program: &mut Program) -> Result<PassStats, CallsError> {
    flatten_with(program, true)
}

/// [`flatten`], verifying the flat program only when `verify` is set (as a pass's result is
/// verified only with `opt::Options::verify`): a program flattened only to be priced
/// (`opt::inline_cost`), whose verification cost three times the flattening itself.
pub(crate) fn flatten_with(program: &mut Program, verify: bool) -> Result<PassStats, CallsError> {
    if let Some(cycle) = super::inline::find_recursion(program) {
        return Err(CallsError::Recursion(cycle));
    }
    let circuit = program.circuit_funcs();
    let mut stats = PassStats::default();
    let calls_anything = program
        .func_ids()
        .any(|f| f != program.main && circuit[f.index()]);
    if !calls_anything {
        return Ok(stats);
    }
    let flat = Flattener::new(program, &circuit).run(&mut stats)?;
    let main = program.main;
    program.funcs[main.index()] = flat;
    stats.add(
        "functions_flattened",
        super::inline::drop_unreachable_functions(program),
    );
    if verify {
        crate::ir::verify::verify_program(program)
            .map_err(|e| CallsError::Invalid(e.to_string()))?;
    }
    Ok(stats)
}

/// A call site in the flat function.
struct Site {
    /// The calling function.
    caller: FuncId,
    /// The block that ends with the call.
    block: BlockId,
    /// Its continuation.
    cont: BlockId,
}

/// One circuit function prepared (step 2) and copied into the flat function (step 3).
struct Placed {
    /// Its entry block in the flat function.
    entry: BlockId,
    /// Its call sites, in the flat function.
    sites: Vec<Site>,
    /// Its blocks that return, in the flat function.
    returns: Vec<BlockId>,
}

struct Flattener<'p> {
    program: &'p Program,
    circuit: &'p [bool],
}

impl<'p> Flattener<'p> {
    fn new(program: &'p Program, circuit: &'p [bool]) -> Self {
        Flattener { program, circuit }
    }

    fn run(self, stats: &mut PassStats) -> Result<Function, CallsError> {
        let program = self.program;
        let main = program.main;
        let (mut flat, main_sites) = prepare(program.func(main), false)?;
        // Static counts of the program with calls, carried to the flat blocks (step 8).
        let counts = crate::cost::calls::call_counts(program);
        let exact = |g: FuncId, b: BlockId| counts.as_ref()?.get(&g)?.exact(b);
        let mut flat_counts: HashMap<BlockId, Option<u64>> = HashMap::default();
        for &b in &program.func(main).layout {
            flat_counts.insert(b, exact(main, b));
        }
        // A continuation runs as often as its call's block, itself perhaps a continuation
        // (the sites of a block come in order).
        for &(b, cont) in &main_sites {
            let n = flat_counts.get(&b).copied().flatten();
            flat_counts.insert(cont, n);
        }
        let mut placed: HashMap<FuncId, Placed> = HashMap::default();
        placed.insert(
            main,
            Placed {
                entry: flat.entry,
                sites: main_sites
                    .into_iter()
                    .map(|(block, cont)| Site {
                        caller: main,
                        block,
                        cont,
                    })
                    .collect(),
                returns: Vec::new(),
            },
        );
        for fid in program.func_ids() {
            if fid == main || !self.circuit[fid.index()] {
                continue;
            }
            let (prepared, sites) = prepare(program.func(fid), true)?;
            let map = copy_into(&mut flat, &prepared);
            for &b in &program.func(fid).layout {
                flat_counts.insert(map[&b], exact(fid, b));
            }
            for &(b, cont) in &sites {
                let n = flat_counts.get(&map[&b]).copied().flatten();
                flat_counts.insert(map[&cont], n);
            }
            let returns = prepared
                .layout
                .iter()
                .filter(|b| matches!(prepared.block(**b).term, Some(Terminator::Return(_))))
                .map(|b| map[b])
                .collect();
            placed.insert(
                fid,
                Placed {
                    entry: map[&prepared.entry],
                    sites: sites
                        .into_iter()
                        .map(|(block, cont)| Site {
                            caller: fid,
                            block: map[&block],
                            cont: map[&cont],
                        })
                        .collect(),
                    returns,
                },
            );
        }
        // Step 4: every call site, grouped by callee (in order of the sites).
        // Each callee's sites in order: the continuation, and the call's source location, which
        // the return test that sends a call back to its site carries (the report names the
        // test's block by it).
        let mut by_callee: HashMap<FuncId, Vec<(BlockId, Option<SrcLoc>)>> = HashMap::default();
        let mut ios: Vec<SiteIo> = Vec::new();
        let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
        let mut order: Vec<FuncId> = program
            .func_ids()
            .filter(|f| placed.contains_key(f))
            .collect();
        order.sort();
        for &caller in &order {
            for site in &placed[&caller].sites {
                let Some(&call) = flat.block(site.block).insts.last() else {
                    return Err(bug("a call site without its call"));
                };
                let InstKind::Call { func: callee, args } = flat.inst(call).kind.clone() else {
                    return Err(bug("a call site that does not end with its call"));
                };
                let results = flat.inst(call).results.clone();
                let Some(Terminator::Jmp(to_cont)) = flat.block(site.block).term.clone() else {
                    return Err(bug("a call site that does not jump to its continuation"));
                };
                if args
                    .iter()
                    .chain(&results)
                    .any(|v| matches!(flat.value_type(*v), Type::Ref(_)))
                {
                    return Err(CallsError::Reference {
                        func: program.func(site.caller).name.clone(),
                    });
                }
                let Some(target) = placed.get(&callee) else {
                    return Err(bug("a call of a function outside the circuit"));
                };
                let call = flat.block_mut(site.block).insts.pop();
                let loc = call.and_then(|c| flat.inst(c).loc());
                let sites = by_callee.entry(callee).or_default();
                let label = flat.const_field(crate::field::Fr::from(sites.len() as u64));
                sites.push((site.cont, loc));
                let mut call_args = args;
                call_args.push(label);
                flat.block_mut(site.block).term = Some(Terminator::Jmp(BlockCall {
                    block: target.entry,
                    args: call_args,
                }));
                // The continuation takes the results; its other parameters are restored.
                let old_params = std::mem::take(&mut flat.block_mut(site.cont).params);
                for &r in &results {
                    let ty = flat.value_type(r).clone();
                    flat.append_block_param(site.cont, ty);
                }
                let new_params = flat.block(site.cont).params.clone();
                let (mut saved, mut restored) = (Vec::new(), Vec::new());
                for (&p, &x) in old_params.iter().zip(&to_cont.args) {
                    match results.iter().position(|&r| r == x) {
                        Some(j) => {
                            subst.insert(p, new_params[j]);
                        }
                        None => {
                            if matches!(flat.value_type(x), Type::Ref(_)) {
                                return Err(CallsError::Reference {
                                    func: program.func(site.caller).name.clone(),
                                });
                            }
                            saved.push(x);
                            restored.push(p);
                        }
                    }
                }
                stats.add("calls_kept", 1);
                ios.push(SiteIo {
                    block: site.block,
                    cont: site.cont,
                    caller,
                    saved,
                    restored,
                });
            }
        }
        // Step 5: returns dispatch on their label.
        for &fid in &order {
            if fid == main {
                continue;
            }
            let sites = by_callee.get(&fid).map_or(&[][..], Vec::as_slice);
            let conts: Vec<BlockId> = sites.iter().map(|&(c, _)| c).collect();
            let locs: Vec<Option<SrcLoc>> = sites.iter().map(|&(_, l)| l).collect();
            let tests = dispatch(
                &mut flat,
                &program.func(fid).returns,
                &placed[&fid].returns,
                &conts,
                &locs,
            )?;
            // Test `k` runs for the returns to sites `k..`, each as often as its call.
            for (k, d) in tests.into_iter().enumerate() {
                let n = conts[k + 1..]
                    .iter()
                    .try_fold(0u64, |n, c| n.checked_add(flat_counts.get(c).copied()??));
                flat_counts.insert(d, n);
            }
        }
        // A continuation of a call that never returns (a callee without `return`) is no longer
        // reached, and neither is what only it reaches.
        super::util::remove_unreachable_blocks(&mut flat);
        let laid_out: HashSet<BlockId> = flat.layout.iter().copied().collect();
        // Step 6: the stack. Slots first (offsets in the caller's frame), then what is read.
        let offsets = frame_offsets(&flat, &ios);
        let mut frames: HashMap<FuncId, u64> = HashMap::default();
        for (io, offs) in ios.iter().zip(&offsets) {
            let end = io
                .saved
                .iter()
                .zip(offs)
                .map(|(x, o)| o + leaves(flat.value_type(*x)))
                .max()
                .unwrap_or(0);
            let f = frames.entry(io.caller).or_insert(0);
            *f = (*f).max(end);
        }
        let mut bases: HashMap<FuncId, u64> = HashMap::default();
        let mut size = 0u64;
        for f in &order {
            bases.insert(*f, size);
            size += frames.get(f).copied().unwrap_or(0);
        }
        if size > u64::from(u32::MAX) {
            return Err(bug("a call stack of more than 2^32 slots"));
        }
        // A save is skipped when its block restores the value from the same slots (it is still
        // there); a restore is made only when its value is read (by an instruction, a jump, or
        // a save that is not skipped): a value needed only after a later call stays in its
        // slot until a continuation reads it.
        let cont_site: HashMap<BlockId, usize> =
            ios.iter().enumerate().map(|(i, io)| (io.cont, i)).collect();
        let kept_in_slot = |i: usize, j: usize| -> bool {
            let io = &ios[i];
            let Some(&k) = cont_site.get(&io.block) else {
                return false;
            };
            ios[k]
                .restored
                .iter()
                .position(|&p| p == io.saved[j])
                .is_some_and(|r| ios[k].caller == io.caller && offsets[k][r] == offsets[i][j])
        };
        // How often each value is read.
        let mut read: HashMap<ValueId, usize> = HashMap::default();
        for &b in &flat.layout {
            let data = flat.block(b);
            for &i in &data.insts {
                flat.inst(i).kind.for_each_operand(|v| {
                    *read.entry(v).or_insert(0) += 1;
                });
            }
            if let Some(t) = &data.term {
                for v in t.operands() {
                    *read.entry(v).or_insert(0) += 1;
                }
            }
        }
        for (i, io) in ios.iter().enumerate() {
            if laid_out.contains(&io.block) {
                for (j, &x) in io.saved.iter().enumerate() {
                    if !kept_in_slot(i, j) {
                        *read.entry(x).or_insert(0) += 1;
                    }
                }
            }
        }
        if size > 0 {
            stats.add("stack_slots", size as usize);
            // Each block's stack on entry (restores read it) and on exit (jumps pass it).
            let on_entry = thread_stack(&mut flat, size as u32);
            let mut current = on_entry.clone();
            for (io, offs) in ios.iter().zip(&offsets) {
                if !laid_out.contains(&io.cont) {
                    continue;
                }
                let stack = on_entry[&io.cont];
                let mut insts = Vec::new();
                let mut element_reads: Vec<InstId> = Vec::new();
                for (&p, &o) in io.restored.iter().zip(offs) {
                    let n = read.get(&p).copied().unwrap_or(0);
                    if n == 0 {
                        stats.add("restores_unread", 1);
                        continue;
                    }
                    let base = bases[&io.caller] + o;
                    // An array read only at constant indices in the continuation: only those
                    // elements are restored (the others stay in their slots).
                    let gets = constant_gets(&flat, io.cont, p);
                    if gets.len() == n {
                        let mut by_index: HashMap<u64, ValueId> = HashMap::default();
                        for (g, k) in gets {
                            let r = flat.inst(g).results[0];
                            let v = match by_index.get(&k) {
                                Some(&v) => v,
                                None => {
                                    let ty = flat.value_type(r).clone();
                                    let mut slot = base + k * leaves(&ty);
                                    let v =
                                        restore_value(&mut flat, stack, &ty, &mut slot, &mut insts);
                                    by_index.insert(k, v);
                                    v
                                }
                            };
                            subst.insert(r, v);
                            element_reads.push(g);
                        }
                        stats.add("restores_by_element", 1);
                        continue;
                    }
                    let ty = flat.value_type(p).clone();
                    let mut slot = base;
                    let v = restore_value(&mut flat, stack, &ty, &mut slot, &mut insts);
                    subst.insert(p, v);
                }
                let block = flat.block_mut(io.cont);
                block.insts.retain(|i| !element_reads.contains(i));
                let rest = std::mem::take(&mut block.insts);
                block.insts = insts;
                block.insts.extend(rest);
            }
            for (i, (io, offs)) in ios.iter().zip(&offsets).enumerate() {
                if !laid_out.contains(&io.block) {
                    continue;
                }
                let mut cur = current[&io.block];
                let mut insts = Vec::new();
                for (j, (&x, &o)) in io.saved.iter().zip(offs).enumerate() {
                    if kept_in_slot(i, j) {
                        stats.add("saves_kept_in_slot", 1);
                        continue;
                    }
                    let mut leaves_of = Vec::new();
                    flatten_value(&mut flat, x, &mut insts, &mut leaves_of);
                    for (slot, leaf) in (bases[&io.caller] + o..).zip(leaves_of) {
                        let index = flat.const_uint(32, slot);
                        let ty = flat.value_type(cur).clone();
                        let i = add_inst(
                            &mut flat,
                            InstKind::ArraySet {
                                array: cur,
                                index,
                                value: leaf,
                            },
                            &[ty],
                            None,
                        );
                        insts.push(i);
                        cur = flat.inst(i).results[0];
                    }
                }
                flat.block_mut(io.block).insts.extend(insts);
                current.insert(io.block, cur);
            }
            pass_stack(&mut flat, &current);
        } else if ios.iter().any(|io| {
            laid_out.contains(&io.cont) && io.restored.iter().any(|p| read.contains_key(p))
        }) {
            return Err(bug("values restored without a stack"));
        }
        flat.replace_uses(&subst);
        flat.flat_counts = Some(flat_counts);
        Ok(flat)
    }
}

fn bug(m: &str) -> CallsError {
    CallsError::Invalid(m.to_string())
}

/// Step 2 on a copy of `func`: the return label (a callee), the blocks split after each call,
/// and (when it calls) every live-in made a parameter. Also the call sites: (the block ending
/// with the call, its continuation).
fn prepare(
    func: &Function,
    callee: bool,
) -> Result<(Function, Vec<(BlockId, BlockId)>), CallsError> {
    let mut f = func.clone();
    if callee {
        let entry = f.entry;
        let label = f.append_block_param(entry, Type::Field);
        for b in f.layout.clone() {
            if let Some(Terminator::Return(vals)) = &mut f.block_mut(b).term {
                vals.push(label);
            }
        }
    }
    let mut sites = Vec::new();
    let mut k = 0;
    while k < f.layout.len() {
        let b = f.layout[k];
        let pos = f
            .block(b)
            .insts
            .iter()
            .position(|&i| matches!(f.inst(i).kind, InstKind::Call { .. }));
        if let Some(pos) = pos {
            let cont = f.create_block();
            f.layout.pop();
            f.layout.insert(k + 1, cont);
            let rest = f.block_mut(b).insts.split_off(pos + 1);
            let term = f.block_mut(b).term.take();
            let term_loc = f.block(b).term_loc;
            let data = f.block_mut(cont);
            data.insts = rest;
            data.term = term;
            data.term_loc = term_loc;
            f.block_mut(b).term = Some(Terminator::Jmp(BlockCall {
                block: cont,
                args: Vec::new(),
            }));
            sites.push((b, cont));
        }
        k += 1;
    }
    if !sites.is_empty() {
        explicit_live_ins(&mut f);
    }
    Ok((f, sites))
}

/// Makes every value a block uses (or passes on) from another block a parameter of it, passed
/// by every jump into it: afterwards a block reads only its parameters, its own results and
/// constants.
fn explicit_live_ins(f: &mut Function) {
    let is_const = |f: &Function, v: ValueId| matches!(f.value(v).def, ValueDef::Const(_));
    let mut defs: HashMap<BlockId, HashSet<ValueId>> = HashMap::default();
    let mut uses: HashMap<BlockId, BTreeSet<ValueId>> = HashMap::default();
    for &b in &f.layout {
        let data = f.block(b);
        let mut d: HashSet<ValueId> = data.params.iter().copied().collect();
        let mut u = BTreeSet::new();
        for &i in &data.insts {
            let inst = f.inst(i);
            inst.kind.for_each_operand(|v| {
                if !d.contains(&v) && !is_const(f, v) {
                    u.insert(v);
                }
            });
            d.extend(inst.results.iter().copied());
        }
        if let Some(t) = &data.term {
            for v in t.operands() {
                if !d.contains(&v) && !is_const(f, v) {
                    u.insert(v);
                }
            }
        }
        defs.insert(b, d);
        uses.insert(b, u);
    }
    let mut live: HashMap<BlockId, BTreeSet<ValueId>> = uses.clone();
    let order: Vec<BlockId> = f.reverse_post_order().into_iter().rev().collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let mut set = live[&b].clone();
            for s in f.successors(b) {
                for &v in live.get(&s).into_iter().flatten() {
                    if !defs[&b].contains(&v) {
                        set.insert(v);
                    }
                }
            }
            if set.len() != live[&b].len() {
                live.insert(b, set);
                changed = true;
            }
        }
    }
    let entry = f.entry;
    let mut renames: HashMap<BlockId, HashMap<ValueId, ValueId>> = HashMap::default();
    for b in f.layout.clone() {
        if b == entry {
            continue;
        }
        let mut map = HashMap::default();
        for &v in live.get(&b).into_iter().flatten() {
            let ty = f.value_type(v).clone();
            map.insert(v, f.append_block_param(b, ty));
        }
        for i in f.block(b).insts.clone() {
            let mut kind = f.inst(i).kind.clone();
            kind.map_operands(|v| map.get(&v).copied().unwrap_or(v));
            f.inst_mut(i).kind = kind;
        }
        if let Some(t) = &mut f.block_mut(b).term {
            t.map_operands(|v| map.get(&v).copied().unwrap_or(v));
        }
        renames.insert(b, map);
    }
    let empty = HashMap::default();
    for b in f.layout.clone() {
        let own = renames.get(&b).unwrap_or(&empty);
        let Some(mut term) = f.block_mut(b).term.take() else {
            continue;
        };
        for call in term.block_calls_mut() {
            if call.block == entry {
                continue;
            }
            for &v in live.get(&call.block).into_iter().flatten() {
                call.args.push(own.get(&v).copied().unwrap_or(v));
            }
        }
        f.block_mut(b).term = Some(term);
    }
}

/// Copies every laid-out block of `src` into `dst` (parameters, instructions, terminators with
/// `return` kept), with fresh values; the map of blocks.
fn copy_into(dst: &mut Function, src: &Function) -> HashMap<BlockId, BlockId> {
    let mut blocks: HashMap<BlockId, BlockId> = HashMap::default();
    let mut values: HashMap<ValueId, ValueId> = HashMap::default();
    for &b in &src.layout {
        let nb = dst.create_block();
        blocks.insert(b, nb);
        for &p in &src.block(b).params {
            let np = dst.append_block_param(nb, src.value_type(p).clone());
            values.insert(p, np);
        }
    }
    for &b in &src.layout {
        for &i in &src.block(b).insts {
            let data = src.inst(i);
            let types: Vec<Type> = data
                .results
                .iter()
                .map(|r| src.value_type(*r).clone())
                .collect();
            let ni = add_inst(dst, data.kind.clone(), &types, data.loc());
            dst.inst_mut(ni).set_no_wrap(data.no_wrap());
            for (r, nr) in data.results.iter().zip(dst.inst(ni).results.clone()) {
                values.insert(*r, nr);
            }
            dst.append_inst(blocks[&b], ni);
        }
    }
    let mut map = |v: ValueId, dst: &mut Function| -> ValueId {
        if let Some(&n) = values.get(&v) {
            return n;
        }
        match src.values.get(v.index()).map(|d| d.def) {
            Some(ValueDef::Const(c)) => {
                let ty = src.value_type(v).clone();
                let n = dst.make_const(ty, src.const_of(c));
                values.insert(v, n);
                n
            }
            // A verified function uses only values its laid-out blocks define.
            _ => v,
        }
    };
    for &b in &src.layout {
        let nb = blocks[&b];
        for ni in dst.block(nb).insts.clone() {
            let mut kind = dst.inst(ni).kind.clone();
            kind.map_operands(|v| map(v, dst));
            dst.inst_mut(ni).kind = kind;
        }
        if let Some(mut term) = src.block(b).term.clone() {
            term.map_operands(|v| map(v, dst));
            for call in term.block_calls_mut() {
                call.block = blocks[&call.block];
            }
            dst.block_mut(nb).term = Some(term);
            dst.block_mut(nb).term_loc = src.block(b).term_loc;
        }
    }
    blocks
}

/// Step 5 for one callee: each of its `returns` blocks (ending `return v.., l`) jumps to the
/// continuation `conts[l]`; the test of label `k` carries `locs[k]`, the location of that
/// call site. Returns the tests after the first (`D_k`, testing label `k`).
fn dispatch(
    f: &mut Function,
    types: &[Type],
    returns: &[BlockId],
    conts: &[BlockId],
    locs: &[Option<SrcLoc>],
) -> Result<Vec<BlockId>, CallsError> {
    let Some(&last) = conts.last() else {
        return Err(bug("a callee without a call site"));
    };
    // The tests after the first: D_k tests label k (1 <= k <= n-2).
    let mut tests: Vec<BlockId> = Vec::new();
    for _ in 1..conts.len().saturating_sub(1) {
        let d = f.create_block();
        for ty in types {
            f.append_block_param(d, ty.clone());
        }
        f.append_block_param(d, Type::Field);
        tests.push(d);
    }
    // Ends `block`, whose returned values are `vals` and label `l`, with test `k`.
    let test = |f: &mut Function, block: BlockId, k: usize, vals: Vec<ValueId>, l: ValueId| {
        if conts.len() == 1 {
            return Terminator::Jmp(BlockCall {
                block: last,
                args: vals,
            });
        }
        let key = f.const_field(crate::field::Fr::from(k as u64));
        let eq = add_inst(
            f,
            InstKind::Binary {
                op: BinOp::Eq,
                lhs: l,
                rhs: key,
            },
            &[Type::UInt(1)],
            locs.get(k).copied().flatten(),
        );
        f.append_inst(block, eq);
        let cond = f.inst(eq).results[0];
        let else_dest = if k + 2 == conts.len() {
            BlockCall {
                block: last,
                args: vals.clone(),
            }
        } else {
            let mut args = vals.clone();
            args.push(l);
            BlockCall {
                block: tests[k],
                args,
            }
        };
        Terminator::Br {
            cond,
            then_dest: BlockCall {
                block: conts[k],
                args: vals,
            },
            else_dest,
        }
    };
    for &r in returns {
        let Some(Terminator::Return(mut vals)) = f.block(r).term.clone() else {
            return Err(bug("a return block without its return"));
        };
        let Some(l) = vals.pop() else {
            return Err(bug("a return without its label"));
        };
        let term = test(f, r, 0, vals, l);
        f.block_mut(r).term = Some(term);
    }
    for (k, &d) in tests.clone().iter().enumerate() {
        let mut params = f.block(d).params.clone();
        let Some(l) = params.pop() else {
            return Err(bug("a dispatch block without its label"));
        };
        let term = test(f, d, k + 1, params, l);
        f.block_mut(d).term = Some(term);
    }
    Ok(tests)
}
