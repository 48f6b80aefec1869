//! zkbc's own standard library, built into the binary: the `.zok` files under `stdlib/` (ZoKrates
//! 0.8's module paths and signatures, written for zkbc from the specifications), used for
//! non-relative imports when neither `--stdlib-path` nor `ZOKRATES_STDLIB` is given.
//!
//! `build.rs` generates the table from the directory, so every file is in it.

use std::path::Path;

/// The name the built-in library's root has in file names and messages.
pub const ROOT: &str = "<zkbc>/stdlib";

/// Every module: its path under `stdlib/` (`/`-separated, with `.zok`) and its text.
pub const MODULES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/stdlib_table.rs"));

/// The text of the module at `path` (relative to the library's root, with `.zok`).
pub fn source(path: &Path) -> Option<&'static str> {
    let key: Vec<&str> = path
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect::<Option<_>>()?;
    let key = key.join("/");
    MODULES
        .iter()
        .find(|(name, _)| *name == key)
        .map(|(_, text)| *text)
}
