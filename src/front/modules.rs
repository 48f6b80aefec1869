//! The module system: a program's files, found by ZoKrates 0.8's import rules, read and parsed
//! once each.
//!
//! [`load`] starts at the root file and walks its imports depth first:
//! - `"EMBED"` is the built-in module [`EMBED_SOURCE`] (zkbc source for ZoKrates' embedded
//!   functions, see `embed.zok`);
//! - with the built-in library, the cast modules that are conversions (`utils/casts/u32_to_bits`,
//!   `field_to_u8`, ...) are built-ins the checker recognizes by name, and `from "utils/casts"
//!   import cast` is always the generic cast of `casts.rs`;
//! - a path whose first component is `.` or `..` is relative to the importing file's directory;
//!   any other path is relative to the standard library root: the directory given, else zkbc's
//!   built-in library ([`super::stdlib`], whose files are named `<zkbc>/stdlib/PATH`); then the
//!   extension is set to `.zok` (`with_extension`, so `"./a"` and `"./a.zok"` are one file). A
//!   path inside `<zkbc>/stdlib` is looked up in the built-in table, never on disk.
//!
//! Files are cached by canonical path (a module imported from several places is read once); an
//! import of a module still being loaded is a cycle. [`Loaded::modules`] lists the modules
//! dependencies first, the root last, so the checker can check them in order.
//!
//! Every file gets a range of one global byte-offset space ([`SourceMap`]): the root file at 0,
//! each further file after the previous one. Spans are global, so a span says which file it is
//! in; [`SourceMap::localize`] turns a diagnostic about another file than the root into one that
//! carries that file.

use crate::fxhash::HashMap;

use super::ast;
use super::parser;
use super::stdlib;
use super::typed::Builtin;
use crate::diagnostics::{Diagnostic, LineCol, SourceFile, Span};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// The source of the built-in module `"EMBED"`.
pub const EMBED_SOURCE: &str = include_str!("embed.zok");

/// The name `"EMBED"`'s diagnostics and locations show.
pub const EMBED_NAME: &str = "<zkbc>/EMBED.zok";

/// The text of a module by the name [`SourceMap::names`] gives it: a built-in module's from the
/// binary, any other read from its path (`None` when it cannot be read).
pub fn module_text(name: &str) -> Option<String> {
    if name == EMBED_NAME {
        return Some(EMBED_SOURCE.to_string());
    }
    match name
        .strip_prefix(stdlib::ROOT)
        .and_then(|r| r.strip_prefix('/'))
    {
        Some(path) => stdlib::source(Path::new(path)).map(str::to_string),
        None => std::fs::read_to_string(name).ok(),
    }
}

/// The most modules one program may load, `EMBED` aside: with it, every file index fits an
/// instruction's location ([`crate::ir::PackedLoc::MAX_FILE`], 4,095), which would otherwise
/// panic.
const MAX_MODULES: usize = crate::ir::PackedLoc::MAX_FILE as usize;

/// The files of a program, each at its offset in one global byte-offset space.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: Vec<(usize, Arc<SourceFile>)>,
    /// The offset of each line's first byte in each file (0, then one past every `\n`): a
    /// location is a binary search, not a scan of the file (the front end asks once per
    /// instruction).
    line_starts: Vec<Vec<usize>>,
}

impl SourceMap {
    /// A map whose only file is the root, at offset 0.
    pub fn new(name: &str, text: &str) -> SourceMap {
        let mut map = SourceMap::default();
        map.add(name.to_string(), text.to_string());
        map
    }

    /// Adds a file after the others; returns its offset.
    fn add(&mut self, name: String, text: String) -> usize {
        // One byte of gap, so that an end-of-file span belongs to its own file.
        let base = self
            .files
            .last()
            .map_or(0, |(base, f)| base + f.text.len() + 1);
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        self.line_starts.push(starts);
        self.files.push((base, Arc::new(SourceFile { name, text })));
        base
    }

