//! The driver: what every command that compiles shares. It reads a program — ZoKrates source
//! (`.zok`) or text-format IR (any other file) — compiles it to IR, runs the optimization
//! pipeline of the requested level, and reads inputs and writes outputs in the program's own
//! encoding (by parameter name for source programs, positional for IR).
//!
//! ```text
//! compile(name, text, &Options)  ─▶ Compilation { program, abi, opt_report }
//! Compilation::inputs_from_json  ─▶ Vec<Val>      (interp::run, r1cs::check_trace, ...)
//! Compilation::outputs_to_json   ◀─ Vec<Val>
//! ```
//!
//! Architecture invariant: the driver sequences stages and converts errors into
//! [`CompileError`]s; it implements no stage itself.

pub mod bound;
pub mod circuit;
pub mod export;
pub mod proof;
pub mod spartan;

use crate::fxhash::HashMap;

use crate::diagnostics::Diagnostic;
use crate::front::{self, Abi};
use crate::ir::{self, interp, Program};
use crate::opt::inline_cost::DecideOptions;
use crate::opt::{self, OptLevel};
use crate::{prove, r1cs};
use std::fmt;

/// How to compile.
#[derive(Clone, Debug)]
pub struct Options {
    /// The optimization level (`-O3` by default).
    pub opt_level: OptLevel,
    /// Pass options: print after, skip (`--no-merge` skips `merge`), verify, and the merge
    /// options (`--min-block-size`, `--monolithic`) in `opt.merge`.
    pub opt: opt::Options,
    /// The semantics of comparisons of two non-constant field elements (`--field-cmp`).
    pub field_cmp: front::FieldCmp,
    /// zkbc's semantics or ZoKrates' (`--compat`).
    pub compat: front::Compat,
    /// The standard library root (`--stdlib-path`, `ZOKRATES_STDLIB`).
    pub stdlib: Option<std::path::PathBuf>,
    /// Inputs (in the program's JSON encoding) to profile block formation with: cost-driven
    /// merging then counts executions by running the program on them (and each candidate whose
    /// counts do not follow from the program's), so its decisions are exact for these inputs.
    /// `None`: static counts and estimates.
    pub profile: Option<serde_json::Value>,
    /// The step limit of profile runs (`--max-steps`): a program that does not finish within
    /// it is formed with static counts instead.
    pub profile_max_steps: u64,
    /// The caches this compile shares with others (none by default).
    pub session: Session,
    /// Inline every call (`--inline all`), keep calls as blocks (`--inline none`,
    /// docs/calls.md: then `inline` is skipped, every pass runs per function, and
    /// [`opt::calls::flatten`] ends the compile), or decide per function (`--inline cost`, the
    /// default: [`opt::inline_cost`]).
    pub inline: opt::calls::Inline,
}

/// The caches the compiles of one program share (a report, its one-block count `C` and its
/// baselines): they change how often work is done, never a result. Their contents are the
/// driver's own; [`Options::default`] has none, and `report::measure` shares its own.
#[derive(Clone, Debug, Default)]
pub struct Session {
    /// The profile runs' counts, shared by the compiles on the same `profile` inputs; `None`:
    /// each compile's own.
    pub(crate) profile_runs: Option<std::rc::Rc<crate::cost::RunCache>>,
    /// The program as the pipeline leaves it before its `after` passes (merging and its
    /// clean-up), shared by the compiles of one source that differ only in how they merge:
    /// the first compile fills it, the others start from a copy. `None`: each compile's own.
    pub(crate) prefix_cache: Option<std::rc::Rc<PrefixCache>>,
}

impl Session {
    /// A session whose compiles share `runs`, the profile runs' counts (compiles of one
    /// program on the same `profile` inputs).
    pub fn sharing_runs(runs: std::rc::Rc<crate::cost::RunCache>) -> Session {
        Session {
            profile_runs: Some(runs),
            prefix_cache: None,
        }
    }
}

/// What [`compile`] keeps of a program before merging, for the next compile of the same source
/// with the same front-end options and passes before `merge` (see `Session::prefix_cache`).
#[derive(Default)]
pub struct PrefixCache(std::cell::RefCell<Option<CachedPrefix>>);

impl fmt::Debug for PrefixCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held = self.0.borrow().as_ref().map(|c| c.key.file_name.clone());
        f.debug_struct("PrefixCache").field("holds", &held).finish()
    }
}

