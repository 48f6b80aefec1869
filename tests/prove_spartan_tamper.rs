//! Soundness of the Spartan backend, through the separate `zkbc verify-proof` process: a prover
//! that lies — a wrong output, a changed private input, a swapped pair of block executions, a stale memory read
//! (with the sorted list honest to it, or patched to look coherent), a broken transition, a
//! flipped proof byte, a proof replayed against another program — makes a proof that
//! `verify-proof` rejects (exit 1, with the check that failed on stderr). Each lie is made at
//! the library level (a tampered run or statement, proved by `spartan::prove`), written to
//! files, and judged by the command-line verifier, which compiles the program itself. The
//! honest proof of the same run is accepted first, so every rejection is the lie's; the
//! expected reason is asserted, so a test fails when the check it targets is removed.
//! No private input appears in the proof's bytes (little- and big-endian, and decimal).

use crate::common;
use common::{stderr, zkbc};

use ark_ff::Zero;
use zkbc::driver;
use zkbc::field::{to_dec, Fr};
use zkbc::ir::interp::{self, Val};
use zkbc::prove::spartan::{self, hyrax::Params, Statement};
use zkbc::prove::transcript::fr_to_bytes_le;

/// An array in memory (64 elements, run-time indices, a loop of run-time length), a private
/// input, and an output read straight from memory: `b[j] = s²` for `j < n`.
const MEMORY: &str = "def main(private field s, u32 n, u32 j) -> field {
    field[64] mut b = [0; 64];
    u32 mut i = 0;
    while i < n {
        b[i] = b[i] + s * s;
        i = i + 1;
    }
    return b[j];
}
";

/// Another program with memory, for replays.
const OTHER: &str = "def main(private field[64] a, u32 n) -> field {
    field[64] mut b = a;
    field mut s = 0;
    u32 mut i = 0;
    while i < n {
        s = s + b[i];
        b[i] = s;
        i = i + 1;
    }
    return s + b[0];
}
";

/// A private value distinctive in every encoding: 2^64 + 0x1234_5678_9abc_def1.
const SECRET: &str = "18446744078004252401";

fn inputs(s: &str) -> serde_json::Value {
    serde_json::json!({"s": s, "n": "6", "j": "3"})
}

struct Case {
    dir: tempfile::TempDir,
    compiled: driver::Compilation,
}

impl Case {
    /// `source` written to `prog.zok` and compiled as the commands compile it.
    fn new(source: &str) -> Case {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("prog.zok"), source).unwrap();
        let mut compiled =
            driver::compile("prog.zok", source, &driver::Options::default()).unwrap();
        driver::legalize_for_r1cs(&mut compiled.program).unwrap();
        Case { dir, compiled }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn run(&self, inputs: &serde_json::Value) -> interp::Outcome {
        let values = self.compiled.inputs_from_json(inputs).unwrap();
        interp::run(&self.compiled.program, &values, interp::Limits::default()).unwrap()
    }

    fn witness(&self, outcome: &interp::Outcome) -> (Statement, Vec<Fr>) {
        driver::spartan::witness(&self.compiled, outcome, None).unwrap()
    }

    /// Proves `st` with `public` at the library level, writes the parameters, the proof and
    /// the public values, and runs `zkbc verify-proof` on `program` (a path): exit code and
    /// stderr. Also returns the proof's bytes.
    fn judge_against(
        &self,
        program: &str,
        st: &Statement,
        public: &[Fr],
    ) -> (Option<i32>, String, Vec<u8>) {
        let params = Params::new(st.generators_needed());
        let proof = spartan::prove(&params, st, public).unwrap().to_bytes();
        std::fs::write(self.path("p.hyrax"), params.to_bytes()).unwrap();
        std::fs::write(self.path("p.proof"), &proof).unwrap();
        let public: Vec<String> = public.iter().map(to_dec).collect();
        std::fs::write(
            self.path("p.public.json"),
            serde_json::to_string(&public).unwrap(),
        )
        .unwrap();
        let (code, err) = self.verify(program, "p.proof");
        (code, err, proof)
    }

    fn verify(&self, program: &str, proof: &str) -> (Option<i32>, String) {
        let out = zkbc(&[
            "verify-proof",
            program,
            &self.path(proof),
            "--public",
            &self.path("p.public.json"),
            "--vk",
            &self.path("p.hyrax"),
        ]);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{err}");
        (out.status.code(), err)
    }

