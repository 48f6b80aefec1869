//! zkbc's built-in standard library (`stdlib/`, in the binary): every module loads (parses, and
//! its imports resolve inside the library), and the hashes and curve operations give the test
//! vectors of their own specifications, not only ZoKrates' (`tests/zokrates_stdlib.rs` runs
//! those).

use zkbc::driver;
use zkbc::front::{modules, stdlib};
use zkbc::ir::interp;
use zkbc::opt::OptLevel;

/// Compiles `source` with the built-in library (no `--stdlib-path`) and runs it on no inputs;
/// `Err` is the compile error or the run's failure.
fn run(source: &str) -> Result<String, String> {
    let options = driver::Options {
        opt_level: OptLevel::O1,
        ..driver::Options::default()
    };
    let c = driver::compile("vector.zok", source, &options).map_err(|e| e.to_string())?;
    let inputs = c.inputs_from_json(&serde_json::json!({}))?;
    let out = interp::run(&c.program, &inputs, interp::Limits::default())
        .map_err(|e| format!("run fails: {e}"))?;
    Ok(c.outputs_to_json(&out.outputs).to_string())
}

/// The program passes its assertions; and with `wrong` in place of `right` (a digest with one
/// digit changed), it fails, so the assertion is not vacuous.
fn check_vector(source: &str, right: &str, wrong: &str) {
    assert!(source.contains(right), "the vector is in the program");
    assert_eq!(run(source), Ok(r#"{"outputs":[]}"#.to_string()), "{source}");
    let broken = source.replace(right, wrong);
    let e = run(&broken).expect_err("a wrong digest fails");
    assert!(e.contains("assertion failed"), "{e}");
}

#[test]
fn every_module_loads() {
    assert!(stdlib::MODULES.len() >= 60, "{}", stdlib::MODULES.len());
    for (path, text) in stdlib::MODULES {
        let name = format!("{}/{path}", stdlib::ROOT);
        if let Err(d) = modules::load(&name, text, None) {
            panic!("{path} does not load:\n{}", d.render(&name, text));
        }
    }
    eprintln!(
        "{} modules in the built-in library load",
        stdlib::MODULES.len()
    );
}

/// FIPS 180-4's examples (NIST's "SHA256.pdf"): SHA-256 of "abc" and of the empty message.
#[test]
fn sha256_fips_180_4_examples() {
    check_vector(
        r#"import "hashes/sha256/sha256Padded" as sha256;
def main() {
    assert(sha256([0x61, 0x62, 0x63]) == [0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223, 0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad]);
    return;
}
"#,
        "0xf20015ad",
        "0xf20015ae",
    );
    check_vector(
        r#"import "hashes/sha256/sha256Padded" as sha256;
def main() {
    u8[0] empty = [];
    assert(sha256(empty) == [0xe3b0c442, 0x98fc1c14, 0x9afbf4c8, 0x996fb924, 0x27ae41e4, 0x649b934c, 0xa495991b, 0x7852b855]);
    return;
}
"#,
        "0x7852b855",
        "0x7852b856",
    );
}

/// The empty message's digests: SHA3-256 from NIST's FIPS 202 examples, Keccak-256 from the
/// Keccak team's known answers; SHA3-256 of "abc" from NIST's examples.
#[test]
fn keccak_and_sha3_fips_202_examples() {
    check_vector(
        r#"import "hashes/sha3/256bit" as sha3;
import "hashes/keccak/256bit" as keccak;
def main() {
    u8[0] empty = [];
    assert(sha3(empty) == [0xa7, 0xff, 0xc6, 0xf8, 0xbf, 0x1e, 0xd7, 0x66, 0x51, 0xc1, 0x47, 0x56, 0xa0, 0x61, 0xd6, 0x62, 0xf5, 0x80, 0xff, 0x4d, 0xe4, 0x3b, 0x49, 0xfa, 0x82, 0xd8, 0x0a, 0x4b, 0x80, 0xf8, 0x43, 0x4a]);
    assert(keccak(empty) == [0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d, 0xb2, 0xdc, 0xc7, 0x03, 0xc0, 0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85, 0xa4, 0x70]);
    assert(sha3([0x61, 0x62, 0x63]) == [0x3a, 0x98, 0x5d, 0xa7, 0x4f, 0xe2, 0x25, 0xb2, 0x04, 0x5c, 0x17, 0x2d, 0x6b, 0xd3, 0x90, 0xbd, 0x85, 0x5f, 0x08, 0x6e, 0x3e, 0x9d, 0x52, 0x5b, 0x46, 0xbf, 0xe2, 0x45, 0x11, 0x43, 0x15, 0x32]);
    return;
}
"#,
        "0x5d, 0x85, 0xa4, 0x70",
        "0x5d, 0x85, 0xa4, 0x71",
    );
}

/// BLAKE2s-256 of the 64 bytes 0x00, 0x01, ..., 0x3f (one whole block, the only lengths the
/// library's signature takes; RFC 7693's "abc" is not a whole block). The digest is the
/// reference implementation's (RFC 7693 appendix C's code, as Python's hashlib ships it).
#[test]
fn blake2s_one_block() {
    check_vector(
        r#"import "hashes/blake2/blake2s" as blake2s;
def main() {
    u32[1][16] m = [[0x00010203, 0x04050607, 0x08090a0b, 0x0c0d0e0f, 0x10111213, 0x14151617, 0x18191a1b, 0x1c1d1e1f, 0x20212223, 0x24252627, 0x28292a2b, 0x2c2d2e2f, 0x30313233, 0x34353637, 0x38393a3b, 0x3c3d3e3f]];
    assert(blake2s(m) == [0x56f34e8b, 0x96557e90, 0xc1f24b52, 0xd0c89d51, 0x086acf1b, 0x00f634cf, 0x1dde9233, 0xb8eaaa3e]);
    return;
}
"#,
        "0xb8eaaa3e",
        "0xb8eaaa3f",
    );
}

/// EIP-2494's addition test vector, and both points on the curve.
#[test]
fn baby_jubjub_eip_2494_addition() {
    check_vector(
        r#"import "ecc/edwardsAdd" as add;
import "ecc/edwardsOnCurve" as on_curve;
from "ecc/babyjubjubParams" import BABYJUBJUB_PARAMS;
def main() {
    field[2] p1 = [17777552123799933955779906779655732241715742912184938656739573121738514868268, 2626589144620713026669568689430873010625803728049924121243784502389097019475];
    field[2] p2 = [16540640123574156134436876038791482806971768689494387082833631921987005038935, 20819045374670962167435360035096875258406992893633759881276124905556507972311];
    assert(on_curve(p1, BABYJUBJUB_PARAMS) && on_curve(p2, BABYJUBJUB_PARAMS));
    assert(add(p1, p2, BABYJUBJUB_PARAMS) == [7916061937171219682591368294088513039687205273691143098332585753343424131937, 14035240266687799601661095864649209771790948434046947201833777492504781204499]);
    return;
}
"#,
        "14035240266687799601661095864649209771790948434046947201833777492504781204499",
        "14035240266687799601661095864649209771790948434046947201833777492504781204498",
    );
}

/// README's example: the tutorial's preimage program runs without `--stdlib-path`, and what
/// README shows is what the binary prints.
#[test]
fn readme_preimage_example() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let program =
        std::fs::read_to_string(format!("{root}/examples/preimage.zok")).expect("the example");
    let body = program
        .split_once("import ")
        .map(|(_, rest)| format!("import {rest}"))
        .expect("an import");
    assert!(readme.contains(&body), "README shows examples/preimage.zok");
    for (last, code, shown) in [
        ("5", 0, "{\"outputs\":[]}\n"),
        (
            "6",
            1,
            "error: examples/preimage.zok:7:5: assertion failed\n  |\n7 |     \
             assert(h[0] == 263561599766550617289250058199814760685);\n  |     ^\n  = note: \
             296016139321527823785053958024045515449 == \
             263561599766550617289250058199814760685 is false\n",
        ),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_zkbc"))
            .current_dir(root)
            .env_remove("ZOKRATES_STDLIB")
            .args(["run", "examples/preimage.zok", "-a", "0", "0", "0", last])
            .output()
            .expect("zkbc runs");
        assert_eq!(out.status.code(), Some(code), "{out:?}");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(printed, shown);
        let command = format!("$ zkbc run examples/preimage.zok -a 0 0 0 {last}\n{shown}");
        assert!(readme.contains(&command), "README shows {command}");
    }
}