/// One program stopped before its pipeline's `after` passes, and what it was compiled from.
struct CachedPrefix {
    key: PrefixKey,
    program: Program,
    abi: Option<Abi>,
    prefix: opt::Prefix,
    /// The functions of `program` merged into one block by a compile that shares it, for the
    /// next (a report's formation scores the program as one block; its `--monolithic` compile
    /// takes those merges).
    one_block: opt::merge::OneBlockCache,
    /// Made by a `--monolithic` compile whose `--inline` was `cost`, which inlines every call.
    cost_monolithic: bool,
}

impl CachedPrefix {
    /// Whether a compile with `key` may start from this program: the same key, or one that
    /// inlines every call (`--inline all`, `--monolithic`) where this compile decided by cost
    /// and kept no call (its program is then the one every inlining makes). A compile that
    /// kept calls serves only its own key: the report's `--monolithic` baseline once took
    /// such a program and said "none: it calls other functions". The other way, a
    /// `--monolithic` report's program serves its `--no-merge` baseline, as it always did
    /// (that baseline is the same program not merged), but a `--inline all` compile's (the
    /// second compile of [`compile`]) serves no `--inline cost` compile.
    fn serves(&self, key: &PrefixKey) -> bool {
        use opt::calls::Inline;
        let keeps = self.prefix.report.inline_decisions.iter().any(|d| d.keep);
        let with = |inline| PrefixKey {
            inline,
            ..key.clone()
        };
        match (self.key.inline, key.inline) {
            (Inline::Cost, Inline::All) if !keeps => self.key == with(Inline::Cost),
            (Inline::All, Inline::Cost) if self.cost_monolithic => self.key == with(Inline::All),
            _ => self.key == *key,
        }
    }
}

/// Everything the program before `merge` depends on.
#[derive(Clone, PartialEq, Eq)]
struct PrefixKey {
    file_name: String,
    text: String,
    field_cmp: front::FieldCmp,
    compat: front::Compat,
    stdlib: Option<std::path::PathBuf>,
    passes: Vec<&'static str>,
    skip: Vec<String>,
    verify: bool,
    inline: opt::calls::Inline,
}

impl PrefixKey {
    /// The key of compiling `text` with `options` through `pipeline`, or `None` when the
    /// compile must not be shared (it prints the program after a pass).
    fn of(
        file_name: &str,
        text: &str,
        options: &Options,
        pipeline: &opt::Pipeline,
    ) -> Option<Self> {
        if !options.opt.print_after.is_empty() {
            return None;
        }
        let passes = pipeline
            .once
            .iter()
            .chain(&pipeline.repeat)
            .map(|p| p.name)
            .collect();
        Some(PrefixKey {
            file_name: file_name.to_string(),
            text: text.to_string(),
            field_cmp: options.field_cmp,
            compat: options.compat,
            stdlib: options.stdlib.clone(),
            passes,
            // Only the `after` passes differ between the compiles that share: `merge` is the
            // one a `--no-merge` compile skips.
            skip: options
                .opt
                .skip
                .iter()
                .filter(|s| *s != "merge")
                .cloned()
                .collect(),
            verify: options.opt.verify,
            // `--monolithic` decides nothing by cost: it inlines every call.
            inline: match options.inline {
                opt::calls::Inline::Cost if options.opt.merge.monolithic => opt::calls::Inline::All,
                inline => inline,
            },
        })
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            opt_level: OptLevel::O3,
            opt: opt::Options::default(),
            field_cmp: front::FieldCmp::Complete,
            compat: front::Compat::Zkbc,
            stdlib: None,
            profile: None,
            profile_max_steps: interp::Limits::default().max_steps,
            session: Session::default(),
            inline: opt::calls::Inline::Cost,
        }
    }
}

/// What kind of program a file holds, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// ZoKrates source (`.zok`).
    Zok,
    /// Text-format IR (anything else).
    Ir,
}

