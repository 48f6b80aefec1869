//! The flags every command spells the same way, as a user runs them: `-o/--output` (and
//! export's former `--out`), `-q/--quiet`, `--log`, `--show` implying `--emit dot`; and the
//! machine-readable output of `check`, `prove` and `table` (`--format json`), compared with
//! the numbers their text shows. (`src/main.rs`'s unit tests walk clap's command tree.)

use crate::common;
use common::{stderr, stdout, zkbc};
use serde_json::Value;
use std::path::{Path, PathBuf};

use std::process::Output;

fn json(out: &Output) -> Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(out)))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("writes");
    path
}

const GCD: [&str; 3] = ["circuits/gcd.zok", "--inputs", "circuits/gcd.json"];

fn with<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(tail).copied().collect()
}

#[test]
fn check_as_json_holds_the_numbers_of_the_text() {
    let text = zkbc(&with(&["check"], &GCD));
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let out = zkbc(&with(&["check"], &with(&GCD, &["--format", "json"])));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let blocks = report["blocks"].as_array().expect("blocks");
    let text = stdout(&text);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(blocks.len() + 1, lines.len(), "{text}");
    for (b, line) in blocks.iter().zip(&lines) {
        let expected = format!(
            "fn {} {}: {} constraints, satisfied in {} execution(s)",
            b["function"].as_str().expect("function"),
            b["block"].as_str().expect("block"),
            b["constraints"],
            b["executions"]
        );
        assert_eq!(*line, expected);
        assert_eq!(b["satisfied"], true);
    }
    let executions = report["totals"]["executions"].as_u64().expect("executions");
    assert_eq!(
        lines.last().copied(),
        Some(format!("circuits/gcd.zok: all {executions} block executions satisfied").as_str())
    );
    let sum: u64 = blocks
        .iter()
        .map(|b| b["executions"].as_u64().expect("n"))
        .sum();
    assert_eq!(sum, executions);
    assert_eq!(report["totals"]["blocks"], blocks.len());
    assert_eq!(report["totals"]["satisfied"], true);
    assert_eq!(report["soundness"], Value::Null);

    let sound = zkbc(&with(
        &["check"],
        &with(&GCD, &["--format", "json", "--soundness"]),
    ));
    assert_eq!(sound.status.code(), Some(0), "{}", stderr(&sound));
    let sound = json(&sound);
    assert_eq!(sound["soundness"]["findings"], serde_json::json!([]));
    assert!(sound["soundness"]["outputs_tried"].as_u64().expect("tried") > 0);
}

