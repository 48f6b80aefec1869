//! Expressions, checked bidirectionally: literals, names, operators, arrays, structs, tuples.

use super::*;

impl Checker {
    // ---- expressions ----

    pub(super) fn expr(&mut self, e: &ast::Expr, expected: Option<&Type>) -> TResult<Expr> {
        use ast::ExprKind as K;
        if self.in_hint {
            if let Some(bit) = self.field_bit(e)? {
                return Ok(bit);
            }
        }
        let (kind, ty) = match &e.kind {
            K::Decimal { digits, suffix } => {
                let ty = match suffix.as_deref() {
                    Some("f") => Type::Field,
                    Some("u8") => Type::Uint(8),
                    Some("u16") => Type::Uint(16),
                    Some("u32") => Type::Uint(32),
                    Some("u64") => Type::Uint(64),
                    _ => match expected {
                        Some(Type::Uint(w)) => Type::Uint(*w),
                        _ => Type::Field,
                    },
                };
                (literal(digits, &ty, e.span)?, ty)
            }
            K::Hex(digits) => {
                let w = match digits.len() {
                    2 => 8,
                    4 => 16,
                    8 => 32,
                    16 => 64,
                    n => return Err(Diagnostic::new(
                        format!("a hexadecimal literal must have 2, 4, 8 or 16 digits, found {n}"),
                        e.span,
                    )
                    .with_note(
                        "the digit count gives the type: 2 is u8, 4 is u16, 8 is u32, 16 is u64",
                    )),
                };
                let v = u64::from_str_radix(digits, 16)
                    .map_err(|_| Diagnostic::new("invalid hexadecimal literal", e.span))?;
                (ExprKind::Uint(v), Type::Uint(w))
            }
            K::Bool(b) => (ExprKind::Bool(*b), Type::Bool),
            K::Name(name) => {
                if let Some(id) = self.lookup_local(&name.name) {
                    (
                        ExprKind::Local(id),
                        self.fs.locals[id.0 as usize].ty.clone(),
                    )
                } else if let Some((ty, v)) = self.scopes[self.cur].consts.get(&name.name) {
                    return Ok(to_expr(v, ty, e.span));
                } else {
                    return Err(unknown_variable(name));
                }
            }
            K::Unary(op, x) => {
                let x = self.expr(x, expected)?;
                let ok = match op {
                    ast::UnaryOp::Neg | ast::UnaryOp::Pos => x.ty.is_numeric(),
                    ast::UnaryOp::Not => matches!(x.ty, Type::Bool | Type::Uint(_)),
                };
                if !ok {
                    let sym = match op {
                        ast::UnaryOp::Neg => "-",
                        ast::UnaryOp::Pos => "+",
                        ast::UnaryOp::Not => "!",
                    };
                    return Err(Diagnostic::new(
                        format!("cannot apply unary `{sym}` to a value of type `{}`", x.ty),
                        e.span,
                    ));
                }
                if *op == ast::UnaryOp::Pos {
                    return Ok(Expr { span: e.span, ..x });
                }
                let ty = x.ty.clone();
                (ExprKind::Unary(*op, Box::new(x)), ty)
            }
            K::Binary(op, a, b) => return self.binary(*op, a, b, expected, e.span),
            K::Conditional(c, a, b) => {
                let c = self.condition(c, "the condition of a conditional expression")?;
                // A compile-time condition selects its branch before the other is checked, as
                // ZoKrates' monomorphization does: in a generic function, the untaken branch
                // may be ill-formed for these generic values (`N >= 254 ? f([0; N - 254]) : x`).
                if let Ok(Some(Value::Bool(taken))) = self.eval(&c) {
                    let branch = if taken { a } else { b };
                    let x = self.expr(branch, expected)?;
                    return Ok(Expr { span: e.span, ..x });
                }
                let (a, b) = self.same_type_pair(a, b, expected)?;
                if a.ty != b.ty {
                    return Err(Diagnostic::new(
                        format!(
                            "the branches of a conditional have different types: `{}` and `{}`",
                            a.ty, b.ty
                        ),
                        e.span,
                    ));
                }
                let ty = a.ty.clone();
                (
                    ExprKind::Conditional(Box::new(c), Box::new(a), Box::new(b)),
                    ty,
                )
            }
            K::Call {
                callee,
                generics,
                args,
            } => {
                return self.call(callee, generics, args, expected, e.span);
            }
            K::Array(elems) => {
                let mut elem_ty = match expected {
                    Some(Type::Array(t, _)) => Some((**t).clone()),
                    _ => None,
                };
                if elem_ty.is_none() {
                    // Find an element that fixes the type, so that literals before it follow.
                    for el in elems {
                        match el {
                            ast::ArrayElem::Single(x) if !is_untyped(x) => {
                                elem_ty = Some(self.expr(x, None)?.ty);
                                break;
                            }
                            ast::ArrayElem::Spread(x) if !is_untyped_array(x) => {
                                if let Type::Array(t, _) = self.expr(x, None)?.ty {
                                    elem_ty = Some(*t);
                                }
                                break;
                            }
                            _ => {}
                        }
                    }
                }
                if elem_ty.is_none() && elems.is_empty() {
                    return Err(Diagnostic::new(
                        "cannot infer the type of an empty array",
                        e.span,
                    ));
                }
                let elem_ty = elem_ty.unwrap_or(Type::Field);
                let mut out = Vec::new();
                let mut len: u64 = 0;
                for el in elems {
                    match el {
                        ast::ArrayElem::Single(x) => {
                            let x = self.expr(x, Some(&elem_ty))?;
                            if x.ty != elem_ty {
                                return Err(mismatch(&elem_ty, &x.ty, x.span));
                            }
                            len += 1;
                            out.push(ArrayElem::Single(x));
                        }
                        ast::ArrayElem::Spread(x) => {
                            // `[...[0; N - 1], 1]`: the literals spread take the element type
                            // (the size in the expectation is not used by array literals).
                            let spread_expected = is_untyped_array(x)
                                .then(|| Type::Array(Box::new(elem_ty.clone()), 0));
                            let x = self.expr(x, spread_expected.as_ref())?;
                            match &x.ty {
                                Type::Array(t, n) if **t == elem_ty => len += u64::from(*n),
                                Type::Array(..) => {
                                    return Err(mismatch(
                                        &Type::Array(Box::new(elem_ty.clone()), 0),
                                        &x.ty,
                                        x.span,
                                    )
                                    .with_note("the spread array's elements must have the array literal's element type"))
                                }
                                _ => {
                                    return Err(Diagnostic::new(
                                        format!("cannot spread a value of type `{}`", x.ty),
                                        x.span,
                                    ))
                                }
                            }
                            out.push(ArrayElem::Spread(x));
                        }
                    }
                }
                let n = self.array_len(len, e.span)?;
                let ty = Type::Array(Box::new(elem_ty), n);
                self.check_leaves(&ty, e.span)?;
                (ExprKind::Array(out), ty)
            }
            K::Repeat(x, count) => {
                let elem_expected = match expected {
                    Some(Type::Array(t, _)) => Some((**t).clone()),
                    _ => None,
                };
                let x = self.expr(x, elem_expected.as_ref())?;
                let n = self.const_u32(count, "an array length")?;
                let ty = Type::Array(Box::new(x.ty.clone()), n);
                self.check_leaves(&ty, e.span)?;
                (ExprKind::Repeat(Box::new(x), n), ty)
            }
            K::Index(base, index) => {
                let base = self.expr(base, None)?;
                let Type::Array(elem, n) = base.ty.clone() else {
                    return Err(Diagnostic::new(
                        format!("cannot index into a value of type `{}`", base.ty),
                        base.span,
                    ));
                };
                let index = self.index(index, n)?;
                (ExprKind::Index(Box::new(base), Box::new(index)), *elem)
            }
            K::Slice(base, from, to) => {
                let base = self.expr(base, None)?;
                let Type::Array(elem, n) = base.ty.clone() else {
                    return Err(Diagnostic::new(
                        format!("cannot slice a value of type `{}`", base.ty),
                        base.span,
                    ));
                };
                let bound = |c: &mut Self, b: &Option<Box<ast::Expr>>, default: u32| match b {
                    Some(b) => {
                        let te = c.expr(b, Some(&Type::Uint(32)))?;
                        if te.ty != Type::Uint(32) {
                            return Err(Diagnostic::new(
                                format!("a slice bound must be a `u32`, found `{}`", te.ty),
                                b.span,
                            ));
                        }
                        Ok(te)
                    }
                    None => Ok(Expr {
                        kind: ExprKind::Uint(u64::from(default)),
                        ty: Type::Uint(32),
                        span: e.span,
                    }),
                };
                let from_e = bound(self, from, 0)?;
                let to_e = bound(self, to, n)?;
                let constant = |c: &Self, x: &Expr| match c.eval(x) {
                    Ok(Some(Value::Uint(v))) => u32::try_from(v).ok(),
                    _ => None,
                };
                let (from, to) = match (constant(self, &from_e), constant(self, &to_e)) {
                    (Some(f), Some(t)) => (f, t),
                    _ => {
                        if let Some(x) = self.dynamic_slice(&base, &elem, &from_e, &to_e, e.span)? {
                            return Ok(x);
                        }
                        let which = if constant(self, &from_e).is_none() {
                            &from_e
                        } else {
                            &to_e
                        };
                        return Err(Diagnostic::new(
                            "a slice bound must be a compile-time constant",
                            which.span,
                        )
                        .with_note(
                            "use a literal or a `const` definition, or bounds whose difference \
                             is constant (`a[i * 8..i * 8 + 8]`)",
                        ));
                    }
                };
                if from > to || to > n {
                    return Err(Diagnostic::new(
                        format!("slice {from}..{to} is out of range for an array of length {n}"),
                        e.span,
                    ));
                }
                (
                    ExprKind::Slice(Box::new(base), from, to),
                    Type::Array(elem, to - from),
                )
            }
            K::Member(base, field) => {
                let base = self.expr(base, None)?;
                let (i, ty) = member(&base.ty, field)?;
                (ExprKind::Member(Box::new(base), i), ty)
            }
            K::TupleIndex(base, i) => {
                let base = self.expr(base, None)?;
                let ty = tuple_elem(&base.ty, *i, e.span)?;
                (ExprKind::TupleIndex(Box::new(base), *i), ty)
            }
            K::Struct(name, fields) => {
                let s = match self.scopes[self.cur].structs.get(&name.name).cloned() {
                    Some(s) => s,
                    None if self.scopes[self.cur]
                        .struct_templates
                        .contains_key(&name.name) =>
                    {
                        self.infer_struct(name, fields, expected, e.span)?
                    }
                    None => self.struct_through_alias(name, expected)?,
                };
                let mut values: Vec<Option<Expr>> = vec![None; s.fields.len()];
                for (fname, fvalue) in fields {
                    let Some(i) = s.fields.iter().position(|(n, _)| *n == fname.name) else {
                        return Err(Diagnostic::new(
                            format!("struct `{}` has no field `{}`", s.name, fname.name),
                            fname.span,
                        ));
                    };
                    if values[i].is_some() {
                        return Err(Diagnostic::new(
                            format!("field `{}` is given twice", fname.name),
                            fname.span,
                        ));
                    }
                    let fty = &s.fields[i].1;
                    let v = self.expr(fvalue, Some(fty))?;
                    if v.ty != *fty {
                        return Err(mismatch(fty, &v.ty, v.span));
                    }
                    values[i] = Some(v);
                }
                let mut out = Vec::new();
                for (v, (fname, _)) in values.into_iter().zip(&s.fields) {
                    match v {
                        Some(v) => out.push(v),
                        None => {
                            return Err(Diagnostic::new(
                                format!(
                                    "missing field `{fname}` in a value of struct `{}`",
                                    s.name
                                ),
                                e.span,
                            ))
                        }
                    }
                }
                (ExprKind::Struct(out), Type::Struct(s))
            }
            K::Tuple(elems) => {
                let expected_elems = match expected {
                    Some(Type::Tuple(ts)) if ts.len() == elems.len() => Some(ts.clone()),
                    _ => None,
                };
                let mut out = Vec::new();
                for (i, x) in elems.iter().enumerate() {
                    let exp = expected_elems.as_ref().map(|ts| &ts[i]);
                    out.push(self.expr(x, exp)?);
                }
                let ty = Type::Tuple(out.iter().map(|x| x.ty.clone()).collect());
                (ExprKind::Tuple(out), ty)
            }
        };
        Ok(Expr {
            kind,
            ty,
            span: e.span,
        })
    }

