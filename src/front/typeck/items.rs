//! The module-level passes: declarations in order, signatures, bodies, and the recursion check.

use super::*;

impl Checker {
    pub(super) fn run(mut self, module: &ast::Module) -> TResult<Program> {
        let mut top_names: HashMap<String, Span> = HashMap::new();
        let mut declare_top = |name: &ast::Ident| -> TResult<()> {
            if top_names.insert(name.name.clone(), name.span).is_some() {
                return Err(Diagnostic::new(
                    format!("duplicate definition of `{}`", name.name),
                    name.span,
                ));
            }
            Ok(())
        };
        // Pass 1: imports, structs, aliases, constants, in order.
        for item in &module.items {
            match item {
                ast::Item::Import(imp) => {
                    if is_generic_cast(imp) {
                        declare_top(&imp.alias)?;
                        self.generic_casts.insert(imp.alias.name.clone());
                        continue;
                    }
                    let Some(b) = builtin_for_import(imp) else {
                        return Err(Diagnostic::new(
                            format!("cannot resolve import of `{}`", imp.path),
                            imp.span,
                        )
                        .with_note(
                            "only the cast built-ins can be imported, e.g. \
                             `import \"utils/casts/u32_to_bits\" as to_bits;`",
                        ));
                    };
                    declare_top(&imp.alias)?;
                    self.imports.insert(imp.alias.name.clone(), b);
                }
                ast::Item::Struct(s) => {
                    declare_top(&s.name)?;
                    if !s.generics.is_empty() {
                        self.struct_templates
                            .insert(s.name.name.clone(), Arc::new(s.clone()));
                        continue;
                    }
                    let mut fields: Vec<(String, Type)> = Vec::new();
                    for (ty, name) in &s.fields {
                        if fields.iter().any(|(n, _)| *n == name.name) {
                            return Err(Diagnostic::new(
                                format!(
                                    "duplicate field `{}` in struct `{}`",
                                    name.name, s.name.name
                                ),
                                name.span,
                            ));
                        }
                        fields.push((name.name.clone(), self.resolve_type(ty)?));
                    }
                    self.structs.insert(
                        s.name.name.clone(),
                        Arc::new(StructType {
                            name: s.name.name.clone(),
                            fields,
                        }),
                    );
                }
                ast::Item::TypeAlias(a) => {
                    declare_top(&a.name)?;
                    if !a.generics.is_empty() {
                        self.alias_templates
                            .insert(a.name.name.clone(), Arc::new(a.clone()));
                        continue;
                    }
                    let ty = self.resolve_type(&a.ty)?;
                    self.aliases.insert(a.name.name.clone(), ty);
                }
                ast::Item::Const(c) => {
                    declare_top(&c.name)?;
                    let ty = self.resolve_type(&c.ty)?;
                    let value = self.expr(&c.value, Some(&ty))?;
                    if value.ty != ty {
                        return Err(mismatch(&ty, &value.ty, value.span));
                    }
                    let Some(v) = self.eval(&value)? else {
                        return Err(Diagnostic::new(
                            format!(
                                "the value of constant `{}` must be a compile-time constant",
                                c.name.name
                            ),
                            c.value.span,
                        ));
                    };
                    self.consts.insert(c.name.name.clone(), (ty, v));
                }
                ast::Item::Function(_) => {}
            }
        }
        // Pass 2: signatures.
        let functions: Vec<&ast::FunctionDef> = module
            .items
            .iter()
            .filter_map(|i| match i {
                ast::Item::Function(f) => Some(f),
                _ => None,
            })
            .collect();
        for f in &functions {
            let clash = top_names.contains_key(&f.name.name)
                || self.templates.contains_key(&f.name.name)
                || (!f.generics.is_empty() && self.by_name.contains_key(&f.name.name));
            if clash {
                return Err(Diagnostic::new(
                    format!("duplicate definition of `{}`", f.name.name),
                    f.name.span,
                ));
            }
            if !f.generics.is_empty() {
                self.templates
                    .insert(f.name.name.clone(), Arc::new((*f).clone()));
                continue;
            }
            let mut params = Vec::new();
            for p in &f.params {
                let ty = self.resolve_type(&p.ty)?;
                params.push(ty);
            }
            let ret = match &f.ret {
                Some(t) => self.resolve_type(t)?,
                None => Type::unit(),
            };
            let id = FuncId(self.sigs.len() as u32);
            let overloads = self.by_name.entry(f.name.name.clone()).or_default();
            for other in overloads.iter() {
                if self.sigs[other.0 as usize].params == params {
                    return Err(Diagnostic::new(
                        format!("duplicate definition of function `{}`", f.name.name),
                        f.name.span,
                    )
                    .with_note(
                        "a function may only be overloaded with different parameter types",
                    ));
                }
            }
            overloads.push(id);
            self.sigs.push(Sig {
                name: f.name.name.clone(),
                params,
                ret,
                name_span: f.name.span,
            });
        }
        let main = match self.by_name.get("main").map(Vec::as_slice) {
            Some([id]) => *id,
            Some([_, second, ..]) => {
                return Err(Diagnostic::new(
                    "`main` must be defined only once",
                    self.sigs[second.0 as usize].name_span,
                ))
            }
            _ => {
                return Err(
                    Diagnostic::new("the program has no `main` function", Span::new(0, 0))
                        .with_note("add `def main(...) { ... }`"),
                )
            }
        };
        // Pass 3: bodies. Generic functions are checked once per instance, at their calls.
        self.n_plain = self.sigs.len();
        let mut checked = Vec::new();
        let mut calls = Vec::new();
        let plain = functions.iter().filter(|f| f.generics.is_empty());
        for (i, f) in plain.enumerate() {
            let (func, f_calls) = self.function(FuncId(i as u32), f)?;
            checked.push(func);
            calls.push(f_calls);
        }
        for instance in std::mem::take(&mut self.extra) {
            let (func, f_calls) = instance.expect("bug: generic instance left unchecked");
            checked.push(func);
            calls.push(f_calls);
        }
        self.check_recursion(&calls)?;
        Ok(Program {
            functions: checked,
            main,
        })
    }

