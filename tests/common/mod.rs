//! Helpers the integration tests share.

use std::path::{Path, PathBuf};

/// The corpus programs, `circuits/*.zok`, sorted.
pub fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("circuits/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "zok"))
        .collect();
    files.sort();
    files
}

/// A JSON file, parsed (a test failure naming the file otherwise).
#[allow(dead_code)] // not every test binary reads JSON
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
