//! Written types to types: named, array and tuple types, generic struct and alias instances,
//! and the unification that infers generic sizes from actual types.

use super::*;

impl Checker {
    // ---- types ----

    pub(super) fn resolve_type(&mut self, t: &ast::TypeExpr) -> TResult<Type> {
        let ty = match &t.kind {
            ast::TypeExprKind::Field => Type::Field,
            ast::TypeExprKind::Bool => Type::Bool,
            ast::TypeExprKind::Uint(w) => Type::Uint(*w),
            ast::TypeExprKind::Named(name, args) if !args.is_empty() => {
                let mut values = Vec::new();
                for a in args {
                    values.push(self.const_u32(a, "a generic argument")?);
                }
                self.generic_type(name, values, t.span)?
            }
            ast::TypeExprKind::Named(name, _) => {
                if self.scopes[self.cur]
                    .struct_templates
                    .contains_key(&name.name)
                    || self.scopes[self.cur]
                        .alias_templates
                        .contains_key(&name.name)
                {
                    return Err(Diagnostic::new(
                        format!("type `{}` needs generic arguments", name.name),
                        name.span,
                    )
                    .with_note(format!("write e.g. `{}<3>`", name.name)));
                }
                if let Some(s) = self.scopes[self.cur].structs.get(&name.name) {
                    Type::Struct(s.clone())
                } else if let Some(a) = self.scopes[self.cur].aliases.get(&name.name) {
                    a.clone()
                } else {
                    return Err(Diagnostic::new(
                        format!("unknown type `{}`", name.name),
                        name.span,
                    ));
                }
            }
            ast::TypeExprKind::Array(elem, size) => {
                let elem = self.resolve_type(elem)?;
                let n = self.const_u32(size, "array size")?;
                Type::Array(Box::new(elem), n)
            }
            ast::TypeExprKind::Tuple(ts) => Type::Tuple(
                ts.iter()
                    .map(|t| self.resolve_type(t))
                    .collect::<TResult<_>>()?,
            ),
        };
        if leaves(&ty) > MAX_TYPE_LEAVES {
            return Err(Diagnostic::new(
                format!("type `{ty}` is too large (more than {MAX_TYPE_LEAVES} elements)"),
                t.span,
            ));
        }
        Ok(ty)
    }

    /// Checks `e` as a `u32` compile-time constant.
    pub(super) fn const_u32(&mut self, e: &ast::Expr, what: &str) -> TResult<u32> {
        let te = self.expr(e, Some(&Type::Uint(32)))?;
        if te.ty != Type::Uint(32) {
            return Err(Diagnostic::new(
                format!("{what} must be a `u32`, found `{}`", te.ty),
                e.span,
            ));
        }
        let mut value = self.eval(&te)?;
        if value.is_none() && self.is_compile_time(&te) {
            // It calls functions (`u32[count(3)]`, or a local set by such a call).
            value = Some(
                self.run_value(what, &te, &Type::Uint(32))
                    .map_err(|d| Diagnostic { span: e.span, ..d })?,
            );
        }
        match value {
            Some(Value::Uint(v)) => u32::try_from(v)
                .map_err(|_| Diagnostic::new(format!("{what} {v} is too large"), e.span)),
            _ => Err(
                Diagnostic::new(format!("{what} must be a compile-time constant"), e.span)
                    .with_note("use a literal or a `const` definition"),
            ),
        }
    }

    /// The type `name<values>`: an instance of a generic struct or alias.
    pub(super) fn generic_type(
        &mut self,
        name: &ast::Ident,
        values: Vec<u32>,
        span: Span,
    ) -> TResult<Type> {
        if let Some((m, def)) = self.scopes[self.cur]
            .struct_templates
            .get(&name.name)
            .cloned()
        {
            return Ok(Type::Struct(self.struct_instance(m, &def, values, span)?));
        }
        let Some((m, def)) = self.scopes[self.cur]
            .alias_templates
            .get(&name.name)
            .cloned()
        else {
            return Err(
                if self.scopes[self.cur].structs.contains_key(&name.name)
                    || self.scopes[self.cur].aliases.contains_key(&name.name)
                {
                    Diagnostic::new(
                        format!("type `{}` has no generic parameters", name.name),
                        span,
                    )
                } else {
                    Diagnostic::new(format!("unknown type `{}`", name.name), name.span)
                },
            );
        };
        if def.generics.len() != values.len() {
            return Err(arity(&name.name, def.generics.len(), values.len(), span));
        }
        self.in_module(m, |c| {
            c.with_generics(&def.generics, &values, |c| c.resolve_type(&def.ty))
        })
    }

