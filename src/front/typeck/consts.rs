//! Module-level constants whose value calls functions (`const u32 C = 1 + count();`).
//!
//! A constant made of literals and operators is folded by `consteval`. One whose value calls a
//! function is computed the way `main`'s code is: the functions it calls (transitively) are
//! checked, a program is made of them and a `main` that returns the value, lowered to IR and run
//! by the IR interpreter with no inputs. Its outputs, read back by the constant's type, are the
//! constant's value; a failure (an assertion, a division by zero, the step limit) is an error at
//! the constant's value, naming the failing operation's position.
//!
//! So that a constant can call a function of its own module, the signatures of the module's
//! functions are declared when the first such constant is met (`declare_early`); a signature
//! that cannot be resolved yet (it names a constant defined further down) waits for pass 2,
//! which reports its errors.

use super::*;
use crate::front::irgen::{ir_leaves, lower_program};
use crate::ir::interp::{self, Limits, Val};

impl Checker {
    /// The value of constant `name`, whose checked value `value` of type `ty` calls functions.
    pub(super) fn run_constant(
        &mut self,
        name: &ast::Ident,
        value: &Expr,
        ty: &Type,
    ) -> TResult<Value> {
        self.run_value(&format!("the value of constant `{}`", name.name), value, ty)
    }

    /// The value of `what` (its checked expression `value` of type `ty`, which reads no local
    /// and calls functions), computed by running it.
    pub(super) fn run_value(&mut self, what: &str, value: &Expr, ty: &Type) -> TResult<Value> {
        // The functions the value calls, transitively, each checked (a function whose body
        // needs such a value of itself would check itself without end: the depth is capped).
        if self.value_depth >= MAX_INSTANCE_DEPTH {
            return Err(Diagnostic::new(
                format!("{what} needs itself to be computed"),
                value.span,
            ));
        }
        let mut value = value.clone();
        self.substitute_locals(&mut value, 0);
        let saved_fs = std::mem::take(&mut self.fs);
        self.value_depth += 1;
        let reached = self.reach(&value);
        self.value_depth -= 1;
        self.fs = saved_fs;
        let reached = reached?;
        self.check_recursion()?;
        let mut new_id = vec![u32::MAX; self.bodies.len()];
        let mut functions = Vec::new();
        for id in &reached {
            let Some((f, _)) = &self.bodies[id.0 as usize] else {
                panic!("bug: a function a constant calls was not checked");
            };
            new_id[id.0 as usize] = functions.len() as u32;
            functions.push(f.clone());
        }
        for f in &mut functions {
            items::renumber_stmts(&mut f.body, &new_id);
        }
        items::renumber(&mut value, &new_id);
        let span = value.span;
        let main = FuncId(functions.len() as u32);
        functions.push(Function {
            name: "compile_time_value".to_string(),
            params: Vec::new(),
            ret: ty.clone(),
            locals: Vec::new(),
            body: vec![Stmt::Return {
                span,
                value: Some(value),
            }],
            span,
        });
        let program = Program { functions, main };
        let ir = lower_program(&program, &self.map, crate::front::FieldCmp::default());
        let (result, _log) = interp::run_logged(&ir, &[], Limits::default());
        let outputs = result.map_err(|f| {
            let mut d = Diagnostic::new(
                format!("{what} cannot be computed: {}", f.kind),
                program.functions[main.0 as usize].body_span(),
            );
            if let Some(src) = f.src {
                let file = self.map.names().get(src.file as usize).cloned();
                d = d.with_note(format!(
                    "the failing operation is at {}:{src}",
                    file.unwrap_or_default()
                ));
            }
            d
        })?;
        from_leaves(ty, &outputs)
            .ok_or_else(|| panic!("bug: the outputs of {what} do not have its type"))
    }

    /// Replaces the locals `e` reads by their compile-time values: a known value as a literal,
    /// a value computed by calls (`FnState::deferred`) by its expression.
    fn substitute_locals(&self, e: &mut Expr, depth: usize) {
        if let ExprKind::Local(id) = e.kind {
            if let Some(v) = self.fs.known.get(&id) {
                *e = to_expr(v, &e.ty, e.span);
            } else if let Some(x) = self.fs.deferred.get(&id).filter(|_| depth < 64) {
                *e = x.clone();
                self.substitute_locals(e, depth + 1);
            }
            return;
        }
        e.for_each_child_mut(|x| self.substitute_locals(x, depth));
    }

