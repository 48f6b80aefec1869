//! Program inputs in every form zkbc reads: a JSON document (an object keyed by parameter name
//! or a positional array, unsigned integers decimal or 0x hexadecimal) and the scalars of `-a`,
//! against a few fixed signatures (scalars of every type, nested arrays, structs, tuples). No
//! input may panic; what `-a` accepts must be accepted as the JSON it is turned into, and the
//! values must be as many as main's flattened parameters.
#![no_main]

use libfuzzer_sys::fuzz_target;

const SIGNATURES: &[&str] = &[
    "def main(field a, u8 b, u16 c, u32 d, u64 e, bool f) -> field { return a; }",
    "def main(u32[3][2] m, private bool[4] flags) -> u32 { return m[0][0]; }",
    "struct P { u8 x; bool y; field[2] z; }\ndef main(P[2] ps, (u64, field) t) -> field { return t.1; }",
    "def main() -> field { return 1; }",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let source = SIGNATURES[pick as usize % SIGNATURES.len()];
    let abi = zkbc::front::abi_of_source(source).expect("the fixed signatures check");
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let expected = zkbc::front::abi::ir_param_types(&abi).len();
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(text) {
        if let Ok(values) = abi.inputs_from_json(&json) {
            assert_eq!(values.len(), expected, "{json}");
        }
    }
    let args: Vec<String> = text.split_whitespace().map(String::from).collect();
    if let Ok(json) = abi.inputs_from_args(&args) {
        // Scalars -a accepts may still be out of range for their type (a u8 of 300): that is
        // the JSON reader's to reject, not a crash.
        if let Ok(values) = abi.inputs_from_json(&json) {
            assert_eq!(values.len(), expected, "{json}");
        }
    }
});
