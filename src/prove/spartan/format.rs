//! The files of the Spartan backend: the public parameters and the proof (docs/proof.md).
//!
//! ```text
//! offset  size  field
//!      0     8  magic "zkbc\x00spn"
//!      8     1  format version = 5
//!      9     1  kind: 1 parameters, 3 proof
//!     10     2  reserved, zero
//!     12    32  the statement's digest (zero for parameters)
//!     44     8  u64 LE: the payload's length in bytes
//!     52     …  payload
//! ```
//!
//! Payload integers are u32 LE (a list is its length, then its items), field elements their
//! canonical 32 bytes LE (a value ≥ p is refused), points arkworks' 64-byte uncompressed G1
//! encoding (checked on the curve: two multiplications, where a compressed point's `y` costs a
//! square root, about 380). Parameters: the generator count n, then the n generators
//! and H; reading them recomputes the derivation and refuses any other bytes. A proof: per
//! block one byte, `log2 Q_b` or 255 for a block that never ran, then for a block that ran its
//! row commitments and its argument; then the transition's argument; then one byte: 0 without
//! memory, 1 with, followed by the run's read-write access count (u64 LE), the read-write pair
//! table (encoded as a block), the read-only access count (u64 LE), the read-only pair table
//! (a block that never ran when a list does not exist) and the memory's argument. An argument ([`super::Argument`]) is its commitments
//! (points), its product proofs (a count, then per proof 3 points and 5 field elements) and
//! its linear proof (mask points, the masked sum, the answers as a list of lists, the blinds).
//! Version 3 (zero knowledge) replaced version 2's clear sumcheck messages by commitments;
//! version 4 writes points uncompressed (the verifier's point decompression was a fifth of its
//! time; docs/prover.md, "The verifier"); version 5 adds the read-only memory list. A
//! length is
//! checked against the bytes left before anything is allocated: a malformed file is a
//! [`FormatError`], never a panic.

use super::hyrax::Params;
use super::zk::{LinearProof, MulProof};
use super::{Argument, BlockProof, MemoryProof, Proof};
use crate::field::Fr;
use crate::prove::transcript::fr_to_bytes_le;
use ark_bn254::G1Affine;
use ark_ff::{BigInteger, PrimeField};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use std::fmt;

/// The first 8 bytes of every file.
pub const MAGIC: &[u8; 8] = b"zkbc\x00spn";
/// The format version this build reads and writes.
pub const VERSION: u8 = 5;
/// The header's length.
pub const HEADER_LEN: usize = 52;
/// The most generators a parameters file may hold.
pub const MAX_GENERATORS: usize = 1 << 20;

/// A point's bytes (uncompressed).
const POINT: usize = 64;
const PARAMS: u8 = 1;
/// A verifier key's kind ([`super::key`]).
pub(super) const KEY: u8 = 2;
const PROOF: u8 = 3;

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError(pub String);

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FormatError {}

pub(super) fn err<T>(why: impl Into<String>) -> Result<T, FormatError> {
    Err(FormatError(why.into()))
}

/// Whether `bytes` start like a file of this backend.
pub fn is_spartan(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Whether `bytes` start like a verifier key ([`super::key`]) of this format version.
pub fn is_key(bytes: &[u8]) -> bool {
    is_spartan(bytes) && bytes.get(8) == Some(&VERSION) && bytes.get(9) == Some(&KEY)
}

pub(super) fn header(kind: u8, digest: &[u8; 32], payload: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[VERSION, kind, 0, 0]);
    out.extend_from_slice(digest);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend(payload);
    out
}