    /// The struct a struct literal names through a type alias: `Bar { ... }` after
    /// `type Bar = Foo<2, 2>;`, or `Buzz { ... }` after `type Buzz<A> = Foo<A, A>;` where the
    /// expected type is an instance of `Foo` (the alias's generic values come from there).
    fn struct_through_alias(
        &mut self,
        name: &ast::Ident,
        expected: Option<&Type>,
    ) -> TResult<Arc<StructType>> {
        let unknown = || Diagnostic::new(format!("unknown struct `{}`", name.name), name.span);
        let not_struct = |ty: &dyn std::fmt::Display| {
            Diagnostic::new(
                format!("type alias `{}` names `{ty}`, not a struct", name.name),
                name.span,
            )
        };
        let scope = &self.scopes[self.cur];
        if let Some(ty) = scope.aliases.get(&name.name) {
            return match ty {
                Type::Struct(s) => Ok(s.clone()),
                other => Err(not_struct(other)),
            };
        }
        let Some((m, alias)) = scope.alias_templates.get(&name.name).cloned() else {
            return Err(unknown());
        };
        let ast::TypeExprKind::Named(target, _) = &alias.ty.kind else {
            return Err(not_struct(&"a type that is not a struct"));
        };
        let target_scope = &self.scopes[m];
        let is_instance = |s: &StructType| match target_scope.struct_templates.get(&target.name) {
            Some((tm, def)) => self
                .struct_args
                .get(&s.name)
                .is_some_and(|((m2, t), _)| m2 == tm && *t == def.name.name),
            None => target_scope
                .structs
                .get(&target.name)
                .is_some_and(|d| **d == *s),
        };
        match expected {
            Some(Type::Struct(s)) if is_instance(s) => Ok(s.clone()),
            _ => Err(Diagnostic::new(
                format!(
                    "cannot infer the generic parameters of type alias `{}` here",
                    name.name
                ),
                name.span,
            )
            .with_note(format!(
                "give the type, e.g. `{}<3> x = {} {{ ... }};`",
                name.name, name.name
            ))),
        }
    }

