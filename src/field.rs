//! The BN254 scalar field `Fr` and the conversions every stage shares: decimal text in and out,
//! canonical integer comparison, and conversion to and from machine integers.

use ark_ff::{BigInteger, Field as _, PrimeField, Zero};
use std::cmp::Ordering;
use std::str::FromStr;

/// The field every circuit value lives in: the BN254 (bn128) scalar field.
pub type Fr = ark_bn254::Fr;

/// The field's order p as a decimal string, for messages and documentation.
pub const MODULUS_DEC: &str =
    "21888242871839275222246405745257275088548364400416034343698204186575808495617";

/// Parses a canonical or non-canonical decimal integer (optionally with a leading `-`) into the
/// field. Returns `None` for anything that is not a decimal integer. Values `>= p` are rejected so
/// that user input is never silently reduced.
pub fn parse_dec(text: &str) -> Option<Fr> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() || digits.len() > 80 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if cmp_dec(digits, MODULUS_DEC) != Ordering::Less {
        return None;
    }
    let value = Fr::from_str(digits).ok()?;
    Some(if neg { -value } else { value })
}

/// Compares two decimal digit strings as unsigned integers (leading zeros allowed).
fn cmp_dec(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// The canonical decimal representation in `[0, p)`.
pub fn to_dec(value: &Fr) -> String {
    value.into_bigint().to_string()
}

/// Compares two field elements as canonical integers in `[0, p)`.
pub fn cmp_canonical(a: &Fr, b: &Fr) -> Ordering {
    a.into_bigint().cmp(&b.into_bigint())
}

/// The element as a `u64` when its canonical value fits in `bits` bits.
pub fn to_u64_checked(value: &Fr, bits: u32) -> Option<u64> {
    let big = value.into_bigint();
    if big.num_bits() > bits {
        return None;
    }
    Some(big.as_ref()[0])
}

/// The canonical value's bits, least significant first, `n` of them (higher bits are dropped).
pub fn low_bits(value: &Fr, n: usize) -> Vec<bool> {
    let mut bits = value.into_bigint().to_bits_le();
    bits.resize(n, false);
    bits
}

/// Number of bits of the canonical value.
pub fn num_bits(value: &Fr) -> u32 {
    value.into_bigint().num_bits()
}

/// The multiplicative inverse, `None` for zero.
pub fn inverse(value: &Fr) -> Option<Fr> {
    if value.is_zero() {
        None
    } else {
        value.inverse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_round_trip_and_bounds() {
        assert_eq!(to_dec(&parse_dec("12345").unwrap()), "12345");
        let p_minus_1 = parse_dec("-1").unwrap();
        assert_eq!(
            to_dec(&p_minus_1),
            "21888242871839275222246405745257275088548364400416034343698204186575808495616"
        );
        assert!(parse_dec(MODULUS_DEC).is_none());
        assert!(parse_dec("1x").is_none());
        assert!(parse_dec("").is_none());
        assert_eq!(to_u64_checked(&Fr::from(255u64), 8), Some(255));
        assert_eq!(to_u64_checked(&Fr::from(256u64), 8), None);
        assert_eq!(
            cmp_canonical(&p_minus_1, &Fr::from(1u64)),
            Ordering::Greater
        );
    }
}
