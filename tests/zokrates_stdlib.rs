//! ZoKrates' standard library tests (`../shared/peers/zokrates-stdlib/tests`, read at test time,
//! never copied), run twice: with `--stdlib-path` on the shared copy of ZoKrates 0.8.8's library,
//! and with zkbc's own library built into the binary (no `--stdlib-path`). The yardsticks
//! (`yardsticks/`, one program per library entry point on private inputs) are compiled with the
//! built-in library.
//!
//! Each spec (`*.json`, schema in that folder's README) names a program and cases: inputs in
//! ZoKrates' encoding (positional; `abi: false` means main's parameters flattened to field
//! elements) and the expected output (fixed-width lower-case hex for `uN`, the bare value for a
//! single result, an array for a tuple, `[]` for none; `abi: false` flattens it to field
//! elements). The test translates both to zkbc's encoding, compiles the program at `-O1` and
//! runs it in the interpreter. Specs for another curve than BN254 (`snark/gm17`, BW6-761) are
//! skipped with the reason printed; every other case must pass, except those in
//! [`KNOWN_FAILURES`] (with the shared library) and [`BUILTIN_KNOWN_FAILURES`] (with zkbc's),
//! which must still fail (so the lists only shrink). The specs in [`BUILTIN_COMPAT`] test a
//! semantics of ZoKrates' where zkbc's differs on purpose and run with `--compat zokrates`
//! against the built-in library.
//!
//! Where the shared folder is absent the test says so and checks nothing else.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use zkbc::driver;
use zkbc::front::typed::Type;
use zkbc::front::Compat;
use zkbc::ir::interp;
use zkbc::opt::OptLevel;

/// Cases zkbc does not pass yet with ZoKrates' library: (spec, case index), and why.
const KNOWN_FAILURES: &[(&str, usize, &str)] = &[];

/// Cases zkbc does not pass yet with its built-in library: (spec, case index), and why.
const BUILTIN_KNOWN_FAILURES: &[(&str, usize, &str)] = &[];

/// Specs that test ZoKrates' semantics where zkbc's differs (`field_to_uN` truncates a value
/// that does not fit in ZoKrates, fails in zkbc): run with `--compat zokrates` against the
/// built-in library, whose cast conversions are the checker's built-ins.
const BUILTIN_COMPAT: &[&str] = &["utils/casts/field_to_uint.json"];

/// Yardsticks that do not compile with the built-in library yet, and why.
const BUILTIN_YARDSTICKS_MISSING: &[(&str, &str)] = &[];

/// The shared folder: `shared/peers/zokrates-stdlib` beside the crate or one of its ancestors
/// (a git worktree sits one level deeper than the main checkout).
fn peer_root() -> PathBuf {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_root
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates-stdlib"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| crate_root.join("../shared/peers/zokrates-stdlib"))
}

fn specs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            specs(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

/// A decimal string of a `0x` hexadecimal one (any length); other strings unchanged.
fn hex_to_decimal(s: &str) -> String {
    let Some(hex) = s.strip_prefix("0x") else {
        return s.to_string();
    };
    // Little-endian base-10^9 limbs.
    let mut limbs: Vec<u64> = vec![0];
    for c in hex.chars() {
        let d = u64::from(c.to_digit(16).expect("a hex digit"));
        let mut carry = d;
        for limb in limbs.iter_mut() {
            let v = *limb * 16 + carry;
            *limb = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut out = limbs.last().expect("a limb").to_string();
    for limb in limbs.iter().rev().skip(1) {
        out.push_str(&format!("{limb:09}"));
    }
    out
}

/// ZoKrates' ABI input value to zkbc's (hex strings to decimal).
fn input_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(hex_to_decimal(s)),
        Value::Array(xs) => Value::Array(xs.iter().map(input_value).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), input_value(x))).collect())
        }
        other => other.clone(),
    }
}

