//! The optimizer: IR-to-IR passes and the pipeline that runs them.
//!
//! Every pass is a free function `run(&mut Program) -> PassStats` in its own module, listed by
//! name in [`PASSES`]. A [`Pipeline`] is data: passes run once in order (the prologue: inlining),
//! then a list of passes repeated until none of them changes anything (or [`MAX_ROUNDS`]).
//! [`OptLevel`] names the standard pipelines:
//!
//! | level | passes |
//! |---|---|
//! | `O0` | none |
//! | `O1` | inline; then mem2reg, dce, simplify_cfg to a fixpoint |
//! | `O2` | inline; then mem2reg, sccp, fold_bits, strength, ranges, indvars, remat, simplify_cfg, gvn, dce, simplify_cfg to a fixpoint |
//! | `O3` | `O2`, then once: merge, sccp, gvn, ranges, dce, simplify_cfg ([`O3_EXTRA`]) |
//!
//! In `O2`'s list, `remat` and `gvn` come after the passes that fold and mark (so that the
//! instructions they compare are in their final form) and before `dce` and `simplify_cfg`,
//! which remove the definitions they leave without uses and the parameters that their
//! rewriting makes trivial; `remat` comes before `gvn`, which then merges a block's copy of a
//! constant array with an equal one the block builds itself. `simplify_cfg` runs once more just
//! before `gvn`: an inlined or unrolled program's first round leaves hundreds of blocks that
//! join (the t = 7 Poseidon reproducer: 301), and `gvn` forwards an array's elements within a
//! block, so after the joins it forwards in the same round what it would otherwise find only
//! in the next, and the fixpoint comes a round earlier (that reproducer: two rounds instead of
//! three, 0.915x the instructions of its report, the same program on every corpus and
//! application program).
//!
//! [`optimize`] runs a pipeline with [`Options`]: verify after every pass (always in tests and
//! debug builds; a violation is a compiler bug and panics), print the program after a named pass,
//! skip passes by name, and time each pass. A recursive program cannot be inlined: [`optimize`]
//! reports it as [`OptError::Recursion`] before running anything.
//!
//! Architecture invariant: passes take IR and give IR; they never look at the source, and each
//! leaves IR that [`crate::ir::verify`] accepts. One pass looks at R1CS: `merge` sizes blocks
//! by lowering them and decides by the cost model ([`crate::cost`]), as the seed's merge
//! counts constraints by translating blocks; it still only changes IR.

pub mod calls;
pub mod dce;
pub mod fold_bits;
pub mod gvn;
pub mod indvars;
pub mod inline;
pub mod inline_cost;
pub mod mem2reg;
pub mod merge;
pub mod outline;
pub mod ranges;
pub mod remat;
pub mod sccp;
pub mod simplify_cfg;
pub mod strength;
mod util;

use crate::ir::{verify, Function, Program};
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

/// What a pass did: named counters (`loads_forwarded`, `blocks_removed`, ...), and for
/// cost-driven merging the decisions it took.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassStats {
    /// Counter name to count; zero counts are not stored.
    pub counts: BTreeMap<&'static str, usize>,
    /// Every candidate cost-driven block formation considered, and what it decided (empty for
    /// every other pass).
    pub decisions: Vec<merge::Decision>,
}

impl PassStats {
    /// Adds `n` to the counter `what`.
    pub fn add(&mut self, what: &'static str, n: usize) {
        if n > 0 {
            *self.counts.entry(what).or_insert(0) += n;
        }
    }

    /// The counter `what` (0 if never added to).
    pub fn get(&self, what: &str) -> usize {
        self.counts.get(what).copied().unwrap_or(0)
    }

    /// Whether the pass changed anything.
    pub fn changed(&self) -> bool {
        !self.counts.is_empty()
    }

    /// Runs a per-function pass on every function of `program`, in order, and adds up its
    /// counters: the `run` of every pass that looks at one function at a time.
    pub fn each_function(
        program: &mut Program,
        mut pass: impl FnMut(&mut Function) -> PassStats,
    ) -> PassStats {
        let mut stats = PassStats::default();
        for func in &mut program.funcs {
            stats.merge(pass(func));
        }
        stats
    }

