//! mem2reg: replaces memory (`allocate`, `load`, `store`) by SSA values, following the design
//! of `../shared/seeds/mem2reg-alias-and-loops.md` (the design notes folder beside the
//! repository) with its loop handling made an exact fixpoint.
//!
//! The pass has four steps.
//!
//! **1. Alias sets.** Every `allocate` is an abstract location (a *site*); one more site,
//! `EXTERNAL`, stands for every cell this function did not allocate. A flow-insensitive
//! points-to analysis (Andersen style, iterated to a fixpoint) gives each value whose type holds
//! references the set of sites it may point to, and each site the sites its contents may point
//! to:
//! - `vN = allocate` points to its own site;
//! - `store v at p` with a reference-holding `v` adds `v`'s sites to the contents of `p`'s sites
//!   (a reference stored in a reference), and `load p` points to those contents;
//! - `make_array`, `array_set`, `array_get`, `select` of references: the union of the elements'
//!   sites (index-insensitive: `{v1, vA[?]}`);
//! - a block parameter points to the union of the arguments bound to it, so several parameters
//!   bound to one reference alias each other;
//! - arguments of a `call` and returned values *escape*: their sites, and everything reachable
//!   from them through contents, join the contents of `EXTERNAL`; the function's reference
//!   parameters and call results point to `EXTERNAL` and to every escaped site;
//! - when the function calls at all, every escaped site's contents include `EXTERNAL` (and so
//!   every escaped site): a callee may store any reference it can reach into any cell it can
//!   reach. In `call f1(v3, v1)` where `v3` holds a reference to `v2`, a later `load v3` may
//!   give `v1`, not only `v2`.
//!
//! A site is *single-instance* when its `allocate` is outside every CFG cycle, so that at most one
//! cell of it exists per call of the function.
//!
//! **2. Known values per block**, with loops as a fixpoint over strongly connected components.
//! For each site the state is `NotYetKnown | Known(v) | Unknown`, where `Known(v)` means "every
//! existing cell of the site holds `v`" and `NotYetKnown` is the top of the lattice (no path has
//! been seen yet, or no cell exists). The state at the start of a block is the unification of
//! the states at the end of its predecessors: `unify(NotYetKnown, x) = x`, `unify(Known(a),
//! Known(b)) = Known(a)` if `a = b` else `Unknown`, `unify(Unknown, _) = Unknown`. At the entry,
//! local sites are `NotYetKnown` and `EXTERNAL` is `Unknown`. Within a block:
//! - `allocate` of a single-instance site makes it `Known(zero)` (for a scalar type; `Unknown`
//!   otherwise); of a site in a loop, it unifies the state with `Known(zero)`;
//! - `store v at p` where `p` may point only to one single-instance site makes it `Known(v)` (a
//!   strong update); otherwise every site `p` may point to is unified with `Known(v)` (a weak
//!   update);
//! - a `call` makes every escaped site `Unknown`;
//! - in a block inside a cycle, defining a value `r` (a parameter or a result) makes every site
//!   `Known(r)` `Unknown`: the cell holds an older `r` from an earlier iteration.
//!
//! Blocks are visited component by component of the CFG's condensation, in topological order
//! (petgraph's `tarjan_scc`). A component that is a loop is iterated until its states stop
//! changing: its head (first block in reverse post-order) is visited, then the rest of the
//! component is solved recursively as a graph of its own (without the head, so a nested loop is a
//! component of it and is iterated to its own fixpoint inside every iteration of the outer loop;
//! Bourdoncle's recursive strategy). A predecessor not visited yet contributes `NotYetKnown`. So
//! in the seed's example a value stored before a loop and untouched inside it is still `Known`
//! after the loop (the second iteration confirms the optimistic first one), and a value changed
//! inside the loop unifies to `Unknown` at the head.
//!
//! **3. Rewrite, after the whole analysis.** A `load p` whose possible sites (none of them
//! `EXTERNAL`) are all `Known(v)` for one `v` that dominates the load is replaced by `v`. Then,
//! against the final alias information, a `store` is removed when none of the sites it may write
//! is escaped or may be read by a remaining (used) load, including loads through aliases.
//!
//! **4. Promotion.** An allocation whose reference is only ever the address operand of `load`s
//! and `store`s (its address never escapes, so it has no aliases) becomes SSA values, as in
//! LLVM's mem2reg: the `allocate` becomes the zero value; each block it strictly dominates that
//! has several incoming edges gets a parameter for the cell's contents; walking the dominator
//! tree once for all promoted cells (each cell's contents undone on leaving a subtree), a `load`
//! becomes the current contents and a `store` sets them; jumps pass the contents at their end.
//! Parameters that turn out to be trivial (every jump passes the same value) are replaced by that
//! value.
//!
//! ```text
//! b0(v0: u32):                      b0(v0: u32):
//!     v1 = allocate u32                 jmp b1(u32 0, u32 0)
//!     store u32 0 at v1             b1(v2: u32, v7: u32):
//!     jmp b1(u32 0)                     v3 = lt v2, v0
//! b1(v2: u32):                          br v3, b2(), b3()
//!     v3 = lt v2, v0          ==>   b2():
//!     br v3, b2(), b3()                 v5 = add v7, v2
//! b2():                                 v6 = add v2, u32 1
//!     v4 = load v1                      jmp b1(v6, v5)
//!     v5 = add v4, v2               b3():
//!     store v5 at v1                    return v7
//!     v6 = add v2, u32 1
//!     jmp b1(v6)                    (after mem2reg and dce: the cell's contents became the
//! b3():                              parameter v7 of the loop header)
//!     v8 = load v1
//!     return v8
//! ```