impl SourceKind {
    /// `.zok` files are source; everything else is read as IR text.
    pub fn of(file_name: &str) -> SourceKind {
        if file_name.ends_with(".zok") {
            SourceKind::Zok
        } else {
            SourceKind::Ir
        }
    }
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Compilation {
    /// The optimized IR.
    pub program: Program,
    /// `main`'s source-level signature (`None` for IR input: inputs are positional).
    pub abi: Option<Abi>,
    /// What the optimizer did.
    pub opt_report: opt::Report,
    /// The block executions of a run on the profile's inputs (`Options::profile`), when block
    /// formation knows them without running the program (it ran the program it started from
    /// and derived the rest): the total a progress bar counts towards.
    pub executions: Option<u64>,
    /// How its blocks are lowered (`Options::opt.merge.lower`, what formation sized them with).
    pub lower: r1cs::LowerOptions,
}

/// Why a program does not compile. All of these are the user's input, not compiler bugs.
#[derive(Debug)]
pub enum CompileError {
    /// A ZoKrates syntax, name or type error, already rendered with `FILE:LINE:COL` and a caret.
    Source(String),
    /// IR text that does not parse.
    IrSyntax(String),
    /// IR text that parses but breaks an IR invariant.
    InvalidIr(String),
    /// The optimizer refused the program (recursion).
    Opt(String),
    /// `--monolithic` cannot merge the program into one block (a loop bound that is a run-time
    /// value, a loop too large to unroll): the rendered message and the reason.
    Monolithic(String, opt::merge::MergeError),
    /// Inputs given as arguments (`-a`) that do not fit main.
    Inputs(String),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Source(s)
            | CompileError::IrSyntax(s)
            | CompileError::InvalidIr(s)
            | CompileError::Opt(s)
            | CompileError::Inputs(s)
            | CompileError::Monolithic(s, _) => f.write_str(s),
        }
    }
}

impl std::error::Error for CompileError {}

/// Renders a front-end diagnostic without its leading `error: ` (the CLI adds it).
fn render(d: &Diagnostic, file_name: &str, source: &str) -> String {
    let rendered = d.render(file_name, source);
    rendered
        .strip_prefix("error: ")
        .unwrap_or(&rendered)
        .trim_end()
        .to_string()
}

impl Options {
    /// What the front end needs of these options.
    pub fn front(&self) -> front::FrontOptions {
        front::FrontOptions {
            field_cmp: self.field_cmp,
            compat: self.compat,
            stdlib: self.stdlib.clone(),
        }
    }
}

/// Inputs in the program's JSON encoding from ZoKrates' `-a` form: main's parameters
/// flattened to scalars, in order ([`Abi::inputs_from_args`]). Only for `.zok` programs.
pub fn inputs_from_args(
    file_name: &str,
    text: &str,
    args: &[String],
) -> Result<serde_json::Value, CompileError> {
    inputs_from_args_with(file_name, text, args, &Options::default())
}

/// [`inputs_from_args`] of a program whose imports are resolved with `options`.
pub fn inputs_from_args_with(
    file_name: &str,
    text: &str,
    args: &[String],
    options: &Options,
) -> Result<serde_json::Value, CompileError> {
    match SourceKind::of(file_name) {
        SourceKind::Zok => {
            let abi = front::abi_of_file(file_name, text, &options.front())
                .map_err(|d| CompileError::Source(render(&d, file_name, text)))?;
            abi.inputs_from_args(args)
                .map_err(|e| CompileError::Inputs(format!("{file_name}: -a: {e}")))
        }
        SourceKind::Ir => Err(CompileError::Inputs(format!(
            "{file_name}: -a takes the arguments of a ZoKrates program; give an IR program's \
             inputs with --inputs"
        ))),
    }
}

/// Compiles `text` (named `file_name`, whose extension says what it is) and optimizes it.
///
/// With `--inline cost`, the decision runs beside the compile with every call inlined (on a
/// second thread: `decide_beside`); a program that keeps some calls by
/// [`opt::inline_cost`]'s estimate is compiled with them too, and the program whose lowered blocks are
/// predicted fewer sumcheck cells wins (with the counts formation used: the profile run's, or
/// static), the kept calls within [`opt::inline_cost::KEEP_SLACK_PERCENT`]%. The estimate
/// leaves out the callers' own blocks, which calls keep from merging: the Keccak sponge around
/// a kept `keccakf` made `password_sha3` 703,040 cells against 524,288 for its one block.
pub fn compile(
    file_name: &str,
    text: &str,
    options: &Options,
) -> Result<Compilation, CompileError> {
    use opt::calls::Inline;
    let bounded = bound::with_executed_bound(file_name, text, options);
    let options = bounded.as_ref().unwrap_or(options);
    let pipeline = pipeline(options)?;
    let (start, key) = start(file_name, text, options, &pipeline)?;
    let (compiled, all) = match start {
        Start::Fresh(program, abi) if decides(options) => {
            decide_beside(file_name, text, options, &pipeline, (program, abi), key)?
        }
        start => {
            let compiled = finish(
                file_name,
                text,
                options,
                &pipeline,
                (start, key),
                Vec::new(),
            )?;
            (compiled, None)
        }
    };
    // Only `--inline cost` keeps calls by the estimate (`--monolithic` decides nothing).
    if !compiled.opt_report.inline_decisions.iter().any(|d| d.keep) {
        return Ok(compiled);
    }
    let all = all.unwrap_or_else(|| {
        let all_options = Options {
            inline: Inline::All,
            ..options.clone()
        };
        crate::timing::stage("inline_cost: every call inlined", || {
            compile_once(file_name, text, &all_options)
        })
    });
    let Ok(mut all) = all else {
        return Ok(compiled);
    };
    let (Some(kept), Some(inlined)) = crate::timing::stage("inline_cost: compare", || {
        (final_cells(&compiled, options), final_cells(&all, options))
    }) else {
        return Ok(compiled);
    };
    let slack = inlined.saturating_mul(100 + opt::inline_cost::KEEP_SLACK_PERCENT) / 100;
    if kept <= slack {
        return Ok(compiled);
    }
    let mut decisions = compiled.opt_report.inline_decisions;
    for d in decisions.iter_mut().filter(|d| d.keep) {
        d.keep = false;
        d.reason = format!(
            "inlined after all: {}; but the program compiled with calls kept is predicted {} \
             cells against {} with every call inlined (more than {}% above)",
            d.reason,
            crate::cost::group_digits(kept),
            crate::cost::group_digits(inlined),
            opt::inline_cost::KEEP_SLACK_PERCENT
        );
    }
    all.opt_report.inline_decisions = decisions;
    Ok(all)
}

