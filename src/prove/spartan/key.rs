//! The verifier key: what `zkbc verify-proof --vk KEY` needs besides the proof and the public
//! values, so that it neither compiles the program nor derives the generators. `zkbc setup
//! --backend spartan --vk KEY` writes it (docs/proof.md, "The verifier key").
//!
//! It holds the [`Statement`] as the verifier compiles it (every block's matrices in their
//! compressed rows, its state wires, the entry, the public input wires, the output count, the
//! memory's initial entries and accesses), the SHA-256 of the program's source file, and the
//! Hyrax generators with the try each was hashed at ([`Params::from_counted`]): reading the key
//! checks every generator by hashing (two SHA-256 compressions and a comparison each) instead
//! of deriving it (a square root each), so the generators stay ones whose discrete logarithms
//! nobody knows whoever wrote the key.
//!
//! # Binding
//!
//! The header carries the statement's digest ([`Statement::digest`]); reading the key
//! recomputes nothing, and [`super::verify`] recomputes the digest from the key's statement and
//! compares it with the proof's, so a proof of another program, or a key whose statement was
//! changed, is rejected as "another circuit". `verify-proof` also requires the header's digest
//! to be the proof's (a byte comparison), so a key whose header and statement disagree is
//! rejected too. The statement itself is what the key's writer
//! compiled: like any verifying key (Groth16's included) it is trusted as the program's, so a
//! verifier makes it with `zkbc setup` or takes it from whoever it trusts. The source hash
//! catches the key of another program (or of an edited one) passed beside a program file: the
//! command compares it with the file's bytes. Imported modules and compile flags are not in
//! the hash: the key's statement is the program as compiled then.
//!
//! # Encoding
//!
//! After the common header (kind 2, the statement's digest), with `format`'s integers, field
//! elements and points: the source's SHA-256 (32 bytes); the generator count `n` and `n + 1`
//! tries (u64 LE: the generators', then `H`'s), then the `n` generators and `H`; the block
//! count and per block its name (length, UTF-8 bytes), its state wires (input, accesses,
//! output: u32 each), `num_instance`, `num_witness`, and the matrices A, B, C, each as its row
//! ends, entry variables and coefficient indices (lists of u32) and its distinct coefficients
//! (a list of field elements); the entry, the public input wires (a list of u32) and the output
//! count; one byte, 0 without memory, 1 with, followed by the initial entries (a count, then
//! per entry its address, segment as u64 LE and value) and per block its accesses (a count,
//! then per access the segment as u64 LE and the address, value and kind wires as u32: kind 0
//! a read, 1 a write, `2 + w` a write guarded by wire `w`; then one byte, 1 for an access of
//! the read-only list), then the read-only list's size (u64 LE) and public entries (as the
//! initial entries).

use super::format::{err, header, read_header, FormatError, Reader, Writer, KEY, MAX_GENERATORS};
use super::hyrax::Params;
use super::memory::{Access, Memory, Rw};
use super::Statement;
use crate::field::Fr;
use crate::prove::{BlockInstance, SparseMatrix, SparseR1cs, StateWires};
use crate::r1cs::memory::MemoryEntry;
use ark_ff::One;
use sha2::{Digest, Sha256};

/// A verifier key.
#[derive(Clone, Debug)]
pub struct VerifierKey {
    /// The SHA-256 of the program's source file.
    pub source: [u8; 32],
    /// The statement as the verifier compiles it (no executions).
    pub statement: Statement,
    /// The Hyrax generators.
    pub params: Params,
    /// The statement's digest the header carries.
    pub digest: [u8; 32],
}

/// The SHA-256 of a program's source bytes, as a key records it.
pub fn source_hash(source: &[u8]) -> [u8; 32] {
    Sha256::digest(source).into()
}

fn u32_of(v: usize) -> u32 {
    u32::try_from(v).expect("bug: an index of 2^32 in a verifier key")
}