use crate::fxhash::{HashMap, HashSet};

use super::util::{
    add_inst, edge, incoming_edges, remove_unreachable_blocks, replace_trivial_params,
};
use super::PassStats;
use crate::analysis::DomTree;
use crate::field::Fr;
use crate::ir::{
    BlockId, Const, Function, InstId, InstKind, Program, Terminator, Type, TypeId, ValueDef,
    ValueId,
};
use ark_ff::Zero;
use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use std::collections::BTreeSet;

/// Runs mem2reg on every function of the program.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, |func| Ctx::new(func).run())
}

/// An abstract memory location: `EXTERNAL` or the allocation site `k`.
type Site = usize;
const EXTERNAL: Site = 0;

/// What a site's cells hold at a program point.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum RefValue {
    /// Top: no path seen yet (or no cell exists on any path).
    NotYetKnown,
    /// Every existing cell of the site holds this value.
    Known(ValueId),
    /// Anything.
    Unknown,
}

impl RefValue {
    fn unify(self, other: RefValue) -> RefValue {
        match (self, other) {
            (RefValue::NotYetKnown, x) | (x, RefValue::NotYetKnown) => x,
            (RefValue::Known(a), RefValue::Known(b)) if a == b => RefValue::Known(a),
            _ => RefValue::Unknown,
        }
    }
}

type State = Vec<RefValue>;

struct Ctx<'f> {
    func: &'f mut Function,
    /// Site of each `allocate` result.
    site_of: HashMap<ValueId, Site>,
    /// For each site: its `allocate` result (none for `EXTERNAL`).
    site_value: Vec<Option<ValueId>>,
    /// For each site: whether its allocation is outside every cycle.
    single_instance: Vec<bool>,
    /// For each site: the zero value its allocation holds, if it is a scalar constant.
    zero: Vec<Option<ValueId>>,
    /// Points-to sets of reference-holding values.
    pts: HashMap<ValueId, BTreeSet<Site>>,
    /// What the cells of each site may point to.
    contents: Vec<BTreeSet<Site>>,
    /// Blocks on a CFG cycle.
    cyclic: HashSet<BlockId>,
    /// State at the end of each visited block.
    out: HashMap<BlockId, State>,
    preds: HashMap<BlockId, Vec<BlockId>>,
    /// One value for each distinct constant, so that `Known` states compare constants by value.
    canonical_const: HashMap<ValueId, ValueId>,
    rpo_index: HashMap<BlockId, usize>,
    stats: PassStats,
}

