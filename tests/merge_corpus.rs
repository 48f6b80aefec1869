//! Block merging on the corpus: merging changes no output, every merged block's instance is
//! satisfied by the witness from the trace (cost-driven, by the threshold rule at
//! MIN_BLOCK_SIZE 1024 and 32768, and `--monolithic` where the program has one), programs with
//! runtime loop bounds give the clear `--monolithic` error, and the cost table is a snapshot,
//! `tests/snapshots/merge_costs.txt` (`UPDATE_EXPECT=1`): sumcheck cells of every formation,
//! beside the cells before cost-driven formation (`tests/snapshots/merge_costs_before.tsv`).
//! The default never costs more cells than `--no-merge`, `--monolithic` or either threshold,
//! and the corpus total is at most half of the best of the old modes.

use crate::common;
use common::{corpus, read_json};

use std::collections::HashMap;
use std::path::Path;
use zkbc::cost::{BlockCost, ProgramCost, Totals};
use zkbc::driver;
use zkbc::ir::interp;
use zkbc::opt::merge::MergePolicy;
use zkbc::opt::OptLevel;
use zkbc::r1cs;

/// The corpus programs whose loop bounds are runtime values: no monolithic circuit exists.
const RUNTIME_BOUNDS: &[&str] = &[
    "cobbl_dna_align",
    "cobbl_find_min",
    "cobbl_kmp_search",
    "cobbl_mat_mult",
    "cobbl_poseidon",
    "cobbl_rle_codec",
    "cobbl_sha256",
    "cold_branch",
    "collatz",
    "gcd",
    "isqrt",
    "range_sum",
    "residual_elimination",
    "runtime_loop",
    "u64_wrap",
    "while_collatz",
];

fn stem(file: &Path) -> String {
    file.file_stem().unwrap().to_string_lossy().into_owned()
}

/// How a program is compiled for one column of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Config {
    /// The default: cost-driven, profiled on the program's inputs (as `zkbc report --inputs`).
    Default,
    NoMerge,
    /// `--merge-policy threshold --min-block-size N`.
    Threshold(u64),
    Monolithic,
}

impl Config {
    fn options(self, inputs: &serde_json::Value) -> driver::Options {
        let mut options = driver::Options {
            opt_level: OptLevel::O3,
            ..driver::Options::default()
        };
        options.opt.verify = true;
        match self {
            Config::Default => options.profile = Some(inputs.clone()),
            Config::NoMerge => options.opt.skip.push("merge".into()),
            Config::Threshold(min) => {
                options.opt.merge.policy = MergePolicy::Threshold;
                options.opt.merge.min_block_size = min;
            }
            Config::Monolithic => options.opt.merge.monolithic = true,
        }
        options
    }
}

/// What one compiled and checked program costs.
struct Checked {
    outputs: serde_json::Value,
    totals: Totals,
}

fn compile(file: &Path, config: Config) -> Result<driver::Compilation, String> {
    let text = std::fs::read_to_string(file).unwrap();
    let inputs = read_json(&file.with_extension("json"));
    driver::compile(&file.display().to_string(), &text, &config.options(&inputs))
        .map_err(|e| e.to_string())
}

