//! zkbc's built-in standard library (`stdlib/`, in the binary): every module loads (parses, and
//! its imports resolve inside the library), and the hashes and curve operations give the test
//! vectors of their own specifications, not only ZoKrates' (`tests/zokrates_stdlib.rs` runs
//! those); the Baby Jubjub vectors (Pedersen, EdDSA) come from `tests/babyjubjub.py`, a plain
//! Python reference.

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

/// Pedersen hashes of 512 bits (`hashes/pedersen/512bit` on words, `512bitBool` on bits)
/// against `tests/babyjubjub.py`, which computes them from the definition with integer
/// scalar multiplication (ZoKrates' own vector is in its spec, run by `tests/zokrates_stdlib.rs`):
/// the bytes 0x00..0x3f, all zero bits (every window +1 times its point), all one bits (every
/// window -4 times its point, but the last, whose padding bit makes it +4).
#[test]
fn pedersen_vectors() {
    check_vector(
        r#"import "hashes/pedersen/512bit" as pedersen;
import "hashes/pedersen/512bitBool" as pedersenBool;
import "utils/casts/u32_array_to_bool_array" as to_bits;
import "utils/casts/u32_8_to_bool_256" as digest_bits;
def main() {
    u32[16] counting = [0x00010203, 0x04050607, 0x08090a0b, 0x0c0d0e0f, 0x10111213, 0x14151617, 0x18191a1b, 0x1c1d1e1f, 0x20212223, 0x24252627, 0x28292a2b, 0x2c2d2e2f, 0x30313233, 0x34353637, 0x38393a3b, 0x3c3d3e3f];
    assert(pedersen(counting) == [0x0cbacf04, 0xf58094d9, 0xf996ee39, 0xc3c7112f, 0xca68216e, 0x53f167ee, 0x1f9c11f6, 0x886b8ac6]);
    assert(pedersenBool(to_bits::<16, 512>(counting)) == digest_bits([0x0cbacf04, 0xf58094d9, 0xf996ee39, 0xc3c7112f, 0xca68216e, 0x53f167ee, 0x1f9c11f6, 0x886b8ac6]));
    assert(pedersen([0; 16]) == [0xa65f3fa0, 0x002aba81, 0xad5f5805, 0x158ca53b, 0x4c6786ad, 0x9dc9845a, 0x0acbd5e7, 0x18ffe95d]);
    assert(pedersen([0xffffffff; 16]) == [0x19a0f961, 0xd0401baa, 0xf08dc427, 0x30f7b9bf, 0x077720bc, 0x1f2c8b8f, 0x42122bf8, 0xea803643]);
    return;
}
"#,
        "0x886b8ac6]));",
        "0x886b8ac7]));",
    );
}

/// The EdDSA signature `tests/babyjubjub.py` makes (README's example, `examples/eddsa.json`)
/// verifies; with S + 1 or one message bit changed it does not, nor under a key off the curve;
/// an R off the curve fails the run.
#[test]
fn eddsa_signature_verifies_and_wrong_ones_do_not() {
    let source = r#"import "signatures/verifyEddsa" as verify;
from "ecc/babyjubjubParams" import BABYJUBJUB_PARAMS;
def main() {
    field[2] R = [20660574075928822615888545700260849650980173289651325612975768257771085761877, 9081525143598831030757692101253327234860524107375182614384535098414528434231];
    field S = 2182351618573338934748764865288626706328868127703284539639606024855901836999;
    field[2] A = [14327039817503873024967736713852913199242764120832910357889866705806368150726, 332103340253488217891425676753549135495447072963296949782714588221038075020];
    u32[8] M0 = [0x7a6b6263, 0x20636865, 0x636b7320, 0x616e2045, 0x64445341, 0x20736967, 0x6e617475, 0x7265206f];
    u32[8] M1 = [0x76657220, 0x42616279, 0x204a7562, 0x6a756220, 0x696e206f, 0x6e652063, 0x69726375, 0x69742e2e];
    assert(verify(R, S, A, M0, M1, BABYJUBJUB_PARAMS));
    return;
}
"#;
    // A wrong signature: S + 1.
    check_vector(
        source,
        "2182351618573338934748764865288626706328868127703284539639606024855901836999;",
        "2182351618573338934748764865288626706328868127703284539639606024855901837000;",
    );
    // A message with its last bit changed.
    check_vector(source, "0x69742e2e]", "0x69742e2f]");
    // A key off the curve (A.v + 1) verifies nothing: false, not a failure.
    let off_key = source
        .replace("221038075020]", "221038075021]")
        .replace("assert(verify(", "assert(!verify(");
    assert_eq!(run(&off_key), Ok(r#"{"outputs":[]}"#.to_string()));
    // R off the curve (R.v + 1) fails verifyEddsa's assertion.
    let off_r = source.replace("414528434231]", "414528434232]");
    let e = run(&off_r).expect_err("R off the curve fails");
    assert!(e.contains("R is not on the curve"), "{e}");
}

/// README's worked examples of the library: each program is shown in README as it is in
/// `examples/`, and each `$ zkbc run ...` line README shows prints what README shows under it.
#[test]
fn readme_library_examples() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    for name in ["poseidon_merkle", "eddsa"] {
        let program =
            std::fs::read_to_string(format!("{root}/examples/{name}.zok")).expect("the example");
        let body = program
            .split_once("import ")
            .map(|(_, rest)| format!("import {rest}"))
            .expect("an import");
        assert!(readme.contains(&body), "README shows examples/{name}.zok");
        let args = [
            "run".to_string(),
            format!("examples/{name}.zok"),
            "--inputs".to_string(),
            format!("examples/{name}.json"),
        ];
        let command = format!("$ zkbc {}\n", args.join(" "));
        let (_, after) = readme
            .split_once(&command)
            .unwrap_or_else(|| panic!("README shows {command}"));
        let shown: String = after
            .lines()
            .take_while(|l| !l.starts_with("$ ") && !l.starts_with("```"))
            .map(|l| format!("{l}\n"))
            .collect();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_zkbc"))
            .current_dir(root)
            .env_remove("ZOKRATES_STDLIB")
            .args(&args)
            .output()
            .expect("zkbc runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(printed, shown, "{command}");
    }
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
