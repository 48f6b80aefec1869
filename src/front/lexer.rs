//! The lexer: source text to a vector of [`Token`]s with byte spans.
//!
//! Whitespace, `//` line comments and `/* */` block comments are skipped. Integer literals keep
//! their digits as written (the type checker decides their type and range); a decimal literal may
//! carry a type suffix (`5u32`, `7f`), a hex literal (`0xff`) is typed by its digit count later.
//! The lexer stops at the first error: an unknown character, an unterminated comment or string.

use crate::diagnostics::{Diagnostic, Span};
use std::fmt;

/// What kind of token, with its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier or keyword candidate (`main`, `x1`, `_t`); keywords are [`TokenKind::Keyword`].
    Ident(String),
    /// A reserved word.
    Keyword(Keyword),
    /// A decimal integer literal: digits and an optional suffix (`u8`, `u16`, `u32`, `u64`, `f`).
    Decimal {
        /// The digits as written.
        digits: String,
        /// The type suffix, if any.
        suffix: Option<String>,
    },
    /// A hexadecimal literal `0x..`: the hex digits without the prefix.
    Hex(String),
    /// A string literal, without the quotes (escapes `\"` and `\\` resolved).
    Str(String),
    /// Punctuation or an operator.
    Punct(Punct),
    /// End of input.
    Eof,
}

/// Reserved words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Keyword {
    Def,
    Return,
    Struct,
    Const,
    Import,
    From,
    As,
    For,
    In,
    If,
    Else,
    While,
    Mut,
    Private,
    Public,
    True,
    False,
    Assert,
    Field,
    Bool,
    U8,
    U16,
    U32,
    U64,
    Type,
    /// `#pragma` (only `#pragma curve NAME` is meaningful).
    Pragma,
}

impl Keyword {
    fn from_str(s: &str) -> Option<Keyword> {
        use Keyword::*;
        Some(match s {
            "def" => Def,
            "return" => Return,
            "struct" => Struct,
            "const" => Const,
            "import" => Import,
            "from" => From,
            "as" => As,
            "for" => For,
            "in" => In,
            "if" => If,
            "else" => Else,
            "while" => While,
            "mut" => Mut,
            "private" => Private,
            "public" => Public,
            "true" => True,
            "false" => False,
            "assert" => Assert,
            "field" => Field,
            "bool" => Bool,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "type" => Type,
            _ => return None,
        })
    }

    /// The keyword as written in source.
    pub fn as_str(self) -> &'static str {
        use Keyword::*;
        match self {
            Def => "def",
            Return => "return",
            Struct => "struct",
            Const => "const",
            Import => "import",
            From => "from",
            As => "as",
            For => "for",
            In => "in",
            If => "if",
            Else => "else",
            While => "while",
            Mut => "mut",
            Private => "private",
            Public => "public",
            True => "true",
            False => "false",
            Assert => "assert",
            Field => "field",
            Bool => "bool",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            Type => "type",
            Pragma => "#pragma",
        }
    }
}

/// Punctuation and operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Punct {
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Semi,
    Colon,
    ColonColon,
    Dot,
    DotDot,
    DotDotDot,
    Arrow,
    Question,
    Assign,
    Plus,
    Minus,
    Star,
    StarStar,
    Slash,
    Percent,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    AndAnd,
    OrOr,
    Bang,
    Amp,
    Pipe,
    Caret,
    Shl,
    Shr,
    /// `<--` (in `asm`)
    LArrow,
    /// `<==` (in `asm`)
    LArrowEq,
    /// `===` (in `asm`)
    EqEqEq,
}

impl Punct {
    /// The operator as written in source.
    pub fn as_str(self) -> &'static str {
        use Punct::*;
        match self {
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            LBracket => "[",
            RBracket => "]",
            Comma => ",",
            Semi => ";",
            Colon => ":",
            ColonColon => "::",
            Dot => ".",
            DotDot => "..",
            DotDotDot => "...",
            Arrow => "->",
            Question => "?",
            Assign => "=",
            Plus => "+",
            Minus => "-",
            Star => "*",
            StarStar => "**",
            Slash => "/",
            Percent => "%",
            EqEq => "==",
            NotEq => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            AndAnd => "&&",
            OrOr => "||",
            Bang => "!",
            Amp => "&",
            Pipe => "|",
            Caret => "^",
            Shl => "<<",
            Shr => ">>",
            LArrow => "<--",
            LArrowEq => "<==",
            EqEqEq => "===",
        }
    }
}

impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenKind::Ident(s) => write!(f, "identifier `{s}`"),
            TokenKind::Keyword(k) => write!(f, "`{}`", k.as_str()),
            TokenKind::Decimal { digits, suffix } => {
                write!(f, "literal `{digits}{}`", suffix.as_deref().unwrap_or(""))
            }
            TokenKind::Hex(d) => write!(f, "literal `0x{d}`"),
            TokenKind::Str(_) => write!(f, "string literal"),
            TokenKind::Punct(p) => write!(f, "`{}`", p.as_str()),
            TokenKind::Eof => write!(f, "end of file"),
        }
    }
}