    /// Adds every counter of `other` (and its decisions).
    pub fn merge(&mut self, other: PassStats) {
        for (k, v) in other.counts {
            self.add(k, v);
        }
        self.decisions.extend(other.decisions);
    }
}

impl fmt::Display for PassStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.counts.is_empty() {
            return write!(f, "no change");
        }
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        write!(f, "{}", parts.join(", "))
    }
}

/// A named pass.
#[derive(Clone, Copy)]
pub struct Pass {
    /// The name used by `--passes`, `--skip` and `--print-after`.
    pub name: &'static str,
    /// One line saying what it does.
    pub description: &'static str,
    /// The pass itself, given the pipeline's options (only `merge` reads them; only `merge`
    /// under `--monolithic` can fail).
    pub run: fn(&mut Program, &Options) -> Result<PassStats, OptError>,
}

impl fmt::Debug for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pass({})", self.name)
    }
}

/// Every pass, by name.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "inline",
        description: "replace every call by the callee's blocks, drop functions no longer called",
        run: |p, _| Ok(inline::run(p)),
    },
    Pass {
        name: "mem2reg",
        description: "forward loads from known stores (alias- and loop-aware), remove dead stores, promote non-escaping allocations to block parameters",
        run: |p, _| Ok(mem2reg::run(p)),
    },
    Pass {
        name: "sccp",
        description: "sparse conditional constant propagation (Wegman-Zadeck)",
        run: |p, _| Ok(sccp::run(p)),
    },
    Pass {
        name: "fold_bits",
        description: "fold from_bits(to_bits(x)) round trips to x (found by the structure query `bits-round-trip`)",
        run: |p, _| Ok(fold_bits::run(p)),
    },
    Pass {
        name: "ranges",
        description: "value ranges of integers: mark add/sub/mul/shl/cast that cannot wrap (`nuw`), fold decided comparisons, compare by equality where an order is known",
        run: |p, _| Ok(ranges::run(p)),
    },
    Pass {
        name: "strength",
        description: "udiv/urem/mul by a constant power of two as shr/and/shl (a shift or mask costs at most the operand's bits in R1CS, a division 3N + 1)",
        run: |p, _| Ok(strength::run(p)),
    },
    Pass {
        name: "indvars",
        description: "canonical induction variables: a loop counting i up while i < n exits on i == max(init, n), its increment marked `nuw`",
        run: |p, _| Ok(indvars::run(p)),
    },
    Pass {
        name: "remat",
        description: "copy constant arrays into the blocks that use them (and make parameters always bound to one constant that constant), so they do not ride in transition states",
        run: |p, _| Ok(remat::run(p)),
    },
    Pass {
        name: "gvn",
        description: "global value numbering: replace an instruction by an equal one of the same or a dominating block (commutative operands sorted)",
        run: |p, _| Ok(gvn::run(p)),
    },
    Pass {
        name: "dce",
        description: "remove unused side-effect-free instructions and block parameters",
        run: |p, _| Ok(dce::run(p)),
    },
    Pass {
        name: "simplify_cfg",
        description: "remove unreachable and forwarding blocks, fold branches, merge straight-line blocks",
        run: |p, _| Ok(simplify_cfg::run(p)),
    },
    Pass {
        name: "outline",
        description: "replace code written out several times inside one block (the regions `zkbc query --pattern interface` lists) by calls of one new function; in no -O level",
        run: |p, _| Ok(outline::run(p)),
    },
    Pass {
        name: "merge",
        description: "merge components below the power-of-two threshold into single blocks (branches predicated, counted loops unrolled); --monolithic merges each function into one block",
        run: |p, o| merge::run_with(p, &o.merge).map_err(OptError::Merge),
    },
];

