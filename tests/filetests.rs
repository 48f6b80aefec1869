//! Tests as files: one runner for the pass tests of `tests/opt/*.ir`, the verifier tests of
//! `tests/verify/*.ir`, the gadget tests of `tests/r1cs/*.ir` and the interpreter tests of
//! `tests/interp/*.ir`. Each folder must hold at
//! least as many files as it had when its tests moved there; every file is run, and all
//! failures are reported together, each naming its file. What cannot be a file (property and
//! random tests, programs built or tampered with in code) stays in the Rust tests beside them.
//!
//! A **pass test** (`tests/opt/NAME.ir`) is an IR program with its header in `;` comments:
//!
//! - `; passes: mem2reg,sccp,dce` — the passes to run once each, in order, by the names
//!   `zkbc opt --passes` takes; or `; passes: -O2` for a level's whole pipeline, as `zkbc opt
//!   -O2` runs it. The IR is verified after every pass.
//! - `; options: merge-policy=threshold monolithic`, at most one: how `merge` merges, by the
//!   names of `zkbc opt`'s flags, separated by spaces: `monolithic`, `merge-policy=POLICY`,
//!   `min-block-size=N`, `max-unrolled=N` (unnamed ones keep their defaults).
//! - `; run: INPUTS` (a JSON array, one entry per parameter of main), one or more: the
//!   interpreter runs the program before and after the passes on them, and both must give the
//!   same outputs and `log` lines or fail the same way. `; run: INPUTS -> OUTPUTS` also states
//!   the outputs (worked out by hand), which both sides must return.
//! - After the program, a line `; expect:` and then the whole program the passes leave, as
//!   `Program::normalized_text` prints it (values and blocks renumbered in layout order).
//!   `UPDATE_EXPECT=1 cargo test --test all filetests::` rewrites that part, like the expect-test
//!   snapshots; review the diff before committing it.
//! - Or, instead of `; run:` and `; expect:`, `; error: MESSAGE`: the passes fail with exactly
//!   this message.
//!
//! A **verifier test** (`tests/verify/NAME.ir`) is an IR program the verifier rejects, with one
//! `; error: TEXT` line per violation it must report, in order: the verifier reports exactly as
//! many violations as there are lines, and each contains its line's text.
//!
//! A **gadget test** (`tests/r1cs/NAME.ir`) states the constraints of blocks of main, derived
//! by hand from the table of `zkbc::r1cs` (the comments say how), and runs:
//!
//! - `; constraints: bN A + B + ...` — block `bN` of main lowers to exactly that many
//!   constraints (the sum is the derivation: 2 for the labels, then each gadget's share).
//! - `; run: INPUTS` or `; run: INPUTS -> OUTPUTS`, one or more: the interpreter runs main
//!   (returning OUTPUTS, when given), every executed block's instance is satisfied by its
//!   witness, and changing any output leaf of any execution makes it unsatisfied.
//! - `; sound: INPUTS`: after that run, `check --soundness`'s search (every output leaf and
//!   every witness in an assertion-shaped constraint changed) finds no accepting instance;
//!   `; unsound: INPUTS`: it finds one (a test needs a `; run:` or an `; unsound:` line).
//! - `; accepts: bN LEAVES` / `; rejects: bN LEAVES`: block `bN` of main, its witness generated
//!   from the input state LEAVES (a JSON array of decimal field elements, `-1` allowed; no run
//!   reaches most of them), is satisfied / is not (an assertion that fails, or an operand out
//!   of a gadget's range, must leave some constraint false).
//!
//! An **interpreter test** (`tests/interp/NAME.ir`) states its cases: `; case: INPUTS ->
//! OUTPUTS` (JSON arrays, outputs worked out by hand in the file's comment) or `; fails: INPUTS
//! -> MESSAGE` (the located failure, as the CLI prints it); the trace must start at main's
//! entry with the inputs and main's last block must return the outputs.
//!
//! Other `;` lines are comments: say why the expected result is right.

