//! Function bodies: parameters and scopes, statements, `asm` blocks and their hints, assignment
//! places.

use super::*;

impl Checker {
    // ---- functions and statements ----

    pub(super) fn function(
        &mut self,
        id: FuncId,
        f: &ast::FunctionDef,
    ) -> TResult<(Function, Vec<(FuncId, Span)>)> {
        let sig_ret = self.sigs[id.0 as usize].ret.clone();
        let param_tys = self.sigs[id.0 as usize].params.clone();
        self.fs = FnState {
            ret: sig_ret.clone(),
            scopes: vec![HashMap::default()],
            ..FnState::default()
        };
        let mut params = Vec::new();
        for (p, ty) in f.params.iter().zip(param_tys) {
            if self.fs.scopes[0].contains_key(&p.name.name) {
                return Err(Diagnostic::new(
                    format!("duplicate parameter `{}`", p.name.name),
                    p.name.span,
                ));
            }
            params.push(self.declare(&p.name, ty, p.mutable));
        }
        // The program's inputs are run-time values (see `FnState::runtime`).
        if f.name.name == "main" && self.cur + 1 == self.scopes.len() {
            self.fs.runtime.extend(params.iter().copied());
        }
        let body = self.stmts(&f.body.stmts)?;
        if !sig_ret.is_unit() && !always_returns(&body) {
            let end = f.body.span.end;
            return Err(Diagnostic::new(
                format!(
                    "function `{}` may finish without returning a `{sig_ret}`",
                    f.name.name
                ),
                Span::new(end.saturating_sub(1), end),
            )
            .with_note("add a `return` statement at the end of the function"));
        }
        let fs = std::mem::take(&mut self.fs);
        Ok((
            Function {
                name: f.name.name.clone(),
                params,
                ret: sig_ret,
                locals: fs.locals,
                body,
                span: f.sig_span,
            },
            fs.calls,
        ))
    }

    pub(super) fn declare(&mut self, name: &ast::Ident, ty: Type, mutable: bool) -> LocalId {
        let id = LocalId(self.fs.locals.len() as u32);
        self.fs.locals.push(LocalInfo {
            name: name.name.clone(),
            ty,
            mutable,
            span: name.span,
        });
        if let Some(scope) = self.fs.scopes.last_mut() {
            scope.insert(name.name.clone(), id);
        }
        id
    }

