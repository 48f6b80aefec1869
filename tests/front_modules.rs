//! The module system on small programs written to a temporary folder: imports relative to the
//! importing file and against a standard library root, `import "p" as x` and `from "p" import`,
//! the built-in `EMBED`, and every import mistake as a located diagnostic that names the file
//! and the imports that led there.

use std::path::Path;
use zkbc::front::{self, FrontOptions};

/// Writes `files` (relative path, text) under a new temporary folder.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("folders");
        std::fs::write(p, text).expect("the file is written");
    }
    dir
}

fn options(stdlib: Option<&Path>) -> FrontOptions {
    FrontOptions {
        stdlib: stdlib.map(Path::to_path_buf),
        ..FrontOptions::default()
    }
}

/// Compiles `root/main.zok` and runs it on `inputs`; the outputs as JSON text.
fn run(dir: &Path, stdlib: Option<&Path>, inputs: serde_json::Value) -> Result<String, String> {
    let main = dir.join("main.zok");
    let name = main.display().to_string();
    let text = std::fs::read_to_string(&main).expect("main.zok");
    let (program, abi) =
        front::compile_file(&name, &text, &options(stdlib)).map_err(|d| d.render(&name, &text))?;
    let values = abi.inputs_from_json(&inputs)?;
    let out =
        zkbc::ir::interp::run(&program, &values, Default::default()).map_err(|e| e.to_string())?;
    Ok(abi.outputs_to_json(&out.outputs).to_string())
}

/// The rendered error of compiling `root/main.zok`, with the folder's path replaced by `ROOT`.
fn error(dir: &Path, stdlib: Option<&Path>) -> String {
    let main = dir.join("main.zok");
    let name = main.display().to_string();
    let text = std::fs::read_to_string(&main).expect("main.zok");
    let d = front::compile_file(&name, &text, &options(stdlib)).expect_err("an error");
    d.render(&name, &text)
        .replace(&dir.display().to_string(), "ROOT")
}

