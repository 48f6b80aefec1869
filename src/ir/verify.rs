//! The IR verifier. It checks every invariant the passes and the lowering rely on and reports
//! all violations, each with its location (function, block, instruction):
//!
//! 1. **Layout**: the entry block is laid out, no block is laid out twice, no jump targets the
//!    entry block or a block outside the layout, and every laid-out block is reachable from the
//!    entry.
//! 2. **Terminators**: every block ends in exactly one terminator (the text parser already
//!    rejects a second one; a missing one is reported here).
//! 3. **Definitions**: every operand names a value of the arena; each value is defined once (a
//!    parameter of one block, or a result of one laid-out instruction) and its recorded
//!    definition agrees; no instruction is laid out twice.
//! 4. **Dominance**: the definition of every used value dominates the use: a parameter of a
//!    dominating block (or the same block), or a result of an earlier instruction of the same
//!    block or of an instruction in a strictly dominating block. Constants are everywhere.
//!    Dominance is computed here (`ir::dom`), not by `analysis`: the IR imports nothing above
//!    it.
//! 5. **Block arguments**: every jump passes one argument per parameter of its target, of the
//!    parameter's type.
//! 6. **Types**: each instruction's operands have the types its semantics require (see the
//!    [`crate::ir`] module doc), its results have the types it defines, `br` and `assert`
//!    conditions are `u1`, `return` matches the function's return types, calls match the callee,
//!    and the guard `if g` of a `hint` or `log` is `u1`.
//! 7. **Flags**: `nuw` only on `uN` `add`, `sub`, `mul` and `shl`, and on casts to `uN`.

use crate::fxhash::{HashMap, HashSet};

use super::dom::Dominance;
use super::entities::{BlockId, InstId, ValueId};
use super::function::{Function, Program, ValueDef};
use super::instructions::{BinOp, InstKind, Terminator};
use super::interp::template_slots;
use super::types::Type;
use std::fmt;

/// Where a violation is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The function's name.
    pub func: String,
    /// The block, if the violation is inside one.
    pub block: Option<BlockId>,
    /// The instruction (index within the block), if it is at one; `None` with a block means the
    /// block header or terminator (see the message).
    pub inst: Option<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fn {}", self.func)?;
        if let Some(b) = self.block {
            write!(f, ", {b}")?;
        }
        if let Some(i) = self.inst {
            write!(f, ", inst {i}")?;
        }
        Ok(())
    }
}

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Where.
    pub loc: Location,
    /// What.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.loc, self.message)
    }
}

/// All the violations found in a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError(pub Vec<Violation>);

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyError {}

/// Verifies every function of a program.
pub fn verify_program(program: &Program) -> Result<(), VerifyError> {
    let mut all = Vec::new();
    if program.main.index() >= program.funcs.len() {
        all.push(Violation {
            loc: Location {
                func: "?".into(),
                block: None,
                inst: None,
            },
            message: format!("main {} is not a function of the program", program.main),
        });
    }
    for func in &program.funcs {
        if let Err(VerifyError(v)) = verify_function(func, Some(program)) {
            all.extend(v);
        }
    }
    if all.is_empty() {
        Ok(())
    } else {
        Err(VerifyError(all))
    }
}

/// Verifies one function; `program` (when given) resolves calls.
pub fn verify_function(func: &Function, program: Option<&Program>) -> Result<(), VerifyError> {
    let mut v = Verifier {
        func,
        program,
        out: Vec::new(),
    };
    v.run();
    if v.out.is_empty() {
        Ok(())
    } else {
        Err(VerifyError(v.out))
    }
}

struct Verifier<'a> {
    func: &'a Function,
    program: Option<&'a Program>,
    out: Vec<Violation>,
}

/// Where a value is defined, as found in the layout.
#[derive(Clone, Copy)]
enum Def {
    Param(BlockId),
    Inst(BlockId, usize),
}