    pub(super) fn lookup_local(&self, name: &str) -> Option<LocalId> {
        self.fs
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())
    }

    pub(super) fn scoped_block(&mut self, stmts: &[ast::Stmt]) -> TResult<Vec<Stmt>> {
        self.fs.scopes.push(HashMap::default());
        let r = self.stmts(stmts);
        self.fs.scopes.pop();
        r
    }

    pub(super) fn stmts(&mut self, stmts: &[ast::Stmt]) -> TResult<Vec<Stmt>> {
        let mut out = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            if i > 0 && matches!(stmts[i - 1].kind, ast::StmtKind::Return(_)) {
                return Err(
                    Diagnostic::new("unreachable statement after `return`", s.span)
                        .with_note("a `return` must be the last statement of its block"),
                );
            }
            match &s.kind {
                ast::StmtKind::Asm(body) => {
                    for a in body {
                        out.push(self.asm_stmt(a)?);
                    }
                }
                _ => out.push(self.stmt(s)?),
            }
        }
        Ok(out)
    }

    /// A statement of an `asm` block. `x <-- e` is a hint, as in ZoKrates: `e` is lifted into a
    /// function of its own (see [`Checker::hint`]) that the interpreter runs at witness
    /// generation, and `x` is a free witness that only the block's `===` constraints bind (a
    /// `uN` or `bool` hint is range-checked, as every such value is). `x <== e` assigns `e`
    /// computed in the circuit, which is `x <-- e; x === e` without the extra witness, and
    /// `a === b` asserts `a == b`. In the value of a hint, a field's bit `(x >> k) & 1` is
    /// allowed.
    pub(super) fn asm_stmt(&mut self, s: &ast::AsmStmt) -> TResult<Stmt> {
        match s {
            ast::AsmStmt::Assign {
                place,
                value,
                constrained,
                span,
            } => {
                let (place_checked, ty) = self.place(place)?;
                if !self.library[self.cur] {
                    self.asm_place_rules(place, &place_checked, &ty, *constrained)?;
                }
                let place = place_checked;
                self.fs.runtime.insert(place.local);
                let calls_before = self.fs.calls.len();
                self.in_hint = true;
                let value = self.expr(value, Some(&ty));
                self.in_hint = false;
                let value = value?;
                if value.ty != ty {
                    return Err(mismatch(&ty, &value.ty, value.span));
                }
                let value = if *constrained {
                    value
                } else {
                    let calls = self.fs.calls[calls_before..].to_vec();
                    self.hint(value, calls, *span)
                };
                Ok(Stmt::Assign { place, value })
            }
            ast::AsmStmt::Constraint { lhs, rhs, span } => {
                let eq = ast::Expr {
                    kind: ast::ExprKind::Binary(
                        ast::BinaryOp::Eq,
                        Box::new(lhs.clone()),
                        Box::new(rhs.clone()),
                    ),
                    span: *span,
                };
                Ok(Stmt::Assert {
                    cond: self.condition(&eq, "an `asm` constraint")?,
                    message: Some("asm constraint `===` not satisfied".to_string()),
                    span: *span,
                })
            }
        }
    }

    /// ZoKrates' rules for the place an `asm` assignment writes: a `field` (zkbc's own library
    /// may also hint a `bool` or a `uN`, which zkbc range-checks), at indices that do not
    /// depend on run-time values (constants once loops are unrolled).
    fn asm_place_rules(
        &self,
        written: &ast::Expr,
        place: &Place,
        ty: &Type,
        constrained: bool,
    ) -> TResult<()> {
        if *ty != Type::Field {
            let arrow = if constrained { "<==" } else { "<--" };
            return Err(Diagnostic::new(
                format!("an `asm` assignment (`{arrow}`) must assign a `field`, found `{ty}`"),
                written.span,
            ));
        }
        for elem in &place.path {
            if let PlaceElem::Index(i) = elem {
                if self.reads_runtime(i) {
                    return Err(Diagnostic::new(
                        "an `asm` assignment cannot write at an index that depends on a run-time value",
                        i.span,
                    ));
                }
            }
        }
        Ok(())
    }

    /// Does `e` depend on a run-time value: an input of the program, a hint, or a local
    /// assigned from one? ZoKrates unrolls loops and inlines calls before its `asm` index rule,
    /// so a loop variable or a parameter of another function is not one (flow-insensitive: a
    /// local assigned a run-time value anywhere is one everywhere after).
    pub(super) fn reads_runtime(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Field(_) | ExprKind::Uint(_) | ExprKind::Bool(_) => false,
            ExprKind::Local(id) => self.fs.runtime.contains(id),
            ExprKind::Hint(..) => true,
            _ => e.any_child(|x| self.reads_runtime(x)),
        }
    }

    /// Lifts the value `e` of a hint into a new function whose parameters are the locals `e`
    /// reads (immutable copies of their values at the hint), and returns the hint expression
    /// that passes them. `calls` are the calls `e` makes (for the recursion check).
    pub(super) fn hint(&mut self, mut e: Expr, calls: CallSites, span: Span) -> Expr {
        let mut read: Vec<LocalId> = Vec::new();
        remap_locals(&mut e, &mut |id| {
            let k = read.iter().position(|&r| r == id).unwrap_or_else(|| {
                read.push(id);
                read.len() - 1
            });
            LocalId(k as u32)
        });
        let locals: Vec<LocalInfo> = read
            .iter()
            .map(|&id| LocalInfo {
                mutable: false,
                ..self.fs.locals[id.0 as usize].clone()
            })
            .collect();
        let ty = e.ty.clone();
        let id = self.new_sig(Sig {
            name: "asm_hint".to_string(),
            params: locals.iter().map(|l| l.ty.clone()).collect(),
            ret: ty.clone(),
            name_span: span,
        });
        let func = Function {
            name: "asm_hint".to_string(),
            params: (0..read.len() as u32).map(LocalId).collect(),
            ret: ty.clone(),
            locals,
            body: vec![Stmt::Return {
                value: Some(e),
                span,
            }],
            span,
        };
        self.bodies[id.0 as usize] = Some((func, calls));
        let args = read
            .iter()
            .map(|&id| Expr {
                kind: ExprKind::Local(id),
                ty: self.fs.locals[id.0 as usize].ty.clone(),
                span,
            })
            .collect();
        Expr {
            kind: ExprKind::Hint(id, args),
            ty,
            span,
        }
    }

    /// `(x >> k) & 1` on a field `x` inside an `asm` hint: bit `k` of `x`'s canonical value, as
    /// a field. `None` when `e` is not of that form.
    pub(super) fn field_bit(&mut self, e: &ast::Expr) -> TResult<Option<Expr>> {
        let ast::ExprKind::Binary(ast::BinaryOp::BitAnd, shifted, one) = &e.kind else {
            return Ok(None);
        };
        let ast::ExprKind::Binary(ast::BinaryOp::Shr, x, k) = &shifted.kind else {
            return Ok(None);
        };
        if !matches!(&one.kind, ast::ExprKind::Decimal { digits, suffix: None } if digits == "1") {
            return Ok(None);
        }
        let x = self.expr(x, Some(&Type::Field))?;
        if x.ty != Type::Field {
            return Ok(None);
        }
        let k = self.expr(k, Some(&Type::Uint(32)))?;
        if k.ty != Type::Uint(32) {
            return Err(mismatch(&Type::Uint(32), &k.ty, k.span));
        }
        let span = e.span;
        let u32_expr = |kind| Expr {
            kind,
            ty: Type::Uint(32),
            span,
        };
        let field = |v: u64| Expr {
            kind: ExprKind::Field(Fr::from(v)),
            ty: Type::Field,
            span,
        };
        let bits = Expr {
            kind: ExprKind::Builtin(Builtin::FieldToBits, Box::new(x)),
            ty: Type::Array(Box::new(Type::Bool), FIELD_BITS),
            span,
        };
        // Bits are most significant first: bit k is at index 253 - k.
        let index = u32_expr(ExprKind::Binary(
            BinaryOp::Sub,
            Box::new(u32_expr(ExprKind::Uint(u64::from(FIELD_BITS - 1)))),
            Box::new(k),
        ));
        let bit = Expr {
            kind: ExprKind::Index(Box::new(bits), Box::new(index)),
            ty: Type::Bool,
            span,
        };
        Ok(Some(Expr {
            kind: ExprKind::Conditional(Box::new(bit), Box::new(field(1)), Box::new(field(0))),
            ty: Type::Field,
            span,
        }))
    }

    pub(super) fn condition(&mut self, e: &ast::Expr, what: &str) -> TResult<Expr> {
        let c = self.expr(e, Some(&Type::Bool))?;
        if c.ty != Type::Bool {
            return Err(Diagnostic::new(
                format!("{what} must be a `bool`, found `{}`", c.ty),
                e.span,
            ));
        }
        Ok(c)
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt) -> TResult<Stmt> {
        Ok(match &s.kind {
            ast::StmtKind::Asm(_) => unreachable!("bug: `asm` blocks are expanded by `stmts`"),
            ast::StmtKind::Log { format, args } => {
                let slots = format.matches("{}").count();
                if slots != args.len() {
                    return Err(Diagnostic::new(
                        format!(
                            "the format string has {slots} `{{}}` but {} value{} given",
                            args.len(),
                            if args.len() == 1 { " is" } else { "s are" }
                        ),
                        s.span,
                    ));
                }
                if let Some(a) = args.iter().find(|a| is_untyped(a)) {
                    return Err(Diagnostic::new(
                        "`log` cannot print an integer literal whose type is not known",
                        a.span,
                    )
                    .with_note("give it a type: `1f`, `1u32`, or a typed variable"));
                }
                let args = args
                    .iter()
                    .map(|a| self.expr(a, None))
                    .collect::<TResult<Vec<_>>>()?;
                if let Some(a) = args.iter().find(|a| !loggable(&a.ty)) {
                    return Err(Diagnostic::new(
                        format!("`log` cannot print a value of type `{}`", a.ty),
                        a.span,
                    )
                    .with_note("arrays of structs or tuples cannot be logged yet"));
                }
                Stmt::Log {
                    format: format.clone(),
                    args,
                }
            }
            ast::StmtKind::Let {
                ty,
                mutable,
                name,
                value,
            } => {
                let ty = self.resolve_type(ty)?;
                let value = self.expr(value, Some(&ty))?;
                if value.ty != ty {
                    return Err(mismatch(&ty, &value.ty, value.span));
                }
                let local = self.declare(name, ty, *mutable);
                if self.reads_runtime(&value) {
                    self.fs.runtime.insert(local);
                }
                // A constant initializer whose evaluation fails (`15u8 / 0u8`) is not an error
                // here: failure is path-sensitive, so it fails at run time if its path runs.
                if !*mutable {
                    match self.eval(&value) {
                        Ok(Some(v)) => {
                            self.fs.known.insert(local, v);
                        }
                        Ok(None) if self.is_compile_time(&value) => {
                            self.fs.deferred.insert(local, value.clone());
                        }
                        _ => {}
                    }
                    self.remember_linear(local, &value);
                }
                Stmt::Let { local, value }
            }
            ast::StmtKind::Assign { place, value } => {
                let (place, ty) = self.place(place)?;
                let value = self.expr(value, Some(&ty))?;
                if value.ty != ty {
                    return Err(mismatch(&ty, &value.ty, value.span));
                }
                if self.reads_runtime(&value) {
                    self.fs.runtime.insert(place.local);
                }
                Stmt::Assign { place, value }
            }
            ast::StmtKind::Return(value) => {
                let ret = self.fs.ret.clone();
                let value = match value {
                    None if ret.is_unit() => None,
                    None => {
                        return Err(Diagnostic::new(
                            format!("`return` needs a value of type `{ret}`"),
                            s.span,
                        ))
                    }
                    Some(v) => {
                        let v = self.expr(v, Some(&ret))?;
                        if v.ty != ret {
                            return Err(Diagnostic::new(
                                format!(
                                    "mismatched return type: expected `{ret}`, found `{}`",
                                    v.ty
                                ),
                                v.span,
                            ));
                        }
                        if ret.is_unit() {
                            None
                        } else {
                            Some(v)
                        }
                    }
                };
                Stmt::Return {
                    value,
                    span: s.span,
                }
            }
            ast::StmtKind::Assert { cond, message } => Stmt::Assert {
                cond: self.condition(cond, "the condition of `assert`")?,
                message: message.clone(),
                span: s.span,
            },
            ast::StmtKind::For {
                ty,
                mutable,
                var,
                from,
                to,
                body,
            } => {
                let ty = self.resolve_type(ty)?;
                if !matches!(ty, Type::Uint(_)) {
                    return Err(Diagnostic::new(
                        format!("a loop variable must be an unsigned integer, found `{ty}`"),
                        var.span,
                    ));
                }
                let from = self.expr(from, Some(&ty))?;
                if from.ty != ty {
                    return Err(mismatch(&ty, &from.ty, from.span));
                }
                let to = self.expr(to, Some(&ty))?;
                if to.ty != ty {
                    return Err(mismatch(&ty, &to.ty, to.span));
                }
                self.fs.scopes.push(HashMap::default());
                let runtime = self.reads_runtime(&from) || self.reads_runtime(&to);
                let var = self.declare(var, ty, *mutable);
                if runtime {
                    self.fs.runtime.insert(var);
                }
                let body = self.scoped_block(&body.stmts);
                self.fs.scopes.pop();
                Stmt::For {
                    var,
                    from,
                    to,
                    body: body?,
                    span: s.span,
                }
            }
            ast::StmtKind::While { cond, body } => Stmt::While {
                cond: self.condition(cond, "the condition of `while`")?,
                body: self.scoped_block(&body.stmts)?,
                span: s.span,
            },
            ast::StmtKind::If {
                cond,
                then_block,
                else_block,
            } => Stmt::If {
                cond: self.condition(cond, "the condition of `if`")?,
                then_body: self.scoped_block(&then_block.stmts)?,
                else_body: match else_block {
                    Some(b) => self.scoped_block(&b.stmts)?,
                    None => Vec::new(),
                },
                span: s.span,
            },
            ast::StmtKind::Expr(e) => {
                if !matches!(e.kind, ast::ExprKind::Call { .. }) {
                    return Err(
                        Diagnostic::new("this expression statement has no effect", e.span)
                            .with_note("only function calls can be used as statements"),
                    );
                }
                Stmt::Expr(self.expr(e, None)?)
            }
        })
    }

    pub(super) fn place(&mut self, e: &ast::Expr) -> TResult<(Place, Type)> {
        match &e.kind {
            ast::ExprKind::Name(name) => {
                let Some(id) = self.lookup_local(&name.name) else {
                    if self.scopes[self.cur].consts.contains_key(&name.name) {
                        return Err(Diagnostic::new(
                            format!("cannot assign to constant `{}`", name.name),
                            name.span,
                        ));
                    }
                    return Err(unknown_variable(name));
                };
                let info = &self.fs.locals[id.0 as usize];
                if !info.mutable {
                    return Err(Diagnostic::new(
                        format!("cannot assign to immutable variable `{}`", name.name),
                        name.span,
                    )
                    .with_note(format!(
                        "declare it mutable: `{} mut {}`",
                        info.ty, name.name
                    )));
                }
                Ok((
                    Place {
                        local: id,
                        path: Vec::new(),
                        span: e.span,
                    },
                    info.ty.clone(),
                ))
            }
            ast::ExprKind::Index(base, index) => {
                let (mut p, ty) = self.place(base)?;
                let Type::Array(elem, n) = ty else {
                    return Err(Diagnostic::new(
                        format!("cannot index into a value of type `{ty}`"),
                        base.span,
                    ));
                };
                let index = self.index(index, n)?;
                p.path.push(PlaceElem::Index(index));
                p.span = e.span;
                Ok((p, *elem))
            }
            ast::ExprKind::Member(base, field) => {
                let (mut p, ty) = self.place(base)?;
                let (i, fty) = member(&ty, field)?;
                p.path.push(PlaceElem::Member(i));
                p.span = e.span;
                Ok((p, fty))
            }
            ast::ExprKind::TupleIndex(base, i) => {
                let (mut p, ty) = self.place(base)?;
                let ety = tuple_elem(&ty, *i, e.span)?;
                p.path.push(PlaceElem::TupleIndex(*i));
                p.span = e.span;
                Ok((p, ety))
            }
            _ => Err(Diagnostic::new(
                "invalid left-hand side of assignment",
                e.span,
            )
            .with_note("only variables, array elements, struct members and tuple elements can be assigned")),
        }
    }

    /// Checks an array index against an array of length `n`.
    pub(super) fn index(&mut self, index: &ast::Expr, n: u32) -> TResult<Expr> {
        let i = self.expr(index, Some(&Type::Uint(32)))?;
        if i.ty != Type::Uint(32) {
            return Err(Diagnostic::new(
                format!("an array index must be a `u32`, found `{}`", i.ty),
                index.span,
            ));
        }
        // As for `let`, an index whose constant evaluation fails is left to run time.
        if let Ok(Some(Value::Uint(v))) = self.eval(&i) {
            if v >= u64::from(n) {
                return Err(Diagnostic::new(
                    format!("index {v} is out of bounds for an array of length {n}"),
                    index.span,
                ));
            }
        }
        Ok(i)
    }
}

/// Can `log` print a value of this type? Everything but arrays that hold structs or tuples.
fn loggable(ty: &Type) -> bool {
    match ty {
        Type::Field | Type::Bool | Type::Uint(_) => true,
        Type::Array(elem, _) => {
            matches!(
                **elem,
                Type::Field | Type::Bool | Type::Uint(_) | Type::Array(..)
            ) && loggable(elem)
        }
        Type::Struct(s) => s.fields.iter().all(|(_, t)| loggable(t)),
        Type::Tuple(ts) => ts.iter().all(loggable),
    }
}

/// Renames every local `e` reads with `f`.
fn remap_locals(e: &mut Expr, f: &mut impl FnMut(LocalId) -> LocalId) {
    if let ExprKind::Local(id) = &mut e.kind {
        *id = f(*id);
    }
    e.for_each_child_mut(|x| remap_locals(x, f));
}
