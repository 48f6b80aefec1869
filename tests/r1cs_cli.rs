//! `zkbc check`: exit 0 when every executed block satisfies its instance.

use crate::common;
use common::zkbc_text as zkbc;

#[test]
fn check_accepts_the_example_and_names_each_block() {
    let dir = std::env::temp_dir().join(format!("zkbc-r1cs-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inputs = dir.join("in.json");
    std::fs::write(&inputs, r#"["7", "5"]"#).unwrap();
    let (code, stdout, stderr) = zkbc(&[
        "check",
        "examples/ir/sum_loop.ir",
        "--inputs",
        inputs.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // The loop is rotated into one block per iteration: entry, 5 iterations, return.
    assert!(stdout.contains("fn main b2:"), "{stdout}");
    assert!(
        stdout.contains("all 7 block executions satisfied"),
        "{stdout}"
    );

    // A failing run exits 1 with the location; unsupported IR exits 2 naming the block.
    let failing = dir.join("fail.ir");
    std::fs::write(&failing, "fn main f0 {\nb0(v0: field):\n    v1 = eq v0, field 1\n    assert v1, \"must be one\"\n    return\n}\n").unwrap();
    std::fs::write(&inputs, r#"["2"]"#).unwrap();
    let (code, _, stderr) = zkbc(&[
        "check",
        failing.to_str().unwrap(),
        "--inputs",
        inputs.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("must be one"), "{stderr}");
    let memory = dir.join("mem.ir");
    // Memory that mem2reg cannot promote (a load through a reference chosen at run time)
    // stays after legalizing, and lowering names it.
    std::fs::write(&memory, "fn main f0 -> field {\nb0(v0: field, v1: u1):\n    v2 = allocate field\n    v3 = allocate field\n    store v0 at v2\n    v4 = select v1, v2, v3\n    v5 = load v4\n    return v5\n}\n").unwrap();
    std::fs::write(&inputs, r#"["2", true]"#).unwrap();
    let (code, _, stderr) = zkbc(&[
        "check",
        memory.to_str().unwrap(),
        "--inputs",
        inputs.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("b0") && stderr.contains("mem2reg"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `check --cross-check` decides with ark-relations instead of the direct row evaluation: the
/// same verdict and the same per-block lines on the corpus programs it is run on.
#[test]
fn cross_check_agrees_with_the_direct_check() {
    let root = env!("CARGO_MANIFEST_DIR");
    for name in ["gcd", "bubble_sort", "cold_branch", "field_cmp"] {
        let zok = format!("{root}/circuits/{name}.zok");
        let json = format!("{root}/circuits/{name}.json");
        let direct = zkbc(&["check", &zok, "--inputs", &json]);
        let ark = zkbc(&["check", &zok, "--inputs", &json, "--cross-check"]);
        assert_eq!(direct.0, 0, "{name}: {}", direct.2);
        assert_eq!(direct, ark, "{name}");
    }
}