impl<'f> Ctx<'f> {
    fn new(func: &'f mut Function) -> Self {
        let preds = func.predecessors();
        let rpo_index = func
            .reverse_post_order()
            .into_iter()
            .enumerate()
            .map(|(i, b)| (b, i))
            .collect();
        Ctx {
            func,
            site_of: HashMap::default(),
            site_value: vec![None],
            single_instance: vec![false],
            zero: vec![None],
            pts: HashMap::default(),
            contents: vec![BTreeSet::new()],
            cyclic: HashSet::default(),
            out: HashMap::default(),
            preds,
            canonical_const: HashMap::default(),
            rpo_index,
            stats: PassStats::default(),
        }
    }

    fn run(mut self) -> PassStats {
        let has_memory = self.func.layout.iter().any(|b| {
            self.func.block(*b).insts.iter().any(|i| {
                matches!(
                    self.func.inst(*i).kind,
                    InstKind::Allocate { .. } | InstKind::Load { .. } | InstKind::Store { .. }
                )
            })
        });
        if !has_memory {
            return self.stats;
        }
        self.find_cycles();
        self.find_sites();
        self.canonicalize_constants();
        self.points_to();
        let mut rpo = self.func.reverse_post_order();
        let mut laid_out = vec![false; self.func.blocks.len()];
        for b in &self.func.layout {
            laid_out[b.index()] = true;
        }
        rpo.retain(|b| laid_out[b.index()]);
        self.solve(&rpo);
        self.forward_loads_and_remove_stores(&rpo);
        self.promote();
        self.stats
    }

    // ---- Step 1: sites and alias sets ----

    fn find_cycles(&mut self) {
        let mut graph = DiGraph::<BlockId, ()>::new();
        let nodes: HashMap<BlockId, _> = self
            .func
            .layout
            .iter()
            .map(|&b| (b, graph.add_node(b)))
            .collect();
        for &b in &self.func.layout {
            for s in self.func.successors(b) {
                if let Some(&t) = nodes.get(&s) {
                    graph.add_edge(nodes[&b], t, ());
                }
            }
        }
        for scc in tarjan_scc(&graph) {
            let b = graph[scc[0]];
            if scc.len() > 1 || self.func.successors(b).contains(&b) {
                self.cyclic.extend(scc.iter().map(|n| graph[*n]));
            }
        }
    }

    fn find_sites(&mut self) {
        for b in self.func.layout.clone() {
            for i in self.func.block(b).insts.clone() {
                if let InstKind::Allocate { ty } = self.func.inst(i).kind.clone() {
                    let r = self.func.inst(i).results[0];
                    let site = self.site_value.len();
                    self.site_of.insert(r, site);
                    self.site_value.push(Some(r));
                    self.single_instance.push(!self.cyclic.contains(&b));
                    let zero = match ty {
                        Type::Field => Some(self.func.const_field(Fr::zero())),
                        Type::UInt(w) => Some(self.func.const_uint(w, 0)),
                        _ => None,
                    };
                    // (canonicalize_constants later makes every zero of one type one value)
                    self.zero.push(zero);
                    self.contents.push(BTreeSet::new());
                }
            }
        }
        self.contents[EXTERNAL].insert(EXTERNAL);
    }

    fn canonicalize_constants(&mut self) {
        // Sized once: an unrolled program has tens of thousands of constants.
        let n = (self.func.values.iter())
            .filter(|d| matches!(d.def, ValueDef::Const(_)))
            .count();
        let mut first: HashMap<(TypeId, Const), ValueId> =
            HashMap::with_capacity_and_hasher(n, Default::default());
        self.canonical_const.reserve(n);
        for (k, data) in self.func.values.iter().enumerate() {
            if let ValueDef::Const(c) = data.def {
                let c = self.func.const_of(c);
                let v = ValueId::new(k);
                let canon = *first.entry((data.ty, c)).or_insert(v);
                self.canonical_const.insert(v, canon);
            }
        }
    }

    /// The value a `Known` state records for `v`: constants by value.
    fn known(&self, v: ValueId) -> RefValue {
        RefValue::Known(self.canonical_const.get(&v).copied().unwrap_or(v))
    }

