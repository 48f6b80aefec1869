//! `zkbc profile`'s attribution over the whole corpus (issue 36): for every program with its
//! inputs, at the default pipeline and `--monolithic` where a one-block circuit exists, each
//! metric's lines and pseudo-frames, and its stacks, sum exactly to the report's totals, and
//! every line named exists in its file. The CLI test (`profile_cli.rs`) covers the output
//! forms on a few programs; this one covers the programs, through the library.

use crate::common;

use zkbc::report::measure::profile::profile;
use zkbc::report::measure::{Merging, Settings};
use zkbc::report::profile::{build, Costs, Profile};

/// The three metrics of a cost, as the report's totals name them.
fn metrics(c: &Costs) -> [(&'static str, Option<u128>); 3] {
    [
        ("constraints", Some(c.constraints)),
        ("executed_constraints", c.executed_constraints),
        ("sumcheck_cells", c.sumcheck_cells),
    ]
}

/// Sums each metric over `costs` (`None` where any part lacks it).
fn sums<'a>(costs: impl Iterator<Item = &'a Costs>) -> [Option<u128>; 3] {
    let mut out = [Some(0u128); 3];
    for c in costs {
        for (k, (_, v)) in metrics(c).into_iter().enumerate() {
            out[k] = out[k].zip(v).map(|(a, b)| a + b);
        }
    }
    out
}

fn check(name: &str, profile: &Profile, report_totals: [Option<u128>; 3]) {
    let lines = sums(
        profile
            .lines
            .iter()
            .map(|l| &l.costs)
            .chain(profile.pseudo.iter().map(|p| &p.costs)),
    );
    let stacks = sums(profile.stacks.iter().map(|s| &s.costs));
    let totals: Vec<Option<u128>> = metrics(&profile.totals).iter().map(|m| m.1).collect();
    for k in 0..3 {
        let metric = ["constraints", "executed_constraints", "sumcheck_cells"][k];
        let want = report_totals[k];
        assert!(want.is_some(), "{name}: the report has no {metric}");
        assert_eq!(totals[k], want, "{name}: the profile's total {metric}");
        assert_eq!(
            lines[k], want,
            "{name}: {metric} over lines and pseudo-frames"
        );
        assert_eq!(stacks[k], want, "{name}: {metric} over stacks");
    }
    for l in &profile.lines {
        let file = &profile.files[l.file as usize];
        let Ok(text) = std::fs::read_to_string(file) else {
            continue; // a module of the built-in library
        };
        assert!(
            l.line >= 1 && l.line as usize <= text.lines().count(),
            "{name}: {file}:{} is not a line of the file",
            l.line
        );
    }
}

#[test]
fn every_corpus_profile_sums_to_its_report() {
    let mut checked = 0;
    for zok in common::corpus() {
        let inputs_path = zok.with_extension("json");
        if !inputs_path.exists() {
            continue;
        }
        let inputs = common::read_json(&inputs_path);
        let source = std::fs::read_to_string(&zok).expect("reads");
        let file = zok.display().to_string();
        for merging in [Merging::Default, Merging::Monolithic] {
            let settings = Settings {
                merging,
                ..Settings::default()
            };
            let profiled = match profile(&file, &source, Some(&inputs), &settings, &|_| {}) {
                Ok(p) => p,
                // A runtime loop bound has no one-block circuit: nothing to profile there.
                Err(_) if merging == Merging::Monolithic => continue,
                Err(e) => panic!("{file}: {e}"),
            };
            let report = &profiled.measurement.report;
            let p = build(
                &profiled.measurement.compilation.program,
                &profiled.blocks,
                report,
                &file,
            );
            let t = &report.totals;
            let want = [
                Some(t.constraints),
                t.executed_constraints,
                t.sumcheck_cells,
            ];
            check(&format!("{file} {merging:?}"), &p, want);
            checked += 1;
        }
    }
    eprintln!("{checked} corpus runs profiled");
    assert!(checked >= 40, "only {checked} corpus runs profiled");
}

/// `.cases.json` files under `dir`, recursively, sorted.
fn case_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            case_files(&p, out);
        } else if p.to_string_lossy().ends_with(".cases.json") {
            out.push(p);
        }
    }
}

#[test]
fn every_zokrates_suite_profile_sums_to_its_report() {
    let crate_root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(root) = crate_root
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates"))
        .find(|p| p.is_dir())
    else {
        eprintln!("skipped: the ZoKrates suite (../shared/peers/zokrates) is absent");
        return;
    };
    let mut cases = Vec::new();
    case_files(&root, &mut cases);
    cases.sort();
    let mut checked = 0;
    for case_file in cases {
        let spec = common::read_json(&case_file);
        // The first case ZoKrates runs to its end: its inputs give every block its executions.
        let Some(case) = spec["cases"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c.get("outputs").is_some()))
        else {
            continue;
        };
        let name = case_file.to_string_lossy().replace(".cases.json", ".zok");
        let source = std::fs::read_to_string(&name).expect("reads");
        let settings = Settings::default();
        let profiled = match profile(&name, &source, Some(&case["inputs"]), &settings, &|_| {}) {
            Ok(p) => p,
            Err(e) => {
                // Only where the report itself cannot measure the case (a program zkbc does
                // not support, listed in tests/zokrates_unsupported.md, or an intended
                // difference): the profile adds no failure of its own.
                let measured = zkbc::report::measure::measure(
                    &name,
                    &source,
                    Some(&case["inputs"]),
                    &settings,
                    &|_| {},
                );
                assert!(
                    measured.is_err(),
                    "{name}: profile fails ({e}) where report does not"
                );
                continue;
            }
        };
        let report = &profiled.measurement.report;
        let p = build(
            &profiled.measurement.compilation.program,
            &profiled.blocks,
            report,
            &name,
        );
        let t = &report.totals;
        check(
            &name,
            &p,
            [
                Some(t.constraints),
                t.executed_constraints,
                t.sumcheck_cells,
            ],
        );
        checked += 1;
    }
    eprintln!("{checked} suite programs profiled");
    assert!(checked >= 50, "only {checked} suite programs profiled");
}
