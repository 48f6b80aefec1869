//! Groth16 over BN254 for a one-circuit program: a succinct zero-knowledge proof that one
//! R1CS instance is satisfied, made and checked with `ark-groth16`. This is what `zkbc setup`,
//! `zkbc prove --backend groth16` and `zkbc verify-proof` run for a program compiled
//! `--monolithic`; the block-based programs have only the sumcheck probe (see [`super`]).
//!
//! # The statement
//!
//! A [`Circuit`] is a [`SparseR1cs`] over `z = [1, instance.., witness..]` with a list of
//! *public* variables, in order. Groth16 needs the public variables first, so the circuit is
//! renumbered once: `z' = [1, public.., the rest in their order]`. The statement a proof
//! proves is
//!
//! ```text
//!     given the circuit (its digest is in the keys) and the public values x = (x_1, .., x_l),
//!     there is a w such that z' = [1, x, w] satisfies A·z' ∘ B·z' = C·z'.
//! ```
//!
//! For the circuit of `main` (`driver::circuit::main_circuit`) the public variables are, in
//! this order, main's outputs and then its public inputs (parameters not declared `private`),
//! each scalar leaf in declaration order: the order circom gives a circuit's public wires and
//! snarkjs its `public.json`, so the list zkbc writes is snarkjs' list for the exported
//! `main.r1cs` and `main.wtns` of the same program and inputs. Private inputs and every other
//! wire (the block's witness) are `w`.
//!
//! The circuit's digest (SHA-256 over the renumbered matrices and the public count,
//! [`Circuit::digest`]) is written in each key and proof file, so a proof or key made for
//! another circuit is refused by name before any pairing; the pairing check alone would
//! reject it too, since a verifying key fixes the circuit.
//!
//! # Setup, and why it is trusted
//!
//! Groth16's parameters are made from secret field elements (τ, α, β, γ, δ, the "toxic waste").
//! Whoever knows them can prove false statements, so a real deployment runs a multi-party
//! ceremony. [`setup`] draws them from the operating system's entropy inside `ark-groth16`'s
//! generator, which drops them when it returns: they are never returned, printed or written to
//! any file. [`setup_seeded`] draws them from a seed, so the keys are reproducible: **a seeded
//! setup is for tests only** — anyone who knows the seed can forge proofs.
//!
//! # Zero knowledge
//!
//! A proof is three group elements `(A, B, C)`, 128 bytes compressed. The prover draws fresh
//! uniform `r, s` for every proof (operating-system entropy, never a seed):
//! `A = α + Σ a_i(τ)·z_i + r·δ`, `B = β + Σ b_i(τ)·z_i + s·δ` and `C` adjusted by
//! `s·A + r·B − r·s·δ`. For any fixed statement, `A` and `B` are then uniform and
//! independent, and `C` is the unique value the verification equation allows, so the proof's
//! distribution depends on the public values only and can be simulated from the trapdoor
//! without the witness (Groth 2016, Theorem 1: perfect zero knowledge). Nothing else is
//! written: the proof file is a header, the circuit digest and those three points; the private
//! inputs never reach `zkbc verify-proof` (`tests/prove_groth16.rs` searches the bytes). The
//! same randomization makes proofs malleable: anyone can turn a proof into another proof of
//! the same statement, so a proof binds the statement only, not the prover or the run.
//!
//! # The files
//!
//! `format` reads and writes the proving key, the verifying key and the proof (magic,
//! version byte, kind, digest; docs/proof.md); [`snarkjs`] writes the verifying key and a
//! proof as snarkjs' `verification_key.json` and `proof.json`, which `snarkjs groth16 verify`
//! accepts (the verification equation is the same; only the QAP reductions of the two
//! provers differ, and they do not meet in the verifier).
//!
//! ```
//! use zkbc::field::Fr;
//! use zkbc::prove::{groth16, SparseR1cs};
//! // x · x = y with y public: z = [1, y, x].
//! let one = Fr::from(1u64);
//! let r1cs = SparseR1cs {
//!     num_instance: 1,
//!     num_witness: 1,
//!     a: vec![vec![(2, one)]].into(),
//!     b: vec![vec![(2, one)]].into(),
//!     c: vec![vec![(1, one)]].into(),
//! };
//! let circuit = groth16::Circuit::new(&r1cs, &[1]).unwrap();
//! let (pk, vk) = groth16::setup_seeded(&circuit, 7).unwrap();
//! let z = [one, Fr::from(9u64), Fr::from(3u64)];
//! let proof = groth16::prove(&pk, &circuit, &z).unwrap();
//! assert!(groth16::verify(&vk, &proof, &[Fr::from(9u64)]).is_ok());
//! assert!(groth16::verify(&vk, &proof, &[Fr::from(4u64)]).is_err());
//! ```

