//! The Spartan backend for block-based programs, end to end: `zkbc setup --backend spartan`,
//! `zkbc prove --backend spartan` and `zkbc verify-proof` as separate processes on a sample of
//! the corpus's programs, memory included (every program `zkbc check` accepts with
//! `ZKBC_PROVE_CORPUS=1`; each accepted), and what must be refused: a wrong public
//! output, flipped proof bytes, a proof replayed against another program (exit 1 or 2, never 0,
//! never a panic); at the library level, a broken transition (an execution replaced by a copy of
//! another, every execution still satisfied) and a tampered witness value. No private input's
//! value appears in the proof or public files. That search is a necessary check, not an
//! argument for zero knowledge (that is in src/prove/spartan/mod.rs). The prover's fixed-base
//! tables compute the same commitments as plain scalar multiplication.
//! `tests/prove_spartan_tamper.rs` has the lies about memory and order.

use crate::common;
use common::{circuit, stderr, zkbc};

use zkbc::driver;
use zkbc::field::Fr;
use zkbc::ir::interp;
use zkbc::prove::spartan::{self, hyrax::Params, Rejection};
use zkbc::prove::transcript::fr_to_bytes_le;

/// A loop with a run-time bound over a private value: 2^64 + 0x1234_5678_9abc_def1, distinctive
/// in every encoding.
const PROGRAM: &str = "def main(private field a, u32 n) -> field {
    field mut acc = 0;
    u32 mut i = 0;
    while i < n {
        acc = acc * 3 + a;
        i = i + 1;
    }
    return acc;
}
";
const SECRET_A: &str = "18446744078004252401";

/// A run's files: [`common::Scratch`], with this test's commands.
struct Run(common::Scratch);

impl std::ops::Deref for Run {
    type Target = common::Scratch;
    fn deref(&self) -> &common::Scratch {
        &self.0
    }
}

impl Run {
    fn new() -> Run {
        Run(common::Scratch::new())
    }

