//! Tokens of the IR text format: one line at a time ([`tokenize`]), and a [`Cursor`] over a
//! line's tokens with the small readers the parser is built from (identifiers, types,
//! `@LINE:COL` locations).

use super::{ParseError, Result};
use crate::ir::entities::SrcLoc;
use crate::ir::types::{Type, UINT_WIDTHS};
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Int(String),
    Str(String),
    Punct(char),
    Arrow,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) | Tok::Int(s) => write!(f, "`{s}`"),
            Tok::Str(_) => write!(f, "a string"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Arrow => write!(f, "`->`"),
        }
    }
}

#[derive(Debug)]
pub(super) struct Line {
    pub(super) number: u32,
    pub(super) toks: Vec<(Tok, u32)>,
    /// Column just past the last character, for "unexpected end of line".
    pub(super) end_col: u32,
}

impl Line {
    pub(super) fn err_at(&self, col: u32, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.number,
            col,
            message: message.into(),
        }
    }
}

pub(super) fn tokenize(text: &str) -> Result<Vec<Line>> {
    let mut lines = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let number = u32::try_from(n + 1).unwrap_or(u32::MAX);
        let chars: Vec<char> = raw.chars().collect();
        let mut toks = Vec::new();
        let mut depth = 0i32;
        let mut i = 0;
        let err = |col: usize, message: String| ParseError {
            line: number,
            col: col as u32 + 1,
            message,
        };
        while i < chars.len() {
            let c = chars[i];
            let col = i as u32 + 1;
            if c.is_whitespace() {
                i += 1;
            } else if c == ';' && depth == 0 {
                break;
            } else if c.is_ascii_alphabetic() || c == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                toks.push((Tok::Ident(canonical_label(word)), col));
            } else if c.is_ascii_digit()
                || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
            {
                let start = i;
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                toks.push((Tok::Int(chars[start..i].iter().collect()), col));
            } else if c == '-' && chars.get(i + 1) == Some(&'>') {
                toks.push((Tok::Arrow, col));
                i += 2;
            } else if c == '"' {
                let (s, next) = lex_string(&chars, i).map_err(|(at, m)| err(at, m))?;
                toks.push((Tok::Str(s), col));
                i = next;
            } else if "()[]{},:;=&@".contains(c) {
                if c == '[' {
                    depth += 1;
                } else if c == ']' {
                    depth -= 1;
                }
                toks.push((Tok::Punct(c), col));
                i += 1;
            } else {
                return Err(err(i, format!("unexpected character `{c}`")));
            }
        }
        if !toks.is_empty() {
            lines.push(Line {
                number,
                toks,
                end_col: chars.len() as u32 + 1,
            });
        }
    }
    Ok(lines)
}

/// `v007` names the same value as `v7` (the number is the id): labels are keyed without leading
/// zeros so that the two cannot be defined separately.
pub(super) fn canonical_label(word: String) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(p @ ('b' | 'v' | 'f'))
            if word.len() > 2 && word[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            let digits = word[1..].trim_start_matches('0');
            format!("{p}{}", if digits.is_empty() { "0" } else { digits })
        }
        _ => word,
    }
}

