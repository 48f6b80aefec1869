//! Export of block instances to the iden3 binary formats that circom writes and snarkjs reads:
//! `.r1cs` for a constraint system and `.wtns` for one assignment.
//!
//! # Wires
//!
//! Wire `i` is `z[i]` of `z = [1, instance..., witness...]`: wire 0 is the constant one, as
//! in circom. The instance variables (the block's transition state in and out) are all
//! *public inputs* (`nPubIn = num_instance`, `nPubOut = 0`): an instance does not say which
//! of its variables are outputs, and for a proving system both kinds are simply public. The
//! witness variables are internal wires (`nPrvIn = 0`). Every wire has the label of its own
//! index (`nLabels = nWires`).
//!
//! # `.r1cs` (version 1)
//!
//! All integers are little-endian; field elements are `n8 = 32` bytes, little-endian, in
//! *standard* form (the canonical integer in `[0, p)`, not Montgomery form: snarkjs reads them
//! with `fromRprLE`).
//!
//! ```text
//! "r1cs"  u32 version = 1  u32 nSections = 3
//! section := u32 type  u64 size  bytes[size]
//! 1 header:      u32 n8 = 32 · prime[n8] · u32 nWires · u32 nPubOut · u32 nPubIn · u32 nPrvIn
//!                · u64 nLabels · u32 mConstraints
//! 2 constraints: per constraint, A then B then C, each u32 nnz · nnz × (u32 wire, value[n8])
//! 3 wire map:    nWires × u64 label
//! ```
//!
//! # `.wtns` (version 2)
//!
//! ```text
//! "wtns"  u32 version = 2  u32 nSections = 2
//! 1 header:  u32 n8 = 32 · prime[n8] · u32 nWitness
//! 2 witness: nWitness × value[n8]
//! ```
//!
//! # A block's executions in one `.wtns` ([`write_block`], [`WtnsWriter`])
//!
//! A block that runs 100,000 times is one `NAME.r1cs` and one `NAME.wtns`, not 100,000
//! files. The `.wtns` is the same container with one more section per further execution, in
//! the order the program ran them:
//!
//! ```text
//! "wtns"  u32 version = 2  u32 nSections = 1 + E
//! 1 header:           u32 n8 = 32 · prime[n8] · u32 nWitness
//! 2 witness:          execution 0, nWitness × value[n8]
//! 3 more executions:  execution k (k = 1 .. E−1), nWitness × value[n8], one section each
//! ```
//!
//! Execution 0 is the file's one type-2 section, so snarkjs reads the file unchanged as a
//! witness of execution 0 (`snarkjs wtns check NAME.r1cs NAME.wtns`); it skips section types
//! it does not know. (Repeating type 2 would not do: snarkjs refuses a file with a duplicated
//! section.) Execution k's values start at byte [`wtns_offset`]`(nWitness, k)`, and the
//! file's first 64 bytes followed by a type-2 section holding them are a `.wtns` of that
//! execution alone, for a tool that reads only type 2 ([`single_wtns`]).
//!
//! `snarkjs r1cs info NAME.r1cs` reads the `.r1cs`, `snarkjs wtns check NAME.r1cs NAME.wtns`
//! checks an assignment against it; `tests/export_snarkjs.rs` runs both, on every execution.
//!
//! # The manifest of a block export ([`write_manifest`])
//!
//! `manifest.json` beside the files says what they are: the program, and per block its files
//! (`r1cs`, `witnesses`: the `.wtns` or null when it did not run, and `executions`, how many
//! it holds), the source lines it came from, and which wires are its transition state:
//! `input_label`, `input_state` (first wire and count), `memory_accesses`, `output_label`,
//! `output_state`; wire 0 is the constant one and every wire after the instance is private
//! witness. `executions` lists every execution in the order the program ran them, one per
//! line: `block`, `witness` (the file), `execution` (its number in the file: execution k is
//! the file's section k + 1, counting the header as section 0) and `offset` (the byte where
//! its values start). The output state of one is the input state of the next (the transition
//! the prover checks), and the last one's output label is 0 (return). Every instance wire is
//! public in the `.r1cs` files, so the state (and main's inputs in the entry block's) is
//! public to a proof of these blocks.
//!
//! # One circuit with a declared interface ([`write_circuit`])
//!
//! A program that is one block (`--monolithic`) is exported as the circuit of `main`, as circom
//! orders a circuit's wires: the constant one, then the public outputs, the public inputs, the
//! private inputs, and every other wire (the block's labels and its witness). The header says
//! `nPubOut`, `nPubIn` and `nPrvIn` accordingly, so a Groth16 setup on it makes exactly the
//! outputs and the public inputs public (`public.json`), and nothing else. `NAME.sym` names
//! each wire (`labelIdx,varIdx,componentIdx,name` per line, as circom writes it: `main.a`,
//! `main.d[1]`, `main.~out[0]`), so `snarkjs r1cs print NAME.r1cs NAME.sym` reads.
//!
//! # Files
//!
//! One file per format: `r1cs.rs` writes `.r1cs` ([`write_r1cs`], [`r1cs_bytes`]), `wtns.rs`
//! `.wtns` and a block's executions in one file ([`WtnsWriter`], [`wtns_offset`],
//! [`single_wtns`], [`wtns_bytes`]), `manifest.rs` a block export's `manifest.json`
//! ([`write_manifest`]), `circuit.rs` one circuit in circom's wire order with its `.sym`
//! ([`write_circuit`]). This file holds what they share: [`ExportError`], [`write_block`] (a
//! block's `.r1cs` and `.wtns`), the iden3 container's heads and the file-name rule.