/// Compiles, runs, checks every executed block, and computes the report's totals.
fn check(file: &Path, config: Config) -> Result<Checked, String> {
    let compiled = compile(file, config)?;
    let inputs = compiled.inputs_from_json(&read_json(&file.with_extension("json")))?;
    let outcome = interp::run(&compiled.program, &inputs, interp::Limits::default())
        .map_err(|e| e.to_string())?;
    r1cs::check_trace(&compiled.program, &outcome).map_err(|e| e.to_string())?;
    let mut executions: HashMap<(zkbc::ir::FuncId, zkbc::ir::BlockId), u64> = HashMap::new();
    for entry in &outcome.trace {
        *executions.entry((entry.func, entry.block)).or_default() += 1;
    }
    let stats = r1cs::stats(&compiled.program).map_err(|e| e.to_string())?;
    let cost = ProgramCost {
        program: stem(file),
        opt_level: format!("{config:?}"),
        field_cmp: "complete".into(),
        min_block_size: match config {
            Config::Threshold(min) => min,
            _ => 1024,
        },
        memory_size: zkbc::cost::memory_sizes(&stats).0.read_write
            + zkbc::cost::memory_sizes(&stats).1,
        read_only_memory_size: zkbc::cost::memory_sizes(&stats).1,
        read_only_inits: zkbc::cost::memory_sizes(&stats).0.read_only_inits,
        blocks: stats
            .iter()
            .map(|s| BlockCost {
                label: s.block.to_string(),
                source: None,
                constraints: s.constraints as u64,
                witness_vars: s.witness_vars as u64,
                io_vars: s.state_vars as u64,
                accesses: s.accesses as u64,
                read_only_accesses: s.ro_accesses as u64,
                executions: Some(executions.get(&(s.func, s.block)).copied().unwrap_or(0)),
            })
            .collect(),
        outputs: None,
        satisfied: Some(true),
        monolithic_constraints: None,
        monolithic_none: None,
        baselines: None,
    };
    let report = cost.report().map_err(|e| e.to_string())?;
    Ok(Checked {
        outputs: compiled.outputs_to_json(&outcome.outputs),
        totals: report.totals,
    })
}