impl Writer {
    fn u32(&mut self, v: usize) {
        self.0.extend_from_slice(&u32_of(v).to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32s(&mut self, vs: &[u32]) {
        self.len(vs.len());
        vs.iter()
            .for_each(|v| self.0.extend_from_slice(&v.to_le_bytes()));
    }
    fn matrix(&mut self, m: &SparseMatrix) {
        let (ends, vars, ids, coeffs) = m.raw_parts();
        self.u32s(ends);
        self.u32s(vars);
        self.u32s(ids);
        self.frs(coeffs);
    }
}

impl Reader<'_> {
    fn u32(&mut self) -> Result<usize, FormatError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")) as usize)
    }
    fn u64(&mut self) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn u32s(&mut self) -> Result<Vec<u32>, FormatError> {
        let n = self.len(4)?;
        let bytes = self.take(4 * n)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
    fn matrix(&mut self) -> Result<SparseMatrix, FormatError> {
        let (ends, vars, ids) = (self.u32s()?, self.u32s()?, self.u32s()?);
        let coeffs = self.frs()?;
        SparseMatrix::from_raw_parts(ends, vars, ids, coeffs).map_err(FormatError)
    }
    fn block_instance(&mut self) -> Result<BlockInstance, FormatError> {
        let n = self.len(1)?;
        let name = String::from_utf8(self.take(n)?.to_vec())
            .or_else(|_| err("a block's name is not UTF-8"))?;
        let state = StateWires {
            input_state: self.u32()?,
            accesses: self.u32()?,
            output_state: self.u32()?,
        };
        let (num_instance, num_witness) = (self.u32()?, self.u32()?);
        let (a, b, c) = (self.matrix()?, self.matrix()?, self.matrix()?);
        Ok(BlockInstance {
            name,
            source: None,
            state: Some(state),
            r1cs: SparseR1cs {
                num_instance,
                num_witness,
                a,
                b,
                c,
            },
            executions: Vec::new(),
        })
    }
    fn entries(&mut self) -> Result<Vec<MemoryEntry>, FormatError> {
        let n = self.len(72)?;
        let mut inits = Vec::with_capacity(n);
        for _ in 0..n {
            let addr = self.fr()?;
            let seg = self.u64()?;
            let value = self.fr()?;
            inits.push(MemoryEntry {
                addr,
                seg,
                value,
                rw: Fr::one(),
                ts: 0,
            });
        }
        Ok(inits)
    }
    fn memory(&mut self, blocks: usize) -> Result<Memory, FormatError> {
        let inits = self.entries()?;
        let mut accesses = Vec::with_capacity(blocks);
        for _ in 0..blocks {
            let n = self.len(21)?;
            let mut list = Vec::with_capacity(n);
            for _ in 0..n {
                let seg = self.u64()?;
                let (addr, value) = (self.u32()?, self.u32()?);
                let rw = match self.u32()? {
                    0 => Rw::Read,
                    1 => Rw::Write,
                    w => Rw::Wire(w - 2),
                };
                let read_only = match self.byte()? {
                    0 => false,
                    1 => true,
                    b => return err(format!("an access's read-only flag is {b}, not 0 or 1")),
                };
                list.push(Access {
                    seg,
                    addr,
                    value,
                    rw,
                    read_only,
                });
            }
            accesses.push(list);
        }
        let ro_size = self.u64()?;
        let ro_inits = self.entries()?;
        Ok(Memory {
            inits,
            ro_inits,
            ro_size,
            accesses,
            ..Memory::default()
        })
    }
}

impl VerifierKey {
    /// The key of `statement` (the verifier's: its executions are not written) for the program
    /// whose source bytes hash to `source`, with `generators` Hyrax generators
    /// ([`Statement::generators_needed`]).
    pub fn new(
        statement: Statement,
        source: [u8; 32],
        generators: usize,
    ) -> (VerifierKey, Vec<u64>) {
        let (params, counters) = Params::new_counted(generators);
        let digest = statement.digest();
        let key = VerifierKey {
            source,
            statement,
            params,
            digest,
        };
        (key, counters)
    }