pub(super) fn lex_string(
    chars: &[char],
    start: usize,
) -> std::result::Result<(String, usize), (usize, String)> {
    let mut out = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '"' => return Ok((out, i + 1)),
            '\\' => {
                let esc = chars.get(i + 1).copied();
                match esc {
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('u') if chars.get(i + 2) == Some(&'{') => {
                        let close = chars[i + 3..]
                            .iter()
                            .position(|c| *c == '}')
                            .ok_or((i, "unterminated `\\u{` escape".to_string()))?;
                        let hex: String = chars[i + 3..i + 3 + close].iter().collect();
                        let ch = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or((i, format!("bad escape `\\u{{{hex}}}`")))?;
                        out.push(ch);
                        i += 3 + close + 1;
                        continue;
                    }
                    _ => return Err((i, "unknown escape in string".to_string())),
                }
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err((start, "unterminated string".to_string()))
}

// ---------------------------------------------------------------------------------------------
// Cursor over one line's tokens

pub(super) struct Cursor<'a> {
    pub(super) line: &'a Line,
    pub(super) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(line: &'a Line) -> Self {
        Cursor { line, pos: 0 }
    }

    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.line.toks.len() || self.peek() == Some(&Tok::Punct('@'))
    }

    pub(super) fn peek(&self) -> Option<&Tok> {
        self.line.toks.get(self.pos).map(|t| &t.0)
    }

    pub(super) fn col(&self) -> u32 {
        self.line
            .toks
            .get(self.pos)
            .map_or(self.line.end_col, |t| t.1)
    }

    pub(super) fn err_prev(&self, message: String) -> ParseError {
        let col = self
            .line
            .toks
            .get(self.pos.saturating_sub(1))
            .map_or(1, |t| t.1);
        self.line.err_at(col, message)
    }

    pub(super) fn next(&mut self, what: &str) -> Result<(Tok, u32)> {
        match self.line.toks.get(self.pos) {
            Some((tok, col)) => {
                self.pos += 1;
                Ok((tok.clone(), *col))
            }
            None => Err(self.line.err_at(
                self.line.end_col,
                format!("expected {what}, found end of line"),
            )),
        }
    }

    pub(super) fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, tok: &Tok) -> Result<()> {
        let col = self.col();
        let (found, _) = self.next(&tok.to_string())?;
        if &found == tok {
            Ok(())
        } else {
            Err(self
                .line
                .err_at(col, format!("expected {tok}, found {found}")))
        }
    }

    pub(super) fn keyword(&mut self, kw: &str) -> Result<()> {
        self.expect(&Tok::Ident(kw.to_string()))
    }

    pub(super) fn ident_at(&mut self, what: &str) -> Result<(String, u32)> {
        let (tok, col) = self.next(what)?;
        match tok {
            Tok::Ident(s) => Ok((s, col)),
            other => Err(self
                .line
                .err_at(col, format!("expected {what}, found {other}"))),
        }
    }

    pub(super) fn ident(&mut self, what: &str) -> Result<String> {
        self.ident_at(what).map(|(s, _)| s)
    }

    pub(super) fn ty(&mut self) -> Result<Type> {
        let (tok, col) = self.next("a type")?;
        match tok {
            Tok::Ident(s) if s == "field" => Ok(Type::Field),
            Tok::Ident(s) if s.starts_with('u') => match s[1..].parse::<u32>() {
                Ok(w) if UINT_WIDTHS.contains(&w) => Ok(Type::UInt(w)),
                _ => Err(self.line.err_at(col, format!("unknown type `{s}`"))),
            },
            Tok::Punct('&') => Ok(Type::reference(self.ty()?)),
            Tok::Punct('[') => {
                let elem = self.ty()?;
                self.expect(&Tok::Punct(';'))?;
                let (len, lcol) = self.next("an array length")?;
                let n = match len {
                    Tok::Int(text) => text.parse::<u32>().map_err(|_| {
                        self.line.err_at(lcol, format!("bad array length `{text}`"))
                    })?,
                    other => {
                        return Err(self
                            .line
                            .err_at(lcol, format!("expected an array length, found {other}")))
                    }
                };
                self.expect(&Tok::Punct(']'))?;
                Ok(Type::array(elem, n))
            }
            other => Err(self
                .line
                .err_at(col, format!("expected a type, found {other}"))),
        }
    }

    /// An optional `@LINE:COL` source location.
    pub(super) fn loc(&mut self) -> Result<Option<SrcLoc>> {
        if !self.eat(&Tok::Punct('@')) {
            return Ok(None);
        }
        let number = |c: &mut Self| -> Result<u32> {
            let (tok, col) = c.next("a number")?;
            match tok {
                Tok::Int(t) => t
                    .parse()
                    .map_err(|_| c.line.err_at(col, format!("bad location number `{t}`"))),
                other => Err(c
                    .line
                    .err_at(col, format!("expected a number, found {other}"))),
            }
        };
        let line = number(self)?;
        self.expect(&Tok::Punct(':'))?;
        let col = number(self)?;
        Ok(Some(SrcLoc {
            line,
            col,
            file: 0,
            frame: Default::default(),
        }))
    }

    pub(super) fn end(&self) -> Result<()> {
        match self.line.toks.get(self.pos) {
            None => Ok(()),
            Some((tok, col)) => Err(self.line.err_at(*col, format!("unexpected {tok}"))),
        }
    }
}
