//! Groth16 for one-circuit programs, end to end through the binary: `zkbc setup`, `zkbc prove
//! --backend groth16` and `zkbc verify-proof` as separate processes. An honest proof verifies;
//! a wrong public value, a flipped proof byte, a proof replayed against another program or
//! another setup, and malformed files are each refused (exit status 1 for a rejection, 2 for a
//! file that does not parse, never 0 and never a panic); no private input value appears in the
//! proof or the public values (the search is shown to work on the witness file, where they
//! are). With snarkjs present (`common::find_snarkjs`), zkbc's public values are snarkjs' for the
//! exported `main.r1cs`/`main.wtns`, and `snarkjs groth16 verify` accepts zkbc's proof. The
//! library itself refuses a malformed public list, an unsatisfied assignment, another circuit's
//! key and public values in another order, and every truncated proof file.

use crate::common;
use common::{find_snarkjs, stderr, stdout, zkbc};

use std::path::{Path, PathBuf};
use std::process::Command;
use zkbc::field::Fr;
use zkbc::prove::transcript::fr_to_bytes_le;
use zkbc::prove::{groth16, SparseR1cs};

/// main with private and public inputs (ZoKrates: public unless `private`); a and d[1] take
/// distinctive private values below.
const PROGRAM: &str =
    "def main(private field a, field b, private u32 c, private field[2] d) -> (field, field) {
    field s = a * b + d[0] * d[1];
    assert(c < 100);
    return (s, b + 1);
}
";

/// The same interface computing something else: another circuit with as many public values.
const OTHER: &str =
    "def main(private field a, field b, private u32 c, private field[2] d) -> (field, field) {
    field s = a + b + d[0] * d[1];
    assert(c < 100);
    return (s, b + 1);
}
";

/// The private `a`: 2^64 + 0x1234_5678_9abc_def1, distinctive in every encoding.
const SECRET_A: &str = "18446744078004252401";
/// The private `d[1]`.
const SECRET_D1: u64 = 0x0bad_cafe_f00d_5eed;

