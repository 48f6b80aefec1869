//! `zkbc profile` as a user runs it: every metric's parts sum to `zkbc report`'s totals, the
//! line that costs the most is on top (inlined and unrolled copies keep their line), each
//! output form is what its readers expect, and mistakes are clear messages, not panics.

use crate::common;
use common::{stderr, stdout, zkbc};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn run_ok(args: &[&str]) -> String {
    let out = zkbc(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&run_ok(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn number(v: &Value) -> Option<u128> {
    v.as_u64().map(u128::from).or_else(|| {
        // Numbers past u64 (none in these programs) would print as such.
        v.to_string().parse().ok()
    })
}

/// The three metrics as `(profile name, report total)`.
const METRICS: [(&str, &str); 3] = [
    ("constraints", "constraints"),
    ("executed", "executed_constraints"),
    ("cells", "sumcheck_cells"),
];

/// Sums a JSON list's entries of `field`.
fn sum(list: &Value, field: &str) -> u128 {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|e| number(&e[field]).unwrap_or_else(|| panic!("{field} of {e}")))
        .sum()
}

/// `stack count` lines: each count a positive integer, each stack non-empty frames.
fn parse_folded(text: &str) -> Vec<(Vec<String>, u128)> {
    text.lines()
        .map(|line| {
            let (stack, count) = line
                .rsplit_once(' ')
                .unwrap_or_else(|| panic!("no count: {line:?}"));
            let count: u128 = count.parse().unwrap_or_else(|e| panic!("{line:?}: {e}"));
            assert!(count > 0, "{line:?}");
            let frames: Vec<String> = stack.split(';').map(String::from).collect();
            assert!(frames.iter().all(|f| !f.is_empty()), "{line:?}");
            (frames, count)
        })
        .collect()
}

#[test]
fn every_metric_sums_to_the_reports_total() {
    let programs: [(&str, &[&str]); 5] = [
        ("gcd", &[]),
        ("functions", &[]),
        ("merkle", &[]),
        ("bubble_sort", &[]),
        ("merkle", &["--monolithic"]),
    ];
    for (name, flags) in programs {
        let zok = format!("circuits/{name}.zok");
        let inputs = format!("circuits/{name}.json");
        let mut args = vec![
            zok.as_str(),
            "--inputs",
            inputs.as_str(),
            "--format",
            "json",
        ];
        args.extend_from_slice(flags);
        let report = json(&[&["report"], &args[..]].concat());
        let profile = json(&[&["profile"], &args[..]].concat());
        assert_eq!(profile["schema"], "zkbc-profile");
        assert_eq!(profile["schema_version"], 1);
        for (metric, total) in METRICS {
            let want = number(&report["totals"][total]).expect("the report's total");
            let what = format!("{name} {flags:?} {metric}");
            assert_eq!(number(&profile["totals"][total]), Some(want), "{what}");
            let parts = sum(&profile["lines"], total) + sum(&profile["pseudo"], total);
            assert_eq!(parts, want, "{what}: lines and pseudo-frames");
            assert_eq!(sum(&profile["stacks"], total), want, "{what}: stacks");
            let mut folded_args = vec!["profile", "--format", "folded", "--metric", metric];
            folded_args.extend_from_slice(&args[..3]);
            folded_args.extend_from_slice(flags);
            let folded = parse_folded(&run_ok(&folded_args));
            let sum: u128 = folded.iter().map(|(_, n)| n).sum();
            assert_eq!(sum, want, "{what}: folded");
        }
        // Every line named exists in its file.
        let files: Vec<String> = profile["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| f.as_str().expect("a name").to_string())
            .collect();
        for line in profile["lines"].as_array().expect("lines") {
            let file = &files[line["file"].as_u64().expect("file") as usize];
            let Ok(text) = std::fs::read_to_string(file) else {
                continue; // a module of the built-in library
            };
            let n = line["line"].as_u64().expect("line") as usize;
            assert!(
                n >= 1 && n <= text.lines().count(),
                "{file}:{n} is not a line of the file"
            );
        }
    }
}

/// One line (in a function inlined into a loop) does nearly all the work.
const HOT: &str = "def mix(u32 x) -> u32 {
    return (x ^ (x >> 3)) + ((x << 5) & (x >> 7));
}

def main(u32 x, field y) -> (u32, field) {
    u32 mut acc = x;
    for u32 i in 0..8 {
        acc = mix(acc);
    }
    return (acc, y + 1);
}
";

fn hot_program() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let zok = dir.path().join("hot.zok");
    std::fs::write(&zok, HOT).expect("writes");
    let inputs = dir.path().join("hot.json");
    std::fs::write(&inputs, r#"{"x": "12345", "y": "1"}"#).expect("writes");
    (dir, zok, inputs)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8")
}

#[test]
fn the_dominant_line_is_on_top_in_every_form_and_keeps_its_line_when_unrolled() {
    let (_dir, zok, inputs) = hot_program();
    for flags in [&[][..], &["--monolithic"][..]] {
        let base = [path(&zok), "--inputs", path(&inputs)];
        let with = |extra: &[&'static str]| -> Vec<String> {
            let mut a: Vec<String> = vec!["profile".into()];
            a.extend(base.iter().map(|s| s.to_string()));
            a.extend(flags.iter().map(|s| s.to_string()));
            a.extend(extra.iter().map(|s| s.to_string()));
            a
        };
        let run = |extra: &[&'static str]| {
            let a = with(extra);
            run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>())
        };
        // annotate: the first of the hottest lines is line 2, marked in the listing.
        let text = run(&[]);
        let hottest = text
            .lines()
            .skip_while(|l| !l.starts_with("hottest lines:"))
            .nth(1)
            .unwrap_or_else(|| panic!("{text}"));
        assert!(hottest.contains("hot.zok:2 "), "{flags:?}\n{text}");
        assert!(
            text.lines().any(|l| l.contains(">>   2 | ")
                || l.contains(">>  2 | ")
                || l.contains(">> 2 | ")),
            "{text}"
        );
        // folded: the largest stack is main;mix;hot.zok:2 (the inlined call is a frame).
        for metric in ["constraints", "executed", "cells"] {
            let folded = parse_folded(&run(&["--format", "folded", "--metric", metric]));
            let (top, _) = folded
                .iter()
                .max_by_key(|(_, n)| *n)
                .expect("a stack")
                .clone();
            assert_eq!(top, ["main", "mix", "hot.zok:2"], "{flags:?} {metric}");
            assert!(
                folded
                    .iter()
                    .all(|(s, _)| !s.contains(&"[no location]".to_string())),
                "{folded:?}"
            );
        }
        // json: line 2's constraints are most of the program's, in the loop's 8 copies too.
        let profile: Value = serde_json::from_str(&run(&["--format", "json"])).expect("JSON");
        let line2 = profile["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .find(|l| l["file"] == 0 && l["line"] == 2)
            .expect("line 2 costs")
            .clone();
        let total = number(&profile["totals"]["constraints"]).expect("total");
        let mine = number(&line2["constraints"]).expect("line 2");
        assert!(2 * mine > total, "{flags:?}: line 2 has {mine} of {total}");
        // Executed: eight calls of `mix` per run.
        let executed = number(&line2["executed_constraints"]).expect("executed");
        assert!(executed >= 8 * 32, "{flags:?}: {executed}");
    }
}

#[test]
fn report_top_lists_the_lines_profile_ranks_first() {
    let (_dir, zok, inputs) = hot_program();
    let report = run_ok(&[
        "report",
        path(&zok),
        "--inputs",
        path(&inputs),
        "--top",
        "2",
        "-q",
    ]);
    let listed: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("the 2 source lines that cost the most sumcheck cells"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    // At most two: only the lines that cost something are listed.
    assert!(matches!(listed.len(), 1 | 2), "{report}");
    assert!(listed[0].contains("hot.zok:2 "), "{report}");
    // The same first line and cost as `zkbc profile --metric cells`.
    let profile = run_ok(&[
        "profile",
        path(&zok),
        "--inputs",
        path(&inputs),
        "--metric",
        "cells",
    ]);
    let first = profile
        .lines()
        .skip_while(|l| !l.starts_with("hottest lines:"))
        .nth(1)
        .unwrap_or_else(|| panic!("{profile}"));
    assert_eq!(listed[0], first, "{report}\n{profile}");
    // Without inputs, constraints; with another format, a clear error.
    let stat = run_ok(&["report", path(&zok), "--top", "1", "-q"]);
    assert!(
        stat.contains("the 1 source lines that cost the most constraints"),
        "{stat}"
    );
    let out = zkbc(&["report", path(&zok), "--top", "1", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--top works with --format table"));
}

#[test]
fn the_flame_graph_is_an_svg_whose_frames_are_the_stacks() {
    let (dir, zok, inputs) = hot_program();
    let svg = dir.path().join("hot.svg");
    let out = zkbc(&[
        "profile",
        path(&zok),
        "--inputs",
        path(&inputs),
        "--metric",
        "cells",
        "--format",
        "svg",
        "-o",
        path(&svg),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "the graph went to the file");
    let text = std::fs::read_to_string(&svg).expect("written");
    assert!(text.contains("<svg"), "{}", &text[..text.len().min(300)]);
    assert!(text.trim_end().ends_with("</svg>"));
    for frame in ["main", "mix", "hot.zok:2", "[padding]"] {
        assert!(text.contains(frame), "no frame {frame}");
    }
    // hot.zok's lines in the first file colour, the pseudo-frames grey (docs/profile.md).
    assert!(text.contains("fill=\"rgb(230,120,50)\""), "no file colour");
    assert!(
        text.contains("fill=\"rgb(170,170,170)\""),
        "no grey pseudo-frame"
    );
    // The widest leaf frame of the graph (`<title>NAME (N sumcheck_cells, P%)</title>`) is the
    // folded output's largest stack, with its count.
    let frames: Vec<(String, u128)> = text
        .split("<title>")
        .skip(1)
        .filter_map(|t| {
            let t = &t[..t.find("</title>")?];
            let (name, rest) = t.rsplit_once(" (")?;
            let n = rest.split(' ').next()?.replace(',', "").parse().ok()?;
            Some((name.to_string(), n))
        })
        .collect();
    let folded = parse_folded(&run_ok(&[
        "profile",
        path(&zok),
        "--inputs",
        path(&inputs),
        "--metric",
        "cells",
        "--format",
        "folded",
    ]));
    let (stack, count) = folded.iter().max_by_key(|(_, n)| *n).expect("a stack");
    let leaf = stack.last().expect("a frame");
    let widest_leaf = frames
        .iter()
        .filter(|(name, _)| folded.iter().any(|(s, _)| s.last() == Some(name)))
        .max_by_key(|(_, n)| *n)
        .expect("leaf frames in the SVG");
    assert_eq!(widest_leaf, &(leaf.clone(), *count), "{frames:?}");
    // And it renders (librsvg, where installed: `.ci/run` installs it).
    let have = std::process::Command::new("rsvg-convert")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    if have {
        let png = dir.path().join("hot.png");
        let out = std::process::Command::new("rsvg-convert")
            .args(["-f", "png", "-o", path(&png), path(&svg)])
            .output()
            .expect("rsvg-convert runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&png).expect("the PNG");
        assert!(bytes.starts_with(b"\x89PNG"), "rsvg-convert made no PNG");
    } else {
        println!("skipped rendering the flame graph: rsvg-convert is not installed");
    }
}

/// IR text has locations only on instructions that can fail: the others are `[no location]`,
/// and the annotated listing shows the file's own lines.
#[test]
fn ir_text_is_profiled_with_its_own_lines() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ir = dir.path().join("div.ir");
    let text = "fn main f0 -> field {
b0(v0: field, v1: field):
    v2 = div v0, v1 @3:5
    v3 = mul v2, v2
    return v3
}
";
    std::fs::write(&ir, text).expect("writes");
    let inputs = dir.path().join("div.json");
    std::fs::write(&inputs, r#"["6", "3"]"#).expect("writes");
    let listing = run_ok(&["profile", path(&ir), "--inputs", path(&inputs), "-q"]);
    assert!(listing.contains("div.ir:3"), "{listing}");
    assert!(listing.contains("| b0(v0: field, v1: field):"), "{listing}");
    assert!(listing.contains("[no location]"), "{listing}");
}

#[test]
fn mistakes_are_messages_not_panics() {
    let missing = zkbc(&["profile", "circuits/no_such_program.zok"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("cannot read circuits/no_such_program.zok"),
        "{}",
        stderr(&missing)
    );
    let bad_metric = zkbc(&["profile", "circuits/gcd.zok", "--metric", "bogus"]);
    assert_eq!(bad_metric.status.code(), Some(2));
    assert!(
        stderr(&bad_metric).contains("invalid value 'bogus' for '--metric"),
        "{}",
        stderr(&bad_metric)
    );
    let bad_format = zkbc(&["profile", "circuits/gcd.zok", "--format", "pdf"]);
    assert_eq!(bad_format.status.code(), Some(2));
    assert!(stderr(&bad_format).contains("[possible values: annotate, folded, svg, json]"));
    // gcd's loop runs a number of times only its inputs say.
    let unknown = zkbc(&["profile", "circuits/gcd.zok", "--metric", "executed"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", stderr(&unknown));
    assert!(
        stderr(&unknown).contains("pass --inputs"),
        "{}",
        stderr(&unknown)
    );
    let bad_inputs = zkbc(&[
        "profile",
        "circuits/gcd.zok",
        "--inputs",
        "circuits/mimc.json",
    ]);
    assert_eq!(bad_inputs.status.code(), Some(2), "{}", stderr(&bad_inputs));
    assert!(
        stderr(&bad_inputs).contains("circuits/mimc.json: main has no parameter"),
        "{}",
        stderr(&bad_inputs)
    );
    for out in [missing, bad_metric, bad_format, unknown, bad_inputs] {
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}
