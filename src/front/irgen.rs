//! IR generation (lowering): the typed tree to block IR, one IR function per source function.
//!
//! The rules, chosen so that the optimizer has honest work to do:
//! - **Values are flattened.** A source value is a list of IR values, its *leaves*
//!   ([`ir_leaves`]): a scalar is one leaf; a struct or tuple is the concatenation of its members'
//!   leaves; an array of `T` has one IR array per leaf of `T` (an array of structs is one IR
//!   array per member). Function parameters and results are flattened likewise, so `main`'s IR
//!   parameters are the leaves of its source parameters in order.
//! - **Mutable variables live in memory**, as in clang -O0: every `mut` local and `mut` parameter
//!   is one `allocate` per leaf, with a `store` at every assignment and a `load` at every use;
//!   mem2reg turns them into SSA later. Immutable locals are SSA values directly.
//! - **Control flow is blocks and branches.** `if` statements and conditional expressions
//!   branch to their sides and join in a block whose parameters carry the result; a conditional
//!   whose sides cannot fail and have no calls becomes `select` instead. `while c { }` is a
//!   header block testing `c`; `for i in a..b { }` is a header block with the induction variable
//!   as block parameter, `lt i, b`, the body and an increment. `return` ends its block anywhere.
//! - **Calls stay calls**; the inline pass removes them.
//! - Every instruction that can fail (`assert`, division, indexing, `cast` to `uN`) carries the
//!   source line:column of the expression it comes from.
//!
//! ```text
//! def main(field a, u32 n) -> field {      fn main f0 -> field {
//!     field mut x = a;                     b0(v0: field, v1: u32):
//!     for u32 i in 0..n {                      v2 = allocate field
//!         x = x * a;                           store v0 at v2
//!     }                                        jmp b1(u32 0)
//!     return x;                            b1(v3: u32):
//! }                                            v4 = lt v3, v1
//!                                              br v4, b2(), b3()
//!                                          b2():
//!                                              v5 = load v2
//!                                              v6 = mul v5, v0
//!                                              store v6 at v2
//!                                              v7 = add v3, u32 1
//!                                              jmp b1(v7)
//!                                          b3():
//!                                              v8 = load v2
//!                                              return v8
//!                                          }
//! ```

use super::consteval::{eval, Value};
use super::modules::SourceMap;
use super::typed::{
    self, ArrayElem, BinaryOp, Builtin, Expr, ExprKind, LocalId, Place, PlaceElem, Stmt, Type,
    UnaryOp,
};
use crate::diagnostics::Span;
use crate::field::Fr;
use crate::ir::{self, BinOp, BlockId, FunctionBuilder, SrcLoc, ValueId};
use ark_ff::{One, Zero};

/// The IR types of the leaves of a source type, in order.
pub fn ir_leaves(ty: &Type) -> Vec<ir::Type> {
    let mut out = Vec::new();
    push_leaves(ty, &mut out);
    out
}

fn push_leaves(ty: &Type, out: &mut Vec<ir::Type>) {
    match ty {
        Type::Field => out.push(ir::Type::Field),
        Type::Bool => out.push(ir::Type::BOOL),
        Type::Uint(w) => out.push(ir::Type::UInt(*w)),
        Type::Array(elem, n) => {
            for leaf in ir_leaves(elem) {
                out.push(ir::Type::array(leaf, *n));
            }
        }
        Type::Struct(s) => {
            for (_, t) in &s.fields {
                push_leaves(t, out);
            }
        }
        Type::Tuple(ts) => {
            for t in ts {
                push_leaves(t, out);
            }
        }
    }
}

fn n_leaves(ty: &Type) -> usize {
    ir_leaves(ty).len()
}

/// The bound of ZoKrates' incomplete field comparison: both operands below 2^252.
pub const FIELD_CMP_BITS: u32 = 252;

/// Lowers a checked program. `source` is where its spans are, for instruction locations (a
/// location is the line and column in the span's own file); `field_cmp` the semantics of
/// comparisons of two non-constant field elements.
pub fn lower_program(
    program: &typed::Program,
    source: &SourceMap,
    field_cmp: super::FieldCmp,
) -> ir::Program {
    super::on_front_stack(|| lower_program_here(program, source, field_cmp))
}

