//! The Spartan verifier key (`zkbc setup --backend spartan --vk KEY`, `zkbc verify-proof --vk
//! KEY`): with it the verifier neither compiles the program nor derives the generators, and
//! the answers are the same as without it — honest proofs accepted (with and without memory),
//! the parameters' path still working beside it; a key made for another program refused
//! beside this program's file, a proof of another program refused under this program's key,
//! and a changed key refused (its generators, its statement). Also: `zkbc prove -o DIR/x.proof`
//! without `--public` writes the public values beside the proof, nothing in the current
//! directory.

use crate::common;
use common::{circuit, stderr, zkbc, zkbc_in};

use std::path::Path;

/// A run's files: [`common::Scratch`], with this test's commands.
struct Run(common::Scratch);

impl std::ops::Deref for Run {
    type Target = common::Scratch;
    fn deref(&self) -> &common::Scratch {
        &self.0
    }
}

impl Run {
    fn new() -> Run {
        Run(common::Scratch::new())
    }

    /// Setup (parameters `stem.hyrax`, key `stem.key`) and an honest proof of circuit `name`.
    fn prove(&self, name: &str, stem: &str) {
        let program = circuit(&format!("{name}.zok"));
        let out = zkbc(&[
            "setup",
            &program,
            "--backend",
            "spartan",
            "-o",
            &self.path(&format!("{stem}.hyrax")),
            "--vk",
            &self.path(&format!("{stem}.key")),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let out = zkbc(&[
            "prove",
            &program,
            "--inputs",
            &circuit(&format!("{name}.json")),
            "--backend",
            "spartan",
            "--pk",
            &self.path(&format!("{stem}.hyrax")),
            "-o",
            &self.path(&format!("{stem}.proof")),
            "--public",
            &self.path(&format!("{stem}.public.json")),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }

    /// `zkbc verify-proof` of circuit `name`'s file with `proof`, `public` and `vk` (files of
    /// this run): exit status and stderr.
    fn verify(&self, name: &str, proof: &str, public: &str, vk: &str) -> (Option<i32>, String) {
        let out = zkbc(&[
            "verify-proof",
            &circuit(&format!("{name}.zok")),
            &self.path(proof),
            "--public",
            &self.path(public),
            "--vk",
            &self.path(vk),
        ]);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{err}");
        (out.status.code(), err)
    }
}

#[test]
fn honest_proofs_verify_with_the_key_and_with_the_parameters() {
    let run = Run::new();
    // gcd has no memory; cobbl_find_min keeps its array in memory.
    for name in ["gcd", "cobbl_find_min"] {
        run.prove(name, name);
        let public = format!("{name}.public.json");
        let proof = format!("{name}.proof");
        let (code, err) = run.verify(name, &proof, &public, &format!("{name}.key"));
        assert_eq!(code, Some(0), "{name} with the key: {err}");
        let (code, err) = run.verify(name, &proof, &public, &format!("{name}.hyrax"));
        assert_eq!(code, Some(0), "{name} with the parameters: {err}");
    }
}

#[test]
fn keys_and_proofs_of_other_programs_and_changed_keys_are_refused() {
    let run = Run::new();
    run.prove("gcd", "gcd");
    run.prove("range_sum", "other");

    // The other program's key beside gcd's file: refused before verifying.
    let (code, err) = run.verify("gcd", "gcd.proof", "gcd.public.json", "other.key");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("made for another program"), "{err}");

    // gcd's proof under the other program's file and key: another circuit.
    let (code, err) = run.verify("range_sum", "gcd.proof", "gcd.public.json", "other.key");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("another circuit"), "{err}");

    // The other program's proof replayed under gcd's key: another circuit.
    let (code, err) = run.verify("gcd", "other.proof", "other.public.json", "gcd.key");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("another circuit"), "{err}");

    // A changed key: a generator's try or point (not a hashed point: malformed), the digest
    // in the header, and bytes of the statement (its matrices, near the end): never accepted.
    let key = std::fs::read(run.path("gcd.key")).unwrap();
    let counter = 52 + 32 + 4 + 8 * 5;
    let point = 52 + 32 + 4 + 8 * 1025 + 64 * 5 + 7;
    for (at, what) in [
        (counter, "a generator"),
        (point, "a generator's point"),
        (20, "the header's digest"),
        (key.len() - 20, "the statement"),
        (key.len() - 200, "the statement"),
        (key.len() * 3 / 4, "the statement"),
    ] {
        let mut changed = key.clone();
        changed[at] ^= 0x01;
        std::fs::write(run.path("changed.key"), &changed).unwrap();
        let (code, err) = run.verify("gcd", "gcd.proof", "gcd.public.json", "changed.key");
        assert!(
            matches!(code, Some(1 | 2)),
            "byte {at} ({what}): {code:?} {err}"
        );
        if what == "a generator" {
            assert!(err.contains("not zkbc's"), "{err}");
        }
    }
    // The key cut short.
    std::fs::write(run.path("short.key"), &key[..key.len() - 9]).unwrap();
    let (code, err) = run.verify("gcd", "gcd.proof", "gcd.public.json", "short.key");
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn public_values_go_beside_the_proof_not_into_the_current_directory() {
    let run = Run::new();
    let cwd = tempfile::tempdir().expect("a temporary directory");
    let program = circuit("gcd.zok");
    let params = run.path("gcd.hyrax");
    let out = zkbc(&["setup", &program, "--backend", "spartan", "-o", &params]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = zkbc_in(
        cwd.path(),
        &[
            "prove",
            &program,
            "--inputs",
            &circuit("gcd.json"),
            "--backend",
            "spartan",
            "--pk",
            &params,
            "-o",
            &run.path("x.proof"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(Path::new(&run.path("x.public.json")).exists());
    let left: Vec<_> = std::fs::read_dir(cwd.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let (code, err) = run.verify("gcd", "x.proof", "x.public.json", "gcd.hyrax");
    assert_eq!(code, Some(0), "{err}");
}
