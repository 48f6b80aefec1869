//! The report's output forms: JSON schema, text table, SVG chart, DOT graph and the aggregate
//! tables, as snapshots (`UPDATE_EXPECT=1 cargo test --test all report_output::` refreshes them) and
//! through the external tools that read them where those are installed (`dot`, `rsvg-convert`).

use expect_test::expect;
use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};
use zkbc::ir::{parse_program, BlockId};
use zkbc::opt::merge::{Decision, Subject, Verdict};
use zkbc::report::{
    aggregate, dot, explain, svg, table, to_json, Baselines, BlockCost, ProgramCost, Report,
};

fn block(
    label: &str,
    constraints: u64,
    witness_vars: u64,
    io_vars: u64,
    executions: Option<u64>,
) -> BlockCost {
    BlockCost {
        label: label.to_string(),
        source: None,
        constraints,
        witness_vars,
        io_vars,
        accesses: 0,
        read_only_accesses: 0,
        executions,
    }
}

/// The loop of `examples/ir/sum_loop.ir` run with n = 5 (counts made up for the test).
fn sum_loop() -> Report {
    ProgramCost {
        program: "sum_loop".into(),
        opt_level: "O1".into(),
        field_cmp: "complete".into(),
        min_block_size: 1024,
        memory_size: 0,
        read_only_memory_size: 0,
        read_only_inits: 0,
        blocks: vec![
            block("b0", 3, 5, 4, Some(1)),
            block("b1", 5, 7, 6, Some(6)),
            block("b2", 2, 2, 6, Some(5)),
            block("b3", 0, 0, 3, Some(1)),
        ],
        outputs: Some(serde_json::json!(["35"])),
        satisfied: Some(true),
        monolithic_constraints: None,
        monolithic_none: Some("a loop bound is a run-time value".into()),
        baselines: Some(Baselines {
            no_merge_cells: Some(86),
            no_merge_none: None,
            monolithic_cells: None,
            monolithic_none: Some("a loop bound is a run-time value".into()),
        }),
    }
    .report()
    .expect("small counts")
}

/// A program with a wide spread of block sizes, a block that never ran and one large block.
fn spread() -> Report {
    ProgramCost {
        program: "spread".into(),
        opt_level: "O2".into(),
        field_cmp: "complete".into(),
        min_block_size: 1024,
        memory_size: 0,
        read_only_memory_size: 0,
        read_only_inits: 0,
        blocks: vec![
            block("b0", 40, 60, 8, Some(1)),
            block("b1", 1, 2, 8, Some(100)),
            block("b2", 700, 900, 8, Some(99)),
            block("b3", 3000, 3100, 8, Some(1)),
            block("b4", 17, 20, 8, Some(0)),
            block("b5", 0, 0, 8, Some(1)),
            block("b6", 129, 150, 8, Some(1)),
        ],
        outputs: Some(serde_json::json!(["1", "0"])),
        satisfied: Some(true),
        monolithic_constraints: Some(75_000),
        monolithic_none: None,
        baselines: Some(Baselines {
            no_merge_cells: Some(135_746),
            no_merge_none: None,
            monolithic_cells: Some(131_072),
            monolithic_none: None,
        }),
    }
    .report()
    .expect("small counts")
}

/// A static report: the loop's executions are unknown.
fn static_report() -> Report {
    ProgramCost {
        program: "sum_loop".into(),
        opt_level: "O1".into(),
        field_cmp: "complete".into(),
        min_block_size: 1024,
        memory_size: 0,
        read_only_memory_size: 0,
        read_only_inits: 0,
        blocks: vec![
            block("b0", 3, 5, 4, Some(1)),
            block("b1", 5, 7, 6, None),
            block("b2", 2, 2, 6, None),
            block("b3", 0, 0, 3, Some(1)),
        ],
        outputs: None,
        satisfied: None,
        monolithic_constraints: None,
        monolithic_none: Some("a loop bound is a run-time value".into()),
        baselines: Some(Baselines {
            no_merge_cells: None,
            no_merge_none: None,
            monolithic_cells: None,
            monolithic_none: Some("a loop bound is a run-time value".into()),
        }),
    }
    .report()
    .expect("small counts")
}

