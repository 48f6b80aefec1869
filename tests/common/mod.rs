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