    /// Setup and an honest proof of `program` on `inputs`, files named by `stem`.
    fn prove(&self, program: &str, inputs: &str, stem: &str) {
        let out = zkbc(&[
            "setup",
            program,
            "--backend",
            "spartan",
            "-o",
            &self.path(&format!("{stem}.hyrax")),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let out = zkbc(&[
            "prove",
            program,
            "--inputs",
            inputs,
            "--backend",
            "spartan",
            "--pk",
            &self.path(&format!("{stem}.hyrax")),
            "-o",
            &self.path(&format!("{stem}.proof")),
            "--public",
            &self.path(&format!("{stem}.public.json")),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }

    /// `zkbc verify-proof PROGRAM PROOF --public PUBLIC --vk PARAMS`: exit status and stderr.
    fn verify(
        &self,
        program: &str,
        proof: &str,
        public: &str,
        params: &str,
    ) -> (Option<i32>, String) {
        let out = zkbc(&[
            "verify-proof",
            program,
            &self.path(proof),
            "--public",
            &self.path(public),
            "--vk",
            &self.path(params),
        ]);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{err}");
        (out.status.code(), err)
    }
}

/// The corpus programs CI proves: block-based, with and without memory (`cobbl_find_min`,
/// `bubble_sort` and `cobbl_kmp_search` keep arrays in memory).
const SAMPLE: [&str; 6] = [
    "gcd",
    "collatz",
    "runtime_loop",
    "cobbl_find_min",
    "bubble_sort",
    "cobbl_kmp_search",
];

/// Every corpus program with inputs that `zkbc check` accepts (or, without
/// `ZKBC_PROVE_CORPUS=1`, the sample) proves and verifies through the three commands.
#[test]
fn corpus_programs_prove_and_verify_in_separate_processes() {
    let all = std::env::var_os("ZKBC_PROVE_CORPUS").is_some_and(|v| !v.is_empty() && v != "0");
    let run = Run::new();
    let (mut proved, mut refused_by_check) = (Vec::new(), Vec::new());
    for program in common::corpus() {
        let name = program.file_stem().unwrap().to_string_lossy().into_owned();
        let inputs = program.with_extension("json");
        if !inputs.exists() || !(all || SAMPLE.contains(&name.as_str())) {
            continue;
        }
        let (program, inputs) = (program.display().to_string(), inputs.display().to_string());
        let check = zkbc(&["check", &program, "--inputs", &inputs]);
        if check.status.code() != Some(0) {
            assert!(
                all,
                "{name}: `zkbc check` refuses a sampled program: {}",
                stderr(&check)
            );
            refused_by_check.push(name);
            continue;
        }
        let start = std::time::Instant::now();
        run.prove(&program, &inputs, &name);
        let (code, err) = run.verify(
            &program,
            &format!("{name}.proof"),
            &format!("{name}.public.json"),
            &format!("{name}.hyrax"),
        );
        assert_eq!(code, Some(0), "{name}: {err}");
        eprintln!("{name}: proved and verified in {:.1?}", start.elapsed());
        proved.push(name);
    }
    eprintln!(
        "{} programs proved; `zkbc check` refuses {refused_by_check:?}",
        proved.len()
    );
    if !all {
        assert_eq!(proved.len(), SAMPLE.len(), "{proved:?}");
    }
}

#[test]
fn wrong_outputs_flipped_bytes_and_other_programs_are_refused() {
    let run = Run::new();
    let gcd = circuit("gcd.zok");
    run.prove(&gcd, &circuit("gcd.json"), "gcd");
    let accepted = run.verify(&gcd, "gcd.proof", "gcd.public.json", "gcd.hyrax");
    assert_eq!(accepted.0, Some(0), "{}", accepted.1);

    // A wrong public output (the first value) and a wrong public input (the last).
    let public: Vec<String> =
        serde_json::from_slice(&std::fs::read(run.path("gcd.public.json")).unwrap()).unwrap();
    for k in [0, public.len() - 1] {
        let mut wrong = public.clone();
        let v: Fr = wrong[k].parse().unwrap();
        wrong[k] = zkbc::field::to_dec(&(v + Fr::from(1u64)));
        std::fs::write(
            run.path("wrong.json"),
            serde_json::to_string(&wrong).unwrap(),
        )
        .unwrap();
        let (code, err) = run.verify(&gcd, "gcd.proof", "wrong.json", "gcd.hyrax");
        assert_eq!(code, Some(1), "value {k}: {err}");
        assert!(err.contains("proof rejected"), "{err}");
    }

    // Flipped bytes anywhere in the proof: rejected (1) or malformed (2), never accepted.
    let bytes = std::fs::read(run.path("gcd.proof")).unwrap();
    for at in [
        9,
        20,
        60,
        bytes.len() / 3,
        bytes.len() / 2,
        bytes.len() - 40,
        bytes.len() - 1,
    ] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x04;
        std::fs::write(run.path("flipped.proof"), &flipped).unwrap();
        let (code, err) = run.verify(&gcd, "flipped.proof", "gcd.public.json", "gcd.hyrax");
        assert!(matches!(code, Some(1 | 2)), "byte {at}: {code:?} {err}");
    }

    // A proof of another program, replayed against gcd with the other program's public values.
    let other = circuit("range_sum.zok");
    run.prove(&other, &circuit("range_sum.json"), "other");
    let (code, err) = run.verify(&gcd, "other.proof", "other.public.json", "gcd.hyrax");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("another circuit"), "{err}");
}

#[test]
fn no_private_input_is_in_the_proof() {
    let run = Run::new();
    std::fs::write(run.path("p.zok"), PROGRAM).unwrap();
    std::fs::write(
        run.path("p.json"),
        format!(r#"{{"a": "{SECRET_A}", "n": "5"}}"#),
    )
    .unwrap();
    run.prove(&run.path("p.zok"), &run.path("p.json"), "p");
    let (code, err) = run.verify(&run.path("p.zok"), "p.proof", "p.public.json", "p.hyrax");
    assert_eq!(code, Some(0), "{err}");
    let a: Fr = SECRET_A.parse().unwrap();
    let le = fr_to_bytes_le(&a);
    let mut be = le;
    be.reverse();
    for name in ["p.proof", "p.public.json"] {
        let bytes = std::fs::read(run.path(name)).unwrap();
        for needle in [&le[..9], &be[23..], SECRET_A.as_bytes()] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle),
                "{name} holds the private input"
            );
        }
    }
}

/// The statement and executions of PROGRAM on a = 7, n = 4, and its public values.
fn proved_case() -> (spartan::Statement, Vec<Fr>) {
    let mut compiled = driver::compile("p.zok", PROGRAM, &driver::Options::default()).unwrap();
    driver::legalize_for_r1cs(&mut compiled.program).unwrap();
    let inputs = serde_json::json!({"a": "7", "n": "4"});
    let values = compiled.inputs_from_json(&inputs).unwrap();
    let outcome = interp::run(&compiled.program, &values, interp::Limits::default()).unwrap();
    driver::spartan::witness(&compiled, &outcome, None).unwrap()
}