#[test]
fn json_schema_fields_in_order() {
    expect![[r#"
        {
          "schema_version": 2,
          "zkbc_version": "0.1.0",
          "program": "sum_loop",
          "opt_level": "O1",
          "field_cmp": "complete",
          "min_block_size": 1024,
          "threshold": 1024,
          "memory_size": 0,
          "read_only_memory_size": 0,
          "read_only_inits": 0,
          "outputs": [
            "35"
          ],
          "satisfied": true,
          "blocks": [
            {
              "label": "b0",
              "source": null,
              "constraints": 3,
              "witness_vars": 5,
              "io_vars": 4,
              "accesses": 0,
              "read_only_accesses": 0,
              "padded_constraints": 4,
              "executions": 1,
              "padded_executions": 1,
              "sumcheck_cells": 4
            },
            {
              "label": "b1",
              "source": null,
              "constraints": 5,
              "witness_vars": 7,
              "io_vars": 6,
              "accesses": 0,
              "read_only_accesses": 0,
              "padded_constraints": 8,
              "executions": 6,
              "padded_executions": 8,
              "sumcheck_cells": 64
            },
            {
              "label": "b2",
              "source": null,
              "constraints": 2,
              "witness_vars": 2,
              "io_vars": 6,
              "accesses": 0,
              "read_only_accesses": 0,
              "padded_constraints": 2,
              "executions": 5,
              "padded_executions": 8,
              "sumcheck_cells": 16
            },
            {
              "label": "b3",
              "source": null,
              "constraints": 0,
              "witness_vars": 0,
              "io_vars": 3,
              "accesses": 0,
              "read_only_accesses": 0,
              "padded_constraints": 2,
              "executions": 1,
              "padded_executions": 1,
              "sumcheck_cells": 2
            }
          ],
          "totals": {
            "blocks": 4,
            "constraints": 10,
            "executed_constraints": 43,
            "transitions": 13,
            "block_cells": 86,
            "state_words": 73,
            "transition_cells": 136,
            "memory_accesses": 0,
            "memory_entries": 0,
            "memory_constraints_per_entry": 0,
            "memory_constraints": 0,
            "memory_cells": 0,
            "read_only_accesses": 0,
            "read_only_entries": 0,
            "read_only_constraints": 0,
            "read_only_cells": 0,
            "sumcheck_cells": 222,
            "uniform_cells": 18432,
            "padding_waste": 0.4774774774774775,
            "rounds": 8,
            "monolithic_cells": null,
            "monolithic_exact": false,
            "monolithic_none": "a loop bound is a run-time value"
          },
          "baselines": {
            "no_merge_cells": 86,
            "no_merge_none": null,
            "monolithic_cells": null,
            "monolithic_none": "a loop bound is a run-time value"
          }
        }
    "#]]
    .assert_eq(&to_json(&sum_loop()));
}

#[test]
fn json_unknowns_are_null() {
    let value: serde_json::Value = serde_json::from_str(&to_json(&static_report())).expect("JSON");
    assert!(value["outputs"].is_null());
    assert!(value["satisfied"].is_null());
    assert!(value["blocks"][1]["executions"].is_null());
    assert!(value["blocks"][1]["padded_executions"].is_null());
    assert_eq!(value["blocks"][0]["executions"], 1);
    let totals = &value["totals"];
    assert_eq!(totals["constraints"], 10);
    for key in [
        "executed_constraints",
        "transitions",
        "sumcheck_cells",
        "uniform_cells",
        "padding_waste",
        "rounds",
        "monolithic_cells",
    ] {
        assert!(totals[key].is_null(), "{key} should be null: {totals}");
    }
    assert_eq!(totals["monolithic_exact"], false);
}

#[test]
fn table_reads_at_a_glance() {
    expect![[r#"
        spread  O2  min block size 1,024  threshold 4,096

        block  constraints  padded  witness  io  executions  padded exec    cells
        b0              40      64       60   8           1            1       64
        b1               1       2        2   8         100          128      256
        b2             700   1,024      900   8          99          128  131,072
        b3           3,000   4,096    3,100   8           1            1    4,096
        b4              17      32       20   8           0            0        0
        b5               0       2        0   8           1            1        2
        b6             129     256      150   8           1            1      256

        blocks                        7
        constraints               3,887
        executed constraints     72,569
        transitions                 203
          block cells           135,746
          transition cells        2,080
        sumcheck cells          137,826
        uniform cells         1,064,960
        padding waste             46.2%
        rounds                       22
        monolithic cells        131,072  (exact: the program as one block)
        --no-merge cells        135,746
        --monolithic cells      131,072
        satisfied: yes (every executed block's instance holds)
        outputs: ["1","0"]
    "#]]
    .assert_eq(&table::render(&spread()));
}

#[test]
fn table_marks_unknowns() {
    expect![[r#"
        sum_loop  O1  min block size 1,024  threshold 1,024

        block  constraints  padded  witness  io  executions  padded exec  cells
        b0               3       4        5   4           1            1      4
        b1               5       8        7   6           ?            ?      ?
        b2               2       2        2   6           ?            ?      ?
        b3               0       2        0   3           1            1      2

        blocks                            4
        constraints                      10
        executed constraints        unknown
        transitions                 unknown
          block cells               unknown
          transition cells          unknown
        memory accesses             unknown
          memory-check constraints  unknown
          memory cells              unknown
        sumcheck cells              unknown
        uniform cells               unknown
        padding waste               unknown
        rounds                      unknown
        monolithic cells               none  (a loop bound is a run-time value)
        --no-merge cells            unknown
        --monolithic cells             none  (a loop bound is a run-time value)
    "#]]
    .assert_eq(&table::render(&static_report()));
}

/// Whether `tool` runs here; prints why a check is skipped when it does not.
fn have(tool: &str, why: &str) -> bool {
    let found = Command::new(tool)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        println!("skipped the check {why}: `{tool}` is not installed (apt-get install -y graphviz librsvg2-bin)");
    }
    found
}

/// Runs `tool args` with `input` on stdin; returns stdout, failing the test with stderr.
fn pipe(tool: &str, args: &[&str], input: &str) -> Vec<u8> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tool starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("tool reads its input");
    let out = child.wait_with_output().expect("tool finishes");
    assert!(
        out.status.success(),
        "{tool} {args:?} rejected its input:\n{}\n--- input ---\n{input}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The contents of the SVG's `<text>` elements, trimmed.
fn svg_texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim())
        })
        .collect()
}

/// The `<text>` elements with their y coordinates, in document order.
fn svg_texts_at(svg: &str) -> Vec<(f64, &str)> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let attrs = &t[..t.find('>')?];
            let y = attrs
                .split("y=\"")
                .nth(1)?
                .split('"')
                .next()?
                .parse()
                .ok()?;
            let body = &t[t.find('>')? + 1..];
            Some((y, body[..body.find("</text>")?].trim()))
        })
        .collect()
}