    /// The file the global `offset` is in, with its offset (`None` for an empty map).
    fn file_at(&self, offset: usize) -> Option<(usize, &Arc<SourceFile>)> {
        let i = self
            .files
            .partition_point(|(base, _)| *base <= offset)
            .saturating_sub(1);
        self.files.get(i).map(|(base, file)| (*base, file))
    }

    /// The index of the file the global `offset` is in (0, the root, for an empty map).
    pub fn file_index(&self, offset: usize) -> u32 {
        self.files
            .partition_point(|(base, _)| *base <= offset)
            .saturating_sub(1) as u32
    }

    /// The names of the files, in index order (the root first).
    pub fn names(&self) -> Vec<String> {
        self.files.iter().map(|(_, f)| f.name.clone()).collect()
    }

    /// The line and column of a global offset, in its own file.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let i = self
            .files
            .partition_point(|(base, _)| *base <= offset)
            .saturating_sub(1);
        let (Some((base, file)), Some(starts)) = (self.files.get(i), self.line_starts.get(i))
        else {
            return LineCol { line: 1, col: 1 };
        };
        // As `diagnostics::line_col`: clamped to the text and to a character boundary.
        let text = file.text.as_str();
        let mut offset = (offset - base).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = starts.partition_point(|s| *s <= offset);
        let start = starts[line - 1];
        let col = text[start..offset].chars().count() + 1;
        LineCol { line, col }
    }

    /// `FILE:LINE:COL` of a global offset.
    pub fn describe(&self, offset: usize) -> String {
        let name = self.file_at(offset).map_or("", |(_, f)| f.name.as_str());
        format!("{name}:{}", self.line_col(offset))
    }

    /// The diagnostic with its span made local to its file, and the file attached when it is
    /// not the root.
    pub fn localize(&self, mut d: Diagnostic) -> Diagnostic {
        if d.file.is_some() {
            return d;
        }
        let Some((base, file)) = self.file_at(d.span.start) else {
            return d;
        };
        if base > 0 {
            d.span = Span::new(d.span.start - base, d.span.end.saturating_sub(base));
            d.file = Some(file.clone());
        }
        d
    }
}

/// What an import names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A loaded module (an index into [`Loaded::modules`]).
    Module(usize),
    /// A cast built-in recognized by name (no file is read).
    Builtin,
}

/// One loaded module.
#[derive(Debug)]
pub struct LoadedModule {
    /// Its syntax tree, with global spans.
    pub ast: ast::Module,
    /// What each of its imports names, in the order of its `Item::Import`s.
    pub imports: Vec<Target>,
    /// Is this the built-in `"EMBED"` module?
    pub is_embed: bool,
    /// Is this a module of zkbc's built-in library (zkbc's own code, which may use what zkbc
    /// allows beyond ZoKrates' rules, such as `bool` and `uN` `asm` hints)?
    pub is_library: bool,
}

/// A program's modules, dependencies first, the root last.
#[derive(Debug)]
pub struct Loaded {
    /// The modules; the last is the root.
    pub modules: Vec<LoadedModule>,
    /// Where every file is.
    pub map: SourceMap,
}

/// Is `(path, symbol)` a cast built-in that needs no file: `from "utils/casts" import cast`
/// always; with the built-in library (no standard library directory), `utils/casts` and the
/// cast modules that are conversions (`utils/casts/u32_to_bits`, `field_to_u8`, ...).
pub fn is_builtin_cast(path: &str, symbol: Option<&str>, has_stdlib: bool) -> bool {
    let p = path.strip_suffix(".zok").unwrap_or(path);
    if p == "utils/casts" && symbol == Some("cast") {
        return true;
    }
    !has_stdlib
        && (p == "utils/casts"
            || p.strip_prefix("utils/casts/")
                .and_then(Builtin::from_name)
                .is_some_and(|b| !matches!(b, Builtin::FieldToBool | Builtin::FieldToBits)))
}

