//! The Fiat–Shamir transcript: a SHA-256 hash chain that absorbs labelled messages and squeezes
//! field challenges.
//!
//! The state is 32 bytes. Absorbing `(label, bytes)` replaces it by
//! `SHA-256(state ‖ len(label) ‖ label ‖ len(bytes) ‖ bytes)` (lengths as u64 LE), so two
//! different message sequences never hash the same input. A challenge is the two hashes
//! `SHA-256(state ‖ "challenge" ‖ len(label) ‖ label ‖ i)`, i = 0, 1, concatenated (64 bytes)
//! and reduced mod p, which keeps the bias of the reduction below 2^-250; the state then ratchets
//! forward so the next challenge differs. [`Transcript::fork`] derives an independent
//! transcript bound to everything absorbed so far, which is how the blocks of one proof get
//! their own transcripts and can be proved in parallel.

use crate::field::Fr;
use ark_ff::{BigInteger, PrimeField};
use sha2::{Digest, Sha256};

/// A Fiat–Shamir transcript over SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transcript {
    state: [u8; 32],
}

impl Transcript {
    /// A transcript for the protocol named `protocol` (a domain separator).
    pub fn new(protocol: &[u8]) -> Self {
        let mut transcript = Transcript { state: [0; 32] };
        transcript.append_bytes(b"protocol", protocol);
        transcript
    }

    /// Absorbs a labelled byte string.
    pub fn append_bytes(&mut self, label: &[u8], bytes: &[u8]) {
        let mut hasher = Sha256::new();
        hasher.update(self.state);
        hasher.update((label.len() as u64).to_le_bytes());
        hasher.update(label);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
        self.state = hasher.finalize().into();
    }

    /// Absorbs an integer (as u64 little-endian).
    pub fn append_u64(&mut self, label: &[u8], value: u64) {
        self.append_bytes(label, &value.to_le_bytes());
    }

    /// Absorbs field elements, each as its canonical 32-byte little-endian value.
    pub fn append_fields(&mut self, label: &[u8], values: &[Fr]) {
        let mut bytes = Vec::with_capacity(32 * values.len());
        for value in values {
            bytes.extend_from_slice(&fr_to_bytes_le(value));
        }
        self.append_bytes(label, &bytes);
    }

    /// Squeezes a field challenge bound to everything absorbed so far.
    pub fn challenge(&mut self, label: &[u8]) -> Fr {
        let mut wide = [0u8; 64];
        for (i, half) in wide.chunks_mut(32).enumerate() {
            let mut hasher = Sha256::new();
            hasher.update(self.state);
            hasher.update(b"challenge");
            hasher.update((label.len() as u64).to_le_bytes());
            hasher.update(label);
            hasher.update([i as u8]);
            half.copy_from_slice(&hasher.finalize());
        }
        self.append_bytes(b"squeezed", label);
        Fr::from_le_bytes_mod_order(&wide)
    }

    /// `n` challenges with the same label.
    pub fn challenges(&mut self, label: &[u8], n: usize) -> Vec<Fr> {
        (0..n).map(|_| self.challenge(label)).collect()
    }

    /// An independent transcript for sub-protocol `index`, bound to everything absorbed so far.
    /// Forks with different indices (or labels) never coincide.
    pub fn fork(&self, label: &[u8], index: u64) -> Transcript {
        let mut fork = self.clone();
        fork.append_bytes(b"fork", label);
        fork.append_u64(b"fork index", index);
        fork
    }
}

/// The canonical (non-Montgomery) value of `value` as 32 little-endian bytes: the encoding of
/// the transcript and of the iden3 `.r1cs` / `.wtns` files.
pub fn fr_to_bytes_le(value: &Fr) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&value.into_bigint().to_bytes_le());
    out
}

/// SHA-256 over a list of assignments, hashed as a two-level tree: each assignment (its length
/// and canonical values) is one leaf, hashed in parallel, then the root hashes the leaf count
/// and the leaves. This digest stands in for a commitment to the witness: it is absorbed before
/// any challenge, so the prover is bound to the assignments before it learns τ.
pub fn assignments_digest(assignments: &[Vec<Fr>]) -> [u8; 32] {
    use rayon::prelude::*;
    let leaves: Vec<[u8; 32]> = assignments
        .par_iter()
        .map(|z| {
            let mut hasher = Sha256::new();
            hasher.update((z.len() as u64).to_le_bytes());
            for value in z {
                hasher.update(fr_to_bytes_le(value));
            }
            hasher.finalize().into()
        })
        .collect();
    let mut hasher = Sha256::new();
    hasher.update((leaves.len() as u64).to_le_bytes());
    for leaf in &leaves {
        hasher.update(leaf);
    }
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_depend_on_every_message_and_label() {
        let mut base = Transcript::new(b"test");
        base.append_u64(b"n", 3);
        let mut same = Transcript::new(b"test");
        same.append_u64(b"n", 3);
        let mut other = Transcript::new(b"test");
        other.append_u64(b"n", 4);
        let mut relabelled = Transcript::new(b"test");
        relabelled.append_u64(b"m", 3);
        let c = base.challenge(b"r");
        assert_eq!(c, same.challenge(b"r"));
        assert_ne!(c, other.challenge(b"r"));
        assert_ne!(c, relabelled.challenge(b"r"));
        // Successive challenges differ, and forks differ from each other.
        assert_ne!(base.challenge(b"r"), c);
        assert_ne!(
            base.fork(b"block", 0).challenge(b"r"),
            base.fork(b"block", 1).challenge(b"r")
        );
    }

    #[test]
    fn canonical_bytes_are_little_endian() {
        let bytes = fr_to_bytes_le(&Fr::from(0x0102u64));
        assert_eq!(&bytes[..3], &[0x02, 0x01, 0x00]);
        assert!(bytes[2..].iter().all(|&b| b == 0));
        let minus_one = fr_to_bytes_le(&-Fr::from(1u64));
        // p - 1 = 0x30644e72...f0000000; its lowest byte is 0x00, its highest 0x30.
        assert_eq!(minus_one[0], 0x00);
        assert_eq!(minus_one[31], 0x30);
    }
}