/// The pass named `name`.
pub fn pass(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// Passes `O3` runs once after `O2`'s fixpoint: block merging, then the clean-up of what it
/// leaves (constants folded across merged blocks, the same element read or the same
/// subexpression computed by several of the merged blocks, dead copies, blocks left without
/// predecessors).
pub const O3_EXTRA: &[&str] = &["merge", "sccp", "gvn", "ranges", "dce", "simplify_cfg"];

/// The clean-up after merging: [`O3_EXTRA`] after `merge`. Block formation scores a program
/// after it, and a `merge` run that hands over a program it has already cleaned up says so
/// ([`merge::CLEANED_UP`]): [`optimize_after`] then skips these passes when they follow it.
pub const CLEANUP: &[&str] = &["sccp", "gvn", "ranges", "dce", "simplify_cfg"];

/// Most rounds of a pipeline's fixpoint loop.
pub const MAX_ROUNDS: usize = 8;

/// An optimization level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OptLevel {
    /// No optimization.
    O0,
    /// Inlining, mem2reg, DCE and CFG simplification.
    O1,
    /// `O1` plus SCCP, bit folding, ranges, induction variables, rematerialization and GVN.
    O2,
    /// `O2` plus block merging.
    O3,
}

impl OptLevel {
    /// The pipeline of this level.
    pub fn pipeline(self) -> Pipeline {
        let names: &[&str] = match self {
            OptLevel::O0 => &[],
            OptLevel::O1 => &["mem2reg", "dce", "simplify_cfg"],
            OptLevel::O2 | OptLevel::O3 => &[
                "mem2reg",
                "sccp",
                "fold_bits",
                "strength",
                "ranges",
                "indvars",
                "remat",
                "simplify_cfg",
                "gvn",
                "dce",
                "simplify_cfg",
            ],
        };
        let extra: &[&str] = if self == OptLevel::O3 { O3_EXTRA } else { &[] };
        let lookup = |n: &&str| pass(n).expect("bug: unknown pass in a level's pipeline");
        Pipeline {
            once: if self == OptLevel::O0 {
                Vec::new()
            } else {
                vec![lookup(&"inline")]
            },
            repeat: names.iter().map(lookup).collect(),
            after: extra.iter().map(lookup).collect(),
        }
    }
}

impl std::str::FromStr for OptLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim_start_matches(['O', 'o']) {
            "0" => Ok(OptLevel::O0),
            "1" => Ok(OptLevel::O1),
            "2" => Ok(OptLevel::O2),
            "3" => Ok(OptLevel::O3),
            _ => Err(format!(
                "unknown optimization level `{s}` (expected 0, 1, 2 or 3)"
            )),
        }
    }
}

/// A pipeline: `once` runs in order, then `repeat` runs in order until every one of its passes
/// has run on the program as it is and changed nothing
/// (at most [`MAX_ROUNDS`] rounds), then `after` runs once in order.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    /// Passes run once, first.
    pub once: Vec<&'static Pass>,
    /// Passes repeated to a fixpoint.
    pub repeat: Vec<&'static Pass>,
    /// Passes run once, last (block merging and its clean-up).
    pub after: Vec<&'static Pass>,
}

impl Pipeline {
    /// The named passes, each run once in the given order (what `zkbc opt --passes` runs).
    pub fn from_names(names: &[&str]) -> Result<Pipeline, OptError> {
        let once = names
            .iter()
            .map(|n| pass(n).ok_or_else(|| OptError::UnknownPass(n.to_string())))
            .collect::<Result<_, _>>()?;
        Ok(Pipeline {
            once,
            ..Pipeline::default()
        })
    }
}

/// How to run a pipeline.
#[derive(Clone, Debug)]
pub struct Options {
    /// Record the program's text after every run of these passes (in [`Report::printed`]).
    pub print_after: Vec<String>,
    /// Do not run these passes.
    pub skip: Vec<String>,
    /// Verify the IR after every pass and panic (a compiler bug) on a violation. On by default
    /// in debug builds and tests.
    pub verify: bool,
    /// How the `merge` pass merges (threshold or monolithic).
    pub merge: merge::MergeOptions,
    /// Called with the program after every pass that runs (`zkbc opt --cost-after` measures
    /// it); `None` by default.
    pub observe: Option<PassObserver>,
}

/// A callback [`Options::observe`] calls after every pass run, with the program as the pass
/// left it and the run's record.
#[derive(Clone)]
pub struct PassObserver(pub std::sync::Arc<ObserveFn>);

