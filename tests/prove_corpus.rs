//! The prover and the exporter on the whole corpus, through the real pipeline (-O3):
//! - every corpus program's honest proof verifies, and a proof is rejected after a single change
//!   to a witness value, to a round polynomial, or to a claimed sum;
//! - snarkjs reads every exported block instance (`r1cs.info`) and accepts the exported
//!   witnesses of its first two and last two executions (`wtns.check`), and rejects a witness
//!   with one value changed. Where node or
//!   snarkjs is absent the snarkjs part prints why and passes, except under CI with node.

use crate::common;
use common::corpus;

use std::path::Path;
use std::process::Command;
use zkbc::field::Fr;
use zkbc::ir::interp;
use zkbc::prove::{self, BlockInstance};
use zkbc::{driver, export};

/// The block instances of a corpus program's run, with the arguments between them (memory
/// check, transition permutation).
fn proof_instances(file: &Path) -> driver::proof::ProofInstances {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file).unwrap();
    let mut compiled = driver::compile(&name, &text, &driver::Options::default()).unwrap();
    driver::legalize_for_r1cs(&mut compiled.program).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file.with_extension("json")).unwrap())
            .unwrap();
    let values = compiled.inputs_from_json(&json).unwrap();
    let outcome = interp::run(&compiled.program, &values, interp::Limits::default()).unwrap();
    driver::proof::proof_instances(&compiled.program, &outcome, compiled.lower).unwrap()
}

/// The block instances alone (what `export` writes).
fn instances(file: &Path) -> Vec<BlockInstance> {
    let blocks = proof_instances(file).instances;
    blocks
        .into_iter()
        .filter(|i| !i.name.starts_with("memory.") && !i.name.starts_with("transitions."))
        .collect()
}

#[test]
fn honest_proofs_verify_and_single_changes_are_rejected() {
    let (mut checked, mut witnesses_changed) = (0, 0);
    for file in corpus() {
        let name = file.display();
        let with_arguments = proof_instances(&file);
        driver::proof::verify_arguments(&with_arguments)
            .unwrap_or_else(|e| panic!("{name}: honest arguments rejected: {e}"));
        let insts = with_arguments.instances;
        let proof = prove::prove(&insts).unwrap();
        prove::verify(&insts, &proof)
            .unwrap_or_else(|e| panic!("{name}: honest proof rejected: {e}"));
        // The report's cells and the prover's agree on what is being proven.
        assert!(prove::total_cells(&insts) > 0);

        // The block with the most rounds is where the changes go.
        let (b, _) = proof
            .blocks
            .iter()
            .enumerate()
            .max_by_key(|(_, p)| p.rounds.len())
            .unwrap();
        assert!(
            !proof.blocks[b].rounds.is_empty(),
            "{name}: no rounds to change"
        );

        let mut bad = proof.clone();
        bad.blocks[b].claimed_sum += Fr::from(1u64);
        assert!(
            prove::verify(&insts, &bad).is_err(),
            "{name}: changed claimed sum accepted"
        );

        let mut bad = proof.clone();
        let last = bad.blocks[b].rounds.len() - 1;
        bad.blocks[b].rounds[last][2] += Fr::from(1u64);
        assert!(
            prove::verify(&insts, &bad).is_err(),
            "{name}: changed round polynomial accepted"
        );

        // A witness value (after the constant and the instance variables) whose change breaks
        // a constraint — not every witness is determined in every execution (`eq`'s inverse is
        // free when its operands are equal), so the blocks are searched, most rounds first, and
        // their executions, last first: the verifier reads the witness, so the old proof no
        // longer fits it, and the changed execution no longer satisfies its instance.
        let mut order: Vec<usize> = (0..insts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(proof.blocks[i].rounds.len()));
        let target = order.iter().find_map(|&i| {
            let inst = &insts[i];
            let first_witness = 1 + inst.r1cs.num_instance;
            inst.executions.iter().enumerate().rev().find_map(|(e, z)| {
                (first_witness..z.len())
                    .find(|&k| {
                        let mut t = z.clone();
                        t[k] += Fr::from(1u64);
                        !satisfied(&inst.r1cs, &t)
                    })
                    .map(|k| (i, e, k))
            })
        });
        let has_witness = insts.iter().any(|i| i.r1cs.num_witness > 0);
        assert!(
            target.is_some() || !has_witness,
            "{name}: no witness change breaks a constraint"
        );
        if let Some((i, e, k)) = target {
            let mut changed = insts.clone();
            changed[i].executions[e][k] += Fr::from(1u64);
            assert!(
                prove::verify(&changed, &proof).is_err(),
                "{name}: old proof accepted a changed witness"
            );
            let reproved = prove::prove(&changed).unwrap();
            assert!(
                prove::verify(&changed, &reproved).is_err(),
                "{name}: changed witness proven"
            );
            witnesses_changed += 1;
        }
        checked += 1;
    }
    assert!(checked >= 25, "{checked} programs");
    assert!(
        witnesses_changed >= 25,
        "{witnesses_changed} witness changes"
    );
}

