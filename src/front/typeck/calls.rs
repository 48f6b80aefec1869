//! Calls: overload resolution, the built-in conversions and generic casts, and generic
//! function instances (inferred or explicit generic values, one check per instance).

use super::*;

impl Checker {
    pub(super) fn call(
        &mut self,
        callee: &ast::Ident,
        generics: &[ast::Expr],
        args: &[ast::Expr],
        expected: Option<&Type>,
        span: Span,
    ) -> TResult<Expr> {
        if let Some((m, t)) = self.scopes[self.cur].templates.get(&callee.name).cloned() {
            return self.call_generic(m, &t, callee, generics, args, expected, span);
        }
        if self.scopes[self.cur].generic_casts.contains(&callee.name) {
            let [arg] = args else {
                return Err(Diagnostic::new(
                    format!(
                        "`{}` takes 1 argument but {} were given",
                        callee.name,
                        args.len()
                    ),
                    span,
                ));
            };
            let Some(to) = expected else {
                return Err(Diagnostic::new(
                    format!("the result type of `{}` is not known here", callee.name),
                    span,
                )
                .with_note("assign the result to a variable of a declared type"));
            };
            let arg = self.expr(arg, None)?;
            return crate::front::casts::expand(arg, to, span);
        }
        if let Some(g) = generics.first() {
            return Err(Diagnostic::new(
                format!("function `{}` has no generic parameters", callee.name),
                g.span,
            ));
        }
        if let Some(ids) = self.scopes[self.cur].by_name.get(&callee.name).cloned() {
            let candidates: Vec<FuncId> = ids
                .iter()
                .copied()
                .filter(|id| self.sigs[id.0 as usize].params.len() == args.len())
                .collect();
            let id = match candidates.as_slice() {
                [] => {
                    let sig = &self.sigs[ids[0].0 as usize];
                    return Err(wrong_arity(callee, sig.params.len(), args.len(), span));
                }
                [id] => *id,
                _ => {
                    // Overloads: pick the one whose parameter types match the arguments.
                    let mut arg_tys = Vec::new();
                    for a in args {
                        arg_tys.push(self.expr(a, None)?.ty);
                    }
                    let matching: Vec<FuncId> = candidates
                        .iter()
                        .copied()
                        .filter(|id| self.sigs[id.0 as usize].params == arg_tys)
                        .collect();
                    // Overloads that differ only in their return type: the expected type
                    // chooses, as in ZoKrates (`(field, field[3]) a = foo();`).
                    let by_ret: Vec<FuncId> = matching
                        .iter()
                        .copied()
                        .filter(|id| expected == Some(&self.sigs[id.0 as usize].ret))
                        .collect();
                    match (matching.as_slice(), by_ret.as_slice()) {
                        ([id], _) | (_, [id]) => *id,
                        ([_, _, ..], _) => {
                            let rets: Vec<String> = matching
                                .iter()
                                .map(|id| format!("`{}`", self.sigs[id.0 as usize].ret))
                                .collect();
                            return Err(Diagnostic::new(
                                format!("ambiguous call to `{}`", callee.name),
                                span,
                            )
                            .with_note(format!(
                                "its definitions for these arguments return {}; assign the \
                                 result to a variable of one of these types",
                                rets.join(" and ")
                            )));
                        }
                        _ => {
                            let tys: Vec<String> = arg_tys.iter().map(|t| t.to_string()).collect();
                            return Err(Diagnostic::new(
                                format!(
                                    "no definition of `{}` takes arguments of types ({})",
                                    callee.name,
                                    tys.join(", ")
                                ),
                                span,
                            ));
                        }
                    }
                }
            };
            let targs = self.call_args(id, args)?;
            return Ok(self.call_expr(id, targs, callee, span));
        }
        let builtin = self.scopes[self.cur]
            .imports
            .get(&callee.name)
            .copied()
            .or_else(|| Builtin::from_name(&callee.name));
        let Some(b) = builtin else {
            return Err(Diagnostic::new(
                format!("unknown function `{}`", callee.name),
                callee.span,
            ));
        };
        if args.len() != 1 {
            return Err(Diagnostic::new(
                format!(
                    "function `{}` takes 1 argument but {} were given",
                    callee.name,
                    args.len()
                ),
                span,
            ));
        }
        let p = b.param();
        let a = self.expr(&args[0], Some(&p))?;
        if a.ty != p {
            return Err(mismatch(&p, &a.ty, a.span));
        }
        if let (Builtin::FieldToUint(w), true) = (b, self.compat && Some(self.cur) != self.embed) {
            return Ok(truncating_field_to_uint(a, w, span));
        }
        let e = Expr {
            kind: ExprKind::Builtin(b, Box::new(a)),
            ty: b.result(),
            span,
        };
        Ok(e)
    }

