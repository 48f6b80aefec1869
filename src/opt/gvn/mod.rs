//! Global value numbering: an instruction that computes what an earlier instruction of the same
//! block or of a dominating block already computed is removed, and its result replaced by the
//! earlier one's.
//!
//! # Algorithm
//!
//! A walk of the dominator tree (children in reverse post-order) with a scoped hash table from
//! an instruction's *key* to the instruction that first computed it (the table holds only the
//! instruction, 4 bytes, found by its key's hash; a hit is confirmed by recomputing the earlier
//! instruction's key and comparing, so the table stays small on a merged block of millions of
//! instructions; it is sized once for every instruction of the function and never grows):
//!
//! 1. Entering a block opens a scope. Each instruction in order has its operands renamed by the
//!    replacements made so far (a definition dominates its uses, so every operand's replacement
//!    is known by then); then, if it is eligible, its key is looked up:
//!    - found: the instruction is removed and its result replaced by the value found;
//!    - not found: the key is added to the table in the block's scope.
//! 2. The block's children in the dominator tree are walked; leaving the block closes its scope
//!    (its keys are removed), so a value is only ever reused where its definition dominates.
//! 3. Terminators (jump arguments, conditions, returned values) are renamed at the end.
//!
//! The key is the opcode with its attributes (the type of a `cast`, the target of a `trunc`,
//! ...), the operands and the result types. Operands that are constants are
//! compared by type and value (`u32 1` written twice is one operand); the operands of the
//! commutative operations `add`, `mul`, `and`, `or`, `xor` and `eq` are sorted. The `nuw` flag
//! is not part of the key: the instruction kept is the earlier one, with its own flag. It cannot
//! take the later one's `nuw`, which is a fact about the executions that reach the later one.
//!
//! Eligible are the instructions whose result depends only on their operands: every one except
//! `assert`, `store`, `load`, `log`, `call`, `allocate` and `make_array` (but see below). That
//! includes the ones that can fail — `array_get` and `array_set` out of bounds, `cast` that does
//! not fit, `bound`, division by zero: an identical instruction dominated by the first can fail
//! only if the first did, and then execution stopped there.
//!
//! # Hints
//!
//! A `hint` is numbered by its function, arguments and guard: two hints of the same function
//! on the same arguments under the same guard (or none) give the same witnesses. Hints under
//! different guards are not numbered as one: a hint whose guard is 0 gives zeros, and on IR in
//! general those zeros may be observed, so neither guard can simply be dropped. (Dropping it
//! failed `tests/opt_random.rs` at seed 13000296.) After the walk, `hints` shares two such
//! hints of one block under the union of their guards where it proves that neither one's
//! results are observed where its own guard fails (the predicated arms of a merged `if`, as in
//! the sealed-bid opening, which unpacks the same message in each arm before hashing it); the
//! walk then runs again and numbers what the two arms built on them as one, up to
//! [`MAX_HINT_ROUNDS`] times.
//!
//! # Arrays
//!
//! `make_array` is numbered only within its own block and only when the array is read-only:
//! every use an instruction whose results are not arrays (no `array_set`, `select`, jump
//! argument, ...). Building an array costs nothing in R1CS (its elements are wires already),
//! and sharing one that is written couples what should stay apart: two arrays that start equal
//! (`u32[5] a = [0; 5]; u32[5] b = [0; 5];`, each then written) are two array families;
//! numbered as one value they rode in several places of every transition state and left memory
//! (`zkbc opt --cost-after` on cobbl_dna_align: 82,520 cells before gvn, 207,688 after). And
//! `remat` gives each block that uses a constant array its own copy, so that it does not ride
//! in the transition states in between; reusing a dominating block's copy would undo that. A
//! read-only array's readers (`from_bits` of the same bits, in both arms) are what needs it.
//!
//! A cast that costs nothing (`uN` to `field` or to a wider `uM`) is likewise shared only with
//! one of its own block: the operand's range, known in each block from its type, would be lost
//! on another block's result (`free_cast`).
//!
//! `v = array_get a, k` at a constant index `k`, where `a` was made in the same block by
//! `array_set`s at constant indices on a `make_array`, is the element written last at `k` (or
//! the `make_array`'s element), which dominates `v`: `v` is replaced by it. Only within the
//! block, so that no element rides in a transition state in place of a read.
//!
//! ```text
//! b0(v0: [u32; 4], v1: u32, v2: u1):          b0(v0: [u32; 4], v1: u32, v2: u1):
//!     v3 = array_get v0, v1                       v3 = array_get v0, v1
//!     br v2, b1(), b2()                           br v2, b1(), b2()
//! b1():                                 ==>   b1():
//!     v4 = add v3, v1                             v4 = add v3, v1
//!     v5 = array_get v0, v1                       v7 = mul v4, v4
//!     v6 = add v1, v5                             return v7
//!     v7 = mul v4, v6                         b2():
//!     return v7                                   v8 = add v1, v3
//! b2():                                           return v8
//!     v8 = add v1, v3
//!     return v8
//! ```
//! (`v5` is `v3`, computed in the dominating `b0`; then `v6 = add v1, v3` is `v4` with its
//! operands commuted. `v8` has `v4`'s key too but stays: `b1` does not dominate `b2`.)