    /// Runs `f` with the generic parameters bound to `values` as `u32` constants.
    pub(super) fn with_generics<T>(
        &mut self,
        generics: &[ast::Ident],
        values: &[u32],
        f: impl FnOnce(&mut Self) -> TResult<T>,
    ) -> TResult<T> {
        let saved = self.scopes[self.cur].consts.clone();
        for (g, v) in generics.iter().zip(values) {
            self.scopes[self.cur]
                .consts
                .insert(g.name.clone(), (Type::Uint(32), Value::Uint(u64::from(*v))));
        }
        let result = f(self);
        self.scopes[self.cur].consts = saved;
        result
    }

    /// The instance of generic struct `def` for `values` (named `Bar<2>`), made on first use.
    pub(super) fn struct_instance(
        &mut self,
        m: usize,
        def: &ast::StructDef,
        values: Vec<u32>,
        span: Span,
    ) -> TResult<Arc<StructType>> {
        if def.generics.len() != values.len() {
            return Err(arity(
                &def.name.name,
                def.generics.len(),
                values.len(),
                span,
            ));
        }
        let key = (m, def.name.name.clone(), values);
        if let Some(s) = self.struct_instances.get(&key) {
            return Ok(s.clone());
        }
        let saved_cur = std::mem::replace(&mut self.cur, m);
        let fields = self.with_generics(&def.generics, &key.2, |c| {
            let mut fields: Vec<(String, Type)> = Vec::new();
            for (ty, name) in &def.fields {
                if fields.iter().any(|(n, _)| *n == name.name) {
                    return Err(Diagnostic::new(
                        format!(
                            "duplicate field `{}` in struct `{}`",
                            name.name, def.name.name
                        ),
                        name.span,
                    ));
                }
                fields.push((name.name.clone(), c.resolve_type(ty)?));
            }
            Ok(fields)
        });
        self.cur = saved_cur;
        let fields = fields?;
        let args: Vec<String> = key.2.iter().map(u32::to_string).collect();
        let name = format!("{}<{}>", def.name.name, args.join(", "));
        let s = Arc::new(StructType {
            name: name.clone(),
            fields,
        });
        self.struct_args
            .insert(name, ((m, key.1.clone()), key.2.clone()));
        self.struct_instances.insert(key, s.clone());
        Ok(s)
    }

    /// The instance a literal `Bar { c: [0, 0], d: false }` of a generic struct builds: the
    /// expected type's if it is an instance of `Bar`, else inferred from the member values.
    pub(super) fn infer_struct(
        &mut self,
        name: &ast::Ident,
        fields: &[(ast::Ident, ast::Expr)],
        expected: Option<&Type>,
        span: Span,
    ) -> TResult<Arc<StructType>> {
        let (m, def) = self.scopes[self.cur].struct_templates[&name.name].clone();
        if let Some(Type::Struct(s)) = expected {
            if self
                .struct_args
                .get(&s.name)
                .is_some_and(|((tm, t), _)| *tm == m && *t == def.name.name)
            {
                return Ok(s.clone());
            }
        }
        let mut bound: Vec<Option<u32>> = vec![None; def.generics.len()];
        for (fname, fvalue) in fields {
            if let Some((te, _)) = def.fields.iter().find(|(_, n)| n.name == fname.name) {
                let ty = self.expr(fvalue, None)?.ty;
                self.unify(te, &ty, &def.generics, &mut bound);
            }
        }
        let values = all_bound(&def.generics, &bound, |g| {
            Diagnostic::new(
                format!(
                    "cannot infer the generic parameter `{g}` of struct `{}`",
                    name.name
                ),
                span,
            )
            .with_note(format!("give the type, e.g. `{}<3> x = ...;`", name.name))
        })?;
        self.struct_instance(m, &def, values, span)
    }

