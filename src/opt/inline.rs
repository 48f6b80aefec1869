//! Inlining: every call of a non-recursive function is replaced by a copy of the callee's
//! blocks; afterwards functions that `main` no longer reaches are dropped.
//!
//! Algorithm:
//! 1. Build the call graph and its strongly connected components (petgraph's `tarjan_scc`,
//!    which lists callees before callers). A function in a cycle (or calling itself) is
//!    recursive: calls to it are left alone, and [`find_recursion`] reports the cycle (the
//!    pipeline refuses such programs before running).
//! 2. Process functions callees-first, so a callee is already free of calls when it is copied.
//!    For a call `vR.. = call fN(args)` in block `B`:
//!    - split `B` at the call: the instructions after it and `B`'s terminator move to a new
//!      block `C(r..)` whose parameters take the place of the call's results;
//!    - copy the callee's blocks with fresh values; the callee's entry parameters become `args`
//!      (the entry has no predecessors, so its copy needs no parameters); each `return vals`
//!      becomes `jmp C(vals)`;
//!    - `B` ends with `jmp` to the copy of the callee's entry;
//!    - every copied location (instructions and terminators) moves into the inline frame of
//!      this call (`ir::frames`): `(call's frame, callee, call's location)` interned, the
//!      callee's own frames rebased under it, so a location names its call stack.
//! 3. Remove blocks made unreachable (a callee that never returns), and drop functions not
//!    reachable from `main` through the remaining calls and `hint`s, renumbering the rest.
//!    A `hint`'s function is never inlined: the interpreter runs it (`ir::interp`).
//!
//! ```text
//! fn sq f1 -> field {                fn main f0 -> field {
//! b0(v0: field):                     b0(v0: field):
//!     v1 = mul v0, v0                    jmp b2()
//!     return v1                      b2():
//! }                                      v3 = mul v0, v0
//! fn main f0 -> field {      ==>         jmp b1(v3)
//! b0(v0: field):                     b1(v2: field):
//!     v1 = call f1(v0)                   v4 = add v2, field 1
//!     v2 = add v1, field 1               return v4
//!     return v2                      }
//! }
//! ```

use crate::fxhash::{HashMap, HashSet};

use super::util::{add_inst_typed, remove_unreachable_blocks};
use super::PassStats;
use crate::ir::frames::function_label;
use crate::ir::{
    BlockCall, BlockId, FrameId, FuncId, Function, InlineFrames, InstId, InstKind, Program, SrcLoc,
    Terminator, TypeId, ValueDef, ValueId,
};
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

/// Inlines every call of a non-recursive function and drops unreachable functions.
pub fn run(program: &mut Program) -> PassStats {
    Ctx::new(program).run(&HashSet::default())
}

/// Inlines every call except those of the functions in `keep` (which stay calls, for
/// `opt::calls::flatten`; `--inline cost`), and drops unreachable functions.
pub fn run_except(program: &mut Program, keep: &HashSet<FuncId>) -> PassStats {
    Ctx::new(program).run(keep)
}

/// The names of the functions on a call cycle, if the program has one.
pub fn find_recursion(program: &Program) -> Option<Vec<String>> {
    let (graph, sccs) = call_graph_sccs(program);
    sccs.into_iter()
        .find(|scc| scc.len() > 1 || graph.contains_edge(scc[0], scc[0]))
        .map(|scc| {
            let mut names: Vec<String> = scc
                .iter()
                .map(|n| program.funcs[n.index()].name.clone())
                .collect();
            names.sort();
            names
        })
}

fn callees(func: &Function) -> Vec<FuncId> {
    let mut out = Vec::new();
    for &b in &func.layout {
        for &i in &func.block(b).insts {
            if let InstKind::Call { func: f, .. } = func.inst(i).kind {
                out.push(f);
            }
        }
    }
    out
}

fn call_graph_sccs(program: &Program) -> (DiGraph<(), ()>, Vec<Vec<NodeIndex>>) {
    let mut graph = DiGraph::<(), ()>::new();
    let nodes: Vec<NodeIndex> = program.funcs.iter().map(|_| graph.add_node(())).collect();
    for (i, func) in program.funcs.iter().enumerate() {
        for callee in callees(func) {
            if callee.index() < nodes.len() {
                graph.update_edge(nodes[i], nodes[callee.index()], ());
            }
        }
    }
    let sccs = tarjan_scc(&graph);
    (graph, sccs)
}

struct Ctx<'p> {
    program: &'p mut Program,
    stats: PassStats,
}

impl<'p> Ctx<'p> {
    fn new(program: &'p mut Program) -> Self {
        Ctx {
            program,
            stats: PassStats::default(),
        }
    }

