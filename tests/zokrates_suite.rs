//! ZoKrates' own programs (the compatibility suite in `../shared/peers/zokrates`, read at test
//! time, never copied): every case runs through the driver at `-O0` and `-O3`, and with calls
//! kept as blocks at every level, and must give ZoKrates' outputs, or fail where ZoKrates fails.
//!
//! `tests/zokrates_unsupported.md` is the exact list of what does not match, and the test holds
//! it to that:
//! - a program listed as unsupported must be rejected with a located error (a listed program
//!   that compiles fails the test, so the list only shrinks), and every program that is not
//!   listed must compile;
//! - a case listed as an intentional difference must give zkbc's own outcome written there
//!   (outputs, or a failure) instead of ZoKrates'.
//!
//! Where the suite is absent the test says so and checks nothing else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use zkbc::driver;
use zkbc::front::FieldCmp;
use zkbc::ir::interp;
use zkbc::opt::calls::Inline;
use zkbc::opt::OptLevel;
use zkbc::r1cs;

/// The pipelines every case runs through: `-O0` and `-O3` with calls decided by cost (the
/// default), every level with every call kept as blocks (`--inline none`: a callee's blocks
/// once, a return label and a stack in memory), and `-O3` with every call inlined.
const PIPELINES: [(OptLevel, Inline); 7] = [
    (OptLevel::O0, Inline::Cost),
    (OptLevel::O3, Inline::Cost),
    (OptLevel::O0, Inline::None),
    (OptLevel::O1, Inline::None),
    (OptLevel::O2, Inline::None),
    (OptLevel::O3, Inline::None),
    (OptLevel::O3, Inline::All),
];

/// The suite's folder: `shared/peers/zokrates` beside the crate (`CARGO_MANIFEST_DIR/../shared`),
/// or beside one of its ancestors (a git worktree sits one level deeper than the main checkout).
fn suite_root() -> PathBuf {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_root
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| crate_root.join("../shared/peers/zokrates"))
}

/// What zkbc does on a case where it intentionally differs from ZoKrates.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Outputs(serde_json::Value),
    Fails,
}

/// The parsed `tests/zokrates_unsupported.md`.
#[derive(Default)]
struct Listed {
    /// Program (suite-relative path) to the feature it needs.
    unsupported: BTreeMap<String, String>,
    /// (program, case index) to zkbc's own outcome and the reason.
    differences: BTreeMap<(String, usize), (Outcome, String)>,
}

/// Reads the list. Entries are lines `` - `PATH` — reason `` under `## Unsupported programs`,
/// and `` - `PATH` case N: zkbc outputs JSON — reason `` or `` - `PATH` case N: zkbc fails —
/// reason `` under `## Intentional differences`.
fn read_listed() -> Listed {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zokrates_unsupported.md");
    let text = std::fs::read_to_string(&path).expect("tests/zokrates_unsupported.md exists");
    let mut listed = Listed::default();
    let mut section = "";
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = if h.starts_with("Unsupported") {
                "unsupported"
            } else if h.starts_with("Intentional") {
                "differences"
            } else {
                ""
            };
            continue;
        }
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let (program, rest) = rest.split_once('`').expect("closing backquote");
        let (what, reason) = rest
            .split_once(" — ")
            .expect("an entry has a reason after ` — `");
        assert!(!reason.trim().is_empty(), "{program}: empty reason");
        match section {
            "unsupported" => {
                listed
                    .unsupported
                    .insert(program.to_string(), reason.to_string());
            }
            "differences" => {
                let what = what.trim().strip_prefix("case ").expect("`case N:`");
                let (n, outcome) = what.split_once(": ").expect("`case N: zkbc ...`");
                let n: usize = n.parse().expect("case number");
                let outcome = if outcome == "zkbc fails" {
                    Outcome::Fails
                } else {
                    let json = outcome
                        .strip_prefix("zkbc outputs ")
                        .expect("`zkbc outputs JSON` or `zkbc fails`");
                    Outcome::Outputs(serde_json::from_str(json).expect("outputs JSON"))
                };
                listed
                    .differences
                    .insert((program.to_string(), n), (outcome, reason.to_string()));
            }
            _ => panic!("entry outside a section: {line}"),
        }
    }
    listed
}

fn compile(source: &str, name: &str, level: OptLevel) -> Result<driver::Compilation, String> {
    compile_with(source, name, (level, Inline::Cost), FieldCmp::Complete)
}

fn compile_with(
    source: &str,
    name: &str,
    (level, inline): (OptLevel, Inline),
    field_cmp: FieldCmp,
) -> Result<driver::Compilation, String> {
    let options = driver::Options {
        opt_level: level,
        inline,
        field_cmp,
        ..driver::Options::default()
    };
    driver::compile(name, source, &options).map_err(|e| e.to_string())
}

/// What a case gave: outputs JSON and `log` lines, or the failure message.
type CaseResult = Result<(serde_json::Value, Vec<String>), String>;