#[test]
fn svg_chart_has_a_bar_per_block_largest_first_and_the_baselines() {
    let report = spread();
    let text = svg::render(&report).expect("drawing into a string");
    // Keep the picture for people to look at (first, so that a failing check leaves it too).
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(dir.join("report_spread.svg"), &text).expect("write the SVG");
    assert!(text.starts_with("<svg"), "{}", &text[..text.len().min(200)]);
    assert!(text.trim_end().ends_with("</svg>"));
    let texts = svg_texts(&text);
    // Every block has its label; the one that never ran says so.
    for b in &report.blocks {
        let expected = if b.executions == Some(0) {
            format!("{} (never ran)", b.label)
        } else {
            b.label.clone()
        };
        assert!(
            texts.contains(&expected.as_str()),
            "no label {expected:?} in {texts:?}"
        );
    }
    // Cells per block (Q_b·X_b, computed here from the fixture): b2 runs 99 times (Q 128) at
    // X 1,024, b1 100 times (Q 128) at X 2: largest first from the top.
    let cells = |label: &str| {
        let b = report.blocks.iter().find(|b| b.label == label).unwrap();
        u128::from(b.executions.unwrap().next_power_of_two()) * u128::from(b.padded_constraints)
    };
    assert_eq!(cells("b2"), 128 * 1024);
    assert_eq!(cells("b3"), 4096);
    let at = svg_texts_at(&text);
    let y_of = |label: &str| {
        at.iter()
            .find(|(_, t)| *t == label)
            .unwrap_or_else(|| panic!("no {label} in {at:?}"))
            .0
    };
    let mut by_cells: Vec<&str> = ["b0", "b1", "b2", "b3", "b6"].to_vec();
    by_cells.sort_by_key(|l| std::cmp::Reverse(cells(l)));
    let ys: Vec<f64> = by_cells.iter().map(|l| y_of(l)).collect();
    assert!(
        ys.windows(2).all(|w| w[0] < w[1]),
        "bars by cells {by_cells:?} are not top to bottom: {ys:?}"
    );
    for legend in [
        "useful: exec_b·cons_b",
        "--no-merge: 135,746 cells",
        "--monolithic: 131,072 cells",
    ] {
        assert!(texts.contains(&legend), "no legend {legend:?} in {texts:?}");
    }
    let total = report.totals.sumcheck_cells.expect("inputs given");
    let this = format!(
        "this pipeline: {} cells in all",
        zkbc::report::group_digits(total)
    );
    assert!(texts.contains(&this.as_str()), "no {this:?} in {texts:?}");
    // The background, a pale bar per block with cells (six: b4 never ran), a dark bar per block
    // with useful work (five: b4 never ran, b5 has no constraint), the transitions' two bars,
    // and three bar swatches in the legend: all drawn as <rect>.
    assert!(report.totals.transition_cells.is_some_and(|c| c > 0));
    assert_eq!(text.matches("<rect").count(), 1 + 6 + 5 + 2 + 3);
    if have("rsvg-convert", "that the SVG renders") {
        let png = pipe("rsvg-convert", &["-f", "png"], &text);
        assert!(png.starts_with(b"\x89PNG"), "rsvg-convert made no PNG");
        std::fs::write(dir.join("report_spread.png"), png).expect("write the PNG");
    }
}

