//! `zkbc export`'s `manifest.json` of a block export: which wire of each block means what, and
//! the executions in the order the program ran them. Checked against the `.wtns` files
//! themselves (read by a small parser of their own): the output state of each execution is
//! the input state of the next, and the run ends with the return label 0.

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

use crate::common;
use common::zkbc;

/// One section of a `.wtns` file: its type, the byte its contents start at, its contents as
/// 32-byte little-endian integers.
struct Section {
    kind: u32,
    at: u64,
    values: Vec<[u8; 32]>,
}

/// Every section of a `.wtns` file (version 2) after the header, in file order, and the
/// header's wire count.
fn read_wtns(path: &Path) -> (usize, Vec<Section>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..4], b"wtns");
    assert_eq!(&bytes[4..8], &2u32.to_le_bytes());
    let u32_at = |p: usize| u32::from_le_bytes(bytes[p..p + 4].try_into().unwrap()) as usize;
    let u64_at = |p: usize| u64::from_le_bytes(bytes[p..p + 8].try_into().unwrap()) as usize;
    let n_sections = u32_at(8);
    let mut pos = 12;
    let mut n_witness = None;
    let mut sections = Vec::new();
    for _ in 0..n_sections {
        let (kind, size) = (u32_at(pos) as u32, u64_at(pos + 4));
        pos += 12;
        if kind == 1 {
            assert_eq!(u32_at(pos), 32, "n8");
            n_witness = Some(u32_at(pos + 36));
        } else {
            sections.push(Section {
                kind,
                at: pos as u64,
                values: bytes[pos..pos + size]
                    .chunks(32)
                    .map(|c| c.try_into().unwrap())
                    .collect(),
            });
        }
        pos += size;
    }
    assert_eq!(
        pos,
        bytes.len(),
        "{}: bytes after the sections",
        path.display()
    );
    (n_witness.expect("a header section"), sections)
}

fn range(v: &Value) -> std::ops::Range<usize> {
    let start = v[0].as_u64().expect("first wire") as usize;
    start..start + v[1].as_u64().expect("count") as usize
}

fn zero() -> [u8; 32] {
    [0; 32]
}

fn one() -> [u8; 32] {
    let mut v = [0; 32];
    v[0] = 1;
    v
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
        .map(|b| b["executions"].as_u64().unwrap() as usize)
        .sum();
    assert_eq!(executions.len(), listed, "every execution listed once");
    assert!(executions.len() > 2);
    // Each block's .wtns, read once: its sections must be its executions, in order.
    let mut files: HashMap<String, Vec<Section>> = HashMap::new();
    for b in blocks {
        let Some(wtns) = b["witnesses"].as_str() else {
            assert_eq!(b["executions"], 0, "{b}");
            continue;
        };
        let (n_witness, sections) = read_wtns(&dir.path().join(wtns));
        assert_eq!(sections.len(), b["executions"].as_u64().unwrap() as usize);
        for (k, s) in sections.iter().enumerate() {
            // Execution 0 is the type-2 section snarkjs reads, the others type 3.
            assert_eq!(s.kind, if k == 0 { 2 } else { 3 }, "{wtns} section {k}");
            assert_eq!(s.values.len(), n_witness, "{wtns} section {k}");
        }
        files.insert(wtns.to_string(), sections);
    }
    let mut next_of: HashMap<String, u64> = HashMap::new();
    let mut previous: Option<(Vec<[u8; 32]>, &Value)> = None;
    for e in executions {
        let block = by_name(e["block"].as_str().unwrap());
        let wires = &block["wires"];
        let file = e["witness"].as_str().unwrap();
        assert_eq!(block["witnesses"], file, "{e}");
        // A block's executions are its file's sections in run order.
        let k = e["execution"].as_u64().unwrap();
        let next = next_of.entry(file.to_string()).or_default();
        assert_eq!(k, *next, "{e}");
        *next += 1;
        let section = &files[file][k as usize];
        assert_eq!(e["offset"].as_u64(), Some(section.at), "{e}");
        let z = section.values.clone();
        assert_eq!(z[0], one(), "wire 0 is the constant one");
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
        .all(|b| b["witnesses"].is_null() && b["executions"] == 0));
    // Nothing but the systems and the manifest.
    let files = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(files, blocks.len() + 1);
    assert_eq!(manifest["executions"].as_array().map(Vec::len), Some(0));
}

/// The loop `acc = acc * acc + x` run `n` times, exported block by block into a new
/// directory: (the directory, its file names, the manifest).
fn export_loop(n: u32) -> (tempfile::TempDir, Vec<String>, Value) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = dir.path().join("loop.zok");
    std::fs::write(
        &program,
        "def main(private field x, u32 n) -> field {\n    field mut acc = x;\n    \
         for u32 i in 0..n {\n        acc = acc * acc + x;\n    }\n    return acc;\n}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let inputs = format!("{{\"x\":\"3\",\"n\":{n}}}");
    let inputs_file = dir.path().join("loop.json");
    std::fs::write(&inputs_file, inputs).unwrap();
    let run = zkbc(&[
        "export",
        program.to_str().unwrap(),
        "--inputs",
        inputs_file.to_str().unwrap(),
        // The same blocks whatever n (block formation is profiled on the inputs).
        "--no-merge",
        "-o",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let manifest =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap())
            .expect("JSON");
    (dir, names, manifest)
}

#[test]
fn a_longer_run_writes_more_executions_into_the_same_files() {
    let (_short_dir, short, short_manifest) = export_loop(3);
    let (_long_dir, long, long_manifest) = export_loop(300);
    let count = |m: &Value| m["executions"].as_array().unwrap().len();
    assert!(count(&long_manifest) >= count(&short_manifest) + 297);
    assert_eq!(
        long, short,
        "the same files, whatever the number of executions"
    );
    // One .r1cs per block and one .wtns per executed block.
    let blocks = long_manifest["blocks"].as_array().unwrap();
    let wtns = long.iter().filter(|f| f.ends_with(".wtns")).count();
    let r1cs = long.iter().filter(|f| f.ends_with(".r1cs")).count();
    assert_eq!(r1cs, blocks.len());
    assert_eq!(
        wtns,
        blocks.iter().filter(|b| b["witnesses"].is_string()).count()
    );
    assert_eq!(long.len(), r1cs + wtns + 1);
}
