//! ZoKrates' input forms on ZoKrates' own programs (the suite in `../shared/peers/zokrates`):
//! every case of every program that compiles gives the same outcome — outputs, or a failure —
//! whether its inputs are our JSON object, a positional JSON array (ZoKrates' `--abi`), the
//! scalars of `compute-witness -a` (unsigned integers in hexadecimal), or the object with every
//! unsigned integer in hexadecimal. The scalars are laid out from `zkbc abi`'s JSON (ZoKrates'
//! `abi.json` shape), so the ABI is checked too. The CLI forms (`-a`, `--inputs -`) run once.
//!
//! Where the suite is absent the test says so and checks nothing else.

use serde_json::Value as J;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use zkbc::driver;
use zkbc::ir::interp;
use zkbc::opt::OptLevel;

fn suite_root() -> PathBuf {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_root
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/peers/zokrates"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| crate_root.join("../shared/peers/zokrates"))
}

/// `value` of ABI type `ty` with every unsigned integer in hexadecimal.
fn hex(ty: &J, value: &J) -> J {
    match ty["type"].as_str().expect("a type") {
        "u8" | "u16" | "u32" | "u64" => {
            let n: u64 = match value {
                J::String(s) => s.parse().expect("a decimal unsigned integer"),
                J::Number(n) => n.as_u64().expect("an unsigned integer"),
                other => panic!("not an unsigned integer: {other}"),
            };
            J::String(format!("{n:#x}"))
        }
        "array" => J::Array(
            value
                .as_array()
                .expect("an array")
                .iter()
                .map(|v| hex(&ty["components"], v))
                .collect(),
        ),
        "struct" => {
            let mut obj = serde_json::Map::new();
            for m in ty["components"]["members"].as_array().expect("members") {
                let name = m["name"].as_str().expect("a member name");
                obj.insert(name.into(), hex(m, &value[name]));
            }
            J::Object(obj)
        }
        "tuple" => J::Array(
            ty["components"]["elements"]
                .as_array()
                .expect("elements")
                .iter()
                .zip(value.as_array().expect("a tuple"))
                .map(|(t, v)| hex(t, v))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// The scalars of `value` of ABI type `ty`, in ZoKrates' `-a` order (bools as 0 and 1).
fn scalars(ty: &J, value: &J, out: &mut Vec<String>) {
    match (ty["type"].as_str().expect("a type"), value) {
        ("bool", J::Bool(b)) => out.push(if *b { "1" } else { "0" }.into()),
        ("array", J::Array(items)) => {
            for v in items {
                scalars(&ty["components"], v, out);
            }
        }
        ("struct", _) => {
            for m in ty["components"]["members"].as_array().expect("members") {
                scalars(m, &value[m["name"].as_str().expect("a name")], out);
            }
        }
        ("tuple", J::Array(items)) => {
            for (t, v) in ty["components"]["elements"]
                .as_array()
                .expect("elements")
                .iter()
                .zip(items)
            {
                scalars(t, v, out);
            }
        }
        (_, J::String(s)) => out.push(s.clone()),
        (_, J::Number(n)) => out.push(n.to_string()),
        (t, v) => panic!("a {t} cannot be {v}"),
    }
}

fn run(c: &driver::Compilation, inputs: &J) -> Result<J, String> {
    let values = c.inputs_from_json(inputs)?;
    interp::run(&c.program, &values, interp::Limits::default())
        .map(|out| c.outputs_to_json(&out.outputs))
        .map_err(|f| f.kind.to_string())
}

#[test]
fn every_input_form_gives_the_same_outcome_on_the_suite() {
    let root = suite_root();
    if !root.is_dir() {
        eprintln!("skipping: {} is absent", root.display());
        return;
    }
    let options = driver::Options {
        opt_level: OptLevel::O1,
        ..driver::Options::default()
    };
    let (mut cases_run, mut with_inputs) = (0, 0);
    for file in zkbc::report::measure::zokrates::zok_files(&root) {
        let name = file.display().to_string();
        let source = std::fs::read_to_string(&file).expect("readable");
        let Ok(compiled) = driver::compile(&name, &source, &options) else {
            continue; // unsupported programs are tests/zokrates_suite.rs's to list
        };
        let abi = zkbc::front::abi_of_source(&source)
            .expect("compiles")
            .to_zokrates_json();
        let params = abi["inputs"].as_array().expect("inputs").clone();
        let cases: J = serde_json::from_str(
            &std::fs::read_to_string(file.with_extension("cases.json")).expect("cases"),
        )
        .expect("cases JSON");
        for (k, case) in cases["cases"].as_array().expect("cases").iter().enumerate() {
            let object = &case["inputs"];
            let want = run(&compiled, object);
            let at = |form: &str| format!("{name} case {k}, {form}");
            let positional = J::Array(
                params
                    .iter()
                    .map(|p| object[p["name"].as_str().expect("a name")].clone())
                    .collect(),
            );
            assert_eq!(run(&compiled, &positional), want, "{}", at("JSON array"));

            let hexed = J::Object(
                params
                    .iter()
                    .map(|p| {
                        let n = p["name"].as_str().expect("a name");
                        (n.to_string(), hex(p, &object[n]))
                    })
                    .collect(),
            );
            assert_eq!(run(&compiled, &hexed), want, "{}", at("hexadecimal"));

            let mut args = Vec::new();
            for p in &params {
                scalars(p, &hexed[p["name"].as_str().expect("a name")], &mut args);
            }
            let from_args = driver::inputs_from_args(&name, &source, &args)
                .unwrap_or_else(|e| panic!("{}: {e}", at("-a")));
            assert_eq!(run(&compiled, &from_args), want, "{}", at("-a"));
            cases_run += 1;
            with_inputs += usize::from(!params.is_empty());
        }
    }
    println!("{cases_run} cases, {with_inputs} with inputs, in every form");
    assert!(with_inputs >= 100, "only {with_inputs} cases with inputs");
}

#[test]
fn the_cli_takes_dash_a_stdin_and_prints_the_abi() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let zok = dir.path().join("p.zok");
    std::fs::write(
        &zok,
        "struct P { u8 x; bool y; }
def main(private field a, u32 b, P[2] p) -> (field, u32) {
    u32 s = p[0].y && p[1].y && p[0].x < p[1].x ? b + 3 : b;
    return (a * 2, s);
}
",
    )
    .expect("writable");
    let zkbc = |args: &[&str], stdin: Option<&str>| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zkbc"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("zkbc runs");
        let written = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.unwrap_or("").as_bytes());
        // A command that does not read its stdin may exit before the write: the pipe is
        // closed, and its output (checked below) says whether it needed the input.
        match written {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.expect("written"),
        }
        let out = child.wait_with_output().expect("finishes");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let file = zok.to_str().expect("utf-8");
    let (code, out, err) = zkbc(
        &["run", file, "-a", "7", "0x10", "3", "1", "4", "true"],
        None,
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.trim(), r#"{"outputs":["14","19"]}"#);
    let (code, out, err) = zkbc(
        &["run", file, "--inputs", "-"],
        Some(r#"["7", "0x10", [{"x": "0x3", "y": true}, {"x": "4", "y": true}]]"#),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.trim(), r#"{"outputs":["14","19"]}"#);
    // One scalar short, and both forms at once: the user's mistakes, exit status 2.
    let (code, _, err) = zkbc(&["run", file, "-a", "7", "16", "3", "1", "4"], None);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("missing a `bool`"), "{err}");
    let (code, _, _) = zkbc(&["run", file, "--inputs", "-", "-a", "1"], Some("{}"));
    assert_eq!(code, Some(2));

    let (code, out, err) = zkbc(&["abi", file], None);
    assert_eq!(code, Some(0), "{err}");
    let abi: J = serde_json::from_str(&out).expect("JSON");
    assert_eq!(abi["inputs"][0]["name"], "a");
    assert_eq!(abi["inputs"][0]["public"], false);
    assert_eq!(abi["inputs"][1]["public"], true);
    assert_eq!(abi["inputs"][2]["type"], "array");
    assert_eq!(abi["inputs"][2]["components"]["size"], 2);
    assert_eq!(abi["inputs"][2]["components"]["type"], "struct");
    assert_eq!(
        abi["inputs"][2]["components"]["components"]["members"][1]["type"],
        "bool"
    );
    assert_eq!(abi["output"]["type"], "tuple");
    assert_eq!(abi["output"]["components"]["elements"][1]["type"], "u32");
}
