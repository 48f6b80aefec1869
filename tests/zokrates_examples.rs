//! ZoKrates' examples folder (`../shared/peers/zokrates-examples`, ZoKrates 0.8.8's
//! `zokrates_cli/examples`, read at test time, never copied), tested as ZoKrates' own
//! `compile_examples` and `execute_examples_ok` do, through the `zkbc` binary:
//! - every program outside `compile_errors/` compiles, with zkbc's built-in library (the whole
//!   pipeline, at the default -O3) and with `--stdlib-path` on the shared copy of ZoKrates'
//!   library (the default -O3 too: the 153 programs take about 1.5 s together on one core);
//! - every program under `compile_errors/` is rejected with exit code 2 and a `FILE:LINE:COL`
//!   error, or is listed in `tests/zokrates_examples_accepted.md` with the reason zkbc accepts
//!   it, and then must still compile (so the list cannot rot);
//! - the `test*.zok` programs at the top of the folder run to the outputs computed by hand below
//!   and `zkbc check` finds every executed block satisfied.
//!
//! Where the folder is absent the test says so and checks nothing else, as the other tests of
//! `../shared` do.

use crate::common;
use common::zkbc;

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `shared/peers/NAME` beside the crate, or beside one of its ancestors (a git worktree sits
/// one level deeper than the main checkout).
fn peers(name: &str) -> PathBuf {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_root
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers").join(name))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| crate_root.join("../shared/peers").join(name))
}

/// The `test*.zok` programs at the top of the folder: `-a` arguments and the outputs, computed
/// by hand from the source.
const EXECUTED: &[(&str, &[&str], &str)] = &[
    // Every assertion holds on constants (5 != 7, 5 < 7, ...); main returns x.
    ("test1.zok", &["7"], r#"{"outputs":["7"]}"#),
    // 0 < 2^252 - 1.
    ("test_lt_max_value.zok", &["0"], r#"{"outputs":[true]}"#),
];

/// Every `.zok` file under `dir`, as paths relative to `root`, sorted.
fn zok_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("cannot read {}", dir.display());
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            zok_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "zok") {
            let rel = path.strip_prefix(root).expect("under the root");
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The list of accepted `compile_errors` programs: lines `` - `PATH` — reason ``.
fn read_accepted() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zokrates_examples_accepted.md");
    let text = std::fs::read_to_string(&path).expect("tests/zokrates_examples_accepted.md exists");
    let mut listed = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let (file, reason) = rest
            .split_once("` — ")
            .unwrap_or_else(|| panic!("malformed entry (want - `PATH` — reason): {line}"));
        assert!(
            !reason.trim().is_empty(),
            "{file} is listed without a reason"
        );
        let previous = listed.insert(file.to_string(), reason.to_string());
        assert!(previous.is_none(), "{file} is listed twice");
    }
    listed
}

/// Does `stderr` locate the error as `FILE:LINE:COL` in `file`?
fn located(stderr: &str, file: &str) -> bool {
    stderr.lines().any(|line| {
        let Some(at) = line.find(file) else {
            return false;
        };
        let rest = &line[at + file.len()..];
        let mut parts = rest.split(':');
        parts.next() == Some("")
            && parts.next().is_some_and(|l| l.parse::<u32>().is_ok())
            && parts.next().is_some_and(|c| {
                let digits: String = c.chars().take_while(char::is_ascii_digit).collect();
                !digits.is_empty()
            })
    })
}

#[test]
fn zokrates_examples() {
    let root = peers("zokrates-examples");
    let stdlib = peers("zokrates-stdlib").join("stdlib");
    if !root.is_dir() {
        eprintln!(
            "skipping ZoKrates' examples: {} is absent (it lives beside the crate, in \
             ../shared/peers)",
            root.display()
        );
        return;
    }
    assert!(
        stdlib.is_dir(),
        "ZoKrates' library is not at {} (the examples import it)",
        stdlib.display()
    );
    let mut files = Vec::new();
    zok_files(&root, &root, &mut files);
    files.sort();
    let (errors, valid): (Vec<&String>, Vec<&String>) =
        files.iter().partition(|f| f.starts_with("compile_errors/"));
    // ZoKrates 0.8.8's folder: 153 programs that compile and 68 that must not.
    assert_eq!((valid.len(), errors.len()), (153, 68), "the folder changed");
    let accepted = read_accepted();
    for file in accepted.keys() {
        assert!(
            errors.contains(&file),
            "{file} is listed but is not a compile_errors program of the folder"
        );
    }
    let stdlib_arg = stdlib.to_string_lossy().into_owned();
    let path_of = |f: &str| root.join(f).to_string_lossy().into_owned();

    let mut failures: Vec<String> = valid
        .par_iter()
        .flat_map_iter(|f| {
            let path = path_of(f);
            let builtin = zkbc(&["compile", &path]);
            let shared = zkbc(&["compile", "--stdlib-path", &stdlib_arg, &path]);
            [("the built-in library", builtin), ("--stdlib-path", shared)]
                .into_iter()
                .filter(|(_, out)| !out.status.success())
                .map(|(how, out)| {
                    format!(
                        "{f} does not compile with {how}: {}",
                        common::stderr(&out).lines().next().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();

    let rejections: Vec<String> = errors
        .par_iter()
        .flat_map_iter(|f| {
            let path = path_of(f);
            let builtin = zkbc(&["compile", &path]);
            let shared = zkbc(&["compile", "--stdlib-path", &stdlib_arg, &path]);
            let mut problems = Vec::new();
            for (how, out) in [("the built-in library", builtin), ("--stdlib-path", shared)] {
                let stderr = common::stderr(&out);
                match (accepted.contains_key(f.as_str()), out.status.code()) {
                    (true, Some(0)) => {}
                    (true, _) => problems.push(format!(
                        "{f} is listed as accepted but is rejected with {how}: {}",
                        stderr.lines().next().unwrap_or("")
                    )),
                    (false, Some(2)) if located(&stderr, f.rsplit('/').next().unwrap_or(f)) => {}
                    (false, Some(2)) => problems.push(format!(
                        "{f} is rejected with {how} without a FILE:LINE:COL location: {stderr}"
                    )),
                    (false, code) => problems.push(format!(
                        "{f} is not rejected with {how} (exit {code:?}) and is not listed in \
                     tests/zokrates_examples_accepted.md"
                    )),
                }
            }
            problems
        })
        .collect();
    failures.extend(rejections);

    // `execute_examples_ok`: the top-level `test*.zok` programs run and check.
    let top: Vec<&String> = files
        .iter()
        .filter(|f| !f.contains('/') && f.starts_with("test"))
        .collect();
    let expected: Vec<&str> = EXECUTED.iter().map(|(f, ..)| *f).collect();
    assert_eq!(top, expected, "the folder's test*.zok programs changed");
    for (file, args, outputs) in EXECUTED {
        let path = path_of(file);
        let mut run_args = vec!["run", path.as_str(), "-a"];
        run_args.extend(args.iter());
        let run = zkbc(&run_args);
        let got: serde_json::Value =
            serde_json::from_str(common::stdout(&run).trim()).unwrap_or(serde_json::Value::Null);
        let want: serde_json::Value = serde_json::from_str(outputs).expect("valid JSON");
        if !run.status.success() || got != want {
            failures.push(format!(
                "{file} runs to {got} (exit {:?}), expected {want}: {}",
                run.status.code(),
                common::stderr(&run)
            ));
        }
        let mut check_args = vec!["check", path.as_str(), "-a"];
        check_args.extend(args.iter());
        let check = zkbc(&check_args);
        let stdout = common::stdout(&check);
        if !check.status.success() || !stdout.contains("block executions satisfied") {
            failures.push(format!(
                "{file}: `zkbc check` does not find every executed block satisfied: {stdout}{}",
                common::stderr(&check)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} programs compile with both libraries; {} compile_errors programs rejected, {} \
         accepted as listed; {} test*.zok programs run and check",
        valid.len(),
        errors.len() - accepted.len(),
        accepted.len(),
        EXECUTED.len()
    );
}