pub mod format;
pub mod snarkjs;

use super::{MatrixRow, SparseR1cs};
use crate::field::Fr;
use crate::prove::transcript::fr_to_bytes_le;
use ark_bn254::Bn254;
use ark_groth16::r1cs_to_qap::LibsnarkReduction;
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystemRef, LinearCombination, SynthesisError, Variable,
};
use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
use ark_std::UniformRand;
use sha2::{Digest, Sha256};
use std::fmt;

/// `ark-groth16` on BN254 with libsnark's R1CS-to-QAP reduction (its default).
type Groth16 = ark_groth16::Groth16<Bn254, LibsnarkReduction>;

/// A one-instance circuit renumbered for Groth16: `z' = [1, public.., the rest..]`.
#[derive(Clone, Debug)]
pub struct Circuit {
    /// The system over `z'` (`num_instance` = the public count).
    r1cs: SparseR1cs,
    /// `order[new] = old`: where each variable of `z'` is in the caller's `z`.
    order: Vec<usize>,
    digest: [u8; 32],
}

/// Why a circuit could not be set up or proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Groth16Error {
    /// The system is malformed or the public list does not fit it.
    Circuit(String),
    /// The proving key was made for another circuit.
    OtherCircuit,
    /// The assignment has the wrong length.
    AssignmentLength {
        /// What the circuit needs.
        expected: usize,
        /// What was given.
        found: usize,
    },
    /// The assignment violates this constraint (counted from 0).
    Unsatisfied(usize),
    /// `ark-groth16` refused (a circuit too large for BN254's FFT domain, 2^28).
    Synthesis(String),
}

impl fmt::Display for Groth16Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Groth16Error::Circuit(why) => write!(f, "malformed circuit: {why}"),
            Groth16Error::OtherCircuit => f.write_str(
                "the proving key was made for another circuit (run `zkbc setup` on this program \
                 with the same compile flags)",
            ),
            Groth16Error::AssignmentLength { expected, found } => {
                write!(
                    f,
                    "an assignment of {found} values for {expected} variables"
                )
            }
            Groth16Error::Unsatisfied(k) => {
                write!(f, "the run's assignment violates constraint {k}")
            }
            Groth16Error::Synthesis(why) => write!(f, "Groth16: {why}"),
        }
    }
}

impl std::error::Error for Groth16Error {}

/// Why [`verify`] did not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// The proof names another circuit than the verifying key.
    OtherCircuit,
    /// The statement has the wrong number of public values.
    PublicCount {
        /// What the verifying key needs.
        expected: usize,
        /// What was given.
        found: usize,
    },
    /// The pairing equation does not hold: not a proof of this statement.
    Pairing,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::OtherCircuit => {
                f.write_str("the proof was made for another circuit than the verifying key's")
            }
            Rejection::PublicCount { expected, found } => write!(
                f,
                "the verifying key takes {expected} public values, the statement has {found}"
            ),
            Rejection::Pairing => f.write_str(
                "the pairing check fails: this is not a proof of these public values for this \
                 circuit",
            ),
        }
    }
}

/// The key the prover needs (it holds the verifying key too).
#[derive(Clone, Debug, PartialEq)]
pub struct ProvingKey {
    /// The circuit's digest ([`Circuit::digest`]).
    pub digest: [u8; 32],
    /// The number of public values.
    pub num_public: usize,
    key: ark_groth16::ProvingKey<Bn254>,
}

/// The key the verifier needs.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyingKey {
    /// The circuit's digest ([`Circuit::digest`]).
    pub digest: [u8; 32],
    /// The number of public values.
    pub num_public: usize,
    key: ark_groth16::VerifyingKey<Bn254>,
}

/// A proof: the circuit's digest and Groth16's `(A, B, C)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    /// The digest of the circuit it was made for.
    pub digest: [u8; 32],
    /// The number of public values it binds.
    pub num_public: usize,
    proof: ark_groth16::Proof<Bn254>,
}