#[test]
fn prove_as_json_holds_the_numbers_of_the_text() {
    let text = zkbc(&with(&["prove"], &GCD));
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let out = zkbc(&with(&["prove"], &with(&GCD, &["--format", "json"])));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let proof = json(&out);
    assert_eq!(proof["verified"], true);
    assert_eq!(proof["rejected"], Value::Null);
    let text = stdout(&text);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("total:"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    let blocks = proof["blocks"].as_array().expect("blocks");
    assert_eq!(rows.len(), blocks.len(), "{text}");
    let mut cells = 0;
    for (row, b) in rows.iter().zip(blocks) {
        // Everything but the two measured times is the same number in both forms.
        let fields = [
            "constraints",
            "executions",
            "padded_executions",
            "padded_constraints",
            "cells",
        ];
        assert_eq!(row[0], b["block"].as_str().expect("block"));
        for (i, field) in fields.iter().enumerate() {
            assert_eq!(row[i + 1], b[field].to_string(), "{field} in {text}");
        }
        assert!(b["prove_ms"].as_f64().expect("ms") >= 0.0);
        assert!(b["verify_ms"].as_f64().expect("ms") >= 0.0);
        cells += b["cells"].as_u64().expect("cells");
    }
    assert_eq!(proof["totals"]["cells"], cells);
    assert!(
        text.contains(&format!("total: {cells} sumcheck cells")),
        "{text}"
    );
    assert!(text.contains("circuits/gcd.zok: proof verified"), "{text}");
}

#[test]
fn table_as_json_is_an_array_of_reports() {
    let args = [
        "table",
        "circuits/gcd.zok",
        "circuits/mimc.zok",
        "--inputs-dir",
        "circuits",
        "-O",
        "1,2",
    ];
    let csv = zkbc(&with(&args, &["--format", "csv"]));
    assert_eq!(csv.status.code(), Some(0), "{}", stderr(&csv));
    let out = zkbc(&with(&args, &["--format", "json"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let reports = json(&out);
    let reports = reports.as_array().expect("an array");
    let csv = stdout(&csv);
    let lines: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(reports.len(), lines.len(), "{csv}");
    for (r, line) in reports.iter().zip(lines) {
        // The report's schema, and the numbers of the CSV row.
        assert_eq!(r["schema_version"], zkbc::cost::SCHEMA_VERSION);
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(r["program"].as_str(), Some(f[0]));
        assert_eq!(r["opt_level"].as_str(), Some(f[1]));
        assert_eq!(r["min_block_size"].to_string(), f[2]);
        assert_eq!(r["totals"]["constraints"].to_string(), f[4]);
        assert_eq!(r["totals"]["sumcheck_cells"].to_string(), f[7]);
        assert_eq!(r["satisfied"], true);
        assert!(r["blocks"].as_array().is_some_and(|b| !b.is_empty()));
    }
    // Each is the very report `zkbc report --format json` writes for that program.
    let one = zkbc(&[
        "report",
        "circuits/mimc.zok",
        "--inputs",
        "circuits/mimc.json",
        "-O2",
        "--format",
        "json",
    ]);
    let mut one = json(&one);
    // The table measures no baselines, and the times are the command's own.
    one["baselines"] = Value::Null;
    one.as_object_mut()
        .expect("an object")
        .remove("timings")
        .expect("report --format json records its timings");
    assert_eq!(reports[3], one);
}

#[test]
fn output_is_o_on_every_command_and_export_still_takes_out() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dir = dir.path();
    for (i, flag) in ["-o", "--output", "--out"].iter().enumerate() {
        let target = dir.join(format!("out{i}"));
        let target = target.to_str().expect("utf-8");
        let out = zkbc(&with(&["export"], &with(&GCD, &[flag, target])));
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", stderr(&out));
        assert!(Path::new(target).join("b0.r1cs").is_file(), "{flag}");
    }
    for cmd in ["report", "table"] {
        let file = dir.join(format!("{cmd}.txt"));
        let file = file.to_str().expect("utf-8");
        let out = zkbc(&[cmd, "circuits/mimc.zok", "-O", "2", "-o", file]);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{cmd}");
        assert!(std::fs::read_to_string(file).is_ok_and(|t| t.contains("mimc")));
    }
}

#[test]
fn quiet_leaves_the_result() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let target = dir.path().join("out");
    let target = target.to_str().expect("utf-8");
    // export's status lines go; the files are written.
    let loud = zkbc(&with(&["export"], &with(&GCD, &["-o", target])));
    assert!(stdout(&loud).contains("b0.r1cs"), "{}", stdout(&loud));
    let quiet = zkbc(&with(&["export"], &with(&GCD, &["-o", target, "-q"])));
    assert_eq!(quiet.status.code(), Some(0), "{}", stderr(&quiet));
    assert_eq!(stdout(&quiet), "");
    // On the others the result is the same with and without.
    for cmd in ["run", "compile", "check", "prove", "report"] {
        let loud = zkbc(&with(&[cmd], &GCD));
        let quiet = zkbc(&with(&[cmd], &with(&GCD, &["--quiet"])));
        assert_eq!(quiet.status.code(), Some(0), "{cmd}: {}", stderr(&quiet));
        if cmd != "prove" {
            assert_eq!(stdout(&loud), stdout(&quiet), "{cmd}");
        }
        assert_eq!(stderr(&quiet), "", "{cmd}");
    }
}

#[test]
fn log_prints_the_programs_lines_on_every_command_that_runs_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let prog = write(
        dir.path(),
        "logs.zok",
        "def main(field a) -> field {\n  log(\"a is {}\", a);\n  return a * a;\n}\n",
    );
    let prog = prog.to_str().expect("utf-8");
    let target = dir.path().join("out");
    let target = target.to_str().expect("utf-8");
    for cmd in ["run", "check", "report", "prove", "export"] {
        let mut args = vec![cmd, prog, "--log"];
        if cmd == "export" {
            args.extend(["-o", target]);
        }
        args.extend(["-a", "3"]);
        let out = zkbc(&args);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", stderr(&out));
        assert_eq!(stderr(&out), "a is \"3\"\n", "{cmd}");
        args.retain(|a| *a != "--log");
        let out = zkbc(&args);
        assert_eq!(stderr(&out), "", "{cmd}");
    }
}

/// `run --log` also prints the lines logged before the run failed: they are what a user reads
/// to find out why.
#[test]
fn run_log_prints_the_lines_before_a_failure() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let prog = write(
        dir.path(),
        "fails.zok",
        "def main(field a) -> field {\n  log(\"a is {}\", a);\n  assert(a == 2);\n  return a;\n}\n",
    );
    let prog = prog.to_str().expect("utf-8");
    let out = zkbc(&["run", prog, "--log", "-a", "3"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with("a is \"3\"\n"), "{err}");
    assert!(err.contains("fails.zok:3:"), "{err}");
    assert_eq!(stdout(&out), "");
}

#[test]
fn show_implies_emit_dot() {
    let out = zkbc(&["compile", "circuits/gcd.zok", "--show", "pdg"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let pdg = stdout(&out);
    assert!(pdg.starts_with("digraph"), "{pdg}");
    let explicit = zkbc(&[
        "compile",
        "circuits/gcd.zok",
        "--emit",
        "dot",
        "--show",
        "pdg",
    ]);
    assert_eq!(stdout(&explicit), pdg);
    let cfg = zkbc(&["compile", "circuits/gcd.zok", "--emit", "dot"]);
    assert_ne!(stdout(&cfg), pdg);
    let bad = zkbc(&[
        "compile",
        "circuits/gcd.zok",
        "--emit",
        "ir",
        "--show",
        "pdg",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        stderr(&bad),
        "error: --show draws a graph, which --emit ir does not print: use --emit dot, or --show \
         alone (it implies --emit dot)\n"
    );
}

#[test]
fn every_help_has_an_example() {
    for cmd in [
        "run",
        "check",
        "report",
        "profile",
        "setup",
        "prove",
        "verify-proof",
        "export",
        "compile",
        "table",
        "abi",
        "query",
        "opt",
        "interp",
        "verify",
    ] {
        let out = zkbc(&[cmd, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{cmd}");
        let help = stdout(&out);
        assert!(help.contains("Example"), "{cmd}: {help}");
        assert!(help.contains(&format!("  zkbc {cmd} ")), "{cmd}: {help}");
    }
    let help = stdout(&zkbc(&["--help"]));
    let listed: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        listed,
        [
            "run",
            "check",
            "report",
            "profile",
            "setup",
            "prove",
            "verify-proof",
            "export",
            "compile",
            "table",
            "abi",
            "query",
            "opt",
            "interp",
            "verify",
            "help"
        ],
        "{help}"
    );
}

/// Every example in every `--help` runs and succeeds (in a scratch directory that sees the
/// shipped programs; a pipe or redirection is left off). They run in command order, in one
/// directory: `setup`'s keys are what the Groth16 examples of `prove` and `verify-proof` read.
#[test]
fn every_example_runs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for shipped in ["circuits", "examples"] {
        std::os::unix::fs::symlink(root.join(shipped), dir.path().join(shipped)).expect("links");
    }
    let mut helps = vec![stdout(&zkbc(&["--help"]))];
    for cmd in [
        "run",
        "check",
        "report",
        "profile",
        "setup",
        "prove",
        "verify-proof",
        "export",
        "compile",
        "table",
        "abi",
        "query",
        "opt",
        "interp",
        "verify",
    ] {
        helps.push(stdout(&zkbc(&[cmd, "--help"])));
    }
    let mut ran = 0;
    for help in &helps {
        let examples = help
            .lines()
            .skip_while(|l| !l.starts_with("Example"))
            .filter_map(|l| l.strip_prefix("  zkbc "));
        for example in examples {
            let args: Vec<&str> = example
                .split(['|', '>'])
                .next()
                .expect("a command")
                .split_whitespace()
                .collect();
            let out = common::zkbc_in(dir.path(), &args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "zkbc {example}: {}",
                stderr(&out)
            );
            ran += 1;
        }
    }
    assert!(ran >= 2 * 10, "only {ran} examples");
}

/// Piped, the long-running commands (and `run`, `compile`, `table`) draw no progress bar: stderr holds no carriage return, no
/// escape sequence and no ETA, with and without `--quiet` (a bar is drawn only on a terminal).
#[test]
fn piped_output_has_no_progress_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let program = write(
        dir.path(),
        "loop.zok",
        "def main(private field x, u32 n) -> field {\n    field mut acc = x;\n    for u32 i in 0..n {\n        acc = acc * acc + x;\n    }\n    return acc;\n}\n",
    );
    let inputs = write(dir.path(), "loop.json", r#"{"x": "3", "n": 5000}"#);
    let (p, i) = (program.to_str().unwrap(), inputs.to_str().unwrap());
    let out_dir = dir.path().join("out");
    let o = out_dir.to_str().unwrap();
    for args in [
        vec!["check", p, "--inputs", i],
        vec!["report", p, "--inputs", i],
        vec!["prove", p, "--inputs", i],
        vec!["export", p, "--inputs", i, "-o", o],
        vec!["run", p, "--inputs", i],
        vec!["compile", p, "--inputs", i],
        vec!["table", p, "-O", "3"],
    ] {
        for quiet in [false, true] {
            let args = if quiet {
                with(&args, &["-q"])
            } else {
                args.clone()
            };
            let out = zkbc(&args);
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
            let err = &out.stderr;
            assert!(
                !err.contains(&b'\r') && !err.contains(&0x1b) && !stderr(&out).contains("ETA"),
                "{args:?}: progress bytes on a pipe: {:?}",
                stderr(&out)
            );
        }
    }
}

/// `--stats` on every command that compiles: one line on stderr with the wall time and the
/// peak memory, after everything else, and nothing on stdout that the command did not print.
#[test]
fn every_compiling_command_reports_its_time_and_peak_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("export");
    let out_dir = out_dir.to_str().expect("utf-8 path");
    let commands: Vec<Vec<&str>> = vec![
        with(&["run"], &GCD),
        with(&["check"], &GCD),
        with(&["report"], &GCD),
        with(&["prove"], &GCD),
        with(&["export"], &with(&GCD, &["-o", out_dir])),
        vec!["compile", "circuits/gcd.zok"],
        vec!["table", "circuits/gcd.zok", "-O", "3", "--quiet"],
    ];
    for args in commands {
        let plain = zkbc(&args);
        let measured = zkbc(&with(&args, &["--stats"]));
        assert_eq!(
            measured.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&measured)
        );
        // (`prove` prints the times it measured, which differ from run to run.)
        if args[0] != "prove" {
            assert_eq!(
                stdout(&plain),
                stdout(&measured),
                "{args:?}: --stats changed stdout"
            );
        }
        let err = stderr(&measured);
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("stats: wall time ") && last.ends_with("(max RSS)"),
            "{args:?}: no stats line at the end of stderr:\n{err}"
        );
        let peak: f64 = last
            .split("peak memory ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{args:?}: no peak figure in {last:?}"));
        assert!(peak > 0.0, "{args:?}: {last}");
    }
}
