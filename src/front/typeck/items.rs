//! The module-level passes, module by module (dependencies first): imports, structs, aliases and
//! constants in source order; signatures; then the bodies (every function of the root, and the
//! functions of imported modules that something calls); the recursion check; and the program's
//! functions numbered without the imported functions nothing called.

use crate::fxhash::HashSet;

use super::*;
use crate::front::modules::EMBED_NAME;

/// What `from "EMBED" import` may name (ZoKrates 0.8's embeds on BN254).
const EMBED_EXPORTS: &[&str] = &[
    "u8_to_bits",
    "u16_to_bits",
    "u32_to_bits",
    "u64_to_bits",
    "u8_from_bits",
    "u16_from_bits",
    "u32_from_bits",
    "u64_from_bits",
    "unpack",
    "bit_array_le",
    "FIELD_SIZE_IN_BITS",
    "sha256round",
    "field_to_bool_unsafe",
];

impl Checker {
    pub(super) fn run(mut self, loaded: &Loaded) -> TResult<Program> {
        self.scopes = vec![Scope::default(); loaded.modules.len()];
        self.library = loaded.modules.iter().map(|m| m.is_library).collect();
        self.map = loaded.map.clone();
        let root = loaded.modules.len() - 1;
        for (m, module) in loaded.modules.iter().enumerate() {
            self.cur = m;
            if module.is_embed {
                self.embed = Some(m);
                self.embed_scope();
            }
            self.declarations(module, loaded)?;
        }
        self.cur = root;
        let main = match self.scopes[root].by_name.get("main").map(Vec::as_slice) {
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
        // Bodies: every plain function of the root, in order; then, until none is left, the
        // functions of other modules that a checked body calls.
        let mut root_fns: Vec<FuncId> = self
            .plain
            .iter()
            .filter(|(_, (m, _))| *m == root)
            .map(|(id, _)| *id)
            .collect();
        root_fns.sort();
        for id in root_fns {
            self.check_body(id)?;
        }
        loop {
            let wanted: Vec<FuncId> = self
                .bodies
                .iter()
                .flatten()
                .flat_map(|(_, calls)| calls.iter().map(|(id, _)| *id))
                .filter(|id| self.bodies[id.0 as usize].is_none())
                .collect();
            if wanted.is_empty() {
                break;
            }
            for id in wanted {
                if self.bodies[id.0 as usize].is_none() {
                    self.check_body(id)?;
                }
            }
        }
        self.check_recursion()?;
        // Number the checked functions densely.
        let mut new_id = vec![u32::MAX; self.bodies.len()];
        let mut functions = Vec::new();
        for (i, body) in std::mem::take(&mut self.bodies).into_iter().enumerate() {
            if let Some((f, _)) = body {
                new_id[i] = functions.len() as u32;
                functions.push(f);
            }
        }
        for f in &mut functions {
            renumber_stmts(&mut f.body, &new_id);
        }
        Ok(Program {
            functions,
            main: FuncId(new_id[main.0 as usize]),
        })
    }

    /// Checks the body of plain function `id` in its module.
    pub(super) fn check_body(&mut self, id: FuncId) -> TResult<()> {
        let (m, f) = self.plain[&id].clone();
        let checked = self.in_module(m, |c| c.function(id, &f))?;
        self.bodies[id.0 as usize] = Some(checked);
        Ok(())
    }

    /// The built-in module's own names: the conversions it may call without importing them.
    fn embed_scope(&mut self) {
        let scope = &mut self.scopes[self.cur];
        for b in Builtin::uint_conversions() {
            scope.imports.insert(b.name(), b);
        }
        scope
            .imports
            .insert(Builtin::FieldToBool.name(), Builtin::FieldToBool);
        scope
            .imports
            .insert(Builtin::FieldToBits.name(), Builtin::FieldToBits);
    }

    /// Pass 1 (imports, structs, aliases, constants, in order) and pass 2 (signatures) of one
    /// module.
    fn declarations(&mut self, module: &LoadedModule, loaded: &Loaded) -> TResult<()> {
        let mut top_names: HashMap<String, Span> = HashMap::default();
        let declare_top = |top_names: &mut HashMap<String, Span>, name: &ast::Ident| {
            if top_names.insert(name.name.clone(), name.span).is_some() {
                return Err(Diagnostic::new(
                    format!("duplicate definition of `{}`", name.name),
                    name.span,
                ));
            }
            Ok(())
        };
        let mut targets = module.imports.iter();
        // Functions declared in pass 1 for a constant's value, by item index.
        let mut early: HashSet<usize> = HashSet::default();
        for item in &module.ast.items {
            match item {
                ast::Item::Import(imp) => {
                    let target = *targets
                        .next()
                        .expect("bug: the loader resolves every import");
                    let imp: &ast::Import = imp;
                    declare_top(&mut top_names, &imp.alias).map_err(|d| {
                        d.with_note("the name is already defined or imported in this module")
                    })?;
                    self.bind_import(imp, target, loaded)?;
                }
                ast::Item::Struct(s) => {
                    declare_top(&mut top_names, &s.name)?;
                    for (i, g) in s.generics.iter().enumerate() {
                        if s.generics[..i].iter().any(|h| h.name == g.name) {
                            return Err(Diagnostic::new(
                                format!("duplicate generic parameter `{}`", g.name),
                                g.span,
                            ));
                        }
                        if !s.fields.iter().any(|(ty, _)| type_mentions(ty, &g.name)) {
                            return Err(Diagnostic::new(
                                format!(
                                    "generic parameter `{}` is not used in struct `{}`",
                                    g.name, s.name.name
                                ),
                                g.span,
                            ));
                        }
                    }
                    if !s.generics.is_empty() {
                        let cur = self.cur;
                        self.scopes[cur]
                            .struct_templates
                            .insert(s.name.name.clone(), (cur, Arc::new(s.clone())));
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
                    self.scopes[self.cur].structs.insert(
                        s.name.name.clone(),
                        Arc::new(StructType {
                            name: s.name.name.clone(),
                            fields,
                        }),
                    );
                }
                ast::Item::TypeAlias(a) => {
                    declare_top(&mut top_names, &a.name)?;
                    if !a.generics.is_empty() {
                        let cur = self.cur;
                        self.scopes[cur]
                            .alias_templates
                            .insert(a.name.name.clone(), (cur, Arc::new(a.clone())));
                        continue;
                    }
                    let ty = self.resolve_type(&a.ty)?;
                    self.scopes[self.cur]
                        .aliases
                        .insert(a.name.name.clone(), ty);
                }
                ast::Item::Const(c) => {
                    declare_top(&mut top_names, &c.name)?;
                    let ty = self.resolve_type(&c.ty)?;
                    let calls = consts::has_call(&c.value);
                    if calls {
                        self.declare_early(module, &mut early);
                    }
                    let value = self.expr(&c.value, Some(&ty))?;
                    if value.ty != ty {
                        return Err(mismatch(&ty, &value.ty, value.span));
                    }
                    let v = match self.eval(&value)? {
                        Some(v) => v,
                        None if calls => self.run_constant(&c.name, &value, &ty)?,
                        None => {
                            return Err(Diagnostic::new(
                                format!(
                                    "the value of constant `{}` must be a compile-time constant",
                                    c.name.name
                                ),
                                c.value.span,
                            ))
                        }
                    };
                    self.scopes[self.cur]
                        .consts
                        .insert(c.name.name.clone(), (ty, v));
                }
                ast::Item::Function(f) => {
                    // A generic parameter may not reuse the name of a constant defined (or
                    // imported) above the function, as in ZoKrates.
                    if let Some(g) = f
                        .generics
                        .iter()
                        .find(|g| self.scopes[self.cur].consts.contains_key(&g.name))
                    {
                        return Err(Diagnostic::new(
                            format!("generic parameter `{}` has the name of a constant", g.name),
                            g.span,
                        )
                        .with_note("rename the generic parameter or the constant"));
                    }
                }
            }
        }
        // Pass 2: signatures (those a constant's value needed are declared already).
        for (k, item) in module.ast.items.iter().enumerate() {
            let ast::Item::Function(f) = item else {
                continue;
            };
            if top_names.contains_key(&f.name.name) {
                return Err(Diagnostic::new(
                    format!("duplicate definition of `{}`", f.name.name),
                    f.name.span,
                ));
            }
            if !early.contains(&k) {
                self.declare_signature(f)?;
            }
        }
        Ok(())
    }

    /// Declares the signatures of the module's functions not declared yet whose types can be
    /// resolved now, for a constant whose value calls a function; `early` gets their item
    /// indices. The others wait for pass 2, which reports their errors.
    fn declare_early(&mut self, module: &LoadedModule, early: &mut HashSet<usize>) {
        for (k, item) in module.ast.items.iter().enumerate() {
            if let ast::Item::Function(f) = item {
                if !early.contains(&k) && self.declare_signature(f).is_ok() {
                    early.insert(k);
                }
            }
        }
    }

    /// Declares function `f`: a template if it is generic, else its signature. Nothing is
    /// declared when it fails.
    fn declare_signature(&mut self, f: &ast::FunctionDef) -> TResult<()> {
        let scope = &self.scopes[self.cur];
        let clash = scope.templates.contains_key(&f.name.name)
            || (!f.generics.is_empty() && scope.by_name.contains_key(&f.name.name));
        if clash {
            return Err(Diagnostic::new(
                format!("duplicate definition of `{}`", f.name.name),
                f.name.span,
            ));
        }
        for (i, g) in f.generics.iter().enumerate() {
            if f.generics[..i].iter().any(|h| h.name == g.name) {
                return Err(Diagnostic::new(
                    format!("duplicate generic parameter `{}`", g.name),
                    g.span,
                ));
            }
        }
        if !f.generics.is_empty() {
            let cur = self.cur;
            self.scopes[cur]
                .templates
                .insert(f.name.name.clone(), (cur, Arc::new(f.clone())));
            return Ok(());
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
        if let Some(overloads) = self.scopes[self.cur].by_name.get(&f.name.name) {
            for other in overloads {
                let other = &self.sigs[other.0 as usize];
                if other.params == params && other.ret == ret {
                    return Err(Diagnostic::new(
                        format!("duplicate definition of function `{}`", f.name.name),
                        f.name.span,
                    )
                    .with_note(
                        "a function may only be overloaded with different parameter or \
                         return types",
                    ));
                }
            }
        }
        let id = self.new_sig(Sig {
            name: f.name.name.clone(),
            params,
            ret,
            name_span: f.name.span,
        });
        let cur = self.cur;
        self.scopes[cur]
            .by_name
            .entry(f.name.name.clone())
            .or_default()
            .push(id);
        self.plain.insert(id, (cur, Arc::new(f.clone())));
        Ok(())
    }

    /// Binds what `imp` names in the current module.
    fn bind_import(&mut self, imp: &ast::Import, target: Target, loaded: &Loaded) -> TResult<()> {
        let t = match target {
            Target::Builtin => {
                if is_generic_cast(imp) {
                    self.scopes[self.cur]
                        .generic_casts
                        .insert(imp.alias.name.clone());
                    return Ok(());
                }
                let Some(b) = builtin_for_import(imp) else {
                    return Err(Diagnostic::new(
                        format!("cannot resolve import of `{}`", imp.path),
                        imp.span,
                    )
                    .with_note(
                        "zkbc's built-in `utils/casts` has `cast` and the conversion modules, \
                         e.g. `import \"utils/casts/u32_to_bits\" as to_bits;`",
                    ));
                };
                self.scopes[self.cur]
                    .imports
                    .insert(imp.alias.name.clone(), b);
                return Ok(());
            }
            Target::Module(t) => t,
        };
        let (sym, sym_span) = match &imp.symbol {
            Some(s) => (s.name.as_str(), s.span),
            None => ("main", imp.span),
        };
        let from = if loaded.modules[t].is_embed {
            if !EMBED_EXPORTS.contains(&sym) {
                return Err(
                    Diagnostic::new(format!("`EMBED` has no symbol `{sym}`"), sym_span).with_note(
                        format!("the embedded symbols are {}", EMBED_EXPORTS.join(", ")),
                    ),
                );
            }
            EMBED_NAME.to_string()
        } else {
            imp.path.clone()
        };
        let (src, alias) = (&self.scopes[t], imp.alias.name.clone());
        let mut dst = Scope::default();
        let mut found = false;
        macro_rules! copy {
            ($($field:ident),*) => {$(
                if let Some(v) = src.$field.get(sym) {
                    dst.$field.insert(alias.clone(), v.clone());
                    found = true;
                }
            )*};
        }
        copy!(
            structs,
            aliases,
            struct_templates,
            alias_templates,
            consts,
            imports,
            by_name,
            templates
        );
        if src.generic_casts.contains(sym) {
            dst.generic_casts.insert(alias.clone());
            found = true;
        }
        if !found {
            return Err(Diagnostic::new(
                format!("module `{from}` has no symbol `{sym}`"),
                sym_span,
            ));
        }
        let scope = &mut self.scopes[self.cur];
        scope.structs.extend(dst.structs);
        scope.aliases.extend(dst.aliases);
        scope.struct_templates.extend(dst.struct_templates);
        scope.alias_templates.extend(dst.alias_templates);
        scope.consts.extend(dst.consts);
        scope.imports.extend(dst.imports);
        scope.by_name.extend(dst.by_name);
        scope.templates.extend(dst.templates);
        scope.generic_casts.extend(dst.generic_casts);
        Ok(())
    }

    pub(super) fn check_recursion(&self) -> TResult<()> {
        let calls: Vec<CallSites> = self
            .bodies
            .iter()
            .map(|b| b.as_ref().map_or(Vec::new(), |(_, c)| c.clone()))
            .collect();
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

/// Renumbers the functions `stmts` call: `f` becomes `new_id[f]`.
pub(super) fn renumber_stmts(stmts: &mut [Stmt], new_id: &[u32]) {
    for s in stmts {
        match s {
            Stmt::Let { value, .. } => renumber(value, new_id),
            Stmt::Assign { place, value } => {
                for elem in &mut place.path {
                    if let PlaceElem::Index(i) = elem {
                        renumber(i, new_id);
                    }
                }
                renumber(value, new_id);
            }
            Stmt::Return { value, .. } => {
                if let Some(v) = value {
                    renumber(v, new_id);
                }
            }
            Stmt::Assert { cond, .. } => renumber(cond, new_id),
            Stmt::For { from, to, body, .. } => {
                renumber(from, new_id);
                renumber(to, new_id);
                renumber_stmts(body, new_id);
            }
            Stmt::While { cond, body, .. } => {
                renumber(cond, new_id);
                renumber_stmts(body, new_id);
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                renumber(cond, new_id);
                renumber_stmts(then_body, new_id);
                renumber_stmts(else_body, new_id);
            }
            Stmt::Expr(e) => renumber(e, new_id),
            Stmt::Log { args, .. } => args.iter_mut().for_each(|a| renumber(a, new_id)),
        }
    }
}

pub(super) fn renumber(e: &mut Expr, new_id: &[u32]) {
    if let ExprKind::Call(id, _) | ExprKind::Hint(id, _) = &mut e.kind {
        *id = FuncId(new_id[id.0 as usize]);
    }
    e.for_each_child_mut(|x| renumber(x, new_id));
}

/// Does the written type `ty` name `name` (in an array size or a generic argument)?
fn type_mentions(ty: &ast::TypeExpr, name: &str) -> bool {
    match &ty.kind {
        ast::TypeExprKind::Field | ast::TypeExprKind::Bool | ast::TypeExprKind::Uint(_) => false,
        ast::TypeExprKind::Named(_, args) => args.iter().any(|a| expr_mentions(a, name)),
        ast::TypeExprKind::Array(elem, size) => {
            type_mentions(elem, name) || expr_mentions(size, name)
        }
        ast::TypeExprKind::Tuple(ts) => ts.iter().any(|t| type_mentions(t, name)),
    }
}

/// Does `e` read the name `name`?
fn expr_mentions(e: &ast::Expr, name: &str) -> bool {
    use ast::ExprKind as K;
    let m = |x: &ast::Expr| expr_mentions(x, name);
    match &e.kind {
        K::Decimal { .. } | K::Hex(_) | K::Bool(_) => false,
        K::Name(n) => n.name == name,
        K::Unary(_, x) | K::Member(x, _) | K::TupleIndex(x, _) => m(x),
        K::Binary(_, a, b) | K::Repeat(a, b) | K::Index(a, b) => m(a) || m(b),
        K::Conditional(c, a, b) => m(c) || m(a) || m(b),
        K::Call { generics, args, .. } => generics.iter().chain(args).any(m),
        K::Array(elems) => elems.iter().any(|el| match el {
            ast::ArrayElem::Single(x) | ast::ArrayElem::Spread(x) => m(x),
        }),
        K::Slice(x, from, to) => {
            m(x) || from.as_deref().is_some_and(m) || to.as_deref().is_some_and(m)
        }
        K::Struct(_, fields) => fields.iter().any(|(_, x)| m(x)),
        K::Tuple(xs) => xs.iter().any(m),
    }
}
