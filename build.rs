//! Generates the table of zkbc's built-in standard library (`stdlib/**/*.zok`), so that the
//! binary carries every module's text (`src/front/stdlib.rs` includes the table).

use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("stdlib");
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
    std::fs::write(out.join("stdlib_table.rs"), table).expect("OUT_DIR is writable");
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