/// A compile with `--inline cost` from the program its front end made: the decision
/// ([`opt::inline_cost::decide`], which compiles each function with several call sites on its
/// own) runs on a thread of its own beside the compile that inlines every call, what the
/// decision usually comes to, and what a program that keeps calls is compared with anyway
/// ([`compile`]). Returns the compile as decided and, when it keeps calls, the one with every
/// call inlined. What is computed is what deciding first and compiling after computes; only
/// the prefix cache's entry is made by the compile that inlines every call, and carries the
/// decisions when nothing is kept (otherwise it stays keyed as that compile's, `--inline all`).
fn decide_beside(
    file_name: &str,
    text: &str,
    options: &Options,
    pipeline: &opt::Pipeline,
    (program, abi): (Program, Option<Abi>),
    key: Option<PrefixKey>,
) -> Result<(Compilation, Option<Result<Compilation, CompileError>>), CompileError> {
    let decide_options = DecideOptions::of(&options.opt);
    let (all, (decisions, front)) = std::thread::scope(|s| {
        let front = program.clone();
        let decide_pipeline = pipeline.clone();
        let decider = s.spawn(move || {
            let decisions = crate::timing::beside("inline_cost (beside opt)", || {
                opt::inline_cost::decide(&front, &decide_pipeline, &decide_options)
            });
            (decisions, front)
        });
        let start = (Start::Fresh(program, abi.clone()), key.clone());
        let all = finish(file_name, text, options, pipeline, start, Vec::new());
        let decided = decider
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (all, decided)
    });
    let cache = options.session.prefix_cache.as_ref();
    if !decisions.iter().any(|d| d.keep) {
        let mut all = all?;
        if let (Some(cache), Some(key)) = (cache, &key) {
            if let Some(entry) = cache.0.borrow_mut().as_mut().filter(|e| e.key == *key) {
                entry.prefix.report.inline_decisions = decisions.clone();
            }
        }
        all.opt_report.inline_decisions = decisions;
        return Ok((all, None));
    }
    // The compile that keeps calls starts afresh and makes its own entry; the first stays,
    // as when the compile with every call inlined ran after it.
    let saved = cache.and_then(|cache| {
        let mut slot = cache.0.borrow_mut();
        if let Some(entry) = slot.as_mut().filter(|e| Some(&e.key) == key.as_ref()) {
            entry.key.inline = opt::calls::Inline::All;
        }
        slot.take()
    });
    let start = (Start::Fresh(front, abi), key);
    let kept = finish(file_name, text, options, pipeline, start, decisions);
    if let (Some(cache), Some(saved)) = (cache, saved) {
        *cache.0.borrow_mut() = Some(saved);
    }
    Ok((kept?, Some(all)))
}

