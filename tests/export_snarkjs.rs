//! Exported instances and witnesses checked by snarkjs itself: `snarkjs r1cs info` reads every
//! `.r1cs` and reports its counts, `snarkjs wtns check` accepts every satisfied execution and
//! rejects an unsatisfied one. A block's `.wtns` holds all its executions; snarkjs reads it as
//! it is (execution 0, its type-2 section), and each later execution as the one-witness file
//! `single_wtns` cuts out of it.
//!
//! snarkjs is found as `$SNARKJS`, on `PATH`, or in `node_modules/.bin` of the crate. Where node
//! or snarkjs is absent the test prints why and passes, except under CI (`CI` set), where a
//! machine with node must have snarkjs (`.ci/run` installs it with
//! `npm install -g snarkjs@0.7.6`).

use crate::common;
use common::find_snarkjs;

use std::path::{Path, PathBuf};
use std::process::Command;
use zkbc::export::{single_wtns, write_block};
use zkbc::field::Fr;
use zkbc::prove::{BlockInstance, SparseR1cs};
use zkbc_testkit::synthetic;

/// Runs snarkjs; returns (success, stdout + stderr).
fn snarkjs(exe: &Path, args: &[&Path]) -> (bool, String) {
    let mut command = Command::new(exe);
    command.args(args);
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.success(), text)
}

/// `snarkjs wtns check`: passes exactly when `expect_ok`, with snarkjs's own verdict line.
fn wtns_check(exe: &Path, r1cs: &Path, wtns: &Path, expect_ok: bool) {
    let (ok, text) = snarkjs(exe, &[Path::new("wtns"), Path::new("check"), r1cs, wtns]);
    let verdict = if expect_ok {
        "WITNESS IS CORRECT"
    } else {
        "WITNESS IS NOT CORRECT"
    };
    assert_eq!(ok, expect_ok, "wtns check {}:\n{text}", wtns.display());
    assert!(text.contains(verdict), "{}:\n{text}", wtns.display());
}

/// The witness files snarkjs checks for a block written by `write_block` (`.r1cs`, `.wtns`):
/// the block's `.wtns` itself for execution 0, then `NAME_eK.wtns` cut out for each later K.
fn witness_files(paths: &[PathBuf], executions: usize) -> Vec<PathBuf> {
    let wtns = &paths[1];
    let bytes = std::fs::read(wtns).unwrap();
    let mut files = vec![wtns.clone()];
    for k in 1..executions {
        let single = wtns.with_file_name(format!(
            "{}_e{k}.wtns",
            wtns.file_stem().unwrap().to_string_lossy()
        ));
        std::fs::write(&single, single_wtns(&bytes, k).expect("execution k")).unwrap();
        files.push(single);
    }
    files
}

/// `x·y = t`, `t·(x − 1) = out − 5`: a constant term and a negative coefficient.
/// z = [1, x, y, out, t].
fn affine_block() -> BlockInstance {
    let one = Fr::from(1u64);
    let r1cs = SparseR1cs {
        num_instance: 3,
        num_witness: 1,
        a: vec![vec![(1, one)], vec![(4, one)]].into(),
        b: vec![vec![(2, one)], vec![(0, -one), (1, one)]].into(),
        c: vec![vec![(4, one)], vec![(0, -Fr::from(5u64)), (3, one)]].into(),
    };
    let executions = [(3u64, 4u64), (0, 9)]
        .iter()
        .map(|&(x, y)| {
            let (x, y) = (Fr::from(x), Fr::from(y));
            let t = x * y;
            vec![one, x, y, t * (x - one) + Fr::from(5u64), t]
        })
        .collect();
    BlockInstance {
        name: "affine".into(),
        source: None,
        state: None,
        r1cs,
        executions,
    }
}

#[test]
fn snarkjs_accepts_exports_and_rejects_an_unsatisfied_witness() {
    let exe = match find_snarkjs() {
        Ok(exe) => exe,
        Err(reason) => {
            eprintln!("skipping the snarkjs export check: {reason}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let good = [affine_block(), synthetic::block("syn", 24, 2, 99)];
    let mut bad = synthetic::block("syn", 24, 2, 99);
    bad.executions[1][5] += Fr::from(1u64);
    assert!(good.iter().all(|b| b.first_unsatisfied().is_none()));
    assert_eq!(bad.first_unsatisfied().map(|(e, _)| e), Some(1));

    // (system, .r1cs, [.wtns...]); every good execution must pass.
    let mut cases = Vec::new();
    for block in &good {
        let paths = write_block(dir.path(), &block.name, block).unwrap();
        assert_eq!(paths.len(), 2, "one .r1cs and one .wtns");
        let wtns = witness_files(&paths, block.executions.len());
        cases.push((block.r1cs.clone(), paths[0].clone(), wtns));
    }
    // The bad block's .r1cs equals syn's and its execution 0 is syn's: snarkjs reads the file
    // as execution 0, correct; execution 1, cut out, is not.
    let bad_paths = write_block(dir.path(), "syn_bad", &bad).unwrap();
    let bad_wtns = witness_files(&bad_paths, bad.executions.len());

    // Each snarkjs start takes about half a second: run them all at once.
    std::thread::scope(|scope| {
        let mut jobs = Vec::new();
        let exe = &exe;
        let (bad_r1cs, bad_wtns) = (&bad_paths[0], &bad_wtns);
        jobs.push(scope.spawn(move || wtns_check(exe, bad_r1cs, &bad_wtns[0], true)));
        jobs.push(scope.spawn(move || wtns_check(exe, bad_r1cs, &bad_wtns[1], false)));
        for (r1cs, r1cs_path, wtns) in &cases {
            jobs.push(scope.spawn(move || {
                let (ok, text) = snarkjs(exe, &[Path::new("r1cs"), Path::new("info"), r1cs_path]);
                assert!(ok, "r1cs info {}:\n{text}", r1cs_path.display());
                for line in [
                    "Curve: bn-128".to_string(),
                    format!("# of Wires: {}", r1cs.num_vars()),
                    format!("# of Constraints: {}", r1cs.num_constraints()),
                    format!("# of Public Inputs: {}", r1cs.num_instance),
                    "# of Private Inputs: 0".to_string(),
                    "# of Outputs: 0".to_string(),
                ] {
                    assert!(text.contains(&line), "missing {line:?} in:\n{text}");
                }
            }));
            for w in wtns {
                jobs.push(scope.spawn(move || wtns_check(exe, r1cs_path, w, true)));
            }
        }
        for job in jobs {
            if let Err(panic) = job.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}
