//! The binary files of the Groth16 backend: proving key, verifying key and proof
//! (docs/proof.md describes them for users).
//!
//! ```text
//! offset  size  field
//!      0     8  magic "zkbc\x00g16"
//!      8     1  format version = 1
//!      9     1  kind: 1 proving key, 2 verifying key, 3 proof
//!     10     2  reserved, zero
//!     12    32  the circuit's digest (SHA-256, `Circuit::digest`)
//!     44     4  u32 LE: the number of public values
//!     48     8  u64 LE: the payload's length in bytes
//!     56     …  payload: arkworks' canonical serialization of ark-groth16's key or proof
//! ```
//!
//! The verifying key and the proof are compressed points (a proof is 128 bytes of payload,
//! 184 in all); reading them checks every point is on the curve and in the prime-order
//! subgroup. The proving key is the prover's own file, uncompressed (no square root per point
//! to read it) and checked to be on the curve only, in parallel: checking every G2 point's
//! subgroup took 12 s of a 73,000-constraint key, and a key whose points are off the subgroup
//! only makes proofs the verifier rejects. Reading also checks the payload's length, that
//! nothing follows it, and that the verifying key has one base per public value: a malformed
//! file is a [`FormatError`], never a panic.

use super::{Proof, ProvingKey, VerifyingKey};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use std::fmt;

/// The first 8 bytes of every file.
pub const MAGIC: &[u8; 8] = b"zkbc\x00g16";
/// The format version this build reads and writes.
pub const VERSION: u8 = 1;
/// The header's length: the payload starts here.
pub const HEADER_LEN: usize = 56;

/// What a file holds (byte 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A proving key (`zkbc setup -o`).
    ProvingKey = 1,
    /// A verifying key (`zkbc setup --vk`).
    VerifyingKey = 2,
    /// A proof (`zkbc prove --backend groth16 -o`).
    Proof = 3,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::ProvingKey => "a proving key",
            Kind::VerifyingKey => "a verifying key",
            Kind::Proof => "a proof",
        })
    }
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// Shorter than the header.
    TooShort(usize),
    /// The first 8 bytes are not [`MAGIC`].
    NotZkbc,
    /// A version this build does not read.
    Version(u8),
    /// Another kind of file than the one expected (or an unknown kind byte).
    Kind {
        /// What was expected.
        expected: Kind,
        /// The kind byte found.
        found: u8,
    },
    /// The reserved bytes are not zero.
    Reserved,
    /// The payload length disagrees with the file's length.
    Length {
        /// The header's payload length.
        header: u64,
        /// The bytes after the header.
        actual: usize,
    },
    /// The payload does not decode (a point off the curve or outside the subgroup, a bad
    /// length, trailing bytes).
    Payload(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::TooShort(n) => {
                write!(f, "{n} bytes, shorter than the {HEADER_LEN}-byte header")
            }
            FormatError::NotZkbc => f.write_str("not a zkbc Groth16 file (wrong magic)"),
            FormatError::Version(v) => {
                write!(f, "format version {v}; this zkbc reads version {VERSION}")
            }
            FormatError::Kind { expected, found } => {
                let found = match found {
                    1 => Kind::ProvingKey.to_string(),
                    2 => Kind::VerifyingKey.to_string(),
                    3 => Kind::Proof.to_string(),
                    k => format!("an unknown kind {k}"),
                };
                write!(f, "{found}, not {expected}")
            }
            FormatError::Reserved => f.write_str("the header's reserved bytes are not zero"),
            FormatError::Length { header, actual } => write!(
                f,
                "the header says {header} payload bytes, the file has {actual}"
            ),
            FormatError::Payload(why) => write!(f, "malformed payload: {why}"),
        }
    }
}

impl std::error::Error for FormatError {}