/// The sumcheck cells of `compiled`'s program as lowered (every block, calls and their stack
/// included), with the counts block formation used: a run on `options.profile`'s inputs, or
/// static counts and estimates. Its blocks are lowered through the compile's shared
/// [`r1cs::StatsCache`] when it has one, so a report does not lower the program it keeps again.
fn final_cells(compiled: &Compilation, options: &Options) -> Option<u128> {
    let mut program = compiled.program.clone();
    legalize_for_r1cs(&mut program).ok()?;
    let counts = match &options.profile {
        Some(json) => {
            let inputs = compiled.inputs_from_json(json).ok()?;
            let runs = options.session.profile_runs.clone().unwrap_or_default();
            profile_counts(inputs, options, runs)
        }
        None => crate::cost::Counts::Static,
    };
    let stats = match &options.opt.merge.stats_cache {
        Some(cache) => cache.0.stats(&program),
        None => r1cs::stats_opts(&program, options.opt.merge.lower),
    };
    let stats = stats.ok()?;
    Some(crate::cost::predict::prediction_of(&stats, &counts.of(&program)).cells)
}

/// Block formation's counts from runs on `inputs` (through `runs`, within `--max-steps`).
fn profile_counts(
    inputs: Vec<interp::Val>,
    options: &Options,
    runs: std::rc::Rc<crate::cost::RunCache>,
) -> crate::cost::Counts {
    crate::cost::Counts::Profile(std::rc::Rc::new(crate::cost::Profile {
        inputs,
        limits: interp::Limits {
            max_steps: options.profile_max_steps,
            ..interp::Limits::default()
        },
        runs,
    }))
}

/// [`compile`] with the inlining `options` say, decided once.
fn compile_once(
    file_name: &str,
    text: &str,
    options: &Options,
) -> Result<Compilation, CompileError> {
    let pipeline = pipeline(options)?;
    let (start, key) = start(file_name, text, options, &pipeline)?;
    let decisions = match &start {
        Start::Fresh(program, _) if decides(options) => crate::timing::stage("inline_cost", || {
            opt::inline_cost::decide(program, &pipeline, &DecideOptions::of(&options.opt))
        }),
        _ => Vec::new(),
    };
    finish(file_name, text, options, &pipeline, (start, key), decisions)
}

/// Whether a compile with `options` decides by cost which calls to keep (`--inline cost`;
/// `--monolithic` decides nothing: it inlines every call).
fn decides(options: &Options) -> bool {
    options.inline == opt::calls::Inline::Cost && !options.opt.merge.monolithic
}

/// Where a compile starts: the program its front end made, or the one a compile of the same
/// source left before its `after` passes (`Session::prefix_cache`), with what that compile
/// decided.
enum Start {
    Fresh(Program, Option<Abi>),
    Cached {
        program: Program,
        abi: Option<Abi>,
        prefix: opt::Prefix,
        one_block: opt::merge::OneBlockCache,
    },
}

/// The start of compiling `text` with `options` through `pipeline`, and its key in the prefix
/// cache (`None`: the compile is not shared).
fn start(
    file_name: &str,
    text: &str,
    options: &Options,
    pipeline: &opt::Pipeline,
) -> Result<(Start, Option<PrefixKey>), CompileError> {
    let key = options
        .session
        .prefix_cache
        .as_ref()
        .and_then(|_| PrefixKey::of(file_name, text, options, pipeline));
    let cached = match (&options.session.prefix_cache, &key) {
        (Some(cache), Some(key)) => cache
            .0
            .borrow()
            .as_ref()
            .filter(|c| c.serves(key))
            .map(|c| Start::Cached {
                program: c.program.clone(),
                abi: c.abi.clone(),
                prefix: c.prefix.clone(),
                one_block: c.one_block.clone(),
            }),
        _ => None,
    };
    let start = match cached {
        Some(start) => start,
        None => {
            let (program, abi) = front_end(file_name, text, options)?;
            Start::Fresh(program, abi)
        }
    };
    Ok((start, key))
}