/// What a [`PassObserver`] calls: the program after a pass, and the pass's run.
pub type ObserveFn = dyn Fn(&Program, &PassRun) + Send + Sync;

impl std::fmt::Debug for PassObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PassObserver")
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            print_after: Vec::new(),
            skip: Vec::new(),
            verify: cfg!(debug_assertions),
            merge: merge::MergeOptions::default(),
            observe: None,
        }
    }
}

/// One run of one pass.
#[derive(Clone, Debug)]
pub struct PassRun {
    /// The pass.
    pub name: &'static str,
    /// Round of the fixpoint loop (0 for the passes run once).
    pub round: usize,
    /// What it did.
    pub stats: PassStats,
    /// How long it took.
    pub time: Duration,
}

/// What a pipeline did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every pass run, in order.
    pub runs: Vec<PassRun>,
    /// The program after each pass named in [`Options::print_after`]: (header, program text).
    pub printed: Vec<(String, String)>,
    /// What `--inline cost` decided per function (empty in the other modes).
    pub inline_decisions: Vec<inline_cost::InlineDecision>,
}

impl Report {
    /// A table of time and changes per pass run (what `--time-passes` prints).
    pub fn timing_table(&self) -> String {
        let mut out = String::from("pass          round      time  changes\n");
        let mut total = Duration::ZERO;
        for r in &self.runs {
            total += r.time;
            out.push_str(&format!(
                "{:<13} {:>5} {:>9.3?}  {}\n",
                r.name, r.round, r.time, r.stats
            ));
        }
        out.push_str(&format!("{:<13} {:>5} {:>9.3?}\n", "total", "", total));
        out
    }
}

/// Why a pipeline could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptError {
    /// No pass has this name.
    UnknownPass(String),
    /// The program's functions call each other in a cycle (recursion), which inlining (and the
    /// circuit model) cannot handle. The names of the functions on the cycle.
    Recursion(Vec<String>),
    /// `--monolithic` merging failed (a loop bound that is not constant, a loop too large).
    Merge(merge::MergeError),
}