    fn run(mut self, keep: &HashSet<FuncId>) -> PassStats {
        let (graph, sccs) = call_graph_sccs(self.program);
        let mut recursive: HashSet<FuncId> = sccs
            .iter()
            .filter(|scc| scc.len() > 1 || graph.contains_edge(scc[0], scc[0]))
            .flatten()
            .map(|n| FuncId::new(n.index()))
            .collect();
        // A kept function is left alone like a recursive one.
        recursive.extend(keep.iter().copied());
        for scc in &sccs {
            for node in scc {
                self.inline_calls_in(FuncId::new(node.index()), &recursive);
            }
        }
        let removed = drop_unreachable_functions(self.program);
        self.stats.add("functions_removed", removed);
        self.stats
    }

    /// Inlines every call of `fid` to a function outside `recursive`, in one forward pass over
    /// the layout: a block's first such call is replaced by a copy of the callee, and the rest
    /// of the block moves to a continuation block appended to the layout, which the pass reaches
    /// later. Callees are inlined before their callers (`run` walks the call graph's components
    /// callees first), so a copy holds no call this pass would inline, and each instruction is
    /// visited once per block it lives in. The call results are substituted once at the end.
    fn inline_calls_in(&mut self, fid: FuncId, recursive: &HashSet<FuncId>) {
        let mut inlined = 0;
        let mut copies: HashMap<FuncId, Function> = HashMap::default();
        let mut results: HashMap<ValueId, ValueId> = HashMap::default();
        let mut at = 0;
        while at < self.program.func(fid).layout.len() {
            let func = self.program.func(fid);
            let block = func.layout[at];
            at += 1;
            let site = func
                .block(block)
                .insts
                .iter()
                .enumerate()
                .find_map(|(pos, &i)| match &func.inst(i).kind {
                    InstKind::Call { func: callee, .. } if !recursive.contains(callee) => {
                        Some((pos, i, *callee))
                    }
                    _ => None,
                });
            let Some((pos, inst, callee)) = site else {
                continue;
            };
            let callee = copies
                .entry(callee)
                .or_insert_with(|| self.program.func(callee).clone());
            let site = self.program.func(fid).inst(inst).loc();
            let label = function_label(callee, &self.program.files, &self.program.frames);
            let frames = &mut self.program.frames;
            let onto = frames.intern(site.map_or(FrameId::ROOT, |s| s.frame), &label, site);
            let mut rebase = Rebase {
                frames,
                onto,
                memo: HashMap::default(),
            };
            let caller = &mut self.program.funcs[fid.index()];
            inline_call(
                caller,
                (block, pos, inst),
                callee,
                &mut rebase,
                &mut results,
            );
            inlined += 1;
        }
        if inlined > 0 {
            let func = self.program.func_mut(fid);
            func.replace_uses(&results);
            remove_unreachable_blocks(func);
            self.stats.add("calls_inlined", inlined);
        }
    }
}

/// Drops the functions `main` reaches neither through calls nor through `hint`s, renumbering
/// the rest; returns how many were dropped.
pub(crate) fn drop_unreachable_functions(program: &mut Program) -> usize {
    let mut reached = vec![false; program.funcs.len()];
    let mut stack = vec![program.main];
    reached[program.main.index()] = true;
    while let Some(f) = stack.pop() {
        // Hint functions are not inlined (the interpreter runs them) but must stay.
        let func = program.func(f);
        for c in callees(func).into_iter().chain(func.hint_funcs()) {
            if !reached[c.index()] {
                reached[c.index()] = true;
                stack.push(c);
            }
        }
    }
    if reached.iter().all(|r| *r) {
        return 0;
    }
    let mut new_id = HashMap::default();
    let mut kept = Vec::new();
    let mut removed = 0;
    for (i, func) in std::mem::take(&mut program.funcs).into_iter().enumerate() {
        if reached[i] {
            new_id.insert(FuncId::new(i), FuncId::new(kept.len()));
            kept.push(func);
        } else {
            removed += 1;
        }
    }
    for func in &mut kept {
        for inst in &mut func.insts {
            if let InstKind::Call { func: f, .. } | InstKind::Hint { func: f, .. } = &mut inst.kind
            {
                // Calls in dead instructions may name dropped functions; they are not laid out.
                *f = new_id.get(f).copied().unwrap_or(FuncId(u32::MAX));
            }
        }
    }
    program.main = new_id[&program.main];
    program.funcs = kept;
    removed
}

/// Moves the callee's locations into the inline frame of one call ([`InlineFrames::rebase`]).
struct Rebase<'t> {
    frames: &'t mut InlineFrames,
    onto: FrameId,
    memo: HashMap<FrameId, FrameId>,
}