/// Compiles from `start`: a fresh program with the inline `decisions` made on it (the
/// functions kept stay calls, the others are inlined now; `inline` then has nothing left to
/// do), or a cached one as its compile decided.
fn finish(
    file_name: &str,
    text: &str,
    options: &Options,
    pipeline: &opt::Pipeline,
    (start, key): (Start, Option<PrefixKey>),
    decisions: Vec<opt::inline_cost::InlineDecision>,
) -> Result<Compilation, CompileError> {
    let mut opt_options = options.opt.clone();
    if options.inline == opt::calls::Inline::None {
        opt_options.skip.push("inline".into());
    }
    let (mut program, abi, prefix, inline_decisions) = match start {
        Start::Cached {
            program,
            abi,
            prefix,
            one_block,
        } => {
            opt_options.merge.one_block = Some(one_block);
            let decisions = prefix.report.inline_decisions.clone();
            (program, abi, Some(prefix), decisions)
        }
        Start::Fresh(mut program, abi) => {
            if decisions.iter().any(|d| d.keep) {
                opt::inline_cost::apply(&mut program, &decisions);
            }
            (program, abi, None, decisions)
        }
    };
    let keeps_calls = match options.inline {
        opt::calls::Inline::All => false,
        opt::calls::Inline::None => true,
        opt::calls::Inline::Cost => inline_decisions.iter().any(|d| d.keep),
    };
    if keeps_calls {
        opt_options.skip.push("inline".into());
    }
    let runs = options.session.profile_runs.clone().unwrap_or_default();
    if let Some(json) = &options.profile {
        // Inputs that do not fit `main` profile nothing; the command reading them reports it.
        let inputs = match &abi {
            Some(abi) => abi.inputs_from_json(json),
            None => interp::inputs_from_json(&program, json),
        };
        if let Ok(inputs) = inputs {
            opt_options.merge.counts = profile_counts(inputs, options, runs.clone());
        }
    }
    let opt_report = crate::timing::stage("opt", || {
        let prefix = match prefix {
            Some(prefix) => prefix,
            None => {
                let mut prefix = opt::optimize_prefix(&mut program, pipeline, &opt_options)?;
                prefix.report.inline_decisions = inline_decisions.clone();
                if let (Some(cache), Some(key)) = (&options.session.prefix_cache, key) {
                    let one_block = opt::merge::OneBlockCache::default();
                    opt_options.merge.one_block = Some(one_block.clone());
                    *cache.0.borrow_mut() = Some(CachedPrefix {
                        key,
                        program: program.clone(),
                        abi: abi.clone(),
                        prefix: prefix.clone(),
                        one_block,
                        cost_monolithic: options.inline == opt::calls::Inline::Cost
                            && options.opt.merge.monolithic,
                    });
                }
                prefix
            }
        };
        opt::optimize_after(&mut program, pipeline, &opt_options, prefix)
    })
    .map_err(|e| match e {
        opt::OptError::Merge(m) => CompileError::Monolithic(format!("{file_name}: {m}"), m),
        e => CompileError::Opt(format!("{file_name}: {e}")),
    })?;
    if keeps_calls {
        if let Err(e) = keep_calls(&mut program) {
            if options.inline == opt::calls::Inline::Cost {
                // A kept function the flattening refuses (a reference across its call) is
                // inlined after all: `cost` never fails where `all` compiles.
                let all = Options {
                    inline: opt::calls::Inline::All,
                    session: Session {
                        prefix_cache: None,
                        ..options.session.clone()
                    },
                    ..options.clone()
                };
                return compile(file_name, text, &all);
            }
            return Err(CompileError::Opt(format!("{file_name}: {e}")));
        }
    }
    // The memory plan decides by the counts the cells are predicted with, as in formation.
    crate::cost::set_predicted_runs(&mut program, &opt_options.merge.counts);
    let executions = runs.cached(&program).map(|counts| counts.values().sum());
    Ok(Compilation {
        program,
        abi,
        opt_report,
        executions,
        lower: options.opt.merge.lower,
    })
}

/// `text` read as a program: ZoKrates source through the front end, or IR text parsed and
/// verified.
fn front_end(
    file_name: &str,
    text: &str,
    options: &Options,
) -> Result<(Program, Option<Abi>), CompileError> {
    match SourceKind::of(file_name) {
        SourceKind::Zok => {
            let (program, abi) = crate::timing::stage("front", || {
                front::compile_file(file_name, text, &options.front())
            })
            .map_err(|d| CompileError::Source(render(&d, file_name, text)))?;
            Ok((program, Some(abi)))
        }
        SourceKind::Ir => {
            let program = ir::parse_program(text)
                .map_err(|e| CompileError::IrSyntax(format!("{file_name}:{e}")))?;
            ir::verify::verify_program(&program)
                .map_err(|e| CompileError::InvalidIr(format!("{file_name}: invalid IR:\n{e}")))?;
            Ok((program, None))
        }
    }
}

/// The pipeline `options` ask for: the level's, where `--monolithic` (which needs the constant
/// loop bounds SCCP finds) is only accepted at `-O2` and above and adds merging at `-O2`.
fn pipeline(options: &Options) -> Result<opt::Pipeline, CompileError> {
    let mut pipeline = options.opt_level.pipeline();
    if options.opt.merge.monolithic {
        if options.opt_level < OptLevel::O2 {
            return Err(CompileError::Opt(
                "--monolithic needs -O2 or -O3: loops are unrolled to the constant bounds SCCP finds"
                    .into(),
            ));
        }
        if options.inline == opt::calls::Inline::None {
            return Err(CompileError::Opt(
                "--monolithic inlines every call; it cannot be combined with --inline none".into(),
            ));
        }
        if options.opt.skip.iter().any(|s| s == "merge") {
            return Err(CompileError::Opt(
                "--monolithic merges blocks; it cannot be combined with --no-merge".into(),
            ));
        }
        if pipeline.after.is_empty() {
            pipeline.after = opt::O3_EXTRA
                .iter()
                .map(|n| opt::pass(n).expect("bug: O3's passes exist"))
                .collect();
        }
    }
    Ok(pipeline)
}