#[test]
fn svg_of_no_blocks_still_draws() {
    let report = ProgramCost {
        program: "empty".into(),
        opt_level: "O0".into(),
        field_cmp: "complete".into(),
        min_block_size: 1024,
        memory_size: 0,
        read_only_memory_size: 0,
        read_only_inits: 0,
        blocks: Vec::new(),
        outputs: None,
        satisfied: None,
        monolithic_constraints: None,
        monolithic_none: None,
        baselines: None,
    }
    .report()
    .expect("no blocks");
    let text = svg::render(&report).expect("drawing into a string");
    assert!(text.contains("</svg>"));
}

/// An if/else inside a counted loop:
/// b0 -> b1 (loop header) -> b2 (if) -> b3 / b4 -> b5 (join) -> b1; b1 -> b6 (exit).
const NESTED: &str = "\
fn main f0 -> field {
b0(v0: field, v1: u32):
    jmp b1(field 0, u32 0)
b1(v2: field, v3: u32):
    v4 = lt v3, v1
    br v4, b2(), b6()
b2():
    v5 = lt v3, u32 2
    br v5, b3(), b4()
b3():
    v6 = mul v2, v0
    jmp b5(v6)
b4():
    v7 = add v2, v0
    jmp b5(v7)
b5(v8: field):
    v9 = add v3, u32 1
    jmp b1(v8, v9)
b6():
    return v2
}
";

fn blocks(ids: &[u32]) -> BTreeSet<BlockId> {
    ids.iter().map(|&i| BlockId(i)).collect()
}

fn nested_dot(components: &[BTreeSet<BlockId>]) -> Result<String, dot::DotError> {
    let program = parse_program(NESTED).expect("the test's IR parses");
    let func = program.main_func();
    let report = ProgramCost {
        program: "nested".into(),
        opt_level: "O1".into(),
        field_cmp: "complete".into(),
        min_block_size: 1024,
        memory_size: 0,
        read_only_memory_size: 0,
        read_only_inits: 0,
        blocks: vec![
            block("b0", 2, 2, 4, Some(1)),
            block("main/b1", 34, 40, 6, Some(4)),
            block("b2", 33, 40, 6, Some(3)),
            block("b3", 1, 1, 6, Some(2)),
            block("b4", 0, 0, 6, Some(1)),
            block("b5", 33, 33, 6, Some(3)),
            // b6 is missing on purpose: it is drawn without numbers.
        ],
        outputs: None,
        satisfied: None,
        monolithic_constraints: None,
        monolithic_none: None,
        baselines: None,
    }
    .report()
    .expect("small counts");
    let annotations = dot::annotations_from_report(func, &report);
    assert_eq!(
        annotations.len(),
        6,
        "labels b1 and main/b1 both name a block"
    );
    dot::render(func, &annotations, components)
}