pub(super) fn read_header(bytes: &[u8], kind: u8) -> Result<([u8; 32], &[u8]), FormatError> {
    if bytes.len() < HEADER_LEN {
        return err(format!(
            "{} bytes, shorter than the {HEADER_LEN}-byte header",
            bytes.len()
        ));
    }
    if &bytes[..8] != MAGIC {
        return err("not a zkbc Spartan file (wrong magic)");
    }
    if bytes[8] != VERSION {
        return err(format!(
            "format version {}; this zkbc reads version {VERSION}",
            bytes[8]
        ));
    }
    if bytes[9] != kind {
        let name = |k| match k {
            PARAMS => "parameters".to_string(),
            KEY => "a verifier key".to_string(),
            PROOF => "a proof".to_string(),
            k => format!("an unknown kind {k}"),
        };
        return err(format!("{}, not {}", name(bytes[9]), name(kind)));
    }
    if bytes[10..12] != [0, 0] {
        return err("the header's reserved bytes are not zero");
    }
    let digest: [u8; 32] = bytes[12..44].try_into().expect("32 bytes");
    let length = u64::from_le_bytes(bytes[44..52].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if length != payload.len() as u64 {
        return err(format!(
            "the header says {length} payload bytes, the file has {}",
            payload.len()
        ));
    }
    Ok((digest, payload))
}

#[derive(Default)]
pub(super) struct Writer(pub(super) Vec<u8>);

impl Writer {
    pub(super) fn len(&mut self, n: usize) {
        let n = u32::try_from(n).expect("bug: a list of 2^32 items in a proof");
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    pub(super) fn fr(&mut self, v: &Fr) {
        self.0.extend_from_slice(&fr_to_bytes_le(v));
    }
    pub(super) fn frs(&mut self, vs: &[Fr]) {
        self.len(vs.len());
        vs.iter().for_each(|v| self.fr(v));
    }
    pub(super) fn point(&mut self, p: &G1Affine) {
        p.serialize_uncompressed(&mut self.0)
            .expect("bug: serializing into a Vec cannot fail");
    }
    pub(super) fn points(&mut self, ps: &[G1Affine]) {
        self.len(ps.len());
        ps.iter().for_each(|p| self.point(p));
    }
    fn argument(&mut self, a: &Argument) {
        self.points(&a.commitments);
        self.len(a.muls.len());
        for m in &a.muls {
            m.points.iter().for_each(|p| self.point(p));
            m.answers.iter().for_each(|v| self.fr(v));
        }
        self.points(&a.linear.masks);
        self.fr(&a.linear.masked_sum);
        self.len(a.linear.answers.len());
        for z in &a.linear.answers {
            self.frs(z);
        }
        self.frs(&a.linear.blinds);
    }
    fn block(&mut self, b: &BlockProof) {
        let Some(q) = b.log_executions else {
            self.0.push(255);
            return;
        };
        self.0.push(q);
        self.points(&b.rows);
        self.argument(&b.argument);
    }
}

pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl Reader<'_> {
    pub(super) fn take(&mut self, n: usize) -> Result<&[u8], FormatError> {
        if self.0.len() < n {
            return err("the payload ends early");
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    pub(super) fn byte(&mut self) -> Result<u8, FormatError> {
        Ok(self.take(1)?[0])
    }
    /// A list length whose items take at least `item` bytes each.
    pub(super) fn len(&mut self, item: usize) -> Result<usize, FormatError> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")) as usize;
        if n.saturating_mul(item) > self.0.len() {
            return err(format!("a list of {n} items is longer than the file"));
        }
        Ok(n)
    }
    pub(super) fn fr(&mut self) -> Result<Fr, FormatError> {
        let bytes = self.take(32)?;
        let v = Fr::from_le_bytes_mod_order(bytes);
        if v.into_bigint().to_bytes_le() != bytes {
            return err("a field element is not below the field's order");
        }
        Ok(v)
    }
    pub(super) fn frs(&mut self) -> Result<Vec<Fr>, FormatError> {
        let n = self.len(32)?;
        (0..n).map(|_| self.fr()).collect()
    }
    pub(super) fn point(&mut self) -> Result<G1Affine, FormatError> {
        let mut bytes = self.take(POINT)?;
        G1Affine::deserialize_uncompressed(&mut bytes)
            .map_err(|e| FormatError(format!("a point does not decode: {e}")))
    }
    pub(super) fn points(&mut self) -> Result<Vec<G1Affine>, FormatError> {
        let n = self.len(POINT)?;
        (0..n).map(|_| self.point()).collect()
    }
    fn argument(&mut self) -> Result<Argument, FormatError> {
        let commitments = self.points()?;
        let n_muls = self.len(3 * POINT + 5 * 32)?;
        let mut muls = Vec::with_capacity(n_muls);
        for _ in 0..n_muls {
            let points = [self.point()?, self.point()?, self.point()?];
            let mut answers = [Fr::from(0u64); 5];
            for v in answers.iter_mut() {
                *v = self.fr()?;
            }
            muls.push(MulProof { points, answers });
        }
        let masks = self.points()?;
        let masked_sum = self.fr()?;
        let n = self.len(4)?;
        let mut answers = Vec::with_capacity(n);
        for _ in 0..n {
            answers.push(self.frs()?);
        }
        let blinds = self.frs()?;
        Ok(Argument {
            commitments,
            muls,
            linear: LinearProof {
                masks,
                masked_sum,
                answers,
                blinds,
            },
        })
    }
    fn block(&mut self) -> Result<BlockProof, FormatError> {
        let q = self.byte()?;
        if q == 255 {
            return Ok(BlockProof::never_ran());
        }
        if q > super::MAX_EXEC_VARS {
            return err(format!("2^{q} executions of a block"));
        }
        Ok(BlockProof {
            log_executions: Some(q),
            rows: self.points()?,
            argument: self.argument()?,
        })
    }
}

impl Params {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.points(&self.gens);
        w.point(&self.blind);
        header(PARAMS, &[0; 32], w.0)
    }

    /// Reads a parameters file: the generators must be the derivation's. The file is compared
    /// with the derivation's bytes, not decoded: decoding would check each point on the curve
    /// only to compare it with the derivation's.
    pub fn from_bytes(bytes: &[u8]) -> Result<Params, FormatError> {
        let (_, payload) = read_header(bytes, PARAMS)?;
        let mut r = Reader(payload);
        let n = r.len(POINT)?;
        if !n.is_power_of_two() || n > MAX_GENERATORS {
            return err(format!("{n} generators, not a power of two up to 2^20"));
        }
        if r.0.len() != (n + 1) * POINT {
            return err(format!(
                "{} payload bytes, not the {} of {n} generators and H",
                payload.len(),
                4 + (n + 1) * POINT
            ));
        }
        let params = Params::new(n);
        if params.to_bytes() != bytes {
            return err("the generators are not zkbc's (hashed to the curve from its label)");
        }
        Ok(params)
    }
}

impl Proof {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.len(self.blocks.len());
        self.blocks.iter().for_each(|b| w.block(b));
        w.argument(&self.transition);
        match &self.memory {
            None => w.0.push(0),
            Some(m) => {
                w.0.push(1);
                w.0.extend_from_slice(&m.accesses.to_le_bytes());
                w.block(&m.pairs);
                w.0.extend_from_slice(&m.ro_accesses.to_le_bytes());
                w.block(&m.ro_pairs);
                w.argument(&m.coherence);
            }
        }
        header(PROOF, &self.digest, w.0)
    }

    /// Reads a proof file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Proof, FormatError> {
        let (digest, payload) = read_header(bytes, PROOF)?;
        let mut r = Reader(payload);
        let n = r.len(1)?;
        let mut blocks = Vec::with_capacity(n);
        for _ in 0..n {
            blocks.push(r.block()?);
        }
        let transition = r.argument()?;
        let memory = match r.byte()? {
            0 => None,
            1 => {
                let accesses = u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"));
                let pairs = r.block()?;
                let ro_accesses = u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"));
                Some(MemoryProof {
                    accesses,
                    ro_accesses,
                    pairs,
                    ro_pairs: r.block()?,
                    coherence: r.argument()?,
                })
            }
            b => return err(format!("the memory flag is {b}, not 0 or 1")),
        };
        if !r.0.is_empty() {
            return err(format!("{} bytes after the end of the proof", r.0.len()));
        }
        Ok(Proof {
            digest,
            blocks,
            transition,
            memory,
        })
    }
}