mod hints;

use super::PassStats;
use crate::analysis::DomTree;
use crate::fxhash::{FxMap, FxSet};
use crate::ir::{
    BinOp, BlockId, Const, Function, InstId, InstKind, Program, Type, ValueDef, ValueId,
};
use hashbrown::HashTable;

/// Runs the pass on every function.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, run_function)
}

/// The most times the walk runs again after `hints` shared some (each share may make the
/// arguments of the next pair of hints equal).
pub const MAX_HINT_ROUNDS: usize = 16;

/// Runs the pass on one function.
pub fn run_function(func: &mut Function) -> PassStats {
    let mut stats = Ctx::new(func).run();
    for _ in 0..MAX_HINT_ROUNDS {
        let shared = hints::share(func);
        if shared == 0 {
            break;
        }
        stats.add("hints_shared", shared);
        stats.merge(Ctx::new(func).run());
    }
    stats
}

/// What an instruction computes.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Key {
    /// The instruction with canonical operands (constants by their representative, commutative
    /// operands sorted).
    kind: InstKind,
    /// Its result's type (every numbered instruction has one result).
    result: Type,
}

/// Whether the result of an instruction of this kind depends only on its operands (a hint's on
/// its function, arguments and guard: see the module doc).
fn eligible(kind: &InstKind) -> bool {
    match kind {
        InstKind::Hint { ret, .. } => !ret.is_empty(),
        _ => !matches!(
            kind,
            InstKind::Assert { .. }
                | InstKind::Store { .. }
                | InstKind::Load { .. }
                | InstKind::Log { .. }
                | InstKind::Call { .. }
                | InstKind::Allocate { .. }
                | InstKind::MakeArray { .. }
        ),
    }
}

/// The `make_array` results only read, by instructions with a result that is not an array:
/// never written, never copied into another array, never passed to another block. Two such
/// arrays with the same elements are one value; sharing them couples no array families.
fn shareable_arrays(func: &Function) -> FxSet<ValueId> {
    let mut arrays = FxSet::default();
    // By value index: every operand of most instructions is marked, a set's insert each.
    let mut escaping = vec![false; func.values.len()];
    for &b in &func.layout {
        let block = func.block(b);
        for &i in &block.insts {
            let data = func.inst(i);
            if matches!(data.kind, InstKind::MakeArray { .. }) {
                arrays.insert(data.results[0]);
            }
            let reads_only = eligible(&data.kind)
                && data
                    .results
                    .iter()
                    .all(|r| !matches!(func.value_type(*r), Type::Array(..)));
            if !reads_only {
                data.kind.for_each_operand(|v| {
                    if let Some(e) = escaping.get_mut(v.index()) {
                        *e = true;
                    }
                });
            }
        }
        if let Some(term) = &block.term {
            for v in term.operands() {
                if let Some(e) = escaping.get_mut(v.index()) {
                    *e = true;
                }
            }
        }
    }
    arrays.retain(|v| !escaping.get(v.index()).copied().unwrap_or(false));
    arrays
}

/// Whether instruction `i` is looked up in the table: an eligible one, or a shareable array.
fn numbered(func: &Function, shared_arrays: &FxSet<ValueId>, i: InstId) -> bool {
    let data = func.inst(i);
    match data.kind {
        InstKind::MakeArray { .. } => shared_arrays.contains(&data.results[0]),
        _ => eligible(&data.kind),
    }
}