/// zkbc's output value of type `ty` in ZoKrates' ABI encoding.
fn abi_output(v: &Value, ty: &Type) -> Value {
    match (ty, v) {
        (Type::Uint(w), Value::String(s)) => {
            let n: u64 = s.parse().expect("a decimal uN");
            Value::String(format!("0x{n:0width$x}", width = (*w / 4) as usize))
        }
        (Type::Array(elem, _), Value::Array(xs)) => {
            Value::Array(xs.iter().map(|x| abi_output(x, elem)).collect())
        }
        (Type::Tuple(ts), Value::Array(xs)) => {
            Value::Array(xs.iter().zip(ts).map(|(x, t)| abi_output(x, t)).collect())
        }
        (Type::Struct(s), Value::Object(m)) => Value::Object(
            s.fields
                .iter()
                .map(|(name, t)| (name.clone(), abi_output(&m[name], t)))
                .collect(),
        ),
        _ => v.clone(),
    }
}

/// zkbc's output value flattened to field elements (ZoKrates' `abi: false`).
fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Bool(b) => out.push(json!(if *b { "1" } else { "0" })),
        Value::Array(xs) => xs.iter().for_each(|x| flatten(x, out)),
        Value::Object(m) => m.values().for_each(|x| flatten(x, out)),
        other => out.push(other.clone()),
    }
}

/// Runs one case; `Err` says why it does not match.
fn run_case(c: &driver::Compilation, case: &Value, abi: bool) -> Result<(), String> {
    let abi_sig = c.abi.as_ref().expect("a .zok program has an ABI");
    let values = case["input"]["values"]
        .as_array()
        .ok_or("input.values is not an array")?;
    let inputs = if abi {
        let mut m = serde_json::Map::new();
        for (p, v) in abi_sig.params.iter().zip(values) {
            m.insert(p.name.clone(), input_value(v));
        }
        Value::Object(m)
    } else {
        let args: Vec<String> = values
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect();
        abi_sig.inputs_from_args(&args)?
    };
    let inputs = c.inputs_from_json(&inputs)?;
    let out = interp::run(&c.program, &inputs, interp::Limits::default())
        .map_err(|e| format!("run fails: {e}"))?;
    let outputs = c.outputs_to_json(&out.outputs)["outputs"].clone();
    let outputs = outputs.as_array().cloned().unwrap_or_default();
    let got = if abi {
        let encoded: Vec<Value> = outputs
            .iter()
            .zip(&abi_sig.outputs)
            .map(|(v, t)| abi_output(v, t))
            .collect();
        match encoded.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(encoded),
        }
    } else {
        let mut flat = Vec::new();
        outputs.iter().for_each(|v| flatten(v, &mut flat));
        Value::Array(flat)
    };
    let expected = &case["output"]["Ok"]["value"];
    if got == *expected {
        Ok(())
    } else {
        Err(format!("outputs {got}, expected {expected}"))
    }
}

#[test]
fn zokrates_stdlib_specs() {
    let root = peer_root();
    let stdlib = root.join("stdlib");
    if !stdlib.is_dir() {
        eprintln!(
            "skipped: the ZoKrates standard library is not at {}",
            root.display()
        );
        return;
    }
    run_specs(
        &root,
        Some(stdlib),
        KNOWN_FAILURES,
        "ZoKrates' library (--stdlib-path)",
    );
}

#[test]
fn zokrates_stdlib_specs_with_the_builtin_library() {
    let root = peer_root();
    if !root.join("tests").is_dir() {
        eprintln!(
            "skipped: ZoKrates' stdlib tests are not at {}",
            root.display()
        );
        return;
    }
    run_specs(
        &root,
        None,
        BUILTIN_KNOWN_FAILURES,
        "zkbc's built-in library",
    );
}

