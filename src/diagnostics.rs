//! User-facing errors with source spans.
//!
//! Every mistake a user can make in a program — a stray character, a missing brace, an unknown
//! name, a type mismatch, a failing assertion found at run time — is reported as a [`Diagnostic`]:
//! a message, the byte [`Span`] of the source it is about, and optional notes. Internal invariant
//! violations are bugs and panic instead; they never become diagnostics.
//!
//! [`Diagnostic::render`] formats a diagnostic the way rustc does:
//!
//! ```text
//! error: unknown variable `y`
//!   --> main.zok:2:12
//!    |
//!  2 |     return y;
//!    |            ^
//! ```

use std::fmt;
use std::sync::Arc;

/// A source file a diagnostic may be about: its name as shown (`FILE` in `FILE:LINE:COL`) and
/// its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The name shown in messages (the path it was read from).
    pub name: String,
    /// The whole text.
    pub text: String,
}

/// A half-open range `start..end` of byte offsets into one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A 1-based line and column (the column counts characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Converts a byte offset into a 1-based line and character column.
///
/// Offsets past the end of `source`, or inside a multi-byte character, are clamped to the
/// nearest valid position, so this never panics.
pub fn line_col(source: &str, offset: usize) -> LineCol {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = source[line_start..offset].chars().count() + 1;
    LineCol { line, col }
}

/// A user error: what went wrong, where, and optional notes that help fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// One-line description, lower case, no trailing period (`unknown variable `x``).
    pub message: String,
    /// The source the message is about.
    pub span: Span,
    /// Extra hints printed after the source excerpt (`note: ...`).
    pub notes: Vec<String>,
    /// The file `span` is in, when it is not the one the caller compiled (a module the
    /// program imports); `None`: the caller's file.
    pub file: Option<Arc<SourceFile>>,
}

impl Diagnostic {
    /// A diagnostic with a message and a span, without notes.
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            notes: Vec::new(),
            file: None,
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// The 1-based line and column where the span starts in `source`.
    pub fn line_col(&self, source: &str) -> LineCol {
        line_col(source, self.span.start)
    }

    /// Renders the diagnostic with a `--> FILE:LINE:COL` header and the source line with carets
    /// under the span (only the span's first line is shown). `file_name` and `source` are the
    /// caller's file, used unless the diagnostic names its own ([`Diagnostic::file`]).
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let (file_name, source) = match &self.file {
            Some(f) => (f.name.as_str(), f.text.as_str()),
            None => (file_name, source),
        };
        let start = self.line_col(source);
        let line_text = source.lines().nth(start.line - 1).unwrap_or("");
        let line_len = line_text.chars().count();
        // The caret covers the span's part on its first line, at least one character.
        let end = line_col(source, self.span.end.max(self.span.start));
        let width = if end.line == start.line {
            end.col.saturating_sub(start.col)
        } else {
            (line_len + 1).saturating_sub(start.col)
        }
        .max(1);
        let number = start.line.to_string();
        let pad = " ".repeat(number.len());
        // Tabs are kept in the gutter so the caret lines up with the source line.
        let indent: String = line_text
            .chars()
            .take(start.col - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let mut out = format!(
            "error: {}\n{pad}--> {file_name}:{start}\n{pad} |\n{number} | {line_text}\n{pad} | {indent}{}\n",
            self.message,
            "^".repeat(width)
        );
        for note in &self.notes {
            out.push_str(&format!("{pad} = note: {note}\n"));
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let src = "ab\nçd x\n";
        assert_eq!(line_col(src, 0), LineCol { line: 1, col: 1 });
        assert_eq!(line_col(src, 3), LineCol { line: 2, col: 1 });
        // `x` is byte 7 but character 4 of line 2.
        assert_eq!(line_col(src, 7), LineCol { line: 2, col: 4 });
        // Clamped, never panics.
        assert_eq!(line_col(src, 4), LineCol { line: 2, col: 1 });
        assert_eq!(line_col(src, 999), LineCol { line: 3, col: 1 });
    }

    #[test]
    fn render_points_at_span() {
        let src = "def main() {\n    return y;\n}\n";
        let start = src.find('y').unwrap();
        let d = Diagnostic::new("unknown variable `y`", Span::new(start, start + 1))
            .with_note("declare it first");
        assert_eq!(
            d.render("m.zok", src),
            "error: unknown variable `y`\n --> m.zok:2:12\n  |\n2 |     return y;\n  |            ^\n  = note: declare it first\n"
        );
    }
}
