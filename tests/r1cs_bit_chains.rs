//! Chains of `uN` bit operations and values nothing reads: each `xor`/`or` result bit is one
//! variable (`(−2x)·y = r − x − y`), so its cost is N per operation however long the chain, a
//! product built once is reused in either order, and the constraints of a value the block never
//! reads are removed (`r1cs/dead.rs`). Counts are derived from those encodings; every program is
//! also run, checked, and its outputs mutated (a wrong output must be rejected).

use crate::r1cs_common as common;
use common::*;

/// `b0(u8 × n) -> jmp b1(...)`; `b1` runs `body` on v10, v11, ... (not range-checked there).
fn prog(n: usize, body: &str) -> String {
    let b0: Vec<String> = (0..n).map(|i| format!("v{i}: u8")).collect();
    let args: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
    let b1: Vec<String> = (0..n).map(|i| format!("v{}: u8", 10 + i)).collect();
    format!(
        "fn main f0 -> u8 {{\nb0({}):\n    jmp b1({})\nb1({}):\n{body}\n}}\n",
        b0.join(", "),
        args.join(", "),
        b1.join(", ")
    )
}

#[test]
fn an_xor_chain_costs_n_per_xor() {
    // a ^ b ^ c ^ d ^ e on u8: the 5 operands' bits (5·8) and 4 xors (4·8).
    let body = "    v20 = xor v10, v11\n    v21 = xor v20, v12\n    v22 = xor v21, v13\n    v23 = xor v22, v14\n    return v23";
    let p = parse(&prog(5, body));
    assert_eq!(gadget_cost(&p, 1), 5 * 8 + 4 * 8);
    let out = run_and_check(&p, &[u(0x81), u(0x42), u(0x24), u(0x18), u(0xff)]);
    assert_eq!(out, vec![u(0x81 ^ 0x42 ^ 0x24 ^ 0x18 ^ 0xff)]);
}

#[test]
fn an_and_after_an_xor_of_the_same_bits_reuses_its_products() {
    // x ^ y then x & y: the bits (2·8), the xor's 8 bits, the and free (x·y = (x + y − r)/2),
    // and the 9-bit sum normalized (9).
    let body =
        "    v20 = xor v10, v11\n    v21 = and v10, v11\n    v22 = add v20, v21\n    return v22";
    let p = parse(&prog(2, body));
    assert_eq!(gadget_cost(&p, 1), 2 * 8 + 8 + 9);
    let out = run_and_check(&p, &[u(0xf0), u(0x3c)]);
    assert_eq!(out, vec![u(((0xf0 ^ 0x3c) + (0xf0 & 0x3c)) & 0xff)]);
}

#[test]
fn bits_nothing_reads_cost_nothing() {
    // x ^ y, shifted and xored with z, computed and dropped: the operands' decompositions stay
    // (3·8: they also assert each operand is below 2^8, a fact about the instance), the xors'
    // 16 products go, and the output leaf (a combination of instance variables only) costs 1.
    let body =
        "    v20 = xor v10, v11\n    v21 = shl v20, u8 1\n    v22 = xor v21, v12\n    return v10";
    let p = parse(&prog(3, body));
    assert_eq!(gadget_cost(&p, 1), 3 * 8 + 1);
    assert_eq!(run_and_check(&p, &[u(7), u(9), u(200)]), vec![u(7)]);
    // Half of the bits read (the low nibble of x ^ y, by a shift pair): 2·8 for the operands'
    // bits, 4 xors for the low nibble; the high nibble's 4 products are removed.
    let body =
        "    v20 = xor v10, v11\n    v21 = shl v20, u8 4\n    v22 = shr v21, u8 4\n    return v22";
    let p = parse(&prog(2, body));
    assert_eq!(gadget_cost(&p, 1), 2 * 8 + 4);
    assert_eq!(
        run_and_check(&p, &[u(0x5a), u(0x3c)]),
        vec![u((0x5a ^ 0x3c) & 0x0f)]
    );
}