impl Verifier<'_> {
    fn report(&mut self, block: Option<BlockId>, inst: Option<usize>, message: String) {
        self.out.push(Violation {
            loc: Location {
                func: self.func.name.clone(),
                block,
                inst,
            },
            message,
        });
    }

    fn ty(&self, v: ValueId) -> Option<&Type> {
        self.func.value_type_checked(v)
    }

    fn run(&mut self) {
        let func = self.func;
        let laid_out: HashSet<BlockId> = func.layout.iter().copied().collect();
        if !laid_out.contains(&func.entry) {
            self.report(
                None,
                None,
                format!("entry block {} is not laid out", func.entry),
            );
            return;
        }
        let mut seen = HashSet::default();
        for &b in &func.layout {
            if b.index() >= func.blocks.len() {
                self.report(
                    Some(b),
                    None,
                    format!("block {b} is not in the block arena"),
                );
                return;
            }
            if !seen.insert(b) {
                self.report(Some(b), None, format!("block {b} is laid out twice"));
            }
        }

        // Definitions.
        let mut defs: HashMap<ValueId, Def> = HashMap::default();
        let mut inst_seen: HashSet<InstId> = HashSet::default();
        for &b in &func.layout {
            let block = func.block(b);
            for (k, &p) in block.params.iter().enumerate() {
                self.define(&mut defs, p, Def::Param(b), Some(b), None);
                if let Some(d) = func.values.get(p.index()) {
                    if d.def != ValueDef::Param(b, k as u32) {
                        self.report(
                            Some(b),
                            None,
                            format!(
                                "parameter {p} records definition {:?}, not parameter {k} of {b}",
                                d.def
                            ),
                        );
                    }
                }
            }
            for (pos, &i) in block.insts.iter().enumerate() {
                if i.index() >= func.insts.len() {
                    self.report(
                        Some(b),
                        Some(pos),
                        format!("instruction {i} is not in the arena"),
                    );
                    continue;
                }
                if !inst_seen.insert(i) {
                    self.report(
                        Some(b),
                        Some(pos),
                        format!("instruction {i} is laid out twice"),
                    );
                }
                for (k, &r) in func.inst(i).results.iter().enumerate() {
                    self.define(&mut defs, r, Def::Inst(b, pos), Some(b), Some(pos));
                    if let Some(d) = func.values.get(r.index()) {
                        if d.def != ValueDef::Result(i, k as u32) {
                            self.report(
                                Some(b),
                                Some(pos),
                                format!(
                                    "result {r} records definition {:?}, not result {k} of {i}",
                                    d.def
                                ),
                            );
                        }
                    }
                }
            }
        }

        // Terminators and edges.
        for &b in &func.layout {
            match &func.block(b).term {
                None => self.report(Some(b), None, format!("block {b} has no terminator")),
                Some(term) => {
                    for call in term.block_calls() {
                        let target = call.block;
                        if !laid_out.contains(&target) {
                            self.report(
                                Some(b),
                                None,
                                format!("jump to {target}, which is not a block of the function"),
                            );
                            continue;
                        }
                        if target == func.entry {
                            self.report(Some(b), None, format!("jump to the entry block {target}"));
                        }
                        let params = &func.block(target).params;
                        if params.len() != call.args.len() {
                            self.report(
                                Some(b),
                                None,
                                format!(
                                    "jump to {target} passes {} argument(s), but it has {} parameter(s)",
                                    call.args.len(),
                                    params.len()
                                ),
                            );
                            continue;
                        }
                        for (k, (a, p)) in call.args.iter().zip(params).enumerate() {
                            if let (Some(ta), Some(tp)) = (self.ty(*a), self.ty(*p)) {
                                if ta != tp {
                                    self.report(
                                        Some(b),
                                        None,
                                        format!("argument {k} of the jump to {target} has type {ta}, but parameter {p} has type {tp}"),
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }

        // Reachability.
        let reachable: HashSet<BlockId> = func.reverse_post_order().into_iter().collect();
        for &b in &func.layout {
            if !reachable.contains(&b) {
                self.report(
                    Some(b),
                    None,
                    format!("block {b} is unreachable from the entry"),
                );
            }
        }

        // Uses: dominance and types.
        let dom = Dominance::new(func);
        for &b in &func.layout {
            let block = func.block(b);
            for (pos, &i) in block.insts.iter().enumerate() {
                let Some(data) = func.insts.get(i.index()) else {
                    continue;
                };
                let mut ok = true;
                for v in data.kind.operands() {
                    ok &= self.check_use(&defs, &dom, v, b, Some(pos));
                }
                if ok {
                    self.check_inst(b, pos, i);
                }
            }
            if let Some(term) = &block.term {
                let mut ok = true;
                for v in term.operands() {
                    ok &= self.check_use(&defs, &dom, v, b, None);
                }
                if ok {
                    self.check_terminator(b, term);
                }
            }
        }
    }

    fn define(
        &mut self,
        defs: &mut HashMap<ValueId, Def>,
        v: ValueId,
        def: Def,
        block: Option<BlockId>,
        inst: Option<usize>,
    ) {
        if v.index() >= self.func.values.len() {
            self.report(
                block,
                inst,
                format!("defined value {v} is not in the value arena"),
            );
        } else if defs.insert(v, def).is_some() {
            self.report(block, inst, format!("value {v} is defined more than once"));
        }
    }

    /// Checks that `v` exists and its definition dominates its use at (`block`, `pos`); `pos`
    /// `None` is the terminator. Returns false if the value is unusable.
    fn check_use(
        &mut self,
        defs: &HashMap<ValueId, Def>,
        dom: &Dominance,
        v: ValueId,
        block: BlockId,
        pos: Option<usize>,
    ) -> bool {
        let Some(data) = self.func.values.get(v.index()) else {
            self.report(
                Some(block),
                pos,
                format!("use of {v}, which is not in the value arena"),
            );
            return false;
        };
        if matches!(data.def, ValueDef::Const(_)) {
            return true;
        }
        let place = if pos.is_some() {
            ""
        } else {
            " in the terminator"
        };
        match defs.get(&v) {
            None => {
                self.report(
                    Some(block),
                    pos,
                    format!("use of {v}{place}, which is not defined by any laid-out block"),
                );
                false
            }
            Some(Def::Param(db)) => {
                if !dom.dominates(*db, block) {
                    self.report(Some(block), pos, format!("use of {v}{place} is not dominated by its definition (a parameter of {db})"));
                }
                true
            }
            Some(Def::Inst(db, dpos)) => {
                let dominated = if *db == block {
                    pos.is_none_or(|p| *dpos < p)
                } else {
                    dom.dominates(*db, block)
                };
                if !dominated {
                    self.report(Some(block), pos, format!("use of {v}{place} is not dominated by its definition ({db}, inst {dpos})"));
                }
                true
            }
        }
    }

    /// What is wrong with a call's or a hint's callee (`what`): it must be a function of the
    /// program taking the arguments' types and returning `results` (`results_what` names them
    /// in the message). Nothing when it is right or there is no program to look in.
    fn callee_errors(
        &self,
        what: &str,
        callee: crate::ir::FuncId,
        args: &[ValueId],
        results: &[Type],
        results_what: &str,
        ty: &dyn Fn(&ValueId) -> Type,
    ) -> Vec<String> {
        let Some(program) = self.program else {
            return Vec::new();
        };
        let Some(target) = program.funcs.get(callee.index()) else {
            return vec![format!(
                "{what} of {callee}, which is not a function of the program"
            )];
        };
        let mut errors = Vec::new();
        let params = target.param_types();
        let found: Vec<Type> = args.iter().map(ty).collect();
        if params != found {
            errors.push(format!(
                "{what} of {callee} ({}) with arguments of types ({})",
                join(&params),
                join(&found)
            ));
        }
        if results != target.returns {
            errors.push(format!(
                "{what} of {callee} returns ({}), but {results_what} ({})",
                join(&target.returns),
                join(results)
            ));
        }
        errors
    }

    fn check_inst(&mut self, b: BlockId, pos: usize, i: InstId) {
        let func = self.func;
        let data = func.inst(i);
        let ty = |v: &ValueId| func.value_type(*v).clone();
        let mut errors: Vec<String> = Vec::new();
        let mut need = |cond: bool, msg: String| {
            if !cond {
                errors.push(msg);
            }
        };
        if data.no_wrap() {
            let allowed = match &data.kind {
                InstKind::Binary { op, lhs, .. } => {
                    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl)
                        && matches!(ty(lhs), Type::UInt(_))
                }
                InstKind::Cast { to, .. } => matches!(to, Type::UInt(_)),
                _ => false,
            };
            need(
                allowed,
                format!(
                    "`nuw` on `{}`: only uN add, sub, mul and shl, and casts to uN",
                    data.kind.opcode()
                ),
            );
        }
        match &data.kind {
            InstKind::Binary { op, lhs, rhs } => {
                let (tl, tr) = (ty(lhs), ty(rhs));
                match op {
                    BinOp::Shl | BinOp::Shr => {
                        need(
                            tl.uint_width().is_some(),
                            format!("`{op}` needs a uN value, found {tl}"),
                        );
                        need(
                            tr.uint_width().is_some(),
                            format!("`{op}` needs a uN shift amount, found {tr}"),
                        );
                    }
                    _ => {
                        need(
                            tl == tr,
                            format!("`{op}` operands have different types {tl} and {tr}"),
                        );
                        let allowed = match op {
                            BinOp::Add
                            | BinOp::Sub
                            | BinOp::Mul
                            | BinOp::Eq
                            | BinOp::Lt
                            | BinOp::Le => tl.is_scalar(),
                            BinOp::Div => tl == Type::Field,
                            _ => tl.uint_width().is_some(),
                        };
                        need(allowed, format!("`{op}` is not defined on {tl}"));
                    }
                }
            }
            InstKind::Not { arg } => {
                let t = ty(arg);
                need(
                    t.uint_width().is_some(),
                    format!("`not` needs a uN value, found {t}"),
                );
            }
            InstKind::Cast { arg, to } | InstKind::Truncate { arg, to } => {
                let t = ty(arg);
                need(
                    t.is_scalar(),
                    format!("`{}` of a non-scalar {t}", data.kind.opcode()),
                );
                let target_ok = match data.kind {
                    InstKind::Cast { .. } => to.is_scalar(),
                    _ => to.uint_width().is_some(),
                };
                need(
                    target_ok,
                    format!("`{}` to {to} is not allowed", data.kind.opcode()),
                );
            }
            InstKind::Select {
                cond,
                then_value,
                else_value,
            } => {
                need(
                    ty(cond).is_bool(),
                    format!("`select` condition has type {}, not u1", ty(cond)),
                );
                need(
                    ty(then_value) == ty(else_value),
                    format!(
                        "`select` arms have different types {} and {}",
                        ty(then_value),
                        ty(else_value)
                    ),
                );
            }
            InstKind::Assert { cond, .. } => {
                need(
                    ty(cond).is_bool(),
                    format!("`assert` condition has type {}, not u1", ty(cond)),
                );
            }
            InstKind::Log {
                template,
                args,
                guard,
            } => {
                if let Some(g) = guard {
                    need(
                        ty(g).is_bool(),
                        format!("`log` guard has type {}, not u1", ty(g)),
                    );
                }
                for &a in args {
                    need(
                        ty(&a).pointee().is_none(),
                        format!("`log` argument has type {}, a reference", ty(&a)),
                    );
                }
                need(
                    template_slots(template) == Some(args.len()),
                    format!(
                        "`log` template {template:?} does not have one `{{}}` per argument ({})",
                        args.len()
                    ),
                );
            }
            InstKind::Allocate { .. } => {}
            InstKind::Load { ptr } => {
                need(
                    ty(ptr).pointee().is_some(),
                    format!("`load` from {}, which is not a reference", ty(ptr)),
                );
            }
            InstKind::Store { ptr, value } => match ty(ptr).pointee() {
                Some(p) => need(
                    *p == ty(value),
                    format!("`store` of a {} into a {}", ty(value), ty(ptr)),
                ),
                None => need(
                    false,
                    format!("`store` into {}, which is not a reference", ty(ptr)),
                ),
            },
            InstKind::MakeArray { elems, elem_ty } => {
                for (k, e) in elems.iter().enumerate() {
                    need(
                        ty(e) == *elem_ty,
                        format!("`make_array` element {k} has type {}, not {elem_ty}", ty(e)),
                    );
                }
            }
            InstKind::ArrayGet { array, index } | InstKind::ArraySet { array, index, .. } => {
                let ta = ty(array);
                need(
                    ta.elem().is_some(),
                    format!("`{}` on {ta}, which is not an array", data.kind.opcode()),
                );
                need(
                    ty(index).uint_width().is_some(),
                    format!("array index has type {}, not uN", ty(index)),
                );
                if let (InstKind::ArraySet { value, .. }, Some(elem)) = (&data.kind, ta.elem()) {
                    need(
                        ty(value) == *elem,
                        format!("`array_set` of a {} into {ta}", ty(value)),
                    );
                }
            }
            InstKind::ToBits { arg } => {
                let t = ty(arg);
                need(t.is_scalar(), format!("`to_bits` of {t}"));
            }
            InstKind::FromBits { arg, to } => {
                let t = ty(arg);
                let n = match to {
                    Type::UInt(w) => Some(*w),
                    Type::Field => Some(super::FIELD_BITS),
                    _ => None,
                };
                match n {
                    Some(n) => need(
                        t == Type::array(Type::BOOL, n),
                        format!("`from_bits` to {to} needs [u1; {n}], found {t}"),
                    ),
                    None => need(false, format!("`from_bits` to {to} is not allowed")),
                }
            }
            // Checked below, with the results.
            InstKind::Hint { .. } => {}
            InstKind::Bound { arg, bits } => {
                need(
                    ty(arg) == Type::Field,
                    format!("`bound` of {}, not a field element", ty(arg)),
                );
                need(*bits <= 253, format!("`bound` to 2^{bits}, above 2^253"));
            }
            InstKind::Call { func: callee, args } => {
                let results: Vec<Type> = data.results.iter().map(&ty).collect();
                for e in self.callee_errors(
                    "call",
                    *callee,
                    args,
                    &results,
                    "its results have types",
                    &ty,
                ) {
                    need(false, e);
                }
            }
        }
        if let InstKind::Hint {
            func: callee,
            args,
            ret,
            guard,
        } = &data.kind
        {
            if let Some(g) = guard {
                need(
                    ty(g).is_bool(),
                    format!("`hint` guard has type {}, not u1", ty(g)),
                );
            }
            for e in self.callee_errors("hint", *callee, args, ret, "the hint gives", &ty) {
                need(false, e);
            }
            need(
                ret.iter()
                    .chain(&args.iter().map(&ty).collect::<Vec<_>>())
                    .all(|t| !matches!(t, Type::Ref(_))),
                "a hint neither takes nor gives a reference".to_string(),
            );
        }
        if !matches!(data.kind, InstKind::Call { .. }) {
            let expected = func.result_types(&data.kind);
            let found: Vec<Type> = data.results.iter().map(&ty).collect();
            need(
                expected == found,
                format!(
                    "`{}` defines ({}), but its results have types ({})",
                    data.kind.opcode(),
                    join(&expected),
                    join(&found)
                ),
            );
        }
        for e in errors {
            self.report(Some(b), Some(pos), e);
        }
    }

    fn check_terminator(&mut self, b: BlockId, term: &Terminator) {
        let func = self.func;
        match term {
            Terminator::Br { cond, .. } => {
                let t = func.value_type(*cond);
                if !t.is_bool() {
                    self.report(
                        Some(b),
                        None,
                        format!("`br` condition has type {t}, not u1"),
                    );
                }
            }
            Terminator::Return(values) => {
                let found: Vec<Type> = values.iter().map(|v| func.value_type(*v).clone()).collect();
                if found != func.returns {
                    self.report(
                        Some(b),
                        None,
                        format!(
                            "`return` of ({}) in a function returning ({})",
                            join(&found),
                            join(&func.returns)
                        ),
                    );
                }
            }
            Terminator::Jmp(_) => {}
        }
    }
}

fn join(types: &[Type]) -> String {
    types
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Verifies and panics with the listing on failure: for use after passes, where a violation is a
/// compiler bug.
pub fn assert_valid(program: &Program, after: &str) {
    if let Err(e) = verify_program(program) {
        panic!("bug: IR invalid after {after}:\n{e}\n{program}");
    }
}
