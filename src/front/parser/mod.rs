//! The parser: tokens to the [`ast`](super::ast) tree, by hand-written recursive descent.
//!
//! Expressions use precedence climbing. From loosest to tightest binding:
//!
//! | level | operators            | associativity |
//! |-------|----------------------|---------------|
//! | 0     | `c ? a : b`          | right         |
//! | 1     | `\|\|`               | left          |
//! | 2     | `&&`                 | left          |
//! | 3     | `==` `!=`            | left          |
//! | 4     | `<` `<=` `>` `>=`    | left          |
//! | 5     | `\|`                 | left          |
//! | 6     | `^`                  | left          |
//! | 7     | `&`                  | left          |
//! | 8     | `<<` `>>`            | left          |
//! | 9     | `+` `-`              | left          |
//! | 10    | `*` `/` `%`          | left          |
//! | 11    | unary `-` `+` `!`    | prefix        |
//! | 12    | `**`                 | right         |
//!
//! so `-2**2` is `-(2**2)` and `0x00 ^ 0x00 == 0x00` is `(0x00 ^ 0x00) == 0x00`, as in ZoKrates.
//!
//! A statement that starts like a type followed by a name (`field[3] mut x = ...`) is a
//! declaration; otherwise it is an assignment or an expression statement. The parser decides by
//! trying to read a type and backtracking. In the condition of `if`, `while` and in `for` bounds a
//! name followed by `{` is not a struct literal (as in Rust).
//!
//! Nesting (expressions, blocks, types, chains of binary operators) is limited to
//! [`MAX_DEPTH`] so that no input can overflow the stack of this or later recursive passes.

mod expr;

use super::ast::*;
use super::lexer::{lex, Keyword, Punct, Token, TokenKind};
use crate::diagnostics::{Diagnostic, Span};

/// The deepest nesting of expressions, blocks and types that the parser accepts (each operator
/// of a left-associative chain is a level: `x0 + x1 + … + x1000` is 1000 levels deep). The
/// recursive passes run on a stack sized for it (`front::on_front_stack`).
pub const MAX_DEPTH: usize = 1024;

type PResult<T> = Result<T, Diagnostic>;

/// Lexes and parses a whole source file.
pub fn parse(source: &str) -> Result<Module, Diagnostic> {
    parse_at(source, 0)
}

/// [`parse`] with every span (of the tree and of an error) moved by `base`: the file's offset
/// in a [`super::modules::SourceMap`].
pub fn parse_at(source: &str, base: usize) -> Result<Module, Diagnostic> {
    let shift = |span: Span| Span::new(span.start + base, span.end + base);
    let mut tokens = lex(source).map_err(|mut d| {
        d.span = shift(d.span);
        d
    })?;
    for t in &mut tokens {
        t.span = shift(t.span);
    }
    super::on_front_stack(|| {
        Parser {
            tokens,
            pos: 0,
            depth: 0,
            no_struct: false,
        }
        .module()
    })
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    /// Set while parsing a condition: `x {` does not start a struct literal.
    no_struct: bool,
}

fn describe(kind: &TokenKind) -> String {
    kind.to_string()
}

impl Parser {
    // ---- token helpers ----

    fn tok(&self) -> &Token {
        // The token vector always ends with Eof and `pos` never moves past it.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_kind(&self, ahead: usize) -> &TokenKind {
        let i = (self.pos + ahead).min(self.tokens.len() - 1);
        &self.tokens[i].kind
    }

    fn span(&self) -> Span {
        self.tok().span
    }

    fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.tokens[self.pos - 1].span.end
        }
    }

    fn bump(&mut self) -> Token {
        let t = self.tok().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn is_punct(&self, p: Punct) -> bool {
        self.tok().kind == TokenKind::Punct(p)
    }

    fn is_kw(&self, k: Keyword) -> bool {
        self.tok().kind == TokenKind::Keyword(k)
    }

    fn eat_punct(&mut self, p: Punct) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, k: Keyword) -> bool {
        if self.is_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn unexpected(&self, expected: &str) -> Diagnostic {
        Diagnostic::new(
            format!("expected {expected}, found {}", describe(&self.tok().kind)),
            self.span(),
        )
    }

    fn expect_punct(&mut self, p: Punct) -> PResult<Span> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{}`", p.as_str())))
        }
    }

    fn expect_kw(&mut self, k: Keyword) -> PResult<Span> {
        if self.is_kw(k) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{}`", k.as_str())))
        }
    }

    fn ident(&mut self) -> PResult<Ident> {
        match &self.tok().kind {
            TokenKind::Ident(name) => {
                let name = name.clone();
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            _ => Err(self.unexpected("an identifier")),
        }
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            return Err(Diagnostic::new(
                format!("program is nested too deeply (the limit is {MAX_DEPTH} levels)"),
                self.span(),
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    // ---- items ----

    fn module(mut self) -> PResult<Module> {
        let mut items = Vec::new();
        let mut curve = None;
        while self.tok().kind != TokenKind::Eof {
            if self.eat_kw(Keyword::Pragma) {
                // `#pragma curve NAME` (ZoKrates writes it without a semicolon).
                let what = self.ident()?;
                if what.name != "curve" {
                    return Err(Diagnostic::new(
                        format!("unknown pragma `{}`", what.name),
                        what.span,
                    )
                    .with_note("the only pragma is `#pragma curve bn128`"));
                }
                curve = Some(self.ident()?);
                self.eat_punct(Punct::Semi);
                continue;
            }
            items.extend(self.item()?);
        }
        Ok(Module { items, curve })
    }

    fn item(&mut self) -> PResult<Vec<Item>> {
        let start = self.span().start;
        match &self.tok().kind {
            TokenKind::Keyword(Keyword::Import) => {
                self.bump();
                let path = self.string()?;
                let alias = if self.eat_kw(Keyword::As) {
                    self.ident()?
                } else {
                    let last = path.0.rsplit('/').next().unwrap_or("").to_string();
                    let last = last.strip_suffix(".zok").unwrap_or(&last).to_string();
                    Ident {
                        name: last,
                        span: path.1,
                    }
                };
                self.expect_punct(Punct::Semi)?;
                Ok(vec![Item::Import(Import {
                    path: path.0,
                    symbol: None,
                    alias,
                    span: Span::new(start, self.prev_end()),
                })])
            }
            TokenKind::Keyword(Keyword::From) => {
                self.bump();
                let path = self.string()?;
                self.expect_kw(Keyword::Import)?;
                let mut items = Vec::new();
                loop {
                    let symbol = self.ident()?;
                    let alias = if self.eat_kw(Keyword::As) {
                        self.ident()?
                    } else {
                        symbol.clone()
                    };
                    items.push(Item::Import(Import {
                        path: path.0.clone(),
                        symbol: Some(symbol),
                        alias,
                        span: Span::new(start, self.prev_end()),
                    }));
                    if !self.eat_punct(Punct::Comma) {
                        break;
                    }
                }
                self.expect_punct(Punct::Semi)?;
                Ok(items)
            }
            TokenKind::Keyword(Keyword::Struct) => {
                self.bump();
                let name = self.ident()?;
                let generics = self.generic_params()?;
                self.expect_punct(Punct::LBrace)?;
                let mut fields = Vec::new();
                while !self.is_punct(Punct::RBrace) {
                    let ty = self.ty()?;
                    let fname = self.ident()?;
                    self.expect_punct(Punct::Semi)?;
                    fields.push((ty, fname));
                }
                self.bump();
                Ok(vec![Item::Struct(StructDef {
                    name,
                    generics,
                    fields,
                    span: Span::new(start, self.prev_end()),
                })])
            }
            TokenKind::Keyword(Keyword::Const) => {
                self.bump();
                let ty = self.ty()?;
                let name = self.ident()?;
                self.expect_punct(Punct::Assign)?;
                let value = self.expr()?;
                self.expect_punct(Punct::Semi)?;
                Ok(vec![Item::Const(ConstDef {
                    ty,
                    name,
                    value,
                    span: Span::new(start, self.prev_end()),
                })])
            }
            TokenKind::Keyword(Keyword::Type) => {
                self.bump();
                let name = self.ident()?;
                let generics = self.generic_params()?;
                self.expect_punct(Punct::Assign)?;
                let ty = self.ty()?;
                self.expect_punct(Punct::Semi)?;
                Ok(vec![Item::TypeAlias(TypeAlias {
                    name,
                    generics,
                    ty,
                    span: Span::new(start, self.prev_end()),
                })])
            }
            TokenKind::Keyword(Keyword::Def) => Ok(vec![Item::Function(self.function()?)]),
            _ => Err(self.unexpected("`def`, `struct`, `const`, `type` or `import`")),
        }
    }

    fn string(&mut self) -> PResult<(String, Span)> {
        match &self.tok().kind {
            TokenKind::Str(s) => {
                let s = s.clone();
                Ok((s, self.bump().span))
            }
            _ => Err(self.unexpected("a string literal")),
        }
    }

    fn generic_params(&mut self) -> PResult<Vec<Ident>> {
        let mut out = Vec::new();
        if self.eat_punct(Punct::Lt) {
            loop {
                out.push(self.ident()?);
                if !self.eat_punct(Punct::Comma) {
                    break;
                }
            }
            self.expect_punct(Punct::Gt)?;
        }
        Ok(out)
    }

    fn function(&mut self) -> PResult<FunctionDef> {
        let start = self.expect_kw(Keyword::Def)?.start;
        let name = self.ident()?;
        if name.name == "log" {
            return Err(Diagnostic::new(
                "`log` is reserved and cannot name a function",
                name.span,
            ));
        }
        let generics = self.generic_params()?;
        self.expect_punct(Punct::LParen)?;
        let mut params = Vec::new();
        while !self.is_punct(Punct::RParen) {
            // Public unless declared `private`, as in ZoKrates; only `main` says which.
            let visibility = self.span();
            let public = !self.eat_kw(Keyword::Private);
            let explicit = !public || self.eat_kw(Keyword::Public);
            if explicit && name.name != "main" {
                return Err(Diagnostic::new(
                    format!(
                        "`{}` is allowed only on the parameters of `main`",
                        if public { "public" } else { "private" }
                    ),
                    visibility,
                ));
            }
            let ty = self.ty()?;
            let mutable = self.eat_kw(Keyword::Mut);
            let pname = self.ident()?;
            params.push(Param {
                public,
                mutable,
                ty,
                name: pname,
            });
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        self.expect_punct(Punct::RParen)?;
        let ret = if self.eat_punct(Punct::Arrow) {
            Some(self.ty()?)
        } else {
            None
        };
        let sig_span = Span::new(start, self.prev_end());
        let body = self.block()?;
        Ok(FunctionDef {
            name,
            generics,
            params,
            ret,
            body,
            sig_span,
        })
    }

    // ---- types ----

    fn ty(&mut self) -> PResult<TypeExpr> {
        self.nested(|p| {
            let start = p.span().start;
            let kind = match &p.tok().kind {
                TokenKind::Keyword(Keyword::Field) => {
                    p.bump();
                    TypeExprKind::Field
                }
                TokenKind::Keyword(Keyword::Bool) => {
                    p.bump();
                    TypeExprKind::Bool
                }
                TokenKind::Keyword(Keyword::U8) => {
                    p.bump();
                    TypeExprKind::Uint(8)
                }
                TokenKind::Keyword(Keyword::U16) => {
                    p.bump();
                    TypeExprKind::Uint(16)
                }
                TokenKind::Keyword(Keyword::U32) => {
                    p.bump();
                    TypeExprKind::Uint(32)
                }
                TokenKind::Keyword(Keyword::U64) => {
                    p.bump();
                    TypeExprKind::Uint(64)
                }
                TokenKind::Ident(_) => {
                    let name = p.ident()?;
                    let args = if p.is_punct(Punct::Lt) {
                        p.generic_args()?
                    } else {
                        Vec::new()
                    };
                    TypeExprKind::Named(name, args)
                }
                TokenKind::Punct(Punct::LParen) => {
                    p.bump();
                    let mut elems = Vec::new();
                    while !p.is_punct(Punct::RParen) {
                        elems.push(p.ty()?);
                        if !p.eat_punct(Punct::Comma) {
                            break;
                        }
                    }
                    p.expect_punct(Punct::RParen)?;
                    TypeExprKind::Tuple(elems)
                }
                _ => return Err(p.unexpected("a type")),
            };
            let base = TypeExpr {
                kind,
                span: Span::new(start, p.prev_end()),
            };
            // `T[a][b]` is an array of `a` arrays of `b` elements.
            let mut dims = Vec::new();
            while p.is_punct(Punct::LBracket) {
                p.bump();
                let size = p.expr()?;
                p.expect_punct(Punct::RBracket)?;
                dims.push((size, p.prev_end()));
            }
            let mut ty = base;
            for (size, _) in dims.iter().rev() {
                ty = TypeExpr {
                    kind: TypeExprKind::Array(Box::new(ty), Box::new(size.clone())),
                    span: Span::new(start, p.prev_end()),
                };
            }
            Ok(ty)
        })
    }

    /// `<e, e>` in a type or a call: the arguments are parsed above the comparison operators so
    /// that `>` closes the list.
    fn generic_args(&mut self) -> PResult<Vec<Expr>> {
        self.expect_punct(Punct::Lt)?;
        let mut args = Vec::new();
        while !self.is_punct(Punct::Gt) {
            args.push(self.binary(5)?);
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        self.expect_punct(Punct::Gt)?;
        Ok(args)
    }

    // ---- statements ----

    fn block(&mut self) -> PResult<Block> {
        self.nested(|p| {
            let start = p.expect_punct(Punct::LBrace)?.start;
            let mut stmts = Vec::new();
            while !p.is_punct(Punct::RBrace) {
                if p.tok().kind == TokenKind::Eof {
                    return Err(p.unexpected("`}`"));
                }
                stmts.push(p.stmt()?);
            }
            p.bump();
            Ok(Block {
                stmts,
                span: Span::new(start, p.prev_end()),
            })
        })
    }

    fn cond_expr(&mut self) -> PResult<Expr> {
        let saved = self.no_struct;
        self.no_struct = true;
        let r = self.expr();
        self.no_struct = saved;
        r
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let start = self.span().start;
        let kind = match &self.tok().kind {
            TokenKind::Keyword(Keyword::Return) => {
                self.bump();
                let value = if self.is_punct(Punct::Semi) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_punct(Punct::Semi)?;
                StmtKind::Return(value)
            }
            TokenKind::Keyword(Keyword::Assert) => {
                self.bump();
                self.expect_punct(Punct::LParen)?;
                let cond = self.expr()?;
                let message = if self.eat_punct(Punct::Comma) {
                    Some(self.string()?.0)
                } else {
                    None
                };
                self.expect_punct(Punct::RParen)?;
                self.expect_punct(Punct::Semi)?;
                StmtKind::Assert { cond, message }
            }
            TokenKind::Keyword(Keyword::For) => {
                self.bump();
                let ty = self.ty()?;
                let mutable = self.eat_kw(Keyword::Mut);
                let var = self.ident()?;
                self.expect_kw(Keyword::In)?;
                let from = self.cond_expr()?;
                self.expect_punct(Punct::DotDot)?;
                let to = self.cond_expr()?;
                let body = self.block()?;
                StmtKind::For {
                    ty,
                    mutable,
                    var,
                    from,
                    to,
                    body,
                }
            }
            TokenKind::Keyword(Keyword::While) => {
                self.bump();
                let cond = self.cond_expr()?;
                let body = self.block()?;
                StmtKind::While { cond, body }
            }
            TokenKind::Keyword(Keyword::If) => return self.if_stmt(),
            TokenKind::Ident(name)
                if name == "asm" && *self.peek_kind(1) == TokenKind::Punct(Punct::LBrace) =>
            {
                self.bump();
                self.expect_punct(Punct::LBrace)?;
                let mut stmts = Vec::new();
                while !self.eat_punct(Punct::RBrace) {
                    stmts.push(self.asm_stmt()?);
                }
                StmtKind::Asm(stmts)
            }
            TokenKind::Ident(name)
                if name == "log" && *self.peek_kind(1) == TokenKind::Punct(Punct::LParen) =>
            {
                self.bump();
                self.expect_punct(Punct::LParen)?;
                let TokenKind::Str(format) = self.tok().kind.clone() else {
                    return Err(Diagnostic::new(
                        "`log` takes a format string first",
                        self.span(),
                    ));
                };
                self.bump();
                let mut args = Vec::new();
                while self.eat_punct(Punct::Comma) {
                    if self.is_punct(Punct::RParen) {
                        break;
                    }
                    args.push(self.expr()?);
                }
                self.expect_punct(Punct::RParen)?;
                self.expect_punct(Punct::Semi)?;
                StmtKind::Log { format, args }
            }
            _ => return self.simple_stmt(),
        };
        Ok(Stmt {
            kind,
            span: Span::new(start, self.prev_end()),
        })
    }

    /// `place <-- e;`, `place <== e;` or `a === b;` inside `asm { ... }`.
    fn asm_stmt(&mut self) -> PResult<AsmStmt> {
        let start = self.span().start;
        let lhs = self.expr()?;
        let op = self.tok().kind.clone();
        self.bump();
        let rhs = self.expr()?;
        self.expect_punct(Punct::Semi)?;
        let span = Span::new(start, self.prev_end());
        match op {
            TokenKind::Punct(Punct::LArrow | Punct::LArrowEq) => Ok(AsmStmt::Assign {
                place: lhs,
                value: rhs,
                constrained: op == TokenKind::Punct(Punct::LArrowEq),
                span,
            }),
            TokenKind::Punct(Punct::EqEqEq) => Ok(AsmStmt::Constraint { lhs, rhs, span }),
            _ => Err(Diagnostic::new(
                format!("expected `<--`, `<==` or `===` in `asm`, found {op}"),
                Span::new(lhs.span.end, lhs.span.end),
            )),
        }
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        self.nested(|p| {
            let start = p.expect_kw(Keyword::If)?.start;
            let cond = p.cond_expr()?;
            let then_block = p.block()?;
            let else_block = if p.eat_kw(Keyword::Else) {
                if p.is_kw(Keyword::If) {
                    let inner = p.if_stmt()?;
                    Some(Block {
                        span: inner.span,
                        stmts: vec![inner],
                    })
                } else {
                    Some(p.block()?)
                }
            } else {
                None
            };
            Ok(Stmt {
                kind: StmtKind::If {
                    cond,
                    then_block,
                    else_block,
                },
                span: Span::new(start, p.prev_end()),
            })
        })
    }

    /// A declaration, an assignment or an expression statement.
    fn simple_stmt(&mut self) -> PResult<Stmt> {
        let start = self.span().start;
        let saved = self.pos;
        if let Ok(ty) = self.ty() {
            let next_is_decl =
                matches!(self.tok().kind, TokenKind::Ident(_)) || self.is_kw(Keyword::Mut);
            if next_is_decl {
                let mutable = self.eat_kw(Keyword::Mut);
                let name = self.ident()?;
                self.expect_punct(Punct::Assign)?;
                let value = self.expr()?;
                self.expect_punct(Punct::Semi)?;
                return Ok(Stmt {
                    kind: StmtKind::Let {
                        ty,
                        mutable,
                        name,
                        value,
                    },
                    span: Span::new(start, self.prev_end()),
                });
            }
        }
        self.pos = saved;
        let e = self.expr()?;
        let kind = if self.eat_punct(Punct::Assign) {
            let value = self.expr()?;
            StmtKind::Assign { place: e, value }
        } else {
            StmtKind::Expr(e)
        };
        self.expect_punct(Punct::Semi)?;
        Ok(Stmt {
            kind,
            span: Span::new(start, self.prev_end()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders an expression fully parenthesized, to check precedence.
    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Decimal { digits, suffix } => {
                format!("{digits}{}", suffix.as_deref().unwrap_or(""))
            }
            ExprKind::Hex(d) => format!("0x{d}"),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Name(n) => n.name.clone(),
            ExprKind::Unary(op, x) => format!("({op:?} {})", show(x)),
            ExprKind::Binary(op, a, b) => format!("({} {} {})", show(a), op.as_str(), show(b)),
            ExprKind::Conditional(c, a, b) => {
                format!("({} ? {} : {})", show(c), show(a), show(b))
            }
            ExprKind::Index(a, i) => format!("{}[{}]", show(a), show(i)),
            ExprKind::Member(a, f) => format!("{}.{}", show(a), f.name),
            ExprKind::TupleIndex(a, i) => format!("{}.{i}", show(a)),
            other => format!("{other:?}"),
        }
    }

    fn parse_expr(src: &str) -> String {
        let m = parse(&format!("def main() {{ return {src}; }}")).unwrap();
        let Item::Function(f) = &m.items[0] else {
            panic!()
        };
        let StmtKind::Return(Some(e)) = &f.body.stmts[0].kind else {
            panic!()
        };
        show(e)
    }

    #[test]
    fn precedence() {
        assert_eq!(parse_expr("1 + 2 * 2 ** 2"), "(1 + (2 * (2 ** 2)))");
        assert_eq!(parse_expr("-2**2"), "(Neg (2 ** 2))");
        // As in ZoKrates, a chain of exponents needs parentheses.
        assert_eq!(parse_expr("2 ** (3 ** 2)"), "(2 ** (3 ** 2))");
        assert_eq!(parse_expr("(2 ** 3) ** 2"), "((2 ** 3) ** 2)");
        let chain = parse("def main() { return 2 ** 3 ** 2; }").unwrap_err();
        assert!(chain.message.contains("cannot follow an exponent"));
        assert_eq!(parse_expr("0x00 ^ 0x00 == 0x00"), "((0x00 ^ 0x00) == 0x00)");
        assert_eq!(
            parse_expr("a < b && c == d || e ? 1 : 0"),
            "((((a < b) && (c == d)) || e) ? 1 : 0)"
        );
        assert_eq!(
            parse_expr("a | b ^ c & d << 1 + 2"),
            "(a | (b ^ (c & (d << (1 + 2)))))"
        );
        assert_eq!(parse_expr("a - b - c"), "((a - b) - c)");
        assert_eq!(parse_expr("c ? a : d ? e : f"), "(c ? a : (d ? e : f))");
        assert_eq!(parse_expr("x.a[2].0"), "x.a[2].0");
        assert_eq!(parse_expr("if a { 1 } else { 2 }"), "(a ? 1 : 2)");
    }

    #[test]
    fn statements() {
        let src = "def main(private field a, u32 mut n) -> (field, u32) {
            field[2][3] mut x = [[0; 3]; 2];
            Foo f = Foo { a: 1 };
            (field, u32) t = (a, n);
            x[1][2] = 5;
            f(a);
            if a == 1 { n = 2; } else if a == 2 { n = 3; } else { n = 4; }
            for u32 i in 0..n { n = n + 1; }
            while n > 0 { n = n - 1; }
            return t;
        }";
        let m = parse(src).unwrap();
        let Item::Function(f) = &m.items[0] else {
            panic!()
        };
        assert_eq!(f.params.len(), 2);
        assert!(f.params[1].mutable);
        let kinds: Vec<&str> = f
            .body
            .stmts
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Let { .. } => "let",
                StmtKind::Assign { .. } => "assign",
                StmtKind::Expr(_) => "expr",
                StmtKind::If { .. } => "if",
                StmtKind::For { .. } => "for",
                StmtKind::While { .. } => "while",
                StmtKind::Return(_) => "return",
                StmtKind::Assert { .. } => "assert",
                StmtKind::Asm(_) => "asm",
                StmtKind::Log { .. } => "log",
            })
            .collect();
        assert_eq!(
            kinds,
            ["let", "let", "let", "assign", "expr", "if", "for", "while", "return"]
        );
        // `field[2][3]` is 2 arrays of 3.
        let StmtKind::Let { ty, .. } = &f.body.stmts[0].kind else {
            panic!()
        };
        let TypeExprKind::Array(inner, outer) = &ty.kind else {
            panic!()
        };
        assert!(matches!(outer.kind, ExprKind::Decimal { ref digits, .. } if digits == "2"));
        assert!(matches!(inner.kind, TypeExprKind::Array(_, _)));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            "def main() {{ return {}1{}; }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        assert!(parse(&deep)
            .unwrap_err()
            .message
            .contains("nested too deeply"));
        let chain = format!("def main() {{ return 1{}; }}", " + 1".repeat(5000));
        assert!(parse(&chain)
            .unwrap_err()
            .message
            .contains("nested too deeply"));
        // A unary operator cannot follow another (ZoKrates' grammar), so a long run of them
        // is that error, found at the second, before any nesting.
        let neg = format!("def main() {{ return {}1; }}", "-".repeat(5000));
        assert!(parse(&neg)
            .unwrap_err()
            .message
            .contains("a unary operator cannot follow another one"));
    }
}
