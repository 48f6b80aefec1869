//! Module resolution (`front::modules`) on an import graph of small files: the input is split
//! at NUL bytes into the texts of up to five files — the root `main.zok`, `a.zok`,
//! `sub/b.zok` beside it, and `lib.zok` and `utils/c.zok` in a library directory — written to
//! a directory of this process (a missing part removes its file, so imports of missing files
//! are exercised too). The first byte chooses the library: that directory
//! (`--stdlib-path`) or zkbc's built-in one. Every outcome is a diagnostic that renders, with
//! its file when it is about an imported one, or a program the IR verifier accepts. Nothing
//! may panic, hang or exhaust memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

const FILES: [&str; 5] = ["main.zok", "a.zok", "sub/b.zok", "std/lib.zok", "std/utils/c.zok"];

fn root() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("zkbc-fuzz-modules-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::create_dir_all(dir.join("std/utils")).unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let parts: Vec<&str> = text.split('\0').collect();
    if parts.len() > FILES.len() {
        return;
    }
    let dir = root();
    for (k, name) in FILES.iter().enumerate() {
        let path = dir.join(name);
        match parts.get(k) {
            Some(t) => std::fs::write(&path, t).unwrap(),
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    let options = zkbc::front::FrontOptions {
        stdlib: (flags & 1 == 1).then(|| dir.join("std")),
        ..Default::default()
    };
    let main = dir.join("main.zok");
    let name = main.display().to_string();
    match zkbc::front::compile_file(&name, parts[0], &options) {
        Ok((program, _abi)) => {
            if let Err(e) = zkbc::ir::verify::verify_program(&program) {
                panic!("lowered IR does not verify:\n{e}\n{program}");
            }
        }
        Err(diagnostic) => {
            let rendered = diagnostic.render(&name, parts[0]);
            assert!(!rendered.is_empty());
        }
    }
});