    /// The file's bytes; `counters` are [`VerifierKey::new`]'s.
    pub fn to_bytes(&self, counters: &[u64]) -> Vec<u8> {
        let mut w = Writer::default();
        w.0.extend_from_slice(&self.source);
        w.len(self.params.gens.len());
        counters.iter().for_each(|&c| w.u64(c));
        self.params.gens.iter().for_each(|p| w.point(p));
        w.point(&self.params.blind);
        let st = &self.statement;
        w.len(st.blocks.len());
        for b in &st.blocks {
            w.len(b.name.len());
            w.0.extend_from_slice(b.name.as_bytes());
            let s = b.state.unwrap_or(StateWires {
                input_state: 0,
                accesses: 0,
                output_state: 0,
            });
            for v in [s.input_state, s.accesses, s.output_state] {
                w.u32(v);
            }
            w.u32(b.r1cs.num_instance);
            w.u32(b.r1cs.num_witness);
            for (_, m) in b.r1cs.matrices() {
                w.matrix(m);
            }
        }
        w.u32(st.entry);
        let wires: Vec<u32> = st.public_inputs.iter().map(|&v| u32_of(v)).collect();
        w.u32s(&wires);
        w.u32(st.num_outputs);
        match &st.memory {
            None => w.0.push(0),
            Some(m) => {
                w.0.push(1);
                w.len(m.inits.len());
                for e in &m.inits {
                    w.fr(&e.addr);
                    w.u64(e.seg);
                    w.fr(&e.value);
                }
                for list in &m.accesses {
                    w.len(list.len());
                    for a in list {
                        w.u64(a.seg);
                        w.u32(a.addr);
                        w.u32(a.value);
                        w.u32(match a.rw {
                            Rw::Read => 0,
                            Rw::Write => 1,
                            Rw::Wire(v) => 2 + v,
                        });
                        w.0.push(u8::from(a.read_only));
                    }
                }
                w.u64(m.ro_size);
                w.len(m.ro_inits.len());
                for e in &m.ro_inits {
                    w.fr(&e.addr);
                    w.u64(e.seg);
                    w.fr(&e.value);
                }
            }
        }
        header(KEY, &self.digest, w.0)
    }