/// Runs one case; a run that succeeds is also checked as `zkbc check` does: every executed
/// block's R1CS instance is satisfied by the witness from the trace (an unsatisfied block is a
/// compiler bug, reported as a failure with a `check:` prefix).
fn run_case(c: &driver::Compilation, inputs: &serde_json::Value) -> CaseResult {
    let inputs = c
        .inputs_from_json(inputs)
        .map_err(|e| format!("bad inputs: {e}"))?;
    let out =
        interp::run(&c.program, &inputs, interp::Limits::default()).map_err(|e| e.to_string())?;
    let mut legal = c.program.clone();
    driver::legalize_for_r1cs(&mut legal).map_err(|e| format!("check: {e}"))?;
    let checked = interp::run(&legal, &inputs, interp::Limits::default())
        .map_err(|e| format!("check: legalized program fails: {e}"))?;
    r1cs::check_trace(&legal, &checked).map_err(|e| format!("check: {e}"))?;
    Ok((c.outputs_to_json(&out.outputs)["outputs"].clone(), out.log))
}

/// The reason that begins the listed differences `--field-cmp zokrates` removes.
const COMPLETE_CMP: &str = "complete field comparison";

#[test]
fn zokrates_suite() {
    check_suite(FieldCmp::Complete);
}

/// With `--field-cmp zokrates`, the cases where zkbc's complete field comparison differs from
/// ZoKrates' incomplete one give ZoKrates' own outcome too ("dynamic comparison is
/// incomplete" is a run-time failure); every other case is as in the default run.
#[test]
fn zokrates_suite_with_zokrates_field_comparison() {
    check_suite(FieldCmp::Zokrates);
}

fn check_suite(field_cmp: FieldCmp) {
    let root = suite_root();
    if !root.is_dir() {
        eprintln!(
            "skipping the ZoKrates suite: {} is absent (it lives beside the crate, in \
             ../shared/peers/zokrates)",
            root.display()
        );
        return;
    }
    let listed = read_listed();
    let files = zkbc::report::measure::zokrates::zok_files(&root);
    assert_eq!(files.len(), 70, "the suite has 70 programs");

    let mut failures: Vec<String> = Vec::new();
    let (mut n_cases, mut n_match, mut n_differ, mut n_unsupported) = (0, 0, 0, 0);
    let mut seen_differences = 0;
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .expect("under the root")
            .display()
            .to_string();
        let source = std::fs::read_to_string(file).expect("readable program");
        let cases_text =
            std::fs::read_to_string(file.with_extension("cases.json")).expect("cases file");
        let cases: serde_json::Value = serde_json::from_str(&cases_text).expect("cases JSON");
        let cases = cases["cases"].as_array().cloned().unwrap_or_default();
        n_cases += cases.len();

        let compiled: Vec<_> = PIPELINES
            .iter()
            .map(|&(l, inline)| {
                let label = match inline {
                    Inline::None => format!("{l:?} --inline none"),
                    Inline::All => format!("{l:?} --inline all"),
                    Inline::Cost => format!("{l:?}"),
                };
                (label, compile_with(&source, &rel, (l, inline), field_cmp))
            })
            .collect();
        if let Some(reason) = listed.unsupported.get(&rel) {
            n_unsupported += cases.len();
            for (level, c) in &compiled {
                match c {
                    Ok(_) => failures.push(format!(
                        "{rel} compiles at {level} but is listed as unsupported ({reason}): \
                         remove it from tests/zokrates_unsupported.md"
                    )),
                    Err(e) => {
                        // A located message: `--> PATH:LINE:COL`.
                        if !e.contains(&format!("--> {rel}:")) {
                            failures.push(format!("{rel}: error without a location: {e}"));
                        }
                    }
                }
            }
            continue;
        }
        for (k, (level, c)) in compiled.iter().enumerate() {
            let c = match c {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{rel} does not compile at {level}: {e}"));
                    continue;
                }
            };
            if let Err(e) = zkbc::ir::verify::verify_program(&c.program) {
                failures.push(format!("{rel} {level}: invalid IR:\n{e}"));
                continue;
            }
            for (i, case) in cases.iter().enumerate() {
                let zokrates = if case["fails"].as_bool() == Some(true) {
                    Outcome::Fails
                } else {
                    Outcome::Outputs(case["outputs"].clone())
                };
                let difference = listed
                    .differences
                    .get(&(rel.clone(), i))
                    .filter(|(_, why)| {
                        !(field_cmp == FieldCmp::Zokrates && why.starts_with(COMPLETE_CMP))
                    })
                    .map(|(outcome, _)| outcome);
                if k == 0 && listed.differences.contains_key(&(rel.clone(), i)) {
                    seen_differences += 1;
                }
                let expected = difference.cloned().unwrap_or_else(|| zokrates.clone());
                if k == 0 {
                    if difference.is_some() {
                        n_differ += 1;
                        if difference == Some(&zokrates) {
                            failures.push(format!(
                                "{rel} case {i} is listed as a difference but zkbc is expected \
                                 to agree with ZoKrates"
                            ));
                        }
                    } else {
                        n_match += 1;
                    }
                }
                let got = run_case(c, &case["inputs"]);
                let ok = match (&got, &expected) {
                    (Ok((out, log)), Outcome::Outputs(want)) => {
                        // `zokrates_log`: what `log(...)` printed, where ZoKrates recorded it.
                        let want_log = case["zokrates_log"].as_array().map(|lines| {
                            lines.iter().filter_map(|l| l.as_str()).collect::<Vec<_>>()
                        });
                        out == want && want_log.is_none_or(|w| w == *log)
                    }
                    (Err(e), Outcome::Fails) => {
                        !e.starts_with("bad inputs") && !e.starts_with("check:")
                    }
                    _ => false,
                };
                if !ok {
                    failures.push(format!(
                        "{rel} case {i} at {level}: inputs {} expected {expected:?}, got {got:?}",
                        case["inputs"]
                    ));
                }
            }
        }
    }
    assert_eq!(
        seen_differences,
        listed.differences.len(),
        "every listed difference names a case of a compiling program"
    );
    for program in listed.unsupported.keys() {
        if !files.iter().any(|f| f.ends_with(program)) {
            failures.push(format!("{program} is listed but is not in the suite"));
        }
    }
    eprintln!(
        "ZoKrates suite: {n_cases} cases; {n_match} must match ZoKrates, {n_differ} are \
         intentional differences, {n_unsupported} belong to unsupported programs"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(n_cases, 191);
    // The target: at least 90% of the suite's cases give ZoKrates' own outcome.
    assert!(
        n_match * 10 >= n_cases * 9,
        "only {n_match} of {n_cases} cases match ZoKrates"
    );
}

