//! The `.wtns` file (version 2) of one assignment, and a block's executions in one `.wtns`
//! (execution 0 in the type-2 section, each further one in a type-3 section), as the `export`
//! module doc lays them out: written execution by execution, read back one at a time.

use super::{
    check_file_name, container, container_head, count_u32, prime_bytes, section_head, ExportError,
    N8,
};
use crate::field::Fr;
use crate::prove::transcript::fr_to_bytes_le;
use ark_ff::PrimeField;
use std::path::{Path, PathBuf};

/// The byte at which execution `k`'s values start in a block's `.wtns` of `n_witness` wires
/// (magic, version and count, 12 bytes; the header section, 12 + 40; then per execution a
/// 12-byte section header and its values).
pub fn wtns_offset(n_witness: usize, k: usize) -> u64 {
    let execution = 12 + 32 * n_witness as u64;
    12 + 52 + k as u64 * execution + 12
}

/// Writes a block's `.wtns` execution by execution, so a long run's witnesses are never held
/// whole: [`WtnsWriter::push`] appends one section, [`WtnsWriter::finish`] writes the section
/// count into the file's head.
pub struct WtnsWriter {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    n_witness: usize,
    executions: usize,
}

impl WtnsWriter {
    /// Creates `DIR/NAME.wtns` (and `dir` if needed) for assignments of `n_witness` wires and
    /// writes its head and header section.
    pub fn create(dir: &Path, name: &str, n_witness: usize) -> Result<WtnsWriter, ExportError> {
        check_file_name(name)?;
        let n = count_u32("wires", n_witness)?;
        std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(format!("{name}.wtns"));
        let file = std::fs::File::create(&path).map_err(|source| ExportError::Io {
            path: path.clone(),
            source,
        })?;
        let mut writer = WtnsWriter {
            path,
            file: std::io::BufWriter::with_capacity(1 << 20, file),
            n_witness,
            executions: 0,
        };
        let mut head = Vec::with_capacity(64);
        // The section count is rewritten by `finish`.
        container_head(&mut head, b"wtns", 2, 1);
        section_head(&mut head, 1, 40);
        head.extend_from_slice(&N8.to_le_bytes());
        head.extend_from_slice(&prime_bytes());
        head.extend_from_slice(&n.to_le_bytes());
        writer.write(&head)?;
        Ok(writer)
    }

    /// Appends one execution, the concatenation of `parts` (e.g. `[1]`, the instance, the
    /// witness), which must be `n_witness` values.
    pub fn push(&mut self, parts: &[&[Fr]]) -> Result<(), ExportError> {
        let n: usize = parts.iter().map(|p| p.len()).sum();
        if n != self.n_witness {
            return Err(ExportError::BadInterface(format!(
                "{}: an execution of {n} values in a file of {} wires",
                self.path.display(),
                self.n_witness
            )));
        }
        let kind: u32 = if self.executions == 0 { 2 } else { 3 };
        let mut section = Vec::with_capacity(12 + 32 * n);
        section_head(&mut section, kind, 32 * n as u64);
        for value in parts.iter().flat_map(|p| p.iter()) {
            for limb in value.into_bigint().0 {
                section.extend_from_slice(&limb.to_le_bytes());
            }
        }
        self.write(&section)?;
        self.executions += 1;
        Ok(())
    }

    /// Executions written so far.
    pub fn executions(&self) -> usize {
        self.executions
    }

    /// Writes the section count and closes the file; returns its path and executions.
    pub fn finish(mut self) -> Result<(PathBuf, usize), ExportError> {
        use std::io::{Seek, SeekFrom, Write};
        let sections = count_u32("sections", 1 + self.executions)?;
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ExportError::Io { path, source }
        };
        self.file.flush().map_err(io(&self.path))?;
        let file = self.file.get_mut();
        file.seek(SeekFrom::Start(8)).map_err(io(&self.path))?;
        file.write_all(&sections.to_le_bytes())
            .map_err(io(&self.path))?;
        Ok((self.path, self.executions))
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), ExportError> {
        use std::io::Write;
        self.file
            .write_all(bytes)
            .map_err(|source| ExportError::Io {
                path: self.path.clone(),
                source,
            })
    }
}

/// Execution `k` of a block's `.wtns` (the file's bytes) as a `.wtns` of its own, for tools
/// that read a witness from the type-2 section only; `None` when the file has no execution
/// `k` or is not a block's `.wtns`.
pub fn single_wtns(bytes: &[u8], k: usize) -> Option<Vec<u8>> {
    let u32_at = |p: usize| -> Option<usize> {
        Some(u32::from_le_bytes(bytes.get(p..p + 4)?.try_into().ok()?) as usize)
    };
    if bytes.get(..4)? != b"wtns" || u32_at(12)? != 1 || u32_at(24)? != N8 as usize {
        return None;
    }
    let n_witness = u32_at(60)?;
    if k + 1 >= u32_at(8)? {
        return None;
    }
    let at = usize::try_from(wtns_offset(n_witness, k)).ok()?;
    let values = bytes.get(at..at + 32 * n_witness)?;
    let mut out = bytes.get(..64)?.to_vec();
    out[8..12].copy_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    out.extend_from_slice(values);
    Some(out)
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