impl ProvingKey {
    /// The verifying key inside it.
    pub fn verifying_key(&self) -> VerifyingKey {
        VerifyingKey {
            digest: self.digest,
            num_public: self.num_public,
            key: self.key.vk.clone(),
        }
    }
}

impl Circuit {
    /// The circuit of `r1cs` whose public values are the variables `public`, in that order
    /// (each an index into `z`, not 0, at most once).
    pub fn new(r1cs: &SparseR1cs, public: &[usize]) -> Result<Circuit, Groth16Error> {
        r1cs.validate()
            .map_err(|e| Groth16Error::Circuit(e.to_string()))?;
        let n = r1cs.num_vars();
        let mut placed = vec![false; n];
        placed[0] = true;
        for &v in public {
            if v >= n || std::mem::replace(&mut placed[v], true) {
                return Err(Groth16Error::Circuit(format!(
                    "public variable {v} is the constant, out of range or listed twice"
                )));
            }
        }
        let mut order = vec![0];
        order.extend(public);
        order.extend((1..n).filter(|&v| !placed[v]));
        let mut new_of = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            new_of[old] = new;
        }
        let renumber = |row: MatrixRow<'_>| {
            let mut entries: Vec<(usize, Fr)> = row.iter().map(|(v, c)| (new_of[v], c)).collect();
            entries.sort_unstable_by_key(|&(v, _)| v);
            entries
        };
        let mut renumbered = SparseR1cs {
            num_instance: public.len(),
            num_witness: n - 1 - public.len(),
            ..SparseR1cs::default()
        };
        for k in 0..r1cs.num_constraints() {
            renumbered.a.push_row(renumber(r1cs.a.row(k)));
            renumbered.b.push_row(renumber(r1cs.b.row(k)));
            renumbered.c.push_row(renumber(r1cs.c.row(k)));
        }
        let digest = circuit_digest(&renumbered);
        Ok(Circuit {
            r1cs: renumbered,
            order,
            digest,
        })
    }

    /// SHA-256 over the public count, the sizes and every row of the renumbered matrices: two
    /// circuits with the same digest have the same statement.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// The number of public values.
    pub fn num_public(&self) -> usize {
        self.r1cs.num_instance
    }

    /// The number of constraints.
    pub fn num_constraints(&self) -> usize {
        self.r1cs.num_constraints()
    }

    /// The public values of an assignment `z` (in the caller's numbering), in statement order.
    pub fn public_values(&self, z: &[Fr]) -> Vec<Fr> {
        self.order[1..=self.num_public()]
            .iter()
            .map(|&old| z[old])
            .collect()
    }

    /// `z` renumbered to `z'`.
    fn renumber(&self, z: &[Fr]) -> Result<Vec<Fr>, Groth16Error> {
        if z.len() != self.order.len() {
            return Err(Groth16Error::AssignmentLength {
                expected: self.order.len(),
                found: z.len(),
            });
        }
        Ok(self.order.iter().map(|&old| z[old]).collect())
    }
}

fn circuit_digest(r1cs: &SparseR1cs) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(b"zkbc groth16 circuit v1");
    for n in [r1cs.num_instance, r1cs.num_witness, r1cs.num_constraints()] {
        hasher.update((n as u64).to_le_bytes());
    }
    for (_, matrix) in r1cs.matrices() {
        for row in matrix.rows() {
            hasher.update((row.len() as u64).to_le_bytes());
            for (v, c) in row.iter() {
                hasher.update((v as u64).to_le_bytes());
                hasher.update(fr_to_bytes_le(&c));
            }
        }
    }
    hasher.finalize().into()
}

/// The circuit as `ark-relations` builds it, for the generator: one input variable per public
/// value, one witness variable per other variable, one R1CS constraint per row. Setup only:
/// the generator never reads values.
struct Synthesis<'a>(&'a SparseR1cs);

