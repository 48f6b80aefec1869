//! Rematerialization of constant arrays: a block that uses a constant array defined in another
//! block gets its own copy of the definition, so the array no longer rides in the transition
//! states between the two blocks.
//!
//! A *constant composite* is a `make_array` whose elements are all constants or constant
//! composites themselves (nested arrays). In R1CS it costs nothing to compute — each leaf is a
//! multiple of the constant 1 — but a value used in a block other than its own is part of the
//! input state of that block and of every block between (`r1cs::live`), and every leaf of a
//! state costs a constraint in each of them. Recomputing it where it is used costs nothing.
//!
//! # Algorithm
//!
//! 1. **Contents.** Give every constant composite its content: the element type and the contents
//!    of its elements (a scalar constant's content is its type and value), interned so that
//!    equal contents have one id. Visit the blocks in reverse post-order, definitions first.
//! 2. **Constant parameters.** A parameter of a non-entry block to which every jump passes a
//!    value of one content `k` (or the parameter itself) always holds `k`: it gets content `k`.
//!    Steps 1 and 2 repeat until nothing new is found (an array built from such a parameter is a
//!    constant composite too). Such parameters are removed with their jump arguments. (This is
//!    by content: `simplify_cfg` replaces a parameter only when every jump passes the same
//!    value, and two builds of one constant array are two values.)
//! 3. **Copies.** In every block `B`, each operand (of an instruction or of the terminator)
//!    that has a content and is defined in another block (or is a parameter removed in step 2)
//!    is replaced by a copy of its definition placed at the start of `B`: one copy per content
//!    and block, nested arrays copied first. Equal contents give one value per block, so jumps
//!    from one block that pass the same constant array pass the same value, and
//!    `simplify_cfg` can treat a parameter bound to it as trivial. A forwarder block (no
//!    instructions, a `jmp`) that passes a constant array gets a copy too, and so stops being
//!    one that `simplify_cfg` bypasses. That is deliberate: such a block is typically on the
//!    edge that leaves a loop for the next one, whose parameter the array initializes; the
//!    alternative, a copy in the `br` block before it (the loop header), would make the header
//!    output the array on every iteration. A block executed once is cheaper (CoBBl's
//!    kmp_search: 64k fewer cells, 200 more constraints in total).
//!
//! The original definitions are left to `dce` once nothing else uses them.
//!
//! ```text
//! b0(v0: u32):                          b0(v0: u32):
//!     v1 = make_array [u8 3, u8 1] : u8     v1 = make_array [u8 3, u8 1] : u8
//!     jmp b1(u32 0, u8 0)                   jmp b1(u32 0, u8 0)
//! b1(v2: u32, v3: u8):                  b1(v2: u32, v3: u8):
//!     v4 = eq v2, v0                        v4 = eq v2, v0
//!     br v4, b3(), b2()                     br v4, b3(), b2()
//! b2():                           ==>   b2():
//!     v5 = array_get v1, v2                 v9 = make_array [u8 3, u8 1] : u8
//!     v6 = add v3, v5                       v5 = array_get v9, v2
//!     v7 = add v2, u32 1                    v6 = add v3, v5
//!     jmp b1(v7, v6)                        v7 = add v2, u32 1
//! b3():                                     jmp b1(v7, v6)
//!     return v3                         b3():
//!                                           return v3
//! ```
//! (`v1` was live in `b1` and `b2`: two leaves in each of their states; now it is dead.)

use crate::fxhash::{HashMap, HashSet};

use super::util::{edge, incoming_edges, remove_params};
use super::PassStats;
use crate::ir::{BlockId, Const, Function, InstKind, Program, Type, ValueId};

/// Runs the pass on every function.
pub fn run(program: &mut Program) -> PassStats {
    PassStats::each_function(program, run_function)
}

/// Runs the pass on one function.
pub fn run_function(func: &mut Function) -> PassStats {
    Ctx::new(func).run()
}

/// An interned content.
type ContentId = usize;

/// The content of a constant: a scalar, or an array of interned contents.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Content {
    /// A scalar constant of this type.
    Scalar(Type, Const),
    /// `make_array` of these element contents, with this element type.
    Array(Type, Vec<ContentId>),
}

struct Ctx<'f> {
    func: &'f mut Function,
    interned: HashMap<Content, ContentId>,
    contents: Vec<Content>,
    /// The content of each non-constant value found to hold one (constant composites and
    /// constant parameters).
    of_value: HashMap<ValueId, ContentId>,
    /// The copy of each content made in each block.
    copies: HashMap<(BlockId, ContentId), ValueId>,
    /// How many copies were inserted at the start of each block (the next one goes after them).
    n_inserted: HashMap<BlockId, usize>,
    stats: PassStats,
}

impl<'f> Ctx<'f> {
    fn new(func: &'f mut Function) -> Self {
        Ctx {
            func,
            interned: HashMap::default(),
            contents: Vec::new(),
            of_value: HashMap::default(),
            copies: HashMap::default(),
            n_inserted: HashMap::default(),
            stats: PassStats::default(),
        }
    }

    fn intern(&mut self, content: Content) -> ContentId {
        if let Some(&id) = self.interned.get(&content) {
            return id;
        }
        let id = self.contents.len();
        self.contents.push(content.clone());
        self.interned.insert(content, id);
        id
    }

    /// The content of `v`, if it is a constant or holds one.
    fn content_of(&mut self, v: ValueId) -> Option<ContentId> {
        match self.func.const_value(v) {
            Some(c) => {
                let ty = self.func.value_type(v).clone();
                Some(self.intern(Content::Scalar(ty, c)))
            }
            None => self.of_value.get(&v).copied(),
        }
    }