    /// Reads a key file: its generators must be hashed ones; its statement's shape is checked
    /// when it verifies ([`super::verify`] validates the statement and recomputes its digest).
    pub fn from_bytes(bytes: &[u8]) -> Result<VerifierKey, FormatError> {
        let (digest, payload) = read_header(bytes, KEY)?;
        let mut r = Reader(payload);
        let source: [u8; 32] = r.take(32)?.try_into().expect("32 bytes");
        let n = r.len(8 + 64)?;
        if !n.is_power_of_two() || n > MAX_GENERATORS {
            return err(format!("{n} generators, not a power of two up to 2^20"));
        }
        let counters: Vec<u64> = (0..=n).map(|_| r.u64()).collect::<Result<_, _>>()?;
        let gens: Vec<_> = (0..n).map(|_| r.point()).collect::<Result<_, _>>()?;
        let blind = r.point()?;
        let Some(params) = Params::from_counted(gens, blind, &counters) else {
            return err("the generators are not zkbc's (hashed to the curve from its label)");
        };
        let blocks = r.len(1)?;
        let blocks: Vec<BlockInstance> = (0..blocks)
            .map(|_| r.block_instance())
            .collect::<Result<_, _>>()?;
        let entry = r.u32()?;
        let public_inputs = r.u32s()?.into_iter().map(|v| v as usize).collect();
        let num_outputs = r.u32()?;
        let memory = match r.byte()? {
            0 => None,
            1 => Some(r.memory(blocks.len())?),
            b => return err(format!("the memory flag is {b}, not 0 or 1")),
        };
        if !r.0.is_empty() {
            return err(format!("{} bytes after the end of the key", r.0.len()));
        }
        Ok(VerifierKey {
            source,
            statement: Statement {
                blocks,
                entry,
                public_inputs,
                num_outputs,
                memory,
            },
            params,
            digest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::Zero;

    /// A statement with one block (the memory's pair instance as its matrices, any R1CS
    /// will do) and a memory of two entries and three kinds of access.
    fn statement() -> Statement {
        let r1cs = super::super::memory::pair_r1cs(3);
        let n = r1cs.num_vars();
        Statement {
            blocks: vec![BlockInstance {
                name: "b0".into(),
                source: Some("p.zok:1-2".into()),
                state: Some(StateWires {
                    input_state: 2,
                    accesses: 3,
                    output_state: 1,
                }),
                r1cs,
                executions: Vec::new(),
            }],
            entry: 0,
            public_inputs: vec![2],
            num_outputs: 1,
            memory: Some(Memory {
                inits: (0..2u64)
                    .map(|k| MemoryEntry {
                        addr: Fr::from(k),
                        seg: k,
                        value: Fr::from(7 + k),
                        rw: Fr::one(),
                        ts: 0,
                    })
                    .collect(),
                accesses: vec![vec![
                    Access {
                        seg: 0,
                        addr: 1,
                        value: 2,
                        rw: Rw::Read,
                        read_only: false,
                    },
                    Access {
                        seg: 1,
                        addr: 3,
                        value: 4,
                        rw: Rw::Wire(n - 1),
                        read_only: false,
                    },
                    Access {
                        seg: 1,
                        addr: 3,
                        value: 5,
                        rw: Rw::Write,
                        read_only: false,
                    },
                    Access {
                        seg: 2,
                        addr: 1,
                        value: 2,
                        rw: Rw::Read,
                        read_only: true,
                    },
                ]],
                ro_inits: vec![
                    MemoryEntry {
                        addr: Fr::zero(),
                        seg: 0,
                        value: Fr::zero(),
                        rw: Fr::one(),
                        ts: 0,
                    },
                    MemoryEntry {
                        addr: Fr::from(3u64),
                        seg: 2,
                        value: Fr::from(9u64),
                        rw: Fr::one(),
                        ts: 0,
                    },
                ],
                ro_size: 4,
                ..Memory::default()
            }),
        }
    }

    #[test]
    fn a_key_reads_back_as_written() {
        let st = statement();
        let (key, counters) = VerifierKey::new(st.clone(), source_hash(b"def main"), 8);
        let bytes = key.to_bytes(&counters);
        let read = VerifierKey::from_bytes(&bytes).expect("a key");
        assert_eq!(read.digest, st.digest());
        assert_eq!(read.statement.digest(), st.digest());
        assert_eq!(read.statement.memory, st.memory);
        assert_eq!(read.statement.blocks[0].r1cs, st.blocks[0].r1cs);
        assert_eq!(read.statement.public_inputs, st.public_inputs);
        assert_eq!(read.params, Params::new(8));
        assert_eq!(read.source, source_hash(b"def main"));
        // Every cut is a format error, not a panic.
        for end in (0..bytes.len()).step_by(97) {
            assert!(
                VerifierKey::from_bytes(&bytes[..end]).is_err(),
                "cut at {end}"
            );
        }
    }

    #[test]
    fn generators_are_checked_by_their_hash() {
        let (params, mut counters) = Params::new_counted(4);
        let again = |gens: Vec<_>, c: &[u64]| Params::from_counted(gens, params.blind, c);
        assert_eq!(again(params.gens.clone(), &counters), Some(params.clone()));
        // Another generator in a slot, another try, a count that does not match: refused.
        let mut swapped = params.gens.clone();
        swapped.swap(0, 1);
        assert!(again(swapped, &counters).is_none());
        assert!(again(params.gens.clone(), &counters[1..]).is_none());
        counters[2] += 1;
        assert!(again(params.gens.clone(), &counters).is_none());
    }
}