    /// A call of a generic function: the generic values come from `::<...>` or from the array
    /// sizes of the arguments; the function is checked once per distinct set of values.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call_generic(
        &mut self,
        m: usize,
        t: &Arc<ast::FunctionDef>,
        callee: &ast::Ident,
        explicit: &[ast::Expr],
        args: &[ast::Expr],
        expected: Option<&Type>,
        span: Span,
    ) -> TResult<Expr> {
        if args.len() != t.params.len() {
            return Err(wrong_arity(callee, t.params.len(), args.len(), span));
        }
        let mut bound: Vec<Option<u32>> = vec![None; t.generics.len()];
        if !explicit.is_empty() {
            if explicit.len() != t.generics.len() {
                return Err(Diagnostic::new(
                    format!(
                        "function `{}` takes {} generic arguments but {} were given",
                        callee.name,
                        t.generics.len(),
                        explicit.len()
                    ),
                    span,
                ));
            }
            for (b, g) in bound.iter_mut().zip(explicit) {
                // `_` leaves the parameter to inference.
                if !matches!(&g.kind, ast::ExprKind::Name(n) if n.name == "_") {
                    *b = Some(self.const_u32(g, "a generic argument")?);
                }
            }
        }
        if bound.iter().any(Option::is_none) {
            for (p, a) in t.params.iter().zip(args) {
                let ty = self.expr(a, None)?.ty;
                self.in_module(m, |c| c.unify(&p.ty, &ty, &t.generics, &mut bound));
            }
        }
        // What the result is assigned to may fix the rest (`matrix<2, 4> m = fill(1);`).
        if let (Some(ret), Some(expected)) = (&t.ret, expected) {
            if bound.iter().any(Option::is_none) {
                self.in_module(m, |c| c.unify(ret, expected, &t.generics, &mut bound));
            }
        }
        let values = all_bound(&t.generics, &bound, |g| {
            Diagnostic::new(
                format!(
                    "cannot infer the generic parameter `{g}` of `{}`",
                    callee.name
                ),
                span,
            )
            .with_note(format!("give it explicitly: `{}::<...>(...)`", callee.name))
        })?;
        let id = self.instance(m, t, values.clone(), span)?;
        let targs = self.call_args(id, args)?;
        if Some(m) == self.embed {
            self.embed_call_rules(&t.name.name, &values, &targs)?;
        }
        Ok(self.call_expr(id, targs, callee, span))
    }

    /// The arguments of a call of function `id`, checked against its parameter types.
    fn call_args(&mut self, id: FuncId, args: &[ast::Expr]) -> TResult<Vec<Expr>> {
        let params = self.sigs[id.0 as usize].params.clone();
        let mut targs = Vec::new();
        for (a, p) in args.iter().zip(&params) {
            let a = self.expr(a, Some(p))?;
            if a.ty != *p {
                return Err(mismatch(p, &a.ty, a.span));
            }
            targs.push(a);
        }
        Ok(targs)
    }

    /// The call of function `id` on checked arguments, recorded as a call site of the function
    /// being checked.
    fn call_expr(&mut self, id: FuncId, targs: Vec<Expr>, callee: &ast::Ident, span: Span) -> Expr {
        self.fs.calls.push((id, callee.span));
        Expr {
            kind: ExprKind::Call(id, targs),
            ty: self.sigs[id.0 as usize].ret.clone(),
            span,
        }
    }

    /// The instance of template `t` for `values`, checking it on first use.
    pub(super) fn instance(
        &mut self,
        m: usize,
        t: &ast::FunctionDef,
        values: Vec<u32>,
        span: Span,
    ) -> TResult<FuncId> {
        let key = (m, t.name.name.clone(), values.clone());
        if let Some(id) = self.instances.get(&key) {
            return Ok(*id);
        }
        if self.instance_depth >= MAX_INSTANCE_DEPTH {
            return Err(Diagnostic::new(
                format!(
                    "generic function `{}` is instantiated too deeply (more than {MAX_INSTANCE_DEPTH} levels)",
                    t.name.name
                ),
                span,
            ));
        }
        // The instance is checked in its template's module, where the generic parameters are
        // constants.
        let saved_cur = std::mem::replace(&mut self.cur, m);
        let saved_consts = self.scopes[self.cur].consts.clone();
        for (g, v) in t.generics.iter().zip(&values) {
            self.scopes[self.cur]
                .consts
                .insert(g.name.clone(), (Type::Uint(32), Value::Uint(u64::from(*v))));
        }
        let saved_fs = std::mem::take(&mut self.fs);
        // An instance's body is not inside the `asm` hint that may have called it.
        let saved_hint = std::mem::replace(&mut self.in_hint, false);
        self.instance_depth += 1;
        let result = self.instantiate(t, key);
        self.instance_depth -= 1;
        self.in_hint = saved_hint;
        self.fs = saved_fs;
        self.scopes[self.cur].consts = saved_consts;
        self.cur = saved_cur;
        result
    }

    pub(super) fn instantiate(
        &mut self,
        t: &ast::FunctionDef,
        key: (usize, String, Vec<u32>),
    ) -> TResult<FuncId> {
        let mut params = Vec::new();
        for p in &t.params {
            params.push(self.resolve_type(&p.ty)?);
        }
        let ret = match &t.ret {
            Some(r) => self.resolve_type(r)?,
            None => Type::unit(),
        };
        let id = self.new_sig(Sig {
            name: t.name.name.clone(),
            params,
            ret,
            name_span: t.name.span,
        });
        self.instances.insert(key, id);
        let checked = self.function(id, t)?;
        self.bodies[id.0 as usize] = Some(checked);
        Ok(id)
    }
}