/// Loads the root file `name` (whose text is `text`) and every module it imports.
pub fn load(name: &str, text: &str, stdlib: Option<&Path>) -> Result<Loaded, Diagnostic> {
    let mut loader = Loader {
        stdlib,
        map: SourceMap::new(name, text),
        modules: Vec::new(),
        by_path: HashMap::default(),
        loading: Vec::new(),
        embed: None,
    };
    let root_dir = Path::new(name).parent().map(Path::to_path_buf);
    let root_key = std::fs::canonicalize(name).unwrap_or_else(|_| PathBuf::from(name));
    let result = loader.module(0, text, root_dir, root_key, false);
    let map = loader.map.clone();
    match result {
        Ok(_) => Ok(Loaded {
            modules: loader.modules,
            map: loader.map,
        }),
        Err(d) => Err(map.localize(d)),
    }
}

struct Loader<'a> {
    stdlib: Option<&'a Path>,
    map: SourceMap,
    modules: Vec<LoadedModule>,
    /// Modules loaded, by canonical path.
    by_path: HashMap<PathBuf, usize>,
    /// The modules being loaded (canonical path, and the import that led to the next one).
    loading: Vec<(PathBuf, Option<Span>)>,
    embed: Option<usize>,
}

impl Loader<'_> {
    /// Parses the file at global offset `base` and loads its imports; returns its index.
    fn module(
        &mut self,
        base: usize,
        text: &str,
        dir: Option<PathBuf>,
        key: PathBuf,
        is_embed: bool,
    ) -> Result<usize, Diagnostic> {
        // On the stack before parsing, so that every error below names the imports that led
        // here (an error abandons the whole load, so the stack is not unwound).
        self.loading.push((key.clone(), None));
        let ast = parser::parse_at(text, base).map_err(|d| self.with_chain(d))?;
        if let Some(curve) = &ast.curve {
            if curve.name != "bn128" {
                return Err(self.with_chain(
                    Diagnostic::new(
                        format!("this module is for the curve `{}`", curve.name),
                        curve.span,
                    )
                    .with_note("zkbc compiles for BN254 only (`#pragma curve bn128`)"),
                ));
            }
        }
        let mut imports = Vec::new();
        for item in &ast.items {
            let ast::Item::Import(imp) = item else {
                continue;
            };
            if let Some(last) = self.loading.last_mut() {
                last.1 = Some(imp.span);
            }
            imports.push(self.import(imp, dir.as_deref())?);
        }
        self.loading.pop();
        let is_library = is_embed || key.starts_with(stdlib::ROOT);
        self.modules.push(LoadedModule {
            ast,
            imports,
            is_embed,
            is_library,
        });
        let index = self.modules.len() - 1;
        self.by_path.insert(key, index);
        Ok(index)
    }

    /// Resolves and loads what `imp` names.
    fn import(&mut self, imp: &ast::Import, dir: Option<&Path>) -> Result<Target, Diagnostic> {
        let symbol = imp.symbol.as_ref().map(|s| s.name.as_str());
        if imp.path == "EMBED" {
            if imp.symbol.is_none() {
                return Err(self.with_chain(
                    Diagnostic::new("`EMBED` can only be imported from", imp.span)
                        .with_note("write `from \"EMBED\" import NAME;`"),
                ));
            }
            if let Some(i) = self.embed {
                return Ok(Target::Module(i));
            }
            let base = self
                .map
                .add(EMBED_NAME.to_string(), EMBED_SOURCE.to_string());
            let i = self.module(base, EMBED_SOURCE, None, PathBuf::from(EMBED_NAME), true)?;
            self.embed = Some(i);
            return Ok(Target::Module(i));
        }
        if is_builtin_cast(&imp.path, symbol, self.stdlib.is_some()) {
            return Ok(Target::Builtin);
        }
        let relative = matches!(
            Path::new(&imp.path).components().next(),
            Some(Component::CurDir | Component::ParentDir)
        );
        let joined = if relative {
            dir.unwrap_or(Path::new("")).join(&imp.path)
        } else {
            self.stdlib
                .unwrap_or(Path::new(stdlib::ROOT))
                .join(&imp.path)
        };
        let path = normalize(&joined.with_extension("zok"));
        // A module of the built-in library: its name is its key, its text is in the table.
        let builtin = match path.strip_prefix(stdlib::ROOT) {
            Ok(rel) if self.stdlib.is_none() => Some(stdlib::source(rel)),
            _ => None,
        };
        let key = match builtin {
            Some(_) => path.clone(),
            None => std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()),
        };
        if let Some(i) = self.loading.iter().position(|(k, _)| *k == key) {
            let cycle: Vec<String> = self.loading[i..]
                .iter()
                .map(|(k, _)| k.display().to_string())
                .chain(std::iter::once(key.display().to_string()))
                .collect();
            return Err(self.with_chain(
                Diagnostic::new(format!("import cycle through `{}`", imp.path), imp.span)
                    .with_note(format!("the cycle is {}", cycle.join(" -> "))),
            ));
        }
        if let Some(&i) = self.by_path.get(&key) {
            return Ok(Target::Module(i));
        }
        if self.modules.len() + self.loading.len() >= MAX_MODULES {
            return Err(self.with_chain(Diagnostic::new(
                format!("too many modules (the limit is {MAX_MODULES})"),
                imp.span,
            )));
        }
        let text = match builtin {
            Some(Some(text)) => Ok(text.to_string()),
            Some(None) => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
            None => std::fs::read_to_string(&path),
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                let what = if e.kind() == std::io::ErrorKind::NotFound {
                    format!("no file found at {}", path.display())
                } else {
                    format!("cannot read {}: {e}", path.display())
                };
                let mut d =
                    Diagnostic::new(format!("cannot resolve import of `{}`", imp.path), imp.span)
                        .with_note(what);
                if builtin.is_some() {
                    d = d.with_note(
                        "zkbc's built-in standard library has no such module; pass \
                         --stdlib-path DIR or set ZOKRATES_STDLIB to use another library",
                    );
                }
                return Err(self.with_chain(d));
            }
        };
        let base = self.map.add(path.display().to_string(), text.clone());
        let dir = path.parent().map(Path::to_path_buf);
        self.module(base, &text, dir, key, false)
            .map(Target::Module)
    }

    /// `d` with a note `imported from FILE:LINE:COL` for each import that led to the module
    /// being loaded (innermost first).
    fn with_chain(&self, mut d: Diagnostic) -> Diagnostic {
        // The last entry is the module the error is in.
        let n = self.loading.len().saturating_sub(1);
        for (_, span) in self.loading[..n].iter().rev() {
            if let Some(span) = span {
                d = d.with_note(format!("imported from {}", self.map.describe(span.start)));
            }
        }
        d
    }
}

/// `path` with `.` components dropped and each `..` taking off the component before it (when
/// there is one that is not `..`), without reading the file system: the name messages show.
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::SourceMap;
    use crate::diagnostics::line_col;

    /// The indexed lookup gives what scanning the file gives, at every offset of every file
    /// (line ends, multi-byte characters, the gap between files, past the end).
    #[test]
    fn indexed_locations_equal_scanned_ones() {
        let root = "def main() {\n  é = 1;\n\n}\n";
        let lib = "\nx ∑ y\nlast line without end";
        let mut map = SourceMap::new("root.zok", root);
        let base = map.add("lib.zok".into(), lib.into());
        for offset in 0..base {
            assert_eq!(
                map.line_col(offset),
                line_col(root, offset),
                "root offset {offset}"
            );
        }
        for offset in 0..lib.len() + 3 {
            assert_eq!(
                map.line_col(base + offset),
                line_col(lib, offset),
                "lib offset {offset}"
            );
        }
        assert_eq!(SourceMap::default().line_col(5).line, 1);
    }
}