    pub(super) fn eval(&self, e: &Expr) -> TResult<Option<Value>> {
        let known = &self.fs.known;
        eval_with(e, &|id| known.get(&id).cloned())
    }

    pub(super) fn array_len(&self, len: u64, span: Span) -> TResult<u32> {
        u32::try_from(len)
            .ok()
            .filter(|&n| u64::from(n) <= MAX_TYPE_LEAVES)
            .ok_or_else(|| Diagnostic::new("array literal is too large", span))
    }

    pub(super) fn check_leaves(&self, ty: &Type, span: Span) -> TResult<()> {
        if leaves(ty) > MAX_TYPE_LEAVES {
            return Err(Diagnostic::new(
                format!("type `{ty}` is too large (more than {MAX_TYPE_LEAVES} elements)"),
                span,
            ));
        }
        Ok(())
    }

    /// Checks two expressions that must have the same type; an untyped literal side takes the
    /// type of the other side.
    pub(super) fn same_type_pair(
        &mut self,
        a: &ast::Expr,
        b: &ast::Expr,
        expected: Option<&Type>,
    ) -> TResult<(Expr, Expr)> {
        if is_untyped(a) && !is_untyped(b) {
            let b = self.expr(b, expected)?;
            let a = self.expr(a, Some(&b.ty))?;
            Ok((a, b))
        } else {
            let a = self.expr(a, expected)?;
            let b = self.expr(b, Some(&a.ty))?;
            Ok((a, b))
        }
    }