    fn judge(&self, st: &Statement, public: &[Fr]) -> (Option<i32>, String) {
        let (code, err, _) = self.judge_against(&self.path("prog.zok"), st, public);
        (code, err)
    }
}

/// The honest proof of `MEMORY` on the default inputs: accepted.
fn honest() -> (Case, interp::Outcome, Statement, Vec<Fr>) {
    let case = Case::new(MEMORY);
    let outcome = case.run(&inputs("7"));
    let (st, public) = case.witness(&outcome);
    assert!(st.memory.is_some(), "the program's array lives in memory");
    assert_eq!(public[0], Fr::from(49u64), "b[3] = 7²");
    let (code, err) = case.judge(&st, &public);
    assert_eq!(code, Some(0), "the honest proof: {err}");
    (case, outcome, st, public)
}

fn rejected(verdict: (Option<i32>, String), because: &str) {
    let (code, err) = verdict;
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("proof rejected"), "{err}");
    assert!(err.contains(because), "expected {because:?}: {err}");
}

/// The loop block: the block with memory accesses that ran most often.
fn loop_block(st: &Statement) -> usize {
    let m = st.memory.as_ref().unwrap();
    (0..st.blocks.len())
        .filter(|&b| !m.accesses[b].is_empty())
        .max_by_key(|&b| st.blocks[b].executions.len())
        .filter(|&b| st.blocks[b].executions.len() >= 2)
        .expect("a block with accesses run twice")
}

#[test]
fn a_wrong_output_is_rejected() {
    let (case, _, st, mut public) = honest();
    public[0] += Fr::from(1u64);
    rejected(case.judge(&st, &public), "transition products differ");
}

#[test]
fn a_changed_private_input_is_rejected() {
    let (case, _, _, public) = honest();
    // The run on another private a[3], claimed with the honest run's output.
    let (st, other) = case.witness(&case.run(&inputs("8")));
    assert_ne!(other[0], public[0]);
    assert_eq!(other[1..], public[1..], "the public inputs are the same");
    rejected(case.judge(&st, &public), "transition products differ");
}

#[test]
fn a_swapped_pair_of_block_executions_is_rejected() {
    let (case, _, st, public) = honest();
    // Two executions of the loop block claimed in the other order: their clocks (positions in
    // the run) swapped. Each still satisfies its block.
    let b = loop_block(&st);
    let mut swapped = st.clone();
    swapped.memory.as_mut().unwrap().clocks[b].swap(0, 1);
    rejected(case.judge(&swapped, &public), "transition products differ");
}

#[test]
fn a_broken_transition_is_rejected() {
    let (case, _, st, public) = honest();
    // An execution of the loop block replaced by a copy of another (clock included): every
    // execution satisfies its block, the states no longer chain.
    let b = loop_block(&st);
    let mut broken = st.clone();
    broken.blocks[b].executions[1] = broken.blocks[b].executions[0].clone();
    let clocks = &mut broken.memory.as_mut().unwrap().clocks[b];
    clocks[1] = clocks[0];
    assert!(broken.blocks[b].first_unsatisfied().is_none());
    rejected(case.judge(&broken, &public), "transition products differ");
}

/// `MEMORY` run with its last read (`b[j]`, in the return block) returning a stale value,
/// the element's value before the loop wrote it (0), and returning it: every block is
/// satisfied, the output is the stale value.
fn stale_run(case: &Case, outcome: &interp::Outcome) -> (Statement, Vec<Fr>) {
    let mut stale = outcome.clone();
    let last = stale.trace.last_mut().expect("a trace");
    let [read] = &mut last.accesses[..] else {
        panic!("the return block makes one access: {:?}", last.accesses)
    };
    assert_eq!((read.index, read.written.is_none()), (3, true));
    assert_eq!(read.read, Val::Field(Fr::from(49u64)));
    read.read = Val::Field(Fr::zero());
    last.exit = interp::Exit::Return(vec![Val::Field(Fr::zero())]);
    let (st, public) = case.witness(&stale);
    assert_eq!(public[0], Fr::zero(), "the stale value is the output");
    assert!(st.blocks.iter().all(|b| b.first_unsatisfied().is_none()));
    (st, public)
}

