//! Programs the random-program search found merging wrongly, kept as regression tests.

use zkbc::driver;
use zkbc::driver::measure::{Merging, Settings};

fn run(source: &str, merging: Merging, inputs: serde_json::Value) -> serde_json::Value {
    let options = Settings {
        merging,
        ..Settings::default()
    }
    .driver_options();
    let compiled = driver::compile("regression.zok", source, &options).unwrap();
    let values = compiled.inputs_from_json(&inputs).unwrap();
    let outcome = zkbc::ir::interp::run(&compiled.program, &values, Default::default()).unwrap();
    compiled.outputs_to_json(&outcome.outputs)
}

/// An early return inside a counted loop: each iteration's exit must return that iteration's
/// `i`. Unrolling once renamed `i` to its last copy for every exit (`5` instead of `0`); exit
/// edges now carry the copies of the loop's values that are used after the loop.
#[test]
fn early_return_in_an_unrolled_loop_returns_its_own_iteration() {
    let source =
        std::fs::read_to_string("tests/reliability_findings/monolithic_early_return.zok").unwrap();
    for (c, expected) in [(true, "0"), (false, "9")] {
        let inputs = serde_json::json!({ "c": c });
        for merging in [Merging::Monolithic, Merging::Default, Merging::Off] {
            assert_eq!(
                run(&source, merging, inputs.clone()),
                serde_json::json!({ "outputs": [expected] }),
                "{merging:?} c={c}"
            );
        }
    }
    // A value set in a later iteration than the exit.
    let source = "def main(u32 k) -> u32 {\n    u32 mut acc = 0;\n    for u32 i in 0..6 {\n        acc = acc + i;\n        if i == k {\n            return acc * 10;\n        }\n    }\n    return acc;\n}\n";
    for (k, expected) in [(0, "0"), (2, "30"), (5, "150"), (9, "15")] {
        let inputs = serde_json::json!({ "k": k });
        for merging in [Merging::Monolithic, Merging::Default] {
            assert_eq!(
                run(source, merging, inputs.clone()),
                serde_json::json!({ "outputs": [expected] }),
                "{merging:?} k={k}"
            );
        }
    }
}
