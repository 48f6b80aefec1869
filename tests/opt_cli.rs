//! The `zkbc opt` subcommand: runs passes on a text-format IR file and prints the result; and
//! the pass manager's options behind its flags (`print_after`, `skip`, the timing table), from
//! the library. The pass tests themselves are files, `tests/opt/*.ir` (`tests/filetests.rs`).

use crate::common;
use common::zkbc_text as zkbc;

const FILE: &str = "tests/support/inline_local.ir";

#[test]
fn opt_default_level_inlines_and_promotes() {
    let (code, stdout, stderr) = zkbc(&["opt", FILE]);
    assert_eq!(code, 0, "{stderr}");
    let program = zkbc::ir::parse_program(&stdout).unwrap();
    zkbc::ir::verify::verify_program(&program).unwrap();
    expect_test::expect![[r#"
        fn main f0 -> field {
        b0(v0: field):
            v1 = mul v0, v0
            v2 = add v1, field 1
            return v2
        }
    "#]]
    .assert_eq(&program.normalized_text());
}

#[test]
fn opt_passes_print_after_skip_and_time() {
    let (code, stdout, stderr) = zkbc(&[
        "opt",
        FILE,
        "--passes",
        "inline,mem2reg,dce",
        "--print-after",
        "inline",
        "--skip",
        "dce",
        "--time-passes",
    ]);
    assert_eq!(code, 0, "{stderr}");
    // mem2reg ran, dce was skipped, so the dead jump blocks of inlining are still there.
    assert!(!stdout.contains("load"), "{stdout}");
    assert!(stdout.contains("jmp"), "{stdout}");
    assert!(stderr.contains("; after inline (round 0): calls_inlined=1, functions_removed=1"));
    assert!(stderr.contains("mem2reg"), "{stderr}");
    assert!(!stderr.lines().any(|l| l.starts_with("dce")), "{stderr}");
    assert!(stderr.contains("total"), "{stderr}");
}

#[test]
fn opt_rejects_an_unknown_pass() {
    let (code, _, stderr) = zkbc(&["opt", FILE, "--passes", "mem2reg,cse"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown pass `cse`"), "{stderr}");
    let (code, _, stderr) = zkbc(&["opt", FILE, "--skip", "nothing"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown pass `nothing`"), "{stderr}");
}

#[test]
fn opt_rejects_a_bad_level() {
    let (code, _, stderr) = zkbc(&["opt", FILE, "-O", "7"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown optimization level"), "{stderr}");
}

/// `--cost-after` prints the cost before the first pass and after every pass that ran, and the
/// last line is what `zkbc report` measures on the program `opt` prints.
#[test]
fn opt_cost_after_prints_each_pass_and_ends_at_the_report() {
    let dir = std::env::temp_dir().join(format!("zkbc-cost-after-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inputs = dir.join("inputs.json");
    std::fs::write(&inputs, r#"["5"]"#).unwrap();
    let inputs = inputs.to_str().unwrap();
    let (code, stdout, stderr) = zkbc(&[
        "opt",
        FILE,
        "--passes",
        "inline,mem2reg,dce",
        "--cost-after",
        "--inputs",
        inputs,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("; cost")).collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    assert!(lines[0].starts_with("; cost before any pass: "), "{stderr}");
    for (line, pass) in lines[1..].iter().zip(["inline", "mem2reg", "dce"]) {
        assert!(
            line.starts_with(&format!("; cost after {pass} (round 0): ")),
            "{line}"
        );
    }
    let out = dir.join("out.ir");
    std::fs::write(&out, &stdout).unwrap();
    let (code, report, stderr) = zkbc(&[
        "report",
        out.to_str().unwrap(),
        "-O0",
        "--inputs",
        inputs,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let t = &report["totals"];
    let expected = format!(
        "{} constraints, {} executed, {} cells",
        t["constraints"], t["executed_constraints"], t["sumcheck_cells"]
    );
    assert!(lines[3].ends_with(&expected), "{} vs {expected}", lines[3]);
    std::fs::remove_dir_all(&dir).ok();
}

/// The library side of `--print-after` and `--skip`.
#[test]
fn print_after_and_skip() {
    let mut program = zkbc::ir::parse_program(
        "
fn main f0 -> u32 {
b0(v0: u32):
    v1 = allocate u32
    store v0 at v1
    v2 = load v1
    v3 = mul u32 2, u32 3
    v4 = add v2, v3
    return v4
}",
    )
    .unwrap();
    let options = zkbc::opt::Options {
        print_after: vec!["mem2reg".into()],
        skip: vec!["sccp".into()],
        verify: true,
        ..zkbc::opt::Options::default()
    };
    let report =
        zkbc::opt::optimize(&mut program, &zkbc::opt::OptLevel::O2.pipeline(), &options).unwrap();
    assert!(report.runs.iter().all(|r| r.name != "sccp"));
    assert_eq!(report.runs[0].name, "inline");
    assert_eq!(
        report.printed.len(),
        2,
        "mem2reg runs twice: once changing, once not"
    );
    assert!(report.printed[0]
        .0
        .starts_with("after mem2reg (round 1): allocations_promoted=1"));
    assert!(!report.printed[0].1.contains("load"));
    // sccp skipped: the constant multiplication is still there.
    assert!(program.to_string().contains("u32 2, u32 3"));
    assert!(report.timing_table().contains("mem2reg"));
}