/// [`lower_program`] on the caller's stack.
fn lower_program_here(
    program: &typed::Program,
    source: &SourceMap,
    field_cmp: super::FieldCmp,
) -> ir::Program {
    let mut funcs = Vec::new();
    let mut names: crate::fxhash::HashMap<&str, usize> = crate::fxhash::HashMap::default();
    for f in &program.functions {
        // Overloads share a source name; IR function names are made unique.
        let count = names.entry(f.name.as_str()).or_insert(0);
        let name = if *count == 0 {
            f.name.clone()
        } else {
            format!("{}_{}", f.name, count)
        };
        *count += 1;
        let mut func = ir::Function::new(name, ir_leaves(&f.ret));
        let mut lowering = FnLower::new(program, f, &mut func, source);
        lowering.field_cmp = field_cmp;
        lowering.run();
        funcs.push(func);
    }
    ir::Program {
        funcs,
        main: ir::FuncId(program.main.0),
        files: source.names(),
        frames: Default::default(),
    }
}

/// Where a local's leaves are.
#[derive(Clone)]
enum Slot {
    Unbound,
    /// An immutable local: its SSA values.
    Values(Vec<ValueId>),
    /// A mutable local: one reference per leaf.
    Memory(Vec<ValueId>),
}

struct FnLower<'a, 'f> {
    program: &'a typed::Program,
    func: &'a typed::Function,
    b: FunctionBuilder<'f>,
    slots: Vec<Slot>,
    source: &'a SourceMap,
    /// Is the current block open (not yet terminated)?
    live: bool,
    /// The semantics of comparisons of two non-constant field elements.
    field_cmp: super::FieldCmp,
}

impl<'a, 'f> FnLower<'a, 'f> {
    fn new(
        program: &'a typed::Program,
        func: &'a typed::Function,
        ir_func: &'f mut ir::Function,
        source: &'a SourceMap,
    ) -> Self {
        FnLower {
            program,
            func,
            b: FunctionBuilder::new(ir_func),
            slots: vec![Slot::Unbound; func.locals.len()],
            source,
            live: true,
            field_cmp: super::FieldCmp::Complete,
        }
    }

    fn run(mut self) {
        let entry = self.b.func().entry;
        self.b.switch_to_block(entry);
        // What the function does before its first statement (and a `return` it falls off
        // with) is located at its definition.
        let def = self.loc(self.func.span);
        self.b.set_loc(Some(def));
        for &p in &self.func.params {
            let vals: Vec<ValueId> = ir_leaves(&self.func.local(p).ty)
                .into_iter()
                .map(|t| self.b.add_block_param(entry, t))
                .collect();
            self.bind(p, vals);
        }
        self.stmts(&self.func.body);
        if self.live {
            // Only functions returning `()` can fall off their end (the type checker ensures it).
            self.b.ret(Vec::new());
        }
    }

    fn loc(&self, span: Span) -> SrcLoc {
        let lc = self.source.line_col(span.start);
        SrcLoc {
            line: lc.line as u32,
            col: lc.col as u32,
            file: self.source.file_index(span.start),
            frame: ir::FrameId::ROOT,
        }
    }

    /// Runs `f` with instructions located at `span` (an instruction that can fail, which the
    /// failure then points at); the statement's location is restored after.
    fn located<T>(&mut self, span: Span, f: impl FnOnce(&mut Self) -> T) -> T {
        let loc = self.loc(span);
        let outer = self.b.loc();
        self.b.set_loc(Some(loc));
        let r = f(self);
        self.b.set_loc(outer);
        r
    }

    fn new_block(&mut self) -> BlockId {
        self.b.create_block()
    }

    fn switch_to(&mut self, block: BlockId) {
        self.b.switch_to_block(block);
        self.live = true;
    }

    // ---- locals ----

    fn bind(&mut self, local: LocalId, vals: Vec<ValueId>) {
        let info = self.func.local(local);
        let slot = if info.mutable {
            let tys = ir_leaves(&info.ty);
            let refs: Vec<ValueId> = tys
                .into_iter()
                .zip(&vals)
                .map(|(t, &v)| {
                    let r = self.b.allocate(t);
                    self.b.store(v, r);
                    r
                })
                .collect();
            Slot::Memory(refs)
        } else {
            Slot::Values(vals)
        };
        self.slots[local.0 as usize] = slot;
    }

    fn read(&mut self, local: LocalId) -> Vec<ValueId> {
        match self.slots[local.0 as usize].clone() {
            Slot::Values(v) => v,
            Slot::Memory(refs) => refs.iter().map(|&r| self.b.load(r)).collect(),
            Slot::Unbound => panic!("bug: local {} used before it is bound", local.0),
        }
    }

