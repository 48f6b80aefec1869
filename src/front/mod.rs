//! The front end: ZoKrates source text to a typed tree (and, later, to IR).
//!
//! The stages, each in its own module:
//! - [`modules`]: the root file and every module it imports, found by ZoKrates' import rules
//!   and parsed once each, in one [`modules::SourceMap`];
//! - [`lexer`]: text to tokens with byte spans; comments are skipped.
//! - [`parser`]: tokens to the untyped [`ast`], by recursive descent with precedence climbing.
//! - [`typeck`]: names resolved, types inferred and checked, constants folded
//!   ([`consteval`]), recursion and missing returns rejected; the result is the [`typed`] tree.
//! - [`irgen`]: the typed tree to block IR (mutable variables in memory, structs flattened);
//!   [`casts`] expands the generic `cast` of `utils/casts.zok`;
//!   [`abi`] describes `main`'s source-level signature for JSON inputs and outputs.
//!
//! Every user mistake is a [`Diagnostic`] with the span it is about; no input makes the front end
//! panic or overflow its stack (nesting depth is capped by the parser).
//!
//! Architecture invariant: the front end knows nothing of R1CS.

pub mod abi;
pub mod ast;
pub mod casts;
pub mod consteval;
pub mod irgen;
pub mod lexer;
pub mod modules;
pub mod parser;
pub mod stdlib;
pub mod typeck;
pub mod typed;

use crate::ir;

/// The front end's errors and source positions (`src/diagnostics.rs`, rendered rustc-style).
pub use crate::diagnostics::{line_col, Diagnostic, LineCol, SourceFile, Span};
pub use abi::{Abi, AbiParam};

/// The stack the front end's recursive passes (parser, type checker, lowering) run on: enough
/// for [`parser::MAX_DEPTH`] levels of nesting whatever the caller's stack (a test thread has
/// 2 MiB). Only the pages a program touches are committed.
const STACK_BYTES: usize = 64 << 20;

/// Runs `f` on a thread with a [`STACK_BYTES`] stack and returns its result (a panic in `f`
/// continues in the caller).
pub(crate) fn on_front_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("zkbc-front".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, f)
            .expect("the front end's thread starts")
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

/// Lexes, parses and type-checks a program.
pub fn check_source(source: &str) -> Result<typed::Program, Diagnostic> {
    let module = parser::parse(source)?;
    typeck::check(&module)
}

/// The semantics of `<`, `<=`, `>`, `>=` on two field elements that are not constants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldCmp {
    /// Complete: the canonical values in `[0, p)` are compared (zkbc's default).
    #[default]
    Complete,
    /// ZoKrates': both operands must be below 2^252, else the comparison fails ("dynamic
    /// comparison is incomplete"); cheaper (each operand is a `bound _, 252`, then the bounded
    /// comparison). A comparison with a constant operand stays complete, as in ZoKrates.
    Zokrates,
}

impl FieldCmp {
    /// The name `--field-cmp` takes: `complete` or `zokrates`.
    pub fn name(self) -> &'static str {
        match self {
            FieldCmp::Complete => "complete",
            FieldCmp::Zokrates => "zokrates",
        }
    }
}

impl std::str::FromStr for FieldCmp {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "complete" => Ok(FieldCmp::Complete),
            "zokrates" => Ok(FieldCmp::Zokrates),
            _ => Err(format!(
                "unknown field comparison `{s}` (expected `complete` or `zokrates`)"
            )),
        }
    }
}

/// Whether zkbc follows its own semantics or ZoKrates' where they differ (`--compat`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compat {
    /// zkbc's: every conversion is checked (`field_to_u8(300)` fails).
    #[default]
    Zkbc,
    /// ZoKrates 0.8's: `field_to_uN` (and `cast` of a field) keeps the low N bits of a value
    /// that does not fit, and comparisons of two field elements are ZoKrates' (`--field-cmp
    /// zokrates`).
    Zokrates,
}

impl Compat {
    /// The name `--compat` takes: `zkbc` or `zokrates`.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Zkbc => "zkbc",
            Compat::Zokrates => "zokrates",
        }
    }
}

