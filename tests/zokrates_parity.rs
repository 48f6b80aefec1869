//! Constraint parity with ZoKrates: for every program of the ZoKrates suite
//! (`../shared/peers/zokrates`, read at test time, never copied) that compiles `--monolithic` at
//! `-O3`, every constraint of the circuit `zkbc export --monolithic` writes (main's one block
//! without the block interface) is counted, and the count is at most ZoKrates' own
//! `zokrates_constraints` (what is counted on each side: `zkbc::report::measure::zokrates`). The
//! circuit's count is checked against the exported `.r1cs` file's header on one program.
//!
//! zkbc compiles with `--field-cmp zokrates` here: ZoKrates' comparison of two non-constant
//! field elements works only below 2^252 and its count is for that; zkbc's default, complete
//! over the whole field, costs more (see the r1cs cost table).
//!
//! The table (program, ZoKrates' count, zkbc monolithic block, zkbc circuit, zkbc block cells,
//! ≤) is `docs/zokrates_parity.md`, which must be exactly what `zkbc table --zokrates
//! ../shared/peers/zokrates --field-cmp zokrates --format markdown` prints;
//! `UPDATE_EXPECT=1 cargo test --test all zokrates_parity::` refreshes it.

use std::path::{Path, PathBuf};
use std::process::Command;
use zkbc::report::measure::FieldCmp;
use zkbc::report::zokrates;

/// The suite's folder, found as `tests/zokrates_suite.rs` finds it.
fn suite_root() -> PathBuf {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_root
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| crate_root.join("../shared/peers/zokrates"))
}

#[test]
fn zokrates_parity() {
    let root = suite_root();
    if !root.is_dir() {
        eprintln!(
            "skipping ZoKrates parity: {} is absent (it lives beside the crate, in \
             ../shared/peers/zokrates)",
            root.display()
        );
        return;
    }
    let rows =
        zkbc::report::measure::zokrates::rows(&root, FieldCmp::Zokrates).expect("the suite reads");
    assert_eq!(rows.len(), 70, "the suite has 70 programs");
    // ZoKrates' numbers come from the suite's JSON, not from zkbc.
    for r in &rows {
        let cases = std::fs::read_to_string(root.join(&r.program).with_extension("cases.json"))
            .expect("cases file");
        let cases: serde_json::Value = serde_json::from_str(&cases).expect("cases JSON");
        assert_eq!(Some(r.zokrates), cases["zokrates_constraints"].as_u64());
    }
    let above: Vec<String> = rows
        .iter()
        .filter(|r| r.at_or_below() == Some(false))
        .map(|r| {
            format!(
                "{}: zkbc {} > ZoKrates {}",
                r.program,
                r.circuit.unwrap_or_default(),
                r.zokrates
            )
        })
        .collect();
    let none: Vec<&str> = rows
        .iter()
        .filter(|r| r.monolithic.is_none() || r.circuit.is_none())
        .map(|r| r.program.as_str())
        .collect();
    // Every program of the suite has constant loop bounds: each compiles to one block.
    assert!(none.is_empty(), "no one-block circuit: {none:?}");
    assert!(
        above.is_empty(),
        "{} programs above ZoKrates' count:\n{}",
        above.len(),
        above.join("\n")
    );

    // The circuit counted is the one `export --monolithic` writes: its header's mConstraints.
    let dir = tempfile::tempdir().expect("a temporary directory");
    for program in ["core/generics/call.zok", "core/le.zok"] {
        let row = rows
            .iter()
            .find(|r| r.program == program)
            .expect("in the suite");
        let out = Command::new(env!("CARGO_BIN_EXE_zkbc"))
            .args(["export", "--monolithic", "--field-cmp", "zokrates", "-o"])
            .arg(dir.path())
            .arg(root.join(program))
            .output()
            .expect("zkbc runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r1cs = std::fs::read(dir.path().join("main.r1cs")).expect("main.r1cs");
        // magic, version, nSections, section type and size; then n8, the prime, nWires,
        // nPubOut, nPubIn, nPrvIn (4 bytes each but the 32-byte prime), nLabels (8).
        let at = 24 + 4 + 32 + 4 * 4 + 8;
        let m = u32::from_le_bytes(r1cs[at..at + 4].try_into().expect("4 bytes"));
        assert_eq!(Some(u64::from(m)), row.circuit, "{program}");
    }

    // The table in docs/ is the command's output.
    let out = Command::new(env!("CARGO_BIN_EXE_zkbc"))
        .args(["table", "--zokrates"])
        .arg(&root)
        .args(["--field-cmp", "zokrates", "--format", "markdown"])
        .output()
        .expect("zkbc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(text, zokrates::markdown(&rows, FieldCmp::Zokrates));
    expect_test::expect_file!["../docs/zokrates_parity.md"].assert_eq(&text);
}

/// The standard library's parity table: `docs/stdlib_parity.md` must be exactly what `zkbc
/// table --yardsticks ../shared/peers/zokrates-stdlib` prints (each yardstick of
/// `yardsticks.tsv` compiled with the built-in library, `--monolithic --compat zokrates`);
/// `UPDATE_EXPECT=1 cargo test --test all zokrates_parity::` refreshes it. The program paths in the
/// command are relative to the crate, as the file's header shows them.
#[test]
fn stdlib_parity() {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(root) = crate_root
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates-stdlib"))
        .find(|p| p.join("yardsticks.tsv").is_file())
    else {
        eprintln!(
            "skipping the standard library parity table: no shared/peers/zokrates-stdlib \
             beside the crate or above it"
        );
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_zkbc"))
        .args(["table", "--yardsticks"])
        .arg(&root)
        .env_remove("ZOKRATES_STDLIB")
        .output()
        .expect("zkbc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    // ZoKrates' numbers come from the list, not from zkbc.
    let list = std::fs::read_to_string(root.join("yardsticks.tsv")).expect("yardsticks.tsv");
    for line in list.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let name = cols[0].rsplit('/').next().expect("a file name");
        let row = format!("| `{name}` | `{}` | {} |", cols[1], cols[2]);
        assert!(text.contains(&row), "no row `{row}`");
    }
    expect_test::expect_file!["../docs/stdlib_parity.md"].assert_eq(&text);
}
