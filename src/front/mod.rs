//! The front end: ZoKrates source text to a typed tree (and, later, to IR).
//!
//! The stages, each in its own module:
//! - [`lexer`]: text to tokens with byte spans; comments are skipped.
//! - [`parser`]: tokens to the untyped [`ast`], by recursive descent with precedence climbing.
//! - [`typeck`]: names resolved, types inferred and checked, constants folded
//!   ([`consteval`]), recursion and missing returns rejected; the result is the [`typed`] tree.
//!
//! Every user mistake is a [`Diagnostic`] with the span it is about; no input makes the front end
//! panic or overflow its stack (nesting depth is capped by the parser).
//!
//! Architecture invariant: the front end knows nothing of R1CS.

pub mod ast;
pub mod consteval;
pub mod lexer;
pub mod parser;
pub mod typeck;
pub mod typed;

use crate::diagnostics::Diagnostic;

/// Lexes, parses and type-checks a program.
pub fn check_source(source: &str) -> Result<typed::Program, Diagnostic> {
    let module = parser::parse(source)?;
    typeck::check(&module)
}