#[test]
fn a_stale_memory_read_is_rejected() {
    let (case, outcome, _, _) = honest();
    // The address-sorted list as the stale run made it: its pair after the last write fails
    // the pair instance ("a read returns the last value written").
    let (st, public) = stale_run(&case, &outcome);
    rejected(case.judge(&st, &public), "block memory.pairs");
}

#[test]
fn a_stale_read_behind_a_coherent_sorted_list_is_rejected() {
    let (case, outcome, _, _) = honest();
    // The prover patches the sorted list so that every pair holds (the read returns the value
    // written, 49): the sorted list is then not the blocks' accesses.
    let (mut st, public) = stale_run(&case, &outcome);
    let m = st.memory.as_mut().unwrap();
    let k = (1..m.sorted.len())
        .find(|&k| {
            let (e, n) = (&m.sorted[k - 1], &m.sorted[k]);
            e.addr == n.addr && n.rw.is_zero() && e.value != n.value
        })
        .expect("the stale read in the sorted list");
    m.sorted[k].value = m.sorted[k - 1].value;
    assert_eq!(m.sorted[k].value, Fr::from(49u64));
    rejected(case.judge(&st, &public), "memory products differ");
}

#[test]
fn a_read_moved_in_time_is_rejected() {
    let (case, _, mut st, public) = honest();
    // The sorted list claims the last read happened one step earlier than the run says.
    let m = st.memory.as_mut().unwrap();
    let last = m.sorted.iter().map(|e| e.ts).max().unwrap();
    let k = m.sorted.iter().position(|e| e.ts == last).unwrap();
    m.sorted[k].ts -= 1;
    m.sorted.sort_by_key(|e| (e.addr, e.ts));
    rejected(case.judge(&st, &public), "memory products differ");
}

#[test]
fn flipped_bytes_and_replays_are_rejected() {
    let (case, _, st, public) = honest();
    let (code, err, proof) = case.judge_against(&case.path("prog.zok"), &st, &public);
    assert_eq!(code, Some(0), "{err}");
    // Flipped bits all over the proof, the memory section (the end) included: rejected (1)
    // or malformed (2), never accepted.
    let n = proof.len();
    for at in [9, 30, 60, n / 4, n / 2, 3 * n / 4, n - 200, n - 33, n - 1] {
        let mut flipped = proof.clone();
        flipped[at] ^= 0x10;
        std::fs::write(case.path("flipped.proof"), &flipped).unwrap();
        let (code, err) = case.verify(&case.path("prog.zok"), "flipped.proof");
        assert!(matches!(code, Some(1 | 2)), "byte {at}: {code:?} {err}");
    }
    // The proof of another program with memory, judged against MEMORY with its own public
    // values.
    let other = Case::new(OTHER);
    let (st, public) = other.witness(&other.run(&serde_json::json!({
        "a": (0..64).map(|k| k.to_string()).collect::<Vec<_>>(),
        "n": "5",
    })));
    let (code, err) = other.judge(&st, &public);
    assert_eq!(code, Some(0), "the other program's own proof: {err}");
    let (code, err, _) = other.judge_against(&case.path("prog.zok"), &st, &public);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("another circuit"), "{err}");
}

#[test]
fn no_private_input_is_in_the_proof() {
    let case = Case::new(MEMORY);
    let outcome = case.run(&inputs(SECRET));
    let (st, public) = case.witness(&outcome);
    let (code, err, proof) = case.judge_against(&case.path("prog.zok"), &st, &public);
    // s itself is in the entry's first execution, which the opening of its public tuple
    // covers; s² (written to memory six times) is public: the output.
    let secret: Fr = SECRET.parse().unwrap();
    let le = fr_to_bytes_le(&secret);
    let mut be = le;
    be.reverse();
    for needle in [&le[..9], &be[23..], SECRET.as_bytes()] {
        assert!(
            !proof.windows(needle.len()).any(|w| w == needle),
            "the proof holds the private input"
        );
    }
    let public_file = std::fs::read(case.path("p.public.json")).unwrap();
    assert!(!public_file
        .windows(SECRET.len())
        .any(|w| w == SECRET.as_bytes()));
    assert_eq!(code, Some(0), "{err}");
}