    /// Binds the generic parameters used as sizes in the written type `te` (a parameter or
    /// return type of a generic function, a member of a generic struct) to what they are in
    /// the actual type `ty`. Struct instances and aliases are looked through.
    pub(super) fn unify(
        &self,
        te: &ast::TypeExpr,
        ty: &Type,
        generics: &[ast::Ident],
        bound: &mut [Option<u32>],
    ) {
        self.unify_depth(te, ty, generics, bound, 0);
    }

    pub(super) fn unify_depth(
        &self,
        te: &ast::TypeExpr,
        ty: &Type,
        generics: &[ast::Ident],
        bound: &mut [Option<u32>],
        depth: usize,
    ) {
        // Aliases may name aliases; a cycle is impossible (names are declared before use), but
        // the depth cap keeps any input from recursing without end.
        if depth > 64 {
            return;
        }
        let bind = |size: &ast::Expr, n: u32, bound: &mut [Option<u32>]| {
            if let ast::ExprKind::Name(name) = &size.kind {
                if let Some(k) = generics.iter().position(|g| g.name == name.name) {
                    bound[k].get_or_insert(n);
                }
            }
        };
        match (&te.kind, ty) {
            (ast::TypeExprKind::Array(elem, size), Type::Array(t, n)) => {
                bind(size, *n, bound);
                self.unify_depth(elem, t, generics, bound, depth + 1);
            }
            (ast::TypeExprKind::Tuple(ts), Type::Tuple(tys)) => {
                for (te, ty) in ts.iter().zip(tys) {
                    self.unify_depth(te, ty, generics, bound, depth + 1);
                }
            }
            (ast::TypeExprKind::Named(name, args), Type::Struct(s)) if !args.is_empty() => {
                let named = self.scopes[self.cur]
                    .struct_templates
                    .get(&name.name)
                    .map(|(m, def)| (*m, def.name.name.clone()));
                if let Some((template, values)) = self.struct_args.get(&s.name) {
                    if Some(template) == named.as_ref() {
                        for (a, v) in args.iter().zip(values) {
                            bind(a, *v, bound);
                        }
                    }
                }
            }
            (ast::TypeExprKind::Named(name, args), _) => {
                if let Some((_, def)) = self.scopes[self.cur].alias_templates.get(&name.name) {
                    let expanded = substitute(&def.ty, &def.generics, args);
                    self.unify_depth(&expanded, ty, generics, bound, depth + 1);
                } else if args.is_empty() {
                    // A plain alias has no generic sizes of its own to bind.
                }
            }
            _ => {}
        }
    }
}

/// `te` with the names of `generics` in its sizes replaced by `args`.
fn substitute(te: &ast::TypeExpr, generics: &[ast::Ident], args: &[ast::Expr]) -> ast::TypeExpr {
    let sub_expr = |e: &ast::Expr| -> ast::Expr {
        if let ast::ExprKind::Name(n) = &e.kind {
            if let Some(k) = generics.iter().position(|g| g.name == n.name) {
                if let Some(a) = args.get(k) {
                    return a.clone();
                }
            }
        }
        e.clone()
    };
    let kind = match &te.kind {
        ast::TypeExprKind::Array(elem, size) => ast::TypeExprKind::Array(
            Box::new(substitute(elem, generics, args)),
            Box::new(sub_expr(size)),
        ),
        ast::TypeExprKind::Tuple(ts) => {
            ast::TypeExprKind::Tuple(ts.iter().map(|t| substitute(t, generics, args)).collect())
        }
        ast::TypeExprKind::Named(n, a) => {
            ast::TypeExprKind::Named(n.clone(), a.iter().map(sub_expr).collect())
        }
        k => k.clone(),
    };
    ast::TypeExpr {
        kind,
        span: te.span,
    }
}

fn arity(name: &str, expected: usize, found: usize, span: Span) -> Diagnostic {
    Diagnostic::new(
        format!(
            "type `{name}` takes {expected} generic argument{} but {found} {} given",
            if expected == 1 { "" } else { "s" },
            if found == 1 { "was" } else { "were" }
        ),
        span,
    )
}