/// Outputs equal the expected ones and every block is satisfied, merged by cost, by the
/// threshold rule at both minimum block sizes and as one block; runtime loop bounds make
/// `--monolithic` fail with the clear error.
#[test]
fn merging_keeps_outputs_and_satisfies_every_block() {
    let mut failures = Vec::new();
    for file in corpus() {
        let name = stem(&file);
        let expected = read_json(&file.with_extension("expected.json"));
        for config in [
            Config::Default,
            Config::Threshold(1024),
            Config::Threshold(32768),
            Config::Monolithic,
        ] {
            let runtime = RUNTIME_BOUNDS.contains(&name.as_str());
            match (check(&file, config), config, runtime) {
                (Err(e), Config::Monolithic, true) => {
                    if !(e.contains("the loop at b") && e.contains("not a compile-time constant")) {
                        failures.push(format!("{name} {config:?}: unclear error: {e}"));
                    }
                }
                (Ok(_), Config::Monolithic, true) => failures.push(format!(
                    "{name}: --monolithic accepted a runtime loop bound"
                )),
                (Ok(c), _, _) if c.outputs != expected => failures.push(format!(
                    "{name} {config:?}: got {}, expected {expected}",
                    c.outputs
                )),
                (Ok(c), Config::Monolithic, false) if c.totals.blocks != 1 => failures.push(
                    format!("{name}: --monolithic left {} blocks", c.totals.blocks),
                ),
                (Ok(_), _, _) => {}
                (Err(e), _, _) => failures.push(format!("{name} {config:?}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The sumcheck cells before cost-driven formation: program to (O3, no merge, monolithic,
/// min 32768), `None` where there was no one-block circuit.
fn before() -> HashMap<String, [Option<u128>; 4]> {
    let text = include_str!("snapshots/merge_costs_before.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("program\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let n = |k: usize| f.get(k).and_then(|x| x.parse().ok());
            (f[0].to_string(), [n(1), n(2), n(3), n(4)])
        })
        .collect()
}

fn cells(c: &Result<Checked, String>) -> Option<u128> {
    c.as_ref().ok().and_then(|c| c.totals.sumcheck_cells)
}

fn column(x: Option<u128>) -> String {
    x.map_or("-".into(), |c| c.to_string())
}

/// The cost table and the promise of cost-driven formation: on every program the default
/// costs no more cells than `--no-merge`, `--monolithic` (where it exists) and the threshold
/// rule at 1024 and 32768 (what `--min-block-size 32768` merged); it has fewer cells than
/// `--no-merge` where merging pays; the corpus total is at most half of the total of the best
/// old mode per program.
#[test]
fn merge_cost_table() {
    const IMPROVED: &[&str] = &[
        "bubble_sort",
        "cobbl_dna_align",
        "cobbl_kmp_search",
        "cobbl_mat_mult",
        "cold_branch",
        "collatz",
        "conditionals",
        "consts",
        "counted_loop_10k",
        "early_return",
        "else_if",
        "find_min",
        "matmul",
        "matmul_4x4",
        "merkle",
        "mimc",
        "nested_loops",
        "popcount",
        "square_multiply",
        "sudoku_check",
        "u32_wrap",
        "while_collatz",
    ];
    let before = before();
    let mut table = String::from(
        "program               before   default  no-merge  monolithic  threshold-1024  threshold-32768\n",
    );
    let mut failures = Vec::new();
    let (mut total_before_best, mut total_default) = (0u128, 0u128);
    for file in corpus() {
        let name = stem(&file);
        let [default, none, mono, t1024, t32768] = [
            Config::Default,
            Config::NoMerge,
            Config::Monolithic,
            Config::Threshold(1024),
            Config::Threshold(32768),
        ]
        .map(|c| cells(&check(&file, c)));
        let old = before.get(&name).copied().unwrap_or([None; 4]);
        table.push_str(&format!(
            "{name:<20} {:>8} {:>9} {:>9} {:>11} {:>15} {:>16}\n",
            column(old[0]),
            column(default),
            column(none),
            column(mono),
            column(t1024),
            column(t32768)
        ));
        let Some(d) = default else {
            failures.push(format!("{name}: the default does not check"));
            continue;
        };
        for (what, other) in [
            ("--no-merge", none),
            ("--monolithic", mono),
            ("the threshold rule at 1024", t1024),
            ("the threshold rule at 32768", t32768),
        ] {
            if other.is_some_and(|o| d > o) {
                failures.push(format!(
                    "{name}: the default costs {d} cells, {what} {other:?}"
                ));
            }
        }
        if IMPROVED.contains(&name.as_str()) && none.is_some_and(|n| d >= n) {
            failures.push(format!("{name}: merging did not lower the cells"));
        }
        match old.iter().flatten().min() {
            Some(best) => total_before_best += best,
            None => failures.push(format!("{name}: no cells before (a new program?)")),
        }
        total_default += d;
    }
    table.push_str(&format!(
        "\ntotal default {total_default}, best of the old modes {total_before_best}\n"
    ));
    expect_test::expect_file!["snapshots/merge_costs.txt"].assert_eq(&table);
    assert!(
        2 * total_default <= total_before_best,
        "total {total_default} cells is more than half of {total_before_best}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// docs/merging.md's table is the snapshot's: same programs, same numbers in every column; the
/// page and the README state the snapshot's corpus total.
#[test]
fn the_docs_table_is_the_snapshot() {
    let read = |path: &str| {
        std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
            .unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let (readme, page) = (read("README.md"), read("docs/merging.md"));
    let snapshot = include_str!("snapshots/merge_costs.txt");
    let cell = |s: &str| -> String {
        match s.trim().trim_matches('*').replace(',', "") {
            x if x.is_empty() => "-".into(),
            x => x,
        }
    };
    let start = page
        .find("| program | before | default |")
        .expect("docs/merging.md has the merging table");
    let from_page: Vec<Vec<String>> = page[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split('|').map(cell).collect())
        .collect();
    let from_snapshot: Vec<Vec<String>> = snapshot
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect();
    assert_eq!(
        from_page, from_snapshot,
        "docs/merging.md's table differs from tests/snapshots/merge_costs.txt"
    );
    let total = snapshot
        .lines()
        .find_map(|l| l.strip_prefix("total default "))
        .and_then(|l| l.split(',').next())
        .and_then(|n| n.parse::<u128>().ok())
        .expect("the snapshot has a total");
    let total = zkbc::cost::group_digits(total);
    assert!(
        page.contains(&format!("Over the corpus it costs {total} cells")),
        "docs/merging.md's corpus total is not the snapshot's {total}"
    );
    assert!(
        readme.contains(&format!(
            "({} programs, each run on its inputs) the default costs {total} cells",
            from_snapshot.len()
        )),
        "README's corpus total or program count is not the snapshot's {total}"
    );
}
