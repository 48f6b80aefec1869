//! Private inputs stay private: a one-block program is exported as the circuit of `main` with
//! exactly its outputs and its public inputs as public wires (read back from the `.r1cs` header
//! and `.sym`), a Groth16 proof of it made by snarkjs publishes exactly those values
//! (`public.json`), a block-based export warns and names the private inputs it makes public,
//! and `export` without inputs writes the constraint systems alone.
//!
//! The Groth16 part needs snarkjs (see `common::find_snarkjs`): skipped with a message where
//! node or snarkjs is absent, required under CI.

use crate::common;
use common::{find_snarkjs, stderr, zkbc};

use std::path::Path;
use std::process::Command;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `main` with private and public inputs of several shapes (ZoKrates: public unless `private`).
const PROGRAM: &str =
    "def main(private field a, field b, private u32 c, private field[2] d) -> (field, field) {
    field s = a * b + d[0] * d[1];
    assert(c < 100);
    return (s, b + 1);
}
";

/// nWires, nPubOut, nPubIn, nPrvIn of an iden3 `.r1cs` file (its header section).
fn header_counts(r1cs: &[u8]) -> [u32; 4] {
    assert_eq!(&r1cs[..4], b"r1cs");
    let u32_at = |i: usize| u32::from_le_bytes(r1cs[i..i + 4].try_into().expect("4 bytes"));
    // magic, version, nSections, then the first section: type 1, u64 size, n8, prime.
    assert_eq!(u32_at(12), 1, "the header is the first section");
    let n8 = u32_at(24) as usize;
    let at = 28 + n8;
    [u32_at(at), u32_at(at + 4), u32_at(at + 8), u32_at(at + 12)]
}

fn write(dir: &Path, name: &str, contents: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("writable");
    path.display().to_string()
}

#[test]
fn a_one_block_circuit_makes_only_outputs_and_public_inputs_public() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let zok = write(dir.path(), "p.zok", PROGRAM);
    let inputs = write(
        dir.path(),
        "p.json",
        r#"{"a": "3", "b": "5", "c": "7", "d": ["2", "4"]}"#,
    );
    let out = dir.path().join("out");
    let run = zkbc(&[
        "export",
        &zok,
        "--monolithic",
        "--inputs",
        &inputs,
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(!stderr(&run).contains("warning"), "{}", stderr(&run));

    let r1cs = std::fs::read(out.join("main.r1cs")).expect("main.r1cs");
    let [wires, pub_out, pub_in, prv_in] = header_counts(&r1cs);
    assert_eq!((pub_out, pub_in, prv_in), (2, 1, 4));
    // The .sym file names the wires in order: outputs, b, then a, c, d[0], d[1].
    let sym = std::fs::read_to_string(out.join("main.sym")).expect("main.sym");
    let names: Vec<&str> = sym
        .lines()
        .map(|l| l.rsplit(',').next().expect("a name"))
        .collect();
    assert_eq!(names.len() as u32, wires - 1);
    assert_eq!(
        names[..7],
        [
            "main.~out[0]",
            "main.~out[1]",
            "main.b",
            "main.a",
            "main.c",
            "main.d[0]",
            "main.d[1]"
        ]
    );
    assert!(names[7..].iter().all(|n| n.starts_with("main.~")), "{sym}");

    let snarkjs = match find_snarkjs() {
        Ok(exe) => exe,
        Err(why) => {
            eprintln!("skipping the Groth16 part: {why}");
            return;
        }
    };
    // The public values of a Groth16 proof are the outputs (3·5 + 2·4 = 23, 5 + 1 = 6) and b.
    let public = groth16_public(&snarkjs, &out, dir.path());
    assert_eq!(public, ["23", "6", "5"]);
}

/// Runs Groth16 setup, prove and verify on `out/main.{r1cs,wtns}` and returns `public.json`.
fn groth16_public(snarkjs: &Path, out: &Path, work: &Path) -> Vec<String> {
    let run = |args: &[&str]| {
        let o = Command::new(snarkjs)
            .args(args)
            .current_dir(work)
            .output()
            .expect("snarkjs runs");
        assert!(
            o.status.success(),
            "snarkjs {args:?}: {}{}",
            text(&o.stdout),
            text(&o.stderr)
        );
        text(&o.stdout)
    };
    let r1cs = out.join("main.r1cs").display().to_string();
    let wtns = out.join("main.wtns").display().to_string();
    run(&["powersoftau", "new", "bn128", "8", "pot0.ptau"]);
    run(&["powersoftau", "prepare", "phase2", "pot0.ptau", "pot.ptau"]);
    run(&["groth16", "setup", &r1cs, "pot.ptau", "main.zkey"]);
    run(&["zkey", "export", "verificationkey", "main.zkey", "vk.json"]);
    run(&[
        "groth16",
        "prove",
        "main.zkey",
        &wtns,
        "proof.json",
        "public.json",
    ]);
    let verdict = run(&["groth16", "verify", "vk.json", "public.json", "proof.json"]);
    assert!(verdict.contains("OK"), "{verdict}");
    let public = std::fs::read_to_string(work.join("public.json")).expect("public.json");
    serde_json::from_str(&public).expect("a JSON array of strings")
}

#[test]
fn a_block_based_export_names_the_private_inputs_it_makes_public() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let zok = write(
        dir.path(),
        "loop.zok",
        "def main(private field secret, u32 n) -> field {
    field mut acc = secret;
    for u32 i in 0..n {
        acc = acc * acc;
    }
    return acc;
}
",
    );
    let inputs = write(dir.path(), "loop.json", r#"{"secret": "3", "n": "4"}"#);
    let out = dir.path().join("out");
    let run = zkbc(&[
        "export",
        &zok,
        "--inputs",
        &inputs,
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let err = stderr(&run);
    assert!(
        err.contains("warning") && err.contains("`secret`") && !err.contains("`n`"),
        "{err}"
    );
    // --monolithic cannot make one block of a loop with a run-time bound: it says so.
    let mono = zkbc(&[
        "export",
        &zok,
        "--monolithic",
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(mono.status.code(), Some(2), "{}", stderr(&mono));
}

#[test]
fn export_without_inputs_writes_the_constraint_systems_alone() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("gcd");
    let run = zkbc(&[
        "export",
        "circuits/gcd.zok",
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let files: Vec<String> = std::fs::read_dir(&out)
        .expect("the directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(!files.is_empty());
    // The constraint systems and the manifest saying what they are; no witness.
    assert!(
        files
            .iter()
            .all(|f| f.ends_with(".r1cs") || f == "manifest.json"),
        "{files:?}"
    );
    assert!(files.iter().any(|f| f == "manifest.json"), "{files:?}");

    let one = dir.path().join("one");
    let zok = write(dir.path(), "p.zok", PROGRAM);
    let run = zkbc(&["export", &zok, "-o", one.to_str().expect("utf-8")]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let mut files: Vec<String> = std::fs::read_dir(&one)
        .expect("the directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    assert_eq!(files, ["main.r1cs", "main.sym"]);
}