/// main's `uN` inputs are range-checked in the circuit (ZoKrates counts 32 constraints for this
/// in `core/uint/add_loop.zok`): a prover who feeds 2^40 as the `u32` straight into the entry
/// block's instance cannot satisfy it, while the honest input does.
#[test]
fn out_of_range_input_is_rejected_by_the_instance() {
    let file = suite_root().join("core/uint/add_loop.zok");
    let Ok(source) = std::fs::read_to_string(&file) else {
        eprintln!("skipping: {} is absent", file.display());
        return;
    };
    let c = compile(&source, "core/uint/add_loop.zok", OptLevel::O3).expect("compiles");
    let main = c.program.main_func();
    let block = r1cs::lower_block(&c.program, c.program.main, main.entry).expect("lowers");
    let honest = block
        .assign(&[zkbc::field::Fr::from(7u64)])
        .expect("assigns");
    assert_eq!(block.first_unsatisfied(&honest), None);
    let forged = block
        .assign(&[zkbc::field::Fr::from(1u64 << 40)])
        .expect("assigns");
    assert!(
        block.first_unsatisfied(&forged).is_some(),
        "2^40 passed as a u32 satisfies the entry block"
    );
}

/// The suite's `asm` programs take their `<--` hints as free witnesses; the `asm` blocks' own
/// `===` constraints must then determine every output: `check --soundness`'s search (each
/// output leaf and each witness in an assertion-shaped constraint changed, the rest repaired)
/// finds no accepting instance on any passing case.
#[test]
fn asm_hints_are_bound_by_their_constraints() {
    let root = suite_root().join("core/assembly");
    if !root.is_dir() {
        eprintln!("skipping: {} is absent", root.display());
        return;
    }
    let files = zkbc::report::measure::zokrates::zok_files(&root);
    assert_eq!(files.len(), 5, "the suite has 5 asm programs");
    let mut checked = 0;
    for file in &files {
        let name = file.display().to_string();
        let source = std::fs::read_to_string(file).expect("readable program");
        let cases: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(file.with_extension("cases.json")).expect("cases file"),
        )
        .expect("cases JSON");
        for level in [OptLevel::O0, OptLevel::O3] {
            let c = compile(&source, &name, level).expect("compiles");
            let mut legal = c.program.clone();
            driver::legalize_for_r1cs(&mut legal).expect("legalizes");
            for case in cases["cases"].as_array().into_iter().flatten() {
                if case["fails"].as_bool() == Some(true) {
                    continue;
                }
                let inputs = c.inputs_from_json(&case["inputs"]).expect("inputs");
                let outcome =
                    interp::run(&legal, &inputs, interp::Limits::default()).expect("runs");
                let report =
                    r1cs::check_soundness(&legal, &outcome, r1cs::SoundnessOptions::default())
                        .expect("checks");
                assert!(
                    report.findings.is_empty(),
                    "{name} at {level:?} on {}: {:?}",
                    case["inputs"],
                    report.findings
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked} runs checked");
}