#[test]
fn relative_and_library_imports() {
    let dir = folder(&[
        (
            "main.zok",
            "import \"./helpers.zok\" as h;\nfrom \"./sub/lib\" import square, K, Point;\nimport \"math/cube\";\n\
             def main(field x) -> field {\n    Point p = Point { x: x };\n    return h(square(p.x)) + cube(K);\n}\n",
        ),
        ("helpers.zok", "def main(field a) -> field {\n    return a + 1;\n}\n"),
        (
            "sub/lib.zok",
            "import \"../helpers\" as inc;\nconst field K = 2;\nstruct Point { field x; }\n\
             def square(field a) -> field {\n    return a * a;\n}\ndef square(u32 a) -> u32 {\n    return a * a;\n}\n",
        ),
        ("std/math/cube.zok", "def main(field a) -> field {\n    return a * a * a;\n}\n"),
    ]);
    let stdlib = dir.path().join("std");
    let out = run(dir.path(), Some(&stdlib), serde_json::json!({"x": "3"}));
    assert_eq!(out.unwrap(), r#"{"outputs":["18"]}"#);
}

#[test]
fn embed_built_ins() {
    let dir = folder(&[(
        "main.zok",
        "from \"EMBED\" import unpack, bit_array_le, FIELD_SIZE_IN_BITS, u8_to_bits, u8_from_bits;\n\
         def main(field x) -> (bool[4], bool, u32, u8) {\n    bool[4] b = unpack::<4>(x);\n\
         \x20   return (b, bit_array_le(b, [true, false, true, false]), FIELD_SIZE_IN_BITS, u8_from_bits(u8_to_bits(5)));\n}\n",
    )]);
    let out = run(dir.path(), None, serde_json::json!({"x": "9"}));
    assert_eq!(
        out.unwrap(),
        r#"{"outputs":[[true,false,false,true],true,"254","5"]}"#
    );
    // 16 does not fit in 4 bits.
    let out = run(dir.path(), None, serde_json::json!({"x": "16"}));
    assert!(out.unwrap_err().contains("does not fit"));
}

#[test]
fn sha256round_is_the_compression_function() {
    // SHA-256("abc") is one block: the padded message, compressed from the initial hash value.
    let iv = [
        0x6a09e667u32,
        0xbb67ae85,
        0x3c6ef372,
        0xa54ff53a,
        0x510e527f,
        0x9b05688c,
        0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut block = [0u8; 64];
    block[..3].copy_from_slice(b"abc");
    block[3] = 0x80;
    block[63] = 24;
    let bits = |bytes: &[u8]| -> String {
        let b: Vec<&str> = bytes
            .iter()
            .flat_map(|x| {
                (0..8)
                    .rev()
                    .map(move |i| if x >> i & 1 == 1 { "true" } else { "false" })
            })
            .collect();
        format!("[{}]", b.join(", "))
    };
    let iv_bytes: Vec<u8> = iv.iter().flat_map(|w| w.to_be_bytes()).collect();
    let program = format!(
        "from \"EMBED\" import sha256round;\nfrom \"utils/casts\" import cast;\n\
         def main() -> u32[8] {{\n    u32[8] h = cast(sha256round({}, {}));\n    return h;\n}}\n",
        bits(&block),
        bits(&iv_bytes)
    );
    let dir = folder(&[("main.zok", &program)]);
    let out = run(dir.path(), None, serde_json::json!({})).unwrap();
    let digest = [
        0xba7816bfu32,
        0x8f01cfea,
        0x414140de,
        0x5dae2223,
        0xb00361a3,
        0x96177a9c,
        0xb410ff61,
        0xf20015ad,
    ];
    let expected: Vec<String> = digest.iter().map(|w| format!("\"{w}\"")).collect();
    assert_eq!(out, format!("{{\"outputs\":[[{}]]}}", expected.join(",")));
}

#[test]
fn library_path_missing_from_the_builtin_library() {
    let dir = folder(&[(
        "main.zok",
        "import \"hashes/sha256/no_such_module\" as sha256;\ndef main() {\n    return;\n}\n",
    )]);
    let e = error(dir.path(), None);
    assert!(
        e.contains("cannot resolve import of `hashes/sha256/no_such_module`"),
        "{e}"
    );
    assert!(e.contains("ROOT/main.zok:1:1"), "{e}");
    assert!(
        e.contains("no file found at <zkbc>/stdlib/hashes/sha256/no_such_module.zok"),
        "{e}"
    );
    assert!(e.contains("--stdlib-path"), "{e}");
    // The cast built-ins still resolve by name.
    let dir = folder(&[(
        "main.zok",
        "import \"utils/casts/u32_to_bits\" as to_bits;\nfrom \"utils/casts\" import cast;\n\
         def main(u32 x) -> bool {\n    bool[32] b = to_bits(x);\n    u8[4] y = cast(x);\n    return b[31] && y[3] == 1;\n}\n",
    )]);
    assert_eq!(
        run(dir.path(), None, serde_json::json!({"x": "1"})).unwrap(),
        r#"{"outputs":[true]}"#
    );
}

#[test]
fn missing_file_names_the_import_chain() {
    let dir = folder(&[
        (
            "main.zok",
            "import \"./a\" as a;\ndef main() {\n    return;\n}\n",
        ),
        (
            "a.zok",
            "// a\nimport \"./missing\" as m;\ndef main() {\n    return;\n}\n",
        ),
    ]);
    let e = error(dir.path(), None);
    assert!(
        e.contains("error: cannot resolve import of `./missing`"),
        "{e}"
    );
    assert!(e.contains("--> ROOT/a.zok:2:1"), "{e}");
    assert!(e.contains("no file found at ROOT/missing.zok"), "{e}");
    assert!(e.contains("imported from ROOT/main.zok:1:1"), "{e}");
}

#[test]
fn cycle_missing_symbol_clash_and_curve() {
    let dir = folder(&[
        (
            "main.zok",
            "import \"./a\" as a;\ndef main() {\n    return;\n}\n",
        ),
        (
            "a.zok",
            "import \"./main\" as m;\ndef main() {\n    return;\n}\n",
        ),
    ]);
    let e = error(dir.path(), None);
    assert!(e.contains("import cycle through `./main`"), "{e}");
    assert!(e.contains("--> ROOT/a.zok:1:1"), "{e}");

    let dir = folder(&[
        (
            "main.zok",
            "from \"./a\" import nope;\ndef main() {\n    return;\n}\n",
        ),
        ("a.zok", "def f() {\n    return;\n}\n"),
    ]);
    let e = error(dir.path(), None);
    assert!(e.contains("module `./a` has no symbol `nope`"), "{e}");
    assert!(e.contains("ROOT/main.zok:1:19"), "{e}");

    let dir = folder(&[
        (
            "main.zok",
            "from \"./a\" import f;\nfrom \"./b\" import f;\ndef main() {\n    return;\n}\n",
        ),
        ("a.zok", "def f() {\n    return;\n}\n"),
        ("b.zok", "def f() {\n    return;\n}\n"),
    ]);
    let e = error(dir.path(), None);
    assert!(e.contains("duplicate definition of `f`"), "{e}");
    assert!(e.contains("ROOT/main.zok:2:19"), "{e}");

    let dir = folder(&[
        (
            "main.zok",
            "import \"./a\" as a;\ndef main() {\n    return;\n}\n",
        ),
        (
            "a.zok",
            "#pragma curve bw6_761\ndef main() {\n    return;\n}\n",
        ),
    ]);
    let e = error(dir.path(), None);
    assert!(e.contains("this module is for the curve `bw6_761`"), "{e}");
    assert!(e.contains("--> ROOT/a.zok:1:15"), "{e}");

    let dir = folder(&[(
        "main.zok",
        "#pragma curve bn128\nfrom \"EMBED\" import rotr;\ndef main() {\n    return;\n}\n",
    )]);
    let e = error(dir.path(), None);
    assert!(e.contains("`EMBED` has no symbol `rotr`"), "{e}");
}

#[test]
fn type_errors_point_into_the_imported_file() {
    let dir = folder(&[
        (
            "main.zok",
            "import \"./a\" as a;\ndef main() -> field {\n    return a();\n}\n",
        ),
        ("a.zok", "def main() -> field {\n    return true;\n}\n"),
    ]);
    let e = error(dir.path(), None);
    assert!(e.contains("--> ROOT/a.zok:2:12"), "{e}");
    assert!(e.contains("2 |     return true;"), "{e}");
}

#[test]
fn compat_zokrates_truncates_field_to_uint() {
    let text = "import \"utils/casts/field_to_u8\" as to_u8;\ndef main(field x) -> u8 {\n    return to_u8(x);\n}\n";
    let inputs = serde_json::json!({"x": "300"});
    let run_with = |compat| {
        let options = FrontOptions {
            compat,
            ..FrontOptions::default()
        };
        let (program, abi) = front::compile_file("m.zok", text, &options).expect("compiles");
        let values = abi.inputs_from_json(&inputs).expect("inputs");
        zkbc::ir::interp::run(&program, &values, Default::default())
            .map(|out| abi.outputs_to_json(&out.outputs).to_string())
            .map_err(|e| e.to_string())
    };
    assert!(run_with(front::Compat::Zkbc)
        .unwrap_err()
        .contains("does not fit"));
    assert_eq!(
        run_with(front::Compat::Zokrates).unwrap(),
        r#"{"outputs":["44"]}"#
    );
}