/// A temporary directory holding a program and its inputs.
struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        let case = Case {
            dir: tempfile::tempdir().expect("a temporary directory"),
        };
        case.write("p.zok", PROGRAM);
        case.write("other.zok", OTHER);
        case.write(
            "p.json",
            &format!(r#"{{"a": "{SECRET_A}", "b": "5", "c": "7", "d": ["2", "{SECRET_D1}"]}}"#),
        );
        case
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn write(&self, name: &str, contents: &str) -> String {
        std::fs::write(self.dir.path().join(name), contents).expect("writable");
        self.path(name)
    }

    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.dir.path().join(name)).expect("a file zkbc wrote")
    }

    /// `zkbc setup PROGRAM --monolithic --seed SEED -o STEM.pk --vk STEM.vk`.
    fn setup(&self, program: &str, seed: u64, stem: &str) {
        let out = zkbc(&[
            "setup",
            &self.path(program),
            "--monolithic",
            "--seed",
            &seed.to_string(),
            "-o",
            &self.path(&format!("{stem}.pk")),
            "--vk",
            &self.path(&format!("{stem}.vk")),
            "--snarkjs",
            &self.path(&format!("{stem}_snarkjs")),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(stderr(&out).contains("for tests only"), "{}", stderr(&out));
    }

    /// `zkbc prove p.zok --backend groth16` on p.json with the key `stem.pk`: `p.proof`,
    /// `p.public.json` and snarkjs' JSON in `p_snarkjs/`.
    fn prove(&self, stem: &str) -> std::process::Output {
        zkbc(&[
            "prove",
            &self.path("p.zok"),
            "--monolithic",
            "--inputs",
            &self.path("p.json"),
            "--backend",
            "groth16",
            "--pk",
            &self.path(&format!("{stem}.pk")),
            "-o",
            &self.path("p.proof"),
            "--public",
            &self.path("p.public.json"),
            "--snarkjs",
            &self.path("p_snarkjs"),
        ])
    }

    /// `zkbc verify-proof PROGRAM PROOF --public PUBLIC --vk VK`: its exit status and stderr.
    fn verify(&self, program: &str, proof: &str, public: &str, vk: &str) -> (Option<i32>, String) {
        let out = zkbc(&[
            "verify-proof",
            &self.path(program),
            &self.path(proof),
            "--monolithic",
            "--public",
            &self.path(public),
            "--vk",
            &self.path(vk),
        ]);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{err}");
        if out.status.success() {
            assert!(stdout(&out).contains("proof accepted"), "{}", stdout(&out));
        }
        (out.status.code(), err)
    }

    /// Setup and an honest proof of p.zok with the key of seed 1.
    fn proved() -> Case {
        let case = Case::new();
        case.setup("p.zok", 1, "p");
        let out = case.prove("p");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        case
    }
}

/// The public values: outputs (a·5 + 2·d1, 5 + 1), then b.
fn expected_public() -> Vec<String> {
    let a: Fr = SECRET_A.parse().expect("a decimal");
    let s = a * Fr::from(5u64) + Fr::from(2u64) * Fr::from(SECRET_D1);
    vec![zkbc::field::to_dec(&s), "6".into(), "5".into()]
}

#[test]
fn an_honest_proof_verifies_in_a_separate_process() {
    let case = Case::proved();
    let public: Vec<String> =
        serde_json::from_slice(&case.read("p.public.json")).expect("a JSON array");
    assert_eq!(public, expected_public());
    let (code, err) = case.verify("p.zok", "p.proof", "p.public.json", "p.vk");
    assert_eq!(code, Some(0), "{err}");
    // The JSON verdict, accepted and rejected.
    let public_path = case.path("p.public.json");
    let wrong = case.write("wrong.json", r#"["1", "6", "5"]"#);
    for (public, verified, code) in [(&public_path, true, 0), (&wrong, false, 1)] {
        let out = zkbc(&[
            "verify-proof",
            &case.path("p.zok"),
            &case.path("p.proof"),
            "--monolithic",
            "--public",
            public,
            "--vk",
            &case.path("p.vk"),
            "--format",
            "json",
        ]);
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        assert_eq!(json["verified"], verified, "{json}");
        assert_eq!(json["rejected"].is_null(), verified, "{json}");
    }
    // A proof is the 56-byte header and three compressed points.
    assert_eq!(case.read("p.proof").len(), 56 + 128);
}

#[test]
fn a_wrong_public_value_is_rejected() {
    let case = Case::proved();
    let mut public = expected_public();
    for k in 0..public.len() {
        let honest = public[k].clone();
        public[k] = "7".into();
        case.write("bad.json", &serde_json::to_string(&public).expect("JSON"));
        let (code, err) = case.verify("p.zok", "p.proof", "bad.json", "p.vk");
        assert_eq!(code, Some(1), "public value {k} changed: {err}");
        assert!(err.contains("pairing check fails"), "{err}");
        public[k] = honest;
    }
    // One value too few is the statement of another circuit: rejected too.
    public.pop();
    case.write("short.json", &serde_json::to_string(&public).expect("JSON"));
    let (code, err) = case.verify("p.zok", "p.proof", "short.json", "p.vk");
    assert_eq!(code, Some(1), "{err}");
}

#[test]
fn a_flipped_proof_byte_is_rejected_or_does_not_parse() {
    let case = Case::proved();
    let proof = case.read("p.proof");
    // Every header byte that is read, and bytes across A, B and C.
    let positions = (0..56)
        .filter(|i| !(48..56).contains(i))
        .chain((56..proof.len()).step_by(7));
    for i in positions {
        let mut flipped = proof.clone();
        flipped[i] ^= 0x01;
        std::fs::write(case.dir.path().join("flipped.proof"), &flipped).expect("writable");
        let (code, err) = case.verify("p.zok", "flipped.proof", "p.public.json", "p.vk");
        assert!(
            matches!(code, Some(1) | Some(2)),
            "byte {i} flipped: exit {code:?}: {err}"
        );
        // A flipped digest names the other circuit; a flipped point is refused by the pairing
        // check or by the point decoding.
        if (12..44).contains(&i) {
            assert!(err.contains("another circuit"), "byte {i}: {err}");
        }
    }
}

#[test]
fn a_proof_replayed_against_another_program_is_rejected() {
    let case = Case::proved();
    case.setup("other.zok", 1, "other");
    // As written, the proof names its own circuit.
    let (code, err) = case.verify("other.zok", "p.proof", "p.public.json", "other.vk");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("another circuit"), "{err}");
    // With the other circuit's digest written into it, the pairing check refuses it.
    let mut proof = case.read("p.proof");
    proof[12..44].copy_from_slice(&case.read("other.vk")[12..44]);
    std::fs::write(case.dir.path().join("relabelled.proof"), &proof).expect("writable");
    let (code, err) = case.verify("other.zok", "relabelled.proof", "p.public.json", "other.vk");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("pairing check fails"), "{err}");
    // The other program's key with this program: the key is for another circuit.
    let (code, err) = case.verify("p.zok", "p.proof", "p.public.json", "other.vk");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("another circuit"), "{err}");
    // The same program under another setup: same circuit, other keys; the pairing refuses.
    case.setup("p.zok", 2, "p2");
    assert_ne!(case.read("p.vk"), case.read("p2.vk"));
    let (code, err) = case.verify("p.zok", "p.proof", "p.public.json", "p2.vk");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("pairing check fails"), "{err}");
    // A proving key of another program is refused by `prove`.
    let out = case.prove("other");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("another circuit"), "{}", stderr(&out));
}

