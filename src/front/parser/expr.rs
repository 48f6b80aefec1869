//! Expressions: precedence climbing over the table in the parent module's doc, unary and
//! power operators, postfix indexing, slicing and member access, and primaries (literals,
//! names, calls, array and struct literals, `if` expressions).

use super::{PResult, Parser, MAX_DEPTH};
use crate::diagnostics::{Diagnostic, Span};
use crate::front::ast::*;
use crate::front::lexer::{Keyword, Punct, TokenKind};

impl Parser {
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            let cond = p.binary(1)?;
            if p.eat_punct(Punct::Question) {
                let saved = p.no_struct;
                p.no_struct = false;
                let then = p.expr();
                p.no_struct = saved;
                let then = then?;
                p.expect_punct(Punct::Colon)?;
                let els = p.expr()?;
                let span = cond.span.to(els.span);
                Ok(Expr {
                    kind: ExprKind::Conditional(Box::new(cond), Box::new(then), Box::new(els)),
                    span,
                })
            } else {
                Ok(cond)
            }
        })
    }

    pub(super) fn binop(&self) -> Option<(BinaryOp, usize)> {
        use BinaryOp as B;
        let TokenKind::Punct(p) = self.tok().kind else {
            return None;
        };
        Some(match p {
            Punct::OrOr => (B::Or, 1),
            Punct::AndAnd => (B::And, 2),
            Punct::EqEq => (B::Eq, 3),
            Punct::NotEq => (B::Ne, 3),
            Punct::Lt => (B::Lt, 4),
            Punct::Le => (B::Le, 4),
            Punct::Gt => (B::Gt, 4),
            Punct::Ge => (B::Ge, 4),
            Punct::Pipe => (B::BitOr, 5),
            Punct::Caret => (B::BitXor, 6),
            Punct::Amp => (B::BitAnd, 7),
            Punct::Shl => (B::Shl, 8),
            Punct::Shr => (B::Shr, 8),
            Punct::Plus => (B::Add, 9),
            Punct::Minus => (B::Sub, 9),
            Punct::Star => (B::Mul, 10),
            Punct::Slash => (B::Div, 10),
            Punct::Percent => (B::Rem, 10),
            _ => return None,
        })
    }

    pub(super) fn binary(&mut self, min_prec: usize) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        let depth_before = self.depth;
        let result = loop {
            let Some((op, prec)) = self.binop() else {
                break Ok(lhs);
            };
            if prec < min_prec {
                break Ok(lhs);
            }
            // Each operator of a left-associative chain adds one level to the tree.
            if self.depth >= MAX_DEPTH {
                break Err(Diagnostic::new(
                    format!("expression is nested too deeply (the limit is {MAX_DEPTH} levels)"),
                    self.span(),
                ));
            }
            self.depth += 1;
            self.bump();
            let rhs = match self.binary(prec + 1) {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        };
        self.depth = depth_before;
        result
    }

    pub(super) fn unary(&mut self) -> PResult<Expr> {
        let op = match self.tok().kind {
            TokenKind::Punct(Punct::Minus) => Some(UnaryOp::Neg),
            TokenKind::Punct(Punct::Plus) => Some(UnaryOp::Pos),
            TokenKind::Punct(Punct::Bang) => Some(UnaryOp::Not),
            _ => None,
        };
        match op {
            Some(op) => {
                let start = self.bump().span;
                // As in ZoKrates, a unary operator applies to a power or a postfix expression:
                // `- - 1` or `!-x` needs parentheses.
                if let TokenKind::Punct(Punct::Minus | Punct::Plus | Punct::Bang) = self.tok().kind
                {
                    return Err(Diagnostic::new(
                        "a unary operator cannot follow another one",
                        self.span(),
                    )
                    .with_note("add parentheses: `-(-x)`"));
                }
                let operand = self.nested(|p| p.power())?;
                let span = start.to(operand.span);
                Ok(Expr {
                    kind: ExprKind::Unary(op, Box::new(operand)),
                    span,
                })
            }
            None => self.power(),
        }
    }

    pub(super) fn power(&mut self) -> PResult<Expr> {
        let base = self.postfix()?;
        if self.eat_punct(Punct::StarStar) {
            let exp = self.nested(|p| p.unary_operand())?;
            if self.is_punct(Punct::StarStar) {
                // ZoKrates does not choose an associativity for `**`.
                return Err(Diagnostic::new(
                    "`**` cannot follow an exponent without parentheses",
                    self.span(),
                )
                .with_note("write `(a ** b) ** c` or `a ** (b ** c)`"));
            }
            let span = base.span.to(exp.span);
            Ok(Expr {
                kind: ExprKind::Binary(BinaryOp::Pow, Box::new(base), Box::new(exp)),
                span,
            })
        } else {
            Ok(base)
        }
    }

    /// An exponent: a postfix expression, optionally after one unary operator (`x ** -1`).
    fn unary_operand(&mut self) -> PResult<Expr> {
        let op = match self.tok().kind {
            TokenKind::Punct(Punct::Minus) => UnaryOp::Neg,
            TokenKind::Punct(Punct::Plus) => UnaryOp::Pos,
            TokenKind::Punct(Punct::Bang) => UnaryOp::Not,
            _ => return self.postfix(),
        };
        let start = self.bump().span;
        let operand = self.postfix()?;
        let span = start.to(operand.span);
        Ok(Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            span,
        })
    }

    pub(super) fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        let depth_before = self.depth;
        let result = loop {
            let is_postfix = self.is_punct(Punct::LBracket) || self.is_punct(Punct::Dot);
            if !is_postfix {
                break Ok(e);
            }
            if self.depth >= MAX_DEPTH {
                break Err(Diagnostic::new(
                    format!("expression is nested too deeply (the limit is {MAX_DEPTH} levels)"),
                    self.span(),
                ));
            }
            self.depth += 1;
            let r = if self.is_punct(Punct::LBracket) {
                self.index_or_slice(e)
            } else {
                self.member(e)
            };
            match r {
                Ok(next) => e = next,
                Err(err) => break Err(err),
            }
        };
        self.depth = depth_before;
        result
    }

    pub(super) fn index_or_slice(&mut self, base: Expr) -> PResult<Expr> {
        self.expect_punct(Punct::LBracket)?;
        let saved = self.no_struct;
        self.no_struct = false;
        let r = (|| {
            let from = if self.is_punct(Punct::DotDot) {
                None
            } else {
                Some(self.expr()?)
            };
            if self.eat_punct(Punct::DotDot) {
                let to = if self.is_punct(Punct::RBracket) {
                    None
                } else {
                    Some(Box::new(self.expr()?))
                };
                self.expect_punct(Punct::RBracket)?;
                let span = Span::new(base.span.start, self.prev_end());
                return Ok(Expr {
                    kind: ExprKind::Slice(Box::new(base), from.map(Box::new), to),
                    span,
                });
            }
            let Some(index) = from else {
                return Err(self.unexpected("an index"));
            };
            self.expect_punct(Punct::RBracket)?;
            let span = Span::new(base.span.start, self.prev_end());
            Ok(Expr {
                kind: ExprKind::Index(Box::new(base), Box::new(index)),
                span,
            })
        })();
        self.no_struct = saved;
        r
    }

    pub(super) fn member(&mut self, base: Expr) -> PResult<Expr> {
        self.expect_punct(Punct::Dot)?;
        match &self.tok().kind {
            TokenKind::Ident(_) => {
                let name = self.ident()?;
                let span = base.span.to(name.span);
                Ok(Expr {
                    kind: ExprKind::Member(Box::new(base), name),
                    span,
                })
            }
            TokenKind::Decimal {
                digits,
                suffix: None,
            } => {
                let index = digits
                    .parse::<usize>()
                    .map_err(|_| Diagnostic::new("tuple index is too large", self.span()))?;
                let t = self.bump();
                Ok(Expr {
                    kind: ExprKind::TupleIndex(Box::new(base.clone()), index),
                    span: base.span.to(t.span),
                })
            }
            _ => Err(self.unexpected("a member name or tuple index")),
        }
    }

    pub(super) fn with_struct_allowed<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        let saved = self.no_struct;
        self.no_struct = false;
        let r = f(self);
        self.no_struct = saved;
        r
    }

    pub(super) fn primary(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.tok().kind.clone() {
            TokenKind::Decimal { digits, suffix } => {
                self.bump();
                ExprKind::Decimal { digits, suffix }
            }
            TokenKind::Hex(d) => {
                self.bump();
                ExprKind::Hex(d)
            }
            TokenKind::Keyword(Keyword::True) => {
                self.bump();
                ExprKind::Bool(true)
            }
            TokenKind::Keyword(Keyword::False) => {
                self.bump();
                ExprKind::Bool(false)
            }
            TokenKind::Keyword(Keyword::If) => return self.if_expr(),
            TokenKind::Ident(_) => {
                let name = self.ident()?;
                if self.is_punct(Punct::ColonColon) || self.is_punct(Punct::LParen) {
                    let generics = if self.eat_punct(Punct::ColonColon) {
                        self.generic_args()?
                    } else {
                        Vec::new()
                    };
                    self.expect_punct(Punct::LParen)?;
                    let args = self.with_struct_allowed(|p| {
                        let mut args = Vec::new();
                        while !p.is_punct(Punct::RParen) {
                            args.push(p.expr()?);
                            if !p.eat_punct(Punct::Comma) {
                                break;
                            }
                        }
                        p.expect_punct(Punct::RParen)?;
                        Ok(args)
                    })?;
                    ExprKind::Call {
                        callee: name,
                        generics,
                        args,
                    }
                } else if self.is_punct(Punct::LBrace) && self.struct_literal_follows() {
                    self.bump();
                    let fields = self.with_struct_allowed(|p| {
                        let mut fields = Vec::new();
                        while !p.is_punct(Punct::RBrace) {
                            let fname = p.ident()?;
                            p.expect_punct(Punct::Colon)?;
                            let value = p.expr()?;
                            fields.push((fname, value));
                            if !p.eat_punct(Punct::Comma) {
                                break;
                            }
                        }
                        p.expect_punct(Punct::RBrace)?;
                        Ok(fields)
                    })?;
                    ExprKind::Struct(name, fields)
                } else {
                    ExprKind::Name(name)
                }
            }
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let (mut elems, trailing_comma) = self.with_struct_allowed(|p| {
                    let mut elems = Vec::new();
                    let mut trailing = false;
                    while !p.is_punct(Punct::RParen) {
                        elems.push(p.expr()?);
                        trailing = p.eat_punct(Punct::Comma);
                        if !trailing {
                            break;
                        }
                    }
                    p.expect_punct(Punct::RParen)?;
                    Ok((elems, trailing))
                })?;
                if elems.len() == 1 && !trailing_comma {
                    let mut inner = elems.pop().expect("one element");
                    inner.span = Span::new(start.start, self.prev_end());
                    return Ok(inner);
                }
                ExprKind::Tuple(elems)
            }
            TokenKind::Punct(Punct::LBracket) => {
                self.bump();
                self.with_struct_allowed(|p| p.array_literal())?
            }
            _ => return Err(self.unexpected("an expression")),
        };
        Ok(Expr {
            kind,
            span: Span::new(start.start, self.prev_end()),
        })
    }

    /// After `Name`, at `{`: is this a struct literal (`{ }` or `{ x: ...`)?
    pub(super) fn struct_literal_follows(&self) -> bool {
        if self.no_struct {
            return false;
        }
        matches!(
            (self.peek_kind(1), self.peek_kind(2)),
            (TokenKind::Punct(Punct::RBrace), _)
                | (TokenKind::Ident(_), TokenKind::Punct(Punct::Colon))
        )
    }

    /// After `[`: `[]`, `[e; n]` or `[a, ...b, c]`.
    pub(super) fn array_literal(&mut self) -> PResult<ExprKind> {
        let mut elems = Vec::new();
        while !self.is_punct(Punct::RBracket) {
            if self.eat_punct(Punct::DotDotDot) {
                elems.push(ArrayElem::Spread(self.expr()?));
            } else {
                let e = self.expr()?;
                if elems.is_empty() && self.eat_punct(Punct::Semi) {
                    let count = self.expr()?;
                    self.expect_punct(Punct::RBracket)?;
                    return Ok(ExprKind::Repeat(Box::new(e), Box::new(count)));
                }
                elems.push(ArrayElem::Single(e));
            }
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        self.expect_punct(Punct::RBracket)?;
        Ok(ExprKind::Array(elems))
    }

    /// `if c { a } else { b }` as an expression; `else if` chains nest.
    pub(super) fn if_expr(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            let start = p.expect_kw(Keyword::If)?.start;
            let cond = p.cond_expr()?;
            let then = p.with_struct_allowed(|p| {
                p.expect_punct(Punct::LBrace)?;
                let e = p.expr()?;
                p.expect_punct(Punct::RBrace)?;
                Ok(e)
            })?;
            p.expect_kw(Keyword::Else)?;
            let els = if p.is_kw(Keyword::If) {
                p.if_expr()?
            } else {
                p.with_struct_allowed(|p| {
                    p.expect_punct(Punct::LBrace)?;
                    let e = p.expr()?;
                    p.expect_punct(Punct::RBrace)?;
                    Ok(e)
                })?
            };
            Ok(Expr {
                kind: ExprKind::Conditional(Box::new(cond), Box::new(then), Box::new(els)),
                span: Span::new(start, p.prev_end()),
            })
        })
    }
}