#[test]
fn dot_draws_nested_components_as_nested_clusters() {
    // Inner: the if/else of the loop body, head b2, tail b5. Outer: the loop, header b1 and its
    // body. The inner one is given twice and drawn once.
    let inner = blocks(&[2, 3, 4, 5]);
    let outer = blocks(&[1, 2, 3, 4, 5]);
    let text = nested_dot(&[inner.clone(), outer.clone(), inner]).expect("nested components");
    expect![[r##"
        digraph "main" {
          graph [fontname="sans-serif", fontsize=11];
          node [shape=box, fontname="monospace", fontsize=10];
          edge [fontname="monospace", fontsize=9];
          subgraph "cluster_1" {
            label="merge component: 5 blocks, 101 constraints"; style="rounded,dashed,filled"; color="#2166ac"; fillcolor="#f3f7fc";
            "b1" [label="b1\n34 constraints (pad 64)\nran 4x"];
            subgraph "cluster_0" {
              label="merge component: 4 blocks, 67 constraints"; style="rounded,dashed,filled"; color="#2166ac"; fillcolor="#e3edf8";
              "b2" [label="b2\n33 constraints (pad 64)\nran 3x"];
              "b3" [label="b3\n1 constraint (pad 2)\nran 2x"];
              "b4" [label="b4\n0 constraints (pad 2)\nran 1x"];
              "b5" [label="b5\n33 constraints (pad 64)\nran 3x"];
            }
          }
          "b0" [label="b0 (entry)\n2 constraints (pad 2)\nran 1x", penwidth=2];
          "b6" [label="b6\n(no cost)", peripheries=2];
          "b0" -> "b1";
          "b1" -> "b2" [label="T"];
          "b1" -> "b6" [label="F"];
          "b2" -> "b3" [label="T"];
          "b2" -> "b4" [label="F"];
          "b3" -> "b5";
          "b4" -> "b5";
          "b5" -> "b1" [constraint=false];
        }
    "##]]
    .assert_eq(&text);
    if have("dot", "that Graphviz accepts the DOT") {
        let svg = pipe("dot", &["-Tsvg"], &text);
        let svg = String::from_utf8(svg).expect("dot writes UTF-8");
        assert!(svg.contains("<svg"), "dot wrote no SVG");
        assert!(
            svg.contains("cluster_0") && svg.contains("cluster_1"),
            "clusters are drawn"
        );
    }
}

#[test]
fn dot_without_components_is_a_plain_cfg() {
    let text = nested_dot(&[]).expect("no components");
    assert!(!text.contains("subgraph"));
    assert_eq!(text.matches(" -> ").count(), 8, "one edge per jump target");
    if have("dot", "that Graphviz accepts the DOT") {
        pipe("dot", &["-Tsvg"], &text);
    }
}

#[test]
fn dot_rejects_components_that_cannot_be_clusters() {
    use dot::DotError;
    let err = nested_dot(&[blocks(&[1, 2]), blocks(&[2, 3])]).expect_err("overlap");
    assert_eq!(
        err,
        DotError::Overlap {
            first: 0,
            second: 1,
            block: BlockId(2)
        }
    );
    assert_eq!(
        err.to_string(),
        "merge components 0 and 1 both contain b2 but neither contains the other"
    );
    let err = nested_dot(&[blocks(&[1]), blocks(&[9])]).expect_err("unknown block");
    assert_eq!(
        err,
        DotError::UnknownBlock {
            component: 1,
            block: BlockId(9)
        }
    );
    let err = nested_dot(&[BTreeSet::new()]).expect_err("empty");
    assert_eq!(err, DotError::EmptyComponent { component: 0 });
}

#[test]
fn dot_escapes_names() {
    let mut program = parse_program(NESTED).expect("parses");
    program.funcs[0].name = "ma\"in\\".into();
    let text = dot::render(program.main_func(), &Default::default(), &[]).expect("no components");
    assert!(text.starts_with("digraph \"ma\\\"in\\\\\" {"), "{text}");
    if have("dot", "that Graphviz accepts the DOT") {
        pipe("dot", &["-Tsvg"], &text);
    }
}

fn corpus() -> Vec<Report> {
    let mut unmerged = spread();
    unmerged.opt_level = "O2 --no-merge".into();
    vec![sum_loop(), static_report(), spread(), unmerged]
}

#[test]
fn aggregate_csv() {
    expect![[r#"
        program,opt_level,min_block_size,blocks,constraints,executed_constraints,transitions,sumcheck_cells,uniform_cells,padding_waste,rounds,monolithic_cells,monolithic_exact,satisfied,error
        sum_loop,O1,1024,4,10,43,13,222,18432,0.477477,8,,false,true,
        sum_loop,O1,1024,4,10,,,,,,,,false,,
        spread,O2,1024,7,3887,72569,203,137826,1064960,0.461691,22,131072,true,true,
        spread,O2 --no-merge,1024,7,3887,72569,203,137826,1064960,0.461691,22,131072,true,true,
    "#]]
    .assert_eq(&aggregate::csv(&corpus()));
}

#[test]
fn aggregate_markdown() {
    expect![[r#"
        | program | opt level | min block size | blocks | constraints | executed constraints | transitions | sumcheck cells | uniform cells | padding waste | rounds | monolithic cells | monolithic exact | satisfied | error |
        |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
        | sum_loop | O1 | 1,024 | 4 | 10 | 43 | 13 | 222 | 18,432 | 47.7% | 8 | ? | no | yes |  |
        | sum_loop | O1 | 1,024 | 4 | 10 | ? | ? | ? | ? | ? | ? | ? | no | ? |  |
        | spread | O2 | 1,024 | 7 | 3,887 | 72,569 | 203 | 137,826 | 1,064,960 | 46.2% | 22 | 131,072 | yes | yes |  |
        | spread | O2 --no-merge | 1,024 | 7 | 3,887 | 72,569 | 203 | 137,826 | 1,064,960 | 46.2% | 22 | 131,072 | yes | yes |  |
    "#]]
    .assert_eq(&aggregate::markdown(&corpus()));
}

#[test]
fn aggregate_pivot() {
    let metric = aggregate::Metric::from_name("sumcheck_cells").expect("a metric");
    expect![[r#"
        | program (sumcheck_cells) | O1/1024 | O2/1024 | O2 --no-merge/1024 |
        |---|---:|---:|---:|
        | sum_loop | ? |  |  |
        | spread |  | 137,826 | 137,826 |
    "#]]
    .assert_eq(&aggregate::pivot_markdown(&corpus(), metric));
    // No one-block circuit: no number (there is no lower bound to give).
    let mono = aggregate::pivot_markdown(&corpus()[..1], aggregate::Metric::MonolithicCells);
    assert!(mono.contains("| sum_loop | ? |"), "{mono}");
    assert_eq!(aggregate::Metric::from_name("cells"), None);
}

/// A program that failed under a pipeline is a row of every form, marked and with its error.
#[test]
fn aggregate_failed_rows() {
    use aggregate::{Failure, Row};
    let failure = Failure {
        program: "fails".into(),
        opt_level: "O2".into(),
        min_block_size: 1024,
        error: "fails.zok:2:3: assertion failed: a is one".into(),
    };
    let report = spread();
    let rows = [Row::Failed(&failure), Row::Report(&report)];
    expect![[r#"
        program,opt_level,min_block_size,blocks,constraints,executed_constraints,transitions,sumcheck_cells,uniform_cells,padding_waste,rounds,monolithic_cells,monolithic_exact,satisfied,error
        fails,O2,1024,,,,,,,,,,,,fails.zok:2:3: assertion failed: a is one
        spread,O2,1024,7,3887,72569,203,137826,1064960,0.461691,22,131072,true,true,
    "#]]
    .assert_eq(&aggregate::csv_rows(&rows));
    expect![[r#"
        | program | opt level | min block size | blocks | constraints | executed constraints | transitions | sumcheck cells | uniform cells | padding waste | rounds | monolithic cells | monolithic exact | satisfied | error |
        |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
        | fails | O2 | 1,024 | - | - | - | - | - | - | - | - | - | - | failed | fails.zok:2:3: assertion failed: a is one |
        | spread | O2 | 1,024 | 7 | 3,887 | 72,569 | 203 | 137,826 | 1,064,960 | 46.2% | 22 | 131,072 | yes | yes |  |
    "#]]
    .assert_eq(&aggregate::markdown_rows(&rows));
    let metric = aggregate::Metric::from_name("sumcheck_cells").expect("a metric");
    expect![[r#"
        | program (sumcheck_cells) | O2/1024 |
        |---|---:|
        | fails | failed |
        | spread | 137,826 |
    "#]]
    .assert_eq(&aggregate::pivot_markdown_rows(&rows, metric));
    let json: serde_json::Value = serde_json::from_str(&aggregate::json_rows(&rows)).expect("JSON");
    assert_eq!(
        json[0],
        serde_json::json!({
            "schema_version": zkbc::cost::SCHEMA_VERSION,
            "program": "fails",
            "opt_level": "O2",
            "min_block_size": 1024,
            "error": "fails.zok:2:3: assertion failed: a is one",
        })
    );
    // The report's own JSON, read back the same way.
    let own: serde_json::Value =
        serde_json::from_str(&zkbc::report::to_json(&report)).expect("JSON");
    assert_eq!(json[1], own);
}

#[test]
fn csv_quotes_fields_that_need_it() {
    let mut r = sum_loop();
    r.program = "a,b \"c\"".into();
    let text = aggregate::csv(&[r]);
    assert!(
        text.lines()
            .nth(1)
            .expect("a row")
            .starts_with("\"a,b \"\"c\"\"\",O1,"),
        "{text}"
    );
}

#[test]
fn svg_of_many_blocks_keeps_every_label() {
    // 60 blocks with function-qualified labels and sizes from 0 to 2^16.
    let blocks = (0..60u64)
        .map(|i| {
            block(
                &format!("main/b{i}"),
                (i * 37) % 65_537 * (i % 5) * 7,
                0,
                8,
                Some(i % 9),
            )
        })
        .collect();
    let report = ProgramCost {
        program: "many".into(),
        opt_level: "O0".into(),
        field_cmp: "complete".into(),
        min_block_size: 32_768,
        memory_size: 0,
        read_only_memory_size: 0,
        read_only_inits: 0,
        blocks,
        outputs: None,
        satisfied: None,
        monolithic_constraints: None,
        monolithic_none: None,
        baselines: None,
    }
    .report()
    .expect("small counts");
    let text = svg::render(&report).expect("drawing into a string");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(dir.join("report_many.svg"), &text).expect("write the SVG");
    let texts = svg_texts(&text);
    assert!(report.blocks.iter().all(|b| texts
        .iter()
        .any(|t| t.split(' ').next() == Some(b.label.as_str()))));
    if have("rsvg-convert", "that the SVG renders") {
        let png = pipe("rsvg-convert", &["-f", "png"], &text);
        assert!(png.starts_with(b"\x89PNG"), "rsvg-convert made no PNG");
    }
}

#[test]
fn every_json_field_is_documented() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/report.md"))
        .expect("docs/report.md exists");
    let value: serde_json::Value = serde_json::from_str(&to_json(&sum_loop())).expect("JSON");
    let top = value.as_object().expect("an object");
    let mut names: Vec<String> = top.keys().map(|k| format!("| `{k}` |")).collect();
    let block = value["blocks"][0].as_object().expect("a block object");
    names.extend(block.keys().map(|k| format!("| `blocks[].{k}` |")));
    let totals = value["totals"].as_object().expect("a totals object");
    names.extend(totals.keys().map(|k| format!("| `totals.{k}` |")));
    let baselines = value["baselines"].as_object().expect("a baselines object");
    names.extend(baselines.keys().map(|k| format!("| `baselines.{k}` |")));
    // `--explain` adds an array of decisions.
    let decision = Decision {
        round: 1,
        subject: Subject::Component {
            func: "main".into(),
            head: "b1".into(),
            tail: "b3".into(),
            blocks: vec!["b1".into(), "b2".into(), "b3".into()],
            lines: Some((4, 6)),
            has_loop: false,
        },
        cells_kept: Some(86),
        cells_taken: Some(64),
        transitions: (Some(13), Some(8)),
        verdict: Verdict::Taken,
        reason: "saves 22 cells".into(),
    };
    let explained: serde_json::Value =
        serde_json::from_str(&explain::to_json(&sum_loop(), &[decision], &[])).expect("JSON");
    names.push("| `explain` |".into());
    let entry = explained["explain"][0].as_object().expect("an entry");
    names.extend(entry.keys().map(|k| format!("| `explain[].{k}` |")));
    for name in names {
        assert!(docs.contains(&name), "docs/report.md has no row {name}");
    }
    assert!(docs.contains(&format!(
        "## JSON schema (version {})",
        zkbc::report::SCHEMA_VERSION
    )));
}

#[test]
fn dot_nests_sibling_components_inside_their_parent() {
    // Three levels: the loop {b1..b5} holds the if/else {b2..b5}, which holds the two arms {b3}
    // and {b4} side by side. Given in an order unrelated to nesting.
    let text = nested_dot(&[
        blocks(&[4]),
        blocks(&[1, 2, 3, 4, 5]),
        blocks(&[3]),
        blocks(&[2, 3, 4, 5]),
    ])
    .expect("a laminar family");
    // Each cluster line's indentation is its depth; each block's node sits in its innermost one.
    let depth_of = |needle: &str| {
        let line = text
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle} in\n{text}"));
        (line.len() - line.trim_start().len()) / 2
    };
    assert_eq!(depth_of("subgraph \"cluster_1\""), 1);
    assert_eq!(depth_of("subgraph \"cluster_3\""), 2);
    assert_eq!(depth_of("subgraph \"cluster_0\""), 3);
    assert_eq!(depth_of("subgraph \"cluster_2\""), 3);
    assert_eq!(depth_of("\"b1\" [label"), 2);
    assert_eq!(depth_of("\"b2\" [label"), 3);
    assert_eq!(depth_of("\"b3\" [label"), 4);
    assert_eq!(depth_of("\"b4\" [label"), 4);
    assert_eq!(depth_of("\"b0\" [label"), 1);
    // Balanced braces: every cluster is closed.
    assert_eq!(text.matches('{').count(), text.matches('}').count());
    if have("dot", "that Graphviz accepts the DOT") {
        pipe("dot", &["-Tsvg"], &text);
    }
}

fn component(
    round: usize,
    blocks: &[&str],
    cells: (Option<u128>, Option<u128>),
    verdict: Verdict,
    reason: &str,
) -> Decision {
    Decision {
        round,
        subject: Subject::Component {
            func: "main".into(),
            head: blocks[0].into(),
            tail: blocks[blocks.len() - 1].into(),
            blocks: blocks.iter().map(|b| b.to_string()).collect(),
            lines: Some((3, 7)),
            has_loop: blocks.contains(&"b1"),
        },
        cells_kept: cells.0,
        cells_taken: cells.1,
        transitions: (Some(20), cells.1.map(|_| 10)),
        verdict,
        reason: reason.into(),
    }
}

fn formation(name: &str, cells: Option<u128>, verdict: Verdict, reason: &str) -> Decision {
    Decision {
        round: 0,
        subject: Subject::Formation { name: name.into() },
        cells_kept: None,
        cells_taken: cells,
        transitions: (None, cells.map(|c| c / 100)),
        verdict,
        reason: reason.into(),
    }
}

/// The decisions of a made-up formation of NESTED: the if/else merged in round 1, the loop
/// impossible, the whole function kept in round 2.
fn nested_decisions() -> Vec<Decision> {
    let more = "more predicted cells than the chosen formation";
    vec![
        component(
            1,
            &["b1", "b2", "b3", "b4", "b5", "b6"],
            (Some(1_544), None),
            Verdict::Impossible,
            "the loop at b1 has a run-time bound",
        ),
        component(
            1,
            &["b2", "b3", "b4", "b5"],
            (Some(1_544), Some(1_024)),
            Verdict::Taken,
            "saves 520 cells",
        ),
        component(
            2,
            &["b0", "b1", "b2", "b6"],
            (Some(1_024), Some(2_048)),
            Verdict::Kept,
            "would cost 1024 more cells",
        ),
        formation("unmerged", Some(1_544), Verdict::Kept, more),
        formation(
            "greedy",
            Some(1_024),
            Verdict::Taken,
            "the fewest predicted cells",
        ),
        formation("monolithic", None, Verdict::Impossible, "a run-time bound"),
    ]
}

#[test]
fn explain_text_groups_candidates_by_round() {
    expect![[r#"
        block formation: sumcheck cells predicted from a run on the inputs

        round 1  b1..b6 (6 blocks, lines 3-7, loop)  kept 1,544 -> merged     -  impossible: the loop at b1 has a run-time bound
        round 1  b2..b5 (4 blocks, lines 3-7)        kept 1,544 -> merged 1,024  merged: saves 520 cells

        round 2  b0..b6 (4 blocks, lines 3-7, loop)  kept 1,024 -> merged 2,048  kept: would cost 1024 more cells

        formation   cells  transitions  verdict
        unmerged    1,544           15  not chosen: more predicted cells than the chosen formation
        greedy      1,024           10  chosen: the fewest predicted cells
        monolithic      -            -  impossible: a run-time bound
    "#]]
    .assert_eq(&explain::render(&nested_decisions(), true, None));
    expect![[r#"
        block formation: no cost-driven decisions (--no-merge: the merge pass does not run)
    "#]]
    .assert_eq(&explain::render(
        &[],
        true,
        Some("--no-merge: the merge pass does not run"),
    ));
}

#[test]
fn dot_draws_decisions_on_the_cfg_before_merging() {
    let program = parse_program(NESTED).expect("the test's IR parses");
    let func = program.main_func();
    let mut decisions = nested_decisions();
    // A block the function does not have: not drawn, counted.
    decisions.push(component(
        2,
        &["b2", "b99"],
        (Some(1), Some(1)),
        Verdict::Kept,
        "x",
    ));
    let (clusters, left_out) = dot::decision_clusters(func, &decisions);
    assert_eq!(left_out, 1);
    let sets: Vec<Vec<u32>> = clusters
        .iter()
        .map(|c| c.blocks.iter().map(|b| b.0).collect())
        .collect();
    // Without their tails; round 2's b2 stands for the if/else merged in round 1.
    assert_eq!(
        sets,
        [vec![1, 2, 3, 4, 5], vec![2, 3, 4], vec![0, 1, 2, 3, 4, 5]]
    );
    let text = dot::render_clusters(func, &Default::default(), &clusters, Some("explained"))
        .expect("laminar clusters");
    assert!(
        text.contains("  label=\"explained\"; labelloc=t;"),
        "{text}"
    );
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle} in\n{text}"))
            .to_string()
    };
    assert!(line("round 1: merged").contains("color=\"#1a9850\""));
    assert!(line("round 1: impossible").contains("color=\"#d73027\""));
    assert!(line("round 2: kept").contains("color=\"#777777\""));
    assert!(line("round 1: merged").contains("kept 1,544 -> merged 1,024\\nsaves 520 cells"));
    if have("dot", "that Graphviz accepts the DOT") {
        pipe("dot", &["-Tsvg"], &text);
    }
}