impl fmt::Display for OptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptError::UnknownPass(name) => {
                let names: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
                write!(f, "unknown pass `{name}` (passes: {})", names.join(", "))
            }
            OptError::Recursion(names) => write!(
                f,
                "recursion is not supported: {} call each other",
                names.join(", ")
            ),
            OptError::Merge(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for OptError {}

/// Runs `pipeline` on `program`.
pub fn optimize(
    program: &mut Program,
    pipeline: &Pipeline,
    options: &Options,
) -> Result<Report, OptError> {
    let prefix = optimize_prefix(program, pipeline, options)?;
    optimize_after(program, pipeline, options, prefix)
}

/// Where a pipeline stopped after its `once` and `repeat` passes: what they did and the round
/// its `after` passes are numbered with. [`optimize_after`] resumes from it, on the program it
/// left or on a copy (the compiles of one report share everything before `merge`).
#[derive(Clone, Debug, Default)]
pub struct Prefix {
    /// The runs so far.
    pub report: Report,
    /// The last round of the fixpoint loop.
    pub last_round: usize,
    /// Whether that round changed nothing: the program is a fixpoint of every `repeat` pass,
    /// so [`optimize_after`] need not run one of them again before something changes it.
    pub converged: bool,
}

/// Runs `pipeline`'s `once` and `repeat` passes on `program` (everything before `after`).
pub fn optimize_prefix(
    program: &mut Program,
    pipeline: &Pipeline,
    options: &Options,
) -> Result<Prefix, OptError> {
    if let Some(cycle) = inline::find_recursion(program) {
        return Err(OptError::Recursion(cycle));
    }
    let mut report = Report::default();
    for pass in &pipeline.once {
        run_pass(program, pass, 0, options, &mut report)?;
    }
    let mut last_round = 0;
    let mut converged = false;
    // Runs since the last one that changed the program. Each pass is a function of the program
    // alone, so once every `repeat` pass has run on this version and left it as it was, a
    // further run of any of them would change nothing: the loop ends there, mid-round, instead
    // of finishing the round (the last round used to run the passes after the last change a
    // second time on the program they had just left alone).
    let mut unchanged_runs = 0;
    let settled = |unchanged_runs: usize| unchanged_runs >= pipeline.repeat.len();
    for round in 1..=MAX_ROUNDS {
        last_round = round;
        for pass in &pipeline.repeat {
            if settled(unchanged_runs) {
                break;
            }
            if run_pass(program, pass, round, options, &mut report)? {
                unchanged_runs = 0;
            } else {
                unchanged_runs += 1;
            }
        }
        if settled(unchanged_runs) {
            converged = true;
            break;
        }
    }
    Ok(Prefix {
        report,
        last_round,
        converged,
    })
}

/// Runs `pipeline`'s `after` passes on `program`, which [`optimize_prefix`] left as `prefix`
/// says (the same pipeline's `once` and `repeat` passes, with the same options but `merge`'s).
pub fn optimize_after(
    program: &mut Program,
    pipeline: &Pipeline,
    options: &Options,
    prefix: Prefix,
) -> Result<Report, OptError> {
    let Prefix {
        mut report,
        last_round,
        converged,
    } = prefix;
    // Whether the program is still the fixpoint the `repeat` passes left (nothing has changed
    // it since): a `repeat` pass run on it would change nothing (each is a function of the
    // program alone, and its last run on this very program changed nothing), so it is not run.
    // This is the `--no-merge` pipeline's whole clean-up. Debug builds run it and check.
    let mut settled = converged;
    // Whether the last pass was `merge` handing over a program already cleaned up, and the
    // passes since then are the clean-up's, in order.
    let mut cleaned = 0;
    let plain = options.print_after.is_empty()
        && options.observe.is_none()
        && !options.skip.iter().any(|s| CLEANUP.contains(&s.as_str()));
    for pass in &pipeline.after {
        if cleaned > 0 && plain && CLEANUP.get(cleaned - 1) == Some(&pass.name) {
            cleaned += 1;
            continue;
        }
        let at_fixpoint = settled
            && plain
            && pipeline.repeat.iter().any(|p| p.name == pass.name)
            && !options.skip.iter().any(|s| s == pass.name);
        if at_fixpoint {
            if cfg!(debug_assertions) {
                let before = program.to_string();
                let mut scratch = Report::default();
                run_pass(program, pass, last_round + 1, options, &mut scratch)?;
                assert_eq!(
                    before,
                    program.to_string(),
                    "bug: {} changed a fixpoint of the repeated passes",
                    pass.name
                );
            }
            continue;
        }
        settled &= !run_pass(program, pass, last_round + 1, options, &mut report)?;
        cleaned = match report.runs.last() {
            Some(run) if run.name == "merge" && run.stats.get(merge::CLEANED_UP) > 0 => 1,
            _ => 0,
        };
    }
    Ok(report)
}

/// Runs one pass unless `options` skips it, verifying and printing as they ask; whether it
/// changed anything.
fn run_pass(
    program: &mut Program,
    pass: &'static Pass,
    round: usize,
    options: &Options,
    report: &mut Report,
) -> Result<bool, OptError> {
    if options.skip.iter().any(|s| s == pass.name) {
        return Ok(false);
    }
    let start = Instant::now();
    let stats = crate::timing::stage(pass.name, || (pass.run)(program, options))?;
    let time = start.elapsed();
    if options.verify {
        verify::assert_valid(program, pass.name);
    }
    if options.print_after.iter().any(|s| s == pass.name) {
        report.printed.push((
            format!("after {} (round {round}): {stats}", pass.name),
            program.to_string(),
        ));
    }
    let changed = stats.changed();
    let run = PassRun {
        name: pass.name,
        round,
        stats,
        time,
    };
    if let Some(PassObserver(observe)) = &options.observe {
        observe(program, &run);
    }
    report.runs.push(run);
    Ok(changed)
}

/// Runs the pipeline of `level` with default options.
pub fn optimize_level(program: &mut Program, level: OptLevel) -> Result<Report, OptError> {
    optimize(program, &level.pipeline(), &Options::default())
}