    pub(super) fn check_recursion(&self, calls: &[Vec<(FuncId, Span)>]) -> TResult<()> {
        // Iterative DFS with colours; a call to a function on the stack closes a cycle.
        #[derive(Clone, Copy, PartialEq)]
        enum Colour {
            White,
            Grey,
            Black,
        }
        let n = calls.len();
        let mut colour = vec![Colour::White; n];
        for root in 0..n {
            if colour[root] != Colour::White {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            colour[root] = Colour::Grey;
            while let Some(&mut (f, ref mut next)) = stack.last_mut() {
                if let Some(&(callee, span)) = calls[f].get(*next) {
                    *next += 1;
                    let c = callee.0 as usize;
                    match colour[c] {
                        Colour::Grey => {
                            let start = stack.iter().position(|&(g, _)| g == c).unwrap_or(0);
                            let mut chain: Vec<&str> = stack[start..]
                                .iter()
                                .map(|&(g, _)| self.sigs[g].name.as_str())
                                .collect();
                            chain.push(&self.sigs[c].name);
                            return Err(Diagnostic::new(
                                format!("recursive call to `{}`", self.sigs[c].name),
                                span,
                            )
                            .with_note(format!(
                                "recursion is not supported; the cycle is {}",
                                chain.join(" -> ")
                            )));
                        }
                        Colour::White => {
                            colour[c] = Colour::Grey;
                            stack.push((c, 0));
                        }
                        Colour::Black => {}
                    }
                } else {
                    colour[f] = Colour::Black;
                    stack.pop();
                }
            }
        }
        Ok(())
    }
}