/// An input array only read (a read-only segment: its entry-block writes and reads go to the
/// read-only list, checked without timestamps), the last read in the return block.
const READ_ONLY: &str = common::READ_ONLY_INPUT_TABLE;

/// The honest proof of `READ_ONLY` (a[k] = 3k + 1, n = 6, j = 3: 51 + 10), accepted, and a
/// run whose last read returns a[3] + 1 (and the program 62): every block satisfied.
fn read_only_case() -> (Case, Statement, Vec<Fr>) {
    let case = Case::new(READ_ONLY);
    let a: Vec<String> = (0..32).map(|k| (3 * k + 1).to_string()).collect();
    let outcome = case.run(&serde_json::json!({"a": a, "n": "6", "j": "3"}));
    let (st, public) = case.witness(&outcome);
    let m = st.memory.as_ref().expect("the array lives in memory");
    assert!(m.inits.is_empty(), "no read-write list");
    assert_eq!(m.ro_inits.len(), 1, "the read-only list's head");
    assert_eq!(public[0], Fr::from(61u64));
    let (code, err) = case.judge(&st, &public);
    assert_eq!(code, Some(0), "the honest proof: {err}");
    let mut stale = outcome.clone();
    let last = stale.trace.last_mut().expect("a trace");
    let [read] = &mut last.accesses[..] else {
        panic!("the return block makes one access: {:?}", last.accesses)
    };
    assert_eq!(read.read, Val::Field(Fr::from(10u64)));
    read.read = Val::Field(Fr::from(11u64));
    last.exit = interp::Exit::Return(vec![Val::Field(Fr::from(62u64))]);
    let (st, public) = case.witness(&stale);
    assert_eq!(public[0], Fr::from(62u64));
    assert!(st.blocks.iter().all(|b| b.first_unsatisfied().is_none()));
    (case, st, public)
}

#[test]
fn a_wrong_read_only_read_is_rejected() {
    // The read-only list as the run made it: the read's pair fails the read-only pair
    // instance ("a read returns the address's one write").
    let (case, st, public) = read_only_case();
    rejected(case.judge(&st, &public), "block memory.read_only_pairs");
}

#[test]
fn a_wrong_read_only_read_behind_a_coherent_sorted_list_is_rejected() {
    // The sorted read-only list patched so that every pair holds: it is then not the blocks'
    // accesses.
    let (case, mut st, public) = read_only_case();
    let m = st.memory.as_mut().unwrap();
    let k = (1..m.ro_sorted.len())
        .find(|&k| {
            let (e, n) = (&m.ro_sorted[k - 1], &m.ro_sorted[k]);
            e.addr == n.addr && e.value != n.value
        })
        .expect("the wrong read in the sorted list");
    m.ro_sorted[k].value = m.ro_sorted[k - 1].value;
    assert_eq!(m.ro_sorted[k].value, Fr::from(10u64));
    rejected(case.judge(&st, &public), "memory products differ");
}

#[test]
fn a_read_only_read_moved_to_the_read_write_list_is_rejected() {
    // `a` is read-only, `b` read-write. A read of `a` listed in the read-write list instead
    // (at its address there, at time 1): the lists are not the blocks' accesses.
    let case = Case::new(
        "def main(private field[32] a, u32 n, u32 j) -> field {
    field[64] mut b = [0; 64];
    u32 mut i = 0;
    while i < n {
        b[i] = b[i] + a[i];
        i = i + 1;
    }
    return b[j];
}
",
    );
    let a: Vec<String> = (0..32).map(|k| (3 * k + 1).to_string()).collect();
    let outcome = case.run(&serde_json::json!({"a": a, "n": "6", "j": "3"}));
    let (mut st, public) = case.witness(&outcome);
    let (code, err) = case.judge(&st, &public);
    assert_eq!(code, Some(0), "the honest proof: {err}");
    let m = st.memory.as_mut().unwrap();
    assert!(!m.inits.is_empty() && !m.ro_inits.is_empty(), "both lists");
    let k = m
        .ro_sorted
        .iter()
        .position(|e| e.rw.is_zero())
        .expect("a read-only read");
    let mut moved = m.ro_sorted.remove(k);
    moved.ts = 1;
    m.sorted.push(moved);
    m.sorted.sort_by_key(|e| (e.addr, e.ts));
    let (code, err) = case.judge(&st, &public);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("proof rejected"), "{err}");
}
