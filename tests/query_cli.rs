//! `zkbc query` and `zkbc compile --emit dot`: outputs, messages and exit statuses; the DOT
//! output is checked with Graphviz's `dot -Tsvg` where it is installed.

use std::process::{Command, Stdio};

use crate::common;
use common::temp_file;
use common::zkbc_text as zkbc;

#[test]
fn list_shows_every_pattern() {
    let (code, stdout, stderr) = zkbc(&["query", "--list"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let names: Vec<&str> = stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "sese",
            "sese-canonical",
            "natural-loop",
            "counted-loop",
            "dot-product",
            "bits-round-trip",
            "interface"
        ]
    );
}

#[test]
fn query_a_zok_program_prints_matches_with_source_locations() {
    let (code, stdout, stderr) =
        zkbc(&["query", "circuits/matmul.zok", "--pattern", "dot-product"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(
        stdout,
        "f0 mul: loop=loop2 iv=v18 mul=v25:mul@b8 (10:17) get_x=v22:array_get@b8 (10:25) \
         get_y=v24:array_get@b8 (10:35) add=v26:add@b8 (10:17) acc=v20 cell=v15; trips=3\n    \
         at circuits/matmul.zok:9:13, circuits/matmul.zok:10:17, circuits/matmul.zok:10:25, \
         circuits/matmul.zok:10:35\n"
    );
}

#[test]
fn query_an_ir_program() {
    let ir = temp_file(
        "loop.ir",
        "fn main f0 -> u32 {\nb0():\n    jmp b1(u32 0)\nb1(v1: u32):\n    v2 = lt v1, u32 8\n    \
         br v2, b2(), b3()\nb2():\n    v3 = add v1, u32 1\n    jmp b1(v3)\nb3():\n    return v1\n}\n",
    );
    let (code, stdout, _) = zkbc(&["query", &ir, "--pattern", "counted-loop"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "f0 main: loop=loop0 header=b1 latch=b2 iv=v1 init=u32 0 step=u32 1 cmp=v2:lt@b1 \
         bound=u32 8; trips=8\n"
    );
    let (code, stdout, _) = zkbc(&["query", &ir, "--pattern", "bits-round-trip"]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "no match of bits-round-trip\n")
    );
}

/// The interface pattern reads the program after mem2reg: each of the 16 levels the source
/// writes out is one copy, located at its first line.
#[test]
fn query_interface_finds_the_levels_of_a_path_written_out() {
    let file = "circuits/apps/poseidon_merkle16_unrolled.zok";
    let (code, stdout, stderr) = zkbc(&["query", file, "--pattern", "interface"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("f1 main: 16 copies of ")
            && lines[0].contains("1 carried from the copy before"),
        "{stdout}"
    );
    // `field lK = dir[K] ? ...` on line 8 + 3K: `dir` at column 16, 17 once K has two digits.
    let levels: Vec<String> = (0..16)
        .map(|k| format!("{file}:{}:{}", 8 + 3 * k, 16 + usize::from(k >= 10)))
        .collect();
    assert_eq!(lines[1].trim(), format!("at {}", levels.join(", ")));
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let (code, stdout, stderr) = zkbc(&["query", "circuits/gcd.zok", "--pattern", "loops"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "error: unknown pattern `loops`; the patterns are: sese, sese-canonical, natural-loop, \
         counted-loop, dot-product, bits-round-trip, interface\n"
    );
    let (code, _, stderr) = zkbc(&["query", "no/such.zok", "--pattern", "sese"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: cannot read no/such.zok"),
        "{stderr}"
    );
    let bad = temp_file("bad.zok", "def main() -> u32 {\n    return x;\n}\n");
    let (code, _, stderr) = zkbc(&["query", &bad, "--pattern", "sese"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad.zok:2:12"), "{stderr}");
    let bad_ir = temp_file("bad.ir", "fn main f0 {\nb0():\n    jmp b7()\n}\n");
    let (code, _, stderr) = zkbc(&["query", &bad_ir, "--pattern", "sese"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: "), "{stderr}");
    let (code, _, stderr) = zkbc(&["query", "circuits/gcd.zok"]);
    assert_eq!(code, 2, "{stderr}");
}

/// Renders DOT with Graphviz; `None` (with the reason printed) where `dot` is not installed.
fn graphviz(dot_text: &str) -> Option<Result<String, String>> {
    let child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            println!("skipped: Graphviz `dot` is not available ({e})");
            return None;
        }
    };
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(dot_text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Some(if out.status.success() && out.stderr.is_empty() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    })
}

#[test]
fn emit_dot_draws_every_graph_and_graphviz_accepts_it() {
    for file in [
        "circuits/matmul.zok",
        "circuits/early_return.zok",
        "circuits/bits.zok",
    ] {
        for show in ["cfg", "cdg", "pdg", "regions"] {
            let (code, stdout, stderr) =
                zkbc(&["compile", "-O0", file, "--emit", "dot", "--show", show]);
            assert_eq!((code, stderr.as_str()), (0, ""), "{file} {show}");
            assert!(stdout.starts_with("digraph zkbc {"), "{stdout}");
            assert!(stdout.contains("subgraph cluster_f0"), "{stdout}");
            match show {
                "cfg" => assert!(stdout.contains("f0_b0 -> f0_b1")),
                "regions" => assert!(stdout.contains("subgraph cluster_f0_r0")),
                "pdg" => assert!(stdout.contains("[style=solid]")),
                _ => {}
            }
            if let Some(svg) = graphviz(&stdout) {
                let svg = svg.unwrap_or_else(|e| panic!("dot rejects {file} --show {show}: {e}"));
                assert!(svg.contains("<svg"));
            }
        }
    }
    let (code, _, stderr) = zkbc(&[
        "compile",
        "circuits/gcd.zok",
        "--emit",
        "dot",
        "--show",
        "cdgs",
    ]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn dot_of_a_small_program() {
    let src = temp_file(
        "small.zok",
        "def main(u32 x) -> u32 {\n    u32 mut y = x;\n    if x > 3 {\n        y = 1;\n    }\n    return y;\n}\n",
    );
    let (code, stdout, _) = zkbc(&["compile", "-O0", &src, "--emit", "dot", "--show", "regions"]);
    assert_eq!(code, 0);
    expect_test::expect![[r#"
        digraph zkbc {
          node [shape=box, fontname="monospace"];
          subgraph cluster_f0 {
            label="f0 main";
            subgraph cluster_f0_r0 {
              label="r0: start->b0 .. b3->end"; style=rounded;
              subgraph cluster_f0_r1 {
                label="r1: b0->b1 .. b1->b3"; style=rounded;
                f0_b1 [label="b1()\nsmall.zok:3-4\n1 insts, jmp"];
              }
              subgraph cluster_f0_r2 {
                label="r2: b0->b2 .. b2->b3"; style=rounded;
                f0_b2 [label="b2()\nsmall.zok:3\n0 insts, jmp"];
              }
              f0_b0 [label="b0(v0: u32)\nsmall.zok:2-3\n3 insts, br"];
              f0_b3 [label="b3()\nsmall.zok:6\n1 insts, return"];
            }
            f0_b0 -> f0_b1 [label="T"];
            f0_b0 -> f0_b2 [label="F"];
            f0_b1 -> f0_b3;
            f0_b2 -> f0_b3;
          }
        }
    "#]]
    .assert_eq(&stdout);
    let (code, stdout, _) = zkbc(&["compile", "-O0", &src, "--emit", "dot", "--show", "cdg"]);
    assert_eq!(code, 0);
    expect_test::expect![[r#"
        digraph zkbc {
          node [shape=box, fontname="monospace"];
          subgraph cluster_f0 {
            label="f0 main";
            f0_b0 [label="b0(v0: u32)\nsmall.zok:2-3\n3 insts, br"];
            f0_b1 [label="b1()\nsmall.zok:3-4\n1 insts, jmp"];
            f0_b2 [label="b2()\nsmall.zok:3\n0 insts, jmp"];
            f0_b3 [label="b3()\nsmall.zok:6\n1 insts, return"];
            f0_b0 -> f0_b1;
            f0_b0 -> f0_b2;
          }
        }
    "#]]
    .assert_eq(&stdout);
}

#[test]
fn ad_hoc_text_query() {
    let (code, stdout, stderr) = zkbc(&[
        "query",
        "circuits/gcd.zok",
        "--query",
        "inst i, value v: opcode[urem|udiv](i), operand[1](i, v), not is_const(v)",
    ]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(
        stdout,
        "f0 gcd: i=v11:urem@b6 (9:17) v=v10\n    at circuits/gcd.zok:9:17\n\
         f1 main: i=v3:udiv@b0 (18:16) v=v2\n    at circuits/gcd.zok:18:16\n"
    );
    let (code, stdout, stderr) =
        zkbc(&["query", "circuits/gcd.zok", "--query", "block h: frob(h)"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "error: --query: column 10: unknown predicate `frob`\n"
    );
}

/// `--show cdg-seed` and `--show cdg-both`: the seed's relation makes the block after a while
/// loop depend on the loop's branch, the post-dominance one (`--show cdg`, what queries use)
/// does not; the combined drawing styles each edge by the relation that has it.
#[test]
fn both_control_dependence_relations_are_drawn() {
    let file = temp_file(
        "while_then.zok",
        "def main(u32 n) -> u32 {\n    u32 mut i = 0;\n    while i < n {\n        i = i + 1;\n    }\n    return i * 2;\n}\n",
    );
    let edges = |show: &str| -> Vec<String> {
        let (code, out, err) = zkbc(&["compile", &file, "-O", "1", "--show", show]);
        assert_eq!(code, 0, "{err}");
        out.lines()
            .filter(|l| l.contains("->"))
            .map(|l| l.trim().to_string())
            .collect()
    };
    let post = edges("cdg");
    let seed = edges("cdg-seed");
    let both = edges("cdg-both");
    assert_ne!(post, seed);
    // The loop header branches to the body and to the rest: only the seed's relation makes the
    // rest depend on it, and only the post-dominance one makes the header depend on itself.
    assert!(
        both.iter()
            .any(|e| e.contains("style=dotted") && e.contains("seed")),
        "{both:?}"
    );
    assert!(
        both.iter()
            .any(|e| e.contains("style=dashed") && e.contains("post-dominance")),
        "{both:?}"
    );
    // Every edge of either relation is drawn once in the combined graph.
    let plain = |e: &String| {
        e.split(" [")
            .next()
            .unwrap_or(e)
            .trim_end_matches(';')
            .to_string()
    };
    let mut union: Vec<String> = post.iter().chain(&seed).map(plain).collect();
    union.sort();
    union.dedup();
    let mut drawn: Vec<String> = both.iter().map(plain).collect();
    drawn.sort();
    assert_eq!(drawn, union);
}