impl std::str::FromStr for Compat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "zkbc" => Ok(Compat::Zkbc),
            "zokrates" => Ok(Compat::Zokrates),
            _ => Err(format!(
                "unknown compatibility mode `{s}` (expected `zkbc` or `zokrates`)"
            )),
        }
    }
}

/// How the front end compiles a program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrontOptions {
    /// The semantics of comparisons of two non-constant field elements.
    pub field_cmp: FieldCmp,
    /// zkbc's semantics or ZoKrates' (which also sets `field_cmp` to ZoKrates').
    pub compat: Compat,
    /// The standard library root non-relative imports are resolved against
    /// (`--stdlib-path`, `ZOKRATES_STDLIB`).
    pub stdlib: Option<std::path::PathBuf>,
}

impl FrontOptions {
    /// The field comparison in effect: ZoKrates' under `--compat zokrates`.
    pub fn effective_field_cmp(&self) -> FieldCmp {
        match self.compat {
            Compat::Zokrates => FieldCmp::Zokrates,
            Compat::Zkbc => self.field_cmp,
        }
    }
}

/// Compiles a program to IR and describes its `main` for the driver.
///
/// `file_name` is where relative imports are resolved from and the name messages show;
/// diagnostics carry spans into `source` (or name the imported file they are about) and are
/// rendered with [`Diagnostic::render`].
pub fn compile_source(file_name: &str, source: &str) -> Result<(ir::Program, Abi), Diagnostic> {
    compile_file(file_name, source, &FrontOptions::default())
}

/// [`compile_source`] with the given field comparison semantics.
pub fn compile_source_with(
    file_name: &str,
    source: &str,
    field_cmp: FieldCmp,
) -> Result<(ir::Program, Abi), Diagnostic> {
    let options = FrontOptions {
        field_cmp,
        ..FrontOptions::default()
    };
    compile_file(file_name, source, &options)
}

/// [`compile_source`] with the given options.
pub fn compile_file(
    file_name: &str,
    source: &str,
    options: &FrontOptions,
) -> Result<(ir::Program, Abi), Diagnostic> {
    let (program, abi, map) = check_with_abi(file_name, source, options)?;
    let ir = irgen::lower_program(&program, &map, options.effective_field_cmp());
    Ok((ir, abi))
}

/// `main`'s signature, with each parameter's declared visibility, without lowering.
pub fn abi_of_source(source: &str) -> Result<Abi, Diagnostic> {
    abi_of_file("main.zok", source, &FrontOptions::default())
}

/// [`abi_of_source`] of the file `file_name`, whose imports are resolved with `options`.
pub fn abi_of_file(
    file_name: &str,
    source: &str,
    options: &FrontOptions,
) -> Result<Abi, Diagnostic> {
    check_with_abi(file_name, source, options).map(|(_, abi, _)| abi)
}

/// Loads and checks the program; returns the checked program, main's ABI and where the files
/// are.
fn check_with_abi(
    file_name: &str,
    source: &str,
    options: &FrontOptions,
) -> Result<(typed::Program, Abi, modules::SourceMap), Diagnostic> {
    let loaded = modules::load(file_name, source, options.stdlib.as_deref())?;
    let compat = options.compat == Compat::Zokrates;
    let program = typeck::check_modules(&loaded, compat).map_err(|d| loaded.map.localize(d))?;
    let mut abi = Abi::of(&program);
    // Visibility is a property of main's declaration, not of its type.
    let root = &loaded
        .modules
        .last()
        .expect("bug: the root module is loaded")
        .ast;
    let main = root.items.iter().find_map(|item| match item {
        ast::Item::Function(f) if f.name.name == "main" => Some(f),
        _ => None,
    });
    if let Some(main) = main.filter(|m| m.params.len() == abi.params.len()) {
        for (param, declared) in abi.params.iter_mut().zip(&main.params) {
            param.public = declared.public;
        }
    }
    Ok((program, abi, loaded.map))
}