    fn holds_refs(&self, v: ValueId) -> bool {
        self.func.value_type(v).contains_ref()
    }

    fn pts_of(&self, v: ValueId) -> BTreeSet<Site> {
        self.pts.get(&v).cloned().unwrap_or_default()
    }

    /// Adds `sites` to `pts(v)`; a set holding `EXTERNAL` also holds every escaped site.
    fn add_pts(&mut self, v: ValueId, sites: &BTreeSet<Site>) -> bool {
        let mut sites = sites.clone();
        if sites.contains(&EXTERNAL) {
            sites.extend(self.contents[EXTERNAL].iter().copied());
        }
        let set = self.pts.entry(v).or_default();
        let before = set.len();
        set.extend(sites);
        set.len() != before
    }

    fn add_contents(&mut self, site: Site, sites: &BTreeSet<Site>) -> bool {
        let before = self.contents[site].len();
        self.contents[site].extend(sites.iter().copied());
        self.contents[site].len() != before
    }

    fn points_to(&mut self) {
        let external: BTreeSet<Site> = [EXTERNAL].into();
        let incoming = incoming_edges(self.func);
        let has_call = self.func.layout.iter().any(|b| {
            self.func
                .block(*b)
                .insts
                .iter()
                .any(|i| matches!(self.func.inst(*i).kind, InstKind::Call { .. }))
        });
        loop {
            let mut changed = false;
            for p in self.func.params().to_vec() {
                if self.holds_refs(p) {
                    changed |= self.add_pts(p, &external);
                }
            }
            for b in self.func.layout.clone() {
                for &p in &self.func.block(b).params.clone() {
                    if !self.holds_refs(p) || b == self.func.entry {
                        continue;
                    }
                    let ValueDef::Param(_, idx) = self.func.value(p).def else {
                        continue;
                    };
                    for &(src, k) in &incoming[&b] {
                        let arg = edge(self.func, src, k).args[idx as usize];
                        let sites = self.pts_of(arg);
                        changed |= self.add_pts(p, &sites);
                    }
                }
                for i in self.func.block(b).insts.clone() {
                    changed |= self.points_to_inst(i, &external);
                }
                if let Some(Terminator::Return(values)) = self.func.block(b).term.clone() {
                    for v in values {
                        let sites = self.pts_of(v);
                        changed |= self.add_contents(EXTERNAL, &sites);
                    }
                }
            }
            // Whatever an escaped cell points to escapes too.
            let escaped: Vec<Site> = self.contents[EXTERNAL].iter().copied().collect();
            for &s in &escaped {
                let inner = self.contents[s].clone();
                changed |= self.add_contents(EXTERNAL, &inner);
            }
            // A callee may store any reference it can reach (an escaped one, or one to a cell
            // of its own) into any cell it can reach: after a call, an escaped cell may hold
            // `EXTERNAL`, which `add_pts` widens to every escaped site.
            if has_call {
                for &s in &escaped {
                    changed |= self.add_contents(s, &external);
                }
            }
            if !changed {
                return;
            }
        }
    }

    fn points_to_inst(&mut self, i: InstId, external: &BTreeSet<Site>) -> bool {
        let data = self.func.inst(i).clone();
        let mut changed = false;
        let result = data.results.first().copied();
        match &data.kind {
            InstKind::Allocate { .. } => {
                let r = result.expect("bug: allocate without result");
                changed |= self.add_pts(r, &[self.site_of[&r]].into());
            }
            InstKind::Load { ptr } => {
                let r = result.expect("bug: load without result");
                if self.holds_refs(r) {
                    let mut sites = BTreeSet::new();
                    for s in self.pts_of(*ptr) {
                        sites.extend(self.contents[s].iter().copied());
                    }
                    changed |= self.add_pts(r, &sites);
                }
            }
            InstKind::Store { ptr, value } if self.holds_refs(*value) => {
                let sites = self.pts_of(*value);
                for s in self.pts_of(*ptr) {
                    changed |= self.add_contents(s, &sites);
                }
            }
            InstKind::MakeArray { .. }
            | InstKind::ArrayGet { .. }
            | InstKind::ArraySet { .. }
            | InstKind::Select { .. } => {
                let r = result.expect("bug: no result");
                if self.holds_refs(r) {
                    let mut sites = BTreeSet::new();
                    data.kind.for_each_operand(|v| {
                        if let Some(s) = self.pts.get(&v) {
                            sites.extend(s.iter().copied());
                        }
                    });
                    changed |= self.add_pts(r, &sites);
                }
            }
            InstKind::Call { args, .. } => {
                for a in args {
                    let sites = self.pts_of(*a);
                    changed |= self.add_contents(EXTERNAL, &sites);
                }
                for &r in &data.results {
                    if self.holds_refs(r) {
                        changed |= self.add_pts(r, external);
                    }
                }
            }
            _ => {}
        }
        changed
    }