/// Keeps calls as blocks (`--inline none`): references promoted first (at `-O0` nothing has
/// run; a reference cannot cross a call), then [`opt::calls::flatten`].
fn keep_calls(program: &mut Program) -> Result<(), String> {
    if needs_legalizing(program) {
        let pipeline =
            opt::Pipeline::from_names(&["mem2reg", "dce"]).expect("bug: legalizing passes exist");
        opt::optimize(program, &pipeline, &opt::Options::default()).map_err(|e| e.to_string())?;
    }
    crate::timing::stage("flatten", || opt::calls::flatten(program))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Whether a program uses what R1CS lowering does not support: calls or memory.
pub fn needs_legalizing(program: &Program) -> bool {
    program.funcs.len() > 1
        || program.funcs.iter().any(|f| {
            f.layout.iter().any(|b| {
                f.block(*b).insts.iter().any(|i| {
                    matches!(
                        f.inst(*i).kind,
                        ir::InstKind::Call { .. }
                            | ir::InstKind::Allocate { .. }
                            | ir::InstKind::Load { .. }
                            | ir::InstKind::Store { .. }
                    )
                })
            })
        })
}

/// Makes a program lowerable to R1CS: per-block lowering needs IR without calls and without
/// memory, which `-O0` keeps. This runs the least that removes them — `inline`, then `mem2reg`
/// and `dce` — and nothing at all when the program has neither (any level from `-O1` up).
/// Memory mem2reg cannot promote stays, and lowering then reports it.
pub fn legalize_for_r1cs(program: &mut Program) -> Result<(), CompileError> {
    if !needs_legalizing(program) {
        return Ok(());
    }
    let pipeline = opt::Pipeline::from_names(&["inline", "mem2reg", "dce"])
        .expect("bug: legalizing passes exist");
    crate::timing::stage("legalize", || {
        opt::optimize(program, &pipeline, &opt::Options::default())
    })
    .map(|_| ())
    .map_err(|e| CompileError::Opt(e.to_string()))
}

impl Compilation {
    /// Reads `main`'s inputs: a JSON object keyed by parameter name for source programs, a JSON
    /// array (one entry per parameter) for IR programs.
    pub fn inputs_from_json(&self, json: &serde_json::Value) -> Result<Vec<interp::Val>, String> {
        match &self.abi {
            Some(abi) => abi.inputs_from_json(json),
            None => interp::inputs_from_json(&self.program, json),
        }
    }

    /// The inputs when no inputs file is given: an empty object (or array).
    pub fn default_inputs(&self) -> serde_json::Value {
        match &self.abi {
            Some(_) => serde_json::Value::Object(serde_json::Map::new()),
            None => serde_json::Value::Array(Vec::new()),
        }
    }

    /// `{"outputs": [...]}` in the program's encoding.
    pub fn outputs_to_json(&self, outputs: &[interp::Val]) -> serde_json::Value {
        match &self.abi {
            Some(abi) => abi.outputs_to_json(outputs),
            None => {
                let returns = &self.program.main_func().returns;
                let values: Vec<_> = outputs
                    .iter()
                    .zip(returns)
                    .map(|(v, t)| v.to_json(t))
                    .collect();
                serde_json::json!({ "outputs": values })
            }
        }
    }
}

/// The block instances of a run, as the prover and the exporter take them: per executed block
/// (in order of first execution) its constraint system and one full assignment
/// `z = [1, instance.., witness..]` per execution, computed as [`r1cs::check_trace`] computes
/// them. Blocks of functions other than `main` are named `FUNC.bN`.
pub fn block_instances(
    program: &Program,
    outcome: &interp::Outcome,
    lower: r1cs::LowerOptions,
) -> Result<Vec<prove::BlockInstance>, r1cs::CheckError> {
    block_instances_with(program, outcome, lower, None, |_, _| {}).map(|(instances, _)| instances)
}

/// [`block_instances`], calling `progress` with the block executions assigned so far (a
/// progress bar's position).
pub fn block_instances_with_progress(
    program: &Program,
    outcome: &interp::Outcome,
    lower: r1cs::LowerOptions,
    progress: Option<&dyn Fn(usize)>,
) -> Result<Vec<prove::BlockInstance>, r1cs::CheckError> {
    block_instances_with(program, outcome, lower, progress, |_, _| {})
        .map(|(instances, _)| instances)
}

/// [`block_instances`], calling `visit` on every execution's block and assignment in trace
/// order and `progress` with the executions assigned so far, and giving the trace's report too
/// (its memory: initial entries and accesses).
pub(crate) fn block_instances_with(
    program: &Program,
    outcome: &interp::Outcome,
    lower: r1cs::LowerOptions,
    progress: Option<&dyn Fn(usize)>,
    mut visit: impl FnMut(&r1cs::BlockR1cs<'_>, &r1cs::Assignment),
) -> Result<(Vec<prove::BlockInstance>, r1cs::CheckReport), r1cs::CheckError> {
    let mut instances: Vec<prove::BlockInstance> = Vec::new();
    let mut index: HashMap<(ir::FuncId, ir::BlockId), usize> = HashMap::default();
    let opts = r1cs::CheckOptions {
        progress,
        lower,
        ..r1cs::CheckOptions::default()
    };
    let report = r1cs::for_each_execution_opts(program, outcome, opts, |_, blk, asg| {
        let key = (blk.func_id(), blk.block());
        let i = *index.entry(key).or_insert_with(|| {
            instances.push(prove::BlockInstance {
                name: instance_name(program, blk),
                source: program.block_source(blk.func_id(), blk.block()),
                state: Some(state_wires(blk)),
                r1cs: sparse_r1cs(blk),
                executions: Vec::new(),
            });
            instances.len() - 1
        });
        instances[i].executions.push(asg.full());
        visit(blk, asg);
        Ok(())
    })?;
    Ok((instances, report))
}

/// Every block of every function in the circuit as an instance with no executions: the
/// constraint systems alone (`export` without inputs).
pub fn block_systems(
    program: &Program,
    lower: r1cs::LowerOptions,
) -> Result<Vec<prove::BlockInstance>, r1cs::LowerError> {
    let circuit = program.circuit_funcs();
    let mut out = Vec::new();
    for fid in program.func_ids() {
        if !circuit[fid.index()] {
            continue;
        }
        for blk in r1cs::lower_function_opts(program, fid, lower)? {
            out.push(prove::BlockInstance {
                name: instance_name(program, &blk),
                source: program.block_source(blk.func_id(), blk.block()),
                state: Some(state_wires(&blk)),
                r1cs: sparse_r1cs(&blk),
                executions: Vec::new(),
            });
        }
    }
    Ok(out)
}

/// What a lowered block's instance variables mean.
fn state_wires(blk: &r1cs::BlockR1cs<'_>) -> prove::StateWires {
    let layout = blk.layout();
    prove::StateWires {
        input_state: layout.in_leaves(),
        accesses: layout.access_vars,
        output_state: layout.out_leaves,
    }
}

/// The name of the instance of block `block` of `func`: `b3` in main, `f.b3` elsewhere (the
/// export's file names).
pub fn instance_label(program: &Program, func: ir::FuncId, block: ir::BlockId) -> String {
    if func == program.main {
        block.to_string()
    } else {
        format!("{}.{}", program.func(func).name, block)
    }
}

/// A block instance's name: `b3` in main, `f.b3` elsewhere.
fn instance_name(program: &Program, blk: &r1cs::BlockR1cs<'_>) -> String {
    instance_label(program, blk.func_id(), blk.block())
}

/// A block's constraint system as the prover's sparse matrices.
pub(crate) fn sparse_r1cs(blk: &r1cs::BlockR1cs<'_>) -> prove::SparseR1cs {
    fn row(r: r1cs::Row<'_>) -> impl Iterator<Item = (usize, crate::field::Fr)> + '_ {
        r.iter().map(|(v, c)| (v as usize, c))
    }
    let (mut a, mut b, mut c) = (
        prove::SparseMatrix::new(),
        prove::SparseMatrix::new(),
        prove::SparseMatrix::new(),
    );
    for k in 0..blk.n_constraints() {
        let (ra, rb, rc) = blk.constraint(k);
        a.push_row(row(ra));
        b.push_row(row(rb));
        c.push_row(row(rc));
    }
    for m in [&mut a, &mut b, &mut c] {
        m.shrink();
    }
    prove::SparseR1cs {
        num_instance: blk.n_instance(),
        num_witness: blk.n_witness(),
        a,
        b,
        c,
    }
}