mod circuit;
mod manifest;
mod r1cs;
mod wtns;

pub use circuit::{write_circuit, Interface};
pub use manifest::{write_manifest, ManifestBlock};
pub use r1cs::{r1cs_bytes, write_r1cs};
pub use wtns::{single_wtns, wtns_bytes, wtns_offset, WtnsWriter};

use crate::field::Fr;
use crate::prove::{BlockInstance, InstanceError};
use ark_ff::{BigInteger, PrimeField};
use std::fmt;
use std::path::{Path, PathBuf};

/// Bytes per field element in both formats.
const N8: u32 = 32;

/// Why an export failed.
#[derive(Debug)]
pub enum ExportError {
    /// The instance or an execution is malformed.
    Instance(InstanceError),
    /// A count does not fit the format's 32-bit field.
    TooLarge {
        /// What overflowed (`wires`, `constraints`, `terms in one row`).
        what: &'static str,
        /// Its value.
        count: usize,
    },
    /// The interface given for a one-block circuit does not fit its instance.
    BadInterface(String),
    /// The block name cannot be a file name (it must be non-empty ASCII letters, digits,
    /// `_`, `-` or `.`, not starting with `.`).
    BadName(String),
    /// Writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Instance(error) => write!(f, "{error}"),
            ExportError::TooLarge { what, count } => {
                write!(f, "{count} {what} do not fit the format's 32-bit count")
            }
            ExportError::BadInterface(why) => write!(f, "bug: circuit interface: {why}"),
            ExportError::BadName(name) => write!(
                f,
                "block name {name:?} cannot name a file (use letters, digits, _, - and .)"
            ),
            ExportError::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for ExportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExportError::Instance(error) => Some(error),
            ExportError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Writes `DIR/NAME.r1cs` and, when the block ran, `DIR/NAME.wtns` holding every execution in
/// order (see the module docs), creating `dir` if needed, and returns the paths written, the
/// `.r1cs` first. The instance is validated first; satisfaction is not checked, so an
/// unsatisfied execution exports as it is.
pub fn write_block(
    dir: &Path,
    name: &str,
    block: &BlockInstance,
) -> Result<Vec<PathBuf>, ExportError> {
    check_file_name(name)?;
    block.validate().map_err(ExportError::Instance)?;
    let mut written = vec![write_r1cs(dir, name, &block.r1cs)?];
    if !block.executions.is_empty() {
        let mut wtns = WtnsWriter::create(dir, name, block.r1cs.num_vars())?;
        for z in &block.executions {
            wtns.push(&[z])?;
        }
        written.push(wtns.finish()?.0);
    }
    Ok(written)
}

/// Creates `dir` if needed and writes `path` through a buffer with `write`, which is told how
/// to report an I/O error on this file.
fn write_file_with(
    dir: &Path,
    path: &Path,
    write: impl FnOnce(
        &mut std::io::BufWriter<std::fs::File>,
        &dyn Fn(std::io::Error) -> ExportError,
    ) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let io = |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::create(path).map_err(io)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    write(&mut out, &io)?;
    std::io::Write::flush(&mut out).map_err(io)
}

/// The iden3 binary container: magic, version, section count, then each section as
/// `u32 type · u64 size · bytes`.
fn container(magic: &[u8; 4], version: u32, sections: &[(u32, &[u8])]) -> Vec<u8> {
    let size: usize = sections.iter().map(|(_, s)| 12 + s.len()).sum();
    let mut out = Vec::with_capacity(12 + size);
    container_head(&mut out, magic, version, sections.len() as u32);
    for (kind, bytes) in sections {
        section_head(&mut out, *kind, bytes.len() as u64);
        out.extend_from_slice(bytes);
    }
    out
}

/// A container's head: magic, version and section count.
fn container_head(out: &mut Vec<u8>, magic: &[u8; 4], version: u32, sections: u32) {
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&sections.to_le_bytes());
}

/// A section's head: its type and the size of what follows.
fn section_head(out: &mut Vec<u8>, kind: u32, size: u64) {
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
}

/// p as 32 little-endian bytes.
fn prime_bytes() -> Vec<u8> {
    Fr::MODULUS.to_bytes_le()
}

fn count_u32(what: &'static str, count: usize) -> Result<u32, ExportError> {
    u32::try_from(count).map_err(|_| ExportError::TooLarge { what, count })
}

fn check_file_name(name: &str) -> Result<(), ExportError> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(ExportError::BadName(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prime_is_bn254_scalar_field_little_endian() {
        let p = prime_bytes();
        assert_eq!(p.len(), 32);
        // p = 0x30644e72…f0000001
        assert_eq!(p[0], 0x01);
        assert_eq!(p[31], 0x30);
    }

    #[test]
    fn file_names_are_checked() {
        assert!(check_file_name("b3").is_ok());
        assert!(check_file_name("main.b12-x_y").is_ok());
        for bad in ["", ".hidden", "../up", "a/b", "a b", "é"] {
            assert!(check_file_name(bad).is_err(), "{bad:?}");
        }
    }
}