    // ---- Step 2: known values, loops as a fixpoint over SCCs ----

    fn initial_state(&self) -> State {
        let mut state = vec![RefValue::NotYetKnown; self.site_value.len()];
        state[EXTERNAL] = RefValue::Unknown;
        state
    }

    fn entry_state(&self, b: BlockId) -> State {
        if b == self.func.entry {
            return self.initial_state();
        }
        let mut state = vec![RefValue::NotYetKnown; self.site_value.len()];
        for p in &self.preds[&b] {
            if let Some(out) = self.out.get(p) {
                for (s, v) in state.iter_mut().zip(out) {
                    *s = s.unify(*v);
                }
            }
        }
        state
    }

    /// Solves the subgraph induced by `blocks` (given in reverse post-order).
    fn solve(&mut self, blocks: &[BlockId]) {
        let mut graph = DiGraph::<BlockId, ()>::new();
        let nodes: HashMap<BlockId, _> = blocks.iter().map(|&b| (b, graph.add_node(b))).collect();
        for &b in blocks {
            for s in self.func.successors(b) {
                if let Some(&t) = nodes.get(&s) {
                    graph.add_edge(nodes[&b], t, ());
                }
            }
        }
        let mut sccs = tarjan_scc(&graph);
        sccs.reverse(); // topological order
        for scc in sccs {
            let mut members: Vec<BlockId> = scc.iter().map(|n| graph[*n]).collect();
            members.sort_by_key(|b| self.rpo_index[b]);
            let head = members[0];
            let is_loop = members.len() > 1 || graph.contains_edge(scc[0], scc[0]);
            if !is_loop {
                self.visit(head, false);
                continue;
            }
            loop {
                let before: Vec<Option<State>> =
                    members.iter().map(|b| self.out.get(b).cloned()).collect();
                self.visit(head, false);
                self.solve(&members[1..]);
                let after: Vec<Option<State>> =
                    members.iter().map(|b| self.out.get(b).cloned()).collect();
                if before == after {
                    break;
                }
            }
        }
    }

    /// Computes the state at the end of `b` from its predecessors; with `rewrite`, also records
    /// the loads that can be forwarded.
    fn visit(&mut self, b: BlockId, rewrite: bool) -> HashMap<ValueId, ValueId> {
        let mut state = self.entry_state(b);
        let mut forwards = HashMap::default();
        let cyclic = self.cyclic.contains(&b);
        if cyclic {
            for p in self.func.block(b).params.clone() {
                invalidate(&mut state, p);
            }
        }
        for i in self.func.block(b).insts.clone() {
            let data = self.func.inst(i).clone();
            match &data.kind {
                InstKind::Allocate { .. } => {
                    let site = self.site_of[&data.results[0]];
                    let zero = self.zero[site].map_or(RefValue::Unknown, |z| self.known(z));
                    state[site] = if self.single_instance[site] {
                        zero
                    } else {
                        state[site].unify(zero)
                    };
                }
                InstKind::Store { ptr, value } => {
                    let sites = self.pts_of(*ptr);
                    let strong = sites.len() == 1
                        && sites
                            .iter()
                            .all(|s| *s != EXTERNAL && self.single_instance[*s]);
                    let stored = self.known(*value);
                    for s in sites {
                        state[s] = if strong {
                            stored
                        } else {
                            state[s].unify(stored)
                        };
                    }
                    state[EXTERNAL] = RefValue::Unknown;
                }
                InstKind::Load { ptr } if rewrite => {
                    let sites = self.pts_of(*ptr);
                    let mut known = None;
                    let mut ok = !sites.is_empty() && !sites.contains(&EXTERNAL);
                    for s in &sites {
                        match state[*s] {
                            RefValue::Known(v) if known.is_none() || known == Some(v) => {
                                known = Some(v)
                            }
                            _ => ok = false,
                        }
                    }
                    if let (true, Some(v)) = (ok, known) {
                        forwards.insert(data.results[0], v);
                    }
                }
                InstKind::Call { .. } => {
                    for &s in &self.contents[EXTERNAL] {
                        state[s] = RefValue::Unknown;
                    }
                }
                _ => {}
            }
            if cyclic {
                for &r in &data.results {
                    invalidate(&mut state, r);
                }
            }
        }
        self.out.insert(b, state);
        forwards
    }