fn verdict(st: &spartan::Statement, public: &[Fr]) -> Result<(), Rejection> {
    let params = Params::new(st.generators_needed());
    let proof = spartan::prove(&params, st, public).unwrap();
    let proof = spartan::Proof::from_bytes(&proof.to_bytes()).unwrap();
    let mut verifier = st.clone();
    verifier
        .blocks
        .iter_mut()
        .for_each(|b| b.executions.clear());
    spartan::verify(&params, &verifier, public, &proof)
}

#[test]
fn an_honest_run_verifies_and_a_broken_transition_or_witness_does_not() {
    let (st, public) = proved_case();
    assert_eq!(verdict(&st, &public), Ok(()));

    // A loop block run several times: replace one execution by a copy of another. Each
    // execution still satisfies its block; the states no longer chain.
    let looped = st
        .blocks
        .iter()
        .position(|b| b.executions.len() >= 2 && b.first_unsatisfied().is_none())
        .expect("a block run twice");
    let mut broken = st.clone();
    let first = broken.blocks[looped].executions[0].clone();
    broken.blocks[looped].executions[1] = first;
    assert!(broken
        .blocks
        .iter()
        .all(|b| b.first_unsatisfied().is_none()));
    assert_eq!(verdict(&broken, &public), Err(Rejection::Transition));

    // One witness value changed (the last variable of an execution).
    let mut tampered = st.clone();
    let z = &mut tampered.blocks[looped].executions[1];
    *z.last_mut().unwrap() += Fr::from(1u64);
    let rejected = verdict(&tampered, &public);
    assert!(
        matches!(
            rejected,
            Err(Rejection::Block { .. } | Rejection::Transition)
        ),
        "{rejected:?}"
    );
}