    // ---- statements ----

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            if !self.live {
                // Statements after a `return` in the same block never run.
                return;
            }
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        // Every instruction of the statement is located at it (so a block knows its lines),
        // and an instruction that can fail more precisely at its expression.
        let outer = self.b.loc();
        if let Some(span) = stmt_span(s) {
            let loc = self.loc(span);
            self.b.set_loc(Some(loc));
        }
        self.stmt_here(s);
        self.b.set_loc(outer);
    }

    fn stmt_here(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { local, value } => {
                let vals = self.expr(value);
                self.bind(*local, vals);
            }
            Stmt::Assign { place, value } => {
                let vals = self.expr(value);
                self.assign(place, vals);
            }
            Stmt::Return { value, .. } => {
                let vals = match value {
                    Some(v) => self.expr(v),
                    None => Vec::new(),
                };
                self.b.ret(vals);
                self.live = false;
            }
            Stmt::Assert {
                cond,
                message,
                span,
            } => {
                let c = self.scalar(cond);
                self.located(*span, |l| {
                    l.b.assert(c, message.clone());
                });
            }
            Stmt::Expr(e) => {
                self.expr(e);
            }
            Stmt::Log { format, args } => {
                let mut leaves = Vec::new();
                let mut shapes = Vec::new();
                for a in args {
                    leaves.extend(self.expr(a));
                    shapes.push(json_shape(&a.ty));
                }
                let template = log_template(format, &shapes);
                self.b.log(template, leaves);
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                let c = self.scalar(cond);
                let then_b = self.new_block();
                let else_b = self.new_block();
                self.b.br(c, then_b, Vec::new(), else_b, Vec::new());
                let mut merge: Option<BlockId> = None;
                for (block, body) in [(then_b, then_body), (else_b, else_body)] {
                    self.switch_to(block);
                    self.stmts(body);
                    if self.live {
                        let m = *merge.get_or_insert_with(|| self.b.create_block());
                        self.b.jmp(m, Vec::new());
                    }
                }
                match merge {
                    Some(m) => self.switch_to(m),
                    None => self.live = false,
                }
            }
            Stmt::While { cond, body, .. } => {
                let header = self.new_block();
                self.b.jmp(header, Vec::new());
                self.switch_to(header);
                let c = self.scalar(cond);
                let body_b = self.new_block();
                let exit = self.new_block();
                self.b.br(c, body_b, Vec::new(), exit, Vec::new());
                self.switch_to(body_b);
                self.stmts(body);
                if self.live {
                    self.b.jmp(header, Vec::new());
                }
                self.switch_to(exit);
            }
            Stmt::For {
                var,
                from,
                to,
                body,
                ..
            } => {
                let ty = ir_leaves(&self.func.local(*var).ty)
                    .pop()
                    .expect("bug: loop variable without a type");
                let width = ty.uint_width().expect("bug: loop variable is not uN");
                let from = self.scalar(from);
                let to = self.scalar(to);
                let header = self.new_block();
                let i = self.b.add_block_param(header, ty);
                self.b.jmp(header, vec![from]);
                self.switch_to(header);
                let c = self.b.binary(BinOp::Lt, i, to);
                let body_b = self.new_block();
                let exit = self.new_block();
                self.b.br(c, body_b, Vec::new(), exit, Vec::new());
                self.switch_to(body_b);
                self.bind(*var, vec![i]);
                self.stmts(body);
                if self.live {
                    let one = self.b.uint(width, 1);
                    let next = self.b.binary(BinOp::Add, i, one);
                    self.b.jmp(header, vec![next]);
                }
                self.switch_to(exit);
            }
        }
    }

    fn assign(&mut self, place: &Place, vals: Vec<ValueId>) {
        let ty = self.func.local(place.local).ty.clone();
        let slot = self.slots[place.local.0 as usize].clone();
        let Slot::Memory(refs) = slot else {
            panic!("bug: assignment to an immutable local survived type checking")
        };
        if place.path.is_empty() {
            for (&v, &r) in vals.iter().zip(&refs) {
                self.b.store(v, r);
            }
            return;
        }
        let old = self.read(place.local);
        let new = self.update(&old, &ty, &place.path, vals, place.span);
        for ((&o, &n), &r) in old.iter().zip(&new).zip(&refs) {
            if o != n {
                self.b.store(n, r);
            }
        }
    }

    /// The leaves of a value of type `ty` after replacing the part at `path` by `new`.
    fn update(
        &mut self,
        leaves: &[ValueId],
        ty: &Type,
        path: &[PlaceElem],
        new: Vec<ValueId>,
        span: Span,
    ) -> Vec<ValueId> {
        let Some((first, rest)) = path.split_first() else {
            return new;
        };
        match (first, ty) {
            (PlaceElem::Member(i), Type::Struct(s)) => {
                let types: Vec<&Type> = s.fields.iter().map(|(_, t)| t).collect();
                self.update_part(leaves, &types, *i, rest, new, span)
            }
            (PlaceElem::TupleIndex(i), Type::Tuple(ts)) => {
                let types: Vec<&Type> = ts.iter().collect();
                self.update_part(leaves, &types, *i, rest, new, span)
            }
            (PlaceElem::Index(index), Type::Array(elem, _)) => {
                let i = self.scalar(index);
                let current: Vec<ValueId> = self.located(span, |l| {
                    leaves.iter().map(|&a| l.b.array_get(a, i)).collect()
                });
                let updated = self.update(&current, elem, rest, new, span);
                self.located(span, |l| {
                    leaves
                        .iter()
                        .zip(updated)
                        .map(|(&a, v)| l.b.array_set(a, i, v))
                        .collect()
                })
            }
            _ => panic!("bug: place path does not match its type"),
        }
    }

    fn update_part(
        &mut self,
        leaves: &[ValueId],
        types: &[&Type],
        i: usize,
        rest: &[PlaceElem],
        new: Vec<ValueId>,
        span: Span,
    ) -> Vec<ValueId> {
        let start: usize = types[..i].iter().map(|t| n_leaves(t)).sum();
        let len = n_leaves(types[i]);
        let part = self.update(&leaves[start..start + len], types[i], rest, new, span);
        let mut out = leaves.to_vec();
        out.splice(start..start + len, part);
        out
    }

    // ---- expressions ----

    fn scalar(&mut self, e: &Expr) -> ValueId {
        let v = self.expr(e);
        debug_assert_eq!(v.len(), 1, "bug: scalar expression with {} leaves", v.len());
        v[0]
    }

    fn expr(&mut self, e: &Expr) -> Vec<ValueId> {
        match &e.kind {
            ExprKind::Field(f) => vec![self.b.field(*f)],
            ExprKind::Uint(u) => {
                let Type::Uint(w) = e.ty else {
                    panic!("bug: integer literal of type {}", e.ty)
                };
                vec![self.b.uint(w, *u)]
            }
            ExprKind::Bool(x) => vec![self.b.bool(*x)],
            ExprKind::Local(id) => self.read(*id),
            ExprKind::Unary(op, x) => {
                let v = self.scalar(x);
                vec![match op {
                    UnaryOp::Pos => v,
                    UnaryOp::Not => self.b.not(v),
                    UnaryOp::Neg => {
                        let zero = self.zero(&e.ty);
                        self.b.binary(BinOp::Sub, zero, v)
                    }
                }]
            }
            ExprKind::Binary(op, a, b) => vec![self.binary(*op, a, b, e)],
            ExprKind::Conditional(c, a, b) => {
                let cv = self.scalar(c);
                if cannot_fail(a) && cannot_fail(b) {
                    let va = self.expr(a);
                    let vb = self.expr(b);
                    return va
                        .into_iter()
                        .zip(vb)
                        .map(|(x, y)| self.b.select(cv, x, y))
                        .collect();
                }
                let then_b = self.new_block();
                let else_b = self.new_block();
                let merge = self.new_block();
                let results: Vec<ValueId> = ir_leaves(&e.ty)
                    .into_iter()
                    .map(|t| self.b.add_block_param(merge, t))
                    .collect();
                self.b.br(cv, then_b, Vec::new(), else_b, Vec::new());
                self.switch_to(then_b);
                let va = self.expr(a);
                self.b.jmp(merge, va);
                self.switch_to(else_b);
                let vb = self.expr(b);
                self.b.jmp(merge, vb);
                self.switch_to(merge);
                results
            }
            ExprKind::Call(f, args) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.extend(self.expr(a));
                }
                let callee = self.program.function(*f);
                let returns = ir_leaves(&callee.ret);
                self.b.call(ir::FuncId(f.0), vals, &returns)
            }
            ExprKind::Hint(f, args) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.extend(self.expr(a));
                }
                let ret = ir_leaves(&self.program.function(*f).ret);
                let inst = self.b.inst(
                    ir::InstKind::Hint {
                        func: ir::FuncId(f.0),
                        args: vals.into(),
                        ret: ret.into(),
                        guard: None,
                    },
                    &[],
                );
                self.b.func().inst(inst).results.to_vec()
            }
            ExprKind::Builtin(builtin, x) => {
                let v = self.scalar(x);
                vec![match builtin {
                    Builtin::UintToField(_) => self.b.cast(v, ir::Type::Field),
                    Builtin::FieldToUint(w) => {
                        self.located(e.span, |l| l.b.cast(v, ir::Type::UInt(*w)))
                    }
                    Builtin::UintToBits(_) | Builtin::FieldToBits => self.b.to_bits(v),
                    Builtin::UintFromBits(w) => self.b.from_bits(v, ir::Type::UInt(*w)),
                    Builtin::FieldToBool => {
                        self.located(e.span, |l| l.b.cast(v, ir::Type::UInt(1)))
                    }
                }]
            }
            ExprKind::Array(elems) => {
                let Type::Array(elem_ty, _) = &e.ty else {
                    panic!("bug: array literal of type {}", e.ty)
                };
                let mut items: Vec<Vec<ValueId>> = Vec::new();
                for el in elems {
                    match el {
                        ArrayElem::Single(x) => items.push(self.expr(x)),
                        ArrayElem::Spread(x) => {
                            let Type::Array(_, n) = x.ty else {
                                panic!("bug: spread of {}", x.ty)
                            };
                            let arrays = self.expr(x);
                            for j in 0..n {
                                let idx = self.b.uint(32, u64::from(j));
                                items.push(
                                    arrays.iter().map(|&a| self.b.array_get(a, idx)).collect(),
                                );
                            }
                        }
                    }
                }
                self.make_arrays(elem_ty, items)
            }
            ExprKind::Repeat(x, n) => {
                let v = self.expr(x);
                self.make_arrays(&x.ty, vec![v; *n as usize])
            }
            ExprKind::Index(a, i) => {
                let arrays = self.expr(a);
                let i = self.scalar(i);
                self.located(e.span, |l| {
                    arrays.iter().map(|&a| l.b.array_get(a, i)).collect()
                })
            }
            ExprKind::Slice(a, from, to) => {
                let Type::Array(elem_ty, _) = &a.ty else {
                    panic!("bug: slice of {}", a.ty)
                };
                let arrays = self.expr(a);
                let mut items = Vec::new();
                for j in *from..*to {
                    let idx = self.b.uint(32, u64::from(j));
                    items.push(arrays.iter().map(|&a| self.b.array_get(a, idx)).collect());
                }
                self.make_arrays(elem_ty, items)
            }
            ExprKind::Struct(fields) | ExprKind::Tuple(fields) => {
                let mut out = Vec::new();
                for f in fields {
                    out.extend(self.expr(f));
                }
                out
            }
            ExprKind::Member(x, i) | ExprKind::TupleIndex(x, i) => {
                let types: Vec<&Type> = match &x.ty {
                    Type::Struct(s) => s.fields.iter().map(|(_, t)| t).collect(),
                    Type::Tuple(ts) => ts.iter().collect(),
                    other => panic!("bug: member of {other}"),
                };
                let vals = self.expr(x);
                let start: usize = types[..*i].iter().map(|t| n_leaves(t)).sum();
                vals[start..start + n_leaves(types[*i])].to_vec()
            }
        }
    }

    /// Builds one IR array per leaf of `elem_ty` from the leaves of each element.
    fn make_arrays(&mut self, elem_ty: &Type, items: Vec<Vec<ValueId>>) -> Vec<ValueId> {
        ir_leaves(elem_ty)
            .into_iter()
            .enumerate()
            .map(|(k, leaf_ty)| {
                let elems: Vec<ValueId> = items.iter().map(|it| it[k]).collect();
                self.b.make_array(elems, leaf_ty)
            })
            .collect()
    }

    fn zero(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Uint(w) => self.b.uint(*w, 0),
            _ => self.b.field(Fr::zero()),
        }
    }

    fn one(&mut self, ty: &Type) -> ValueId {
        match ty {
            Type::Uint(w) => self.b.uint(*w, 1),
            _ => self.b.field(Fr::one()),
        }
    }

    fn binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr, e: &Expr) -> ValueId {
        use BinaryOp as B;
        if op == B::Pow {
            return self.pow(a, b);
        }
        let mut x = self.expr(a);
        let mut y = self.expr(b);
        let is_field = a.ty == Type::Field;
        let ordered = matches!(op, B::Lt | B::Le | B::Gt | B::Ge);
        // An operand is constant when its expression evaluates at compile time (`0 - 1`) or
        // its value is an IR constant (an immutable local bound to one).
        let constant = |l: &mut Self, e: &Expr, v: ValueId| {
            l.b.func().const_value(v).is_some()
                || matches!(super::consteval::eval_with(e, &|_| None), Ok(Some(_)))
        };
        if ordered
            && is_field
            && self.field_cmp == super::FieldCmp::Zokrates
            && !constant(self, a, x[0])
            && !constant(self, b, y[0])
        {
            // ZoKrates' incomplete comparison: both operands below 2^252, or a failure here.
            self.located(e.span, |l| {
                x[0] = l.b.bound(x[0], FIELD_CMP_BITS);
                y[0] = l.b.bound(y[0], FIELD_CMP_BITS);
            });
        }
        let simple = |o: BinOp| Some(o);
        let ir_op = match op {
            B::Add => simple(BinOp::Add),
            B::Sub => simple(BinOp::Sub),
            B::Mul => simple(BinOp::Mul),
            B::BitAnd | B::And => simple(BinOp::And),
            B::BitOr | B::Or => simple(BinOp::Or),
            B::BitXor => simple(BinOp::Xor),
            B::Shl => simple(BinOp::Shl),
            B::Shr => simple(BinOp::Shr),
            _ => None,
        };
        if let Some(o) = ir_op {
            return self.b.binary(o, x[0], y[0]);
        }
        match op {
            B::Div | B::Rem => {
                let o = match (op, is_field) {
                    (B::Div, true) => BinOp::Div,
                    (B::Div, false) => BinOp::UDiv,
                    _ => BinOp::URem,
                };
                self.located(e.span, |l| l.b.binary(o, x[0], y[0]))
            }
            B::Lt => self.b.binary(BinOp::Lt, x[0], y[0]),
            B::Le => self.b.binary(BinOp::Le, x[0], y[0]),
            B::Gt => self.b.binary(BinOp::Lt, y[0], x[0]),
            B::Ge => self.b.binary(BinOp::Le, y[0], x[0]),
            B::Eq | B::Ne => {
                let types = ir_leaves(&a.ty);
                let mut acc: Option<ValueId> = None;
                for ((&p, &q), t) in x.iter().zip(&y).zip(&types) {
                    let eq = self.leaf_eq(p, q, t);
                    acc = Some(match acc {
                        None => eq,
                        Some(prev) => self.b.binary(BinOp::And, prev, eq),
                    });
                }
                let eq = acc.unwrap_or_else(|| self.b.bool(true));
                if op == B::Ne {
                    self.b.not(eq)
                } else {
                    eq
                }
            }
            _ => panic!("bug: operator {} not lowered", op.as_str()),
        }
    }

    /// Equality of two IR values of type `ty` (arrays elementwise).
    fn leaf_eq(&mut self, a: ValueId, b: ValueId, ty: &ir::Type) -> ValueId {
        match ty {
            ir::Type::Array(elem, n) => {
                let mut acc = self.b.bool(true);
                for j in 0..*n {
                    let idx = self.b.uint(32, u64::from(j));
                    let x = self.b.array_get(a, idx);
                    let y = self.b.array_get(b, idx);
                    let eq = self.leaf_eq(x, y, elem);
                    acc = if j == 0 {
                        eq
                    } else {
                        self.b.binary(BinOp::And, acc, eq)
                    };
                }
                acc
            }
            _ => self.b.binary(BinOp::Eq, a, b),
        }
    }

    /// `a ** b`: square-and-multiply, unrolled over the bits of the (u32) exponent.
    fn pow(&mut self, a: &Expr, b: &Expr) -> ValueId {
        let x = self.scalar(a);
        if let Ok(Some(Value::Uint(exp))) = eval(b) {
            if exp == 0 {
                return self.one(&a.ty);
            }
            let mut r = x;
            for bit in (0..(63 - exp.leading_zeros())).rev() {
                r = self.b.binary(BinOp::Mul, r, r);
                if exp >> bit & 1 == 1 {
                    r = self.b.binary(BinOp::Mul, r, x);
                }
            }
            return r;
        }
        let e = self.scalar(b);
        let bits = self.b.to_bits(e);
        let mut r = self.one(&a.ty);
        for k in 0..32u64 {
            r = self.b.binary(BinOp::Mul, r, r);
            let idx = self.b.uint(32, k);
            let bit = self.b.array_get(bits, idx);
            let rx = self.b.binary(BinOp::Mul, r, x);
            r = self.b.select(bit, rx, r);
        }
        r
    }
}