    // ---- Step 3: rewrite against the final analysis ----

    fn forward_loads_and_remove_stores(&mut self, rpo: &[BlockId]) {
        let dom = DomTree::dominators(self.func);
        let inst_block = self.func.inst_blocks();
        let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
        for &b in rpo {
            let forwards = self.visit(b, true);
            let mut defined_here: HashSet<ValueId> =
                self.func.block(b).params.iter().copied().collect();
            let mut kept = Vec::new();
            for i in self.func.block(b).insts.clone() {
                let data = self.func.inst(i);
                let forwarded = data.results.first().and_then(|r| forwards.get(r)).copied();
                // A forwarded value may itself be a forwarded load: check what it resolves to.
                let resolved = forwarded.map(|mut v| {
                    while let Some(&next) = subst.get(&v) {
                        v = next;
                    }
                    v
                });
                match resolved {
                    Some(v) if available(self.func, &dom, &inst_block, v, b, &defined_here) => {
                        subst.insert(data.results[0], v);
                        self.stats.add("loads_forwarded", 1);
                    }
                    _ => kept.push(i),
                }
                defined_here.extend(self.func.inst(i).results.iter().copied());
            }
            self.func.block_mut(b).insts = kept;
        }
        self.func.replace_uses(&subst);

        // Stores nobody can observe: no used load may read their sites and none escaped.
        // (Whether a value is used, by value index: a map of use counts of an unrolled
        // function's hundred thousand values cost more than the rest of this step.)
        let mut used = vec![false; self.func.values.len()];
        self.func.for_each_use(|v| used[v.index()] = true);
        let mut observed: BTreeSet<Site> = self.contents[EXTERNAL].clone();
        observed.insert(EXTERNAL);
        for &b in &self.func.layout {
            for &i in &self.func.block(b).insts {
                let data = self.func.inst(i);
                if let InstKind::Load { ptr } = data.kind {
                    if used.get(data.results[0].index()).copied().unwrap_or(false) {
                        observed.extend(self.pts_of(ptr));
                    }
                }
            }
        }
        for b in self.func.layout.clone() {
            let before = self.func.block(b).insts.len();
            let func = &*self.func;
            let pts = &self.pts;
            let kept: Vec<InstId> = func
                .block(b)
                .insts
                .iter()
                .copied()
                .filter(|i| match func.inst(*i).kind {
                    InstKind::Store { ptr, .. } => pts
                        .get(&ptr)
                        .is_none_or(|sites| sites.iter().any(|s| observed.contains(s))),
                    _ => true,
                })
                .collect();
            self.stats.add("stores_removed", before - kept.len());
            self.func.block_mut(b).insts = kept;
        }
    }

    // ---- Step 4: promotion of allocations whose address never escapes ----