/// Runs every spec under `root/tests` with the library `stdlib` (`None`: the built-in one) and
/// asserts that the cases pass except the `known` failures.
fn run_specs(
    root: &Path,
    stdlib: Option<PathBuf>,
    known_failures: &[(&str, usize, &str)],
    label: &str,
) {
    let builtin = stdlib.is_none();
    let mut files = Vec::new();
    specs(&root.join("tests"), &mut files);
    let options = driver::Options {
        opt_level: OptLevel::O1,
        stdlib,
        ..driver::Options::default()
    };
    let (mut passed, mut total, mut skipped) = (0, 0, 0);
    let mut unexpected = Vec::new();
    for spec_path in &files {
        let spec_name = spec_path
            .strip_prefix(root.join("tests"))
            .expect("under tests/")
            .display()
            .to_string();
        let spec: Value = serde_json::from_str(
            &std::fs::read_to_string(spec_path).expect("the spec is readable"),
        )
        .expect("the spec is JSON");
        let cases = spec["tests"].as_array().cloned().unwrap_or_default();
        let curves = spec["curves"].as_array().cloned().unwrap_or_default();
        if !curves.is_empty() && !curves.contains(&json!("Bn128")) {
            eprintln!(
                "skipped {spec_name} ({} cases): curves {} (zkbc compiles for BN254 only)",
                cases.len(),
                Value::Array(curves)
            );
            skipped += cases.len();
            continue;
        }
        let program = match spec["entry_point"].as_str() {
            Some(e) => {
                let e = e.strip_prefix("./").unwrap_or(e);
                match e.strip_prefix("tests/tests/") {
                    Some(t) => root.join("tests").join(t),
                    None => root.join(e),
                }
            }
            None => spec_path.with_extension("zok"),
        };
        let name = program.display().to_string();
        let mut options = options.clone();
        if builtin && BUILTIN_COMPAT.contains(&spec_name.as_str()) {
            options.compat = Compat::Zokrates;
        }
        let compiled = std::fs::read_to_string(&program)
            .map_err(|e| e.to_string())
            .and_then(|text| driver::compile(&name, &text, &options).map_err(|e| e.to_string()));
        let spec_abi = spec["abi"].as_bool().unwrap_or(true);
        for (i, case) in cases.iter().enumerate() {
            total += 1;
            let abi = case["abi"].as_bool().unwrap_or(spec_abi);
            let result = match &compiled {
                Ok(c) => run_case(c, case, abi),
                Err(e) => Err(format!("does not compile: {e}")),
            };
            let known = known_failures
                .iter()
                .find(|(s, k, _)| *s == spec_name && *k == i);
            match (result, known) {
                (Ok(()), None) => passed += 1,
                (Ok(()), Some(_)) => unexpected.push(format!(
                    "{spec_name} case {i}: passes; remove it from KNOWN_FAILURES"
                )),
                (Err(e), None) => unexpected.push(format!("{spec_name} case {i}: {e}")),
                (Err(e), Some((_, _, why))) => {
                    eprintln!("known failure {spec_name} case {i} ({why}): {e}")
                }
            }
        }
    }
    eprintln!("{label}: {passed} of {total} cases pass ({skipped} skipped: another curve)");
    assert!(
        unexpected.is_empty(),
        "{} unexpected results:\n{}",
        unexpected.len(),
        unexpected.join("\n\n")
    );
}

/// Every yardstick (one program per library entry point, on private inputs) compiles with the
/// built-in library, except those in [`BUILTIN_YARDSTICKS_MISSING`]; prints a table of each
/// one's compile time at `-O1`.
#[test]
fn yardsticks_compile_with_the_builtin_library() {
    let dir = peer_root().join("yardsticks");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: the yardsticks are not at {}", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "zok"))
        .collect();
    files.sort();
    let options = driver::Options {
        opt_level: OptLevel::O1,
        ..driver::Options::default()
    };
    let (mut compiled, mut unexpected) = (0, Vec::new());
    eprintln!("{:<36} {:>12}  result (-O1)", "yardstick", "compile");
    for path in &files {
        let file = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .to_string();
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("the yardstick is readable");
        let start = std::time::Instant::now();
        let result = driver::compile(&name, &text, &options);
        let took = start.elapsed();
        let missing = BUILTIN_YARDSTICKS_MISSING.iter().find(|(f, _)| *f == file);
        match (&result, missing) {
            (Ok(_), None) => {
                compiled += 1;
                let ms = took.as_millis();
                eprintln!("{file:<36} {ms:>10}ms  compiles");
            }
            (Ok(_), Some(_)) => unexpected.push(format!(
                "{file}: compiles; remove it from BUILTIN_YARDSTICKS_MISSING"
            )),
            (Err(e), None) => unexpected.push(format!("{file}: {e}")),
            (Err(_), Some((_, why))) => eprintln!("{file:<36} {:>12}  missing: {why}", "-"),
        }
    }
    eprintln!(
        "{compiled} of {} yardsticks compile with the built-in library",
        files.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} unexpected results:\n{}",
        unexpected.len(),
        unexpected.join("\n\n")
    );
}
