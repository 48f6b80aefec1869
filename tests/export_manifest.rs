//! `zkbc export`'s `manifest.json` of a block export: which wire of each block means what, and
//! the executions in the order the program ran them. Checked against the `.wtns` files
//! themselves (read by a small parser of their own): the output state of each execution is
//! the input state of the next, and the run ends with the return label 0.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn zkbc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zkbc"))
        .args(args)
        .output()
        .expect("zkbc runs")
}

/// The values of a `.wtns` file (version 2), as 32-byte little-endian integers.
fn read_wtns(path: &Path) -> Vec<[u8; 32]> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..4], b"wtns");
    let u32_at = |p: usize| u32::from_le_bytes(bytes[p..p + 4].try_into().unwrap()) as usize;
    let u64_at = |p: usize| u64::from_le_bytes(bytes[p..p + 8].try_into().unwrap()) as usize;
    let sections = u32_at(8);
    let mut pos = 12;
    for _ in 0..sections {
        let (kind, size) = (u32_at(pos), u64_at(pos + 4));
        pos += 12;
        if kind == 2 {
            return bytes[pos..pos + size]
                .chunks(32)
                .map(|c| c.try_into().unwrap())
                .collect();
        }
        pos += size;
    }
    panic!("{}: no witness section", path.display())
}

fn range(v: &Value) -> std::ops::Range<usize> {
    let start = v[0].as_u64().expect("first wire") as usize;
    start..start + v[1].as_u64().expect("count") as usize
}

fn zero() -> [u8; 32] {
    [0; 32]
}

/// Exports `program` on `inputs` at `--no-merge` (several blocks, many transitions) and
/// checks the manifest against the files.
fn check_export(program: &str, inputs: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().to_str().unwrap();
    let run = zkbc(&[
        "export",
        program,
        "--inputs",
        inputs,
        "--no-merge",
        "-o",
        out,
        "--quiet",
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("manifest.json")).expect("manifest");
    let manifest: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(manifest["program"], program);
    let blocks = manifest["blocks"].as_array().expect("blocks");
    assert!(blocks.len() > 1, "{program}: one block at --no-merge?");
    for b in blocks {
        let name = b["name"].as_str().unwrap();
        assert!(dir.path().join(b["r1cs"].as_str().unwrap()).is_file());
        assert!(
            b["source"].as_str().is_some_and(|s| s.contains(".zok:")),
            "{b}"
        );
        // The wires named cover the instance exactly: one, labels, states, accesses.
        let w = &b["wires"];
        let mut covered = vec![w["one"].as_u64().unwrap() as usize];
        covered.push(w["input_label"].as_u64().unwrap() as usize);
        covered.extend(range(&w["input_state"]));
        covered.extend(range(&w["memory_accesses"]));
        covered.push(w["output_label"].as_u64().unwrap() as usize);
        covered.extend(range(&w["output_state"]));
        let public = b["public_wires"].as_u64().unwrap() as usize;
        assert_eq!(covered, (0..=public).collect::<Vec<_>>(), "{name}: {w}");
    }
    let by_name = |name: &str| {
        blocks
            .iter()
            .find(|b| b["name"] == name)
            .unwrap_or_else(|| panic!("no block {name}"))
    };
    let executions = manifest["executions"].as_array().expect("executions");
    let listed: usize = blocks
        .iter()
        .map(|b| b["witnesses"].as_array().unwrap().len())
        .sum();
    assert_eq!(executions.len(), listed, "every witness file once");
    assert!(executions.len() > 2);
    let mut previous: Option<(Vec<[u8; 32]>, &Value)> = None;
    for e in executions {
        let wires = &by_name(e["block"].as_str().unwrap())["wires"];
        let z = read_wtns(&dir.path().join(e["witness"].as_str().unwrap()));
        let in_label = z[wires["input_label"].as_u64().unwrap() as usize];
        assert_ne!(
            in_label,
            zero(),
            "a block's input label is never the return label"
        );
        if let Some((pz, pw)) = &previous {
            // The transition: the previous output state is this input state, label and values
            // (a narrower state is padded with zeros).
            assert_eq!(pz[pw["output_label"].as_u64().unwrap() as usize], in_label);
            let out: Vec<[u8; 32]> = range(&pw["output_state"]).map(|i| pz[i]).collect();
            let inp: Vec<[u8; 32]> = range(&wires["input_state"]).map(|i| z[i]).collect();
            let n = out.len().max(inp.len());
            let pad = |v: &[[u8; 32]]| {
                let mut v = v.to_vec();
                v.resize(n, zero());
                v
            };
            assert_eq!(pad(&out), pad(&inp), "{e}");
        }
        previous = Some((z, wires));
    }
    let (z, w) = previous.expect("an execution");
    assert_eq!(
        z[w["output_label"].as_u64().unwrap() as usize],
        zero(),
        "the run ends with a return"
    );
}

#[test]
fn a_block_export_says_which_wires_are_the_transition_state() {
    check_export("circuits/gcd.zok", "circuits/gcd.json");
    check_export("circuits/find_min.zok", "circuits/find_min.json");
}

#[test]
fn without_inputs_the_manifest_lists_the_blocks_alone() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().to_str().unwrap();
    let run = zkbc(&["export", "circuits/gcd.zok", "-o", out, "--quiet"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    let blocks = manifest["blocks"].as_array().expect("blocks");
    assert!(!blocks.is_empty());
    assert!(blocks
        .iter()
        .all(|b| b["witnesses"].as_array().is_some_and(|w| w.is_empty())));
    assert_eq!(manifest["executions"].as_array().map(Vec::len), Some(0));
}