    fn promote(&mut self) {
        // Whether a value is used other than as the address of a load or store, by value
        // index (a hash map took an insertion per operand of the function).
        let mut other_use = vec![false; self.func.values.len()];
        let mut mark = |v: ValueId| {
            if let Some(slot) = other_use.get_mut(v.index()) {
                *slot = true;
            }
        };
        for &b in &self.func.layout {
            for &i in &self.func.block(b).insts {
                let kind = &self.func.inst(i).kind;
                let address = match kind {
                    InstKind::Load { ptr } => Some(*ptr),
                    InstKind::Store { ptr, value } if ptr != value => Some(*ptr),
                    _ => None,
                };
                kind.for_each_operand(|v| {
                    if Some(v) != address {
                        mark(v);
                    }
                });
            }
            if let Some(term) = &self.func.block(b).term {
                for v in term.operands() {
                    mark(v);
                }
            }
        }
        let candidates: Vec<ValueId> = self
            .site_value
            .iter()
            .flatten()
            .copied()
            .filter(|v| !other_use.get(v.index()).copied().unwrap_or(false))
            .collect();
        if candidates.is_empty() {
            return;
        }
        // Every jump into a block that gets a parameter must pass the cell's contents, which an
        // unreachable block does not have.
        remove_unreachable_blocks(self.func);
        let dom = DomTree::dominators(self.func);
        let rpo = self.func.reverse_post_order();
        let promoted = self.promote_all(&candidates, &dom, &rpo);
        if promoted > 0 {
            self.stats.add("allocations_promoted", promoted);
            replace_trivial_params(self.func);
        }
    }

    /// Promotes the `candidates` that can be (an `allocate` in a laid-out block, of a type
    /// without references), all in one walk of the dominator tree; returns how many.
    ///
    /// For each promoted cell, every block its allocation strictly dominates that has several
    /// incoming edges gets a parameter for the contents (in candidate order, then reverse
    /// post-order, and the zero value is built after the parameters, as one cell at a time would
    /// build them). The walk keeps each cell's current contents, undone when it leaves a
    /// subtree: a block with one incoming edge is a child of its predecessor in the tree, so it
    /// starts with its parent's contents at the end. A jump passes the contents at its block's end
    /// to the parameters of its target. Loads are substituted once at the end.
    fn promote_all(&mut self, candidates: &[ValueId], dom: &DomTree, rpo: &[BlockId]) -> usize {
        let home_of = self.func.inst_blocks();
        // (allocation instruction, type, home block) of each cell promoted, by cell index.
        let mut cells: Vec<(InstId, Type, BlockId)> = Vec::new();
        let mut cell_of: HashMap<ValueId, usize> = HashMap::default();
        for &alloc in candidates {
            let ValueDef::Result(alloc_inst, _) = self.func.value(alloc).def else {
                continue;
            };
            let InstKind::Allocate { ty } = &self.func.inst(alloc_inst).kind else {
                continue;
            };
            // No zero value can be written for a reference.
            if ty.contains_ref() {
                continue;
            }
            let Some(&home) = home_of.get(&alloc_inst) else {
                continue;
            };
            cell_of.insert(alloc, cells.len());
            cells.push((alloc_inst, ty.clone(), home));
        }
        if cells.is_empty() {
            return 0;
        }
        let incoming = incoming_edges(self.func);
        let mut params: HashMap<BlockId, Vec<(usize, ValueId)>> = HashMap::default();
        let mut zeros: Vec<Option<(ValueId, Vec<InstId>)>> = Vec::with_capacity(cells.len());
        for (c, (_, ty, home)) in cells.iter().enumerate() {
            for &b in rpo {
                if b != *home && dom.dominates(*home, b) && incoming[&b].len() != 1 {
                    let p = self.func.append_block_param(b, ty.clone());
                    params.entry(b).or_default().push((c, p));
                }
            }
            zeros.push(Some(zero_value(self.func, ty)));
        }
        let mut children: HashMap<BlockId, Vec<BlockId>> = HashMap::default();
        for &b in rpo {
            if let Some(parent) = dom.idom(b) {
                children.entry(parent).or_default().push(b);
            }
        }
        let alloc_cell: HashMap<InstId, usize> = cells
            .iter()
            .enumerate()
            .map(|(c, (i, _, _))| (*i, c))
            .collect();
        let mut current: Vec<Option<ValueId>> = vec![None; cells.len()];
        let mut undo: Vec<(usize, Option<ValueId>)> = Vec::new();
        let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
        let mut stores_removed = 0;
        // Depth-first over the dominator tree; `Leave(mark)` undoes the subtree's changes.
        enum Step {
            Enter(BlockId),
            Leave(usize),
        }
        let mut stack: Vec<Step> = rpo.first().map(|&b| Step::Enter(b)).into_iter().collect();
        while let Some(step) = stack.pop() {
            let b = match step {
                Step::Leave(mark) => {
                    for (c, old) in undo.drain(mark..).rev() {
                        current[c] = old;
                    }
                    continue;
                }
                Step::Enter(b) => b,
            };
            stack.push(Step::Leave(undo.len()));
            for &(c, p) in params.get(&b).into_iter().flatten() {
                undo.push((c, current[c]));
                current[c] = Some(p);
            }
            let mut insts = Vec::new();
            for i in std::mem::take(&mut self.func.block_mut(b).insts) {
                let set = match &self.func.inst(i).kind {
                    InstKind::Allocate { .. } => alloc_cell.get(&i).map(|&c| {
                        let (zero, zero_insts) = zeros[c].take().expect("bug: allocated twice");
                        insts.extend(zero_insts);
                        (c, zero)
                    }),
                    InstKind::Load { ptr } => {
                        if let Some(&c) = cell_of.get(ptr) {
                            let r = self.func.inst(i).results[0];
                            subst.insert(r, current[c].expect("bug: load before its allocation"));
                            continue;
                        }
                        None
                    }
                    InstKind::Store { ptr, value } => cell_of.get(ptr).map(|&c| {
                        stores_removed += 1;
                        (c, *value)
                    }),
                    _ => None,
                };
                match set {
                    Some((c, v)) => {
                        undo.push((c, current[c]));
                        current[c] = Some(v);
                    }
                    None => insts.push(i),
                }
            }
            self.func.block_mut(b).insts = insts;
            let term = self
                .func
                .block_mut(b)
                .term
                .as_mut()
                .expect("bug: no terminator");
            for call in term.block_calls_mut() {
                for &(c, _) in params.get(&call.block).into_iter().flatten() {
                    call.args
                        .push(current[c].expect("bug: promoted block without contents"));
                }
            }
            for &child in children.get(&b).into_iter().flatten().rev() {
                stack.push(Step::Enter(child));
            }
        }
        if stores_removed > 0 {
            self.stats.add("stores_removed", stores_removed);
        }
        self.func.replace_uses(&subst);
        cells.len()
    }
}