    fn run(mut self) -> PassStats {
        let rpo = self.func.reverse_post_order();
        let constant_params = self.find_contents(&rpo);
        self.remove_constant_params(&constant_params);
        let removed: HashSet<ValueId> = constant_params.iter().map(|(_, _, p)| *p).collect();
        let mut def_block: HashMap<ValueId, BlockId> = HashMap::default();
        for &b in &self.func.layout {
            let data = self.func.block(b);
            def_block.extend(data.params.iter().map(|p| (*p, b)));
            for &i in &data.insts {
                def_block.extend(self.func.inst(i).results.iter().map(|r| (*r, b)));
            }
        }
        for b in self.func.layout.clone() {
            // A use needs a copy when its value has a content and is defined elsewhere.
            let needs_copy = |ctx: &Self, v: ValueId| {
                ctx.of_value.contains_key(&v)
                    && (removed.contains(&v) || def_block.get(&v) != Some(&b))
            };
            for i in self.func.block(b).insts.clone() {
                let operands = self.func.inst(i).kind.operands();
                let map = self.copies_in(b, operands, needs_copy);
                if !map.is_empty() {
                    let kind = &mut self.func.inst_mut(i).kind;
                    kind.map_operands(|v| map.get(&v).copied().unwrap_or(v));
                }
            }
            let Some(term) = self.func.block(b).term.clone() else {
                continue;
            };
            let map = self.copies_in(b, term.operands(), needs_copy);
            if !map.is_empty() {
                let term = self.func.block_mut(b).term.as_mut().expect("checked above");
                term.map_operands(|v| map.get(&v).copied().unwrap_or(v));
            }
        }
        self.stats
    }

    /// A copy in `b` of each of `operands` that `needs` one, by the value it replaces.
    fn copies_in(
        &mut self,
        b: BlockId,
        mut operands: Vec<ValueId>,
        needs: impl Fn(&Self, ValueId) -> bool,
    ) -> HashMap<ValueId, ValueId> {
        operands.retain(|v| needs(self, *v));
        let mut map = HashMap::default();
        for v in operands {
            let copy = self.copy_in(b, self.of_value[&v]);
            map.insert(v, copy);
        }
        map
    }

    /// Steps 1 and 2: the contents of constant composites and constant parameters. Returns the
    /// constant parameters (block, index, value).
    fn find_contents(&mut self, rpo: &[BlockId]) -> Vec<(BlockId, usize, ValueId)> {
        let incoming = incoming_edges(self.func);
        let mut constant_params = Vec::new();
        loop {
            let mut changed = false;
            for &b in rpo {
                for i in self.func.block(b).insts.clone() {
                    let data = self.func.inst(i);
                    let InstKind::MakeArray { elems, elem_ty } = &data.kind else {
                        continue;
                    };
                    let result = data.results[0];
                    if self.of_value.contains_key(&result) {
                        continue;
                    }
                    let (elems, elem_ty) = (elems.clone(), elem_ty.clone());
                    let ids: Option<Vec<ContentId>> =
                        elems.iter().map(|e| self.content_of(*e)).collect();
                    if let Some(ids) = ids {
                        let id = self.intern(Content::Array(elem_ty, ids));
                        self.of_value.insert(result, id);
                        changed = true;
                    }
                }
                if b == self.func.entry {
                    continue;
                }
                for (idx, p) in self.func.block(b).params.clone().into_iter().enumerate() {
                    if self.of_value.contains_key(&p) {
                        continue;
                    }
                    let mut only: Option<ContentId> = None;
                    let mut constant = true;
                    for &(src, k) in &incoming[&b] {
                        let arg = edge(self.func, src, k).args[idx];
                        if arg == p {
                            continue;
                        }
                        match self.content_of(arg) {
                            Some(c) if only.is_none() || only == Some(c) => only = Some(c),
                            _ => {
                                constant = false;
                                break;
                            }
                        }
                    }
                    if let (true, Some(c)) = (constant, only) {
                        self.of_value.insert(p, c);
                        constant_params.push((b, idx, p));
                        changed = true;
                    }
                }
            }
            if !changed {
                return constant_params;
            }
        }
    }

    /// Removes the constant parameters found by step 2 and their jump arguments (their uses are
    /// rewritten by step 3).
    fn remove_constant_params(&mut self, params: &[(BlockId, usize, ValueId)]) {
        let incoming = incoming_edges(self.func);
        let mut keep: HashMap<BlockId, Vec<bool>> = HashMap::default();
        for &(b, idx, _) in params {
            let n = self.func.block(b).params.len();
            keep.entry(b).or_insert_with(|| vec![true; n])[idx] = false;
        }
        let mut blocks: Vec<BlockId> = keep.keys().copied().collect();
        blocks.sort();
        for b in blocks {
            remove_params(self.func, b, &keep[&b], &incoming[&b]);
        }
        self.stats.add("params_made_constant", params.len());
    }

    /// The copy of content `id` in block `b`, made (at the start of `b`, after the copies made
    /// before) if there is none yet.
    fn copy_in(&mut self, b: BlockId, id: ContentId) -> ValueId {
        if let Some(&v) = self.copies.get(&(b, id)) {
            return v;
        }
        let v = match self.contents[id].clone() {
            Content::Scalar(ty, c) => self.func.make_const(ty, c),
            Content::Array(elem_ty, elems) => {
                let elems = elems.into_iter().map(|e| self.copy_in(b, e)).collect();
                let inst = self
                    .func
                    .create_inst(InstKind::MakeArray { elems, elem_ty }, &[], None);
                let at = self.n_inserted.entry(b).or_insert(0);
                self.func.block_mut(b).insts.insert(*at, inst);
                *at += 1;
                self.stats.add("arrays_rematerialized", 1);
                self.func.inst(inst).results[0]
            }
        };
        self.copies.insert((b, id), v);
        v
    }
}