impl ConstraintSynthesizer<Fr> for Synthesis<'_> {
    fn generate_constraints(self, cs: ConstraintSystemRef<Fr>) -> Result<(), SynthesisError> {
        let r1cs = self.0;
        let mut vars = vec![Variable::One];
        for _ in 0..r1cs.num_instance {
            vars.push(cs.new_input_variable(|| Ok(Fr::from(0u64)))?);
        }
        for _ in 0..r1cs.num_witness {
            vars.push(cs.new_witness_variable(|| Ok(Fr::from(0u64)))?);
        }
        let lc = |row: MatrixRow<'_>| {
            LinearCombination(row.iter().map(|(v, c)| (c, vars[v])).collect::<Vec<_>>())
        };
        for k in 0..r1cs.num_constraints() {
            cs.enforce_r1cs_constraint(
                || lc(r1cs.a.row(k)),
                || lc(r1cs.b.row(k)),
                || lc(r1cs.c.row(k)),
            )?;
        }
        Ok(())
    }
}

/// Groth16's setup for `circuit`, its toxic waste drawn from the operating system's entropy and
/// dropped when the generator returns (see the module doc).
pub fn setup(circuit: &Circuit) -> Result<(ProvingKey, VerifyingKey), Groth16Error> {
    setup_with(circuit, &mut StdRng::from_entropy())
}

/// Groth16's setup with the toxic waste drawn from `seed`: the same keys for the same seed.
/// **For tests only**: anyone who knows the seed can prove false statements.
pub fn setup_seeded(
    circuit: &Circuit,
    seed: u64,
) -> Result<(ProvingKey, VerifyingKey), Groth16Error> {
    setup_with(circuit, &mut StdRng::seed_from_u64(seed))
}

fn setup_with(
    circuit: &Circuit,
    rng: &mut impl Rng,
) -> Result<(ProvingKey, VerifyingKey), Groth16Error> {
    let key = Groth16::generate_random_parameters_with_reduction(Synthesis(&circuit.r1cs), rng)
        .map_err(|e| Groth16Error::Synthesis(e.to_string()))?;
    let pk = ProvingKey {
        digest: circuit.digest,
        num_public: circuit.num_public(),
        key,
    };
    let vk = pk.verifying_key();
    Ok((pk, vk))
}

/// A proof that `z` (in the caller's numbering, `z[0] = 1`) satisfies `circuit`, with fresh
/// `r, s` from the operating system's entropy. An unsatisfied `z` is an error, not a proof.
pub fn prove(pk: &ProvingKey, circuit: &Circuit, z: &[Fr]) -> Result<Proof, Groth16Error> {
    if pk.digest != circuit.digest || pk.num_public != circuit.num_public() {
        return Err(Groth16Error::OtherCircuit);
    }
    let z = circuit.renumber(z)?;
    if z[0] != Fr::from(1u64) {
        return Err(Groth16Error::Unsatisfied(0));
    }
    if let Some(k) = circuit.r1cs.first_unsatisfied(&z) {
        return Err(Groth16Error::Unsatisfied(k));
    }
    let matrices: Vec<Vec<Vec<(Fr, usize)>>> = circuit
        .r1cs
        .matrices()
        .iter()
        .map(|(_, m)| {
            m.rows()
                .map(|row| row.iter().map(|(v, c)| (c, v)).collect())
                .collect()
        })
        .collect();
    let mut rng = StdRng::from_entropy();
    let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
    let proof = Groth16::create_proof_with_reduction_and_matrices(
        &pk.key,
        r,
        s,
        &matrices,
        1 + circuit.num_public(),
        circuit.num_constraints(),
        &z,
    )
    .map_err(|e| Groth16Error::Synthesis(e.to_string()))?;
    Ok(Proof {
        digest: circuit.digest,
        num_public: circuit.num_public(),
        proof,
    })
}

/// Accepts exactly when `proof` proves, for `vk`'s circuit, the statement with these public
/// values (in statement order: see the module doc).
pub fn verify(vk: &VerifyingKey, proof: &Proof, public: &[Fr]) -> Result<(), Rejection> {
    if proof.digest != vk.digest || proof.num_public != vk.num_public {
        return Err(Rejection::OtherCircuit);
    }
    if public.len() != vk.num_public || vk.key.gamma_abc_g1.len() != public.len() + 1 {
        return Err(Rejection::PublicCount {
            expected: vk.num_public,
            found: public.len(),
        });
    }
    let prepared = ark_groth16::prepare_verifying_key(&vk.key);
    match Groth16::verify_proof(&prepared, &proof.proof, public) {
        Ok(true) => Ok(()),
        _ => Err(Rejection::Pairing),
    }
}
