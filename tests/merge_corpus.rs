//! Block merging on the corpus: merging changes no output, every merged block's instance is
//! satisfied by the witness from the trace (at MIN_BLOCK_SIZE 1024 and 32768, and
//! `--monolithic` where the program has one), programs with runtime loop bounds give the clear
//! `--monolithic` error, and the cost table (blocks, transition states, sumcheck cells with and
//! without merging) is a snapshot, `tests/snapshots/merge_costs.txt` (`UPDATE_EXPECT=1`).

mod common;
use common::{corpus, read_json};

use std::collections::HashMap;
use std::path::Path;
use zkbc::cost::{BlockCost, ProgramCost, Totals};
use zkbc::driver;
use zkbc::ir::interp;
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
#[derive(Clone, Copy, Debug)]
enum Config {
    NoMerge,
    Merge(u64),
    Monolithic,
}

impl Config {
    fn options(self) -> driver::Options {
        let mut options = driver::Options {
            opt_level: OptLevel::O3,
            ..driver::Options::default()
        };
        options.opt.verify = true;
        match self {
            Config::NoMerge => options.opt.skip.push("merge".into()),
            Config::Merge(min) => options.opt.merge.min_block_size = min,
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
    driver::compile(&file.display().to_string(), &text, &config.options())
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
        min_block_size: match config {
            Config::Merge(min) => min,
            _ => 1024,
        },
        blocks: stats
            .iter()
            .map(|s| BlockCost {
                label: s.block.to_string(),
                constraints: s.constraints as u64,
                witness_vars: s.witness_vars as u64,
                io_vars: s.instance_vars as u64,
                executions: Some(executions.get(&(s.func, s.block)).copied().unwrap_or(0)),
            })
            .collect(),
        outputs: None,
        satisfied: Some(true),
        monolithic_constraints: None,
    };
    let report = cost.report().map_err(|e| e.to_string())?;
    Ok(Checked {
        outputs: compiled.outputs_to_json(&outcome.outputs),
        totals: report.totals,
    })
}

/// Outputs equal the expected ones and every block is satisfied, merged at both minimum block
/// sizes and as one block; runtime loop bounds make `--monolithic` fail with the clear error.
#[test]
fn merging_keeps_outputs_and_satisfies_every_block() {
    let mut failures = Vec::new();
    for file in corpus() {
        let name = stem(&file);
        let expected = read_json(&file.with_extension("expected.json"));
        for config in [
            Config::Merge(1024),
            Config::Merge(32768),
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

fn fmt_totals(t: &Totals) -> String {
    format!(
        "{:>3} {:>6} {:>8}",
        t.blocks,
        t.transitions.unwrap_or(0),
        t.sumcheck_cells.unwrap_or(0)
    )
}

/// The cost table, and merging pays off where it should: on the programs with small branches
/// and counted inner loops, merged at MIN_BLOCK_SIZE 1024 has fewer sumcheck cells or fewer
/// transition states than unmerged.
#[test]
fn merge_cost_table() {
    const IMPROVED: &[&str] = &[
        "bubble_sort",
        "conditionals",
        "consts",
        "else_if",
        "find_min",
        "merkle",
        "mimc",
        "nested_loops",
        "u32_wrap",
        "while_collatz",
    ];
    let mut table = String::from(
        "program          | no merge: blocks trans cells | min 1024: blocks trans cells | min 32768: blocks trans cells\n",
    );
    let mut failures = Vec::new();
    for file in corpus() {
        let name = stem(&file);
        let run = |config| check(&file, config).map(|c| c.totals);
        let (Ok(none), Ok(small), Ok(large)) = (
            run(Config::NoMerge),
            run(Config::Merge(1024)),
            run(Config::Merge(32768)),
        ) else {
            failures.push(format!("{name}: does not check"));
            continue;
        };
        table.push_str(&format!(
            "{name:<16} | {:>27} | {:>27} | {:>28}\n",
            fmt_totals(&none),
            fmt_totals(&small),
            fmt_totals(&large)
        ));
        let better =
            small.sumcheck_cells < none.sumcheck_cells || small.transitions < none.transitions;
        if IMPROVED.contains(&name.as_str()) && !better {
            failures.push(format!(
                "{name}: merging did not lower cells or transitions"
            ));
        }
        if small.transitions > none.transitions || large.transitions > small.transitions {
            failures.push(format!("{name}: merging added transition states"));
        }
    }
    expect_test::expect_file!["snapshots/merge_costs.txt"].assert_eq(&table);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