use crate::r1cs_common;

use std::path::{Path, PathBuf};
use zkbc::ir::interp::{self, Limits};
use zkbc::ir::{parse_program, verify, Program};
use zkbc::opt::merge::MergeOptions;
use zkbc::opt::{optimize, OptLevel, Options, Pipeline};
use zkbc::r1cs::{self, SoundnessOptions};

/// The `.ir` files of `tests/DIR`, sorted; a test failure if there are fewer than `at_least`.
fn files(dir: &str, at_least: usize) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    files.sort();
    assert!(
        files.len() >= at_least.max(1),
        "{} holds {} .ir files, expected at least {at_least}",
        dir.display(),
        files.len()
    );
    files
}

/// The values of the header lines `; KEY: value`.
fn header<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("; {key}:");
    text.lines()
        .filter_map(|line| line.strip_prefix(&prefix))
        .map(str::trim)
        .collect()
}

/// Runs every file of `dir` through `check`, then fails listing every file that failed. The
/// folder must hold at least `at_least` files: the count when the tests moved there, so that
/// a lost file is noticed (lower it in the same commit that removes a test on purpose).
fn run_all(dir: &str, at_least: usize, check: fn(&Path, &str) -> Result<(), String>) -> usize {
    let files = files(dir, at_least);
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text =
                std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // A panic (a failed check inside a shared helper) is that file's failure too.
            let result = std::panic::catch_unwind(|| check(path, &text))
                .unwrap_or_else(|_| Err("panicked (message above)".into()));
            result.err().map(|e| format!("{}: {e}", path.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
    files.len()
}

/// The pipeline a `; passes:` line names.
fn pipeline(passes: &str) -> Result<Pipeline, String> {
    let level = match passes {
        "-O0" => Some(OptLevel::O0),
        "-O1" => Some(OptLevel::O1),
        "-O2" => Some(OptLevel::O2),
        "-O3" => Some(OptLevel::O3),
        _ => None,
    };
    match level {
        Some(level) => Ok(level.pipeline()),
        None => {
            let names: Vec<&str> = passes.split(',').map(str::trim).collect();
            Pipeline::from_names(&names).map_err(|e| e.to_string())
        }
    }
}

/// The merge options of a `; options:` line (`zkbc opt`'s flag names).
fn merge_options(line: &str) -> Result<MergeOptions, String> {
    let mut options = MergeOptions::default();
    for word in line.split_whitespace() {
        let number = |value: &str| {
            value
                .parse::<u64>()
                .map_err(|e| format!("`; options:` {word}: {e}"))
        };
        match word.split_once('=') {
            None if word == "monolithic" => options.monolithic = true,
            Some(("merge-policy", policy)) => options.policy = policy.parse()?,
            Some(("min-block-size", n)) => options.min_block_size = number(n)?,
            Some(("max-unrolled", n)) => options.max_unrolled = number(n)? as usize,
            _ => return Err(format!("`; options:` does not know `{word}`")),
        }
    }
    Ok(options)
}

/// Main's outputs on `inputs` as JSON, with the `log` lines of the run, or the kind of failure.
fn outcome(
    program: &Program,
    inputs: &serde_json::Value,
) -> Result<(serde_json::Value, Vec<String>), String> {
    let values = interp::inputs_from_json(program, inputs)?;
    let returns = &program.main_func().returns;
    interp::run(program, &values, Limits::default())
        .map(|o| {
            let outputs = o.outputs.iter().zip(returns).map(|(v, t)| v.to_json(t));
            (serde_json::Value::Array(outputs.collect()), o.log)
        })
        .map_err(|f| format!("fails: {}", f.kind))
}

fn check_pass_file(path: &Path, text: &str) -> Result<(), String> {
    let (source, expected) = match text.split_once("\n; expect:\n") {
        Some((source, expected)) => (source, Some(expected)),
        None => (text, None),
    };
    let passes = match header(source, "passes")[..] {
        [passes] => passes,
        _ => return Err("needs exactly one `; passes:` line".into()),
    };
    let merge = match header(source, "options")[..] {
        [] => MergeOptions::default(),
        [line] => merge_options(line)?,
        _ => return Err("at most one `; options:` line".into()),
    };
    let errors = header(source, "error");
    let runs = header(source, "run");
    let original = parse_program(source).map_err(|e| format!("bad test IR: {e}"))?;
    verify::verify_program(&original).map_err(|e| format!("invalid test IR:\n{e}"))?;
    let mut optimized = original.clone();
    let options = Options {
        verify: true,
        merge,
        ..Options::default()
    };
    let result = optimize(&mut optimized, &pipeline(passes)?, &options);
    if let [message] = errors[..] {
        if expected.is_some() || !runs.is_empty() {
            return Err("`; error:` goes without `; run:` and `; expect:`".into());
        }
        return match result {
            Err(e) if e.to_string() == message => Ok(()),
            Err(e) => Err(format!("failed with `{e}`, expected `{message}`")),
            Ok(_) => Err(format!("the passes succeeded, expected `{message}`")),
        };
    }
    if !errors.is_empty() {
        return Err("at most one `; error:` line".into());
    }
    result.map_err(|e| format!("the passes failed: {e}"))?;
    if runs.is_empty() {
        return Err("a pass test needs at least one `; run:` line".into());
    }
    for run in runs {
        let (inputs, outputs) = match run.split_once(" -> ") {
            Some((i, o)) => (i, Some(o)),
            None => (run, None),
        };
        let inputs = json(inputs)?;
        let before = outcome(&original, &inputs);
        let after = outcome(&optimized, &inputs);
        if before != after {
            return Err(format!(
                "on {inputs} the behaviour changed: {before:?} before, {after:?} after\n\
                 after the passes:\n{optimized}"
            ));
        }
        if let Some(outputs) = outputs {
            let outputs = json(outputs)?;
            if before.as_ref().map(|(outputs, _)| outputs) != Ok(&outputs) {
                return Err(format!("on {inputs}: {before:?}, expected {outputs}"));
            }
        }
    }
    let actual = optimized.normalized_text();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let updated = format!("{}\n; expect:\n{actual}", source.trim_end_matches('\n'));
        if updated != text {
            std::fs::write(path, updated).map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    match expected {
        Some(expected) if expected == actual => Ok(()),
        Some(expected) => Err(format!(
            "the passes left a different program (UPDATE_EXPECT=1 rewrites it)\n\
             expected:\n{expected}\nactual:\n{actual}"
        )),
        None => Err("no `; expect:` line (UPDATE_EXPECT=1 writes it)".into()),
    }
}

fn check_verify_file(_path: &Path, text: &str) -> Result<(), String> {
    let expected = header(text, "error");
    if expected.is_empty() {
        return Err("a verifier test needs at least one `; error:` line".into());
    }
    let program = parse_program(text).map_err(|e| format!("bad test IR: {e}"))?;
    let reported: Vec<String> = match verify::verify_program(&program) {
        Ok(()) => Vec::new(),
        Err(e) => e.0.iter().map(ToString::to_string).collect(),
    };
    let matches = reported.len() == expected.len()
        && reported.iter().zip(&expected).all(|(r, e)| r.contains(e));
    if matches {
        Ok(())
    } else {
        Err(format!(
            "the verifier reported\n  {}\nexpected\n  {}",
            reported.join("\n  "),
            expected.join("\n  ")
        ))
    }
}

fn check_gadget_file(_path: &Path, text: &str) -> Result<(), String> {
    let program = parse_program(text).map_err(|e| format!("bad test IR: {e}"))?;
    verify::verify_program(&program).map_err(|e| format!("invalid test IR:\n{e}"))?;
    let constraints = header(text, "constraints");
    let runs = header(text, "run");
    let unsound = header(text, "unsound");
    if constraints.is_empty() || (runs.is_empty() && unsound.is_empty()) {
        return Err(
            "a gadget test needs `; constraints:` and `; run:` (or `; unsound:`) lines".into(),
        );
    }
    for line in constraints {
        let (block, sum) = split_block(line)?;
        let expected = sum
            .split('+')
            .map(|term| term.trim().parse::<usize>())
            .sum::<Result<usize, _>>()
            .map_err(|e| format!("`{sum}`: {e}"))?;
        let lowered = r1cs_common::lower(&program, block).n_constraints();
        if lowered != expected {
            return Err(format!(
                "b{block} has {lowered} constraints, expected {sum} = {expected}"
            ));
        }
    }
    let returns = &program.main_func().returns;
    for run in runs {
        let (inputs, outputs) = match run.split_once(" -> ") {
            Some((i, o)) => (i, Some(o)),
            None => (run, None),
        };
        let values = interp::inputs_from_json(&program, &json(inputs)?)?;
        let got = r1cs_common::run_and_check(&program, &values);
        if let Some(outputs) = outputs {
            let got = serde_json::Value::Array(
                got.iter().zip(returns).map(|(v, t)| v.to_json(t)).collect(),
            );
            if got != json(outputs)? {
                return Err(format!("on {inputs}: returned {got}, expected {outputs}"));
            }
        }
    }
    for (key, expect_findings) in [("sound", false), ("unsound", true)] {
        for inputs in header(text, key) {
            let values = interp::inputs_from_json(&program, &json(inputs)?)?;
            let outcome = interp::run(&program, &values, Limits::default())
                .map_err(|e| format!("on {inputs}: the run failed: {e}"))?;
            let report = r1cs::check_soundness(&program, &outcome, SoundnessOptions::default())
                .map_err(|e| format!("on {inputs}: {e}"))?;
            if report.findings.is_empty() == expect_findings {
                return Err(format!(
                    "on {inputs}: the soundness search found {:?}, expected {}",
                    report.findings,
                    if expect_findings { "a finding" } else { "none" }
                ));
            }
        }
    }
    for (key, expect_satisfied) in [("accepts", true), ("rejects", false)] {
        for line in header(text, key) {
            let (block, state) = split_block(line)?;
            let leaves = match json(state)? {
                serde_json::Value::Array(items) => items
                    .iter()
                    .map(|x| match x {
                        serde_json::Value::String(s) => zkbc::field::parse_dec(s),
                        serde_json::Value::Number(n) => zkbc::field::parse_dec(&n.to_string()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| format!("`{state}`: not decimal field elements"))?,
                _ => return Err(format!("`{state}` is not a JSON array")),
            };
            let lowered = r1cs_common::lower(&program, block);
            let assignment = lowered
                .assign(&leaves)
                .map_err(|e| format!("b{block} on {state}: {e}"))?;
            if lowered.first_unsatisfied(&assignment).is_none() != expect_satisfied {
                return Err(format!(
                    "b{block} is {} by the state {state}",
                    if expect_satisfied {
                        "not satisfied"
                    } else {
                        "satisfied"
                    }
                ));
            }
        }
    }
    Ok(())
}

/// A gadget header's `bN REST`: main's block N and the rest.
fn split_block(line: &str) -> Result<(u32, &str), String> {
    let (block, rest) = line
        .split_once(' ')
        .ok_or_else(|| format!("`{line}` does not start with a block `bN `"))?;
    let block = block
        .strip_prefix('b')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("`{block}` is not a block"))?;
    Ok((block, rest.trim()))
}

/// A header value as JSON.
fn json(text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(text).map_err(|e| format!("`{text}`: {e}"))
}

/// The step limit of an interpreter test (its programs are small; `infinite_loop.ir` hits it).
const STEP_LIMIT: u64 = 10_000;

/// What an interpreter test's case expects.
enum Expect {
    Outputs(serde_json::Value),
    Failure(String),
}

/// The `; case:` and `; fails:` lines of an interpreter test.
fn cases(text: &str) -> Vec<(serde_json::Value, Expect)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let (rest, fails) = if let Some(r) = line.strip_prefix("; case: ") {
            (r, false)
        } else if let Some(r) = line.strip_prefix("; fails: ") {
            (r, true)
        } else {
            continue;
        };
        let (inputs, expected) = rest.split_once(" -> ").expect("case has ` -> `");
        let inputs = serde_json::from_str(inputs).expect("inputs are JSON");
        let expect = if fails {
            Expect::Failure(expected.to_string())
        } else {
            Expect::Outputs(serde_json::from_str(expected).expect("outputs are JSON"))
        };
        out.push((inputs, expect));
    }
    out
}

/// Runs an interpreter test's cases (a failed one panics, naming the file); the number of cases.
fn run_interp_file(path: &Path, text: &str) -> usize {
    let program = parse_program(text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
    verify::verify_program(&program).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases = cases(text);
    assert!(!cases.is_empty(), "{} states no cases", path.display());
    let limits = interp::Limits {
        max_steps: STEP_LIMIT,
        ..Limits::default()
    };
    for (inputs, expect) in &cases {
        let values = interp::inputs_from_json(&program, inputs).unwrap();
        let result = interp::run(&program, &values, limits);
        match (result, expect) {
            (Ok(outcome), Expect::Outputs(expected)) => {
                let returns = &program.main_func().returns;
                let got: Vec<_> = outcome
                    .outputs
                    .iter()
                    .zip(returns)
                    .map(|(v, t)| v.to_json(t))
                    .collect();
                assert_eq!(
                    serde_json::Value::Array(got),
                    *expected,
                    "{} on {inputs}",
                    path.display()
                );
                // The trace starts at the entry with the inputs, and main's last block returns
                // the outputs (callees' blocks are in the trace too, in execution order).
                let first = outcome.trace.first().unwrap();
                assert_eq!(first.block, program.main_func().entry);
                assert_eq!(first.params, values);
                let last_of_main = outcome
                    .trace
                    .iter()
                    .rev()
                    .find(|t| t.func == program.main)
                    .unwrap();
                assert_eq!(
                    last_of_main.exit,
                    interp::Exit::Return(outcome.outputs.clone())
                );
            }
            (Err(failure), Expect::Failure(message)) => {
                assert_eq!(
                    failure.to_string(),
                    *message,
                    "{} on {inputs}",
                    path.display()
                );
            }
            (Ok(o), Expect::Failure(m)) => panic!(
                "{} on {inputs}: expected `{m}`, got {:?}",
                path.display(),
                o.outputs
            ),
            (Err(f), Expect::Outputs(_)) => {
                panic!("{} on {inputs}: unexpected failure {f}", path.display())
            }
        }
    }
    cases.len()
}

fn check_interp_file(path: &Path, text: &str) -> Result<(), String> {
    run_interp_file(path, text);
    Ok(())
}

#[test]
fn pass_tests() {
    let n = run_all("opt", 54, check_pass_file);
    eprintln!("{n} pass tests");
}

#[test]
fn verifier_tests() {
    let n = run_all("verify", 14, check_verify_file);
    eprintln!("{n} verifier tests");
}

#[test]
fn gadget_tests() {
    let n = run_all("r1cs", 77, check_gadget_file);
    eprintln!("{n} gadget tests");
}

#[test]
fn interpreter_tests() {
    let n = run_all("interp", 17, check_interp_file);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interp");
    let n_cases: usize = files("interp", 17)
        .iter()
        .map(|f| cases(&std::fs::read_to_string(f).unwrap()).len())
        .sum();
    assert!(n_cases >= 30, "{} states {n_cases} cases", dir.display());
    eprintln!("{n} interpreter tests, {n_cases} cases");
}

#[test]
fn interpreter_example_program() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ir/sum_loop.ir");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(run_interp_file(&path, &text) > 0);
}