/// Whether `z` satisfies every constraint of `r1cs` (evaluated directly, not by the prover).
fn satisfied(r1cs: &zkbc::prove::SparseR1cs, z: &[Fr]) -> bool {
    let dot = |row: zkbc::prove::MatrixRow<'_>| {
        row.iter()
            .fold(Fr::from(0u64), |acc, (v, c)| acc + z[v] * c)
    };
    (0..r1cs.a.len()).all(|k| dot(r1cs.a.row(k)) * dot(r1cs.b.row(k)) == dot(r1cs.c.row(k)))
}

/// Where snarkjs is, or why the check is skipped.
fn node_with_snarkjs(script: &Path) -> Result<(), String> {
    let node = Command::new("node").arg("--version").output();
    if node.is_err() {
        return Err("node is not installed".into());
    }
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("node")
        .arg(script)
        .arg(dir.path())
        .output()
        .unwrap();
    match status.status.code() {
        Some(0) => Ok(()),
        _ if std::env::var_os("CI").is_some() => panic!(
            "node is installed but snarkjs cannot be loaded: {}",
            String::from_utf8_lossy(&status.stderr)
        ),
        _ => Err("snarkjs is not installed (npm install -g snarkjs@0.7.6)".into()),
    }
}

#[test]
fn snarkjs_accepts_the_exported_corpus() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/snarkjs_check_all.js");
    if let Err(why) = node_with_snarkjs(&script) {
        eprintln!("skipping the snarkjs check of the corpus: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut blocks, mut witnesses) = (0, 0);
    for file in corpus() {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        for mut inst in instances(&file) {
            // The format is what is under test (every witness is checked against its block in
            // Rust by `check_corpus`): the first two and last two executions of each block, so
            // that a loop run 1,000 times does not make snarkjs re-read its instance 1,000 times.
            if inst.executions.len() > 4 {
                let n = inst.executions.len();
                inst.executions.drain(2..n - 2);
            }
            let name = format!("{stem}_{}", inst.name);
            export::write_block(dir.path(), &name, &inst).unwrap();
            blocks += 1;
            witnesses += inst.executions.len();
        }
    }
    let out = Command::new("node")
        .arg(&script)
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "snarkjs rejects an export:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!("witnesses correct={witnesses} incorrect=0")),
        "{text}"
    );
    assert_eq!(
        text.lines()
            .filter(|l| l.contains(".r1cs constraints="))
            .count(),
        blocks
    );

    // One changed witness value is caught.
    let bad_dir = tempfile::tempdir().unwrap();
    let mut inst = instances(&corpus()[0]).remove(0);
    let z = &mut inst.executions[0];
    let k = z.len() - 1;
    z[k] += Fr::from(1u64);
    export::write_block(bad_dir.path(), "changed", &inst).unwrap();
    let out = Command::new("node")
        .arg(&script)
        .arg(bad_dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("incorrect=1"), "{text}");
}