fn write(kind: Kind, digest: &[u8; 32], num_public: usize, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.push(kind as u8);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(digest);
    let num_public = u32::try_from(num_public).expect("fewer than 2^32 public values");
    out.extend_from_slice(&num_public.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The header's digest and public count, and the payload.
fn read(bytes: &[u8], expected: Kind) -> Result<([u8; 32], usize, &[u8]), FormatError> {
    if bytes.len() < HEADER_LEN {
        return Err(FormatError::TooShort(bytes.len()));
    }
    if &bytes[..8] != MAGIC {
        return Err(FormatError::NotZkbc);
    }
    if bytes[8] != VERSION {
        return Err(FormatError::Version(bytes[8]));
    }
    if bytes[9] != expected as u8 {
        return Err(FormatError::Kind {
            expected,
            found: bytes[9],
        });
    }
    if bytes[10..12] != [0, 0] {
        return Err(FormatError::Reserved);
    }
    let digest: [u8; 32] = bytes[12..44].try_into().expect("32 bytes");
    let num_public = u32::from_le_bytes(bytes[44..48].try_into().expect("4 bytes")) as usize;
    let length = u64::from_le_bytes(bytes[48..56].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if length != payload.len() as u64 {
        return Err(FormatError::Length {
            header: length,
            actual: payload.len(),
        });
    }
    Ok((digest, num_public, payload))
}

/// Decodes all of `payload` as one `T`, validating every point.
fn decode<T: CanonicalDeserialize>(payload: &[u8], compress: Compress) -> Result<T, FormatError> {
    decode_with(payload, compress, Validate::Yes)
}

fn decode_with<T: CanonicalDeserialize>(
    payload: &[u8],
    compress: Compress,
    validate: Validate,
) -> Result<T, FormatError> {
    let mut reader = payload;
    let value = T::deserialize_with_mode(&mut reader, compress, validate)
        .map_err(|e| FormatError::Payload(e.to_string()))?;
    if !reader.is_empty() {
        return Err(FormatError::Payload(format!(
            "{} bytes after the end",
            reader.len()
        )));
    }
    Ok(value)
}

fn encode<T: CanonicalSerialize>(value: &T, compress: Compress) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.serialized_size(compress));
    value
        .serialize_with_mode(&mut out, compress)
        .expect("bug: serializing into a Vec cannot fail");
    out
}

/// The verifying key's bases must number one more than the public values.
fn check_bases(
    vk: &ark_groth16::VerifyingKey<ark_bn254::Bn254>,
    num_public: usize,
) -> Result<(), FormatError> {
    if vk.gamma_abc_g1.len() != num_public + 1 {
        return Err(FormatError::Payload(format!(
            "{} input bases for {num_public} public values",
            vk.gamma_abc_g1.len()
        )));
    }
    Ok(())
}

/// Every point of a proving key is on its curve (the verifying key's points are checked in the
/// subgroup too: they are few).
fn on_curve(key: &ark_groth16::ProvingKey<ark_bn254::Bn254>) -> Result<(), FormatError> {
    use ark_ec::AffineRepr;
    use rayon::prelude::*;
    let g1 = |p: &ark_bn254::G1Affine| p.is_zero() || p.is_on_curve();
    let g2 = |p: &ark_bn254::G2Affine| p.is_zero() || p.is_on_curve();
    let vk = &key.vk;
    let ok = g1(&key.beta_g1)
        && g1(&key.delta_g1)
        && [&key.a_query, &key.b_g1_query, &key.h_query, &key.l_query]
            .into_par_iter()
            .all(|points| points.par_iter().all(g1))
        && key.b_g2_query.par_iter().all(g2)
        && g1(&vk.alpha_g1)
        && vk.gamma_abc_g1.par_iter().all(g1)
        && [&vk.beta_g2, &vk.gamma_g2, &vk.delta_g2]
            .into_iter()
            .all(g2);
    if ok {
        Ok(())
    } else {
        Err(FormatError::Payload("a point is not on its curve".into()))
    }
}

impl ProvingKey {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = encode(&self.key, Compress::No);
        write(Kind::ProvingKey, &self.digest, self.num_public, &payload)
    }

    /// Reads a proving key file.
    pub fn from_bytes(bytes: &[u8]) -> Result<ProvingKey, FormatError> {
        let (digest, num_public, payload) = read(bytes, Kind::ProvingKey)?;
        let key: ark_groth16::ProvingKey<ark_bn254::Bn254> =
            decode_with(payload, Compress::No, Validate::No)?;
        check_bases(&key.vk, num_public)?;
        on_curve(&key)?;
        Ok(ProvingKey {
            digest,
            num_public,
            key,
        })
    }
}

impl VerifyingKey {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = encode(&self.key, Compress::Yes);
        write(Kind::VerifyingKey, &self.digest, self.num_public, &payload)
    }

    /// Reads a verifying key file.
    pub fn from_bytes(bytes: &[u8]) -> Result<VerifyingKey, FormatError> {
        let (digest, num_public, payload) = read(bytes, Kind::VerifyingKey)?;
        let key = decode(payload, Compress::Yes)?;
        check_bases(&key, num_public)?;
        Ok(VerifyingKey {
            digest,
            num_public,
            key,
        })
    }
}

impl Proof {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = encode(&self.proof, Compress::Yes);
        write(Kind::Proof, &self.digest, self.num_public, &payload)
    }

    /// Reads a proof file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Proof, FormatError> {
        let (digest, num_public, payload) = read(bytes, Kind::Proof)?;
        Ok(Proof {
            digest,
            num_public,
            proof: decode(payload, Compress::Yes)?,
        })
    }
}