    /// Checks every function `value` calls, transitively; returns them in id order.
    fn reach(&mut self, value: &Expr) -> TResult<Vec<FuncId>> {
        let mut stack = Vec::new();
        calls_in(value, &mut stack);
        let mut seen = std::collections::BTreeSet::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if self.bodies[id.0 as usize].is_none() {
                self.check_body(id)?;
            }
            if let Some((_, calls)) = &self.bodies[id.0 as usize] {
                stack.extend(calls.iter().map(|(c, _)| *c));
            }
        }
        Ok(seen.into_iter().collect())
    }
}

impl Function {
    /// The span of the single `return` of a constant's function (its value).
    fn body_span(&self) -> Span {
        match self.body.first() {
            Some(Stmt::Return { span, .. }) => *span,
            _ => self.span,
        }
    }
}

/// Does the written expression call a function?
pub(super) fn has_call(e: &ast::Expr) -> bool {
    use ast::ExprKind as K;
    match &e.kind {
        K::Decimal { .. } | K::Hex(_) | K::Bool(_) | K::Name(_) => false,
        K::Call { .. } => true,
        K::Unary(_, x) | K::Member(x, _) | K::TupleIndex(x, _) => has_call(x),
        K::Binary(_, a, b) | K::Repeat(a, b) | K::Index(a, b) => has_call(a) || has_call(b),
        K::Conditional(c, a, b) => has_call(c) || has_call(a) || has_call(b),
        K::Array(elems) => elems.iter().any(|el| match el {
            ast::ArrayElem::Single(x) | ast::ArrayElem::Spread(x) => has_call(x),
        }),
        K::Slice(x, from, to) => {
            has_call(x)
                || from.as_deref().is_some_and(has_call)
                || to.as_deref().is_some_and(has_call)
        }
        K::Struct(_, fields) => fields.iter().any(|(_, x)| has_call(x)),
        K::Tuple(xs) => xs.iter().any(has_call),
    }
}

/// The functions a checked expression calls directly.
fn calls_in(e: &Expr, out: &mut Vec<FuncId>) {
    if let ExprKind::Call(id, _) | ExprKind::Hint(id, _) = &e.kind {
        out.push(*id);
    }
    e.for_each_child(|x| calls_in(x, out));
}

/// The value of type `ty` whose IR leaves are `leaves` (an array of structs is one IR array per
/// member, see `lower`); `None` if they do not fit the type.
fn from_leaves(ty: &Type, leaves: &[Val]) -> Option<Value> {
    match ty {
        Type::Field => match leaves {
            [Val::Field(f)] => Some(Value::Field(*f)),
            _ => None,
        },
        Type::Bool => match leaves {
            [Val::UInt(b)] => Some(Value::Bool(*b != 0)),
            _ => None,
        },
        Type::Uint(_) => match leaves {
            [Val::UInt(u)] => Some(Value::Uint(*u)),
            _ => None,
        },
        Type::Struct(s) => {
            let types: Vec<&Type> = s.fields.iter().map(|(_, t)| t).collect();
            members(&types, leaves).map(Value::Struct)
        }
        Type::Tuple(ts) => {
            let types: Vec<&Type> = ts.iter().collect();
            members(&types, leaves).map(Value::Tuple)
        }
        Type::Array(elem, n) => {
            let mut out = Vec::new();
            for i in 0..*n as usize {
                let column: Option<Vec<Val>> = leaves
                    .iter()
                    .map(|leaf| match leaf {
                        Val::Array(items) => items.get(i).cloned(),
                        _ => None,
                    })
                    .collect();
                out.push(from_leaves(elem, &column?)?);
            }
            Some(Value::Array(out))
        }
    }
}

/// The values of consecutive members of types `types` from their leaves.
fn members(types: &[&Type], leaves: &[Val]) -> Option<Vec<Value>> {
    let mut rest = leaves;
    let mut out = Vec::new();
    for t in types {
        let n = ir_leaves(t).len();
        if n > rest.len() {
            return None;
        }
        out.push(from_leaves(t, &rest[..n])?);
        rest = &rest[n..];
    }
    rest.is_empty().then_some(out)
}
