//! Helpers the integration tests share.

use std::path::{Path, PathBuf};

#[allow(dead_code)] // the one-binary tests' (`tests/all.rs`); `formation_budget.rs` has no call
pub mod calls;
#[allow(dead_code)]
pub mod instrument;

/// The corpus programs, `circuits/*.zok`, sorted.
#[allow(dead_code)] // not every test binary reads the corpus
pub fn corpus() -> Vec<PathBuf> {
    zok_files("circuits")
}

/// The `.zok` files of the crate's folder `sub` (not its subfolders), sorted.
#[allow(dead_code)] // not every test binary reads programs
pub fn zok_files(sub: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "zok"))
        .collect();
    files.sort();
    files
}

/// A JSON file, parsed (a test failure naming the file otherwise).
#[allow(dead_code)] // not every test binary reads JSON
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[allow(dead_code)] // only the snarkjs tests
fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// The snarkjs executable (`$SNARKJS`, on `PATH`, or in the crate's `node_modules/.bin`), or
/// the reason a test is skipped. Under CI (`CI` set) a machine with node must have snarkjs.
#[allow(dead_code)] // only the snarkjs tests
pub fn find_snarkjs() -> Result<PathBuf, String> {
    if let Some(explicit) = std::env::var_os("SNARKJS") {
        return Ok(PathBuf::from(explicit));
    }
    if on_path("node").is_none() {
        return Err("node is not installed".into());
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/.bin/snarkjs");
    match on_path("snarkjs").or_else(|| local.is_file().then_some(local)) {
        Some(found) => Ok(found),
        None if std::env::var_os("CI").is_some() => {
            panic!("node is installed but snarkjs is not: run `npm install -g snarkjs@0.7.6`")
        }
        None => Err("snarkjs is not installed (npm install -g snarkjs@0.7.6)".into()),
    }
}

/// Runs the `zkbc` binary in the crate's directory: the one CLI runner of the tests.
#[allow(dead_code)] // only the CLI tests
pub fn zkbc(args: &[&str]) -> std::process::Output {
    zkbc_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// Runs the `zkbc` binary in `dir` (relative paths in `args` are read from there).
#[allow(dead_code)] // only the CLI tests
pub fn zkbc_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_zkbc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("zkbc runs")
}

/// [`zkbc`] as its exit code (-1 when a signal ended it), standard output and standard error.
#[allow(dead_code)] // only the CLI tests
pub fn zkbc_text(args: &[&str]) -> (i32, String, String) {
    text(&zkbc(args))
}

/// A run as its exit code (-1 when a signal ended it), standard output and standard error.
#[allow(dead_code)] // only the CLI tests
pub fn text(out: &std::process::Output) -> (i32, String, String) {
    (out.status.code().unwrap_or(-1), stdout(out), stderr(out))
}

/// A run's standard output, as text.
#[allow(dead_code)] // only the CLI tests
pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A run's standard error, as text.
#[allow(dead_code)] // only the CLI tests
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `compiled` on `inputs` (JSON) and compares its outputs with `expected`
/// (`{"outputs": [...]}`): `None` when they agree, else what went wrong, naming `what`.
#[allow(dead_code)] // only the tests that run programs
pub fn run_and_compare(
    what: &str,
    compiled: &zkbc::driver::Compilation,
    inputs: &serde_json::Value,
    expected: &serde_json::Value,
) -> Option<String> {
    let values = match compiled.inputs_from_json(inputs) {
        Ok(v) => v,
        Err(e) => return Some(format!("{what}: inputs: {e}")),
    };
    let limits = zkbc::ir::interp::Limits::default();
    match zkbc::ir::interp::run(&compiled.program, &values, limits) {
        Ok(out) => {
            let got = compiled.outputs_to_json(&out.outputs);
            (got != *expected).then(|| format!("{what}: got {got}, expected {expected}"))
        }
        Err(e) => Some(format!("{what}: failed: {e}")),
    }
}

/// The number of `ZKBC_*` variable `name`, if set (a test failure if it is not a number).
fn env_u64(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(
        value
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, found `{value}`")),
    )
}

/// How many random cases a test runs: `default` (the share CI runs), or `ZKBC_RANDOM_CASES`
/// when set. The one knob of every random test; see README's test section.
#[allow(dead_code)] // only the random tests
pub fn random_cases(default: u64) -> u64 {
    env_u64("ZKBC_RANDOM_CASES").unwrap_or(default)
}

/// The seeds a random test runs: [`random_cases`]`(default)` seeds from `first`, or from
/// `ZKBC_RANDOM_SEED` when set; just seed S with `ZKBC_RANDOM_ONLY=S` (to rerun a failure).
#[allow(dead_code)] // only the random tests
pub fn random_seeds(first: u64, default: u64) -> Vec<u64> {
    if let Some(only) = env_u64("ZKBC_RANDOM_ONLY") {
        return vec![only];
    }
    let first = env_u64("ZKBC_RANDOM_SEED").unwrap_or(first);
    (first..first + random_cases(default)).collect()
}

/// `circuits/NAME` of this repository, as a command-line argument.
#[allow(dead_code)] // not every test binary names a corpus file
pub fn circuit(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("circuits")
        .join(name)
        .display()
        .to_string()
}

/// A temporary directory a test writes its files in, named by [`Scratch::path`]; removed when
/// dropped.
#[allow(dead_code)] // not every test binary writes files
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch::new()
    }
}

#[allow(dead_code)]
impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// The file `name` in the directory, as a command-line argument.
    pub fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// Writes `contents` to the file `name` in the directory; its path, as [`Scratch::path`].
    pub fn file(&self, name: &str, contents: &str) -> String {
        let path = self.path(name);
        std::fs::write(&path, contents).expect("write a temporary file");
        path
    }
}

/// A file written alone in a temporary directory, removed (with the directory) when dropped;
/// it derefs to its path, a command-line argument.
#[allow(dead_code)] // not every test binary writes files
pub struct TempFile {
    _dir: Scratch,
    path: String,
}

impl std::fmt::Display for TempFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.path)
    }
}

impl std::ops::Deref for TempFile {
    type Target = str;
    fn deref(&self) -> &str {
        &self.path
    }
}

/// `contents` written to a file `name` of a fresh temporary directory.
#[allow(dead_code)]
pub fn temp_file(name: &str, contents: &str) -> TempFile {
    let dir = Scratch::new();
    let path = dir.file(name, contents);
    TempFile { _dir: dir, path }
}

/// An input array read at run-time indices and never written (a read-only memory segment:
/// its entry-block writes and reads go to the read-only list): `s = a[0] + .. + a[n − 1]`,
/// then `s + a[j]`, the last read in the return block.
#[allow(dead_code)] // only the memory tests
pub const READ_ONLY_INPUT_TABLE: &str = "def main(private field[32] a, u32 n, u32 j) -> field {
    field mut s = 0;
    u32 mut i = 0;
    while i < n {
        s = s + a[i];
        i = i + 1;
    }
    return s + a[j];
}
";