/// Whether `kind` is a cast that costs nothing in R1CS: from `uN` to `field` or to a wider
/// `uM` (the result is the operand's wire). Numbered only within its block, like an array:
/// taking a dominating block's result instead swaps the operand for the result in the
/// transition states in between (no fewer wires) and loses the operand's range, which the
/// lowering of each block knows from its type and not from a state wire's (facts do not cross
/// blocks): `lt field 0, v` on a `u8` cast to `field` is a few constraints in its own block,
/// a 254-bit comparison on another block's `field` (`zkbc opt --cost-after` on seed 2910 of
/// `tests/opt_levels_monotone.rs`: 1,300 executed constraints before gvn, 1,627 after).
fn free_cast(func: &Function, kind: &InstKind) -> bool {
    let InstKind::Cast { arg, to } = kind else {
        return false;
    };
    match (func.value_type(*arg), to) {
        (Type::UInt(_), Type::Field) => true,
        (Type::UInt(n), Type::UInt(m)) => n <= m,
        _ => false,
    }
}

/// The most `array_set`s [`Ctx::element_read`] looks through (a 512-bit message is 512).
const MAX_CHAIN: usize = 1024;

fn is_commutative(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Eq
    )
}

struct Ctx<'f> {
    func: &'f mut Function,
    /// The instructions that first computed each key, in the scopes open on the walk, found by
    /// the key's hash. Neither keys nor hashes are stored (a merged block has millions): a hit
    /// is confirmed by recomputing the earlier instruction's key, which is the key it had when
    /// it was numbered. Sized for every eligible instruction of the function, it never grows,
    /// so it never needs the hash of an entry it holds.
    table: HashTable<InstId>,
    /// The table's entries for the hash being looked up (a buffer kept between lookups).
    candidates: Vec<InstId>,
    /// Removed results to the values that replace them.
    subst: FxMap<ValueId, ValueId>,
    /// The first constant value seen of each type and value: the one operand all equal
    /// constants are compared as.
    const_reps: FxMap<(Type, Const), ValueId>,
    /// The block each instruction kept so far is in (by instruction index; `None` for the
    /// instructions not yet walked or removed), for [`Ctx::element_read`].
    block_of: Vec<Option<BlockId>>,
    /// The `make_array` results that may be numbered ([`shareable_arrays`]).
    shared_arrays: FxSet<ValueId>,
    stats: PassStats,
}

/// A step of the dominator-tree walk.
enum Step {
    Enter(BlockId),
    /// Leave a block: remove these instructions (with their keys' hashes), added in its scope.
    Leave(Vec<(u64, InstId)>),
}

fn hash_of(key: &Key) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::fxhash::FxHasher::default();
    key.hash(&mut h);
    h.finish()
}

impl<'f> Ctx<'f> {
    fn new(func: &'f mut Function) -> Self {
        let shared_arrays = shareable_arrays(func);
        let eligible_insts = func
            .layout
            .iter()
            .flat_map(|b| &func.block(*b).insts)
            .filter(|i| numbered(func, &shared_arrays, **i))
            .count();
        let block_of = vec![None; func.insts.len()];
        Ctx {
            func,
            table: HashTable::with_capacity(eligible_insts),
            candidates: Vec::new(),
            subst: FxMap::default(),
            const_reps: FxMap::default(),
            block_of,
            shared_arrays,
            stats: PassStats::default(),
        }
    }