/// Zero knowledge, as far as bytes show it: no value of any wire of any execution — private
/// inputs, intermediate wires, states — appears in the serialized proof (every message is a
/// commitment or a masked answer; version 2 sent sumcheck rounds and evaluations in the clear).
#[test]
fn no_wire_value_of_any_execution_is_in_the_proof() {
    let (st, public) = proved_case();
    let params = Params::new(st.generators_needed());
    let bytes = spartan::prove(&params, &st, &public).unwrap().to_bytes();
    let mut checked = 0;
    for block in &st.blocks {
        for z in &block.executions {
            for v in z
                .iter()
                .filter(|v| **v != Fr::from(0u64) && **v != Fr::from(1u64))
            {
                let le = fr_to_bytes_le(v);
                assert!(
                    !bytes.windows(32).any(|w| w == le),
                    "block {}: the wire value {v} is in the proof",
                    block.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "only {checked} values checked");
}

/// A change made to a proof.
type Tamper = dyn Fn(&mut spartan::Proof);

/// A proof whose committed messages or masked answers are changed is rejected: a round
/// commitment swapped for another, the masked sum moved, a product proof's answer moved, the
/// transition's partial product replaced.
#[test]
fn a_tampered_commitment_or_masked_answer_is_rejected() {
    let (st, public) = proved_case();
    let params = Params::new(st.generators_needed());
    let proof = spartan::prove(&params, &st, &public).unwrap();
    let mut verifier = st.clone();
    verifier
        .blocks
        .iter_mut()
        .for_each(|b| b.executions.clear());
    assert_eq!(spartan::verify(&params, &verifier, &public, &proof), Ok(()));
    let ran = proof
        .blocks
        .iter()
        .position(|b| b.log_executions.is_some())
        .unwrap();
    let one = Fr::from(1u64);
    let tampers: Vec<Box<Tamper>> = vec![
        Box::new(move |p| p.blocks[ran].argument.commitments.swap(0, 1)),
        Box::new(move |p| p.blocks[ran].argument.linear.masked_sum += one),
        Box::new(move |p| p.blocks[ran].argument.linear.answers[0][0] += one),
        Box::new(move |p| p.blocks[ran].argument.muls[0].answers[4] += one),
        Box::new(move |p| {
            let c = &mut p.blocks[ran].argument.commitments;
            let last = c.len() - 1;
            c[last] = c[0];
        }),
        Box::new(|p| p.transition.linear.masked_sum += Fr::from(1u64)),
    ];
    for (k, tamper) in tampers.iter().enumerate() {
        let mut bad = proof.clone();
        tamper(&mut bad);
        assert!(
            spartan::verify(&params, &verifier, &public, &bad).is_err(),
            "tamper {k} accepted"
        );
    }
}

/// `Params::commit` takes short vectors through its fixed-base tables and long ones through an
/// MSM; both must equal `Σ v_k·G_k + b·H` computed by plain scalar multiplication, for scalars
/// with zero bytes, all-ones bytes (`−1`), and random ones.
#[test]
fn fixed_base_commitments_equal_plain_scalar_multiplication() {
    use ark_bn254::G1Projective;
    use ark_ff::{One, Zero};
    use ark_std::rand::{rngs::StdRng, SeedableRng};
    use ark_std::UniformRand;
    let params = Params::new(8);
    let mut rng = StdRng::seed_from_u64(38);
    let special = [
        Fr::zero(),
        Fr::one(),
        -Fr::one(),
        Fr::from(256u64),
        Fr::from(u64::MAX),
    ];
    for len in 0..=8 {
        for round in 0..6 {
            let v: Vec<Fr> = (0..len)
                .map(|k| {
                    if round < special.len() && k % 2 == 0 {
                        special[round]
                    } else {
                        Fr::rand(&mut rng)
                    }
                })
                .collect();
            let b = if round < special.len() {
                special[(round + 1) % special.len()]
            } else {
                Fr::rand(&mut rng)
            };
            let mut plain = G1Projective::from(params.blind) * b;
            for (g, s) in params.gens.iter().zip(&v) {
                plain += G1Projective::from(*g) * s;
            }
            assert_eq!(params.commit(&v, b), plain, "length {len}, round {round}");
        }
    }
}

/// The backend's own MSM (bits summed, small and negated-small scalars apart, Pippenger, windows
/// spread over the pool from 2^12 points, affine buckets from 2^11) equals ark-ec's on lengths
/// around every window-size change and on both sides of 2^11 and 2^12, with zero, one,
/// ±small, just-past-64-bit, 128-bit and random scalars, and on repeated, opposite and
/// identity bases.
#[test]
fn the_backends_msm_equals_ark_ecs() {
    use ark_bn254::G1Projective;
    use ark_ec::VariableBaseMSM;
    use ark_std::rand::{rngs::StdRng, SeedableRng};
    use ark_std::UniformRand;
    let params = Params::new(1 << 13);
    let mut rng = StdRng::seed_from_u64(3838);
    for n in [0, 1, 2, 3, 31, 32, 33, 100, 1023, 1024, 4095, 4096, 8192] {
        let scalars: Vec<Fr> = (0..n)
            .map(|i| match i % 6 {
                0 => -Fr::from(1u64),
                1 => Fr::from(i as u64),
                2 => -Fr::from(i as u64 * 0x1_0000_0001),
                3 => Fr::from(u64::MAX) + Fr::from(i as u64 % 3),
                4 => Fr::from(0u64),
                _ => Fr::rand(&mut rng),
            })
            .collect();
        let bases = &params.gens[..n];
        assert_eq!(
            spartan::hyrax::msm(bases, &scalars),
            G1Projective::msm_unchecked(bases, &scalars),
            "{n} points"
        );
    } // Past 2^11 points the buckets are affine: bases repeated (a bucket doubling), negated (a
      // bucket cancelling to the identity), the identity itself, and scalars of at most 128 bits
      // (the verifier's weights) beside full ones, as a proof may hold any points.
    use ark_ec::AffineRepr;
    for n in [2047, 2048, 3000, 6000] {
        let bases: Vec<_> = (0..n)
            .map(|i| match i % 5 {
                0 => params.gens[0],
                1 => -params.gens[0],
                2 => params.gens[1],
                3 if i % 7 == 0 => ark_bn254::G1Affine::zero(),
                _ => params.gens[i % 64],
            })
            .collect();
        let scalars: Vec<Fr> = (0..n)
            .map(|i| match i % 4 {
                0 => Fr::from(5u64),
                1 => Fr::from(u128::MAX - i as u128),
                2 => -Fr::from(u128::MAX / 3 + i as u128),
                _ => Fr::rand(&mut rng),
            })
            .collect();
        assert_eq!(
            spartan::hyrax::msm(&bases, &scalars),
            G1Projective::msm_unchecked(&bases, &scalars),
            "{n} repeated points"
        );
    }
}