/// Can evaluating `e` fail or call a function? If not, a conditional over it may evaluate both
/// sides and `select`.
fn cannot_fail(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Field(_) | ExprKind::Uint(_) | ExprKind::Bool(_) | ExprKind::Local(_) => true,
        ExprKind::Unary(_, x) => cannot_fail(x),
        ExprKind::Binary(BinaryOp::Div | BinaryOp::Rem, ..) => false,
        ExprKind::Binary(_, a, b) => cannot_fail(a) && cannot_fail(b),
        ExprKind::Conditional(c, a, b) => cannot_fail(c) && cannot_fail(a) && cannot_fail(b),
        ExprKind::Call(..) | ExprKind::Index(..) => false,
        // A hint never fails (a failing hint function gives zeros).
        ExprKind::Hint(_, args) => args.iter().all(cannot_fail),
        ExprKind::Builtin(Builtin::FieldToUint(_) | Builtin::FieldToBool, _) => false,
        ExprKind::Builtin(_, x) => cannot_fail(x),
        ExprKind::Array(elems) => elems.iter().all(|el| match el {
            ArrayElem::Single(x) | ArrayElem::Spread(x) => cannot_fail(x),
        }),
        ExprKind::Repeat(x, _)
        | ExprKind::Slice(x, ..)
        | ExprKind::Member(x, _)
        | ExprKind::TupleIndex(x, _) => cannot_fail(x),
        ExprKind::Struct(xs) | ExprKind::Tuple(xs) => xs.iter().all(cannot_fail),
    }
}