    fn run(mut self) -> PassStats {
        let dom = DomTree::dominators(self.func);
        let mut children: FxMap<BlockId, Vec<BlockId>> = FxMap::default();
        for b in self.func.reverse_post_order() {
            if let Some(parent) = dom.idom(b) {
                children.entry(parent).or_default().push(b);
            }
        }
        // Blocks still to number: the last one's keys are never looked up again, so it keeps
        // no scope (a monolithic function is one block of millions of instructions).
        let mut to_enter = 1 + children.values().map(Vec::len).sum::<usize>();
        let mut stack = vec![Step::Enter(self.func.entry)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Enter(b) => {
                    to_enter -= 1;
                    let scope = self.number_block(b, to_enter > 0);
                    stack.push(Step::Leave(scope));
                    if let Some(kids) = children.get(&b) {
                        stack.extend(kids.iter().rev().map(|c| Step::Enter(*c)));
                    }
                }
                Step::Leave(scope) => {
                    for (hash, inst) in scope {
                        if let Ok(entry) = self.table.find_entry(hash, |&i| i == inst) {
                            entry.remove();
                        }
                    }
                }
            }
        }
        let subst = std::mem::take(&mut self.subst);
        self.func.replace_uses(&subst);
        self.stats
    }

    /// Step 1 on block `b`: returns the instructions added in its scope, with their keys' hashes.
    fn number_block(&mut self, b: BlockId, keep_scope: bool) -> Vec<(u64, InstId)> {
        let mut scope = Vec::new();
        let insts = std::mem::take(&mut self.func.block_mut(b).insts);
        let mut kept = Vec::with_capacity(insts.len());
        for i in insts {
            let subst = &self.subst;
            let data = self.func.inst_mut(i);
            data.kind
                .map_operands(|v| subst.get(&v).copied().unwrap_or(v));
            if !numbered(self.func, &self.shared_arrays, i) {
                self.block_of[i.index()] = Some(b);
                kept.push(i);
                continue;
            }
            if let Some(elem) = self.element_read(b, i) {
                let result = self.func.inst(i).results[0];
                self.subst.insert(result, elem);
                self.stats.add("elements_forwarded", 1);
                continue;
            }
            let key = self.key(i);
            let hash = hash_of(&key);
            match self.earlier(hash, &key) {
                // An array is shared only with one of its own block: `remat` gave each block
                // its copy, so that the array does not ride in the states in between. So is a
                // free cast (see `free_cast`).
                Some(earlier)
                    if (matches!(key.kind, InstKind::MakeArray { .. })
                        || free_cast(self.func, &key.kind))
                        && self.block_of[earlier.index()] != Some(b) =>
                {
                    self.block_of[i.index()] = Some(b);
                    kept.push(i);
                }
                Some(earlier) => {
                    let (func, subst) = (&mut *self.func, &mut self.subst);
                    let results = &func.inst(i).results;
                    let earlier_results = &func.inst(earlier).results;
                    for (r, e) in results.iter().zip(earlier_results.iter()) {
                        subst.insert(*r, *e);
                    }
                    self.stats.add("insts_replaced", 1);
                }
                None => {
                    self.block_of[i.index()] = Some(b);
                    if keep_scope {
                        scope.push((hash, i));
                    }
                    self.table.insert_unique(hash, i, |_| {
                        unreachable!("bug: gvn's table was sized for every instruction")
                    });
                    kept.push(i);
                }
            }
        }
        self.func.block_mut(b).insts = kept;
        scope
    }

    /// `v = array_get a, k` at a constant index `k`, where `a` was built in this block `b` by
    /// `array_set`s at constant indices on a `make_array [e0, e1, ...]`: the value last written
    /// at `k`, or `ek` (each dominates `v`). Only within the block, so that no element starts
    /// to ride in a transition state (or leaves memory) in place of a read.
    fn element_read(&self, b: BlockId, i: InstId) -> Option<ValueId> {
        let InstKind::ArrayGet { array, index } = &self.func.inst(i).kind else {
            return None;
        };
        let k = self.const_index(*index)?;
        let mut array = *array;
        for _ in 0..MAX_CHAIN {
            let ValueDef::Result(def, 0) = self.func.value(array).def else {
                return None;
            };
            if self.block_of[def.index()] != Some(b) {
                return None;
            }
            match &self.func.inst(def).kind {
                InstKind::MakeArray { elems, .. } => {
                    return usize::try_from(k).ok().and_then(|k| elems.get(k)).copied()
                }
                InstKind::ArraySet {
                    array: a,
                    index: j,
                    value,
                } => match self.const_index(*j)? {
                    j if j == k => return Some(*value),
                    _ => array = *a,
                },
                _ => return None,
            }
        }
        None
    }

    fn const_index(&self, v: ValueId) -> Option<u64> {
        match self.func.const_value(v)? {
            Const::UInt(k) => Some(k),
            Const::Field(_) => None,
        }
    }

    /// The instruction in the table whose key is `key` (of hash `hash`). The table may offer
    /// instructions of other hashes too (it compares 7 bits of each): their keys differ.
    fn earlier(&mut self, hash: u64, key: &Key) -> Option<InstId> {
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        candidates.extend(self.table.iter_hash(hash).copied());
        let found = candidates
            .iter()
            .copied()
            .find(|&earlier| self.key(earlier) == *key);
        self.candidates = candidates;
        found
    }

    /// The key of instruction `i` (operands already renamed).
    fn key(&mut self, i: InstId) -> Key {
        let data = self.func.inst(i);
        let mut kind = data.kind.clone();
        let result = self.func.value_type(data.results[0]).clone();
        let (func, reps) = (&*self.func, &mut self.const_reps);
        kind.map_operands(|v| match func.const_value(v) {
            Some(c) => *reps.entry((func.value_type(v).clone(), c)).or_insert(v),
            None => v,
        });
        if let InstKind::Binary { op, lhs, rhs } = &mut kind {
            if is_commutative(*op) && rhs < lhs {
                std::mem::swap(lhs, rhs);
            }
        }
        Key { kind, result }
    }
}
