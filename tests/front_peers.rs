//! The ZoKrates programs of the compatibility suite (`/work/shared/peers/zokrates`) through the
//! front end: every program that uses only supported features must type-check; the others must
//! be rejected with a located diagnostic (never a panic).

use std::path::Path;

fn zok_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            zok_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "zok") {
            out.push(p);
        }
    }
}

/// Features of ZoKrates that zkbc does not accept yet, with the message it gives.
const UNSUPPORTED: &[&str] = &[
    "generic parameters are not supported yet",
    "`asm` statements are not supported",
    "`log` statements are not supported",
    "cannot resolve import of `utils/casts.zok`",
];

#[test]
fn peers_programs() {
    let root = Path::new("/work/shared/peers/zokrates");
    let mut files = Vec::new();
    zok_files(root, &mut files);
    files.sort();
    let mut n_ok = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable program");
        match zkbc::front::check_source(&src) {
            Ok(_) => n_ok += 1,
            Err(d) => assert!(
                UNSUPPORTED.contains(&d.message.as_str()),
                "{}",
                d.render(&f.display().to_string(), &src)
            ),
        }
    }
    // The suite is not shipped with the crate; when present, most of it must check.
    assert!(
        files.is_empty() || n_ok >= 45,
        "only {n_ok} of {} programs check",
        files.len()
    );
}