#[test]
fn a_seeded_setup_is_reproducible_and_proofs_are_randomized() {
    let case = Case::proved();
    std::fs::rename(
        case.dir.path().join("p.proof"),
        case.dir.path().join("first.proof"),
    )
    .expect("renamable");
    case.setup("p.zok", 1, "again");
    assert_eq!(case.read("p.vk"), case.read("again.vk"));
    assert_eq!(case.read("p.pk"), case.read("again.pk"));
    // A second proof of the same statement is a different proof (fresh r, s), and verifies.
    let out = case.prove("p");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(case.read("first.proof"), case.read("p.proof"));
    let (code, err) = case.verify("p.zok", "first.proof", "p.public.json", "p.vk");
    assert_eq!(code, Some(0), "{err}");
}

/// Every encoding of `value` a careless writer would put in a file: its 32-byte little- and
/// big-endian forms, their low 8 bytes, and its decimal text.
fn encodings(value: &Fr) -> Vec<Vec<u8>> {
    let le = fr_to_bytes_le(value).to_vec();
    let be: Vec<u8> = le.iter().rev().copied().collect();
    vec![
        le[..8].to_vec(),
        be[24..].to_vec(),
        le,
        be,
        zkbc::field::to_dec(value).into_bytes(),
    ]
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn no_private_input_appears_in_the_proof_or_the_public_values() {
    let case = Case::proved();
    let secrets = [
        SECRET_A.parse::<Fr>().expect("a decimal"),
        Fr::from(SECRET_D1),
    ];
    for file in ["p.proof", "p.public.json", "p_snarkjs/proof.json"] {
        let bytes = case.read(file);
        for secret in &secrets {
            for needle in encodings(secret) {
                assert!(!contains(&bytes, &needle), "{file} holds a private value");
            }
        }
    }
    // The search finds them where they are: the witness file of the same program and inputs.
    let out = zkbc(&[
        "export",
        &case.path("p.zok"),
        "--monolithic",
        "--inputs",
        &case.path("p.json"),
        "-o",
        &case.path("export"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let wtns = case.read("export/main.wtns");
    for secret in &secrets {
        assert!(
            contains(&wtns, &fr_to_bytes_le(secret)),
            "the witness holds {secret}"
        );
    }
}

#[test]
fn malformed_files_are_errors_not_panics() {
    let case = Case::proved();
    let proof = case.read("p.proof");
    let vk = case.read("p.vk");
    let mut cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", Vec::new(), "shorter than"),
        (
            "truncated",
            proof[..proof.len() - 1].to_vec(),
            "payload bytes",
        ),
        ("header only", proof[..56].to_vec(), "payload bytes"),
        (
            "a verifying key",
            vk.clone(),
            "a verifying key, not a proof",
        ),
        ("text", b"{\"pi_a\": []}".repeat(8), "wrong magic"),
    ];
    let mut version = proof.clone();
    version[8] = 2;
    cases.push(("version 2", version, "format version 2"));
    let mut longer = proof.clone();
    longer.push(0);
    cases.push(("a byte more", longer, "payload bytes"));
    for (what, bytes, message) in cases {
        std::fs::write(case.dir.path().join("bad.proof"), &bytes).expect("writable");
        let (code, err) = case.verify("p.zok", "bad.proof", "p.public.json", "p.vk");
        assert_eq!(code, Some(2), "{what}: {err}");
        assert!(
            err.contains(message) && err.contains("bad.proof"),
            "{what}: {err}"
        );
    }
    // A malformed verifying key and public values are errors too.
    std::fs::write(case.dir.path().join("bad.vk"), &vk[..vk.len() - 3]).expect("writable");
    let (code, err) = case.verify("p.zok", "p.proof", "p.public.json", "bad.vk");
    assert_eq!((code, err.contains("bad.vk")), (Some(2), true), "{err}");
    for public in [
        r#"{"a": 1}"#,
        r#"["-1"]"#,
        r#"["x"]"#,
        "[",
        &format!(r#"["{}"]"#, zkbc::field::MODULUS_DEC),
    ] {
        case.write("bad.json", public);
        let (code, err) = case.verify("p.zok", "p.proof", "bad.json", "p.vk");
        assert_eq!(code, Some(2), "{public}: {err}");
    }
}

#[test]
fn a_program_of_several_blocks_has_no_groth16_circuit() {
    let case = Case::new();
    let program = case.write(
        "loop.zok",
        "def main(field x, u32 n) -> field {
    field mut acc = x;
    for u32 i in 0..n {
        acc = acc * acc;
    }
    return acc;
}
",
    );
    let out = zkbc(&["setup", &program, "--seed", "1", "-o", &case.path("l.pk")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("one circuit"), "{}", stderr(&out));
}

/// Runs snarkjs in `work`; returns (success, stdout + stderr).
fn snarkjs(exe: &Path, work: &Path, args: &[&str]) -> (bool, String) {
    let o = Command::new(exe)
        .args(args)
        .current_dir(work)
        .output()
        .expect("snarkjs runs");
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (o.status.success(), text)
}

#[test]
fn snarkjs_agrees_on_the_public_values_and_verifies_zkbcs_proof() {
    let exe = match find_snarkjs() {
        Ok(exe) => exe,
        Err(why) => {
            eprintln!("skipping the snarkjs cross-check: {why}");
            return;
        }
    };
    let case = Case::proved();
    let work: PathBuf = case.dir.path().to_path_buf();
    // snarkjs verifies zkbc's proof with zkbc's verifying key, both in its own JSON.
    let vk = case.path("p_snarkjs/verification_key.json");
    let proof = case.path("p_snarkjs/proof.json");
    let public = case.path("p_snarkjs/public.json");
    let (ok, text) = snarkjs(&exe, &work, &["groth16", "verify", &vk, &public, &proof]);
    assert!(ok && text.contains("OK"), "{text}");
    // ... and rejects it for another output.
    let mut wrong = expected_public();
    wrong[1] = "7".into();
    let wrong = case.write("wrong.json", &serde_json::to_string(&wrong).expect("JSON"));
    let (ok, text) = snarkjs(&exe, &work, &["groth16", "verify", &vk, &wrong, &proof]);
    assert!(!ok || !text.contains("OK!"), "{text}");

    // snarkjs' own Groth16 on the exported circuit publishes the same values, in the same order.
    let out = zkbc(&[
        "export",
        &case.path("p.zok"),
        "--monolithic",
        "--inputs",
        &case.path("p.json"),
        "-o",
        &case.path("export"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r1cs = case.path("export/main.r1cs");
    let wtns = case.path("export/main.wtns");
    for args in [
        &["powersoftau", "new", "bn128", "8", "pot0.ptau"][..],
        &["powersoftau", "prepare", "phase2", "pot0.ptau", "pot.ptau"],
        &["groth16", "setup", &r1cs, "pot.ptau", "main.zkey"],
        &[
            "groth16",
            "prove",
            "main.zkey",
            &wtns,
            "sj_proof.json",
            "sj_public.json",
        ],
    ] {
        let (ok, text) = snarkjs(&exe, &work, args);
        assert!(ok, "snarkjs {args:?}: {text}");
    }
    let theirs: Vec<String> =
        serde_json::from_slice(&case.read("sj_public.json")).expect("a JSON array");
    let ours: Vec<String> =
        serde_json::from_slice(&case.read("p.public.json")).expect("a JSON array");
    assert_eq!(ours, theirs);
    assert_eq!(ours, expected_public());
}

/// `x · x = y` and `y + x = s` with y and s public: z = [1, y, x, s].
fn square_circuit(public: &[usize]) -> Result<groth16::Circuit, groth16::Groth16Error> {
    let one = Fr::from(1u64);
    let r1cs = SparseR1cs {
        num_instance: 3,
        num_witness: 0,
        a: vec![vec![(2, one)], vec![(1, one), (2, one)]].into(),
        b: vec![vec![(2, one)], vec![(0, one)]].into(),
        c: vec![vec![(1, one)], vec![(3, one)]].into(),
    };
    groth16::Circuit::new(&r1cs, public)
}

#[test]
fn the_library_refuses_what_is_not_a_statement() {
    use groth16::Groth16Error;
    // The constant, an index out of range and a repeated variable are not public values.
    for public in [&[0][..], &[4], &[1, 1]] {
        assert!(
            matches!(square_circuit(public), Err(Groth16Error::Circuit(_))),
            "{public:?}"
        );
    }
    // The order of the public values is part of the statement: another order, another digest.
    let circuit = square_circuit(&[1, 3]).expect("a circuit");
    let swapped = square_circuit(&[3, 1]).expect("a circuit");
    assert_ne!(circuit.digest(), swapped.digest());
    let (pk, vk) = groth16::setup_seeded(&circuit, 3).expect("setup");
    let z = |x: u64, y: u64| vec![Fr::from(1u64), Fr::from(y), Fr::from(x), Fr::from(x + y)];
    // An unsatisfied assignment is an error, not a proof; so is a key of another circuit.
    assert_eq!(
        groth16::prove(&pk, &circuit, &z(3, 10)),
        Err(Groth16Error::Unsatisfied(0))
    );
    assert_eq!(
        groth16::prove(&pk, &swapped, &z(3, 9)),
        Err(Groth16Error::OtherCircuit)
    );
    assert!(matches!(
        groth16::prove(&pk, &circuit, &z(3, 9)[..3]),
        Err(Groth16Error::AssignmentLength { .. })
    ));
    let proof = groth16::prove(&pk, &circuit, &z(3, 9)).expect("a proof");
    assert_eq!(
        circuit.public_values(&z(3, 9)),
        [Fr::from(9u64), Fr::from(12u64)]
    );
    assert_eq!(
        groth16::verify(&vk, &proof, &[Fr::from(9u64), Fr::from(12u64)]),
        Ok(())
    );
    // The public values in the other order are another statement.
    assert_eq!(
        groth16::verify(&vk, &proof, &[Fr::from(12u64), Fr::from(9u64)]),
        Err(groth16::Rejection::Pairing)
    );
    // The files read back to the same key and proof, and each refuses the other kinds.
    let proof_bytes = proof.to_bytes();
    let vk_bytes = vk.to_bytes();
    let pk_bytes = pk.to_bytes();
    assert_eq!(groth16::Proof::from_bytes(&proof_bytes), Ok(proof));
    assert_eq!(groth16::VerifyingKey::from_bytes(&vk_bytes), Ok(vk));
    assert_eq!(groth16::ProvingKey::from_bytes(&pk_bytes), Ok(pk));
    assert!(groth16::Proof::from_bytes(&vk_bytes).is_err());
    assert!(groth16::VerifyingKey::from_bytes(&pk_bytes).is_err());
    assert!(groth16::ProvingKey::from_bytes(&proof_bytes).is_err());
    // Every truncation of a proof is an error, never a panic.
    for len in 0..proof_bytes.len() {
        assert!(
            groth16::Proof::from_bytes(&proof_bytes[..len]).is_err(),
            "{len}"
        );
    }
}