impl Checker {
    /// What ZoKrates requires of the arguments of two embedded functions, checked at compile
    /// time: `unpack::<N>` of a constant that fits in N bits, and `bit_array_le` with a constant
    /// second argument.
    fn embed_call_rules(&self, name: &str, generics: &[u32], args: &[Expr]) -> TResult<()> {
        match (name, generics, args) {
            ("unpack", [n], [x]) if *n < FIELD_BITS => {
                if let Some(Value::Field(v)) = self.eval(x)? {
                    let big = v.into_bigint();
                    if ark_ff::BigInteger::num_bits(&big) > *n {
                        return Err(Diagnostic::new(
                            format!("the value {v} does not fit in {n} bits"),
                            x.span,
                        )
                        .with_note(format!(
                            "`unpack::<{n}>` of a constant needs it below 2^{n}"
                        )));
                    }
                }
            }
            ("bit_array_le", _, [_, b]) if !self.is_compile_time(b) => {
                return Err(Diagnostic::new(
                    "the second argument of `bit_array_le` must be a compile-time constant",
                    b.span,
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// Does `e` depend only on compile-time values (literals, locals of known value, and calls
    /// of such values)?
    pub(super) fn is_compile_time(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Field(_) | ExprKind::Uint(_) | ExprKind::Bool(_) => true,
            ExprKind::Local(id) => {
                self.fs.known.contains_key(id) || self.fs.deferred.contains_key(id)
            }
            ExprKind::Hint(..) => false,
            _ => e.all_children(|x| self.is_compile_time(x)),
        }
    }
}

/// ZoKrates' `field_to_uN`: the low N bits of the field element's canonical value (a value
/// that does not fit is truncated), as `uN_from_bits(field_to_bits(x)[254 - N..])`.
pub(super) fn truncating_field_to_uint(x: Expr, w: u32, span: Span) -> Expr {
    let bits = Expr {
        kind: ExprKind::Builtin(Builtin::FieldToBits, Box::new(x)),
        ty: Type::Array(Box::new(Type::Bool), FIELD_BITS),
        span,
    };
    let low = Expr {
        kind: ExprKind::Slice(Box::new(bits), FIELD_BITS - w, FIELD_BITS),
        ty: Type::Array(Box::new(Type::Bool), w),
        span,
    };
    Expr {
        kind: ExprKind::Builtin(Builtin::UintFromBits(w), Box::new(low)),
        ty: Type::Uint(w),
        span,
    }
}

/// `function NAME takes N argument(s) but M was/were given`.
fn wrong_arity(callee: &ast::Ident, n_params: usize, n_args: usize, span: Span) -> Diagnostic {
    Diagnostic::new(
        format!(
            "function `{}` takes {} argument{} but {} {} given",
            callee.name,
            n_params,
            if n_params == 1 { "" } else { "s" },
            n_args,
            if n_args == 1 { "was" } else { "were" }
        ),
        span,
    )
}