/// One token and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
}

/// Splits `source` into tokens, ending with one [`TokenKind::Eof`].
pub fn lex(source: &str) -> Result<Vec<Token>, Diagnostic> {
    Lexer {
        src: source,
        bytes: source.as_bytes(),
        pos: 0,
        tokens: Vec::new(),
    }
    .run()
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn run(mut self) -> Result<Vec<Token>, Diagnostic> {
        loop {
            self.skip_trivia()?;
            let start = self.pos;
            if start >= self.bytes.len() {
                self.tokens.push(Token {
                    kind: TokenKind::Eof,
                    span: Span::new(start, start),
                });
                return Ok(self.tokens);
            }
            let c = self.peek(0);
            let kind = if c.is_ascii_alphabetic() || c == b'_' {
                self.ident()
            } else if c.is_ascii_digit() {
                self.number()?
            } else if c == b'"' {
                self.string()?
            } else if self.src[start..].starts_with("#pragma")
                && !matches!(self.peek(7), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_')
            {
                self.pos += "#pragma".len();
                TokenKind::Keyword(Keyword::Pragma)
            } else {
                self.punct()?
            };
            self.tokens.push(Token {
                kind,
                span: Span::new(start, self.pos),
            });
        }
    }

    fn skip_trivia(&mut self) -> Result<(), Diagnostic> {
        loop {
            let c = self.peek(0);
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else if c == b'\\' && matches!(self.peek(1), b'\n' | b'\r') {
                // A backslash before a line break continues the line.
                self.pos += 1;
            } else if c == b'/' && self.peek(1) == b'/' {
                while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if c == b'/' && self.peek(1) == b'*' {
                let start = self.pos;
                match self.src[self.pos + 2..].find("*/") {
                    Some(i) => self.pos += 2 + i + 2,
                    None => {
                        return Err(Diagnostic::new(
                            "unterminated block comment",
                            Span::new(start, start + 2),
                        )
                        .with_note("a `/*` comment must end with `*/`"))
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    fn ident(&mut self) -> TokenKind {
        let start = self.pos;
        while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
            self.pos += 1;
        }
        let text = &self.src[start..self.pos];
        match Keyword::from_str(text) {
            Some(k) => TokenKind::Keyword(k),
            None => TokenKind::Ident(text.to_string()),
        }
    }

    fn number(&mut self) -> Result<TokenKind, Diagnostic> {
        let start = self.pos;
        if self.peek(0) == b'0' && self.peek(1) == b'x' {
            self.pos += 2;
            let digits_start = self.pos;
            while self.peek(0).is_ascii_hexdigit() {
                self.pos += 1;
            }
            if self.pos == digits_start {
                return Err(Diagnostic::new(
                    "hexadecimal literal has no digits",
                    Span::new(start, self.pos),
                ));
            }
            let digits = self.src[digits_start..self.pos].to_string();
            self.reject_glued_ident(start)?;
            return Ok(TokenKind::Hex(digits));
        }
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        let digits = self.src[start..self.pos].to_string();
        let suffix_start = self.pos;
        while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
            self.pos += 1;
        }
        let suffix = &self.src[suffix_start..self.pos];
        // One `_` may separate the digits from the suffix (`1_f`, `7_u32`), as in ZoKrates.
        let bare = suffix.strip_prefix('_').unwrap_or(suffix);
        let suffix = match bare {
            "" if suffix.is_empty() => None,
            "u8" | "u16" | "u32" | "u64" | "f" => Some(bare.to_string()),
            _ => {
                return Err(Diagnostic::new(
                    format!("invalid suffix `{suffix}` on integer literal"),
                    Span::new(suffix_start, self.pos),
                )
                .with_note("valid suffixes are `u8`, `u16`, `u32`, `u64` and `f`"))
            }
        };
        Ok(TokenKind::Decimal { digits, suffix })
    }

    fn reject_glued_ident(&mut self, start: usize) -> Result<(), Diagnostic> {
        if self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
            let bad = self.pos;
            while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
                self.pos += 1;
            }
            return Err(Diagnostic::new(
                format!(
                    "invalid hexadecimal literal `{}`",
                    &self.src[start..self.pos]
                ),
                Span::new(bad, self.pos),
            ));
        }
        Ok(())
    }

    fn string(&mut self) -> Result<TokenKind, Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        let mut value = String::new();
        loop {
            let rest = &self.src[self.pos..];
            let Some(c) = rest.chars().next() else {
                return Err(Diagnostic::new(
                    "unterminated string literal",
                    Span::new(start, start + 1),
                ));
            };
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(TokenKind::Str(value)),
                '\\' => {
                    let Some(e) = self.src[self.pos..].chars().next() else {
                        continue;
                    };
                    self.pos += e.len_utf8();
                    value.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
                c => value.push(c),
            }
        }
    }

    fn punct(&mut self) -> Result<TokenKind, Diagnostic> {
        use Punct::*;
        let (p, len) = match (self.peek(0), self.peek(1), self.peek(2)) {
            (b'.', b'.', b'.') => (DotDotDot, 3),
            // `asm` blocks' witness assignment, constrained assignment and constraint.
            (b'<', b'-', b'-') => (LArrow, 3),
            (b'<', b'=', b'=') => (LArrowEq, 3),
            (b'=', b'=', b'=') => (EqEqEq, 3),
            (b'.', b'.', _) => (DotDot, 2),
            (b':', b':', _) => (ColonColon, 2),
            (b'-', b'>', _) => (Arrow, 2),
            (b'*', b'*', _) => (StarStar, 2),
            (b'=', b'=', _) => (EqEq, 2),
            (b'!', b'=', _) => (NotEq, 2),
            (b'<', b'=', _) => (Le, 2),
            (b'>', b'=', _) => (Ge, 2),
            (b'<', b'<', _) => (Shl, 2),
            (b'>', b'>', _) => (Shr, 2),
            (b'&', b'&', _) => (AndAnd, 2),
            (b'|', b'|', _) => (OrOr, 2),
            (b'(', _, _) => (LParen, 1),
            (b')', _, _) => (RParen, 1),
            (b'{', _, _) => (LBrace, 1),
            (b'}', _, _) => (RBrace, 1),
            (b'[', _, _) => (LBracket, 1),
            (b']', _, _) => (RBracket, 1),
            (b',', _, _) => (Comma, 1),
            (b';', _, _) => (Semi, 1),
            (b':', _, _) => (Colon, 1),
            (b'.', _, _) => (Dot, 1),
            (b'?', _, _) => (Question, 1),
            (b'=', _, _) => (Assign, 1),
            (b'+', _, _) => (Plus, 1),
            (b'-', _, _) => (Minus, 1),
            (b'*', _, _) => (Star, 1),
            (b'/', _, _) => (Slash, 1),
            (b'%', _, _) => (Percent, 1),
            (b'<', _, _) => (Lt, 1),
            (b'>', _, _) => (Gt, 1),
            (b'!', _, _) => (Bang, 1),
            (b'&', _, _) => (Amp, 1),
            (b'|', _, _) => (Pipe, 1),
            (b'^', _, _) => (Caret, 1),
            _ => {
                let c = self.src[self.pos..].chars().next().unwrap_or('?');
                return Err(Diagnostic::new(
                    format!("unexpected character `{}`", c.escape_debug()),
                    Span::new(self.pos, self.pos + c.len_utf8()),
                ));
            }
        };
        self.pos += len;
        Ok(TokenKind::Punct(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        lex(src).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn literals_and_comments() {
        let k = kinds("5u32 /* c */ 0xff // x\n 7f 12");
        assert_eq!(
            k,
            vec![
                TokenKind::Decimal {
                    digits: "5".into(),
                    suffix: Some("u32".into())
                },
                TokenKind::Hex("ff".into()),
                TokenKind::Decimal {
                    digits: "7".into(),
                    suffix: Some("f".into())
                },
                TokenKind::Decimal {
                    digits: "12".into(),
                    suffix: None
                },
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn underscore_before_suffix() {
        for (src, suffix) in [
            ("1_f", "f"),
            ("7_u8", "u8"),
            ("3_u16", "u16"),
            ("0_u64", "u64"),
        ] {
            assert!(
                matches!(&kinds(src)[0], TokenKind::Decimal { suffix: Some(s), .. } if s == suffix),
                "{src}"
            );
        }
        for bad in ["1_", "1__f", "1_x", "1u7"] {
            assert!(
                lex(bad).unwrap_err().message.starts_with("invalid suffix"),
                "{bad}"
            );
        }
    }

    #[test]
    fn multi_char_operators() {
        let k = kinds("a..b ... ** <<= -> ::");
        assert_eq!(k[1], TokenKind::Punct(Punct::DotDot));
        assert_eq!(k[3], TokenKind::Punct(Punct::DotDotDot));
        assert_eq!(k[4], TokenKind::Punct(Punct::StarStar));
        assert_eq!(k[5], TokenKind::Punct(Punct::Shl));
        assert_eq!(k[6], TokenKind::Punct(Punct::Assign));
        assert_eq!(k[7], TokenKind::Punct(Punct::Arrow));
        assert_eq!(k[8], TokenKind::Punct(Punct::ColonColon));
    }

    #[test]
    fn errors() {
        assert_eq!(
            lex("a /* x").unwrap_err().message,
            "unterminated block comment"
        );
        assert_eq!(lex("a $").unwrap_err().span, Span::new(2, 3));
        assert_eq!(
            lex("\"abc").unwrap_err().message,
            "unterminated string literal"
        );
    }
}
