//! Generates the table of zkbc's built-in standard library (`stdlib/**/*.zok`), so that the
//! binary carries every module's text (`src/front/stdlib.rs` includes the table).

use std::path::{Path, PathBuf};

fn main() {
    // The manifest directory of this build, read when the script runs: a build script binary
    // compiled for one checkout may be reused for another (a shared or copied target
    // directory), and `env!` would name the first one's library.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("stdlib");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut table = String::from("&[\n");
    for file in &files {
        let rel: Vec<String> = file
            .strip_prefix(&root)
            .expect("a file under stdlib/")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        table.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            rel.join("/"),
            file.display().to_string()
        ));
    }
    table.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    // A fresh file, never written through: a target directory seeded with hard links shares
    // this file's inode with other checkouts' builds.
    let path = out.join("stdlib_table.rs");
    let _ = std::fs::remove_file(&path);
    std::fs::write(&path, table).expect("OUT_DIR is writable");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "zok") {
            out.push(path);
        }
    }
}
