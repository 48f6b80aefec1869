//! A verifying key and a proof as snarkjs writes them (`verification_key.json`, `proof.json`),
//! so that `snarkjs groth16 verify verification_key.json public.json proof.json` checks a proof
//! zkbc made: the same curve (snarkjs' `bn128` is BN254) and the same verification equation
//! `e(A, B) = e(α, β)·e(Σ x_i·IC_i, γ)·e(C, δ)` with `IC_0` for the constant one.
//!
//! Points are projective triples of decimal strings: a G1 point `[x, y, "1"]`, a G2 point
//! `[[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]`, the point at infinity `["0", "1", "0"]` (and its
//! G2 form).

use super::{Proof, VerifyingKey};
use ark_bn254::{G1Affine, G2Affine};
use ark_ec::AffineRepr;
use serde_json::{json, Value};

fn g1(p: &G1Affine) -> Value {
    match p.xy() {
        Some((x, y)) => json!([x.to_string(), y.to_string(), "1"]),
        None => json!(["0", "1", "0"]),
    }
}

fn g2(p: &G2Affine) -> Value {
    match p.xy() {
        Some((x, y)) => json!([
            [x.c0.to_string(), x.c1.to_string()],
            [y.c0.to_string(), y.c1.to_string()],
            ["1", "0"]
        ]),
        None => json!([["0", "0"], ["1", "0"], ["0", "0"]]),
    }
}

/// `verification_key.json` as `snarkjs zkey export verificationkey` writes it (without
/// `vk_alphabeta_12`, which `snarkjs groth16 verify` does not read).
pub fn verifying_key_json(vk: &VerifyingKey) -> Value {
    let key = &vk.key;
    json!({
        "protocol": "groth16",
        "curve": "bn128",
        "nPublic": vk.num_public,
        "vk_alpha_1": g1(&key.alpha_g1),
        "vk_beta_2": g2(&key.beta_g2),
        "vk_gamma_2": g2(&key.gamma_g2),
        "vk_delta_2": g2(&key.delta_g2),
        "IC": key.gamma_abc_g1.iter().map(g1).collect::<Vec<_>>(),
    })
}

/// `proof.json` as `snarkjs groth16 prove` writes it.
pub fn proof_json(proof: &Proof) -> Value {
    json!({
        "pi_a": g1(&proof.proof.a),
        "pi_b": g2(&proof.proof.b),
        "pi_c": g1(&proof.proof.c),
        "protocol": "groth16",
        "curve": "bn128",
    })
}