impl Rebase<'_> {
    fn loc(&mut self, loc: Option<SrcLoc>) -> Option<SrcLoc> {
        loc.map(|l| SrcLoc {
            frame: self.frames.rebase(l.frame, self.onto, &mut self.memo),
            ..l
        })
    }
}

/// Replaces the call `inst` at position `pos` of `block` by a copy of `callee`, its locations
/// moved into the call's inline frame. The call's results become parameters of the
/// continuation block; `results` records each result's parameter for the caller to substitute.
fn inline_call(
    caller: &mut Function,
    (block, pos, inst): (BlockId, usize, InstId),
    callee: &Function,
    rebase: &mut Rebase<'_>,
    results: &mut HashMap<ValueId, ValueId>,
) {
    let InstKind::Call { args, .. } = caller.inst(inst).kind.clone() else {
        panic!("bug: inline_call on a non-call");
    };
    // The continuation block takes the call's results as parameters.
    let cont = caller.create_block();
    for r in caller.inst(inst).results.clone() {
        let ty = caller.value_type(r).clone();
        let p = caller.append_block_param(cont, ty);
        results.insert(r, p);
    }
    let tail: Vec<InstId> = caller.block_mut(block).insts.split_off(pos + 1);
    caller.block_mut(block).insts.pop();
    caller.block_mut(cont).insts = tail;
    caller.block_mut(cont).term = caller.block_mut(block).term.take();
    caller.block_mut(cont).term_loc = caller.block(block).term_loc;

    // Copy the callee: blocks and parameters, then instructions, then operands. Its values
    // and types are mapped by index (a copy of an unrolled permutation's rounds inlines tens
    // of thousands of instructions: a hash map of values and a type hashed for each result
    // were most of it).
    let mut block_map: HashMap<BlockId, BlockId> = HashMap::default();
    let mut value_map: Vec<Option<ValueId>> = vec![None; callee.values.len()];
    // The caller's id of each callee type, interned when first met: a type id of the callee
    // means nothing in the caller.
    let mut type_map: Vec<Option<TypeId>> = vec![None; callee.type_count()];
    let mut caller_type = |t: TypeId, caller: &mut Function| -> TypeId {
        *type_map[t.index()].get_or_insert_with(|| caller.intern_type(callee.type_data(t).clone()))
    };
    for (p, a) in callee.params().iter().zip(&args) {
        value_map[p.index()] = Some(*a);
    }
    for &b in &callee.layout {
        let nb = caller.create_block();
        block_map.insert(b, nb);
        if b != callee.entry {
            for &p in &callee.block(b).params {
                let np = caller.append_block_param(nb, callee.value_type(p).clone());
                value_map[p.index()] = Some(np);
            }
        }
    }
    for &b in &callee.layout {
        for &i in &callee.block(b).insts {
            let data = callee.inst(i);
            let types: Vec<TypeId> = (data.results.iter())
                .map(|r| caller_type(callee.values[r.index()].ty, caller))
                .collect();
            let ni = add_inst_typed(caller, data.kind.clone(), &types, rebase.loc(data.loc()));
            for (r, &nr) in data.results.iter().zip(caller.inst(ni).results.iter()) {
                value_map[r.index()] = Some(nr);
            }
            caller.append_inst(block_map[&b], ni);
        }
    }
    let mut map = |v: ValueId, caller: &mut Function| -> ValueId {
        if let Some(n) = value_map[v.index()] {
            return n;
        }
        let data = callee.value(v);
        let ValueDef::Const(c) = data.def else {
            panic!("bug: callee value {v} used but not defined in a laid-out block");
        };
        // The type by value: a type id of the callee means nothing in the caller.
        let n = caller.make_const(callee.type_data(data.ty).clone(), callee.const_of(c));
        value_map[v.index()] = Some(n);
        n
    };
    for &b in &callee.layout {
        let nb = block_map[&b];
        for ni in caller.block(nb).insts.clone() {
            let mut kind = caller.inst(ni).kind.clone();
            kind.map_operands(|v| map(v, caller));
            caller.inst_mut(ni).kind = kind;
        }
        let mut term = callee
            .block(b)
            .term
            .clone()
            .expect("bug: callee block without terminator");
        term.map_operands(|v| map(v, caller));
        let term = match term {
            Terminator::Return(values) => Terminator::Jmp(BlockCall {
                block: cont,
                args: values,
            }),
            mut t => {
                for call in t.block_calls_mut() {
                    call.block = block_map[&call.block];
                }
                t
            }
        };
        caller.block_mut(nb).term = Some(term);
        caller.block_mut(nb).term_loc = rebase.loc(callee.block(b).term_loc);
    }
    caller.block_mut(block).term = Some(Terminator::Jmp(BlockCall {
        block: block_map[&callee.entry],
        args: Vec::new(),
    }));
}