/// How `log` writes a value of type `ty`, as a template: `{}` for each IR leaf (in
/// `ir_leaves` order; the interpreter prints a leaf array whole), JSON around them as ZoKrates
/// prints it (`{"a":["1","2"],"b":true}`). The type checker rejects arrays of structs and
/// tuples, whose leaves are arrays of members.
fn json_shape(ty: &Type) -> String {
    match ty {
        Type::Field | Type::Bool | Type::Uint(_) | Type::Array(..) => "{}".to_string(),
        Type::Tuple(ts) => {
            let items: Vec<String> = ts.iter().map(json_shape).collect();
            format!("[{}]", items.join(","))
        }
        Type::Struct(s) => {
            let items: Vec<String> = s
                .fields
                .iter()
                .map(|(name, t)| format!("\"{}\":{}", escape_braces(name), json_shape(t)))
                .collect();
            format!("{{{{{}}}}}", items.join(","))
        }
    }
}

fn escape_braces(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// The IR `log` template of `log(format, args)`: the user's text with its braces escaped, and
/// each `{}` replaced by the shape of the next argument (the type checker counted them).
fn log_template(format: &str, shapes: &[String]) -> String {
    let mut out = String::new();
    let mut shapes = shapes.iter();
    for (i, part) in format.split("{}").enumerate() {
        if i > 0 {
            out.push_str(shapes.next().map(String::as_str).unwrap_or(""));
        }
        out.push_str(&escape_braces(part));
    }
    out
}

/// Where a statement is written, for the locations of its instructions (`None`: a `log` without
/// arguments, located at the enclosing statement).
fn stmt_span(s: &Stmt) -> Option<Span> {
    match s {
        Stmt::Let { value, .. } => Some(value.span),
        Stmt::Assign { place, .. } => Some(place.span),
        Stmt::Return { span, .. }
        | Stmt::Assert { span, .. }
        | Stmt::For { span, .. }
        | Stmt::While { span, .. }
        | Stmt::If { span, .. } => Some(*span),
        Stmt::Expr(e) => Some(e.span),
        Stmt::Log { args, .. } => args.first().map(|a| a.span),
    }
}