    pub(super) fn binary(
        &mut self,
        op: ast::BinaryOp,
        a: &ast::Expr,
        b: &ast::Expr,
        expected: Option<&Type>,
        span: Span,
    ) -> TResult<Expr> {
        use ast::BinaryOp as B;
        let sym = op.as_str();
        let (a, b, ty) = match op {
            B::Pow | B::Shl | B::Shr => {
                let a = self.expr(a, expected)?;
                let b = self.expr(b, Some(&Type::Uint(32)))?;
                let ok = match op {
                    B::Pow => a.ty.is_numeric(),
                    _ => matches!(a.ty, Type::Uint(_)),
                };
                if !ok {
                    return Err(Diagnostic::new(
                        format!("cannot apply `{sym}` to a value of type `{}`", a.ty),
                        span,
                    ));
                }
                if b.ty != Type::Uint(32) {
                    return Err(Diagnostic::new(
                        format!(
                            "the right operand of `{sym}` must be a `u32`, found `{}`",
                            b.ty
                        ),
                        b.span,
                    ));
                }
                let ty = a.ty.clone();
                (a, b, ty)
            }
            B::And | B::Or => {
                let a = self.expr(a, Some(&Type::Bool))?;
                let b = self.expr(b, Some(&Type::Bool))?;
                if a.ty != Type::Bool || b.ty != Type::Bool {
                    return Err(Diagnostic::new(
                        format!(
                            "`{sym}` needs `bool` operands, found `{}` and `{}`",
                            a.ty, b.ty
                        ),
                        span,
                    ));
                }
                (a, b, Type::Bool)
            }
            _ => {
                let comparison = matches!(op, B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge);
                let operand_expected = if comparison { None } else { expected };
                let (a, b) = self.same_type_pair(a, b, operand_expected)?;
                if a.ty != b.ty {
                    return Err(Diagnostic::new(
                        format!("mismatched types in `{sym}`: `{}` and `{}`", a.ty, b.ty),
                        span,
                    ));
                }
                let ok = match op {
                    B::Add | B::Sub | B::Mul | B::Div | B::Lt | B::Le | B::Gt | B::Ge => {
                        a.ty.is_numeric()
                    }
                    B::Rem | B::BitAnd | B::BitOr | B::BitXor => matches!(a.ty, Type::Uint(_)),
                    _ => true, // == and != on any type
                };
                if !ok {
                    return Err(Diagnostic::new(
                        format!("cannot apply `{sym}` to values of type `{}`", a.ty),
                        span,
                    ));
                }
                let ty = if comparison { Type::Bool } else { a.ty.clone() };
                (a, b, ty)
            }
        };
        let e = Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            ty,
            span,
        };
        // A constant operation that fails (`1 / 0`) is not an error here: failure is
        // path-sensitive, and the operation may sit on a path that never runs.
        Ok(e)
    }
}

/// The value of a decimal literal of type `ty`, range-checked.
fn literal(digits: &str, ty: &Type, span: Span) -> TResult<ExprKind> {
    let out_of_range = || {
        Diagnostic::new(
            format!("integer literal `{digits}` is out of range for `{ty}`"),
            span,
        )
    };
    match ty {
        Type::Uint(w) => {
            let v: u128 = digits.parse().map_err(|_| out_of_range())?;
            if v >> w != 0 {
                return Err(out_of_range());
            }
            Ok(ExprKind::Uint(v as u64))
        }
        _ => {
            let big = BigInt::<4>::from_str(digits).map_err(|_| out_of_range())?;
            let f = Fr::from_bigint(big).ok_or_else(out_of_range)?;
            Ok(ExprKind::Field(f))
        }
    }
}