/// Whether `v` is available at the current point of block `b` (`defined_here`: the values `b`
/// defined so far).
fn available(
    func: &Function,
    dom: &DomTree,
    inst_block: &HashMap<InstId, BlockId>,
    v: ValueId,
    b: BlockId,
    defined_here: &HashSet<ValueId>,
) -> bool {
    match func.value(v).def {
        ValueDef::Const(_) => true,
        ValueDef::Param(d, _) => dom.dominates(d, b),
        ValueDef::Result(i, _) => {
            defined_here.contains(&v)
                || inst_block
                    .get(&i)
                    .is_some_and(|d| dom.strictly_dominates(*d, b))
        }
    }
}

/// Makes every site `Known(r)` `Unknown`: `r` is being redefined.
fn invalidate(state: &mut State, r: ValueId) {
    for s in state.iter_mut() {
        if *s == RefValue::Known(r) {
            *s = RefValue::Unknown;
        }
    }
}

/// The zero value of `ty` (no references), with the `make_array` instructions that build it.
fn zero_value(func: &mut Function, ty: &Type) -> (ValueId, Vec<InstId>) {
    match ty {
        Type::Field => (func.const_field(Fr::zero()), Vec::new()),
        Type::UInt(w) => (func.const_uint(*w, 0), Vec::new()),
        Type::Array(elem, n) => {
            let (e, mut insts) = zero_value(func, elem);
            let kind = InstKind::MakeArray {
                elems: thin_vec::thin_vec![e; *n as usize],
                elem_ty: (**elem).clone(),
            };
            let inst = add_inst(func, kind, std::slice::from_ref(ty), None);
            insts.push(inst);
            (func.inst(inst).results[0], insts)
        }
        Type::Ref(_) => panic!("bug: zero value of a reference"),
    }
}
