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
//! `snarkjs r1cs info NAME.r1cs` reads the first, `snarkjs wtns check NAME.r1cs NAME_e0.wtns`
//! checks an assignment against it; `tests/export_snarkjs.rs` runs both.

use crate::field::Fr;
use crate::prove::transcript::fr_to_bytes_le;
use crate::prove::{BlockInstance, InstanceError, SparseR1cs, SparseRow};
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

/// Writes `DIR/NAME.r1cs` and one `DIR/NAME_eK.wtns` per execution K (creating `dir` if
/// needed) and returns the paths written, the `.r1cs` first. The instance is validated first;
/// satisfaction is not checked, so an unsatisfied execution exports as it is.
pub fn write_block(
    dir: &Path,
    name: &str,
    block: &BlockInstance,
) -> Result<Vec<PathBuf>, ExportError> {
    check_file_name(name)?;
    block.validate().map_err(ExportError::Instance)?;
    let mut files = vec![(dir.join(format!("{name}.r1cs")), r1cs_bytes(&block.r1cs)?)];
    for (k, z) in block.executions.iter().enumerate() {
        files.push((dir.join(format!("{name}_e{k}.wtns")), wtns_bytes(z)?));
    }
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        std::fs::write(&path, bytes).map_err(|source| ExportError::Io {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

/// The `.r1cs` file of a constraint system (see the module docs for the layout). The system
/// should be validated (rows sorted, variables in range); this only checks the 32-bit counts.
pub fn r1cs_bytes(r1cs: &SparseR1cs) -> Result<Vec<u8>, ExportError> {
    let n_wires = count_u32("wires", r1cs.num_vars())?;
    let n_pub_in = count_u32("wires", r1cs.num_instance)?;
    let n_constraints = count_u32("constraints", r1cs.num_constraints())?;

    let mut header = Vec::with_capacity(4 + 32 + 4 * 4 + 8 + 4);
    header.extend_from_slice(&N8.to_le_bytes());
    header.extend_from_slice(&prime_bytes());
    header.extend_from_slice(&n_wires.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes()); // nPubOut
    header.extend_from_slice(&n_pub_in.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes()); // nPrvIn
    header.extend_from_slice(&u64::from(n_wires).to_le_bytes()); // nLabels
    header.extend_from_slice(&n_constraints.to_le_bytes());

    let mut constraints = Vec::new();
    for row in 0..r1cs.num_constraints() {
        for matrix in [&r1cs.a, &r1cs.b, &r1cs.c] {
            write_lc(&mut constraints, &matrix[row])?;
        }
    }

    let mut map = Vec::with_capacity(8 * r1cs.num_vars());
    for wire in 0..u64::from(n_wires) {
        map.extend_from_slice(&wire.to_le_bytes());
    }

    Ok(container(
        b"r1cs",
        1,
        &[(1, &header), (2, &constraints), (3, &map)],
    ))
}

/// The `.wtns` file of one assignment `z` (wire i = `z[i]`).
pub fn wtns_bytes(z: &[Fr]) -> Result<Vec<u8>, ExportError> {
    let n_witness = count_u32("wires", z.len())?;
    let mut header = Vec::with_capacity(4 + 32 + 4);
    header.extend_from_slice(&N8.to_le_bytes());
    header.extend_from_slice(&prime_bytes());
    header.extend_from_slice(&n_witness.to_le_bytes());
    let mut values = Vec::with_capacity(32 * z.len());
    for value in z {
        values.extend_from_slice(&fr_to_bytes_le(value));
    }
    Ok(container(b"wtns", 2, &[(1, &header), (2, &values)]))
}

fn write_lc(out: &mut Vec<u8>, row: &SparseRow) -> Result<(), ExportError> {
    out.extend_from_slice(&count_u32("terms in one row", row.len())?.to_le_bytes());
    for (var, coeff) in row {
        out.extend_from_slice(&count_u32("wires", *var)?.to_le_bytes());
        out.extend_from_slice(&fr_to_bytes_le(coeff));
    }
    Ok(())
}

/// The iden3 binary container: magic, version, section count, then each section as
/// `u32 type · u64 size · bytes`.
fn container(magic: &[u8; 4], version: u32, sections: &[(u32, &[u8])]) -> Vec<u8> {
    let size: usize = sections.iter().map(|(_, s)| 12 + s.len()).sum();
    let mut out = Vec::with_capacity(12 + size);
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(sections.len() as u32).to_le_bytes());
    for (kind, bytes) in sections {
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    out
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
